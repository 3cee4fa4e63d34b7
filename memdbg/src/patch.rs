//! The `MemChunkFree` and `MemHandleFree` patches (PALM_FACTS §3.4).
//!
//! `start` saves the original addresses with `SysGetTrapAddress` and points the two
//! dispatch-table entries, with `SysSetTrapAddress` (each read back), at two small
//! trampolines it writes into a system-owned chunk of the dynamic heap; `stop` puts
//! the exact originals back and reads them back too. A patch is entered with a plain
//! JSR frame (return address at 0(SP), the Palm-layout argument at 4(SP)) from any
//! context: the app, or the OS freeing on the app's behalf (`FrmDeleteForm` freeing a
//! field's text handle). It does the bookkeeping ([`crate::track::freeing`]) and
//! chains to the saved original with JSR, never through `TRAP #15` (which would enter
//! the patch again).
//!
//! Each trampoline (12 bytes) pushes the state chunk's address and jumps to its entry
//! in code 1:
//!
//! ```text
//! move.l #state,-(%sp)   ; 2F3C ssss ssss
//! jmp    entry           ; 4EF9 eeee eeee   (absolute: code 1 is locked while the app runs)
//! ```
//!
//! so the free path finds the state without a Feature Manager call. Code in a chunk
//! is ordinary RAM to the 68000 (no MMU, no caches on DragonBall); the chunk is owned
//! by the system (owner 0) so the OS never frees it, and `stop` frees it after the
//! table is restored. The entries are memdbg's own (not palm-sys's
//! `trap_replacement!`) because the bookkeeping needs the caller's return address
//! (the free's site, and whether the app or the OS freed) and the caller's A6 (to
//! walk its callers). Both arguments are a single pointer: no re-packing is needed.

use core::ffi::c_void;

use m68k_palmos_sys as palm;
use palm::traps::{sysTrapMemChunkFree, sysTrapMemHandleFree};

use crate::record::HeaderFlags;
use crate::state::State;
use crate::track::{self, Freed};

/// Bytes of one trampoline.
pub const TRAMPOLINE_LEN: usize = 12;

/// `MemChunkFree` patch entry, reached from its trampoline with the state's address
/// pushed above the JSR frame: calls `chunk_free_body(state, p, return address,
/// caller A6)` in LLVM's convention, pops everything the trampoline and it pushed,
/// and returns the body's `Err` in D0. Every other register is preserved by the body
/// (LLVM saves D2–D7/A2–A6).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn chunk_free_entry() {
    // Stack on entry: state, ret, p.
    core::arch::naked_asm!(
        "move.l %a6,-(%sp)",      // a6 state ret p
        "move.l (8,%sp),-(%sp)",  // ret a6 state ret p
        "move.l (16,%sp),-(%sp)", // p ret a6 state ret p
        "move.l (12,%sp),-(%sp)", // state p ret a6 state ret p
        "bsr.w {body}",
        "lea (20,%sp),%sp", // ret p
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
        "move.l (8,%sp),-(%sp)",
        "move.l (16,%sp),-(%sp)",
        "move.l (12,%sp),-(%sp)",
        "bsr.w {body}",
        "lea (20,%sp),%sp",
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
#[inline(always)]
fn free_body(st: *mut State, addr: u32, handle: bool, ret: u32, frame: u32) -> palm::Err {
    // SAFETY: `st` is the live state (the trampolines exist only while it does). The
    // originals are written once by `install`, before the patches, and only read
    // afterwards. `busy` is read and written volatile (see `state::enter`): a nested
    // entry goes straight to the original.
    unsafe {
        let orig = if handle {
            (*st).orig_handle_free
        } else {
            (*st).orig_chunk_free
        };
        let busy = core::ptr::addr_of_mut!((*st).busy);
        if busy.read_volatile() != 0 {
            return chain(orig, addr, handle);
        }
        busy.write_volatile(1);
        let r = match track::freeing(&mut *st, addr, handle, ret, frame) {
            Freed::Pass => chain(orig, addr, handle),
            Freed::Refuse => palm::errors::memErrInvalidParam,
        };
        busy.write_volatile(0);
        r
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
extern "C" fn chunk_free_body(st: *mut State, p: palm::MemPtr, ret: u32, frame: u32) -> palm::Err {
    free_body(st, p as u32, false, ret, frame)
}

/// `MemHandleFree` patch body (called by [`handle_free_entry`]).
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
extern "C" fn handle_free_body(
    st: *mut State,
    h: palm::MemHandle,
    ret: u32,
    frame: u32,
) -> palm::Err {
    free_body(st, h as u32, true, ret, frame)
}

/// The trampoline the dispatch table points at for one of the traps.
fn entry(st: &State, handle: bool) -> *mut c_void {
    // SAFETY: the trampoline chunk holds two trampolines.
    unsafe {
        st.trampolines
            .add(if handle { TRAMPOLINE_LEN } else { 0 })
            .cast()
    }
}

/// Writes a trampoline at `at` that pushes `state` and jumps to `target`.
///
/// # Safety
/// `at` is [`TRAMPOLINE_LEN`] writable bytes of the dynamic heap, 2-aligned.
unsafe fn write_trampoline(at: *mut u8, state: u32, target: u32) {
    // SAFETY: the caller's guarantee; 16-bit stores at even addresses.
    unsafe {
        let w = at.cast::<u16>();
        w.write(0x2F3C); // move.l #imm,-(%sp)
        w.add(1).write((state >> 16) as u16);
        w.add(2).write(state as u16);
        w.add(3).write(0x4EF9); // jmp abs.l
        w.add(4).write((target >> 16) as u16);
        w.add(5).write(target as u16);
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

/// Saves the originals, writes the trampolines into `st.trampolines` (allocated by
/// `start`) and installs both patches, or none: a refusal (Palm OS 5, PumpkinOS)
/// undoes the first and sets [`HeaderFlags::PATCHES_REFUSED`].
pub fn install(st: &mut State) {
    let state = st as *mut State as u32;
    // SAFETY: two trampolines fit in the chunk `start` allocated for them.
    unsafe {
        write_trampoline(
            entry(st, false).cast(),
            state,
            chunk_free_entry as *const () as u32,
        );
        write_trampoline(
            entry(st, true).cast(),
            state,
            handle_free_entry as *const () as u32,
        );
    }
    // SAFETY: plain System Manager calls.
    unsafe {
        st.orig_chunk_free = palm::SysGetTrapAddress(sysTrapMemChunkFree);
        st.orig_handle_free = palm::SysGetTrapAddress(sysTrapMemHandleFree);
    }
    if set(trap(false), entry(st, false)) {
        if set(trap(true), entry(st, true)) {
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
    if now != entry(st, handle) || !set(trap(handle), original(st, handle)) {
        st.flag(HeaderFlags::TRAPS_DISTURBED);
    }
}
