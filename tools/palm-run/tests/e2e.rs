//! End-to-end tests: `tests/apps/runtest` (a no_std Rust app built by our own
//! pipeline, palm-build) runs in palm-run; each test selects a scenario with
//! feature ('PRtt', 0) and asserts values read back from features, from
//! emulated memory (chunk headers) and from the run's outcome.

use std::path::PathBuf;
use std::sync::OnceLock;

use palm_run::handles::HANDLE_MAGIC;
use palm_run::heap::ChunkHeader;
use palm_run::memory::FaultKind;
use palm_run::{Config, Machine, Outcome, StopKind};

const CRID: u32 = u32::from_be_bytes(*b"PRtt");

struct Built {
    prc: Vec<u8>,
    elf: Vec<u8>,
}

fn app() -> &'static Built {
    static APP: OnceLock<Built> = OnceLock::new();
    APP.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let built = palm_build::build_app(&palm_build::Options {
            manifest_path: dir.join("tests/apps/runtest/Cargo.toml"),
            target_dir: None,
            kind: palm_build::ImageKind::App,
            features: Vec::new(),
            quiet: true,
            raw_llvm: false,
            macsbug_names: true,
        })
        .unwrap_or_else(|e| panic!("building tests/apps/runtest failed: {e:#}"));
        Built {
            prc: std::fs::read(&built.prc).unwrap(),
            elf: std::fs::read(&built.elf).unwrap(),
        }
    })
}

fn machine(scenario: u32) -> Machine {
    let mut m = Machine::with_config(&Config::default()).unwrap();
    m.install(&app().prc).unwrap();
    m.set_symbols(palm_run::symbols::Symbols::from_elf(&app().elf).unwrap());
    m.set_feature(*b"PRtt", 0, scenario);
    m
}

fn run(scenario: u32) -> (Machine, Outcome) {
    run_with(scenario, |_| {})
}

/// [`run`] with the machine's settings changed by `set` before the launch.
fn run_with(scenario: u32, set: impl FnOnce(&mut Machine)) -> (Machine, Outcome) {
    let mut m = machine(scenario);
    set(&mut m);
    let out = m.launch("RunTest").unwrap();
    (m, out)
}

fn ftr(m: &Machine, n: u16) -> u32 {
    *m.os
        .ftr
        .features
        .get(&(CRID, n))
        .unwrap_or_else(|| panic!("feature {n} not set"))
}

fn header(m: &Machine, body: u32) -> ChunkHeader {
    ChunkHeader::decode(
        m.mem.read_u32(body - 8).unwrap(),
        m.mem.read_u32(body - 4).unwrap(),
    )
}

#[test]
fn heap_sequence_headers_free_bytes_and_owner_sweep() {
    let (m, out) = run(1);
    assert_eq!(out.stop, None);
    assert_eq!(out.result, Some(0));
    let (f0, p1, h2, p3) = (ftr(&m, 1), ftr(&m, 3), ftr(&m, 4), ftr(&m, 5));
    // 10, 20, 30 bytes: chunks of 18, 28, 38 bytes, one after the other.
    let b2 = out.leaks[0].address;
    assert_eq!(b2, p1 + 18);
    assert_eq!(p3, p1 + 18 + 28);
    assert_eq!(ftr(&m, 6), f0 - 84);
    // Freeing p1 gives back an 18-byte chunk: 10 usable bytes.
    assert_eq!(ftr(&m, 7), f0 - 74);
    assert_eq!(ftr(&m, 8), f0 - 84);
    assert_eq!((ftr(&m, 9), ftr(&m, 10), ftr(&m, 11)), (30, 20, 1));
    // p3's header bytes: size 38, sizeAdj 0, lock 15 (non-movable), owner 1,
    // hOffset 0. The sweep freed it, so read it from the leak list instead.
    let summary: Vec<_> = out
        .leaks
        .iter()
        .map(|l| (l.address, l.size, l.handle))
        .collect();
    assert_eq!(summary, vec![(b2, 20, Some(h2)), (p3, 30, None)]);
    // Allocated by heap_sequence, called by pilot_main.
    for l in &out.leaks {
        assert!(
            m.describe(l.allocated_by[0])
                .contains("<palm_run_test_app::heap_sequence+0x")
        );
        assert!(
            m.describe(l.allocated_by[1])
                .contains("<palm_run_test_app::pilot_main+0x")
        );
    }
    assert!(m.output.iter().any(|l| l == "Chunk allocated by:"));
    assert!(
        m.output
            .iter()
            .any(|l| l == "Chunk contents (30 of 30 bytes):")
    );
    assert!(
        m.output.iter().any(|l| l
            == &format!("Relocatable chunk leaked at 0x{b2:08X}, size = 20 (handle 0x{h2:08X})"))
    );
    assert!(
        m.output
            .iter()
            .any(|l| l == &format!("Non-relocatable chunk leaked at 0x{p3:08X}, size = 30"))
    );
    // After the sweep both chunks are free.
    assert!(
        header(&m, p3).free
            || m.os
                .mem
                .dynamic
                .chunk_at_body(&m.mem, p3)
                .unwrap()
                .is_none()
    );
    assert!(!out.clean());
}

#[test]
fn chunk_header_bytes_of_live_chunks() {
    let (m, out) = run(1);
    let (h2, p3) = (ftr(&m, 4), ftr(&m, 5));
    let b2 = out.leaks[0].address;
    assert_eq!(out.leaks[1].address, p3);
    // p3: size 8 + 30 = 0x26, sizeAdj 0; lock 15 (non-movable), owner 1, hOffset 0.
    assert_eq!((ftr(&m, 12), ftr(&m, 13)), (0x0000_0026, 0xF100_0000));
    // h2: size 8 + 20 = 0x1C; lock 0, owner 1, hOffset = (header - master pointer) / 2.
    let h_offset = ((b2 - 8 - h2) / 2) & 0x00FF_FFFF;
    assert_eq!(
        (ftr(&m, 14), ftr(&m, 15)),
        (0x0000_001C, 0x0100_0000 | h_offset)
    );
    assert_eq!(
        ChunkHeader::decode(ftr(&m, 14), ftr(&m, 15)).h_offset as u32,
        (b2 - 8 - h2) / 2
    );
    // After the owner sweep the dynamic heap has its launch-time free bytes back
    // (the app's globals and stack are freed with the launch).
    let (free_now, _) = m.os.mem.dynamic.free_bytes(&m.mem).unwrap();
    assert!(free_now > ftr(&m, 1));
}

