//! The wrapper functions behind the macros. Each is `#[inline(never)]`: it reads its
//! own frame pointer, so `4(a6)` is the return address into the app's call site and
//! `0(a6)` the app's frame (where a call-stack walk starts). When the detector is not
//! running (or is busy: a wrapper called from inside it) they are the plain OS calls.

use m68k_palmos_sys as palm;
use palm::{MemHandle, MemPtr};

use crate::alloc::{alloc, chunk_how};
use crate::free;
use crate::probe;
use crate::record::kind;
use crate::resize;
use crate::settings::Site;
use crate::stack::program_caller;

/// `MemPtrNew(size)` recorded at `site` (use [`mem_ptr_new!`](crate::mem_ptr_new)).
/// Returns the block, or null when the OS has no room (nothing recorded).
#[inline(never)]
pub fn ptr_new(site: &'static Site, size: u32) -> MemPtr {
    alloc(kind::POINTER, 0, site, size).cast()
}

/// `MemHandleNew(size)` recorded at `site` (use
/// [`mem_handle_new!`](crate::mem_handle_new)). Returns the handle, or null.
#[inline(never)]
pub fn handle_new(site: &'static Site, size: u32) -> MemHandle {
    alloc(kind::HANDLE, 0, site, size).cast()
}

/// `MemChunkNew(heap, size, attr)` recorded at `site` (use
/// [`mem_chunk_new!`](crate::mem_chunk_new)). Returns what the OS returns: a pointer
/// with `memNewChunkFlagNonMovable` or `memNewChunkFlagPreLock` in `attr`, else a
/// handle (as a `MemPtr`); null on failure. Guards only in heap 0, the dynamic heap
/// (PALM_FACTS §5.3); storage heaps are write-protected.
#[inline(never)]
pub fn chunk_new(site: &'static Site, heap: u16, size: u32, attr: u16) -> MemPtr {
    alloc(kind::CHUNK, chunk_how(heap, attr), site, size).cast()
}

/// `MemPtrResize(p, size)`, keeping `p`'s record (use
/// [`mem_ptr_resize!`](crate::mem_ptr_resize)): the guard is checked, the chunk is
/// resized with room for a new guard, and the record gets the new size. Returns the
/// OS's `Err` (on an error nothing changes).
///
/// # Safety
/// As `MemPtrResize`: `p` is a live pointer chunk.
#[inline(never)]
pub unsafe fn ptr_resize(p: MemPtr, size: u32) -> palm::Err {
    // SAFETY: the caller's contract; called from this function's own body.
    unsafe { resize_at(p as u32, size, 0) }
}

/// `MemHandleResize(h, size)`, keeping `h`'s record (use
/// [`mem_handle_resize!`](crate::mem_handle_resize)). The chunk may move; the handle
/// and its record stay.
///
/// # Safety
/// As `MemHandleResize`: `h` is a live handle (unlocked, if it has to move).
#[inline(never)]
pub unsafe fn handle_resize(h: MemHandle, size: u32) -> palm::Err {
    // SAFETY: the caller's contract; called from this function's own body.
    unsafe { resize_at(h as u32, size, 1) }
}

/// The resize wrappers' (and [`crate::MemDbgAlloc`]'s `realloc`'s) body:
/// [`resize::wrapped`] with the caller found from the frame of the function the
/// program called (call this from an `#[inline(never)]` function's own body).
///
/// # Safety
/// As `MemPtrResize`/`MemHandleResize` for `addr`.
#[inline(always)]
pub(crate) unsafe fn resize_at(addr: u32, size: u32, handle: u32) -> palm::Err {
    let (ret, frame) = program_caller();
    // SAFETY: the caller's contract.
    unsafe { resize::wrapped(addr, size, handle, ret, frame) }
}

/// `MemPtrFree(p)` (`MemChunkFree`), seen by the detector even where trap patches are
/// refused (use [`mem_ptr_free!`](crate::mem_ptr_free)). A double free of a tracked
/// block is reported and not passed on (`memErrInvalidParam`).
///
/// # Safety
/// As `MemChunkFree`: `p` is a live chunk.
#[inline(never)]
pub unsafe fn ptr_free(p: MemPtr) -> palm::Err {
    // SAFETY: the caller's contract; called from this function's own body.
    unsafe { free_at(p as u32, 0) }
}

/// `MemHandleFree(h)`, seen by the detector even where trap patches are refused (use
/// [`mem_handle_free!`](crate::mem_handle_free)).
///
/// # Safety
/// As `MemHandleFree`: `h` is a live handle.
#[inline(never)]
pub unsafe fn handle_free(h: MemHandle) -> palm::Err {
    // SAFETY: the caller's contract; called from this function's own body.
    unsafe { free_at(h as u32, 1) }
}

/// The free wrappers' (and [`crate::MemDbgAlloc`]'s `dealloc`'s) body:
/// [`free::wrapped`] with the free's caller found from the frame of the function the
/// program called (call this from an `#[inline(never)]` function's own body).
///
/// # Safety
/// As `MemChunkFree`/`MemHandleFree` for `addr`.
#[inline(always)]
pub(crate) unsafe fn free_at(addr: u32, handle: u32) -> palm::Err {
    let (ret, frame) = program_caller();
    // SAFETY: the caller's contract.
    unsafe { free::wrapped(addr, handle, ret, frame) }
}

/// `DbgMessage(text)` where the OS has it, else nothing: the check memdbg makes
/// at start (`SysGetTrapAddress(sysTrapDbgMessage)` against SysUnimplemented's
/// address, trusted only when a reserved trap reads as SysUnimplemented),
/// made for this call. PumpkinOS ends an app that calls the missing trap; on a
/// device the text goes to a connected debugger (see the crate docs, "Where
/// `DbgMessage` goes"). For an app's own debug lines: `memdbg::dbg_message(c"…")`.
pub fn dbg_message(text: &core::ffi::CStr) {
    if probe::dbg_message() {
        // SAFETY: a NUL-terminated string.
        unsafe { palm::DbgMessage(text.as_ptr()) };
    }
}
