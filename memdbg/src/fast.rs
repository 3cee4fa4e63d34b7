//! The wrappers' common case in 68000 assembly: a `mem_ptr_new!` or `mem_handle_new!`
//! with the default kind of settings. LLVM's m68k code for the general path
//! ([`crate::api::alloc`]) is about twice as long, and the cost of a tracked
//! allocation is one of the detector's targets (issue 4, item 10).
//!
//! [`new`] first enters the detector ([`enter`]: running and not busy, now marked
//! busy) and checks, changing nothing else, that the case is the common one:
//! [`crate::Options::GUARDS`] on, [`crate::Options::CALL_STACKS`] and
//! [`crate::Options::FILL_NEW`] off, no low-heap threshold; a size that leaves room
//! for the guard and, with [`crate::Options::HEAP_STATS`], is not a small allocation;
//! a free slot on the free list; the scratch record already holding this site's file
//! and line and no call stack. It then does exactly what the general path does for
//! such a block: the allocation with room for the guard, the guard, the slot,
//! `TimGetTicks`, the scratch record, then [`commit`] (the record's `DmWrite`, the
//! index entry, the counters and peaks: the general path calls it too), and the heap
//! sample. Anything else (and an allocation the OS refuses) clears the busy mark
//! again and takes the general path, [`slow`], with nothing changed. Both return the
//! block (0 on failure) and preserve D2–D7/A2–A6, as LLVM's convention wants.
//!
//! The other routines here are shared with the general path and written in assembly
//! because it is about half the size of LLVM's code: [`enter`], [`commit`],
//! [`heap_marks`] and the call-stack walk, [`walk`]. Each has a host stand-in with the
//! same effect.

#[cfg(target_arch = "m68k")]
use core::mem::offset_of;

#[cfg(target_arch = "m68k")]
use m68k_palmos_sys as palm;

use crate::Site;
#[cfg(not(target_arch = "m68k"))]
use crate::record::AsBytes;
use crate::record::{AllocFlags, Stack};
use crate::state::State;
#[cfg(target_arch = "m68k")]
use crate::{
    index::Index,
    record::{
        AllocRecord, DB_CREATOR, GUARD_BYTE, GUARD_LEN, Options, SMALL_ALLOC_MAX, STACK_FRAMES,
        kind,
    },
    stack::CodeRange,
    state::{NO_SLOT, Scratch},
};