#[test]
fn handle_moves_on_resize() {
    let (m, out) = run(2);
    assert!(out.clean(), "{out:?}");
    assert_eq!(ftr(&m, 1), 0, "MemHandleResize(h, 400)");
    let (before, after, h) = (ftr(&m, 2), ftr(&m, 3), ftr(&m, 6));
    assert_ne!(before, after, "the chunk moved");
    // It moved past the 16-byte blocker (24-byte chunk) behind the old 24-byte chunk.
    assert_eq!(after, before + 24 + 24);
    assert_eq!(ftr(&m, 4), 400);
    assert_eq!(ftr(&m, 5), h, "MemPtrRecoverHandle");
    assert_eq!(ftr(&m, 7), 1, "lock count");
    assert_eq!(
        ftr(&m, 8),
        0x0101,
        "a locked handle cannot move: memErrChunkLocked"
    );
    assert_eq!(ftr(&m, 12), before, "h3 took the hole h left, and stayed");
    assert_eq!((ftr(&m, 9), ftr(&m, 10)), (0, 16), "MemPtrResize in place");
}

#[test]
fn patched_mem_handle_free_sees_frm_delete_form_and_table_is_restored() {
    let (m, out) = run(3);
    assert!(out.clean(), "{out:?}");
    let h = ftr(&m, 103);
    assert_eq!(ftr(&m, 104), h, "FldGetTextHandle");
    assert_eq!(
        ftr(&m, 101),
        1,
        "the patch ran once, for FrmDeleteForm's free"
    );
    assert_eq!(ftr(&m, 102), h, "with the field's handle");
    assert_eq!(
        ftr(&m, 100),
        palm_run::machine::rom_entry(0xA02B),
        "original = ROM entry"
    );
    assert_ne!(ftr(&m, 105), ftr(&m, 100));
    // The original ran: the handle's master pointer is free again.
    assert_eq!(m.mem.read_u32(h).unwrap(), 0);
    assert_eq!(m.stats.native_calls.get(&0xA02B), Some(&1));
    assert_eq!(
        m.trap_address(0xA02B),
        Some(palm_run::machine::rom_entry(0xA02B))
    );
}

#[test]
fn patch_left_installed_is_reported() {
    let (m, out) = run(4);
    assert_eq!(out.stop, None);
    assert_eq!(out.patches_left.len(), 1);
    let p = out.patches_left[0];
    assert_eq!(p.trap, 0xA02B);
    assert_eq!(p.before, palm_run::machine::rom_entry(0xA02B));
    assert_eq!(p.after, ftr(&m, 105));
    assert!(
        m.output
            .iter()
            .any(|l| l.contains("0xA02B MemHandleFree left patched"))
    );
}

#[test]
fn direct_storage_write_is_a_bus_error() {
    let (m, out) = run(5);
    let stop = out.stop.expect("stopped");
    let p = ftr(&m, 1);
    match stop.kind {
        StopKind::BusError(f) => {
            assert_eq!(
                (f.address, f.kind, f.write, f.size),
                (p, FaultKind::StorageWrite, true, 1)
            );
        }
        other => panic!("{other:?}"),
    }
    let report = m.output.join("\n");
    assert!(report.contains("which is in the storage heap"), "{report}");
    assert!(
        report.contains("storage_write"),
        "symbol in report: {report}"
    );
    assert!(report.contains("MemHandleLock"), "last traps: {report}");
}

#[test]
fn double_free_is_reported_with_caller() {
    let (m, out) = run(6);
    let stop = out.stop.expect("stopped");
    let StopKind::DebugCheck(msg) = &stop.kind else {
        panic!("{stop:?}")
    };
    let p = ftr(&m, 1);
    assert!(
        msg.starts_with(&format!(
            "MemChunkFree(0x{p:08X}): chunk already freed, called from 0x"
        )),
        "{msg}"
    );
    assert!(msg.contains("double_free"), "{msg}");
}

#[test]
fn double_free_non_fatal_returns_error() {
    let mut m = machine(6);
    m.fatal_mem_errors = false;
    let out = m.launch("RunTest").unwrap();
    assert_eq!(out.stop, None);
    assert_eq!(m.reports.len(), 1);
    assert!(m.reports[0].contains("chunk already freed"));
}

#[test]
fn data_manager_and_export() {
    let (m, out) = run(7);
    assert!(out.clean(), "{out:?}");
    assert_eq!(ftr(&m, 1), 2);
    let uid = ftr(&m, 2);
    assert_eq!((ftr(&m, 3), ftr(&m, 4)), (0, 1));
    assert_eq!(ftr(&m, 5), u32::from(b'1'), "tver 1 starts with '1'");
    assert_eq!(ftr(&m, 6), 0);
    let fp = ftr(&m, 7);
    assert_eq!(m.mem.read_cstr(fp, 16).unwrap(), b"feat");
    assert!(
        fp >= m.mem.storage_start(),
        "FtrPtrNew memory is in storage"
    );
    assert_eq!(ftr(&m, 8), m.os.dm.find(b"RunTest").unwrap().id);
    assert_eq!(ftr(&m, 9), 1);
    assert_eq!(ftr(&m, 10), 0, "DmGetRecord on a bad DmOpenRef");
    let pdb = m.export("RtData").unwrap();
    let db = palm_prc::Database::parse(&pdb).unwrap();
    let recs = db.records().unwrap();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0].data, b"abc\0");
    assert_eq!(recs[0].attributes & 0x40, 0x40, "dirty");
    assert_ne!(recs[0].unique_id, uid);
    assert_eq!(db.header.kind.0, *b"DATA");
    assert_eq!(db.header.attributes & 0x8000, 0, "open bit cleared");
}

#[test]
fn dm_write_out_of_bounds_is_reported() {
    let (_, out) = run(8);
    let stop = out.stop.expect("stopped");
    let StopKind::DebugCheck(msg) = stop.kind else {
        panic!()
    };
    assert!(
        msg.contains("DmWrite")
            && msg.contains("write out of bounds: offset 4 + 8 bytes > chunk size 8"),
        "{msg}"
    );
}

#[test]
fn strings_and_dbg_message() {
    let (m, out) = run(9);
    assert!(out.clean(), "{out:?}");
    assert_eq!(
        m.os.sys.dbg_messages,
        vec!["-12 100000 abc beef", "-4711", "-4711"]
    );
    assert_eq!(ftr(&m, 1), 19);
    assert_eq!(ftr(&m, 2), 5);
    assert!(
        m.output
            .contains(&"DbgMessage: -12 100000 abc beef".to_string())
    );
}

