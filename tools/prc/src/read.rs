//! The reader: [`Database::parse`] and its error type [`ReadError`].
//!
//! # What is accepted and what is rejected
//!
//! Sizes are implied by offsets (PALM_FACTS §1.4), so the reader insists that
//! the blocks it slices are in file order and inside the file, and is lenient
//! about everything that does not affect where the bytes are:
//!
//! Accepted (and not kept, so a rewrite normalises them):
//! - any gap between the entry list and the first data block: the usual 2
//!   zero bytes, none at all, more bytes, or non-zero bytes;
//! - bytes after the name's NUL terminator (they are ignored);
//! - a non-zero `nextRecordListID` (ignored; writers put 0);
//! - with no entries and no AppInfo/SortInfo, any bytes after the entry list.
//!
//! Accepted and kept: empty names, empty blocks and entries (equal offsets),
//! duplicate resource type+ID, duplicate or zero record unique IDs, any
//! attribute bits (including [`crate::hdr_attr::OPEN`]), any dates. The
//! writer refuses two of these (empty names, duplicate resources), see
//! [`crate::WriteError`].
//!
//! Rejected, each with a [`ReadError`] naming the offset:
//! - a file of another format, by its magic at offset 0 ([`foreign_format`]:
//!   ELF, coff-m68k, `ar`), said in so many words;
//! - a file shorter than the 78-byte header;
//! - a name field without NUL in its 32 bytes;
//! - an entry list that extends past the end of the file;
//! - a block (AppInfo, SortInfo, entry data) whose offset is past the end of
//!   the file, points into the header or entry list, or is below the offset
//!   of the block before it (order: AppInfo, SortInfo, entries).
//!
//! A wrong [`crate::hdr_attr::RES_DB`] bit makes the reader use the wrong
//! entry size; this shows as one of the offset errors above (the message says
//! "resource entry" or "record entry", i.e. which reading was tried).

use core::fmt;

use crate::database::{Content, Database, Header, Record, Resource};
use crate::layout::{HEADER_SIZE, NAME_FIELD_SIZE, RECORD_ENTRY_SIZE, RESOURCE_ENTRY_SIZE};
use crate::{FourCC, hdr_attr, layout};

/// A data block of a file, as named in [`ReadError`] messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// The AppInfo block; its offset is `appInfoID` at header offset 0x34.
    AppInfo,
    /// The SortInfo block; its offset is `sortInfoID` at header offset 0x38.
    SortInfo,
    /// The data of resource entry `index` (0-based); the entry is at file
    /// offset 78 + 10 × `index`.
    Resource {
        /// Entry index, 0-based.
        index: u16,
    },
    /// The data of record entry `index` (0-based); the entry is at file
    /// offset 78 + 8 × `index`.
    Record {
        /// Entry index, 0-based.
        index: u16,
    },
}

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entry_offset = |index: u16, size: usize| HEADER_SIZE + usize::from(index) * size;
        match *self {
            Block::AppInfo => write!(
                f,
                "AppInfo block (appInfoID at offset 0x{:X})",
                layout::APP_INFO_ID_OFFSET
            ),
            Block::SortInfo => write!(
                f,
                "SortInfo block (sortInfoID at offset 0x{:X})",
                layout::SORT_INFO_ID_OFFSET
            ),
            Block::Resource { index } => write!(
                f,
                "resource entry {index} at offset 0x{:X}",
                entry_offset(index, RESOURCE_ENTRY_SIZE)
            ),
            Block::Record { index } => write!(
                f,
                "record entry {index} at offset 0x{:X}",
                entry_offset(index, RECORD_ENTRY_SIZE)
            ),
        }
    }
}

