//! A tracked block: finding its record from an address the app or the OS passed
//! ([`lookup`]), its chunk ([`chunk`]), its guard ([`check_guard`]), its fills and
//! guard bytes ([`prepare`]), its chunk header's last long ([`check_header`]:
//! underruns), whether it is still the chunk it was at stop ([`still_live`]) and the call stack of whoever is working on it ([`capture`]).
//!
//! The block's bytes and the frame walk are 68000 assembly (`asm/block.s`), shared
//! with the allocation and free paths' assembly; the rest is Rust.

use core::mem::offset_of;

use m68k_palmos_sys as palm;
use palm::{MemHandle, MemPtr};

use crate::events;
use crate::probe;
use crate::record::{
    self, AllocFlags, AllocRecord, FORMAT_VERSION, Options, OverrunRecord, STACK_FRAMES, Stack,
    U32Be, UnderrunRecord, kind,
};
use crate::state::{self, State};

/// The guard bytes of an intact guard, as the guard check reads them (big-endian).
pub const GUARD_INTACT: u32 = u32::from_be_bytes([record::GUARD_BYTE; record::GUARD_LEN]);

/// The bits of a pointer chunk's header long 1 that memdbg knows (PALM_FACTS
/// §5.1, `MemoryPrv.h`): the lock count (bits 31–28) and `hOffset` (bits 23–0),
/// not the owner (bits 27–24: `MemPtrSetOwner` changes it legitimately).
pub const PTR_HEADER_MASK: u32 = 0xF0FF_FFFF;
/// What those bits hold for a pointer (a non-movable chunk): lock count 15
/// (`memPtrLockCount`, [`probe::PTR_LOCK_COUNT`]) and `hOffset` 0.
pub const PTR_HEADER_WANT: u32 = probe::PTR_LOCK_COUNT << 28;
/// The `hOffset` bits of header long 1 (a handle's chunk: the offset from the
/// header back to its master pointer, in 2-byte units, signed 24 bits).
pub const H_OFFSET_MASK: u32 = 0x00FF_FFFF;

/// An empty stack: the caller of an overrun found at stop (read-only data).
pub static NO_STACK: Stack = Stack {
    count: 0,
    raw_mask: 0,
    frames: [U32Be::new(0); STACK_FRAMES],
};

asm_constants! {
    REC_KIND = offset_of!(AllocRecord, kind);
    REC_FLAGS = offset_of!(AllocRecord, flags);
    REC_SIZE = offset_of!(AllocRecord, size);
    REC_ADDRESS = offset_of!(AllocRecord, address);
    REC_SEQ = offset_of!(AllocRecord, seq);
    REC_TICKS = offset_of!(AllocRecord, ticks);
    REC_LINE = offset_of!(AllocRecord, line);
    REC_DATA_OFFSET = offset_of!(AllocRecord, data_offset);
    REC_STACK = offset_of!(AllocRecord, stack);
    REC_FILE = offset_of!(AllocRecord, file);
    REC_LEN = record::ALLOC_RECORD_SIZE;
    STACK_COUNT = offset_of!(Stack, count);
    STACK_RAW_MASK = offset_of!(Stack, raw_mask);
    STACK_FRAMES_AT = offset_of!(Stack, frames);
    STACK_FRAMES = STACK_FRAMES;
    STACK_LEN = core::mem::size_of::<Stack>();
    STACK_TRUNCATED_DEPTH = Stack::TRUNCATED_DEPTH;
    STACK_TRUNCATED_CHAIN = Stack::TRUNCATED_CHAIN as i8;
    AF_GUARDED = AllocFlags::GUARDED.bits();
    AF_GUARDED_BIT = AllocFlags::GUARDED.bits().trailing_zeros();
    AF_HANDLE = AllocFlags::HANDLE.bits();
    AF_HANDLE_BIT = AllocFlags::HANDLE.bits().trailing_zeros();
    AF_NOT_DYNAMIC = AllocFlags::NOT_DYNAMIC.bits();
    AF_NOT_DYNAMIC_BIT = AllocFlags::NOT_DYNAMIC.bits().trailing_zeros();
    AF_OTHER_OWNER = AllocFlags::OTHER_OWNER.bits();
    GUARD_LEN = record::GUARD_LEN;
    GUARD_BYTE = record::GUARD_BYTE as i8;
    GUARD_INTACT = GUARD_INTACT as i32;
    HDR_PTR_MASK = PTR_HEADER_MASK as i32;
    HDR_PTR_WANT = PTR_HEADER_WANT as i32;
    HDR_OFFSET_MASK = H_OFFSET_MASK;
    KIND_POINTER = kind::POINTER;
    KIND_HANDLE = kind::HANDLE;
    KIND_CHUNK = kind::CHUNK;
    KIND_FREE_SLOT = kind::FREE_SLOT;
    FILL_NEW_BYTE = record::FILL_NEW_BYTE;
    FILL_FREED_BYTE = record::FILL_FREED_BYTE;
}

