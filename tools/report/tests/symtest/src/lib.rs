//! Known functions and call sites for memdbg-report's symbolization test
//! (`tools/report/tests/symbolize.rs`). The test finds each `// SITE:` marker's
//! line in this file and each function's address in the ELF's symbol table, so
//! nothing here is hard-coded there. Every call's result is used afterwards so
//! that no call becomes a tail jump.

#![no_std]

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
