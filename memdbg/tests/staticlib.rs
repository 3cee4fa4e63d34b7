//! The staticlib for C apps keeps building for the 68000, and it defines every
//! function `include/memdbg.h` declares (and the header declares every one it
//! defines). Built as `memdbg/Cargo.toml` says (`cargo build -p memdbg --features
//! capi --release` for `m68k-unknown-none-elf`, with palm-build's target flags);
//! symbols read with `m68k-linux-gnu-nm` (binutils-m68k-linux-gnu, ci/setup).
//!
//! This checks that the archive exists and matches the header, not that its code
//! is right: it is LLVM's object code, without palm-build's repairs (README,
//! Limitations). C apps use `palm-build lib`'s archive instead, which
//! `tests/c_app.rs` runs end to end.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// The `memdbg_*` functions `memdbg.h` declares (a prototype: a return type, the
/// name and `(` on one line).
fn declared() -> BTreeSet<String> {
    let h = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/memdbg.h"))
        .expect("memdbg.h");
    h.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with(' ') && l.ends_with(");"))
        .filter_map(|l| {
            let name = l.split('(').next()?.split_whitespace().last()?;
            name.starts_with("memdbg_").then(|| name.to_string())
        })
        .collect()
}

#[test]
fn the_c_staticlib_builds_and_matches_the_header() {
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target")))
        .join("palm-staticlib");
    // palm-build's TARGET_RUSTFLAGS (docs/TOOLCHAIN.md, "Flags that give a
    // Palm-compatible image").
    let flags = [
        "-Ctarget-cpu=M68000",
        "-Crelocation-model=pic",
        "-Ccode-model=small",
        "-Ctarget-feature=+reserve-a5",
        "-Cforce-frame-pointers=yes",
    ];
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "build",
            "-q",
            "-p",
            "memdbg",
            "--lib",
            "--features",
            "capi",
            "--release",
            "--target",
            "m68k-unknown-none-elf",
            "-Zbuild-std=core,alloc",
        ])
        .arg("--target-dir")
        .arg(&target_dir)
        .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo build of the staticlib failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let archive = target_dir.join("m68k-unknown-none-elf/release/libmemdbg.a");
    let nm = Command::new("m68k-linux-gnu-nm")
        .args(["-g", "--defined-only"])
        .arg(&archive)
        .output()
        .expect("m68k-linux-gnu-nm runs (binutils-m68k-linux-gnu: ci/setup)");
    // Members without symbols make nm complain on stderr; its stdout is the list.
    let defined: BTreeSet<String> = String::from_utf8_lossy(&nm.stdout)
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            [_, "T", name] if name.starts_with("memdbg_") => Some(name.to_string()),
            _ => None,
        })
        .collect();
    let declared = declared();
    assert_eq!(declared.len(), 10, "{declared:?}");
    assert_eq!(defined, declared, "{}", archive.display());
}
