//! The `palm-run` binary: exit statuses (0 clean, 1 fault or failed check, 2 bad
//! input with a one-line error), `--stats-json`, `--export` read back by the
//! PRC library and by Palm::PDB (Debian's libpalm-perl, installed by ci/setup).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use palm_prc::{Database, FourCC, Header, Record, Resource, app};

fn palm_run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_palm-run"))
        .args(args)
        .output()
        .expect("palm-run runs")
}

fn status(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

/// An app whose code 1 is `code`.
fn prc(code: &[u8]) -> Vec<u8> {
    prc_with(code, app::code0(0x28, 0), vec![])
}

/// An app whose code 1 is `code`, with this code 0 and more resources.
fn prc_with(code: &[u8], code0: Vec<u8>, more: Vec<Resource>) -> Vec<u8> {
    prc_named(b"CliTest", code, code0, more)
}

/// [`prc_with`] under the database name `name` (raw bytes).
fn prc_named(name: &[u8], code: &[u8], code0: Vec<u8>, more: Vec<Resource>) -> Vec<u8> {
    let mut rs = vec![
        Resource {
            kind: FourCC::new(*b"code"),
            id: 0,
            data: code0,
        },
        Resource {
            kind: FourCC::new(*b"code"),
            id: 1,
            data: code.to_vec(),
        },
        Resource {
            kind: FourCC::new(*b"data"),
            id: 0,
            data: app::data0_no_globals(),
        },
    ];
    rs.extend(more);
    Database::new_resources(Header::new(name, app::APPL, FourCC::new(*b"PRct")), rs)
        .to_bytes()
        .unwrap()
}

/// Built once per test binary (palm-build's work files are per crate, so two
/// concurrent builds of the same crate would collide).
fn runtest_prc() -> PathBuf {
    static PRC: OnceLock<PathBuf> = OnceLock::new();
    PRC.get_or_init(build_runtest).clone()
}

fn build_runtest() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    palm_build::build_app(&palm_build::Options {
        manifest_path: dir.join("tests/apps/runtest/Cargo.toml"),
        target_dir: None,
        kind: palm_build::ImageKind::App,
        features: Vec::new(),
        quiet: true,
        raw_llvm: false,
        macsbug_names: true,
    })
    .unwrap_or_else(|e| panic!("building tests/apps/runtest failed: {e:#}"))
    .prc
}

#[test]
fn clean_run_exits_0_with_exact_stats() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "loop.prc", &palm_run::bench::loop_prc(1000));
    let stats = dir.path().join("stats.json");
    let o = palm_run(&[&app, "--stats-json", stats.to_str().unwrap()]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    // move.l, 1000 × (add, eor, subq, bne), rts, and the ROM return stub.
    assert_eq!(v["instructions"]["total"], 4003);
    assert_eq!(v["instructions"]["rom"], 1);
    assert_eq!(v["instructions"]["app"], 4002);
    assert_eq!(v["result"], 1000 * 1001 / 2);
    assert_eq!(v["stop"], serde_json::Value::Null);
}