/// Allocates a tracked pointer (`k` = [`crate::record::kind::POINTER`]) or handle
/// ([`crate::record::kind::HANDLE`]) of `size` bytes for the program at `site`.
/// Called directly by a wrapper, whose frame is A6 at the call (this naked function
/// keeps it; [`slow`] finds it as its caller's frame): its `4(a6)` returns into the
/// program. Returns the block or handle, 0 on failure.
///
/// `tst`, `clr`, `addq` and `subq` are written as their opcode words (LLVM's
/// m68k asm parser rejects them; each is named in a comment), branches with `bs!`.
///
/// # Safety
/// Called (not tail-called: the wrapper converts the result) from an
/// `#[inline(never)]` wrapper's own body, A6 its live frame.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub unsafe extern "C" fn new(k: u32, site: *const Site, size: u32) -> u32 {
    core::arch::naked_asm!(
        // Stack after this: saved regs (36), ret@36, k@40, site@44, size@48.
        "movem.l %d2-%d7/%a2-%a4,-(%sp)",
        // The state, entered (marked busy): running and not busy.
        "jsr ({enter},%pc)",
        "move.l %a0,%a2",
        ".short 0x4A80", // tst.l %d0
        bs!(beq "8f"),
        // Options: guards on, call stacks and fills off.
        // (All three in the options' low byte.)
        "moveq #{opt_mask},%d0",
        "and.b ({opts_low},%a2),%d0",
        "cmpi.b #{guards},%d0",
        bs!(bne "9f"),
        ".short 0x4AAA, {threshold}", // tst.l (threshold,%a2)
        bs!(bne "9f"),
        "move.l (48,%sp),%d3",
        "cmpi.l #{max_guarded},%d3",
        bs!(bhi "9f"),
        // With heap statistics, small allocations (1..=12 bytes) take the general path.
        "btst #{hs_bit},({hs_byte},%a2)",
        bs!(beq "1f"),
        "move.l %d3,%d0",
        ".short 0x5380", // subq.l #1,%d0
        "cmpi.l #{small_max},%d0",
        bs!(bcs "9f"),
        "1:",
        "cmpi.w #{no_slot},({free_head},%a2)",
        bs!(beq "9f"),
        ".short 0x4A2A, {rec_stack}", // tst.b (rec_stack,%a2)
        bs!(bne "9f"),
        "move.l (44,%sp),%d4",
        "cmp.l ({rec_site},%a2),%d4",
        bs!(beq "2f"),
        // The general path (nothing was changed but the busy mark, cleared): a tail
        // call, the stack is as `slow` wants it (the same arguments).
        "9:",
        ".short 0x4212", // clr.b (%a2): busy
        "8:",
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "bra {slow}",
        // Committed unless the OS refuses the block.
        "2:",
        "move.l (40,%sp),%d5",
        "move.l %d3,%d0",
        ".short 0x5880", // addq.l #GUARD_LEN,%d0
        "move.l %d0,-(%sp)",
        "cmpi.b #{handle},%d5",
        bs!(beq "2f"),
        "trap #15",
        ".short {ptr_new}",
        bs!(bra "3f"),
        "2:",
        "trap #15",
        ".short {handle_new}",
        "3:",
        ".short 0x588F", // addq.l #4,%sp
        "move.l %a0,%d6",
        bs!(beq "9b"),
        // The guard after the block (a handle's chunk through its master pointer).
        "moveq #{guarded},%d1",
        "cmpi.b #{handle},%d5",
        bs!(bne "5f"),
        "move.l (%a0),%a0",
        "moveq #{guarded_handle},%d1",
        "5:",
        "adda.l %d3,%a0",
        "moveq #{guard_byte},%d0",
        "move.b %d0,(%a0)+",
        "move.b %d0,(%a0)+",
        "move.b %d0,(%a0)+",
        "move.b %d0,(%a0)+",
        // The record's flags: the kind's, GUARDED, and the site's.
        "move.l %d4,%a0",
        "or.w ({site_flags},%a0),%d1",
        "move.w %d1,%d4",
        // Slot d7 from the free list.
        "moveq #0,%d7",
        "move.w ({free_head},%a2),%d7",
        "move.l ({slot_next},%a2),%a0",
        "move.l %d7,%d0",
        "add.l %d0,%d0",
        "move.w (0,%a0,%d0),({free_head},%a2)",
        "trap #15",
        ".short {tim_get_ticks}",
        // The scratch record (its version, file, line and empty stack are in place).
        "move.l ({scratch},%a2),%a3",
        "move.b %d5,({r_kind},%a3)",
        "move.w %d4,({r_flags},%a3)",
        "move.l %d3,({r_size},%a3)",
        "move.l %d6,({r_address},%a3)",
        ".short 0x52AA, {seq}", // addq.l #1,(seq,%a2)
        "move.l ({seq},%a2),({r_seq},%a3)",
        "move.l %d0,({r_ticks},%a3)",
        ".short 0x426B, {r_data_offset}", // clr.w (r_data_offset,%a3)
        // The record's DmWrite, the index entry, the counters and peaks.
        "move.l %d7,-(%sp)",
        "move.l %a2,-(%sp)",
        "jsr ({commit},%pc)",
        ".short 0x508F", // addq.l #8,%sp
        // Heap statistics: the low-water marks.
        "btst #{hs_bit},({hs_byte},%a2)",
        bs!(beq "8f"),
        "move.l %a2,-(%sp)",
        "jsr ({heap_marks},%pc)",
        ".short 0x588F", // addq.l #4,%sp
        "8:",
        ".short 0x4212", // clr.b (%a2): busy
        "move.l %d6,%d0",
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        slow = sym slow,
        enter = sym enter,
        commit = sym commit,
        heap_marks = sym heap_marks,
        opts_low = const offset_of!(State, options) + 3,
        opt_mask = const Options::GUARDS.union(Options::CALL_STACKS).union(Options::FILL_NEW).bits(),
        guards = const Options::GUARDS.bits(),
        hs_byte = const offset_of!(State, options) + 3 - Options::HEAP_STATS.bits().trailing_zeros() as usize / 8,
        hs_bit = const Options::HEAP_STATS.bits().trailing_zeros() % 8,
        threshold = const offset_of!(State, low_heap_threshold),
        max_guarded = const crate::api::MAX_CHUNK - GUARD_LEN as u32,
        small_max = const SMALL_ALLOC_MAX,
        no_slot = const NO_SLOT,
        free_head = const offset_of!(State, free_head),
        rec_stack = const offset_of!(State, rec_stack),
        rec_site = const offset_of!(State, rec_site),
        handle = const kind::HANDLE,
        guarded = const AllocFlags::GUARDED.bits(),
        guarded_handle = const AllocFlags::GUARDED.union(AllocFlags::HANDLE).bits(),
        guard_byte = const GUARD_BYTE as i8,
        site_flags = const offset_of!(Site, flags),
        slot_next = const offset_of!(State, slot_next),
        scratch = const offset_of!(State, scratch),
        r_kind = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, kind),
        r_flags = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, flags),
        r_size = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, size),
        r_address = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, address),
        r_seq = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, seq),
        r_ticks = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, ticks),
        r_data_offset = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, data_offset),
        seq = const offset_of!(State, seq),
        ptr_new = const palm::traps::sysTrapMemPtrNew,
        handle_new = const palm::traps::sysTrapMemHandleNew,
        tim_get_ticks = const palm::traps::sysTrapTimGetTicks,
    )
}

