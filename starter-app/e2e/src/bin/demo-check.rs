//! `demo-check MemDbgDB.pdb StarterApp.elf`: checks that the ledger of the
//! starter app's demo run shows exactly the intended problems (see
//! `starter_app_e2e::expected`). Exit status 0 when it does, 1 when it does
//! not (each difference printed), 2 for unreadable input. Used by `ci/demo`.

use std::path::Path;
use std::process::ExitCode;

use memdbg_report::{ElfSymbols, Options, analyze, read_ledger};
use starter_app_e2e::expected;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [pdb, elf] = args.as_slice() else {
        eprintln!("usage: demo-check MemDbgDB.pdb StarterApp.elf");
        return ExitCode::from(2);
    };
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src/scenarios.rs");
    let loaded = read_ledger(Path::new(pdb))
        .map_err(|e| e.to_string())
        .and_then(|ledger| {
            let symbols = ElfSymbols::load(Path::new(elf)).map_err(|e| e.to_string())?;
            symbols.check(&ledger).map_err(|e| e.to_string())?;
            let source = std::fs::read_to_string(&scenarios)
                .map_err(|e| format!("{}: {e}", scenarios.display()))?;
            Ok((ledger, symbols, source))
        });
    let (ledger, symbols, source) = match loaded {
        Ok(x) => x,
        Err(e) => {
            eprintln!("demo-check: {e}");
            return ExitCode::from(2);
        }
    };
    let mut opts = Options::default();
    opts.symbolizer = Some(&symbols);
    let report = analyze(&ledger, &opts);
    match expected::check(&report, &source) {
        Ok(met) => {
            println!("demo-check: the report shows exactly the intended problems:");
            for m in met {
                println!("  ✓ {m}");
            }
            ExitCode::SUCCESS
        }
        Err(unmet) => {
            eprintln!("demo-check: the report differs from the intended demo run:");
            for u in unmet {
                eprintln!("  ✗ {u}");
            }
            ExitCode::from(1)
        }
    }
}
