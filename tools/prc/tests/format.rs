//! Exact-byte tests of the reader and writer on small hand-computed files,
//! what the reader tolerates, and every error with its message.

mod common;

use palm_prc::{
    Block, Content, Database, FourCC, Header, ReadError, Record, Resource, WriteError, hdr_attr,
    layout, rec_attr,
};

/// A 2-resource PRC: 'code' 1 (`rts`) and 'tver' 1 ("1"), computed by hand.
const TINY_PRC: &[u8] = &[
    // 0x00 name "Tiny", NUL-padded to 32 bytes
    b'T', b'i', b'n', b'y', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0x00, 0x09, // 0x20 attributes: ResDB | Backup
    0x00, 0x01, // 0x22 version 1
    0xB4, 0x92, 0xF4, 0x00, // 0x24 created 2000-01-01 00:00:00
    0xB4, 0x92, 0xF4, 0x01, // 0x28 modified one second later
    0x00, 0x00, 0x00, 0x00, // 0x2C never backed up
    0x00, 0x00, 0x00, 0x02, // 0x30 modification number 2
    0x00, 0x00, 0x00, 0x00, // 0x34 no AppInfo
    0x00, 0x00, 0x00, 0x00, // 0x38 no SortInfo
    b'a', b'p', b'p', b'l', // 0x3C type
    b'T', b'i', b'n', b'y', // 0x40 creator
    0x00, 0x00, 0x00, 0x00, // 0x44 uniqueIDSeed
    0x00, 0x00, 0x00, 0x00, // 0x48 nextRecordListID
    0x00, 0x02, // 0x4C two entries
    b'c', b'o', b'd', b'e', 0x00, 0x01, 0x00, 0x00, 0x00, 0x64, // 0x4E 'code' 1 at 0x64
    b't', b'v', b'e', b'r', 0x00, 0x01, 0x00, 0x00, 0x00, 0x66, // 0x58 'tver' 1 at 0x66
    0x00, 0x00, // 0x62 gap
    0x4E, 0x75, // 0x64 code 1: rts
    b'1', 0x00, // 0x66 tver 1: "1"
];

fn tiny_prc() -> Database {
    let mut header = Header::new("Tiny", FourCC::new(*b"appl"), FourCC::new(*b"Tiny"));
    header.attributes = hdr_attr::BACKUP;
    header.version = 1;
    header.creation_date = 0xB492_F400;
    header.modification_date = 0xB492_F401;
    header.modification_number = 2;
    Database::new_resources(
        header,
        vec![
            Resource {
                kind: FourCC::new(*b"code"),
                id: 1,
                data: vec![0x4E, 0x75],
            },
            Resource {
                kind: FourCC::new(*b"tver"),
                id: 1,
                data: b"1\0".to_vec(),
            },
        ],
    )
}

/// A 2-record PDB with AppInfo and SortInfo blocks, computed by hand.
const TINY_PDB: &[u8] = &[
    // 0x00 name "TinyDB"
    b'T', b'i', b'n', b'y', b'D', b'B', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0x00, 0x08, // 0x20 attributes: Backup
    0x00, 0x00, // 0x22 version 0
    0x00, 0x00, 0x00, 0x01, // 0x24
    0x00, 0x00, 0x00, 0x02, // 0x28
    0x00, 0x00, 0x00, 0x03, // 0x2C
    0x00, 0x00, 0x00, 0x00, // 0x30
    0x00, 0x00, 0x00, 0x60, // 0x34 AppInfo at 0x60
    0x00, 0x00, 0x00, 0x64, // 0x38 SortInfo at 0x64
    b'D', b'A', b'T', b'A', // 0x3C type
    b'M', b'D', b'b', b'g', // 0x40 creator
    0x00, 0x12, 0x30, 0x00, // 0x44 uniqueIDSeed
    0x00, 0x00, 0x00, 0x00, // 0x48
    0x00, 0x02, // 0x4C two entries
    0x00, 0x00, 0x00, 0x66, 0x43, 0x00, 0x00, 0x01, // 0x4E at 0x66, dirty, category 3, id 1
    0x00, 0x00, 0x00, 0x69, 0x10, 0xAB, 0xCD, 0xEF, // 0x56 at 0x69, secret, id 0xABCDEF
    0x00, 0x00, // 0x5E gap
    0xA0, 0xA1, 0xA2, 0xA3, // 0x60 AppInfo
    0x50, 0x51, // 0x64 SortInfo
    0x01, 0x02, 0x03, // 0x66 record 0; record 1 is empty, at the end of the file
];

