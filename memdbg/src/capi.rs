//! The C interface of the `staticlib` (for apps written in C: GNU C with
//! `palm-build c-app`, prc-tools with `palm-build lib --format coff`'s archive):
//! `include/memdbg.h` declares these functions and macros that replace
//! `MemPtrNew` & co. with calls carrying `__FILE__` and `__LINE__`, and the frees
//! with calls seen where trap patches are refused.
//!
//! Calling convention: every argument is a 4-byte value (`UInt32` or a pointer), so
//! the C caller's layout (Palm's, prc-tools' gcc's: 2-byte slots for 16-bit values)
//! and LLVM's (4-byte slots) agree; pointers come back in A0 and integers in D0, as
//! Palm C compilers expect (PALM_FACTS §3.3, §3.3a, §6.2: prc-tools' gcc reads a
//! pointer from A0 only, an `Err` from D0.w, so results cast to `Err` carry it in
//! their low 16 bits). D2 is preserved (LLVM saves it; Palm code only assumes it
//! may be clobbered), D3–D7/A2–A4/A6 too, and A5 (the app's globals) is never
//! touched. The file name is copied into the ledger during the call
//! (`c_site`), so a `__FILE__` in code 2…n is never read after it returns.

use m68k_palmos_sys as palm;
use palm::{Char, MemHandle, MemPtr};

use crate::alloc::{alloc as alloc_at, chunk_how};
use crate::api;
use crate::record::{AllocFlags, FILE_NAME_LEN, Options, SMALL_ALLOC_MAX, kind};
use crate::settings::{Error, Settings, Site};
use crate::state::state_ptr;

/// Error numbers of [`memdbg_start`] and [`memdbg_stop`] (0 = success).
fn error_code(e: Error) -> u32 {
    match e {
        Error::Ledger(err) => 0x1_0000 | u32::from(err),
        // SAFETY: a `repr(u16)` enum starts with its discriminant (1 to 7 here).
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
    match crate::session::start(&settings) {
        Ok(()) => 0,
        Err(e) => error_code(e),
    }
}

/// `memdbg::stop`: returns the number of leaks, or 0xFFFFFFFF when not running.
#[unsafe(no_mangle)]
pub extern "C" fn memdbg_stop() -> u32 {
    match crate::session::stop() {
        Ok(s) => s.leaks,
        Err(_) => u32::MAX,
    }
}

/// `memdbg::checkpoint`: returns the new generation (1 to 255), or 0x100 plus
/// the error number: 0x102 not running (before start, after stop), 0x103 busy
/// (called from inside the detector), 0x107 refused after 255 checkpoints (the
/// allocations stay in generation 255).
#[unsafe(no_mangle)]
pub extern "C" fn memdbg_checkpoint() -> u32 {
    match crate::session::checkpoint() {
        Ok(g) => u32::from(g),
        Err(e) => 0x100 | error_code(e),
    }
}

/// The scratch C site holding `file` (a NUL-terminated C string, or null) and `line`,
/// or null when the detector is not running: the file name stored as
/// [`crate::record::FileName::new`] stores it ([`crate::record::FileName::set`]: its
/// tail from `FileName::cut`, NUL-padded), [`AllocFlags::FILE_TRUNCATED`] when the
/// path does not fit (`cut` is nonzero exactly then), lines above 65,535 as 65,535;
/// `rec_site` reset, as this one site's contents change from call to call.
fn c_site(file: *const Char, line: u32) -> *const Site {
    // SAFETY: a non-null feature value is the live state chunk.
    let Some(st) = (unsafe { state_ptr().as_mut() }) else {
        return core::ptr::null();
    };
    let path = if file.is_null() {
        &[][..]
    } else {
        // SAFETY: `file` is a C string (the header passes __FILE__).
        unsafe { core::ffi::CStr::from_ptr(file) }.to_bytes()
    };
    let site = &mut st.sc().c_site;
    site.file.set(path);
    site.line.set(if line >> 16 != 0 {
        u16::MAX
    } else {
        line as u16
    });
    site.flags.set(if path.len() >= FILE_NAME_LEN {
        AllocFlags::FILE_TRUNCATED.bits()
    } else {
        0
    });
    st.rec_site = u32::MAX;
    site
}

/// Whether the allocation of `size` bytes is a small one (counted at its site).
fn is_small(size: u32) -> bool {
    (1..=SMALL_ALLOC_MAX).contains(&size)
}

/// Before a small allocation at `site` (the scratch site, filled in): the entry of
/// its file and line, if there is one, is keyed by `site`'s address.
///
/// The allocation counts a small block under its site's address (`__memdbg_small`
/// in `alloc.rs`, [`crate::state::SmallSite`]), which for every C call is the one
/// scratch site. So between calls a C site's entry is keyed by an odd number, 2 ×
/// its index + 1, which no `Site` or return address (even 68k addresses) can be;
/// for the call, the entry whose first record has the same file, line and
/// truncation flag takes the scratch site's address, and [`release_small_site`]
/// gives it (or the entry the call made) its odd key back.
#[inline(never)]
fn claim_small_site(site: *const Site) {
    // SAFETY: the caller's site is the scratch site, filled in; copied out before
    // the scratch is borrowed.
    let want = unsafe { *site };
    // SAFETY: a non-null feature value is the live state chunk.
    let Some(st) = (unsafe { state_ptr().as_mut() }) else {
        return;
    };
    if !st.has(Options::HEAP_STATS) {
        return;
    }
    let n = usize::from(st.n_sites);
    let truncated = AllocFlags::FILE_TRUNCATED.bits();
    for s in &mut st.sc().sites[..n] {
        if s.key & 1 == 1
            && s.first.file == want.file
            && s.first.line == want.line
            && s.first.flags.get() & truncated == want.flags.get()
        {
            s.key = site as u32;
            return;
        }
    }
}

/// After the allocation: the entry keyed by `site`'s address (claimed, or made by
/// this allocation) gets its odd key.
#[inline(never)]
fn release_small_site(site: *const Site) {
    // SAFETY: as claim_small_site.
    let Some(st) = (unsafe { state_ptr().as_mut() }) else {
        return;
    };
    let n = usize::from(st.n_sites);
    for (i, s) in st.sc().sites[..n].iter_mut().enumerate() {
        if s.key == site as u32 {
            s.key = 2 * i as u32 + 1;
        }
    }
}

/// Allocates through the wrappers' path with a run-time site (when the detector is
/// not running there is no site, and [`crate::alloc::alloc`] makes the plain OS
/// call); a small block is counted under its own file and line
/// ([`claim_small_site`]). Inlined: the allocation reads the frame of the function
/// the C program called.
#[inline(always)]
fn alloc(k: u8, how: u32, file: *const Char, line: u32, size: u32) -> MemPtr {
    // The scratch site lives until `stop`, longer than this call.
    let site = c_site(file, line);
    let small = !site.is_null() && is_small(size);
    if small {
        claim_small_site(site);
    }
    let p = alloc_at(k, how, site, size).cast();
    if small {
        release_small_site(site);
    }
    p
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
    let how = chunk_how(heap as u16, attr as u16);
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
    u32::from(unsafe { api::resize_at(p as u32, size, 0) })
}

/// `MemHandleResize(h, size)` keeping `h`'s record.
///
/// # Safety
/// As `MemHandleResize`.
#[unsafe(no_mangle)]
#[inline(never)]
pub unsafe extern "C" fn memdbg_handle_resize(h: MemHandle, size: u32) -> u32 {
    // SAFETY: as memdbg_ptr_resize.
    u32::from(unsafe { api::resize_at(h as u32, size, 1) })
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
