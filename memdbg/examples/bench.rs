//! memdbg's benchmark (issue 4 item 10): the cost of one tracked alloc+free pair,
//! measured exactly in palm-run.
//!
//! ```text
//! cargo run --release -p memdbg --example bench
//! ```
//!
//! Builds `tests/app` with palm-build and runs its benchmark scenario (100: 16-byte
//! `mem_ptr_new!` + `MemPtrFree`; 101: 16-byte `mem_handle_new!` + `MemHandleFree`;
//! 102: as 101 with a `MemHandleLock` + `MemHandleUnlock` between, the unlock
//! through memdbg's patch: its row minus 101's is the unlock check's cost)
//! with 10, 100, 1,000 and 5,000 blocks kept live, each twice: with `WARM` pairs and
//! with `WARM + PAIRS` pairs. palm-run counts, per 68k address range, the
//! instructions executed and the OS calls made (trap dispatches and JSRs into the
//! OS); the difference between the two runs divided by `PAIRS` is the cost of one
//! pair in the steady state, without the setup: the `WARM` pairs of both runs fill
//! the ring of recent frees (16 entries), and until it is full each allocation takes
//! a new ledger record (`DmNewRecord`) instead of a slot the ring gave back.
//! Ranges come from the ELF's symbols: memdbg's functions (`memdbg::…`, `<memdbg::…>`,
//! `__memdbg_…` for its assembly, `memdbg_…` for its C interface)
//! and the runtime helpers they call (`memcpy`, `memset`, `__mulsi3`, …), the app's.
//! It also builds StarterApp and prints memdbg's code there (issue 13's budget:
//! ≤ 8,192 bytes). Code sizes leave out the MacsBug names palm-build puts in and
//! after each function (data, not code; printed apart).
//! Default settings (guards, call stacks, heap statistics, trap patches; the
//! capacity, 512, raised to the live blocks + 32 at 1,000 and 5,000 live).
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
/// Pairs run before the measured ones in both runs: twice the ring of recent frees.
const WARM: u32 = 32;
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
    let names = macsbug_names(&std::fs::read(&app.elf).unwrap());
    let (code_bytes, name_bytes) = names.sizes(&memdbg);
    let helper_bytes = names.sizes(&helpers).0;
    // The C interface (its `memdbg_…` exports and `memdbg::capi`) is linked only
    // into C apps; the rest is what a Rust app calling every wrapper carries.
    let capi_bytes = names
        .sizes(&ranges_where(&|n| {
            is_memdbg(n) && (n.starts_with("memdbg_") || n.starts_with("memdbg::capi::"))
        }))
        .0;
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
    println!(
        "  + {name_bytes} bytes of MacsBug names of memdbg's functions (data, not code; \
         {} bytes of names in code 1 in all)",
        names.total()
    );
    // The budget's app: StarterApp, which uses what a typical app does.
    let starter = common::build_app("../starter-app/Cargo.toml");
    let starter_elf = std::fs::read(&starter.elf).unwrap();
    let starter_syms = Symbols::from_elf(&starter_elf).unwrap();
    let starter_memdbg: Vec<(u32, u32)> = starter_syms
        .iter()
        .filter(|s| s.1 > 0 && is_memdbg(&s.2))
        .map(|s| (s.0, s.0 + s.1))
        .collect();
    let starter_names = macsbug_names(&starter_elf);
    let (starter_code, starter_name_bytes) = starter_names.sizes(&starter_memdbg);
    println!(
        "memdbg code in StarterApp: {starter_code} bytes in {} functions (+ {starter_name_bytes} \
         bytes of their MacsBug names; code 1 is {} bytes, {} of them names)",
        starter_memdbg.len(),
        starter.image.code.len(),
        starter_names.total()
    );
    println!();
    println!(
        "{:<11} {:<10} {:>6} | {:>13} {:>9} {:>13} | {:>11} {:>11}",
        "pair", "path", "live", "memdbg instr", "+helpers", "memdbg OS", "app OS", "all instr"
    );
    let kinds: &[(u32, &str)] = if std::env::var_os("MEMDBG_BENCH_DETAIL").is_some() {
        &[]
    } else {
        &[(100, "pointer"), (101, "handle"), (102, "lock+unlock")]
    };
    for &(scenario, label) in kinds {
        for (documented, path) in [(false, "3.x"), (true, "documented")] {
            for live in LIVE {
                let ranges = [&memdbg[..], &helpers, &appr];
                let base = run(&prc, scenario, live, WARM, documented, ranges);
                let with = run(&prc, scenario, live, WARM + PAIRS, documented, ranges);
                let per = |a: u64, b: u64| (b - a) as f64 / f64::from(PAIRS);
                println!(
                    "{:<11} {:<10} {:>6} | {:>13.1} {:>9.1} {:>13.2} | {:>11.2} {:>11.1}",
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
        // Where a pair's instructions go, by memdbg function.
        let names: Vec<&str> = syms
            .iter()
            .filter(|s| s.1 > 0 && is_memdbg(&s.2))
            .map(|s| s.2.as_str())
            .collect();
        // `MEMDBG_BENCH_DETAIL=handle:1000`: a handle pair at 1,000 live (default:
        // `pointer:10`), on the 3.x path; `handle:10:documented` on the
        // documented-calls path.
        let detail = std::env::var("MEMDBG_BENCH_DETAIL").unwrap_or_default();
        let mut parts = detail.split(':');
        let scenario = if parts.next() == Some("handle") {
            101
        } else {
            100
        };
        let live: u32 = parts.next().and_then(|l| l.parse().ok()).unwrap_or(10);
        let documented = parts.next() == Some("documented");
        let ranges = [&memdbg[..], &helpers, &appr];
        let base = run(&prc, scenario, live, WARM, documented, ranges);
        let with = run(&prc, scenario, live, WARM + PAIRS, documented, ranges);
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
         OS calls made from memdbg per pair (FtrGet, MemHeapFreeBytes, DmWrite, \
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

/// Where the MacsBug names are in code 1: the data symbols palm-build marks
/// them with (`SYM.macsbug`, `SYM.macsbug.K`), as (ELF address, bytes).
struct Names(Vec<(u32, u32)>);

/// The MacsBug names of the ELF `elf`.
fn macsbug_names(elf: &[u8]) -> Names {
    use object::{Object, ObjectSymbol, SymbolKind};
    let file = object::File::parse(elf).unwrap();
    Names(
        file.symbols()
            .filter(|s| {
                s.kind() == SymbolKind::Data && s.name().is_ok_and(palm_build::macsbug::is_marker)
            })
            .map(|s| (s.address() as u32, s.size() as u32))
            .collect(),
    )
}

impl Names {
    /// The code bytes of the functions `ranges` (`[start, end)` each: their
    /// symbol sizes without the names inside them) and the bytes of their
    /// names.
    fn sizes(&self, ranges: &[(u32, u32)]) -> (u32, u32) {
        ranges.iter().fold((0, 0), |(code, names), &(s, e)| {
            (code + e - s - self.inside(s, e), names + self.of(s, e))
        })
    }

    /// Bytes of names inside the function `[start, end)` (after its early
    /// returns).
    fn inside(&self, start: u32, end: u32) -> u32 {
        self.0
            .iter()
            .filter(|n| (start..end).contains(&n.0))
            .map(|n| n.1)
            .sum()
    }

    /// Bytes of the function `[start, end)`'s names: inside it and the one
    /// right after it.
    fn of(&self, start: u32, end: u32) -> u32 {
        self.inside(start, end)
            + self
                .0
                .iter()
                .filter(|n| n.0 == end)
                .map(|n| n.1)
                .sum::<u32>()
    }

    /// Bytes of every name.
    fn total(&self) -> u32 {
        self.0.iter().map(|n| n.1).sum()
    }
}
