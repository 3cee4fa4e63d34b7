//! 128-bit code that LLVM's m68k backend miscompiles and palm-build must
//! refuse, naming each function (LLVM bug 16, image `image-refused`): a left
//! shift by a variable amount (the stack slot it is staged in is read at a
//! dropped offset), and everything that reaches compiler_builtins' routines
//! that do such shifts themselves — u128/i128 division and remainder
//! (`__udivti3` & co., calls that never return), a u128 → f64 conversion
//! (`__floatuntidf`), and an f64 remainder (libm's `fmod`). The test asserts
//! the refusal; with `PALM_BUILD_RAW_LLVM=1` the image builds unchecked and
//! runs against the host.

use super::{get128, put128};

/// `a << (s & 127)` into `out[0..4]`.
///
/// # Safety
/// `a` valid for 4 `u32` reads, `out` for 4 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_u128_shl(a: *const u32, s: u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe { put128(out, get128(a) << (s & 127)) }
}

/// `a / b` (all ones for `b == 0`) into `out[0..4]`.
///
/// # Safety
/// `a`, `b` valid for 4 `u32` reads, `out` for 4 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_u128_div(a: *const u32, b: *const u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe { put128(out, get128(a).checked_div(get128(b)).unwrap_or(u128::MAX)) }
}

/// `a % b` (all ones for `b == 0`) into `out[0..4]`.
///
/// # Safety
/// `a`, `b` valid for 4 `u32` reads, `out` for 4 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_u128_rem(a: *const u32, b: *const u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe { put128(out, get128(a).checked_rem(get128(b)).unwrap_or(u128::MAX)) }
}

/// `a.wrapping_div(b)` on i128 (−1 for `b == 0`) into `out[0..4]`.
///
/// # Safety
/// `a`, `b` valid for 4 `u32` reads, `out` for 4 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_i128_div(a: *const u32, b: *const u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let (a, b) = (get128(a) as i128, get128(b) as i128);
        put128(out, if b == 0 { -1 } else { a.wrapping_div(b) } as u128);
    }
}

/// `a.wrapping_rem(b)` on i128 (−1 for `b == 0`) into `out[0..4]`.
///
/// # Safety
/// `a`, `b` valid for 4 `u32` reads, `out` for 4 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_i128_rem(a: *const u32, b: *const u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let (a, b) = (get128(a) as i128, get128(b) as i128);
        put128(out, if b == 0 { -1 } else { a.wrapping_rem(b) } as u128);
    }
}

/// The bits of `a as f64` (`__floatuntidf`), high word in `out[0]`.
///
/// # Safety
/// `a` valid for 4 `u32` reads, `out` for 2 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_u128_to_f64(a: *const u32, out: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let bits = (get128(a) as f64).to_bits();
        out.write_unaligned((bits >> 32) as u32);
        out.add(1).write_unaligned(bits as u32);
    }
}

/// The bits of `a % b` on f64 (libm's `fmod`; 128-bit arithmetic inside)
/// for the f64 bit patterns `a = (ahi, alo)` and `b = (bhi, blo)`, high word
/// in `out[0]`.
///
/// # Safety
/// `out` valid for 2 writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_f64_rem(ahi: u32, alo: u32, bhi: u32, blo: u32, out: *mut u32) {
    let f = |hi: u32, lo: u32| f64::from_bits((u64::from(hi) << 32) | u64::from(lo));
    let bits = (f(ahi, alo) % f(bhi, blo)).to_bits();
    // SAFETY: guaranteed by the caller.
    unsafe {
        out.write_unaligned((bits >> 32) as u32);
        out.add(1).write_unaligned(bits as u32);
    }
}
