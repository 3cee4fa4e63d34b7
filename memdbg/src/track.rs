//! The bookkeeping behind every wrapper, the `GlobalAlloc` and the free patches:
//! allocation, free, resize, and the events they find (overruns, double frees, small
//! allocations, a low heap). Called with the state entered ([`crate::state::enter`]).
//!
//! The common paths (a tracked allocation, the free of a tracked block) are kept
//! short: one `DmWrite` or `DmSet`, no loops but the index probe, rare cases in
//! separate `#[cold]` functions. Buffers are reached through `st.sc()` or `field!`
//! locally, never passed on as `&mut` parameters (see [`crate::state::Scratch`]).

use core::ffi::c_void;
use core::mem::offset_of;

use m68k_palmos_sys as palm;
use palm::codegen::in_register;

use crate::Settings;
use crate::guard;
use crate::index::NOT_FOUND;
use crate::ledger;
use crate::mem;
use crate::record::{
    self, AllocFlags, AllocRecord, AsBytes, Counters, DoubleFreeRecord, FORMAT_VERSION,
    HeaderFlags, LowHeapRecord, Options, OverrunRecord, SmallSiteRecord, Stack, detected, kind,
};
use crate::stack::read_long;
use crate::state::{PATCHED_SIZES, RING, Ring, RingSite, SITES, SmallSite, State};
#[cfg(not(target_arch = "m68k"))]
use crate::{Site, record::STACK_FRAMES, stack};

/// The address of a field of the scratch chunk (`field_ptr!(st, ev.overrun)`),
/// made by one `lea` from the chunk's ([`mem::lea`]; LLVM adds the offset in a data
/// register and moves it back). The typed `addr_of_mut!` only gives the field's
/// type (no code).
macro_rules! field_ptr {
    ($st:expr, $($f:tt)+) => {{
        let p = $st.scratch;
        // SAFETY: a field of the live scratch chunk (address arithmetic only).
        unsafe {
            same_type(
                core::ptr::addr_of_mut!((*p).$($f)+),
                mem::lea::<{ core::mem::offset_of!(crate::state::Scratch, $($f)+) }, u8>(
                    p.cast(),
                ),
            )
        }
    }};
}

/// [`State::flag`] for one header flag (a single bit), with one `bset`
/// ([`mem::bset`]): bit b of the big-endian long is bit b % 8 of its byte 3 − b / 8.
macro_rules! flag {
    ($st:expr, $f:expr) => {{
        const B: u32 = $f.bits().trailing_zeros();
        // SAFETY: a byte of the state's flags.
        unsafe {
            mem::bset::<{ offset_of!(State, flags) + 3 - B as usize / 8 }, { B % 8 }>(
                ($st as *mut State).cast(),
            )
        }
    }};
}

/// [`scratch!`](crate::state::scratch) through [`field_ptr!`]: the field as a `&mut`,
/// used locally.
macro_rules! field {
    ($st:expr, $($f:tt)+) => {{
        let q = field_ptr!($st, $($f)+);
        // SAFETY: a field of the live scratch chunk, used locally (as `scratch!`).
        unsafe { &mut *q }
    }};
}

/// `q` as a pointer of `_t`'s type.
#[inline(always)]
fn same_type<T>(_t: *mut T, q: *mut u8) -> *mut T {
    q.cast()
}

/// What a free patch or free function does with the call after bookkeeping. (A
/// `u32`: a byte-sized result is zero-extended again where it is returned.)
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Freed {
    /// Pass it to the OS.
    Pass,
    /// A double free: do not pass it on (the OS would corrupt its heap or stop).
    Refuse,
}

/// Walks the frame chain into `out`: up to `max` frames (0: as the options say;
/// callers pass 0 or [`STACK_FRAMES`]), the rest zeroed.
#[inline(always)]
fn walk(st: &State, out: *mut Stack, ret: u32, frame: u32, max: usize) {
    // SAFETY: `out` points into the scratch chunk; max ≤ STACK_FRAMES; the walk reads
    // only plausible frame slots (stack.rs).
    unsafe { crate::fast::walk(st, out, ret, frame, max as u32) }
}

/// Fills `out` with the callers of a call: with [`Options::CALL_STACKS`] the frame
/// chain, else only `ret` (which costs nothing to find); unused frames are zero
/// (a walk of "0" frames: the walk reads the option).
#[inline(never)]
fn capture(st: &State, out: *mut Stack, ret: u32, frame: u32) {
    walk(st, out, ret, frame, 0);
}

/// Zeroes the frames of `s` beyond its count, as the ledger wants them (a ring
/// entry written by the free patch's assembly holds only its innermost frame).
fn tidy(s: &mut Stack) {
    // By pointer: an index would be bounds-checked and scaled each round.
    let end = s.frames.as_mut_ptr_range().end;
    // SAFETY: a field of `s`.
    let n = unsafe { mem::read_u8(&s.count) } as usize;
    let mut p = s.frames.as_mut_ptr().wrapping_add(n);
    while p < end {
        // SAFETY: below `end`, so one of the frames.
        unsafe { (*p).set(0) };
        p = p.wrapping_add(1);
    }
}

