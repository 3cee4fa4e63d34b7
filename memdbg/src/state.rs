//! The detector's state: one chunk of the dynamic heap, owned by the system (owner 0,
//! so the OS never frees it behind our back, PALM_FACTS §5.1, §5.5), found again from
//! any context through the Feature Manager: `FtrGet('MDbg', 0)` holds its address
//! ([`crate::record::FEATURE_STATE`]). There are no writable statics (a Palm code
//! resource is write-protected, TOOLCHAIN.md). The same chunk holds, after the state,
//! the buffers ([`Scratch`]), the patch trampolines, the slot table and the index's
//! slot numbers; a second system-owned chunk holds the index's keys. `stop` frees
//! both.
//!
//! Entering the detector (the state found and marked busy, [`enter`]) and sampling
//! the heap ([`State::sample_heap`]) are 68000 assembly (`asm/state.s`): every
//! tracked allocation does both. The layout's offsets for the assembly are declared
//! here (`asm_constants!`).

use core::ffi::c_void;
use core::mem::offset_of;
use core::ptr::addr_of_mut;

use m68k_palmos_sys as palm;

use crate::index::Index;
use crate::record::{
    self, AllocRecord, CheckpointRecord, ContentsRecord, Counters, DoubleFreeRecord, Header,
    HeaderFlags, InteriorFreeRecord, LowHeapRecord, Options, OverrunRecord, Stack, U32Be,
    UnderrunRecord,
};
use crate::settings::{Settings, Site};
use crate::stack::CodeRange;

/// Recent frees remembered for double-free reports (a power of two): more than
/// a typical burst of frees in a row (a form's blocks, a list's nodes), whose
/// chunks the OS merges as they go, so that a second free of any of them is
/// still known.
pub const RING: usize = 16;
/// Call sites whose small allocations are counted separately.
pub const SITES: usize = 16;
/// [`State::patched`]: `MemChunkFree` and `MemHandleFree` are patched.
pub const PATCHED_FREES: u8 = 1;
/// [`State::patched`]: `MemPtrSize`, `MemHandleSize`, `MemPtrResize` and
/// `MemHandleResize` are patched (guard bytes hidden from the OS and the app).
pub const PATCHED_SIZES: u8 = 2;
/// [`State::patched`]: `MemPtrUnlock` and `MemHandleUnlock` are patched (an
/// unlock of a tracked handle that is not locked is refused and recorded,
/// [`record::Options::LOCK_CHECKS`]).
pub const PATCHED_UNLOCKS: u8 = 4;
/// "No slot" in the slot free list.
pub const NO_SLOT: u16 = 0xFFFF;
/// Bytes of the message buffer.
pub const MSG_LEN: usize = 112;
/// Arguments a message template may use ([`crate::text`]; indices wrap around: a
/// stray code in a file name cannot read past the array).
pub const ARGS: usize = 8;
/// Trampolines (and patched traps): `MemChunkFree`, `MemHandleFree`, `MemPtrSize`,
/// `MemHandleSize`, `MemPtrResize`, `MemHandleResize`, `MemPtrUnlock`,
/// `MemHandleUnlock`, in this order (trap `i`'s handle form is `i | 1`).
pub const TRAMPOLINES: usize = 8;
/// Bytes of one trampoline (`asm/patches.s`).
pub const TRAMPOLINE_LEN: usize = 40;

