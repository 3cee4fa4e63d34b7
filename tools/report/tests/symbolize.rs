//! Symbolization against a real 68k ELF: `tests/symtest` built by palm-build.
//! Return addresses are found in the code (each `jsr (d16,pc)` to a known
//! function, located through the ELF's symbol table) and expected lines are
//! found from `// SITE:` markers in the test crate's source, so nothing here
//! depends on the compiler's exact output.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use common::*;
use memdbg::record::{AsBytes, kind};
use memdbg_report::{
    ElfSymbols, Format, Ledger, Options, Symbol, Symbolize, ledger_from_bytes, print,
};
use object::{Object, ObjectSymbol};
use proptest::prelude::*;

struct Built {
    elf_path: PathBuf,
    elf: Vec<u8>,
    code: Vec<u8>,
}

fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let target_dir = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| dir.join("../../target"));
        let image = palm_build::build_image(&palm_build::Options {
            manifest_path: dir.join("tests/symtest/Cargo.toml"),
            target_dir: Some(target_dir),
            kind: palm_build::ImageKind::TestLib,
            features: Vec::new(),
            quiet: true,
            raw_llvm: false,
            macsbug_names: true,
        })
        .unwrap_or_else(|e| panic!("building tests/symtest failed: {e:#}"));
        Built {
            elf: std::fs::read(&image.elf).unwrap(),
            elf_path: image.elf,
            code: image.code,
        }
    })
}

/// (address, size) of the function whose demangled name is `name`.
fn function(name: &str) -> (u32, u32) {
    let file = object::File::parse(&*built().elf).unwrap();
    let sym = file
        .symbols()
        .find(|s| s.name().is_ok_and(|n| memdbg_report::demangle(n) == name))
        .unwrap_or_else(|| panic!("no symbol {name}"));
    (sym.address() as u32, sym.size() as u32)
}

/// The return address of the call from `caller` to `callee`: the end of the
/// `jsr (d16,pc)` or `bsr.w` whose target is `callee`.
fn return_address(caller: &str, callee: &str) -> u32 {
    let (start, size) = function(caller);
    let (target, _) = function(callee);
    let code = &built().code;
    let word = |at: u32| u16::from_be_bytes([code[at as usize], code[at as usize + 1]]);
    let mut at = start;
    while at + 4 <= start + size {
        let op = word(at);
        if op == 0x4EBA || op == 0x6100 {
            let disp = word(at + 2) as i16 as i32;
            if (at as i32 + 2 + disp) as u32 == target {
                return at + 4;
            }
        }
        at += 2;
    }
    panic!("no call from {caller} to {callee}");
}

/// The line of the `// SITE: what` marker in tests/symtest/src/lib.rs.
fn site_line(what: &str) -> u32 {
    let src = include_str!("symtest/src/lib.rs");
    let marker = format!("// SITE: {what}");
    src.lines()
        .position(|l| l.contains(&marker))
        .map(|i| i as u32 + 1)
        .unwrap_or_else(|| panic!("no marker {marker}"))
}

const SRC: &str = "tools/report/tests/symtest/src/lib.rs";

fn elf() -> ElfSymbols {
    ElfSymbols::from_bytes(&built().elf, "symtest.elf").unwrap()
}

#[test]
fn call_sites_have_function_file_and_line() {
    let elf = elf();
    assert!(elf.has_dwarf());
    assert_eq!(elf.code_size() as usize, built().code.len());
    for (caller, callee, marker) in [
        ("symtest_middle", "symtest_leaf", "middle calls leaf"),
        (
            "memdbg_report_symtest::private_work",
            "symtest_middle",
            "private_work calls middle",
        ),
        (
            "symtest_outer",
            "memdbg_report_symtest::private_work",
            "outer calls private_work",
        ),
    ] {
        let ret = return_address(caller, callee);
        let syms = elf.symbolize(ret);
        let last = syms
            .last()
            .unwrap_or_else(|| panic!("{caller}: no symbols at {ret:#x}"));
        assert_eq!(last.function, caller, "at {ret:#x}");
        assert!(!last.inlined);
        assert_eq!(last.file.as_deref(), Some(SRC), "at {ret:#x}");
        assert_eq!(last.line, Some(site_line(marker)), "{caller} at {ret:#x}");
    }
    // Inside a function, with or without line info, the name is known.
    let (leaf, _) = function("symtest_leaf");
    assert_eq!(
        elf.symbolize(leaf + 4).last().unwrap().function,
        "symtest_leaf"
    );
    // Outside code 1 (or at 0, no call before it): nothing.
    assert!(elf.symbolize(elf.code_size() + 2).is_empty());
    assert!(elf.symbolize(0).is_empty());
}

