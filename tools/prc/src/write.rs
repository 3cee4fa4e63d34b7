//! The writer: [`Database::to_bytes`] and its error type [`WriteError`].
//!
//! Output layout, as prc-tools (`prc-tools-remix:prc-tools-2.3/tools/pfd.cpp`)
//! and CloudpilotEmu (`cloudpilot-emu:src/cloudpilot/emulator/DbExporter.cpp`)
//! write it (PALM_FACTS §1.1, §1.4): the 78-byte header, the entry list, 2
//! zero bytes, the AppInfo block, the SortInfo block, then every entry's data
//! in entry order, with nothing aligned. `nextRecordListID` is written as 0.

use crate::database::{Content, Database};
use crate::layout::{
    GAP_SIZE, HEADER_SIZE, MAX_NAME_LEN, MAX_UNIQUE_ID, NAME_FIELD_SIZE, RECORD_ENTRY_SIZE,
    RESOURCE_ENTRY_SIZE,
};
use crate::{FourCC, hdr_attr};

/// Why [`Database::to_bytes`] refused to write a database.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// The name is empty. Palm OS finds databases by name, and Palm::PDB
    /// (libpalm-perl) neither writes nor reads a database without one.
    #[error("database name is empty")]
    EmptyName,
    /// The name does not fit the 32-byte name field with its NUL terminator.
    #[error("database name is {len} bytes; the header holds at most 31 plus the NUL terminator")]
    NameTooLong {
        /// Name length in bytes.
        len: usize,
    },
    /// The name contains a NUL byte, which would end it early.
    #[error("database name has a NUL byte at index {index}")]
    NameContainsNul {
        /// Index of the first NUL byte in the name.
        index: usize,
    },
    /// The header's [`hdr_attr::RES_DB`] bit disagrees with the content.
    #[error(
        "header attributes 0x{attributes:04X} {} dmHdrAttrResDB (0x0001), but the content is {}",
        if *resources { "lack" } else { "have" },
        if *resources { "resources" } else { "records" }
    )]
    ResourceFlagMismatch {
        /// The header's attributes.
        attributes: u16,
        /// True if the content is resources, false if records.
        resources: bool,
    },
    /// A record's unique ID does not fit in the 24-bit field.
    #[error("record {index}: unique ID 0x{unique_id:X} does not fit in 24 bits (max 0xFFFFFF)")]
    UniqueIdTooLarge {
        /// Record index, 0-based.
        index: usize,
        /// The unique ID.
        unique_id: u32,
    },
    /// Two resources have the same type and ID.
    #[error("resources {first} and {second} are both {kind} {id}")]
    DuplicateResource {
        /// Resource type.
        kind: FourCC,
        /// Resource ID.
        id: u16,
        /// Index of the first one, 0-based.
        first: usize,
        /// Index of the second one.
        second: usize,
    },
    /// More entries than the 16-bit entry count can hold.
    #[error("{count} entries; the 16-bit entry count holds at most 65535")]
    TooManyEntries {
        /// Number of resources or records.
        count: usize,
    },
    /// The file would be larger than 32-bit offsets can address.
    #[error("the file would be 0x{size:X} bytes; offsets are 32-bit (max 0xFFFFFFFF)")]
    TooLarge {
        /// Size the file would have, in bytes.
        size: u64,
    },
}

impl Database {
    /// Writes the database as a .prc/.pdb file (layout in the
    /// [module documentation](crate::write)).
    ///
    /// `app_info`/`sort_info` of `Some` get a non-zero offset even when empty.
    /// The output parses back with [`Database::parse`] to an equal value.
    ///
    /// # Errors
    /// A [`WriteError`] if the name is empty, longer than 31 bytes or contains
    /// NUL; the [`hdr_attr::RES_DB`] bit disagrees with the content; a unique
    /// ID exceeds 24 bits; two resources share type and ID; there are more
    /// than 65535 entries; or the file would exceed 4 GiB.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        self.check()?;
        let header = &self.header;

        let (count, entry_size, data_blocks): (usize, usize, Vec<&[u8]>) = match &self.content {
            Content::Resources(resources) => (
                resources.len(),
                RESOURCE_ENTRY_SIZE,
                resources.iter().map(|r| &r.data[..]).collect(),
            ),
            Content::Records(records) => (
                records.len(),
                RECORD_ENTRY_SIZE,
                records.iter().map(|r| &r.data[..]).collect(),
            ),
        };
        let count_u16 = u16::try_from(count).map_err(|_| WriteError::TooManyEntries { count })?;

