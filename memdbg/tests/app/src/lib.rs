//! memdbg's end-to-end scenarios, run in palm-run by `memdbg/tests/ledger.rs`.
//!
//! PilotMain (normal launch only) reads the scenario number from feature
//! (`'MDtA'`, 0) and runs it between `memdbg::start` and `memdbg::stop`. Lines the test
//! checks carry a `@mark name` comment: the test finds their numbers in this file, so
//! the expected ledger (file, line, size, kind) is exact. The result is 0, or the
//! number of the in-app check that failed.
#![no_std]
#![cfg_attr(target_arch = "m68k", feature(asm_experimental_arch))]
#![allow(clippy::missing_safety_doc)]

extern crate alloc;

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ffi::c_void;

use m68k_palmos_sys as palm;
use memdbg::{
    Options, Settings, mem_chunk_new, mem_handle_free, mem_handle_new, mem_handle_resize,
    mem_ptr_free, mem_ptr_new, mem_ptr_resize,
};
use palm::errors::memErrInvalidParam;
use palm::traps::{
    sysTrapMemChunkFree, sysTrapMemHandleFree, sysTrapMemHandleResize, sysTrapMemHandleSize,
    sysTrapMemPtrResize, sysTrapMemPtrSize,
};
use palm::*;

#[global_allocator]
static ALLOC: memdbg::MemDbgAlloc = memdbg::MemDbgAlloc;

palm::app_entry!(pilot_main);

/// The test app's creator; its features carry the scenario and its parameters.
const CREATOR: u32 = four_cc(b"MDtA");
/// Form and field of `app.rcp`.
const FORM_ID: u16 = 1000;
const FIELD_ID: u16 = 1001;

fn feature(n: u16) -> u32 {
    let mut v = 0u32;
    // SAFETY: FtrGet writes one UInt32.
    unsafe { FtrGet(CREATOR, n, &mut v) };
    v
}

extern "C" fn pilot_main(cmd: u16, _pbp: MemPtr, _flags: u16) -> u32 {
    if cmd != launch::sysAppLaunchCmdNormalLaunch {
        return 0;
    }
    // SAFETY: every scenario uses the Palm OS API as documented.
    unsafe {
        match feature(0) {
            1 => leaks(&Settings::DEFAULT),
            2 => freed(),
            3 => field_handle(),
            4 => resizes(),
            5 => overrun(),
            6 => unguarded(),
            7 => double_free(),
            8 => unknown_free(),
            9 => pointer_of_handle(),
            10 => dispatch_table(),
            11 => refused(),
            12 => storage_full(),
            13 => cycles(),
            14 => rust_box(),
            15 => chunks(),
            16 => c_api(),
            17 => churn(),
            18 => options_and_rare_events(),
            19 => foreign_ledger(),
            20 => guards_hidden(),
            21 => field_grown_by_the_os(),
            22 => heap_low_water(),
            23 => null_frees(Settings::DEFAULT),
            25 => rust_box_without_code_1(),
            26 => aligned(),
            27 => no_room_for_guards(),
            28 => c_file_names(),
            29 => wrapper_double_frees(),
            30 => resizes_while_stopped(),
            31 => deep_stacks(),
            32 => forgets_stop(),
            33 => session_paths(feature(1)),
            34 => hand_offs(),
            35 => freed_unseen(),
            36 => err_display_alerts(),
            37 => merged_double_frees(),
            38 => bulk_freed(),
            39 => err_display_leak_at_stop(),
            40 => interior_frees(),
            42 => underruns_at_free(),
            43 => underrun_at_resize(),
            44 => underrun_at_stop(),
            45 => handle_overrun(),
            41 => leaks(&Settings {
                options: Settings::DEFAULT.options.difference(Options::CONTENTS),
                ..Settings::DEFAULT
            }),
            24 => null_frees(Settings {
                options: Settings::DEFAULT.options.difference(Options::GUARDS),
                ..Settings::DEFAULT
            }),
            100 => bench(false, false),
            101 => bench(true, false),
            102 => bench(true, true),
            _ => 99,
        }
    }
}

fn begin(settings: &Settings) -> u32 {
    match memdbg::start(settings) {
        Ok(()) => 0,
        Err(_) => 90,
    }
}

fn end() -> u32 {
    match memdbg::stop() {
        Ok(_) => 0,
        Err(_) => 91,
    }
}

/// Frees memdbg cannot see where trap patches are refused (the tests refuse
/// them): a pointer and a handle freed with the plain traps, another pointer too,
/// then a block memdbg does not track allocated where they were; and a pointer
/// leaked with its guard overrun, a handle leaked.
#[inline(never)]
unsafe fn freed_unseen() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        // Each block freed below sits between live ones: a chunk freed next to a
        // free one merges into it, and its header, left inside the merged chunk,
        // would read as live (memdbg's limit with the patches refused).
        let leaked = mem_ptr_new!(6).cast::<u8>(); // @mark unseen-overrun
        let p = mem_ptr_new!(8); // @mark unseen-ptr
        let kept = mem_handle_new!(10); // @mark unseen-leak
        let h = mem_handle_new!(8); // @mark unseen-handle
        let q = mem_ptr_new!(16); // @mark unseen-ptr-2
        if p.is_null() || h.is_null() || q.is_null() || leaked.is_null() || kept.is_null() {
            return 1;
        }
        MemChunkFree(p);
        MemHandleFree(h);
        MemChunkFree(q);
        // A block memdbg does not track, where the first-fit heap finds room
        // among the freed chunks.
        let other = MemPtrNew(18);
        leaked.add(6).write(0);
        let r = end();
        MemChunkFree(other);
        MemChunkFree(leaked.cast());
        MemHandleFree(kept);
        r
    }
}

/// Issue 16 (1): double frees of chunks the OS merged with a free neighbour.
/// Ten adjacent 16-byte pointers freed in order (each chunk merges into the
/// free one before it, its own header left inside), then blocks 1, 5 and 9
/// freed again; a handle freed, then the pointer it had when locked freed with
/// MemChunkFree. Each second free must be refused (memErrInvalidParam). The
/// result: 0, or which step failed.
#[inline(never)]
unsafe fn merged_double_frees() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        // (Constant indices only: LLVM's m68k backend miscompiles a stack
        // array indexed by a variable.)
        let p = [
            merged_block(),
            merged_block(),
            merged_block(),
            merged_block(),
            merged_block(),
            merged_block(),
            merged_block(),
            merged_block(),
            merged_block(),
            merged_block(),
        ];
        if p[0].is_null() || p[9].is_null() {
            return 1;
        }
        merged_free(p[0]);
        merged_free(p[1]);
        merged_free(p[2]);
        merged_free(p[3]);
        merged_free(p[4]);
        merged_free(p[5]);
        merged_free(p[6]);
        merged_free(p[7]);
        merged_free(p[8]);
        merged_free(p[9]);
        let e1 = MemChunkFree(p[1]); // @mark merged-second-1
        let e5 = MemChunkFree(p[5]); // @mark merged-second-5
        let e9 = MemChunkFree(p[9]); // @mark merged-second-9
        if e1 != memErrInvalidParam || e5 != memErrInvalidParam || e9 != memErrInvalidParam {
            return 2;
        }
        let h = mem_handle_new!(12); // @mark merged-handle
        let locked = MemHandleLock(h);
        MemHandleUnlock(h);
        MemHandleFree(h); // @mark merged-handle-free
        let again = MemChunkFree(locked); // @mark merged-handle-pointer
        if again != memErrInvalidParam {
            return 3;
        }
    }
    end()
}

