//! Calling a *saved original* trap implementation: one `unsafe fn` per trap, generated
//! from `traps.tbl` like [`crate::glue`], taking the address first.
//!
//! A trap replacement installed with `SysSetTrapAddress` must chain to the routine it
//! replaced with `JSR`, never through `TRAP #15` (that would re-enter the patch):
//! save `SysGetTrapAddress(trap)` before installing, then call
//! `palm_sys::chain::MemChunkFree(saved, p)`. The arguments are pushed in Palm layout
//! exactly as the TRAP glue pushes them (PALM_FACTS.md §3.4), the callee sees a plain
//! JSR frame (return address at 0(SP), first argument at 4(SP)), and the result is read
//! from A0 (pointers) or D0 (integers, masked).
#![allow(non_snake_case)]

use crate::glue::PalmVaList;
use crate::types::*;

include!(concat!(env!("OUT_DIR"), "/chain.rs"));