fn symtest_ledger(code_size: u32) -> Vec<Vec<u8>> {
    let st = stack(&[
        Ok(return_address("symtest_middle", "symtest_leaf")),
        Ok(return_address(
            "memdbg_report_symtest::private_work",
            "symtest_middle",
        )),
        Ok(return_address(
            "symtest_outer",
            "memdbg_report_symtest::private_work",
        )),
        Ok(code_size + 0x100),
        Err(0x1000_1000),
    ]);
    let leaks = [alloc(kind::RUST, 12, 0x0001_2000, 1, "", 0, st)];
    let mut h = header(code_size, &leaks);
    h.code_crc.set(memdbg::record::crc32(&built().code));
    let mut recs = vec![h.as_bytes().to_vec()];
    recs.extend(leaks.iter().map(|a| a.as_bytes().to_vec()));
    recs
}

/// symtest's ELF through `m68k-linux-gnu-objcopy` with `args` (its code 1
/// unchanged), as ElfSymbols named `name`.
fn objcopied(args: &[&str], name: &str) -> ElfSymbols {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(name);
    let status = Command::new(palm_build::Binutils::default().objcopy)
        .args(args)
        .arg(&built().elf_path)
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    ElfSymbols::from_bytes(&std::fs::read(&out).unwrap(), name).unwrap()
}

#[test]
fn an_elf_without_line_tables_is_warned_about() {
    let ledger = Ledger::from_records(
        symtest_ledger(built().code.len() as u32)
            .iter()
            .map(Vec::as_slice),
        "MemDbgDB.pdb",
    )
    .unwrap();
    let warnings = |elf: &ElfSymbols| {
        elf.check(&ledger).unwrap();
        let mut opts = Options::default();
        opts.symbolizer = Some(elf);
        let mut w = memdbg_report::analyze(&ledger, &opts).warnings;
        w.retain(|w| w.contains("DWARF"));
        w
    };
    assert!(elf().has_line_tables());
    assert_eq!(warnings(&elf()), Vec::<String>::new());
    let stripped = objcopied(&["--strip-debug"], "stripped.elf");
    assert!(!stripped.has_dwarf() && !stripped.has_line_tables());
    assert_eq!(
        warnings(&stripped),
        [
            "stripped.elf has no DWARF (no .debug_info: stripped, or built without debug info): \
          call stacks show function names without file:line; build the app with debug = 2 in \
          [profile.palm] (as palm-build new sets it) and give the unstripped ELF palm-build \
          writes beside the PRC"
        ]
    );
    let no_lines = objcopied(
        &["--rename-section", ".debug_line=.no_line"],
        "no-lines.elf",
    );
    assert!(no_lines.has_dwarf() && !no_lines.has_line_tables());
    assert_eq!(
        warnings(&no_lines),
        [
            "no-lines.elf has no DWARF line tables that give a file and line (.debug_line missing \
          or empty): call stacks show function names without file:line; build the app with \
          debug = 2 in [profile.palm] (as palm-build new sets it) and give the unstripped ELF \
          palm-build writes beside the PRC"
        ]
    );
}

