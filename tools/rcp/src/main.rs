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

use std::path::{Path, PathBuf};
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
    /// Launcher icons of another size than 32x32/32x22/22x22 (ICON) or 15x9
    /// (SMALLICON) do not warn (PilRC -allowBadSize).
    #[arg(long = "allowBadSize")]
    allow_bad_size: bool,
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
    /// Write one resource database (a .ro PRC) instead of .bin files
    /// (PilRC -ro): -o names the file (".ro" is added to a name without an
    /// extension); without -o it is the input's name with .ro for .rcp.
    #[arg(long = "ro")]
    ro: bool,
    /// Database type of the -ro file (4 characters; default RESO).
    #[arg(long = "type", value_name = "TYPE", requires = "ro", value_parser = four_cc)]
    db_type: Option<[u8; 4]>,
    /// Creator of the -ro file (4 characters; default pRES).
    #[arg(long = "creator", value_name = "CRID", requires = "ro", value_parser = four_cc)]
    creator: Option<[u8; 4]>,
    /// Database name of the -ro file (default: the file's path as given;
    /// at most 31 bytes are kept).
    #[arg(long = "name", value_name = "NAME", requires = "ro")]
    name: Option<String>,
}

/// A four-character code given on the command line (`-type`, `-creator`).
fn four_cc(s: &str) -> Result<[u8; 4], String> {
    <[u8; 4]>::try_from(s.as_bytes())
        .map_err(|_| format!("\"{s}\" is not 4 characters (write abcd, not 'abcd')"))
}

/// The `-ro` file: `-o`'s path (with `.ro` added when its file name has no
/// extension), else the input's path with `.rcp` (any case) replaced by
/// `.ro` or `.ro` appended, as PilRC names it.
fn ro_path(input: &Path, output: Option<&Path>) -> PathBuf {
    match output {
        Some(o) if o.extension().is_some() => o.to_path_buf(),
        Some(o) => PathBuf::from(format!("{}.ro", o.display())),
        None => {
            let s = input.to_string_lossy();
            let stem = match s.len().checked_sub(4) {
                Some(at) if s.is_char_boundary(at) && s[at..].eq_ignore_ascii_case(".rcp") => {
                    &s[..at]
                }
                _ => &s[..],
            };
            PathBuf::from(format!("{stem}.ro"))
        }
    }
}

/// PilRC's single-dash long options (`-noEllipsis`) as clap's `--noEllipsis`.
/// Any other single-dash word of more than one letter that is not a short
/// option with its value attached (`-Idir`, `-obuild`) is an error naming it
/// (clap would read `-bogus` as `-b -o gus`); the error is the message.
fn pilrc_args() -> Result<Vec<std::ffi::OsString>, String> {
    const LONG: &[&str] = &[
        "-noEllipsis",
        "-allowEditID",
        "-allowBadSize",
        "-idStart",
        "-Fh",
        "-Fc",
        "-ro",
        "-type",
        "-creator",
        "-name",
    ];
    /// The short options that take a value (which may be attached).
    const WITH_VALUE: &[char] = &['o', 'I', 'H', 'L'];
    let mut out = Vec::new();
    let mut after_dashes = false;
    for (i, a) in std::env::args_os().enumerate() {
        match a.to_str() {
            Some(_) if i == 0 || after_dashes => {}
            Some("--") => after_dashes = true,
            Some(s) if LONG.contains(&s) => {
                out.push(format!("-{s}").into());
                continue;
            }
            Some(s)
                if s.len() > 2
                    && s.starts_with('-')
                    && !s.starts_with("--")
                    && !s[1..].starts_with(WITH_VALUE)
                    && s[1..].parse::<i64>().is_err() =>
            {
                return Err(format!(
                    "unknown option '{s}' (PilRC's single-dash options: {}; `palm-rcp --help` \
                     lists them all)",
                    LONG.join(" ")
                ));
            }
            _ => {}
        }
        out.push(a);
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args = match pilrc_args() {
        Ok(a) => Args::parse_from(a),
        Err(message) => {
            eprintln!("palm-rcp: error: {message}");
            return ExitCode::from(2);
        }
    };
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
        search_dirs: args.include.clone(),
    };
    let opts = palm_rcp::Options {
        no_ellipsis: args.no_ellipsis,
        allow_edit_id: args.allow_edit_id,
        allow_bad_size: args.allow_bad_size,
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
    if args.ro {
        return write_ro(&args, &compiled);
    }
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
    write_header(&args, &compiled, &output)?;
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

/// The header: -H's file, else GENERATEHEADER's (in `dir`, next to the output).
fn write_header(args: &Args, compiled: &palm_rcp::Compiled, dir: &Path) -> Result<(), String> {
    let header = args
        .header
        .clone()
        .or_else(|| compiled.header_file.as_ref().map(|f| dir.join(f)));
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
    Ok(())
}

/// `-ro`: every resource in one resource database file.
fn write_ro(args: &Args, compiled: &palm_rcp::Compiled) -> Result<(), String> {
    let path = ro_path(&args.input, args.output.as_deref());
    if path.is_dir() {
        return Err(format!(
            "-o {}: with -ro the output is a file (the resource database), and this is a \
             directory",
            path.display()
        ));
    }
    let name = match &args.name {
        Some(n) => n.as_bytes().to_vec(),
        None => path.as_os_str().as_encoded_bytes().to_vec(),
    };
    let data = palm_rcp::resource_database(
        &compiled.resources,
        &name,
        args.db_type.unwrap_or(palm_rcp::RO_TYPE),
        args.creator.unwrap_or(palm_rcp::RO_CREATOR),
    )
    .map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(&path, &data).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    write_header(args, compiled, &dir)?;
    if !args.quiet {
        println!(
            "palm-rcp: {} ({} bytes, {} resources)",
            path.display(),
            data.len(),
            compiled.resources.len()
        );
    }
    Ok(())
}
