//! Every kind of bad input gives an error that names the file and the offset,
//! never a panic: exact messages for each case, then property tests over
//! arbitrary and mutated files.

mod common;

use common::*;
use memdbg::record::{self, AsBytes, HeaderFlags, kind};
use memdbg_report::{Format, Ledger, Options, ledger_from_bytes, print};
use palm_prc::{Database, FourCC, Resource};
use proptest::prelude::*;

/// File offset of record `i`'s data (from the entry list).
fn record_offset(pdb: &[u8], i: usize) -> u64 {
    let at = 78 + 8 * i;
    u64::from(u32::from_be_bytes(pdb[at..at + 4].try_into().unwrap()))
}

fn err(bytes: &[u8]) -> memdbg_report::InputError {
    ledger_from_bytes(bytes, "in.pdb").unwrap_err()
}

/// The error of the sample ledger with record `r` appended, and the file
/// offset of `r`'s data.
fn appended(r: Vec<u8>) -> (memdbg_report::InputError, u64) {
    let mut recs = sample_records();
    recs.push(r);
    let pdb = pdb_of(&recs);
    let at = record_offset(&pdb, recs.len() - 1);
    (err(&pdb), at)
}

#[test]
fn not_a_pdb() {
    let e = err(b"hello, world");
    assert_eq!(
        e.to_string(),
        "in.pdb: not a Palm database (.pdb): file is 12 bytes, shorter than the 78-byte database header"
    );
    // A header whose entry list runs past the end of the file.
    let mut pdb = pdb_of(&sample_records());
    pdb.truncate(90);
    assert_eq!(
        err(&pdb).to_string(),
        "in.pdb: not a Palm database (.pdb): header at offset 0x4C: 14 record entries of 8 bytes \
         end at offset 0xBE, past the end of the file (0x5A bytes)"
    );
}

#[test]
fn a_prc_is_not_a_ledger() {
    let prc = Database::new_resources(
        palm_prc::Header::new("StarterApp", FourCC::new(*b"appl"), FourCC::new(*b"MDst")),
        vec![Resource {
            kind: FourCC::new(*b"code"),
            id: 1,
            data: vec![0x4E, 0x75],
        }],
    )
    .to_bytes()
    .unwrap();
    let e = err(&prc);
    assert_eq!(
        (e.offset, e.message.as_str()),
        (
            Some(0x20),
            "a resource database (.prc), not the MemDbgDB record database"
        )
    );
}

#[test]
fn an_elf_given_as_the_ledger_is_told_to_go_with_elf() {
    let mut elf = b"\x7fELF\x01\x02\x01".to_vec();
    elf.resize(200, 0);
    assert_eq!(
        err(&elf).to_string(),
        "in.pdb: offset 0x0: an ELF file (the app's symbols), not a ledger: give it with --elf, \
         and the ledger (MemDbgDB.pdb, or a backup .zip holding it) as the input: memdbg report \
         MemDbgDB.pdb --elf APP.elf"
    );
}

/// Finding: a prc-tools COFF object as the ledger was "database type is
/// 0x00000000 ...".
#[test]
fn a_coff_object_given_as_the_ledger_is_named() {
    let mut coff = vec![0x01, 0x50, 0x00, 0x03];
    coff.resize(200, 0);
    assert_eq!(
        err(&coff).to_string(),
        "in.pdb: offset 0x0: a coff-m68k (prc-tools) object file, not a ledger: a prc-tools \
         build's linked coff-m68k file (the app before build-prc) goes with --elf, for function \
         names; give the ledger (MemDbgDB.pdb, or a backup .zip holding it) as the input: \
         memdbg report MemDbgDB.pdb --elf APP.elf"
    );
    let mut ar = b"!<arch>\n".to_vec();
    ar.resize(200, b' ');
    assert!(
        err(&ar).to_string().starts_with(
            "in.pdb: offset 0x0: an ar archive (a static library), not a ledger: give the ledger"
        ),
        "{}",
        err(&ar)
    );
}

