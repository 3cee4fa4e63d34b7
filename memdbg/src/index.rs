//! The free path's index: 68k address (pointer or handle) → ledger slot, a
//! fixed-capacity open-addressing hash table with linear probing, kept in chunks of
//! the dynamic heap.
//!
//! - The table has a power-of-two number of entries, at least 3/2 of the detector's
//!   capacity, so it is at most 2/3 full and probes stay short.
//! - Deletion shifts the following entries of the cluster back (no tombstones), so the
//!   cost does not grow with the number of alloc/free cycles: after 30,000 cycles the
//!   table is exactly as it would be after inserting only the live keys.
//! - Key 0 marks an empty entry (the OS never returns a null block); [`Index::find`]
//!   never finds key 0 (a free of NULL is an unknown free, not a tracked block).
//! - Keys (`u32`) and slots (`u16`) are two parallel arrays, so a position scales by
//!   a shift (the 68000 has no 32-bit multiply).
//!
//! No allocation and no Palm calls: the table lives in memory the caller provides.

#[cfg(target_arch = "m68k")]
use core::mem::offset_of;

#[cfg(not(target_arch = "m68k"))]
use crate::mem::{read_u16, read_u16_at};

/// Most entries a table may have: 8192 keys × 4 bytes = 32 KB per array, under the
/// Memory Manager's 65,505-byte chunk limit (`memMaxChunkAllocSize`, PALM_FACTS §5.2).
pub const MAX_ENTRIES: u16 = 8192;

/// "Not found" from [`Index::find`]: odd, where every position is a multiple of 4 (a
/// small constant is shorter to load than −1).
pub const NOT_FOUND: usize = 1;

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

/// Fibonacci hashing's 16-bit multiplier: 2^16 / φ (40,503.6), rounded to the odd
/// 0x9E37 so that multiplying by it permutes the 16-bit values.
pub const FIB: u16 = 0x9E37;

/// The 68000's `mulu.w #imm,%d0` opcode word (MULU `<ea>`,D0 with `<ea>` = `#imm`,
/// the immediate word following): the assembly emits it with `.short`, as LLVM's
/// m68k asm parser rejects the immediate form.
#[cfg(target_arch = "m68k")]
pub const MULU_IMM_D0: u16 = 0xC0FC;

/// The shift [`home`] takes for a table of `mask + 1` entries: 16 − log2(entries),
/// so that a 16-bit product shifted right by it is below the number of entries.
/// `mask + 1` is a power of two from 2 to 65,536.
pub const fn shift_for(mask: u16) -> u16 {
    16 - (mask as u32 + 1).trailing_zeros() as u16
}

/// Home position of `key` in a table of 2^(16 − `shift`) entries ([`shift_for`]):
/// Fibonacci (multiplicative) hashing of a 16-bit fold of the address, the top
/// log2(entries) bits of `(x × FIB) mod 2^16`, where
/// `x = ((key >> 2) + (key >> 18)) mod 2^16`. The 68000 computes it with one
/// `mulu.w` (16×16→32) and one `lsr.w`; the assembly in `fast.rs`, `patch.rs` and
/// here ([`probe`]: insertion, deletion back-shift, lookup) repeats exactly this.
///
/// - `key >> 2`: chunk and master-pointer addresses are at least 4 bytes apart
///   (chunks at least 8, on even addresses), so bits 2–17 tell apart every pair of
///   blocks in one 256 KB-aligned window: x is injective there, and so is
///   `x × FIB` (an odd multiplier mod 2^16); only the final truncation to
///   log2(entries) bits makes homes collide.
/// - `+ (key >> 18)`: the window number folded in, so blocks 256 KB (or any
///   multiple) apart in a larger heap do not share a home. Added rather than
///   XORed: equal-size blocks lie at addresses in arithmetic progression, and
///   adding a window's number (a constant inside the window, +1 across a
///   boundary) keeps x an arithmetic progression, while XOR with a nonzero window
///   number flips bits of x without carries and breaks the pattern a Fibonacci
///   hash spreads best (measured: 1,000 blocks 36 bytes apart at 0x1000_0000 in a
///   2,048-entry table, longest probe 32 with XOR, 3 with the sum).
/// - Fibonacci hashing: the multiples i·s·FIB of a progression's stride s fall
///   nearly evenly around the 16-bit circle (the three-distance theorem). With
///   5,000 blocks in an 8,192-entry table the average probe is 1.0–1.1 for chunk
///   strides 20–40 except 24 (3.2, longest 7) and 1.14 for master pointers
///   (stride 4), where the former `((key >> 2) ^ (key >> 12)) & mask` gave
///   1.1–3.0 (longest 6–25) and one 5,000-entry cluster for master pointers, so
///   a new handle's insert could probe thousands of entries.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub fn home(key: u32, shift: u16) -> u16 {
    let x = (key >> 2).wrapping_add(key >> 18) as u16;
    x.wrapping_mul(FIB) >> shift
}

