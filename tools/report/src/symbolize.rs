//! The second stage: code 1 offsets and `segment N + offset` frames →
//! function, file and line.
//!
//! [`Symbolize`] is what the analysis asks; [`ElfSymbols`] answers from the
//! app's ELF (palm-build links code 1 at address 0, so an offset recorded by
//! memdbg is an ELF address; in prc-tools' layout, `palm-build c-app
//! --segments`, it links code resource N at N × [`SEGMENT_STRIDE`], so offset
//! `o` of code N is the ELF address `N × SEGMENT_STRIDE + o`): the DWARF line
//! tables and inlined-function entries first (through `addr2line`, which reads
//! DWARF 4 and 5 alike), then the ELF symbol table, then nothing (the frame
//! stays a raw offset). The DWARF of functions the linker removed is set aside
//! first ([`tombstone_removed`]): GNU ld leaves it at address 0, over live code.

use std::borrow::Cow;
use std::rc::Rc;

use memdbg::record::{self, Header};
use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SymbolKind};
use serde::Serialize;

use crate::{InputError, Ledger};

/// One function of a symbolized frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Symbol {
    /// Demangled function name (Rust hashes dropped).
    pub function: String,
    /// Source file (shortened: see [`ElfSymbols`]); `None` without line info.
    pub file: Option<String>,
    /// Source line; `None` without line info.
    pub line: Option<u32>,
    /// True if this function was inlined into the next one of the frame.
    pub inlined: bool,
}

/// The functions at one address, innermost inlined first; shared by every
/// frame with that address (cheap to clone). Serialized as an array.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Symbols(pub Rc<[Symbol]>);

impl std::ops::Deref for Symbols {
    type Target = [Symbol];
    fn deref(&self) -> &[Symbol] {
        &self.0
    }
}

impl Serialize for Symbols {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter())
    }
}

/// ELF address of the first byte of code resource N ≥ 2 in an app that
/// `palm-build c-app --segments` linked: N × this (`palm_build::segments::
/// SEGMENT_STRIDE`). Code 1 is below it, from 0.
pub const SEGMENT_STRIDE: u32 = 0x0100_0000;

/// The last code resource an ELF's addresses can name: 63 (the globals are
/// linked at 64 × [`SEGMENT_STRIDE`]).
const MAX_SEGMENT: u32 = 63;

/// Symbolizes return addresses inside code 1 (and code 2…n).
pub trait Symbolize {
    /// The functions at `offset`, a **return address** as an offset from code
    /// 1's start, innermost (inlined) first; empty if unknown. Implementations
    /// look up `offset - 1`, inside the call instruction, so the line is the
    /// call's line.
    fn symbolize(&self, offset: u32) -> Vec<Symbol>;

    /// The functions at `offset`, a return address as an offset from the start
    /// of code resource `resource` (N ≥ 2), as [`Symbolize::symbolize`] does for
    /// code 1; empty if unknown (the default: symbols of code 1 only).
    fn symbolize_segment(&self, resource: u16, offset: u32) -> Vec<Symbol> {
        let _ = (resource, offset);
        Vec::new()
    }

    /// The size and CRC-32 (`memdbg::record::crc32`) of code resource
    /// `resource` (N ≥ 2) in these symbols, `None` when they do not have it.
    fn segment(&self, resource: u16) -> Option<(u32, u32)> {
        let _ = resource;
        None
    }

    /// A name for reports (the ELF's path).
    fn name(&self) -> &str;

    /// Whether `offset` follows a call instruction in the code, as every
    /// return address does; `None` when the code is not known. Frames that do
    /// not suggest the symbols are of another build (the report warns).
    fn is_return_address(&self, offset: u32) -> Option<bool> {
        let _ = offset;
        None
    }

    /// What these symbols cannot give, as a warning for the report (an ELF
    /// without line tables: no file:line in call stacks); `None` when they
    /// are complete.
    fn missing(&self) -> Option<String> {
        None
    }

    /// The function at code 1 offset 0, the app's entry point (palm-build and
    /// prc-tools put it there: `__palm_entry`, `start`), whose caller is the OS
    /// launching the app; `None` when unknown.
    fn entry_function(&self) -> Option<&str> {
        None
    }
}