#[test]
fn a_ledger_given_as_the_elf_is_told_to_be_the_input() {
    let e = memdbg_report::ElfSymbols::from_bytes(&pdb_of(&sample_records()), "MemDbgDB.pdb")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "MemDbgDB.pdb: offset 0x0: a Palm database, not an ELF: the ledger is the input (memdbg \
         report MemDbgDB.pdb --elf APP.elf); --elf takes the app's ELF, which palm-build writes \
         beside the PRC (target/palm/APP.elf)"
    );
}

#[test]
fn wrong_type_or_creator() {
    let recs = sample_records();
    let e = err(&pdb_typed(
        &recs,
        u32::from_be_bytes(*b"DATA"),
        record::DB_CREATOR,
    ));
    assert_eq!(
        e.to_string(),
        "in.pdb: offset 0x3C: database type is 'DATA', not MemDbgDB's 'LEAK' (database \"MemDbgDB\")"
    );
    let e = err(&pdb_typed(
        &recs,
        record::DB_TYPE,
        u32::from_be_bytes(*b"addr"),
    ));
    assert_eq!(
        e.to_string(),
        "in.pdb: offset 0x40: database creator is 'addr', not MemDbgDB's 'MDbg' (database \"MemDbgDB\")"
    );
}

#[test]
fn no_records() {
    let e = err(&pdb_of(&[]));
    assert_eq!(
        e.to_string(),
        "in.pdb: the database has no records: record 0 must be the MemDbgDB header (an empty \
         MemDbgDB is what an app leaves that stopped while memdbg::start was creating the \
         ledger)"
    );
}

#[test]
fn unknown_record_version() {
    // In the header.
    let mut recs = sample_records();
    recs[0][1] = 6;
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 0) + 1));
    assert_eq!(
        e.message,
        "record 0 (header): unknown record format version (byte 1 of the record); its version \
         is 6, this memdbg reads versions 1 to 5"
    );
    // In an allocation record.
    let mut recs = sample_records();
    recs[2][1] = 7;
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 2) + 1));
    assert!(
        e.message
            .starts_with("record 2 (handle): unknown record format version")
    );
    assert!(
        e.message
            .ends_with("its version is 7, this memdbg reads versions 1 to 5")
    );
}

/// The sample ledger as memdbg's format version 1 wrote it: a 152-byte header
/// without the code 1 checksum, version 1 in every record, no contents
/// records (version 4 on).
fn version_1_records() -> Vec<Vec<u8>> {
    let mut recs = sample_records();
    recs.retain(|r| r[0] != kind::CONTENTS);
    recs[0].truncate(record::HEADER_SIZE_V1);
    recs[0][3] = record::HEADER_SIZE_V1 as u8;
    for r in &mut recs {
        as_version(r, 1);
    }
    recs
}

#[test]
fn version_1_ledgers_are_still_read() {
    let ledger = ledger_from_bytes(&pdb_of(&version_1_records()), "v1.pdb").unwrap();
    assert_eq!(ledger.header.version, 1);
    assert_eq!(ledger.header.code_checksum(), None);
    assert_eq!(ledger.allocs.len(), 5);
    let r = memdbg_report::analyze(&ledger, &Options::default());
    assert_eq!((r.header.format_version, r.header.code_crc), (1, None));
    // Written back as version 1 (152 bytes), it reads the same.
    let again = ledger_from_bytes(&ledger.to_pdb().unwrap(), "again.pdb").unwrap();
    assert_eq!(again.header, ledger.header);
    // A version 1 header has 152 bytes, a version 2 header 156.
    let mut recs = version_1_records();
    recs[0].extend_from_slice(&[0; 4]);
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 0) + 152));
    assert_eq!(
        e.message,
        "record 0 (header): record longer than its kind's size (byte 152 of the record); it has \
         156 bytes, a version 1 header record has 152"
    );
    let mut recs = sample_records();
    recs[0].truncate(152);
    assert_eq!(
        err(&pdb_of(&recs)).message,
        "record 0 (header): truncated record (byte 152 of the record); it has 152 bytes, a \
         header record has 156"
    );
}

