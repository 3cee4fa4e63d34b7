//! # memdbg: a memory-leak detector for Palm OS 68k applications
//!
//! Linked into a Palm app, memdbg records every allocation made through its wrappers
//! (and Rust's `alloc`), matches every free — including frees the OS does on the
//! app's behalf, seen by patching `MemChunkFree` and `MemHandleFree` — and leaves a
//! ledger in the Palm database `MemDbgDB` that survives the app's exit. A real ROM
//! frees all of an app's dynamic-heap chunks when it exits (PALM_FACTS §5.5), which
//! hides leaks; the ledger does not. The host tool (`memdbg report`) turns an
//! exported `MemDbgDB.pdb` into a report; the format is [`record`].
//!
//! ```ignore
//! use memdbg::{mem_ptr_new, mem_handle_new, Settings};
//!
//! // PilotMain, normal launch only (other launch codes have no app context):
//! memdbg::start(&Settings::DEFAULT).ok();
//! let p = mem_ptr_new!(16);          // recorded with this file and line
//! let h = mem_handle_new!(32);
//! unsafe { m68k_palmos_sys::MemChunkFree(p) }; // MemPtrFree: matched by the patch
//! // … h is never freed …
//! let summary = memdbg::stop();      // h is reported: alert + DbgMessage + ledger
//! ```
//!
//! ## What it does
//! - [`start`] (re)creates `MemDbgDB` ([`record::DB_NAME`], creator `'MDbg'`, type
//!   `'LEAK'`; a database of that name with another creator or type is left alone and
//!   `start` fails with [`Error::Ledger`]`(dmErrAlreadyExists)`), writes its header, allocates its state in system-owned chunks found
//!   again through `FtrGet('MDbg', 0)` (no writable statics: a code resource is
//!   write-protected), locates code 1 for call stacks, and patches the two free
//!   traps (and, with guards, `MemPtrSize`, `MemHandleSize`, `MemPtrResize` and
//!   `MemHandleResize`) with `SysSetTrapAddress`, reading them back (unless refused:
//!   then [`record::HeaderFlags::PATCHES_REFUSED`] and the wrappers keep working).
//! - The wrappers [`mem_ptr_new!`], [`mem_handle_new!`], [`mem_chunk_new!`] capture the
//!   call's file and line (and, with [`Options::CALL_STACKS`], the callers); the
//!   resize wrappers [`mem_ptr_resize!`], [`mem_handle_resize!`] keep exactly one
//!   record with the new size; [`MemDbgAlloc`] records Rust allocations with their
//!   call stack. A failed allocation returns null like the OS and writes nothing.
//! - Every block in the dynamic heap gets [`record::GUARD_LEN`] guard bytes
//!   ([`record::GUARD_BYTE`]) after it ([`Options::GUARDS`]), checked at free, resize
//!   and stop; a damaged guard is reported with the **allocation's** file and line.
//!   The guard is invisible: the patched `MemPtrSize`/`MemHandleSize` give a tracked
//!   block's requested size (also for a locked handle's pointer), and a
//!   `MemPtrResize`/`MemHandleResize` made by anyone (the app through the trap, the
//!   Field Manager growing a text handle) is handled as the resize wrappers do it:
//!   the guard moves and the record keeps the new size.
//! - Frees find their record through a hash index in the state (no database scan).
//!   `MemPtrFree(MemHandleLock(h))` matches the handle. A double free is caught before
//!   the OS sees it and reported with both frees' sites; a free of a block memdbg
//!   never saw is only counted.
//! - [`stop`] restores the original trap addresses (read back), checks every live
//!   block's guard, reports each leak (up to `max_alerts` non-fatal
//!   `ErrDisplayFileLineMsg` alerts, one `DbgMessage` line each), writes the header's
//!   counters, removes free slots from the ledger and frees its state.
//! - It degrades instead of crashing: a full index or storage heap counts untracked
//!   allocations and sets [`record::HeaderFlags::INCOMPLETE`]; everything keeps
//!   working for any number of alloc/free cycles (record slots are reused).
//!
//! ## Rules for the app
//! - Call [`start`] and [`stop`] only at a normal launch with globals (PALM_FACTS
//!   §2.1): `stop` before PilotMain returns, after the forms are closed, so the OS's
//!   frees of field handles are seen.
//! - Free tracked blocks with `MemPtrFree`/`MemChunkFree`/`MemHandleFree` as usual;
//!   on systems that refuse trap patches, use [`mem_ptr_free!`]/[`mem_handle_free!`]
//!   (which work everywhere) so that frees are still seen.
//!
//! ## Costs
//! Measured exactly in `palm-run` by `cargo run --release -p memdbg --example bench`
//! (default settings, 16-byte blocks, 10 to 5,000 blocks live): a `mem_ptr_new!` +
//! `MemPtrFree` pair runs about 320–380 68k instructions inside memdbg, a
//! `mem_handle_new!` + `MemHandleFree` pair 350–375 (the index probes' lengths depend
//! on the blocks' addresses), and each makes 8 OS calls from
//! it (`FtrGet`, `MemPtrNew`/`MemHandleNew`, `TimGetTicks`, `DmWrite`,
//! `MemHeapFreeBytes`; `TimGetTicks`, `DmSet`, the original free), plus the app's own
//! free trap. A handle's chunk is reached through its master pointer, never locked.
//! The index keeps this flat as the number of live blocks grows. Nearly all of
//! memdbg's 68k code is hand-written 68000 assembly (LLVM's m68k code is about twice
//! as long), each routine with a Rust stand-in that the host tests run: every
//! allocation (`fast.rs`: all kinds and options), the free patch, entered through a
//! RAM trampoline that carries the state's address, so frees make no Feature Manager
//! call (`patch.rs`: double frees, a locked handle's pointer and unknown chunks
//! too), resizes, `start`, `stop` and the reports. With
//! guards, every `MemPtrSize`/`MemHandleSize` (the OS's too) costs the original plus
//! an index probe (and a `MemPtrRecoverHandle` for an unknown pointer while handles
//! are live), and a resize of a tracked block the wrapper's work. Code: 5,776 bytes
//! of memdbg in the starter app's code 1; 5,842 in a Rust app calling every wrapper
//! and [`MemDbgAlloc`]; 5,854 in a C app (`tests/c-app`); 6,332 in the bench app,
//! which links both the Rust wrappers and the C interface. Once, at [`start`],
//! memdbg reads all of code 1 for the header's CRC-32 ([`record::crc32`], 16
//! instructions per byte: about 140,000 for the starter app's 9 KB code 1), so that
//! the report can refuse the ELF of another build.
//!
//! ## C
//! With the `capi` feature the `staticlib` exports a C interface (`capi`:
//! `cargo build -p memdbg --features capi`); `include/memdbg.h` maps
//! `MemPtrNew`, `MemHandleNew`, `MemChunkNew` and the resizes onto it with `__FILE__`
//! and `__LINE__`.
//!
//! ## Targets
//! On the 68k (`m68k-unknown-none-elf`, built by palm-build) the crate is `no_std` and
//! calls Palm OS through `m68k-palmos-sys`. On other targets it builds too, so host
//! tools can use [`record`]; calling the Palm-facing functions there panics.
#![cfg_attr(target_os = "none", no_std)]
#![cfg_attr(target_arch = "m68k", feature(asm_experimental_arch))]
#![deny(missing_docs)]

