//! `asm/patches.s`: the patched traps' entries, reached through trampolines made
//! from `__memdbg_trampoline` as `patch::install` makes them, so that each entry
//! sees the stack the OS's trap dispatch and the trampoline give it (the tagged
//! state above the JSR frame), and chains to its original (a stub calling the
//! tests' OS).

use memdbg::record::{AllocFlags, FILL_RESIZE_BYTE, GUARD_BYTE, Options, kind};

use crate::alloc::{FRAME, SITE, alloc, defaults, machine};
use crate::machine::{CODE_LOCK, Machine, Regs, STATE, k, slot_record, stub, sym};
use crate::os::INVALID_PARAM;

/// Calls trap `entry` through its trampoline (`handle`: the handle form) with the
/// caller's A6 = FRAME: D0.
fn trap(m: &mut Machine, entry: &str, handle: bool, args: &[u32]) -> u32 {
    let t = m.trampoline(entry, handle);
    m.run(t, entry, Regs::new().a(6, FRAME), args).d[0]
}

/// [`trap`] of a trap returning an `Err`: only D0's low word is the result (Palm OS
/// leaves the high word undefined).
fn err(m: &mut Machine, entry: &str, handle: bool, args: &[u32]) -> u32 {
    trap(m, entry, handle, args) & 0xFFFF
}

#[test]
fn the_trampoline_checks_the_code_then_pushes_the_tagged_state_and_jumps_to_its_entry() {
    let mut m = Machine::new();
    let t = m.trampoline("__memdbg_free_entry", true);
    let len = k("TRAMPOLINE_LEN");
    let b = m.bytes(t, len);
    let long = |at: u32| u32::from_be_bytes(b[at as usize..at as usize + 4].try_into().unwrap());
    let entry = sym("__memdbg_free_entry");
    // cmpi.b #$20,(lock).l; bcs.s gone; cmpi.l #first,(entry).l; bne.s gone;
    // move.l #(state + 1),-(%sp); jmp (entry).l; gone: jmp (original).l
    assert_eq!(b[..4], [0x0C, 0x39, 0x00, 0x20]);
    assert_eq!(long(4), CODE_LOCK);
    assert_eq!((b[8], b[10], b[11]), (0x65, 0x0C, 0xB9));
    assert_eq!((long(12), long(16)), (m.long(entry), entry));
    assert_eq!((b[20], b[22], b[23]), (0x66, 0x2F, 0x3C));
    assert_eq!(long(24), STATE + 1);
    assert_eq!((b[28], b[29], long(30)), (0x4E, 0xF9, entry));
    assert_eq!((b[34], b[35], long(36)), (0x4E, 0xF9, stub(0xA02B)));
    assert_eq!(len, 40);
    // Both branches reach `gone`.
    assert_eq!(10 + b[9] as u32, 34);
    assert_eq!(22 + b[21] as u32, 34);
}

/// An app that returned without stop: its code 1 unlocked by the OS (lock count
/// 1: only memdbg's own lock left), or moved away (the entry's first long is something else): every patched
/// trap goes straight to its original, the state untouched.
#[test]
fn a_trampoline_whose_app_is_gone_goes_straight_to_the_original() {
    for gone in ["unlocked", "moved"] {
        let mut m = machine(defaults());
        let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
        let entry = sym("__memdbg_free_entry");
        let first = m.long(entry);
        match gone {
            "unlocked" => m.set_byte(CODE_LOCK, 0x1F),
            _ => m.set_long(entry, !first),
        }
        m.os.traps.clear();
        let t = m.trampoline("__memdbg_free_entry", false);
        if gone == "moved" {
            // (The template's copy read the changed long: put back the one
            // install read, as it was when the app ran.)
            m.set_long(t + k("TRAMPOLINE_CODE"), first);
        }
        let r = m.try_run(t, Regs::new().a(6, FRAME), &[p]).unwrap();
        assert_eq!(r.d[0] & 0xFFFF, 0, "{gone}: the original's answer");
        assert_eq!(m.os.traps, [0xA012], "{gone}: the original only");
        assert_eq!(m.indexed(p), Some(0), "{gone}: no bookkeeping");
        assert!(m.os.chunks[0].free, "{gone}: freed by the OS");
        // Locked twice again (lock count 2 or more) and intact: the entry.
        m.set_long(entry, first);
        m.set_byte(CODE_LOCK, 0x20);
        let q = alloc(&mut m, kind::POINTER, 0, SITE, 8);
        m.os.traps.clear();
        assert_eq!(err(&mut m, "__memdbg_free_entry", false, &[q]), 0);
        assert_eq!(m.os.traps, [0xA07E, 0xA012], "{gone}: bookkeeping");
    }
}

