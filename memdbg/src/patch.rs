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
/// changes nothing and takes the general path: `free_body(tagged state, return
/// address, block)` in LLVM's convention (the arguments the trampoline and the JSR
/// left on the stack). Both paths return the `Err` in
/// D0 and preserve D3–D7/A2–A6.
///
/// Index positions are kept multiplied by 4 (a key's byte offset; the mask too), so
/// a probe reads its key without scaling. Branches are short ones written with
/// `bs!`; `tst`, `clr`, `addq` and `subq` are written as their opcode words (LLVM's
/// asm parser rejects them; each is named in a comment).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn chunk_free_entry() {
    core::arch::naked_asm!(
        // Stack after this: saved regs (32), state@32, ret@36, p@40.
        "movem.l %d3-%d7/%a2-%a4,-(%sp)",
        "moveq #{untag},%d0",
        "and.l (32,%sp),%d0",
        "move.l %d0,%a2",
        "move.l (40,%sp),%d3",
        // A free of NULL is never a tracked block (the index's empty entries hold
        // key 0): the general path counts it as unknown.
        bs!(beq "9f"),
        ".short 0x4A12", // tst.b (%a2): busy
        bs!(bne "9f"),
        "moveq #{slow_options},%d0",
        "and.l ({opts},%a2),%d0",
        bs!(bne "9f"),
        ".short 0x4AAA, {code_base}", // tst.l (code_base,%a2)
        bs!(beq "9f"),
        // Index probe from index::home(p): x = (p >> 2) + (p >> 18) mod 2^16 (the
        // low word of p >> 2 plus its high word), home = ((x * FIB) mod 2^16) >>
        // shift (the and clears the product's high word); d6 = mask × 4, d0 =
        // position × 4.
        "move.l %d3,%d0",
        "lsr.l #2,%d0",
        "move.l %d0,%d1",
        ".short 0x4841", // swap %d1
        "add.w %d1,%d0",
        // mulu.w #FIB,%d0 (LLVM's asm parser rejects mulu's immediate form).
        ".short {mulu_imm_d0}, {fib}",
        "move.w ({shift},%a2),%d1",
        "lsr.w %d1,%d0",
        "moveq #0,%d6",
        "move.w ({mask},%a2),%d6",
        "lsl.l #2,%d6",
        "lsl.l #2,%d0",
        "and.l %d6,%d0",
        "move.l ({keys},%a2),%a0",
        "1:",
        "move.l (0,%a0,%d0),%d2",
        "cmp.l %d3,%d2",
        bs!(beq "2f"),
        ".short 0x4A82", // tst.l %d2
        bs!(beq "9f"),
        ".short 0x5880", // addq.l #4,%d0
        "and.l %d6,%d0",
        bs!(bra "1b"),
        // The general path (nothing was changed).
        "9:",
        "movem.l (%sp)+,%d3-%d7/%a2-%a4",
        // The stack (state ret p) is free_body's arguments.
        "bsr.w {body}",
        ".short 0x588F", // addq.l #4,%sp: the tagged state
        "rts",
        // Found at d0: d5 = position × 4, d4 = slot, a3 = record.
        "2:",
        "move.l %d0,%d5",
        "move.l ({slots},%a2),%a0",
        "lsr.l #1,%d0",
        "moveq #0,%d4",
        "move.w (0,%a0,%d0),%d4",
        "move.l ({slot_rec},%a2),%a0",
        "move.l %d4,%d0",
        "lsl.l #2,%d0",
        "move.l (0,%a0,%d0),%a3",
        // The record is a handle's exactly when this is MemHandleFree (tag bit 0).
        // (The tag, from the tagged state's low byte, moved to the flag's bit.)
        "move.w (2,%a3),%d1",
        "move.b (35,%sp),%d2",
        "lsl.b #{handle_bit},%d2",
        "eor.b %d1,%d2",
        "btst #{handle_bit},%d2",
        bs!(bne "9b"),
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
        "moveq #3,%d0",
        "1:",
        ".short 0xB218",         // cmp.b (%a0)+,%d1
        ".byte 0x56, 0xC8",      // dbne %d0,1b
        ".short 1b-.",
        bs!(bne "9b"),
        // Committed: from here on the state changes.
        "3:",
        "move.b #1,(%a2)", // busy
        "trap #15",
        ".short {tim_get_ticks}",
        "move.l %d0,%d2",
        // Ring entry i = ring_next (a4 = the ring, d7 = i).
        "move.l ({scratch},%a2),%a4",
        "lea ({ring},%a4),%a4",
        "moveq #0,%d7",
        "move.b ({ring_next},%a2),%d7",
        ".short 0x522A, {ring_next}", // addq.b #1,(ring_next,%a2)
        "and.b #{ring_mask},({ring_next},%a2)",
        "move.l %d7,%d0",
        "lsl.l #2,%d0",
        "move.l ({r_addr},%a4,%d0),%d1",
        "move.l %d3,({r_addr},%a4,%d0)",
        "move.l %d2,({r_ticks},%a4,%d0)",
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
        "move.b (%a3),({r_kind},%a4,%d7)",
        // The free's site: its return address, inside code 1 or not.
        "move.l %d7,%d0",
        "lsl.l #5,%d0",
        "lea ({r_site},%a4,%d0),%a0",
        // One frame (count 1), raw until found inside code 1 (raw_mask 1).
        "move.w #0x0101,(%a0)",
        "move.l (36,%sp),%d1",
        "move.l ({code_base},%a2),%d0",
        "cmp.l %d0,%d1",
        bs!(bcs "5f"),
        "cmp.l ({code_end},%a2),%d1",
        bs!(bcc "5f"),
        "sub.l %d0,%d1",
        ".short 0x4228, 1", // clr.b (1,%a0): not raw
        bs!(bra "6f"),
        "5:",
        ".short 0x52AA, {os_frees}", // addq.l #1,(os_frees,%a2)
        "6:",
        "move.l %d1,(2,%a0)",
        // DmSet(rec, 0, 1, FREE_SLOT): the record's kind byte says "free".
        "move.b #{free_slot},-(%sp)",
        "moveq #1,%d0",
        "move.l %d0,-(%sp)",
        ".short 0x42A7", // clr.l -(%sp)
        "move.l %a3,-(%sp)",
        "trap #15",
        ".short {dm_set}",
        "lea (14,%sp),%sp",
        // Counters.
        ".short 0x52AA, {frees}",      // addq.l #1,(frees,%a2)
        ".short 0x53AA, {live_count}", // subq.l #1,(live_count,%a2)
        "btst #0,(35,%sp)",
        bs!(beq "1f"),
        ".short 0x53AA, {live_handles}", // subq.l #1,(live_handles,%a2)
        "1:",
        "move.l (4,%a3),%d0",
        "sub.l %d0,({live_bytes},%a2)",
        // Remove index entry d5 (hole d7), shifting the cluster back: an entry at j
        // (d2) with home h (index::home, as above; d5 = shift) moves into the hole
        // when (j - h) & mask >= (j - hole) & mask (all × 4; d6 is still mask × 4).
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
        // Chain to the original with p, then leave.
        "move.l ({orig_chunk_free},%a2),%a0",
        "btst #0,(35,%sp)",
        bs!(beq "1f"),
        "move.l ({orig_handle_free},%a2),%a0",
        "1:",
        "move.l (40,%sp),-(%sp)",
        "jsr (%a0)",
        ".short 0x588F", // addq.l #4,%sp
        ".short 0x4212", // clr.b (%a2): busy
        "movem.l (%sp)+,%d3-%d7/%a2-%a4",
        ".short 0x588F", // addq.l #4,%sp: the tagged state
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        body = sym free_body,
        untag = const !1i32,
        live_handles = const offset_of!(State, live_handles),
        orig_handle_free = const offset_of!(State, orig_handle_free),
        opts = const offset_of!(State, options),
        slow_options = const Options::CALL_STACKS.union(Options::FILL_FREED).bits(),
        code_base = const offset_of!(State, code) + offset_of!(CodeRange, base),
        code_end = const offset_of!(State, code) + offset_of!(CodeRange, end),
        mask = const offset_of!(State, index) + offset_of!(Index, mask),
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
        guard_byte = const GUARD_BYTE as i8,
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
// `busy` is reached as `(%a2)`.
static_assertions::const_assert_eq!(offset_of!(State, busy), 0);

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
        let orig = pick(addr_of!((*st).orig_chunk_free), handle);
        let busy = core::ptr::addr_of_mut!((*st).busy);
        // One chain for both cases; the chain runs while busy, and `was` written
        // back afterwards is 0 or the mark that was already there.
        let was = busy.read_volatile();
        if was == 0 {
            busy.write_volatile(1);
            if matches!(
                track::freeing(&mut *st, addr, handle, ret, frame),
                Freed::Refuse
            ) {
                busy.write_volatile(0);
                return palm::errors::memErrInvalidParam;
            }
        }
        let r = chain(orig, addr);
        busy.write_volatile(was);
        r
    }
}