/// Recent frees of tracked blocks, as parallel arrays (a position scales by a shift).
/// An entry's slot stays out of the free list (its record keeps the allocation's
/// data, only the kind byte says "free") until the entry is overwritten, so a double
/// free can report the allocation.
#[repr(C)]
pub struct Ring {
    /// The addresses freed (0: empty entry).
    pub addr: [u32; RING],
    /// When each free was, as the sequence number of the last allocation before
    /// it (`State`'s `seq` then: the report's allocation `#N`). A sequence
    /// number, not ticks: it orders the free among the allocations exactly, and
    /// it costs no `TimGetTicks` on every free.
    pub after_seq: [u32; RING],
    /// Each block's chunk when it was freed (a pointer's is the pointer; a
    /// handle's is what `MemHandleLock` gave: a later `MemChunkFree` of that
    /// pointer frees the handle's chunk a second time).
    pub chunk: [u32; RING],
    /// Their (quarantined) slots.
    pub slot: [u16; RING],
    /// The allocations' kinds (their records' kind bytes now say "free slot").
    pub kind: [u8; RING],
    /// The frees' callers (only `count` frames are meaningful), each padded to 32
    /// bytes so that an entry's address scales by a shift.
    pub site: [RingSite; RING],
}

/// A ring entry's call stack, padded to 32 bytes.
#[repr(C)]
pub struct RingSite {
    /// The stack.
    pub stack: Stack,
    /// Padding.
    pub pad: [u8; 6],
}
static_assertions::const_assert_eq!(core::mem::size_of::<RingSite>(), 32);

/// Small-allocation count of one call site.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SmallSite {
    /// The site: a `Site`'s address (wrappers) or the innermost return address
    /// (Rust allocations).
    pub key: u32,
    /// Small allocations made there.
    pub count: u32,
    /// Their total requested bytes.
    pub bytes: u32,
    /// The first one's record.
    pub first: AllocRecord,
}

/// Scratch records for events.
#[repr(C)]
pub struct Events {
    /// Overrun being reported.
    pub overrun: OverrunRecord,
    /// Underrun being reported.
    pub underrun: UnderrunRecord,
    /// Double free being reported.
    pub double: DoubleFreeRecord,
    /// Interior free being reported.
    pub interior: InteriorFreeRecord,
    /// Low-heap warning being reported.
    pub low: LowHeapRecord,
    /// A leak's first bytes being recorded at stop.
    pub contents: ContentsRecord,
    /// A checkpoint being recorded.
    pub checkpoint: CheckpointRecord,
}