/// The site of a Rust allocation: no file, line 0, no flags.
#[cfg(not(target_arch = "m68k"))]
const NO_SITE: Site = Site::new("", 0);

/// Records a successful allocation, or counts it as untracked when no slot is left.
/// The scratch record already holds its kind, size, address, data offset and
/// [`AllocFlags`] so far (guarded, handle, not dynamic; the site's are added here).
/// `site` is null for Rust allocations; `a6` is the frame of the function the program called,
/// where the call-stack walk starts (done for those and with
/// [`Options::CALL_STACKS`]). The host's (the reference); on the 68k,
/// [`crate::fast::alloc`] does this in assembly.
#[inline(always)]
#[cfg(not(target_arch = "m68k"))]
pub fn allocated(st: &mut State, site: *const Site, a6: u32) {
    let Some(slot) = st.take_slot() else {
        flag!(st, HeaderFlags::INCOMPLETE);
        unrecorded(st, offset_of!(Counters, untracked));
        return;
    };
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    // SAFETY: a counter of the state (in memory: `mem::bump`).
    unsafe { mem::bump::<{ offset_of!(State, seq) }, 1>((st as *mut State).cast()) };
    let sc = st.sc();
    let from: &Site = if site.is_null() {
        &NO_SITE
    } else {
        // SAFETY: a non-null site is a live `Site` (a promoted constant of the
        // caller, or the scratch C site, whose user resets `rec_site`).
        unsafe { &*site }
    };
    // The scratch record keeps its version byte (set at start), and its file, line and
    // stack while they do not change: a loop allocating at one site copies nothing.
    if site as u32 != st.rec_site {
        st.rec_site = site as u32;
        let file = field_ptr!(st, rec.file);
        // SAFETY: the scratch record's file name (written whole).
        unsafe { file.write(from.file) };
        sc.rec.line = from.line;
    }
    let r = &mut sc.rec;
    r.flags.set(r.flags.get() | from.flags.get());
    r.seq.set(st.seq);
    r.ticks.set(ticks);
    if site.is_null() || st.has(Options::CALL_STACKS) {
        // (The walk zeroes the frames it does not fill.)
        // SAFETY: a6 is the live frame of the function the program called.
        let (ret, frame) = unsafe { stack::caller_of(a6) };
        walk(st, &mut r.stack, ret, frame, STACK_FRAMES);
        st.rec_stack = 1;
    } else if st.rec_stack != 0 {
        r.stack = Stack::default();
        st.rec_stack = 0;
    }
    // SAFETY: the entered state; a slot just taken; the scratch record is complete
    // and its address (a new block) is not in the index.
    unsafe { crate::fast::commit(st, slot as i16) };
    let size = sc.rec.size.get();
    if st.has(Options::HEAP_STATS) {
        if size.wrapping_sub(1) < record::SMALL_ALLOC_MAX {
            small(st, site as u32, size);
        }
        sample_heap(st);
    }
}

/// An allocation that got no record, counted at `counter` (`offset_of!(Counters,
/// …)`): a failed one, or an untracked one. It still lowers the heap: sampled (at
/// a failure the heap is at its lowest).
#[cold]
#[inline(never)]
pub(crate) extern "C" fn unrecorded(st: &mut State, counter: usize) {
    st.count(counter);
    if st.has(Options::HEAP_STATS) {
        // SAFETY: the entered state.
        unsafe { crate::fast::heap_marks(st) };
    }
}

/// Counts a small allocation at its site (the one just built in the scratch record).
#[inline(never)]
pub(crate) extern "C" fn small(st: &mut State, site: u32, size: u32) {
    let sc = st.sc();
    st.count(offset_of!(Counters, small_allocs));
    let key = if site != 0 {
        site
    } else {
        sc.rec.stack.frames[0].get()
    };
    let n = st.n_sites;
    // The entries in use, then the next free one (walked by pointer: an entry is
    // 94 bytes, and an index would multiply).
    let mut s = field_ptr!(st, sites).cast::<SmallSite>();
    let mut k = n;
    // SAFETY: `s` stays within the n ≤ SITES entries in use, then is the next one
    // (written only when n < SITES).
    unsafe {
        while k != 0 {
            if (*s).key == key {
                mem::bump::<{ offset_of!(SmallSite, count) }, 1>(s.cast());
                mem::add_to::<{ offset_of!(SmallSite, bytes) }>(s.cast(), size);
                return;
            }
            // (Opaque, one lea: LLVM would otherwise compute the loop's end with a
            // multiply.)
            s = mem::lea::<{ core::mem::size_of::<SmallSite>() }, _>(s);
            k -= 1;
        }
        if usize::from(n) < SITES {
            (*s).key = key;
            (*s).count = 1;
            (*s).bytes = size;
            mem::lea::<{ offset_of!(SmallSite, first) }, _>(s)
                .cast::<AllocRecord>()
                .write(sc.rec);
            st.n_sites = n + 1;
            return;
        }
    }
    st.count(offset_of!(Counters, small_unsited));
}

