//! The report of built ledgers: golden text and JSON (with a symbolizer that
//! stands in for an ELF, so inlined frames, unknown frames and raw addresses
//! all appear), aggregation, suppressions, minimum size, the zip path and diff.
//! `MEMDBG_BLESS=1 cargo test -p memdbg-report` rewrites the golden files.

mod common;

use std::io::Write;

use common::*;
use memdbg::record::{
    self, AsBytes, LockedRecord, PinnedRecord, U32Be, UnlockUnderflowRecord, kind,
};
use memdbg_report::diff::{diff, print_diff};
use memdbg_report::{
    Format, Ledger, Options, Suppressions, Symbol, Symbolize, analyze, ledger_from_bytes,
    ledger_from_bytes_member, print,
};

/// Symbols for the sample ledger's offsets, as an ELF's DWARF would give them.
struct FakeElf;

fn sym(function: &str, file: &str, line: u32, inlined: bool) -> Symbol {
    Symbol {
        function: function.to_string(),
        file: Some(file.to_string()),
        line: Some(line),
        inlined,
    }
}

impl Symbolize for FakeElf {
    fn symbolize(&self, offset: u32) -> Vec<Symbol> {
        match offset {
            0x0124 => vec![
                sym("starter_app::new_record", "src/starter.rs", 42, true),
                sym("starter_app::leak_handles", "src/starter.rs", 60, false),
            ],
            0x0A02 => vec![sym("starter_app::pilot_main", "src/lib.rs", 20, false)],
            0x0300 => vec![
                sym("alloc::boxed::Box<T>::new", "alloc/src/boxed.rs", 260, true),
                sym("starter_app::make_box", "src/starter.rs", 77, false),
            ],
            0x0500 => vec![sym("starter_app::free_buffer", "src/overrun.rs", 20, false)],
            0x0600 => vec![sym("starter_app::overrun", "src/overrun.rs", 12, false)],
            0x0700 | 0x0702 => vec![sym("starter_app::double_free", "src/double.rs", 33, false)],
            // An unlock through palm-sys's glue, inlined into the app's call.
            0x0800 => vec![
                sym(
                    "m68k_palmos_sys::glue::MemHandleUnlock",
                    "palm-sys/traps.tbl",
                    121,
                    true,
                ),
                sym("starter_app::unlock_twice", "src/locks.rs", 18, false),
            ],
            // 0x0040 has no symbols: it must still be printed.
            _ => Vec::new(),
        }
    }

    fn name(&self) -> &str {
        "StarterApp.elf"
    }
}

/// The sample ledger, with three more records than `sample_records` (which
/// the bad-input tests alter by index): a 64-byte pointer that pinned the heap
/// between a 20,004-byte hole and the rest of it, the first handle leak (#3)
/// still locked twice at stop, and an earlier unlock of it while it was not
/// locked (refused by memdbg).
fn sample() -> Ledger {
    Ledger::from_pdb(&pdb_of(&pinned_sample_records()), "sample.pdb").unwrap()
}

/// `sample_records` and the pinned, locked and unlock-underflow records of
/// [`sample`].
fn pinned_sample_records() -> Vec<Vec<u8>> {
    let mut records = sample_records();
    let pin = PinnedRecord {
        kind: kind::PINNED,
        version: record::FORMAT_VERSION,
        lock_count: record::PINNED_LOCK_COUNT,
        reserved: 0,
        before: U32Be::new(20_004),
        after: U32Be::new(145_852),
        largest: U32Be::new(145_852),
        ticks: U32Be::new(40),
        alloc: alloc(
            kind::POINTER,
            64,
            0x0001_6000,
            5,
            "src/forms.rs",
            12,
            stack(&[]),
        ),
    };
    records.push(pin.as_bytes().to_vec());
    // The first handle leak (#3), still locked twice at stop.
    let s1 = stack(&[Ok(0x0124), Ok(0x0A02), Ok(0x0040), Err(0x1000_2468)]);
    let locked = LockedRecord {
        kind: kind::LOCKED,
        version: record::FORMAT_VERSION,
        lock_count: 2,
        reserved: 0,
        ticks: U32Be::new(2000),
        alloc: alloc(kind::HANDLE, 16, 0x0001_2344, 3, "src/starter.rs", 42, s1),
    };
    records.push(locked.as_bytes().to_vec());
    // The same handle unlocked while not locked, before those locks.
    let s1 = stack(&[Ok(0x0124), Ok(0x0A02), Ok(0x0040), Err(0x1000_2468)]);
    let underflow = UnlockUnderflowRecord {
        kind: kind::UNLOCK_UNDERFLOW,
        version: record::FORMAT_VERSION,
        via: UnlockUnderflowRecord::VIA_HANDLE,
        reserved: 0,
        address: U32Be::new(0x0001_2344),
        ticks: U32Be::new(1500),
        site: stack(&[Ok(0x0800), Ok(0x0A02)]),
        alloc: alloc(kind::HANDLE, 16, 0x0001_2344, 3, "src/starter.rs", 42, s1),
    };
    records.push(underflow.as_bytes().to_vec());
    records
}

fn render(ledger: &Ledger, opts: &Options<'_>) -> (String, u8) {
    let mut out = Vec::new();
    let summary = print(&mut out, ledger, opts).unwrap();
    (String::from_utf8(out).unwrap(), summary.exit_status)
}

fn with_symbols() -> Options<'static> {
    let mut o = Options::default();
    o.symbolizer = Some(&FakeElf);
    o
}

#[test]
fn a_small_site_record_written_twice_is_warned_about() {
    let mut records = sample_records();
    let site = records
        .iter()
        .position(|r| r[0] == kind::SMALL_SITE)
        .unwrap();
    let again = records[site].clone();
    records.insert(site + 1, again);
    let ledger = Ledger::from_pdb(&pdb_of(&records), "twice.pdb").unwrap();
    let report = memdbg_report::analyze(&ledger, &with_symbols());
    assert_eq!(
        report
            .warnings
            .iter()
            .filter(|w| w.contains("small"))
            .collect::<Vec<_>>(),
        [
            "small-allocation site records 1 and 2 are the same site (src/small.rs:5, first \
             allocation #2): a record written twice; its 3 allocation(s) are counted twice below",
            "the header counts 9 small allocation(s), 1 of them from sites beyond the per-site \
             table, but the small-site records count 11"
        ]
    );
    // The ledger as memdbg writes it has neither warning.
    assert!(
        !memdbg_report::analyze(&sample(), &with_symbols())
            .warnings
            .iter()
            .any(|w| w.contains("small")),
    );
}

#[test]
fn golden_text() {
    let (text, status) = render(&sample(), &with_symbols());
    golden("sample.txt", &text);
    assert_eq!(status, 1);
}

#[test]
fn golden_json() {
    let mut opts = with_symbols();
    opts.format = Format::Json;
    let (json, status) = render(&sample(), &opts);
    golden("sample.json", &json);
    assert_eq!(status, 1);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["schema"], "memdbg-report/1");
    assert_eq!(v["source"], "sample.pdb");
    assert_eq!(v["symbols"], "StarterApp.elf");
    assert_eq!(v["header"]["app_name"], "StarterApp");
    assert_eq!(v["header"]["app_creator"], "MDst");
    assert_eq!(v["header"]["flags"][0]["name"], "INCOMPLETE");
    assert_eq!(v["summary"]["leaks"], 5);
    assert_eq!(v["summary"]["bytes"], 16 * 3 + 100 + 24);
    assert_eq!(v["sites"][1]["site"], "src/starter.rs:42");
    assert_eq!(v["summary"]["exit_status"], 1);
    let first = &v["leaks"][0];
    assert_eq!(first["number"], 1);
    assert_eq!(first["kind"], "handle");
    assert_eq!(first["address"], 0x0001_2344);
    assert_eq!(first["file"], "src/starter.rs");
    assert_eq!(first["line"], 42);
    assert_eq!(
        first["stack"][0]["symbols"][1]["function"],
        "starter_app::leak_handles"
    );
    assert_eq!(first["stack"][2]["symbols"], serde_json::json!([]));
    assert_eq!(first["stack"][3]["in_code1"], false);
    assert_eq!(v["sites"][1]["count"], 3);
    assert_eq!(v["overruns"][0]["guard"], "00 FD FD FD");
    assert_eq!(v["double_frees"][0]["second_free"]["ticks"], 4200);
    assert_eq!(
        v["double_frees"][0]["second_free"]["after_allocation"],
        serde_json::Value::Null
    );
    assert_eq!(
        v["double_frees"][0]["first_free"]["ticks"],
        serde_json::Value::Null
    );
    assert_eq!(v["double_frees"][0]["first_free"]["after_allocation"], 3);
    assert_eq!(v["heap"]["low_largest_free"], 1500);
}

