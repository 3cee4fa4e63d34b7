//! The bitmap compiler: `.bmp`, `.pbm`/`.pgm`/`.ppm`/`.pnm` and `.xbm` images
//! to Palm OS bitmap resources (`Tbmp`, and `tAIB` launcher icons), byte for
//! byte as PilRC 3.2 writes them for 68k devices.
//!
//! ```
//! use palm_rcp::bitmap::{Depth, Member, encode_family};
//! // A 2x1 .pbm: one black and one white pixel.
//! let pbm = b"P1 2 1 1 0";
//! let tbmp = encode_family(&[Member::new("dot.pbm", pbm, Depth::Mono)])?;
//! assert_eq!(tbmp.len(), 16 + 2); // header, one row of 2 bytes
//! assert_eq!(&tbmp[..6], &[0, 2, 0, 1, 0, 2]); // width 2, height 1, rowBytes 2
//! assert_eq!(tbmp[16], 0x80); // the black pixel
//! # Ok::<(), palm_rcp::bitmap::BitmapError>(())
//! ```
//!
//! # Layout (68k, big-endian)
//!
//! A resource is a chain of bitmaps, one per depth, each a `BitmapType`
//! header of 16 bytes then its bits (`jichu4n/palm-os-sdk`,
//! `sdk-3.5/include/Core/System/Bitmap.h` `BitmapType`, `BitmapFlagsType`;
//! PilRC `szRCBITMAP` `"w,w,w,uuuuuuuuzu8,b,b,w,b,b,zw"`, `jichu4n/pilrc:bitmap.c`
//! `BMP_CompressDumpBitmap`):
//!
//! | offset | size | field | value written |
//! |---|---|---|---|
//! | 0 | 2 | `width` | pixels |
//! | 2 | 2 | `height` | pixels |
//! | 4 | 2 | `rowBytes` | bytes per row: `width × depth` bits rounded up to 16 |
//! | 6 | 2 | `flags` (bit 15 first: compressed, hasColorTable, hasTransparency, indirect, forScreen, directColor) | as used |
//! | 8 | 1 | `pixelSize` | 1, 2, 4, 8 or 16 (0 for an `.xbm`, as PilRC leaves it) |
//! | 9 | 1 | `version` | 1 below 8 bits a pixel, 2 from 8 (0 for an `.xbm`) |
//! | 10 | 2 | `nextDepthOffset` | 4-byte words from this header to the next bitmap of the family, 0 for the last |
//! | 12 | 1 | `transparentIndex` | `TRANSPARENT`/`TRANSPARENTINDEX` |
//! | 13 | 1 | `compressionType` | 0 (`BitmapCompressionTypeScanLine`) |
//! | 14 | 2 | reserved | 0 |
//!
//! The bits follow the header: with `COLORTABLE` (8 bits) first a color
//! table (`UInt16` count 256, then index, red, green, blue per entry), with
//! 16-bit color first 8 bytes of `BitmapDirectInfoType` (5, 6, 5 bits, then
//! the transparent color); then `height` rows of `rowBytes`. A compressed
//! bitmap (`COMPRESS` when it saves space, `FORCECOMPRESS` always) holds,
//! instead of the rows, a `UInt16` total size then per row and per group of
//! 8 bytes a flag byte (bit 7 first: the byte differs from the row above) and
//! the bytes that differ (PilRC `BMP_CompressBitmap`). Each bitmap but the
//! last is padded with zeros to a multiple of 4 bytes; the last to an even size.
//!
//! # How images are read (as PilRC reads them)
//!
//! - `.bmp` (Windows, uncompressed, 1, 4, 8, 15, 16 or 24 bits a pixel;
//!   16 bits are 5-5-5, or 5-6-5 with `BI_BITFIELDS`, expanded to 8 bits a
//!   channel as PilRC does, `BMP_GetBits16bpp`): each pixel's
//!   color is matched to the nearest color of the target palette (squared
//!   RGB distance; on a tie the higher index): 1 bit white/black, 2 bits the
//!   4 greys, 4 bits grey the 16 greys, 4 bits color the Palm 16-color
//!   palette, 8 bits the Palm system palette. With `COLORTABLE` the image's
//!   own indices and palette are kept. As in PilRC, the pixels start right
//!   after the palette, or the masks of `BI_BITFIELDS` (the file header's
//!   offset is not used), and bottom-up rows are required.
//! - `.pbm`/`.pgm`/`.ppm`/`.pnm` (P1-P6): below 8 bits, grey levels scaled to
//!   the depth (`(grey × max + maxval/2) / maxval`, inverted: 0 is white); at
//!   8 bits, the nearest system-palette color.
//! - `.xbm` (X11): the bits as they are (1 bit a pixel), bits reversed per
//!   byte; the data must start on the line after `static ... bits[] = {`.
//!
//! Errors name the file and what is wrong; no input makes this module panic.

use std::fmt;

/// A bitmap compile error: the image file and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitmapError {
    /// The image file as named in the `.rcp`.
    pub file: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for BitmapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

impl std::error::Error for BitmapError {}

