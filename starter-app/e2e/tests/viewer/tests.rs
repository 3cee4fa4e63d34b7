//! MemDbg Viewer (`viewer/`) end to end: StarterApp runs with its event
//! script, then the viewer runs on the same device with the ledger
//! StarterApp left (palm-run's `--then`, here through the library), taps
//! through its list to the handle leak at scenarios.rs's `@mark leak-handle`
//! line and shows its details: the drawn text is checked against the ledger
//! as memdbg::record decodes it on the host, and its call stack's names
//! against the names palm-build wrote for the ELF's functions. The same
//! with damaged ledgers: the message on screen, and a clean exit (no chunk,
//! database or patch left; the ledger's bytes unchanged).

use std::sync::OnceLock;

use memdbg::record::{
    self, AsBytes, FORMAT_VERSION, Frame, Header, Record, SegmentRecord, U16Be, U32Be, kind,
};
use palm_prc::{Content, Database};
use palm_run::Machine;

use super::{APP_NAME, app, assert_lists, build, events_txt, line, palm_pdb_entries, starter_dir};

const VIEWER: &str = "MemDbgViewer";

/// The viewer's PRC and its resource IDs.
struct Viewer {
    prc: Vec<u8>,
    ids: std::collections::HashMap<String, u16>,
}

fn viewer() -> &'static Viewer {
    static V: OnceLock<Viewer> = OnceLock::new();
    V.get_or_init(|| {
        let dir = starter_dir().join("../viewer");
        let built = build(&dir);
        let ids = palm_rcp::ids::defines(&dir.join("../rsrc/MemDbgViewer.rcp"))
            .unwrap()
            .into_iter()
            .filter_map(|d| Some((d.name, u16::try_from(d.value).ok()?)))
            .collect();
        Viewer {
            prc: std::fs::read(&built.prc).unwrap(),
            ids,
        }
    })
}

fn vid(name: &str) -> u16 {
    viewer().ids[name]
}

/// A device where StarterApp ran its script (its ledger is MemDbgDB).
fn after_starter() -> Machine {
    let mut m = Machine::with_config(&palm_run::Config::default()).unwrap();
    m.install(&app().prc).unwrap();
    m.set_events(palm_run::script::parse(&events_txt()).unwrap());
    let out = m.launch(APP_NAME).unwrap();
    assert_eq!(out.stop, None, "{}", m.output.join("\n"));
    m
}

/// Runs the viewer on `m` with `script`; returns the text it drew, after
/// checking that it exited cleanly and left MemDbgDB (if any) as it was.
fn run_viewer(m: &mut Machine, script: &str) -> Vec<String> {
    let before = m.export("MemDbgDB").ok();
    m.install(&viewer().prc).unwrap();
    m.os.ui.drawn.clear();
    m.os.ui.forms_drawn.clear();
    m.set_events(palm_run::script::parse(script).unwrap());
    let out = m.launch(VIEWER).unwrap();
    let output = m.output.join("\n");
    assert!(out.clean(), "{out:?}\n{output}");
    assert!(out.left_open.is_empty(), "{out:?}");
    assert_eq!(out.events_not_played, 0, "{output}");
    assert!(m.reports.is_empty(), "{:?}", m.reports);
    assert_eq!(
        m.export("MemDbgDB").ok(),
        before,
        "the viewer changed MemDbgDB"
    );
    m.os.ui.drawn.clone()
}

/// The ledger's records after record 0, decoded, free slots and segment
/// records left out: the viewer's findings, in its order.
fn findings(ledger: &[u8]) -> Vec<Record> {
    let Content::Records(records) = Database::parse(ledger).unwrap().content else {
        panic!("MemDbgDB is not a record database")
    };
    records[1..]
        .iter()
        .map(|r| Record::decode(&r.data).unwrap())
        .filter(|r| {
            !matches!(
                r,
                Record::FreeSlot | Record::Segment(_) | Record::Checkpoint(_)
            )
        })
        .collect()
}

