//! # palm-build: no_std Rust → MC68000 → a Palm OS PRC
//!
//! rustc's LLVM m68k backend miscompiles ordinary code (`docs/TOOLCHAIN.md`
//! lists the bugs), so 68k code is never taken from LLVM's object writer.
//! Instead:
//!
//! 1. **cargo** (pinned nightly, `-Zbuild-std=core,alloc`, profile `palm`:
//!    opt-level z, fat LTO, `panic = "immediate-abort"`) with the flags in
//!    [`cargo::TARGET_RUSTFLAGS`] emits the whole program as assembly
//!    (`--emit=asm`), plus compiler_builtins' assembly ([`cargo`]).
//! 2. **IR check** ([`ircheck`]): fails the build, naming the function, when
//!    the program or compiler_builtins hits a miscompilation that cannot be
//!    repaired after instruction selection (bugs 2, 7, 9 and 16 of
//!    `docs/TOOLCHAIN.md`); for a routine of core, alloc or compiler_builtins
//!    the error names the program's functions that reach it ([`callers`]).
//! 3. **Repair** (crate `m68k-asm-repair`): rewrites the known miscompile
//!    patterns in the assembly (CCR clobbered by moves, `and.l #,%aN`, 68020
//!    multiplies).
//! 4. **GNU as** `-m68000 --pcrel` (rejects anything a 68000 does not have),
//!    with our own 68000 `memcpy`/`memmove`/`memset` (`rt/mem.s`) and the
//!    crates' own assembly (below).
//! 5. **GNU ld** `-q --gc-sections` with `rt/palm.ld`: code at 0, entry first,
//!    `.text` then `.rodata`.
//! 6. **Verifier** ([`verify`]): no absolute relocations, no writable
//!    sections, only 68000 instructions, ≤ 32 KB, entry at offset 0.
//!
//! Between 3 and 4, each function gets its MacsBug name after its last
//! instruction ([`macsbug`]; on unless [`Options::macsbug_names`] or
//! `macsbug-names = false` in `[package.metadata.palm]` turns it off), which
//! POSE, CloudpilotEmu and palm-run show in stack crawls and leak dumps.
//!
//! The result is an [`Image`]: the ELF (kept for symbols and DWARF) and the
//! bytes of code resource 1. [`prc`] packages an application image and its
//! resources as a PRC.
//!
//! Before stage 1, [`setup`] checks the workspace (toolchain file and
//! channel, `cargo-features`, `[profile.palm]`) and says what to copy; every
//! build passes the crate's resource IDs to rustc ([`ids`]). Besides `app`,
//! `image` and `lib`, the `palm-build` command makes new apps ([`new`]:
//! `palm-build new DIR [--c]`), links C apps ([`capp`]: `palm-build c-app`;
//! with `--segments`, in prc-tools' layout with globals and code 2…n: [`segments`])
//! and writes a `.rcp`'s IDs for C (`palm-build ids --c`). Its exit status is
//! 2 for bad input and 1 for a failed build ([`error`]).
//!
//! ## Hand-written assembly in a crate
//! A crate of the program (the app, or a library it depends on, such as
//! memdbg) may carry GNU as files for the 68000, listed in its Cargo.toml:
//!
//! ```toml
//! [package.metadata.palm]
//! asm = ["asm/alloc.s", "asm/free.s"]   # relative to this Cargo.toml
//! ```
//!
//! Every build that compiles the crate (an app, a test library, `palm-build
//! lib`'s archive for C) assembles them with `-m68000 --pcrel` and links them
//! with the program. They reach structure offsets and other constants of the
//! Rust side through one generated file: a crate declares each constant with
//! `core::arch::global_asm!(".equ NAME, {v}", v = const offset_of!(T, f))`
//! (68k only), palm-build collects every such `NAME = value` of the
//! whole-program assembly into `asm-constants.inc`
//! ([`ASM_CONSTANTS_FILE`]), and the `.s` files `.include
//! "asm-constants.inc"`. The values are the 68k compilation's own (its
//! layout aligns `u32` to 2 bytes, unlike a host's), so a moved field moves
//! the assembly's offset with it. The assembly's global symbols are ordinary
//! link symbols: Rust calls them as `extern "C"` functions or with an `asm!`
//! `jsr`, and they call Rust functions that have an `export_name`.