#[test]
fn report_shows_symbolized_stack() {
    let elf = elf();
    let ledger = Ledger::from_pdb(&pdb_of(&symtest_ledger(elf.code_size())), "s.pdb").unwrap();
    elf.check(&ledger).unwrap();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    let mut out = Vec::new();
    print(&mut out, &ledger, &opts).unwrap();
    let text = String::from_utf8(out).unwrap();
    let frame = |i: usize, caller: &str, callee: &str, marker: &str| {
        format!(
            "    #{i} 0x{:08X} in {caller} at {SRC}:{}\n",
            return_address(caller, callee),
            site_line(marker)
        )
    };
    let expected = [
        frame(0, "symtest_middle", "symtest_leaf", "middle calls leaf"),
        frame(
            1,
            "memdbg_report_symtest::private_work",
            "symtest_middle",
            "private_work calls middle",
        ),
        frame(
            2,
            "symtest_outer",
            "memdbg_report_symtest::private_work",
            "outer calls private_work",
        ),
        // Past the ELF's code: not symbolized, never dropped.
        format!("    #3 0x{:08X}\n", elf.code_size() + 0x100),
        "    #4 0x10001000 (68k address outside code 1)\n".to_string(),
    ]
    .concat();
    assert!(text.contains(&expected), "{text}");
    assert!(text.contains(&format!(
        "  1 leak × 12 bytes from symtest_middle at {SRC}:{} (Rust alloc)\n",
        site_line("middle calls leaf")
    )));
    opts.format = Format::Json;
    let mut out = Vec::new();
    print(&mut out, &ledger, &opts).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["symbols"], "symtest.elf");
    assert_eq!(
        v["leaks"][0]["stack"][1]["symbols"][0]["function"],
        "memdbg_report_symtest::private_work"
    );
    assert_eq!(
        v["leaks"][0]["stack"][0]["symbols"][0]["line"],
        site_line("middle calls leaf")
    );
}

#[test]
fn an_elf_that_does_not_match() {
    let elf = elf();
    let recs = symtest_ledger(elf.code_size() + 2);
    let pdb = pdb_of(&recs);
    let ledger = Ledger::from_pdb(&pdb, "s.pdb").unwrap();
    let e = elf.check(&ledger).unwrap_err();
    let field = u64::from(u32::from_be_bytes(pdb[78..82].try_into().unwrap())) + 64;
    assert_eq!(
        e.to_string(),
        format!(
            "symtest.elf: code 1 of this ELF is {} bytes (.text + .rodata) but s.pdb records {} \
             bytes (header code 1 size at offset 0x{field:X}): this ELF is not the build that \
             wrote the ledger",
            elf.code_size(),
            elf.code_size() + 2
        )
    );
    // A ledger without a code size cannot be checked: accepted, with a warning.
    let unknown = ledger_from_bytes(&pdb_of(&symtest_ledger(0)), "u.pdb").unwrap();
    elf.check(&unknown).unwrap();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    let r = memdbg_report::analyze(&unknown, &opts);
    assert_eq!(
        r.warnings,
        [
            "the ledger does not record code 1's size: symtest.elf could not be checked against it"
                .to_string(),
            format!(
                "1 of 4 code 1 frame addresses do not follow a call instruction in symtest.elf \
                 (e.g. 0x{:08X}): it may not be the build that wrote the ledger",
                0x100
            )
        ]
    );

    // Through the binary: exit status 2 and the message on stderr.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("MemDbgDB.pdb");
    std::fs::write(&input, &pdb).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_memdbg"))
        .arg("report")
        .arg(&input)
        .arg("--elf")
        .arg(&built().elf_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(&format!(
            "memdbg: error: {}: code 1 of this ELF is",
            built().elf_path.display()
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("header code 1 size at offset 0x{field:X}")),
        "{err}"
    );

    // The matching ELF: exit status 1 (a leak), symbolized.
    std::fs::write(&input, pdb_of(&symtest_ledger(elf.code_size()))).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_memdbg"))
        .arg("report")
        .arg(&input)
        .arg("--elf")
        .arg(&built().elf_path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains(" in symtest_outer at ")
    );
}

/// File offset of record 0's data in a `.pdb` (its entry is at 78).
fn header_offset(pdb: &[u8]) -> u64 {
    u64::from(u32::from_be_bytes(pdb[78..82].try_into().unwrap()))
}

#[test]
fn an_elf_of_another_build_with_the_same_code_size() {
    let elf = elf();
    assert_eq!(elf.code_crc(), memdbg::record::crc32(&built().code));
    // Another build's ledger: code 1 of the same size, other bytes.
    let mut recs = symtest_ledger(elf.code_size());
    let other = elf.code_crc() ^ 0x0100_0001;
    recs[0][152..156].copy_from_slice(&other.to_be_bytes());
    let pdb = pdb_of(&recs);
    let ledger = Ledger::from_pdb(&pdb, "s.pdb").unwrap();
    let field = header_offset(&pdb) + 152;
    assert_eq!(
        elf.check(&ledger).unwrap_err().to_string(),
        format!(
            "symtest.elf: code 1 of this ELF has CRC-32 0x{:08X} but s.pdb records 0x{other:08X} \
             (header code 1 CRC-32 at offset 0x{field:X}; same size, {} bytes): this ELF is not \
             the build that wrote the ledger",
            elf.code_crc(),
            elf.code_size()
        )
    );

    // Through the binary: exit status 2, nothing on stdout, one line on stderr.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("MemDbgDB.pdb");
    std::fs::write(&input, &pdb).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_memdbg"))
        .arg("report")
        .arg(&input)
        .arg("--elf")
        .arg(&built().elf_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "memdbg: error: {}: code 1 of this ELF has CRC-32 0x{:08X} but {} records",
            built().elf_path.display(),
            elf.code_crc(),
            input.display()
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("header code 1 CRC-32 at offset 0x{field:X}")),
        "{err}"
    );

    // A format version 1 ledger has no checksum: checked by size only, warned.
    let mut v1 = symtest_ledger(elf.code_size());
    v1[0].truncate(memdbg::record::HEADER_SIZE_V1);
    v1[0][3] = memdbg::record::HEADER_SIZE_V1 as u8;
    for r in &mut v1 {
        as_version(r, 1);
    }
    let old = Ledger::from_pdb(&pdb_of(&v1), "v1.pdb").unwrap();
    elf.check(&old).unwrap();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    let r = memdbg_report::analyze(&old, &opts);
    assert_eq!(
        r.warnings[0],
        "a MemDbgDB version 1 ledger has no code 1 checksum: symtest.elf was checked against \
         code 1's size only"
    );
    // Version 1 of another size is still refused.
    let mut v1 = v1.clone();
    v1[0][64..68].copy_from_slice(&(elf.code_size() + 2).to_be_bytes());
    let old = Ledger::from_pdb(&pdb_of(&v1), "v1.pdb").unwrap();
    assert!(
        elf.check(&old)
            .unwrap_err()
            .message
            .starts_with("code 1 of this ELF is ")
    );
}