/// Issue 16 (2): frees inside the Memory Manager that make no trap call. A
/// pointer and a handle given to owner 5 (an owner ID no other chunk has), then
/// swept by `MemHeapFreeByOwnerID(0, 5)`, which frees both without a
/// MemChunkFree/MemHandleFree trap call; a new tracked pointer of the first's
/// size, which the first-fit heap puts where the first was, freed correctly;
/// and one real leak. The result: 0, or which step failed.
#[inline(never)]
unsafe fn bulk_freed() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let a = mem_ptr_new!(24); // @mark bulk-ptr
        let b = mem_handle_new!(40); // @mark bulk-handle
        let leak = mem_ptr_new!(12); // @mark bulk-leak
        if a.is_null() || b.is_null() || leak.is_null() {
            return 1;
        }
        if MemPtrSetOwner(a, 5) != errNone
            || MemHandleSetOwner(b, 5) != errNone
            || MemHeapFreeByOwnerID(0, 5) != errNone
        {
            return 2;
        }
        let c = mem_ptr_new!(24); // @mark bulk-reuse
        if c != a {
            return 3;
        }
        if MemChunkFree(c) != errNone {
            return 4;
        }
    }
    end()
}

/// Issue 16 (4): frees of an address inside a tracked block: 8 bytes into a
/// 32-byte pointer, 4 bytes into a 20-byte handle's locked chunk. Each must be
/// refused (memErrInvalidParam: not passed to the OS); then both blocks are
/// freed correctly. The result: 0, or which step failed.
#[inline(never)]
unsafe fn interior_frees() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let p = mem_ptr_new!(32).cast::<u8>(); // @mark interior-ptr
        let h = mem_handle_new!(20); // @mark interior-handle
        if p.is_null() || h.is_null() {
            return 1;
        }
        let e = MemChunkFree(p.add(8).cast()); // @mark interior-ptr-free
        if e != memErrInvalidParam {
            return 2;
        }
        let q = MemHandleLock(h).cast::<u8>();
        let e = MemChunkFree(q.add(4).cast()); // @mark interior-handle-free
        MemHandleUnlock(h);
        if e != memErrInvalidParam {
            return 3;
        }
        if MemChunkFree(p.cast()) != errNone || MemHandleFree(h) != errNone {
            return 4;
        }
    }
    end()
}

/// Issue 16 (5): one byte written before a pointer (its chunk header's
/// `hOffset`) and one before a locked handle's chunk data, each found at its
/// free; an untouched block freed between them.
#[inline(never)]
unsafe fn underruns_at_free() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let p = mem_ptr_new!(16).cast::<u8>(); // @mark underrun-ptr
        let clean = mem_ptr_new!(8); // @mark underrun-clean
        let h = mem_handle_new!(20); // @mark underrun-handle
        if p.is_null() || clean.is_null() || h.is_null() {
            return 1;
        }
        p.sub(1).write_volatile(0x41);
        // (Each result tested at once: the frees stay before the write below.)
        let e = MemChunkFree(p.cast()); // @mark underrun-ptr-free
        if e != errNone {
            return 2;
        }
        if MemChunkFree(clean) != errNone {
            return 3;
        }
        // (Written after the unlock, through the chunk's address, which nothing
        // moves before the free, and only then: palm-run's debug ROM checks the
        // heap's headers at every Memory Manager call.)
        let q = MemHandleLock(h).cast::<u8>();
        MemHandleUnlock(h);
        q.sub(1).write_volatile(q.sub(1).read_volatile() ^ 0x10);
        let e = MemHandleFree(h); // @mark underrun-handle-free
        if e != errNone {
            return 4;
        }
    }
    end()
}

/// Issue 16 (5): two bytes written before a pointer, found at its resize (the
/// header repaired there: its free finds nothing more).
#[inline(never)]
unsafe fn underrun_at_resize() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let p = mem_ptr_new!(16).cast::<u8>(); // @mark underrun-resized
        if p.is_null() {
            return 1;
        }
        p.sub(2).write_volatile(0x42);
        p.sub(1).write_volatile(0x43);
        let resized = mem_ptr_resize!(p.cast(), 8); // @mark underrun-resize
        if resized != errNone || MemChunkFree(p.cast()) != errNone {
            return 2;
        }
    }
    end()
}

/// Issue 16 (5): a leaked pointer whose chunk header was written over (hOffset's
/// high byte), found at stop; a leaked untouched one beside it.
#[inline(never)]
unsafe fn underrun_at_stop() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let p = mem_ptr_new!(12).cast::<u8>(); // @mark underrun-leak
        let clean = mem_ptr_new!(6); // @mark underrun-clean-leak
        if p.is_null() || clean.is_null() {
            return 1;
        }
        p.sub(3).write_volatile(0x07);
    }
    end()
}

/// One of [`merged_double_frees`]'s blocks (one allocation site for all).
#[inline(never)]
fn merged_block() -> MemPtr {
    mem_ptr_new!(16) // @mark merged-block
}

/// A free of one of them (one free site for all).
#[inline(never)]
unsafe fn merged_free(p: MemPtr) {
    unsafe { MemChunkFree(p) }; // @mark merged-first
}

/// An overrun found at a free, shown with `ErrDisplayFileLineMsg`
/// (`ERR_DISPLAY_ALERTS`), and a leak.
#[inline(never)]
unsafe fn err_display_alerts() -> u32 {
    begin(&Settings {
        options: Settings::DEFAULT.options.union(Options::ERR_DISPLAY_ALERTS),
        ..Settings::DEFAULT
    });
    unsafe {
        let leak = mem_ptr_new!(4); // @mark err-display-leak
        let p = mem_ptr_new!(5).cast::<u8>(); // @mark err-display-overrun
        if leak.is_null() || p.is_null() {
            return 1;
        }
        p.add(5).write(0x41);
        MemChunkFree(p.cast());
    }
    end()
}

