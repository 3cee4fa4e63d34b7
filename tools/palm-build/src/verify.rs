//! Post-link verifier: the rules a linked image must follow to be a valid,
//! position-independent Palm OS `code` 1 resource for a 68000.
//!
//! Each rule exists because the real OS (or the real CPU) would fail on it:
//! - **No absolute relocations** (R_68K_32/16/8, GOT/PLT-offset forms) in
//!   `.text`/`.rodata`: code 1 runs in place at an address the OS chooses, in
//!   the storage heap (PALM_FACTS §1.6), and nothing relocates it.
//! - **No writable sections** (`.data`, `.bss`, `.data.rel.ro`, `.got`, or any
//!   other allocatable section): the image has no A5 globals (data 0 is the
//!   empty form), and a write into code 1 is a bus error on a device because
//!   storage memory is write-protected (PALM_FACTS §5.4).
//! - **Only 68000 instructions**: DragonBall CPUs are 68000-class; a 68020
//!   form such as `bra.l`, `mulu.l` or a scaled index is an address error or
//!   an illegal instruction, or (the scale of an index) silently ignored.
//! - **Code + rodata ≤ 32 KB**: every code and rodata reference is a 16-bit
//!   PC-relative displacement (small code model).
//! - **Entry at offset 0** for applications: the OS jumps to the first byte of
//!   code 1 (PALM_FACTS §1.6).
//!
//! The disassembly uses GNU objdump in 68000 mode (`-m m68k:68000`), which
//! prints any opcode a 68000 does not have as `.short`.

use std::fmt;
use std::path::Path;
use std::process::Command;

use object::elf;
use object::read::elf::{ElfFile32, FileHeader};
use object::{
    BigEndian, Object, ObjectSection, ObjectSymbol, RelocationFlags, SectionFlags, SymbolKind,
};

/// Largest code 1 image (`.text` + `.rodata`) in bytes: the reach of a
/// 16-bit PC-relative displacement.
pub const MAX_IMAGE_BYTES: u64 = 32 * 1024;

/// The symbol an application's entry must have; it must sit at offset 0.
pub const ENTRY_SYMBOL: &str = "__palm_entry";

/// What kind of image is being verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// An application's code 1: everything, including the entry at offset 0.
    App,
    /// A test library image (no entry point): everything but the entry rule.
    TestLib,
}

/// One violated rule, with the symbol, section and offset it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Which rule.
    pub kind: ViolationKind,
    /// A full, human-readable message naming symbol/section/offset.
    pub message: String,
}

/// The rule a [`Violation`] breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViolationKind {
    /// An absolute (or GOT-based) relocation in code or rodata.
    AbsoluteRelocation,
    /// A non-empty writable or unexpected allocatable section.
    WritableSection,
    /// An instruction a 68000 does not have.
    Not68000,
    /// `.text` + `.rodata` over [`MAX_IMAGE_BYTES`].
    TooLarge,
    /// The entry is missing or not at offset 0.
    Entry,
    /// The file is not a usable m68k ELF (message says why).
    BadElf,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// All violations found in one image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The ELF file checked.
    pub file: String,
    /// Every violation, in a stable order (sections, relocations, size, entry, instructions).
    pub violations: Vec<Violation>,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let [only] = self.violations.as_slice()
            && only.kind == ViolationKind::BadElf
        {
            return write!(f, "{}: {}", self.file, only.message);
        }
        writeln!(
            f,
            "{}: {} problem(s) make this image invalid as Palm OS code 1:",
            self.file,
            self.violations.len()
        )?;
        for v in &self.violations {
            writeln!(f, "  - {v}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyError {}

/// Summary of a verified image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verified {
    /// Bytes of `.text`.
    pub text_bytes: u64,
    /// Bytes of `.rodata`.
    pub rodata_bytes: u64,
    /// Instructions disassembled and checked.
    pub instructions: usize,
}

/// The bytes of `path`, read within the size limit.
///
/// # Errors
/// One [`ViolationKind::BadElf`] violation naming the file.
fn read_m68k_elf(path: &Path) -> Result<Vec<u8>, VerifyError> {
    read_limited(path).map_err(|message| VerifyError {
        file: path.display().to_string(),
        violations: vec![Violation {
            kind: ViolationKind::BadElf,
            message,
        }],
    })
}

/// `data` parsed as a 32-bit big-endian m68k ELF (`file` names it in errors).
///
/// # Errors
/// One [`ViolationKind::BadElf`] violation: not such an ELF.
fn parse_m68k_elf<'d>(data: &'d [u8], file: &str) -> Result<ElfFile32<'d, BigEndian>, VerifyError> {
    let fail = |message: String| VerifyError {
        file: file.to_string(),
        violations: vec![Violation {
            kind: ViolationKind::BadElf,
            message,
        }],
    };
    let elf = ElfFile32::<BigEndian>::parse(data)
        .map_err(|e| fail(format!("not a 32-bit big-endian ELF: {e}")))?;
    if elf.elf_header().e_machine(BigEndian) != elf::EM_68K {
        return Err(fail("not an m68k ELF".into()));
    }
    Ok(elf)
}

