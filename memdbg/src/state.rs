//! The detector's state: one chunk of the dynamic heap, owned by the system (owner 0,
//! so the OS never frees it behind our back, PALM_FACTS §5.1, §5.5), found again from
//! any context through the Feature Manager: `FtrGet('MDbg', 0)` holds its address
//! ([`crate::record::FEATURE_STATE`]). There are no writable statics (a Palm code
//! resource is write-protected, TOOLCHAIN.md). Two more system-owned chunks hold the
//! index table and the slot table; all three are freed by `stop`.
//!
//! Every buffer the detector builds records or messages in lives here too, never on
//! the stack: a variable index into a stack array is miscompiled by LLVM's m68k
//! backend (TOOLCHAIN.md #2), and Palm stacks are small (4 KB by default).

use core::ffi::c_void;
use core::ptr::{addr_of, addr_of_mut};

use m68k_palmos_sys as palm;

use crate::index::{Entry, Index};
use crate::record::{
    self, AllocRecord, DoubleFreeRecord, FEATURE_STATE, Header, LowHeapRecord, OverrunRecord,
    SmallSiteRecord, Stack,
};
use crate::stack::CodeRange;
use crate::{Settings, Site};

/// Recent frees remembered for double-free reports (a power of two).
pub const RING: usize = 8;
/// Call sites whose small allocations are counted separately.
pub const SITES: usize = 16;
/// "No slot" in the slot free list.
pub const NO_SLOT: u16 = 0xFFFF;
/// Bytes of the message buffer.
pub const MSG_LEN: usize = 112;

/// One ledger slot: a record of the MemDbgDB database, kept locked while the detector
/// runs so that writing it is one `DmWrite` with no lookup.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Slot {
    /// The locked record (storage heap; written only with `DmWrite`/`DmSet`).
    pub rec: *mut u8,
    /// Next slot in the free list ([`NO_SLOT`] ends it).
    pub next: u16,
}

/// A recent free of a tracked block. Its slot stays out of the free list (its record
/// keeps the allocation's data, only the kind byte says "free") until the entry is
/// overwritten, so a double free can report the allocation.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RingEntry {
    /// The address freed (0: empty entry).
    pub addr: u32,
    /// Its (quarantined) slot.
    pub slot: u16,
    /// The allocation's kind (its record's kind byte now says "free slot").
    pub kind: u8,
    /// Padding, 0.
    pub pad: u8,
    /// Ticks of the free.
    pub ticks: u32,
    /// The free's callers.
    pub site: Stack,
}

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

/// Run counters in native form (encoded into [`record::Counters`] at stop). Field
/// meanings: [`record::Counters`].
#[repr(C)]
#[derive(Clone, Copy)]
#[allow(missing_docs)]
pub struct Counters {
    pub allocations: u32,
    pub frees: u32,
    pub os_frees: u32,
    pub unknown_frees: u32,
    pub double_frees: u32,
    pub overruns: u32,
    pub untracked: u32,
    pub failed: u32,
    pub resizes: u32,
    pub small_allocs: u32,
    pub small_unsited: u32,
    pub alerts: u32,
    pub os_unknown_frees: u32,
}

/// Scratch records for events.
#[repr(C)]
pub struct Events {
    /// Overrun being reported.
    pub overrun: OverrunRecord,
    /// Double free being reported.
    pub double: DoubleFreeRecord,
    /// Small-site record being written at stop.
    pub small: SmallSiteRecord,
    /// Low-heap warning being reported.
    pub low: LowHeapRecord,
}

