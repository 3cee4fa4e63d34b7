//! The third stage: analysis into a [`Report`], then text or JSON
//! ([`print()`]). The JSON document is the [`Report`] serialized with serde; its
//! schema is described in the [crate documentation](crate#json-schema).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Write};

use memdbg::record::{
    self, AllocFlags, AllocRecord, AsBytes, Counters, DoubleFreeRecord,
    FREE_AFTER_SEQ_FORMAT_VERSION, HeaderFlags, InteriorFreeRecord, NOT_SAMPLED, OverrunRecord,
    SegmentRecord, SmallSiteRecord, Stack, UnderrunRecord, UnlockUnderflowRecord, detected, kind,
};
use palm_prc::FourCC;
use serde::Serialize;

use crate::suppress::Pattern;
use crate::symbolize::{Symbolize, Symbols};
use crate::{Ledger, Suppressions};

/// The `schema` value of the JSON document; changes only when a field is
/// removed or changes meaning (fields may be added).
pub const SCHEMA: &str = "memdbg-report/1";

/// Output format, chosen after the analysis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// The human report.
    #[default]
    Text,
    /// The [`Report`] as pretty-printed JSON.
    Json,
}

/// What to report and how.
#[non_exhaustive]
#[derive(Default)]
pub struct Options<'a> {
    /// Symbols for call stacks (the app's ELF); `None`: frames stay offsets.
    pub symbolizer: Option<&'a dyn Symbolize>,
    /// Text or JSON.
    pub format: Format,
    /// Leaks smaller than this many bytes are not listed (they are counted in
    /// the summary and do not set the exit status).
    pub min_size: u32,
    /// Patterns of known leaks to hide (counted in the summary; they do not
    /// set the exit status).
    pub suppressions: Suppressions,
    /// Leaks made in a generation before this one are not listed (`--since
    /// N`; counted in the summary, they do not set the exit status). 0: all.
    /// Check it against the ledger first with [`check_since`].
    pub since: u8,
}

impl std::fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("symbolizer", &self.symbolizer.map(|s| s.name()))
            .field("format", &self.format)
            .field("min_size", &self.min_size)
            .field("suppressions", &self.suppressions)
            .field("since", &self.since)
            .finish()
    }
}

/// A named flag bit and what it means for the reader of the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Flag {
    /// The bit's name in `memdbg::record` (`GUARDS`, `INCOMPLETE`, …).
    pub name: String,
    /// What it means.
    pub meaning: &'static str,
}

/// The ledger's header, explained.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeaderInfo {
    /// The app's database name.
    pub app_name: String,
    /// The app's creator code (`MDst`, or `0x…` when not printable).
    pub app_creator: String,
    /// MemDbgDB format version.
    pub format_version: u8,
    /// Detector options set for the run.
    pub options: Vec<Flag>,
    /// The options word as stored.
    pub options_bits: u32,
    /// Run-level flags (INCOMPLETE, PATCHES_REFUSED, …).
    pub flags: Vec<Flag>,
    /// The flags word as stored.
    pub flags_bits: u32,
    /// Most leak alerts shown at stop.
    pub max_alerts: u16,
    /// Most live allocations tracked at once.
    pub capacity: u16,
    /// Largest-free-chunk warning threshold, bytes (0: off).
    pub low_heap_threshold: u32,
    /// 68k address of code 1 during the run (0: unknown).
    pub code_base: u32,
    /// Size of code 1, bytes (0: unknown).
    pub code_size: u32,
    /// CRC-32 of code 1 recorded at start (`memdbg::record::crc32`); `null` in a
    /// format version 1 ledger (no such field) or when code 1 was not located.
    pub code_crc: Option<u32>,
    /// Ticks at start.
    pub start_ticks: u32,
    /// Ticks at stop (0: did not stop).
    pub stop_ticks: u32,
}

/// The header's run counters (all of `memdbg::record::Counters`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[allow(missing_docs)] // Each field is the `Counters` field of the same name.
pub struct CounterInfo {
    pub allocations: u32,
    pub frees: u32,
    pub os_frees: u32,
    pub unknown_frees: u32,
    pub double_frees: u32,
    pub overruns: u32,
    pub untracked: u32,
    pub failed: u32,
    pub resizes: u32,
    pub leaks: u32,
    pub leaked_bytes: u32,
    pub peak_live_bytes: u32,
    pub peak_live_count: u32,
    /// `null` when never sampled.
    pub low_free: Option<u32>,
    /// `null` when never sampled.
    pub low_largest_free: Option<u32>,
    pub small_allocs: u32,
    pub small_unsited: u32,
    pub alerts: u32,
    pub os_unknown_frees: u32,
}

/// One frame of a call stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StackFrame {
    /// The return address: an offset from code 1's start (= ELF address) when
    /// `in_code1`, else a raw 68k address.
    pub address: u32,
    /// Whether `address` is a code 1 offset.
    pub in_code1: bool,
    /// The code resource N ≥ 2 a raw `address` is in, and the offset in it
    /// (`segment N + offset`, from the ledger's segment records); `null` for
    /// code 1 and for addresses outside the app's code.
    pub segment: Option<SegmentFrame>,
    /// Functions at the address, innermost inlined first; empty when it could
    /// not be symbolized.
    pub symbols: Symbols,
    /// True for the frame outside code 1 where the OS called the app's entry
    /// point (the frame before it is in the ELF's entry function): the OS
    /// launching the app, where every complete stack from the app's main code
    /// ends. The text report names it once ([`Report::launched_from`]) and leaves
    /// it out of the stacks.
    pub os_launch: bool,
}

/// Why a recorded call stack was cut (`memdbg::record::Truncation`), in words:
/// `depth limit of 6 frames` (the caller had more frames than a record keeps) or
/// `broken A6 frame chain` (a function without a frame pointer, or a damaged
/// stack); `None` for a complete stack (it reached code outside code 1, the OS),
/// for a one-frame site, and in a record of a format version before 4 (`version`:
/// the record's), which did not say.
fn truncated(stack: &Stack, version: u8) -> Option<&'static str> {
    if version < 4 {
        return None;
    }
    stack.truncation().map(|t| t.describe())
}

/// A frame in code resource N ≥ 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct SegmentFrame {
    /// The `code` resource's ID N.
    pub resource: u16,
    /// The return address's offset from its start.
    pub offset: u32,
}

/// A code resource N ≥ 2 of the run (a segment record).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SegmentInfo {
    /// The `code` resource's ID N.
    pub resource: u16,
    /// 68k address of its first byte during the run.
    pub base: u32,
    /// Its size, bytes.
    pub size: u32,
    /// Its CRC-32 (`memdbg::record::crc32`).
    pub crc: u32,
}

/// A tracked block: where and how it was allocated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Block {
    /// `pointer`, `handle`, `chunk` or `Rust alloc`.
    pub kind: &'static str,
    /// True when `address` is a handle (a relocatable chunk).
    pub relocatable: bool,
    /// The pointer or handle.
    pub address: u32,
    /// Requested size in bytes (after resizes).
    pub size: u32,
    /// Allocation sequence number in the run, from 1.
    pub seq: u32,
    /// Ticks (`TimGetTicks`) at allocation, in ledgers of format versions 1 to 4;
    /// `None` from version 5 on, where memdbg reads no ticks per allocation
    /// (`seq` and `generation` say when).
    pub ticks: Option<u32>,
    /// `memdbg::record::AllocFlags` names: GUARDED, RESIZED, HANDLE,
    /// FILE_TRUNCATED, OVERRUN, NOT_DYNAMIC, FREED_UNSEEN.
    pub flags: Vec<&'static str>,
    /// Source file of the wrapper call (`null` for Rust allocations).
    pub file: Option<String>,
    /// Source line of the wrapper call (`null` when not recorded).
    pub line: Option<u32>,
    /// The site in words: `file:line`; else the innermost symbolized function
    /// outside Rust's `alloc`/`core`/`std` and memdbg (`make_box at
    /// src/lib.rs:77`); else the innermost frame's address.
    pub site: String,
    /// The call stack at allocation, innermost first.
    pub stack: Vec<StackFrame>,
    /// Why `stack` was cut, if it was (format version 4 on): `depth limit of 6
    /// frames` or `broken A6 frame chain`.
    pub stack_truncated: Option<&'static str>,
    /// The generation it was allocated in: 0 before the run's first
    /// checkpoint, n after the n-th (`memdbg::checkpoint`; 0 in ledgers
    /// before format version 5).
    pub generation: u8,
}

