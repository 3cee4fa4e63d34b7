//! The `memdbg` binary: exit statuses (0 clean, 1 leaks or errors, 2 unreadable
//! input), report and diff output, `--json`, `--min-size`, `--suppress`, the
//! zip path, error messages on stderr, and the hidden bench command.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

fn memdbg(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memdbg"))
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn exit_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let clean = write(dir.path(), "clean.pdb", &pdb_of(&clean_records()));
    let out = memdbg(&["report".as_ref(), &clean]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).ends_with("\nSUMMARY: memdbg: no leaks.\n"));
    assert!(out.stderr.is_empty());

    let leaky = write(dir.path(), "leaky.pdb", &pdb_of(&leaks_only()));
    let out = memdbg(&["report".as_ref(), &leaky]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).ends_with("\nSUMMARY: memdbg: 72 byte(s) leaked in 2 allocation(s).\n")
    );

    // Overruns and double frees count as errors even when leaks are hidden.
    let sample = write(dir.path(), "sample.pdb", &pdb_of(&sample_records()));
    let out = memdbg(&[
        "report".as_ref(),
        &sample,
        "--min-size".as_ref(),
        "100000".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(1));

    let bad = write(dir.path(), "bad.pdb", b"definitely not a database");
    let out = memdbg(&["report".as_ref(), &bad]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        text(&out.stderr),
        format!(
            "memdbg: error: {}: not a Palm database (.pdb): file is 25 bytes, shorter than the \
             78-byte database header\n",
            bad.display()
        )
    );
    let out = memdbg(&["report".as_ref(), &dir.path().join("missing.pdb")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("missing.pdb: cannot read: "));

    // Truncated record: the message names file and offset.
    let mut recs = leaks_only();
    recs[2].truncate(50);
    let trunc = write(dir.path(), "trunc.pdb", &pdb_of(&recs));
    let out = memdbg(&["report".as_ref(), &trunc]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.starts_with(&format!("memdbg: error: {}: offset 0x", trunc.display())),
        "{err}"
    );
    assert!(err.contains("record 2 (handle): truncated record"), "{err}");

    // Bad arguments: clap's usage error, status 2 as well.
    let out = memdbg(&["report".as_ref()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn min_size_and_suppressions() {
    let dir = tempfile::tempdir().unwrap();
    let leaky = write(dir.path(), "leaky.pdb", &pdb_of(&leaks_only()));
    let out = memdbg(&[
        "report".as_ref(),
        &leaky,
        "--min-size".as_ref(),
        "9".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let t = text(&out.stdout);
    // The leak keeps its allocation's number (#2, as memdbg's DbgMessage line
    // says) when the one before it is below --min-size.
    assert!(
        t.contains("Leak #2 (1 of 1): Relocatable chunk (handle) leaked at 0x00011100, size = 64")
    );
    assert!(t.ends_with(
        "SUMMARY: memdbg: 64 byte(s) leaked in 1 allocation(s); 8 byte(s) in 1 allocation(s) \
         below --min-size 9.\n"
    ));

    let supp = write(
        dir.path(),
        "known.supp",
        b"# accepted\nsrc/a.rs:1\nleak:b.rs:2\n",
    );
    let out = memdbg(&["report".as_ref(), &leaky, "--suppress".as_ref(), &supp]);
    assert_eq!(out.status.code(), Some(0), "all leaks suppressed");
    let t = text(&out.stdout);
    assert!(t.contains(
        "Suppressions used:\n  1 leak (8 bytes): src/a.rs:1\n  1 leak (64 bytes): b.rs:2\n"
    ));
    assert!(t.ends_with("SUMMARY: memdbg: no leaks; 72 byte(s) in 2 allocation(s) suppressed.\n"));

    // A malformed line is an error naming FILE:LINE, not a pattern that
    // silently matches nothing.
    for (line, why) in [
        ("not a pattern", "`not a pattern` has spaces"),
        (
            "myapp/src/lib.rs:abc",
            "`abc` in `myapp/src/lib.rs:abc` is not a line number (FILE:LINE, LINE from 1)",
        ),
        (
            "lib.rs:26:5",
            "`lib.rs:26:5` has a column: suppressions match FILE:LINE, write `lib.rs:26`",
        ),
    ] {
        let bad = write(
            dir.path(),
            "bad.supp",
            format!("# known\nsrc/a.rs:1\n{line}\n").as_bytes(),
        );
        let out = memdbg(&["report".as_ref(), &leaky, "--suppress".as_ref(), &bad]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(out.stdout, b"");
        assert_eq!(
            text(&out.stderr),
            format!(
                "memdbg: error: {}:3: {why}; a line is FILE:LINE (src/starter.rs:42) or a \
                 function name (make_cache, starter_app::make_cache, starter_app::*::leak*), \
                 optionally after `leak:`; blank lines and lines starting with # are ignored\n",
                bad.display()
            )
        );
    }
}

#[test]
fn json_output() {
    let dir = tempfile::tempdir().unwrap();
    let sample = write(dir.path(), "sample.pdb", &pdb_of(&sample_records()));
    let out = memdbg(&["report".as_ref(), &sample, "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "memdbg-report/1");
    assert_eq!(v["summary"]["leaks"], 5);
    assert_eq!(v["summary"]["exit_status"], 1);
    assert_eq!(v["symbols"], serde_json::Value::Null);
    assert_eq!(
        v["warnings"][0],
        "no symbols (--elf APP.elf): call stacks are shown as code 1 offsets"
    );
}

#[test]
fn cloudpilot_backup_zip() {
    let dir = tempfile::tempdir().unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    for (name, data) in [
        ("Launcher.prc", b"launcher".to_vec()),
        ("MemDbgDB.pdb", pdb_of(&leaks_only())),
        ("Memo_Pad.pdb", b"memo".to_vec()),
    ] {
        zip.start_file(name, opts).unwrap();
        zip.write_all(&data).unwrap();
    }
    let backup = write(
        dir.path(),
        "backup.zip",
        &zip.finish().unwrap().into_inner(),
    );
    let out = memdbg(&["report".as_ref(), &backup]);
    assert_eq!(out.status.code(), Some(1));
    let t = text(&out.stdout);
    assert!(
        t.starts_with(&format!(
            "memdbg report of {} (MemDbgDB.pdb)\n",
            backup.display()
        )),
        "{t}"
    );
    assert!(t.ends_with("SUMMARY: memdbg: 72 byte(s) leaked in 2 allocation(s).\n"));
}

#[test]
fn diff_command() {
    let dir = tempfile::tempdir().unwrap();
    let clean = write(dir.path(), "gen1.pdb", &pdb_of(&clean_records()));
    let leaky = write(dir.path(), "gen2.pdb", &pdb_of(&leaks_only()));
    let out = memdbg(&["diff".as_ref(), &clean, &leaky]);
    assert_eq!(out.status.code(), Some(1), "leaks appeared");
    let t = text(&out.stdout);
    assert!(
        t.contains("  +1 leak (0 → 1), +64 bytes, from src/b.rs:2 (handle)\n    #0 0x00000020\n"),
        "{t}"
    );
    assert!(t.ends_with(
        "SUMMARY: memdbg diff: 72 byte(s) in 2 allocation(s) appeared, 0 byte(s) in 0 \
         allocation(s) disappeared.\n"
    ));
    let out = memdbg(&["diff".as_ref(), &leaky, &clean]);
    assert_eq!(out.status.code(), Some(0), "leaks only disappeared");
    let out = memdbg(&["diff".as_ref(), &leaky, &clean, "--json".as_ref()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["disappeared_leaks"], 2);
    let bad = write(dir.path(), "bad.pdb", b"xx");
    let out = memdbg(&["diff".as_ref(), &leaky, &bad]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bench_command() {
    let out = memdbg(&["bench".as_ref(), "--records".as_ref(), "3000".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(t.starts_with("memdbg bench: 3000 records ("), "{t}");
    assert!(t.contains("read .pdb (3000 recs)"), "{t}");
    assert!(t.contains("report of 3000 records: "), "{t}");
    // Hidden from the help.
    let help = memdbg(&["--help".as_ref()]);
    assert!(!text(&help.stdout).contains("bench"));
}

/// Runs `memdbg ARGS`, killed after 30 s (a read that never ends is a failure,
/// not a hung test run).
fn memdbg_within(args: &[&Path]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_memdbg"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(30) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("memdbg {args:?} still running after 30 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Exit status 2 and one line on stderr that contains `what`.
fn refused(out: &Output, what: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(what), "{err}");
}

#[test]
fn devices_fifos_directories_and_huge_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pdb = write(dir.path(), "ok.pdb", &pdb_of(&leaks_only()));
    let zero: &Path = "/dev/zero".as_ref();
    let device = "/dev/zero: a character device, not";
    refused(&memdbg_within(&["report".as_ref(), zero]), device);
    refused(
        &memdbg_within(&["report".as_ref(), &pdb, "--elf".as_ref(), zero]),
        "/dev/zero: a character device, not an ELF file: only regular files are read",
    );
    refused(
        &memdbg_within(&["report".as_ref(), &pdb, "--suppress".as_ref(), zero]),
        "/dev/zero: a character device, not a suppression file",
    );
    refused(&memdbg_within(&["diff".as_ref(), &pdb, zero]), device);
    refused(
        &memdbg_within(&["report".as_ref(), dir.path()]),
        ": a directory, not a MemDbgDB .pdb or a CloudpilotEmu backup .zip",
    );
    // A FIFO without a writer: refused before it is opened (opening would block).
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    refused(&memdbg_within(&["report".as_ref(), &fifo]), ": a FIFO, not");
    // A (sparse) file just over the limit.
    let huge = dir.path().join("huge.pdb");
    let f = std::fs::File::create(&huge).unwrap();
    f.set_len(memdbg_report::MAX_LEDGER_FILE + 1).unwrap();
    refused(
        &memdbg_within(&["report".as_ref(), &huge]),
        "67108865 bytes or more, larger than the 64 MiB limit for a MemDbgDB .pdb or a \
         CloudpilotEmu backup .zip",
    );
    let huge_elf = dir.path().join("huge.elf");
    std::fs::File::create(&huge_elf)
        .unwrap()
        .set_len(memdbg_report::MAX_ELF_FILE + 1)
        .unwrap();
    refused(
        &memdbg_within(&["report".as_ref(), &pdb, "--elf".as_ref(), &huge_elf]),
        "larger than the 64 MiB limit for an ELF file",
    );
}

/// `leaks_only` as app "MyApp" ('MyAp').
fn other_app() -> Vec<Vec<u8>> {
    let mut recs = leaks_only();
    recs[0][24..28].copy_from_slice(b"MyAp");
    recs[0][28..60].fill(0);
    recs[0][28..33].copy_from_slice(b"MyApp");
    recs
}

#[test]
fn diff_refuses_two_apps_and_warns_about_two_builds() {
    let dir = tempfile::tempdir().unwrap();
    let starter = write(dir.path(), "starter.pdb", &pdb_of(&clean_records()));
    let mine = write(dir.path(), "mine.pdb", &pdb_of(&other_app()));
    let out = memdbg(&["diff".as_ref(), &starter, &mine]);
    refused(
        &out,
        &format!(
            "memdbg: error: {}: a ledger of app \"MyApp\" (creator 'MyAp') but {} is of app \
             \"StarterApp\" (creator 'MDst'): memdbg diff compares two runs of one app",
            mine.display(),
            starter.display()
        ),
    );
    // Another build of the same app: compared, with a warning.
    let mut rebuilt = leaks_only();
    rebuilt[0][152..156].copy_from_slice(&0x0BAD_C0DEu32.to_be_bytes());
    let rebuilt = write(dir.path(), "rebuilt.pdb", &pdb_of(&rebuilt));
    let out = memdbg(&["diff".as_ref(), &starter, &rebuilt]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    let warning = format!(
        "warning: the ledgers were written by different builds of the app (code 1 has CRC-32 \
         0x{SAMPLE_CRC:08X} in {} and 0x0BADC0DE in {}): wrapper sites still match by file \
         and line, but Rust allocations are matched by code 1 offsets, which move between \
         builds\n",
        starter.display(),
        rebuilt.display()
    );
    assert!(t.contains(&warning), "{t}");
    let out = memdbg(&["diff".as_ref(), &starter, &rebuilt, "--json".as_ref()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["warnings"].as_array().unwrap().len(), 1);
    // The same build: no warning.
    let leaky = write(dir.path(), "leaky.pdb", &pdb_of(&leaks_only()));
    let out = memdbg(&["diff".as_ref(), &starter, &leaky]);
    assert!(!text(&out.stdout).contains("warning:"));
}

fn zip_of(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    for (name, data) in members {
        zip.start_file(*name, opts).unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn an_ambiguous_backup_is_refused_unless_a_member_is_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let backup = write(
        dir.path(),
        "two.zip",
        &zip_of(&[
            ("a/MemDbgDB.pdb", pdb_of(&clean_records())),
            ("b/MemDbgDB.pdb", pdb_of(&leaks_only())),
        ]),
    );
    refused(
        &memdbg(&["report".as_ref(), &backup]),
        &format!(
            "memdbg: error: {}: 2 members are MemDbgDB.pdb (a/MemDbgDB.pdb, b/MemDbgDB.pdb): \
             ambiguous; choose one with --member PATH",
            backup.display()
        ),
    );
    let member = |m: &str| memdbg(&["report".as_ref(), &backup, "--member".as_ref(), m.as_ref()]);
    let out = member("b/MemDbgDB.pdb");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with(&format!(
        "memdbg report of {} (b/MemDbgDB.pdb)\n",
        backup.display()
    )));
    assert_eq!(member("a/MemDbgDB.pdb").status.code(), Some(0));
    refused(
        &member("c/MemDbgDB.pdb"),
        "no member c/MemDbgDB.pdb in this backup (it holds a/MemDbgDB.pdb, b/MemDbgDB.pdb)",
    );
    // --member is for backups.
    let pdb = write(dir.path(), "one.pdb", &pdb_of(&leaks_only()));
    refused(
        &memdbg(&["report".as_ref(), &pdb, "--member".as_ref(), "x".as_ref()]),
        "--member x chooses a member of a backup .zip, but this is not a zip archive",
    );
    // diff: the member is read from each backup; a .pdb is read as it is.
    let out = memdbg(&[
        "diff".as_ref(),
        &pdb,
        &backup,
        "--member".as_ref(),
        "b/MemDbgDB.pdb".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    refused(
        &memdbg(&[
            "diff".as_ref(),
            &pdb,
            &pdb,
            "--member".as_ref(),
            "x".as_ref(),
        ]),
        "but neither OLD nor NEW is a zip archive",
    );
}

/// Finding: `memdbg report` printed app and file names from the ledger as
/// they were, so a ledger could drive the terminal. Its stdout and stderr
/// carry no control character but line feeds.
#[test]
fn no_control_characters_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let pdb = write(dir.path(), "hostile.pdb", &pdb_of(&hostile_records()));
    let out = memdbg(&["report".as_ref(), &pdb]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_no_control_characters(&stdout);
    assert!(stdout.contains("App       \\x1b[31mXX\\x1b[m (creator 'MDst')\n"));
    // An error quoting a zip member's name.
    let backup = write(
        dir.path(),
        "b.zip",
        &zip_of(&[("\x1b]0;PWN\x07.pdb", b"not a ledger".to_vec())]),
    );
    let out = memdbg(&["report".as_ref(), &backup]);
    assert_no_control_characters(&text(&out.stderr));
    refused(&out, "(it holds \\x1b]0;PWN\\x07.pdb)");
}