/// The function name the viewer shows for a frame: the MacsBug name of the
/// ELF's function there, its end after `..` from a module boundary beyond
/// 28 characters.
fn shown_name(elf: &object::File<'_>, offset: u32) -> String {
    use object::{Object, ObjectSymbol};
    let sym = elf
        .symbols()
        .filter(|s| s.kind() == object::SymbolKind::Text && s.size() > 0)
        .find(|s| (s.address()..s.address() + s.size()).contains(&u64::from(offset)))
        .unwrap_or_else(|| panic!("no function at {offset:#x}"));
    let name = palm_build::macsbug::symbol_name(sym.name().unwrap());
    if name.len() <= 28 {
        return name;
    }
    let tail = &name[name.len() - 26..];
    match tail.find('.') {
        Some(dot) if dot + 1 < tail.len() => format!("..{}", &tail[dot + 1..]),
        _ => format!("..{tail}"),
    }
}

#[test]
fn the_viewer_lists_starter_apps_findings_and_shows_the_handle_leak() {
    let mut m = after_starter();
    let ledger = m.export("MemDbgDB").unwrap();
    let header = match Database::parse(&ledger).unwrap().content {
        Content::Records(r) => Header::decode(&r[0].data).unwrap(),
        _ => unreachable!(),
    };
    let found = findings(&ledger);
    let handle_line = line("leak-handle");
    let item = found
        .iter()
        .position(|r| {
            matches!(r, Record::Alloc(a) if a.kind == kind::HANDLE && a.line.get() == handle_line)
        })
        .expect("StarterApp's ledger has the handle leak");
    let Record::Alloc(leak) = found[item] else {
        unreachable!()
    };
    // Scroll the list until the item is shown (6 visible), tap it, scroll its
    // details down, back to the list.
    let visible = 6;
    let top = item.saturating_sub(visible - 1);
    let mut script = String::new();
    for _ in 0..top {
        script.push_str(&format!("tap {} down\n", vid("MainFindingsBar")));
    }
    script.push_str(&format!("tap {} {}\n", vid("MainFindingsList"), item - top));
    script.push_str(&format!("tap {} down\n", vid("DetailBar")));
    script.push_str(&format!("tap {}\n", vid("DetailDoneButton")));
    // Back in the list, scrolled to its last six items (the Rust Box's among
    // them: Loop leak's leaks took earlier slots of the ledger).
    for _ in top..found.len().saturating_sub(visible) {
        script.push_str(&format!("tap {} down\n", vid("MainFindingsBar")));
    }
    let drawn = run_viewer(&mut m, &script);

    // The summary, from the header's own counters.
    let c = &header.counters;
    let summary = format!(
        "StarterApp (MDst), stopped\n{} allocs, {} frees ({} by the OS)\n{} leaks, {} bytes\n\
         {} overrun, {} double free\nflags: none",
        c.allocations.get(),
        c.frees.get(),
        c.os_frees.get(),
        c.leaks.get(),
        c.leaked_bytes.get(),
        c.overruns.get(),
        c.double_frees.get()
    );
    assert_eq!(c.overruns.get(), 1);
    assert_eq!(c.double_frees.get(), 1);
    assert_eq!(drawn[0], "MemDbg Viewer");
    assert_eq!(drawn[1], summary);
    // The list: one item per finding, the first six shown.
    let items: Vec<&String> = drawn[2..2 + visible.min(found.len())].iter().collect();
    assert_eq!(
        *items[0],
        format!("Leak 16 scenarios.rs:{}", line("leak-pointer")),
        "{drawn:#?}"
    );
    assert_eq!(*items[1], format!("Leak 32 scenarios.rs:{handle_line}"));
    assert!(
        items.contains(&&format!("Overrun 10 scenarios.rs:{}", line("overrun"))),
        "{items:?}"
    );
    assert!(
        items.contains(&&format!(
            "Double free 20 scenarios.rs:{}",
            line("double-free")
        )),
        "{items:?}"
    );
    // Loop leak's five, from one line.
    let loop_item = format!("Leak 20 scenarios.rs:{}", line("loop-leak"));
    assert_eq!(
        found
            .iter()
            .filter(|r| matches!(r, Record::Alloc(a) if a.line.get() == line("loop-leak")))
            .count(),
        5
    );
    assert!(items.contains(&&loop_item), "{items:?}");
    // The Rust Box leak has no file: its innermost frame's function (shown
    // once the list is scrolled to its end).
    assert!(
        drawn.contains(&"Leak 24 alloc.boxed.box_new_uninit".to_string()),
        "{drawn:#?}"
    );

    // The detail form: the leak as the ledger has it, every frame named as
    // palm-build named the ELF's function (found by the viewer in code 1).
    let elf_bytes = std::fs::read(&app().elf).unwrap();
    let elf = object::File::parse(&*elf_bytes).unwrap();
    let mut expected = format!(
        "Leak: handle\n32 bytes at 0x{:08X}\nallocation #{}\n\
         starter-app/src/scenarios.rs\nline {handle_line}\nflags: GUARDED HANDLE\nAllocated by:\n",
        leak.address.get(),
        leak.seq.get(),
    );
    // (No tick: format version 5 reads none per allocation.)
    assert_eq!(leak.alloc_ticks(), None);
    let mut named = 0;
    for f in leak.stack.iter() {
        match f {
            Frame::Code(at) => {
                expected.push_str(&format!(" 0x{at:08X}\n  {}\n", shown_name(&elf, at)));
                named += 1;
            }
            Frame::Raw(at) => expected.push_str(&format!(" 0x{at:08X} (not code 1)\n")),
        }
    }
    assert!(named >= 3, "{expected}");
    assert!(
        expected.contains("starter_app.main_form_event"),
        "{expected}"
    );
    // The leak's first bytes, from its contents record: the text
    // leak_handle copied, its NUL, and the zeros of palm-run's new chunk.
    expected.push_str(
        "Contents (32 bytes):\n\
         61 20 72 65 63 6F 72 64  a record\n\
         20 74 68 61 74 20 69 73   that is\n\
         20 6E 65 76 65 72 20 73   never s\n\
         61 76 65 64 00 00 00 00  aved....",
    );
    let form = drawn
        .iter()
        .position(|t| t == "Finding")
        .unwrap_or_else(|| panic!("no detail form drawn: {drawn:#?}"));
    assert_eq!(drawn[form + 1], expected);
    assert_eq!(drawn[form + 2], "Done");
    // Scrolled one line: the text from its second line.
    let scrolled = expected.split_once('\n').unwrap().1;
    assert_eq!(drawn[form + 3], scrolled);
    assert_eq!(m.os.ui.forms_drawn, vec![1000, 1100]);
}

