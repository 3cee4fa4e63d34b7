//! `palm-run`: run a Palm OS 68k app headless.
//!
//! ```text
//! palm-run APP.prc [--install FILE.pdb]… [--events SCRIPT] [--export DBNAME=FILE.pdb]…
//!          [--elf APP.elf] [--trace-traps] [--max-instructions N] [--max-traps N]
//!          [--timeout SECONDS] [--stats-json FILE]
//!          [--heap-size BYTES] [--ram-size BYTES] [--allow-leaks] [--nonfatal-checks]
//!          [--refuse-trap-patches] [--opaque-handles] [--release-frees-records]
//!          [--strict-record-writes] [--missing-trap TRAP]… [--fatal-alerts] [--pumpkin]
//!          [--feature CRID:NUM=VALUE]…
//! palm-run bench [APP.prc [--events SCRIPT] [--feature CRID:NUM=VALUE]…]
//! palm-run traps
//! ```
//!
//! Exit status: 0 clean run; 1 the app faulted, hit a limit, could not start
//! (SysAppStartup failed) or an exit check failed (chunks still owned by the
//! app, trap patches left installed, debug-ROM reports); 2 bad input (with a
//! one-line error), an event script line naming a control, menu item or list
//! item the app does not have or show when it is played included. PilotMain's return value is printed, not judged.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::io::Write;

use clap::Parser;

/// `println!` that ignores a closed stdout (`palm-run traps | head`).
macro_rules! outln {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// `eprintln!` that ignores a closed stderr.
macro_rules! errln {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}
use palm_run::{Config, Machine};

#[derive(Parser, Debug)]
#[command(
    name = "palm-run",
    about = "Run a Palm OS 68k application headless",
    version
)]
struct Cli {
    /// The application (.prc) to install and launch.
    app: PathBuf,
    /// Install this .prc/.pdb before launching (repeatable).
    #[arg(long = "install", value_name = "FILE")]
    install: Vec<PathBuf>,
    /// Event script played by EvtGetEvent (see `palm_run::script`).
    #[arg(long, value_name = "SCRIPT")]
    events: Option<PathBuf>,
    /// After the run, write database DBNAME to FILE (repeatable). DBNAME is
    /// looked up in the Palm character set (Windows-1252: é is 0xE9).
    #[arg(long = "export", value_name = "DBNAME=FILE")]
    export: Vec<String>,
    /// The app's ELF, for symbols in reports (without it, functions are
    /// named by the MacsBug names in code 1, as POSE names them).
    #[arg(long, value_name = "APP.elf")]
    elf: Option<PathBuf>,
    /// Print every OS call with its arguments and result.
    #[arg(long)]
    trace_traps: bool,
    /// Stop the app after this many 68k instructions.
    #[arg(long, value_name = "N", default_value_t = 1_000_000_000, value_parser = number::<u64>)]
    max_instructions: u64,
    /// Stop the app after this many OS calls (traps run by palm-run).
    #[arg(long, value_name = "N", default_value_t = palm_run::machine::DEFAULT_MAX_TRAPS, value_parser = number::<u64>)]
    max_traps: u64,
    /// Stop the app after this many seconds of wall-clock time (0: no limit).
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = number::<u64>)]
    timeout: u64,
    /// Write run statistics as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    stats_json: Option<PathBuf>,
    /// Dynamic heap size in bytes, a multiple of 4 from 16384 (16 KiB) to
    /// 16777216 (16 MiB); default 262144, a Palm OS 3.5 device with 4 MB.
    #[arg(long, value_name = "BYTES", default_value_t = palm_run::memory::DEFAULT_DYNAMIC_HEAP_SIZE, value_parser = number::<u32>)]
    heap_size: u32,
    /// RAM size in bytes, a multiple of 4: 4 KiB of low memory, the dynamic
    /// heap, and a storage heap of 16 KiB to 16 MiB (default 4194304).
    // No clap default: a --heap-size too large for the default RAM is
    // reported as such, not as a --ram-size the user never gave.
    #[arg(long, value_name = "BYTES", value_parser = number::<u32>)]
    ram_size: Option<u32>,
    /// Report chunks the app leaves behind, but do not fail the run for them.
    #[arg(long)]
    allow_leaks: bool,
    /// Report failed debug-ROM checks (invalid or double frees, …) and let the
    /// call return its error code instead of stopping the app.
    #[arg(long)]
    nonfatal_checks: bool,
    /// Refuse SysSetTrapAddress (sysErrNotAllowed), as Palm OS 5 does.
    #[arg(long)]
    refuse_trap_patches: bool,
    /// Handles are not master pointers, as in PumpkinOS: *h is not the
    /// chunk's address (it reads 0x6C646E48); only MemHandleLock gives it.
    #[arg(long)]
    opaque_handles: bool,
    /// DmReleaseRecord (and DmReleaseResource of an unlocked resource) frees
    /// the buffer, as PumpkinOS does: a pointer kept from before is invalid.
    #[arg(long)]
    release_frees_records: bool,
    /// DmWrite/DmSet/DmStrCopy only into a locked, busy record (between
    /// DmGetRecord/DmNewRecord and DmReleaseRecord) of a database open for
    /// writing, as the SDK describes them.
    #[arg(long)]
    strict_record_writes: bool,
    /// Treat this trap as not implemented (a name from the trap table or
    /// 0xAxxx): a call stops the app, as PumpkinOS does for DbgMessage.
    /// Repeatable.
    #[arg(long = "missing-trap", value_name = "TRAP", value_parser = trap_word)]
    missing_traps: Vec<u16>,
    /// ErrDisplayFileLineMsg and SysFatalAlert end the app, as a release
    /// ROM's Fatal Alert (Reset) and PumpkinOS do.
    #[arg(long)]
    fatal_alerts: bool,
    /// All of PumpkinOS's behaviours above: --opaque-handles
    /// --release-frees-records --missing-trap DbgMessage --fatal-alerts
    /// --refuse-trap-patches --nonfatal-checks.
    #[arg(long)]
    pumpkin: bool,
    /// Register a feature before launch: CRID:NUM=VALUE (e.g. PRtt:0=7), repeatable.
    #[arg(long = "feature", value_name = "CRID:NUM=VALUE")]
    features: Vec<String>,
    /// After APP's run, install and launch this app on the same device, with
    /// the databases as APP left them (MemDbgDB for MemDbg Viewer), and run
    /// its exit checks too. Exports are written after both runs.
    #[arg(long, value_name = "APP2.prc")]
    then: Option<PathBuf>,
    /// The event script of the --then app.
    #[arg(long, value_name = "SCRIPT", requires = "then")]
    then_events: Option<PathBuf>,
    /// Print what the apps draw: "Draw: form N" for each form drawn and
    /// "Draw: TEXT" for each line of text (titles, labels, fields, list
    /// items, WinDrawChars).
    #[arg(long)]
    show_drawing: bool,
}