/// Declares constants for memdbg's hand-written assembly (`asm/*.s`), next to the
/// Rust definitions they come from: `asm_constants! { ST_BUSY = offset_of!(State,
/// busy); … }`. On the 68k each becomes `.equ ST_BUSY, 0` in the whole-program
/// assembly (a `global_asm!` with `const` operands, so the value is the 68k
/// compilation's own: its layout aligns `u32` to 2 bytes, unlike a host's), which
/// palm-build collects into the `asm-constants.inc` that every `.s` file includes
/// (palm-build's docs, "Hand-written assembly in a crate"). A field moved in Rust
/// moves the assembly's offset with it; a constant the assembly uses and nobody
/// declares is an assembler error.
macro_rules! asm_constants {
    ($($name:ident = $value:expr;)*) => {
        #[cfg(target_arch = "m68k")]
        core::arch::global_asm!(
            $(concat!(".equ ", stringify!($name), ", {", stringify!($name), "}"),)*
            $($name = const $value,)*
        );
        // (Elsewhere the values are only type-checked.)
        #[cfg(not(target_arch = "m68k"))]
        const _: () = {
            $(let _ = $value;)*
        };
    };
}

/// What a call into memdbg's assembly does off the 68k: there is none (the
/// assembly runs on the 68000 only, and its host tests run it in an emulator).
/// (A value of any type, for the callers' types: it never returns.)
#[cfg(not(target_arch = "m68k"))]
#[cold]
fn not_on_palm<T>() -> T {
    panic!("memdbg's assembly runs only on Palm OS (this is a host build of memdbg)")
}

