//! The trap patches (PALM_FACTS §3.4): `MemChunkFree` and `MemHandleFree` (with
//! [`Options::PATCH_FREES`]) so that every free is matched, and `MemPtrSize`,
//! `MemHandleSize`, `MemPtrResize` and `MemHandleResize` (with [`Options::GUARDS`]) so
//! that the guard bytes are invisible: a tracked guarded block's size is the size
//! asked for (not the chunk's, which includes the guard), and a resize done by
//! anyone (the Field Manager growing a field's text handle, the app calling the trap
//! directly) moves the guard and updates the record as the resize wrappers do.
//!
//! `start` saves the original addresses with `SysGetTrapAddress` and points the
//! dispatch-table entries, with `SysSetTrapAddress` (each read back), at small
//! trampolines it writes into a system-owned chunk of the dynamic heap; `stop` puts
//! the exact originals back and reads them back too. All wanted patches are
//! installed, or none ([`HeaderFlags::PATCHES_REFUSED`]). A patch is entered with a
//! plain JSR frame (return address at 0(SP), the Palm-layout arguments from 4(SP))
//! from any context: the app, or the OS working on the app's behalf (`FrmDeleteForm`
//! freeing a field's text handle). It does the bookkeeping ([`crate::track`]) and
//! chains to the saved original with JSR, never through `TRAP #15` (which would enter
//! the patch again). A patch entered while the detector is busy (its own Data
//! Manager calls, a wrapper's resize) goes straight to the original.
//!
//! Each trampoline (12 bytes) pushes the state chunk's address (+1 for the handle
//! form of a trap) and jumps to its entry in code 1:
//!
//! ```text
//! move.l #state,-(%sp)   ; 2F3C ssss ssss
//! jmp    entry           ; 4EF9 eeee eeee   (absolute: code 1 is locked while the app runs)
//! ```
//!
//! so the patches find the state without a Feature Manager call. Code in a chunk
//! is ordinary RAM to the 68000 (no MMU, no caches on DragonBall); the chunk is owned
//! by the system (owner 0) so the OS never frees it, and `stop` frees it after the
//! table is restored. The entries are memdbg's own (not palm-sys's
//! `trap_replacement!`) because the bookkeeping needs the caller's return address
//! (the free's site, and whether the app or the OS freed) and the caller's A6 (to
//! walk its callers). Every argument is a pointer or a `UInt32`: the Palm layout
//! and LLVM's agree, no re-packing is needed.

use core::ffi::c_void;
#[cfg(not(target_arch = "m68k"))]
use core::ptr::addr_of;

use m68k_palmos_sys as palm;
use palm::traps::{
    sysTrapMemChunkFree, sysTrapMemHandleFree, sysTrapMemHandleResize, sysTrapMemHandleSize,
    sysTrapMemPtrResize, sysTrapMemPtrSize,
};

use core::mem::offset_of;

use crate::record::{AllocRecord, HeaderFlags, Options};
use crate::state::{PATCHED_FREES, PATCHED_SIZES, RING, State};
use crate::track::{self, Freed};
#[cfg(target_arch = "m68k")]
use crate::{
    index::Index,
    record::{AllocFlags, GUARD_BYTE, kind},
    stack::CodeRange,
    state::{Ring, Scratch},
};

/// Bytes of one trampoline.
pub const TRAMPOLINE_LEN: usize = 12;

/// The free patches' entry, reached from a trampoline with the state's address
/// (tagged: +1 for `MemHandleFree`) pushed above the JSR frame (stack: tagged state,
/// return address, p or h). A free entered while the detector is busy (its own Data
/// Manager calls' frees) jumps straight to the original, the tagged state popped, so
/// that the original returns to the caller. Else the detector is marked busy, the
/// bookkeeping is [`free_block`] (also the wrappers', [`track::freeing`]), and
/// unless it refuses (a double free: `memErrInvalidParam`, the OS never sees it) the
/// original frees the block; the busy mark is cleared and the `Err` returned in D0.
/// Uses D0–D1/A0–A1 only (a Palm caller expects D3–D7/A2–A6 kept, D2 may go).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn chunk_free_entry() {
    core::arch::naked_asm!(
        // Stack: tagged state@0, ret@4, p@8. A0 = the state, A1 = the original
        // (MemHandleFree's with tag 1).
        "moveq #{untag},%d0",
        "and.l (%sp),%d0",
        "move.l %d0,%a0",
        "move.l ({orig_chunk_free},%a0),%a1",
        "btst #0,(3,%sp)",
        bs!(beq "1f"),
        "move.l ({orig_handle_free},%a0),%a1",
        "1:",
        ".short 0x4A10", // tst.b (%a0): busy
        bs!(bne "4f"),
        "move.b #1,(%a0)",
        // free_block(original (kept), frame, state, tagged, ret, p).
        "move.l %a0,-(%sp)",
        "move.l %a6,-(%sp)",
        "move.l %a1,-(%sp)",
        "bsr.w {block}",
        // (Neither the pop nor the addq changes the flags: free_block's Z, clear
        // for Freed::Refuse.)
        "move.l (%sp)+,%a1",
        ".short 0x588F", // addq.l #4,%sp: the frame (stack: state, tagged, ret, p)
        bs!(bne "2f"),
        "move.l (12,%sp),-(%sp)",
        "jsr (%a1)",
        ".short 0x588F", // addq.l #4,%sp
        "3:",
        "move.l (%sp)+,%a0",
        ".short 0x4210", // clr.b (%a0): busy
        ".short 0x588F", // addq.l #4,%sp: the tagged state
        "rts",
        "2:",
        // (D0 was Freed::Refuse, 1: its high word is 0.)
        "move.w #{refused},%d0",
        bs!(bra "3b"),
        "4:",
        ".short 0x588F", // addq.l #4,%sp: the tagged state (the original returns)
        "jmp (%a1)",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        block = sym free_block,
        untag = const !1i32,
        refused = const palm::errors::memErrInvalidParam,
        orig_chunk_free = const offset_of!(State, orig_chunk_free),
        orig_handle_free = const offset_of!(State, orig_handle_free),
    )
}

