//! End-to-end tests of the memdbg starter app (`starter-app/`), which is 68k-only
//! and so has no host tests of its own.
//!
//! `tests/starter.rs` builds the app with palm-build, plays `starter-app/events.txt`
//! in palm-run (every scenario button once, About, Exit), exports the `MemDbgDB`
//! ledger and checks it exactly: the leak set (pointer, handle, Box), the overrun
//! and double free with their sites, nothing else; the header's counters; a clean
//! run with the dispatch table restored; the PRC's resources as Palm::PDB lists
//! them; and the script against the form.
//!
//! This library is [`expected`], what the demo's report must show, checked by
//! the `demo-check` binary that `ci/demo` runs.
#![deny(missing_docs)]

pub mod expected;
