//! [`MemDbgAlloc`]: a `GlobalAlloc` for Rust's `alloc` (`Box`, `Vec`) that records
//! each block with its call stack (Rust code has no `file!()` at the allocation: the
//! stack says where it came from).
//!
//! Blocks are non-movable chunks (`MemPtrNew`), freed with `MemChunkFree` like
//! palm-sys's `PalmAlloc`, including its scheme for alignments above 2 (over-allocate,
//! keep the distance to the chunk start in the word below the block). The record's
//! address is the chunk start and its data offset the block's place in the chunk; the
//! guard follows the block. When the detector is not running, it is `PalmAlloc`.

use core::alloc::{GlobalAlloc, Layout};

use m68k_palmos_sys as palm;
use palm::allocator::CHUNK_ALIGN;

use crate::alloc::alloc;
use crate::api::{free_at, resize_at};
use crate::record::kind;

/// The global allocator with leak tracking:
///
/// ```ignore
/// #[global_allocator]
/// static ALLOC: memdbg::MemDbgAlloc = memdbg::MemDbgAlloc;
/// ```
///
/// Records have kind [`kind::RUST`], no file or line, and up to six return addresses
/// (always, whatever [`crate::Options::CALL_STACKS`] says).
#[derive(Clone, Copy, Default)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct MemDbgAlloc;

// SAFETY: every block handed out is inside a live chunk of at least `layout.size()`
// bytes at the requested alignment (as PalmAlloc); dealloc/realloc find the chunk
// again from the layout GlobalAlloc passes back.
unsafe impl GlobalAlloc for MemDbgAlloc {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // The room the alignment needs: the alignment if above 2, else 0 (a power of
        // two: one `and`).
        let pad = layout.align() as u32 & !(2 * CHUNK_ALIGN as u32 - 1);
        alloc(kind::RUST, pad, core::ptr::null(), layout.size() as u32)
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` with this layout: for align > 2 the word
        // below it holds the distance to the chunk start; own live frame.
        unsafe {
            let base = if layout.align() <= CHUNK_ALIGN {
                ptr
            } else {
                ptr.sub(usize::from(ptr.sub(2).cast::<u16>().read()))
            };
            free_at(base as u32, 0);
        }
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // In place when the chunk can grow (`MemPtrResize`, as PalmAlloc tries it;
        // while the detector runs, through its resize: the record keeps its site).
        // SAFETY: a block of align ≤ 2 is its chunk's start; called from this
        // function's own body.
        if layout.align() <= CHUNK_ALIGN
            && unsafe { resize_at(ptr as u32, new_size as u32, 0) } == palm::errNone
        {
            return ptr;
        }
        // SAFETY: GlobalAlloc's contract: new_size > 0 and fits with this alignment.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: non-zero size.
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both blocks are live, distinct, and at least this long.
            unsafe {
                core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        new
    }
}
