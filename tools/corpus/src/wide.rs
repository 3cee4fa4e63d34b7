//! 128-bit integers that the pipeline compiles correctly (image
//! `image-wide`): right shifts by every amount, rotations, constant shifts,
//! multiplication, addition and subtraction, compares, the bit counts, and
//! `m68k_palmos_sys::codegen`'s left shift and division, the way around LLVM
//! bug 16 (`refused` has the operators they replace).
//!
//! Every 128-bit argument and result is four `u32` words, most significant
//! first (see [`super::get128`]).

use m68k_palmos_sys::codegen::{i128_div_rem, shl_u128, u128_div_rem};

use super::{get128, put128};

/// `a >> (s & 127)` and `(a as i128) >> (s & 127)` (LLVM stages the value
/// in a stack slot and reads it at "slot + 16 − offset": a subtraction, which
/// the instruction selector keeps) into `out[0..4]` and `out[4..8]`.
///
/// # Safety
/// `a` valid for 4 `u32` reads, `out` for 8 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_u128_shr(a: *const u32, s: u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let a = get128(a);
        put128(out, a >> (s & 127));
        put128(out.add(4), ((a as i128) >> (s & 127)) as u128);
    }
}

/// `a.rotate_left(s)` and `a.rotate_right(s)` (funnel shifts, no stack slot)
/// into `out[0..4]` and `out[4..8]`.
///
/// # Safety
/// `a` valid for 4 `u32` reads, `out` for 8 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_u128_rotate(a: *const u32, s: u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let a = get128(a);
        put128(out, a.rotate_left(s));
        put128(out.add(4), a.rotate_right(s));
    }
}

/// The workaround for `a << (s & 127)`: `codegen::shl_u128(a, s)` into `out[0..4]`.
///
/// # Safety
/// `a` valid for 4 `u32` reads, `out` for 4 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_shl_u128(a: *const u32, s: u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe { put128(out, shl_u128(get128(a), s)) }
}

/// Shifts by constants (each split into 32-bit moves and shifts at build
/// time, no stack slot): `a << 1`, `a << 33`, `a << 64`, `a << 127`, `a >> 1`,
/// `a >> 63`, `(a as i128) >> 100` into `out[0..28]`.
///
/// # Safety
/// `a` valid for 4 `u32` reads, `out` for 28 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_u128_const_shifts(a: *const u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        // Straight-line stores: a loop over a local array of the results
        // would index the array (LLVM bug 2).
        let a = get128(a);
        put128(out, a << 1);
        put128(out.add(4), a << 33);
        put128(out.add(8), a << 64);
        put128(out.add(12), a << 127);
        put128(out.add(16), a >> 1);
        put128(out.add(20), a >> 63);
        put128(out.add(24), ((a as i128) >> 100) as u128);
    }
}

/// `a * b`, `a + b`, `a - b` (wrapping) into `out[0..12]`, and as the
/// result: bit 0 `a < b`, bit 1 `a == b`, bit 2 `(a as i128) < (b as i128)`.
///
/// # Safety
/// `a`, `b` valid for 4 `u32` reads, `out` for 12 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_u128_arith(a: *const u32, b: *const u32, out: *mut u32) -> u32 {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let (a, b) = (get128(a), get128(b));
        put128(out, a.wrapping_mul(b));
        put128(out.add(4), a.wrapping_add(b));
        put128(out.add(8), a.wrapping_sub(b));
        u32::from(a < b) | (u32::from(a == b) << 1) | (u32::from((a as i128) < (b as i128)) << 2)
    }
}

/// `a.leading_zeros() | a.trailing_zeros() << 8 | a.count_ones() << 16`.
///
/// # Safety
/// `a` valid for 4 `u32` reads.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_u128_bits(a: *const u32) -> u32 {
    // SAFETY: guaranteed by the caller.
    let a = unsafe { get128(a) };
    a.leading_zeros() | (a.trailing_zeros() << 8) | (a.count_ones() << 16)
}

/// The workaround for `/` and `%` on u128: `codegen::u128_div_rem(a, b)`
/// into `out[0..4]` (quotient) and `out[4..8]` (remainder); all ones for
/// `b == 0`.
///
/// # Safety
/// `a`, `b` valid for 4 `u32` reads, `out` for 8 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_u128_div_rem(a: *const u32, b: *const u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let (a, b) = (get128(a), get128(b));
        let (q, r) = if b == 0 {
            (u128::MAX, u128::MAX)
        } else {
            u128_div_rem(a, b)
        };
        put128(out, q);
        put128(out.add(4), r);
    }
}

/// The workaround for `/` and `%` on i128: `codegen::i128_div_rem(a, b)`
/// (wrapping: `i128::MIN / -1` is `i128::MIN`) into `out[0..4]` and
/// `out[4..8]`; all ones (−1) for `b == 0`.
///
/// # Safety
/// `a`, `b` valid for 4 `u32` reads, `out` for 8 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_i128_div_rem(a: *const u32, b: *const u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let (a, b) = (get128(a) as i128, get128(b) as i128);
        let (q, r) = if b == 0 { (-1, -1) } else { i128_div_rem(a, b) };
        put128(out, q as u128);
        put128(out.add(4), r as u128);
    }
}
