//! Emulator tests of the trap glue, the call-original glue and the trampolines.
//!
//! `tests/glue-app` (a no_std staticlib of `extern "C"` test functions) is built for the
//! MC68000 by palm-build's pipeline and run in its 68000 harness at two load addresses.
//! The `TRAP #15` handler records the trap word and the exact argument bytes on the
//! stack (sized from `palm_sys::table`), and answers with garbage in every register
//! Palm OS may clobber: in the upper bits of D0 (to prove masking), in D0 for pointer
//! results (which must come from A0), in A0 for integer results, and in D1/D2/A1.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::OnceLock;

use m68k_palmos_sys::table::trap_info;
use m68k_palmos_sys::traps::*;
use palm_build::emu::{CallResult, Emu, EmuError, TrapCall};
use palm_build::{Image, ImageKind, Options};

const BASES: [u32; 2] = [0x0001_0000, 0x0002_3456];
const RAM: u32 = 0x0010_0000;
const MAX_INSTRUCTIONS: u64 = 5_000_000;
/// Extra bytes recorded after the fixed arguments of a variadic trap.
const VA_BYTES: u32 = 20;

fn image() -> &'static Image {
    static IMAGE: OnceLock<Image> = OnceLock::new();
    IMAGE.get_or_init(|| {
        let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        palm_build::build_image(&Options {
            manifest_path: manifest.join("tests/glue-app/Cargo.toml"),
            target_dir: None,
            kind: ImageKind::TestLib,
            features: Vec::new(),
            quiet: true,
            raw_llvm: false,
            macsbug_names: true,
        })
        .unwrap_or_else(|e| panic!("building tests/glue-app for the 68000 failed: {e:#}"))
    })
}

/// One trap the 68k code made.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    trap: u16,
    sp: u32,
    /// The fixed arguments' bytes (+ `VA_BYTES` for variadic traps).
    args: Vec<u8>,
}

/// The glue-app image loaded at one base address.
struct M68k {
    emu: Emu,
    base: u32,
}

/// Records the trap and sets the results: `d0`/`a0`, with D1/D2/A1 trashed.
fn record(seen: &RefCell<Vec<Seen>>, t: &TrapCall<'_>) {
    let info = trap_info(t.trap).unwrap_or_else(|| panic!("trap 0x{:04X} not in table", t.trap));
    let n = info.args_stack_bytes() + if info.variadic { VA_BYTES } else { 0 };
    seen.borrow_mut().push(Seen {
        trap: t.trap,
        sp: t.sp(),
        args: t.ram.slice(t.sp(), n).to_vec(),
    });
}

fn answer(t: &mut TrapCall<'_>, d0: u32, a0: u32) {
    t.cpu.set_d(0, d0);
    t.cpu.set_a(0, a0);
    t.cpu.set_d(1, 0xD1D1_D1D1);
    t.cpu.set_d(2, 0xD2D2_D2D2);
    t.cpu.set_a(1, 0xA1A1_A1A1);
}

impl M68k {
    fn new(base: u32) -> M68k {
        let mut emu = Emu::new(RAM);
        emu.load(base, &image().code);
        M68k { emu, base }
    }

    fn addr(&self, name: &str) -> u32 {
        self.base + image().symbol(name).unwrap()
    }

