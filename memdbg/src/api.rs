//! The wrapper functions behind the macros. Each is `#[inline(never)]`: it reads its
//! own frame pointer, so `4(a6)` is the return address into the app's call site and
//! `0(a6)` the app's frame (where a call-stack walk starts). When the detector is not
//! running (or is busy: a wrapper called from inside it) they are the plain OS calls.

use m68k_palmos_sys as palm;
use palm::{MemHandle, MemPtr};

use crate::Site;
use crate::fast;
use crate::record::kind;
use crate::stack::{caller_of, frame_pointer};
use crate::state::{self, State};
use crate::track::{self, Freed};

/// Largest chunk the Memory Manager gives (`memMaxChunkAllocSize` = 65,505 bytes,
/// PALM_FACTS §5.2); a guard is added only below it.
pub(crate) const MAX_CHUNK: u32 = 65_505;

/// `how` of a `MemChunkNew(heap, _, attr)` request for [`alloc`].
#[inline(always)]
pub(crate) fn chunk_how(heap: u16, attr: u16) -> u32 {
    // On the 68k: swap the heap into the high word, move the attributes into the low
    // one (LLVM shifts, masks and ors: 12 bytes); in D0, where `fast::alloc` takes
    // `how` (no move into it).
    #[cfg(target_arch = "m68k")]
    {
        let how: u32;
        // SAFETY: register moves only.
        unsafe {
            core::arch::asm!(
                "moveq #0,%d0",
                "move.w {h},%d0",
                ".short 0x4840", // swap %d0 (LLVM's asm parser rejects swap)
                "move.w {a},%d0",
                h = in(reg_data) heap,
                a = in(reg_data) attr,
                out("d0") how,
                options(pure, nomem, nostack),
            )
        };
        how
    }
    #[cfg(not(target_arch = "m68k"))]
    {
        (u32::from(heap) << 16) | u32::from(attr)
    }
}

/// Every tracked allocation (the wrappers, the C interface, [`crate::MemDbgAlloc`]):
/// [`fast::alloc`] (a `jsr` into the assembly, which takes its arguments in
/// registers) from the function the program called, whose frame (A6) it reads: call
/// it from an `#[inline(never)]` function's own body. Kind `k`; `how` is a chunk's
/// heap and attributes ([`chunk_how`]), a Rust block's room for its alignment (the
/// alignment if above 2, else 0, as palm-sys's `PalmAlloc` does it), else 0; `site`
/// is null for Rust allocations. Returns the address handed to the program (null on
/// failure: nothing recorded); when the detector is not running (or is busy), the
/// plain OS call's.
#[inline(always)]
pub(crate) fn alloc(k: u8, how: u32, site: *const Site, size: u32) -> *mut u8 {
    #[cfg(target_arch = "m68k")]
    {
        let p: *mut u8;
        // SAFETY: fast::alloc's contract: called from this (inlined) function's
        // caller's body, A6 its frame; the site is null or a live Site. It preserves
        // D2–D7/A2–A6.
        unsafe {
            core::arch::asm!(
                "jsr ({f},%pc)",
                f = sym fast::alloc,
                inout("d0") how => _,
                inout("d1") size => _,
                inout("a0") site => p,
                inout("a1") u32::from(k) => _,
            )
        };
        p
    }
    #[cfg(not(target_arch = "m68k"))]
    {
        fast::alloc(k, how, site, size, frame_pointer()) as usize as *mut u8
    }
}

/// [`state::enter`] for the wrappers ([`fast::enter`], in assembly).
#[inline(always)]
pub(crate) fn enter() -> Option<&'static mut State> {
    // SAFETY: a non-null result is the live state chunk, entered by this call (as
    // `state::enter` does it).
    unsafe { (fast::enter() as usize as *mut State).as_mut() }
}

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
    resize(size, false, p, frame_pointer() as usize as *const u32)
}

/// `MemHandleResize(h, size)`, keeping `h`'s record (use
/// [`mem_handle_resize!`](crate::mem_handle_resize)). The chunk may move; the handle
/// and its record stay.
///
/// # Safety
/// As `MemHandleResize`: `h` is a live handle (unlocked, if it has to move).
#[inline(never)]
pub unsafe fn handle_resize(h: MemHandle, size: u32) -> palm::Err {
    resize(size, true, h.cast(), frame_pointer() as usize as *const u32)
}

/// The resize wrappers' body: `addr` resized to `size` (`handle`: a handle), `a6`
/// the wrapper's own frame. (The parameters in the order that puts each in the
/// register the wrappers have it in: no moves between registers.)
#[inline(never)]
fn resize(size: u32, handle: bool, addr: MemPtr, a6: *const u32) -> palm::Err {
    let Some(st) = enter() else {
        // SAFETY: the caller's contract (see the wrappers).
        return unsafe {
            if handle {
                palm::MemHandleResize(addr.cast(), size)
            } else {
                palm::MemPtrResize(addr, size)
            }
        };
    };
    // SAFETY: a6 is the wrapper's own live frame.
    let (ret, frame) = unsafe { caller_of(a6 as u32) };
    let r = track::resize(st, addr as u32, size, handle, ret, frame);
    state::leave(st);
    r
}

/// `MemPtrFree(p)` (`MemChunkFree`), seen by the detector even where trap patches are
/// refused (use [`mem_ptr_free!`](crate::mem_ptr_free)). A double free of a tracked
/// block is reported and not passed on (`memErrInvalidParam`).
///
/// # Safety
/// As `MemChunkFree`: `p` is a live chunk.
#[inline(never)]
pub unsafe fn ptr_free(p: MemPtr) -> palm::Err {
    // SAFETY: the caller's contract; own live frame.
    unsafe { free_at(p as u32, false, frame_pointer()) }
}

/// `MemHandleFree(h)`, seen by the detector even where trap patches are refused (use
/// [`mem_handle_free!`](crate::mem_handle_free)).
///
/// # Safety
/// As `MemHandleFree`: `h` is a live handle.
#[inline(never)]
pub unsafe fn handle_free(h: MemHandle) -> palm::Err {
    // SAFETY: the caller's contract; own live frame.
    unsafe { free_at(h as u32, true, frame_pointer()) }
}

/// Frees through the trap; when the free traps are not patched, does the bookkeeping here
/// first (with the patches, the patch does it), with the free's caller found from `a6`,
/// the frame of the function the program called.
///
/// # Safety
/// As `MemChunkFree`/`MemHandleFree`; `a6` is a live frame.
pub(crate) unsafe fn free_at(addr: u32, handle: bool, a6: u32) -> palm::Err {
    if let Some(st) = enter() {
        let mut r = Freed::Pass;
        if st.patched & state::PATCHED_FREES == 0 {
            // SAFETY: the caller's guarantee.
            let (ret, frame) = unsafe { caller_of(a6) };
            r = track::freeing(st, addr, handle, ret, frame);
        }
        state::leave(st);
        if r == Freed::Refuse {
            return palm::errors::memErrInvalidParam;
        }
    }
    // SAFETY: the caller's contract.
    unsafe {
        if handle {
            palm::MemHandleFree(addr as usize as MemHandle)
        } else {
            palm::MemChunkFree(addr as usize as MemPtr)
        }
    }
}
