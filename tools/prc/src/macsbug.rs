//! MacsBug symbols: the function names 68k Palm OS code carries after each
//! function's last instruction, which POSE, CloudpilotEmu and MacsBug show in
//! stack crawls and logs (PALM_FACTS §1.7). The format, as POSE reads it, is
//! described in the `palm-macsbug` crate, which reads them (no_std, also
//! for MemDbg Viewer on the 68k); this module re-exports its constants and
//! its end-of-function and character checks.
//!
//! [`encode`] writes the variable-length form (what palm-build emits):
//! a length byte 0x80 | n (n = 1–31), or 0x80 and a second byte n (n =
//! 1–255), the n characters, a pad byte to an even length, and the
//! constant-data word 0. [`decode`] and [`function_name`] read all three
//! forms as POSE does, from a code resource's bytes, with the name as a
//! `String`, and never panic.

pub use palm_macsbug::{JMP_A0, RTD, RTE, RTS, is_end_of_function, is_name_char};

/// Longest name of the variable-length form, in characters.
pub const MAX_NAME_LEN: usize = 255;

/// Why a name cannot be written as a MacsBug symbol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name is empty (an empty name reads as "no name").
    #[error("a MacsBug name cannot be empty")]
    Empty,
    /// The name is longer than [`MAX_NAME_LEN`] characters.
    #[error("MacsBug name `{name}` is {len} characters long; at most {MAX_NAME_LEN} fit")]
    TooLong {
        /// The name.
        name: String,
        /// Its length in bytes.
        len: usize,
    },
    /// A character outside `[A-Za-z0-9_%.]`.
    #[error("MacsBug name `{name}` has {ch:?} at byte {index}: only A-Z a-z 0-9 _ % . are allowed")]
    BadChar {
        /// The name.
        name: String,
        /// The character.
        ch: char,
        /// Its byte offset in the name.
        index: usize,
    },
}

/// The variable-length MacsBug symbol for `name`, to place right after a
/// function's end-of-function sequence: length byte(s), the name, a zero pad
/// byte to an even length, and the constant-data word 0x0000. Its length is
/// always even, so what follows stays word-aligned.
///
/// # Errors
/// The name is empty, over [`MAX_NAME_LEN`] characters, or has a character
/// [`is_name_char`] refuses.
pub fn encode(name: &str) -> Result<Vec<u8>, NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    let len = u8::try_from(name.len()).map_err(|_| NameError::TooLong {
        name: name.to_string(),
        len: name.len(),
    })?;
    if let Some((index, ch)) = name
        .char_indices()
        .find(|&(_, c)| !c.is_ascii() || !is_name_char(c as u8))
    {
        return Err(NameError::BadChar {
            name: name.to_string(),
            ch,
            index,
        });
    }
    let mut out = Vec::with_capacity(name.len() + 5);
    // 1–31 characters fit in the length byte; longer names use 0x80, n.
    if len < 0x20 {
        out.push(0x80 | len);
    } else {
        out.extend([0x80, len]);
    }
    out.extend_from_slice(name.as_bytes());
    if out.len() % 2 == 1 {
        out.push(0);
    }
    out.extend([0, 0]);
    Ok(out)
}

/// A MacsBug symbol read from code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The name, high bits cleared, fixed-form padding spaces removed.
    pub name: String,
    /// Offset of the symbol's first byte (just after the end-of-function
    /// sequence).
    pub start: usize,
    /// Offset just past the symbol and its constant data: where POSE expects
    /// the next function to start (even when `start` is).
    pub end: usize,
}

/// The MacsBug symbol at `at`, the offset just after an end-of-function
/// sequence, with its name ([`palm_macsbug::decode`]): `None` when there is
/// none there.
pub fn decode(code: &[u8], at: usize) -> Option<Symbol> {
    palm_macsbug::decode(code, at).map(|s| named(code, s))
}

/// The MacsBug symbol of the function containing offset `addr` (a return
/// address, say), found as POSE's `FindFunctionName` does, with its name
/// ([`palm_macsbug::function_name`]): `None` when POSE shows no name.
pub fn function_name(code: &[u8], addr: usize) -> Option<Symbol> {
    palm_macsbug::function_name(code, addr).map(|s| named(code, s))
}

