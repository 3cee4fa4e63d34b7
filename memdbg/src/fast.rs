//! The allocation path and the routines it shares with the rest of the detector, in
//! 68000 assembly: LLVM's m68k code is about twice as long, and the cost of a
//! tracked allocation is one of the detector's targets (issue 4, item 10).
//!
//! [`alloc`] is every allocation (the wrappers', the C interface's,
//! [`crate::MemDbgAlloc`]'s; all kinds and options); it calls Rust only for the rare
//! cases (no free slot, a failed allocation, a small allocation, a low heap). The
//! other routines are shared with the rest of the detector: [`enter`],
//! [`heap_marks`] and the call-stack walk, [`walk`]. Each has a host stand-in with
//! the same effect (the host's [`alloc`] records through [`commit`]).

#[cfg(target_arch = "m68k")]
use core::mem::offset_of;

#[cfg(target_arch = "m68k")]
use m68k_palmos_sys as palm;
#[cfg(target_arch = "m68k")]
use palm::mem::{memNewChunkFlagNonMovable, memNewChunkFlagPreLock};

use crate::Site;
#[cfg(not(target_arch = "m68k"))]
use crate::record::AsBytes;
use crate::record::{AllocFlags, Stack};
use crate::state::State;
#[cfg(target_arch = "m68k")]
use crate::{
    index::Index,
    record::{
        AllocRecord, Counters, DB_CREATOR, FILE_NAME_LEN, FILL_NEW_BYTE, GUARD_BYTE, GUARD_LEN,
        HeaderFlags, Options, SMALL_ALLOC_MAX, STACK_FRAMES, kind,
    },
    stack::CodeRange,
    state::{NO_SLOT, Scratch},
};