#[test]
fn faults_exit_1_with_a_report() {
    let dir = tempfile::tempdir().unwrap();
    // move.w d0,(1) → address error at an odd address.
    let odd = write(
        dir.path(),
        "odd.prc",
        &prc(&[0x31, 0xC0, 0x00, 0x01, 0x4E, 0x75]),
    );
    let o = palm_run(&[&odd]);
    assert_eq!(status(&o), 1);
    let out = stdout(&o);
    assert!(
        out.contains("palm-run: app stopped: address error: write at odd address 0x00000001"),
        "{out}"
    );
    // ILLEGAL.
    let ill = write(dir.path(), "ill.prc", &prc(&[0x4A, 0xFC]));
    let o = palm_run(&[&ill]);
    assert_eq!(status(&o), 1);
    assert!(
        stdout(&o).contains("illegal instruction 0x4AFC"),
        "{}",
        stdout(&o)
    );
    // move.l d0,$20000000 → unmapped.
    let un = write(
        dir.path(),
        "un.prc",
        &prc(&[0x23, 0xC0, 0x20, 0x00, 0x00, 0x00, 0x4E, 0x75]),
    );
    let o = palm_run(&[&un]);
    assert_eq!(status(&o), 1);
    assert!(
        stdout(&o)
            .contains("bus error: write of 4 byte(s) at 0x20000000, which is not mapped memory"),
        "{}",
        stdout(&o)
    );
    // divu #0,d0.
    let dz = write(
        dir.path(),
        "dz.prc",
        &prc(&[0x80, 0xFC, 0x00, 0x00, 0x4E, 0x75]),
    );
    let o = palm_run(&[&dz]);
    assert_eq!(status(&o), 1);
    assert!(
        stdout(&o).contains("exception 5 (divide by zero)"),
        "{}",
        stdout(&o)
    );
    // jmp $10C03000 (unused ROM) → ILLEGAL there.
    let rom = write(
        dir.path(),
        "rom.prc",
        &prc(&[0x4E, 0xF9, 0x10, 0xC0, 0x30, 0x00]),
    );
    let o = palm_run(&[&rom]);
    assert_eq!(status(&o), 1);
    assert!(
        stdout(&o).contains("illegal instruction 0x4AFC\n  at PC 0x10C03000"),
        "{}",
        stdout(&o)
    );
    // An endless loop hits --max-instructions.
    let spin = write(dir.path(), "spin.prc", &prc(&[0x60, 0xFE]));
    let o = palm_run(&[&spin, "--max-instructions", "5000"]);
    assert_eq!(status(&o), 1);
    assert!(
        stdout(&o).contains("instruction limit of 5000 reached"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = write(dir.path(), "notes.txt", b"hello, not a prc");
    let o = palm_run(&[&text]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        format!(
            "palm-run: error: {text}: file is 16 bytes, shorter than the 78-byte database header\n"
        )
    );
    let full = palm_run::bench::loop_prc(1);
    let cut = write(dir.path(), "cut.prc", &full[..90]);
    let o = palm_run(&[&cut]);
    assert_eq!(status(&o), 2);
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).starts_with(&format!("palm-run: error: {cut}: ")));
    let pdb = Database::new_records(
        Header::new("Data", FourCC::new(*b"DATA"), FourCC::new(*b"PRct")),
        vec![],
    );
    let pdb = write(dir.path(), "data.pdb", &pdb.to_bytes().unwrap());
    let o = palm_run(&[&pdb]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        format!("palm-run: error: {pdb}: not an application: no code 1 resource\n")
    );
    let o = palm_run(&[dir.path().join("missing.prc").to_str().unwrap()]);
    assert_eq!(status(&o), 2);
    assert_eq!(stderr(&o).lines().count(), 1);
    let app = write(dir.path(), "loop.prc", &full);
    let o = palm_run(&[&app, "--export", "nonsense"]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        "palm-run: error: --export nonsense: expected DBNAME=FILE\n"
    );
    let script = write(dir.path(), "ev.txt", b"tap 1\nwiggle\n");
    let o = palm_run(&[&app, "--events", &script]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        format!("palm-run: error: {script}: line 2: unknown event \"wiggle\"\n")
    );
    let o = palm_run(&[&app, "--install", &text]);
    assert_eq!(status(&o), 2);
    // Finding: an ELF or a prc-tools COFF object as the app or an --install
    // file gave an error about AppInfo offsets; it is named, with what to give.
    let mut elf_bytes = b"\x7fELF\x01\x02\x01".to_vec();
    elf_bytes.resize(300, 0);
    let elf = write(dir.path(), "good.elf", &elf_bytes);
    let mut coff_bytes = vec![0x01, 0x50, 0x00, 0x02];
    coff_bytes.resize(300, 0);
    let coff = write(dir.path(), "sample.o", &coff_bytes);
    for args in [
        vec![elf.as_str()],
        vec![app.as_str(), "--install", elf.as_str()],
    ] {
        let o = palm_run(&args);
        assert_eq!(status(&o), 2);
        assert_eq!(
            stderr(&o),
            format!(
                "palm-run: error: {elf}: an ELF file, not a Palm database (.prc or .pdb): \
                 palm-run runs the app's .prc and installs .prc/.pdb files (palm-build writes \
                 target/palm/App.prc next to App.elf); an ELF of the app goes to --elf\n"
            )
        );
    }
    let o = palm_run(&[&coff]);
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).starts_with(&format!(
            "palm-run: error: {coff}: a coff-m68k (prc-tools) object file, not a Palm database \
             (.prc or .pdb): "
        )),
        "{}",
        stderr(&o)
    );
    let o = palm_run(&[&app, "--heap-size", "100"]);
    assert_eq!(status(&o), 2);
    assert_eq!(stderr(&o).lines().count(), 1);
    let o = palm_run(&[&app, "--no-such-flag"]);
    assert_eq!(status(&o), 2);
}

/// Finding: `tap 4242` (no such control) was reported as a "debug ROM check",
/// exit 1, as if the app had failed; it is the script's error.
#[test]
fn a_script_naming_a_missing_control_is_bad_input() {
    let app = runtest_prc();
    let dir = tempfile::tempdir().unwrap();
    for (text, line, what) in [
        (
            "nil\ntap 4242\n",
            2,
            "the active form has no control with ID 4242",
        ),
        (
            "menu 7777\n",
            1,
            "the active menu bar (MBAR 1300) has no item with ID 7777",
        ),
    ] {
        let script = write(dir.path(), "ev.txt", text.as_bytes());
        let o = palm_run(&[
            app.to_str().unwrap(),
            "--feature",
            "PRtt:0=10",
            "--events",
            &script,
        ]);
        assert_eq!(status(&o), 2, "{}{}", stdout(&o), stderr(&o));
        assert_eq!(
            stderr(&o),
            format!("palm-run: error: {script}:{line}: {what}\n")
        );
    }
}

