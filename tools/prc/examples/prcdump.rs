//! Prints the header and entries of .prc/.pdb files as palm-prc reads them.
//!
//! ```text
//! cargo run -p palm-prc --example prcdump -- FILE...
//! ```

use std::process::ExitCode;

use palm_prc::{Content, Database, palm_to_unix, rec_attr};

fn dump(path: &str) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|err| format!("{path}: {err}"))?;
    let db = Database::parse(&bytes).map_err(|err| format!("{path}: {err}"))?;
    let h = &db.header;
    println!("{path}: {} bytes", bytes.len());
    println!("  name        {:?}", String::from_utf8_lossy(&h.name));
    println!("  type        {}  creator {}", h.kind, h.creator);
    println!(
        "  attributes  0x{:04X}  version {}",
        h.attributes, h.version
    );
    for (what, date) in [
        ("created", h.creation_date),
        ("modified", h.modification_date),
        ("backed up", h.last_backup_date),
    ] {
        println!("  {what:<11} 0x{date:08X} (Unix {})", palm_to_unix(date));
    }
    println!(
        "  modnum      {}  uniqueIDSeed 0x{:08X}",
        h.modification_number, h.unique_id_seed
    );
    for (what, block) in [("AppInfo", &db.app_info), ("SortInfo", &db.sort_info)] {
        if let Some(block) = block {
            println!("  {what:<11} {} bytes", block.len());
        }
    }
    match &db.content {
        Content::Resources(resources) => {
            println!("  {} resources", resources.len());
            for r in resources {
                println!("    {} {:>5}  {} bytes", r.kind, r.id, r.data.len());
            }
        }
        Content::Records(records) => {
            println!("  {} records", records.len());
            for r in records {
                println!(
                    "    id 0x{:06X}  attributes 0x{:02X} (category {})  {} bytes",
                    r.unique_id,
                    r.attributes,
                    r.attributes & rec_attr::CATEGORY_MASK,
                    r.data.len()
                );
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: prcdump FILE...");
        return ExitCode::FAILURE;
    }
    let mut status = ExitCode::SUCCESS;
    for path in &paths {
        if let Err(err) = dump(path) {
            eprintln!("prcdump: {err}");
            status = ExitCode::FAILURE;
        }
    }
    status
}
