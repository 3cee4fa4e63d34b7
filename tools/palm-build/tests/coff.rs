//! `palm-build lib --format coff`'s conversion (palm_build::coff) on small
//! objects assembled by GNU as: the exact `.text` it lays out and resolves,
//! the relocation it leaves for prc-tools' ld, the symbols, and the checks
//! that reject what code 1 cannot hold.

mod common;

use m68k_coff::{C_EXT, C_STAT, N_UNDEF, Object, RelocKind, Relocation, STYP_DATA, T_FUNCTION};
use palm_build::coff;

const OBJDUMP: &str = "m68k-linux-gnu-objdump";

/// `f` refers to read-only data, a local function in another section, an
/// undefined `hook` and a table through `d8(pc,d0.w)`; `unused` is reached
/// from no export.
const SOURCE: &str = "\
\t.section .text.f,\"ax\",@progbits
\t.globl f
\t.type f,@function
f:\tlea (msg,%pc),%a0
\tbsr.w g
\tjsr (hook,%pc)
\tmove.w (tab,%pc,%d0.w),%d1
\trts
\t.size f, .-f
\t.section .text.g,\"ax\",@progbits
\t.type g,@function
g:\trts
\t.size g, .-g
\t.section .text.unused,\"ax\",@progbits
\t.globl unused
\t.type unused,@function
unused:\tbsr.w f
\trts
\t.section .rodata.msg,\"a\",@progbits
msg:\t.asciz \"hi!\"
\t.section .rodata.tab,\"a\",@progbits
\t.p2align 1
tab:\t.short 1,2
";

#[test]
fn code_is_laid_out_resolved_and_the_external_call_relocated() {
    let dir = tempfile::tempdir().unwrap();
    let elf = common::assemble(dir.path(), "t", SOURCE);
    let c = coff::convert(&elf, &["f".into()]).unwrap();
    // .text.f at 0 (18 bytes), .text.g at 18, then .rodata.msg at 20 and
    // .rodata.tab at 24; .text.unused left out.
    let text = &c.object.sections[0];
    assert_eq!(
        text.data,
        [
            0x41, 0xFA, 0x00, 0x12, // lea (msg,%pc): 20 − 2
            0x61, 0x00, 0x00, 0x0C, // bsr.w g: 18 − 6
            0x4E, 0xBA, 0xFF, 0xF6, // jsr (hook,%pc): 0 − 10, for ld to add hook − base
            0x32, 0x3B, 0x00,
            0x0A, // move.w (tab,%pc,%d0.w),%d1: 24 − 14 (PC = extension word)
            0x4E, 0x75, // rts
            0x4E, 0x75, // g: rts
            b'h', b'i', b'!', 0, // msg
            0x00, 0x01, 0x00, 0x02, // tab
        ]
    );
    assert_eq!(
        (c.code_bytes, c.kept_sections, c.dropped_sections),
        (20, 4, 1)
    );
    assert_eq!(c.undefined, ["hook"]);
    let hook = c
        .object
        .symbols
        .iter()
        .position(|s| s.name == "hook")
        .unwrap();
    assert_eq!(
        text.relocations,
        [Relocation {
            vaddr: 10,
            symbol: hook,
            kind: RelocKind::PcWord
        }]
    );
    let sym = |name: &str| {
        let s = c.object.symbols.iter().find(|s| s.name == name).unwrap();
        (s.value, s.section, s.typ, s.class)
    };
    assert_eq!(sym("f"), (0, 1, T_FUNCTION, C_EXT));
    assert_eq!(sym("g"), (18, 1, T_FUNCTION, C_STAT));
    assert_eq!(sym("hook"), (0, N_UNDEF, 0, C_EXT));
    assert!(c.object.symbols.iter().all(|s| s.name != "unused"));
    assert_eq!(c.object.defined_globals(), ["f"]);
    assert_eq!(
        c.object.symbols[0].aux,
        [m68k_coff::Symbol::section_aux(28, 1)]
    );

    let v = coff::verify_object(&c.object, c.code_bytes, "t.o", dir.path(), OBJDUMP).unwrap();
    assert_eq!((v.instructions, v.text_bytes, v.rodata_bytes), (6, 20, 8));

    // As a library: read back from the archive, the index names the export.
    let lib = coff::write_library(
        &elf,
        &["f".into()],
        &dir.path().join("libt.a"),
        dir.path(),
        OBJDUMP,
    )
    .unwrap();
    let members = m68k_coff::read_archive(&std::fs::read(&lib.archive).unwrap()).unwrap();
    assert_eq!(members.len(), 1);
    assert_eq!(
        (members[0].name.as_str(), &members[0].symbols[..]),
        ("libt.o", &["f".to_string()][..])
    );
    assert_eq!(Object::parse(&members[0].data).unwrap(), c.object);
}

#[test]
fn a_section_aligned_above_4_is_placed_at_4() {
    // LLVM's merged constant pools (`.rodata.cst32`) ask for 8; coff-m68k
    // keeps 4 and code 1 guarantees only 2 at run time, so 4 it is.
    let dir = tempfile::tempdir().unwrap();
    let source = "\t.section .text.f,\"ax\",@progbits\n\t.globl f\nf:\tlea (tab,%pc),%a0\n\trts\n\
                  \t.section .rodata.cst32,\"aM\",@progbits,32\n\t.p2align 3\ntab:\t.fill 32,1,7\n";
    let elf = common::assemble(dir.path(), "aligned", source);
    let c = coff::convert(&elf, &["f".into()]).unwrap();
    let text = &c.object.sections[0].data;
    // f is 6 bytes, zeros pad it to 8 (4-aligned), then the table.
    assert_eq!(text.len(), 8 + 32, "{text:02X?}");
    assert_eq!(&text[..6], [0x41, 0xFA, 0x00, 0x06, 0x4E, 0x75]); // lea (tab,%pc): 8 − 2
    assert_eq!(&text[8..], [7u8; 32]);
}

