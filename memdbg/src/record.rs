//! The MemDbgDB record format: the one definition shared by the 68k library (which
//! writes the ledger) and the host tools (which read it). No Palm calls; compiled for
//! the 68k and for the host.
//!
//! # The database
//! - Name [`DB_NAME`] (`"MemDbgDB"`), creator [`DB_CREATOR`] (`'MDbg'`), type
//!   [`DB_TYPE`] (`'LEAK'`), a record database (not a resource database) in the
//!   storage heap of card 0, deleted and created again by every `memdbg::start`
//!   (only if it is a ledger: a database of that name with another creator or type
//!   is left alone, and `start` fails).
//! - Record 0 is the [`Header`]. Every other record starts with a one-byte
//!   [`kind`] and a one-byte format version ([`FORMAT_VERSION`]), then the fields
//!   of its kind. Sizes are exact: a record of a known kind and version has exactly the
//!   size of its struct ([`HEADER_SIZE`], [`ALLOC_RECORD_SIZE`], …; a version 1
//!   header has [`HEADER_SIZE_V1`]).
//! - After a clean `memdbg::stop` the database holds: the header, one
//!   [`kind::SEGMENT`] record per code resource 2…n the app had locked at `start`
//!   (apps with several code resources, as prc-tools builds them), one allocation record
//!   per leak (a tracked allocation never freed; kinds [`kind::POINTER`],
//!   [`kind::HANDLE`], [`kind::CHUNK`], [`kind::RUST`]) and per block handed off
//!   to another owner (the same kinds, with [`AllocFlags::HANDED_OFF`]: not a
//!   leak), and event records
//!   ([`kind::OVERRUN`], [`kind::UNDERRUN`], [`kind::DOUBLE_FREE`], [`kind::INTERIOR_FREE`],
//!   [`kind::SMALL_SITE`], [`kind::LOW_HEAP`], [`kind::CHECKPOINT`]) in the order they happened; with [`Options::CONTENTS`], one
//!   [`kind::CONTENTS`] record per leak (its first bytes), written at stop; one
//!   [`kind::LOCKED`] record per tracked handle still locked at stop; one
//!   [`kind::UNLOCK_UNDERFLOW`] record per refused unlock of a tracked handle that was not
//!   locked, in the order they happened. Events are separate records (not
//!   header sections) so that their number is not bounded by the header's size and a
//!   crash loses none that were written.
//! - While the app runs (or after it crashed before `stop`), the database also holds
//!   reusable slots of kind [`kind::FREE_SLOT`] (a tracked block that was freed) and
//!   the header has [`HeaderFlags::RUNNING`]; readers skip free slots.
//!
//! # Encoding
//! Everything is big-endian (as the 68k stores it). Every struct here is `#[repr(C)]`
//! of byte arrays only ([`U16Be`], [`U32Be`], `u8`, `[u8; N]`), alignment 2 at most and
//! without padding (checked by `static_assertions` on sizes and offsets), so its bytes
//! *are* the record on every host, whatever the host's byte order: [`AsBytes`] views a
//! struct as bytes and [`AsBytes::read_from`] copies bytes into one. On the 68k a
//! [`U32Be`] field is a single `move.l` (2-byte alignment is enough on the 68000).
//!
//! # Addresses and offsets
//! 68k addresses (pointers, handles, code 1's base) are stored as the 68k saw them.
//! Call-stack frames are return addresses stored as **offsets from the start of code
//! resource 1** when they fall inside it (= ELF addresses, as palm-build links code 1
//! at 0), else as raw 68k addresses; [`Stack::raw_mask`] tells which. The header
//! records code 1's base, size and CRC-32 ([`crc32`], computed once by `start`), so
//! that a host tool can tell whether an ELF is the build that wrote the ledger. A raw
//! frame inside one of the [`SegmentRecord`]s' ranges is in that code resource
//! (`segment N + offset`, [`SegmentRecord::offset_of`]): the code resources 2…n stay
//! locked where the app's startup code put them while PilotMain runs, so one base per
//! run is enough.
//!
//! # Versioning
//! [`FORMAT_VERSION`] changes whenever a layout or a meaning here changes. Readers
//! reject records whose version byte they do not know.
//!
//! | version | change |
//! |---|---|
//! | 1 | first version: header of 152 bytes ([`HEADER_SIZE_V1`]) |
//! | 2 | the header grows to 156 bytes ([`HEADER_SIZE`]): code 1's CRC-32 at offset 152 ([`Header::code_crc`]); every other record is as in version 1 |
//! | 3 | a new record kind, [`kind::SEGMENT`] ([`SegmentRecord`]: code resource N ≥ 2's base, size and CRC-32); allocation flag [`AllocFlags::FREED_UNSEEN`] (an allocation record at stop that is not a leak: its block was freed where memdbg could not see it); header flags [`HeaderFlags::DOCUMENTED_CALLS`], [`HeaderFlags::NO_DBG_MESSAGE`], [`HeaderFlags::NO_ALERT_DIALOG`]; option [`Options::ERR_DISPLAY_ALERTS`]; every other record is as in version 2 |
//! | 4 | a [`Stack`]'s raw-mask bits 6 and 7 say why a call stack was cut ([`Stack::TRUNCATED_DEPTH`], [`Stack::TRUNCATED_CHAIN`]); allocation flags [`AllocFlags::OTHER_OWNER`] and [`AllocFlags::HANDED_OFF`] (nor is this one a leak: its block was handed off); two new record kinds, [`kind::INTERIOR_FREE`] ([`InteriorFreeRecord`]) and [`kind::CONTENTS`] ([`ContentsRecord`]: a leak's first bytes, written at stop, with option [`Options::CONTENTS`]); every other layout is as in version 3 |
//! | 5 | an [`AllocRecord`] grows to 84 bytes ([`ALLOC_RECORD_SIZE`]; 82 before, [`ALLOC_RECORD_SIZE_V4`]): byte 82 is the generation it was made in ([`AllocRecord::generation`], `memdbg::checkpoint`), byte 83 reserved; every record that ends in one grows with it (overrun 122, double free 152, interior free 126, small-allocation site 96, low heap 100 bytes); four new record kinds, [`kind::CHECKPOINT`] ([`CheckpointRecord`]: a checkpoint's generation, ticks, live blocks and bytes, counters) [`kind::PINNED`] ([`PinnedRecord`]: a tracked non-movable block or locked handle that split the dynamic heap's free space at its largest-free-chunk low-water mark, with the free bytes on each side, 104 bytes) [`kind::UNDERRUN`] ([`UnderrunRecord`]: a damaged chunk header before a block, the same layout as an [`OverrunRecord`] with the header's last 4 bytes as found, 122 bytes) [`kind::LOCKED`] ([`LockedRecord`]: a tracked handle still locked at stop, with its lock count, 92 bytes) and [`kind::UNLOCK_UNDERFLOW`] ([`UnlockUnderflowRecord`]: `MemHandleUnlock`/`MemPtrUnlock` of a tracked handle whose lock count was already 0, refused, with the unlock's site, 122 bytes); option [`Options::LOCK_CHECKS`]; header flag [`HeaderFlags::CHECKPOINTS_REFUSED`]; a [`DoubleFreeRecord`]'s bytes 8 to 11 say when the first free was as an allocation sequence number ([`DoubleFreeRecord::first_after_seq`]; its ticks before); every other layout is as in version 4 |
//!
//! [`Header::decode`] and [`Record::decode`] read all five versions (a version 1
//! header decodes with [`Header::code_crc`] 0 and [`Header::code_checksum`] `None`;
//! a ledger before version 3 has no segment records; before version 4 no stack
//! says it was cut, [`Stack::truncation`] is `None`, and there are no interior-free or
//! contents records; before version 5 an allocation record, and every record that
//! ends in one, is 2 bytes shorter and decodes as made in generation 0, and there
//! are no checkpoint records). A new kind changes the version so that a reader of an older
//! version refuses the whole ledger as newer than it knows ("unknown record format
//! version") rather than failing on the first record of the new kind. Before version 5
//! there are no underrun records.

use core::mem::{offset_of, size_of};
use static_assertions::const_assert_eq;

/// Version of this format, stored in every record (byte 1).
pub const FORMAT_VERSION: u8 = 5;
/// The oldest version readers still accept: 1 (no code 1 checksum in the header;
/// every other record has the same layout as in versions 2 to 4; before version 5
/// allocation records lack their last 2 bytes, [`GENERATION_FORMAT_VERSION`]).
pub const OLDEST_FORMAT_VERSION: u8 = 1;

/// The ledger database's name (`DmFindDatabase`, card 0). 8 bytes, well under
/// Palm's 31-character limit (`dmDBNameLength` = 32 with the NUL, DataMgr.h;
/// PALM_FACTS §1.1).
pub const DB_NAME: &str = "MemDbgDB";
/// [`DB_NAME`] NUL-terminated, as the Data Manager wants it.
pub const DB_NAME_C: &core::ffi::CStr = c"MemDbgDB";
/// The ledger database's creator: `'MDbg'`. Not all lowercase (Palm reserves
/// all-lowercase codes). Also the Feature Manager creator under which the running
/// detector keeps its state (feature number [`FEATURE_STATE`]).
pub const DB_CREATOR: u32 = u32::from_be_bytes(*b"MDbg");
/// The ledger database's type: `'LEAK'`.
pub const DB_TYPE: u32 = u32::from_be_bytes(*b"LEAK");
/// Feature number (creator [`DB_CREATOR`]) holding the address of the detector's
/// state chunk while it runs (`FtrGet`/`FtrSet`, FeatureMgr.h).
pub const FEATURE_STATE: u16 = 0;
/// The header's magic, bytes 4..8 of record 0: `'MDbg'`.
pub const HEADER_MAGIC: u32 = DB_CREATOR;

/// Bytes of the file-name field: up to 31 bytes of the path and at least one NUL,
/// so the field is always a C string (it is passed to `ErrDisplayFileLineMsg`).
pub const FILE_NAME_LEN: usize = 32;
/// Return addresses kept per call stack.
pub const STACK_FRAMES: usize = 6;
/// Guard bytes written after each guarded block.
pub const GUARD_LEN: usize = 4;
/// The guard pattern: 0xFD, the value debug heaps use for "no man's land"
/// bytes around blocks. A guard is intact when all [`GUARD_LEN`] bytes hold it.
pub const GUARD_BYTE: u8 = 0xFD;
/// Blocks of 1 to this many bytes count as small allocations (heap statistics).
pub const SMALL_ALLOC_MAX: u32 = 12;
/// Byte written over new blocks with [`Options::FILL_NEW`] (POSE's "new" fill
/// value, PHEM `EmPatchModuleMemMgr.cpp` FILL_BLOCKS; STYLE.md §4).
pub const FILL_NEW_BYTE: u8 = 0x31;
/// Byte written over the grown part of a block by a resize with
/// [`Options::FILL_NEW`] (POSE's "resize" fill value).
pub const FILL_RESIZE_BYTE: u8 = 0x33;
/// Byte written over a tracked block just before it is freed, with
/// [`Options::FILL_FREED`] (POSE's "free" fill value).
pub const FILL_FREED_BYTE: u8 = 0x35;
/// "Never sampled" value of the low-water fields of the header.
pub const NOT_SAMPLED: u32 = u32::MAX;

/// CRC-32 steps of one nibble (IEEE 802.3 polynomial, reflected: 0xEDB88320). A
/// `static`, so that it stays one 64-byte table in code 1's read-only data.
static CRC32_NIBBLES: [u32; 16] = {
    let mut t = [0u32; 16];
    let mut i = 0;
    while i < 16 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 4 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// The CRC-32 of `bytes` as zlib's `crc32` computes it (IEEE 802.3, reflected,
/// initial and final value `!0`; `crc32(b"123456789")` = 0xCBF43926): the header's
/// code 1 checksum ([`Header::code_crc`]). Half a byte per table step, so the table
/// is 64 bytes: `memdbg::start` runs this function once over code 1 (about 22
/// 68k instructions per byte: some 260,000 for the starter app's 11.7 KB code 1,
/// about 0.1 s on a 16 MHz device).
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        crc = (crc >> 4) ^ CRC32_NIBBLES[(crc & 0xF) as usize];
        crc = (crc >> 4) ^ CRC32_NIBBLES[(crc & 0xF) as usize];
    }
    !crc
}

/// Record kinds: byte 0 of every record.
pub mod kind {
    /// A reusable slot: a tracked block that was freed. Present only while the app
    /// runs or after a crash; readers skip it.
    pub const FREE_SLOT: u8 = 0x00;
    /// The [`Header`](super::Header) (record 0).
    pub const HEADER: u8 = 0x01;
    /// A code resource N ≥ 2 of the app ([`SegmentRecord`](super::SegmentRecord));
    /// format version 3 on.
    pub const SEGMENT: u8 = 0x02;
    /// A live (at stop: leaked) non-movable chunk from `MemPtrNew`
    /// ([`AllocRecord`](super::AllocRecord)).
    pub const POINTER: u8 = 0x10;
    /// A live movable chunk from `MemHandleNew`; the address is the handle.
    pub const HANDLE: u8 = 0x11;
    /// A live chunk from `MemChunkNew`; [`AllocFlags::HANDLE`](super::AllocFlags)
    /// tells whether the address is a handle or a pointer.
    pub const CHUNK: u8 = 0x12;
    /// A live Rust `alloc` block (`Box`, `Vec`) from the detector's `GlobalAlloc`;
    /// it has a call stack and no file/line.
    pub const RUST: u8 = 0x13;
    /// A damaged guard ([`OverrunRecord`](super::OverrunRecord)).
    pub const OVERRUN: u8 = 0x20;
    /// A block freed twice ([`DoubleFreeRecord`](super::DoubleFreeRecord)).
    pub const DOUBLE_FREE: u8 = 0x21;
    /// Small-allocation count of one call site
    /// ([`SmallSiteRecord`](super::SmallSiteRecord)).
    pub const SMALL_SITE: u8 = 0x22;
    /// The dynamic heap's largest free chunk fell below the warning threshold
    /// ([`LowHeapRecord`](super::LowHeapRecord)).
    pub const LOW_HEAP: u8 = 0x23;
    /// A free of an address inside a tracked block, not its start
    /// ([`InteriorFreeRecord`](super::InteriorFreeRecord)); format version 4 on.
    pub const INTERIOR_FREE: u8 = 0x24;
    /// A leak's first bytes, copied at stop ([`ContentsRecord`](super::ContentsRecord));
    /// format version 4 on.
    pub const CONTENTS: u8 = 0x25;
    /// A checkpoint: the start of a new generation
    /// ([`CheckpointRecord`](super::CheckpointRecord)); format version 5 on.
    pub const CHECKPOINT: u8 = 0x26;
    /// A tracked block that pinned the dynamic heap: it split the free space at
    /// a low-water mark of the largest free chunk
    /// ([`PinnedRecord`](super::PinnedRecord)); format version 5 on.
    pub const PINNED: u8 = 0x29;
    /// A damaged chunk header before a block
    /// ([`UnderrunRecord`](super::UnderrunRecord)); format version 5 on.
    pub const UNDERRUN: u8 = 0x2A;
    /// A tracked handle still locked at stop, with its lock count
    /// ([`LockedRecord`](super::LockedRecord)); format version 5 on.
    pub const LOCKED: u8 = 0x27;
    /// `MemHandleUnlock`/`MemPtrUnlock` of a tracked handle whose lock count
    /// was already 0, not passed to the OS
    /// ([`UnlockUnderflowRecord`](super::UnlockUnderflowRecord)); format
    /// version 5 on.
    pub const UNLOCK_UNDERFLOW: u8 = 0x28;

    /// Whether `k` is one of the four allocation kinds.
    pub const fn is_alloc(k: u8) -> bool {
        matches!(k, POINTER | HANDLE | CHUNK | RUST)
    }

    /// The kinds [`name`] knows, in [`NAMES`]' order.
    const NAMED: [u8; 18] = [
        FREE_SLOT,
        HEADER,
        SEGMENT,
        POINTER,
        HANDLE,
        CHUNK,
        RUST,
        OVERRUN,
        UNDERRUN,
        DOUBLE_FREE,
        SMALL_SITE,
        LOW_HEAP,
        INTERIOR_FREE,
        CONTENTS,
        CHECKPOINT,
        PINNED,
        LOCKED,
        UNLOCK_UNDERFLOW,
    ];
    /// Their names, then the unknown kind's.
    const NAMES: [&str; 19] = [
        "free slot",
        "header",
        "segment",
        "pointer",
        "handle",
        "chunk",
        "Rust alloc",
        "overrun",
        "underrun",
        "double free",
        "small-allocation site",
        "low heap",
        "interior free",
        "contents",
        "checkpoint",
        "pinned",
        "locked",
        "unlock underflow",
        "unknown",
    ];
    /// The bytes of all [`NAMES`], one after the other.
    const NAME_BYTES_LEN: usize = {
        let mut n = 0;
        let mut i = 0;
        while i < NAMES.len() {
            n += NAMES[i].len();
            i += 1;
        }
        n
    };
    /// [`NAMES`] concatenated: a byte array (no pointers), so that code 1
    /// needs no absolute relocation for it (a `match` returning a `&str` per
    /// kind becomes a table of string addresses once the kinds are dense
    /// enough, which the 68k image cannot hold, TOOLCHAIN.md).
    static NAME_BYTES: [u8; NAME_BYTES_LEN] = {
        let mut out = [0; NAME_BYTES_LEN];
        let (mut i, mut at) = (0, 0);
        while i < NAMES.len() {
            let b = NAMES[i].as_bytes();
            let mut j = 0;
            while j < b.len() {
                out[at] = b[j];
                at += 1;
                j += 1;
            }
            i += 1;
        }
        out
    };
    /// Where each of [`NAMES`] is in [`NAME_BYTES`] (start, length): integers
    /// only.
    static NAME_AT: [(u8, u8); 19] = {
        let mut out = [(0, 0); 19];
        let (mut i, mut at) = (0, 0);
        while i < NAMES.len() {
            out[i] = (at as u8, NAMES[i].len() as u8);
            at += NAMES[i].len();
            i += 1;
        }
        out
    };
    const _: () = assert!(NAME_BYTES_LEN < 256 && NAMED.len() + 1 == NAMES.len());