#[test]
fn ledgers_before_version_4_are_still_read_and_never_say_a_stack_was_cut() {
    // (Without the kinds that version 4 brought: contents and interior frees.)
    let mut recs: Vec<Vec<u8>> = sample_records()
        .into_iter()
        .filter(|r| ![record::kind::CONTENTS, record::kind::INTERIOR_FREE].contains(&r[0]))
        .collect();
    for r in &mut recs {
        as_version(r, 2);
    }
    // Bit 7 of a stack's raw mask (never set by version 2) means nothing there.
    recs[1][25] |= record::Stack::TRUNCATED_CHAIN;
    let ledger = ledger_from_bytes(&pdb_of(&recs), "v2.pdb").unwrap();
    assert_eq!((ledger.header.version, ledger.allocs.len()), (2, 5));
    let r = memdbg_report::analyze(&ledger, &Options::default());
    assert_eq!(r.header.format_version, 2);
    assert!(r.leaks.iter().all(|l| l.block.stack_truncated.is_none()));
    // Nor in version 3 (segment records, no stack truncation bits).
    for r in &mut recs {
        as_version(r, 3);
    }
    let ledger = ledger_from_bytes(&pdb_of(&recs), "v3.pdb").unwrap();
    let r = memdbg_report::analyze(&ledger, &Options::default());
    assert!(r.leaks.iter().all(|l| l.block.stack_truncated.is_none()));
    // The same bit in a version 4 record says it.
    recs[1][1] = 4;
    let ledger = ledger_from_bytes(&pdb_of(&recs), "v4.pdb").unwrap();
    let r = memdbg_report::analyze(&ledger, &Options::default());
    assert_eq!(
        r.leaks
            .iter()
            .filter(|l| l.block.stack_truncated == Some("broken A6 frame chain"))
            .count(),
        1
    );
}

/// A locked record (kind 0x27) cut short, one of a pointer, and one with a lock
/// count no handle has: each error names its record and the offset.
#[test]
fn bad_locked_records() {
    let handle = record::AllocRecord::read_from(&sample_records()[1]).unwrap();
    let locked = record::LockedRecord {
        kind: kind::LOCKED,
        version: record::FORMAT_VERSION,
        lock_count: 1,
        reserved: 0,
        ticks: record::U32Be::new(9),
        alloc: handle,
    };
    let mut short = locked.as_bytes().to_vec();
    short.truncate(60);
    let (e, at) = appended(short);
    assert_eq!(e.offset, Some(at + 60));
    assert_eq!(
        e.message,
        "record 14 (locked): truncated record (byte 60 of the record); it has 60 bytes, a locked \
         record has 92"
    );
    let mut r = locked;
    r.lock_count = 15;
    let (e, at) = appended(r.as_bytes().to_vec());
    assert_eq!(e.offset, Some(at + 2));
    assert!(
        e.message
            .starts_with("record 14 (locked): locked record with a lock count outside 1 to 14"),
        "{}",
        e.message
    );
    let mut r = locked;
    r.alloc.flags = record::U16Be::new(record::AllocFlags::GUARDED.bits());
    let (e, at) = appended(r.as_bytes().to_vec());
    assert_eq!(e.offset, Some(at + 10));
    assert!(
        e.message
            .starts_with("record 14 (locked): locked record of a block that is not a handle"),
        "{}",
        e.message
    );
    // The allocation record inside is checked as one of its own: a size no
    // chunk can have, a generation the ledger has no checkpoint of.
    let alloc_at = std::mem::offset_of!(record::LockedRecord, alloc) as u64;
    let mut r = locked;
    r.alloc.size = record::U32Be::new(u32::MAX);
    let (e, at) = appended(r.as_bytes().to_vec());
    assert_eq!(
        e.offset,
        Some(at + alloc_at + std::mem::offset_of!(record::AllocRecord, size) as u64)
    );
    assert!(
        e.message
            .starts_with("record 14 (locked): a size of 4294967295 bytes, more than any"),
        "{}",
        e.message
    );
    let mut r = locked;
    r.alloc.generation = 200;
    let (e, at) = appended(r.as_bytes().to_vec());
    assert_eq!(
        e.offset,
        Some(at + alloc_at + std::mem::offset_of!(record::AllocRecord, generation) as u64)
    );
    assert!(
        e.message
            .contains("an allocation in generation 200, but the ledger has"),
        "{}",
        e.message
    );
}