fn tiny_pdb() -> Database {
    let mut header = Header::new("TinyDB", FourCC::new(*b"DATA"), FourCC::new(*b"MDbg"));
    header.attributes = hdr_attr::BACKUP;
    header.creation_date = 1;
    header.modification_date = 2;
    header.last_backup_date = 3;
    header.unique_id_seed = 0x0012_3000;
    let mut db = Database::new_records(
        header,
        vec![
            Record {
                attributes: rec_attr::DIRTY | 3,
                unique_id: 1,
                data: vec![1, 2, 3],
            },
            Record {
                attributes: rec_attr::SECRET,
                unique_id: 0xAB_CDEF,
                data: vec![],
            },
        ],
    );
    db.app_info = Some(vec![0xA0, 0xA1, 0xA2, 0xA3]);
    db.sort_info = Some(vec![0x50, 0x51]);
    db
}

#[test]
fn writes_the_hand_computed_prc() {
    assert_eq!(TINY_PRC.len(), 0x68);
    assert_eq!(tiny_prc().to_bytes().unwrap(), TINY_PRC);
}

#[test]
fn reads_the_hand_computed_prc() {
    let db = Database::parse(TINY_PRC).unwrap();
    assert_eq!(db, tiny_prc());
    assert_eq!(db.header.name, b"Tiny");
    assert_eq!(db.header.attributes, 0x0009);
    assert_eq!(
        db.resource(FourCC::new(*b"code"), 1).unwrap().data,
        [0x4E, 0x75]
    );
    assert_eq!(palm_prc::palm_to_unix(db.header.creation_date), 946_684_800);
}

#[test]
fn writes_the_hand_computed_pdb() {
    assert_eq!(TINY_PDB.len(), 0x69);
    assert_eq!(tiny_pdb().to_bytes().unwrap(), TINY_PDB);
}

#[test]
fn reads_the_hand_computed_pdb() {
    let db = Database::parse(TINY_PDB).unwrap();
    assert_eq!(db, tiny_pdb());
    let records = db.records().unwrap();
    assert_eq!(records[0].attributes & rec_attr::CATEGORY_MASK, 3);
    assert_eq!(records[1].unique_id, 0xAB_CDEF);
    assert_eq!(records[1].data, []);
}

#[test]
fn fuzz_seeds_are_the_hand_computed_files() {
    common::check_seed("tiny.prc", TINY_PRC);
    common::check_seed("tiny.pdb", TINY_PDB);
}

#[test]
fn header_fields_sit_at_the_layout_offsets() {
    let field = |at: usize, len: usize| &TINY_PDB[at..at + len];
    assert_eq!(field(0, layout::NAME_FIELD_SIZE)[..7], *b"TinyDB\0");
    assert_eq!(field(layout::ATTRIBUTES_OFFSET, 2), [0x00, 0x08]);
    assert_eq!(field(layout::VERSION_OFFSET, 2), [0x00, 0x00]);
    assert_eq!(field(layout::CREATION_DATE_OFFSET, 4), [0, 0, 0, 1]);
    assert_eq!(field(layout::MODIFICATION_DATE_OFFSET, 4), [0, 0, 0, 2]);
    assert_eq!(field(layout::LAST_BACKUP_DATE_OFFSET, 4), [0, 0, 0, 3]);
    assert_eq!(field(layout::MODIFICATION_NUMBER_OFFSET, 4), [0, 0, 0, 0]);
    assert_eq!(field(layout::APP_INFO_ID_OFFSET, 4), [0, 0, 0, 0x60]);
    assert_eq!(field(layout::SORT_INFO_ID_OFFSET, 4), [0, 0, 0, 0x64]);
    assert_eq!(field(layout::TYPE_OFFSET, 4), *b"DATA");
    assert_eq!(field(layout::CREATOR_OFFSET, 4), *b"MDbg");
    assert_eq!(
        field(layout::UNIQUE_ID_SEED_OFFSET, 4),
        [0x00, 0x12, 0x30, 0x00]
    );
    assert_eq!(field(layout::NEXT_RECORD_LIST_ID_OFFSET, 4), [0, 0, 0, 0]);
    assert_eq!(field(layout::NUM_RECORDS_OFFSET, 2), [0, 2]);
    assert_eq!(layout::NUM_RECORDS_OFFSET + 2, layout::HEADER_SIZE);
    assert_eq!(layout::MAX_NAME_LEN, 31);
}

