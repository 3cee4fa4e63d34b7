//! End-to-end tests of heap-pinning culprits (issue 14 item 3): scenarios 55 to
//! 57 of the second test app (`tests/app2`), run in palm-run through
//! `tests/common/e2e.rs`. palm-run's Memory Manager allocates first fit from the
//! heap's start, so the 20,000-byte pointer, the pin and the 2,000-byte pointer
//! are adjacent; once both pointers are freed, the 65,000-byte handle fits only
//! after the pin, and its allocation takes the snapshot. Every test asserts the
//! exact pinned records: the block, its lock count, the free bytes on each side,
//! the largest free chunk then.

use memdbg::record::{AllocFlags, PinnedRecord, Record, kind};

mod common;
use common::e2e::{Run, TestApp, seen};

/// The second test app.
static APP2: TestApp = TestApp::new("tests/app2", "MemDbgTest2", *b"MDtB");

/// The pinned records of `r`, in ledger order.
fn pinned(r: &Run) -> Vec<PinnedRecord> {
    r.records
        .iter()
        .filter_map(|x| match x {
            Record::Pinned(p) => Some(*p),
            _ => None,
        })
        .collect()
}

/// Each pinned record as (lock count, before, after, largest).
fn shape(r: &Run) -> Vec<(u8, u32, u32, u32)> {
    pinned(r)
        .iter()
        .map(|p| (p.lock_count, p.before.get(), p.after.get(), p.largest.get()))
        .collect()
}

/// A 64-byte pointer between the freed 20,000-byte pointer's hole and the rest
/// of the heap: one pinned record naming it (lock count 15), with 20,004 free
/// bytes before it (the hole: 20,000 bytes and the 4-byte guard; headers not
/// counted) and 145,638 after it, the largest free chunk at the snapshot (the
/// rest of palm-run's 256 KB heap after the OS's chunks, memdbg's state chunk and
/// the app's blocks: it moves when memdbg's state chunk grows).
#[test]
fn a_pointer_between_free_runs_pins_the_heap() {
    let r = APP2.run(55);
    assert_eq!(r.outcome.result, Some(0), "{:?}", r.machine.output);
    APP2.assert_clean_header(&r);
    assert_eq!(shape(&r), [(15, 20004, 145638, 145638)]);
    let p = pinned(&r);
    assert_eq!(
        seen(&p[0].alloc),
        APP2.alloc(kind::POINTER, AllocFlags::GUARDED, 64, "pin-ptr")
    );
    assert!(r.header.start_ticks.get() <= p[0].ticks.get());
    assert!(p[0].ticks.get() <= r.header.stop_ticks.get());
}

/// The same with a 64-byte handle kept locked (lock count 1): a locked handle
/// does not move either, so it pins the heap as the pointer does.
#[test]
fn a_locked_handle_between_free_runs_pins_the_heap() {
    let r = APP2.run(56);
    assert_eq!(r.outcome.result, Some(0), "{:?}", r.machine.output);
    APP2.assert_clean_header(&r);
    assert_eq!(shape(&r), [(1, 20004, 145638, 145638)]);
    assert_eq!(
        seen(&pinned(&r)[0].alloc),
        APP2.alloc(
            kind::HANDLE,
            AllocFlags::GUARDED | AllocFlags::HANDLE,
            64,
            "pin-handle"
        )
    );
}

/// Without the pin, the freed pointers' space merges with the rest of the heap:
/// the snapshot finds no tracked block between free runs, no pinned record.
#[test]
fn a_heap_without_pins_has_no_pinned_record() {
    let r = APP2.run(57);
    assert_eq!(r.outcome.result, Some(0), "{:?}", r.machine.output);
    APP2.assert_clean_header(&r);
    assert_eq!(shape(&r), []);
}
