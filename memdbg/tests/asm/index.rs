//! `asm/index.s`: `__memdbg_index_find`, `__memdbg_index_insert`,
//! `__memdbg_index_remove`.

use std::collections::HashMap;

use crate::machine::{KEYS, Machine, Regs, STATE, k};

/// The documented home position of `key` in a table of `entries` entries
/// (`src/index.rs`): the top log2(entries) bits of `(x × 0x831D) mod 2^16`, where
/// `x = ((key >> 2) + (key >> 18)) mod 2^16`. The specification the routines are
/// checked against.
fn home(key: u32, entries: u32) -> u32 {
    let x = (key >> 2).wrapping_add(key >> 18) as u16;
    u32::from(x.wrapping_mul(0x831D) >> (16 - entries.trailing_zeros()))
}

/// A machine whose state has an empty index of `entries` entries.
fn table(entries: u16) -> Machine {
    Machine::with_state(0, 16, 0, entries)
}

fn index() -> u32 {
    STATE + k("ST_INDEX")
}

/// `__memdbg_index_find`: the key's entry number (the position / 4), checking the
/// Z flag and D1 (the position mask) the routine answers with.
fn find(m: &mut Machine, key: u32) -> Option<u32> {
    let r = m.call(
        "__memdbg_index_find",
        Regs::new().a(0, index()).d(0, key),
        &[],
    );
    let entries = u32::from(m.word(index() + k("IX_MASK"))) + 1;
    assert_eq!(r.d[1], (entries - 1) * 4, "find's D1: the position mask");
    if r.d[0] == k("INDEX_NOT_FOUND") {
        assert!(!m.z(), "not found: Z clear");
        None
    } else {
        assert!(m.z(), "found: Z set");
        assert_eq!(r.d[0] % 4, 0);
        Some(r.d[0] / 4)
    }
}

/// `__memdbg_index_insert` of a key the table does not hold (Z clear after it).
fn insert(m: &mut Machine, key: u32, slot: u16) {
    assert_eq!(try_insert(m, key, slot), None, "{key:#x} was absent");
}

/// `__memdbg_index_insert`: `None` when it entered the key, else the entry
/// number of the key already there (Z set, D0 its position), checking the flag.
fn try_insert(m: &mut Machine, key: u32, slot: u16) -> Option<u32> {
    let r = m.call(
        "__memdbg_index_insert",
        Regs::new().a(0, index()).d(0, key).d(2, u32::from(slot)),
        &[],
    );
    if m.z() {
        assert_eq!(r.d[0] % 4, 0);
        Some(r.d[0] / 4)
    } else {
        assert_eq!(r.d[0], k("INDEX_NOT_FOUND"), "entered");
        None
    }
}

/// A key already held (a block freed unseen whose address comes back) is not
/// entered twice: the insert answers its position and leaves the table as it was.
#[test]
fn inserting_a_key_held_already_answers_its_position() {
    let mut m = table(16);
    let keys = keys_at_home(3, 16, 0x3_0000, 2);
    insert(&mut m, keys[0], 1);
    insert(&mut m, keys[1], 2);
    assert_eq!(
        try_insert(&mut m, keys[1], 9),
        Some(4),
        "found after a probe"
    );
    assert_eq!(entry(&m, 4), (keys[1], 2), "its slot unchanged");
    assert_eq!(entry(&m, 5), (0, 0), "nothing entered");
    assert_eq!(try_insert(&mut m, keys[0], 9), Some(3));
}

fn remove(m: &mut Machine, entry: u32) {
    m.call(
        "__memdbg_index_remove",
        Regs::new().a(0, index()).d(0, entry * 4),
        &[],
    );
}

/// The key and slot at entry `i`.
fn entry(m: &Machine, i: u32) -> (u32, u16) {
    (m.long(KEYS + 4 * i), m.word(crate::machine::SLOTS + 2 * i))
}

/// Keys at 4-byte steps from `from` whose home in a table of `entries` is `h`.
fn keys_at_home(h: u32, entries: u32, from: u32, n: usize) -> Vec<u32> {
    (0..)
        .map(|i| from + 4 * i)
        .filter(|&key| home(key, entries) == h)
        .take(n)
        .collect()
}

