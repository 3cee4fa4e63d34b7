//! Writing a coff-m68k object: header, section headers, contents,
//! relocations, symbol table, string table, in that order (the order
//! prc-tools' `as` uses).

use crate::{
    FILHSZ, MC68MAGIC, NAME_LEN, Object, RELSZ, SCNHSZ, STYP_BSS, SYMESZ, Section, Symbol,
};

/// Why an [`Object`] cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// A section name longer than COFF's 8 bytes, or not ASCII.
    #[error("section name `{0}` is not 1–8 ASCII characters (COFF keeps only 8)")]
    SectionName(String),
    /// A symbol name with a NUL byte, or empty.
    #[error("symbol name {0:?} is empty or contains a NUL byte")]
    SymbolName(String),
    /// A section's contents do not match its size.
    #[error("section {name}: {len} bytes of contents for a size of {size}")]
    SectionSize {
        /// The section.
        name: String,
        /// Bytes of contents given.
        len: usize,
        /// Its size field.
        size: u32,
    },
    /// A count that a 16-bit field cannot hold, or a file over 4 GiB.
    #[error("{0} does not fit its COFF field")]
    TooMany(String),
    /// A relocation names a symbol index past the table.
    #[error(
        "section {section}: relocation at 0x{vaddr:x} names symbol #{symbol}, past the {count} symbols"
    )]
    RelocSymbol {
        /// The section.
        section: String,
        /// The field's virtual address.
        vaddr: u32,
        /// The index given.
        symbol: usize,
        /// Symbols in the object.
        count: usize,
    },
    /// A relocation's field lies outside its section.
    #[error(
        "section {section}: relocation field at 0x{vaddr:x} ({size} bytes) is outside the section"
    )]
    RelocOutside {
        /// The section.
        section: String,
        /// The field's virtual address.
        vaddr: u32,
        /// The field's width.
        size: u32,
    },
    /// An archive member name the `ar` format cannot hold as written here.
    #[error("archive member name `{0}` is not 1–15 characters without `/` or spaces")]
    MemberName(String),
}

fn fits<T: TryFrom<usize>>(n: usize, what: impl FnOnce() -> String) -> Result<T, WriteError> {
    T::try_from(n).map_err(|_| WriteError::TooMany(what()))
}

fn check_section(s: &Section, symbols: usize) -> Result<(), WriteError> {
    if s.name.is_empty() || s.name.len() > NAME_LEN || !s.name.is_ascii() || s.name.contains('\0') {
        return Err(WriteError::SectionName(s.name.clone()));
    }
    let expected = if s.flags & STYP_BSS != 0 {
        0
    } else {
        s.size as usize
    };
    if s.data.len() != expected {
        return Err(WriteError::SectionSize {
            name: s.name.clone(),
            len: s.data.len(),
            size: s.size,
        });
    }
    for r in &s.relocations {
        if r.symbol >= symbols {
            return Err(WriteError::RelocSymbol {
                section: s.name.clone(),
                vaddr: r.vaddr,
                symbol: r.symbol,
                count: symbols,
            });
        }
        let inside = r
            .vaddr
            .checked_sub(s.vaddr)
            .is_some_and(|off| u64::from(off) + u64::from(r.kind.size()) <= u64::from(s.size));
        if !inside {
            return Err(WriteError::RelocOutside {
                section: s.name.clone(),
                vaddr: r.vaddr,
                size: r.kind.size(),
            });
        }
    }
    Ok(())
}

/// Appends `name` as an 8-byte COFF name field: inline when it fits, else
/// zeroes and its offset in `strings` (which starts after the 4-byte size).
fn put_name(out: &mut Vec<u8>, strings: &mut Vec<u8>, name: &str) -> Result<(), WriteError> {
    if name.is_empty() || name.contains('\0') {
        return Err(WriteError::SymbolName(name.into()));
    }
    if name.len() <= NAME_LEN {
        let mut field = [0u8; NAME_LEN];
        field[..name.len()].copy_from_slice(name.as_bytes());
        out.extend_from_slice(&field);
    } else {
        let offset: u32 = fits(4 + strings.len(), || "the string table".into())?;
        out.extend_from_slice(&0u32.to_be_bytes());
        out.extend_from_slice(&offset.to_be_bytes());
        strings.extend_from_slice(name.as_bytes());
        strings.push(0);
    }
    Ok(())
}

