//! The starter app end to end: built by palm-build, run in palm-run with
//! `starter-app/events.txt` (every scenario button once, About, Exit), its
//! `MemDbgDB` exported, parsed with palm-prc and decoded with `memdbg::record`.
//!
//! Expected source lines come from the `// @mark NAME` comments of
//! `starter-app/src/scenarios.rs` and IDs from `rsrc/StarterApp.rcp`'s header, both read
//! at test time, so the scenarios can be edited without renumbering here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use memdbg::record::{
    AllocFlags, AllocRecord, Counters, FileName, Frame, Header, HeaderFlags, Options, Record,
    Stack, U32Be, detected, kind,
};
use palm_prc::{Content, Database, FourCC};
use palm_rcp::form::{Form, FormObject};
use palm_run::{Config, Machine};
use starter_app_e2e::expected;

#[path = "viewer/tests.rs"]
mod viewer;

const APP_NAME: &str = "StarterApp";
/// The scenarios as `file!()` names them in the records (workspace-relative).
const SCENARIOS: &str = "starter-app/src/scenarios.rs";
/// The guard memdbg writes after each block (`record::GUARD_LEN` bytes).
const GUARD: u32 = memdbg::record::GUARD_LEN as u32;

fn starter_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The built app and what the tests read from its sources.
struct App {
    prc: Vec<u8>,
    elf: PathBuf,
    code1: Vec<u8>,
    /// `@mark` name → line in scenarios.rs.
    marks: HashMap<String, u16>,
    /// `#define` name → value, from rsrc/StarterApp.rcp and StarterAppRsc.h.
    ids: HashMap<String, u16>,
}

/// The app of the crate in `dir`, built by palm-build as `palm-build app`
/// builds it (MacsBug names on).
fn build(dir: &Path) -> palm_build::App {
    palm_build::build_app(&palm_build::Options {
        manifest_path: dir.join("Cargo.toml"),
        target_dir: None,
        kind: palm_build::ImageKind::App,
        features: Vec::new(),
        quiet: true,
        raw_llvm: false,
        macsbug_names: true,
    })
    .unwrap_or_else(|e| panic!("building {} for the 68000 failed: {e:#}", dir.display()))
}

fn app() -> &'static App {
    static APP: OnceLock<App> = OnceLock::new();
    APP.get_or_init(|| {
        let built = build(&starter_dir());
        let source = std::fs::read_to_string(starter_dir().join("src/scenarios.rs")).unwrap();
        let marks = expected::marks(&source).unwrap();
        // The IDs as palm-build generates them for the app (palm_rcp::ids).
        let ids = palm_rcp::ids::defines(&starter_dir().join("../rsrc/StarterApp.rcp"))
            .unwrap()
            .into_iter()
            .filter_map(|d| Some((d.name, u16::try_from(d.value).ok()?)))
            .collect();
        App {
            prc: std::fs::read(&built.prc).unwrap(),
            elf: built.elf.clone(),
            code1: built.image.code.clone(),
            marks,
            ids,
        }
    })
}

fn line(mark: &str) -> u16 {
    *app()
        .marks
        .get(mark)
        .unwrap_or_else(|| panic!("no `// @mark {mark}` in {SCENARIOS}"))
}

fn id(name: &str) -> u16 {
    *app()
        .ids
        .get(name)
        .unwrap_or_else(|| panic!("no #define {name} in rsrc/StarterAppRsc.h"))
}

/// What a run left behind (plain data, shared by the tests).
struct Run {
    outcome: palm_run::Outcome,
    code1_base: Option<u32>,
    header: Header,
    records: Vec<Record>,
    err_displays: Vec<(String, u16, String)>,
    dbg_messages: Vec<String>,
    reports: Vec<String>,
    /// Alerts shown with FrmAlert/FrmCustomAlert: (alert ID, title: message).
    alerts: Vec<(u16, String)>,
    drawn: Vec<String>,
    forms_drawn: Vec<u16>,
    /// Every line palm-run printed.
    output: Vec<String>,
    /// appStopEvents palm-run made up because the app asked for more events.
    app_stops: u32,
    /// Script events the app never asked for.
    script_left: usize,
}

impl Run {
    fn allocs(&self) -> Vec<AllocRecord> {
        self.records
            .iter()
            .filter_map(|r| match r {
                Record::Alloc(a) => Some(*a),
                _ => None,
            })
            .collect()
    }

    fn counters(&self) -> &Counters {
        &self.header.counters
    }
}

/// Launches the app on a fresh machine with `script` and decodes the ledger.
fn run(script: &str) -> Run {
    run_on(script, |_| {})
}

/// [`run`] on a machine `setup` makes stricter (`palm_run`'s "Stricter than Palm
/// OS 3.5" settings).
fn run_on(script: &str, setup: impl FnOnce(&mut Machine)) -> Run {
    let mut m = Machine::with_config(&Config::default()).unwrap();
    setup(&mut m);
    let elf = std::fs::read(&app().elf).unwrap();
    m.set_symbols(palm_run::symbols::Symbols::from_elf(&elf).unwrap());
    m.install(&app().prc).unwrap();
    m.set_events(palm_run::script::parse(script).unwrap());
    let outcome = m.launch(APP_NAME).unwrap();
    let output = m.output.join("\n");
    assert_eq!(outcome.stop, None, "the app was stopped\n{output}");
    assert_eq!(outcome.result, Some(0), "PilotMain's result\n{output}");
    // memdbg closes MemDbgDB and unlocks code 1 as often as it locked it.
    assert!(outcome.left_open.is_empty(), "{:?}", outcome.left_open);
    assert_eq!(outcome.code1_locks_left, 0);
    let pdb = m.export("MemDbgDB").unwrap();
    let db = Database::parse(&pdb).unwrap();
    assert_eq!(db.header.name, b"MemDbgDB");
    assert_eq!(db.header.kind, FourCC::new(*b"LEAK"));
    assert_eq!(db.header.creator, FourCC::new(*b"MDbg"));
    let Content::Records(recs) = &db.content else {
        panic!("MemDbgDB is a resource database")
    };
    let header = Header::decode(&recs[0].data).unwrap();
    let records = recs[1..]
        .iter()
        .enumerate()
        .map(|(i, r)| Record::decode(&r.data).unwrap_or_else(|e| panic!("record {}: {e}", i + 1)))
        .collect();
    Run {
        code1_base: m.os.sys.code1_base,
        header,
        records,
        err_displays: m.os.sys.err_displays.clone(),
        dbg_messages: m.os.sys.dbg_messages.clone(),
        reports: m.reports.clone(),
        alerts: m.os.ui.alerts.clone(),
        drawn: m.os.ui.drawn.clone(),
        forms_drawn: m.os.ui.forms_drawn.clone(),
        output: m.output.clone(),
        app_stops: m.os.ui.stops,
        script_left: m.os.ui.script.len(),
        outcome,
    }
}

