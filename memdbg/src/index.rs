//! The free path's index: 68k address (pointer or handle) → ledger slot, a
//! fixed-capacity open-addressing hash table with linear probing, kept in chunks of
//! the dynamic heap.
//!
//! - The table has a power-of-two number of entries, at least 3/2 of the detector's
//!   capacity, so it is at most 2/3 full and probes stay short.
//! - Deletion shifts the following entries of the cluster back (no tombstones), so the
//!   cost does not grow with the number of alloc/free cycles: after 30,000 cycles the
//!   table is exactly as it would be after inserting only the live keys.
//! - Key 0 marks an empty entry (the OS never returns a null block); a lookup never
//!   finds key 0 (a free of NULL is an unknown free, not a tracked block).
//! - Keys (`u32`) and slots (`u16`) are two parallel arrays, so a position scales by
//!   a shift (the 68000 has no 32-bit multiply). Positions are byte offsets into the
//!   keys (4 × the entry number), so that no access scales them.
//!
//! The operations are 68000 assembly (`asm/index.s`): every tracked allocation
//! inserts (`__memdbg_index_insert`), every free looks up (`__memdbg_index_find`)
//! and removes (`__memdbg_index_remove`); their host tests run them in the 68000
//! emulator (`tests/asm`). This module holds the table's shape and its Rust
//! callers' lookup. No allocation and no Palm calls: the table lives in memory the
//! caller provides.
//!
//! The home position of a key is multiplicative hashing of a 16-bit fold of the
//! address: the top log2(entries) bits of `(x × MULTIPLIER) mod 2^16`, where
//! `x = ((key >> 2) + (key >> 18)) mod 2^16` (one `mulu.w` and one `lsr.w`).
//! - `key >> 2`: chunk and master-pointer addresses are at least 4 bytes apart
//!   (chunks at least 8, on even addresses), so bits 2–17 tell apart every pair of
//!   blocks in one 256 KB-aligned window: x is injective there, and so is
//!   `x × MULTIPLIER` (an odd multiplier mod 2^16); only the final truncation to
//!   log2(entries) bits makes homes collide.
//! - `+ (key >> 18)`: the window number folded in, so blocks 256 KB (or any
//!   multiple) apart in a larger heap do not share a home. Added rather than
//!   XORed: equal-size blocks lie at addresses in arithmetic progression, and
//!   adding a window's number (a constant inside the window, +1 across a
//!   boundary) keeps x an arithmetic progression, while XOR with a nonzero window
//!   number flips bits of x without carries and breaks the pattern a
//!   multiplicative hash spreads best (measured: 1,000 blocks 36 bytes apart at
//!   0x1000_0000 in a 2,048-entry table, longest probe 32 with XOR, 3 with the
//!   sum).
//! - The multiplier: a progression of stride s has its homes at the multiples of
//!   s × [`MULTIPLIER`] around the 16-bit circle, evenly spread when that is far
//!   from a fraction with a small denominator and in a few tight clumps when it
//!   is near one. No multiplier is good for every stride: Fibonacci's (0x9E37,
//!   used before) spreads master pointers (stride 4 bytes) best but puts 28-byte
//!   chunks (16-byte guarded blocks: 7 × 0.618 ≈ 1/3) in three clumps of adjacent
//!   entries in a 64-entry table, which every removal then scans. 0x831D comes
//!   from `examples/index_hash.rs --search`, whose measure is the probes plus
//!   the entries a removal scans, over progressions of 4 and 20–64 bytes in
//!   tables of 16–8,192 entries at 10 keys, 25% and 60%. It screens every odd
//!   16-bit multiplier on tables up to 256 entries; of the 10 best there, 0x831D
//!   has the lowest mean cost on all sizes: 1.59 per key (Fibonacci's 1.79),
//!   worst case 6.0 (Fibonacci's 18.4: 34-byte chunks, 76 in 128 entries). Its
//!   weak spot is master pointers in tables of 16 or 32 entries (capacities up
//!   to 21: a cost of up to 6 per key). With 5,000 blocks in an 8,192-entry
//!   table the average probe is 1.0 for 28-byte chunks and 1.8 for master
//!   pointers (`tests/asm/index.rs` measures it).

use core::mem::offset_of;

/// Most entries a table may have: 8192 keys × 4 bytes = 32 KB per array, under the
/// Memory Manager's 65,505-byte chunk limit (`memMaxChunkAllocSize`, PALM_FACTS §5.2).
pub const MAX_ENTRIES: u16 = 8192;

/// "Not found" from the lookup: odd, where every position is a multiple of 4 (a
/// small constant is shorter to load than −1).
pub const NOT_FOUND: u32 = 1;

/// Number of entries for a detector tracking up to `capacity` blocks: the smallest
/// power of two ≥ capacity × 3/2 and ≥ 16; `None` above [`MAX_ENTRIES`].
pub const fn entries_for(capacity: u16) -> Option<u16> {
    let need = capacity as u32 + (capacity as u32).div_ceil(2);
    let mut n: u32 = 16;
    while n < need {
        n *= 2;
    }
    if n > MAX_ENTRIES as u32 {
        None
    } else {
        Some(n as u16)
    }
}

