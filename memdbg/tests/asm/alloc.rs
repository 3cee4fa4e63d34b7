//! `asm/alloc.s`: `__memdbg_alloc`.

use std::mem::offset_of;

use memdbg::record::{
    ALLOC_RECORD_SIZE, AllocFlags, AllocRecord, Counters, FILL_NEW_BYTE, FileName, Frame,
    GUARD_BYTE, Header, HeaderFlags, Options, Record, kind,
};

use crate::machine::{CODE, DATA, Machine, Regs, SCRATCH, STATE, k, slot_record};
use crate::os::HANDLE_MAGIC;

/// A site (a `memdbg::Site`, as the wrappers' constants are) at this address.
pub const SITE: u32 = DATA + 0x1000;
/// Another one.
const SITE2: u32 = DATA + 0x1040;
/// The frame of "the function the program called" (A6), returning into code 1.
pub const FRAME: u32 = DATA + 0x2000;
/// Where that frame returns: a call site in the program.
pub const CALL_SITE: u32 = CODE + 0x0124;

/// The default settings' options.
pub fn defaults() -> u32 {
    (Options::GUARDS | Options::HEAP_STATS | Options::PATCH_FREES).bits()
}

/// A machine with a running state (`options`, four slots made, a 16-entry index),
/// a site "src/x.rs":42 at [`SITE`] and one at [`SITE2`], and a program frame.
pub fn machine(options: u32) -> Machine {
    let mut m = Machine::with_state(options, 4, 4, 16);
    write_site(&mut m, SITE, "src/x.rs", 42, 0);
    write_site(&mut m, SITE2, "src/very/long/path/to/a/module/y.rs", 7, 8);
    m.set_long(FRAME, FRAME + 0x40); // the program's frame: its saved A6
    m.set_long(FRAME + 4, CALL_SITE);
    m.set_long(FRAME + 0x40, 0);
    m.set_long(FRAME + 0x44, 0x00C0_0000); // returning into the OS
    m
}

fn write_site(m: &mut Machine, at: u32, file: &str, line: u16, flags: u16) {
    m.emu.load(at, &FileName::new(file.as_bytes()).0);
    m.set_word(at + 32, line);
    m.set_word(at + 34, flags);
}

/// `__memdbg_alloc` of `size` bytes of `kind`, `how` as the wrappers pass it, from
/// `site`, called with A6 = [`FRAME`]: what the program gets.
pub fn alloc(m: &mut Machine, kind: u8, how: u32, site: u32, size: u32) -> u32 {
    let regs = Regs::new()
        .a(1, kind.into())
        .d(0, how)
        .a(0, site)
        .d(1, size)
        .a(6, FRAME);
    m.call("__memdbg_alloc", regs, &[]).a[0]
}

/// A header counter (in the scratch header, counted all along).
pub fn counter(m: &Machine, at: usize) -> u32 {
    m.long(SCRATCH + k("SC_HEADER") + (offset_of!(Header, counters) + at) as u32)
}

#[test]
fn a_guarded_pointer_is_recorded_guarded_and_indexed() {
    let mut m = machine(defaults());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_eq!(m.os.chunks[0].body, p);
    assert_eq!(m.os.chunks[0].size, 20, "room for the guard");
    assert_eq!(m.bytes(p + 16, 4), [GUARD_BYTE; 4]);
    // The record: one DmWrite of the scratch record into slot 0's.
    assert_eq!(m.os.writes.len(), 1);
    assert_eq!(m.os.writes[0].0, slot_record(0));
    assert_eq!(
        (m.os.writes[0].1, m.os.writes[0].2.len()),
        (0, ALLOC_RECORD_SIZE)
    );
    let r = m.record(slot_record(0));
    assert_eq!(
        (r.kind, r.alloc_flags()),
        (kind::POINTER, AllocFlags::GUARDED)
    );
    assert_eq!(
        (r.size.get(), r.address.get(), r.data_offset.get()),
        (16, p, 0)
    );
    // No ticks from format version 5 on: the sequence number says when.
    assert_eq!((r.seq.get(), r.ticks.get(), r.alloc_ticks()), (1, 0, None));
    assert_eq!((r.file.bytes(), r.line.get()), (&b"src/x.rs"[..], 42));
    assert_eq!(r.stack.count, 0, "no call stack without CALL_STACKS");
    // Indexed, counted, the heap sampled, the slot taken off the free list.
    assert_eq!(m.indexed(p), Some(0));
    assert_eq!(m.st_word("ST_FREE_HEAD"), 1);
    for (field, want) in [
        ("ST_ALLOCATIONS", 1),
        ("ST_LIVE_COUNT", 1),
        ("ST_LIVE_BYTES", 16),
        ("ST_PEAK_COUNT", 1),
        ("ST_PEAK_BYTES", 16),
        ("ST_LIVE_HANDLES", 0),
        ("ST_LOW_FREE", 50_000),
        ("ST_SEQ", 1),
    ] {
        assert_eq!(m.st_long(field), want, "{field}");
    }
    assert_eq!(m.byte(STATE + k("ST_BUSY")), 0, "left");
    // FtrGet, MemPtrNew, DmWrite, MemHeapFreeBytes: no TimGetTicks.
    assert_eq!(m.os.traps, [0xA27B, 0xA013, 0xA076, 0xA00B]);
}