fn events_txt() -> String {
    std::fs::read_to_string(starter_dir().join("events.txt")).unwrap()
}

/// The run with the app's event script, shared by the tests.
fn scripted() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| run(&events_txt()))
}

/// The comparable part of an allocation record.
#[derive(Debug, PartialEq, Eq)]
struct Alloc {
    kind: u8,
    flags: AllocFlags,
    size: u32,
    file: String,
    line: u16,
}

fn seen(a: &AllocRecord) -> Alloc {
    Alloc {
        kind: a.kind,
        flags: a.alloc_flags(),
        size: a.size.get(),
        file: String::from_utf8(a.file.bytes().to_vec()).unwrap(),
        line: a.line.get(),
    }
}

/// A record made by a wrapper macro in scenarios.rs at `mark`.
fn wrapped(kind: u8, flags: AllocFlags, size: u32, mark: &str) -> Alloc {
    Alloc {
        kind,
        flags,
        size,
        file: scenarios_file(),
        line: line(mark),
    }
}

/// scenarios.rs as a record stores it.
fn scenarios_file() -> String {
    String::from_utf8(FileName::new(SCENARIOS.as_bytes()).bytes().to_vec()).unwrap()
}

/// The inline chain of a code 1 frame (innermost first), as (function, file,
/// line), through the ELF's DWARF. The return address follows the call, hence
/// `off - 2`.
fn symbolize(f: Frame) -> Vec<(String, String, u32)> {
    let Frame::Code(off) = f else {
        return Vec::new();
    };
    let dwarf = addr2line::Loader::new(&app().elf).unwrap();
    let mut frames = dwarf.find_frames(u64::from(off - 2)).unwrap();
    let mut out = Vec::new();
    while let Ok(Some(fr)) = frames.next() {
        let function = fr
            .function
            .as_ref()
            .and_then(|f| f.demangle().ok().map(|s| s.into_owned()))
            .unwrap_or_default();
        let (file, line) = fr.location.map_or((String::new(), 0), |l| {
            (l.file.unwrap_or("").to_string(), l.line.unwrap_or(0))
        });
        out.push((function, file, line));
    }
    out
}

/// The first scenarios.rs line in a stack, innermost frame first (a free's
/// site: the trap glue is inlined from palm-sys above it).
fn scenario_line(stack: &Stack) -> Option<(String, u16)> {
    stack.iter().find_map(|f| {
        symbolize(f).into_iter().find_map(|(function, file, line)| {
            file.ends_with(SCENARIOS)
                .then(|| (function, u16::try_from(line).unwrap()))
        })
    })
}

const GUARDED: AllocFlags = AllocFlags::GUARDED;

/// The IDs in a `tap`/`menu` line of the script, with the comment's first word.
fn script_lines(script: &str) -> Vec<(String, u16, String)> {
    script
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (event, comment) = l.split_once('#').unwrap_or((l, ""));
            let mut words = event.split_whitespace();
            let verb = words.next().unwrap().to_string();
            let value = words.next().unwrap().parse().unwrap();
            let name = comment.split(':').next().unwrap().trim().to_string();
            (verb, value, name)
        })
        .collect()
}

#[test]
fn the_event_script_presses_every_button_of_the_main_form_once_then_exit() {
    let db = Database::parse(&app().prc).unwrap();
    let Content::Resources(res) = &db.content else {
        panic!("the PRC is not a resource database")
    };
    let tfrm = res
        .iter()
        .find(|r| r.kind == FourCC::new(*b"tFRM") && r.id == id("MainForm"))
        .expect("tFRM MainForm in the PRC");
    let form = Form::parse(&tfrm.data).unwrap();
    let buttons: Vec<u16> = form
        .objects
        .iter()
        .filter_map(|o| match o {
            FormObject::Control(c) => Some(c.id),
            _ => None,
        })
        .collect();
    let lines = script_lines(&events_txt());
    let taps: Vec<u16> = lines
        .iter()
        .filter(|(verb, ..)| verb == "tap")
        .map(|&(_, v, _)| v)
        .collect();
    let mut sorted = taps.clone();
    sorted.sort();
    let mut want = buttons.clone();
    want.sort();
    assert_eq!(sorted, want, "every button of MainForm exactly once");
    assert_eq!(taps.last(), Some(&id("MainExitButton")), "Exit last");
    assert_eq!(
        lines.last().map(|(verb, ..)| verb.as_str()),
        Some("tap"),
        "nothing after Exit"
    );
    assert!(
        lines
            .iter()
            .any(|(verb, v, _)| verb == "menu" && *v == id("OptionsAboutCmd")),
        "the About menu item"
    );
    // Each line's comment names the header's symbol for its number.
    for (verb, value, name) in &lines {
        assert_eq!(id(name), *value, "{verb} {value} # {name}");
    }
}

/// Lock handle's 16-byte handle (left locked twice), then Loop leak's five
/// 20-byte leaks, one per pass.
fn loop_leaks() -> Vec<Alloc> {
    [wrapped(
        kind::HANDLE,
        GUARDED | AllocFlags::HANDLE,
        16,
        "lock-handle",
    )]
    .into_iter()
    .chain((0..5).map(|_| wrapped(kind::POINTER, GUARDED, 20, "loop-leak")))
    .collect()
}