    /// A short lowercase name for reports ("pointer", "handle", "chunk", "Rust alloc",
    /// "overrun", "underrun", "double free", "small-allocation site", "low heap",
    /// "interior free", "header", "segment", "contents", "checkpoint", "pinned",
    /// "locked", "unlock underflow", "free slot"), or "unknown".
    pub fn name(k: u8) -> &'static str {
        let mut i = 0;
        while i < NAMED.len() && NAMED[i] != k {
            i += 1;
        }
        let (at, len) = NAME_AT[i];
        let (at, len) = (usize::from(at), usize::from(len));
        // SAFETY: every name is ASCII, and its bytes are `NAME_BYTES[at..at +
        // len]` (built above from the same list).
        unsafe { core::str::from_utf8_unchecked(&NAME_BYTES[at..at + len]) }
    }
}

/// A big-endian `u16` stored as 2 bytes, 2-byte aligned.
#[repr(C, align(2))]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct U16Be(pub [u8; 2]);

impl U16Be {
    /// `v` in big-endian order.
    #[inline(always)]
    pub const fn new(v: u16) -> Self {
        U16Be(v.to_be_bytes())
    }
    /// The value.
    #[inline(always)]
    pub const fn get(self) -> u16 {
        u16::from_be_bytes(self.0)
    }
    /// Stores `v`.
    #[inline(always)]
    pub fn set(&mut self, v: u16) {
        self.0 = v.to_be_bytes();
    }
}

/// A big-endian `u32` stored as 4 bytes, 2-byte aligned (one `move.l` on the 68000).
#[repr(C, align(2))]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct U32Be(pub [u8; 4]);

impl U32Be {
    /// `v` in big-endian order.
    #[inline(always)]
    pub const fn new(v: u32) -> Self {
        U32Be(v.to_be_bytes())
    }
    /// The value.
    #[inline(always)]
    pub const fn get(self) -> u32 {
        u32::from_be_bytes(self.0)
    }
    /// Stores `v`.
    #[inline(always)]
    pub fn set(&mut self, v: u32) {
        self.0 = v.to_be_bytes();
    }
}

/// Why bytes could not be decoded as a record. `offset` is relative to the start of
/// the record.
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct DecodeError {
    /// Byte offset inside the record of the field that is wrong (0 for the kind,
    /// 1 for the version, the record's length for a truncated record).
    pub offset: usize,
    /// What was wrong, e.g. "truncated record", "unknown record kind".
    pub what: &'static str,
}

/// Host only: the 68k build has no `core::fmt` (its vtables need relocations).
#[cfg(not(target_arch = "m68k"))]
impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} at record offset {}", self.what, self.offset)
    }
}

/// Plain-byte record structs: viewed as their exact bytes, and read from bytes.
///
/// # Safety
/// Implementors are `#[repr(C)]`, contain only `u8`, byte arrays and the
/// byte-array types of this module (so every bit pattern is valid), and have no
/// padding (asserted with `static_assertions` next to each struct).
pub unsafe trait AsBytes: Copy + Sized {
    /// Size in bytes (equals `size_of::<Self>()`).
    const SIZE: usize = size_of::<Self>();

    /// The struct's bytes: exactly the record as stored.
    #[inline(always)]
    fn as_bytes(&self) -> &[u8] {
        // SAFETY: `Self` is plain bytes without padding (trait contract), so all
        // `SIZE` bytes are initialised; the slice borrows `self`.
        unsafe { core::slice::from_raw_parts((self as *const Self).cast::<u8>(), Self::SIZE) }
    }

    /// Copies the first `SIZE` bytes of `bytes` into a struct.
    ///
    /// # Errors
    /// `bytes` is shorter than `SIZE` ("truncated record", offset = its length).
    fn read_from(bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.len() < Self::SIZE {
            return Err(DecodeError {
                offset: bytes.len(),
                what: "truncated record",
            });
        }
        // SAFETY: at least SIZE readable bytes; every bit pattern is a valid `Self`
        // (trait contract); read_unaligned copes with any alignment of `bytes`.
        Ok(unsafe { bytes.as_ptr().cast::<Self>().read_unaligned() })
    }

    /// A struct whose first `min(bytes.len(), SIZE)` bytes are `bytes`' and the
    /// rest zero (a record of an older, shorter layout).
    fn read_prefix(bytes: &[u8]) -> Self
    where
        Self: Default,
    {
        let mut r = Self::default();
        let n = bytes.len().min(Self::SIZE);
        // Through black_box: LLVM's m68k backend drops a variable offset into
        // a stack value (TOOLCHAIN.md bug 2), and the device viewer decodes
        // records on the 68k.
        let to = core::hint::black_box((&mut r as *mut Self).cast::<u8>());
        // SAFETY: n bytes readable from `bytes` and writable at `to`, `r`'s
        // bytes (plain bytes, trait contract).
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), to, n) };
        r
    }
}

/// A record whose layout ends in an [`AllocRecord`] (or is one), decoded by its
/// version byte (`bytes[1]`, already checked): from [`GENERATION_FORMAT_VERSION`]
/// on exactly `T::SIZE` bytes, before it 2 fewer (no generation and reserved
/// byte: both read as 0).
///
/// # Errors
/// The wrong length for the version.
fn ending_in_alloc<T: AsBytes + Default>(bytes: &[u8]) -> Result<T, DecodeError> {
    let old = bytes[1] < GENERATION_FORMAT_VERSION;
    exact(bytes, if old { T::SIZE - 2 } else { T::SIZE })?;
    Ok(T::read_prefix(bytes))
}