/// A numeric option: decimal or `0x` hexadecimal, as in event scripts
/// ([`palm_run::script::unsigned`]), within `T`'s range. Digits whose value
/// does not fit in 64 bits are a number too large, not "not a number".
fn number<T: TryFrom<u64>>(s: &str) -> Result<T, String> {
    let v = palm_run::script::unsigned(s).ok_or_else(|| {
        if has_number_form(s) {
            format!("{} is too large", palm_run::script::shown(s))
        } else {
            format!(
                "\"{}\" is not a number (decimal, or hexadecimal after 0x)",
                palm_run::script::shown(s)
            )
        }
    })?;
    T::try_from(v).map_err(|_| format!("{v} is too large"))
}

/// An event script file, parsed.
fn read_script(p: &Path) -> Result<Vec<palm_run::script::Scripted>, String> {
    let text =
        String::from_utf8(read(p)?).map_err(|_| format!("{}: not UTF-8 text", p.display()))?;
    palm_run::script::parse(&text).map_err(|e| format!("{}: {e}", p.display()))
}

/// Installs the app `bytes` (the file `path`) after checking that it is
/// one (a code 1 resource); returns its database, whose name's bytes
/// (Windows-1252) launch it.
fn install_app(m: &mut Machine, path: &Path, bytes: &[u8]) -> Result<palm_prc::Database, String> {
    let db = palm_prc::Database::parse(bytes)
        .map_err(|e| format!("{}: {e}{}", path.display(), foreign_hint(bytes)))?;
    if db.resource(palm_prc::FourCC::new(*b"code"), 1).is_none() {
        return Err(format!(
            "{}: not an application: no code 1 resource",
            path.display()
        ));
    }
    m.install(bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(db)
}

/// A trap by its SDK name in the trap table (`DbgMessage`) or its word
/// (`0xA081`, which must be in the table too).
fn trap_word(s: &str) -> Result<u16, String> {
    let word = palm_run::script::unsigned(s).and_then(|v| u16::try_from(v).ok());
    palm_run::table::TRAPS
        .iter()
        .find(|t| t.name == s || Some(t.trap) == word)
        .map(|t| t.trap)
        .ok_or_else(|| {
            format!(
                "\"{}\" is not a trap of palm-run's trap table (a name such as DbgMessage, or 0xA081)",
                palm_run::script::shown(s)
            )
        })
}

/// True when `s` is written as [`palm_run::script::unsigned`] reads numbers
/// (an optional `+`, then decimal digits or `0x`/`0X` and hexadecimal
/// digits), whatever its value.
fn has_number_form(s: &str) -> bool {
    let s = s.strip_prefix('+').unwrap_or(s);
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (s, 10),
    };
    !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix))
}