/// The depth (and palette) of one bitmap of a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// 1 bit a pixel, black and white (`BITMAP`, `BPP 1`).
    Mono,
    /// 2 bits a pixel, 4 greys (`BITMAPGREY`, `BPP 2`).
    Grey4,
    /// 4 bits a pixel, 16 greys (`BITMAPGREY16`, `BPP 4`).
    Grey16,
    /// 4 bits a pixel, the Palm 16-color palette (`BITMAPCOLOR16`, `BPP 5`).
    Color16,
    /// 8 bits a pixel, the Palm system palette (`BITMAPCOLOR`, `BPP 8`).
    Color256,
    /// 16 bits a pixel, direct 5-6-5 color (`BITMAPCOLOR16K`, `BPP 16`).
    Color16k,
}

impl Depth {
    /// Bits a pixel.
    pub fn bits(self) -> u8 {
        match self {
            Depth::Mono => 1,
            Depth::Grey4 => 2,
            Depth::Grey16 | Depth::Color16 => 4,
            Depth::Color256 => 8,
            Depth::Color16k => 16,
        }
    }
}

/// `NOCOMPRESS` (the default), `COMPRESS` (when smaller), `FORCECOMPRESS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Rows as they are.
    #[default]
    None,
    /// Scan-line compressed if that is smaller.
    Auto,
    /// Scan-line compressed always.
    Force,
}

/// `TRANSPARENT r g b` or `TRANSPARENTINDEX i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transparency {
    /// The color that is transparent (matched to the palette).
    Rgb(u8, u8, u8),
    /// The palette index that is transparent.
    Index(u8),
}

/// One bitmap of a family: the image file's name (its extension says its
/// format) and bytes, and how to convert it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member<'a> {
    /// The file name, for its extension and for errors.
    pub name: &'a str,
    /// The file's bytes.
    pub data: &'a [u8],
    /// The depth to convert to.
    pub depth: Depth,
    /// Scan-line compression.
    pub compression: Compression,
    /// `COLORTABLE`: keep a `.bmp`'s own 8-bit palette (8 bits only).
    pub color_table: bool,
    /// The transparent color, if any.
    pub transparency: Option<Transparency>,
}

impl<'a> Member<'a> {
    /// A member with no compression, color table or transparency.
    pub fn new(name: &'a str, data: &'a [u8], depth: Depth) -> Member<'a> {
        Member {
            name,
            data,
            depth,
            compression: Compression::None,
            color_table: false,
            transparency: None,
        }
    }
}

/// The statements that make bitmap resources (`BITMAP`, `ICON`, ...), in
/// upper case.
pub const STATEMENTS: &[&str] = &[
    "BITMAP",
    "BITMAPGREY",
    "BITMAPGRAY",
    "BITMAPGREY16",
    "BITMAPGRAY16",
    "BITMAPCOLOR16",
    "BITMAPCOLOUR16",
    "BITMAPCOLOR",
    "BITMAPCOLOUR",
    "BITMAPCOLOR16K",
    "BITMAPCOLOUR16K",
    "BITMAPFAMILY",
    "BITMAPFAMILYEX",
    "ICON",
    "ICONFAMILY",
    "ICONFAMILYEX",
    "SMALLICON",
    "SMALLICONFAMILY",
    "SMALLICONFAMILYEX",
];

/// Whether `word` (upper case) is a bitmap statement.
pub(crate) fn is_bitmap_statement(word: &str) -> bool {
    STATEMENTS.contains(&word)
}

/// One converted bitmap before it is placed in the family.
struct Converted {
    width: u16,
    height: u16,
    row_bytes: usize,
    pixel_size: u8,
    version: u8,
    /// `flags` bits: compressed, hasColorTable, hasTransparency, directColor.
    compressed: bool,
    color_table: bool,
    transparent: bool,
    direct: bool,
    transparent_index: u8,
    /// The bits: color table or direct info, then the rows.
    bits: Vec<u8>,
    /// Bytes of `bits` before the rows (color table or direct info).
    prefix: usize,
    /// What the conversion lost, as PilRC warns about it.
    warnings: Vec<String>,
}

/// Encodes a bitmap family (one `Tbmp` or `tAIB` resource): the members in
/// order, each linked to the next by `nextDepthOffset`.
///
/// # Errors
/// An empty family, an image that cannot be read (format, truncation,
/// unsupported variant) or that is too large (more than 65,535 pixels across
/// or a compressed size over 65,535 bytes).
pub fn encode_family(members: &[Member<'_>]) -> Result<Vec<u8>, BitmapError> {
    encode_family_warnings(members).map(|(bytes, _)| bytes)
}

/// What a conversion lost, as PilRC warns about it: the image file and the
/// warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitmapWarning {
    /// The image file, as the statement names it.
    pub file: String,
    /// What was lost.
    pub message: String,
}

