//! coff-m68k relocatable objects and static archives, written and read as
//! prc-tools' linker reads them.
//!
//! prc-tools (the GNU toolchain Palm OS C developers build with; the maintained
//! copy is prc-tools-remix) configures its binutils 2.14 for `m68k-palmos` with
//! exactly two BFD targets, `m68kcoff_vec` ("coff-m68k") and `prc_m68k_vec`
//! (`binutils-2.14/bfd/config.bfd`, case `m68*-*-palmos*`), and its linker
//! emulation writes coff-m68k (`ld/emulparams/m68kpalmos.sh`). Its `ld`
//! therefore rejects ELF objects and skips ELF archive members. This crate
//! writes what that BFD reads; every layout fact below names its file in
//! prc-tools-remix (`jichu4n/prc-tools-remix`, under `binutils-2.14/`).
//!
//! # The object file (all numbers big-endian)
//! - File header, 20 bytes (`include/coff/external.h`, `FILHSZ`): magic
//!   [`MC68MAGIC`] (octal 0520, `include/coff/m68k.h`), number of sections,
//!   time stamp, file offset of the symbol table, number of symbol-table
//!   entries (aux entries included), optional-header size (0 in an object),
//!   flags ([`F_LNNO`] | [`F_AR32W`], as prc-tools' `as` writes them).
//! - Section headers, 40 bytes each (`SCNHSZ`): name (8 bytes, NUL-padded;
//!   COFF keeps no longer section names, which prc-tools' manual also warns
//!   about), physical and virtual address, size, file offsets of the contents,
//!   relocations and line numbers, their counts (16 bits), flags
//!   ([`STYP_TEXT`], [`STYP_DATA`], [`STYP_BSS`], `include/coff/internal.h`).
//! - Relocations, 10 bytes each (`RELSZ` without `M68K_COFF_OFFSET`,
//!   `include/coff/m68k.h`): virtual address of the field, symbol-table index
//!   (aux entries counted), type ([`RelocKind`]).
//! - Symbol table, 18 bytes an entry (`SYMESZ`): name (8 bytes inline, or 4
//!   zero bytes and a string-table offset), value, section number (1-based;
//!   [`N_UNDEF`] 0, [`N_ABS`] −1), type, storage class ([`C_EXT`], [`C_STAT`],
//!   …), number of aux entries that follow (18 bytes each, `AUXESZ`).
//! - String table: a 4-byte size that counts itself, then NUL-terminated
//!   names; offsets count from the size field.
//!
//! # Relocations as prc-tools' ld applies them
//! The howto table of `bfd/coff-m68k.c` makes every type partial-in-place (the
//! addend is the field's contents). `_bfd_coff_generic_relocate_section`
//! (`bfd/cofflink.c`) starts the addend at −(symbol value) for a symbol
//! defined in the object and at 0 for an undefined one, and
//! `m68kcoff_rtype_to_howto` adds the input section's vma for a PC-relative
//! type; `_bfd_final_link_relocate` then subtracts the output address of the
//! input section (no `pcrel_offset`). Worked through, a PC-relative field ends
//! up holding `S + A − P` (S the symbol's final address, P the field's) when
//! the object stores
//!
//! `field = A + (symbol value if defined in this object, else 0) − r_vaddr`
//!
//! which is what prc-tools' `as` writes: a `bsr.w` to an undefined function
//! at vaddr 0x26 holds 0xFFDA (−0x26). [`pc_relative_field`] computes it.
//!
//! # Archives
//! [`write_archive`] writes the System V/GNU `ar` format with the `/` symbol
//! index that BFD's `do_slurp_coff_armap` reads (`bfd/archive.c`: a member
//! named `/`, a big-endian 32-bit count, that many big-endian member-header
//! offsets, then the NUL-terminated names; "all numeric information in a coff
//! archive is always in big endian format"). Without an index `ld` does not
//! search an archive. [`read_archive`] reads one back (members and index) with
//! the `ar` crate.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod archive;
mod read;
mod write;

pub use archive::{ArchiveMember, read_archive, write_archive};
pub use read::ReadError;
pub use write::WriteError;

