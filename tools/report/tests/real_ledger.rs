//! Real ledgers: memdbg's end-to-end app (`memdbg/tests/app`, one scenario per
//! function) is built for the 68000 by palm-build and run in palm-run; the
//! MemDbgDB it leaves is exported and reported with the app's ELF. Source lines
//! are found through the app's `// @mark name` comments, addresses through the
//! ELF, so the assertions hold whatever the compiler emits.

mod common;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use memdbg_report::diff::diff;
use memdbg_report::{ElfSymbols, Ledger, Options, Report, StackFrame, analyze, print};
use palm_run::{Config, Machine};

const CREATOR: u32 = u32::from_be_bytes(*b"MDtA");
const SRC: &str = "memdbg/tests/app/src/lib.rs";

struct App {
    prc: Vec<u8>,
    elf_path: PathBuf,
    marks: HashMap<String, u32>,
}

fn app() -> &'static App {
    static APP: OnceLock<App> = OnceLock::new();
    APP.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let target_dir = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target"));
        let built = palm_build::build_app(&palm_build::Options {
            manifest_path: root.join("memdbg/tests/app/Cargo.toml"),
            target_dir: Some(target_dir),
            kind: palm_build::ImageKind::App,
            features: Vec::new(),
            quiet: true,
            raw_llvm: false,
            macsbug_names: true,
        })
        .unwrap_or_else(|e| panic!("building memdbg/tests/app failed: {e:#}"));
        let source = std::fs::read_to_string(root.join(SRC)).unwrap();
        let marks = source
            .lines()
            .enumerate()
            .filter_map(|(i, l)| {
                let name = l.split("// @mark ").nth(1)?.split_whitespace().next()?;
                Some((name.to_string(), i as u32 + 1))
            })
            .collect();
        App {
            prc: std::fs::read(&built.prc).unwrap(),
            elf_path: built.elf,
            marks,
        }
    })
}

fn mark(name: &str) -> u32 {
    *app()
        .marks
        .get(name)
        .unwrap_or_else(|| panic!("no `@mark {name}` in {SRC}"))
}

fn elf() -> ElfSymbols {
    ElfSymbols::load(&app().elf_path).unwrap()
}

/// Runs scenario `n` and returns the exported MemDbgDB.
fn run(n: u32) -> Vec<u8> {
    let mut m = Machine::with_config(&Config::default()).unwrap();
    m.install(&app().prc).unwrap();
    m.os.ftr.features.insert((CREATOR, 0), n);
    let out = m.launch("MemDbgTest").unwrap();
    assert_eq!(out.stop, None, "scenario {n} stopped");
    m.export("MemDbgDB").unwrap()
}

fn report(n: u32) -> (Ledger, Report) {
    let ledger = Ledger::from_pdb(&run(n), &format!("scenario{n}.pdb")).unwrap();
    let elf = elf();
    elf.check(&ledger).unwrap();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    let r = analyze(&ledger, &opts);
    assert!(r.warnings.is_empty(), "scenario {n}: {:?}", r.warnings);
    (ledger, r)
}

/// The (function, file, line) of every symbol of a stack.
fn functions(stack: &[StackFrame]) -> Vec<(String, String, u32)> {
    stack
        .iter()
        .flat_map(|f| f.symbols.iter())
        .map(|s| {
            (
                s.function.clone(),
                s.file.clone().unwrap_or_default(),
                s.line.unwrap_or(0),
            )
        })
        .collect()
}

fn has(stack: &[StackFrame], function: &str, line: u32) -> bool {
    functions(stack).contains(&(function.to_string(), SRC.to_string(), line))
}

#[test]
fn leaked_pointer_and_handle() {
    let (_, r) = report(1);
    let leaks = common::leak_sites(&r);
    assert_eq!(
        leaks,
        [
            ("pointer", 16, Some(SRC), Some(mark("leak-ptr"))),
            ("handle", 32, Some(SRC), Some(mark("leak-handle"))),
        ]
    );
    assert!(r.leaks[1].block.relocatable);
    assert_eq!(
        (r.summary.leaks, r.summary.bytes, r.summary.exit_status),
        (2, 48, 1)
    );
    assert_eq!(r.header.app_name, "MemDbgTest");
    assert_eq!(r.header.app_creator, "MDtA");
    assert_eq!(r.header.code_size, elf().code_size());
    // memdbg's CRC-32 of code 1, computed on the 68k at start, is the ELF's.
    assert_eq!(r.header.code_crc, Some(elf().code_crc()));
}