#[cfg(target_arch = "m68k")]
unsafe extern "C" {
    /// `asm/block.s`: [`capture`]'s walk (C convention).
    fn __memdbg_walk(st: *const State, out: *mut Stack, ret: u32, frame: u32, max: u32);
    /// `asm/block.s`: [`prepare`]'s work on a chunk (C convention).
    fn __memdbg_prepare(chunk: u32, flags: u32, from: u32, to: u32, byte: u32);
    /// `asm/block.s`: a block's guard bytes (a register routine).
    fn __memdbg_guard();
}

/// Fills `out` with the callers of a call: with [`Options::CALL_STACKS`] the frame
/// chain, else only `ret` (which costs nothing to find); unused frames are zero.
/// `ret` is the call's return address, `frame` its caller's frame:
/// `__memdbg_walk` (`asm/block.s`) with the options' number of frames.
pub fn capture(st: &State, out: *mut Stack, ret: u32, frame: u32) {
    #[cfg(target_arch = "m68k")]
    // SAFETY: `out` is a writable Stack (in the scratch chunk); the walk reads only
    // plausible frame slots (src/stack.rs) and keeps D2–D7/A2–A6.
    unsafe {
        __memdbg_walk(st, out, ret, frame, 0)
    };
    #[cfg(not(target_arch = "m68k"))]
    {
        let _ = (st, out, ret, frame);
        crate::not_on_palm()
    }
}

/// The chunk of the tracked block at `key` (its record's address field) with
/// [`AllocFlags`] `flags`: a pointer is its chunk; a handle's chunk is what its
/// master pointer holds (PALM_FACTS §5.1: the start's probe found that it does,
/// [`crate::probe::internals`]) or, with [`State::documented`], what
/// `MemHandleLock` gives, locked until [`release_chunk`].
pub fn chunk(st: &State, key: u32, flags: u16) -> u32 {
    if flags & AllocFlags::HANDLE.bits() == 0 {
        return key;
    }
    // SAFETY: `key` is a live tracked handle; its master pointer is read only
    // where the probe found handles to be master pointers.
    unsafe {
        if st.documented != 0 {
            palm::MemHandleLock(key as usize as MemHandle) as u32
        } else {
            (key as usize as *const u32).read()
        }
    }
}

/// Ends [`chunk`]'s use of the block: the handle it locked is unlocked.
pub fn release_chunk(st: &State, key: u32, flags: u16) {
    if flags & AllocFlags::HANDLE.bits() != 0 && st.documented != 0 {
        // SAFETY: locked by `chunk`.
        unsafe { palm::MemHandleUnlock(key as usize as MemHandle) };
    }
}