/// A leak whose alert at stop is the first `ErrDisplayFileLineMsg`
/// (`ERR_DISPLAY_ALERTS`): where that alert ends the app, the ledger is
/// complete and closed, and code 1 released, before it.
#[inline(never)]
unsafe fn err_display_leak_at_stop() -> u32 {
    begin(&Settings {
        options: Settings::DEFAULT.options.union(Options::ERR_DISPLAY_ALERTS),
        ..Settings::DEFAULT
    });
    let leak = mem_ptr_new!(6); // @mark err-display-stop-leak
    if leak.is_null() {
        return 1;
    }
    end()
}

/// A leaked pointer and a leaked handle (scenario 1 with the default settings,
/// 41 with [`Options::CONTENTS`] off).
#[inline(never)]
unsafe fn leaks(settings: &Settings) -> u32 {
    begin(settings);
    let p = mem_ptr_new!(16); // @mark leak-ptr
    let h = mem_handle_new!(32); // @mark leak-handle
    if p.is_null() || h.is_null() {
        return 1;
    }
    end()
}

/// Blocks freed correctly leave no record.
#[inline(never)]
unsafe fn freed() -> u32 {
    begin(&Settings::DEFAULT);
    let p = mem_ptr_new!(24);
    let h = mem_handle_new!(40);
    unsafe {
        MemChunkFree(p);
        MemHandleFree(h);
    }
    end()
}

/// A field's text handle freed by FrmDeleteForm (inside the OS) is not a leak.
#[inline(never)]
unsafe fn field_handle() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let form = FrmInitForm(FORM_ID);
        let field = FrmGetObjectPtr(form, FrmGetObjectIndex(form, FIELD_ID));
        let h = mem_handle_new!(32);
        let text = MemHandleLock(h).cast::<u8>();
        *text = b'h';
        *text.add(1) = b'i';
        *text.add(2) = 0;
        MemHandleUnlock(h);
        FldSetTextHandle(field.cast(), h);
        FrmDeleteForm(form);
    }
    end()
}

/// A pointer resized in place and a handle whose chunk moves: one record each, with
/// the new size.
#[inline(never)]
unsafe fn resizes() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let p = mem_ptr_new!(32); // @mark resize-ptr
        if mem_ptr_resize!(p, 20) != errNone {
            return 1;
        }
        let h = mem_handle_new!(16); // @mark resize-handle
        // A block right after the handle's chunk, so growing it must move it.
        let blocker = mem_ptr_new!(8);
        let before = MemHandleLock(h);
        MemHandleUnlock(h);
        if mem_handle_resize!(h, 2000) != errNone {
            return 2;
        }
        let after = MemHandleLock(h);
        MemHandleUnlock(h);
        if before == after {
            return 3;
        }
        MemChunkFree(blocker);
    }
    end()
}

/// One byte written past a 10-byte block, found when it is freed.
#[inline(never)]
unsafe fn overrun() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let p = mem_ptr_new!(10).cast::<u8>(); // @mark overrun
        *p.add(10) = 0;
        MemChunkFree(p.cast()); // @mark overrun-free
    }
    end()
}

/// One byte written past a 10-byte handle's block, found when the handle is
/// freed with the trap (the patch), and an intact handle freed after it. The
/// result: 0, or 2 when a free failed.
#[inline(never)]
unsafe fn handle_overrun() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let h = mem_handle_new!(10); // @mark handle-overrun
        *MemHandleLock(h).cast::<u8>().add(10) = 0;
        MemHandleUnlock(h);
        let e = MemHandleFree(h); // @mark handle-overrun-free
        let clean = mem_handle_new!(8);
        if e != 0 || MemHandleFree(clean) != 0 {
            return 2;
        }
    }
    end()
}

/// Without guards nothing is guard-checked: the bytes after these blocks are the
/// next chunk's header, which a checker would take for a damaged guard.
#[inline(never)]
unsafe fn unguarded() -> u32 {
    let settings = Settings {
        options: Settings::DEFAULT.options.difference(Options::GUARDS),
        ..Settings::DEFAULT
    };
    begin(&settings);
    unsafe {
        let p = mem_ptr_new!(12);
        MemChunkFree(p);
        let q = mem_ptr_new!(12); // @mark unguarded
        if q.is_null() {
            return 1;
        }
    }
    end()
}

/// The same block freed twice: the second free is caught and not passed on.
#[inline(never)]
unsafe fn double_free() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let p = mem_ptr_new!(20); // @mark double
        MemChunkFree(p); // @mark double-first
        let second = MemChunkFree(p); // @mark double-second
        if second != memErrInvalidParam {
            return 1;
        }
    }
    end()
}

/// A block memdbg never wrapped, freed: counted, not an error.
#[inline(never)]
unsafe fn unknown_free() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let p = MemPtrNew(8);
        if MemChunkFree(p) != errNone {
            return 1;
        }
    }
    end()
}

/// Frees and a size query of NULL (an app bug; a release ROM answers
/// memErrInvalidParam) while tracked blocks are live: the index's empty entries hold
/// key 0, and these must not find one of them (and a stale slot number in it). With
/// guards (the size patches answer MemPtrSize) and without (an unguarded record is
/// what the free patch's fast path would free at once).
#[inline(never)]
unsafe fn null_frees(settings: Settings) -> u32 {
    begin(&settings);
    let p = mem_ptr_new!(16); // @mark null-live-ptr
    let h = mem_handle_new!(32); // @mark null-live-handle
    if p.is_null() || h.is_null() {
        return 1;
    }
    unsafe {
        MemChunkFree(core::ptr::null_mut());
        MemHandleFree(core::ptr::null_mut());
        if MemPtrSize(core::ptr::null_mut()) != 0 {
            return 2;
        }
    }
    end()
}

/// MemPtrFree(MemHandleLock(h)) frees the handle: its record goes.
#[inline(never)]
unsafe fn pointer_of_handle() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let h = mem_handle_new!(40);
        let p = MemHandleLock(h);
        if MemChunkFree(p) != errNone {
            return 1;
        }
    }
    end()
}

/// The patched traps, in memdbg's order: the two frees, then the size and resize
/// traps (patched with guards only).
const PATCHED: [u16; 6] = [
    sysTrapMemChunkFree,
    sysTrapMemHandleFree,
    sysTrapMemPtrSize,
    sysTrapMemHandleSize,
    sysTrapMemPtrResize,
    sysTrapMemHandleResize,
];