#![deny(missing_docs)]

pub mod callers;
pub mod capp;
pub mod cargo;
pub mod coff;
pub mod emu;
pub mod error;
pub mod ids;
pub mod ircheck;
mod link;
pub mod macsbug;
pub mod new;
pub mod prc;
pub mod segments;
pub mod setup;
pub mod verify;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

pub use link::{ASM_CONSTANTS_FILE, Binutils, RUNTIME_ASM, split_constants};

/// What to build.
#[derive(Clone, Debug)]
pub struct Options {
    /// Cargo.toml of the 68k crate. It must have a `staticlib` library target.
    pub manifest_path: PathBuf,
    /// cargo's target directory; `None` = the workspace's (from `cargo metadata`).
    /// Outputs go to `<target_dir>/palm/`.
    pub target_dir: Option<PathBuf>,
    /// Application (entry at offset 0) or test library (every exported
    /// `#[no_mangle]` function kept, no entry).
    pub kind: ImageKind,
    /// Cargo features to enable on the crate.
    pub features: Vec<String>,
    /// Suppress progress lines on stderr.
    pub quiet: bool,
    /// Diagnostic only: link LLVM's own object code (cargo's staticlib)
    /// instead of the repaired, GNU-assembled code, and skip the IR check and
    /// the verifier. The image is wrong on purpose: it shows what the
    /// pipeline repairs (the differential corpus fails on it). Never ship it.
    pub raw_llvm: bool,
    /// Put each function's MacsBug name after its code ([`macsbug`]). The
    /// crate's `macsbug-names = false` in `[package.metadata.palm]` turns
    /// them off too. (`raw_llvm` images never have them.)
    pub macsbug_names: bool,
}

impl Options {
    /// Prints a progress line on stderr unless [`Options::quiet`].
    fn progress(&self, msg: &str) {
        if !self.quiet {
            eprintln!("palm-build: {msg}");
        }
    }
}

/// The kind of image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    /// A Palm application: the entry `__palm_entry` (from
    /// `m68k_palmos_sys::app_entry!`, section `.text.palm_entry`) at offset 0,
    /// only what it reaches is kept.
    App,
    /// A library of `#[no_mangle] extern "C"` functions for tests: all of
    /// the top crate's exported symbols are kept; there is no entry.
    TestLib,
}

impl ImageKind {
    /// The verifier's rules for this kind of image.
    fn rules(self) -> verify::Rules {
        match self {
            ImageKind::App => verify::Rules::App,
            ImageKind::TestLib => verify::Rules::TestLib,
        }
    }
}

/// A linked, verified code 1 image.
#[derive(Clone, Debug)]
pub struct Image {
    /// The linked ELF, `<target>/palm/<crate>.link.elf` (relocations kept
    /// with `ld -q`; DWARF for symbolization).
    pub elf: PathBuf,
    /// The bytes of code resource 1: `.text` then `.rodata`, linked at 0.
    pub code: Vec<u8>,
    /// Every named symbol in the image → its offset from the start of code 1
    /// (= its ELF address). Mangled names; not the data symbols that mark
    /// MacsBug names ([`macsbug::is_marker`]).
    pub symbols: BTreeMap<String, u32>,
    /// Offset of the entry (0 for applications, 0 for test libraries too).
    pub entry: u32,
    /// The package that was built.
    pub package: cargo::Package,
    /// What the repair pass changed, as one summary line per kind.
    pub repairs: Vec<String>,
    /// Verifier statistics.
    pub verified: verify::Verified,
    /// The program's assembly constants (`global_asm!(".equ NAME, {v}", v =
    /// const …)` of its crates, as the 68k compilation computed them), which
    /// the crates' hand-written assembly includes: name → value. Tests that
    /// run that assembly in the emulator lay out its data with them.
    pub asm_constants: BTreeMap<String, i64>,
}

impl Image {
    /// Offset of `symbol` (mangled or `#[no_mangle]` name).
    ///
    /// # Errors
    /// The symbol is not in the image (e.g. removed by `--gc-sections`).
    pub fn symbol(&self, symbol: &str) -> Result<u32> {
        self.symbols
            .get(symbol)
            .copied()
            .with_context(|| format!("symbol `{symbol}` is not in {}", self.elf.display()))
    }
}