/// The bookkeeping of a free of `addr` by the app or the OS (the free patches' and
/// the wrappers' ([`track::freeing`]), with the state entered): `tagged` is `st`'s
/// address, +1 for `MemHandleFree`; `ret` the free call's return address, `frame`
/// the caller's frame; `_keep` is not read (the free patch keeps its original
/// there, [`chunk_free_entry`]). Returns whether to pass the free on to the OS.
/// Preserves D2–D7/A2–A6 (LLVM's convention).
///
/// A block in the index is freed here in 68000 assembly (LLVM's m68k code for it was
/// about twice as long), as `track::free_tracked` does it on the host:
/// `TimGetTicks`, the ring entry (releasing the slot it replaces), the free's site
/// (its innermost frame, or with [`Options::CALL_STACKS`] the walk of
/// [`track::capture`]), the guard check ([`track::check_guard`] reports a damaged
/// one), the fill with [`Options::FILL_FREED`] ([`track::prepare`]), `DmSet` of the
/// record's kind byte, the counters, and the backward-shift removal from the index.
/// An address not in the index is checked here too (as `track::not_indexed` does
/// it on the host): a double free ([`track::double_free`] reports it), a locked
/// handle's pointer (its handle is freed), or a block never tracked (counted). Every
/// path ends with the result's `moveq`, so Z is set exactly for `Freed::Pass`
/// ([`chunk_free_entry`] branches on it).
///
/// Index positions are kept multiplied by 4 (a key's byte offset; the mask too), so
/// a probe reads its key without scaling. Branches are short ones written with
/// `bs!`; `tst`, `clr`, `addq`, `subq` and `pea` are written as their opcode words
/// (LLVM's asm parser rejects them; each is named in a comment).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) unsafe extern "C" fn free_block(
    _keep: u32,
    frame: u32,
    st: *mut State,
    tagged: u32,
    ret: u32,
    addr: u32,
) -> Freed {
    core::arch::naked_asm!(
        // Stack after this: saved regs (36), keep@40, frame@44, st@48, tagged@52,
        // ret@56, addr@60.
        "movem.l %d2-%d7/%a2-%a4,-(%sp)",
        "move.l (48,%sp),%a2",
        "move.l (60,%sp),%d3",
        "17:",
        "lea ({index},%a2),%a0",
        "move.l %d3,%d0",
        "bsr.w {probe}",
        bs!(beq "2f"),
        ".short 0x6000", // bra.w 10f (the displacement from this word)
        ".short 10f-.",
        // Found at d0: d5 = position × 4, d4 = slot, a3 = record; the probe left
        // d1 = mask × 4 (d6, for the removal).
        "2:",
        "move.l %d1,%d6",
        "move.l %d0,%d5",
        "move.l ({slots},%a2),%a0",
        "lsr.l #1,%d0",
        "moveq #0,%d4",
        "move.w (0,%a0,%d0),%d4",
        "move.l ({slot_rec},%a2),%a0",
        "move.l %d4,%d0",
        "lsl.l #2,%d0",
        "move.l (0,%a0,%d0),%a3",
        "trap #15",
        ".short {tim_get_ticks}",
        "move.l %d0,%d7",
        // Ring entry i = ring_next (a4 = the ring, d2 = i; d7 = the ticks).
        "move.l ({scratch},%a2),%a4",
        "lea ({ring},%a4),%a4",
        "moveq #0,%d2",
        "move.b ({ring_next},%a2),%d2",
        ".short 0x522A, {ring_next}", // addq.b #1,(ring_next,%a2)
        "and.b #{ring_mask},({ring_next},%a2)",
        "move.l %d2,%d0",
        "lsl.l #2,%d0",
        "move.l ({r_addr},%a4,%d0),%d1",
        "move.l %d3,({r_addr},%a4,%d0)",
        "move.l %d7,({r_ticks},%a4,%d0)",
        "lsr.l #1,%d0",
        ".short 0x4A81", // tst.l %d1
        bs!(beq "4f"),
        // The entry's old slot goes back on the free list.
        "moveq #0,%d1",
        "move.w ({r_slot},%a4,%d0),%d1",
        "move.l ({slot_next},%a2),%a0",
        "add.l %d1,%d1",
        "move.w ({free_head},%a2),(0,%a0,%d1)",
        "lsr.l #1,%d1",
        "move.w %d1,({free_head},%a2)",
        "4:",
        "move.w %d4,({r_slot},%a4,%d0)",
        "move.b (%a3),({r_kind},%a4,%d2)",
        // The free's site (a4 from here): its return address, inside code 1 or not;
        // outside (with code 1 known) it is the OS's free.
        "lsl.l #5,%d2",
        "lea ({r_site},%a4,%d2),%a4",
        // One frame (count 1), raw until found inside code 1 (raw_mask 1).
        "move.w #0x0101,(%a4)",
        "move.l (56,%sp),%d1",
        "move.l ({code_base},%a2),%d0",
        "cmp.l %d0,%d1",
        bs!(bcs "5f"),
        "cmp.l ({code_end},%a2),%d1",
        bs!(bcc "5f"),
        "sub.l %d0,%d1",
        ".short 0x422C, 1", // clr.b (1,%a4): not raw
        bs!(bra "6f"),
        "5:",
        ".short 0x4A80", // tst.l %d0: code 1 unknown, the app's
        bs!(beq "6f"),
        ".short 0x52AA, {os_frees}", // addq.l #1,(os_frees,%a2)
        "6:",
        "move.l %d1,(2,%a4)",
        // With call stacks: capture(st, site, ret, frame), the whole walk.
        "btst #{cs_bit},({cs_byte},%a2)",
        bs!(beq "1f"),
        "move.l (44,%sp),-(%sp)",
        "move.l (60,%sp),-(%sp)",
        "move.l %a4,-(%sp)",
        "move.l %a2,-(%sp)",
        "bsr.w {capture}",
        "lea (16,%sp),%sp",
        "1:",
        // The guard (a handle's chunk through its master pointer); a damaged one
        // is check_guard(st, rec, key, AT_FREE, ticks, site)'s.
        "move.w (2,%a3),%d1",
        "btst #{guarded_bit},%d1",
        bs!(beq "3f"),
        "move.l %d3,%a0",
        "btst #{handle_bit},%d1",
        bs!(beq "1f"),
        "move.l (%a0),%a0",
        "1:",
        "adda.l (4,%a3),%a0",
        "moveq #0,%d0",
        "move.w (22,%a3),%d0",
        "adda.l %d0,%a0",
        "moveq #{guard_byte},%d1",
        ".short 0xB218", // cmp.b (%a0)+,%d1
        bs!(bne "1f"),
        ".short 0xB218", // cmp.b (%a0)+,%d1
        bs!(bne "1f"),
        ".short 0xB218", // cmp.b (%a0)+,%d1
        bs!(bne "1f"),
        ".short 0xB210", // cmp.b (%a0),%d1
        bs!(beq "3f"),
        "1:",
        "move.l %a4,-(%sp)",
        "move.l %d7,-(%sp)",
        ".short 0x4878, {at_free}", // pea (AT_FREE).w
        "move.l %d3,-(%sp)",
        "move.l %a3,-(%sp)",
        "move.l %a2,-(%sp)",
        "bsr.w {check_guard}",
        "lea (24,%sp),%sp",
        "3:",
        // With fill-on-free: prepare(key, flags without GUARDED, off, off + size,
        // FILL_FREED_BYTE) (the flags read now: check_guard may have added OVERRUN).
        "btst #{ff_bit},({ff_byte},%a2)",
        bs!(beq "1f"),
        ".short 0x4878, {fill}", // pea (FILL_FREED_BYTE).w
        "moveq #0,%d0",
        "move.w (22,%a3),%d0",
        "move.l (4,%a3),%d1",
        "add.l %d0,%d1",
        "move.l %d1,-(%sp)",
        "move.l %d0,-(%sp)",
        "moveq #0,%d0",
        "move.w (2,%a3),%d0",
        "bclr #{guarded_bit},%d0",
        "move.l %d0,-(%sp)",
        "move.l %d3,-(%sp)",
        "bsr.w {prepare}",
        "lea (20,%sp),%sp",
        "1:",
        // DmSet(rec, 0, 1, FREE_SLOT): the record's kind byte says "free".
        "move.b #{free_slot},-(%sp)",
        "moveq #1,%d0",
        "move.l %d0,-(%sp)",
        ".short 0x42A7", // clr.l -(%sp)
        "move.l %a3,-(%sp)",
        "trap #15",
        ".short {dm_set}",
        "lea (14,%sp),%sp",
        // Counters (a handle's by the record's flags).
        ".short 0x52AA, {frees}",      // addq.l #1,(frees,%a2)
        ".short 0x53AA, {live_count}", // subq.l #1,(live_count,%a2)
        "btst #{handle_bit},(3,%a3)",
        bs!(beq "1f"),
        ".short 0x53AA, {live_handles}", // subq.l #1,(live_handles,%a2)
        "1:",
        "move.l (4,%a3),%d0",
        "sub.l %d0,({live_bytes},%a2)",
        // Remove index entry d5 (hole d7), shifting the cluster back: an entry at j
        // (d2) with home h (index::home, as in the probe; d5 = shift) moves into the
        // hole when (j - h) & mask >= (j - hole) & mask (all × 4; d6 = mask × 4).
        "move.l ({keys},%a2),%a0",
        "move.l ({slots},%a2),%a1",
        "move.l %d5,%d7",
        "move.l %d5,%d2",
        "move.w ({shift},%a2),%d5",
        "7:",
        ".short 0x5882", // addq.l #4,%d2
        "and.l %d6,%d2",
        "move.l (0,%a0,%d2),%d1",
        bs!(beq "8f"),
        "move.l %d1,%d0",
        "lsr.l #2,%d0",
        "move.l %d0,%d3",
        ".short 0x4843", // swap %d3
        "add.w %d3,%d0",
        // mulu.w #FIB,%d0 (LLVM's asm parser rejects mulu's immediate form).
        ".short {mulu_imm_d0}, {fib}",
        "lsr.w %d5,%d0",
        "lsl.l #2,%d0",
        "and.l %d6,%d0",
        "move.l %d2,%d3",
        "sub.l %d0,%d3",
        "and.l %d6,%d3",
        "move.l %d2,%d4",
        "sub.l %d7,%d4",
        "and.l %d6,%d4",
        "cmp.l %d4,%d3",
        bs!(bcs "7b"),
        "move.l %d1,(0,%a0,%d7)",
        "move.l %d2,%d3",
        "lsr.l #1,%d3",
        "move.l %d7,%d4",
        "lsr.l #1,%d4",
        "move.w (0,%a1,%d3),(0,%a1,%d4)",
        "move.l %d2,%d7",
        bs!(bra "7b"),
        "8:",
        ".short 0x42B0, 0x7800", // clr.l (0,%a0,%d7.l)
        "moveq #0,%d0", // Freed::Pass
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "rts",
        // Not in the index (d3 the address): a NULL or odd address is unknown.
        "10:",
        ".short 0x4A83", // tst.l %d3
        bs!(beq "20f"),
        "btst #0,%d3",
        bs!(beq "16f"),
        // Never tracked: counted (by the OS when called from outside a known code 1).
        "20:",
        "moveq #{os_unknown},%d0",
        "move.l (56,%sp),%d1",
        "move.l ({code_base},%a2),%d2",
        bs!(beq "21f"),
        "sub.l %d2,%d1",
        "move.l ({code_end},%a2),%d4",
        "sub.l %d2,%d4",
        "cmp.l %d4,%d1",
        bs!(bcc "22f"),
        "21:",
        "moveq #{unknown},%d0",
        "22:",
        "move.l ({scratch},%a2),%a0",
        "lea ({counters},%a0),%a0",
        ".short 0x52B0, 0x0800", // addq.l #1,(0,%a0,%d0.l)
        "moveq #0,%d0", // Freed::Pass
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "rts",
        // lookup(st, addr, handle): a locked handle's pointer frees its handle (the
        // record's address field is the key).
        "15:",
        "moveq #1,%d0",
        "and.l (52,%sp),%d0",
        "move.l %d0,-(%sp)",
        "move.l %d3,-(%sp)",
        "move.l %a2,-(%sp)",
        "bsr.w {lookup}",
        "lea (12,%sp),%sp",
        ".short 0x4A80", // tst.l %d0
        bs!(beq "20b"),
        "move.l ({r_address},%a0),%d3",
        ".short 0x6000", // bra.w 17b (the displacement from this word)
        ".short 17b-.",
        // A double free: in the ring (newest first: i in d2, a4 the ring) and still
        // free (track::still_free's test).
        "16:",
        "move.l ({scratch},%a2),%a4",
        "lea ({ring},%a4),%a4",
        "moveq #0,%d2",
        "move.b ({ring_next},%a2),%d2",
        "moveq #{ring_mask},%d4",
        "11:",
        ".short 0x5302", // subq.b #1,%d2
        "and.b #{ring_mask},%d2",
        "move.l %d2,%d0",
        "lsl.l #2,%d0",
        "cmp.l ({r_addr},%a4,%d0),%d3",
        ".short 0x57CC", // dbeq %d4,11b
        ".short 11b-.",
        bs!(bne "15b"),
        "move.l %d3,%a0",
        "btst #0,(55,%sp)",
        bs!(bne "12f"),
        // A pointer: its chunk header's free bit (bit 31 of word 0).
        "btst #7,(-8,%a0)",
        bs!(bne "14f"),
        bs!(bra "15b"),
        // A handle: still free unless its master pointer leads to a live chunk
        // whose hOffset (× 2, sign-extended) points back at it.
        "12:",
        "move.l (%a0),%d0",
        bs!(beq "14f"),
        "btst #0,%d0",
        bs!(bne "14f"),
        "move.l %d0,%a1",
        "lea (-8,%a1),%a1",
        "btst #7,(%a1)",
        bs!(bne "14f"),
        "move.l (4,%a1),%d1",
        "lsl.l #8,%d1",
        "asr.l #7,%d1",
        "move.l %a1,%d0",
        "sub.l %d1,%d0",
        "cmp.l %d3,%d0",
        bs!(beq "15b"),
        // double_free(st, i, ret, frame), refused.
        "14:",
        "move.l (44,%sp),-(%sp)",
        "move.l (60,%sp),-(%sp)",
        "move.l %d2,-(%sp)",
        "move.l %a2,-(%sp)",
        "bsr.w {double_free}",
        "lea (16,%sp),%sp",
        "moveq #1,%d0", // Freed::Refuse
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        probe = sym crate::index::probe,
        double_free = sym track::double_free,
        lookup = sym track::lookup,
        r_address = const offset_of!(AllocRecord, address),
        counters = const offset_of!(Scratch, header) + offset_of!(crate::record::Header, counters),
        unknown = const offset_of!(crate::record::Counters, unknown_frees),
        os_unknown = const offset_of!(crate::record::Counters, os_unknown_frees),
        capture = sym track::capture,
        check_guard = sym track::check_guard,
        prepare = sym track::prepare,
        index = const offset_of!(State, index),
        live_handles = const offset_of!(State, live_handles),
        code_base = const offset_of!(State, code) + offset_of!(CodeRange, base),
        code_end = const offset_of!(State, code) + offset_of!(CodeRange, end),
        cs_byte = const crate::state::flag_byte(offset_of!(State, options), Options::CALL_STACKS.bits()),
        cs_bit = const crate::state::flag_bit(Options::CALL_STACKS.bits()),
        ff_byte = const crate::state::flag_byte(offset_of!(State, options), Options::FILL_FREED.bits()),
        ff_bit = const crate::state::flag_bit(Options::FILL_FREED.bits()),
        shift = const offset_of!(State, index) + offset_of!(Index, shift),
        fib = const crate::index::FIB,
        mulu_imm_d0 = const crate::index::MULU_IMM_D0,
        keys = const offset_of!(State, index) + offset_of!(Index, keys),
        slots = const offset_of!(State, index) + offset_of!(Index, slots),
        slot_rec = const offset_of!(State, slot_rec),
        slot_next = const offset_of!(State, slot_next),
        free_head = const offset_of!(State, free_head),
        ring_next = const offset_of!(State, ring_next),
        scratch = const offset_of!(State, scratch),
        frees = const offset_of!(State, frees),
        os_frees = const offset_of!(State, os_frees),
        live_count = const offset_of!(State, live_count),
        live_bytes = const offset_of!(State, live_bytes),
        ring = const offset_of!(Scratch, ring),
        r_addr = const offset_of!(Ring, addr),
        r_ticks = const offset_of!(Ring, ticks),
        r_slot = const offset_of!(Ring, slot),
        r_kind = const offset_of!(Ring, kind),
        r_site = const offset_of!(Ring, site),
        ring_mask = const RING - 1,
        handle_bit = const AllocFlags::HANDLE.bits().trailing_zeros(),
        guarded_bit = const AllocFlags::GUARDED.bits().trailing_zeros(),
        guard_byte = const GUARD_BYTE as i8,
        at_free = const crate::record::detected::AT_FREE,
        fill = const crate::record::FILL_FREED_BYTE,
        free_slot = const kind::FREE_SLOT,
        tim_get_ticks = const palm::traps::sysTrapTimGetTicks,
        dm_set = const palm::traps::sysTrapDmSet,
    )
}

