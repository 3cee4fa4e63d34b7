//! Crafted bad inputs (the `palm-build-bad-image` crate, one cargo feature per
//! broken rule) built through the real pipeline: each must be rejected with
//! a message that names the rule and the symbol.

mod common;

use palm_build::{ImageKind, Options};

fn build(feature: &str) -> Result<palm_build::Image, String> {
    palm_build::build_image(&Options {
        manifest_path: concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bad-image/Cargo.toml").into(),
        target_dir: None,
        kind: ImageKind::TestLib,
        features: if feature.is_empty() {
            vec![]
        } else {
            vec![feature.to_string()]
        },
        quiet: true,
        raw_llvm: false,
    })
    .map_err(|e| format!("{e:#}"))
}

fn rejected(feature: &str) -> String {
    match build(feature) {
        Ok(image) => panic!("feature {feature}: accepted {}", image.elf.display()),
        Err(message) => message,
    }
}

#[test]
fn the_clean_image_passes() {
    let image = build("").expect("the image without bad features must build");
    assert!(image.symbols.contains_key("ok_function"));
    assert!(image.verified.instructions > 0);
}

#[test]
fn absolute_relocation_in_code_is_rejected_naming_function_and_target() {
    let msg = rejected("absolute-relocation");
    assert!(
        msg.contains("absolute relocation R_68K_32 to `ok_function`"),
        "{msg}"
    );
    assert!(msg.contains("(in absolute_reference+0x"), "{msg}");
}

#[test]
fn static_pointer_table_is_rejected_naming_section_and_symbol() {
    let msg = rejected("pointer-table");
    assert!(msg.contains("section .data.rel.ro is not empty"), "{msg}");
    assert!(msg.contains("pointer_table::NAMES"), "{msg}");
}

#[test]
fn static_mut_is_rejected_naming_the_static() {
    let msg = rejected("static-mut");
    // LLVM 23 addresses the static with `lea` (the verifier finds .bss/.data);
    // LLVM 22 writes it PC-relative (the repair pass refuses the write).
    assert!(
        msg.contains("section .bss is not empty")
            || msg.contains("section .data is not empty")
            || msg.contains("through a PC-relative address: a writable static"),
        "{msg}"
    );
    assert!(msg.contains("bump_counter::COUNTER"), "{msg}");
}

#[test]
fn bra_l_is_rejected_naming_the_function() {
    let msg = rejected("bra-l");
    assert!(msg.contains("68020 32-bit branch form"), "{msg}");
    assert!(msg.contains("(in long_branch+0x"), "{msg}");
}

#[test]
fn image_over_32_kb_is_rejected_with_its_size() {
    let msg = rejected("too-large");
    assert!(msg.contains("over the 32768-byte limit"), "{msg}");
    assert!(
        msg.contains("big_table::BIG") || msg.contains("relocation truncated"),
        "{msg}"
    );
}

#[test]
fn stack_array_with_variable_index_is_rejected_naming_the_function() {
    let msg = rejected("stack-index");
    assert!(
        msg.contains("`stack_index` indexes a stack array (or an argument passed by value) with a variable offset"),
        "{msg}"
    );
    assert!(msg.contains("core::hint::black_box"), "{msg}");
}

#[test]
fn by_value_argument_with_variable_index_is_rejected_naming_the_function() {
    let msg = rejected("byval-index");
    assert!(
        msg.contains("`byval_index` indexes a stack array (or an argument passed by value)"),
        "{msg}"
    );
    assert!(msg.contains("getelementptr"), "{msg}");
}

/// `write!` fails in core's formatting code; the error says which of the
/// program's functions uses it.
#[test]
fn write_macro_is_rejected_naming_the_calling_function() {
    let msg = rejected("fmt-write");
    assert!(
        msg.contains("`<u32 as core::fmt::LowerHex>::fmt` (reached from `write_hex`)"),
        "{msg}"
    );
    assert!(msg.contains("This is core::fmt's own code"), "{msg}");
}