#[test]
fn what_code_1_cannot_hold_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let convert = |name: &str, source: &str, roots: &[&str]| {
        let elf = common::assemble(dir.path(), name, source);
        let roots: Vec<String> = roots.iter().map(|r| r.to_string()).collect();
        coff::convert(&elf, &roots)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let text = "\t.section .text.f,\"ax\",@progbits\n\t.globl f\nf:\t";
    let e = convert("absolute", &format!("{text}move.l #f,%d0\n\trts\n"), &["f"]);
    assert!(
        e.ends_with("relocation type 1 is not PC-relative at .text.f+0x2 (to `f`)"),
        "{e}"
    );
    let e = convert("missing", &format!("{text}rts\n"), &["f", "g"]);
    assert!(
        e.ends_with("exported symbol `g` is not defined in it"),
        "{e}"
    );
    let e = convert("data", &format!("{text}rts\n\t.data\n\t.long 1\n"), &["f"]);
    assert!(
        e.ends_with("section .data (4 bytes) is not code or read-only data"),
        "{e}"
    );
    let e = convert(
        "byte",
        &format!("{text}move.w (ext,%pc,%d0.w),%d1\n\trts\n"),
        &["f"],
    );
    assert!(
        e.ends_with(
            "a byte-wide PC-relative reference cannot reach the undefined symbol, at \
             .text.f+0x3 (to `ext`)"
        ),
        "{e}"
    );

    // The verifier on an object that breaks every rule at once.
    let elf = common::assemble(
        dir.path(),
        "ok",
        &format!("{text}jsr (ext,%pc)\n\t.short 0x4c00\n\trts\n\t.size f, .-f\n"),
    );
    let mut o = coff::convert(&elf, &["f".into()]).unwrap().object;
    o.sections[0].relocations[0].kind = RelocKind::Long;
    o.sections[1].size = 4;
    o.sections[1].flags = STYP_DATA;
    let e = coff::verify_object(&o, 8, "bad.o", dir.path(), OBJDUMP)
        .unwrap_err()
        .to_string();
    assert!(e.contains("section .data is not empty (4 bytes)"), "{e}");
    assert!(
        e.contains("absolute relocation 32 to `ext` at .text+0x2 (in f+0x2)"),
        "{e}"
    );
    assert!(
        e.contains(
            "opcode 0x4c00 (68020 32-bit MULU.L/MULS.L/DIVU.L/DIVS.L) is not a 68000 \
             instruction at .text+0x4 (in f+0x4)"
        ),
        "{e}"
    );
}

/// memdbg's C library (memdbg/capi-lib) through `palm-build lib --format
/// coff`: the coff-m68k `.text` holds exactly the code the ELF check link
/// keeps (the same sections reached from the same exports), nothing is left
/// undefined, and the archive read back indexes every `memdbg_*` function
/// that memdbg.h declares.
#[test]
fn memdbgs_c_library_converts_to_what_the_elf_link_keeps() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("libmemdbg.a");
    let lib = palm_build::build_lib_as(
        &palm_build::Options {
            manifest_path: root.join("memdbg/capi-lib/Cargo.toml"),
            target_dir: None,
            kind: palm_build::ImageKind::TestLib,
            features: Vec::new(),
            quiet: true,
            raw_llvm: false,
        },
        &archive,
        coff::LibFormat::Coff,
    )
    .unwrap_or_else(|e| panic!("palm-build lib --format coff failed: {e:#}"));
    let c = lib.coff.as_ref().unwrap();
    assert_eq!(u64::from(c.converted.code_bytes), lib.verified.text_bytes);
    let text = u64::from(c.converted.object.sections[0].size);
    let elf_total = lib.verified.text_bytes + lib.verified.rodata_bytes;
    // The same bytes, but for alignment and the constant pools' entries
    // that GNU ld merged and the conversion keeps.
    let merged = u64::from(c.converted.mergeable_bytes);
    assert!(
        (elf_total..elf_total + 4 + merged).contains(&text),
        ".text {text} bytes, ELF code + rodata {elf_total}, constant pools {merged}"
    );
    assert_eq!(c.verified.text_bytes, lib.verified.text_bytes);
    assert!(
        c.converted.undefined.is_empty(),
        "{:?}",
        c.converted.undefined
    );
    let members = m68k_coff::read_archive(&std::fs::read(&archive).unwrap()).unwrap();
    assert_eq!(members.len(), 1);
    assert_eq!(members[0].symbols, lib.exported);
    let header = std::fs::read_to_string(root.join("memdbg/include/memdbg.h")).unwrap();
    let declared: Vec<&str> = header
        .split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
        .filter(|w| w.starts_with("memdbg_") && w.len() > "memdbg_".len())
        .collect();
    assert!(declared.len() >= 9, "{declared:?}");
    for f in declared {
        assert!(
            members[0].symbols.iter().any(|s| s == f),
            "`{f}` is not in the index"
        );
    }
    // Only the exports are global (a helper such as memcpy would stay local,
    // so that prc-tools' libc can bring its own).
    let object = Object::parse(&members[0].data).unwrap();
    assert_eq!(object.defined_globals().len(), lib.exported.len());
}