// The assembly above addresses the ring's arrays with 8-bit displacements and reads
// the record layout directly.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(offset_of!(Ring, site) < 128);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(offset_of!(Scratch, ring) < 0x8000);
static_assertions::const_assert_eq!(offset_of!(AllocRecord, flags), 2);
static_assertions::const_assert_eq!(offset_of!(AllocRecord, size), 4);
static_assertions::const_assert_eq!(offset_of!(AllocRecord, data_offset), 22);
static_assertions::const_assert_eq!(RING, 8);
// `busy` is reached as `(%a0)`; the HANDLE flag is tested in the flags' low byte.
static_assertions::const_assert_eq!(offset_of!(State, busy), 0);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(AllocFlags::HANDLE.bits() < 256);

/// Host stand-in (the patches only exist on the 68k).
#[cfg(not(target_arch = "m68k"))]
unsafe extern "C" fn chunk_free_entry() {
    unimplemented!("memdbg's trap patches run only on Palm OS")
}

/// Host stand-in for the 68k's [`free_block`] (same effect).
///
/// # Safety
/// As on the 68k: `st` is the entered state.
#[cfg(not(target_arch = "m68k"))]
pub(crate) unsafe extern "C" fn free_block(
    _keep: u32,
    frame: u32,
    st: *mut State,
    tagged: u32,
    ret: u32,
    addr: u32,
) -> Freed {
    // SAFETY: the caller's guarantee.
    let s = unsafe { &mut *st };
    let pos = s.index.find(addr);
    if pos == crate::index::NOT_FOUND {
        return track::not_indexed(_keep, frame, s, tagged, ret, addr);
    }
    track::free_tracked(s, pos, addr, ret, frame);
    Freed::Pass
}

