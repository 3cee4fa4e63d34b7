//! Prints the header and entries of .prc/.pdb files as palm-prc reads them.
//!
//! ```text
//! cargo run -p palm-prc --example prcdump -- FILE...
//! ```
//!
//! Dates are shown as the raw Palm value and its Unix time, or `never` for 0
//! (Palm OS's "no date", e.g. a database never backed up).
//!
//! Exit status 1 if a file cannot be read or parsed (the others are still
//! printed). When standard output is closed early (`prcdump FILE | head`), it
//! stops quietly with status 0, as `cat` would when killed by SIGPIPE.

use std::io::{self, Write};
use std::process::ExitCode;

use palm_prc::{Content, Database, palm_to_unix, rec_attr};

/// Why a file was not dumped.
enum Failure {
    /// The file cannot be read or is not a database: reported, next file.
    Input(String),
    /// Standard output failed (a closed pipe, a full disk): stop.
    Output(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Output(e)
    }
}

fn dump(path: &str, out: &mut impl Write) -> Result<(), Failure> {
    // A Palm database file is at most a few MB; refuse devices and huge files
    // instead of reading them without end.
    const LIMIT: u64 = 64 << 20;
    let meta = std::fs::metadata(path).map_err(|err| Failure::Input(format!("{path}: {err}")))?;
    if !meta.is_file() || meta.len() > LIMIT {
        return Err(Failure::Input(format!(
            "{path}: not a regular file of at most {LIMIT} bytes"
        )));
    }
    let bytes = std::fs::read(path).map_err(|err| Failure::Input(format!("{path}: {err}")))?;
    let db = Database::parse(&bytes).map_err(|err| Failure::Input(format!("{path}: {err}")))?;
    let h = &db.header;
    writeln!(out, "{path}: {} bytes", bytes.len())?;
    writeln!(out, "  name        {:?}", String::from_utf8_lossy(&h.name))?;
    writeln!(out, "  type        {}  creator {}", h.kind, h.creator)?;
    writeln!(
        out,
        "  attributes  0x{:04X}  version {}",
        h.attributes, h.version
    )?;
    for (what, date) in [
        ("created", h.creation_date),
        ("modified", h.modification_date),
        ("backed up", h.last_backup_date),
    ] {
        // Palm OS stores 0 for a date that never happened (a database never
        // backed up, a header left blank): not 1904-01-01.
        if date == 0 {
            writeln!(out, "  {what:<11} never")?;
        } else {
            writeln!(
                out,
                "  {what:<11} 0x{date:08X} (Unix {})",
                palm_to_unix(date)
            )?;
        }
    }
    writeln!(
        out,
        "  modnum      {}  uniqueIDSeed 0x{:08X}",
        h.modification_number, h.unique_id_seed
    )?;
    for (what, block) in [("AppInfo", &db.app_info), ("SortInfo", &db.sort_info)] {
        if let Some(block) = block {
            writeln!(out, "  {what:<11} {} bytes", block.len())?;
        }
    }
    match &db.content {
        Content::Resources(resources) => {
            writeln!(out, "  {} resources", resources.len())?;
            for r in resources {
                writeln!(out, "    {} {:>5}  {} bytes", r.kind, r.id, r.data.len())?;
            }
        }
        Content::Records(records) => {
            writeln!(out, "  {} records", records.len())?;
            for r in records {
                writeln!(
                    out,
                    "    id 0x{:06X}  attributes 0x{:02X} (category {})  {} bytes",
                    r.unique_id,
                    r.attributes,
                    r.attributes & rec_attr::CATEGORY_MASK,
                    r.data.len()
                )?;
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
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut status = ExitCode::SUCCESS;
    for path in &paths {
        // Whatever is printed so far goes out before an error about the file.
        let result = dump(path, &mut out).and_then(|()| out.flush().map_err(Failure::Output));
        match result {
            Ok(()) => {}
            Err(Failure::Input(err)) => {
                if let Err(e) = out.flush() {
                    return output_failed(&e);
                }
                eprintln!("prcdump: {err}");
                status = ExitCode::FAILURE;
            }
            Err(Failure::Output(e)) => return output_failed(&e),
        }
    }
    status
}

/// The exit status when standard output fails: quiet success for a reader
/// that went away (`| head`), an error otherwise.
fn output_failed(e: &io::Error) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        ExitCode::SUCCESS
    } else {
        eprintln!("prcdump: standard output: {e}");
        ExitCode::FAILURE
    }
}
