//! Stages 3–5: repair the assembly, assemble it with GNU as for the 68000,
//! link it with GNU ld and extract the code 1 bytes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};

use crate::ImageKind;
use crate::cargo::Compiled;

/// Our 68000 `memcpy`/`memmove`/`memset` (strong symbols that replace
/// compiler_builtins' miscompiled weak ones), assembled into every image.
pub const RUNTIME_ASM: &str = include_str!("../rt/mem.s");

/// The linker script: code 1 linked at 0, the entry first, `.text` then `.rodata`.
const LINKER_SCRIPT: &str = include_str!("../rt/palm.ld");

/// Names of the GNU binutils for m68k (Debian's `binutils-m68k-linux-gnu`).
#[derive(Clone, Debug)]
pub struct Binutils {
    /// GNU as.
    pub assembler: String,
    /// GNU ld.
    pub linker: String,
    /// GNU objdump.
    pub objdump: String,
    /// GNU ar (for `palm-build lib`'s archive).
    pub archiver: String,
    /// GNU objcopy (for `palm-build lib`'s archive members).
    pub objcopy: String,
}

impl Default for Binutils {
    fn default() -> Self {
        Binutils {
            assembler: "m68k-linux-gnu-as".into(),
            linker: "m68k-linux-gnu-ld".into(),
            objdump: "m68k-linux-gnu-objdump".into(),
            archiver: "m68k-linux-gnu-ar".into(),
            objcopy: "m68k-linux-gnu-objcopy".into(),
        }
    }
}

/// The linked result before verification.
pub(crate) struct Linked {
    pub code: Vec<u8>,
    pub symbols: BTreeMap<String, u32>,
    pub repairs: Vec<String>,
    pub constants: Vec<(String, i64)>,
}