/// An unlock-underflow record (kind 0x28) cut short, one naming an unknown
/// trap, and one of a pointer: each error names its record and the offset.
#[test]
fn bad_unlock_underflow_records() {
    let handle = record::AllocRecord::read_from(&sample_records()[1]).unwrap();
    let underflow = record::UnlockUnderflowRecord {
        kind: kind::UNLOCK_UNDERFLOW,
        version: record::FORMAT_VERSION,
        via: record::UnlockUnderflowRecord::VIA_HANDLE,
        reserved: 0,
        address: handle.address,
        ticks: record::U32Be::new(9),
        site: record::Stack::default(),
        alloc: handle,
    };
    let mut short = underflow.as_bytes().to_vec();
    short.truncate(60);
    let (e, at) = appended(short);
    assert_eq!(e.offset, Some(at + 60));
    assert_eq!(
        e.message,
        "record 14 (unlock underflow): truncated record (byte 60 of the record); it has 60 \
         bytes, an unlock underflow record has 122"
    );
    let mut r = underflow;
    r.via = 7;
    let (e, at) = appended(r.as_bytes().to_vec());
    assert_eq!(e.offset, Some(at + 2));
    assert!(
        e.message.starts_with(
            "record 14 (unlock underflow): unlock-underflow record of an unknown unlock trap"
        ),
        "{}",
        e.message
    );
    let mut r = underflow;
    r.alloc.flags = record::U16Be::new(record::AllocFlags::GUARDED.bits());
    let (e, at) = appended(r.as_bytes().to_vec());
    assert_eq!(e.offset, Some(at + 40));
    assert!(
        e.message.starts_with(
            "record 14 (unlock underflow): unlock-underflow record of a block that is not a handle"
        ),
        "{}",
        e.message
    );
}

#[test]
fn truncated_records() {
    // A record cut short inside the database.
    let mut recs = sample_records();
    recs[1].truncate(40);
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 1) + 40));
    assert_eq!(
        e.message,
        "record 1 (handle): truncated record (byte 40 of the record); it has 40 bytes, a handle \
         record has 84"
    );
    // The file itself cut short: the last record runs to the end of the file.
    let pdb = pdb_of(&sample_records());
    let cut = &pdb[..pdb.len() - 10];
    let e = err(cut);
    let last = 13;
    assert_eq!(e.offset, Some(record_offset(cut, last) + 30));
    assert_eq!(
        e.message,
        "record 13 (contents): truncated record (byte 30 of the record); it has 30 bytes, a \
         contents record has 40"
    );
    // A kind whose name starts with a vowel takes "an".
    let mut recs = sample_records();
    let mut overrun = recs[1].clone();
    overrun.truncate(40);
    overrun[0] = kind::OVERRUN;
    recs[1] = overrun;
    let e = err(&pdb_of(&recs));
    assert!(
        e.message
            .ends_with("; it has 40 bytes, an overrun record has 122"),
        "{}",
        e.message
    );
    // A header cut short.
    let mut recs = sample_records();
    recs[0].truncate(100);
    let e = err(&pdb_of(&recs));
    assert!(
        e.message
            .starts_with("record 0 (header): truncated record (byte 100 of the record)")
    );
}

#[test]
fn other_bad_records() {
    let mut recs = sample_records();
    recs[3][0] = 0x55;
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 3)));
    assert_eq!(
        e.message,
        "record 3 (unknown): unknown record kind (byte 0 of the record); kind byte 0x55"
    );
    // Record 0 must be the header.
    let mut recs = sample_records();
    recs.swap(0, 1);
    let e = err(&pdb_of(&recs));
    assert_eq!(
        e.message,
        "record 0 (handle): record 0 is not a MemDbgDB header (byte 0 of the record)"
    );
    // Only record 0 is.
    let mut recs = sample_records();
    recs.push(recs[0].clone());
    let e = err(&pdb_of(&recs));
    assert!(
        e.message
            .starts_with("record 14 (header): a second header record")
    );
    // A frame count above 6 in a call stack.
    let mut recs = sample_records();
    recs[1][24] = 9;
    let pdb = pdb_of(&recs);
    assert_eq!(err(&pdb).offset, Some(record_offset(&pdb, 1) + 24));
    // A bad magic.
    let mut recs = sample_records();
    recs[0][4] = b'X';
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 0) + 4));
    assert!(e.message.contains("bad header magic"));
    // A contents record of more than 32 bytes, or of a version before 4.
    let mut recs = sample_records();
    recs[11][3] = 33;
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 11) + 2));
    assert_eq!(
        e.message,
        "record 11 (contents): contents byte count above 32 (byte 2 of the record)"
    );
    let mut recs = sample_records();
    recs[11][1] = 3;
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 11) + 1));
    assert_eq!(
        e.message,
        "record 11 (contents): contents record of a format version before 4 (byte 1 of the \
         record)"
    );
}