/// Host stand-in: the general path.
///
/// # Safety
/// As on the 68k.
#[cfg(not(target_arch = "m68k"))]
pub unsafe extern "C" fn new(k: u32, site: *const Site, size: u32) -> u32 {
    slow(k, site, size)
}

/// Completes a new allocation whose scratch record is complete (kind, flags, size,
/// address, sequence number, ticks, site and stack), in slot `slot`: writes the
/// record to the slot's ledger record (one `DmWrite`), enters the address in the
/// index, and counts the block (allocations, live blocks and bytes, live handles by
/// the record's [`AllocFlags::HANDLE`], peaks). Shared by [`new`] and the general
/// path ([`crate::track::allocated`]); preserves D2–D7/A2–A6.
///
/// `slot` is an `i16`, sign-extended into its argument long by the caller (one
/// `ext.l` instead of an `andi.l #65535`): slot numbers are below the capacity,
/// at most 5,461 (`index::MAX_ENTRIES` × 2/3), so the long is the slot number.
///
/// # Safety
/// `st` is the entered state; `slot` was just taken (its ledger record is locked);
/// the record's address is nonzero and not in the index, which has an empty entry.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub unsafe extern "C" fn commit(st: *mut State, slot: i16) {
    core::arch::naked_asm!(
        // Stack after this: saved regs (12), ret@12, st@16, slot@20 (its word @22).
        "movem.l %d2/%a2-%a3,-(%sp)",
        "move.l (16,%sp),%a2",
        "move.l ({scratch},%a2),%a3",
        // DmWrite(slot_rec[slot], 0, record, 82).
        "move.l ({slot_rec},%a2),%a0",
        "move.l (20,%sp),%d0",
        "lsl.l #2,%d0",
        "moveq #{rec_size},%d1",
        "move.l %d1,-(%sp)",
        "move.l %a3,-(%sp)",
        ".short 0x42A7", // clr.l -(%sp)
        "move.l (0,%a0,%d0),-(%sp)",
        "trap #15",
        ".short {dm_write}",
        "lea (16,%sp),%sp",
        // Index: the first empty entry from index::home(a): x = (a >> 2) + (a >> 18)
        // (low words: a >> 18 is the high word of a >> 2), home = ((x * FIB) mod 2^16) >> shift
        // (the and clears the product's high word); then by byte offsets (× 4).
        "move.l ({r_address},%a3),%d2",
        "move.l %d2,%d0",
        "lsr.l #2,%d0",
        "move.l %d0,%d1",
        ".short 0x4841", // swap %d1: its low word is a >> 18
        "add.w %d1,%d0",
        // mulu.w #FIB,%d0 (LLVM's asm parser rejects mulu's immediate form).
        ".short {mulu_imm_d0}, {fib}",
        "move.w ({shift},%a2),%d1",
        "lsr.w %d1,%d0",
        "moveq #0,%d1",
        "move.w ({mask},%a2),%d1",
        "and.l %d1,%d0",
        "lsl.l #2,%d0",
        "lsl.l #2,%d1",
        "move.l ({keys},%a2),%a0",
        "6:",
        ".short 0x4AB0, 0x0800", // tst.l (0,%a0,%d0.l)
        bs!(beq "7f"),
        ".short 0x5880", // addq.l #4,%d0
        "and.l %d1,%d0",
        bs!(bra "6b"),
        "7:",
        "move.l %d2,(0,%a0,%d0)",
        "lsr.l #1,%d0",
        "move.l ({slots},%a2),%a0",
        "move.w (22,%sp),(0,%a0,%d0)",
        // Counters and peaks.
        ".short 0x52AA, {allocations}", // addq.l #1,(allocations,%a2)
        ".short 0x52AA, {live_count}", // addq.l #1,(live_count,%a2)
        "move.l ({live_count},%a2),%d0",
        "cmp.l ({peak_count},%a2),%d0",
        bs!(bls "1f"),
        "move.l %d0,({peak_count},%a2)",
        "1:",
        "move.l ({live_bytes},%a2),%d0",
        "add.l ({r_size},%a3),%d0",
        "move.l %d0,({live_bytes},%a2)",
        "cmp.l ({peak_bytes},%a2),%d0",
        bs!(bls "1f"),
        "move.l %d0,({peak_bytes},%a2)",
        "1:",
        "btst #{handle_bit},({r_flags_low},%a3)",
        bs!(beq "1f"),
        ".short 0x52AA, {live_handles}", // addq.l #1,(live_handles,%a2)
        "1:",
        "movem.l (%sp)+,%d2/%a2-%a3",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        scratch = const offset_of!(State, scratch),
        slot_rec = const offset_of!(State, slot_rec),
        rec_size = const crate::record::ALLOC_RECORD_SIZE,
        dm_write = const palm::traps::sysTrapDmWrite,
        r_address = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, address),
        r_size = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, size),
        r_flags_low = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, flags) + 1,
        handle_bit = const AllocFlags::HANDLE.bits().trailing_zeros(),
        mulu_imm_d0 = const crate::index::MULU_IMM_D0,
        fib = const crate::index::FIB,
        shift = const offset_of!(State, index) + offset_of!(Index, shift),
        mask = const offset_of!(State, index) + offset_of!(Index, mask),
        keys = const offset_of!(State, index) + offset_of!(Index, keys),
        slots = const offset_of!(State, index) + offset_of!(Index, slots),
        allocations = const offset_of!(State, allocations),
        live_count = const offset_of!(State, live_count),
        live_bytes = const offset_of!(State, live_bytes),
        live_handles = const offset_of!(State, live_handles),
        peak_count = const offset_of!(State, peak_count),
        peak_bytes = const offset_of!(State, peak_bytes),
    )
}

