//! palm-run's 68k test app. Feature ('PRtt', 0) selects the scenario; results are
//! stored in features ('PRtt', n) for the host test to read (no globals: patches run
//! in any context). Each scenario exercises one group of OS services; see
//! tools/palm-run/tests/e2e.rs for the values asserted.
#![no_std]
#![feature(asm_experimental_arch)]
#![allow(non_snake_case)]

use core::ffi::c_void;
use core::hint::black_box;
use core::ptr::null_mut;

use m68k_palmos_sys as palm_sys;
use palm_sys::dm::dmModeReadWrite;
use palm_sys::events::*;
use palm_sys::traps::*;
use palm_sys::*;

const CRID: u32 = u32::from_be_bytes(*b"PRtt");

#[inline(never)]
fn get(n: u16) -> u32 {
    let mut v = 0u32;
    unsafe { FtrGet(CRID, n, &mut v) };
    v
}

#[inline(never)]
fn put(n: u16, v: u32) {
    unsafe { FtrSet(CRID, n, v) };
}

#[inline(never)]
fn free_bytes() -> (u32, u32) {
    let mut f = 0u32;
    let mut m = 0u32;
    unsafe { MemHeapFreeBytes(0, &mut f, &mut m) };
    (f, m)
}

/// 1: a sequence of allocations and a free; two chunks are left for the owner sweep.
#[inline(never)]
fn heap_sequence() {
    let (f0, _) = free_bytes();
    put(1, f0);
    unsafe {
        let p1 = MemPtrNew(10);
        let h2 = MemHandleNew(20);
        let p3 = MemPtrNew(30);
        put(3, p1 as u32);
        put(4, h2 as u32);
        put(5, p3 as u32);
        put(6, free_bytes().0);
        MemChunkFree(p1);
        let (f2, m2) = free_bytes();
        put(7, f2);
        put(8, m2);
        put(9, MemPtrSize(p3));
        put(10, MemHandleSize(h2));
        put(11, MemPtrOwner(p3) as u32);
        // The chunk headers as the app sees them in memory (8 bytes before the body).
        let hdr = (p3 as *const u32).sub(2);
        put(12, hdr.read());
        put(13, hdr.add(1).read());
        let b2 = MemHandleLock(h2) as *const u32;
        MemHandleUnlock(h2);
        put(14, b2.sub(2).read());
        put(15, b2.sub(1).read());
    }
}

/// 2: a handle that moves on resize, MemPtrRecoverHandle, lock counts, a locked
/// handle that cannot move, MemPtrResize in place.
#[inline(never)]
fn resize() {
    unsafe {
        let h = MemHandleNew(16);
        let blocker = MemPtrNew(16);
        let before = MemHandleLock(h);
        MemHandleUnlock(h);
        put(1, MemHandleResize(h, 400) as u32);
        let after = MemHandleLock(h);
        put(2, before as u32);
        put(3, after as u32);
        put(4, MemHandleSize(h));
        put(5, MemPtrRecoverHandle(after) as u32);
        put(6, h as u32);
        put(7, MemHandleLockCount(h) as u32);
        // h3 fills the hole h left (24 bytes) and the blocker follows it.
        let h3 = MemHandleNew(16);
        MemHandleLock(h3);
        put(8, MemHandleResize(h3, 400) as u32);
        put(12, MemHandleLock(h3) as u32);
        MemHandleUnlock(h3);
        MemHandleUnlock(h3);
        MemHandleFree(h3);
        MemHandleUnlock(h);
        MemHandleFree(h);
        MemChunkFree(blocker);
        let p = MemPtrNew(32);
        put(9, MemPtrResize(p, 16) as u32);
        put(10, MemPtrSize(p));
        put(11, p as u32);
        MemChunkFree(p);
    }
}

extern "C" fn free_body(h: MemHandle) -> Err {
    put(101, get(101) + 1);
    put(102, h as u32);
    unsafe { chain::MemHandleFree(get(100) as *mut c_void, h) }
}
trap_replacement!(MemHandleFree, pub free_entry => free_body);

/// 3 (restore = true) and 4 (restore = false): a 68k patch of MemHandleFree sees the
/// free FrmDeleteForm does for the field's text handle, and chains to the original.
#[inline(never)]
fn patch(restore: bool) {
    unsafe {
        let orig = SysGetTrapAddress(sysTrapMemHandleFree);
        put(100, orig as u32);
        put(
            106,
            SysSetTrapAddress(sysTrapMemHandleFree, free_entry as *mut c_void) as u32,
        );
        put(105, SysGetTrapAddress(sysTrapMemHandleFree) as u32);
        let form = FrmInitForm(1000);
        let idx = FrmGetObjectIndex(form, 1002);
        let fld = FrmGetObjectPtr(form, idx) as *mut FieldType;
        let h = MemHandleNew(8);
        put(103, h as u32);
        FldSetTextHandle(fld, h);
        put(104, FldGetTextHandle(fld) as u32);
        FrmDeleteForm(form);
        if restore {
            SysSetTrapAddress(sysTrapMemHandleFree, orig);
        }
    }
}

