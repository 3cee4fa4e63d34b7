//! The allocation path: every allocation made through memdbg (the wrappers, the C
//! interface, [`crate::MemDbgAlloc`]) is `__memdbg_alloc` (`asm/alloc.s`: 68000
//! assembly, as it runs on every allocation; its header comment lists its steps),
//! reached through [`alloc`]. The rare cases it meets are Rust, here: a failed or
//! untracked allocation, a small allocation's site, the low-heap warning, an
//! address still held by a block freed unseen ([`reused`]) (and a fresh slot,
//! [`crate::ledger::fresh_slot`]).

use core::mem::offset_of;

use m68k_palmos_sys as palm;
use palm::mem::{memNewChunkFlagNonMovable, memNewChunkFlagPreLock};

use crate::block;
use crate::events;
use crate::ledger;
use crate::record::{
    self, AllocFlags, AllocRecord, FORMAT_VERSION, HeaderFlags, LowHeapRecord, SMALL_ALLOC_MAX,
    kind,
};
use crate::settings::Site;
use crate::state::{self, SITES, SmallSite, State};

/// Largest chunk the Memory Manager gives (`memMaxChunkAllocSize` = 65,505 bytes,
/// PALM_FACTS §5.2); a guard is added only below it.
pub const MAX_CHUNK: u32 = 65_505;

/// The owner ID bits of `MemChunkNew`'s `attr` (its low 4 bits, beside the
/// `memNewChunkFlag…` flags: callers pass `ownerID | memNewChunkFlagNonMovable`,
/// as the OS's own `FtrPtrNew` passes `dmOrphanOwnerID | …`; MemoryPrv.h).
pub const MEM_CHUNK_OWNER: u16 = 0x000F;

/// The largest alignment palm-sys's `PalmAlloc` serves (`chunk_size`: above it, null
/// without an OS call); the allocation does the same when the detector is not
/// entered.
pub const MAX_ALIGN: u32 = 0x8000;

asm_constants! {
    MAX_CHUNK = MAX_CHUNK;
    MAX_ALIGN = MAX_ALIGN;
    MEM_CHUNK_FIXED = memNewChunkFlagNonMovable | memNewChunkFlagPreLock;
    MEM_CHUNK_OWNER = MEM_CHUNK_OWNER;
    SMALL_ALLOC_MAX = SMALL_ALLOC_MAX;
    SITE_FILE = offset_of!(Site, file);
    SITE_LINE = offset_of!(Site, line);
    SITE_FLAGS = offset_of!(Site, flags);
    FILE_NAME_LEN = record::FILE_NAME_LEN;
    KIND_RUST = kind::RUST;
}

#[cfg(target_arch = "m68k")]
unsafe extern "C" {
    /// `asm/alloc.s`: an allocation, recorded (a register routine).
    fn __memdbg_alloc();
}

/// `how` of a `MemChunkNew(heap, _, attr)` request for [`alloc`]: the heap in the
/// high word, the attributes in the low one.
#[inline]
pub fn chunk_how(heap: u16, attr: u16) -> u32 {
    (u32::from(heap) << 16) | u32::from(attr)
}

/// Every tracked allocation: `__memdbg_alloc` (a `jsr` into the assembly, which
/// takes its arguments in registers) from the function the program called, whose
/// frame (A6) it reads: call it from an `#[inline(never)]` function's own body. Kind
/// `k`; `how` is a chunk's heap and attributes ([`chunk_how`]), a Rust block's room
/// for its alignment (the alignment if above 2, else 0, as palm-sys's `PalmAlloc`
/// does it), else 0; `site` is null for Rust allocations. Returns the address handed
/// to the program (null on failure: nothing recorded); when the detector is not
/// running (or is busy), the plain OS call's.
#[inline(always)]
pub fn alloc(k: u8, how: u32, site: *const Site, size: u32) -> *mut u8 {
    #[cfg(target_arch = "m68k")]
    {
        let p: *mut u8;
        // SAFETY: the routine's contract: called from this (inlined) function's
        // caller's body, A6 its frame; the site is null or a live Site (a constant,
        // or the C interface's scratch site). It keeps D2–D7/A2–A6.
        unsafe {
            core::arch::asm!(
                "jsr ({f},%pc)",
                f = sym __memdbg_alloc,
                inout("d0") how => _,
                inout("d1") size => _,
                inout("a0") site => p,
                inout("a1") u32::from(k) => _,
            )
        };
        p
    }
    #[cfg(not(target_arch = "m68k"))]
    {
        let _ = (k, how, site, size);
        crate::not_on_palm()
    }
}

/// A tracked allocation the OS refused: counted ([`record::Counters::failed`]); the
/// heap is sampled (it is at its lowest now). The allocation's assembly calls it.
#[unsafe(export_name = "__memdbg_failed")]
pub extern "C" fn failed(st: &mut State) {
    state::bump(&mut st.counters().failed);
    if st.has(record::Options::HEAP_STATS) {
        st.sample_heap();
    }
}