/// [`encode_family`], with the warnings PilRC prints for it: a PGM/PPM image
/// reduced to grey with colors (`Some colors saturated in index converted
/// to grey`) or with more grey levels than the depth has (`16 input grey
/// levels converted to only 4`; PilRC `WriteGreyTbmp`).
///
/// # Errors
/// As [`encode_family`].
pub fn encode_family_warnings(
    members: &[Member<'_>],
) -> Result<(Vec<u8>, Vec<BitmapWarning>), BitmapError> {
    let mut warnings = Vec::new();
    if members.is_empty() {
        return Err(BitmapError {
            file: String::new(),
            message: "a bitmap needs at least one image".into(),
        });
    }
    let mut out = Vec::new();
    for (i, m) in members.iter().enumerate() {
        let err = |message: String| BitmapError {
            file: m.name.to_owned(),
            message,
        };
        let mut c = convert(m).map_err(err)?;
        warnings.extend(c.warnings.drain(..).map(|message| BitmapWarning {
            file: m.name.to_owned(),
            message,
        }));
        if m.compression != Compression::None {
            compress(&mut c, m.compression == Compression::Force).map_err(err)?;
        }
        let last = i + 1 == members.len();
        let mut next = 0u16;
        if !last {
            // PilRC: nextDepthOffset in 4-byte words, the bits padded to 4.
            let padded = c.bits.len().div_ceil(4) * 4;
            c.bits.resize(padded, 0);
            next =
                u16::try_from(4 + padded / 4).map_err(|_| err("the bitmap is too large".into()))?;
        }
        out.extend(c.width.to_be_bytes());
        out.extend(c.height.to_be_bytes());
        let row_bytes =
            u16::try_from(c.row_bytes).map_err(|_| err("the bitmap is too wide".into()))?;
        out.extend(row_bytes.to_be_bytes());
        let flags = (u16::from(c.compressed) << 15)
            | (u16::from(c.color_table) << 14)
            | (u16::from(c.transparent) << 13)
            | (u16::from(c.direct) << 10);
        out.extend(flags.to_be_bytes());
        out.push(c.pixel_size);
        out.push(c.version);
        out.extend(next.to_be_bytes());
        out.push(c.transparent_index);
        out.push(0); // compressionType: scan line
        out.extend([0, 0]);
        out.extend(&c.bits);
        if out.len() % 2 == 1 {
            out.push(0);
        }
    }
    Ok((out, warnings))
}

/// Bytes a Palm row of `width` pixels of `bits` needs: rounded up to 16 bits.
fn palm_row_bytes(width: usize, bits: usize) -> usize {
    (width * bits).div_ceil(16) * 2
}

fn convert(m: &Member<'_>) -> Result<Converted, String> {
    let ext = m
        .name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "bmp" => convert_bmp(m),
        "pbm" | "pgm" | "ppm" | "pnm" => convert_pnm(m),
        "xbm" => convert_xbm(m.data),
        _ => Err(
            "the file extension is not a bitmap format this compiler reads \
                  (.bmp, .pbm/.pgm/.ppm/.pnm, .xbm)"
                .into(),
        ),
    }
}

fn le16(d: &[u8], at: usize) -> Result<u16, String> {
    d.get(at..at + 2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .ok_or_else(|| format!("truncated .bmp header (offset {at})"))
}

fn le32(d: &[u8], at: usize) -> Result<u32, String> {
    d.get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| format!("truncated .bmp header (offset {at})"))
}

/// The index of the palette color nearest (squared distance) to `rgb`; on a
/// tie, the highest index (PilRC `BMP_RGBToColorIndex`).
fn nearest(rgb: [u8; 3], palette: &[[u8; 3]]) -> u8 {
    let dist = |p: &[u8; 3]| -> i32 {
        (0..3)
            .map(|k| (i32::from(p[k]) - i32::from(rgb[k])).pow(2))
            .sum()
    };
    let mut best = palette.len() - 1;
    let mut low = dist(&palette[best]);
    for i in (0..best).rev() {
        let d = dist(&palette[i]);
        if d < low {
            low = d;
            best = i;
        }
    }
    best as u8
}

/// The palette a depth is matched against (none for direct color).
fn palette_of(depth: Depth) -> &'static [[u8; 3]] {
    match depth {
        Depth::Mono => &PALETTE_1,
        Depth::Grey4 => &PALETTE_2,
        Depth::Grey16 => &PALETTE_4,
        Depth::Color16 => &PALETTE_4_COLOR,
        Depth::Color256 => &PALETTE_8,
        Depth::Color16k => &[],
    }
}

/// Sets pixel `x` of row `row` (a Palm row) to `v` at `bits` a pixel.
fn put(row: &mut [u8], x: usize, bits: usize, v: u32) {
    match bits {
        16 => {
            row[2 * x] = (v >> 8) as u8;
            row[2 * x + 1] = v as u8;
        }
        8 => row[x] = v as u8,
        _ => {
            let per_byte = 8 / bits;
            let shift = (per_byte - 1 - x % per_byte) * bits;
            row[x / per_byte] |= (v as u8) << shift;
        }
    }
}