/// After a block's allocation or resize, or before its free, in the dynamic heap
/// only (the storage heaps are write-protected; `flags` without
/// [`AllocFlags::NOT_DYNAMIC`]): its bytes `from..to` (offsets from the chunk's
/// start) get `byte` (0: no fill), and with [`AllocFlags::GUARDED`] the guard is
/// written at `to`. `key` is the pointer or handle, reached through [`chunk`]:
/// `__memdbg_prepare` (`asm/block.s`) on it. A resize's new bytes and the free's
/// fill of a freed block (its assembly) come here; the allocation's assembly
/// writes its fill and guard inline.
///
/// # Safety
/// `key` is a live block whose chunk holds `to` bytes (and the guard after them
/// when `flags` says so).
#[unsafe(export_name = "__memdbg_prepare_block")]
pub unsafe extern "C" fn prepare(st: &State, key: u32, flags: u32, from: u32, to: u32, byte: u32) {
    let c = chunk(st, key, flags as u16);
    #[cfg(target_arch = "m68k")]
    // SAFETY: the caller's guarantee; the routine keeps D2–D7/A2–A6.
    unsafe {
        __memdbg_prepare(c, flags, from, to, byte)
    };
    #[cfg(not(target_arch = "m68k"))]
    {
        let _ = (c, from, to, byte);
        crate::not_on_palm::<()>()
    }
    release_chunk(st, key, flags as u16);
}

/// The guard bytes of the block whose record is `rec` (`key`: its address), packed
/// big-endian; [`GUARD_INTACT`] when undamaged or when the block has no guard:
/// `__memdbg_guard` (`asm/block.s`) on its [`chunk`].
///
/// # Safety
/// `rec` is a tracked block's record, `key` its address.
unsafe fn guard(st: &State, rec: *const u8, key: u32) -> u32 {
    let flags = flags_of(rec);
    let c = chunk(st, key, flags);
    #[cfg(target_arch = "m68k")]
    let g = {
        let g: u32;
        // SAFETY: the caller's guarantee; the routine only reads, and changes
        // D0–D1/A0–A1.
        unsafe {
            core::arch::asm!(
                "jsr ({f},%pc)",
                f = sym __memdbg_guard,
                inout("a0") rec => _,
                inout("d0") c => g,
                out("d1") _,
                out("a1") _,
                options(readonly),
            )
        };
        g
    };
    #[cfg(not(target_arch = "m68k"))]
    let g = {
        let _ = c;
        crate::not_on_palm::<u32>()
    };
    release_chunk(st, key, flags);
    g
}

/// Whether the guard of the block whose record is `rec` (`key`: its address) is
/// intact (or the block has none).
///
/// # Safety
/// As [`guard`].
pub unsafe fn guard_intact(st: &State, rec: *const u8, key: u32) -> bool {
    // SAFETY: the caller's guarantee.
    unsafe { guard(st, rec, key) == GUARD_INTACT }
}

/// At stop, whether the block of record `rec` (`key`: its address) is still the
/// chunk memdbg recorded: not free and, when `exact` (the frees were not all
/// seen), of the size it recorded (with its data offset and guard: nothing
/// hides them now), owned by the app ([`State::app_owner`], when known) and in
/// the dynamic heap. (Where every free went through the patched traps, an owner
/// change is a hand-off, and a size may have changed through a resize memdbg did
/// not patch: only a free chunk means the block was freed.) With the OS 3.x internals (the probe passed) its chunk header
/// says so (PALM_FACTS §5.1; a handle's master pointer leads to a chunk whose
/// `hOffset` points back at it) and the heap walk finds a live chunk starting
/// there ([`probe::live_chunk_at`]: a chunk freed and merged into a free
/// neighbour keeps a header that reads as live); else the documented calls
/// (`MemPtrSize`, `MemPtrOwner`, `MemPtrHeapID` and their handle forms, which
/// cannot tell a chunk freed but not reused from a live one). A block outside
/// the dynamic heap is taken as live.
pub fn still_live(st: &State, rec: *const u8, key: u32, exact: bool) -> bool {
    let flags = flags_of(rec);
    if flags & AllocFlags::NOT_DYNAMIC.bits() != 0 {
        return true;
    }
    let size = chunk_bytes(rec);
    let handle = flags & AllocFlags::HANDLE.bits() != 0;
    let owner = u16::from(st.app_owner);
    let owned = |o: u16| owner == 0 || o == owner;
    // SAFETY: `key` was a tracked block's address; the header reads happen only
    // where the probe found the OS 3.x layout (and read RAM the heap owns, even
    // when the chunk was freed); the documented calls take what the app was
    // given.
    unsafe {
        if st.documented == 0 {
            let (body, mp) = if handle {
                let mp = (key as usize as *const u32).read_volatile();
                if mp == 0 || mp & 1 != 0 {
                    return false;
                }
                (mp, key)
            } else {
                (key, 0)
            };
            if !exact {
                return match probe::live_chunk_at(body) {
                    Some(live) => live && probe::points_back(body, mp),
                    None => true,
                };
            }
            let lock = if handle {
                None
            } else {
                Some(probe::PTR_LOCK_COUNT)
            };
            let owner = if owner == 0 {
                None
            } else {
                Some(u32::from(owner))
            };
            probe::chunk_is(body, size, lock, owner, mp)
                && probe::live_chunk_at(body) != Some(false)
        } else if handle {
            let h = key as usize as MemHandle;
            palm::MemHandleSize(h) == size
                && owned(palm::MemHandleOwner(h))
                && palm::MemHandleHeapID(h) == 0
        } else {
            let p = key as usize as MemPtr;
            palm::MemPtrSize(p) == size && owned(palm::MemPtrOwner(p)) && palm::MemPtrHeapID(p) == 0
        }
    }
}

