//! The pipeline's StarterApp.prc (starter-app/, built by palm-build) launches and
//! exits cleanly under palm-run: no fault, no unknown trap, no patch left installed.
//! With the event script of the starter app (when it has one), every scenario runs.

use std::path::PathBuf;

use palm_run::{Config, Machine};

#[test]
fn starter_app_launches_and_exits_cleanly() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let app = palm_build::build_app(&palm_build::Options {
        manifest_path: dir.join("../../starter-app/Cargo.toml"),
        target_dir: None,
        kind: palm_build::ImageKind::App,
        features: Vec::new(),
        quiet: true,
        raw_llvm: false,
        macsbug_names: true,
    })
    .unwrap_or_else(|e| panic!("building starter-app failed: {e:#}"));
    let mut m = Machine::with_config(&Config::default()).unwrap();
    m.set_symbols(palm_run::symbols::Symbols::from_elf(&std::fs::read(&app.elf).unwrap()).unwrap());
    m.install(&std::fs::read(&app.prc).unwrap()).unwrap();
    let out = m.launch("StarterApp").unwrap();
    assert_eq!(out.stop, None, "{}", m.output.join("\n"));
    assert!(out.patches_left.is_empty(), "{out:?}");
    assert!(out.left_open.is_empty(), "{out:?}");
    assert_eq!(out.result, Some(0));
}