/// The dispatch table entries of [`PATCHED`], into a chunk (not a stack array:
/// TOOLCHAIN.md #2).
unsafe fn table_entries(out: *mut u32) {
    let traps = core::hint::black_box(&PATCHED).as_ptr();
    let mut i = 0;
    while i < 6 {
        unsafe { *out.add(i) = SysGetTrapAddress(*traps.add(i)) as u32 };
        i += 1;
    }
}

/// The patches are in the dispatch table while running (the size and resize traps
/// only with guards), and the exact originals are back after each stop.
#[inline(never)]
unsafe fn dispatch_table() -> u32 {
    unsafe {
        let before = MemPtrNew(48).cast::<u32>();
        let now = before.add(6);
        table_entries(before);
        // Default settings: all six patched.
        begin(&Settings::DEFAULT);
        table_entries(now);
        let mut i = 0;
        while i < 6 {
            if *now.add(i) == *before.add(i) {
                return 1;
            }
            i += 1;
        }
        let p = mem_ptr_new!(4);
        MemChunkFree(p);
        if end() != 0 {
            return 2;
        }
        table_entries(now);
        let mut i = 0;
        while i < 6 {
            if *now.add(i) != *before.add(i) {
                return 3;
            }
            i += 1;
        }
        // Without guards the size and resize traps are left alone.
        begin(&Settings {
            options: Settings::DEFAULT.options.difference(Options::GUARDS),
            ..Settings::DEFAULT
        });
        table_entries(now);
        let mut i = 0;
        while i < 6 {
            if (*now.add(i) == *before.add(i)) != (i >= 2) {
                return 4;
            }
            i += 1;
        }
        if end() != 0 {
            return 5;
        }
        table_entries(now);
        let mut i = 0;
        while i < 6 {
            if *now.add(i) != *before.add(i) {
                return 6;
            }
            i += 1;
        }
        MemChunkFree(before.cast());
    }
    0
}

/// Run with palm-run refusing SysSetTrapAddress: the wrappers still track, and the
/// free wrappers still match.
#[inline(never)]
unsafe fn refused() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let p = mem_ptr_new!(8);
        mem_ptr_free!(p);
        let h = mem_handle_new!(8);
        mem_handle_free!(h);
        let q = mem_ptr_new!(12); // @mark refused-leak
        if q.is_null() {
            return 1;
        }
    }
    end()
}

/// The storage heap fills up: the allocation still succeeds, is counted as untracked,
/// and the ledger says it is incomplete.
#[inline(never)]
unsafe fn storage_full() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let name = c"MemDbgFiller";
        if DmCreateDatabase(0, name.as_ptr(), CREATOR, four_cc(b"fill"), 0) != errNone {
            return 1;
        }
        let id = DmFindDatabase(0, name.as_ptr());
        let db = DmOpenDatabase(0, id, dm::dmModeReadWrite);
        let mut size = 0x8000u32;
        while size >= 8 {
            let mut at = dm::dmMaxRecordIndex;
            let h = DmNewRecord(db, &mut at, size);
            if h.is_null() {
                size /= 2;
            } else {
                DmReleaseRecord(db, at, 0);
            }
        }
        let p = mem_ptr_new!(16);
        if p.is_null() {
            return 2;
        }
        MemChunkFree(p);
        DmCloseDatabase(db);
        DmDeleteDatabase(0, id);
    }
    end()
}

/// 30,000 alloc/free cycles, then one leak: still tracked exactly.
#[inline(never)]
unsafe fn cycles() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let mut i = 0;
        while i < 30_000 {
            let p = mem_ptr_new!(16);
            if p.is_null() {
                return 1;
            }
            MemChunkFree(p);
            i += 1;
        }
        let q = mem_ptr_new!(8); // @mark cycles-leak
        if q.is_null() {
            return 2;
        }
    }
    end()
}

/// Rust: a Vec that grows and is dropped (no leak), and a Box that is leaked.
#[inline(never)]
unsafe fn rust_box() -> u32 {
    begin(&Settings::DEFAULT);
    let mut v: Vec<u32> = Vec::new();
    let mut i = 0;
    while i < 40 {
        v.push(i);
        i += 1;
    }
    let sum: u32 = v.iter().sum();
    drop(v);
    let b = Box::new((sum, sum, sum, sum, sum, sum)); // @mark box
    // Leaked on purpose; black_box keeps LLVM from deleting an allocation nobody uses.
    core::hint::black_box(Box::leak(b));
    end()
}

/// A resource lookup that finds nothing: the stand-in for DmGetResource while
/// memdbg starts (Palm layout arguments, ignored; the handle in A0).
extern "C" fn no_resource() -> *mut c_void {
    core::ptr::null_mut()
}

/// `rust_box` when memdbg cannot locate code 1 (DmGetResource answers NULL during
/// start): frames stay 68k addresses and the alert's tail gives the raw address.
#[inline(never)]
unsafe fn rust_box_without_code_1() -> u32 {
    unsafe {
        let trap = palm::traps::sysTrapDmGetResource;
        let original = SysGetTrapAddress(trap);
        SysSetTrapAddress(trap, no_resource as *mut c_void);
        let started = begin(&Settings::DEFAULT);
        SysSetTrapAddress(trap, original);
        if started != 0 {
            return started;
        }
        // (The allocator called directly: a second call of the `__rust_alloc` shim
        // would take it out of line, and change `rust_box`'s innermost frame.)
        let layout = core::alloc::Layout::new::<[u32; 5]>();
        let b = core::alloc::GlobalAlloc::alloc(&ALLOC, layout); // @mark raw-box
        core::hint::black_box(b);
    }
    end()
}

/// Rust blocks aligned above 2 (palm-sys's `PalmAlloc` scheme: the block moved up to
/// its alignment in a bigger chunk, the distance in the word below it): before
/// `start` (plain) and while running (tracked, guarded after the block; one freed,
/// one leaked); an alignment above 0x8000 gives null both ways. Each block is
/// written whole (its guard must survive). (The allocator called directly, as in
/// `rust_box_without_code_1`.)
#[inline(never)]
unsafe fn aligned() -> u32 {
    let (a16, huge) = (
        core::alloc::Layout::from_size_align(20, 16).unwrap(),
        core::alloc::Layout::from_size_align(8, 0x1_0000).unwrap(),
    );
    // SAFETY: non-zero sizes; each block freed with its layout or leaked.
    unsafe {
        let mut round = 0;
        while round < 2 {
            if !core::alloc::GlobalAlloc::alloc(&ALLOC, huge).is_null() {
                return 1;
            }
            let p = core::alloc::GlobalAlloc::alloc(&ALLOC, a16);
            if p.is_null() || p as usize % 16 != 0 {
                return 2;
            }
            core::ptr::write_bytes(p, 0xA5, 20);
            core::alloc::GlobalAlloc::dealloc(&ALLOC, p, a16);
            if round == 0 && begin(&Settings::DEFAULT) != 0 {
                return 3;
            }
            round += 1;
        }
        let a8 = core::alloc::Layout::from_size_align(20, 8).unwrap();
        let p = core::alloc::GlobalAlloc::alloc(&ALLOC, a8); // @mark aligned
        if p.is_null() || p as usize % 8 != 0 {
            return 4;
        }
        core::ptr::write_bytes(p, 0xA5, 20);
        core::hint::black_box(p);
        // After the Rust blocks' call stacks, a wrapper's record has its file and
        // line and an empty stack again.
        let w = mem_ptr_new!(10); // @mark after-rust
        if w.is_null() {
            return 5;
        }
    }
    end()
}