#[test]
fn handles_and_chunks_get_their_flags_and_guards_by_kind_and_heap() {
    let mut m = machine(defaults());
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 10);
    let chunk = m.long(h);
    assert_eq!(m.os.chunks[0].handle, Some(h));
    assert_eq!(
        m.bytes(chunk + 10, 4),
        [GUARD_BYTE; 4],
        "through the master pointer"
    );
    let r = m.record(slot_record(0));
    assert_eq!(r.alloc_flags(), AllocFlags::GUARDED | AllocFlags::HANDLE);
    assert_eq!(m.st_long("ST_LIVE_HANDLES"), 1);
    // MemChunkNew(0, 8, non-movable): a pointer, guarded.
    let p = alloc(&mut m, kind::CHUNK, 0x0000_0200, SITE, 8);
    assert!(m.os.chunks[1].handle.is_none());
    assert_eq!(m.bytes(p + 8, 4), [GUARD_BYTE; 4]);
    assert_eq!(m.record(slot_record(1)).alloc_flags(), AllocFlags::GUARDED);
    // MemChunkNew(1, 8, 0): a handle in a storage heap: no guard, exactly 8 bytes.
    let s = alloc(&mut m, kind::CHUNK, 0x0001_0000, SITE, 8);
    assert_eq!(m.os.chunks[2].size, 8);
    assert_eq!(m.os.chunks[2].handle, Some(s));
    let r = m.record(slot_record(2));
    assert_eq!(
        r.alloc_flags(),
        AllocFlags::HANDLE | AllocFlags::NOT_DYNAMIC
    );
    assert_eq!(m.st_long("ST_LIVE_HANDLES"), 2);
}

#[test]
fn new_blocks_are_filled_with_fill_new() {
    let mut m = machine(defaults() | Options::FILL_NEW.bits());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 7);
    assert_eq!(
        m.bytes(p, 11),
        [&[FILL_NEW_BYTE; 7][..], &[GUARD_BYTE; 4]].concat()
    );
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 3);
    assert_eq!(
        m.bytes(m.long(h), 7),
        [0x31, 0x31, 0x31, 0xFD, 0xFD, 0xFD, 0xFD]
    );
}

/// A machine as [`machine`], whose handles are not master pointers and whose
/// state says so (the start's probe failed: `ST_DOCUMENTED`).
pub fn documented(options: u32) -> Machine {
    let mut m = machine(options);
    m.os.opaque = true;
    m.set_byte(STATE + k("ST_DOCUMENTED"), 1);
    m
}