/// A checkpoint (a `memdbg::record::CheckpointRecord`): where a generation
/// started, and the leaks listed that were made in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Checkpoint {
    /// The generation it started (1 to 255).
    pub generation: u8,
    /// Ticks (`TimGetTicks`) at the checkpoint.
    pub ticks: u32,
    /// Tracked blocks live at the checkpoint.
    pub live_count: u32,
    /// Their requested bytes.
    pub live_bytes: u32,
    /// The run's counters then (`leaks`/`leaked_bytes`: the blocks and bytes
    /// live then).
    pub counters: CounterInfo,
    /// The [`Leak::number`]s of the leaks listed that were made in this
    /// generation (from this checkpoint to the next).
    pub leaks: Vec<usize>,
    /// Their bytes.
    pub leaked_bytes: u64,
}

/// A leaked block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Leak {
    /// 1-based number in this report (allocation order).
    pub number: usize,
    /// The block.
    #[serde(flatten)]
    pub block: Block,
    /// Its first bytes as `memdbg::stop` copied them (`Options::CONTENTS`,
    /// format version 4 on); `None` when the ledger has none for it.
    pub contents: Option<Contents>,
}

/// A leak's first bytes (a `memdbg::record::ContentsRecord`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Contents {
    /// Bytes copied: the block's size, at most 32 (`record::CONTENTS_LEN`).
    pub count: usize,
    /// The bytes in hex, two uppercase digits each, space-separated
    /// (`"31 32 33 00"`).
    pub hex: String,
    /// The bytes as text: printable ASCII as itself, any other byte `.`.
    pub text: String,
    /// The bytes (in the JSON as `hex`).
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

impl Contents {
    fn new(bytes: &[u8]) -> Contents {
        let hex = bytes
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(" ");
        let text = bytes
            .iter()
            .map(|&b| char::from(record::as_text(b)))
            .collect();
        Contents {
            count: bytes.len(),
            hex,
            text,
            bytes: bytes.to_vec(),
        }
    }
}

/// Leaks from one site, aggregated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Site {
    /// As [`Block::site`].
    pub site: String,
    /// The kinds of block seen there.
    pub kinds: Vec<&'static str>,
    /// Number of leaks.
    pub count: usize,
    /// Their total size.
    pub bytes: u64,
    /// Smallest leak.
    pub min_size: u32,
    /// Largest leak.
    pub max_size: u32,
    /// Their [`Leak::number`]s.
    pub leaks: Vec<usize>,
}

/// A damaged guard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Overrun {
    /// 1-based number.
    pub number: usize,
    /// `at free`, `at resize` or `at stop`.
    pub when: &'static str,
    /// Ticks when found.
    pub ticks: u32,
    /// The guard bytes as found, hex (`00 FD FD FD`); intact is `FD FD FD FD`.
    pub guard: String,
    /// Where it was found (the free's or resize's callers; empty at stop).
    pub found_by: Vec<StackFrame>,
    /// Why `found_by` was cut, if it was (as [`Block::stack_truncated`]).
    pub found_by_truncated: Option<&'static str>,
    /// The damaged block.
    pub block: Block,
}

/// A damaged chunk header before a block (its last 4 bytes: lock count and
/// owner, `hOffset`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Underrun {
    /// 1-based number.
    pub number: usize,
    /// `at free`, `at resize` or `at stop`.
    pub when: &'static str,
    /// Ticks when found.
    pub ticks: u32,
    /// The chunk header's last 4 bytes as found, hex (`F1 00 00 41`).
    pub header: String,
    /// What memdbg expected there, hex, `??` for the bits it does not know:
    /// `F? 00 00 00` for a pointer (lock count 15, `hOffset` 0), `?? hOffset`
    /// for a handle.
    pub expected: &'static str,
    /// Where it was found (the free's or resize's callers; empty at stop).
    pub found_by: Vec<StackFrame>,
    /// Why `found_by` was cut, if it was (as [`Block::stack_truncated`]).
    pub found_by_truncated: Option<&'static str>,
    /// The damaged block.
    pub block: Block,
}

/// A tracked handle still locked at stop (memdbg's `LockedRecord`): the lock
/// count the OS kept for it (the chunk header's, or `MemHandleLockCount`'s on
/// the documented-calls path), not one memdbg counted. A finding of its own: a
/// locked handle that is also a leak is in both lists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Locked {
    /// 1-based number.
    pub number: usize,
    /// The handle (a 68k address, as the app saw it).
    pub handle: u32,
    /// Its lock count at stop, 1 to 14.
    pub lock_count: u8,
    /// `TimGetTicks` at stop.
    pub ticks: u32,
    /// The handle's allocation.
    pub block: Block,
}

/// An unlock of a tracked handle whose lock count was already 0 (memdbg's
/// `UnlockUnderflowRecord`, option `LOCK_CHECKS`): not passed to the OS, so
/// the handle's lock count is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnlockUnderflow {
    /// 1-based number.
    pub number: usize,
    /// The handle (a 68k address, as the app saw it).
    pub handle: u32,
    /// `MemHandleUnlock` or `MemPtrUnlock`.
    pub trap: &'static str,
    /// The address passed to the unlock: the handle, or (`MemPtrUnlock`) the
    /// pointer its lock had given.
    pub address: u32,
    /// The unlock's site in words: the innermost `file:line` of its stack
    /// outside the runtime and the trap glue, else as a block's `site`.
    pub site: String,
    /// The unlock (`{ticks, stack, stack_truncated}`).
    pub unlock: FreeSite,
    /// The handle's allocation (still live then).
    pub block: Block,
}

/// One free of a double free, or an interior free, or an unlock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FreeSite {
    /// Ticks at the free; `None` for a double free's first free from format
    /// version 5 on (memdbg's free path reads no ticks: `after_allocation`
    /// says when it was).
    pub ticks: Option<u32>,
    /// When the free was, as the sequence number of the last allocation before
    /// it (a leak's `#N`): a double free's first free from format version 5 on,
    /// else `None`.
    pub after_allocation: Option<u32>,
    /// The free's callers.
    pub stack: Vec<StackFrame>,
    /// Why `stack` was cut, if it was (as [`Block::stack_truncated`]).
    pub stack_truncated: Option<&'static str>,
}

/// A block freed twice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DoubleFree {
    /// 1-based number.
    pub number: usize,
    /// The address passed to both frees.
    pub address: u32,
    /// The first free.
    pub first_free: FreeSite,
    /// The second free (not passed to the OS).
    pub second_free: FreeSite,
    /// The block as allocated.
    pub block: Block,
}

/// A free of an address inside a tracked block (not its start), not passed to
/// the OS.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InteriorFree {
    /// 1-based number.
    pub number: usize,
    /// The address passed to the free.
    pub address: u32,
    /// Its offset from the block's address, in bytes (negative inside an
    /// over-aligned Rust block's padding).
    pub offset: i32,
    /// The free.
    pub free: FreeSite,
    /// The block as allocated (still live then).
    pub block: Block,
}

/// Small allocations of one site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SmallSite {
    /// Small allocations made there.
    pub count: u32,
    /// Their total size.
    pub bytes: u32,
    /// The first of them.
    pub first: Block,
}

/// The largest free chunk fell below the threshold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LowHeap {
    /// Free bytes in the dynamic heap then.
    pub free: u32,
    /// Largest free chunk then.
    pub largest: u32,
    /// The threshold.
    pub threshold: u32,
    /// The allocation after which it was seen.
    pub after: Block,
}

/// Heap statistics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeapInfo {
    /// Peak of live tracked bytes.
    pub peak_live_bytes: u32,
    /// Peak number of live tracked blocks.
    pub peak_live_count: u32,
    /// Low-water of the dynamic heap's free bytes (`null`: not sampled).
    pub low_free: Option<u32>,
    /// Low-water of its largest free chunk (`null`: not sampled).
    pub low_largest_free: Option<u32>,
    /// Warning threshold for the largest free chunk (0: off).
    pub low_heap_threshold: u32,
    /// Allocations of 1 to 12 bytes.
    pub small_allocs: u32,
    /// Of those, from sites beyond the per-site table.
    pub small_unsited: u32,
    /// Per-site counts, most allocations first.
    pub small_sites: Vec<SmallSite>,
    /// Low-heap warnings.
    pub low_heap: Vec<LowHeap>,
    /// Tracked blocks that pinned the dynamic heap at its last pinning
    /// snapshot, in heap address order (memdbg's `PINNED` records).
    pub pinned_by: Vec<Pin>,
}

