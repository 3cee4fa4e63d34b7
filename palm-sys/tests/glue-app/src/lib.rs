//! Exported functions that exercise m68k-palmos-sys in the emulator
//! (`palm-sys/tests/emu_glue.rs` calls each by name and asserts the exact stack bytes
//! each trap saw and the exact results). Every function takes and returns 32-bit values
//! (LLVM's convention, which the harness's `Emu::call` speaks).
#![no_std]
#![feature(asm_experimental_arch)]
#![allow(non_snake_case)]

extern crate alloc;

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::hint::black_box;
use m68k_palmos_sys as palm_sys;
use palm_sys::*;

#[global_allocator]
static ALLOC: PalmAlloc = PalmAlloc;

// ---- TRAP #15 glue: one width at a time --------------------------------------------

/// 32-bit argument, pointer result (A0; the handler leaves garbage in D0).
#[unsafe(no_mangle)]
pub extern "C" fn t_mem_ptr_new(size: u32) -> u32 {
    unsafe { MemPtrNew(size) as u32 }
}

/// 16-bit argument, UInt16 result (masked).
#[unsafe(no_mangle)]
pub extern "C" fn t_mem_num_heaps(card: u32) -> u32 {
    unsafe { MemNumHeaps(card as u16) as u32 }
}

/// 8-bit argument (high byte of the slot), Err result.
#[unsafe(no_mangle)]
pub extern "C" fn t_sem_reserve(write: u32) -> u32 {
    unsafe { MemSemaphoreReserve(write as u8) as u32 }
}

/// Boolean result (masked to 8 bits).
#[unsafe(no_mangle)]
pub extern "C" fn t_heap_dynamic(heap: u32) -> u32 {
    unsafe { MemHeapDynamic(heap as u16) as u32 }
}

/// Int16 result (sign-extended from the low word).
#[unsafe(no_mangle)]
pub extern "C" fn t_str_len(s: u32) -> i32 {
    unsafe { StrLen(s as *const Char) as i32 }
}

/// No arguments, UInt32 result.
#[unsafe(no_mangle)]
pub extern "C" fn t_tim_get_ticks() -> u32 {
    unsafe { TimGetTicks() }
}

/// Void result, one pointer.
#[unsafe(no_mangle)]
pub extern "C" fn t_dbg_message(s: u32) -> u32 {
    unsafe { DbgMessage(s as *const Char) };
    0x600D
}

/// Mixed: pointer, 16-bit, 8-bit (PALM_FACTS §3.2 worked example: 8 bytes).
#[unsafe(no_mangle)]
pub extern "C" fn t_dm_release_record(db: u32, index: u32, dirty: u32) -> u32 {
    unsafe { DmReleaseRecord(db as DmOpenRef, index as u16, dirty as u8) as u32 }
}

/// Mixed: 16, ptr, 32, 32, 8 (16 bytes).
#[unsafe(no_mangle)]
pub extern "C" fn t_dm_create_database(
    card: u32,
    name: u32,
    creator: u32,
    ty: u32,
    res: u32,
) -> u32 {
    unsafe { DmCreateDatabase(card as u16, name as *const Char, creator, ty, res as u8) as u32 }
}

/// Mixed: ptr, signed 32, 8 (the MemSet argument order).
#[unsafe(no_mangle)]
pub extern "C" fn t_mem_set(dst: u32, n: i32, value: u32) -> u32 {
    unsafe { MemSet(dst as *mut c_void, n, value as u8) as u32 }
}

/// Mixed: ptr, 16 ×3 (signed).
#[unsafe(no_mangle)]
pub extern "C" fn t_win_draw_chars(s: u32, len: i32, x: i32, y: i32) -> u32 {
    unsafe { WinDrawChars(s as *const Char, len as i16, x as i16, y as i16) };
    0x600D
}

