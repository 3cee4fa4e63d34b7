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

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

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

/// Reads the package whose manifest is `manifest_path` with `cargo metadata`.
///
/// # Errors
/// cargo fails, or the manifest has no library target.
pub fn package(manifest_path: &Path) -> Result<Package> {
    if manifest_path.is_dir() {
        bail!(
            "{}: a directory; --manifest-path names the crate's Cargo.toml ({})",
            manifest_path.display(),
            manifest_path.join("Cargo.toml").display()
        );
    }
    let manifest_path = manifest_path
        .canonicalize()
        .with_context(|| format!("{}: no such manifest", manifest_path.display()))?;
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
        .context("running cargo metadata")?;
    if !out.status.success() {
        bail!("cargo metadata failed for {}", manifest_path.display());
    }
    let meta: Value = serde_json::from_slice(&out.stdout).context("parsing cargo metadata")?;
    let pkg = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["manifest_path"].as_str().map(Path::new) == Some(manifest_path.as_path()))
        .ok_or_else(|| {
            anyhow!(
                "{}: not a package (a workspace manifest?): pass the 68k crate's own \
                 Cargo.toml with --manifest-path, e.g. --manifest-path starter-app/Cargo.toml",
                manifest_path.display()
            )
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
            anyhow!(
                "{}: the 68k crate must have a library target with crate-type \"staticlib\"",
                manifest_path.display()
            )
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
        bail!(
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
    })
}

/// Compiles `pkg` (with cargo `features`) for the 68000 and returns its assembly. `work` receives the
/// top crate's `.s`; `target_dir` is cargo's target directory.
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
    .env_remove("RUSTFLAGS")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let out = cmd
        .output()
        .context("running cargo (is it installed? run ci/setup)")?;
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
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
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
    Ok(Compiled {
        top_asm,
        builtins_asm,
        ir_dump,
    })
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
        let write = |types: &str| {
            std::fs::write(
                &manifest,
                format!(
                    "[package]\nname = \"two-types\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\
                     [lib]\ncrate-type = {types}\n[workspace]\n"
                ),
            )
            .unwrap();
        };
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
        write(r#"["staticlib", "rlib"]"#);
        let e = package(&manifest).unwrap_err().to_string();
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
