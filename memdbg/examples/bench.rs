//! memdbg's benchmark (issue 4 item 10): the cost of one tracked alloc+free pair,
//! measured exactly in palm-run.
//!
//! ```text
//! cargo run --release -p memdbg --example bench
//! ```
//!
//! Builds `tests/app` with palm-build and runs its benchmark scenario (100: 16-byte
//! `mem_ptr_new!` + `MemPtrFree`; 101: 16-byte `mem_handle_new!` + `MemHandleFree`)
//! with 10, 100, 1,000 and 5,000 blocks kept live, each twice: with 0 pairs and with
//! `PAIRS` pairs. palm-run counts, per 68k address range, the instructions executed
//! and the OS calls made (trap dispatches and JSRs into the OS); the difference
//! between the two runs divided by `PAIRS` is the cost of one pair, without the setup.
//! Ranges come from the ELF's symbols: memdbg's functions (`memdbg::…`, `<memdbg::…>`,
//! `__memdbg_…` for its assembly, `memdbg_…` for its C interface)
//! and the runtime helpers they call (`memcpy`, `memset`, `__mulsi3`, …), the app's.
//! Default settings (guards, call stacks, heap statistics, trap patches).
//!
//! Each pair is measured on both of memdbg's paths: "3.x", the normal one (the
//! start's probe found the Palm OS 3.x internals: a handle's chunk through its
//! master pointer), and "documented" (palm-run's `--opaque-handles`: the probe
//! fails, and a handle's chunk is reached with `MemHandleLock`/`MemHandleUnlock`;
//! a pointer's path is the same on both).

use palm_run::symbols::Symbols;
use palm_run::{Config, Machine};

#[path = "../tests/common/mod.rs"]
mod common;

const CREATOR: u32 = u32::from_be_bytes(*b"MDtA");
const PAIRS: u32 = 1000;
const LIVE: [u32; 4] = [10, 100, 1_000, 5_000];
const HELPERS: [&str; 7] = [
    "memcpy",
    "memmove",
    "memset",
    "__mulsi3",
    "__udivsi3",
    "__umodsi3",
    "abort",
];

/// Per-range counts of one run.
struct Counts {
    /// Instructions per memdbg function.
    per_function: Vec<u64>,
    memdbg: (u64, u64),
    helpers: (u64, u64),
    app: (u64, u64),
    total_instructions: u64,
}

fn main() {
    let app = common::build_test_app();
    let prc = std::fs::read(&app.prc).unwrap();
    let syms = Symbols::from_elf(&std::fs::read(&app.elf).unwrap()).unwrap();

    // memdbg's Rust functions, its assembly and Rust functions the assembly calls
    // (`__memdbg_…`), and its C interface's exports (`memdbg_ptr_new`, …).
    let is_memdbg = |n: &str| {
        (n.starts_with("memdbg::")
            || n.starts_with("<memdbg::")
            || n.starts_with("memdbg_")
            || n.starts_with("__memdbg_"))
            && !n.contains("test_app")
    };
    let ranges_where = |f: &dyn Fn(&str) -> bool| -> Vec<(u32, u32)> {
        syms.iter()
            .filter(|s| s.1 > 0 && f(&s.2))
            .map(|s| (s.0, s.0 + s.1))
            .collect()
    };
    let memdbg = ranges_where(&|n| is_memdbg(n));
    let helpers = ranges_where(&|n| HELPERS.contains(&n));
    let appr = ranges_where(&|n| n.starts_with("memdbg_test_app::"));
    let bytes = |r: &[(u32, u32)]| -> u32 { r.iter().map(|r| r.1 - r.0).sum() };
    let code_bytes = bytes(&memdbg);
    let helper_bytes = bytes(&helpers);
    // The C interface (its `memdbg_…` exports and `memdbg::capi`) is linked only
    // into C apps; the rest is what a Rust app calling every wrapper carries.
    let capi_bytes = bytes(&ranges_where(&|n| {
        is_memdbg(n) && (n.starts_with("memdbg_") || n.starts_with("memdbg::capi::"))
    }));
    println!(
        "memdbg code in code 1: {code_bytes} bytes in {} functions \
         (+ {helper_bytes} bytes of shared runtime helpers; code 1 is {} bytes)",
        memdbg.len(),
        app.image.code.len()
    );
    println!(
        "  of which the C interface: {capi_bytes} bytes; without it (a Rust app \
         using every wrapper): {} bytes",
        code_bytes - capi_bytes
    );
    println!();
    println!(
        "{:<8} {:<10} {:>6} | {:>13} {:>9} {:>13} | {:>11} {:>11}",
        "pair", "path", "live", "memdbg instr", "+helpers", "memdbg OS", "app OS", "all instr"
    );
    let kinds: &[(u32, &str)] = if std::env::var_os("MEMDBG_BENCH_DETAIL").is_some() {
        &[]
    } else {
        &[(100, "pointer"), (101, "handle")]
    };
    for &(scenario, label) in kinds {
        for (documented, path) in [(false, "3.x"), (true, "documented")] {
            for live in LIVE {
                let ranges = [&memdbg[..], &helpers, &appr];
                let base = run(&prc, scenario, live, 0, documented, ranges);
                let with = run(&prc, scenario, live, PAIRS, documented, ranges);
                let per = |a: u64, b: u64| (b - a) as f64 / f64::from(PAIRS);
                println!(
                    "{:<8} {:<10} {:>6} | {:>13.1} {:>9.1} {:>13.2} | {:>11.2} {:>11.1}",
                    label,
                    path,
                    live,
                    per(base.memdbg.0, with.memdbg.0),
                    per(base.helpers.0, with.helpers.0),
                    per(base.memdbg.1, with.memdbg.1) + per(base.helpers.1, with.helpers.1),
                    per(base.app.1, with.app.1),
                    per(base.total_instructions, with.total_instructions),
                );
            }
        }
    }
    if std::env::var_os("MEMDBG_BENCH_DETAIL").is_some() {
        // Where a pointer pair's instructions go, by memdbg function.
        let names: Vec<&str> = syms
            .iter()
            .filter(|s| s.1 > 0 && is_memdbg(&s.2))
            .map(|s| s.2.as_str())
            .collect();
        let ranges = [&memdbg[..], &helpers, &appr];
        let base = run(&prc, 100, 10, 0, false, ranges);
        let with = run(&prc, 100, 10, PAIRS, false, ranges);
        let mut rows: Vec<(f64, &str)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let d = with.per_function[i] - base.per_function[i];
                (d as f64 / f64::from(PAIRS), *n)
            })
            .filter(|r| r.0 > 0.0)
            .collect();
        rows.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!();
        for (n, name) in rows {
            println!("{n:>8.1}  {name}");
        }
    }
    println!();
    println!(
        "memdbg instr: 68k instructions executed in memdbg's functions per pair (the trap \
         glue is inlined there); +helpers: in memcpy/memset/… called meanwhile; memdbg OS: \
         OS calls made from memdbg per pair (FtrGet, TimGetTicks, MemHeapFreeBytes, DmWrite, \
         DmSet, the allocation, the chained original free, …); app OS: the app's own calls \
         (its free trap); all instr: every 68k instruction executed per pair (app, memdbg, \
         ROM stubs; native OS work is not 68k code)."
    );
}