/// The size and resize patches' common start, called (`bsr`) by their entries with
/// D1.w = the offset in [`State`] of the pointer form's saved original: A0 becomes
/// the state and A1 the original (the handle form's, which follows it, with tag 1).
/// A call entered while the detector is busy (its own calls, a wrapper's resize)
/// does not come back: this return and the tagged state are popped and the original
/// is jumped to, so that it returns to the caller with its answer. Uses D0–D1/A0–A1.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn patch_start() {
    core::arch::naked_asm!(
        // Stack: this return@0, tagged state@4, ret@8, the trap's arguments@12.
        "moveq #{untag},%d0",
        "and.l (4,%sp),%d0",
        "move.l %d0,%a0",
        "btst #0,(7,%sp)",
        bs!(beq "1f"),
        ".short 0x5881", // addq.l #4,%d1: the handle form's original
        "1:",
        ".short 0x2270, 0x1000", // move.l (0,%a0,%d1.w),%a1
        ".short 0x4A10", // tst.b (%a0): busy
        bs!(bne "2f"),
        "rts",
        "2:",
        ".short 0x508F", // addq.l #8,%sp: this return, the tagged state
        "jmp (%a1)",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        untag = const !1i32,
    )
}

/// The size patches' entry (`MemPtrSize(p)` / `MemHandleSize(h)`, tagged state
/// pushed above the JSR frame by the trampoline): the original's answer, except for
/// a tracked guarded block (also a locked handle's pointer): its requested size
/// ([`track::visible_size`], with the detector busy meanwhile), so that nobody
/// writes over the guard because the chunk is bigger than what was asked for. The
/// result in D0; D3–D7/A2–A6 are preserved ([`patch_start`] and the callees).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn size_entry() {
    core::arch::naked_asm!(
        // Stack: tagged state@0, ret@4, p@8.
        "move.w #{orig},%d1",
        "bsr.w {start}",
        // (Stack: state@0, tagged@4, ret@8, p@12.)
        "move.l %a0,-(%sp)",
        "move.l (12,%sp),-(%sp)",
        "jsr (%a1)",
        ".short 0x588F", // addq.l #4,%sp
        "move.l (%sp),%a0",
        "move.b #1,(%a0)", // busy
        // visible_size(st, p, handle, the OS's size).
        "move.l %d0,-(%sp)",
        "moveq #1,%d0",
        "and.l (8,%sp),%d0",
        "move.l %d0,-(%sp)",
        "move.l (20,%sp),-(%sp)",
        "move.l %a0,-(%sp)",
        "bsr.w {visible}",
        "lea (16,%sp),%sp",
        "move.l (%sp)+,%a0",
        ".short 0x4210", // clr.b (%a0): busy
        ".short 0x588F", // addq.l #4,%sp: the tagged state
        "rts",
        start = sym patch_start,
        visible = sym track::visible_size,
        orig = const offset_of!(State, orig_ptr_size),
    )
}