/// A table over caller-provided memory.
#[derive(Clone, Copy)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct Index {
    /// The keys (read by the free path's assembly, `patch.rs`).
    pub(crate) keys: *mut u32,
    /// The slot numbers, parallel to `keys`.
    pub(crate) slots: *mut u16,
    /// Number of entries − 1.
    pub(crate) mask: u16,
    /// [`shift_for`]`(mask)`, [`home`]'s shift (read by the assembly too).
    pub(crate) shift: u16,
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
            mask,
            shift: shift_for(mask),
        }
    }

    /// The mask of a position (a byte offset into the keys: 4 × the entry number).
    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    fn bmask(&self) -> usize {
        usize::from(self.mask) << 2
    }

    /// [`home`] of `key` as a position (below `bmask + 4`).
    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    fn start(&self, key: u32, bmask: usize) -> usize {
        (usize::from(home(key, self.shift)) << 2) & bmask
    }

    /// The key at position `o`.
    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    fn key(&self, o: usize) -> u32 {
        // SAFETY: callers mask `o` (or have it from `find`), so it is inside the table
        // (`new`'s contract).
        unsafe { self.keys.byte_add(o).read() }
    }

    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    fn set(&self, o: usize, key: u32, slot: u16) {
        // SAFETY: as in `key`; a slot number is half as far as its key.
        unsafe {
            self.keys.byte_add(o).write(key);
            self.slots.byte_add(o >> 1).write(slot);
        }
    }

    /// Slot stored at position `pos`, zero-extended ([`read_u16`]).
    ///
    /// # Safety
    /// `pos` is a position [`Index::find`] returned (not [`NOT_FOUND`]).
    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    pub unsafe fn slot_at(&self, pos: usize) -> usize {
        // SAFETY: the caller's guarantee: a position inside the table.
        unsafe { read_u16(self.slots.byte_add(pos >> 1)) }
    }

    /// Position of `key` (the byte offset of its entry in the keys: 4 × its entry
    /// number, so that no access scales it), or [`NOT_FOUND`]. On the 68k the
    /// assembly's [`probe`].
    #[cfg(not(target_arch = "m68k"))]
    #[inline]
    pub fn find(&self, key: u32) -> usize {
        // (The mask loaded zero-extended: [`read_u16_at`].)
        // SAFETY: a field of `self`.
        let bmask = unsafe {
            read_u16_at::<{ core::mem::offset_of!(Index, mask) }>((self as *const Index).cast())
                << 2
        };
        let mut o = self.start(key, bmask);
        loop {
            let k = self.key(o);
            // Empty first: key 0 (a free of NULL) is never found.
            if k == 0 {
                return NOT_FOUND;
            }
            if k == key {
                return o;
            }
            o = (o + 4) & bmask;
        }
    }

    /// Inserts `key` → `slot`. The caller guarantees that `key` is nonzero and absent
    /// and that the table has an empty entry (it never holds more than the
    /// detector's capacity, at most 2/3 of its size). On the 68k,
    /// [`crate::fast::alloc`]'s assembly does it.
    #[cfg(not(target_arch = "m68k"))]
    #[inline]
    pub fn insert(&self, key: u32, slot: u16) {
        let bmask = self.bmask();
        let mut o = self.start(key, bmask);
        while self.key(o) != 0 {
            o = (o + 4) & bmask;
        }
        self.set(o, key, slot);
    }

    /// Removes the entry at `pos` and shifts later entries of its cluster back so that
    /// every key stays reachable from its home position.
    ///
    /// On the 68k, [`crate::patch::free_block`]'s assembly does it.
    ///
    /// # Safety
    /// `pos` is a position [`Index::find`] returned (not [`NOT_FOUND`]), and the table
    /// has not changed since.
    #[cfg(not(target_arch = "m68k"))]
    pub unsafe fn remove_at(&self, pos: usize) {
        let bmask = self.bmask();
        let mut hole = pos;
        let mut j = hole;
        loop {
            j = (j + 4) & bmask;
            let k = self.key(j);
            if k == 0 {
                break;
            }
            // The entry at j may move into the hole only if its home is not after
            // the hole (cyclically): distance home→j ≥ distance hole→j.
            let h = self.start(k, bmask);
            if (j.wrapping_sub(h) & bmask) >= (j.wrapping_sub(hole) & bmask) {
                // SAFETY: as in `key`.
                let s = unsafe { self.slots.byte_add(j >> 1).read() };
                self.set(hole, k, s);
                hole = j;
            }
        }
        self.set(hole, 0, 0);
    }
}

