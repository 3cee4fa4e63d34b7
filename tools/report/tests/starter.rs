//! The report of the starter app's ledger (issue 6's "Done when"): the app is
//! built for the 68000 by palm-build, run in palm-run with its event script
//! (`starter-app/events.txt`: every scenario button once, then Exit), and the
//! MemDbgDB it leaves is reported with its ELF.
//!
//! Golden text and JSON (`tests/data/starter.txt`, `starter.json`;
//! `MEMDBG_BLESS=1` rewrites them after an intended change of the app or the
//! report). The app links memdbg, and both are still changing, so what depends
//! on code and heap layout or on the app's line numbering rather than on the
//! report is masked in both: 68k addresses and code offsets (`0x########`),
//! code 1's size, the heap's low-water marks, tick counts, and line numbers in
//! the app's sources: a line with a `// @mark NAME` comment in
//! `starter-app/src/scenarios.rs` (every scenario's allocation and free) shows
//! as `:@NAME`, any other as `:#`. Everything else (kinds, sizes, functions,
//! files, which mark, counters, flags, the summary) is compared exactly, and the
//! leak set is checked against the marks' actual line numbers too.

mod common;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use common::golden;
use memdbg_report::{ElfSymbols, Format, Ledger, Options, StackFrame, analyze, print};
use palm_run::{Config, Machine};

const SCENARIOS: &str = "starter-app/src/scenarios.rs";

struct Run {
    /// The exported MemDbgDB.
    ledger: Vec<u8>,
    /// The app's ELF.
    elf: Vec<u8>,
    /// `@mark` name → line in SCENARIOS.
    marks: HashMap<String, u32>,
    /// What palm-run printed (alerts, DbgMessage lines).
    output: Vec<String>,
}

fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let target_dir = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("target"));
        let built = palm_build::build_app(&palm_build::Options {
            manifest_path: root.join("starter-app/Cargo.toml"),
            target_dir: Some(target_dir),
            kind: palm_build::ImageKind::App,
            features: Vec::new(),
            quiet: true,
            raw_llvm: false,
            macsbug_names: true,
        })
        .unwrap_or_else(|e| panic!("building the starter app failed: {e:#}"));
        let script = std::fs::read_to_string(root.join("starter-app/events.txt")).unwrap();
        let mut m = Machine::with_config(&Config::default()).unwrap();
        m.install(&std::fs::read(&built.prc).unwrap()).unwrap();
        m.set_events(palm_run::script::parse(&script).unwrap());
        let out = m.launch("StarterApp").unwrap();
        assert_eq!(out.stop, None, "the starter app stopped");
        let source = std::fs::read_to_string(root.join(SCENARIOS)).unwrap();
        let marks = source
            .lines()
            .enumerate()
            .filter_map(|(i, l)| {
                let name = l.split("// @mark ").nth(1)?.split_whitespace().next()?;
                Some((name.to_string(), i as u32 + 1))
            })
            .collect();
        Run {
            ledger: m.export("MemDbgDB").unwrap(),
            elf: std::fs::read(&built.elf).unwrap(),
            marks,
            output: m.output.clone(),
        }
    })
}

fn mark(name: &str) -> u32 {
    *run()
        .marks
        .get(name)
        .unwrap_or_else(|| panic!("no `@mark {name}` in {SCENARIOS}"))
}

/// The ledger and the ELF under the names the golden files show.
fn inputs() -> (Ledger, ElfSymbols) {
    let ledger = Ledger::from_pdb(&run().ledger, "MemDbgDB.pdb").unwrap();
    let elf = ElfSymbols::from_bytes(&run().elf, "StarterApp.elf").unwrap();
    elf.check(&ledger).unwrap();
    (ledger, elf)
}

fn render(format: Format) -> (String, u8) {
    let (ledger, elf) = inputs();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    opts.format = format;
    let mut out = Vec::new();
    let summary = print(&mut out, &ledger, &opts).unwrap();
    (String::from_utf8(out).unwrap(), summary.exit_status)
}

/// Every `0x` + 8 hex digits in `text` masked.
fn mask_hex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("0x") {
        out.push_str(&rest[..i + 2]);
        rest = &rest[i + 2..];
        if rest
            .get(..8)
            .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            out.push_str("########");
            rest = &rest[8..];
        }
    }
    out + rest
}

