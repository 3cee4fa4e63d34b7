//! The `palm-rcp` command: one `.bin` per resource, PilRC's file names, exit
//! status 2 with one line `palm-rcp: error: file:line:column: message` on a
//! compile error (`file: message` for a file that cannot be read).

use std::process::Command;

const RCP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rsrc/StarterApp.rcp");

fn palm_rcp() -> Command {
    Command::new(env!("CARGO_BIN_EXE_palm-rcp"))
}

#[test]
fn writes_one_file_per_resource() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let status = palm_rcp()
        .arg(RCP)
        .arg("-o")
        .arg(&out)
        .arg("--quiet")
        .status()
        .unwrap();
    assert!(status.success());
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "MBAR03e8.bin",
            "Talt03e8.bin",
            "tAIB03e8.bin",
            "tAIB03e9.bin",
            "tAIN03e8.bin",
            "tFRM03e8.bin",
            "tver0001.bin"
        ]
    );
    for r in palm_rcp::compile_file(RCP).unwrap() {
        assert_eq!(std::fs::read(out.join(r.file_name())).unwrap(), r.data);
    }
}

#[test]
fn compile_errors_exit_2_with_position() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("Bad.rcp");
    std::fs::write(
        &bad,
        "FORM ID 1 AT (0 0 160 160)\nBEGIN\n    BUTTON \"OK\" AT (0 0 9 9)\nEND\n",
    )
    .unwrap();
    let output = palm_rcp()
        .arg(&bad)
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        format!(
            "palm-rcp: error: {}:3:17: expected ID after BUTTON \"OK\", found AT\n",
            bad.display()
        )
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn includes_from_search_dirs() {
    let dir = tempfile::tempdir().unwrap();
    let inc = dir.path().join("inc");
    std::fs::create_dir(&inc).unwrap();
    std::fs::write(inc.join("ids.h"), "#define Greeting 1234\n").unwrap();
    let src = dir.path().join("App.rcp");
    std::fs::write(&src, "#include \"ids.h\"\nSTRING ID Greeting \"hi\"\n").unwrap();
    let out = dir.path().join("out");
    let status = palm_rcp()
        .arg(&src)
        .args(["-q", "-I"])
        .arg(&inc)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read(out.join("tSTR04d2.bin")).unwrap(), b"hi\0");
}

/// Runs palm-rcp with `args`, killed after 30 s (an endless read is a failure,
/// not a hung test run).
fn run_within(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut child = palm_rcp()
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
            panic!("palm-rcp {args:?} still running after 30 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn devices_and_huge_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = out.as_os_str();
    let output = run_within(&["/dev/zero".as_ref(), "-o".as_ref(), o]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "palm-rcp: error: /dev/zero: cannot read file: a character device, not a source file: only regular \
         files are read\n"
    );
    // An #include of a device: the error is at the file name.
    let src = dir.path().join("App.rcp");
    std::fs::write(&src, "STRING ID 1 \"x\"\n  #include \"/dev/zero\"\n").unwrap();
    let output = run_within(&[src.as_os_str(), "-o".as_ref(), o]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!(
            "palm-rcp: error: {}:2:12: cannot read include file \"/dev/zero\": a character device, not a source \
             file: only regular files are read\n",
            src.display()
        )
    );
    // A directory, and a (sparse) file over 16 MiB.
    let output = run_within(&[dir.path().as_os_str(), "-o".as_ref(), o]);
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("a directory, not a source file")
    );
    let huge = dir.path().join("Huge.rcp");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(palm_rcp::MAX_SOURCE_FILE + 1)
        .unwrap();
    let output = run_within(&[huge.as_os_str(), "-o".as_ref(), o]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .ends_with("cannot read file: larger than 16 MiB, the limit for a source file\n")
    );
}

#[test]
fn the_output_must_be_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ok.rcp");
    std::fs::write(&file, "STRING ID 1 \"x\"\n").unwrap();
    let output = palm_rcp().arg(RCP).arg("-o").arg(&file).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!(
            "palm-rcp: error: -o {}: the output must be a directory (one .bin file per resource is \
             written in it), and this is a file\n",
            file.display()
        )
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"STRING ID 1 \"x\"\n");
}

