//! The free path: the bookkeeping of every free, by the free traps' entry (the OS's
//! frees too: `FrmDeleteForm` freeing a field's text handle) and by the free
//! wrappers ([`wrapped`]). The free of a tracked block is `__memdbg_free_block`
//! (`asm/free.s`: 68000 assembly, as it runs on every free; its header lists its
//! steps). An address the index does not hold is Rust ([`free_unindexed`]): a
//! double free (caught before the OS sees it, reported with both frees' sites), a
//! locked handle's pointer (its handle is freed), or a block never tracked
//! (counted).

use core::mem::offset_of;

use m68k_palmos_sys as palm;
use palm::{MemHandle, MemPtr};

use crate::block::{self, capture};
use crate::events;
use crate::probe;
use crate::record::{
    AllocFlags, AllocRecord, DoubleFreeRecord, FORMAT_VERSION, GUARD_LEN, InteriorFreeRecord,
    Options, detected, kind,
};
use crate::state::{self, RING, State};

/// What the free bookkeeping says about a free.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Freed {
    /// Pass it to the OS.
    Pass = 0,
    /// A double free: do not pass it on (the OS would corrupt its heap or stop).
    Refuse = 1,
}

asm_constants! {
    FREED_PASS = Freed::Pass as u32;
    FREED_REFUSE = Freed::Refuse as u32;
    AT_FREE = detected::AT_FREE;
    memErrInvalidParam = palm::errors::memErrInvalidParam;
}

#[cfg(target_arch = "m68k")]
unsafe extern "C" {
    /// `asm/free.s`: the bookkeeping of a free (a register routine).
    fn __memdbg_free_block();
}

/// The bookkeeping of a free of `addr` (`handle` 1: through `MemHandleFree`, else
/// `MemChunkFree`) with `st` entered, before the OS frees it: `ret` is the free
/// call's return address (its site), `frame` its caller's frame.
/// `__memdbg_free_block` (`asm/free.s`).
fn free_block(st: &mut State, addr: u32, handle: u32, ret: u32, frame: u32) -> Freed {
    #[cfg(target_arch = "m68k")]
    {
        let r: u32;
        // SAFETY: the routine's contract: the entered state; it keeps D2–D7/A2–A6.
        unsafe {
            core::arch::asm!(
                "jsr ({f},%pc)",
                f = sym __memdbg_free_block,
                inout("a0") st => _,
                inout("d0") addr => r,
                inout("d1") handle => _,
                inout("a1") ret => _,
                in("d2") frame,
            )
        };
        if r == Freed::Pass as u32 {
            Freed::Pass
        } else {
            Freed::Refuse
        }
    }
    #[cfg(not(target_arch = "m68k"))]
    {
        let _ = (st, addr, handle, ret, frame);
        crate::not_on_palm()
    }
}

/// The free wrappers' body: frees `addr` through the trap (`handle` 1:
/// `MemHandleFree`, 0: `MemChunkFree`) with the detector entered: the bookkeeping
/// first, with the free's site `ret` and its caller's frame `frame` (the program's),
/// then the trap while still entered, so that memdbg's own free patch, if installed,
/// passes it straight to the original (the free is recorded once, at the program's
/// call). A double free is not passed on: `memErrInvalidParam`. Not running (or
/// busy): the plain trap. Returns the `Err`.
///
/// # Safety
/// As `MemChunkFree`/`MemHandleFree` for `addr`.
pub unsafe fn wrapped(addr: u32, handle: u32, ret: u32, frame: u32) -> palm::Err {
    let mut st = state::enter();
    if let Some(st) = st.as_deref_mut()
        && free_block(st, addr, handle, ret, frame) == Freed::Refuse
    {
        state::leave(st);
        return palm::errors::memErrInvalidParam;
    }
    // SAFETY: the caller's contract.
    let err = unsafe {
        if handle != 0 {
            palm::MemHandleFree(addr as usize as MemHandle)
        } else {
            palm::MemChunkFree(addr as usize as MemPtr)
        }
    };
    if let Some(st) = st {
        state::leave(st);
    }
    err
}

