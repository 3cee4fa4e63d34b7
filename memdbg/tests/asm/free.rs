//! `asm/free.s`: `__memdbg_free_block` (and the Rust it calls for an address the
//! index does not hold, and for a damaged guard).

use std::mem::offset_of;

use memdbg::record::{
    AllocFlags, Counters, FILL_FREED_BYTE, Frame, GUARD_BYTE, Options, Record, detected, kind,
};

use crate::alloc::{FRAME, SITE, alloc, counter, defaults, documented, machine};
use crate::machine::{CODE, DATA, Machine, Regs, SCRATCH, STATE, k, slot_record};

/// The free call's return address: a site in the program.
const FREE_SITE: u32 = CODE + 0x0456;

/// `__memdbg_free_block` of `addr` (`handle`: by MemHandleFree) from `ret`, with
/// the state entered: FREED_PASS (true) or FREED_REFUSE.
fn free(m: &mut Machine, addr: u32, handle: bool, ret: u32) -> bool {
    m.set_byte(STATE + k("ST_BUSY"), 0xFF);
    let regs = Regs::new()
        .a(0, STATE)
        .d(0, addr)
        .d(1, handle.into())
        .a(1, ret)
        .d(2, FRAME);
    let r = m.call("__memdbg_free_block", regs, &[]);
    assert_eq!(m.z(), r.d[0] == k("FREED_PASS"), "Z exactly for a pass");
    match r.d[0] {
        0 => true,
        1 => false,
        other => panic!("free_block answered {other}"),
    }
}

/// Ring entry `i`: (address, the sequence number of the last allocation before
/// the free, slot, kind).
fn ring(m: &Machine, i: u32) -> (u32, u32, u16, u8) {
    let r = SCRATCH + k("SC_RING");
    (
        m.long(r + k("RING_ADDR") + 4 * i),
        m.long(r + k("RING_AFTER_SEQ") + 4 * i),
        m.word(r + k("RING_SLOT") + 2 * i),
        m.byte(r + k("RING_KIND") + i),
    )
}

/// Ring entry `i`'s site: (count, raw mask, first frame).
fn ring_site(m: &Machine, i: u32) -> (u8, u8, u32) {
    let s = SCRATCH + k("SC_RING") + k("RING_SITE") + (i << k("RING_SITE_SHIFT"));
    (
        m.byte(s + k("STACK_COUNT")),
        m.byte(s + k("STACK_RAW_MASK")),
        m.long(s + k("STACK_FRAMES_AT")),
    )
}

#[test]
fn a_tracked_free_quarantines_the_block_in_the_ring() {
    let mut m = machine(defaults());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert!(free(&mut m, p, false, FREE_SITE));
    // After allocation 1 (the free reads no ticks).
    assert_eq!(ring(&m, 0), (p, 1, 0, kind::POINTER));
    assert_eq!(
        ring_site(&m, 0),
        (1, 0, FREE_SITE - CODE),
        "one frame, in code 1"
    );
    assert_eq!(m.byte(STATE + k("ST_RING_NEXT")), 1);
    // The record's kind byte says free; the rest stays (for a double free).
    assert_eq!(m.os.sets, [(slot_record(0), 0, 1, kind::FREE_SLOT)]);
    assert_eq!(m.long(slot_record(0) + k("REC_ADDRESS")), p);
    assert_eq!(m.indexed(p), None);
    for (field, want) in [
        ("ST_FREES", 1),
        ("ST_OS_FREES", 0),
        ("ST_LIVE_COUNT", 0),
        ("ST_LIVE_BYTES", 0),
    ] {
        assert_eq!(m.st_long(field), want, "{field}");
    }
    // The slot stays out of the free list while in the ring.
    assert_eq!(m.st_word("ST_FREE_HEAD"), 1);
    // After the allocation's four traps (FtrGet, MemPtrNew, DmWrite,
    // MemHeapFreeBytes), DmSet: nothing else (no TimGetTicks).
    assert_eq!(&m.os.traps[4..], [0xA07E]);
}