mod alloc;
mod api;
mod block;
#[cfg(feature = "capi")]
pub mod capi;
mod events;
mod free;
mod global;
mod index;
mod ledger;
mod patch;
pub mod record;
mod resize;
mod session;
mod stack;
mod state;
mod text;

pub use api::{chunk_new, handle_free, handle_new, handle_resize, ptr_free, ptr_new, ptr_resize};
pub use global::MemDbgAlloc;
pub use record::Options;
pub use session::{Summary, is_running, start, stop};

use record::{AllocFlags, FileName, U16Be};

/// How the detector runs: given to [`start`], recorded in the ledger's header.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct Settings {
    /// What to do ([`Options`]).
    pub options: Options,
    /// Most leak alerts (`ErrDisplayFileLineMsg`) shown at stop; every leak is in the
    /// ledger and in the `DbgMessage` lines regardless.
    pub max_alerts: u16,
    /// Most blocks tracked at once (1 to 5461). Memory taken from the dynamic heap:
    /// about 15 bytes per block (an index of ≥ 3/2 × capacity 6-byte entries plus a
    /// 6-byte slot each) plus a 2.8 KB state chunk; and one 82-byte record per slot
    /// in the storage heap. Beyond it, allocations are counted as untracked.
    pub capacity: u16,
    /// Warn (a ledger event, and a `DbgMessage` with [`Options::DBG_MESSAGES`]) the
    /// first time the dynamic heap's largest free chunk falls below this many bytes
    /// (needs [`Options::HEAP_STATS`]; 0: never).
    pub low_heap_threshold: u32,
}

impl Settings {
    /// Guards, heap statistics, alerts at exit (up to 5), `DbgMessage` lines, trap
    /// patches, immediate alerts for overruns and double frees; 512 blocks; no
    /// low-heap warning. Call stacks are off: the wrappers record their file and
    /// line and each free its call site, Rust allocations their call stack anyway;
    /// [`Options::CALL_STACKS`] adds up to six callers to every record and free site
    /// for about 35 68k instructions per frame.
    pub const DEFAULT: Settings = Settings {
        options: Options::GUARDS
            .union(Options::HEAP_STATS)
            .union(Options::ALERTS_AT_EXIT)
            .union(Options::DBG_MESSAGES)
            .union(Options::PATCH_FREES)
            .union(Options::ALERT_OVERRUNS)
            .union(Options::ALERT_DOUBLE_FREES),
        max_alerts: 5,
        capacity: 512,
        low_heap_threshold: 0,
    };
}

impl Default for Settings {
    fn default() -> Self {
        Settings::DEFAULT
    }
}

/// Why [`start`] or [`stop`] did nothing. The discriminants are the C interface's
/// error numbers (`capi`).
#[repr(u16)]
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub enum Error {
    /// `start` while running.
    AlreadyRunning = 1,
    /// `stop` while not running.
    NotRunning = 2,
    /// `stop` called from inside the detector (e.g. from a free patch).
    Busy = 3,
    /// `capacity` is 0 or above 5461.
    BadSettings = 4,
    /// The dynamic heap has no room for the state, index or slot table.
    NoMemory = 5,
    /// The ledger database could not be created or opened (the Data Manager's error
    /// code, e.g. `dmErrDatabaseOpen` when another app holds MemDbgDB open).
    /// `dmErrAlreadyExists` (0x0219): a database named MemDbgDB exists that is not a
    /// ledger (another creator than `'MDbg'`, another type than `'LEAK'`, or a
    /// resource database); it belongs to someone else and is left untouched.
    Ledger(u16) = 6,
}

/// An allocation's source position as stored in its record: the file name's tail
/// ([`FileName`]) and the line. The wrapper macros build one per call site at
/// compile time (a constant in code 1, no relocation).
#[repr(C, align(2))]
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct Site {
    /// File name, NUL-padded, at most 31 bytes.
    pub file: FileName,
    /// Line (lines above 65,535 are stored as 65,535, the width of Palm's
    /// `ErrDisplayFileLineMsg` line argument).
    pub line: U16Be,
    /// [`AllocFlags::FILE_TRUNCATED`] when the path lost leading parts.
    pub flags: U16Be,
}

impl Site {
    /// The site of `file` (as `file!()` gives it) and `line`.
    pub const fn new(file: &str, line: u32) -> Site {
        let bytes = file.as_bytes();
        Site {
            file: FileName::new(bytes),
            line: U16Be::new(if line > 0xFFFF { 0xFFFF } else { line as u16 }),
            flags: U16Be::new(if FileName::cut(bytes) > 0 {
                AllocFlags::FILE_TRUNCATED.bits()
            } else {
                0
            }),
        }
    }
}

