//! What memdbg's tests and its benchmark share: `tests/app` and `tests/app2` (one
//! scenario per function) built for the 68000 by palm-build, and the end-to-end
//! harness that runs them ([`e2e`]).
#![allow(dead_code)] // Each test binary uses a different part of this module.

pub mod e2e;

use std::path::PathBuf;

/// Builds `tests/app` into `<target>/palm/MemDbgTest.prc` (and its ELF), in the
/// workspace's target directory (or `CARGO_TARGET_DIR`).
///
/// # Panics
/// The build fails (the error says why).
pub fn build_test_app() -> palm_build::App {
    build_app("tests/app/Cargo.toml")
}

/// Builds palm-run's own test app (`tools/palm-run/tests/apps/runtest`, the
/// database "RunTest", which does not link memdbg) into the same target
/// directory: a second app for runs in which memdbg's app has exited.
///
/// # Panics
/// The build fails.
pub fn build_other_app() -> palm_build::App {
    build_app("../tools/palm-run/tests/apps/runtest/Cargo.toml")
}

/// Builds the app whose manifest is `manifest` (relative to memdbg/) as
/// [`build_test_app`] does, with palm-build's defaults (MacsBug names on).
///
/// # Panics
/// The build fails (the error says why).
pub fn build_app(manifest: &str) -> palm_build::App {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.join("../target"));
    palm_build::build_app(&palm_build::Options {
        manifest_path: dir.join(manifest),
        target_dir: Some(target_dir),
        kind: palm_build::ImageKind::App,
        features: Vec::new(),
        quiet: true,
        raw_llvm: false,
        macsbug_names: true,
    })
    .unwrap_or_else(|e| panic!("building {manifest} for the 68000 failed: {e:#}"))
}
