//! The detector's messages, without `core::fmt` (its `dyn Write` vtable needs
//! absolute relocations, which a Palm code resource cannot have; TOOLCHAIN.md).
//!
//! A message is a NUL-terminated template of literal bytes and argument codes
//! ([`DEC`], [`HEX`], [`KIND`], [`STR`], [`THEN`]), each taking the next argument
//! from an array the caller filled (in the scratch chunk on the 68k, never on the
//! stack). One interpreter ([`format()`]) builds every message, into the scratch
//! message buffer ([`say`]): a call site costs its argument stores and one call, and
//! the templates are constant bytes in code 1. The output is always NUL-terminated
//! (for `ErrDisplayFileLineMsg` and `DbgMessage`); what does not fit is cut off.
//! Digits come from subtracting powers (no division: the 68000 has no 32-bit one).

use crate::state::{ARGS, MSG_LEN, State};

/// Code: the next argument in decimal.
pub const DEC: u8 = 1;
/// Code: the next argument as `0x` and eight uppercase hexadecimal digits.
pub const HEX: u8 = 2;
/// Code: the label of the allocation kind in the next argument ("pointer", …).
pub const KIND: u8 = 3;
/// Code: the NUL-terminated bytes at the address in the next argument.
pub const STR: u8 = 4;
/// Code: continue with the template at the address in the next argument.
pub const THEN: u8 = 5;

/// The kinds' labels, NUL-separated, in kind order from [`crate::record::kind::POINTER`]
/// (other kinds read as the last one).
static LABELS: [u8; 32] = *b"pointer\0handle\0chunk\0Rust alloc\0";
/// The powers of ten a `u32` can hold, largest first.
static POW10: [u32; 10] = [
    1_000_000_000,
    100_000_000,
    10_000_000,
    1_000_000,
    100_000,
    10_000,
    1_000,
    100,
    10,
    1,
];

/// The output position while a template is expanded.
struct Out {
    p: *mut u8,
    /// The last byte of the buffer (kept for the NUL).
    end: *mut u8,
}

impl Out {
    /// Appends one byte if there is room for it and the NUL.
    fn put(&mut self, b: u8) {
        if self.p < self.end {
            // SAFETY: p < end, inside the caller's buffer.
            unsafe {
                *self.p = b;
                self.p = self.p.add(1);
            }
        }
    }

    /// Appends the NUL-terminated bytes at `s` (what fits).
    ///
    /// # Safety
    /// `s` is NUL-terminated.
    unsafe fn puts(&mut self, s: *const u8) {
        let mut s = s;
        // SAFETY: the caller's guarantee.
        while unsafe { *s } != 0 {
            // SAFETY: as above.
            unsafe {
                self.put(*s);
                s = s.add(1);
            }
        }
    }

    /// Appends `v` in decimal: from the largest power of ten not above it (or 1),
    /// each digit by subtraction.
    fn decimal(&mut self, v: u32) {
        let mut v = v;
        let mut k = 0;
        while k < POW10.len() - 1 && POW10[k] > (v | 1) {
            k += 1;
        }
        while k < POW10.len() {
            let p = POW10[k];
            let mut d = b'0';
            while v >= p {
                v -= p;
                d += 1;
            }
            self.put(d);
            k += 1;
        }
    }

    /// Appends `v` as `0x` and eight uppercase hexadecimal digits.
    fn hex(&mut self, v: u32) {
        self.put(b'0');
        self.put(b'x');
        let mut shift = 32;
        while shift > 0 {
            shift -= 4;
            let n = ((v >> shift) & 0xF) as u8;
            self.put(if n < 10 { b'0' + n } else { b'A' - 10 + n });
        }
    }
}

/// The label of allocation kind `k` in [`LABELS`] (NUL-terminated).
fn label(k: usize) -> *const u8 {
    let mut i = k.wrapping_sub(usize::from(crate::record::kind::POINTER));
    if i > 3 {
        i = 3;
    }
    let mut s = LABELS.as_ptr();
    while i > 0 {
        // SAFETY: inside LABELS: each of its first three labels ends with a NUL.
        unsafe {
            while *s != 0 {
                s = s.add(1);
            }
            s = s.add(1);
        }
        i -= 1;
    }
    s
}