/// The bytes the OS was asked for when the block of record `rec` was allocated
/// or last resized: its data offset, its requested size and its guard.
fn chunk_bytes(rec: *const u8) -> u32 {
    // SAFETY: an allocation record.
    let offset = u32::from(unsafe { (*rec.cast::<AllocRecord>()).data_offset.get() });
    let guard = if flags_of(rec) & AllocFlags::GUARDED.bits() != 0 {
        record::GUARD_LEN as u32
    } else {
        0
    };
    offset + size_of(rec) + guard
}

/// A record's key: the block's address (its address field).
#[inline]
pub fn key_of(rec: *const u8) -> u32 {
    // SAFETY: a locked allocation record, 2-aligned; the field is a big-endian long
    // (the 68k's own order).
    unsafe { (*rec.cast::<AllocRecord>()).address.get() }
}

/// The lock count the OS keeps for the live tracked handle `key`, never one of
/// memdbg's own: the chunk header's `lockCount` on the OS 3.x path
/// ([`probe::handle_lock_count`], PALM_FACTS §5.1), `MemHandleLockCount` (trap
/// 0xA01F, sdk-3.5 `CoreTraps.h`) with [`State::documented`]. Always inlined:
/// the unlock check runs it on every unlock, where a call cost 10 instructions
/// more (the bench's lock+unlock row).
///
/// # Safety
/// `key` is a live tracked handle of the dynamic heap.
#[inline(always)]
pub unsafe fn handle_lock_count(st: &State, key: u32) -> u32 {
    // SAFETY: the caller's guarantee; the header is read only where the probe
    // found the OS 3.x internals.
    unsafe {
        if st.documented != 0 {
            u32::from(palm::MemHandleLockCount(key as usize as MemHandle))
        } else {
            probe::handle_lock_count(key)
        }
    }
}

/// A record's flags.
#[inline]
pub fn flags_of(rec: *const u8) -> u16 {
    // SAFETY: as in `key_of`.
    unsafe { (*rec.cast::<AllocRecord>()).flags.get() }
}

/// A record's requested size.
#[inline]
pub fn size_of(rec: *const u8) -> u32 {
    // SAFETY: as in `key_of`.
    unsafe { (*rec.cast::<AllocRecord>()).size.get() }
}