/// Blocks that get no guard although guards are on: one too big for it (65,505
/// bytes, the Memory Manager's largest chunk), and one that the heap fits only without
/// it (the guarded request fails, the exact one is made: the largest block that fits
/// once untracked chunks, each holding the previous one, have filled the heap down to
/// below 60,000 bytes; freed before stop). Both leaked.
#[inline(never)]
unsafe fn no_room_for_guards() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let big = mem_ptr_new!(65_505); // @mark too-big
        if big.is_null() {
            return 1;
        }
        let mut last: *mut u32 = core::ptr::null_mut();
        let mut max = 0u32;
        loop {
            let mut free = 0u32;
            MemHeapFreeBytes(0, &mut free, &mut max);
            if max <= 60_000 {
                break;
            }
            let c = MemPtrNew(60_000).cast::<u32>();
            if c.is_null() {
                return 2;
            }
            *c = last as u32;
            last = c;
        }
        // The largest block that fits (MemPtrNew of one byte more fails).
        let mut size = max;
        loop {
            if size == 0 {
                return 3;
            }
            let c = MemPtrNew(size);
            if !c.is_null() {
                MemChunkFree(c);
                break;
            }
            size -= 1;
        }
        if !MemPtrNew(size + 1).is_null() {
            return 4;
        }
        let p = mem_ptr_new!(size); // @mark no-room
        if p.is_null() {
            return 5;
        }
        while !last.is_null() {
            let prev = *last as usize as *mut u32;
            MemChunkFree(last.cast());
            last = prev;
        }
    }
    end()
}

/// MemChunkNew: a non-movable chunk (pointer) and a movable one (handle) leaked.
#[inline(never)]
unsafe fn chunks() -> u32 {
    begin(&Settings::DEFAULT);
    let p = mem_chunk_new!(0, 6, mem::memNewChunkFlagNonMovable); // @mark chunk-ptr
    let h = mem_chunk_new!(0, 70, 0); // @mark chunk-handle
    if p.is_null() || h.is_null() {
        return 1;
    }
    end()
}

/// The C interface (what `include/memdbg.h` maps MemPtrNew & co. to), called as a
/// C app would: run-time file names, one of them too long for the record.
#[inline(never)]
unsafe fn c_api() -> u32 {
    use memdbg::capi::*;
    if memdbg_start(0, 5, 0, 0) != 0 {
        return 1;
    }
    let p = memdbg_ptr_new(16, c"capi.c".as_ptr(), 42);
    let h = memdbg_handle_new(8, c"src/a/rather/long/path/to/the/capi_test.c".as_ptr(), 43);
    let q = memdbg_chunk_new(
        0,
        4,
        u32::from(mem::memNewChunkFlagNonMovable),
        c"capi.c".as_ptr(),
        44,
    );
    if p.is_null() || h.is_null() || q.is_null() {
        return 2;
    }
    unsafe {
        if memdbg_ptr_resize(p, 20) != 0 || memdbg_ptr_free(p) != 0 {
            return 3;
        }
        memdbg_ptr_free(q);
    }
    if memdbg_stop() != 1 {
        return 4;
    }
    0
}

/// The C interface's file names at the edges of [`memdbg::record::FileName`]'s
/// cut (`C_FILE_NAMES`, lines 100 up; the last one null), each block left
/// allocated: 31 bytes, 32 with the only separator first, 40 without one, 40 with
/// backslashes.
unsafe fn c_file_names() -> u32 {
    use memdbg::capi::*;
    if memdbg_start(0, 0, 0, 0) != 0 {
        return 1;
    }
    // One call each (a loop over a stack array of names would hit LLVM bug 2).
    let leak = |name: *const palm::Char, line: u32| !memdbg_ptr_new(16, name, line).is_null();
    if !(leak(c"abcdefghijklmnopqrstuvwxyz01234".as_ptr(), 100)
        && leak(c"/bcdefghijklmnopqrstuvwxyz012345".as_ptr(), 101)
        && leak(c"abcdefghijklmnopqrstuvwxyz0123456789ABCD".as_ptr(), 102)
        && leak(
            c"C:\\dev\\projects\\memdbg\\source\\main_form.c".as_ptr(),
            103,
        )
        && leak(core::ptr::null(), 104))
    {
        return 2;
    }
    if memdbg_stop() != 5 {
        return 3;
    }
    0
}

/// Double frees through the free wrappers while the free traps are patched: a Rust
/// `mem_ptr_free!` and the C interface's `memdbg_ptr_free`. Each free is recorded at
/// its call here (not inside memdbg), once.
#[inline(never)]
unsafe fn wrapper_double_frees() -> u32 {
    use memdbg::capi::*;
    begin(&Settings::DEFAULT);
    unsafe {
        let p = mem_ptr_new!(20); // @mark wrapper-double
        mem_ptr_free!(p); // @mark wrapper-first
        let second = mem_ptr_free!(p); // @mark wrapper-second
        if second != memErrInvalidParam {
            return 1;
        }
        let q = memdbg_ptr_new(24, c"c.c".as_ptr(), 7);
        memdbg_ptr_free(q); // @mark c-first
        let second = memdbg_ptr_free(q); // @mark c-second
        if second != u32::from(memErrInvalidParam) {
            return 2;
        }
    }
    end()
}

/// Starts memdbg, allocates, frees and leaks, and returns without `stop`: its six
/// trap patches stay in the dispatch table, pointing at trampolines in its
/// system-owned state, which jump into this app's code 1.
#[inline(never)]
unsafe fn forgets_stop() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let p = mem_ptr_new!(16);
        let h = mem_handle_new!(24); // @mark forgotten
        MemChunkFree(p);
        if h.is_null() || MemHandleSize(h) != 24 {
            return 1;
        }
    }
    0
}

