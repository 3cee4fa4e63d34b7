//! What the OS offers, found out once at `start` before memdbg relies on it
//! (issue 20: memdbg runs on Palm OSes it was not written against, such as
//! PumpkinOS, and a detector must not be what crashes the app):
//!
//! - [`internals`]: whether the Palm OS 3.x internals memdbg's fast paths read hold
//!   here — a handle's master pointer holds the address `MemHandleLock` gives,
//!   and a chunk's 8-byte header sits before it with the free flag, size,
//!   `sizeAdj`, lock count, owner and `hOffset` where PALM_FACTS §5.1 puts them.
//!   Otherwise memdbg uses documented calls only
//!   ([`HeaderFlags::DOCUMENTED_CALLS`]).
//! - [`dbg_message`]: whether `DbgMessage` is implemented, from the trap table
//!   (else [`HeaderFlags::NO_DBG_MESSAGE`]).
//! - [`alert_dialog`]: whether the ROM has the generic error alert memdbg shows
//!   its alerts with (else [`HeaderFlags::NO_ALERT_DIALOG`]).

use m68k_palmos_sys as palm;
use palm::traps::{sysTrapDbgMessage, sysTrapSysUnimplemented};

use crate::record::HeaderFlags;

/// `sysTrapSysReserved1` (sdk-3.5 `CoreTraps.h`; `sysTrapSysReserved30Trap1` in
/// sdk-4 and sdk-5r4): "Reserved" in the trap table of Palm OS 3.0 and later, so
/// an OS that answers `SysGetTrapAddress` truthfully gives SysUnimplemented's
/// address for it.
pub const SYS_TRAP_RESERVED: u16 = 0xA346;

/// ErrOKAlert: the ROM's generic error alert with an OK button, message
/// `"^1^2^3"` (sdk-3.5 `UIResources.h`: "New for PalmOS 3.2 - Alerts used by the
/// ErrAlertCustom() call"), shown with `FrmCustomAlert`.
pub const ERR_OK_ALERT: u16 = 10021;

/// Bytes of the probe's own chunks (an even size, as a 68k header packs it).
const PROBE_SIZE: u32 = 6;

/// `memPtrLockCount`: the lock count of a non-movable chunk (PALM_FACTS §5.1).
pub const PTR_LOCK_COUNT: u32 = 15;

/// The two longs of the OS 3.x chunk header before `body` (PALM_FACTS §5.1).
///
/// # Safety
/// `body` is the body of a live dynamic-heap chunk on an OS whose handles were
/// found to be master pointers (so its memory is the heap's own).
unsafe fn header(body: u32) -> (u32, u32) {
    let h = body.wrapping_sub(8) as usize as *const u32;
    // SAFETY: the caller's guarantee; even addresses (chunk bodies are).
    unsafe { (h.read_volatile(), h.add(1).read_volatile()) }
}

/// Whether the chunk header before `body` says master pointer `handle` is the
/// chunk's (`hOffset`: the header − 2 × `hOffset` is `handle`; 0 for a
/// non-movable chunk, whose `hOffset` is 0). PALM_FACTS §5.1.
///
/// # Safety
/// As [`header`].
pub unsafe fn points_back(body: u32, handle: u32) -> bool {
    // SAFETY: the caller's guarantee.
    let (_, w1) = unsafe { header(body) };
    if handle == 0 {
        w1 & 0x00FF_FFFF == 0
    } else {
        master_pointer(body, w1) == handle
    }
}

/// The master pointer (a 68k address) that the chunk header long 1 `w1` of the
/// chunk with body `body` names: the header (`body` − 8) − 2 × `hOffset`, its
/// signed low 24 bits (PALM_FACTS §5.1). Meaningful for a movable chunk only
/// (a non-movable chunk's `hOffset` is 0).
pub fn master_pointer(body: u32, w1: u32) -> u32 {
    let h_offset = ((w1 << 8) as i32 >> 8) as u32;
    body.wrapping_sub(8).wrapping_sub(h_offset.wrapping_mul(2))
}

/// The `lockCount` nibble of a chunk header's second long `w1` (its bits 31–28,
/// PALM_FACTS §5.1): 0 for an unlocked movable chunk, 1 to 14 for a locked one,
/// [`PTR_LOCK_COUNT`] (15) for a non-movable chunk.
pub const fn lock_count(w1: u32) -> u32 {
    w1 >> 28
}

/// The lock count the OS keeps for live handle `handle` (a master pointer): the
/// `lockCount` nibble, bits 31–28 of the second long of the chunk header before
/// the body its master pointer holds (PALM_FACTS §5.1); 0 when the master
/// pointer is null (a chunk of size 0 has no body to lock).
///
/// # Safety
/// `handle` is a live tracked handle of the dynamic heap, on an OS the probe
/// found to keep handles as master pointers ([`internals`]).
pub unsafe fn handle_lock_count(handle: u32) -> u32 {
    // SAFETY: the caller's guarantee; handles are even.
    let body = unsafe { (handle as usize as *const u32).read_volatile() };
    if body == 0 {
        return 0;
    }
    // SAFETY: the body of the live chunk the master pointer names.
    let (_, w1) = unsafe { header(body) };
    lock_count(w1)
}

