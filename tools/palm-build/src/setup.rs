//! The setup check: before cargo runs, palm-build checks what a 68k build
//! needs from the workspace and says what to copy when something is missing,
//! instead of leaving it to cargo's errors ("missing an `inherits`
//! directive", "requires nightly", or a build with another nightly).
//!
//! A 68k crate's workspace needs (all written by `palm-build new`, and all
//! as in this checkout's own files, which are their one source):
//! - a `rust-toolchain.toml` (in the workspace root or above it, where
//!   rustup looks) with `channel = "nightly-2026-10-25"`, the pinned nightly
//!   ([`pinned_channel`]; why that one: docs/TOOLCHAIN.md), and no
//!   `RUSTUP_TOOLCHAIN` in the environment naming another toolchain;
//! - at the top of the workspace root's `Cargo.toml`, `cargo-features =
//!   ["panic-immediate-abort", "profile-rustflags"]` ([`CARGO_FEATURES`]);
//! - in that manifest, the `[profile.palm]` table ([`profile_snippet`]):
//!   `inherits`, `lto = true`, `codegen-units = 1`, `panic =
//!   "immediate-abort"` are required, the rest may differ (a `debug` of 0 is
//!   warned about: the report then has no file and line);
//! - (checked by [`crate::cargo::package`]) a library with crate-type
//!   exactly `["staticlib"]`.
//!
//! Every failure is [`crate::error::BadInput`] (exit status 2): a first line
//! naming the file and what is wrong, then the lines to copy.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use toml_edit::{DocumentMut, Item};

use crate::bail_input;
use crate::error::bad_input;

/// This checkout's `rust-toolchain.toml`, the one pin of the toolchain:
/// `palm-build new` writes it into new apps.
pub const TOOLCHAIN_FILE: &str = include_str!("../../../rust-toolchain.toml");

/// This checkout's workspace manifest, whose `cargo-features` line and
/// `[profile.palm]` table new apps get ([`profile_snippet`]).
const WORKSPACE_MANIFEST: &str = include_str!("../../../Cargo.toml");

/// The cargo features a 68k build needs: `panic-immediate-abort` for `panic =
/// "immediate-abort"`, `profile-rustflags` for the per-package rustflags
/// palm-build passes for compiler_builtins' assembly ([`crate::cargo`]).
pub const CARGO_FEATURES: [&str; 2] = ["panic-immediate-abort", "profile-rustflags"];

/// The `cargo-features` line, as it must open the workspace root's manifest.
pub fn cargo_features_line() -> String {
    let quoted: Vec<String> = CARGO_FEATURES.iter().map(|f| format!("\"{f}\"")).collect();
    format!("cargo-features = [{}]", quoted.join(", "))
}

/// The pinned toolchain's channel (`nightly-2026-10-25`), from
/// [`TOOLCHAIN_FILE`].
pub fn pinned_channel() -> String {
    channel_of(TOOLCHAIN_FILE).unwrap_or_default()
}

/// The `[profile.palm]` table of this checkout's manifest, with its comment
/// lines, as text to copy (ends with a newline).
pub fn profile_snippet() -> String {
    let start = WORKSPACE_MANIFEST
        .find("\n# 68k code")
        .or_else(|| WORKSPACE_MANIFEST.find("\n[profile.palm]"))
        .map_or(0, |i| i + 1);
    let rest = &WORKSPACE_MANIFEST[start..];
    let table = rest.find("[profile.palm]").unwrap_or(0);
    let end = rest[table + 1..]
        .find("\n[")
        .map_or(rest.len(), |i| table + 1 + i + 1);
    let mut s = rest[..end].trim_end().to_string();
    s.push('\n');
    s
}

/// The channel a toolchain file names: `[toolchain] channel` of a TOML file,
/// or the whole text of a legacy one-line `rust-toolchain` file.
fn channel_of(text: &str) -> Option<String> {
    match text.parse::<DocumentMut>() {
        Ok(doc) => doc
            .get("toolchain")
            .and_then(|t| t.get("channel"))
            .and_then(Item::as_str)
            .map(str::to_string),
        Err(_) => {
            let t = text.trim();
            (!t.is_empty() && !t.contains(char::is_whitespace)).then(|| t.to_string())
        }
    }
}