/// A checkpoint record of generation `g`.
fn checkpoint(g: u8) -> Vec<u8> {
    record::CheckpointRecord {
        kind: kind::CHECKPOINT,
        version: record::FORMAT_VERSION,
        generation: g,
        ..Default::default()
    }
    .as_bytes()
    .to_vec()
}

/// memdbg writes checkpoints 1, 2, 3… in order and every allocation in one of
/// their generations: a repeated, skipped or reordered checkpoint, or an
/// allocation of a generation without a checkpoint, is a damaged ledger (a
/// generation table made from it would be silently wrong), named by record
/// and offset.
#[test]
fn checkpoints_out_of_sequence_are_errors() {
    let mut recs = sample_records();
    recs.extend([checkpoint(1), checkpoint(2)]);
    assert!(ledger_from_bytes(&pdb_of(&recs), "in.pdb").is_ok());
    for (second, what) in [(1, "1"), (3, "3")] {
        let mut recs = sample_records();
        recs.extend([checkpoint(1), checkpoint(second)]);
        let i = recs.len() - 1;
        let pdb = pdb_of(&recs);
        let e = err(&pdb);
        assert_eq!(e.offset, Some(record_offset(&pdb, i) + 2));
        assert_eq!(
            e.message,
            format!(
                "record {i} (checkpoint): generation {what} where generation 2 was due \
                 (memdbg writes checkpoints 1, 2, 3… in order): the ledger is damaged"
            )
        );
    }
    // Record 1 is a leak: in generation 2 with one checkpoint.
    let mut recs = sample_records();
    recs[1][82] = 2;
    recs.push(checkpoint(1));
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 1) + 82));
    assert_eq!(
        e.message,
        "record 1 (handle): an allocation in generation 2, but the ledger has 1 checkpoint(s): \
         the ledger is damaged"
    );
}

#[test]
fn free_slots_and_deleted_records_are_skipped() {
    let mut recs = sample_records();
    recs[2][0] = kind::FREE_SLOT;
    let mut db = Database::parse(&pdb_of(&recs)).unwrap();
    if let palm_prc::Content::Records(r) = &mut db.content {
        r.push(palm_prc::Record {
            attributes: palm_prc::rec_attr::DELETE,
            unique_id: 99,
            data: Vec::new(),
        });
    }
    let ledger = Ledger::from_pdb(&db.to_bytes().unwrap(), "in.pdb").unwrap();
    assert_eq!(
        (ledger.free_slots, ledger.deleted, ledger.allocs.len()),
        (1, 1, 4)
    );
}

#[test]
fn a_broken_zip() {
    let mut z = b"PK\x03\x04".to_vec();
    z.extend_from_slice(&[0xFF; 40]);
    let e = ledger_from_bytes(&z, "b.zip").unwrap_err();
    assert_eq!(e.file, "b.zip");
    assert!(e.message.starts_with("not a readable zip archive: "), "{e}");
}

