//! Benchmarks and run statistics: emulated instructions per second on a
//! CPU-bound loop and on an app, and the `--stats-json` document.

use std::time::Instant;

use palm_prc::{Database, FourCC, Header, Resource, app};
use serde_json::{Value, json};

use crate::{Config, Machine, Outcome};

/// A measured run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BenchResult {
    /// 68k instructions executed.
    pub instructions: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl BenchResult {
    /// Instructions per second.
    pub fn per_second(&self) -> f64 {
        self.instructions as f64 / self.seconds.max(1e-9)
    }
}

/// A PRC whose code 1 is a register-only loop of `iterations` × 4
/// instructions (`add.l d1,d0; eor.l d1,d2; subq.l #1,d1; bne.s`), then `rts`.
pub fn loop_prc(iterations: u32) -> Vec<u8> {
    let mut code = vec![0x22, 0x3C];
    code.extend_from_slice(&iterations.to_be_bytes()); // move.l #n,d1
    code.extend_from_slice(&[
        0xD0, 0x81, // add.l d1,d0
        0xB3, 0x82, // eor.l d1,d2
        0x53, 0x81, // subq.l #1,d1
        0x66, 0xF8, // bne.s loop
        0x4E, 0x75, // rts
    ]);
    let header = Header::new("BenchLoop", app::APPL, FourCC::new(*b"PRbl"));
    let db = Database::new_resources(
        header,
        vec![
            Resource {
                kind: FourCC::new(*b"code"),
                id: 0,
                data: app::code0(0x28, 0),
            },
            Resource {
                kind: FourCC::new(*b"code"),
                id: 1,
                data: code,
            },
            Resource {
                kind: FourCC::new(*b"data"),
                id: 0,
                data: app::data0_no_globals(),
            },
        ],
    );
    db.to_bytes().unwrap_or_default()
}

/// Run the loop PRC with `iterations` and time it.
pub fn cpu_loop(iterations: u32) -> Result<BenchResult, String> {
    run(&loop_prc(iterations), b"BenchLoop", None, &[])
}

/// Run an app (with an optional event script and features registered
/// before launch as (creator, number, value)) and time it.
pub fn app(
    prc: &[u8],
    script: Option<&str>,
    features: &[(u32, u16, u32)],
) -> Result<BenchResult, String> {
    let db = Database::parse(prc).map_err(|e| e.to_string())?;
    run(prc, &db.header.name, script, features)
}

fn run(
    prc: &[u8],
    name: &[u8],
    script: Option<&str>,
    features: &[(u32, u16, u32)],
) -> Result<BenchResult, String> {
    let mut m = Machine::with_config(&Config::default()).map_err(|e| e.to_string())?;
    m.install(prc)?;
    if let Some(s) = script {
        m.set_events(crate::script::parse(s)?);
    }
    for &(c, n, v) in features {
        m.os.ftr.features.insert((c, n), v);
    }
    let t = Instant::now();
    let out = m.launch(name)?;
    let seconds = t.elapsed().as_secs_f64();
    if let Some(s) = out.stop {
        return Err(s.kind.to_string());
    }
    Ok(BenchResult {
        instructions: m.stats.instructions,
        seconds,
    })
}

/// The `--stats-json` document: instruction counts (total, in app code =
/// everything outside ROM, in ROM), OS calls per trap (dispatches and native
/// handler runs), ticks, the result, the stop reason, leaks, patches left and
/// the number of scripted events not played (`events_not_played`).
pub fn stats_json(m: &Machine, out: &Outcome) -> Value {
    let name = |t: u16| {
        crate::table::trap_info(t).map_or_else(|| format!("0x{t:04X}"), |i| i.name.to_string())
    };
    let mut traps = serde_json::Map::new();
    for (&t, &n) in &m.stats.trap_calls {
        traps.insert(name(t), json!({"trap": format!("0x{t:04X}"), "calls": n, "native": m.stats.native_calls.get(&t).copied().unwrap_or(0)}));
    }
    for (&t, &n) in &m.stats.native_calls {
        traps
            .entry(name(t))
            .or_insert_with(|| json!({"trap": format!("0x{t:04X}"), "calls": 0, "native": n}));
    }
    json!({
        "instructions": {
            "total": m.stats.instructions,
            "app": m.stats.instructions - m.stats.rom_instructions,
            "rom": m.stats.rom_instructions,
        },
        "ticks": m.ticks(),
        "traps": traps,
        "result": out.result,
        "stop": out.stop.as_ref().map(|s| s.kind.to_string()),
        "leaks": out.leaks.iter().map(|l| json!({
            "address": format!("0x{:08X}", l.address),
            "size": l.size,
            "kind": if l.handle.is_some() { "handle" } else { "pointer" },
            "allocated_by": l.allocated_by.iter().map(|&a| m.describe(a)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "patches_left": out.patches_left.iter().map(|p| format!("0x{:04X}", p.trap)).collect::<Vec<_>>(),
        "events_not_played": out.events_not_played,
    })
}