#[test]
fn event_loop_with_form_and_scripted_taps() {
    let mut m = machine(10);
    m.set_events(palm_run::script::parse("tap 1001\ntap 1001\n").unwrap());
    let out = m.launch("RunTest").unwrap();
    assert!(out.clean(), "{out:?}");
    assert_eq!(ftr(&m, 1), 1001);
    assert_eq!(ftr(&m, 2), 2);
    assert_eq!(m.os.sys.dbg_messages, vec!["tapped", "tapped"]);
    assert_eq!(m.os.ui.forms_drawn, vec![1000]);
    assert_eq!(
        m.os.ui.alerts,
        vec![
            (1100, "Note: Value 42".to_string()),
            (1100, "Note: Value 42".to_string())
        ]
    );
    // The last field handle was freed by FrmCloseAllForms → FrmDeleteForm.
    assert_eq!(m.mem.read_u32(ftr(&m, 3)).unwrap(), 0);
    assert!(m.os.ui.forms.is_empty());
}

#[test]
fn script_naming_a_missing_control_stops_the_app() {
    let mut m = machine(10);
    m.set_events(palm_run::script::parse("tap 4242\n").unwrap());
    let out = m.launch("RunTest").unwrap();
    assert_eq!(
        out.stop.unwrap().kind,
        StopKind::Script {
            line: 1,
            what: "the active form has no control with ID 4242".into()
        }
    );
}

#[test]
fn unknown_trap_stops_naming_it() {
    let (m, out) = run(11);
    let stop = out.stop.expect("stopped");
    assert_eq!(
        stop.kind,
        StopKind::UnknownTrap {
            trap: 0xA08E,
            name: Some("SysAppLaunch")
        }
    );
    let report = m.output.join("\n");
    assert!(
        report.contains("unimplemented trap 0xA08E SysAppLaunch"),
        "{report}"
    );
    assert!(report.contains("unknown_trap"), "{report}");
    // The caller, from the A6 frame chain.
    assert!(report.contains("backtrace"), "{report}");
    assert!(
        report.contains("<palm_run_test_app::pilot_main+0x"),
        "{report}"
    );
}

#[test]
fn cpu_loop_is_deterministic() {
    let mut counts = Vec::new();
    for _ in 0..2 {
        let mut m = machine(12);
        m.os.ftr.features.insert((CRID, 1), 1000);
        let out = m.launch("RunTest").unwrap();
        assert!(out.clean());
        counts.push((m.stats.instructions, out.result, m.ticks()));
    }
    assert_eq!(counts[0], counts[1]);
}

#[test]
fn misc_alerts_sounds_ticks_semaphore() {
    let (m, out) = run(13);
    assert!(out.clean(), "{out:?}");
    assert_eq!(m.os.sys.sounds, vec![3]);
    assert_eq!(
        m.os.sys.err_displays,
        vec![("runtest.rs".to_string(), 123, "non-fatal note".to_string())]
    );
    assert_eq!(ftr(&m, 2), 0xFFFF, "fatalDoNothing");
    assert!(
        m.output
            .contains(&"Fatal Alert: runtest.rs, Line:123, non-fatal note".to_string())
    );
    assert_eq!(m.os.ui.alerts, vec![(1100, "Note: Value ".to_string())]);
    let pdb = palm_prc::Database::parse(&m.export("RtData").unwrap()).unwrap();
    assert_eq!(pdb.records().unwrap()[0].data, [7, 0, 0, 0]);
}

#[test]
fn fatal_alert_reset_ends_the_app() {
    let mut m = machine(13);
    m.alert_response = palm_run::machine::AlertResponse::Reset;
    let out = m.launch("RunTest").unwrap();
    assert_eq!(
        out.stop.unwrap().kind,
        StopKind::FatalAlert("runtest.rs, Line:123, non-fatal note".into())
    );
}

#[test]
fn unlocking_an_unlocked_handle_is_reported() {
    let (m, out) = run(14);
    let StopKind::DebugCheck(msg) = out.stop.unwrap().kind else {
        panic!()
    };
    let h = ftr(&m, 1);
    assert!(
        msg.starts_with(&format!(
            "MemHandleUnlock(0x{h:08X}): unlocking a handle that is not locked, called from 0x"
        )),
        "{msg}"
    );
}

#[test]
fn instruction_limit_stops_the_app() {
    let mut m = machine(12);
    m.os.ftr.features.insert((CRID, 1), 1_000_000);
    m.max_instructions = 10_000;
    let out = m.launch("RunTest").unwrap();
    assert_eq!(out.stop.unwrap().kind, StopKind::InstructionLimit(10_000));
}

#[test]
fn profile_counts_instructions_and_os_calls_in_a_function() {
    let syms = palm_run::symbols::Symbols::from_elf(&app().elf).unwrap();
    let (start, end) = syms
        .range("palm_run_test_app::heap_sequence")
        .expect("symbol");
    let mut counts = Vec::new();
    let mut totals = Vec::new();
    for _ in 0..2 {
        let mut m = machine(1);
        let base = {
            // code 1's body: the launch puts it at its storage address.
            let db = m.os.dm.find(b"RunTest").unwrap().id;
            let h = palm_run::data_mgr::resource_handle(&m, db, b"code", 1).unwrap();
            m.mem.read_u32(h).unwrap()
        };
        m.start_profile(&[(base + start, base + end)]);
        let out = m.launch("RunTest").unwrap();
        assert_eq!(out.stop, None);
        let p = m.take_profile().unwrap();
        counts.push((p.instructions[0], p.os_calls[0]));
        totals.push(m.stats.instructions);
    }
    // Single-stepping (profiling) executes exactly what batches execute.
    let (plain, _) = run(1);
    assert_eq!(totals, vec![plain.stats.instructions; 2]);
    assert_eq!(counts[0], counts[1], "deterministic");
    // heap_sequence makes these OS calls itself (put/free_bytes are separate,
    // never-inlined functions): MemPtrNew ×2, MemHandleNew, MemChunkFree,
    // MemPtrSize, MemHandleSize, MemPtrOwner, MemHandleLock, MemHandleUnlock.
    assert_eq!(counts[0].1, 9);
    assert!(counts[0].0 > 50 && counts[0].0 < 2000, "{counts:?}");
}

