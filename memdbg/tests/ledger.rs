//! End-to-end tests of memdbg: `tests/app` (one scenario per function) is built for
//! the MC68000 by palm-build, launched in palm-run with the scenario number in
//! feature ('MDtA', 0), and the MemDbgDB it leaves behind is exported, parsed with
//! palm-prc and decoded with `memdbg::record`. Every test asserts the exact ledger:
//! kind, flags, size, file and line of each record (lines found through the
//! `@mark name` comments of the app's source), and the header's counters and flags.

use std::sync::OnceLock;

use memdbg::record::{
    AllocFlags, FileName, Frame, Header, HeaderFlags, Options, Record, Stack, Truncation, detected,
    kind,
};
use palm_prc::{Content, Database, FourCC};
use palm_run::{Config, Machine};

mod common;
use common::e2e::{Alloc, Run, TestApp, seen, seen_all};

/// The test app: this file's scenarios.
static APP: TestApp = TestApp::new("tests/app", "MemDbgTest", *b"MDtA");

// Shorthands for APP's harness.
fn line(mark: &str) -> u16 {
    APP.line(mark)
}

fn seq(r: &Run, mark: &str) -> u32 {
    APP.seq(r, mark)
}

fn machine(config: &Config) -> Machine {
    APP.machine(config)
}

fn launch_with(
    scenario: u32,
    config: &Config,
    setup: impl FnOnce(&mut Machine),
) -> (Machine, palm_run::Outcome) {
    APP.launch_with(scenario, config, setup)
}

fn run_with(scenario: u32, config: &Config, setup: impl FnOnce(&mut Machine)) -> Run {
    APP.run_with(scenario, config, setup)
}

fn run(scenario: u32) -> Run {
    APP.run(scenario)
}

fn alloc(kind: u8, flags: AllocFlags, size: u32, mark: &str) -> Alloc {
    APP.alloc(kind, flags, size, mark)
}

fn assert_clean_header(r: &Run) {
    APP.assert_clean_header(r)
}

const PTR_GUARDED: AllocFlags = AllocFlags::GUARDED;

/// The second test app (`tests/app2`, the scenarios of memdbg's findings beyond
/// leaks) through the same harness: its ledger names its own app, creator, code 1
/// and source file.
#[test]
fn the_second_test_app_leaves_a_ledger_of_its_own() {
    static APP2: TestApp = TestApp::new("tests/app2", "MemDbgTest2", *b"MDtB");
    let r = APP2.run(1);
    APP2.assert_clean_header(&r);
    assert_eq!(
        seen_all(&r),
        vec![APP2.alloc(kind::POINTER, PTR_GUARDED, 24, "one-leak")]
    );
    assert_eq!(r.counters().leaks.get(), 1);
    assert_eq!(r.counters().leaked_bytes.get(), 24);
}

#[test]
fn leaked_pointer_and_handle_are_recorded() {
    let r = run(1);
    assert_clean_header(&r);
    assert_eq!(
        seen_all(&r),
        vec![
            alloc(kind::POINTER, PTR_GUARDED, 16, "leak-ptr"),
            alloc(
                kind::HANDLE,
                AllocFlags::GUARDED | AllocFlags::HANDLE,
                32,
                "leak-handle"
            ),
        ]
    );
    let a = r.allocs();
    assert_eq!((a[0].seq.get(), a[1].seq.get()), (1, 2));
    let c = r.counters();
    assert_eq!(c.allocations.get(), 2);
    assert_eq!(c.frees.get(), 0);
    assert_eq!(c.leaks.get(), 2);
    assert_eq!(c.leaked_bytes.get(), 48);
    assert_eq!(c.peak_live_bytes.get(), 48);
    assert_eq!(c.peak_live_count.get(), 2);
    assert_eq!(c.alerts.get(), 2);
    assert!(c.low_free.get() < 256 * 1024 && c.low_largest_free.get() <= c.low_free.get());
    assert_eq!(
        r.flags(),
        HeaderFlags::empty(),
        "no INCOMPLETE/PATCHES_REFUSED"
    );
    assert_eq!(r.header.option_flags(), memdbg::Settings::DEFAULT.options);
    // The alerts name the allocations' file and line.
    let file = APP.file_name();
    assert_eq!(
        r.alerts(),
        [
            format!(
                "Leak #{}: 16 bytes (pointer) at {file}:{}",
                seq(&r, "leak-ptr"),
                line("leak-ptr")
            ),
            format!(
                "Leak #{}: 32 bytes (handle) at {file}:{}",
                seq(&r, "leak-handle"),
                line("leak-handle")
            ),
        ]
    );
    assert!(r.machine.os.sys.err_displays.is_empty(), "no Fatal Alert");
    let leak_lines: Vec<&String> = r
        .dbg_messages()
        .iter()
        .filter(|m| m.starts_with("memdbg: leak #"))
        .collect();
    assert_eq!(leak_lines.len(), 2);
    assert!(
        leak_lines[0].starts_with("memdbg: leak #1: 16 bytes (pointer 0x")
            && leak_lines[0].ends_with(&format!(") at {file}:{}", line("leak-ptr"))),
        "{}",
        leak_lines[0]
    );
    assert_eq!(
        r.dbg_messages().last().unwrap(),
        "memdbg: leaks 2 (48 bytes), overruns 0, double frees 0, locked 0"
    );
}

/// `(sequence number, bytes copied)` of each contents record of `r`.
fn contents_counts(r: &Run) -> Vec<(u32, u16)> {
    r.records
        .iter()
        .filter_map(|r| match r {
            Record::Contents(c) => Some((c.seq.get(), c.count.get())),
            _ => None,
        })
        .collect()
}

#[test]
fn each_leak_has_its_first_bytes_and_the_option_off_none() {
    // Settings::DEFAULT: a contents record per leak, all 16 bytes of the
    // pointer, the first 32 of the handle (its whole size).
    let on = run(1);
    assert!(on.header.option_flags().contains(Options::CONTENTS));
    assert_eq!(contents_counts(&on), vec![(1, 16), (2, 32)]);
    // CONTENTS off: the same leaks, no contents record.
    let off = run(41);
    assert_clean_header(&off);
    assert!(!off.header.option_flags().contains(Options::CONTENTS));
    assert_eq!(seen_all(&off), seen_all(&on));
    assert_eq!(contents_counts(&off), vec![]);
    assert_eq!(off.records.len(), 2, "{:#?}", off.records);
}

#[test]
fn freed_blocks_leave_no_record() {
    let r = run(2);
    assert_clean_header(&r);
    assert!(r.records.is_empty(), "{:?}", r.records);
    let c = r.counters();
    assert_eq!((c.allocations.get(), c.frees.get()), (2, 2));
    assert_eq!((c.os_frees.get(), c.unknown_frees.get()), (0, 0));
    assert_eq!((c.leaks.get(), c.leaked_bytes.get()), (0, 0));
    assert!(r.alerts().is_empty());
}

#[test]
fn field_handle_freed_by_frm_delete_form_is_not_a_leak() {
    let r = run(3);
    assert_clean_header(&r);
    assert!(r.records.is_empty(), "{:?}", r.records);
    let c = r.counters();
    assert_eq!(c.allocations.get(), 1);
    assert_eq!(c.frees.get(), 1);
    assert_eq!(c.os_frees.get(), 1, "freed inside FrmDeleteForm");
    assert_eq!(c.leaks.get(), 0);
    assert!(
        c.os_unknown_frees.get() >= 1,
        "the form itself, freed by the OS"
    );
}

#[test]
fn resizes_keep_one_record_with_the_new_size() {
    let r = run(4);
    assert_clean_header(&r);
    assert_eq!(
        seen_all(&r),
        vec![
            alloc(
                kind::POINTER,
                AllocFlags::GUARDED | AllocFlags::RESIZED,
                20,
                "resize-ptr"
            ),
            alloc(
                kind::HANDLE,
                AllocFlags::GUARDED | AllocFlags::HANDLE | AllocFlags::RESIZED,
                2000,
                "resize-handle"
            ),
        ]
    );
    let c = r.counters();
    assert_eq!(c.resizes.get(), 2);
    assert_eq!((c.allocations.get(), c.frees.get()), (3, 1));
    assert_eq!(c.leaked_bytes.get(), 2020);
    assert_eq!(c.overruns.get(), 0, "the guards moved with the resizes");
}

/// The run's only event is an overrun of a guarded pointer of `size` bytes
/// allocated at mark `alloc_mark`, its first guard byte written (0x00), found
/// when it was freed at mark `free_mark`.
fn assert_one_overrun_at_free(r: &Run, size: u32, alloc_mark: &str, free_mark: &str) {
    assert_one_overrun_of(r, kind::POINTER, PTR_GUARDED, size, alloc_mark, free_mark);
}