/// `s`, found in `code`, with its name.
fn named(code: &[u8], s: palm_macsbug::Symbol) -> Symbol {
    Symbol {
        name: s.chars(code).map(char::from).collect(),
        start: s.start,
        end: s.end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_take_one_length_byte_and_pad_to_even() {
        // 0x80 | 5, "alloc" = 6 bytes, even: no pad; then the data word.
        assert_eq!(encode("alloc").unwrap(), b"\x85alloc\x00\x00");
        // 0x80 | 4, "main" = 5 bytes: one pad byte.
        assert_eq!(encode("main").unwrap(), b"\x84main\x00\x00\x00");
        let long = "a".repeat(32);
        let bytes = encode(&long).unwrap();
        assert_eq!(&bytes[..2], &[0x80, 32]);
        assert_eq!(bytes.len(), 2 + 32 + 2);
        assert_eq!(encode(&"b".repeat(255)).unwrap().len(), 2 + 255 + 1 + 2);
    }

    #[test]
    fn refuses_names_pose_would_not_read() {
        assert_eq!(encode(""), Err(NameError::Empty));
        assert!(matches!(
            encode(&"x".repeat(256)),
            Err(NameError::TooLong { len: 256, .. })
        ));
        assert_eq!(
            encode("a::b").unwrap_err().to_string(),
            "MacsBug name `a::b` has ':' at byte 1: only A-Z a-z 0-9 _ % . are allowed"
        );
        assert!(matches!(
            encode("caf\u{e9}"),
            Err(NameError::BadChar { index: 3, .. })
        ));
    }

    #[test]
    fn reads_back_what_it_writes_after_an_rts() {
        for name in ["f", "memdbg.fast.alloc", &"Z".repeat(31), &"y".repeat(200)] {
            let mut code = vec![0x4E, 0x56, 0x00, 0x00, 0x4E, 0x5E, 0x4E, 0x75];
            code.extend(encode(name).unwrap());
            let next = code.len();
            code.extend([0x4E, 0x56, 0xFF, 0xFC, 0x4E, 0x75]);
            let sym = function_name(&code, 0).unwrap();
            assert_eq!(sym.name, name);
            assert_eq!((sym.start, sym.end), (8, next));
            assert_eq!(function_name(&code, 2), Some(sym.clone()));
            assert_eq!(function_name(&code, 1), None);
        }
    }

    #[test]
    fn reads_the_fixed_forms() {
        // Fixed 8: "DoIt" padded with spaces, high bit set on the first byte.
        let mut code = vec![
            0x4E,
            0x75,
            b'D' | 0x80,
            b'o',
            b'I',
            b't',
            b' ',
            b' ',
            b' ',
            b' ',
        ];
        assert_eq!(
            decode(&code, 2),
            Some(Symbol {
                name: "DoIt".into(),
                start: 2,
                end: 10
            })
        );
        // Anything but spaces after a space is no name.
        code[8] = b'x';
        assert_eq!(decode(&code, 2), None);
        // Fixed 16: the second byte has its high bit set.
        let mut code16 = b"AxCDEFGHIJKLMNOP".to_vec();
        code16[1] |= 0x80;
        assert_eq!(decode(&code16, 0).unwrap().name, "AxCDEFGHIJKLMNOP");
    }

    #[test]
    fn no_name_cases() {
        // A first byte below 0x20: no name (the next function's first word).
        assert_eq!(decode(&[0x10, 0x00], 0), None);
        // An empty variable-length name.
        assert_eq!(decode(&[0x80, 0x00, 0x00, 0x00], 0), None);
        // A name with a character POSE refuses.
        assert_eq!(decode(b"\x83a:b\x00\x00", 0), None);
        // Past the end.
        assert_eq!(decode(b"\x85abc", 0), None);
        assert_eq!(decode(b"\x83abc", 0), None);
        // The first RTS after the address decides, as in POSE.
        let mut code = vec![0x4E, 0x75, 0x20, 0x00, 0x4E, 0x75];
        code.extend(encode("late").unwrap());
        assert_eq!(function_name(&code, 0), None);
        assert_eq!(function_name(&code, 2).unwrap().name, "late");
    }

    #[test]
    fn an_rts_after_addi_l_to_sp_is_codewarriors_jump_not_an_end() {
        let code = [0x06, 0x97, 0x00, 0x00, 0x0C, 0xD2, 0x4E, 0x75];
        assert!(!is_end_of_function(&code, 6));
        assert!(is_end_of_function(&code[2..], 4));
        for w in [RTE, RTD, JMP_A0] {
            assert!(is_end_of_function(&w.to_be_bytes(), 0));
        }
        assert!(!is_end_of_function(&[0x4E], 0));
    }

    #[test]
    fn constant_data_is_skipped() {
        let code = b"\x83abc\x00\x03xyz\x00";
        assert_eq!(decode(code, 0).unwrap().end, 10);
    }
}
