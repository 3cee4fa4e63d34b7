//! `include/memdbg.h` after a PalmOS.h, without the SDK or prc-tools: the header
//! is compiled after a stand-in PalmOS.h of ours (`tests/stand-in-sdk/declarations`:
//! the SDK's names and types, its Memory Manager calls declared as prototypes and
//! `MemPtrFree` as a macro, none defined) with GNU C at its 32-bit `int` and at
//! prc-tools' 16-bit `int` (`-mshort`, where an `int` argument takes a 2-byte
//! slot), `-Wall -Wextra -Werror`. `tests/c-header/calls.c` calls every macro of
//! the header once; linked with stubs of the `memdbg_*` functions
//! (`tests/c-header/stubs.s`) and run in palm-build's 68000 harness, each call must
//! reach its `memdbg_*` function (a call the header did not route would be an
//! undefined symbol: the stand-in defines no system call) with every argument in a
//! 4-byte slot holding the value written (the file a C string ending in the
//! source's name, the line its line), and read its result from the register the
//! library returns it in: a pointer from A0, an `Err` from D0's low 16 bits, a
//! `UInt32` from D0 (the stub leaves other values in the other one).
//!
//! Skipped, saying so, only when `m68k-linux-gnu-gcc` is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use palm_build::emu::Emu;

const GCC: &str = "m68k-linux-gnu-gcc";
const BASE: u32 = 0x0002_3456;
const RAM: u32 = 0x0010_0000;
/// What the stubs leave in D0 and A0.
const D0: u32 = 0xD0D0_8001;
const A0: u32 = 0x00A0_A0A4;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c-header")
}

/// One argument the stub must see.
#[derive(Clone, Copy, Debug)]
enum Arg {
    /// This 32-bit value.
    Value(u32),
    /// A pointer to a C string ending in `calls.c` (`__FILE__`).
    File,
    /// The line of the call (`__LINE__`).
    Line,
}

/// Where a function's result comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Result {
    /// A pointer: A0.
    Pointer,
    /// An `Err`: D0's low 16 bits.
    Err,
    /// A `UInt32`: D0.
    Long,
}

/// memdbgDefaults | memdbgCallStacks.
const DEFAULTS_AND_STACKS: u32 = 0x1B9D | 0x0002;

/// (test function, stub number, arguments, result).
const CALLS: &[(&str, u16, &[Arg], Result)] = &[
    (
        "t_ptr_new",
        2,
        &[Arg::Value(300), Arg::File, Arg::Line],
        Result::Pointer,
    ),
    (
        "t_handle_new",
        3,
        &[Arg::Value(40), Arg::File, Arg::Line],
        Result::Pointer,
    ),
    (
        "t_chunk_new",
        4,
        &[
            Arg::Value(1),
            Arg::Value(1000),
            Arg::Value(0x0200),
            Arg::File,
            Arg::Line,
        ],
        Result::Pointer,
    ),
    (
        "t_ptr_resize",
        5,
        &[Arg::Value(0x1234), Arg::Value(64)],
        Result::Err,
    ),
    (
        "t_handle_resize",
        6,
        &[Arg::Value(0x2346), Arg::Value(70_000)],
        Result::Err,
    ),
    ("t_ptr_free", 7, &[Arg::Value(0x3456)], Result::Err),
    ("t_handle_free", 8, &[Arg::Value(0x4568)], Result::Err),
    (
        "t_start",
        0,
        &[Arg::Value(0), Arg::Value(5), Arg::Value(0), Arg::Value(0)],
        Result::Long,
    ),
    (
        "t_start_with",
        0,
        &[
            Arg::Value(DEFAULTS_AND_STACKS),
            Arg::Value(5),
            Arg::Value(0),
            Arg::Value(0),
        ],
        Result::Long,
    ),
    ("t_stop", 1, &[], Result::Long),
    ("t_checkpoint", 9, &[], Result::Long),
];