/// [`Index::find`] in 68000 assembly, a register routine for the assembly
/// ([`crate::patch::free_block`], `track::lookup`): A0 the table, D0 the key; D0
/// becomes the key's position (× 4, as [`Index::find`]'s) with Z set, or
/// [`NOT_FOUND`] with Z clear. Key 0 is never found (an empty entry ends the probe
/// first). Changes only D0–D1/A0–A1.
///
/// `tst`, `addq` and `swap`, and `mulu`'s immediate form, `cmpa` and `tst` with an
/// index register are written as their opcode words (LLVM's asm parser rejects
/// them; each is named in a comment), branches with `bs!`.
///
/// # Safety
/// A0 is a table ([`Index::new`]'s contract); called with `bsr`/`jsr` from assembly.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub unsafe extern "C" fn probe() {
    core::arch::naked_asm!(
        // home(key) as in `home`: x = (key >> 2) + (key >> 18) mod 2^16 (the low word
        // of key >> 2 plus its high word), ((x * FIB) mod 2^16) >> shift (the mask
        // clears the product's high word); then by byte offsets (d1 = mask × 4).
        "move.l %d0,%a1",
        "lsr.l #2,%d0",
        "move.l %d0,%d1",
        ".short 0x4841", // swap %d1
        "add.w %d1,%d0",
        ".short {mulu}, {fib}", // mulu.w #FIB,%d0
        "move.w ({shift},%a0),%d1",
        "lsr.w %d1,%d0",
        "moveq #0,%d1",
        "move.w ({mask},%a0),%d1",
        "lsl.l #2,%d1",
        "lsl.l #2,%d0",
        "and.l %d1,%d0",
        "move.l ({keys},%a0),%a0",
        "1:",
        ".short 0x4AB0, 0x0800", // tst.l (0,%a0,%d0.l): empty
        bs!(beq "2f"),
        ".short 0xB3F0, 0x0800", // cmpa.l (0,%a0,%d0.l),%a1
        bs!(beq "3f"),
        ".short 0x5880", // addq.l #4,%d0
        "and.l %d1,%d0",
        bs!(bra "1b"),
        "2:",
        "moveq #{not_found},%d0",
        "3:",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        mulu = const MULU_IMM_D0,
        fib = const FIB,
        shift = const offset_of!(Index, shift),
        mask = const offset_of!(Index, mask),
        keys = const offset_of!(Index, keys),
        not_found = const NOT_FOUND,
    )
}
// `moveq #NOT_FOUND` leaves Z clear.
static_assertions::const_assert!(NOT_FOUND != 0 && NOT_FOUND < 128);

#[cfg(test)]
mod tests {
    use super::*;

    struct Table {
        keys: Vec<u32>,
        _slots: Vec<u16>,
        ix: Index,
    }

    fn table(n: u16) -> Table {
        let mut keys = vec![0u32; usize::from(n)];
        let mut slots = vec![0u16; usize::from(n)];
        // SAFETY: both vectors have n elements, keys all 0, and live as long as the
        // index (kept together, never reallocated).
        let ix = unsafe { Index::new(keys.as_mut_ptr(), slots.as_mut_ptr(), n - 1) };
        Table {
            keys,
            _slots: slots,
            ix,
        }
    }