fn convert_bmp(m: &Member<'_>) -> Result<Converted, String> {
    let d = m.data;
    if d.get(..2) != Some(b"BM") {
        return Err("not a Windows .bmp file (no BM signature)".into());
    }
    let info = 14;
    let header_size = le32(d, info)? as usize;
    let width = le32(d, info + 4)? as i32;
    let height = le32(d, info + 8)? as i32;
    let bit_count = le16(d, info + 14)?;
    let compression = le32(d, info + 16)?;
    let mut colors = le32(d, info + 32)? as usize;
    if compression == 1 || compression == 2 {
        return Err("compressed (RLE) .bmp files are not supported, as in PilRC".into());
    }
    if bit_count == 32 {
        // PilRC 3.2 computes the palette size as `1 << 32`, which the x86
        // makes 1: it reads every row one pixel late, and past the file's end.
        return Err(
            "32-bit .bmp files are not supported: PilRC 3.2 misreads them (each row \
                    one pixel off); save the image with 24 bits"
                .into(),
        );
    }
    if !matches!(bit_count, 1 | 4 | 8 | 15 | 16 | 24) {
        return Err(format!(
            "{bit_count}-bit .bmp files are not supported (1, 4, 8, 15, 16 and 24 bits are)"
        ));
    }
    // BI_BITFIELDS (3): PilRC reads the three masks after a 40-byte header and
    // decodes 5-6-5 (its test for 5-5-5 never matches a real mask): other
    // headers or masks are misread.
    let bitfields = compression == 3 && bit_count == 16;
    if compression != 0 && !bitfields {
        return Err(format!(
            "a {bit_count}-bit .bmp with compression {compression}: only uncompressed files \
             (and 16-bit BI_BITFIELDS ones) are read"
        ));
    }
    if bitfields {
        let want: [u32; 3] = [0xF800, 0x07E0, 0x001F];
        let masks = [
            le32(d, info + 40)?,
            le32(d, info + 44)?,
            le32(d, info + 48)?,
        ];
        if header_size != 40 || masks != want {
            return Err(format!(
                "a 16-bit BI_BITFIELDS .bmp is read only with a 40-byte header and the 5-6-5 \
                 masks {want:04X?} (this one: a {header_size}-byte header, masks {masks:X?}), \
                 as PilRC reads it"
            ));
        }
    }
    if width <= 0 || height <= 0 {
        return Err(format!(
            "a .bmp of {width}x{height} pixels: only bottom-up images of positive size are read"
        ));
    }
    if width > 0x7FFF || height > 0x7FFF {
        return Err(format!("a .bmp of {width}x{height} pixels is too large"));
    }
    let (w, h) = (width as usize, height as usize);
    if colors == 0 {
        colors = 1 << bit_count;
    }
    if colors > 256 {
        colors = 0;
    }
    // PilRC reads the palette at the fixed offset after a 40-byte header,
    // and the pixels after `header_size` and the palette.
    let palette_at = info + 40;
    let pixels_at = info
        .checked_add(header_size)
        .and_then(|p| p.checked_add(4 * colors + if bitfields { 12 } else { 0 }))
        .ok_or("bad .bmp header size")?;
    // A 15-bit file stores 16 bits a pixel (PilRC's row size for it).
    let stride_bits = if bit_count == 15 { 16 } else { bit_count };
    let src_row = (w * usize::from(stride_bits)).div_ceil(32) * 4;
    let end = pixels_at
        .checked_add(src_row.checked_mul(h).ok_or("the .bmp is too large")?)
        .ok_or("the .bmp is too large")?;
    if d.len() < end {
        return Err(format!(
            "truncated .bmp: {w}x{h} pixels need {end} bytes, the file has {}",
            d.len()
        ));
    }
    let palette_entry = |i: usize| -> [u8; 3] {
        let at = palette_at + 4 * i;
        match d.get(at..at + 3) {
            Some(b) => [b[2], b[1], b[0]],
            None => [0, 0, 0],
        }
    };
    let pixel = |x: usize, y: usize| -> (Option<usize>, [u8; 3]) {
        let row = &d[pixels_at + src_row * y..];
        match bit_count {
            1 => {
                let i = usize::from(row[x / 8] >> (7 - x % 8) & 1);
                (Some(i), palette_entry(i))
            }
            4 => {
                let b = row[x / 2];
                let i = usize::from(if x % 2 == 1 { b & 0xF } else { b >> 4 });
                (Some(i), palette_entry(i))
            }
            8 => {
                let i = usize::from(row[x]);
                (Some(i), palette_entry(i))
            }
            15 | 16 => {
                // PilRC's expansion to 8 bits a channel (`BMP_GetBits15bpp`,
                // `BMP_GetBits16bpp`): the top bits repeated in the low ones,
                // except blue, which repeats its own low 3 bits.
                let w = u32::from(u16::from_le_bytes([row[2 * x], row[2 * x + 1]]));
                let (r, g) = if bitfields {
                    (
                        ((w & 0xF800) >> 8) | ((w & 0x3800) >> 11),
                        ((w & 0x07E0) >> 3) | ((w & 0x0060) >> 5),
                    )
                } else {
                    (
                        ((w & 0x7C00) >> 7) | ((w & 0x1C00) >> 10),
                        ((w & 0x03E0) >> 2) | ((w & 0x00E0) >> 5),
                    )
                };
                let b = ((w & 0x001F) << 3) | (w & 0x0007);
                (None, [r as u8, g as u8, b as u8])
            }
            _ => (None, [row[3 * x + 2], row[3 * x + 1], row[3 * x]]),
        }
    };

    let depth = m.depth;
    let bits = usize::from(depth.bits());
    let row_bytes = palm_row_bytes(w, bits);
    let color_table = m.color_table && depth == Depth::Color256;
    let prefix = match depth {
        Depth::Color256 if color_table => 2 + 256 * 4,
        Depth::Color16k => 8,
        _ => 0,
    };
    let mut c = Converted {
        width: w as u16,
        height: h as u16,
        row_bytes,
        pixel_size: depth.bits(),
        version: if bits >= 8 { 2 } else { 1 },
        compressed: false,
        color_table,
        transparent: false,
        direct: depth == Depth::Color16k,
        transparent_index: 0,
        bits: vec![0; prefix + row_bytes * h],
        prefix,
        warnings: Vec::new(),
    };
    let palette = palette_of(depth);
    match (depth, m.transparency) {
        (Depth::Color16 | Depth::Color256, Some(Transparency::Rgb(r, g, b))) => {
            c.transparent = true;
            c.transparent_index = nearest([r, g, b], palette);
        }
        (Depth::Color16 | Depth::Color256, Some(Transparency::Index(i))) => {
            c.transparent = true;
            c.transparent_index = i;
        }
        _ => {}
    }
    if color_table {
        c.bits[0] = 1; // 256 entries (0x0100)
        for i in 0..256 {
            let rgb = if i < colors { palette_entry(i) } else { [0; 3] };
            c.bits[2 + 4 * i] = i as u8;
            c.bits[3 + 4 * i..6 + 4 * i].copy_from_slice(&rgb);
        }
    }
    if depth == Depth::Color16k {
        c.bits[..3].copy_from_slice(&[5, 6, 5]);
        if let Some(Transparency::Rgb(r, g, b)) = m.transparency {
            c.transparent = true;
            c.bits[5..8].copy_from_slice(&[r, g, b]);
        }
    }
    for y in 0..h {
        let src_y = h - 1 - y;
        let row = &mut c.bits[prefix + row_bytes * y..prefix + row_bytes * (y + 1)];
        for x in 0..w {
            let (index, rgb) = pixel(x, src_y);
            let v = match depth {
                Depth::Color16k => {
                    let [r, g, b] = rgb.map(u32::from);
                    ((r & 0xF8) << 8) | ((g & 0xFC) << 3) | ((b & 0xF8) >> 3)
                }
                // PilRC keeps the image's own index (-1, i.e. 0xFF, for 24 bits).
                Depth::Color256 if color_table => index.map_or(0xFF, |i| i as u32),
                _ => u32::from(nearest(rgb, palette)),
            };
            if depth == Depth::Mono && v != 1 {
                continue;
            }
            put(row, x, bits, v);
        }
    }
    Ok(c)
}

