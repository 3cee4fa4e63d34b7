//! `palm-build lib --format coff`: a library for prc-tools' linker.
//!
//! prc-tools' `m68k-palmos-ld` reads only coff-m68k (crate `m68k-coff` has
//! the format and its sources), so the verified ELF object that
//! [`crate::build_lib`] makes is converted here into one coff-m68k object:
//!
//! - **Sections kept as prc-tools' ld would keep them with `--gc-sections`**:
//!   its linker script (`binutils-2.14/ld/scripttempl/m68kpalmos.sc`) takes
//!   only input sections named `.text`, `.data` and `.bss`, and COFF has no
//!   section groups or garbage collection, so the object has a single `.text`
//!   holding the code sections reachable from the exported symbols (through
//!   relocations, as GNU ld's `--gc-sections` follows them), then the
//!   read-only data sections they reach, each at its ELF alignment, but at most 4
//!   (BFD aligns a coff-m68k input section to 4, `bfd/coff-m68k.c`
//!   `COFF_DEFAULT_SECTION_ALIGNMENT_POWER`; code 1 runs at any even address,
//!   so no more holds at run time in the ELF path either). Gaps between code sections hold
//!   `nop`s. `.data` and `.bss` are empty (Palm code has no globals of ours).
//! - **References inside the object are resolved here**, as an assembler
//!   resolves PC-relative references within one section: `S + A − P` written
//!   into the field, range-checked for its width. The object then runs
//!   wherever ld places its `.text`.
//! - **References to symbols the object does not define** become coff-m68k
//!   PC-relative relocations (`R_PCRWORD` for `R_68K_PC16`, `R_PCRLONG` for
//!   `R_68K_PC32`) against undefined `C_EXT` symbols, the field holding what
//!   prc-tools' ld expects ([`m68k_coff::pc_relative_field`]). A byte-wide
//!   reference to an undefined symbol is refused: it cannot reach outside the
//!   object.
//! - **Symbols**: the section symbols `.text`, `.data`, `.bss` (with their
//!   aux entries, as prc-tools' `as` writes them), the exported symbols as
//!   `C_EXT`, every other named function or object of the kept sections as
//!   `C_STAT` (local: names for the disassembly, and no clash with prc-tools'
//!   libc, which defines `memcpy`, `memmove`, `memset` and `abort` too), then
//!   the undefined ones. Debugging sections are not converted.
//!
//! [`verify_object`] checks the result with the rules of the ELF path: only
//! `.text` has contents, every relocation is PC-relative, the code is within
//! 32 KB, and every instruction is a 68000 one (GNU objdump on the raw code).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use m68k_coff::{
    C_EXT, C_STAT, F_AR32W, F_LNNO, N_UNDEF, Object, RelocKind, Relocation, STYP_BSS, STYP_DATA,
    STYP_TEXT, Section, Symbol, T_FUNCTION,
};
use object::read::elf::ElfFile32;
use object::{
    BigEndian, Object as _, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget,
    SectionFlags, SectionIndex, SymbolKind, SymbolSection, elf,
};

use crate::verify::{self, VerifyError, Violation, ViolationKind};

/// The format of a `palm-build lib` archive (`--format elf|coff`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LibFormat {
    /// ELF (`m68k-linux-gnu-ld`, palm-build's own links).
    Elf,
    /// coff-m68k, for prc-tools' `m68k-palmos-ld`.
    Coff,
}

/// A `nop` (0x4E71): fills the gaps between code sections so that the code
/// disassembles in step.
const NOP: [u8; 2] = [0x4E, 0x71];

