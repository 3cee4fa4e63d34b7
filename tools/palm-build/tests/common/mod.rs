//! Helpers shared by palm-build's integration tests.

use std::path::{Path, PathBuf};

/// Assembles `source` with `m68k-linux-gnu-as -m68000 --pcrel` (installed by
/// ci/setup) into `DIR/NAME.o` and returns its path; panics with the
/// assembler's message on an error.
pub fn assemble(dir: &Path, name: &str, source: &str) -> PathBuf {
    let (s, o) = (dir.join(format!("{name}.s")), dir.join(format!("{name}.o")));
    std::fs::write(&s, source).unwrap();
    let out = std::process::Command::new("m68k-linux-gnu-as")
        .args(["-m68000", "--pcrel", "-o"])
        .arg(&o)
        .arg(&s)
        .output()
        .expect("m68k-linux-gnu-as runs (ci/setup)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    o
}
