//! `palm-sys/include/palm-sys.h`, the C header generated from the trap table
//! (`m68k_palmos_sys::c_header`):
//! - the committed file is exactly the generated text (`PALM_SYS_BLESS=1`
//!   rewrites it);
//! - every system call of it compiles with GNU C at -O0 and -Os (the `asm`
//!   operands fit the registers), `-Wall -Wextra -Werror`;
//! - every system call runs in palm-build's 68000 harness: a C function per
//!   trap calls it with distinct values, and the handler of `trap #15` checks
//!   the trap word, the exact argument bytes on the stack (Palm layout: 2-byte
//!   slots for 16-bit values, the high byte for 8-bit ones) and answers with
//!   garbage in every register Palm OS may clobber, so the result must come
//!   from A0 (pointers) or D0 truncated to its type.
//!
//! Skipped, saying so, only when `m68k-linux-gnu-gcc` is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use m68k_palmos_sys::table::{ArgKind, RetKind, TRAPS, TrapInfo};
use palm_build::emu::Emu;

const GCC: &str = "m68k-linux-gnu-gcc";
const BASE: u32 = 0x0002_3456;
const RAM: u32 = 0x0010_0000;

fn header_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("include/palm-sys.h")
}

#[test]
fn the_committed_header_is_the_generated_one() {
    let generated = m68k_palmos_sys::c_header::header();
    if std::env::var_os("PALM_SYS_BLESS").is_some() {
        std::fs::write(header_path(), &generated).unwrap();
    }
    let committed = std::fs::read_to_string(header_path()).unwrap_or_default();
    assert!(
        committed == generated,
        "palm-sys/include/palm-sys.h is not what m68k_palmos_sys::c_header generates \
         (regenerate: PALM_SYS_BLESS=1 cargo test -p m68k-palmos-sys --test c_header)"
    );
}

fn gcc_missing() -> bool {
    if Command::new(GCC).arg("--version").output().is_err() {
        eprintln!(
            "SKIPPED: {GCC} is not installed (Debian package gcc-m68k-linux-gnu; ci/setup \
             installs it)"
        );
        return true;
    }
    false
}

/// The value passed as argument `i` of a trap, by width.
fn value(kind: ArgKind, i: usize) -> u32 {
    let i = i as u32;
    match kind {
        ArgKind::U8 => 0x81 + i,
        ArgKind::U16 => 0xA1B0 + i,
        ArgKind::U32 => 0x8123_4560 + i,
        ArgKind::Ptr => 0x00C0_FFE0 + 2 * i,
    }
}

/// One C function per non-variadic trap, `t_<Name>`, calling it with
/// [`value`]s and returning its result as a UInt32. In `.text.palm_entry`,
/// which palm-build's linker script keeps, so the link keeps them all.
fn test_source() -> String {
    let mut c = String::from("#include \"palm-sys.h\"\n\n");
    for t in TRAPS.iter().filter(|t| !t.variadic) {
        let args: Vec<String> = m68k_palmos_sys::c_header::prototype_types(t)[1..]
            .iter()
            .zip(t.args)
            .enumerate()
            .map(|(i, (ty, a))| format!("({ty})0x{:X}UL", value(a.kind, i)))
            .collect();
        let call = format!("{}({})", t.name, args.join(", "));
        let body = match t.ret {
            RetKind::Void => format!("{call};\n    return 0;"),
            _ => format!("return (UInt32){call};"),
        };
        c.push_str(&format!(
            "__attribute__((section(\".text.palm_entry\"), noinline))\nUInt32 t_{}(void)\n{{\n    \
             {body}\n}}\n\n",
            t.name
        ));
    }
    c
}

fn compile(source: &Path, object: &Path, opt: &str) {
    let out = Command::new(GCC)
        .args(palm_build::capp::GCC_FLAGS)
        .args([opt, "-Wall", "-Wextra", "-Werror", "-c"])
        .arg("-I")
        .arg(header_path().parent().unwrap())
        .arg(source)
        .arg("-o")
        .arg(object)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{GCC} {opt} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_system_call_pushes_palm_layout_and_reads_its_result() {
    if gcc_missing() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("calls.c");
    std::fs::write(&source, test_source()).unwrap();
    compile(&source, &dir.path().join("calls-O0.o"), "-O0");
    let object = dir.path().join("calls.o");
    compile(&source, &object, "-Os");
    let linked = palm_build::link_objects(
        &[object],
        &dir.path().join("calls.elf"),
        palm_build::ImageKind::TestLib,
    )
    .unwrap_or_else(|e| panic!("linking the calls failed: {e:#}"));
    let mut emu = Emu::new(RAM);
    emu.load(BASE, &linked.code);
    let mut checked = 0;
    for t in TRAPS.iter().filter(|t| !t.variadic) {
        let addr = BASE + linked.symbols[&format!("t_{}", t.name)];
        // The expected argument bytes; None: the undefined low byte of an 8-bit slot.
        let mut expect: Vec<Option<u8>> = Vec::new();
        for (i, a) in t.args.iter().enumerate() {
            let v = value(a.kind, i);
            match a.kind {
                ArgKind::U8 => expect.extend([Some(v as u8), None]),
                ArgKind::U16 => expect.extend((v as u16).to_be_bytes().map(Some)),
                ArgKind::U32 | ArgKind::Ptr => expect.extend(v.to_be_bytes().map(Some)),
            }
        }
        let (d0, a0) = (0xD0D0_8001_u32, 0x00A0_A0A0_u32);
        let mut seen = Vec::new();
        let r = emu
            .call(
                addr,
                &[],
                &mut |call| {
                    let n = call_bytes(t);
                    seen.push((call.trap, call.ram.slice(call.sp(), n).to_vec()));
                    call.cpu.set_d(0, d0);
                    call.cpu.set_a(0, a0);
                    call.cpu.set_d(1, 0xD1D1_D1D1);
                    call.cpu.set_d(2, 0xD2D2_D2D2);
                    call.cpu.set_a(1, 0xA1A1_A1A1);
                    Ok(())
                },
                100_000,
            )
            .unwrap_or_else(|e| panic!("t_{}: {e}", t.name));
        assert_eq!(seen.len(), 1, "t_{}: {seen:x?}", t.name);
        let (trap, bytes) = &seen[0];
        assert_eq!(*trap, t.trap, "t_{}", t.name);
        for (i, e) in expect.iter().enumerate() {
            if let Some(b) = e {
                assert_eq!(
                    bytes[i], *b,
                    "{}: byte +{i} of the arguments: {bytes:02x?}",
                    t.prototype
                );
            }
        }
        let want = match t.ret {
            RetKind::Void => 0,
            RetKind::U8 => d0 & 0xFF,
            RetKind::U16 => d0 & 0xFFFF,
            // Int16 sign-extended into the UInt32 the test function returns.
            RetKind::I16 => (d0 & 0xFFFF) as u16 as i16 as i32 as u32,
            RetKind::U32 => d0,
            RetKind::Ptr => a0,
        };
        assert_eq!(r.d0, want, "{}: result", t.prototype);
        checked += 1;
    }
    assert!(checked > 200, "{checked} traps");
}

/// The bytes of arguments `t` takes (at least 2, to show an empty frame).
fn call_bytes(t: &TrapInfo) -> u32 {
    t.args_stack_bytes().max(2)
}
