//! Stage 1: compile a no_std crate for the 68000 with cargo and collect the
//! assembly the rest of the pipeline works on.
//!
//! - The top crate (a `staticlib`, built with whole-program LTO) is compiled
//!   with `cargo rustc … -- --emit=asm=<file>,link`: its `.s` holds every
//!   function of the program after LTO (core, alloc, palm-sys, memdbg, the app),
//!   except compiler_builtins, which rustc never includes in LTO.
//! - compiler_builtins gets `--emit=asm,link` through a `--config` profile
//!   override (`profile.palm.package.compiler_builtins.rustflags`); its `.s` is found
//!   next to its rlib (from cargo's JSON artifact messages). It gets the IR
//!   dump flags below too.
//! - The top crate also gets `-C llvm-args=-print-after=codegenprepare,finalize-isel`:
//!   the IR just before instruction selection and the machine IR just after
//!   it, which [`crate::ircheck`] scans.
//! - Hand-written 68000 assembly: every crate of the build may list GNU as
//!   source files in its Cargo.toml, `asm = ["asm/alloc.s", …]` under
//!   `[package.metadata.palm]` (paths relative to that Cargo.toml). They are
//!   found here ([`Compiled::asm_sources`]: the crates cargo reports building,
//!   their settings from `cargo metadata`) and assembled into the image or
//!   archive by [`crate::link`], with the program's assembly constants.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

use crate::bail_input;
use crate::error::bad_input;

/// The rustc flags every 68k crate is built with, and why (see
/// `docs/TOOLCHAIN.md`, "Flags that give a Palm-compatible image").
pub const TARGET_RUSTFLAGS: &[&str] = &[
    // DragonBall is a 68000-class core; the target's default is the 68010.
    "-Ctarget-cpu=M68000",
    // Every code and rodata reference PC-relative (d16(pc)), no GOT.
    "-Crelocation-model=pic",
    "-Ccode-model=small",
    // A5 is the app's globals pointer on Palm OS: never written.
    "-Ctarget-feature=+reserve-a5",
    // `link.w %a6` in every function: the A6 chain memdbg walks for call stacks.
    "-Cforce-frame-pointers=yes",
];

/// The LLVM passes after which rustc prints each function for
/// [`crate::ircheck`]: CodeGenPrepare (the IR instruction selection sees, for
/// bug 2) and finalize-isel (the selected machine instructions with their
/// memory operands, for bug 7).
pub const IR_DUMP_PASSES: &str = "codegenprepare,finalize-isel";

/// The rustc target triple for 68k code.
pub const TARGET: &str = "m68k-unknown-none-elf";

/// The cargo profile for 68k code (defined in the workspace Cargo.toml).
pub const PROFILE: &str = "palm";

/// What cargo produced for one build.
#[derive(Debug)]
pub struct Compiled {
    /// The top crate's whole-program assembly.
    pub top_asm: PathBuf,
    /// compiler_builtins' assembly.
    pub builtins_asm: PathBuf,
    /// The IR dump rustc printed for the top crate, or `None` when cargo found
    /// the crate up to date and did not run rustc.
    pub ir_dump: Option<String>,
    /// The hand-written assembly of the crates in the build (their
    /// `[package.metadata.palm] asm` lists), in package then list order.
    pub asm_sources: Vec<AsmSource>,
}

/// One hand-written 68000 assembly file of a crate in the build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmSource {
    /// The crate's package name (`memdbg`).
    pub package: String,
    /// The file (absolute).
    pub path: PathBuf,
}

/// Package facts from `cargo metadata`.
#[derive(Debug, Clone)]
pub struct Package {
    /// Package name (`starter-app`).
    pub name: String,
    /// Package version (`0.1.0`).
    pub version: String,
    /// Library target name with `-` replaced by `_` (`starter_app`).
    pub lib_name: String,
    /// Directory holding the package's Cargo.toml.
    pub dir: PathBuf,
    /// The workspace root (where rust-toolchain.toml pins the toolchain).
    pub workspace_root: PathBuf,
    /// cargo's target directory.
    pub target_dir: PathBuf,
    /// `[package.metadata.palm]` as JSON (`Value::Null` when absent).
    pub palm_metadata: Value,
    /// What [`crate::setup::check`] found worth a warning (one line each).
    pub setup_warnings: Vec<String>,
}

/// `cargo`, run in `dir`. A relative `CARGO_TARGET_DIR` is made absolute
/// against palm-build's own working directory first, as cargo itself would
/// resolve it where the user typed the command (cargo is run in other
/// directories here, where a relative path would point elsewhere).
fn cargo_in(dir: &Path) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.current_dir(dir);
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from)
        && t.is_relative()
        && let Ok(cwd) = std::env::current_dir()
    {
        cmd.env("CARGO_TARGET_DIR", cwd.join(t));
    }
    cmd
}

