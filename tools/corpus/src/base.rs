//! 32- and 64-bit arithmetic, bit operations, loops, stack arrays, jump
//! tables, tail calls, the memory routines, narrow values widened into
//! memory, `Vec` growth, a trap call and a crate's own assembly
//! (`asm/mixed.s`) reading a struct at the 68k's offsets (image `image-base`).

use super::alloc::boxed::Box;
use super::alloc::vec::Vec;
use core::hint::black_box;

use m68k_palmos_sys::codegen::{in_register, indexable};

/// `c`, or all ones when `a` is 0: LLVM computes the mask as `cmpi.l #1` /
/// `subx.l` (−carry), reading X, which CMP does not set (bug 15).
#[unsafe(no_mangle)]
pub extern "C" fn c_or_if_zero(a: u32, c: u32) -> u32 {
    c | 0u32.wrapping_sub(u32::from(a == 0))
}

/// 32-bit unsigned division (`__udivsi3`; the CCR bug broke it for
/// `0xFFFFFFF1 / 3`). Division by zero returns `u32::MAX`.
#[unsafe(no_mangle)]
pub extern "C" fn c_udiv(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}

/// 32-bit unsigned remainder (`__umodsi3`). By zero: `u32::MAX`.
#[unsafe(no_mangle)]
pub extern "C" fn c_urem(a: u32, b: u32) -> u32 {
    a.checked_rem(b).unwrap_or(u32::MAX)
}

/// 32-bit signed division (`__divsi3`), wrapping (`i32::MIN / -1`). By zero: 0x7FFF_FFFF.
#[unsafe(no_mangle)]
pub extern "C" fn c_sdiv(a: i32, b: i32) -> i32 {
    if b == 0 { i32::MAX } else { a.wrapping_div(b) }
}

/// 32-bit signed remainder (`__modsi3`), wrapping. By zero: 0x7FFF_FFFF.
#[unsafe(no_mangle)]
pub extern "C" fn c_srem(a: i32, b: i32) -> i32 {
    if b == 0 { i32::MAX } else { a.wrapping_rem(b) }
}

/// 32-bit multiplication (`__mulsi3` on a 68000: no 32×32 MULU).
#[unsafe(no_mangle)]
pub extern "C" fn c_mul(a: u32, b: u32) -> u32 {
    a.wrapping_mul(b)
}

/// Overflow-checked multiplication: LLVM emits the 68020 `mulu.l` + `bvc`
/// for it even at `-C target-cpu=M68000`. Overflow returns `0xDEAD_BEEF`.
#[unsafe(no_mangle)]
pub extern "C" fn c_checked_mul(a: u32, b: u32) -> u32 {
    a.checked_mul(b).unwrap_or(0xDEAD_BEEF)
}

/// Signed overflow-checked multiplication (`muls.l` at 68020). Overflow: `0x7EAD_BEEF`.
#[unsafe(no_mangle)]
pub extern "C" fn c_checked_smul(a: i32, b: i32) -> i32 {
    a.checked_mul(b).unwrap_or(0x7EAD_BEEF)
}

/// High 32 bits of the 64-bit product (`__muldi3`).
#[unsafe(no_mangle)]
pub extern "C" fn c_mul_hi(a: u32, b: u32) -> u32 {
    ((u64::from(a) * u64::from(b)) >> 32) as u32
}

fn join(hi: u32, lo: u32) -> u64 {
    (u64::from(hi) << 32) | u64::from(lo)
}

/// 64-bit arithmetic on `a = (ahi, alo)` and `b = (bhi, blo)`; writes 9
/// results as (high, low) pairs to `out[0..18]`: a*b, a/b, a%b, signed a/b,
/// signed a%b, a<<(b&63), a>>(b&63), signed a>>(b&63), a.rotate_left(b&63).
/// Division by zero yields all-ones.
///
/// # Safety
/// `out` must be valid for 18 `u32` writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_u64_ops(ahi: u32, alo: u32, bhi: u32, blo: u32, out: *mut u32) {
    let a = join(ahi, alo);
    let b = join(bhi, blo);
    let s = (b & 63) as u32;
    let put = |i: usize, r: u64| {
        // SAFETY: the caller provides 18 u32 slots; i < 9.
        unsafe {
            out.add(2 * i).write_unaligned((r >> 32) as u32);
            out.add(2 * i + 1).write_unaligned(r as u32);
        }
    };
    put(0, a.wrapping_mul(b));
    put(1, a.checked_div(b).unwrap_or(u64::MAX));
    put(2, a.checked_rem(b).unwrap_or(u64::MAX));
    put(3, (a as i64).checked_div(b as i64).unwrap_or(-1) as u64);
    put(4, (a as i64).checked_rem(b as i64).unwrap_or(-1) as u64);
    put(5, a << s);
    put(6, a >> s);
    put(7, ((a as i64) >> s) as u64);
    put(8, a.rotate_left(s));
}