#[test]
fn a_leak_made_after_a_checkpoint_names_its_generation() {
    // Loop leak's first leak in the list (a slot the ledger reused: among the
    // first six items), its detail under its allocation line.
    let mut m = after_starter();
    let found = findings(&m.export("MemDbgDB").unwrap());
    let loop_line = line("loop-leak");
    let item = found
        .iter()
        .position(|r| matches!(r, Record::Alloc(a) if a.line.get() == loop_line))
        .expect("Loop leak's leaks");
    assert!(item < 6, "{item}");
    let Record::Alloc(leak) = found[item] else {
        unreachable!()
    };
    assert!(leak.generation >= 1, "{leak:?}");
    let script = format!(
        "tap {} {item}\ntap {}\n",
        vid("MainFindingsList"),
        vid("DetailDoneButton")
    );
    let drawn = run_viewer(&mut m, &script);
    let form = drawn
        .iter()
        .position(|t| t == "Finding")
        .unwrap_or_else(|| panic!("no detail form drawn: {drawn:#?}"));
    let want = format!(
        "Leak: pointer\n20 bytes at 0x{:08X}\nallocation #{}\ngeneration {}\n\
         starter-app/src/scenarios.rs\nline {loop_line}\nflags: GUARDED\n",
        leak.address.get(),
        leak.seq.get(),
        leak.generation
    );
    assert!(
        drawn[form + 1].starts_with(&want),
        "{}\n{want}",
        drawn[form + 1]
    );
}

/// The ledger `m` holds, changed by `damage` (its records), installed
/// again in place of the original on a fresh device with StarterApp.
fn with_ledger(damage: impl FnOnce(&mut Vec<palm_prc::Record>)) -> Machine {
    with_ledger_and_app(&app().prc, damage)
}

/// [`with_ledger`] with the app `prc` in place of StarterApp's PRC.
fn with_ledger_and_app(prc: &[u8], damage: impl FnOnce(&mut Vec<palm_prc::Record>)) -> Machine {
    let mut m = after_starter();
    let mut db = Database::parse(&m.export("MemDbgDB").unwrap()).unwrap();
    let Content::Records(records) = &mut db.content else {
        unreachable!()
    };
    damage(records);
    let mut fresh = Machine::with_config(&palm_run::Config::default()).unwrap();
    fresh.install(prc).unwrap();
    fresh.install(&db.to_bytes().unwrap()).unwrap();
    m = fresh;
    m
}

