//! The differential test: every corpus function, compiled by palm-build for
//! the MC68000 and run in the emulator at two load addresses, must compute
//! exactly what the same function computes on the host. The corpus is built
//! as several images (one code resource is at most 32 KB; see the corpus
//! crate's docs): each test calls a function in the image that has it.
//!
//! Set `PALM_BUILD_RAW_LLVM=1` to run the corpus on LLVM's own object code
//! instead (no repair pass, no GNU as, no own mem routines, no IR check, no
//! verifier), including the image of code palm-build refuses: it fails,
//! which is why the pipeline exists.

use std::sync::OnceLock;

use palm_build::emu::{Emu, EmuError, TrapCall};
use palm_build::{Image, ImageKind, Options};
/// The same source, compiled for the host.
#[path = "../src/lib.rs"]
#[allow(dead_code)]
mod host;

/// Load addresses: two, so that anything position-dependent shows.
const BASES: [u32; 2] = [0x0001_0000, 0x0002_3456];
/// Distance between the images loaded at one base (the most one code
/// resource can hold).
const IMAGE_STRIDE: u32 = 0x8000;
/// Scratch memory for buffers passed to the functions.
const DATA: u32 = 0x0006_0000;
const RAM: u32 = 0x0010_0000;
/// Instructions one call may run before it counts as never returning: about
/// 11× the longest call in the corpus (`c_pressure(…, 1000)`, 439 k).
const CALL_BUDGET: u64 = 5_000_000;
/// The budget of a 128-bit call: 12× the longest (`c_i128_div_rem`, 17 k),
/// so that each of the hundreds of calls compiler_builtins' miscompiled
/// division never returns from costs a fraction of a second (in the debug
/// build of the emulator), not the budget of the slowest function.
const WIDE_CALL_BUDGET: u64 = 200_000;

/// The images that must build, by the corpus feature that selects each.
const IMAGES: [&str; 2] = ["image-base", "image-wide"];
/// The image of code palm-build must refuse (LLVM bug 16).
const REFUSED: &str = "image-refused";

/// Whether the corpus runs on LLVM's own object code (`PALM_BUILD_RAW_LLVM`).
fn raw_llvm() -> bool {
    std::env::var_os("PALM_BUILD_RAW_LLVM").is_some()
}

/// Builds the corpus image with `feature`.
fn build(feature: &str) -> Result<Image, String> {
    palm_build::build_image(&Options {
        manifest_path: concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml").into(),
        target_dir: None,
        kind: ImageKind::TestLib,
        features: vec![feature.to_string()],
        quiet: true,
        raw_llvm: raw_llvm(),
    })
    .map_err(|e| format!("{e:#}"))
}

/// Every image that runs: [`IMAGES`], and with `PALM_BUILD_RAW_LLVM` also
/// [`REFUSED`] (unchecked there).
fn images() -> &'static [Image] {
    static IMAGES_BUILT: OnceLock<Vec<Image>> = OnceLock::new();
    IMAGES_BUILT.get_or_init(|| {
        let refused = raw_llvm().then_some(REFUSED);
        IMAGES
            .into_iter()
            .chain(refused)
            .map(|feature| {
                build(feature).unwrap_or_else(|e| {
                    panic!("building the corpus image {feature} for the 68000 failed: {e}")
                })
            })
            .collect()
    })
}

/// The corpus images loaded at one base address, image `i` at
/// `base + i * IMAGE_STRIDE`.
struct M68k {
    emu: Emu,
    base: u32,
    heap: Heap,
    /// Instructions a call may run ([`CALL_BUDGET`] unless a test sets it).
    budget: u64,
}

/// Why a call did not give a result.
#[derive(Debug)]
enum Failure {
    /// It ran its budget of instructions without returning.
    NeverReturned(String),
    /// It faulted, made an unexpected trap, or is not in any image.
    Fault(String),
}

/// The traps the corpus makes, answered by the test: a minimal Memory Manager
/// for the global allocator (`MemPtrNew`, `MemChunkFree`, `MemPtrResize`) and
/// `StrLen`. Chunks are carved upwards from `HEAP`; each has a 4-byte size
/// word before its body. Frees of unknown or freed chunks are errors.
#[derive(Default)]
struct Heap {
    /// Next free address.
    top: u32,
    /// Live chunk bodies → size in bytes.
    live: std::collections::BTreeMap<u32, u32>,
    /// Allocations, resizes and frees seen.
    calls: (u32, u32, u32),
}

/// Where the test's heap starts (above the corpus' data buffers).
const HEAP: u32 = 0x0008_0000;
/// Palm OS `memErrNotEnoughSpace` (MemoryMgr.h), refusing a resize.
const MEM_ERR_NOT_ENOUGH_SPACE: u32 = 0x0102;