/// File magic of an m68k COFF object (octal 0520, `MC68MAGIC`,
/// `include/coff/m68k.h`), the one prc-tools' `as` and `ld` write.
pub const MC68MAGIC: u16 = 0o520;
/// The magics BFD's coff-m68k accepts (`M68KBADMAG`, `include/coff/m68k.h`).
pub const ACCEPTED_MAGICS: [u16; 6] = [0o520, 0o521, 0o522, 0o210, 0o211, 0o415];
/// Bytes of the file header (`FILHSZ`, `include/coff/external.h`).
pub const FILHSZ: usize = 20;
/// Bytes of a section header (`SCNHSZ`).
pub const SCNHSZ: usize = 40;
/// Bytes of a relocation entry (`RELSZ`, `include/coff/m68k.h`).
pub const RELSZ: usize = 10;
/// Bytes of a symbol-table entry, and of an aux entry (`SYMESZ`, `AUXESZ`).
pub const SYMESZ: usize = 18;
/// Longest name stored inside a section header or symbol entry (`E_SYMNMLEN`).
pub const NAME_LEN: usize = 8;

/// File-header flag: line numbers stripped (`F_LNNO`, `include/coff/internal.h`).
pub const F_LNNO: u16 = 0x0004;
/// File-header flag: 32-bit big-endian words (`F_AR32W`).
pub const F_AR32W: u16 = 0x0200;

/// Section flag: code (`STYP_TEXT`, `include/coff/internal.h`).
pub const STYP_TEXT: u32 = 0x0020;
/// Section flag: initialised data (`STYP_DATA`).
pub const STYP_DATA: u32 = 0x0040;
/// Section flag: uninitialised data, no contents in the file (`STYP_BSS`).
pub const STYP_BSS: u32 = 0x0080;

/// Section number of an undefined symbol (`N_UNDEF`).
pub const N_UNDEF: i16 = 0;
/// Section number of an absolute symbol (`N_ABS`).
pub const N_ABS: i16 = -1;
/// Storage class: external (global) symbol (`C_EXT`).
pub const C_EXT: u8 = 2;
/// Storage class: static (file-local) symbol, also a section's own symbol (`C_STAT`).
pub const C_STAT: u8 = 3;
/// Symbol type of a function: `DT_FCN` (2) shifted by `N_BTSHFT` (4).
pub const T_FUNCTION: u16 = 0x20;

/// A relocation type of coff-m68k (`include/coff/internal.h`; the howto table
/// of `bfd/coff-m68k.c` gives each one's width and signedness).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelocKind {
    /// `R_RELBYTE` (15): 8-bit absolute.
    Byte,
    /// `R_RELWORD` (16): 16-bit absolute.
    Word,
    /// `R_RELLONG` (17): 32-bit absolute.
    Long,
    /// `R_PCRBYTE` (18), objdump's `DISP8`: 8-bit PC-relative, signed.
    PcByte,
    /// `R_PCRWORD` (19), objdump's `DISP16`: 16-bit PC-relative, signed.
    PcWord,
    /// `R_PCRLONG` (20), objdump's `DISP32`: 32-bit PC-relative.
    PcLong,
    /// `R_RELENDWORD` (21), objdump's `END16`: 16-bit, relative to `edata`.
    EndWord,
    /// `R_RELLONG_NEG` (0x45): 32-bit, subtracted.
    NegLong,
}

impl RelocKind {
    /// The type number stored in `r_type`.
    pub fn number(self) -> u16 {
        match self {
            RelocKind::Byte => 15,
            RelocKind::Word => 16,
            RelocKind::Long => 17,
            RelocKind::PcByte => 18,
            RelocKind::PcWord => 19,
            RelocKind::PcLong => 20,
            RelocKind::EndWord => 21,
            RelocKind::NegLong => 0x45,
        }
    }

    /// Every type coff-m68k knows, in type-number order.
    pub const ALL: [RelocKind; 8] = [
        RelocKind::Byte,
        RelocKind::Word,
        RelocKind::Long,
        RelocKind::PcByte,
        RelocKind::PcWord,
        RelocKind::PcLong,
        RelocKind::EndWord,
        RelocKind::NegLong,
    ];

    /// The type for an `r_type` number, if coff-m68k knows it.
    pub fn from_number(n: u16) -> Option<RelocKind> {
        RelocKind::ALL.into_iter().find(|k| k.number() == n)
    }

    /// Width of the relocated field in bytes.
    pub fn size(self) -> u32 {
        match self {
            RelocKind::Byte | RelocKind::PcByte => 1,
            RelocKind::Word | RelocKind::PcWord | RelocKind::EndWord => 2,
            RelocKind::Long | RelocKind::PcLong | RelocKind::NegLong => 4,
        }
    }

    /// True for the three PC-relative types, the only ones code that runs in
    /// place at an unknown address may carry.
    pub fn is_pc_relative(self) -> bool {
        matches!(
            self,
            RelocKind::PcByte | RelocKind::PcWord | RelocKind::PcLong
        )
    }

