//! Writing code that LLVM's m68k backend compiles correctly.
//!
//! Three miscompilations cannot be repaired after instruction selection, so
//! palm-build rejects the code at build time, naming the function (its IR
//! check), and the code is written with one of these helpers instead:
//!
//! - **Bug 2** (llvm-project #200984): a local (stack) array indexed with a
//!   variable offset loses the index — `buf[i] = v` stores to `buf[0]`. Index
//!   through [`indexable`]`(&mut buf)` (or keep the buffer in a heap chunk).
//! - **Bug 7** (LLVM 23; llvm/lib/Target/M68k `Mxstoreloadi*_safe` patterns do
//!   not check the load's extension type): "load 8/16 bits, extend, store
//!   16/32 bits" becomes one memory-to-memory `move` of the *wide* size from
//!   the narrow value's address — wrong high bits, or an address error at an
//!   odd address. Store [`in_register`]`(x as u32)` instead.
//! - **Bug 16**: a 128-bit shift by a variable amount is staged in a stack
//!   slot and read back at a variable offset, which bug 2's fold drops —
//!   `1u128 << 127` is `1 << 31`. compiler_builtins' 128-bit division does
//!   such shifts itself (u128/i128 `/` and `%` never return). Use
//!   [`shl_u128`], [`u128_div_rem`] and [`i128_div_rem`], which work on u64
//!   halves; right shifts, rotations, multiplication and constant shifts of
//!   128-bit values compile correctly.
//!
//! ```
//! use m68k_palmos_sys::codegen::{in_register, indexable};
//!
//! fn histogram(data: &[u8]) -> [u16; 16] {
//!     let mut counts = [0u16; 16];
//!     let bins = indexable(&mut counts);
//!     for &b in data {
//!         bins[(b & 15) as usize] += 1;
//!     }
//!     counts
//! }
//! assert_eq!(histogram(&[1, 1, 17, 3])[1], 3);
//!
//! fn widen(src: &[u16], dst: &mut [u32]) {
//!     for (d, s) in dst.iter_mut().zip(src) {
//!         *d = in_register(u32::from(*s));
//!     }
//! }
//! let mut out = [0u32; 2];
//! widen(&[7, 0xFFFF], &mut out);
//! assert_eq!(out, [7, 0xFFFF]);
//! ```
//!
//! ```
//! use m68k_palmos_sys::codegen::{i128_div_rem, shl_u128, u128_div_rem};
//!
//! assert_eq!(shl_u128(1, 127), 1u128 << 127);
//! assert_eq!(u128_div_rem(u128::MAX, 10), (u128::MAX / 10, 5));
//! assert_eq!(i128_div_rem(-7, 2), (-3, -1));
//! ```
//!
//! `indexable` and `in_register` cost nothing beyond what correctly compiled
//! code needs; on the host they are the identity. The 128-bit helpers compute
//! what the operators compute, on the host too.

/// Returns `r` unchanged, through [`core::hint::black_box`], so that indexing
/// the result is not folded into a frame-index addressing mode (bug 2, module
/// docs). Take it once per array, before the indexing code.
#[inline(always)]
pub fn indexable<T: ?Sized>(r: &mut T) -> &mut T {
    core::hint::black_box(r)
}

/// A value that fits a 68000 data register: what [`in_register`] accepts.
pub trait DataRegister: Copy {
    /// `self`, unchanged, as the output of an empty `asm!` (see [`in_register`]).
    fn through_register(self) -> Self;
}

macro_rules! data_register {
    ($($t:ty),*) => {$(
        impl DataRegister for $t {
            #[inline(always)]
            fn through_register(self) -> Self {
                #[cfg(target_arch = "m68k")]
                {
                    let mut value = self;
                    // SAFETY: no instruction (the template is a comment naming
                    // the register); no memory access, flags kept.
                    unsafe {
                        core::arch::asm!(
                            "/* {0} */",
                            inout(reg_data) value,
                            options(pure, nomem, nostack, preserves_flags)
                        )
                    };
                    value
                }
                #[cfg(not(target_arch = "m68k"))]
                self
            }
        }
    )*};
}
data_register!(u8, i8, u16, i16, u32, i32);

/// Returns `value` unchanged, but from a data register: the output of an
/// `asm!` without instructions, which LLVM cannot fold into a following
/// store. Use it for every 8/16-bit value widened and stored to memory (bug
/// 7, module docs). `core::hint::black_box` does not help: it passes the
/// value through a stack slot, and the store into that slot is folded the
/// same way.
#[inline(always)]
pub fn in_register<T: DataRegister>(value: T) -> T {
    value.through_register()
}