/// An ELF relocatable object converted by [`convert`].
#[derive(Clone, Debug)]
pub struct Converted {
    /// The coff-m68k object.
    pub object: Object,
    /// Bytes of `.text` that are code (from offset 0); read-only data follows.
    pub code_bytes: u32,
    /// ELF sections copied into `.text`.
    pub kept_sections: usize,
    /// Allocatable ELF sections left out (not reachable from the exports).
    pub dropped_sections: usize,
    /// Symbols the object references but does not define.
    pub undefined: Vec<String>,
    /// Bytes of the kept constant pools (`SHF_MERGE` sections such as
    /// `.rodata.cst32`). GNU ld merges their equal entries; this conversion
    /// keeps them whole, so `.text` may be up to this much larger than the
    /// ELF link's code and read-only data.
    pub mergeable_bytes: u32,
}

/// Which relocation type of coff-m68k carries an ELF m68k relocation type,
/// if it is one that code 1 may have (PC-relative; PLT forms are the same in
/// a static link). `None` for R_68K_NONE, `Err` for an absolute one.
fn coff_kind(r_type: u32) -> Result<Option<RelocKind>, String> {
    let is = |t: elf::RelocationType| t.0 == r_type;
    Ok(Some(if is(elf::R_68K_NONE) {
        return Ok(None);
    } else if is(elf::R_68K_PC8) || is(elf::R_68K_PLT8) {
        RelocKind::PcByte
    } else if is(elf::R_68K_PC16) || is(elf::R_68K_PLT16) {
        RelocKind::PcWord
    } else if is(elf::R_68K_PC32) || is(elf::R_68K_PLT32) {
        RelocKind::PcLong
    } else {
        return Err(format!("relocation type {r_type} is not PC-relative"));
    }))
}

/// Writes `value` into `data[at..at + width]`, big-endian, if it fits the
/// field (signed for 1 and 2 bytes) and the field lies inside `limit`.
fn put_field(
    data: &mut [u8],
    at: usize,
    limit: std::ops::Range<usize>,
    kind: RelocKind,
    value: i64,
) -> Result<(), String> {
    let width = kind.size() as usize;
    if at < limit.start || at + width > limit.end {
        return Err(format!("the {width}-byte field is outside its section"));
    }
    let fits = match width {
        1 => i8::try_from(value).is_ok(),
        2 => i16::try_from(value).is_ok(),
        _ => i32::try_from(value).is_ok() || u32::try_from(value).is_ok(),
    };
    if !fits {
        return Err(format!("{value} does not fit the {width}-byte field"));
    }
    let bytes = (value as u32).to_be_bytes();
    data[at..at + width].copy_from_slice(&bytes[4 - width..]);
    Ok(())
}

/// A kept ELF section and where it goes in `.text`.
struct Placed {
    index: usize,
    at: u32,
}

