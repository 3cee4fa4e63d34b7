//! The `MemChunkFree` and `MemHandleFree` patches (PALM_FACTS §3.4).
//!
//! `start` saves the original addresses with `SysGetTrapAddress` and installs the
//! entries below with `SysSetTrapAddress`, reading each back to be sure; `stop` puts
//! the exact originals back and reads them back too. A patch is entered with a plain
//! JSR frame (return address at 0(SP), the Palm-layout argument at 4(SP)) from any
//! context: the app, or the OS freeing on the app's behalf (`FrmDeleteForm` freeing a
//! field's text handle). It finds the state through the Feature Manager, does the
//! bookkeeping ([`crate::track::freeing`]) and chains to the saved original with JSR,
//! never through `TRAP #15` (which would enter the patch again).
//!
//! The entries are memdbg's own 12-byte trampolines rather than palm-sys's
//! `trap_replacement!`, because the bookkeeping needs two values that trampoline does
//! not pass: the caller's return address (the free's site, and whether the app or
//! the OS freed) and the caller's A6 (to walk its callers). Both arguments here are a
//! single pointer, so no re-packing is needed.

use core::ffi::c_void;

use m68k_palmos_sys as palm;
use palm::traps::{sysTrapMemChunkFree, sysTrapMemHandleFree};

use crate::record::HeaderFlags;
use crate::state::{self, State};
use crate::track::{self, Freed};

/// `MemChunkFree` patch entry: calls `chunk_free_body(p, return address, caller A6)`
/// in LLVM's convention and returns its `Err` in D0. Uses only the stack; every
/// register but D0 is preserved by the body (LLVM saves D2–D7/A2–A6).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn chunk_free_entry() {
    core::arch::naked_asm!(
        "move.l %a6,-(%sp)",
        "move.l (4,%sp),-(%sp)",
        "move.l (12,%sp),-(%sp)",
        "bsr.w {body}",
        "lea (12,%sp),%sp",
        "rts",
        body = sym chunk_free_body,
    )
}

/// `MemHandleFree` patch entry (same shape as [`chunk_free_entry`]).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn handle_free_entry() {
    core::arch::naked_asm!(
        "move.l %a6,-(%sp)",
        "move.l (4,%sp),-(%sp)",
        "move.l (12,%sp),-(%sp)",
        "bsr.w {body}",
        "lea (12,%sp),%sp",
        "rts",
        body = sym handle_free_body,
    )
}

/// Host stand-in (the patches only exist on the 68k).
#[cfg(not(target_arch = "m68k"))]
unsafe extern "C" fn chunk_free_entry() {
    unimplemented!("memdbg's trap patches run only on Palm OS")
}

/// Host stand-in (the patches only exist on the 68k).
#[cfg(not(target_arch = "m68k"))]
unsafe extern "C" fn handle_free_entry() {
    unimplemented!("memdbg's trap patches run only on Palm OS")
}

/// Shared body of both patches.
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
fn free_body(addr: u32, handle: bool, ret: u32, frame: u32) -> palm::Err {
    let p = state::state_ptr();
    if p.is_null() {
        // Not reachable while the patch is installed (stop removes the patches
        // before the feature); refuse rather than guess an address to chain to.
        return palm::errors::memErrInvalidParam;
    }
    // SAFETY: the state is live while the feature exists; the originals are written
    // once by `install`, before the patches, and only read afterwards.
    let orig = unsafe {
        if handle {
            (*p).orig_handle_free
        } else {
            (*p).orig_chunk_free
        }
    };
    match state::enter() {
        None => chain(orig, addr, handle),
        Some(st) => {
            let r = match track::freeing(st, addr, handle, ret, frame) {
                Freed::Pass => chain(orig, addr, handle),
                Freed::Refuse => palm::errors::memErrInvalidParam,
            };
            state::leave(st);
            r
        }
    }
}

/// Calls the original free routine.
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
fn chain(orig: *mut c_void, addr: u32, handle: bool) -> palm::Err {
    // SAFETY: `orig` is what SysGetTrapAddress returned for this trap before it was
    // patched; it takes the same single argument.
    unsafe {
        if handle {
            palm::chain::MemHandleFree(orig, addr as usize as palm::MemHandle)
        } else {
            palm::chain::MemChunkFree(orig, addr as usize as palm::MemPtr)
        }
    }
}

/// `MemChunkFree` patch body (called by [`chunk_free_entry`]).
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
extern "C" fn chunk_free_body(p: palm::MemPtr, ret: u32, frame: u32) -> palm::Err {
    free_body(p as u32, false, ret, frame)
}

/// `MemHandleFree` patch body (called by [`handle_free_entry`]).
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
extern "C" fn handle_free_body(h: palm::MemHandle, ret: u32, frame: u32) -> palm::Err {
    free_body(h as u32, true, ret, frame)
}

fn entry(handle: bool) -> *mut c_void {
    if handle {
        handle_free_entry as *mut c_void
    } else {
        chunk_free_entry as *mut c_void
    }
}

fn trap(handle: bool) -> u16 {
    if handle {
        sysTrapMemHandleFree
    } else {
        sysTrapMemChunkFree
    }
}

/// Points `trap` at `to` and reads it back.
fn set(trap: u16, to: *mut c_void) -> bool {
    // SAFETY: plain System Manager calls.
    unsafe {
        palm::SysSetTrapAddress(trap, to) == palm::errNone && palm::SysGetTrapAddress(trap) == to
    }
}

/// Saves the originals and installs both patches, or none: a refusal (Palm OS 5,
/// PumpkinOS) undoes the first and sets [`HeaderFlags::PATCHES_REFUSED`].
pub fn install(st: &mut State) {
    // SAFETY: plain System Manager calls.
    unsafe {
        st.orig_chunk_free = palm::SysGetTrapAddress(sysTrapMemChunkFree);
        st.orig_handle_free = palm::SysGetTrapAddress(sysTrapMemHandleFree);
    }
    if set(trap(false), entry(false)) {
        if set(trap(true), entry(true)) {
            st.patched = 1;
            return;
        }
        set(trap(false), st.orig_chunk_free);
    }
    // A refused set may still have changed an entry: put the originals back.
    put_back(st, false);
    put_back(st, true);
    st.flag(HeaderFlags::PATCHES_REFUSED);
}

fn original(st: &State, handle: bool) -> *mut c_void {
    if handle {
        st.orig_handle_free
    } else {
        st.orig_chunk_free
    }
}

fn put_back(st: &State, handle: bool) {
    let orig = original(st, handle);
    // SAFETY: plain System Manager call.
    if unsafe { palm::SysGetTrapAddress(trap(handle)) } != orig {
        set(trap(handle), orig);
    }
}

/// Restores the exact original addresses (read back). If an entry no longer held our
/// patch, someone patched over it: the original is restored anyway and
/// [`HeaderFlags::TRAPS_DISTURBED`] is set.
pub fn remove(st: &mut State) {
    if st.patched == 0 {
        return;
    }
    restore(st, false);
    restore(st, true);
    st.patched = 0;
}

fn restore(st: &mut State, handle: bool) {
    // SAFETY: plain System Manager call.
    let now = unsafe { palm::SysGetTrapAddress(trap(handle)) };
    if now != entry(handle) || !set(trap(handle), original(st, handle)) {
        st.flag(HeaderFlags::TRAPS_DISTURBED);
    }
}
