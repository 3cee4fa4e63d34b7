//! The detector's messages, without `core::fmt` (its `dyn Write` vtable needs
//! absolute relocations, which a Palm code resource cannot have; TOOLCHAIN.md).
//!
//! A message is a NUL-terminated template of literal bytes and argument codes
//! ([`DEC`], [`HEX`], [`KIND`], `STR`, [`THEN`]), each taking the next argument
//! from an array the caller filled (in the scratch chunk on the 68k, never on the
//! stack). One interpreter ([`format`]) builds every message: a call site costs its
//! argument stores and one call, and the templates are constant bytes in code 1. The
//! output is always NUL-terminated (for `ErrDisplayFileLineMsg` and `DbgMessage`);
//! what does not fit is cut off.

/// Code: the next argument in decimal.
pub const DEC: u8 = 1;
/// Code: the next argument as `0x` and eight uppercase hexadecimal digits.
pub const HEX: u8 = 2;
/// Code: the label of the allocation kind in the next argument ("pointer", …).
pub const KIND: u8 = 3;
/// Code: the NUL-terminated bytes at the address in the next argument.
#[cfg(test)]
pub const STR: u8 = 4;
/// Code: continue with the template at the address in the next argument.
pub const THEN: u8 = 5;
/// Arguments a template may use (indices wrap around: a stray code in a file name
/// cannot read past the array).
pub const ARGS: usize = 8;

/// The kinds' labels, NUL-separated, in kind order from [`crate::record::kind::POINTER`].
const LABELS: &[u8] = b"pointer\0handle\0chunk\0Rust alloc\0";
/// Where each label starts in [`LABELS`].
const LABEL_AT: [u8; 4] = [0, 8, 15, 21];

/// The output position while a template is expanded.
struct Out {
    p: *mut u8,
    /// The last byte of the buffer (kept for the NUL).
    end: *mut u8,
}

impl Out {
    /// Appends one byte if there is room for it and the NUL. On the 68k three
    /// instructions with the position in an address register (`cmp`, a short `bls`
    /// over a post-increment store): LLVM kept it in a data register and moved it
    /// to an address register for every store.
    #[inline(always)]
    fn put(&mut self, b: u8) {
        #[cfg(target_arch = "m68k")]
        // SAFETY: the store happens only when p < end, inside the caller's buffer.
        unsafe {
            core::arch::asm!(
                "cmp.l {p},{e}",
                ".short 0x6302", // bls.s over the store (end <= p)
                "move.b {b},({p})+",
                p = inout(reg_addr) self.p,
                e = in(reg_data) self.end,
                b = in(reg_data) b,
                options(nostack),
            );
        }
        #[cfg(not(target_arch = "m68k"))]
        if self.p < self.end {
            // SAFETY: p < end, inside the caller's buffer.
            unsafe {
                *self.p = b;
                self.p = self.p.add(1);
            }
        }
    }

    /// Appends the NUL-terminated bytes at `s` (what fits). On the 68k one loop of
    /// six 2-byte instructions (`put`'s three, the load and two short branches).
    ///
    /// # Safety
    /// `s` is NUL-terminated.
    #[inline(always)]
    unsafe fn puts(&mut self, s: *const u8) {
        #[cfg(target_arch = "m68k")]
        // SAFETY: reads up to the NUL (the caller's guarantee); stores only when
        // p < end, inside the caller's buffer.
        unsafe {
            core::arch::asm!(
                "move.b ({s})+,{c}",
                ".short 0x6708", // beq.s to the end
                "cmp.l {p},{e}",
                ".short 0x63F8", // bls.s to the load (end <= p: no store)
                "move.b {c},({p})+",
                ".short 0x60F4", // bra.s to the load
                s = inout(reg_addr) s => _,
                p = inout(reg_addr) self.p,
                e = in(reg_data) self.end,
                c = out(reg_data) _,
                options(nostack),
            );
        }
        #[cfg(not(target_arch = "m68k"))]
        {
            let mut s = s;
            // SAFETY: the caller's guarantee.
            while unsafe { *s } != 0 {
                // SAFETY: as above.
                self.put(unsafe { *s });
                // SAFETY: as above.
                s = unsafe { s.add(1) };
            }
        }
    }
}

/// Expands the NUL-terminated template `t` with `args` into `out` up to `end` (its
/// last byte, where at least the NUL goes), NUL-terminated.
///
/// # Safety
/// `out..=end` are writable bytes, `end` ≥ `out`; `t` and every template reached
/// through [`THEN`] are NUL-terminated; `args` has [`ARGS`] elements, and those used
/// by [`STR`] and [`THEN`] are addresses of NUL-terminated bytes.
#[inline(always)]
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
            if c == THEN {
                t = v as *const u8;
            } else if (DEC..=HEX).contains(&c) {
                // Decimal from the largest power of ten not above v; hexadecimal as
                // "0x" and eight digits (16^7 is above v / 16 already). Each digit by
                // subtraction, then the next lower power.
                let mut base = 10;
                let mut p: usize = 1;
                if c == HEX {
                    o.put(b'0');
                    o.put(b'x');
                    base = 16;
                    p = 1 << 28;
                }
                let lim = v / base;
                while p <= lim {
                    p *= 10;
                }
                let mut v = v;
                loop {
                    let mut d = b'0';
                    while v >= p {
                        v -= p;
                        d += 1;
                    }
                    o.put(if d > b'9' { d + 7 } else { d });
                    if p == 1 {
                        break;
                    }
                    p /= base;
                }
            } else {
                // KIND: the kind's label (other kinds read "Rust alloc"); STR: the
                // string itself.
                let mut s = v as *const u8;
                if c == KIND {
                    let i = v.wrapping_sub(usize::from(crate::record::kind::POINTER));
                    s = LABELS
                        .as_ptr()
                        .add(usize::from(LABEL_AT[if i > 3 { 3 } else { i }]));
                }
                o.puts(s);
            }
        }
        *o.p = 0;
    }
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
        let t = b"Leaked \x01 bytes (\x03)\0";
        assert_eq!(
            render(112, t, &[16, usize::from(kind::HANDLE)]),
            b"Leaked 16 bytes (handle)"
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
