//! Reading a coff-m68k object (ours or prc-tools' `as`'s) into an [`Object`].
//!
//! The reader never panics: any field that points outside the file, a
//! relocation that names an aux entry or a missing symbol, an unknown
//! relocation type, a name that is not UTF-8, is a [`ReadError`] with the
//! file offset of the field.

use crate::{
    ACCEPTED_MAGICS, FILHSZ, NAME_LEN, Object, RELSZ, RelocKind, Relocation, SCNHSZ, STYP_BSS,
    SYMESZ, Section, Symbol,
};

/// A malformed object: the file offset of the offending field and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("offset 0x{offset:x}: {what}")]
pub struct ReadError {
    /// File offset of the field.
    pub offset: usize,
    /// What is wrong with it.
    pub what: String,
}

fn err(offset: usize, what: impl Into<String>) -> ReadError {
    ReadError {
        offset,
        what: what.into(),
    }
}

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn slice(&self, at: usize, len: usize, what: &str) -> Result<&[u8], ReadError> {
        at.checked_add(len)
            .and_then(|end| self.0.get(at..end))
            .ok_or_else(|| {
                err(
                    at,
                    format!(
                        "{what} ({len} bytes) runs past the end of the {}-byte file",
                        self.0.len()
                    ),
                )
            })
    }
    fn u16(&self, at: usize, what: &str) -> Result<u16, ReadError> {
        let b = self.slice(at, 2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&self, at: usize, what: &str) -> Result<u32, ReadError> {
        let b = self.slice(at, 4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

fn text(bytes: &[u8], at: usize, what: &str) -> Result<String, ReadError> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8(bytes[..end].to_vec()).map_err(|_| err(at, format!("{what} is not UTF-8")))
}

impl Object {
    /// Reads an object file.
    ///
    /// # Errors
    /// A [`ReadError`] for a bad magic, an optional header or table that runs
    /// past the end, a section whose contents or relocations lie outside the
    /// file, a relocation with an unknown type or naming an aux entry or a
    /// symbol past the table, a symbol name outside the string table.
    pub fn parse(data: &[u8]) -> Result<Object, ReadError> {
        let b = Bytes(data);
        let magic = b.u16(0, "the file header")?;
        if !ACCEPTED_MAGICS.contains(&magic) {
            return Err(err(
                0,
                format!("magic 0{magic:o} is not an m68k COFF one (expected 0520)"),
            ));
        }
        b.slice(0, FILHSZ, "the file header")?;
        let nscns = usize::from(b.u16(2, "f_nscns")?);
        let timestamp = b.u32(4, "f_timdat")?;
        let symptr = b.u32(8, "f_symptr")? as usize;
        let nsyms = b.u32(12, "f_nsyms")? as usize;
        let opthdr = usize::from(b.u16(16, "f_opthdr")?);
        let flags = b.u16(18, "f_flags")?;
        let headers = FILHSZ + opthdr;
        b.slice(FILHSZ, opthdr, "the optional header")?;

        // Symbols first: relocations refer to them by raw index.
        let table_len = nsyms
            .checked_mul(SYMESZ)
            .ok_or_else(|| err(12, "f_nsyms overflows"))?;
        let table = b.slice(symptr, table_len, "the symbol table")?;
        let strings_at = symptr + table_len;
        let strings: &[u8] = if nsyms == 0 || data.len() < strings_at + 4 {
            &[]
        } else {
            let size = b.u32(strings_at, "the string table size")? as usize;
            if size < 4 {
                &[]
            } else {
                b.slice(strings_at, size, "the string table")?
            }
        };
        let mut symbols = Vec::new();
        let mut by_raw = vec![None; nsyms];
        let mut raw = 0;
        while raw < nsyms {
            let at = symptr + raw * SYMESZ;
            let e = &table[raw * SYMESZ..(raw + 1) * SYMESZ];
            let name = if e[0..4] == [0, 0, 0, 0] {
                let off = u32::from_be_bytes([e[4], e[5], e[6], e[7]]) as usize;
                let s = strings.get(off..).filter(|_| off >= 4).ok_or_else(|| {
                    err(
                        at + 4,
                        format!("name offset {off} is outside the string table"),
                    )
                })?;
                if !s.contains(&0) {
                    return Err(err(
                        at + 4,
                        "name in the string table has no terminating NUL",
                    ));
                }
                text(s, at + 4, "symbol name")?
            } else {
                text(&e[..NAME_LEN], at, "symbol name")?
            };
            let numaux = usize::from(e[17]);
            if raw + 1 + numaux > nsyms {
                return Err(err(
                    at + 17,
                    format!("{numaux} aux entries run past the symbol table"),
                ));
            }
            let aux = (0..numaux)
                .map(|k| {
                    let mut a = [0u8; SYMESZ];
                    a.copy_from_slice(&table[(raw + 1 + k) * SYMESZ..(raw + 2 + k) * SYMESZ]);
                    a
                })
                .collect();
            by_raw[raw] = Some(symbols.len());
            symbols.push(Symbol {
                name,
                value: u32::from_be_bytes([e[8], e[9], e[10], e[11]]),
                section: i16::from_be_bytes([e[12], e[13]]),
                typ: u16::from_be_bytes([e[14], e[15]]),
                class: e[16],
                aux,
            });
            raw += 1 + numaux;
        }

        let mut sections = Vec::with_capacity(nscns);
        for i in 0..nscns {
            let at = headers + i * SCNHSZ;
            let h = b.slice(at, SCNHSZ, "a section header")?;
            let name = text(&h[..NAME_LEN], at, "section name")?;
            let field = |k: usize| u32::from_be_bytes([h[k], h[k + 1], h[k + 2], h[k + 3]]);
            let (vaddr, size, scnptr, relptr) = (field(12), field(16), field(20), field(24));
            let nreloc = usize::from(u16::from_be_bytes([h[32], h[33]]));
            let sflags = field(36);
            let contents = if sflags & STYP_BSS != 0 || size == 0 {
                Vec::new()
            } else if scnptr == 0 {
                return Err(err(
                    at + 20,
                    format!("{name} has {size} bytes but no contents (s_scnptr 0)"),
                ));
            } else {
                b.slice(
                    scnptr as usize,
                    size as usize,
                    &format!("the contents of {name}"),
                )?
                .to_vec()
            };
            let mut relocations = Vec::with_capacity(nreloc);
            for k in 0..nreloc {
                let r_at = relptr as usize + k * RELSZ;
                let r = b.slice(r_at, RELSZ, &format!("a relocation of {name}"))?;
                let symndx = u32::from_be_bytes([r[4], r[5], r[6], r[7]]) as usize;
                let r_type = u16::from_be_bytes([r[8], r[9]]);
                let kind = RelocKind::from_number(r_type).ok_or_else(|| {
                    err(
                        r_at + 8,
                        format!("relocation type {r_type} is not a coff-m68k one"),
                    )
                })?;
                let symbol = by_raw.get(symndx).copied().flatten().ok_or_else(|| {
                    err(
                        r_at + 4,
                        format!("relocation names symbol #{symndx}, which is not a symbol entry"),
                    )
                })?;
                relocations.push(Relocation {
                    vaddr: u32::from_be_bytes([r[0], r[1], r[2], r[3]]),
                    symbol,
                    kind,
                });
            }
            sections.push(Section {
                name,
                vaddr,
                size,
                flags: sflags,
                data: contents,
                relocations,
            });
        }
        Ok(Object {
            timestamp,
            flags,
            sections,
            symbols,
        })
    }
}