/// Converts the ELF relocatable object `elf_path` (a verified `palm-build
/// lib` member) into a coff-m68k object whose `.text` holds what `roots`
/// (the exported symbols) reach. See the module documentation.
///
/// # Errors
/// The file is not an m68k ELF relocatable object; a root is not defined in
/// it; an allocatable section other than `.text*`/`.rodata*` has contents; a
/// relocation is absolute, or
/// PC-relative to an absolute symbol, or a byte-wide reference to an
/// undefined symbol; a resolved displacement does not fit its field; code and
/// read-only data exceed 32 KB. Each error names the symbol or section.
pub fn convert(elf_path: &Path, roots: &[String]) -> Result<Converted> {
    let data =
        std::fs::read(elf_path).with_context(|| format!("reading {}", elf_path.display()))?;
    let file = elf_path.display();
    let elf = ElfFile32::<BigEndian>::parse(&*data)
        .map_err(|e| anyhow!("{file}: not a 32-bit big-endian ELF: {e}"))?;
    if elf.elf_header().e_type.get(BigEndian) != elf::ET_REL
        || elf.elf_header().e_machine.get(BigEndian) != elf::EM_68K
    {
        bail!("{file}: not an m68k relocatable object (ET_REL, EM_68K)");
    }
    // Allocatable sections with contents: code or read-only data only.
    let mut code = BTreeSet::new();
    let mut rodata = BTreeSet::new();
    for s in elf.sections() {
        let SectionFlags::Elf { sh_flags, .. } = s.flags() else {
            continue;
        };
        if sh_flags.0 & elf::SHF_ALLOC.0 == 0 || s.size() == 0 {
            continue;
        }
        let name = s.name().unwrap_or("<bad name>");
        let writable = sh_flags.0 & elf::SHF_WRITE.0 != 0;
        if !writable && (name == ".text" || name.starts_with(".text.")) {
            code.insert(s.index().0);
        } else if !writable && (name == ".rodata" || name.starts_with(".rodata.")) {
            rodata.insert(s.index().0);
        } else {
            bail!(
                "{file}: section {name} ({} bytes) is not code or read-only data",
                s.size()
            );
        }
    }
    // Garbage collection from the roots, through relocations.
    let mut kept = BTreeSet::new();
    let mut work = Vec::new();
    for root in roots {
        let sym = elf
            .symbols()
            .find(|s| s.is_global() && s.is_definition() && s.name() == Ok(root.as_str()))
            .ok_or_else(|| anyhow!("{file}: exported symbol `{root}` is not defined in it"))?;
        if let Some(i) = sym.section_index() {
            work.push(i.0);
        }
    }
    while let Some(i) = work.pop() {
        if !(code.contains(&i) || rodata.contains(&i)) || !kept.insert(i) {
            continue;
        }
        let section = elf.section_by_index(SectionIndex(i))?;
        for (_, r) in section.relocations() {
            if let RelocationTarget::Symbol(t) = r.target()
                && let Some(at) = elf.symbol_by_index(t)?.section_index()
            {
                work.push(at.0);
            }
        }
    }
    // Layout: the kept code sections in ELF order, then the read-only data.
    let mut placed = Vec::new();
    let mut text = Vec::new();
    let mut code_bytes = 0;
    let mut mergeable_bytes = 0;
    for (set, is_code) in [(&code, true), (&rodata, false)] {
        let fill = if is_code { NOP.as_slice() } else { &[0u8][..] };
        for &i in set.iter().filter(|i| kept.contains(i)) {
            let s = elf.section_by_index(SectionIndex(i))?;
            // At most 4, BFD's alignment of a coff-m68k input section. No
            // more can hold at run time anyway: code 1 runs in place at
            // whatever even address its chunk has (the ELF path's image has
            // the same guarantee), and the 68000 needs only 2 for words.
            // LLVM asks 8 for its merged constant pools (`.rodata.cst32`).
            let align = s.align().clamp(if is_code { 2 } else { 1 }, 4);
            while !(text.len() as u64).is_multiple_of(align) {
                text.push(fill[text.len() % fill.len()]);
            }
            placed.push(Placed {
                index: i,
                at: text.len() as u32,
            });
            if matches!(s.flags(), SectionFlags::Elf { sh_flags, .. } if sh_flags.0 & elf::SHF_MERGE.0 != 0)
            {
                mergeable_bytes += s.size() as u32;
            }
            text.extend_from_slice(s.data()?);
        }
        if is_code {
            code_bytes = text.len() as u32;
        }
    }
    if text.len() as u64 > verify::MAX_IMAGE_BYTES {
        bail!(
            "{file}: the exported symbols reach {} bytes of code and read-only data, over the \
             {} a 16-bit displacement reaches",
            text.len(),
            verify::MAX_IMAGE_BYTES
        );
    }
    let base: BTreeMap<usize, u32> = placed.iter().map(|p| (p.index, p.at)).collect();
    let text_size = text.len() as u32;

    // Symbols: section symbols, exports, locals; undefined ones as met.
    let mut symbols = vec![
        section_symbol(".text", 1, 0, text_size),
        section_symbol(".data", 2, text_size, 0),
        section_symbol(".bss", 3, text_size, 0),
    ];
    let exported: BTreeSet<&str> = roots.iter().map(String::as_str).collect();
    for sym in elf.symbols() {
        let Some(at) = sym.section_index().and_then(|i| base.get(&i.0)) else {
            continue;
        };
        let name = sym.name().unwrap_or("");
        let global = sym.is_global() && exported.contains(name);
        let named = matches!(sym.kind(), SymbolKind::Text | SymbolKind::Data)
            && !name.is_empty()
            && !name.starts_with(".L");
        if !(named || global) {
            continue;
        }
        symbols.push(Symbol {
            name: name.to_string(),
            value: at + sym.address() as u32,
            section: 1,
            typ: if sym.kind() == SymbolKind::Text {
                T_FUNCTION
            } else {
                0
            },
            class: if global { C_EXT } else { C_STAT },
            aux: Vec::new(),
        });
    }
    let mut undefined: BTreeMap<String, usize> = BTreeMap::new();
    let mut relocations = Vec::new();
    for p in &placed {
        let section = elf.section_by_index(SectionIndex(p.index))?;
        let sname = section.name().unwrap_or("<bad name>").to_string();
        for (offset, r) in section.relocations() {
            let RelocationFlags::Elf { r_type } = r.flags() else {
                continue;
            };
            let at =
                p.at.saturating_add(u32::try_from(offset).unwrap_or(u32::MAX));
            let RelocationTarget::Symbol(t) = r.target() else {
                bail!("{file}: relocation at {sname}+0x{offset:x} has no symbol");
            };
            let target = elf.symbol_by_index(t)?;
            let tname = match target.kind() {
                SymbolKind::Section => target
                    .section_index()
                    .and_then(|i| elf.section_by_index(i).ok())
                    .and_then(|s| s.name().ok().map(str::to_string))
                    .unwrap_or_default(),
                _ => crate::ircheck::demangle(target.name().unwrap_or("")),
            };
            let place = || format!("{sname}+0x{offset:x} (to `{tname}`)");
            let kind = match coff_kind(r_type.0) {
                Ok(Some(k)) => k,
                Ok(None) => continue,
                Err(why) => bail!("{file}: {why} at {}", place()),
            };
            let value = match target.section() {
                SymbolSection::Section(i) => {
                    let Some(b) = base.get(&i.0) else {
                        bail!("{file}: {} refers to a section that was not kept", place());
                    };
                    i64::from(*b) + target.address() as i64 + r.addend() - i64::from(at)
                }
                SymbolSection::Undefined => {
                    if kind == RelocKind::PcByte {
                        bail!(
                            "{file}: a byte-wide PC-relative reference cannot reach the undefined \
                             symbol, at {}",
                            place()
                        );
                    }
                    let name = target.name().unwrap_or("").to_string();
                    let next = symbols.len() + undefined.len();
                    let symbol = *undefined.entry(name).or_insert(next);
                    relocations.push(Relocation {
                        vaddr: at,
                        symbol,
                        kind,
                    });
                    m68k_coff::pc_relative_field(r.addend(), 0, at)
                }
                _ => bail!(
                    "{file}: PC-relative reference to a symbol that is not in a section, at {}",
                    place()
                ),
            };
            let limit = p.at as usize..p.at as usize + section.size() as usize;
            put_field(&mut text, at as usize, limit, kind, value)
                .map_err(|why| anyhow!("{file}: relocation truncated at {}: {why}", place()))?;
        }
    }
    let mut undefined_names: Vec<(usize, String)> =
        undefined.into_iter().map(|(n, i)| (i, n)).collect();
    undefined_names.sort();
    for (_, name) in &undefined_names {
        symbols.push(Symbol {
            name: name.clone(),
            value: 0,
            section: N_UNDEF,
            typ: 0,
            class: C_EXT,
            aux: Vec::new(),
        });
    }
    symbols[0].aux = vec![Symbol::section_aux(
        text_size,
        u16::try_from(relocations.len()).map_err(|_| anyhow!("{file}: over 65 535 relocations"))?,
    )];
    let allocatable = code.len() + rodata.len();
    Ok(Converted {
        object: Object {
            timestamp: 0,
            flags: F_LNNO | F_AR32W,
            sections: vec![
                Section {
                    name: ".text".into(),
                    vaddr: 0,
                    size: text_size,
                    flags: STYP_TEXT,
                    data: text,
                    relocations,
                },
                empty_section(".data", STYP_DATA, text_size),
                empty_section(".bss", STYP_BSS, text_size),
            ],
            symbols,
        },
        code_bytes,
        kept_sections: placed.len(),
        dropped_sections: allocatable - placed.len(),
        undefined: undefined_names.into_iter().map(|(_, n)| n).collect(),
        mergeable_bytes,
    })
}

