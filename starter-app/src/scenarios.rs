//! The scenarios behind StarterApp's buttons: one function per button, each a
//! few lines of ordinary Palm OS code, most with a memory bug on purpose, and
//! what memdbg reports for it. Read this file as the guide to what the
//! detector catches; run the app (or `starter-app/events.txt` in palm-run)
//! to see it happen.
//!
//! Allocations go through memdbg's macros — `mem_ptr_new!(size)` for
//! `MemPtrNew`, `mem_handle_new!(size)` for `MemHandleNew` — which record the
//! call's file and line (and, in this app, its call stack). Frees are the
//! plain OS calls: `MemPtrFree` (in C a macro for `MemChunkFree`, which is
//! what is called here) and `MemHandleFree`. memdbg patches those two traps,
//! so it sees every free, including the ones the OS does for the app.
//!
//! | button | function | memdbg reports |
//! |---|---|---|
//! | Leak pointer | [`leak_pointer`] | a leak: 16 bytes, pointer, this file and line |
//! | Leak handle | [`leak_handle`] | a leak: 32 bytes, handle, this file and line |
//! | Field handle | [`field_handle`] | nothing: `FrmDeleteForm` frees the handle (counted as an OS free) |
//! | Resize ptr | [`resize_pointer`] | nothing (a resize is counted; the block is freed) |
//! | Move handle | [`move_handle`] | nothing (a resize is counted; the block is freed) |
//! | Overrun | [`overrun`] | an overrun found at the free: the allocation's file and line, the free's call stack, the damaged guard bytes; an alert at once (the 10-byte block also counts as a small allocation) |
//! | Double free | [`double_free`] | a double free: the allocation's site and both frees' call stacks; an alert at once; the OS never sees the second free |
//! | Fragment | [`fragment`] | nothing leaked; heap statistics: 20 small allocations (1–12 bytes) from one site |
//! | Leak Box | [`leak_box`] | a leak: 24 bytes, Rust allocation, with the call stack that made it |
//! | Correct use | [`correct`] | nothing |
//! | Pin heap | [`pin_heap`] | nothing leaked; "Heap pinned by": the 64-byte pointer at this file and line, with the 20,004 free bytes before it and the rest of the heap after it, when the largest free chunk fell to its low-water mark |
//! | Loop leak | [`loop_leak`] | 5 leaks of 20 bytes from one line, one in each of generations 1 to 5 (`memdbg::checkpoint` per pass): `memdbg report --since N` lists those of pass N on |
//! | Lock handle | [`lock_handle`] | "Locked handles at stop": the 16-byte handle locked 2 times, at this file and line (also a leak, with its text); "Unlock underflows": the other handle unlocked once more than it was locked, the unlock's line and its allocation's (the OS never sees that unlock) |
//!
//! Leaks are reported at `memdbg::stop`, when the app exits: one alert each
//! ("Leak #1: 16 bytes (pointer) at" the allocation's file and line, in the
//! ROM's error alert, which returns), one `DbgMessage` line each, and a record
//! each in the `MemDbgDB` database, which `memdbg report` turns into a report. A real Palm OS frees an app's
//! chunks when it exits, so without the ledger these leaks would vanish.
//!
//! The lines marked `// @mark NAME` are the ones the end-to-end test
//! (`starter-app/e2e`) expects to find in the ledger; it reads their numbers
//! from this file, so the code may move freely.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::hint::black_box;
use core::ptr;

use m68k_palmos_sys::{
    self as palm, Char, FieldType, MemChunkFree, MemHandleFree, MemHandleLock, MemHandleUnlock,
    MemPtr, StrCopy,
};
use memdbg::{mem_handle_new, mem_handle_resize, mem_ptr_new, mem_ptr_resize};

use crate::ids;

/// **Leak pointer**: a scratch buffer from `MemPtrNew` that is used and never
/// freed — the classic leak.
///
/// memdbg reports it at exit: kind pointer, 16 bytes, the `mem_ptr_new!` line
/// and the call stack (this function, the form handler, …).
pub fn leak_pointer() {
    let text = mem_ptr_new!(16).cast::<Char>(); // @mark leak-pointer
    if text.is_null() {
        return;
    }
    // SAFETY: 16 bytes hold any 32-bit number in decimal and its NUL.
    unsafe { palm::StrIToA(text, 1_234_567) };
    // ... `text` is drawn, logged, sent — and the function returns without
    // `MemPtrFree(text)`.
}