    /// Calls `name` with a handler for the traps it makes.
    fn run(
        &mut self,
        name: &str,
        args: &[u32],
        handler: &mut dyn FnMut(&mut TrapCall<'_>) -> Result<(), String>,
    ) -> Result<CallResult, EmuError> {
        let addr = self.addr(name);
        self.emu.call(addr, args, handler, MAX_INSTRUCTIONS)
    }

    /// Calls code at an absolute address (a trampoline) with raw stack words.
    fn run_at(
        &mut self,
        addr: u32,
        words: &[u32],
        handler: &mut dyn FnMut(&mut TrapCall<'_>) -> Result<(), String>,
    ) -> Result<CallResult, EmuError> {
        self.emu.call(addr, words, handler, MAX_INSTRUCTIONS)
    }

    /// Calls `name`; every trap is recorded and answered with (d0, a0).
    fn call(&mut self, name: &str, args: &[u32], d0: u32, a0: u32) -> (CallResult, Vec<Seen>) {
        let seen = RefCell::new(Vec::new());
        let r = self
            .run(name, args, &mut |t| {
                record(&seen, t);
                answer(t, d0, a0);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{name}{args:x?} at base 0x{:x}: {e}", self.base));
        (r, seen.into_inner())
    }

    /// Address of trampoline `which` as the 68k code computes it.
    fn entry(&mut self, which: u32) -> u32 {
        self.call("t_addr", &[which], 0, 0).0.d0
    }
}

/// Runs `f` with the image at each base address.
fn at_both_bases(mut f: impl FnMut(&mut M68k)) {
    for base in BASES {
        f(&mut M68k::new(base));
    }
}

/// Asserts one trap with exactly these argument bytes; `None` marks the undefined
/// padding byte after an 8-bit argument.
fn assert_one(seen: &[Seen], trap: u16, expect: &[Option<u8>]) {
    assert_eq!(seen.len(), 1, "{seen:x?}");
    assert_trap(&seen[0], trap, expect);
}

fn assert_trap(seen: &Seen, trap: u16, expect: &[Option<u8>]) {
    assert_eq!(seen.trap, trap, "{seen:x?}");
    assert!(seen.args.len() >= expect.len(), "{seen:x?}");
    for (i, e) in expect.iter().enumerate() {
        if let Some(b) = e {
            assert_eq!(
                seen.args[i], *b,
                "byte +{i} of trap 0x{trap:04X}: {:02x?}",
                seen.args
            );
        }
    }
}

/// Big-endian bytes of a value as expected-byte entries.
fn be(v: u32, n: usize) -> Vec<Option<u8>> {
    v.to_be_bytes()[4 - n..].iter().map(|b| Some(*b)).collect()
}

fn bytes(parts: &[Vec<Option<u8>>]) -> Vec<Option<u8>> {
    parts.concat()
}

/// An 8-bit argument: the value in the high byte, the low byte undefined.
fn byte(v: u8) -> Vec<Option<u8>> {
    vec![Some(v), None]
}

/// The bytes a glue-app trampoline body reported with `HostControl(0x7E57, value)`.
fn reported(seen: &Seen) -> &[u8] {
    assert_eq!(seen.trap, sysTrapHostControl, "{seen:x?}");
    assert_eq!(&seen.args[..2], &[0x7E, 0x57]);
    &seen.args[2..]
}

/// Big-endian fields of the given widths (1, 2 or 4 bytes) from `bytes`.
fn fields(bytes: &[u8], widths: &[usize]) -> Vec<u32> {
    let mut at = 0;
    widths
        .iter()
        .map(|&w| {
            let v = bytes[at..at + w]
                .iter()
                .fold(0u32, |acc, b| acc << 8 | u32::from(*b));
            at += w;
            v
        })
        .collect()
}

#[test]
fn u32_argument_and_pointer_result_from_a0() {
    at_both_bases(|m| {
        let (r, seen) = m.call("t_mem_ptr_new", &[0x1234_5678], 0xDEAD_BEEF, 0x00AB_CDE0);
        assert_one(&seen, sysTrapMemPtrNew, &be(0x1234_5678, 4));
        assert_eq!(r.d0, 0x00AB_CDE0);
    });
}

#[test]
fn u16_argument_and_u16_result_masked() {
    at_both_bases(|m| {
        let (r, seen) = m.call("t_mem_num_heaps", &[0xFFFF_1234], 0xFFFF_0005, 0xA0A0_A0A0);
        assert_one(&seen, sysTrapMemNumHeaps, &be(0x1234, 2));
        assert_eq!(seen[0].args.len(), 2);
        assert_eq!(r.d0, 5);
    });
}

#[test]
fn u8_argument_in_the_high_byte_and_err_result_masked() {
    at_both_bases(|m| {
        let (r, seen) = m.call("t_sem_reserve", &[0x1FF], 0x1234_0101, 0);
        assert_one(&seen, sysTrapMemSemaphoreReserve, &byte(0xFF));
        assert_eq!(seen[0].args.len(), 2);
        assert_eq!(r.d0, 0x0101);
    });
}

#[test]
fn boolean_result_masked_to_8_bits() {
    at_both_bases(|m| {
        let (r, seen) = m.call("t_heap_dynamic", &[7], 0xFFFF_FF01, 0);
        assert_one(&seen, sysTrapMemHeapDynamic, &be(7, 2));
        assert_eq!(r.d0, 1);
        let (r, _) = m.call("t_heap_dynamic", &[7], 0x0000_0100, 0);
        assert_eq!(r.d0, 0, "only the low byte of D0 is the Boolean");
    });
}

#[test]
fn int16_result_sign_extended_from_the_low_word() {
    at_both_bases(|m| {
        let (r, seen) = m.call("t_str_len", &[0x2000], 0x0000_FFFE, 0);
        assert_one(&seen, sysTrapStrLen, &be(0x2000, 4));
        assert_eq!(r.d0 as i32, -2);
        let (r, _) = m.call("t_str_len", &[0x2000], 0xABCD_0007, 0);
        assert_eq!(r.d0, 7);
    });
}

#[test]
fn no_arguments_and_void_result() {
    at_both_bases(|m| {
        let (r, seen) = m.call("t_tim_get_ticks", &[], 0x89AB_CDEF, 0);
        assert_one(&seen, sysTrapTimGetTicks, &[]);
        assert_eq!(r.d0, 0x89AB_CDEF);
        let (r, seen) = m.call("t_dbg_message", &[0x0000_2000], 0xFFFF_FFFF, 0);
        assert_one(&seen, sysTrapDbgMessage, &be(0x2000, 4));
        assert_eq!(r.d0, 0x600D);
    });
}

#[test]
fn mixed_widths_in_palm_layout() {
    at_both_bases(|m| {
        // DmReleaseRecord(DmOpenRef, UInt16, Boolean): 8 bytes (PALM_FACTS §3.2).
        let (r, seen) = m.call(
            "t_dm_release_record",
            &[0x1122_3344, 0x5566, 1],
            0xFFFF_0219,
            0,
        );
        assert_one(
            &seen,
            sysTrapDmReleaseRecord,
            &bytes(&[be(0x1122_3344, 4), be(0x5566, 2), byte(1)]),
        );
        assert_eq!(seen[0].args.len(), 8);
        assert_eq!(r.d0, 0x0219);

        // DmCreateDatabase(UInt16, const Char*, UInt32, UInt32, Boolean): 16 bytes.
        let (r, seen) = m.call(
            "t_dm_create_database",
            &[
                1,
                0x2000,
                u32::from_be_bytes(*b"test"),
                u32::from_be_bytes(*b"DATA"),
                1,
            ],
            0x5555_0000,
            0,
        );
        assert_one(
            &seen,
            sysTrapDmCreateDatabase,
            &bytes(&[
                be(1, 2),
                be(0x2000, 4),
                be(u32::from_be_bytes(*b"test"), 4),
                be(u32::from_be_bytes(*b"DATA"), 4),
                byte(1),
            ]),
        );
        assert_eq!(r.d0, 0);

        // MemSet(void*, Int32, UInt8): the value is last.
        let (_, seen) = m.call("t_mem_set", &[0x3000, -1i32 as u32, 0xAB], 0, 0);
        assert_one(
            &seen,
            sysTrapMemSet,
            &bytes(&[be(0x3000, 4), be(0xFFFF_FFFF, 4), byte(0xAB)]),
        );

        // WinDrawChars(const Char*, Int16, Coord, Coord): signed 16-bit values.
        let (_, seen) = m.call(
            "t_win_draw_chars",
            &[0x4000, -3i32 as u32, -1i32 as u32, 160],
            0,
            0,
        );
        assert_one(
            &seen,
            sysTrapWinDrawChars,
            &bytes(&[be(0x4000, 4), be(0xFFFD, 2), be(0xFFFF, 2), be(160, 2)]),
        );
        assert_eq!(seen[0].args.len(), 10);

        // DmSet(void*, UInt32, UInt32, UInt8).
        let (r, seen) = m.call("t_dm_set", &[0x5000, 7, 9, 0x5A], 0x8000_0214, 0);
        assert_one(
            &seen,
            sysTrapDmSet,
            &bytes(&[be(0x5000, 4), be(7, 4), be(9, 4), byte(0x5A)]),
        );
        assert_eq!(r.d0, 0x0214);
    });
}

fn db_info_bytes(base: u32) -> Vec<Option<u8>> {
    let mut parts = vec![be(0x0102, 2), be(0x0A0B_0C0D, 4), be(base, 4)];
    for i in 1..=10 {
        parts.push(be(base + 4 * i, 4));
    }
    bytes(&parts)
}

#[test]
fn thirteen_arguments_through_the_packed_block() {
    at_both_bases(|m| {
        let (r, seen) = m.call("t_dm_database_info", &[0x6000], 0x0000_0207, 0xA0A0_A0A0);
        assert_one(&seen, sysTrapDmDatabaseInfo, &db_info_bytes(0x6000));
        assert_eq!(seen[0].args.len(), 50);
        assert_eq!(r.d0, 0x0207);
    });
}

#[test]
fn seven_arguments_with_bytes_through_the_packed_block() {
    at_both_bases(|m| {
        let appl = u32::from_be_bytes(*b"appl");
        let memd = u32::from_be_bytes(*b"memd");
        let (r, seen) = m.call(
            "t_dm_next_db",
            &[1, 0x7000, appl, memd, 0, 0x7100, 0x7200],
            0x00FF_0000,
            0,
        );
        assert_one(
            &seen,
            sysTrapDmGetNextDatabaseByTypeCreator,
            &bytes(&[
                byte(1),
                be(0x7000, 4),
                be(appl, 4),
                be(memd, 4),
                byte(0),
                be(0x7100, 4),
                be(0x7200, 4),
            ]),
        );
        assert_eq!(seen[0].args.len(), 24);
        assert_eq!(r.d0, 0);
    });
}

#[test]
fn variadic_str_printf() {
    at_both_bases(|m| {
        let (r, seen) = m.call(
            "t_str_printf",
            &[0x8000, 0x8100, -2i32 as u32, 0x0102_0304, 0x8200],
            0xFFFF_000C,
            0,
        );
        assert_one(
            &seen,
            sysTrapStrPrintF,
            &bytes(&[
                be(0x8000, 4),
                be(0x8100, 4),
                be(0xFFFE, 2),
                be(0x0102_0304, 4),
                be(0x8200, 4),
            ]),
        );
        assert_eq!(r.d0, 12);

        let (r, seen) = m.call("t_str_printf_empty", &[0x8000, 0x8100], 0x0000_FFFF, 0);
        assert_one(
            &seen,
            sysTrapStrPrintF,
            &bytes(&[be(0x8000, 4), be(0x8100, 4)]),
        );
        assert_eq!(r.d0 as i32, -1);
    });
}

#[test]
fn stack_is_balanced_across_repeated_traps() {
    at_both_bases(|m| {
        let (r, seen) = m.call("t_balance", &[0x9000], 0xFFFF_0001, 0);
        assert_eq!(seen.len(), 12);
        // Each iteration: DmReleaseRecord, MemSemaphoreRelease, StrPrintF, SysReset.
        let order = [
            sysTrapDmReleaseRecord,
            sysTrapMemSemaphoreRelease,
            sysTrapStrPrintF,
            sysTrapSysReset,
        ];
        for (i, s) in seen.iter().enumerate() {
            assert_eq!(s.trap, order[i % 4]);
            // The same call in the next iteration sees exactly the same SP.
            assert_eq!(s.sp, seen[i % 4].sp, "SP drifted at call {i}: {seen:x?}");
        }
        // The traps' frames are where the pushes put them relative to SysReset's SP.
        let reset_sp = seen[3].sp;
        assert_eq!(seen[0].sp, reset_sp - 8);
        assert_eq!(seen[1].sp, reset_sp - 2);
        assert_eq!(seen[2].sp, reset_sp - 8 - 6);
        for i in 0..3 {
            assert_trap(
                &seen[4 * i],
                sysTrapDmReleaseRecord,
                &bytes(&[be(0x9000, 4), be(i as u32, 2), byte(1)]),
            );
            assert_trap(
                &seen[4 * i + 2],
                sysTrapStrPrintF,
                &bytes(&[be(0x9000, 4), be(0x9000, 4), be(i as u32, 2), be(0x9000, 4)]),
            );
        }
        assert_eq!(r.d0, 9);
    });
}

#[test]
fn trampolines_unpack_palm_layout_arguments() {
    at_both_bases(|m| {
        // DmReleaseRecord(DmOpenRef, UInt16, Boolean): 4 + 2 + 2 bytes.
        let rr = m.entry(0);
        let seen = RefCell::new(Vec::new());
        let r = m
            .run_at(rr, &[0x1122_3344, 0xFFEE_0100], &mut |t| {
                record(&seen, t);
                answer(t, 0xFFFF_FFFF, 0xFFFF_FFFF);
                Ok(())
            })
            .unwrap();
        let seen = seen.into_inner();
        assert_eq!(seen.len(), 1);
        assert_eq!(
            fields(reported(&seen[0]), &[4, 2, 1]),
            [0x1122_3344, 0xFFEE, 1]
        );
        assert_eq!(r.d0 & 0xFFFF, 0xFFEE ^ 0x0F0F);

        // WinDrawChars(const Char*, Int16, Coord, Coord): signed values sign-extended.
        let draw = m.entry(3);
        let seen = RefCell::new(Vec::new());
        m.run_at(draw, &[0x4000, 0xFFFD_FFFF, 0x00A0_0000], &mut |t| {
            record(&seen, t);
            answer(t, 0, 0);
            Ok(())
        })
        .unwrap();
        let seen = seen.into_inner();
        assert_eq!(
            fields(reported(&seen[0]), &[4, 2, 2, 2]),
            [0x4000, 0xFFFD, 0xFFFF, 160]
        );

        // DmSet(void*, UInt32, UInt32, UInt8): the byte in the high half of its slot.
        let set = m.entry(4);
        let seen = RefCell::new(Vec::new());
        let r = m
            .run_at(set, &[0x5000, 7, 9, 0x5A00_0000], &mut |t| {
                record(&seen, t);
                answer(t, 0, 0);
                Ok(())
            })
            .unwrap();
        assert_eq!(
            fields(reported(&seen.into_inner()[0]), &[4, 4, 4, 1]),
            [0x5000, 7, 9, 0x5A]
        );
        assert_eq!(r.d0 & 0xFFFF, 0x0214);

        // MemPtrNew(UInt32) -> MemPtr: the result in both D0 and A0.
        let new = m.entry(2);
        let r = m.run_at(new, &[0x1000], &mut |t| {
            answer(t, 0, 0);
            Ok(())
        });
        let r = r.unwrap();
        assert_eq!((r.a0, r.d0), (0x1100, 0x1100));

        // MemChunkFree(MemPtr) -> Err.
        let free = m.entry(1);
        let seen = RefCell::new(Vec::new());
        let r = m
            .run_at(free, &[0x0001_2346], &mut |t| {
                record(&seen, t);
                answer(t, 0, 0);
                Ok(())
            })
            .unwrap();
        assert_eq!(fields(reported(&seen.into_inner()[0]), &[4]), [0x0001_2346]);
        assert_eq!(r.d0 & 0xFFFF, 0x0105);

        // A raw callback (I16, U16, I8, U8, Ptr): the exact 32-bit slots built.
        let ext = m.entry(7);
        let seen = RefCell::new(Vec::new());
        let r = m
            .run_at(ext, &[0xFFFD_FFEE, 0x80AA_F0BB, 0x0000_9000], &mut |t| {
                record(&seen, t);
                answer(t, 0, 0);
                Ok(())
            })
            .unwrap();
        let slots = [0xFFFF_FFFD, 0x0000_FFEE, 0xFFFF_FF80, 0x0000_00F0, 0x9000];
        assert_eq!(fields(reported(&seen.into_inner()[0]), &[4; 5]), slots);
        assert_eq!(r.d0, slots.iter().fold(0, |a, b| a ^ b));
    });
}

#[test]
fn call_original_by_jsr_with_palm_layout() {
    at_both_bases(|m| {
        let rr = m.entry(0);
        let (r, seen) = m.call("t_chain_release", &[rr, 0x1122_3344, 0xFFEE, 1], 0, 0);
        assert_eq!(seen.len(), 1, "no TRAP #15 for the call itself: {seen:x?}");
        assert_eq!(
            fields(reported(&seen[0]), &[4, 2, 1]),
            [0x1122_3344, 0xFFEE, 1]
        );
        assert_eq!(r.d0, 0xFFEE ^ 0x0F0F);

        let new = m.entry(2);
        let (r, seen) = m.call("t_chain_ptr_new", &[new, 0x2000], 0, 0);
        assert_eq!(fields(reported(&seen[0]), &[4]), [0x2000]);
        assert_eq!(r.d0, 0x2100);

        let draw = m.entry(3);
        let (_, seen) = m.call(
            "t_chain_draw",
            &[draw, 0x4000, -3i32 as u32, -1i32 as u32, 160],
            0,
            0,
        );
        assert_eq!(
            fields(reported(&seen[0]), &[4, 2, 2, 2]),
            [0x4000, 0xFFFD, 0xFFFF, 160]
        );

        // 13 arguments: block-copied by the caller, unpacked by the trampoline.
        let dbi = m.entry(5);
        let (r, seen) = m.call("t_chain_db_info", &[dbi, 0x6000], 0, 0);
        assert_eq!(
            fields(reported(&seen[0]), &[2, 4, 4, 4]),
            [0x0102, 0x0A0B_0C0D, 0x6000, 4]
        );
        assert_eq!(r.d0, 0x0207);
    });
}

#[test]
fn trap_replacement_is_installed_with_its_own_address() {
    at_both_bases(|m| {
        let free = m.entry(1);
        assert_eq!(free, m.base + image().symbol_matching("t_free_entry"));
        let (r, seen) = m.call("t_install_free", &[], 0xFFFF_0000, 0);
        assert_one(
            &seen,
            sysTrapSysSetTrapAddress,
            &bytes(&[be(u32::from(sysTrapMemChunkFree), 2), be(free, 4)]),
        );
        assert_eq!(r.d0, 0);
    });
}

trait SymbolMatching {
    fn symbol_matching(&self, part: &str) -> u32;
}

impl SymbolMatching for Image {
    /// Offset of the one symbol whose (mangled) name contains `part`.
    fn symbol_matching(&self, part: &str) -> u32 {
        let hits: Vec<_> = self
            .symbols
            .iter()
            .filter(|(k, _)| k.contains(part))
            .collect();
        assert_eq!(hits.len(), 1, "{part}: {hits:?}");
        *hits[0].1
    }
}

#[test]
fn form_event_handler_passes_the_event_and_returns_a_boolean() {
    at_both_bases(|m| {
        let handler = m.entry(6);
        let ev = 0x9000;
        let mut event = [0u8; 24];
        event[1] = 9; // ctlSelectEvent
        event[8..10].copy_from_slice(&1001u16.to_be_bytes());
        m.emu.load(ev, &event);
        let mut no_traps = |t: &mut TrapCall<'_>| Err(format!("trap 0x{:04X}", t.trap));
        assert_eq!(m.run_at(handler, &[ev], &mut no_traps).unwrap().d0, 1);
        m.emu.load(ev + 8, &1002u16.to_be_bytes());
        assert_eq!(m.run_at(handler, &[ev], &mut no_traps).unwrap().d0, 0);
        m.emu.load(ev + 8, &1001u16.to_be_bytes());
        m.emu.load(ev, &4u16.to_be_bytes());
        assert_eq!(m.run_at(handler, &[ev], &mut no_traps).unwrap().d0, 0);
    });
}

#[test]
fn app_entry_runs_startup_pilot_main_and_exit() {
    at_both_bases(|m| {
        let entry = m.addr("__palm_entry");
        let info = 0xA000;
        let mut app_info = [0u8; 60];
        app_info[0..2].copy_from_slice(&0x8001u16.to_be_bytes()); // a custom launch code
        app_info[2..6].copy_from_slice(&0x00B0_0000u32.to_be_bytes());
        app_info[6..8].copy_from_slice(&0x0044u16.to_be_bytes());
        m.emu.load(info, &app_info);
        let seen = RefCell::new(Vec::new());
        let r = m
            .run_at(entry, &[], &mut |t| {
                record(&seen, t);
                if t.trap == sysTrapSysAppStartup {
                    let (pp, prev, globals) = (t.arg_long(0), t.arg_long(4), t.arg_long(8));
                    t.ram.set_long(pp, info);
                    t.ram.set_long(prev, 0x1111);
                    t.ram.set_long(globals, 0x2222);
                    answer(t, 0xABCD_0000, 0); // errNone in the low word
                } else {
                    answer(t, 0xFFFF_FFFF, 0xFFFF_FFFF);
                }
                Ok(())
            })
            .unwrap();
        let seen = seen.into_inner();
        let traps: Vec<u16> = seen.iter().map(|s| s.trap).collect();
        assert_eq!(
            traps,
            [sysTrapSysAppStartup, sysTrapHostControl, sysTrapSysAppExit]
        );
        assert_eq!(
            fields(reported(&seen[1]), &[2, 4, 2]),
            [0x8001, 0x00B0_0000, 0x0044]
        );
        assert_trap(
            &seen[2],
            sysTrapSysAppExit,
            &bytes(&[be(info, 4), be(0x1111, 4), be(0x2222, 4)]),
        );
        assert_eq!(r.d0, 0xC0DE_8001);

        // SysAppStartup fails: sndError, −1, no PilotMain and no SysAppExit.
        let seen = RefCell::new(Vec::new());
        let r = m
            .run_at(entry, &[], &mut |t| {
                record(&seen, t);
                answer(t, 0x0000_0502, 0);
                Ok(())
            })
            .unwrap();
        let seen = seen.into_inner();
        assert_eq!(seen.len(), 2);
        assert_trap(&seen[0], sysTrapSysAppStartup, &[]);
        assert_trap(&seen[1], sysTrapSndPlaySystemSound, &byte(3));
        assert_eq!(r.d0, 0xFFFF_FFFF);
    });
}

/// A bump heap for MemPtrNew whose chunks start at addresses ≡ 2 (mod 4), so 4-aligned
/// allocations must take PalmAlloc's over-allocation path. Records (address, size) of
/// every chunk, every MemChunkFree, and answers MemPtrResize with memErrNotEnoughSpace.
#[derive(Default)]
struct BumpHeap {
    next: u32,
    chunks: Vec<(u32, u32)>,
    freed: Vec<u32>,
    resizes: u32,
}

impl BumpHeap {
    fn handle(&mut self, t: &mut TrapCall<'_>) -> Result<(), String> {
        let (d0, a0) = match t.trap {
            x if x == sysTrapMemPtrNew => {
                let size = t.arg_long(0);
                let p = self.next;
                self.next += size.div_ceil(2) * 2 + 4;
                self.chunks.push((p, size));
                (0xFFFF_FFFF, p)
            }
            x if x == sysTrapMemChunkFree => {
                self.freed.push(t.arg_long(0));
                (0xFFFF_0000, 0)
            }
            x if x == sysTrapMemPtrResize => {
                self.resizes += 1;
                (0xFFFF_0102, 0)
            }
            other => return Err(format!("unexpected trap 0x{other:04X}")),
        };
        answer(t, d0, a0);
        Ok(())
    }

    fn assert_all_freed(&self) {
        let mut allocated: Vec<u32> = self.chunks.iter().map(|c| c.0).collect();
        let mut freed = self.freed.clone();
        allocated.sort_unstable();
        freed.sort_unstable();
        assert_eq!(allocated, freed, "every chunk freed exactly once");
    }
}

#[test]
fn palm_alloc_over_allocates_for_align_4_and_frees_the_chunk_start() {
    at_both_bases(|m| {
        let mut heap = BumpHeap {
            next: 0x0004_0002,
            ..BumpHeap::default()
        };
        let r = m.run("t_alloc_box", &[], &mut |t| heap.handle(t)).unwrap();
        // One chunk of 8 + 4 bytes at 0x40002; the Box at the first 4-aligned address
        // at least 2 bytes in, with the offset (2) stored just below it.
        assert_eq!(heap.chunks, [(0x0004_0002, 12)]);
        assert_eq!(r.d0, 0x0004_0004);
        assert_eq!(m.emu.ram.word(0x0004_0002), 2);
        heap.assert_all_freed();
    });
}

#[test]
fn palm_alloc_grows_a_vec_through_resize_and_copy() {
    at_both_bases(|m| {
        let mut heap = BumpHeap {
            next: 0x0004_0002,
            ..BumpHeap::default()
        };
        let r = m
            .run("t_alloc_vec", &[100], &mut |t| heap.handle(t))
            .unwrap();
        assert_eq!(r.d0, 4950);
        assert!(heap.resizes > 0, "growth tries MemPtrResize first");
        heap.assert_all_freed();
    });
}

#[test]
fn abort_reports_a_fatal_error_and_never_returns() {
    at_both_bases(|m| {
        let seen = RefCell::new(Vec::new());
        let mut texts = Vec::new();
        let err = {
            let emu_ram_reader = |t: &TrapCall<'_>, a: u32| -> String {
                let mut s = Vec::new();
                let mut a = a;
                while t.ram.slice(a, 1)[0] != 0 {
                    s.push(t.ram.slice(a, 1)[0]);
                    a += 1;
                }
                String::from_utf8(s).unwrap()
            };
            m.run("t_abort", &[5], &mut |t| {
                record(&seen, t);
                if t.trap == sysTrapErrDisplayFileLineMsg {
                    texts.push(emu_ram_reader(t, t.arg_long(0)));
                    texts.push(emu_ram_reader(t, t.arg_long(6)));
                    answer(t, 0, 0);
                    Ok(())
                } else if t.trap == sysTrapSysReset {
                    Err("reset".into())
                } else {
                    // The allocation of the empty Vec (capacity 1).
                    answer(t, 0, 0x0005_0000);
                    Ok(())
                }
            })
            .unwrap_err()
        };
        assert!(
            matches!(err, EmuError::Trap { trap, .. } if trap == sysTrapSysReset),
            "{err}"
        );
        let seen = seen.into_inner();
        let fatal = seen
            .iter()
            .find(|s| s.trap == sysTrapErrDisplayFileLineMsg)
            .unwrap();
        assert_eq!(&fatal.args[4..6], &[0, 0], "line 0");
        assert_eq!(texts, ["rust", "Rust panic (abort)"]);
    });
}