impl Heap {
    fn service(&mut self, t: &mut TrapCall<'_>) -> Result<(), String> {
        match t.trap {
            // MemPtrNew(UInt32 size) -> MemPtr (A0)
            0xA013 => {
                let size = t.arg_long(0);
                let body = self.top.max(HEAP) + 4;
                self.top = body + ((size + 1) & !1);
                self.live.insert(body, size);
                self.calls.0 += 1;
                t.cpu.set_a(0, body);
            }
            // MemPtrResize(MemPtr p, UInt32 newSize) -> Err: in place only for the last chunk.
            0xA01C => {
                let (p, size) = (t.arg_long(0), t.arg_long(4));
                let old = *self
                    .live
                    .get(&p)
                    .ok_or(format!("MemPtrResize of unknown chunk 0x{p:x}"))?;
                self.calls.1 += 1;
                let last = p + ((old + 1) & !1) == self.top;
                if last || size <= old {
                    if last {
                        self.top = p + ((size + 1) & !1);
                    }
                    self.live.insert(p, size);
                    t.cpu.set_d(0, 0);
                } else {
                    t.cpu.set_d(0, MEM_ERR_NOT_ENOUGH_SPACE);
                }
            }
            // MemChunkFree(MemPtr p) -> Err
            0xA012 => {
                let p = t.arg_long(0);
                self.live
                    .remove(&p)
                    .ok_or(format!("MemChunkFree of unknown chunk 0x{p:x}"))?;
                self.calls.2 += 1;
                t.cpu.set_d(0, 0);
            }
            // StrLen(const Char *src) -> Int16
            0xA0C7 => {
                let s = t.arg_long(0);
                let len = (0..).take_while(|&i| t.ram.slice(s + i, 1)[0] != 0).count();
                t.cpu.set_d(0, len as u32);
            }
            other => return Err(format!("unexpected trap 0x{other:04x}")),
        }
        Ok(())
    }
}

impl M68k {
    fn new(base: u32) -> M68k {
        let mut emu = Emu::new(RAM);
        for (i, image) in images().iter().enumerate() {
            assert!(
                image.code.len() <= IMAGE_STRIDE as usize,
                "{}",
                image.elf.display()
            );
            emu.load(base + i as u32 * IMAGE_STRIDE, &image.code);
        }
        M68k {
            emu,
            base,
            heap: Heap::default(),
            budget: CALL_BUDGET,
        }
    }

    /// Calls `name` (in whichever image has it) with at most
    /// [`M68k::budget`] instructions; returns D0 and D1.
    fn try_call_d0_d1(&mut self, name: &str, args: &[u32]) -> Result<(u32, u32), Failure> {
        let (i, offset) = images()
            .iter()
            .enumerate()
            .find_map(|(i, image)| Some((i, *image.symbols.get(name)?)))
            .ok_or_else(|| Failure::Fault(format!("`{name}` is in no corpus image")))?;
        let base = self.base + i as u32 * IMAGE_STRIDE;
        let heap = &mut self.heap;
        let what = || format!("{name}{args:x?} at base 0x{:x}", self.base);
        match self
            .emu
            .call(base + offset, args, &mut |t| heap.service(t), self.budget)
        {
            Ok(r) => Ok((r.d0, r.d1)),
            Err(e @ EmuError::Timeout(_)) => {
                Err(Failure::NeverReturned(format!("{}: {e}", what())))
            }
            Err(e) => Err(Failure::Fault(format!("{}: {e}", what()))),
        }
    }

    /// Calls `name`; its result in D0.
    fn try_call(&mut self, name: &str, args: &[u32]) -> Result<u32, Failure> {
        self.try_call_d0_d1(name, args).map(|(d0, _)| d0)
    }

    fn write(&mut self, addr: u32, bytes: &[u8]) {
        self.emu.load(addr, bytes);
    }

    fn read(&self, addr: u32, len: u32) -> Vec<u8> {
        self.emu.ram.slice(addr, len).to_vec()
    }

    fn write_u32s(&mut self, addr: u32, values: &[u32]) {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_be_bytes()).collect();
        self.write(addr, &bytes);
    }

    fn read_u32s(&self, addr: u32, n: u32) -> Vec<u32> {
        self.read(addr, 4 * n)
            .chunks(4)
            .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
            .collect()
    }
}

/// Collects mismatches per corpus function so that one run reports every
/// function that is wrong (with a few examples each), then fails.
#[derive(Default)]
struct Checker {
    /// Function → (calls, calls that differ, calls that never returned, examples).
    checked: std::collections::BTreeMap<String, (u32, u32, u32, Vec<String>)>,
}

impl Checker {
    /// Records one comparison of `function`: `got` (from the 68000) against `want` (host).
    fn check<T: PartialEq + std::fmt::Debug>(
        &mut self,
        function: &str,
        what: String,
        got: Result<T, Failure>,
        want: T,
    ) {
        let entry = self.checked.entry(function.to_string()).or_default();
        entry.0 += 1;
        let problem = match got {
            Ok(g) if g == want => return,
            Ok(g) => format!("{what}: 68000 gave {g:x?}, host {want:x?}"),
            Err(Failure::NeverReturned(e)) => {
                entry.2 += 1;
                format!("{what}: never returned ({e})")
            }
            Err(Failure::Fault(e)) => format!("{what}: {e}"),
        };
        entry.1 += 1;
        if entry.3.len() < 3 {
            entry.3.push(problem);
        }
    }

    /// Panics with a per-function summary if anything differed.
    fn finish(self) {
        let mut report = String::new();
        for (function, (checked, failed, hung, examples)) in &self.checked {
            if *failed > 0 {
                report += &format!("\n  {function}: {failed} of {checked} calls differ");
                if *hung > 0 {
                    report += &format!(" ({hung} never returned)");
                }
                for e in examples {
                    report += &format!("\n      {e}");
                }
            }
        }
        assert!(
            report.is_empty(),
            "the 68000 build differs from the host:{report}"
        );
    }
}

/// Each test runs on every base address.
fn machines() -> impl Iterator<Item = M68k> {
    BASES.iter().map(|&b| M68k::new(b))
}