/// A crate compiled for the 68000 and IR-checked, its work directory locked.
struct Prepared {
    pkg: cargo::Package,
    target_dir: PathBuf,
    out_dir: PathBuf,
    variant: String,
    work: PathBuf,
    compiled: cargo::Compiled,
    /// What the IR check found (the caller decides which functions matter).
    findings: Vec<ircheck::Finding>,
    /// Whether functions get MacsBug names (the option and the metadata).
    names: bool,
    /// Held until the build's outputs are written.
    _lock: std::fs::File,
}

/// The findings whose function `counts` (it is linked, say), each with the
/// program's functions that reach it when it is a library routine
/// ([`ircheck::Finding::reached_from`], followed through functions that
/// count). `None` for `counts` means "defined in the program's assembly"
/// (not compiler_builtins', not a build script's).
fn findings_that_count(
    findings: &[ircheck::Finding],
    compiled: &cargo::Compiled,
    counts: Option<&dyn Fn(&str) -> bool>,
) -> Result<Vec<ircheck::Finding>> {
    let read =
        |p: &Path| std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()));
    let program_asm = read(&compiled.top_asm)?;
    let program = callers::functions(&program_asm);
    let in_program = |s: &str| program.contains(s);
    let counts = counts.unwrap_or(&in_program);
    let mut bad: Vec<ircheck::Finding> = findings
        .iter()
        .filter(|f| counts(&f.symbol))
        .cloned()
        .collect();
    if !bad.is_empty() {
        let graph = callers::CallGraph::from_assembly(&program_asm, &read(&compiled.builtins_asm)?);
        for f in &mut bad {
            f.reached_from = graph.reached_from(&f.symbol, counts);
        }
    }
    Ok(bad)
}

/// The error that stops a build on functions the IR check found.
fn unrepairable(findings: &[ircheck::Finding]) -> anyhow::Error {
    let list: Vec<String> = findings.iter().map(|f| format!("  - {f}")).collect();
    anyhow!(
        "{} function(s) hit LLVM m68k miscompilations that cannot be repaired in the \
         assembly, so the build stops:\n{}",
        findings.len(),
        list.join("\n")
    )
}

/// Stages 1–2 of every build: cargo, then the IR check (or its cached verdict).
fn compile_checked(opts: &Options) -> Result<Prepared> {
    let pkg = cargo::package(&opts.manifest_path)?;
    let names = opts.macsbug_names && macsbug::wanted(&pkg)?;
    let target_dir = opts
        .target_dir
        .clone()
        .unwrap_or_else(|| pkg.target_dir.clone());
    let out_dir = target_dir.join("palm");
    // Builds of one crate with different features keep separate files.
    let variant = if opts.features.is_empty() {
        pkg.name.clone()
    } else {
        format!("{}+{}", pkg.name, opts.features.join("+"))
    };
    let work = out_dir.join("work").join(&variant);
    // One build of a variant at a time, across threads and processes: the
    // work files (.s, .o, the IR verdict) and the ELF are per variant.
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let lock = std::fs::File::create(work.join(".lock"))
        .with_context(|| format!("creating {}", work.join(".lock").display()))?;
    lock.lock()
        .with_context(|| format!("locking {}", work.display()))?;
    let progress = |msg: &str| opts.progress(msg);
    for w in &pkg.setup_warnings {
        eprintln!("palm-build: warning: {w}");
    }
    progress(&format!(
        "compiling {} for the 68000 ({})",
        pkg.name,
        cargo::TARGET
    ));
    let mut compiled = cargo::compile(&pkg, &opts.features, &target_dir, &work, opts.quiet)?;

    // The IR dump exists only when rustc ran; its verdict is kept for builds
    // where cargo finds the crate fresh, keyed to the assembly it was made
    // with. A verdict of another version of the check (cargo does not rerun
    // rustc when only the dump flags change), or of other assembly (rustc ran
    // but palm-build was interrupted before it wrote the verdict), is not
    // trusted: the crate is cleaned and compiled again.
    let verdict_file = work.join("ircheck.txt");
    let mut cached = None;
    if compiled.ir_dump.is_none() {
        cached = read_verdict(&verdict_file, asm_digest(&compiled.top_asm));
        if cached.is_none() {
            progress("the IR check's verdict is missing or stale: recompiling");
            cargo::clean_package(&pkg, &target_dir)?;
            compiled = cargo::compile(&pkg, &opts.features, &target_dir, &work, opts.quiet)?;
        }
    }
    let findings = match (&compiled.ir_dump, cached) {
        (Some(dump), _) => {
            if !ircheck::dumps_compiler_builtins(dump) {
                bail!(
                    "rustc's IR dump of {} has no compiler_builtins functions (cargo prints them \
                     from its output cache when compiler_builtins is up to date), so its \
                     routines cannot be checked; run `cargo clean` and build again",
                    pkg.name
                );
            }
            let findings = ircheck::scan_ir(dump);
            write_verdict(&verdict_file, &findings, asm_digest(&compiled.top_asm))?;
            findings
        }
        (None, Some(findings)) => findings,
        (None, None) => bail!(
            "cargo did not recompile {} for the IR check; run `cargo clean -p {}`",
            pkg.name,
            pkg.name
        ),
    };
    Ok(Prepared {
        pkg,
        target_dir,
        out_dir,
        variant,
        work,
        compiled,
        findings,
        names,
        _lock: lock,
    })
}