/// With the trap patches refused (PumpkinOS, Palm OS 5) the options that work
/// through them were asked for but not in effect, and the header's explanation
/// says so instead of describing what they would have done.
#[test]
fn options_the_refused_patches_would_serve_are_said_not_in_effect() {
    let meaning = |r: &memdbg_report::Report, name: &str| {
        let o = r.header.options.iter().find(|o| o.name == name).unwrap();
        o.meaning
    };
    let r = analyze(&sample(), &Options::default());
    assert!(meaning(&r, "LOCK_CHECKS").contains("was refused and recorded"));
    let mut records = pinned_sample_records();
    let mut h = record::Header::read_from(&records[0]).unwrap();
    h.options
        .set(h.options.get() | record::Options::PATCH_FREES.bits());
    h.flags
        .set(h.flags.get() | record::HeaderFlags::PATCHES_REFUSED.bits());
    records[0] = h.as_bytes().to_vec();
    let ledger = Ledger::from_pdb(&pdb_of(&records), "refused.pdb").unwrap();
    let r = analyze(&ledger, &Options::default());
    for name in ["PATCH_FREES", "LOCK_CHECKS"] {
        assert!(
            meaning(&r, name).starts_with("asked for, not in effect: the OS refused"),
            "{name}: {}",
            meaning(&r, name)
        );
    }
    assert_eq!(
        meaning(&r, "GUARDS"),
        meaning(&analyze(&sample(), &Options::default()), "GUARDS")
    );
    let (text, _) = render(&ledger, &Options::default());
    assert!(
        text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("LOCK_CHECKS ") && l.ends_with("so no unlock was checked")
        }),
        "{text}"
    );
}

/// An unlock-underflow record in a ledger whose header says unlocks were not
/// checked (LOCK_CHECKS off) is reported, with a warning that the two disagree.
#[test]
fn an_unlock_underflow_without_lock_checks_is_warned_about() {
    let warned = |r: &memdbg_report::Report| r.warnings.iter().any(|w| w.contains("unlock"));
    assert!(!warned(&analyze(&sample(), &Options::default())));
    let mut records = pinned_sample_records();
    let mut h = record::Header::read_from(&records[0]).unwrap();
    h.options
        .set(h.options.get() & !record::Options::LOCK_CHECKS.bits());
    records[0] = h.as_bytes().to_vec();
    let ledger = Ledger::from_pdb(&pdb_of(&records), "no-checks.pdb").unwrap();
    let r = analyze(&ledger, &Options::default());
    assert_eq!(r.unlock_underflows.len(), 1);
    assert!(warned(&r));
    assert_eq!(
        r.warnings[..1],
        [
            "the ledger holds 1 unlock-underflow record but its header says no unlock was \
          checked (LOCK_CHECKS off, or the trap patches refused): the ledger is inconsistent"
        ]
    );
}

/// A double free's first free is an allocation sequence number from format
/// version 5 on; an older record's is ticks, and says so.
#[test]
fn a_double_frees_first_free_is_ticks_before_format_version_5() {
    let (text, _) = render(&sample(), &Options::default());
    assert!(
        text.contains("  First free (after allocation #3) by:\n"),
        "{text}"
    );
    assert!(text.contains("  Second free (tick 4200) by:\n"), "{text}");
    let mut records = pinned_sample_records();
    let d = records
        .iter_mut()
        .find(|r| r[0] == kind::DOUBLE_FREE)
        .unwrap();
    // Version 4's layout: the same with a version-4 (82-byte) allocation record.
    as_version(d, 4);
    assert_eq!(d.len(), record::DOUBLE_FREE_RECORD_SIZE - 2);
    let old = Ledger::from_pdb(&pdb_of(&records), "v4.pdb").unwrap();
    let r = analyze(&old, &Options::default());
    let first = &r.double_frees[0].first_free;
    assert_eq!((first.ticks, first.after_allocation), (Some(3), None));
    let (text, _) = render(&old, &Options::default());
    assert!(text.contains("  First free (tick 3) by:\n"), "{text}");
}

/// A block's allocation ticks are in records of format versions 1 to 4 only:
/// from version 5 on memdbg reads no ticks per allocation, and the JSON says
/// `null` rather than a 0 that reads as a time.
#[test]
fn a_blocks_allocation_ticks_are_null_from_format_version_5() {
    let r = analyze(&sample(), &Options::default());
    assert!(r.leaks.iter().all(|l| l.block.ticks.is_none()));
    let mut records = pinned_sample_records();
    let leak = records.iter_mut().find(|r| r[0] == kind::POINTER).unwrap();
    // Version 4's layout: 82 bytes, the ticks at offset 16.
    leak.truncate(record::ALLOC_RECORD_SIZE_V4);
    leak[1] = 4;
    leak[16..20].copy_from_slice(&1234u32.to_be_bytes());
    let old = Ledger::from_pdb(&pdb_of(&records), "v4.pdb").unwrap();
    let r = analyze(&old, &Options::default());
    let ticks: Vec<Option<u32>> = r.leaks.iter().map(|l| l.block.ticks).collect();
    assert!(ticks.contains(&Some(1234)), "{ticks:?}");
    assert_eq!(ticks.iter().filter(|t| t.is_some()).count(), 1, "{ticks:?}");
}

#[test]
fn golden_text_without_symbols() {
    let (text, status) = render(&sample(), &Options::default());
    golden("sample-nosym.txt", &text);
    assert_eq!(status, 1);
}