#[test]
fn export_is_read_back_by_palm_prc_and_palm_pdb() {
    let dir = tempfile::tempdir().unwrap();
    let app = runtest_prc();
    // Scenario 7 creates RtData and leaves one record "abc\0"; an installed PDB
    // round-trips too.
    let input = Database::new_records(
        Header::new("InData", FourCC::new(*b"DATA"), FourCC::new(*b"PRct")),
        vec![Record {
            attributes: 0x40,
            unique_id: 0x123456,
            data: b"in".to_vec(),
        }],
    );
    let input = write(dir.path(), "in.pdb", &input.to_bytes().unwrap());
    let out1 = dir.path().join("rt.pdb");
    let out2 = dir.path().join("in-out.pdb");
    let o = palm_run(&[
        app.to_str().unwrap(),
        "--feature",
        "PRtt:0=7",
        "--install",
        &input,
        "--export",
        &format!("RtData={}", out1.display()),
        "--export",
        &format!("InData={}", out2.display()),
    ]);
    assert_eq!(status(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let db = Database::parse(&std::fs::read(&out1).unwrap()).unwrap();
    assert_eq!(db.header.name, b"RtData");
    assert_eq!(db.records().unwrap()[0].data, b"abc\0");
    let back = Database::parse(&std::fs::read(&out2).unwrap()).unwrap();
    assert_eq!(back.records().unwrap()[0].data, b"in");
    assert_eq!(back.records().unwrap()[0].unique_id, 0x123456);
    // Palm::PDB reads the exported file too.
    let script = "use Palm::PDB; use Palm::Raw; my $p = Palm::PDB->new; $p->Load($ARGV[0]); \
                  print join(',', $p->{name}, $p->{type}, $p->{creator}, scalar(@{$p->{records}})), \"\\n\"; \
                  print unpack('H*', $_->{data}), \"\\n\" for @{$p->{records}};";
    let perl = Command::new("perl")
        .args(["-e", script, out1.to_str().unwrap()])
        .output()
        .expect("perl (ci/setup installs it with libpalm-perl)");
    assert!(
        perl.status.success(),
        "Palm::PDB failed (run ci/setup): {}",
        stderr(&perl)
    );
    assert_eq!(stdout(&perl), "RtData,DATA,PRtt,1\n61626300\n");
}

#[test]
fn nonfatal_checks_report_and_continue_but_fail_the_run() {
    let app = runtest_prc();
    let o = palm_run(&[
        app.to_str().unwrap(),
        "--feature",
        "PRtt:0=6",
        "--nonfatal-checks",
    ]);
    assert_eq!(status(&o), 1);
    let out = stdout(&o);
    assert!(out.contains("palm-run: MemChunkFree(0x"), "{out}");
    assert!(out.contains("chunk already freed, called from 0x"), "{out}");
    assert!(stderr(&o).contains("RunTest returned 0"), "{}", stderr(&o));
}

#[test]
fn trace_traps_prints_calls_with_symbols() {
    let app = runtest_prc();
    let elf = app.with_extension("elf");
    let o = palm_run(&[
        app.to_str().unwrap(),
        "--elf",
        elf.to_str().unwrap(),
        "--trace-traps",
        "--feature",
        "PRtt:0=9",
    ]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("trap DbgMessage(aStr=0x"), "{out}");
    assert!(out.contains("<palm_run_test_app::strings+0x"), "{out}");
    assert!(out.contains("DbgMessage: -12 100000 abc beef"), "{out}");
}

/// Finding: slow OS calls could defeat the instruction limit; a budget of OS
/// calls (`--max-traps`) and of wall-clock time (`--timeout`) stop the app
/// like the instruction limit (exit 1).
#[test]
fn os_call_and_time_limits_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let spin = write(dir.path(), "spin.prc", &prc(&[0x60, 0xFE]));
    let t = std::time::Instant::now();
    let o = palm_run(&[
        &spin,
        "--max-instructions",
        "1000000000000",
        "--timeout",
        "1",
    ]);
    assert_eq!(status(&o), 1);
    assert!(
        stdout(&o).contains("time limit of 1 s reached"),
        "{}",
        stdout(&o)
    );
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    // MemPtrNew(16) for ever: push.l #16; trap #15 MemPtrNew; addq #4,sp; bra.s.
    let alloc = write(
        dir.path(),
        "alloc.prc",
        &prc(&[
            0x2F, 0x3C, 0, 0, 0, 16, 0x4E, 0x4F, 0xA0, 0x13, 0x58, 0x8F, 0x60, 0xF2,
        ]),
    );
    let o = palm_run(&[&alloc, "--max-traps", "1000", "--allow-leaks"]);
    assert_eq!(status(&o), 1);
    assert!(
        stdout(&o).contains("OS call limit of 1000 reached"),
        "{}",
        stdout(&o)
    );
    let help = stdout(&palm_run(&["--help"]));
    assert!(
        help.contains("--max-traps") && help.contains("--timeout"),
        "{help}"
    );
}

/// Finding: `nil 65535` × 5000 lines aborted with a 4 GiB allocation. Nil
/// counts are kept as counts, and absurd totals are bad input naming the line.
#[test]
fn huge_nil_counts_are_refused_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "loop.prc", &palm_run::bench::loop_prc(1));
    let big = write(dir.path(), "big.txt", "nil 65535\n".repeat(5000).as_bytes());
    let o = palm_run(&[&app, "--events", &big]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        format!(
            "palm-run: error: {big}: line 153: the script's events add up to more than \
             10000000 (nil counts included)\n"
        )
    );
    let ok = write(dir.path(), "ok.txt", "nil 65535\n".repeat(150).as_bytes());
    let o = palm_run(&[&app, "--events", &ok]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
}