    fn get(ix: &Index, key: u32) -> Option<u16> {
        let p = ix.find(key);
        // SAFETY: a found position.
        (p != NOT_FOUND).then(|| unsafe { ix.slot_at(p) } as u16)
    }

    #[test]
    fn sizes() {
        assert_eq!(entries_for(1), Some(16));
        assert_eq!(entries_for(10), Some(16));
        assert_eq!(entries_for(11), Some(32));
        assert_eq!(entries_for(512), Some(1024));
        assert_eq!(entries_for(5000), Some(8192));
        assert_eq!(entries_for(5461), Some(8192));
        assert_eq!(entries_for(5462), None);
    }

    #[test]
    fn insert_find_remove() {
        let t = table(16);
        let ix = t.ix;
        ix.insert(0x1_0010, 1);
        ix.insert(0x1_0020, 2);
        assert_eq!(get(&ix, 0x1_0010), Some(1));
        assert_eq!(get(&ix, 0x1_0020), Some(2));
        assert_eq!(ix.find(0x1_0030), NOT_FOUND);
        // SAFETY: a found position.
        unsafe { ix.remove_at(ix.find(0x1_0010)) };
        assert_eq!(get(&ix, 0x1_0010), None);
        assert_eq!(get(&ix, 0x1_0020), Some(2));
    }

    #[test]
    fn key_zero_is_never_found() {
        let t = table(16);
        let ix = t.ix;
        assert_eq!(ix.find(0), NOT_FOUND);
        ix.insert(0x1_0010, 1);
        ix.insert(0x1_0020, 2);
        // SAFETY: a found position; the hole it leaves keeps slot 1 behind key 0.
        unsafe { ix.remove_at(ix.find(0x1_0010)) };
        assert_eq!(ix.find(0), NOT_FOUND);
        assert_eq!(get(&ix, 0x1_0020), Some(2));
    }

    #[test]
    fn clusters_survive_deletion_across_the_wrap() {
        let t = table(16);
        let ix = t.ix;
        let shift = shift_for(15);
        // Keys whose home is 14: they occupy 14, 15, 0, 1 (wrapping).
        let keys: Vec<u32> = (0..200u32)
            .map(|k| 0x2_0000 + k * 4)
            .filter(|&k| home(k, shift) == 14)
            .take(4)
            .collect();
        assert_eq!(keys.len(), 4);
        for (s, &k) in keys.iter().enumerate() {
            ix.insert(k, s as u16);
        }
        // One key with home 0 sits after the wrapped cluster.
        let k0 = (0..400u32)
            .map(|k| 0x3_0000 + k * 4)
            .find(|&k| home(k, shift) == 0)
            .unwrap();
        ix.insert(k0, 9);
        assert_eq!(ix.find(k0), 2 * 4);
        // SAFETY: a found position.
        unsafe { ix.remove_at(ix.find(keys[1])) };
        for (s, &k) in keys.iter().enumerate() {
            if s != 1 {
                assert_eq!(get(&ix, k), Some(s as u16), "key {s}");
            }
        }
        // The home-0 key moved back to 1: the cluster is as short as it can be.
        assert_eq!((ix.find(k0), get(&ix, k0)), (4, Some(9)));
        assert_eq!(get(&ix, keys[1]), None);
    }

    #[test]
    fn home_is_below_the_number_of_entries() {
        assert_eq!(shift_for(15), 12);
        assert_eq!(shift_for(8191), 3);
        assert_eq!(table(1024).ix.shift, 6);
        let mut seed = 0x9E37_79B9u32;
        for bits in 1..=16u32 {
            let mask = ((1u32 << bits) - 1) as u16;
            let shift = shift_for(mask);
            for _ in 0..20_000 {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let h = home(seed, shift);
                assert!(h <= mask, "mask {mask:#x}: home({seed:#x}) = {h:#x}");
            }
            // The 65,536 4-aligned addresses of one 256 KB window spread exactly
            // evenly: each position is the home of 2^shift of them.
            let mut count = vec![0u32; usize::from(mask) + 1];
            for x in 0..0x1_0000u32 {
                count[usize::from(home(0x40_0000 + x * 4, shift))] += 1;
            }
            assert!(count.iter().all(|&c| c == 1 << shift), "mask {mask:#x}");
        }
    }