/// Reads the package whose manifest is `manifest_path` with `cargo metadata`,
/// after [`crate::setup::check`] has checked its workspace.
///
/// # Errors
/// Bad input ([`crate::error::BadInput`]): the manifest is missing or a
/// directory, the setup check fails, cargo cannot read the manifest, or the
/// library target is missing or not exactly a `staticlib`.
pub fn package(manifest_path: &Path) -> Result<Package> {
    if manifest_path.is_dir() {
        bail_input!(
            "{}: a directory; --manifest-path names the crate's Cargo.toml ({})",
            manifest_path.display(),
            manifest_path.join("Cargo.toml").display()
        );
    }
    let manifest_path = manifest_path
        .canonicalize()
        .with_context(|| format!("{}: no such manifest", manifest_path.display()))
        .map_err(bad_input)?;
    let setup_warnings = crate::setup::check(&manifest_path)?;
    let dir = manifest_path
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let out = cargo_in(&dir)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(&manifest_path)
        .stderr(Stdio::inherit())
        .output()
        .context("running cargo metadata (is cargo installed? run ci/setup)")
        .map_err(bad_input)?;
    if !out.status.success() {
        bail_input!(
            "cargo metadata failed for {} (its message is above)",
            manifest_path.display()
        );
    }
    let meta: Value = serde_json::from_slice(&out.stdout).context("parsing cargo metadata")?;
    let pkg = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(manifest_path.as_path()))
        .ok_or_else(|| {
            bad_input(anyhow!(
                "{}: not a package (a workspace manifest?): pass the 68k crate's own \
                 Cargo.toml with --manifest-path, e.g. --manifest-path starter-app/Cargo.toml",
                manifest_path.display()
            ))
        })?;
    let lib = pkg["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "staticlib"))
        })
        .ok_or_else(|| {
            bad_input(anyhow!(
                "{}: no library target with crate-type \"staticlib\": a 68k crate needs \
                 [lib] crate-type = [\"staticlib\"]",
                manifest_path.display()
            ))
        })?;
    let kinds: Vec<&str> = lib["kind"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if kinds != ["staticlib"] {
        // With a second crate type rustc cannot run whole-program LTO, so
        // the one assembly file would hold this crate's code without its
        // dependencies' (the link then fails on their symbols).
        bail_input!(
            "{}: the 68k crate's crate-type must be exactly [\"staticlib\"], not {kinds:?}: \
             with another type rustc does not put the whole program (LTO) into the \
             assembly palm-build links; test host code from a separate crate",
            manifest_path.display()
        );
    }
    let field = |v: &Value, what: &str| -> Result<String> {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| anyhow!("cargo metadata: missing {what}"))
    };
    Ok(Package {
        name: field(&pkg["name"], "package name")?,
        version: field(&pkg["version"], "package version")?,
        lib_name: field(&lib["name"], "lib name")?.replace('-', "_"),
        dir,
        workspace_root: PathBuf::from(field(&meta["workspace_root"], "workspace_root")?),
        target_dir: PathBuf::from(field(&meta["target_directory"], "target_directory")?),
        palm_metadata: pkg["metadata"]["palm"].clone(),
        setup_warnings,
    })
}

