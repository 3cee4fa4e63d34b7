//! End to end on fresh compiler output: builds tests/e2e/app.rs and
//! `compiler_builtins` for m68k-unknown-none-elf with the pinned toolchain
//! (the project lives in CARGO_TARGET_TMPDIR, so reruns are incremental; a
//! fresh build takes about 15 s), repairs both `.s` files, and checks:
//! GNU as `-m68000 --pcrel` assembles them with no error; the repaired
//! program linked with `RUNTIME_ASM` computes on the emulated 68000 what the
//! same Rust computes on the host; the CCR repair is what makes
//! `compiler_builtins` right (without it `__udivsi3` is wrong); repairing
//! repaired text changes nothing.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use common::{Image, Machine, Rng, assemble, link};
use m68k::CpuType;
use m68k_asm_repair::{Fix, FixKind, RUNTIME_ASM, Repaired, repair};

const RUSTFLAGS: &str = "-C target-cpu=M68000 -C relocation-model=pic -C code-model=small \
                         -C target-feature=+reserve-a5 -C force-frame-pointers=yes";

/// The two `.s` files of the sample app build: (app, compiler_builtins),
/// built once per test process.
fn build_sample() -> (String, String) {
    static BUILT: OnceLock<(String, String)> = OnceLock::new();
    BUILT.get_or_init(build_sample_now).clone()
}

fn build_sample_now() -> (String, String) {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("asm-repair-e2e");
    std::fs::create_dir_all(&dir).expect("project dir");
    let toolchain = std::fs::read_to_string(manifest.join("../../rust-toolchain.toml"))
        .expect("workspace rust-toolchain.toml");
    // Same settings as the workspace's `palm` profile.
    let cargo_toml = "cargo-features = [\"panic-immediate-abort\", \"profile-rustflags\"]\n\
        [package]\nname = \"asm_repair_e2e\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\
        [lib]\npath = \"app.rs\"\ncrate-type = [\"staticlib\"]\n\
        [profile.release]\nopt-level = \"z\"\nlto = true\ncodegen-units = 1\n\
        panic = \"immediate-abort\"\ndebug = 2\ndebug-assertions = false\n\
        overflow-checks = false\nincremental = false\n\
        [profile.release.package.compiler_builtins]\nrustflags = [\"--emit=asm,link\"]\n\
        [workspace]\n";
    let app = std::fs::read_to_string(manifest.join("tests/e2e/app.rs")).expect("app.rs");
    for (name, text) in [
        ("Cargo.toml", cargo_toml),
        ("rust-toolchain.toml", toolchain.as_str()),
        ("app.rs", app.as_str()),
    ] {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
            std::fs::write(&path, text).expect("write project file");
        }
    }
    let app_s = dir.join("app.s");
    let mut cmd = Command::new("cargo");
    for (k, _) in std::env::vars() {
        let keep = k == "CARGO_HOME" || k == "RUSTUP_HOME";
        if !keep && (k.starts_with("CARGO") || k.starts_with("RUST") || k.starts_with("__CARGO")) {
            cmd.env_remove(&k);
        }
    }
    let out = cmd
        .current_dir(&dir)
        .env("RUSTFLAGS", RUSTFLAGS)
        .args([
            "rustc",
            "--release",
            "--target",
            "m68k-unknown-none-elf",
            "-Zbuild-std=core,alloc",
            "--",
            &format!("--emit=asm={},link", app_s.display()),
        ])
        .output()
        .expect("cannot run cargo: run ci/setup (installs the pinned toolchain)");
    assert!(
        out.status.success(),
        "building the sample app failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let builtins = newest(
        &dir.join("target/m68k-unknown-none-elf/release/build/compiler_builtins"),
        "compiler_builtins-",
    );
    let read =
        |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    (read(&app_s), read(&builtins))
}