#[test]
fn empty_databases() {
    let header = Header::new("E", FourCC::new(*b"DATA"), FourCC::new(*b"MDbg"));
    let pdb = Database::new_records(header.clone(), vec![]);
    let bytes = pdb.to_bytes().unwrap();
    assert_eq!(bytes.len(), layout::HEADER_SIZE + layout::GAP_SIZE);
    assert_eq!(bytes[layout::NUM_RECORDS_OFFSET..], [0, 0, 0, 0]);
    assert_eq!(Database::parse(&bytes).unwrap(), pdb);

    // Some(empty) AppInfo gets a real offset (the end of the file).
    let mut prc = Database::new_resources(header, vec![]);
    prc.app_info = Some(vec![]);
    let bytes = prc.to_bytes().unwrap();
    assert_eq!(bytes[layout::APP_INFO_ID_OFFSET..][..4], [0, 0, 0, 0x50]);
    assert_eq!(Database::parse(&bytes).unwrap(), prc);
}

/// Replaces `bytes[at..at + new.len()]`.
fn patched(bytes: &[u8], at: usize, new: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + new.len()].copy_from_slice(new);
    out
}

#[test]
fn tolerates_a_missing_gap() {
    // Drop the gap and move both offsets down by 2.
    let mut bytes = TINY_PRC.to_vec();
    bytes.drain(0x62..0x64);
    let bytes = patched(&bytes, 0x4E + 6, &[0, 0, 0, 0x62]);
    let bytes = patched(&bytes, 0x58 + 6, &[0, 0, 0, 0x64]);
    assert_eq!(Database::parse(&bytes).unwrap(), tiny_prc());
}

#[test]
fn tolerates_a_longer_nonzero_gap() {
    // The PDB's AppInfo starts 3 bytes later, after junk.
    let mut bytes = TINY_PDB.to_vec();
    bytes.splice(0x60..0x60, [0xEE; 3]);
    let bytes = patched(&bytes, 0x34, &[0, 0, 0, 0x63]);
    let bytes = patched(&bytes, 0x38, &[0, 0, 0, 0x67]);
    let bytes = patched(&bytes, 0x4E, &[0, 0, 0, 0x69]);
    let bytes = patched(&bytes, 0x56, &[0, 0, 0, 0x6C]);
    assert_eq!(Database::parse(&bytes).unwrap(), tiny_pdb());
}

#[test]
fn ignores_name_padding_and_next_record_list_id() {
    let bytes = patched(TINY_PRC, 5, b"junk");
    let bytes = patched(&bytes, layout::NEXT_RECORD_LIST_ID_OFFSET, &[1, 2, 3, 4]);
    assert_eq!(Database::parse(&bytes).unwrap(), tiny_prc());
}

#[test]
fn ignores_bytes_after_an_empty_entry_list() {
    let header = Header::new("E", FourCC::new(*b"DATA"), FourCC::new(*b"MDbg"));
    let pdb = Database::new_records(header, vec![]);
    let mut bytes = pdb.to_bytes().unwrap();
    bytes.extend_from_slice(b"trailing");
    assert_eq!(Database::parse(&bytes).unwrap(), pdb);
}

#[test]
fn reads_but_does_not_write_duplicate_resources() {
    let bytes = patched(TINY_PRC, 0x58, b"code"); // both entries are now 'code' 1
    let db = Database::parse(&bytes).unwrap();
    assert_eq!(db.resources().unwrap()[1].data, b"1\0");
    assert_eq!(
        db.resource(FourCC::new(*b"code"), 1).unwrap().data,
        [0x4E, 0x75]
    );
    let err = db.to_bytes().unwrap_err();
    assert_eq!(
        err,
        WriteError::DuplicateResource {
            kind: FourCC::new(*b"code"),
            id: 1,
            first: 0,
            second: 1
        }
    );
    assert_eq!(err.to_string(), "resources 0 and 1 are both 'code' 1");
}

#[test]
fn reads_an_empty_name() {
    let bytes = patched(TINY_PRC, 0, &[0; 4]);
    assert_eq!(Database::parse(&bytes).unwrap().header.name, b"");
}

fn read_err(bytes: &[u8]) -> (ReadError, String) {
    let err = Database::parse(bytes).unwrap_err();
    let text = err.to_string();
    (err, text)
}

