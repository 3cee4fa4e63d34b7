//! The coff-m68k writer and reader: exact bytes of a small object and
//! archive (worked out by hand from the layout in the crate documentation),
//! round trips of arbitrary objects, and a reader that never panics.

use m68k_coff::{
    ArchiveMember, C_EXT, C_STAT, F_AR32W, F_LNNO, N_UNDEF, Object, RelocKind, Relocation,
    STYP_BSS, STYP_TEXT, Section, Symbol, T_FUNCTION, WriteError, read_archive, write_archive,
};
use proptest::prelude::*;

/// `f: rts; bsr.w g_external_fn` (the branch's field at vaddr 4, holding
/// `0 − 4`, as prc-tools' `as` writes a call to an undefined function).
fn small() -> Object {
    Object {
        timestamp: 0x1234_5678,
        flags: F_LNNO | F_AR32W,
        sections: vec![Section {
            name: ".text".into(),
            vaddr: 0,
            size: 6,
            flags: STYP_TEXT,
            data: vec![0x4E, 0x75, 0x61, 0x00, 0xFF, 0xFC],
            relocations: vec![Relocation {
                vaddr: 4,
                symbol: 2,
                kind: RelocKind::PcWord,
            }],
        }],
        symbols: vec![
            Symbol {
                name: ".text".into(),
                value: 0,
                section: 1,
                typ: 0,
                class: C_STAT,
                aux: vec![Symbol::section_aux(6, 1)],
            },
            Symbol {
                name: "f".into(),
                value: 0,
                section: 1,
                typ: T_FUNCTION,
                class: C_EXT,
                aux: vec![],
            },
            Symbol {
                name: "g_external_fn".into(),
                value: 0,
                section: N_UNDEF,
                typ: 0,
                class: C_EXT,
                aux: vec![],
            },
        ],
    }
}