/// Builds `opts.manifest_path` into a verified code 1 image.
///
/// # Errors
/// cargo fails; the IR check finds an unrepairable miscompilation in a
/// linked function (naming it, and the program's functions that reach it);
/// the repair pass, GNU as or ld fail; or the verifier rejects the image
/// (every violation listed).
pub fn build_image(opts: &Options) -> Result<Image> {
    let Prepared {
        pkg,
        target_dir,
        out_dir,
        variant,
        work,
        compiled,
        findings,
        names,
        _lock,
    } = compile_checked(opts)?;
    let progress = |msg: &str| opts.progress(msg);
    let binutils = Binutils::default();
    if opts.raw_llvm {
        let elf = out_dir.join(format!("{variant}.raw-llvm.elf"));
        let archive = target_dir
            .join(cargo::TARGET)
            .join(cargo::PROFILE)
            .join(format!("lib{}.a", pkg.lib_name));
        progress("linking LLVM's own objects (raw, unrepaired, unverified)");
        let linked = link::link_raw(&binutils, &compiled, &archive, &work, &elf, opts.kind)?;
        return Ok(Image {
            elf,
            code: linked.code,
            symbols: linked.symbols,
            entry: 0,
            package: pkg,
            repairs: Vec::new(),
            verified: verify::Verified::default(),
            asm_constants: linked.constants.into_iter().collect(),
        });
    }
    // `.link.elf`: an app's `<Name>.elf` (its last good build, `build_app`)
    // sits in the same directory, and `hello.elf` beside `Hello.elf` would be
    // one file on a case-insensitive file system.
    let elf = out_dir.join(format!("{variant}.link.elf"));
    progress("repairing, assembling and linking");
    let linked = link::assemble_and_link(&binutils, &compiled, &work, &elf, opts.kind, names);
    // Only functions that survive --gc-sections matter; if linking failed,
    // every finding in the program's code is reported (it may be the cause).
    let in_image = linked
        .as_ref()
        .ok()
        .map(|l| move |symbol: &str| l.symbols.contains_key(symbol));
    let bad = findings_that_count(
        &findings,
        &compiled,
        in_image.as_ref().map(|f| f as &dyn Fn(&str) -> bool),
    )?;
    if !bad.is_empty() {
        return Err(unrepairable(&bad));
    }
    let linked = linked?;
    if !linked.repairs.is_empty() {
        progress(&format!("repaired {}", linked.repairs.join(", ")));
    }

    let verified = verify::verify_elf(&elf, opts.kind.rules(), &binutils.objdump)?;
    progress(&format!(
        "verified {}: {} bytes of code + {} bytes of rodata, {} instructions, all 68000{}",
        elf.display(),
        verified.text_bytes,
        verified.rodata_bytes,
        verified.instructions,
        names_note(&verified)
    ));
    let entry = match opts.kind {
        ImageKind::App => linked
            .symbols
            .get(verify::ENTRY_SYMBOL)
            .copied()
            .unwrap_or(0),
        ImageKind::TestLib => 0,
    };
    Ok(Image {
        elf,
        code: linked.code,
        symbols: linked.symbols,
        entry,
        package: pkg,
        repairs: linked.repairs,
        verified,
        asm_constants: linked.constants.into_iter().collect(),
    })
}

