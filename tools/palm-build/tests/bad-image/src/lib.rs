//! Crafted bad inputs for palm-build's tests: every cargo feature adds one
//! function that breaks one rule of Palm code 1. Built only by
//! `tools/palm-build/tests/rejects.rs` (for the 68000), never for the host.

#![no_std]
#![feature(asm_experimental_arch)]
#![allow(missing_docs)]

/// Always present, so the image is never empty.
#[unsafe(no_mangle)]
pub extern "C" fn ok_function(x: u32) -> u32 {
    x.wrapping_mul(3)
}

/// An absolute 32-bit reference in code (R_68K_32 in .text).
#[cfg(feature = "absolute-relocation")]
#[unsafe(no_mangle)]
pub extern "C" fn absolute_reference() -> u32 {
    let address: u32;
    // SAFETY: loads a constant; no memory access.
    unsafe { core::arch::asm!("move.l #ok_function, {0}", out(reg_data) address) };
    address
}

/// A static table of `&str`: pointers that need absolute relocation (.data.rel.ro).
#[cfg(feature = "pointer-table")]
#[unsafe(no_mangle)]
pub extern "C" fn pointer_table(i: u32) -> u32 {
    static NAMES: [&str; 3] = ["pointer", "handle", "chunk"];
    NAMES[(i % 3) as usize].len() as u32
}

/// A writable static: there is no writable memory in code 1.
#[cfg(feature = "static-mut")]
#[unsafe(no_mangle)]
pub extern "C" fn bump_counter() -> u32 {
    static mut COUNTER: u32 = 0;
    // SAFETY: single-threaded test code; the point is that it must not link.
    unsafe {
        COUNTER += 1;
        COUNTER
    }
}

/// A 68020 `bra.l` (0x60FF + 32-bit displacement), written as data so that
/// GNU as accepts it: the verifier must find it.
#[cfg(feature = "bra-l")]
#[unsafe(no_mangle)]
pub extern "C" fn long_branch() -> u32 {
    // SAFETY: never executed by the tests; it only has to be linked.
    unsafe {
        core::arch::asm!(
            ".short 0x60ff, 0x0000, 0x0002",
            "nop",
            options(nomem, nostack)
        )
    };
    7
}

/// 40 000 bytes of rodata: over the 32 KB a 16-bit PC displacement reaches.
#[cfg(feature = "too-large")]
#[unsafe(no_mangle)]
pub extern "C" fn big_table(i: u32) -> u8 {
    static BIG: [u8; 40_000] = {
        let mut t = [0u8; 40_000];
        let mut i = 0;
        while i < t.len() {
            t[i] = (i * 7) as u8;
            i += 1;
        }
        t
    };
    BIG[(i as usize) % BIG.len()]
}

/// A local array indexed with a variable offset (LLVM bug: the index is dropped).
#[cfg(feature = "stack-index")]
#[unsafe(no_mangle)]
pub extern "C" fn stack_index(i: u32, v: u8) -> u8 {
    let mut buf = [0u8; 16];
    buf[(i & 15) as usize] = v;
    buf[3] ^ buf[((i + 1) & 15) as usize]
}

/// A struct passed by value (a `byval` frame object, not an `alloca`)
/// indexed with a variable offset: LLVM bug 2 without a stack array in the IR.
#[cfg(feature = "byval-index")]
#[repr(C)]
pub struct Words {
    pub w: [u32; 6],
}

#[cfg(feature = "byval-index")]
#[unsafe(no_mangle)]
pub extern "C" fn byval_index(words: Words, i: u32) -> u32 {
    words.w[(i % 6) as usize]
}

/// `write!` into a fixed buffer: core's hexadecimal formatting indexes its
/// stack buffer (bug 2, in core::fmt's code, reached from this function).
#[cfg(feature = "fmt-write")]
#[unsafe(no_mangle)]
pub extern "C" fn write_hex(v: u32, out: *mut u8) -> u32 {
    use core::fmt::Write;
    struct Buf {
        bytes: [u8; 8],
        len: usize,
    }
    impl Write for Buf {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            for &b in s.as_bytes() {
                if self.len < 8 {
                    self.bytes[self.len] = b;
                    self.len += 1;
                }
            }
            Ok(())
        }
    }
    let mut buf = Buf {
        bytes: [0; 8],
        len: 0,
    };
    let _ = write!(buf, "{v:x}");
    // SAFETY: the caller provides 8 bytes at `out`.
    unsafe { core::ptr::copy_nonoverlapping(buf.bytes.as_ptr(), out, 8) };
    buf.len as u32
}

/// A 16-bit argument widened into memory (LLVM bug 7: one `move.l` from the
/// argument's 2-byte half of its stack slot, reading 4 bytes).
///
/// # Safety
/// `p` must be valid for a 4-byte write.
#[cfg(feature = "wide-move")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn widen_into_memory(a: u16, p: *mut u32) {
    // SAFETY: guaranteed by the caller.
    unsafe { *p = u32::from(a) }
}

/// An atomic read-modify-write: LLVM calls `__sync_fetch_and_add_4`, which
/// nothing defines for the 68000.
#[cfg(feature = "atomics")]
#[unsafe(no_mangle)]
pub extern "C" fn bump_atomic() -> u32 {
    use core::sync::atomic::{AtomicU32, Ordering};
    static COUNT: AtomicU32 = AtomicU32::new(0);
    COUNT.fetch_add(1, Ordering::Relaxed)
}

/// A `dyn Trait` call: its vtable holds absolute function pointers.
#[cfg(feature = "dyn-trait")]
#[unsafe(no_mangle)]
pub extern "C" fn dyn_area(which: u32, x: u32) -> u32 {
    trait Shape {
        fn area(&self) -> u32;
    }
    struct Square(u32);
    struct Line(u32);
    impl Shape for Square {
        fn area(&self) -> u32 {
            self.0 * self.0
        }
    }
    impl Shape for Line {
        fn area(&self) -> u32 {
            self.0
        }
    }
    let (s, l) = (Square(x), Line(x));
    let shape: &dyn Shape = if which == 0 { &s } else { &l };
    core::hint::black_box(shape).area()
}

/// A 16-bit multiplication with an overflow check (LLVM drops the check).
#[cfg(feature = "narrow-mul")]
#[unsafe(no_mangle)]
pub extern "C" fn narrow_checked_mul(a: u16, b: u16) -> u32 {
    match a.checked_mul(b) {
        Some(p) => u32::from(p),
        None => u32::MAX,
    }
}

#[unsafe(no_mangle)]
extern "C" fn abort() -> ! {
    // SAFETY: ILLEGAL (0x4AFC) traps to the illegal-instruction vector.
    unsafe { core::arch::asm!(".short 0x4afc", options(noreturn)) }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    abort()
}
