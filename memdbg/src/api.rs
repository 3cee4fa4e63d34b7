//! The wrapper functions behind the macros. Each is `#[inline(never)]`: it reads its
//! own frame pointer, so `4(a6)` is the return address into the app's call site and
//! `0(a6)` the app's frame (where a call-stack walk starts). When the detector is not
//! running (or is busy: a wrapper called from inside it) they are the plain OS calls.

use m68k_palmos_sys as palm;
use palm::{MemHandle, MemPtr};

use crate::Site;
use crate::fast;
use crate::record::kind;
#[cfg(not(target_arch = "m68k"))]
#[cfg(not(target_arch = "m68k"))]
use crate::stack::{caller_of, frame_pointer};
#[cfg(not(target_arch = "m68k"))]
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

/// [`state::enter`] for the wrappers' host stand-ins ([`fast::enter`]).
#[cfg(not(target_arch = "m68k"))]
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
    // SAFETY: the caller's contract; called from this function's own body.
    unsafe { resize(p as u32, size, 0) }
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
    unsafe { resize(h as u32, size, 1) }
}

/// The resize wrappers' (and [`crate::MemDbgAlloc`]'s `realloc`'s) body: `addr`
/// resized to `size` (`handle` 1: a handle, 0: a pointer). With the detector entered,
/// [`track::resize`], with the resize's caller found from the frame of the function
/// the program called (A6: call this from an `#[inline(never)]` function's own body);
/// else the plain `MemHandleResize` or `MemPtrResize`. Returns the `Err`. On the 68k
/// a `jsr` into [`resize_raw`], which takes its arguments in registers.
///
/// # Safety
/// As `MemPtrResize`/`MemHandleResize` for `addr`.
#[inline(always)]
pub(crate) unsafe fn resize(addr: u32, size: u32, handle: u32) -> palm::Err {
    #[cfg(target_arch = "m68k")]
    {
        let r: u32;
        // SAFETY: resize_raw's contract: A6 is the live frame of the function the
        // program called; it preserves D2–D7/A2–A6.
        unsafe {
            core::arch::asm!(
                "jsr ({f},%pc)",
                f = sym resize_raw,
                inout("d0") size => r,
                inout("d1") handle => _,
                inout("a0") addr => _,
                out("a1") _,
            )
        };
        r as palm::Err
    }
    #[cfg(not(target_arch = "m68k"))]
    {
        let handle = handle != 0;
        let Some(st) = enter() else {
            // SAFETY: the caller's contract (see the wrappers).
            return unsafe {
                if handle {
                    palm::MemHandleResize(addr as usize as MemHandle, size)
                } else {
                    palm::MemPtrResize(addr as usize as MemPtr, size)
                }
            };
        };
        // SAFETY: the frame of the function the program called.
        let (ret, frame) = unsafe { caller_of(frame_pointer()) };
        let r = track::resize(st, addr, size, handle, ret, frame);
        state::leave(st);
        r
    }
}

/// [`resize`]'s body on the 68k, a register routine: A0 the chunk or handle, D0 the
/// new size, D1 1 for a handle (else 0); the caller's frame is A6 (its `4(a6)`
/// returns into the program, `0(a6)` is the program's frame). Returns the `Err` in
/// D0; preserves D2–D7/A2–A6 (D2 saved: a trap may clobber it, PALM_FACTS §6).
/// LLVM's code for it built a frame and moved each argument through the stack (112
/// bytes). `tst` and `clr` are written as their opcode words (LLVM's asm parser
/// rejects them; each is named in a comment), branches with `bs!`.
///
/// # Safety
/// Called with `jsr` from [`resize`] as above.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn resize_raw() {
    core::arch::naked_asm!(
        "movem.l %d2-%d4/%a2-%a3,-(%sp)",
        "move.l %a0,%a3",
        "move.l %d0,%d3",
        "move.l %d1,%d4",
        "jsr ({enter},%pc)",
        "move.l %a0,%a2",
        ".short 0x4A80", // tst.l %d0
        bs!(beq "8f"),
        // track::resize(st, addr, size, handle, ret, frame), pushed right to left.
        "move.l (%a6),-(%sp)",
        "move.l (4,%a6),-(%sp)",
        "move.l %d4,-(%sp)",
        "move.l %d3,-(%sp)",
        "move.l %a3,-(%sp)",
        "move.l %a2,-(%sp)",
        "jsr ({track_resize},%pc)",
        "lea (24,%sp),%sp",
        ".short 0x4212", // clr.b (%a2): busy (state::leave)
        bs!(bra "9f"),
        // Not running or busy: the plain call (newSize, then the chunk).
        "8:",
        "move.l %d3,-(%sp)",
        "move.l %a3,-(%sp)",
        ".short 0x4A84", // tst.l %d4
        bs!(bne "5f"),
        "trap #15",
        ".short {ptr_resize}",
        bs!(bra "6f"),
        "5:",
        "trap #15",
        ".short {handle_resize}",
        "6:",
        ".short 0x508F", // addq.l #8,%sp
        "9:",
        "movem.l (%sp)+,%d2-%d4/%a2-%a3",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        enter = sym fast::enter,
        track_resize = sym track::resize,
        ptr_resize = const palm::traps::sysTrapMemPtrResize,
        handle_resize = const palm::traps::sysTrapMemHandleResize,
    )
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

