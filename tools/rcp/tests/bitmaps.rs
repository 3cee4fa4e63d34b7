//! The bitmap compiler on malformed and random images: an error naming the
//! file, never a panic; and a few exact encodings.

use palm_rcp::bitmap::{Compression, Depth, Member, encode_family};
use proptest::prelude::*;

const DEPTHS: [Depth; 6] = [
    Depth::Mono,
    Depth::Grey4,
    Depth::Grey16,
    Depth::Color16,
    Depth::Color256,
    Depth::Color16k,
];

fn images() -> Vec<(&'static str, Vec<u8>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/images");
    [
        "icon1.bmp",
        "icon4.bmp",
        "icon8.bmp",
        "small24.bmp",
        "arrow.pbm",
        "stripes.pbm",
        "ramp.pgm",
        "dots.ppm",
        "check.xbm",
    ]
    .into_iter()
    .map(|n| (n, std::fs::read(format!("{dir}/{n}")).unwrap()))
    .collect()
}

#[test]
fn truncated_images_are_errors_not_panics() {
    for (name, data) in images() {
        for depth in DEPTHS {
            for len in 0..data.len() {
                let m = Member::new(name, &data[..len], depth);
                if let Err(e) = encode_family(&[m]) {
                    assert_eq!(e.file, name);
                    assert!(!e.message.is_empty());
                }
            }
        }
    }
}

#[test]
fn exact_encodings() {
    // P1 2x2: black white / white black, 1 bit: rows 0x80 and 0x40, padded to 2 bytes.
    let t = encode_family(&[Member::new("a.pbm", b"P1 2 2 1 0 0 1", Depth::Mono)]).unwrap();
    assert_eq!(
        t,
        [
            0, 2, 0, 2, 0, 2, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0x80, 0, 0x40, 0
        ]
    );
    // A family: the first links to the second (4 + 4/4 words), the last is 0.
    let a = Member::new("a.pbm", b"P1 2 2 1 0 0 1", Depth::Mono);
    let b = Member::new("a.pbm", b"P1 2 2 1 0 0 1", Depth::Grey4);
    let t = encode_family(&[a, b]).unwrap();
    assert_eq!(&t[10..12], &[0, 5]);
    assert_eq!(&t[20 + 10..20 + 12], &[0, 0]);
    assert_eq!(t[20 + 8], 2); // pixelSize of the second
    // Forced compression of 2 identical rows: the size (6), row 0 (flag 0xC0 and
    // both bytes), row 1 (flag 0: as the row above).
    let mut c = Member::new("a.pbm", b"P1 2 2 1 0 1 0", Depth::Mono);
    c.compression = Compression::Force;
    let t = encode_family(&[c]).unwrap();
    assert_eq!(&t[6..8], &[0x80, 0]); // compressed flag
    assert_eq!(&t[16..], &[0, 6, 0xC0, 0x80, 0, 0x00]);
    assert!(encode_family(&[]).is_err());
    let e = encode_family(&[Member::new("x.gif", b"GIF89a", Depth::Mono)]).unwrap_err();
    assert!(e.to_string().starts_with("x.gif: "), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..300),
                                ext in prop::sample::select(vec!["bmp", "pbm", "pgm", "ppm", "pnm", "xbm", "txt"]),
                                d in 0usize..6, compress in any::<bool>()) {
        let name = format!("f.{ext}");
        let mut m = Member::new(&name, &data, DEPTHS[d]);
        if compress { m.compression = Compression::Auto; }
        let _ = encode_family(&[m]);
    }

    #[test]
    fn mutated_images_never_panic(i in 0usize..9, at in 0usize..900, byte in any::<u8>(), d in 0usize..6) {
        let imgs = images();
        let (name, mut data) = imgs[i].clone();
        let at = at % data.len();
        data[at] = byte;
        let _ = encode_family(&[Member::new(name, &data, DEPTHS[d])]);
    }
}

/// A PBM whose data ends early was padded (PilRC 3.2 does so silently): it
/// is an error naming the pixel and the offset.
#[test]
fn short_pnm_data_is_an_error() {
    let cases: &[(&[u8], &str)] = &[
        (
            b"P1 99 99\n1 0\n",
            "the 99x99 image's data ends at pixel (2, 0), byte offset 13",
        ),
        (
            b"P4 16 16\n\x01\x02",
            "the 16x16 image's data ends at pixel (0, 1), byte offset 11",
        ),
        (
            b"P2 2 1 255\n7",
            "the 2x1 image's data ends at pixel (1, 0), byte offset 12",
        ),
        (
            b"P3 1 1 255\n1 2 x",
            "the 1x1 image's data ends at pixel (0, 0), byte offset 15",
        ),
    ];
    for &(data, want) in cases {
        let e = encode_family(&[Member::new("short.pbm", data, Depth::Mono)]).unwrap_err();
        assert_eq!(e.file, "short.pbm");
        assert!(
            e.message.starts_with(want),
            "{:?}: {}",
            String::from_utf8_lossy(data),
            e.message
        );
    }
    // Exactly enough data is an image.
    encode_family(&[Member::new("ok.pbm", b"P1 2 1 1 0", Depth::Mono)]).unwrap();
}