/// One run of `scenario` with `live` blocks and `pairs` pairs, counted in the
/// `[memdbg, helpers, app]` address ranges (ELF addresses); `documented`: with
/// handles that are not master pointers (memdbg's documented path).
fn run(
    prc: &[u8],
    scenario: u32,
    live: u32,
    pairs: u32,
    documented: bool,
    [memdbg, helpers, app]: [&[(u32, u32)]; 3],
) -> Counts {
    let mut m = Machine::with_config(&Config {
        ram_size: 8 * 1024 * 1024,
        dynamic_heap_size: 1024 * 1024,
        max_instructions: 4_000_000_000,
    })
    .unwrap();
    m.opaque_handles = documented;
    m.install(prc).unwrap();
    for (n, v) in [(0u16, scenario), (2, live), (3, pairs)] {
        m.os.ftr.features.insert((CREATOR, n), v);
    }
    // Code 1's base is known only at launch; the app's database is laid out the same
    // way every time, so a first launch tells it (its counts are not used).
    let base = probe_base(prc);
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for set in [memdbg, helpers, app] {
        ranges.extend(set.iter().map(|&(s, e)| (s + base, e + base)));
    }
    m.start_profile(&ranges);
    let out = m.launch("MemDbgTest").unwrap();
    assert!(
        out.stop.is_none() && out.result == Some(0),
        "benchmark run failed: {:?} {:?}\n{}",
        out.stop,
        out.result,
        m.output.join("\n")
    );
    assert_eq!(
        m.os.sys.code1_base,
        Some(base),
        "code 1 moved between launches"
    );
    // The path measured is the one asked for: the ledger's header says which.
    let db = palm_prc::Database::parse(&m.export("MemDbgDB").unwrap()).unwrap();
    let palm_prc::Content::Records(recs) = &db.content else {
        panic!("MemDbgDB is a resource database")
    };
    let header = memdbg::record::Header::decode(&recs[0].data).unwrap();
    assert_eq!(
        header
            .header_flags()
            .contains(memdbg::record::HeaderFlags::DOCUMENTED_CALLS),
        documented,
        "memdbg's path"
    );
    let p = m.take_profile().unwrap();
    let sum = |from: usize, n: usize| -> (u64, u64) {
        (
            p.instructions[from..from + n].iter().sum(),
            p.os_calls[from..from + n].iter().sum(),
        )
    };
    Counts {
        per_function: p.instructions[..memdbg.len()].to_vec(),
        memdbg: sum(0, memdbg.len()),
        helpers: sum(memdbg.len(), helpers.len()),
        app: sum(memdbg.len() + helpers.len(), app.len()),
        total_instructions: m.stats.instructions,
    }
}

/// Code 1's 68k address in a fresh machine (scenario 0 returns at once).
fn probe_base(prc: &[u8]) -> u32 {
    let mut m = Machine::with_config(&Config {
        ram_size: 8 * 1024 * 1024,
        dynamic_heap_size: 1024 * 1024,
        max_instructions: 1_000_000,
    })
    .unwrap();
    m.install(prc).unwrap();
    m.launch("MemDbgTest").unwrap();
    m.os.sys.code1_base.unwrap()
}