/// Every allocation through memdbg: the wrappers, the C interface and
/// [`crate::MemDbgAlloc`] call it through [`crate::api::alloc`] (an `asm!` `jsr`),
/// with the kind in A1 (a [`kind`] byte, zero-extended), `how` in D0 (a chunk's
/// heap and attributes, [`crate::api::chunk_how`]; a Rust block's room for its
/// alignment: the alignment if above 2, else 0; else 0), the site in A0 (null for
/// Rust allocations) and the size in D1, from the function the program called (its
/// frame is A6: `4(a6)` returns into the program, `0(a6)` is the program's frame).
/// Returns the address handed to the program in A0 (0 on failure); preserves
/// D2–D7/A2–A6.
///
/// Entered ([`enter`]: running and not busy, now marked busy), it allocates with room
/// for the guard when [`crate::Options::GUARDS`] wants one and the chunk stays below
/// the Memory Manager's limit (in the dynamic heap only), else (or when the OS has no
/// room for the guard) exactly the request; moves an over-aligned Rust block up to
/// its alignment (the distance in the word below it, palm-sys's `PalmAlloc` scheme);
/// prepares the block (fill, guard); records it: a slot, `TimGetTicks`, the scratch
/// record (its file and line copied only when the site changes, its call stack
/// walked for Rust blocks and with [`crate::Options::CALL_STACKS`], else zeroed
/// once), then what [`commit`] does (the record's `DmWrite`, the index entry, the
/// counters and peaks); and with [`crate::Options::HEAP_STATS`] counts a small
/// allocation ([`crate::track::small`]), samples the heap ([`heap_marks`]) and warns
/// of a low heap ([`crate::track::low_heap`]). A failed allocation is counted
/// ([`crate::track::unrecorded`]), and so is one that finds no slot
/// ([`fresh_slot`]: untracked, and the ledger marked incomplete). Not entered, it is
/// the plain OS call (for a Rust block, `PalmAlloc`'s). [`crate::track::allocated`]
/// is the Rust reference of the recording.
///
/// `tst`, `clr`, `addq`, `subq`, `swap`, `pea` and `mulu #imm` are written as
/// their opcode words (LLVM's m68k asm parser rejects them; each is named in a
/// comment), short branches with `bs!`.
///
/// # Safety
/// Called with `jsr` from the body of an `#[inline(never)]` function that the
/// program called, A6 its live frame; the site is null or a live [`Site`] (until
/// `stop`); `how` as above.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub unsafe extern "C" fn alloc() {
    core::arch::naked_asm!(
        // d3 size, d4 pad (then the data offset), d5 the record's flags, d6 how (then
        // the chunk or handle), d7 kind (then the slot); a2 the state (0: not
        // entered), a3 the scratch record, a4 the site. D2 is saved: traps may
        // clobber it (PALM_FACTS §6).
        "movem.l %d2-%d7/%a2-%a4,-(%sp)",
        "move.l %d1,%d3",
        "move.l %d0,%d6",
        "move.l %a0,%a4",
        "move.l %a1,%d7",
        "jsr ({enter},%pc)",
        "move.l %a0,%a2",
        // Flags and pad by kind: a chunk's from its attributes and heap (outside heap
        // 0 no guard), a handle's HANDLE; the pad is a Rust block's `how`.
        "moveq #0,%d5",
        "move.l %d6,%d4",
        "cmpi.b #{chunk},%d7",
        bs!(bne "2f"),
        "moveq #0,%d4",
        "move.w %d6,%d0",
        "and.w #{fixed},%d0",
        bs!(bne "1f"),
        "moveq #{f_handle},%d5",
        "1:",
        "move.l %d6,%d0",
        ".short 0x4840", // swap %d0: the heap
        ".short 0x4A40", // tst.w %d0
        bs!(beq "3f"),
        "moveq #{f_not_dynamic},%d0",
        "or.l %d0,%d5",
        bs!(bra "5f"),
        "2:",
        "cmpi.b #{handle},%d7",
        bs!(bne "3f"),
        "moveq #{f_handle},%d5",
        // With room for a guard: entered, guards on, and the chunk not too big.
        "3:",
        "move.l %a2,%d0",
        bs!(beq "4f"),
        "btst #{guards_bit},({opts_low},%a2)",
        bs!(beq "5f"),
        "move.l %d3,%d0",
        "add.l %d4,%d0",
        "cmpi.l #{max_guarded},%d0",
        bs!(bhi "5f"),
        ".short 0x5245", // addq.w #GUARDED,%d5
        ".short 0x5880", // addq.l #GUARD_LEN,%d0
        bs!(bra "6f"),
        // Not entered: PalmAlloc refuses alignments above 0x8000 (no OS call).
        "4:",
        "cmpi.l #{max_align},%d4",
        bs!(bhi "8f"),
        // Exactly the request (size + pad).
        "5:",
        "move.l %d3,%d0",
        "add.l %d4,%d0",
        // MemChunkNew(heap, size, attr), MemHandleNew or MemPtrNew (d0 bytes).
        "6:",
        "cmpi.b #{chunk},%d7",
        bs!(beq "3f"),
        "move.l %d0,-(%sp)",
        "cmpi.b #{handle},%d7",
        bs!(beq "2f"),
        "trap #15",
        ".short {ptr_new}",
        "1:",
        ".short 0x588F", // addq.l #4,%sp
        "4:",
        "move.l %a0,%d6",
        bs!(bne "10f"),
        // Refused: without the guard if it had one, else failed (counted if entered).
        "bclr #{guarded_bit},%d5",
        bs!(bne "5b"),
        "move.l %a2,%d0",
        bs!(beq "8f"),
        ".short 0x4878, {failed}", // pea (failed).w
        "move.l %a2,-(%sp)",
        "jsr ({unrecorded},%pc)",
        ".short 0x508F", // addq.l #8,%sp
        ".short 0x4212", // clr.b (%a2): busy
        "8:",
        "moveq #0,%d4",
        "moveq #0,%d6",
        "bra 90f",
        "2:",
        "trap #15",
        ".short {handle_new}",
        bs!(bra "1b"),
        "3:",
        "move.w %d6,-(%sp)",
        "move.l %d0,-(%sp)",
        "move.l %d6,%d0",
        ".short 0x4840", // swap %d0
        "move.w %d0,-(%sp)",
        "trap #15",
        ".short {chunk_new}",
        ".short 0x508F", // addq.l #8,%sp
        bs!(bra "4b"),
        // The fill (a0 the block), then back to the guard with a0 after the block.
        "32:",
        "btst #{nd_bit},%d5",
        bs!(bne "30f"),
        "move.l %d3,%d0",
        bs!(beq "31f"),
        "moveq #{fill_byte},%d1",
        "1:",
        "move.b %d1,(%a0)+",
        ".short 0x5380", // subq.l #1,%d0
        bs!(bne "1b"),
        bs!(bra "31f"),
        // An over-aligned Rust block moves up to its alignment (d4 becomes the
        // distance from the chunk start, kept in the word below the block).
        "10:",
        ".short 0x4A84", // tst.l %d4
        bs!(beq "1f"),
        "move.l %d6,%d0",
        "add.l %d4,%d0",
        ".short 0x5280", // addq.l #1,%d0
        "move.l %d4,%d1",
        "neg.l %d1",
        "and.l %d1,%d0",
        "move.l %d0,%a0",
        "sub.l %d6,%d0",
        "move.w %d0,(-2,%a0)",
        "move.l %d0,%d4",
        "1:",
        "move.l %a2,%d0",
        "beq 90f",
        // The scratch record (its version byte is in place).
        "move.l ({scratch},%a2),%a3",
        "move.b %d7,({r_kind},%a3)",
        "move.l %d3,({r_size},%a3)",
        "move.l %d6,({r_address},%a3)",
        "move.w %d4,({r_data_offset},%a3)",
        // The block's fill (in the dynamic heap only: 32b) and guard (only there); a
        // handle's chunk through its master pointer.
        "move.l %d6,%a0",
        "btst #{handle_bit},%d5",
        bs!(beq "1f"),
        "move.l (%a0),%a0",
        "1:",
        "adda.l %d4,%a0",
        "btst #{fill_bit},({opts_low},%a2)",
        bs!(bne "32b"),
        "adda.l %d3,%a0",
        "31:",
        "btst #{guarded_bit},%d5",
        bs!(beq "30f"),
        "moveq #{guard_byte},%d0",
        "move.b %d0,(%a0)+",
        "move.b %d0,(%a0)+",
        "move.b %d0,(%a0)+",
        "move.b %d0,(%a0)+",
        "30:",
        // Slot d7 (zero-extended) from the free list, else fresh_slot's (none:
        // untracked).
        "moveq #0,%d7",
        "move.w ({free_head},%a2),%d7",
        "cmpi.w #{no_slot},%d7",
        bs!(bne "1f"),
        "move.l %a2,-(%sp)",
        "jsr ({fresh_slot},%pc)",
        ".short 0x588F", // addq.l #4,%sp
        "move.w %d0,%d7",
        bs!(bpl "2f"),
        // None: untracked, and the ledger incomplete.
        "moveq #{incomplete},%d0",
        "or.l %d0,({flags},%a2)",
        ".short 0x4878, {untracked}", // pea (untracked).w
        "move.l %a2,-(%sp)",
        "jsr ({unrecorded},%pc)",
        ".short 0x508F", // addq.l #8,%sp
        "bra 80f",
        "1:",
        "move.l ({slot_next},%a2),%a0",
        "move.l %d7,%d0",
        "add.l %d0,%d0",
        "move.w (0,%a0,%d0.l),({free_head},%a2)",
        "2:",
        "trap #15",
        ".short {tim_get_ticks}",
        "move.l %d0,({r_ticks},%a3)",
        ".short 0x52AA, {seq}", // addq.l #1,(seq,%a2)
        "move.l ({seq},%a2),({r_seq},%a3)",
        // The site's file and line, copied only when the site changes (a Rust
        // block's: none, zeros); its flags; the call stack for a Rust block and with
        // CALL_STACKS, else an empty one (zeroed once).
        "move.l %a4,%d0",
        "cmp.l ({rec_site},%a2),%d0",
        bs!(beq "3f"),
        "lea ({r_file},%a3),%a0",
        "move.l %a4,%a1",
        "moveq #{file_longs},%d1",
        "move.l %d0,({rec_site},%a2)",
        bs!(beq "2f"),
        "1:",
        "move.l (%a1)+,(%a0)+",
        ".short 0x5381", // subq.l #1,%d1
        bs!(bne "1b"),
        "move.w (%a1),({r_line},%a3)",
        bs!(bra "3f"),
        "2:",
        ".short 0x4298", // clr.l (%a0)+
        ".short 0x5381", // subq.l #1,%d1
        bs!(bne "2b"),
        ".short 0x426B, {r_line}", // clr.w (r_line,%a3)
        "3:",
        ".short 0x4A80", // tst.l %d0: the site
        bs!(beq "5f"),
        "or.w ({site_flags},%a4),%d5",
        "btst #{cs_bit},({opts_low},%a2)",
        bs!(bne "5f"),
        ".short 0x4A2A, {rec_stack}", // tst.b (rec_stack,%a2)
        bs!(beq "6f"),
        ".short 0x422A, {rec_stack}", // clr.b (rec_stack,%a2)
        "lea ({r_stack},%a3),%a0",
        "moveq #{stack_words},%d1",
        "1:",
        ".short 0x4258", // clr.w (%a0)+
        ".short 0x5381", // subq.l #1,%d1
        bs!(bne "1b"),
        bs!(bra "6f"),
        "5:",
        "moveq #{frames},%d0",
        "move.l %d0,-(%sp)",
        "move.l (%a6),-(%sp)",
        "move.l (4,%a6),-(%sp)",
        ".short 0x486B, {r_stack}", // pea (r_stack,%a3)
        "move.l %a2,-(%sp)",
        "jsr ({walk},%pc)",
        "lea (20,%sp),%sp",
        "st ({rec_stack},%a2)", // nonzero
        "6:",
        "move.w %d5,({r_flags},%a3)",
        // What commit does: DmWrite(slot_rec[slot], 0, record, 82).
        "move.l ({slot_rec},%a2),%a0",
        "move.l %d7,%d0",
        "lsl.l #2,%d0",
        "moveq #{rec_size},%d1",
        "move.l %d1,-(%sp)",
        "move.l %a3,-(%sp)",
        ".short 0x42A7", // clr.l -(%sp)
        "move.l (0,%a0,%d0.l),-(%sp)",
        "trap #15",
        ".short {dm_write}",
        "lea (16,%sp),%sp",
        // The index: the first empty entry from index::home(a), as in commit.
        "move.l %d6,%d0",
        "lsr.l #2,%d0",
        "move.l %d0,%d1",
        ".short 0x4841", // swap %d1: its low word is a >> 18
        "add.w %d1,%d0",
        ".short {mulu_imm_d0}, {fib}", // mulu.w #FIB,%d0
        "move.w ({shift},%a2),%d1",
        "lsr.w %d1,%d0",
        "moveq #0,%d1",
        "move.w ({mask},%a2),%d1",
        "and.l %d1,%d0",
        "lsl.l #2,%d0",
        "lsl.l #2,%d1",
        "move.l ({keys},%a2),%a0",
        "1:",
        ".short 0x4AB0, 0x0800", // tst.l (0,%a0,%d0.l)
        bs!(beq "2f"),
        ".short 0x5880", // addq.l #4,%d0
        "and.l %d1,%d0",
        bs!(bra "1b"),
        "2:",
        "move.l %d6,(0,%a0,%d0.l)",
        "lsr.l #1,%d0",
        "move.l ({slots},%a2),%a0",
        "move.w %d7,(0,%a0,%d0.l)",
        // Counters and peaks (a0 at live_bytes, then at live_count, the next field;
        // the others by their distance from live_count).
        ".short 0x52AA, {allocations}", // addq.l #1,(allocations,%a2)
        "lea ({live_bytes},%a2),%a0",
        "add.l %d3,(%a0)",
        "move.l (%a0)+,%d0",
        "cmp.l ({peak_bytes},%a0),%d0",
        bs!(bls "1f"),
        "move.l %d0,({peak_bytes},%a0)",
        "1:",
        ".short 0x5290", // addq.l #1,(%a0): live_count
        "move.l (%a0),%d0",
        "cmp.l ({peak_count},%a0),%d0",
        bs!(bls "1f"),
        "move.l %d0,({peak_count},%a0)",
        "1:",
        "btst #{handle_bit},%d5",
        bs!(beq "1f"),
        ".short 0x52A8, {live_handles}", // addq.l #1,(live_handles,%a0)
        "1:",
        // Heap statistics: a small allocation (1..=12 bytes), the low-water marks, a
        // low heap.
        "btst #{hs_bit},({opts_low},%a2)",
        bs!(beq "80f"),
        "move.l %a2,-(%sp)",
        "moveq #{small_max},%d0",
        "cmp.l %d3,%d0",
        bs!(bcs "1f"),
        ".short 0x4A83", // tst.l %d3
        bs!(beq "1f"),
        "move.l %d3,-(%sp)",
        "move.l %a4,-(%sp)",
        "move.l %a2,-(%sp)",
        "jsr ({small},%pc)",
        "lea (12,%sp),%sp",
        "1:",
        "jsr ({heap_marks},%pc)",
        "move.l ({threshold},%a2),%d0",
        "cmp.l ({heap_max},%a2),%d0",
        bs!(bls "1f"),
        "btst #{low_bit},({flags_low},%a2)",
        bs!(bne "1f"),
        "jsr ({low_heap},%pc)",
        "1:",
        ".short 0x588F", // addq.l #4,%sp
        "80:",
        ".short 0x4212", // clr.b (%a2): busy
        "90:",
        "move.l %d6,%a0",
        "adda.l %d4,%a0",
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        enter = sym enter,
        unrecorded = sym crate::track::unrecorded,
        fresh_slot = sym fresh_slot,
        walk = sym walk,
        small = sym crate::track::small,
        heap_marks = sym heap_marks,
        low_heap = sym crate::track::low_heap,
        chunk = const kind::CHUNK,
        handle = const kind::HANDLE,
        fixed = const memNewChunkFlagNonMovable | memNewChunkFlagPreLock,
        f_handle = const AllocFlags::HANDLE.bits(),
        f_not_dynamic = const AllocFlags::NOT_DYNAMIC.bits(),
        guarded_bit = const AllocFlags::GUARDED.bits().trailing_zeros(),
        handle_bit = const AllocFlags::HANDLE.bits().trailing_zeros(),
        nd_bit = const AllocFlags::NOT_DYNAMIC.bits().trailing_zeros(),
        opts_low = const offset_of!(State, options) + 3,
        guards_bit = const Options::GUARDS.bits().trailing_zeros(),
        fill_bit = const Options::FILL_NEW.bits().trailing_zeros(),
        cs_bit = const Options::CALL_STACKS.bits().trailing_zeros(),
        hs_bit = const Options::HEAP_STATS.bits().trailing_zeros(),
        flags_low = const offset_of!(State, flags) + 3,
        low_bit = const HeaderFlags::LOW_HEAP.bits().trailing_zeros(),
        max_guarded = const crate::api::MAX_CHUNK - GUARD_LEN as u32,
        max_align = const MAX_ALIGN,
        failed = const offset_of!(Counters, failed),
        untracked = const offset_of!(Counters, untracked),
        incomplete = const HeaderFlags::INCOMPLETE.bits(),
        flags = const offset_of!(State, flags),
        ptr_new = const palm::traps::sysTrapMemPtrNew,
        handle_new = const palm::traps::sysTrapMemHandleNew,
        chunk_new = const palm::traps::sysTrapMemChunkNew,
        tim_get_ticks = const palm::traps::sysTrapTimGetTicks,
        dm_write = const palm::traps::sysTrapDmWrite,
        fill_byte = const FILL_NEW_BYTE,
        guard_byte = const GUARD_BYTE as i8,
        free_head = const offset_of!(State, free_head),
        slot_next = const offset_of!(State, slot_next),
        slot_rec = const offset_of!(State, slot_rec),
        no_slot = const NO_SLOT,
        scratch = const offset_of!(State, scratch),
        seq = const offset_of!(State, seq),
        rec_site = const offset_of!(State, rec_site),
        rec_stack = const offset_of!(State, rec_stack),
        threshold = const offset_of!(State, low_heap_threshold),
        heap_max = const offset_of!(State, heap_max),
        site_flags = const offset_of!(Site, flags),
        r_kind = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, kind),
        r_flags = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, flags),
        r_size = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, size),
        r_address = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, address),
        r_seq = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, seq),
        r_ticks = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, ticks),
        r_line = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, line),
        r_data_offset = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, data_offset),
        r_stack = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, stack),
        r_file = const offset_of!(Scratch, rec) + offset_of!(AllocRecord, file),
        rec_size = const crate::record::ALLOC_RECORD_SIZE,
        file_longs = const FILE_NAME_LEN / 4,
        stack_words = const core::mem::size_of::<Stack>() / 2,
        frames = const STACK_FRAMES,
        small_max = const SMALL_ALLOC_MAX,
        mulu_imm_d0 = const crate::index::MULU_IMM_D0,
        fib = const crate::index::FIB,
        shift = const offset_of!(State, index) + offset_of!(Index, shift),
        mask = const offset_of!(State, index) + offset_of!(Index, mask),
        keys = const offset_of!(State, index) + offset_of!(Index, keys),
        slots = const offset_of!(State, index) + offset_of!(Index, slots),
        allocations = const offset_of!(State, allocations),
        live_bytes = const offset_of!(State, live_bytes),
        peak_bytes = const offset_of!(State, peak_bytes) - offset_of!(State, live_count),
        peak_count = const offset_of!(State, peak_count) - offset_of!(State, live_count),
        live_handles = const offset_of!(State, live_handles) - offset_of!(State, live_count),
    )
}

