//! MacsBug names in the recorded app's code 1, found as POSE finds them
//! (PALM_FACTS §1.7, from POSE's `EmPalmFunction.cpp`): from a return address,
//! the first end-of-function word at or after it (in steps of 2 bytes), then
//! the name right after that word. palm-build writes one after every
//! function (and after its early returns), so a frame of a ledger names its
//! function on the device, without the ELF. The host tools read them with
//! `palm_prc::macsbug`; the end-to-end test checks that both agree.

/// `RTS`.
const RTS: u16 = 0x4E75;
/// `RTE`.
const RTE: u16 = 0x4E73;
/// `JMP (A0)`.
const JMP_A0: u16 = 0x4ED0;
/// `RTD #d` (68010 on; POSE counts it).
const RTD: u16 = 0x4E74;
/// `ADDI.L #x,(A7)`: 6 bytes before an `RTS`, CodeWarrior's 32-bit jump
/// (`PEA; PEA; ADDI.L; RTS`), not an end of function.
const ADDI_L_TO_SP: u16 = 0x0697;

/// A name found in code: `len` bytes from `start` (each with its high bit
/// cleared, as MacsBug stores the fixed forms' first byte).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Name {
    /// Offset of the first character in code 1.
    pub start: u32,
    /// Characters (1 to 255).
    pub len: u32,
}

fn word(code: &[u8], at: usize) -> Option<u16> {
    match (code.get(at), code.get(at + 1)) {
        (Some(&hi), Some(&lo)) => Some(u16::from_be_bytes([hi, lo])),
        _ => None,
    }
}

/// Whether the word at `at` ends a function (POSE's `EndOfFunctionSequence`).
fn is_end_of_function(code: &[u8], at: usize) -> bool {
    match word(code, at) {
        Some(RTS) => at < 6 || word(code, at - 6) != Some(ADDI_L_TO_SP),
        Some(RTE | JMP_A0 | RTD) => true,
        _ => false,
    }
}

/// Whether `c` (high bit cleared) may be in a name: `[A-Za-z0-9_%.]`.
fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'%' || c == b'.'
}

/// The name of the symbol at `at` (just after an end of function; POSE's
/// `GetMacsbugInfo` and `MacsbugNameLength`): the variable-length form
/// (0x80–0x9F, or 0x80 then a length byte) or the fixed 8- and 16-character
/// forms (trailing spaces dropped). `None` for anything else.
fn decode(code: &[u8], at: usize) -> Option<Name> {
    let first = *code.get(at)?;
    if first < 0x20 {
        return None;
    }
    let (start, len, fixed) = match first & 0x7F {
        0 => (at + 2, usize::from(*code.get(at + 1)?), false),
        n if n < 0x20 => (at + 1, usize::from(n), false),
        _ if *code.get(at + 1)? & 0x80 == 0 => (at, 8, true),
        _ => (at, 16, true),
    };
    let raw = code.get(start..start + len)?;
    let mut chars = 0;
    let mut spaces = false;
    for &b in raw {
        let c = b & 0x7F;
        if fixed && c == b' ' {
            spaces = true;
        } else if spaces || !is_name_char(c) {
            return None;
        } else {
            chars += 1;
        }
    }
    if chars == 0 {
        return None;
    }
    Some(Name {
        start: start as u32,
        len: chars as u32,
    })
}

/// The MacsBug name of the function of `code` (code 1's bytes) that holds
/// offset `at` (a return address), or `None`: `at` odd, no end of function
/// after it, or no valid name after the first one (an early `RTS` without a
/// name hides the function's name, as in POSE).
pub fn function_name(code: &[u8], at: u32) -> Option<Name> {
    let mut i = at as usize;
    if i % 2 == 1 {
        return None;
    }
    while i + 2 <= code.len() {
        if is_end_of_function(code, i) {
            return decode(code, i + 2);
        }
        i += 2;
    }
    None
}