#[test]
fn with_documented_calls_a_handle_is_filled_and_guarded_while_locked() {
    let mut m = documented(defaults() | Options::FILL_NEW.bits());
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 3);
    let body = m.os.chunks[0].body;
    assert_eq!(
        m.long(h),
        HANDLE_MAGIC,
        "nothing written through the handle"
    );
    assert_eq!(m.bytes(body, 7), [0x31, 0x31, 0x31, 0xFD, 0xFD, 0xFD, 0xFD]);
    assert_eq!(m.os.locks[&h], 0, "unlocked again");
    // FtrGet, MemHandleNew, MemHandleLock, MemHandleUnlock, DmWrite,
    // MemHeapFreeBytes (no TimGetTicks).
    assert_eq!(m.os.traps, [0xA27B, 0xA01E, 0xA021, 0xA022, 0xA076, 0xA00B]);
    let r = m.record(slot_record(0));
    assert_eq!(r.alloc_flags(), AllocFlags::GUARDED | AllocFlags::HANDLE);
    assert_eq!(r.address.get(), h);
    // A pointer is its chunk: no lock.
    m.os.traps.clear();
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 2);
    assert_eq!(m.bytes(p, 6), [0x31, 0x31, 0xFD, 0xFD, 0xFD, 0xFD]);
    assert!(!m.os.traps.contains(&0xA021), "{:x?}", m.os.traps);
}

/// Without GUARDS a documented-path handle is only filled while locked: the
/// bytes after its block stay the OS's.
#[test]
fn with_documented_calls_a_handle_without_guard_is_filled_while_locked() {
    let options = (Options::HEAP_STATS | Options::PATCH_FREES | Options::FILL_NEW).bits();
    let mut m = documented(options);
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 3);
    let body = m.os.chunks[0].body;
    assert_eq!(m.os.chunks[0].size, 3, "no room for a guard");
    assert_eq!(m.bytes(body, 3), [0x31; 3]);
    assert_ne!(m.bytes(body + 3, 4), [0xFD; 4], "no guard");
    assert_eq!(m.os.locks[&h], 0, "unlocked again");
    let r = m.record(slot_record(0));
    assert_eq!(r.alloc_flags(), AllocFlags::HANDLE);
    // FtrGet, MemHandleNew, MemHandleLock, MemHandleUnlock, DmWrite,
    // MemHeapFreeBytes.
    assert_eq!(m.os.traps, [0xA27B, 0xA01E, 0xA021, 0xA022, 0xA076, 0xA00B]);
}

/// While the unlock traps are patched, memdbg's own unlock goes to the saved
/// original with JSR, not through its own patch: here the original is made
/// `MemHandleSize`'s stub, so that the trap it calls tells which way it went.
#[test]
fn with_documented_calls_and_the_unlocks_patched_memdbg_unlocks_through_the_original() {
    let mut m = documented(defaults());
    m.set_byte(STATE + k("ST_PATCHED"), 1 << k("PATCHED_UNLOCKS_BIT"));
    let size_stub = m.st_long("ST_ORIG_HANDLE_SIZE");
    m.set_long(STATE + k("ST_ORIG_HANDLE_UNLOCK"), size_stub);
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 5);
    // FtrGet, MemHandleNew, MemHandleLock, the "original" (MemHandleSize's
    // stub: no TRAP #15 MemHandleUnlock), DmWrite, MemHeapFreeBytes.
    assert_eq!(m.os.traps, [0xA27B, 0xA01E, 0xA021, 0xA02D, 0xA076, 0xA00B]);
    assert_eq!(m.os.locks[&h], 1, "that original does not unlock");
}

#[test]
fn with_documented_calls_a_handle_without_fill_is_guarded_while_locked() {
    let mut m = documented(defaults());
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 5);
    let body = m.os.chunks[0].body;
    assert_eq!(m.bytes(body + 5, 4), [0xFD; 4], "the guard after 5 bytes");
    assert_ne!(m.bytes(body, 5), [0x31; 5], "no FILL_NEW fill");
    assert_eq!(m.os.locks[&h], 0, "unlocked again");
    // FtrGet, MemHandleNew, MemHandleLock, MemHandleUnlock, DmWrite,
    // MemHeapFreeBytes (no TimGetTicks).
    assert_eq!(m.os.traps, [0xA27B, 0xA01E, 0xA021, 0xA022, 0xA076, 0xA00B]);
}