/// A reader of the numbers and pixels of a PNM file (PilRC `foreign_reader`).
struct Pnm<'a> {
    d: &'a [u8],
    at: usize,
}

impl Pnm<'_> {
    fn skip_space(&mut self) {
        while let Some(&c) = self.d.get(self.at) {
            if c.is_ascii_whitespace() || c == 0x0B {
                self.at += 1;
            } else if c == b'#' {
                while self
                    .d
                    .get(self.at)
                    .is_some_and(|&c| c != b'\n' && c != b'\r')
                {
                    self.at += 1;
                }
            } else {
                break;
            }
        }
    }

    /// A decimal number; `None` when there is none here (the end of the
    /// file or another character).
    fn int(&mut self) -> Option<u32> {
        self.skip_space();
        let start = self.at;
        let mut n: u32 = 0;
        while let Some(&c) = self.d.get(self.at).filter(|c| c.is_ascii_digit()) {
            n = n.saturating_mul(10).saturating_add(u32::from(c - b'0'));
            self.at += 1;
        }
        (self.at > start).then_some(n)
    }

    /// A raw byte; `None` at the end of the file.
    fn byte(&mut self) -> Option<u32> {
        let b = self.d.get(self.at).copied()?;
        self.at += 1;
        Some(u32::from(b))
    }

    /// A P1 pixel (`0` white, `1` black, other characters skipped) as a
    /// level (1 white); `None` at the end of the file.
    fn bit(&mut self) -> Option<u32> {
        while let Some(&ch) = self.d.get(self.at) {
            self.at += 1;
            match ch {
                b'0' => return Some(1),
                b'1' => return Some(0),
                _ => {}
            }
        }
        None
    }
}