/// `MemPtrNew(size)` recorded with this file and line: `mem_ptr_new!(16)`.
/// Returns the `MemPtr` (null on failure, like the OS).
#[macro_export]
macro_rules! mem_ptr_new {
    ($size:expr) => {{
        const SITE: $crate::Site = $crate::Site::new(::core::file!(), ::core::line!());
        $crate::ptr_new(&SITE, $size)
    }};
}

/// `MemHandleNew(size)` recorded with this file and line: `mem_handle_new!(32)`.
/// Returns the `MemHandle` (null on failure).
#[macro_export]
macro_rules! mem_handle_new {
    ($size:expr) => {{
        const SITE: $crate::Site = $crate::Site::new(::core::file!(), ::core::line!());
        $crate::handle_new(&SITE, $size)
    }};
}

/// `MemChunkNew(heapID, size, attr)` recorded with this file and line:
/// `mem_chunk_new!(0, 64, memNewChunkFlagNonMovable)`. Returns what the OS returns (a
/// pointer with `memNewChunkFlagNonMovable` or `memNewChunkFlagPreLock`, else a
/// handle, as a `MemPtr`; null on failure). Only chunks in the dynamic heap (heap 0)
/// get guard bytes.
#[macro_export]
macro_rules! mem_chunk_new {
    ($heap:expr, $size:expr, $attr:expr) => {{
        const SITE: $crate::Site = $crate::Site::new(::core::file!(), ::core::line!());
        $crate::chunk_new(&SITE, $heap, $size, $attr)
    }};
}

/// `MemPtrResize(p, size)` keeping the block's one record (size, guard) up to date:
/// `unsafe { mem_ptr_resize!(p, 24) }`. Returns the OS's `Err`.
#[macro_export]
macro_rules! mem_ptr_resize {
    ($p:expr, $size:expr) => {
        $crate::ptr_resize($p, $size)
    };
}

/// `MemHandleResize(h, size)` keeping the block's one record up to date (the handle
/// stays the same when the chunk moves): `unsafe { mem_handle_resize!(h, 200) }`.
#[macro_export]
macro_rules! mem_handle_resize {
    ($h:expr, $size:expr) => {
        $crate::handle_resize($h, $size)
    };
}

/// `MemPtrFree(p)` that is seen even when trap patches are refused:
/// `unsafe { mem_ptr_free!(p) }`.
#[macro_export]
macro_rules! mem_ptr_free {
    ($p:expr) => {
        $crate::ptr_free($p)
    };
}

/// `MemHandleFree(h)` that is seen even when trap patches are refused:
/// `unsafe { mem_handle_free!(h) }`.
#[macro_export]
macro_rules! mem_handle_free {
    ($h:expr) => {
        $crate::handle_free($h)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_are_built_at_compile_time() {
        const S: Site = Site::new("src/scenarios.rs", 42);
        assert_eq!(S.file.bytes(), b"src/scenarios.rs");
        assert_eq!(S.line.get(), 42);
        assert_eq!(S.flags.get(), 0);
        const L: Site = Site::new("memdbg/tests/apps/ledger/src/lib.rs", 70_000);
        assert_eq!(L.file.bytes(), b"tests/apps/ledger/src/lib.rs");
        assert_eq!(L.line.get(), 0xFFFF);
        assert_eq!(L.flags.get(), AllocFlags::FILE_TRUNCATED.bits());
        assert_eq!(core::mem::size_of::<Site>(), 36);
    }

    #[test]
    fn a_path_is_cut_exactly_when_it_does_not_fit() {
        // The C interface tests the length instead of calling `FileName::cut`.
        for n in 0..80 {
            for path in [vec![b'a'; n], b"d/".repeat(n / 2), b"d\\e".repeat(n / 3)] {
                assert_eq!(
                    FileName::cut(&path) > 0,
                    path.len() >= record::FILE_NAME_LEN,
                    "{path:?}"
                );
            }
        }
    }

    #[test]
    fn default_settings() {
        let s = Settings::default();
        assert!(s.options.contains(Options::GUARDS | Options::PATCH_FREES));
        assert!(!s.options.contains(Options::FILL_NEW));
        assert_eq!(s.capacity, 512);
        assert!(index::entries_for(s.capacity).is_some());
    }
}
