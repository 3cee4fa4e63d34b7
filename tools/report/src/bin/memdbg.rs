//! `memdbg`: the command-line front end of memdbg-report (a clap parser over the
//! library; see the crate documentation for the report and its JSON schema).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use memdbg_report::{
    AppSymbols, ElfSymbols, Format, InputError, Ledger, Options, Suppressions, Symbolize,
};

/// Reports the leaks, overruns and double frees that memdbg recorded in
/// MemDbgDB. Exit status: 0 none, 1 found, 2 unreadable input.
#[derive(Parser)]
#[command(name = "memdbg", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Report a ledger: INPUT is MemDbgDB.pdb (POSE, palm-run) or a CloudpilotEmu backup .zip.
    Report {
        /// MemDbgDB.pdb or a backup .zip holding it.
        input: PathBuf,
        #[command(flatten)]
        common: Common,
    },
    /// Compare two ledgers: leak sites that appeared or disappeared from OLD to NEW.
    ///
    /// Leaks are matched by site (the wrapper's file:line, else the call stack).
    /// OLD and NEW may come from two builds of the app (before and after a fix):
    /// --elf is NEW's ELF and --old-elf OLD's. With --elf alone, OLD is
    /// symbolized with it too when it is of the same build, else OLD is left
    /// unsymbolized, with a warning.
    ///
    /// Exit status: 0 no leaks appeared (none, or only unchanged or disappeared
    /// sites), 1 leaks appeared (a site has more leaks in NEW than in OLD, after
    /// --suppress and --min-size; overruns and double frees are not compared),
    /// 2 bad input (unreadable ledger, ledgers of two apps, an ELF that is not
    /// the build of its ledger, a bad suppression file) or bad arguments.
    Diff {
        /// The earlier ledger.
        old: PathBuf,
        /// The later ledger.
        new: PathBuf,
        /// OLD's ELF, when OLD is of another build than NEW (--elf).
        #[arg(long, value_name = "OLD.elf")]
        old_elf: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
    },
    /// Time the report of a generated ledger.
    #[command(hide = true)]
    Bench {
        /// Records in the generated ledger.
        #[arg(long, default_value_t = 100_000)]
        records: usize,
        /// Symbolize frames with this ELF.
        #[arg(long)]
        elf: Option<PathBuf>,
    },
}

#[derive(Args)]
struct Common {
    /// The app's ELF (target/palm/APP.elf) for function names, files and lines
    /// (or a prc-tools build's linked coff-m68k file, for function names); it
    /// must be the build that wrote the ledger (for diff: NEW).
    #[arg(long, value_name = "APP.elf")]
    elf: Option<PathBuf>,
    /// Print the report as JSON (schema in the crate documentation).
    #[arg(long)]
    json: bool,
    /// Do not list leaks smaller than N bytes (they are counted in the summary).
    #[arg(long, value_name = "N", default_value_t = 0)]
    min_size: u32,
    /// List only the leaks made in generation N or later (memdbg::checkpoint
    /// starts generations 1 to 255; 0: all). The others are counted in the
    /// summary. An N above the ledger's last generation is an error (exit 2;
    /// with diff, N must exist in both ledgers).
    #[arg(long, value_name = "N", default_value_t = 0)]
    since: u8,
    /// Hide known leaks listed in FILE (counted in the summary; format: --help).
    ///
    /// Hidden leaks are counted in the summary line and listed under
    /// "Suppressions used". One pattern per line, optionally after `leak:`:
    /// FILE:LINE (src/starter.rs:42; the allocation site or any stack frame's
    /// file:line) or a function name (make_cache, starter_app::make_cache,
    /// starter_app::*::leak*; `*` is any run of characters). A function matches
    /// ANY frame of a leak's stack, as LeakSanitizer's leak: does, so one that
    /// every stack passes through (pilot_main) hides every leak. Blank lines and
    /// lines starting with # are ignored; any other line is an error (exit 2,
    /// FILE:LINE: what is wrong).
    #[arg(long, value_name = "FILE")]
    suppress: Option<PathBuf>,
    /// In a backup .zip, read this member (its path as the archive lists it, e.g.
    /// a/MemDbgDB.pdb) instead of looking for MemDbgDB.pdb.
    #[arg(long, value_name = "PATH")]
    member: Option<String>,
}

/// The ELF (or a prc-tools build's coff-m68k file) at `path`, checked against
/// `ledger` (the build that wrote it).
fn load_elf(path: Option<&Path>, ledger: &Ledger) -> Result<Option<AppSymbols>, InputError> {
    path.map(|p| AppSymbols::load(p, ledger)).transpose()
}