/// Compiles `pkg` (with cargo `features`) for the 68000 and returns its assembly. `work` receives the
/// top crate's `.s` and the Rust module of its resource IDs ([`crate::ids`], passed to rustc as
/// `PALM_RESOURCE_IDS`); `target_dir` is cargo's target directory.
///
/// # Errors
/// cargo fails (its diagnostics are printed), or an expected `.s` is missing.
pub fn compile(
    pkg: &Package,
    features: &[String],
    target_dir: &Path,
    work: &Path,
    quiet: bool,
) -> Result<Compiled> {
    std::fs::create_dir_all(work).with_context(|| format!("creating {}", work.display()))?;
    let resource_ids = crate::ids::write_rust_module(pkg, work)?;
    let top_asm = work.join(format!("{}.s", pkg.lib_name));
    let mut cmd = cargo_in(&pkg.workspace_root);
    cmd.args([
        "rustc",
        "-p",
        &pkg.name,
        "--lib",
        "--profile",
        PROFILE,
        "--target",
        TARGET,
    ])
    .args(["-Zbuild-std=core,alloc", "--message-format=json"])
    // compiler_builtins is not part of LTO: its assembly is needed too
    // (repaired and assembled like the rest), and its IR dump (checked like
    // the program's; cargo replays it from its output cache when
    // compiler_builtins is fresh). Passed here rather than in
    // the workspace's Cargo.toml, where cargo warns about it on every
    // host build (needs `cargo-features = ["profile-rustflags"]`).
    .args([
        "--config".to_string(),
        format!(
            "profile.palm.package.compiler_builtins.rustflags=[\"--emit=asm,link\", \
             \"-Cllvm-args=-print-after={IR_DUMP_PASSES}\"]"
        ),
    ])
    .args(if features.is_empty() {
        vec![]
    } else {
        vec!["--features".to_string(), features.join(",")]
    })
    .arg("--target-dir")
    .arg(target_dir)
    .arg("--")
    .arg(format!("--emit=asm={},link", top_asm.display()))
    .args(["-C", &format!("llvm-args=-print-after={IR_DUMP_PASSES}")])
    .env("CARGO_ENCODED_RUSTFLAGS", TARGET_RUSTFLAGS.join("\x1f"))
    .env(crate::ids::ENV, &resource_ids)
    .env_remove("RUSTFLAGS")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let out = cmd
        .output()
        .context("running cargo (is it installed? run ci/setup)")
        .map_err(bad_input)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Separate cargo's messages from the IR dump, and collect rustc's
    // diagnostics (JSON on stdout) for display.
    let (messages, ir) = split_ir(&stderr);
    let diagnostics = diagnostics(&stdout);
    if !out.status.success() {
        eprint!("{messages}{diagnostics}");
        bail!("cargo failed to build {} for {TARGET}", pkg.name);
    }
    if !quiet {
        eprint!("{diagnostics}");
    }
    let mut builtins_dir = None;
    let mut top_fresh = None;
    let mut built = Vec::new();
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        if let Some(id) = msg["package_id"].as_str() {
            built.push(id.to_string());
        }
        let name = msg["target"]["name"].as_str().unwrap_or("");
        if name == "compiler_builtins" {
            builtins_dir = msg["filenames"][0]
                .as_str()
                .and_then(|f| Path::new(f).parent().map(Path::to_path_buf));
        } else if msg["package_id"]
            .as_str()
            .is_some_and(|id| id.contains(&*pkg.dir.to_string_lossy()))
            || name.replace('-', "_") == pkg.lib_name
        {
            top_fresh = msg["fresh"].as_bool();
        }
    }
    let builtins_dir =
        builtins_dir.ok_or_else(|| anyhow!("cargo did not report compiler_builtins"))?;
    let builtins_asm = std::fs::read_dir(&builtins_dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.extension().is_some_and(|e| e == "s")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("compiler_builtins-"))
        })
        .ok_or_else(|| {
            anyhow!(
                "no compiler_builtins .s in {}: the workspace Cargo.toml needs \
                 cargo-features = [\"panic-immediate-abort\", \"profile-rustflags\"]",
                builtins_dir.display()
            )
        })?;
    if !top_asm.exists() {
        bail!("rustc did not write {}", top_asm.display());
    }
    let ir_dump = match top_fresh {
        Some(true) => None,
        _ => Some(ir),
    };
    let asm_sources = asm_sources(&pkg.workspace_root, &built)?;
    Ok(Compiled {
        top_asm,
        builtins_asm,
        ir_dump,
        asm_sources,
    })
}

/// The hand-written assembly of the packages `built` (cargo's package ids):
/// each one's `asm` list of `[package.metadata.palm]`, read from `cargo
/// metadata` of the workspace at `workspace_root`. Packages cargo does not
/// list there (the standard library's, built by `-Zbuild-std`) have none.
///
/// # Errors
/// cargo metadata fails, or a list is malformed (see [`asm_list`]).
fn asm_sources(workspace_root: &Path, built: &[String]) -> Result<Vec<AsmSource>> {
    let out = cargo_in(workspace_root)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--filter-platform",
            TARGET,
        ])
        .stderr(Stdio::inherit())
        .output()
        .context("running cargo metadata")?;
    if !out.status.success() {
        bail!(
            "cargo metadata failed in {} (for the crates' assembly)",
            workspace_root.display()
        );
    }
    let meta: Value = serde_json::from_slice(&out.stdout).context("parsing cargo metadata")?;
    let mut sources = Vec::new();
    for pkg in meta["packages"].as_array().into_iter().flatten() {
        if !pkg["id"]
            .as_str()
            .is_some_and(|id| built.iter().any(|b| b == id))
        {
            continue;
        }
        sources.extend(asm_list(pkg)?);
    }
    Ok(sources)
}