/// **Leak handle**: a movable chunk from `MemHandleNew`, filled and then
/// forgotten: neither freed nor attached to a database.
///
/// memdbg reports it at exit: kind handle, 32 bytes, the `mem_handle_new!`
/// line. The record holds the handle, not a pointer: the chunk may have moved.
pub fn leak_handle() {
    let record = mem_handle_new!(32); // @mark leak-handle
    if record.is_null() {
        return;
    }
    // SAFETY: a live handle of 32 bytes; the text takes 29 with its NUL.
    unsafe {
        StrCopy(
            MemHandleLock(record).cast(),
            c"a record that is never saved".as_ptr(),
        );
        MemHandleUnlock(record);
    }
}

/// **Field handle**: a handle given to the form's text field with
/// `FldSetTextHandle`. The field now owns it: `FrmDeleteForm` frees it when
/// the form closes (at exit, in `FrmCloseAllForms`), from inside the OS.
///
/// memdbg reports nothing: its patch of `MemHandleFree` sees the OS's free
/// and deletes the record (the header counts it as an OS free). A detector
/// that only wrapped the app's own frees would call this a leak.
pub fn field_handle() {
    const TEXT: &core::ffi::CStr = c"Freed by FrmDeleteForm";
    let text = mem_handle_new!(TEXT.count_bytes() as u32 + 1);
    if text.is_null() {
        return;
    }
    // SAFETY: the active form is the main form, which has MainTextField; the
    // handle is live and big enough for TEXT.
    unsafe {
        StrCopy(MemHandleLock(text).cast(), TEXT.as_ptr());
        MemHandleUnlock(text);
        let form = palm::FrmGetActiveForm();
        let index = palm::FrmGetObjectIndex(form, ids::MainTextField);
        let field = palm::FrmGetObjectPtr(form, index).cast::<FieldType>();
        // FldSetTextHandle does not free the field's old text: the app does.
        let old = palm::FldGetTextHandle(field);
        palm::FldSetTextHandle(field, text);
        palm::FldDrawField(field);
        if !old.is_null() {
            MemHandleFree(old);
        }
    }
}

/// **Resize ptr**: `MemPtrResize` in place. A pointer chunk never moves, so
/// it can always shrink but can grow only into free space right after it
/// (else `memErrNotEnoughSpace`). Here it shrinks from 64 to 24 bytes.
///
/// Resize through `mem_ptr_resize!`: memdbg checks the old guard, moves the
/// guard to the new end and keeps one record with the new size (had the
/// block leaked, the report would say 24 bytes). Freed at the end: nothing
/// is reported; the header counts the resize.
pub fn resize_pointer() {
    let list = mem_ptr_new!(64);
    if list.is_null() {
        return;
    }
    // SAFETY: a live pointer chunk, freed once.
    unsafe {
        if mem_ptr_resize!(list, 24) == palm::errNone {
            ptr::write_bytes(list.cast::<u8>(), 0, 24);
        }
        MemChunkFree(list);
    }
}

/// **Move handle**: `MemHandleResize` that has to move the chunk. A block of
/// the same size is allocated just after the handle, to sit behind its chunk;
/// growing the handle from 16 to 2000 bytes then cannot happen in place: the
/// Memory Manager moves the (unlocked) chunk, and the handle stays the same.
///
/// memdbg keeps the record under the handle, with the new size and a guard
/// at the new end. Both blocks are freed: nothing is reported. A
/// `DbgMessage` (where the OS has it) says whether the chunk moved: where a
/// chunk goes is the Memory Manager's choice. With first-fit placement (palm-run) it always
/// moves: the blocker lands right behind the handle, or the handle took a
/// hole whose rest is too small for the blocker, let alone for 1984 more
/// bytes.
pub fn move_handle() {
    let h = mem_handle_new!(16);
    if h.is_null() {
        return;
    }
    let blocker = mem_ptr_new!(16);
    // SAFETY: live handle and pointer, each freed once; the handle is
    // unlocked when resized, so the Memory Manager may move it.
    unsafe {
        if !blocker.is_null() {
            let before = MemHandleLock(h);
            MemHandleUnlock(h);
            if mem_handle_resize!(h, 2000) == palm::errNone {
                let after = MemHandleLock(h);
                MemHandleUnlock(h);
                // memdbg::dbg_message: DbgMessage where the OS has it (PumpkinOS
                // ends an app that calls it).
                memdbg::dbg_message(if after == before {
                    c"StarterApp: Move handle: the chunk grew in place"
                } else {
                    c"StarterApp: Move handle: the chunk moved"
                });
            }
            MemChunkFree(blocker);
        }
        MemHandleFree(h);
    }
}

