//! `palm-build`: the command-line front end of the 68k pipeline.
//!
//! Exit status: 0 done; 1 the build failed (rustc's errors, a miscompilation
//! that cannot be repaired, the link, the verifier); 2 bad input, as for the
//! other tools: arguments, a manifest or its settings, the setup (toolchain
//! file, `cargo-features`, `[profile.palm]`, crate type), a `.rcp`, files that
//! are missing or not what they should be, missing tools
//! ([`palm_build::error`]).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use palm_build::coff::LibFormat;
use palm_build::error::{bad_input, is_bad_input};
use palm_build::{ImageKind, Options, capp, ids, new, prc, verify};

#[derive(Parser)]
#[command(
    version,
    about = "Build no_std Rust and C into Palm OS 68k images and PRCs",
    after_help = "Exit status: 0 done, 1 the build failed (compiler, link, verifier), 2 bad \
                  input (arguments, manifest, setup, .rcp, missing files or tools)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Make a new Palm app with memdbg in DIR: Rust (default) or C (--c).
    ///
    /// It builds and runs as generated: a form, a menu with an item that leaks
    /// on purpose, an alert, memdbg on for the app's run, and events.txt for
    /// palm-run. It depends on this memdbg checkout by path.
    New {
        /// The directory to create (its name is the package name).
        dir: PathBuf,
        /// A C app (Makefile, GNU C, palm-sys.h, memdbg.h) instead of Rust.
        #[arg(long)]
        c: bool,
        /// The Palm database name [default: DIR's name in CamelCase].
        #[arg(long)]
        name: Option<String>,
        /// The creator ID (four characters) [default: made from the name].
        #[arg(long)]
        creator: Option<String>,
        /// The memdbg checkout to depend on [default: this palm-build's].
        #[arg(long, value_name = "CHECKOUT")]
        memdbg: Option<PathBuf>,
    },
    /// Build an application crate into <target>/palm/<Name>.prc and <Name>.elf.
    App {
        /// Cargo.toml of the application crate (a staticlib with [package.metadata.palm]).
        #[arg(long, default_value = "Cargo.toml")]
        manifest_path: PathBuf,
        /// cargo target directory (default: the workspace's).
        #[arg(long)]
        target_dir: Option<PathBuf>,
    },
    /// Link C objects and archives into a PRC (and its ELF), verified as code 1.
    ///
    /// The objects come from m68k-linux-gnu-gcc -m68000 -mpcrel -ffixed-a5 (see
    /// palm-sys/include/palm-sys.h); one of them defines the entry
    /// (PALM_APP_ENTRY). Archives follow the objects that use them
    /// (libmemdbg.a from `palm-build lib`).
    CApp(CAppArgs),
    /// Write the numeric #defines of a .rcp (and its headers) as a Rust module or a C header.
    Ids {
        /// The .rcp file.
        rcp: PathBuf,
        /// A C header instead of a Rust module.
        #[arg(long)]
        c: bool,
        /// The file to write [default: standard output].
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Compile, repair, assemble, link and verify a 68k crate; print the image summary.
    Image {
        /// Cargo.toml of the crate (a staticlib).
        #[arg(long, default_value = "Cargo.toml")]
        manifest_path: PathBuf,
        /// Build a test library (keep every exported function; no entry point).
        #[arg(long)]
        test_lib: bool,
        /// cargo target directory (default: the workspace's).
        #[arg(long)]
        target_dir: Option<PathBuf>,
    },
    /// Build a staticlib crate into a static archive for C apps: compiled,
    /// IR-checked, repaired and assembled like an app, every object verified
    /// (PC-relative relocations only, no writable sections, 68000 only).
    Lib {
        /// Cargo.toml of the crate (crate-type exactly ["staticlib"]).
        #[arg(long, default_value = "Cargo.toml")]
        manifest_path: PathBuf,
        /// The archive to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Cargo features to enable on the crate (comma-separated).
        #[arg(long, value_delimiter = ',')]
        features: Vec<String>,
        /// cargo target directory (default: the workspace's).
        #[arg(long)]
        target_dir: Option<PathBuf>,
        /// Archive format: elf (GNU ld) or coff (coff-m68k, for prc-tools' m68k-palmos-ld).
        #[arg(long, value_enum, default_value = "elf")]
        format: LibFormat,
    },
    /// Check a linked ELF against the Palm code 1 rules.
    Verify {
        /// The ELF (linked with `ld -q` so relocations are kept).
        elf: PathBuf,
        /// Do not require an entry point at offset 0.
        #[arg(long)]
        test_lib: bool,
    },
}