/// Blocks given to the system and kept (a pointer with MemPtrSetOwner(p, 0), a
/// handle with MemHandleSetOwner(h, 0)): handed off, not leaks. A block whose
/// owner goes to 0 and back to the app's, and a system-owned MemChunkNew (never
/// the app's), leak.
#[inline(never)]
unsafe fn hand_offs() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let p = mem_ptr_new!(16); // @mark handoff-ptr
        let h = mem_handle_new!(24); // @mark handoff-handle
        let q = mem_ptr_new!(8); // @mark owner-back
        let s = mem_chunk_new!(0, 6, mem::memNewChunkFlagNonMovable); // @mark system-chunk
        if p.is_null() || h.is_null() || q.is_null() || s.is_null() {
            return 1;
        }
        let app = MemPtrOwner(q);
        if MemPtrSetOwner(p, 0) != errNone
            || MemHandleSetOwner(h, 0) != errNone
            || MemPtrSetOwner(q, 0) != errNone
            || MemPtrSetOwner(q, app) != errNone
            || app == 0
        {
            return 2;
        }
    }
    end()
}

/// A `memdbg::Session` held for the whole scenario, left by path `path`: 0 the
/// end of the function, 1 an early return, 2 a return from inside a loop, 3
/// `Session::stop` (its summary checked), then the end. One 12-byte leak each
/// time. The result says which path ran (10 + path).
#[inline(never)]
unsafe fn session_paths(path: u32) -> u32 {
    let Ok(session) = memdbg::Session::start(&Settings::DEFAULT) else {
        return 90;
    };
    let p = mem_ptr_new!(12); // @mark session-leak
    core::hint::black_box(p);
    match path {
        1 => return 11,
        2 => {
            let mut i = 0;
            loop {
                if core::hint::black_box(i) == 3 {
                    return 12;
                }
                i += 1;
            }
        }
        3 => match session.stop() {
            Ok(s) if s.leaks == 1 && !memdbg::is_running() => return 13,
            _ => return 93,
        },
        _ => {}
    }
    10
}

/// A block allocated 200 calls deep (its stack is cut at the depth limit), and one
/// allocated under a frame chain that breaks (a caller whose A6 is odd: its
/// stack is cut there). Both leaked; call stacks on.
#[inline(never)]
unsafe fn deep_stacks() -> u32 {
    begin(&Settings {
        options: Settings::DEFAULT.options.union(Options::CALL_STACKS),
        ..Settings::DEFAULT
    });
    if recurse(200).is_null() || unsafe { with_odd_a6(broken_chain_alloc) }.is_null() {
        return 1;
    }
    end()
}

/// `n` calls deep, a leaked 8-byte block.
#[inline(never)]
fn recurse(n: u32) -> MemPtr {
    if n == 0 {
        return mem_ptr_new!(8); // @mark deep
    }
    // Not a tail call: the frames stay.
    core::hint::black_box(recurse(core::hint::black_box(n - 1)))
}

/// A leaked 12-byte block (called with an odd A6: its frame's link is broken).
#[inline(never)]
extern "C" fn broken_chain_alloc() -> MemPtr {
    core::hint::black_box(mem_ptr_new!(12)) // @mark broken-chain
}

#[cfg(target_arch = "m68k")]
core::arch::global_asm!(
    ".text",
    ".globl test_app_with_odd_a6",
    "test_app_with_odd_a6:",
    "    move.l %a6, -(%sp)",
    "    move.l (8,%sp), %a0",
    "    move.l #1, %a6",
    "    jsr (%a0)",
    "    move.l (%sp)+, %a6",
    "    rts",
);

#[cfg(target_arch = "m68k")]
unsafe extern "C" {
    /// Calls `f` with A6 = 1 (a frame pointer the walk must not follow), and
    /// returns its result; A6 is put back after.
    #[link_name = "test_app_with_odd_a6"]
    fn with_odd_a6(f: extern "C" fn() -> MemPtr) -> MemPtr;
}

#[cfg(not(target_arch = "m68k"))]
unsafe fn with_odd_a6(f: extern "C" fn() -> MemPtr) -> MemPtr {
    f()
}

/// Before `start`, the wrappers, the C interface and `MemDbgAlloc::realloc` are the
/// plain Memory Manager calls (the realloc in place, as PalmAlloc does it); then an
/// empty run.
#[inline(never)]
unsafe fn resizes_while_stopped() -> u32 {
    use memdbg::capi::*;
    unsafe {
        let p = MemPtrNew(16);
        if p.is_null() || mem_ptr_resize!(p, 40) != errNone || MemPtrSize(p) != 40 {
            return 1;
        }
        if mem_ptr_free!(p) != errNone {
            return 3;
        }
        let h = MemHandleNew(8);
        if h.is_null() || mem_handle_free!(h) != errNone {
            return 4;
        }
        let c = memdbg_ptr_new(12, c"c.c".as_ptr(), 5);
        if c.is_null() || MemPtrSize(c) != 12 || memdbg_ptr_free(c) != 0 {
            return 5;
        }
        // The last chunk allocated, with free space after it: grown in place.
        let mut v: Vec<u8> = Vec::with_capacity(8);
        v.push(1);
        let before = v.as_ptr();
        v.reserve_exact(100);
        if v.as_ptr() != before || MemPtrSize(v.as_mut_ptr().cast()) < 101 || v[0] != 1 {
            return 2;
        }
    }
    begin(&Settings::DEFAULT);
    end()
}

/// Many live blocks freed in a scattered order (index clusters shift back on every
/// removal), then three frees made from outside code 1 (a stub in RAM, as the OS's
/// own code would): every free must find its record. 40 blocks stay leaked.
#[inline(never)]
unsafe fn churn() -> u32 {
    const N: u32 = 300;
    begin(&Settings {
        capacity: 400,
        ..Settings::DEFAULT
    });
    unsafe {
        let keep = MemPtrNew(N * 4).cast::<u32>();
        let mut i = 0;
        while i < N {
            *keep.add(i as usize) = mem_ptr_new!(1 + i % 37) as u32; // @mark churn
            i += 1;
        }
        // Free 257 of them in the order i * 7 mod N, leaving 43.
        let mut k = 0;
        while k < 257 {
            let i = (k * 7) % N;
            MemChunkFree(*keep.add(i as usize) as usize as MemPtr);
            *keep.add(i as usize) = 0;
            k += 1;
        }
        // A stub in the dynamic heap that frees its argument, keeping D2 (which the
        // trap clobbers and LLVM's convention preserves): move.l %d2,-(%sp);
        // move.l (8,%sp),-(%sp); trap #15; .short 0xA012; lea (4,%sp),%sp;
        // move.l (%sp)+,%d2; rts.
        let stub = MemPtrNew(18).cast::<u16>();
        let code: [u16; 9] = [
            0x2F02, 0x2F2F, 0x0008, 0x4E4F, 0xA012, 0x4FEF, 0x0004, 0x241F, 0x4E75,
        ];
        let mut w = 0;
        while w < 9 {
            *stub.add(w) = *core::hint::black_box(&code).as_ptr().add(w);
            w += 1;
        }
        let os_free: unsafe extern "C" fn(MemPtr) -> u32 = core::mem::transmute(stub);
        let mut freed_by_stub = 0;
        let mut i = 0;
        while i < N && freed_by_stub < 3 {
            let p = *keep.add(i as usize);
            if p != 0 {
                os_free(p as usize as MemPtr);
                *keep.add(i as usize) = 0;
                freed_by_stub += 1;
            }
            i += 1;
        }
        MemChunkFree(stub.cast());
        MemChunkFree(keep.cast());
    }
    end()
}