/// Defines a set of flags: the `bitflags` crate's type on the host (tools use its
/// whole API, e.g. `iter_names`), and on the 68k a minimal newtype with the same
/// constants and the few methods the detector uses. `bitflags` always implements
/// `Debug`, `Display` and parsing for its internal type; in a 68k staticlib those are
/// kept as public roots and pull in `core::fmt`, whose vtables need relocations a
/// Palm code resource cannot have (TOOLCHAIN.md).
macro_rules! flags {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident: $t:ty {
            $( $(#[doc = $fdoc:literal])* const $f:ident = $v:expr; )*
        }
    ) => {
        #[cfg(not(target_arch = "m68k"))]
        bitflags::bitflags! {
            $(#[doc = $doc])*
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            pub struct $name: $t {
                $( $(#[doc = $fdoc])* const $f = $v; )*
            }
        }

        $(#[doc = $doc])*
        #[cfg(target_arch = "m68k")]
        #[derive(Clone, Copy, PartialEq, Eq)]
        #[repr(transparent)]
        pub struct $name($t);

        #[cfg(target_arch = "m68k")]
        impl $name {
            $( $(#[doc = $fdoc])* pub const $f: Self = Self($v); )*

            /// No flags.
            pub const fn empty() -> Self {
                Self(0)
            }
            /// The raw bits.
            pub const fn bits(&self) -> $t {
                self.0
            }
            /// These bits, unknown ones kept.
            pub const fn from_bits_retain(bits: $t) -> Self {
                Self(bits)
            }
            /// These bits, unknown ones dropped.
            pub const fn from_bits_truncate(bits: $t) -> Self {
                Self(bits & (0 $(| $v)*))
            }
            /// Whether every flag of `other` is set.
            pub const fn contains(&self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }
            /// Whether no flag is set.
            pub const fn is_empty(&self) -> bool {
                self.0 == 0
            }
            /// The flags of both.
            pub const fn union(self, other: Self) -> Self {
                Self(self.0 | other.0)
            }
            /// The flags of `self` not in `other`.
            pub const fn difference(self, other: Self) -> Self {
                Self(self.0 & !other.0)
            }
        }

        impl $name {
            /// The name of flag `bit` (one bit, as its constant is named:
            /// `"INCOMPLETE"`), or `None` for a bit this version does not
            /// define. For readers that show flags by name on both targets
            /// (the device viewer has no `iter_names`).
            pub const fn flag_name(bit: $t) -> Option<&'static str> {
                $( if bit == $v { return Some(stringify!($f)); } )*
                None
            }
        }

        #[cfg(target_arch = "m68k")]
        impl core::ops::BitOr for $name {
            type Output = Self;
            fn bitor(self, other: Self) -> Self {
                Self(self.0 | other.0)
            }
        }

        #[cfg(target_arch = "m68k")]
        impl core::ops::BitOrAssign for $name {
            fn bitor_assign(&mut self, other: Self) {
                self.0 |= other.0;
            }
        }
    };
}

flags! {
    /// Detector options (header bytes 12..16; `memdbg::Settings::options`).
    pub struct Options: u32 {
        /// Write [`GUARD_LEN`] guard bytes ([`GUARD_BYTE`]) after each block in the
        /// dynamic heap and check them at free, resize and stop. The guard bytes are
        /// hidden: `MemPtrSize`, `MemHandleSize`, `MemPtrResize` and
        /// `MemHandleResize` are patched too (unless [`HeaderFlags::PATCHES_REFUSED`]),
        /// so a tracked block's size is the size asked for and a resize by anyone
        /// (the app through the trap, the Field Manager) moves the guard and updates
        /// the record. So with this option and without `PATCHES_REFUSED`, the size
        /// and resize traps were patched.
        const GUARDS = 0x0001;
        /// Record up to [`STACK_FRAMES`] return addresses per allocation (walking
        /// the A6 frame chain), also for file/line wrappers, and per free site.
        const CALL_STACKS = 0x0002;
        /// Sample `MemHeapFreeBytes` after each wrapper or `GlobalAlloc` allocation
        /// (low-water marks; also after an untracked or failed one) and check the
        /// largest-free-chunk warning after each tracked one; count small
        /// allocations per site.
        const HEAP_STATS = 0x0004;
        /// At stop, show up to `max_alerts` alerts, one per leak, naming the
        /// allocation's file and line (see [`Options::ERR_DISPLAY_ALERTS`]).
        const ALERTS_AT_EXIT = 0x0008;
        /// `DbgMessage` lines: one per leak at stop, the summary, the low-heap
        /// warning (CloudpilotEmu prints them; a device sends them to a
        /// connected debugger). Never where the trap table says the trap is
        /// missing or cannot tell ([`HeaderFlags::NO_DBG_MESSAGE`]).
        const DBG_MESSAGES = 0x0010;
        /// Fill new blocks with [`FILL_NEW_BYTE`] (and grown parts of resized
        /// blocks with [`FILL_RESIZE_BYTE`]).
        const FILL_NEW = 0x0020;
        /// Fill tracked blocks with [`FILL_FREED_BYTE`] just before they are freed.
        const FILL_FREED = 0x0040;
        /// Patch `MemChunkFree` and `MemHandleFree` with `SysSetTrapAddress` so frees
        /// done anywhere (the OS's too) are matched. Without it (or when the OS
        /// refuses), only frees through the detector's own free functions are seen.
        /// With this option and without [`HeaderFlags::PATCHES_REFUSED`], the free
        /// traps were patched.
        const PATCH_FREES = 0x0080;
        /// Report overruns found at free/resize immediately with an alert (they
        /// are always recorded).
        const ALERT_OVERRUNS = 0x0100;
        /// Report double frees immediately with an alert (they are always
        /// recorded).
        const ALERT_DOUBLE_FREES = 0x0200;
        /// Show memdbg's alerts with `ErrDisplayFileLineMsg` (the "Fatal Alert"
        /// dialog, `ErrorMgr.h`) instead of the ROM's generic error alert: for
        /// debug-ROM users who want its Debug button. A release ROM offers only
        /// Reset there, and PumpkinOS ends the app (PALM_FACTS §4.3, §7.3); the
        /// ledger's header is written before every alert, so an alert that ends
        /// the app loses nothing. Without it an alert is `FrmCustomAlert` with
        /// ErrOKAlert (10021, Palm OS 3.2 and later), which returns.
        const ERR_DISPLAY_ALERTS = 0x0400;
        /// At stop, copy each leak's first bytes (up to [`CONTENTS_LEN`]) into a
        /// [`ContentsRecord`] after its allocation record, as POSE's leak dump
        /// shows them. Off: no contents records at all.
        const CONTENTS = 0x0800;
        /// Patch `MemHandleUnlock` and `MemPtrUnlock` while running (format
        /// version 5 on): an unlock of a tracked handle whose lock count, as the
        /// OS keeps it, is already 0 is not passed to the OS (a debug ROM stops
        /// there; a release ROM's handling is UNVERIFIED) and is recorded as an
        /// [`UnlockUnderflowRecord`] with the unlock's site; it returns
        /// `memErrChunkNotLocked`. Every other unlock (a locked tracked handle, a
        /// handle or pointer memdbg does not track) goes to the OS unchanged.
        /// With this option and without [`HeaderFlags::PATCHES_REFUSED`], the
        /// unlock traps were patched.
        const LOCK_CHECKS = 0x1000;
    }
}

flags! {
    /// Run-level flags of the [`Header`] (bytes 8..12).
    pub struct HeaderFlags: u32 {
        /// Some allocations were not recorded (the index was full or the storage heap
        /// had no room for a record): the ledger may miss leaks. See
        /// [`Counters::untracked`].
        const INCOMPLETE = 0x0001;
        /// `SysSetTrapAddress` refused a trap patch (Palm OS 5/PACE, PumpkinOS), so
        /// none was installed: only frees through the detector's own functions were
        /// seen, so blocks freed elsewhere (by the OS, or with a plain `MemPtrFree`)
        /// appear as leaks; with [`Options::GUARDS`], `MemPtrSize`/`MemHandleSize`
        /// included the guard bytes and resizes not made through the detector's
        /// wrappers left the guard behind, so an overrun may be false.
        const PATCHES_REFUSED = 0x0002;
        /// `stop` has not run (yet): the app is running, crashed or was reset. The
        /// allocation records are the blocks live at that moment; counters in the
        /// header are those of `start`.
        const RUNNING = 0x0004;
        /// At stop, a patched trap no longer held the detector's entry (someone
        /// patched it after us, and may chain to our entry): that dispatch-table
        /// entry was left as it is. Its patch must be removed before `stop`, which
        /// frees the trampoline such a patch would chain to.
        const TRAPS_DISTURBED = 0x0008;
        /// Code 1 could not be located: every frame is a raw 68k address.
        const CODE_BASE_UNKNOWN = 0x0010;
        /// The dynamic heap's largest free chunk fell below the warning threshold at
        /// least once (a [`LowHeapRecord`] marks the first time).
        const LOW_HEAP = 0x0020;
        /// The probe at start found that the OS does not keep the Palm OS 3.x
        /// internals memdbg would otherwise read (a handle's master pointer
        /// holds its chunk's address, as `MemHandleLock` gives it; a chunk's
        /// 8-byte header before it, PALM_FACTS §5.1): memdbg used documented
        /// calls only. A handle's chunk was reached with
        /// `MemHandleLock`/`MemHandleUnlock`; without chunk headers a free of an
        /// address freed among the last few is a double free only when the
        /// app's code makes it; and with [`HeaderFlags::PATCHES_REFUSED`] a
        /// block whose guard is damaged at stop is taken as freed unseen
        /// ([`AllocFlags::FREED_UNSEEN`]), not as an overrun.
        const DOCUMENTED_CALLS = 0x0040;
        /// `DbgMessage` was not called ([`Options::DBG_MESSAGES`] notwithstanding):
        /// the trap table says it is unimplemented (`SysGetTrapAddress` gives
        /// SysUnimplemented's address), or its answers cannot tell (a reserved
        /// trap did not read as SysUnimplemented: PumpkinOS).
        const NO_DBG_MESSAGE = 0x0080;
        /// No alert was shown: the ROM has no generic error alert (ErrOKAlert,
        /// 10021: Palm OS 3.2 and later) and [`Options::ERR_DISPLAY_ALERTS`] is
        /// off. The ledger and the `DbgMessage` lines say everything an alert
        /// would have.
        const NO_ALERT_DIALOG = 0x0100;
        /// `memdbg::checkpoint` was called after [`MAX_GENERATION`] checkpoints
        /// and refused (it returned an error, wrote no record): the allocations
        /// after it are in generation [`MAX_GENERATION`] with those of the last
        /// checkpoint (format version 5 on).
        const CHECKPOINTS_REFUSED = 0x0800;
    }
}

flags! {
    /// Flags of an [`AllocRecord`] (bytes 2..4).
    pub struct AllocFlags: u16 {
        /// [`GUARD_LEN`] guard bytes follow the block; only such blocks are checked.
        const GUARDED = 0x0001;
        /// Resized at least once; `size` is the latest requested size.
        const RESIZED = 0x0002;
        /// The address is a handle (always for [`kind::HANDLE`]; for
        /// [`kind::CHUNK`] when `MemChunkNew` returned a handle).
        const HANDLE = 0x0004;
        /// The file name lost leading path components (or leading bytes) to fit.
        const FILE_TRUNCATED = 0x0008;
        /// The guard was found damaged (an [`OverrunRecord`] has the details).
        const OVERRUN = 0x0010;
        /// The chunk is outside the dynamic heap (e.g. `MemChunkNew` on a storage
        /// heap); it has no guard (storage memory is write-protected).
        const NOT_DYNAMIC = 0x0020;
        /// The block was freed where memdbg could not see it: a new block got
        /// its address while its record was live, or at stop it is no longer
        /// the chunk memdbg recorded (its chunk is free, also when merged into
        /// a free neighbour; with the frees not all seen, also its size, heap
        /// or owner changed, or, with [`HeaderFlags::DOCUMENTED_CALLS`], its
        /// guard is damaged, which documented calls cannot tell from a free).
        /// With [`HeaderFlags::PATCHES_REFUSED`]: a plain `MemPtrFree`, the
        /// OS's frees; with the patches installed: a free inside the Memory
        /// Manager that makes no trap call (`MemHeapFreeByOwnerID`). Such a
        /// record is not a leak (not counted in [`Counters::leaks`]) and its
        /// guard is not checked (no overrun).
        const FREED_UNSEEN = 0x0040;
        /// Allocated with an owner other than the app's (a `MemChunkNew` whose
        /// `attr` names another owner ID, e.g. 0, the system): never the app's,
        /// so never handed off (format version 4 on).
        const OTHER_OWNER = 0x0080;
        /// At stop the block belonged to another owner than the app (its owner
        /// set with `MemPtrSetOwner`/`MemHandleSetOwner`, e.g. to 0, to outlive
        /// the app): handed off, not a leak. Its record stays in the ledger, with
        /// its allocation's site; the header's `leaks` does not count it (format
        /// version 4 on).
        const HANDED_OFF = 0x0100;
    }
}

/// A file name as stored: the tail of a path, NUL-padded to [`FILE_NAME_LEN`] bytes.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct FileName(pub [u8; FILE_NAME_LEN]);

impl Default for FileName {
    fn default() -> Self {
        FileName([0; FILE_NAME_LEN])
    }
}

impl FileName {
    /// Where `path` is cut to fit in 31 bytes: 0 if it fits; else just after the
    /// first `/` or `\` that leaves at most 31 bytes; else `len - 31` (a file name
    /// longer than 31 bytes keeps its last 31 bytes).
    pub const fn cut(path: &[u8]) -> usize {
        let max = FILE_NAME_LEN - 1;
        if path.len() <= max {
            return 0;
        }
        let mut i = path.len() - max;
        while i > 0 && i <= path.len() {
            let c = path[i - 1];
            if c == b'/' || c == b'\\' {
                return i;
            }
            i += 1;
            if i > path.len() {
                break;
            }
        }
        path.len() - max
    }

    /// The stored form of `path`: its tail from [`FileName::cut`], NUL-padded.
    /// A NUL inside `path` ends the name there.
    pub const fn new(path: &[u8]) -> FileName {
        let mut f = FileName([0; FILE_NAME_LEN]);
        f.set(path);
        f
    }

    /// Stores the tail of `path` as [`FileName::new`] builds it, in place: for names
    /// known only at run time (C callers). Never inlined, so that the array it indexes
    /// with a variable is reached through a pointer: a variable index into a stack
    /// array (as inlining into `new` would make it) is miscompiled by LLVM's m68k
    /// backend (TOOLCHAIN.md #2).
    #[inline(never)]
    pub const fn set(&mut self, path: &[u8]) {
        let start = Self::cut(path);
        let mut end = false;
        let mut i = 0;
        while i < FILE_NAME_LEN {
            let b = if !end && start + i < path.len() && i < FILE_NAME_LEN - 1 {
                path[start + i]
            } else {
                0
            };
            end |= b == 0;
            self.0[i] = b;
            i += 1;
        }
    }

    /// The name's bytes, up to the first NUL.
    pub fn bytes(&self) -> &[u8] {
        let n = self.0.iter().position(|&b| b == 0).unwrap_or(FILE_NAME_LEN);
        &self.0[..n]
    }
}

/// One frame of a [`Stack`], decoded.
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub enum Frame {
    /// A return address inside code 1, as an offset from its start (= ELF address).
    Code(u32),
    /// A return address outside code 1 (the OS, another code resource: see
    /// [`SegmentRecord`]), as the raw 68k address.
    Raw(u32),
}

/// A call stack: up to [`STACK_FRAMES`] return addresses, innermost first. 26 bytes.
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | count (0..=6) |
/// | 1 | 1 | raw mask: bit *i* (0..=5) set = frame *i* is a raw 68k address; bit 6 [`Stack::TRUNCATED_DEPTH`], bit 7 [`Stack::TRUNCATED_CHAIN`] (version 4 on) |
/// | 2 | 24 | frames: 6 × u32, unused ones 0 |
///
/// A walked stack (six frames wanted: [`Options::CALL_STACKS`], Rust allocations)
/// is complete when it ends with a frame outside code 1 (the OS that called the
/// app: the walk does not follow the OS's frames) or says why it was cut; a
/// one-frame site (a free's or a resize's caller without call stacks) never says
/// it was cut.
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct Stack {
    /// Number of valid frames.
    pub count: u8,
    /// Bit *i* (0..=5) set: `frames[i]` is a raw address; clear: an offset into
    /// code 1. Bits 6 and 7: [`Stack::TRUNCATED_DEPTH`], [`Stack::TRUNCATED_CHAIN`].
    pub raw_mask: u8,
    /// Return addresses, innermost first.
    pub frames: [U32Be; STACK_FRAMES],
}
const_assert_eq!(size_of::<Stack>(), 26);
const_assert_eq!(offset_of!(Stack, frames), 2);

/// Why a call stack has no more frames than it has ([`Stack::truncation`]).
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub enum Truncation {
    /// [`STACK_FRAMES`] frames were kept and the frame chain went on.
    DepthLimit,
    /// The A6 frame chain broke before a frame outside code 1: the next frame
    /// pointer was null, odd, not above the last one or more than
    /// `MAX_FRAME_GAP` (64 KB) above it, or its return address was null or odd
    /// (a function built without a frame pointer, or a damaged stack).
    BrokenChain,
}

impl Truncation {
    /// A short phrase for reports: "depth limit of 6 frames", "broken A6 frame
    /// chain".
    pub const fn describe(self) -> &'static str {
        match self {
            Truncation::DepthLimit => "depth limit of 6 frames",
            Truncation::BrokenChain => "broken A6 frame chain",
        }
    }
}

impl Stack {
    /// [`Stack::raw_mask`] bit 6: the walk kept [`STACK_FRAMES`] frames and the
    /// chain went on (a deeper caller exists). Format version 4 on.
    pub const TRUNCATED_DEPTH: u8 = 0x40;
    /// [`Stack::raw_mask`] bit 7: the A6 chain broke after the last frame, which is
    /// inside code 1 ([`Truncation::BrokenChain`]). Format version 4 on.
    pub const TRUNCATED_CHAIN: u8 = 0x80;

    /// Why the stack was cut, if it was ([`Stack::TRUNCATED_DEPTH`] wins if both
    /// bits are set).
    pub fn truncation(&self) -> Option<Truncation> {
        if self.raw_mask & Self::TRUNCATED_DEPTH != 0 {
            Some(Truncation::DepthLimit)
        } else if self.raw_mask & Self::TRUNCATED_CHAIN != 0 {
            Some(Truncation::BrokenChain)
        } else {
            None
        }
    }

    /// Frame `i` (`i < count`), decoded; `None` beyond `count`.
    pub fn frame(&self, i: usize) -> Option<Frame> {
        if i >= usize::from(self.count).min(STACK_FRAMES) {
            return None;
        }
        let v = self.frames[i].get();
        Some(if self.raw_mask & (1 << i) != 0 {
            Frame::Raw(v)
        } else {
            Frame::Code(v)
        })
    }

    /// The valid frames, innermost first.
    pub fn iter(&self) -> impl Iterator<Item = Frame> + '_ {
        (0..STACK_FRAMES).map_while(|i| self.frame(i))
    }

    fn check(&self, at: usize) -> Result<(), DecodeError> {
        if usize::from(self.count) > STACK_FRAMES {
            return Err(DecodeError {
                offset: at,
                what: "call stack frame count above 6",
            });
        }
        Ok(())
    }
}

/// One tracked allocation: what a leak record holds (kinds [`kind::POINTER`],
/// [`kind::HANDLE`], [`kind::CHUNK`], [`kind::RUST`]), also embedded in event
/// records. 84 bytes (82 before format version 5: [`ALLOC_RECORD_SIZE_V4`], without
/// the generation and the reserved byte, which such records decode as 0).
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind |
/// | 1 | 1 | version ([`FORMAT_VERSION`]) |
/// | 2 | 2 | flags ([`AllocFlags`]) |
/// | 4 | 4 | size: requested bytes (latest, after resizes) |
/// | 8 | 4 | address: chunk start (pointer kinds) or handle |
/// | 12 | 4 | sequence number: 1 for the run's first tracked allocation |
/// | 16 | 4 | ticks (`TimGetTicks`) at allocation before format version 5; 0 from version 5 on ([`ALLOC_TICKS_LAST_VERSION`]) |
/// | 20 | 2 | line (0 for Rust allocations) |
/// | 22 | 2 | data offset: bytes from the chunk start to the block handed out (0 except over-aligned Rust allocations) |
/// | 24 | 26 | call stack ([`Stack`]; empty without [`Options::CALL_STACKS`], except for Rust allocations) |
/// | 50 | 32 | file ([`FileName`]; empty for Rust allocations) |
/// | 82 | 1 | generation: 0 before the run's first checkpoint, then the number of checkpoints made before the allocation (at most [`MAX_GENERATION`]); a resize keeps it (version 5 on) |
/// | 83 | 1 | reserved (0; version 5 on) |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct AllocRecord {
    /// Record kind ([`kind`]).
    pub kind: u8,
    /// [`FORMAT_VERSION`].
    pub version: u8,
    /// [`AllocFlags`] bits.
    pub flags: U16Be,
    /// Requested size in bytes (the latest, after resizes); excludes guard bytes.
    pub size: U32Be,
    /// 68k address of the chunk start (pointers) or the handle.
    pub address: U32Be,
    /// Sequence number of the allocation in the run, from 1.
    pub seq: U32Be,
    /// `TimGetTicks` when allocated (system ticks since reset), in records of
    /// format versions 1 to [`ALLOC_TICKS_LAST_VERSION`]; 0 from version 5 on,
    /// where the allocation reads no ticks (one OS call less per allocation,
    /// issue 16's budget): the sequence number orders it among the run's
    /// allocations and frees, and the generation places it between two
    /// checkpoints, whose ticks their records keep.
    pub ticks: U32Be,
    /// Source line of the wrapper call; 0 for Rust allocations.
    pub line: U16Be,
    /// Bytes from the chunk start to the block given to the program.
    pub data_offset: U16Be,
    /// Call stack at allocation.
    pub stack: Stack,
    /// Source file of the wrapper call; empty for Rust allocations.
    pub file: FileName,
    /// The generation the block was allocated in (0: before the first
    /// checkpoint; format version 5 on, 0 in older records).
    pub generation: u8,
    /// Reserved, 0.
    pub reserved: u8,
}
/// Size of an [`AllocRecord`] in bytes (format version 5 on).
pub const ALLOC_RECORD_SIZE: usize = 84;
/// Size of an [`AllocRecord`] of format versions 1 to 4: without the generation
/// and reserved bytes at its end.
pub const ALLOC_RECORD_SIZE_V4: usize = 82;
/// The first format version whose allocation records (and the records that end
/// in one) carry [`AllocRecord::generation`].
pub const GENERATION_FORMAT_VERSION: u8 = 5;
/// The last format version whose allocation records carry the allocation's
/// ticks ([`AllocRecord::ticks`]); later ones hold 0 there.
pub const ALLOC_TICKS_LAST_VERSION: u8 = 4;
/// The most checkpoints a run makes: generations are 0 to 255 (one byte of an
/// [`AllocRecord`]). Past it `memdbg::checkpoint` refuses
/// ([`HeaderFlags::CHECKPOINTS_REFUSED`]).
pub const MAX_GENERATION: u8 = 255;
const_assert_eq!(size_of::<AllocRecord>(), ALLOC_RECORD_SIZE);
const_assert_eq!(offset_of!(AllocRecord, flags), 2);
const_assert_eq!(
    AllocRecord::FLAGS_OFFSET as usize,
    offset_of!(AllocRecord, flags)
);
const_assert_eq!(offset_of!(AllocRecord, size), 4);
const_assert_eq!(offset_of!(AllocRecord, address), 8);
const_assert_eq!(offset_of!(AllocRecord, seq), 12);
const_assert_eq!(offset_of!(AllocRecord, ticks), 16);
const_assert_eq!(offset_of!(AllocRecord, line), 20);
const_assert_eq!(offset_of!(AllocRecord, data_offset), 22);
const_assert_eq!(offset_of!(AllocRecord, stack), 24);
const_assert_eq!(offset_of!(AllocRecord, file), 50);
const_assert_eq!(offset_of!(AllocRecord, generation), ALLOC_RECORD_SIZE_V4);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for AllocRecord {}

impl AllocRecord {
    /// The allocation's ticks, where its format version has them (up to
    /// [`ALLOC_TICKS_LAST_VERSION`]); `None` from version 5 on.
    pub fn alloc_ticks(&self) -> Option<u32> {
        (self.version <= ALLOC_TICKS_LAST_VERSION).then(|| self.ticks.get())
    }

    /// Offset of the kind byte (a free marks its slot by writing [`kind::FREE_SLOT`]
    /// here).
    pub const KIND_OFFSET: usize = 0;
    /// Offset of the flags (a `u32` for the Data Manager's offsets).
    pub const FLAGS_OFFSET: u32 = 2;

    /// The [`AllocFlags`] (unknown bits dropped).
    pub fn alloc_flags(&self) -> AllocFlags {
        AllocFlags::from_bits_truncate(self.flags.get())
    }

    /// Decodes an allocation record (one of the four allocation kinds).
    ///
    /// # Errors
    /// Wrong length, version or kind, or a bad frame count.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.len() < 2 {
            return Err(DecodeError {
                offset: bytes.len(),
                what: "truncated record",
            });
        }
        version(bytes[1], 1)?;
        let r: Self = ending_in_alloc(bytes)?;
        r.check(0)?;
        Ok(r)
    }

    fn check(&self, at: usize) -> Result<(), DecodeError> {
        if !kind::is_alloc(self.kind) {
            return Err(DecodeError {
                offset: at,
                what: "not an allocation kind",
            });
        }
        version(self.version, at + 1)?;
        self.stack.check(at + offset_of!(AllocRecord, stack))
    }
}

/// Run-level counters of the [`Header`] (bytes 76..152). All are counts of events
/// except where a unit is given.
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct Counters {
    /// Tracked allocations (successful wrapper and `GlobalAlloc` allocations that
    /// got a record).
    pub allocations: U32Be,
    /// Frees of tracked blocks (by the app or the OS).
    pub frees: U32Be,
    /// Of `frees`, those made by code outside the app's code 1 (e.g. `FrmDeleteForm`
    /// freeing a field's text handle), seen through the trap patches.
    pub os_frees: U32Be,
    /// Frees, by the app's code, of chunks the detector never tracked (not errors).
    pub unknown_frees: U32Be,
    /// Double frees caught (and not passed to the OS).
    pub double_frees: U32Be,
    /// Damaged guards found (at free, resize or stop).
    pub overruns: U32Be,
    /// Allocations that succeeded but got no record (index full, or no room in the
    /// storage heap); sets [`HeaderFlags::INCOMPLETE`].
    pub untracked: U32Be,
    /// Wrapper/`GlobalAlloc` allocations the OS refused (null returned, no record).
    pub failed: U32Be,
    /// Successful tracked resizes.
    pub resizes: U32Be,
    /// Tracked blocks still live at stop and still the app's: the leak records
    /// (allocation records without [`AllocFlags::HANDED_OFF`] (version 4 on) or
    /// [`AllocFlags::FREED_UNSEEN`]).
    pub leaks: U32Be,
    /// Bytes in those blocks (requested sizes).
    pub leaked_bytes: U32Be,
    /// Peak of live tracked bytes (requested sizes).
    pub peak_live_bytes: U32Be,
    /// Peak number of live tracked blocks.
    pub peak_live_count: U32Be,
    /// Low-water of `MemHeapFreeBytes`' free total of the dynamic heap (bytes), or
    /// [`NOT_SAMPLED`]: sampled after every wrapper/`GlobalAlloc` allocation,
    /// tracked, untracked or failed.
    pub low_free: U32Be,
    /// Low-water of the dynamic heap's largest free chunk (bytes), or
    /// [`NOT_SAMPLED`]; sampled as `low_free`.
    pub low_largest_free: U32Be,
    /// Tracked allocations of 1 to [`SMALL_ALLOC_MAX`] bytes.
    pub small_allocs: U32Be,
    /// Small allocations from sites beyond the per-site table (not in any
    /// [`SmallSiteRecord`]).
    pub small_unsited: U32Be,
    /// Alerts shown (overruns, double frees, leaks), or at stop about to be
    /// shown (the header is written first).
    pub alerts: U32Be,
    /// Frees by OS code of chunks never tracked (informational: the OS frees its
    /// own chunks all the time).
    pub os_unknown_frees: U32Be,
}
const_assert_eq!(size_of::<Counters>(), 76);

/// Record 0: what the run was and what happened. 156 bytes ([`HEADER_SIZE`]; 152 in
/// format version 1, [`HEADER_SIZE_V1`], which ends before the code 1 CRC-32).
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::HEADER`] |
/// | 1 | 1 | version |
/// | 2 | 2 | header size (156; 152 in version 1) |
/// | 4 | 4 | magic `'MDbg'` |
/// | 8 | 4 | flags ([`HeaderFlags`]) |
/// | 12 | 4 | options ([`Options`]) |
/// | 16 | 2 | max alerts at stop |
/// | 18 | 2 | capacity: most live allocations tracked at once |
/// | 20 | 4 | largest-free-chunk warning threshold, bytes (0 = off) |
/// | 24 | 4 | app creator |
/// | 28 | 32 | app database name, NUL-padded |
/// | 60 | 4 | code 1 base: 68k address of code resource 1's first byte (0 if unknown) |
/// | 64 | 4 | code 1 size, bytes |
/// | 68 | 4 | ticks at start |
/// | 72 | 4 | ticks at stop (0 while running) |
/// | 76 | 76 | [`Counters`]: allocations, frees, os_frees, unknown_frees, double_frees, overruns, untracked, failed, resizes, leaks, leaked_bytes, peak_live_bytes, peak_live_count, low_free, low_largest_free, small_allocs, small_unsited, alerts, os_unknown_frees (u32 each, in this order) |
/// | 152 | 4 | code 1 CRC-32: [`crc32`] of code resource 1's bytes, computed at start (0 if code 1 is unknown); version 2 on |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct Header {
    /// [`kind::HEADER`].
    pub kind: u8,
    /// [`FORMAT_VERSION`].
    pub version: u8,
    /// [`HEADER_SIZE`].
    pub header_size: U16Be,
    /// [`HEADER_MAGIC`].
    pub magic: U32Be,
    /// [`HeaderFlags`] bits.
    pub flags: U32Be,
    /// [`Options`] bits.
    pub options: U32Be,
    /// Most leak alerts shown at stop.
    pub max_alerts: U16Be,
    /// Most live allocations tracked at once (the index capacity).
    pub capacity: U16Be,
    /// Largest-free-chunk warning threshold in bytes (0: no warning).
    pub low_heap_threshold: U32Be,
    /// The app's creator code.
    pub app_creator: U32Be,
    /// The app's database name, NUL-padded.
    pub app_name: [u8; 32],
    /// 68k address of code 1's first byte (0 if unknown).
    pub code_base: U32Be,
    /// Size of code 1 in bytes (0 if unknown).
    pub code_size: U32Be,
    /// `TimGetTicks` at start.
    pub start_ticks: U32Be,
    /// `TimGetTicks` at stop; 0 while running.
    pub stop_ticks: U32Be,
    /// Counters.
    pub counters: Counters,
    /// [`crc32`] of code 1's bytes (0 if unknown, and in a version 1 header, which
    /// does not have the field: see [`Header::code_checksum`]).
    pub code_crc: U32Be,
}
/// Size of the [`Header`] in bytes (format versions 2 to 5).
pub const HEADER_SIZE: usize = 156;
/// Size of a format version 1 header: the first 152 bytes of [`Header`].
pub const HEADER_SIZE_V1: usize = 152;
const_assert_eq!(size_of::<Header>(), HEADER_SIZE);
const_assert_eq!(offset_of!(Header, magic), 4);
const_assert_eq!(offset_of!(Header, flags), 8);
const_assert_eq!(offset_of!(Header, options), 12);
const_assert_eq!(offset_of!(Header, max_alerts), 16);
const_assert_eq!(offset_of!(Header, capacity), 18);
const_assert_eq!(offset_of!(Header, low_heap_threshold), 20);
const_assert_eq!(offset_of!(Header, app_creator), 24);
const_assert_eq!(offset_of!(Header, app_name), 28);
const_assert_eq!(offset_of!(Header, code_base), 60);
const_assert_eq!(offset_of!(Header, code_size), 64);
const_assert_eq!(offset_of!(Header, start_ticks), 68);
const_assert_eq!(offset_of!(Header, stop_ticks), 72);
const_assert_eq!(offset_of!(Header, counters), 76);
const_assert_eq!(offset_of!(Header, code_crc), HEADER_SIZE_V1);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for Header {}

impl Header {
    /// The [`HeaderFlags`] (unknown bits dropped).
    pub fn header_flags(&self) -> HeaderFlags {
        HeaderFlags::from_bits_truncate(self.flags.get())
    }

    /// The [`Options`] (unknown bits dropped).
    pub fn option_flags(&self) -> Options {
        Options::from_bits_truncate(self.options.get())
    }

    /// The app name's bytes, up to the first NUL.
    pub fn app_name_bytes(&self) -> &[u8] {
        let n = self.app_name.iter().position(|&b| b == 0).unwrap_or(32);
        &self.app_name[..n]
    }

    /// The size of a header of format version `version` ([`HEADER_SIZE_V1`] for
    /// version 1, [`HEADER_SIZE`] for versions 2 to 5: the same layout), or `None`
    /// for a version readers do not know.
    pub const fn size_of_version(version: u8) -> Option<usize> {
        match version {
            1 => Some(HEADER_SIZE_V1),
            2..=FORMAT_VERSION => Some(HEADER_SIZE),
            _ => None,
        }
    }

    /// The header's bytes as stored for its [`Header::version`]: all of them for
    /// versions 2 to 5, the first [`HEADER_SIZE_V1`] for version 1.
    pub fn stored_bytes(&self) -> &[u8] {
        let n = Self::size_of_version(self.version).unwrap_or(HEADER_SIZE);
        &self.as_bytes()[..n]
    }

    /// The CRC-32 of code 1 the run recorded, when there is one: `None` for a
    /// format version 1 header (it has no such field) and when code 1 was not
    /// located (code 1 size 0).
    pub fn code_checksum(&self) -> Option<u32> {
        (self.version >= 2 && self.code_size.get() != 0).then(|| self.code_crc.get())
    }

    /// Decodes record 0 of format version 1 to 5.
    ///
    /// # Errors
    /// Wrong length, kind, version, header size or magic.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        // Check kind and version first: each version has its own size.
        if bytes.is_empty() || bytes[0] != kind::HEADER {
            return Err(DecodeError {
                offset: 0,
                what: "record 0 is not a MemDbgDB header",
            });
        }
        if bytes.len() < 2 {
            return Err(DecodeError {
                offset: bytes.len(),
                what: "truncated record",
            });
        }
        version(bytes[1], 1)?;
        let size = Self::size_of_version(bytes[1]).unwrap_or(HEADER_SIZE);
        exact(bytes, size)?;
        // A version 1 header is a prefix of the version 2 layout (code_crc 0).
        let mut all = [0u8; HEADER_SIZE];
        // Through black_box: LLVM's m68k backend drops a variable index into
        // a stack array (TOOLCHAIN.md bug 2), and the device viewer decodes
        // headers on the 68k.
        let all = core::hint::black_box(&mut all);
        all[..size].copy_from_slice(bytes);
        let h = Self::read_from(&all[..])?;
        if usize::from(h.header_size.get()) != size {
            return Err(DecodeError {
                offset: offset_of!(Header, header_size),
                what: if size == HEADER_SIZE {
                    "header size field is not 156 (version 2 to 5)"
                } else {
                    "header size field is not 152 (version 1)"
                },
            });
        }
        if h.magic.get() != HEADER_MAGIC {
            return Err(DecodeError {
                offset: offset_of!(Header, magic),
                what: "bad header magic (not 'MDbg')",
            });
        }
        Ok(h)
    }
}

/// When a damaged guard or chunk header was found (byte 2..4 of an
/// [`OverrunRecord`] or an [`UnderrunRecord`]).
pub mod detected {
    /// While the block was being freed (by the app or the OS).
    pub const AT_FREE: u16 = 1;
    /// While the block was being resized (a wrapper, or the resize patches).
    pub const AT_RESIZE: u16 = 2;
    /// At `stop`, on a block still live (it is also a leak).
    pub const AT_STOP: u16 = 3;
}

/// A damaged guard. 122 bytes (120 before format
/// version 5).
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::OVERRUN`] |
/// | 1 | 1 | version |
/// | 2 | 2 | when ([`detected`]) |
/// | 4 | 4 | ticks when found |
/// | 8 | 4 | the 4 guard bytes as found |
/// | 12 | 26 | where it was found ([`Stack`]: the free's or resize's callers; empty at stop) |
/// | 38 | 84 | the block's [`AllocRecord`] (its allocation site: file, line, stack) |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct OverrunRecord {
    /// [`kind::OVERRUN`].
    pub kind: u8,
    /// [`FORMAT_VERSION`].
    pub version: u8,
    /// When it was found ([`detected`]).
    pub when: U16Be,
    /// `TimGetTicks` when found.
    pub ticks: U32Be,
    /// The guard bytes as found (intact = all [`GUARD_BYTE`]).
    pub guard: [u8; GUARD_LEN],
    /// Where it was found.
    pub site: Stack,
    /// The damaged block's allocation.
    pub alloc: AllocRecord,
}
/// Size of an [`OverrunRecord`] in bytes.
pub const OVERRUN_RECORD_SIZE: usize = 122;
const_assert_eq!(size_of::<OverrunRecord>(), OVERRUN_RECORD_SIZE);
const_assert_eq!(offset_of!(OverrunRecord, guard), 8);
const_assert_eq!(offset_of!(OverrunRecord, site), 12);
const_assert_eq!(offset_of!(OverrunRecord, alloc), 38);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for OverrunRecord {}