/// A free of an address the index does not hold, with `st` entered (`handle` 1:
/// through `MemHandleFree`; `ret`/`frame` as for the free): a double free (a ring
/// entry holds it and its chunk is still free: reported, [`Freed::Refuse`]); a
/// locked handle's pointer (`MemPtrFree(MemHandleLock(h))` is legal on Palm OS:
/// returns the handle's key, which the free path then frees as tracked); from
/// the app's code, a `MemChunkFree` of an address inside a live tracked block
/// ([`interior`]: reported with its offset and site, [`Freed::Refuse`]: a
/// release ROM does not check it); else a block never tracked, counted as the
/// app's or, from outside code 1, the OS's unknown free ([`Freed::Pass`]). The
/// free path's assembly calls it.
#[unsafe(export_name = "__memdbg_free_unindexed")]
pub extern "C" fn free_unindexed(
    st: &mut State,
    handle: u32,
    ret: u32,
    frame: u32,
    addr: u32,
) -> u32 {
    if addr != 0 && addr & 1 == 0 {
        if let Some(i) = ring_find(st, addr, handle != 0)
            && still_free(st, addr, handle != 0, ret)
        {
            double_free(st, i, ret, frame);
            return Freed::Refuse as u32;
        }
        // (Before the handle look-up: MemPtrRecoverHandle of an address inside
        // a chunk is an error a debug ROM stops at.)
        if handle == 0
            && (st.code.base == 0 || st.code.contains(ret))
            && let Some((rec, offset)) = interior(st, addr)
        {
            interior_free(st, rec, addr, offset, ret, frame);
            return Freed::Refuse as u32;
        }
        let rec = block::lookup(st, addr, handle);
        if !rec.is_null() {
            return block::key_of(rec);
        }
    }
    let k = st.counters();
    if st.code.base == 0 || st.code.contains(ret) {
        state::bump(&mut k.unknown_frees);
    } else {
        state::bump(&mut k.os_unknown_frees);
    }
    Freed::Pass as u32
}
// A tracked block's key is an even, nonzero address: never one of the answers.
static_assertions::const_assert!(Freed::Pass as u32 == 0 && Freed::Refuse as u32 == 1);

/// The ring entry that holds `addr`, newest first: as the block freed, or (a
/// `MemChunkFree`, `handle` false) as the chunk a handle had when it was freed.
fn ring_find(st: &State, addr: u32, handle: bool) -> Option<usize> {
    let ring = &st.sc().ring;
    let mut i = usize::from(st.ring_next);
    for _ in 0..RING {
        i = i.wrapping_sub(1) & (RING - 1);
        if ring.addr[i] == addr || (!handle && ring.chunk[i] == addr) {
            return Some(i);
        }
    }
    None
}

/// Whether a block freed earlier is still free (so a new free of `addr`, a
/// pointer or, `handle`, a handle, by the caller at `ret`, is a double free)
/// rather than reused by an allocation the detector did not see. With the OS
/// 3.x internals: a handle whose master pointer no longer leads to a chunk
/// whose `hOffset` (the header's low 24 bits, signed, in 2-byte units) points
/// back at it is free; else its chunk, or the pointer's, is free unless the heap
/// walk finds a live chunk starting there ([`probe::live_chunk_at`]: the freed
/// chunk's own header may have been merged into a free neighbour's and still
/// read as live; PALM_FACTS §5.1). Without those internals
/// ([`State::documented`]) no documented call can tell: the free is taken as a
/// double free when the app's own code makes it (code 1, or code 1 unknown), and
/// as a reused chunk's when the OS does (the OS frees chunks of its own, which
/// may reuse the address).
fn still_free(st: &State, addr: u32, handle: bool, ret: u32) -> bool {
    if st.documented != 0 {
        return st.code.base == 0 || st.code.contains(ret);
    }
    let long = |a: u32| {
        // SAFETY: `addr` was a valid chunk or handle of the dynamic heap (it is in
        // the ring), so these header and master-pointer reads are inside mapped RAM
        // (even addresses: the 68000 reads longs at any even one).
        unsafe { (a as usize as *const u32).read_volatile() }
    };
    let body = if handle {
        let mp = long(addr);
        if mp == 0 || mp & 1 != 0 {
            return true;
        }
        // SAFETY: as above: `mp` is even and nonzero, a chunk's body as the
        // handle's master pointer holds it.
        if !unsafe { probe::points_back(mp, addr) } {
            return true;
        }
        mp
    } else {
        addr
    };
    match probe::live_chunk_at(body) {
        Some(live) => !live,
        None => long(body.wrapping_sub(8)) & 0x8000_0000 != 0,
    }
}