/// The summary field's text after the viewer ran on `m` without a script.
fn summary_of(mut m: Machine) -> String {
    let drawn = run_viewer(&mut m, "");
    assert_eq!(drawn[0], "MemDbg Viewer");
    drawn[1].clone()
}

#[test]
fn no_ledger_a_newer_format_or_a_damaged_header_is_said_on_screen() {
    let mut m = Machine::with_config(&palm_run::Config::default()).unwrap();
    m.install(&app().prc).unwrap();
    assert_eq!(
        summary_of(m),
        "No MemDbgDB on this device.\nRun an app with memdbg first, quit it to the launcher, \
         then open this viewer."
    );
    let newer = with_ledger(|r| r[0].data[1] = 9);
    assert_eq!(
        summary_of(newer),
        "MemDbgDB is format version 9. This viewer reads versions 1 to 5: install the viewer \
         of that memdbg."
    );
    let magic = with_ledger(|r| r[0].data[4] = b'X');
    assert_eq!(
        summary_of(magic),
        "MemDbgDB is damaged: its header record: bad header magic (not 'MDbg') (byte 4)."
    );
    let short = with_ledger(|r| r[0].data.truncate(40));
    assert_eq!(
        summary_of(short),
        "MemDbgDB is damaged: its header record: truncated record (byte 40)."
    );
    let none = with_ledger(|r| r.clear());
    assert_eq!(
        summary_of(none),
        "MemDbgDB has no header record: it is damaged."
    );
}