/// The home position's 16-bit multiplier (odd, so that multiplying by it permutes
/// the 16-bit values), chosen by `examples/index_hash.rs`'s measure as the module
/// doc says.
pub const MULTIPLIER: u16 = 0x831D;

/// The shift of the home position's product for a table of `mask + 1` entries: 16 −
/// log2(entries), so that a 16-bit product shifted right by it is below the number
/// of entries. `mask + 1` is a power of two from 2 to 65,536.
pub const fn shift_for(mask: u16) -> u16 {
    16 - (mask as u32 + 1).trailing_zeros() as u16
}

/// A table over caller-provided memory.
#[repr(C)]
#[derive(Clone, Copy)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct Index {
    /// The keys (`mask + 1` of them; 0: empty).
    pub keys: *mut u32,
    /// The slot numbers, parallel to `keys`.
    pub slots: *mut u16,
    /// The mask of a position (a byte offset into the keys): `mask` × 4, kept
    /// so that every find, insert and remove loads it with one instruction.
    pub pos_mask: u32,
    /// Number of entries − 1.
    pub mask: u16,
    /// [`shift_for`]`(mask)`.
    pub shift: u16,
}

asm_constants! {
    IX_KEYS = offset_of!(Index, keys);
    IX_SLOTS = offset_of!(Index, slots);
    IX_MASK = offset_of!(Index, mask);
    IX_POS_MASK = offset_of!(Index, pos_mask);
    IX_SHIFT = offset_of!(Index, shift);
    INDEX_MULTIPLIER = MULTIPLIER;
    INDEX_NOT_FOUND = NOT_FOUND;
}

#[cfg(target_arch = "m68k")]
unsafe extern "C" {
    /// `asm/index.s`: the position of a key (a register routine).
    fn __memdbg_index_find();
    /// `asm/index.s`: removes the entry at a position (a register routine).
    fn __memdbg_index_remove();
}

impl Index {
    /// A table over `mask + 1` keys at `keys` and as many slot numbers at `slots`.
    ///
    /// # Safety
    /// Both arrays are writable, initialised (all keys 0 for a new table), outlive
    /// every use of the returned value, and have `mask + 1` elements, a power of two.
    pub const unsafe fn new(keys: *mut u32, slots: *mut u16, mask: u16) -> Self {
        Index {
            keys,
            slots,
            pos_mask: (mask as u32) << 2,
            mask,
            shift: shift_for(mask),
        }
    }

    /// The position of `key` (the byte offset of its entry in the keys), or `None`:
    /// `__memdbg_index_find` (`asm/index.s`). Key 0 is never found.
    #[inline]
    pub fn find(&self, key: u32) -> Option<u32> {
        #[cfg(target_arch = "m68k")]
        {
            let pos: u32;
            // SAFETY: a table as `new` made it; the routine reads it only and
            // changes D0–D1/A0–A1.
            unsafe {
                core::arch::asm!(
                    "jsr ({f},%pc)",
                    f = sym __memdbg_index_find,
                    inout("a0") self => _,
                    inout("d0") key => pos,
                    out("d1") _,
                    out("a1") _,
                    options(readonly),
                )
            };
            (pos != NOT_FOUND).then_some(pos)
        }
        #[cfg(not(target_arch = "m68k"))]
        {
            let _ = key;
            crate::not_on_palm()
        }
    }

    /// Removes the entry at position `pos`: `__memdbg_index_remove`
    /// (`asm/index.s`; the free path's assembly calls it directly).
    ///
    /// # Safety
    /// `pos` is a position [`Index::find`] returned, and the table has not changed
    /// since.
    pub unsafe fn remove(&mut self, pos: u32) {
        #[cfg(target_arch = "m68k")]
        // SAFETY: the caller's guarantee; the routine changes D0–D7/A0–A1.
        unsafe {
            core::arch::asm!(
                "jsr ({f},%pc)",
                f = sym __memdbg_index_remove,
                inout("a0") self => _,
                inout("d0") pos => _,
                out("d1") _,
                out("d2") _,
                out("d3") _,
                out("d4") _,
                out("d5") _,
                out("d6") _,
                out("d7") _,
                out("a1") _,
            )
        };
        #[cfg(not(target_arch = "m68k"))]
        {
            let _ = pos;
            crate::not_on_palm::<()>()
        }
    }

    /// The slot stored at position `pos`.
    ///
    /// # Safety
    /// `pos` is a position [`Index::find`] returned, and the table has not changed
    /// since.
    #[inline]
    pub unsafe fn slot_at(&self, pos: u32) -> u16 {
        // SAFETY: the caller's guarantee: inside the table; a slot number is half as
        // far into its array as its key.
        unsafe { self.slots.byte_add(pos as usize / 2).read() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(entries_for(1), Some(16));
        assert_eq!(entries_for(10), Some(16));
        assert_eq!(entries_for(11), Some(32));
        assert_eq!(entries_for(512), Some(1024));
        assert_eq!(entries_for(5000), Some(8192));
        assert_eq!(entries_for(5461), Some(8192));
        assert_eq!(entries_for(5462), None);
        assert_eq!(shift_for(15), 12);
        assert_eq!(shift_for(8191), 3);
        assert!(entries_for(crate::settings::Settings::DEFAULT.capacity).is_some());
    }
}