/// Everything the detector knows while it runs. All-zero bytes are a valid value
/// (null pointers, zero counters), which is how `start` initialises it.
///
/// The fields used on every allocation and free come first: LLVM's m68k backend
/// addresses a field at offset 128 or more through an index register (two
/// instructions and a spare register per access instead of one), so they are kept
/// in the first 128 bytes (checked below for the 68k). The buffers live after it, in
/// its chunk: [`Scratch`].
#[repr(C)]
pub struct State {
    /// Nonzero while the detector is working: a free trap entered meanwhile (the Data
    /// Manager's own frees, the detector's) goes straight to the original. Accessed
    /// with volatile reads and writes only ([`enter`], [`leave`]).
    pub busy: u8,
    /// Which traps are patched: [`PATCHED_FREES`], [`PATCHED_SIZES`],
    /// [`PATCHED_UNLOCKS`] bits.
    pub patched: u8,
    /// Next ring entry to write (the oldest).
    pub ring_next: u8,
    /// Nonzero when the scratch record's stack holds frames (else it is all zero).
    pub rec_stack: u8,
    /// [`record::Options`] bits (from the settings).
    pub options: u32,
    /// [`record::HeaderFlags`] bits so far.
    pub flags: u32,
    /// Code 1's range (empty if unknown).
    pub code: CodeRange,
    /// The free path's index ([`crate::index`]).
    pub index: Index,
    /// Each slot's record (`settings.capacity` pointers), busy and locked from its
    /// `DmNewRecord` to `stop`; written only with `DmWrite`/`DmSet`. A chunk
    /// followed by `slot_next`.
    pub slot_rec: *mut *mut u8,
    /// Each slot's successor in the free list ([`NO_SLOT`] ends it).
    pub slot_next: *mut u16,
    /// First free slot ([`NO_SLOT`]: none).
    pub free_head: u16,
    /// Slots created so far (one record each, interleaved with event records).
    pub n_slots: u16,
    /// Sequence number of the last tracked allocation.
    pub seq: u32,
    /// Live tracked bytes (requested sizes).
    pub live_bytes: u32,
    /// Live tracked blocks.
    pub live_count: u32,
    /// Live tracked handles (the pointer-of-a-handle lookup is skipped when 0).
    pub live_handles: u32,
    /// Peak of `live_bytes`.
    pub peak_bytes: u32,
    /// Peak of `live_count`.
    pub peak_count: u32,
    /// Last `MemHeapFreeBytes` free total.
    pub heap_free: u32,
    /// Last `MemHeapFreeBytes` largest free chunk.
    pub heap_max: u32,
    /// Low-water of `heap_free` ([`record::NOT_SAMPLED`] until sampled).
    pub low_free: u32,
    /// Low-water of `heap_max`.
    pub low_max: u32,
    /// The `Site` whose file and line the scratch record holds (0: none).
    pub rec_site: u32,
    /// Tracked allocations ([`record::Counters::allocations`]).
    pub allocations: u32,
    /// Frees of tracked blocks ([`record::Counters::frees`]).
    pub frees: u32,
    /// Of those, by the OS ([`record::Counters::os_frees`]).
    pub os_frees: u32,
    /// `MemChunkFree`'s address before patching.
    pub orig_chunk_free: *mut c_void,
    /// `MemHandleFree`'s address before patching.
    pub orig_handle_free: *mut c_void,
    /// The buffers ([`Scratch`], after the state in its chunk).
    pub scratch: *mut Scratch,
    /// Largest-free-chunk warning threshold (from the settings).
    pub low_heap_threshold: u32,
    // ---- used rarely: the ledger's and the small sites' fields still below
    // offset 128, then any offset.
    /// The open ledger database.
    pub db: palm::DmOpenRef,
    /// Small-site entries in use.
    pub n_sites: u8,
    /// Nonzero when the start's probe found that the OS does not keep the Palm
    /// OS 3.x internals memdbg reads ([`HeaderFlags::DOCUMENTED_CALLS`]): a
    /// handle's chunk is then reached only through `MemHandleLock`
    /// (`crate::probe`; the assembly tests this byte).
    pub documented: u8,
    /// The owner ID of the app's chunks (`MemHandleOwner` of the start's probe
    /// handle; 0: unknown): what a tracked block's chunk still has at stop.
    pub app_owner: u8,
    /// Padding, 0.
    pub pad: u8,
    /// Settings given to `start`.
    pub settings: Settings,
    /// The RAM trampolines the dispatch table points at while patched
    /// ([`TRAMPOLINES`] of [`TRAMPOLINE_LEN`] bytes: `MemChunkFree`,
    /// `MemHandleFree`, `MemPtrSize`, `MemHandleSize`, `MemPtrResize`,
    /// `MemHandleResize`, `MemPtrUnlock`, `MemHandleUnlock`; written by
    /// `crate::patch`).
    pub trampolines: *mut u8,
    /// `MemPtrSize`'s address before patching.
    pub orig_ptr_size: *mut c_void,
    /// `MemHandleSize`'s address before patching.
    pub orig_handle_size: *mut c_void,
    /// `MemPtrResize`'s address before patching.
    pub orig_ptr_resize: *mut c_void,
    /// `MemHandleResize`'s address before patching.
    pub orig_handle_resize: *mut c_void,
    /// `MemPtrUnlock`'s address before patching.
    pub orig_ptr_unlock: *mut c_void,
    /// `MemHandleUnlock`'s address before patching.
    pub orig_handle_unlock: *mut c_void,
    /// Code 1's resource handle, locked from `start` to `stop` (its address is
    /// [`State::code`]'s base only while it is locked; 0: not located).
    pub code_handle: palm::MemHandle,
    /// [`LAYOUT`]: a later `start` (of this app relaunched, or of another app
    /// linking memdbg) takes over a state that an app left behind only if it has
    /// this layout.
    pub layout: u32,
    /// The next heap-pinning snapshot is taken when the largest free chunk
    /// falls below this many bytes (`crate::pin`; [`record::NOT_SAMPLED`] at
    /// start).
    pub pin_next: u32,
    /// Pins kept in [`Scratch::pins`] (at most [`PINS`]).
    pub n_pins: u32,
}

