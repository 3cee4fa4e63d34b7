//! The detector's messages, without `core::fmt` (its `dyn Write` vtable needs
//! absolute relocations, which a Palm code resource cannot have; TOOLCHAIN.md).
//!
//! A message is a NUL-terminated template of literal bytes and argument codes
//! ([`DEC`], [`HEX`], [`KIND`], `STR`, [`THEN`]), each taking the next argument
//! from an array the caller filled (in the scratch chunk on the 68k, never on the
//! stack). One interpreter ([`say`]: 68000 assembly on the 68k, [`format`] on the
//! host) builds every message into the scratch message buffer: a call site costs its
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
#[cfg(target_arch = "m68k")]
use core::mem::{offset_of, size_of};

#[cfg(target_arch = "m68k")]
use crate::state::Scratch;
use crate::state::{MSG_LEN, State};

/// Arguments a template may use (indices wrap around: a stray code in a file name
/// cannot read past the array).
pub const ARGS: usize = 8;

/// The kinds' labels, NUL-separated, in kind order from [`crate::record::kind::POINTER`]
/// (a `static`: the 68k's assembly reaches it PC-relative).
static LABELS: [u8; 32] = *b"pointer\0handle\0chunk\0Rust alloc\0";
/// Where each label starts in [`LABELS`].
#[cfg(not(target_arch = "m68k"))]
const LABEL_AT: [u8; 4] = [0, 8, 15, 21];
/// The powers of ten a `u32` can hold, largest first (the 68k's decimal digits).
#[cfg(target_arch = "m68k")]
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
#[cfg(not(target_arch = "m68k"))]
struct Out {
    p: *mut u8,
    /// The last byte of the buffer (kept for the NUL).
    end: *mut u8,
}

#[cfg(not(target_arch = "m68k"))]
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
            self.put(unsafe { *s });
            // SAFETY: as above.
            s = unsafe { s.add(1) };
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
#[cfg(not(target_arch = "m68k"))]
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