#[test]
fn not_a_68k_elf() {
    let e = ElfSymbols::from_bytes(b"#!/bin/sh\n", "x.elf").unwrap_err();
    assert_eq!(e.offset, Some(0));
    assert!(e.message.starts_with("not an ELF file: "), "{e}");
    // This test program: an ELF, but not for the 68k.
    let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    let e = ElfSymbols::from_bytes(&me, "host.elf").unwrap_err();
    assert_eq!(e.offset, Some(0x12));
    assert!(
        e.message
            .ends_with(", not for the 68k: not a Palm app built by palm-build"),
        "{e}"
    );
}

#[test]
fn frames_of_another_build_are_warned() {
    let elf = elf();
    let ret = |caller: &str, callee: &str| Ok(return_address(caller, callee));
    let frames = vec![
        ret("symtest_middle", "symtest_leaf"),
        ret("memdbg_report_symtest::private_work", "symtest_middle"),
        ret("symtest_outer", "memdbg_report_symtest::private_work"),
    ];
    let ledger_with = |frames: &[Result<u32, u32>]| {
        let leaks = [alloc(kind::POINTER, 4, 0x2000, 1, "a.rs", 1, stack(frames))];
        let mut recs = vec![header(elf.code_size(), &leaks).as_bytes().to_vec()];
        recs.extend(leaks.iter().map(|a| a.as_bytes().to_vec()));
        Ledger::from_pdb(&pdb_of(&recs), "w.pdb").unwrap()
    };
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    // Real return addresses: no warning.
    let r = memdbg_report::analyze(&ledger_with(&frames), &opts);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // A function's first instruction follows the previous function's `rts`.
    let (leaf, _) = function("symtest_leaf");
    let mut odd = frames.clone();
    odd.push(Ok(leaf));
    let r = memdbg_report::analyze(&ledger_with(&odd), &opts);
    assert_eq!(
        r.warnings,
        [format!(
            "1 of 4 code 1 frame addresses do not follow a call instruction in symtest.elf \
             (e.g. 0x{leaf:08X}): it may not be the build that wrote the ledger"
        )]
    );
}