/// How many heap-pinning culprits are kept (`crate::pin`: those splitting the
/// most free bytes).
pub const PINS: usize = 8;

/// [`State::layout`] of this build: the sizes of the state, its buffers and a
/// trampoline, which change with any change of the layout that matters to a
/// taker-over.
pub const LAYOUT: u32 = ((core::mem::size_of::<State>() as u32) << 16)
    ^ (core::mem::size_of::<Scratch>() as u32)
    ^ ((TRAMPOLINE_LEN as u32) << 24);

// The hot fields within 8-bit displacements of the state on the 68k (the
// assembly's `(d8,An,Xn)` forms, and LLVM's code, reach them in one instruction).
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(core::mem::offset_of!(State, low_heap_threshold) <= 124);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(core::mem::offset_of!(State, n_sites) < 128);

/// The detector's buffers: records and messages are built here (never on the stack:
/// a variable index into a stack array is miscompiled by LLVM's m68k backend,
/// TOOLCHAIN.md #2, and Palm stacks are small). Placed after the state, reached through
/// [`State::scratch`] as a raw pointer ([`State::sc`]: used locally, never passed on
/// as a `&mut` parameter); the allocation record comes first, at offset 0.
#[repr(C)]
pub struct Scratch {
    /// The allocation record being built, written with one `DmWrite`. Its version
    /// byte is set once; its file, line and stack change only when needed.
    pub rec: AllocRecord,
    /// Arguments of the message being built ([`crate::text`]).
    pub args: [usize; ARGS],
    /// Recent frees.
    pub ring: Ring,
    /// Small-allocation sites.
    pub sites: [SmallSite; SITES],
    /// Event records being built.
    pub ev: Events,
    /// The header being built; the rarer counters are kept in it all along
    /// (`header.counters`; the frequent ones are fields of [`State`]).
    pub header: Header,
    /// Site built at run time for C callers.
    pub c_site: Site,
    /// Message buffer (NUL-terminated text).
    pub msg: [u8; MSG_LEN],
    /// The pins of the last heap-pinning snapshot (`crate::pin`), as their
    /// ledger records; the first [`State::n_pins`] are in use.
    pub pins: [record::PinnedRecord; PINS],
}

/// The byte, as an offset into the state, that holds the single-bit flag `mask` of the
/// big-endian long at offset `field` (`options`, `flags`): bit b of the long is bit
/// b % 8 ([`flag_bit`]) of its byte 3 − b / 8. The assembly tests and sets flags with
/// `btst`/`bset` on that byte. A `mask` of more than one bit is a compile error where
/// the result is a `const`.
pub const fn flag_byte(field: usize, mask: u32) -> usize {
    assert!(mask.is_power_of_two());
    field + 3 - mask.trailing_zeros() as usize / 8
}

/// The bit of [`flag_byte`]'s byte that holds the single-bit flag `mask`.
pub const fn flag_bit(mask: u32) -> u32 {
    assert!(mask.is_power_of_two());
    mask.trailing_zeros() % 8
}

#[cfg(target_arch = "m68k")]
unsafe extern "C" {
    /// `asm/state.s`: the state entered, or 0 (a register routine).
    fn __memdbg_enter();
    /// `asm/state.s`: [`State::sample_heap`]; LLVM's C convention.
    fn __memdbg_heap_marks(st: *mut State);
}

/// The state chunk's address from the Feature Manager (`FtrGet('MDbg', 0)`), or null
/// when the detector is not running.
pub fn state_ptr() -> *mut State {
    // Written by FtrGet when it succeeds (and read only then).
    let mut v = core::mem::MaybeUninit::<u32>::uninit();
    // SAFETY: FtrGet writes one UInt32 to a valid local when it returns errNone.
    unsafe {
        if palm::FtrGet(record::DB_CREATOR, record::FEATURE_STATE, v.as_mut_ptr()) != palm::errNone
        {
            return core::ptr::null_mut();
        }
        v.assume_init() as usize as *mut State
    }
}