/// Host stand-in for the 68k's [`alloc`] (same effect), with the arguments the
/// assembly takes in registers and `a6`, the frame of the function the program
/// called; returns the address handed to the program (0 on failure).
#[cfg(not(target_arch = "m68k"))]
pub fn alloc(k: u8, how: u32, site: *const Site, size: u32, a6: u32) -> u32 {
    use crate::record::{Counters, FILL_NEW_BYTE, GUARD_LEN, Options, kind};
    use m68k_palmos_sys::mem::{memNewChunkFlagNonMovable, memNewChunkFlagPreLock};
    let st = crate::state::enter();
    // The HANDLE and NOT_DYNAMIC flags; over-aligned Rust blocks: room to move the
    // block up to its alignment (`how` is 0 for pointers and handles).
    let mut flags = 0;
    let mut pad = 0;
    if k == kind::CHUNK {
        if how >> 16 != 0 {
            flags = AllocFlags::NOT_DYNAMIC.bits();
        }
        if how as u16 & (memNewChunkFlagNonMovable | memNewChunkFlagPreLock) == 0 {
            flags |= AllocFlags::HANDLE.bits();
        }
    } else {
        pad = how;
        if k == kind::HANDLE {
            flags = AllocFlags::HANDLE.bits();
        }
    }
    let want = size.wrapping_add(pad);
    match &st {
        Some(st)
            if flags & AllocFlags::NOT_DYNAMIC.bits() == 0
                && st.has(Options::GUARDS)
                && want <= crate::api::MAX_CHUNK - GUARD_LEN as u32 =>
        {
            flags |= AllocFlags::GUARDED.bits();
        }
        None if pad > MAX_ALIGN => return 0,
        _ => {}
    }
    let base = loop {
        let extra = if flags & AllocFlags::GUARDED.bits() != 0 {
            GUARD_LEN as u32
        } else {
            0
        };
        let base = os_alloc(k, want + extra, how);
        if base != 0 {
            break base;
        }
        if flags & AllocFlags::GUARDED.bits() == 0 {
            if let Some(st) = st {
                crate::track::unrecorded(st, core::mem::offset_of!(Counters, failed));
                crate::state::leave(st);
            }
            return 0;
        }
        flags &= !AllocFlags::GUARDED.bits();
    };
    let mut off = 0u32;
    if pad != 0 {
        let o = m68k_palmos_sys::allocator::aligned_offset(base as usize, pad as usize);
        // SAFETY: 2 <= o <= align, so the word below the block is inside the chunk;
        // dealloc reads it to find the chunk start.
        unsafe { ((base as usize + o - 2) as *mut u16).write(o as u16) };
        off = o as u32;
    }
    let Some(st) = st else {
        return base + off;
    };
    let r = &mut st.sc().rec;
    r.kind = k;
    r.size.set(size);
    r.address.set(base);
    r.data_offset.set(off as u16);
    r.flags.set(flags);
    let fill = if st.has(Options::FILL_NEW) {
        FILL_NEW_BYTE
    } else {
        0
    };
    crate::track::prepare(base, flags, off, off + size, fill);
    crate::track::allocated(st, site, a6);
    crate::state::leave(st);
    base + off
}