/// A tracked block that pinned the dynamic heap: a non-movable chunk or a
/// locked handle with free bytes on both sides, which `MemHeapCompact` cannot
/// merge while it stays (memdbg's `PinnedRecord`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pin {
    /// The chunk's lock count then (15: non-movable; 1 to 14: a locked handle).
    pub lock_count: u8,
    /// Free bytes before it, up to the previous pin or the heap's start
    /// (chunk headers not counted).
    pub free_before: u32,
    /// Free bytes after it, up to the next pin or the heap's end.
    pub free_after: u32,
    /// The dynamic heap's largest free chunk then, bytes.
    pub largest: u32,
    /// `TimGetTicks` then.
    pub ticks: u32,
    /// The pinning block.
    pub block: Block,
}

/// How many leaks one suppression pattern hid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SuppressionUse {
    /// The pattern as written.
    pub pattern: String,
    /// Leaks it hid (each leak counts for the first pattern that matches).
    pub leaks: usize,
    /// Their bytes.
    pub bytes: u64,
}

/// The totals and the verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Leaks reported.
    pub leaks: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Leaks hidden by suppressions.
    pub suppressed_leaks: usize,
    /// Their bytes.
    pub suppressed_bytes: u64,
    /// Leaks hidden by `min_size`.
    pub below_min_size_leaks: usize,
    /// Their bytes.
    pub below_min_size_bytes: u64,
    /// Leaks hidden by `since`: made in a generation before it.
    pub before_since_leaks: usize,
    /// Their bytes.
    pub before_since_bytes: u64,
    /// Overrun records.
    pub overruns: usize,
    /// Underrun records.
    pub underruns: usize,
    /// Double-free records.
    pub double_frees: usize,
    /// Interior-free records.
    pub interior_frees: usize,
    /// Handles locked at stop (locked records).
    pub locked: usize,
    /// Unlock underflows (unlock-underflow records).
    pub unlock_underflows: usize,
    /// Blocks handed off (not leaks: they do not set the exit status).
    pub handed_off: usize,
    /// Their bytes.
    pub handed_off_bytes: u64,
    /// Blocks freed unseen (not leaks; they do not set the exit status).
    pub freed_unseen: usize,
    /// 0: no leaks or errors; 1: leaks, overruns, underruns, double frees,
    /// interior frees (records or header counters), handles locked at stop
    /// or unlock underflows.
    pub exit_status: u8,
    /// The one-line summary that ends the text report.
    pub line: String,
}

/// The whole analysis: what the text report shows and the JSON document is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The input's name.
    pub source: String,
    /// The symbol file's name, or `null`.
    pub symbols: Option<String>,
    /// The header.
    pub header: HeaderInfo,
    /// Code resources 2…n (segment records; none for an app of one code
    /// resource).
    pub segments: Vec<SegmentInfo>,
    /// The header's counters.
    pub counters: CounterInfo,
    /// Leaks, in allocation order.
    pub leaks: Vec<Leak>,
    /// Blocks handed off to another owner (`AllocFlags::HANDED_OFF`: given to
    /// the system and kept, to outlive the app): not leaks, in allocation order;
    /// `number` counts them apart from the leaks.
    pub handed_off: Vec<Leak>,
    /// Leaks aggregated by site, most bytes first.
    pub sites: Vec<Site>,
    /// The run's checkpoints (format version 5 on), in the order made, each
    /// with the leaks listed that were made in its generation (those of
    /// generation 0 are the leaks made before the first).
    pub checkpoints: Vec<Checkpoint>,
    /// The `since` the leaks were listed with (0: all generations).
    pub since: u8,
    /// Overruns, in the order found.
    pub overruns: Vec<Overrun>,
    /// Underruns, in the order found.
    pub underruns: Vec<Underrun>,
    /// Double frees, in the order found.
    pub double_frees: Vec<DoubleFree>,
    /// Frees of an address inside a tracked block, in the order found.
    pub interior_frees: Vec<InteriorFree>,
    /// Tracked handles still locked at stop, in ledger order (format version
    /// 5 on; empty before).
    pub locked: Vec<Locked>,
    /// Unlocks of tracked handles that were not locked, in the order they
    /// happened (format version 5 on, option `LOCK_CHECKS`; empty before).
    pub unlock_underflows: Vec<UnlockUnderflow>,
    /// Blocks freed where memdbg could not see the free (trap patches
    /// refused): not leaks, in allocation order.
    pub freed_unseen: Vec<Leak>,
    /// Heap statistics.
    pub heap: HeapInfo,
    /// Suppression patterns and what each hid.
    pub suppressions: Vec<SuppressionUse>,
    /// The app's entry function (the ELF's function at code 1 offset 0), when
    /// symbolized.
    pub entry_function: Option<String>,
    /// The distinct 68k addresses (outside code 1) from which the OS called the
    /// entry function in the stacks ([`StackFrame::os_launch`]), in order of
    /// appearance.
    pub launched_from: Vec<u32>,
    /// Things the reader should know (inconsistencies, missing symbols).
    pub warnings: Vec<String>,
    /// Records skipped because they were never written (all zero bytes: the
    /// app stopped while the library was creating them; [`Ledger::unwritten`]).
    pub unwritten_records: usize,
    /// Totals.
    pub summary: Summary,
}

const OPTION_MEANINGS: &[(&str, &str)] = &[
    (
        "GUARDS",
        "4 guard bytes (0xFD) after each block, checked at free, resize and stop",
    ),
    (
        "CALL_STACKS",
        "up to 6 return addresses recorded per allocation and per free",
    ),
    (
        "HEAP_STATS",
        "free-heap low-water marks sampled; small allocations counted per site",
    ),
    (
        "ALERTS_AT_EXIT",
        "an alert per leak at stop (up to max alerts)",
    ),
    (
        "DBG_MESSAGES",
        "one DbgMessage line per leak at stop (where the OS has DbgMessage)",
    ),
    (
        "FILL_NEW",
        "new blocks filled with 0x31 (grown parts with 0x33)",
    ),
    ("FILL_FREED", "freed blocks filled with 0x35"),
    (
        "PATCH_FREES",
        "MemChunkFree/MemHandleFree patched, so frees by the OS are matched too",
    ),
    ("ALERT_OVERRUNS", "overruns shown at once in an alert"),
    (
        "ALERT_DOUBLE_FREES",
        "double frees shown at once in an alert",
    ),
    (
        "ERR_DISPLAY_ALERTS",
        "alerts shown with ErrDisplayFileLineMsg (the Fatal Alert: a debug ROM's user may \
         continue or debug; a release ROM or PumpkinOS ends the app) instead of the ROM's \
         error alert",
    ),
    (
        "CONTENTS",
        "each leak's first bytes (up to 32) copied into the ledger at stop",
    ),
    (
        "LOCK_CHECKS",
        "MemHandleUnlock/MemPtrUnlock patched: an unlock of a tracked handle that was not \
         locked was refused and recorded",
    ),
];

/// The meanings that replace those of [`OPTION_MEANINGS`] in a ledger whose header says
/// `PATCHES_REFUSED`: the options that work through trap patches were asked for
/// but not in effect.
const OPTION_MEANINGS_PATCHES_REFUSED: &[(&str, &str)] = &[
    (
        "PATCH_FREES",
        "asked for, not in effect: the OS refused the trap patches (PATCHES_REFUSED), so only \
         frees through memdbg's wrappers were seen",
    ),
    (
        "LOCK_CHECKS",
        "asked for, not in effect: the OS refused the trap patches (PATCHES_REFUSED), so no \
         unlock was checked",
    ),
];