fn convert_pnm(m: &Member<'_>) -> Result<Converted, String> {
    let d = m.data;
    let kind = match d {
        [b'P', k @ b'1'..=b'6', ..] => k - b'0',
        _ => return Err("not a PBM/PGM/PPM file (no P1..P6 signature)".into()),
    };
    let mut r = Pnm { d, at: 2 };
    let width = r.int().unwrap_or(0) as usize;
    let height = r.int().unwrap_or(0) as usize;
    let maxval = if kind == 1 || kind == 4 {
        1
    } else {
        r.int().unwrap_or(0)
    };
    if maxval == 0 || maxval > 0xFFFF {
        return Err(format!(
            "maximum value {maxval} is out of range (1..=65535)"
        ));
    }
    if width == 0 || height == 0 || width > 0x7FFF || height > 0x7FFF {
        return Err(format!(
            "an image of {width}x{height} pixels cannot be a bitmap"
        ));
    }
    if kind >= 4 && d.get(r.at).is_some_and(|c| c.is_ascii_whitespace()) {
        r.at += 1;
    }
    let depth = m.depth;
    let bits = match depth {
        Depth::Mono | Depth::Grey4 | Depth::Grey16 | Depth::Color256 => usize::from(depth.bits()),
        Depth::Color16 | Depth::Color16k => {
            return Err("PilRC reads PBM/PGM/PPM files only at 1, 2, 4 (grey) and 8 bits".into());
        }
    };
    if m.color_table {
        return Err("COLORTABLE is not supported with PBM/PGM/PPM files".into());
    }
    let row_bytes = palm_row_bytes(width, bits);
    let size = row_bytes
        .checked_mul(height)
        .filter(|&s| s <= 1 << 24)
        .ok_or("the image is too large")?;
    let mut c = Converted {
        width: width as u16,
        height: height as u16,
        row_bytes,
        pixel_size: depth.bits(),
        version: if bits >= 8 { 2 } else { 1 },
        compressed: false,
        color_table: false,
        transparent: false,
        direct: false,
        transparent_index: 0,
        bits: vec![0; size],
        prefix: 0,
        warnings: Vec::new(),
    };
    if let Some(Transparency::Index(i)) = m.transparency {
        c.transparent = true;
        c.transparent_index = i;
    }
    let mut mask = 0u8;
    let mut byte = 0u8;
    let out_max = (1u32 << bits) - 1;
    let mut color_lost = false;
    let mut greys = std::collections::BTreeSet::new();
    for y in 0..height {
        mask = if kind == 4 { 0 } else { mask };
        for x in 0..width {
            let pixel = match kind {
                1 => r.bit().map(|v| [v; 3]),
                4 => (|| {
                    if mask == 0 {
                        byte = r.byte()? as u8;
                        mask = 0x80;
                    }
                    let v = u32::from(byte & mask == 0);
                    mask >>= 1;
                    Some([v; 3])
                })(),
                2 => r.int().map(|v| [v; 3]),
                5 => r.byte().map(|v| [v; 3]),
                3 => (|| Some([r.int()?, r.int()?, r.int()?]))(),
                _ => (|| Some([r.byte()?, r.byte()?, r.byte()?]))(),
            };
            // PilRC 3.2 (bitmap.c, ReadP1..ReadP6) reads past a short file's
            // end as the last byte or zeros, silently: here it is an error.
            let Some([red, green, blue]) = pixel else {
                return Err(format!(
                    "the {width}x{height} image's data ends at pixel ({x}, {y}), byte \
                     offset {} (a truncated file, or a character that is not a pixel \
                     value)",
                    r.at
                ));
            };
            let row = &mut c.bits[row_bytes * y..row_bytes * (y + 1)];
            if bits < 8 {
                let grey = if red == green && green == blue {
                    red
                } else {
                    color_lost = true;
                    ((299 * u64::from(red) + 587 * u64::from(green) + 114 * u64::from(blue)) / 1000)
                        as u32
                };
                let grey = grey.min(maxval);
                greys.insert(grey);
                let out = (u64::from(grey) * u64::from(out_max) + u64::from(maxval / 2))
                    / u64::from(maxval);
                let out = out as u32;
                let v = out_max.saturating_sub(out);
                put(row, x, bits, v);
            } else {
                let scale = |v: u32| (u64::from(v.min(maxval)) * 255 / u64::from(maxval)) as u8;
                let cs = [scale(red), scale(green), scale(blue)];
                let index = nearest(cs, &PALETTE_8);
                if let Some(Transparency::Rgb(tr, tg, tb)) = m.transparency
                    && cs == [tr, tg, tb]
                {
                    c.transparent = true;
                    c.transparent_index = index;
                }
                put(row, x, bits, u32::from(index));
            }
        }
    }
    if color_lost {
        c.warnings
            .push("colors were converted to grey (some saturated in the index)".into());
    }
    if greys.len() > out_max as usize + 1 {
        c.warnings.push(format!(
            "{} input grey levels converted to only {}",
            greys.len(),
            out_max + 1
        ));
    }
    Ok(c)
}

/// PilRC `BMP_SkipNewLine`: the offset after the end of the line at `i`.
fn skip_line(d: &[u8], mut i: usize) -> usize {
    while i < d.len() && d[i] != b'\n' && d[i] != b'\r' {
        i += 1;
    }
    if i + 1 < d.len() && d[i] == b'\r' && d[i + 1] == b'\n' {
        i + 2
    } else {
        (i + 1).min(d.len())
    }
}

fn convert_xbm(d: &[u8]) -> Result<Converted, String> {
    const REV: [u32; 16] = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];
    let (mut width, mut height) = (0usize, 0usize);
    let mut i = 0;
    let mut data_at = None;
    let suffix = |name: &str| name.rsplit('_').next().unwrap_or(name).to_owned();
    while i < d.len() {
        let line_end = skip_line(d, i);
        let line = String::from_utf8_lossy(&d[i..line_end]);
        let mut words = line.split_ascii_whitespace();
        if line.starts_with("#define") {
            words.next();
            if let (Some(name), Some(value)) = (words.next(), words.next())
                && let Ok(v) = value.parse::<usize>()
            {
                match suffix(name).as_str() {
                    "width" => width = v,
                    "height" => height = v,
                    _ => {}
                }
            }
        } else if line.starts_with("static") {
            let mut w = words.skip(1);
            let mut name = w.next();
            if name == Some("unsigned") {
                name = w.nth(1);
            } else {
                name = name.filter(|&n| n == "char").and_then(|_| w.next());
            }
            if name.is_some_and(|n| suffix(n) == "bits[]") && width > 0 && height > 0 {
                data_at = Some(line_end);
                break;
            }
        }
        i = line_end;
    }
    let Some(start) = data_at else {
        return Err("not an X11 bitmap (no _width, _height and _bits[] = { lines)".into());
    };
    if width > 0x7FFF || height > 0x7FFF {
        return Err(format!("an image of {width}x{height} pixels is too large"));
    }
    let row_bytes = palm_row_bytes(width, 1);
    let size = row_bytes * height;
    let mut bits = vec![0u8; size];
    let (mut value, mut pos) = (0u32, 0usize);
    let skip_pad = (1..9).contains(&(width % 16));
    for &ch in &d[start..] {
        let c = ch.to_ascii_lowercase();
        match c {
            b',' | b'}' => {
                if pos < size {
                    bits[pos] = value as u8;
                    pos += 1;
                    if skip_pad && pos % row_bytes == row_bytes - 1 {
                        pos += 1;
                    }
                }
                value = 0;
            }
            b'0'..=b'9' => value = (value >> 4) + (REV[usize::from(c - b'0')] << 4),
            b'a'..=b'f' => value = (value >> 4) + (REV[usize::from(c - b'a' + 10)] << 4),
            _ => {}
        }
    }
    Ok(Converted {
        width: width as u16,
        height: height as u16,
        row_bytes,
        pixel_size: 0,
        version: 0,
        compressed: false,
        color_table: false,
        transparent: false,
        direct: false,
        transparent_index: 0,
        bits,
        prefix: 0,
        warnings: Vec::new(),
    })
}

