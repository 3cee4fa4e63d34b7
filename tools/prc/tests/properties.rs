//! Property tests: valid databases round-trip exactly; no input makes the
//! reader panic, and whatever it accepts can be written back and read again
//! to the same value.

use std::collections::HashSet;

use palm_prc::{Content, Database, FourCC, Header, Record, Resource, hdr_attr, layout, macsbug};
use proptest::prelude::*;

fn four_cc() -> impl Strategy<Value = FourCC> {
    any::<[u8; 4]>().prop_map(FourCC)
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..=max)
}

/// Block contents, empty one time in four (empty blocks share offsets).
fn block(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![1 => Just(Vec::new()), 3 => bytes(max)]
}

fn header() -> impl Strategy<Value = Header> {
    (
        // A name starting with another format's magic ("\x7fELF", 0x01 0x50)
        // is refused by the reader (`foreign_format`).
        prop::collection::vec(1u8..=255, 1..=layout::MAX_NAME_LEN)
            .prop_filter("another format's magic", |name| {
                palm_prc::foreign_format(&[name.as_slice(), &[0; 8]].concat()).is_none()
            }),
        any::<(u16, u16, u32, u32, u32, u32)>(),
        four_cc(),
        four_cc(),
        any::<u32>(),
    )
        .prop_map(
            |(
                name,
                (attributes, version, created, modified, backup, modnum),
                kind,
                creator,
                seed,
            )| {
                Header {
                    name,
                    attributes,
                    version,
                    creation_date: created,
                    modification_date: modified,
                    last_backup_date: backup,
                    modification_number: modnum,
                    kind,
                    creator,
                    unique_id_seed: seed,
                }
            },
        )
}

fn resources() -> impl Strategy<Value = Vec<Resource>> {
    // Few distinct types and IDs, so that duplicates get generated (and removed).
    let kind = prop_oneof![
        Just(FourCC::new(*b"code")),
        Just(FourCC::new(*b"tSTR")),
        four_cc()
    ];
    prop::collection::vec((kind, 0u16..4, block(40)), 0..12).prop_map(|list| {
        let mut seen = HashSet::new();
        list.into_iter()
            .filter(|(kind, id, _)| seen.insert((*kind, *id)))
            .map(|(kind, id, data)| Resource { kind, id, data })
            .collect()
    })
}

fn records() -> impl Strategy<Value = Vec<Record>> {
    prop::collection::vec((any::<u8>(), 0..=layout::MAX_UNIQUE_ID, block(40)), 0..12).prop_map(
        |list| {
            list.into_iter()
                .map(|(attributes, unique_id, data)| Record {
                    attributes,
                    unique_id,
                    data,
                })
                .collect()
        },
    )
}

/// Any database that [`Database::to_bytes`] accepts.
fn database() -> impl Strategy<Value = Database> {
    (
        header(),
        prop::option::of(block(24)),
        prop::option::of(block(24)),
        prop_oneof![
            resources().prop_map(Content::Resources),
            records().prop_map(Content::Records)
        ],
    )
        .prop_map(|(mut header, app_info, sort_info, content)| {
            match content {
                Content::Resources(_) => header.attributes |= hdr_attr::RES_DB,
                Content::Records(_) => header.attributes &= !hdr_attr::RES_DB,
            }
            Database {
                header,
                app_info,
                sort_info,
                content,
            }
        })
}

/// A change to a valid file.
#[derive(Debug, Clone)]
enum Mutation {
    /// Overwrite the byte at this index (modulo the length) with this value.
    Set(usize, u8),
    /// Truncate to this length (modulo the length + 1).
    Truncate(usize),
    /// Remove this many bytes (0–3) from the end.
    TrimEnd(usize),
    /// Insert bytes at this index (modulo the length + 1).
    Insert(usize, Vec<u8>),
    /// Overwrite a 4-byte field at this index with a small offset.
    SmallOffset(usize, u8),
    /// Add a small delta to one of the file's offset fields (chosen modulo
    /// their number), to hit the boundaries: equal, off by one, past the end.
    Nudge(usize, i8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (0usize..4).prop_map(Mutation::TrimEnd),
        1 => (any::<usize>(), bytes(6)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::SmallOffset(i, b)),
        4 => (any::<usize>(), -4i8..=4).prop_map(|(i, d)| Mutation::Nudge(i, d)),
    ]
}

/// Positions of the offset fields of the file `db` writes: appInfoID and
/// sortInfoID when non-zero, then each entry's data offset.
fn offset_fields(db: &Database) -> Vec<usize> {
    let mut fields = Vec::new();
    if db.app_info.is_some() {
        fields.push(layout::APP_INFO_ID_OFFSET);
    }
    if db.sort_info.is_some() {
        fields.push(layout::SORT_INFO_ID_OFFSET);
    }
    let (count, size, within) = match &db.content {
        Content::Resources(r) => (r.len(), layout::RESOURCE_ENTRY_SIZE, 6),
        Content::Records(r) => (r.len(), layout::RECORD_ENTRY_SIZE, 0),
    };
    fields.extend((0..count).map(|i| layout::HEADER_SIZE + i * size + within));
    fields
}

