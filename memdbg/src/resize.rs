//! Sizes and resizes of tracked blocks: the guard bytes are invisible. The size
//! traps' patch answers a tracked guarded block's requested size
//! ([`visible_size`]); a resize by a wrapper or, through the resize traps' patch,
//! by anyone (the Field Manager growing a text handle, the app calling the trap)
//! checks the guard, resizes with room for a new one, writes it and keeps the
//! block's one record up to date ([`resize`]). The patches' entries are assembly
//! (`asm/patches.s`, Palm's register rules); these bodies are Rust.

use core::mem::offset_of;

use m68k_palmos_sys as palm;
use palm::{MemHandle, MemPtr};

use crate::block::{self, capture, check_guard, check_header, prepare};
use crate::ledger;
use crate::record::{self, AllocFlags, AllocRecord, Options, detected};
use crate::state::{self, PATCHED_SIZES, State};

/// What the size patches answer for `addr` (`handle` 1: `MemHandleSize`), given the
/// original's answer `os`: for a tracked guarded block, the bytes before its guard
/// (its requested size, plus its data offset for an over-aligned Rust block), so
/// that nothing writes the guard because the chunk is bigger; else `os`. The size
/// patches' entry calls it with the detector busy.
#[unsafe(export_name = "__memdbg_visible_size")]
pub extern "C" fn visible_size(st: &mut State, addr: u32, handle: u32, os: u32) -> u32 {
    let rec = block::lookup(st, addr, handle);
    if rec.is_null() || block::flags_of(rec) & AllocFlags::GUARDED.bits() == 0 {
        return os;
    }
    // SAFETY: a locked allocation record.
    let offset = unsafe { (*rec.cast::<AllocRecord>()).data_offset.get() };
    u32::from(offset) + block::size_of(rec)
}

/// Resizes a block through the Memory Manager (a handle if `handle` is nonzero, else
/// a pointer): through the saved original when the resize traps are patched (so the
/// patch is not entered again), else through the trap. Returns the `Err`.
///
/// # Safety
/// The arguments are what the app (or the OS) passed to a resize, with room for
/// the guard when the chunk has one.
unsafe fn os_resize(st: &State, addr: u32, size: u32, handle: u32) -> palm::Err {
    // SAFETY: the caller's guarantee; the originals take the arguments the patched
    // trap got (two 4-byte arguments, an `Err` back, for both forms).
    unsafe {
        if st.patched & PATCHED_SIZES != 0 {
            let orig = if handle != 0 {
                st.orig_handle_resize
            } else {
                st.orig_ptr_resize
            };
            palm::chain::MemPtrResize(orig, addr as usize as MemPtr, size)
        } else if handle != 0 {
            palm::MemHandleResize(addr as usize as MemHandle, size)
        } else {
            palm::MemPtrResize(addr as usize as MemPtr, size)
        }
    }
}