/// Host stand-in for the 68k's [`commit`] (same effect).
///
/// # Safety
/// As on the 68k.
#[cfg(not(target_arch = "m68k"))]
pub unsafe extern "C" fn commit(st: *mut State, slot: i16) {
    // SAFETY: the caller's guarantee.
    let st = unsafe { &mut *st };
    let r = &st.sc().rec;
    crate::ledger::write(st.rec(slot as u16), 0, r.as_bytes());
    let size = r.size.get();
    st.index.insert(r.address.get(), slot as u16);
    st.allocations += 1;
    st.live_count += 1;
    st.live_bytes += size;
    if r.flags.get() & AllocFlags::HANDLE.bits() != 0 {
        st.live_handles += 1;
    }
    if st.live_bytes > st.peak_bytes {
        st.peak_bytes = st.live_bytes;
    }
    if st.live_count > st.peak_count {
        st.peak_count = st.live_count;
    }
}

/// Samples the dynamic heap into the low-water marks ([`crate::Options::HEAP_STATS`]):
/// `MemHeapFreeBytes(0, &heap_free, &heap_max)`, then `low_free` and `low_max` lowered
/// to them. After every tracked allocation ([`new`], [`crate::track::allocated`]),
/// and also after an untracked one and a failed one (the heap is at its lowest when an
/// allocation fails). Preserves D2–D7/A2–A6.
///
/// # Safety
/// `st` is the entered state.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub unsafe extern "C" fn heap_marks(st: *mut State) {
    core::arch::naked_asm!(
        // D2 saved: a trap may clobber it (PALM_FACTS §6). Stack: d2, ret@4, st@8.
        "move.l %d2,-(%sp)",
        "move.l (8,%sp),%a0",
        ".short 0x4868, {heap_max}", // pea (heap_max,%a0)
        ".short 0x4868, {heap_free}", // pea (heap_free,%a0)
        ".short 0x4267", // clr.w -(%sp)
        "trap #15",
        ".short {heap_free_bytes}",
        "lea (10,%sp),%sp",
        "move.l (8,%sp),%a0",
        "move.l ({heap_free},%a0),%d0",
        "cmp.l ({low_free},%a0),%d0",
        bs!(bcc "1f"),
        "move.l %d0,({low_free},%a0)",
        "1:",
        "move.l ({heap_max},%a0),%d0",
        "cmp.l ({low_max},%a0),%d0",
        bs!(bcc "1f"),
        "move.l %d0,({low_max},%a0)",
        "1:",
        "move.l (%sp)+,%d2",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        heap_free = const offset_of!(State, heap_free),
        heap_max = const offset_of!(State, heap_max),
        low_free = const offset_of!(State, low_free),
        low_max = const offset_of!(State, low_max),
        heap_free_bytes = const palm::traps::sysTrapMemHeapFreeBytes,
    )
}