/// Every number (digits and thousands commas) in `text` masked, `0x` kept.
fn mask_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '0' && chars.peek() == Some(&'x') {
            out.push(c);
        } else if c.is_ascii_digit() {
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == ',')
            {
                chars.next();
            }
            out.push('#');
        } else {
            out.push(c);
        }
    }
    out
}

/// `starter-app/…:LINE` → `starter-app/…:@MARK` (or `:#`) in `text`.
fn mask_app_lines(text: &str) -> String {
    let by_line: HashMap<u32, &str> = run()
        .marks
        .iter()
        .map(|(name, &line)| (line, name.as_str()))
        .collect();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("starter-app/") {
        let end = rest[i..]
            .find(|c: char| c.is_whitespace() || c == '"' || c == ')')
            .map_or(rest.len(), |n| i + n);
        let path = &rest[i..end];
        match path.rsplit_once(':') {
            Some((file, line)) if line.parse::<u32>().is_ok() => {
                out.push_str(&rest[..i]);
                out.push_str(file);
                let mark = line.parse().ok().and_then(|l: u32| by_line.get(&l));
                match mark {
                    Some(name) if file == SCENARIOS => out.push_str(&format!(":@{name}")),
                    _ => out.push_str(":#"),
                }
            }
            _ => out.push_str(&rest[..end]),
        }
        rest = &rest[end..];
    }
    out + rest
}

