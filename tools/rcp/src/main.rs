//! `palm-rcp`: compiles a PilRC `.rcp` file into one `.bin` file per resource,
//! named as PilRC names them (`tFRM03e8.bin`: type, ID in hex).
//!
//! ```text
//! palm-rcp StarterApp.rcp -o build/rsrc [-I include-dir]...
//! ```
//!
//! Exit status: 0 on success, 1 on a compile error (printed as
//! `file:line:column: message`), 2 when the output cannot be written.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Compile a PilRC .rcp file into binary Palm resources (one .bin per resource).
#[derive(Parser)]
#[command(name = "palm-rcp", version)]
struct Args {
    /// The .rcp file to compile.
    input: PathBuf,
    /// Directory for the .bin files (created if missing; must not be a file).
    #[arg(short = 'o', long = "output", default_value = ".")]
    output: PathBuf,
    /// Directory searched for #include files after the including file's own.
    #[arg(short = 'I', long = "include")]
    include: Vec<PathBuf>,
    /// Print nothing on success.
    #[arg(short, long)]
    quiet: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let includes = palm_rcp::FsIncludes {
        search_dirs: args.include,
    };
    let resources = match palm_rcp::compile_file_with(&args.input, &includes) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    if args.output.exists() && !args.output.is_dir() {
        eprintln!(
            "palm-rcp: -o {}: the output must be a directory (one .bin file per resource is \
             written in it), and this is a file",
            args.output.display()
        );
        return ExitCode::from(2);
    }
    if let Err(e) = std::fs::create_dir_all(&args.output) {
        eprintln!("palm-rcp: cannot create {}: {e}", args.output.display());
        return ExitCode::from(2);
    }
    for r in &resources {
        let path = args.output.join(r.file_name());
        if let Err(e) = std::fs::write(&path, &r.data) {
            eprintln!("palm-rcp: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
        if !args.quiet {
            println!("{} ({} bytes)", path.display(), r.data.len());
        }
    }
    ExitCode::SUCCESS
}