#[test]
fn remaining_services() {
    let (m, out) = run(15);
    assert!(out.clean(), "{out:?}");
    assert_eq!(ftr(&m, 2), 0, "MemChunkNew owner from attr");
    assert_eq!(ftr(&m, 3), 3);
    assert_eq!(ftr(&m, 4), 5, "MemHandleSetOwner");
    // Two 32-byte chunks (8 + 24) freed by owner, merged with the free space after them.
    assert_eq!(ftr(&m, 5), 64);
    assert_eq!(ftr(&m, 6), 0, "MemCmp equal");
    assert_eq!(ftr(&m, 7), 0xFFFF_FFFF, "MemCmp less (Int16 -1)");
    assert_eq!(ftr(&m, 8), 0x4141_4142, "MemSet + MemMove + a direct write");
    assert_eq!((ftr(&m, 9), ftr(&m, 10), ftr(&m, 11)), (1, 1, 1));
    assert_eq!((ftr(&m, 12), ftr(&m, 13)), (1, 3), "open count, mode");
    assert_eq!(
        (ftr(&m, 14), ftr(&m, 15)),
        (7, u32::from_be_bytes(*b"INFO"))
    );
    assert_eq!(ftr(&m, 16), 1, "renamed by DmSetDatabaseInfo");
    assert_eq!((ftr(&m, 17), ftr(&m, 18)), (0, 0), "deleted");
    assert_eq!(ftr(&m, 19), 1, "DmGet1Resource");
    assert_eq!((ftr(&m, 20), ftr(&m, 21), ftr(&m, 22)), (0, 0x0C02, 0));
    assert_eq!((ftr(&m, 23), ftr(&m, 24)), (1, 0xFFFF));
    assert_eq!(m.os.ui.drawn, vec!["ptr text", "drawn"]);
    assert_eq!(m.os.sys.dbg_messages, vec!["0000BEEF"]);
    assert!(m.os.dm.find(b"RtInfo2").is_none());
}

#[test]
fn refused_trap_patches_leave_the_table_alone() {
    let mut m = machine(3);
    m.refuse_trap_patches = true;
    let out = m.launch("RunTest").unwrap();
    assert!(out.clean(), "{out:?}");
    assert_eq!(ftr(&m, 106), 0x0505, "sysErrNotAllowed");
    assert_eq!(ftr(&m, 105), ftr(&m, 100), "still the ROM entry");
    assert_eq!(
        m.os.ftr.features.get(&(CRID, 101)),
        None,
        "the patch never ran"
    );
}

#[test]
fn field_editing_popup_and_return() {
    let mut m = machine(16);
    m.set_events(
        palm_run::script::parse("key h\nkey x\nkey backspace\nkey i\ntap 1001\ntap 1201\n")
            .unwrap(),
    );
    let out = m.launch("RunTest").unwrap();
    assert!(out.clean(), "{out:?}");
    assert_eq!(
        (ftr(&m, 20), ftr(&m, 21), ftr(&m, 22), ftr(&m, 23)),
        (2, u32::from(b'h'), u32::from(b'i'), 1)
    );
    assert_eq!(
        (ftr(&m, 10), ftr(&m, 11)),
        (1200, 1000),
        "FrmPopupForm / FrmReturnToForm"
    );
    // The field's handle was allocated by the OS (MemHandleNew through the table)
    // and freed by FrmCloseAllForms: no leak, and both calls went through the table.
    assert_eq!(m.stats.trap_calls.get(&0xA01E), Some(&1));
    assert!(
        m.stats.trap_calls.contains_key(&0xA033),
        "grown with MemHandleResize"
    );
    assert_eq!(m.os.ui.forms_drawn, vec![1000, 1200]);
}

/// A penDown on an editable field focuses it (FrmHandleEvent → FldHandleEvent);
/// a penDown elsewhere does not, and keys then go nowhere.
#[test]
fn pen_down_on_a_field_focuses_it() {
    // Field 1002 is at (10, 40), 100 × 12, in form 1000 at (0, 0).
    for (pen, typed) in [("pen 50 45", 2), ("pen 150 150", 0)] {
        let mut m = machine(16);
        m.set_feature(*b"PRtt", 30, 1);
        m.set_events(
            palm_run::script::parse(&format!("{pen}\nkey h\nkey i\ntap 1001\ntap 1201\n")).unwrap(),
        );
        let out = m.launch("RunTest").unwrap();
        assert!(out.clean(), "{out:?}");
        assert_eq!(ftr(&m, 20), typed, "{pen}: characters in the field");
    }
}

#[test]
fn extra_services() {
    let mut m = machine(17);
    m.set_events(palm_run::script::parse("tap 1201\n").unwrap());
    let out = m.launch("RunTest").unwrap();
    assert!(out.clean(), "{out:?}");
    assert_eq!(m.os.sys.dbg_messages, vec!["abcdef", "v. 3.5"]);
    assert_eq!(ftr(&m, 1), 0xFFFF_FFFF, "StrCompare(abcdef, abd) < 0");
    assert_eq!((ftr(&m, 2), ftr(&m, 3)), (0, 0));
    assert_eq!((ftr(&m, 4), ftr(&m, 5)), (2, 3), "StrChr, StrStr offsets");
    assert_eq!(ftr(&m, 6), (-123i32) as u32);
    assert_eq!(ftr(&m, 7), u32::from(b'c'), "StrNCopy does not terminate");
    assert_eq!(ftr(&m, 8), 100);
    assert_eq!(
        ftr(&m, 9),
        2,
        "the system resource database and RunTest, before RtData is created"
    );
    assert_eq!(
        (ftr(&m, 10), ftr(&m, 11)),
        (0, m.os.dm.find(b"RunTest").unwrap().id)
    );
    assert_eq!(
        (ftr(&m, 12), ftr(&m, 13)),
        (0, 1),
        "DmAttachRecord clamps the index"
    );
    assert_eq!((ftr(&m, 14), ftr(&m, 15), ftr(&m, 16)), (1, 1, 1));
    assert_eq!((ftr(&m, 17), ftr(&m, 18)), (1, 3), "one 3-byte record left");
    assert_eq!(ftr(&m, 20), 0, "FtrPtrResize");
    assert_eq!(ftr(&m, 21), u32::from(b'a'), "contents kept");
    assert_eq!(ftr(&m, 22), 0xC000, "Vers2 | Vers3");
    assert_eq!(ftr(&m, 23), 0);
    assert_eq!(ftr(&m, 24), 1201, "FrmDoDialog returns the button tapped");
    assert_eq!(ftr(&m, 25), u32::from(b'D'), "FrmGetTitle");
}