/// Frees `addr` through the trap (`handle` 1: `MemHandleFree`, 0: `MemChunkFree`),
/// with the detector entered: the bookkeeping here ([`track::freeing`]), with the
/// free's caller found from the frame of the function the program called (A6: call
/// this from an `#[inline(never)]` function's own body), then the trap while still
/// entered, so that memdbg's own free patch, if installed, passes it straight to the
/// original (the free is recorded once, at the program's call, not inside memdbg).
/// A double free is not passed on: `memErrInvalidParam`. Not running (or busy): the
/// plain trap. Returns the `Err`. On the 68k a `jsr` into [`free_raw`], which takes
/// its arguments in registers.
///
/// # Safety
/// As `MemChunkFree`/`MemHandleFree` for `addr`.
#[inline(always)]
pub(crate) unsafe fn free_at(addr: u32, handle: u32) -> palm::Err {
    #[cfg(target_arch = "m68k")]
    {
        let r: u32;
        // SAFETY: free_raw's contract: A6 is the live frame of the function the
        // program called; it preserves D2–D7/A2–A6.
        unsafe {
            core::arch::asm!(
                "jsr ({f},%pc)",
                f = sym free_raw,
                out("d0") r,
                inout("d1") handle => _,
                inout("a0") addr => _,
                out("a1") _,
            )
        };
        r as palm::Err
    }
    #[cfg(not(target_arch = "m68k"))]
    {
        let handle = handle != 0;
        let mut st = enter();
        if let Some(st) = st.as_deref_mut() {
            // SAFETY: the frame of the function the program called.
            let (ret, frame) = unsafe { caller_of(frame_pointer()) };
            if track::freeing(st, addr, handle, ret, frame) == Freed::Refuse {
                state::leave(st);
                return palm::errors::memErrInvalidParam;
            }
        }
        // SAFETY: the caller's contract.
        let err = unsafe {
            if handle {
                palm::MemHandleFree(addr as usize as MemHandle)
            } else {
                palm::MemChunkFree(addr as usize as MemPtr)
            }
        };
        if let Some(st) = st {
            state::leave(st);
        }
        err
    }
}

/// [`free_at`]'s body on the 68k, a register routine: A0 the chunk or handle, D1 1
/// for `MemHandleFree` (else 0); the caller's frame is A6. Entered:
/// [`crate::patch::free_block`] (as [`track::freeing`] calls it), then the trap
/// unless it answered `Freed::Refuse` (then `memErrInvalidParam`), then `busy`
/// cleared. Returns the `Err` in D0; preserves D2–D7/A2–A6 (D2 saved: a trap may
/// clobber it, PALM_FACTS §6). `tst`, `clr` and `addq` are written as their opcode
/// words (LLVM's asm parser rejects them; each is named in a comment), branches
/// with `bs!`.
///
/// # Safety
/// Called with `jsr` from [`free_at`] as above.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn free_raw() {
    core::arch::naked_asm!(
        "movem.l %d2-%d3/%a2-%a3,-(%sp)",
        "move.l %a0,%a3",
        "move.l %d1,%d3",
        // a2: the entered state, or 0.
        "jsr ({enter},%pc)",
        "move.l %a0,%a2",
        ".short 0x4A80", // tst.l %d0
        bs!(beq "8f"),
        // free_block(0, frame, st, st + handle, ret, addr), pushed right to left.
        "move.l %a3,-(%sp)",
        "move.l (4,%a6),-(%sp)",
        "move.l %a2,%d0",
        "or.l %d3,%d0",
        "move.l %d0,-(%sp)",
        "move.l %a2,-(%sp)",
        "move.l (%a6),-(%sp)",
        ".short 0x42A7", // clr.l -(%sp): keep
        "jsr ({free_block},%pc)",
        "lea (24,%sp),%sp",
        ".short 0x4A80", // tst.l %d0: Freed::Refuse?
        bs!(beq "8f"),
        ".short 0x4212", // clr.b (%a2): busy (state::leave)
        "move.w #{invalid},%d0",
        bs!(bra "9f"),
        // The free itself (entered: a free patch of ours passes it on untouched).
        "8:",
        "move.l %a3,-(%sp)",
        ".short 0x4A83", // tst.l %d3
        bs!(bne "5f"),
        "trap #15",
        ".short {chunk_free}",
        bs!(bra "6f"),
        "5:",
        "trap #15",
        ".short {handle_free}",
        "6:",
        ".short 0x588F", // addq.l #4,%sp
        "move.l %a2,%d1",
        bs!(beq "9f"),
        ".short 0x4212", // clr.b (%a2): busy (state::leave)
        "9:",
        "movem.l (%sp)+,%d2-%d3/%a2-%a3",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        enter = sym fast::enter,
        free_block = sym crate::patch::free_block,
        invalid = const palm::errors::memErrInvalidParam,
        chunk_free = const palm::traps::sysTrapMemChunkFree,
        handle_free = const palm::traps::sysTrapMemHandleFree,
    )
}

// free_block answers `Freed` in D0 (Pass 0, Refuse nonzero).
static_assertions::const_assert_eq!(Freed::Pass as u32, 0);
static_assertions::const_assert_ne!(Freed::Refuse as u32, 0);