/// Bit operations (`__clzsi2`, `__ctzsi2`, `__popcountsi2`, 64-bit forms):
/// a mix of leading/trailing zeros, popcount, rotations and byte swaps.
#[unsafe(no_mangle)]
pub extern "C" fn c_bits(a: u32, b: u32) -> u32 {
    let wide = join(a, b);
    a.leading_zeros()
        ^ (b.trailing_zeros() << 6)
        ^ (a.count_ones() << 12)
        ^ (wide.leading_zeros() << 18)
        ^ (wide.count_ones() << 24)
        ^ a.rotate_right(b & 31)
        ^ b.swap_bytes()
        ^ u32::from((a as u16).swap_bytes())
}

/// A loop that keeps many values live across compares and branches, forcing
/// the register allocator to spill and reload between a compare and its
/// branch (where the CCR bug hides).
#[unsafe(no_mangle)]
pub extern "C" fn c_pressure(seed: u32, n: u32) -> u32 {
    let (mut a, mut b, mut c, mut d) = (seed, seed ^ 0x9E37_79B9, seed.rotate_left(7), !seed);
    let (mut e, mut f, mut g, mut h) = (1u32, 2u32, 3u32, 4u32);
    let (mut i2, mut j, mut k, mut l) = (seed >> 3, seed << 5, seed | 1, seed & 0xFF);
    for i in 0..n {
        a = a.wrapping_add(b ^ i);
        b = b.rotate_left(3) ^ c;
        c = c.wrapping_mul(3).wrapping_add(d);
        d ^= e.wrapping_add(f);
        if a > b {
            e = e.wrapping_add(g);
        } else {
            f = f.wrapping_sub(h);
        }
        g = g.wrapping_add(a >> 7) ^ i2;
        h = h.rotate_right(5).wrapping_add(j);
        if (c as i32) < (d as i32) {
            i2 = i2.wrapping_add(k);
        }
        j ^= l.wrapping_mul(i | 1);
        k = k.wrapping_add(e ^ f);
        if k == l {
            l = l.wrapping_add(1);
        } else {
            l ^= g;
        }
    }
    a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ i2 ^ j ^ k ^ l
}

/// Counts the elements of `data[..len]` in `lo..=hi` and returns
/// `count << 16 | index of the first element > hi (or 0xFFFF)`: compares,
/// early exits and unsigned/signed mixes.
///
/// # Safety
/// `data` must point to `len` readable `u32`s (2-byte aligned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_count_between(data: *const u32, len: u32, lo: u32, hi: u32) -> u32 {
    // SAFETY: guaranteed by the caller.
    let values = unsafe { core::slice::from_raw_parts(data, len as usize) };
    let count = values.iter().filter(|&&v| v >= lo && v <= hi).count() as u32;
    let first = values
        .iter()
        .position(|&v| v > hi)
        .map_or(0xFFFF, |p| p as u32);
    (count << 16) | (first & 0xFFFF)
}

/// Sorts `data[..len]` with a Shell sort (gaps 701, 301, 132, 57, 23, 10, 4,
/// 1): nested loops, many compares, swaps and spills.
///
/// core's `sort_unstable` cannot be used on this target: its small-sort keeps
/// a scratch array on the stack and indexes it with a variable offset, which
/// palm-build's IR check rejects (LLVM bug 2).
///
/// # Safety
/// `data` must point to `len` writable `u32`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_sort(data: *mut u32, len: u32) {
    // SAFETY: guaranteed by the caller.
    let values = unsafe { core::slice::from_raw_parts_mut(data, len as usize) };
    let mut gap = 701usize;
    while gap > 0 {
        for i in gap..values.len() {
            let v = values[i];
            let mut j = i;
            while j >= gap && values[j - gap] > v {
                values[j] = values[j - gap];
                j -= gap;
            }
            values[j] = v;
        }
        gap = match gap {
            701 => 301,
            301 => 132,
            132 => 57,
            57 => 23,
            23 => 10,
            10 => 4,
            4 => 1,
            _ => 0,
        };
    }
}