/// After a tracked allocation: the low-water marks, and the low-heap warning the
/// first time the largest free chunk is below the threshold at a tracked allocation
/// (its event names that allocation; a low seen only at a failed or untracked
/// allocation is in the low-water mark).
#[inline(always)]
#[cfg(not(target_arch = "m68k"))]
fn sample_heap(st: &mut State) {
    // SAFETY: the entered state.
    unsafe { crate::fast::heap_marks(st) };
    if st.heap_max < st.low_heap_threshold && st.flags & HeaderFlags::LOW_HEAP.bits() == 0 {
        low_heap(st);
    }
}

/// The first time the largest free chunk is below the threshold: an event and a
/// `DbgMessage`.
#[cold]
#[inline(never)]
pub(crate) extern "C" fn low_heap(st: &mut State) {
    let sc = st.sc();
    let threshold = st.low_heap_threshold;
    flag!(st, HeaderFlags::LOW_HEAP);
    let l = field!(st, ev.low);
    l.kind = kind::LOW_HEAP;
    l.version = FORMAT_VERSION;
    l.free.set(st.heap_free);
    l.largest.set(st.heap_max);
    l.threshold.set(threshold);
    let head = (l as *const LowHeapRecord).cast::<u8>();
    let rec = &sc.rec;
    let a = rec.as_bytes().as_ptr();
    // SAFETY: the scratch record's kind byte.
    ledger::event(st, head, LOW_HEAP_HEAD, a, unsafe { mem::read_u8(a) } as u8);
    if st.has(Options::DBG_MESSAGES) {
        let a = st.args();
        // SAFETY: the scratch arguments (ARGS elements).
        unsafe {
            *a = st.heap_max as usize;
            *a.add(1) = threshold as usize;
            *a.add(2) = st.heap_free as usize;
        }
        st.say(b"memdbg: largest free chunk \x01 bytes < \x01 (free \x01)\0");
        dbg_message(st);
    }
}

/// Bytes of an event record before its allocation record.
const LOW_HEAP_HEAD: u32 = offset_of!(LowHeapRecord, alloc) as u32;
const OVERRUN_HEAD: u32 = offset_of!(OverrunRecord, alloc) as u32;
const DOUBLE_FREE_HEAD: u32 = offset_of!(DoubleFreeRecord, alloc) as u32;
const SMALL_SITE_HEAD: u32 = offset_of!(SmallSiteRecord, first) as u32;

/// `DbgMessage` of the text in the message buffer.
pub fn dbg_message(st: &State) {
    let m = field_ptr!(st, msg);
    // SAFETY: the buffer is NUL-terminated (`format` keeps it so).
    unsafe { palm::DbgMessage(m.cast()) }
}

/// Shows a non-fatal `ErrDisplayFileLineMsg` at the file and line of allocation
/// record `rec` saying template `t` with the record's size and kind `k` ("Leaked
/// 16 bytes (handle)"; `t` ends with [`crate::text::THEN`] for the tail). A Rust
/// allocation has no file and line: the alert shows file "rust", line 0, and the
/// message ends with its innermost caller as an offset in code 1 ("Leaked 24 bytes
/// (Rust alloc) from code+0x00000C7A"; `memdbg report` or `addr2line` on the ELF
/// turns it into a function and line).
#[inline(never)]
pub fn alert(st: &mut State, rec: *const u8, k: u32, t: &[u8]) {
    st.count(offset_of!(Counters, alerts));
    let msg = field_ptr!(st, msg);
    // SAFETY: `rec` is a locked ledger record or a scratch record; its file field is
    // NUL-terminated (FileName keeps a NUL); the arguments are the scratch ones.
    unsafe {
        let a = &*rec.cast::<AllocRecord>();
        let args = st.args();
        *args = a.size.get() as usize;
        *args.add(1) = in_register(k) as usize;
        let tail: &[u8] = if a.file.0[0] == 0 && a.stack.count != 0 {
            *args.add(3) = a.stack.frames[0].get() as usize;
            if a.stack.raw_mask & 1 == 0 {
                b" from code+\x02\0"
            } else {
                b" from \x02\0"
            }
        } else {
            b"\0"
        };
        *args.add(2) = tail.as_ptr() as usize;
        st.say(t);
        let file = if a.file.0[0] == 0 {
            c"rust".as_ptr()
        } else {
            mem::lea::<{ offset_of!(AllocRecord, file) }, u8>(rec.cast_mut()).cast()
        };
        palm::ErrDisplayFileLineMsg(file, a.line.get(), msg.cast());
    }
}

