//! `palm-build c-app --segments` (prc-tools' layout for GNU C, `palm_build::segments`)
//! on small C programs: the resources it makes for globals and a second code
//! resource (code 0's A5 world, data 0's blocks, rloc 0's chains, code 2 linked
//! apart), and what it refuses, naming it: a code section not listed, code not
//! compiled for globals, its own entry or PilotMain missing, a listed section
//! nothing is in. (`tools/report/tests/c_sample.rs` runs such an app.)
//!
//! Skipped, saying so, only when `m68k-linux-gnu-gcc` is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use palm_build::capp::{CApp, build_c_app};
use palm_build::prc::AppMeta;
use palm_prc::{Database, FourCC};

const GCC: &str = "m68k-linux-gnu-gcc";

fn gcc_missing() -> bool {
    let missing = Command::new(GCC).arg("--version").output().is_err();
    if missing {
        eprintln!("SKIPPED: {GCC} is not installed (ci/setup installs gcc-m68k-linux-gnu)");
    }
    missing
}

/// `source` compiled as `name.o` with `flags`.
fn compile(dir: &Path, name: &str, source: &str, flags: &[&str]) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    let o = dir.join(format!("{name}.o"));
    std::fs::write(&c, source).unwrap();
    let out = Command::new(GCC)
        .args(flags)
        .args(["-Os", "-Wall", "-Werror", "-c"])
        .arg(&c)
        .arg("-o")
        .arg(&o)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{GCC} {name}.c: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    o
}

fn app(dir: &Path, inputs: Vec<PathBuf>, segments: &[&str]) -> anyhow::Result<PathBuf> {
    let prc = dir.join("t.prc");
    build_c_app(&CApp {
        inputs,
        meta: AppMeta {
            name: "SegT".into(),
            creator: FourCC::new(*b"SegT"),
            launcher_name: "SegT".into(),
            version: "1.0".into(),
            stack_size: 4096,
            resources: Vec::new(),
        },
        prc: prc.clone(),
        elf: dir.join("t.elf"),
        segments: segments.iter().map(|s| s.to_string()).collect(),
        quiet: true,
    })
    .map(|_| prc)
}

/// Globals: `gA` (2 bytes, 7), `gP` → `gA` (data → data), `gF` → `f2` (data → code
/// 2); `f2` in `seg2` reads `gA`.
const MAIN: &str = "\
short gA = 7;
short *gP = &gA;
int f2(int) __attribute__((section(\"seg2\")));
int (*gF)(int) = f2;
unsigned long PilotMain(unsigned short cmd, void *p, unsigned short flags)
{ (void)p; (void)flags; return cmd ? 0 : (unsigned long)(*gP + gF(1)); }
";
const SEG2: &str = "\
extern short gA;
__attribute__((section(\"seg2\"))) int f2(int i) { return i + gA; }
";

#[test]
fn globals_and_code_2_become_code_0_data_0_rloc_0_and_code_2() {
    if gcc_missing() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let flags = palm_build::segments::GCC_FLAGS;
    let inputs = vec![
        compile(dir.path(), "main", MAIN, flags),
        compile(dir.path(), "seg2", SEG2, flags),
    ];
    let prc = app(dir.path(), inputs, &["seg2"]).unwrap_or_else(|e| panic!("{e:#}"));
    let db = Database::parse(&std::fs::read(prc).unwrap()).unwrap();
    let res = |kind: &[u8; 4], id| db.resource(FourCC::new(*kind), id).unwrap().data.clone();
    let code0 = res(b"code", 0);
    // Below A5: gA (2, padded), gP, gF = 12 bytes rounded to 4; above: the
    // 40 reserved bytes and the GOT (gA, gP, gF and what PilotMain and f2 use).
    let be = |b: &[u8]| u32::from_be_bytes(b.try_into().unwrap());
    let (above, below) = (be(&code0[0..4]), be(&code0[4..8]));
    assert_eq!(below, 12, "below A5");
    assert!(
        above >= 40 + 4 * 3 && (above - 40) % 4 == 0,
        "above A5: {above}"
    );
    // rloc 0: chain heads of data, code 1, code 2; gP → data, gF → code 2.
    let rloc = res(b"rloc", 0);
    assert_eq!(rloc.len(), 6);
    let head = |i: usize| u16::from_be_bytes([rloc[2 * i], rloc[2 * i + 1]]);
    assert_ne!(head(0), 0xFFFF, "data chain");
    assert_ne!(head(2), 0xFFFF, "code 2 chain");
    // data 0's first block starts at -below and holds gA's initial value.
    let data0 = res(b"data", 0);
    assert_eq!(be(&data0[4..8]) as i32, -12);
    // Code 2 is f2 alone; code 1 starts with palm-build's startup code.
    let code2 = res(b"code", 2);
    assert!(!code2.is_empty() && code2.len() < 64, "{}", code2.len());
    let elf = std::fs::read(dir.path().join("t.elf")).unwrap();
    let file = object::File::parse(&*elf).unwrap();
    use object::{Object, ObjectSection, ObjectSymbol};
    let sym = |n: &str| {
        file.symbols()
            .find(|s| s.name() == Ok(n))
            .unwrap()
            .address()
    };
    assert_eq!(sym("__palm_entry"), 0);
    assert_eq!(
        sym("f2"),
        2 * u64::from(palm_build::segments::SEGMENT_STRIDE)
    );
    assert_eq!(file.section_by_name("seg2").unwrap().address(), 0x0200_0000);
}

#[test]
fn what_prc_tools_layout_cannot_hold_is_refused_naming_it() {
    if gcc_missing() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let flags = palm_build::segments::GCC_FLAGS;
    let main = compile(dir.path(), "main", MAIN, flags);
    let seg2 = compile(dir.path(), "seg2", SEG2, flags);
    let err = |inputs: Vec<PathBuf>, segments: &[&str]| {
        format!("{:#}", app(dir.path(), inputs, segments).unwrap_err())
    };
    // The code section seg2 not given to --segments.
    let e = err(vec![main.clone(), seg2.clone()], &["seg3"]);
    assert!(
        e.contains("section seg2") && e.contains("--segments (seg3)"),
        "{e}"
    );
    // A listed section that nothing is in.
    let e = err(vec![main.clone(), seg2.clone()], &["seg2", "seg3"]);
    assert!(
        e.contains("--segments seg3: no function is in section seg3"),
        "{e}"
    );
    // Code compiled for palm-build's plain layout (PC-relative globals).
    let pcrel = compile(dir.path(), "pcrel", MAIN, palm_build::capp::GCC_FLAGS);
    let e = err(vec![pcrel, seg2.clone()], &["seg2"]);
    assert!(e.contains("segments::GCC_FLAGS"), "{e}");
    // Its own entry, or no PilotMain.
    let entry = compile(
        dir.path(),
        "entry",
        "__asm__(\".section .text.palm_entry,\\\"ax\\\"\\n.globl __palm_entry\\n__palm_entry: rts\");",
        flags,
    );
    let e = err(vec![entry, main.clone(), seg2.clone()], &["seg2"]);
    assert!(e.contains("remove the PALM_APP_ENTRY line"), "{e}");
    let e = err(vec![seg2.clone()], &["seg2"]);
    assert!(e.contains("defines PilotMain"), "{e}");
    // A section name ld cannot take.
    let e = err(vec![main, seg2], &["seg 2"]);
    assert!(e.contains("--segments \"seg 2\""), "{e}");
}