/// A local array indexed with variable offsets, written the safe way: the
/// array's address goes through `indexable` (`black_box`), so the indexed
/// base is a register, not a frame index (LLVM bug 2 drops the index otherwise).
#[unsafe(no_mangle)]
pub extern "C" fn c_stack_array(n: u32, seed: u32) -> u32 {
    let mut storage = [0u32; 32];
    let buf = indexable(&mut storage);
    for i in 0..n {
        let slot = (i.wrapping_mul(7) % 32) as usize;
        buf[slot] = buf[slot].wrapping_add(i ^ seed);
    }
    let mut sum = 0u32;
    for (i, v) in buf.iter().enumerate() {
        sum = sum.rotate_left(1) ^ v.wrapping_mul(i as u32 + 1);
    }
    sum
}

/// A dense `match` compiled to a jump table (table-relative entries in .rodata).
#[unsafe(no_mangle)]
pub extern "C" fn c_jump_table(x: u32, y: u32) -> u32 {
    match x {
        0 => y,
        1 => y.wrapping_add(1),
        2 => y.wrapping_mul(3),
        3 => y ^ 0x5555,
        4 => y >> 1,
        5 => y << 2,
        6 => y.wrapping_sub(7),
        7 => !y,
        8 => y.rotate_left(9),
        9 => y | 0x8000_0000,
        10 => y & 0xFFFF,
        11 => y.wrapping_add(0x1234_5678),
        12 => y.count_ones(),
        13 => y.leading_zeros(),
        14 => y / 5,
        15 => y % 7,
        16 => y.swap_bytes(),
        17 => 17,
        _ => 0xFFFF_FFFF,
    }
}

#[inline(never)]
fn tail_a(x: u32, depth: u32) -> u32 {
    if depth == 0 {
        x
    } else {
        black_box(tail_b(x ^ 0x55AA, depth - 1))
    }
}

#[inline(never)]
fn tail_b(x: u32, depth: u32) -> u32 {
    if depth == 0 {
        x.wrapping_mul(3)
    } else {
        tail_a(x.rotate_left(3), depth - 1)
    }
}

/// Calls in tail position (LLVM's object writer emits them as the 68020
/// `bra.l`; GNU as relaxes them to 68000 branches).
#[unsafe(no_mangle)]
pub extern "C" fn c_tail(x: u32, depth: u32) -> u32 {
    tail_b(x, depth)
}

/// `memcpy` through `copy_nonoverlapping` with a runtime length.
///
/// # Safety
/// Valid, non-overlapping `n`-byte ranges.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_memcpy(dst: *mut u8, src: *const u8, n: u32) {
    // SAFETY: guaranteed by the caller.
    unsafe { core::ptr::copy_nonoverlapping(src, dst, n as usize) }
}

/// `memmove` through `ptr::copy` with a runtime length.
///
/// # Safety
/// Valid `n`-byte ranges (they may overlap).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_memmove(dst: *mut u8, src: *const u8, n: u32) {
    // SAFETY: guaranteed by the caller.
    unsafe { core::ptr::copy(src, dst, n as usize) }
}

/// `memset` through `write_bytes` with a runtime length.
///
/// # Safety
/// A valid `n`-byte range.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_memset(dst: *mut u8, value: u32, n: u32) {
    // SAFETY: guaranteed by the caller.
    unsafe { core::ptr::write_bytes(dst, value as u8, n as usize) }
}

/// Slice comparison (`memcmp`/`bcmp` from compiler_builtins): returns
/// `ordering + 1` (0 less, 1 equal, 2 greater) in bits 0–1 and equality in bit 8.
///
/// # Safety
/// Valid `n`-byte ranges.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_memcmp(a: *const u8, b: *const u8, n: u32) -> u32 {
    // SAFETY: guaranteed by the caller.
    let (a, b) = unsafe {
        (
            core::slice::from_raw_parts(a, n as usize),
            core::slice::from_raw_parts(b, n as usize),
        )
    };
    (a.cmp(b) as i32 + 1) as u32 | (u32::from(a == b) << 8)
}

