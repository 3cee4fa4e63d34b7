//! Shared by the integration tests: the fuzz seed corpus check.

use std::path::PathBuf;

/// Checks that the fuzz seed `tools/prc/fuzz/corpus/parse/<name>` holds
/// exactly `bytes`, so the seeds stay the files these tests build. With
/// `PALM_PRC_UPDATE_SEEDS=1` in the environment, writes it instead.
pub fn check_seed(name: &str, bytes: &[u8]) {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "fuzz", "corpus", "parse", name]
        .iter()
        .collect();
    if std::env::var_os("PALM_PRC_UPDATE_SEEDS").is_some() {
        std::fs::write(&path, bytes).unwrap();
        return;
    }
    let seed = std::fs::read(&path).unwrap_or_else(|err| {
        panic!(
            "{}: {err}; run `PALM_PRC_UPDATE_SEEDS=1 cargo test -p palm-prc` to write it",
            path.display()
        )
    });
    assert!(
        seed == bytes,
        "{} differs from the file the test builds; run \
         `PALM_PRC_UPDATE_SEEDS=1 cargo test -p palm-prc` to update it",
        path.display()
    );
}