/// Whether the header's long 0 before `body` is a live chunk's holding `size`
/// bytes (`size` field − 8 − `sizeAdj`; the free bit clear).
///
/// # Safety
/// As [`header`].
pub unsafe fn holds(body: u32, size: u32) -> bool {
    // SAFETY: the caller's guarantee.
    let (w0, _) = unsafe { header(body) };
    let whole = w0 & 0x00FF_FFFF;
    let size_adj = (w0 >> 24) & 0x0F;
    w0 & 0x8000_0000 == 0 && whole.wrapping_sub(8).wrapping_sub(size_adj) == size
}

/// Whether the header before `body` is a live chunk's holding `size` bytes
/// (`size` field − 8 − `sizeAdj`), with lock count `lock` and owner `owner` (any
/// when `None`), and master pointer `handle` (0 for a non-movable chunk:
/// `hOffset` 0; else the header − 2 × `hOffset` is `handle`).
///
/// # Safety
/// As [`header`].
pub unsafe fn chunk_is(
    body: u32,
    size: u32,
    lock: Option<u32>,
    owner: Option<u32>,
    handle: u32,
) -> bool {
    // SAFETY: the caller's guarantee.
    let (_, w1) = unsafe { header(body) };
    // SAFETY: the caller's guarantee.
    (unsafe { holds(body, size) })
        && lock.is_none_or(|l| lock_count(w1) == l)
        && owner.is_none_or(|o| (w1 >> 24) & 0x0F == o)
        // SAFETY: the caller's guarantee.
        && unsafe { points_back(body, handle) }
}

/// `memHeapFlagVers3` (`MemoryPrv.h`, PALM_FACTS §5.2): the heap header has a
/// free-list field (`firstFreeChunkOffset`) before its first master pointer
/// table.
const HEAP_FLAG_VERS3: u16 = 0x4000;

/// Whether a live chunk of the dynamic heap starts right before `body` (its
/// header at `body` − 8): `Some(true)`; `Some(false)` when `body` is inside a free
/// chunk, or inside a chunk that does not start there; `None` when the walk
/// cannot tell (the heap's layout is not the one below, or `body` is outside
/// it). The heap's chunks are walked from the first by their `size` fields,
/// from the heap header `MemHeapPtr(0)` gives (a private Memory Manager call,
/// `MemoryPrv.h`, trap 0xA00A in sdk-3.5 `CoreTraps.h`): flags, size, (with
/// `memHeapFlagVers3`) `firstFreeChunkOffset`, then the first master pointer
/// table (`numEntries`, `nextTblOffset`, the entries), then the chunks
/// (PALM_FACTS §5.1–§5.2). The header at `body` − 8 alone cannot say it: the
/// Memory Manager merges a freed chunk into a free neighbour without rewriting
/// the freed chunk's header, which then still reads as a live chunk's.
/// Only where the probe found the OS 3.x internals; one pass over the heap's
/// chunks up to `body` (memdbg's cold paths: a free of an address it no longer
/// tracks, blocks at stop).
pub fn live_chunk_at(body: u32) -> Option<bool> {
    let (mut at, end) = heap_bounds()?;
    let want = body.wrapping_sub(8);
    if want < at || body >= end {
        return None;
    }
    // SAFETY: chunk headers inside the heap, as `heap_bounds` found it.
    let long = |a: u32| unsafe { (a as usize as *const u32).read_volatile() };
    while at < want {
        let size = long(at) & 0x00FF_FFFF;
        if size < 8 || size & 1 != 0 || at + size > end {
            return None;
        }
        if at + size > want {
            return Some(false);
        }
        at += size;
    }
    Some(at == want && long(at) & 0x8000_0000 == 0)
}

/// The dynamic heap's first chunk header and its end (68k addresses), from the
/// heap header `MemHeapPtr(0)` gives (see [`live_chunk_at`]), or `None` when it
/// cannot be read (null or odd).
fn heap_bounds() -> Option<(u32, u32)> {
    // SAFETY: a private trap every Palm OS 3.x ROM has (POSE's heap walker calls
    // it too); its answer is read only as far as the heap header's own size says.
    unsafe {
        let heap = palm::MemHeapPtr(0) as u32;
        if heap == 0 || heap & 1 != 0 {
            return None;
        }
        let word = |a: u32| (a as usize as *const u16).read_volatile();
        let long = |a: u32| (a as usize as *const u32).read_volatile();
        let flags = word(heap);
        let end = heap.wrapping_add(long(heap + 2));
        let mpt = heap + if flags & HEAP_FLAG_VERS3 != 0 { 10 } else { 6 };
        Some((mpt + 6 + 4 * u32::from(word(mpt)), end))
    }
}

