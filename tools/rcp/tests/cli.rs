//! The `palm-rcp` command: one `.bin` per resource, PilRC's file names, exit
//! status 1 with `file:line:column: message` on a compile error.

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
fn compile_errors_exit_1_with_position() {
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
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr.trim_end(),
        format!(
            "{}:3:17: expected ID after BUTTON \"OK\", found AT",
            bad.display()
        )
    );
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