/// Calls the original free routine (`MemChunkFree`'s or `MemHandleFree`'s: both take
/// one 4-byte argument and return an `Err`, so one call serves both).
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
fn chain(orig: *mut c_void, addr: u32) -> palm::Err {
    // SAFETY: `orig` is what SysGetTrapAddress returned for this trap before it was
    // patched; it takes the same single argument.
    unsafe { palm::chain::MemChunkFree(orig, addr as usize as palm::MemPtr) }
}

/// The patches' general path (called by [`chunk_free_entry`]): `tagged` is the
/// state's address, plus 1 for `MemHandleFree`; `ret` the free's return address.
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
#[inline(never)]
extern "C" fn free_body(tagged: u32, ret: u32, addr: u32) -> palm::Err {
    let (st, handle) = untag(tagged);
    free_general(st, addr, handle, ret, caller_frame())
}

/// The A6 the patched trap was called with, from a body called by an entry: the
/// trampoline and the entry leave A6 alone, so the body's own `link` saved it at
/// 0 of its frame. Inlined into the (never inlined) bodies only.
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
#[inline(always)]
fn caller_frame() -> u32 {
    #[cfg(target_arch = "m68k")]
    {
        let r: u32;
        // SAFETY: reads the saved A6 at 0 of the calling body's own live frame.
        unsafe {
            // To an address register: MOVEA, which sets no flags.
            core::arch::asm!(
                "move.l (%a6),{0}",
                out(reg_addr) r,
                options(nostack, readonly, preserves_flags)
            );
        }
        r
    }
    #[cfg(not(target_arch = "m68k"))]
    0
}

