//! The C interface of the `staticlib` (for apps written in C with prc-tools or
//! CodeWarrior): `include/memdbg.h` declares these functions and macros that replace
//! `MemPtrNew` & co. with calls carrying `__FILE__` and `__LINE__`.
//!
//! Calling convention: every argument is a 4-byte value (`UInt32` or a pointer), so
//! the C caller's layout (Palm's: 2-byte slots for 16-bit values) and LLVM's (4-byte
//! slots) agree; pointers come back in A0 and integers in D0, as Palm C compilers
//! expect (PALM_FACTS §3.3, §6.2). D2 is preserved (LLVM saves it; Palm code only
//! assumes it may be clobbered) and A5 is never touched.

use m68k_palmos_sys as palm;
use palm::{Char, MemHandle, MemPtr};

use crate::api;
use crate::record::{AllocFlags, FILE_NAME_LEN, Options, kind};
use crate::session::state_ptr;
use crate::state::Scratch;
use crate::{Error, Settings, Site};

/// Error numbers of [`memdbg_start`] and [`memdbg_stop`] (0 = success).
fn error_code(e: Error) -> u32 {
    match e {
        Error::Ledger(err) => 0x1_0000 | u32::from(err),
        // SAFETY: a `repr(u16)` enum starts with its discriminant (1 to 5 here).
        _ => u32::from(unsafe { *(&e as *const Error).cast::<u16>() }),
    }
}

/// `memdbg::start`: `options` are [`Options`] bits (0: the defaults), then the other
/// [`Settings`] fields (`capacity` 0: the default). Returns 0, or 1 already running,
/// 4 bad settings, 5 no memory, 0x1xxxx a Data Manager error xxxx.
#[unsafe(no_mangle)]
pub extern "C" fn memdbg_start(
    options: u32,
    max_alerts: u32,
    capacity: u32,
    low_heap_threshold: u32,
) -> u32 {
    let d = Settings::DEFAULT;
    let settings = Settings {
        options: if options == 0 {
            d.options
        } else {
            Options::from_bits_retain(options)
        },
        max_alerts: max_alerts as u16,
        capacity: if capacity == 0 {
            d.capacity
        } else if capacity >> 16 != 0 {
            u16::MAX
        } else {
            capacity as u16
        },
        low_heap_threshold,
    };
    match crate::start(&settings) {
        Ok(()) => 0,
        Err(e) => error_code(e),
    }
}

/// `memdbg::stop`: returns the number of leaks, or 0xFFFFFFFF when not running.
#[unsafe(no_mangle)]
pub extern "C" fn memdbg_stop() -> u32 {
    match crate::stop() {
        Ok(s) => s.leaks,
        Err(_) => u32::MAX,
    }
}

/// The scratch C site holding `file` (a NUL-terminated C string, or null) and `line`,
/// or null when the detector is not running: the file name stored as
/// [`crate::record::FileName::new`] stores it (its tail from `FileName::cut`,
/// NUL-padded), [`AllocFlags::FILE_TRUNCATED`] when the path does not fit, lines
/// above 65,535 as 65,535; `rec_site` reset, as this one site's contents change from
/// call to call. On the 68k a `jsr` into [`c_site_raw`] (LLVM's code for this,
/// with `FileName::set` and `strlen`, took 330 bytes).
#[cfg(target_arch = "m68k")]
#[inline(always)]
fn c_site(file: *const Char, line: u32) -> *const Site {
    let site: *const Site;
    // SAFETY: c_site_raw's contract: `file` is null or a C string; it preserves
    // D2–D7/A2–A6.
    unsafe {
        core::arch::asm!(
            "jsr ({f},%pc)",
            f = sym c_site_raw,
            inout("a0") file => site,
            inout("d0") line => _,
            out("d1") _,
            out("a1") _,
        )
    };
    site
}