#[test]
fn the_leaks_are_exactly_the_pointer_the_handle_the_box_the_loop_s_five_and_the_locked_handle() {
    let r = scripted();
    let mut allocs = r.allocs();
    allocs.sort_by_key(|a| a.seq.get());
    let seen: Vec<Alloc> = allocs.iter().map(seen).collect();
    assert_eq!(
        seen,
        vec![
            wrapped(kind::POINTER, GUARDED, 16, "leak-pointer"),
            wrapped(
                kind::HANDLE,
                GUARDED | AllocFlags::HANDLE,
                32,
                "leak-handle"
            ),
            // Rust allocations have no file and line: the call stack has them.
            Alloc {
                kind: kind::RUST,
                flags: GUARDED,
                size: 24,
                file: String::new(),
                line: 0,
            },
        ]
        .into_iter()
        .chain(loop_leaks())
        .collect::<Vec<_>>(),
        "{:#?}",
        r.records
    );
    // Sequence numbers in the order the script presses the buttons: Leak
    // pointer 1, Leak handle 2, then Field handle 1, Resize ptr 1, Move handle
    // 2, Overrun 1, Double free 1, Fragment 21 (20 blocks + the Vec): the Box
    // is the 30th allocation; Correct use 3, Lock handle the kept handle (34)
    // and the balanced one (35, freed), then Loop leak's passes a handle and a
    // leak each (36 to 45), Pin heap 4 (46 to 49).
    let seqs: Vec<u32> = allocs.iter().map(|a| a.seq.get()).collect();
    assert_eq!(seqs, vec![1, 2, 30, 34, 37, 39, 41, 43, 45]);
    // Before the first checkpoint (Lock handle's too): generation 0; Loop
    // leak's pass N: N.
    let generations: Vec<u8> = allocs.iter().map(|a| a.generation).collect();
    assert_eq!(generations, [0, 0, 0, 0, 1, 2, 3, 4, 5]);
    // The Box's call stack leads to its line in leak_box.
    let (function, box_line) = scenario_line(&allocs[2].stack).unwrap_or_else(|| {
        panic!(
            "no frame in {SCENARIOS}: {:x?}",
            allocs[2].stack.iter().collect::<Vec<_>>()
        )
    });
    assert_eq!(box_line, line("leak-box"));
    assert_eq!(function, "starter_app::scenarios::leak_box");
    // With CALL_STACKS the wrapper records have stacks too, through the form
    // handler.
    for a in &allocs[..2] {
        let chain: Vec<String> = a
            .stack
            .iter()
            .flat_map(symbolize)
            .map(|(function, ..)| function)
            .collect();
        assert!(
            chain.iter().any(|f| f == "starter_app::main_form_event"),
            "{chain:?}"
        );
    }
}

/// `(sequence number, bytes)` of every contents record of `r`, by sequence
/// number (the ledger has them in its slots' order).
fn contents_of(r: &Run) -> Vec<(u32, Vec<u8>)> {
    let mut c: Vec<(u32, Vec<u8>)> = r
        .records
        .iter()
        .filter_map(|r| match r {
            Record::Contents(c) => Some((c.seq.get(), c.contents().to_vec())),
            _ => None,
        })
        .collect();
    c.sort();
    c
}

/// The bytes each leak holds at stop: `leak_pointer`'s `StrIToA(1234567)`,
/// `leak_handle`'s `StrCopy` of its text, `leak_box`'s six zero longs,
/// Loop leak's pass numbers (`MemSet`) and Lock handle's text;
/// past the NULs, the bytes palm-run's new chunks hold (GUARDS writes only
/// after the block; FILL_NEW is off).
fn leaked_contents() -> Vec<(u32, Vec<u8>)> {
    let mut pointer = b"1234567\0".to_vec();
    pointer.resize(16, 0);
    let mut handle = b"a record that is never saved\0".to_vec();
    handle.resize(32, 0);
    let mut all = vec![
        (1, pointer),
        (2, handle),
        (30, vec![0; 24]),
        (34, b"still locked 2x\0".to_vec()),
    ];
    all.extend((1..=5u8).map(|pass| (35 + 2 * u32::from(pass), vec![pass; 20])));
    all
}

#[test]
fn each_leak_s_first_bytes_are_in_the_ledger_after_it() {
    let r = scripted();
    assert!(r.header.option_flags().contains(Options::CONTENTS));
    assert_eq!(contents_of(r), leaked_contents(), "{:#?}", r.records);
    // Written at stop, after every allocation record.
    let last_alloc = r
        .records
        .iter()
        .rposition(|r| matches!(r, Record::Alloc(_)));
    let first_contents = r
        .records
        .iter()
        .position(|r| matches!(r, Record::Contents(_)));
    assert!(first_contents > last_alloc, "{:#?}", r.records);
}

#[test]
fn the_os_sweep_at_exit_finds_the_same_leaks() {
    let r = scripted();
    // palm-run frees what the app still owns at exit, as a device does, and
    // lists it: the same blocks as the ledger, each with its guard.
    let mut swept: Vec<(u32, u32)> = r
        .outcome
        .leaks
        .iter()
        .map(|l| (l.handle.unwrap_or(l.address), l.size))
        .collect();
    let mut ours: Vec<(u32, u32)> = r
        .allocs()
        .iter()
        .map(|a| (a.address.get(), a.size.get() + GUARD))
        .collect();
    swept.sort();
    ours.sort();
    assert_eq!(swept, ours);
}

/// The frames palm-run's leak dump lists under each "Chunk allocated by:"
/// after the scripted run: with the ELF's symbols (`--elf`), or from the
/// PRC alone (the MacsBug names palm-build puts in code 1).
fn leak_dump_frames(with_elf: bool) -> Vec<Vec<String>> {
    let mut m = Machine::with_config(&Config::default()).unwrap();
    if with_elf {
        let elf = std::fs::read(&app().elf).unwrap();
        m.set_symbols(palm_run::symbols::Symbols::from_elf(&elf).unwrap());
    }
    m.install(&app().prc).unwrap();
    m.set_events(palm_run::script::parse(&events_txt()).unwrap());
    let outcome = m.launch(APP_NAME).unwrap();
    assert_eq!(outcome.stop, None, "{}", m.output.join("\n"));
    let mut leaks = Vec::new();
    let mut lines = m.output.iter();
    while lines.any(|l| l == "Chunk allocated by:") {
        leaks.push(
            lines
                .clone()
                .take_while(|l| l.starts_with("    0x"))
                .map(|l| l.trim().to_string())
                .collect(),
        );
    }
    leaks
}

/// Without `--elf`, palm-run names each frame of its leak dump by the
/// MacsBug name after the function (found as POSE finds it): the name
/// palm-build writes for the function the ELF's symbols give. The app's own
/// frames, literally.
#[test]
fn the_os_leak_dump_names_the_frames_from_the_prc_alone() {
    let (named, symbolized) = (leak_dump_frames(false), leak_dump_frames(true));
    assert_eq!(named.len(), 9, "{named:?}");
    for (leak, (names, symbols)) in named.iter().zip(&symbolized).enumerate() {
        // "0x00041618 <memdbg::fast::alloc+0x76>" → "0x00041618 <memdbg.fast.alloc>"
        let expected: Vec<String> = symbols
            .iter()
            .map(|line| {
                let (address, function) = line.split_once(" <").unwrap_or_else(|| panic!("{line}"));
                let function = function.rsplit_once("+0x").map_or(function, |(f, _)| f);
                format!("{address} <{}>", palm_build::macsbug::name(function))
            })
            .collect();
        assert_eq!(names, &expected, "leak {leak}");
    }
    let app_frames = |leak: &[String]| -> Vec<String> {
        leak.iter()
            .filter_map(|l| {
                l.split_once(" <")
                    .map(|(_, n)| n.trim_end_matches('>').to_string())
            })
            .filter(|n| !(n.starts_with("memdbg.") || n.starts_with("__memdbg_")))
            .collect()
    };
    let through_the_form = [
        "starter_app.main_form_event",
        "starter_app.main_form_handler",
        "__palm_entry",
    ];
    assert_eq!(app_frames(&named[0]), through_the_form);
    assert_eq!(app_frames(&named[1]), through_the_form);
    let mut the_box = vec!["alloc.boxed.box_new_uninit"];
    the_box.extend(through_the_form);
    assert_eq!(app_frames(&named[2]), the_box);
    // Loop leak's five (its loop inlined into the form's handler), then Lock
    // handle's.
    for leak in &named[3..] {
        assert_eq!(app_frames(leak), through_the_form);
    }
}