/// A static archive for C linkers built by [`build_lib`].
#[derive(Clone, Debug)]
pub struct Library {
    /// The archive (`ar` with a symbol index).
    pub archive: PathBuf,
    /// Its member: one object partially linked (`ld -r`) from the crate's
    /// whole program (after LTO), compiler_builtins, palm-build's
    /// `memcpy`/`memmove`/`memset` and the repair pass's helpers, each
    /// repaired and assembled by GNU as `-m68000 --pcrel`; checked by
    /// [`verify::verify_object`].
    pub objects: Vec<PathBuf>,
    /// The crate's exported (global) symbols, e.g. `memdbg_start`.
    pub exported: Vec<String>,
    /// A test link of the exported functions and everything they reach
    /// (`<target>/palm/<crate>.lib.elf`), verified as a test library.
    pub check_elf: PathBuf,
    /// That link's statistics: what the exported functions cost a C app.
    pub verified: verify::Verified,
    /// What the repair pass changed, one summary line per kind.
    pub repairs: Vec<String>,
    /// For [`coff::LibFormat::Coff`]: the coff-m68k archive (then
    /// [`Library::archive`]) and its conversion; the ELF archive the check
    /// link used stays in the work directory.
    pub coff: Option<coff::CoffLibrary>,
}

/// Builds a `staticlib` crate into a static archive `archive` for C apps
/// (`palm-build lib`): the app pipeline's compile, IR check, repair and GNU as
/// steps, with compiler_builtins' repaired assembly and palm-build's own
/// `memcpy`/`memmove`/`memset`, then `m68k-linux-gnu-ar`. Every object is
/// verified relocatable for code 1 ([`verify::verify_object`]: PC-relative
/// relocations only, no writable sections, 68000 instructions only), and a
/// test link of the exported functions is verified as a whole
/// ([`verify::Rules::TestLib`]: self-contained, ≤ 32 KB).
///
/// # Errors
/// As [`build_image`]; the IR check fails on any function of the crate's
/// program (the archive keeps all of it) and on a compiler_builtins routine
/// the exported functions reach; or an object breaks a rule.
pub fn build_lib(opts: &Options, archive: &Path) -> Result<Library> {
    build_lib_as(opts, archive, coff::LibFormat::Elf)
}