#[test]
fn the_ring_hands_back_the_oldest_slot_when_it_wraps() {
    let n = k("RING_MASK") as usize + 1;
    assert_eq!(n, 16);
    let mut m = Machine::with_state(defaults(), 32, 20, 64);
    let blocks: Vec<u32> = (0..=n)
        .map(|_| alloc(&mut m, kind::POINTER, 0, 0, 8))
        .collect();
    for &b in &blocks[..n] {
        assert!(free(&mut m, b, false, FREE_SITE));
    }
    assert_eq!(
        m.st_word("ST_FREE_HEAD"),
        n as u16 + 1,
        "slots 0-15 quarantined"
    );
    assert!(free(&mut m, blocks[n], false, FREE_SITE));
    assert_eq!(ring(&m, 0).0, blocks[n], "the oldest entry reused");
    assert_eq!(
        m.st_word("ST_FREE_HEAD"),
        0,
        "its slot back on the free list"
    );
    assert_eq!(m.word(crate::machine::SLOT_NEXT), n as u16 + 1);
}

#[test]
fn a_free_from_outside_code_1_is_the_oss() {
    let mut m = machine(defaults());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert!(free(&mut m, p, false, 0x00C0_1234));
    assert_eq!(m.st_long("ST_OS_FREES"), 1);
    assert_eq!(ring_site(&m, 0), (1, 1, 0x00C0_1234), "raw");
}

#[test]
fn with_call_stacks_the_free_site_is_walked_from_the_callers_frame() {
    let mut m = machine(defaults() | Options::CALL_STACKS.bits());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert!(free(&mut m, p, false, FREE_SITE));
    // The free's return address, then FRAME's: the program's call site, the OS.
    let s = SCRATCH + k("SC_RING") + k("RING_SITE");
    assert_eq!(m.byte(s), 3);
    assert_eq!(
        (m.long(s + 2), m.long(s + 6), m.long(s + 10)),
        (FREE_SITE - CODE, 0x0124, 0x00C0_0000)
    );
}

#[test]
fn a_damaged_guard_is_an_overrun_found_at_the_free() {
    let mut m = machine(defaults() | Options::ALERT_OVERRUNS.bits());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    m.set_byte(p + 17, 0x41);
    assert!(free(&mut m, p, false, FREE_SITE), "freed all the same");
    assert_eq!(counter(&m, offset_of!(Counters, overruns)), 1);
    let flags = m.word(slot_record(0) + k("REC_FLAGS"));
    assert_eq!(flags, (AllocFlags::GUARDED | AllocFlags::OVERRUN).bits());
    let (size, rec) = m.os.new_records[0];
    let Record::Overrun(o) = Record::decode(&m.bytes(rec, size)).unwrap() else {
        panic!("not an overrun record")
    };
    assert_eq!(o.when.get(), detected::AT_FREE);
    assert_eq!(o.guard, [GUARD_BYTE, 0x41, GUARD_BYTE, GUARD_BYTE]);
    assert_eq!(
        o.site.iter().collect::<Vec<_>>(),
        [Frame::Code(FREE_SITE - CODE)]
    );
    assert_eq!((o.alloc.size.get(), o.alloc.line.get()), (16, 42));
    // ErrOKAlert (10021) with the message and the allocation's site, after the
    // header was written (the DmGetRecord of record 0).
    assert_eq!(
        m.os.dialogs,
        [(
            10021,
            "Overrun after 16 bytes (pointer) at src/x.rs:42".into()
        )]
    );
    let header = m.os.traps.iter().position(|&t| t == 0xA05C);
    let dialog = m.os.traps.iter().position(|&t| t == 0xA194);
    assert!(header.is_some() && header < dialog, "{:x?}", m.os.traps);
    assert!(m.os.alerts.is_empty(), "no ErrDisplayFileLineMsg");
}

#[test]
fn with_documented_calls_a_handles_guard_is_checked_while_locked() {
    let mut m = documented(defaults() | Options::FILL_FREED.bits());
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 6);
    let body = m.os.chunks[0].body;
    m.os.traps.clear();
    assert!(free(&mut m, h, true, FREE_SITE));
    assert!(m.os.new_records.is_empty(), "no overrun");
    assert_eq!(
        m.bytes(body, 10),
        [&[FILL_FREED_BYTE; 6][..], &[GUARD_BYTE; 4]].concat(),
        "filled while locked"
    );
    assert_eq!(m.os.locks[&h], 0, "unlocked again");
    // The one lock of the handle's chunk for its ring entry and its guard
    // (checked inline) and its unlock, the fill's lock and unlock, DmSet (no
    // TimGetTicks).
    assert_eq!(m.os.traps, [0xA021, 0xA022, 0xA021, 0xA022, 0xA07E]);
    // A damaged guard is an overrun, found the same way (`free` left the state
    // busy, as the free entry's caller holds it).
    m.set_byte(STATE + k("ST_BUSY"), 0);
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 6);
    let body = m.os.chunks[1].body;
    m.set_byte(body + 6, 0);
    assert!(free(&mut m, h, true, FREE_SITE));
    assert_eq!(counter(&m, offset_of!(Counters, overruns)), 1);
    let (size, rec) = m.os.new_records[0];
    let Record::Overrun(o) = Record::decode(&m.bytes(rec, size)).unwrap() else {
        panic!("not an overrun record")
    };
    assert_eq!(o.guard, [0, GUARD_BYTE, GUARD_BYTE, GUARD_BYTE]);
    assert_eq!(o.alloc.address.get(), h);
}