#[test]
fn the_overrun_and_the_double_free_are_reported_with_their_sites() {
    let r = scripted();
    let events: Vec<&Record> = r
        .records
        .iter()
        .filter(|x| {
            !matches!(
                x,
                Record::Alloc(_)
                    | Record::SmallSite(_)
                    | Record::Contents(_)
                    | Record::Checkpoint(_)
                    | Record::Pinned(_)
                    | Record::Locked(_)
                    | Record::UnlockUnderflow(_)
            )
        })
        .collect();
    assert_eq!(events.len(), 2, "{events:#?}");
    let Record::Overrun(o) = events[0] else {
        panic!("{events:#?}")
    };
    assert_eq!(o.when.get(), detected::AT_FREE);
    assert_eq!(
        o.guard,
        [0x00, 0xFD, 0xFD, 0xFD],
        "StrCopy's NUL on the guard"
    );
    assert_eq!(
        seen(&o.alloc),
        wrapped(kind::POINTER, GUARDED | AllocFlags::OVERRUN, 10, "overrun")
    );
    assert_eq!(
        scenario_line(&o.site),
        Some((
            "starter_app::scenarios::overrun".into(),
            line("overrun-free")
        ))
    );

    let Record::DoubleFree(d) = events[1] else {
        panic!("{events:#?}")
    };
    assert_eq!(
        seen(&d.alloc),
        wrapped(kind::POINTER, GUARDED, 20, "double-free")
    );
    assert_eq!(d.address.get(), d.alloc.address.get());
    let function = String::from("starter_app::scenarios::double_free");
    assert_eq!(
        scenario_line(&d.first),
        Some((function.clone(), line("double-free-first")))
    );
    assert_eq!(
        scenario_line(&d.second),
        Some((function, line("double-free-second")))
    );
    // The second free never reached the OS: palm-run (a debug ROM) saw no
    // invalid free.
    assert!(r.reports.is_empty(), "{:?}", r.reports);
}

/// Lock handle's second `MemHandleUnlock` of its balanced handle, at lock
/// count 0: one unlock-underflow record with the unlock's line and the
/// handle's allocation, and the OS (palm-run, a debug ROM) never sees it.
#[test]
fn the_lock_handle_button_s_second_unlock_is_an_unlock_underflow() {
    let r = scripted();
    let u: Vec<&memdbg::record::UnlockUnderflowRecord> = r
        .records
        .iter()
        .filter_map(|x| match x {
            Record::UnlockUnderflow(u) => Some(u),
            _ => None,
        })
        .collect();
    assert_eq!(u.len(), 1, "{u:#?}");
    let u = u[0];
    assert_eq!(u.via, memdbg::record::UnlockUnderflowRecord::VIA_HANDLE);
    assert_eq!(u.address, u.alloc.address, "the handle itself");
    assert_eq!(
        seen(&u.alloc),
        wrapped(
            kind::HANDLE,
            GUARDED | AllocFlags::HANDLE,
            16,
            "lock-balanced"
        )
    );
    assert_eq!(u.alloc.seq.get(), 35);
    assert_eq!(
        scenario_line(&u.site),
        Some((
            "starter_app::scenarios::lock_handle".into(),
            line("unlock-underflow")
        ))
    );
    // Freed after: not a leak.
    assert!(!r.allocs().iter().any(|a| a.seq.get() == 35));
    assert!(r.reports.is_empty(), "{:?}", r.reports);
}

/// Pin heap: at the low-water mark of the largest free chunk (the 65,000-byte
/// handle's allocation), the 64-byte pointer split the free space: the
/// 20,000-byte hole (and its 4-byte guard) before it, the rest of the heap
/// after it, which was the largest free chunk then. Exactly one pin: every
/// other live block then was in the heap's first part, before the hole.
#[test]
fn the_pin_heap_button_names_the_pointer_that_pins_the_heap() {
    let r = scripted();
    let pins: Vec<_> = r
        .records
        .iter()
        .filter_map(|x| match x {
            Record::Pinned(p) => Some(*p),
            _ => None,
        })
        .collect();
    assert_eq!(pins.len(), 1, "{pins:#?}");
    let p = pins[0];
    assert_eq!(p.lock_count, 15, "a non-movable chunk");
    assert_eq!(p.before.get(), 20_004);
    assert_eq!(p.after.get(), p.largest.get());
    assert!(p.after.get() > 65_000, "{p:?}");
    assert_eq!(
        seen(&p.alloc),
        wrapped(kind::POINTER, GUARDED, 64, "pin-heap")
    );
    assert!(r.header.start_ticks.get() <= p.ticks.get());
    assert!(p.ticks.get() <= r.header.stop_ticks.get());
}

/// Lock handle: at stop its kept handle is still locked twice (the count the
/// OS keeps in the chunk header): one locked record, the handle's allocation
/// at `@lock-handle` (the same record as its leak's), written at stop. The
/// handle locked once and unlocked before its free is neither locked nor
/// leaked; no other tracked handle is locked at stop.
#[test]
fn the_lock_handle_button_s_handle_is_locked_twice_at_stop() {
    let r = scripted();
    let locked: Vec<_> = r
        .records
        .iter()
        .filter_map(|x| match x {
            Record::Locked(l) => Some(*l),
            _ => None,
        })
        .collect();
    assert_eq!(locked.len(), 1, "{locked:#?}");
    let l = locked[0];
    assert_eq!(l.lock_count, 2);
    assert_eq!(
        seen(&l.alloc),
        wrapped(
            kind::HANDLE,
            GUARDED | AllocFlags::HANDLE,
            16,
            "lock-handle"
        )
    );
    assert_eq!(l.alloc.seq.get(), 34);
    let leak = r.allocs().into_iter().find(|a| a.seq.get() == 34).unwrap();
    assert_eq!(l.alloc, leak, "a copy of the leak's record");
    assert!(
        !r.allocs().iter().any(|a| a.seq.get() == 35),
        "the balanced one"
    );
    assert!(r.header.start_ticks.get() <= l.ticks.get());
    assert!(l.ticks.get() <= r.header.stop_ticks.get());
}