fn hex(s: &str) -> Vec<u8> {
    let digits: String = s.chars().filter(char::is_ascii_hexdigit).collect();
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn a_small_object_has_the_bytes_of_the_format() {
    let expected = hex(
        // file header: magic 0520, 1 section, time, symptr 0x4C, 4 entries, no opthdr, flags
        "0150 0001 12345678 0000004c 00000004 0000 0204
         2e74657874000000 00000000 00000000 00000006 0000003c 00000042 00000000 0001 0000 00000020
         4e75 6100 fffc
         00000004 00000003 0013
         2e74657874000000 00000000 0001 0000 03 01
         00000006 0001 0000 00000000000000000000
         6600000000000000 00000000 0001 0020 02 00
         00000000 00000004 00000000 0000 0000 02 00
         00000012 675f65787465726e616c5f666e00",
    );
    let bytes = small().to_bytes().unwrap();
    assert_eq!(bytes, expected);
    // The relocation names raw entry 3 (the .text aux entry counts), read back as symbol 2.
    assert_eq!(Object::parse(&bytes).unwrap(), small());
}

#[test]
fn write_refuses_what_coff_cannot_hold() {
    let mut o = small();
    o.sections[0].name = ".text.long".into();
    assert_eq!(
        o.to_bytes(),
        Err(WriteError::SectionName(".text.long".into()))
    );
    let mut o = small();
    o.sections[0].relocations[0].symbol = 3;
    assert!(
        matches!(
            o.to_bytes(),
            Err(WriteError::RelocSymbol {
                symbol: 3,
                count: 3,
                ..
            })
        ),
        "{:?}",
        o.to_bytes()
    );
    let mut o = small();
    o.sections[0].relocations[0].vaddr = 5;
    assert_eq!(
        o.to_bytes().unwrap_err().to_string(),
        "section .text: relocation field at 0x5 (2 bytes) is outside the section"
    );
    let mut o = small();
    o.sections[0].data.pop();
    assert!(matches!(
        o.to_bytes(),
        Err(WriteError::SectionSize {
            len: 5,
            size: 6,
            ..
        })
    ));
}

#[test]
fn read_errors_name_the_offset() {
    let bytes = small().to_bytes().unwrap();
    let e = Object::parse(&bytes[..30]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "offset 0x4c: the symbol table (72 bytes) runs past the end of the 30-byte file"
    );
    let mut bad = bytes.clone();
    bad[0] = 0x02;
    assert_eq!(
        Object::parse(&bad).unwrap_err().to_string(),
        "offset 0x0: magic 01120 is not an m68k COFF one (expected 0520)"
    );
    let mut bad = bytes.clone();
    bad[0x4A..0x4C].copy_from_slice(&99u16.to_be_bytes()); // r_type
    assert_eq!(
        Object::parse(&bad).unwrap_err().to_string(),
        "offset 0x4a: relocation type 99 is not a coff-m68k one"
    );
    let mut bad = bytes;
    bad[0x46..0x4A].copy_from_slice(&1u32.to_be_bytes()); // r_symndx 1: the aux entry
    assert_eq!(
        Object::parse(&bad).unwrap_err().to_string(),
        "offset 0x46: relocation names symbol #1, which is not a symbol entry"
    );
}

#[test]
fn an_archive_has_a_big_endian_index_and_reads_back() {
    let a = small().to_bytes().unwrap();
    let members = vec![
        ArchiveMember {
            name: "a.o".into(),
            data: a.clone(),
            symbols: vec!["f".into()],
        },
        ArchiveMember {
            name: "b.o".into(),
            data: vec![1, 2, 3],
            symbols: vec!["g".into(), "h".into()],
        },
    ];
    let ar = write_archive(&members).unwrap();
    // Index: 3 entries; a.o's header follows the 8-byte magic, the 60-byte
    // index header and the 4 + 12 + 6 bytes of the index at 0x5A.
    let b_at = 0x5A + 60 + a.len() + a.len() % 2;
    let mut index = hex("00000003 0000005a");
    for _ in 0..2 {
        index.extend_from_slice(&(b_at as u32).to_be_bytes());
    }
    index.extend_from_slice(b"f\0g\0h\0");
    assert_eq!(&ar[..8], b"!<arch>\n");
    assert_eq!(
        &ar[8..68],
        format!("{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n", "/", 0, 0, 0, 0, 22).as_bytes()
    );
    assert_eq!(&ar[68..90], &index[..]);
    assert_eq!(&ar[0x5A..0x5A + 16], b"a.o/            ");
    assert_eq!(read_archive(&ar).unwrap(), members);
    assert_eq!(
        write_archive(&[ArchiveMember {
            name: "a_very_long_name.o".into(),
            data: vec![],
            symbols: vec![],
        }]),
        Err(WriteError::MemberName("a_very_long_name.o".into()))
    );
}

fn name() -> impl Strategy<Value = String> {
    "[a-zA-Z_.$][a-zA-Z0-9_.$]{0,20}"
}

fn object() -> impl Strategy<Value = Object> {
    let section = (
        "\\.[a-z]{1,7}",
        any::<u32>(),
        prop_oneof![Just(STYP_TEXT), Just(0x40u32), Just(STYP_BSS)],
        proptest::collection::vec(any::<u8>(), 0..64),
    );
    let symbol = (
        name(),
        any::<u32>(),
        -2i16..4,
        any::<u16>(),
        any::<u8>(),
        proptest::collection::vec(proptest::array::uniform18(any::<u8>()), 0..2),
    )
        .prop_map(|(name, value, section, typ, class, aux)| Symbol {
            name,
            value,
            section,
            typ,
            class,
            aux,
        });
    (
        any::<u32>(),
        any::<u16>(),
        proptest::collection::vec(section, 0..4),
        proptest::collection::vec(symbol, 1..8),
        proptest::collection::vec((any::<u32>(), any::<usize>(), 0usize..8), 0..8),
    )
        .prop_map(|(timestamp, flags, secs, symbols, relocs)| {
            let kinds = RelocKind::ALL;
            let mut sections: Vec<Section> = secs
                .into_iter()
                .map(|(name, vaddr, flags, data)| Section {
                    name,
                    vaddr,
                    size: data.len() as u32,
                    flags,
                    data: if flags == STYP_BSS { Vec::new() } else { data },
                    relocations: Vec::new(),
                })
                .collect();
            let n = symbols.len();
            for (i, (off, sym, k)) in relocs.into_iter().enumerate() {
                if sections.is_empty() {
                    break;
                }
                let count = sections.len();
                let s = &mut sections[i % count];
                let kind = kinds[k];
                if s.size >= kind.size() {
                    let off = off % (s.size - kind.size() + 1);
                    s.relocations.push(Relocation {
                        vaddr: s.vaddr.wrapping_add(off),
                        symbol: sym % n,
                        kind,
                    });
                }
            }
            // A section whose vaddr + offset wraps cannot hold a relocation.
            for s in &mut sections {
                let (v, size) = (s.vaddr, s.size);
                s.relocations
                    .retain(|r| r.vaddr.checked_sub(v).is_some_and(|o| o < size));
            }
            Object {
                timestamp,
                flags,
                sections,
                symbols,
            }
        })
}

proptest! {
    #[test]
    fn objects_round_trip(o in object()) {
        let bytes = o.to_bytes().unwrap();
        prop_assert_eq!(Object::parse(&bytes).unwrap(), o);
    }

    #[test]
    fn the_reader_never_panics_on_damaged_objects(
        o in object(),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in any::<usize>(),
    ) {
        let mut bytes = o.to_bytes().unwrap();
        for (at, b) in flips {
            let n = bytes.len();
            bytes[at % n] = b;
        }
        let n = bytes.len();
        bytes.truncate(cut % (n + 1));
        let _ = Object::parse(&bytes);
        let _ = read_archive(&bytes);
    }

    #[test]
    fn archives_round_trip(
        members in proptest::collection::vec(
            ("[a-z]{1,12}\\.o", proptest::collection::vec(any::<u8>(), 0..40),
             proptest::collection::vec(name(), 0..4)),
            1..4,
        )
    ) {
        let members: Vec<ArchiveMember> = members
            .into_iter()
            .enumerate()
            .map(|(i, (name, data, symbols))| ArchiveMember {
                name: format!("{i}{name}"),
                data,
                symbols,
            })
            .collect();
        let ar = write_archive(&members).unwrap();
        prop_assert_eq!(read_archive(&ar).unwrap(), members);
    }
}