/// A damaged chunk header before a block: an underrun (a write just before the
/// block's first byte, into the last 4 bytes of its 8-byte chunk header:
/// `lockCount`/`owner` and `hOffset`, PALM_FACTS §5.1). 122 bytes, laid out as an
/// [`OverrunRecord`]. Format version 5 on.
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::UNDERRUN`] |
/// | 1 | 1 | version |
/// | 2 | 2 | when ([`detected`]) |
/// | 4 | 4 | ticks when found |
/// | 8 | 4 | the header's last 4 bytes as found (the 4 bytes before the block's chunk) |
/// | 12 | 26 | where it was found ([`Stack`]: the free's or resize's callers; empty at stop) |
/// | 38 | 84 | the block's [`AllocRecord`] (its allocation site: file, line, stack) |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct UnderrunRecord {
    /// [`kind::UNDERRUN`].
    pub kind: u8,
    /// [`FORMAT_VERSION`].
    pub version: u8,
    /// When it was found ([`detected`]).
    pub when: U16Be,
    /// `TimGetTicks` when found.
    pub ticks: U32Be,
    /// The chunk header's last 4 bytes as found (big-endian: the lock count and
    /// owner byte, then the 24-bit `hOffset`).
    pub header: [u8; 4],
    /// Where it was found.
    pub site: Stack,
    /// The damaged block's allocation.
    pub alloc: AllocRecord,
}
/// Size of an [`UnderrunRecord`] in bytes.
pub const UNDERRUN_RECORD_SIZE: usize = 122;
/// The first format version with underrun records.
pub const UNDERRUN_FORMAT_VERSION: u8 = 5;
const_assert_eq!(size_of::<UnderrunRecord>(), UNDERRUN_RECORD_SIZE);
const_assert_eq!(offset_of!(UnderrunRecord, header), 8);
const_assert_eq!(offset_of!(UnderrunRecord, site), 12);
const_assert_eq!(offset_of!(UnderrunRecord, alloc), 38);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for UnderrunRecord {}

/// A block freed twice; the second free was not passed to the OS. 152 bytes (150 before format
/// version 5).
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::DOUBLE_FREE`] |
/// | 1 | 1 | version |
/// | 2 | 2 | reserved (0) |
/// | 4 | 4 | the address freed twice (pointer or handle) |
/// | 8 | 4 | when the first free was: the sequence number of the last allocation before it (the report's `#N`; version 5 on; before it, the first free's ticks) |
/// | 12 | 4 | ticks of the second free |
/// | 16 | 26 | first free's site ([`Stack`]) |
/// | 42 | 26 | second free's site ([`Stack`]) |
/// | 68 | 84 | the block's [`AllocRecord`] as it was before the first free (its kind byte is the allocation kind) |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct DoubleFreeRecord {
    /// [`kind::DOUBLE_FREE`].
    pub kind: u8,
    /// [`FORMAT_VERSION`].
    pub version: u8,
    /// Reserved, 0.
    pub reserved: U16Be,
    /// The address passed to both frees.
    pub address: U32Be,
    /// When the first free was, as the [`AllocRecord::seq`] of the last
    /// allocation before it (format version 5 on, [`FREE_AFTER_SEQ_FORMAT_VERSION`];
    /// in older records, `TimGetTicks` at the first free). The free path keeps no
    /// ticks, to spare every free a `TimGetTicks` call; the sequence number
    /// orders the free among the allocations exactly, where ticks (10 ms on
    /// most devices) often do not.
    pub first_after_seq: U32Be,
    /// `TimGetTicks` at the second free.
    pub second_ticks: U32Be,
    /// The first free's callers (innermost first: the return address after the
    /// free call).
    pub first: Stack,
    /// The second free's callers.
    pub second: Stack,
    /// The block's allocation.
    pub alloc: AllocRecord,
}
/// Size of a [`DoubleFreeRecord`] in bytes.
pub const DOUBLE_FREE_RECORD_SIZE: usize = 152;
/// The first format version whose [`DoubleFreeRecord::first_after_seq`] is a
/// sequence number (before it: the first free's ticks).
pub const FREE_AFTER_SEQ_FORMAT_VERSION: u8 = 5;
const_assert_eq!(size_of::<DoubleFreeRecord>(), DOUBLE_FREE_RECORD_SIZE);
const_assert_eq!(offset_of!(DoubleFreeRecord, address), 4);
const_assert_eq!(offset_of!(DoubleFreeRecord, first), 16);
const_assert_eq!(offset_of!(DoubleFreeRecord, second), 42);
const_assert_eq!(offset_of!(DoubleFreeRecord, alloc), 68);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for DoubleFreeRecord {}