/// `palm-build c-app`'s options: the inputs, the outputs and the PRC's
/// settings (named as `[package.metadata.palm]`'s).
#[derive(Args)]
struct CAppArgs {
    /// Objects and archives, in link order.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The PRC to write.
    #[arg(short, long)]
    output: PathBuf,
    /// The ELF to keep for memdbg report [default: the PRC's path with .elf].
    #[arg(long)]
    elf: Option<PathBuf>,
    /// Database name (≤ 31 printable ASCII characters).
    #[arg(long)]
    name: String,
    /// Creator ID (four characters).
    #[arg(long)]
    creator: String,
    /// PilRC .rcp files to compile into the PRC.
    #[arg(long = "rcp", value_name = "RCP")]
    resources: Vec<PathBuf>,
    /// Launcher name (tAIN 1000) [default: the name; a .rcp's APPLICATIONICONNAME wins].
    #[arg(long)]
    launcher_name: Option<String>,
    /// Version string (tver 1) [default: 1.0; a .rcp's VERSION wins].
    #[arg(long, default_value = "1.0")]
    version: String,
    /// Stack size in bytes (pref 0) [default: 4096].
    #[arg(long)]
    stack_size: Option<u64>,
    /// Build in prc-tools' layout: globals in data 0, and these sections
    /// (__attribute__((section("NAME")))) as code 2, 3, … in this order
    /// (comma-separated); compile with palm_build::segments::GCC_FLAGS.
    #[arg(long, value_delimiter = ',', value_name = "SECTION")]
    segments: Vec<String>,
    /// No progress lines.
    #[arg(short, long)]
    quiet: bool,
}

fn options(manifest_path: PathBuf, target_dir: Option<PathBuf>, kind: ImageKind) -> Options {
    Options {
        manifest_path,
        target_dir,
        kind,
        features: Vec::new(),
        quiet: false,
        raw_llvm: false,
    }
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::New {
            dir,
            c,
            name,
            creator,
            memdbg,
        } => {
            let language = if c {
                new::Language::C
            } else {
                new::Language::Rust
            };
            let created = new::create(&new::NewApp {
                dir,
                language,
                name,
                creator,
                checkout: memdbg,
            })?;
            eprint!("{}", new::summary(&created, language));
        }
        Command::App {
            manifest_path,
            target_dir,
        } => {
            let app = palm_build::build_app(&options(manifest_path, target_dir, ImageKind::App))?;
            println!("{}", app.prc.display());
        }
        Command::CApp(a) => {
            let meta = prc::AppMeta::from_settings(
                prc::Settings {
                    name: a.name,
                    creator: a.creator,
                    launcher_name: a.launcher_name,
                    version: a.version,
                    stack_size: a.stack_size,
                    resources: a.resources,
                },
                &|key| format!("--{key}"),
            )
            .map_err(bad_input)?;
            let elf = a.elf.unwrap_or_else(|| a.output.with_extension("elf"));
            let built = capp::build_c_app(&capp::CApp {
                inputs: a.inputs,
                meta,
                prc: a.output,
                elf,
                segments: a.segments,
                quiet: a.quiet,
            })?;
            println!("{}", built.prc.display());
        }
        Command::Ids { rcp, c, output } => {
            let text = match (c, &output) {
                (true, Some(out)) => ids::c_header(&rcp, out)?,
                (true, None) => ids::c_header(&rcp, "resource_ids.h".as_ref())?,
                (false, _) => ids::rust_module(&rcp)?,
            };
            match output {
                Some(out) => palm_build::ids::write_if_changed(&out, &text).map_err(bad_input)?,
                None => print!("{text}"),
            }
        }
        Command::Image {
            manifest_path,
            test_lib,
            target_dir,
        } => {
            let kind = if test_lib {
                ImageKind::TestLib
            } else {
                ImageKind::App
            };
            let image = palm_build::build_image(&options(manifest_path, target_dir, kind))?;
            println!(
                "{}: {} bytes of code 1",
                image.elf.display(),
                image.code.len()
            );
        }
        Command::Lib {
            manifest_path,
            output,
            features,
            target_dir,
            format,
        } => {
            let lib = palm_build::build_lib_as(
                &Options {
                    features,
                    ..options(manifest_path, target_dir, ImageKind::TestLib)
                },
                &output,
                format,
            )?;
            // The C interface; the Rust-mangled symbols are internal.
            let (rust, c): (Vec<&String>, Vec<&String>) =
                lib.exported.iter().partition(|s| s.starts_with("_R"));
            println!(
                "{}: exports {} (and {} internal Rust symbols)",
                lib.archive.display(),
                c.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "),
                rust.len()
            );
        }
        Command::Verify { elf, test_lib } => {
            // An ELF that cannot be read is bad input; one the rules reject
            // is a failed check.
            let data = std::fs::read(&elf)
                .with_context(|| format!("{}: cannot read it", elf.display()))
                .map_err(bad_input)?;
            object::File::parse(&*data)
                .with_context(|| format!("{}: not an ELF file", elf.display()))
                .map_err(bad_input)?;
            let rules = if test_lib {
                verify::Rules::TestLib
            } else {
                verify::Rules::App
            };
            let v = verify::verify_elf(&elf, rules, &palm_build::Binutils::default().objdump)?;
            println!(
                "{}: ok ({} bytes code, {} bytes rodata, {} instructions)",
                elf.display(),
                v.text_bytes,
                v.rodata_bytes,
                v.instructions
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("palm-build: error: {e:#}");
            ExitCode::from(if is_bad_input(&e) { 2 } else { 1 })
        }
    }
}