/// 16- and 8-bit arithmetic: wrapping, saturating, sign extension.
#[unsafe(no_mangle)]
pub extern "C" fn c_narrow(a: u32, b: u32) -> u32 {
    let (a16, b16) = (a as u16, b as u16);
    let (a8, b8) = (a as i8, b as i8);
    let x = a16.wrapping_mul(b16) ^ a16.saturating_sub(b16).rotate_left(3);
    let y = a8.saturating_add(b8) as i32 + (a8 as i32) * (b8 as i32);
    let z = (a16 as i16).wrapping_div(if b16 == 0 { 1 } else { b16 as i16 });
    u32::from(x) ^ (y as u32).rotate_left(16) ^ (z as u32)
}

/// Narrow arguments (8/16-bit and `bool`, which LLVM reads from the low-order
/// bytes of their 4-byte stack slots) widened into memory the safe way, through
/// [`in_register`]: `out[0..5]` get `a`, `b`, `c`, `d`, `flag` widened to 32
/// bits, and the two `u16`s at `out[5]` get `a` and `b` widened to 16 bits.
///
/// # Safety
/// `out` must be valid for 6 `u32` writes (2-byte aligned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_widen_args(a: u8, b: i8, c: u16, d: i16, flag: bool, out: *mut u32) {
    // SAFETY: the caller provides 6 u32 slots.
    unsafe {
        *out = in_register(u32::from(a));
        *out.add(1) = in_register(b as u32);
        *out.add(2) = in_register(u32::from(c));
        *out.add(3) = in_register(d as u32);
        *out.add(4) = in_register(u32::from(flag));
        let out16 = out.add(5).cast::<u16>();
        *out16 = in_register(u16::from(a));
        *out16.add(1) = in_register(b as u16);
    }
}

/// Narrow values loaded through pointers (at odd addresses too), widened and
/// stored the safe way, through [`in_register`], including the loads LLVM
/// narrows itself (masks and shifts of a loaded `u32`). Reads `bytes[0..4]`,
/// `halves[0..3]` and `words[0]`; writes `out[0..13]` and two `u16`s at
/// `out[13]`: see the body for what goes where.
///
/// # Safety
/// Valid pointers for those reads and writes (`halves`, `words` and `out`
/// 2-byte aligned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_widen_loads(
    bytes: *const u8,
    halves: *const u16,
    words: *const u32,
    out: *mut u32,
) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        let w = *words;
        *out = in_register(u32::from(*bytes.add(1)));
        *out.add(1) = in_register(*bytes.add(3) as i8 as u32);
        *out.add(2) = in_register(u32::from(*halves));
        *out.add(3) = in_register(*halves.add(1) as i16 as u32);
        *out.add(4) = in_register(w & 0xFF);
        *out.add(5) = in_register(w & 0xFFFF);
        *out.add(6) = in_register(w >> 16);
        *out.add(7) = in_register(w >> 24);
        *out.add(8) = in_register((w >> 8) & 0xFF);
        *out.add(9) = in_register((((w as i32) << 16) >> 16) as u32);
        *out.add(10) = in_register(((w as i32) >> 16) as u32);
        out.add(11)
            .cast::<u64>()
            .write_unaligned(u64::from(in_register(u32::from(*halves.add(2)))));
        let out16 = out.add(13).cast::<u16>();
        *out16 = in_register(u16::from(*bytes));
        *out16.add(1) = in_register(*bytes.add(2) as i8 as u16);
    }
}

/// Widens `src[..n]` into `dst[..n]` (zero-extended) and `dst[n..2n]`
/// (sign-extended) the safe way: the loops LLVM otherwise selects as
/// `move.l (%a0)+,(%a1)+`, reading 4 bytes per 2-byte element.
///
/// # Safety
/// `src` valid for `n` reads, `dst` for `2 * n` writes (both 2-byte aligned).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_widen_loop(src: *const u16, dst: *mut u32, n: u32) {
    let n = n as usize;
    // SAFETY: guaranteed by the caller.
    unsafe {
        for i in 0..n {
            *dst.add(i) = in_register(u32::from(*src.add(i)));
        }
        for i in 0..n {
            *dst.add(n + i) = in_register(*src.add(i) as i16 as u32);
        }
    }
}

