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
use memdbg::{Error, Settings, mem_handle_new, mem_handle_resize, mem_ptr_new, mem_ptr_resize};
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
            45 => locked_at_stop(),
            46 => unlock_underflow(),
            47 => untracked_unlock(),
            50 => loop_leak(),
            51 => checkpoint_cap(),
            52 => bad_use(),
            53 => resized_across_checkpoints(),
            55 => pinned(false, true),
            56 => pinned(true, true),
            57 => pinned(false, false),
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

/// Five passes of a loop, each starting with a checkpoint (through the
/// `Session` value: generations 1 to 5), that opens and closes a 32-byte handle
/// (written while locked, then freed) and leaks one 16-byte pointer: five leaks,
/// one per generation; checkpoint k sees k - 1 of them live.
unsafe fn loop_leak() -> u32 {
    let Ok(session) = memdbg::Session::start(&Settings::DEFAULT) else {
        return 90;
    };
    for pass in 1..=5u8 {
        if session.checkpoint() != Ok(pass) {
            return 10 + u32::from(pass);
        }
        let h = mem_handle_new!(32); // @mark loop-open
        if h.is_null() {
            return 2;
        }
        // SAFETY: a live handle, locked for the write.
        unsafe {
            let p = MemHandleLock(h).cast::<u8>();
            *p = pass;
            MemHandleUnlock(h);
            if MemHandleFree(h) != errNone {
                return 3;
            }
        }
        let p = mem_ptr_new!(16); // @mark loop-leak
        if p.is_null() {
            return 4;
        }
    }
    match session.stop() {
        Ok(s) if s.leaks == 5 => 0,
        _ => 91,
    }
}

/// 256 checkpoints: the first 255 start generations 1 to 255, the 256th is
/// refused (`TooManyCheckpoints`); the leak after it is in generation 255.
unsafe fn checkpoint_cap() -> u32 {
    let r = begin(&Settings::DEFAULT);
    if r != 0 {
        return r;
    }
    for g in 1..=255u8 {
        if memdbg::checkpoint() != Ok(g) {
            return 1;
        }
    }
    if memdbg::checkpoint() != Err(Error::TooManyCheckpoints) {
        return 2;
    }
    let p = mem_ptr_new!(8); // @mark cap-leak
    if p.is_null() {
        return 3;
    }
    end()
}

/// Bad use of the API, each an answer: a checkpoint before start
/// (`NotRunning`), a second start while running (`AlreadyRunning`, the first
/// run goes on), one leak, a stop, a second stop (`NotRunning`) and a
/// checkpoint after stop (`NotRunning`): the ledger is the first run's, one leak
/// and no checkpoint record.
unsafe fn bad_use() -> u32 {
    if memdbg::checkpoint() != Err(Error::NotRunning) {
        return 1;
    }
    let r = begin(&Settings::DEFAULT);
    if r != 0 {
        return r;
    }
    if memdbg::start(&Settings::DEFAULT) != Err(Error::AlreadyRunning) || !memdbg::is_running() {
        return 2;
    }
    let p = mem_ptr_new!(20); // @mark bad-use-leak
    if p.is_null() {
        return 3;
    }
    match memdbg::stop() {
        Ok(s) if s.leaks == 1 => {}
        _ => return 4,
    }
    if memdbg::stop() != Err(Error::NotRunning) {
        return 5;
    }
    if memdbg::checkpoint() != Err(Error::NotRunning) {
        return 6;
    }
    0
}

/// A pointer made in generation 1 and a handle made in generation 2, both
/// resized in generation 3 (the pointer shrunk in place to 8 bytes, the handle
/// grown to 64) and leaked: each keeps the generation it was made in.
unsafe fn resized_across_checkpoints() -> u32 {
    let r = begin(&Settings::DEFAULT);
    if r != 0 {
        return r;
    }
    if memdbg::checkpoint() != Ok(1) {
        return 1;
    }
    let p = mem_ptr_new!(16); // @mark resized-ptr
    if p.is_null() || memdbg::checkpoint() != Ok(2) {
        return 2;
    }
    let h = mem_handle_new!(16); // @mark resized-handle
    if h.is_null() || memdbg::checkpoint() != Ok(3) {
        return 3;
    }
    // SAFETY: live, unlocked blocks of this scenario.
    unsafe {
        if mem_ptr_resize!(p, 8) != errNone || mem_handle_resize!(h, 64) != errNone {
            return 4;
        }
    }
    end()
}

/// Heap pinning: a 20,000-byte pointer, then (with `pin`) a 64-byte pointer or
/// (`locked`) a 64-byte handle kept locked, then a 2,000-byte pointer; both
/// big pointers freed, then a 65,000-byte handle that fits only after the pin,
/// lowering the largest free chunk by more than 1/8: the pin then has the
/// 20,000-byte hole before it and the rest of the heap after it.
unsafe fn pinned(locked: bool, pin: bool) -> u32 {
    let r = begin(&Settings::DEFAULT);
    if r != 0 {
        return r;
    }
    let f1 = mem_ptr_new!(20000); // @mark pin-hole
    let (p, h) = if !pin {
        (core::ptr::null_mut(), core::ptr::null_mut())
    } else if locked {
        let h = mem_handle_new!(64); // @mark pin-handle
        // SAFETY: a live handle, kept locked.
        unsafe { MemHandleLock(h) };
        (core::ptr::null_mut(), h)
    } else {
        (mem_ptr_new!(64), core::ptr::null_mut()) // @mark pin-ptr
    };
    let f2 = mem_ptr_new!(2000); // @mark pin-after
    if f1.is_null() || f2.is_null() || (pin && p.is_null() && h.is_null()) {
        return 1;
    }
    // SAFETY: live pointers, freed once.
    unsafe {
        MemChunkFree(f1);
        MemChunkFree(f2);
    }
    let g = mem_handle_new!(65000); // @mark pin-big
    if g.is_null() {
        return 2;
    }
    end()
}