/// The size and resize patches' entries (the bookkeeping is in Rust: these traps
/// are not on the wrappers' hot path). A trampoline pushed the state's address
/// (tagged: +1 for the handle form) above the JSR frame: the stack is then the
/// body's arguments in LLVM's convention (tagged state, the caller's return
/// address, the trap's arguments), so the entry calls the body, pops the tagged
/// state and returns the body's result in D0. The body reads the caller's A6
/// itself ([`caller_frame`]: where a damaged guard found by a resize was found).
/// D3–D7/A2–A6 are preserved by the body (LLVM's convention keeps D2 too).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn size_entry() {
    core::arch::naked_asm!(
        // Stack: tagged state@0, ret@4, p@8.
        "bsr.w {body}",
        ".short 0x588F", // addq.l #4,%sp: the tagged state
        "rts",
        body = sym size_body,
    )
}

/// See [`size_entry`]: `MemPtrResize(p, newSize)` / `MemHandleResize(h, newSize)`.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn resize_entry() {
    core::arch::naked_asm!(
        // Stack: tagged state@0, ret@4, p@8, size@12.
        "bsr.w {body}",
        ".short 0x588F", // addq.l #4,%sp: the tagged state
        "rts",
        body = sym resize_body,
    )
}

/// Host stand-ins (the patches only exist on the 68k).
#[cfg(not(target_arch = "m68k"))]
unsafe extern "C" fn size_entry() {
    unimplemented!("memdbg's trap patches run only on Palm OS")
}
#[cfg(not(target_arch = "m68k"))]
unsafe extern "C" fn resize_entry() {
    unimplemented!("memdbg's trap patches run only on Palm OS")
}

/// The state of a tagged trampoline value, and whether it is the handle form.
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
#[inline(always)]
fn untag(tagged: u32) -> (*mut State, bool) {
    // The state as `tagged` less the tag, from an opaque copy (LLVM makes
    // `tagged & !1` an and with a 6-byte immediate, beside the tag's own).
    let h = tagged & 1;
    (
        crate::state::near(tagged as usize as *mut u8)
            .wrapping_sub(h as usize)
            .cast::<State>(),
        h != 0,
    )
}