/// [`c_site`]'s body on the 68k, a register routine: A0 the file name (a C string,
/// or null), D0 the line; returns the site (or null) in A0. Preserves D2–D7/A2–A6
/// (D2 saved: `FtrGet` may clobber it, PALM_FACTS §6). `tst`, `addq`, `cmpa` and
/// `dbra`'s displacement are written as opcode words (LLVM's asm parser rejects
/// them; each is named in a comment), short branches with `bs!`.
///
/// # Safety
/// Called with `jsr` from [`c_site`] as above.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn c_site_raw() {
    core::arch::naked_asm!(
        // a3 the file name, d3 the line (kept across FtrGet).
        "movem.l %d2-%d3/%a2-%a3,-(%sp)",
        "move.l %a0,%a3",
        "move.l %d0,%d3",
        "jsr ({state_ptr},%pc)",
        ".short 0x4A80", // tst.l %d0
        bs!(beq "9f"),
        "moveq #-1,%d1",
        "move.l %d1,({rec_site},%a0)",
        "move.l ({scratch},%a0),%a1",
        "lea ({site},%a1),%a1",
        // The path's length d1 (a null path is empty), a0 its start, a2 its end.
        "moveq #0,%d1",
        "move.l %a3,%d0",
        bs!(beq "2f"),
        "move.l %d0,%a0",
        "1:",
        ".short 0x4A18", // tst.b (%a0)+
        bs!(bne "1b"),
        "move.l %a0,%d1",
        "sub.l %d0,%d1",
        ".short 0x5381", // subq.l #1,%d1
        "move.l %d0,%a0",
        "2:",
        "lea (0,%a0,%d1.l),%a2",
        // Longer than 31 bytes: truncated, from just after the first separator that
        // leaves at most 31 bytes, else the last 31 bytes.
        "moveq #0,%d2",
        "moveq #{max},%d0",
        "cmp.l %d0,%d1",
        bs!(bls "4f"),
        "moveq #{truncated},%d2",
        "lea (-{max},%a2),%a0",
        "3:",
        ".short 0xB1CA", // cmpa.l %a2,%a0
        bs!(bhi "6f"),
        "move.b (-1,%a0),%d0",
        "cmpi.b #47,%d0", // '/'
        bs!(beq "4f"),
        "cmpi.b #92,%d0", // '\'
        bs!(beq "4f"),
        ".short 0x5288", // addq.l #1,%a0
        bs!(bra "3b"),
        "6:",
        "lea (-{max},%a2),%a0",
        // The name: the bytes from a0 to the end (at most 31), NUL-padded.
        "4:",
        "moveq #{len_minus_1},%d0",
        "5:",
        "moveq #0,%d1",
        ".short 0xB1CA", // cmpa.l %a2,%a0
        bs!(bcc "7f"),
        "move.b (%a0)+,%d1",
        "7:",
        "move.b %d1,(%a1)+",
        ".short 0x51C8", // dbra %d0,5b
        ".short 5b-.",
        // The line (at most 65,535) and the flags.
        "move.l %d3,%d0",
        "cmpi.l #65535,%d0",
        bs!(bls "8f"),
        "moveq #-1,%d0",
        "8:",
        "move.w %d0,(%a1)+",
        "move.w %d2,(%a1)",
        "lea (-{flags_off},%a1),%a0",
        "9:",
        "movem.l (%sp)+,%d2-%d3/%a2-%a3",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        state_ptr = sym state_ptr,
        rec_site = const core::mem::offset_of!(crate::state::State, rec_site),
        scratch = const core::mem::offset_of!(crate::state::State, scratch),
        site = const core::mem::offset_of!(Scratch, c_site),
        max = const FILE_NAME_LEN - 1,
        len_minus_1 = const FILE_NAME_LEN - 1,
        truncated = const AllocFlags::FILE_TRUNCATED.bits(),
        flags_off = const core::mem::offset_of!(Site, flags),
    )
}

// The layout c_site writes: the name, then the line and the flags right after it;
// the constants fit `moveq` and the displacements 16 bits.
static_assertions::const_assert_eq!(core::mem::offset_of!(Site, line), FILE_NAME_LEN);
static_assertions::const_assert_eq!(core::mem::offset_of!(Site, flags), FILE_NAME_LEN + 2);
static_assertions::const_assert!(FILE_NAME_LEN <= 128 && AllocFlags::FILE_TRUNCATED.bits() < 128);