/// Where a path leads, to compare two of them: the file itself when it
/// exists (device and inode: hard links and symlinks are one file),
/// otherwise its canonical directory and name.
#[derive(PartialEq, Eq)]
enum FileKey {
    Existing(u64, u64),
    New(PathBuf),
}

fn file_key(path: &Path) -> Option<FileKey> {
    use std::os::unix::fs::MetadataExt;
    if let Ok(m) = std::fs::metadata(path) {
        return Some(FileKey::Existing(m.dev(), m.ino()));
    }
    Some(FileKey::New(
        std::fs::canonicalize(folder_of(path))
            .ok()?
            .join(path.file_name()?),
    ))
}

/// The folder `path` is in (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Refuse outputs (`--export` files, `--stats-json`) that would overwrite an
/// input (the app, `--install`, `--events`, `--elf`) or another output:
/// palm-run writes its outputs after the run, and a typo must not destroy
/// the app or lose one of two exports.
fn check_outputs(cli: &Cli, exports: &[(String, PathBuf)]) -> Result<(), String> {
    let inputs: Vec<(&str, FileKey)> = std::iter::once(("the app", &cli.app))
        .chain(cli.install.iter().map(|p| ("an --install file", p)))
        .chain(cli.events.iter().map(|p| ("the --events script", p)))
        .chain(cli.elf.iter().map(|p| ("the --elf file", p)))
        .chain(cli.then.iter().map(|p| ("the --then app", p)))
        .chain(
            cli.then_events
                .iter()
                .map(|p| ("the --then-events script", p)),
        )
        .filter_map(|(role, p)| Some((role, file_key(p)?)))
        .collect();
    let mut outputs: Vec<(String, &Path)> = exports
        .iter()
        .map(|(n, f)| (format!("--export {n}={}", f.display()), f.as_path()))
        .collect();
    outputs.extend(
        cli.stats_json
            .iter()
            .map(|p| (format!("--stats-json {}", p.display()), p.as_path())),
    );
    let mut seen: Vec<(FileKey, &str)> = Vec::new();
    for (what, path) in &outputs {
        // Caught before the run, not after it: a directory, or a folder
        // that does not exist.
        if path.is_dir() || path.as_os_str().as_encoded_bytes().ends_with(b"/") {
            return Err(format!("{what}: {} names a directory", path.display()));
        }
        let dir = folder_of(path);
        if !dir.is_dir() {
            return Err(if dir.exists() {
                format!("{what}: {} is a file, not a folder", dir.display())
            } else {
                format!("{what}: the folder {} does not exist", dir.display())
            });
        }
        let Some(key) = file_key(path) else { continue };
        if let Some((role, _)) = inputs.iter().find(|(_, k)| *k == key) {
            return Err(format!(
                "{what}: {} is {role}, an input; palm-run will not overwrite it",
                path.display()
            ));
        }
        if let Some((_, other)) = seen.iter().find(|(k, _)| *k == key) {
            return Err(format!(
                "{what}: {} is also the output of {other}; one would overwrite the other",
                path.display()
            ));
        }
        seen.push((key, what.as_str()));
    }
    Ok(())
}

/// A database name given on the command line as its bytes on the device:
/// Windows-1252, the Palm character set (`é` is the byte 0xE9), or its
/// UTF-8 bytes when it has a character Windows-1252 does not.
fn palm_name(text: &str) -> Vec<u8> {
    text.chars()
        .map(palm_rcp::charset::encode_char)
        .collect::<Option<Vec<u8>>>()
        .unwrap_or_else(|| text.as_bytes().to_vec())
}