/// [`machines`] for 128-bit calls: with [`WIDE_CALL_BUDGET`].
fn wide_machines() -> impl Iterator<Item = M68k> {
    machines().map(|m| M68k {
        budget: WIDE_CALL_BUDGET,
        ..m
    })
}

const EDGES: [u32; 24] = [
    0,
    1,
    2,
    3,
    5,
    7,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x1_0000,
    0x1_0001,
    0x1234_5678,
    0x7FFF_FFFF,
    0x8000_0000,
    0x8000_0001,
    0xDEAD_BEEF,
    0xFFFF_0000,
    0xFFFF_FFF1,
    0xFFFF_FFFE,
    0xFFFF_FFFF,
];

/// A deterministic pseudo-random sequence (xorshift32).
fn randoms(seed: u32, n: usize) -> Vec<u32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect()
}

fn operands() -> Vec<u32> {
    let mut v = EDGES.to_vec();
    v.extend(randoms(0xC0FFEE, 16));
    v.extend(randoms(0xBEEF, 8).iter().map(|r| r & 0xFFFF));
    v
}

#[test]
fn carry_masks_match_the_host() {
    let ops = operands();
    let mut c = Checker::default();
    for mut m in machines() {
        for &a in &ops {
            for &b in &ops {
                c.check(
                    "c_or_if_zero",
                    format!("({a:#x}, {b:#x})"),
                    m.try_call("c_or_if_zero", &[a, b]),
                    host::base::c_or_if_zero(a, b),
                );
            }
        }
    }
    c.finish();
}

#[test]
fn u32_mul_div_rem_match_the_host() {
    let ops = operands();
    let mut c = Checker::default();
    for mut m in machines() {
        for &a in &ops {
            for &b in &ops {
                let args = [a, b];
                let what = format!("({a:#x}, {b:#x})");
                c.check(
                    "c_udiv",
                    what.clone(),
                    m.try_call("c_udiv", &args),
                    host::base::c_udiv(a, b),
                );
                c.check(
                    "c_urem",
                    what.clone(),
                    m.try_call("c_urem", &args),
                    host::base::c_urem(a, b),
                );
                let sdiv = m.try_call("c_sdiv", &args).map(|v| v as i32);
                c.check(
                    "c_sdiv",
                    what.clone(),
                    sdiv,
                    host::base::c_sdiv(a as i32, b as i32),
                );
                let srem = m.try_call("c_srem", &args).map(|v| v as i32);
                c.check(
                    "c_srem",
                    what.clone(),
                    srem,
                    host::base::c_srem(a as i32, b as i32),
                );
                c.check(
                    "c_mul",
                    what.clone(),
                    m.try_call("c_mul", &args),
                    host::base::c_mul(a, b),
                );
                let got = m.try_call("c_checked_mul", &args);
                c.check(
                    "c_checked_mul",
                    what.clone(),
                    got,
                    host::base::c_checked_mul(a, b),
                );
                let got = m.try_call("c_checked_smul", &args).map(|v| v as i32);
                c.check(
                    "c_checked_smul",
                    what.clone(),
                    got,
                    host::base::c_checked_smul(a as i32, b as i32),
                );
                c.check(
                    "c_mul_hi",
                    what,
                    m.try_call("c_mul_hi", &args),
                    host::base::c_mul_hi(a, b),
                );
            }
        }
    }
    c.finish();
}

#[test]
fn u64_arithmetic_matches_the_host() {
    let halves = [
        0u32,
        1,
        3,
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
        0x1234_5678,
        0xFFFF,
    ];
    let mut values = Vec::new();
    for &hi in &halves {
        for &lo in &halves[..5] {
            values.push((hi, lo));
        }
    }
    let mut c = Checker::default();
    for mut m in machines() {
        for &(ahi, alo) in &values {
            for &(bhi, blo) in &values {
                m.write_u32s(DATA, &[0; 18]);
                let got = m
                    .try_call("c_u64_ops", &[ahi, alo, bhi, blo, DATA])
                    .map(|_| m.read_u32s(DATA, 18));
                let mut want = [0u32; 18];
                // SAFETY: `want` has 18 slots.
                unsafe { host::base::c_u64_ops(ahi, alo, bhi, blo, want.as_mut_ptr()) };
                c.check(
                    "c_u64_ops",
                    format!("({ahi:#x}:{alo:#x}, {bhi:#x}:{blo:#x})"),
                    got,
                    want.to_vec(),
                );
            }
        }
    }
    c.finish();
}

#[test]
fn bit_and_narrow_operations_match_the_host() {
    let ops = operands();
    let mut c = Checker::default();
    for mut m in machines() {
        for &a in &ops {
            for &b in &ops {
                let what = format!("({a:#x}, {b:#x})");
                c.check(
                    "c_bits",
                    what.clone(),
                    m.try_call("c_bits", &[a, b]),
                    host::base::c_bits(a, b),
                );
                c.check(
                    "c_narrow",
                    what,
                    m.try_call("c_narrow", &[a, b]),
                    host::base::c_narrow(a, b),
                );
            }
        }
    }
    c.finish();
}

