//! # memdbg-report: MemDbgDB → a leak report
//!
//! The host side of memdbg. The 68k library leaves its ledger in the Palm
//! database `MemDbgDB`; users export it (POSE "Export Database…" → `.pdb`,
//! CloudpilotEmu "Save backup" → `.zip`, `palm-run --export MemDbgDB=file.pdb`)
//! and this crate turns it into a report: what leaked, where it was allocated
//! and through which calls, overruns and double frees with their sites, heap
//! statistics, and a one-line summary.
//!
//! # Stages (library first; the `memdbg` binary is a thin clap front end)
//! 1. **Decode** ([`read_ledger`], [`Ledger`]): `.pdb` or backup `.zip` →
//!    records decoded by `memdbg::record` (the one definition of the format).
//!    Bad input is an [`InputError`] naming the file and the byte offset,
//!    never a panic. Format versions 1 to 5 are read; a version 1 ledger has
//!    no code 1 checksum, so an ELF is checked against it by size only (the
//!    report warns).
//! 2. **Symbolize** ([`Symbolize`], [`ElfSymbols`]): code 1 offsets (= ELF
//!    addresses, palm-build links code 1 at 0) → function, file and line from
//!    the ELF's DWARF, else its symbol table, else the raw offset; frames in
//!    code 2…n (the ledger's segment records) as `segment N + offset`, from
//!    the ELF of `palm-build c-app --segments` (code N at N ×
//!    [`SEGMENT_STRIDE`]). For a prc-tools build, [`CoffSymbols`] names the
//!    functions from its linked coff-m68k file ([`AppSymbols`] takes either).
//! 3. **Analyze** ([`analyze`] → [`Report`]), then print as text or JSON
//!    ([`print()`], chosen after the analysis). [`diff()`](diff::diff) compares
//!    two ledgers.
//!
//! ```no_run
//! use memdbg_report::{ElfSymbols, Format, Options, read_ledger};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ledger = read_ledger("MemDbgDB.pdb".as_ref())?;
//! let elf = ElfSymbols::load("target/palm/StarterApp.elf".as_ref())?;
//! elf.check(&ledger)?; // the ELF must be the build that wrote the ledger (size, CRC-32)
//! let mut opts = Options::default();
//! opts.symbolizer = Some(&elf);
//! opts.format = Format::Text;
//! let summary = memdbg_report::print(&mut std::io::stdout(), &ledger, &opts)?;
//! std::process::exit(summary.exit_status.into());
//! # }
//! ```
//!
//! # Command line
//! ```text
//! memdbg report INPUT [--elf APP.elf] [--json] [--min-size N] [--since N] [--suppress FILE] [--member PATH]
//! memdbg diff OLD NEW [--elf NEW.elf] [--old-elf OLD.elf] [--json] [--min-size N] [--since N] [--suppress FILE] [--member PATH]
//! ```
//! INPUT is a `.pdb` or a CloudpilotEmu backup `.zip` (the member
//! `MemDbgDB.pdb`, in any folder, is used; failing that, any `.pdb` with
//! MemDbgDB's type `'LEAK'` and creator `'MDbg'`). A backup with more than
//! one such member is refused as ambiguous unless `--member PATH` names one
//! (its path as the archive lists it, e.g. `a/MemDbgDB.pdb`). `diff` refuses
//! two ledgers of different apps (database name or creator). Leaks are
//! matched by the wrappers' file and line, and Rust allocations by their
//! symbolized call stacks (function, file, line) — by code 1 offsets when a
//! side is not symbolized, and then the diff warns if the ledgers come from
//! different builds (code 1's size or CRC-32), where offsets move. Each
//! side is symbolized with the ELF of its build: `--elf` is NEW's (it must
//! match NEW) and `--old-elf` OLD's (it must match OLD). With `--elf` alone,
//! OLD is symbolized with it too when it is of the same build, else OLD's
//! frames stay offsets and the diff warns (function-name suppressions then do
//! not apply to OLD's leaks). So `memdbg diff before.pdb after.pdb --elf
//! after.elf --old-elf before.elf` compares the runs before and after a fix.
//!
//! Inputs are read only from regular files of at most 64 MiB (ledgers and
//! ELFs: [`MAX_LEDGER_FILE`], [`MAX_ELF_FILE`]) or 16 MiB (suppression files,
//! [`MAX_SUPPRESSION_FILE`]); a device, FIFO or directory is an error. Exit
//! status, as LeakSanitizer's, so CI can gate on it:
//! - **0**: no leaks and no errors recorded (suppressed leaks and leaks below
//!   `--min-size` do not count); for `diff`, no leaks appeared (sites that
//!   disappeared, shrank or stayed do not count);
//! - **1**: leaks, overruns or double frees recorded; for `diff`, leaks
//!   appeared: a site has more leaks in NEW than in OLD (after suppressions
//!   and `--min-size`; `diff` does not compare overruns and double frees);
//! - **2**: unreadable input (not a regular file, too large, not a PDB, wrong
//!   type or creator, unknown record version, truncated records, an ambiguous
//!   backup, an ELF that does not match the ledger's code 1 size or CRC-32 —
//!   for `diff`, `--elf` against NEW and `--old-elf` against OLD — a bad
//!   suppression file), `diff` of two apps, or bad arguments. The message
//!   names the file and, when there is one, the offset.
//!
//! `--since N` lists only the leaks made in generation N or later
//! (`memdbg::checkpoint` starts generations 1 to 255; [`Options::since`]);
//! the others are counted in the summary line and do not set the exit
//! status. An N above the ledger's last generation is an error (exit 2,
//! [`check_since`]); for `diff` it is checked against NEW and applies to
//! both sides.
//!
//! Suppression files ([`suppress`]): one `FILE:LINE` or function name per line
//! (optionally after LeakSanitizer's `leak:`), `#` comments and blank lines
//! ignored, any other line an error naming `FILE:LINE`. A function name
//! matches any frame of a leak's stack, as LeakSanitizer's does, so a function
//! in every stack (`pilot_main`) hides every leak: the report counts what each
//! pattern hid and warns then. `memdbg bench [--records N] [--elf
//! APP.elf]` (hidden) times the report of a generated ledger ([`mod@bench`]).
//!
//! # Text report
//! A header (app, format version, code 1, options and flags with what they
//! mean, activity counters), warnings, one block per leak in allocation order
//! ("Leak #3 (1 of 2): Relocatable chunk leaked at 0x…, size = …": the
//! allocation's number, `seq`, which memdbg's `DbgMessage` line and alert
//! give the leak on the device, its place in the list, then POSE's wording;
//! then "Chunk allocated by:" and the call stack, LeakSanitizer-style `#0
//! 0x… in function at file:line`; frames that cannot be symbolized keep
//! their offset; a stack memdbg cut ends with "(the stack was cut here:
//! depth limit of 6 frames)" or "…: broken A6 frame chain"; the frame where the
//! OS called the app's entry function is named once, in the header's "Launch"
//! line, and left out of the stacks; generated sources get a real name: palm-sys's
//! trap glue is its trap's line of `palm-sys/traps.tbl`, another build script's
//! output `CRATE/generated/FILE`), the blocks handed off to another owner
//! ("Handed off #2 (1 of 1): …", given to the system and kept: not leaks, and
//! not in the exit status), the leaks aggregated by site ("3 leaks × 16 bytes from starter.rs:42"),
//! with checkpoints in the ledger (format version 5) each leak's heading
//! ends with its generation and "Leaks by generation" lists each generation
//! from `--since` on (its start: the run's, or its checkpoint's tick and the
//! blocks and bytes live then) with the leaks made in it by allocation
//! number ("generation 3 from tick 58 (6 blocks, 135 bytes live): 1 leak, 20
//! bytes: #39"), the handles still locked at stop ("Locked handles at stop",
//! one finding per handle: "Locked #3 (1 of 2): handle 0x00012344 locked 2
//! times at stop, 16 bytes allocated at FILE:LINE" and its call stack; a
//! locked handle that is also a leak is listed in both sections), overruns and double frees with their sites, the unlock
//! underflows ("Unlock underflows", one finding each: "Unlock underflow 1 of
//! 2: handle 0x00012344 unlocked while not locked at FILE:LINE
//! (MemHandleUnlock), 16 bytes allocated at FILE:LINE", the allocation's and
//! the unlock's call stacks), heap statistics, the
//! suppressions used, and a last line:
//! `SUMMARY: memdbg: 48 byte(s) leaked in 3 allocation(s).` (for a ledger
//! whose run did not stop, header flag RUNNING: `SUMMARY: memdbg: 48 byte(s)
//! live in 3 allocation(s) when the ledger was last written (the run did not
//! stop: not leaks).`; the line always starts with `SUMMARY: memdbg: `).
//! Names taken from the inputs (the app's and files' names in the ledger, zip
//! members, the ELF's functions and files) are printed with their control
//! characters (C0, DEL, C1) escaped as `\x1b`, in the text report, the diff
//! and error messages alike; JSON strings keep them (JSON escapes them).
//!
//! # JSON schema
//! `--json` prints one [`Report`] object (pretty-printed). Stable: fields are
//! only ever added; a removal or change of meaning changes `schema`. Numbers
//! are JSON integers (addresses too); optional values are `null`.
//!
//! | field | type | meaning |
//! |---|---|---|
//! | `schema` | string | `"memdbg-report/1"` |
//! | `source` | string | the input (`file.zip (MemDbgDB.pdb)` for a backup) |
//! | `symbols` | string \| null | the ELF used |
//! | `header` | object | [`HeaderInfo`]: `app_name`, `app_creator`, `format_version`, `options` and `flags` (arrays of `{name, meaning}`), `options_bits`, `flags_bits`, `max_alerts`, `capacity`, `low_heap_threshold`, `code_base`, `code_size`, `code_crc` (`null` for a version 1 ledger or an unknown code 1), `start_ticks`, `stop_ticks` |
//! | `counters` | object | [`CounterInfo`]: the header's 19 counters by their `memdbg::record::Counters` names; `low_free`/`low_largest_free` `null` when never sampled |
//! | `leaks` | array | [`Leak`]: `number` (the place in this list) plus the block fields below (`seq`: the allocation's number, as memdbg's alerts and `DbgMessage` lines give it) and `contents` ([`Contents`]: `count`, `hex` (`"31 32 00"`), `text` (printable ASCII, else `.`): the block's first bytes, up to 32, as `memdbg::stop` copied them; `null` when the ledger has none: the `CONTENTS` option off, a ledger before format version 4) |
//! | `handed_off` | array | as `leaks`, for blocks handed off to another owner (flag `HANDED_OFF`: given to the system with `MemPtrSetOwner`/`MemHandleSetOwner` and kept): not leaks |
//! | `sites` | array | [`Site`]: `site`, `kinds`, `count`, `bytes`, `min_size`, `max_size`, `leaks` (numbers); most bytes first |
//! | `checkpoints` | array | [`Checkpoint`] (format version 5 on; empty before): `generation` (1 to 255), `ticks`, `live_count`, `live_bytes`, `counters` (as `counters`, at the checkpoint: `leaks`/`leaked_bytes` are the blocks and bytes live then), `leaks` (the numbers of the leaks listed that were made in this generation), `leaked_bytes`; in the order made |
//! | `since` | integer | the `--since` the leaks were listed with (0: all generations) |
//! | `overruns` | array | [`Overrun`]: `number`, `when` (`at free`/`at resize`/`at stop`), `ticks`, `guard` (`"00 FD FD FD"`), `found_by` (stack), `found_by_truncated`, `block` |
//! | `underruns` | array | [`Underrun`]: `number`, `when` (`at free`/`at resize`/`at stop`), `ticks`, `header` (the chunk header's last 4 bytes as found, `"F1 00 00 41"`), `expected` (what memdbg checks there: `"F? 00 00 00"` for a pointer, `"?? + hOffset back to the handle"` for a handle), `found_by` (stack), `found_by_truncated`, `block` (format version 5 on) |
//! | `double_frees` | array | [`DoubleFree`]: `number`, `address`, `first_free` and `second_free` (`{ticks, after_allocation, stack, stack_truncated}`: `ticks` at the free, or, for the first free from format version 5 on, `null` and `after_allocation` the sequence number of the last allocation before it; `after_allocation` is `null` otherwise), `block` |
//! | `interior_frees` | array | [`InteriorFree`]: `number`, `address` (the address freed), `offset` (bytes into the block, signed), `free` (`{ticks, after_allocation, stack, stack_truncated}`, `after_allocation` `null`), `block` |
//! | `locked` | array | [`Locked`] (format version 5 on; empty before): `number`, `handle`, `lock_count` (1 to 14: the OS's count at stop, from the chunk header or `MemHandleLockCount`), `ticks` (at stop), `block` (the handle's allocation): tracked handles still locked at stop, in ledger order; they set the exit status |
//! | `unlock_underflows` | array | [`UnlockUnderflow`] (format version 5 on, option `LOCK_CHECKS`; empty before): `number`, `handle`, `trap` (`MemHandleUnlock` or `MemPtrUnlock`), `address` (the address passed: the handle, or the pointer), `site` (the unlock's `file:line` in words), `unlock` (`{ticks, after_allocation, stack, stack_truncated}`, `after_allocation` `null`), `block` (the handle's allocation): unlocks of tracked handles whose lock count was already 0, refused by memdbg (the OS never saw them), in the order they happened; they set the exit status |
//! | `freed_unseen` | array | [`Leak`]-shaped: `number` and the block's fields, for each block memdbg found freed where it could not see the free (trap patches refused, or a free inside the Memory Manager without a trap call such as `MemHeapFreeByOwnerID`; `AllocFlags::FREED_UNSEEN`): not leaks |
//! | `heap` | object | [`HeapInfo`]: `peak_live_bytes`, `peak_live_count`, `low_free`, `low_largest_free`, `low_heap_threshold`, `small_allocs`, `small_unsited`, `small_sites` (`{count, bytes, first: block}`), `low_heap` (`{free, largest, threshold, after: block}`), `pinned_by` (`{lock_count, free_before, free_after, largest, ticks, block}`: tracked blocks that pinned the dynamic heap at memdbg's last pinning snapshot, heap address order) |
//! | `suppressions` | array | [`SuppressionUse`]: `pattern`, `leaks`, `bytes` hidden by it |
//! | `entry_function` | string \| null | the ELF's function at code 1 offset 0 (`__palm_entry`) |
//! | `launched_from` | array of integers | the 68k addresses from which the OS called it in the stacks (frames with `os_launch`) |
//! | `warnings` | array of strings | inconsistencies and missing information |
//! | `unwritten_records` | integer | records skipped because they were never written: all zero bytes, as `DmNewRecord` creates them, when the app stopped before the `DmWrite` that fills them (also said in `warnings`) |
//! | `summary` | object | [`Summary`]: `leaks`, `bytes`, `suppressed_leaks`, `suppressed_bytes`, `below_min_size_leaks`, `below_min_size_bytes`, `overruns`, `double_frees`, `interior_frees`, `locked`, `unlock_underflows`, `handed_off`, `handed_off_bytes`, `freed_unseen`, `exit_status`, `line`, `before_since_leaks`, `before_since_bytes` (leaks hidden by `--since`) |
//!
//! A **block** ([`Block`]) is `kind` (`pointer`, `handle`, `chunk`, `Rust
//! alloc`), `relocatable`, `address`, `size`, `seq`, `ticks` (at allocation before format version 5;
//! `null` from version 5 on: memdbg reads no ticks per allocation), `flags` (array of
//! `AllocFlags` names), `file` and `line` (`null` when not recorded), `site`
//! (words), `stack`, `stack_truncated` (`null`, `"depth limit of 6 frames"`
//! or `"broken A6 frame chain"`: why memdbg cut the stack, format version 3
//! on), `generation` (0 before the run's first checkpoint, n after the n-th;
//! 0 before format version 5). A **stack** is an array of frames ([`StackFrame`]),
//! innermost first: `address` (a code 1 offset when `in_code1`, else a raw 68k
//! address), `in_code1`, `symbols` (array of [`Symbol`] `{function, file, line,
//! inlined}`, innermost inlined function first; empty when unknown), `os_launch`
//! (the frame outside code 1 where the OS called the entry function).
//!
//! `memdbg diff --json` prints a [`diff::Diff`] (`schema`
//! `"memdbg-diff/1"`): `old`, `new`, `symbols` (the ELF of NEW, and of OLD
//! when one build), `old_symbols` (the ELF of OLD, `null` when OLD is not
//! symbolized), `appeared` and `disappeared`
//! (arrays of `{site, kinds, old_count, new_count, old_bytes, new_bytes,
//! stack}`), `unchanged_sites`, `unchanged_leaks`, `locked_new` and
//! `locked_gone` (handles locked at stop by allocation site: arrays of
//! `{site, old_count, new_count, old_locks, new_locks, stack}`, counts in
//! handles, locks the lock counts added up), `locked_unchanged` (handles),
//! `has_locked` (a ledger has a locked handle), `warnings` (strings:
//! different builds, one side not symbolized), `summary`
//! (`appeared_leaks`, `appeared_bytes`, `disappeared_leaks`,
//! `disappeared_bytes`, `new_locked`, `gone_locked`, `new_locks`, `gone_locks` (lock counts added up), `exit_status`, `line`).

#![deny(missing_docs)]

pub mod bench;
mod coff;
pub mod diff;
mod error;
mod input;
mod ledger;
pub mod report;
pub mod suppress;
mod symbolize;
mod text;

pub use coff::CoffSymbols;
pub use error::InputError;
pub use input::{
    MAX_ELF_FILE, MAX_LEDGER_FILE, MAX_SUPPRESSION_FILE, is_zip, ledger_from_bytes,
    ledger_from_bytes_member, read_ledger, read_ledger_bytes, read_ledger_member,
};
pub use ledger::Ledger;
pub use report::{
    Block, Checkpoint, Contents, CounterInfo, DoubleFree, Flag, Format, FreeSite, HeaderInfo,
    HeapInfo, InteriorFree, Leak, Locked, LowHeap, Options, Overrun, Report, SCHEMA, Site,
    SmallSite, StackFrame, Summary, SuppressionUse, Underrun, UnlockUnderflow, analyze,
    check_since, last_generation, print, write,
};
pub use suppress::Suppressions;
pub use symbolize::{AppSymbols, ElfSymbols, SEGMENT_STRIDE, Symbol, Symbolize, Symbols, demangle};