#[test]
fn with_documented_calls_a_second_free_is_a_double_free_only_from_the_app() {
    let mut m = documented(defaults());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert!(free(&mut m, p, false, FREE_SITE));
    // No chunk header is read: from outside code 1 (the OS freeing a chunk of
    // its own at that address) it is passed on...
    let header = p - 8;
    m.set_long(header, m.long(header) & !0x8000_0000);
    assert!(free(&mut m, p, false, 0x00C0_1234));
    assert_eq!(counter(&m, offset_of!(Counters, double_frees)), 0);
    // ... from the app, it is a double free, whatever the header says.
    assert!(!free(&mut m, p, false, FREE_SITE + 2), "refused");
    assert_eq!(counter(&m, offset_of!(Counters, double_frees)), 1);
}

#[test]
fn fill_freed_fills_the_block_but_not_its_guard() {
    let mut m = machine(defaults() | Options::FILL_FREED.bits());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 6);
    assert!(free(&mut m, p, false, FREE_SITE));
    assert_eq!(
        m.bytes(p, 10),
        [&[FILL_FREED_BYTE; 6][..], &[GUARD_BYTE; 4]].concat()
    );
}

#[test]
fn a_second_free_of_a_freed_block_is_a_refused_double_free() {
    let mut m = machine(defaults() | Options::ALERT_DOUBLE_FREES.bits());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert!(free(&mut m, p, false, FREE_SITE));
    // The OS frees it (its chunk header's free flag)...
    let header = p - 8;
    m.set_long(header, m.long(header) | 0x8000_0000);
    // ... and the program frees it again.
    assert!(!free(&mut m, p, false, FREE_SITE + 2), "refused");
    assert_eq!(counter(&m, offset_of!(Counters, double_frees)), 1);
    let (size, rec) = m.os.new_records[0];
    let Record::DoubleFree(d) = Record::decode(&m.bytes(rec, size)).unwrap() else {
        panic!("not a double-free record")
    };
    assert_eq!(d.address.get(), p);
    assert_eq!(
        d.first.iter().collect::<Vec<_>>(),
        [Frame::Code(FREE_SITE - CODE)]
    );
    assert_eq!(
        d.second.iter().collect::<Vec<_>>(),
        [Frame::Code(FREE_SITE + 2 - CODE)]
    );
    assert_eq!((d.alloc.kind, d.alloc.line.get()), (kind::POINTER, 42));
    assert_eq!(
        m.os.dialogs,
        [(
            10021,
            "Double free of 16 bytes (pointer) at src/x.rs:42".into()
        )]
    );
    // Reused by an allocation memdbg did not see (the header says live): a free of
    // it is not a double free.
    m.set_long(header, m.long(header) & !0x8000_0000);
    assert!(free(&mut m, p, false, FREE_SITE));
    assert_eq!(counter(&m, offset_of!(Counters, double_frees)), 1);
    assert_eq!(counter(&m, offset_of!(Counters, unknown_frees)), 1);
}

#[test]
fn a_locked_handles_pointer_frees_its_handle() {
    let mut m = machine(defaults());
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 10);
    let p = m.long(h);
    assert!(free(&mut m, p, false, FREE_SITE));
    assert_eq!(ring(&m, 0).0, h, "the handle's record freed");
    assert_eq!(m.st_long("ST_LIVE_HANDLES"), 0);
    assert_eq!(m.indexed(h), None);
    assert!(m.os.traps.contains(&0xA014), "MemPtrRecoverHandle");
}