#[test]
fn find_probes_from_the_home_and_never_finds_key_0() {
    let mut m = table(16);
    assert_eq!(find(&mut m, 0x1_0010), None, "an empty table");
    assert_eq!(find(&mut m, 0), None);
    insert(&mut m, 0x1_0010, 7);
    let h = home(0x1_0010, 16);
    assert_eq!(entry(&m, h), (0x1_0010, 7), "inserted at its home");
    assert_eq!(find(&mut m, 0x1_0010), Some(h));
    // Key 0 is an empty entry's: never found, wherever its home is.
    assert_eq!(find(&mut m, 0), None);
    assert_eq!(find(&mut m, 0x1_0014), None);
}

#[test]
fn insertion_and_lookup_wrap_around_the_end_of_the_table() {
    let mut m = table(16);
    // Three keys whose home is the last entry: 15, then 0 and 1 (wrapped).
    let keys = keys_at_home(15, 16, 0x2_0000, 3);
    for (s, &key) in keys.iter().enumerate() {
        insert(&mut m, key, s as u16 + 1);
    }
    assert_eq!(entry(&m, 15), (keys[0], 1));
    assert_eq!(entry(&m, 0), (keys[1], 2));
    assert_eq!(entry(&m, 1), (keys[2], 3));
    for (i, &key) in keys.iter().enumerate() {
        assert_eq!(find(&mut m, key), Some([15, 0, 1][i]));
    }
    // A key of the same home that is absent: the probe wraps and ends at entry 2.
    let absent = keys_at_home(15, 16, keys[2] + 4, 1)[0];
    assert_eq!(find(&mut m, absent), None);
}

#[test]
fn removal_shifts_the_cluster_back_across_the_wrap() {
    let mut m = table(16);
    // Keys whose home is 14: they occupy 14, 15, 0, 1 (wrapping).
    let keys = keys_at_home(14, 16, 0x2_0000, 4);
    for (s, &key) in keys.iter().enumerate() {
        insert(&mut m, key, s as u16);
    }
    // One key with home 0 after the wrapped cluster, at 2.
    let k0 = keys_at_home(0, 16, 0x3_0000, 1)[0];
    insert(&mut m, k0, 9);
    assert_eq!(find(&mut m, k0), Some(2));
    let at = find(&mut m, keys[1]).unwrap();
    remove(&mut m, at);
    for (s, &key) in keys.iter().enumerate() {
        if s != 1 {
            let at = find(&mut m, key).unwrap_or_else(|| panic!("key {s} lost"));
            assert_eq!(entry(&m, at).1, s as u16, "key {s}'s slot");
        }
    }
    assert_eq!(find(&mut m, keys[1]), None);
    // Everything moved back by one: the home-0 key to 1, and 2 is empty.
    assert_eq!(find(&mut m, k0), Some(1));
    assert_eq!(entry(&m, 1), (k0, 9));
    assert_eq!(entry(&m, 2).0, 0);
}

#[test]
fn the_home_position_is_the_documented_fibonacci_hash() {
    let mut seed = 0x9E37_79B9u32;
    for bits in [4u32, 6, 10, 13] {
        let entries = 1u16 << bits;
        let mut m = table(entries);
        for _ in 0..200 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let key = seed & !3 | 4;
            insert(&mut m, key, 1);
            assert_eq!(
                find(&mut m, key),
                Some(home(key, entries.into())),
                "{key:#x}"
            );
            remove(&mut m, home(key, entries.into()));
            assert_eq!(find(&mut m, key), None);
        }
    }
}