/// [`build_lib`] writing `archive` in `format`: for
/// [`coff::LibFormat::Coff`], the verified ELF object is also converted into
/// a coff-m68k archive for prc-tools' linker ([`coff::write_library`]:
/// converted, read back and verified by the same rules).
///
/// # Errors
/// As [`build_lib`] and [`coff::write_library`].
pub fn build_lib_as(opts: &Options, archive: &Path, format: coff::LibFormat) -> Result<Library> {
    let Prepared {
        pkg,
        out_dir,
        variant,
        work,
        compiled,
        findings,
        names,
        _lock,
        ..
    } = compile_checked(&Options {
        kind: ImageKind::TestLib,
        ..opts.clone()
    })?;
    let progress = |msg: &str| opts.progress(msg);
    // The archive keeps all of the crate's code: every finding there counts.
    // compiler_builtins' routines count when the exported functions reach
    // them (checked after the test link below).
    let own = findings_that_count(&findings, &compiled, None)?;
    if !own.is_empty() {
        return Err(unrepairable(&own));
    }
    let binutils = Binutils::default();
    progress("repairing and assembling");
    let link::Assembled {
        objects: assembled,
        repairs,
        ..
    } = link::assemble_all(&binutils, &compiled, &work, names)?;
    if !repairs.is_empty() {
        progress(&format!("repaired {}", repairs.join(", ")));
    }
    let (parts, members) = (work.join("lib-parts"), work.join("lib"));
    for dir in [&parts, &members] {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut stripped = Vec::new();
    for object in &assembled {
        let name = object.file_name().unwrap_or_default().to_string_lossy();
        let member = parts.join(name.replace(".fixed.o", ".o"));
        // compiler_builtins' weak mem routines sit in sections named like
        // rt/mem.s's (`.text.memcpy`): `ld -r` would merge each pair into
        // one section, which a C link's --gc-sections then keeps whole, with
        // the unused builtin implementations it reaches (2 KB).
        let renames: Vec<String> = if name.starts_with("compiler_builtins-") {
            ["memcpy", "memmove", "memset"]
                .iter()
                .map(|f| format!(".text.{f}=.text.compiler_builtins.{f}"))
                .collect()
        } else {
            Vec::new()
        };
        link::strip_bitcode(&binutils, object, &member, &renames)?;
        stripped.push(member);
    }
    // One member, partially linked (`ld -r`, sections kept apart for the C
    // link's --gc-sections): its strong `memcpy`/`memmove`/`memset` (rt/mem.s)
    // replace compiler_builtins' weak, miscompiled ones inside it. As separate
    // members, which definition a C link gets would depend on which member
    // ld happens to load first.
    let object = members.join(format!("{}.o", pkg.lib_name));
    link::partial_link(&binutils, &stripped, &object)?;
    let member = verify::verify_object(&object, &binutils.objdump)?;
    progress(&format!(
        "verified {}: {} instructions, all 68000, PC-relative only{}",
        object.display(),
        member.instructions,
        names_note(&member)
    ));
    let objects = vec![object];
    if let Some(dir) = archive.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let elf_archive = match format {
        coff::LibFormat::Elf => archive.to_path_buf(),
        coff::LibFormat::Coff => members.join(format!("lib{}.a", pkg.lib_name)),
    };
    link::archive(&binutils, &objects, &elf_archive)?;
    // The check link takes the archive as a C linker does.
    let exported = link::globals_of(&compiled.top_asm)?;
    let check_elf = out_dir.join(format!("{variant}.lib.elf"));
    let check = link::link_inputs(
        &binutils,
        &[elf_archive],
        &exported,
        &work,
        &check_elf,
        ImageKind::TestLib,
        true,
    )?;
    let reached = findings_that_count(
        &findings,
        &compiled,
        Some(&|s: &str| check.symbols.contains_key(s)),
    )?;
    if !reached.is_empty() {
        return Err(unrepairable(&reached));
    }
    let verified = verify::verify_elf(&check_elf, verify::Rules::TestLib, &binutils.objdump)?;
    check_mem_routines(&check_elf)?;
    progress(&format!(
        "verified {}: the exported functions link alone from the archive in {} bytes of code \
         + {} bytes of rodata",
        check_elf.display(),
        verified.text_bytes,
        verified.rodata_bytes
    ));
    let coff = match format {
        coff::LibFormat::Elf => None,
        coff::LibFormat::Coff => {
            let lib =
                coff::write_library(&objects[0], &exported, archive, &work, &binutils.objdump)?;
            let c = &lib.converted;
            progress(&format!(
                "converted to coff-m68k: {} bytes of .text ({} of code, {} instructions, all \
                 68000, PC-relative only) from {} sections reached from the exports ({} left \
                 out), {} undefined symbol(s)",
                c.object.sections[0].size,
                c.code_bytes,
                lib.verified.instructions,
                c.kept_sections,
                c.dropped_sections,
                c.undefined.len()
            ));
            Some(lib)
        }
    };
    progress(&format!("wrote {} (from {})", archive.display(), pkg.name));
    Ok(Library {
        archive: archive.to_path_buf(),
        objects,
        exported,
        check_elf,
        verified,
        repairs,
        coff,
    })
}

/// `, N MacsBug names (B bytes)` for a progress line, or nothing.
fn names_note(v: &verify::Verified) -> String {
    if v.macsbug_names == 0 {
        String::new()
    } else {
        format!(
            ", {} MacsBug names ({} bytes)",
            v.macsbug_names, v.macsbug_bytes
        )
    }
}

/// Fails when the linked `elf` took `memcpy`, `memmove` or `memset` from
/// compiler_builtins (weak definitions, wrong on misaligned pointers:
/// docs/TOOLCHAIN.md bug 4) instead of palm-build's runtime (strong).
fn check_mem_routines(elf: &Path) -> Result<()> {
    use object::{Object, ObjectSymbol};
    let data = std::fs::read(elf).with_context(|| format!("reading {}", elf.display()))?;
    let file = object::File::parse(&*data).with_context(|| format!("parsing {}", elf.display()))?;
    for sym in file.symbols() {
        let name = sym.name().unwrap_or("");
        if ["memcpy", "memmove", "memset"].contains(&name) && sym.is_definition() && sym.is_weak() {
            bail!(
                "{}: `{name}` is compiler_builtins' weak one, not palm-build's runtime's",
                elf.display()
            );
        }
    }
    Ok(())
}

/// Code 1 linked from prebuilt objects and archives by [`link_objects`].
#[derive(Clone, Debug)]
pub struct Linked {
    /// The linked ELF (relocations kept).
    pub elf: PathBuf,
    /// The bytes of code resource 1.
    pub code: Vec<u8>,
    /// Every named symbol → its offset in code 1 (no MacsBug markers).
    pub symbols: BTreeMap<String, u32>,
    /// Verifier statistics.
    pub verified: verify::Verified,
}

/// Links prebuilt 68k objects and archives (a C application's objects and a
/// [`build_lib`] archive, say) with palm-build's linker script (code at 0, the
/// entry's section `.text.palm_entry` first, `--gc-sections`) into `elf`, and
/// verifies it as `kind` (an application needs `__palm_entry` at offset 0).
/// [`prc::build_prc_from_code`] packages the result.
///
/// # Errors
/// ld fails (undefined symbols, over 32 KB), or the verifier rejects the image.
pub fn link_objects(inputs: &[PathBuf], elf: &Path, kind: ImageKind) -> Result<Linked> {
    let binutils = Binutils::default();
    let work = elf.with_extension("work");
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let linked = link::link_inputs(&binutils, inputs, &[], &work, elf, kind, true)?;
    let verified = verify::verify_elf(elf, kind.rules(), &binutils.objdump)?;
    Ok(Linked {
        elf: elf.to_path_buf(),
        code: linked.code,
        symbols: linked.symbols,
        verified,
    })
}

/// A built application: the PRC and the ELF kept beside it for symbols.
#[derive(Clone, Debug)]
pub struct App {
    /// `<target>/palm/<Name>.prc`.
    pub prc: PathBuf,
    /// `<target>/palm/<Name>.elf` (a copy of the image's ELF).
    pub elf: PathBuf,
    /// The image in code 1.
    pub image: Image,
    /// The settings from `[package.metadata.palm]`.
    pub meta: prc::AppMeta,
    /// Number of resources in the PRC.
    pub resources: usize,
}

/// Builds an application crate into `<target>/palm/<Name>.prc` (+ `.elf`):
/// [`build_image`] with [`ImageKind::App`], its `.rcp` resources compiled,
/// packaged by [`prc::build_prc`]. The creation date is `SOURCE_DATE_EPOCH`
/// when set (reproducible builds), else now.
///
/// # Errors
/// Any error of [`build_image`], the metadata, the resource compiler or the writer.
pub fn build_app(opts: &Options) -> Result<App> {
    // Settings and resources first: their mistakes should not wait for a build.
    let meta = prc::AppMeta::from_package(&cargo::package(&opts.manifest_path)?)
        .map_err(error::bad_input)?;
    let resources = prc::compile_resources(&meta).map_err(error::bad_input)?;
    let image = build_image(&Options {
        kind: ImageKind::App,
        ..opts.clone()
    })?;
    let (bytes, count) = prc::build_prc(&image, &meta, resources, creation_date())?;
    let out_dir = image.elf.parent().unwrap_or(Path::new(".")).to_path_buf();
    let prc_path = out_dir.join(format!("{}.prc", meta.name));
    let elf_path = out_dir.join(format!("{}.elf", meta.name));
    // Two builds writing the same app's outputs at once take turns.
    let lock_path = out_dir.join(format!(".{}.lock", meta.name));
    let lock = std::fs::File::create(&lock_path)
        .with_context(|| format!("creating {}", lock_path.display()))?;
    lock.lock()
        .with_context(|| format!("locking {}", lock_path.display()))?;
    std::fs::write(&prc_path, &bytes).with_context(|| format!("writing {}", prc_path.display()))?;
    if elf_path != image.elf {
        std::fs::copy(&image.elf, &elf_path)
            .with_context(|| format!("writing {}", elf_path.display()))?;
    }
    if !opts.quiet {
        eprintln!(
            "palm-build: wrote {} ({} bytes: code 1 is {} bytes, {} resources)",
            prc_path.display(),
            bytes.len(),
            image.code.len(),
            count
        );
    }
    Ok(App {
        prc: prc_path,
        elf: elf_path,
        image,
        meta,
        resources: count,
    })
}

/// A PRC's creation date, in seconds since 1904-01-01 (Palm epoch):
/// `SOURCE_DATE_EPOCH` when set (reproducible builds), else now.
pub(crate) fn creation_date() -> u32 {
    let unix_now = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0))
        });
    palm_prc::unix_to_palm(unix_now).unwrap_or(u32::MAX)
}