/// The lines of `symtest_removed` (which the linker removes), from its `fn`
/// line to its closing brace.
fn removed_lines() -> Vec<u32> {
    let src = include_str!("symtest/src/lib.rs");
    let lines: Vec<&str> = src.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.contains("fn symtest_removed("))
        .expect("symtest_removed in tests/symtest/src/lib.rs");
    let end = start
        + lines[start..]
            .iter()
            .position(|l| *l == "}")
            .expect("the end of symtest_removed");
    (start as u32 + 1..=end as u32 + 1).collect()
}

/// The location plain addr2line gives for `probe` from the ELF's DWARF as it
/// is, without the report's clean-up of removed functions.
fn raw_location(probe: u64) -> Option<(String, u32)> {
    use object::ObjectSection;
    let file = object::File::parse(&*built().elf).unwrap();
    let load =
        |id: gimli::SectionId| -> Result<gimli::EndianRcSlice<gimli::RunTimeEndian>, gimli::Error> {
            let data = file
                .section_by_name(id.name())
                .and_then(|s| s.uncompressed_data().ok())
                .unwrap_or_default();
            Ok(gimli::EndianRcSlice::new(
                std::rc::Rc::from(&*data),
                gimli::RunTimeEndian::Big,
            ))
        };
    let ctx = addr2line::Context::from_dwarf(gimli::Dwarf::load(load).unwrap()).unwrap();
    let loc = ctx.find_location(probe).ok()??;
    Some((loc.file?.to_string(), loc.line?))
}

/// palm-build links with `--gc-sections`; GNU ld keeps the DWARF of what it
/// removes, resolved to address 0, where code 1 starts. `symtest_entry` (a
/// naked function at 0, like palm-sys's `__palm_entry`) has no DWARF of its
/// own, and `symtest_removed`'s stale line sequence covers it: the tester's
/// "frame in `__palm_entry` with a line of an unrelated function".
#[test]
fn stale_dwarf_of_removed_functions_is_not_used() {
    let elf = elf();
    let (entry, entry_size) = function("symtest_entry");
    assert_eq!(entry, 0, "the linker script puts .text.palm_entry first");
    let file = object::File::parse(&*built().elf).unwrap();
    assert!(
        file.symbols()
            .all(|s| !s.name().unwrap_or("").contains("symtest_removed")),
        "symtest_removed is expected to be removed by --gc-sections"
    );
    let ret = return_address("symtest_entry", "symtest_outer");
    assert!(ret < entry_size);
    // The trap is armed: plain addr2line answers with a line of the removed
    // function for the entry's call.
    let removed = removed_lines();
    let raw = raw_location(u64::from(ret - 1));
    assert!(
        raw.as_ref()
            .is_some_and(|(f, l)| f.ends_with("symtest/src/lib.rs") && removed.contains(l)),
        "no stale DWARF over symtest_entry any more ({raw:?}): this test needs it"
    );
    // The report: the symbol table's function, no line.
    assert_eq!(
        elf.symbolize(ret),
        [Symbol {
            function: "symtest_entry".into(),
            file: None,
            line: None,
            inlined: false,
        }]
    );
    // Nowhere in code 1 does a removed function's line show up, and every
    // frame names the function the symbol table has there.
    for offset in (2..=elf.code_size()).step_by(2) {
        let syms = elf.symbolize(offset);
        for s in &syms {
            assert!(
                !(s.file.as_deref() == Some(SRC) && s.line.is_some_and(|l| removed.contains(&l))),
                "{offset:#x}: {syms:?}"
            );
        }
        if let Some(outer) = syms.last() {
            assert!(
                !outer.function.contains("symtest_removed"),
                "{offset:#x}: {syms:?}"
            );
        }
    }
    // The call sites of functions with DWARF keep their lines.
    assert_eq!(
        elf.symbolize(return_address(
            "symtest_outer",
            "memdbg_report_symtest::private_work"
        ))
        .last()
        .and_then(|s| s.line),
        Some(site_line("outer calls private_work"))
    );
    // In a report: `#0 0x… in symtest_entry`, no file and line.
    let leaks = [alloc(kind::RUST, 4, 0x2000, 1, "", 0, stack(&[Ok(ret)]))];
    let mut h = header(elf.code_size(), &leaks);
    h.code_crc.set(elf.code_crc());
    let mut recs = vec![h.as_bytes().to_vec()];
    recs.extend(leaks.iter().map(|a| a.as_bytes().to_vec()));
    let ledger = Ledger::from_pdb(&pdb_of(&recs), "e.pdb").unwrap();
    elf.check(&ledger).unwrap();
    let mut opts = Options::default();
    opts.symbolizer = Some(&elf);
    let mut out = Vec::new();
    print(&mut out, &ledger, &opts).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(&format!("    #0 0x{ret:08X} in symtest_entry\n")),
        "{text}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// A damaged ELF is an error or a symbolizer that answers; never a panic.
    #[test]
    fn damaged_elfs_never_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..16),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let mut elf = built().elf.clone();
        for (at, byte) in flips {
            let i = at.index(elf.len());
            elf[i] = byte;
        }
        if let Some(c) = cut {
            elf.truncate(c.index(elf.len()));
        }
        if let Ok(symbols) = ElfSymbols::from_bytes(&elf, "damaged.elf") {
            for offset in (0..symbols.code_size().min(0x200)).step_by(2) {
                let _ = symbols.symbolize(offset);
                let _ = symbols.is_return_address(offset);
            }
        }
    }
}