/// Parse `CRID:NUM=VALUE`.
fn feature(s: &str) -> Result<(u32, u16, u32), String> {
    let err = || format!("--feature {s}: expected CRID:NUM=VALUE (e.g. PRtt:0=7)");
    let (crid, rest) = s.split_once(':').ok_or_else(err)?;
    let (num, value) = rest.split_once('=').ok_or_else(err)?;
    let crid: [u8; 4] = crid.as_bytes().try_into().map_err(|_| err())?;
    // A number too large for its field is said so, not only the format.
    let too_large = |e: &std::num::ParseIntError, what: &str, n: &str, bits: u32| {
        if *e.kind() == std::num::IntErrorKind::PosOverflow {
            format!("--feature {s}: the {what} {n} does not fit in {bits} bits")
        } else {
            err()
        }
    };
    let num = num.parse().map_err(|e| too_large(&e, "number", num, 16))?;
    let value = match value.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16),
        None => value.parse(),
    }
    .map_err(|e| too_large(&e, "value", value, 32))?;
    Ok((u32::from_be_bytes(crid), num, value))
}

#[derive(Parser, Debug)]
#[command(
    name = "palm-run bench",
    about = "Emulated 68k instructions per second"
)]
struct BenchCli {
    /// Also run this app (e.g. StarterApp.prc) with --events SCRIPT, if given.
    app: Option<PathBuf>,
    /// Event script for the app run.
    #[arg(long, value_name = "SCRIPT")]
    events: Option<PathBuf>,
    /// Register a feature before launch: CRID:NUM=VALUE, repeatable.
    #[arg(long = "feature", value_name = "CRID:NUM=VALUE")]
    features: Vec<String>,
}

fn bad_input(msg: String) -> ExitCode {
    errln!("palm-run: error: {msg}");
    ExitCode::from(2)
}

/// For a file that is not a Palm database ([`palm_prc::foreign_format`]):
/// which file palm-run takes instead, after the reader's error; else "".
fn foreign_hint(bytes: &[u8]) -> &'static str {
    match palm_prc::foreign_format(bytes) {
        Some("an ELF file") => {
            ": palm-run runs the app's .prc and installs .prc/.pdb files (palm-build writes \
             target/palm/App.prc next to App.elf); an ELF of the app goes to --elf"
        }
        Some(_) => {
            ": palm-run runs the app's .prc and installs .prc/.pdb files; a prc-tools object \
             or library is linked into the app first (m68k-palmos-gcc, then build-prc)"
        }
        None => "",
    }
}

/// Largest input file palm-run reads (the app, `--install`, `--events`,
/// `--elf`): 64 MiB, more than any Palm database or app ELF.
const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Read an input file: a regular file of at most [`MAX_INPUT_BYTES`] (not a
/// device, pipe or directory, whose reading might never end).
fn read(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let meta = std::fs::metadata(path).map_err(err)?;
    if !meta.is_file() {
        return Err(format!(
            "{}: not a regular file (palm-run reads regular files only)",
            path.display()
        ));
    }
    let too_big = |n: u64| {
        format!(
            "{}: {n} bytes, more than the {MAX_INPUT_BYTES} (64 MiB) palm-run reads",
            path.display()
        )
    };
    if meta.len() > MAX_INPUT_BYTES {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(err)?
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(err)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("traps") && args.len() == 2 {
        let s = palm_run::traps::scan();
        outln!(
            "{} traps implemented, {} in the trap table without a handler (calling one stops the app naming it):",
            s.valid.len(),
            s.missing.len()
        );
        for name in &s.missing {
            outln!("  {name}");
        }
        for name in &s.invalid {
            outln!("error: handler {name} is not in the trap table");
        }
        return if s.invalid.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        };
    }
    if args.get(1).map(String::as_str) == Some("bench") {
        let cli = BenchCli::parse_from(args.iter().skip(1));
        return match bench(&cli) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => bad_input(e),
        };
    }
    let cli = Cli::parse();
    match run(&cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => bad_input(e),
    }
}