/// Verifies a linked ELF (linked with `ld -q`, so relocations are kept) against
/// the Palm code 1 rules above. `objdump` is the path or name of GNU objdump
/// for m68k (`m68k-linux-gnu-objdump`).
///
/// # Errors
/// A [`VerifyError`] listing every violation; unreadable files give one
/// [`ViolationKind::BadElf`] violation.
pub fn verify_elf(path: &Path, rules: Rules, objdump: &str) -> Result<Verified, VerifyError> {
    let file = path.display().to_string();
    let data = read_m68k_elf(path)?;
    let elf = parse_m68k_elf(&data, &file)?;
    let mut violations = check_sections(&elf);
    violations.extend(check_relocations(&elf, &[".text", ".rodata"], false));
    let text_bytes = section_size(&elf, ".text");
    let rodata_bytes = section_size(&elf, ".rodata");
    let image_end = image_end(&elf);
    if image_end > MAX_IMAGE_BYTES {
        violations.push(Violation {
            kind: ViolationKind::TooLarge,
            message: format!(
                "code 1 is {image_end} bytes (.text {text_bytes} + .rodata {rodata_bytes}), over the \
                 {MAX_IMAGE_BYTES}-byte limit of 16-bit PC-relative addressing; largest symbols: {}",
                largest_symbols(&elf, 5)
            ),
        });
    }
    if rules == Rules::App {
        violations.extend(check_entry(&elf));
    }
    violations.extend(check_layout(&elf));
    let instructions = check_instructions(path, &elf, objdump, ".text", &mut violations);
    verdict(
        file,
        violations,
        Verified {
            text_bytes,
            rodata_bytes,
            instructions,
        },
    )
}

/// `verified` when there are no `violations`, else the error listing them.
fn verdict(
    file: String,
    violations: Vec<Violation>,
    verified: Verified,
) -> Result<Verified, VerifyError> {
    if violations.is_empty() {
        Ok(verified)
    } else {
        Err(VerifyError { file, violations })
    }
}

/// Verifies an application linked in prc-tools' layout (`palm-build c-app
/// --segments`, [`crate::segments`]): code 1 (`.text` + `.rodata` at 0, the
/// entry first) and one section per further code resource, named `segments` in
/// resource order (code 2, 3, …), each ≤ [`MAX_IMAGE_BYTES`] and 68000-only,
/// whose references are PC-relative, offsets into the GOT through A5 or link-time
/// constants; the globals (`.data`, with `.bss`) and the GOT above A5 (`.got`)
/// whose relocations are 32-bit pointers only (the startup code relocates them
/// from `rloc` 0); no other allocatable section (`.got.plt`, GNU ld's 12 reserved
/// bytes that nothing uses, is left out of the PRC).
///
/// # Errors
/// A [`VerifyError`] listing every violation.
pub fn verify_segmented(
    path: &Path,
    segments: &[&str],
    objdump: &str,
) -> Result<Verified, VerifyError> {
    let file = path.display().to_string();
    let data = read_m68k_elf(path)?;
    let elf = parse_m68k_elf(&data, &file)?;
    let mut violations = Vec::new();
    let mut code = vec![".text", ".rodata"];
    code.extend_from_slice(segments);
    let allowed: Vec<&str> = code
        .iter()
        .copied()
        .chain([".data", ".got", ".got.plt"])
        .collect();
    for (section, name, symbols) in loaded_sections(&elf, &allowed) {
        violations.push(Violation {
            kind: ViolationKind::WritableSection,
            message: format!(
                "section {name} ({} bytes; symbols: {}) is not part of the app: code goes in \
                 .text (code 1) or in a section named by --segments ({}), globals in .data and \
                 .bss",
                section.size(),
                if symbols.is_empty() {
                    "<none>".to_string()
                } else {
                    symbols.join(", ")
                },
                if segments.is_empty() {
                    "none given".to_string()
                } else {
                    segments.join(", ")
                }
            ),
        });
    }
    violations.extend(check_relocations(&elf, &code, true));
    if let Some(d) = elf.section_by_name(".data") {
        for (offset, reloc) in d.relocations() {
            let RelocationFlags::Elf { r_type } = reloc.flags() else {
                continue;
            };
            if r_type.0 != elf::R_68K_32.0 && r_type.0 != elf::R_68K_NONE.0 {
                violations.push(Violation {
                    kind: ViolationKind::AbsoluteRelocation,
                    message: format!(
                        "relocation {} at .data+0x{:x} (in {}): the startup code relocates \
                         only 32-bit pointers in the globals (rloc 0)",
                        reloc_type_name(r_type.0),
                        offset.wrapping_sub(d.address()),
                        containing_symbol(&elf, d.index(), offset)
                    ),
                });
            }
        }
    }
    let text_bytes = section_size(&elf, ".text");
    let rodata_bytes = section_size(&elf, ".rodata");
    let image_end = image_end(&elf);
    if image_end > MAX_IMAGE_BYTES {
        violations.push(Violation {
            kind: ViolationKind::TooLarge,
            message: format!(
                "code 1 is {image_end} bytes (.text {text_bytes} + .rodata {rodata_bytes}), over \
                 the {MAX_IMAGE_BYTES}-byte limit of a code resource; move functions to another \
                 with __attribute__((section(\"NAME\"))) and --segments NAME"
            ),
        });
    }
    for (i, name) in segments.iter().enumerate() {
        let size = section_size(&elf, name);
        if size > MAX_IMAGE_BYTES {
            violations.push(Violation {
                kind: ViolationKind::TooLarge,
                message: format!(
                    "code {} (section {name}) is {size} bytes, over the {MAX_IMAGE_BYTES}-byte \
                     limit of a code resource (16-bit PC-relative branches)",
                    i + 2
                ),
            });
        }
    }
    violations.extend(check_entry(&elf));
    violations.extend(check_layout(&elf));
    let mut instructions = check_instructions(path, &elf, objdump, ".text", &mut violations);
    for name in segments {
        if section_size(&elf, name) > 0 {
            instructions += check_instructions(path, &elf, objdump, name, &mut violations);
        }
    }
    verdict(
        file,
        violations,
        Verified {
            text_bytes,
            rodata_bytes,
            instructions,
        },
    )
}

