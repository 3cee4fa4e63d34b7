//! Guard bytes after a block: [`GUARD_LEN`] bytes of [`GUARD_BYTE`] right after the
//! requested size. The block itself starts at the chunk start (Palm OS validates chunk
//! pointers, DESIGN.md §5), so there is no guard before it.
//!
//! Byte accesses only: a block's end can be at any address.

use crate::record::{GUARD_BYTE, GUARD_LEN};

/// Writes the guard at `end` (the first byte after the block).
///
/// # Safety
/// `end..end + GUARD_LEN` is writable memory of the block's chunk (the chunk was
/// allocated with room for the guard).
#[cfg(not(target_arch = "m68k"))]
#[inline]
pub unsafe fn write(end: *mut u8) {
    // SAFETY: the caller guarantees GUARD_LEN writable bytes.
    unsafe { core::ptr::write_bytes(end, GUARD_BYTE, GUARD_LEN) }
}

/// The guard bytes at `end`, packed big-endian into a `u32` (byte `end[0]` in the top
/// byte); [`INTACT`] when undamaged. No array is involved, so nothing indexes a stack
/// array (TOOLCHAIN.md #2). Host only: the 68k's guard checks are assembly
/// (`track::check_guard`, `patch::free_block`), which read the bytes the same way.
///
/// # Safety
/// `end..end + GUARD_LEN` is readable.
#[cfg(not(target_arch = "m68k"))]
pub unsafe fn read(end: *const u8) -> u32 {
    let mut v = 0u32;
    let mut i = 0;
    while i < GUARD_LEN {
        // SAFETY: i < GUARD_LEN, readable by the caller's guarantee.
        v = (v << 8) | u32::from(unsafe { end.add(i).read_volatile() });
        i += 1;
    }
    v
}

static_assertions::const_assert_eq!(GUARD_LEN, 4);

/// [`read`]'s value for an intact guard.
pub const INTACT: u32 = u32::from_be_bytes([GUARD_BYTE; GUARD_LEN]);

/// Fills `len` bytes at `p` with `value` (new or freed blocks).
///
/// # Safety
/// `p..p + len` is writable.
#[cfg(not(target_arch = "m68k"))]
#[inline]
pub unsafe fn fill(p: *mut u8, len: u32, value: u8) {
    // SAFETY: the caller guarantees `len` writable bytes.
    unsafe { core::ptr::write_bytes(p, value, len as usize) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_detects_each_damaged_byte() {
        for damaged in 0..GUARD_LEN {
            let mut block = [0u8; 3 + GUARD_LEN];
            // SAFETY: block has 3 + GUARD_LEN bytes.
            unsafe { write(block.as_mut_ptr().add(3)) };
            assert_eq!(&block[3..], &[0xFD; GUARD_LEN]);
            // SAFETY: as above.
            assert_eq!(unsafe { read(block.as_ptr().add(3)) }, INTACT);
            block[3 + damaged] = 0;
            let mut want = [0xFD; GUARD_LEN];
            want[damaged] = 0;
            // SAFETY: as above.
            assert_eq!(
                unsafe { read(block.as_ptr().add(3)) },
                u32::from_be_bytes(want)
            );
        }
        assert_eq!(INTACT, 0xFDFD_FDFD);
    }

    #[test]
    fn fill_covers_exactly_the_block() {
        let mut block = [7u8; 6];
        // SAFETY: 4 of the 6 bytes, starting at 1.
        unsafe { fill(block.as_mut_ptr().add(1), 4, 0x31) };
        assert_eq!(block, [7, 0x31, 0x31, 0x31, 0x31, 7]);
    }
}
