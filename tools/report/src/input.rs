//! Reading a ledger from a file: a `.pdb` (POSE "Export Database…", `palm-run
//! --export`) or a CloudpilotEmu backup `.zip` ("Save backup", `save-backup`),
//! told apart by their first bytes, not by the file name. Every input file
//! (ledgers, ELFs, suppression files) is read through [`read_file`]: regular
//! files only, up to a size limit, so a device or a FIFO given by mistake is
//! an error instead of an endless read.

use std::io::{Cursor, Read};
use std::path::Path;

use memdbg::record;
use palm_prc::{Database, FourCC};

use crate::text::num;
use crate::{InputError, Ledger};

/// Largest ledger file read: 64 MiB. A MemDbgDB `.pdb` is at most a few MB
/// (it lives in a Palm storage heap), and so is a CloudpilotEmu backup.
pub const MAX_LEDGER_FILE: u64 = 64 << 20;

/// Largest ELF read: 64 MiB (a Palm app's code 1 is under 64 KB; its DWARF
/// makes the ELF a few MB).
pub const MAX_ELF_FILE: u64 = 64 << 20;

/// Largest suppression file read: 16 MiB.
pub const MAX_SUPPRESSION_FILE: u64 = 16 << 20;

/// Largest zip member read (a Palm storage heap is a few MB; this bounds what a
/// hostile archive can make us inflate).
const MAX_MEMBER: u64 = 64 << 20;

/// Most member names an error message lists; the others are counted.
const LISTED: usize = 10;

/// `names` for a message: `a, b, c`, or when there are more than [`LISTED`],
/// the first of them and `and 19,990 more`.
fn list_names<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let n = names.len();
    let first: Vec<&str> = names.take(LISTED).collect();
    if n > LISTED {
        format!("{} and {} more", first.join(", "), num((n - LISTED) as u64))
    } else {
        first.join(", ")
    }
}

/// What a non-regular file is, in words.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Reads `path`, `what` it should be (for messages, e.g. "a MemDbgDB .pdb"):
/// only a regular file (checked before it is opened, so a FIFO does not block)
/// of at most `limit` bytes (checked before and while reading).
///
/// # Errors
/// The file cannot be read, is not a regular file, or is larger than `limit`;
/// the error names the file.
pub(crate) fn read_file(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, InputError> {
    let name = path.display().to_string();
    let cannot = |e: std::io::Error| InputError::whole(&name, format!("cannot read: {e}"));
    let too_large = |size: u64| {
        InputError::whole(
            &name,
            format!(
                "{size} bytes or more, larger than the {} MiB limit for {what}",
                limit >> 20
            ),
        )
    };
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(InputError::whole(
            &name,
            format!(
                "{}, not {what}: only regular files are read",
                file_kind(&meta)
            ),
        ));
    }
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut data = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit + 1)
        .read_to_end(&mut data)
        .map_err(cannot)?;
    if data.len() as u64 > limit {
        return Err(too_large(data.len() as u64));
    }
    Ok(data)
}

/// Reads a ledger file's bytes (`.pdb` or backup `.zip`) with the checks of
/// [`read_ledger`], without decoding them.
///
/// # Errors
/// The file cannot be read, is not a regular file, or is larger than
/// [`MAX_LEDGER_FILE`].
pub fn read_ledger_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    read_file(
        path,
        MAX_LEDGER_FILE,
        "a MemDbgDB .pdb or a CloudpilotEmu backup .zip",
    )
}

/// Reads and decodes the ledger in `path` (`.pdb` or backup `.zip`).
///
/// # Errors
/// The file cannot be read, is not a regular file, is larger than
/// [`MAX_LEDGER_FILE`], or [`ledger_from_bytes`] fails.
pub fn read_ledger(path: &Path) -> Result<Ledger, InputError> {
    read_ledger_member(path, None)
}