#[test]
fn register_pressure_loops_match_the_host() {
    let mut c = Checker::default();
    for mut m in machines() {
        for &seed in &[0, 1, 0xFFFF_FFFF, 0x8000_0000, 0x1234_5678, 0xCAFE_F00D] {
            for n in [0, 1, 2, 7, 64, 1000] {
                let got = m.try_call("c_pressure", &[seed, n]);
                c.check(
                    "c_pressure",
                    format!("({seed:#x}, {n})"),
                    got,
                    host::base::c_pressure(seed, n),
                );
            }
        }
    }
    c.finish();
}

#[test]
fn compare_loops_and_sorting_match_the_host() {
    let mut c = Checker::default();
    for mut m in machines() {
        for (i, len) in [0u32, 1, 2, 5, 17, 100, 300].into_iter().enumerate() {
            let mut data = randoms(0x5EED + i as u32, len as usize);
            for (j, v) in data.iter_mut().enumerate() {
                if j % 3 == 0 {
                    *v &= 0xFF; // plenty of duplicates and small values
                }
            }
            for (lo, hi) in [
                (0, 0x7F),
                (0x10, 0xFFFF_FFFF),
                (0x8000_0000, 0xFFFF_FFFF),
                (5, 4),
            ] {
                m.write_u32s(DATA, &data);
                let got = m.try_call("c_count_between", &[DATA, len, lo, hi]);
                // SAFETY: `data` holds `len` values.
                let want = unsafe { host::base::c_count_between(data.as_ptr(), len, lo, hi) };
                c.check(
                    "c_count_between",
                    format!("(len {len}, {lo:#x}..={hi:#x})"),
                    got,
                    want,
                );
            }
            m.write_u32s(DATA, &data);
            let got = m
                .try_call("c_sort", &[DATA, len])
                .map(|_| m.read_u32s(DATA, len));
            let mut want = data.clone();
            want.sort_unstable();
            c.check("c_sort", format!("(len {len})"), got, want);
        }
    }
    c.finish();
}

#[test]
fn stack_arrays_jump_tables_and_tail_calls_match_the_host() {
    let mut c = Checker::default();
    for mut m in machines() {
        for n in [0, 1, 31, 32, 33, 200] {
            for seed in [0, 0xFFFF_FFFF, 0x1234_5678] {
                let got = m.try_call("c_stack_array", &[n, seed]);
                c.check(
                    "c_stack_array",
                    format!("({n}, {seed:#x})"),
                    got,
                    host::base::c_stack_array(n, seed),
                );
            }
        }
        for x in 0..22 {
            for y in [0, 1, 0x8000_0000, 0xFFFF_FFFF, 0x1234_5678] {
                let got = m.try_call("c_jump_table", &[x, y]);
                c.check(
                    "c_jump_table",
                    format!("({x}, {y:#x})"),
                    got,
                    host::base::c_jump_table(x, y),
                );
            }
        }
        for depth in 0..12 {
            for x in [0, 1, 0xFFFF_FFFF] {
                let got = m.try_call("c_tail", &[x, depth]);
                c.check(
                    "c_tail",
                    format!("({x:#x}, {depth})"),
                    got,
                    host::base::c_tail(x, depth),
                );
            }
        }
    }
    c.finish();
}

/// A recognisable source pattern for the mem routines.
fn pattern(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(11))
        .collect()
}

/// Bytes checked on each side of a destination, to catch stray writes.
const GUARD: u32 = 8;

#[test]
fn memcpy_and_memset_match_the_host_at_every_alignment_and_length() {
    let mut c = Checker::default();
    for mut m in machines() {
        for dst_off in 0..4u32 {
            for src_off in 0..4u32 {
                for len in 0..=70u32 {
                    let src = DATA + 0x1000 + src_off;
                    let dst = DATA + GUARD + dst_off;
                    let window = len + 2 * GUARD;
                    m.write(dst - GUARD, &vec![0xEE; window as usize]);
                    m.write(src, &pattern(len as usize));
                    let got = m
                        .try_call("c_memcpy", &[dst, src, len])
                        .map(|_| m.read(dst - GUARD, window));
                    let mut want = vec![0xEEu8; window as usize];
                    want[GUARD as usize..(GUARD + len) as usize]
                        .copy_from_slice(&pattern(len as usize));
                    c.check(
                        "c_memcpy",
                        format!("(dst+{dst_off}, src+{src_off}, {len})"),
                        got,
                        want,
                    );
                }
            }
            for len in 0..=70u32 {
                let dst = DATA + GUARD + dst_off;
                let window = len + 2 * GUARD;
                m.write(dst - GUARD, &vec![0xEE; window as usize]);
                let got = m
                    .try_call("c_memset", &[dst, 0x1A5, len])
                    .map(|_| m.read(dst - GUARD, window));
                let mut want = vec![0xEEu8; window as usize];
                want[GUARD as usize..(GUARD + len) as usize].fill(0xA5);
                c.check(
                    "c_memset",
                    format!("(dst+{dst_off}, 0xA5, {len})"),
                    got,
                    want,
                );
            }
        }
    }
    c.finish();
}

#[test]
fn memmove_matches_the_host_for_overlaps_in_both_directions() {
    let mut c = Checker::default();
    for mut m in machines() {
        for len in 0..=70u32 {
            for shift in [-9i32, -4, -3, -1, 1, 2, 3, 4, 9] {
                for base_off in 0..2u32 {
                    let region = DATA + 0x100 + base_off;
                    let total = len + 32;
                    let initial = pattern(total as usize);
                    m.write(region, &initial);
                    let src = region + 16;
                    let dst = src.wrapping_add_signed(shift);
                    let got = m
                        .try_call("c_memmove", &[dst, src, len])
                        .map(|_| m.read(region, total));
                    let mut want = initial.clone();
                    let d = (16 + shift) as usize;
                    want.copy_within(16..16 + len as usize, d);
                    c.check(
                        "c_memmove",
                        format!("(len {len}, shift {shift}, base+{base_off})"),
                        got,
                        want,
                    );
                }
            }
        }
    }
    c.finish();
}