/// The 68k address of the chunk a record describes: a pointer is the chunk; a
/// handle's master pointer holds its chunk's address (PALM_FACTS §5.1), read without
/// locking it. The chunk cannot move meanwhile: nothing between this read and the
/// access allocates or compacts the heap.
#[inline(always)]
pub(crate) fn body(addr: u32, flags: u16) -> *mut u8 {
    if flags & AllocFlags::HANDLE.bits() != 0 {
        // SAFETY: a tracked (or just allocated) handle is a live master pointer.
        (unsafe { read_long(addr) }) as usize as *mut u8
    } else {
        addr as usize as *mut u8
    }
}

/// Fields of a ledger record read straight from the storage heap (readable; only
/// writes need the Data Manager).
struct Fields {
    rec: *const u8,
    kind: u8,
    flags: u16,
    size: u32,
    /// The block's address: also its index key.
    addr: u32,
}

#[inline(always)]
fn fields(rec: *const u8, addr: u32) -> Fields {
    // SAFETY: `rec` is a locked, 2-aligned allocation record of 82 bytes.
    unsafe {
        Fields {
            rec,
            kind: rec.read(),
            flags: rec.add(2).cast::<u16>().read(),
            size: rec.add(4).cast::<u32>().read(),
            addr,
        }
    }
}

impl Fields {
    /// Bytes from the chunk start to the block (read when needed).
    #[inline(always)]
    fn data_off(&self) -> usize {
        // SAFETY: as in `fields`.
        unsafe { mem::read_u16_at::<22>(self.rec) }
    }
}

/// Checks the guard of the tracked block whose record is `rec` (`key`: its address;
/// a handle's chunk is reached through its master pointer). A damaged guard is
/// recorded (and with [`Options::ALERT_OVERRUNS`] shown) as an overrun found `when`,
/// at `ticks`, by the caller at `site` ([`NO_STACK`]: unknown): the record gets
/// [`AllocFlags::OVERRUN`].
#[inline(never)]
fn check_guard(st: &mut State, rec: *mut u8, key: u32, when: u16, ticks: u32, site: *const Stack) {
    let f = fields(rec, key);
    if f.flags & AllocFlags::GUARDED.bits() == 0 {
        return;
    }
    // SAFETY: a guarded block's chunk has GUARD_LEN readable bytes after the block.
    let g = unsafe { guard::read(body(key, f.flags).add(f.data_off() + f.size as usize)) };
    if g == guard::INTACT {
        return;
    }
    st.count(offset_of!(Counters, overruns));
    let flags = f.flags | AllocFlags::OVERRUN.bits();
    ledger::write(rec, 2, &flags.to_be_bytes());
    let to = field_ptr!(st, ev.overrun.site);
    // SAFETY: the overrun record's stack in the scratch chunk; `site` is a stack in
    // the scratch chunk, possibly this one (a raw pointer: copy allows overlap), or
    // NO_STACK.
    unsafe { core::ptr::copy(site, to, 1) };
    let o = field!(st, ev.overrun);
    o.kind = kind::OVERRUN;
    o.version = FORMAT_VERSION;
    o.when.set(when);
    o.ticks.set(ticks);
    o.guard = g.to_be_bytes();
    let head = (o as *const OverrunRecord).cast::<u8>();
    // SAFETY: as in `fields`.
    let k = unsafe { mem::read_u8(rec) };
    ledger::event(st, head, OVERRUN_HEAD, rec, k as u8);
    if st.has(Options::ALERT_OVERRUNS) {
        alert(st, rec, k, b"Overrun after \x01 bytes (\x03)\x05\0");
    }
}

/// An empty stack: the caller of an overrun found at stop (read-only data).
static NO_STACK: Stack = Stack {
    count: 0,
    raw_mask: 0,
    frames: [record::U32Be::new(0); record::STACK_FRAMES],
};

/// The state's index, its address made with one `lea` ([`mem::lea`]).
#[inline(always)]
fn index(st: &State) -> &crate::index::Index {
    // SAFETY: a field of the state (address arithmetic only).
    unsafe {
        &*mem::lea::<{ offset_of!(State, index) }, State>((st as *const State).cast_mut())
            .cast::<crate::index::Index>()
    }
}

/// Slot `s`'s record ([`State::rec`] for a slot number already zero-extended).
#[inline(always)]
fn rec_at(st: &State, s: usize) -> *mut u8 {
    // SAFETY: slot numbers are below `n_slots` ≤ capacity, the table's size.
    unsafe { *st.slot_rec.add(s) }
}

