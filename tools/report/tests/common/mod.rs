//! Ledgers for the tests, built with `memdbg::record`'s structs (their bytes are
//! the records) and written as a `.pdb` by `palm-prc`; golden-file comparison.
#![allow(dead_code)] // Each test binary uses a different part of this module.

use std::path::PathBuf;

use memdbg::record::{
    self, AllocFlags, AllocRecord, AsBytes, ContentsRecord, Counters, DoubleFreeRecord, FileName,
    Header, HeaderFlags, LowHeapRecord, Options, OverrunRecord, SmallSiteRecord, Stack, U16Be,
    U32Be, detected, kind,
};
use palm_prc::{Database, FourCC, Record};

/// A call stack: `Ok(offset)` is a code 1 offset, `Err(address)` a raw address.
pub fn stack(frames: &[Result<u32, u32>]) -> Stack {
    let mut s = Stack {
        count: frames.len() as u8,
        ..Stack::default()
    };
    for (i, f) in frames.iter().enumerate() {
        match *f {
            Ok(o) => s.frames[i].set(o),
            Err(a) => {
                s.frames[i].set(a);
                s.raw_mask |= 1 << i;
            }
        }
    }
    s
}

/// An allocation record.
pub fn alloc(
    k: u8,
    size: u32,
    address: u32,
    seq: u32,
    file: &str,
    line: u16,
    st: Stack,
) -> AllocRecord {
    let mut flags = AllocFlags::GUARDED;
    if k == kind::HANDLE {
        flags |= AllocFlags::HANDLE;
    }
    AllocRecord {
        kind: k,
        version: record::FORMAT_VERSION,
        flags: U16Be::new(flags.bits()),
        size: U32Be::new(size),
        address: U32Be::new(address),
        seq: U32Be::new(seq),
        ticks: U32Be::new(1000 + seq),
        line: U16Be::new(line),
        data_offset: U16Be::new(0),
        stack: st,
        file: FileName::new(file.as_bytes()),
        generation: 0,
        reserved: 0,
    }
}

/// The code 1 CRC-32 in [`header`]'s headers (no ELF has it).
pub const SAMPLE_CRC: u32 = 0x5EED_C0DE;

/// A header for a stopped run of app "StarterApp" ('MDst'), code 1 of
/// `code_size` bytes at 0x00020000 with CRC-32 [`SAMPLE_CRC`], counters
/// matching `leaks`.
pub fn header(code_size: u32, leaks: &[AllocRecord]) -> Header {
    let mut counters = Counters::default();
    let allocations = 12.max(leaks.len() as u32);
    counters.allocations.set(allocations);
    counters.frees.set(allocations - leaks.len() as u32);
    counters.os_frees.set(1);
    counters.leaks.set(leaks.len() as u32);
    counters
        .leaked_bytes
        .set(leaks.iter().map(|a| a.size.get()).sum());
    counters.peak_live_bytes.set(4000);
    counters.peak_live_count.set(7);
    counters.low_free.set(record::NOT_SAMPLED);
    counters.low_largest_free.set(record::NOT_SAMPLED);
    let mut h = Header {
        kind: kind::HEADER,
        version: record::FORMAT_VERSION,
        header_size: U16Be::new(record::HEADER_SIZE as u16),
        magic: U32Be::new(record::HEADER_MAGIC),
        flags: U32Be::new(0),
        options: U32Be::new((Options::GUARDS | Options::CALL_STACKS | Options::PATCH_FREES).bits()),
        max_alerts: U16Be::new(5),
        capacity: U16Be::new(256),
        low_heap_threshold: U32Be::new(0),
        app_creator: U32Be::new(u32::from_be_bytes(*b"MDst")),
        app_name: [0; 32],
        code_base: U32Be::new(0x0002_0000),
        code_size: U32Be::new(code_size),
        start_ticks: U32Be::new(100),
        stop_ticks: U32Be::new(5100),
        counters,
        code_crc: U32Be::new(SAMPLE_CRC),
    };
    h.app_name[..10].copy_from_slice(b"StarterApp");
    h
}