/// A free of an address inside a tracked block that is not the block's start
/// (`MemChunkFree(p + 8)`): not passed to the OS (a release ROM does not check
/// it and would corrupt its heap). 126 bytes (124 before format
/// version 5).
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::INTERIOR_FREE`] |
/// | 1 | 1 | version (4 or later) |
/// | 2 | 2 | reserved (0) |
/// | 4 | 4 | the address freed |
/// | 8 | 4 | its offset from the block's address, in bytes (signed: an over-aligned Rust block's chunk starts before it) |
/// | 12 | 4 | ticks of the free |
/// | 16 | 26 | the free's site ([`Stack`]) |
/// | 42 | 84 | the block's [`AllocRecord`] (still live: the block stays tracked) |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct InteriorFreeRecord {
    /// [`kind::INTERIOR_FREE`].
    pub kind: u8,
    /// [`FORMAT_VERSION`] (4 or later).
    pub version: u8,
    /// Reserved, 0.
    pub reserved: U16Be,
    /// The address passed to the free.
    pub address: U32Be,
    /// `address` minus the block's address (two's complement).
    pub offset: U32Be,
    /// `TimGetTicks` at the free.
    pub ticks: U32Be,
    /// The free's callers (innermost first: the return address after the free
    /// call).
    pub site: Stack,
    /// The block's allocation.
    pub alloc: AllocRecord,
}
/// Size of an [`InteriorFreeRecord`] in bytes.
pub const INTERIOR_FREE_RECORD_SIZE: usize = 126;
const_assert_eq!(size_of::<InteriorFreeRecord>(), INTERIOR_FREE_RECORD_SIZE);
const_assert_eq!(offset_of!(InteriorFreeRecord, site), 16);
const_assert_eq!(offset_of!(InteriorFreeRecord, alloc), 42);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for InteriorFreeRecord {}

impl InteriorFreeRecord {
    /// [`InteriorFreeRecord::offset`] as the signed byte count it is.
    pub fn offset_bytes(&self) -> i32 {
        self.offset.get() as i32
    }
}

/// The first format version with [`kind::INTERIOR_FREE`] records.
pub const INTERIOR_FREE_FORMAT_VERSION: u8 = 4;

/// Small allocations (1 to [`SMALL_ALLOC_MAX`] bytes) of one call site, written at
/// stop with [`Options::HEAP_STATS`]. A site is a wrapper call (file and line) or,
/// for Rust allocations, the innermost return address. 96 bytes (94 before format
/// version 5).
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::SMALL_SITE`] |
/// | 1 | 1 | version |
/// | 2 | 2 | reserved (0) |
/// | 4 | 4 | count of small allocations at this site |
/// | 8 | 4 | their total requested bytes |
/// | 12 | 84 | the site's first small allocation ([`AllocRecord`]: file, line, stack, size) |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct SmallSiteRecord {
    /// [`kind::SMALL_SITE`].
    pub kind: u8,
    /// [`FORMAT_VERSION`].
    pub version: u8,
    /// Reserved, 0.
    pub reserved: U16Be,
    /// Small allocations made at the site.
    pub count: U32Be,
    /// Their total requested bytes.
    pub bytes: U32Be,
    /// The first one.
    pub first: AllocRecord,
}
/// Size of a [`SmallSiteRecord`] in bytes.
pub const SMALL_SITE_RECORD_SIZE: usize = 96;
const_assert_eq!(size_of::<SmallSiteRecord>(), SMALL_SITE_RECORD_SIZE);
const_assert_eq!(offset_of!(SmallSiteRecord, first), 12);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for SmallSiteRecord {}

/// The dynamic heap's largest free chunk fell below the threshold (first time
/// only). 100 bytes (98 before format version 5).
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::LOW_HEAP`] |
/// | 1 | 1 | version |
/// | 2 | 2 | reserved (0) |
/// | 4 | 4 | free bytes in the dynamic heap then |
/// | 8 | 4 | largest free chunk then, bytes |
/// | 12 | 4 | the threshold, bytes |
/// | 16 | 84 | the allocation after which it was seen ([`AllocRecord`]) |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct LowHeapRecord {
    /// [`kind::LOW_HEAP`].
    pub kind: u8,
    /// [`FORMAT_VERSION`].
    pub version: u8,
    /// Reserved, 0.
    pub reserved: U16Be,
    /// Free bytes in the dynamic heap.
    pub free: U32Be,
    /// Largest free chunk in bytes.
    pub largest: U32Be,
    /// The warning threshold in bytes.
    pub threshold: U32Be,
    /// The allocation that was just made.
    pub alloc: AllocRecord,
}
/// Size of a [`LowHeapRecord`] in bytes.
pub const LOW_HEAP_RECORD_SIZE: usize = 100;
const_assert_eq!(size_of::<LowHeapRecord>(), LOW_HEAP_RECORD_SIZE);
const_assert_eq!(offset_of!(LowHeapRecord, alloc), 16);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for LowHeapRecord {}

/// A tracked block that pinned the dynamic heap (format version 5 on, with
/// [`Options::HEAP_STATS`]): at a low-water mark of the dynamic heap's largest
/// free chunk, a non-movable chunk (a pointer: lock count
/// [`PINNED_LOCK_COUNT`]) or a locked handle (lock count 1 to 14) that lies
/// between free space on both sides. `MemHeapCompact` (and the Memory Manager's
/// own compaction when an allocation does not fit) moves only unlocked movable
/// chunks, so the free bytes on the two sides of a pin cannot merge into one
/// chunk while it stays: `before` and `after` are the free bytes (chunk headers
/// not counted, as `MemHeapFreeBytes` counts them) between this chunk and the
/// previous (next) non-movable or locked chunk, or the heap's start (end).
/// Written at stop, up to 8 of them, those with the largest `before + after`.
/// 104 bytes.
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::PINNED`] |
/// | 1 | 1 | version (5 on) |
/// | 2 | 1 | the chunk's lock count then (15: non-movable; 1 to 14: a locked handle) |
/// | 3 | 1 | reserved (0) |
/// | 4 | 4 | free bytes before it, up to the previous pin or the heap's start |
/// | 8 | 4 | free bytes after it, up to the next pin or the heap's end |
/// | 12 | 4 | the largest free chunk then, bytes |
/// | 16 | 4 | ticks (`TimGetTicks`) then |
/// | 20 | 84 | the block's allocation ([`AllocRecord`], as it was then) |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct PinnedRecord {
    /// [`kind::PINNED`].
    pub kind: u8,
    /// [`FORMAT_VERSION`] (5 or later).
    pub version: u8,
    /// The chunk's lock count (15: non-movable, 1 to 14: a locked handle).
    pub lock_count: u8,
    /// Reserved, 0.
    pub reserved: u8,
    /// Free bytes before the block, up to the previous pin or the heap's start.
    pub before: U32Be,
    /// Free bytes after the block, up to the next pin or the heap's end.
    pub after: U32Be,
    /// The dynamic heap's largest free chunk then, bytes.
    pub largest: U32Be,
    /// `TimGetTicks` then.
    pub ticks: U32Be,
    /// The pinning block's allocation.
    pub alloc: AllocRecord,
}
/// Size of a [`PinnedRecord`] in bytes.
pub const PINNED_RECORD_SIZE: usize = 104;
/// The first format version with [`PinnedRecord`]s.
pub const PINNED_FORMAT_VERSION: u8 = 5;
/// Lock count of a non-movable chunk (`memPtrLockCount`, PALM_FACTS §5.1).
pub const PINNED_LOCK_COUNT: u8 = 15;
const_assert_eq!(size_of::<PinnedRecord>(), PINNED_RECORD_SIZE);
const_assert_eq!(offset_of!(PinnedRecord, before), 4);
const_assert_eq!(offset_of!(PinnedRecord, ticks), 16);
const_assert_eq!(offset_of!(PinnedRecord, alloc), 20);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for PinnedRecord {}

/// A tracked handle still locked at stop (format version 5 on): its lock count
/// then, as the OS keeps it, not as memdbg counted it — on the OS 3.x path the
/// `lockCount` nibble (bits 31–28) of the chunk header's second long before the
/// body the handle's master pointer holds (PALM_FACTS §5.1), on the
/// documented-calls path ([`HeaderFlags::DOCUMENTED_CALLS`]) what
/// `MemHandleLockCount` (trap 0xA01F, sdk-3.5 `CoreTraps.h`) answers. A handle
/// that was freed is not live at stop and has none; a locked handle that is also
/// a leak has both its allocation record and this one. Written at stop, at most
/// one per live tracked handle, in slot order (no heap walk). 92 bytes.
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::LOCKED`] |
/// | 1 | 1 | version (5 on) |
/// | 2 | 1 | the handle's lock count at stop (1 to [`LOCKED_MAX_COUNT`]) |
/// | 3 | 1 | reserved (0) |
/// | 4 | 4 | ticks (`TimGetTicks`) at stop |
/// | 8 | 84 | the handle's allocation ([`AllocRecord`]: its address is the handle; site, call stack, sequence number) |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct LockedRecord {
    /// [`kind::LOCKED`].
    pub kind: u8,
    /// [`FORMAT_VERSION`] (5 or later).
    pub version: u8,
    /// The handle's lock count at stop, 1 to [`LOCKED_MAX_COUNT`].
    pub lock_count: u8,
    /// Reserved, 0.
    pub reserved: u8,
    /// `TimGetTicks` at stop.
    pub ticks: U32Be,
    /// The handle's allocation ([`AllocRecord::address`] is the handle).
    pub alloc: AllocRecord,
}
/// Size of a [`LockedRecord`] in bytes.
pub const LOCKED_RECORD_SIZE: usize = 92;
/// The first format version with [`LockedRecord`]s.
pub const LOCKED_FORMAT_VERSION: u8 = 5;
/// The highest lock count a handle can have: 14 (the 4-bit `lockCount` field's
/// 15 is `memPtrLockCount`, a non-movable chunk's; PALM_FACTS §5.1).
pub const LOCKED_MAX_COUNT: u8 = 14;
const_assert_eq!(size_of::<LockedRecord>(), LOCKED_RECORD_SIZE);
const_assert_eq!(offset_of!(LockedRecord, lock_count), 2);
const_assert_eq!(offset_of!(LockedRecord, ticks), 4);
const_assert_eq!(offset_of!(LockedRecord, alloc), 8);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for LockedRecord {}

/// An unlock of a tracked handle whose lock count was already 0 (format version
/// 5 on, with [`Options::LOCK_CHECKS`]): `MemHandleUnlock(h)`, or
/// `MemPtrUnlock(p)` of a pointer whose handle (`MemPtrRecoverHandle`) is
/// tracked. The count is the OS's, read before the unlock (the chunk header's
/// `lockCount` on the OS 3.x path, `MemHandleLockCount` with
/// [`HeaderFlags::DOCUMENTED_CALLS`]), never counted by memdbg. The unlock was
/// not passed to the OS (a debug ROM stops at it; a release ROM's handling is
/// UNVERIFIED), so the handle's lock count is unchanged. 122 bytes.
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::UNLOCK_UNDERFLOW`] |
/// | 1 | 1 | version (5 on) |
/// | 2 | 1 | the trap: [`UnlockUnderflowRecord::VIA_HANDLE`] (`MemHandleUnlock`) or [`UnlockUnderflowRecord::VIA_POINTER`] (`MemPtrUnlock`) |
/// | 3 | 1 | reserved (0) |
/// | 4 | 4 | the address passed to the unlock (the handle, or the pointer) |
/// | 8 | 4 | ticks (`TimGetTicks`) of the unlock |
/// | 12 | 26 | the unlock's site ([`Stack`]: its return address first) |
/// | 38 | 84 | the handle's [`AllocRecord`] (still live: the handle stays tracked) |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct UnlockUnderflowRecord {
    /// [`kind::UNLOCK_UNDERFLOW`].
    pub kind: u8,
    /// [`FORMAT_VERSION`] (5 or later).
    pub version: u8,
    /// Which unlock: [`Self::VIA_HANDLE`] or [`Self::VIA_POINTER`].
    pub via: u8,
    /// Reserved, 0.
    pub reserved: u8,
    /// The address passed to the unlock.
    pub address: U32Be,
    /// `TimGetTicks` at the unlock.
    pub ticks: U32Be,
    /// The unlock's callers (innermost first: the return address after the
    /// unlock call).
    pub site: Stack,
    /// The handle's allocation ([`AllocRecord::address`] is the handle).
    pub alloc: AllocRecord,
}

impl UnlockUnderflowRecord {
    /// [`UnlockUnderflowRecord::via`]: `MemHandleUnlock(h)`.
    pub const VIA_HANDLE: u8 = 0;
    /// [`UnlockUnderflowRecord::via`]: `MemPtrUnlock(p)`.
    pub const VIA_POINTER: u8 = 1;
}
/// Size of an [`UnlockUnderflowRecord`] in bytes.
pub const UNLOCK_UNDERFLOW_RECORD_SIZE: usize = 122;
/// The first format version with [`UnlockUnderflowRecord`]s.
pub const UNLOCK_UNDERFLOW_FORMAT_VERSION: u8 = 5;
const_assert_eq!(
    size_of::<UnlockUnderflowRecord>(),
    UNLOCK_UNDERFLOW_RECORD_SIZE
);
const_assert_eq!(offset_of!(UnlockUnderflowRecord, via), 2);
const_assert_eq!(offset_of!(UnlockUnderflowRecord, address), 4);
const_assert_eq!(offset_of!(UnlockUnderflowRecord, ticks), 8);
const_assert_eq!(offset_of!(UnlockUnderflowRecord, site), 12);
const_assert_eq!(offset_of!(UnlockUnderflowRecord, alloc), 38);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for UnlockUnderflowRecord {}

/// Code resource `resource` (N ≥ 2) of the app as `start` found it: where it was
/// locked, its size and its CRC-32 (format version 3 on). 16 bytes.
///
/// An app built with several code resources (prc-tools' `multiple code` sections,
/// `palm-build c-app --segments`) runs code 1 and, from it, code 2…n, which its
/// startup code gets with `DmGet1Resource('code', N)` and locks before PilotMain and
/// unlocks after it (prc-tools-remix `crt/dreloc.c`, `_GccLoadCodeAndRelocateData` and
/// `_GccReleaseCode`). A return address there is a raw frame of a [`Stack`]; inside
/// `[base, base + size)` it is `segment N + (address − base)`. The CRC-32 ([`crc32`]
/// of the resource's bytes) lets a host tool refuse the symbols of another build, as
/// for code 1.
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::SEGMENT`] |
/// | 1 | 1 | version (3 on) |
/// | 2 | 2 | resource ID N of the `code` resource (≥ 2) |
/// | 4 | 4 | base: 68k address of its first byte while the app ran |
/// | 8 | 4 | size, bytes |
/// | 12 | 4 | [`crc32`] of its bytes |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct SegmentRecord {
    /// [`kind::SEGMENT`].
    pub kind: u8,
    /// [`FORMAT_VERSION`] (3 or later).
    pub version: u8,
    /// The `code` resource's ID, N ≥ 2.
    pub resource: U16Be,
    /// 68k address of its first byte.
    pub base: U32Be,
    /// Its size in bytes.
    pub size: U32Be,
    /// [`crc32`] of its bytes.
    pub crc: U32Be,
}
/// Size of a [`SegmentRecord`] in bytes.
pub const SEGMENT_RECORD_SIZE: usize = 16;
/// The first format version with [`SegmentRecord`]s.
pub const SEGMENT_FORMAT_VERSION: u8 = 3;
const_assert_eq!(size_of::<SegmentRecord>(), SEGMENT_RECORD_SIZE);
const_assert_eq!(offset_of!(SegmentRecord, resource), 2);
const_assert_eq!(offset_of!(SegmentRecord, base), 4);
const_assert_eq!(offset_of!(SegmentRecord, size), 8);
const_assert_eq!(offset_of!(SegmentRecord, crc), 12);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for SegmentRecord {}

impl SegmentRecord {
    /// `address − base` when the 68k address `address` is inside this code
    /// resource, else `None`.
    pub fn offset_of(&self, address: u32) -> Option<u32> {
        let off = address.wrapping_sub(self.base.get());
        (off < self.size.get()).then_some(off)
    }

    /// The record among `segments` (a ledger's, in any order) whose code
    /// resource holds the 68k address `address` (a [`Frame::Raw`]), with
    /// [`SegmentRecord::offset_of`] it: the frame is `segment N + offset`.
    /// `None` when none holds it (the OS, the ROM, another app). The first
    /// such record when records overlap (in one run they do not: each is a
    /// locked chunk).
    pub fn locate(segments: &[SegmentRecord], address: u32) -> Option<(&SegmentRecord, u32)> {
        segments
            .iter()
            .find_map(|r| r.offset_of(address).map(|offset| (r, offset)))
    }
}

/// Bytes of a leak copied into its [`ContentsRecord`]: the first 32 (fewer for a
/// smaller block). 32 bytes show a C string or a struct's first fields (the
/// Visual Leak Detector and POSE leak dumps show about as many per line or two),
/// and keep the record at 40 bytes.
pub const CONTENTS_LEN: usize = 32;

/// The first bytes of a leak, copied at `stop` with [`Options::CONTENTS`] (format
/// version 4 on). 40 bytes. It follows the leak's allocation record's
/// sequence number, not its position: records are added and removed around it.
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::CONTENTS`] |
/// | 1 | 1 | version (4 on) |
/// | 2 | 2 | count: bytes copied, `min(size, 32)` ([`CONTENTS_LEN`]) |
/// | 4 | 4 | the leak's sequence number ([`AllocRecord::seq`]) |
/// | 8 | 32 | the block's first `count` bytes (from the block handed out: after the data offset), then zeros |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct ContentsRecord {
    /// [`kind::CONTENTS`].
    pub kind: u8,
    /// [`FORMAT_VERSION`] (4 or later).
    pub version: u8,
    /// Bytes of `bytes` that were copied (0..=[`CONTENTS_LEN`]).
    pub count: U16Be,
    /// The leak's sequence number.
    pub seq: U32Be,
    /// The block's first bytes; past `count`, zeros.
    pub bytes: [u8; CONTENTS_LEN],
}
/// Size of a [`ContentsRecord`] in bytes.
pub const CONTENTS_RECORD_SIZE: usize = 40;
/// The first format version with [`ContentsRecord`]s.
pub const CONTENTS_FORMAT_VERSION: u8 = 4;
const_assert_eq!(size_of::<ContentsRecord>(), CONTENTS_RECORD_SIZE);
const_assert_eq!(offset_of!(ContentsRecord, count), 2);
const_assert_eq!(offset_of!(ContentsRecord, seq), 4);
const_assert_eq!(offset_of!(ContentsRecord, bytes), 8);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for ContentsRecord {}