/// The resize patches' entry (`MemPtrResize(p, size)` / `MemHandleResize(h, size)`,
/// tagged state pushed above the JSR frame): with the detector busy,
/// [`track::resize`] (a tracked block is resized exactly as the resize wrappers do
/// it: guard checked, room for a new guard, the guard rewritten, the record's size
/// updated; anything else goes to the original), the caller's A6 its frame. The
/// `Err` in D0; D3–D7/A2–A6 are preserved.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn resize_entry() {
    core::arch::naked_asm!(
        // Stack: tagged state@0, ret@4, p@8, size@12.
        "move.w #{orig},%d1",
        "bsr.w {start}",
        "move.b #1,(%a0)", // busy
        // resize(st, p, size, handle, ret, frame), the state kept below.
        "move.l %a0,-(%sp)",
        "move.l %a6,-(%sp)",
        "move.l (12,%sp),-(%sp)",
        "moveq #1,%d0",
        "and.l (12,%sp),%d0",
        "move.l %d0,-(%sp)",
        "move.l (28,%sp),-(%sp)",
        "move.l (28,%sp),-(%sp)",
        "move.l %a0,-(%sp)",
        "bsr.w {resize}",
        "lea (24,%sp),%sp",
        "move.l (%sp)+,%a0",
        ".short 0x4210", // clr.b (%a0): busy
        ".short 0x588F", // addq.l #4,%sp: the tagged state
        "rts",
        start = sym patch_start,
        resize = sym track::resize,
        orig = const offset_of!(State, orig_ptr_resize),
    )
}
// The originals' offsets are word indices.
static_assertions::const_assert!(offset_of!(State, orig_handle_resize) < 0x8000);

/// Host stand-ins (the patches only exist on the 68k).
#[cfg(not(target_arch = "m68k"))]
unsafe extern "C" fn size_entry() {
    unimplemented!("memdbg's trap patches run only on Palm OS")
}
#[cfg(not(target_arch = "m68k"))]
unsafe extern "C" fn resize_entry() {
    unimplemented!("memdbg's trap patches run only on Palm OS")
}