/// Why [`Database::parse`] rejected a file. Every variant names the file
/// offset involved and what was expected; offsets are in bytes from the start
/// of the file and shown in hex.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The file is another format ([`foreign_format`]: an ELF file, a
    /// coff-m68k object, an `ar` archive), whose first bytes say so.
    #[error("{0}, not a Palm database (.prc or .pdb)")]
    Foreign(&'static str),
    /// The file is shorter than the 78-byte header.
    #[error("file is {len} bytes, shorter than the 78-byte database header")]
    TruncatedHeader {
        /// File length in bytes.
        len: usize,
    },
    /// The 32-byte name field at offset 0 contains no NUL byte.
    #[error("header at offset 0x0: the 32-byte name field has no NUL terminator")]
    UnterminatedName,
    /// The entry list (starting at offset 78) does not fit in the file.
    #[error(
        "header at offset 0x4C: {count} {} entries of {} bytes end at offset 0x{end:X}, \
         past the end of the file (0x{len:X} bytes)",
        if *resources { "resource" } else { "record" },
        if *resources { RESOURCE_ENTRY_SIZE } else { RECORD_ENTRY_SIZE }
    )]
    TruncatedEntryList {
        /// True if the header marks a resource database (10-byte entries),
        /// false for a record database (8-byte entries).
        resources: bool,
        /// Entry count from the header (offset 0x4C).
        count: u16,
        /// Offset where the entry list would end.
        end: usize,
        /// File length in bytes.
        len: usize,
    },
    /// A block's offset is past the end of the file.
    #[error("{block}: data offset 0x{offset:X} is past the end of the file (0x{len:X} bytes)")]
    OffsetPastEnd {
        /// The block whose offset is wrong.
        block: Block,
        /// The offset found.
        offset: u32,
        /// File length in bytes.
        len: usize,
    },
    /// A block's offset points into the header or the entry list.
    #[error(
        "{block}: data offset 0x{offset:X} points into the header or entry list, \
         which end at offset 0x{directory_end:X}"
    )]
    OffsetInsideDirectory {
        /// The block whose offset is wrong.
        block: Block,
        /// The offset found.
        offset: u32,
        /// Offset of the first byte after the entry list (78 + count × entry size).
        directory_end: usize,
    },
    /// A block's offset is below the offset of the block before it. Sizes are
    /// implied by the next block's offset, so blocks must be in file order.
    #[error(
        "{block}: data offset 0x{offset:X} is below offset 0x{previous_offset:X} of the \
         {previous}; blocks must be in file order because each one's size is implied \
         by the next offset"
    )]
    OffsetOutOfOrder {
        /// The block whose offset is wrong.
        block: Block,
        /// The offset found.
        offset: u32,
        /// The block before it in the expected order.
        previous: Block,
        /// That block's offset.
        previous_offset: u32,
    },
}

/// A cursor over big-endian fields; `None` means the bytes ran out.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn bytes<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }

    fn u16(&mut self) -> Option<u16> {
        self.bytes().map(u16::from_be_bytes)
    }

    fn u32(&mut self) -> Option<u32> {
        self.bytes().map(u32::from_be_bytes)
    }
}

/// The fixed header, as read.
struct RawHeader {
    /// All kept fields; `name` is filled in from `name_field` afterwards.
    header: Header,
    name_field: [u8; NAME_FIELD_SIZE],
    app_info_id: u32,
    sort_info_id: u32,
    count: u16,
}

/// Reads the 78 header bytes field by field; `None` if the file is shorter.
fn read_header_fields(f: &mut Fields<'_>) -> Option<RawHeader> {
    let name_field = f.bytes()?;
    let attributes = f.u16()?;
    let version = f.u16()?;
    let creation_date = f.u32()?;
    let modification_date = f.u32()?;
    let last_backup_date = f.u32()?;
    let modification_number = f.u32()?;
    let app_info_id = f.u32()?;
    let sort_info_id = f.u32()?;
    let kind = FourCC(f.bytes()?);
    let creator = FourCC(f.bytes()?);
    let unique_id_seed = f.u32()?;
    let _next_record_list_id = f.u32()?;
    let count = f.u16()?;
    Some(RawHeader {
        header: Header {
            name: Vec::new(),
            attributes,
            version,
            creation_date,
            modification_date,
            last_backup_date,
            modification_number,
            kind,
            creator,
            unique_id_seed,
        },
        name_field,
        app_info_id,
        sort_info_id,
        count,
    })
}

/// What a file given where a Palm database is expected is, when its first
/// bytes are another format's magic: `\x7fELF` (the ELF specification's
/// `e_ident`) "an ELF file", 0o520 big-endian (`MC68MAGIC`, binutils
/// `include/coff/m68k.h`, what prc-tools' `as` and `ld` write) "a coff-m68k
/// (prc-tools) object file", `!<arch>\n` "an ar archive (a static
/// library)". None of them can start a database: its name field (offset 0)
/// holds printable text.
pub fn foreign_format(data: &[u8]) -> Option<&'static str> {
    if data.starts_with(b"\x7fELF") {
        Some("an ELF file")
    } else if data.starts_with(&0o520u16.to_be_bytes()) {
        Some("a coff-m68k (prc-tools) object file")
    } else if data.starts_with(b"!<arch>\n") {
        Some("an ar archive (a static library)")
    } else {
        None
    }
}

fn parse_header(data: &[u8]) -> Result<RawHeader, ReadError> {
    if let Some(what) = foreign_format(data) {
        return Err(ReadError::Foreign(what));
    }
    let mut raw = read_header_fields(&mut Fields(data))
        .ok_or(ReadError::TruncatedHeader { len: data.len() })?;
    let name_len = raw
        .name_field
        .iter()
        .position(|&b| b == 0)
        .ok_or(ReadError::UnterminatedName)?;
    raw.header.name = raw.name_field[..name_len].to_vec();
    Ok(raw)
}