/// Ring entry `i`'s stack (`i` < RING): the sites' start by one `lea`
/// ([`mem::lea`]), then 32 bytes an entry.
#[inline(always)]
fn ring_site(ring: &mut Ring, i: usize) -> *mut Stack {
    // SAFETY: inside the ring's sites.
    unsafe {
        mem::lea::<{ offset_of!(Ring, site) }, Ring>(ring)
            .byte_add(i * core::mem::size_of::<RingSite>())
            .cast()
    }
}

/// Where a ring entry for `addr` is, newest first.
fn ring_find(st: &State, addr: u32) -> Option<usize> {
    let ring = field!(st, ring);
    // SAFETY: a field of the state.
    let mut i =
        unsafe { mem::read_u8_at::<{ offset_of!(State, ring_next) }>((st as *const State).cast()) }
            as usize;
    let mut k = RING;
    while k != 0 {
        i = i.wrapping_sub(1) & (RING - 1);
        if ring.addr[i] == addr {
            return Some(i);
        }
        k -= 1;
    }
    None
}

/// Whether a block freed earlier is still free (so a new free of it is a double
/// free) rather than reused by an allocation the detector did not see. Reads the OS
/// 3.x chunk header (PALM_FACTS §5.1): a pointer's header is 8 bytes before it, with
/// the free flag in bit 31 of word 0; a freed handle's master pointer no longer leads
/// to a live chunk whose hOffset points back at it.
fn still_free(addr: u32, handle: bool) -> bool {
    // SAFETY: `addr` was a valid chunk or handle of the dynamic heap (it is in the
    // ring), so these header and master-pointer reads are inside mapped RAM.
    unsafe {
        if !handle {
            return read_long(addr.wrapping_sub(8)) & 0x8000_0000 != 0;
        }
        let mp = read_long(addr);
        if mp == 0 || mp & 1 != 0 {
            return true;
        }
        let hdr = mp.wrapping_sub(8);
        let w0 = read_long(hdr);
        let w1 = read_long(hdr + 4);
        let h_offset = ((w1 << 8) as i32) >> 8;
        let back = hdr.wrapping_sub((h_offset as u32).wrapping_mul(2));
        w0 & 0x8000_0000 != 0 || back != addr
    }
}

/// Reports a double free of ring entry `i`.
#[cold]
#[inline(never)]
fn double_free(st: &mut State, i: usize, ret: u32, frame: u32) {
    st.count(offset_of!(Counters, double_frees));
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    let ring = field!(st, ring);
    let rec = st.rec(ring.slot[i]);
    let k = ring.kind[i];
    let d = field!(st, ev.double);
    d.kind = kind::DOUBLE_FREE;
    d.version = FORMAT_VERSION;
    d.address.set(ring.addr[i]);
    d.first_ticks.set(ring.ticks[i]);
    d.second_ticks.set(ticks);
    // SAFETY: entry i's stack.
    d.first = unsafe { *ring_site(ring, i) };
    tidy(&mut d.first);
    capture(st, &mut d.second, ret, frame);
    // The quarantined slot's record still holds the allocation (but for its kind).
    let head = (d as *const DoubleFreeRecord).cast::<u8>();
    ledger::event(st, head, DOUBLE_FREE_HEAD, rec, k);
    if st.has(Options::ALERT_DOUBLE_FREES) {
        alert(st, rec, k.into(), b"Double free of \x01 bytes (\x03)\x05\0");
    }
}

/// Whether the caller is the app (code 1) rather than the OS.
#[inline(always)]
fn app_side(st: &State, ret: u32) -> bool {
    st.code.base == 0 || st.code.contains(ret)
}

/// Bookkeeping for a free of `addr` (`handle`: through `MemHandleFree`, else
/// `MemChunkFree`). `ret`/`frame` are the free call's return address and the
/// caller's frame.
#[inline(never)]
pub fn freeing(st: &mut State, addr: u32, handle: bool, ret: u32, frame: u32) -> Freed {
    let pos = index(st).find(addr);
    if pos == NOT_FOUND {
        return not_indexed(st, addr, handle.into(), ret, frame);
    }
    free_tracked(st, pos, addr, ret, frame);
    Freed::Pass
}

/// A free of an address the index does not hold: a double free, a locked handle's
/// pointer, or a block never tracked (`handle` nonzero: through `MemHandleFree`).
#[inline(always)]
fn not_indexed(st: &mut State, addr: u32, handle: u32, ret: u32, frame: u32) -> Freed {
    if addr != 0 && addr & 1 == 0 {
        if let Some(i) = ring_find(st, addr)
            && still_free(addr, handle != 0)
        {
            double_free(st, i, ret, frame);
            return Freed::Refuse;
        }
        // MemPtrFree(MemHandleLock(h)) is legal on Palm OS: a locked handle's pointer
        // frees the handle.
        let (pos, key) = lookup(st, addr, handle);
        if pos != NOT_FOUND {
            free_tracked(st, pos, key, ret, frame);
            return Freed::Pass;
        }
    }
    st.count(if app_side(st, ret) {
        offset_of!(Counters, unknown_frees)
    } else {
        offset_of!(Counters, os_unknown_frees)
    });
    Freed::Pass
}