fn section_symbol(name: &str, section: i16, value: u32, size: u32) -> Symbol {
    Symbol {
        name: name.into(),
        value,
        section,
        typ: 0,
        class: C_STAT,
        aux: vec![Symbol::section_aux(size, 0)],
    }
}

fn empty_section(name: &str, flags: u32, vaddr: u32) -> Section {
    Section {
        name: name.into(),
        vaddr,
        size: 0,
        flags,
        data: Vec::new(),
        relocations: Vec::new(),
    }
}

/// The last named symbol of `object` (not a section's) at or before `offset` in `.text`, as
/// `name+0x…` (demangled).
fn place_in(object: &Object, offset: u64) -> String {
    object
        .symbols
        .iter()
        .filter(|s| s.section == 1 && s.aux.is_empty() && u64::from(s.value) <= offset)
        .max_by_key(|s| s.value)
        .map_or_else(
            || format!("<no symbol>+0x{offset:x}"),
            |s| {
                format!(
                    "{}+0x{:x}",
                    crate::ircheck::demangle(&s.name),
                    offset - u64::from(s.value)
                )
            },
        )
}

/// Verifies a coff-m68k object as code 1 material, with the rules of the
/// ELF path ([`verify::verify_object`]): no section but `.text` has
/// contents, every relocation is PC-relative and against a symbol the object
/// does not define (references inside it are resolved), `.text` is at most
/// 32 KB, and its first `code_bytes` bytes are only 68000 instructions
/// (objdump in 68000 mode on a copy in `work`). `file` names the object in
/// messages.
///
/// # Errors
/// A [`VerifyError`] listing every violation.
pub fn verify_object(
    object: &Object,
    code_bytes: u32,
    file: &str,
    work: &Path,
    objdump: &str,
) -> Result<verify::Verified, VerifyError> {
    let mut violations = Vec::new();
    let mut bad = |kind, message: String| violations.push(Violation { kind, message });
    let mut text: Option<&Section> = None;
    for s in &object.sections {
        if s.name == ".text" && s.flags & STYP_TEXT != 0 {
            text = Some(s);
        } else if s.size > 0 {
            bad(
                ViolationKind::WritableSection,
                format!(
                    "section {} is not empty ({} bytes): Palm code 1 holds only code and \
                     read-only data",
                    s.name, s.size
                ),
            );
        }
    }
    let Some(text) = text else {
        return Err(VerifyError {
            file: file.into(),
            violations: vec![Violation {
                kind: ViolationKind::BadElf,
                message: "no .text section".into(),
            }],
        });
    };
    for r in &text.relocations {
        let sym = &object.symbols[r.symbol];
        if !r.kind.is_pc_relative() {
            bad(
                ViolationKind::AbsoluteRelocation,
                format!(
                    "absolute relocation {} to `{}` at .text+0x{:x} (in {}): code 1 runs in \
                     place at an unknown address, so every reference must be PC-relative",
                    r.kind.name(),
                    sym.name,
                    r.vaddr,
                    place_in(object, u64::from(r.vaddr))
                ),
            );
        } else if sym.is_defined() {
            bad(
                ViolationKind::BadElf,
                format!(
                    "relocation {} at .text+0x{:x} to `{}`, which the object defines: it should \
                     have been resolved",
                    r.kind.name(),
                    r.vaddr,
                    sym.name
                ),
            );
        }
    }
    if u64::from(text.size) > verify::MAX_IMAGE_BYTES {
        bad(
            ViolationKind::TooLarge,
            format!(
                ".text is {} bytes, over the {} a 16-bit displacement reaches",
                text.size,
                verify::MAX_IMAGE_BYTES
            ),
        );
    }
    let code = work.join("coff-code.bin");
    let end = (code_bytes as usize).min(text.data.len());
    let instructions = std::fs::write(&code, &text.data[..end])
        .map_err(|e| e.to_string())
        .and_then(|()| verify::check_raw_code(&code, objdump, |a| place_in(object, a)));
    match instructions {
        Ok((n, v)) => {
            violations.extend(v);
            if violations.is_empty() {
                return Ok(verify::Verified {
                    text_bytes: u64::from(code_bytes),
                    rodata_bytes: u64::from(text.size - code_bytes.min(text.size)),
                    instructions: n,
                });
            }
        }
        Err(e) => violations.push(Violation {
            kind: ViolationKind::BadElf,
            message: e,
        }),
    }
    Err(VerifyError {
        file: file.into(),
        violations,
    })
}