type Reader = gimli::EndianRcSlice<gimli::RunTimeEndian>;

/// Largest code 1 accepted from an ELF (a Palm code resource is at most 64 KB;
/// this only bounds what a hostile ELF can make us allocate).
const MAX_CODE: u64 = 16 << 20;

/// Whether the MC68000 instruction ending just before `offset` in `code` can be
/// a call: `jsr` (every addressing mode), `bsr.b`/`bsr.w`, or a Palm OS system
/// call (`trap #15` and its trap word). A return address always follows one.
pub fn follows_call(code: &[u8], offset: u32) -> bool {
    let at = |back: u32| -> Option<u16> {
        let i = usize::try_from(offset.checked_sub(back)?).ok()?;
        Some(u16::from_be_bytes([*code.get(i)?, *code.get(i + 1)?]))
    };
    let is = |back: u32, f: &dyn Fn(u16) -> bool| at(back).is_some_and(f);
    // 2 bytes: jsr (An); bsr.b with an 8-bit displacement.
    is(2, &|w| (0x4E90..=0x4E97).contains(&w))
        || is(2, &|w| w >> 8 == 0x61 && w & 0xFF != 0 && w & 0xFF != 0xFF)
        // 4 bytes: jsr (d16,An), (d8,An,Xn), abs.w, (d16,PC), (d8,PC,Xn); bsr.w; trap #15 + selector.
        || is(4, &|w| (0x4EA8..=0x4EB8).contains(&w) || w == 0x4EBA || w == 0x4EBB)
        || is(4, &|w| w == 0x6100)
        || is(4, &|w| w == 0x4E4F)
        // 6 bytes: jsr abs.l.
        || is(6, &|w| w == 0x4EB9)
}

/// Symbols and DWARF of a palm-build ELF.
///
/// File names are shortened so reports do not depend on where the project
/// was checked out: a compilation directory prefix (`DW_AT_comp_dir`) is
/// removed (`/home/me/app/src/main.rs` → `src/main.rs`), and so is
/// everything up to a toolchain's `lib/rustlib/src/rust/` or a cargo
/// registry's `registry/src/<index>/`.
pub struct ElfSymbols {
    name: String,
    code_size: u32,
    /// Code 1's bytes (the allocated sections at their addresses).
    code: Vec<u8>,
    /// `memdbg::record::crc32(&code)`.
    code_crc: u32,
    dwarf: Option<addr2line::Context<Reader>>,
    /// Whether the DWARF gives a file and line for any function.
    line_tables: bool,
    comp_dirs: Vec<String>,
    /// Function symbols: (address, size, demangled name), by address.
    functions: Vec<(u32, u32, String)>,
    /// Code 2…n: resource ID → bytes (at ELF address N × [`SEGMENT_STRIDE`]).
    segments: std::collections::BTreeMap<u16, Vec<u8>>,
}

impl std::fmt::Debug for ElfSymbols {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElfSymbols")
            .field("name", &self.name)
            .field("code_size", &self.code_size)
            .field("code_crc", &format_args!("0x{:08X}", self.code_crc))
            .field("dwarf", &self.dwarf.is_some())
            .field("functions", &self.functions.len())
            .finish()
    }
}

/// `name` demangled, without a Rust hash suffix.
pub fn demangle(name: &str) -> String {
    format!("{:#}", rustc_demangle::demangle(name))
}

impl ElfSymbols {
    /// Reads `path`.
    ///
    /// # Errors
    /// As [`ElfSymbols::from_bytes`], or the file cannot be read, is not a
    /// regular file or is larger than [`MAX_ELF_FILE`](crate::MAX_ELF_FILE).
    pub fn load(path: &std::path::Path) -> Result<ElfSymbols, InputError> {
        let name = path.display().to_string();
        let data = crate::input::read_file(path, crate::MAX_ELF_FILE, "an ELF file")?;
        ElfSymbols::from_bytes(&data, &name)
    }