/// Expands the NUL-terminated template `t` with `args` into `out` up to `end` (its
/// last byte, where at least the NUL goes), NUL-terminated.
///
/// # Safety
/// `out..=end` are writable bytes, `end` ≥ `out`; `t` and every template reached
/// through [`THEN`] are NUL-terminated; `args` has [`ARGS`] elements, and those used
/// by [`STR`] and [`THEN`] are addresses of NUL-terminated bytes.
pub unsafe fn format(out: *mut u8, end: *mut u8, t: *const u8, args: *const usize) {
    // SAFETY: the caller's guarantees.
    unsafe {
        let mut o = Out { p: out, end };
        let mut t = t;
        let mut a = 0;
        loop {
            let c = *t;
            t = t.add(1);
            if c == 0 {
                break;
            }
            if c > THEN {
                o.put(c);
                continue;
            }
            let v = *args.add(a & (ARGS - 1));
            a += 1;
            match c {
                DEC => o.decimal(v as u32),
                HEX => o.hex(v as u32),
                KIND => o.puts(label(v)),
                STR => o.puts(v as *const u8),
                _ => t = v as *const u8, // THEN
            }
        }
        *o.p = 0;
    }
}

/// Expands a NUL-terminated template with the arguments in the scratch `args` of
/// `st` into its message buffer ([`crate::state::Scratch::msg`]), as [`format()`]
/// does; returns the message.
///
/// # Safety
/// `t` and the stored arguments are as [`format()`] wants them.
pub unsafe fn say(st: &State, t: *const u8) -> *const u8 {
    let sc = st.sc();
    let msg = sc.msg.as_mut_ptr();
    // SAFETY: the caller's guarantees; the buffer has MSG_LEN bytes.
    unsafe { format(msg, msg.add(MSG_LEN - 1), t, sc.args.as_ptr()) };
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(cap: usize, t: &[u8], args: &[usize]) -> Vec<u8> {
        assert_eq!(t.last(), Some(&0));
        let mut a = [0usize; ARGS];
        a[..args.len()].copy_from_slice(args);
        let mut buf = vec![0xAAu8; cap];
        // SAFETY: buf has cap bytes, t is NUL-terminated, a has ARGS elements.
        unsafe {
            format(
                buf.as_mut_ptr(),
                buf.as_mut_ptr().add(cap - 1),
                t.as_ptr(),
                a.as_ptr(),
            )
        };
        let n = buf.iter().position(|&b| b == 0).expect("NUL-terminated");
        buf.truncate(n);
        buf
    }

    #[test]
    fn decimal() {
        for (v, want) in [
            (0usize, "0"),
            (7, "7"),
            (10, "10"),
            (16, "16"),
            (65_505, "65505"),
            (1_000_000_000, "1000000000"),
            (u32::MAX as usize, "4294967295"),
        ] {
            assert_eq!(render(24, b"\x01\0", &[v]), want.as_bytes());
        }
    }

    #[test]
    fn hexadecimal() {
        assert_eq!(render(24, b"\x02\0", &[0x0001_2A4F]), b"0x00012A4F");
        assert_eq!(render(24, b"\x02\0", &[u32::MAX as usize]), b"0xFFFFFFFF");
    }

    #[test]
    fn kinds_strings_and_continuations() {
        use crate::record::kind;
        let t = b"Leak #\x01: \x01 bytes (\x03)\0";
        assert_eq!(
            render(112, t, &[3, 16, usize::from(kind::HANDLE)]),
            b"Leak #3: 16 bytes (handle)"
        );
        for (k, want) in [
            (kind::POINTER, "pointer"),
            (kind::HANDLE, "handle"),
            (kind::CHUNK, "chunk"),
            (kind::RUST, "Rust alloc"),
            (kind::OVERRUN, "Rust alloc"),
            (0, "Rust alloc"),
        ] {
            assert_eq!(render(24, b"\x03\0", &[usize::from(k)]), want.as_bytes());
        }
        let file = b"src/leaks.rs\0";
        let tail = [STR, b':', DEC, 0];
        assert_eq!(
            render(
                112,
                b"#\x01 at \x05\0",
                &[3, tail.as_ptr() as usize, file.as_ptr() as usize, 42]
            ),
            b"#3 at src/leaks.rs:42"
        );
    }

    #[test]
    fn truncation() {
        assert_eq!(render(8, b"abc\x01\0", &[12345]), b"abc1234");
        assert_eq!(render(1, b"x\0", &[]), b"");
        // Argument indices wrap around instead of reading past the array.
        let t = b"\x01\x01\x01\x01\x01\x01\x01\x01\x01\0";
        assert_eq!(render(24, t, &[1, 2, 3, 4, 5, 6, 7, 8]), b"123456781");
    }
}