/// The newest `out/<prefix>*.s` below `dir/*/`.
fn newest(dir: &Path, prefix: &str) -> PathBuf {
    let mut best: Option<(std::time::SystemTime, PathBuf)> = None;
    for build in std::fs::read_dir(dir)
        .expect("compiler_builtins build dir")
        .flatten()
    {
        let Ok(out) = std::fs::read_dir(build.path().join("out")) else {
            continue;
        };
        for f in out.flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if name.starts_with(prefix) && name.ends_with(".s") {
                let t = f.metadata().and_then(|m| m.modified()).expect("mtime");
                if best.as_ref().is_none_or(|(bt, _)| t > *bt) {
                    best = Some((t, f.path()));
                }
            }
        }
    }
    best.expect("compiler_builtins .s (profile rustflags --emit=asm)")
        .1
}

/// `src` with only the fixes `keep` accepts applied.
fn apply_some(src: &str, fixes: &[Fix], keep: impl Fn(FixKind) -> bool) -> String {
    let mut out = String::new();
    for (i, line) in src.lines().enumerate() {
        match fixes.iter().find(|f| f.line == i + 1 && keep(f.kind)) {
            Some(f) => out.push_str(&f.after),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

fn timed_repair(text: &str, name: &str) -> Repaired {
    let t = Instant::now();
    let r = repair(text, name).unwrap_or_else(|e| panic!("{e}"));
    let ms = t.elapsed().as_secs_f64() * 1e3;
    eprintln!(
        "{name}: {} lines, {} in {ms:.0} ms",
        text.lines().count(),
        r.summary()
    );
    r
}

const BASE: u32 = 0x1_0000;
const STACK_TOP: u32 = 0xF_0000;
const DATA: u32 = 0x8_0000;

const APP_FUNCTIONS: &[&str] = &[
    "cmul",
    "smul",
    "omul",
    "satmul",
    "satsmul",
    "parse_dec",
    "median3",
    "clamp_i32",
    "pressure",
    "mix64",
    "jump_table",
    "opaque_sum",
    "cmul16",
    "z_naked_nonzero",
    "z_global_nonzero",
    "z_inline_nonzero",
];

const BUILTINS: &[&str] = &[
    "__udivsi3",
    "__umodsi3",
    "__divsi3",
    "__modsi3",
    "__mulsi3",
    "__udivdi3",
    "__umoddi3",
    "__divdi3",
    "__moddi3",
    "__muldi3",
];

fn link_program(dir: &Path, tag: &str, app: &str, builtins: &str) -> Image {
    let objs = [
        assemble(dir, &format!("{tag}_app"), app, "68000").unwrap_or_else(|e| panic!("{e}")),
        assemble(dir, &format!("{tag}_cb"), builtins, "68000").unwrap_or_else(|e| panic!("{e}")),
        assemble(dir, &format!("{tag}_rt"), RUNTIME_ASM, "68000").unwrap_or_else(|e| panic!("{e}")),
    ];
    let roots: Vec<&str> = APP_FUNCTIONS.iter().chain(BUILTINS).copied().collect();
    link(dir, &objs, BASE, &roots).unwrap_or_else(|e| panic!("{e}"))
}

struct Emu {
    m: Machine,
    img: Image,
}

impl Emu {
    fn new(img: Image) -> Emu {
        let mut m = Machine::new(CpuType::M68000);
        m.load(BASE, &img.bytes);
        Emu { m, img }
    }
    fn call(&mut self, f: &str, args: &[u32]) -> Result<(u32, u32), String> {
        let addr = self.img.sym(f);
        self.m.call(addr, args, STACK_TOP)
    }
    fn call32(&mut self, f: &str, args: &[u32]) -> u32 {
        self.call(f, args)
            .unwrap_or_else(|e| panic!("{f}{args:x?}: {e}"))
            .0
    }
    fn call64(&mut self, f: &str, a: u64, b: u64) -> u64 {
        let args = [(a >> 32) as u32, a as u32, (b >> 32) as u32, b as u32];
        let (hi, lo) = self
            .call(f, &args)
            .unwrap_or_else(|e| panic!("{f}({a:#x}, {b:#x}): {e}"));
        (u64::from(hi) << 32) | u64::from(lo)
    }
    fn poke(&mut self, bytes: &[u8]) -> u32 {
        self.m.ram.bytes[DATA as usize..DATA as usize + bytes.len()].copy_from_slice(bytes);
        DATA
    }
}

/// Number of results that differ from the host; panics on emulator faults.
fn builtins_mismatches(emu: &mut Emu, rng: &mut Rng, report: bool) -> usize {
    let mut bad = 0;
    let mut check = |what: String, got: u64, want: u64| {
        if got != want {
            if report {
                eprintln!("{what}: got {got:#x}, want {want:#x}");
            }
            bad += 1;
        }
    };
    let mut pairs: Vec<(u32, u32)> = vec![(0xFFFF_FFF1, 3), (100, 7), (0x8000_0000, 0xFFFF_FFFF)];
    for _ in 0..300 {
        pairs.push((rng.edgy(), rng.edgy().max(1)));
    }
    for &(a, b) in &pairs {
        check(
            format!("__udivsi3({a:#x},{b:#x})"),
            emu.call32("__udivsi3", &[a, b]).into(),
            (a / b).into(),
        );
        check(
            format!("__umodsi3({a:#x},{b:#x})"),
            emu.call32("__umodsi3", &[a, b]).into(),
            (a % b).into(),
        );
        check(
            format!("__mulsi3({a:#x},{b:#x})"),
            emu.call32("__mulsi3", &[a, b]).into(),
            a.wrapping_mul(b).into(),
        );
        let (sa, sb) = (a as i32, b as i32);
        if sb != 0 && !(sa == i32::MIN && sb == -1) {
            check(
                format!("__divsi3({sa},{sb})"),
                emu.call32("__divsi3", &[a, b]).into(),
                (sa / sb) as u32 as u64,
            );
            check(
                format!("__modsi3({sa},{sb})"),
                emu.call32("__modsi3", &[a, b]).into(),
                (sa % sb) as u32 as u64,
            );
        }
    }
    for _ in 0..150 {
        let a = (u64::from(rng.edgy()) << 32) | u64::from(rng.edgy());
        let b = (u64::from(rng.edgy() >> (rng.next() % 32)) << (rng.next() % 33)) | 1;
        check(
            format!("__udivdi3({a:#x},{b:#x})"),
            emu.call64("__udivdi3", a, b),
            a / b,
        );
        check(
            format!("__umoddi3({a:#x},{b:#x})"),
            emu.call64("__umoddi3", a, b),
            a % b,
        );
        check(
            format!("__muldi3({a:#x},{b:#x})"),
            emu.call64("__muldi3", a, b),
            a.wrapping_mul(b),
        );
        let (sa, sb) = (a as i64, b as i64);
        if !(sa == i64::MIN && sb == -1) {
            check(
                format!("__divdi3({sa},{sb})"),
                emu.call64("__divdi3", a, b),
                (sa / sb) as u64,
            );
            check(
                format!("__moddi3({sa},{sb})"),
                emu.call64("__moddi3", a, b),
                (sa % sb) as u64,
            );
        }
    }
    bad
}

fn check_app(emu: &mut Emu, rng: &mut Rng) {
    let mut args: Vec<(u32, u32, u32)> = Vec::new();
    for &x in &[
        0u32,
        1,
        2,
        7,
        0xFFFF,
        0x1_0000,
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
    ] {
        for &y in &[0u32, 1, 3, 0xFFFF, 0x1_0001, 0x8000_0000, 0xFFFF_FFFF] {
            args.push((x, y, rng.edgy()));
        }
    }
    for _ in 0..400 {
        args.push((rng.edgy(), rng.edgy(), rng.edgy()));
    }
    for &(a, b, c) in &args {
        let (sa, sb, sc) = (a as i32, b as i32, c as i32);
        assert_eq!(
            emu.call32("cmul", &[a, b]),
            a.checked_mul(b).unwrap_or(7),
            "cmul({a:#x},{b:#x})"
        );
        assert_eq!(
            emu.call32("smul", &[a, b]) as i32,
            sa.checked_mul(sb).unwrap_or(7),
            "smul({sa},{sb})"
        );
        let (r, o) = sa.overflowing_mul(sb);
        assert_eq!(
            emu.call32("omul", &[a, b]),
            (r as u32) ^ (u32::from(o) << 31),
            "omul({sa},{sb})"
        );
        assert_eq!(
            emu.call32("satmul", &[a, b]),
            a.saturating_mul(b),
            "satmul({a:#x},{b:#x})"
        );
        assert_eq!(
            emu.call32("satsmul", &[a, b]) as i32,
            sa.saturating_mul(sb),
            "satsmul({sa},{sb})"
        );
        assert_eq!(
            emu.call32("median3", &[a, b, c]),
            a.max(b).min(a.min(b).max(c)),
            "median3({a:#x},{b:#x},{c:#x})"
        );
        let want = if sb > sc { sb } else { sa.clamp(sb, sc) };
        assert_eq!(
            emu.call32("clamp_i32", &[a, b, c]) as i32,
            want,
            "clamp_i32({sa},{sb},{sc})"
        );
        let want = match a % 9 {
            0 => b.wrapping_add(1),
            1 => b.wrapping_mul(3),
            2 => b ^ 0x55,
            3 => b.rotate_left(3),
            4 => b / 3,
            5 => 77,
            6 => b.wrapping_sub(9),
            _ => 0,
        };
        assert_eq!(
            emu.call32("jump_table", &[a % 9, b]),
            want,
            "jump_table({},{b:#x})",
            a % 9
        );
        let (x, y) = (
            u64::from(a) << 32 | u64::from(c),
            u64::from(b) << 16 | u64::from(c),
        );
        let q = x / (y | 1);
        let want = q.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (x % (y | 1)).rotate_left(13);
        assert_eq!(emu.call64("mix64", x, y), want, "mix64({x:#x},{y:#x})");
    }
    // Decimal parsing with checked arithmetic.
    for s in [
        "0",
        "42",
        "4294967295",
        "4294967296",
        "99999999999",
        "12a",
        "",
        "000123",
    ] {
        let p = emu.poke(s.as_bytes());
        let want = s
            .bytes()
            .try_fold(0u32, |r, c| {
                c.is_ascii_digit()
                    .then_some(())
                    .and_then(|()| r.checked_mul(10)?.checked_add(u32::from(c - b'0')))
            })
            .unwrap_or(0);
        assert_eq!(
            emu.call32("parse_dec", &[p, s.len() as u32]),
            want,
            "parse_dec({s:?})"
        );
    }
    // A loop with spills over a buffer; black_box'ed sums.
    for n in [0usize, 1, 5, 33, 200] {
        let v: Vec<u32> = (0..n).map(|_| rng.edgy()).collect();
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_be_bytes()).collect();
        let p = emu.poke(&bytes);
        let want = {
            let (mut s0, mut s1, mut s2, mut s3, mut s4, mut s5, mut s6, mut s7, mut s8) =
                (0u32, 1u32, 2u32, 3u32, 4u32, 5u32, 6u32, 7u32, 8u32);
            for &x in &v {
                s0 = s0.wrapping_add(x);
                s1 ^= x.rotate_left(3);
                s2 = s2.wrapping_mul(x | 1);
                s3 = s3.wrapping_sub(x >> 2);
                s4 |= x & s0;
                s5 = s5.wrapping_add(s1 ^ s2);
                s6 = s6.max(x);
                s7 = s7.min(x.wrapping_add(s3));
                s8 = s8.wrapping_add(if x > s4 { 1 } else { 2 });
            }
            s0 ^ s1 ^ s2 ^ s3 ^ s4 ^ s5 ^ s6 ^ s7 ^ s8
        };
        assert_eq!(
            emu.call32("pressure", &[p, n as u32]),
            want,
            "pressure(n={n})"
        );
        let halves: Vec<u16> = v.iter().map(|&x| x as u16).collect();
        let bytes: Vec<u8> = halves.iter().flat_map(|x| x.to_be_bytes()).collect();
        let p = emu.poke(&bytes);
        let want = halves
            .iter()
            .fold(0u32, |s, &h| s.wrapping_add(u32::from(h)));
        assert_eq!(
            emu.call32("opaque_sum", &[p, n as u32]),
            want,
            "opaque_sum(n={n})"
        );
    }
}

#[test]
fn repaired_builds_assemble_and_run_like_the_host() {
    let (app, builtins) = build_sample();
    let app_r = timed_repair(&app, "app.s");
    let cb_r = timed_repair(&builtins, "compiler_builtins.s");
    assert!(app_r.count(FixKind::MulLong) >= 6, "{}", app_r.summary());
    assert!(cb_r.count(FixKind::CcrMove) > 0, "{}", cb_r.summary());
    assert!(
        cb_r.count(FixKind::AddressRegister) > 0,
        "{}",
        cb_r.summary()
    );

    // Repairing the output again finds nothing to do.
    for (r, name) in [(&app_r, "app"), (&cb_r, "compiler_builtins")] {
        let again = repair(&r.text, name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(again.fixes, [], "{name}: second pass");
    }

    let dir = tempfile::tempdir().expect("tempdir");
    // GNU as -m68000 refuses the raw output and accepts the repaired one.
    assert!(assemble(dir.path(), "raw_app", &app, "68000").is_err());
    assert!(assemble(dir.path(), "raw_cb", &builtins, "68000").is_err());
    let img = link_program(dir.path(), "fixed", &app_r.text, &cb_r.text);
    eprintln!(
        "linked {} bytes of code and read-only data",
        img.bytes.len()
    );
    let mut emu = Emu::new(img);
    let mut rng = Rng(0xE2E0_0000_0000_0001);
    assert_eq!(
        builtins_mismatches(&mut emu, &mut rng, true),
        0,
        "repaired compiler_builtins"
    );
    check_app(&mut emu, &mut rng);

    // Hand-written asm relying on MOVE's Z flag still works.
    for f in ["z_naked_nonzero", "z_global_nonzero", "z_inline_nonzero"] {
        for x in [0u32, 1, 0x8000_0000, 0xFFFF_FFFF] {
            assert_eq!(emu.call32(f, &[x]), u32::from(x != 0), "{f}({x:#x})");
        }
    }

    // LLVM bug found while writing this pass (not repairable in the asm):
    // u16::checked_mul never reports overflow.
    assert_eq!(
        emu.call32("cmul16", &[300, 300]) as u16,
        300u16.wrapping_mul(300)
    );
    assert_eq!(emu.call32("cmul16", &[3, 5]) as u16, 15);
}

#[test]
fn without_the_ccr_repair_compiler_builtins_is_wrong() {
    let (app, builtins) = build_sample();
    let app_r = repair(&app, "app.s").unwrap_or_else(|e| panic!("{e}"));
    let cb_r = repair(&builtins, "compiler_builtins.s").unwrap_or_else(|e| panic!("{e}"));
    // Everything gas needs, but not the CCR repair.
    let app_no_ccr = apply_some(&app, &app_r.fixes, |k| k != FixKind::CcrMove);
    let cb_no_ccr = apply_some(&builtins, &cb_r.fixes, |k| k != FixKind::CcrMove);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut emu = Emu::new(link_program(dir.path(), "noccr", &app_no_ccr, &cb_no_ccr));
    let q = emu.call32("__udivsi3", &[0xFFFF_FFF1, 3]);
    eprintln!("__udivsi3(0xFFFFFFF1, 3) without the CCR repair = {q:#x} (want 0x55555550)");
    assert_ne!(q, 0x5555_5550);
    let bad = builtins_mismatches(&mut emu, &mut Rng(0xE2E0_0000_0000_0001), false);
    eprintln!("{bad} wrong compiler_builtins results without the CCR repair");
    assert!(bad > 0);
    // With it: right.
    let mut fixed = Emu::new(link_program(dir.path(), "ccr", &app_r.text, &cb_r.text));
    assert_eq!(fixed.call32("__udivsi3", &[0xFFFF_FFF1, 3]), 0x5555_5550);
}