#[test]
fn the_free_entry_does_the_bookkeeping_then_chains_to_the_original() {
    let mut m = machine(defaults());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    m.os.traps.clear();
    assert_eq!(err(&mut m, "__memdbg_free_entry", false, &[p]), 0);
    // DmSet (the bookkeeping), then the original's MemChunkFree.
    assert_eq!(m.os.traps, [0xA07E, 0xA012]);
    assert!(m.os.chunks[0].free);
    assert_eq!(m.indexed(p), None);
    assert_eq!(
        m.byte(STATE + k("ST_BUSY")),
        0,
        "busy while inside, not after"
    );
    // A handle through MemHandleFree's trampoline (tag 1).
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 8);
    m.os.traps.clear();
    assert_eq!(err(&mut m, "__memdbg_free_entry", true, &[h]), 0);
    assert_eq!(
        *m.os.traps.last().unwrap(),
        0xA02B,
        "MemHandleFree's original"
    );
    assert_eq!(m.st_long("ST_LIVE_HANDLES"), 0);
}

#[test]
fn the_free_entry_refuses_a_double_free_before_the_os_sees_it() {
    let mut m = machine(defaults());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_eq!(err(&mut m, "__memdbg_free_entry", false, &[p]), 0);
    m.os.traps.clear();
    let e = err(&mut m, "__memdbg_free_entry", false, &[p]);
    assert_eq!(e, INVALID_PARAM, "memErrInvalidParam");
    assert!(!m.os.traps.contains(&0xA012), "the original not called");
    assert_eq!(m.byte(STATE + k("ST_BUSY")), 0);
}

#[test]
fn while_busy_every_entry_goes_straight_to_its_original() {
    let mut m = machine(defaults());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    m.set_byte(STATE + k("ST_BUSY"), 1);
    m.os.traps.clear();
    assert_eq!(
        trap(&mut m, "__memdbg_size_entry", false, &[p]),
        20,
        "the chunk's size"
    );
    assert_eq!(err(&mut m, "__memdbg_resize_entry", false, &[p, 18]), 0);
    assert_eq!(err(&mut m, "__memdbg_free_entry", false, &[p]), 0);
    assert_eq!(m.os.traps, [0xA016, 0xA01C, 0xA012], "the originals only");
    assert_eq!(m.indexed(p), Some(0), "no bookkeeping");
    assert_eq!(m.byte(STATE + k("ST_BUSY")), 1);
}

#[test]
fn the_size_entry_hides_a_tracked_blocks_guard() {
    let mut m = machine(defaults());
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_eq!(trap(&mut m, "__memdbg_size_entry", false, &[p]), 16);
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 5);
    assert_eq!(trap(&mut m, "__memdbg_size_entry", true, &[h]), 5);
    // A locked handle's pointer: MemPtrSize(MemHandleLock(h)).
    let locked = m.long(h);
    assert_eq!(trap(&mut m, "__memdbg_size_entry", false, &[locked]), 5);
    // An untracked chunk: the original's answer.
    let q = m.os.alloc(&mut m.emu.ram, 24, false).unwrap();
    assert_eq!(trap(&mut m, "__memdbg_size_entry", false, &[q]), 24);
    assert_eq!(m.byte(STATE + k("ST_BUSY")), 0);
}