        // Reserve: offsets of every block, computed in u64 and checked once.
        let mut position = (HEADER_SIZE + count * entry_size + GAP_SIZE) as u64;
        let mut place = |len: usize| {
            let at = position;
            position += len as u64;
            at
        };
        let app_info_at = self.app_info.as_deref().map(|b| place(b.len()));
        let sort_info_at = self.sort_info.as_deref().map(|b| place(b.len()));
        let entry_offsets: Vec<u64> = data_blocks.iter().map(|b| place(b.len())).collect();
        let size = position;
        if u32::try_from(size).is_err() {
            return Err(WriteError::TooLarge { size });
        }
        // Every offset is at most `size`, which fits in u32.
        let offset32 = |at: u64| at as u32;

        // Write.
        let mut out = Vec::with_capacity(size as usize);
        let mut name_field = [0u8; NAME_FIELD_SIZE];
        name_field[..header.name.len()].copy_from_slice(&header.name);
        out.extend_from_slice(&name_field);
        out.extend_from_slice(&header.attributes.to_be_bytes());
        out.extend_from_slice(&header.version.to_be_bytes());
        for field in [
            header.creation_date,
            header.modification_date,
            header.last_backup_date,
            header.modification_number,
            app_info_at.map_or(0, offset32),
            sort_info_at.map_or(0, offset32),
        ] {
            out.extend_from_slice(&field.to_be_bytes());
        }
        out.extend_from_slice(&header.kind.0);
        out.extend_from_slice(&header.creator.0);
        out.extend_from_slice(&header.unique_id_seed.to_be_bytes());
        out.extend_from_slice(&0u32.to_be_bytes()); // nextRecordListID
        out.extend_from_slice(&count_u16.to_be_bytes());
        match &self.content {
            Content::Resources(resources) => {
                for (resource, &at) in resources.iter().zip(&entry_offsets) {
                    out.extend_from_slice(&resource.kind.0);
                    out.extend_from_slice(&resource.id.to_be_bytes());
                    out.extend_from_slice(&offset32(at).to_be_bytes());
                }
            }
            Content::Records(records) => {
                for (record, &at) in records.iter().zip(&entry_offsets) {
                    out.extend_from_slice(&offset32(at).to_be_bytes());
                    out.push(record.attributes);
                    // unique_id <= 0xFFFFFF was checked: its low 3 bytes.
                    out.extend_from_slice(&record.unique_id.to_be_bytes()[1..]);
                }
            }
        }
        out.extend_from_slice(&[0; GAP_SIZE]);
        for block in self.app_info.iter().chain(&self.sort_info) {
            out.extend_from_slice(block);
        }
        for block in data_blocks {
            out.extend_from_slice(block);
        }
        debug_assert_eq!(out.len() as u64, size);
        Ok(out)
    }

    /// The checks of [`Database::to_bytes`] that do not depend on the layout.
    fn check(&self) -> Result<(), WriteError> {
        let header = &self.header;
        let name = &header.name;
        if name.is_empty() {
            return Err(WriteError::EmptyName);
        }
        if name.len() > MAX_NAME_LEN {
            return Err(WriteError::NameTooLong { len: name.len() });
        }
        if let Some(index) = name.iter().position(|&b| b == 0) {
            return Err(WriteError::NameContainsNul { index });
        }
        let resources = matches!(self.content, Content::Resources(_));
        if (header.attributes & hdr_attr::RES_DB != 0) != resources {
            return Err(WriteError::ResourceFlagMismatch {
                attributes: header.attributes,
                resources,
            });
        }
        match &self.content {
            Content::Resources(resources) => {
                let mut seen = std::collections::HashMap::with_capacity(resources.len());
                for (second, r) in resources.iter().enumerate() {
                    if let Some(&first) = seen.get(&(r.kind, r.id)) {
                        return Err(WriteError::DuplicateResource {
                            kind: r.kind,
                            id: r.id,
                            first,
                            second,
                        });
                    }
                    seen.insert((r.kind, r.id), second);
                }
            }
            Content::Records(records) => {
                if let Some((index, r)) = records
                    .iter()
                    .enumerate()
                    .find(|(_, r)| r.unique_id > MAX_UNIQUE_ID)
                {
                    return Err(WriteError::UniqueIdTooLarge {
                        index,
                        unique_id: r.unique_id,
                    });
                }
            }
        }
        Ok(())
    }
}