/// Writes `bytes` to `path`; the error names the file.
fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// Runs a binutils command; one that cannot be started is a missing tool
/// (bad input: the setup), one that fails names its output.
fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd
        .output()
        .with_context(|| {
            format!("cannot run {what} (run ci/setup to install binutils-m68k-linux-gnu)")
        })
        .map_err(crate::error::bad_input)?;
    if !out.status.success() {
        bail!(
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// Repairs `text` (the assembly file `name`) into `work/<stem>.fixed.s`;
/// returns the new path, counting what was repaired by kind.
fn repair(
    text: &str,
    name: &Path,
    work: &Path,
    counts: &mut BTreeMap<String, usize>,
) -> Result<PathBuf> {
    let shown = name.display().to_string();
    let repaired =
        m68k_asm_repair::repair(text, &shown).with_context(|| format!("repairing {shown}"))?;
    for fix in &repaired.fixes {
        *counts.entry(fix.kind.to_string()).or_default() += 1;
    }
    let stem = name.file_stem().unwrap_or_default().to_string_lossy();
    let out = work.join(format!("{stem}.fixed.s"));
    write_file(&out, repaired.text.as_bytes())?;
    Ok(out)
}

/// Reads the assembly file at `path`; the error names it.
fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

/// The file, in the work directory, that holds the program's assembly
/// constants for the crates' hand-written assembly (`.include
/// "asm-constants.inc"`; GNU as finds it through `-I`).
pub const ASM_CONSTANTS_FILE: &str = "asm-constants.inc";

/// Splits the program's assembly constants out of the top crate's assembly:
/// every line `NAME = integer`, which is what LLVM prints for a
/// `global_asm!(".equ NAME, {v}", v = const …)` of any crate of the program.
/// Such a constant is computed by the 68k compilation itself (`offset_of!` on
/// a `repr(C)` type gives the 68k's layout, where `u32` is 2-aligned), so the
/// hand-written assembly, which includes them, cannot disagree with the Rust
/// definitions. Returns the assembly without those lines (nothing in the
/// compiled code refers to them) and the constants in their order.
///
/// # Errors
/// A name is defined twice (two crates chose the same name) with different values.
pub fn split_constants(asm: &str) -> Result<(String, Vec<(String, i64)>)> {
    let mut rest = String::with_capacity(asm.len());
    let mut constants: Vec<(String, i64)> = Vec::new();
    for line in asm.lines() {
        let constant = line.split_once(" = ").and_then(|(name, value)| {
            let is_name = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            is_name.then_some((name, value.parse::<i64>().ok()?))
        });
        match constant {
            Some((name, value)) => {
                if let Some((_, old)) = constants.iter().find(|(n, _)| n == name) {
                    if *old != value {
                        bail!(
                            "assembly constant `{name}` is defined twice, as {old} and {value} \
                             (two `global_asm!` .equ of one name)"
                        );
                    }
                    continue;
                }
                constants.push((name.to_string(), value));
            }
            None => {
                rest.push_str(line);
                rest.push('\n');
            }
        }
    }
    Ok((rest, constants))
}

/// The include file of `constants` ([`ASM_CONSTANTS_FILE`]).
fn constants_include(constants: &[(String, i64)]) -> String {
    let mut text = String::from(
        "| The program's assembly constants, written by palm-build from the\n\
         | `global_asm!(\".equ NAME, {v}\", v = const ...)` of its crates\n\
         | (computed by the 68k compilation: 68k layouts). Do not edit.\n",
    );
    for (name, value) in constants {
        text += &format!("\t.equ\t{name}, {value}\n");
    }
    text
}

/// Assembles `source` into `object` with GNU as for the 68000 (`--pcrel`), `include`
/// on its include path.
pub(crate) fn assemble(
    binutils: &Binutils,
    source: &Path,
    object: &Path,
    include: &[&Path],
) -> Result<()> {
    let mut cmd = Command::new(&binutils.assembler);
    // --gdwarf-5: LLVM writes DWARF 5 `.file N "dir" "name"` directives,
    // which GNU as 2.40 accepts only in DWARF 5 mode.
    cmd.args(["-m68000", "--pcrel", "--gdwarf-5"]);
    for dir in include {
        cmd.arg("-I").arg(dir);
    }
    run(
        cmd.arg("-o").arg(object).arg(source),
        &format!("{} {}", binutils.assembler, source.display()),
    )
}

/// Global symbols defined in an assembly file (`.globl name` lines).
fn globals(asm: &str) -> Vec<String> {
    asm.lines()
        .filter_map(|l| l.trim().strip_prefix(".globl"))
        .map(|n| n.trim().trim_matches('"').to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

/// What [`assemble_all`] made.
pub(crate) struct Assembled {
    /// The objects, in link order.
    pub objects: Vec<PathBuf>,
    /// What was repaired (one `n × kind` line per kind).
    pub repairs: Vec<String>,
    /// The program's assembly constants ([`split_constants`]).
    pub constants: Vec<(String, i64)>,
}

/// Repairs the compiled assembly and assembles it, with palm-build's runtime
/// (`rt/mem.s`), the repair pass's helpers and the crates' own assembly
/// ([`Compiled::asm_sources`], not repaired: it is not LLVM's, and GNU as
/// `-m68000` rejects what a 68000 does not have), into `work`. The crates'
/// files see the program's assembly constants as `.include
/// "asm-constants.inc"` ([`ASM_CONSTANTS_FILE`], in `work`), and may include
/// files of their own directory.
pub(crate) fn assemble_all(
    binutils: &Binutils,
    compiled: &Compiled,
    work: &Path,
) -> Result<Assembled> {
    let mut counts = BTreeMap::new();
    let (top, constants) = split_constants(&read_text(&compiled.top_asm)?)?;
    write_file(
        &work.join(ASM_CONSTANTS_FILE),
        constants_include(&constants).as_bytes(),
    )?;
    let top_fixed = repair(&top, &compiled.top_asm, work, &mut counts)?;
    let builtins = read_text(&compiled.builtins_asm)?;
    let builtins_fixed = repair(&builtins, &compiled.builtins_asm, work, &mut counts)?;
    let runtime = work.join("palm_runtime.s");
    write_file(&runtime, RUNTIME_ASM.as_bytes())?;
    let repair_runtime = work.join("repair_runtime.s");
    write_file(&repair_runtime, m68k_asm_repair::RUNTIME_ASM.as_bytes())?;
    let mut objects = Vec::new();
    for source in [&top_fixed, &builtins_fixed, &runtime, &repair_runtime] {
        let object = source.with_extension("o");
        assemble(binutils, source, &object, &[])?;
        objects.push(object);
    }
    objects.extend(assemble_crate_asm(binutils, compiled, work)?);
    let repairs = counts
        .into_iter()
        .map(|(kind, n)| format!("{n} × {kind}"))
        .collect();
    Ok(Assembled {
        objects,
        repairs,
        constants,
    })
}

/// Assembles the crates' own assembly into `work/asm/<package>.<stem>.o`, with
/// `work` (the constants) and the file's directory on the include path.
fn assemble_crate_asm(
    binutils: &Binutils,
    compiled: &Compiled,
    work: &Path,
) -> Result<Vec<PathBuf>> {
    let dir = work.join("asm");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    compiled
        .asm_sources
        .iter()
        .map(|src| {
            let stem = src.path.file_stem().unwrap_or_default().to_string_lossy();
            let object = dir.join(format!("{}.{stem}.o", src.package));
            let own = src.path.parent().unwrap_or(Path::new("."));
            assemble(binutils, &src.path, &object, &[work, own])?;
            Ok(object)
        })
        .collect()
}

pub(crate) fn assemble_and_link(
    binutils: &Binutils,
    compiled: &Compiled,
    work: &Path,
    elf: &Path,
    kind: ImageKind,
) -> Result<Linked> {
    let assembled = assemble_all(binutils, compiled, work)?;
    let exported = globals(&read_text(&compiled.top_asm)?);
    link(
        binutils,
        &exported,
        work,
        elf,
        kind,
        true,
        &assembled.objects,
    )?;
    let mut linked = read_image(elf)?;
    linked.repairs = assembled.repairs;
    linked.constants = assembled.constants;
    Ok(linked)
}

/// Links `inputs` (objects and archives: a C app and a `palm-build lib`
/// archive, say) with palm-build's linker script into `elf`, keeping the
/// `keep` symbols and, with `gc`, only what they and the entry reach.
pub(crate) fn link_inputs(
    binutils: &Binutils,
    inputs: &[PathBuf],
    keep: &[String],
    work: &Path,
    elf: &Path,
    kind: ImageKind,
    gc: bool,
) -> Result<Linked> {
    link(binutils, keep, work, elf, kind, gc, inputs)?;
    read_image(elf)
}

/// Global symbols defined in the assembly file at `path`.
pub(crate) fn globals_of(path: &Path) -> Result<Vec<String>> {
    Ok(globals(&read_text(path)?))
}

/// Copies `object` to `out` without rustc's embedded LLVM bitcode
/// (`.llvmbc`, `.llvmcmd`): with it, binutils' LTO plugin takes the member for
/// an LLVM IR file, fails to read it (another LLVM version) and leaves its
/// symbols out of the archive index, so a C link cannot find compiler_builtins'
/// `__udivsi3` in the archive. Nothing links or runs that bitcode.
///
/// `renames` (`old=new` section names) keep sections apart that `ld -r` would
/// otherwise merge by name.
pub(crate) fn strip_bitcode(
    binutils: &Binutils,
    object: &Path,
    out: &Path,
    renames: &[String],
) -> Result<()> {
    let mut cmd = Command::new(&binutils.objcopy);
    cmd.args(["-R", ".llvmbc", "-R", ".llvmcmd"]);
    for r in renames {
        cmd.arg("--rename-section").arg(r);
    }
    run(
        cmd.arg(object).arg(out),
        &format!("{} {}", binutils.objcopy, object.display()),
    )
}

/// Partially links `objects` into one relocatable `out` (`ld -r`).
pub(crate) fn partial_link(binutils: &Binutils, objects: &[PathBuf], out: &Path) -> Result<()> {
    run(
        Command::new(&binutils.linker)
            .arg("-r")
            .arg("-o")
            .arg(out)
            .args(objects),
        &format!("{} -r {}", binutils.linker, out.display()),
    )
}

/// Writes the archive `archive` (replacing it) holding `objects`, with a
/// symbol index and deterministic member headers.
pub(crate) fn archive(binutils: &Binutils, objects: &[PathBuf], archive: &Path) -> Result<()> {
    if archive.exists() {
        std::fs::remove_file(archive)
            .with_context(|| format!("replacing {}", archive.display()))?;
    }
    run(
        Command::new(&binutils.archiver)
            .arg("rcsD")
            .arg(archive)
            .args(objects),
        &format!("{} {}", binutils.archiver, archive.display()),
    )
}

/// Links LLVM's own object code from cargo's staticlib `archive`, unrepaired
/// (see [`crate::Options::raw_llvm`]).
pub(crate) fn link_raw(
    binutils: &Binutils,
    compiled: &Compiled,
    archive: &Path,
    work: &Path,
    elf: &Path,
    kind: ImageKind,
) -> Result<Linked> {
    let top = read_text(&compiled.top_asm)?;
    let (_, constants) = split_constants(&top)?;
    write_file(
        &work.join(ASM_CONSTANTS_FILE),
        constants_include(&constants).as_bytes(),
    )?;
    let mut inputs = vec![archive.to_path_buf()];
    inputs.extend(assemble_crate_asm(binutils, compiled, work)?);
    link(binutils, &globals(&top), work, elf, kind, true, &inputs)?;
    let mut linked = read_image(elf)?;
    linked.constants = constants;
    Ok(linked)
}

/// `keep`: symbols kept for a test library (the top crate's globals).
fn link(
    binutils: &Binutils,
    keep: &[String],
    work: &Path,
    elf: &Path,
    kind: ImageKind,
    gc: bool,
    inputs: &[PathBuf],
) -> Result<()> {
    let script = work.join("palm.ld");
    write_file(&script, LINKER_SCRIPT.as_bytes())?;
    run_ld(binutils, &script, inputs, elf, kind, keep, gc, &|stderr| {
        explain_link_failure(stderr, inputs)
    })
}

/// Runs GNU ld with the linker script `script` on `inputs` into `elf`, keeping
/// the relocations (`-q`); an application's entry is `__palm_entry`, a test
/// library keeps the `keep` symbols; with `gc`, only what they reach is kept.
/// When ld fails, `explain` may say why in the user's terms (from ld's stderr).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_ld(
    binutils: &Binutils,
    script: &Path,
    inputs: &[PathBuf],
    elf: &Path,
    kind: ImageKind,
    keep: &[String],
    gc: bool,
    explain: &dyn Fn(&str) -> Option<String>,
) -> Result<()> {
    let mut ld = Command::new(&binutils.linker);
    ld.arg("-q");
    if gc {
        ld.arg("--gc-sections");
    }
    ld.arg("-T").arg(script).arg("-o").arg(elf);
    match kind {
        ImageKind::App => {
            ld.args(["-e", crate::verify::ENTRY_SYMBOL]);
        }
        ImageKind::TestLib => {
            ld.args(["-e", "0"]);
            for sym in keep {
                ld.arg(format!("--undefined={sym}"));
            }
        }
    }
    ld.args(inputs);
    let out = ld
        .output()
        .with_context(|| {
            format!(
                "cannot run {} (run ci/setup to install binutils-m68k-linux-gnu)",
                binutils.linker
            )
        })
        .map_err(crate::error::bad_input)?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    match explain(&stderr) {
        Some(why) => bail!("{why}\n(ld said:)\n{}", first_lines(&stderr, 6)),
        None => bail!("{} failed:\n{stderr}", binutils.linker),
    }
}

/// The first `n` lines of `text`, with a count of the rest.
fn first_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = lines.iter().take(n).copied().collect::<Vec<_>>().join("\n");
    if lines.len() > n {
        out += &format!("\n… {} more line(s)", lines.len() - n);
    }
    out
}

/// A message in the user's terms for the ld failures a Palm image runs into,
/// from ld's stderr (`file: in function `F':` lines name the function of the
/// `undefined reference to `S'` lines that follow them).
pub(crate) fn explain_link_failure(stderr: &str, inputs: &[PathBuf]) -> Option<String> {
    if stderr.contains("relocation truncated to fit") {
        return Some(format!(
            "code 1 is over {} bytes: a 16-bit PC-relative reference (d16(pc), the only kind \
             position-independent 68000 code has) cannot reach across it; largest symbols \
             before --gc-sections: {}",
            crate::verify::MAX_IMAGE_BYTES,
            largest_input_symbols(inputs, 5)
        ));
    }
    let mut function = String::new();
    let mut atomics = Vec::new();
    let mut undefined = Vec::new();
    for line in stderr.lines() {
        if let Some(f) = line.split("in function `").nth(1) {
            function = crate::ircheck::demangle(f.trim_end_matches(['\'', ':']));
        } else if let Some(sym) = line.split("undefined reference to `").nth(1) {
            let sym = sym.trim_end_matches('\'').to_string();
            let entry = format!("`{sym}` (used in `{function}`)");
            if sym.starts_with("__sync_") || sym.starts_with("__atomic_") {
                atomics.push(entry);
            } else {
                undefined.push(entry);
            }
        }
    }
    atomics.dedup();
    undefined.dedup();
    if !atomics.is_empty() {
        return Some(format!(
            "atomics are not supported on the 68000 (it has no atomic read-modify-write for \
             LLVM to use, and a Palm app's statics would be in write-protected code memory \
             anyway): {}",
            atomics.join(", ")
        ));
    }
    if !undefined.is_empty() {
        return Some(format!(
            "undefined symbol(s): {} — a `no_std` 68k image links only the program, \
             compiler_builtins and palm-build's runtime; an `extern` function must be \
             defined in Rust or reached through m68k-palmos-sys's trap glue",
            undefined.join(", ")
        ));
    }
    None
}

/// The `n` largest defined symbols of the input objects, for size messages.
fn largest_input_symbols(inputs: &[PathBuf], n: usize) -> String {
    let mut all: Vec<(u64, String)> = Vec::new();
    for path in inputs {
        let Ok(data) = std::fs::read(path) else {
            continue;
        };
        let Ok(file) = object::File::parse(&*data) else {
            continue;
        };
        all.extend(
            file.symbols()
                .filter(|s| s.is_definition() && s.size() > 0)
                .filter_map(|s| Some((s.size(), crate::ircheck::demangle(s.name().ok()?)))),
        );
    }
    all.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    all.iter()
        .take(n)
        .map(|(size, name)| format!("{name} ({size} bytes)"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads the code 1 bytes and the symbols of a linked ELF (code 1's symbols:
/// those at addresses below the end of `.text` and `.rodata`, and the others
/// palm-build's linker scripts define).
pub(crate) fn read_image(elf: &Path) -> Result<Linked> {
    let data = std::fs::read(elf)?;
    let file = object::File::parse(&*data).with_context(|| format!("parsing {}", elf.display()))?;
    let code = code1(&file)?;
    let mut symbols = BTreeMap::new();
    for sym in file.symbols() {
        if matches!(sym.kind(), SymbolKind::Section | SymbolKind::File) || !sym.is_definition() {
            continue;
        }
        if let Ok(name) = sym.name()
            && !name.is_empty()
            && !name.starts_with(".L")
        {
            symbols.insert(name.to_string(), u32::try_from(sym.address())?);
        }
    }
    Ok(Linked {
        code,
        symbols,
        repairs: Vec::new(),
        constants: Vec::new(),
    })
}

/// Code 1's bytes in a linked ELF: `.text` and `.rodata` at their addresses from 0.
pub(crate) fn code1(file: &object::File<'_>) -> Result<Vec<u8>> {
    let mut end = 0u64;
    for name in [".text", ".rodata"] {
        if let Some(s) = file.section_by_name(name) {
            end = end.max(s.address() + s.size());
        }
    }
    let mut code = vec![0u8; usize::try_from(end)?];
    for name in [".text", ".rodata"] {
        if let Some(s) = file.section_by_name(name) {
            let bytes = s.data()?;
            let start = usize::try_from(s.address())?;
            code[start..start + bytes.len()].copy_from_slice(bytes);
        }
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::{explain_link_failure, split_constants};

    #[test]
    fn assembly_constants_are_the_name_equals_integer_lines() {
        let asm = "\t.text\nST_BUSY = 0\nST_SCRATCH = 108\nNEG_ONE = -1\n\
                   x = y\n.Ltmp = 3\n\tmove.l\t%d0, %d1\nST_BUSY = 0\n";
        let (rest, constants) = split_constants(asm).unwrap();
        assert_eq!(rest, "\t.text\nx = y\n.Ltmp = 3\n\tmove.l\t%d0, %d1\n");
        assert_eq!(
            constants,
            [
                ("ST_BUSY".into(), 0),
                ("ST_SCRATCH".into(), 108),
                ("NEG_ONE".into(), -1)
            ]
        );
        let e = split_constants("A = 1\nA = 2\n").unwrap_err().to_string();
        assert!(e.contains("`A` is defined twice, as 1 and 2"), "{e}");
    }

    #[test]
    fn atomics_are_named_with_their_function() {
        let stderr = "m68k-linux-gnu-ld: app.fixed.o: in function `_RNvCs1_3app10pilot_main':\n\
                      app.rs:9:(.text.x+0x1c): undefined reference to `__sync_fetch_and_add_4'\n";
        let why = explain_link_failure(stderr, &[]).unwrap();
        assert!(
            why.starts_with("atomics are not supported on the 68000"),
            "{why}"
        );
        assert!(
            why.contains("`__sync_fetch_and_add_4` (used in `app::pilot_main`)"),
            "{why}"
        );
    }

    #[test]
    fn other_undefined_symbols_are_listed() {
        let stderr = "x.o: in function `f':\n(.text.f+0x2): undefined reference to `missing_fn'\n";
        let why = explain_link_failure(stderr, &[]).unwrap();
        assert!(why.contains("`missing_fn` (used in `f`)"), "{why}");
    }

    #[test]
    fn truncated_relocations_mean_the_32_kb_limit() {
        let stderr = "glue.rs:4575:(.text.abort+0xc): relocation truncated to fit: R_68K_PC16 against `.rodata.str1.1'\n";
        let why = explain_link_failure(stderr, &[]).unwrap();
        assert!(why.starts_with("code 1 is over 32768 bytes"), "{why}");
        assert_eq!(explain_link_failure("ld: something else\n", &[]), None);
    }
}