/// Mixed: ptr, 32, 32, 8 (DmSet).
#[unsafe(no_mangle)]
pub extern "C" fn t_dm_set(rec: u32, off: u32, n: u32, v: u32) -> u32 {
    unsafe { DmSet(rec as *mut c_void, off, n, v as u8) as u32 }
}

/// 13 arguments (the packed-block path).
#[unsafe(no_mangle)]
pub extern "C" fn t_dm_database_info(base: u32) -> u32 {
    let p = |i: u32| (base + 4 * i) as *mut u32;
    unsafe {
        DmDatabaseInfo(
            0x0102,
            0x0A0B0C0D,
            base as *mut Char,
            p(1).cast(),
            p(2).cast(),
            p(3),
            p(4),
            p(5),
            p(6),
            p(7),
            p(8),
            p(9),
            p(10),
        ) as u32
    }
}

/// 7 arguments with two 8-bit ones (packed-block path with bytes).
#[unsafe(no_mangle)]
pub extern "C" fn t_dm_next_db(
    new_search: u32,
    state: u32,
    ty: u32,
    creator: u32,
    latest: u32,
    card: u32,
    id: u32,
) -> u32 {
    unsafe {
        DmGetNextDatabaseByTypeCreator(
            new_search as u8,
            state as DmSearchStatePtr,
            ty,
            creator,
            latest as u8,
            card as *mut u16,
            id as *mut LocalID,
        ) as u32
    }
}

/// Variadic: StrPrintF(s, fmt, %d %ld %s) = fixed 8 bytes + 2 + 4 + 4.
#[unsafe(no_mangle)]
pub extern "C" fn t_str_printf(s: u32, fmt: u32, d: i32, ld: i32, str_: u32) -> i32 {
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Va {
        d: i16,
        ld: i32,
        s: *const Char,
    }
    let va = Va {
        d: d as i16,
        ld,
        s: str_ as *const Char,
    };
    unsafe { StrPrintF(s as *mut Char, fmt as *const Char, PalmVaList::new(&va)) as i32 }
}

/// Variadic with no variable arguments.
#[unsafe(no_mangle)]
pub extern "C" fn t_str_printf_empty(s: u32, fmt: u32) -> i32 {
    unsafe { StrPrintF(s as *mut Char, fmt as *const Char, PalmVaList::EMPTY) as i32 }
}

/// Stack balance: the same traps several times in one frame.
#[unsafe(no_mangle)]
pub extern "C" fn t_balance(db: u32) -> u32 {
    let mut acc = 0u32;
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Va {
        a: u16,
        b: u32,
    }
    for i in 0..3u16 {
        acc += unsafe { DmReleaseRecord(db as DmOpenRef, i, 1) } as u32;
        acc += unsafe { MemSemaphoreRelease(0) } as u32;
        let va = Va { a: i, b: db };
        acc +=
            unsafe { StrPrintF(db as *mut Char, db as *const Char, PalmVaList::new(&va)) } as u32;
        unsafe { SysReset() };
    }
    acc
}

// ---- call-original (JSR) glue and trap-replacement trampolines -------------------

/// Reports a value through `HostControl(0x7E57, *v)`: the handler sees its bytes.
///
/// The trampoline bodies below report their narrow arguments in narrow fields on
/// purpose: LLVM's m68k backend folds "load 8/16 bits, extend, store 32 bits" into a
/// 32-bit memory-to-memory `move.l` from the narrow address (wrong value, or an address
/// error for a byte at an odd address), so `x as u32` stored to memory is miscompiled
/// whatever the caller passed. The trampolines' extension itself is checked by
/// `t_ext_entry`, whose body takes the raw 32-bit slots.
fn report<T: Copy>(v: &T) {
    unsafe { HostControl(0x7E57, PalmVaList::new(v)) };
}

#[repr(C)]
#[derive(Clone, Copy)]
struct RrArgs {
    db: DmOpenRef,
    index: u16,
    dirty: u8,
    pad: u8,
}