/// Reads the entry list (already bounds-checked): the entries with empty
/// data, and each entry's data offset.
fn parse_entries(list: &[u8], resources: bool) -> (Content, Vec<u32>) {
    if resources {
        let (entries, _) = list.as_chunks::<RESOURCE_ENTRY_SIZE>();
        let (resources, offsets) = entries
            .iter()
            .map(|&[t0, t1, t2, t3, i0, i1, o0, o1, o2, o3]| {
                let resource = Resource {
                    kind: FourCC([t0, t1, t2, t3]),
                    id: u16::from_be_bytes([i0, i1]),
                    data: Vec::new(),
                };
                (resource, u32::from_be_bytes([o0, o1, o2, o3]))
            })
            .unzip();
        (Content::Resources(resources), offsets)
    } else {
        let (entries, _) = list.as_chunks::<RECORD_ENTRY_SIZE>();
        let (records, offsets) = entries
            .iter()
            .map(|&[o0, o1, o2, o3, attributes, u0, u1, u2]| {
                let record = Record {
                    attributes,
                    unique_id: u32::from_be_bytes([0, u0, u1, u2]),
                    data: Vec::new(),
                };
                (record, u32::from_be_bytes([o0, o1, o2, o3]))
            })
            .unzip();
        (Content::Records(records), offsets)
    }
}

/// Checks that every block is inside the file, after the entry list, and not
/// below the block before it.
fn check_order(blocks: &[(Block, u32)], len: usize, directory_end: usize) -> Result<(), ReadError> {
    let mut previous: Option<(Block, u32)> = None;
    for &(block, offset) in blocks {
        let at = offset as usize;
        if at > len {
            return Err(ReadError::OffsetPastEnd { block, offset, len });
        }
        if at < directory_end {
            return Err(ReadError::OffsetInsideDirectory {
                block,
                offset,
                directory_end,
            });
        }
        if let Some((previous, previous_offset)) = previous
            && offset < previous_offset
        {
            return Err(ReadError::OffsetOutOfOrder {
                block,
                offset,
                previous,
                previous_offset,
            });
        }
        previous = Some((block, offset));
    }
    Ok(())
}

impl Database {
    /// Parses a whole .prc or .pdb file from its bytes.
    ///
    /// The header bit [`hdr_attr::RES_DB`] selects resource (10-byte) or
    /// record (8-byte) entries. Each block's size is the distance to the next
    /// block's offset (AppInfo, SortInfo, then entries in order), and the
    /// last block runs to the end of the file. What is accepted and rejected
    /// is listed in the [module documentation](crate::read).
    ///
    /// # Errors
    /// A [`ReadError`] naming the offending offset. Never panics, for any
    /// input.
    pub fn parse(data: &[u8]) -> Result<Database, ReadError> {
        let raw = parse_header(data)?;
        let resources = raw.header.attributes & hdr_attr::RES_DB != 0;
        let entry_size = if resources {
            RESOURCE_ENTRY_SIZE
        } else {
            RECORD_ENTRY_SIZE
        };
        let directory_end = HEADER_SIZE + usize::from(raw.count) * entry_size;
        let list = data
            .get(HEADER_SIZE..directory_end)
            .ok_or(ReadError::TruncatedEntryList {
                resources,
                count: raw.count,
                end: directory_end,
                len: data.len(),
            })?;
        let (mut content, offsets) = parse_entries(list, resources);

        // Every data block in the order the file must have them.
        let mut blocks = Vec::with_capacity(offsets.len() + 2);
        if raw.app_info_id != 0 {
            blocks.push((Block::AppInfo, raw.app_info_id));
        }
        if raw.sort_info_id != 0 {
            blocks.push((Block::SortInfo, raw.sort_info_id));
        }
        blocks.extend(offsets.iter().zip(0..).map(|(&offset, index)| {
            let block = if resources {
                Block::Resource { index }
            } else {
                Block::Record { index }
            };
            (block, offset)
        }));
        check_order(&blocks, data.len(), directory_end)?;

        // Offsets are now non-decreasing and at most the file length, so each
        // block is data[its offset..the next offset, or the end of the file].
        let ends = blocks
            .iter()
            .skip(1)
            .map(|&(_, next)| next as usize)
            .chain([data.len()]);
        let mut slices = blocks
            .iter()
            .zip(ends)
            .map(|(&(_, start), end)| data[start as usize..end].to_vec());
        let app_info = (raw.app_info_id != 0).then(|| slices.next()).flatten();
        let sort_info = (raw.sort_info_id != 0).then(|| slices.next()).flatten();
        match &mut content {
            Content::Resources(resources) => resources
                .iter_mut()
                .zip(slices)
                .for_each(|(resource, bytes)| resource.data = bytes),
            Content::Records(records) => records
                .iter_mut()
                .zip(slices)
                .for_each(|(record, bytes)| record.data = bytes),
        }
        Ok(Database {
            header: raw.header,
            app_info,
            sort_info,
            content,
        })
    }
}
