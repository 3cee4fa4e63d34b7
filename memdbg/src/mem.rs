//! Memory accesses in the 68000 forms LLVM's m68k backend does not choose: a
//! zero-extending load as `moveq #0` + a move (LLVM masks with a 6-byte `andi.l`),
//! `lea` to address a field once, and `bset` on the operand itself (where LLVM
//! loads, changes and stores). Each has a host stand-in with the same effect. The
//! counter updates in memory (`bump`, `add_to`, `sub_from`) and the byte loads exist
//! only on the host: on the 68k the assembly does them itself.

/// The `u16` at `p`, zero-extended: on the 68k `moveq #0` and a word move (LLVM
/// loads the word and masks it with a 6-byte `andi.l #65535`).
///
/// # Safety
/// `p` is a readable, 2-aligned `u16`.
#[inline(always)]
pub unsafe fn read_u16(p: *const u16) -> usize {
    // SAFETY: the caller's guarantee.
    unsafe { read_u16_at::<0>(p.cast()) }
}

/// [`read_u16`] of the `u16` `OFF` bytes after `p` (the offset in the instruction).
///
/// # Safety
/// `p + OFF` is a readable, 2-aligned `u16`.
#[inline(always)]
pub unsafe fn read_u16_at<const OFF: usize>(p: *const u8) -> usize {
    #[cfg(target_arch = "m68k")]
    {
        let v: usize;
        // SAFETY: the caller's guarantee; one word read.
        unsafe {
            core::arch::asm!(
                "moveq #0,{v}",
                "move.w ({off},{p}),{v}",
                p = in(reg_addr) p,
                off = const OFF,
                v = out(reg_data) v,
                options(readonly, nostack),
            )
        };
        v
    }
    // SAFETY: the caller's guarantee.
    #[cfg(not(target_arch = "m68k"))]
    usize::from(unsafe { p.add(OFF).cast::<u16>().read() })
}

/// The byte at `p`, zero-extended (host stand-ins: the 68k's assembly loads bytes
/// itself).
///
/// # Safety
/// `p` is readable.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub unsafe fn read_u8(p: *const u8) -> u32 {
    // SAFETY: the caller's guarantee.
    unsafe { read_u8_at::<0>(p) }
}

/// [`read_u8`] of the byte `OFF` bytes after `p` (host stand-ins, as [`read_u8`]).
///
/// # Safety
/// `p + OFF` is readable.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub unsafe fn read_u8_at<const OFF: usize>(p: *const u8) -> u32 {
    // SAFETY: the caller's guarantee.
    u32::from(unsafe { p.add(OFF).read() })
}

/// `p` advanced by `N` bytes with one `lea` (LLVM adds to a copy in a data register
/// and moves it back: 10 bytes), opaque to LLVM (host stand-ins and the C
/// interface: the rest of the 68k's code is assembly).
///
/// # Safety
/// The result is inside (or one past) the allocation `p` points into.
#[cfg(any(not(target_arch = "m68k"), feature = "capi"))]
#[inline(always)]
pub unsafe fn lea<const N: usize, T>(p: *mut T) -> *mut T {
    #[cfg(target_arch = "m68k")]
    {
        let mut p = p;
        // SAFETY: address arithmetic only (no memory access, flags kept).
        unsafe {
            core::arch::asm!(
                "lea ({n},{p}),{p}",
                n = const N,
                p = inout(reg_addr) p,
                options(pure, nomem, nostack, preserves_flags),
            )
        };
        p
    }
    // SAFETY: the caller's guarantee.
    #[cfg(not(target_arch = "m68k"))]
    unsafe {
        p.byte_add(N)
    }
}

/// Adds `D` (1 or −1) to the `u32` `N` bytes after `p` in memory (host stand-ins of
/// the assembly, which does it with one `addq.l`/`subq.l #1,(N,%aN)`).
///
/// # Safety
/// `p + N` is a writable, 2-aligned `u32`.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub unsafe fn bump<const N: usize, const D: i32>(p: *mut u8) {
    const { assert!(D == 1 || D == -1) };
    // SAFETY: the caller's guarantee.
    unsafe {
        let q = p.add(N).cast::<u32>();
        q.write(q.read().wrapping_add_signed(D));
    }
}

/// Adds `v` to the `u32` `N` bytes after `p` in memory (host stand-ins of the
/// assembly, which adds in memory with one `add.l`).
///
/// # Safety
/// `p + N` is a writable, 2-aligned `u32`.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub unsafe fn add_to<const N: usize>(p: *mut u8, v: u32) {
    // SAFETY: the caller's guarantee.
    unsafe {
        let q = p.add(N).cast::<u32>();
        q.write(q.read().wrapping_add(v));
    }
}

/// Subtracts `v` from the `u32` `N` bytes after `p` in memory (host stand-ins of
/// the assembly, which subtracts in memory with one `sub.l`).
///
/// # Safety
/// `p + N` is a writable, 2-aligned `u32`.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub unsafe fn sub_from<const N: usize>(p: *mut u8, v: u32) {
    // SAFETY: the caller's guarantee.
    unsafe {
        let q = p.add(N).cast::<u32>();
        q.write(q.read().wrapping_sub(v));
    }
}

/// Sets bit `B` (0–7) of the byte `N` bytes after `p` (host stand-ins: the 68k's
/// assembly sets flags itself).
///
/// # Safety
/// `p + N` is a writable byte.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub unsafe fn bset<const N: usize, const B: u32>(p: *mut u8) {
    // SAFETY: the caller's guarantee.
    unsafe {
        *p.add(N) |= 1 << B;
    }
}
