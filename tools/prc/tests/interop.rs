//! Interop with an independent implementation: Palm::PDB + Palm::Raw from
//! Debian's libpalm-perl (installed by ci/setup).
//!
//! - Files written by palm-prc are loaded by `tests/dump.pl`, whose output
//!   must equal palm-prc's own reading rendered in the same format.
//! - Files written by Palm::PDB (`tests/write.pl`) are parsed by palm-prc and
//!   compared with the values the script wrote.
//!
//! Missing perl or Palm::PDB fails the tests (it does not skip them).

mod common;

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use palm_prc::{
    Content, Database, FourCC, Header, Record, Resource, app, hdr_attr, palm_to_unix, rec_attr,
    unix_to_palm,
};

fn script(name: &str) -> String {
    format!("{}/tests/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs perl with these arguments and returns its stdout; fails the test with
/// a hint to run ci/setup if perl or Palm::PDB is missing.
fn perl(args: &[&str]) -> String {
    let probe = Command::new("perl")
        .args(["-MPalm::PDB", "-MPalm::Raw", "-e1"])
        .output();
    match probe {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "the interop test needs Palm::PDB (Debian package libpalm-perl), which perl \
             cannot load: run ci/setup\n{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(err) => panic!("the interop test needs perl ({err}): run ci/setup"),
    }
    let out = Command::new("perl")
        .args(args)
        .output()
        .expect("perl ran a moment ago");
    assert!(
        out.status.success(),
        "perl {args:?} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("dump.pl prints ASCII for these files")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn block(data: Option<&[u8]>) -> String {
    match data {
        None => "none".into(),
        Some(d) => format!("{} bytes {}", d.len(), hex(d)),
    }
}

/// palm-prc's reading of `bytes`, in dump.pl's format.
fn render(bytes: &[u8]) -> String {
    let db = Database::parse(bytes).expect("palm-prc reads the file");
    let h = &db.header;
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    line(format!("name: {}", String::from_utf8_lossy(&h.name)));
    line(format!("type: {:08x}", h.kind.to_u32()));
    line(format!("creator: {:08x}", h.creator.to_u32()));
    line(format!("attributes: 0x{:04x}", h.attributes));
    line(format!("version: {}", h.version));
    line(format!("ctime: {}", palm_to_unix(h.creation_date)));
    line(format!("mtime: {}", palm_to_unix(h.modification_date)));
    line(format!("baktime: {}", palm_to_unix(h.last_backup_date)));
    line(format!("modnum: {}", h.modification_number));
    line(format!("uniqueIDseed: 0x{:08x}", h.unique_id_seed));
    line(format!("appinfo: {}", block(db.app_info.as_deref())));
    line(format!("sortinfo: {}", block(db.sort_info.as_deref())));
    match &db.content {
        Content::Resources(resources) => {
            for r in resources {
                line(format!(
                    "resource {:08x} {} {}",
                    r.kind.to_u32(),
                    r.id,
                    block(Some(&r.data))
                ));
            }
        }
        Content::Records(records) => {
            for r in records {
                line(format!(
                    "record 0x{:02x} 0x{:06x} {}",
                    r.attributes,
                    r.unique_id,
                    block(Some(&r.data))
                ));
            }
        }
    }
    out
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

fn resource(kind: &[u8; 4], id: u16, data: Vec<u8>) -> Resource {
    Resource {
        kind: FourCC::new(*kind),
        id,
        data,
    }
}

fn record(attributes: u8, unique_id: u32, data: &[u8]) -> Record {
    Record {
        attributes,
        unique_id,
        data: data.to_vec(),
    }
}

/// An application-like PRC: several types, IDs 0-65535, sizes 0-1000, an
/// unprintable type code, an AppInfo block, and an empty last resource.
fn our_prc() -> Database {
    let mut header = Header::new("MemDbg Interop PRC", app::APPL, FourCC::new(*b"MDbg"));
    header.attributes = hdr_attr::BACKUP | hdr_attr::OK_TO_INSTALL_NEWER | hdr_attr::HIDDEN;
    header.version = 3;
    header.creation_date = unix_to_palm(1_700_000_000).unwrap();
    header.modification_date = unix_to_palm(1_700_000_060).unwrap();
    header.modification_number = 7;
    header.unique_id_seed = 0x00AB_C000;
    let code1: Vec<u8> = (0..300u32).map(|i| (i * 7) as u8).collect();
    let bitmap: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
    let mut db = Database::new_resources(
        header,
        vec![
            resource(b"code", 0, app::code0(app::CODE0_ABOVE_A5, 16)),
            resource(b"code", 1, code1),
            resource(b"data", 0, app::data0_no_globals()),
            resource(
                b"pref",
                0,
                app::pref0(
                    app::PREF0_DEFAULT_PRIORITY,
                    app::PREF0_DEFAULT_STACK_SIZE,
                    app::PREF0_DEFAULT_MIN_HEAP,
                ),
            ),
            resource(b"tAIN", app::AIN_ID, app::tain("Interop").unwrap()),
            resource(b"tver", app::APP_VERSION_ID, app::tver("0.1").unwrap()),
            resource(b"tSTR", 1000, vec![]),
            resource(b"tSTR", 1001, b"x\0".to_vec()),
            resource(b"Tbmp", 1000, bitmap),
            resource(&[0x00, 0x01, 0xFE, 0xFF], 65535, vec![1, 2, 3, 4, 5]),
            resource(b"tSTR", 0, vec![]),
        ],
    );
    db.app_info = Some(b"PRC app info".to_vec());
    db
}

/// A MemDbgDB-like PDB: AppInfo and SortInfo blocks, records with every
/// attribute bit and categories 0-15, unique IDs 0-0xFFFFFF, an empty record.
/// Records with Delete or Busy keep only the archive bit (0x08) in the low
/// nibble, the part of the byte that Palm::PDB keeps for them.
fn our_pdb() -> Database {
    let mut header = Header::new(
        "MemDbgDB interop",
        FourCC::new(*b"DATA"),
        FourCC::new(*b"MDbg"),
    );
    header.attributes = hdr_attr::BACKUP;
    header.version = 1;
    header.creation_date = 0xB492_F400;
    header.modification_date = u32::MAX;
    header.last_backup_date = 1;
    header.modification_number = 0x0102_0304;
    header.unique_id_seed = 0x00FF_F000;
    let mut db = Database::new_records(
        header,
        vec![
            record(0, 1, b"first"),
            record(rec_attr::DIRTY | 3, 0x00_0102, &[0xDE, 0xAD, 0xBE, 0xEF]),
            record(rec_attr::SECRET | 15, 0xFF_FFFF, b"secret"),
            record(rec_attr::DIRTY, 0, b""),
            record(rec_attr::DELETE | 0x08, 0x12_3456, b"deleted, archived"),
            record(rec_attr::BUSY | 0x08, 7, b"busy"),
            record(
                rec_attr::DELETE | rec_attr::DIRTY | rec_attr::BUSY | rec_attr::SECRET,
                8,
                b"all",
            ),
        ],
    );
    db.app_info = Some((0..50).collect());
    db.sort_info = Some(vec![0, 1, 2, 3]);
    db
}

#[test]
fn palm_pdb_reads_our_prc_like_we_do() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = our_prc().to_bytes().unwrap();
    common::check_seed("ours.prc", &bytes);
    let path = write_file(dir.path(), "ours.prc", &bytes);
    let theirs = perl(&[&script("dump.pl"), &path]);
    assert_eq!(theirs, render(&bytes));
    // Spot checks that the shared rendering holds what we meant to write.
    assert!(theirs.contains("name: MemDbg Interop PRC\n"), "{theirs}");
    assert!(theirs.contains("attributes: 0x0119\n"), "{theirs}");
    assert!(theirs.contains("resource 636f6465 0 24 bytes 00000028000000100000000800000020"));
    assert!(
        theirs.contains("resource 74535452 1000 0 bytes \n"),
        "{theirs}"
    );
    assert!(
        theirs.contains("resource 0001feff 65535 5 bytes 0102030405\n"),
        "{theirs}"
    );
    assert!(
        theirs.ends_with("resource 74535452 0 0 bytes \n"),
        "{theirs}"
    );
    assert_eq!(
        theirs
            .lines()
            .filter(|l| l.starts_with("resource "))
            .count(),
        11
    );
}

#[test]
fn palm_pdb_reads_our_pdb_like_we_do() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = our_pdb().to_bytes().unwrap();
    common::check_seed("ours.pdb", &bytes);
    let path = write_file(dir.path(), "ours.pdb", &bytes);
    let theirs = perl(&[&script("dump.pl"), &path]);
    assert_eq!(theirs, render(&bytes));
    assert!(theirs.contains("ctime: 946684800\n"), "{theirs}");
    assert!(theirs.contains("mtime: 2212122495\n"), "{theirs}");
    assert!(theirs.contains("sortinfo: 4 bytes 00010203\n"), "{theirs}");
    assert!(
        theirs.contains("record 0x1f 0xffffff 6 bytes 736563726574\n"),
        "{theirs}"
    );
    assert!(
        theirs.contains("record 0x40 0x000000 0 bytes \n"),
        "{theirs}"
    );
    assert!(
        theirs.ends_with("record 0xf0 0x000008 3 bytes 616c6c\n"),
        "{theirs}"
    );
}

/// Writes the two databases of tests/write.pl and returns their bytes.
fn perl_written() -> (Vec<u8>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let prc = dir.path().join("perl.prc");
    let pdb = dir.path().join("perl.pdb");
    perl(&[
        &script("write.pl"),
        prc.to_str().unwrap(),
        pdb.to_str().unwrap(),
    ]);
    (std::fs::read(prc).unwrap(), std::fs::read(pdb).unwrap())
}

#[test]
fn we_read_a_prc_written_by_palm_pdb() {
    let (bytes, _) = perl_written();
    common::check_seed("perl.prc", &bytes);
    let mut header = Header::new("Perl PRC", app::APPL, FourCC::new(*b"PlWr"));
    header.attributes = hdr_attr::RES_DB | hdr_attr::BACKUP;
    header.version = 2;
    header.creation_date = unix_to_palm(1_000_000_000).unwrap();
    header.modification_date = unix_to_palm(1_000_000_060).unwrap();
    header.last_backup_date = unix_to_palm(1_000_000_120).unwrap();
    header.modification_number = 5;
    header.unique_id_seed = 0x00AB_C000;
    let mut expected = Database::new_resources(
        header,
        vec![
            resource(b"code", 0, vec![0, 0, 0, 0x28]),
            resource(b"tSTR", 1000, vec![]),
            resource(b"tver", 1, b"9.9\0".to_vec()),
        ],
    );
    expected.app_info = Some(vec![1, 2, 3]);
    assert_eq!(Database::parse(&bytes), Ok(expected.clone()));
    // Palm::PDB lays the file out exactly as we do.
    assert_eq!(expected.to_bytes().unwrap(), bytes);
}

#[test]
fn we_read_a_pdb_written_by_palm_pdb() {
    let (_, bytes) = perl_written();
    common::check_seed("perl.pdb", &bytes);
    let mut header = Header::new("Perl PDB", FourCC::new(*b"DATA"), FourCC::new(*b"PlWr"));
    header.attributes = hdr_attr::BACKUP | hdr_attr::OK_TO_INSTALL_NEWER;
    header.version = 1;
    header.creation_date = unix_to_palm(1_100_000_000).unwrap();
    header.modification_date = unix_to_palm(1_100_000_001).unwrap();
    header.last_backup_date = unix_to_palm(1_100_000_002).unwrap();
    header.modification_number = 9;
    header.unique_id_seed = 0x00AB_D000;
    let mut expected = Database::new_records(
        header,
        vec![
            record(rec_attr::DIRTY | 3, 1, &[0x00, 0xFF]),
            record(rec_attr::SECRET | 15, 0xFE_DCBA, b"secret"),
            // Written first by the script, moved last by Palm::PDB.
            record(rec_attr::DELETE | 8, 3, b"gone"),
        ],
    );
    expected.app_info = Some(b"app info".to_vec());
    expected.sort_info = Some(b"sort".to_vec());
    assert_eq!(Database::parse(&bytes), Ok(expected.clone()));
    assert_eq!(expected.to_bytes().unwrap(), bytes);
    // And Palm::PDB's own reading of its file matches ours.
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "again.pdb", &bytes);
    assert_eq!(perl(&[&script("dump.pl"), &path]), render(&bytes));
}
