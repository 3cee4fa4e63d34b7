//! Reading a ledger from a file: a `.pdb` (POSE "Export Database…", `palm-run
//! --export`) or a CloudpilotEmu backup `.zip` ("Save backup", `save-backup`),
//! told apart by their first bytes, not by the file name.

use std::io::{Cursor, Read};
use std::path::Path;

use memdbg::record;
use palm_prc::{Database, FourCC};

use crate::{InputError, Ledger};

/// Largest zip member read (a Palm storage heap is a few MB; this bounds what a
/// hostile archive can make us inflate).
const MAX_MEMBER: u64 = 64 << 20;

/// Reads and decodes the ledger in `path` (`.pdb` or backup `.zip`).
///
/// # Errors
/// The file cannot be read, or [`ledger_from_bytes`] fails.
pub fn read_ledger(path: &Path) -> Result<Ledger, InputError> {
    let name = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| InputError::whole(&name, format!("cannot read: {e}")))?;
    ledger_from_bytes(&bytes, &name)
}

/// Whether `bytes` start like a zip archive (a local file header, or the end
/// record of an empty archive).
pub fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// Decodes a ledger from a file's bytes; `name` names the file in errors.
///
/// A zip archive is searched for `MemDbgDB.pdb` (any folder, any letter
/// case), and failing that for any `.pdb` member whose type and creator are
/// MemDbgDB's; anything else is decoded as a `.pdb`.
///
/// # Errors
/// A broken archive, an archive without MemDbgDB, or a database that
/// [`Ledger::from_pdb`] rejects.
pub fn ledger_from_bytes(bytes: &[u8], name: &str) -> Result<Ledger, InputError> {
    if is_zip(bytes) {
        ledger_from_zip(bytes, name)
    } else {
        Ledger::from_pdb(bytes, name)
    }
}

fn ledger_from_zip(bytes: &[u8], name: &str) -> Result<Ledger, InputError> {
    let bad = |e: zip::result::ZipError| {
        InputError::whole(name, format!("not a readable zip archive: {e}"))
    };
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(bad)?;
    let names: Vec<String> = (0..archive.len())
        .map(|i| {
            archive
                .name_for_index(i)
                .and_then(Result::ok)
                .map(|n| n.into_owned())
                .unwrap_or_default()
        })
        .collect();
    let base = |n: &str| {
        n.rsplit(['/', '\\'])
            .next()
            .unwrap_or(n)
            .to_ascii_lowercase()
    };
    let mut read_member = |i: usize| -> Result<Vec<u8>, InputError> {
        let member = format!("{name} ({})", names[i]);
        let file = archive
            .by_index(i)
            .map_err(|e| InputError::whole(&member, format!("cannot read this zip member: {e}")))?;
        let mut data = Vec::new();
        file.take(MAX_MEMBER + 1)
            .read_to_end(&mut data)
            .map_err(|e| InputError::whole(&member, format!("cannot inflate: {e}")))?;
        if data.len() as u64 > MAX_MEMBER {
            return Err(InputError::whole(
                &member,
                format!("larger than {MAX_MEMBER} bytes: not a Palm database"),
            ));
        }
        Ok(data)
    };
    let wanted = format!("{}.pdb", record::DB_NAME).to_ascii_lowercase();
    if let Some(i) = names.iter().position(|n| base(n) == wanted) {
        let data = read_member(i)?;
        return Ledger::from_pdb(&data, &format!("{name} ({})", names[i]));
    }
    // Renamed on the way out? Any database with MemDbgDB's type and creator.
    let (want_type, want_creator) = (
        FourCC::from_u32(record::DB_TYPE),
        FourCC::from_u32(record::DB_CREATOR),
    );
    for (i, n) in names.iter().enumerate() {
        if !base(n).ends_with(".pdb") {
            continue;
        }
        let data = read_member(i)?;
        if let Ok(db) = Database::parse(&data)
            && db.header.kind == want_type
            && db.header.creator == want_creator
        {
            return Ledger::from_pdb(&data, &format!("{name} ({n})"));
        }
    }
    let listed = if names.is_empty() {
        "it is empty".to_string()
    } else {
        format!("it holds {}", names.join(", "))
    };
    Err(InputError::whole(
        name,
        format!(
            "no {}.pdb in this backup ({listed}); CloudpilotEmu skips open databases, so \
             save the backup with the launcher in front",
            record::DB_NAME
        ),
    ))
}