/// A model check against a HashMap over many random operations, like thousands of
/// alloc/free cycles with a varying live set: every lookup agrees, the table holds
/// exactly the live keys, and probes stay short (no tombstone build-up).
#[test]
fn random_operations_match_a_model() {
    let mut m = table(1024);
    let mut model = HashMap::new();
    let mut seed = 0x1234_5678u32;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    for step in 0..20_000u32 {
        let key = 0x1_0000 + (rand() % 2048) * 6;
        match find(&mut m, key) {
            Some(at) => {
                assert_eq!(model.get(&key), Some(&entry(&m, at).1), "step {step}");
                remove(&mut m, at);
                model.remove(&key);
            }
            None => {
                assert!(!model.contains_key(&key), "step {step}");
                if model.len() < 682 {
                    insert(&mut m, key, (step % 60_000) as u16);
                    model.insert(key, (step % 60_000) as u16);
                }
            }
        }
    }
    let live: Vec<(u32, u32)> = (0..1024)
        .map(|i| (i, m.long(KEYS + 4 * i)))
        .filter(|&(_, key)| key != 0)
        .collect();
    assert_eq!(live.len(), model.len());
    let longest = live
        .iter()
        .map(|&(i, key)| i.wrapping_sub(home(key, 1024)) & 1023)
        .max()
        .unwrap();
    assert!(longest < 40, "longest probe {longest}");
}

/// Probe lengths (1 = at home) of `keys` entered into a table of `entries`:
/// (average, longest).
fn probes(keys: &[u32], entries: u16) -> (f64, u32) {
    let mut m = table(entries);
    for &key in keys {
        insert(&mut m, key, 1);
    }
    let lens: Vec<u32> = keys
        .iter()
        .map(|&key| {
            let at = find(&mut m, key).unwrap();
            (at.wrapping_sub(home(key, entries.into())) & (u32::from(entries) - 1)) + 1
        })
        .collect();
    let total: u32 = lens.iter().sum();
    (
        f64::from(total) / keys.len() as f64,
        *lens.iter().max().unwrap(),
    )
}

/// Equal-size blocks lie at addresses in arithmetic progression (a 16-byte guarded
/// block is a 28-byte chunk; master pointers are 4 bytes apart): at the detector's
/// largest load (5,000 of 8,192 entries) their probes stay short.
#[test]
fn arithmetic_progressions_give_short_probes() {
    for stride in [4u32, 24, 28, 40] {
        for start in [0x1000u32, 0x1A02, 0x1000_0000] {
            let keys: Vec<u32> = (0..5000).map(|i| start + i * stride).collect();
            let (avg, longest) = probes(&keys, 8192);
            eprintln!("stride {stride} from {start:#x}: average {avg:.2}, longest {longest}");
            assert!(avg < 3.5 && longest <= 8, "stride {stride} from {start:#x}");
        }
    }
    // Handles: master pointers and their chunks together.
    let keys: Vec<u32> = (0..2500u32)
        .map(|i| 0x1100 + i * 4)
        .chain((0..2500).map(|i| 0x4000 + i * 28))
        .collect();
    let (avg, longest) = probes(&keys, 8192);
    eprintln!("master pointers and chunks: average {avg:.2}, longest {longest}");
    assert!(avg < 2.0 && longest <= 8);
    // A progression crossing 256 KB windows (the folded bits change).
    let keys: Vec<u32> = (0..1000).map(|i| 0x3_F000 + i * 72).collect();
    let (avg, longest) = probes(&keys, 2048);
    assert!(
        avg < 3.0 && longest <= 8,
        "across windows: {avg:.2}, {longest}"
    );
}

/// A small table (capacity 42: 64 entries) with ten 16-byte guarded blocks live
/// (28-byte chunks in a row, the bench's shape before its capacity was the
/// default): every block at its home and no two next to each other, so a find is
/// one probe and a removal scans no cluster. Fibonacci's multiplier put them in
/// three clumps of adjacent entries here (`examples/index_hash.rs` measures both).
#[test]
fn ten_blocks_in_a_row_do_not_clump_in_a_small_table() {
    let mut m = table(64);
    let keys: Vec<u32> = (0..10).map(|i| 0x1000 + i * 28).collect();
    for &key in &keys {
        insert(&mut m, key, 1);
    }
    for &key in &keys {
        let at = find(&mut m, key).unwrap();
        assert_eq!(at, home(key, 64), "{key:#x} at its home");
        let next = m.long(KEYS + 4 * ((at + 1) & 63));
        assert_eq!(next, 0, "{key:#x}: the entry after it is empty");
    }
}
