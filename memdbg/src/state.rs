//! The detector's state: one chunk of the dynamic heap, owned by the system (owner 0,
//! so the OS never frees it behind our back, PALM_FACTS §5.1, §5.5), found again from
//! any context through the Feature Manager: `FtrGet('MDbg', 0)` holds its address
//! ([`crate::record::FEATURE_STATE`]). There are no writable statics (a Palm code
//! resource is write-protected, TOOLCHAIN.md). The same chunk holds, after the state,
//! the buffers ([`Scratch`]), the patch trampolines, the slot table and the index's
//! slot numbers; a second system-owned chunk holds the index's keys. `stop` frees
//! both.

use core::ffi::c_void;
#[cfg(not(target_arch = "m68k"))]
use core::ptr::addr_of_mut;

use m68k_palmos_sys as palm;

use crate::index::Index;
use crate::record::{
    self, AllocRecord, DoubleFreeRecord, Header, LowHeapRecord, OverrunRecord, Stack,
};
use crate::stack::CodeRange;
use crate::{Settings, Site};

/// Recent frees remembered for double-free reports (a power of two).
pub const RING: usize = 8;
/// Call sites whose small allocations are counted separately.
pub const SITES: usize = 16;
/// [`State::patched`]: `MemChunkFree` and `MemHandleFree` are patched.
pub const PATCHED_FREES: u8 = 1;
/// [`State::patched`]: `MemPtrSize`, `MemHandleSize`, `MemPtrResize` and
/// `MemHandleResize` are patched (guard bytes hidden from the OS and the app).
pub const PATCHED_SIZES: u8 = 2;
/// "No slot" in the slot free list.
pub const NO_SLOT: u16 = 0xFFFF;
/// Bytes of the message buffer.
pub const MSG_LEN: usize = 112;

/// Recent frees of tracked blocks, as parallel arrays (a position scales by a shift).
/// An entry's slot stays out of the free list (its record keeps the allocation's
/// data, only the kind byte says "free") until the entry is overwritten, so a double
/// free can report the allocation.
#[repr(C)]
pub struct Ring {
    /// The addresses freed (0: empty entry).
    pub addr: [u32; RING],
    /// Ticks of each free.
    pub ticks: [u32; RING],
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
    /// Double free being reported.
    pub double: DoubleFreeRecord,
    /// Low-heap warning being reported.
    pub low: LowHeapRecord,
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
    /// Which traps are patched: [`PATCHED_FREES`], [`PATCHED_SIZES`] bits.
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
    /// The free path's index.
    pub index: Index,
    /// Each slot's record (`settings.capacity` pointers), locked; written only with
    /// `DmWrite`/`DmSet`. A chunk followed by `slot_next`.
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
    /// Record 0, locked.
    pub header_rec: *mut u8,
    /// Small-site entries in use.
    pub n_sites: u8,
    /// Padding, 0.
    pub pad: u8,
    /// Settings given to `start`.
    pub settings: Settings,
    /// The RAM trampolines the dispatch table points at while patched
    /// ([`crate::patch::TRAMPOLINES`] of [`crate::patch::TRAMPOLINE_LEN`] bytes:
    /// `MemChunkFree`, `MemHandleFree`, `MemPtrSize`, `MemHandleSize`,
    /// `MemPtrResize`, `MemHandleResize`).
    pub trampolines: *mut u8,
    /// `MemPtrSize`'s address before patching.
    pub orig_ptr_size: *mut c_void,
    /// `MemHandleSize`'s address before patching.
    pub orig_handle_size: *mut c_void,
    /// `MemPtrResize`'s address before patching.
    pub orig_ptr_resize: *mut c_void,
    /// `MemHandleResize`'s address before patching.
    pub orig_handle_resize: *mut c_void,
}

#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(core::mem::offset_of!(State, low_heap_threshold) <= 124);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(core::mem::offset_of!(State, n_sites) < 128);