#[test]
fn rejects_a_truncated_header() {
    for len in [0, 1, 31, 32, 77] {
        let (err, text) = read_err(&TINY_PRC[..len]);
        assert_eq!(err, ReadError::TruncatedHeader { len });
        assert_eq!(
            text,
            format!("file is {len} bytes, shorter than the 78-byte database header")
        );
    }
}

/// Finding: an ELF or COFF file given as a PRC was read as a database
/// header, and the error was about AppInfo offsets.
#[test]
fn names_other_formats_by_their_magic() {
    let mut elf = b"\x7fELF\x01\x02\x01".to_vec();
    elf.resize(200, 0);
    let mut coff = vec![0x01, 0x50, 0x00, 0x03];
    coff.resize(200, 0);
    let mut ar = b"!<arch>\n".to_vec();
    ar.resize(200, b' ');
    for (bytes, what) in [
        (elf, "an ELF file"),
        (coff, "a coff-m68k (prc-tools) object file"),
        (ar, "an ar archive (a static library)"),
    ] {
        let (err, text) = read_err(&bytes);
        assert_eq!(err, ReadError::Foreign(what));
        assert_eq!(text, format!("{what}, not a Palm database (.prc or .pdb)"));
        assert_eq!(palm_prc::foreign_format(&bytes), Some(what));
    }
    assert_eq!(palm_prc::foreign_format(TINY_PRC), None);
}

#[test]
fn rejects_a_name_without_nul() {
    let (err, text) = read_err(&patched(TINY_PRC, 0, &[b'x'; 32]));
    assert_eq!(err, ReadError::UnterminatedName);
    assert_eq!(
        text,
        "header at offset 0x0: the 32-byte name field has no NUL terminator"
    );
}

#[test]
fn rejects_a_count_larger_than_the_file() {
    let (err, text) = read_err(&patched(TINY_PRC, layout::NUM_RECORDS_OFFSET, &[0, 3]));
    assert_eq!(
        err,
        ReadError::TruncatedEntryList {
            resources: true,
            count: 3,
            end: 0x6C,
            len: 0x68
        }
    );
    assert_eq!(
        text,
        "header at offset 0x4C: 3 resource entries of 10 bytes end at offset 0x6C, \
         past the end of the file (0x68 bytes)"
    );
    let (_, text) = read_err(&patched(
        TINY_PDB,
        layout::NUM_RECORDS_OFFSET,
        &[0xFF, 0xFF],
    ));
    assert_eq!(
        text,
        "header at offset 0x4C: 65535 record entries of 8 bytes end at offset 0x80046, \
         past the end of the file (0x69 bytes)"
    );
}

#[test]
fn rejects_an_offset_past_the_end() {
    let (err, text) = read_err(&patched(TINY_PRC, 0x58 + 6, &[0, 0, 0x12, 0x34]));
    assert_eq!(
        err,
        ReadError::OffsetPastEnd {
            block: Block::Resource { index: 1 },
            offset: 0x1234,
            len: 0x68
        }
    );
    assert_eq!(
        text,
        "resource entry 1 at offset 0x58: data offset 0x1234 is past the end of the file \
         (0x68 bytes)"
    );
    let (_, text) = read_err(&patched(TINY_PDB, 0x34, &[0xFF, 0xFF, 0xFF, 0xFF]));
    assert_eq!(
        text,
        "AppInfo block (appInfoID at offset 0x34): data offset 0xFFFFFFFF is past the end \
         of the file (0x69 bytes)"
    );
}

#[test]
fn rejects_an_offset_into_the_directory() {
    let (err, text) = read_err(&patched(TINY_PDB, 0x38, &[0, 0, 0, 0x10]));
    assert_eq!(
        err,
        ReadError::OffsetInsideDirectory {
            block: Block::SortInfo,
            offset: 0x10,
            directory_end: 0x5E
        }
    );
    assert_eq!(
        text,
        "SortInfo block (sortInfoID at offset 0x38): data offset 0x10 points into the header \
         or entry list, which end at offset 0x5E"
    );
}

#[test]
fn rejects_decreasing_offsets() {
    let (err, text) = read_err(&patched(TINY_PDB, 0x56, &[0, 0, 0, 0x65]));
    assert_eq!(
        err,
        ReadError::OffsetOutOfOrder {
            block: Block::Record { index: 1 },
            offset: 0x65,
            previous: Block::Record { index: 0 },
            previous_offset: 0x66
        }
    );
    assert_eq!(
        text,
        "record entry 1 at offset 0x56: data offset 0x65 is below offset 0x66 of the record \
         entry 0 at offset 0x4E; blocks must be in file order because each one's size is \
         implied by the next offset"
    );
    // AppInfo after the first record.
    let (err, _) = read_err(&patched(TINY_PDB, 0x34, &[0, 0, 0, 0x67]));
    assert_eq!(
        err,
        ReadError::OffsetOutOfOrder {
            block: Block::SortInfo,
            offset: 0x64,
            previous: Block::AppInfo,
            previous_offset: 0x67
        }
    );
}