/// Allocates `size` bytes the way kind `k` does: `MemHandleNew`, `MemChunkNew` (heap
/// and attributes in `how`) or `MemPtrNew` (pointers and Rust allocations); 0 on
/// failure. (The host stand-in's; the 68k's [`alloc`] makes these calls itself.)
#[cfg(not(target_arch = "m68k"))]
fn os_alloc(k: u8, size: u32, how: u32) -> u32 {
    use crate::record::kind;
    use m68k_palmos_sys as palm;
    // SAFETY: the three calls take any size (and heap/attributes) and return a
    // chunk, a handle or null.
    unsafe {
        if k == kind::HANDLE {
            palm::MemHandleNew(size) as u32
        } else if k == kind::CHUNK {
            palm::MemChunkNew((how >> 16) as u16, size, how as u16) as u32
        } else {
            palm::MemPtrNew(size) as u32
        }
    }
}

/// The largest alignment palm-sys's `PalmAlloc` serves (`chunk_size`: above it, null
/// without an OS call); [`alloc`] does the same when the detector is not entered.
const MAX_ALIGN: u32 = 0x8000;

/// A slot for [`alloc`]'s record when the free list is empty: a new record or the
/// oldest quarantined one ([`State::take_slot`]); −1 when there is none. (An `i16`:
/// slot numbers are below 5,462, and `alloc` moves the word into a zero-extended
/// slot.)
#[cfg(target_arch = "m68k")]
extern "C" fn fresh_slot(st: &mut State) -> i16 {
    // SAFETY: alloc calls it only when the free list is empty (so LLVM leaves out
    // take_slot's pop).
    unsafe { core::hint::assert_unchecked(st.free_head == NO_SLOT) };
    st.take_slot().map_or(-1, |s| s as i16)
}