/// The detector's buffers: records and messages are built here (never on the stack:
/// a variable index into a stack array is miscompiled by LLVM's m68k backend,
/// TOOLCHAIN.md #2, and Palm stacks are small). Placed after the state, reached through
/// [`State::scratch`] as a raw pointer (never a `&mut` parameter, so no reference to
/// it is ever assumed unaliased across calls); the allocation record comes first, at
/// small offsets.
#[repr(C)]
pub struct Scratch {
    /// The allocation record being built, written with one `DmWrite`. Its version
    /// byte is set once; its file, line and stack change only when needed.
    pub rec: AllocRecord,
    /// Arguments of the message being built ([`crate::text`]), at a small offset so
    /// that each store is one instruction.
    pub args: [usize; crate::text::ARGS],
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
}

/// A field of the scratch chunk (`scratch!(st, ev.overrun)`) as a `&mut`, used
/// locally. (Used by host stand-ins of assembly.)
#[cfg(not(target_arch = "m68k"))]
macro_rules! scratch {
    ($st:expr, $($f:tt)+) => {{
        let p = $st.scratch;
        // SAFETY: a field of the live scratch chunk; used locally, like `State::sc`.
        unsafe { &mut *core::ptr::addr_of_mut!((*p).$($f)+) }
    }};
}
#[cfg(not(target_arch = "m68k"))]
pub(crate) use scratch;

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

/// The state chunk's address from the Feature Manager (`FtrGet('MDbg', 0)`), or null
/// when the detector is not running: the host builds' stand-in for the 68k's
/// assembly ([`crate::session::state_ptr`], and [`crate::fast::enter`] on the
/// wrappers' path).
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub fn state_ptr() -> *mut State {
    // Written by FtrGet when it succeeds (and read only then).
    let mut v = core::mem::MaybeUninit::<u32>::uninit();
    // SAFETY: FtrGet writes one UInt32 to a valid local when it returns errNone.
    unsafe {
        let err = palm::FtrGet(record::DB_CREATOR, record::FEATURE_STATE, v.as_mut_ptr());
        if err != palm::errNone {
            return core::ptr::null_mut();
        }
        v.assume_init() as usize as *mut State
    }
}

/// Marks the detector busy and returns its state, or `None` if it is not running or
/// already busy (a re-entered call must go straight to the OS). Host builds; the
/// 68k's is [`crate::fast::enter`], in assembly, with the same effect.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub fn enter() -> Option<&'static mut State> {
    let p = state_ptr();
    if p.is_null() {
        return None;
    }
    // SAFETY: a non-null feature value is the live state chunk (set by `start`,
    // removed by `stop` before the chunk is freed). `busy` is read and written
    // volatile so that a nested entry (through a trap patch, while an outer call holds
    // the state) sees the outer call's mark, and the `&mut` is made only when nobody
    // else holds one.
    unsafe {
        if core::ptr::addr_of!((*p).busy).read_volatile() != 0 {
            return None;
        }
        addr_of_mut!((*p).busy).write_volatile(1);
        Some(&mut *p)
    }
}

/// Ends what [`enter`] began. Host builds; on the 68k the assembly clears `busy`
/// itself.
#[cfg(not(target_arch = "m68k"))]
#[inline]
pub fn leave(st: &mut State) {
    // SAFETY: a plain field of the state; volatile, see `enter`.
    unsafe { addr_of_mut!(st.busy).write_volatile(0) }
}

impl State {
    /// Slot `s`'s record (host stand-ins; the 68k's assembly indexes `slot_rec`).
    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    pub fn rec(&self, s: u16) -> *mut u8 {
        // SAFETY: slot numbers handed out are below `n_slots` ≤ capacity, the table's
        // size.
        unsafe { *self.slot_rec.add(usize::from(s)) }
    }

    /// Whether an option is on (host stand-ins: the 68k's assembly tests options
    /// itself).
    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    pub fn has(&self, o: record::Options) -> bool {
        self.options & o.bits() != 0
    }