#[test]
fn scramble_moves_unlocked_handles_and_fill_free() {
    let (m, out) = run(18);
    assert!(out.clean(), "{out:?}");
    let (p1, p2, p3) = (ftr(&m, 1), ftr(&m, 2), ftr(&m, 3));
    assert_ne!(p1, p2, "ScrambleOnChange moved the unlocked handle's chunk");
    assert_ne!(p2, p3, "MemHeapScramble moved it again");
    assert_eq!(ftr(&m, 4), 0x5555_5555, "FillFree");
}

/// Finding: every Memory Manager call walked the whole heap, so an app that
/// fills the heap with small chunks and keeps asking got slower with every
/// chunk (1 M instructions of it took 30–48 s, the default budget hours). Now
/// a call costs O(log n): 10 000 chunks and 30 000 more failing calls in a
/// few seconds even in a debug build, and the heap's index is never rebuilt
/// from a full walk after the launch built it.
#[test]
fn full_heap_allocations_stay_cheap() {
    let mut m = machine(19);
    m.set_feature(*b"PRtt", 1, 30_000);
    let t = std::time::Instant::now();
    let out = m.launch("RunTest").unwrap();
    let took = t.elapsed();
    assert_eq!(out.stop, None);
    let chunks = ftr(&m, 2);
    assert!(chunks > 10_000, "{chunks} chunks of 16 bytes in 256 KB");
    assert_eq!(ftr(&m, 3), 30_000, "further MemPtrNew calls, all NULL");
    assert_eq!(out.leaks.len() as u32, chunks);
    let rebuilds = m.os.mem.dynamic.index_rebuilds(&m.mem);
    assert!(rebuilds <= 2, "{rebuilds} full rebuilds of the heap index");
    assert!(took.as_secs() < 30, "{took:?}");
    // The leak dump shows the first chunks and counts the rest.
    let more = format!(
        "palm-run: … and {} more chunks leaked ({} bytes), not shown",
        chunks as usize - palm_run::launch::MAX_LEAKS_SHOWN,
        (chunks as usize - palm_run::launch::MAX_LEAKS_SHOWN) * 16
    );
    assert!(m.output.contains(&more), "{more}");
}

/// Finding: the heap code allowed 1000 chained master pointer tables and
/// called the 1001st "heap corrupted: bad master pointer table chain" — app
/// corruption — after 50 195 records. Tables now chain as far as the heap
/// goes; a database holds 65 535 records (numRecords is a UInt16), then
/// DmNewRecord fails with dmErrMemError, as on a device.
#[test]
fn dm_new_record_up_to_the_record_limit() {
    let mut m = machine(20);
    m.set_feature(*b"PRtt", 1, 0);
    let t = std::time::Instant::now();
    let out = m.launch("RunTest").unwrap();
    let took = t.elapsed();
    assert_eq!(out.stop, None, "{}", m.output.join("\n"));
    assert!(m.reports.is_empty(), "{:?}", m.reports);
    assert_eq!((ftr(&m, 2), ftr(&m, 3)), (65_535, 65_535));
    assert_eq!(ftr(&m, 4), palm_run::data_mgr::DM_ERR_MEM_ERROR);
    let rebuilds = m.os.mem.storage.index_rebuilds(&m.mem);
    assert!(rebuilds <= 2, "{rebuilds} full rebuilds of the heap index");
    assert!(took.as_secs() < 60, "{took:?}");
    // Every record's chunk is there, each with its own master pointer.
    let db = m.os.dm.find(b"RtData").unwrap();
    assert_eq!(db.records.len(), 65_535);
    let heap = m.os.mem.storage;
    assert!(heap.walk(&m.mem).is_ok());
    for r in db.records.iter().step_by(997) {
        assert!(heap.is_master_pointer(&m.mem, r.handle).unwrap());
    }
}

/// Finding: slow OS calls could defeat the instruction limit. A budget of OS
/// calls and a wall-clock budget stop the app like the instruction limit.
#[test]
fn os_call_and_time_limits_stop_the_app() {
    let mut m = machine(19);
    m.set_feature(*b"PRtt", 1, 0); // MemPtrNew for ever
    m.max_traps = 20_000;
    let out = m.launch("RunTest").unwrap();
    assert_eq!(out.stop.unwrap().kind, StopKind::TrapLimit(20_000));
    assert_eq!(m.stats.os_calls, 20_001);

    let mut m = machine(19);
    m.set_feature(*b"PRtt", 1, 0);
    m.time_limit = Some(std::time::Duration::from_millis(300));
    let t = std::time::Instant::now();
    let out = m.launch("RunTest").unwrap();
    assert_eq!(
        out.stop.unwrap().kind,
        StopKind::TimeLimit(std::time::Duration::from_millis(300))
    );
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
}

/// Finding: a deep recursion overwrote the chunks under the stack (the trap
/// dispatch table among them), then low memory: a bus error at PC 0, "heap
/// corrupted", and a line per trap "left patched". Now the first write below
/// the stack chunk stops the app with one report, and what it overwrote is
/// put back.
#[test]
fn stack_overflow_is_one_clear_report() {
    let (m, out) = run(21);
    let stop = out.stop.clone().unwrap();
    let (bottom, top) = match stop.kind {
        StopKind::StackOverflow { sp, bottom } => {
            assert!(sp < bottom && sp + 16 >= bottom, "SP 0x{sp:08X}");
            (bottom, bottom + 4096)
        }
        k => panic!("{k}"),
    };
    let first = &m.output[0];
    assert_eq!(
        first,
        &format!(
            "palm-run: app stopped: stack overflow: SP 0x{:08X} below the 4096-byte stack at \
             0x{bottom:08X}, in palm_run_test_app::recurse",
            match stop.kind {
                StopKind::StackOverflow { sp, .. } => sp,
                _ => 0,
            }
        )
    );
    assert!(
        m.describe(stop.pc)
            .contains("<palm_run_test_app::recurse+0x")
    );
    assert!(top > bottom);
    assert!(out.patches_left.is_empty(), "{:?}", out.patches_left);
    assert!(m.reports.is_empty(), "{:?}", m.reports);
    assert!(
        !m.output
            .iter()
            .any(|l| l.contains("corrupt") || l.contains("patched")),
        "{}",
        m.output.join("\n")
    );
    assert!(m.output.len() < 30, "{}", m.output.join("\n"));
}

