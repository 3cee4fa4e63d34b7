//! palm-build's exit status and first message line for each setup mistake
//! and other bad input: the `palm-build` binary on a small app crate of its
//! own workspace (in a temporary directory), whose setup each test breaks in
//! one way. Every one is bad input: exit status 2, `palm-build: error:`
//! naming the file, what is wrong and, on the lines after, what to copy.
//! None of these runs rustc: the checks come before the build.

use std::path::{Path, PathBuf};
use std::process::Command;

use palm_build::setup;

/// A workspace with a complete setup; `manifest` and `toolchain` replace the
/// crate's `Cargo.toml` and `rust-toolchain.toml` (`None`: no toolchain file).
struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

fn manifest(cargo_features: bool, profile: &str, crate_type: &str) -> String {
    format!(
        "{}\n[package]\nname = \"setup-app\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
         [lib]\ncrate-type = {crate_type}\n\n[package.metadata.palm]\ncreator = \"StAp\"\n\n\
         [workspace]\n\n{profile}",
        if cargo_features {
            setup::cargo_features_line()
        } else {
            String::new()
        }
    )
}

fn good_manifest() -> String {
    manifest(true, &setup::profile_snippet(), "[\"staticlib\"]")
}

impl Setup {
    fn new(manifest: &str, toolchain: Option<&str>) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("Cargo.toml"), manifest).unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "#![no_std]\n").unwrap();
        if let Some(t) = toolchain {
            std::fs::write(root.join("rust-toolchain.toml"), t).unwrap();
        }
        Setup { _dir: dir, root }
    }

    fn path(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }

    /// `palm-build app` on the crate: (exit status, stderr).
    fn app(&self, env: &[(&str, &str)]) -> (Option<i32>, String) {
        run(
            &["app", "--manifest-path", &self.path("Cargo.toml")],
            env,
            &self.root,
        )
    }
}

fn run(args: &[&str], env: &[(&str, &str)], dir: &Path) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_palm-build"));
    cmd.args(args).current_dir(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts exit status 2 and the first line of stderr; returns stderr.
fn bad_input(result: (Option<i32>, String), first_line: &str) -> String {
    let (code, stderr) = result;
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().next(), Some(first_line), "{stderr}");
    stderr
}

fn pinned() -> String {
    setup::pinned_channel()
}

#[test]
fn no_toolchain_file_names_the_pinned_nightly_and_the_lines_to_copy() {
    let s = Setup::new(&good_manifest(), None);
    let err = bad_input(
        s.app(&[]),
        &format!(
            "palm-build: error: {}: no rust-toolchain.toml here or above: palm-build needs the \
             pinned toolchain {}; create {} with these lines:",
            s.root.display(),
            pinned(),
            s.path("rust-toolchain.toml")
        ),
    );
    assert!(
        err.contains(&format!(
            "    [toolchain]\n    channel = \"{}\"\n",
            pinned()
        )),
        "{err}"
    );
}

#[test]
fn another_nightly_in_the_toolchain_file_is_refused() {
    let s = Setup::new(
        &good_manifest(),
        Some("[toolchain]\nchannel = \"nightly-2026-05-19\"\n"),
    );
    let err = bad_input(
        s.app(&[]),
        &format!(
            "palm-build: error: {}: channel = \"nightly-2026-05-19\", but palm-build needs the \
             pinned toolchain {} (other toolchains miscompile or crash on the 68000: \
             docs/TOOLCHAIN.md); write this line under [toolchain]:",
            s.path("rust-toolchain.toml"),
            pinned()
        ),
    );
    assert!(
        err.contains(&format!("    channel = \"{}\"", pinned())),
        "{err}"
    );
}

#[test]
fn rustup_toolchain_naming_another_toolchain_is_refused() {
    let s = Setup::new(&good_manifest(), Some(setup::TOOLCHAIN_FILE));
    bad_input(
        s.app(&[("RUSTUP_TOOLCHAIN", "stable")]),
        &format!(
            "palm-build: error: RUSTUP_TOOLCHAIN=stable is set: it overrides {} and palm-build \
             needs the pinned toolchain {}; unset it (or run palm-build without `cargo \
             +stable`)",
            s.path("rust-toolchain.toml"),
            pinned()
        ),
    );
}

#[test]
fn missing_cargo_features_gives_the_line_to_copy() {
    let s = Setup::new(
        &manifest(false, &setup::profile_snippet(), "[\"staticlib\"]"),
        Some(setup::TOOLCHAIN_FILE),
    );
    let err = bad_input(
        s.app(&[]),
        &format!(
            "palm-build: error: {0}: cargo-features lacks \"panic-immediate-abort\" and \
             \"profile-rustflags\" (palm-build's profile needs panic = \"immediate-abort\" and \
             per-package rustflags); put this line at the top of {0}, before any table:",
            s.path("Cargo.toml")
        ),
    );
    assert!(
        err.contains(&format!("    {}\n", setup::cargo_features_line())),
        "{err}"
    );
}

#[test]
fn missing_profile_gives_the_table_to_copy() {
    let s = Setup::new(
        &manifest(true, "", "[\"staticlib\"]"),
        Some(setup::TOOLCHAIN_FILE),
    );
    let err = bad_input(
        s.app(&[]),
        &format!(
            "palm-build: error: {0}: no [profile.palm]: palm-build compiles 68k code with that \
             profile; copy this table into {0}:",
            s.path("Cargo.toml")
        ),
    );
    assert!(
        err.contains("    [profile.palm]\n    inherits = \"release\"\n"),
        "{err}"
    );
}