impl ContentsRecord {
    /// The bytes copied (the first `count`).
    pub fn contents(&self) -> &[u8] {
        let n = usize::from(self.count.get()).min(CONTENTS_LEN);
        &self.bytes[..n]
    }

    /// Decodes a contents record.
    ///
    /// # Errors
    /// Wrong length, kind or version (before 4), or a count above
    /// [`CONTENTS_LEN`].
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.first() != Some(&kind::CONTENTS) {
            return Err(DecodeError {
                offset: 0,
                what: "not a contents record",
            });
        }
        if bytes.len() < 2 {
            return Err(DecodeError {
                offset: bytes.len(),
                what: "truncated record",
            });
        }
        version(bytes[1], 1)?;
        if bytes[1] < CONTENTS_FORMAT_VERSION {
            return Err(DecodeError {
                offset: 1,
                what: "contents record of a format version before 4",
            });
        }
        exact(bytes, CONTENTS_RECORD_SIZE)?;
        let r = Self::read_from(bytes)?;
        if usize::from(r.count.get()) > CONTENTS_LEN {
            return Err(DecodeError {
                offset: offset_of!(ContentsRecord, count),
                what: "contents byte count above 32",
            });
        }
        Ok(r)
    }
}

/// A checkpoint (`memdbg::checkpoint`, format version 5 on): generation
/// `generation` starts here; the allocations after it carry that number
/// ([`AllocRecord::generation`]) until the next checkpoint. Written at once (one
/// `DmNewRecord` and one `DmWrite`, no heap walk), so a ledger left by a crash
/// keeps it. 92 bytes.
///
/// | off | size | field |
/// |---|---|---|
/// | 0 | 1 | kind = [`kind::CHECKPOINT`] |
/// | 1 | 1 | version (5 on) |
/// | 2 | 1 | generation it starts (1 to [`MAX_GENERATION`]) |
/// | 3 | 1 | reserved (0) |
/// | 4 | 4 | ticks (`TimGetTicks`) at the checkpoint |
/// | 8 | 4 | tracked blocks live then |
/// | 12 | 4 | their requested bytes |
/// | 16 | 76 | the run's [`Counters`] then, as a header written at that moment holds them (`leaks` and `leaked_bytes`: the live blocks and bytes, as in a [`HeaderFlags::RUNNING`] header) |
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct CheckpointRecord {
    /// [`kind::CHECKPOINT`].
    pub kind: u8,
    /// [`FORMAT_VERSION`] (5 or later).
    pub version: u8,
    /// The generation this checkpoint starts (1 to [`MAX_GENERATION`]).
    pub generation: u8,
    /// Reserved, 0.
    pub reserved: u8,
    /// `TimGetTicks` at the checkpoint.
    pub ticks: U32Be,
    /// Tracked blocks live at the checkpoint.
    pub live_count: U32Be,
    /// Their requested bytes.
    pub live_bytes: U32Be,
    /// The run's counters at the checkpoint.
    pub counters: Counters,
}
/// Size of a [`CheckpointRecord`] in bytes.
pub const CHECKPOINT_RECORD_SIZE: usize = 92;
/// The first format version with [`CheckpointRecord`]s.
pub const CHECKPOINT_FORMAT_VERSION: u8 = 5;
const_assert_eq!(size_of::<CheckpointRecord>(), CHECKPOINT_RECORD_SIZE);
const_assert_eq!(offset_of!(CheckpointRecord, ticks), 4);
const_assert_eq!(offset_of!(CheckpointRecord, live_count), 8);
const_assert_eq!(offset_of!(CheckpointRecord, live_bytes), 12);
const_assert_eq!(offset_of!(CheckpointRecord, counters), 16);
// SAFETY: repr(C), byte-array fields only, no padding (sizes asserted above).
unsafe impl AsBytes for CheckpointRecord {}

impl CheckpointRecord {
    /// Decodes a checkpoint record.
    ///
    /// # Errors
    /// Wrong length, kind or version (before 5), or generation 0.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.first() != Some(&kind::CHECKPOINT) {
            return Err(DecodeError {
                offset: 0,
                what: "not a checkpoint record",
            });
        }
        if bytes.len() < 2 {
            return Err(DecodeError {
                offset: bytes.len(),
                what: "truncated record",
            });
        }
        version(bytes[1], 1)?;
        if bytes[1] < CHECKPOINT_FORMAT_VERSION {
            return Err(DecodeError {
                offset: 1,
                what: "checkpoint record of a format version before 5",
            });
        }
        exact(bytes, CHECKPOINT_RECORD_SIZE)?;
        let r = Self::read_from(bytes)?;
        if r.generation == 0 {
            return Err(DecodeError {
                offset: offset_of!(CheckpointRecord, generation),
                what: "checkpoint record of generation 0",
            });
        }
        Ok(r)
    }
}

/// One row of a hex dump, as POSE's leak dump and Visual Leak Detector print a
/// block's bytes: each of `bytes` as two uppercase hex digits followed by a
/// space, blanks in place of the missing ones up to `width` bytes (so the
/// columns of a short last row line up), one more space, then the bytes as
/// text: printable ASCII (0x20..=0x7E) as itself, any other byte as `.`. Each
/// character goes to `put`, so that the host report and the device viewer
/// (no `core::fmt` on the 68k) print the same rows. `bytes` longer than
/// `width` are all printed.
pub fn dump_row(bytes: &[u8], width: usize, mut put: impl FnMut(u8)) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    for &b in bytes {
        put(DIGITS[usize::from(b >> 4)]);
        put(DIGITS[usize::from(b & 0xF)]);
        put(b' ');
    }
    for _ in bytes.len()..width {
        put(b' ');
        put(b' ');
        put(b' ');
    }
    put(b' ');
    for &b in bytes {
        put(as_text(b));
    }
}

/// Byte `b` in the text column of a hex dump ([`dump_row`]): printable ASCII
/// (0x20..=0x7E) as itself, any other byte as `.`.
pub const fn as_text(b: u8) -> u8 {
    if b >= 0x20 && b <= 0x7E { b } else { b'.' }
}

/// Any MemDbgDB record, decoded.
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub enum Record {
    /// Record 0.
    Header(Header),
    /// A reusable slot (only in a ledger whose run did not stop).
    FreeSlot,
    /// A live (at stop: leaked) allocation.
    Alloc(AllocRecord),
    /// A damaged guard.
    Overrun(OverrunRecord),
    /// A damaged chunk header before a block (format version 5 on).
    Underrun(UnderrunRecord),
    /// A double free.
    DoubleFree(DoubleFreeRecord),
    /// Small-allocation count of a site.
    SmallSite(SmallSiteRecord),
    /// Low largest-free-chunk warning.
    LowHeap(LowHeapRecord),
    /// A code resource N ≥ 2 (format version 3 on).
    Segment(SegmentRecord),
    /// A free of an address inside a tracked block (format version 4 on).
    InteriorFree(InteriorFreeRecord),
    /// A leak's first bytes (format version 4 on).
    Contents(ContentsRecord),
    /// A checkpoint: a new generation starts (format version 5 on).
    Checkpoint(CheckpointRecord),
    /// A block that pinned the dynamic heap (format version 5 on).
    Pinned(PinnedRecord),
    /// A tracked handle still locked at stop (format version 5 on).
    Locked(LockedRecord),
    /// An unlock of a tracked handle that was not locked (format version 5 on).
    UnlockUnderflow(UnlockUnderflowRecord),
}

impl Record {
    /// Decodes one record by its kind byte. A free slot is accepted at any length of
    /// at least 2 bytes (it is a reused allocation record).
    ///
    /// Never inlined on the 68k: inlined into a caller that keeps the result in
    /// a local, LLVM merges the arms' stores of the embedded [`AllocRecord`]
    /// (at a different offset in each variant) into stores at a variable
    /// offset from that local, which its m68k backend miscompiles (TOOLCHAIN.md
    /// bug 2; palm-build refuses such code). Out of line, the stores go through
    /// the result pointer.
    ///
    /// # Errors
    /// Empty or truncated record, unknown kind or version, a wrong size for the kind,
    /// a bad header, or an embedded allocation record that does not decode.
    #[cfg_attr(target_arch = "m68k", inline(never))]
    pub fn decode(bytes: &[u8]) -> Result<Record, DecodeError> {
        let Some(&k) = bytes.first() else {
            return Err(DecodeError {
                offset: 0,
                what: "empty record",
            });
        };
        if k == kind::HEADER {
            return Header::decode(bytes).map(Record::Header);
        }
        if bytes.len() < 2 {
            return Err(DecodeError {
                offset: bytes.len(),
                what: "truncated record",
            });
        }
        if k == kind::FREE_SLOT {
            version(bytes[1], 1)?;
            return Ok(Record::FreeSlot);
        }
        if kind::is_alloc(k) {
            return AllocRecord::decode(bytes).map(Record::Alloc);
        }
        match k {
            kind::OVERRUN => {
                version(bytes[1], 1)?;
                let r: OverrunRecord = ending_in_alloc(bytes)?;
                if !(detected::AT_FREE..=detected::AT_STOP).contains(&r.when.get()) {
                    return Err(DecodeError {
                        offset: offset_of!(OverrunRecord, when),
                        what: "unknown overrun detection point",
                    });
                }
                r.site.check(offset_of!(OverrunRecord, site))?;
                r.alloc.check(offset_of!(OverrunRecord, alloc))?;
                Ok(Record::Overrun(r))
            }
            kind::UNDERRUN => {
                version(bytes[1], 1)?;
                if bytes[1] < UNDERRUN_FORMAT_VERSION {
                    return Err(DecodeError {
                        offset: 1,
                        what: "underrun record of a format version before 5",
                    });
                }
                exact(bytes, UNDERRUN_RECORD_SIZE)?;
                let r = UnderrunRecord::read_from(bytes)?;
                if !(detected::AT_FREE..=detected::AT_STOP).contains(&r.when.get()) {
                    return Err(DecodeError {
                        offset: offset_of!(UnderrunRecord, when),
                        what: "unknown underrun detection point",
                    });
                }
                r.site.check(offset_of!(UnderrunRecord, site))?;
                r.alloc.check(offset_of!(UnderrunRecord, alloc))?;
                Ok(Record::Underrun(r))
            }
            kind::DOUBLE_FREE => {
                version(bytes[1], 1)?;
                let r: DoubleFreeRecord = ending_in_alloc(bytes)?;
                r.first.check(offset_of!(DoubleFreeRecord, first))?;
                r.second.check(offset_of!(DoubleFreeRecord, second))?;
                r.alloc.check(offset_of!(DoubleFreeRecord, alloc))?;
                Ok(Record::DoubleFree(r))
            }
            kind::INTERIOR_FREE => {
                version(bytes[1], 1)?;
                if bytes[1] < INTERIOR_FREE_FORMAT_VERSION {
                    return Err(DecodeError {
                        offset: 1,
                        what: "interior-free record of a format version before 4",
                    });
                }
                let r: InteriorFreeRecord = ending_in_alloc(bytes)?;
                r.site.check(offset_of!(InteriorFreeRecord, site))?;
                r.alloc.check(offset_of!(InteriorFreeRecord, alloc))?;
                Ok(Record::InteriorFree(r))
            }
            kind::SMALL_SITE => {
                version(bytes[1], 1)?;
                let r: SmallSiteRecord = ending_in_alloc(bytes)?;
                r.first.check(offset_of!(SmallSiteRecord, first))?;
                Ok(Record::SmallSite(r))
            }
            kind::LOW_HEAP => {
                version(bytes[1], 1)?;
                let r: LowHeapRecord = ending_in_alloc(bytes)?;
                r.alloc.check(offset_of!(LowHeapRecord, alloc))?;
                Ok(Record::LowHeap(r))
            }
            kind::SEGMENT => {
                version(bytes[1], 1)?;
                if bytes[1] < SEGMENT_FORMAT_VERSION {
                    return Err(DecodeError {
                        offset: 1,
                        what: "segment record of a format version before 3",
                    });
                }
                exact(bytes, SEGMENT_RECORD_SIZE)?;
                let r = SegmentRecord::read_from(bytes)?;
                if r.resource.get() < 2 {
                    return Err(DecodeError {
                        offset: offset_of!(SegmentRecord, resource),
                        what: "segment record of code resource 0 or 1",
                    });
                }
                Ok(Record::Segment(r))
            }
            kind::CONTENTS => ContentsRecord::decode(bytes).map(Record::Contents),
            kind::CHECKPOINT => CheckpointRecord::decode(bytes).map(Record::Checkpoint),
            kind::PINNED => {
                version(bytes[1], 1)?;
                if bytes[1] < PINNED_FORMAT_VERSION {
                    return Err(DecodeError {
                        offset: 1,
                        what: "pinned record of a format version before 5",
                    });
                }
                let r: PinnedRecord = ending_in_alloc(bytes)?;
                if !(1..=PINNED_LOCK_COUNT).contains(&r.lock_count) {
                    return Err(DecodeError {
                        offset: offset_of!(PinnedRecord, lock_count),
                        what: "pinned record with a lock count outside 1 to 15",
                    });
                }
                r.alloc.check(offset_of!(PinnedRecord, alloc))?;
                Ok(Record::Pinned(r))
            }
            kind::LOCKED => {
                version(bytes[1], 1)?;
                if bytes[1] < LOCKED_FORMAT_VERSION {
                    return Err(DecodeError {
                        offset: 1,
                        what: "locked record of a format version before 5",
                    });
                }
                exact(bytes, LOCKED_RECORD_SIZE)?;
                let r = LockedRecord::read_from(bytes)?;
                if !(1..=LOCKED_MAX_COUNT).contains(&r.lock_count) {
                    return Err(DecodeError {
                        offset: offset_of!(LockedRecord, lock_count),
                        what: "locked record with a lock count outside 1 to 14",
                    });
                }
                if !r.alloc.alloc_flags().contains(AllocFlags::HANDLE) {
                    return Err(DecodeError {
                        offset: offset_of!(LockedRecord, alloc)
                            + AllocRecord::FLAGS_OFFSET as usize,
                        what: "locked record of a block that is not a handle",
                    });
                }
                r.alloc.check(offset_of!(LockedRecord, alloc))?;
                Ok(Record::Locked(r))
            }
            kind::UNLOCK_UNDERFLOW => {
                version(bytes[1], 1)?;
                if bytes[1] < UNLOCK_UNDERFLOW_FORMAT_VERSION {
                    return Err(DecodeError {
                        offset: 1,
                        what: "unlock-underflow record of a format version before 5",
                    });
                }
                exact(bytes, UNLOCK_UNDERFLOW_RECORD_SIZE)?;
                let r = UnlockUnderflowRecord::read_from(bytes)?;
                if r.via > UnlockUnderflowRecord::VIA_POINTER {
                    return Err(DecodeError {
                        offset: offset_of!(UnlockUnderflowRecord, via),
                        what: "unlock-underflow record of an unknown unlock trap",
                    });
                }
                if !r.alloc.alloc_flags().contains(AllocFlags::HANDLE) {
                    return Err(DecodeError {
                        offset: offset_of!(UnlockUnderflowRecord, alloc)
                            + AllocRecord::FLAGS_OFFSET as usize,
                        what: "unlock-underflow record of a block that is not a handle",
                    });
                }
                r.site.check(offset_of!(UnlockUnderflowRecord, site))?;
                r.alloc.check(offset_of!(UnlockUnderflowRecord, alloc))?;
                Ok(Record::UnlockUnderflow(r))
            }
            _ => Err(DecodeError {
                offset: 0,
                what: "unknown record kind",
            }),
        }
    }
}

/// The size a record of kind `k` must have in format version `v` (a known
/// version), or `None` for a kind unknown there (a free slot has any size): the
/// header's by [`Header::size_of_version`], a record that is or ends in an
/// [`AllocRecord`] 2 bytes shorter before [`GENERATION_FORMAT_VERSION`].
pub const fn size_of_kind(k: u8, v: u8) -> Option<usize> {
    let old = if v < GENERATION_FORMAT_VERSION { 2 } else { 0 };
    let size = match k {
        kind::HEADER => return Header::size_of_version(v),
        kind::POINTER | kind::HANDLE | kind::CHUNK | kind::RUST => ALLOC_RECORD_SIZE - old,
        kind::OVERRUN => OVERRUN_RECORD_SIZE - old,
        kind::UNDERRUN if v >= UNDERRUN_FORMAT_VERSION => UNDERRUN_RECORD_SIZE,
        kind::DOUBLE_FREE => DOUBLE_FREE_RECORD_SIZE - old,
        kind::INTERIOR_FREE if v >= INTERIOR_FREE_FORMAT_VERSION => INTERIOR_FREE_RECORD_SIZE - old,
        kind::SMALL_SITE => SMALL_SITE_RECORD_SIZE - old,
        kind::LOW_HEAP => LOW_HEAP_RECORD_SIZE - old,
        kind::SEGMENT if v >= SEGMENT_FORMAT_VERSION => SEGMENT_RECORD_SIZE,
        kind::CONTENTS if v >= CONTENTS_FORMAT_VERSION => CONTENTS_RECORD_SIZE,
        kind::CHECKPOINT if v >= CHECKPOINT_FORMAT_VERSION => CHECKPOINT_RECORD_SIZE,
        kind::PINNED if v >= PINNED_FORMAT_VERSION => PINNED_RECORD_SIZE,
        kind::LOCKED if v >= LOCKED_FORMAT_VERSION => LOCKED_RECORD_SIZE,
        kind::UNLOCK_UNDERFLOW if v >= UNLOCK_UNDERFLOW_FORMAT_VERSION => {
            UNLOCK_UNDERFLOW_RECORD_SIZE
        }
        _ => return None,
    };
    Some(size)
}

