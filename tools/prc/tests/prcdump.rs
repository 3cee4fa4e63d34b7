//! The `prcdump` example as a program: its output, and a reader that goes away
//! early (`prcdump FILE | head`) ends it quietly instead of a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use palm_prc::{Database, FourCC, Header, Record};

/// Builds the example (cargo reports where) and returns its path.
fn prcdump() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "palm-prc",
            "--example",
            "prcdump",
            "--message-format=json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"reason\":\"compiler-artifact\"") && l.contains("prcdump"))
        .find_map(|l| {
            let at = l.find("\"executable\":\"")? + "\"executable\":\"".len();
            let end = l[at..].find('"')?;
            Some(PathBuf::from(&l[at..at + end]))
        })
        .expect("cargo names the prcdump executable")
}

/// A record database with `n` records: a dump of many lines.
fn database(dir: &Path, n: u32) -> PathBuf {
    let header = Header::new("Many", FourCC::new(*b"DATA"), FourCC::new(*b"Test"));
    let records = (1..=n)
        .map(|unique_id| Record {
            attributes: 0,
            unique_id,
            data: vec![0; 4],
        })
        .collect();
    let path = dir.join("Many.pdb");
    std::fs::write(
        &path,
        Database::new_records(header, records).to_bytes().unwrap(),
    )
    .unwrap();
    path
}

#[test]
fn prints_the_entries() {
    let dir = tempfile::tempdir().unwrap();
    let pdb = database(dir.path(), 3);
    let out = Command::new(prcdump()).arg(&pdb).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("  name        \"Many\"\n"), "{text}");
    // Header::new leaves every date 0, Palm OS's "never".
    assert!(
        text.contains("  created     never\n  modified    never\n  backed up   never\n"),
        "{text}"
    );
    assert!(text.ends_with(
        "  3 records\n    id 0x000001  attributes 0x00 (category 0)  4 bytes\n    id 0x000002  \
         attributes 0x00 (category 0)  4 bytes\n    id 0x000003  attributes 0x00 (category 0)  \
         4 bytes\n"
    ));
    // A bad file: an error on stderr, status 1, the good one still dumped.
    let bad = dir.path().join("bad.pdb");
    std::fs::write(&bad, b"short").unwrap();
    let out = Command::new(prcdump())
        .arg(&bad)
        .arg(&pdb)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .starts_with("prcdump: ")
    );
    assert!(String::from_utf8(out.stdout).unwrap().contains("3 records"));
}

#[test]
fn a_closed_pipe_ends_it_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let pdb = database(dir.path(), 5000);
    // The reader is gone before prcdump writes: every write fails with EPIPE
    // (Rust programs ignore SIGPIPE).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(prcdump())
        .arg(&pdb)
        .arg(&pdb)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr, "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn devices_are_refused_not_read_forever() {
    let out = Command::new(prcdump())
        .arg("/dev/zero")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/dev/zero: not a regular file"), "{err}");
}

#[test]
fn a_set_date_is_converted_and_zero_is_never() {
    let dir = tempfile::tempdir().unwrap();
    let mut header = Header::new("Dated", FourCC::new(*b"DATA"), FourCC::new(*b"Test"));
    // 2000-01-01 00:00:00 UTC; the backup date stays 0.
    header.creation_date = 0xB492_F400;
    header.modification_date = 1;
    let path = dir.path().join("Dated.pdb");
    std::fs::write(
        &path,
        Database::new_records(header, Vec::new())
            .to_bytes()
            .unwrap(),
    )
    .unwrap();
    let out = Command::new(prcdump()).arg(&path).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "  created     0xB492F400 (Unix 946684800)\n  modified    0x00000001 (Unix \
             -2082844799)\n  backed up   never\n"
        ),
        "{text}"
    );
}