/// Finding: a call through a NULL function pointer was reported as "bus
/// error: write of 1 byte(s) to 0x00000000 … at PC 0x00000000" (the vectors
/// run as code). Low memory is not executable: the report names the jump and
/// the caller.
#[test]
fn jump_to_null_names_the_caller() {
    let (m, out) = run(22);
    let stop = out.stop.unwrap();
    assert_eq!(stop.kind, StopKind::JumpToLowMemory { address: 0 });
    assert_eq!(stop.pc, 0);
    let caller = stop.caller.expect("caller");
    assert!(
        m.describe(caller)
            .contains("<palm_run_test_app::null_call+0x"),
        "{}",
        m.describe(caller)
    );
    assert_eq!(
        m.output[0],
        "palm-run: app stopped: jump to address 0 (a NULL function pointer)"
    );
    assert!(
        m.output[2].starts_with("  called from 0x"),
        "{}",
        m.output[2]
    );
    assert!(!m.os.ftr.features.contains_key(&(CRID, 1)));
}

/// Finding: `menu 9999` (no such item) was played silently while `tap 4242`
/// stopped the app. Both now name the script line and stop the app; items of
/// the active form's menu bar are played.
#[test]
fn script_menu_items_are_checked_like_taps() {
    let mut m = machine(10);
    m.set_events(palm_run::script::parse("menu 1301\nmenu 0x515\n").unwrap());
    let out = m.launch("RunTest").unwrap();
    assert_eq!(out.stop, None, "{}", m.output.join("\n"));

    let mut m = machine(10);
    m.set_events(palm_run::script::parse("menu 1301\n\nmenu 9999\n").unwrap());
    let out = m.launch("RunTest").unwrap();
    assert_eq!(
        out.stop.unwrap().kind,
        StopKind::Script {
            line: 3,
            what: "the active menu bar (MBAR 1300) has no item with ID 9999".into()
        }
    );
}

/// `nil N` is one queue entry played N times.
#[test]
fn nil_counts_are_played_lazily() {
    let mut m = machine(10);
    m.set_events(palm_run::script::parse("nil 65535\nnil 65535\n").unwrap());
    assert_eq!(m.os.ui.script.len(), 2);
    let out = m.launch("RunTest").unwrap();
    assert_eq!(out.stop, None);
    // frmLoadEvent and frmOpenEvent from FrmGotoForm, the nils, appStopEvent.
    assert_eq!(
        m.stats.native_calls[&0xA11D],
        2 + 2 * 65_535 + 1,
        "EvtGetEvent"
    );
}

/// Scenario 25 (`runtest.rcp` form 1400): a list, a popup trigger and its
/// list, a scroll bar and two repeat buttons, tapped by the script; the
/// handler reports each event with DbgMessage and leaves it to
/// FrmHandleEvent, and scrolls list 1404 (items given by the app) with the
/// scroll bar and the buttons.
#[test]
fn lists_popups_and_scroll_bars() {
    use palm_run::lists::ScrollBarDrawn;
    let mut m = machine(25);
    m.set_events(
        palm_run::script::parse(
            "tap 1401 2\n\
             tap 1402\ntap 1403 2\n\
             tap 1405 down\ntap 1405 pagedown\n\
             tap 1406\ntap 1407\n\
             tap 1402\npen 0 150\n",
        )
        .unwrap(),
    );
    let out = m.launch("RunTest").unwrap();
    assert!(out.clean(), "{out:?}\n{}", m.output.join("\n"));
    assert_eq!(
        m.os.sys.dbg_messages,
        vec![
            "lst 1401 2",
            "ctl 1402",
            "pop 1402 1403",
            "sel 2 prior 0",
            "scl 1405 0 1",
            "exit 1405 0 1",
            "scl 1405 1 5",
            "exit 1405 1 5",
            "rpt 1406",
            "rpt 1407",
            "ctl 1402",
        ]
    );
    // A resource list starts with item 0 selected; the app's list has 10
    // items, 4 shown.
    assert_eq!((ftr(&m, 1), ftr(&m, 2), ftr(&m, 3)), (0, 10, 4));
    assert_eq!(ftr(&m, 4), 1, "popSelectEvent's controlP and listP");
    // At the end: Blue selected in 1401, Large in the popup list, whose text
    // is now the trigger's label; the scroll bar at 5 of 0..6. The second
    // popup was dismissed (no popSelectEvent, the selection kept).
    assert_eq!((ftr(&m, 5), ftr(&m, 6)), (2, 2));
    assert_eq!(
        ftr(&m, 7),
        ftr(&m, 8),
        "CtlGetLabel = LstGetSelectionText(2)"
    );
    assert_eq!(m.mem.read_cstr(ftr(&m, 7), 16).unwrap(), b"Large");
    assert_eq!(ftr(&m, 9), 5 << 16 | 6);
    let lines = |from: usize, to: usize| (from..=to).map(|i| format!("Line {i}"));
    let mut drawn: Vec<String> = ["Lists", ">Red", "Green", "Blue", "Small"]
        .map(String::from)
        .into();
    drawn.extend(lines(0, 3));
    drawn.extend(["\u{1}".to_string(), "\u{2}".to_string()]);
    drawn.extend([">Small", "Medium", "Large", "Large"].map(String::from));
    drawn.extend(lines(1, 4));
    drawn.extend(lines(5, 8));
    drawn.extend(lines(4, 7));
    drawn.extend(lines(5, 8));
    drawn.extend(["Small", "Medium", ">Large"].map(String::from));
    assert_eq!(m.os.ui.drawn, drawn);
    let bar = |value| ScrollBarDrawn {
        id: 1405,
        value,
        min: 0,
        max: 6,
        page_size: 4,
    };
    assert_eq!(
        m.os.ui.scroll_bars_drawn,
        vec![bar(0), bar(1), bar(1), bar(5), bar(5), bar(4), bar(5)]
    );
}