#[test]
fn heap_statistics_count_the_small_allocations_per_site() {
    let r = scripted();
    let mut sites: Vec<(u16, u32, u32)> = r
        .records
        .iter()
        .filter_map(|x| match x {
            Record::SmallSite(s) => Some((s.first.line.get(), s.count.get(), s.bytes.get())),
            _ => None,
        })
        .collect();
    sites.sort();
    let mut want = vec![(line("fragment"), 20, 160), (line("overrun"), 1, 10)];
    want.sort();
    assert_eq!(sites, want);
    let c = r.counters();
    assert_eq!((c.small_allocs.get(), c.small_unsited.get()), (21, 0));
    // Sampled, and never below the 8 KB warning threshold (no LOW_HEAP).
    let heap = Config::default().dynamic_heap_size;
    assert!(c.low_free.get() < heap, "{}", c.low_free.get());
    assert!(c.low_largest_free.get() <= c.low_free.get());
    assert!(c.low_largest_free.get() > 8 * 1024);
    assert!(!r.records.iter().any(|x| matches!(x, Record::LowHeap(_))));
}

#[test]
fn the_header_counts_the_whole_run() {
    let r = scripted();
    let h = &r.header;
    assert_eq!(h.app_name_bytes(), APP_NAME.as_bytes());
    assert_eq!(h.app_creator.get(), u32::from_be_bytes(*b"MDst"));
    assert_eq!(Some(h.code_base.get()), r.code1_base, "code 1 base");
    assert_eq!(h.code_size.get() as usize, app().code1.len());
    // The 68k CRC-32 of code 1 (what lets the report refuse another build's ELF).
    assert_eq!(h.version, memdbg::record::FORMAT_VERSION);
    assert_eq!(h.code_checksum(), Some(memdbg::record::crc32(&app().code1)));
    assert!(h.stop_ticks.get() > h.start_ticks.get());
    assert_eq!(h.header_flags(), HeaderFlags::empty());
    assert_eq!(
        h.option_flags(),
        Options::GUARDS
            | Options::CALL_STACKS
            | Options::HEAP_STATS
            | Options::ALERTS_AT_EXIT
            | Options::DBG_MESSAGES
            | Options::PATCH_FREES
            | Options::ALERT_OVERRUNS
            | Options::ALERT_DOUBLE_FREES
            | Options::CONTENTS
            | Options::LOCK_CHECKS
    );
    assert_eq!(
        (
            h.max_alerts.get(),
            h.capacity.get(),
            h.low_heap_threshold.get()
        ),
        (5, 128, 8192)
    );
    let c = r.counters();
    // Allocations per button: Leak pointer 1, Leak handle 1, Field handle 1,
    // Resize ptr 1, Move handle 2, Overrun 1, Double free 1, Fragment 21,
    // Leak Box 1, Correct use 3 (pointer, handle, Box), Loop leak 10 (a
    // handle and a leak per pass), Pin heap 4, Lock handle 2.
    assert_eq!(c.allocations.get(), 49);
    // All but the nine leaks; the field's handle freed by FrmDeleteForm.
    assert_eq!(c.frees.get(), 40);
    assert_eq!(c.os_frees.get(), 1, "the field handle, in FrmDeleteForm");
    assert_eq!(c.os_unknown_frees.get(), 1, "the form itself");
    assert_eq!(c.unknown_frees.get(), 0);
    assert_eq!((c.double_frees.get(), c.overruns.get()), (1, 1));
    assert_eq!((c.untracked.get(), c.failed.get()), (0, 0));
    assert_eq!(c.resizes.get(), 2, "Resize ptr and Move handle");
    assert_eq!(
        (c.leaks.get(), c.leaked_bytes.get()),
        (9, 16 + 32 + 24 + 5 * 20 + 16)
    );
    // The peak is during Pin heap: the nine leaks (188 bytes), the field's
    // text (23), the pin (64) and the 65,000-byte handle.
    assert_eq!(c.peak_live_bytes.get(), 188 + 23 + 64 + 65_000);
    // During Fragment: two leaks, the field's text, 20 blocks and their Vec.
    assert_eq!(c.peak_live_count.get(), 24);
    // Overrun and double free at once, then one per leak at exit.
    assert_eq!(c.alerts.get(), 5);
}

/// The app's own alerts (ErrOKAlert, 10021: memdbg's) as their messages, the
/// title ("Error: ") taken off.
fn memdbg_alerts(r: &Run) -> Vec<String> {
    r.alerts
        .iter()
        .filter(|(id, _)| *id == 10021)
        .map(|(_, t)| t.strip_prefix("Error: ").unwrap_or(t).to_string())
        .collect()
}