/// Record bytes → a MemDbgDB `.pdb`.
pub fn pdb_of(records: &[Vec<u8>]) -> Vec<u8> {
    pdb_typed(records, record::DB_TYPE, record::DB_CREATOR)
}

/// Record bytes → a `.pdb` with this type and creator.
pub fn pdb_typed(records: &[Vec<u8>], ty: u32, creator: u32) -> Vec<u8> {
    let header = palm_prc::Header::new(
        record::DB_NAME,
        FourCC::from_u32(ty),
        FourCC::from_u32(creator),
    );
    let records = records
        .iter()
        .zip(1u32..)
        .map(|(data, unique_id)| Record {
            attributes: 0,
            unique_id,
            data: data.clone(),
        })
        .collect();
    Database::new_records(header, records).to_bytes().unwrap()
}

/// Record `r` (the header or any other, of the current format version) as
/// format version `v` (1 to 4) wrote it: its version byte `v`, and a record
/// that is or ends in an allocation record without its last 2 bytes (the
/// generation, version 5 on) and with that record's version byte `v` too. The header keeps its layout (version 1's is
/// shorter: the caller cuts it).
pub fn as_version(r: &mut Vec<u8>, v: u8) {
    let old = r[1];
    r[1] = v;
    let ends_in_alloc = [
        kind::POINTER,
        kind::HANDLE,
        kind::CHUNK,
        kind::RUST,
        kind::OVERRUN,
        kind::UNDERRUN,
        kind::DOUBLE_FREE,
        kind::INTERIOR_FREE,
        kind::SMALL_SITE,
        kind::LOW_HEAP,
        kind::PINNED,
        kind::LOCKED,
        kind::UNLOCK_UNDERFLOW,
    ]
    .contains(&r[0]);
    if !ends_in_alloc {
        return;
    }
    if record::size_of_kind(r[0], old) == Some(r.len())
        && record::size_of_kind(r[0], v) == Some(r.len() - 2)
    {
        r.truncate(r.len() - 2);
    }
    // The allocation record it ends in has the same version byte.
    let alloc = if v < record::GENERATION_FORMAT_VERSION {
        record::ALLOC_RECORD_SIZE_V4
    } else {
        record::ALLOC_RECORD_SIZE
    };
    let at = r.len() - alloc;
    r[at + 1] = v;
}