/// Host stand-in for the 68k's [`heap_marks`] (same effect).
///
/// # Safety
/// As on the 68k.
#[cfg(not(target_arch = "m68k"))]
pub unsafe extern "C" fn heap_marks(st: *mut State) {
    // SAFETY: the caller's guarantee.
    let st = unsafe { &mut *st };
    // SAFETY: heap 0 is the dynamic heap; both outputs are fields of the state.
    unsafe { m68k_palmos_sys::MemHeapFreeBytes(0, &mut st.heap_free, &mut st.heap_max) };
    if st.heap_free < st.low_free {
        st.low_free = st.heap_free;
    }
    if st.heap_max < st.low_max {
        st.low_max = st.heap_max;
    }
}

/// The call-stack walk ([`crate::stack::walk`], the reference, with its reads of
/// the frame slots): fills `out` with up to `max` frames (0: as the options say,
/// [`STACK_FRAMES`] with [`crate::Options::CALL_STACKS`], else 1) from `ret` and the
/// frame chain from `frame`, offsets into code 1 (`st.code`) where they fall inside
/// it, else raw (and the walk ends); the rest zeroed. Preserves D2–D7/A2–A6.
///
/// # Safety
/// `out` is writable; `max` is at most [`STACK_FRAMES`]; `frame` is a live frame
/// pointer (or odd, or 0: not followed); `st` is the state.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub unsafe extern "C" fn walk(st: *const State, out: *mut Stack, ret: u32, frame: u32, max: u32) {
    core::arch::naked_asm!(
        // Stack after this: saved regs (24), ret@24, st@28, out@32, ret@36, frame@40,
        // max@44. Registers: a2 out, a1 the next frame slot, d2 ret, d3 frame, d4
        // frames still allowed, d5 code's base, d6 its length, d1 the raw-mask bit.
        "movem.l %d2-%d6/%a2,-(%sp)",
        "move.l (28,%sp),%a1",
        "move.l ({code_base},%a1),%d5",
        "move.l ({code_end},%a1),%d6",
        "sub.l %d5,%d6",
        // max 0: as the options say.
        "move.l (44,%sp),%d4",
        bs!(bne "1f"),
        "moveq #1,%d4",
        "btst #{cs_bit},({cs_byte},%a1)",
        bs!(beq "1f"),
        "moveq #{frames},%d4",
        "1:",
        "move.l (32,%sp),%a2",
        "move.l (36,%sp),%d2",
        "move.l (40,%sp),%d3",
        // The stack zeroed: count and raw mask, then the frames.
        "move.l %a2,%a0",
        ".short 0x4258", // clr.w (%a0)+
        "move.l %a0,%a1",
        ".short 0x4298, 0x4298, 0x4298, 0x4298, 0x4298, 0x4298", // clr.l (%a0)+, 6 times
        // (d4 is at least 1 here, and each round after one frame goes on only while
        // it stays nonzero.)
        "moveq #1,%d1",
        "2:",
        "move.l %d2,%d0",
        "sub.l %d5,%d0",
        "cmp.l %d6,%d0",
        bs!(bcs "3f"),
        // Outside code 1: raw, and the last frame.
        "or.b %d1,(1,%a2)",
        "move.l %d2,(%a1)+",
        ".short 0x5212", // addq.b #1,(%a2)
        bs!(bra "9f"),
        "3:",
        "move.l %d0,(%a1)+",
        ".short 0x5212", // addq.b #1,(%a2)
        "add.b %d1,%d1",
        ".short 0x5384", // subq.l #1,%d4
        bs!(beq "9f"),
        // The next frame: from an even, nonzero frame pointer, an even return address.
        "btst #0,%d3",
        bs!(bne "9f"),
        ".short 0x4A83", // tst.l %d3
        bs!(beq "9f"),
        "move.l %d3,%a0",
        "move.l (4,%a0),%d2",
        "move.l (%a0),%d0",
        "btst #0,%d2",
        bs!(bne "9f"),
        // A plausible link: above the frame, at most MAX_FRAME_GAP above it.
        "sub.l %d3,%d0",
        bs!(bls "4f"),
        "cmpi.l #{gap},%d0",
        bs!(bhi "4f"),
        "add.l %d0,%d3",
        bs!(bra "2b"),
        // Not: this return address is still good (unless 0), the chain ends after it.
        "4:",
        ".short 0x4A82", // tst.l %d2
        bs!(beq "9f"),
        "moveq #0,%d3",
        bs!(bra "2b"),
        "9:",
        "movem.l (%sp)+,%d2-%d6/%a2",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        frames = const STACK_FRAMES,
        gap = const crate::stack::MAX_FRAME_GAP,
        code_base = const offset_of!(State, code) + offset_of!(CodeRange, base),
        code_end = const offset_of!(State, code) + offset_of!(CodeRange, end),
        cs_byte = const offset_of!(State, options) + 3 - Options::CALL_STACKS.bits().trailing_zeros() as usize / 8,
        cs_bit = const Options::CALL_STACKS.bits().trailing_zeros() % 8,
    )
}