/// As [`assert_one_overrun_at_free`], for a block of record kind `kind` with
/// `flags` (without [`AllocFlags::OVERRUN`], which the overrun adds).
fn assert_one_overrun_of(
    r: &Run,
    kind: u8,
    flags: AllocFlags,
    size: u32,
    alloc_mark: &str,
    free_mark: &str,
) {
    let ev = r.events();
    assert_eq!(ev.len(), 1, "{ev:?}");
    let Record::Overrun(o) = ev[0] else {
        panic!("{ev:?}")
    };
    assert_eq!(o.when.get(), detected::AT_FREE);
    assert_eq!(o.guard, [0x00, 0xFD, 0xFD, 0xFD]);
    assert_eq!(
        seen(&o.alloc),
        alloc(kind, flags | AllocFlags::OVERRUN, size, alloc_mark)
    );
    assert_eq!(
        APP.site_line(o.site.frame(0)),
        Some(line(free_mark)),
        "{:?}",
        o.site.iter().collect::<Vec<_>>()
    );
}

#[test]
fn one_byte_overrun_is_reported_with_the_allocation_line() {
    let r = run(5);
    assert_clean_header(&r);
    assert_one_overrun_at_free(&r, 10, "overrun", "overrun-free");
    let c = r.counters();
    assert_eq!((c.overruns.get(), c.frees.get(), c.leaks.get()), (1, 1, 0));
    let file = APP.file_name();
    assert_eq!(
        r.alerts(),
        [format!(
            "Overrun after 10 bytes (pointer) at {file}:{}",
            line("overrun")
        )]
    );
}

/// A handle's damaged guard is found at its free through the patch on both
/// paths: its chunk through the master pointer (3.x), or locked once for the
/// ring entry and the guard and unlocked before the OS frees it (documented
/// calls; palm-run, a debug ROM, reports a locked handle's free). The intact
/// handle after it is no overrun.
#[test]
fn a_handle_overrun_is_found_at_its_free_on_both_paths() {
    let mut left = Vec::new();
    for documented in [false, true] {
        let r = run_with(45, &Config::default(), |m| m.opaque_handles = documented);
        assert_eq!(r.outcome.result, Some(0), "documented {documented}");
        assert_clean_header(&r);
        assert_eq!(
            r.flags().contains(HeaderFlags::DOCUMENTED_CALLS),
            documented
        );
        assert_one_overrun_of(
            &r,
            kind::HANDLE,
            AllocFlags::GUARDED | AllocFlags::HANDLE,
            10,
            "handle-overrun",
            "handle-overrun-free",
        );
        let c = r.counters();
        assert_eq!(
            (c.overruns.get(), c.frees.get(), c.leaks.get()),
            (1, 2, 0),
            "documented {documented}"
        );
        assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
        // MemHandleLock (0xA021) runs less MemHandleUnlock (0xA022) runs (the
        // OS's handlers, whether reached by a trap or, memdbg's own unlocks
        // while the unlock traps are patched, by a JSR to the original): the
        // locks left (the ledger's records stay locked until stop); the
        // documented path's own locks of the handles leave none behind.
        let calls = |t: u16| r.machine.stats.native_calls.get(&t).copied().unwrap_or(0);
        left.push(calls(0xA021) - calls(0xA022));
    }
    assert_eq!(
        left[0], left[1],
        "locks left on the 3.x and documented paths"
    );
}

#[test]
fn a_block_without_guards_is_never_guard_checked() {
    let r = run(6);
    assert_clean_header(&r);
    assert_eq!(
        seen_all(&r),
        vec![alloc(kind::POINTER, AllocFlags::empty(), 12, "unguarded")]
    );
    assert_eq!(r.counters().overruns.get(), 0);
    assert!(!r.header.option_flags().contains(Options::GUARDS));
    assert!(r.alerts().iter().all(|e| !e.starts_with("Overrun")));
}

#[test]
fn double_free_is_caught_and_names_both_sites() {
    let r = run(7);
    assert_clean_header(&r);
    assert_eq!(r.records.len(), 1, "{:?}", r.records);
    let Record::DoubleFree(d) = r.records[0] else {
        panic!("{:?}", r.records)
    };
    assert_eq!(
        seen(&d.alloc),
        alloc(kind::POINTER, PTR_GUARDED, 20, "double")
    );
    assert_ne!(d.address.get(), 0);
    let first: Vec<Frame> = d.first.iter().collect();
    let second: Vec<Frame> = d.second.iter().collect();
    assert_eq!(
        APP.site_line(d.first.frame(0)),
        Some(line("double-first")),
        "{first:x?}"
    );
    assert_eq!(
        APP.site_line(d.second.frame(0)),
        Some(line("double-second")),
        "{second:x?}"
    );
    // The first free came right after the block's own allocation, the run's
    // only one.
    assert_eq!((d.alloc.seq.get(), d.first_after_seq.get()), (1, 1));
    let c = r.counters();
    assert_eq!(
        (c.double_frees.get(), c.frees.get(), c.leaks.get()),
        (1, 1, 0)
    );
    // palm-run (a debug ROM) saw no invalid free: the second free never reached it.
    assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
}

#[test]
fn free_of_a_chunk_never_wrapped_is_counted_not_an_error() {
    let r = run(8);
    assert_clean_header(&r);
    assert!(r.records.is_empty());
    let c = r.counters();
    assert_eq!(c.unknown_frees.get(), 1);
    assert_eq!((c.frees.get(), c.double_frees.get()), (0, 0));
    assert!(r.alerts().is_empty());
}

#[test]
fn frees_of_null_are_unknown_frees_and_leave_live_blocks_alone() {
    // A release ROM's answer to a NULL free: memErrInvalidParam, the app goes on.
    for (scenario, guard) in [(23, AllocFlags::GUARDED), (24, AllocFlags::empty())] {
        let r = run_with(scenario, &Config::default(), |m| m.fatal_mem_errors = false);
        assert_clean_header(&r);
        assert_eq!(
            seen_all(&r),
            vec![
                alloc(kind::POINTER, guard, 16, "null-live-ptr"),
                alloc(
                    kind::HANDLE,
                    guard | AllocFlags::HANDLE,
                    32,
                    "null-live-handle"
                ),
            ],
            "scenario {scenario}"
        );
        let c = r.counters();
        assert_eq!((c.frees.get(), c.unknown_frees.get()), (0, 2));
        assert_eq!((c.leaks.get(), c.leaked_bytes.get()), (2, 48));
        assert_eq!(c.overruns.get(), 0);
        // palm-run saw the three NULL calls (chained to the OS) and said so.
        assert_eq!(r.machine.reports.len(), 3, "{:?}", r.machine.reports);
    }
}

#[test]
fn mem_ptr_free_of_a_locked_handle_matches_the_handle() {
    let r = run(9);
    assert_clean_header(&r);
    assert!(r.records.is_empty(), "{:?}", r.records);
    let c = r.counters();
    assert_eq!((c.allocations.get(), c.frees.get()), (1, 1));
    assert_eq!((c.unknown_frees.get(), c.leaks.get()), (0, 0));
}

#[test]
fn dispatch_table_is_identical_after_stop() {
    let r = run(10);
    assert_clean_header(&r);
    assert!(!r.flags().contains(HeaderFlags::TRAPS_DISTURBED));
    assert!(r.outcome.patches_left.is_empty());
}

#[test]
fn refused_patches_set_the_flag_and_wrappers_still_work() {
    let r = run_with(11, &Config::default(), |m| m.refuse_trap_patches = true);
    assert_eq!(r.flags(), HeaderFlags::PATCHES_REFUSED);
    assert!(r.outcome.patches_left.is_empty());
    assert_eq!(
        seen_all(&r),
        vec![alloc(kind::POINTER, PTR_GUARDED, 12, "refused-leak")]
    );
    let c = r.counters();
    assert_eq!(
        (c.allocations.get(), c.frees.get(), c.leaks.get()),
        (3, 2, 1)
    );
}

/// Scenario 35's blocks, as `stop` finds them where the patches were refused: the
/// pointer leaked (with `extra` flags), a pointer freed with the plain trap, the
/// handle leaked, a handle and a pointer freed with the plain traps.
fn unseen(extra: AllocFlags) -> Vec<Alloc> {
    let unseen = AllocFlags::FREED_UNSEEN;
    vec![
        alloc(kind::POINTER, PTR_GUARDED | extra, 6, "unseen-overrun"),
        alloc(kind::POINTER, PTR_GUARDED | unseen, 8, "unseen-ptr"),
        alloc(
            kind::HANDLE,
            AllocFlags::GUARDED | AllocFlags::HANDLE,
            10,
            "unseen-leak",
        ),
        alloc(
            kind::HANDLE,
            AllocFlags::GUARDED | AllocFlags::HANDLE | unseen,
            8,
            "unseen-handle",
        ),
        alloc(kind::POINTER, PTR_GUARDED | unseen, 16, "unseen-ptr-2"),
    ]
}

