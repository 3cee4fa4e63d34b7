//! Resource IDs from one place: the numbers the app's `.rcp` files
//! `#define` ([`palm_rcp::ids`]), generated for its code at build time.
//!
//! - Rust: every build ([`crate::cargo::compile`]) writes the module of the
//!   crate's `[package.metadata.palm] resources` to
//!   `<target>/palm/work/<crate>/resource_ids.rs` and passes its path to
//!   rustc in the environment variable [`ENV`]; the app includes it:
//!
//!   ```ignore
//!   #[allow(non_upper_case_globals)]
//!   mod ids {
//!       include!(env!("PALM_RESOURCE_IDS", "build with palm-build"));
//!   }
//!   ```
//!
//!   cargo rebuilds the crate when the module changes (rustc records the
//!   included file and the variable); the file is rewritten only when its
//!   text changes. A crate without resources gets an empty module.
//! - C: `palm-build ids --c APP.rcp -o build/AppIds.h` ([`c_header`]), for a
//!   Makefile rule.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use palm_rcp::ids::Define;

use crate::bail_input;
use crate::cargo::Package;
use crate::error::bad_input;

/// The environment variable naming the generated Rust module.
pub const ENV: &str = "PALM_RESOURCE_IDS";

/// The numeric `#define`s of `rcps`, in order, each symbol once; `base`
/// is removed from the front of the file names shown in the generated text.
///
/// Each file is compiled first, so that the IDs of a file palm-rcp rejects
/// (a resource statement in error, not only a bad `#define`) are never
/// generated.
///
/// # Errors
/// Bad input: a `.rcp` cannot be read or compiled (palm-rcp's error: file,
/// line and column), or two files define a symbol with different values.
pub fn defines(rcps: &[PathBuf], base: &Path) -> Result<Vec<Define>> {
    let mut all: Vec<Define> = Vec::new();
    for rcp in rcps {
        palm_rcp::compile_file(rcp).map_err(|e| bad_input(anyhow!("{e}")))?;
        for mut d in palm_rcp::ids::defines(rcp).map_err(|e| bad_input(anyhow!("{e}")))? {
            if let Some(rel) = Path::new(&d.file)
                .strip_prefix(base)
                .ok()
                .and_then(Path::to_str)
            {
                d.file = rel.to_string();
            }
            match all.iter().find(|o| o.name == d.name) {
                Some(o) if o.value != d.value => bail_input!(
                    "{}:{}: {} is {} here but {} at {}:{}: resource IDs must agree across the \
                     app's .rcp files",
                    d.file,
                    d.line,
                    d.name,
                    d.value,
                    o.value,
                    o.file,
                    o.line
                ),
                Some(_) => {}
                None => all.push(d),
            }
        }
    }
    Ok(all)
}

/// Writes `text` to `path` unless it already holds exactly that (so cargo
/// does not rebuild for an unchanged file).
pub fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Writes the Rust module of `pkg`'s resources into `work` and returns its
/// path (for [`ENV`]).
///
/// # Errors
/// Bad input: the `resources` setting, a `.rcp`, or a symbol that is a Rust
/// keyword; or the file cannot be written.
pub fn write_rust_module(pkg: &Package, work: &Path) -> Result<PathBuf> {
    // Canonical paths: `rsrc/App.rcp`, not `app/../rsrc/App.rcp`, in the text.
    let rcps: Vec<PathBuf> = crate::prc::resource_files(pkg)
        .with_context(|| pkg.dir.join("Cargo.toml").display().to_string())
        .map_err(bad_input)?
        .into_iter()
        .map(|r| r.canonicalize().unwrap_or(r))
        .collect();
    let defines = defines(&rcps, &pkg.workspace_root)?;
    let names: Vec<String> = rcps
        .iter()
        .map(|r| {
            r.strip_prefix(&pkg.workspace_root)
                .unwrap_or(r)
                .display()
                .to_string()
        })
        .collect();
    let source = if names.is_empty() {
        format!("{} (it has no .rcp resources)", pkg.name)
    } else {
        names.join(", ")
    };
    let text =
        palm_rcp::ids::rust_module(&defines, &source).map_err(|e| bad_input(anyhow!("{e}")))?;
    let path = work.join("resource_ids.rs");
    write_if_changed(&path, &text)?;
    Ok(path)
}

/// The C header of `rcp`'s `#define`s (`palm-build ids --c`), its include
/// guard made from `output`'s file name (`AppIds.h` → `APPIDS_H`).
///
/// # Errors
/// As [`defines`].
pub fn c_header(rcp: &Path, output: &Path) -> Result<String> {
    let guard: String = output
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("RESOURCE_IDS_H")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    let defines = defines(&[rcp.to_path_buf()], Path::new(""))?;
    Ok(palm_rcp::ids::c_header(
        &defines,
        &rcp.display().to_string(),
        &guard,
    ))
}

/// The Rust module of `rcp`'s `#define`s (`palm-build ids`, without `--c`).
///
/// # Errors
/// As [`defines`], or a symbol is a Rust keyword.
pub fn rust_module(rcp: &Path) -> Result<String> {
    let defines = defines(&[rcp.to_path_buf()], Path::new(""))?;
    palm_rcp::ids::rust_module(&defines, &rcp.display().to_string())
        .map_err(|e| bad_input(anyhow!("{e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Finding: `palm-build ids` of a .rcp palm-rcp rejects (a resource
    /// statement in error, its #defines fine) printed a module, exit 0.
    #[test]
    fn the_ids_of_a_rcp_palm_rcp_rejects_are_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let rcp = dir.path().join("bad.rcp");
        std::fs::write(&rcp, "FROM ID 1000 AT (0 0 160 160)\n#define A 1\n").unwrap();
        let e = rust_module(&rcp).unwrap_err();
        assert!(crate::error::is_bad_input(&e), "{e:#}");
        let msg = format!("{e:#}");
        assert!(
            msg.starts_with(&format!("{}:1:1: ", rcp.display())),
            "{msg}"
        );
        assert!(c_header(&rcp, "Ids.h".as_ref()).is_err());
        std::fs::write(
            &rcp,
            "FORM ID 1000 AT (0 0 160 160)\nBEGIN\nEND\n#define A 1\n",
        )
        .unwrap();
        assert!(rust_module(&rcp).unwrap().contains("A: u16 = 1"));
    }
}