/// `Vec` growth from empty to `n` elements (reallocations through the
/// allocator: `MemPtrNew`, `MemPtrResize`, `MemChunkFree` on the 68k), then a
/// checksum over the elements, the capacity growth steps and a `Box`.
#[unsafe(no_mangle)]
pub extern "C" fn c_vec_growth(n: u32, seed: u32) -> u32 {
    let mut v: Vec<u32> = Vec::new();
    let mut grew = 0u32;
    let mut last_capacity = v.capacity();
    for i in 0..n {
        v.push(i.wrapping_mul(seed) ^ (i >> 3));
        if v.capacity() != last_capacity {
            grew += 1;
            last_capacity = v.capacity();
        }
    }
    let mut sum = 0u32;
    for (i, x) in v.iter().enumerate() {
        sum = sum.rotate_left(3) ^ x.wrapping_add(i as u32);
    }
    let boxed = Box::new([sum, grew, v.len() as u32]);
    let words: Vec<u64> = v.iter().map(|&x| u64::from(x) << 7).collect();
    let wide = words.iter().fold(0u64, |a, &w| a.wrapping_add(w));
    boxed[0] ^ boxed[1].rotate_left(16) ^ boxed[2] ^ (wide as u32) ^ ((wide >> 32) as u32)
}

/// A trap call: `StrLen` of a NUL-terminated string (the harness answers it),
/// plus the length the Rust code counts itself, as `palm << 16 | rust`.
///
/// # Safety
/// `s` must point to a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_trap_strlen(s: *const u8) -> u32 {
    let mut rust = 0u32;
    // SAFETY: the caller guarantees a NUL terminator.
    while unsafe { *s.add(rust as usize) } != 0 {
        rust += 1;
    }
    #[cfg(target_arch = "m68k")]
    // SAFETY: a valid NUL-terminated string; StrLen only reads it.
    let palm = unsafe { m68k_palmos_sys::StrLen(s.cast()) } as u32;
    #[cfg(not(target_arch = "m68k"))]
    let palm = rust;
    (palm << 16) | rust
}

/// `(hi << 32) | lo` returned as a `u64`: where LLVM's m68k C convention puts
/// the two halves of a 64-bit result (D0 and D1; the test says which).
#[unsafe(no_mangle)]
pub extern "C" fn c_u64_return(hi: u32, lo: u32) -> u64 {
    black_box(join(hi, lo))
}

/// A structure whose 68k layout differs from a 64-bit host's: after the byte,
/// the `u32` is at offset 2 on the 68k (`u32` is 2-aligned there) and at 4 on
/// the host. The hand-written `asm/mixed.s` reads it through the offsets this
/// crate declares as assembly constants (below).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Mixed {
    /// A byte.
    pub tag: u8,
    /// A long after it.
    pub long: u32,
    /// A word.
    pub word: u16,
    /// A long after the word.
    pub last: u32,
}

// The offsets of `Mixed` as the 68k compilation lays it out, for `asm/mixed.s`
// (palm-build collects them into asm-constants.inc).
#[cfg(target_arch = "m68k")]
core::arch::global_asm!(
    ".equ MIXED_TAG, {tag}",
    ".equ MIXED_LONG, {long}",
    ".equ MIXED_WORD, {word}",
    ".equ MIXED_LAST, {last}",
    ".equ MIXED_SIZE, {size}",
    tag = const core::mem::offset_of!(Mixed, tag),
    long = const core::mem::offset_of!(Mixed, long),
    word = const core::mem::offset_of!(Mixed, word),
    last = const core::mem::offset_of!(Mixed, last),
    size = const core::mem::size_of::<Mixed>(),
);

#[cfg(target_arch = "m68k")]
unsafe extern "C" {
    /// `asm/mixed.s`: the sum of `p`'s four fields plus `c_urem(last, 10)`.
    fn corpus_mixed_sum(p: *const Mixed) -> u32;
}

/// Hand-written assembly in a crate (`asm/mixed.s`, assembled by palm-build):
/// `tag + long + word + last + last % 10` of `*p`, the fields read at the
/// offsets of the assembly constants, the remainder by a call back into Rust
/// (`c_urem`). Wrapping sums.
///
/// # Safety
/// `p` points to a readable `Mixed`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn c_asm_mixed_sum(p: *const Mixed) -> u32 {
    #[cfg(target_arch = "m68k")]
    // SAFETY: the caller's guarantee; the routine only reads `*p`.
    return unsafe { corpus_mixed_sum(p) };
    #[cfg(not(target_arch = "m68k"))]
    {
        // SAFETY: the caller's guarantee.
        let m = unsafe { *p };
        u32::from(m.tag)
            .wrapping_add(m.long)
            .wrapping_add(u32::from(m.word))
            .wrapping_add(m.last)
            .wrapping_add(c_urem(m.last, 10))
    }
}