/// Host stand-in for the 68k's [`walk`]: [`crate::stack::walk`].
///
/// # Safety
/// As on the 68k.
#[cfg(not(target_arch = "m68k"))]
pub unsafe extern "C" fn walk(st: *const State, out: *mut Stack, ret: u32, frame: u32, max: u32) {
    // SAFETY: the caller's guarantee.
    unsafe {
        let st = &*st;
        let max = match max {
            0 if st.has(crate::record::Options::CALL_STACKS) => crate::record::STACK_FRAMES,
            0 => 1,
            m => m as usize,
        };
        crate::stack::walk(&mut *out, ret, frame, max, st.code, |a| {
            crate::stack::read_long(a)
        })
    }
}

/// [`crate::state::enter`] for the wrappers: the state chunk from
/// `FtrGet('MDbg', 0)`, marked busy; 0 when the detector is not running or is
/// already busy (its `busy` byte read and written once each, as the volatile accesses
/// there do). Returns the state's address in D0 (and A0): as an integer, so that
/// LLVM tests D0 directly.
///
/// # Safety
/// None beyond the Feature Manager call's; the result is the live state, entered.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub unsafe extern "C" fn enter() -> u32 {
    core::arch::naked_asm!(
        // D2 saved: a trap may clobber it (PALM_FACTS §6).
        "move.l %d2,-(%sp)",
        // FtrGet('MDbg', 0, &v), v in a long pushed on the stack.
        ".short 0x42A7", // clr.l -(%sp)
        ".short 0x4857", // pea (%sp)
        ".short 0x4267", // clr.w -(%sp)
        "move.l #{creator},-(%sp)",
        "trap #15",
        ".short {ftr_get}",
        "lea (10,%sp),%sp",
        "move.l (%sp)+,%a0",
        "move.l (%sp)+,%d2",
        ".short 0x4A40", // tst.w %d0
        bs!(bne "9f"),
        "move.l %a0,%d0",
        bs!(beq "8f"),
        ".short 0x4A10", // tst.b (%a0): busy
        bs!(bne "9f"),
        "move.b #1,(%a0)",
        "rts",
        "9:",
        "suba.l %a0,%a0",
        "move.l %a0,%d0",
        "8:",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        creator = const DB_CREATOR,
        ftr_get = const palm::traps::sysTrapFtrGet,
    )
}

