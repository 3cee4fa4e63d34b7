//! The free path's index: 68k address (pointer or handle) → ledger slot, a
//! fixed-capacity open-addressing hash table with linear probing, kept in a chunk of
//! the dynamic heap.
//!
//! - The table has a power-of-two number of entries, at least 3/2 of the detector's
//!   capacity, so it is at most 2/3 full and probes stay short.
//! - Deletion shifts the following entries of the cluster back (no tombstones), so the
//!   cost does not grow with the number of alloc/free cycles: after 30,000 cycles the
//!   table is exactly as it would be after inserting only the live keys.
//! - Key 0 marks an empty entry (the OS never returns a null block).
//!
//! No allocation and no Palm calls: the table lives in memory the caller provides.
//! The arithmetic stays 16-bit where it can (the 68000 has no 32-bit multiply).

/// One entry: 6 bytes on the 68k.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// The tracked block's address (pointer or handle); 0 = empty.
    pub key: u32,
    /// Its ledger slot.
    pub slot: u16,
}

/// Most entries a table may have: 8192 × 6 bytes = 48 KB stays under the Memory
/// Manager's 65,505-byte chunk limit (`memMaxChunkAllocSize`, PALM_FACTS §5.2).
pub const MAX_ENTRIES: u16 = 8192;

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
#[derive(Clone, Copy, Debug)]
pub struct Index {
    entries: *mut Entry,
    mask: u16,
}

impl Index {
    /// A table over `mask + 1` entries at `entries`.
    ///
    /// # Safety
    /// `entries` points to `mask + 1` writable, initialised entries (all empty for a
    /// new table) that outlive every use of the returned value; `mask + 1` is a power
    /// of two.
    pub const unsafe fn new(entries: *mut Entry, mask: u16) -> Self {
        Index { entries, mask }
    }

    #[inline(always)]
    fn at(&self, i: u16) -> *mut Entry {
        // SAFETY: every caller masks `i`, so it is below mask + 1 (the table's size,
        // `new`'s contract).
        unsafe { self.entries.add(usize::from(i & self.mask)) }
    }

    /// Position and slot of `key`, if present.
    #[inline]
    pub fn find(&self, key: u32) -> Option<(u16, u16)> {
        let mut i = home(key, self.mask);
        loop {
            // SAFETY: `at` stays inside the table.
            let e = unsafe { *self.at(i) };
            if e.key == key {
                return Some((i, e.slot));
            }
            if e.key == 0 {
                return None;
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
        loop {
            let e = self.at(i);
            // SAFETY: `at` stays inside the table.
            unsafe {
                if (*e).key == 0 {
                    *e = Entry { key, slot };
                    return;
                }
            }
            i = (i + 1) & self.mask;
        }
    }

    /// Removes the entry at `pos` (from [`Index::find`]) and shifts later entries of
    /// its cluster back so that every key stays reachable from its home position.
    pub fn remove_at(&self, pos: u16) {
        let mut hole = pos & self.mask;
        let mut j = hole;
        loop {
            j = (j + 1) & self.mask;
            // SAFETY: `at` stays inside the table.
            let e = unsafe { *self.at(j) };
            if e.key == 0 {
                break;
            }
            // Distance from the entry's home to j, and from the hole to j: the entry
            // may move into the hole only if its home is not after the hole.
            let h = home(e.key, self.mask);
            let from_home = j.wrapping_sub(h) & self.mask;
            let from_hole = j.wrapping_sub(hole) & self.mask;
            if from_home >= from_hole {
                // SAFETY: `at` stays inside the table.
                unsafe { *self.at(hole) = e };
                hole = j;
            }
        }
        // SAFETY: `at` stays inside the table.
        unsafe { *self.at(hole) = Entry::default() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(n: u16) -> (Vec<Entry>, Index) {
        let mut v = vec![Entry::default(); usize::from(n)];
        // SAFETY: the vector has n entries, all empty, and lives as long as the test
        // uses the index (it is returned with it and never reallocated).
        let ix = unsafe { Index::new(v.as_mut_ptr(), n - 1) };
        (v, ix)
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
        let (_v, ix) = table(16);
        ix.insert(0x1_0010, 1);
        ix.insert(0x1_0020, 2);
        assert_eq!(ix.find(0x1_0010).map(|f| f.1), Some(1));
        assert_eq!(ix.find(0x1_0020).map(|f| f.1), Some(2));
        assert_eq!(ix.find(0x1_0030), None);
        let (pos, _) = ix.find(0x1_0010).unwrap();
        ix.remove_at(pos);
        assert_eq!(ix.find(0x1_0010), None);
        assert_eq!(ix.find(0x1_0020).map(|f| f.1), Some(2));
    }

    #[test]
    fn clusters_survive_deletion_across_the_wrap() {
        let (_v, ix) = table(16);
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
        assert_eq!(ix.find(k0).unwrap().0, 2);
        ix.remove_at(ix.find(keys[1]).unwrap().0);
        for (s, &k) in keys.iter().enumerate() {
            if s != 1 {
                assert_eq!(ix.find(k).map(|f| f.1), Some(s as u16), "key {s}");
            }
        }
        // The home-0 key moved back to 1: the cluster is as short as it can be.
        assert_eq!(ix.find(k0), Some((1, 9)));
        assert_eq!(ix.find(keys[1]), None);
    }

    /// A model check against a HashMap over many random operations, like 30,000
    /// alloc/free cycles with a varying live set: every lookup agrees and probe
    /// lengths stay short (no tombstone build-up).
    #[test]
    fn random_operations_match_a_model() {
        let (v, ix) = table(1024);
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
            if let Some((pos, slot)) = ix.find(key) {
                assert_eq!(model.get(&key), Some(&slot), "step {step}");
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
            assert_eq!(ix.find(k).map(|f| f.1), Some(s));
        }
        assert_eq!(v.iter().filter(|e| e.key != 0).count(), model.len());
        // Longest probe from a key's home to its entry.
        let longest = v
            .iter()
            .enumerate()
            .filter(|(_, e)| e.key != 0)
            .map(|(i, e)| (i as u16).wrapping_sub(home(e.key, 1023)) & 1023)
            .max()
            .unwrap();
        assert!(longest < 40, "longest probe {longest}");
    }
}