    /// The scratch buffers. Use the reference locally, never pass it on as a
    /// parameter (see [`Scratch`]); no other reference to them exists meanwhile.
    /// (Host stand-ins: the 68k's assembly reaches them itself.)
    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub fn sc(&self) -> &'static mut Scratch {
        // SAFETY: `scratch` is the live scratch chunk for as long as the state is;
        // every user takes the reference for the span of its own code only.
        unsafe { &mut *self.scratch }
    }

    /// Adds one to the header counter at byte `offset` of [`record::Counters`]
    /// (`offset_of!(Counters, …)`): the rarer counters are kept in the scratch header
    /// all along. (Host stand-ins: the 68k's assembly adds to the counter itself.)
    #[cfg(not(target_arch = "m68k"))]
    #[inline(never)]
    pub fn count(&self, offset: usize) {
        // SAFETY: `offset` is a field offset of the counters (callers pass
        // `offset_of!`); each is a 2-aligned U32Be.
        unsafe {
            let c = addr_of_mut!((*self.scratch).header.counters)
                .cast::<u8>()
                .add(offset)
                .cast::<record::U32Be>();
            (*c).set((*c).get().wrapping_add(1));
        }
    }

    /// Expands message template `t` (NUL-terminated, [`crate::text`]) with the
    /// arguments stored in the scratch `args` into the message buffer
    /// ([`crate::text::say`]). (Host stand-ins: the 68k's assembly calls the
    /// register routine.)
    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    pub fn say(&self, t: &[u8]) {
        // SAFETY: the live state; templates are NUL-terminated constants, and the
        // arguments the callers store are as `text::format` wants them.
        unsafe { crate::text::say(self, t.as_ptr()) }
    }

    /// The message arguments ([`Scratch::args`]) (host stand-ins: the 68k's
    /// assembly stores them itself).
    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    pub fn args(&self) -> *mut usize {
        // SAFETY: a field of the live scratch chunk.
        unsafe { addr_of_mut!((*self.scratch).args).cast() }
    }

    /// Sets header flags (host stand-ins: the 68k's assembly sets them itself).
    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    pub fn flag(&mut self, f: record::HeaderFlags) {
        self.flags |= f.bits();
    }

    /// Clears header flags, as [`State::flag`] sets them (used by the host stand-in
    /// of `session::stop_raw`; the 68k's clears them in assembly).
    #[cfg(not(target_arch = "m68k"))]
    pub fn unflag(&mut self, f: record::HeaderFlags) {
        self.flags &= !f.bits();
    }

    /// Puts slot `s` on the free list.
    #[inline]
    #[cfg_attr(target_arch = "m68k", allow(dead_code))]
    pub fn release_slot(&mut self, s: u16) {
        // SAFETY: as in `rec`.
        unsafe { *self.slot_next.add(usize::from(s)) = self.free_head };
        self.free_head = s;
    }

    /// A slot for a new record: from the free list, else a new record while below the
    /// capacity, else the oldest quarantined slot of the ring. `None` when the
    /// storage heap or the capacity is exhausted.
    #[inline]
    pub fn take_slot(&mut self) -> Option<u16> {
        let s = self.free_head;
        if s != NO_SLOT {
            // SAFETY: as in `rec`.
            self.free_head = unsafe { *self.slot_next.add(usize::from(s)) };
            return Some(s);
        }
        // SAFETY: this live state, its ledger open.
        let s = unsafe { new_slot(self) };
        if s < 0 { None } else { Some(s as u16) }
    }
}