/// [`TOOLCHAIN_FILE`] without its comments: the lines to copy.
fn toolchain_lines() -> String {
    TOOLCHAIN_FILE
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` with every line indented, for the lines to copy under a message.
fn indented(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Reads and parses a manifest.
fn read_manifest(path: &Path) -> Result<DocumentMut> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read it", path.display()))
        .map_err(bad_input)?;
    text.parse::<DocumentMut>().map_err(|e| {
        let first = e.to_string();
        let first = first.lines().next().unwrap_or("").to_string();
        bad_input(anyhow::anyhow!(
            "{}: not a valid TOML manifest: {first}",
            path.display()
        ))
    })
}

/// The workspace root manifest of the crate whose manifest is `manifest`
/// (absolute), found as cargo finds it: the manifest itself when it has a
/// `[workspace]` table, the one `package.workspace` names, else the nearest
/// ancestor directory's `Cargo.toml` with a `[workspace]` table; the crate is
/// its own root when there is none.
fn workspace_root(manifest: &Path, doc: &DocumentMut) -> Result<PathBuf> {
    if doc.get("workspace").is_some() {
        return Ok(manifest.to_path_buf());
    }
    let dir = manifest.parent().unwrap_or(Path::new("/"));
    if let Some(ws) = doc
        .get("package")
        .and_then(|p| p.get("workspace"))
        .and_then(Item::as_str)
    {
        return Ok(dir.join(ws).join("Cargo.toml"));
    }
    for ancestor in dir.ancestors().skip(1) {
        let candidate = ancestor.join("Cargo.toml");
        if candidate.is_file()
            && std::fs::read_to_string(&candidate)
                .ok()
                .and_then(|t| t.parse::<DocumentMut>().ok())
                .is_some_and(|d| d.get("workspace").is_some())
        {
            return Ok(candidate);
        }
    }
    Ok(manifest.to_path_buf())
}

/// Checks the setup of the crate whose manifest is `manifest` (an existing
/// file) before cargo runs; returns warnings to show (one line each).
///
/// # Errors
/// A [`crate::error::BadInput`] naming the file, what is wrong and what to
/// copy: a manifest that is not TOML, a missing or wrong toolchain file,
/// `RUSTUP_TOOLCHAIN` naming another toolchain, missing `cargo-features`, a
/// missing or incomplete `[profile.palm]`.
pub fn check(manifest: &Path) -> Result<Vec<String>> {
    let manifest = manifest
        .canonicalize()
        .with_context(|| format!("{}: no such manifest", manifest.display()))
        .map_err(bad_input)?;
    let doc = read_manifest(&manifest)?;
    let root = workspace_root(&manifest, &doc)?;
    let root_doc = if root == manifest {
        doc.clone()
    } else {
        read_manifest(&root)?
    };
    let root_dir = root.parent().unwrap_or(Path::new("/"));
    check_toolchain(root_dir)?;
    check_cargo_features(&root, &root_doc)?;
    check_profile(
        &root,
        &root_doc,
        (root != manifest).then_some((&manifest, &doc)),
    )
}

/// The toolchain file rustup uses for `dir` (the nearest `rust-toolchain.toml`
/// or `rust-toolchain` in it or above it), and the environment override.
fn check_toolchain(dir: &Path) -> Result<()> {
    let pinned = pinned_channel();
    let file = dir.ancestors().find_map(|d| {
        ["rust-toolchain.toml", "rust-toolchain"]
            .iter()
            .map(|n| d.join(n))
            .find(|p| p.is_file())
    });
    let Some(file) = file else {
        bail_input!(
            "{}: no rust-toolchain.toml here or above: palm-build needs the pinned toolchain \
             {pinned}; create {} with these lines:\n{}",
            dir.display(),
            dir.join("rust-toolchain.toml").display(),
            indented(&toolchain_lines())
        );
    };
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("{}: cannot read it", file.display()))
        .map_err(bad_input)?;
    match channel_of(&text) {
        Some(c) if c == pinned => {}
        found => bail_input!(
            "{}: {}, but palm-build needs the pinned toolchain {pinned} (other toolchains \
             miscompile or crash on the 68000: docs/TOOLCHAIN.md); write this line under \
             [toolchain]:\n    channel = \"{pinned}\"",
            file.display(),
            match found {
                Some(c) => format!("channel = \"{c}\""),
                None => "no [toolchain] channel".to_string(),
            }
        ),
    }
    if let Ok(env) = std::env::var("RUSTUP_TOOLCHAIN")
        && !env.is_empty()
        && env != pinned
        && !env.starts_with(&format!("{pinned}-"))
    {
        bail_input!(
            "RUSTUP_TOOLCHAIN={env} is set: it overrides {} and palm-build needs the pinned \
             toolchain {pinned}; unset it (or run palm-build without `cargo +{env}`)",
            file.display()
        );
    }
    Ok(())
}

fn check_cargo_features(root: &Path, doc: &DocumentMut) -> Result<()> {
    let have: Vec<&str> = doc
        .get("cargo-features")
        .and_then(Item::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let missing: Vec<&str> = CARGO_FEATURES
        .iter()
        .copied()
        .filter(|f| !have.contains(f))
        .collect();
    if !missing.is_empty() {
        bail_input!(
            "{}: cargo-features lacks {} (palm-build's profile needs panic = \
             \"immediate-abort\" and per-package rustflags); put this line at the top of \
             {}, before any table:\n    {}",
            root.display(),
            missing
                .iter()
                .map(|f| format!("\"{f}\""))
                .collect::<Vec<_>>()
                .join(" and "),
            root.display(),
            cargo_features_line()
        );
    }
    Ok(())
}

/// What `[profile.palm]` must hold, each with why.
const REQUIRED: [(&str, &str); 4] = [
    ("inherits", "cargo requires it of a custom profile"),
    (
        "lto",
        "whole-program LTO puts the whole program into the one assembly file palm-build links",
    ),
    ("codegen-units", "one assembly file"),
    (
        "panic",
        "panics become `jsr abort` instead of core::fmt code with absolute relocations",
    ),
];

fn check_profile(
    root: &Path,
    doc: &DocumentMut,
    member: Option<(&PathBuf, &DocumentMut)>,
) -> Result<Vec<String>> {
    let Some(profile) = doc.get("profile").and_then(|p| p.get("palm")) else {
        let elsewhere = member
            .filter(|(_, d)| d.get("profile").and_then(|p| p.get("palm")).is_some())
            .map(|(m, _)| {
                format!(
                    " ({} has one, but cargo reads profiles only from the workspace root)",
                    m.display()
                )
            })
            .unwrap_or_default();
        bail_input!(
            "{}: no [profile.palm]{elsewhere}: palm-build compiles 68k code with that profile; \
             copy this table into {}:\n{}",
            root.display(),
            root.display(),
            indented(&profile_snippet())
        );
    };
    let mut wrong = Vec::new();
    for (key, why) in REQUIRED {
        let item = profile.get(key);
        let ok = match key {
            "inherits" => item.and_then(Item::as_str).is_some(),
            "lto" => {
                item.and_then(Item::as_bool) == Some(true)
                    || item.and_then(Item::as_str) == Some("fat")
            }
            "codegen-units" => item.and_then(Item::as_integer) == Some(1),
            _ => item.and_then(Item::as_str) == Some("immediate-abort"),
        };
        if !ok {
            let want = match key {
                "inherits" => "inherits = \"release\"",
                "lto" => "lto = true",
                "codegen-units" => "codegen-units = 1",
                _ => "panic = \"immediate-abort\"",
            };
            let found = match item.and_then(Item::as_value) {
                None => format!("no {key}"),
                Some(v) => format!("{key} = {}", value_text(v)),
            };
            wrong.push(format!("{found} where palm-build needs {want} ({why})"));
        }
    }
    if !wrong.is_empty() {
        bail_input!(
            "{}: [profile.palm] has {}; the table palm-build expects is:\n{}",
            root.display(),
            wrong.join("; "),
            indented(&profile_snippet())
        );
    }
    let mut warnings = Vec::new();
    let debug = profile.get("debug").and_then(Item::as_value);
    let no_lines = match debug {
        None => true,
        Some(v) => {
            v.as_bool() == Some(false)
                || v.as_integer() == Some(0)
                || v.as_str().is_some_and(|s| s == "none")
        }
    };
    if no_lines {
        warnings.push(format!(
            "{}: [profile.palm] has {}: the ELF gets no line tables, so memdbg report cannot \
             give file:line for call stacks (set debug = 2)",
            root.display(),
            debug.map_or("no debug".to_string(), |v| format!(
                "debug = {}",
                value_text(v)
            ))
        ));
    }
    Ok(warnings)
}

/// A TOML value as it would be written (strings quoted).
fn value_text(v: &toml_edit::Value) -> String {
    if let Some(s) = v.as_str() {
        format!("\"{s}\"")
    } else if let Some(b) = v.as_bool() {
        b.to_string()
    } else if let Some(i) = v.as_integer() {
        i.to_string()
    } else {
        "(a table or array)".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pins_come_from_this_checkout() {
        assert!(
            pinned_channel().starts_with("nightly-"),
            "{}",
            pinned_channel()
        );
        let profile = profile_snippet();
        assert!(profile.contains("[profile.palm]\n"), "{profile}");
        assert!(profile.contains("panic = \"immediate-abort\""), "{profile}");
        assert!(!profile.contains("[profile.release]"), "{profile}");
        // The snippet parses and passes the check it is printed by.
        let doc: DocumentMut = format!(
            "{}\n[package]\nname = \"x\"\n{profile}",
            cargo_features_line()
        )
        .parse()
        .unwrap();
        check_cargo_features(Path::new("Cargo.toml"), &doc).unwrap();
        assert_eq!(
            check_profile(Path::new("Cargo.toml"), &doc, None).unwrap(),
            Vec::<String>::new()
        );
        assert!(WORKSPACE_MANIFEST.contains(&cargo_features_line()));
    }

    #[test]
    fn legacy_toolchain_files_are_read() {
        assert_eq!(
            channel_of("nightly-2026-10-25\n").as_deref(),
            Some("nightly-2026-10-25")
        );
        assert_eq!(
            channel_of("[toolchain]\nchannel = \"stable\"\n").as_deref(),
            Some("stable")
        );
        assert_eq!(channel_of("[toolchain]\n"), None);
    }
}