#[test]
fn an_incomplete_profile_names_each_setting() {
    let profile = setup::profile_snippet()
        .replace("inherits = \"release\"\n", "")
        .replace("lto = true", "lto = false");
    let s = Setup::new(
        &manifest(true, &profile, "[\"staticlib\"]"),
        Some(setup::TOOLCHAIN_FILE),
    );
    bad_input(
        s.app(&[]),
        &format!(
            "palm-build: error: {}: [profile.palm] has no inherits where palm-build needs \
             inherits = \"release\" (cargo requires it of a custom profile); lto = false where \
             palm-build needs lto = true (whole-program LTO puts the whole program into the one \
             assembly file palm-build links); the table palm-build expects is:",
            s.path("Cargo.toml")
        ),
    );
}

#[test]
fn the_crate_type_must_be_staticlib_alone() {
    for (crate_type, why) in [
        (
            "[\"staticlib\", \"rlib\"]",
            "the 68k crate's crate-type must be exactly [\"staticlib\"], not [\"staticlib\", \
             \"rlib\"]: with another type rustc does not put the whole program (LTO) into the \
             assembly palm-build links; test host code from a separate crate",
        ),
        (
            "[\"rlib\"]",
            "no library target with crate-type \"staticlib\": a 68k crate needs [lib] \
             crate-type = [\"staticlib\"]",
        ),
    ] {
        let s = Setup::new(
            &manifest(true, &setup::profile_snippet(), crate_type),
            Some(setup::TOOLCHAIN_FILE),
        );
        bad_input(
            s.app(&[]),
            &format!("palm-build: error: {}: {why}", s.path("Cargo.toml")),
        );
    }
}

#[test]
fn bad_settings_and_a_broken_rcp_are_bad_input_before_any_build() {
    let s = Setup::new(
        &good_manifest().replace("creator = \"StAp\"", "creator = \"toolong\""),
        Some(setup::TOOLCHAIN_FILE),
    );
    let (code, err) = s.app(&[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.starts_with(&format!(
            "palm-build: error: {}: [package.metadata.palm] creator \"toolong\": ",
            s.path("Cargo.toml")
        )),
        "{err}"
    );
    let s = Setup::new(
        &good_manifest().replace(
            "creator = \"StAp\"",
            "creator = \"StAp\"\nresources = [\"app.rcp\"]",
        ),
        Some(setup::TOOLCHAIN_FILE),
    );
    std::fs::write(
        s.root.join("app.rcp"),
        "FORM ID 1000 AT (0 0 160 160)\nBEGIN\n",
    )
    .unwrap();
    let (code, err) = s.app(&[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.starts_with(&format!("palm-build: error: {}:", s.path("app.rcp"))),
        "{err}"
    );
}

#[test]
fn missing_files_are_bad_input_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let missing = d.join("missing").display().to_string();
    let first = |r: (Option<i32>, String)| -> String {
        assert_eq!(r.0, Some(2), "{}", r.1);
        r.1.lines().next().unwrap_or("").to_string()
    };
    assert_eq!(
        first(run(&["app", "--manifest-path", &missing], &[], d)),
        format!(
            "palm-build: error: {missing}: no such manifest: No such file or directory (os error 2)"
        )
    );
    assert_eq!(
        first(run(&["verify", &missing], &[], d)),
        format!(
            "palm-build: error: {missing}: cannot read it: No such file or directory (os error 2)"
        )
    );
    std::fs::write(d.join("text.o"), "not an object").unwrap();
    let text = d.join("text.o").display().to_string();
    assert!(
        first(run(&["verify", &text], &[], d))
            .starts_with(&format!("palm-build: error: {text}: not an ELF file: ")),
    );
    assert!(
        first(run(
            &[
                "c-app",
                &text,
                "--name",
                "X",
                "--creator",
                "XxXx",
                "-o",
                "x.prc"
            ],
            &[],
            d
        ))
        .starts_with(&format!(
            "palm-build: error: {text}: not an ELF object or archive: "
        )),
    );
    assert_eq!(
        first(run(
            &[
                "c-app",
                &missing,
                "--name",
                "X",
                "--creator",
                "XxXx",
                "-o",
                "x.prc"
            ],
            &[],
            d
        )),
        format!(
            "palm-build: error: {missing}: cannot read it: No such file or directory (os error 2)"
        )
    );
    assert_eq!(
        first(run(&["ids", &missing], &[], d)),
        format!(
            "palm-build: error: {missing}: cannot read file: No such file or directory (os error 2)"
        )
    );
    // Bad arguments: clap's usage error, exit 2 as well.
    assert_eq!(run(&["app", "--no-such-flag"], &[], d).0, Some(2));
}

#[test]
fn ids_writes_the_rcp_defines_as_a_c_header_or_a_rust_module() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("App.rcp"),
        "#define MainForm 1000\n#define MainOK (MainForm + 1)\nVERSION \"1.0\"\n",
    )
    .unwrap();
    let (code, err) = run(&["ids", "--c", "App.rcp", "-o", "build/AppRsc.h"], &[], d);
    assert_eq!(code, Some(0), "{err}");
    let h = std::fs::read_to_string(d.join("build/AppRsc.h")).unwrap();
    assert!(h.contains("#ifndef APPRSC_H\n"), "{h}");
    assert!(h.contains("#define MainOK 1001 /* App.rcp:2 */\n"), "{h}");
    let out = Command::new(env!("CARGO_BIN_EXE_palm-build"))
        .args(["ids", "App.rcp"])
        .current_dir(d)
        .output()
        .unwrap();
    let rust = String::from_utf8_lossy(&out.stdout);
    assert!(rust.contains("pub const MainOK: u16 = 1001;"), "{rust}");
}