/// A coff-m68k archive written by [`write_library`].
#[derive(Clone, Debug)]
pub struct CoffLibrary {
    /// The archive.
    pub archive: PathBuf,
    /// Its member's name.
    pub member: String,
    /// The conversion.
    pub converted: Converted,
    /// The verifier's statistics of the object read back from the archive.
    pub verified: verify::Verified,
}

/// Converts `elf_object` ([`convert`]), writes it as the only member of the
/// coff-m68k archive `archive` with an index of `exported`, reads the archive
/// back from disk and verifies the member ([`verify_object`]) and the index
/// (exactly `exported`, pointing at the member).
///
/// # Errors
/// As [`convert`] and [`verify_object`]; the archive cannot be written, or
/// what was read back differs from what was written.
pub fn write_library(
    elf_object: &Path,
    exported: &[String],
    archive: &Path,
    work: &Path,
    objdump: &str,
) -> Result<CoffLibrary> {
    let converted = convert(elf_object, exported)?;
    let bytes = converted
        .object
        .to_bytes()
        .with_context(|| format!("writing the COFF of {}", elf_object.display()))?;
    let stem = archive
        .file_stem()
        .map_or("lib".into(), |s| s.to_string_lossy().into_owned());
    let stem: String = stem
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(13)
        .collect();
    let member = format!("{}.o", if stem.is_empty() { "lib" } else { &stem });
    let ar = m68k_coff::write_archive(&[m68k_coff::ArchiveMember {
        name: member.clone(),
        data: bytes.clone(),
        symbols: exported.to_vec(),
    }])?;
    std::fs::write(archive, &ar).with_context(|| format!("writing {}", archive.display()))?;
    let back = std::fs::read(archive).with_context(|| format!("reading {}", archive.display()))?;
    let members = m68k_coff::read_archive(&back)
        .with_context(|| format!("reading back {}", archive.display()))?;
    let [m] = members.as_slice() else {
        bail!(
            "{}: {} members read back, not 1",
            archive.display(),
            members.len()
        );
    };
    if m.name != member || m.data != bytes || m.symbols != exported {
        bail!(
            "{}: the member read back differs from the one written",
            archive.display()
        );
    }
    let object = Object::parse(&m.data)
        .with_context(|| format!("{}({member}): parsing it back", archive.display()))?;
    let file = format!("{}({member})", archive.display());
    let verified = verify_object(&object, converted.code_bytes, &file, work, objdump)?;
    let mut defined: Vec<&str> = object.defined_globals();
    defined.sort_unstable();
    let mut wanted: Vec<&str> = exported.iter().map(String::as_str).collect();
    wanted.sort_unstable();
    if defined != wanted {
        bail!("{file}: its global symbols differ from the exported ones");
    }
    Ok(CoffLibrary {
        archive: archive.to_path_buf(),
        member,
        converted,
        verified,
    })
}