/// Marks the detector busy and returns its state, or `None` if it is not running or
/// already busy (a re-entered call must go straight to the OS): `__memdbg_enter`
/// (`asm/state.s`, which the allocation's assembly calls too). [`leave`] ends it.
#[inline]
pub fn enter() -> Option<&'static mut State> {
    #[cfg(target_arch = "m68k")]
    {
        let p: *mut State;
        // SAFETY: the routine's contract: no arguments; the state (or 0) in A0;
        // changes D0–D2/A0–A1 (D2 as its trap may).
        unsafe {
            core::arch::asm!(
                "jsr ({f},%pc)",
                f = sym __memdbg_enter,
                out("a0") p,
                out("d0") _,
                out("d1") _,
                out("d2") _,
                out("a1") _,
            )
        };
        // SAFETY: a non-null result is the live state chunk (set by `start`, removed
        // by `stop` before the chunk is freed), just marked busy by this call: no
        // other reference to it is in use.
        unsafe { p.as_mut() }
    }
    #[cfg(not(target_arch = "m68k"))]
    crate::not_on_palm()
}

/// Ends what [`enter`] began: the busy mark cleared.
#[inline]
pub fn leave(st: &mut State) {
    // SAFETY: a plain field of the state; volatile, as the assembly and a nested
    // entry (through a trap patch) read it.
    unsafe { addr_of_mut!(st.busy).write_volatile(0) }
}

/// Adds one to a header counter.
#[inline]
pub fn bump(c: &mut U32Be) {
    c.set(c.get().wrapping_add(1));
}

impl State {
    /// Whether an option is on.
    #[inline]
    pub fn has(&self, o: Options) -> bool {
        self.options & o.bits() != 0
    }

    /// Sets header flags.
    #[inline]
    pub fn flag(&mut self, f: HeaderFlags) {
        self.flags |= f.bits();
    }

    /// The scratch buffers. Use the reference locally, never pass it on as a
    /// parameter (see [`Scratch`]); no other reference to them exists meanwhile.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub fn sc(&self) -> &'static mut Scratch {
        // SAFETY: `scratch` is the live scratch chunk for as long as the state is
        // (a separate object from the state itself); every user takes the reference
        // for the span of its own code only.
        unsafe { &mut *self.scratch }
    }

    /// The header's counters, where the rarer ones are counted all along (the
    /// frequent ones are fields of the state).
    #[inline]
    pub fn counters(&self) -> &'static mut Counters {
        &mut self.sc().header.counters
    }

    /// Samples the dynamic heap into the low-water marks ([`Options::HEAP_STATS`]):
    /// `MemHeapFreeBytes(0, &heap_free, &heap_max)`, then `low_free` and `low_max`
    /// lowered to them: `__memdbg_heap_marks` (`asm/state.s`), which the allocation's
    /// assembly calls after every tracked allocation.
    #[inline]
    pub fn sample_heap(&mut self) {
        #[cfg(target_arch = "m68k")]
        // SAFETY: the entered state; the routine keeps D2–D7/A2–A6.
        unsafe {
            __memdbg_heap_marks(self)
        };
        #[cfg(not(target_arch = "m68k"))]
        crate::not_on_palm()
    }

    /// Slot `s`'s ledger record.
    #[inline]
    pub fn rec(&self, s: u16) -> *mut u8 {
        // SAFETY: slot numbers handed out are below `n_slots` ≤ capacity, the table's
        // size.
        unsafe { *self.slot_rec.add(usize::from(s)) }
    }
}