const FLAG_MEANINGS: &[(&str, &str)] = &[
    (
        "INCOMPLETE",
        "some allocations were not recorded (index or storage heap full): leaks may be missing",
    ),
    (
        "PATCHES_REFUSED",
        "the OS refused the free-trap patches (Palm OS 5, PumpkinOS): frees by the OS or with \
         a plain MemPtrFree were not seen; at stop a block no longer the chunk recorded is \
         listed as freed unseen, one still live as a leak (it may have been freed all the same)",
    ),
    (
        "RUNNING",
        "memdbg::stop did not run (the app is running, crashed or was reset): the blocks \
         listed were live at that moment, and the counters are those of start",
    ),
    (
        "TRAPS_DISTURBED",
        "at stop another patch sat on a patched trap (installed after memdbg's): that \
         dispatch-table entry was left as it was; a patch that chains to memdbg's must be \
         removed before memdbg::stop",
    ),
    (
        "CODE_BASE_UNKNOWN",
        "code 1 could not be located: every frame is a raw 68k address",
    ),
    (
        "LOW_HEAP",
        "the largest free chunk of the dynamic heap fell below the warning threshold",
    ),
    (
        "DOCUMENTED_CALLS",
        "the OS does not keep Palm OS 3.x's internals (handles as master pointers, chunk \
         headers): memdbg used documented calls only (handles locked to reach their chunks; \
         with patches refused a damaged guard at stop is taken as freed unseen)",
    ),
    (
        "NO_DBG_MESSAGE",
        "DbgMessage was not called: the trap table says it is missing, or cannot tell",
    ),
    (
        "NO_ALERT_DIALOG",
        "no alert was shown: the ROM has no generic error alert (Palm OS before 3.2)",
    ),
];

/// The named bits with their meanings, each from the first of the `meanings`
/// tables that has it; unknown bits as one entry.
fn explain<'n, T>(
    names: impl Iterator<Item = (&'n str, T)>,
    bits: u32,
    known: u32,
    meanings: &[&[(&str, &'static str)]],
) -> Vec<Flag> {
    let mut out: Vec<Flag> = names
        .map(|(name, _)| Flag {
            name: name.to_string(),
            meaning: meanings
                .iter()
                .flat_map(|t| t.iter())
                .find(|(n, _)| *n == name)
                .map_or("", |(_, m)| m),
        })
        .collect();
    let unknown = bits & !known;
    if unknown != 0 {
        out.push(Flag {
            name: format!("0x{unknown:X}"),
            meaning: "bits unknown to this memdbg (a newer library?)",
        });
    }
    out
}

/// FNV-1a: the report's maps are keyed by small values from the user's own
/// ledger, where SipHash's flooding resistance buys nothing.
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`Fnv`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

/// Symbolization with a cache (a ledger repeats few distinct frames).
struct Frames<'a> {
    symbolizer: Option<&'a dyn Symbolize>,
    cache: FastMap<u32, Symbols>,
    /// [`Report::launched_from`] so far.
    launched_from: Vec<u32>,
    /// The run's code resources 2…n.
    segments: &'a [SegmentRecord],
    segment_cache: FastMap<SegmentFrame, Symbols>,
}

impl Frames<'_> {
    fn stack(&mut self, stack: &Stack) -> Vec<StackFrame> {
        let mut frames = self.frames(stack);
        // The OS's call of the entry function: a frame outside the app's code
        // right after one in code 1.
        let entry = self.symbolizer.and_then(|s| s.entry_function());
        for i in 1..frames.len() {
            let caller_of_entry = entry.is_some_and(|e| {
                frames[i - 1]
                    .symbols
                    .last()
                    .is_some_and(|s| s.function == e)
            });
            let outside = !frames[i].in_code1 && frames[i].segment.is_none();
            if outside && frames[i - 1].in_code1 && caller_of_entry {
                frames[i].os_launch = true;
                if !self.launched_from.contains(&frames[i].address) {
                    self.launched_from.push(frames[i].address);
                }
            }
        }
        frames
    }

    fn frames(&mut self, stack: &Stack) -> Vec<StackFrame> {
        stack
            .iter()
            .map(|f| match f {
                record::Frame::Code(offset) => StackFrame {
                    address: offset,
                    in_code1: true,
                    segment: None,
                    symbols: match self.symbolizer {
                        Some(s) => self
                            .cache
                            .entry(offset)
                            .or_insert_with(|| Symbols(s.symbolize(offset).into()))
                            .clone(),
                        None => Symbols::default(),
                    },
                    os_launch: false,
                },
                record::Frame::Raw(address) => {
                    let segment =
                        SegmentRecord::locate(self.segments, address).map(|(r, offset)| {
                            SegmentFrame {
                                resource: r.resource.get(),
                                offset,
                            }
                        });
                    let symbols = match (segment, self.symbolizer) {
                        (Some(at), Some(s)) => self
                            .segment_cache
                            .entry(at)
                            .or_insert_with(|| {
                                Symbols(s.symbolize_segment(at.resource, at.offset).into())
                            })
                            .clone(),
                        _ => Symbols::default(),
                    };
                    StackFrame {
                        address,
                        in_code1: false,
                        segment,
                        symbols,
                        os_launch: false,
                    }
                }
            })
            .collect()
    }

    fn block(&mut self, a: &AllocRecord) -> Block {
        let stack = self.stack(&a.stack);
        let file = (!a.file.bytes().is_empty())
            .then(|| String::from_utf8_lossy(a.file.bytes()).into_owned());
        let line = (a.line.get() != 0).then(|| u32::from(a.line.get()));
        let site = site_name(file.as_deref(), line, &stack);
        let flags = a.alloc_flags();
        Block {
            kind: kind::name(a.kind),
            relocatable: a.kind == kind::HANDLE || flags.contains(AllocFlags::HANDLE),
            address: a.address.get(),
            size: a.size.get(),
            seq: a.seq.get(),
            ticks: a.alloc_ticks(),
            flags: flags.iter_names().map(|(n, _)| n).collect(),
            file,
            line,
            site,
            stack,
            stack_truncated: truncated(&a.stack, a.version),
            generation: a.generation,
        }
    }
}

/// Functions of the runtime and the allocator (Rust's `alloc`, `core`, `std`,
/// memdbg's own `GlobalAlloc`): skipped when a site is named after its stack.
fn is_runtime(function: &str) -> bool {
    let f = function.trim_start_matches('<');
    [
        "alloc::",
        "core::",
        "std::",
        "memdbg::",
        "__rust_",
        "__rustc::",
    ]
    .iter()
    .any(|p| f.starts_with(p))
}

/// `file:line`, else the innermost frame outside the runtime in words, else
/// the innermost frame.
fn site_name(file: Option<&str>, line: Option<u32>, stack: &[StackFrame]) -> String {
    match (file, line) {
        (Some(f), Some(l)) => return format!("{f}:{l}"),
        (Some(f), None) => return f.to_string(),
        _ => {}
    }
    let symbols = || stack.iter().flat_map(|f| f.symbols.iter());
    if let Some(s) = symbols()
        .find(|s| !is_runtime(&s.function))
        .or_else(|| symbols().next())
    {
        return match (&s.file, s.line) {
            (Some(f), Some(l)) => format!("{} at {f}:{l}", s.function),
            _ => s.function.clone(),
        };
    }
    match stack.first() {
        Some(f) if f.in_code1 => format!("code 1 offset 0x{:08X}", f.address),
        Some(StackFrame {
            segment: Some(at), ..
        }) => format!("segment {} + 0x{:04X}", at.resource, at.offset),
        Some(f) => format!("68k address 0x{:08X}", f.address),
        None => "unknown site (no file, line or call stack recorded)".to_string(),
    }
}

/// The key leaks are aggregated by: the wrapper's file and line when recorded,
/// else the whole call stack.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum SiteKey {
    /// File (NUL-padded) and line of the wrapper call.
    FileLine([u8; record::FILE_NAME_LEN], u16),
    /// Frames of the call stack (address, in code 1).
    Stack(Vec<(u32, bool)>),
}

/// The aggregation key of an allocation record.
pub(crate) fn site_key(a: &AllocRecord) -> SiteKey {
    if a.file.bytes().is_empty() {
        SiteKey::Stack(
            a.stack
                .iter()
                .map(|f| match f {
                    record::Frame::Code(o) => (o, true),
                    record::Frame::Raw(r) => (r, false),
                })
                .collect(),
        )
    } else {
        // Only the bytes up to the NUL name the file.
        let mut file = [0; record::FILE_NAME_LEN];
        let name = a.file.bytes();
        file[..name.len()].copy_from_slice(name);
        SiteKey::FileLine(file, a.line.get())
    }
}