/// Scan-line compression (PilRC `BMP_CompressBitmap`, for a version 1 or 2
/// bitmap): kept if `force` or smaller than the rows.
fn compress(c: &mut Converted, force: bool) -> Result<(), String> {
    let rows = &c.bits[c.prefix..];
    let mut out = c.bits[..c.prefix].to_vec();
    out.extend([0, 0]); // the size, filled in below
    let rb = c.row_bytes;
    for y in 0..usize::from(c.height) {
        let row = &rows[rb * y..rb * (y + 1)];
        for group in (0..rb).step_by(8) {
            let end = (group + 8).min(rb);
            let mut flag = 0u8;
            for j in group..end {
                if y == 0 || row[j] != rows[rb * (y - 1) + j] {
                    flag |= 0x80 >> (j & 7);
                }
            }
            out.push(flag);
            for (j, &b) in row.iter().enumerate().take(end).skip(group) {
                if flag & (0x80 >> (j & 7)) != 0 {
                    out.push(b);
                }
            }
        }
    }
    // PilRC's stored size counts the prefix too (its buffer starts with it).
    let size = out.len();
    if force || size < c.bits.len() {
        let stored = u16::try_from(size)
            .map_err(|_| "the compressed bitmap is larger than 65,535 bytes".to_string())?;
        out[c.prefix..c.prefix + 2].copy_from_slice(&stored.to_be_bytes());
        c.bits = out;
        c.compressed = true;
    }
    Ok(())
}