/// `asm_constants!` of single-bit options and header flags the assembly tests or
/// sets with one `btst`/`bset` on a byte: `$byte` = that byte's offset in the state
/// ([`flag_byte`]), `$bit` = the bit ([`flag_bit`]).
macro_rules! option_bits {
    ($($byte:ident, $bit:ident = $field:ident, $flag:expr;)*) => {
        asm_constants! {
            $(
                $byte = flag_byte(offset_of!(State, $field), $flag.bits());
                $bit = flag_bit($flag.bits());
            )*
        }
    };
}

// The state's layout, for the assembly and for the tests that run it: field
// offsets into [`State`] (`ST_`), [`Settings`] (`SETTINGS_`), [`Scratch`] (`SC_`)
// and [`Ring`] (`RING_`).
asm_constants! {
    ST_BUSY = offset_of!(State, busy);
    ST_PATCHED = offset_of!(State, patched);
    ST_RING_NEXT = offset_of!(State, ring_next);
    ST_REC_STACK = offset_of!(State, rec_stack);
    ST_OPTIONS = offset_of!(State, options);
    ST_FLAGS = offset_of!(State, flags);
    ST_CODE_BASE = offset_of!(State, code) + offset_of!(CodeRange, base);
    ST_CODE_END = offset_of!(State, code) + offset_of!(CodeRange, end);
    ST_INDEX = offset_of!(State, index);
    ST_SLOT_REC = offset_of!(State, slot_rec);
    ST_SLOT_NEXT = offset_of!(State, slot_next);
    ST_FREE_HEAD = offset_of!(State, free_head);
    ST_SEQ = offset_of!(State, seq);
    ST_LIVE_BYTES = offset_of!(State, live_bytes);
    ST_LIVE_COUNT = offset_of!(State, live_count);
    ST_LIVE_HANDLES = offset_of!(State, live_handles);
    ST_PEAK_BYTES = offset_of!(State, peak_bytes);
    ST_PEAK_COUNT = offset_of!(State, peak_count);
    ST_HEAP_FREE = offset_of!(State, heap_free);
    ST_HEAP_MAX = offset_of!(State, heap_max);
    ST_LOW_FREE = offset_of!(State, low_free);
    ST_LOW_MAX = offset_of!(State, low_max);
    ST_PIN_NEXT = offset_of!(State, pin_next);
    ST_REC_SITE = offset_of!(State, rec_site);
    ST_ALLOCATIONS = offset_of!(State, allocations);
    ST_FREES = offset_of!(State, frees);
    ST_OS_FREES = offset_of!(State, os_frees);
    ST_ORIG_CHUNK_FREE = offset_of!(State, orig_chunk_free);
    ST_ORIG_HANDLE_FREE = offset_of!(State, orig_handle_free);
    ST_SCRATCH = offset_of!(State, scratch);
    ST_LOW_HEAP_THRESHOLD = offset_of!(State, low_heap_threshold);
    ST_ORIG_PTR_SIZE = offset_of!(State, orig_ptr_size);
    ST_ORIG_HANDLE_SIZE = offset_of!(State, orig_handle_size);
    ST_ORIG_PTR_RESIZE = offset_of!(State, orig_ptr_resize);
    ST_ORIG_HANDLE_RESIZE = offset_of!(State, orig_handle_resize);
    ST_ORIG_PTR_UNLOCK = offset_of!(State, orig_ptr_unlock);
    ST_ORIG_HANDLE_UNLOCK = offset_of!(State, orig_handle_unlock);
    PATCHED_UNLOCKS_BIT = PATCHED_UNLOCKS.trailing_zeros() as usize;
    ST_N_SLOTS = offset_of!(State, n_slots);
    ST_DB = offset_of!(State, db);
    ST_N_SITES = offset_of!(State, n_sites);
    ST_DOCUMENTED = offset_of!(State, documented);
    ST_APP_OWNER = offset_of!(State, app_owner);
    ST_SETTINGS = offset_of!(State, settings);
    ST_TRAMPOLINES = offset_of!(State, trampolines);
    ST_SIZE = core::mem::size_of::<State>();
    SETTINGS_OPTIONS = offset_of!(Settings, options);
    SETTINGS_MAX_ALERTS = offset_of!(Settings, max_alerts);
    SETTINGS_CAPACITY = offset_of!(Settings, capacity);
    SETTINGS_LOW_HEAP_THRESHOLD = offset_of!(Settings, low_heap_threshold);
    SC_REC = offset_of!(Scratch, rec);
    SC_ARGS = offset_of!(Scratch, args);
    SC_RING = offset_of!(Scratch, ring);
    SC_SITES = offset_of!(Scratch, sites);
    SC_EV_OVERRUN = offset_of!(Scratch, ev) + offset_of!(Events, overrun);
    SC_EV_DOUBLE = offset_of!(Scratch, ev) + offset_of!(Events, double);
    SC_EV_LOW = offset_of!(Scratch, ev) + offset_of!(Events, low);
    SC_HEADER = offset_of!(Scratch, header);
    SC_C_SITE = offset_of!(Scratch, c_site);
    SC_MSG = offset_of!(Scratch, msg);
    SC_SIZE = core::mem::size_of::<Scratch>();
    SMALL_SITE_SIZE = core::mem::size_of::<SmallSite>();
    RING_ADDR = offset_of!(Ring, addr);
    RING_AFTER_SEQ = offset_of!(Ring, after_seq);
    RING_CHUNK = offset_of!(Ring, chunk);
    RING_SLOT = offset_of!(Ring, slot);
    RING_KIND = offset_of!(Ring, kind);
    RING_SITE = offset_of!(Ring, site);
    RING_SITE_SHIFT = core::mem::size_of::<RingSite>().trailing_zeros();
    RING_MASK = RING - 1;
    NO_SLOT = NO_SLOT;
    TRAMPOLINE_LEN = TRAMPOLINE_LEN;
}