/// Host stand-in for the 68k's [`enter`]: [`crate::state::enter`].
///
/// # Safety
/// As on the 68k.
#[cfg(not(target_arch = "m68k"))]
pub unsafe extern "C" fn enter() -> u32 {
    crate::state::enter().map_or(0, |st| st as *mut State as usize as u32)
}

/// The general path of [`new`]: the wrappers' [`crate::api::wrapped`]. `new`
/// branches here with the wrapper's return address and A6, so the frame this
/// function's `link` saved is the wrapper's.
#[inline(never)]
extern "C" fn slow(k: u32, site: *const Site, size: u32) -> u32 {
    #[cfg(target_arch = "m68k")]
    // SAFETY: own live frame: its saved A6 is the wrapper's frame.
    let a6 = unsafe { crate::stack::read_long(crate::stack::frame_pointer()) };
    #[cfg(not(target_arch = "m68k"))]
    let a6 = 0;
    crate::api::wrapped(k as u8, 0, site, size, a6)
}

// The assembly reads these layouts directly (byte, word and long fields at the
// offsets named above, all below 128 so that they are 8/16-bit displacements).
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(offset_of!(State, low_heap_threshold) < 128);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(offset_of!(Scratch, rec), 0);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(crate::record::ALLOC_RECORD_SIZE < 128);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(SMALL_ALLOC_MAX < 128);
// The options fast::new tests with byte operations are in the low byte.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    Options::GUARDS
        .union(Options::CALL_STACKS)
        .union(Options::FILL_NEW)
        .bits()
        < 128
);
// commit's btst reads the HANDLE flag in the flags' low byte.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(AllocFlags::HANDLE.bits() < 256);
// `busy` is addressed as `(%aN)`.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(offset_of!(State, busy), 0);
// `addq.l #4,%d0` adds the guard's length.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(GUARD_LEN, 4);
