//! End-to-end tests of checkpoints (generations, issue 14 item 1) and of the
//! API's bad uses (item 4): scenarios 50 to 52 of the second test app
//! (`tests/app2`), run in palm-run through `tests/common/e2e.rs`. Every test
//! asserts the exact ledger: the allocation records with their generations, the
//! checkpoint records with their live counts, the header's counters and flags.

use memdbg::record::{AllocFlags, CheckpointRecord, HeaderFlags, MAX_GENERATION, Record, kind};

mod common;
use common::e2e::{Run, TestApp, seen_all};

/// The second test app.
static APP2: TestApp = TestApp::new("tests/app2", "MemDbgTest2", *b"MDtB");

/// The checkpoint records of `r`, in ledger order.
fn checkpoints(r: &Run) -> Vec<CheckpointRecord> {
    r.records
        .iter()
        .filter_map(|x| match x {
            Record::Checkpoint(c) => Some(*c),
            _ => None,
        })
        .collect()
}

/// A loop of 5 passes, each starting with a checkpoint, that opens and closes a
/// handle and leaks one pointer per pass: 5 leaks in generations 1 to 5, and 5
/// checkpoint records, the k-th seeing the k − 1 earlier leaks live (16 bytes
/// each) and the run's counters then (each pass allocates twice and frees once).
#[test]
fn a_loop_that_leaks_once_per_pass_leaves_one_leak_per_generation() {
    let r = APP2.run(50);
    assert_eq!(r.outcome.result, Some(0), "{:?}", r.machine.output);
    APP2.assert_clean_header(&r);
    let leak = APP2.alloc(kind::POINTER, AllocFlags::GUARDED, 16, "loop-leak");
    assert_eq!(
        seen_all(&r),
        (0..5).map(|_| leak.clone()).collect::<Vec<_>>()
    );
    let generations: Vec<u8> = r.allocs().iter().map(|a| a.generation).collect();
    assert_eq!(generations, [1, 2, 3, 4, 5]);
    let seqs: Vec<u32> = r.allocs().iter().map(|a| a.seq.get()).collect();
    assert_eq!(
        seqs,
        [2, 4, 6, 8, 10],
        "the handle's, then the leak's, per pass"
    );
    let c = checkpoints(&r);
    let got: Vec<_> = c
        .iter()
        .map(|c| {
            (
                c.generation,
                c.live_count.get(),
                c.live_bytes.get(),
                c.counters.allocations.get(),
                c.counters.frees.get(),
                c.counters.leaks.get(),
                c.counters.peak_live_count.get(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, 0, 0, 0, 0, 0, 0),
            (2, 1, 16, 2, 1, 1, 1),
            (3, 2, 32, 4, 2, 2, 2),
            (4, 3, 48, 6, 3, 3, 3),
            (5, 4, 64, 8, 4, 4, 4),
        ]
    );
    assert!(c.iter().all(|c| c.reserved == 0));
    // Ticks never go back, and the checkpoints are between start and stop.
    let ticks: Vec<u32> = c.iter().map(|c| c.ticks.get()).collect();
    assert!(ticks.windows(2).all(|w| w[0] <= w[1]), "{ticks:?}");
    assert!(r.header.start_ticks.get() <= ticks[0]);
    assert!(ticks[4] <= r.header.stop_ticks.get());
    let k = r.counters();
    assert_eq!(
        (
            k.allocations.get(),
            k.frees.get(),
            k.leaks.get(),
            k.leaked_bytes.get()
        ),
        (10, 5, 5, 80)
    );
    assert_eq!(r.flags(), HeaderFlags::empty());
    // The ledger's order: each checkpoint before its pass's leak.
    let order: Vec<&str> = r
        .records
        .iter()
        .filter_map(|x| match x {
            Record::Checkpoint(_) => Some("checkpoint"),
            Record::Alloc(_) => Some("leak"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["checkpoint", "leak"].repeat(5));
}

/// 256 checkpoints: 255 records (generations 1 to 255), the 256th refused
/// (`Error::TooManyCheckpoints`, checked in the app), nothing written for it,
/// the header says so ([`HeaderFlags::CHECKPOINTS_REFUSED`]) and the leak made
/// after it is in generation 255.
#[test]
fn the_256th_checkpoint_is_refused_and_allocations_stay_in_generation_255() {
    let r = APP2.run(51);
    assert_eq!(r.outcome.result, Some(0), "{:?}", r.machine.output);
    APP2.assert_clean_header(&r);
    assert_eq!(
        seen_all(&r),
        [APP2.alloc(kind::POINTER, AllocFlags::GUARDED, 8, "cap-leak")]
    );
    assert_eq!(r.allocs()[0].generation, MAX_GENERATION);
    let g: Vec<u8> = checkpoints(&r).iter().map(|c| c.generation).collect();
    assert_eq!(g, (1..=255).collect::<Vec<u8>>());
    assert!(checkpoints(&r).iter().all(|c| c.live_count.get() == 0));
    assert_eq!(r.flags(), HeaderFlags::CHECKPOINTS_REFUSED);
    assert_eq!(r.counters().leaks.get(), 1);
}

/// Bad use of the API (issue 14 item 4), each an answer the app checks: a
/// checkpoint before start and after stop, and a second stop, are
/// `Error::NotRunning`; a second start is `Error::AlreadyRunning` and leaves the
/// first run going. The ledger is the first run's, complete: its one leak, no
/// checkpoint record, generation 0.
#[test]
fn checkpoints_outside_a_run_and_a_second_start_or_stop_are_errors() {
    let r = APP2.run(52);
    assert_eq!(r.outcome.result, Some(0), "{:?}", r.machine.output);
    APP2.assert_clean_header(&r);
    assert_eq!(
        seen_all(&r),
        [APP2.alloc(kind::POINTER, AllocFlags::GUARDED, 20, "bad-use-leak")]
    );
    assert_eq!(r.allocs()[0].generation, 0);
    assert!(checkpoints(&r).is_empty());
    assert_eq!(r.flags(), HeaderFlags::empty());
    let k = r.counters();
    assert_eq!((k.allocations.get(), k.leaks.get()), (1, 1));
}

/// A resize keeps a block's generation: a pointer made in generation 1 and a
/// handle made in generation 2, both resized in generation 3, are leaks of
/// generations 1 and 2 with their new sizes.
#[test]
fn a_resized_block_keeps_its_generation() {
    let r = APP2.run(53);
    assert_eq!(r.outcome.result, Some(0), "{:?}", r.machine.output);
    APP2.assert_clean_header(&r);
    let resized = AllocFlags::GUARDED | AllocFlags::RESIZED;
    assert_eq!(
        seen_all(&r),
        [
            APP2.alloc(kind::POINTER, resized, 8, "resized-ptr"),
            APP2.alloc(
                kind::HANDLE,
                resized | AllocFlags::HANDLE,
                64,
                "resized-handle"
            ),
        ]
    );
    let generations: Vec<u8> = r.allocs().iter().map(|a| a.generation).collect();
    assert_eq!(generations, [1, 2]);
    let g: Vec<u8> = checkpoints(&r).iter().map(|c| c.generation).collect();
    assert_eq!(g, [1, 2, 3]);
    assert_eq!(r.counters().resizes.get(), 2);
}