/// An allocation that found no slot (the capacity or the storage heap is
/// exhausted): handed out untracked, counted ([`record::Counters::untracked`]), the
/// ledger marked incomplete; the heap is sampled. The allocation's assembly calls it.
#[unsafe(export_name = "__memdbg_untracked")]
pub extern "C" fn untracked(st: &mut State) {
    st.flag(HeaderFlags::INCOMPLETE);
    state::bump(&mut st.counters().untracked);
    if st.has(record::Options::HEAP_STATS) {
        st.sample_heap();
    }
}

/// Counts a small allocation (1 to [`SMALL_ALLOC_MAX`] bytes) at its site, the one
/// just recorded in the scratch record: the site's entry (a `Site`'s address, or for
/// a Rust allocation its innermost frame) gets one more allocation and `size` more
/// bytes; a new site takes the next entry, with a copy of the record, while there is
/// one (else it is counted as unsited). The allocation's assembly calls it.
#[unsafe(export_name = "__memdbg_small")]
pub extern "C" fn small(st: &mut State, site: u32, size: u32) {
    let sc = st.sc();
    state::bump(&mut sc.header.counters.small_allocs);
    let key = if site != 0 {
        site
    } else {
        sc.rec.stack.frames[0].get()
    };
    let n = usize::from(st.n_sites);
    for s in &mut sc.sites[..n] {
        if s.key == key {
            s.count += 1;
            s.bytes += size;
            return;
        }
    }
    if n < SITES {
        sc.sites[n] = SmallSite {
            key,
            count: 1,
            bytes: size,
            first: sc.rec,
        };
        st.n_sites += 1;
    } else {
        state::bump(&mut sc.header.counters.small_unsited);
    }
}

/// Bytes of a low-heap record before its allocation record.
const LOW_HEAP_HEAD: u32 = offset_of!(LowHeapRecord, alloc) as u32;

/// The first time the dynamic heap's largest free chunk is below the threshold at a
/// tracked allocation: [`HeaderFlags::LOW_HEAP`], an event (naming that allocation,
/// the scratch record) and a `DbgMessage` line. The allocation's assembly calls it.
#[unsafe(export_name = "__memdbg_low_heap")]
pub extern "C" fn low_heap(st: &mut State) {
    st.flag(HeaderFlags::LOW_HEAP);
    let sc = st.sc();
    let l = &mut sc.ev.low;
    l.kind = kind::LOW_HEAP;
    l.version = FORMAT_VERSION;
    l.free.set(st.heap_free);
    l.largest.set(st.heap_max);
    l.threshold.set(st.low_heap_threshold);
    let head = (l as *mut LowHeapRecord).cast::<u8>();
    let rec = (&sc.rec as *const AllocRecord).cast::<u8>();
    // SAFETY: the low-heap record and the allocation record are in the scratch
    // chunk.
    unsafe { ledger::event(st, head, LOW_HEAP_HEAD, rec, sc.rec.kind) };
    sc.args[0] = st.heap_max as usize;
    sc.args[1] = st.low_heap_threshold as usize;
    sc.args[2] = st.heap_free as usize;
    events::dbg_message(st, &events::LOW_LINE);
}

/// Before block `key` just allocated is indexed, when the index still holds a
/// record for that address: that record's block was freed where memdbg could
/// not see it (the OS gives out no live chunk's address): with the free traps
/// not patched (refused, or [`record::Options::PATCH_FREES`] off), or by the
/// Memory Manager itself without a free trap call (`MemHeapFreeByOwnerID`, a
/// ROM's internal frees). Its record gets [`AllocFlags::FREED_UNSEEN`] (its slot
/// stays taken: the ledger keeps it; its guard is not checked: the memory is no
/// longer its block), it leaves the index and the live counts. The
/// allocation's assembly calls it (after its own index look-up found the key).
#[unsafe(export_name = "__memdbg_reused")]
pub extern "C" fn reused(st: &mut State, key: u32) {
    let Some(pos) = st.index.find(key) else {
        return;
    };
    // SAFETY: a found position, the table unchanged since.
    let rec = st.rec(unsafe { st.index.slot_at(pos) });
    let flags = block::flags_of(rec);
    ledger::write(
        rec,
        offset_of!(AllocRecord, flags) as u32,
        &(flags | AllocFlags::FREED_UNSEEN.bits()).to_be_bytes(),
    );
    st.live_count -= 1;
    st.live_bytes -= block::size_of(rec);
    if flags & AllocFlags::HANDLE.bits() != 0 {
        st.live_handles -= 1;
    }
    // SAFETY: as above.
    unsafe { st.index.remove(pos) };
}