/// `MemPtrSize(p)` / `MemHandleSize(h)` (called by [`size_entry`]): the original's
/// answer, except for a tracked guarded block (also a locked handle's pointer): its
/// requested size, so that nobody writes over the guard because the chunk is
/// bigger than what was asked for.
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
#[inline(never)]
extern "C" fn size_body(tagged: u32, _ret: u32, addr: u32) -> u32 {
    let (st, handle) = untag(tagged);
    // SAFETY: `st` is the live state (the trampolines exist only while it does); the
    // originals were saved before the patches were installed. `busy` is volatile, as
    // in `free_general`: a nested entry just gets the OS's answer.
    unsafe {
        // MemPtrSize's and MemHandleSize's originals take one 4-byte argument and
        // return a UInt32: one call serves both.
        let orig = pick(addr_of!((*st).orig_ptr_size), handle);
        let os = palm::chain::MemPtrSize(orig, addr as usize as palm::MemPtr);
        let busy = core::ptr::addr_of_mut!((*st).busy);
        if busy.read_volatile() != 0 {
            return os;
        }
        busy.write_volatile(1);
        let r = track::visible_size(&*st, addr, handle, os);
        busy.write_volatile(0);
        r
    }
}

/// `MemPtrResize(p, size)` / `MemHandleResize(h, size)` (called by
/// [`resize_entry`]): a tracked block is resized exactly as the resize wrappers do
/// it ([`track::resize`]: guard checked, room for a new guard, the guard rewritten,
/// the record's size updated); anything else goes to the original.
#[cfg_attr(not(target_arch = "m68k"), allow(dead_code))]
#[inline(never)]
extern "C" fn resize_body(tagged: u32, ret: u32, addr: u32, size: u32) -> u32 {
    let (st, handle) = untag(tagged);
    // SAFETY: as in `size_body`.
    unsafe {
        let busy = core::ptr::addr_of_mut!((*st).busy);
        if busy.read_volatile() != 0 {
            return u32::from(chain_resize(&*st, addr, size, handle));
        }
        busy.write_volatile(1);
        let r = track::resize(&mut *st, addr, size, handle, ret, caller_frame());
        busy.write_volatile(0);
        u32::from(r)
    }
}

/// `MemPtrResize`/`MemHandleResize` through the saved original (the resize traps
/// are patched).
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

/// The patched traps' numbers, in trampoline order.
const TRAPS: [u16; TRAMPOLINES] = [
    sysTrapMemChunkFree,
    sysTrapMemHandleFree,
    sysTrapMemPtrSize,
    sysTrapMemHandleSize,
    sysTrapMemPtrResize,
    sysTrapMemHandleResize,
];

/// Where each trap's saved original is in [`State`] (byte offsets, in trampoline
/// order).
const ORIGINALS: [u8; TRAMPOLINES] = [
    offset_of!(State, orig_chunk_free) as u8,
    offset_of!(State, orig_handle_free) as u8,
    offset_of!(State, orig_ptr_size) as u8,
    offset_of!(State, orig_handle_size) as u8,
    offset_of!(State, orig_ptr_resize) as u8,
    offset_of!(State, orig_handle_resize) as u8,
];
static_assertions::const_assert!(offset_of!(State, orig_handle_resize) < 256);

/// The [`State::patched`] bit of trap `i`'s group.
fn group(i: usize) -> u8 {
    if i < 2 { PATCHED_FREES } else { PATCHED_SIZES }
}

/// Trap `i`'s saved original.
fn original(st: &mut State, i: usize) -> &mut *mut c_void {
    // SAFETY: ORIGINALS holds the offsets of State's `*mut c_void` fields.
    unsafe {
        &mut *(st as *mut State)
            .cast::<u8>()
            .add(usize::from(ORIGINALS[i]))
            .cast::<*mut c_void>()
    }
}

/// Writes the trampolines of traps `i` (tag 0) and `i + 1` (the handle form, tag 1),
/// both jumping to `target`. Called once per entry with its address: a `match`
/// choosing among the entries would become a table of code addresses, which needs
/// absolute relocations (TOOLCHAIN.md).
#[inline(never)]
fn write_pair(st: &State, i: usize, target: u32) {
    // Through an opaque base: LLVM knows the state aligned and makes `state + 1` an
    // or with a 6-byte immediate.
    let st = crate::state::near(st as *const State as *mut State);
    let state = st as u32;
    // SAFETY: TRAMPOLINES trampolines fit in the chunk `start` allocated; i + 1 <
    // TRAMPOLINES; `st` is the caller's state.
    unsafe {
        let at = (*st).trampolines.add(i * TRAMPOLINE_LEN);
        write_trampoline(at, state, target);
        // `state + 1` is `state | 1`: a chunk's address is even.
        write_trampoline(at.add(TRAMPOLINE_LEN), state + 1, target);
    }
}