extern "C" fn rr_body(db: DmOpenRef, index: u16, dirty: Boolean) -> Err {
    report(&RrArgs {
        db,
        index,
        dirty,
        pad: 0,
    });
    index ^ 0x0F0F
}
trap_replacement!(DmReleaseRecord, pub t_rr_entry => rr_body);

extern "C" fn free_body(p: MemPtr) -> Err {
    report(&p);
    0x0105
}
trap_replacement!(MemChunkFree, pub t_free_entry => free_body);

extern "C" fn ptr_new_body(size: UInt32) -> MemPtr {
    report(&size);
    (size + 0x100) as MemPtr
}
trap_replacement!(MemPtrNew, pub t_ptr_new_entry => ptr_new_body);

#[repr(C)]
#[derive(Clone, Copy)]
struct DrawArgs {
    s: *const Char,
    len: Int16,
    x: Coord,
    y: Coord,
    pad: u16,
}

extern "C" fn draw_body(s: *const Char, len: Int16, x: Coord, y: Coord) {
    report(&DrawArgs {
        s,
        len,
        x,
        y,
        pad: 0,
    });
}
trap_replacement!(WinDrawChars, pub t_draw_entry => draw_body);

#[repr(C)]
#[derive(Clone, Copy)]
struct SetArgs {
    rec: *mut c_void,
    off: UInt32,
    n: UInt32,
    v: UInt8,
    pad: u8,
}

extern "C" fn set_body(rec: *mut c_void, off: UInt32, n: UInt32, v: UInt8) -> Err {
    report(&SetArgs {
        rec,
        off,
        n,
        v,
        pad: 0,
    });
    0x0214
}
trap_replacement!(DmSet, pub t_dm_set_entry => set_body);

/// Receives the raw 32-bit slots the trampoline built for (I16, U16, I8, U8, Ptr).
extern "C" fn ext_body(a: u32, b: u32, c: u32, d: u32, e: u32) -> u32 {
    report(&[a, b, c, d, e]);
    a ^ b ^ c ^ d ^ e
}
palm_callback!(pub t_ext_entry(I16, U16, I8, U8, Ptr) -> U32 => ext_body);

/// JSR through `orig` with Palm-layout arguments (here `orig` is `t_rr_entry`).
#[unsafe(no_mangle)]
pub extern "C" fn t_chain_release(orig: u32, db: u32, index: u32, dirty: u32) -> u32 {
    unsafe {
        chain::DmReleaseRecord(
            orig as *mut c_void,
            db as DmOpenRef,
            index as u16,
            dirty as u8,
        ) as u32
    }
}

/// JSR to a pointer-returning original.
#[unsafe(no_mangle)]
pub extern "C" fn t_chain_ptr_new(orig: u32, size: u32) -> u32 {
    unsafe { chain::MemPtrNew(orig as *mut c_void, size) as u32 }
}

/// JSR with 16-bit signed arguments.
#[unsafe(no_mangle)]
pub extern "C" fn t_chain_draw(orig: u32, s: u32, len: i32, x: i32, y: i32) -> u32 {
    unsafe {
        chain::WinDrawChars(
            orig as *mut c_void,
            s as *const Char,
            len as i16,
            x as i16,
            y as i16,
        )
    };
    0x600D
}

