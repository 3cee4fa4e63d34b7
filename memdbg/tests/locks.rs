//! End-to-end tests of handle lock balance (issue 14 item 2): at stop (part A,
//! scenario 45) and the unlock checks (part B, scenarios 46 and 47: unlock
//! underflows, an untracked handle's unlock) of the second test app
//! (`tests/app2`), run in palm-run through
//! `tests/common/e2e.rs`, on both of memdbg's paths: the OS 3.x internals (the
//! lock count read from the chunk header, PALM_FACTS §5.1) and the documented
//! calls only (palm-run `--opaque-handles`: `MemHandleLockCount`). Every test
//! asserts the exact locked records (the handle, its lock count, its
//! allocation's kind, flags, size, file and line) and the report's lines.

use memdbg::record::{
    AllocFlags, HeaderFlags, LockedRecord, Options as RunOptions, Record, UnlockUnderflowRecord,
    kind,
};
use memdbg_report::{ElfSymbols, Format, Ledger, Options, analyze, write};
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

/// The report of that ledger: a "Locked handles at stop" section after the
/// leaks with one finding per locked handle (its count, size, site and call
/// stack), the summary count and exit status 1; the JSON carries them.
#[test]
fn the_report_lists_handles_locked_at_stop() {
    for documented in [false, true] {
        let r = run(documented);
        let pdb = r.machine.export("MemDbgDB").unwrap();
        let ledger = Ledger::from_pdb(&pdb, "MemDbgDB.pdb").unwrap();
        let symbols = ElfSymbols::load(&APP2.built().elf).unwrap();
        let mut opts = Options::default();
        opts.symbolizer = Some(&symbols);
        let report = analyze(&ledger, &opts);
        let mut text = Vec::new();
        write(&mut text, &report, Format::Text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let file = APP2.source();
        let (once, twice) = (APP2.line("locked-once"), APP2.line("locked-twice"));
        let seq = |mark| APP2.seq(&r, mark);
        let (h1, h2) = (
            locked(&r)[0].alloc.address.get(),
            locked(&r)[1].alloc.address.get(),
        );
        let want = [
            "Locked handles at stop: 2 handles (locked with MemHandleLock and never unlocked: \
             a locked handle cannot move, so it pins the dynamic heap)"
                .to_string(),
            String::new(),
            format!(
                "Locked #{} (1 of 2): handle 0x{h1:08X} locked 1 time at stop, 16 bytes \
                 allocated at {file}:{once}",
                seq("locked-once")
            ),
            "  Chunk allocated by:".to_string(),
        ];
        let at = text
            .find("Locked handles at stop:")
            .unwrap_or_else(|| panic!("no section in\n{text}"));
        let lines: Vec<&str> = text[at..].lines().take(4).collect();
        assert_eq!(lines, want, "documented {documented}\n{text}");
        let second = format!(
            "Locked #{} (2 of 2): handle 0x{h2:08X} locked 2 times at stop, 24 bytes \
             allocated at {file}:{twice}",
            seq("locked-twice")
        );
        assert!(text.contains(&second), "{second}\n{text}");
        // After the leaks, before the heap statistics.
        assert!(text.find("Leaks: 3 blocks").unwrap() < at);
        assert!(at < text.find("Heap statistics:").unwrap());
        // The call stack's first frame is the scenario's function (its line
        // is the DWARF line of the return address, which the optimizer may
        // share between the four allocations; the site above is exact).
        let frame = text[at..].lines().nth(4).unwrap();
        assert!(
            frame.starts_with("    #0 0x")
                && frame.contains(" in memdbg_test_app2::locked_at_stop at tests/app2/src/lib.rs:"),
            "{frame}"
        );
        assert_eq!(report.summary.locked, 2);
        assert_eq!(report.summary.exit_status, 1);
        assert!(
            report.summary.line.ends_with("; 2 handles locked at stop."),
            "{}",
            report.summary.line
        );
        let json = serde_json::to_value(&report).unwrap();
        let l = &json["locked"];
        assert_eq!(l.as_array().unwrap().len(), 2);
        assert_eq!(l[0]["lock_count"], 1);
        assert_eq!(l[1]["lock_count"], 2);
        assert_eq!(l[1]["handle"], h2);
        assert_eq!(l[1]["block"]["line"], twice);
        assert_eq!(l[1]["block"]["size"], 24);
        assert_eq!(json["summary"]["locked"], 2);
    }
}

/// The unlock-underflow records of `r`, in ledger order.
fn underflows(r: &Run) -> Vec<UnlockUnderflowRecord> {
    r.records
        .iter()
        .filter_map(|x| match x {
            Record::UnlockUnderflow(u) => Some(*u),
            _ => None,
        })
        .collect()
}

/// Scenario `scenario` on the path `documented` says, palm-run's debug-ROM
/// checks fatal unless `nonfatal`; no patch left, the ledger closed, the
/// unlock traps patched.
fn run_unlocks(scenario: u32, documented: bool, nonfatal: bool) -> Run {
    let r = APP2.run_with(scenario, &Config::default(), |m| {
        m.opaque_handles = documented;
        if nonfatal {
            m.fatal_mem_errors = false;
        }
    });
    assert!(!r.flags().contains(HeaderFlags::RUNNING));
    assert!(!r.flags().contains(HeaderFlags::PATCHES_REFUSED));
    assert!(r.outcome.patches_left.is_empty());
    assert!(r.header.option_flags().contains(RunOptions::LOCK_CHECKS));
    assert_eq!(
        r.flags().contains(HeaderFlags::DOCUMENTED_CALLS),
        documented
    );
    r
}

/// Issue 14 item 2 part B: a tracked handle locked once and unlocked twice
/// with `MemHandleUnlock`, and one unlocked twice through its pointer with
/// `MemPtrUnlock`: each second unlock is one unlock-underflow record (which
/// trap, the address passed, the unlock's site line, the handle's allocation),
/// refused before the OS sees it (palm-run's debug-ROM check is fatal here and
/// reports nothing; the app checks the answer, memErrChunkNotLocked, and that
/// the OS's lock count is still 0 and then balanced). Both handles are freed:
/// no leak. On both paths.
#[test]
fn unlock_underflows_are_refused_and_recorded_with_both_sites() {
    for documented in [false, true] {
        let r = run_unlocks(46, documented, false);
        assert!(
            r.machine.reports.is_empty(),
            "documented {documented}: {:?}",
            r.machine.reports
        );
        if !documented {
            APP2.assert_clean_header(&r);
        }
        let u = underflows(&r);
        assert_eq!(u.len(), 2, "documented {documented}: {u:?}");
        let got: Vec<(u8, Alloc, Option<u16>)> = u
            .iter()
            .map(|x| (x.via, seen(&x.alloc), APP2.site_line(x.site.frame(0))))
            .collect();
        assert_eq!(
            got,
            [
                (
                    UnlockUnderflowRecord::VIA_HANDLE,
                    handle(16, "unlock-handle"),
                    Some(APP2.line("unlock-handle-twice"))
                ),
                (
                    UnlockUnderflowRecord::VIA_POINTER,
                    handle(24, "unlock-pointer"),
                    Some(APP2.line("unlock-pointer-twice"))
                ),
            ],
            "documented {documented}"
        );
        for x in &u {
            assert_eq!((x.kind, x.version, x.reserved), (0x28, 5, 0));
            assert!(x.ticks.get() >= r.header.start_ticks.get());
            assert!(x.ticks.get() <= r.header.stop_ticks.get());
            // With call stacks: the site and its callers.
            assert!(x.site.count >= 2, "{x:?}");
        }
        // MemHandleUnlock got the handle, MemPtrUnlock the handle's pointer.
        assert_eq!(u[0].address.get(), u[0].alloc.address.get());
        assert_ne!(u[1].address.get(), u[1].alloc.address.get());
        assert_eq!(seen_all(&r), []);
        assert_eq!(r.counters().leaks.get(), 0);
        assert!(locked(&r).is_empty());
    }
}

/// Issue 14 item 4: an unlock of a handle memdbg does not track (the plain
/// `MemHandleNew`) whose lock count is 0 is the app's own business: passed to
/// the OS unchanged (palm-run, with non-fatal checks, reports it and answers
/// memErrChunkNotLocked, which the app checks); no record. On both paths.
#[test]
fn an_untracked_handles_unlock_goes_to_the_os_unchanged() {
    for documented in [false, true] {
        let r = run_unlocks(47, documented, true);
        assert_eq!(r.machine.reports.len(), 1, "{:?}", r.machine.reports);
        assert!(
            r.machine.reports[0].starts_with("MemHandleUnlock(")
                && r.machine.reports[0].contains("unlocking a handle that is not locked"),
            "{:?}",
            r.machine.reports
        );
        assert!(underflows(&r).is_empty());
        assert_eq!(r.counters().leaks.get(), 0);
    }
}

/// The report of scenario 46's ledger: an "Unlock underflows" section with one
/// finding per refused unlock (the handle, the unlock's site, the trap, the
/// block's size and allocation site), the allocation's call stack and the
/// unlock's, the summary count and exit status 1 (no leak: the underflows
/// alone set it); the JSON carries them. On both paths.
#[test]
fn the_report_lists_unlock_underflows_with_both_sites() {
    for documented in [false, true] {
        let r = run_unlocks(46, documented, false);
        let pdb = r.machine.export("MemDbgDB").unwrap();
        let ledger = Ledger::from_pdb(&pdb, "MemDbgDB.pdb").unwrap();
        let symbols = ElfSymbols::load(&APP2.built().elf).unwrap();
        let mut opts = Options::default();
        opts.symbolizer = Some(&symbols);
        let report = analyze(&ledger, &opts);
        let mut text = Vec::new();
        write(&mut text, &report, Format::Text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let file = APP2.source();
        // The unlock's site comes from the DWARF, whose file names the
        // symbolizer shortens to the crate's (the allocation's is `file!()`).
        let dwarf_file = "tests/app2/src/lib.rs";
        let line = |mark| APP2.line(mark);
        let u = underflows(&r);
        let (h1, h2) = (u[0].alloc.address.get(), u[1].alloc.address.get());
        let want = [
            "Unlock underflows: 2 unlocks (MemHandleUnlock or MemPtrUnlock of a tracked handle \
             that was not locked: not passed to the OS, the handle's lock count is unchanged)"
                .to_string(),
            String::new(),
            format!(
                "Unlock underflow 1 of 2: handle 0x{h1:08X} unlocked while not locked at \
                 {dwarf_file}:{} (MemHandleUnlock), 16 bytes allocated at {file}:{}",
                line("unlock-handle-twice"),
                line("unlock-handle")
            ),
            "  Chunk allocated by:".to_string(),
        ];
        let at = text
            .find("Unlock underflows:")
            .unwrap_or_else(|| panic!("no section in\n{text}"));
        let lines: Vec<&str> = text[at..].lines().take(4).collect();
        assert_eq!(lines, want, "documented {documented}\n{text}");
        let second = format!(
            "Unlock underflow 2 of 2: handle 0x{h2:08X} unlocked while not locked at \
             {dwarf_file}:{} (MemPtrUnlock), 24 bytes allocated at {file}:{}",
            line("unlock-pointer-twice"),
            line("unlock-pointer")
        );
        assert!(text.contains(&second), "{second}\n{text}");
        // The unlock's call stack: its first frame is the trap's glue
        // (palm-sys, inlined) in the scenario's function.
        let unlocked = text[at..]
            .lines()
            .skip_while(|l| !l.starts_with("  Unlocked (tick "))
            .take(3)
            .collect::<Vec<_>>();
        assert!(unlocked[0].ends_with(") by:"), "{text}");
        assert!(
            unlocked[1].starts_with("    #0 0x")
                && unlocked[1].contains(" in m68k_palmos_sys::glue::MemHandleUnlock at ")
                && unlocked[2].contains(&format!(
                    " in memdbg_test_app2::unlock_underflow at {dwarf_file}:{}",
                    line("unlock-handle-twice")
                )),
            "{unlocked:?}"
        );
        assert!(at < text.find("Heap statistics:").unwrap());
        assert_eq!(report.summary.unlock_underflows, 2);
        assert_eq!(report.summary.leaks, 0);
        assert_eq!(report.summary.exit_status, 1);
        assert_eq!(
            report.summary.line,
            "SUMMARY: memdbg: no leaks; 2 unlock underflows."
        );
        let json = serde_json::to_value(&report).unwrap();
        let j = &json["unlock_underflows"];
        assert_eq!(j.as_array().unwrap().len(), 2);
        assert_eq!(j[0]["trap"], "MemHandleUnlock");
        assert_eq!(j[0]["handle"], h1);
        assert_eq!(j[0]["address"], h1);
        assert_eq!(j[1]["trap"], "MemPtrUnlock");
        assert_eq!(j[1]["handle"], h2);
        assert_eq!(j[1]["address"], u[1].address.get());
        assert_eq!(
            j[1]["site"],
            format!("{dwarf_file}:{}", line("unlock-pointer-twice"))
        );
        assert_eq!(j[1]["block"]["line"], line("unlock-pointer"));
        assert_eq!(j[1]["block"]["size"], 24);
        assert!(!j[1]["unlock"]["stack"].as_array().unwrap().is_empty());
        assert_eq!(json["summary"]["unlock_underflows"], 2);
    }
}
