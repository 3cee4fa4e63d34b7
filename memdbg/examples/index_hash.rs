//! How well the free path's index spreads equal-size blocks: the measure behind
//! the free path's index multiplier (`src/index.rs`'s `MULTIPLIER`).
//!
//! ```text
//! cargo run --release -p memdbg --example index_hash            # ours and Fibonacci's
//! cargo run --release -p memdbg --example index_hash -- 0x9E37  # any multiplier
//! cargo run --release -p memdbg --example index_hash -- --search
//! ```
//!
//! Equal-size blocks allocated one after another lie at addresses in arithmetic
//! progression, the worst input for a multiplicative hash: their homes are the
//! multiples of one number around the 16-bit circle, evenly spread for some strides
//! and in a few tight clumps for others. Each case enters such a progression into a
//! table with linear probing, as `asm/index.s` does, and counts for every key what
//! the index's 68k code pays: the probes of its find (1 at home) plus the entries
//! after it up to an empty one (what a removal scans). The cases: strides of 4
//! bytes (master pointers; counted six times, every handle's key on OS 3.x) and 20
//! to 64 bytes in steps of 2 (the chunks of 8- to 52-byte guarded blocks), from 4
//! start addresses (even, odd-word, high memory, across a 256 KB window), in
//! tables of 16 to 8,192 entries holding 10 keys, a quarter and 60% (the detector's
//! most is 2/3). It prints the mean cost and the worst case's mean.
//! `--search` ranks every odd 16-bit multiplier by mean + worst / 8 on tables up to
//! 256 entries, then prints the 10 best on all sizes.
//!
//! The home is `src/index.rs`'s: the top log2(entries) bits of `(x × multiplier)
//! mod 2^16`, `x = ((key >> 2) + (key >> 18)) mod 2^16`. Host code only: this is
//! arithmetic, the 68k routines' tests (`tests/asm/index.rs`) check that they
//! compute the same homes.

use memdbg::INDEX_MULTIPLIER as MULTIPLIER;

/// Fibonacci hashing's multiplier (2^16 / φ, odd): the one used before.
const FIBONACCI: u16 = 0x9E37;

/// Start addresses of the progressions.
const STARTS: [u32; 4] = [0x1000, 0x1A02, 0x1000_0000, 0x3_F000];

fn home(multiplier: u16, key: u32, bits: u32) -> usize {
    let x = (key >> 2).wrapping_add(key >> 18) as u16;
    usize::from(x.wrapping_mul(multiplier) >> (16 - bits))
}

/// Mean cost per key of `n` keys `start + i × stride` in `entries` entries.
fn case(
    multiplier: u16,
    start: u32,
    stride: u32,
    n: usize,
    entries: usize,
    table: &mut [u32],
) -> f64 {
    let bits = entries.trailing_zeros();
    let mask = entries - 1;
    let table = &mut table[..entries];
    table.fill(0);
    let mut total = 0usize;
    let keys = (0..n as u32).map(|i| start + i * stride);
    for key in keys.clone() {
        let mut at = home(multiplier, key, bits);
        while table[at] != 0 {
            at = (at + 1) & mask;
        }
        table[at] = key;
    }
    for key in keys {
        let h = home(multiplier, key, bits);
        let mut at = h;
        while table[at] != key {
            at = (at + 1) & mask;
        }
        let mut run = 0;
        let mut next = (at + 1) & mask;
        while table[next] != 0 {
            run += 1;
            next = (next + 1) & mask;
        }
        total += ((at.wrapping_sub(h)) & mask) + 1 + run;
    }
    total as f64 / n as f64
}

/// (mean cost over the cases, the worst case's mean cost), tables up to
/// `max_entries`.
fn measure(multiplier: u16, max_entries: usize) -> (f64, f64) {
    let mut table = vec![0u32; max_entries];
    let (mut sum, mut weight, mut worst) = (0.0, 0.0, 0.0f64);
    let strides = std::iter::once(4).chain((20..=64).step_by(2));
    for stride in strides {
        let w = if stride == 4 { 6.0 } else { 1.0 };
        for start in STARTS {
            let mut entries = 16;
            while entries <= max_entries {
                for n in [10, entries / 4, entries * 6 / 10] {
                    if n < 2 || n > entries * 2 / 3 {
                        continue;
                    }
                    let c = case(multiplier, start, stride, n, entries, &mut table);
                    sum += w * c;
                    weight += w;
                    worst = worst.max(c);
                }
                entries *= 2;
            }
        }
    }
    (sum / weight, worst)
}

fn show(name: &str, multiplier: u16) {
    let (mean, worst) = measure(multiplier, 8192);
    println!("{name:<11} {multiplier:#06X}: mean cost {mean:.3}, worst case {worst:.2}");
}

fn main() {
    let arg = std::env::args().nth(1);
    match arg.as_deref() {
        Some("--search") => {
            let mut ranked: Vec<(f64, u16)> = (1..=u16::MAX)
                .step_by(2)
                .map(|a| {
                    let (mean, worst) = measure(a, 256);
                    (mean + worst / 8.0, a)
                })
                .collect();
            ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
            for &(_, a) in &ranked[..10] {
                show("candidate", a);
            }
        }
        Some(m) => {
            let Ok(a) = u16::from_str_radix(m.trim_start_matches("0x"), 16) else {
                eprintln!("index_hash: {m}: not a 16-bit hexadecimal multiplier");
                std::process::exit(2);
            };
            show("given", a);
        }
        None => {
            show("memdbg", MULTIPLIER);
            show("Fibonacci", FIBONACCI);
        }
    }
}