#[test]
fn rust_box_stack_names_the_scenario_function() {
    let (_, r) = report(14);
    assert_eq!(r.leaks.len(), 1);
    let b = &r.leaks[0].block;
    assert_eq!(
        (b.kind, b.size, b.file.as_deref()),
        ("Rust alloc", 24, None)
    );
    assert!(
        has(&b.stack, "memdbg_test_app::rust_box", mark("box")),
        "{:#?}",
        functions(&b.stack)
    );
    assert!(
        functions(&b.stack)
            .iter()
            .any(|f| f.0 == "memdbg_test_app::pilot_main")
    );
    assert_eq!(
        b.site,
        format!("memdbg_test_app::rust_box at {SRC}:{}", mark("box"))
    );
    assert!(
        !b.stack.last().unwrap().in_code1,
        "the outermost frame is the OS's"
    );
    let elf = elf();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    let mut out = Vec::new();
    let ledger = Ledger::from_pdb(&run(14), "box.pdb").unwrap();
    print(&mut out, &ledger, &opts).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(&format!(
            "  1 leak × 24 bytes from memdbg_test_app::rust_box at {SRC}:{} (Rust alloc)\n",
            mark("box")
        )),
        "{text}"
    );
    assert!(text.contains(&format!(
        " in memdbg_test_app::rust_box at {SRC}:{}\n",
        mark("box")
    )));
}

#[test]
fn overrun_with_its_sites() {
    let (_, r) = report(5);
    assert!(r.leaks.is_empty());
    assert_eq!(r.overruns.len(), 1);
    let o = &r.overruns[0];
    assert_eq!((o.when, o.guard.as_str()), ("at free", "00 FD FD FD"));
    assert_eq!(o.block.site, format!("{SRC}:{}", mark("overrun")));
    assert_eq!(o.block.size, 10);
    assert!(
        has(
            &o.found_by,
            "memdbg_test_app::overrun",
            mark("overrun-free")
        ),
        "{:#?}",
        functions(&o.found_by)
    );
    assert_eq!(r.summary.exit_status, 1);
    assert_eq!(r.summary.line, "SUMMARY: memdbg: no leaks; 1 overrun.");
}

#[test]
fn double_free_with_both_sites() {
    let (_, r) = report(7);
    assert_eq!(r.double_frees.len(), 1);
    let d = &r.double_frees[0];
    assert_eq!(d.block.site, format!("{SRC}:{}", mark("double")));
    assert!(has(
        &d.first_free.stack,
        "memdbg_test_app::double_free",
        mark("double-first")
    ));
    assert!(has(
        &d.second_free.stack,
        "memdbg_test_app::double_free",
        mark("double-second")
    ));
    assert_eq!(r.summary.line, "SUMMARY: memdbg: no leaks; 1 double free.");
}

#[test]
fn diff_of_two_runs() {
    let (a, _) = report(1);
    let (b, _) = report(14);
    let elf = elf();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    let d = diff(&a, &b, &opts);
    let appeared: Vec<&str> = d.appeared.iter().map(|c| c.site.as_str()).collect();
    assert_eq!(
        appeared,
        [format!(
            "memdbg_test_app::rust_box at {SRC}:{}",
            mark("box")
        )]
    );
    let gone: Vec<String> = d.disappeared.iter().map(|c| c.site.clone()).collect();
    assert_eq!(
        gone,
        [
            format!("{SRC}:{}", mark("leak-handle")),
            format!("{SRC}:{}", mark("leak-ptr"))
        ]
    );
    assert_eq!(d.summary.exit_status, 1);
}

#[test]
fn through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let pdb = dir.path().join("MemDbgDB.pdb");
    std::fs::write(&pdb, run(1)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_memdbg"))
        .arg("report")
        .arg(&pdb)
        .arg("--elf")
        .arg(&app().elf_path)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["leaks"], 2);
    assert_eq!(v["leaks"][0]["line"], mark("leak-ptr"));
}