/// Finding: `--elf` was not checked: another app's ELF gave wrong symbols,
/// `/bin/ls` was accepted. The ELF must be an m68k ELF whose .text + .rodata
/// are the app's code 1, byte for byte.
#[test]
fn elf_must_be_the_apps_own() {
    let dir = tempfile::tempdir().unwrap();
    let runtest = runtest_prc();
    let elf = runtest.with_extension("elf");
    let other = write(dir.path(), "loop.prc", &palm_run::bench::loop_prc(1));
    let o = palm_run(&[&other, "--elf", elf.to_str().unwrap()]);
    assert_eq!(status(&o), 2);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "palm-run: error: {}: not the ELF of {other}: its code 1 image (.text + .rodata) is ",
            elf.display()
        )),
        "{err}"
    );
    // Same size, one byte changed: the offset is named.
    let mut prc = Database::parse(&std::fs::read(&runtest).unwrap()).unwrap();
    if let palm_prc::Content::Resources(rs) = &mut prc.content {
        let code1 = rs
            .iter_mut()
            .find(|r| &r.kind.0 == b"code" && r.id == 1)
            .unwrap();
        code1.data[0x10] ^= 0xFF;
    }
    let changed = write(dir.path(), "changed.prc", &prc.to_bytes().unwrap());
    let o = palm_run(&[
        &changed,
        "--elf",
        elf.to_str().unwrap(),
        "--feature",
        "PRtt:0=9",
    ]);
    assert_eq!(status(&o), 2);
    assert!(stderr(&o).contains("at offset 0x10 ("), "{}", stderr(&o));
    let o = palm_run(&[&other, "--elf", "/bin/ls"]);
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).contains("/bin/ls: not an m68k ELF"),
        "{}",
        stderr(&o)
    );
    let text = write(dir.path(), "notes.elf", b"not an elf at all");
    let o = palm_run(&[&other, "--elf", &text]);
    assert_eq!(status(&o), 2);
    assert!(stderr(&o).contains("not an ELF file"), "{}", stderr(&o));
}

/// Finding: bad `--heap-size`/`--ram-size` values gave an off-by-one
/// message, a wrapped "(got 0)", or setup errors from deep inside. They are
/// checked up front, naming the valid range.
#[test]
fn memory_sizes_are_checked_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "loop.prc", &palm_run::bench::loop_prc(1));
    for (opt, v) in [
        ("--heap-size", "4096"),
        ("--heap-size", "8192"),
        ("--heap-size", "4294967295"),
        ("--heap-size", "4294959104"),
        ("--heap-size", "262146"),
        ("--ram-size", "17825792"),
        ("--ram-size", "268435456"),
        ("--ram-size", "270000"),
    ] {
        let o = palm_run(&[&app, opt, v]);
        assert_eq!(status(&o), 2, "{opt} {v}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("palm-run: error: {opt} {v}: ")),
            "{err}"
        );
        assert!(err.contains(" from ") && err.contains(" to "), "{err}");
    }
    let o = palm_run(&[&app, "--heap-size", "16384", "--ram-size", "36864"]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    let o = palm_run(&[&app, "--heap-size", "16777216", "--ram-size", "33558528"]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    let help = stdout(&palm_run(&["--help"]));
    assert!(
        help.contains("16384 (16 KiB) to") && help.contains("16777216 (16 MiB)"),
        "{help}"
    );
}

/// Finding: malformed app resources were accepted (a code 0 asking for 4 GB
/// of globals ran and exited 0) or misreported (an empty code 1 was a bus
/// error). They are bad input naming the resource and the field; a failed
/// SysAppStartup (globals that do not fit) is a failed run.
#[test]
fn malformed_app_resources_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let rts = [0x4E, 0x75];
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "a5.prc",
            prc_with(&rts, app::code0(0x7FFF_FFFF, 0x7FFF_FFFF), vec![]),
            "code 0: the A5 world it asks for (above A5 2147483647 + below A5 2147483647 bytes) \
             is larger than the 262144-byte dynamic heap",
        ),
        (
            "short0.prc",
            prc_with(&rts, vec![0, 0, 0, 0], vec![]),
            "code 0 is 4 bytes, shorter than its first two fields",
        ),
        (
            "big1.prc",
            prc(&[0x4E, 0x71].repeat(40 * 1024)),
            "code 1: 81920 bytes, more than the 65505 bytes a chunk holds (memMaxChunkAllocSize)",
        ),
        (
            "empty1.prc",
            prc(&[]),
            "code 1 is 0 bytes: the app's entry point (its first instruction) is missing",
        ),
        (
            "stack.prc",
            prc_with(
                &rts,
                app::code0(0x28, 0),
                vec![Resource {
                    kind: FourCC::new(*b"pref"),
                    id: 0,
                    data: app::pref0(30, 0xFFFF_FFF0, 0x1000),
                }],
            ),
            "pref 0: stackSize 4294967280 (0xFFFFFFF0) is more than the 61440 bytes",
        ),
    ];
    for (name, bytes, want) in cases {
        let p = write(dir.path(), name, &bytes);
        let o = palm_run(&[&p]);
        assert_eq!(status(&o), 2, "{name}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!("palm-run: error: {p}: {want}")),
            "{err}"
        );
    }
    // Two code 1 resources: the second one's ID is patched in the entry list
    // (the PRC writer refuses duplicates).
    let mut dup = prc_with(
        &rts,
        app::code0(0x28, 0),
        vec![Resource {
            kind: FourCC::new(*b"code"),
            id: 2,
            data: rts.to_vec(),
        }],
    );
    let entry = 78 + 10 * 3;
    assert_eq!(&dup[entry..entry + 6], b"code\0\x02");
    dup[entry + 5] = 1;
    let p = write(dir.path(), "dup.prc", &dup);
    let o = palm_run(&[&p]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        format!("palm-run: error: {p}: duplicate resource code 1\n")
    );
    // Globals that fit the heap's size but not its free space: SysAppStartup
    // fails, the app cannot run: exit 1 with the reason. Code 1: link; three
    // pointers for SysAppStartup; trap; lea 12(sp),sp; unlk; rts.
    let startup = [
        0x4E, 0x56, 0xFF, 0xF4, 0x48, 0x6E, 0xFF, 0xF4, 0x48, 0x6E, 0xFF, 0xF8, 0x48, 0x6E, 0xFF,
        0xFC, 0x4E, 0x4F, 0xA0, 0x8F, 0x4F, 0xEF, 0x00, 0x0C, 0x4E, 0x5E, 0x4E, 0x75,
    ];
    let p = write(
        dir.path(),
        "globals.prc",
        &prc_with(&startup, app::code0(0x28, 250_000), vec![]),
    );
    let o = palm_run(&[&p]);
    assert_eq!(status(&o), 1, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains(
            "palm-run: SysAppStartup failed (memErrNotEnoughSpace): the app's globals, 250040 bytes"
        ),
        "{}",
        stdout(&o)
    );
}