#[test]
fn memcmp_matches_the_host() {
    let mut c = Checker::default();
    for mut m in machines() {
        for len in [0u32, 1, 2, 3, 4, 7, 8, 16, 33, 70] {
            for diff_at in [None, Some(0u32), Some(len / 2), Some(len.saturating_sub(1))] {
                for (a_off, b_off) in [(0u32, 0u32), (1, 0), (0, 3), (3, 1)] {
                    let a = pattern(len as usize);
                    let mut b = a.clone();
                    if let Some(i) = diff_at.filter(|&i| i < len) {
                        b[i as usize] = b[i as usize].wrapping_add(1);
                    }
                    let (pa, pb) = (DATA + a_off, DATA + 0x200 + b_off);
                    m.write(pa, &a);
                    m.write(pb, &b);
                    let got = m.try_call("c_memcmp", &[pa, pb, len]);
                    // SAFETY: both buffers hold `len` bytes.
                    let want = unsafe { host::base::c_memcmp(a.as_ptr(), b.as_ptr(), len) };
                    c.check(
                        "c_memcmp",
                        format!("(len {len}, diff {diff_at:?}, offsets {a_off}/{b_off})"),
                        got,
                        want,
                    );
                }
            }
        }
    }
    c.finish();
}

fn read_u16s(m: &M68k, addr: u32, n: u32) -> Vec<u16> {
    m.read(addr, 2 * n)
        .chunks(2)
        .map(|c| u16::from_be_bytes(c.try_into().unwrap()))
        .collect()
}