/// Which leaks the options hide, and why.
pub(crate) enum Hidden {
    /// Reported.
    No,
    /// By the suppression pattern with this index.
    Suppressed(usize),
    /// Smaller than `min_size`.
    BelowMinSize,
    /// Made in a generation before `since`.
    BeforeSince,
}

pub(crate) fn hidden(block: &Block, opts: &Options<'_>) -> Hidden {
    let symbols = || block.stack.iter().flat_map(|f| f.symbols.iter());
    for (i, p) in opts.suppressions.patterns.iter().enumerate() {
        let by_site = match (&block.file, block.line) {
            (Some(f), Some(l)) => p.matches_file_line(f, l),
            _ => false,
        };
        let by_stack = symbols().any(|s| {
            p.matches_function(&s.function)
                || match (&s.file, s.line) {
                    (Some(f), Some(l)) => p.matches_file_line(f, l),
                    _ => false,
                }
        });
        if by_site || by_stack {
            return Hidden::Suppressed(i);
        }
    }
    if block.generation < opts.since {
        Hidden::BeforeSince
    } else if block.size < opts.min_size {
        Hidden::BelowMinSize
    } else {
        Hidden::No
    }
}

/// The last generation of `ledger`: its last checkpoint's (0 without
/// checkpoints), at least that of any allocation record.
pub fn last_generation(ledger: &Ledger) -> u8 {
    let checkpoints = ledger.checkpoints.iter().map(|c| c.generation);
    let allocs = ledger.allocs.iter().map(|a| a.generation);
    checkpoints.chain(allocs).max().unwrap_or(0)
}

/// Checks a `--since N` against `ledger`: N must be one of its generations
/// (0 to [`last_generation`]).
///
/// # Errors
/// N above the last generation: an [`InputError`](crate::InputError) naming the ledger, N and
/// the generations it has.
pub fn check_since(ledger: &Ledger, since: u8) -> Result<(), crate::InputError> {
    let last = last_generation(ledger);
    if since <= last {
        return Ok(());
    }
    let has = if ledger.checkpoints.is_empty() {
        "no checkpoints: all its allocations are in generation 0".to_string()
    } else {
        format!(
            "generations 0 to {last} ({})",
            plural(ledger.checkpoints.len(), "checkpoint", "checkpoints")
        )
    };
    Err(crate::InputError::whole(
        &ledger.source,
        format!("--since {since}: the ledger has {has}"),
    ))
}

/// Allocation records in allocation order (by sequence number, then
/// database order), a record written twice (every byte the same) once
/// ([`alloc_warnings`] says so).
pub(crate) fn allocs_in_order(ledger: &Ledger) -> Vec<&AllocRecord> {
    let mut seen = std::collections::HashSet::new();
    let mut allocs: Vec<&AllocRecord> = ledger
        .allocs
        .iter()
        .filter(|a| seen.insert(a.as_bytes()))
        .collect();
    allocs.sort_by_key(|a| a.seq.get());
    allocs
}

/// Allocation record `i` of `ledger` in words: "record 5 (offset 0x1A4)".
fn alloc_record_name(ledger: &Ledger, i: usize) -> String {
    match ledger.alloc_origins.get(i) {
        Some((index, Some(at))) => format!("record {index} (offset 0x{at:X})"),
        Some((index, None)) => format!("record {index}"),
        None => format!("allocation record {}", i + 1),
    }
}

/// Allocation records that cannot all be right, each named with its record
/// and file offset: a record written twice (counted once), a record of
/// another format version than the header's, two live blocks at one
/// address, a block larger than `memMaxChunkAllocSize` (only a chunk with
/// the private AllowLarge flag can be) or than the run's peak of live bytes.
fn alloc_warnings(ledger: &Ledger, running: bool, warnings: &mut Vec<String>) {
    let allocs = &ledger.allocs;
    let version = ledger.header.version;
    let peak = ledger.header.counters.peak_live_bytes.get();
    let mut first_at: FastMap<u32, usize> = FastMap::default();
    for (i, a) in allocs.iter().enumerate() {
        let name = alloc_record_name(ledger, i);
        if let Some(j) = allocs[..i].iter().position(|o| o == a) {
            warnings.push(format!(
                "{name} is {} written twice (allocation #{} at 0x{:08X}): counted once",
                alloc_record_name(ledger, j),
                a.seq.get(),
                a.address.get()
            ));
            continue;
        }
        if a.version != version {
            warnings.push(format!(
                "{name}: an allocation record of format version {} in a version {version} \
                 ledger (one run's library writes one version): it may be damaged",
                a.version
            ));
        }
        match first_at.get(&a.address.get()) {
            Some(&j) => warnings.push(format!(
                "{name} and {}: two live blocks at 0x{:08X} (a {} and a {}): one of the records \
                 is wrong",
                alloc_record_name(ledger, j),
                a.address.get(),
                kind::name(allocs[j].kind),
                kind::name(a.kind)
            )),
            None => {
                first_at.insert(a.address.get(), i);
            }
        }
        let size = a.size.get();
        if size > crate::ledger::MAX_CHUNK {
            warnings.push(format!(
                "{name}: a block of {size} bytes, more than the {} bytes a Palm OS chunk can \
                 have (memMaxChunkAllocSize) unless MemChunkNew was given the private \
                 AllowLarge flag",
                crate::ledger::MAX_CHUNK
            ));
        } else if !running && peak != 0 && size > peak {
            warnings.push(format!(
                "{name}: a block of {size} bytes, more than the run's peak of {peak} live bytes"
            ));
        }
    }
}

/// A symbolizing, caching view used by [`analyze`] and the diff.
pub(crate) struct Analyzer<'a> {
    frames: Frames<'a>,
}

impl<'a> Analyzer<'a> {
    /// Symbolizes the frames of `ledger` with `symbolizer`.
    pub(crate) fn new(symbolizer: Option<&'a dyn Symbolize>, ledger: &'a Ledger) -> Self {
        Analyzer {
            frames: Frames {
                symbolizer,
                cache: FastMap::default(),
                launched_from: Vec::new(),
                segments: &ledger.segments,
                segment_cache: FastMap::default(),
            },
        }
    }

    pub(crate) fn block(&mut self, a: &AllocRecord) -> Block {
        self.frames.block(a)
    }
}