/// `MemPtrResize`/`MemHandleResize` through the saved original (the resize traps
/// are patched): the host's `track::os_resize` (the 68k's is assembly).
#[cfg(not(target_arch = "m68k"))]
pub fn chain_resize(st: &State, addr: u32, size: u32, handle: bool) -> palm::Err {
    // SAFETY: the originals take the arguments the patched trap got (two 4-byte
    // arguments, an `Err` back, for both: one call serves both).
    unsafe {
        let orig = pick(addr_of!(st.orig_ptr_resize), handle);
        palm::chain::MemPtrResize(orig, addr as usize as palm::MemPtr, size)
    }
}

/// The saved original of a trap pair's pointer form at `first`, or with `handle` the
/// handle form's, which follows it in [`State`].
///
/// # Safety
/// `first` is `orig_chunk_free`, `orig_ptr_size` or `orig_ptr_resize` of a live
/// state.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
unsafe fn pick(first: *const *mut c_void, handle: bool) -> *mut c_void {
    // SAFETY: the caller's guarantee; the pairs are adjacent (asserted below).
    unsafe { *first.add(usize::from(handle)) }
}
static_assertions::const_assert_eq!(
    offset_of!(State, orig_handle_free),
    offset_of!(State, orig_chunk_free) + core::mem::size_of::<*mut c_void>()
);
static_assertions::const_assert_eq!(
    offset_of!(State, orig_handle_size),
    offset_of!(State, orig_ptr_size) + core::mem::size_of::<*mut c_void>()
);
static_assertions::const_assert_eq!(
    offset_of!(State, orig_handle_resize),
    offset_of!(State, orig_ptr_resize) + core::mem::size_of::<*mut c_void>()
);

/// Trampolines (and patched traps): `MemChunkFree`, `MemHandleFree`, `MemPtrSize`,
/// `MemHandleSize`, `MemPtrResize`, `MemHandleResize`, in this order (trap `i`'s
/// handle form is `i | 1`).
pub const TRAMPOLINES: usize = 6;

/// One patched trap, in [`PATCHES`] (read by the assembly below: 4 bytes each).
#[repr(C)]
struct Patch {
    /// The trap's number.
    trap: u16,
    /// Where its saved original is in [`State`] (a byte offset).
    orig: u8,
    /// Its [`State::patched`] group bit.
    group: u8,
}

/// The patched traps, in trampoline order (constant data, no pointers).
static PATCHES: [Patch; TRAMPOLINES] = [
    patch(
        sysTrapMemChunkFree,
        offset_of!(State, orig_chunk_free),
        PATCHED_FREES,
    ),
    patch(
        sysTrapMemHandleFree,
        offset_of!(State, orig_handle_free),
        PATCHED_FREES,
    ),
    patch(
        sysTrapMemPtrSize,
        offset_of!(State, orig_ptr_size),
        PATCHED_SIZES,
    ),
    patch(
        sysTrapMemHandleSize,
        offset_of!(State, orig_handle_size),
        PATCHED_SIZES,
    ),
    patch(
        sysTrapMemPtrResize,
        offset_of!(State, orig_ptr_resize),
        PATCHED_SIZES,
    ),
    patch(
        sysTrapMemHandleResize,
        offset_of!(State, orig_handle_resize),
        PATCHED_SIZES,
    ),
];
static_assertions::const_assert!(offset_of!(State, orig_handle_resize) < 256);
static_assertions::const_assert_eq!(core::mem::size_of::<Patch>(), 4);

/// A [`PATCHES`] entry.
const fn patch(trap: u16, orig: usize, group: u8) -> Patch {
    Patch {
        trap,
        orig: orig as u8,
        group,
    }
}

