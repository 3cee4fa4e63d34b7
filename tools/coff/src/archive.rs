//! Static archives (`ar`) with the System V `/` symbol index that BFD's
//! coff-m68k reads (`binutils-2.14/bfd/archive.c`, `do_slurp_coff_armap`).
//!
//! Layout: `!<arch>\n`; the index member (name `/`, contents: a big-endian
//! u32 count, that many big-endian u32 offsets of the defining member's
//! header from the start of the archive, the NUL-terminated names in the same
//! order); then each member as a 60-byte header (name `NAME/`, date, uid,
//! gid, mode, decimal size, "`\n") and its bytes, padded with `\n` to an even
//! offset. Dates, uids and gids are 0, so the output is reproducible.

use crate::{ReadError, WriteError};

/// The archive's magic string.
const MAGIC: &[u8; 8] = b"!<arch>\n";
/// Bytes of a member header.
const HEADER_LEN: usize = 60;
/// Longest member name written (the 16-byte name field holds `NAME/`; a
/// longer one would need the `//` long-name table, which we do not write).
pub const MAX_MEMBER_NAME: usize = 15;

/// One member of an archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveMember {
    /// The member's file name (1–15 characters, no `/` or space).
    pub name: String,
    /// Its bytes (a coff-m68k object).
    pub data: Vec<u8>,
    /// The global symbols it defines, which go into the index pointing at it.
    pub symbols: Vec<String>,
}

fn header(name: &str, size: usize, mode: &str) -> Vec<u8> {
    let h = format!("{name:<16}{:<12}{:<6}{:<6}{mode:<8}{size:<10}`\n", 0, 0, 0);
    debug_assert_eq!(h.len(), HEADER_LEN);
    h.into_bytes()
}

fn pad(out: &mut Vec<u8>) {
    if out.len() % 2 == 1 {
        out.push(b'\n');
    }
}

/// Writes an archive of `members` with a symbol index listing each member's
/// [`ArchiveMember::symbols`].
///
/// # Errors
/// [`WriteError::MemberName`] for a name that is empty, longer than
/// [`MAX_MEMBER_NAME`] or holds `/` or a space; [`WriteError::SymbolName`]
/// for a symbol name with a NUL; [`WriteError::TooMany`] past 4 GiB.
pub fn write_archive(members: &[ArchiveMember]) -> Result<Vec<u8>, WriteError> {
    for m in members {
        let bad = m.name.is_empty()
            || m.name.len() > MAX_MEMBER_NAME
            || !m.name.is_ascii()
            || m.name.contains(['/', ' ', '\0']);
        if bad {
            return Err(WriteError::MemberName(m.name.clone()));
        }
        if let Some(s) = m.symbols.iter().find(|s| s.is_empty() || s.contains('\0')) {
            return Err(WriteError::SymbolName(s.clone()));
        }
    }
    let count: usize = members.iter().map(|m| m.symbols.len()).sum();
    let names: usize = members
        .iter()
        .flat_map(|m| &m.symbols)
        .map(|s| s.len() + 1)
        .sum();
    let index_len = 4 + 4 * count + names;
    // Members start after the magic and the (padded) index member.
    let mut at = MAGIC.len() + HEADER_LEN + index_len + index_len % 2;
    let mut offsets = Vec::with_capacity(members.len());
    for m in members {
        offsets.push(at);
        at += HEADER_LEN + m.data.len() + m.data.len() % 2;
    }
    let be32 = |n: usize| {
        u32::try_from(n)
            .map(u32::to_be_bytes)
            .map_err(|_| WriteError::TooMany("the archive size".into()))
    };
    let mut out = Vec::with_capacity(at);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&header("/", index_len, "0"));
    out.extend_from_slice(&be32(count)?);
    for (m, &offset) in members.iter().zip(&offsets) {
        for _ in &m.symbols {
            out.extend_from_slice(&be32(offset)?);
        }
    }
    for s in members.iter().flat_map(|m| &m.symbols) {
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }
    pad(&mut out);
    for m in members {
        out.extend_from_slice(&header(&format!("{}/", m.name), m.data.len(), "644"));
        out.extend_from_slice(&m.data);
        pad(&mut out);
    }
    Ok(out)
}

/// Reads an archive back with the `object` crate's `ar` reader: its members
/// in order, each with the names the symbol index points at it.
///
/// # Errors
/// A [`ReadError`] when the bytes are not an archive, a member or the index
/// is malformed, or an index entry points at no member (offset 0 means the
/// whole archive; the index offset is named where known).
pub fn read_archive(data: &[u8]) -> Result<Vec<ArchiveMember>, ReadError> {
    use object::read::archive::ArchiveFile;
    let bad = |offset: usize, e: object::read::Error| ReadError {
        offset,
        what: e.to_string(),
    };
    let archive = ArchiveFile::parse(data).map_err(|e| bad(0, e))?;
    let mut members = Vec::new();
    let mut starts = Vec::new();
    for m in archive.members() {
        let m = m.map_err(|e| bad(0, e))?;
        let (offset, _) = m.file_range();
        starts.push((offset as usize).saturating_sub(HEADER_LEN));
        members.push(ArchiveMember {
            name: String::from_utf8_lossy(m.name()).into_owned(),
            data: m.data(data).map_err(|e| bad(offset as usize, e))?.to_vec(),
            symbols: Vec::new(),
        });
    }
    if let Some(symbols) = archive.symbols().map_err(|e| bad(MAGIC.len(), e))? {
        for s in symbols {
            let s = s.map_err(|e| bad(MAGIC.len(), e))?;
            let at = s.offset().0 as usize;
            let i = starts
                .iter()
                .position(|&o| o == at)
                .ok_or_else(|| ReadError {
                    offset: MAGIC.len() + HEADER_LEN,
                    what: format!(
                        "the index points `{}` at offset 0x{at:x}, where no member starts",
                        String::from_utf8_lossy(s.name())
                    ),
                })?;
            members[i]
                .symbols
                .push(String::from_utf8_lossy(s.name()).into_owned());
        }
    }
    Ok(members)
}