/// The trampoline the dispatch table points at for trap `i`.
fn entry(st: &State, i: usize) -> *mut c_void {
    // SAFETY: the trampoline chunk holds TRAMPOLINES trampolines.
    unsafe { st.trampolines.add(i * TRAMPOLINE_LEN).cast() }
}

/// Writes a trampoline at `at` that pushes `state` and jumps to `target`.
///
/// # Safety
/// `at` is [`TRAMPOLINE_LEN`] writable bytes of the dynamic heap, 2-aligned.
unsafe fn write_trampoline(at: *mut u8, state: u32, target: u32) {
    // SAFETY: the caller's guarantee; the 68000 stores words and longs at even
    // addresses (a u32 is 2-aligned there). Big-endian: 2F3C ssss ssss 4EF9 tttt
    // tttt, as two opcode words and two longs (no shifting of `state`).
    unsafe {
        at.cast::<u16>().write(0x2F3C); // move.l #state,-(%sp)
        at.add(2).cast::<u32>().write(state);
        at.add(6).cast::<u16>().write(0x4EF9); // jmp abs.l
        at.add(8).cast::<u32>().write(target);
    }
}

/// Points `trap` at `to` and reads it back: 0 when it holds `to`, else nonzero.
#[inline(never)]
fn set(trap: u16, to: *mut c_void) -> u32 {
    // SAFETY: plain System Manager calls.
    unsafe {
        if palm::SysSetTrapAddress(trap, to) != palm::errNone {
            return 1;
        }
        palm::SysGetTrapAddress(trap) as u32 ^ to as u32
    }
}

/// The patch groups wanted: the free traps with [`Options::PATCH_FREES`], the size
/// and resize traps with [`Options::GUARDS`] (they hide the guard bytes).
fn wanted(st: &State) -> u8 {
    let mut w = 0;
    if st.has(Options::PATCH_FREES) {
        w |= PATCHED_FREES;
    }
    if st.has(Options::GUARDS) {
        w |= PATCHED_SIZES;
    }
    w
}

/// Saves the originals, writes the trampolines into `st.trampolines` (allocated by
/// `start`) and installs every wanted patch, or none: a refusal (Palm OS 5,
/// PumpkinOS) puts back what was installed and sets
/// [`HeaderFlags::PATCHES_REFUSED`].
pub fn install(st: &mut State) {
    let want = wanted(st);
    if want == 0 {
        return;
    }
    write_pair(st, 0, chunk_free_entry as *const () as u32);
    write_pair(st, 2, size_entry as *const () as u32);
    write_pair(st, 4, resize_entry as *const () as u32);
    let mut i = 0;
    while i < TRAMPOLINES {
        // SAFETY: plain System Manager call.
        *original(st, i) = unsafe { palm::SysGetTrapAddress(TRAPS[i]) };
        i += 1;
    }
    let mut i = 0;
    while i < TRAMPOLINES {
        if group(i) & want != 0 && set(TRAPS[i], entry(st, i)) != 0 {
            // A refused set may still have changed an entry: put every original back.
            put_back(st, want, false);
            st.flag(HeaderFlags::PATCHES_REFUSED);
            return;
        }
        i += 1;
    }
    st.patched = want;
}

/// Puts back the saved originals of the patch groups in `groups`. With `ours` (at
/// stop) each entry should hold our trampoline: an entry that does not is left as
/// it is, and it or a set that does not read back makes the result nonzero. Without
/// (a refused install), an entry is set back unless it holds the original (the
/// result is then meaningless).
#[inline(never)]
fn put_back(st: &mut State, groups: u8, ours: bool) -> u32 {
    let mut disturbed = 0;
    let mut i = 0;
    while i < TRAMPOLINES {
        if group(i) & groups != 0 {
            // SAFETY: plain System Manager call.
            let now = unsafe { palm::SysGetTrapAddress(TRAPS[i]) };
            let orig = *original(st, i);
            let go = if ours {
                now == entry(st, i)
            } else {
                now != orig
            };
            disturbed |= if go {
                set(TRAPS[i], orig)
            } else {
                u32::from(ours)
            };
        }
        i += 1;
    }
    disturbed
}

/// Restores the exact original addresses (read back). If an entry no longer held our
/// patch, someone patched over it: the original is restored anyway and
/// [`HeaderFlags::TRAPS_DISTURBED`] is set.
pub fn remove(st: &mut State) {
    if put_back(st, st.patched, true) != 0 {
        st.flag(HeaderFlags::TRAPS_DISTURBED);
    }
    st.patched = 0;
}