/// The record of the tracked block a size, resize or free call on `addr` is about
/// (`handle` 1: `MemHandleSize`/`MemHandleResize`/`MemHandleFree`, else 0), or null;
/// its key (index entry) is its address field ([`key_of`]). A pointer may be a
/// locked handle's (`MemPtrSize(MemHandleLock(h))` is legal): then the key is the
/// handle, found with `MemPtrRecoverHandle` while handles are live. The record's
/// kind must match the call's: a handle's record for a handle or a locked handle's
/// pointer, a pointer's for a pointer.
pub fn lookup(st: &State, addr: u32, handle: u32) -> *mut u8 {
    let mut want = handle != 0;
    let mut key = addr;
    loop {
        if let Some(pos) = st.index.find(key) {
            // SAFETY: a found position.
            let rec = st.rec(unsafe { st.index.slot_at(pos) });
            let is_handle = flags_of(rec) & AllocFlags::HANDLE.bits() != 0;
            return if is_handle == want {
                rec
            } else {
                core::ptr::null_mut()
            };
        }
        if want || st.live_handles == 0 || addr == 0 || addr & 1 != 0 {
            return core::ptr::null_mut();
        }
        // SAFETY: `addr` was passed to a Memory Manager call on a chunk; the OS
        // answers 0 for a non-movable chunk.
        key = unsafe { palm::MemPtrRecoverHandle(addr as usize as palm::MemPtr) } as u32;
        if key == 0 {
            return core::ptr::null_mut();
        }
        want = true;
    }
}

/// Bytes of an overrun record before its allocation record.
const OVERRUN_HEAD: u32 = offset_of!(OverrunRecord, alloc) as u32;

/// Checks the guard of the tracked block whose record is `rec` (`key`: its address).
/// A damaged guard is recorded (and with [`Options::ALERT_OVERRUNS`] shown at once,
/// except at stop, whose alerts come after the ledger is closed) as an overrun
/// found `when` (a [`record::detected`] value), at `ticks`, by the caller
/// at `site` ([`NO_STACK`]: unknown), and the record gets [`AllocFlags::OVERRUN`].
/// The free path's assembly calls it when it finds a damaged guard.
///
/// # Safety
/// `rec` is a tracked block's (locked) record, `key` its address; `site` is a
/// readable stack (it may be the scratch overrun record's own).
#[unsafe(export_name = "__memdbg_check_guard")]
pub unsafe extern "C" fn check_guard(
    st: &mut State,
    rec: *mut u8,
    key: u32,
    when: u32,
    ticks: u32,
    site: *const Stack,
) {
    // SAFETY: the caller's guarantee.
    let g = unsafe { guard(st, rec, key) };
    if g == GUARD_INTACT {
        return;
    }
    state::bump(&mut st.counters().overruns);
    let flags = flags_of(rec) | AllocFlags::OVERRUN.bits();
    crate::ledger::write(rec, AllocRecord::FLAGS_OFFSET, &flags.to_be_bytes());
    let o = &mut st.sc().ev.overrun;
    // SAFETY: `site` is readable (copy allows it to be `o.site` itself).
    unsafe { core::ptr::copy(site, &mut o.site, 1) };
    o.kind = kind::OVERRUN;
    o.version = FORMAT_VERSION;
    o.when.set(when as u16);
    o.ticks.set(ticks);
    o.guard = g.to_be_bytes();
    let head = (o as *mut OverrunRecord).cast::<u8>();
    // SAFETY: the record's kind byte; the overrun record is in the scratch chunk.
    unsafe {
        let k = rec.read();
        let alert = if when == u32::from(record::detected::AT_STOP) {
            Options::empty()
        } else {
            Options::ALERT_OVERRUNS
        };
        events::report(st, head, OVERRUN_HEAD, rec, k, alert, &events::OVERRUN)
    };
}

/// What the chunk header's long 1 (its last 4 bytes, just before `body`) of the
/// tracked block at `key` must hold, from `found` (that long as read): a pointer's
/// ([`PTR_HEADER_MASK`]) lock count 15 and `hOffset` 0; a handle's (`key` its
/// master pointer) `hOffset` = (header − `key`) / 2 (PALM_FACTS §5.1:
/// `MemPtrRecoverHandle` computes body − 8 − 2 × `hOffset`). The bits memdbg
/// cannot know (the owner, a handle's lock count) are `found`'s. Equal to
/// `found` when the header is intact.
pub fn header_expected(body: u32, key: u32, handle: bool, found: u32) -> u32 {
    if handle {
        let h_offset = body.wrapping_sub(8).wrapping_sub(key) >> 1;
        (found & !H_OFFSET_MASK) | (h_offset & H_OFFSET_MASK)
    } else {
        (found & !PTR_HEADER_MASK) | PTR_HEADER_WANT
    }
}