/// A scripted tap on a list item the list does not show, on a scroll bar
/// part that is not there, or on a part of an object that has none, stops
/// the app naming the script line.
#[test]
fn taps_on_parts_not_shown_stop_the_app() {
    for (script, what) in [
        (
            "tap 1401 3\n",
            "event script line 1: item 3 of list 1401 is not shown (it shows items 0 to 2)",
        ),
        (
            "tap 1403 0\n",
            "event script line 1: item 0 of list 1403 is not shown (it shows none)",
        ),
        (
            "nil\ntap 1405 pageup\n",
            "event script line 2: scroll bar 1405 has no UpPage region now (its car reaches \
             the arrow)",
        ),
        (
            "tap 1406 up\n",
            "event script line 1: object 1406 is not a scroll bar: only a scroll bar has up, \
             down, pageup and pagedown",
        ),
        (
            "tap 1405 2\n",
            "event script line 1: object 1405 is not a list: only a list has items to tap",
        ),
    ] {
        let mut m = machine(25);
        m.set_events(palm_run::script::parse(script).unwrap());
        let out = m.launch("RunTest").unwrap();
        let stop = out.stop.expect("stopped");
        assert!(matches!(stop.kind, StopKind::Script { .. }), "{script}");
        assert_eq!(stop.kind.to_string(), what, "{script}");
    }
}

/// FrmDoDialog ends on a button only: a popup trigger in the dialog pops its
/// list up and the choice sets its label (scenario 26).
#[test]
fn a_popup_in_a_dialog_does_not_end_it() {
    let mut m = machine(26);
    m.set_events(palm_run::script::parse("tap 1502\ntap 1503 1\ntap 1501\n").unwrap());
    let out = m.launch("RunTest").unwrap();
    assert!(out.clean(), "{out:?}");
    assert_eq!(ftr(&m, 1), 1501, "the OK button ended the dialog");
    assert_eq!(ftr(&m, 2), 1, "B chosen");
    assert_eq!(ftr(&m, 3), u32::from(b'B'), "the trigger's label");
    assert_eq!(m.os.ui.drawn, vec![">A", "B", "C", "B"]);
}

// The strict behaviours (PumpkinOS's where it differs from Palm OS 3.5, and the
// SDK's text where palm-run was lenient): scenarios 3, 9, 23 and 24 with each
// setting; `cli.rs` has the options.

/// `memErrInvalidParam`.
const MEM_ERR_INVALID_PARAM: u32 = 0x0103;
/// `dmErrNotValidRecord`.
const DM_ERR_NOT_VALID_RECORD: u32 = 0x0213;

fn record0(m: &Machine) -> Vec<u8> {
    let pdb = palm_prc::Database::parse(&m.export("RtData").unwrap()).unwrap();
    pdb.records().unwrap()[0].data.clone()
}

#[test]
fn handles_are_master_pointers_by_default() {
    let (m, out) = run_with(23, |m| m.fatal_mem_errors = false);
    let h = ftr(&m, 1);
    assert_eq!(ftr(&m, 2), ftr(&m, 3), "*h is MemHandleLock's pointer");
    assert_eq!(ftr(&m, 4), h, "MemPtrRecoverHandle");
    assert_eq!((ftr(&m, 5), ftr(&m, 6)), (h | 1, h), "LocalID and back");
    let r = ftr(&m, 7);
    assert!(
        ftr(&m, 8) >= m.mem.storage_start() && ftr(&m, 8) != HANDLE_MAGIC,
        "a record's *h is its body in the storage heap"
    );
    assert_eq!((ftr(&m, 9), ftr(&m, 10)), (r | 1, r));
    // The second MemHandleFree(h): not a handle any more.
    assert_eq!(ftr(&m, 11), MEM_ERR_INVALID_PARAM);
    assert_eq!(m.reports.len(), 1, "{:?}", m.reports);
    assert!(out.stop.is_none());
}

#[test]
fn opaque_handles_are_descriptors_not_master_pointers() {
    let (m, out) = run_with(23, |m| {
        m.fatal_mem_errors = false;
        m.opaque_handles = true;
    });
    assert!(out.stop.is_none(), "{out:?}");
    let (h, p) = (ftr(&m, 1), ftr(&m, 3));
    assert_eq!(ftr(&m, 2), HANDLE_MAGIC, "*h reads PumpkinOS's 'Hndl'");
    assert!(p >= h + 8 || p < h, "the pointer is not the descriptor's");
    assert!(p < m.mem.storage_start(), "a dynamic-heap body");
    assert_eq!(ftr(&m, 4), h, "MemPtrRecoverHandle gives the same handle");
    assert_eq!((ftr(&m, 5), ftr(&m, 6)), (h | 1, h), "LocalID and back");
    let r = ftr(&m, 7);
    assert_eq!(ftr(&m, 8), HANDLE_MAGIC, "record handles too");
    assert_eq!((ftr(&m, 9), ftr(&m, 10)), (r | 1, r));
    assert_eq!(ftr(&m, 11), MEM_ERR_INVALID_PARAM);
    assert_eq!(m.reports.len(), 1, "{:?}", m.reports);
    assert!(
        m.reports[0].starts_with(&format!("MemHandleFree(0x{h:08X}): not a handle")),
        "the report shows the handle the app passed: {}",
        m.reports[0]
    );
    assert!(
        m.os.mem.opaque.is_empty(),
        "descriptors go with their chunks"
    );
}

#[test]
fn a_patch_sees_the_opaque_handle_the_os_frees() {
    // Scenario 3: FrmDeleteForm frees the field's text handle through the
    // app's MemHandleFree patch.
    let (m, out) = run_with(3, |m| m.opaque_handles = true);
    assert!(out.clean(), "{out:?}");
    let h = ftr(&m, 103);
    assert_eq!(ftr(&m, 104), h, "FldGetTextHandle");
    assert_eq!(ftr(&m, 101), 1, "the patch ran once");
    assert_eq!(ftr(&m, 102), h, "with the handle the app knows");
    assert_eq!(m.stats.native_calls.get(&0xA02B), Some(&1));
    assert!(m.os.mem.opaque.is_empty());
}

#[test]
fn a_pointer_kept_after_release_is_lenient_by_default() {
    let (m, out) = run_with(24, |_| {});
    assert!(out.clean(), "{out:?}");
    let writes: Vec<u32> = [2, 3, 5, 6, 7].iter().map(|&n| ftr(&m, n)).collect();
    assert_eq!(writes, [0; 5]);
    assert_eq!(ftr(&m, 4), ftr(&m, 1), "the record did not move");
    assert_eq!(ftr(&m, 9), ftr(&m, 8), "nor the resource");
    assert_eq!(record0(&m), b"ro!\0");
}