/// FNV-1a (64-bit) of the file at `path` (0 if unreadable): which assembly a
/// verdict belongs to. Not a security measure: it only has to change when
/// rustc writes a different `.s`.
fn asm_digest(path: &Path) -> u64 {
    std::fs::read(path).map_or(0, |bytes| {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    })
}

/// First line of a verdict file: which check wrote it, for which assembly.
fn verdict_header(asm: u64) -> String {
    format!(
        "# palm-build IR check {} ({}) asm {asm:016x}",
        ircheck::CHECK_VERSION,
        cargo::IR_DUMP_PASSES
    )
}

fn write_verdict(path: &Path, findings: &[ircheck::Finding], asm: u64) -> Result<()> {
    let mut text = verdict_header(asm);
    text.push('\n');
    for f in findings {
        text += &format!(
            "{}\t{}\t{}\t{}\n",
            f.symbol,
            f.function,
            f.bug.number(),
            f.instruction
        );
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// The findings of a verdict written by this version of the check for the
/// assembly with digest `asm`, or `None` (missing, unreadable, another version
/// or other assembly).
fn read_verdict(path: &Path, asm: u64) -> Option<Vec<ircheck::Finding>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    if lines.next()? != verdict_header(asm) {
        return None;
    }
    // A line that does not parse makes the whole verdict untrusted.
    lines
        .map(|l| {
            let mut parts = l.splitn(4, '\t');
            Some(ircheck::Finding {
                symbol: parts.next()?.to_string(),
                function: parts.next()?.to_string(),
                bug: ircheck::Bug::from_number(parts.next()?.parse().ok()?)?,
                instruction: parts.next()?.to_string(),
                reached_from: Vec::new(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_is_only_reused_for_the_assembly_it_checked() {
        let dir = std::env::temp_dir().join(format!("palm-build-verdict-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (asm, verdict) = (dir.join("app.s"), dir.join("ircheck.txt"));
        std::fs::write(&asm, "\tmove.l\t%d0, %d1\n").unwrap();
        let finding = ircheck::Finding {
            symbol: "f".into(),
            function: "app::f".into(),
            bug: ircheck::Bug::StackIndex,
            reached_from: Vec::new(),
            instruction: "%5 = getelementptr inbounds i8, ptr %3, i32 %4".into(),
        };
        write_verdict(&verdict, std::slice::from_ref(&finding), asm_digest(&asm)).unwrap();
        assert_eq!(
            read_verdict(&verdict, asm_digest(&asm)),
            Some(vec![finding])
        );
        // rustc wrote other assembly since (an interrupted palm-build left
        // cargo running): the old verdict must not be trusted.
        std::fs::write(&asm, "\tmove.l\t%d0, %d2\n").unwrap();
        assert_eq!(read_verdict(&verdict, asm_digest(&asm)), None);
        // A verdict of another version of the check neither.
        std::fs::write(&verdict, "# palm-build IR check 1 (codegenprepare)\n").unwrap();
        assert_eq!(read_verdict(&verdict, asm_digest(&asm)), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