/// Saves the originals, writes the trampolines into `st.trampolines` (allocated by
/// `start`) and installs every wanted patch — the free traps with
/// [`Options::PATCH_FREES`], the size and resize traps with [`Options::GUARDS`]
/// (they hide the guard bytes) — or none: a refusal (Palm OS 5, PumpkinOS) puts back
/// what was installed and sets [`HeaderFlags::PATCHES_REFUSED`].
///
/// In 68000 assembly with its helpers [`put_back`] and [`set`] (register routines);
/// `tst`, `addq`, `subq` and `dbra` are written as their opcode words, short branches
/// with `bs!`. Each trampoline pushes the state (+1 in the handle form's) and jumps
/// to its entry, whose address is taken PC-relative (code 1 is locked while the app
/// runs): a table of code addresses would need absolute relocations (TOOLCHAIN.md).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub extern "C" fn install(st: &mut State) {
    core::arch::naked_asm!(
        // Stack after this: saved regs (36), ret@36, st@40. d6 = the groups wanted.
        "movem.l %d2-%d7/%a2-%a4,-(%sp)",
        "move.l (40,%sp),%a2",
        "moveq #0,%d6",
        "btst #{pf_bit},({pf_byte},%a2)",
        bs!(beq "1f"),
        "moveq #{frees},%d6",
        "1:",
        "btst #{g_bit},({g_byte},%a2)",
        bs!(beq "1f"),
        ".short 0x5406", // addq.b #PATCHED_SIZES,%d6
        "1:",
        ".short 0x4A06", // tst.b %d6
        bs!(beq "9f"),
        // The trampolines, by pairs (state, state + 1) for each entry.
        "move.l ({trampolines},%a2),%a0",
        "move.l %a2,%d0",
        "lea ({free},%pc),%a1",
        "bsr.w 5f",
        "lea ({size},%pc),%a1",
        "bsr.w 5f",
        "lea ({resize},%pc),%a1",
        "bsr.w 5f",
        // Every original, in trampoline order.
        "lea ({patches},%pc),%a3",
        "moveq #{last},%d7",
        "2:",
        "move.w (%a3),-(%sp)",
        "trap #15",
        ".short {get}",
        ".short 0x548F", // addq.l #2,%sp
        "moveq #0,%d0",
        "move.b (2,%a3),%d0",
        "move.l %a0,(0,%a2,%d0)",
        ".short 0x588B", // addq.l #4,%a3
        ".short 0x51CF", // dbra %d7,2b
        ".short 2b-.",
        // The wanted ones pointed at their trampolines (a4), each read back.
        "lea ({patches},%pc),%a3",
        "move.l ({trampolines},%a2),%a4",
        "moveq #{last},%d7",
        "3:",
        "move.b (3,%a3),%d0",
        "and.b %d6,%d0",
        bs!(beq "4f"),
        "move.w (%a3),%d0",
        "move.l %a4,%d1",
        "bsr.w {set}",
        ".short 0x4A80", // tst.l %d0
        bs!(bne "8f"),
        "4:",
        ".short 0x588B", // addq.l #4,%a3
        "lea ({tramp_len},%a4),%a4",
        ".short 0x51CF", // dbra %d7,3b
        ".short 3b-.",
        "move.b %d6,({patched},%a2)",
        "9:",
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "rts",
        // Refused (a refused set may still have changed an entry): every original
        // back, and the flag.
        "8:",
        "moveq #0,%d5",
        "bsr.w {put_back}",
        "moveq #{refused},%d0",
        "or.l %d0,({flags},%a2)",
        bs!(bra "9b"),
        // Two trampolines at a0 (advanced past them): push d0 (then d0 + 1), jump
        // to a1. d0 is kept.
        "5:",
        "moveq #1,%d1",
        "6:",
        "move.w #0x2F3C,(%a0)+", // move.l #state,-(%sp)
        "move.l %d0,(%a0)+",
        "move.w #0x4EF9,(%a0)+", // jmp target (absolute)
        "move.l %a1,(%a0)+",
        ".short 0x5280", // addq.l #1,%d0
        ".short 0x51C9", // dbra %d1,6b
        ".short 6b-.",
        ".short 0x5580", // subq.l #2,%d0
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        set = sym set,
        put_back = sym put_back,
        free = sym chunk_free_entry,
        size = sym size_entry,
        resize = sym resize_entry,
        patches = sym PATCHES,
        last = const TRAMPOLINES - 1,
        tramp_len = const TRAMPOLINE_LEN,
        trampolines = const offset_of!(State, trampolines),
        patched = const offset_of!(State, patched),
        flags = const offset_of!(State, flags),
        refused = const HeaderFlags::PATCHES_REFUSED.bits(),
        frees = const PATCHED_FREES,
        pf_byte = const crate::state::flag_byte(offset_of!(State, options), Options::PATCH_FREES.bits()),
        pf_bit = const crate::state::flag_bit(Options::PATCH_FREES.bits()),
        g_byte = const crate::state::flag_byte(offset_of!(State, options), Options::GUARDS.bits()),
        g_bit = const crate::state::flag_bit(Options::GUARDS.bits()),
        get = const palm::traps::sysTrapSysGetTrapAddress,
    )
}
// `addq.b #2` adds PATCHED_SIZES; `moveq` loads the refusal flag.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    PATCHED_SIZES == 2
        && PATCHED_FREES & PATCHED_SIZES == 0
        && HeaderFlags::PATCHES_REFUSED.bits() < 128
);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    HeaderFlags::TRAPS_DISTURBED.bits() < 128 && TRAMPOLINE_LEN < 0x8000
);

/// Puts back the saved originals of the patch groups in D6 (a register routine for
/// [`install`] and [`remove`]; A2 the state). With D5 = 1 (at stop) each entry
/// should hold our trampoline: an entry that does not is left as it is, and it or a
/// set that does not read back makes D4 nonzero. With D5 = 0 (a refused install), an
/// entry is set back unless it holds the original (D4 is then meaningless). Changes
/// D0–D4, D7, A0–A1, A3–A4.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn put_back() {
    core::arch::naked_asm!(
        "moveq #0,%d4",
        "lea ({patches},%pc),%a3",
        "move.l ({trampolines},%a2),%a4",
        "moveq #{last},%d7",
        "1:",
        "move.b (3,%a3),%d0",
        "and.b %d6,%d0",
        bs!(beq "5f"),
        // a0 = the entry now, d1 = the original.
        "move.w (%a3),-(%sp)",
        "trap #15",
        ".short {get}",
        ".short 0x548F", // addq.l #2,%sp
        "moveq #0,%d0",
        "move.b (2,%a3),%d0",
        "move.l (0,%a2,%d0),%d1",
        ".short 0x4A05", // tst.b %d5: ours
        bs!(beq "2f"),
        ".short 0xB1CC", // cmpa.l %a4,%a0
        bs!(beq "3f"),
        "or.l %d5,%d4", // not ours: disturbed
        bs!(bra "5f"),
        "2:",
        ".short 0xB1C1", // cmpa.l %d1,%a0
        bs!(beq "5f"),
        "3:",
        "move.w (%a3),%d0",
        "bsr.w {set}",
        "or.l %d0,%d4",
        "5:",
        ".short 0x588B", // addq.l #4,%a3
        "lea ({tramp_len},%a4),%a4",
        ".short 0x51CF", // dbra %d7,1b
        ".short 1b-.",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        set = sym set,
        patches = sym PATCHES,
        last = const TRAMPOLINES - 1,
        tramp_len = const TRAMPOLINE_LEN,
        trampolines = const offset_of!(State, trampolines),
        get = const palm::traps::sysTrapSysGetTrapAddress,
    )
}

