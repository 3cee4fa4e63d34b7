//! memdbg's C sample (`memdbg/c-sample`, written for prc-tools: PalmOS.h,
//! initialised globals, a second code resource) built without prc-tools: the
//! same sources compiled by Debian's GNU C at prc-tools' 16-bit `int`
//! (`palm_build::segments::GCC_FLAGS`) against a stand-in PalmOS.h
//! (`memdbg/tests/stand-in-sdk/palm-sys`), linked with `palm-build lib`'s
//! archive by `palm-build c-app --segments seg2` in prc-tools' layout (`code` 0
//! with the globals, code 1 with palm-build's startup code, code 2, `data` 0,
//! `rloc` 0), run in palm-run, its MemDbgDB reported with the ELF. The report
//! must show exactly the sample's leaks (a pointer and a handle from code 1, a
//! record from code 2 whose size comes from the initialised globals), its
//! overrun and its double free, at the files and lines the sources mark with
//! `@mark`, with their sizes; the code 2 frame as `segment 2 + offset` in
//! `MakeRecord` at its line. The same checks as the by-hand prc-tools run
//! (README, "Using memdbg in a prc-tools C app").
//!
//! Skipped, saying so, only when `m68k-linux-gnu-gcc` is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use memdbg_report::{ElfSymbols, Format, Options, Report, StackFrame, analyze, ledger_from_bytes};
use palm_build::prc::AppMeta;
use palm_prc::{Database, FourCC};
use palm_run::{Config, Machine};

const GCC: &str = "m68k-linux-gnu-gcc";
const APP: &str = "MemDbgSample";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sample() -> PathBuf {
    root().join("memdbg/c-sample")
}

/// The line of `/* @mark name */` in the sample's source `file`.
fn mark(file: &str, name: &str) -> u32 {
    let source = std::fs::read_to_string(sample().join(file)).unwrap();
    let lines: Vec<u32> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(&format!("/* @mark {name} */")))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    assert_eq!(lines.len(), 1, "`@mark {name}` in {file}");
    lines[0]
}

/// The innermost frame's first function, file and line.
fn top(stack: &[StackFrame]) -> (String, Option<String>, Option<u32>) {
    let s = &stack.first().expect("a call stack").symbols[0];
    (s.function.clone(), s.file.clone(), s.line)
}

/// The outermost function of the innermost frame (where an inlined call sits).
fn top_function(stack: &[StackFrame]) -> String {
    stack[0].symbols.last().unwrap().function.clone()
}