#[test]
fn with_patches_refused_blocks_freed_unseen_are_told_from_leaks_by_their_chunk_headers() {
    let r = run_with(35, &Config::default(), |m| m.refuse_trap_patches = true);
    assert_eq!(r.flags(), HeaderFlags::PATCHES_REFUSED);
    // The chunk headers (the probe found the OS 3.x layout) say the three freed
    // blocks are no longer the chunks recorded: freed unseen, not leaks. The two
    // others are live: leaks, and the pointer's damaged guard an overrun found at
    // stop.
    assert_eq!(seen_all(&r), unseen(AllocFlags::OVERRUN));
    // The two leaks' contents, none of a block freed unseen.
    assert_eq!(
        contents_counts(&r),
        vec![(seq(&r, "unseen-overrun"), 6), (seq(&r, "unseen-leak"), 10)]
    );
    let ev = r.events();
    assert_eq!(ev.len(), 1, "{ev:?}");
    let Record::Overrun(o) = ev[0] else {
        panic!("{ev:?}")
    };
    assert_eq!(o.when.get(), detected::AT_STOP);
    assert_eq!(o.guard, [0, 0xFD, 0xFD, 0xFD]);
    let c = r.counters();
    assert_eq!((c.leaks.get(), c.leaked_bytes.get()), (2, 16));
    assert_eq!(
        (c.allocations.get(), c.frees.get(), c.overruns.get()),
        (5, 0, 1)
    );
    // An alert per leak, then the overrun found at stop: after the ledger was
    // complete.
    let file = APP.file_name();
    assert_eq!(
        r.alerts(),
        [
            format!(
                "Leak #{}: 6 bytes (pointer) at {file}:{}",
                seq(&r, "unseen-overrun"),
                line("unseen-overrun")
            ),
            format!(
                "Leak #{}: 10 bytes (handle) at {file}:{}",
                seq(&r, "unseen-leak"),
                line("unseen-leak")
            ),
            format!(
                "Overrun after 6 bytes (pointer) at {file}:{}",
                line("unseen-overrun")
            ),
        ]
    );
    assert_eq!(c.alerts.get(), 3);
    assert!(
        r.dbg_messages().contains(
            &"memdbg: leaks 2 (16 bytes), overruns 1, double frees 0, locked 0".to_string()
        ),
        "{:?}",
        r.dbg_messages()
    );
}

#[test]
fn with_documented_calls_only_a_damaged_guard_at_stop_is_freed_unseen_not_an_overrun() {
    // Handles that are not master pointers: the probe fails, memdbg uses
    // documented calls only. Their answers for freed chunks are the debug ROM's
    // reports here (not fatal, as PumpkinOS logs them).
    let r = run_with(35, &Config::default(), |m| {
        m.refuse_trap_patches = true;
        m.opaque_handles = true;
        m.fatal_mem_errors = false;
    });
    assert_eq!(
        r.flags(),
        HeaderFlags::PATCHES_REFUSED | HeaderFlags::DOCUMENTED_CALLS
    );
    // The sizes tell the three freed blocks; the damaged guard of the fourth
    // cannot be told from a free by documented calls: freed unseen too, not an
    // overrun. The live handle is the one leak.
    assert_eq!(seen_all(&r), unseen(AllocFlags::FREED_UNSEEN));
    assert!(r.events().is_empty(), "{:?}", r.events());
    // Only the leak's contents are read; never a block freed unseen's.
    assert_eq!(contents_counts(&r), vec![(seq(&r, "unseen-leak"), 10)]);
    let c = r.counters();
    assert_eq!(
        (c.leaks.get(), c.leaked_bytes.get(), c.overruns.get()),
        (1, 10, 0)
    );
    let file = APP.file_name();
    assert_eq!(
        r.alerts(),
        [format!(
            "Leak #{}: 10 bytes (handle) at {file}:{}",
            seq(&r, "unseen-leak"),
            line("unseen-leak")
        )]
    );
    // The documented calls on the freed blocks, which palm-run (a debug ROM)
    // reports.
    assert!(!r.machine.reports.is_empty());
}

/// Launches `scenario` where `ErrDisplayFileLineMsg` ends the app (a release
/// ROM's Reset, PumpkinOS): the outcome (stopped at that Fatal Alert), the
/// ledger's header and its records as stored (record 0 included).
fn ended_at_the_first_alert(scenario: u32) -> (palm_run::Outcome, Header, Vec<palm_prc::Record>) {
    let mut m = machine(&Config::default());
    m.os.ftr.features.insert((APP.creator, 0), scenario);
    m.alert_response = palm_run::machine::AlertResponse::Reset;
    let out = m.launch(APP.name).unwrap();
    assert!(
        matches!(
            out.stop.as_ref().map(|s| &s.kind),
            Some(palm_run::StopKind::FatalAlert(_))
        ),
        "{:?}",
        out.stop
    );
    let db = Database::parse(&m.export("MemDbgDB").unwrap()).unwrap();
    let Content::Records(recs) = db.content else {
        panic!("MemDbgDB is a resource database")
    };
    let h = Header::decode(&recs[0].data).unwrap();
    (out, h, recs)
}

#[test]
fn an_err_display_alert_that_ends_the_app_finds_the_ledger_written() {
    let file = APP.file_name();
    // A debug ROM's user continues from the Fatal Alert: the run goes on.
    let r = run(36);
    assert_eq!(
        r.machine.os.sys.err_displays,
        [
            (
                file.clone(),
                line("err-display-overrun"),
                "Overrun after 5 bytes (pointer)".to_string()
            ),
            (
                file.clone(),
                line("err-display-leak"),
                format!("Leak #{}: 4 bytes (pointer)", seq(&r, "err-display-leak"))
            ),
        ]
    );
    assert!(r.alerts().is_empty(), "no ErrOKAlert");
    assert_eq!(r.counters().alerts.get(), 2);
    // A release ROM (or PumpkinOS) ends the app at the first: the header was
    // written before it, with the overrun, its alert, and the run still going.
    let (_, h, recs) = ended_at_the_first_alert(36);
    assert_eq!(h.header_flags(), HeaderFlags::RUNNING);
    let c = &h.counters;
    assert_eq!(
        (
            c.allocations.get(),
            c.overruns.get(),
            c.alerts.get(),
            c.frees.get()
        ),
        (2, 1, 1, 0)
    );
    let records: Vec<Record> = recs[1..]
        .iter()
        .map(|r| Record::decode(&r.data).unwrap())
        .collect();
    let kinds: Vec<u8> = records
        .iter()
        .map(|r| match r {
            Record::Alloc(a) => a.kind,
            Record::Overrun(_) => kind::OVERRUN,
            _ => 0,
        })
        .collect();
    // The leak, the block being freed (its free not done), the overrun.
    assert_eq!(
        kinds,
        [kind::POINTER, kind::POINTER, kind::OVERRUN],
        "{records:?}"
    );
}

#[test]
fn an_alert_at_stop_that_ends_the_app_finds_the_ledger_complete_and_closed() {
    let file = APP.file_name();
    let leak = line("err-display-stop-leak");
    // Continued: the one alert is the leak's, at stop.
    let r = run(39);
    assert_eq!(
        r.machine.os.sys.err_displays,
        [(
            file,
            leak,
            format!(
                "Leak #{}: 6 bytes (pointer)",
                seq(&r, "err-display-stop-leak")
            )
        )]
    );
    // Ended there (a release ROM, PumpkinOS): stop had written the final header,
    // closed MemDbgDB and unlocked code 1 before it.
    let (out, h, recs) = ended_at_the_first_alert(39);
    assert!(out.left_open.is_empty(), "{:?}", out.left_open);
    assert_eq!(out.code1_locks_left, 0);
    assert_eq!(
        h.header_flags(),
        HeaderFlags::empty(),
        "not RUNNING: stop ran"
    );
    assert_ne!(h.stop_ticks.get(), 0);
    assert_eq!((h.counters.leaks.get(), h.counters.alerts.get()), (1, 1));
    let records: Vec<Record> = recs[1..]
        .iter()
        .map(|r| Record::decode(&r.data).unwrap())
        .collect();
    // The leak, its contents and its site's small-allocation record (written
    // at stop too).
    let [
        Record::Alloc(a),
        Record::Contents(c),
        Record::SmallSite(site),
    ] = records.as_slice()
    else {
        panic!("{records:?}")
    };
    assert_eq!((c.seq, c.count.get()), (a.seq, 6));
    assert_eq!(
        seen(a),
        alloc(
            kind::POINTER,
            AllocFlags::GUARDED,
            6,
            "err-display-stop-leak"
        )
    );
    assert_eq!(seen(&site.first), seen(a));
}

#[test]
fn storage_heap_full_marks_the_ledger_incomplete_and_the_app_continues() {
    let r = run(12);
    assert_clean_header(&r);
    assert!(r.flags().contains(HeaderFlags::INCOMPLETE));
    let c = r.counters();
    assert_eq!(c.untracked.get(), 1);
    assert_eq!((c.allocations.get(), c.frees.get()), (0, 0));
    assert_eq!(c.unknown_frees.get(), 1, "the untracked block's free");
    assert!(r.records.is_empty());
}

