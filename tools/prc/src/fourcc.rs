//! Four-character codes: database types, creators and resource types.

use core::fmt;
use core::str::FromStr;

/// A Palm four-character code (`'appl'`, `'code'`, a creator ID …): 4 bytes,
/// stored big-endian in files, i.e. in the order they are written.
///
/// Palm OS treats it as a `UInt32` (`DmResType`, the `type`/`creator` header
/// fields; `palm-os-sdk:sdk-3.5/include/Core/System/DataMgr.h`); the bytes are
/// usually printable ASCII but need not be.
///
/// - `Display` prints `'appl'` when all 4 bytes are printable ASCII
///   (0x20–0x7E, except `'`), otherwise `0x6170706C` (8 hex digits).
/// - `Debug` prints `FourCC('appl')` (or `FourCC(0x…)`).
/// - [`FromStr`] accepts `appl`, `'appl'` (4 ASCII bytes, quotes optional) and
///   `0x6170706C`, so `Display` output parses back to the same value.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct FourCC(pub [u8; 4]);

impl FourCC {
    /// The code with these 4 bytes, in file order: `FourCC::new(*b"appl")`.
    pub const fn new(bytes: [u8; 4]) -> Self {
        FourCC(bytes)
    }

    /// The code whose big-endian `UInt32` value is `value`, as Palm OS C code
    /// writes it (`'appl'` = 0x6170706C).
    pub const fn from_u32(value: u32) -> Self {
        FourCC(value.to_be_bytes())
    }

    /// The big-endian `UInt32` value of the code (`'appl'` → 0x6170706C).
    pub const fn to_u32(self) -> u32 {
        u32::from_be_bytes(self.0)
    }

    /// True if `Display` shows the code as `'xxxx'` rather than as hex.
    fn is_printable(self) -> bool {
        self.0
            .iter()
            .all(|&b| (0x20..=0x7E).contains(&b) && b != b'\'')
    }
}

impl fmt::Display for FourCC {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_printable() {
            let [a, b, c, d] = self.0.map(char::from);
            write!(f, "'{a}{b}{c}{d}'")
        } else {
            write!(f, "0x{:08X}", self.to_u32())
        }
    }
}

impl fmt::Debug for FourCC {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FourCC({self})")
    }
}

impl From<[u8; 4]> for FourCC {
    fn from(bytes: [u8; 4]) -> Self {
        FourCC(bytes)
    }
}

/// Why a string is not a [`FourCC`]: it is neither 4 ASCII bytes (optionally
/// in single quotes) nor `0x` followed by 8 hex digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{text:?} is not a four-character code: expected 4 ASCII characters (e.g. appl or 'appl') or 0x and 8 hex digits"
)]
pub struct ParseFourCCError {
    /// The rejected input.
    pub text: String,
}

impl FromStr for FourCC {
    type Err = ParseFourCCError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let error = || ParseFourCCError { text: s.to_owned() };
        if let Some(hex) = s.strip_prefix("0x") {
            if hex.len() != 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(error());
            }
            return u32::from_str_radix(hex, 16)
                .map(FourCC::from_u32)
                .map_err(|_| error());
        }
        let inner = s
            .strip_prefix('\'')
            .and_then(|rest| rest.strip_suffix('\''))
            .unwrap_or(s);
        match <[u8; 4]>::try_from(inner.as_bytes()) {
            Ok(bytes) if bytes.is_ascii() => Ok(FourCC(bytes)),
            _ => Err(error()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_debug() {
        assert_eq!(FourCC::new(*b"appl").to_string(), "'appl'");
        assert_eq!(format!("{:?}", FourCC::new(*b"tAIN")), "FourCC('tAIN')");
        assert_eq!(FourCC::new([0, 1, 2, 0xFF]).to_string(), "0x000102FF");
        assert_eq!(FourCC::new(*b"it's").to_string(), "0x69742773");
    }

    #[test]
    fn u32_conversions_are_big_endian() {
        assert_eq!(FourCC::new(*b"appl").to_u32(), 0x6170_706C);
        assert_eq!(FourCC::from_u32(0x636F_6465), FourCC::new(*b"code"));
        assert_eq!(FourCC::from(*b"pref"), FourCC::new(*b"pref"));
    }

    #[test]
    fn parse_accepts_plain_quoted_and_hex() {
        assert_eq!("appl".parse(), Ok(FourCC::new(*b"appl")));
        assert_eq!("'MDbg'".parse(), Ok(FourCC::new(*b"MDbg")));
        assert_eq!("0x000102FF".parse(), Ok(FourCC::new([0, 1, 2, 0xFF])));
        assert_eq!("a b ".parse(), Ok(FourCC::new(*b"a b ")));
    }

    #[test]
    fn parse_rejects_other_shapes() {
        for bad in ["app", "apple", "'app'", "0x1234", "0x1234567G", "äpl", ""] {
            let err = bad.parse::<FourCC>().unwrap_err();
            assert_eq!(err.text, bad);
        }
        assert_eq!(
            "abc".parse::<FourCC>().unwrap_err().to_string(),
            "\"abc\" is not a four-character code: expected 4 ASCII characters \
             (e.g. appl or 'appl') or 0x and 8 hex digits"
        );
    }
}