#[test]
fn a_block_never_tracked_is_counted_and_passed() {
    let mut m = machine(defaults());
    let q = m.os.alloc(&mut m.emu.ram, 24, false).unwrap();
    assert!(free(&mut m, q, false, FREE_SITE));
    assert_eq!(counter(&m, offset_of!(Counters, unknown_frees)), 1);
    assert!(free(&mut m, q, false, 0x00C0_1234));
    assert_eq!(counter(&m, offset_of!(Counters, os_unknown_frees)), 1);
    assert!(free(&mut m, 0, false, FREE_SITE), "a free of NULL");
    assert!(free(&mut m, DATA + 1, false, FREE_SITE), "an odd address");
    assert_eq!(counter(&m, offset_of!(Counters, unknown_frees)), 3);
    assert!(m.os.sets.is_empty());
}

#[test]
fn a_guard_is_checked_whether_it_ends_even_or_odd_for_pointers_and_handles() {
    // The free reads a guard that starts at an even address as one long and an
    // odd one byte by byte; a handle's through its master pointer.
    for handle in [false, true] {
        for size in [15, 16] {
            for damaged in [None, Some(0), Some(3)] {
                let mut m = machine(defaults());
                let kind = if handle { kind::HANDLE } else { kind::POINTER };
                let key = alloc(&mut m, kind, 0, SITE, size);
                let chunk = if handle { m.long(key) } else { key };
                if let Some(i) = damaged {
                    m.set_byte(chunk + size + i, 0x41);
                }
                assert!(free(&mut m, key, handle, FREE_SITE), "freed all the same");
                assert_eq!(
                    counter(&m, offset_of!(Counters, overruns)),
                    u32::from(damaged.is_some()),
                    "handle {handle}, size {size}, damaged byte {damaged:?}"
                );
            }
        }
    }
}

/// Issue 16 (5): a byte written just before a pointer (its chunk header's
/// `hOffset`) and one before a handle's chunk are underruns found at their
/// frees, recorded with the allocation and the free's site and alerted; the
/// headers are repaired before the frees go on.
#[test]
fn a_damaged_chunk_header_is_an_underrun_found_at_the_free() {
    let mut m = machine(defaults() | Options::ALERT_OVERRUNS.bits());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 8);
    let hp = m.long(h);
    let hword = m.long(hp - 4);
    m.set_byte(p - 1, 0x41);
    m.set_byte(hp - 1, m.byte(hp - 1) ^ 0x10);
    let ticks = m.os.ticks;
    assert!(free(&mut m, p, false, FREE_SITE), "freed all the same");
    assert_eq!(m.long(p - 4), 0xF000_0000, "repaired");
    assert!(free(&mut m, h, true, FREE_SITE), "freed all the same");
    assert_eq!(m.long(hp - 4), hword, "repaired");
    let found: Vec<(u16, [u8; 4], u32, u32)> = m
        .os
        .new_records
        .iter()
        .map(
            |&(size, rec)| match Record::decode(&m.bytes(rec, size)).unwrap() {
                Record::Underrun(u) => (u.when.get(), u.header, u.alloc.size.get(), u.ticks.get()),
                other => panic!("not an underrun record: {other:?}"),
            },
        )
        .collect();
    // The free reads the ticks only for the damage it found: the pointer's
    // underrun has the first TimGetTicks after the frees began.
    assert_eq!(found[0].3, ticks + 1);
    let h_bytes = (hword ^ 0x10).to_be_bytes();
    assert_eq!(
        found,
        [
            (detected::AT_FREE, [0xF0, 0, 0, 0x41], 16, found[0].3),
            (detected::AT_FREE, h_bytes, 8, found[1].3)
        ]
    );
    assert_eq!(m.os.dialogs.len(), 2);
    assert_eq!(
        m.os.dialogs[0],
        (
            10021,
            "Underrun before 16 bytes (pointer) at src/x.rs:42".into()
        )
    );
    assert_eq!(counter(&m, offset_of!(Counters, overruns)), 0);
}

/// An untouched block's free reads its header and records nothing.
#[test]
fn an_intact_chunk_header_is_no_underrun() {
    let mut m = machine(defaults());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 8);
    assert!(free(&mut m, p, false, FREE_SITE));
    assert!(free(&mut m, h, true, FREE_SITE));
    assert!(m.os.new_records.is_empty(), "{:?}", m.os.new_records);
}
