//! The launcher icons of StarterApp and MemDbg Viewer (`rsrc/*.rcp`,
//! `ICONFAMILY` and `SMALLICONFAMILY` from `rsrc/icons/`): byte for byte
//! what PilRC 3.2 wrote for the same files (`tests/icons/`, made as its
//! README says), and field by field PilRC's documented bitmap format: the
//! `BitmapType` header (SDK 3.5 `Bitmap.h`), rows padded to 16 bits, the
//! family chained through `nextDepthOffset` (4-byte words) from the 1-bit
//! bitmap to the 8-bit one, which ends the chain.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// tAIB `id` of `rcp` as palm-rcp compiles it.
fn icon(rcp: &str, id: u16) -> Vec<u8> {
    let compiled = palm_rcp::compile_file(root().join("rsrc").join(rcp)).unwrap();
    compiled
        .into_iter()
        .find(|r| &r.kind == b"tAIB" && r.id == id)
        .unwrap_or_else(|| panic!("{rcp} has no tAIB {id}"))
        .data
}

/// One bitmap of a family, its header's fields.
#[derive(Debug, PartialEq, Eq)]
struct Bitmap {
    width: u16,
    height: u16,
    row_bytes: u16,
    flags: u16,
    pixel_size: u8,
    version: u8,
    next_depth_offset: u16,
    transparent_index: u8,
    compression_type: u8,
    reserved: u16,
}

fn header(b: &[u8]) -> Bitmap {
    let w = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
    Bitmap {
        width: w(0),
        height: w(2),
        row_bytes: w(4),
        flags: w(6),
        pixel_size: b[8],
        version: b[9],
        next_depth_offset: w(10),
        transparent_index: b[12],
        compression_type: b[13],
        reserved: w(14),
    }
}

/// The family's bitmaps (header and rows), following the chain.
fn family(data: &[u8]) -> Vec<(Bitmap, &[u8])> {
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        let h = header(&data[at..]);
        let bits = &data[at + 16..at + 16 + usize::from(h.row_bytes) * usize::from(h.height)];
        let next = usize::from(h.next_depth_offset) * 4;
        out.push((h, bits));
        if next == 0 {
            return out;
        }
        at += next;
    }
}

/// The expected header of an uncompressed bitmap without a color table.
fn plain(width: u16, height: u16, bits: u8, next: u16) -> Bitmap {
    Bitmap {
        width,
        height,
        // width × bits, rounded up to 16 bits.
        row_bytes: (width * u16::from(bits)).div_ceil(16) * 2,
        flags: 0,
        pixel_size: bits,
        version: if bits >= 8 { 2 } else { 1 },
        next_depth_offset: next,
        transparent_index: 0,
        compression_type: 0,
        reserved: 0,
    }
}

#[test]
fn the_launcher_icons_are_pilrcs_bytes() {
    for (app, rcp) in [
        ("starter", "StarterApp.rcp"),
        ("viewer", "MemDbgViewer.rcp"),
    ] {
        for id in [1000u16, 1001] {
            let golden = root().join(format!("tools/rcp/tests/icons/{app}-tAIB{id:04x}.bin"));
            assert_eq!(
                icon(rcp, id),
                std::fs::read(&golden).unwrap(),
                "{rcp} tAIB {id} differs from PilRC's {}",
                golden.display()
            );
        }
    }
}

#[test]
fn a_1_bit_and_an_8_bit_icon_follow_the_bitmap_format() {
    // Large: 32x22 (a launcher size, PALM_FACTS §1.6). 1 bit: 4 bytes a row,
    // 16 + 88 bytes, so the next bitmap is 26 words on; 8 bits: 32 a row.
    let large = icon("StarterApp.rcp", 1000);
    let f = family(&large);
    assert_eq!(f.len(), 2);
    assert_eq!(f[0].0, plain(32, 22, 1, 26));
    assert_eq!(f[1].0, plain(32, 22, 8, 0));
    assert_eq!(large.len(), 16 + 4 * 22 + 16 + 32 * 22);
    // The 1-bit rows are the .pbm's (1 = black = a set bit), first pixel in
    // bit 7.
    let pbm = std::fs::read_to_string(root().join("rsrc/icons/starter-1.pbm")).unwrap();
    let pixels: Vec<u8> = pbm
        .lines()
        .filter(|l| !l.starts_with(['P', '#']))
        .skip(1)
        .flat_map(|l| l.split_whitespace().map(|p| p.parse::<u8>().unwrap()))
        .collect();
    assert_eq!(pixels.len(), 32 * 22);
    for (y, row) in f[0].1.chunks(4).enumerate() {
        for x in 0..32 {
            let bit = row[x / 8] >> (7 - x % 8) & 1;
            assert_eq!(bit, pixels[y * 32 + x], "pixel ({x}, {y})");
        }
    }
    // The 8-bit rows: palette indices of the system palette, 0 white and
    // 0xFF black; the red drop is index 0x7D (255, 0, 0).
    let colors = f[1].1;
    assert!(colors.iter().all(|&c| [0x00, 0xFF, 0x7D].contains(&c)));
    for (i, &c) in colors.iter().enumerate() {
        let p = pixels[i];
        assert!(
            (p == 1) == (c != 0),
            "8-bit pixel {i} ({c:#x}) and 1-bit pixel ({p}) disagree on what is drawn"
        );
    }
    assert!(colors.contains(&0x7D));

    // Small: 15x9. 15 bits round up to 2 bytes a row, 15 bytes to 16.
    let small = icon("StarterApp.rcp", 1001);
    let f = family(&small);
    assert_eq!(f[0].0, plain(15, 9, 1, 9));
    assert_eq!(f[1].0, plain(15, 9, 8, 0));
    // The padding bit and byte of each row are 0 (white).
    for row in f[0].1.chunks(2) {
        assert_eq!(row[1] & 1, 0);
    }
    for row in f[1].1.chunks(16) {
        assert_eq!(row[15], 0);
    }
}