/// The line of `calls.c` that defines `function`.
fn line_of(source: &str, function: &str) -> u32 {
    let lines: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with(&format!("T({function})")))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "T({function}) in calls.c");
    lines[0] as u32
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{what} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_macro_reaches_its_function_with_4_byte_arguments_after_an_sdk_style_palmos_h() {
    if Command::new(GCC).arg("--version").output().is_err() {
        eprintln!(
            "SKIPPED: {GCC} is not installed (Debian package gcc-m68k-linux-gnu; ci/setup \
             installs it)"
        );
        return;
    }
    let source = std::fs::read_to_string(dir().join("calls.c")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let stubs = tmp.path().join("stubs.o");
    run(
        Command::new("m68k-linux-gnu-as")
            .args(["-m68000", "--pcrel", "-o"])
            .arg(&stubs)
            .arg(dir().join("stubs.s")),
        "m68k-linux-gnu-as stubs.s",
    );
    let include = Path::new(env!("CARGO_MANIFEST_DIR"));
    for int in ["-mno-short", "-mshort"] {
        let object = tmp.path().join(format!("calls{int}.o"));
        run(
            Command::new(GCC)
                .current_dir(dir())
                .args(palm_build::capp::GCC_FLAGS)
                .args([int, "-Os", "-Wall", "-Wextra", "-Werror", "-I"])
                .arg(include.join("tests/stand-in-sdk/declarations"))
                .arg("-I")
                .arg(include.join("include"))
                .args(["-c", "calls.c", "-o"])
                .arg(&object),
            &format!("{GCC} {int} calls.c"),
        );
        let linked = palm_build::link_objects(
            &[object, stubs.clone()],
            &tmp.path().join(format!("calls{int}.elf")),
            palm_build::ImageKind::TestLib,
        )
        .unwrap_or_else(|e| panic!("{int}: linking calls.c with the stubs failed: {e:#}"));
        let mut emu = Emu::new(RAM);
        emu.load(BASE, &linked.code);
        for &(function, stub, args, result) in CALLS {
            let mut seen: Vec<(u16, Vec<u32>, String)> = Vec::new();
            let r = emu
                .call(
                    BASE + linked.symbols[function],
                    &[],
                    &mut |call| {
                        let values: Vec<u32> = (0..args.len() as u32)
                            .map(|i| call.arg_long(4 + 4 * i))
                            .collect();
                        let file = args
                            .iter()
                            .position(|a| matches!(a, Arg::File))
                            .map(|i| {
                                let p = values[i];
                                let bytes = call.ram.slice(p, 64);
                                let end = bytes.iter().position(|&b| b == 0).unwrap_or(64);
                                String::from_utf8_lossy(&bytes[..end]).into_owned()
                            })
                            .unwrap_or_default();
                        seen.push((call.trap, values, file));
                        call.cpu.set_d(0, D0);
                        call.cpu.set_a(0, A0);
                        call.cpu.set_d(1, 0xD1D1_D1D1);
                        call.cpu.set_d(2, 0xD2D2_D2D2);
                        call.cpu.set_a(1, 0xA1A1_A1A1);
                        Ok(())
                    },
                    10_000,
                )
                .unwrap_or_else(|e| panic!("{int} {function}: {e}"));
            assert_eq!(seen.len(), 1, "{int} {function}: {seen:x?}");
            let (trap, values, file) = &seen[0];
            assert_eq!(
                *trap,
                0xA800 + stub,
                "{int} {function}: the wrong memdbg_ function"
            );
            for (i, (arg, got)) in args.iter().zip(values).enumerate() {
                match arg {
                    Arg::Value(v) => assert_eq!(
                        got,
                        v,
                        "{int} {function}: argument {i} (4 bytes at +{}): {values:x?}",
                        4 + 4 * i
                    ),
                    Arg::Line => assert_eq!(
                        *got,
                        line_of(&source, function),
                        "{int} {function}: the line argument: {values:x?}"
                    ),
                    Arg::File => assert!(
                        file.ends_with("calls.c"),
                        "{int} {function}: the file argument points at {file:?}"
                    ),
                }
            }
            let want = match result {
                Result::Pointer => A0,
                Result::Err => D0 & 0xFFFF,
                Result::Long => D0,
            };
            assert_eq!(r.d0, want, "{int} {function}: result ({result:?})");
        }
    }
}

/// Finding: memdbg.h included before PalmOS.h gave "MemPtrFree redefined" and a
/// parse error under prc-tools; it is an #error saying what to include first.
#[test]
fn memdbg_h_before_palmos_h_is_an_error_saying_so() {
    if Command::new(GCC).arg("--version").output().is_err() {
        eprintln!("SKIPPED: {GCC} is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let include = Path::new(env!("CARGO_MANIFEST_DIR"));
    let compile = |source: &str| {
        let c = tmp.path().join("first.c");
        std::fs::write(&c, source).unwrap();
        Command::new(GCC)
            .args(["-fsyntax-only", "-I"])
            .arg(include.join("tests/stand-in-sdk/declarations"))
            .arg("-I")
            .arg(include.join("include"))
            .arg(&c)
            .output()
            .unwrap()
    };
    let out = compile("#include \"memdbg.h\"\n#include \"PalmOS.h\"\n");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "memdbg.h: include PalmOS.h (prc-tools, the Palm OS SDK) or palm-sys.h (GNU C) \
             before memdbg.h"
        ),
        "{stderr}"
    );
    let out = compile("#include \"PalmOS.h\"\n#include \"memdbg.h\"\n");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