/// The two `u16`s the host wrote into the `u32` slot `slot`, in memory order.
fn u16s_in(slot: u32) -> Vec<u16> {
    slot.to_ne_bytes()
        .chunks(2)
        .map(|c| u16::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

/// Widened narrow values stored to memory, written the safe way
/// (`in_register`): from narrow arguments, from loads through pointers (odd
/// addresses too), from masks and shifts LLVM narrows into 8/16-bit loads, and
/// in loops. Without `in_register` palm-build rejects these functions (LLVM
/// bug 7), and LLVM's own code for them (`PALM_BUILD_RAW_LLVM`) stores wrong
/// high bits or stops with address errors.
#[test]
fn widened_narrow_values_stored_to_memory_match_the_host() {
    let mut c = Checker::default();
    for mut m in machines() {
        for &x in &operands() {
            let (a, b, h, s, flag) = (
                x as u8,
                (x >> 8) as i8,
                (x >> 4) as u16,
                x as i16,
                x & 1 == 1,
            );
            // Each argument in a 4-byte slot, extended as LLVM's callers do.
            let args = [
                u32::from(a),
                b as u32,
                u32::from(h),
                s as u32,
                u32::from(flag),
                DATA,
            ];
            m.write_u32s(DATA, &[0xA5A5_A5A5; 6]);
            let got = m
                .try_call("c_widen_args", &args)
                .map(|_| (m.read_u32s(DATA, 5), read_u16s(&m, DATA + 20, 2)));
            let mut want = [0xA5A5_A5A5u32; 6];
            // SAFETY: `want` has the 6 slots the function writes.
            unsafe { host::base::c_widen_args(a, b, h, s, flag, want.as_mut_ptr()) };
            c.check(
                "c_widen_args",
                format!("({a:#x}, {b}, {h:#x}, {s}, {flag})"),
                got,
                (want[..5].to_vec(), u16s_in(want[5])),
            );

            // bytes at DATA, halves at DATA + 0x10, words at DATA + 0x20, out at DATA + 0x40.
            let bytes = x.to_be_bytes();
            let halves = [x as u16, (x >> 16) as u16, x.rotate_left(8) as u16];
            let words = [x.rotate_right(4)];
            m.write(DATA, &bytes);
            let be_halves: Vec<u8> = halves.iter().flat_map(|v| v.to_be_bytes()).collect();
            m.write(DATA + 0x10, &be_halves);
            m.write_u32s(DATA + 0x20, &words);
            m.write_u32s(DATA + 0x40, &[0xA5A5_A5A5; 14]);
            let got = m
                .try_call(
                    "c_widen_loads",
                    &[DATA, DATA + 0x10, DATA + 0x20, DATA + 0x40],
                )
                .map(|_| {
                    (
                        m.read_u32s(DATA + 0x40, 11),
                        m.read(DATA + 0x40 + 44, 8),
                        read_u16s(&m, DATA + 0x40 + 52, 2),
                    )
                });
            let mut want = [0xA5A5_A5A5u32; 14];
            // SAFETY: the buffers have the sizes the function reads and writes.
            unsafe {
                host::base::c_widen_loads(
                    bytes.as_ptr(),
                    halves.as_ptr(),
                    words.as_ptr(),
                    want.as_mut_ptr(),
                )
            };
            // out[11..13] hold a u64 and out[13] two u16s, in host byte order.
            let wide: Vec<u8> = want[11..13].iter().flat_map(|w| w.to_ne_bytes()).collect();
            let wide = u64::from_ne_bytes(wide.try_into().unwrap())
                .to_be_bytes()
                .to_vec();
            c.check(
                "c_widen_loads",
                format!("({x:#x})"),
                got,
                (want[..11].to_vec(), wide, u16s_in(want[13])),
            );
        }
        for n in [0u32, 1, 2, 7, 33] {
            let src: Vec<u16> = randoms(0xFACE + n, n as usize)
                .iter()
                .map(|&r| r as u16)
                .collect();
            let be: Vec<u8> = src.iter().flat_map(|v| v.to_be_bytes()).collect();
            m.write(DATA, &be);
            // One slot more than written, to catch a stray store.
            let slots = 2 * n + 1;
            m.write_u32s(DATA + 0x100, &vec![0xA5A5_A5A5; slots as usize]);
            let got = m
                .try_call("c_widen_loop", &[DATA, DATA + 0x100, n])
                .map(|_| m.read_u32s(DATA + 0x100, slots));
            let mut want = vec![0xA5A5_A5A5u32; slots as usize];
            // SAFETY: `src` has n values, `want` 2n + 1 slots.
            unsafe { host::base::c_widen_loop(src.as_ptr(), want.as_mut_ptr(), n) };
            c.check("c_widen_loop", format!("(n {n})"), got, want);
        }
    }
    c.finish();
}

#[test]
fn vec_and_box_growth_through_the_memory_manager_match_the_host() {
    let mut c = Checker::default();
    for mut m in machines() {
        for n in [0u32, 1, 4, 5, 17, 100, 1000] {
            for seed in [1u32, 0x9E37_79B9] {
                let got = m.try_call("c_vec_growth", &[n, seed]);
                c.check(
                    "c_vec_growth",
                    format!("({n}, {seed:#x})"),
                    got,
                    host::base::c_vec_growth(n, seed),
                );
            }
        }
        // Every chunk the Vecs and Boxes took was given back, and growth
        // really went through resizes and fresh chunks.
        let (allocs, resizes, frees) = m.heap.calls;
        assert!(
            m.heap.live.is_empty(),
            "chunks not freed: {:?}",
            m.heap.live
        );
        assert_eq!(allocs, frees, "allocations vs frees");
        assert!(
            allocs > 20 && resizes > 20,
            "allocs {allocs}, resizes {resizes}"
        );
    }
    c.finish();
}

#[test]
fn a_trap_call_passes_its_argument_and_returns_the_masked_result() {
    let mut c = Checker::default();
    for mut m in machines() {
        for text in [
            "",
            "a",
            "memdbg",
            "a longer string of forty-two characters!!",
        ] {
            let mut bytes = text.as_bytes().to_vec();
            bytes.push(0);
            m.write(DATA + 1, &bytes);
            let got = m.try_call("c_trap_strlen", &[DATA + 1]);
            let n = text.len() as u32;
            c.check("c_trap_strlen", format!("({text:?})"), got, (n << 16) | n);
        }
    }
    c.finish();
}

/// LLVM returns a `u64` in D0:D1, the high half in D0 (what
/// `palm_build::emu::CallResult` documents).
#[test]
fn a_64_bit_result_comes_back_high_half_in_d0() {
    let mut c = Checker::default();
    for mut m in machines() {
        for (hi, lo) in [(0x1234_5678, 0x9ABC_DEF0), (0, 1), (1, 0), (u32::MAX, 0)] {
            let got = m.try_call_d0_d1("c_u64_return", &[hi, lo]);
            let want = host::base::c_u64_return(hi, lo);
            c.check(
                "c_u64_return",
                format!("({hi:#x}, {lo:#x})"),
                got,
                ((want >> 32) as u32, want as u32),
            );
        }
    }
    c.finish();
}

/// 128-bit edge values: zero, one, both extremes of both signs (`u128::MAX`
/// is −1 as an i128, `1 << 127` is `i128::MIN`), small negatives, powers of
/// two and their neighbours at word boundaries, and mixed patterns; as
/// divisors they are smaller and greater than the dividends.
fn values128() -> Vec<u128> {
    vec![
        0,
        1,
        2,
        3,
        10,
        u128::MAX,
        u128::MAX - 1,
        1 << 127,
        (1 << 127) + 1,
        i128::MAX as u128,
        (-10i128) as u128,
        1 << 32,
        (1 << 64) - 1,
        1 << 64,
        (1 << 64) + 3,
        1 << 96,
        (1 << 100) - 1,
        0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210,
        0xFFFF_FFFF_0000_0000_FFFF_FFFF_0000_0000,
        0x8000_0000_0000_0001_8000_0000_0000_0001,
    ]
}

fn words(v: u128) -> [u32; 4] {
    [
        (v >> 96) as u32,
        (v >> 64) as u32,
        (v >> 32) as u32,
        v as u32,
    ]
}

/// Where the 128-bit operands and results go.
const A128: u32 = DATA;
const B128: u32 = DATA + 0x10;
const OUT128: u32 = DATA + 0x20;

impl M68k {
    /// Calls `name(a, [b,] args…, OUT128)` with `a` (and `b`, if given)
    /// written as four words; returns D0 and `out_words` words of output
    /// (pre-filled with 0xA5A5_A5A5).
    fn call128_d0(
        &mut self,
        name: &str,
        a: u128,
        b: Option<u128>,
        args: &[u32],
        out_words: u32,
    ) -> Result<(u32, Vec<u32>), Failure> {
        self.write_u32s(A128, &words(a));
        let mut all = vec![A128];
        if let Some(b) = b {
            self.write_u32s(B128, &words(b));
            all.push(B128);
        }
        all.extend(args);
        all.push(OUT128);
        self.write_u32s(OUT128, &vec![0xA5A5_A5A5; out_words as usize]);
        let d0 = self.try_call(name, &all)?;
        Ok((d0, self.read_u32s(OUT128, out_words)))
    }
}

/// Checks `name(a, [b,] args…, out)` on the 68000 against the host's
/// `f(a, b, out)` (`b` is 0 for the host when not given): the `out_words`
/// words of output, pre-filled alike.
#[allow(clippy::too_many_arguments)]
fn check128(
    c: &mut Checker,
    m: &mut M68k,
    name: &str,
    a: u128,
    b: Option<u128>,
    args: &[u32],
    out_words: u32,
    f: impl FnOnce(*const u32, *const u32, *mut u32),
) {
    let (wa, wb) = (words(a), words(b.unwrap_or(0)));
    let mut want = vec![0xA5A5_A5A5u32; out_words as usize];
    f(wa.as_ptr(), wb.as_ptr(), want.as_mut_ptr());
    let got = m
        .call128_d0(name, a, b, args, out_words)
        .map(|(_, out)| out);
    let what = match b {
        Some(b) => format!("({a:#x}, {b:#x})"),
        None => format!("({a:#x}, {args:?})"),
    };
    c.check(name, what, got, want);
}

/// Shift amounts: every one from 0 to 127, and some that `& 127` or a
/// rotation wraps.
fn amounts() -> impl Iterator<Item = u32> {
    (0..128).chain([128, 129, 200, 255, 0xFFFF_FFFF])
}

// SAFETY (every host call below): the corpus function reads 4 words per
// 128-bit operand and writes the output words `check128` provides.

#[test]
fn u128_shifts_by_every_amount_and_rotations_match_the_host() {
    let mut c = Checker::default();
    for mut m in wide_machines() {
        for a in values128() {
            for s in amounts() {
                let m = &mut m;
                check128(
                    &mut c,
                    m,
                    "c_u128_shr",
                    a,
                    None,
                    &[s],
                    8,
                    |a, _, o| unsafe { host::wide::c_u128_shr(a, s, o) },
                );
                check128(
                    &mut c,
                    m,
                    "c_u128_rotate",
                    a,
                    None,
                    &[s],
                    8,
                    |a, _, o| unsafe { host::wide::c_u128_rotate(a, s, o) },
                );
                check128(
                    &mut c,
                    m,
                    "c_shl_u128",
                    a,
                    None,
                    &[s],
                    4,
                    |a, _, o| unsafe { host::wide::c_shl_u128(a, s, o) },
                );
            }
        }
    }
    c.finish();
}

#[test]
fn u128_constant_shifts_arithmetic_and_bit_counts_match_the_host() {
    let mut c = Checker::default();
    for mut m in wide_machines() {
        for a in values128() {
            check128(
                &mut c,
                &mut m,
                "c_u128_const_shifts",
                a,
                None,
                &[],
                28,
                |a, _, o| unsafe { host::wide::c_u128_const_shifts(a, o) },
            );
            m.write_u32s(A128, &words(a));
            let got = m.try_call("c_u128_bits", &[A128]);
            let want = unsafe { host::wide::c_u128_bits(words(a).as_ptr()) };
            c.check("c_u128_bits", format!("({a:#x})"), got, want);
            for b in values128() {
                // The result (compare bits) as an extra output word.
                let got = m
                    .call128_d0("c_u128_arith", a, Some(b), &[], 12)
                    .map(|(d0, mut out)| {
                        out.push(d0);
                        out
                    });
                let mut want = vec![0xA5A5_A5A5u32; 12];
                let flags = unsafe {
                    host::wide::c_u128_arith(
                        words(a).as_ptr(),
                        words(b).as_ptr(),
                        want.as_mut_ptr(),
                    )
                };
                want.push(flags);
                c.check("c_u128_arith", format!("({a:#x}, {b:#x})"), got, want);
            }
        }
    }
    c.finish();
}

type Binary128 = unsafe extern "C" fn(*const u32, *const u32, *mut u32);

/// Runs each `(name, host function, output words)` on every pair of
/// [`values128`].
fn check_binary128(machines: impl Iterator<Item = M68k>, functions: &[(&str, Binary128, u32)]) {
    let mut c = Checker::default();
    for mut m in machines {
        for a in values128() {
            for b in values128() {
                for &(name, f, out_words) in functions {
                    check128(
                        &mut c,
                        &mut m,
                        name,
                        a,
                        Some(b),
                        &[],
                        out_words,
                        |a, b, o| unsafe { f(a, b, o) },
                    );
                }
            }
        }
    }
    c.finish();
}

#[test]
fn u128_and_i128_division_through_codegen_matches_the_host() {
    check_binary128(
        wide_machines(),
        &[
            ("c_u128_div_rem", host::wide::c_u128_div_rem, 8),
            ("c_i128_div_rem", host::wide::c_i128_div_rem, 8),
        ],
    );
}

/// What palm-build refuses (LLVM bug 16): the build of the image fails and
/// names every function in it, with the bug and the way around it. With
/// `PALM_BUILD_RAW_LLVM=1` the image builds unchecked instead, and its
/// functions are run against the host (they differ: that is the bug).
#[test]
fn refused_128_bit_code_fails_the_build_naming_each_function() {
    if raw_llvm() {
        return refused_128_bit_code_differs_on_raw_llvm();
    }
    let message = match build(REFUSED) {
        Ok(image) => panic!("the refused image built: {}", image.elf.display()),
        Err(message) => message,
    };
    // The program's own left shift is named directly.
    assert!(
        message.contains("`c_u128_shl` reads a stack temporary at a variable offset"),
        "{message}"
    );
    // compiler_builtins' division, with every function of the corpus that
    // reaches it and how.
    let division = message
        .split("\n  - ")
        .find(|f| f.starts_with("`compiler_builtins::int::specialized_div_rem::u128_div_rem`"))
        .unwrap_or_else(|| panic!("no finding for u128_div_rem in: {message}"));
    for (user, via) in [
        ("c_u128_div", "__udivti3"),
        ("c_u128_rem", "__umodti3"),
        ("c_i128_div", "__divti3"),
        ("c_i128_rem", "__modti3"),
    ] {
        assert!(
            division.contains(&format!("`{user}` via `{via}`")),
            "{user}: {division}"
        );
    }
    assert!(division.contains("LLVM m68k bug 16"), "{division}");
    assert!(division.contains("codegen::u128_div_rem"), "{division}");
    for user in ["c_u128_to_f64", "c_f64_rem"] {
        assert!(
            message.contains(&format!("(reached from `{user}`")),
            "{user}: {message}"
        );
    }
}

fn refused_128_bit_code_differs_on_raw_llvm() {
    check_binary128(
        wide_machines(),
        &[
            ("c_u128_div", host::refused::c_u128_div, 4),
            ("c_u128_rem", host::refused::c_u128_rem, 4),
            ("c_i128_div", host::refused::c_i128_div, 4),
            ("c_i128_rem", host::refused::c_i128_rem, 4),
        ],
    );
    let mut c = Checker::default();
    for mut m in wide_machines() {
        for a in values128() {
            for s in amounts() {
                check128(
                    &mut c,
                    &mut m,
                    "c_u128_shl",
                    a,
                    None,
                    &[s],
                    4,
                    |a, _, o| unsafe { host::refused::c_u128_shl(a, s, o) },
                );
            }
            check128(
                &mut c,
                &mut m,
                "c_u128_to_f64",
                a,
                None,
                &[],
                2,
                |a, _, o| unsafe { host::refused::c_u128_to_f64(a, o) },
            );
        }
        let floats = [
            5.5f64,
            -7.25,
            3.0,
            1e300,
            1e-300,
            0.001,
            123_456.789,
            f64::MAX,
        ];
        for a in floats {
            for b in floats {
                let halves = |x: f64| ((x.to_bits() >> 32) as u32, x.to_bits() as u32);
                let ((ahi, alo), (bhi, blo)) = (halves(a), halves(b));
                let mut want = [0u32; 2];
                unsafe { host::refused::c_f64_rem(ahi, alo, bhi, blo, want.as_mut_ptr()) };
                m.write_u32s(OUT128, &[0; 2]);
                let got = m
                    .try_call("c_f64_rem", &[ahi, alo, bhi, blo, OUT128])
                    .map(|_| m.read_u32s(OUT128, 2));
                c.check("c_f64_rem", format!("({a:e}, {b:e})"), got, want.to_vec());
            }
        }
    }
    c.finish();
}

/// A crate's hand-written assembly (`asm/mixed.s`, listed in the corpus's
/// `[package.metadata.palm] asm`) is assembled and linked with the program, reads
/// a `repr(C)` struct at the offsets the 68k compilation computed (2-aligned
/// longs: not the host's layout), and calls back into Rust.
#[test]
fn crate_assembly_uses_the_68k_layout_constants() {
    let constants = &images()[0].asm_constants; // image-base
    let layout: Vec<i64> = [
        "MIXED_TAG",
        "MIXED_LONG",
        "MIXED_WORD",
        "MIXED_LAST",
        "MIXED_SIZE",
    ]
    .iter()
    .map(|n| {
        *constants
            .get(*n)
            .unwrap_or_else(|| panic!("no constant {n}"))
    })
    .collect();
    assert_eq!(layout, [0, 2, 6, 8, 12], "the 68k layout of Mixed");
    assert_ne!(
        std::mem::offset_of!(host::base::Mixed, long),
        2,
        "the host's differs"
    );
    let mut c = Checker::default();
    for mut m in machines() {
        for (i, &v) in operands().iter().enumerate() {
            let mixed = host::base::Mixed {
                tag: (v >> 3) as u8,
                long: v,
                word: (v as u16).rotate_left(i as u32),
                last: v.rotate_right(7) ^ i as u32,
            };
            let mut bytes = vec![0u8; 12];
            bytes[0] = mixed.tag;
            bytes[2..6].copy_from_slice(&mixed.long.to_be_bytes());
            bytes[6..8].copy_from_slice(&mixed.word.to_be_bytes());
            bytes[8..12].copy_from_slice(&mixed.last.to_be_bytes());
            m.write(DATA, &bytes);
            // SAFETY: a live Mixed.
            let want = unsafe { host::base::c_asm_mixed_sum(&mixed) };
            c.check(
                "c_asm_mixed_sum",
                format!("{mixed:x?}"),
                m.try_call("c_asm_mixed_sum", &[DATA]),
                want,
            );
        }
    }
    c.finish();
}
