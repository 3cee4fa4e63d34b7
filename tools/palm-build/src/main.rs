//! `palm-build`: the command-line front end of the 68k pipeline.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use palm_build::coff::LibFormat;
use palm_build::{ImageKind, Options, verify};

#[derive(Parser)]
#[command(version, about = "Build no_std Rust into Palm OS 68k images and PRCs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build an application crate into <target>/palm/<Name>.prc and <Name>.elf.
    App {
        /// Cargo.toml of the application crate (a staticlib with [package.metadata.palm]).
        #[arg(long, default_value = "Cargo.toml")]
        manifest_path: PathBuf,
        /// cargo target directory (default: the workspace's).
        #[arg(long)]
        target_dir: Option<PathBuf>,
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::App {
            manifest_path,
            target_dir,
        } => palm_build::build_app(&Options {
            manifest_path,
            target_dir,
            kind: ImageKind::App,
            features: Vec::new(),
            quiet: false,
            raw_llvm: false,
        })
        .map(|app| {
            println!("{}", app.prc.display());
        }),
        Command::Image {
            manifest_path,
            test_lib,
            target_dir,
        } => palm_build::build_image(&Options {
            manifest_path,
            target_dir,
            kind: if test_lib {
                ImageKind::TestLib
            } else {
                ImageKind::App
            },
            features: Vec::new(),
            quiet: false,
            raw_llvm: false,
        })
        .map(|image| {
            println!(
                "{}: {} bytes of code 1",
                image.elf.display(),
                image.code.len()
            );
        }),
        Command::Lib {
            manifest_path,
            output,
            features,
            target_dir,
            format,
        } => palm_build::build_lib_as(
            &Options {
                manifest_path,
                target_dir,
                kind: ImageKind::TestLib,
                features,
                quiet: false,
                raw_llvm: false,
            },
            &output,
            format,
        )
        .map(|lib| {
            println!(
                "{}: exports {}",
                lib.archive.display(),
                lib.exported.join(" ")
            );
        }),
        Command::Verify { elf, test_lib } => {
            let rules = if test_lib {
                verify::Rules::TestLib
            } else {
                verify::Rules::App
            };
            verify::verify_elf(&elf, rules, &palm_build::Binutils::default().objdump)
                .map(|v| {
                    println!(
                        "{}: ok ({} bytes code, {} bytes rodata, {} instructions)",
                        elf.display(),
                        v.text_bytes,
                        v.rodata_bytes,
                        v.instructions
                    );
                })
                .map_err(anyhow::Error::from)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("palm-build: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