/// Handle lock balance at stop: a 16-byte handle locked once and kept, a
/// 24-byte one locked twice and kept, a 32-byte one locked and unlocked and
/// kept (not locked), and a 40-byte one locked, unlocked and freed (not live
/// at stop). The first two are reported locked (1 and 2 times) and, like the
/// third, leaked. With call stacks, so that the report shows the sites' callers.
unsafe fn locked_at_stop() -> u32 {
    let r = begin(&Settings {
        options: Settings::DEFAULT
            .options
            .union(memdbg::Options::CALL_STACKS),
        ..Settings::DEFAULT
    });
    if r != 0 {
        return r;
    }
    let once = mem_handle_new!(16); // @mark locked-once
    let twice = mem_handle_new!(24); // @mark locked-twice
    let balanced = mem_handle_new!(32); // @mark locked-balanced
    let freed = mem_handle_new!(40); // @mark locked-freed
    if once.is_null() || twice.is_null() || balanced.is_null() || freed.is_null() {
        return 1;
    }
    // SAFETY: live handles of this scenario; `freed` is freed once, unlocked.
    unsafe {
        MemHandleLock(once);
        MemHandleLock(twice);
        MemHandleLock(twice);
        MemHandleLock(balanced);
        MemHandleUnlock(balanced);
        MemHandleLock(freed);
        MemHandleUnlock(freed);
        if MemHandleFree(freed) != errNone {
            return 2;
        }
        if MemHandleLockCount(once) != 1 || MemHandleLockCount(twice) != 2 {
            return 3;
        }
    }
    // The summary counts the two locked handles (and the three leaks).
    match memdbg::stop() {
        Ok(s) if s.locked == 2 && s.leaks == 3 => 0,
        Ok(_) => 4,
        Err(_) => 91,
    }
}

/// Unlock underflows (`Options::LOCK_CHECKS`, on by default): a 16-byte handle
/// locked once and unlocked twice with `MemHandleUnlock`, and a 24-byte one
/// locked once and unlocked twice through its pointer with `MemPtrUnlock`: each
/// second unlock is refused (`memErrChunkNotLocked`, and palm-run's debug-ROM
/// check never sees it) and recorded with its site; both handles' lock counts
/// stay right (0, then a balanced lock and unlock), and both are freed. With
/// call stacks.
unsafe fn unlock_underflow() -> u32 {
    let r = begin(&Settings {
        options: Settings::DEFAULT
            .options
            .union(memdbg::Options::CALL_STACKS),
        ..Settings::DEFAULT
    });
    if r != 0 {
        return r;
    }
    let h = mem_handle_new!(16); // @mark unlock-handle
    let g = mem_handle_new!(24); // @mark unlock-pointer
    if h.is_null() || g.is_null() {
        return 1;
    }
    // SAFETY: live handles of this scenario, each freed once, unlocked.
    unsafe {
        MemHandleLock(h);
        if MemHandleUnlock(h) != errNone {
            return 2;
        }
        let e = MemHandleUnlock(h); // @mark unlock-handle-twice
        if e != errors::memErrChunkNotLocked || MemHandleLockCount(h) != 0 {
            return 3;
        }
        let p = MemHandleLock(g);
        if MemPtrUnlock(p) != errNone {
            return 4;
        }
        let e = MemPtrUnlock(p); // @mark unlock-pointer-twice
        if e != errors::memErrChunkNotLocked || MemHandleLockCount(g) != 0 {
            return 5;
        }
        MemHandleLock(h);
        if MemHandleLockCount(h) != 1 || MemHandleUnlock(h) != errNone {
            return 6;
        }
        if MemHandleFree(h) != errNone || MemHandleFree(g) != errNone {
            return 7;
        }
    }
    end()
}

/// An unlock of a handle memdbg does not track (made with the plain trap)
/// whose lock count is 0: memdbg passes it to the OS unchanged (palm-run, run
/// with non-fatal checks, reports it and answers `memErrChunkNotLocked`); no
/// record. The handle is freed.
unsafe fn untracked_unlock() -> u32 {
    let r = begin(&Settings::DEFAULT);
    if r != 0 {
        return r;
    }
    // SAFETY: a live handle of this scenario, freed once.
    unsafe {
        let h = MemHandleNew(8);
        if h.is_null() {
            return 1;
        }
        if MemHandleUnlock(h) != errors::memErrChunkNotLocked {
            return 2;
        }
        if MemHandleFree(h) != errNone {
            return 3;
        }
    }
    end()
}