/// The text report with the layout-dependent values masked: addresses and
/// offsets, code 1's size and CRC-32, ticks, the heap's low-water marks, the
/// app's lines.
fn mask(text: &str) -> String {
    const VOLATILE: [&str; 4] = [
        "Code 1 ",
        "Run ",
        "  Low-water free bytes ",
        "  Low-water largest chunk ",
    ];
    let mut out = String::with_capacity(text.len());
    for line in mask_hex(&mask_app_lines(text)).split_inclusive('\n') {
        if let Some(p) = VOLATILE.iter().find(|p| line.starts_with(*p)) {
            out.push_str(p);
            // The name "CRC-32" stays; its value is masked with the rest.
            let masked: Vec<String> = line[p.len()..].split("CRC-32").map(mask_numbers).collect();
            out.push_str(&masked.join("CRC-32"));
        } else if line.contains("tick ") {
            // Only the numbers after "tick " ("(tick N)", "from tick N"): guard
            // bytes follow on the line.
            let mut rest = line;
            while let Some(i) = rest.find("tick ") {
                let (head, tail) = rest.split_at(i + "tick ".len());
                let n = tail
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(tail.len());
                out.push_str(head);
                if n > 0 {
                    out.push('#');
                }
                rest = &tail[n..];
            }
            out.push_str(rest);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// The JSON report with the layout-dependent fields masked (as [`mask`]).
fn mask_json(v: &mut serde_json::Value) {
    const MASKED: &[&str] = &[
        "address",
        "code_base",
        "code_crc",
        "code_size",
        "low_free",
        "low_largest_free",
        "ticks",
        "start_ticks",
        "stop_ticks",
    ];
    match v {
        serde_json::Value::Object(map) => {
            // A "line" of the app's sources, as the text shows it.
            if let (Some(serde_json::Value::String(file)), Some(line)) =
                (map.get("file"), map.get("line").and_then(|l| l.as_u64()))
                && file.starts_with("starter-app/")
            {
                let masked = mask_app_lines(&format!("{file}:{line}"));
                let tail = masked.rsplit_once(':').map_or("#", |(_, t)| t).to_string();
                map.insert("line".into(), serde_json::Value::String(tail));
            }
            for (k, v) in map.iter_mut() {
                if MASKED.contains(&k.as_str()) && v.is_number() {
                    *v = serde_json::Value::String("#".into());
                } else {
                    mask_json(v);
                }
            }
        }
        serde_json::Value::String(text) => *text = mask_app_lines(text),
        serde_json::Value::Array(items) => items.iter_mut().for_each(mask_json),
        _ => {}
    }
}

#[test]
fn golden_text() {
    let (text, status) = render(Format::Text);
    golden("starter.txt", &mask(&text));
    assert_eq!(status, 1);
}

#[test]
fn golden_json() {
    let (json, status) = render(Format::Json);
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    mask_json(&mut v);
    golden(
        "starter.json",
        &(serde_json::to_string_pretty(&v).unwrap() + "\n"),
    );
    assert_eq!(status, 1);
}

#[test]
fn masking() {
    assert_eq!(
        mask(
            "Code 1    17,943 bytes, at 0x000413AE\nRun       ticks 0 to 40 (40 ticks)\n\
             up to 6 frames at 0x0000ABCD, 0x12, 0xZZZZZZZZ (tick 20): 00 FD\n"
        ),
        "Code 1    # bytes, at 0x########\nRun       ticks # to # (# ticks)\n\
         up to 6 frames at 0x########, 0x12, 0xZZZZZZZZ (tick #): 00 FD\n"
    );
    let mut v = serde_json::json!({"address": 5, "x": [{"ticks": 3, "address": "a"}], "size": 4});
    mask_json(&mut v);
    assert_eq!(
        v,
        serde_json::json!({"address": "#", "x": [{"ticks": "#", "address": "a"}], "size": 4})
    );
    let box_line = mark("leak-box");
    assert_eq!(
        mask_app_lines(&format!(
            "at {SCENARIOS}:{box_line} (inlined) starter-app/src/lib.rs:12\n\
             \"{SCENARIOS}:{box_line}\" starter-app/x.rs library/a.rs:3"
        )),
        format!(
            "at {SCENARIOS}:@leak-box (inlined) starter-app/src/lib.rs:#\n\
             \"{SCENARIOS}:@leak-box\" starter-app/x.rs library/a.rs:3"
        )
    );
    let mut v = serde_json::json!({"file": SCENARIOS, "line": box_line, "site": format!("f at {SCENARIOS}:{box_line}")});
    mask_json(&mut v);
    assert_eq!(
        v,
        serde_json::json!({"file": SCENARIOS, "line": "@leak-box", "site": format!("f at {SCENARIOS}:@leak-box")})
    );
}

fn has(stack: &[StackFrame], function: &str, line: u32) -> bool {
    stack.iter().flat_map(|f| f.symbols.iter()).any(|s| {
        s.function == function && s.file.as_deref() == Some(SCENARIOS) && s.line == Some(line)
    })
}

#[test]
fn exactly_the_intended_leaks_with_their_scenarios() {
    let (ledger, elf) = inputs();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    let r = analyze(&ledger, &opts);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.header.app_name, "StarterApp");
    assert_eq!(r.header.flags, []);
    // The pointer, the handle and the Box, then Lock handle's handle and Loop
    // leak's five; nothing from the field handle, the resizes, the
    // fragmentation, the correct path or Lock handle's balanced handle.
    let leaks = common::leak_sites(&r);
    let looped = ("pointer", 20, Some(SCENARIOS), Some(mark("loop-leak")));
    assert_eq!(
        leaks,
        [
            ("pointer", 16, Some(SCENARIOS), Some(mark("leak-pointer"))),
            ("handle", 32, Some(SCENARIOS), Some(mark("leak-handle"))),
            ("Rust alloc", 24, None, None),
            ("handle", 16, Some(SCENARIOS), Some(mark("lock-handle"))),
            looped,
            looped,
            looped,
            looped,
            looped,
        ]
    );
    // Loop leak's pass N in generation N, each after its checkpoint; Lock
    // handle's before the first one.
    let generations: Vec<u8> = r.leaks.iter().map(|l| l.block.generation).collect();
    assert_eq!(generations, [0, 0, 0, 0, 1, 2, 3, 4, 5]);
    let per_checkpoint: Vec<(u8, Vec<usize>)> = r
        .checkpoints
        .iter()
        .map(|c| (c.generation, c.leaks.clone()))
        .collect();
    assert_eq!(
        per_checkpoint,
        [
            (1, vec![5]),
            (2, vec![6]),
            (3, vec![7]),
            (4, vec![8]),
            (5, vec![9])
        ]
    );
    for l in &r.leaks[4..9] {
        assert!(has(
            &l.block.stack,
            "starter_app::scenarios::loop_leak",
            mark("loop-leak")
        ));
    }
    let stacks = [
        ("starter_app::scenarios::leak_pointer", "leak-pointer"),
        ("starter_app::scenarios::leak_handle", "leak-handle"),
        ("starter_app::scenarios::leak_box", "leak-box"),
    ];
    for (leak, (function, m)) in r.leaks.iter().zip(stacks) {
        assert!(has(&leak.block.stack, function, mark(m)), "{function}");
    }
    assert_eq!(
        r.leaks[2].block.site,
        format!(
            "starter_app::scenarios::leak_box at {SCENARIOS}:{}",
            mark("leak-box")
        )
    );
    // What each leak held at stop: leak_pointer's StrIToA(1234567),
    // leak_handle's text, the Box's zeros (palm-run's new chunks are zeros).
    let texts: Vec<(usize, &str)> = r
        .leaks
        .iter()
        .map(|l| {
            let c = l.contents.as_ref().unwrap();
            (c.count, c.text.as_str())
        })
        .collect();
    assert_eq!(
        texts,
        [
            (16, "1234567........."),
            (32, "a record that is never saved...."),
            (24, "........................"),
            (16, "still locked 2x."),
            (20, "...................."),
            (20, "...................."),
            (20, "...................."),
            (20, "...................."),
            (20, "...................."),
        ]
    );
    // Lock handle's handle, still locked twice: a finding of its own.
    let locked: Vec<(u8, u32, String)> = r
        .locked
        .iter()
        .map(|l| (l.lock_count, l.block.size, l.block.site.clone()))
        .collect();
    assert_eq!(
        locked,
        [(2, 16, format!("{SCENARIOS}:{}", mark("lock-handle")))]
    );
    assert!(has(
        &r.locked[0].block.stack,
        "starter_app::scenarios::lock_handle",
        mark("lock-handle")
    ));
    assert_eq!(r.locked[0].handle, r.leaks[3].block.address);
    assert_eq!(r.summary.locked, 1);
    assert_eq!(
        r.leaks[0].contents.as_ref().unwrap().hex,
        "31 32 33 34 35 36 37 00 00 00 00 00 00 00 00 00"
    );

    let o = &r.overruns[..];
    assert_eq!(o.len(), 1);
    assert_eq!(o[0].block.site, format!("{SCENARIOS}:{}", mark("overrun")));
    assert!(has(
        &o[0].found_by,
        "starter_app::scenarios::overrun",
        mark("overrun-free")
    ));

    let d = &r.double_frees[..];
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].block.site,
        format!("{SCENARIOS}:{}", mark("double-free"))
    );
    let f = "starter_app::scenarios::double_free";
    assert!(has(&d[0].first_free.stack, f, mark("double-free-first")));
    assert!(has(&d[0].second_free.stack, f, mark("double-free-second")));

    assert_eq!(
        r.summary.line,
        "SUMMARY: memdbg: 188 byte(s) leaked in 9 allocation(s); 1 overrun; 1 double free; \
         1 handle locked at stop; 1 unlock underflow."
    );
    // Lock handle's second unlock of its balanced handle.
    let u = &r.unlock_underflows[..];
    assert_eq!(u.len(), 1);
    assert_eq!(
        (u[0].trap, u[0].site.clone(), u[0].block.site.clone()),
        (
            "MemHandleUnlock",
            format!("{SCENARIOS}:{}", mark("unlock-underflow")),
            format!("{SCENARIOS}:{}", mark("lock-balanced"))
        )
    );
    assert!(has(
        &u[0].unlock.stack,
        "starter_app::scenarios::lock_handle",
        mark("unlock-underflow")
    ));
}

