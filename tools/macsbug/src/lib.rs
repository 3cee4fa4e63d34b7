//! Reading MacsBug symbols: the function names 68k Palm OS code carries after
//! each function's last instruction, which POSE, CloudpilotEmu and MacsBug
//! show in stack crawls and logs (PALM_FACTS §1.7). `no_std` and without
//! allocation, so that the host tools (through `palm_prc::macsbug`, which
//! also writes them) and MemDbg Viewer on the 68k read them with the same
//! code.
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
//!     the size of the constant data that follows, itself padded to even;
//!   - **fixed 8**: 8 characters, the first one 0x20–0x7F (its high bit may
//!     be set), the second without the high bit, spaces padding the name;
//!   - **fixed 16**: 16 characters, the second one with its high bit set.
//!
//!   A first byte below 0x20 means there is no name.
//! - Every character, its high bit cleared, is one of `[A-Za-z0-9_%.]`; a
//!   name with any other character is no name at all.
//!
//! [`decode`] and [`function_name`] read all three forms from a code
//! resource's bytes and never panic. Offsets are from the start of the code
//! resource, which the OS places at an even address, so even offsets are
//! even addresses.

#![no_std]
#![deny(missing_docs)]

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

/// Whether `c` (its high bit cleared) may appear in a MacsBug name:
/// `[A-Za-z0-9_%.]` (POSE's `ValidMacsbugChar`).
pub fn is_name_char(c: u8) -> bool {
    let c = c & 0x7F;
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'%' | b'.')
}

/// A MacsBug symbol found in code: where it is and where its characters
/// are, as offsets in the code resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Offset of the symbol's first byte (just after the end-of-function
    /// sequence).
    pub start: usize,
    /// Offset of the name's first character.
    pub name_at: usize,
    /// Characters of the name (1 to 255; a fixed form's without its padding
    /// spaces).
    pub len: usize,
    /// Offset just past the symbol and its constant data: where POSE expects
    /// the next function to start (even when `start` is).
    pub end: usize,
}

impl Symbol {
    /// The name's characters in `code` (the code it was found in), high bits
    /// cleared.
    pub fn chars<'a>(&self, code: &'a [u8]) -> impl Iterator<Item = u8> + 'a {
        code[self.name_at..self.name_at + self.len]
            .iter()
            .map(|&b| b & 0x7F)
    }
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
    let (room, fixed, name_at) = match first & 0x7F {
        0 => (usize::from(*code.get(at.checked_add(1)?)?), false, at + 2),
        n if n < 0x20 => (usize::from(n), false, at + 1),
        _ if code.get(at.checked_add(1)?)? & 0x80 == 0 => (8, true, at),
        _ => (16, true, at),
    };
    let raw = code.get(name_at..name_at.checked_add(room)?)?;
    let mut len = 0;
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
        len += 1;
    }
    if len == 0 {
        return None;
    }
    let mut end = name_at + room;
    if !fixed {
        end += end % 2;
        let data = usize::from(word(code, end)?);
        end += data + 2;
        end += end % 2;
    }
    Some(Symbol {
        start: at,
        name_at,
        len,
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
    fn a_symbol_says_where_its_characters_are() {
        // RTS, 0x80 | 4, "main", a pad byte, the constant-data word 0.
        let code = b"\x4E\x75\x84main\x00\x00\x00\x4E\x56";
        let s = function_name(code, 0).unwrap();
        assert_eq!(
            s,
            Symbol {
                start: 2,
                name_at: 3,
                len: 4,
                end: 10
            }
        );
        assert!(s.chars(code).eq(*b"main"));
        // The long form: 0x80, then the length.
        let mut long = b"\x4E\x75\x80\x20".to_vec();
        long.extend([b'a' | 0x80; 32]);
        long.extend([0, 0]);
        let s = function_name(&long, 0).unwrap();
        assert_eq!((s.name_at, s.len, s.end), (4, 32, 38));
        assert!(s.chars(&long).all(|c| c == b'a'));
    }

    #[test]
    fn a_fixed_form_leaves_its_padding_out() {
        let code = b"\x4E\x75\xC4oIt    ";
        let s = decode(code, 2).unwrap();
        assert_eq!((s.name_at, s.len, s.end), (2, 4, 10));
        assert!(s.chars(code).eq(*b"DoIt"));
    }

    #[test]
    fn offsets_near_the_end_never_panic() {
        for at in [usize::MAX - 1, usize::MAX] {
            assert_eq!(decode(b"\x80", at), None);
            assert_eq!(function_name(b"\x4E\x75", at), None);
        }
        assert_eq!(decode(b"\x80", 0), None);
        assert_eq!(decode(b"A", 0), None);
    }
}