#[test]
fn a_missing_file_exits_2_without_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("rsrc/MyApp.rcp");
    let output = palm_rcp()
        .arg(&missing)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "palm-rcp: error: {}: cannot read file: ",
            missing.display()
        )),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // Nothing was written in the current directory.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn bad_arguments_exit_2() {
    let output = palm_rcp().arg("--no-such-option").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let output = palm_rcp().output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    // A single-dash word is not read as short options ("unexpected argument '-b'").
    let output = palm_rcp().args(["-bogus", "x.rcp"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(
            "palm-rcp: error: unknown option '-bogus' (PilRC's single-dash options: -noEllipsis"
        ),
        "{stderr}"
    );
}

#[test]
fn without_o_the_files_go_to_the_current_directory_and_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("App.rcp");
    std::fs::write(&src, "STRING ID 1 \"x\"\nSTRING ID 2 \"y\"\n").unwrap();
    let output = palm_rcp()
        .arg("App.rcp")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "./tSTR0001.bin (2 bytes)\n./tSTR0002.bin (2 bytes)\npalm-rcp: 2 resource files \
         written in the current directory (no -o DIR given)\n"
    );
    assert_eq!(
        std::fs::read(dir.path().join("tSTR0001.bin")).unwrap(),
        b"x\0"
    );
    // With -o, the summary names the directory; -q prints nothing.
    let output = palm_rcp()
        .args(["App.rcp", "-o", "out"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        String::from_utf8(output.stdout)
            .unwrap()
            .ends_with("out/tSTR0002.bin (2 bytes)\npalm-rcp: 2 resource files written in out\n")
    );
    let output = palm_rcp()
        .args(["App.rcp", "-q", "-o", "out"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
}

/// `-ro`: one resource database instead of `.bin` files, named as PilRC
/// names it, with `-type`/`-creator`/`-name`; its resources are the
/// compile's, in order.
#[test]
fn ro_writes_one_resource_database() {
    let dir = tempfile::tempdir().unwrap();
    let rcp = dir.path().join("App.RCP");
    std::fs::copy(RCP, &rcp).unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../rsrc/StarterAppRsc.h"),
        dir.path().join("StarterAppRsc.h"),
    )
    .unwrap();
    // The launcher icons, by the paths the .rcp names (`icons/…`).
    let icons = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rsrc/icons");
    std::fs::create_dir(dir.path().join("icons")).unwrap();
    for e in std::fs::read_dir(icons).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.path().join("icons").join(e.file_name())).unwrap();
    }
    let run = |args: &[&str]| {
        palm_rcp()
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    // Without -o: the input's name, .RCP replaced by .ro.
    let out = run(&["-ro", "App.RCP"]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("App.ro ("));
    let db = palm_prc::Database::parse(&std::fs::read(dir.path().join("App.ro")).unwrap()).unwrap();
    assert_eq!(db.header.name, b"App.ro");
    assert_eq!(
        (db.header.kind.0, db.header.creator.0),
        (*b"RESO", *b"pRES")
    );
    assert_eq!(db.header.creation_date, palm_rcp::RO_DATE);
    let compiled = palm_rcp::compile_file(&rcp).unwrap();
    let got: Vec<_> = db
        .resources()
        .unwrap()
        .iter()
        .map(|r| (r.kind.0, r.id, r.data.clone()))
        .collect();
    let want: Vec<_> = compiled
        .iter()
        .map(|r| (r.kind, r.id, r.data.clone()))
        .collect();
    assert_eq!(got, want);
    // -o without an extension gets .ro; -type, -creator and -name.
    let out = run(&[
        "-q",
        "-ro",
        "-type",
        "rsrc",
        "-creator",
        "MDBG",
        "-name",
        "My resources",
        "App.RCP",
        "-o",
        "built",
    ]);
    assert!(out.status.success(), "{out:?}");
    assert!(out.stdout.is_empty());
    let db =
        palm_prc::Database::parse(&std::fs::read(dir.path().join("built.ro")).unwrap()).unwrap();
    assert_eq!(db.header.name, b"My resources");
    assert_eq!(
        (db.header.kind.0, db.header.creator.0),
        (*b"rsrc", *b"MDBG")
    );
    // A creator of 3 characters and -type without -ro are bad arguments.
    let out = run(&["-ro", "-creator", "MDB", "App.RCP"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not 4 characters"));
    let out = run(&["-type", "rsrc", "App.RCP"]);
    assert_eq!(out.status.code(), Some(2));
    // The output must not be a directory.
    std::fs::create_dir(dir.path().join("d.ro")).unwrap();
    let out = run(&["-ro", "App.RCP", "-o", "d.ro"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a directory"));
}