fn options<'a>(common: &Common, elf: Option<&'a AppSymbols>) -> Result<Options<'a>, InputError> {
    let mut opts = Options::default();
    opts.symbolizer = elf.map(AppSymbols::symbolizer);
    opts.format = if common.json {
        Format::Json
    } else {
        Format::Text
    };
    opts.min_size = common.min_size;
    opts.since = common.since;
    if let Some(path) = &common.suppress {
        opts.suppressions = Suppressions::load(path)?;
    }
    Ok(opts)
}

/// OLD and NEW of `memdbg diff`; `member` applies to those that are backup
/// .zip files (at least one must be).
fn read_pair(old: &Path, new: &Path, member: Option<&str>) -> Result<(Ledger, Ledger), InputError> {
    let old_bytes = memdbg_report::read_ledger_bytes(old)?;
    let new_bytes = memdbg_report::read_ledger_bytes(new)?;
    if let Some(m) = member
        && !memdbg_report::is_zip(&old_bytes)
        && !memdbg_report::is_zip(&new_bytes)
    {
        return Err(InputError::whole(
            &new.display().to_string(),
            format!(
                "--member {m} chooses a member of a backup .zip, but neither OLD nor NEW is a \
                 zip archive"
            ),
        ));
    }
    let decode = |path: &Path, bytes: &[u8]| {
        let member = member.filter(|_| memdbg_report::is_zip(bytes));
        memdbg_report::ledger_from_bytes_member(bytes, &path.display().to_string(), member)
    };
    Ok((decode(old, &old_bytes)?, decode(new, &new_bytes)?))
}

fn output(e: std::io::Error) -> InputError {
    InputError::whole("standard output", e.to_string())
}

/// Runs a command: Ok(exit status), or an input error (exit status 2).
fn run(cli: Cli) -> Result<u8, InputError> {
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match cli.command {
        Command::Report { input, common } => {
            let ledger = memdbg_report::read_ledger_member(&input, common.member.as_deref())?;
            memdbg_report::check_since(&ledger, common.since)?;
            let elf = load_elf(common.elf.as_deref(), &ledger)?;
            let opts = options(&common, elf.as_ref())?;
            let summary = memdbg_report::print(&mut out, &ledger, &opts).map_err(output)?;
            out.flush().map_err(output)?;
            Ok(summary.exit_status)
        }
        Command::Diff {
            old,
            new,
            old_elf,
            common,
        } => {
            let (old, new) = read_pair(&old, &new, common.member.as_deref())?;
            memdbg_report::diff::check_same_app(&old, &new)?;
            // Both sides: generation N of OLD must exist too, or the diff
            // would compare NEW's passes N on with nothing.
            for (side, ledger) in [("OLD", &old), ("NEW", &new)] {
                memdbg_report::check_since(ledger, common.since).map_err(|mut e| {
                    e.message = format!("{side} ledger: {}", e.message);
                    e
                })?;
            }
            // Each side with the ELF of its own build: --elf must be NEW's,
            // --old-elf OLD's; --elf alone serves OLD too if it is its build.
            let elf = load_elf(common.elf.as_deref(), &new)?;
            let old_elf = load_elf(old_elf.as_deref(), &old)?;
            let old_symbols: Option<&dyn Symbolize> = match (&old_elf, &elf) {
                (Some(e), _) => Some(e.symbolizer()),
                (None, Some(e)) if e.check(&old).is_ok() => Some(e.symbolizer()),
                _ => None,
            };
            let opts = options(&common, elf.as_ref())?;
            let summary =
                memdbg_report::diff::print_diff_with(&mut out, &old, &new, &opts, old_symbols)
                    .map_err(output)?;
            out.flush().map_err(output)?;
            Ok(summary.exit_status)
        }
        Command::Bench { records, elf } => {
            let elf = match elf {
                Some(p) => Some(ElfSymbols::load(&p)?),
                None => None,
            };
            let result = memdbg_report::bench::run(records, elf.as_ref())
                .map_err(|e| InputError::whole("bench", e))?;
            writeln!(out, "{result}")
                .and_then(|()| out.flush())
                .map_err(output)?;
            Ok(0)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(status) => ExitCode::from(status),
        Err(e) => {
            eprintln!("memdbg: error: {e}");
            ExitCode::from(2)
        }
    }
}
