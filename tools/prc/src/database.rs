//! The in-memory model of a database file: [`Database`], [`Header`],
//! [`Content`], [`Resource`] and [`Record`].

use crate::{FourCC, hdr_attr};

/// The header fields of a database file that are kept (PALM_FACTS §1.1).
///
/// The file header (78 bytes, [`crate::layout`]) also holds `appInfoID`,
/// `sortInfoID`, `nextRecordListID` and the entry count; those are derived
/// from [`Database`] when writing and not stored here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The database name as raw bytes, without the NUL terminator: at most 31
    /// bytes ([`crate::layout::MAX_NAME_LEN`]), no NUL inside, not empty when
    /// writing. Palm OS uses its own 8-bit character set (Windows-1252 based);
    /// ASCII is the portable subset. Apps are found by this name
    /// (`DmFindDatabase`).
    pub name: Vec<u8>,
    /// Header attribute bits ([`crate::hdr_attr`]). Bit [`hdr_attr::RES_DB`]
    /// must agree with [`Database::content`] when writing.
    pub attributes: u16,
    /// Application-defined version of the database (prc-tools' build-prc
    /// defaults to 1).
    pub version: u16,
    /// Creation date: seconds since 1904-01-01 ([`crate::palm_to_unix`]).
    pub creation_date: u32,
    /// Modification date: seconds since 1904-01-01.
    pub modification_date: u32,
    /// Last backup date: seconds since 1904-01-01; 0 means never.
    pub last_backup_date: u32,
    /// Modification number, incremented by the Data Manager on changes.
    pub modification_number: u32,
    /// Database type, e.g. `'appl'` for applications ([`crate::app::APPL`]).
    pub kind: FourCC,
    /// Creator ID: the owning application's four-character code.
    pub creator: FourCC,
    /// Seed for record unique IDs; Palm OS uses the low 3 bytes. Kept as read.
    pub unique_id_seed: u32,
}

impl Header {
    /// A header with this name, type and creator; every other field is 0.
    /// The name is not checked here; [`Database::to_bytes`] checks it.
    pub fn new(name: impl Into<Vec<u8>>, kind: FourCC, creator: FourCC) -> Self {
        Header {
            name: name.into(),
            attributes: 0,
            version: 0,
            creation_date: 0,
            modification_date: 0,
            last_backup_date: 0,
            modification_number: 0,
            kind,
            creator,
            unique_id_seed: 0,
        }
    }
}

/// One resource of a resource database (.prc): a 10-byte entry (type, id,
/// data offset) plus its data (PALM_FACTS §1.4, `RsrcEntryType`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// Resource type, e.g. `'code'`.
    pub kind: FourCC,
    /// Resource ID (`DmResID`, 0–65535).
    pub id: u16,
    /// The resource's bytes; may be empty.
    pub data: Vec<u8>,
}

/// One record of a record database (.pdb): an 8-byte entry (data offset,
/// attribute byte, 24-bit unique ID) plus its data (PALM_FACTS §1.4,
/// `RecordEntryType`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Attribute bits ([`crate::rec_attr`]); the low nibble is the category.
    pub attributes: u8,
    /// Unique ID: 24 bits (0 to 0xFFFFFF, [`crate::layout::MAX_UNIQUE_ID`]).
    /// Not checked for uniqueness.
    pub unique_id: u32,
    /// The record's bytes; may be empty.
    pub data: Vec<u8>,
}

/// The entries of a database: resources or records, chosen by the header
/// bit [`hdr_attr::RES_DB`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// A resource database (.prc), in file order.
    Resources(Vec<Resource>),
    /// A record database (.pdb), in file order.
    Records(Vec<Record>),
}

/// A whole .prc or .pdb file.
///
/// Read with [`Database::parse`], written with [`Database::to_bytes`]. Both
/// directions keep entries in file order and data byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Database {
    /// The header fields.
    pub header: Header,
    /// The AppInfo block's bytes (`appInfoID` ≠ 0), or `None` (`appInfoID` = 0).
    /// `Some(vec![])` is kept distinct: a non-zero offset to an empty block.
    pub app_info: Option<Vec<u8>>,
    /// The SortInfo block's bytes (`sortInfoID` ≠ 0), or `None`.
    pub sort_info: Option<Vec<u8>>,
    /// The resources or records.
    pub content: Content,
}

impl Database {
    /// A resource database (.prc) with these resources, no AppInfo/SortInfo,
    /// and [`hdr_attr::RES_DB`] set in `header.attributes`.
    pub fn new_resources(mut header: Header, resources: Vec<Resource>) -> Self {
        header.attributes |= hdr_attr::RES_DB;
        Database {
            header,
            app_info: None,
            sort_info: None,
            content: Content::Resources(resources),
        }
    }

    /// A record database (.pdb) with these records, no AppInfo/SortInfo, and
    /// [`hdr_attr::RES_DB`] cleared in `header.attributes`.
    pub fn new_records(mut header: Header, records: Vec<Record>) -> Self {
        header.attributes &= !hdr_attr::RES_DB;
        Database {
            header,
            app_info: None,
            sort_info: None,
            content: Content::Records(records),
        }
    }

    /// The resources, or `None` for a record database.
    pub fn resources(&self) -> Option<&[Resource]> {
        match &self.content {
            Content::Resources(resources) => Some(resources),
            Content::Records(_) => None,
        }
    }

    /// The records, or `None` for a resource database.
    pub fn records(&self) -> Option<&[Record]> {
        match &self.content {
            Content::Resources(_) => None,
            Content::Records(records) => Some(records),
        }
    }

    /// The first resource (in file order) with this type and ID, or `None`
    /// (also for a record database). Files with duplicates parse, but
    /// [`Database::to_bytes`] rejects them.
    pub fn resource(&self, kind: FourCC, id: u16) -> Option<&Resource> {
        self.resources()?
            .iter()
            .find(|r| r.kind == kind && r.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const APPL: FourCC = FourCC::new(*b"appl");
    const CODE: FourCC = FourCC::new(*b"code");

    #[test]
    fn constructors_set_the_resource_bit() {
        let mut header = Header::new("App", APPL, FourCC::new(*b"MDbg"));
        header.attributes = hdr_attr::BACKUP;
        let prc = Database::new_resources(header.clone(), vec![]);
        assert_eq!(prc.header.attributes, hdr_attr::BACKUP | hdr_attr::RES_DB);
        header.attributes = 0xFFFF;
        let pdb = Database::new_records(header, vec![]);
        assert_eq!(pdb.header.attributes, 0xFFFE);
        assert_eq!(pdb.header.name, b"App");
        assert_eq!(pdb.header.version, 0);
    }

    #[test]
    fn lookups() {
        let code = |id, data: &[u8]| Resource {
            kind: CODE,
            id,
            data: data.to_vec(),
        };
        let header = Header::new("App", APPL, APPL);
        let prc = Database::new_resources(header.clone(), vec![code(0, b"a"), code(1, b"b")]);
        assert_eq!(prc.resource(CODE, 1).map(|r| &r.data[..]), Some(&b"b"[..]));
        assert_eq!(prc.resource(CODE, 2), None);
        assert_eq!(prc.resource(APPL, 0), None);
        assert_eq!(prc.resources().map(<[_]>::len), Some(2));
        assert_eq!(prc.records(), None);

        let record = Record {
            attributes: 0,
            unique_id: 7,
            data: vec![],
        };
        let pdb = Database::new_records(header, vec![record.clone()]);
        assert_eq!(pdb.records(), Some(&[record][..]));
        assert_eq!(pdb.resources(), None);
        assert_eq!(pdb.resource(CODE, 0), None);
    }
}