/// Calls `f(header, long 0, long 1)` for each chunk of the dynamic heap, from
/// the first to the heap's end (its header's 68k address and the two longs of
/// its header, PALM_FACTS §5.1), stopping at a `size` field that cannot be
/// right (below 8, odd, or past the end). Only where the probe found the OS
/// 3.x internals.
pub fn heap_chunks(mut f: impl FnMut(u32, u32, u32)) {
    let Some((mut at, end)) = heap_bounds() else {
        return;
    };
    while at + 8 <= end {
        // SAFETY: a chunk header inside the heap.
        let (w0, w1) = unsafe { header(at + 8) };
        let size = w0 & 0x00FF_FFFF;
        if size < 8 || size & 1 != 0 || at + size > end {
            return;
        }
        f(at, w0, w1);
        at += size;
    }
}

/// Whether the OS keeps the Palm OS 3.x internals memdbg reads, tried on chunks
/// of its own: a handle (its master pointer `*h` is what `MemHandleLock(h)` gives;
/// its header says live, its size, locked once, the owner `MemHandleOwner` gives,
/// `hOffset` back to `h`), a pointer (lock count 15, `hOffset` 0; the heap walk
/// [`live_chunk_at`] finds it live, and after `MemChunkFree` no longer: what the
/// double-free check and `stop` read), and
/// `state`, the state chunk (`MemPtrNew`, then owner 0) of `state_size` bytes.
/// Also returns the owner ID of the app's chunks (`MemHandleOwner` of the probe
/// handle, a documented call; 0 if the heap had no room for it). `*h` is read
/// only from a nonzero, even handle, and headers only once `*h` passed.
pub fn internals(state: *mut u8, state_size: u32) -> (bool, u16) {
    // SAFETY: plain Memory Manager calls on the probe's own chunks, each freed
    // once; the header reads follow the rules of `header`.
    unsafe {
        let h = palm::MemHandleNew(PROBE_SIZE);
        if h.is_null() {
            return (false, 0);
        }
        let owner = palm::MemHandleOwner(h);
        let hv = h as u32;
        let mp = if hv & 1 == 0 {
            h.cast::<u32>().read_volatile()
        } else {
            1
        };
        let p = palm::MemHandleLock(h) as u32;
        let app = Some(u32::from(owner));
        let fixed = Some(PTR_LOCK_COUNT);
        let mut ok = p == mp
            && chunk_is(p, PROBE_SIZE, Some(1), app, hv)
            && chunk_is(state as u32, state_size, fixed, Some(0), 0);
        palm::MemHandleUnlock(h);
        palm::MemHandleFree(h);
        if ok {
            let q = palm::MemPtrNew(PROBE_SIZE);
            ok = !q.is_null()
                && chunk_is(q as u32, PROBE_SIZE, fixed, app, 0)
                && live_chunk_at(q as u32) == Some(true);
            if !q.is_null() {
                palm::MemChunkFree(q);
                ok = ok && live_chunk_at(q as u32) == Some(false);
            }
        }
        (ok, owner)
    }
}

/// Whether `DbgMessage` is implemented: the SDK's own test of a trap,
/// `SysGetTrapAddress(trap) != SysGetTrapAddress(sysTrapSysUnimplemented)`
/// (palm-os-sdk `PalmOne/Samples/ExtendedSound/Src/Common.c`), trusted only when
/// the table answers it for [`SYS_TRAP_RESERVED`] as it should (PumpkinOS gives
/// every trap an address of its own, `emulation/systrap.c`, and has no
/// DbgMessage for 68k apps).
pub fn dbg_message() -> bool {
    // SAFETY: plain System Manager calls.
    unsafe {
        let unimplemented = palm::SysGetTrapAddress(sysTrapSysUnimplemented);
        palm::SysGetTrapAddress(SYS_TRAP_RESERVED) == unimplemented
            && palm::SysGetTrapAddress(sysTrapDbgMessage) != unimplemented
    }
}

/// Whether the ROM has [`ERR_OK_ALERT`] (`DmGetResource('Talt', 10021)`, released
/// again): Palm OS 3.2 and later.
pub fn alert_dialog() -> bool {
    // SAFETY: plain Data Manager calls.
    unsafe {
        let h = palm::DmGetResource(palm::four_cc(b"Talt"), ERR_OK_ALERT);
        if h.is_null() {
            return false;
        }
        palm::DmReleaseResource(h);
        true
    }
}

/// The header flags of what [`dbg_message`] and [`alert_dialog`] found
/// (`err_display`: the alerts use `ErrDisplayFileLineMsg`, which every ROM has).
pub fn output_flags(err_display: bool) -> HeaderFlags {
    let mut f = HeaderFlags::empty();
    if !dbg_message() {
        f |= HeaderFlags::NO_DBG_MESSAGE;
    }
    if !err_display && !alert_dialog() {
        f |= HeaderFlags::NO_ALERT_DIALOG;
    }
    f
}