/// [`State::take_slot`]'s slot when the free list is empty: a new record while
/// below the capacity, else the oldest quarantined slot of the ring (its entry
/// emptied); −1 when the storage heap or the capacity is exhausted.
///
/// On the 68k in assembly (LLVM's code was twice as long): the ring is scanned from
/// `ring_next` with a `dbf` loop. `addq`, `tst`, `clr` and `dbf` are written as
/// opcode words (named in comments), short branches with `bs!`.
///
/// # Safety
/// `st` is the live state, its ledger open.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn new_slot(st: *mut State) -> i32 {
    core::arch::naked_asm!(
        // Stack after this: D2, A2 (8), ret@8, st@12.
        "movem.l %d2/%a2,-(%sp)",
        "move.l (12,%sp),%a2",
        "moveq #0,%d2",
        "move.w ({n_slots},%a2),%d2",
        "cmp.w ({capacity},%a2),%d2",
        bs!(bcc "2f"),
        ".short 0x4878, {rec_size}", // pea (ALLOC_RECORD_SIZE).w
        "move.l %a2,-(%sp)",
        "jsr ({new_record},%pc)", // (preserves D2)
        ".short 0x508F", // addq.l #8,%sp
        "move.l %a0,%d1",
        bs!(beq "2f"),
        // slot_rec[n] = the record; n_slots = n + 1; n.
        "move.l %d2,%d0",
        "add.l %d2,%d2",
        "add.l %d2,%d2",
        "move.l ({slot_rec},%a2),%a1",
        "move.l %a0,(0,%a1,%d2.l)",
        ".short 0x526A, {n_slots}", // addq.w #1,(n_slots,%a2)
        bs!(bra "9f"),
        // The ring from its next entry: the first nonempty one.
        "2:",
        "move.l ({scratch},%a2),%a0",
        "lea ({ring_addr},%a0),%a0",
        "moveq #0,%d0",
        "moveq #0,%d1",
        "move.b ({ring_next},%a2),%d1",
        "moveq #{ring_last},%d2",
        "3:",
        ".short 0x0241, {ring_last}", // andi.w #RING-1,%d1
        "move.w %d1,%d0",
        "lsl.w #2,%d0",
        ".short 0x4AB0, 0x0000", // tst.l (0,%a0,%d0.w)
        bs!(bne "4f"),
        ".short 0x5241", // addq.w #1,%d1
        ".short 0x51CA, 3b-.", // dbf %d2,3b
        "moveq #-1,%d0",
        bs!(bra "9f"),
        "4:",
        ".short 0x42B0, 0x0000", // clr.l (0,%a0,%d0.w)
        "add.w %d1,%d1",
        "move.w ({to_slot},%a0,%d1.w),%d0",
        "9:",
        "movem.l (%sp)+,%d2/%a2",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        new_record = sym crate::ledger::new_record,
        n_slots = const core::mem::offset_of!(State, n_slots),
        capacity = const core::mem::offset_of!(State, settings) + core::mem::offset_of!(Settings, capacity),
        rec_size = const record::ALLOC_RECORD_SIZE,
        slot_rec = const core::mem::offset_of!(State, slot_rec),
        scratch = const core::mem::offset_of!(State, scratch),
        ring_addr = const core::mem::offset_of!(Scratch, ring) + core::mem::offset_of!(Ring, addr),
        ring_next = const core::mem::offset_of!(State, ring_next),
        ring_last = const RING - 1,
        to_slot = const core::mem::offset_of!(Ring, slot) - core::mem::offset_of!(Ring, addr),
    )
}
// new_slot's ring: a power of two of long addresses, the slot numbers within a
// byte displacement after them.
static_assertions::const_assert!(RING.is_power_of_two());
static_assertions::const_assert!(
    core::mem::offset_of!(Ring, slot) - core::mem::offset_of!(Ring, addr) < 128
);

/// The host stand-in of the 68k's assembly.
///
/// # Safety
/// `st` is the live state, its ledger open.
#[cfg(not(target_arch = "m68k"))]
unsafe fn new_slot(st: *mut State) -> i32 {
    // SAFETY: the caller's guarantee.
    let st = unsafe { &mut *st };
    st.new_slot_host().map_or(-1, i32::from)
}

#[cfg(not(target_arch = "m68k"))]
impl State {
    /// [`new_slot`]'s work (host).
    fn new_slot_host(&mut self) -> Option<u16> {
        let n = usize::from(self.n_slots);
        if n < usize::from(self.settings.capacity) {
            // SAFETY: the live state, its ledger open.
            let rec = unsafe { crate::ledger::new_record(self, record::ALLOC_RECORD_SIZE as u32) };
            if !rec.is_null() {
                // SAFETY: n < capacity, the table's size.
                unsafe { *self.slot_rec.add(n) = rec };
                self.n_slots = n as u16 + 1;
                return Some(n as u16);
            }
        }
        let next = usize::from(self.ring_next);
        // SAFETY: the ring is a field of the live scratch chunk.
        let ring = unsafe { &mut (*self.scratch).ring };
        let mut k = 0;
        while k < RING {
            let i = (next + k) & (RING - 1);
            if ring.addr[i] != 0 {
                ring.addr[i] = 0;
                return Some(ring.slot[i]);
            }
            k += 1;
        }
        None
    }
}
