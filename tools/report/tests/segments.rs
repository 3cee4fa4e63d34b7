//! Frames in code 2…n (an app with several code resources, as prc-tools builds
//! them): the ledger's segment records turn a raw return address inside one into
//! `segment N + offset`, with or without symbols; a prc-tools build's linked
//! coff-m68k file names the functions of code 1 and code N, matched to the
//! ledger by the code's size and CRC-32 ([`memdbg_report::CoffSymbols`]).

mod common;

use common::*;
use m68k_coff::{C_EXT, C_STAT, Object, STYP_TEXT, Section, T_FUNCTION};
use memdbg::record::{self, AsBytes, SegmentRecord, U16Be, U32Be, kind};
use memdbg_report::{
    AppSymbols, CoffSymbols, Format, Ledger, Options, Symbolize, analyze, ledger_from_bytes, print,
};

/// Code 2 of the ledgers below: 0x40 bytes at 0x00044000.
const SEG2_BASE: u32 = 0x0004_4000;

fn seg2_bytes() -> Vec<u8> {
    (0..0x40u8).collect()
}

fn segment(resource: u16, base: u32, bytes: &[u8]) -> SegmentRecord {
    SegmentRecord {
        kind: kind::SEGMENT,
        version: record::FORMAT_VERSION,
        resource: U16Be::new(resource),
        base: U32Be::new(base),
        size: U32Be::new(bytes.len() as u32),
        crc: U32Be::new(record::crc32(bytes)),
    }
}

/// A ledger of code 1 `code1` with code 2 ([`seg2_bytes`]) and two leaks: one
/// allocated from code 2 + 0x10 (called from code 1 + 0x20), one from a Rust
/// stack in code 2 + 0x12 then outside the app.
fn ledger(code1: &[u8]) -> Ledger {
    let leaks = [
        alloc(
            kind::POINTER,
            36,
            0x0001_1000,
            1,
            "seg2.c",
            6,
            stack(&[Err(SEG2_BASE + 0x10)]),
        ),
        alloc(
            kind::RUST,
            8,
            0x0001_2000,
            2,
            "",
            0,
            stack(&[Err(SEG2_BASE + 0x12), Err(0x10C0_0400)]),
        ),
    ];
    let mut h = header(code1.len() as u32, &leaks);
    h.code_crc.set(record::crc32(code1));
    let mut records = vec![
        h.as_bytes().to_vec(),
        segment(2, SEG2_BASE, &seg2_bytes()).as_bytes().to_vec(),
    ];
    records.extend(leaks.iter().map(|a| a.as_bytes().to_vec()));
    ledger_from_bytes(&pdb_of(&records), "MemDbgDB.pdb").unwrap()
}

#[test]
fn raw_frames_inside_a_segment_record_are_segment_n_plus_offset() {
    let l = ledger(&[0x4E, 0x75]);
    assert_eq!(l.segments.len(), 1);
    let r = analyze(&l, &Options::default());
    assert_eq!(r.segments.len(), 1);
    assert_eq!(
        (
            r.segments[0].resource,
            r.segments[0].base,
            r.segments[0].size
        ),
        (2, SEG2_BASE, 0x40)
    );
    let f = &r.leaks[0].block.stack[0];
    assert!(!f.in_code1);
    let at = f.segment.unwrap();
    assert_eq!(
        (at.resource, at.offset, f.address),
        (2, 0x10, SEG2_BASE + 0x10)
    );
    // A frame outside every code resource stays a raw address.
    let outside = &r.leaks[1].block.stack[1];
    assert_eq!((outside.segment, outside.address), (None, 0x10C0_0400));
    // A Rust allocation without file and line is named after its first frame.
    assert_eq!(r.leaks[1].block.site, "segment 2 + 0x0012");
    let mut text = Vec::new();
    let mut opts = Options::default();
    opts.format = Format::Text;
    print(&mut text, &l, &opts).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains("Code 2    64 bytes, at 0x00044000, CRC-32 0x"),
        "{text}"
    );
    assert!(text.contains("    #0 segment 2 + 0x0010\n"), "{text}");
    assert!(
        text.contains("    #1 0x10C00400 (68k address outside code 1)\n"),
        "{text}"
    );
    let mut json = Vec::new();
    opts.format = Format::Json;
    print(&mut json, &l, &opts).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(
        v["leaks"][0]["stack"][0]["segment"],
        serde_json::json!({"resource": 2, "offset": 16})
    );
    assert_eq!(
        v["leaks"][1]["stack"][1]["segment"],
        serde_json::Value::Null
    );
    assert_eq!(v["segments"][0]["base"], SEG2_BASE);
}