#[test]
fn the_c_sample_in_prc_tools_layout_reports_its_leaks_overrun_and_double_free() {
    if Command::new(GCC).arg("--version").output().is_err() {
        eprintln!(
            "SKIPPED: {GCC} is not installed (Debian package gcc-m68k-linux-gnu; ci/setup \
             installs it)"
        );
        return;
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let out = target_dir.join("palm").join("c-sample");
    std::fs::create_dir_all(&out).unwrap();

    // 1. memdbg's C library, through palm-build's pipeline.
    let archive = out.join("libmemdbg.a");
    palm_build::build_lib(
        &palm_build::Options {
            manifest_path: root().join("memdbg/capi-lib/Cargo.toml"),
            target_dir: Some(target_dir.clone()),
            kind: palm_build::ImageKind::TestLib,
            features: Vec::new(),
            quiet: true,
            raw_llvm: false,
        },
        &archive,
    )
    .unwrap_or_else(|e| panic!("palm-build lib failed: {e:#}"));

    // 2. The sample's sources, unchanged, by GNU C (in their directory, so that
    //    __FILE__ is "sample.c" as under the sample's Makefile).
    let mut inputs = Vec::new();
    for c in ["sample.c", "seg2.c"] {
        let object = out.join(c).with_extension("o");
        let cc = Command::new(GCC)
            .current_dir(sample())
            .args(palm_build::segments::GCC_FLAGS)
            .args(["-O2", "-Wall", "-Werror", "-DMEMDBG", "-I"])
            .arg(root().join("memdbg/tests/stand-in-sdk/palm-sys"))
            .arg("-I")
            .arg(root().join("palm-sys/include"))
            .arg("-I")
            .arg(root().join("memdbg/include"))
            .args(["-c", c, "-o"])
            .arg(&object)
            .output()
            .unwrap();
        assert!(
            cc.status.success(),
            "{GCC} {c} failed:\n{}",
            String::from_utf8_lossy(&cc.stderr)
        );
        inputs.push(object);
    }
    inputs.push(archive);

    // 3. Linked in prc-tools' layout: code 2 is the section "seg2".
    let prc_path = out.join(format!("{APP}.prc"));
    let elf_path = out.join(format!("{APP}.elf"));
    let built = palm_build::capp::build_c_app(&palm_build::capp::CApp {
        inputs,
        meta: AppMeta {
            name: APP.into(),
            creator: FourCC::new(*b"MDbS"),
            launcher_name: APP.into(),
            version: "1.0".into(),
            stack_size: 4096,
            resources: Vec::new(),
        },
        prc: prc_path.clone(),
        elf: elf_path.clone(),
        segments: vec!["seg2".into()],
        quiet: true,
    })
    .unwrap_or_else(|e| panic!("palm-build c-app --segments seg2 failed: {e:#}"));
    let prc = std::fs::read(&prc_path).unwrap();
    let db = Database::parse(&prc).unwrap();
    let res = |kind: &[u8; 4], id| db.resource(FourCC::new(*kind), id).map(|r| &r.data);
    let code0 = res(b"code", 0).expect("code 0");
    let below = u32::from_be_bytes(code0[4..8].try_into().unwrap());
    let above = u32::from_be_bytes(code0[0..4].try_into().unwrap());
    // gRecordSize, gTitle[16], gTitleP, gMake below A5; 40 reserved bytes and
    // the GOT above it.
    assert!(below >= 2 + 16 + 4 + 4, "below A5: {below}");
    assert!(above > 40, "above A5: {above}");
    let code2 = res(b"code", 2).expect("code 2");
    assert_eq!(built.code_sizes, [built.linked.code.len(), code2.len()]);
    assert!(res(b"code", 3).is_none());
    assert!(res(b"data", 0).is_some());
    // Chain heads: data, code 1, code 2.
    assert_eq!(res(b"rloc", 0).map(|r| r.len()), Some(6));

    // 4. Run: PilotMain returns the number of leaks memdbg_stop counted (its
    //    globals check returns 100 when they were not relocated).
    let mut m = Machine::with_config(&Config::default()).unwrap();
    m.install(&prc).unwrap();
    let outcome = m.launch(APP).unwrap();
    assert!(
        outcome.stop.is_none(),
        "stopped: {:?}\n{}",
        outcome.stop,
        m.output.join("\n")
    );
    assert_eq!(outcome.result, Some(3), "{}", m.output.join("\n"));
    assert!(
        outcome.patches_left.is_empty(),
        "{:?}",
        outcome.patches_left
    );
    // palm-run's exit check finds the same three blocks still owned by the app.
    assert_eq!(outcome.leaks.len(), 3, "{:?}", outcome.leaks);
    let pdb = m.export("MemDbgDB").unwrap();
    std::fs::write(out.join("MemDbgDB.pdb"), &pdb).unwrap();

    // 5. The report with the ELF.
    let ledger = ledger_from_bytes(&pdb, "MemDbgDB.pdb").unwrap();
    let elf = ElfSymbols::load(&elf_path).unwrap();
    elf.check(&ledger).unwrap();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    let r: Report = analyze(&ledger, &opts);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.segments.len(), 1, "{:?}", r.segments);
    assert_eq!(
        (r.segments[0].resource, r.segments[0].size),
        (2, code2.len() as u32)
    );
    assert_eq!(r.segments[0].crc, memdbg::record::crc32(code2));
    // Where handles are not master pointers and released records' buffers are
    // freed (PumpkinOS's Data Manager), code 2 is found the documented way
    // (MemHandleLock) and recorded through a released record all the same.
    let mut m2 = Machine::with_config(&Config::default()).unwrap();
    m2.opaque_handles = true;
    m2.release_frees_records = true;
    m2.strict_record_writes = true;
    m2.install(&prc).unwrap();
    let outcome2 = m2.launch(APP).unwrap();
    assert_eq!(outcome2.result, Some(3), "{}", m2.output.join("\n"));
    assert!(m2.reports.is_empty(), "{:?}", m2.reports);
    let ledger2 = ledger_from_bytes(&m2.export("MemDbgDB").unwrap(), "MemDbgDB.pdb").unwrap();
    let seg = |s: &memdbg::record::SegmentRecord| (s.resource.get(), s.size.get(), s.crc.get());
    assert_eq!(
        ledger2.segments.iter().map(seg).collect::<Vec<_>>(),
        ledger.segments.iter().map(seg).collect::<Vec<_>>()
    );

    let leaks: Vec<_> = r
        .leaks
        .iter()
        .map(|l| {
            (
                l.block.file.clone().unwrap(),
                l.block.line.unwrap(),
                l.block.size,
                l.block.kind,
            )
        })
        .collect();
    assert_eq!(
        leaks,
        [
            (
                "sample.c".into(),
                mark("sample.c", "pointer-leak"),
                16,
                "pointer"
            ),
            (
                "sample.c".into(),
                mark("sample.c", "handle-leak"),
                32,
                "handle"
            ),
            // gRecordSize (24) + StrLen (gTitle) ("MemDbgSample", 12): from data 0.
            ("seg2.c".into(), mark("seg2.c", "seg2-leak"), 36, "pointer"),
        ]
    );
    // Code 1 frames: the allocating function at its line (inlined into PilotMain).
    let l0 = &r.leaks[0].block.stack;
    assert!(l0[0].in_code1);
    assert_eq!(
        top(l0),
        (
            "Leak".into(),
            Some("sample.c".into()),
            Some(mark("sample.c", "pointer-leak"))
        )
    );
    // The code 2 frame: segment 2 + offset, in MakeRecord at its line.
    let s2 = &r.leaks[2].block.stack;
    let at = s2[0].segment.expect("a frame in code 2");
    assert_eq!(at.resource, 2);
    assert!(
        at.offset > 0 && (at.offset as usize) < code2.len(),
        "{at:?}"
    );
    assert!(!s2[0].in_code1);
    assert_eq!(
        top(s2),
        (
            "MakeRecord".into(),
            Some("seg2.c".into()),
            Some(mark("seg2.c", "seg2-leak"))
        )
    );

    assert_eq!(r.overruns.len(), 1);
    let o = &r.overruns[0];
    assert_eq!(
        (
            o.when,
            o.block.file.as_deref(),
            o.block.line,
            o.block.size,
            o.guard.as_str()
        ),
        (
            "at free",
            Some("sample.c"),
            Some(mark("sample.c", "overrun")),
            8,
            // StrCopy's NUL over the first guard byte.
            "00 FD FD FD"
        )
    );
    assert_eq!(top(&o.found_by).2, Some(mark("sample.c", "overrun-free")));
    assert_eq!(top_function(&o.found_by), "PilotMain");

    assert_eq!(r.double_frees.len(), 1);
    let d = &r.double_frees[0];
    assert_eq!(
        (d.block.file.as_deref(), d.block.line, d.block.size),
        (Some("sample.c"), Some(mark("sample.c", "double-free")), 20)
    );
    assert_eq!(
        top(&d.first_free.stack).2,
        Some(mark("sample.c", "first-free"))
    );
    assert_eq!(
        top(&d.second_free.stack).2,
        Some(mark("sample.c", "second-free"))
    );
    assert_eq!(
        (r.summary.leaks, r.summary.bytes, r.summary.exit_status),
        (3, 84, 1)
    );

    // The text report says it the same way.
    let mut text = Vec::new();
    opts.format = Format::Text;
    memdbg_report::print(&mut text, &ledger, &opts).unwrap();
    let text = String::from_utf8(text).unwrap();
    let frame = format!(
        "    #0 segment 2 + 0x{:04X} in MakeRecord at seg2.c:{}\n",
        at.offset,
        mark("seg2.c", "seg2-leak")
    );
    assert!(text.contains(&frame), "{frame:?} not in\n{text}");
    assert!(
        text.contains(
            "SUMMARY: memdbg: 84 byte(s) leaked in 3 allocation(s); 1 overrun; 1 double free."
        ),
        "{text}"
    );
}