/// Points trap D0.w at D1 and reads it back: D0 becomes 0 when it holds D1, else
/// nonzero (1 when `SysSetTrapAddress` fails). A register routine for [`install`]
/// and [`put_back`]; changes D0–D2/A0–A1 (the traps may).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn set() {
    core::arch::naked_asm!(
        // Kept: to@2, trap@0; then the arguments (to, trap) again.
        "move.l %d1,-(%sp)",
        "move.w %d0,-(%sp)",
        "move.l %d1,-(%sp)",
        "move.w %d0,-(%sp)",
        "trap #15",
        ".short {set_trap}",
        ".short 0x5C8F", // addq.l #6,%sp
        ".short 0x4A40", // tst.w %d0
        bs!(bne "1f"),
        "move.w (%sp),-(%sp)",
        "trap #15",
        ".short {get}",
        ".short 0x548F", // addq.l #2,%sp
        "move.l %a0,%d0",
        "move.l (2,%sp),%d1",
        "eor.l %d1,%d0",
        bs!(bra "2f"),
        "1:",
        "moveq #1,%d0",
        "2:",
        ".short 0x5C8F", // addq.l #6,%sp
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        set_trap = const palm::traps::sysTrapSysSetTrapAddress,
        get = const palm::traps::sysTrapSysGetTrapAddress,
    )
}

/// Restores the exact original addresses (read back). If an entry no longer holds our
/// trampoline, someone patched over it (and may chain to the trampoline): that entry
/// is left as it is and [`HeaderFlags::TRAPS_DISTURBED`] is set (restoring the
/// original would drop their patch; either way their patch must be gone before
/// `stop` frees the trampolines with the state). In assembly on the 68k
/// ([`put_back`]).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub extern "C" fn remove(st: &mut State) {
    core::arch::naked_asm!(
        // Stack after this: saved regs (36), ret@36, st@40.
        "movem.l %d2-%d7/%a2-%a4,-(%sp)",
        "move.l (40,%sp),%a2",
        "moveq #0,%d6",
        "move.b ({patched},%a2),%d6",
        "moveq #1,%d5",
        "bsr.w {put_back}",
        ".short 0x4A84", // tst.l %d4
        bs!(beq "1f"),
        "moveq #{disturbed},%d0",
        "or.l %d0,({flags},%a2)",
        "1:",
        ".short 0x422A, {patched}", // clr.b (patched,%a2)
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        put_back = sym put_back,
        patched = const offset_of!(State, patched),
        flags = const offset_of!(State, flags),
        disturbed = const HeaderFlags::TRAPS_DISTURBED.bits(),
    )
}

/// Trap `i`'s saved original (host).
#[cfg(not(target_arch = "m68k"))]
fn original(st: &mut State, i: usize) -> &mut *mut c_void {
    // SAFETY: PATCHES holds the offsets of State's `*mut c_void` fields.
    unsafe {
        &mut *(st as *mut State)
            .cast::<u8>()
            .add(usize::from(PATCHES[i].orig))
            .cast::<*mut c_void>()
    }
}

/// The trampoline the dispatch table points at for trap `i` (host).
#[cfg(not(target_arch = "m68k"))]
fn entry(st: &State, i: usize) -> *mut c_void {
    // SAFETY: the trampoline chunk holds TRAMPOLINES trampolines.
    unsafe { st.trampolines.add(i * TRAMPOLINE_LEN).cast() }
}

/// Host stand-in for the 68k's [`set`]: points `trap` at `to` and reads it back: 0
/// when it holds `to`, else nonzero.
#[cfg(not(target_arch = "m68k"))]
fn set(trap: u16, to: *mut c_void) -> u32 {
    // SAFETY: plain System Manager calls.
    unsafe {
        if palm::SysSetTrapAddress(trap, to) != palm::errNone {
            return 1;
        }
        palm::SysGetTrapAddress(trap) as u32 ^ to as u32
    }
}

/// Host stand-in for the 68k's [`install`] (same effect).
#[cfg(not(target_arch = "m68k"))]
pub extern "C" fn install(st: &mut State) {
    let mut want = 0;
    if st.has(Options::PATCH_FREES) {
        want |= PATCHED_FREES;
    }
    if st.has(Options::GUARDS) {
        want |= PATCHED_SIZES;
    }
    if want == 0 {
        return;
    }
    let targets = [
        chunk_free_entry as *const (),
        size_entry as *const (),
        resize_entry as *const (),
    ];
    let state = st as *mut State as u32;
    for i in 0..TRAMPOLINES {
        let at = entry(st, i).cast::<u8>();
        // SAFETY: TRAMPOLINES trampolines fit in the chunk `start` allocated; the
        // 68000 stores words and longs at even addresses. Big-endian 2F3C ssss ssss
        // 4EF9 tttt tttt: move.l #state,-(%sp); jmp target.
        unsafe {
            at.cast::<u16>().write(0x2F3C);
            at.add(2).cast::<u32>().write(state + (i as u32 & 1));
            at.add(6).cast::<u16>().write(0x4EF9);
            at.add(8).cast::<u32>().write(targets[i / 2] as u32);
        }
    }
    for (i, p) in PATCHES.iter().enumerate() {
        // SAFETY: plain System Manager call.
        *original(st, i) = unsafe { palm::SysGetTrapAddress(p.trap) };
    }
    for (i, p) in PATCHES.iter().enumerate() {
        if p.group & want != 0 && set(p.trap, entry(st, i)) != 0 {
            put_back(st, want, false);
            st.flag(HeaderFlags::PATCHES_REFUSED);
            return;
        }
    }
    st.patched = want;
}

/// Host stand-in for the 68k's [`put_back`]: puts back the saved originals of the
/// patch groups in `groups`, as described there (`ours` is D5).
#[cfg(not(target_arch = "m68k"))]
fn put_back(st: &mut State, groups: u8, ours: bool) -> u32 {
    let mut disturbed = 0;
    for (i, p) in PATCHES.iter().enumerate() {
        if p.group & groups != 0 {
            // SAFETY: plain System Manager call.
            let now = unsafe { palm::SysGetTrapAddress(p.trap) };
            let orig = *original(st, i);
            let go = if ours {
                now == entry(st, i)
            } else {
                now != orig
            };
            disturbed |= if go {
                set(p.trap, orig)
            } else {
                u32::from(ours)
            };
        }
    }
    disturbed
}

/// Host stand-in for the 68k's [`remove`] (same effect).
#[cfg(not(target_arch = "m68k"))]
pub extern "C" fn remove(st: &mut State) {
    if put_back(st, st.patched, true) != 0 {
        st.flag(HeaderFlags::TRAPS_DISTURBED);
    }
    st.patched = 0;
}