#[test]
fn thirty_thousand_cycles_keep_tracking() {
    let r = run_with(
        13,
        &Config {
            max_instructions: 2_000_000_000,
            ..Config::default()
        },
        |_| {},
    );
    assert_clean_header(&r);
    assert_eq!(
        seen_all(&r),
        vec![alloc(kind::POINTER, PTR_GUARDED, 8, "cycles-leak")]
    );
    assert_eq!(r.allocs()[0].seq.get(), 30_001);
    let c = r.counters();
    assert_eq!((c.allocations.get(), c.frees.get()), (30_001, 30_000));
    assert_eq!(c.untracked.get(), 0);
    assert_eq!(c.peak_live_count.get(), 1);
    assert!(r.flags().is_empty());
}

#[test]
fn leaked_box_is_recorded_with_its_call_stack() {
    let r = run(14);
    assert_clean_header(&r);
    let allocs = r.allocs();
    assert_eq!(
        allocs.len(),
        1,
        "{:?} {:?} {:?}",
        r.records,
        r.header,
        r.dbg_messages()
    );
    let b = allocs[0];
    assert_eq!(b.kind, kind::RUST);
    assert_eq!(b.size.get(), 24);
    assert_eq!(b.alloc_flags(), PTR_GUARDED);
    assert_eq!((b.line.get(), b.file.bytes()), (0, &b""[..]));
    // The innermost frame is the return into the function that made the Box (the
    // allocator shim is inlined there): its inline chain reaches the Box::new line.
    let lines: Vec<Vec<u16>> = b.stack.iter().map(|f| APP.inline_lines(f)).collect();
    assert!(
        lines[0].contains(&line("box")),
        "call stack {:x?} → lines {lines:?}",
        b.stack.iter().collect::<Vec<_>>()
    );
    assert!(b.stack.count >= 2, "the caller of the scenario too");
    let c = r.counters();
    assert!(c.allocations.get() > 1, "the Vec's blocks were tracked too");
    assert_eq!(c.frees.get(), c.allocations.get() - 1);
    assert_eq!(c.leaks.get(), 1);
}

#[test]
fn without_code_1_frames_stay_raw_and_the_leak_line_names_the_address() {
    // DmGetResource answers NULL while memdbg starts (scenario 25 patches it):
    // memdbg cannot locate code 1.
    let r = run(25);
    assert!(
        r.flags().contains(HeaderFlags::CODE_BASE_UNKNOWN),
        "{:?}",
        r.flags()
    );
    assert_eq!((r.header.code_base.get(), r.header.code_size.get()), (0, 0));
    let allocs = r.allocs();
    assert_eq!(allocs.len(), 1, "{:?}", r.records);
    let b = allocs[0];
    assert_eq!((b.kind, b.size.get()), (kind::RUST, 20));
    // One raw 68k address (the walk stops after the first frame outside code 1,
    // and code 1 is unknown): the return into the Box's maker, which, taken as an
    // offset in code 1, reaches the Box::new line.
    let base = r.machine.os.sys.code1_base.expect("code 1 base");
    assert_eq!((b.stack.count, b.stack.raw_mask), (1, 1), "{:?}", b.stack);
    let inner = b.stack.frames[0].get();
    let offset = inner.checked_sub(base).expect("inside code 1");
    assert!(
        APP.inline_lines(Frame::Code(offset))
            .contains(&line("raw-box")),
        "{inner:#x} − {base:#x}"
    );
    // The leak's line ends with that address as it is (no `code+`). (No alert:
    // the ROM's alert was not found either, while DmGetResource found nothing.)
    assert!(r.flags().contains(HeaderFlags::NO_ALERT_DIALOG));
    assert!(r.alerts().is_empty(), "{:?}", r.alerts());
    let leak = r
        .dbg_messages()
        .iter()
        .find(|m| m.starts_with("memdbg: leak #"))
        .expect("a leak line");
    assert!(leak.ends_with(&format!(" at 0x{inner:08X}")), "{leak}");
}

#[test]
fn over_aligned_rust_blocks_sit_at_their_alignment_with_the_guard_after_them() {
    let r = run(26);
    let allocs = r.allocs();
    assert_eq!(allocs.len(), 2, "{:?}", r.records);
    let a = allocs[0];
    assert_eq!(
        (a.kind, a.size.get(), a.alloc_flags()),
        (kind::RUST, 20, PTR_GUARDED)
    );
    // The record's address is the chunk start; the block is at its data offset,
    // 8-aligned, at most the alignment in (the word below it holds the offset).
    let (base, off) = (a.address.get(), u32::from(a.data_offset.get()));
    assert!(
        (2..=8).contains(&off) && (base + off) % 8 == 0,
        "{base:#x} + {off}"
    );
    let lines: Vec<Vec<u16>> = a.stack.iter().map(|f| APP.inline_lines(f)).collect();
    assert!(lines[0].contains(&line("aligned")), "{lines:?}");
    // The wrapper's block after it: its file and line, and an empty stack (the
    // scratch record's frames zeroed again), no data offset.
    let w = allocs[1];
    assert_eq!(
        seen(&w),
        alloc(kind::POINTER, PTR_GUARDED, 10, "after-rust")
    );
    assert_eq!((w.stack, w.data_offset.get()), (Stack::default(), 0));
    // The chunks: size + alignment + guard, and size + guard (palm-run's sweep at
    // exit).
    let mut swept: Vec<(u32, u32)> = r
        .outcome
        .leaks
        .iter()
        .map(|l| (l.address, l.size))
        .collect();
    swept.sort();
    let mut want = vec![(base, 20 + 8 + 4), (w.address.get(), 10 + 4)];
    want.sort();
    assert_eq!(swept, want);
    let c = r.counters();
    assert_eq!(
        [
            c.allocations.get(),
            c.frees.get(),
            c.failed.get(),
            c.overruns.get(),
            c.leaks.get(),
        ],
        [3, 1, 1, 0, 2],
        "allocations, frees, failed (alignment 0x10000), overruns, leaks"
    );
    assert!(r.flags().is_empty(), "{:?}", r.flags());
}

#[test]
fn blocks_without_room_for_a_guard_are_recorded_unguarded() {
    let r = run(27);
    assert_clean_header(&r);
    let mut allocs = seen_all(&r);
    allocs.sort_by_key(|a| a.line);
    // The second block's size is what the filled heap had room for: below 60,000
    // bytes, so a guard was wanted (the guarded request failed).
    let fitted = allocs.get(1).map_or(0, |a| a.size);
    assert!((1..60_000).contains(&fitted), "{allocs:?}");
    assert_eq!(
        allocs,
        vec![
            alloc(kind::POINTER, AllocFlags::empty(), 65_505, "too-big"),
            alloc(kind::POINTER, AllocFlags::empty(), fitted, "no-room"),
        ]
    );
    let c = r.counters();
    assert_eq!(
        [
            c.allocations.get(),
            c.failed.get(),
            c.overruns.get(),
            c.leaks.get()
        ],
        [2, 0, 0, 2],
        "allocations, failed, overruns, leaks"
    );
}

