//! Fuzzes the whole path of `memdbg report`: any bytes (a .pdb or a backup .zip)
//! must read as a ledger or give an error, never panic; whatever reads must
//! report in both formats, with suppressions and a minimum size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memdbg_report::{Format, Options, Suppressions, ledger_from_bytes, print};

fuzz_target!(|data: &[u8]| {
    if let Ok(ledger) = ledger_from_bytes(data, "fuzz.pdb") {
        for format in [Format::Text, Format::Json] {
            let mut opts = Options::default();
            opts.format = format;
            opts.min_size = 4;
            opts.suppressions = Suppressions::parse("src/a.rs:1\nmake_*\n", "fuzz.supp").unwrap();
            let mut out = Vec::new();
            let summary = print(&mut out, &ledger, &opts).unwrap();
            assert!(summary.exit_status <= 1);
        }
    }
});