/// One numbering of leaks: each DbgMessage line memdbg prints at stop
/// ("memdbg: leak #N: SIZE bytes (KIND 0x…) at FILE:LINE") names the leak the
/// report lists as "Leak #N (…)", with that size, kind, file and line.
#[test]
fn the_report_numbers_leaks_as_memdbg_does_on_the_device() {
    let lines: Vec<&str> = run()
        .output
        .iter()
        .filter_map(|l| l.strip_prefix("DbgMessage: memdbg: leak #"))
        .collect();
    let (ledger, elf) = inputs();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    let report = analyze(&ledger, &opts);
    assert_eq!(lines.len(), report.leaks.len(), "{lines:?}");
    let (text, _) = render(Format::Text);
    for line in lines {
        let (n, rest) = line.split_once(": ").unwrap();
        let n: u32 = n.parse().unwrap();
        let size: u32 = rest.split(' ').next().unwrap().parse().unwrap();
        let at = rest.rsplit(" at ").next().unwrap();
        let leak = report
            .leaks
            .iter()
            .find(|l| l.block.seq == n)
            .unwrap_or_else(|| panic!("no leak #{n} in the report for `{line}`"));
        assert_eq!(leak.block.size, size, "{line}");
        assert!(
            rest.contains(&format!("({} 0x", leak.block.kind)),
            "{line}: {}",
            leak.block.kind
        );
        if let (Some(file), Some(l)) = (&leak.block.file, leak.block.line) {
            assert_eq!(at, format!("{file}:{l}"), "{line}");
        }
        assert!(
            text.contains(&format!("Leak #{n} ({} of ", leak.number)),
            "{line}"
        );
    }
}