/// As [`read_ledger`]; in a backup `.zip`, `member` (a member's path as the
/// archive lists it, e.g. `a/MemDbgDB.pdb`) chooses the database when given
/// (see [`ledger_from_bytes_member`]).
///
/// # Errors
/// As [`read_ledger`] and [`ledger_from_bytes_member`].
pub fn read_ledger_member(path: &Path, member: Option<&str>) -> Result<Ledger, InputError> {
    let bytes = read_ledger_bytes(path)?;
    ledger_from_bytes_member(&bytes, &path.display().to_string(), member)
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
/// MemDbgDB's; anything else is decoded as a `.pdb`. An archive with more than
/// one such member is refused as ambiguous ([`ledger_from_bytes_member`]
/// chooses one).
///
/// # Errors
/// A broken archive, an archive without MemDbgDB or with several, or a
/// database that [`Ledger::from_pdb`] rejects.
pub fn ledger_from_bytes(bytes: &[u8], name: &str) -> Result<Ledger, InputError> {
    ledger_from_bytes_member(bytes, name, None)
}

/// As [`ledger_from_bytes`], with `member` choosing the database of a backup
/// `.zip` by its path in the archive (exactly as the archive lists it, e.g.
/// `a/MemDbgDB.pdb`; `memdbg … --member PATH`). `member` is for archives only.
///
/// # Errors
/// As [`ledger_from_bytes`]; `member` is given but `bytes` are not a zip
/// archive, or the archive has no member of that path.
pub fn ledger_from_bytes_member(
    bytes: &[u8],
    name: &str,
    member: Option<&str>,
) -> Result<Ledger, InputError> {
    if is_zip(bytes) {
        ledger_from_zip(bytes, name, member)
    } else if let Some(what) = palm_prc::foreign_format(bytes) {
        let give = match what {
            "an ELF file" => "an ELF file (the app's symbols), not a ledger: give it with --elf",
            "an ar archive (a static library)" => {
                "an ar archive (a static library), not a ledger: give"
            }
            _ => {
                "a coff-m68k (prc-tools) object file, not a ledger: a prc-tools build's linked \
                 coff-m68k file (the app before build-prc) goes with --elf, for function \
                 names; give"
            }
        };
        Err(InputError::at(
            name,
            0,
            format!(
                "{give}{} the ledger (MemDbgDB.pdb, or a backup .zip holding it) as the input: \
                 memdbg report MemDbgDB.pdb --elf APP.elf",
                if what == "an ELF file" { ", and" } else { "" }
            ),
        ))
    } else if let Some(m) = member {
        Err(InputError::whole(
            name,
            format!(
                "--member {m} chooses a member of a backup .zip, but this is not a zip archive"
            ),
        ))
    } else {
        Ledger::from_pdb(bytes, name)
    }
}

fn ledger_from_zip(bytes: &[u8], name: &str, member: Option<&str>) -> Result<Ledger, InputError> {
    let bad = |e: zip::result::ZipError| {
        InputError::whole(name, format!("not a readable zip archive: {e}"))
    };
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(bad)?;
    // The zip crate keeps one member per name; two databases under one name
    // would be read as one, silently. Such a name is refused where it could
    // be the ledger: the --member chosen, a MemDbgDB.pdb, or any .pdb when
    // the search by type and creator is needed.
    let dups: Vec<String> = duplicate_member_names(bytes)
        .into_iter()
        .filter(|n| n.to_ascii_lowercase().ends_with(".pdb"))
        .collect();
    let shared = |which: &[&String]| {
        InputError::whole(
            name,
            format!(
                "several members share the name {}: ambiguous, and --member cannot choose \
                 between them; save the backup again",
                list_names(which.iter().map(|s| s.as_str()))
            ),
        )
    };
    let names: Vec<String> = (0..archive.len())
        .map(|i| {
            archive
                .name_for_index(i)
                .and_then(Result::ok)
                .map(|n| n.into_owned())
                .unwrap_or_default()
        })
        .collect();
    let listed = || match names.len() {
        0 => "it is empty".to_string(),
        n if n > LISTED => format!(
            "it holds {} members: {}",
            num(n as u64),
            list_names(names.iter().map(String::as_str))
        ),
        _ => format!("it holds {}", list_names(names.iter().map(String::as_str))),
    };
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
    let ambiguous = |found: &[usize], what: &str| {
        InputError::whole(
            name,
            format!(
                "{} members are {what} ({}): ambiguous; choose one with --member PATH",
                num(found.len() as u64),
                list_names(found.iter().map(|&i| names[i].as_str()))
            ),
        )
    };
    if let Some(m) = member {
        if let Some(d) = dups.iter().find(|d| *d == m) {
            return Err(shared(&[d]));
        }
        let found: Vec<usize> = (0..names.len()).filter(|&i| names[i] == m).collect();
        return match found[..] {
            [] => Err(InputError::whole(
                name,
                format!("no member {m} in this backup ({})", listed()),
            )),
            [i] => {
                let data = read_member(i)?;
                Ledger::from_pdb(&data, &format!("{name} ({m})"))
            }
            _ => Err(ambiguous(&found, &format!("named {m}"))),
        };
    }
    let wanted = format!("{}.pdb", record::DB_NAME).to_ascii_lowercase();
    let ledgers: Vec<&String> = dups.iter().filter(|d| base(d) == wanted).collect();
    if !ledgers.is_empty() {
        return Err(shared(&ledgers));
    }
    let found: Vec<usize> = (0..names.len())
        .filter(|&i| base(&names[i]) == wanted)
        .collect();
    match found[..] {
        [i] => {
            let data = read_member(i)?;
            return Ledger::from_pdb(&data, &format!("{name} ({})", names[i]));
        }
        [] => {}
        _ => return Err(ambiguous(&found, &format!("{}.pdb", record::DB_NAME))),
    }
    // Renamed on the way out? Any database with MemDbgDB's type and creator.
    if !dups.is_empty() {
        return Err(shared(&dups.iter().collect::<Vec<_>>()));
    }
    let (want_type, want_creator) = (
        FourCC::from_u32(record::DB_TYPE),
        FourCC::from_u32(record::DB_CREATOR),
    );
    let mut found = Vec::new();
    for (i, n) in names.iter().enumerate() {
        if !base(n).ends_with(".pdb") {
            continue;
        }
        let data = read_member(i)?;
        if let Ok(db) = Database::parse(&data)
            && db.header.kind == want_type
            && db.header.creator == want_creator
        {
            found.push((i, data));
        }
    }
    match &found[..] {
        [(i, data)] => Ledger::from_pdb(data, &format!("{name} ({})", names[*i])),
        [] => Err(InputError::whole(
            name,
            format!(
                "no {}.pdb in this backup ({}); CloudpilotEmu skips open databases, so \
                 save the backup with the launcher in front",
                record::DB_NAME,
                listed()
            ),
        )),
        _ => {
            let at: Vec<usize> = found.iter().map(|(i, _)| *i).collect();
            Err(ambiguous(
                &at,
                &format!("databases of type {want_type} and creator {want_creator}"),
            ))
        }
    }
}

/// Names that more than one entry of a zip archive's central directory
/// carries (PKWARE APPNOTE 4.3.12 central directory header, 4.3.16 end of
/// central directory record). Best effort: an archive this scan cannot
/// follow (zip64 counts, a truncated directory) yields what it read so far;
/// the zip crate reports broken archives itself.
fn duplicate_member_names(bytes: &[u8]) -> Vec<String> {
    const EOCD: &[u8] = b"PK\x05\x06";
    const CDH: &[u8] = b"PK\x01\x02";
    let u16_at = |at: usize| -> Option<usize> {
        Some(usize::from(u16::from_le_bytes(
            bytes.get(at..at + 2)?.try_into().ok()?,
        )))
    };
    let u32_at = |at: usize| -> Option<usize> {
        usize::try_from(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?)).ok()
    };
    // The record is 22 bytes plus a comment of up to 65,535.
    let from = bytes.len().saturating_sub(22 + 65_535);
    let Some(eocd) = bytes[from..]
        .windows(4)
        .rposition(|w| w == EOCD)
        .map(|i| from + i)
    else {
        return Vec::new();
    };
    let (Some(total), Some(mut at)) = (u16_at(eocd + 10), u32_at(eocd + 16)) else {
        return Vec::new();
    };
    let mut seen = std::collections::BTreeMap::<Vec<u8>, usize>::new();
    for _ in 0..total {
        if bytes.get(at..at + 4) != Some(CDH) {
            break;
        }
        let (Some(n), Some(extra), Some(comment)) =
            (u16_at(at + 28), u16_at(at + 30), u16_at(at + 32))
        else {
            break;
        };
        let Some(name) = bytes.get(at + 46..at + 46 + n) else {
            break;
        };
        *seen.entry(name.to_vec()).or_default() += 1;
        at += 46 + n + extra + comment;
    }
    seen.into_iter()
        .filter(|(_, count)| *count > 1)
        .map(|(n, _)| String::from_utf8_lossy(&n).into_owned())
        .collect()
}