// The Feature Manager's key of the state, and the Palm OS traps memdbg's assembly
// calls (`SYSTRAP`; palm-sys's numbers, from its trap table).
asm_constants! {
    DB_CREATOR = record::DB_CREATOR;
    FEATURE_STATE = record::FEATURE_STATE;
    sysTrapFtrGet = palm::traps::sysTrapFtrGet;
    sysTrapMemHeapFreeBytes = palm::traps::sysTrapMemHeapFreeBytes;
    sysTrapMemPtrNew = palm::traps::sysTrapMemPtrNew;
    sysTrapMemHandleNew = palm::traps::sysTrapMemHandleNew;
    sysTrapMemChunkNew = palm::traps::sysTrapMemChunkNew;
    sysTrapTimGetTicks = palm::traps::sysTrapTimGetTicks;
    sysTrapDmWrite = palm::traps::sysTrapDmWrite;
    sysTrapDmSet = palm::traps::sysTrapDmSet;
    sysTrapMemHandleLock = palm::traps::sysTrapMemHandleLock;
    sysTrapMemHandleUnlock = palm::traps::sysTrapMemHandleUnlock;
}

option_bits! {
    ST_OPT_GUARDS, OPT_GUARDS_BIT = options, Options::GUARDS;
    ST_OPT_CALL_STACKS, OPT_CALL_STACKS_BIT = options, Options::CALL_STACKS;
    ST_OPT_HEAP_STATS, OPT_HEAP_STATS_BIT = options, Options::HEAP_STATS;
    ST_OPT_FILL_NEW, OPT_FILL_NEW_BIT = options, Options::FILL_NEW;
    ST_OPT_FILL_FREED, OPT_FILL_FREED_BIT = options, Options::FILL_FREED;
    ST_HF_LOW_HEAP, HF_LOW_HEAP_BIT = flags, HeaderFlags::LOW_HEAP;
}

// A ring entry's call stack scales by a shift; the ring's arrays start within
// signed 8-bit displacements of its start + 128 (`asm/free.s`'s RING_BIAS).
static_assertions::const_assert!(core::mem::size_of::<RingSite>().is_power_of_two());
static_assertions::const_assert!(RING.is_power_of_two());
static_assertions::const_assert!(offset_of!(Ring, site) < 256);