#[test]
fn an_over_aligned_rust_block_moves_up_to_its_alignment_with_its_call_stack() {
    let mut m = machine(defaults());
    // MemDbgAlloc's "how" for an 8-aligned layout: 8 bytes of room.
    let p = alloc(&mut m, kind::RUST, 8, 0, 12);
    let chunk = m.os.chunks[0].body;
    assert_eq!(m.os.chunks[0].size, 12 + 8 + 4);
    assert_eq!(p % 8, 0, "aligned");
    let offset = p - chunk;
    assert!((2..=8).contains(&offset));
    assert_eq!(
        u32::from(m.word(p - 2)),
        offset,
        "the distance below the block"
    );
    assert_eq!(m.bytes(p + 12, 4), [GUARD_BYTE; 4]);
    let r = m.record(slot_record(0));
    assert_eq!((r.kind, r.address.get()), (kind::RUST, chunk));
    assert_eq!(u32::from(r.data_offset.get()), offset);
    assert_eq!(r.file.bytes(), b"", "no site");
    // Its call stack always: the program's call site, then the OS (raw).
    let frames: Vec<Frame> = r.stack.iter().collect();
    assert_eq!(frames, [Frame::Code(0x0124), Frame::Raw(0x00C0_0000)]);
}

#[test]
fn without_room_for_the_guard_the_request_is_made_exactly() {
    let mut m = machine(defaults());
    m.os.heap_room = 16;
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_ne!(p, 0);
    assert_eq!(m.os.chunks[0].size, 16);
    assert_eq!(
        m.os.traps.iter().filter(|&&t| t == 0xA013).count(),
        2,
        "20 refused, 16 given"
    );
    assert_eq!(m.record(slot_record(0)).alloc_flags(), AllocFlags::empty());
}

#[test]
fn a_refused_allocation_is_counted_and_the_heap_sampled() {
    let mut m = machine(defaults());
    m.os.heap_room = 0;
    assert_eq!(alloc(&mut m, kind::POINTER, 0, SITE, 16), 0);
    assert_eq!(counter(&m, offset_of!(Counters, failed)), 1);
    assert_eq!(m.st_long("ST_LOW_FREE"), 50_000, "sampled");
    assert!(m.os.writes.is_empty(), "nothing recorded");
    assert_eq!(m.st_long("ST_ALLOCATIONS"), 0);
    assert_eq!(m.byte(STATE + k("ST_BUSY")), 0);
}

#[test]
fn not_entered_it_is_the_plain_allocation() {
    for busy in [false, true] {
        let mut m = machine(defaults());
        if busy {
            m.set_byte(STATE + k("ST_BUSY"), 1);
        } else {
            m.os.feature = None;
        }
        let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
        assert_eq!(
            (m.os.chunks[0].body, m.os.chunks[0].size),
            (p, 16),
            "no guard"
        );
        assert_eq!(m.os.traps, [0xA27B, 0xA013], "FtrGet and MemPtrNew only");
        assert_eq!(m.byte(STATE + k("ST_BUSY")), u8::from(busy));
        // PalmAlloc's limit: no alignment above 0x8000 (no OS call).
        m.os.traps.clear();
        assert_eq!(alloc(&mut m, kind::RUST, 0x1_0000, 0, 4), 0);
        assert_eq!(m.os.traps, [0xA27B]);
    }
}

#[test]
fn the_site_is_copied_only_when_it_changes() {
    let mut m = machine(defaults());
    alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_eq!(m.st_long("ST_REC_SITE"), SITE);
    // The scratch record keeps the file: a second allocation there copies nothing,
    // and its record still names the site.
    m.set_byte(SITE, b'X');
    alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_eq!(m.record(slot_record(1)).file.bytes(), b"src/x.rs");
    let r = {
        alloc(&mut m, kind::POINTER, 0, SITE2, 16);
        m.record(slot_record(2))
    };
    let cut = FileName::new(b"src/very/long/path/to/a/module/y.rs");
    assert_eq!((r.file, r.line.get()), (cut, 7));
    assert_eq!(
        r.alloc_flags(),
        AllocFlags::GUARDED | AllocFlags::FILE_TRUNCATED
    );
    // A Rust block after it: no file, line 0.
    alloc(&mut m, kind::RUST, 0, 0, 16);
    let r = m.record(slot_record(3));
    assert_eq!((r.file.bytes(), r.line.get()), (&b""[..], 0));
}