#[test]
fn a_damaged_record_and_an_unknown_kind_are_listed_as_such() {
    // The first leak loses its end.
    let (mut damaged_index, mut damaged) = (0, Vec::new());
    let mut m = with_ledger(|r| {
        damaged_index = r
            .iter()
            .position(|x| x.data.first() == Some(&kind::POINTER))
            .unwrap();
        r[damaged_index].data.truncate(30);
        damaged = r[damaged_index].data.clone();
    });
    let script = format!(
        "tap {} 0\ntap {}\n",
        vid("MainFindingsList"),
        vid("DetailDoneButton")
    );
    let drawn = run_viewer(&mut m, &script);
    assert!(drawn[1].ends_with("\n1 damaged record"), "{}", drawn[1]);
    assert_eq!(drawn[2], format!("Damaged record {damaged_index}"));
    let form = drawn.iter().position(|t| t == "Finding").unwrap();
    let rows: Vec<String> = damaged[..24]
        .chunks(8)
        .map(|c| {
            c.iter()
                .map(|b| format!("{b:02X}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(
        drawn[form + 1],
        format!(
            "Record {damaged_index} is damaged.\ntruncated record at byte 30\n30 bytes:\n{}\n",
            rows.join("\n")
        )
    );
    // The unknown kind: listed last, the list scrolled to it.
    let mut m = with_ledger(|r| {
        let mut unknown = r[1].clone();
        unknown.data = vec![0x30, 2, 0xAB, 0xCD];
        unknown.unique_id += 0x1000;
        r.truncate(2);
        r.push(unknown);
    });
    let drawn = open_finding_1(&mut m);
    assert_eq!(drawn[3], "Unknown kind 0x30");
    let form = drawn.iter().position(|t| t == "Finding").unwrap();
    assert_eq!(
        drawn[form + 1],
        "Record 2 is of a kind this viewer does not know.\n4 bytes:\n30 02 AB CD\n"
    );
}

#[test]
fn palm_pdb_lists_the_viewers_resources_and_icons() {
    let listing = palm_pdb_entries(&viewer().prc, VIEWER);
    let theirs: Vec<&str> = listing.iter().map(String::as_str).collect();
    let compiled = palm_rcp::compile_file(starter_dir().join("../rsrc/MemDbgViewer.rcp")).unwrap();
    assert_lists(
        &theirs,
        &compiled,
        &[
            "tAIB 1000 ",
            "tAIB 1001 ",
            "tFRM 1000 ",
            "tFRM 1100 ",
            "code 1 ",
        ],
    );
    assert_eq!(
        theirs.len(),
        compiled.len() + 4,
        "code 0, code 1, data 0, pref 0"
    );
}

/// Frame 0 of the allocation record `data` made a raw 68k address.
fn with_raw_frame0(data: &mut Vec<u8>, address: u32) -> u32 {
    let Record::Alloc(mut a) = Record::decode(data).unwrap() else {
        panic!("not an allocation record")
    };
    let Some(Frame::Code(at)) = a.stack.frame(0) else {
        panic!("frame 0 is not in code 1: {:?}", a.stack)
    };
    a.stack.raw_mask |= 1;
    a.stack.frames[0] = U32Be::new(address + at);
    *data = a.as_bytes().to_vec();
    at
}

#[test]
fn frames_in_code_2_and_up_are_shown_as_segment_n_plus_offset_and_named() {
    // A StarterApp whose code 2 is a copy of its code 1 (so code 1's
    // MacsBug names are code 2's, at the same offsets), and a ledger that
    // says code 2 ran at BASE with those bytes, code 3 at BASE3 with bytes
    // the app does not have: the handle leak's innermost frame is moved
    // into code 2, the Box leak's into code 2 too (its list item is named
    // from there), a second leak's into code 3.
    const BASE: u32 = 0x0007_0000;
    const BASE3: u32 = 0x0007_8000;
    let code1 = &app().code1;
    let mut prc = Database::parse(&app().prc).unwrap();
    let Content::Resources(resources) = &mut prc.content else {
        unreachable!()
    };
    resources.push(palm_prc::Resource {
        kind: palm_prc::FourCC(*b"code"),
        id: 2,
        data: code1.clone(),
    });
    let segment = |resource: u16, base: u32, crc: u32| SegmentRecord {
        kind: kind::SEGMENT,
        version: FORMAT_VERSION,
        resource: U16Be::new(resource),
        base: U32Be::new(base),
        size: U32Be::new(code1.len() as u32),
        crc: U32Be::new(crc),
    };
    let handle_line = line("leak-handle");
    let (mut handle_at, mut box_at, mut other_at, mut other_line) = (0, 0, 0, 0);
    let mut m = with_ledger_and_app(&prc.to_bytes().unwrap(), |r| {
        let leaks: Vec<usize> = (1..r.len())
            .filter(|&i| matches!(Record::decode(&r[i].data), Ok(Record::Alloc(_))))
            .collect();
        for i in leaks {
            let Ok(Record::Alloc(a)) = Record::decode(&r[i].data) else {
                unreachable!()
            };
            if a.kind == kind::HANDLE && a.line.get() == handle_line {
                handle_at = with_raw_frame0(&mut r[i].data, BASE);
            } else if a.kind == kind::RUST && box_at == 0 {
                box_at = with_raw_frame0(&mut r[i].data, BASE);
            } else if a.kind == kind::POINTER && other_at == 0 {
                other_line = a.line.get();
                other_at = with_raw_frame0(&mut r[i].data, BASE3);
            }
        }
        let mut seg = r[1].clone();
        seg.data = segment(2, BASE, record::crc32(code1)).as_bytes().to_vec();
        seg.unique_id += 0x1000;
        let mut seg3 = seg.clone();
        seg3.data = segment(3, BASE3, 0xDEAD_BEEF).as_bytes().to_vec();
        seg3.unique_id += 1;
        r.insert(1, seg);
        r.insert(2, seg3);
    });
    assert!(handle_at != 0 && box_at != 0 && other_at != 0);
    let ledger = m.export("MemDbgDB").unwrap();
    let found = findings(&ledger);
    let position = |line: u16| {
        found
            .iter()
            .position(|r| matches!(r, Record::Alloc(a) if a.line.get() == line))
            .unwrap()
    };
    let (handle, other) = (position(handle_line), position(other_line));
    assert!(handle < 6 && other < 6, "{handle} {other}");
    let mut script = format!(
        "tap {list} {handle}\ntap {done}\ntap {list} {other}\ntap {done}\n",
        list = vid("MainFindingsList"),
        done = vid("DetailDoneButton")
    );
    // Then the list scrolled to its end, where the Box's item is (Loop leak's
    // leaks took earlier slots).
    for _ in 0..found.len().saturating_sub(6) {
        script.push_str(&format!("tap {} down\n", vid("MainFindingsBar")));
    }
    let drawn = run_viewer(&mut m, &script);
    // Segment records are not findings: the list is as before, and the Box
    // leak's item is named from code 2.
    assert!(
        drawn.contains(&"Leak 24 alloc.boxed.box_new_uninit".to_string()),
        "{drawn:#?}"
    );
    assert!(
        drawn.contains(&format!("Leak 32 scenarios.rs:{handle_line}")),
        "{drawn:#?}"
    );
    let elf_bytes = std::fs::read(&app().elf).unwrap();
    let elf = object::File::parse(&*elf_bytes).unwrap();
    let details: Vec<&String> = drawn
        .iter()
        .enumerate()
        .filter(|(i, _)| *i > 0 && drawn[i - 1] == "Finding")
        .map(|(_, t)| t)
        .collect();
    assert_eq!(details.len(), 2, "{drawn:#?}");
    let in_code2 = format!(
        "Allocated by:\n segment 2 + 0x{handle_at:04X}\n  {}\n 0x",
        shown_name(&elf, handle_at)
    );
    assert!(details[0].contains(&in_code2), "{}\n{in_code2}", details[0]);
    let in_code3 = format!("Allocated by:\n segment 3 + 0x{other_at:04X}\n  (the app changed)\n");
    assert!(details[1].contains(&in_code3), "{}\n{in_code3}", details[1]);
}

/// A handle still locked at stop (a `LOCKED` record made from StarterApp's
/// handle leak, lock count 2): listed as "Locked 2x SIZE FILE:LINE", and its
/// detail says how often it was locked, then the block and its call stack.
#[test]
fn a_handle_locked_at_stop_is_listed_with_its_count() {
    let mut want = String::new();
    let mut m = with_ledger(|r| {
        let leak = r
            .iter()
            .find(|x| x.data.first() == Some(&kind::HANDLE))
            .unwrap()
            .clone();
        let alloc = record::AllocRecord::decode(&leak.data).unwrap();
        let file = alloc.file.bytes();
        let base = &file[file.iter().rposition(|&b| b == b'/').map_or(0, |s| s + 1)..];
        want = format!(
            "Locked 2x {} {}:{}",
            alloc.size.get(),
            String::from_utf8_lossy(base),
            alloc.line.get()
        );
        let locked = record::LockedRecord {
            kind: kind::LOCKED,
            version: FORMAT_VERSION,
            lock_count: 2,
            reserved: 0,
            ticks: U32Be::new(100),
            alloc,
        };
        let mut rec = leak;
        rec.data = locked.as_bytes().to_vec();
        rec.unique_id += 0x1000;
        r.truncate(2);
        r.push(rec);
    });
    let drawn = open_finding_1(&mut m);
    assert_eq!(drawn[3], want, "{drawn:#?}");
    let form = drawn.iter().position(|t| t == "Finding").unwrap();
    let detail = &drawn[form + 1];
    assert!(
        detail.starts_with("Handle locked 2 times at stop\n"),
        "{detail}"
    );
    assert!(detail.contains("Allocated by:"), "{detail}");
}

/// A leak record of format version 4 (82 bytes, its allocation's ticks at offset
/// 16) keeps the tick on its allocation line; version 5's reads none.
#[test]
fn a_version_4_leak_shows_its_allocation_tick() {
    let mut m = with_ledger(|r| {
        let at = r
            .iter()
            .position(|x| x.data.first() == Some(&kind::HANDLE))
            .unwrap();
        let mut leak = r.remove(at);
        assert_eq!(leak.data[1], FORMAT_VERSION);
        leak.data.truncate(record::ALLOC_RECORD_SIZE_V4);
        leak.data[1] = 4;
        leak.data[16..20].copy_from_slice(&4321u32.to_be_bytes());
        r.truncate(1);
        r.push(leak);
    });
    let script = format!(
        "tap {} 0\ntap {}\n",
        vid("MainFindingsList"),
        vid("DetailDoneButton")
    );
    let drawn = run_viewer(&mut m, &script);
    let form = drawn.iter().position(|t| t == "Finding").unwrap();
    let detail = &drawn[form + 1];
    let second = detail.lines().nth(2).unwrap_or_default();
    assert!(
        second.starts_with("allocation #") && second.ends_with(", tick 4321"),
        "{detail}"
    );
}

/// Runs the viewer on `m`'s ledger, taps row 1 of its findings list, then the
/// detail form's Done button: the texts drawn.
fn open_finding_1(m: &mut Machine) -> Vec<String> {
    let script = format!(
        "tap {} 1\ntap {}\n",
        vid("MainFindingsList"),
        vid("DetailDoneButton")
    );
    run_viewer(m, &script)
}
