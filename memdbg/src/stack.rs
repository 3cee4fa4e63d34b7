//! Call stacks from the A6 frame chain.
//!
//! Every function of the app is built with frame pointers (`link.w %a6` on entry,
//! TOOLCHAIN.md: `-C force-frame-pointers=yes`; prc-tools' GCC does the same unless
//! told otherwise), so at any point `0(a6)` holds the caller's saved A6 and `4(a6)`
//! the return address into the caller. A walk starts from one known return address
//! and the frame of the function it returns into, then follows the chain.
//!
//! Frames are stored as offsets from code 1's start when they fall inside it (so the
//! host tool can symbolize them with the ELF), else raw ([`crate::record::Stack::raw_mask`]).
//! The walk stops after the first frame outside code 1 (the OS's frames are not ours
//! to follow: the stack is complete), at [`crate::record::STACK_FRAMES`] frames, or
//! when the next frame is not plausible: a frame pointer that is null or odd, a
//! return address that is null or odd, or a saved A6 not above the current one or
//! more than [`MAX_FRAME_GAP`] above it (a Palm stack is far smaller; that frame's
//! return address still counts, and the chain ends after it), so it never reads
//! wild addresses. A six-frame walk cut at the limit with the chain going on, or
//! at a broken chain inside code 1, says so in the stack
//! ([`crate::record::Stack::TRUNCATED_DEPTH`],
//! [`crate::record::Stack::TRUNCATED_CHAIN`]). The walk itself is 68000 assembly (`asm/block.s`, `__memdbg_walk`:
//! it runs on every allocation of a Rust block and with call stacks on every one),
//! called through [`crate::block::capture`].

/// Code 1's address range `[base, end)` (68k addresses); empty if unknown.
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct CodeRange {
    /// First byte of code 1.
    pub base: u32,
    /// One past its last byte.
    pub end: u32,
}

impl CodeRange {
    /// Whether `addr` is inside code 1 (one unsigned compare: `base <= end`).
    #[inline]
    pub fn contains(&self, addr: u32) -> bool {
        addr.wrapping_sub(self.base) < self.end.wrapping_sub(self.base)
    }
}

/// Largest distance between two successive frames that the walk accepts (bytes).
pub const MAX_FRAME_GAP: u32 = 0x1_0000;

asm_constants! {
    MAX_FRAME_GAP = MAX_FRAME_GAP;
}

/// The return address into the program and the program's frame, for a function
/// the program called: read from that function's own frame (`4(a6)` and `0(a6)`).
/// Call it from the body of an `#[inline(never)]` function (the wrappers), where A6
/// is that function's frame.
#[inline(always)]
pub fn program_caller() -> (u32, u32) {
    #[cfg(target_arch = "m68k")]
    {
        let a6: *const u32;
        // SAFETY: reads A6 only.
        unsafe {
            core::arch::asm!("move.l %a6,{}", out(reg_addr) a6, options(nomem, nostack, preserves_flags))
        };
        // SAFETY: A6 is the live frame of the (not inlined) function being run: it
        // holds the caller's A6 at 0 and the return address at 4.
        unsafe { (a6.add(1).read(), a6.read()) }
    }
    #[cfg(not(target_arch = "m68k"))]
    crate::not_on_palm()
}