/// The free of the tracked block at index position `pos` (`key` is its address).
#[inline(never)]
fn free_tracked(st: &mut State, pos: usize, key: u32, ret: u32, frame: u32) {
    // SAFETY: `pos` is a found position (freeing, not_indexed).
    let slot = unsafe { st.index.slot_at(pos) };
    let rec = rec_at(st, slot);
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    // The oldest ring entry gives way; its slot becomes reusable.
    // SAFETY: a field of the state (zero-extended: `mem::read_u8_at`).
    let i =
        unsafe { mem::read_u8_at::<{ offset_of!(State, ring_next) }>((st as *const State).cast()) }
            as usize
            & (RING - 1);
    st.ring_next = ((i + 1) & (RING - 1)) as u8;
    let ring = field!(st, ring);
    if ring.addr[i] != 0 {
        st.release_slot(ring.slot[i]);
    }
    ring.addr[i] = key;
    ring.slot[i] = slot as u16;
    ring.ticks[i] = ticks;
    ring.kind[i] = fields(rec, key).kind;
    let site = ring_site(ring, i);
    capture(st, site, ret, frame);
    check_guard(st, rec, key, detected::AT_FREE, ticks, site);
    if st.has(Options::FILL_FREED) {
        // The block's bytes become FILL_FREED_BYTE (no guard written).
        let f = fields(rec, key);
        let from = f.data_off() as u32;
        let flags = f.flags & !AllocFlags::GUARDED.bits();
        prepare(key, flags, from, from + f.size, record::FILL_FREED_BYTE);
    }
    ledger::mark_free(rec);
    // SAFETY: as above; nothing changed the index meanwhile.
    unsafe { st.index.remove_at(pos) };
    let sp = (st as *mut State).cast::<u8>();
    // SAFETY: counters of the state (in memory: `mem::bump`).
    unsafe { mem::bump::<{ offset_of!(State, frees) }, 1>(sp) };
    if !app_side(st, ret) {
        // SAFETY: as above.
        unsafe { mem::bump::<{ offset_of!(State, os_frees) }, 1>(sp) };
    }
    // (Read now: the record keeps its size and flags, the overrun flag aside.)
    let f = fields(rec, key);
    // SAFETY: counters of the state (in memory: `mem::bump`).
    unsafe { mem::bump::<{ offset_of!(State, live_count) }, -1>(sp) };
    // SAFETY: as above.
    unsafe { mem::sub_from::<{ offset_of!(State, live_bytes) }>(sp, f.size) };
    if f.flags & AllocFlags::HANDLE.bits() != 0 {
        // SAFETY: as above.
        unsafe { mem::bump::<{ offset_of!(State, live_handles) }, -1>(sp) };
    }
}

/// Resizes a block through the Memory Manager (a handle if `handle` is nonzero, else
/// a pointer): through the saved original when the resize traps are patched (so the
/// patch is not entered again), else through the trap. (`handle` is a `u32`: a
/// `bool` argument is zero-extended again at every call.)
fn os_resize(st: &State, addr: u32, size: u32, handle: u32) -> palm::Err {
    let handle = handle != 0;
    if st.patched & PATCHED_SIZES != 0 {
        return crate::patch::chain_resize(st, addr, size, handle);
    }
    // SAFETY: the caller passes what the app (or the OS) passed to the resize.
    unsafe {
        if handle {
            palm::MemHandleResize(addr as usize as palm::MemHandle, size)
        } else {
            palm::MemPtrResize(addr as usize as *mut c_void, size)
        }
    }
}

/// The index position and key of the tracked block a size or resize call on `addr`
/// is about (`handle` 1: `MemHandleSize`/`MemHandleResize`, else 0), or
/// [`NOT_FOUND`]. A pointer may be a locked handle's (`MemPtrSize(MemHandleLock(h))`
/// is legal): then the key is the handle. The record's kind must match the call's: a
/// handle's record for a handle or a locked handle's pointer, a pointer's for a
/// pointer. (`handle` is a `u32`: a `bool` is zero-extended again at every call.)
fn lookup(st: &State, addr: u32, handle: u32) -> (usize, u32) {
    // The record's HANDLE flag must be this.
    let mut want = (handle << AllocFlags::HANDLE.bits().trailing_zeros()) as u16;
    let mut key = addr;
    // Twice at most: the address, then (a pointer) its handle; one find call.
    loop {
        let pos = index(st).find(key);
        if pos != NOT_FOUND {
            // SAFETY: a found position.
            let slot = unsafe { st.index.slot_at(pos) };
            if fields(rec_at(st, slot), key).flags & AllocFlags::HANDLE.bits() != want {
                return (NOT_FOUND, addr);
            }
            return (pos, key);
        }
        if want != 0 || st.live_handles == 0 || addr == 0 || addr & 1 != 0 {
            return (NOT_FOUND, addr);
        }
        // SAFETY: `addr` was passed to a Memory Manager call on a chunk, so it is
        // (meant to be) one; the OS answers 0 for a non-movable chunk.
        key = unsafe { palm::MemPtrRecoverHandle(addr as usize as palm::MemPtr) } as u32;
        if key == 0 {
            return (NOT_FOUND, addr);
        }
        want = AllocFlags::HANDLE.bits();
    }
}