/// Everything the detector knows while it runs. All-zero bytes are a valid value
/// (null pointers, zero counters), which is how `start` initialises it.
#[repr(C)]
pub struct State {
    /// Nonzero while the detector is working: a free trap entered meanwhile (the Data
    /// Manager's own frees, the detector's) goes straight to the original. Accessed
    /// with volatile reads and writes only ([`enter`], [`leave`]).
    pub busy: u8,
    /// 1 when the free traps are patched.
    pub patched: u8,
    /// Next ring entry to write (the oldest).
    pub ring_next: u8,
    /// Small-site entries in use.
    pub n_sites: u8,
    /// Settings given to `start`.
    pub settings: Settings,
    /// [`record::HeaderFlags`] bits so far.
    pub flags: u32,
    /// The open ledger database.
    pub db: palm::DmOpenRef,
    /// Record 0, locked.
    pub header_rec: *mut u8,
    /// `MemChunkFree`'s address before patching.
    pub orig_chunk_free: *mut c_void,
    /// `MemHandleFree`'s address before patching.
    pub orig_handle_free: *mut c_void,
    /// Code 1's range (empty if unknown).
    pub code: CodeRange,
    /// The free path's index.
    pub index: Index,
    /// The index table chunk.
    pub index_mem: *mut Entry,
    /// The slot table chunk (`settings.capacity` entries).
    pub slots: *mut Slot,
    /// Slots created so far (records 1..=n_slots were created for them, interleaved
    /// with event records).
    pub n_slots: u16,
    /// First free slot ([`NO_SLOT`]: none).
    pub free_head: u16,
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
    /// Ticks at start.
    pub start_ticks: u32,
    /// Counters.
    pub c: Counters,
    /// Recent frees.
    pub ring: [RingEntry; RING],
    /// Small-allocation sites.
    pub sites: [SmallSite; SITES],
    /// Scratch allocation record (built here, then written with one `DmWrite`).
    pub rec: AllocRecord,
    /// Scratch event records.
    pub ev: Events,
    /// Scratch header.
    pub header: Header,
    /// Site built at run time for C callers.
    pub c_site: Site,
    /// Message buffer (NUL-terminated text).
    pub msg: [u8; MSG_LEN],
}

/// The state chunk's address from the Feature Manager, or null when the detector is
/// not running.
#[inline]
pub fn state_ptr() -> *mut State {
    let mut v: u32 = 0;
    // SAFETY: FtrGet writes one UInt32 to a valid local.
    let err = unsafe { palm::FtrGet(record::DB_CREATOR, FEATURE_STATE, &mut v) };
    if err != palm::errNone {
        return core::ptr::null_mut();
    }
    v as usize as *mut State
}

/// Marks the detector busy and returns its state, or `None` if it is not running or
/// already busy (a re-entered call must go straight to the OS).
#[inline]
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
        if addr_of!((*p).busy).read_volatile() != 0 {
            return None;
        }
        addr_of_mut!((*p).busy).write_volatile(1);
        Some(&mut *p)
    }
}

/// Ends what [`enter`] began.
#[inline]
pub fn leave(st: &mut State) {
    // SAFETY: a plain field of the state; volatile, see `enter`.
    unsafe { addr_of_mut!(st.busy).write_volatile(0) }
}

impl State {
    /// Slot `s`.
    #[inline(always)]
    pub fn slot(&mut self, s: u16) -> &mut Slot {
        // SAFETY: slot numbers handed out are below `n_slots` ≤ capacity, the table's
        // size.
        unsafe { &mut *self.slots.add(usize::from(s)) }
    }

    /// Whether an option is on.
    #[inline(always)]
    pub fn has(&self, o: record::Options) -> bool {
        self.settings.options.contains(o)
    }

    /// Sets header flags.
    #[inline(always)]
    pub fn flag(&mut self, f: record::HeaderFlags) {
        self.flags |= f.bits();
    }

    /// Puts slot `s` on the free list.
    pub fn release_slot(&mut self, s: u16) {
        let head = self.free_head;
        self.slot(s).next = head;
        self.free_head = s;
    }

    /// A slot for a new record: from the free list, else a new record while below the
    /// capacity, else the oldest quarantined slot of the ring. `None` when the
    /// storage heap or the capacity is exhausted.
    pub fn take_slot(&mut self) -> Option<u16> {
        if self.free_head != NO_SLOT {
            let s = self.free_head;
            self.free_head = self.slot(s).next;
            return Some(s);
        }
        if self.n_slots < self.settings.capacity {
            let rec = crate::ledger::new_record(self, record::ALLOC_RECORD_SIZE as u32);
            if !rec.is_null() {
                let s = self.n_slots;
                self.slot(s).rec = rec;
                self.n_slots += 1;
                return Some(s);
            }
        }
        let mut k = 0;
        while k < RING {
            let i = (usize::from(self.ring_next) + k) & (RING - 1);
            let e = &mut self.ring[i];
            if e.addr != 0 {
                e.addr = 0;
                return Some(e.slot);
            }
            k += 1;
        }
        None
    }
}