    /// Parses an ELF; `name` names it in errors and reports.
    ///
    /// # Errors
    /// Not an ELF, not a big-endian 32-bit 68k ELF, or DWARF that cannot be
    /// parsed at all. An ELF without DWARF is accepted (symbol table only).
    pub fn from_bytes(data: &[u8], name: &str) -> Result<ElfSymbols, InputError> {
        // (An ELF is never a database: `Database::parse` names its magic.)
        if palm_prc::Database::parse(data).is_ok() {
            return Err(InputError::at(
                name,
                0,
                "a Palm database, not an ELF: the ledger is the input (memdbg report \
                 MemDbgDB.pdb --elf APP.elf); --elf takes the app's ELF, which palm-build \
                 writes beside the PRC (target/palm/APP.elf)",
            ));
        }
        let file = object::File::parse(data)
            .map_err(|e| InputError::at(name, 0, format!("not an ELF file: {e}")))?;
        if file.architecture() != object::Architecture::M68k {
            return Err(InputError::at(
                name,
                0x12,
                format!(
                    "an ELF for {:?}, not for the 68k: not a Palm app built by palm-build",
                    file.architecture()
                ),
            ));
        }
        // Code 1 is every allocated read-only section from address 0: .text then
        // .rodata. Code N (prc-tools' layout) those from N × SEGMENT_STRIDE; the
        // globals (writable) are no code resource.
        let code_sections: Vec<_> = file
            .sections()
            .filter(|s| {
                matches!(s.flags(), SectionFlags::Elf { sh_flags, .. }
                    if sh_flags.0 & object::elf::SHF_ALLOC.0 != 0
                        && sh_flags.0 & object::elf::SHF_WRITE.0 == 0)
                    && s.size() > 0
            })
            .collect();
        let resource_of = |s: &object::Section<'_, '_>| s.address() / u64::from(SEGMENT_STRIDE);
        let (alloc_sections, segment_sections): (Vec<_>, Vec<_>) =
            code_sections.into_iter().partition(|s| resource_of(s) == 0);
        let mut segments = std::collections::BTreeMap::new();
        for s in &segment_sections {
            let n = resource_of(s);
            let at = s.address() - n * u64::from(SEGMENT_STRIDE);
            if !(2..=u64::from(MAX_SEGMENT)).contains(&n) || at + s.size() > MAX_CODE {
                continue;
            }
            let code: &mut Vec<u8> = segments.entry(n as u16).or_default();
            let end = (at + s.size()) as usize;
            if code.len() < end {
                code.resize(end, 0);
            }
            if let Ok(bytes) = s.data()
                && bytes.len() as u64 == s.size()
            {
                code[at as usize..end].copy_from_slice(bytes);
            }
        }
        let end = alloc_sections
            .iter()
            .map(|s| s.address().saturating_add(s.size()))
            .max()
            .unwrap_or(0);
        if end > MAX_CODE {
            return Err(InputError::whole(
                name,
                format!("sections end at 0x{end:X}, beyond any Palm code 1 resource"),
            ));
        }
        let code_size = end as u32;
        let mut code = vec![0u8; code_size as usize];
        for s in &alloc_sections {
            if let Ok(bytes) = s.data()
                && let Some(dst) = usize::try_from(s.address())
                    .ok()
                    .and_then(|a| code.get_mut(a..a.checked_add(bytes.len())?))
            {
                dst.copy_from_slice(bytes);
            }
        }
        let endian = if file.is_little_endian() {
            gimli::RunTimeEndian::Little
        } else {
            gimli::RunTimeEndian::Big
        };
        let has_dwarf = file.section_by_name(".debug_info").is_some();
        let (dwarf, comp_dirs) = if has_dwarf {
            let load = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
                let bytes: Cow<[u8]> = file
                    .section_by_name(id.name())
                    .and_then(|s| {
                        let data = s.uncompressed_data().ok()?;
                        Some(tombstone_removed(&s, data, endian))
                    })
                    .unwrap_or(Cow::Borrowed(&[]));
                Ok(Reader::new(Rc::from(&*bytes), endian))
            };
            let sections = gimli::Dwarf::load(load)
                .map_err(|e| InputError::whole(name, format!("cannot read DWARF: {e}")))?;
            let comp_dirs = comp_dirs(&sections);
            let ctx = addr2line::Context::from_dwarf(sections)
                .map_err(|e| InputError::whole(name, format!("cannot read DWARF: {e}")))?;
            (Some(ctx), comp_dirs)
        } else {
            (None, Vec::new())
        };
        let mut functions: Vec<(u32, u32, String)> = file
            .symbols()
            .filter(|s| s.kind() == SymbolKind::Text && s.is_definition())
            .filter_map(|s| {
                let address = u32::try_from(s.address()).ok()?;
                let size = u32::try_from(s.size()).unwrap_or(0);
                Some((address, size, demangle(s.name().ok()?)))
            })
            .collect();
        functions.sort();
        let line_tables = dwarf.as_ref().is_some_and(|ctx| {
            functions.iter().any(|(addr, _, _)| {
                ctx.find_location(u64::from(*addr))
                    .ok()
                    .flatten()
                    .is_some_and(|l| l.file.is_some() && l.line.is_some())
            })
        });
        Ok(ElfSymbols {
            name: name.to_string(),
            code_size,
            code_crc: record::crc32(&code),
            code,
            dwarf,
            line_tables,
            comp_dirs,
            functions,
            segments,
        })
    }

    /// Size of code 1 in this ELF: the end of its last allocated section.
    pub fn code_size(&self) -> u32 {
        self.code_size
    }

    /// CRC-32 of code 1 in this ELF (the allocated sections from address 0, as
    /// palm-build puts them in code resource 1), as `memdbg::record::crc32`
    /// computes it and memdbg records it in the ledger's header.
    pub fn code_crc(&self) -> u32 {
        self.code_crc
    }

    /// Whether the ELF has DWARF (line numbers); without it only function
    /// names from the symbol table are available.
    pub fn has_dwarf(&self) -> bool {
        self.dwarf.is_some()
    }

    /// Whether the DWARF has line tables that give a file and line for some
    /// function of the ELF (a stripped ELF, or one built with `debug = 0`,
    /// has none: call stacks then show function names only).
    pub fn has_line_tables(&self) -> bool {
        self.line_tables
    }

    /// Checks that this ELF is the build that wrote `ledger`: code 1's size as
    /// the header records it must equal [`ElfSymbols::code_size`], and its
    /// CRC-32 ([`Header::code_checksum`], format version 2 on) must equal
    /// [`ElfSymbols::code_crc`]. A header without a code size (0) cannot be
    /// checked and passes; a version 1 header has no checksum, so only the size
    /// is checked (the report warns).
    ///
    /// # Errors
    /// The sizes or the checksums differ; the one-line error names the ELF, the
    /// ledger and the header field with its file offset.
    pub fn check(&self, ledger: &Ledger) -> Result<(), InputError> {
        let recorded = ledger.header.code_size.get();
        if recorded == 0 {
            return Ok(());
        }
        if recorded != self.code_size {
            let field = ledger.header_offset + core::mem::offset_of!(Header, code_size) as u64;
            return Err(InputError::whole(
                &self.name,
                format!(
                    "code 1 of this ELF is {} bytes (.text + .rodata) but {} records {recorded} \
                     bytes (header code 1 size at offset 0x{field:X}): this ELF is not the \
                     build that wrote the ledger",
                    self.code_size, ledger.source
                ),
            ));
        }
        if let Some(crc) = ledger.header.code_checksum()
            && crc != self.code_crc
        {
            let field = ledger.header_offset + core::mem::offset_of!(Header, code_crc) as u64;
            return Err(InputError::whole(
                &self.name,
                format!(
                    "code 1 of this ELF has CRC-32 0x{:08X} but {} records 0x{crc:08X} \
                     (header code 1 CRC-32 at offset 0x{field:X}; same size, {} bytes): \
                     this ELF is not the build that wrote the ledger",
                    self.code_crc, ledger.source, self.code_size
                ),
            ));
        }
        for r in &ledger.segments {
            let n = r.resource.get();
            let Some((size, crc)) = self.segment(n) else {
                continue;
            };
            if (size, crc) != (r.size.get(), r.crc.get()) {
                return Err(InputError::whole(
                    &self.name,
                    format!(
                        "code {n} of this ELF is {size} bytes with CRC-32 0x{crc:08X} but {} \
                         records {} bytes with CRC-32 0x{:08X} (its code {n} segment record): \
                         this ELF is not the build that wrote the ledger",
                        ledger.source,
                        r.size.get(),
                        r.crc.get()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `path` without the checkout- and machine-specific parts: a build
    /// script's output as `CRATE/generated/FILE`.
    fn shorten(&self, path: &str) -> String {
        let short = self.strip_prefix(path);
        match out_dir(short) {
            Some((krate, file)) => format!("{krate}/generated/{file}"),
            None => short.to_string(),
        }
    }

    /// Where a frame of `function` at `path` (as DWARF names it) and `line` is
    /// in the sources: palm-sys's trap glue and call-original glue (`glue.rs`
    /// and `chain.rs`, which its build script generates from
    /// `palm-sys/traps.tbl`, one function per trap) at its trap's line of the
    /// table; anything else as [`ElfSymbols::shorten`] names it.
    fn location(&self, path: &str, function: &str, line: Option<u32>) -> (String, Option<u32>) {
        if let Some(("m68k-palmos-sys", "glue.rs" | "chain.rs")) = out_dir(self.strip_prefix(path))
            && let Some(t) = function
                .strip_prefix("m68k_palmos_sys::glue::")
                .or_else(|| function.strip_prefix("m68k_palmos_sys::chain::"))
                .and_then(m68k_palmos_sys::table::trap_by_name)
        {
            return (TRAPS_TABLE.to_string(), Some(t.line));
        }
        (self.shorten(path), line)
    }

    /// `path` without the checkout- and machine-specific prefix.
    fn strip_prefix<'p>(&self, path: &'p str) -> &'p str {
        for marker in ["/lib/rustlib/src/rust/", "/registry/src/"] {
            if let Some(i) = path.find(marker) {
                let rest = &path[i + marker.len()..];
                return if marker == "/registry/src/" {
                    // Skip the index directory (`index.crates.io-…/`).
                    rest.split_once('/').map_or(rest, |(_, r)| r)
                } else {
                    rest
                };
            }
        }
        for dir in &self.comp_dirs {
            if let Some(rest) = path.strip_prefix(dir.as_str())
                && let Some(rest) = rest.strip_prefix('/')
            {
                return rest;
            }
        }
        path
    }

    fn dwarf_frames(&self, probe: u64) -> Vec<Symbol> {
        let Some(ctx) = &self.dwarf else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let Ok(mut frames) = ctx.find_frames(probe).skip_all_loads() else {
            return out;
        };
        while let Ok(Some(frame)) = frames.next() {
            let function = frame
                .function
                .as_ref()
                .and_then(|f| f.raw_name().ok())
                .map(|n| demangle(n.as_ref()));
            let function = match function {
                Some(f) => f,
                None => self.function_at(probe).unwrap_or("??").to_string(),
            };
            let (file, line) = match frame.location.as_ref() {
                Some(l) => match l.file {
                    Some(f) => {
                        let (file, line) = self.location(f, &function, l.line);
                        (Some(file), line)
                    }
                    None => (None, l.line),
                },
                None => (None, None),
            };
            out.push(Symbol {
                function,
                file,
                line,
                inlined: true,
            });
        }
        if let Some(last) = out.last_mut() {
            last.inlined = false;
        }
        out
    }

    /// The name of the function symbol containing `addr`.
    fn function_at(&self, addr: u64) -> Option<&str> {
        let addr = u32::try_from(addr).ok()?;
        let i = self
            .functions
            .partition_point(|f| f.0 <= addr)
            .checked_sub(1)?;
        let (start, size, name) = self.functions.get(i)?;
        (*size == 0 || addr < start.saturating_add(*size)).then_some(name.as_str())
    }
}

/// The symbols `memdbg report --elf FILE` reads: a palm-build ELF, or the
/// linked coff-m68k file of a prc-tools build ([`crate::CoffSymbols`]), told
/// apart by their first bytes.
#[derive(Debug)]
pub enum AppSymbols {
    /// An ELF (palm-build).
    Elf(ElfSymbols),
    /// A coff-m68k file (prc-tools' `m68k-palmos-gcc -o APP`).
    Coff(crate::CoffSymbols),
}

impl AppSymbols {
    /// Reads `path` and checks that it is the build that wrote `ledger`.
    ///
    /// # Errors
    /// As [`ElfSymbols::load`] and [`ElfSymbols::check`], or
    /// [`crate::CoffSymbols::load`].
    pub fn load(path: &std::path::Path, ledger: &Ledger) -> Result<AppSymbols, InputError> {
        let name = path.display().to_string();
        let data = crate::input::read_file(path, crate::MAX_ELF_FILE, "an ELF file")?;
        if data.starts_with(&crate::coff::COFF_MAGIC) {
            return crate::CoffSymbols::from_bytes(&data, &name, ledger).map(AppSymbols::Coff);
        }
        let elf = ElfSymbols::from_bytes(&data, &name)?;
        elf.check(ledger)?;
        Ok(AppSymbols::Elf(elf))
    }

    /// Checks that these symbols are of the build that wrote `ledger`.
    ///
    /// # Errors
    /// As [`ElfSymbols::check`] and [`crate::CoffSymbols::check`].
    pub fn check(&self, ledger: &Ledger) -> Result<(), InputError> {
        match self {
            AppSymbols::Elf(e) => e.check(ledger),
            AppSymbols::Coff(c) => c.check(ledger),
        }
    }

    /// The symbolizer.
    pub fn symbolizer(&self) -> &dyn Symbolize {
        match self {
            AppSymbols::Elf(e) => e,
            AppSymbols::Coff(c) => c,
        }
    }
}

/// The DWARF tombstone written over addresses of removed code: -2 for a
/// 32-bit address (-1 would be a base address selection in `.debug_ranges`).
/// gimli (hence addr2line) skips line sequences, ranges and address ranges
/// that start there; nothing in code 1 is near it.
const TOMBSTONE: u32 = 0xFFFF_FFFE;

/// `data`, a debug section's bytes, with every address that GNU ld resolved
/// for a removed section replaced by [`TOMBSTONE`].
///
/// palm-build links with `--gc-sections` and `-q` (`--emit-relocs`): the ELF
/// keeps the relocations of its debug sections, and a relocation against a
/// section that `--gc-sections` removed is turned into `R_68K_NONE`, its field
/// left at 0. Those are the stale addresses of removed functions (their line
/// sequences, subprograms, address ranges), which would otherwise all sit at
/// address 0, where code 1 starts, over live code: `lld` writes tombstones for
/// them (`-z dead-reloc-in-nonalloc`), GNU ld for the m68k cannot, so this
/// does it here. An ELF without relocations is read as it is (then only
/// [`agrees_with_symbol_table`] guards against stale DWARF).
fn tombstone_removed<'d>(
    section: &object::Section<'d, '_>,
    data: Cow<'d, [u8]>,
    endian: gimli::RunTimeEndian,
) -> Cow<'d, [u8]> {
    let removed: Vec<usize> = section
        .relocations()
        .filter(|(_, r)| {
            matches!(r.flags(), object::RelocationFlags::Elf { r_type }
                if r_type == object::elf::R_68K_NONE)
        })
        .filter_map(|(offset, _)| usize::try_from(offset).ok())
        .collect();
    if removed.is_empty() {
        return data;
    }
    let tombstone = match endian {
        gimli::RunTimeEndian::Big => TOMBSTONE.to_be_bytes(),
        gimli::RunTimeEndian::Little => TOMBSTONE.to_le_bytes(),
    };
    let mut data = data.into_owned();
    for at in removed {
        if let Some(field) = at.checked_add(4).and_then(|end| data.get_mut(at..end)) {
            field.copy_from_slice(&tombstone);
        }
    }
    Cow::Owned(data)
}

/// Whether DWARF `frames` for an address (innermost first) describe the
/// function the symbol table has there: the outermost frame is that function.
///
/// palm-build links with `--gc-sections` and code 1 at address 0. GNU ld
/// resolves the DWARF of a removed function to address 0 (the m68k linker
/// has no `-z dead-reloc-in-nonalloc` tombstone), so a removed function's
/// stale ranges and line sequences overlap live code from offset 0, and a
/// DWARF lookup can answer with a function that is not in the image. The
/// symbol table lists only what was linked, so such an answer is dropped in
/// favour of the symbol table's name. Without a symbol there is nothing to
/// check against and the frames are kept.
///
/// This is the second line of defence: [`tombstone_removed`] moves the stale
/// DWARF out of the way first when the ELF has its relocations (palm-build's
/// do). It cannot catch a stale *location* without a function (a line
/// sequence of a removed function found for code without DWARF of its own,
/// such as a naked entry): the function name then comes from the symbol table.
fn agrees_with_symbol_table(frames: &[Symbol], symbol: Option<&str>) -> bool {
    match (frames.last(), symbol) {
        (Some(outer), Some(name)) => outer.function == name,
        _ => true,
    }
}

/// The path of palm-sys's trap table, where its generated glue comes from.
const TRAPS_TABLE: &str = "palm-sys/traps.tbl";

/// A file generated by a build script, `…/build/CRATE-HASH/out/FILE` or
/// `…/build/CRATE/HASH/out/FILE` under a target directory: (CRATE, FILE) (the
/// target directory and hash differ between machines and builds).
fn out_dir(path: &str) -> Option<(&str, &str)> {
    let rest = match path.rsplit_once("/build/") {
        Some((_, rest)) => rest,
        None => path.strip_prefix("build/")?,
    };
    let (dirs, file) = rest.split_once("/out/")?;
    let is_hash = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    let krate = match dirs.split_once('/') {
        Some((krate, hash)) if is_hash(hash) => krate,
        Some(_) => return None,
        None => match dirs.rsplit_once('-') {
            Some((krate, hash)) if is_hash(hash) => krate,
            _ => return None,
        },
    };
    Some((krate, file))
}

fn comp_dirs(dwarf: &gimli::Dwarf<Reader>) -> Vec<String> {
    let mut dirs = Vec::new();
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        if let Ok(unit) = dwarf.unit(header)
            && let Some(dir) = unit.comp_dir
            && let Ok(dir) = gimli::Reader::to_string_lossy(&dir)
        {
            let dir = dir.trim_end_matches('/').to_string();
            if !dir.is_empty() && !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    // Longest first, so a nested directory wins over its parent.
    dirs.sort_by_key(|d| std::cmp::Reverse(d.len()));
    dirs
}

impl ElfSymbols {
    /// The functions at the ELF address `probe` (inside a call instruction).
    fn lookup(&self, probe: u64) -> Vec<Symbol> {
        let found = self.dwarf_frames(probe);
        if !found.is_empty() && agrees_with_symbol_table(&found, self.function_at(probe)) {
            return found;
        }
        match self.function_at(probe) {
            Some(name) => vec![Symbol {
                function: name.to_string(),
                file: None,
                line: None,
                inlined: false,
            }],
            None => Vec::new(),
        }
    }
}

impl Symbolize for ElfSymbols {
    fn symbolize(&self, offset: u32) -> Vec<Symbol> {
        if offset == 0 || offset > self.code_size {
            return Vec::new();
        }
        self.lookup(u64::from(offset - 1))
    }

    fn symbolize_segment(&self, resource: u16, offset: u32) -> Vec<Symbol> {
        match self.segments.get(&resource) {
            Some(code) if offset != 0 && offset as usize <= code.len() => {
                self.lookup(u64::from(resource) * u64::from(SEGMENT_STRIDE) + u64::from(offset - 1))
            }
            _ => Vec::new(),
        }
    }

    fn segment(&self, resource: u16) -> Option<(u32, u32)> {
        self.segments
            .get(&resource)
            .map(|code| (code.len() as u32, record::crc32(code)))
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn is_return_address(&self, offset: u32) -> Option<bool> {
        Some(follows_call(&self.code, offset))
    }

    fn entry_function(&self) -> Option<&str> {
        self.function_at(0)
    }

    fn missing(&self) -> Option<String> {
        if self.line_tables {
            return None;
        }
        let what = if self.dwarf.is_none() {
            "no DWARF (no .debug_info: stripped, or built without debug info)"
        } else {
            "no DWARF line tables that give a file and line (.debug_line missing or empty)"
        };
        Some(format!(
            "{} has {what}: call stacks show function names without file:line; build the app \
             with debug = 2 in [profile.palm] (as palm-build new sets it) and give the \
             unstripped ELF palm-build writes beside the PRC",
            self.name
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::{Symbol, agrees_with_symbol_table, follows_call, out_dir};

    fn frame(function: &str, inlined: bool) -> Symbol {
        Symbol {
            function: function.into(),
            file: Some("src/lib.rs".into()),
            line: Some(7),
            inlined,
        }
    }

    #[test]
    fn dwarf_frames_of_a_removed_function_are_not_trusted() {
        let frames = [frame("app::inner", true), frame("app::outer", false)];
        assert!(agrees_with_symbol_table(&frames, Some("app::outer")));
        assert!(agrees_with_symbol_table(&frames, None));
        // The outermost frame names a function the linker removed.
        assert!(!agrees_with_symbol_table(&frames, Some("__palm_entry")));
    }

    #[test]
    fn build_script_outputs_lose_their_target_dir() {
        assert_eq!(
            out_dir(
                "target/m68k-unknown-none-elf/palm/build/m68k-palmos-sys/4236dd05b7140847/out/glue.rs"
            ),
            Some(("m68k-palmos-sys", "glue.rs"))
        );
        assert_eq!(
            out_dir("/x/target/debug/build/foo-bar-0123abcd/out/gen/a.rs"),
            Some(("foo-bar", "gen/a.rs"))
        );
        assert_eq!(out_dir("build/k/ff/out/f.rs"), Some(("k", "f.rs")));
        assert_eq!(out_dir("src/build/mod.rs"), None);
        assert_eq!(out_dir("x/build/notahash-zz/out/f.rs"), None);
        assert_eq!(out_dir("x/build/k/zz/out/f.rs"), None);
    }

    #[test]
    fn calls_are_recognised() {
        // Each call form, then the instruction the return address points at (rts).
        let cases: &[&[u8]] = &[
            &[0x4E, 0x90],                         // jsr (a0)
            &[0x61, 0x10],                         // bsr.b
            &[0x4E, 0xA8, 0x00, 0x10],             // jsr 16(a0)
            &[0x4E, 0xB0, 0x08, 0x00],             // jsr 0(a0,d0.l)
            &[0x4E, 0xB8, 0x12, 0x34],             // jsr $1234.w
            &[0x4E, 0xBA, 0xFF, 0xF0],             // jsr -16(pc)
            &[0x4E, 0xBB, 0x08, 0x00],             // jsr 0(pc,d0.l)
            &[0x61, 0x00, 0x01, 0x00],             // bsr.w
            &[0x4E, 0x4F, 0xA0, 0x35],             // trap #15; MemChunkFree
            &[0x4E, 0xB9, 0x00, 0x01, 0x00, 0x00], // jsr $10000.l
        ];
        for code in cases {
            let mut c = code.to_vec();
            c.extend_from_slice(&[0x4E, 0x75]);
            assert!(follows_call(&c, code.len() as u32), "{code:02X?}");
        }
        // Not calls: rts, unlk, move; bsr.b with 0/FF (word/long forms); out of range.
        for (code, at) in [
            (&[0x4E, 0x75, 0x4E, 0x56][..], 2),
            (&[0x4E, 0x5E, 0x4E, 0x75][..], 2),
            (&[0x20, 0x01, 0x4E, 0x75][..], 2),
            (&[0x61, 0x00][..], 2),
            (&[0x61, 0xFF][..], 2),
            (&[0x4E, 0x90][..], 0),
            (&[0x4E, 0x90][..], 9),
        ] {
            assert!(!follows_call(code, at), "{code:02X?} at {at}");
        }
    }
}
