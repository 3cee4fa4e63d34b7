//! Memory accesses in the 68000 forms LLVM's m68k backend does not choose: `lea`
//! to address a field once, and read-modify-write in memory (`addq`, `add`, `sub`,
//! `or`, `bset` on the operand itself, where LLVM loads, changes and stores). Each
//! has a host stand-in with the same effect. The zero-extending loads (on the 68k
//! `moveq #0` + a move: LLVM masks with a 6-byte `andi.l`) are the host stand-ins'
//! only now: their 68k users are assembly.

/// The `u16` at `p`, zero-extended: on the 68k `moveq #0` and a word move (LLVM
/// loads the word and masks it with a 6-byte `andi.l #65535`).
///
/// # Safety
/// `p` is a readable, 2-aligned `u16`.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub unsafe fn read_u16(p: *const u16) -> usize {
    // SAFETY: the caller's guarantee.
    unsafe { read_u16_at::<0>(p.cast()) }
}

/// [`read_u16`] of the `u16` `OFF` bytes after `p` (host stand-ins: the 68k's
/// assembly loads such fields itself).
///
/// # Safety
/// `p + OFF` is a readable, 2-aligned `u16`.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub unsafe fn read_u16_at<const OFF: usize>(p: *const u8) -> usize {
    // SAFETY: the caller's guarantee.
    usize::from(unsafe { p.add(OFF).cast::<u16>().read() })
}

/// The byte at `p`, zero-extended (host stand-ins, as [`read_u16_at`]).
///
/// # Safety
/// `p` is readable.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub unsafe fn read_u8(p: *const u8) -> u32 {
    // SAFETY: the caller's guarantee.
    unsafe { read_u8_at::<0>(p) }
}

/// [`read_u8`] of the byte `OFF` bytes after `p` (host stand-ins, as
/// [`read_u16_at`]).
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
/// and moves it back: 10 bytes), opaque to LLVM.
///
/// # Safety
/// The result is inside (or one past) the allocation `p` points into.
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

/// Adds `D` (1 or −1) to the `u32` `N` bytes after `p` in memory: on the 68k one
/// `addq.l`/`subq.l #1,(N,%a0)` (LLVM loads, adds and stores: 10 bytes).
///
/// # Safety
/// `p + N` is a writable, 2-aligned `u32`.
#[inline(always)]
pub unsafe fn bump<const N: usize, const D: i32>(p: *mut u8) {
    // The 68k form is `addq`/`subq #1`: D is 1 or −1.
    const { assert!(D == 1 || D == -1) };
    #[cfg(target_arch = "m68k")]
    // SAFETY: the caller's guarantee; one read-modify-write of that long.
    unsafe {
        if D > 0 {
            core::arch::asm!(".short 0x52A8, {n}", n = const N, in("a0") p, options(nostack));
        } else {
            core::arch::asm!(".short 0x53A8, {n}", n = const N, in("a0") p, options(nostack));
        }
    }
    #[cfg(not(target_arch = "m68k"))]
    // SAFETY: the caller's guarantee.
    unsafe {
        let q = p.add(N).cast::<u32>();
        q.write(q.read().wrapping_add_signed(D));
    }
}

/// Adds `v` to the `u32` `N` bytes after `p` in memory: one `add.l` (LLVM loads,
/// adds and stores).
///
/// # Safety
/// `p + N` is a writable, 2-aligned `u32`.
#[cfg_attr(target_arch = "m68k", allow(dead_code))]
#[inline(always)]
pub unsafe fn add_to<const N: usize>(p: *mut u8, v: u32) {
    #[cfg(target_arch = "m68k")]
    // SAFETY: the caller's guarantee; one read-modify-write of that long.
    unsafe {
        core::arch::asm!(
            "add.l {v},({n},{p})",
            v = in(reg_data) v,
            n = const N,
            p = in(reg_addr) p,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "m68k"))]
    // SAFETY: the caller's guarantee.
    unsafe {
        let q = p.add(N).cast::<u32>();
        q.write(q.read().wrapping_add(v));
    }
}

/// Ors `v` into the `u16` `N` bytes after `p` in memory: one `or.w` (LLVM loads, ors
/// and stores).
///
/// # Safety
/// `p + N` is a writable, 2-aligned `u16`.
#[inline(always)]
pub unsafe fn or_to16<const N: usize>(p: *mut u8, v: u16) {
    #[cfg(target_arch = "m68k")]
    // SAFETY: the caller's guarantee; one read-modify-write of that word.
    unsafe {
        core::arch::asm!(
            "or.w {v},({n},{p})",
            v = in(reg_data) v,
            n = const N,
            p = in(reg_addr) p,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "m68k"))]
    // SAFETY: the caller's guarantee.
    unsafe {
        *p.add(N).cast::<u16>() |= v;
    }
}

/// Subtracts `v` from the `u32` `N` bytes after `p` in memory: one `sub.l` (LLVM
/// loads, subtracts and stores).
///
/// # Safety
/// `p + N` is a writable, 2-aligned `u32`.
#[cfg_attr(target_arch = "m68k", allow(dead_code))]
#[inline(always)]
pub unsafe fn sub_from<const N: usize>(p: *mut u8, v: u32) {
    #[cfg(target_arch = "m68k")]
    // SAFETY: the caller's guarantee; one read-modify-write of that long.
    unsafe {
        core::arch::asm!(
            "sub.l {v},({n},{p})",
            v = in(reg_data) v,
            n = const N,
            p = in(reg_addr) p,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "m68k"))]
    // SAFETY: the caller's guarantee.
    unsafe {
        let q = p.add(N).cast::<u32>();
        q.write(q.read().wrapping_sub(v));
    }
}

/// Sets bit `B` (0–7) of the byte `N` bytes after `p`: one `bset` in memory (LLVM
/// loads the long, ors and stores: 14 bytes).
///
/// # Safety
/// `p + N` is a writable byte.
#[inline(always)]
pub unsafe fn bset<const N: usize, const B: u32>(p: *mut u8) {
    #[cfg(target_arch = "m68k")]
    // SAFETY: the caller's guarantee; one read-modify-write of that byte.
    unsafe {
        core::arch::asm!(
            "bset #{b},({n},{p})",
            b = const B,
            n = const N,
            p = in(reg_addr) p,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "m68k"))]
    // SAFETY: the caller's guarantee.
    unsafe {
        *p.add(N) |= 1 << B;
    }
}