#[test]
fn narrow_value_widened_into_memory_is_rejected_naming_the_function() {
    let msg = rejected("wide-move");
    assert!(
        msg.contains("`widen_into_memory` stores an 8/16-bit value widened to 16/32 bits"),
        "{msg}"
    );
    // The selected instruction: a 32-bit move whose source is the 16-bit argument.
    assert!(msg.contains("MIR: MOV32"), "{msg}");
    assert!(msg.contains("(load (s16) from %fixed-stack."), "{msg}");
    assert!(msg.contains("tests/bad-image/src/lib.rs:"), "{msg}");
    assert!(msg.contains("IR:  store i32 "), "{msg}");
    assert!(msg.contains("codegen::in_register(x as u32)"), "{msg}");
}

#[test]
fn narrow_multiplication_with_overflow_check_is_rejected_naming_the_function() {
    let msg = rejected("narrow-mul");
    assert!(
        msg.contains("`narrow_checked_mul` multiplies 8/16-bit values with an overflow check"),
        "{msg}"
    );
    assert!(msg.contains("@llvm.umul.with.overflow.i16"), "{msg}");
}

#[test]
fn atomics_are_rejected_naming_the_function() {
    let msg = rejected("atomics");
    assert!(
        msg.contains("atomics are not supported on the 68000"),
        "{msg}"
    );
    // ld names the function with the call: core's (not inlined) helper.
    assert!(
        msg.contains("`__sync_fetch_and_add_4` (used in `core::sync::atomic::"),
        "{msg}"
    );
}

#[test]
fn dyn_trait_vtables_are_rejected_naming_the_methods_and_the_user() {
    let msg = rejected("dyn-trait");
    assert!(msg.contains("section .data.rel.ro is not empty"), "{msg}");
    assert!(
        msg.contains("as palm_build_bad_image::dyn_area::Shape>::area"),
        "{msg}"
    );
    assert!(msg.contains("used by: dyn_area"), "{msg}");
}

#[test]
fn a_damaged_elf_is_not_verified_ok() {
    let image = build("").expect("the clean image builds");
    let mut bytes = std::fs::read(&image.elf).unwrap();
    // Section header 1 (.text): point its file offset past the end of the file.
    let shoff = u32::from_be_bytes(bytes[32..36].try_into().unwrap()) as usize;
    let shentsize = u16::from_be_bytes(bytes[46..48].try_into().unwrap()) as usize;
    let at = shoff + shentsize + 16;
    bytes[at..at + 4].copy_from_slice(&0xFFFF_FF00u32.to_be_bytes());
    let damaged = image.elf.with_extension("damaged.elf");
    std::fs::write(&damaged, &bytes).unwrap();
    let err = palm_build::verify::verify_elf(
        &damaged,
        palm_build::verify::Rules::TestLib,
        &palm_build::Binutils::default().objdump,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("could not disassemble .text"), "{err}");
}

/// `palm-build lib`'s check of each archive member: an object with an
/// absolute reference, a non-empty `.data` and a 68020 opcode is rejected
/// with all three named; the same object without them passes.
#[test]
fn an_archive_member_is_verified_before_linking() {
    let dir = tempfile::tempdir().unwrap();
    let assemble = |name: &str, source: &str| common::assemble(dir.path(), name, source);
    let good = assemble(
        "good",
        "\t.section .text.f,\"ax\",@progbits\n\t.globl f\nf:\n\tlea (g,%pc),%a0\n\trts\n\
         \t.section .text.g,\"ax\",@progbits\ng:\n\trts\n",
    );
    let v = palm_build::verify::verify_object(&good, "m68k-linux-gnu-objdump").unwrap();
    assert_eq!((v.instructions, v.text_bytes), (3, 8));
    let bad = assemble(
        "bad",
        "\t.section .text.f,\"ax\",@progbits\n\t.globl f\nf:\n\tmove.l #g,%d0\n\t.short 0x4c00\n\
         \trts\n\t.size f, .-f\n\t.section .text.g,\"ax\",@progbits\ng:\n\trts\n\t.data\n\t.long 1\n",
    );
    let e = palm_build::verify::verify_object(&bad, "m68k-linux-gnu-objdump")
        .unwrap_err()
        .to_string();
    assert!(e.contains("section .data is not empty (4 bytes)"), "{e}");
    assert!(
        e.contains("absolute relocation R_68K_32 to `.text.g` at .text.f+0x2 (in f+0x2)"),
        "{e}"
    );
    assert!(
        e.contains("opcode 0x4c00 (68020 32-bit MULU.L/MULS.L/DIVU.L/DIVS.L) is not a 68000 instruction at f+0x6"),
        "{e}"
    );
}