#[test]
fn alerts_and_dbg_messages_name_the_sites() {
    let r = scripted();
    let file = scenarios_file();
    // memdbg's alerts are the ROM's error alert (FrmCustomAlert with ErrOKAlert),
    // which returns on every ROM; no Fatal Alert (ErrDisplayFileLineMsg).
    assert!(r.err_displays.is_empty(), "{:?}", r.err_displays);
    let mut allocs = r.allocs();
    allocs.sort_by_key(|a| a.seq.get());
    let boxed = allocs[2];
    assert_eq!(boxed.kind, kind::RUST);
    let Some(memdbg::record::Frame::Code(caller)) = boxed.stack.iter().next() else {
        panic!("the Box's innermost caller is in code 1: {:?}", boxed.stack)
    };
    // What memdbg's alert and DbgMessage line say of each leak (the Box has
    // no line: its innermost caller as an offset in code 1, its record's
    // first frame).
    let site = |a: &AllocRecord| {
        if a.kind == kind::RUST {
            format!("from code+0x{caller:08X}")
        } else {
            format!("at {file}:{}", a.line.get())
        }
    };
    // The overrun and the double free at once, then one per leak at exit, in
    // the ledger's order, up to max alerts (5): three of the nine leaks.
    let in_ledger: Vec<&AllocRecord> = r
        .records
        .iter()
        .filter_map(|x| match x {
            Record::Alloc(a) => Some(a),
            _ => None,
        })
        .collect();
    let mut want = vec![
        format!(
            "Overrun after 10 bytes (pointer) at {file}:{}",
            line("overrun")
        ),
        format!(
            "Double free of 20 bytes (pointer) at {file}:{}",
            line("double-free")
        ),
    ];
    want.extend(in_ledger[..3].iter().map(|a| {
        format!(
            "Leak #{}: {} bytes ({}) {}",
            a.seq.get(),
            a.size.get(),
            kind::name(a.kind),
            site(a)
        )
    }));
    assert_eq!(memdbg_alerts(r), want);
    assert_eq!(
        (in_ledger[0].seq.get(), in_ledger[1].seq.get()),
        (1, 2),
        "the pointer's and the handle's alerts first"
    );
    // One DbgMessage line per leak, all nine, in the ledger's order.
    let leak_lines: Vec<&String> = r
        .dbg_messages
        .iter()
        .filter(|m| m.starts_with("memdbg: leak #"))
        .collect();
    assert_eq!(leak_lines.len(), 9, "{:?}", r.dbg_messages);
    for (l, a) in leak_lines.iter().zip(&in_ledger) {
        assert!(
            l.starts_with(&format!("memdbg: leak #{}: ", a.seq.get()))
                && (a.kind == kind::RUST || l.ends_with(&site(a))),
            "{l}"
        );
    }
    assert!(
        leak_lines[0].ends_with(&format!("at {file}:{}", line("leak-pointer"))),
        "{}",
        leak_lines[0]
    );
    // The Box's line names the same innermost caller as its alert would.
    let box_line = leak_lines
        .iter()
        .find(|l| l.starts_with(&format!("memdbg: leak #{}: ", boxed.seq.get())))
        .unwrap();
    assert!(
        box_line.starts_with(&format!(
            "memdbg: leak #{}: 24 bytes (Rust alloc 0x",
            boxed.seq.get()
        )) && box_line.ends_with(&format!(") at code+0x{caller:08X}")),
        "{box_line}"
    );
    assert_eq!(
        r.dbg_messages.last().map(String::as_str),
        Some("memdbg: leaks 9 (188 bytes), overruns 1, double frees 1, locked 1")
    );
    // Move handle's own check: palm-run had to move the chunk.
    assert!(
        r.dbg_messages
            .iter()
            .any(|m| m == "StarterApp: Move handle: the chunk moved"),
        "{:?}",
        r.dbg_messages
    );
    // palm-run prints each alert as a line of its own.
    let printed: Vec<&String> = r
        .output
        .iter()
        .filter(|l| l.starts_with("Alert 10021: Error: "))
        .collect();
    assert_eq!(printed.len(), 5, "{:?}", r.output);
    assert_eq!(
        printed[0],
        &format!(
            "Alert 10021: Error: Overrun after 10 bytes (pointer) at {file}:{} [OK]",
            line("overrun")
        )
    );
}

#[test]
fn the_app_runs_cleanly_and_restores_the_dispatch_table() {
    let r = scripted();
    assert!(
        r.outcome.patches_left.is_empty(),
        "{:?}",
        r.outcome.patches_left
    );
    assert!(r.outcome.left_open.is_empty(), "{:?}", r.outcome.left_open);
    // The form was drawn at frmOpenEvent, the field showed the handle's text,
    // and Options ▸ About showed the About alert.
    assert_eq!(r.forms_drawn, vec![id("MainForm")]);
    assert!(
        r.drawn.iter().any(|t| t == "Freed by FrmDeleteForm"),
        "{:?}",
        r.drawn
    );
    let about: Vec<&(u16, String)> = r.alerts.iter().filter(|a| a.0 != 10021).collect();
    assert_eq!(about.len(), 1, "{:?}", r.alerts);
    assert_eq!(about[0].0, id("AboutAlert"));
    assert!(about[0].1.starts_with("About memdbg: "), "{:?}", r.alerts);
    // Exit's appStopEvent ended the loop: the script was used up, and palm-run
    // handed out no appStopEvent of its own.
    assert_eq!((r.script_left, r.app_stops), (0, 0));
}

#[test]
fn without_button_presses_the_ledger_is_empty() {
    let r = run("");
    assert!(r.records.is_empty(), "{:#?}", r.records);
    let c = r.counters();
    assert_eq!(
        (c.allocations.get(), c.frees.get(), c.leaks.get()),
        (0, 0, 0)
    );
    assert_eq!(r.header.header_flags(), HeaderFlags::empty());
    assert!(r.alerts.is_empty(), "{:?}", r.alerts);
    assert!(r.outcome.leaks.is_empty(), "{:?}", r.outcome.leaks);
    assert!(r.outcome.patches_left.is_empty());
    assert_eq!(r.app_stops, 1, "the end of the script stops the app");
    assert_eq!(
        r.dbg_messages.last().map(String::as_str),
        Some("memdbg: leaks 0 (0 bytes), overruns 0, double frees 0, locked 0")
    );
}

#[test]
fn other_launch_codes_return_err_none_without_memdbg_or_globals() {
    // sysAppLaunchCmdFind, SyncNotify, SystemReset, a custom code: no
    // NewGlobals flag (SystemMgr.h; PALM_FACTS §2.1, §2.3).
    for cmd in [1u16, 3, 5, 0x8001] {
        let mut m = Machine::with_config(&Config::default()).unwrap();
        m.install(&app().prc).unwrap();
        let outcome = m.launch_with(APP_NAME, cmd, 0).unwrap();
        let output = m.output.join("\n");
        assert_eq!(outcome.stop, None, "launch code {cmd}\n{output}");
        assert_eq!(outcome.result, Some(0), "launch code {cmd}: errNone");
        assert!(
            m.export("MemDbgDB").is_err(),
            "launch code {cmd} created MemDbgDB"
        );
        assert!(outcome.leaks.is_empty() && outcome.patches_left.is_empty());
        assert!(
            m.os.sys.dbg_messages.is_empty(),
            "{:?}",
            m.os.sys.dbg_messages
        );
        assert!(
            m.os.ui.forms_drawn.is_empty(),
            "launch code {cmd} drew a form"
        );
    }
}

// ---- The app under palm-run's stricter behaviours (`tools/palm-run/README.md`,
// "Stricter than Palm OS 3.5"): what another Palm OS (PumpkinOS) or the SDK's
// letter does where Palm OS 3.5 is lenient. memdbg must not crash the app, and
// its ledger must stay exact.

/// `a` with what differs between two runs of the same script zeroed: the
/// blocks' addresses (palm-run's own handles under `--opaque-handles`) and the
/// ticks (extra OS calls take instructions).
fn comparable_alloc(a: &AllocRecord) -> AllocRecord {
    AllocRecord {
        address: U32Be::new(0),
        ticks: U32Be::new(0),
        ..*a
    }
}

