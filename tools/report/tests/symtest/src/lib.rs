//! Known functions and call sites for memdbg-report's symbolization test
//! (`tools/report/tests/symbolize.rs`). The test finds each `// SITE:` marker's
//! line in this file and each function's address in the ELF's symbol table, so
//! nothing here is hard-coded there. Every call's result is used afterwards so
//! that no call becomes a tail jump.

#![no_std]
#![cfg_attr(target_arch = "m68k", feature(asm_experimental_arch))]
#![feature(used_with_arg)]

/// An entry like palm-sys's `__palm_entry`: a naked function (no DWARF of its own)
/// in `.text.palm_entry`, which the linker script puts first, at address 0, where
/// GNU ld also resolves the stale DWARF of every function `--gc-sections` removed.
///
/// # Safety
/// Never called: it is here to be symbolized.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
#[unsafe(no_mangle)]
#[unsafe(link_section = ".text.palm_entry")]
pub unsafe extern "C" fn symtest_entry() -> u32 {
    core::arch::naked_asm!(
        "link.w %a6,#0",
        "move.l #7,-(%sp)",
        "bsr.w {outer}",
        "lea (4,%sp),%sp",
        "unlk %a6",
        "rts",
        outer = sym symtest_outer,
    )
}

/// The innermost function.
#[inline(never)]
#[unsafe(no_mangle)]
pub extern "C" fn symtest_leaf(x: u32) -> u32 {
    x.wrapping_mul(7) ^ 0x55
}

/// Calls the leaf twice.
#[inline(never)]
#[unsafe(no_mangle)]
pub extern "C" fn symtest_middle(x: u32) -> u32 {
    let y = symtest_leaf(x); // SITE: middle calls leaf
    y.wrapping_add(3)
}

/// A Rust-mangled function (its symbol is demangled in reports).
#[inline(never)]
fn private_work(x: u32) -> u32 {
    let z = symtest_middle(x ^ 1); // SITE: private_work calls middle
    z.rotate_left(3)
}

/// The outermost function.
#[inline(never)]
#[unsafe(no_mangle)]
pub extern "C" fn symtest_outer(x: u32) -> u32 {
    let r = private_work(x); // SITE: outer calls private_work
    r ^ x
}

/// Kept by the compiler (`#[used(compiler)]`: no `SHF_GNU_RETAIN`) but not by the
/// linker: nothing refers to this
/// static, so `--gc-sections` removes it and `symtest_removed`, whose DWARF (line
/// sequence, subprogram, address range) GNU ld keeps with its addresses resolved to
/// 0, over `symtest_entry`. The report must not use it
/// (`tests/symbolize.rs`, `stale_dwarf_of_removed_functions_is_not_used`).
#[used(compiler)]
static REMOVED: extern "C" fn(u32) -> u32 = symtest_removed;

/// Removed by the linker (see [`REMOVED`]); long enough that its stale DWARF at
/// address 0 covers all of `symtest_entry`.
#[inline(never)]
extern "C" fn symtest_removed(x: u32) -> u32 {
    let mut acc = x;
    for i in 0..x {
        acc = acc.rotate_left(5) ^ i.wrapping_mul(0x9E37);
        if acc & 0x100 != 0 {
            acc = acc.wrapping_add(symtest_leaf(i));
        }
    }
    acc ^ 0x5A5A
}