/// Completes a new allocation whose scratch record is complete (kind, flags, size,
/// address, sequence number, ticks, site and stack), in slot `slot`: writes the
/// record to the slot's ledger record (one `DmWrite`), enters the address in the
/// index, and counts the block (allocations, live blocks and bytes, live handles by
/// the record's [`AllocFlags::HANDLE`], peaks). The host's, for
/// [`crate::track::allocated`]; on the 68k, [`alloc`] does it in assembly.
///
/// # Safety
/// `st` is the entered state; `slot` was just taken (its ledger record is locked);
/// the record's address is nonzero and not in the index, which has an empty entry.
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
/// to them. After every tracked allocation ([`alloc`], [`crate::track::allocated`]),
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
        // max@44. Registers: a2 out, a1 the state (then the next frame slot), d2 ret,
        // d3 frame, d4 frames still allowed, d5 code's base, d6 its length, d1 the
        // raw-mask bit.
        "movem.l %d2-%d6/%a2,-(%sp)",
        // The arguments in order from a0.
        "lea (28,%sp),%a0",
        "move.l (%a0)+,%a1",
        "move.l ({code_base},%a1),%d5",
        "move.l ({code_end},%a1),%d6",
        "sub.l %d5,%d6",
        "move.l (%a0)+,%a2",
        "move.l (%a0)+,%d2",
        "move.l (%a0)+,%d3",
        // max 0: as the options say.
        "move.l (%a0),%d4",
        bs!(bne "1f"),
        "moveq #1,%d4",
        "btst #{cs_bit},({cs_byte},%a1)",
        bs!(beq "1f"),
        "moveq #{frames},%d4",
        "1:",
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
        // Outside code 1: raw, and the last frame (d4 = 1 ends the walk after it).
        "or.b %d1,(1,%a2)",
        "move.l %d2,%d0",
        "moveq #1,%d4",
        "3:",
        "move.l %d0,(%a1)+",
        ".short 0x5212", // addq.b #1,(%a2)
        "add.b %d1,%d1",
        ".short 0x5384", // subq.l #1,%d4
        bs!(beq "9f"),
        // The next frame: from an even, nonzero frame pointer (shifted out: odd
        // sets C, 0 or 1 leaves 0), an even return address.
        "move.l %d3,%d0",
        "lsr.l #1,%d0",
        bs!(bcs "9f"),
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
        cs_byte = const crate::state::flag_byte(offset_of!(State, options), Options::CALL_STACKS.bits()),
        cs_bit = const crate::state::flag_bit(Options::CALL_STACKS.bits()),
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
        "st (%a0)", // busy
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
// The options and header flags the assembly tests with byte operations are in
// their low byte.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    Options::GUARDS
        .union(Options::CALL_STACKS)
        .union(Options::HEAP_STATS)
        .union(Options::FILL_NEW)
        .bits()
        < 256
);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(HeaderFlags::LOW_HEAP.bits() < 256);
// alloc: `addq.w #1` sets GUARDED; the flags it loads with moveq fit.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(AllocFlags::GUARDED.bits(), 1);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    AllocFlags::HANDLE.bits() < 128 && AllocFlags::NOT_DYNAMIC.bits() < 128
);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(FILL_NEW_BYTE < 128 && HeaderFlags::INCOMPLETE.bits() < 128);
// alloc steps from live_bytes to live_count (and reaches the peaks and live_handles
// after it).
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    offset_of!(State, live_count) == offset_of!(State, live_bytes) + 4
        && offset_of!(State, peak_bytes) > offset_of!(State, live_count)
        && offset_of!(State, peak_count) > offset_of!(State, live_count)
        && offset_of!(State, live_handles) > offset_of!(State, live_count)
);
// alloc copies a site's file as longs and its line right after it.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    offset_of!(Site, file) == 0
        && offset_of!(Site, line) == FILE_NAME_LEN
        && FILE_NAME_LEN % 4 == 0
);
// `busy` is addressed as `(%aN)`.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(offset_of!(State, busy), 0);
// `addq.l #4,%d0` adds the guard's length.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(GUARD_LEN, 4);