#[test]
fn analysis_values() {
    let r = analyze(&sample(), &with_symbols());
    // Allocation order, whatever the database order.
    let seqs: Vec<u32> = r.leaks.iter().map(|l| l.block.seq).collect();
    assert_eq!(seqs, [3, 4, 5, 8, 9]);
    // Sites: most bytes first.
    let sites: Vec<(&str, usize, u64, &[usize])> = r
        .sites
        .iter()
        .map(|s| (s.site.as_str(), s.count, s.bytes, &s.leaks[..]))
        .collect();
    assert_eq!(
        sites,
        [
            ("src/forms.rs:7", 1, 100, &[2][..]),
            ("src/starter.rs:42", 3, 48, &[1, 3, 5][..]),
            (
                "starter_app::make_box at src/starter.rs:77",
                1,
                24,
                &[4][..]
            ),
        ]
    );
    assert_eq!(r.sites[1].kinds, ["handle"]);
    // A Rust allocation's site is its innermost function outside the runtime
    // (Box::new is inlined into make_box).
    assert_eq!(
        r.leaks[3].block.site,
        "starter_app::make_box at src/starter.rs:77"
    );
    assert_eq!(r.leaks[3].block.file, None);
    assert!(r.leaks[0].block.relocatable && !r.leaks[1].block.relocatable);
    assert_eq!(r.overruns[0].when, "at free");
    assert_eq!(r.overruns[0].block.site, "src/overrun.rs:12");
    assert_eq!(
        r.double_frees[0].first_free.stack[0].symbols[0].line,
        Some(33)
    );
    assert_eq!(
        r.heap.small_sites[0].count, 5,
        "most small allocations first"
    );
    assert_eq!(r.heap.low_heap[0].after.site, "src/forms.rs:7");
    let pin = &r.heap.pinned_by[0];
    assert_eq!(
        (pin.lock_count, pin.free_before, pin.free_after, pin.largest),
        (15, 20_004, 145_852, 145_852)
    );
    assert_eq!(
        (pin.block.size, pin.block.site.as_str()),
        (64, "src/forms.rs:12")
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn text_shows_sites_and_unsymbolized_frames() {
    let (text, _) = render(&sample(), &with_symbols());
    assert!(text.contains("  3 leaks × 16 bytes from src/starter.rs:42 (handle)\n"));
    assert!(text.contains(
        "Leak #3 (1 of 5): Relocatable chunk (handle) leaked at 0x00012344, size = 16 (guarded)\n"
    ));
    assert!(text.contains(
        "    #0 0x00000124 in starter_app::new_record at src/starter.rs:42 (inlined)\n\
         \x20                 in starter_app::leak_handles at src/starter.rs:60\n"
    ));
    assert!(
        text.contains("    #2 0x00000040\n"),
        "an unknown frame keeps its offset"
    );
    assert!(text.contains("    #3 0x10002468 (68k address outside code 1)\n"));
    assert!(text.ends_with(
        "SUMMARY: memdbg: 172 byte(s) leaked in 5 allocation(s); 1 overrun; 1 double free; \
         1 handle locked at stop; 1 unlock underflow; INCOMPLETE ledger.\n"
    ));
}

#[test]
fn suppressions_hide_and_count() {
    let mut opts = with_symbols();
    opts.suppressions = Suppressions::parse(
        "# known\nstarter.rs:42\nmake_box\nnothing::matches\n",
        "s.supp",
    )
    .unwrap();
    let r = analyze(&sample(), &opts);
    assert_eq!(r.leaks.len(), 1);
    assert_eq!(r.leaks[0].block.site, "src/forms.rs:7");
    assert_eq!(r.leaks[0].number, 1);
    assert_eq!(
        (r.summary.suppressed_leaks, r.summary.suppressed_bytes),
        (4, 72)
    );
    let uses: Vec<(&str, usize, u64)> = r
        .suppressions
        .iter()
        .map(|u| (u.pattern.as_str(), u.leaks, u.bytes))
        .collect();
    assert_eq!(
        uses,
        [
            ("starter.rs:42", 3, 48),
            ("make_box", 1, 24),
            ("nothing::matches", 0, 0)
        ]
    );
    let (text, _) = render(&sample(), &opts);
    assert!(text.contains(
        "Suppressions used:\n  3 leaks (48 bytes): starter.rs:42\n  1 leak (24 bytes): make_box\n"
    ));
    assert!(text.contains("; 72 byte(s) in 4 allocation(s) suppressed;"));
    // A frame's file:line suppresses too (the inlined frame of the leaks at 0x124).
    opts.suppressions = Suppressions::parse("src/starter.rs:60\n", "s.supp").unwrap();
    assert_eq!(analyze(&sample(), &opts).summary.suppressed_leaks, 3);
    assert!(r.warnings.iter().all(|w| !w.contains("suppression")));
}

#[test]
fn a_function_in_every_stack_suppresses_everything_with_a_warning() {
    // As LeakSanitizer's leak:, a function pattern matches any frame: two
    // leaks from two sites, both called from pilot_main (0x0A02), are hidden
    // by `pilot_main`, and the report says why.
    let leaks = vec![
        alloc(
            kind::POINTER,
            16,
            0x0001_4000,
            1,
            "src/a.rs",
            1,
            stack(&[Ok(0x0A02)]),
        ),
        alloc(
            kind::POINTER,
            16,
            0x0001_4100,
            2,
            "src/b.rs",
            2,
            stack(&[Ok(0x0A02)]),
        ),
    ];
    let ledger = Ledger::from_pdb(&pdb_of(&records_of(&leaks)), "two.pdb").unwrap();
    let mut opts = with_symbols();
    opts.suppressions = Suppressions::parse("leak:pilot_main\n", "s.supp").unwrap();
    let r = analyze(&ledger, &opts);
    assert_eq!(r.summary.suppressed_leaks, 2);
    assert!(r.leaks.is_empty());
    assert_eq!(
        r.warnings,
        vec![
            "suppression `pilot_main` hid every leak with a symbolized call stack (2), from \
             several allocation sites: a function pattern matches any frame of the stack, so a \
             function that every stack passes through hides every leak; name the allocating \
             function or use FILE:LINE"
                .to_string()
        ]
    );
    // A pattern with `*` is meant to cover several functions: it hides
    // every symbolized leak of the sample (3 at starter.rs:42, 1 from
    // make_box) without a warning.
    opts.suppressions = Suppressions::parse("starter_app::*\n", "s.supp").unwrap();
    let r = analyze(&sample(), &opts);
    assert_eq!(r.summary.suppressed_leaks, 4);
    assert_eq!(r.leaks.len(), 1, "the leak without a stack stays");
    assert!(
        r.warnings.iter().all(|w| !w.contains("suppression")),
        "{:?}",
        r.warnings
    );
    // pilot_main is in the stack of the three leaks from starter.rs:42 only:
    // one site, no warning.
    opts.suppressions = Suppressions::parse("leak:pilot_main\n", "s.supp").unwrap();
    let r = analyze(&sample(), &opts);
    assert_eq!(r.summary.suppressed_leaks, 3);
    assert!(r.warnings.iter().all(|w| !w.contains("suppression")));
}

#[test]
fn min_size_and_exit_status() {
    let ledger = Ledger::from_pdb(&pdb_of(&leaks_only()), "l.pdb").unwrap();
    let mut opts = Options::default();
    opts.min_size = 10;
    let r = analyze(&ledger, &opts);
    assert_eq!(r.leaks.len(), 1);
    assert_eq!(r.leaks[0].block.size, 64);
    assert_eq!(
        (
            r.summary.below_min_size_leaks,
            r.summary.below_min_size_bytes
        ),
        (1, 8)
    );
    assert_eq!(r.summary.exit_status, 1);
    opts.min_size = 65;
    let r = analyze(&ledger, &opts);
    assert_eq!(
        r.summary.exit_status, 0,
        "leaks below --min-size do not fail"
    );
    assert_eq!(
        r.summary.line,
        "SUMMARY: memdbg: no leaks; 72 byte(s) in 2 allocation(s) below --min-size 65."
    );
    let clean = Ledger::from_pdb(&pdb_of(&clean_records()), "c.pdb").unwrap();
    let r = analyze(&clean, &Options::default());
    assert_eq!(
        (r.summary.exit_status, r.summary.line.as_str()),
        (0, "SUMMARY: memdbg: no leaks.")
    );
    assert!(r.warnings.is_empty());
}

#[test]
fn inconsistent_counters_are_warned() {
    let mut recs = leaks_only();
    recs.pop();
    let ledger = Ledger::from_records(recs.iter().map(|r| &r[..]), "mem").unwrap();
    let r = analyze(&ledger, &Options::default());
    assert_eq!(
        r.warnings,
        [
            "the header counts 2 leaks but the ledger holds 1 allocation record(s)",
            "no symbols (--elf APP.elf): call stacks are shown as code 1 offsets"
        ]
    );
}

/// A CloudpilotEmu-style backup: several databases, MemDbgDB in a folder.
pub fn backup_zip(member: &str, pdb: &[u8]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in [
        ("StarterApp.prc", &b"not really a prc"[..]),
        ("Saved_Preferences.pdb", &b"prefs"[..]),
        (member, pdb),
        ("AddressDB.pdb", &b"addresses"[..]),
    ] {
        zip.start_file(name, deflated).unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn zip_backup_is_searched() {
    let pdb = pdb_of(&pinned_sample_records());
    let z = backup_zip("backup/MemDbgDB.pdb", &pdb);
    let ledger = ledger_from_bytes(&z, "cloudpilot.zip").unwrap();
    assert_eq!(ledger.source, "cloudpilot.zip (backup/MemDbgDB.pdb)");
    assert_eq!(
        ledger,
        Ledger {
            source: ledger.source.clone(),
            ..sample()
        }
    );
    // Renamed: found by type and creator.
    let z = backup_zip("Leaks-1.pdb", &pdb);
    assert_eq!(
        ledger_from_bytes(&z, "b.zip").unwrap().source,
        "b.zip (Leaks-1.pdb)"
    );
    // Absent.
    let z = backup_zip("Other.prc", &pdb);
    let e = ledger_from_bytes(&z, "b.zip").unwrap_err();
    assert_eq!(
        e.to_string(),
        "b.zip: no MemDbgDB.pdb in this backup (it holds StarterApp.prc, Saved_Preferences.pdb, \
         Other.prc, AddressDB.pdb); CloudpilotEmu skips open databases, so save the backup \
         with the launcher in front"
    );
    // A broken MemDbgDB inside a zip names the member and the offset in it.
    let z = backup_zip("MemDbgDB.pdb", &pdb[..100]);
    let e = ledger_from_bytes(&z, "b.zip").unwrap_err();
    assert_eq!(e.file, "b.zip (MemDbgDB.pdb)");
}

/// A backup holding `members`, each the sample ledger.
fn backup_of(members: &[&str], pdb: &[u8]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored = zip::write::SimpleFileOptions::default();
    for name in members {
        zip.start_file(*name, stored).unwrap();
        zip.write_all(pdb).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn two_ledgers_in_one_backup_are_ambiguous() {
    let pdb = pdb_of(&sample_records());
    let z = backup_of(&["a/MemDbgDB.pdb", "b/MemDbgDB.pdb"], &pdb);
    assert_eq!(
        ledger_from_bytes(&z, "b.zip").unwrap_err().to_string(),
        "b.zip: 2 members are MemDbgDB.pdb (a/MemDbgDB.pdb, b/MemDbgDB.pdb): ambiguous; \
         choose one with --member PATH"
    );
    let chosen = ledger_from_bytes_member(&z, "b.zip", Some("b/MemDbgDB.pdb")).unwrap();
    assert_eq!(chosen.source, "b.zip (b/MemDbgDB.pdb)");
    // Two renamed ones (found by type and creator) are ambiguous too.
    let z = backup_of(&["Leaks-1.pdb", "Leaks-2.pdb"], &pdb);
    assert_eq!(
        ledger_from_bytes(&z, "b.zip").unwrap_err().message,
        "2 members are databases of type 'LEAK' and creator 'MDbg' (Leaks-1.pdb, \
         Leaks-2.pdb): ambiguous; choose one with --member PATH"
    );
    // A member that is not there; a member of something that is not a zip.
    let e = ledger_from_bytes_member(&z, "b.zip", Some("MemDbgDB.pdb")).unwrap_err();
    assert_eq!(
        e.message,
        "no member MemDbgDB.pdb in this backup (it holds Leaks-1.pdb, Leaks-2.pdb)"
    );
    assert!(ledger_from_bytes_member(&pdb, "x.pdb", Some("MemDbgDB.pdb")).is_err());
}

/// Two members under one name: the zip crate keeps one of them, so the
/// archive is refused naming the name (found in the central directory).
#[test]
fn two_members_of_one_name_are_refused() {
    let pdb = pdb_of(&sample_records());
    // Written as MemDbgDB.pdb and MemDbgDX.pdb, then renamed in place (the
    // writer refuses duplicate names; other tools do not).
    let mut z = backup_of(&["MemDbgDB.pdb", "MemDbgDX.pdb"], &pdb);
    let mut renamed = 0;
    for i in 0..z.len() - 12 {
        if &z[i..i + 12] == b"MemDbgDX.pdb" {
            z[i + 7] = b'B';
            renamed += 1;
        }
    }
    assert_eq!(renamed, 2, "local header and central directory");
    let e = ledger_from_bytes(&z, "b.zip").unwrap_err();
    assert_eq!(
        e.to_string(),
        "b.zip: several members share the name MemDbgDB.pdb: ambiguous, and --member \
         cannot choose between them; save the backup again"
    );
    assert!(ledger_from_bytes_member(&z, "b.zip", Some("MemDbgDB.pdb")).is_err());
    // Two members named Other.pdb beside one MemDbgDB.pdb: the ledger is
    // found; without a MemDbgDB.pdb the search by type and creator cannot
    // see one of them, so that is refused.
    let mut z = backup_of(&["MemDbgDB.pdb", "Other.pdb", "Othex.pdb"], &pdb);
    for at in [
        z.windows(9).position(|w| w == b"Othex.pdb").unwrap(),
        z.windows(9).rposition(|w| w == b"Othex.pdb").unwrap(),
    ] {
        z[at + 4] = b'r';
    }
    assert_eq!(
        ledger_from_bytes(&z, "b.zip").unwrap().source,
        "b.zip (MemDbgDB.pdb)"
    );
    let mut z = backup_of(&["Other.pdb", "Othex.pdb"], &pdb);
    for at in [
        z.windows(9).position(|w| w == b"Othex.pdb").unwrap(),
        z.windows(9).rposition(|w| w == b"Othex.pdb").unwrap(),
    ] {
        z[at + 4] = b'r';
    }
    assert!(
        ledger_from_bytes(&z, "b.zip")
            .unwrap_err()
            .message
            .starts_with("several members share the name Other.pdb"),
    );
    // Duplicates of some other file do not matter.
    let mut z = backup_of(&["MemDbgDB.pdb", "notes.txt", "notes.txx"], &pdb);
    let at = z.windows(9).position(|w| w == b"notes.txx").unwrap();
    z[at + 8] = b't';
    let at = z.windows(9).rposition(|w| w == b"notes.txx").unwrap();
    z[at + 8] = b't';
    assert_eq!(
        ledger_from_bytes(&z, "b.zip").unwrap().source,
        "b.zip (MemDbgDB.pdb)"
    );
}

fn second_generation() -> Vec<Vec<u8>> {
    // One more leak at starter.rs:42, forms.rs:7 fixed, a new site; the new
    // starter.rs:42 handle locked once at stop (the sample's #3, locked twice,
    // is not locked now), and a handle from records.rs:9 locked 3 times (not
    // a leak: handed off).
    let mut recs = sample_records();
    recs.remove(3); // forms.rs:7
    let s1 = stack(&[Ok(0x0124), Ok(0x0A02), Ok(0x0040), Err(0x1000_2468)]);
    recs.push(
        alloc(kind::HANDLE, 16, 0x0001_2400, 20, "src/starter.rs", 42, s1)
            .as_bytes()
            .to_vec(),
    );
    recs.push(
        alloc(
            kind::CHUNK,
            200,
            0x0001_9000,
            21,
            "src/new.rs",
            3,
            stack(&[Ok(0x0A02)]),
        )
        .as_bytes()
        .to_vec(),
    );
    let locked = |count: u8, alloc: record::AllocRecord| LockedRecord {
        kind: kind::LOCKED,
        version: record::FORMAT_VERSION,
        lock_count: count,
        reserved: 0,
        ticks: U32Be::new(2000),
        alloc,
    };
    let a = alloc(kind::HANDLE, 16, 0x0001_2400, 20, "src/starter.rs", 42, s1);
    recs.push(locked(1, a).as_bytes().to_vec());
    let a = alloc(
        kind::HANDLE,
        48,
        0x0001_9100,
        22,
        "src/records.rs",
        9,
        stack(&[Ok(0x0A02)]),
    );
    recs.push(locked(3, a).as_bytes().to_vec());
    recs
}

/// Handles locked at stop, compared by site: records.rs:9 has a new one
/// (locked 3 times), starter.rs:42 has as many (1) but fewer locks (2 → 1);
/// the verdict is 1 with new locked handles alone; the other way round,
/// records.rs:9's is gone and starter.rs:42 has more locks.
#[test]
fn diff_compares_handles_locked_at_stop() {
    let old = sample();
    let new = Ledger::from_pdb(&pdb_of(&second_generation()), "second.pdb").unwrap();
    let changes =
        |c: &[memdbg_report::diff::LockedChange]| -> Vec<(String, usize, usize, u64, u64)> {
            c.iter()
                .map(|c| {
                    (
                        c.site.clone(),
                        c.old_count,
                        c.new_count,
                        c.old_locks,
                        c.new_locks,
                    )
                })
                .collect()
        };
    let d = diff(&old, &new, &with_symbols());
    assert!(d.has_locked);
    assert_eq!(
        changes(&d.locked_new),
        [("src/records.rs:9".to_string(), 0, 1, 0, 3)]
    );
    assert_eq!(
        changes(&d.locked_gone),
        [("src/starter.rs:42".to_string(), 1, 1, 2, 1)]
    );
    assert_eq!(d.locked_unchanged, 0);
    assert_eq!((d.summary.new_locked, d.summary.gone_locked), (1, 0));
    assert!(
        d.summary
            .line
            .ends_with(" disappeared; 1 locked handle(s) new, 0 gone (3 lock(s) more, 1 fewer)."),
        "{}",
        d.summary.line
    );
    // The other way round.
    let back = diff(&new, &old, &with_symbols());
    assert_eq!(
        changes(&back.locked_new),
        [("src/starter.rs:42".to_string(), 1, 1, 1, 2)]
    );
    assert_eq!(
        changes(&back.locked_gone),
        [("src/records.rs:9".to_string(), 1, 0, 3, 0)]
    );
    assert_eq!((back.summary.new_locked, back.summary.gone_locked), (0, 1));
    assert_eq!(back.summary.exit_status, 1, "starter.rs:42 has more locks");
    // No handle new, but a lock more: the line says why the verdict is 1.
    assert_eq!((back.summary.new_locks, back.summary.gone_locks), (1, 3));
    assert!(
        back.summary
            .line
            .ends_with("; 0 locked handle(s) new, 1 gone (1 lock(s) more, 3 fewer)."),
        "{}",
        back.summary.line
    );
    // New locked handles alone make the verdict 1: the leaks of OLD, the
    // locked records of NEW.
    let mut recs = pinned_sample_records();
    recs.extend(second_generation().pop());
    let more = Ledger::from_pdb(&pdb_of(&recs), "more.pdb").unwrap();
    let d = diff(&old, &more, &with_symbols());
    assert!(d.appeared.is_empty() && d.disappeared.is_empty());
    assert_eq!(changes(&d.locked_new).len(), 1);
    assert_eq!(d.locked_new[0].site, "src/records.rs:9");
    assert_eq!(d.locked_unchanged, 1, "starter.rs:42's");
    assert_eq!(d.summary.exit_status, 1);
    // The same ledger twice: the locked handle is unchanged, exit 0.
    let same = diff(&old, &old, &with_symbols());
    assert!(same.locked_new.is_empty() && same.locked_gone.is_empty());
    assert_eq!((same.locked_unchanged, same.summary.exit_status), (1, 0));
    // JSON carries them.
    let mut opts = with_symbols();
    opts.format = Format::Json;
    let mut out = Vec::new();
    print_diff(&mut out, &old, &new, &opts).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["locked_new"][0]["new_locks"], 3);
    assert_eq!(v["locked_gone"][0]["old_locks"], 2);
    assert_eq!(v["summary"]["new_locked"], 1);
}

#[test]
fn diff_of_two_ledgers() {
    let old = sample();
    let new = Ledger::from_pdb(&pdb_of(&second_generation()), "second.pdb").unwrap();
    let d = diff(&old, &new, &with_symbols());
    let appeared: Vec<(&str, usize, usize)> = d
        .appeared
        .iter()
        .map(|c| (c.site.as_str(), c.old_count, c.new_count))
        .collect();
    assert_eq!(
        appeared,
        [("src/new.rs:3", 0, 1), ("src/starter.rs:42", 3, 4)]
    );
    let gone: Vec<(&str, usize, usize)> = d
        .disappeared
        .iter()
        .map(|c| (c.site.as_str(), c.old_count, c.new_count))
        .collect();
    assert_eq!(gone, [("src/forms.rs:7", 1, 0)]);
    assert_eq!((d.unchanged_sites, d.unchanged_leaks), (1, 1));
    assert_eq!(
        (
            d.summary.appeared_leaks,
            d.summary.appeared_bytes,
            d.summary.exit_status
        ),
        (2, 216, 1)
    );
    let mut out = Vec::new();
    print_diff(&mut out, &old, &new, &with_symbols()).unwrap();
    golden("diff.txt", &String::from_utf8(out).unwrap());
    let mut opts = with_symbols();
    opts.format = Format::Json;
    let mut out = Vec::new();
    print_diff(&mut out, &old, &new, &opts).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["schema"], "memdbg-diff/1");
    assert_eq!(v["appeared"][1]["new_count"], 4);
    // Same ledger twice: nothing appeared.
    let same = diff(&old, &old, &with_symbols());
    assert!(same.appeared.is_empty() && same.disappeared.is_empty());
    assert_eq!(same.summary.exit_status, 0);
}

/// Finding: a site whose one leak grew from 100 to 1,000 bytes was
/// "Unchanged", exit 0. It grew (in bytes), exit 1; one whose bytes fell shrank.
#[test]
fn diff_counts_a_site_whose_bytes_grew() {
    let old = sample();
    // The sample's locked handle in both: only the leaks differ.
    let mut recs = pinned_sample_records();
    recs[3][4..8].copy_from_slice(&1000u32.to_be_bytes()); // forms.rs:7, 100 bytes
    let new = Ledger::from_pdb(&pdb_of(&recs), "grown.pdb").unwrap();
    let d = diff(&old, &new, &with_symbols());
    let grew: Vec<_> = d
        .appeared
        .iter()
        .map(|c| {
            (
                c.site.as_str(),
                c.old_count,
                c.new_count,
                c.old_bytes,
                c.new_bytes,
            )
        })
        .collect();
    assert_eq!(grew, [("src/forms.rs:7", 1, 1, 100, 1000)]);
    assert!(d.disappeared.is_empty());
    assert_eq!((d.unchanged_sites, d.unchanged_leaks), (2, 4));
    assert_eq!(
        (
            d.summary.appeared_leaks,
            d.summary.appeared_bytes,
            d.summary.exit_status
        ),
        (0, 900, 1)
    );
    let mut out = Vec::new();
    print_diff(&mut out, &old, &new, &with_symbols()).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("Appeared or grew:\n  +0 leaks (1 → 1), +900 bytes, from src/forms.rs:7"),
        "{text}"
    );
    // The other way round it shrank, exit 0.
    let d = diff(&new, &old, &with_symbols());
    assert!(d.appeared.is_empty());
    assert_eq!(d.disappeared.len(), 1);
    assert_eq!(
        (d.summary.disappeared_bytes, d.summary.exit_status),
        (900, 0)
    );
}

/// FakeElf for a build whose code from 0x0200 on moved by 0x10 bytes.
struct ShiftedElf;

impl Symbolize for ShiftedElf {
    fn symbolize(&self, offset: u32) -> Vec<Symbol> {
        FakeElf.symbolize(if offset >= 0x0200 {
            offset - 0x10
        } else {
            offset
        })
    }

    fn name(&self) -> &str {
        "Shifted.elf"
    }
}

/// A ledger of one Rust allocation leaked with these frames, from a build
/// whose code 1 has this CRC-32.
fn rust_leak(frames: &[u32], crc: u32, name: &str) -> Ledger {
    let frames: Vec<Result<u32, u32>> = frames.iter().map(|&f| Ok(f)).collect();
    let leaks = vec![alloc(kind::RUST, 24, 0x0001_5000, 8, "", 0, stack(&frames))];
    let mut recs = records_of(&leaks);
    recs[0][152..156].copy_from_slice(&crc.to_be_bytes());
    Ledger::from_pdb(&pdb_of(&recs), name).unwrap()
}

/// Finding: a Rust allocation at the same symbolized site in two builds
/// (code added above it moved its offsets) was both "appeared" and
/// "disappeared", exit 1. With each side symbolized by its own ELF it is
/// matched by function, file and line.
#[test]
fn rust_allocations_of_two_builds_match_by_symbols() {
    let old = rust_leak(&[0x0300, 0x0A02], 0x1111_1111, "old.pdb");
    let new = rust_leak(&[0x0310, 0x0A12], 0x2222_2222, "new.pdb");
    let mut opts = Options::default();
    opts.symbolizer = Some(&ShiftedElf);
    let d = memdbg_report::diff::diff_with(&old, &new, &opts, Some(&FakeElf));
    assert!(d.appeared.is_empty() && d.disappeared.is_empty(), "{d:?}");
    assert_eq!((d.unchanged_sites, d.unchanged_leaks), (1, 1));
    assert_eq!(d.summary.exit_status, 0);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    // Without OLD's ELF the offsets are all there is: both directions, exit 1,
    // and the warnings say why.
    let d = memdbg_report::diff::diff_with(&old, &new, &opts, None);
    assert_eq!((d.appeared.len(), d.disappeared.len()), (1, 1));
    assert_eq!(d.summary.exit_status, 1);
    assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
    // A frame without symbols (0x0040) keeps the offsets as the key.
    let old = rust_leak(&[0x0300, 0x0040], 0x1111_1111, "old.pdb");
    let new = rust_leak(&[0x0310, 0x0040], 0x2222_2222, "new.pdb");
    let d = memdbg_report::diff::diff_with(&old, &new, &opts, Some(&FakeElf));
    assert_eq!((d.appeared.len(), d.disappeared.len()), (1, 1));
}

#[test]
fn diff_with_old_unsymbolized() {
    // Two builds, only NEW's ELF: OLD's frames stay offsets, with a warning.
    let old = sample();
    let new = Ledger::from_pdb(&pdb_of(&second_generation()), "second.pdb").unwrap();
    let d = memdbg_report::diff::diff_with(&old, &new, &with_symbols(), None);
    assert_eq!(d.symbols.as_deref(), Some("StarterApp.elf"));
    assert_eq!(d.old_symbols, None);
    assert!(
        d.warnings.contains(
            &"sample.pdb is not symbolized (no ELF of its build: --old-elf): its frames stay \
              code 1 offsets and function-name suppressions do not apply to its leaks"
                .to_string()
        ),
        "{:?}",
        d.warnings
    );
    // The sites and the verdict are those of the diff with one ELF.
    let one = diff(&old, &new, &with_symbols());
    assert_eq!(d.summary, one.summary);
    assert_eq!(one.old_symbols.as_deref(), Some("StarterApp.elf"));
    assert!(one.warnings.iter().all(|w| !w.contains("not symbolized")));
    let mut out = Vec::new();
    memdbg_report::diff::print_diff_with(&mut out, &old, &new, &with_symbols(), None).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("Symbols   StarterApp.elf (NEW), none (OLD)\n"),
        "{text}"
    );
}

#[test]
fn pdb_round_trip() {
    let ledger = sample();
    let bytes = ledger.to_pdb().unwrap();
    let back = Ledger::from_pdb(&bytes, "sample.pdb").unwrap();
    assert_eq!(back.allocs, ledger.allocs);
    assert_eq!(back.overruns, ledger.overruns);
    assert_eq!(back.double_frees, ledger.double_frees);
    assert_eq!(back.small_sites, ledger.small_sites);
    assert_eq!(back.low_heap, ledger.low_heap);
    assert_eq!(back.pinned, ledger.pinned);
    assert_eq!(back.header, ledger.header);
}

#[test]
fn a_run_that_did_not_stop() {
    let mut recs = leaks_only();
    let mut h = memdbg::record::Header::decode(&recs[0]).unwrap();
    h.flags.set(memdbg::record::HeaderFlags::RUNNING.bits());
    h.stop_ticks.set(0);
    h.counters.leaks.set(0);
    recs[0] = h.as_bytes().to_vec();
    let mut slot = recs[1].clone();
    slot[0] = kind::FREE_SLOT;
    recs.push(slot);
    let ledger = Ledger::from_pdb(&pdb_of(&recs), "r.pdb").unwrap();
    assert_eq!(ledger.free_slots, 1);
    let (text, status) = render(&ledger, &Options::default());
    assert_eq!(status, 1);
    assert!(text.contains("Run       ticks 100, did not stop\n"));
    assert!(text.contains(
        "Flags     RUNNING  memdbg::stop did not run (the app is running, crashed or was reset)"
    ));
    assert!(text.contains(
        "Leaks: 2 blocks, 72 bytes (live when the ledger was written: the run did not stop)\n"
    ));
    // Finding: SUMMARY said "leaked" for blocks only live at that moment.
    assert!(
        text.ends_with(
            "SUMMARY: memdbg: 72 byte(s) live in 2 allocation(s) when the ledger was last \
             written (the run did not stop: not leaks).\n"
        ),
        "{text}"
    );
    // No warning about counters or free slots: both are expected while running.
    assert!(!text.contains("warning: the header counts"));
    assert!(!text.contains("free slot"));
}

/// The fuzz target's seeds (`fuzz/corpus/ledger/`) are this file's sample
/// ledger as a `.pdb` and inside a backup `.zip`; `MEMDBG_BLESS=1` rewrites them.
#[test]
fn fuzz_seeds_are_current() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/ledger");
    let pdb = pdb_of(&sample_records());
    for (name, bytes) in [
        ("sample.pdb", pdb.clone()),
        ("backup.zip", backup_zip("MemDbgDB.pdb", &pdb)),
    ] {
        let path = dir.join(name);
        if std::env::var_os("MEMDBG_BLESS").is_some() {
            std::fs::write(&path, &bytes).unwrap();
        }
        let seed = std::fs::read(&path).unwrap();
        assert_eq!(seed, bytes, "{} (MEMDBG_BLESS=1 rewrites)", path.display());
        // And the seeds read as the sample ledger.
        let ledger = ledger_from_bytes(&seed, name).unwrap();
        assert_eq!(ledger.allocs, sample().allocs);
        // With every record kind the library writes at stop, contents too.
        assert_eq!(ledger.contents, sample().contents);
        assert_eq!(ledger.contents.len(), 3);
    }
}

/// Symbols with control characters, as a hostile ELF's DWARF could hold.
struct HostileElf;

impl Symbolize for HostileElf {
    fn symbolize(&self, _offset: u32) -> Vec<Symbol> {
        vec![sym("evil\x1b[2J", "src/\x07.rs", 3, false)]
    }

    fn name(&self) -> &str {
        "Hostile\x1b[1m.elf"
    }
}

/// Finding: app and file names from the ledger reached the terminal as they
/// were, escape sequences included. The text report and the diff escape
/// control characters (C0, DEL, C1) as `\x1b`; other characters are shown as
/// they are; JSON keeps the strings (serde escapes them itself).
#[test]
fn control_characters_are_escaped_in_text() {
    let ledger = Ledger::from_pdb(&pdb_of(&hostile_records()), "evil\x1b[8m.pdb").unwrap();
    let mut opts = Options::default();
    opts.symbolizer = Some(&HostileElf);
    let (text, _) = render(&ledger, &opts);
    assert_no_control_characters(&text);
    for shown in [
        "memdbg report of evil\\x1b[8m.pdb\n",
        "App       \\x1b[31mXX\\x1b[m (creator 'MDst')\n",
        "Symbols   Hostile\\x1b[1m.elf\n",
        "  Allocated at \\x1b]0;PWN\\x07:5\n",
        "  Allocated at src/\\x9b2J\\x7f.rs:6\n",
        "  Allocated at src/café.rs:7\n",
        "  Allocated at src/caf\u{fffd}.rs:8\n",
        " in evil\\x1b[2J at src/\\x07.rs:3\n",
        " from \\x1b]0;PWN\\x07:5 (pointer)\n",
    ] {
        assert!(text.contains(shown), "{shown:?} not in\n{text}");
    }
    // JSON: the strings as they are, escaped by JSON.
    opts.format = Format::Json;
    let (json, _) = render(&ledger, &opts);
    assert!(
        json.contains(r#""app_name": "\u001b[31mXX\u001b[m""#),
        "{json}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["leaks"][0]["file"], "\x1b]0;PWN\x07");
    // The diff's text.
    let mut out = Vec::new();
    opts.format = Format::Text;
    memdbg_report::diff::print_diff_with(&mut out, &sample(), &ledger, &opts, Some(&HostileElf))
        .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_no_control_characters(&text);
    assert!(text.contains("→ evil\\x1b[8m.pdb\n"), "{text}");
    assert!(
        text.contains(" from \\x1b]0;PWN\\x07:5 (pointer)\n"),
        "{text}"
    );
}

/// Errors quote names from the input (a database's, a zip member's): their
/// text escapes control characters too; the fields keep them.
#[test]
fn control_characters_are_escaped_in_errors() {
    let header = palm_prc::Header::new(
        "Evil\x1b]0;X\x07",
        palm_prc::FourCC::new(*b"DATA"),
        palm_prc::FourCC::from_u32(memdbg::record::DB_CREATOR),
    );
    let pdb = palm_prc::Database::new_records(header, Vec::new())
        .to_bytes()
        .unwrap();
    let e = ledger_from_bytes(&pdb, "in.pdb").unwrap_err();
    assert!(e.message.contains("\"Evil\x1b]0;X\x07\""), "{e:?}");
    assert!(
        e.to_string().ends_with("(database \"Evil\\x1b]0;X\\x07\")"),
        "{e}"
    );
    let z = backup_zip("\x1b[2JOther.prc", b"x");
    let e = ledger_from_bytes(&z, "b\x07.zip").unwrap_err();
    assert_no_control_characters(&e.to_string());
    assert!(
        e.to_string()
            .starts_with("b\\x07.zip: no MemDbgDB.pdb in this backup (it holds StarterApp.prc, "),
        "{e}"
    );
    assert!(e.to_string().contains(", \\x1b[2JOther.prc, "), "{e}");
}

/// Finding: a backup without a ledger was refused with a message listing
/// every member (269 KB for 20,000 files). Lists of members name the first
/// ten and count the rest.
#[test]
fn long_member_lists_are_cut() {
    let names: Vec<String> = (0..20_000).map(|i| format!("db/File-{i}.prc")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let z = backup_of(&refs, b"x");
    let e = ledger_from_bytes(&z, "big.zip").unwrap_err();
    assert_eq!(
        e.message,
        "no MemDbgDB.pdb in this backup (it holds 20,000 members: db/File-0.prc, \
         db/File-1.prc, db/File-2.prc, db/File-3.prc, db/File-4.prc, db/File-5.prc, \
         db/File-6.prc, db/File-7.prc, db/File-8.prc, db/File-9.prc and 19,990 more); \
         CloudpilotEmu skips open databases, so save the backup with the launcher in front"
    );
    let e = ledger_from_bytes_member(&z, "big.zip", Some("MemDbgDB.pdb")).unwrap_err();
    assert!(
        e.message.starts_with(
            "no member MemDbgDB.pdb in this backup (it holds 20,000 members: db/File-0.prc, "
        ) && e.message.ends_with(", db/File-9.prc and 19,990 more)"),
        "{}",
        e.message
    );
    // Ten are listed in full, eleven are not.
    let ten: Vec<String> = (0..10).map(|i| format!("{i}.prc")).collect();
    let ten: Vec<&str> = ten.iter().map(String::as_str).collect();
    let e = ledger_from_bytes(&backup_of(&ten, b"x"), "ten.zip").unwrap_err();
    assert!(
        e.message.starts_with(
            "no MemDbgDB.pdb in this backup (it holds 0.prc, 1.prc, 2.prc, 3.prc, 4.prc, \
             5.prc, 6.prc, 7.prc, 8.prc, 9.prc); "
        ),
        "{}",
        e.message
    );
    // Many ledgers: ambiguous, also cut.
    let pdb = pdb_of(&sample_records());
    let many: Vec<String> = (0..25).map(|i| format!("{i:02}/MemDbgDB.pdb")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let e = ledger_from_bytes(&backup_of(&many, &pdb), "many.zip").unwrap_err();
    assert_eq!(
        e.message,
        "25 members are MemDbgDB.pdb (00/MemDbgDB.pdb, 01/MemDbgDB.pdb, 02/MemDbgDB.pdb, \
         03/MemDbgDB.pdb, 04/MemDbgDB.pdb, 05/MemDbgDB.pdb, 06/MemDbgDB.pdb, 07/MemDbgDB.pdb, \
         08/MemDbgDB.pdb, 09/MemDbgDB.pdb and 15 more): ambiguous; choose one with --member \
         PATH"
    );
}

/// Symbols in which code 1 offset 0x0A02 is in the entry function.
struct EntryElf;

impl Symbolize for EntryElf {
    fn symbolize(&self, offset: u32) -> Vec<Symbol> {
        match offset {
            0x0A02 => vec![sym("__palm_entry", "src/lib.rs", 3, false)],
            o => vec![sym(&format!("app::f{o:x}"), "src/lib.rs", o, false)],
        }
    }

    fn name(&self) -> &str {
        "App.elf"
    }

    fn entry_function(&self) -> Option<&str> {
        Some("__palm_entry")
    }
}

/// Issue 16 (6): a stack the walk cut says so and why, in the text and the
/// JSON; the frame where the OS called the entry function is named once, in the
/// header, not in every stack; a frame outside code 1 elsewhere is still shown.
#[test]
fn cut_stacks_say_why_and_the_os_launch_is_named_once() {
    let full = stack(&[Ok(0x0124), Ok(0x0A02), Err(0x10C0_0400)]);
    let mut deep = stack(&[
        Ok(0x200),
        Ok(0x202),
        Ok(0x202),
        Ok(0x202),
        Ok(0x202),
        Ok(0x202),
    ]);
    deep.raw_mask |= memdbg::record::Stack::TRUNCATED_DEPTH;
    let mut broken = stack(&[Ok(0x0300), Ok(0x0304)]);
    broken.raw_mask |= memdbg::record::Stack::TRUNCATED_CHAIN;
    let os = stack(&[Err(0x10C0_2000)]);
    let leaks = vec![
        alloc(kind::RUST, 8, 0x0001_2000, 1, "", 0, full),
        alloc(kind::RUST, 8, 0x0001_2010, 2, "", 0, deep),
        alloc(kind::RUST, 8, 0x0001_2020, 3, "", 0, broken),
        alloc(kind::RUST, 8, 0x0001_2030, 4, "", 0, full),
        alloc(kind::RUST, 8, 0x0001_2040, 5, "", 0, os),
    ];
    let mut records = vec![header(0x0C00, &leaks).as_bytes().to_vec()];
    records.extend(leaks.iter().map(|a| a.as_bytes().to_vec()));
    let ledger = Ledger::from_pdb(&pdb_of(&records), "cut.pdb").unwrap();
    let mut opts = Options::default();
    opts.symbolizer = Some(&EntryElf);
    let (text, _) = render(&ledger, &opts);
    let launch = "Launch    the OS called __palm_entry from 0x10C00400 (outside code 1): call \
                  stacks that reach it end there, and leave that frame out\n";
    assert_eq!(text.matches(launch).count(), 1, "{text}");
    assert!(!text.contains("0x10C00400 (68k address"), "{text}");
    assert_eq!(
        text.matches("    #1 0x00000A02 in __palm_entry at src/lib.rs:3\n")
            .count(),
        2
    );
    assert_eq!(
        text.matches("    (the stack was cut here: depth limit of 6 frames)\n")
            .count(),
        1,
        "{text}"
    );
    assert!(text.contains(
        "    #1 0x00000304 in app::f304 at src/lib.rs:772\n    (the stack was cut here: broken A6 \
         frame chain)\n"
    ));
    assert!(text.contains("    #0 0x10C02000 (68k address outside code 1)\n"));
    let r = analyze(&ledger, &opts);
    assert_eq!(r.launched_from, [0x10C0_0400]);
    assert_eq!(r.entry_function.as_deref(), Some("__palm_entry"));
    let truncated: Vec<Option<&str>> = r.leaks.iter().map(|l| l.block.stack_truncated).collect();
    assert_eq!(
        truncated,
        [
            None,
            Some("depth limit of 6 frames"),
            Some("broken A6 frame chain"),
            None,
            None
        ]
    );
    let launch_frames: Vec<bool> = r.leaks[0].block.stack.iter().map(|f| f.os_launch).collect();
    assert_eq!(launch_frames, [false, false, true]);
    assert!(!r.leaks[4].block.stack[0].os_launch, "not after the entry");
    // Without symbols nothing says which frame is the OS's launch.
    let (plain, _) = render(&ledger, &Options::default());
    assert!(!plain.contains("Launch "));
    assert_eq!(
        plain
            .matches("0x10C00400 (68k address outside code 1)")
            .count(),
        2
    );
}

#[test]
fn blocks_freed_unseen_are_listed_apart_and_are_not_leaks() {
    use memdbg::record::{AllocFlags, HeaderFlags, U16Be, U32Be};
    // A run where the OS refused the trap patches: one leak, and two blocks
    // `memdbg::stop` found freed where it could not see the frees.
    let leak = alloc(
        kind::POINTER,
        8,
        0x0001_1000,
        1,
        "src/a.rs",
        1,
        stack(&[Ok(0x10)]),
    );
    let unseen = |k, size, address, seq, line| {
        let mut a = alloc(k, size, address, seq, "src/b.rs", line, stack(&[Ok(0x20)]));
        a.flags = U16Be::new(a.flags.get() | AllocFlags::FREED_UNSEEN.bits());
        a
    };
    let freed = [
        unseen(kind::HANDLE, 64, 0x0001_1100, 3, 7),
        unseen(kind::POINTER, 12, 0x0001_1200, 2, 9),
    ];
    let mut h = header(0x0C00, &[leak]);
    h.flags = U32Be::new(HeaderFlags::PATCHES_REFUSED.bits());
    let mut records = vec![h.as_bytes().to_vec(), leak.as_bytes().to_vec()];
    records.extend(freed.iter().map(|a| a.as_bytes().to_vec()));
    let ledger = Ledger::from_pdb(&pdb_of(&records), "unseen.pdb").unwrap();
    assert_eq!((ledger.allocs.len(), ledger.freed_unseen.len()), (1, 2));
    let report = analyze(&ledger, &Options::default());
    assert_eq!(report.leaks.len(), 1);
    assert_eq!(report.summary.freed_unseen, 2);
    // In allocation order, numbered apart from the leaks.
    let f: Vec<(usize, u32, u32)> = report
        .freed_unseen
        .iter()
        .map(|l| (l.number, l.block.seq, l.block.size))
        .collect();
    assert_eq!(f, [(1, 2, 12), (2, 3, 64)]);
    assert!(report.freed_unseen[0].block.flags.contains(&"FREED_UNSEEN"));
    // The header counts one leak: no warning about the records.
    assert!(
        !report
            .warnings
            .iter()
            .any(|w| w.contains("allocation record")),
        "{:?}",
        report.warnings
    );
    assert_eq!(report.summary.exit_status, 1, "the one leak");
    let (text, _) = render(&ledger, &Options::default());
    assert!(
        text.contains(
            "Freed unseen: 2 blocks (the OS refused memdbg's trap patches, so their frees went \
             unseen; each was no longer the chunk memdbg recorded when its address was \
             allocated again or at stop: not leaks)\n  #2 \
             Non-relocatable chunk (pointer) at 0x00011200, size = 12, allocated at src/b.rs:9\n  \
             #3 Relocatable chunk (handle) at 0x00011100, size = 64, allocated at src/b.rs:7\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("SUMMARY: memdbg: 8 byte(s) leaked in 1 allocation(s); 2 blocks freed unseen (patches refused)."),
        "{text}"
    );
    // Without the leak: exit status 0.
    let mut h = header(0x0C00, &[]);
    h.flags = U32Be::new(HeaderFlags::PATCHES_REFUSED.bits());
    let mut records = vec![h.as_bytes().to_vec()];
    records.extend(freed.iter().map(|a| a.as_bytes().to_vec()));
    let ledger = Ledger::from_pdb(&pdb_of(&records), "unseen.pdb").unwrap();
    assert_eq!(analyze(&ledger, &Options::default()).summary.exit_status, 0);
    // With the patches installed, the blocks were freed without a trap call
    // (MemHeapFreeByOwnerID): the report says so.
    let mut records = vec![header(0x0C00, &[]).as_bytes().to_vec()];
    records.extend(freed.iter().map(|a| a.as_bytes().to_vec()));
    let swept = Ledger::from_pdb(&pdb_of(&records), "swept.pdb").unwrap();
    let (text, _) = render(&swept, &Options::default());
    assert!(
        text.contains(
            "Freed unseen: 2 blocks (freed inside the Memory Manager without a free trap call \
             (MemHeapFreeByOwnerID, a ROM's own frees); each was"
        ),
        "{text}"
    );
    assert!(
        text.contains("SUMMARY: memdbg: no leaks; 2 blocks freed unseen (no free trap call)."),
        "{text}"
    );
    // Written back, the records stay what they were.
    let back = Ledger::from_pdb(&ledger.to_pdb().unwrap(), "back.pdb").unwrap();
    assert_eq!(back.freed_unseen, ledger.freed_unseen);
}

/// Issue 16 (4): an interior free is listed with its offset into the block, the
/// block's size, kind and allocation site, and the free's stack; it sets the
/// exit status, is in the summary and the JSON, and round-trips through the
/// `.pdb` writer.
#[test]
fn interior_frees_name_the_offset_the_block_and_the_free() {
    use memdbg::record::{InteriorFreeRecord, U32Be, kind};
    let block = alloc(
        kind::POINTER,
        32,
        0x0001_1000,
        4,
        "src/app.rs",
        12,
        stack(&[Ok(0x10)]),
    );
    let f = InteriorFreeRecord {
        kind: kind::INTERIOR_FREE,
        version: memdbg::record::FORMAT_VERSION,
        address: U32Be::new(0x0001_1008),
        offset: U32Be::new(8),
        ticks: U32Be::new(77),
        site: stack(&[Ok(0x0124)]),
        alloc: block,
        ..Default::default()
    };
    let records = vec![
        header(0x0C00, &[]).as_bytes().to_vec(),
        f.as_bytes().to_vec(),
    ];
    let ledger = Ledger::from_pdb(&pdb_of(&records), "interior.pdb").unwrap();
    assert_eq!(ledger.interior_frees, [f]);
    let r = analyze(&ledger, &Options::default());
    assert_eq!(r.summary.interior_frees, 1);
    assert_eq!(r.summary.exit_status, 1, "an error");
    assert_eq!(
        (r.interior_frees[0].offset, r.interior_frees[0].address),
        (8, 0x0001_1008)
    );
    assert_eq!(r.interior_frees[0].block.size, 32);
    let (text, status) = render(&ledger, &Options::default());
    assert_eq!(status, 1);
    assert!(
        text.contains(
            "Interior free 1 of 1: free of an address 8 bytes into the 32-byte block at \
             0x00011000 (Non-relocatable chunk (pointer)), not passed to the OS\n  Allocated \
             at src/app.rs:12"
        ),
        "{text}"
    );
    assert!(text.contains("  Freed (tick 77) by:\n"), "{text}");
    assert!(
        text.contains("SUMMARY: memdbg: no leaks; 1 interior free."),
        "{text}"
    );
    let back = Ledger::from_pdb(&ledger.to_pdb().unwrap(), "back.pdb").unwrap();
    assert_eq!(back.interior_frees, ledger.interior_frees);
    // A version 3 ledger has no interior-free records.
    let mut old = f.as_bytes().to_vec();
    old[1] = 3;
    let records = vec![header(0x0C00, &[]).as_bytes().to_vec(), old];
    assert!(Ledger::from_pdb(&pdb_of(&records), "v3.pdb").is_err());
}

/// Issue 16 (5): an underrun is listed with the header bytes found, what
/// memdbg expected, the block's allocation site and the free's stack; it sets
/// the exit status, is in the summary and the JSON, and round-trips through the
/// `.pdb` writer; a version 4 ledger has no underrun records.
#[test]
fn underruns_name_the_header_bytes_the_block_and_the_free() {
    use memdbg::record::{U16Be, U32Be, UnderrunRecord, detected, kind};
    let block = alloc(
        kind::POINTER,
        16,
        0x0001_2000,
        5,
        "src/app.rs",
        21,
        stack(&[Ok(0x10)]),
    );
    let u = UnderrunRecord {
        kind: kind::UNDERRUN,
        version: memdbg::record::FORMAT_VERSION,
        when: U16Be::new(detected::AT_FREE),
        ticks: U32Be::new(88),
        header: [0xF1, 0x00, 0x00, 0x41],
        site: stack(&[Ok(0x0124)]),
        alloc: block,
    };
    let records = vec![
        header(0x0C00, &[]).as_bytes().to_vec(),
        u.as_bytes().to_vec(),
    ];
    let ledger = Ledger::from_pdb(&pdb_of(&records), "underrun.pdb").unwrap();
    assert_eq!(ledger.underruns, [u]);
    let r = analyze(&ledger, &Options::default());
    assert_eq!(r.summary.underruns, 1);
    assert_eq!(r.summary.exit_status, 1, "an error");
    assert_eq!(
        (r.underruns[0].header.as_str(), r.underruns[0].expected),
        ("F1 00 00 41", "F? 00 00 00")
    );
    let (text, status) = render(&ledger, &Options::default());
    assert_eq!(status, 1);
    assert!(
        text.contains(
            "Underrun 1 of 1: chunk header before the 16-byte pointer at 0x00012000 damaged, found at free (tick 88): its last 4 bytes F1 00 00 41 \
             (expected: F? 00 00 00; repaired)\n  Allocated at src/app.rs:21"
        ),
        "{text}"
    );
    assert!(text.contains("  Found by:\n"), "{text}");
    assert!(
        text.contains("SUMMARY: memdbg: no leaks; 1 underrun."),
        "{text}"
    );
    let mut json = Vec::new();
    memdbg_report::write(&mut json, &r, memdbg_report::Format::Json).unwrap();
    let json = String::from_utf8(json).unwrap();
    assert!(json.contains("\"header\": \"F1 00 00 41\""), "{json}");
    let back = Ledger::from_pdb(&ledger.to_pdb().unwrap(), "back.pdb").unwrap();
    assert_eq!(back.underruns, ledger.underruns);
    let mut old = u.as_bytes().to_vec();
    old[1] = 4;
    let records = vec![header(0x0C00, &[]).as_bytes().to_vec(), old];
    assert!(Ledger::from_pdb(&pdb_of(&records), "v4.pdb").is_err());
}

/// Findings: allocation records that cannot all be right were read without
/// comment, and a record written twice was counted twice in SUMMARY.
#[test]
fn allocation_records_that_cannot_be_right_are_named() {
    // The records of `sample_records` only (no pin, no locked handle).
    let base = analyze(
        &Ledger::from_pdb(&pdb_of(&sample_records()), "base.pdb").unwrap(),
        &Options::default(),
    );
    let warned = |recs: &[Vec<u8>]| {
        let l = Ledger::from_pdb(&pdb_of(recs), "w.pdb").unwrap();
        analyze(&l, &Options::default())
    };
    // The forms.rs:7 leak (record 3, 100 bytes) written twice: counted once.
    let mut recs = sample_records();
    recs.push(recs[3].clone());
    let r = warned(&recs);
    assert_eq!(
        (r.summary.leaks, r.summary.bytes),
        (base.summary.leaks, base.summary.bytes)
    );
    assert_eq!(r.summary.line, base.summary.line);
    let dup: Vec<_> = r
        .warnings
        .iter()
        .filter(|w| w.contains("written twice"))
        .collect();
    assert_eq!(dup.len(), 1, "{:?}", r.warnings);
    assert!(
        dup[0].starts_with(&format!("record {} (offset 0x", recs.len() - 1))
            && dup[0].contains("is record 3 (offset 0x"),
        "{}",
        dup[0]
    );
    assert!(
        !r.warnings
            .iter()
            .any(|w| w.starts_with("the header counts")),
        "{:?}",
        r.warnings
    );
    // A version 2 record in a version 3 ledger; a handle and a pointer at one
    // address; a block above memMaxChunkAllocSize; one above the run's peak.
    let mut recs = sample_records();
    as_version(&mut recs[3], 2);
    let at = recs[1][8..12].to_vec();
    recs[3][8..12].copy_from_slice(&at);
    recs[4][4..8].copy_from_slice(&70_000u32.to_be_bytes());
    recs[5][4..8].copy_from_slice(&5_000u32.to_be_bytes());
    let r = warned(&recs);
    let has = |needle: &str| {
        assert!(
            r.warnings.iter().any(|w| w.contains(needle)),
            "{needle}: {:#?}",
            r.warnings
        );
    };
    has(&format!(
        "record 3 (offset 0x{:X}): an allocation record of format version 2 in a version {} ledger",
        78 + recs.len() * 8 + 2 + recs[0].len() + recs[1].len() + recs[2].len(),
        memdbg::record::FORMAT_VERSION
    ));
    has("two live blocks at 0x00012344 (a handle and a pointer)");
    has("a block of 70000 bytes, more than the 65505 bytes a Palm OS chunk can have");
    has("a block of 5000 bytes, more than the run's peak of 4000 live bytes");
    // A size no chunk header can hold: the ledger is refused at that field.
    let mut recs = sample_records();
    recs[3][4..8].copy_from_slice(&u32::MAX.to_be_bytes());
    let e = Ledger::from_pdb(&pdb_of(&recs), "bad.pdb").unwrap_err();
    let offset = 78 + recs.len() * 8 + 2 + recs[0].len() + recs[1].len() + recs[2].len() + 4;
    assert_eq!(
        e.to_string(),
        format!(
            "bad.pdb: offset 0x{offset:X}: record 3 (pointer): a size of 4294967295 bytes, more \
             than any Palm OS chunk can hold (its header's size field is 24 bits: at most \
             16777215 bytes): the record is damaged"
        )
    );
}