/// **Overrun**: a buffer of 10 bytes for a 10-character name, copied with
/// `StrCopy` — whose terminating NUL lands one byte past the block.
///
/// memdbg wrote 4 guard bytes (0xFD) after the block; the free finds the
/// first one overwritten. It shows an alert at once, naming the
/// **allocation's** file and line ("Overrun after 10 bytes (pointer) at …"), and
/// records the block, the damaged guard bytes and the free's call stack. The
/// block is then freed normally: no leak.
pub fn overrun() {
    let name = mem_ptr_new!(10).cast::<Char>(); // @mark overrun
    if name.is_null() {
        return;
    }
    // SAFETY: the bug on purpose: 11 bytes into 10 (the 11th is memdbg's
    // guard, inside the chunk, so nothing else is damaged).
    unsafe {
        StrCopy(name, c"StarterApp".as_ptr());
        MemChunkFree(name.cast()); // @mark overrun-free
    }
}

/// **Double free**: the same block freed twice, as when two cleanup paths
/// both own a pointer. On a device the second `MemPtrFree` corrupts the heap
/// or stops the app (a debug ROM).
///
/// memdbg's patch catches the second free before the OS sees it: an alert at
/// once, and a record with the block's allocation site and the call
/// stacks of both frees. The second call returns `memErrInvalidParam`.
pub fn double_free() {
    let buffer = mem_ptr_new!(20); // @mark double-free
    if buffer.is_null() {
        return;
    }
    // SAFETY: the first free is correct; the second is the bug on purpose,
    // and memdbg keeps it from the OS.
    unsafe {
        MemChunkFree(buffer); // @mark double-free-first
        MemChunkFree(buffer); // @mark double-free-second
    }
}

/// Blocks of [`fragment`].
const FRAGMENT_BLOCKS: usize = 20;

/// **Fragment**: 20 blocks of 8 bytes, then every other one freed, leaving
/// holes that only small blocks fit; then the rest freed. Each chunk costs 8
/// bytes of header on top of its 8 bytes: many small blocks waste the heap
/// and fragment it.
///
/// Nothing leaks. memdbg's heap statistics show it: the header counts 20
/// small allocations (1–12 bytes), and a small-allocation record names this
/// site with count 20 and 160 bytes (`memdbg report` lists such sites). The
/// Vec holding the addresses is a tracked Rust allocation, freed too.
pub fn fragment() {
    // The blocks' addresses go in a Vec: a local array indexed in a loop is
    // what LLVM's m68k backend miscompiles (bug 2, TOOLCHAIN.md).
    let mut blocks: Vec<MemPtr> = Vec::with_capacity(FRAGMENT_BLOCKS);
    for _ in 0..FRAGMENT_BLOCKS {
        blocks.push(mem_ptr_new!(8)); // @mark fragment
    }
    // Every other block: holes between the survivors...
    free_every_other(&blocks, 0);
    // ... and, later, the survivors.
    free_every_other(&blocks, 1);
}

/// Frees `blocks[first]`, `blocks[first + 2]`, … (the non-null ones).
fn free_every_other(blocks: &[MemPtr], first: usize) {
    let mut i = first;
    while i < blocks.len() {
        if !blocks[i].is_null() {
            // SAFETY: fragment's blocks are live and each index is freed once.
            unsafe { MemChunkFree(blocks[i]) };
        }
        i += 2;
    }
}

/// **Leak Box**: a Rust `Box` whose ownership leaves Rust (`Box::into_raw`,
/// e.g. as the user data of an OS callback) and never comes back
/// (`Box::from_raw`), so it is never dropped.
///
/// memdbg's global allocator recorded it with its call stack (Rust has no
/// file and line at the allocation): a leak of 24 bytes, kind Rust
/// allocation; `memdbg report --elf` symbolizes the stack to this function
/// and line.
pub fn leak_box() {
    let scores = Box::new([0u32; 6]); // @mark leak-box
    black_box(Box::into_raw(scores));
}

/// **Correct use**: a pointer, a handle and a `Box`, each used and freed
/// (the `Box` dropped) — what every scenario above should have done.
///
/// memdbg reports nothing; the header counts three allocations and three
/// frees more.
pub fn correct() {
    let text = mem_ptr_new!(32).cast::<Char>();
    let record = mem_handle_new!(48);
    let scores = Box::new([0u16; 8]);
    // SAFETY: each non-null block is live, big enough for its text, and freed
    // exactly once.
    unsafe {
        if !text.is_null() {
            StrCopy(text, c"freed when done".as_ptr());
            MemChunkFree(text.cast());
        }
        if !record.is_null() {
            StrCopy(MemHandleLock(record).cast(), c"freed when done".as_ptr());
            MemHandleUnlock(record);
            MemHandleFree(record);
        }
    }
    drop(black_box(scores));
}

