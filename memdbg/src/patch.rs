//! The `MemChunkFree` and `MemHandleFree` patches (PALM_FACTS §3.4).
//!
//! `start` saves the original addresses with `SysGetTrapAddress` and points the two
//! dispatch-table entries, with `SysSetTrapAddress` (each read back), at two small
//! trampolines it writes into a system-owned chunk of the dynamic heap; `stop` puts
//! the exact originals back and reads them back too. A patch is entered with a plain
//! JSR frame (return address at 0(SP), the Palm-layout argument at 4(SP)) from any
//! context: the app, or the OS freeing on the app's behalf (`FrmDeleteForm` freeing a
//! field's text handle). It does the bookkeeping ([`crate::track::freeing`]) and
//! chains to the saved original with JSR, never through `TRAP #15` (which would enter
//! the patch again).
//!
//! Each trampoline (12 bytes) pushes the state chunk's address and jumps to its entry
//! in code 1:
//!
//! ```text
//! move.l #state,-(%sp)   ; 2F3C ssss ssss
//! jmp    entry           ; 4EF9 eeee eeee   (absolute: code 1 is locked while the app runs)
//! ```
//!
//! so the free path finds the state without a Feature Manager call. Code in a chunk
//! is ordinary RAM to the 68000 (no MMU, no caches on DragonBall); the chunk is owned
//! by the system (owner 0) so the OS never frees it, and `stop` frees it after the
//! table is restored. The entries are memdbg's own (not palm-sys's
//! `trap_replacement!`) because the bookkeeping needs the caller's return address
//! (the free's site, and whether the app or the OS freed) and the caller's A6 (to
//! walk its callers). Both arguments are a single pointer: no re-packing is needed.

use core::ffi::c_void;

use m68k_palmos_sys as palm;
use palm::traps::{sysTrapMemChunkFree, sysTrapMemHandleFree};

use core::mem::offset_of;

use crate::record::{AllocRecord, HeaderFlags};
use crate::state::{RING, State};
use crate::track::{self, Freed};
#[cfg(target_arch = "m68k")]
use crate::{
    index::Index,
    record::{AllocFlags, GUARD_BYTE, Options, kind},
    stack::CodeRange,
    state::{Ring, Scratch},
};

/// Bytes of one trampoline.
pub const TRAMPOLINE_LEN: usize = 12;