/// What the size patches answer for `addr` (`handle`: `MemHandleSize`), given the
/// OS's answer `os`: for a tracked guarded block, the bytes before its guard (its
/// requested size, plus its data offset for an over-aligned Rust block), so that
/// nothing writes the guard because the chunk is bigger; else `os`.
pub fn visible_size(st: &State, addr: u32, handle: bool, os: u32) -> u32 {
    let (pos, key) = lookup(st, addr, handle.into());
    if pos == NOT_FOUND {
        return os;
    }
    // SAFETY: lookup's position is a found one.
    let f = fields(rec_at(st, unsafe { st.index.slot_at(pos) }), key);
    if f.flags & AllocFlags::GUARDED.bits() == 0 {
        return os;
    }
    f.data_off() as u32 + f.size
}

/// A resize of `addr` (`handle`: `MemHandleResize`) by a wrapper or, through the
/// resize patches, by anyone: checks the guard, resizes with room for a new guard,
/// writes it, and updates the record's size and flags (one record stays). Untracked
/// blocks are simply resized. `addr` may be a locked handle's pointer
/// (`MemPtrResize` resizes its chunk in place): the handle's record is updated.
pub fn resize(
    st: &mut State,
    addr: u32,
    size: u32,
    handle: bool,
    ret: u32,
    frame: u32,
) -> palm::Err {
    let handle = u32::from(handle);
    let (pos, key) = lookup(st, addr, handle);
    if pos == NOT_FOUND {
        return os_resize(st, addr, size, handle);
    }
    // SAFETY: lookup's position is a found one.
    let rec = rec_at(st, unsafe { st.index.slot_at(pos) });
    let site = field_ptr!(st, ev.overrun.site);
    capture(st, site, ret, frame);
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    check_guard(st, rec, key, detected::AT_RESIZE, ticks, site);
    // (Read now, not kept across the calls: check_guard may have added OVERRUN.)
    let mut flags = fields(rec, key).flags | AllocFlags::RESIZED.bits();
    let mut err = palm::errors::memErrInvalidParam;
    if flags & AllocFlags::GUARDED.bits() != 0 {
        err = os_resize(
            st,
            addr,
            size.wrapping_add(record::GUARD_LEN as u32),
            handle,
        );
    }
    if err != palm::errNone {
        // Unguarded, or no room for the guard: exactly the request.
        flags &= !AllocFlags::GUARDED.bits();
        err = os_resize(st, addr, size, handle);
        if err != palm::errNone {
            return err;
        }
    }
    let fill = if st.has(Options::FILL_NEW) {
        record::FILL_RESIZE_BYTE
    } else {
        0
    };
    // (The record's size is still the old one.)
    let old = fields(rec, key).size;
    prepare(key, flags, old, size, fill);
    // Flags and size are adjacent (bytes 2..8): one DmWrite, from the scratch record
    // (its flags and size are rewritten at every allocation).
    let r = &mut st.sc().rec;
    r.flags.set(flags);
    r.size.set(size);
    ledger::write(rec, 2, &r.as_bytes()[2..8]);
    st.live_bytes = st.live_bytes - old + size;
    if st.live_bytes > st.peak_bytes {
        st.peak_bytes = st.live_bytes;
    }
    st.count(offset_of!(Counters, resizes));
    palm::errNone
}

// prepare's "no fill" byte is none of the fill bytes.
static_assertions::const_assert!(
    record::FILL_NEW_BYTE != 0 && record::FILL_RESIZE_BYTE != 0 && record::FILL_FREED_BYTE != 0
);