#[inline(never)]
fn open_data() -> DmOpenRef {
    unsafe {
        DmCreateDatabase(0, c"RtData".as_ptr(), CRID, u32::from_be_bytes(*b"DATA"), 0);
        let id = DmFindDatabase(0, c"RtData".as_ptr());
        DmOpenDatabase(0, id, dmModeReadWrite)
    }
}

/// 5: a direct write to a record (storage memory).
#[inline(never)]
fn storage_write() {
    unsafe {
        let db = open_data();
        let mut at = 0u16;
        let h = DmNewRecord(db, &mut at, 8);
        let p = MemHandleLock(h) as *mut u8;
        put(1, p as u32);
        core::ptr::write_volatile(p, 1);
    }
}

/// 6: a double free.
#[inline(never)]
fn double_free() {
    unsafe {
        let p = MemPtrNew(8);
        put(1, p as u32);
        MemChunkFree(p);
        MemChunkFree(p);
    }
}

/// 7: the Data Manager and the Feature Manager's storage memory.
#[inline(never)]
fn data_manager() {
    unsafe {
        let db = open_data();
        let mut at = 0u16;
        let h = DmNewRecord(db, &mut at, 6);
        let p = MemHandleLock(h);
        DmWrite(p, 0, c"hello".as_ptr().cast(), 6);
        DmSet(p, 5, 1, b'!');
        MemHandleUnlock(h);
        DmReleaseRecord(db, 0, 1);
        let mut at2 = 0u16;
        let h2 = DmNewRecord(db, &mut at2, 4);
        let p2 = MemHandleLock(h2);
        DmWrite(p2, 0, c"abc".as_ptr().cast(), 4);
        MemHandleUnlock(h2);
        DmReleaseRecord(db, 0, 1);
        put(1, DmNumRecords(db) as u32);
        let mut uid = 0u32;
        DmRecordInfo(db, 1, null_mut(), &mut uid, null_mut());
        put(2, uid);
        let mut idx = 0xFFFFu16;
        put(3, DmFindRecordByID(db, uid, &mut idx) as u32);
        put(4, idx as u32);
        let r = DmGetResource(u32::from_be_bytes(*b"tver"), 1);
        let v = MemHandleLock(r) as *const u8;
        put(5, *v as u32);
        MemHandleUnlock(r);
        DmReleaseResource(r);
        let mut fp: *mut c_void = null_mut();
        put(6, FtrPtrNew(CRID, 200, 16, &mut fp) as u32);
        DmWrite(fp, 0, c"feat".as_ptr().cast(), 5);
        put(7, fp as u32);
        let mut card = 9u16;
        let mut dbid = 0u32;
        SysCurAppDatabase(&mut card, &mut dbid);
        put(8, dbid);
        DmRemoveRecord(db, 1);
        put(9, DmNumRecords(db) as u32);
        DmCloseDatabase(db);
        put(10, DmGetRecord(null_mut(), 0) as u32);
    }
}