/// A header's (or a checkpoint's) counters for the report.
fn counter_info(c: &Counters) -> CounterInfo {
    let sampled = |v: u32| (v != NOT_SAMPLED).then_some(v);
    CounterInfo {
        allocations: c.allocations.get(),
        frees: c.frees.get(),
        os_frees: c.os_frees.get(),
        unknown_frees: c.unknown_frees.get(),
        double_frees: c.double_frees.get(),
        overruns: c.overruns.get(),
        untracked: c.untracked.get(),
        failed: c.failed.get(),
        resizes: c.resizes.get(),
        leaks: c.leaks.get(),
        leaked_bytes: c.leaked_bytes.get(),
        peak_live_bytes: c.peak_live_bytes.get(),
        peak_live_count: c.peak_live_count.get(),
        low_free: sampled(c.low_free.get()),
        low_largest_free: sampled(c.low_largest_free.get()),
        small_allocs: c.small_allocs.get(),
        small_unsited: c.small_unsited.get(),
        alerts: c.alerts.get(),
        os_unknown_frees: c.os_unknown_frees.get(),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Analyzes `ledger` (symbolizing with `opts.symbolizer`, applying
/// suppressions and the minimum size).
pub fn analyze(ledger: &Ledger, opts: &Options<'_>) -> Report {
    let h = &ledger.header;
    let c = &h.counters;
    let flags = h.header_flags();
    let mut an = Analyzer::new(opts.symbolizer, ledger);
    let mut warnings = Vec::new();

    let creator = FourCC::from_u32(h.app_creator.get());
    let header = HeaderInfo {
        app_name: ledger.app_name(),
        app_creator: if creator.0.iter().all(|b| b.is_ascii_graphic()) {
            String::from_utf8_lossy(&creator.0).into_owned()
        } else {
            format!("0x{:08X}", creator.to_u32())
        },
        format_version: h.version,
        options: explain(
            h.option_flags().iter_names(),
            h.options.get(),
            record::Options::all().bits(),
            if flags.contains(HeaderFlags::PATCHES_REFUSED) {
                &[OPTION_MEANINGS_PATCHES_REFUSED, OPTION_MEANINGS]
            } else {
                &[OPTION_MEANINGS]
            },
        ),
        options_bits: h.options.get(),
        flags: explain(
            flags.iter_names(),
            h.flags.get(),
            HeaderFlags::all().bits(),
            &[FLAG_MEANINGS],
        ),
        flags_bits: h.flags.get(),
        max_alerts: h.max_alerts.get(),
        capacity: h.capacity.get(),
        low_heap_threshold: h.low_heap_threshold.get(),
        code_base: h.code_base.get(),
        code_size: h.code_size.get(),
        code_crc: h.code_checksum(),
        start_ticks: h.start_ticks.get(),
        stop_ticks: h.stop_ticks.get(),
    };
    let counters = counter_info(c);

    // Leaks, filtered.
    let mut uses: Vec<SuppressionUse> = opts
        .suppressions
        .patterns
        .iter()
        .map(|p| SuppressionUse {
            pattern: p.text(),
            leaks: 0,
            bytes: 0,
        })
        .collect();
    let (mut below_n, mut below_bytes) = (0usize, 0u64);
    let (mut before_n, mut before_bytes) = (0usize, 0u64);
    let mut leaks = Vec::new();
    let mut keys = Vec::new();
    // The allocation sites each pattern hid (for the warning below).
    let mut hidden_sites: Vec<Vec<SiteKey>> = vec![Vec::new(); uses.len()];
    // Leaks with a symbolized frame: those a function pattern can match.
    let mut symbolized = 0usize;
    let contents: HashMap<u32, &[u8]> = ledger
        .contents
        .iter()
        .map(|c| (c.seq.get(), c.contents()))
        .collect();
    for c in &ledger.contents {
        if !ledger.allocs.iter().any(|a| a.seq == c.seq) {
            warnings.push(format!(
                "a contents record is for allocation #{}, which is no leak in the ledger",
                c.seq.get()
            ));
        }
    }
    for a in allocs_in_order(ledger) {
        let block = an.block(a);
        if block.stack.iter().any(|f| !f.symbols.is_empty()) {
            symbolized += 1;
        }
        match hidden(&block, opts) {
            Hidden::Suppressed(i) => {
                if let Some(u) = uses.get_mut(i) {
                    u.leaks += 1;
                    u.bytes += u64::from(block.size);
                }
                if let Some(sites) = hidden_sites.get_mut(i) {
                    let key = site_key(a);
                    if sites.len() < 2 && !sites.contains(&key) {
                        sites.push(key);
                    }
                }
            }
            Hidden::BelowMinSize => {
                below_n += 1;
                below_bytes += u64::from(block.size);
            }
            Hidden::BeforeSince => {
                before_n += 1;
                before_bytes += u64::from(block.size);
            }
            Hidden::No => {
                keys.push(site_key(a));
                leaks.push(Leak {
                    number: leaks.len() + 1,
                    block,
                    contents: contents.get(&a.seq.get()).map(|c| Contents::new(c)),
                });
            }
        }
    }

    // A function pattern matches any frame (as LeakSanitizer's leak:), so one
    // that every stack passes through (pilot_main) hides everything.
    for ((p, u), sites) in opts
        .suppressions
        .patterns
        .iter()
        .zip(&uses)
        .zip(&hidden_sites)
    {
        // A pattern with `*` is meant to cover several functions: no warning.
        if matches!(p, Pattern::Function(f) if !f.contains('*'))
            && u.leaks >= symbolized
            && sites.len() > 1
        {
            warnings.push(format!(
                "suppression `{}` hid every leak with a symbolized call stack ({}), from \
                 several allocation sites: a function pattern matches any frame of the stack, \
                 so a function that every stack passes through hides every leak; name the \
                 allocating function or use FILE:LINE",
                u.pattern, u.leaks
            ));
        }
    }

    // Sites.
    let mut by_key: FastMap<&SiteKey, usize> = FastMap::default();
    let mut sites: Vec<Site> = Vec::new();
    for (leak, key) in leaks.iter().zip(&keys) {
        let b = &leak.block;
        let i = *by_key.entry(key).or_insert_with(|| {
            sites.push(Site {
                site: b.site.clone(),
                kinds: Vec::new(),
                count: 0,
                bytes: 0,
                min_size: b.size,
                max_size: b.size,
                leaks: Vec::new(),
            });
            sites.len() - 1
        });
        let s = &mut sites[i];
        if !s.kinds.contains(&b.kind) {
            s.kinds.push(b.kind);
        }
        s.count += 1;
        s.bytes += u64::from(b.size);
        s.min_size = s.min_size.min(b.size);
        s.max_size = s.max_size.max(b.size);
        s.leaks.push(leak.number);
    }
    sites.sort_by(|a, b| {
        b.bytes
            .cmp(&a.bytes)
            .then(b.count.cmp(&a.count))
            .then(a.leaks.first().cmp(&b.leaks.first()))
    });

    let checkpoints: Vec<Checkpoint> = ledger
        .checkpoints
        .iter()
        .map(|c| {
            let made = leaks.iter().filter(|l| l.block.generation == c.generation);
            Checkpoint {
                generation: c.generation,
                ticks: c.ticks.get(),
                live_count: c.live_count.get(),
                live_bytes: c.live_bytes.get(),
                counters: counter_info(&c.counters),
                leaks: made.clone().map(|l| l.number).collect(),
                leaked_bytes: made.map(|l| u64::from(l.block.size)).sum(),
            }
        })
        .collect();

    let mut handed: Vec<&AllocRecord> = ledger.handed_off.iter().collect();
    handed.sort_by_key(|a| a.seq.get());
    let handed_off: Vec<Leak> = handed
        .into_iter()
        .enumerate()
        .map(|(i, a)| Leak {
            number: i + 1,
            block: an.block(a),
            // memdbg copies the first bytes of leaks only.
            contents: None,
        })
        .collect();
    let handed_off_bytes: u64 = handed_off.iter().map(|h| u64::from(h.block.size)).sum();

    let overruns: Vec<Overrun> = ledger
        .overruns
        .iter()
        .enumerate()
        .map(|(i, o)| overrun(&mut an, i + 1, o))
        .collect();
    let underruns: Vec<Underrun> = ledger
        .underruns
        .iter()
        .enumerate()
        .map(|(i, u)| underrun(&mut an, i + 1, u))
        .collect();
    let double_frees: Vec<DoubleFree> = ledger
        .double_frees
        .iter()
        .enumerate()
        .map(|(i, d)| double_free(&mut an, i + 1, d))
        .collect();
    let interior_frees: Vec<InteriorFree> = ledger
        .interior_frees
        .iter()
        .enumerate()
        .map(|(i, f)| interior_free(&mut an, i + 1, f))
        .collect();
    let locked: Vec<Locked> = ledger
        .locked
        .iter()
        .enumerate()
        .map(|(i, l)| Locked {
            number: i + 1,
            handle: l.alloc.address.get(),
            lock_count: l.lock_count,
            ticks: l.ticks.get(),
            block: an.block(&l.alloc),
        })
        .collect();
    let unlock_underflows: Vec<UnlockUnderflow> = ledger
        .unlock_underflows
        .iter()
        .enumerate()
        .map(|(i, u)| unlock_underflow(&mut an, i + 1, u))
        .collect();
    let mut small: Vec<&SmallSiteRecord> = ledger.small_sites.iter().collect();
    small.sort_by_key(|s| std::cmp::Reverse(s.count.get()));
    let heap = HeapInfo {
        peak_live_bytes: counters.peak_live_bytes,
        peak_live_count: counters.peak_live_count,
        low_free: counters.low_free,
        low_largest_free: counters.low_largest_free,
        low_heap_threshold: header.low_heap_threshold,
        small_allocs: counters.small_allocs,
        small_unsited: counters.small_unsited,
        small_sites: small
            .into_iter()
            .map(|s| SmallSite {
                count: s.count.get(),
                bytes: s.bytes.get(),
                first: an.block(&s.first),
            })
            .collect(),
        low_heap: ledger
            .low_heap
            .iter()
            .map(|l| LowHeap {
                free: l.free.get(),
                largest: l.largest.get(),
                threshold: l.threshold.get(),
                after: an.block(&l.alloc),
            })
            .collect(),
        pinned_by: ledger
            .pinned
            .iter()
            .map(|p| Pin {
                lock_count: p.lock_count,
                free_before: p.before.get(),
                free_after: p.after.get(),
                largest: p.largest.get(),
                ticks: p.ticks.get(),
                block: an.block(&p.alloc),
            })
            .collect(),
    };

    // Warnings. (In a run that did not stop, the header's counters are those of
    // start: nothing to compare the records with.)
    let freed_unseen: Vec<Leak> = {
        let mut f: Vec<&AllocRecord> = ledger.freed_unseen.iter().collect();
        f.sort_by_key(|a| a.seq.get());
        f.into_iter()
            .enumerate()
            .map(|(i, a)| Leak {
                number: i + 1,
                block: an.block(a),
                contents: None,
            })
            .collect()
    };
    let running = flags.contains(HeaderFlags::RUNNING);
    let n_allocs = allocs_in_order(ledger).len();
    if !running && counters.leaks as usize != n_allocs {
        warnings.push(format!(
            "the header counts {} but the ledger holds {n_allocs} allocation record(s)",
            plural(counters.leaks as usize, "leak", "leaks"),
        ));
    }
    if !running && counters.overruns as usize != ledger.overruns.len() {
        warnings.push(format!(
            "the header counts {} but the ledger holds {} overrun record(s)",
            plural(counters.overruns as usize, "overrun", "overruns"),
            ledger.overruns.len()
        ));
    }
    if !running && counters.double_frees as usize != ledger.double_frees.len() {
        warnings.push(format!(
            "the header counts {} but the ledger holds {} double-free record(s)",
            plural(
                counters.double_frees as usize,
                "double free",
                "double frees"
            ),
            ledger.double_frees.len()
        ));
    }
    // memdbg records an unlock underflow only from its unlock patches: with
    // LOCK_CHECKS, and only while SysSetTrapAddress let it patch.
    if !ledger.unlock_underflows.is_empty()
        && (!h.option_flags().contains(record::Options::LOCK_CHECKS)
            || flags.contains(HeaderFlags::PATCHES_REFUSED))
    {
        warnings.push(format!(
            "the ledger holds {} but its header says no unlock was checked \
             (LOCK_CHECKS off, or the trap patches refused): the ledger is inconsistent",
            plural(
                ledger.unlock_underflows.len(),
                "unlock-underflow record",
                "unlock-underflow records"
            )
        ));
    }
    if !running && ledger.free_slots > 0 {
        warnings.push(format!(
            "{} free slot(s) in a ledger whose run stopped (ignored)",
            ledger.free_slots
        ));
    }
    match ledger.unwritten {
        0 => {}
        n if running => warnings.push(if n == 1 {
            "1 record never written (the app stopped while creating it): the allocation or \
             event it was to hold is missing"
                .to_string()
        } else {
            format!(
                "{n} records never written (the app stopped while creating them): the \
                 allocations or events they were to hold are missing"
            )
        }),
        n => warnings.push(format!(
            "{} of zero bytes in a ledger whose run stopped: the ledger is damaged ({} ignored)",
            plural(n, "record", "records"),
            if n == 1 { "record" } else { "records" }
        )),
    }
    if ledger.deleted > 0 {
        warnings.push(format!(
            "{} record(s) marked deleted by the Data Manager (ignored)",
            ledger.deleted
        ));
    }
    match opts.symbolizer {
        None if !ledger.allocs.is_empty()
            || !ledger.overruns.is_empty()
            || !ledger.underruns.is_empty()
            || !ledger.double_frees.is_empty() =>
        {
            warnings.push(
                "no symbols (--elf APP.elf): call stacks are shown as code 1 offsets".to_string(),
            );
        }
        Some(s) if header.code_size == 0 => warnings.push(format!(
            "the ledger does not record code 1's size: {} could not be checked against it",
            s.name()
        )),
        Some(s) if header.code_crc.is_none() => warnings.push(format!(
            "a MemDbgDB version {} ledger has no code 1 checksum: {} was checked against \
             code 1's size only",
            h.version,
            s.name()
        )),
        _ => {}
    }
    if let Some(s) = opts.symbolizer {
        for r in &ledger.segments {
            let n = r.resource.get();
            if s.segment(n).is_none() {
                warnings.push(format!(
                    "{} has no code {n} (palm-build c-app --segments links code N at N × \
                     0x{:X}): frames in it are shown as segment {n} + offset, without names",
                    s.name(),
                    crate::symbolize::SEGMENT_STRIDE
                ));
            }
        }
    }
    if let Some(s) = opts.symbolizer
        && let Some(missing) = s.missing()
        && (!ledger.allocs.is_empty()
            || !ledger.overruns.is_empty()
            || !ledger.underruns.is_empty()
            || !ledger.double_frees.is_empty())
    {
        warnings.push(missing);
    }
    alloc_warnings(ledger, running, &mut warnings);
    small_site_warnings(ledger, running, &mut warnings);
    if let Some(s) = opts.symbolizer {
        let mut seen: Vec<u32> = an.frames.cache.keys().copied().collect();
        seen.sort_unstable();
        let odd: Vec<u32> = seen
            .iter()
            .copied()
            .filter(|&o| s.is_return_address(o) == Some(false))
            .collect();
        if !odd.is_empty() {
            let examples: Vec<String> = odd.iter().take(3).map(|o| format!("0x{o:08X}")).collect();
            warnings.push(format!(
                "{} of {} code 1 frame addresses do not follow a call instruction in {} \
                 (e.g. {}): it may not be the build that wrote the ledger",
                odd.len(),
                seen.len(),
                s.name(),
                examples.join(", ")
            ));
        }
    }

    // Summary.
    let bytes: u64 = leaks.iter().map(|l| u64::from(l.block.size)).sum();
    let suppressed_leaks: usize = uses.iter().map(|u| u.leaks).sum();
    let suppressed_bytes: u64 = uses.iter().map(|u| u.bytes).sum();
    let errors = !overruns.is_empty()
        || !underruns.is_empty()
        || !double_frees.is_empty()
        || !interior_frees.is_empty()
        || !locked.is_empty()
        || !unlock_underflows.is_empty()
        || counters.overruns > 0
        || counters.double_frees > 0;
    let exit_status = u8::from(!leaks.is_empty() || errors);
    let mut line = if leaks.is_empty() {
        "SUMMARY: memdbg: no leaks".to_string()
    } else if running {
        // Not leaks yet: the blocks the app had when it last wrote the ledger.
        format!(
            "SUMMARY: memdbg: {bytes} byte(s) live in {} allocation(s) when the ledger was last \
             written (the run did not stop: not leaks)",
            leaks.len()
        )
    } else {
        format!(
            "SUMMARY: memdbg: {bytes} byte(s) leaked in {} allocation(s)",
            leaks.len()
        )
    };
    if !overruns.is_empty() {
        line.push_str(&format!(
            "; {}",
            plural(overruns.len(), "overrun", "overruns")
        ));
    }
    if !underruns.is_empty() {
        line.push_str(&format!(
            "; {}",
            plural(underruns.len(), "underrun", "underruns")
        ));
    }
    if !double_frees.is_empty() {
        line.push_str(&format!(
            "; {}",
            plural(double_frees.len(), "double free", "double frees")
        ));
    }
    if !interior_frees.is_empty() {
        line.push_str(&format!(
            "; {}",
            plural(interior_frees.len(), "interior free", "interior frees")
        ));
    }
    if !locked.is_empty() {
        line.push_str(&format!(
            "; {} locked at stop",
            plural(locked.len(), "handle", "handles")
        ));
    }
    if !unlock_underflows.is_empty() {
        line.push_str(&format!(
            "; {}",
            plural(
                unlock_underflows.len(),
                "unlock underflow",
                "unlock underflows"
            )
        ));
    }
    if !handed_off.is_empty() {
        line.push_str(&format!(
            "; {handed_off_bytes} byte(s) in {} allocation(s) handed off (not leaks)",
            handed_off.len()
        ));
    }
    if suppressed_leaks > 0 {
        line.push_str(&format!(
            "; {suppressed_bytes} byte(s) in {suppressed_leaks} allocation(s) suppressed"
        ));
    }
    if below_n > 0 {
        line.push_str(&format!(
            "; {below_bytes} byte(s) in {below_n} allocation(s) below --min-size {}",
            opts.min_size
        ));
    }
    if before_n > 0 {
        line.push_str(&format!(
            "; {before_bytes} byte(s) in {before_n} allocation(s) before generation {} \
             (--since {})",
            opts.since, opts.since
        ));
    }
    if !freed_unseen.is_empty() {
        let why = if flags.contains(HeaderFlags::PATCHES_REFUSED) {
            "patches refused"
        } else {
            "no free trap call"
        };
        line.push_str(&format!(
            "; {} freed unseen ({why})",
            plural(freed_unseen.len(), "block", "blocks")
        ));
    }
    if flags.contains(HeaderFlags::INCOMPLETE) {
        line.push_str("; INCOMPLETE ledger");
    }
    line.push('.');

    Report {
        schema: SCHEMA,
        source: ledger.source.clone(),
        symbols: opts.symbolizer.map(|s| s.name().to_string()),
        header,
        segments: ledger
            .segments
            .iter()
            .map(|r| SegmentInfo {
                resource: r.resource.get(),
                base: r.base.get(),
                size: r.size.get(),
                crc: r.crc.get(),
            })
            .collect(),
        counters,
        summary: Summary {
            leaks: leaks.len(),
            bytes,
            suppressed_leaks,
            suppressed_bytes,
            below_min_size_leaks: below_n,
            below_min_size_bytes: below_bytes,
            before_since_leaks: before_n,
            before_since_bytes: before_bytes,
            overruns: overruns.len(),
            underruns: underruns.len(),
            double_frees: double_frees.len(),
            interior_frees: interior_frees.len(),
            locked: locked.len(),
            unlock_underflows: unlock_underflows.len(),
            handed_off: handed_off.len(),
            handed_off_bytes,
            freed_unseen: freed_unseen.len(),
            exit_status,
            line,
        },
        leaks,
        handed_off,
        sites,
        checkpoints,
        since: opts.since,
        overruns,
        underruns,
        double_frees,
        interior_frees,
        locked,
        unlock_underflows,
        freed_unseen,
        heap,
        suppressions: uses,
        entry_function: opts
            .symbolizer
            .and_then(|s| s.entry_function())
            .map(str::to_string),
        launched_from: an.frames.launched_from,
        warnings,
        unwritten_records: ledger.unwritten,
    }
}

/// The small-allocation sites' consistency: two records of one site (the
/// same first allocation, every field of it: a record written twice, which
/// would be counted twice),
/// and, after a stop, the records' counts against the header's.
fn small_site_warnings(ledger: &Ledger, running: bool, warnings: &mut Vec<String>) {
    let sites = &ledger.small_sites;
    for (i, s) in sites.iter().enumerate() {
        if let Some(j) = sites[..i].iter().position(|o| o.first == s.first) {
            let site = if s.first.line.get() != 0 {
                format!(
                    "{}:{}",
                    String::from_utf8_lossy(s.first.file.bytes()),
                    s.first.line.get()
                )
            } else {
                format!("allocation #{}", s.first.seq.get())
            };
            warnings.push(format!(
                "small-allocation site records {} and {} are the same site ({site}, first \
                 allocation #{}): a record written twice; its {} allocation(s) are counted \
                 twice below",
                j + 1,
                i + 1,
                s.first.seq.get(),
                s.count.get()
            ));
        }
    }
    let c = &ledger.header.counters;
    let in_records: u64 = sites.iter().map(|s| u64::from(s.count.get())).sum();
    let expected = u64::from(c.small_allocs.get()).saturating_sub(c.small_unsited.get().into());
    if !running && !sites.is_empty() && in_records != expected {
        warnings.push(format!(
            "the header counts {} small allocation(s), {} of them from sites beyond the \
             per-site table, but the small-site records count {in_records}",
            c.small_allocs.get(),
            c.small_unsited.get()
        ));
    }
}

fn overrun(an: &mut Analyzer<'_>, number: usize, o: &OverrunRecord) -> Overrun {
    Overrun {
        number,
        when: match o.when.get() {
            detected::AT_FREE => "at free",
            detected::AT_RESIZE => "at resize",
            _ => "at stop",
        },
        ticks: o.ticks.get(),
        guard: o
            .guard
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(" "),
        found_by: an.frames.stack(&o.site),
        found_by_truncated: truncated(&o.site, o.version),
        block: an.block(&o.alloc),
    }
}

fn underrun(an: &mut Analyzer<'_>, number: usize, u: &UnderrunRecord) -> Underrun {
    let handle = u.alloc.alloc_flags().contains(AllocFlags::HANDLE);
    Underrun {
        number,
        when: match u.when.get() {
            detected::AT_FREE => "at free",
            detected::AT_RESIZE => "at resize",
            _ => "at stop",
        },
        ticks: u.ticks.get(),
        header: u
            .header
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(" "),
        expected: if handle {
            "?? + hOffset back to the handle"
        } else {
            "F? 00 00 00"
        },
        found_by: an.frames.stack(&u.site),
        found_by_truncated: truncated(&u.site, u.version),
        block: an.block(&u.alloc),
    }
}

fn double_free(an: &mut Analyzer<'_>, number: usize, d: &DoubleFreeRecord) -> DoubleFree {
    DoubleFree {
        number,
        address: d.address.get(),
        first_free: FreeSite {
            ticks: (d.version < FREE_AFTER_SEQ_FORMAT_VERSION).then(|| d.first_after_seq.get()),
            after_allocation: (d.version >= FREE_AFTER_SEQ_FORMAT_VERSION)
                .then(|| d.first_after_seq.get()),
            stack: an.frames.stack(&d.first),
            stack_truncated: truncated(&d.first, d.version),
        },
        second_free: FreeSite {
            ticks: Some(d.second_ticks.get()),
            after_allocation: None,
            stack: an.frames.stack(&d.second),
            stack_truncated: truncated(&d.second, d.version),
        },
        block: an.block(&d.alloc),
    }
}

fn interior_free(an: &mut Analyzer<'_>, number: usize, f: &InteriorFreeRecord) -> InteriorFree {
    InteriorFree {
        number,
        address: f.address.get(),
        offset: f.offset_bytes(),
        free: FreeSite {
            ticks: Some(f.ticks.get()),
            after_allocation: None,
            stack: an.frames.stack(&f.site),
            stack_truncated: truncated(&f.site, f.version),
        },
        block: an.block(&f.alloc),
    }
}

fn unlock_underflow(
    an: &mut Analyzer<'_>,
    number: usize,
    u: &UnlockUnderflowRecord,
) -> UnlockUnderflow {
    let stack = an.frames.stack(&u.site);
    UnlockUnderflow {
        number,
        handle: u.alloc.address.get(),
        trap: if u.via == UnlockUnderflowRecord::VIA_POINTER {
            "MemPtrUnlock"
        } else {
            "MemHandleUnlock"
        },
        address: u.address.get(),
        site: call_site(&stack),
        unlock: FreeSite {
            ticks: Some(u.ticks.get()),
            after_allocation: None,
            stack,
            stack_truncated: truncated(&u.site, u.version),
        },
        block: an.block(&u.alloc),
    }
}

/// A call's site in words, from its stack: the innermost symbol with a file
/// and line outside the runtime ([`is_runtime`]) and palm-sys's trap glue
/// (`m68k_palmos_sys::`), as `file:line`; else as [`site_name`] names a
/// block's.
fn call_site(stack: &[StackFrame]) -> String {
    stack
        .iter()
        .flat_map(|f| f.symbols.iter())
        .find(|s| !is_runtime(&s.function) && !s.function.starts_with("m68k_palmos_sys::"))
        .and_then(|s| match (&s.file, s.line) {
            (Some(f), Some(l)) => Some(format!("{f}:{l}")),
            _ => None,
        })
        .unwrap_or_else(|| site_name(None, None, stack))
}

/// Analyzes `ledger` and writes the report to `out` in `opts.format`;
/// returns the summary (its `exit_status` is the `memdbg report` exit status).
///
/// # Errors
/// Writing to `out` failed.
pub fn print(out: &mut dyn Write, ledger: &Ledger, opts: &Options<'_>) -> io::Result<Summary> {
    let report = analyze(ledger, opts);
    write(out, &report, opts.format)?;
    Ok(report.summary)
}

/// Writes an analyzed report as text or JSON.
///
/// # Errors
/// Writing to `out` failed.
pub fn write(out: &mut dyn Write, report: &Report, format: Format) -> io::Result<()> {
    match format {
        Format::Text => crate::text::write_report(out, report),
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, report)?;
            writeln!(out)
        }
    }
}