/// After a block's allocation or resize, or before its free (in the dynamic heap
/// only: guarded blocks are there, and the storage heaps are write-protected): its
/// bytes `from..to` get `byte` (0: no fill), and with [`AllocFlags::GUARDED`] in
/// `flags` the guard is written at `to` (offsets from the chunk start; `addr` is the
/// pointer or handle).
#[inline(never)]
pub(crate) fn prepare(addr: u32, flags: u16, from: u32, to: u32, byte: u8) {
    if flags & AllocFlags::NOT_DYNAMIC.bits() != 0 {
        return;
    }
    let body = body(addr, flags);
    // SAFETY: the chunk holds `to` bytes (+ the guard when guarded), in the dynamic
    // heap (writable).
    unsafe {
        if byte != 0 && to > from {
            guard::fill(body.add(from as usize), to - from, byte);
        }
        if flags & AllocFlags::GUARDED.bits() != 0 {
            guard::write(body.add(to as usize));
        }
    }
}

/// `max_alerts`'s offset in the state.
const MAX_ALERTS: usize = offset_of!(State, settings) + offset_of!(Settings, max_alerts);

/// At stop: every live block's guard is checked, it is counted as a leak and reported
/// (alerts up to the maximum, one `DbgMessage` line each).
#[inline(never)]
pub fn report_leaks(st: &mut State) -> (u32, u32) {
    let (mut leaks, mut bytes) = (0u32, 0u32);
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    let mut k = st.n_slots;
    let mut slot = st.slot_rec;
    while k != 0 {
        // SAFETY: one of the n_slots entries of the slot table.
        let rec = unsafe { *slot };
        // SAFETY: at most one past the entries.
        slot = unsafe { slot.add(1) };
        k -= 1;
        // SAFETY: a locked allocation record; its address field is at 8.
        let f = fields(rec, unsafe { rec.add(8).cast::<u32>().read() });
        if !kind::is_alloc(f.kind) {
            continue;
        }
        leaks += 1;
        bytes += f.size;
        check_guard(st, rec, f.addr, detected::AT_STOP, ticks, &NO_STACK);
        if st.has(Options::ALERTS_AT_EXIT)
            // SAFETY: a field of the state.
            && (field!(st, header.counters).alerts.get() as usize)
                < unsafe {
                    mem::read_u16_at::<{ MAX_ALERTS }>(
                        (st as *const State).cast(),
                    )
                }
        {
            // SAFETY: the record's kind byte.
            alert(
                st,
                rec,
                unsafe { mem::read_u8(rec) },
                b"Leaked \x01 bytes (\x03)\x05\0",
            );
        }
        if st.has(Options::DBG_MESSAGES) {
            leak_line(st, rec);
            dbg_message(st);
        }
    }
    (leaks, bytes)
}

/// "memdbg: leak #3: 16 bytes (handle 0x00012344) at src/leaks.rs:42" into the
/// message buffer (Rust allocations: "at code+0x000001A2", the innermost frame).
fn leak_line(st: &State, rec: *const u8) {
    // SAFETY: `rec` is a locked allocation record (read in place: a copy on the stack
    // would have its file name indexed by a variable, TOOLCHAIN.md #2); the
    // arguments are the scratch ones.
    unsafe {
        let a = &*rec.cast::<AllocRecord>();
        let args = st.args();
        *args = a.seq.get() as usize;
        *args.add(1) = a.size.get() as usize;
        *args.add(2) = mem::read_u8(rec) as usize;
        *args.add(3) = a.address.get() as usize;
        let tail: &[u8] = if a.file.0[0] != 0 {
            *args.add(5) =
                mem::lea::<{ offset_of!(AllocRecord, file) }, u8>(rec.cast_mut()) as usize;
            *args.add(6) = in_register(u32::from(a.line.get())) as usize;
            b"\x04:\x01\0"
        } else if a.stack.count != 0 {
            *args.add(5) = a.stack.frames[0].get() as usize;
            if a.stack.raw_mask & 1 == 0 {
                b"code+\x02\0"
            } else {
                b"\x02\0"
            }
        } else {
            b"?\0"
        };
        *args.add(4) = tail.as_ptr() as usize;
    }
    st.say(b"memdbg: leak #\x01: \x01 bytes (\x03 \x02) at \x05\0");
}

/// At stop: one record per small-allocation site.
pub fn write_sites(st: &mut State) {
    let mut site = field!(st, sites).as_ptr();
    let mut k = st.n_sites;
    while k != 0 {
        let r = field!(st, ev.small);
        r.kind = kind::SMALL_SITE;
        r.version = FORMAT_VERSION;
        // SAFETY: one of the n_sites ≤ SITES entries in use (walked by pointer: an
        // index would multiply by the entry's 94 bytes).
        let first = unsafe {
            r.count.set((*site).count);
            r.bytes.set((*site).bytes);
            &(*site).first
        };
        let head = (r as *const SmallSiteRecord).cast::<u8>();
        let a = first.as_bytes().as_ptr();
        // SAFETY: the record's kind byte.
        let kind = unsafe { mem::read_u8(a) } as u8;
        ledger::event(st, head, SMALL_SITE_HEAD, a, kind);
        // SAFETY: at most one past the entries in use.
        site = unsafe { site.add(1) };
        k -= 1;
    }
}