/// Reading, and when that succeeds reporting in both formats, must not panic.
fn exercise(bytes: &[u8]) {
    if let Ok(ledger) = ledger_from_bytes(bytes, "fuzz.pdb") {
        for format in [Format::Text, Format::Json] {
            let mut opts = Options::default();
            opts.format = format;
            opts.min_size = 3;
            opts.suppressions =
                memdbg_report::Suppressions::parse("src/starter.rs:42\nfoo\n", "s").unwrap();
            let mut out = Vec::new();
            print(&mut out, &ledger, &opts).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        exercise(&bytes);
    }

    #[test]
    fn mutated_ledgers_never_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut pdb = pdb_of(&sample_records());
        for (at, byte) in flips {
            let i = at.index(pdb.len());
            pdb[i] = byte;
        }
        if truncate {
            pdb.truncate(cut.index(pdb.len()));
        }
        exercise(&pdb);
    }

    #[test]
    fn mutated_records_never_panic(
        record in 0usize..11,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        // Mutations inside one record (the file structure stays valid), so the
        // record decoder is what is exercised.
        let mut recs = sample_records();
        let r = &mut recs[record];
        for (at, byte) in flips {
            let i = at.index(r.len());
            r[i] = byte;
        }
        if let Some(c) = cut {
            r.truncate(c.index(r.len()));
        }
        exercise(&pdb_of(&recs));
    }

    #[test]
    fn valid_ledgers_report(
        n in 0usize..40,
        sizes in proptest::collection::vec(1u32..5000, 40),
        lines in proptest::collection::vec(1u16..100, 40),
    ) {
        let leaks: Vec<_> = (0..n)
            .map(|i| alloc(kind::POINTER, sizes[i], 0x1000 + i as u32 * 16, i as u32 + 1,
                           "src/p.rs", lines[i] % 5 + 1, stack(&[Ok(0x10 + 2 * i as u32)])))
            .collect();
        let mut recs = vec![header(0x400, &leaks).as_bytes().to_vec()];
        recs.extend(leaks.iter().map(|a| a.as_bytes().to_vec()));
        let ledger = ledger_from_bytes(&pdb_of(&recs), "p.pdb").unwrap();
        let r = memdbg_report::analyze(&ledger, &Options::default());
        prop_assert_eq!(r.summary.leaks, n);
        prop_assert_eq!(r.summary.bytes, sizes[..n].iter().map(|&s| u64::from(s)).sum::<u64>());
        prop_assert_eq!(r.sites.iter().map(|s| s.count).sum::<usize>(), n);
        prop_assert_eq!(r.summary.exit_status, u8::from(n > 0));
    }
}

/// The sample ledger with `zeros` records of these sizes inserted after
/// record 2, all zero bytes, as `DmNewRecord` leaves a record until the
/// `DmWrite` that fills it; the header RUNNING when `running`.
fn with_unwritten(zeros: &[usize], running: bool) -> Vec<Vec<u8>> {
    let mut recs = sample_records();
    let mut h = record::Header::decode(&recs[0]).unwrap();
    let mut flags = h.header_flags();
    flags.set(HeaderFlags::RUNNING, running);
    h.flags.set(flags.bits());
    recs[0] = h.as_bytes().to_vec();
    for (i, &size) in zeros.iter().enumerate() {
        recs.insert(3 + i, vec![0; size]);
    }
    recs
}

fn text_and_json(ledger: &Ledger) -> (String, serde_json::Value) {
    let mut opts = Options::default();
    let mut text = Vec::new();
    print(&mut text, ledger, &opts).unwrap();
    opts.format = Format::Json;
    let mut json = Vec::new();
    print(&mut json, ledger, &opts).unwrap();
    (
        String::from_utf8(text).unwrap(),
        serde_json::from_slice(&json).unwrap(),
    )
}