/// A resize of `addr` to `size` (`handle` 1: `MemHandleResize`) with `st` entered:
/// by a wrapper or, through the resize patches, by anyone. A tracked block's guard
/// is checked (a damaged one is an overrun found at the resize, by the caller `ret`
/// with its frame `frame`), the block is resized with room for a new guard (without
/// it when there is no room), the grown part filled ([`Options::FILL_NEW`]) and the
/// guard rewritten, and the record gets the new size and [`AllocFlags::RESIZED`]
/// (one record stays, also when a handle's chunk moves). `addr` may be a locked
/// handle's pointer (`MemPtrResize` resizes its chunk in place): the handle's
/// record is updated. Untracked blocks are simply resized. Returns the `Err` (on an
/// error nothing changes). The resize patches' entry calls it.
///
/// # Safety
/// The arguments are what the app (or the OS) passed to the resize.
#[unsafe(export_name = "__memdbg_resize")]
pub unsafe extern "C" fn resize(
    st: &mut State,
    addr: u32,
    size: u32,
    handle: u32,
    ret: u32,
    frame: u32,
) -> palm::Err {
    let rec = block::lookup(st, addr, handle);
    if rec.is_null() {
        // SAFETY: the caller's guarantee.
        return unsafe { os_resize(st, addr, size, handle) };
    }
    let key = block::key_of(rec);
    let site = &mut st.sc().ev.overrun.site;
    capture(st, site, ret, frame);
    // SAFETY: TimGetTicks has no arguments; a tracked block's record and key; the
    // site is the scratch overrun record's.
    unsafe {
        let ticks = palm::TimGetTicks();
        check_header(st, rec, key, detected::AT_RESIZE.into(), ticks, site);
        check_guard(st, rec, key, detected::AT_RESIZE.into(), ticks, site);
    }
    // (Read now: check_guard may have added OVERRUN.)
    let mut flags = block::flags_of(rec) | AllocFlags::RESIZED.bits();
    // Guarded: with room for the guard first; without it (the request) when the OS
    // has no room for it.
    let guarded = flags & AllocFlags::GUARDED.bits() != 0;
    let want = if guarded {
        size.wrapping_add(record::GUARD_LEN as u32)
    } else {
        size
    };
    // SAFETY: the caller's guarantee, with room for the guard when the block has one.
    let mut err = unsafe { os_resize(st, addr, want, handle) };
    if err != palm::errNone && guarded {
        flags &= !AllocFlags::GUARDED.bits();
        // SAFETY: as above.
        err = unsafe { os_resize(st, addr, size, handle) };
    }
    if err != palm::errNone {
        return err;
    }
    let fill = if st.has(Options::FILL_NEW) {
        record::FILL_RESIZE_BYTE
    } else {
        0
    };
    // (The record's size is still the old one.)
    let old = block::size_of(rec);
    // SAFETY: the block was just resized to `size` (and the guard when flagged).
    unsafe { prepare(st, key, u32::from(flags), old, size, u32::from(fill)) };
    // The flags and size are adjacent (bytes 2..8): one DmWrite, from the scratch
    // record (its flags and size are written again at every allocation).
    let r = &mut st.sc().rec;
    r.flags.set(flags);
    r.size.set(size);
    // SAFETY: the scratch record's bytes 2..8, its flags and size.
    let bytes = unsafe {
        core::slice::from_raw_parts(
            (r as *const AllocRecord)
                .cast::<u8>()
                .add(offset_of!(AllocRecord, flags)),
            6,
        )
    };
    ledger::write(rec, AllocRecord::FLAGS_OFFSET, bytes);
    st.live_bytes = st.live_bytes.wrapping_sub(old).wrapping_add(size);
    if st.live_bytes > st.peak_bytes {
        st.peak_bytes = st.live_bytes;
    }
    state::bump(&mut st.counters().resizes);
    palm::errNone
}
static_assertions::const_assert_eq!(
    offset_of!(AllocRecord, size),
    offset_of!(AllocRecord, flags) + 2
);

/// The resize wrappers' body (and [`crate::MemDbgAlloc`]'s `realloc`'s): `addr`
/// resized to `size` (`handle` 1: a handle, 0: a pointer). With the detector
/// entered, [`resize`], with the resize's site `ret` and its caller's frame `frame`
/// (the program's); else the plain `MemHandleResize` or `MemPtrResize`. Returns the
/// `Err`.
///
/// # Safety
/// As `MemPtrResize`/`MemHandleResize` for `addr`.
pub unsafe fn wrapped(addr: u32, size: u32, handle: u32, ret: u32, frame: u32) -> palm::Err {
    let Some(st) = state::enter() else {
        // SAFETY: the caller's contract.
        return unsafe {
            if handle != 0 {
                palm::MemHandleResize(addr as usize as MemHandle, size)
            } else {
                palm::MemPtrResize(addr as usize as MemPtr, size)
            }
        };
    };
    // SAFETY: the caller's contract; the entered state.
    let r = unsafe { resize(st, addr, size, handle, ret, frame) };
    state::leave(st);
    r
}
