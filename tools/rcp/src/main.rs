//! `palm-rcp`: compiles a PilRC `.rcp` file into one `.bin` file per resource,
//! named as PilRC names them (`tFRM03e8.bin`: type, ID in hex).
//!
//! ```text
//! palm-rcp StarterApp.rcp -o build/rsrc [-I include-dir]... [-q]
//! ```
//!
//! Without `-o` the `.bin` files are written in the current directory, as
//! PilRC does. Each written file is printed on standard output as
//! `DIR/tFRM03e8.bin (636 bytes)`, then a summary line naming the directory;
//! `-q` prints nothing on success.
//!
//! Exit status: 0 on success; 2 on any error, printed as one line on standard
//! error:
//! - bad arguments (clap's message, followed by its usage line), or `-o`
//!   naming something that is not a directory: `palm-rcp: error: -o FILE: ...`;
//! - a `.rcp` (or `#include`d file) that cannot be read or compiled:
//!   `palm-rcp: error: FILE:LINE:COLUMN: message` for an error inside a file
//!   (an unreadable `#include` is at its `#include` line), and
//!   `palm-rcp: error: FILE: cannot read file: ...` for a file that cannot be
//!   read at all;
//! - the output cannot be written: `palm-rcp: error: cannot write FILE: ...`.
//!
//! Nothing is written when the source has an error.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Compile a PilRC .rcp file into binary Palm resources (one .bin per resource).
#[derive(Parser)]
#[command(
    name = "palm-rcp",
    version,
    after_help = "\
Output: one .bin file per resource, named as PilRC names them (tFRM03e8.bin:
type, ID in hex), in the -o directory, or in the current directory when -o is
not given (as PilRC does). Each file written is printed with its size, then a
summary line naming the directory; -q prints nothing on success.

Exit status:
  0  the resources were written
  2  error, in one line on standard error: bad arguments (with usage), or
       palm-rcp: error: FILE:LINE:COLUMN: message   (an error in the source,
                                                    or an unreadable #include)
       palm-rcp: error: FILE: cannot read file: ...  (missing, not a regular
                                                    file, larger than 16 MiB)
       palm-rcp: error: -o DIR: ... / cannot write FILE: ...  (the output)
     Nothing is written when the source has an error."
)]
struct Args {
    /// The .rcp file to compile.
    input: PathBuf,
    /// Directory for the .bin files (created if missing; must not be a file)
    /// [default: the current directory].
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    output: Option<PathBuf>,
    /// Directory searched for #include files after the including file's own.
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Print nothing on success.
    #[arg(short, long)]
    quiet: bool,
    /// Keep a trailing "..." as three periods (PilRC -noEllipsis).
    #[arg(long = "noEllipsis")]
    no_ellipsis: bool,
    /// IDs 10000-10007 (the Edit menu's) do not warn (PilRC -allowEditID).
    #[arg(long = "allowEditID")]
    allow_edit_id: bool,
    /// Give undefined symbols automatic IDs and write them to FILE as
    /// #defines (PilRC -H).
    #[arg(short = 'H', value_name = "FILE")]
    header: Option<PathBuf>,
    /// Automatic IDs count up from N + 1 (PilRC -idStart; default: down from 9998).
    #[arg(long = "idStart", value_name = "N")]
    id_start: Option<i32>,
    /// Apply the TRANSLATION sections of LANGUAGE (PilRC -L; repeatable).
    #[arg(short = 'L', value_name = "LANGUAGE")]
    language: Vec<String>,
    /// Hebrew character widths for AUTO (PilRC -Fh).
    #[arg(long = "Fh", conflicts_with = "cyrillic")]
    hebrew: bool,
    /// Cyrillic character widths for AUTO (PilRC -Fc).
    #[arg(long = "Fc")]
    cyrillic: bool,
}

/// PilRC's single-dash long options (`-noEllipsis`) as clap's `--noEllipsis`.
fn pilrc_args() -> impl Iterator<Item = std::ffi::OsString> {
    const LONG: &[&str] = &["-noEllipsis", "-allowEditID", "-idStart", "-Fh", "-Fc"];
    std::env::args_os().map(|a| match a.to_str() {
        Some(s) if LONG.contains(&s) => format!("-{s}").into(),
        _ => a,
    })
}

fn main() -> ExitCode {
    let args = Args::parse_from(pilrc_args());
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("palm-rcp: error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Compiles and writes; the error is the one line to print after
/// `palm-rcp: error: `.
fn run(args: Args) -> Result<(), String> {
    let includes = palm_rcp::FsIncludes {
        search_dirs: args.include,
    };
    let opts = palm_rcp::Options {
        no_ellipsis: args.no_ellipsis,
        allow_edit_id: args.allow_edit_id,
        script: if args.hebrew {
            palm_rcp::fonts::Script::Hebrew
        } else if args.cyrillic {
            palm_rcp::fonts::Script::Cyrillic
        } else {
            palm_rcp::fonts::Script::Latin
        },
        languages: args.language.clone(),
        header: args.header.clone(),
        id_start: args.id_start,
    };
    let compiled =
        palm_rcp::compile_file_opts(&args.input, &includes, &opts).map_err(|e| e.to_string())?;
    for w in &compiled.warnings {
        eprintln!("palm-rcp: warning: {w}");
    }
    let resources = &compiled.resources;
    let output = args.output.clone().unwrap_or_else(|| PathBuf::from("."));
    if output.exists() && !output.is_dir() {
        return Err(format!(
            "-o {}: the output must be a directory (one .bin file per resource is written in \
             it), and this is a file",
            output.display()
        ));
    }
    std::fs::create_dir_all(&output)
        .map_err(|e| format!("cannot create {}: {e}", output.display()))?;
    for r in resources {
        let path = output.join(r.file_name());
        std::fs::write(&path, &r.data)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if !args.quiet {
            println!("{} ({} bytes)", path.display(), r.data.len());
        }
    }
    // The header: -H's file, else GENERATEHEADER's (next to the output).
    let header = args
        .header
        .clone()
        .or_else(|| compiled.header_file.as_ref().map(|f| output.join(f)));
    if let Some(path) = header {
        std::fs::write(&path, compiled.header_text())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if !args.quiet {
            println!(
                "{} (header, {} IDs)",
                path.display(),
                compiled.auto_ids.len()
            );
        }
    }
    if !args.quiet {
        let files = match resources.len() {
            1 => "1 resource file".to_owned(),
            n => format!("{n} resource files"),
        };
        match &args.output {
            Some(dir) => println!("palm-rcp: {files} written in {}", dir.display()),
            None => {
                println!("palm-rcp: {files} written in the current directory (no -o DIR given)")
            }
        }
    }
    Ok(())
}