/// Issue 16 (6), end to end: the report of a 200-deep allocation and of one
/// under a broken frame chain says each stack was cut and why; the OS's launch
/// of the app is named once; and palm-sys's generated trap glue is named by its
/// line of `palm-sys/traps.tbl` (no `$OUT_DIR` in any path).
#[test]
fn cut_stacks_the_launch_and_the_trap_glue_have_real_names() {
    let (_, r) = report(31);
    let cut: Vec<Option<&str>> = r.leaks.iter().map(|l| l.block.stack_truncated).collect();
    assert_eq!(
        cut,
        [
            Some("depth limit of 6 frames"),
            Some("broken A6 frame chain")
        ]
    );
    assert!(has(
        &r.leaks[0].block.stack,
        "memdbg_test_app::recurse",
        mark("deep")
    ));
    let elf = elf();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    for (n, name) in [(31, "deep.pdb"), (18, "rare.pdb")] {
        let ledger = Ledger::from_pdb(&run(n), name).unwrap();
        let mut out = Vec::new();
        print(&mut out, &ledger, &opts).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            !text.contains("$OUT_DIR") && !text.contains("/out/"),
            "{text}"
        );
        assert!(!text.contains("(68k address outside code 1)"), "{text}");
        if n == 31 {
            assert_eq!(
                text.matches("(the stack was cut here: ").count(),
                2,
                "{text}"
            );
            continue;
        }
        // The double free's sites are MemHandleFree calls: the glue's frame is
        // the trap's line of the table.
        let t = m68k_palmos_sys::table::trap_by_name("MemHandleFree").unwrap();
        let glue = format!(
            " in m68k_palmos_sys::glue::MemHandleFree at palm-sys/traps.tbl:{} (inlined)\n",
            t.line
        );
        assert_eq!(text.matches(&glue).count(), 2, "{text}");
        assert_eq!(
            text.matches("Launch    the OS called ").count(),
            1,
            "{text}"
        );
        let r = analyze(&ledger, &opts);
        assert_eq!(r.entry_function.as_deref(), Some("__palm_entry"));
        assert_eq!(r.launched_from.len(), 1);
    }
}

/// Issue 16 (3), end to end: the blocks given to the system and kept are
/// listed as handed off, with their allocation's site, and are not leaks (nor in
/// the exit status); the block whose owner came back and the system-owned
/// MemChunkNew are the leaks.
#[test]
fn handed_off_blocks_are_not_leaks() {
    let (_, r) = report(34);
    let sites = |blocks: &[memdbg_report::Leak]| -> Vec<(u32, Option<u32>)> {
        blocks
            .iter()
            .map(|l| (l.block.size, l.block.line))
            .collect()
    };
    assert_eq!(
        sites(&r.handed_off),
        [
            (16, Some(mark("handoff-ptr"))),
            (24, Some(mark("handoff-handle")))
        ]
    );
    assert_eq!(
        sites(&r.leaks),
        [
            (8, Some(mark("owner-back"))),
            (6, Some(mark("system-chunk")))
        ]
    );
    assert_eq!((r.summary.handed_off, r.summary.handed_off_bytes), (2, 40));
    assert_eq!(
        r.summary.line,
        "SUMMARY: memdbg: 14 byte(s) leaked in 2 allocation(s); 40 byte(s) in 2 allocation(s) \
         handed off (not leaks)."
    );
    let elf = elf();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    let mut out = Vec::new();
    let ledger = Ledger::from_pdb(&run(34), "handoff.pdb").unwrap();
    print(&mut out, &ledger, &opts).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("\nHanded off: 2 blocks, 40 bytes ("),
        "{text}"
    );
    assert!(
        text.contains(": Non-relocatable chunk (pointer) at 0x")
            && text.contains(&format!(
                "  Allocated at {SRC}:{}\n",
                mark("handoff-handle")
            )),
        "{text}"
    );
    assert!(
        text.contains("size = 6 (guarded, allocated for another owner)"),
        "{text}"
    );
    // Only the hand-offs: exit status 0.
    let mut only = ledger.clone();
    only.allocs.clear();
    only.header.counters.leaks.set(0);
    let mut sink = Vec::new();
    assert_eq!(print(&mut sink, &only, &opts).unwrap().exit_status, 0);
}