/// The patches' entry, reached from a trampoline with the state's address (tagged:
/// +1 for `MemHandleFree`) pushed above the JSR frame (stack: tagged state, return
/// address, p or h).
///
/// The common case runs here in 68000 assembly (LLVM's m68k code for it was about
/// twice as long): the detector not busy, no call stacks or fill-on-free wanted, code
/// 1 located, the block in the index, the record a handle's exactly when this is
/// `MemHandleFree`, its guard (if any) intact — a handle's chunk is reached through
/// its master pointer. It then does exactly what [`crate::track::freeing`] does for
/// such a block: `TimGetTicks`, the ring entry (releasing the slot it replaces), the
/// innermost frame, `DmSet` of the record's kind byte, the counters, the
/// backward-shift removal from the index, and the chained original. Anything else
/// changes nothing and takes the general path: `free_body(tagged state, block,
/// return address, caller A6)` in LLVM's convention. Both paths return the `Err` in
/// D0 and preserve D3–D7/A2–A6.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn chunk_free_entry() {
    core::arch::naked_asm!(
        // Stack after this: saved regs (32), state@32, ret@36, p@40.
        "movem.l %d3-%d7/%a2-%a4,-(%sp)",
        "move.l (32,%sp),%d0",
        "and.l #{untag},%d0",
        "move.l %d0,%a2",
        "move.l (40,%sp),%d3",
        "cmpi.b #0,({busy},%a2)",
        "bne 9f",
        "move.l ({opts},%a2),%d0",
        "and.l #{slow_options},%d0",
        "bne 9f",
        "cmpi.l #0,({code_base},%a2)",
        "beq 9f",
        // Index probe from home(p) = ((p >> 2) ^ (p >> 12)) & mask.
        "move.l %d3,%d0",
        "lsr.l #2,%d0",
        "move.l %d3,%d1",
        "moveq #12,%d2",
        "lsr.l %d2,%d1",
        "eor.l %d1,%d0",
        "moveq #0,%d6",
        "move.w ({mask},%a2),%d6",
        "and.l %d6,%d0",
        "move.l ({keys},%a2),%a0",
        "1:",
        "move.l %d0,%d1",
        "lsl.l #2,%d1",
        "move.l (0,%a0,%d1),%d2",
        "cmp.l %d3,%d2",
        "beq 2f",
        "cmpi.l #0,%d2",
        "beq 9f",
        "add.l #1,%d0",
        "and.l %d6,%d0",
        "bra 1b",
        // Found at d0: d5 = pos, d4 = slot, a3 = record.
        "2:",
        "move.l %d0,%d5",
        "move.l ({slots},%a2),%a0",
        "add.l %d0,%d0",
        "moveq #0,%d4",
        "move.w (0,%a0,%d0),%d4",
        "move.l ({slot_rec},%a2),%a0",
        "move.l %d4,%d0",
        "lsl.l #2,%d0",
        "move.l (0,%a0,%d0),%a3",
        // The record is a handle's exactly when this is MemHandleFree (tag bit 0).
        "move.w (2,%a3),%d1",
        "move.w %d1,%d2",
        "lsr.w #{handle_bit},%d2",
        "move.l (32,%sp),%d0",
        "eor.l %d0,%d2",
        "btst #0,%d2",
        "bne 9f",
        "btst #{guarded_bit},%d1",
        "beq 3f",
        "move.l %d3,%a0",
        "btst #{handle_bit},%d1",
        "beq 1f",
        "move.l (%a0),%a0",
        "1:",
        "adda.l (4,%a3),%a0",
        "moveq #0,%d0",
        "move.w (22,%a3),%d0",
        "adda.l %d0,%a0",
        "cmpi.b #{guard_byte},(%a0)",
        "bne 9f",
        "cmpi.b #{guard_byte},(1,%a0)",
        "bne 9f",
        "cmpi.b #{guard_byte},(2,%a0)",
        "bne 9f",
        "cmpi.b #{guard_byte},(3,%a0)",
        "bne 9f",
        // Committed: from here on the state changes.
        "3:",
        "move.b #1,({busy},%a2)",
        "trap #15",
        ".short {tim_get_ticks}",
        "move.l %d0,%d6",
        // Ring entry i = ring_next (a4 = the ring, d7 = i).
        "move.l ({scratch},%a2),%a4",
        "lea ({ring},%a4),%a4",
        "moveq #0,%d7",
        "move.b ({ring_next},%a2),%d7",
        "move.l %d7,%d0",
        "add.l #1,%d0",
        "and.l #{ring_mask},%d0",
        "move.b %d0,({ring_next},%a2)",
        "move.l %d7,%d0",
        "lsl.l #2,%d0",
        "move.l ({r_addr},%a4,%d0),%d1",
        "move.l %d3,({r_addr},%a4,%d0)",
        "move.l %d6,({r_ticks},%a4,%d0)",
        "move.l %d7,%d0",
        "add.l %d0,%d0",
        "cmpi.l #0,%d1",
        "beq 4f",
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
        "move.b (%a3),({r_kind},%a4,%d7)",
        // The free's site: its return address, inside code 1 or not.
        "move.l %d7,%d0",
        "lsl.l #5,%d0",
        "lea ({r_site},%a4,%d0),%a0",
        "move.b #1,(%a0)",
        "move.l (36,%sp),%d1",
        "move.l ({code_base},%a2),%d0",
        "cmp.l %d0,%d1",
        "bcs 5f",
        "cmp.l ({code_end},%a2),%d1",
        "bcc 5f",
        "sub.l %d0,%d1",
        "move.b #0,(1,%a0)",
        "move.l %d1,(2,%a0)",
        "bra 6f",
        "5:",
        "move.b #1,(1,%a0)",
        "move.l %d1,(2,%a0)",
        "move.l ({os_frees},%a2),%d0",
        "add.l #1,%d0",
        "move.l %d0,({os_frees},%a2)",
        "6:",
        // DmSet(rec, 0, 1, FREE_SLOT): the record's kind byte says "free".
        "move.b #{free_slot},-(%sp)",
        "moveq #1,%d0",
        "move.l %d0,-(%sp)",
        "moveq #0,%d0",
        "move.l %d0,-(%sp)",
        "move.l %a3,-(%sp)",
        "trap #15",
        ".short {dm_set}",
        "lea (14,%sp),%sp",
        // Counters.
        "move.l ({frees},%a2),%d0",
        "add.l #1,%d0",
        "move.l %d0,({frees},%a2)",
        "move.l ({live_count},%a2),%d0",
        "sub.l #1,%d0",
        "move.l %d0,({live_count},%a2)",
        "move.l ({live_bytes},%a2),%d0",
        "sub.l (4,%a3),%d0",
        "move.l %d0,({live_bytes},%a2)",
        "btst #0,(35,%sp)",
        "beq 1f",
        "move.l ({live_handles},%a2),%d0",
        "sub.l #1,%d0",
        "move.l %d0,({live_handles},%a2)",
        "1:",
        // Remove index entry d5 (hole d7), shifting the cluster back: an entry at j
        // with home h moves into the hole when (j - h) & mask >= (j - hole) & mask.
        "move.l ({keys},%a2),%a0",
        "move.l ({slots},%a2),%a1",
        "moveq #0,%d6",
        "move.w ({mask},%a2),%d6",
        "move.l %d5,%d7",
        "move.l %d5,%d2",
        "7:",
        "add.l #1,%d2",
        "and.l %d6,%d2",
        "move.l %d2,%d0",
        "lsl.l #2,%d0",
        "move.l (0,%a0,%d0),%d1",
        "cmpi.l #0,%d1",
        "beq 8f",
        "move.l %d1,%d3",
        "moveq #12,%d4",
        "lsr.l %d4,%d3",
        "move.l %d1,%d0",
        "lsr.l #2,%d0",
        "eor.l %d3,%d0",
        "and.l %d6,%d0",
        "move.l %d2,%d3",
        "sub.l %d0,%d3",
        "and.l %d6,%d3",
        "move.l %d2,%d4",
        "sub.l %d7,%d4",
        "and.l %d6,%d4",
        "cmp.l %d4,%d3",
        "bcs 7b",
        "move.l %d7,%d0",
        "lsl.l #2,%d0",
        "move.l %d1,(0,%a0,%d0)",
        "move.l %d2,%d3",
        "add.l %d3,%d3",
        "move.l %d7,%d4",
        "add.l %d4,%d4",
        "move.w (0,%a1,%d3),(0,%a1,%d4)",
        "move.l %d2,%d7",
        "bra 7b",
        "8:",
        "move.l %d7,%d0",
        "lsl.l #2,%d0",
        "moveq #0,%d1",
        "move.l %d1,(0,%a0,%d0)",
        // Chain to the original with p, then leave.
        "move.l ({orig_chunk_free},%a2),%a0",
        "btst #0,(35,%sp)",
        "beq 1f",
        "move.l ({orig_handle_free},%a2),%a0",
        "1:",
        "move.l (40,%sp),-(%sp)",
        "jsr (%a0)",
        "lea (4,%sp),%sp",
        "move.b #0,({busy},%a2)",
        "movem.l (%sp)+,%d3-%d7/%a2-%a4",
        "lea (4,%sp),%sp",
        "rts",
        // The general path (nothing was changed).
        "9:",
        "movem.l (%sp)+,%d3-%d7/%a2-%a4",
        "move.l %a6,-(%sp)",      // a6 state ret p
        "move.l (8,%sp),-(%sp)",  // ret a6 state ret p
        "move.l (16,%sp),-(%sp)", // p ret a6 state ret p
        "move.l (12,%sp),-(%sp)", // state p ret a6 state ret p
        "bsr.w {body}",
        "lea (20,%sp),%sp", // ret p
        "rts",
        body = sym free_body,
        untag = const !1u32,
        live_handles = const offset_of!(State, live_handles),
        orig_handle_free = const offset_of!(State, orig_handle_free),
        busy = const offset_of!(State, busy),
        opts = const offset_of!(State, options),
        slow_options = const Options::CALL_STACKS.union(Options::FILL_FREED).bits(),
        code_base = const offset_of!(State, code) + offset_of!(CodeRange, base),
        code_end = const offset_of!(State, code) + offset_of!(CodeRange, end),
        mask = const offset_of!(State, index) + offset_of!(Index, mask),
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
        orig_chunk_free = const offset_of!(State, orig_chunk_free),
        ring = const offset_of!(Scratch, ring),
        r_addr = const offset_of!(Ring, addr),
        r_ticks = const offset_of!(Ring, ticks),
        r_slot = const offset_of!(Ring, slot),
        r_kind = const offset_of!(Ring, kind),
        r_site = const offset_of!(Ring, site),
        ring_mask = const RING - 1,
        handle_bit = const AllocFlags::HANDLE.bits().trailing_zeros(),
        guarded_bit = const AllocFlags::GUARDED.bits().trailing_zeros(),
        guard_byte = const GUARD_BYTE,
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

/// Host stand-in (the patches only exist on the 68k).
#[cfg(not(target_arch = "m68k"))]
unsafe extern "C" fn chunk_free_entry() {
    unimplemented!("memdbg's trap patches run only on Palm OS")
}

/// The bookkeeping of a free and the chained original.
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
#[inline(always)]
fn free_general(st: *mut State, addr: u32, handle: bool, ret: u32, frame: u32) -> palm::Err {
    // SAFETY: `st` is the live state (the trampolines exist only while it does). The
    // originals are written once by `install`, before the patches, and only read
    // afterwards. `busy` is read and written volatile (see `state::enter`): a nested
    // entry goes straight to the original.
    unsafe {
        let orig = if handle {
            (*st).orig_handle_free
        } else {
            (*st).orig_chunk_free
        };
        let busy = core::ptr::addr_of_mut!((*st).busy);
        if busy.read_volatile() != 0 {
            return chain(orig, addr, handle);
        }
        busy.write_volatile(1);
        let r = match track::freeing(&mut *st, addr, handle, ret, frame) {
            Freed::Pass => chain(orig, addr, handle),
            Freed::Refuse => palm::errors::memErrInvalidParam,
        };
        busy.write_volatile(0);
        r
    }
}

/// Calls the original free routine.
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
fn chain(orig: *mut c_void, addr: u32, handle: bool) -> palm::Err {
    // SAFETY: `orig` is what SysGetTrapAddress returned for this trap before it was
    // patched; it takes the same single argument.
    unsafe {
        if handle {
            palm::chain::MemHandleFree(orig, addr as usize as palm::MemHandle)
        } else {
            palm::chain::MemChunkFree(orig, addr as usize as palm::MemPtr)
        }
    }
}

/// The patches' general path (called by [`chunk_free_entry`]): `tagged` is the
/// state's address, plus 1 for `MemHandleFree`.
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
extern "C" fn free_body(tagged: u32, addr: u32, ret: u32, frame: u32) -> palm::Err {
    let st = (tagged & !1) as usize as *mut State;
    free_general(st, addr, tagged & 1 != 0, ret, frame)
}

/// The trampoline the dispatch table points at for one of the traps.
fn entry(st: &State, handle: bool) -> *mut c_void {
    // SAFETY: the trampoline chunk holds two trampolines.
    unsafe {
        st.trampolines
            .add(if handle { TRAMPOLINE_LEN } else { 0 })
            .cast()
    }
}

/// Writes a trampoline at `at` that pushes `state` and jumps to `target`.
///
/// # Safety
/// `at` is [`TRAMPOLINE_LEN`] writable bytes of the dynamic heap, 2-aligned.
unsafe fn write_trampoline(at: *mut u8, state: u32, target: u32) {
    // SAFETY: the caller's guarantee; 16-bit stores at even addresses.
    unsafe {
        let w = at.cast::<u16>();
        w.write(0x2F3C); // move.l #imm,-(%sp)
        w.add(1).write((state >> 16) as u16);
        w.add(2).write(state as u16);
        w.add(3).write(0x4EF9); // jmp abs.l
        w.add(4).write((target >> 16) as u16);
        w.add(5).write(target as u16);
    }
}

fn trap(handle: bool) -> u16 {
    if handle {
        sysTrapMemHandleFree
    } else {
        sysTrapMemChunkFree
    }
}

/// Points `trap` at `to` and reads it back.
fn set(trap: u16, to: *mut c_void) -> bool {
    // SAFETY: plain System Manager calls.
    unsafe {
        palm::SysSetTrapAddress(trap, to) == palm::errNone && palm::SysGetTrapAddress(trap) == to
    }
}

/// Saves the originals, writes the trampolines into `st.trampolines` (allocated by
/// `start`) and installs both patches, or none: a refusal (Palm OS 5, PumpkinOS)
/// undoes the first and sets [`HeaderFlags::PATCHES_REFUSED`].
pub fn install(st: &mut State) {
    let state = st as *mut State as u32;
    // SAFETY: two trampolines fit in the chunk `start` allocated for them.
    unsafe {
        write_trampoline(
            entry(st, false).cast(),
            state,
            chunk_free_entry as *const () as u32,
        );
        write_trampoline(
            entry(st, true).cast(),
            state | 1,
            chunk_free_entry as *const () as u32,
        );
    }
    // SAFETY: plain System Manager calls.
    unsafe {
        st.orig_chunk_free = palm::SysGetTrapAddress(sysTrapMemChunkFree);
        st.orig_handle_free = palm::SysGetTrapAddress(sysTrapMemHandleFree);
    }
    if set(trap(false), entry(st, false)) {
        if set(trap(true), entry(st, true)) {
            st.patched = 1;
            return;
        }
        set(trap(false), st.orig_chunk_free);
    }
    // A refused set may still have changed an entry: put the originals back.
    put_back(st, false);
    put_back(st, true);
    st.flag(HeaderFlags::PATCHES_REFUSED);
}

fn original(st: &State, handle: bool) -> *mut c_void {
    if handle {
        st.orig_handle_free
    } else {
        st.orig_chunk_free
    }
}

fn put_back(st: &State, handle: bool) {
    let orig = original(st, handle);
    // SAFETY: plain System Manager call.
    if unsafe { palm::SysGetTrapAddress(trap(handle)) } != orig {
        set(trap(handle), orig);
    }
}

/// Restores the exact original addresses (read back). If an entry no longer held our
/// patch, someone patched over it: the original is restored anyway and
/// [`HeaderFlags::TRAPS_DISTURBED`] is set.
pub fn remove(st: &mut State) {
    if st.patched == 0 {
        return;
    }
    restore(st, false);
    restore(st, true);
    st.patched = 0;
}

fn restore(st: &mut State, handle: bool) {
    // SAFETY: plain System Manager call.
    let now = unsafe { palm::SysGetTrapAddress(trap(handle)) };
    if now != entry(st, handle) || !set(trap(handle), original(st, handle)) {
        st.flag(HeaderFlags::TRAPS_DISTURBED);
    }
}