/// JSR with the 13-argument block.
#[unsafe(no_mangle)]
pub extern "C" fn t_chain_db_info(orig: u32, base: u32) -> u32 {
    let p = |i: u32| (base + 4 * i) as *mut u32;
    unsafe {
        chain::DmDatabaseInfo(
            orig as *mut c_void,
            0x0102,
            0x0A0B0C0D,
            base as *mut Char,
            p(1).cast(),
            p(2).cast(),
            p(3),
            p(4),
            p(5),
            p(6),
            p(7),
            p(8),
            p(9),
            p(10),
        ) as u32
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
struct DbiArgs {
    cardNo: UInt16,
    dbID: LocalID,
    nameP: *mut Char,
    span: u32,
}

extern "C" fn dbi_body(
    cardNo: UInt16,
    dbID: LocalID,
    nameP: *mut Char,
    _attributesP: *mut UInt16,
    _versionP: *mut UInt16,
    _crDateP: *mut UInt32,
    _modDateP: *mut UInt32,
    _bckUpDateP: *mut UInt32,
    _modNumP: *mut UInt32,
    _appInfoIDP: *mut LocalID,
    _sortInfoIDP: *mut LocalID,
    typeP: *mut UInt32,
    creatorP: *mut UInt32,
) -> Err {
    report(&DbiArgs {
        cardNo,
        dbID,
        nameP,
        span: creatorP as u32 - typeP as u32,
    });
    0x0207
}
trap_replacement!(DmDatabaseInfo, pub t_dbi_entry => dbi_body);

/// The address of trampoline `which` (0: DmReleaseRecord, 1: MemChunkFree,
/// 2: MemPtrNew, 3: WinDrawChars, 4: DmSet, 5: DmDatabaseInfo, 6: form handler,
/// 7: the raw-slot callback),
/// computed PC-relative by 68k code as an app would.
#[unsafe(no_mangle)]
pub extern "C" fn t_addr(which: u32) -> u32 {
    match which {
        0 => t_rr_entry as usize as u32,
        1 => t_free_entry as usize as u32,
        2 => t_ptr_new_entry as usize as u32,
        3 => t_draw_entry as usize as u32,
        4 => t_dm_set_entry as usize as u32,
        5 => t_dbi_entry as usize as u32,
        7 => t_ext_entry as usize as u32,
        _ => t_form_handler as usize as u32,
    }
}

/// Installs `t_free_entry` for MemChunkFree.
#[unsafe(no_mangle)]
pub extern "C" fn t_install_free() -> u32 {
    unsafe { SysSetTrapAddress(traps::sysTrapMemChunkFree, t_free_entry as *mut c_void) as u32 }
}

// ---- form event handler -------------------------------------------------------------

extern "C" fn form_body(e: *mut EventType) -> bool {
    let e = unsafe { &*e };
    e.eType == events::ctlSelectEvent && e.ctl_select().controlID == 1001
}
form_event_handler!(pub t_form_handler => form_body);

// ---- app entry ----------------------------------------------------------------------

#[repr(C)]
#[derive(Clone, Copy)]
struct MainArgs {
    cmd: u16,
    pbp: MemPtr,
    flags: u16,
}

extern "C" fn pilot_main(cmd: u16, pbp: MemPtr, flags: u16) -> u32 {
    report(&MainArgs { cmd, pbp, flags });
    0xC0DE_0000 | cmd as u32
}
app_entry!(pilot_main);

// ---- allocator and abort -----------------------------------------------------------

/// Box<u64> (align 4 > the chunks' 2): returns the Box's address, after freeing it.
#[unsafe(no_mangle)]
pub extern "C" fn t_alloc_box() -> u32 {
    let b = Box::new(black_box(0x1122_3344_5566_7788u64));
    let addr = black_box(&*b as *const u64 as u32);
    let check = black_box(*b) == 0x1122_3344_5566_7788;
    drop(b);
    if check { addr } else { 1 }
}

/// Vec<u16> growth (realloc through MemPtrResize, falling back to copy), then drop.
#[unsafe(no_mangle)]
pub extern "C" fn t_alloc_vec(n: u32) -> u32 {
    let mut v: Vec<u16> = Vec::new();
    for i in 0..n {
        v.push(i as u16);
    }
    v.iter().map(|&x| x as u32).sum()
}

/// Panics (index out of bounds) → `jsr abort`.
#[unsafe(no_mangle)]
pub extern "C" fn t_abort(i: u32) -> u32 {
    let v: Vec<u32> = Vec::with_capacity(1);
    v[i as usize]
}