#[test]
fn a_wrong_resource_flag_shows_as_an_offset_error() {
    // The PDB read as a PRC: 10-byte entries, so the entry list seems to
    // end at 0x62, past the AppInfo block at 0x60.
    let (err, text) = read_err(&patched(TINY_PDB, 0x20, &[0x00, 0x09]));
    assert_eq!(
        err,
        ReadError::OffsetInsideDirectory {
            block: Block::AppInfo,
            offset: 0x60,
            directory_end: 0x62
        }
    );
    assert!(
        text.starts_with("AppInfo block (appInfoID at offset 0x34): "),
        "{text}"
    );
    // The PRC read as a PDB: 8-byte entries, offset = 'code'.
    let (err, _) = read_err(&patched(TINY_PRC, 0x20, &[0x00, 0x08]));
    assert_eq!(
        err,
        ReadError::OffsetPastEnd {
            block: Block::Record { index: 0 },
            offset: 0x636F_6465,
            len: 0x68
        }
    );
}

fn write_err(db: &Database) -> (WriteError, String) {
    let err = db.to_bytes().unwrap_err();
    let text = err.to_string();
    (err, text)
}

#[test]
fn writer_rejects_bad_names() {
    let mut db = tiny_prc();
    db.header.name = vec![];
    assert_eq!(
        write_err(&db),
        (WriteError::EmptyName, "database name is empty".into())
    );
    db.header.name = vec![b'n'; 32];
    assert_eq!(
        write_err(&db),
        (
            WriteError::NameTooLong { len: 32 },
            "database name is 32 bytes; the header holds at most 31 plus the NUL terminator".into()
        )
    );
    db.header.name = vec![b'n'; 31];
    assert_eq!(Database::parse(&db.to_bytes().unwrap()).unwrap(), db);
    db.header.name = b"a\0b".to_vec();
    assert_eq!(
        write_err(&db),
        (
            WriteError::NameContainsNul { index: 1 },
            "database name has a NUL byte at index 1".into()
        )
    );
}

#[test]
fn writer_rejects_a_resource_flag_mismatch() {
    let mut db = tiny_prc();
    db.header.attributes = hdr_attr::BACKUP;
    assert_eq!(
        write_err(&db),
        (
            WriteError::ResourceFlagMismatch {
                attributes: 0x0008,
                resources: true
            },
            "header attributes 0x0008 lack dmHdrAttrResDB (0x0001), but the content is resources"
                .into()
        )
    );
    let mut db = tiny_pdb();
    db.header.attributes = 0x8001;
    assert_eq!(
        write_err(&db).1,
        "header attributes 0x8001 have dmHdrAttrResDB (0x0001), but the content is records"
    );
}

#[test]
fn writer_rejects_unique_ids_over_24_bits() {
    let mut db = tiny_pdb();
    if let Content::Records(records) = &mut db.content {
        records[1].unique_id = 0x0100_0000;
    }
    assert_eq!(
        write_err(&db),
        (
            WriteError::UniqueIdTooLarge {
                index: 1,
                unique_id: 0x0100_0000
            },
            "record 1: unique ID 0x1000000 does not fit in 24 bits (max 0xFFFFFF)".into()
        )
    );
}

#[test]
fn writer_rejects_more_than_65535_entries() {
    let header = Header::new("Big", FourCC::new(*b"DATA"), FourCC::new(*b"MDbg"));
    let record = Record {
        attributes: 0,
        unique_id: 0,
        data: vec![],
    };
    let mut db = Database::new_records(header, vec![record; 65535]);
    let bytes = db.to_bytes().unwrap();
    assert_eq!(bytes.len(), 78 + 65535 * 8 + 2);
    assert_eq!(Database::parse(&bytes).unwrap(), db);
    if let Content::Records(records) = &mut db.content {
        records.push(records[0].clone());
    }
    assert_eq!(
        write_err(&db),
        (
            WriteError::TooManyEntries { count: 65536 },
            "65536 entries; the 16-bit entry count holds at most 65535".into()
        )
    );
}