/// Whether records of format version `v` can be read here
/// ([`OLDEST_FORMAT_VERSION`] to [`FORMAT_VERSION`]).
pub const fn is_known_version(v: u8) -> bool {
    OLDEST_FORMAT_VERSION <= v && v <= FORMAT_VERSION
}

fn version(v: u8, at: usize) -> Result<(), DecodeError> {
    if is_known_version(v) {
        Ok(())
    } else {
        Err(DecodeError {
            offset: at,
            what: "unknown record format version",
        })
    }
}

fn exact(bytes: &[u8], size: usize) -> Result<(), DecodeError> {
    if bytes.len() < size {
        Err(DecodeError {
            offset: bytes.len(),
            what: "truncated record",
        })
    } else if bytes.len() > size {
        Err(DecodeError {
            offset: size,
            what: "record longer than its kind's size",
        })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_stack() -> Stack {
        let mut s = Stack {
            count: 3,
            raw_mask: 0b100,
            ..Stack::default()
        };
        s.frames[0].set(0x0000_0124);
        s.frames[1].set(0x0000_1A02);
        s.frames[2].set(0x1000_2468);
        s
    }

    fn sample_alloc() -> AllocRecord {
        AllocRecord {
            kind: kind::HANDLE,
            version: FORMAT_VERSION,
            flags: U16Be::new((AllocFlags::GUARDED | AllocFlags::HANDLE).bits()),
            size: U32Be::new(16),
            address: U32Be::new(0x0001_2344),
            seq: U32Be::new(7),
            ticks: U32Be::new(0x0102_0304),
            line: U16Be::new(42),
            data_offset: U16Be::new(0),
            stack: sample_stack(),
            file: FileName::new(b"src/leaks.rs"),
            generation: 3,
            reserved: 0,
        }
    }

    #[test]
    fn flags_are_named_as_their_constants() {
        assert_eq!(HeaderFlags::flag_name(0x0001), Some("INCOMPLETE"));
        assert_eq!(HeaderFlags::flag_name(0x0002), Some("PATCHES_REFUSED"));
        assert_eq!(HeaderFlags::flag_name(0x0004), Some("RUNNING"));
        assert_eq!(HeaderFlags::flag_name(0x0003), None);
        assert_eq!(HeaderFlags::flag_name(0x8000_0000), None);
        assert_eq!(AllocFlags::flag_name(0x0001), Some("GUARDED"));
        // The same names bitflags gives every defined flag.
        for (name, f) in HeaderFlags::all().iter_names() {
            assert_eq!(HeaderFlags::flag_name(f.bits()), Some(name));
        }
        for (name, f) in Options::all().iter_names() {
            assert_eq!(Options::flag_name(f.bits()), Some(name));
        }
    }

    #[test]
    fn alloc_record_exact_bytes() {
        let r = sample_alloc();
        let mut want = vec![
            0x11, 5, 0x00, 0x05, // kind, version, flags
            0, 0, 0, 16, // size
            0x00, 0x01, 0x23, 0x44, // address
            0, 0, 0, 7, // seq
            1, 2, 3, 4, // ticks
            0, 42, 0, 0, // line, data offset
            3, 0b100, // stack count, raw mask
            0, 0, 0x01, 0x24, 0, 0, 0x1A, 0x02, 0x10, 0x00, 0x24, 0x68,
        ];
        want.extend_from_slice(&[0; 12]); // frames 3..6
        want.extend_from_slice(b"src/leaks.rs");
        want.extend_from_slice(&[0; 20]);
        want.extend_from_slice(&[3, 0]); // generation, reserved
        assert_eq!(want.len(), ALLOC_RECORD_SIZE);
        assert_eq!(r.as_bytes(), &want[..]);
        assert_eq!(AllocRecord::decode(&want), Ok(r));
        assert_eq!(Record::decode(&want), Ok(Record::Alloc(r)));
        // Versions 1 to 4: 82 bytes, no generation (0).
        let mut v4 = want[..ALLOC_RECORD_SIZE_V4].to_vec();
        for old in 1..=4 {
            v4[1] = old;
            let back = AllocRecord::decode(&v4).unwrap();
            assert_eq!(
                (back.version, back.generation, back.line.get()),
                (old, 0, 42)
            );
        }
        assert_eq!(
            AllocRecord::decode(&want[..ALLOC_RECORD_SIZE_V4])
                .unwrap_err()
                .offset,
            82
        );
        let mut long4 = want.clone();
        long4[1] = 4;
        assert_eq!(
            AllocRecord::decode(&long4).unwrap_err(),
            DecodeError {
                offset: 82,
                what: "record longer than its kind's size"
            }
        );
    }

    #[test]
    fn checkpoint_records_round_trip() {
        let mut r = CheckpointRecord {
            kind: kind::CHECKPOINT,
            version: FORMAT_VERSION,
            generation: 2,
            reserved: 0,
            ticks: U32Be::new(0x0102_0304),
            live_count: U32Be::new(3),
            live_bytes: U32Be::new(48),
            counters: Counters::default(),
        };
        r.counters.allocations.set(7);
        r.counters.os_unknown_frees.set(9);
        let b = r.as_bytes();
        assert_eq!(b.len(), CHECKPOINT_RECORD_SIZE);
        assert_eq!(
            &b[..20],
            &[
                0x26, 5, 2, 0, 1, 2, 3, 4, 0, 0, 0, 3, 0, 0, 0, 48, 0, 0, 0, 7
            ]
        );
        assert_eq!(&b[88..], &[0, 0, 0, 9]);
        assert_eq!(Record::decode(b), Ok(Record::Checkpoint(r)));
        assert_eq!(kind::name(kind::CHECKPOINT), "checkpoint");
        let mut old = b.to_vec();
        old[1] = 4;
        assert_eq!(
            Record::decode(&old).unwrap_err(),
            DecodeError {
                offset: 1,
                what: "checkpoint record of a format version before 5"
            }
        );
        let mut zero = b.to_vec();
        zero[2] = 0;
        assert_eq!(Record::decode(&zero).unwrap_err().offset, 2);
        assert_eq!(Record::decode(&b[..91]).unwrap_err().offset, 91);
    }

    #[test]
    fn stack_frames_decode() {
        let s = sample_stack();
        let frames: Vec<Frame> = s.iter().collect();
        assert_eq!(
            frames,
            vec![
                Frame::Code(0x124),
                Frame::Code(0x1A02),
                Frame::Raw(0x1000_2468)
            ]
        );
        assert_eq!(s.frame(3), None);
        assert_eq!(s.truncation(), None);
    }

    #[test]
    fn a_cut_stack_says_why_and_keeps_its_frames() {
        let mut s = sample_stack();
        s.raw_mask = Stack::TRUNCATED_CHAIN;
        assert_eq!(s.truncation(), Some(Truncation::BrokenChain));
        assert!(s.iter().all(|f| matches!(f, Frame::Code(_))));
        s.count = 6;
        s.raw_mask = Stack::TRUNCATED_DEPTH | 0b10_0000;
        assert_eq!(s.truncation(), Some(Truncation::DepthLimit));
        assert_eq!(s.frame(5), Some(Frame::Raw(0)));
        assert_eq!(s.iter().count(), 6);
        assert_eq!(Truncation::DepthLimit.describe(), "depth limit of 6 frames");
    }

    #[test]
    fn header_round_trip_and_layout() {
        let mut h = Header {
            kind: kind::HEADER,
            version: FORMAT_VERSION,
            header_size: U16Be::new(HEADER_SIZE as u16),
            magic: U32Be::new(HEADER_MAGIC),
            flags: U32Be::new((HeaderFlags::INCOMPLETE | HeaderFlags::PATCHES_REFUSED).bits()),
            options: U32Be::new((Options::GUARDS | Options::PATCH_FREES).bits()),
            max_alerts: U16Be::new(5),
            capacity: U16Be::new(1000),
            low_heap_threshold: U32Be::new(4096),
            app_creator: U32Be::new(u32::from_be_bytes(*b"MDst")),
            app_name: [0; 32],
            code_base: U32Be::new(0x0004_0010),
            code_size: U32Be::new(0x2000),
            start_ticks: U32Be::new(100),
            stop_ticks: U32Be::new(200),
            counters: Counters::default(),
            code_crc: U32Be::new(0x1234_5678),
        };
        h.app_name[..10].copy_from_slice(b"MemDbgTest");
        h.counters.allocations.set(3);
        h.counters.os_unknown_frees.set(0xAABBCCDD);
        let b = h.as_bytes();
        assert_eq!(b.len(), HEADER_SIZE);
        assert_eq!(
            &b[..16],
            &[
                1, 5, 0, 156, b'M', b'D', b'b', b'g', 0, 0, 0, 3, 0, 0, 0, 0x81
            ]
        );
        assert_eq!(
            &b[16..28],
            &[0, 5, 0x03, 0xE8, 0, 0, 0x10, 0, b'M', b'D', b's', b't']
        );
        assert_eq!(&b[28..38], b"MemDbgTest");
        assert_eq!(
            &b[60..76],
            &[0, 4, 0, 0x10, 0, 0, 0x20, 0, 0, 0, 0, 100, 0, 0, 0, 200]
        );
        assert_eq!(&b[76..80], &[0, 0, 0, 3]);
        assert_eq!(&b[148..152], &[0xAA, 0xBB, 0xCC, 0xDD]);
        assert_eq!(&b[152..156], &[0x12, 0x34, 0x56, 0x78]);
        let back = Header::decode(b).unwrap();
        assert_eq!(back, h);
        assert_eq!(back.stored_bytes(), b);
        assert_eq!(back.code_checksum(), Some(0x1234_5678));
        assert_eq!(back.app_name_bytes(), b"MemDbgTest");
        assert_eq!(
            back.header_flags(),
            HeaderFlags::INCOMPLETE | HeaderFlags::PATCHES_REFUSED
        );
        assert_eq!(back.option_flags(), Options::GUARDS | Options::PATCH_FREES);
    }

    #[test]
    fn version_1_headers_still_decode_without_a_checksum() {
        let mut h = Header {
            kind: kind::HEADER,
            version: FORMAT_VERSION,
            header_size: U16Be::new(HEADER_SIZE as u16),
            magic: U32Be::new(HEADER_MAGIC),
            code_size: U32Be::new(0x2000),
            code_crc: U32Be::new(0xDEAD_BEEF),
            ..Header::default()
        };
        // A version 1 header: the first 152 bytes, version 1, size 152.
        let mut v1 = h.as_bytes()[..HEADER_SIZE_V1].to_vec();
        v1[1] = 1;
        v1[3] = 152;
        let back = Header::decode(&v1).unwrap();
        assert_eq!(back.version, 1);
        assert_eq!(back.code_crc.get(), 0);
        assert_eq!(back.code_checksum(), None);
        assert_eq!(back.code_size.get(), 0x2000);
        assert_eq!(back.stored_bytes(), &v1[..]);
        assert_eq!(Record::decode(&v1), Ok(Record::Header(back)));
        // Each version has its own size: 156 bytes of version 1 or 152 of version 2
        // are wrong, and so is a size field that does not match the version.
        let mut long = v1.clone();
        long.extend_from_slice(&[0; 4]);
        assert_eq!(Header::decode(&long).unwrap_err().offset, HEADER_SIZE_V1);
        assert_eq!(
            Header::decode(&h.as_bytes()[..HEADER_SIZE_V1]).unwrap_err(),
            DecodeError {
                offset: HEADER_SIZE_V1,
                what: "truncated record"
            }
        );
        let mut size = v1.clone();
        size[3] = 156;
        assert_eq!(
            Header::decode(&size).unwrap_err(),
            DecodeError {
                offset: 2,
                what: "header size field is not 152 (version 1)"
            }
        );
        h.header_size.set(152);
        assert_eq!(Header::decode(h.as_bytes()).unwrap_err().offset, 2);
        // Version 2 without a located code 1 has no checksum either.
        h.header_size.set(156);
        h.code_size.set(0);
        assert_eq!(Header::decode(h.as_bytes()).unwrap().code_checksum(), None);
        // Version 2 to 5 headers have the same layout.
        let mut v2 = h.as_bytes().to_vec();
        v2[1] = 2;
        assert_eq!(Header::decode(&v2).unwrap().version, 2);
        for v in 2..=5 {
            assert_eq!(Header::size_of_version(v), Some(HEADER_SIZE));
        }
        assert_eq!(Header::size_of_version(6), None);
    }

    #[test]
    fn crc32_is_zlibs() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
        assert_eq!(crc32(&[0u8; 32]), 0x190A_55AD);
    }

    #[test]
    fn header_errors_name_the_field() {
        let mut h = Header {
            kind: kind::HEADER,
            version: FORMAT_VERSION,
            header_size: U16Be::new(HEADER_SIZE as u16),
            magic: U32Be::new(HEADER_MAGIC),
            ..Header::default()
        };
        let ok = h.as_bytes().to_vec();
        assert!(Header::decode(&ok).is_ok());
        assert_eq!(Header::decode(&ok[..100]).unwrap_err().offset, 100);
        let mut bad = ok.clone();
        bad[1] = 9;
        assert_eq!(
            Header::decode(&bad).unwrap_err(),
            DecodeError {
                offset: 1,
                what: "unknown record format version"
            }
        );
        h.magic.set(0);
        assert_eq!(Header::decode(h.as_bytes()).unwrap_err().offset, 4);
        let mut not_header = ok.clone();
        not_header[0] = kind::POINTER;
        assert_eq!(
            Header::decode(&not_header).unwrap_err(),
            DecodeError {
                offset: 0,
                what: "record 0 is not a MemDbgDB header"
            }
        );
    }

    #[test]
    fn event_records_round_trip() {
        let alloc = sample_alloc();
        let o = OverrunRecord {
            kind: kind::OVERRUN,
            version: FORMAT_VERSION,
            when: U16Be::new(detected::AT_FREE),
            ticks: U32Be::new(9),
            guard: [0x00, 0xFD, 0xFD, 0xFD],
            site: sample_stack(),
            alloc,
        };
        let b = o.as_bytes();
        assert_eq!(b.len(), OVERRUN_RECORD_SIZE);
        assert_eq!(&b[..12], &[0x20, 5, 0, 1, 0, 0, 0, 9, 0, 0xFD, 0xFD, 0xFD]);
        assert_eq!(&b[38..], alloc.as_bytes());
        assert_eq!(Record::decode(b), Ok(Record::Overrun(o)));
        // A version 4 overrun: 120 bytes, its allocation of generation 0.
        let mut v4 = b[..OVERRUN_RECORD_SIZE - 2].to_vec();
        v4[1] = 4;
        let Ok(Record::Overrun(back)) = Record::decode(&v4) else {
            panic!("a version 4 overrun record")
        };
        assert_eq!((back.alloc.generation, back.alloc.line.get()), (0, 42));
        assert_eq!(
            Record::decode(&b[..OVERRUN_RECORD_SIZE - 2])
                .unwrap_err()
                .offset,
            120
        );

        let d = DoubleFreeRecord {
            kind: kind::DOUBLE_FREE,
            version: FORMAT_VERSION,
            reserved: U16Be::new(0),
            address: U32Be::new(0x12344),
            first_after_seq: U32Be::new(10),
            second_ticks: U32Be::new(11),
            first: sample_stack(),
            second: Stack::default(),
            alloc,
        };
        let b = d.as_bytes();
        assert_eq!(b.len(), DOUBLE_FREE_RECORD_SIZE);
        assert_eq!(&b[4..16], &[0, 1, 0x23, 0x44, 0, 0, 0, 10, 0, 0, 0, 11]);
        assert_eq!(&b[42..68], &[0; 26]);
        assert_eq!(Record::decode(b), Ok(Record::DoubleFree(d)));

        let s = SmallSiteRecord {
            kind: kind::SMALL_SITE,
            version: FORMAT_VERSION,
            reserved: U16Be::new(0),
            count: U32Be::new(5),
            bytes: U32Be::new(40),
            first: alloc,
        };
        assert_eq!(
            &s.as_bytes()[..12],
            &[0x22, 5, 0, 0, 0, 0, 0, 5, 0, 0, 0, 40]
        );
        assert_eq!(Record::decode(s.as_bytes()), Ok(Record::SmallSite(s)));

        let l = LowHeapRecord {
            kind: kind::LOW_HEAP,
            version: FORMAT_VERSION,
            reserved: U16Be::new(0),
            free: U32Be::new(5000),
            largest: U32Be::new(1000),
            threshold: U32Be::new(2048),
            alloc,
        };
        assert_eq!(
            &l.as_bytes()[..16],
            &[
                0x23, 5, 0, 0, 0, 0, 0x13, 0x88, 0, 0, 0x03, 0xE8, 0, 0, 0x08, 0
            ]
        );
        assert_eq!(Record::decode(l.as_bytes()), Ok(Record::LowHeap(l)));

        let p = PinnedRecord {
            kind: kind::PINNED,
            version: FORMAT_VERSION,
            lock_count: PINNED_LOCK_COUNT,
            reserved: 0,
            before: U32Be::new(4000),
            after: U32Be::new(60000),
            largest: U32Be::new(59992),
            ticks: U32Be::new(7),
            alloc,
        };
        assert_eq!(
            &p.as_bytes()[..20],
            &[
                0x29, 5, 15, 0, 0, 0, 0x0F, 0xA0, 0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x58, 0, 0, 0, 7
            ]
        );
        assert_eq!(p.as_bytes().len(), PINNED_RECORD_SIZE);
        assert_eq!(size_of_kind(kind::PINNED, 5), Some(PINNED_RECORD_SIZE));
        assert_eq!(size_of_kind(kind::PINNED, 4), None);
        assert_eq!(Record::decode(p.as_bytes()), Ok(Record::Pinned(p)));
        let mut unlocked = p;
        unlocked.lock_count = 0;
        assert_eq!(
            Record::decode(unlocked.as_bytes()).map_err(|e| e.what),
            Err("pinned record with a lock count outside 1 to 15")
        );
        assert_eq!(kind::name(kind::PINNED), "pinned");
    }

    #[test]
    fn segment_records_round_trip_and_locate_addresses() {
        let r = SegmentRecord {
            kind: kind::SEGMENT,
            version: FORMAT_VERSION,
            resource: U16Be::new(2),
            base: U32Be::new(0x0004_1000),
            size: U32Be::new(0x120),
            crc: U32Be::new(0xCAFE_F00D),
        };
        let b = r.as_bytes();
        assert_eq!(
            b,
            &[
                0x02, 5, 0, 2, 0, 4, 0x10, 0, 0, 0, 0x01, 0x20, 0xCA, 0xFE, 0xF0, 0x0D
            ]
        );
        assert_eq!(Record::decode(b), Ok(Record::Segment(r)));
        assert_eq!(r.offset_of(0x0004_1000), Some(0));
        assert_eq!(r.offset_of(0x0004_111F), Some(0x11F));
        assert_eq!(r.offset_of(0x0004_1120), None);
        assert_eq!(r.offset_of(0x0004_0FFF), None);
        let code3 = SegmentRecord {
            resource: U16Be::new(3),
            base: U32Be::new(0x0005_0000),
            ..r
        };
        let both = [r, code3];
        assert_eq!(
            SegmentRecord::locate(&both, 0x0005_0010),
            Some((&code3, 0x10))
        );
        assert_eq!(SegmentRecord::locate(&both, 0x0004_1002), Some((&r, 2)));
        assert_eq!(SegmentRecord::locate(&both, 0x0004_1120), None);
        assert_eq!(SegmentRecord::locate(&[], 0x0004_1000), None);
        // A segment record claiming an older version, code 1, or a wrong size.
        let mut old = b.to_vec();
        old[1] = 2;
        assert_eq!(Record::decode(&old).unwrap_err().offset, 1);
        let mut one = b.to_vec();
        one[3] = 1;
        assert_eq!(Record::decode(&one).unwrap_err().offset, 2);
        assert_eq!(Record::decode(&b[..15]).unwrap_err().offset, 15);
        assert_eq!(kind::name(kind::SEGMENT), "segment");
    }

    #[test]
    fn contents_records_round_trip_and_dump_as_hex_and_text() {
        let mut r = ContentsRecord {
            kind: kind::CONTENTS,
            version: FORMAT_VERSION,
            count: U16Be::new(9),
            seq: U32Be::new(0x0102_0304),
            bytes: [0; CONTENTS_LEN],
        };
        r.bytes[..9].copy_from_slice(b"1234567\0\xFF");
        let b = r.as_bytes();
        let mut want = vec![0x25, 5, 0, 9, 1, 2, 3, 4];
        want.extend_from_slice(b"1234567\0\xFF");
        want.extend_from_slice(&[0; 23]);
        assert_eq!(b, &want[..]);
        assert_eq!(Record::decode(b), Ok(Record::Contents(r)));
        assert_eq!(r.contents(), b"1234567\0\xFF");
        // An older version, a count above 32, a wrong size.
        let mut old = want.clone();
        old[1] = 3;
        assert_eq!(
            Record::decode(&old).unwrap_err(),
            DecodeError {
                offset: 1,
                what: "contents record of a format version before 4"
            }
        );
        let mut big = want.clone();
        big[3] = 33;
        assert_eq!(Record::decode(&big).unwrap_err().offset, 2);
        assert_eq!(Record::decode(&want[..39]).unwrap_err().offset, 39);
        assert_eq!(kind::name(kind::CONTENTS), "contents");
        // A row of 8 with 9 bytes prints them all; a short row is padded.
        let row = |bytes: &[u8], width| {
            let mut s = Vec::new();
            dump_row(bytes, width, |c| s.push(c));
            String::from_utf8(s).unwrap()
        };
        assert_eq!(
            row(r.contents(), 8),
            "31 32 33 34 35 36 37 00 FF  1234567.."
        );
        assert_eq!(row(b"a\x1F~\x7F", 6), "61 1F 7E 7F        a.~.");
        assert_eq!(row(b"", 2), "       ");
    }

    #[test]
    fn underrun_records_round_trip() {
        let u = UnderrunRecord {
            kind: kind::UNDERRUN,
            version: FORMAT_VERSION,
            when: U16Be::new(detected::AT_STOP),
            ticks: U32Be::new(9),
            header: [0xF1, 0, 0, 0x41],
            site: Stack::default(),
            alloc: AllocRecord {
                kind: kind::POINTER,
                version: FORMAT_VERSION,
                ..AllocRecord::default()
            },
        };
        let b = u.as_bytes();
        assert_eq!(b.len(), UNDERRUN_RECORD_SIZE);
        assert_eq!(&b[..12], &[0x2A, 5, 0, 3, 0, 0, 0, 9, 0xF1, 0, 0, 0x41]);
        assert_eq!(Record::decode(b), Ok(Record::Underrun(u)));
        assert_eq!(kind::name(kind::UNDERRUN), "underrun");
        // Not in a version 4 ledger; no unknown detection point.
        let mut old = b.to_vec();
        old[1] = 4;
        assert_eq!(
            Record::decode(&old).unwrap_err().what,
            "underrun record of a format version before 5"
        );
        let mut when = b.to_vec();
        when[3] = 4;
        assert_eq!(
            Record::decode(&when).unwrap_err(),
            DecodeError {
                offset: 2,
                what: "unknown underrun detection point"
            }
        );
    }

    #[test]
    fn known_versions_are_1_to_5() {
        let known: Vec<u8> = (0..=255).filter(|&v| is_known_version(v)).collect();
        assert_eq!(known, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn decode_rejects_bad_records() {
        let good = sample_alloc().as_bytes().to_vec();
        assert_eq!(Record::decode(&[]).unwrap_err().what, "empty record");
        assert_eq!(Record::decode(&[0x10]).unwrap_err().offset, 1);
        assert_eq!(
            Record::decode(&good[..83]).unwrap_err(),
            DecodeError {
                offset: 83,
                what: "truncated record"
            }
        );
        let mut long = good.clone();
        long.push(0);
        assert_eq!(Record::decode(&long).unwrap_err().offset, 84);
        let mut k = good.clone();
        k[0] = 0x55;
        assert_eq!(Record::decode(&k).unwrap_err().what, "unknown record kind");
        let mut v = good.clone();
        v[1] = 6;
        assert_eq!(Record::decode(&v).unwrap_err().offset, 1);
        v[1] = 0;
        assert_eq!(Record::decode(&v).unwrap_err().offset, 1);
        // Version 1 to 4 records have the version 4 layout (82 bytes).
        let mut v = good[..ALLOC_RECORD_SIZE_V4].to_vec();
        for old in [1, 2, 3, 4] {
            v[1] = old;
            assert!(Record::decode(&v).is_ok());
        }
        let mut c = good.clone();
        c[24] = 7;
        assert_eq!(Record::decode(&c).unwrap_err().offset, 24);
        // A freed slot keeps its old bytes but is only a free slot.
        let mut f = good.clone();
        f[0] = kind::FREE_SLOT;
        assert_eq!(Record::decode(&f), Ok(Record::FreeSlot));
        // Overrun with an unknown detection point.
        let mut o = OverrunRecord {
            kind: kind::OVERRUN,
            version: FORMAT_VERSION,
            when: U16Be::new(4),
            alloc: sample_alloc(),
            ..OverrunRecord::default()
        };
        assert_eq!(Record::decode(o.as_bytes()).unwrap_err().offset, 2);
        // Embedded allocation with a bad kind: the offset points into the event.
        o.when.set(detected::AT_STOP);
        o.alloc.kind = kind::OVERRUN;
        assert_eq!(Record::decode(o.as_bytes()).unwrap_err().offset, 38);
    }

    #[test]
    fn file_names_keep_their_tail() {
        assert_eq!(FileName::new(b"src/lib.rs").bytes(), b"src/lib.rs");
        assert_eq!(FileName::cut(b"src/lib.rs"), 0);
        // 35 bytes: drop whole leading components until it fits in 31.
        let p = b"memdbg/tests/apps/ledger/src/lib.rs";
        assert_eq!(FileName::new(p).bytes(), b"tests/apps/ledger/src/lib.rs");
        assert!(FileName::cut(p) > 0);
        // Exactly 31 bytes fit.
        let p31 = b"abcdefghijklmnopqrstuvwxyz01234";
        assert_eq!(FileName::new(p31).bytes(), p31);
        // A 40-byte name without separators keeps its last 31 bytes.
        let long = b"0123456789012345678901234567890123456789";
        assert_eq!(FileName::new(long).bytes(), &long[9..]);
        // The separator nearest the start that still fits wins.
        let p2 = b"a/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/c.rs";
        assert_eq!(FileName::new(p2).bytes(), b"c.rs");
        // Always NUL-terminated.
        assert_eq!(FileName::new(long).0[31], 0);
        // An embedded NUL ends the name (C strings from C callers).
        assert_eq!(FileName::new(b"ab\0cd").bytes(), b"ab");
        // `set` stores exactly what `new` builds, whatever was there before.
        for p in [&b"src/lib.rs"[..], p, p31, long, p2, b"ab\0cd", b""] {
            let mut f = FileName([0xAA; FILE_NAME_LEN]);
            f.set(p);
            assert_eq!(f, FileName::new(p), "{:?}", String::from_utf8_lossy(p));
        }
    }

    #[test]
    fn locked_record_layout_and_decode() {
        let mut alloc = sample_alloc();
        alloc.kind = kind::HANDLE;
        alloc.flags = U16Be::new(AllocFlags::HANDLE.bits());
        let l = LockedRecord {
            kind: kind::LOCKED,
            version: FORMAT_VERSION,
            lock_count: 2,
            reserved: 0,
            ticks: U32Be::new(0x0102_0304),
            alloc,
        };
        let b = l.as_bytes();
        assert_eq!(b.len(), LOCKED_RECORD_SIZE);
        assert_eq!(&b[..8], &[0x27, 5, 2, 0, 1, 2, 3, 4]);
        assert_eq!(&b[8..], alloc.as_bytes());
        assert_eq!(size_of_kind(kind::LOCKED, 5), Some(92));
        assert_eq!(size_of_kind(kind::LOCKED, 4), None);
        assert_eq!(kind::name(kind::LOCKED), "locked");
        assert_eq!(Record::decode(b), Ok(Record::Locked(l)));
        let err = |r: &LockedRecord| Record::decode(r.as_bytes()).map_err(|e| (e.offset, e.what));
        for bad in [0, 15] {
            let r = LockedRecord {
                lock_count: bad,
                ..l
            };
            assert_eq!(
                err(&r),
                Err((2, "locked record with a lock count outside 1 to 14"))
            );
        }
        let mut ptr = l;
        ptr.alloc.flags = U16Be::new(0);
        assert_eq!(
            err(&ptr),
            Err((10, "locked record of a block that is not a handle"))
        );
        let old = LockedRecord { version: 4, ..l };
        assert_eq!(
            err(&old),
            Err((1, "locked record of a format version before 5"))
        );
        assert_eq!(
            Record::decode(&b[..91]).map_err(|e| (e.offset, e.what)),
            Err((91, "truncated record"))
        );
        let mut long = b.to_vec();
        long.push(0);
        assert_eq!(
            Record::decode(&long).map_err(|e| (e.offset, e.what)),
            Err((92, "record longer than its kind's size"))
        );
    }

    #[test]
    fn unlock_underflow_record_layout_and_decode() {
        let mut alloc = sample_alloc();
        alloc.kind = kind::HANDLE;
        alloc.flags = U16Be::new(AllocFlags::HANDLE.bits());
        let mut site = Stack {
            count: 1,
            ..Stack::default()
        };
        site.frames[0].set(0x0000_1234);
        let u = UnlockUnderflowRecord {
            kind: kind::UNLOCK_UNDERFLOW,
            version: FORMAT_VERSION,
            via: UnlockUnderflowRecord::VIA_POINTER,
            reserved: 0,
            address: U32Be::new(0x0001_0200),
            ticks: U32Be::new(0x0102_0304),
            site,
            alloc,
        };
        let b = u.as_bytes();
        assert_eq!(b.len(), UNLOCK_UNDERFLOW_RECORD_SIZE);
        assert_eq!(&b[..12], &[0x28, 5, 1, 0, 0, 1, 2, 0, 1, 2, 3, 4]);
        assert_eq!(&b[12..18], &[1, 0, 0, 0, 0x12, 0x34]);
        assert!(b[18..38].iter().all(|&x| x == 0));
        assert_eq!(&b[38..], alloc.as_bytes());
        assert_eq!(size_of_kind(kind::UNLOCK_UNDERFLOW, 5), Some(122));
        assert_eq!(size_of_kind(kind::UNLOCK_UNDERFLOW, 4), None);
        assert_eq!(kind::name(kind::UNLOCK_UNDERFLOW), "unlock underflow");
        assert_eq!(Record::decode(b), Ok(Record::UnlockUnderflow(u)));
        let err = |r: &UnlockUnderflowRecord| {
            Record::decode(r.as_bytes()).map_err(|e| (e.offset, e.what))
        };
        assert_eq!(
            err(&UnlockUnderflowRecord { via: 2, ..u }),
            Err((2, "unlock-underflow record of an unknown unlock trap"))
        );
        let mut ptr = u;
        ptr.alloc.flags = U16Be::new(0);
        assert_eq!(
            err(&ptr),
            Err((
                40,
                "unlock-underflow record of a block that is not a handle"
            ))
        );
        assert_eq!(
            err(&UnlockUnderflowRecord { version: 4, ..u }),
            Err((1, "unlock-underflow record of a format version before 5"))
        );
        assert_eq!(
            Record::decode(&b[..121]).map_err(|e| (e.offset, e.what)),
            Err((121, "truncated record"))
        );
    }

    #[test]
    fn every_kind_has_its_name() {
        let all = [
            (kind::FREE_SLOT, "free slot"),
            (kind::HEADER, "header"),
            (kind::SEGMENT, "segment"),
            (kind::POINTER, "pointer"),
            (kind::HANDLE, "handle"),
            (kind::CHUNK, "chunk"),
            (kind::RUST, "Rust alloc"),
            (kind::OVERRUN, "overrun"),
            (kind::UNDERRUN, "underrun"),
            (kind::DOUBLE_FREE, "double free"),
            (kind::SMALL_SITE, "small-allocation site"),
            (kind::LOW_HEAP, "low heap"),
            (kind::INTERIOR_FREE, "interior free"),
            (kind::CONTENTS, "contents"),
            (kind::CHECKPOINT, "checkpoint"),
            (kind::PINNED, "pinned"),
            (kind::LOCKED, "locked"),
            (kind::UNLOCK_UNDERFLOW, "unlock underflow"),
        ];
        for (k, n) in all {
            assert_eq!(kind::name(k), n, "kind {k:#04x}");
        }
        for k in 0..=255u8 {
            if !all.iter().any(|&(x, _)| x == k) {
                assert_eq!(kind::name(k), "unknown", "kind {k:#04x}");
            }
        }
    }

    #[test]
    fn kinds_have_names() {
        assert_eq!(kind::name(kind::HANDLE), "handle");
        assert_eq!(kind::name(kind::RUST), "Rust alloc");
        assert_eq!(kind::name(0x99), "unknown");
        assert!(kind::is_alloc(kind::CHUNK));
        assert!(!kind::is_alloc(kind::OVERRUN));
    }

    #[test]
    fn constants() {
        assert_eq!(DB_CREATOR, 0x4D44_6267);
        assert_eq!(DB_TYPE, 0x4C45_414B);
        assert_eq!(DB_NAME_C.to_bytes(), DB_NAME.as_bytes());
    }
}