/// The sample ledger of the golden tests: 4 leaks (three from one site), an
/// overrun, a double free, two small-allocation sites and a low-heap warning,
/// flags INCOMPLETE and LOW_HEAP; heap statistics sampled.
pub fn sample_records() -> Vec<Vec<u8>> {
    let s1 = stack(&[Ok(0x0124), Ok(0x0A02), Ok(0x0040), Err(0x1000_2468)]);
    let s2 = stack(&[Ok(0x0300), Ok(0x0040)]);
    let leaks = vec![
        alloc(kind::HANDLE, 16, 0x0001_2344, 3, "src/starter.rs", 42, s1),
        alloc(kind::HANDLE, 16, 0x0001_2348, 5, "src/starter.rs", 42, s1),
        alloc(
            kind::POINTER,
            100,
            0x0001_4000,
            4,
            "src/forms.rs",
            7,
            stack(&[]),
        ),
        alloc(kind::RUST, 24, 0x0001_5000, 8, "", 0, s2),
        alloc(kind::HANDLE, 16, 0x0001_234C, 9, "src/starter.rs", 42, s1),
    ];
    let mut h = header(0x0C00, &leaks);
    h.flags
        .set((HeaderFlags::INCOMPLETE | HeaderFlags::LOW_HEAP).bits());
    h.options.set(
        (Options::GUARDS
            | Options::CALL_STACKS
            | Options::PATCH_FREES
            | Options::HEAP_STATS
            | Options::CONTENTS
            | Options::LOCK_CHECKS)
            .bits(),
    );
    h.low_heap_threshold.set(2048);
    h.counters.untracked.set(2);
    h.counters.overruns.set(1);
    h.counters.double_frees.set(1);
    h.counters.low_free.set(30_000);
    h.counters.low_largest_free.set(1_500);
    h.counters.small_allocs.set(9);
    h.counters.small_unsited.set(1);
    let overrun = OverrunRecord {
        kind: kind::OVERRUN,
        version: record::FORMAT_VERSION,
        when: U16Be::new(detected::AT_FREE),
        ticks: U32Be::new(4000),
        guard: [0x00, 0xFD, 0xFD, 0xFD],
        site: stack(&[Ok(0x0500), Ok(0x0040)]),
        alloc: alloc(
            kind::POINTER,
            10,
            0x0001_6000,
            6,
            "src/overrun.rs",
            12,
            stack(&[Ok(0x0600)]),
        ),
    };
    let double = DoubleFreeRecord {
        kind: kind::DOUBLE_FREE,
        version: record::FORMAT_VERSION,
        reserved: U16Be::new(0),
        address: U32Be::new(0x0001_7000),
        first_after_seq: U32Be::new(3),
        second_ticks: U32Be::new(4200),
        first: stack(&[Ok(0x0700)]),
        second: stack(&[Ok(0x0702), Ok(0x0040)]),
        alloc: alloc(
            kind::HANDLE,
            32,
            0x0001_7000,
            7,
            "src/double.rs",
            30,
            stack(&[]),
        ),
    };
    let small = |count: u32, bytes: u32, file: &str, line: u16| SmallSiteRecord {
        kind: kind::SMALL_SITE,
        version: record::FORMAT_VERSION,
        reserved: U16Be::new(0),
        count: U32Be::new(count),
        bytes: U32Be::new(bytes),
        first: alloc(kind::POINTER, 4, 0x0001_8000, 2, file, line, stack(&[])),
    };
    let low = LowHeapRecord {
        kind: kind::LOW_HEAP,
        version: record::FORMAT_VERSION,
        reserved: U16Be::new(0),
        free: U32Be::new(30_000),
        largest: U32Be::new(1_500),
        threshold: U32Be::new(2048),
        alloc: alloc(
            kind::POINTER,
            100,
            0x0001_4000,
            4,
            "src/forms.rs",
            7,
            stack(&[]),
        ),
    };
    let mut out = vec![h.as_bytes().to_vec()];
    out.extend(leaks.iter().map(|a| a.as_bytes().to_vec()));
    out.push(overrun.as_bytes().to_vec());
    out.push(double.as_bytes().to_vec());
    out.push(small(3, 12, "src/small.rs", 5).as_bytes().to_vec());
    out.push(small(5, 40, "src/tiny.rs", 9).as_bytes().to_vec());
    out.push(low.as_bytes().to_vec());
    // Contents of three of the leaks: text, the first 32 of 100 bytes (two
    // rows, bytes that are not text), and the Box's zeros.
    out.push(contents(3, b"Ada Lovelace\0\0\0\0").as_bytes().to_vec());
    let mut forms: Vec<u8> = b"\x00\x10\x03\xE8form 1000\r\n\x7F\xFF".to_vec();
    forms.extend((0u8..15).map(|i| i.wrapping_mul(37)));
    out.push(contents(4, &forms).as_bytes().to_vec());
    out.push(contents(8, &[0; 24]).as_bytes().to_vec());
    out
}

/// A contents record: `bytes` (at most 32) as the first bytes of leak `seq`.
pub fn contents(seq: u32, bytes: &[u8]) -> ContentsRecord {
    let mut r = ContentsRecord {
        kind: kind::CONTENTS,
        version: record::FORMAT_VERSION,
        count: U16Be::new(bytes.len() as u16),
        seq: U32Be::new(seq),
        bytes: [0; record::CONTENTS_LEN],
    };
    r.bytes[..bytes.len()].copy_from_slice(bytes);
    r
}

/// A clean run: header only, no leaks, no events.
pub fn clean_records() -> Vec<Vec<u8>> {
    vec![header(0x0C00, &[]).as_bytes().to_vec()]
}