/// Host stand-in for the 68k's [`c_site`] (same effect).
#[cfg(not(target_arch = "m68k"))]
fn c_site(file: *const Char, line: u32) -> *const Site {
    let p = state_ptr();
    if p.is_null() {
        return core::ptr::null();
    }
    // SAFETY: `file` is a C string (the header passes __FILE__); the state and its
    // scratch chunk are live while the feature exists. `rec_site` is reset because
    // this one site's contents change from call to call.
    unsafe {
        let path = if file.is_null() {
            &[][..]
        } else {
            core::ffi::CStr::from_ptr(file).to_bytes()
        };
        // One `lea` from the scratch chunk (LLVM adds the offset in a data register).
        let site = &mut *crate::mem::lea::<{ core::mem::offset_of!(Scratch, c_site) }, _>(
            (*p).scratch.cast::<Site>(),
        );
        site.file.set(path);
        site.line.set(if line >> 16 != 0 {
            u16::MAX
        } else {
            line as u16
        });
        // `FileName::cut(path) > 0`, as `Site::new` tests it: the path is cut
        // exactly when it does not fit.
        site.flags.set(if path.len() >= FILE_NAME_LEN {
            AllocFlags::FILE_TRUNCATED.bits()
        } else {
            0
        });
        (*p).rec_site = u32::MAX;
        site
    }
}

/// Allocates through the wrappers' path with a run-time site (when the detector is
/// not running there is no site, and [`api::alloc`] makes the plain OS call).
/// Inlined: `api::alloc` reads the frame of the function the C program called.
#[inline(always)]
fn alloc(k: u8, how: u32, file: *const Char, line: u32, size: u32) -> MemPtr {
    // The scratch site lives until `stop`, longer than this call.
    api::alloc(k, how, c_site(file, line), size).cast()
}

/// `MemPtrNew(size)` recorded at `file`:`line`.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn memdbg_ptr_new(size: u32, file: *const Char, line: u32) -> MemPtr {
    alloc(kind::POINTER, 0, file, line, size)
}

/// `MemHandleNew(size)` recorded at `file`:`line`.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn memdbg_handle_new(size: u32, file: *const Char, line: u32) -> MemHandle {
    alloc(kind::HANDLE, 0, file, line, size).cast()
}

/// `MemChunkNew(heap, size, attr)` recorded at `file`:`line`.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn memdbg_chunk_new(
    heap: u32,
    size: u32,
    attr: u32,
    file: *const Char,
    line: u32,
) -> MemPtr {
    let how = api::chunk_how(heap as u16, attr as u16);
    alloc(kind::CHUNK, how, file, line, size)
}

/// `MemPtrResize(p, size)` keeping `p`'s record.
///
/// # Safety
/// As `MemPtrResize`.
#[unsafe(no_mangle)]
#[inline(never)]
pub unsafe extern "C" fn memdbg_ptr_resize(p: MemPtr, size: u32) -> u32 {
    // SAFETY: the caller's contract; from this function's own body, so that the
    // resize's caller is the C program's.
    u32::from(unsafe { api::resize(p as u32, size, 0) })
}

/// `MemHandleResize(h, size)` keeping `h`'s record.
///
/// # Safety
/// As `MemHandleResize`.
#[unsafe(no_mangle)]
#[inline(never)]
pub unsafe extern "C" fn memdbg_handle_resize(h: MemHandle, size: u32) -> u32 {
    // SAFETY: as memdbg_ptr_resize.
    u32::from(unsafe { api::resize(h as u32, size, 1) })
}

/// `MemPtrFree(p)`, seen even where trap patches are refused.
///
/// # Safety
/// As `MemChunkFree`.
#[unsafe(no_mangle)]
#[inline(never)]
pub unsafe extern "C" fn memdbg_ptr_free(p: MemPtr) -> u32 {
    // SAFETY: the caller's contract; from this function's own body, so that the
    // free's caller is the C program's.
    u32::from(unsafe { api::free_at(p as u32, 0) })
}

/// `MemHandleFree(h)`, seen even where trap patches are refused.
///
/// # Safety
/// As `MemHandleFree`.
#[unsafe(no_mangle)]
#[inline(never)]
pub unsafe extern "C" fn memdbg_handle_free(h: MemHandle) -> u32 {
    // SAFETY: as memdbg_ptr_free.
    u32::from(unsafe { api::free_at(h as u32, 1) })
}
