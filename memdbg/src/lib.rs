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
//! let session = memdbg::Session::start(&Settings::DEFAULT); // stops when dropped
//! let p = mem_ptr_new!(16);          // recorded with this file and line
//! let h = mem_handle_new!(32);
//! unsafe { m68k_palmos_sys::MemChunkFree(p) }; // MemPtrFree: matched by the patch
//! // … h is never freed …
//! drop(session); // or return: h is reported (alert + DbgMessage + ledger)
//! ```
//!
//! ([`start`] and [`stop`] are the same without the value: [`Session::stop`] gives
//! the [`Summary`].)
//!
//! ## Checkpoints
//! [`checkpoint`] (also [`Session::checkpoint`]; C: `MemDbgCheckpoint()`)
//! starts a new generation: every allocation record carries the generation it
//! was made in ([`record::AllocRecord::generation`]: 0 before the first
//! checkpoint, n after the n-th; a resize keeps it), and a
//! [`record::CheckpointRecord`] holds each checkpoint's tick, the tracked
//! blocks and bytes live then and the run's counters — one `DmNewRecord` and
//! one `DmWrite`, no heap walk. `memdbg report` lists the leaks per
//! generation (a loop that leaks once per pass: one leak in each) and
//! `--since N` only those of generations N on. At most
//! [`record::MAX_GENERATION`] (255) checkpoints: later ones return
//! [`Error::TooManyCheckpoints`], write nothing, set
//! [`record::HeaderFlags::CHECKPOINTS_REFUSED`], and the allocations stay in
//! generation 255.
//!
//! ## Heap pinning
//! With [`record::Options::HEAP_STATS`], when a tracked allocation lowers the
//! dynamic heap's largest free chunk below 7/8 of its value at the last
//! snapshot (and at the first sample), memdbg walks the heap's chunk headers
//! (OS 3.x internals path only: not with
//! [`record::HeaderFlags::DOCUMENTED_CALLS`], e.g. PumpkinOS) and keeps up to 8
//! tracked non-movable chunks and locked handles that lie between free space —
//! pins that `MemHeapCompact`, which moves only unlocked movable chunks, cannot
//! remove — with the free bytes on each side; `stop` writes them as
//! [`record::PinnedRecord`]s (`crate::pin` has the exact rules).
//!
//! ## Bad use of the API
//! Each is an [`Error`], never a crash, and changes nothing else: [`start`]
//! while running is [`Error::AlreadyRunning`] (the run goes on); [`stop`]
//! while not running (before `start`, or a second time) is
//! [`Error::NotRunning`]; [`checkpoint`] before `start` or after `stop` is
//! [`Error::NotRunning`]; `stop` or `checkpoint` from inside memdbg (a trap
//! patch) is [`Error::Busy`]. An unlock (`MemHandleUnlock`, `MemPtrUnlock`) of
//! a handle memdbg does not track is the app's own business: passed to the OS
//! unchanged, whatever its lock count (palm-run, like a debug ROM, reports one
//! at lock count 0 and answers `memErrChunkNotLocked`); only a tracked
//! handle's is checked (below).
//!
//! ## Unlock checks
//! With [`Options::LOCK_CHECKS`] (on by default) `start` also patches
//! `MemHandleUnlock` and `MemPtrUnlock` (traps 0xA022 and 0xA035, sdk-3.5
//! `CoreTraps.h`), removed again at stop. An unlock of a tracked handle — the
//! handle itself, or a pointer whose handle (`MemPtrRecoverHandle`) is tracked
//! — whose lock count is already 0 is not passed to the OS (a debug ROM stops
//! there, as palm-run's debug-ROM check does; what a release ROM does with it
//! is UNVERIFIED): it returns `memErrChunkNotLocked` and is recorded
//! as a [`record::UnlockUnderflowRecord`] with the unlock's site (its return
//! address, and its callers with [`Options::CALL_STACKS`]) and the handle's
//! allocation record; the handle's lock count is unchanged. The count is the
//! OS's, read just before the unlock (the chunk header's `lockCount` on the OS
//! 3.x path, `MemHandleLockCount` with
//! [`record::HeaderFlags::DOCUMENTED_CALLS`]), never counted by memdbg. No
//! alert or `DbgMessage` line is shown for it: the report names both sites.
//!
//! ## What it does
//! - [`start`] (re)creates `MemDbgDB` ([`record::DB_NAME`], creator `'MDbg'`, type
//!   `'LEAK'`; a database of that name with another creator or type is left alone and
//!   `start` fails with [`Error::Ledger`]`(dmErrAlreadyExists)`), writes its header,
//!   allocates its state in system-owned chunks found again through
//!   `FtrGet('MDbg', 0)` (no writable statics: a code resource is write-protected),
//!   finds out what the OS offers (see "On a Palm OS it was not written against"),
//!   locates code 1 for call stacks, and patches the two free traps (and, with
//!   guards, `MemPtrSize`, `MemHandleSize`, `MemPtrResize` and `MemHandleResize`;
//!   with lock checks, `MemPtrUnlock` and `MemHandleUnlock`) with
//!   `SysSetTrapAddress`, reading them back (unless refused: then
//!   [`record::HeaderFlags::PATCHES_REFUSED`] and the wrappers keep working).
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
//!   `MemPtrFree(MemHandleLock(h))` matches the handle. A double free of one of the
//!   last 16 blocks freed (the ring) is caught before the OS sees it and reported
//!   with both frees' sites — also when the OS merged the freed chunk into a free
//!   neighbour, whose header then still reads as live: a live chunk starting at
//!   the address is looked for by walking the dynamic heap from its header
//!   (`crate::probe`'s `live_chunk_at`), and also for `MemChunkFree` of the pointer
//!   a freed handle had. A free by the app of an address inside a live tracked
//!   block is refused and recorded with its offset and site
//!   ([`record::InteriorFreeRecord`]). A free of a block memdbg never saw is only
//!   counted.
//! - Underruns, with the OS 3.x internals: the last 4 bytes of a tracked
//!   block's chunk header (just before the block: a pointer's lock count 15
//!   and `hOffset` 0, a handle chunk's `hOffset` back to its master pointer;
//!   PALM_FACTS §5.1) are derived, not stored, and checked at free (inline in
//!   the free path), resize and stop (`crate::block`'s `check_header`). A
//!   difference is recorded ([`record::UnderrunRecord`], with the bytes as
//!   found, the allocation and where it was found; an alert with
//!   [`Options::ALERT_OVERRUNS`], not at stop) and repaired before the OS
//!   reads the header (the owner nibble is left as found: `MemPtrSetOwner`
//!   changes it legitimately, so it is not checked, nor is a handle's lock
//!   count or the header's size word). With
//!   [`record::HeaderFlags::DOCUMENTED_CALLS`] (PumpkinOS: handles are
//!   descriptors, no chunk header is readable by contract) no header is read:
//!   underruns are not seen.
//! - A tracked allocation at an address the index still holds closes that record
//!   as freed unseen ([`record::AllocFlags::FREED_UNSEEN`]): its block was freed
//!   without a free trap call (`MemHeapFreeByOwnerID`, the ROM's own frees, or
//!   the patches refused); at stop, with the OS 3.x internals, a record whose
//!   chunk is free is closed the same way (no leak, no guard check).
//! - [`stop`] restores the original trap addresses (read back), checks every live
//!   block's guard, sets aside each block handed off to another owner (given to
//!   the system with `MemPtrSetOwner`/`MemHandleSetOwner(…, 0)` and kept, a Palm
//!   idiom for data that outlives the app: at stop, `MemPtrOwner`/
//!   `MemHandleOwner` of a block allocated as the app's names another owner;
//!   its record gets [`record::AllocFlags::HANDED_OFF`], it is not a leak),
//!   reports each leak (one `DbgMessage` line each, and with
//!   [`Options::CONTENTS`] a [`record::ContentsRecord`] of its first
//!   [`record::CONTENTS_LEN`] bytes, a handle's read while locked with
//!   `MemHandleLock` where only documented calls are used), writes the
//!   header's counters, releases the records and removes free slots from the
//!   ledger, and only then, the ledger complete, shows up to `max_alerts` alerts
//!   (one per leak) and frees its state.
//! - Alerts (a leak at stop, an overrun or a double free at once) are the ROM's
//!   generic error alert, `FrmCustomAlert(ErrOKAlert, …)` (10021, Palm OS 3.2 and
//!   later: it returns on every ROM), reading "Leak #3: 16 bytes (pointer) at
//!   src/x.rs:42" (#3: the allocation's number, as in the report and the
//!   leak's `DbgMessage` line); without it (Palm OS 3.0/3.1) none is shown
//!   ([`record::HeaderFlags::NO_ALERT_DIALOG`]). [`Options::ERR_DISPLAY_ALERTS`]
//!   shows them with `ErrDisplayFileLineMsg` instead, for debug-ROM users who want
//!   its debugger: that "Fatal Alert" offers only Reset on a release ROM and ends
//!   the app on PumpkinOS. The ledger's header is written before every alert, so
//!   an alert that ends the app loses nothing.
//! - It degrades instead of crashing: a full index or storage heap counts untracked
//!   allocations and sets [`record::HeaderFlags::INCOMPLETE`]; everything keeps
//!   working for any number of alloc/free cycles (record slots are reused).
//!
//! ## On a Palm OS it was not written against
//! memdbg's fast paths read Palm OS 3.x internals: a handle's master pointer
//! (`*h` is the chunk) and chunk headers (PALM_FACTS §5.1). `start` first checks
//! that they hold (`MemHandleLock(h) == *h` on a handle of its own, and that
//! handle's, a pointer's and the state's chunk headers say what they should; a
//! freed pointer's header says free); where they do not (PumpkinOS: handles are
//! descriptors) memdbg uses documented calls only and says so in the ledger
//! ([`record::HeaderFlags::DOCUMENTED_CALLS`]): a handle's chunk is reached with
//! `MemHandleLock`/`MemHandleUnlock` (two more OS calls per handle allocation with
//! guards, and two more per handle free: one lock serves its ring entry and its
//! guard), no heap
//! walk is made, a free of an address freed among the last 16 is a double free
//! only when the app's code makes it, at stop with the patches installed no
//! record's chunk is checked (a block freed without a trap call and never reused
//! is a leak), and at stop, trap patches refused, a damaged guard is taken as
//! freed unseen. The ledger follows the Data
//! Manager's documented contract on every OS: a record's pointer is used only
//! while its handle is locked, between `DmNewRecord`/`DmGetRecord` and
//! `DmReleaseRecord` (PumpkinOS frees a record's buffer at its release), so a
//! slot's record stays busy and locked from its creation to `stop`.
//!
//! With the patches refused, frees made with the plain traps (and the OS's) go
//! unseen, so at stop a block memdbg still holds may be long freed: it is
//! guard-checked only if it is still the chunk memdbg recorded (not free, its
//! size, the app's owner, the dynamic heap: from its chunk header with the OS 3.x
//! internals, else from `MemPtrSize`/`MemPtrOwner`/`MemPtrHeapID` and their handle
//! forms); otherwise its record gets [`record::AllocFlags::FREED_UNSEEN`] — not a
//! leak, never an overrun. A chunk freed next to a free one merges into it and
//! leaves its old header inside the merged chunk, which reads as live: with the
//! OS 3.x internals the heap walk settles it; the documented calls cannot tell a
//! freed chunk from a live one at all, so with them a damaged guard counts as
//! freed unseen too.
//!
//! ### Where `DbgMessage` goes
//! [`Options::DBG_MESSAGES`] lines (and [`dbg_message`], for the app's own) are
//! sent only where the trap exists: `start` compares
//! `SysGetTrapAddress(sysTrapDbgMessage)` with SysUnimplemented's address, the
//! SDK's own test for a trap, and trusts the answer only if a reserved trap reads
//! as SysUnimplemented (PumpkinOS answers an address for every trap, and ends an
//! app that calls the DbgMessage it lacks); otherwise none is sent
//! ([`record::HeaderFlags::NO_DBG_MESSAGE`]). CloudpilotEmu (its
//! `HeadpatchDbgMessage`) and palm-run print the lines. On a device the trap
//! belongs to the ROM's debugger support (`DebugMgr.h`) and the text is for a
//! debugger connected to the device (Palm Debugger, CodeWarrior): without one
//! nobody reads it, and what a release ROM does then was not verified — keep
//! `DBG_MESSAGES` for emulators and debugging sessions. The ledger has
//! everything the lines say.
//!
//! ## Rules for the app
//! - Call [`start`] and [`stop`] only at a normal launch with globals (PALM_FACTS
//!   §2.1): `stop` before PilotMain returns, after the forms are closed, so the OS's
//!   frees of field handles are seen. A [`Session`] held in PilotMain does both.
//! - An app that returns without `stop` (or is ended by a panic) leaves the trap
//!   patches installed, in memdbg's system-owned state: each RAM trampoline checks
//!   that code 1's chunk is still locked and that its entry's first long is still
//!   there, and otherwise passes the call straight to the original trap (four
//!   68k instructions per call of a patched trap: the frees, and with guards the
//!   sizes and resizes), so the next app's frees work. The next [`start`] (the
//!   app relaunched, or another app linking this memdbg) takes that state over:
//!   removes its patches and frees it (about 3 KB of the dynamic heap until
//!   then). The ledger of such a run says `RUNNING` (the blocks live when the app
//!   returned), until that `start` replaces it.
//! - Free tracked blocks with `MemPtrFree`/`MemChunkFree`/`MemHandleFree` as usual;
//!   on systems that refuse trap patches, use [`mem_ptr_free!`]/[`mem_handle_free!`]
//!   (which work everywhere) so that frees are still seen.
//!
//! ## Costs
//! Measured exactly in `palm-run` by `cargo run --release -p memdbg --example bench`
//! (default settings, the capacity raised to the live blocks + 32 where 512 is too
//! few, 16-byte blocks, 10 to 5,000 blocks live, once the ring of
//! recent frees is full: until then, the first 16 frees of a run, each allocation
//! takes a new ledger record): a `mem_ptr_new!` + `MemPtrFree` pair runs about
//! 332–351 68k instructions inside memdbg, a `mem_handle_new!` + `MemHandleFree`
//! pair 346–377, the underrun check
//! included (9 instructions per pointer free, 14 per handle free; a generation
//! costs the allocation nothing: it is the scratch record's, which
//! [`checkpoint`] sets; the pinning walk runs only at a new low-water mark of
//! the largest free chunk, not once in the bench's pairs; the index
//! probes' lengths depend on the blocks' addresses: a block may land in a
//! cluster of the live blocks' entries, each extra probe about 14
//! instructions in a find or an insert and 17 in a remove; the budget is
//! 400), and each makes 6 OS calls from it (`FtrGet`,
//! `MemPtrNew`/`MemHandleNew`, `DmWrite`, `MemHeapFreeBytes`;
//! `DmSet`, the original free), plus the app's own free trap. Neither the
//! allocation nor the free reads `TimGetTicks`: an allocation record's
//! sequence number orders it among the run's allocations and frees, its
//! generation places it between checkpoints (whose ticks are kept), and a
//! free's ring entry keeps the sequence number of the last allocation, which a
//! double free reports. A
//! handle's chunk is reached through its master pointer, never locked (with
//! [`record::HeaderFlags::DOCUMENTED_CALLS`]: 362–393 instructions and 10 OS
//! calls, one lock/unlock pair at the allocation for its guard and one at the
//! free for its ring entry and its guard check; memdbg's own unlocks go to the
//! saved original while the unlock traps are patched, not through its patch;
//! with the capacity at live + 32 for 10 and 100 live too, the index's smallest
//! tables, a handle pair is 360–363 instructions and 376–393 with documented
//! calls).
//! The index
//! keeps this flat as the number of live blocks grows. The free patch is entered
//! through a RAM trampoline that carries the state's address, so frees make no
//! Feature Manager call; it first checks, in 4 instructions, that the app's code
//! is still there (code 1 locked twice, its entry's first long unchanged). A
//! free of an address memdbg no longer tracks that a recent free did (a double
//! free, or a chunk the OS reused) walks the dynamic heap's chunks up to it; a
//! free by the app of an address it never tracked looks through the live
//! records for a block holding it. With guards, every `MemPtrSize`/`MemHandleSize` (the OS's
//! too) costs the original plus an index probe (and a `MemPtrRecoverHandle` for an
//! unknown pointer while handles are live), and a resize of a tracked block the
//! wrapper's work. Code: 13,102 bytes of memdbg in the starter app's code 1
//! (73 functions, as the bench counts them); 16,518 in the bench app, which links both
//! the Rust wrappers and the C interface. Once, at [`start`], memdbg reads all of code 1 for
//! the header's CRC-32 ([`record::crc32`]: about 22 instructions per byte, some
//! 487,000 for the starter app's 22 KB code 1), so that the report can refuse the
//! ELF of another build.
//!
//! ## Layers
//! Each module uses only the modules above it in this list (`tests/layers.rs`
//! checks it):
//! 1. `record` — the ledger's format, shared with the host tools.
//! 2. `settings` — the API's value types: [`Settings`], [`Error`], [`Site`].
//! 3. `stack` — code 1's range and the call stacks' rules.
//! 4. `index` — the free path's hash table (the state holds one).
//! 5. `state` — the state chunk: its layout, entering it, the heap's low-water marks.
//! 6. `probe` — what the OS offers, found out at start: the OS 3.x internals,
//!    `DbgMessage`, the alert dialog.
//! 7. `ledger` — MemDbgDB: creating it, records and slots, the header, events,
//!    cleaning up.
//! 8. `text` — the message formatter.
//! 9. `events` — alerts, `DbgMessage` lines and event records.
//! 10. `block` — a tracked block: its record by address, its chunk, its guard,
//!     fills, whether it is still live, call stacks.
//! 11. `alloc`, `free`, `resize`, `pin`, `unlock` — the hooks: what every allocation,
//!     free, size query, resize and unlock does (each uses none of the others), and
//!     the heap-pinning snapshot a new low of the largest free chunk takes.
//! 12. `patch` — installing and removing the trap patches.
//! 13. `session` — [`start`] and [`stop`], the leak report, the alerts at stop.
//! 14. `api` — the wrappers' functions, [`dbg_message`].
//! 15. `global`, `capi` — [`MemDbgAlloc`], the C interface.
//!
//! ## Assembly
//! What runs on every allocation and free, and what the OS calls as a trap, is
//! 68000 assembly in `asm/*.s` (GNU as, listed in `Cargo.toml`'s
//! `[package.metadata.palm] asm`, assembled by palm-build): the index (`index.s`),
//! entering the state and sampling the heap (`state.s`), the frame walk, the guard
//! and the fills (`block.s`), the allocation (`alloc.s`), the free of a tracked block
//! (`free.s`), and the patched traps' entries with Palm's register rules and the
//! trampolines' template (`patches.s`). LLVM's m68k code for these is about twice as
//! long and slower (the budget is 400 instructions per pair). Each routine's header
//! comment states its register convention; the structure offsets and flag bits they
//! use come from the Rust definitions (`asm_constants!`), and `tests/asm` runs each
//! of them in the 68000 emulator, checking its convention. Everything else is Rust,
//! the one implementation of each behaviour (the assembly calls it for the rare
//! cases: a fresh slot, a damaged guard, a double free, a small allocation's site,
//! a low heap, a free of an address it does not hold). Off the 68k there is no
//! assembly: those functions panic there.
//!
//! ## C
//! With the `capi` feature the `staticlib` exports a C interface (`capi`:
//! `cargo build -p memdbg --features capi`); `include/memdbg.h` maps
//! `MemPtrNew`, `MemHandleNew`, `MemChunkNew` and the resizes onto it with `__FILE__`
//! and `__LINE__`, and `MemPtrFree`/`MemHandleFree`. An app with several code
//! resources (prc-tools' `multiple code`) works too: [`start`] records code 2…n
//! in the ledger ([`record::SegmentRecord`]), and a frame there is reported as
//! `segment N + offset`.
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
/// declares is an undefined symbol, which the link names.
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
/// The free path's index hash multiplier (`src/index.rs`), for
/// `examples/index_hash.rs`, which measures it: not an API.
#[doc(hidden)]
pub use index::MULTIPLIER as INDEX_MULTIPLIER;
mod ledger;
mod patch;
mod pin;
mod probe;
pub mod record;
mod resize;
mod session;
mod settings;
mod stack;
mod state;
mod text;
mod unlock;

pub use api::{
    chunk_new, dbg_message, handle_free, handle_new, handle_resize, ptr_free, ptr_new, ptr_resize,
};
pub use global::MemDbgAlloc;
pub use record::Options;
pub use session::{Session, Summary, checkpoint, is_running, start, stop};
pub use settings::{Error, Settings, Site};

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
