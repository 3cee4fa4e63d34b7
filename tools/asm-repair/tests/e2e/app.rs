//! Sample app compiled by the end-to-end test (tests/end_to_end.rs) for
//! m68k-unknown-none-elf with the pinned toolchain; its assembly is repaired,
//! assembled with GNU as -m68000, and these functions are run in the
//! emulator against the same code on the host. Also the source of the
//! fixtures in tests/fixtures/app_*.s.
#![no_std]
#![feature(asm_experimental_arch)]

/// Panics compile to `jsr abort` (panic = "immediate-abort").
#[unsafe(no_mangle)]
pub extern "C" fn abort() -> ! {
    loop {}
}

/// `u32::checked_mul`: LLVM emits the 68020 `mulu.l` + `bvc`.
#[unsafe(no_mangle)]
pub extern "C" fn cmul(a: u32, b: u32) -> u32 {
    a.checked_mul(b).unwrap_or(7)
}

/// `i32::checked_mul`: `muls.l` + `bvc`.
#[unsafe(no_mangle)]
pub extern "C" fn smul(a: i32, b: i32) -> i32 {
    a.checked_mul(b).unwrap_or(7)
}

/// `i32::overflowing_mul`: `muls.l` + `svs`.
#[unsafe(no_mangle)]
pub extern "C" fn omul(a: i32, b: i32) -> u32 {
    let (r, o) = a.overflowing_mul(b);
    (r as u32) ^ ((o as u32) << 31)
}

/// `u32::saturating_mul`.
#[unsafe(no_mangle)]
pub extern "C" fn satmul(a: u32, b: u32) -> u32 {
    a.saturating_mul(b)
}

/// `i32::saturating_mul`.
#[unsafe(no_mangle)]
pub extern "C" fn satsmul(a: i32, b: i32) -> i32 {
    a.saturating_mul(b)
}

/// Decimal parse with checked arithmetic (0 on overflow or a non-digit).
///
/// # Safety
/// `p..p+n` must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parse_dec(p: *const u8, n: usize) -> u32 {
    let s = unsafe { core::slice::from_raw_parts(p, n) };
    let mut r = 0u32;
    for &c in s {
        if !c.is_ascii_digit() {
            return 0;
        }
        r = match r.checked_mul(10).and_then(|r| r.checked_add((c - b'0') as u32)) {
            Some(v) => v,
            None => return 0,
        };
    }
    r
}

/// Selects: min/max compile to compare + branch with register copies in
/// between (the CCR-clobbering pattern).
#[unsafe(no_mangle)]
pub extern "C" fn median3(a: u32, b: u32, c: u32) -> u32 {
    a.max(b).min(a.min(b).max(c))
}

/// Signed selects.
#[unsafe(no_mangle)]
pub extern "C" fn clamp_i32(x: i32, lo: i32, hi: i32) -> i32 {
    if lo > hi { lo } else { x.clamp(lo, hi) }
}

/// A loop with more live values than registers (spills and reloads).
///
/// # Safety
/// `p..p+n` must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pressure(p: *const u32, n: usize) -> u32 {
    let a = unsafe { core::slice::from_raw_parts(p, n) };
    let (mut s0, mut s1, mut s2, mut s3, mut s4, mut s5, mut s6, mut s7, mut s8) =
        (0u32, 1u32, 2u32, 3u32, 4u32, 5u32, 6u32, 7u32, 8u32);
    for &x in a {
        s0 = s0.wrapping_add(x);
        s1 ^= x.rotate_left(3);
        s2 = s2.wrapping_mul(x | 1);
        s3 = s3.wrapping_sub(x >> 2);
        s4 |= x & s0;
        s5 = s5.wrapping_add(s1 ^ s2);
        s6 = s6.max(x);
        s7 = s7.min(x.wrapping_add(s3));
        s8 = s8.wrapping_add(if x > s4 { 1 } else { 2 });
    }
    s0 ^ s1 ^ s2 ^ s3 ^ s4 ^ s5 ^ s6 ^ s7 ^ s8
}

/// 64-bit arithmetic through compiler_builtins.
#[unsafe(no_mangle)]
pub extern "C" fn mix64(a: u64, b: u64) -> u64 {
    let q = a / (b | 1);
    let r = a % (b | 1);
    q.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ r.rotate_left(13)
}

/// A match compiled to a jump table.
#[unsafe(no_mangle)]
pub extern "C" fn jump_table(a: u32, b: u32) -> u32 {
    match a {
        0 => b + 1,
        1 => b.wrapping_mul(3),
        2 => b ^ 0x55,
        3 => b.rotate_left(3),
        4 => b / 3,
        5 => 77,
        6 => b.wrapping_sub(9),
        _ => 0,
    }
}

/// Routes a pointer through `black_box` (an empty inline asm: `;APP`).
///
/// # Safety
/// `p..p+n` must be readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn opaque_sum(p: *const u16, n: usize) -> u32 {
    let p = core::hint::black_box(p);
    let mut s = 0u32;
    for i in 0..n {
        s = s.wrapping_add(u32::from(unsafe { *p.add(i) }));
    }
    s
}

/// `u16::checked_mul`: LLVM drops the overflow check entirely (see the
/// crate docs); the end-to-end test pins down that behaviour.
#[unsafe(no_mangle)]
pub extern "C" fn cmul16(a: u16, b: u16) -> u16 {
    a.checked_mul(b).unwrap_or(7)
}

/// Hand-written asm that relies on MOVE setting Z. rustc prints naked
/// functions and `global_asm!` as file-scope asm without `;APP` markers; the
/// pass must recognise them (no `.Lfunc_endN` label) and leave them alone.
#[unsafe(naked)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn z_naked_nonzero(x: u32) -> u32 {
    core::arch::naked_asm!("move.l (4,%sp),%d0", "beq 1f", "moveq #1,%d0", "1: rts")
}

core::arch::global_asm!(
    ".globl z_global_nonzero",
    "z_global_nonzero:",
    "move.l (4,%sp),%d0",
    "beq 1f",
    "moveq #1,%d0",
    "1: rts",
);

/// Inline asm relying on MOVE setting Z (between `;APP` and `;NO_APP`).
#[unsafe(no_mangle)]
pub extern "C" fn z_inline_nonzero(a: u32) -> u32 {
    let r: u32;
    // SAFETY: register-only code.
    unsafe {
        core::arch::asm!(
            "move.l {0},{1}",
            "beq 1f",
            "moveq #1,{1}",
            "1:",
            in(reg_data) a,
            out(reg_data) r,
        );
    }
    r
}