/// `memdbg diff OLD NEW` of two builds: `--elf` is NEW's, `--old-elf` OLD's.
#[test]
fn diff_of_two_builds_with_their_elfs() {
    let elf = elf();
    let dir = tempfile::tempdir().unwrap();
    // OLD: another build (same size, another CRC-32), no leaks. NEW: this
    // build, one leak.
    let mut old_recs = symtest_ledger(elf.code_size());
    old_recs[0][152..156].copy_from_slice(&(elf.code_crc() ^ 1).to_be_bytes());
    old_recs.truncate(1);
    let old = dir.path().join("old.pdb");
    std::fs::write(&old, pdb_of(&old_recs)).unwrap();
    let new = dir.path().join("new.pdb");
    std::fs::write(&new, pdb_of(&symtest_ledger(elf.code_size()))).unwrap();
    let memdbg = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_memdbg"))
            .arg("diff")
            .args(args)
            .output()
            .unwrap()
    };
    let elf_path = built().elf_path.as_os_str();

    // --elf alone, OLD of another build: NEW symbolized, OLD not, a warning;
    // a leak appeared: status 1 (was 2: the ELF was checked against both).
    let out = memdbg(&[old.as_ref(), new.as_ref(), "--elf".as_ref(), elf_path]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" in symtest_outer at "), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "warning: {} is not symbolized (no ELF of its build: --old-elf)",
            old.display()
        )),
        "{stdout}"
    );
    // Reversed: nothing appeared, status 0.
    let out = memdbg(&[new.as_ref(), old.as_ref(), "--old-elf".as_ref(), elf_path]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Each ELF must be its side's build: --old-elf against OLD, --elf against NEW.
    for args in [
        [
            old.as_os_str(),
            new.as_os_str(),
            "--old-elf".as_ref(),
            elf_path,
        ],
        [new.as_os_str(), old.as_os_str(), "--elf".as_ref(), elf_path],
    ] {
        let out = memdbg(&args);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with(&format!(
                "memdbg: error: {}: code 1 of this ELF has CRC-32",
                built().elf_path.display()
            )) && err.contains(&old.display().to_string()),
            "{err}"
        );
    }
    // One build on both sides: --elf serves both, no warning about symbols.
    let out = memdbg(&[new.as_ref(), new.as_ref(), "--elf".as_ref(), elf_path]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.contains("not symbolized"), "{stdout}");
    assert!(stdout.contains("Symbols   "), "{stdout}");
}