#[test]
fn the_resize_entry_resizes_in_place_and_moving_with_the_guard() {
    let mut m = machine(defaults() | Options::FILL_NEW.bits());
    // In place: a pointer shrinks, its guard follows.
    let p = alloc(&mut m, kind::POINTER, 0, SITE, 16);
    assert_eq!(err(&mut m, "__memdbg_resize_entry", false, &[p, 10]), 0);
    assert_eq!(m.os.chunks[0].size, 14, "10 + the guard, in place");
    assert_eq!(m.bytes(p + 10, 4), [GUARD_BYTE; 4]);
    let r = m.record(slot_record(0));
    assert_eq!(r.size.get(), 10);
    assert_eq!(r.alloc_flags(), AllocFlags::GUARDED | AllocFlags::RESIZED);
    assert_eq!(m.st_long("ST_LIVE_BYTES"), 10);
    // Moving: a handle grows past its chunk; the OS moves it, the guard and the
    // grown part's fill follow, the record keeps the handle.
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 4);
    let before = m.long(h);
    assert_eq!(err(&mut m, "__memdbg_resize_entry", true, &[h, 40]), 0);
    let after = m.long(h);
    assert_ne!(after, before, "moved");
    assert_eq!(m.bytes(after + 4, 36), vec![FILL_RESIZE_BYTE; 36]);
    assert_eq!(m.bytes(after + 40, 4), [GUARD_BYTE; 4]);
    let r = m.record(slot_record(1));
    assert_eq!((r.address.get(), r.size.get()), (h, 40));
    assert_eq!(m.st_long("ST_LIVE_BYTES"), 50);
    assert_eq!(m.st_long("ST_PEAK_BYTES"), 50);
    // Refused (no room): nothing changes.
    m.os.heap_room = 0;
    let e = err(&mut m, "__memdbg_resize_entry", true, &[h, 4000]);
    assert_eq!(e, crate::os::NOT_ENOUGH_SPACE);
    assert_eq!(m.record(slot_record(1)).size.get(), 40);
    assert_eq!(m.byte(STATE + k("ST_BUSY")), 0);
}

/// MemHandleUnlock/MemPtrUnlock of a tracked handle whose chunk header says
/// lock count 0: refused (memErrChunkNotLocked, the original not called) and
/// one unlock-underflow record written (122 bytes, kind 0x28: the trap, the
/// address passed); with lock count 1, and for an untracked handle, the
/// original unlocks it. Busy: straight to the original.
#[test]
fn the_unlock_entry_refuses_an_unlock_at_lock_count_0_and_passes_the_rest() {
    let mut m = machine(defaults() | Options::LOCK_CHECKS.bits());
    let h = alloc(&mut m, kind::HANDLE, 0, SITE, 8);
    let body = m.long(h);
    let records = m.os.new_records.len();
    let underflow = |m: &mut Machine, handle: bool, addr: u32| {
        m.os.traps.clear();
        let e = err(m, "__memdbg_unlock_entry", handle, &[addr]);
        assert_eq!(e, 0x0104, "memErrChunkNotLocked");
        // (MemPtrRecoverHandle for a pointer,) TimGetTicks, then the record:
        // DmNewRecord, its lock, DmWrite, its unlock (the ledger's own
        // MemPtrUnlock, of its record), DmReleaseRecord; not the original.
        let mut want = vec![0xA0F7, 0xA055, 0xA021, 0xA076, 0xA035, 0xA05E];
        if !handle {
            want.insert(0, 0xA014);
        }
        assert_eq!(m.os.traps, want, "{:x?}", m.os.traps);
        let &(len, rec) = m.os.new_records.last().unwrap();
        assert_eq!(len, 122);
        assert_eq!(m.bytes(rec, 4), [0x28, 5, u8::from(!handle), 0]);
        assert_eq!(m.long(rec + 4), addr);
        assert_eq!(m.byte(STATE + k("ST_BUSY")), 0);
    };
    underflow(&mut m, true, h);
    // Through the locked pointer (its handle found with MemPtrRecoverHandle).
    underflow(&mut m, false, body);
    assert_eq!(m.os.new_records.len(), records + 2);
    // Lock count 1 in the chunk header (and the OS's own count): passed on.
    m.set_long(body - 4, m.long(body - 4) | 0x1000_0000);
    m.os.locks.insert(h, 1);
    m.os.traps.clear();
    assert_eq!(err(&mut m, "__memdbg_unlock_entry", true, &[h]), 0);
    assert_eq!(*m.os.traps.last().unwrap(), 0xA022, "the original");
    assert_eq!(m.os.locks[&h], 0);
    // An untracked handle: the original, whatever its count.
    let u = m.os.alloc(&mut m.emu.ram, 8, true).unwrap();
    m.os.locks.insert(u, 1);
    m.os.traps.clear();
    assert_eq!(err(&mut m, "__memdbg_unlock_entry", true, &[u]), 0);
    assert_eq!(m.os.traps, [0xA022]);
    assert_eq!(m.os.new_records.len(), records + 2, "no record");
    // Busy: the original only (the mock OS's pointer unlock answers 0).
    m.set_byte(STATE + k("ST_BUSY"), 1);
    m.os.traps.clear();
    assert_eq!(err(&mut m, "__memdbg_unlock_entry", false, &[body]), 0);
    assert_eq!(m.os.traps, [0xA035]);
    assert_eq!(m.os.new_records.len(), records + 2);
}