/// Verifies a relocatable object (a member of a `palm-build lib` archive,
/// which a C linker places anywhere in code 1) against the rules that hold
/// before linking: every relocation that applies to an allocatable section is
/// PC-relative, no allocatable section but code (`.text*`) and read-only data
/// (`.rodata*`) has contents, and every instruction in the executable sections
/// is a 68000 one. (Size and entry are the final link's business.)
///
/// # Errors
/// A [`VerifyError`] listing every violation.
pub fn verify_object(path: &Path, objdump: &str) -> Result<Verified, VerifyError> {
    let file = path.display().to_string();
    let fail = |kind, message: String| VerifyError {
        file: file.clone(),
        violations: vec![Violation { kind, message }],
    };
    let data = read_m68k_elf(path)?;
    let elf = parse_m68k_elf(&data, &file)?;
    if elf.elf_header().e_type(BigEndian) != elf::ET_REL {
        return Err(fail(
            ViolationKind::BadElf,
            "not a relocatable object (ET_REL)".into(),
        ));
    }
    let mut violations = Vec::new();
    let (mut text_bytes, mut rodata_bytes) = (0, 0);
    for section in elf.sections() {
        let name = section.name().unwrap_or("<bad name>");
        let SectionFlags::Elf { sh_flags, .. } = section.flags() else {
            continue;
        };
        if sh_flags.0 & elf::SHF_ALLOC.0 == 0 {
            continue;
        }
        let code = name == ".text" || name.starts_with(".text.");
        let rodata = name == ".rodata" || name.starts_with(".rodata.");
        let writable = sh_flags.0 & elf::SHF_WRITE.0 != 0;
        if code {
            text_bytes += section.size();
        } else if rodata {
            rodata_bytes += section.size();
        }
        if section.size() > 0 && (writable || !(code || rodata)) {
            violations.push(Violation {
                kind: ViolationKind::WritableSection,
                message: format!(
                    "section {name} is not empty ({} bytes): Palm code 1 holds only code and \
                     read-only data",
                    section.size()
                ),
            });
        }
        for (offset, reloc) in section.relocations() {
            let RelocationFlags::Elf { r_type } = reloc.flags() else {
                continue;
            };
            if is_pc_relative(r_type.0) {
                continue;
            }
            let target = match reloc.target() {
                object::RelocationTarget::Symbol(i) => elf
                    .symbol_by_index(i)
                    .ok()
                    .and_then(|s| match (s.kind(), s.section_index()) {
                        (SymbolKind::Section, Some(at)) => elf
                            .section_by_index(at)
                            .ok()
                            .and_then(|sec| sec.name().ok().map(str::to_string)),
                        _ => s.name().ok().map(sym_name),
                    })
                    .unwrap_or_else(|| format!("symbol #{}", i.0)),
                _ => "<absolute>".to_string(),
            };
            violations.push(Violation {
                kind: ViolationKind::AbsoluteRelocation,
                message: format!(
                    "absolute relocation {} to `{target}` at {name}+0x{offset:x} (in {}): code 1 \
                     runs in place at an unknown address, so every reference must be PC-relative",
                    reloc_type_name(r_type.0),
                    containing_symbol(&elf, section.index(), offset)
                ),
            });
        }
    }
    let output = Command::new(objdump)
        .args(["-d", "-m", "m68k:68000"])
        .arg(path)
        .output()
        .map_err(|e| {
            fail(
                ViolationKind::BadElf,
                format!("cannot run {objdump} (run ci/setup): {e}"),
            )
        })?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() || !stderr.trim().is_empty() {
        return Err(fail(
            ViolationKind::BadElf,
            format!("{objdump} could not disassemble: {}", stderr.trim()),
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut instructions = 0;
    let mut function = String::new();
    let mut reported_in: Option<String> = None;
    let mut prev: Option<Insn<'_>> = None;
    for line in text.lines() {
        // "00000000 <memdbg_stop>:" starts a function (each in its own section).
        if let Some(label) = line.strip_suffix(">:")
            && let Some((_, name)) = label.split_once(" <")
        {
            function = sym_name(name);
            prev = None;
            continue;
        }
        let Some(insn) = parse_objdump(line).pop() else {
            continue;
        };
        instructions += 1;
        if let Some(why) = not_68000(prev.as_ref(), &insn)
            && reported_in.as_deref() != Some(function.as_str())
        {
            violations.push(Violation {
                kind: ViolationKind::Not68000,
                message: format!("{why} at {function}+0x{:x}", insn.address),
            });
            reported_in = Some(function.clone());
        }
        prev = Some(insn);
    }
    verdict(
        file,
        violations,
        Verified {
            text_bytes,
            rodata_bytes,
            instructions,
        },
    )
}

/// The relocation types that are PC-relative (or none): all a position-
/// independent 68000 image may have.
fn is_pc_relative(r: u32) -> bool {
    [
        elf::R_68K_NONE,
        elf::R_68K_PC8,
        elf::R_68K_PC16,
        elf::R_68K_PC32,
        elf::R_68K_PLT8,
        elf::R_68K_PLT16,
        elf::R_68K_PLT32,
    ]
    .iter()
    .any(|t| t.0 == r)
}

/// Largest ELF read: far above any image (code 1 ≤ 32 KB plus DWARF).
const MAX_ELF_BYTES: u64 = 256 << 20;

/// The bytes of `path`, a regular file of at most [`MAX_ELF_BYTES`].
fn read_limited(path: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > MAX_ELF_BYTES {
        return Err(format!(
            "{} bytes: too large for a Palm app's ELF (limit {MAX_ELF_BYTES})",
            meta.len()
        ));
    }
    std::fs::read(path).map_err(|e| format!("cannot read: {e}"))
}

/// Code 1 is `.text` at address 0 then `.rodata` after it (palm-build's
/// linker script): anything else is not an image palm-build made.
fn check_layout(elf: &ElfFile32<BigEndian>) -> Vec<Violation> {
    let text = elf.section_by_name(".text");
    let mut out = Vec::new();
    let mut bad = |message: String| {
        out.push(Violation {
            kind: ViolationKind::BadElf,
            message,
        })
    };
    match &text {
        None => bad("no .text section".into()),
        Some(t) if t.address() != 0 => bad(format!(
            ".text is at address 0x{:x}, not 0: code 1 is linked at 0",
            t.address()
        )),
        Some(_) => {}
    }
    if let (Some(t), Some(r)) = (&text, elf.section_by_name(".rodata"))
        && r.size() > 0
        && r.address() < t.address() + t.size()
    {
        bad(format!(
            ".rodata at 0x{:x} overlaps .text (0x{:x} bytes from 0x{:x})",
            r.address(),
            t.size(),
            t.address()
        ));
    }
    out
}

fn section_size(elf: &ElfFile32<BigEndian>, name: &str) -> u64 {
    elf.section_by_name(name).map_or(0, |s| s.size())
}

/// End of the loaded image: the highest end address of `.text`/`.rodata`.
fn image_end(elf: &ElfFile32<BigEndian>) -> u64 {
    [".text", ".rodata"]
        .iter()
        .filter_map(|n| elf.section_by_name(n))
        .map(|s| s.address() + s.size())
        .max()
        .unwrap_or(0)
}

/// Demangled name of `sym`.
fn sym_name(name: &str) -> String {
    crate::ircheck::demangle(name)
}

/// The function (or other symbol) containing `address` in section `index`.
fn containing_symbol(
    elf: &ElfFile32<BigEndian>,
    section: object::SectionIndex,
    address: u64,
) -> String {
    let mut best: Option<(u64, String)> = None;
    for sym in elf.symbols() {
        if sym.section_index() != Some(section) || sym.kind() == SymbolKind::Section {
            continue;
        }
        let Ok(name) = sym.name() else { continue };
        if name.is_empty() || name.starts_with(".L") {
            continue;
        }
        let start = sym.address();
        let inside = start <= address && (address < start + sym.size().max(1));
        if inside && best.as_ref().is_none_or(|(s, _)| start >= *s) {
            best = Some((start, sym_name(name)));
        }
    }
    match best {
        Some((start, name)) => format!("{name}+0x{:x}", address - start),
        None => "<no symbol>".to_string(),
    }
}

/// The allocatable, non-empty sections not named in `allowed`, each with its
/// name and the (demangled) names of the symbols it defines.
fn loaded_sections<'d, 'f>(
    elf: &'f ElfFile32<'d, BigEndian>,
    allowed: &[&str],
) -> Vec<(
    object::read::elf::ElfSection32<'d, 'f, BigEndian>,
    &'d str,
    Vec<String>,
)> {
    let mut out = Vec::new();
    for section in elf.sections() {
        let name = section.name().unwrap_or("<bad name>");
        let SectionFlags::Elf { sh_flags, .. } = section.flags() else {
            continue;
        };
        if sh_flags.0 & elf::SHF_ALLOC.0 == 0 || section.size() == 0 || allowed.contains(&name) {
            continue;
        }
        let symbols: Vec<String> = elf
            .symbols()
            .filter(|s| {
                s.section_index() == Some(section.index()) && s.kind() != SymbolKind::Section
            })
            .filter_map(|s| s.name().ok().filter(|n| !n.is_empty()).map(sym_name))
            .collect();
        out.push((section, name, symbols));
    }
    out
}

fn check_sections(elf: &ElfFile32<BigEndian>) -> Vec<Violation> {
    let mut out = Vec::new();
    for (section, name, symbols) in loaded_sections(elf, &[".text", ".rodata"]) {
        let what = match name {
            ".data" | ".bss" => {
                "a writable static (`static mut`, an atomic, or interior mutability)"
            }
            ".data.rel.ro" => {
                "a static holding pointers (e.g. `&str`, a fn-pointer table, a `dyn` vtable) that needs absolute relocation"
            }
            ".got" => {
                "a GOT (a non-PC-relative reference; build with -C relocation-model=pic -C code-model=small)"
            }
            _ => "an allocatable section code 1 cannot hold",
        };
        let list = |v: &[String]| {
            if v.is_empty() {
                "<none>".to_string()
            } else {
                v.join(", ")
            }
        };
        let (pointing_to, used_by) = section_references(elf, section.index());
        out.push(Violation {
            kind: ViolationKind::WritableSection,
            message: format!(
                "section {name} is not empty ({} bytes): {what}; symbols: {}; it points to: {}; \
                 used by: {}. Palm code 1 has no writable memory: keep state in a chunk \
                 (MemPtrNew) found through FtrGet",
                section.size(),
                list(&symbols),
                list(&pointing_to),
                list(&used_by)
            ),
        });
    }
    out
}

/// What a data section's relocations point to (for a `dyn` vtable: the trait
/// methods, which name the type and trait), and the functions whose code
/// refers to the section (relocations in `.text` against it or its symbols),
/// demangled and deduplicated. Needs relocations kept (`ld -q`).
fn section_references(
    elf: &ElfFile32<BigEndian>,
    section: object::SectionIndex,
) -> (Vec<String>, Vec<String>) {
    let target_name = |t: object::RelocationTarget| match t {
        object::RelocationTarget::Symbol(i) => elf.symbol_by_index(i).ok(),
        _ => None,
    };
    let mut pointing_to = Vec::new();
    if let Ok(s) = elf.section_by_index(section) {
        for (_, r) in s.relocations() {
            let Some(sym) = target_name(r.target()) else {
                continue;
            };
            // Against a section symbol (a local function): name what is at
            // the target address.
            let name = match (sym.kind(), sym.section_index()) {
                (SymbolKind::Section, Some(in_section)) => {
                    let at = sym.address().wrapping_add_signed(r.addend());
                    containing_symbol(elf, in_section, at)
                        .split('+')
                        .next()
                        .unwrap_or("")
                        .to_string()
                }
                _ => sym.name().map(sym_name).unwrap_or_default(),
            };
            if !name.is_empty() && !pointing_to.contains(&name) {
                pointing_to.push(name);
            }
        }
    }
    let mut used_by = Vec::new();
    if let Some(text) = elf.section_by_name(".text") {
        for (offset, r) in text.relocations() {
            let hits =
                target_name(r.target()).is_some_and(|sym| sym.section_index() == Some(section));
            if hits {
                let function = containing_symbol(elf, text.index(), offset);
                let function = function.split('+').next().unwrap_or("").to_string();
                if !used_by.contains(&function) {
                    used_by.push(function);
                }
            }
        }
    }
    (pointing_to, used_by)
}

/// The relocations in the code resources' sections `sections` that make the code
/// depend on where it runs. PC-relative ones never do; with `a5_relative` (prc-tools'
/// layout) neither do GOT offsets (an A5-relative displacement: the GOT is above A5)
/// nor references to an absolute symbol (a link-time constant).
fn check_relocations(
    elf: &ElfFile32<BigEndian>,
    sections: &[&str],
    a5_relative: bool,
) -> Vec<Violation> {
    let mut out = Vec::new();
    for section in elf.sections() {
        let name = section.name().unwrap_or("");
        if !sections.contains(&name) {
            continue;
        }
        for (offset, reloc) in section.relocations() {
            let RelocationFlags::Elf { r_type } = reloc.flags() else {
                continue;
            };
            let r = r_type.0;
            let symbol = match reloc.target() {
                object::RelocationTarget::Symbol(i) => elf.symbol_by_index(i).ok(),
                _ => None,
            };
            let constant = symbol.is_some_and(|s| s.section() == object::SymbolSection::Absolute);
            if is_pc_relative(r) || (a5_relative && (is_got_offset(r) || constant)) {
                continue;
            }
            let target = match reloc.target() {
                object::RelocationTarget::Symbol(i) => symbol
                    .and_then(|s| s.name().ok().map(sym_name))
                    .unwrap_or_else(|| format!("symbol #{}", i.0)),
                _ => "<absolute>".to_string(),
            };
            let rule = if a5_relative {
                "code runs in place at an unknown address, so every reference must be \
                 PC-relative or reach the GOT through A5 (compile with -msep-data)"
            } else {
                "code 1 runs in place at an unknown address, so every reference must be \
                 PC-relative"
            };
            out.push(Violation {
                kind: ViolationKind::AbsoluteRelocation,
                message: format!(
                    "absolute relocation {} to `{target}` at {name}+0x{offset:x} (in {}): {rule}",
                    reloc_type_name(r),
                    containing_symbol(elf, section.index(), offset)
                ),
            });
        }
    }
    out
}

/// The relocation types of an offset into the GOT (`sym@GOT(%a5)` with
/// `-msep-data`: `R_68K_GOT8O`, `R_68K_GOT16O`, `R_68K_GOT32O`).
fn is_got_offset(r: u32) -> bool {
    [elf::R_68K_GOT8O, elf::R_68K_GOT16O, elf::R_68K_GOT32O]
        .iter()
        .any(|t| t.0 == r)
}

fn reloc_type_name(r: u32) -> String {
    let names = [
        (1, "R_68K_32"),
        (2, "R_68K_16"),
        (3, "R_68K_8"),
        (7, "R_68K_GOT32"),
        (8, "R_68K_GOT16"),
        (9, "R_68K_GOT8"),
        (10, "R_68K_GOT32O"),
        (11, "R_68K_GOT16O"),
        (12, "R_68K_GOT8O"),
        (16, "R_68K_PLT32O"),
        (17, "R_68K_PLT16O"),
        (18, "R_68K_PLT8O"),
        (22, "R_68K_RELATIVE"),
    ];
    names
        .iter()
        .find(|(n, _)| *n == r)
        .map_or_else(|| format!("type {r}"), |(_, s)| (*s).to_string())
}

fn check_entry(elf: &ElfFile32<BigEndian>) -> Vec<Violation> {
    let entry_sym = elf
        .symbols()
        .find(|s| s.name() == Ok(ENTRY_SYMBOL) && s.is_definition());
    match entry_sym {
        None => vec![Violation {
            kind: ViolationKind::Entry,
            message: format!(
                "no `{ENTRY_SYMBOL}` symbol: an application needs the entry defined by \
                 `m68k_palmos_sys::app_entry!` (the OS starts code 1 at offset 0)"
            ),
        }],
        Some(s) if s.address() != 0 || elf.entry() != 0 => vec![Violation {
            kind: ViolationKind::Entry,
            message: format!(
                "entry `{ENTRY_SYMBOL}` is at offset 0x{:x} (ELF entry 0x{:x}), not 0: the OS \
                 starts code 1 at its first byte; put it in section .text.palm_entry",
                s.address(),
                elf.entry()
            ),
        }],
        Some(_) => Vec::new(),
    }
}

fn largest_symbols(elf: &ElfFile32<BigEndian>, n: usize) -> String {
    let mut funcs: Vec<(u64, String)> = elf
        .symbols()
        .filter(|s| matches!(s.kind(), SymbolKind::Text | SymbolKind::Data) && s.size() > 0)
        .filter_map(|s| s.name().ok().map(|name| (s.size(), sym_name(name))))
        .collect();
    funcs.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    funcs
        .iter()
        .take(n)
        .map(|(size, name)| format!("{name} ({size} bytes)"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One disassembled line of objdump output.
#[derive(Debug, PartialEq, Eq)]
struct Insn<'a> {
    address: u64,
    /// Mnemonic and operands as objdump prints them (MIT syntax).
    text: &'a str,
}

/// Parses `objdump -d` output into (function label, instructions) groups.
fn parse_objdump(out: &str) -> Vec<Insn<'_>> {
    let mut insns = Vec::new();
    for line in out.lines() {
        // "   c:\t2230 0c00      \tmovel %a0@(0,%d0:l:4),%d1"
        let mut parts = line.splitn(3, '\t');
        let (Some(addr), Some(_bytes), Some(text)) = (parts.next(), parts.next(), parts.next())
        else {
            continue; // labels, headers and continuation lines without a mnemonic
        };
        let Some(addr) = addr.trim().strip_suffix(':') else {
            continue;
        };
        let Ok(address) = u64::from_str_radix(addr, 16) else {
            continue;
        };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        insns.push(Insn { address, text });
    }
    insns
}

/// Why a disassembled 68000-mode line is not a 68000 instruction, if it is not.
fn not_68000(prev: Option<&Insn<'_>>, insn: &Insn<'_>) -> Option<String> {
    let (mnemonic, operands) = insn
        .text
        .split_once(' ')
        .map_or((insn.text, ""), |(m, o)| (m, o.trim()));
    if mnemonic == ".short" {
        // The trap word after `trap #15` is data the trap dispatcher reads.
        let is_trap_word =
            prev.is_some_and(|p| p.text == "trap #15") && operands.starts_with("0xa");
        if is_trap_word {
            return None;
        }
        let word = u16::from_str_radix(operands.trim_start_matches("0x"), 16).unwrap_or(0);
        let hint = match word {
            0x4c00..=0x4c7f => " (68020 32-bit MULU.L/MULS.L/DIVU.L/DIVS.L)",
            0x49c0..=0x49c7 => " (68020 EXTB.L)",
            0x42c0..=0x42ff => " (68010 MOVE from CCR)",
            0x4e74 => " (68010 RTD)",
            0x4808..=0x480f => " (68020 LINK.L)",
            _ => "",
        };
        return Some(format!(
            "opcode 0x{word:04x}{hint} is not a 68000 instruction"
        ));
    }
    // Scaled index registers (`%d0:l:4`) are 68020+; a 68000 ignores the scale.
    if [":2)", ":4)", ":8)", ":2,", ":4,", ":8,"]
        .iter()
        .any(|s| operands.contains(s))
    {
        return Some(format!(
            "`{}` uses a scaled index, which a 68000 ignores (68020+ addressing)",
            insn.text
        ));
    }
    // A byte branch with displacement 0xFF is the 68020 32-bit form (bra.l,
    // bsr.l, bcc.l); on a 68000 it branches to an odd address (address error).
    if mnemonic.starts_with('b')
        && mnemonic.ends_with('s')
        && let Some(target) = operands.split_whitespace().next()
        && let Ok(t) = u64::from_str_radix(target, 16)
        && t % 2 == 1
    {
        return Some(format!(
            "`{}` branches to an odd address: the 68020 32-bit branch form (bra.l/bsr.l/bcc.l)",
            insn.text
        ));
    }
    None
}

/// Checks that the code section `section` of the ELF at `path` holds only
/// 68000 instructions, adding a violation for each function that does not (or
/// one [`ViolationKind::BadElf`] when objdump fails); returns the number of
/// instructions.
fn check_instructions(
    path: &Path,
    elf: &ElfFile32<BigEndian>,
    objdump: &str,
    section: &str,
    violations: &mut Vec<Violation>,
) -> usize {
    let mut bad_elf = |message| {
        violations.push(Violation {
            kind: ViolationKind::BadElf,
            message,
        });
        0
    };
    let text = match disassemble(
        objdump,
        &["-d", "-m", "m68k:68000", "-j", section],
        path,
        section,
    ) {
        Ok(t) => t,
        Err(message) => return bad_elf(message),
    };
    let insns = parse_objdump(&text);
    let size = elf.section_by_name(section).map_or(0, |s| s.size());
    if insns.is_empty() && size > 0 {
        return bad_elf(format!(
            "{objdump} found no instruction in the {size}-byte {section}: a damaged ELF?"
        ));
    }
    let index = elf.section_by_name(section).map(|s| s.index());
    violations.extend(scan_68000(&insns, section, |address| {
        index
            .map(|i| containing_symbol(elf, i, address))
            .unwrap_or_default()
    }));
    insns.len()
}

/// The [`ViolationKind::Not68000`] violations among `insns` (a linear
/// disassembly of the section `section`), each named `SECTION+0x… (in PLACE)`
/// with `place(address)` (`function+0x…`), one per function: after an invalid
/// word the linear disassembly is out of step until the next function.
fn scan_68000(insns: &[Insn<'_>], section: &str, place: impl Fn(u64) -> String) -> Vec<Violation> {
    let mut violations = Vec::new();
    let mut prev: Option<&Insn<'_>> = None;
    let mut reported_in: Option<String> = None;
    for insn in insns {
        if let Some(why) = not_68000(prev, insn) {
            let place = place(insn.address);
            let function = place.split('+').next().unwrap_or("").to_string();
            if reported_in.as_deref() != Some(function.as_str()) {
                violations.push(Violation {
                    kind: ViolationKind::Not68000,
                    message: format!("{why} at {section}+0x{:x} (in {place})", insn.address),
                });
                reported_in = Some(function);
            }
        }
        prev = Some(insn);
    }
    violations
}

/// Checks that the raw 68k code in the file `code` (instructions only, from
/// offset 0: objdump reads it as `-b binary -m m68k:68000`) holds only 68000
/// instructions, naming each violation's place with `place(offset)`.
/// Returns the instruction count and the violations. For code that is not in
/// an ELF, such as the `.text` of a coff-m68k object ([`crate::coff`]).
///
/// # Errors
/// objdump cannot run or reports an error.
pub fn check_raw_code(
    code: &Path,
    objdump: &str,
    place: impl Fn(u64) -> String,
) -> Result<(usize, Vec<Violation>), String> {
    let what = code.display().to_string();
    let text = disassemble(
        objdump,
        &["-D", "-b", "binary", "-m", "m68k:68000"],
        code,
        &what,
    )?;
    let insns = parse_objdump(&text);
    Ok((insns.len(), scan_68000(&insns, ".text", place)))
}

/// objdump's output for `args` and `path`; an error naming `what` when it
/// fails or prints anything on stderr (objdump reports a damaged ELF, "section
/// extending past end of file", on stderr and still exits 0, having
/// disassembled nothing).
fn disassemble(objdump: &str, args: &[&str], path: &Path, what: &str) -> Result<String, String> {
    let output = Command::new(objdump)
        .args(args)
        .arg(path)
        .output()
        .map_err(|e| format!("cannot run {objdump} (run ci/setup): {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() || !stderr.trim().is_empty() {
        return Err(format!(
            "{objdump} could not disassemble {what}: {}",
            stderr.trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insn(address: u64, text: &str) -> Insn<'_> {
        Insn { address, text }
    }

    #[test]
    fn unreadable_inputs_give_one_plain_error() {
        let missing = verify_elf(Path::new("/nonexistent/app.elf"), Rules::App, "objdump")
            .unwrap_err()
            .to_string();
        assert!(
            missing.starts_with("/nonexistent/app.elf: cannot read: "),
            "{missing}"
        );
        let dir = verify_elf(Path::new("/"), Rules::App, "objdump")
            .unwrap_err()
            .to_string();
        assert_eq!(dir, "/: not a regular file");
        let not_elf =
            std::env::temp_dir().join(format!("palm-build-not-elf-{}", std::process::id()));
        std::fs::write(&not_elf, b"#!/bin/sh\n").unwrap();
        let msg = verify_elf(&not_elf, Rules::App, "objdump")
            .unwrap_err()
            .to_string();
        let _ = std::fs::remove_file(&not_elf);
        assert!(msg.contains("not a 32-bit big-endian ELF"), "{msg}");
    }

    #[test]
    fn parses_objdump_lines() {
        let out = "\n00000000 <f>:\n   0:\t4c01 0000      \tmulul %d1,%d0\n   4:\t60ff ffff fffa \tbral 0 <f>\n\
                   \n   c:\t2230 0c00      \tmovel %a0@(0,%d0:l:4),%d1\n  10:\t480e ffff fff8 \n";
        let insns = parse_objdump(out);
        assert_eq!(
            insns,
            vec![
                insn(0, "mulul %d1,%d0"),
                insn(4, "bral 0 <f>"),
                insn(0xc, "movel %a0@(0,%d0:l:4),%d1")
            ]
        );
    }

    #[test]
    fn flags_68020_forms() {
        assert!(
            not_68000(None, &insn(0, ".short 0x4c01"))
                .unwrap()
                .contains("MULU.L")
        );
        assert!(
            not_68000(None, &insn(0, "movel %a0@(0,%d0:l:4),%d1"))
                .unwrap()
                .contains("scaled")
        );
        assert!(
            not_68000(None, &insn(0, "bras 27 <f+0x27>"))
                .unwrap()
                .contains("odd")
        );
        assert!(
            not_68000(None, &insn(0, ".short 0x42c0"))
                .unwrap()
                .contains("CCR")
        );
    }

    #[test]
    fn accepts_68000_forms_and_trap_words() {
        let trap = insn(0, "trap #15");
        assert_eq!(not_68000(Some(&trap), &insn(2, ".short 0xa013")), None);
        assert_eq!(not_68000(None, &insn(0, "movel %a0@(0,%d0:l),%d1")), None);
        assert_eq!(not_68000(None, &insn(0, "bras 26 <f+0x26>")), None);
        assert_eq!(not_68000(None, &insn(0, "mulu %d1,%d0")), None);
        // A line-A word anywhere else is not an instruction.
        assert!(not_68000(None, &insn(2, ".short 0xa013")).is_some());
    }
}