/// The `asm` list of one package of `cargo metadata`: `[package.metadata.palm]
/// asm = ["asm/x.s", …]`, GNU as source files relative to its Cargo.toml.
///
/// # Errors
/// `asm` is not a list of strings, or names a file that does not exist or
/// whose name does not end in `.s`; the error names the Cargo.toml.
pub fn asm_list(pkg: &Value) -> Result<Vec<AsmSource>> {
    let manifest = PathBuf::from(pkg["manifest_path"].as_str().unwrap_or("Cargo.toml"));
    let dir = manifest.parent().unwrap_or(Path::new(".")).to_path_buf();
    let name = pkg["name"].as_str().unwrap_or("?").to_string();
    let files = match &pkg["metadata"]["palm"]["asm"] {
        Value::Null => return Ok(Vec::new()),
        Value::Array(files) => files,
        other => bail!(
            "{}: [package.metadata.palm] asm must be a list of .s files, not {other}",
            manifest.display()
        ),
    };
    files
        .iter()
        .map(|f| {
            let Some(f) = f.as_str() else {
                bail!(
                    "{}: [package.metadata.palm] asm must be a list of .s files, not {f}",
                    manifest.display()
                )
            };
            let path = dir.join(f);
            if !f.ends_with(".s") || !path.is_file() {
                bail!(
                    "{}: [package.metadata.palm] asm: {f} is not a .s file ({} does not exist \
                     or is not named *.s)",
                    manifest.display(),
                    path.display()
                );
            }
            Ok(AsmSource {
                package: name.clone(),
                path,
            })
        })
        .collect()
}

/// The diagnostics rustc reported (cargo's `compiler-message` JSON lines) as
/// rendered text, without the ones every 68k build gets and that say nothing
/// about the code: rustc's "unknown and unstable feature … `reserve-a5`"
/// warning (the flag is required, see [`TARGET_RUSTFLAGS`]; it works as
/// documented in `docs/TOOLCHAIN.md`).
fn diagnostics(stdout: &str) -> String {
    let mut out = String::new();
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-message" {
            continue;
        }
        let Some(rendered) = msg["message"]["rendered"].as_str() else {
            continue;
        };
        if rendered.contains("`-Ctarget-feature`: `reserve-a5`") {
            continue;
        }
        out.push_str(rendered);
    }
    out
}

/// Splits rustc's stderr into (ordinary messages, IR dump text). The dump
/// holds IR functions (`define …` to `}`) and machine functions
/// (`# Machine code for function …` to `# End machine code for function …`).
fn split_ir(stderr: &str) -> (String, String) {
    let mut messages = String::new();
    let mut ir = String::new();
    let mut in_function = false;
    let mut in_machine_function = false;
    for line in stderr.lines() {
        if line.starts_with("define ") {
            in_function = true;
        }
        if line.starts_with("# Machine code for function ") {
            in_machine_function = true;
        }
        let is_ir = in_function
            || in_machine_function
            || line.starts_with("*** IR Dump")
            || line.starts_with("# *** IR Dump")
            || line.starts_with("; Function Attrs");
        if is_ir {
            ir.push_str(line);
            ir.push('\n');
        } else {
            messages.push_str(line);
            messages.push('\n');
        }
        if in_function && line == "}" {
            in_function = false;
        }
        if line.starts_with("# End machine code for function ") {
            in_machine_function = false;
        }
    }
    (messages, ir)
}