/// A linked prc-tools app as coff-m68k: `.text` (code 1) with `start` at 0 and
/// `PilotMain` at 8, then `seg2` (code 2) with the static `MakeRecord` at 0x0C.
fn coff_app(code1: &[u8]) -> Vec<u8> {
    let text = |name: &str, data: Vec<u8>| Section {
        name: name.into(),
        vaddr: 0,
        size: data.len() as u32,
        flags: STYP_TEXT,
        data,
        relocations: Vec::new(),
    };
    let function = |name: &str, value, section, class| m68k_coff::Symbol {
        name: String::from(name),
        value,
        section,
        typ: T_FUNCTION,
        class,
        aux: Vec::new(),
    };
    Object {
        timestamp: 0,
        flags: 0,
        sections: vec![text("seg2", seg2_bytes()), text(".text", code1.to_vec())],
        symbols: vec![
            function("MakeRecord", 0x0C, 1, C_STAT),
            function("start", 0, 2, C_EXT),
            function("PilotMain", 8, 2, C_EXT),
        ],
    }
    .to_bytes()
    .unwrap()
}

#[test]
fn a_prc_tools_coff_file_names_the_functions_of_code_1_and_code_n() {
    let code1: Vec<u8> = (0..0x20u8).rev().collect();
    let l = ledger(&code1);
    let file = coff_app(&code1);
    let coff = CoffSymbols::from_bytes(&file, "MemDbgSample", &l).unwrap();
    let names = |v: Vec<memdbg_report::Symbol>| -> Vec<String> {
        v.into_iter().map(|s| s.function).collect()
    };
    assert_eq!(names(coff.symbolize(0x06)), ["start"]);
    assert_eq!(names(coff.symbolize(0x10)), ["PilotMain"]);
    assert_eq!(names(coff.symbolize_segment(2, 0x10)), ["MakeRecord"]);
    assert!(
        coff.symbolize_segment(2, 0x0C).is_empty(),
        "before MakeRecord"
    );
    assert!(coff.symbolize_segment(3, 0x10).is_empty());
    assert_eq!(coff.segment(2), Some((0x40, record::crc32(&seg2_bytes()))));
    let mut opts = Options::default();
    opts.symbolizer = Some(&coff);
    let r = analyze(&l, &opts);
    assert_eq!(r.leaks[0].block.stack[0].symbols[0].function, "MakeRecord");
    assert!(
        r.warnings.iter().any(|w| w.contains("without file:line")),
        "{:?}",
        r.warnings
    );
    // Through --elf's loader, told from an ELF by its magic.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("MemDbgSample");
    std::fs::write(&path, &file).unwrap();
    assert!(matches!(
        AppSymbols::load(&path, &l).unwrap(),
        AppSymbols::Coff(_)
    ));
    // Another build: code 2 differs, or code 1 does.
    let mut other = file.clone();
    let at = file
        .windows(4)
        .position(|w| w == [0x10, 0x11, 0x12, 0x13])
        .unwrap();
    other[at] ^= 0xFF;
    let e = CoffSymbols::from_bytes(&other, "Old", &l)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no code section has the 64 bytes and CRC-32") && e.contains("for code 2"),
        "{e}"
    );
    let e = CoffSymbols::from_bytes(&coff_app(&code1[1..]), "Old", &l)
        .unwrap_err()
        .to_string();
    assert!(e.contains("its .text (code 1) is 31 bytes but"), "{e}");
}

#[test]
fn the_report_looks_code_n_up_where_palm_build_links_it() {
    assert_eq!(
        memdbg_report::SEGMENT_STRIDE,
        palm_build::segments::SEGMENT_STRIDE
    );
}