    /// Probe lengths (1 = found at home) of `keys` inserted into a table of
    /// `entries`: (average, longest).
    fn probes(keys: &[u32], entries: u16) -> (f64, u16) {
        let t = table(entries);
        let mask = entries - 1;
        for (s, &k) in keys.iter().enumerate() {
            t.ix.insert(k, s as u16);
        }
        let lens: Vec<u16> = keys
            .iter()
            .map(|&k| (((t.ix.find(k) / 4) as u16).wrapping_sub(home(k, t.ix.shift)) & mask) + 1)
            .collect();
        let total: u32 = lens.iter().map(|&l| u32::from(l)).sum();
        (
            f64::from(total) / keys.len() as f64,
            *lens.iter().max().unwrap(),
        )
    }

    /// Equal-size blocks lie at addresses in arithmetic progression (a 16-byte
    /// guarded block is a 28-byte chunk; master pointers are 4 bytes apart): at the
    /// detector's largest load (5,000 of 8,192 entries) their probes stay short,
    /// where the former hash `((key >> 2) ^ (key >> 12)) & mask` gave average
    /// probes up to 3 for chunks and one 5,000-entry cluster for master pointers.
    #[test]
    fn arithmetic_progressions_give_short_probes() {
        for stride in [4u32, 20, 24, 26, 28, 30, 32, 40] {
            for start in [0x1000u32, 0x1A02, 0x3000, 0x1000_0000] {
                let keys: Vec<u32> = (0..5000).map(|i| start + i * stride).collect();
                let (avg, longest) = probes(&keys, 8192);
                eprintln!("stride {stride} from {start:#x}: average {avg:.2}, longest {longest}");
                assert!(avg < 3.5 && longest <= 8, "stride {stride} from {start:#x}");
            }
        }
        // Handles: master pointers and their chunks together.
        let keys: Vec<u32> = (0..2500u32)
            .map(|i| 0x1100 + i * 4)
            .chain((0..2500).map(|i| 0x3000 + i * 28))
            .collect();
        let (avg, longest) = probes(&keys, 8192);
        eprintln!("master pointers and chunks: average {avg:.2}, longest {longest}");
        assert!(avg < 2.0 && longest <= 8);
        // A progression crossing 256 KB windows (the folded bits change).
        for stride in [36u32, 72, 200] {
            let keys: Vec<u32> = (0..1000).map(|i| 0x3_F000 + i * stride).collect();
            let (avg, longest) = probes(&keys, 2048);
            eprintln!("stride {stride} across windows: average {avg:.2}, longest {longest}");
            assert!(avg < 3.0 && longest <= 8, "stride {stride}");
        }
    }

    /// A model check against a HashMap over many random operations, like 30,000
    /// alloc/free cycles with a varying live set: every lookup agrees and probe
    /// lengths stay short (no tombstone build-up).
    #[test]
    fn random_operations_match_a_model() {
        let t = table(1024);
        let ix = t.ix;
        let mut model = std::collections::HashMap::new();
        let mut seed = 0x1234_5678u32;
        let mut rand = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for step in 0..60_000u32 {
            let key = 0x1_0000 + (rand() % 2048) * 6;
            let pos = ix.find(key);
            if pos != NOT_FOUND {
                // SAFETY: a found position.
                let slot = unsafe { ix.slot_at(pos) };
                assert_eq!(model.get(&key), Some(&(slot as u16)), "step {step}");
                // SAFETY: as above.
                unsafe { ix.remove_at(pos) };
                model.remove(&key);
            } else {
                assert!(!model.contains_key(&key), "step {step}");
                if model.len() < 682 {
                    ix.insert(key, (step % 60_000) as u16);
                    model.insert(key, (step % 60_000) as u16);
                }
            }
        }
        for (&k, &s) in &model {
            assert_eq!(get(&ix, k), Some(s));
        }
        assert_eq!(t.keys.iter().filter(|&&k| k != 0).count(), model.len());
        // Longest probe from a key's home to its entry.
        let longest = t
            .keys
            .iter()
            .enumerate()
            .filter(|(_, k)| **k != 0)
            .map(|(i, &k)| (i as u16).wrapping_sub(home(k, shift_for(1023))) & 1023)
            .max()
            .unwrap();
        assert!(longest < 40, "longest probe {longest}");
    }
}
