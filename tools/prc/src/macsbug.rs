//! MacsBug symbols: the function names 68k Palm OS code carries after each
//! function's last instruction, which POSE, CloudpilotEmu and MacsBug show in
//! stack crawls and logs (PALM_FACTS §1.7).
//!
//! The format, as POSE reads it (`cloudpilot-emu/pose-sony:
//! SrcShared/EmPalmFunction.cpp`, `EndOfFunctionSequence`, `GetMacsbugInfo`,
//! `MacsbugNameLength`, `ValidMacsbugChar`):
//!
//! - A function ends with an **end-of-function sequence**: `RTS` (0x4E75,
//!   unless the word 6 bytes before it is 0x0697, `ADDI.L #x,(A7)`, which
//!   CodeWarrior's 32-bit jump uses), `RTE` (0x4E73), `JMP (A0)` (0x4ED0) or
//!   `RTD` (0x4E74).
//! - Right after it comes the name, in one of three forms:
//!   - **variable length**: a length byte 0x80 | n (n = 1–31), or 0x80 and a
//!     second byte n (n = 1–255); the n characters; a pad byte if the length
//!     byte(s) and name end on an odd offset; then a big-endian word giving
//!     the size of the constant data that follows (0 here), itself padded to
//!     even;
//!   - **fixed 8**: 8 characters, the first one 0x20–0x7F (its high bit may
//!     be set), the second without the high bit, spaces padding the name;
//!   - **fixed 16**: 16 characters, the second one with its high bit set.
//!
//!   A first byte below 0x20 means there is no name.
//! - Every character, its high bit cleared, is one of `[A-Za-z0-9_%.]`; a
//!   name with any other character is no name at all.
//!
//! [`encode`] writes the variable-length form (what palm-build emits);
//! [`decode`] and [`function_name`] read all three forms as POSE does, from a
//! code resource's bytes, and never panic. Offsets are from the start of the
//! code resource, which the OS places at an even address, so even offsets
//! are even addresses.

/// `RTS`.
pub const RTS: u16 = 0x4E75;
/// `RTE`.
pub const RTE: u16 = 0x4E73;
/// `RTD` (68010 and later; POSE accepts it as an end of function).
pub const RTD: u16 = 0x4E74;
/// `JMP (A0)`.
pub const JMP_A0: u16 = 0x4ED0;
/// `ADDI.L #x,(A7)`: an `RTS` 6 bytes after it is CodeWarrior's 32-bit jump,
/// not an end of function.
const ADDI_L_TO_SP: u16 = 0x0697;

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

/// Whether `c` (its high bit cleared) may appear in a MacsBug name:
/// `[A-Za-z0-9_%.]` (POSE's `ValidMacsbugChar`).
pub fn is_name_char(c: u8) -> bool {
    let c = c & 0x7F;
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'%' | b'.')
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

fn word(code: &[u8], at: usize) -> Option<u16> {
    let b = code.get(at..at.checked_add(2)?)?;
    Some(u16::from_be_bytes([b[0], b[1]]))
}

/// Whether the word at `at` is an end-of-function sequence (POSE's
/// `EndOfFunctionSequence`): `RTS` not 6 bytes after `ADDI.L #x,(A7)`, `RTE`,
/// `JMP (A0)` or `RTD`. False when `at + 2` is past the end of `code`.
pub fn is_end_of_function(code: &[u8], at: usize) -> bool {
    match word(code, at) {
        Some(RTS) => at
            .checked_sub(6)
            .and_then(|before| word(code, before))
            .is_none_or(|w| w != ADDI_L_TO_SP),
        Some(RTE | JMP_A0 | RTD) => true,
        _ => false,
    }
}

/// The MacsBug symbol at `at`, the offset just after an end-of-function
/// sequence (POSE's `GetMacsbugInfo`), or `None` when there is none there: a
/// first byte below 0x20, an empty name, a character [`is_name_char`]
/// refuses (for the fixed forms, anything but spaces after the first space),
/// or a symbol that runs past the end of `code`.
pub fn decode(code: &[u8], at: usize) -> Option<Symbol> {
    let first = *code.get(at)?;
    if first < 0x20 {
        return None;
    }
    let (len, fixed, name_at) = match first & 0x7F {
        0 => (usize::from(*code.get(at + 1)?), false, at + 2),
        n if n < 0x20 => (usize::from(n), false, at + 1),
        _ if code.get(at + 1)? & 0x80 == 0 => (8, true, at),
        _ => (16, true, at),
    };
    let raw = code.get(name_at..name_at + len)?;
    let mut name = String::with_capacity(len);
    for (i, &b) in raw.iter().enumerate() {
        let c = b & 0x7F;
        if fixed && c == b' ' {
            if raw[i..].iter().any(|&b| b & 0x7F != b' ') {
                return None;
            }
            break;
        }
        if !is_name_char(c) {
            return None;
        }
        name.push(char::from(c));
    }
    if name.is_empty() {
        return None;
    }
    let mut end = name_at + len;
    if !fixed {
        end += end % 2;
        let data = usize::from(word(code, end)?);
        end += data + 2;
        end += end % 2;
    }
    Some(Symbol {
        name,
        start: at,
        end,
    })
}

/// The MacsBug symbol of the function containing offset `addr` (a return
/// address, say), found as POSE's `FindFunctionName` does: the first
/// end-of-function sequence at or after `addr`, in steps of 2 bytes, then
/// [`decode`] right after it. `None` when `addr` is odd, no end-of-function
/// sequence follows before the end of `code`, or the first one found is not
/// followed by a valid symbol (POSE then shows no name either: an earlier
/// `RTS` inside the function hides the name at its end).
pub fn function_name(code: &[u8], addr: usize) -> Option<Symbol> {
    if addr % 2 == 1 {
        return None;
    }
    let eof = (addr..code.len().saturating_sub(1))
        .step_by(2)
        .find(|&a| is_end_of_function(code, a))?;
    decode(code, eof + 2)
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