#[test]
fn records_never_written_are_skipped_and_counted() {
    // The app stopped after DmNewRecord created a slot's record and an event
    // record, before they were written: every byte is still zero.
    let recs = with_unwritten(
        &[record::ALLOC_RECORD_SIZE, record::OVERRUN_RECORD_SIZE],
        true,
    );
    let ledger = ledger_from_bytes(&pdb_of(&recs), "c.pdb").unwrap();
    assert_eq!((ledger.allocs.len(), ledger.overruns.len()), (5, 1));
    let (text, json) = text_and_json(&ledger);
    let said = "2 records never written (the app stopped while creating them): the \
                allocations or events they were to hold are missing";
    assert!(text.contains(&format!("warning: {said}\n")), "{text}");
    assert_eq!(json["unwritten_records"], 2);
    assert!(
        json["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| *w == said),
        "{json}"
    );
    let one = with_unwritten(&[record::ALLOC_RECORD_SIZE], true);
    let (text, _) = text_and_json(&ledger_from_bytes(&pdb_of(&one), "c.pdb").unwrap());
    assert!(
        text.contains(
            "warning: 1 record never written (the app stopped while creating it): the \
             allocation or event it was to hold is missing\n"
        ),
        "{text}"
    );

    // After a clean stop (memdbg::stop removes such records) it is damage,
    // still skipped.
    let recs = with_unwritten(&[record::DOUBLE_FREE_RECORD_SIZE], false);
    let ledger = ledger_from_bytes(&pdb_of(&recs), "c.pdb").unwrap();
    assert_eq!(ledger.double_frees.len(), 1);
    let (text, json) = text_and_json(&ledger);
    let said = "1 record of zero bytes in a ledger whose run stopped: the ledger is damaged \
                (record ignored)";
    assert!(text.contains(&format!("warning: {said}\n")), "{text}");
    assert_eq!(json["unwritten_records"], 1);

    // A ledger without such records says 0.
    let (_, json) = text_and_json(&ledger_from_bytes(&pdb_of(&sample_records()), "c.pdb").unwrap());
    assert_eq!(json["unwritten_records"], 0);
}

#[test]
fn other_zero_records_are_still_errors() {
    // Zero bytes of a size memdbg never creates.
    let recs = with_unwritten(&[42], true);
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 3) + 1));
    assert_eq!(
        e.message,
        "record 3 (free slot): unknown record format version (byte 1 of the record); its \
         version is 0, this memdbg reads versions 1 to 5"
    );
    // One byte written: not a record that was never written.
    let mut recs = with_unwritten(&[record::ALLOC_RECORD_SIZE], true);
    recs[3][0] = kind::POINTER;
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 3) + 1));
    assert!(
        e.message
            .starts_with("record 3 (pointer): unknown record format version")
    );
    let mut recs = with_unwritten(&[record::ALLOC_RECORD_SIZE], true);
    recs[3][60] = b'x';
    assert!(
        err(&pdb_of(&recs))
            .message
            .starts_with("record 3 (free slot)")
    );
    // A header never written: the app stopped inside memdbg::start.
    let mut recs = sample_records();
    recs[0].fill(0);
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, 0)));
    assert_eq!(
        e.message,
        "record 0 (header): never written: its 156 bytes are zero (the app stopped while \
         memdbg::start was creating the ledger, before it wrote the header)"
    );
}

#[test]
fn a_run_that_did_not_stop_has_no_counter_warnings() {
    // Such a header holds start's counters (all zero) while the event records
    // were written as the run went: nothing to compare.
    let with_counters = |running: bool| {
        let mut recs = with_unwritten(&[], running);
        let mut h = record::Header::decode(&recs[0]).unwrap();
        h.counters.overruns.set(0);
        h.counters.double_frees.set(0);
        recs[0] = h.as_bytes().to_vec();
        let ledger = ledger_from_bytes(&pdb_of(&recs), "c.pdb").unwrap();
        assert!(!ledger.overruns.is_empty() && !ledger.double_frees.is_empty());
        text_and_json(&ledger).0
    };
    let text = with_counters(true);
    assert!(!text.contains("the header counts"), "{text}");
    // After a stop the same mismatch is a warning.
    let text = with_counters(false);
    assert!(
        text.contains(
            "warning: the header counts 0 overruns but the ledger holds 1 overrun record(s)"
        ),
        "{text}"
    );
}

/// The allocation record inside an event record has the outer record's format
/// version (memdbg copies it from a record of the same run): another version
/// there is damage, named at its byte, not a second layout (whose ticks would be
/// read as a time, or a real time dropped).
#[test]
fn an_allocation_record_of_another_version_inside_a_record_is_damage() {
    let mut recs = sample_records();
    let i = recs.iter().position(|r| r[0] == kind::OVERRUN).unwrap();
    let inner = recs[i].len() - record::ALLOC_RECORD_SIZE + 1;
    recs[i][inner] = 4;
    let pdb = pdb_of(&recs);
    let e = err(&pdb);
    assert_eq!(e.offset, Some(record_offset(&pdb, i) + inner as u64));
    assert_eq!(
        e.message,
        format!(
            "record {i} (overrun): its allocation record says format version 4 inside a \
             version 5 record: the record is damaged"
        )
    );
}