/// The live tracked block whose chunk holds `addr` without starting there
/// (`addr` is not the block's own address): its record and `addr`'s offset from
/// the block's address (negative inside an over-aligned Rust block's padding).
/// One pass over the slots' records, only for a free of an address the index
/// does not hold, made by the app's code (the OS frees chunks of its own all the
/// time, never inside the app's blocks); a handle's chunk through
/// [`block::chunk`] (its master pointer, or `MemHandleLock` with documented
/// calls).
fn interior(st: &State, addr: u32) -> Option<(*mut u8, i32)> {
    for s in 0..st.n_slots {
        let rec = st.rec(s);
        // SAFETY: a slot's record: an allocation record or a free slot.
        let a = unsafe { &*rec.cast::<AllocRecord>() };
        let flags = a.flags.get();
        if !kind::is_alloc(a.kind) || flags & AllocFlags::FREED_UNSEEN.bits() != 0 {
            continue;
        }
        let key = block::key_of(rec);
        let offset = u32::from(a.data_offset.get());
        let handle = flags & AllocFlags::HANDLE.bits() != 0;
        let at = if handle {
            block::chunk(st, key, flags).wrapping_add(offset)
        } else {
            key
        };
        if handle {
            block::release_chunk(st, key, flags);
        }
        let guard = if flags & AllocFlags::GUARDED.bits() != 0 {
            GUARD_LEN as u32
        } else {
            0
        };
        let start = at.wrapping_sub(offset);
        let end = at.wrapping_add(block::size_of(rec) + guard);
        if addr != at && addr >= start && addr < end {
            return Some((rec, addr.wrapping_sub(at) as i32));
        }
    }
    None
}

/// Bytes of an interior-free record before its allocation record.
const INTERIOR_FREE_HEAD: u32 = offset_of!(InteriorFreeRecord, alloc) as u32;

/// Reports a free of `addr`, `offset` bytes into the live block of record `rec`,
/// by the caller at `ret` (its frame `frame`): its record (the address, the
/// offset, the ticks, the free's site and the block's allocation record) and,
/// with [`Options::ALERT_DOUBLE_FREES`], its alert. The block stays tracked.
fn interior_free(st: &mut State, rec: *mut u8, addr: u32, offset: i32, ret: u32, frame: u32) {
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    // SAFETY: an allocation record.
    let k = unsafe { rec.read() };
    let d = &mut st.sc().ev.interior;
    d.kind = kind::INTERIOR_FREE;
    d.version = FORMAT_VERSION;
    d.address.set(addr);
    d.offset.set(offset as u32);
    d.ticks.set(ticks);
    capture(st, &mut d.site, ret, frame);
    let head = (d as *mut InteriorFreeRecord).cast::<u8>();
    // SAFETY: the interior-free record is in the scratch chunk; the slot's
    // record is a locked allocation record.
    unsafe {
        events::report(
            st,
            head,
            INTERIOR_FREE_HEAD,
            rec,
            k,
            Options::ALERT_DOUBLE_FREES,
            &events::INTERIOR_FREE,
        )
    };
}

/// Bytes of a double-free record before its allocation record.
const DOUBLE_FREE_HEAD: u32 = offset_of!(DoubleFreeRecord, alloc) as u32;

/// Reports a double free of ring entry `i`: its record (when the first free was,
/// as an allocation sequence number, and its site, from the ring, this one's, and the quarantined slot's record, which still
/// holds the allocation but for its kind) and, with [`Options::ALERT_DOUBLE_FREES`],
/// its alert.
fn double_free(st: &mut State, i: usize, ret: u32, frame: u32) {
    state::bump(&mut st.counters().double_frees);
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    let sc = st.sc();
    let ring = &sc.ring;
    let rec = st.rec(ring.slot[i]);
    let k = ring.kind[i];
    let d = &mut sc.ev.double;
    d.kind = kind::DOUBLE_FREE;
    d.version = FORMAT_VERSION;
    d.address.set(ring.addr[i]);
    d.first_after_seq.set(ring.after_seq[i]);
    d.second_ticks.set(ticks);
    // The ring's site holds as many frames as its count says (the free path
    // writes only its innermost one without call stacks): the rest zeroed.
    d.first = ring.site[i].stack;
    let n = usize::from(d.first.count);
    for f in d.first.frames.iter_mut().skip(n) {
        f.set(0);
    }
    capture(st, &mut d.second, ret, frame);
    let head = (d as *mut DoubleFreeRecord).cast::<u8>();
    // SAFETY: the double-free record is in the scratch chunk; the slot's record is
    // a locked allocation record.
    unsafe {
        events::report(
            st,
            head,
            DOUBLE_FREE_HEAD,
            rec,
            k,
            Options::ALERT_DOUBLE_FREES,
            &events::DOUBLE_FREE,
        )
    };
}