/// 8: DmWrite past the end of a record.
#[inline(never)]
fn dm_write_out_of_bounds() {
    unsafe {
        let db = open_data();
        let mut at = 0u16;
        let h = DmNewRecord(db, &mut at, 8);
        let p = MemHandleLock(h);
        DmWrite(p, 4, c"1234567".as_ptr().cast(), 8);
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Args {
    d: i16,
    ld: i32,
    s: *const Char,
    x: u16,
}

/// 9: the String Manager and DbgMessage.
#[inline(never)]
fn strings() {
    unsafe {
        let buf = MemPtrNew(64) as *mut Char;
        let args = Args {
            d: -12,
            ld: 100_000,
            s: c"abc".as_ptr(),
            x: 0xBEEF,
        };
        let n = StrPrintF(buf, c"%d %ld %s %x".as_ptr(), PalmVaList::new(&args));
        put(1, n as u32);
        DbgMessage(buf);
        StrIToA(buf, -4711);
        DbgMessage(buf);
        put(2, StrLen(buf) as u32);
        let buf2 = MemPtrNew(16) as *mut Char;
        StrCopy(buf2, buf);
        DbgMessage(buf2);
        MemChunkFree(buf.cast());
        MemChunkFree(buf2.cast());
    }
}

unsafe extern "C" fn form_handler(e: *mut EventType) -> bool {
    unsafe {
        match (*e).eType {
            x if x == frmOpenEvent => {
                FrmDrawForm(FrmGetActiveForm());
                true
            }
            x if x == ctlSelectEvent => {
                put(1, (*e).ctl_select().controlID as u32);
                put(2, get(2) + 1);
                DbgMessage(c"tapped".as_ptr());
                let form = FrmGetActiveForm();
                let fld = FrmGetObjectPtr(form, FrmGetObjectIndex(form, 1002)) as *mut FieldType;
                let h = MemHandleNew(12);
                put(3, h as u32);
                // The field does not free a handle it is given a new one for.
                let old = FldGetTextHandle(fld);
                FldSetTextHandle(fld, h);
                if !old.is_null() {
                    MemHandleFree(old);
                }
                FrmCustomAlert(1100, c"42".as_ptr(), null_mut(), null_mut());
                true
            }
            _ => false,
        }
    }
}
form_event_handler!(pub form_entry => form_handler);

/// 10, 16 and 25: an event loop with forms (the first form and the handler
/// given); scripted events; appStopEvent; FrmCloseAllForms.
#[inline(never)]
fn event_loop(first: u16, handler: FormEventHandlerType) {
    unsafe {
        FrmGotoForm(first);
        let mut e: EventType = core::mem::zeroed();
        loop {
            EvtGetEvent(&mut e, -1);
            let mut err = 0u16;
            if SysHandleEvent(&mut e) != 0 || MenuHandleEvent(null_mut(), &mut e, &mut err) != 0 {
                continue;
            }
            if e.eType == frmLoadEvent {
                let form = FrmInitForm(e.form_id());
                FrmSetActiveForm(form);
                FrmSetEventHandler(form, handler);
                continue;
            }
            FrmDispatchEvent(&mut e);
            if e.eType == appStopEvent {
                break;
            }
        }
        // What the field holds at the end (scenario 16).
        let form = FrmGetFormPtr(1000);
        if !form.is_null() {
            let fld = FrmGetObjectPtr(form, FrmGetObjectIndex(form, 1002)) as *mut FieldType;
            let t = FldGetTextPtr(fld);
            put(20, FldGetTextLength(fld) as u32);
            if !t.is_null() {
                put(21, (t as *const u8).read() as u32);
                put(22, (t as *const u8).add(1).read() as u32);
            }
            put(23, FldDirty(fld) as u32);
        }
        FrmCloseAllForms();
    }
}

/// 11: a trap the runner does not implement.
#[inline(never)]
fn unknown_trap() {
    unsafe {
        SysAppLaunch(0, 0, 0, 0, null_mut(), null_mut());
    }
}

/// 12: a CPU-bound loop (the benchmark): feature 1 iterations.
#[inline(never)]
fn cpu_loop() -> u32 {
    let n = get(1);
    let mut a = 1u32;
    let mut b = 0u32;
    let mut i = 0u32;
    while i < n {
        a = black_box(a.wrapping_mul(33) ^ i);
        b = b.wrapping_add(a >> 3);
        i += 1;
    }
    put(2, b);
    b
}

/// 13: alerts, sounds, ticks, the memory semaphore.
#[inline(never)]
fn misc() {
    unsafe {
        let t0 = TimGetTicks();
        put(1, t0);
        SndPlaySystemSound(sounds::sndError);
        ErrDisplayFileLineMsg(c"runtest.rs".as_ptr(), 123, c"non-fatal note".as_ptr());
        put(2, SysFatalAlert(c"fatal?".as_ptr()) as u32);
        let db = open_data();
        let mut at = 0u16;
        let h = DmNewRecord(db, &mut at, 4);
        let p = MemHandleLock(h) as *mut u8;
        MemSemaphoreReserve(1);
        core::ptr::write_volatile(p, 7);
        MemSemaphoreRelease(1);
        MemHandleUnlock(h);
        DmReleaseRecord(db, 0, 1);
        DmCloseDatabase(db);
        put(3, TimGetTicks().wrapping_sub(t0));
        FrmAlert(1100);
    }
}

/// 14: unlocking a handle that is not locked.
#[inline(never)]
fn bad_unlock() {
    unsafe {
        let h = MemHandleNew(4);
        put(1, h as u32);
        MemHandleUnlock(h);
    }
}

/// 15: the remaining services: MemChunkNew, owners, MemHeapFreeByOwnerID,
/// MemSet/MemMove/MemCmp, Data Manager info and lookups, features, fields,
/// drawing, StrIToH.
#[inline(never)]
fn services() {
    unsafe {
        let p = MemChunkNew(0, 24, 0x0200);
        put(1, p as u32);
        put(2, MemPtrOwner(p) as u32);
        let h = MemChunkNew(0, 24, 3) as MemHandle;
        put(3, MemHandleOwner(h) as u32);
        MemHandleSetOwner(h, 5);
        put(4, MemHandleOwner(h) as u32);
        MemPtrSetOwner(p, 5);
        let f0 = free_bytes().0;
        MemHeapFreeByOwnerID(0, 5);
        put(5, free_bytes().0 - f0);
        let a = MemPtrNew(8) as *mut u8;
        let b = MemPtrNew(8) as *mut u8;
        MemSet(a.cast(), 8, 0x41);
        MemMove(b.cast(), a.cast(), 8);
        put(6, MemCmp(a.cast(), b.cast(), 8) as i32 as u32);
        *b.add(3) = 0x42;
        put(7, MemCmp(a.cast(), b.cast(), 8) as i32 as u32);
        put(8, (b as *const u32).read());
        MemChunkFree(a.cast());
        MemChunkFree(b.cast());
        let info = u32::from_be_bytes(*b"INFO");
        DmCreateDatabase(0, c"RtInfo".as_ptr(), CRID, info, 0);
        let db = DmOpenDatabaseByTypeCreator(info, CRID, dmModeReadWrite);
        put(9, (!db.is_null()) as u32);
        let mut at = 0u16;
        let rh = DmNewRecord(db, &mut at, 2);
        DmReleaseRecord(db, 0, 0);
        put(10, (DmGetRecord(db, 0) == rh) as u32);
        put(11, (DmQueryRecord(db, 0) == rh) as u32);
        DmReleaseRecord(db, 0, 0);
        let mut id = 0u32;
        let mut count = 0u16;
        let mut mode = 0u16;
        let mut card = 9u16;
        let mut res = 9u8;
        DmOpenDatabaseInfo(db, &mut id, &mut count, &mut mode, &mut card, &mut res);
        put(12, count as u32);
        put(13, mode as u32);
        let mut ver = 7u16;
        let n = null_mut();
        DmSetDatabaseInfo(
            0,
            id,
            c"RtInfo2".as_ptr(),
            n,
            &mut ver,
            n.cast(),
            n.cast(),
            n.cast(),
            n.cast(),
            n.cast(),
            n.cast(),
            n.cast(),
            n.cast(),
        );
        let mut ver2 = 0u16;
        let mut ty = 0u32;
        DmDatabaseInfo(
            0,
            id,
            n.cast(),
            n,
            &mut ver2,
            n.cast(),
            n.cast(),
            n.cast(),
            n.cast(),
            n.cast(),
            n.cast(),
            &mut ty,
            n.cast(),
        );
        put(14, ver2 as u32);
        put(15, ty);
        put(16, (DmFindDatabase(0, c"RtInfo2".as_ptr()) == id) as u32);
        DmCloseDatabase(db);
        put(17, DmDeleteDatabase(0, id) as u32);
        put(18, DmFindDatabase(0, c"RtInfo2".as_ptr()));
        put(
            19,
            (!DmGet1Resource(u32::from_be_bytes(*b"tver"), 1).is_null()) as u32,
        );
        FtrSet(CRID, 300, 5);
        put(20, FtrUnregister(CRID, 300) as u32);
        let mut v = 0u32;
        put(21, FtrGet(CRID, 300, &mut v) as u32);
        let mut fp: *mut c_void = null_mut();
        FtrPtrNew(CRID, 301, 8, &mut fp);
        put(22, FtrPtrFree(CRID, 301) as u32);
        let form = FrmInitForm(1000);
        let fld = FrmGetObjectPtr(form, FrmGetObjectIndex(form, 1002)) as *mut FieldType;
        FldSetTextPtr(fld, c"ptr text".as_ptr() as *mut Char);
        FldDrawField(fld);
        put(23, FldGetTextHandle(fld).is_null() as u32);
        put(24, FrmGetObjectIndex(form, 4242) as u32);
        FrmDeleteForm(form);
        WinDrawChars(c"drawn".as_ptr(), 5, 1, 2);
        let buf = MemPtrNew(12) as *mut Char;
        StrIToH(buf, 0xBEEF);
        DbgMessage(buf);
        MemChunkFree(buf.cast());
    }
}

unsafe extern "C" fn edit_handler(e: *mut EventType) -> bool {
    unsafe {
        let form = FrmGetActiveForm();
        match (*e).eType {
            x if x == frmOpenEvent => {
                FrmDrawForm(form);
                // Feature 30 set: the field gets the focus from a penDown.
                if (*e).form_id() == 1000 && get(30) == 0 {
                    FrmSetFocus(form, FrmGetObjectIndex(form, 1002));
                }
                true
            }
            x if x == ctlSelectEvent => {
                let id = (*e).ctl_select().controlID;
                if id == 1001 {
                    FrmPopupForm(1200);
                } else if id == 1201 {
                    put(10, FrmGetActiveFormID() as u32);
                    FrmReturnToForm(0);
                    put(11, FrmGetActiveFormID() as u32);
                }
                true
            }
            _ => false,
        }
    }
}
form_event_handler!(pub edit_entry => edit_handler);

/// 17: more String, Data, Feature, Memory and System Manager calls, and a dialog.
#[inline(never)]
fn extras() {
    unsafe {
        let buf = MemPtrNew(32) as *mut Char;
        StrCopy(buf, c"ab".as_ptr());
        StrCat(buf, c"cd".as_ptr());
        StrNCat(buf, c"efgh".as_ptr(), 7);
        DbgMessage(buf);
        put(1, StrCompare(buf, c"abd".as_ptr()) as i32 as u32);
        put(
            2,
            StrCaselessCompare(c"ABC".as_ptr(), c"abc".as_ptr()) as u32,
        );
        put(3, StrNCompare(buf, c"abcX".as_ptr(), 3) as u32);
        put(
            4,
            (StrChr(buf, b'c' as WChar) as u32).wrapping_sub(buf as u32),
        );
        put(
            5,
            (StrStr(buf, c"de".as_ptr()) as u32).wrapping_sub(buf as u32),
        );
        put(6, StrAToI(c"-123x".as_ptr()) as u32);
        StrNCopy(buf, c"xyz".as_ptr(), 2);
        put(7, (buf as *const u8).add(2).read() as u32);
        MemChunkFree(buf.cast());
        put(8, SysTicksPerSecond() as u32);
        let v = SysGetOSVersionString();
        DbgMessage(v);
        MemChunkFree(v.cast());
        put(9, DmNumDatabases(0) as u32);
        let mut state: DmSearchStateType = core::mem::zeroed();
        let mut card = 0u16;
        let mut id = 0u32;
        put(
            10,
            DmGetNextDatabaseByTypeCreator(
                1,
                &mut state,
                u32::from_be_bytes(*b"appl"),
                CRID,
                0,
                &mut card,
                &mut id,
            ) as u32,
        );
        put(11, id);
        let db = open_data();
        let h = DmNewHandle(db, 3);
        let mut at = 0u16;
        put(12, DmAttachRecord(db, &mut at, h, null_mut()) as u32);
        let mut at2 = 5u16;
        let h2 = DmNewHandle(db, 5);
        DmAttachRecord(db, &mut at2, h2, null_mut());
        put(13, at2 as u32);
        DmMoveRecord(db, 1, 0);
        put(14, (DmQueryRecord(db, 0) == h2) as u32);
        let mut attr = 0x0003u16;
        DmSetRecordInfo(db, 0, &mut attr, null_mut());
        put(15, DmNumRecordsInCategory(db, 3) as u32);
        let mut old: MemHandle = null_mut();
        DmDetachRecord(db, 0, &mut old);
        put(16, (old == h2) as u32);
        MemHandleFree(old);
        let mut n = 0u32;
        let mut data = 0u32;
        DmDatabaseSize(
            0,
            DmFindDatabase(0, c"RtData".as_ptr()),
            &mut n,
            null_mut(),
            &mut data,
        );
        put(17, n);
        put(18, data);
        DmCloseDatabase(db);
        let mut c = 0u32;
        let mut num = 0u16;
        let mut val = 0u32;
        FtrGetByIndex(0, 0, &mut c, &mut num, &mut val);
        put(19, num as u32);
        let mut fp: *mut c_void = null_mut();
        FtrPtrNew(CRID, 400, 4, &mut fp);
        DmWrite(fp, 0, c"abc".as_ptr().cast(), 4);
        let mut fp2: *mut c_void = null_mut();
        put(20, FtrPtrResize(CRID, 400, 200, &mut fp2) as u32);
        put(21, (fp2 as *const u8).read() as u32);
        FtrPtrFree(CRID, 400);
        put(22, MemHeapFlags(0) as u32);
        put(23, MemHeapCompact(0) as u32);
        let dlg = FrmInitForm(1200);
        put(24, FrmDoDialog(dlg) as u32);
        put(25, (FrmGetTitle(dlg) as *const u8).read() as u32);
        FrmDeleteForm(dlg);
    }
}

/// 18: debug modes: scramble on change moves unlocked handles; fill free.
#[inline(never)]
fn debug_modes() {
    unsafe {
        let h = MemHandleNew(8);
        let p1 = MemHandleLock(h);
        MemHandleUnlock(h);
        MemSetDebugMode(0x0004 | 0x0010);
        let q = MemPtrNew(4);
        let p2 = MemHandleLock(h);
        put(1, p1 as u32);
        put(2, p2 as u32);
        MemHandleUnlock(h);
        MemHeapScramble(0);
        put(3, MemHandleLock(h) as u32);
        MemHandleUnlock(h);
        MemChunkFree(q);
        put(4, (q as *const u32).read());
        MemSetDebugMode(0);
        MemHandleFree(h);
    }
}

/// 19: fill the dynamic heap with 16-byte chunks until MemPtrNew returns NULL,
/// then keep asking (feature 1: that many more calls, 0: forever). Feature 2:
/// chunks allocated; 3: further calls made.
#[inline(never)]
fn full_heap() {
    unsafe {
        let mut n = 0u32;
        while !MemPtrNew(16).is_null() {
            n += 1;
        }
        put(2, n);
        let more = get(1);
        let mut i = 0u32;
        while more == 0 || i < more {
            black_box(MemPtrNew(16));
            i += 1;
        }
        put(3, i);
    }
}

/// 20: feature 1 × (DmNewRecord(db, &at, 1) + DmReleaseRecord) appending to a
/// new database (feature 1 = 0: until DmNewRecord fails). Feature 2: records
/// made; 3: DmNumRecords; 4: DmGetLastErr after the last call.
#[inline(never)]
fn many_records() {
    unsafe {
        let db = open_data();
        let n = get(1);
        let mut i = 0u32;
        while n == 0 || i < n {
            let mut at = 0xFFFFu16;
            if DmNewRecord(db, &mut at, 1).is_null() {
                break;
            }
            DmReleaseRecord(db, at, 0);
            i += 1;
        }
        put(2, i);
        put(3, DmNumRecords(db) as u32);
        put(4, DmGetLastErr() as u32);
        DmCloseDatabase(db);
    }
}

/// 21's recursion: a frame with locals per level.
#[inline(never)]
fn recurse(n: u32) -> u32 {
    let local = black_box(n ^ 0x55);
    if n == 0 {
        0
    } else {
        recurse(n - 1).wrapping_add(local)
    }
}

/// 21: a recursion 100 000 levels deep overflows the 4 KB stack.
#[inline(never)]
fn deep_recursion() {
    put(1, recurse(black_box(100_000)));
}

/// 22: a call through a NULL function pointer.
#[inline(never)]
fn null_call() {
    let f: Option<extern "C" fn()> = black_box(None);
    // SAFETY: deliberately wrong, the scenario is a NULL function pointer.
    let f: extern "C" fn() = unsafe { core::mem::transmute(f) };
    f();
    put(1, 1);
}

/// 23: what 68k code sees of handles: `*h`, MemHandleLock's pointer, the
/// handle recovered from it, LocalIDs, a record's handle, a detached record
/// (tools/palm-run/tests/strict.rs, with and without opaque handles).
#[inline(never)]
fn handles() {
    unsafe {
        let h = MemHandleNew(10);
        put(1, h as u32);
        put(2, core::ptr::read_volatile(h as *const u32));
        let p = MemHandleLock(h);
        put(3, p as u32);
        put(4, MemPtrRecoverHandle(p) as u32);
        MemHandleUnlock(h);
        let local = MemHandleToLocalID(h);
        put(5, local);
        put(6, MemLocalIDToGlobal(local, 0) as u32);
        let db = open_data();
        let mut at = 0u16;
        let r = DmNewRecord(db, &mut at, 4);
        put(7, r as u32);
        put(8, core::ptr::read_volatile(r as *const u32));
        let mut chunk = 0u32;
        DmRecordInfo(db, 0, null_mut(), null_mut(), &mut chunk);
        put(9, chunk);
        DmReleaseRecord(db, 0, 1);
        let mut back: MemHandle = null_mut();
        DmDetachRecord(db, 0, &mut back);
        put(10, back as u32);
        MemHandleFree(back);
        DmCloseDatabase(db);
        MemHandleFree(h);
        put(11, MemHandleFree(h) as u32);
    }
}

/// 24: DmWrite through a pointer kept after DmReleaseRecord, then through a
/// fresh one; DmWrite into an unlocked record, a release of a record not busy,
/// DmWrite into a busy record whose only writable DmOpenRef is closed; a
/// resource locked after its release; code 1 left locked.
#[inline(never)]
fn released() {
    unsafe {
        let db = open_data();
        let mut at = 0u16;
        let h = DmNewRecord(db, &mut at, 4);
        let p = MemHandleLock(h);
        put(1, p as u32);
        put(2, DmWrite(p, 0, c"abc".as_ptr().cast(), 4) as u32);
        DmReleaseRecord(db, 0, 1);
        put(3, DmWrite(p, 0, c"xyz".as_ptr().cast(), 4) as u32);
        let r = DmGetRecord(db, 0);
        let q = MemHandleLock(r);
        put(4, q as u32);
        put(5, DmWrite(q, 0, c"new".as_ptr().cast(), 4) as u32);
        MemHandleResetLock(r);
        put(6, DmWrite(q, 0, c"unl".as_ptr().cast(), 4) as u32);
        DmReleaseRecord(db, 0, 1);
        // Released again: no longer busy.
        DmReleaseRecord(db, 0, 0);
        let id = DmFindDatabase(0, c"RtData".as_ptr());
        let ro = DmOpenDatabase(0, id, palm_sys::dm::dmModeReadOnly);
        let r2 = DmGetRecord(db, 0);
        let q2 = MemHandleLock(r2);
        DmCloseDatabase(db);
        put(7, DmWrite(q2, 0, c"ro!".as_ptr().cast(), 4) as u32);
        MemHandleUnlock(r2);
        DmCloseDatabase(ro);
        let res = DmGetResource(u32::from_be_bytes(*b"tver"), 1);
        put(8, MemHandleLock(res) as u32);
        MemHandleUnlock(res);
        DmReleaseResource(res);
        put(9, MemHandleLock(res) as u32);
        MemHandleUnlock(res);
        // Code 1 locked and never unlocked (the exit check undoes it).
        MemHandleLock(DmGetResource(u32::from_be_bytes(*b"code"), 1));
    }
}

/// Three Int16 arguments of a `StrPrintF`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Three {
    a: i16,
    b: i16,
    c: i16,
}

/// `DbgMessage(StrPrintF(fmt, a, b, c))`, for the host test to read.
#[inline(never)]
fn say(fmt: &core::ffi::CStr, a: i16, b: i16, c: i16) {
    unsafe {
        let buf = MemPtrNew(48) as *mut Char;
        StrPrintF(buf, fmt.as_ptr(), PalmVaList::new(&Three { a, b, c }));
        DbgMessage(buf);
        MemChunkFree(buf.cast());
    }
}

/// The object `id` of the active form.
#[inline(never)]
fn object(id: u16) -> *mut c_void {
    unsafe {
        let form = FrmGetActiveForm();
        FrmGetObjectPtr(form, FrmGetObjectIndex(form, id))
    }
}

/// Items the app gives list 1404.
const LINES: i16 = 10;

/// List 1404's items: a chunk of `LINES` pointers and then the strings
/// "Line 0" .. "Line 9" (kept in feature 20, freed at frmCloseEvent).
#[inline(never)]
fn make_lines() -> *mut *mut Char {
    unsafe {
        let n = LINES as usize;
        let chunk = MemPtrNew((n * (4 + 8)) as u32) as *mut u8;
        put(20, chunk as u32);
        let table = chunk as *mut *mut Char;
        for i in 0..n {
            let text = black_box(chunk.add(4 * n + 8 * i));
            for (k, &b) in b"Line ".iter().enumerate() {
                text.add(k).write(b);
            }
            text.add(5).write(b'0' + i as u8);
            text.add(6).write(0);
            table.add(i).write(text as *mut Char);
        }
        table
    }
}

/// Scrolls list 1404 to `top`, the scroll bar with it, and draws the list.
#[inline(never)]
fn scroll_lines(top: i16) {
    unsafe {
        let list = object(1404) as *mut ListType;
        LstSetTopItem(list, top);
        SclSetScrollBar(object(1405) as ScrollBarPtr, top, 0, LINES - 4, 4);
        LstDrawList(list);
    }
}

/// 25's form handler: lists, the popup trigger and the scroll bar report
/// their events with DbgMessage and leave them to FrmHandleEvent; the repeat
/// buttons and the scroll bar scroll list 1404.
unsafe extern "C" fn lists_handler(e: *mut EventType) -> bool {
    unsafe {
        let e = &*e;
        match e.eType {
            x if x == frmOpenEvent => {
                put(
                    1,
                    LstGetSelection(object(1401) as *mut ListType) as u16 as u32,
                );
                let lines = object(1404) as *mut ListType;
                LstSetListChoices(lines, make_lines(), LINES);
                LstSetSelection(lines, -1);
                put(2, LstGetNumberOfItems(lines) as u32);
                put(3, LstGetVisibleItems(lines) as u32);
                SclSetScrollBar(object(1405) as ScrollBarPtr, 0, 0, LINES - 4, 4);
                FrmDrawForm(FrmGetActiveForm());
                true
            }
            x if x == lstSelectEvent => {
                let s = e.lst_select();
                say(c"lst %d %d", s.listID as i16, s.selection, 0);
                false
            }
            x if x == ctlSelectEvent => {
                say(c"ctl %d", e.ctl_select().controlID as i16, 0, 0);
                false
            }
            x if x == popSelectEvent => {
                let p = e.pop_select();
                say(c"pop %d %d", p.controlID as i16, p.listID as i16, 0);
                say(c"sel %d prior %d", p.selection, p.priorSelection, 0);
                put(
                    4,
                    (p.controlP as u32 == object(1402) as u32
                        && p.listP as u32 == object(1403) as u32) as u32,
                );
                false
            }
            x if x == ctlRepeatEvent => {
                let id = e.ctl_repeat().controlID;
                say(c"rpt %d", id as i16, 0, 0);
                let mut value = 0i16;
                SclGetScrollBar(
                    object(1405) as ScrollBarPtr,
                    &mut value,
                    null_mut(),
                    null_mut(),
                    null_mut(),
                );
                let top = if id == 1406 { value - 1 } else { value + 1 };
                scroll_lines(top.clamp(0, LINES - 4));
                false
            }
            x if x == sclRepeatEvent => {
                let r = e.scl_repeat();
                say(c"scl %d %d %d", r.scrollBarID as i16, r.value, r.newValue);
                scroll_lines(r.newValue);
                false
            }
            x if x == sclExitEvent => {
                let r = e.scl_repeat();
                say(c"exit %d %d %d", r.scrollBarID as i16, r.value, r.newValue);
                false
            }
            x if x == frmCloseEvent => {
                put(
                    5,
                    LstGetSelection(object(1401) as *mut ListType) as u16 as u32,
                );
                let popup = object(1403) as *mut ListType;
                put(6, LstGetSelection(popup) as u16 as u32);
                put(7, CtlGetLabel(object(1402) as *mut ControlType) as u32);
                put(8, LstGetSelectionText(popup, 2) as u32);
                let mut v = [0i16; 4];
                let v = black_box(v.as_mut_ptr());
                SclGetScrollBar(
                    object(1405) as ScrollBarPtr,
                    v,
                    v.add(1),
                    v.add(2),
                    v.add(3),
                );
                put(
                    9,
                    (v.read() as u16 as u32) << 16 | v.add(2).read() as u16 as u32,
                );
                MemChunkFree(get(20) as *mut c_void);
                false
            }
            _ => false,
        }
    }
}
form_event_handler!(pub lists_entry => lists_handler);

/// 26: FrmDoDialog on a dialog with a popup trigger: choosing from the
/// popup does not end it, the button does.
#[inline(never)]
fn dialog_popup() {
    unsafe {
        let dlg = FrmInitForm(1500);
        put(1, FrmDoDialog(dlg) as u32);
        let list = FrmGetObjectPtr(dlg, FrmGetObjectIndex(dlg, 1503)) as *mut ListType;
        put(2, LstGetSelection(list) as u16 as u32);
        let trigger = FrmGetObjectPtr(dlg, FrmGetObjectIndex(dlg, 1502)) as *mut ControlType;
        put(3, (CtlGetLabel(trigger) as *const u8).read() as u32);
        FrmDeleteForm(dlg);
    }
}

unsafe extern "C" fn pilot_main(cmd: u16, _pbp: MemPtr, _flags: u16) -> u32 {
    if cmd != 0 {
        return 0;
    }
    match get(0) {
        1 => heap_sequence(),
        2 => resize(),
        3 => patch(true),
        4 => patch(false),
        5 => storage_write(),
        6 => double_free(),
        7 => data_manager(),
        8 => dm_write_out_of_bounds(),
        9 => strings(),
        10 => event_loop(1000, form_entry),
        16 => event_loop(1000, edit_entry),
        25 => event_loop(1400, lists_entry),
        26 => dialog_popup(),
        17 => extras(),
        18 => debug_modes(),
        11 => unknown_trap(),
        12 => return cpu_loop(),
        13 => misc(),
        14 => bad_unlock(),
        15 => services(),
        19 => full_heap(),
        20 => many_records(),
        21 => deep_recursion(),
        22 => null_call(),
        23 => handles(),
        24 => released(),
        _ => return 0xBAD,
    }
    0
}
app_entry!(pilot_main);