/// `tools/report/tests/data/NAME`.
pub fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Compares `actual` with the golden file `name`, line by line (naming the
/// first differing line); `MEMDBG_BLESS=1` rewrites the file instead.
pub fn golden(name: &str, actual: &str) {
    let path = data_path(name);
    if std::env::var_os("MEMDBG_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with MEMDBG_BLESS=1 to create it)",
            path.display()
        )
    });
    for (i, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        assert_eq!(
            a,
            e,
            "{}:{}: output differs (MEMDBG_BLESS=1 rewrites)",
            path.display(),
            i + 1
        );
    }
    assert_eq!(
        actual.lines().count(),
        expected.lines().count(),
        "{}: line count differs (MEMDBG_BLESS=1 rewrites)",
        path.display()
    );
    assert_eq!(
        actual,
        expected,
        "{}: trailing newline differs",
        path.display()
    );
}

/// Each reported leak's kind, size, file and line, in report order.
pub fn leak_sites(
    r: &memdbg_report::Report,
) -> Vec<(&'static str, u32, Option<&str>, Option<u32>)> {
    r.leaks
        .iter()
        .map(|l| {
            (
                l.block.kind,
                l.block.size,
                l.block.file.as_deref(),
                l.block.line,
            )
        })
        .collect()
}

/// The records of a ledger holding just `leaks` (its header from [`header`],
/// code 1 of 0x0C00 bytes), header first.
pub fn records_of(leaks: &[AllocRecord]) -> Vec<Vec<u8>> {
    let mut out = vec![header(0x0C00, leaks).as_bytes().to_vec()];
    out.extend(leaks.iter().map(|a| a.as_bytes().to_vec()));
    out
}

/// Two leaks from two sites: a pointer of 8 bytes at src/a.rs:1 and a handle
/// of 64 bytes at src/b.rs:2.
pub fn leaks_only() -> Vec<Vec<u8>> {
    records_of(&[
        alloc(
            kind::POINTER,
            8,
            0x0001_1000,
            1,
            "src/a.rs",
            1,
            stack(&[Ok(0x10)]),
        ),
        alloc(
            kind::HANDLE,
            64,
            0x0001_1100,
            2,
            "src/b.rs",
            2,
            stack(&[Ok(0x20)]),
        ),
    ])
}

/// The app name of [`hostile_records`]: a terminal colour sequence.
pub const HOSTILE_APP: &[u8] = b"\x1b[31mXX\x1b[m";

/// A ledger whose names would drive a terminal if printed as they are: app
/// [`HOSTILE_APP`], a leak from `\x1b]0;PWN\x07` (sets the window title), one
/// from a file with a C1 CSI (U+009B in UTF-8) and a DEL, and two with
/// letters that must stay as they are: `é` in UTF-8 and a Latin-1 0xE9 (not
/// UTF-8: shown as U+FFFD).
pub fn hostile_records() -> Vec<Vec<u8>> {
    let st = stack(&[Ok(0x10)]);
    let mut leaks = vec![
        alloc(kind::POINTER, 8, 0x0001_1000, 1, "\x1b]0;PWN\x07", 5, st),
        alloc(
            kind::POINTER,
            9,
            0x0001_1100,
            2,
            "src/\u{9b}2J\x7f.rs",
            6,
            st,
        ),
        alloc(kind::POINTER, 10, 0x0001_1200, 3, "src/café.rs", 7, st),
        alloc(kind::POINTER, 11, 0x0001_1300, 4, "", 8, st),
    ];
    leaks[3].file = FileName::new(b"src/caf\xe9.rs");
    let mut h = header(0x0C00, &leaks);
    h.app_name = [0; 32];
    h.app_name[..HOSTILE_APP.len()].copy_from_slice(HOSTILE_APP);
    let mut out = vec![h.as_bytes().to_vec()];
    out.extend(leaks.iter().map(|a| a.as_bytes().to_vec()));
    out
}

/// Panics if `text` holds a control character other than a line feed.
pub fn assert_no_control_characters(text: &str) {
    if let Some((at, c)) = text
        .char_indices()
        .find(|&(_, c)| c.is_control() && c != '\n')
    {
        panic!(
            "control character {:?} at byte {at}: {:?}",
            c,
            &text[at.saturating_sub(40)..]
        );
    }
}