/// A record as [`comparable_alloc`] makes an allocation record (a
/// checkpoint's counters as [`comparable_counters`] makes them).
fn comparable(r: &Record) -> Record {
    match *r {
        Record::Alloc(a) => Record::Alloc(comparable_alloc(&a)),
        Record::Overrun(o) => Record::Overrun(memdbg::record::OverrunRecord {
            ticks: U32Be::new(0),
            alloc: comparable_alloc(&o.alloc),
            ..o
        }),
        Record::DoubleFree(d) => Record::DoubleFree(memdbg::record::DoubleFreeRecord {
            address: U32Be::new(0),
            first_after_seq: U32Be::new(0),
            second_ticks: U32Be::new(0),
            alloc: comparable_alloc(&d.alloc),
            ..d
        }),
        Record::SmallSite(s) => Record::SmallSite(memdbg::record::SmallSiteRecord {
            first: comparable_alloc(&s.first),
            ..s
        }),
        Record::LowHeap(l) => Record::LowHeap(memdbg::record::LowHeapRecord {
            free: U32Be::new(0),
            largest: U32Be::new(0),
            alloc: comparable_alloc(&l.alloc),
            ..l
        }),
        Record::Locked(l) => Record::Locked(memdbg::record::LockedRecord {
            ticks: U32Be::new(0),
            alloc: comparable_alloc(&l.alloc),
            ..l
        }),
        Record::UnlockUnderflow(u) => {
            Record::UnlockUnderflow(memdbg::record::UnlockUnderflowRecord {
                address: U32Be::new(0),
                ticks: U32Be::new(0),
                alloc: comparable_alloc(&u.alloc),
                ..u
            })
        }
        Record::Checkpoint(c) => Record::Checkpoint(memdbg::record::CheckpointRecord {
            ticks: U32Be::new(0),
            counters: comparable_counters(&c.counters),
            ..c
        }),
        other => other,
    }
}

/// The header's counters without the heap's low-water marks (palm-run's
/// descriptors of opaque handles take heap too).
fn comparable_counters(c: &Counters) -> Counters {
    Counters {
        low_free: U32Be::new(0),
        low_largest_free: U32Be::new(0),
        ..*c
    }
}

/// The run is clean and its ledger is exactly the normal run's ([`scripted`]),
/// record for record, but for the header flags `flags` (what memdbg found out
/// about the OS at start).
fn assert_same_ledger(r: &Run, flags: HeaderFlags) {
    let normal = scripted();
    assert_eq!(r.header.header_flags(), flags);
    assert_eq!(r.header.option_flags(), normal.header.option_flags());
    assert_eq!(
        comparable_counters(r.counters()),
        comparable_counters(normal.counters())
    );
    let records: Vec<Record> = r.records.iter().map(comparable).collect();
    // Through documented calls memdbg cannot walk the heap: no pinned records.
    let walked = !flags.contains(HeaderFlags::DOCUMENTED_CALLS);
    let want: Vec<Record> = normal
        .records
        .iter()
        .filter(|x| walked || !matches!(x, Record::Pinned(_)))
        .map(comparable)
        .collect();
    assert_eq!(records, want);
    assert!(r.reports.is_empty(), "{:?}", r.reports);
    assert!(r.outcome.patches_left.is_empty() && r.outcome.left_open.is_empty());
    assert_eq!((r.script_left, r.app_stops), (0, 0));
}

#[test]
fn handles_that_are_not_master_pointers_leave_the_same_ledger_through_documented_calls() {
    let r = run_on(&events_txt(), |m| m.opaque_handles = true);
    // The probe at start saw that `*h` is not the chunk: documented calls only.
    assert_same_ledger(&r, HeaderFlags::DOCUMENTED_CALLS);
    assert_eq!(memdbg_alerts(&r), memdbg_alerts(scripted()));
    // The same lines, but for the leaked handle's value (palm-run's own).
    let handle = |m: &String| {
        m.find("(handle 0x").map_or(m.clone(), |at| {
            format!("{}(handle 0x…{}", &m[..at], &m[at + 18..])
        })
    };
    let lines: Vec<String> = r.dbg_messages.iter().map(handle).collect();
    let want: Vec<String> = scripted().dbg_messages.iter().map(handle).collect();
    assert_eq!(lines, want);
    assert_ne!(r.dbg_messages, scripted().dbg_messages, "another handle");
}

#[test]
fn a_data_manager_that_frees_released_records_leaves_the_same_ledger() {
    // memdbg keeps a slot's record busy and locked until stop, and gets, writes
    // and releases the header and events as the SDK says: nothing it writes
    // goes through a pointer of a released record.
    let r = run_on(&events_txt(), |m| m.release_frees_records = true);
    assert_same_ledger(&r, HeaderFlags::empty());
}

#[test]
fn record_writes_as_strict_as_the_sdk_leave_the_same_ledger() {
    let r = run_on(&events_txt(), |m| m.strict_record_writes = true);
    assert_same_ledger(&r, HeaderFlags::empty());
}

#[test]
fn without_dbg_message_nothing_calls_it_and_the_ledger_is_the_same() {
    let r = run_on(&events_txt(), |m| {
        let dbg = palm_run::table::TRAPS
            .iter()
            .find(|t| t.name == "DbgMessage");
        m.missing_traps.insert(dbg.unwrap().trap);
    });
    // The trap table says DbgMessage is SysUnimplemented: neither memdbg nor the
    // app (memdbg::dbg_message) calls it.
    assert_same_ledger(&r, HeaderFlags::NO_DBG_MESSAGE);
    assert!(r.dbg_messages.is_empty(), "{:?}", r.dbg_messages);
    assert_eq!(memdbg_alerts(&r), memdbg_alerts(scripted()));
}

#[test]
fn where_a_fatal_alert_ends_the_app_memdbgs_alerts_do_not() {
    // A release ROM's Fatal Alert (Reset only), or PumpkinOS's: memdbg's alerts
    // are the ROM's error alert, which returns.
    let r = run_on(&events_txt(), |m| {
        m.alert_response = palm_run::machine::AlertResponse::Reset;
    });
    assert_same_ledger(&r, HeaderFlags::empty());
    assert_eq!(memdbg_alerts(&r), memdbg_alerts(scripted()));
}

