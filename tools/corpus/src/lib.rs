//! # The differential corpus
//!
//! Ordinary Rust functions, compiled twice: for the host (this crate as an
//! rlib, called directly by `tests/differential.rs`) and for the MC68000 by
//! palm-build (this crate as a staticlib, run in the emulator). The test
//! compares the two on edge values. LLVM's m68k backend miscompiles ordinary
//! code (`docs/TOOLCHAIN.md`), so this corpus is what says the pipeline's
//! output can be trusted: each function targets a code shape that broke.
//!
//! All functions are `extern "C"` with integer or pointer arguments, so the
//! emulator harness can call them with LLVM's m68k C convention: every
//! argument in a 4-byte stack slot (8- and 16-bit ones extended by the caller,
//! read from the slot's low-order bytes). 64-bit values travel as (high, low)
//! halves and come back through an output pointer (or in D0:D1); 128-bit
//! values travel through pointers to four `u32` words, most significant
//! first.
//!
//! ## Images
//!
//! One code resource holds at most 32 KB, so the 68000 side is built as
//! several images, one per cargo feature, each with one module of functions
//! (the host side has all of them):
//!
//! | feature | module | what |
//! |---|---|---|
//! | `image-base` | [`base`] | 32/64-bit arithmetic, loops, memory routines, `Vec`, traps |
//! | `image-wide` | [`wide`] | 128-bit integers the pipeline compiles correctly |
//! | `image-refused` | [`refused`] | 128-bit code palm-build must refuse (LLVM bug 16) |
//!
//! The differential test builds the first two and calls each function in the
//! image that has it; the third must fail to build, naming every function in
//! it (with `PALM_BUILD_RAW_LLVM=1` it builds unchecked and runs, showing
//! what the check prevents). A new module goes into a new feature when an
//! image nears 32 KB.

#![cfg_attr(target_arch = "m68k", no_std)]
#![cfg_attr(target_arch = "m68k", feature(asm_experimental_arch))]
#![deny(missing_docs)]

extern crate alloc;

#[cfg(any(not(target_arch = "m68k"), feature = "image-base"))]
pub mod base;
#[cfg(any(not(target_arch = "m68k"), feature = "image-refused"))]
pub mod refused;
#[cfg(any(not(target_arch = "m68k"), feature = "image-wide"))]
pub mod wide;

/// `Vec`/`Box` go through the Memory Manager (`MemPtrNew`/`MemChunkFree`/
/// `MemPtrResize` traps) on the 68k; the test harness services them.
#[cfg(target_arch = "m68k")]
#[global_allocator]
static ALLOCATOR: m68k_palmos_sys::PalmAlloc = m68k_palmos_sys::PalmAlloc;

/// The 128-bit value in four `u32` words at `p`, most significant first.
///
/// # Safety
/// `p` must be valid for reading 16 bytes (2-byte aligned on the 68000).
#[cfg(any(
    not(target_arch = "m68k"),
    feature = "image-wide",
    feature = "image-refused"
))]
unsafe fn get128(p: *const u32) -> u128 {
    // SAFETY: guaranteed by the caller.
    (0..4).fold(0u128, |v, i| {
        (v << 32) | u128::from(unsafe { p.add(i).read_unaligned() })
    })
}

/// Writes `v` as four `u32` words at `p`, most significant first.
///
/// # Safety
/// `p` must be valid for writing 16 bytes (2-byte aligned on the 68000).
#[cfg(any(
    not(target_arch = "m68k"),
    feature = "image-wide",
    feature = "image-refused"
))]
unsafe fn put128(p: *mut u32, v: u128) {
    for i in 0..4 {
        // SAFETY: guaranteed by the caller.
        unsafe { p.add(i).write_unaligned((v >> (96 - 32 * i)) as u32) };
    }
}