/// Removes `pkg`'s own build output for the 68k target (`cargo clean -p`), so
/// that the next [`compile`] runs rustc and prints its IR again.
///
/// # Errors
/// cargo fails.
pub fn clean_package(pkg: &Package, target_dir: &Path) -> Result<()> {
    let status = cargo_in(&pkg.workspace_root)
        .args([
            "clean",
            "-q",
            "-p",
            &pkg.name,
            "--profile",
            PROFILE,
            "--target",
            TARGET,
        ])
        .arg("--target-dir")
        .arg(target_dir)
        .status()
        .context("running cargo clean")?;
    if !status.success() {
        bail!("cargo clean -p {} failed", pkg.name);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_rustc_diagnostics_but_not_the_reserve_a5_warning() {
        let stdout = concat!(
            r#"{"reason":"compiler-message","message":{"rendered":"warning: unknown and unstable feature specified for `-Ctarget-feature`: `reserve-a5`\n"}}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"x"}}"#,
            "\n",
            r#"{"reason":"compiler-message","message":{"rendered":"warning: unused variable: `x`\n"}}"#,
            "\nnot json\n"
        );
        assert_eq!(diagnostics(stdout), "warning: unused variable: `x`\n");
    }

    /// A crate that is also an `rlib` (for host tests, say) is refused up
    /// front: with two crate types rustc skips whole-program LTO and the link
    /// failed later on the dependencies' symbols, without a word about why.
    #[test]
    fn crate_type_must_be_staticlib_alone() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(
            dir.path().join("rust-toolchain.toml"),
            crate::setup::TOOLCHAIN_FILE,
        )
        .unwrap();
        let write = |types: &str| {
            std::fs::write(
                &manifest,
                format!(
                    "{}\n[package]\nname = \"two-types\"\nversion = \"0.1.0\"\n\
                     edition = \"2024\"\n[lib]\ncrate-type = {types}\n[workspace]\n{}",
                    crate::setup::cargo_features_line(),
                    crate::setup::profile_snippet()
                ),
            )
            .unwrap();
        };
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
        write(r#"["staticlib", "rlib"]"#);
        let e = package(&manifest).unwrap_err();
        assert!(crate::error::is_bad_input(&e));
        let e = e.to_string();
        assert!(
            e.ends_with(
                "Cargo.toml: the 68k crate's crate-type must be exactly [\"staticlib\"], not \
                 [\"staticlib\", \"rlib\"]: with another type rustc does not put the whole \
                 program (LTO) into the assembly palm-build links; test host code from a \
                 separate crate"
            ),
            "{e}"
        );
        write(r#"["staticlib"]"#);
        assert_eq!(package(&manifest).unwrap().name, "two-types");
        let e = package(dir.path()).unwrap_err().to_string();
        assert!(e.ends_with("Cargo.toml)"), "{e}");
        assert!(
            e.contains(": a directory; --manifest-path names the crate's Cargo.toml ("),
            "{e}"
        );
    }

    #[test]
    fn asm_lists_name_existing_s_files_relative_to_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("asm")).unwrap();
        std::fs::write(dir.path().join("asm/a.s"), "rts\n").unwrap();
        std::fs::write(dir.path().join("asm/b.txt"), "").unwrap();
        let manifest = dir.path().join("Cargo.toml");
        let pkg = |asm: Value| {
            serde_json::json!({
                "name": "lib", "manifest_path": manifest, "metadata": {"palm": {"asm": asm}}
            })
        };
        let found = asm_list(&pkg(serde_json::json!(["asm/a.s"]))).unwrap();
        assert_eq!(
            found,
            vec![AsmSource {
                package: "lib".into(),
                path: dir.path().join("asm/a.s")
            }]
        );
        assert!(asm_list(&pkg(Value::Null)).unwrap().is_empty());
        for (bad, says) in [
            (
                serde_json::json!("asm/a.s"),
                "asm must be a list of .s files, not \"asm/a.s\"",
            ),
            (
                serde_json::json!([3]),
                "asm must be a list of .s files, not 3",
            ),
            (
                serde_json::json!(["asm/b.txt"]),
                "asm: asm/b.txt is not a .s file",
            ),
            (
                serde_json::json!(["asm/c.s"]),
                "asm: asm/c.s is not a .s file",
            ),
        ] {
            let e = asm_list(&pkg(bad)).unwrap_err().to_string();
            assert!(e.starts_with(&manifest.display().to_string()), "{e}");
            assert!(e.contains(says), "{e}");
        }
    }

    #[test]
    fn splits_ir_from_messages() {
        let stderr = "   Compiling x v0.1.0\n*** IR Dump After CodeGen Prepare (codegenprepare) ***\n\
                      ; Function Attrs: nounwind\ndefine void @f() {\n  ret void\n}\nwarning: unused\n";
        let (messages, ir) = split_ir(stderr);
        assert_eq!(messages, "   Compiling x v0.1.0\nwarning: unused\n");
        assert!(ir.starts_with("*** IR Dump"));
        assert!(ir.ends_with("}\n"));
    }

    #[test]
    fn machine_functions_go_to_the_dump_with_their_blank_lines() {
        let stderr = "# *** IR Dump After Finalize ISel and expand pseudo-instructions \
                      (finalize-isel) ***:\n# Machine code for function f: IsSSA, TracksLiveness\n\
                      Frame Objects:\n\nbb.0 (%ir-block.2):\n  RET 0\n\n\
                      # End machine code for function f.\n\nwarning: unused\n";
        let (messages, ir) = split_ir(stderr);
        assert_eq!(messages, "\nwarning: unused\n");
        assert_eq!(ir.lines().count(), 8);
        assert!(ir.ends_with("# End machine code for function f.\n"));
    }
}
