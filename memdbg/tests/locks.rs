//! End-to-end tests of handle lock balance at stop (issue 14 item 2, part A):
//! scenario 45 of the second test app (`tests/app2`), run in palm-run through
//! `tests/common/e2e.rs`, on both of memdbg's paths: the OS 3.x internals (the
//! lock count read from the chunk header, PALM_FACTS §5.1) and the documented
//! calls only (palm-run `--opaque-handles`: `MemHandleLockCount`). Every test
//! asserts the exact locked records (the handle, its lock count, its
//! allocation's kind, flags, size, file and line).

use memdbg::record::{AllocFlags, HeaderFlags, LockedRecord, Record, kind};
use palm_run::Config;

mod common;
use common::e2e::{Alloc, Run, TestApp, seen, seen_all};

/// The second test app.
static APP2: TestApp = TestApp::new("tests/app2", "MemDbgTest2", *b"MDtB");

/// The locked records of `r`, in ledger order.
fn locked(r: &Run) -> Vec<LockedRecord> {
    r.records
        .iter()
        .filter_map(|x| match x {
            Record::Locked(l) => Some(*l),
            _ => None,
        })
        .collect()
}

/// A guarded handle of `size` bytes made at `mark`.
fn handle(size: u32, mark: &str) -> Alloc {
    APP2.alloc(
        kind::HANDLE,
        AllocFlags::GUARDED | AllocFlags::HANDLE,
        size,
        mark,
    )
}

/// Scenario 45 on the path `documented` says.
fn run(documented: bool) -> Run {
    let r = APP2.run_with(45, &Config::default(), |m| m.opaque_handles = documented);
    if documented {
        // palm-run's debug-ROM sweep names a leaked handle by its master
        // pointer, the app (and the ledger) by palm-run's opaque handle: the
        // chunk sizes (the requested sizes plus the 4-byte guard) must agree.
        let mut swept: Vec<u32> = r.outcome.leaks.iter().map(|l| l.size).collect();
        swept.sort();
        assert_eq!(swept, [20, 28, 36]);
        assert!(!r.flags().contains(HeaderFlags::RUNNING));
        assert!(r.outcome.patches_left.is_empty());
    } else {
        APP2.assert_clean_header(&r);
    }
    assert_eq!(
        r.flags().contains(HeaderFlags::DOCUMENTED_CALLS),
        documented
    );
    r
}

/// A handle locked once and one locked twice, both kept, are reported locked
/// with their counts 1 and 2 and their allocations (the record's address is
/// the handle, the leak's); the one locked and unlocked is a leak but not
/// locked; the one unlocked and freed is neither. On both paths. (The app
/// itself checks that `MemHandleLockCount` gives 1 and 2 before it stops.)
#[test]
fn handles_locked_at_stop_are_recorded_with_their_counts() {
    for documented in [false, true] {
        let r = run(documented);
        let l = locked(&r);
        let got: Vec<(u8, Alloc)> = l.iter().map(|x| (x.lock_count, seen(&x.alloc))).collect();
        assert_eq!(
            got,
            [
                (1, handle(16, "locked-once")),
                (2, handle(24, "locked-twice")),
            ],
            "documented {documented}"
        );
        // The three kept handles are leaks, the freed one is not in the ledger.
        assert_eq!(
            seen_all(&r),
            [
                handle(16, "locked-once"),
                handle(24, "locked-twice"),
                handle(32, "locked-balanced"),
            ],
            "documented {documented}"
        );
        assert_eq!(r.counters().leaks.get(), 3);
        // Each locked record names the very allocation of its leak.
        let leaks = r.allocs();
        for (x, a) in l.iter().zip(&leaks) {
            assert_eq!(x.alloc, *a, "documented {documented}");
            assert_eq!(x.version, 5);
            assert_eq!(x.reserved, 0);
            assert!(x.ticks.get() >= r.header.start_ticks.get());
            assert!(x.ticks.get() <= r.header.stop_ticks.get());
        }
    }
}