/// `x << (n % 128)` (what `x.wrapping_shl(n)` computes), from shifts of the
/// two u64 halves, which LLVM compiles without a stack slot (bug 16, module
/// docs). For an `i128`, shift `x as u128` and cast back.
pub fn shl_u128(x: u128, n: u32) -> u128 {
    let n = n & 127;
    let (hi, lo) = ((x >> 64) as u64, x as u64);
    let (hi, lo) = match n {
        0 => (hi, lo),
        1..64 => ((hi << n) | (lo >> (64 - n)), lo << n),
        _ => (lo << (n - 64), 0),
    };
    (u128::from(hi) << 64) | u128::from(lo)
}

/// `(a / b, a % b)` for `u128`, without compiler_builtins' `__udivti3` /
/// `__umodti3` (bug 16, module docs): u64 division when both fit in 64 bits,
/// else bitwise long division (one step per significant bit of `a`: at most
/// 128 steps of 128-bit shift-by-one, compare and subtract).
///
/// # Panics
/// `b == 0`, as `a / b` does.
pub fn u128_div_rem(a: u128, b: u128) -> (u128, u128) {
    if b == 0 {
        panic!("attempt to divide by zero");
    }
    if let (Ok(a), Ok(b)) = (u64::try_from(a), u64::try_from(b)) {
        return (u128::from(a / b), u128::from(a % b));
    }
    let skipped = a.leading_zeros();
    // The dividend's bits enter the remainder from the top of `rest`.
    let mut rest = shl_u128(a, skipped);
    let (mut quotient, mut remainder) = (0u128, 0u128);
    for _ in skipped..128 {
        // `remainder < b` here, so the shift loses nothing when b < 2^127;
        // when b ≥ 2^127 the bit shifted out is kept in `carry`.
        let carry = remainder >> 127;
        remainder = (remainder << 1) | (rest >> 127);
        rest <<= 1;
        quotient <<= 1;
        if carry != 0 || remainder >= b {
            remainder = remainder.wrapping_sub(b);
            quotient |= 1;
        }
    }
    (quotient, remainder)
}

/// `(a.wrapping_div(b), a.wrapping_rem(b))` for `i128` (`i128::MIN / -1` is
/// `i128::MIN`, remainder 0), through [`u128_div_rem`] on the magnitudes: the
/// quotient rounds toward zero, the remainder has the sign of `a`.
///
/// # Panics
/// `b == 0`, as `a / b` does.
pub fn i128_div_rem(a: i128, b: i128) -> (i128, i128) {
    let (q, r) = u128_div_rem(a.unsigned_abs(), b.unsigned_abs());
    let q = if (a < 0) != (b < 0) {
        (q as i128).wrapping_neg()
    } else {
        q as i128
    };
    let r = if a < 0 {
        (r as i128).wrapping_neg()
    } else {
        r as i128
    };
    (q, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 128-bit values that reach every path: zero, one, the extremes,
    /// powers of two and their neighbours, and mixed patterns.
    fn values() -> Vec<u128> {
        let mut v = vec![
            0,
            1,
            2,
            3,
            7,
            10,
            u128::MAX,
            u128::MAX - 1,
            1 << 127,
            (1 << 127) - 1,
        ];
        for k in [31, 32, 33, 63, 64, 65, 95, 96, 100, 126] {
            v.extend([1u128 << k, (1u128 << k) - 1, (1u128 << k) + 1]);
        }
        v.extend([
            0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210,
            0xFFFF_FFFF_0000_0000_FFFF_FFFF_0000_0000,
            0x8000_0000_0000_0001_8000_0000_0000_0001,
        ]);
        v
    }

    #[test]
    fn shl_u128_is_wrapping_shl_for_every_amount() {
        for x in values() {
            for n in 0..300 {
                assert_eq!(shl_u128(x, n), x.wrapping_shl(n), "{x:#x} << {n}");
            }
        }
    }

    #[test]
    fn u128_div_rem_matches_the_operators() {
        for a in values() {
            for b in values().into_iter().filter(|&b| b != 0) {
                assert_eq!(u128_div_rem(a, b), (a / b, a % b), "{a:#x} / {b:#x}");
            }
        }
    }

    #[test]
    fn i128_div_rem_matches_wrapping_div_and_rem_in_every_sign() {
        let values: Vec<i128> = values()
            .into_iter()
            .flat_map(|v| [v as i128, (v as i128).wrapping_neg()])
            .collect();
        for &a in &values {
            for &b in values.iter().filter(|&&b| b != 0) {
                assert_eq!(
                    i128_div_rem(a, b),
                    (a.wrapping_div(b), a.wrapping_rem(b)),
                    "{a} / {b}"
                );
            }
        }
    }

    #[test]
    #[should_panic(expected = "attempt to divide by zero")]
    fn division_by_zero_panics_like_the_operator() {
        let _ = u128_div_rem(1, 0);
    }
}