#[test]
fn with_call_stacks_the_wrappers_records_have_theirs() {
    let mut m = machine(defaults() | Options::CALL_STACKS.bits());
    alloc(&mut m, kind::POINTER, 0, SITE, 16);
    let frames: Vec<Frame> = m.record(slot_record(0)).stack.iter().collect();
    assert_eq!(frames, [Frame::Code(0x0124), Frame::Raw(0x00C0_0000)]);
    assert_ne!(m.byte(STATE + k("ST_REC_STACK")), 0);
    // Without them again, the scratch stack is cleared once.
    m.set_st_long("ST_OPTIONS", defaults());
    alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_eq!(m.record(slot_record(1)).stack.count, 0);
    assert_eq!(m.record(slot_record(1)).stack.frames[1].get(), 0);
    assert_eq!(m.byte(STATE + k("ST_REC_STACK")), 0);
}

#[test]
fn the_record_carries_the_scratch_records_generation() {
    // memdbg::checkpoint sets the scratch record's generation; the allocation
    // copies it with the rest of the record (no instruction of its own).
    let mut m = machine(defaults());
    let generation = SCRATCH + k("SC_REC") + offset_of!(AllocRecord, generation) as u32;
    m.set_byte(generation, 7);
    alloc(&mut m, kind::POINTER, 0, SITE, 16);
    m.set_byte(generation, 8);
    alloc(&mut m, kind::HANDLE, 0, SITE, 16);
    let r = (m.record(slot_record(0)), m.record(slot_record(1)));
    assert_eq!(
        (r.0.generation, r.0.reserved, r.1.generation, r.1.reserved),
        (7, 0, 8, 0)
    );
}

#[test]
fn a_new_slot_is_a_new_record_and_none_left_is_an_untracked_allocation() {
    // No slot made yet, room for one: __memdbg_fresh_slot makes its record.
    let mut m = Machine::with_state(defaults(), 1, 0, 16);
    write_site(&mut m, SITE, "src/x.rs", 42, 0);
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_eq!(m.os.new_records.len(), 1);
    let rec = m.os.new_records[0].1;
    assert_eq!(m.os.new_records[0].0, ALLOC_RECORD_SIZE as u32);
    assert_eq!(m.long(crate::machine::SLOT_REC), rec);
    assert_eq!(m.st_word("ST_N_SLOTS"), 1);
    assert_eq!(m.record(rec).address.get(), p);
    // The capacity reached, the ring empty: handed out untracked.
    let q = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_ne!(q, 0);
    assert_eq!(m.indexed(q), None);
    assert_eq!(counter(&m, offset_of!(Counters, untracked)), 1);
    assert_ne!(m.st_long("ST_FLAGS") & HeaderFlags::INCOMPLETE.bits(), 0);
    assert_eq!(m.st_long("ST_ALLOCATIONS"), 1);
    assert_eq!(m.byte(STATE + k("ST_BUSY")), 0);
}

#[test]
fn small_allocations_are_counted_per_site() {
    let mut m = machine(defaults());
    alloc(&mut m, kind::POINTER, 0, SITE, 8);
    alloc(&mut m, kind::POINTER, 0, SITE, 12);
    alloc(&mut m, kind::POINTER, 0, SITE, 13); // not small
    let sites = SCRATCH + k("SC_SITES");
    assert_eq!(m.byte(STATE + k("ST_N_SITES")), 1);
    assert_eq!(
        (m.long(sites), m.long(sites + 4), m.long(sites + 8)),
        (SITE, 2, 20)
    );
    assert_eq!(counter(&m, offset_of!(Counters, small_allocs)), 2);
}

#[test]
fn a_low_heap_is_warned_of_once() {
    let mut m = machine(defaults() | Options::DBG_MESSAGES.bits());
    m.set_st_long("ST_LOW_HEAP_THRESHOLD", 45_000);
    alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_ne!(m.st_long("ST_FLAGS") & HeaderFlags::LOW_HEAP.bits(), 0);
    assert_eq!(
        m.os.messages,
        ["memdbg: largest free chunk 40000 bytes < 45000 (free 50000)"]
    );
    let (size, rec) = m.os.new_records[0];
    let Record::LowHeap(l) = Record::decode(&m.bytes(rec, size)).unwrap() else {
        panic!("not a low-heap record")
    };
    assert_eq!(
        (l.free.get(), l.largest.get(), l.threshold.get()),
        (50_000, 40_000, 45_000)
    );
    assert_eq!(l.alloc.file.bytes(), b"src/x.rs", "naming the allocation");
    alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_eq!(m.os.messages.len(), 1, "once");
}
