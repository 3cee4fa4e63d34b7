//! memdbg: a memory-leak detector for Palm OS 68k applications (no_std).
// no_std on bare-metal targets (the 68k). Elsewhere the crate links std only so that
// its `staticlib` crate type builds there (a no_std staticlib needs a panic handler,
// which would clash with std's in host tools using the rlib); nothing here uses std.
#![cfg_attr(target_os = "none", no_std)]
#![deny(missing_docs)]

pub mod record;
