//! Writing code that LLVM's m68k backend compiles correctly.
//!
//! Two miscompilations cannot be repaired after instruction selection, so
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
//! Both cost nothing beyond what correctly compiled code needs; on the host
//! they are the identity.

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
