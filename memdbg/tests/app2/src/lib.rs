//! memdbg's second set of end-to-end scenarios, run in palm-run by memdbg's tests
//! through `tests/common/e2e.rs` (the first set, `tests/app`, fills most of its
//! code 1).
//!
//! PilotMain (normal launch only) reads the scenario number from feature
//! (`'MDtB'`, 0) and runs it between `memdbg::start` and `memdbg::stop`. Lines the
//! tests check carry a `@mark name` comment: the test finds their numbers in this
//! file, so the expected ledger (file, line, size, kind) is exact. The result is 0,
//! or the number of the in-app check that failed.
#![no_std]
#![cfg_attr(target_arch = "m68k", feature(asm_experimental_arch))]
#![allow(clippy::missing_safety_doc)]

use m68k_palmos_sys as palm;
use memdbg::{Settings, mem_ptr_new};
use palm::*;

palm::app_entry!(pilot_main);

/// The app's creator; its features carry the scenario and its parameters.
const CREATOR: u32 = four_cc(b"MDtB");

fn feature(n: u16) -> u32 {
    let mut v = 0u32;
    // SAFETY: FtrGet writes one UInt32.
    unsafe { FtrGet(CREATOR, n, &mut v) };
    v
}

extern "C" fn pilot_main(cmd: u16, _pbp: MemPtr, _flags: u16) -> u32 {
    if cmd != launch::sysAppLaunchCmdNormalLaunch {
        return 0;
    }
    // SAFETY: every scenario uses the Palm OS API as documented.
    unsafe {
        match feature(0) {
            1 => one_leak(),
            _ => 99,
        }
    }
}

fn begin(settings: &Settings) -> u32 {
    match memdbg::start(settings) {
        Ok(()) => 0,
        Err(_) => 90,
    }
}

fn end() -> u32 {
    match memdbg::stop() {
        Ok(_) => 0,
        Err(_) => 91,
    }
}

/// One 24-byte pointer leaked: the ledger names this app and this file.
unsafe fn one_leak() -> u32 {
    let r = begin(&Settings::DEFAULT);
    if r != 0 {
        return r;
    }
    let p = mem_ptr_new!(24); // @mark one-leak
    if p.is_null() {
        return 1;
    }
    end()
}
