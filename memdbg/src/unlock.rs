//! The unlock checks
//! ([`Options::LOCK_CHECKS`](crate::record::Options::LOCK_CHECKS), issue 14
//! item 2): the patched `MemHandleUnlock` and `MemPtrUnlock` (traps 0xA022 and 0xA035, sdk-3.5
//! `CoreTraps.h`; `asm/patches.s`'s `__memdbg_unlock_entry`) ask [`unlock`]
//! before the OS unlocks anything. An unlock of a tracked handle (through the
//! handle, or through its locked pointer: `MemPtrRecoverHandle`, as the free
//! path's [`block::lookup`] finds it) whose lock count is already 0 is an
//! underflow: recorded ([`UnlockUnderflowRecord`], with the unlock's site and
//! the handle's allocation) and refused, so that the OS never sees it (a debug
//! ROM stops at it, as palm-run's debug-ROM check does; what a release ROM does
//! with it is UNVERIFIED: issue 14 says it corrupts the lock count). The count
//! is the OS's, never memdbg's: the chunk header's `lockCount` on the OS 3.x
//! path ([`crate::probe::handle_lock_count`], PALM_FACTS §5.1),
//! `MemHandleLockCount` (trap 0xA01F) with [`State::documented`]: both are
//! [`block::handle_lock_count`]. Everything else (a locked tracked handle, a
//! handle or pointer memdbg does not track, a tracked pointer) goes to the OS
//! unchanged: memdbg judges only what it tracks.

use core::mem::offset_of;
use core::ptr::addr_of_mut;

use m68k_palmos_sys as palm;

use crate::block::{self, capture};
use crate::ledger;
use crate::record::{
    AllocFlags, FORMAT_VERSION, InteriorFreeRecord, U32Be, UnlockUnderflowRecord, kind,
};
use crate::state::State;

asm_constants! {
    memErrChunkNotLocked = palm::errors::memErrChunkNotLocked;
}

/// Bytes of an unlock-underflow record before its allocation record.
const HEAD: u32 = offset_of!(UnlockUnderflowRecord, alloc) as u32;

/// An unlock of `addr` (`handle` 1: `MemHandleUnlock`, 0: `MemPtrUnlock`) with
/// `st` entered, before the OS sees it; `ret` is the unlock's return address (its
/// site), `frame` its caller's frame. Returns 1 when it was an underflow of a
/// tracked handle (recorded: do not pass it on), else 0 (pass it to the OS).
#[unsafe(export_name = "__memdbg_unlock")]
pub extern "C" fn unlock(st: &mut State, addr: u32, handle: u32, ret: u32, frame: u32) -> u32 {
    if st.live_handles == 0 {
        return 0;
    }
    let rec = block::lookup(st, addr, handle);
    if rec.is_null() || block::flags_of(rec) & AllocFlags::HANDLE.bits() == 0 {
        return 0;
    }
    let key = block::key_of(rec);
    // SAFETY: `key` is a live tracked handle.
    if unsafe { block::handle_lock_count(st, key) } != 0 {
        return 0;
    }
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    // Built in the interior-free scratch record (idle: the detector is busy,
    // no free is being reported), so that the state chunk keeps its size.
    let u = (&mut st.sc().ev.interior as *mut InteriorFreeRecord).cast::<UnlockUnderflowRecord>();
    // SAFETY: the scratch record is large and aligned enough (asserted below)
    // and unused meanwhile; `rec` is a locked allocation record.
    unsafe {
        (*u).kind = kind::UNLOCK_UNDERFLOW;
        (*u).version = FORMAT_VERSION;
        (*u).via = if handle != 0 {
            UnlockUnderflowRecord::VIA_HANDLE
        } else {
            UnlockUnderflowRecord::VIA_POINTER
        };
        (*u).reserved = 0;
        (*u).address = U32Be::new(addr);
        (*u).ticks = U32Be::new(ticks);
        capture(st, addr_of_mut!((*u).site), ret, frame);
        ledger::event(st, u.cast(), HEAD, rec, rec.read());
    }
    1
}

const _: () = assert!(
    core::mem::size_of::<UnlockUnderflowRecord>() <= core::mem::size_of::<InteriorFreeRecord>()
        && core::mem::align_of::<UnlockUnderflowRecord>()
            <= core::mem::align_of::<InteriorFreeRecord>()
);