/// Every option on and the rarer events: fills, call stacks, the low-heap warning
/// (threshold above any heap), an overrun found by a resize, a handle freed twice, a
/// chunk in the storage heap (no guard), and an overrun found at stop on a leak.
#[inline(never)]
unsafe fn options_and_rare_events() -> u32 {
    begin(&Settings {
        options: Settings::DEFAULT
            .options
            .union(Options::FILL_NEW)
            .union(Options::FILL_FREED)
            .union(Options::CALL_STACKS),
        low_heap_threshold: u32::MAX,
        ..Settings::DEFAULT
    });
    unsafe {
        let p = mem_ptr_new!(8).cast::<u8>(); // @mark filled
        if *p != 0x31 || *p.add(7) != 0x31 {
            return 1;
        }
        MemChunkFree(p.cast());
        let r = mem_ptr_new!(4).cast::<u8>(); // @mark resized-overrun
        *r.add(4) = 0;
        if mem_ptr_resize!(r.cast(), 2) != errNone {
            return 2;
        }
        MemChunkFree(r.cast());
        let h = mem_handle_new!(10); // @mark handle-twice
        MemHandleFree(h);
        if MemHandleFree(h) != memErrInvalidParam {
            return 3;
        }
        let s = mem_chunk_new!(1, 16, mem::memNewChunkFlagNonMovable); // @mark storage
        if s.is_null() {
            return 4;
        }
        let q = mem_ptr_new!(6).cast::<u8>(); // @mark leak-overrun
        *q.add(6) = 0x55;
    }
    end()
}

/// A database named MemDbgDB that is not a ledger (feature 1: 0 another creator, 1
/// another type, 2 a resource database with memdbg's creator and type): `start`
/// fails with `dmErrAlreadyExists` and leaves it alone (the test reads its record);
/// the wrappers are then the plain OS calls.
#[inline(never)]
unsafe fn foreign_ledger() -> u32 {
    use memdbg::record::{DB_CREATOR, DB_NAME_C, DB_TYPE};
    let (creator, kind, res) = match feature(1) {
        0 => (four_cc(b"Othr"), DB_TYPE, 0),
        1 => (DB_CREATOR, four_cc(b"DATA"), 0),
        _ => (DB_CREATOR, DB_TYPE, 1),
    };
    unsafe {
        if DmCreateDatabase(0, DB_NAME_C.as_ptr(), creator, kind, res) != errNone {
            return 1;
        }
        let id = DmFindDatabase(0, DB_NAME_C.as_ptr());
        if res == 0 {
            let db = DmOpenDatabase(0, id, dm::dmModeReadWrite);
            let mut at = dm::dmMaxRecordIndex;
            let h = DmNewRecord(db, &mut at, 8);
            if h.is_null() {
                return 2;
            }
            let p = MemHandleLock(h);
            DmWrite(p, 0, c"foreign".as_ptr().cast(), 8);
            MemHandleUnlock(h);
            DmReleaseRecord(db, at, 1);
            DmCloseDatabase(db);
        }
        if memdbg::start(&Settings::DEFAULT)
            != Err(memdbg::Error::Ledger(errors::dmErrAlreadyExists))
        {
            return 3;
        }
        if memdbg::is_running() || memdbg::stop() != Err(memdbg::Error::NotRunning) {
            return 4;
        }
        let p = mem_ptr_new!(8);
        if p.is_null() || MemChunkFree(p) != errNone {
            return 5;
        }
        if DmFindDatabase(0, DB_NAME_C.as_ptr()) != id {
            return 6;
        }
    }
    0
}

/// Writes `n` bytes of `v` at `p`.
unsafe fn fill(p: MemPtr, n: u32, v: u8) {
    let p = p.cast::<u8>();
    let mut i = 0;
    while i < n {
        unsafe { *p.add(i as usize) = v };
        i += 1;
    }
}

/// The guard bytes are invisible: MemPtrSize/MemHandleSize give the requested sizes
/// (also of a locked handle's pointer), and plain MemPtrResize/MemHandleResize
/// (through TRAP #15, not memdbg's wrappers) move the guard and update the record;
/// writing every byte the OS says a block has is no overrun. One byte past the
/// requested size still is. Untracked blocks get the OS's answers.
#[inline(never)]
unsafe fn guards_hidden() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        // A pointer written to exactly MemPtrSize bytes.
        let p = mem_ptr_new!(10);
        let n = MemPtrSize(p);
        if n != 10 {
            return 1;
        }
        fill(p, n, 0xAB);
        MemChunkFree(p);
        // A pointer shrunk by MemPtrResize, then written to its new size.
        let p = mem_ptr_new!(32);
        if MemPtrResize(p, 20) != errNone || MemPtrSize(p) != 20 {
            return 2;
        }
        fill(p, MemPtrSize(p), 0xAC);
        MemChunkFree(p);
        // A handle grown (it moves: a block sits right after it) and shrunk by
        // MemHandleResize, written to MemHandleSize bytes each time, then freed.
        let h = mem_handle_new!(16);
        let blocker = mem_ptr_new!(8);
        if MemHandleSize(h) != 16 {
            return 3;
        }
        let before = MemHandleLock(h);
        MemHandleUnlock(h);
        if MemHandleResize(h, 300) != errNone || MemHandleSize(h) != 300 {
            return 4;
        }
        let q = MemHandleLock(h);
        if q == before || MemPtrSize(q) != 300 {
            return 5;
        }
        fill(q, MemHandleSize(h), 0xAD);
        MemHandleUnlock(h);
        if MemHandleResize(h, 5) != errNone || MemHandleSize(h) != 5 {
            return 6;
        }
        fill(MemHandleLock(h), MemHandleSize(h), 0xAE);
        MemHandleUnlock(h);
        MemHandleFree(h);
        MemChunkFree(blocker);
        // A handle grown by MemHandleResize, shrunk through its locked pointer by
        // MemPtrResize (in place), fully written and kept: its one record has the
        // latest size.
        let k = mem_handle_new!(24); // @mark hidden-kept
        if MemHandleResize(k, 100) != errNone {
            return 7;
        }
        let kp = MemHandleLock(k);
        if MemPtrResize(kp, 60) != errNone || MemPtrSize(kp) != 60 || MemHandleSize(k) != 60 {
            return 8;
        }
        fill(kp, MemPtrSize(kp), 0xAF);
        MemHandleUnlock(k);
        // One byte past the requested size is still an overrun.
        let o = mem_ptr_new!(12); // @mark hidden-overrun
        let n = MemPtrSize(o);
        *o.cast::<u8>().add(n as usize) = 0;
        MemChunkFree(o); // @mark hidden-overrun-free
        // Untracked blocks: the OS's answers.
        let u = MemPtrNew(10);
        if MemPtrSize(u) != 10 || MemPtrResize(u, 6) != errNone || MemPtrSize(u) != 6 {
            return 9;
        }
        MemChunkFree(u);
    }
    end()
}

