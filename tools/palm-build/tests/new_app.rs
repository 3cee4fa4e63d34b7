//! `palm-build new`, end to end, as a new user runs it: a Rust app and a C
//! app are generated in a temporary directory (outside this workspace), built
//! with the `palm-build` binary (`palm-build app`; the C app with its
//! Makefile, which runs `palm-build ids`, GNU C, `palm-build lib` and
//! `palm-build c-app`), run in palm-run with their own `events.txt` (the
//! menu's leaking item, then About), and reported: the one leak, 16 bytes,
//! at the generated source's `MemPtrNew`/`mem_ptr_new!` line.
//!
//! The apps' cargo target directory is this workspace's (or
//! `CARGO_TARGET_DIR`): they are built with the same profile and flags, so
//! core, alloc and compiler_builtins compiled with -Zbuild-std for the other
//! tests are reused. The C app is skipped, saying so, only when
//! `m68k-linux-gnu-gcc` or `make` is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use memdbg_report::{ElfSymbols, Options, analyze, ledger_from_bytes};
use palm_run::{Config, Machine};

const PALM_BUILD: &str = env!("CARGO_BIN_EXE_palm-build");

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

/// Runs a command in `dir`, failing the test with its output if it fails.
fn run(cmd: &mut Command, dir: &Path) -> String {
    let out = cmd.current_dir(dir).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{cmd:?} failed:\n{text}");
    text
}

/// The 1-based line of the one line of `path` containing `needle`.
fn line_of(path: &Path, needle: &str) -> u32 {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "`{needle}` in {}", path.display());
    lines[0] as u32
}

/// Installs and launches `prc` in palm-run with the app's events.txt;
/// returns the report of the ledger it leaves.
fn run_and_report(app_dir: &Path, name: &str, prc: &Path, elf: &Path) -> memdbg_report::Report {
    let mut m = Machine::with_config(&Config::default()).unwrap();
    m.install(&std::fs::read(prc).unwrap()).unwrap();
    let script = std::fs::read_to_string(app_dir.join("events.txt")).unwrap();
    m.set_events(palm_run::script::parse(&script).unwrap());
    let outcome = m.launch(name).unwrap();
    let output = m.output.join("\n");
    assert_eq!(outcome.stop, None, "the app was stopped\n{output}");
    assert_eq!(outcome.result, Some(0), "PilotMain's result\n{output}");
    assert_eq!(outcome.events_not_played, 0, "{output}");
    assert!(
        outcome.patches_left.is_empty(),
        "{:?}",
        outcome.patches_left
    );
    // The About alert was shown (the menu's second item).
    assert!(
        output.contains(&format!("Alert 1000: About {name}: ")),
        "{output}"
    );
    let ledger = ledger_from_bytes(&m.export("MemDbgDB").unwrap(), "MemDbgDB.pdb").unwrap();
    let symbols = ElfSymbols::load(elf).unwrap();
    symbols.check(&ledger).unwrap();
    let mut opts = Options::default();
    opts.symbolizer = Some(&symbols);
    let report = analyze(&ledger, &opts);
    assert_eq!(report.header.app_name, name);
    assert_eq!(report.summary.exit_status, 1, "{:?}", report.summary);
    report
}

/// The report's one leak: the 16-byte pointer the menu item allocates, at
/// `file:line`.
fn the_leak<'r>(
    report: &'r memdbg_report::Report,
    file: &str,
    line: u32,
) -> &'r memdbg_report::Block {
    assert_eq!(report.leaks.len(), 1, "{:?}", report.leaks);
    let leak = &report.leaks[0].block;
    assert_eq!(
        (leak.kind, leak.size, leak.file.as_deref(), leak.line),
        ("pointer", 16, Some(file), Some(line))
    );
    leak
}

#[test]
fn a_new_rust_app_builds_runs_and_reports_its_leak() {
    let dir = tempfile::tempdir().unwrap();
    run(
        Command::new(PALM_BUILD).args(["new", "new-rust"]),
        dir.path(),
    );
    let app = dir.path().join("new-rust");
    let target = target_dir();
    let out = run(
        Command::new(PALM_BUILD)
            .args(["app", "--target-dir"])
            .arg(&target),
        &app,
    );
    // The generated code compiles without a warning.
    assert!(!out.contains("warning:"), "{out}");
    let palm = target.join("palm");
    let report = run_and_report(
        &app,
        "NewRust",
        &palm.join("NewRust.prc"),
        &palm.join("NewRust.elf"),
    );
    let line = line_of(&app.join("src/lib.rs"), "mem_ptr_new!(16)");
    let leak = the_leak(&report, "src/lib.rs", line);
    // The call stack (CALL_STACKS), symbolized from the ELF's DWARF: the
    // innermost frame is that line, in `leak`, inlined into the form handler.
    let frame = &leak.stack[0].symbols;
    assert_eq!(
        (
            frame[0].function.as_str(),
            frame[0].file.as_deref(),
            frame[0].line
        ),
        ("new_rust::leak", Some("src/lib.rs"), Some(line))
    );
    assert!(
        frame
            .iter()
            .any(|s| s.function == "new_rust::main_form_event"),
        "{frame:?}"
    );
}

fn missing(tool: &str) -> bool {
    if Command::new(tool).arg("--version").output().is_err() {
        eprintln!(
            "SKIPPED: {tool} is not installed (ci/setup installs it), so the C app cannot be built"
        );
        return true;
    }
    false
}

#[test]
fn a_new_c_app_builds_with_its_makefile_runs_and_reports_its_leak() {
    if missing("m68k-linux-gnu-gcc") || missing("make") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    run(
        Command::new(PALM_BUILD).args(["new", "--c", "new-c"]),
        dir.path(),
    );
    let app = dir.path().join("new-c");
    run(
        Command::new("make")
            .arg(format!("PALM_BUILD={PALM_BUILD}"))
            .env("CARGO_TARGET_DIR", target_dir()),
        &app,
    );
    let ids = std::fs::read_to_string(app.join("build/NewCRsc.h")).unwrap();
    assert!(ids.contains("#define OptionsLeakCmd 2001 "), "{ids}");
    let report = run_and_report(
        &app,
        "NewC",
        &app.join("build/NewC.prc"),
        &app.join("build/NewC.elf"),
    );
    let line = line_of(&app.join("new-c.c"), "MemPtrNew(16)");
    the_leak(&report, "new-c.c", line);
}
