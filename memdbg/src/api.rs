//! The wrapper functions behind the macros. Each is `#[inline(never)]`: it reads its
//! own frame pointer, so `4(a6)` is the return address into the app's call site and
//! `0(a6)` the app's frame (where a call-stack walk starts). When the detector is not
//! running (or is busy: a wrapper called from inside it) they are the plain OS calls.

use m68k_palmos_sys as palm;
use palm::mem::{memNewChunkFlagNonMovable, memNewChunkFlagPreLock};
use palm::{MemHandle, MemPtr};

use core::mem::offset_of;

use palm::allocator::aligned_offset;
use palm::codegen::in_register;

use crate::Site;
use crate::fast;
use crate::record::{AllocFlags, Counters, GUARD_LEN, Options, kind};
use crate::stack::{caller_of, frame_pointer};
use crate::state::{self, State};
use crate::track::{self, Freed};

/// Largest chunk the Memory Manager gives (`memMaxChunkAllocSize` = 65,505 bytes,
/// PALM_FACTS §5.2); a guard is added only below it.
pub(crate) const MAX_CHUNK: u32 = 65_505;

/// `how` of a `MemChunkNew(heap, _, attr)` request for [`wrapped`] and [`alloc`].
#[inline(always)]
pub(crate) fn chunk_how(heap: u16, attr: u16) -> u32 {
    // On the 68k: swap the heap into the high word, move the attributes into the low
    // one (LLVM shifts, masks and ors: 12 bytes); in D1, where `wrapped` and the C
    // interface's allocation take `how` (no move into it).
    #[cfg(target_arch = "m68k")]
    {
        let how: u32;
        // SAFETY: register moves only.
        unsafe {
            core::arch::asm!(
                "moveq #0,%d1",
                "move.w {h},%d1",
                ".short 0x4841", // swap %d1 (LLVM's asm parser rejects swap)
                "move.w {a},%d1",
                h = in(reg_data) heap,
                a = in(reg_data) attr,
                out("d1") how,
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

/// Allocates `size` bytes the way kind `k` does: `MemHandleNew`, `MemChunkNew` (heap
/// and attributes in `how`, [`chunk_how`]) or `MemPtrNew` (pointers and Rust
/// allocations); 0 on failure. (`k` is a `u32`: a byte argument is zero-extended
/// again at every call.)
#[inline(never)]
pub(crate) fn os_alloc(k: u32, size: u32, how: u32) -> u32 {
    // SAFETY: the three calls take any size (and heap/attributes) and return a
    // chunk, a handle or null.
    unsafe {
        if k == kind::HANDLE.into() {
            palm::MemHandleNew(size) as u32
        } else if k == kind::CHUNK.into() {
            palm::MemChunkNew((how >> 16) as u16, size, how as u16) as u32
        } else {
            palm::MemPtrNew(size) as u32
        }
    }
}

/// Every tracked allocation (the wrappers, the C interface, [`crate::MemDbgAlloc`]),
/// with the detector entered: allocates with room for a guard when wanted and
/// possible, prepares the block, records it, and returns the address handed to the
/// program (0 on failure: nothing recorded). `how` is what [`os_alloc`] wants (0 for
/// pointers and handles), for a Rust block the room its alignment needs (the
/// alignment if above 2, else 0, as palm-sys's `PalmAlloc` does it); `site` is null
/// for Rust allocations; `a6` is the frame of the function the program called.
#[inline(never)]
pub(crate) fn alloc(st: &mut State, k: u8, how: u32, site: *const Site, size: u32, a6: u32) -> u32 {
    // The HANDLE and NOT_DYNAMIC flags; over-aligned Rust blocks: room to move the
    // block up to its alignment (`how` is 0 for pointers and handles).
    let mut flags = 0;
    let mut pad = 0;
    if k == kind::CHUNK {
        if how >> 16 != 0 {
            flags = AllocFlags::NOT_DYNAMIC.bits();
        }
        if how as u16 & (memNewChunkFlagNonMovable | memNewChunkFlagPreLock) == 0 {
            flags |= AllocFlags::HANDLE.bits();
        }
    } else {
        pad = how;
        if k == kind::HANDLE {
            flags = AllocFlags::HANDLE.bits();
        }
    }
    let want = size.wrapping_add(pad);
    let k32 = u32::from(k);
    let mut base = 0;
    if flags & AllocFlags::NOT_DYNAMIC.bits() == 0
        && st.has(Options::GUARDS)
        && want <= MAX_CHUNK - GUARD_LEN as u32
    {
        base = os_alloc(k32, want + GUARD_LEN as u32, how);
        if base != 0 {
            flags |= AllocFlags::GUARDED.bits();
        }
    }
    if base == 0 {
        // No guard wanted, or no room for it: exactly the request.
        base = os_alloc(k32, want, how);
        if base == 0 {
            track::unrecorded(st, offset_of!(Counters, failed));
            return 0;
        }
    }
    let mut off = 0u32;
    if pad != 0 {
        let o = aligned_offset(base as usize, pad as usize);
        // SAFETY: 2 <= o <= align, so the word below the block is inside the chunk;
        // dealloc reads it to find the chunk start.
        unsafe { ((base as usize + o - 2) as *mut u16).write(o as u16) };
        off = o as u32;
    }
    let r = &mut st.sc().rec;
    r.kind = k;
    r.size.set(size);
    r.address.set(base);
    r.data_offset.set(off as u16);
    r.flags.set(flags);
    let fill = if st.has(Options::FILL_NEW) {
        crate::record::FILL_NEW_BYTE
    } else {
        0
    };
    track::prepare(base, flags, off, off + size, fill);
    track::allocated(st, site, a6);
    base + off
}

/// [`state::enter`] for the wrappers ([`fast::enter`], in assembly).
#[inline(always)]
pub(crate) fn enter() -> Option<&'static mut State> {
    // SAFETY: a non-null result is the live state chunk, entered by this call (as
    // `state::enter` does it).
    unsafe { (fast::enter() as usize as *mut State).as_mut() }
}

/// The wrappers' allocation: [`alloc`] with the detector entered, else (not
/// running, or busy) the plain OS call. `a6` is the wrapper's own frame.
#[inline(never)]
pub(crate) fn wrapped(k: u8, how: u32, site: *const Site, size: u32, a6: u32) -> u32 {
    let Some(st) = enter() else {
        return os_alloc(k.into(), size, how);
    };
    let p = alloc(st, k, how, site, size, a6);
    state::leave(st);
    p
}

/// `MemPtrNew(size)` recorded at `site` (use [`mem_ptr_new!`](crate::mem_ptr_new)).
/// Returns the block, or null when the OS has no room (nothing recorded).
#[inline(never)]
pub fn ptr_new(site: &'static Site, size: u32) -> MemPtr {
    // SAFETY: called from this function's body.
    unsafe { fast::new(kind::POINTER.into(), site, size) as usize as MemPtr }
}

/// `MemHandleNew(size)` recorded at `site` (use
/// [`mem_handle_new!`](crate::mem_handle_new)). Returns the handle, or null.
#[inline(never)]
pub fn handle_new(site: &'static Site, size: u32) -> MemHandle {
    // SAFETY: called from this function's body.
    unsafe { fast::new(kind::HANDLE.into(), site, size) as usize as MemHandle }
}

/// `MemChunkNew(heap, size, attr)` recorded at `site` (use
/// [`mem_chunk_new!`](crate::mem_chunk_new)). Returns what the OS returns: a pointer
/// with `memNewChunkFlagNonMovable` or `memNewChunkFlagPreLock` in `attr`, else a
/// handle (as a `MemPtr`); null on failure. Guards only in heap 0, the dynamic heap
/// (PALM_FACTS §5.3); storage heaps are write-protected.
#[inline(never)]
pub fn chunk_new(site: &'static Site, heap: u16, size: u32, attr: u16) -> MemPtr {
    let how = chunk_how(heap, attr);
    wrapped(kind::CHUNK, how, site, size, frame_pointer()) as usize as MemPtr
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
    // Moved out of A0 first (LLVM would load the return address first and move it
    // through D2, which it then saves).
    let addr = in_register(p as u32);
    // SAFETY: own live frame.
    let (ret, frame) = unsafe { caller_of(frame_pointer()) };
    // SAFETY: the caller's contract.
    unsafe { free_at(addr, false, ret, frame) }
}

/// `MemHandleFree(h)`, seen by the detector even where trap patches are refused (use
/// [`mem_handle_free!`](crate::mem_handle_free)).
///
/// # Safety
/// As `MemHandleFree`: `h` is a live handle.
#[inline(never)]
pub unsafe fn handle_free(h: MemHandle) -> palm::Err {
    // Moved out of A0 first (LLVM would load the return address first and move it
    // through D2, which it then saves).
    let addr = in_register(h as u32);
    // SAFETY: own live frame.
    let (ret, frame) = unsafe { caller_of(frame_pointer()) };
    // SAFETY: the caller's contract.
    unsafe { free_at(addr, true, ret, frame) }
}

/// Frees through the trap; when the free traps are not patched, does the bookkeeping here
/// first (with the patches, the patch does it).
///
/// # Safety
/// As `MemChunkFree`/`MemHandleFree`.
pub(crate) unsafe fn free_at(addr: u32, handle: bool, ret: u32, frame: u32) -> palm::Err {
    if let Some(st) = enter() {
        let unpatched = st.patched & state::PATCHED_FREES == 0;
        let r = if unpatched {
            track::freeing(st, addr, handle, ret, frame)
        } else {
            Freed::Pass
        };
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