/// Expands a NUL-terminated template with the arguments in the scratch `args` of
/// the state into its message buffer ([`crate::state::Scratch::msg`]), as
/// [`format`] does, NUL-terminated. The templates are constants; string arguments
/// are NUL-terminated (file names, templates).
///
/// On the 68k a register routine in assembly for memdbg's own assembly (LLVM's code was
/// twice as long): A2 the state (kept), A0 the template; returns the message buffer's
/// address in A0; changes D0–D2 and A1. Decimal digits by subtracting the powers of ten
/// ([`POW10`], from the largest not above the value or 1: no division), hexadecimal ones by
/// subtracting powers of 16 (shifting); a kind's label by skipping labels; the room left is
/// counted down. `addq`, `subq`, `tst` and `clr` are written as opcode words (named in
/// comments), short branches with `bs!`.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub unsafe extern "C" fn say() {
    core::arch::naked_asm!(
        // A0: the template, A1: the output position, D4: the room left (the NUL
        // has its own byte), A3: the arguments, D3: the next one's offset, D1: its
        // value, D2: a digit's power, D5: zero for hexadecimal, A4: a string or
        // the next power of ten.
        "movem.l %d3-%d5/%a3-%a4,-(%sp)",
        "move.l ({scratch},%a2),%a3",
        "lea ({msg},%a3),%a1",
        "lea ({args},%a3),%a3",
        "moveq #{room},%d4",
        "moveq #0,%d3",
        // The loop: the next template byte.
        "1:",
        "move.b (%a0)+,%d0",
        bs!(beq "9f"),
        "cmpi.b #{then},%d0",
        bs!(bls "2f"),
        // A literal byte.
        bs!(bsr "7f"),
        bs!(bra "1b"),
        // A code: the next argument (the offset wraps around the array), then by
        // code - KIND: DEC -2, HEX -1, KIND 0, STR 1, THEN 2.
        "2:",
        "move.l (0,%a3,%d3.w),%d1",
        ".short 0x5843", // addq.w #4,%d3
        ".short 0x0243, {wrap}", // andi.w #wrap,%d3
        ".short 0x5100 + ({kind} << 9)", // subq.b #KIND,%d0
        bs!(@ "0x6B" "3f"), // bmi
        bs!(beq "4f"),
        ".short 0x5300", // subq.b #1,%d0
        bs!(beq "5f"),
        // THEN: the template continues at v.
        "move.l %d1,%a0",
        bs!(bra "1b"),
        // STR (and a label): the bytes at A4.
        "5:",
        "move.l %d1,%a4",
        "50:",
        "move.b (%a4)+,%d0",
        bs!(beq "1b"),
        bs!(bsr "7f"),
        bs!(bra "50b"),
        // DEC (D5 nonzero): from the largest power of ten not above v | 1; HEX
        // (D5 zero): "0x", from 16^7.
        "3:",
        "move.b %d0,%d5",
        ".short 0x5205", // addq.b #1,%d5
        bs!(beq "30f"),
        "lea ({pow10},%pc),%a4",
        "move.l %d1,%d0",
        "bset #0,%d0",
        "31:",
        "move.l (%a4)+,%d2",
        "cmp.l %d0,%d2",
        bs!(bhi "31b"),
        bs!(bra "32f"),
        "30:",
        "moveq #48,%d0", // '0'
        bs!(bsr "7f"),
        "moveq #120,%d0", // 'x'
        bs!(bsr "7f"),
        "moveq #1,%d2",
        "ror.l #4,%d2",
        // Each digit by subtraction; the end after the power 1.
        "32:",
        "moveq #47,%d0", // '0' - 1
        "33:",
        ".short 0x5200", // addq.b #1,%d0
        "sub.l %d2,%d1",
        bs!(bcc "33b"),
        "add.l %d2,%d1",
        "cmpi.b #57,%d0", // '9'
        bs!(bls "34f"),
        ".short 0x5E00", // addq.b #7,%d0
        "34:",
        bs!(bsr "7f"),
        "lsr.l #1,%d2",
        bs!(beq "1b"),
        ".short 0x4A05", // tst.b %d5
        bs!(beq "35f"),
        "move.l (%a4)+,%d2",
        bs!(bra "32b"),
        "35:",
        "lsr.l #3,%d2",
        bs!(bra "32b"),
        // The end: the NUL; the message's start in A0.
        "9:",
        ".short 0x4211", // clr.b (%a1)
        "lea ({msg_from_args},%a3),%a0",
        "movem.l (%sp)+,%d3-%d5/%a3-%a4",
        "rts",
        // Appends D0.b while there is room (D4 stays negative once there is none).
        "7:",
        ".short 0x5344", // subq.w #1,%d4
        bs!(@ "0x6B" "70f"), // bmi
        "move.b %d0,(%a1)+",
        "70:",
        "rts",
        // KIND: label min(v - POINTER, 3), past as many NULs.
        "4:",
        "moveq #{pointer},%d2",
        "sub.l %d2,%d1",
        "moveq #3,%d2",
        "cmp.l %d2,%d1",
        bs!(bls "40f"),
        "move.l %d2,%d1",
        "40:",
        "lea ({labels},%pc),%a4",
        "41:",
        ".short 0x5341", // subq.w #1,%d1
        bs!(bcs "50b"),
        "42:",
        ".short 0x4A1C", // tst.b (%a4)+
        bs!(bne "42b"),
        bs!(bra "41b"),
        // The end, for bs!'s range check.
        "98:",
        "99:",
        scratch = const offset_of!(State, scratch),
        msg = const offset_of!(Scratch, msg),
        msg_from_args = const offset_of!(Scratch, msg) - offset_of!(Scratch, args),
        room = const MSG_LEN - 1,
        args = const offset_of!(Scratch, args),
        then = const THEN,
        kind = const KIND,
        wrap = const (ARGS - 1) * 4,
        pointer = const crate::record::kind::POINTER,
        labels = sym LABELS,
        pow10 = sym POW10,
    )
}
// say's codes: DEC and HEX just below KIND (code − KIND + 1 is zero for HEX), STR
// between KIND and THEN, KIND an `addq`/`subq` count; the arguments are longs (a
// power-of-two count); the room left fits a `moveq` and a word count.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(DEC == 1 && HEX == 2 && KIND == 3 && THEN == 5);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(ARGS.is_power_of_two() && size_of::<usize>() == 4);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(MSG_LEN - 1 < 128);

/// The host stand-in of the 68k's assembly: [`format`] into the message buffer.
///
/// # Safety
/// `st` is the live state; `t` and the arguments are as [`format`] wants them.
#[cfg(not(target_arch = "m68k"))]
pub unsafe extern "C" fn say(st: *const State, t: *const u8) {
    // SAFETY: the caller's guarantees; the buffers are fields of the live scratch
    // chunk (MSG_LEN bytes of message).
    unsafe {
        let sc = (*st).scratch;
        let msg = core::ptr::addr_of_mut!((*sc).msg).cast::<u8>();
        format(
            msg,
            msg.add(MSG_LEN - 1),
            t,
            core::ptr::addr_of!((*sc).args).cast(),
        )
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
