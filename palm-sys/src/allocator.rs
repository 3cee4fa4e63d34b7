//! [`PalmAlloc`]: a `GlobalAlloc` over the Memory Manager's non-movable chunks, for
//! `alloc` (`Box`, `Vec`) in 68k code.
//!
//! ```no_run
//! #[global_allocator]
//! static ALLOC: m68k_palmos_sys::PalmAlloc = m68k_palmos_sys::PalmAlloc;
//! # fn main() {}
//! ```
//!
//! - `alloc`: `MemPtrNew(size)` (a chunk in the dynamic heap, owned by the running app;
//!   null when the heap is full or the size exceeds 65 505 bytes).
//! - `dealloc`: `MemChunkFree`.
//! - `realloc`: `MemPtrResize` when it succeeds in place, else allocate, copy, free.
//!
//! # Alignment
//! Chunk bodies are only known to be 2-byte aligned. On this target `u64`/`i64` (and
//! structs containing them) ask for 4, so for `align > 2` the allocator over-allocates
//! `size + align` bytes, returns the first `align`-aligned address at least 2 bytes into
//! the chunk, and stores the distance back to the chunk start in the 16-bit word just
//! below the returned pointer; `dealloc` reads it to find the chunk. Alignments above
//! 32 768 are refused (null).

use core::alloc::{GlobalAlloc, Layout};

/// Chunk bodies are at least this aligned.
pub const CHUNK_ALIGN: usize = 2;

/// The global allocator over `MemPtrNew`/`MemChunkFree`/`MemPtrResize` (module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct PalmAlloc;

/// Bytes to request from `MemPtrNew` for `layout`, or `None` if impossible.
pub fn chunk_size(layout: Layout) -> Option<usize> {
    if layout.align() <= CHUNK_ALIGN {
        Some(layout.size())
    } else if layout.align() > 0x8000 {
        None
    } else {
        layout.size().checked_add(layout.align())
    }
}

/// For `align > 2`: the offset from a 2-aligned chunk start `base` to the pointer
/// handed out: the smallest `off >= 2` with `(base + off) % align == 0` (so
/// `2 <= off <= align`, and the stored offset word at `base + off - 2` is inside the
/// chunk).
pub fn aligned_offset(base: usize, align: usize) -> usize {
    let first = base + 2;
    let aligned = (first + align - 1) & !(align - 1);
    aligned - base
}

// SAFETY: every pointer handed out is inside a live chunk of at least `layout.size()`
// bytes at the requested alignment; dealloc/realloc find the same chunk again from the
// layout, as GlobalAlloc guarantees they receive the allocation's layout.
unsafe impl GlobalAlloc for PalmAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(size) = chunk_size(layout) else {
            return core::ptr::null_mut();
        };
        // SAFETY: MemPtrNew takes a size and returns a chunk or null.
        let base = unsafe { crate::MemPtrNew(size as u32) }.cast::<u8>();
        if base.is_null() || layout.align() <= CHUNK_ALIGN {
            return base;
        }
        let off = aligned_offset(base as usize, layout.align());
        // SAFETY: off <= align, so [base+off, base+off+size) is inside the chunk of
        // size + align bytes, and base+off-2 >= base is 2-aligned and inside it too.
        unsafe {
            let p = base.add(off);
            p.sub(2).cast::<u16>().write(off as u16);
            p
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: ptr came from `alloc` with this layout (GlobalAlloc contract), so for
        // align > 2 the word below it holds the distance to the chunk start.
        unsafe {
            let base = if layout.align() <= CHUNK_ALIGN {
                ptr
            } else {
                ptr.sub(ptr.sub(2).cast::<u16>().read() as usize)
            };
            crate::MemChunkFree(base.cast());
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= CHUNK_ALIGN {
            // SAFETY: ptr is the start of a chunk of ours (align <= 2 means no offset).
            let err = unsafe { crate::MemPtrResize(ptr.cast(), new_size as u32) };
            if err == crate::errNone {
                return ptr;
            }
        }
        // SAFETY: GlobalAlloc's contract: new_size > 0 and, rounded to align, does
        // not overflow isize.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: new_layout has a non-zero size.
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