#[test]
fn on_a_pumpkinos_like_machine_the_nine_leaks_are_told_from_the_frees_memdbg_did_not_see() {
    // All of PumpkinOS's behaviours at once, trap patches refused too: the app's
    // plain MemChunkFree/MemHandleFree and FrmDeleteForm's free go unseen.
    let r = run_on(&events_txt(), Machine::pumpkin_profile);
    assert_eq!(
        r.header.header_flags(),
        HeaderFlags::PATCHES_REFUSED | HeaderFlags::DOCUMENTED_CALLS | HeaderFlags::NO_DBG_MESSAGE
    );
    let mut allocs = r.allocs();
    allocs.sort_by_key(|a| a.seq.get());
    let leaks: Vec<Alloc> = allocs
        .iter()
        .filter(|a| !a.alloc_flags().contains(AllocFlags::FREED_UNSEEN))
        .map(seen)
        .collect();
    assert_eq!(
        leaks,
        vec![
            wrapped(kind::POINTER, GUARDED, 16, "leak-pointer"),
            wrapped(
                kind::HANDLE,
                GUARDED | AllocFlags::HANDLE,
                32,
                "leak-handle"
            ),
            Alloc {
                kind: kind::RUST,
                flags: GUARDED,
                size: 24,
                file: String::new(),
                line: 0,
            },
        ]
        .into_iter()
        .chain(loop_leaks())
        .collect::<Vec<_>>()
    );
    // Lock handle's kept handle is still locked twice (MemHandleLockCount on
    // this path); the balanced one, freed unseen, is not.
    let locked: Vec<(u8, u32)> = r
        .records
        .iter()
        .filter_map(|x| match x {
            Record::Locked(l) => Some((l.lock_count, l.alloc.seq.get())),
            _ => None,
        })
        .collect();
    assert_eq!(locked, [(2, 34)]);
    // No overrun: the overrun's free (a plain MemChunkFree) went unseen, and a
    // block freed unseen is never guard-checked as an overrun.
    let events: Vec<String> = r
        .records
        .iter()
        .filter_map(|x| match x {
            Record::Overrun(o) => Some(format!(
                "overrun when {} guard {:02X?} of {:?} seq {}",
                o.when.get(),
                o.guard,
                seen(&o.alloc),
                o.alloc.seq.get()
            )),
            Record::DoubleFree(d) => Some(format!("double free of {:?}", seen(&d.alloc))),
            _ => None,
        })
        .collect();
    assert!(events.is_empty(), "{events:#?}");
    let c = r.counters();
    assert_eq!(
        (c.leaks.get(), c.leaked_bytes.get()),
        (9, 16 + 32 + 24 + 5 * 20 + 16)
    );
    assert_eq!((c.overruns.get(), c.double_frees.get()), (0, 0));
    // Every other tracked block is freed unseen (the Vec and the Box of Correct
    // use, freed through MemDbgAlloc, were seen).
    let unseen = allocs
        .iter()
        .filter(|a| a.alloc_flags().contains(AllocFlags::FREED_UNSEEN))
        .count() as u32;
    assert_eq!(unseen + c.leaks.get() + c.frees.get(), c.allocations.get());
    assert_eq!(
        c.frees.get(),
        2,
        "the Vec of Fragment, the Box of Correct use"
    );
    // The app ran to its end; its alerts are the first five leaks' (max 5).
    assert_eq!(r.outcome.stop, None);
    assert_eq!(memdbg_alerts(&r).len(), 5, "{:?}", memdbg_alerts(&r));
    assert!(r.dbg_messages.is_empty(), "{:?}", r.dbg_messages);
}

/// Runs perl with Palm::PDB on `prc` and returns its listing: name, then one
/// `TYPE ID HEX` line per resource. Fails with a hint to run ci/setup if perl
/// or Palm::PDB is missing.
fn palm_pdb_listing(prc: &Path) -> String {
    let probe = Command::new("perl")
        .args(["-MPalm::PDB", "-MPalm::Raw", "-e1"])
        .output();
    match probe {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "this test needs Palm::PDB (Debian package libpalm-perl), which perl cannot \
             load: run ci/setup\n{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(err) => panic!("this test needs perl ({err}): run ci/setup"),
    }
    let script = r#"
        use Palm::PDB; use Palm::Raw;
        Palm::PDB::RegisterPRCHandlers('Palm::Raw', '');
        my $pdb = Palm::PDB->new;
        $pdb->Load($ARGV[0]) or die "Palm::PDB could not load $ARGV[0]\n";
        print "$pdb->{name}\n";
        printf "%s %d %s\n", $_->{type}, $_->{id}, unpack('H*', $_->{data})
            for @{ $pdb->{resources} };
    "#;
    let out = Command::new("perl")
        .args(["-e", script])
        .arg(prc)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "perl failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Palm::PDB's listing of the PRC `prc` (written to a temporary file), after
/// checking that it names the database `name`: one `TYPE ID HEX` line per
/// resource.
fn palm_pdb_entries(prc: &[u8], name: &str) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("starter-e2e-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.prc"));
    std::fs::write(&path, prc).unwrap();
    let listing = palm_pdb_listing(&path);
    std::fs::remove_dir_all(&dir).unwrap();
    let mut lines = listing.lines();
    assert_eq!(lines.next(), Some(name));
    lines.map(str::to_string).collect()
}

/// That Palm::PDB's listing `theirs` has every resource of `compiled`, byte
/// for byte, and an entry starting with each of `prefixes` (`"tAIB 1000 "`:
/// the large launcher icon).
fn assert_lists(theirs: &[&str], compiled: &[palm_rcp::Resource], prefixes: &[&str]) {
    for r in compiled {
        let want = format!(
            "{} {} {}",
            String::from_utf8_lossy(&r.kind),
            r.id,
            hex(&r.data)
        );
        assert!(
            theirs.contains(&want.as_str()),
            "Palm::PDB does not list {want}"
        );
    }
    for p in prefixes {
        assert!(
            theirs.iter().any(|l| l.starts_with(p)),
            "Palm::PDB lists no {p}"
        );
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn palm_pdb_lists_the_compiled_resources_in_the_prc() {
    let listing = palm_pdb_entries(&app().prc, APP_NAME);
    let theirs: Vec<&str> = listing.iter().map(String::as_str).collect();

    // Every resource the .rcp compiles to, byte for byte.
    let compiled = palm_rcp::compile_file(starter_dir().join("../rsrc/StarterApp.rcp")).unwrap();
    let kinds: Vec<[u8; 4]> = compiled.iter().map(|r| r.kind).collect();
    for k in [b"tFRM", b"MBAR", b"Talt", b"tver", b"tAIN", b"tAIB"] {
        assert!(
            kinds.contains(k),
            "{} not compiled",
            String::from_utf8_lossy(k)
        );
    }
    assert_lists(&theirs, &compiled, &["tAIB 1000 ", "tAIB 1001 "]);
    // And the code: code 1 is the built image.
    assert!(theirs.contains(&format!("code 1 {}", hex(&app().code1)).as_str()));
    // The same resources palm-prc reads, in the same order: nothing else.
    let db = Database::parse(&app().prc).unwrap();
    let Content::Resources(ours) = db.content else {
        panic!("not a resource database")
    };
    let ours: Vec<String> = ours
        .iter()
        .map(|r| {
            format!(
                "{} {} {}",
                String::from_utf8_lossy(&r.kind.0),
                r.id,
                hex(&r.data)
            )
        })
        .collect();
    assert_eq!(theirs, ours);
    assert_eq!(
        ours.len(),
        compiled.len() + 4,
        "code 0, code 1, data 0, pref 0"
    );
}