/// 1-bit palette: white, black (PilRC `PalmPalette1bpp`).
const PALETTE_1: [[u8; 3]; 2] = [[255, 255, 255], [0, 0, 0]];
/// 2-bit grey palette (PilRC `PalmPalette2bpp`).
const PALETTE_2: [[u8; 3]; 4] = [[255, 255, 255], [192, 192, 192], [128, 128, 128], [0, 0, 0]];
/// 4-bit grey palette: 255 down to 0 in steps of 17 (PilRC `PalmPalette4bpp`).
const PALETTE_4: [[u8; 3]; 16] = {
    let mut p = [[0u8; 3]; 16];
    let mut i = 0;
    while i < 16 {
        let v = 255 - 17 * i as u8;
        p[i] = [v, v, v];
        i += 1;
    }
    p
};
/// The Palm 16-color palette (PilRC `PalmPalette4bppColor`).
const PALETTE_4_COLOR: [[u8; 3]; 16] = [
    [255, 255, 255],
    [128, 128, 128],
    [128, 0, 0],
    [128, 128, 0],
    [0, 128, 0],
    [0, 128, 128],
    [0, 0, 128],
    [128, 0, 128],
    [255, 0, 255],
    [192, 192, 192],
    [255, 0, 0],
    [255, 255, 0],
    [0, 255, 0],
    [0, 255, 255],
    [0, 0, 255],
    [0, 0, 0],
];
/// The Palm OS 8-bit system palette, index by index (R, G, B), as PilRC has it
/// (`PalmPalette8bpp`; the SDK's `Bitmap.h` documents the system palette).
#[rustfmt::skip]
const PALETTE_8: [[u8; 3]; 256] = [
    [255, 255, 255], [255, 204, 255], [255, 153, 255], [255, 102, 255],
    [255,  51, 255], [255,   0, 255], [255, 255, 204], [255, 204, 204],
    [255, 153, 204], [255, 102, 204], [255,  51, 204], [255,   0, 204],
    [255, 255, 153], [255, 204, 153], [255, 153, 153], [255, 102, 153],
    [255,  51, 153], [255,   0, 153], [204, 255, 255], [204, 204, 255],
    [204, 153, 255], [204, 102, 255], [204,  51, 255], [204,   0, 255],
    [204, 255, 204], [204, 204, 204], [204, 153, 204], [204, 102, 204],
    [204,  51, 204], [204,   0, 204], [204, 255, 153], [204, 204, 153],
    [204, 153, 153], [204, 102, 153], [204,  51, 153], [204,   0, 153],
    [153, 255, 255], [153, 204, 255], [153, 153, 255], [153, 102, 255],
    [153,  51, 255], [153,   0, 255], [153, 255, 204], [153, 204, 204],
    [153, 153, 204], [153, 102, 204], [153,  51, 204], [153,   0, 204],
    [153, 255, 153], [153, 204, 153], [153, 153, 153], [153, 102, 153],
    [153,  51, 153], [153,   0, 153], [102, 255, 255], [102, 204, 255],
    [102, 153, 255], [102, 102, 255], [102,  51, 255], [102,   0, 255],
    [102, 255, 204], [102, 204, 204], [102, 153, 204], [102, 102, 204],
    [102,  51, 204], [102,   0, 204], [102, 255, 153], [102, 204, 153],
    [102, 153, 153], [102, 102, 153], [102,  51, 153], [102,   0, 153],
    [ 51, 255, 255], [ 51, 204, 255], [ 51, 153, 255], [ 51, 102, 255],
    [ 51,  51, 255], [ 51,   0, 255], [ 51, 255, 204], [ 51, 204, 204],
    [ 51, 153, 204], [ 51, 102, 204], [ 51,  51, 204], [ 51,   0, 204],
    [ 51, 255, 153], [ 51, 204, 153], [ 51, 153, 153], [ 51, 102, 153],
    [ 51,  51, 153], [ 51,   0, 153], [  0, 255, 255], [  0, 204, 255],
    [  0, 153, 255], [  0, 102, 255], [  0,  51, 255], [  0,   0, 255],
    [  0, 255, 204], [  0, 204, 204], [  0, 153, 204], [  0, 102, 204],
    [  0,  51, 204], [  0,   0, 204], [  0, 255, 153], [  0, 204, 153],
    [  0, 153, 153], [  0, 102, 153], [  0,  51, 153], [  0,   0, 153],
    [255, 255, 102], [255, 204, 102], [255, 153, 102], [255, 102, 102],
    [255,  51, 102], [255,   0, 102], [255, 255,  51], [255, 204,  51],
    [255, 153,  51], [255, 102,  51], [255,  51,  51], [255,   0,  51],
    [255, 255,   0], [255, 204,   0], [255, 153,   0], [255, 102,   0],
    [255,  51,   0], [255,   0,   0], [204, 255, 102], [204, 204, 102],
    [204, 153, 102], [204, 102, 102], [204,  51, 102], [204,   0, 102],
    [204, 255,  51], [204, 204,  51], [204, 153,  51], [204, 102,  51],
    [204,  51,  51], [204,   0,  51], [204, 255,   0], [204, 204,   0],
    [204, 153,   0], [204, 102,   0], [204,  51,   0], [204,   0,   0],
    [153, 255, 102], [153, 204, 102], [153, 153, 102], [153, 102, 102],
    [153,  51, 102], [153,   0, 102], [153, 255,  51], [153, 204,  51],
    [153, 153,  51], [153, 102,  51], [153,  51,  51], [153,   0,  51],
    [153, 255,   0], [153, 204,   0], [153, 153,   0], [153, 102,   0],
    [153,  51,   0], [153,   0,   0], [102, 255, 102], [102, 204, 102],
    [102, 153, 102], [102, 102, 102], [102,  51, 102], [102,   0, 102],
    [102, 255,  51], [102, 204,  51], [102, 153,  51], [102, 102,  51],
    [102,  51,  51], [102,   0,  51], [102, 255,   0], [102, 204,   0],
    [102, 153,   0], [102, 102,   0], [102,  51,   0], [102,   0,   0],
    [ 51, 255, 102], [ 51, 204, 102], [ 51, 153, 102], [ 51, 102, 102],
    [ 51,  51, 102], [ 51,   0, 102], [ 51, 255,  51], [ 51, 204,  51],
    [ 51, 153,  51], [ 51, 102,  51], [ 51,  51,  51], [ 51,   0,  51],
    [ 51, 255,   0], [ 51, 204,   0], [ 51, 153,   0], [ 51, 102,   0],
    [ 51,  51,   0], [ 51,   0,   0], [  0, 255, 102], [  0, 204, 102],
    [  0, 153, 102], [  0, 102, 102], [  0,  51, 102], [  0,   0, 102],
    [  0, 255,  51], [  0, 204,  51], [  0, 153,  51], [  0, 102,  51],
    [  0,  51,  51], [  0,   0,  51], [  0, 255,   0], [  0, 204,   0],
    [  0, 153,   0], [  0, 102,   0], [  0,  51,   0], [ 17,  17,  17],
    [ 34,  34,  34], [ 68,  68,  68], [ 85,  85,  85], [119, 119, 119],
    [136, 136, 136], [170, 170, 170], [187, 187, 187], [221, 221, 221],
    [238, 238, 238], [192, 192, 192], [128,   0,   0], [128,   0, 128],
    [  0, 128,   0], [  0, 128, 128], [  0,   0,   0], [  0,   0,   0],
    [  0,   0,   0], [  0,   0,   0], [  0,   0,   0], [  0,   0,   0],
    [  0,   0,   0], [  0,   0,   0], [  0,   0,   0], [  0,   0,   0],
    [  0,   0,   0], [  0,   0,   0], [  0,   0,   0], [  0,   0,   0],
    [  0,   0,   0], [  0,   0,   0], [  0,   0,   0], [  0,   0,   0],
    [  0,   0,   0], [  0,   0,   0], [  0,   0,   0], [  0,   0,   0],
    [  0,   0,   0], [  0,   0,   0], [  0,   0,   0], [  0,   0,   0],
];