/// Finding: `/dev/zero` as the app, `--events`, `--elf` or `--install` was
/// read until memory ran out. Inputs must be regular files of at most 64 MiB.
#[test]
fn special_and_huge_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "loop.prc", &palm_run::bench::loop_prc(1));
    for args in [
        vec!["/dev/zero"],
        vec![app.as_str(), "--events", "/dev/zero"],
        vec![app.as_str(), "--elf", "/dev/zero"],
        vec![app.as_str(), "--install", "/dev/zero"],
        vec![app.as_str(), "--install", dir.path().to_str().unwrap()],
    ] {
        let o = palm_run(&args);
        assert_eq!(status(&o), 2, "{args:?}");
        assert!(
            stderr(&o).contains(": not a regular file"),
            "{}",
            stderr(&o)
        );
    }
    let huge = dir.path().join("huge.pdb");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(64 * 1024 * 1024 + 1)
        .unwrap();
    let o = palm_run(&[&app, "--install", huge.to_str().unwrap()]);
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).contains("67108865 bytes, more than the 67108864 (64 MiB) palm-run reads"),
        "{}",
        stderr(&o)
    );
}

/// Findings: a deep recursion and a jump to NULL, as the CLI reports them.
#[test]
fn stack_overflow_and_null_jump_reports() {
    let dir = tempfile::tempdir().unwrap();
    // bsr.s to itself: pushes return addresses for ever.
    let deep = write(dir.path(), "deep.prc", &prc(&[0x61, 0xFE]));
    let o = palm_run(&[&deep]);
    assert_eq!(status(&o), 1);
    let out = stdout(&o);
    assert!(
        out.starts_with("palm-run: app stopped: stack overflow: SP 0x"),
        "{out}"
    );
    assert!(out.contains("below the 4096-byte stack at 0x"), "{out}");
    assert!(
        !out.contains("patched") && !out.contains("corrupt"),
        "{out}"
    );
    assert!(out.lines().count() < 30, "{out}");
    // suba.l a0,a0; jsr (a0); rts.
    let null = write(
        dir.path(),
        "null.prc",
        &prc(&[0x91, 0xC8, 0x4E, 0x90, 0x4E, 0x75]),
    );
    let o = palm_run(&[&null]);
    assert_eq!(status(&o), 1);
    let out = stdout(&o);
    assert!(
        out.starts_with(
            "palm-run: app stopped: jump to address 0 (a NULL function pointer)\n  at PC 0x00000000\n  called from 0x"
        ),
        "{out}"
    );
}

