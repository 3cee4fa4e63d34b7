//! memdbg's assembly (`asm/*.s`), tested where it runs: every routine is called in
//! the 68000 emulator (palm-build's `emu`, the `m68k` crate as a 68000) from the
//! code 1 that palm-build built for `tests/app`, with a state laid out by the 68k
//! build's own assembly constants (`Image::asm_constants`: its offsets, not the
//! host's) and a minimal Palm OS ([`os::Os`]: the traps the routines make, a toy
//! heap with OS 3.x chunk headers, records in RAM). The Rust functions the
//! assembly calls run as the 68k code they are, in the same machine.
//!
//! Each call checks the routine's register convention as its header comment states
//! it ([`conv`]): every register it says it keeps is seeded with a distinct value
//! before the call and compared after it, and every trap clobbers D0–D2/A0–A1 as
//! Palm OS may (so a routine that keeps D2 only by luck fails).

#[path = "../common/mod.rs"]
mod common;
mod conv;
mod machine;
mod os;

mod alloc;
mod block;
mod free;
mod index;
mod patches;
mod state;

/// Every global routine of `asm/*.s` has its register convention written down here
/// (`conv::keeps`), so every test that calls it checks it.
#[test]
fn every_assembly_routine_has_a_checked_convention() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/asm");
    let mut globals = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "s") {
            let text = std::fs::read_to_string(&path).unwrap();
            globals.extend(
                text.lines()
                    .filter_map(|l| l.trim().strip_prefix(".globl"))
                    .map(|n| n.trim().to_string()),
            );
        }
    }
    globals.sort();
    let mut known: Vec<String> = conv::ROUTINES.iter().map(|r| r.to_string()).collect();
    known.push("__memdbg_trampoline".into()); // data: the trampolines' template
    known.sort();
    assert_eq!(globals, known);
}