#[test]
fn release_frees_the_buffer_as_pumpkin_os_does() {
    let (m, out) = run_with(24, |m| {
        m.fatal_mem_errors = false;
        m.release_frees_records = true;
    });
    assert!(out.stop.is_none(), "{out:?}");
    let old = ftr(&m, 1);
    assert_eq!(ftr(&m, 2), 0, "DmWrite before the release");
    assert_eq!(
        ftr(&m, 3),
        DM_ERR_NOT_VALID_RECORD,
        "through the kept pointer"
    );
    assert_ne!(ftr(&m, 4), old, "the next lock gives another buffer");
    assert_eq!((ftr(&m, 5), ftr(&m, 6), ftr(&m, 7)), (0, 0, 0));
    assert_ne!(ftr(&m, 9), ftr(&m, 8), "an unlocked resource's buffer too");
    assert_eq!(record0(&m), b"ro!\0", "the record's data moved with it");
    assert_eq!(m.reports.len(), 1, "{:?}", m.reports);
    assert!(
        m.reports[0].starts_with(&format!("DmWrite(0x{old:08X}, 0x00000000, 0x"))
            && m.reports[0].contains(
                "recordP is the old buffer of record 0 of \"RtData\", freed by its release"
            ),
        "{}",
        m.reports[0]
    );
    // The freed buffer reads back as zeros, as PumpkinOS's freed memory.
    assert_eq!(m.mem.read_u32(old).unwrap(), 0);
}

#[test]
fn a_write_through_a_released_pointer_stops_the_app_by_default_checks() {
    let (_, out) = run_with(24, |m| m.release_frees_records = true);
    let StopKind::DebugCheck(msg) = out.stop.expect("stopped").kind else {
        panic!("not a debug-ROM check")
    };
    assert!(
        msg.contains("recordP is the old buffer of record 0"),
        "{msg}"
    );
}

#[test]
fn strict_record_writes_follow_the_sdk() {
    let (m, out) = run_with(24, |m| {
        m.fatal_mem_errors = false;
        m.strict_record_writes = true;
    });
    assert!(out.stop.is_none(), "{out:?}");
    assert_eq!(out.code1_locks_left, 1, "code 1 locked by the app");
    assert!(
        m.output
            .iter()
            .any(|l| l == "palm-run: code 1 left locked by the app (1 lock without MemHandleUnlock); unlocked"),
        "{:?}",
        m.output
    );
    assert_eq!(ftr(&m, 2), 0, "locked, busy, open for writing");
    assert_eq!(ftr(&m, 3), DM_ERR_NOT_VALID_RECORD, "after DmReleaseRecord");
    assert_eq!(ftr(&m, 5), 0, "after DmGetRecord and MemHandleLock");
    assert_eq!(
        ftr(&m, 6),
        DM_ERR_NOT_VALID_RECORD,
        "after MemHandleResetLock"
    );
    assert_eq!(
        ftr(&m, 7),
        DM_ERR_NOT_VALID_RECORD,
        "read-only DmOpenRef left"
    );
    let why: Vec<&str> = m
        .reports
        .iter()
        .map(|r| r.split_once("): ").unwrap().1)
        .map(|r| r.split_once(", called from").unwrap().0)
        .collect();
    assert_eq!(
        why,
        [
            "record 0 of \"RtData\" is not busy: it is written outside DmGetRecord/DmNewRecord \
             … DmReleaseRecord (--strict-record-writes)",
            "recordP's chunk is not locked (DmWrite takes a pointer to a locked record: \
             MemHandleLock it first; --strict-record-writes)",
            "record 0 of \"RtData\" is not busy: DmReleaseRecord without DmGetRecord or \
             DmNewRecord (--strict-record-writes)",
            "record 0 of \"RtData\": the database is not open for writing (--strict-record-writes)",
        ]
    );
    assert_eq!(record0(&m), b"new\0");
}

#[test]
fn a_missing_trap_stops_the_app_naming_it() {
    // Scenario 9 calls DbgMessage after StrPrintF.
    let (m, out) = run_with(9, |m| {
        m.missing_traps.insert(0xA081);
    });
    let stop = out.stop.expect("stopped");
    assert_eq!(
        stop.kind,
        StopKind::UnknownTrap {
            trap: 0xA081,
            name: Some("DbgMessage")
        }
    );
    assert!(m.os.sys.dbg_messages.is_empty());
    assert_eq!(m.stats.trap_calls.get(&0xA081), Some(&1));
}

#[test]
fn the_pumpkin_profile_sets_each_behaviour() {
    let mut m = Machine::with_config(&Config::default()).unwrap();
    m.pumpkin_profile();
    assert!(m.opaque_handles && m.release_frees_records && m.refuse_trap_patches);
    assert!(
        !m.strict_record_writes,
        "not PumpkinOS's: its DmWrite checks no busy bit"
    );
    assert!(!m.fatal_mem_errors);
    assert_eq!(m.alert_response, palm_run::machine::AlertResponse::Reset);
    assert_eq!(
        m.missing_traps.iter().copied().collect::<Vec<_>>(),
        [0xA081]
    );
}

/// The app's code 1 bytes in its PRC.
fn code1() -> Vec<u8> {
    let db = palm_prc::Database::parse(&app().prc).unwrap();
    let palm_prc::Content::Resources(rs) = db.content else {
        panic!("not a resource database")
    };
    rs.into_iter()
        .find(|r| r.kind.0 == *b"code" && r.id == 1)
        .unwrap()
        .data
}

/// At exit the app's code moves (its resource follows) and the bytes it left
/// are ILLEGAL instructions: a patch left pointing there stops the next caller.
/// The next launch runs from the new place. `move_code_at_exit` off: it stays.
#[test]
fn the_apps_code_moves_at_exit_and_leaves_illegal_instructions() {
    let code = code1();
    let (mut m, out) = run(1);
    assert_eq!(out.stop, None);
    let ran_at = m.os.sys.code1_base.unwrap();
    let now = m.code1_base("RunTest").unwrap();
    assert_ne!(now, ran_at);
    assert_eq!(m.mem.read_bytes(now, code.len() as u32).unwrap(), code);
    let old = m.mem.read_bytes(ran_at, code.len() as u32).unwrap();
    assert!(
        old.chunks(2).all(|w| w == [0x4A, 0xFC] || w == [0x4A]),
        "{:02X?}",
        &old[..16]
    );
    assert_eq!(header(&m, now).lock_count, 0, "unlocked after the run");
    let again = m.launch("RunTest").unwrap();
    assert_eq!(again.stop, None);
    assert_eq!(m.os.sys.code1_base, Some(now));
    // Kept in place when the setting is off.
    let (m, _) = run_with(1, |m| m.move_code_at_exit = false);
    assert_eq!(m.code1_base("RunTest"), m.os.sys.code1_base);
}
