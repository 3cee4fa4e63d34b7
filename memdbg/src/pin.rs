//! Heap-pinning culprits ([`Options::HEAP_STATS`], OS 3.x internals path only):
//! which tracked blocks split the dynamic heap's free space when its largest
//! free chunk reaches a low-water mark.
//!
//! `MemHeapCompact`, and the Memory Manager's own compaction when an allocation
//! does not fit, slide unlocked movable chunks together so free chunks merge;
//! non-movable chunks (lock count `memPtrLockCount` = 15) and locked handles do
//! not move (PALM_FACTS §5.1; palm-dev-forum, Ben Combee, 2003-07-25,
//! mail-archive.com msg62548: a locked handle prevents rearranging its end of
//! the dynamic heap; palm-run's `heap.rs` compacts the same way). The Palm OS
//! Reference page of `MemHeapCompact` was not found in the search corpus.
//! Such a chunk with free bytes on both sides is a pin: while it stays, the
//! free bytes before and after it cannot become one chunk.
//!
//! When the snapshot is taken: `__memdbg_heap_marks` (`asm/state.s`), after a
//! tracked allocation lowers the largest-free-chunk low-water mark, calls
//! [`snapshot`] only when that chunk is below [`State::pin_next`]: at the first
//! sample, then each time it has fallen below 7/8 of the largest free chunk of
//! the last snapshot. So the list is of a moment at most 1/8 of the largest free
//! chunk (in bytes) above the exact low-water mark, and a heap filling by
//! allocations walks it O(log) times (each walk one pass over its chunks), not
//! once per allocation. On the documented-calls path (PumpkinOS,
//! `HeaderFlags::DOCUMENTED_CALLS`) no walk is possible and nothing is recorded.

use crate::record::{
    self, AllocRecord, FORMAT_VERSION, PINNED_LOCK_COUNT, PinnedRecord, U32Be, kind,
};
use crate::state::{PINS, State};
use crate::{ledger, probe};

/// Walks the dynamic heap (its chunks from the first, as [`probe::heap_chunks`]
/// gives them) and replaces the kept pins with the tracked blocks that pin it now:
/// for each non-movable chunk or locked handle, the free bytes (headers not
/// counted) between it and the previous and next such chunk (or the heap's
/// ends); a tracked one with free bytes on both sides is kept, the [`PINS`] with
/// the largest sum. Then [`State::pin_next`] = 7/8 of the largest free chunk.
/// `__memdbg_heap_marks` calls it (C convention).
#[unsafe(export_name = "__memdbg_pins")]
pub extern "C" fn snapshot(st: &mut State) {
    st.pin_next = st.heap_max - st.heap_max / 8;
    if st.documented != 0 {
        return;
    }
    st.n_pins = 0;
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { m68k_palmos_sys::TimGetTicks() };
    // The last pin seen: its body, header's second long, free bytes before it.
    let mut last: Option<(u32, u32, u32)> = None;
    let mut free = 0u32;
    probe::heap_chunks(|at, w0, w1| {
        let size = w0 & 0x00FF_FFFF;
        if w0 & 0x8000_0000 != 0 {
            free += size - 8;
        } else if probe::lock_count(w1) != 0 {
            if let Some((body, w1, before)) = last {
                keep(st, body, w1, before, free, ticks);
            }
            last = Some((at + 8, w1, free));
            free = 0;
        }
    });
    if let Some((body, w1, before)) = last {
        keep(st, body, w1, before, free, ticks);
    }
}

/// Keeps the chunk at `body` (header long 1 `w1`) as a pin if it is tracked and
/// has free bytes on both sides, among the [`PINS`] with the largest sum.
fn keep(st: &mut State, body: u32, w1: u32, before: u32, after: u32, ticks: u32) {
    if before == 0 || after == 0 {
        return;
    }
    let lock = probe::lock_count(w1);
    let key = if lock == probe::PTR_LOCK_COUNT {
        body
    } else {
        probe::master_pointer(body, w1)
    };
    let Some(pos) = st.index.find(key) else {
        return;
    };
    // SAFETY: a found position, the table unchanged since.
    let rec = st.rec(unsafe { st.index.slot_at(pos) });
    let pins = st.sc().pins.as_mut_ptr();
    let n = st.n_pins as usize;
    let at = if n < PINS {
        st.n_pins += 1;
        n
    } else {
        let mut min = 0;
        for i in 1..PINS {
            // SAFETY: i < PINS entries, all in use.
            if unsafe { sum(&*pins.add(i)) < sum(&*pins.add(min)) } {
                min = i;
            }
        }
        // SAFETY: as above.
        if unsafe { sum(&*pins.add(min)) } >= before + after {
            return;
        }
        min
    };
    // SAFETY: `at` < PINS; `rec` is a slot's record, an allocation record.
    unsafe {
        let p = &mut *pins.add(at);
        p.kind = kind::PINNED;
        p.version = FORMAT_VERSION;
        p.lock_count = lock as u8;
        p.reserved = 0;
        p.before = U32Be::new(before);
        p.after = U32Be::new(after);
        p.largest = U32Be::new(st.heap_max);
        p.ticks = U32Be::new(ticks);
        core::ptr::copy_nonoverlapping(
            rec.cast_const(),
            (&mut p.alloc as *mut AllocRecord).cast::<u8>(),
            record::ALLOC_RECORD_SIZE,
        );
    }
}

/// The free bytes a pin splits.
fn sum(p: &PinnedRecord) -> u32 {
    p.before.get() + p.after.get()
}

/// At stop: the kept pins, each appended to the ledger as a [`PinnedRecord`], in
/// the order the walk found them (heap address order).
pub fn write(st: &mut State) {
    let pins = st.sc().pins.as_ptr();
    for i in 0..st.n_pins as usize {
        // SAFETY: one of the n_pins ≤ PINS entries in use.
        let p = unsafe { &*pins.add(i) };
        ledger::append(st, record::AsBytes::as_bytes(p));
    }
}

const _: () = assert!(PINNED_LOCK_COUNT as u32 == probe::PTR_LOCK_COUNT);
