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

/// Repairs `asm_path` into `work/<stem>.fixed.s`; returns the new path and
/// what was repaired, counted by kind.
fn repair(asm_path: &Path, work: &Path, counts: &mut BTreeMap<String, usize>) -> Result<PathBuf> {
    let text = std::fs::read_to_string(asm_path)
        .with_context(|| format!("reading {}", asm_path.display()))?;
    let name = asm_path.display().to_string();
    let repaired =
        m68k_asm_repair::repair(&text, &name).with_context(|| format!("repairing {name}"))?;
    for fix in &repaired.fixes {
        *counts.entry(fix.kind.to_string()).or_default() += 1;
    }
    let stem = asm_path.file_stem().unwrap_or_default().to_string_lossy();
    let out = work.join(format!("{stem}.fixed.s"));
    write_file(&out, repaired.text.as_bytes())?;
    Ok(out)
}

fn assemble(binutils: &Binutils, source: &Path, object: &Path) -> Result<()> {
    run(
        Command::new(&binutils.assembler)
            // --gdwarf-5: LLVM writes DWARF 5 `.file N "dir" "name"` directives,
            // which GNU as 2.40 accepts only in DWARF 5 mode.
            .args(["-m68000", "--pcrel", "--gdwarf-5", "-o"])
            .arg(object)
            .arg(source),
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

/// Repairs the compiled assembly and assembles it, with palm-build's runtime
/// (`rt/mem.s`) and the repair pass's helpers, into `work`; returns the objects
/// and what was repaired (one `n × kind` line per kind).
pub(crate) fn assemble_all(
    binutils: &Binutils,
    compiled: &Compiled,
    work: &Path,
) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let mut counts = BTreeMap::new();
    let top_fixed = repair(&compiled.top_asm, work, &mut counts)?;
    let builtins_fixed = repair(&compiled.builtins_asm, work, &mut counts)?;
    let runtime = work.join("palm_runtime.s");
    write_file(&runtime, RUNTIME_ASM.as_bytes())?;
    let repair_runtime = work.join("repair_runtime.s");
    write_file(&repair_runtime, m68k_asm_repair::RUNTIME_ASM.as_bytes())?;
    let mut objects = Vec::new();
    for source in [&top_fixed, &builtins_fixed, &runtime, &repair_runtime] {
        let object = source.with_extension("o");
        assemble(binutils, source, &object)?;
        objects.push(object);
    }
    let repairs = counts
        .into_iter()
        .map(|(kind, n)| format!("{n} × {kind}"))
        .collect();
    Ok((objects, repairs))
}

pub(crate) fn assemble_and_link(
    binutils: &Binutils,
    compiled: &Compiled,
    work: &Path,
    elf: &Path,
    kind: ImageKind,
) -> Result<Linked> {
    let (objects, repairs) = assemble_all(binutils, compiled, work)?;
    let exported = globals(&std::fs::read_to_string(&compiled.top_asm)?);
    link(binutils, &exported, work, elf, kind, true, &objects)?;
    let mut linked = read_image(elf)?;
    linked.repairs = repairs;
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
    Ok(globals(
        &std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?,
    ))
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
    let exported = globals(&std::fs::read_to_string(&compiled.top_asm)?);
    link(
        binutils,
        &exported,
        work,
        elf,
        kind,
        true,
        &[archive.to_path_buf()],
    )?;
    read_image(elf)
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
    let mut ld = Command::new(&binutils.linker);
    ld.arg("-q");
    if gc {
        ld.arg("--gc-sections");
    }
    ld.arg("-T").arg(&script).arg("-o").arg(elf);
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
    match explain_link_failure(&stderr, inputs) {
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
fn explain_link_failure(stderr: &str, inputs: &[PathBuf]) -> Option<String> {
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

/// Reads the code 1 bytes and the symbols of a linked ELF.
fn read_image(elf: &Path) -> Result<Linked> {
    let data = std::fs::read(elf)?;
    let file = object::File::parse(&*data).with_context(|| format!("parsing {}", elf.display()))?;
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
    })
}

#[cfg(test)]
mod tests {
    use super::explain_link_failure;

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