#[test]
fn chunk_new_pointer_and_handle() {
    let r = run(15);
    assert_clean_header(&r);
    assert_eq!(
        seen_all(&r),
        vec![
            alloc(
                kind::CHUNK,
                PTR_GUARDED | AllocFlags::OTHER_OWNER,
                6,
                "chunk-ptr"
            ),
            alloc(
                kind::CHUNK,
                AllocFlags::GUARDED | AllocFlags::HANDLE | AllocFlags::OTHER_OWNER,
                70,
                "chunk-handle"
            ),
        ]
    );
    // Owned by the system (attr's owner bits are 0, not the app's: OTHER_OWNER):
    // the OS's exit sweep does not see them, so on a device they would stay
    // allocated until a reset. The ledger does, as leaks (never the app's, so not
    // handed off).
    assert!(r.outcome.leaks.is_empty());
    // Small allocations (1–12 bytes) are counted per site.
    assert_eq!(r.counters().small_allocs.get(), 1);
    let sites: Vec<_> = r
        .records
        .iter()
        .filter_map(|x| match x {
            Record::SmallSite(s) => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(sites.len(), 1);
    assert_eq!((sites[0].count.get(), sites[0].bytes.get()), (1, 6));
    assert_eq!(sites[0].first.line.get(), line("chunk-ptr"));
}

#[test]
fn c_interface_records_run_time_file_names() {
    let r = run(16);
    assert_clean_header(&r);
    let long = b"src/a/rather/long/path/to/the/capi_test.c";
    assert_eq!(
        seen_all(&r),
        vec![Alloc {
            kind: kind::HANDLE,
            flags: AllocFlags::GUARDED | AllocFlags::HANDLE | AllocFlags::FILE_TRUNCATED,
            size: 8,
            file: FileName::new(long).bytes().to_vec(),
            line: 43,
        }]
    );
    assert_eq!(
        r.allocs()[0].file.bytes(),
        b"rather/long/path/to/the/capi_test.c"[7..].to_vec()
    );
    let c = r.counters();
    assert_eq!(
        (c.allocations.get(), c.frees.get(), c.resizes.get()),
        (3, 2, 1)
    );
    assert_eq!(c.leaks.get(), 1);
}

#[test]
fn c_file_names_are_cut_as_rust_sites_are() {
    let r = run(28);
    assert_clean_header(&r);
    let names: [&[u8]; 5] = [
        b"abcdefghijklmnopqrstuvwxyz01234",
        b"/bcdefghijklmnopqrstuvwxyz012345",
        b"abcdefghijklmnopqrstuvwxyz0123456789ABCD",
        b"C:\\dev\\projects\\memdbg\\source\\main_form.c",
        b"",
    ];
    let mut allocs = r.allocs();
    allocs.sort_by_key(|a| a.line.get());
    assert_eq!(allocs.len(), names.len());
    for (a, name) in allocs.iter().zip(names) {
        let cut = FileName::new(name);
        assert_eq!(a.file, cut, "{:?}", String::from_utf8_lossy(name));
        assert_eq!(
            a.flags.get() & AllocFlags::FILE_TRUNCATED.bits() != 0,
            name.len() > 31,
            "{:?}",
            String::from_utf8_lossy(name)
        );
    }
    // The cut itself: after the separator, else the last 31 bytes.
    assert_eq!(allocs[1].file.bytes(), b"bcdefghijklmnopqrstuvwxyz012345");
    assert_eq!(allocs[2].file.bytes(), b"jklmnopqrstuvwxyz0123456789ABCD");
    assert_eq!(allocs[3].file.bytes(), b"memdbg\\source\\main_form.c");
    assert_eq!(
        allocs.iter().map(|a| a.line.get()).collect::<Vec<_>>(),
        [100, 101, 102, 103, 104]
    );
}

#[test]
fn wrapper_frees_are_recorded_at_the_program_s_call_while_patched() {
    let r = run(29);
    assert_clean_header(&r);
    let doubles: Vec<_> = r
        .records
        .iter()
        .filter_map(|x| match x {
            Record::DoubleFree(d) => Some(*d),
            _ => None,
        })
        .collect();
    assert_eq!(doubles.len(), 2, "{:?}", r.records);
    for (d, first, second) in [
        (&doubles[0], "wrapper-first", "wrapper-second"),
        (&doubles[1], "c-first", "c-second"),
    ] {
        assert_eq!(APP.site_line(d.first.frame(0)), Some(line(first)), "{d:x?}");
        assert_eq!(
            APP.site_line(d.second.frame(0)),
            Some(line(second)),
            "{d:x?}"
        );
    }
    let c = r.counters();
    // Each block freed once (the second free refused), from the app.
    assert_eq!(
        (
            c.double_frees.get(),
            c.frees.get(),
            c.os_frees.get(),
            c.leaks.get()
        ),
        (2, 2, 0, 0)
    );
    assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
}

#[test]
fn resizes_while_stopped_are_the_plain_calls() {
    // The scenario checks the results and sizes and that the Vec grew in place
    // (result 0); nothing was recorded, and palm-run (a debug ROM) saw every chunk
    // freed exactly once.
    let r = run(30);
    assert_clean_header(&r);
    assert!(r.allocs().is_empty(), "{:?}", r.records);
    assert_eq!(r.counters().allocations.get(), 0);
    assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
}

#[test]
fn scattered_frees_and_frees_from_outside_code_1_all_match() {
    let r = run(17);
    assert_clean_header(&r);
    let c = r.counters();
    assert_eq!(c.allocations.get(), 300, "{c:?}");
    assert_eq!(c.frees.get(), 260, "{c:?}");
    assert_eq!(c.os_frees.get(), 3, "the RAM stub is not code 1");
    assert_eq!(
        c.unknown_frees.get(),
        2,
        "the stub and the array: never wrapped"
    );
    assert_eq!(c.leaks.get(), 40);
    // The leaks are exactly the blocks never freed: i not of the form k*7 mod 300
    // (k < 257), minus the first three the stub freed, with size 1 + i % 37.
    let freed: std::collections::HashSet<u32> = (0..257).map(|k| (k * 7) % 300).collect();
    let left: Vec<u32> = (0..300).filter(|i| !freed.contains(i)).skip(3).collect();
    let mut want: Vec<u32> = left.iter().map(|i| 1 + i % 37).collect();
    let mut got: Vec<u32> = r.allocs().iter().map(|a| a.size.get()).collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    assert!(r.allocs().iter().all(|a| a.line.get() == line("churn")));
    let mut seqs: Vec<u32> = r.allocs().iter().map(|a| a.seq.get()).collect();
    seqs.sort();
    let want_seqs: Vec<u32> = left.iter().map(|i| i + 1).collect();
    assert_eq!(seqs, want_seqs);
}

#[test]
fn options_fills_stacks_low_heap_and_rare_events() {
    let r = run(18);
    assert_clean_header(&r);
    assert!(r.flags().contains(HeaderFlags::LOW_HEAP));
    // The leaks: the storage chunk (no guard) and the overrun block, flagged.
    assert_eq!(
        seen_all(&r),
        vec![
            alloc(
                kind::CHUNK,
                AllocFlags::NOT_DYNAMIC | AllocFlags::OTHER_OWNER,
                16,
                "storage"
            ),
            alloc(
                kind::POINTER,
                AllocFlags::GUARDED | AllocFlags::OVERRUN,
                6,
                "leak-overrun"
            ),
        ]
    );
    // With call stacks, a wrapper's record starts at its call.
    for a in r.allocs() {
        assert_eq!(APP.site_line(a.stack.frame(0)), Some(a.line.get()));
        assert!(a.stack.count >= 2);
    }
    let ev = r.events();
    let kinds: Vec<u8> = ev
        .iter()
        .map(|e| match e {
            Record::LowHeap(_) => kind::LOW_HEAP,
            Record::Overrun(o) => o.when.get() as u8,
            Record::DoubleFree(_) => kind::DOUBLE_FREE,
            _ => 0,
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            kind::LOW_HEAP,
            detected::AT_RESIZE as u8,
            kind::DOUBLE_FREE,
            detected::AT_STOP as u8
        ],
        "{ev:?}"
    );
    let Record::LowHeap(l) = ev[0] else {
        unreachable!()
    };
    assert_eq!(l.threshold.get(), u32::MAX);
    assert_eq!(l.alloc.line.get(), line("filled"));
    let Record::Overrun(o) = ev[1] else {
        unreachable!()
    };
    assert_eq!(o.alloc.line.get(), line("resized-overrun"));
    assert_eq!(o.guard, [0, 0xFD, 0xFD, 0xFD]);
    assert_eq!(
        APP.site_line(o.site.frame(0)),
        Some(line("resized-overrun") + 2)
    );
    let Record::DoubleFree(d) = ev[2] else {
        unreachable!()
    };
    assert_eq!(
        seen(&d.alloc),
        alloc(
            kind::HANDLE,
            AllocFlags::GUARDED | AllocFlags::HANDLE,
            10,
            "handle-twice"
        )
    );
    assert_eq!(
        APP.site_line(d.first.frame(0)),
        Some(line("handle-twice") + 1)
    );
    assert_eq!(
        APP.site_line(d.second.frame(0)),
        Some(line("handle-twice") + 2)
    );
    let Record::Overrun(o) = ev[3] else {
        unreachable!()
    };
    assert_eq!((o.site.count, o.guard), (0, [0x55, 0xFD, 0xFD, 0xFD]));
    let c = r.counters();
    assert_eq!(
        (c.overruns.get(), c.double_frees.get(), c.resizes.get()),
        (2, 1, 1)
    );
    assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
}

#[test]
fn a_foreign_mem_dbg_db_is_left_alone_and_start_fails() {
    // 0: another creator; 1: another type; 2: a resource database.
    for (variant, creator, kind, records) in [
        (0, *b"Othr", *b"LEAK", true),
        (1, *b"MDbg", *b"DATA", true),
        (2, *b"MDbg", *b"LEAK", false),
    ] {
        let (m, outcome) = launch_with(19, &Config::default(), |m| {
            m.os.ftr.features.insert((APP.creator, 1), variant);
        });
        assert!(
            outcome.patches_left.is_empty(),
            "{:?}",
            outcome.patches_left
        );
        assert!(m.os.sys.err_displays.is_empty());
        let db = Database::parse(&m.export("MemDbgDB").unwrap()).unwrap();
        assert_eq!(
            (db.header.creator, db.header.kind),
            (FourCC::new(creator), FourCC::new(kind)),
            "variant {variant}: the foreign database's identity"
        );
        match &db.content {
            Content::Records(recs) => {
                assert!(records, "variant {variant}");
                assert_eq!(
                    recs.len(),
                    1,
                    "variant {variant}: its one record, not a ledger"
                );
                assert_eq!(recs[0].data, b"foreign\0");
            }
            Content::Resources(res) => {
                assert!(!records, "variant {variant}");
                assert!(res.is_empty());
            }
        }
    }
}

#[test]
fn guard_bytes_are_invisible_to_size_and_resize_calls() {
    let r = run(20);
    assert_clean_header(&r);
    assert!(r.flags().is_empty(), "{:?}", r.flags());
    // The kept handle: one record, with the size of its last resize (through its
    // locked pointer), no overrun although every byte MemPtrSize gave was written.
    assert_eq!(
        seen_all(&r),
        vec![alloc(
            kind::HANDLE,
            AllocFlags::GUARDED | AllocFlags::HANDLE | AllocFlags::RESIZED,
            60,
            "hidden-kept"
        )]
    );
    // The only overrun: one byte past the 12 bytes MemPtrSize gave.
    assert_one_overrun_at_free(&r, 12, "hidden-overrun", "hidden-overrun-free");
    let c = r.counters();
    assert_eq!(
        (c.allocations.get(), c.frees.get(), c.leaks.get()),
        (6, 5, 1)
    );
    assert_eq!(c.resizes.get(), 5, "MemPtrResize ×2, MemHandleResize ×3");
    assert_eq!((c.overruns.get(), c.leaked_bytes.get()), (1, 60));
    assert_eq!(c.unknown_frees.get(), 1, "the untracked block");
    let file = APP.file_name();
    assert_eq!(
        r.alerts(),
        [
            format!(
                "Overrun after 12 bytes (pointer) at {file}:{}",
                line("hidden-overrun")
            ),
            format!(
                "Leak #{}: 60 bytes (handle) at {file}:{}",
                seq(&r, "hidden-kept"),
                line("hidden-kept")
            ),
        ]
    );
    assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
}

#[test]
fn a_text_handle_grown_by_the_field_manager_keeps_its_guard() {
    for variant in [0, 1] {
        let r = run_with(21, &Config::default(), |m| {
            m.os.ftr.features.insert((APP.creator, 1), variant);
        });
        assert_clean_header(&r);
        assert!(
            r.allocs().is_empty() && r.events().is_empty(),
            "{:?}",
            r.records
        );
        let c = r.counters();
        assert_eq!(
            (c.allocations.get(), c.frees.get(), c.os_frees.get()),
            (1, 1, 1)
        );
        assert_eq!(c.resizes.get(), 1, "FldInsert's MemHandleResize");
        assert_eq!((c.overruns.get(), c.leaks.get()), (0, 0));
        assert!(r.alerts().is_empty(), "{:?}", r.alerts());
        assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
    }
}

#[test]
fn failed_and_untracked_allocations_sample_the_heap_low_water_marks() {
    for variant in [0, 1] {
        let r = run_with(22, &Config::default(), |m| {
            m.os.ftr.features.insert((APP.creator, 1), variant);
        });
        assert_clean_header(&r);
        let ftr = &r.machine.os.ftr.features;
        let (free, max) = (ftr[&(APP.creator, 10)], ftr[&(APP.creator, 11)]);
        let c = r.counters();
        assert_eq!(
            (c.low_free.get(), c.low_largest_free.get()),
            (free, max),
            "variant {variant}: the low-water marks are the heap at its lowest"
        );
        if variant == 0 {
            assert_eq!((c.failed.get(), c.allocations.get()), (1, 0));
            assert!(max < 604, "the 600-byte block could not fit: {max}");
        } else {
            assert_eq!((c.untracked.get(), c.allocations.get()), (1, 1));
            assert!(r.flags().contains(HeaderFlags::INCOMPLETE));
        }
        assert!(
            r.allocs().is_empty() && r.events().is_empty(),
            "{:?}",
            r.records
        );
    }
}

/// Issue 16 (6): a stack the walk cut says why. A block allocated 200 calls deep
/// has six frames of code 1 and the depth-limit mark; one allocated in a function
/// called with an odd A6 has its site and its caller, and the broken-chain mark.
#[test]
fn cut_call_stacks_say_why() {
    let r = run(31);
    assert_clean_header(&r);
    let allocs = r.allocs();
    assert_eq!(
        seen_all(&r),
        vec![
            alloc(kind::POINTER, PTR_GUARDED, 8, "deep"),
            alloc(kind::POINTER, PTR_GUARDED, 12, "broken-chain"),
        ]
    );
    let (deep, broken) = (allocs[0].stack, allocs[1].stack);
    assert_eq!(
        (deep.count, deep.raw_mask, deep.truncation()),
        (6, Stack::TRUNCATED_DEPTH, Some(Truncation::DepthLimit)),
        "{deep:x?}"
    );
    assert_eq!(APP.site_line(deep.frame(0)), Some(line("deep")));
    // Frames 1 to 5: the recursion's own call, the same return address each time.
    let rest: Vec<Frame> = deep.iter().skip(1).collect();
    assert!(rest.windows(2).all(|w| w[0] == w[1]), "{rest:x?}");
    assert_eq!(
        (broken.count, broken.raw_mask, broken.truncation()),
        (2, Stack::TRUNCATED_CHAIN, Some(Truncation::BrokenChain)),
        "{broken:x?}"
    );
    assert_eq!(APP.site_line(broken.frame(0)), Some(line("broken-chain")));
    assert!(matches!(broken.frame(1), Some(Frame::Code(_))));
    // A complete stack (the overrun scenario's, with call stacks) is not cut:
    // every record of a run that reached the OS says nothing.
    let r = run(18);
    for a in r.allocs() {
        assert_eq!(a.stack.truncation(), None, "{:x?}", a.stack);
        assert_eq!(
            a.stack.raw_mask.count_ones(),
            1,
            "the OS's frame: {:x?}",
            a.stack
        );
    }
}

/// palm-run's own test app (does not link memdbg), built once.
fn other_app() -> &'static Vec<u8> {
    static PRC: OnceLock<Vec<u8>> = OnceLock::new();
    PRC.get_or_init(|| std::fs::read(common::build_other_app().prc).unwrap())
}

/// Issue 16 (7): an app that returns without `stop` leaves memdbg's eight patches
/// installed (frees, sizes, resizes, unlocks), and code 1 locked by memdbg's own lock (`start` locks it until
/// `stop`), which palm-run, as a debug ROM, reports and undoes at exit; it then
/// moves the code away and fills the old place with ILLEGAL instructions, as a
/// device may reuse it. A second app that allocates, frees and asks for sizes
/// afterwards runs without a fault: each trampoline sees that the code it would
/// jump into is gone and goes straight to the original trap (which frees the
/// chunk: no debug-ROM report). Then memdbg's app runs again: `start` takes the
/// abandoned session over (its patches removed, its records released, its
/// chunks freed) and the new run is exact. The same with the code left where it
/// was (only unlocked): the lock check alone sends the calls on.
#[test]
fn an_app_that_forgets_stop_leaves_the_next_apps_frees_working() {
    for moved in [true, false] {
        forgotten_stop(moved);
    }
}

fn forgotten_stop(moved: bool) {
    let mut m = machine(&Config::default());
    m.move_code_at_exit = moved;
    m.install(other_app()).unwrap();
    let table = palm_run::sys::dispatch_snapshot(&m);
    let state_chunks = |m: &Machine| {
        m.os.mem
            .dynamic
            .walk(&m.mem)
            .unwrap()
            .iter()
            .filter(|c| !c.header.free && c.header.owner == 0)
            .count()
    };
    let system_before = state_chunks(&m);
    m.os.ftr.features.insert((APP.creator, 0), 32);
    let first = m.launch(APP.name).unwrap();
    assert_eq!((first.stop.clone(), first.result), (None, Some(0)));
    assert_eq!(first.patches_left.len(), 8, "{:?}", first.patches_left);
    assert_eq!(first.left_open, ["MemDbgDB"]);
    assert_eq!(
        first.code1_locks_left, 1,
        "memdbg's lock, undone by palm-run"
    );
    assert_eq!(
        state_chunks(&m),
        system_before + 2,
        "the state and the index"
    );
    let old_code = m.os.sys.code1_base.unwrap();
    assert_eq!(
        m.code1_base(APP.name) != Some(old_code),
        moved,
        "palm-run moved it"
    );
    // The second app: allocations, a MemChunkFree, MemPtrSize/MemHandleSize.
    m.os.ftr.features.remove(&(APP.creator, 0));
    m.set_feature(*b"PRtt", 0, 1);
    let second = m.launch("RunTest").unwrap();
    assert_eq!(second.stop, None, "{}", m.output.join("\n"));
    assert!(m.reports.is_empty(), "{:?}", m.reports);
    assert_eq!(second.leaks.len(), 2, "RunTest's two chunks, by design");
    let f = |n| m.feature(*b"PRtt", n).unwrap();
    assert_eq!((f(9), f(10)), (30, 20), "the original sizes");
    assert_eq!(f(7), f(1) - 74, "the free reached the OS");
    assert!(
        second.patches_left.is_empty(),
        "the patches are still memdbg's"
    );
    // memdbg's app again: a clean run of its own, the abandoned state gone.
    m.os.ftr.features.insert((APP.creator, 0), 2);
    let third = m.launch(APP.name).unwrap();
    assert_eq!((third.stop.clone(), third.result), (None, Some(0)));
    assert_eq!(third.code1_locks_left, 0, "no lock taken off twice or left");
    assert!(m.reports.is_empty(), "{:?}", m.reports);
    assert_eq!(
        palm_run::sys::dispatch_snapshot(&m),
        table,
        "the originals are back"
    );
    assert_eq!(state_chunks(&m), system_before);
    let db = Database::parse(&m.export("MemDbgDB").unwrap()).unwrap();
    let Content::Records(recs) = &db.content else {
        panic!()
    };
    let h = Header::decode(&recs[0].data).unwrap();
    assert!(!h.header_flags().contains(HeaderFlags::RUNNING));
    assert_eq!(recs.len(), 1, "no records but the header");
    let c = h.counters;
    assert_eq!((c.allocations.get(), c.frees.get()), (2, 2));
}

/// Issue 16 (7): a `memdbg::Session` stops memdbg on every path out of the
/// function holding it: the end, an early return, a return from a loop, and
/// `Session::stop` (after which the drop does nothing). Each run leaves the exact
/// ledger of a stopped run (one leak) and the dispatch table as it found it.
#[test]
fn a_session_stops_on_every_path_out() {
    for path in 0..4 {
        let mut m = machine(&Config::default());
        m.os.ftr.features.insert((APP.creator, 0), 33);
        m.os.ftr.features.insert((APP.creator, 1), path);
        let out = m.launch(APP.name).unwrap();
        assert_eq!((out.stop.clone(), out.result), (None, Some(10 + path)));
        assert!(
            out.patches_left.is_empty(),
            "path {path}: {:?}",
            out.patches_left
        );
        assert!(out.left_open.is_empty(), "path {path}: the ledger closed");
        let db = Database::parse(&m.export("MemDbgDB").unwrap()).unwrap();
        let Content::Records(recs) = &db.content else {
            panic!()
        };
        let h = Header::decode(&recs[0].data).unwrap();
        assert!(
            !h.header_flags().contains(HeaderFlags::RUNNING),
            "path {path}"
        );
        assert_ne!(h.stop_ticks.get(), 0);
        let leaks: Vec<Alloc> = recs[1..]
            .iter()
            .filter_map(|r| match Record::decode(&r.data).unwrap() {
                Record::Alloc(a) => Some(seen(&a)),
                _ => None,
            })
            .collect();
        assert_eq!(
            leaks,
            [alloc(kind::POINTER, PTR_GUARDED, 12, "session-leak")],
            "path {path}"
        );
        assert_eq!(h.counters.leaks.get(), 1);
        let summaries =
            m.os.sys
                .dbg_messages
                .iter()
                .filter(|l| l.starts_with("memdbg: leaks "))
                .count();
        assert_eq!(summaries, 1, "path {path}: stopped once");
    }
}

/// Issue 16 (3): a pointer and a handle given to the system and kept are handed
/// off, not leaked: their records stay, with HANDED_OFF and their allocation's
/// file and line, and the header counts only the real leaks (the block whose
/// owner went to 0 and back, and the system-owned MemChunkNew, which was never
/// the app's). No leak alert or line for a hand-off.
#[test]
fn blocks_handed_to_the_system_are_not_leaks() {
    let r = run(34);
    assert_clean_header(&r);
    let handle = AllocFlags::GUARDED | AllocFlags::HANDLE;
    assert_eq!(
        seen_all(&r),
        vec![
            alloc(
                kind::POINTER,
                PTR_GUARDED | AllocFlags::HANDED_OFF,
                16,
                "handoff-ptr"
            ),
            alloc(
                kind::HANDLE,
                handle | AllocFlags::HANDED_OFF,
                24,
                "handoff-handle"
            ),
            alloc(kind::POINTER, PTR_GUARDED, 8, "owner-back"),
            alloc(
                kind::CHUNK,
                PTR_GUARDED | AllocFlags::OTHER_OWNER,
                6,
                "system-chunk"
            ),
        ]
    );
    let c = r.counters();
    assert_eq!((c.leaks.get(), c.leaked_bytes.get()), (2, 14));
    assert_eq!((c.allocations.get(), c.frees.get()), (4, 0));
    let file = "memdbg/tests/app/src/lib.rs";
    assert_eq!(
        r.alerts(),
        [
            format!(
                "Leak #3: 8 bytes (pointer) at {file}:{}",
                line("owner-back")
            ),
            format!(
                "Leak #4: 6 bytes (chunk) at {file}:{}",
                line("system-chunk")
            ),
        ]
    );
    let lines = r
        .dbg_messages()
        .iter()
        .filter(|m| m.starts_with("memdbg: leak #"))
        .count();
    assert_eq!(lines, 2);
    assert_eq!(
        r.dbg_messages().last().unwrap(),
        "memdbg: leaks 2 (14 bytes), overruns 0, double frees 0, locked 0"
    );
}

/// Issue 16 (1): a second free of a chunk the OS merged into a free neighbour is
/// still a double free. Ten adjacent 16-byte pointers freed in order (each
/// merges into the free chunk before it, its own header left inside, reading as
/// live), then blocks 1, 5 and 9 again; a handle freed, then MemChunkFree of the
/// pointer it had when locked. Four double frees, each with its allocation and
/// both frees' sites, none passed to the OS (palm-run, a debug ROM, saw no
/// invalid free); nothing leaks.
#[test]
fn double_frees_of_merged_chunks_are_caught() {
    for documented in [false, true] {
        let r = run_with(37, &Config::default(), |m| m.opaque_handles = documented);
        assert_eq!(r.outcome.result, Some(0), "documented {documented}");
        assert_clean_header(&r);
        assert_eq!(
            r.header
                .header_flags()
                .contains(HeaderFlags::DOCUMENTED_CALLS),
            documented
        );
        let events = r.events();
        let doubles: Vec<(Alloc, u16, u16)> = events
            .iter()
            .map(|rec| match rec {
                Record::DoubleFree(d) => (
                    seen(&d.alloc),
                    APP.site_line(d.first.frame(0)).unwrap(),
                    APP.site_line(d.second.frame(0)).unwrap(),
                ),
                other => panic!("{other:?}"),
            })
            .collect();
        let merged = |second| {
            (
                alloc(kind::POINTER, PTR_GUARDED, 16, "merged-block"),
                line("merged-first"),
                line(second),
            )
        };
        assert_eq!(
            doubles,
            vec![
                merged("merged-second-1"),
                merged("merged-second-5"),
                merged("merged-second-9"),
                (
                    alloc(
                        kind::HANDLE,
                        AllocFlags::GUARDED | AllocFlags::HANDLE,
                        12,
                        "merged-handle"
                    ),
                    line("merged-handle-free"),
                    line("merged-handle-pointer"),
                ),
            ],
            "documented {documented}"
        );
        // The blocks were adjacent: each chunk (16 bytes, the guard, the header)
        // right after the one before.
        let addrs: Vec<u32> = events
            .iter()
            .take(3)
            .map(|rec| match rec {
                Record::DoubleFree(d) => d.address.get(),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(addrs[1] - addrs[0], 4 * 28);
        assert_eq!(addrs[2] - addrs[1], 4 * 28);
        let c = r.counters();
        assert_eq!(
            (c.allocations.get(), c.frees.get(), c.double_frees.get()),
            (11, 11, 4)
        );
        assert_eq!((c.leaks.get(), c.unknown_frees.get()), (0, 0));
        assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
        let file = "memdbg/tests/app/src/lib.rs";
        assert_eq!(
            r.alerts(),
            [
                format!(
                    "Double free of 16 bytes (pointer) at {file}:{}",
                    line("merged-block")
                ),
                format!(
                    "Double free of 16 bytes (pointer) at {file}:{}",
                    line("merged-block")
                ),
                format!(
                    "Double free of 16 bytes (pointer) at {file}:{}",
                    line("merged-block")
                ),
                format!(
                    "Double free of 12 bytes (handle) at {file}:{}",
                    line("merged-handle")
                ),
            ]
        );
    }
}

/// Issue 16 (2): blocks freed inside the Memory Manager without a free trap
/// call (`MemHeapFreeByOwnerID`), with memdbg's patches installed. The pointer
/// whose address a new tracked block gets is closed as freed unseen at that
/// allocation; the handle, at stop (its chunk free). The new block's free closes
/// its own record; exactly one leak, no overrun, no alert but the leak's.
#[test]
fn blocks_freed_without_a_trap_call_are_freed_unseen() {
    let r = run(38);
    assert_eq!(r.outcome.result, Some(0));
    assert_clean_header(&r);
    assert!(
        !r.header
            .header_flags()
            .intersects(HeaderFlags::PATCHES_REFUSED | HeaderFlags::DOCUMENTED_CALLS)
    );
    let unseen = AllocFlags::FREED_UNSEEN;
    assert_eq!(
        seen_all(&r),
        vec![
            alloc(kind::POINTER, PTR_GUARDED | unseen, 24, "bulk-ptr"),
            alloc(
                kind::HANDLE,
                AllocFlags::GUARDED | AllocFlags::HANDLE | unseen,
                40,
                "bulk-handle"
            ),
            alloc(kind::POINTER, PTR_GUARDED, 12, "bulk-leak"),
        ]
    );
    assert!(
        r.events().is_empty(),
        "no overrun, no double free: {:?}",
        r.events()
    );
    let c = r.counters();
    assert_eq!((c.leaks.get(), c.leaked_bytes.get()), (1, 12));
    assert_eq!((c.allocations.get(), c.frees.get()), (4, 1));
    assert_eq!((c.overruns.get(), c.double_frees.get()), (0, 0));
    assert_eq!(c.unknown_frees.get(), 0);
    let file = "memdbg/tests/app/src/lib.rs";
    assert_eq!(
        r.alerts(),
        [format!(
            "Leak #3: 12 bytes (pointer) at {file}:{}",
            line("bulk-leak")
        )]
    );
    assert_eq!(
        r.dbg_messages().last().unwrap(),
        "memdbg: leaks 1 (12 bytes), overruns 0, double frees 0, locked 0"
    );
    assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
}

/// Issue 16 (4): a free of an address inside a tracked block is refused (not
/// passed to the OS: palm-run, a debug ROM, saw no invalid free) and recorded
/// with the address, its offset into the block, the free's site and the
/// block's allocation; the block stays tracked and its real free closes it.
/// On both paths (a handle's chunk through its master pointer, or locked).
#[test]
fn interior_frees_are_named_with_their_offset_and_site() {
    for documented in [false, true] {
        let r = run_with(40, &Config::default(), |m| m.opaque_handles = documented);
        assert_eq!(r.outcome.result, Some(0), "documented {documented}");
        assert_clean_header(&r);
        let interior: Vec<(Alloc, i32, u16)> = r
            .events()
            .iter()
            .map(|rec| match rec {
                Record::InteriorFree(f) => (
                    seen(&f.alloc),
                    f.offset_bytes(),
                    APP.site_line(f.site.frame(0)).unwrap(),
                ),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            interior,
            vec![
                (
                    alloc(kind::POINTER, PTR_GUARDED, 32, "interior-ptr"),
                    8,
                    line("interior-ptr-free")
                ),
                (
                    alloc(
                        kind::HANDLE,
                        AllocFlags::GUARDED | AllocFlags::HANDLE,
                        20,
                        "interior-handle"
                    ),
                    4,
                    line("interior-handle-free")
                ),
            ],
            "documented {documented}"
        );
        let Record::InteriorFree(f) = r.events()[0] else {
            unreachable!()
        };
        assert_eq!(f.address.get(), f.alloc.address.get() + 8);
        let c = r.counters();
        assert_eq!(
            (c.allocations.get(), c.frees.get(), c.leaks.get()),
            (2, 2, 0)
        );
        assert_eq!((c.unknown_frees.get(), c.double_frees.get()), (0, 0));
        assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
        let file = "memdbg/tests/app/src/lib.rs";
        assert_eq!(
            r.alerts(),
            [
                format!(
                    "Free inside 32 bytes (pointer) at {file}:{}",
                    line("interior-ptr")
                ),
                format!(
                    "Free inside 20 bytes (handle) at {file}:{}",
                    line("interior-handle")
                ),
            ]
        );
    }
}

/// The run's underrun records: (the block's allocation, when found, the line of
/// the call that found it (0: none, at stop), the chunk header's last 4 bytes as
/// found).
fn underruns(r: &Run) -> Vec<(Alloc, u16, u16, [u8; 4])> {
    r.events()
        .iter()
        .filter_map(|rec| match rec {
            Record::Underrun(u) => Some((
                seen(&u.alloc),
                u.when.get(),
                u.site
                    .frame(0)
                    .map_or(0, |f| APP.site_line(Some(f)).unwrap()),
                u.header,
            )),
            _ => None,
        })
        .collect()
}

/// Issue 16 (5): one byte written before a pointer (its chunk header's last byte,
/// `hOffset` 0 → 0x41) and one before a handle's chunk data are underruns found
/// at their frees, with the allocation's and the free's lines; the untouched
/// block freed between them gives none. The header is repaired before the OS
/// frees the chunk (palm-run's debug-ROM checks report nothing).
#[test]
fn underruns_are_found_at_free_with_both_sites() {
    let r = run(42);
    assert_eq!(r.outcome.result, Some(0));
    assert_clean_header(&r);
    let u = underruns(&r);
    assert_eq!(u.len(), 2, "{u:?}");
    assert_eq!(
        (&u[0].0, u[0].1, u[0].2),
        (
            &alloc(kind::POINTER, PTR_GUARDED, 16, "underrun-ptr"),
            detected::AT_FREE,
            line("underrun-ptr-free")
        )
    );
    // Lock count 15, the app's owner, hOffset 0 with its last byte written.
    assert_eq!((u[0].3[0] >> 4, &u[0].3[1..]), (15, &[0, 0, 0x41][..]));
    assert_eq!(
        (&u[1].0, u[1].1, u[1].2),
        (
            &alloc(
                kind::HANDLE,
                AllocFlags::GUARDED | AllocFlags::HANDLE,
                20,
                "underrun-handle"
            ),
            detected::AT_FREE,
            line("underrun-handle-free")
        )
    );
    // Unlocked again (lock count 0); only hOffset's low byte changed (bit 4).
    assert_eq!(u[1].3[0] >> 4, 0);
    assert_eq!(r.events().len(), 2, "{:?}", r.events());
    let c = r.counters();
    assert_eq!(
        (
            c.allocations.get(),
            c.frees.get(),
            c.leaks.get(),
            c.overruns.get()
        ),
        (3, 3, 0, 0)
    );
    assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
    let file = APP.file_name();
    assert_eq!(
        r.alerts(),
        [
            format!(
                "Underrun before 16 bytes (pointer) at {file}:{}",
                line("underrun-ptr")
            ),
            format!(
                "Underrun before 20 bytes (handle) at {file}:{}",
                line("underrun-handle")
            ),
        ]
    );
}

/// Issue 16 (5): two bytes written before a pointer, found at its resize (with
/// the resize's line); the header repaired, its free finds no second one.
#[test]
fn an_underrun_is_found_at_resize_and_repaired() {
    let r = run(43);
    assert_eq!(r.outcome.result, Some(0));
    assert_clean_header(&r);
    let u = underruns(&r);
    assert_eq!(u.len(), 1, "{u:?}");
    assert_eq!(
        (&u[0].0, u[0].1, u[0].2),
        (
            &alloc(kind::POINTER, PTR_GUARDED, 16, "underrun-resized"),
            detected::AT_RESIZE,
            line("underrun-resize")
        )
    );
    assert_eq!(&u[0].3[1..], &[0, 0x42, 0x43]);
    assert_eq!(r.events().len(), 1, "{:?}", r.events());
    let c = r.counters();
    assert_eq!((c.resizes.get(), c.frees.get(), c.leaks.get()), (1, 1, 0));
    assert!(r.machine.reports.is_empty(), "{:?}", r.machine.reports);
}

/// Issue 16 (5): a leaked pointer whose header's `hOffset` was written over is
/// an underrun found at stop (no site) and still a leak, not a
/// block freed unseen; its untouched neighbour is only a leak. With documented
/// calls only, nothing is seen.
#[test]
fn an_underrun_of_a_leak_is_found_at_stop() {
    let r = run(44);
    assert_eq!(r.outcome.result, Some(0));
    assert_clean_header(&r);
    let app_owner = underruns(&r)[0].3[0] & 0x0F;
    assert_eq!(
        underruns(&r),
        vec![(
            alloc(kind::POINTER, PTR_GUARDED, 12, "underrun-leak"),
            detected::AT_STOP,
            0,
            [0xF0 | app_owner, 0x07, 0, 0]
        )]
    );
    assert_eq!(
        seen_all(&r),
        vec![
            alloc(kind::POINTER, PTR_GUARDED, 12, "underrun-leak"),
            alloc(kind::POINTER, PTR_GUARDED, 6, "underrun-clean-leak"),
        ]
    );
    let c = r.counters();
    assert_eq!((c.leaks.get(), c.leaked_bytes.get()), (2, 18));
    assert!(r.alerts().iter().all(|a| !a.starts_with("Underrun")));

    // With documented calls only (PumpkinOS) no chunk header is read: no
    // underrun, the two leaks.
    let r = run_with(44, &Config::default(), |m| m.opaque_handles = true);
    assert_eq!(r.outcome.result, Some(0));
    assert!(r.flags().contains(HeaderFlags::DOCUMENTED_CALLS));
    assert_eq!(underruns(&r), vec![]);
    assert_eq!(r.counters().leaks.get(), 2);
}