/// Findings of the second review: an output naming an input or another
/// output is refused before the run (exit 2, the app untouched); a fault is
/// the run's result (exit 1) even when an export then fails; TRAP #n other
/// than #15 and an exception frame pushed at an odd SP are reported, not
/// misread; events the app never asked for are counted; numeric options take
/// hexadecimal as scripts do.
#[test]
fn outputs_exit_priority_traps_and_unplayed_events() {
    let dir = tempfile::tempdir().unwrap();
    let rts = prc(&[0x4E, 0x75]);
    let app = write(dir.path(), "rts.prc", &rts);
    let script = write(dir.path(), "ev.txt", b"nil 3\nstop\n");

    let o = palm_run(&[&app, "--export", &format!("RtsApp={app}")]);
    assert_eq!(status(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "--export RtsApp={app}: {app} is the app, an input; palm-run will not overwrite it"
        )),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&app).unwrap(), rts, "the app is untouched");
    let o = palm_run(&[&app, "--events", &script, "--stats-json", &script]);
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).contains("is the --events script, an input"),
        "{}",
        stderr(&o)
    );
    let out = dir.path().join("out.pdb");
    let out = out.to_str().unwrap();
    let o = palm_run(&[&app, "--export", &format!("A={out}"), "--stats-json", out]);
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).contains(&format!(
            "--stats-json {out}: {out} is also the output of --export A={out}"
        )),
        "{}",
        stderr(&o)
    );
    assert!(!Path::new(out).exists());

    // move.w d0,(1): the fault decides the status; the export's error is shown too.
    let odd = write(
        dir.path(),
        "odd.prc",
        &prc(&[0x31, 0xC0, 0x00, 0x01, 0x4E, 0x75]),
    );
    let o = palm_run(&[&odd, "--export", &format!("NoSuchDB={out}")]);
    assert_eq!(status(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("palm-run: error: "), "{}", stderr(&o));
    assert!(stderr(&o).contains("NoSuchDB"), "{}", stderr(&o));
    // A failed exit check (a leaked chunk) decides it too.
    // move.l #16,-(sp); trap #15 MemPtrNew; addq.l #4,sp; rts
    let leak = write(
        dir.path(),
        "leak.prc",
        &prc(&[
            0x2F, 0x3C, 0, 0, 0, 16, 0x4E, 0x4F, 0xA0, 0x13, 0x58, 0x8F, 0x4E, 0x75,
        ]),
    );
    let o = palm_run(&[&leak, "--export", &format!("NoSuchDB={out}")]);
    assert_eq!(status(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).ends_with(
            "palm-run: exit status 1: 1 chunk left by the app (--allow-leaks accepts them)\n"
        ),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("palm-run: error: --export NoSuchDB: "),
        "{}",
        stderr(&o)
    );
    // Output paths that cannot be written are refused before the run.
    let d = dir.path().to_str().unwrap();
    let o = palm_run(&[&leak, "--stats-json", d]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        format!("palm-run: error: --stats-json {d}: {d} names a directory\n")
    );
    let long = "N".repeat(32);
    let o = palm_run(&[&leak, "--export", &format!("{long}=x.pdb")]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        format!(
            "palm-run: error: --export {long}=x.pdb: \"{long}\" is 32 bytes; a Palm database \
             name has at most 31\n"
        )
    );
    // A trailing slash names a directory too, existing or not; a "folder"
    // that is a file is not one.
    let o = palm_run(&[&leak, "--export", &format!("MemDbgDB={d}/new.pdb/")]);
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).ends_with("/new.pdb/ names a directory\n"),
        "{}",
        stderr(&o)
    );
    let o = palm_run(&[&leak, "--stats-json", &format!("{leak}/x.json")]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        format!("palm-run: error: --stats-json {leak}/x.json: {leak} is a file, not a folder\n")
    );
    // (A folder inside the test's own, not an absolute path some other
    // program may have made.)
    let o = palm_run(&[&leak, "--export", &format!("MemDbgDB={d}/missing/x.pdb")]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        format!(
            "palm-run: error: --export MemDbgDB={d}/missing/x.pdb: the folder \
             {d}/missing does not exist\n"
        )
    );
    assert!(!stdout(&o).contains("leak"), "refused before the run");
    // Without a fault, a missing database is bad input.
    let o = palm_run(&[&app, "--export", &format!("NoSuchDB={out}")]);
    assert_eq!(status(&o), 2, "{}", stderr(&o));

    // TRAP #4 and TRAP #0.
    for (n, op) in [(4u8, 0x44u8), (0, 0x40)] {
        let t = write(dir.path(), "trap.prc", &prc(&[0x4E, op, 0x4E, 0x75]));
        let o = palm_run(&[&t]);
        assert_eq!(status(&o), 1);
        assert!(
            stdout(&o).contains(&format!("TRAP #{n} (no handler on Palm OS)")),
            "{}",
            stdout(&o)
        );
    }
    // subq.l #1,sp; move.l d0,-(sp): an address error whose frame lands at
    // an odd SP is still reported with its PC (the move) and address.
    let oddsp = write(
        dir.path(),
        "oddsp.prc",
        &prc(&[0x53, 0x8F, 0x2F, 0x00, 0x4E, 0x75]),
    );
    let o = palm_run(&[&oddsp]);
    assert_eq!(status(&o), 1);
    assert!(
        stdout(&o).contains("address error: write at odd address 0x"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("at PC 0x"), "{}", stdout(&o));

    // An app that returns at once leaves the whole script unplayed.
    let stats = dir.path().join("s.json");
    let o = palm_run(&[
        &app,
        "--events",
        &script,
        "--stats-json",
        stats.to_str().unwrap(),
        "--max-instructions",
        "0x1000",
    ]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "palm-run: 4 scripted events were not played: the app returned before script line 1"
        ),
        "{}",
        stdout(&o)
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    assert_eq!(v["events_not_played"], 4);
    let o = palm_run(&[&app, "--max-instructions", "0xZZ"]);
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).contains("\"0xZZ\" is not a number"),
        "{}",
        stderr(&o)
    );
    let o = palm_run(&[&app, "--heap-size", "0x100000000"]);
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).contains("4294967296 is too large"),
        "{}",
        stderr(&o)
    );
}