/// **Loop leak**: a loop of 5 passes, each opening a 40-byte "record" (a
/// handle, written and freed: opened and closed correctly) and adding a
/// 20-byte history entry that is never freed — one leak per pass, the kind a
/// form opened and closed over and over leaves. Each pass starts with
/// `memdbg::checkpoint()`, so pass N's allocations are in generation N.
///
/// memdbg reports 5 leaks from the same line, and the report's "Leaks by
/// generation" puts one in each of generations 1 to 5, each checkpoint with
/// its tick and the blocks live then; `memdbg report --since 3` lists only
/// those of passes 3 to 5.
pub fn loop_leak() {
    for pass in 1..=5u8 {
        // Refused only past 255 checkpoints (or with memdbg not running).
        let _ = memdbg::checkpoint();
        let record = mem_handle_new!(40);
        if !record.is_null() {
            // SAFETY: a live handle of 40 bytes, locked while written.
            unsafe {
                *MemHandleLock(record).cast::<u8>() = pass;
                MemHandleUnlock(record);
                MemHandleFree(record);
            }
        }
        let entry = mem_ptr_new!(20); // @mark loop-leak
        if !entry.is_null() {
            // SAFETY: a live 20-byte block.
            unsafe { palm::MemSet(entry, 20, pass) };
        }
    }
}

/// **Pin heap**: a 20,000-byte buffer, a 64-byte pointer after it, a 2,000-byte
/// buffer after that; both buffers freed, then a 65,000-byte handle that no
/// longer fits in the 20,000-byte hole before the small pointer, only after it.
/// A non-movable chunk (a pointer, or a locked handle) is one MemHeapCompact
/// cannot move, so the 64-byte pointer splits the free space: the classic way a
/// long-lived small pointer made early ruins a Palm app's largest free chunk.
/// Everything is freed again: nothing leaks.
///
/// With HEAP_STATS memdbg walks the heap when the largest free chunk reaches a
/// new low-water mark, and the report's "Heap pinned by" names the 64-byte
/// pointer's line, with the free bytes on each side of it at that moment.
pub fn pin_heap() {
    let hole = mem_ptr_new!(20000);
    let pin = mem_ptr_new!(64); // @mark pin-heap
    let after = mem_ptr_new!(2000);
    // SAFETY: each pointer is live or null, and freed once.
    unsafe {
        if !hole.is_null() {
            MemChunkFree(hole);
        }
        if !after.is_null() {
            MemChunkFree(after);
        }
    }
    let big = mem_handle_new!(65000);
    // SAFETY: as above; the handle is live or null, freed once.
    unsafe {
        if !big.is_null() {
            MemHandleFree(big);
        }
        if !pin.is_null() {
            MemChunkFree(pin);
        }
    }
}

/// **Lock handle**: a 16-byte handle locked twice and never unlocked — a
/// helper that locks a record to read it, called twice, each caller trusting
/// the other to unlock — and then kept; beside it, a 16-byte handle locked
/// once and unlocked twice (the second unlock a cleanup path that forgot the
/// first had run), then freed. Each `MemHandleLock` adds one
/// to the chunk's lock count (4 bits in its header; 15 marks a non-movable
/// chunk, so a handle can be locked at most 14 times: PALM_FACTS §5.1), and a
/// locked chunk stays where it is: `MemHeapCompact` cannot move it.
///
/// memdbg reports the first at stop under "Locked handles at stop": "handle
/// 0x… locked 2 times at stop, 16 bytes allocated at" this file and line, the
/// count read from the OS, with the call stack; it is also a leak, whose
/// contents show its text. The other one's second unlock, at lock count 0,
/// is an "Unlock underflow" (memdbg refuses it: on a debug ROM it is a fatal
/// error, on a release ROM it corrupts the lock count), with this line and its
/// allocation's; its free is in order.
pub fn lock_handle() {
    let kept = mem_handle_new!(16); // @mark lock-handle
    let balanced = mem_handle_new!(16); // @mark lock-balanced
    // SAFETY: live handles of 16 bytes (or null, skipped); "still locked 2x"
    // and its NUL fill `kept`'s 16 (its contents at stop are all its own).
    // `kept` stays locked twice on purpose; `balanced` is unlocked twice on
    // purpose (memdbg refuses the second), then freed.
    unsafe {
        if !kept.is_null() {
            StrCopy(MemHandleLock(kept).cast(), c"still locked 2x".as_ptr());
            MemHandleLock(kept);
        }
        if !balanced.is_null() {
            StrCopy(MemHandleLock(balanced).cast(), c"unlocked".as_ptr());
            MemHandleUnlock(balanced);
            MemHandleUnlock(balanced); // @mark unlock-underflow
            MemHandleFree(balanced);
        }
    }
}