    /// The name objdump prints for the type (`bfd/coff-m68k.c` howto names).
    pub fn name(self) -> &'static str {
        match self {
            RelocKind::Byte => "8",
            RelocKind::Word => "16",
            RelocKind::Long => "32",
            RelocKind::PcByte => "DISP8",
            RelocKind::PcWord => "DISP16",
            RelocKind::PcLong => "DISP32",
            RelocKind::EndWord => "END16",
            RelocKind::NegLong => "-32",
        }
    }
}

/// One relocation of a section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relocation {
    /// Virtual address of the field (section vaddr + offset in the section).
    pub vaddr: u32,
    /// The symbol: an index into [`Object::symbols`] (not the file's raw
    /// index, which also counts aux entries).
    pub symbol: usize,
    /// The relocation type.
    pub kind: RelocKind,
}

/// A section: its header, contents and relocations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Name, at most [`NAME_LEN`] bytes of ASCII.
    pub name: String,
    /// Virtual (= physical) address in the object; sections follow one
    /// another from 0, as prc-tools' `as` lays them out.
    pub vaddr: u32,
    /// Size in bytes.
    pub size: u32,
    /// `STYP_*` flags.
    pub flags: u32,
    /// Contents: `size` bytes, or empty for a [`STYP_BSS`] section.
    pub data: Vec<u8>,
    /// Relocations, in the order they are stored.
    pub relocations: Vec<Relocation>,
}

/// A symbol-table entry and its aux entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Name (any length; longer than [`NAME_LEN`] goes to the string table).
    pub name: String,
    /// Value: for a defined symbol its virtual address in the object.
    pub value: u32,
    /// Section number: 1-based index into [`Object::sections`], [`N_UNDEF`]
    /// or [`N_ABS`] (or −2 for debugging symbols).
    pub section: i16,
    /// `n_type` ([`T_FUNCTION`] for functions, else 0).
    pub typ: u16,
    /// Storage class ([`C_EXT`], [`C_STAT`], …).
    pub class: u8,
    /// Aux entries, raw ([`SYMESZ`] bytes each).
    pub aux: Vec<[u8; SYMESZ]>,
}

impl Symbol {
    /// The aux entry of a section's own symbol (`.text`, `.data`, `.bss`):
    /// `x_scnlen` (size in bytes), `x_nreloc`, `x_nlinno` (0), as
    /// `include/coff/external.h` lays out a section aux entry.
    pub fn section_aux(size: u32, relocations: u16) -> [u8; SYMESZ] {
        let mut aux = [0; SYMESZ];
        aux[0..4].copy_from_slice(&size.to_be_bytes());
        aux[4..6].copy_from_slice(&relocations.to_be_bytes());
        aux
    }

    /// True for a symbol defined in a section (not undefined, absolute or debug).
    pub fn is_defined(&self) -> bool {
        self.section > 0
    }
}

/// A relocatable coff-m68k object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Object {
    /// Time stamp in the file header (seconds since 1970; 0 for reproducible output).
    pub timestamp: u32,
    /// File-header flags ([`F_LNNO`] | [`F_AR32W`] as prc-tools' `as` writes them).
    pub flags: u16,
    /// Sections, in file order (section number = index + 1).
    pub sections: Vec<Section>,
    /// Symbols, in file order (aux entries kept with their symbol).
    pub symbols: Vec<Symbol>,
}

impl Object {
    /// The global symbols this object defines, which an archive's index lists
    /// (class [`C_EXT`] and a section number > 0), in symbol-table order.
    pub fn defined_globals(&self) -> Vec<&str> {
        self.symbols
            .iter()
            .filter(|s| s.class == C_EXT && s.is_defined())
            .map(|s| s.name.as_str())
            .collect()
    }

    /// The section whose contents hold `vaddr` (a field `size` bytes long), as
    /// (index into [`Object::sections`], offset in it).
    pub fn section_at(&self, vaddr: u32, size: u32) -> Option<(usize, u32)> {
        self.sections.iter().enumerate().find_map(|(i, s)| {
            let off = vaddr.checked_sub(s.vaddr)?;
            (u64::from(off) + u64::from(size) <= u64::from(s.size)).then_some((i, off))
        })
    }
}

/// What a PC-relative field of the object holds so that prc-tools' ld makes it
/// `S + addend − P` (see the crate documentation): `addend + defined_value −
/// vaddr`, where `defined_value` is the target symbol's value when the object
/// defines it and 0 when it is undefined, and `vaddr` the field's virtual
/// address. Wrapping arithmetic: the field is then truncated to its width.
pub fn pc_relative_field(addend: i64, defined_value: u32, vaddr: u32) -> i64 {
    addend + i64::from(defined_value) - i64::from(vaddr)
}