/// Finding: "6 trap patchs left installed".
#[test]
fn trap_patches_are_spelled_right() {
    let dir = tempfile::tempdir().unwrap();
    // Patch SysRandom and SysTaskDelay: move.l #0x1000,-(sp);
    // move.w #trap,-(sp); trap #15 SysSetTrapAddress; addq.l #6,sp; twice; rts.
    let mut code = Vec::new();
    for trap in [0xA0C2u16, 0xA0A0] {
        code.extend([0x2F, 0x3C, 0, 0, 0x10, 0, 0x3F, 0x3C]);
        code.extend(trap.to_be_bytes());
        code.extend([0x4E, 0x4F, 0xA0, 0x92, 0x5C, 0x8F]);
    }
    code.extend([0x4E, 0x75]);
    let p = write(dir.path(), "patch.prc", &prc(&code));
    let o = palm_run(&[&p]);
    assert_eq!(status(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).ends_with("palm-run: exit status 1: 2 trap patches left installed\n"),
        "{}",
        stderr(&o)
    );
    let o = palm_run(&[&p, "--refuse-trap-patches"]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
}

/// Finding: a number too large for 64 bits "is not a number", while one too
/// large for the option "is too large"; a `--feature` value too large for 32
/// bits got only the format hint.
#[test]
fn numbers_that_overflow_are_too_large() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "loop.prc", &palm_run::bench::loop_prc(1));
    for (opt, v) in [
        ("--heap-size", "99999999999999999999"),
        ("--max-instructions", "0x10000000000000000"),
    ] {
        let o = palm_run(&[&app, opt, v]);
        assert_eq!(status(&o), 2);
        assert!(
            stderr(&o).contains(&format!("{v} is too large")),
            "{}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("not a number"), "{}", stderr(&o));
    }
    for (f, want) in [
        (
            "ABCD:0=99999999999",
            "--feature ABCD:0=99999999999: the value 99999999999 does not fit in 32 bits",
        ),
        (
            "ABCD:0=0x100000000",
            "--feature ABCD:0=0x100000000: the value 0x100000000 does not fit in 32 bits",
        ),
        (
            "ABCD:65536=1",
            "--feature ABCD:65536=1: the number 65536 does not fit in 16 bits",
        ),
    ] {
        let o = palm_run(&[&app, "--feature", f]);
        assert_eq!(status(&o), 2);
        assert!(
            stderr(&o).starts_with(&format!("palm-run: error: {want}")),
            "{}",
            stderr(&o)
        );
    }
    let o = palm_run(&[&app, "--feature", "ABCD:0=x"]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        "palm-run: error: --feature ABCD:0=x: expected CRID:NUM=VALUE (e.g. PRtt:0=7)\n"
    );
}

/// Finding: `--heap-size 16777216` alone was refused as "--ram-size 4194304:
/// RAM must be …", an option the user never gave. The message says the heap
/// does not fit in the default RAM.
#[test]
fn heap_size_alone_is_judged_against_the_default_ram() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "loop.prc", &palm_run::bench::loop_prc(1));
    let o = palm_run(&[&app, "--heap-size", "16777216"]);
    assert_eq!(status(&o), 2);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(
            "palm-run: error: --heap-size 16777216 does not fit in the default RAM \
             (--ram-size 4194304): "
        ),
        "{err}"
    );
    assert!(err.contains("16797696 to 33558528"), "{err}");
    // A RAM size the user gave is named as before.
    let o = palm_run(&[&app, "--ram-size", "270000"]);
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).starts_with("palm-run: error: --ram-size 270000: "),
        "{}",
        stderr(&o)
    );
}