/// The OS grows a field's text handle (FldInsert: MemHandleResize through the
/// dispatch table, inside the OS): the guard moves with it, so FrmDeleteForm's free
/// finds it intact.
#[inline(never)]
unsafe fn field_grown_by_the_os() -> u32 {
    begin(&Settings::DEFAULT);
    unsafe {
        let form = FrmInitForm(FORM_ID);
        let field = FrmGetObjectPtr(form, FrmGetObjectIndex(form, FIELD_ID)).cast();
        let h = mem_handle_new!(4); // @mark field-grown
        let text = MemHandleLock(h).cast::<u8>();
        *text = b'h';
        *text.add(1) = b'i';
        *text.add(2) = 0;
        MemHandleUnlock(h);
        FldSetTextHandle(field, h);
        // Feature 1 set: two characters, so "hi!!" and its NUL (5 bytes) fit
        // in the chunk with its guard (4 + 4) but not in the 4 bytes asked for:
        // the Field Manager must see 4 (MemHandleSize through the table) and
        // resize, not write over the guard.
        let (more, n, size) = if feature(1) == 1 {
            (c"!!", 2, 5)
        } else {
            (c", a text that needs a bigger handle", 35, 38)
        };
        if FldInsert(field, more.as_ptr(), n) == 0 {
            return 1;
        }
        if FldGetTextHandle(field) != h || MemHandleSize(h) != size {
            return 2;
        }
        FrmDeleteForm(form);
    }
    end()
}

/// Publishes the dynamic heap's free bytes and largest free chunk now in features
/// 10 and 11 (the test compares them with the header's low-water marks).
unsafe fn publish_heap() {
    let (mut free, mut max) = (0u32, 0u32);
    unsafe {
        MemHeapFreeBytes(0, &mut free, &mut max);
        FtrSet(CREATOR, 10, free);
        FtrSet(CREATOR, 11, max);
    }
}

/// The heap's low-water marks are sampled at allocations that get no record
/// (feature 1: 0 an allocation that fails on a nearly full heap, with no tracked
/// allocation at all; 1 an allocation left untracked because the capacity, 1, is
/// used). The heap is published (features 10, 11) right after the lowest point.
#[inline(never)]
unsafe fn heap_low_water() -> u32 {
    unsafe {
        if feature(1) == 0 {
            begin(&Settings::DEFAULT);
            // Fill the heap with untracked chunks, each holding the previous one.
            let mut last: *mut u32 = core::ptr::null_mut();
            loop {
                let (mut free, mut max) = (0u32, 0u32);
                MemHeapFreeBytes(0, &mut free, &mut max);
                if max < 512 {
                    break;
                }
                let n = if max > 60_000 { 60_000 } else { max - 16 };
                let c = MemPtrNew(n).cast::<u32>();
                if c.is_null() {
                    return 1;
                }
                *c = last as u32;
                last = c;
            }
            publish_heap();
            if !mem_ptr_new!(600).is_null() {
                return 2;
            }
            while !last.is_null() {
                let prev = *last as usize as *mut u32;
                MemChunkFree(last.cast());
                last = prev;
            }
        } else {
            begin(&Settings {
                capacity: 1,
                ..Settings::DEFAULT
            });
            let a = mem_ptr_new!(16);
            let filler = MemPtrNew(4000);
            let b = mem_ptr_new!(16);
            publish_heap();
            if a.is_null() || filler.is_null() || b.is_null() {
                return 3;
            }
            MemChunkFree(b);
            MemChunkFree(filler);
            MemChunkFree(a);
        }
    }
    end()
}

/// Benchmark: `live` blocks allocated first (feature 2), then `pairs` alloc+free
/// pairs (feature 3), of 16-byte pointers or handles; with `lock`, each handle
/// is locked and unlocked once between (the unlock through memdbg's patch).
/// Default settings, the capacity raised where the live blocks need more (live +
/// 32: room for the ring's quarantined slots and the pair's block).
#[inline(never)]
unsafe fn bench(handles: bool, lock: bool) -> u32 {
    let live = feature(2);
    let pairs = feature(3);
    let settings = Settings {
        capacity: Settings::DEFAULT.capacity.max((live + 32) as u16),
        ..Settings::DEFAULT
    };
    if begin(&settings) != 0 {
        return 1;
    }
    unsafe {
        // The live blocks' addresses, in a chunk of our own (not tracked).
        let keep = MemPtrNew(live * 4 + 4).cast::<u32>();
        let mut i = 0;
        while i < live {
            let p = mem_ptr_new!(16);
            *keep.add(i as usize) = p as u32;
            i += 1;
        }
        let mut j = 0;
        while j < pairs {
            if handles {
                let h = mem_handle_new!(16);
                if lock {
                    MemHandleLock(h);
                    MemHandleUnlock(h);
                }
                MemHandleFree(h);
            } else {
                let p = mem_ptr_new!(16);
                MemChunkFree(p);
            }
            j += 1;
        }
        let mut i = 0;
        while i < live {
            MemChunkFree(*keep.add(i as usize) as usize as *mut c_void);
            i += 1;
        }
        MemChunkFree(keep.cast());
    }
    // Every block was found again at its free (through the index): no leaks.
    match memdbg::stop() {
        Ok(s) if s.leaks == 0 && s.double_frees == 0 => 0,
        Ok(_) => 92,
        Err(_) => 91,
    }
}