/// Bytes of an underrun record before its allocation record.
const UNDERRUN_HEAD: u32 = offset_of!(UnderrunRecord, alloc) as u32;

/// Checks the chunk header before the tracked block whose record is `rec`
/// (`key`: its address): its last long ([`header_expected`]), which a write of 1
/// to 4 bytes just before the block changes. A damaged one is an underrun:
/// recorded (and with [`Options::ALERT_OVERRUNS`] shown at once, except at stop)
/// as found `when` (a [`record::detected`] value), at `ticks`, by the caller at
/// `site` ([`NO_STACK`]: unknown), with the long as found; then the long is
/// repaired (the lock count and `hOffset` memdbg knows written back, the owner
/// left as found), so that the OS's free, resize or heap walk reads the header
/// it wrote. Only with the OS 3.x internals (with [`State::documented`] no header
/// is read: nothing is checked) and in the dynamic heap; at stop only a block
/// whose chunk the heap walk finds live ([`probe::live_chunk_at`]) and whose
/// header's long 0 still gives the size memdbg recorded ([`probe::holds`]):
/// otherwise the memory may no longer be its block (freed unseen), and is left
/// alone. The free path's assembly calls it when its
/// inline check of the same long fails.
///
/// # Safety
/// `rec` is a tracked block's (locked) record, `key` its address; `site` is a
/// readable stack (it may be the scratch underrun record's own).
#[unsafe(export_name = "__memdbg_check_header")]
pub unsafe extern "C" fn check_header(
    st: &mut State,
    rec: *mut u8,
    key: u32,
    when: u32,
    ticks: u32,
    site: *const Stack,
) {
    let flags = flags_of(rec);
    if st.documented != 0 || flags & AllocFlags::NOT_DYNAMIC.bits() != 0 {
        return;
    }
    let handle = flags & AllocFlags::HANDLE.bits() != 0;
    let body = chunk(st, key, flags);
    if body == 0 || body & 1 != 0 {
        return;
    }
    // SAFETY: the header of the block's chunk (OS 3.x internals).
    if when == u32::from(record::detected::AT_STOP)
        && (probe::live_chunk_at(body) == Some(false)
            || !unsafe { probe::holds(body, chunk_bytes(rec)) })
    {
        return;
    }
    let at = body.wrapping_sub(4) as usize as *mut u32;
    // SAFETY: the chunk header of a live dynamic-heap block (OS 3.x internals),
    // an even address.
    let found = unsafe { at.read_volatile() };
    let want = header_expected(body, key, handle, found);
    if found == want {
        return;
    }
    // SAFETY: as above; the dynamic heap is writable.
    unsafe { at.write_volatile(want) };
    let u = &mut st.sc().ev.underrun;
    // SAFETY: `site` is readable (copy allows it to be `u.site` itself).
    unsafe { core::ptr::copy(site, &mut u.site, 1) };
    u.kind = kind::UNDERRUN;
    u.version = FORMAT_VERSION;
    u.when.set(when as u16);
    u.ticks.set(ticks);
    u.header = found.to_be_bytes();
    let head = (u as *mut UnderrunRecord).cast::<u8>();
    // SAFETY: the record's kind byte; the underrun record is in the scratch chunk.
    unsafe {
        let k = rec.read();
        let alert = if when == u32::from(record::detected::AT_STOP) {
            Options::empty()
        } else {
            Options::ALERT_OVERRUNS
        };
        events::report(st, head, UNDERRUN_HEAD, rec, k, alert, &events::UNDERRUN)
    };
}