/// Finding: an app whose database name has a byte ≥ 0x80 (a Windows-1252
/// name, as prc-tools and CodeWarrior write them) could not be launched:
/// the name was decoded as lossy UTF-8 and looked up as that text. Databases
/// are found by their name bytes, and messages show names as Windows-1252.
#[test]
fn windows_1252_database_names_launch() {
    let dir = tempfile::tempdir().unwrap();
    // moveq #7,d0; rts
    let bytes = prc_named(
        b"Caf\xE9App",
        &[0x70, 0x07, 0x4E, 0x75],
        app::code0(0x28, 0),
        vec![],
    );
    // The library: launched by the name's bytes.
    let mut m = palm_run::Machine::with_config(&palm_run::Config::default()).unwrap();
    m.install(&bytes).unwrap();
    assert_eq!(m.launch(b"Caf\xE9App").unwrap().result, Some(7));
    assert_eq!(
        m.launch(b"Caf\xE9").unwrap_err(),
        "no database named \"Caf\u{e9}\""
    );
    assert!(m.export(b"Caf\xE9App").is_ok());
    let cafe = write(dir.path(), "cafe.prc", &bytes);
    let o = palm_run(&[&cafe, "--allow-leaks"]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("palm-run: CaféApp returned 7 after "),
        "{}",
        stderr(&o)
    );
    // --export takes the name as text, in the Palm character set.
    let out = dir.path().join("out.prc");
    let o = palm_run(&[&cafe, "--export", &format!("CaféApp={}", out.display())]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    let back = Database::parse(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(back.header.name, b"Caf\xE9App");
    let o = palm_run(&[&cafe, "--export", &format!("Café€={}", out.display())]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        "palm-run: error: --export Café€: no database named \"Café€\"\n"
    );
    // A database named in UTF-8 by another tool is found too.
    let utf8 = Database::new_records(
        Header::new("Crème", FourCC::new(*b"DATA"), FourCC::new(*b"PRct")),
        vec![],
    );
    let utf8 = write(dir.path(), "utf8.pdb", &utf8.to_bytes().unwrap());
    let pdb = dir.path().join("out.pdb");
    let o = palm_run(&[
        &cafe,
        "--install",
        &utf8,
        "--export",
        &format!("Crème={}", pdb.display()),
    ]);
    assert_eq!(status(&o), 0, "{}", stderr(&o));
    let back = Database::parse(&std::fs::read(&pdb).unwrap()).unwrap();
    assert_eq!(back.header.name, "Crème".as_bytes());
    // 31 characters of the Palm character set are 31 bytes of a name.
    let long = "é".repeat(31);
    let o = palm_run(&[&cafe, "--export", &format!("{long}={}", out.display())]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        format!("palm-run: error: --export {long}: no database named \"{long}\"\n")
    );
    // Installed twice: the message names it as Windows-1252 text.
    let o = palm_run(&[&cafe, "--install", &cafe]);
    assert_eq!(status(&o), 2);
    assert_eq!(
        stderr(&o),
        format!("palm-run: error: {cafe}: database \"CaféApp\" is already installed\n")
    );
}

/// `palm-run` on the runtest app with `args`: status, stdout, stderr.
fn run_runtest(args: &[&str]) -> (i32, String, String) {
    let app = runtest_prc();
    let o = palm_run(&[&[app.to_str().unwrap()], args].concat());
    (status(&o), stdout(&o), stderr(&o))
}
#[test]
fn strict_behaviour_options() {
    // --fatal-alerts: scenario 13's ErrDisplayFileLineMsg ends the app.
    let (code, out, _) = run_runtest(&["--feature", "PRtt:0=13", "--fatal-alerts"]);
    assert_eq!(code, 1);
    assert!(
        out.contains(
            "palm-run: app stopped: fatal alert (reset): runtest.rs, Line:123, non-fatal note"
        ),
        "{out}"
    );
    let (code, _, _) = run_runtest(&["--feature", "PRtt:0=13"]);
    assert_eq!(code, 0, "alerts continue without it");
    // --missing-trap by name and by number.
    for t in ["DbgMessage", "0xA081"] {
        let (code, out, _) = run_runtest(&["--feature", "PRtt:0=9", "--missing-trap", t]);
        assert_eq!(code, 1);
        assert!(
            out.contains("palm-run: app stopped: unimplemented trap 0xA081 DbgMessage"),
            "{out}"
        );
    }
    let (code, _, err) = run_runtest(&["--missing-trap", "NoSuchTrap"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("\"NoSuchTrap\" is not a trap of palm-run's trap table"),
        "{err}"
    );
    // --opaque-handles with --nonfatal-checks: *h is the magic (feature 2).
    let (code, out, _) = run_runtest(&[
        "--feature",
        "PRtt:0=23",
        "--opaque-handles",
        "--nonfatal-checks",
        "--trace-traps",
    ]);
    assert_eq!(code, 1, "the second MemHandleFree is a report");
    assert!(
        out.contains(&format!(
            "FtrSet(creator=1347581044, featureNum=2, newValue={})",
            palm_run::handles::HANDLE_MAGIC
        )),
        "{out}"
    );
    // --release-frees-records and --strict-record-writes: scenario 24's
    // DmWrite through the kept pointer.
    for (opt, what) in [
        (
            "--release-frees-records",
            "recordP is the old buffer of record 0",
        ),
        (
            "--strict-record-writes",
            "record 0 of \"RtData\" is not busy",
        ),
    ] {
        let (code, out, _) = run_runtest(&["--feature", "PRtt:0=24", opt]);
        assert_eq!(code, 1);
        assert!(
            out.contains("palm-run: app stopped: debug ROM check: DmWrite("),
            "{out}"
        );
        assert!(out.contains(what), "{opt}: {out}");
    }
    // --pumpkin: all of PumpkinOS's at once (checks not fatal).
    let (code, out, _) = run_runtest(&["--feature", "PRtt:0=24", "--pumpkin"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("palm-run: DmWrite(0x"),
        "reported, not stopped: {out}"
    );
    assert!(!out.contains("app stopped"), "{out}");
}

/// `--then`: a second app runs on the device the first left (here the
/// runtest app after a loop that returns), each with its own result line and
/// instruction count, and `--show-drawing` prints what the second draws; a
/// fault of the second fails the run naming it; `--then-events` needs
/// `--then`, and `--export` never overwrites the `--then` app.
#[test]
fn then_runs_a_second_app_on_the_same_device() {
    let dir = tempfile::tempdir().unwrap();
    let first = write(dir.path(), "loop.prc", &palm_run::bench::loop_prc(1000));
    let runtest = runtest_prc();
    let o = palm_run(&[
        &first,
        "--then",
        runtest.to_str().unwrap(),
        "--feature",
        "PRtt:0=15",
        "--show-drawing",
    ]);
    assert_eq!(status(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("palm-run: BenchLoop returned 500500 after 4003 instructions\n"),
        "{err}"
    );
    assert!(err.contains("palm-run: RunTest returned 0 after "), "{err}");
    let out = stdout(&o);
    assert!(out.contains("Draw: ptr text\n"), "{out}");
    assert!(out.contains("Draw: drawn\n"), "{out}");
    // Without --show-drawing, nothing of it.
    let o = palm_run(&[
        &first,
        "--then",
        runtest.to_str().unwrap(),
        "--feature",
        "PRtt:0=15",
    ]);
    assert_eq!(status(&o), 0);
    assert!(!stdout(&o).contains("Draw: "), "{}", stdout(&o));

    // The second app faults: the run fails, naming it.
    let odd = write(
        dir.path(),
        "odd.prc",
        &prc_named(
            b"Odd",
            &[0x31, 0xC0, 0x00, 0x01, 0x4E, 0x75],
            app::code0(0x28, 0),
            vec![],
        ),
    );
    let o = palm_run(&[&first, "--then", &odd]);
    assert_eq!(status(&o), 1);
    assert!(
        stderr(&o).ends_with("palm-run: exit status 1: Odd was stopped\n"),
        "{}",
        stderr(&o)
    );

    let o = palm_run(&[&first, "--then-events", &first]);
    assert_eq!(status(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--then"), "{}", stderr(&o));
    let o = palm_run(&[
        &first,
        "--then",
        &odd,
        "--export",
        &format!("BenchLoop={odd}"),
    ]);
    assert_eq!(status(&o), 2);
    assert!(
        stderr(&o).contains("is the --then app, an input; palm-run will not overwrite it"),
        "{}",
        stderr(&o)
    );
}
