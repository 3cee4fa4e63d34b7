//! The free path's index: 68k address (pointer or handle) → ledger slot, a
//! fixed-capacity open-addressing hash table with linear probing, kept in chunks of
//! the dynamic heap.
//!
//! - The table has a power-of-two number of entries, at least 3/2 of the detector's
//!   capacity, so it is at most 2/3 full and probes stay short.
//! - Deletion shifts the following entries of the cluster back (no tombstones), so the
//!   cost does not grow with the number of alloc/free cycles: after 30,000 cycles the
//!   table is exactly as it would be after inserting only the live keys.
//! - Key 0 marks an empty entry (the OS never returns a null block).
//! - Keys (`u32`) and slots (`u16`) are two parallel arrays, so a position scales by
//!   a shift (the 68000 has no 32-bit multiply).
//!
//! No allocation and no Palm calls: the table lives in memory the caller provides.

/// Most entries a table may have: 8192 keys × 4 bytes = 32 KB per array, under the
/// Memory Manager's 65,505-byte chunk limit (`memMaxChunkAllocSize`, PALM_FACTS §5.2).
pub const MAX_ENTRIES: u16 = 8192;

/// "Not found" from [`Index::find`].
pub const NOT_FOUND: u16 = 0xFFFF;

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

/// Home position of `key` in a table of `mask + 1` entries. Chunk and master-pointer
/// addresses are at least 4 bytes apart, so bits 2 and up vary; bits 12 and up are
/// folded in so blocks 4 KB apart do not collide.
#[inline(always)]
pub fn home(key: u32, mask: u16) -> u16 {
    (((key >> 2) as u16) ^ ((key >> 12) as u16)) & mask
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
}

impl Index {
    /// A table over `mask + 1` keys at `keys` and as many slot numbers at `slots`.
    ///
    /// # Safety
    /// Both arrays are writable, initialised (all keys 0 for a new table), outlive
    /// every use of the returned value, and have `mask + 1` elements, a power of two.
    pub const unsafe fn new(keys: *mut u32, slots: *mut u16, mask: u16) -> Self {
        Index { keys, slots, mask }
    }

    #[inline(always)]
    fn key(&self, i: u16) -> u32 {
        // SAFETY: callers mask `i`, so it is inside the table (`new`'s contract).
        unsafe { *self.keys.add(usize::from(i)) }
    }

    #[inline(always)]
    fn set(&self, i: u16, key: u32, slot: u16) {
        // SAFETY: as in `key`.
        unsafe {
            *self.keys.add(usize::from(i)) = key;
            *self.slots.add(usize::from(i)) = slot;
        }
    }

    /// Slot stored at position `pos` (from [`Index::find`]).
    #[inline(always)]
    pub fn slot_at(&self, pos: u16) -> u16 {
        // SAFETY: as in `key`.
        unsafe { *self.slots.add(usize::from(pos & self.mask)) }
    }

    /// Position of `key`, or [`NOT_FOUND`].
    #[inline]
    pub fn find(&self, key: u32) -> u16 {
        let mut i = home(key, self.mask);
        loop {
            let k = self.key(i);
            if k == key {
                return i;
            }
            if k == 0 {
                return NOT_FOUND;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Inserts `key` → `slot`. The caller guarantees that `key` is nonzero and absent
    /// and that the table has an empty entry (it never holds more than the
    /// detector's capacity, at most 2/3 of its size).
    #[inline]
    pub fn insert(&self, key: u32, slot: u16) {
        let mut i = home(key, self.mask);
        while self.key(i) != 0 {
            i = (i + 1) & self.mask;
        }
        self.set(i, key, slot);
    }

    /// Removes the entry at `pos` (from [`Index::find`]) and shifts later entries of
    /// its cluster back so that every key stays reachable from its home position.
    pub fn remove_at(&self, pos: u16) {
        let mut hole = pos & self.mask;
        let mut j = hole;
        loop {
            j = (j + 1) & self.mask;
            let k = self.key(j);
            if k == 0 {
                break;
            }
            // The entry at j may move into the hole only if its home is not after
            // the hole (cyclically): distance home→j ≥ distance hole→j.
            let h = home(k, self.mask);
            if (j.wrapping_sub(h) & self.mask) >= (j.wrapping_sub(hole) & self.mask) {
                let s = self.slot_at(j);
                self.set(hole, k, s);
                hole = j;
            }
        }
        self.set(hole, 0, 0);
    }
}

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
        (p != NOT_FOUND).then(|| ix.slot_at(p))
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
        ix.remove_at(ix.find(0x1_0010));
        assert_eq!(get(&ix, 0x1_0010), None);
        assert_eq!(get(&ix, 0x1_0020), Some(2));
    }

    #[test]
    fn clusters_survive_deletion_across_the_wrap() {
        let t = table(16);
        let ix = t.ix;
        let mask = 15;
        // Keys whose home is 14: they occupy 14, 15, 0, 1 (wrapping).
        let keys: Vec<u32> = (0..200u32)
            .map(|k| 0x2_0000 + k * 4)
            .filter(|&k| home(k, mask) == 14)
            .take(4)
            .collect();
        assert_eq!(keys.len(), 4);
        for (s, &k) in keys.iter().enumerate() {
            ix.insert(k, s as u16);
        }
        // One key with home 0 sits after the wrapped cluster.
        let k0 = (0..400u32)
            .map(|k| 0x3_0000 + k * 4)
            .find(|&k| home(k, mask) == 0)
            .unwrap();
        ix.insert(k0, 9);
        assert_eq!(ix.find(k0), 2);
        ix.remove_at(ix.find(keys[1]));
        for (s, &k) in keys.iter().enumerate() {
            if s != 1 {
                assert_eq!(get(&ix, k), Some(s as u16), "key {s}");
            }
        }
        // The home-0 key moved back to 1: the cluster is as short as it can be.
        assert_eq!((ix.find(k0), get(&ix, k0)), (1, Some(9)));
        assert_eq!(get(&ix, keys[1]), None);
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
                assert_eq!(model.get(&key), Some(&ix.slot_at(pos)), "step {step}");
                ix.remove_at(pos);
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
            .map(|(i, &k)| (i as u16).wrapping_sub(home(k, 1023)) & 1023)
            .max()
            .unwrap();
        assert!(longest < 40, "longest probe {longest}");
    }
}