fn apply(bytes: &mut Vec<u8>, offset_fields: &[usize], mutation: &Mutation) {
    match mutation {
        Mutation::Set(i, b) if !bytes.is_empty() => {
            let len = bytes.len();
            bytes[i % len] = *b;
        }
        Mutation::Set(..) => {}
        Mutation::Truncate(n) => bytes.truncate(n % (bytes.len() + 1)),
        Mutation::TrimEnd(n) => bytes.truncate(bytes.len().saturating_sub(*n)),
        Mutation::Insert(i, new) => {
            let at = i % (bytes.len() + 1);
            bytes.splice(at..at, new.iter().copied());
        }
        Mutation::SmallOffset(i, b) if bytes.len() >= 4 => {
            let at = i % (bytes.len() - 3);
            bytes[at..at + 4].copy_from_slice(&u32::from(*b).to_be_bytes());
        }
        Mutation::SmallOffset(..) => {}
        Mutation::Nudge(i, delta) if !offset_fields.is_empty() => {
            let at = offset_fields[i % offset_fields.len()];
            if let Some(field) = bytes.get_mut(at..at + 4) {
                let old = u32::from_be_bytes([field[0], field[1], field[2], field[3]]);
                let new = old.wrapping_add_signed(i32::from(*delta));
                field.copy_from_slice(&new.to_be_bytes());
            }
        }
        Mutation::Nudge(..) => {}
    }
}

/// Whatever the reader accepts must be writable (unless the writer's own
/// checks refuse it) and read back to the same value.
fn check_accepted(bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(db) = Database::parse(bytes)
        && let Ok(rewritten) = db.to_bytes()
    {
        prop_assert_eq!(Database::parse(&rewritten), Ok(db));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn valid_databases_round_trip(db in database()) {
        let bytes = db.to_bytes().unwrap();
        let (count, entry_size, data_len) = match &db.content {
            Content::Resources(r) => {
                (r.len(), layout::RESOURCE_ENTRY_SIZE, r.iter().map(|r| r.data.len()).sum::<usize>())
            }
            Content::Records(r) => {
                (r.len(), layout::RECORD_ENTRY_SIZE, r.iter().map(|r| r.data.len()).sum())
            }
        };
        let blocks_len = db.app_info.as_ref().map_or(0, Vec::len) + db.sort_info.as_ref().map_or(0, Vec::len);
        prop_assert_eq!(
            bytes.len(),
            layout::HEADER_SIZE + count * entry_size + layout::GAP_SIZE + blocks_len + data_len
        );
        prop_assert_eq!(&bytes[layout::NUM_RECORDS_OFFSET..][..2], &(count as u16).to_be_bytes());
        prop_assert_eq!(Database::parse(&bytes), Ok(db));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in bytes(400)) {
        check_accepted(&bytes)?;
    }

    #[test]
    fn arbitrary_tails_after_a_valid_header_never_panic(
        db in database(),
        count in 0u16..6,
        tail in bytes(120),
    ) {
        // A real header with a small entry count, then random entries and data.
        let mut bytes = db.to_bytes().unwrap();
        bytes.truncate(layout::NUM_RECORDS_OFFSET);
        bytes.extend_from_slice(&count.to_be_bytes());
        bytes.extend_from_slice(&tail);
        check_accepted(&bytes)?;
    }

    #[test]
    fn mutated_valid_files_never_panic(
        db in database(),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let mut bytes = db.to_bytes().unwrap();
        let fields = offset_fields(&db);
        for m in &mutations {
            apply(&mut bytes, &fields, m);
        }
        check_accepted(&bytes)?;
    }

    #[test]
    fn four_cc_display_parses_back(code in four_cc()) {
        prop_assert_eq!(code.to_string().parse::<FourCC>(), Ok(code));
    }

    /// A name written after a function's RTS is the one found from any
    /// even offset in the function, and the symbol ends where the next
    /// function starts.
    #[test]
    fn macsbug_names_read_back_from_inside_the_function(
        name in "[A-Za-z0-9_%.]{1,255}",
        body in prop::collection::vec(
            (0u16..0x4000).prop_filter("ADDI.L #x,(A7)", |&w| w != 0x0697),
            0..20,
        ),
    ) {
        // Words below 0x4000 are never an end-of-function sequence; 0x0697,
        // `ADDI.L #x,(A7)`, 6 bytes before the RTS would make it
        // CodeWarrior's jump instead of an end, so the body has none.
        let mut code: Vec<u8> = body.iter().flat_map(|w| w.to_be_bytes()).collect();
        code.extend(macsbug::RTS.to_be_bytes());
        let start = code.len();
        code.extend(macsbug::encode(&name).unwrap());
        let end = code.len();
        prop_assert_eq!(end % 2, 0);
        code.extend(macsbug::RTS.to_be_bytes());
        for addr in (0..start).step_by(2) {
            let sym = macsbug::function_name(&code, addr).unwrap();
            prop_assert_eq!(&sym.name, &name);
            prop_assert_eq!((sym.start, sym.end), (start, end));
        }
    }

    /// Code from outside (any app's code 1) never makes the reader panic,
    /// and a symbol it finds lies inside the code.
    #[test]
    fn macsbug_reading_arbitrary_code_never_panics(code in bytes(300), at in 0usize..320) {
        if let Some(sym) = macsbug::decode(&code, at) {
            prop_assert!(sym.start == at && sym.end > at && !sym.name.is_empty());
            prop_assert!(sym.name.len() <= macsbug::MAX_NAME_LEN);
            prop_assert!(sym.name.bytes().all(macsbug::is_name_char));
        }
        if let Some(sym) = macsbug::function_name(&code, at) {
            prop_assert!(sym.start >= at + 2 && sym.start <= code.len());
        }
    }
}
