//! The one-string resources `tSTR`, `tver`, `tAIN`, and `APPL`.
//!
//! Types and well-known IDs from the Palm OS 3.5 SDK (`jichu4n/palm-os-sdk`,
//! `sdk-3.5/include/Core/UI/UIResources.h`: `strRsc` `tSTR`, `verRsc` `tver`
//! with `appVersionID` 1, `ainRsc` `tAIN` with `ainID` 1000). Contents as PilRC
//! writes them for 68k (`jichu4n/pilrc:pilrc.c` `ParseDumpString`,
//! `ParseDumpVersion`, `ParseDumpApplicationIconName`, `ParseDumpApplication`):
//!
//! | type | content |
//! |---|---|
//! | `tSTR` | the text and its NUL |
//! | `tver` | the version text and its NUL |
//! | `tAIN` | the launcher name and its NUL, padded with a 0 to an even length |
//! | `APPL` | exactly the four creator bytes, no NUL |
//! | `tSTL` | the prefix and its NUL, the string count (`UInt16`), each string and its NUL (`ParseDumpStringTable`; read by `SysStringByIndex`, SDK `SystemMgr.h`) |
//! | `tAIS` | the category names (`CATEGORIES`), each cut to 15 bytes and NUL-terminated, then one NUL for each of the `dmRecNumCategories` (16) names not given (`ParseDumpCategories`; SDK `UIResources.h` `appInfoStringsRsc`, `DataMgr.h` `dmCategoryLength` 16; read by `CategoryInitialize`) |

use crate::bytes::{Reader, Writer, check_text};
use crate::error::{EncodeError, ParseError};

/// `appVersionID`: the ID of the `tver` the launcher shows.
pub const APP_VERSION_ID: u16 = 1;
/// `ainID`: the ID of the `tAIN` the launcher shows.
pub const AIN_ID: u16 = 1000;

/// Which one-string resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// `tSTR`: a string (`STRING`).
    String,
    /// `tver`: the application version (`VERSION`).
    Version,
    /// `tAIN`: the name the launcher shows (`APPLICATIONICONNAME`).
    IconName,
}

impl TextKind {
    /// The resource type.
    pub fn resource_type(self) -> [u8; 4] {
        match self {
            TextKind::String => *b"tSTR",
            TextKind::Version => *b"tver",
            TextKind::IconName => *b"tAIN",
        }
    }

    fn name(self) -> &'static str {
        match self {
            TextKind::String => "tSTR",
            TextKind::Version => "tver",
            TextKind::IconName => "tAIN",
        }
    }
}

/// Encodes a `tSTL` string table (`STRINGTABLE`): `prefix`, then `strings`.
/// Fails when a text contains a NUL byte or there are more than 65,535 strings.
pub fn encode_string_table(prefix: &[u8], strings: &[Vec<u8>]) -> Result<Vec<u8>, EncodeError> {
    check_text(prefix, "string table prefix")?;
    let mut w = Writer::default();
    w.cstr(prefix);
    w.u16(crate::bytes::count_u16(
        strings.len(),
        "strings in a string table",
    )?);
    for s in strings {
        check_text(s, "string table entry")?;
        w.cstr(s);
    }
    Ok(w.out)
}

/// Parses a `tSTL`: its prefix and its strings (Palm characters, no NULs).
/// A missing NUL or a truncated table is a [`ParseError`].
pub fn parse_string_table(data: &[u8]) -> Result<(Vec<u8>, Vec<Vec<u8>>), ParseError> {
    let r = Reader::new(data, "tSTL");
    let prefix = r.cstr(0, "string table prefix has no NUL")?;
    let mut at = prefix.len() + 1;
    let count = r.u16(at, "string count")?;
    at += 2;
    let mut strings = Vec::new();
    for _ in 0..count {
        let s = r.cstr(at, "string table entry has no NUL")?;
        at += s.len() + 1;
        strings.push(s.to_vec());
    }
    Ok((prefix.to_vec(), strings))
}

/// `dmRecNumCategories`: the names an AppInfo block holds (SDK 3.5 `DataMgr.h`).
pub const MAX_CATEGORIES: usize = 16;
/// `dmCategoryLength`: a category name's bytes with its NUL (SDK 3.5 `DataMgr.h`).
pub const CATEGORY_LENGTH: usize = 16;

/// Encodes a `tAIS` of category `names` (longer names are cut to 15 bytes, as
/// PilRC cuts them; more than 16 names are all written, as PilRC does, which
/// warns). Fails when a name contains a NUL byte.
pub fn encode_categories(names: &[Vec<u8>]) -> Result<Vec<u8>, EncodeError> {
    let mut w = Writer::default();
    for name in names {
        check_text(name, "category name")?;
        w.cstr(&name[..name.len().min(CATEGORY_LENGTH - 1)]);
    }
    for _ in names.len()..MAX_CATEGORIES {
        w.cstr(b"");
    }
    Ok(w.out)
}

/// Encodes a `tSTR`, `tver` or `tAIN` holding `text` (Palm characters).
/// Fails when `text` contains a NUL byte.
pub fn encode_text(kind: TextKind, text: &[u8]) -> Result<Vec<u8>, EncodeError> {
    check_text(text, kind.name())?;
    let mut w = Writer::default();
    w.cstr(text);
    if kind == TextKind::IconName {
        w.pad_even();
    }
    Ok(w.out)
}

/// The text of a `tSTR`, `tver` or `tAIN`: the bytes before the first NUL.
/// A resource without a NUL is a [`ParseError`].
pub fn parse_text(kind: TextKind, data: &[u8]) -> Result<Vec<u8>, ParseError> {
    Ok(Reader::new(data, kind.name())
        .cstr(0, "text has no terminating NUL")?
        .to_vec())
}

/// Encodes an `APPL` resource: the four creator bytes.
pub fn encode_application(creator: [u8; 4]) -> Vec<u8> {
    creator.to_vec()
}

/// The creator of an `APPL` resource, which must be exactly 4 bytes long.
pub fn parse_application(data: &[u8]) -> Result<[u8; 4], ParseError> {
    <[u8; 4]>::try_from(data).map_err(|_| ParseError {
        resource: "APPL",
        offset: data.len().min(4),
        message: "an APPL resource is exactly 4 bytes",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        assert_eq!(encode_text(TextKind::Version, b"1.0").unwrap(), b"1.0\0");
        assert_eq!(
            encode_text(TextKind::IconName, b"memdbg").unwrap(),
            b"memdbg\0\0"
        );
        assert_eq!(encode_text(TextKind::IconName, b"abc").unwrap(), b"abc\0");
        assert!(encode_text(TextKind::String, b"a\0").is_err());
        assert_eq!(
            parse_text(TextKind::IconName, b"memdbg\0\0").unwrap(),
            b"memdbg"
        );
        assert!(parse_text(TextKind::String, b"abc").is_err());
        assert_eq!(TextKind::Version.resource_type(), *b"tver");
    }

    #[test]
    fn categories() {
        let names = [b"Unfiled".to_vec(), b"A very long category".to_vec()];
        let data = encode_categories(&names).unwrap();
        let mut want = b"Unfiled\0A very long cat\0".to_vec();
        want.extend([0; 14]);
        assert_eq!(data, want);
        assert!(encode_categories(&[b"a\0b".to_vec()]).is_err());
    }

    #[test]
    fn application() {
        assert_eq!(parse_application(b"MDBG"), Ok(*b"MDBG"));
        assert!(parse_application(b"MDB").is_err());
        assert!(parse_application(b"MDBGX").is_err());
        assert_eq!(encode_application(*b"MDBG"), b"MDBG");
    }
}