fn put_symbol(out: &mut Vec<u8>, strings: &mut Vec<u8>, s: &Symbol) -> Result<(), WriteError> {
    put_name(out, strings, &s.name)?;
    out.extend_from_slice(&s.value.to_be_bytes());
    out.extend_from_slice(&s.section.to_be_bytes());
    out.extend_from_slice(&s.typ.to_be_bytes());
    out.push(s.class);
    out.push(fits(s.aux.len(), || {
        format!("the aux entries of `{}`", s.name)
    })?);
    for a in &s.aux {
        out.extend_from_slice(a);
    }
    Ok(())
}

impl Object {
    /// The index of each symbol in the file's table (which counts aux
    /// entries), by index into [`Object::symbols`].
    pub fn raw_symbol_indices(&self) -> Vec<usize> {
        let mut raw = 0;
        self.symbols
            .iter()
            .map(|s| {
                let at = raw;
                raw += 1 + s.aux.len();
                at
            })
            .collect()
    }

    /// The object file's bytes.
    ///
    /// # Errors
    /// A [`WriteError`] naming the section, symbol or field that COFF cannot
    /// hold (a section name over 8 bytes, contents that do not match a size,
    /// a relocation outside its section or naming a missing symbol, a count
    /// over 65 535 where the field is 16 bits).
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        for s in &self.sections {
            check_section(s, self.symbols.len())?;
        }
        let raw = self.raw_symbol_indices();
        let nsyms: u32 = fits(self.symbols.iter().map(|s| 1 + s.aux.len()).sum(), || {
            "the symbol count".into()
        })?;
        let nscns: u16 = fits(self.sections.len(), || "the section count".into())?;
        // Offsets: headers, then each section's contents, then each section's
        // relocations, then the symbol table.
        let mut at = FILHSZ + SCNHSZ * self.sections.len();
        let mut data_at = Vec::new();
        for s in &self.sections {
            data_at.push(if s.data.is_empty() { 0 } else { at });
            at += s.data.len();
        }
        let mut reloc_at = Vec::new();
        for s in &self.sections {
            reloc_at.push(if s.relocations.is_empty() { 0 } else { at });
            at += RELSZ * s.relocations.len();
        }
        let symptr: u32 = fits(at, || "the file size".into())?;

        let mut out = Vec::with_capacity(at + SYMESZ * nsyms as usize);
        out.extend_from_slice(&MC68MAGIC.to_be_bytes());
        out.extend_from_slice(&nscns.to_be_bytes());
        out.extend_from_slice(&self.timestamp.to_be_bytes());
        out.extend_from_slice(&(if nsyms == 0 { 0 } else { symptr }).to_be_bytes());
        out.extend_from_slice(&nsyms.to_be_bytes());
        out.extend_from_slice(&0u16.to_be_bytes()); // no optional header in an object
        out.extend_from_slice(&self.flags.to_be_bytes());
        for (i, s) in self.sections.iter().enumerate() {
            let mut name = [0u8; NAME_LEN];
            name[..s.name.len()].copy_from_slice(s.name.as_bytes());
            out.extend_from_slice(&name);
            out.extend_from_slice(&s.vaddr.to_be_bytes()); // s_paddr
            out.extend_from_slice(&s.vaddr.to_be_bytes());
            out.extend_from_slice(&s.size.to_be_bytes());
            let scnptr: u32 = fits(data_at[i], || "the file size".into())?;
            let relptr: u32 = fits(reloc_at[i], || "the file size".into())?;
            out.extend_from_slice(&scnptr.to_be_bytes());
            out.extend_from_slice(&relptr.to_be_bytes());
            out.extend_from_slice(&0u32.to_be_bytes()); // no line numbers
            let nreloc: u16 = fits(s.relocations.len(), || {
                format!("the relocation count of {}", s.name)
            })?;
            out.extend_from_slice(&nreloc.to_be_bytes());
            out.extend_from_slice(&0u16.to_be_bytes());
            out.extend_from_slice(&s.flags.to_be_bytes());
        }
        for s in &self.sections {
            out.extend_from_slice(&s.data);
        }
        for s in &self.sections {
            for r in &s.relocations {
                out.extend_from_slice(&r.vaddr.to_be_bytes());
                let index: u32 = fits(raw[r.symbol], || "a symbol index".into())?;
                out.extend_from_slice(&index.to_be_bytes());
                out.extend_from_slice(&r.kind.number().to_be_bytes());
            }
        }
        let mut strings = Vec::new();
        for s in &self.symbols {
            put_symbol(&mut out, &mut strings, s)?;
        }
        let size: u32 = fits(4 + strings.len(), || "the string table".into())?;
        out.extend_from_slice(&size.to_be_bytes());
        out.extend_from_slice(&strings);
        Ok(out)
    }
}
