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

/// The scratch C site holding `file` (a NUL-terminated C string) and `line`, or null
/// when the detector is not running.
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
pub unsafe extern "C" fn memdbg_ptr_resize(p: MemPtr, size: u32) -> u32 {
    // SAFETY: the caller's contract.
    u32::from(unsafe { api::ptr_resize(p, size) })
}

/// `MemHandleResize(h, size)` keeping `h`'s record.
///
/// # Safety
/// As `MemHandleResize`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memdbg_handle_resize(h: MemHandle, size: u32) -> u32 {
    // SAFETY: the caller's contract.
    u32::from(unsafe { api::handle_resize(h, size) })
}

/// `MemPtrFree(p)`, seen even where trap patches are refused.
///
/// # Safety
/// As `MemChunkFree`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memdbg_ptr_free(p: MemPtr) -> u32 {
    // SAFETY: the caller's contract.
    u32::from(unsafe { api::ptr_free(p) })
}

/// `MemHandleFree(h)`, seen even where trap patches are refused.
///
/// # Safety
/// As `MemHandleFree`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memdbg_handle_free(h: MemHandle) -> u32 {
    // SAFETY: the caller's contract.
    u32::from(unsafe { api::handle_free(h) })
}
