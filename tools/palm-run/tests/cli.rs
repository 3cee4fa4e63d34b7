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
    Database::new_resources(
        Header::new("CliTest", app::APPL, FourCC::new(*b"PRct")),
        vec![
            Resource {
                kind: FourCC::new(*b"code"),
                id: 0,
                data: app::code0(0x28, 0),
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
        ],
    )
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
    let o = palm_run(&[&app, "--heap-size", "100"]);
    assert_eq!(status(&o), 2);
    assert_eq!(stderr(&o).lines().count(), 1);
    let o = palm_run(&[&app, "--no-such-flag"]);
    assert_eq!(status(&o), 2);
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