fn bench(cli: &BenchCli) -> Result<(), String> {
    let r = palm_run::bench::cpu_loop(20_000_000).map_err(|e| e.to_string())?;
    outln!(
        "cpu loop: {} instructions in {:.3} s = {:.1} M instr/s",
        r.instructions,
        r.seconds,
        r.per_second() / 1e6
    );
    if let Some(app) = &cli.app {
        let bytes = read(app)?;
        let script = match &cli.events {
            Some(p) => Some(
                String::from_utf8(read(p)?)
                    .map_err(|_| format!("{}: not UTF-8 text", p.display()))?,
            ),
            None => None,
        };
        let features: Vec<(u32, u16, u32)> = cli
            .features
            .iter()
            .map(|f| feature(f))
            .collect::<Result<_, _>>()?;
        let r = palm_run::bench::app(&bytes, script.as_deref(), &features)
            .map_err(|e| format!("{}: {e}", app.display()))?;
        outln!(
            "{}: {} instructions in {:.3} s = {:.1} M instr/s",
            app.display(),
            r.instructions,
            r.seconds,
            r.per_second() / 1e6
        );
    }
    Ok(())
}

fn run(cli: &Cli) -> Result<bool, String> {
    let app = read(&cli.app)?;
    let exports: Vec<(String, PathBuf)> = cli
        .export
        .iter()
        .map(|e| match e.split_once('=') {
            // dmDBNameLength (DataMgr.h) is 32 bytes with the NUL.
            Some((n, _)) if palm_name(n).len() > 31 => Err(format!(
                "--export {e}: \"{}\" is {} bytes; a Palm database name has at most 31",
                palm_run::script::shown(n),
                palm_name(n).len()
            )),
            Some((n, f)) if !n.is_empty() && !f.is_empty() => Ok((n.to_string(), PathBuf::from(f))),
            _ => Err(format!("--export {e}: expected DBNAME=FILE")),
        })
        .collect::<Result<_, _>>()?;
    check_outputs(cli, &exports)?;
    let script = cli.events.as_deref().map(read_script).transpose()?;
    let then = match &cli.then {
        Some(p) => Some((
            p,
            read(p)?,
            cli.then_events.as_deref().map(read_script).transpose()?,
        )),
        None => None,
    };
    let features: Vec<(u32, u16, u32)> = cli
        .features
        .iter()
        .map(|f| feature(f))
        .collect::<Result<_, _>>()?;
    let elf = match &cli.elf {
        Some(p) => {
            let bytes = read(p)?;
            palm_run::symbols::elf_code1(&bytes).map_err(|e| format!("{}: {e}", p.display()))?;
            Some((p, bytes))
        }
        None => None,
    };
    let ram_size = match cli.ram_size {
        Some(r) => {
            palm_run::memory::check_sizes(r, cli.heap_size)?;
            r
        }
        None => {
            palm_run::memory::check_heap_size_in_default_ram(cli.heap_size)?;
            palm_run::memory::DEFAULT_RAM_SIZE
        }
    };
    let config = Config {
        ram_size,
        dynamic_heap_size: cli.heap_size,
        max_instructions: cli.max_instructions,
    };
    let mut m = Machine::with_config(&config).map_err(|e| e.to_string())?;
    m.max_traps = cli.max_traps;
    m.time_limit = (cli.timeout > 0).then(|| std::time::Duration::from_secs(cli.timeout));
    m.echo = true;
    m.trace_traps = cli.trace_traps;
    m.refuse_trap_patches = cli.refuse_trap_patches;
    m.fatal_mem_errors = !cli.nonfatal_checks;
    if cli.pumpkin {
        m.pumpkin_profile();
    }
    m.opaque_handles |= cli.opaque_handles;
    m.release_frees_records |= cli.release_frees_records;
    m.strict_record_writes = cli.strict_record_writes;
    m.missing_traps.extend(&cli.missing_traps);
    if cli.fatal_alerts {
        m.alert_response = palm_run::machine::AlertResponse::Reset;
    }
    for p in &cli.install {
        let bytes = read(p)?;
        m.install(&bytes)
            .map_err(|e| format!("{}: {e}{}", p.display(), foreign_hint(&bytes)))?;
    }
    let db = install_app(&mut m, &cli.app, &app)?;
    m.show_drawing = cli.show_drawing;
    if let Some((p, bytes)) = elf {
        let installed =
            m.os.dm
                .find(db.header.name.as_slice())
                .map(|d| d.id)
                .and_then(|id| palm_run::data_mgr::resource_bytes(&m, id, b"code", 1))
                .unwrap_or_default();
        palm_run::symbols::check_elf_matches(&bytes, &installed)
            .map_err(|e| format!("{}: not the ELF of {}: {e}", p.display(), cli.app.display()))?;
        let syms = palm_run::symbols::Symbols::from_elf(&bytes)
            .map_err(|e| format!("{}: {e}", p.display()))?;
        m.set_symbols(syms);
    }
    if let Some(s) = script {
        m.set_events(s);
    }
    for (crid, num, value) in features {
        m.os.ftr.features.insert((crid, num), value);
    }
    let out = m
        .launch(&db.header.name)
        .map_err(|e| format!("{}: {e}", cli.app.display()))?;
    // A script line naming what the app does not have is the script's error
    // (bad input), not the app's.
    if let (Some(stop), Some(p)) = (&out.stop, &cli.events)
        && let palm_run::machine::StopKind::Script { line, what } = &stop.kind
    {
        return Err(format!("{}:{line}: {what}", p.display()));
    }
    // (name, outcome, 68k instructions of the run)
    let mut runs = vec![(
        palm_run::data_mgr::shown_name(&db.header.name),
        out.clone(),
        m.stats.instructions,
    )];
    if let Some((path, bytes, script)) = then {
        // The first app's symbols do not name the second's code.
        m.clear_symbols();
        let db = install_app(&mut m, path, &bytes)?;
        m.set_events(script.unwrap_or_default());
        let before = m.stats.instructions;
        let second = m
            .launch(&db.header.name)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        runs.push((
            palm_run::data_mgr::shown_name(&db.header.name),
            second,
            m.stats.instructions - before,
        ));
    }
    // Every output is attempted; when the run failed (a fault, a limit, a
    // failed exit check), that is its result (exit 1) and an output that
    // could not be written (a database the app never created) is reported
    // beside it, not instead of it.
    let mut output_error = None;
    for (name, file) in &exports {
        // The name's bytes in the Palm character set, else as typed (a
        // database named in UTF-8 by some other tool).
        let found = [palm_name(name), name.as_bytes().to_vec()]
            .into_iter()
            .find(|b| m.os.dm.find(b).is_some());
        let written = match found {
            Some(bytes) => m.export(bytes),
            None => Err(format!(
                "no database named \"{}\"",
                palm_run::script::shown(name)
            )),
        }
        .and_then(|bytes| {
            std::fs::write(file, bytes).map_err(|e| format!("{}: {e}", file.display()))
        });
        if let Err(e) = written {
            output_error.get_or_insert(format!("--export {name}: {e}"));
        }
    }
    if let Some(p) = &cli.stats_json {
        let json = palm_run::bench::stats_json(&m, &out);
        if let Err(e) = std::fs::write(p, serde_json::to_string_pretty(&json).unwrap_or_default()) {
            output_error.get_or_insert(format!("--stats-json {}: {e}", p.display()));
        }
    }
    let passed = |o: &palm_run::launch::Outcome| {
        o.stop.is_none() && o.patches_left.is_empty() && (cli.allow_leaks || o.leaks.is_empty())
    };
    let ok = runs.iter().all(|(_, o, _)| passed(o)) && m.reports.is_empty();
    if let Some(e) = output_error {
        if ok {
            return Err(e);
        }
        errln!("palm-run: error: {e}");
    }
    for (name, o, instructions) in &runs {
        if let Some(r) = o.result {
            errln!("palm-run: {name} returned {r} after {instructions} instructions");
        }
    }
    if !ok {
        // Why the status is 1, in one line (the details are on stdout).
        // The plural is given: "trap patch" takes "es".
        let count =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut why = Vec::new();
        for (name, o, _) in &runs {
            // With --then, each reason names its app.
            let (app, by) = if runs.len() == 1 {
                ("the app".to_string(), "the app".to_string())
            } else {
                (name.clone(), name.clone())
            };
            if o.stop.is_some() {
                why.push(format!("{app} was stopped"));
            }
            if !cli.allow_leaks && !o.leaks.is_empty() {
                why.push(format!(
                    "{} left by {by} (--allow-leaks accepts them)",
                    count(o.leaks.len(), "chunk", "chunks")
                ));
            }
            if !o.patches_left.is_empty() {
                let what = count(o.patches_left.len(), "trap patch", "trap patches");
                why.push(if runs.len() == 1 {
                    format!("{what} left installed")
                } else {
                    format!("{what} left installed by {by}")
                });
            }
        }
        if !m.reports.is_empty() {
            why.push(count(
                m.reports.len(),
                "debug-ROM report",
                "debug-ROM reports",
            ));
        }
        errln!("palm-run: exit status 1: {}", why.join("; "));
    }
    Ok(ok)
}
