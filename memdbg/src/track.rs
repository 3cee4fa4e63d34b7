//! The bookkeeping behind every wrapper, the `GlobalAlloc` and the free patches:
//! allocation, free, resize, and the events they find (overruns, double frees, small
//! allocations, a low heap). Called with the state entered ([`crate::state::enter`]).
//!
//! The common paths (a tracked allocation, the free of a tracked block) are kept
//! short: one `DmWrite` or `DmSet`, no loops but the index probe, rare cases in
//! separate `#[cold]` functions. Buffers are reached through `st.sc()` or `field!`
//! locally, never passed on as `&mut` parameters (see [`crate::state::Scratch`]).

use core::mem::offset_of;

use m68k_palmos_sys as palm;

use crate::Settings;
use crate::guard;
use crate::ledger;
#[cfg(not(target_arch = "m68k"))]
use crate::mem;
use crate::record::STACK_FRAMES;
use crate::record::{
    self, AllocFlags, AllocRecord, DoubleFreeRecord, FORMAT_VERSION, HeaderFlags, LowHeapRecord,
    Options, OverrunRecord, SmallSiteRecord, Stack, detected, kind,
};
#[cfg(not(target_arch = "m68k"))]
use crate::record::{AsBytes, Counters};
#[cfg(not(target_arch = "m68k"))]
use crate::stack::read_long;
#[cfg(not(target_arch = "m68k"))]
use crate::state::RING;
#[cfg(not(target_arch = "m68k"))]
use crate::state::RingSite;
use crate::state::{PATCHED_SIZES, Ring, SITES, SmallSite, State};
#[cfg(not(target_arch = "m68k"))]
use crate::{Site, stack};

/// The address of a field of the scratch chunk (`field_ptr!(st, ev.overrun)`),
/// made by one `lea` from the chunk's ([`mem::lea`]; LLVM adds the offset in a data
/// register and moves it back). The typed `addr_of_mut!` only gives the field's
/// type (no code). (Used by host stand-ins of assembly.)
#[cfg(not(target_arch = "m68k"))]
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
/// ([`mem::bset`]) on its byte ([`crate::state::flag_byte`]). (Used by host
/// stand-ins of assembly.)
#[cfg(not(target_arch = "m68k"))]
macro_rules! flag {
    ($st:expr, $f:expr) => {{
        const M: u32 = $f.bits();
        // SAFETY: a byte of the state's flags.
        unsafe {
            mem::bset::<
                { crate::state::flag_byte(offset_of!(State, flags), M) },
                { crate::state::flag_bit(M) },
            >(($st as *mut State).cast())
        }
    }};
}

/// [`scratch!`](crate::state::scratch) through [`field_ptr!`]: the field as a `&mut`,
/// used locally. (Used by host stand-ins of assembly.)
#[cfg(not(target_arch = "m68k"))]
macro_rules! field {
    ($st:expr, $($f:tt)+) => {{
        let q = field_ptr!($st, $($f)+);
        // SAFETY: a field of the live scratch chunk, used locally (as `scratch!`).
        unsafe { &mut *q }
    }};
}

/// `q` as a pointer of `_t`'s type.
#[cfg(not(target_arch = "m68k"))]
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
/// callers pass 0 or [`STACK_FRAMES`]), the rest zeroed. (Host stand-ins.)
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
fn walk(st: &State, out: *mut Stack, ret: u32, frame: u32, max: usize) {
    // SAFETY: `out` points into the scratch chunk; max ≤ STACK_FRAMES; the walk reads
    // only plausible frame slots (stack.rs).
    unsafe { crate::fast::walk(st, out, ret, frame, max as u32) }
}

/// Fills `out` with the callers of a call: with [`Options::CALL_STACKS`] the frame
/// chain, else only `ret` (which costs nothing to find); unused frames are zero
/// (a walk of "0" frames: the walk reads the option). `extern "C"`: the free's
/// assembly calls it too ([`crate::patch::free_block`]); on the 68k in assembly,
/// [`crate::fast::walk`] with the arguments pushed again and `max` 0.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) extern "C" fn capture(st: &State, out: *mut Stack, ret: u32, frame: u32) {
    core::arch::naked_asm!(
        // Stack: ret@0, st@4, out@8, ret@12, frame@16: max 0, then frame, ret, out,
        // st (each 20 bytes above the top as it grows).
        ".short 0x42A7", // clr.l -(%sp)
        "move.l (20,%sp),-(%sp)",
        "move.l (20,%sp),-(%sp)",
        "move.l (20,%sp),-(%sp)",
        "move.l (20,%sp),-(%sp)",
        "bsr.w {walk}",
        "lea (20,%sp),%sp",
        "rts",
        walk = sym crate::fast::walk,
    )
}

/// The host's [`capture`].
#[cfg(not(target_arch = "m68k"))]
#[inline(never)]
pub(crate) extern "C" fn capture(st: &State, out: *mut Stack, ret: u32, frame: u32) {
    walk(st, out, ret, frame, 0);
}

/// Zeroes the frames of `s` beyond its count, as the ledger wants them (a ring
/// entry written by the free patch's assembly holds only its innermost frame).
/// (Host: the 68k's is in [`double_free`]'s assembly.)
#[cfg(not(target_arch = "m68k"))]
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
/// a failure the heap is at its lowest). `extern "C"`; on the 68k in assembly (the
/// counter in the scratch header, then a tail call of [`crate::fast::heap_marks`]
/// with `st`, the first argument).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) extern "C" fn unrecorded(st: &mut State, counter: usize) {
    core::arch::naked_asm!(
        // Stack: ret@0, st@4, counter@8.
        "move.l (4,%sp),%a0",
        "move.l ({scratch},%a0),%a1",
        "lea ({counters},%a1),%a1",
        "move.l (8,%sp),%d0",
        ".short 0x52B1, 0x0800", // addq.l #1,(0,%a1,%d0.l)
        "btst #{hs_bit},({hs_byte},%a0)",
        bs!(beq "9f"),
        ".short 0x4EFA", // jmp (heap_marks,%pc), the displacement from this word:
        ".short {heap_marks}-.",
        "9:",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        heap_marks = sym crate::fast::heap_marks,
        scratch = const offset_of!(State, scratch),
        counters = const offset_of!(crate::state::Scratch, header.counters),
        hs_byte = const crate::state::flag_byte(offset_of!(State, options), Options::HEAP_STATS.bits()),
        hs_bit = const crate::state::flag_bit(Options::HEAP_STATS.bits()),
    )
}

/// The host's [`unrecorded`].
#[cfg(not(target_arch = "m68k"))]
#[cold]
#[inline(never)]
pub(crate) extern "C" fn unrecorded(st: &mut State, counter: usize) {
    st.count(counter);
    if st.has(Options::HEAP_STATS) {
        // SAFETY: the entered state.
        unsafe { crate::fast::heap_marks(st) };
    }
}

/// Counts a small allocation at its site (the one just built in the scratch record):
/// the site's entry (a `Site`'s address, or for a Rust allocation the innermost
/// frame) gets one more allocation and `size` more bytes; a new site takes the next
/// entry with a copy of the record, while there is one. `extern "C"`; on the 68k in
/// assembly (the host's is below), using D0–D2/A0–A2 (D2/A2 saved).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) extern "C" fn small(st: &mut State, site: u32, size: u32) {
    core::arch::naked_asm!(
        // Stack after this: d2, a2, ret@8, st@12, site@16, size@20. a0 = state, a1 =
        // scratch, a2 = the entry, d0 = key, d2 = entries in use.
        "move.l %a2,-(%sp)",
        "move.l %d2,-(%sp)",
        "move.l (12,%sp),%a0",
        "move.l ({scratch},%a0),%a1",
        ".short 0x52A9, {small_allocs}", // addq.l #1,(small_allocs,%a1)
        "move.l (16,%sp),%d0",
        bs!(bne "1f"),
        "move.l ({frame0},%a1),%d0",
        "1:",
        "moveq #0,%d2",
        "move.b ({n_sites},%a0),%d2",
        "move.l %d2,%d1",
        "lea ({sites},%a1),%a2",
        bs!(bra "3f"),
        "2:",
        "cmp.l (%a2),%d0",
        bs!(bne "4f"),
        ".short 0x52AA, {s_count}", // addq.l #1,(count,%a2)
        "move.l (20,%sp),%d0",
        "add.l %d0,({s_bytes},%a2)",
        bs!(bra "9f"),
        "4:",
        "lea ({entry},%a2),%a2",
        "3:",
        ".short 0x51C9", // dbra %d1,2b
        ".short 2b-.",
        "cmpi.b #{n_max},%d2",
        bs!(bcc "6f"),
        // A new site: key, one allocation, its bytes, the record (41 words).
        "move.l %d0,(%a2)+",
        "moveq #1,%d1",
        "move.l %d1,(%a2)+",
        "move.l (20,%sp),(%a2)+",
        "moveq #{rec_words},%d1",
        "5:",
        "move.w (%a1)+,(%a2)+",
        ".short 0x51C9", // dbra %d1,5b
        ".short 5b-.",
        ".short 0x5228, {n_sites}", // addq.b #1,(n_sites,%a0)
        bs!(bra "9f"),
        "6:",
        ".short 0x52A9, {small_unsited}", // addq.l #1,(small_unsited,%a1)
        "9:",
        "move.l (%sp)+,%d2",
        "move.l (%sp)+,%a2",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        scratch = const offset_of!(State, scratch),
        n_sites = const offset_of!(State, n_sites),
        small_allocs = const offset_of!(crate::state::Scratch, header.counters.small_allocs),
        small_unsited = const offset_of!(crate::state::Scratch, header.counters.small_unsited),
        frame0 = const offset_of!(crate::state::Scratch, rec.stack.frames),
        sites = const offset_of!(crate::state::Scratch, sites),
        s_count = const offset_of!(SmallSite, count),
        s_bytes = const offset_of!(SmallSite, bytes),
        entry = const core::mem::size_of::<SmallSite>(),
        n_max = const SITES,
        rec_words = const record::ALLOC_RECORD_SIZE / 2 - 1,
    )
}
// The assembly writes an entry's key, count, bytes and record in this order, the
// record (at the scratch chunk's start) by words.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    offset_of!(SmallSite, key) == 0
        && offset_of!(SmallSite, count) == 4
        && offset_of!(SmallSite, bytes) == 8
        && offset_of!(SmallSite, first) == 12
        && offset_of!(crate::state::Scratch, rec) == 0
        && record::ALLOC_RECORD_SIZE % 2 == 0
        && SITES < 128
);

/// The host's [`small`] (the 68k's is assembly, doing exactly this).
#[cfg(not(target_arch = "m68k"))]
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
/// `DbgMessage`. `extern "C"`; on the 68k in assembly (the host's is below).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) extern "C" fn low_heap(st: &mut State) {
    core::arch::naked_asm!(
        // Stack after this: D2–D5, A2 (20), ret@20, st@24 (D2 saved: the traps may
        // clobber it). d3 = free, d4 = largest, d5 = threshold; a0 = the event
        // record, a1 = the scratch record (the allocation, at the scratch chunk's
        // start).
        "movem.l %d2-%d5/%a2,-(%sp)",
        "move.l (24,%sp),%a2",
        "bset #{lh_bit},({lh_byte},%a2)",
        "movem.l ({heap_free},%a2),%d3-%d4",
        "move.l ({threshold},%a2),%d5",
        "move.l ({scratch},%a2),%a1",
        "lea ({ev_low},%a1),%a0",
        "move.w #{kind_version},(%a0)",
        "movem.l %d3-%d5,({l_free},%a0)",
        "moveq #{head},%d0",
        "move.b (%a1),%d1",
        "bsr.w {event}",
        // The line: largest, threshold, free.
        "move.l ({scratch},%a2),%a1",
        "movem.l %d4-%d5,({args},%a1)",
        "move.l %d3,({args_free},%a1)",
        "lea ({line},%pc),%a0",
        "bsr.w {dbg_message}",
        "movem.l (%sp)+,%d2-%d5/%a2",
        "rts",
        event = sym ledger::event,
        dbg_message = sym dbg_message,
        line = sym LOW_LINE,
        lh_byte = const crate::state::flag_byte(offset_of!(State, flags), HeaderFlags::LOW_HEAP.bits()),
        lh_bit = const crate::state::flag_bit(HeaderFlags::LOW_HEAP.bits()),
        scratch = const offset_of!(State, scratch),
        heap_free = const offset_of!(State, heap_free),
        threshold = const offset_of!(State, low_heap_threshold),
        ev_low = const offset_of!(crate::state::Scratch, ev.low),
        args = const offset_of!(crate::state::Scratch, args),
        args_free = const offset_of!(crate::state::Scratch, args) + 8,
        kind_version = const (kind::LOW_HEAP as u16) << 8 | FORMAT_VERSION as u16,
        l_free = const offset_of!(LowHeapRecord, free),
        head = const LOW_HEAP_HEAD,
    )
}
// low_heap writes the record's kind and version as one word (its reserved word
// stays 0 from the zeroed chunk) and free, largest and threshold as three longs
// (heap_free and heap_max adjacent in the state); the allocation is the scratch
// record at the scratch chunk's start.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    offset_of!(LowHeapRecord, largest) == offset_of!(LowHeapRecord, free) + 4
        && offset_of!(LowHeapRecord, threshold) == offset_of!(LowHeapRecord, free) + 8
        && offset_of!(State, heap_max) == offset_of!(State, heap_free) + 4
        && offset_of!(LowHeapRecord, kind) == 0
        && offset_of!(LowHeapRecord, version) == 1
        && offset_of!(crate::state::Scratch, ev.low) % 2 == 0
        && offset_of!(crate::state::Scratch, rec) == 0
        && LOW_HEAP_HEAD < 128
);

/// The host's [`low_heap`] (the 68k's is assembly, doing exactly this).
#[cfg(not(target_arch = "m68k"))]
#[cold]
#[inline(never)]
pub(crate) extern "C" fn low_heap(st: &mut State) {
    flag!(st, HeaderFlags::LOW_HEAP);
    let threshold = st.low_heap_threshold;
    let l = field!(st, ev.low);
    l.kind = kind::LOW_HEAP;
    l.version = FORMAT_VERSION;
    l.free.set(st.heap_free);
    l.largest.set(st.heap_max);
    l.threshold.set(threshold);
    let head = (l as *mut LowHeapRecord).cast::<u8>();
    let a = field_ptr!(st, rec).cast::<u8>();
    // SAFETY: the scratch record's kind byte.
    let k = unsafe { mem::read_u8(a) } as u8;
    ledger::event(st, head, LOW_HEAP_HEAD, a, k);
    let a = st.args();
    // SAFETY: the scratch arguments (ARGS elements).
    unsafe {
        *a = st.heap_max as usize;
        *a.add(1) = threshold as usize;
        *a.add(2) = st.heap_free as usize;
    }
    dbg_message(st, &LOW_LINE);
}

/// Bytes of an event record before its allocation record.
const LOW_HEAP_HEAD: u32 = offset_of!(LowHeapRecord, alloc) as u32;
const OVERRUN_HEAD: u32 = offset_of!(OverrunRecord, alloc) as u32;
const DOUBLE_FREE_HEAD: u32 = offset_of!(DoubleFreeRecord, alloc) as u32;
const SMALL_SITE_HEAD: u32 = offset_of!(SmallSiteRecord, first) as u32;

// The messages' templates ([`crate::text`]; statics: the 68k's assembly reaches
// them PC-relative).
/// A leak's alert: size, kind, then the innermost caller ([`ALERT_WHERE`]).
static LEAKED: [u8; 20] = *b"Leaked \x01 bytes (\x03)\x05\0";
/// An overrun's alert, as [`LEAKED`].
static OVERRUN: [u8; 27] = *b"Overrun after \x01 bytes (\x03)\x05\0";
/// A double free's alert, as [`LEAKED`].
static DOUBLE_FREE: [u8; 28] = *b"Double free of \x01 bytes (\x03)\x05\0";
/// A leak's `DbgMessage` line: sequence number, size, kind, address, then where
/// it was allocated ([`LEAK_WHERE`]).
static LEAK_LINE: [u8; 36] = *b"memdbg: leak #\x01: \x01 bytes (\x03 \x02) at \x05\0";
/// The low-heap `DbgMessage` line: largest free chunk, threshold, free bytes.
static LOW_LINE: [u8; 48] = *b"memdbg: largest free chunk \x01 bytes < \x01 (free \x01)\0";
/// [`innermost`]'s templates for an alert (at [`WHERE_NONE`], [`WHERE_FILE`] and
/// [`WHERE_FRAME`]): nothing, nothing (the file and line are the alert's own),
/// " from " and the frame.
static ALERT_WHERE: [u8; 14] = *b"\0\0\0\0\0\0 from \x05\0";
/// [`innermost`]'s templates for a leak's line: "?", the file and line, the frame.
static LEAK_WHERE: [u8; 8] = *b"?\0\x04:\x01\0\x05\0";
/// A frame as an offset in code 1 (its argument: the frame); from [`CODE_RAW`] on,
/// a raw address.
static CODE: [u8; 7] = *b"code+\x02\0";
/// The alert's file for a Rust allocation (it has no file and line).
static RUST: [u8; 5] = *b"rust\0";
/// Where [`innermost`]'s template is in its callers' three: no file and no frame.
const WHERE_NONE: usize = 0;
/// … a file and line.
const WHERE_FILE: usize = 2;
/// … a frame.
const WHERE_FRAME: usize = 6;
/// Where [`CODE`]'s raw form starts.
const CODE_RAW: usize = 5;
// The three templates of each caller at these offsets; the raw form a suffix.
static_assertions::const_assert!(
    WHERE_NONE == 0 && WHERE_FILE == 2 && WHERE_FRAME == 6 && CODE_RAW == 5
);

/// The arguments after a message's own that say where an allocation record's
/// block was allocated, at `args`: with a file (a wrapper's), the template at
/// [`WHERE_FILE`] of the caller's three `t`, the file and the line; else with a
/// frame (a Rust allocation), the template at [`WHERE_FRAME`], [`CODE`] (or its
/// raw form) and the innermost frame; else only the template at [`WHERE_NONE`].
///
/// On the 68k a register routine in assembly: A3 the record, A1 `args`, A0 `t`;
/// changes A0–A1. `addq`, `tst`, `clr` and `pea` are written as opcode words
/// (named in comments), short branches with `bs!`.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn innermost() {
    core::arch::naked_asm!(
        ".short 0x4A2B, {r_file}", // tst.b (file,%a3)
        bs!(beq "1f"),
        ".short 0x5488", // addq.l #WHERE_FILE,%a0
        "move.l %a0,(%a1)+",
        "lea ({r_file},%a3),%a0",
        "move.l %a0,(%a1)+",
        ".short 0x4259", // clr.w (%a1)+
        "move.w ({r_line},%a3),(%a1)",
        "rts",
        "1:",
        ".short 0x4A2B, {r_count}", // tst.b (stack.count,%a3)
        bs!(beq "3f"),
        ".short 0x5C88", // addq.l #WHERE_FRAME,%a0
        "move.l %a0,(%a1)+",
        "lea ({code},%pc),%a0",
        "btst #0,({r_mask},%a3)",
        bs!(beq "2f"),
        ".short 0x5A88", // addq.l #CODE_RAW,%a0
        "2:",
        "move.l ({r_frame},%a3),(4,%a1)",
        "3:",
        "move.l %a0,(%a1)",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        code = sym CODE,
        r_file = const offset_of!(AllocRecord, file),
        r_line = const offset_of!(AllocRecord, line),
        r_count = const offset_of!(AllocRecord, stack) + offset_of!(Stack, count),
        r_mask = const offset_of!(AllocRecord, stack) + offset_of!(Stack, raw_mask),
        r_frame = const offset_of!(AllocRecord, stack) + offset_of!(Stack, frames),
    )
}

/// The host's [`innermost`] (the 68k's is assembly, doing exactly this).
///
/// # Safety
/// `rec` is an allocation record; `args` has three writable elements.
#[cfg(not(target_arch = "m68k"))]
unsafe fn innermost(rec: *const u8, args: *mut usize, t: &[u8]) {
    // SAFETY: the caller's guarantees; `t` holds its three templates.
    unsafe {
        let a = &*rec.cast::<AllocRecord>();
        if a.file.0[0] != 0 {
            *args = t.as_ptr().add(WHERE_FILE) as usize;
            *args.add(1) = rec.add(offset_of!(AllocRecord, file)) as usize;
            *args.add(2) = usize::from(a.line.get());
        } else if a.stack.count != 0 {
            *args = t.as_ptr().add(WHERE_FRAME) as usize;
            let raw = if a.stack.raw_mask & 1 != 0 {
                CODE_RAW
            } else {
                0
            };
            *args.add(1) = CODE.as_ptr().add(raw) as usize;
            *args.add(2) = a.stack.frames[0].get() as usize;
        } else {
            *args = t.as_ptr().add(WHERE_NONE) as usize;
        }
    }
}

/// With [`Options::DBG_MESSAGES`], says a template ([`crate::text::say`]) and
/// shows it with `DbgMessage`.
///
/// On the 68k a register routine in assembly: A2 the state (kept), A0 the
/// template; changes D0–D2/A0–A1 (`DbgMessage` may).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) unsafe extern "C" fn dbg_message() {
    core::arch::naked_asm!(
        "btst #{dbg_bit},({dbg_byte},%a2)",
        bs!(beq "9f"),
        "bsr.w {say}",
        "move.l %a0,-(%sp)", // the message
        "trap #15",
        ".short {dbg_message}",
        ".short 0x588F", // addq.l #4,%sp
        "9:",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        say = sym crate::text::say,
        dbg_byte = const crate::state::flag_byte(offset_of!(State, options), Options::DBG_MESSAGES.bits()),
        dbg_bit = const crate::state::flag_bit(Options::DBG_MESSAGES.bits()),
        dbg_message = const palm::traps::sysTrapDbgMessage,
    )
}

/// The host's [`dbg_message`].
#[cfg(not(target_arch = "m68k"))]
pub(crate) fn dbg_message(st: &State, t: &[u8]) {
    if st.has(Options::DBG_MESSAGES) {
        st.say(t);
        let m = field_ptr!(st, msg);
        // SAFETY: the buffer is NUL-terminated (`format` keeps it so).
        unsafe { palm::DbgMessage(m.cast()) }
    }
}

/// Shows a non-fatal `ErrDisplayFileLineMsg` at the file and line of allocation
/// record `rec` saying template `t` with the record's size and kind `k` ("Leaked
/// 16 bytes (handle)"; `t` ends with [`crate::text::THEN`] for the tail,
/// [`ALERT_WHERE`]). A Rust allocation has no file and line: the alert shows file
/// "rust", line 0, and the message ends with its innermost caller as an offset in
/// code 1 ("Leaked 24 bytes (Rust alloc) from code+0x00000C7A"; `memdbg report` or
/// `addr2line` on the ELF turns it into a function and line).
///
/// On the 68k a register routine in assembly: A2 the state and A3 the record
/// (kept), D0 the kind, A0 the template; changes D0–D2/A0–A1.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn alert() {
    core::arch::naked_asm!(
        // ErrDisplayFileLineMsg's message and line pushed first, then the template
        // kept on the stack while the arguments are stored.
        "move.l ({scratch},%a2),%a1",
        ".short 0x52A9, {alerts}", // addq.l #1,(alerts,%a1)
        ".short 0x4869, {msg}", // pea (msg,%a1)
        "move.w ({r_line},%a3),-(%sp)",
        "move.l %a0,-(%sp)",
        "lea ({args},%a1),%a1",
        "move.l ({r_size},%a3),(%a1)+",
        "move.l %d0,(%a1)+",
        "lea ({where_},%pc),%a0",
        "bsr.w {innermost}",
        "move.l (%sp)+,%a0",
        "bsr.w {say}",
        // ErrDisplayFileLineMsg(file or "rust", line, message).
        "lea ({rust},%pc),%a0",
        ".short 0x4A2B, {r_file}", // tst.b (file,%a3)
        bs!(beq "1f"),
        "lea ({r_file},%a3),%a0",
        "1:",
        "move.l %a0,-(%sp)",
        "trap #15",
        ".short {err_display}",
        "lea (10,%sp),%sp",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        innermost = sym innermost,
        say = sym crate::text::say,
        where_ = sym ALERT_WHERE,
        rust = sym RUST,
        scratch = const offset_of!(State, scratch),
        alerts = const offset_of!(crate::state::Scratch, header.counters.alerts),
        args = const offset_of!(crate::state::Scratch, args),
        msg = const offset_of!(crate::state::Scratch, msg),
        r_size = const offset_of!(AllocRecord, size),
        r_line = const offset_of!(AllocRecord, line),
        r_file = const offset_of!(AllocRecord, file),
        err_display = const palm::traps::sysTrapErrDisplayFileLineMsg,
    )
}

/// The host's [`alert`] (the 68k's is assembly, doing exactly this).
#[cfg(not(target_arch = "m68k"))]
fn alert(st: &mut State, rec: *const u8, k: u32, t: &[u8]) {
    st.count(offset_of!(Counters, alerts));
    let args = st.args();
    let msg = field_ptr!(st, msg);
    // SAFETY: `rec` is a locked ledger record or a scratch record; its file field is
    // NUL-terminated (FileName keeps a NUL); the arguments are the scratch ones.
    unsafe {
        let a = &*rec.cast::<AllocRecord>();
        *args = a.size.get() as usize;
        *args.add(1) = k as usize;
        innermost(rec, args.add(2), &ALERT_WHERE);
        st.say(t);
        let file = if a.file.0[0] == 0 {
            RUST.as_ptr()
        } else {
            rec.add(offset_of!(AllocRecord, file))
        };
        palm::ErrDisplayFileLineMsg(file.cast(), a.line.get(), msg.cast());
    }
}

/// The 68k address of the chunk a record describes: a pointer is the chunk; a
/// handle's master pointer holds its chunk's address (PALM_FACTS §5.1), read without
/// locking it. The chunk cannot move meanwhile: nothing between this read and the
/// access allocates or compacts the heap. (Host: the 68k's assembly reads it
/// itself.)
#[cfg(not(target_arch = "m68k"))]
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
/// writes need the Data Manager). (Host: the 68k's assembly reads them itself.)
#[cfg(not(target_arch = "m68k"))]
struct Fields {
    rec: *const u8,
    kind: u8,
    flags: u16,
    size: u32,
    /// The block's address: also its index key.
    addr: u32,
}

#[cfg(not(target_arch = "m68k"))]
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

#[cfg(not(target_arch = "m68k"))]
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
/// recorded (and with [`Options::ALERT_OVERRUNS`] shown, [`report`]) as an overrun
/// found `when`, at `ticks`, by the caller at `site` ([`NO_STACK`]: unknown): the
/// record gets [`AllocFlags::OVERRUN`]. `extern "C"` (`when` a `u32`): the
/// assembly calls it ([`crate::patch::free_block`], [`resize`]); on the 68k in
/// assembly itself (the host's is below). Preserves D2–D7/A2–A6.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) extern "C" fn check_guard(
    st: &mut State,
    rec: *mut u8,
    key: u32,
    when: u32,
    ticks: u32,
    site: *const Stack,
) {
    core::arch::naked_asm!(
        // Stack: ret@0, st@4, rec@8, key@12, when@16, ticks@20, site@24.
        "move.l (8,%sp),%a0",
        "move.w ({r_flags},%a0),%d1",
        "btst #{guarded_bit},%d1",
        bs!(beq "9f"),
        "move.l (12,%sp),%a1",
        "btst #{handle_bit},%d1",
        bs!(beq "1f"),
        "move.l (%a1),%a1",
        "1:",
        "adda.l ({r_size},%a0),%a1",
        "moveq #0,%d0",
        "move.w ({r_data_offset},%a0),%d0",
        "adda.l %d0,%a1",
        // The guard, big-endian (byte accesses: it may start at any address).
        "move.b (%a1)+,%d0",
        "lsl.l #8,%d0",
        "move.b (%a1)+,%d0",
        "lsl.l #8,%d0",
        "move.b (%a1)+,%d0",
        "lsl.l #8,%d0",
        "move.b (%a1),%d0",
        "cmpi.l #{intact},%d0",
        bs!(bne "2f"),
        "9:",
        "rts",
        // Damaged. Stack after this: saved (16), ret@16, st@20, rec@24, key@28,
        // when@32 (its word @34), ticks@36, site@40. a2 = state, a3 = record, d3 =
        // the guard (D2 saved: the trap may clobber it).
        "2:",
        "movem.l %d2-%d3/%a2-%a3,-(%sp)",
        "move.l (20,%sp),%a2",
        "move.l (24,%sp),%a3",
        "move.l %d0,%d3",
        "move.l ({scratch},%a2),%a0",
        ".short 0x52A8, {overruns}", // addq.l #1,(overruns,%a0)
        // DmWrite(rec, 2, &flags, 2): the flags with OVERRUN, from a word on the
        // stack.
        "move.w ({r_flags},%a3),%d0",
        "bset #{overrun_bit},%d0",
        "move.w %d0,-(%sp)",
        "move.l %sp,%a0",
        ".short 0x4878, 2", // pea (2).w
        "move.l %a0,-(%sp)",
        ".short 0x4878, {r_flags}", // pea (2).w: the offset
        "move.l %a3,-(%sp)",
        "trap #15",
        ".short {dm_write}",
        "lea (18,%sp),%sp",
        // The overrun record (a1): the site copied first (26 bytes, by words: a
        // stack is 2-aligned; the site may be the record's own), then its fields.
        "move.l ({scratch},%a2),%a1",
        "lea ({o_site},%a1),%a1",
        "move.l (40,%sp),%a0",
        "moveq #{stack_words},%d0",
        "3:",
        "move.w (%a0)+,(%a1)+",
        ".short 0x51C8", // dbra %d0,3b
        ".short 3b-.",
        "move.l ({scratch},%a2),%a1",
        "lea ({o},%a1),%a1",
        "move.w #{kind_version},(%a1)",
        "move.w (34,%sp),({o_when},%a1)",
        "move.l (36,%sp),({o_ticks},%a1)",
        "move.l %d3,({o_guard},%a1)",
        // report(st, record, OVERRUN_HEAD, rec, kind, ALERT_OVERRUNS).
        ".short 0x4878, {alert_bit}", // pea (ALERT_OVERRUNS).w
        "moveq #0,%d0",
        "move.b (%a3),%d0",
        "move.l %d0,-(%sp)",
        "move.l %a3,-(%sp)",
        ".short 0x4878, {head}", // pea (OVERRUN_HEAD).w
        "move.l %a1,-(%sp)",
        "move.l %a2,-(%sp)",
        "bsr.w {report}",
        "lea (24,%sp),%sp",
        "movem.l (%sp)+,%d2-%d3/%a2-%a3",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        report = sym report,
        scratch = const offset_of!(State, scratch),
        overruns = const offset_of!(crate::state::Scratch, header.counters.overruns),
        o = const offset_of!(crate::state::Scratch, ev.overrun),
        o_site = const offset_of!(crate::state::Scratch, ev.overrun.site),
        o_when = const offset_of!(OverrunRecord, when),
        o_ticks = const offset_of!(OverrunRecord, ticks),
        o_guard = const offset_of!(OverrunRecord, guard),
        kind_version = const (kind::OVERRUN as u16) << 8 | FORMAT_VERSION as u16,
        stack_words = const core::mem::size_of::<Stack>() / 2 - 1,
        r_flags = const offset_of!(AllocRecord, flags),
        r_size = const offset_of!(AllocRecord, size),
        r_data_offset = const offset_of!(AllocRecord, data_offset),
        guarded_bit = const AllocFlags::GUARDED.bits().trailing_zeros(),
        handle_bit = const AllocFlags::HANDLE.bits().trailing_zeros(),
        overrun_bit = const AllocFlags::OVERRUN.bits().trailing_zeros(),
        intact = const guard::INTACT as i32,
        alert_bit = const Options::ALERT_OVERRUNS.bits(),
        head = const OVERRUN_HEAD,
        dm_write = const palm::traps::sysTrapDmWrite,
    )
}
// The assembly writes the record's kind and version as one word and its guard as a
// long (at an even offset), copies a stack by words, pushes small constants as
// words.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    offset_of!(OverrunRecord, kind) == 0
        && offset_of!(OverrunRecord, version) == 1
        && offset_of!(OverrunRecord, guard) % 2 == 0
        && offset_of!(crate::state::Scratch, ev.overrun) % 2 == 0
        && core::mem::size_of::<Stack>() % 2 == 0
        && core::mem::align_of::<Stack>() == 2
        && Options::ALERT_OVERRUNS.bits() < 0x8000
        && Options::ALERT_DOUBLE_FREES.bits() < 0x8000
        && OVERRUN_HEAD < 0x8000
        && DOUBLE_FREE_HEAD < 0x8000
);

/// An event the assembly found ([`check_guard`], [`double_free`]): its record
/// (`head_len` bytes at `head`, then allocation record `rec` with kind `k`,
/// [`ledger::event`]) and, when option `alert` (`ALERT_OVERRUNS` or
/// `ALERT_DOUBLE_FREES`) is on, its alert. On the 68k in assembly (the host's is
/// below); preserves D2–D7/A2–A6.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
extern "C" fn report(
    st: &mut State,
    head: *const u8,
    head_len: u32,
    rec: *const u8,
    k: u32,
    alert_bit: u32,
) {
    core::arch::naked_asm!(
        // Stack after this: saved (12), ret@12, st@16, head@20, head_len@24,
        // rec@28, k@32, alert_bit@36. a2 = state, a3 = rec (D2 saved: the traps
        // may clobber it).
        "movem.l %d2/%a2-%a3,-(%sp)",
        "lea (16,%sp),%a1",
        "move.l (%a1)+,%a2",
        "move.l (%a1)+,%a0",
        "move.l (%a1)+,%d0",
        "move.l (%a1)+,%a3",
        "move.l (%a1),%d1",
        "move.l %a3,%a1",
        "bsr.w {event}",
        "move.l (36,%sp),%d0",
        "and.l ({opts},%a2),%d0",
        bs!(beq "9f"),
        "lea ({overrun},%pc),%a0",
        "cmpi.w #{overruns},%d0",
        bs!(beq "1f"),
        "lea ({double},%pc),%a0",
        "1:",
        "move.l (32,%sp),%d0",
        "bsr.w {alert}",
        "9:",
        "movem.l (%sp)+,%d2/%a2-%a3",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        event = sym ledger::event,
        alert = sym alert,
        overrun = sym OVERRUN,
        double = sym DOUBLE_FREE,
        opts = const offset_of!(State, options),
        overruns = const Options::ALERT_OVERRUNS.bits(),
    )
}

/// The host's [`report`] (the 68k's is assembly, doing exactly this).
#[cfg(not(target_arch = "m68k"))]
#[inline(never)]
extern "C" fn report(
    st: &mut State,
    head: *const u8,
    head_len: u32,
    rec: *const u8,
    k: u32,
    alert_bit: u32,
) {
    ledger::event(st, head.cast_mut(), head_len, rec, k as u8);
    if st.options & alert_bit != 0 {
        let t: &[u8] = if alert_bit == Options::ALERT_OVERRUNS.bits() {
            &OVERRUN
        } else {
            &DOUBLE_FREE
        };
        alert(st, rec, k, t);
    }
}

/// The host's [`check_guard`] (the 68k's is assembly, doing exactly this).
#[cfg(not(target_arch = "m68k"))]
#[inline(never)]
pub(crate) extern "C" fn check_guard(
    st: &mut State,
    rec: *mut u8,
    key: u32,
    when: u32,
    ticks: u32,
    site: *const Stack,
) {
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
    o.when.set(when as u16);
    o.ticks.set(ticks);
    o.guard = g.to_be_bytes();
    let head = (o as *const OverrunRecord).cast::<u8>();
    // SAFETY: as in `fields`.
    let k = unsafe { mem::read_u8(rec) };
    report(
        st,
        head,
        OVERRUN_HEAD,
        rec,
        k,
        Options::ALERT_OVERRUNS.bits(),
    );
}

/// An empty stack: the caller of an overrun found at stop (read-only data).
static NO_STACK: Stack = Stack {
    count: 0,
    raw_mask: 0,
    frames: [record::U32Be::new(0); record::STACK_FRAMES],
};

/// The state's index, its address made with one `lea` ([`mem::lea`]) (host: the
/// 68k's lookups are assembly).
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
fn index(st: &State) -> &crate::index::Index {
    // SAFETY: a field of the state (address arithmetic only).
    unsafe {
        &*mem::lea::<{ offset_of!(State, index) }, State>((st as *const State).cast_mut())
            .cast::<crate::index::Index>()
    }
}

/// Slot `s`'s record ([`State::rec`] for a slot number already zero-extended) (host:
/// the 68k's lookups are assembly).
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
fn rec_at(st: &State, s: usize) -> *mut u8 {
    // SAFETY: slot numbers are below `n_slots` ≤ capacity, the table's size.
    unsafe { *st.slot_rec.add(s) }
}

/// Ring entry `i`'s stack (`i` < RING): the sites' start by one `lea`
/// ([`mem::lea`]), then 32 bytes an entry. (Host: the 68k's assembly reaches it
/// itself.)
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
fn ring_site(ring: &mut Ring, i: usize) -> *mut Stack {
    // SAFETY: inside the ring's sites.
    unsafe {
        mem::lea::<{ offset_of!(Ring, site) }, Ring>(ring)
            .byte_add(i * core::mem::size_of::<RingSite>())
            .cast()
    }
}

/// Where a ring entry for `addr` is, newest first (host: the 68k's is in
/// [`crate::patch::free_block`]).
#[cfg(not(target_arch = "m68k"))]
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
/// to a live chunk whose hOffset points back at it. (Host: the 68k's is in
/// [`crate::patch::free_block`].)
#[cfg(not(target_arch = "m68k"))]
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

/// Reports a double free of ring entry `i` (`extern "C"`: the free's assembly calls
/// it, [`crate::patch::free_block`]): its record (the first free's time and site
/// from the ring, this one's, and the quarantined slot's record, which still holds
/// the allocation but for its kind) and, with [`Options::ALERT_DOUBLE_FREES`], its
/// alert ([`report`]). On the 68k in assembly (the host's is below); preserves
/// D2–D7/A2–A6.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) extern "C" fn double_free(st: &mut State, i: usize, ret: u32, frame: u32) {
    core::arch::naked_asm!(
        // Stack after this: saved (24), ret@24, st@28, i@32, ret@36, frame@40. a2 =
        // state, a3 = the record being built, a4 = the ring, d2 = i, d3 = ticks, d4
        // = the slot's record.
        "movem.l %d2-%d4/%a2-%a4,-(%sp)",
        "move.l (28,%sp),%a2",
        "move.l ({scratch},%a2),%a0",
        ".short 0x52A8, {double_frees}", // addq.l #1,(double_frees,%a0)
        "trap #15",
        ".short {tim_get_ticks}",
        "move.l %d0,%d3",
        "move.l (32,%sp),%d2", // (after the trap, which may clobber D2)
        "move.l ({scratch},%a2),%a3",
        "lea ({ring},%a3),%a4",
        "lea ({d},%a3),%a3",
        // The slot's record: slot_rec[ring.slot[i]].
        "move.l %d2,%d0",
        "add.l %d0,%d0",
        "moveq #0,%d1",
        "move.w ({r_slot},%a4,%d0),%d1",
        "lsl.l #2,%d1",
        "move.l ({slot_rec},%a2),%a0",
        "move.l (0,%a0,%d1),%d4",
        "move.w #{kind_version},(%a3)",
        "move.l %d2,%d0",
        "lsl.l #2,%d0",
        "move.l ({r_addr},%a4,%d0),({d_address},%a3)",
        "move.l ({r_ticks},%a4,%d0),({d_first_ticks},%a3)",
        "move.l %d3,({d_second_ticks},%a3)",
        // The first free's site (26 bytes, by words), its frames beyond its count
        // zeroed (a ring entry written by the free's assembly holds only one).
        "move.l %d2,%d0",
        "lsl.l #5,%d0",
        "lea ({r_site},%a4,%d0),%a0",
        "lea ({d_first},%a3),%a1",
        "moveq #{stack_words},%d0",
        "1:",
        "move.w (%a0)+,(%a1)+",
        ".short 0x51C8", // dbra %d0,1b
        ".short 1b-.",
        "moveq #0,%d0",
        "move.b ({d_first},%a3),%d0",
        "moveq #{frames},%d1",
        "sub.l %d0,%d1",
        "lsl.l #2,%d0",
        "lea ({d_frames},%a3,%d0),%a1",
        bs!(bra "3f"),
        "2:",
        ".short 0x4299", // clr.l (%a1)+
        "3:",
        ".short 0x51C9", // dbra %d1,2b
        ".short 2b-.",
        // This free's site: capture(st, &second, ret, frame).
        "move.l (40,%sp),-(%sp)",
        "move.l (40,%sp),-(%sp)",
        ".short 0x486B, {d_second}", // pea (second,%a3)
        "move.l %a2,-(%sp)",
        "bsr.w {capture}",
        "lea (16,%sp),%sp",
        // report(st, record, DOUBLE_FREE_HEAD, slot's record, ring.kind[i],
        // ALERT_DOUBLE_FREES).
        ".short 0x4878, {alert_bit}", // pea (ALERT_DOUBLE_FREES).w
        "moveq #0,%d0",
        "move.b ({r_kind},%a4,%d2),%d0",
        "move.l %d0,-(%sp)",
        "move.l %d4,-(%sp)",
        ".short 0x4878, {head}", // pea (DOUBLE_FREE_HEAD).w
        "move.l %a3,-(%sp)",
        "move.l %a2,-(%sp)",
        "bsr.w {report}",
        "lea (24,%sp),%sp",
        "movem.l (%sp)+,%d2-%d4/%a2-%a4",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        report = sym report,
        capture = sym capture,
        scratch = const offset_of!(State, scratch),
        slot_rec = const offset_of!(State, slot_rec),
        double_frees = const offset_of!(crate::state::Scratch, header.counters.double_frees),
        ring = const offset_of!(crate::state::Scratch, ring),
        d = const offset_of!(crate::state::Scratch, ev.double),
        r_addr = const offset_of!(Ring, addr),
        r_ticks = const offset_of!(Ring, ticks),
        r_slot = const offset_of!(Ring, slot),
        r_kind = const offset_of!(Ring, kind),
        r_site = const offset_of!(Ring, site),
        d_address = const offset_of!(DoubleFreeRecord, address),
        d_first_ticks = const offset_of!(DoubleFreeRecord, first_ticks),
        d_second_ticks = const offset_of!(DoubleFreeRecord, second_ticks),
        d_first = const offset_of!(DoubleFreeRecord, first),
        d_frames = const offset_of!(DoubleFreeRecord, first) + offset_of!(Stack, frames),
        d_second = const offset_of!(DoubleFreeRecord, second),
        kind_version = const (kind::DOUBLE_FREE as u16) << 8 | FORMAT_VERSION as u16,
        stack_words = const core::mem::size_of::<Stack>() / 2 - 1,
        frames = const STACK_FRAMES,
        alert_bit = const Options::ALERT_DOUBLE_FREES.bits(),
        head = const DOUBLE_FREE_HEAD,
        tim_get_ticks = const palm::traps::sysTrapTimGetTicks,
    )
}
// The assembly writes the record's kind and version as one word, its longs and the
// first site's frames at even offsets, and reaches the ring with 8-bit
// displacements.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    offset_of!(DoubleFreeRecord, kind) == 0
        && offset_of!(DoubleFreeRecord, version) == 1
        && offset_of!(crate::state::Scratch, ev.double) % 2 == 0
        && (offset_of!(DoubleFreeRecord, first) + offset_of!(Stack, frames)) % 2 == 0
        && offset_of!(DoubleFreeRecord, first) < 128
        && offset_of!(Ring, site) < 128
        && STACK_FRAMES < 128
);

/// The host's [`double_free`] (the 68k's is assembly, doing exactly this).
#[cfg(not(target_arch = "m68k"))]
#[cold]
#[inline(never)]
pub(crate) extern "C" fn double_free(st: &mut State, i: usize, ret: u32, frame: u32) {
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
    report(
        st,
        head,
        DOUBLE_FREE_HEAD,
        rec,
        k.into(),
        Options::ALERT_DOUBLE_FREES.bits(),
    );
}

/// Whether the caller is the app (code 1) rather than the OS (host: the 68k's are
/// in [`crate::patch::free_block`]).
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
fn app_side(st: &State, ret: u32) -> bool {
    st.code.base == 0 || st.code.contains(ret)
}

/// Bookkeeping for a free of `addr` (`handle`: through `MemHandleFree`, else
/// `MemChunkFree`), with the state entered. `ret`/`frame` are the free call's return
/// address and the caller's frame. The free patches' bookkeeping too:
/// [`crate::patch::free_block`], in assembly on the 68k. (Host stand-ins; the 68k's
/// wrappers call `free_block` from assembly, `api::free_raw`.)
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub fn freeing(st: &mut State, addr: u32, handle: bool, ret: u32, frame: u32) -> Freed {
    let s = st as *mut State;
    // SAFETY: the entered state.
    unsafe { crate::patch::free_block(0, frame, s, s as u32 | u32::from(handle), ret, addr) }
}

/// A free of an address the index does not hold ([`crate::patch::free_block`]'s
/// general path, with its arguments: `tagged` is the state's address, +1 through
/// `MemHandleFree`; `keep` is passed on): a double free, a locked handle's pointer
/// (its handle is freed as tracked), or a block never tracked. The host's (the
/// 68k's is the assembly's).
#[cfg(not(target_arch = "m68k"))]
pub(crate) extern "C" fn not_indexed(
    keep: u32,
    frame: u32,
    st: &mut State,
    tagged: u32,
    ret: u32,
    addr: u32,
) -> Freed {
    let handle = tagged & 1;
    if addr != 0 && addr & 1 == 0 {
        if let Some(i) = ring_find(st, addr)
            && still_free(addr, handle != 0)
        {
            double_free(st, i, ret, frame);
            return Freed::Refuse;
        }
        // MemPtrFree(MemHandleLock(h)) is legal on Palm OS: a locked handle's pointer
        // frees the handle.
        // SAFETY: `addr` was passed to a free.
        let rec = unsafe { lookup(st, addr, handle) };
        if !rec.is_null() {
            // SAFETY: the entered state; the record's key is in the index.
            return unsafe { crate::patch::free_block(keep, frame, st, tagged, ret, key_of(rec)) };
        }
    }
    st.count(if app_side(st, ret) {
        offset_of!(Counters, unknown_frees)
    } else {
        offset_of!(Counters, os_unknown_frees)
    });
    Freed::Pass
}

/// The free of the tracked block at index position `pos` (`key` is its address): the
/// host's stand-in for the assembly in [`crate::patch::free_block`].
#[cfg(not(target_arch = "m68k"))]
pub(crate) fn free_tracked(st: &mut State, pos: usize, key: u32, ret: u32, frame: u32) {
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
    check_guard(st, rec, key, detected::AT_FREE.into(), ticks, site);
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
/// patch is not entered again), else through the trap. Returns the `Err` in the low
/// word (the high word is whatever the OS left there). Preserves D2–D7/A2–A6 (D2
/// saved around the call: Palm OS may clobber it, PALM_FACTS §6).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn os_resize(st: &State, addr: u32, size: u32, handle: u32) -> u32 {
    core::arch::naked_asm!(
        // Stack after the pushes: addr, size (the call's arguments), d2, ret@12,
        // st@16, addr@20, size@24, handle@28.
        "move.l %d2,-(%sp)",
        "move.l (8,%sp),%a0",
        "move.l (16,%sp),-(%sp)",
        "move.l (16,%sp),-(%sp)",
        "btst #{sizes_bit},({patched},%a0)",
        bs!(beq "3f"),
        "move.l ({orig_ptr},%a0),%a1",
        ".short 0x4AAF, 28", // tst.l (28,%sp): handle
        bs!(beq "1f"),
        "move.l ({orig_handle},%a0),%a1",
        "1:",
        "jsr (%a1)",
        bs!(bra "9f"),
        "3:",
        ".short 0x4AAF, 28", // tst.l (28,%sp): handle
        bs!(bne "4f"),
        "trap #15",
        ".short {ptr_resize}",
        bs!(bra "9f"),
        "4:",
        "trap #15",
        ".short {handle_resize}",
        "9:",
        ".short 0x508F", // addq.l #8,%sp
        "move.l (%sp)+,%d2",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        patched = const offset_of!(State, patched),
        sizes_bit = const PATCHED_SIZES.trailing_zeros(),
        orig_ptr = const offset_of!(State, orig_ptr_resize),
        orig_handle = const offset_of!(State, orig_handle_resize),
        ptr_resize = const palm::traps::sysTrapMemPtrResize,
        handle_resize = const palm::traps::sysTrapMemHandleResize,
    )
}

/// Host stand-in for the 68k's [`os_resize`] (same effect).
///
/// # Safety
/// As on the 68k: the arguments are what the app (or the OS) passed to the resize.
#[cfg(not(target_arch = "m68k"))]
unsafe extern "C" fn os_resize(st: &State, addr: u32, size: u32, handle: u32) -> u32 {
    let handle = handle != 0;
    if st.patched & PATCHED_SIZES != 0 {
        return crate::patch::chain_resize(st, addr, size, handle).into();
    }
    // SAFETY: the caller's guarantee.
    unsafe {
        if handle {
            palm::MemHandleResize(addr as usize as palm::MemHandle, size)
        } else {
            palm::MemPtrResize(addr as usize as palm::MemPtr, size)
        }
    }
    .into()
}

/// The record of the tracked block a size, resize or free call on `addr` is about
/// (`handle` 1: `MemHandleSize`/`MemHandleResize`/`MemHandleFree`, else 0), or null;
/// its key (index entry) is its address field (`key_of`). A pointer may be a locked
/// handle's (`MemPtrSize(MemHandleLock(h))` is legal): then the key is the handle.
/// The record's kind must match the call's: a handle's record for a handle or a
/// locked handle's pointer, a pointer's for a pointer. Preserves D2–D7/A2–A6 (D2
/// saved: the trap may clobber it).
///
/// `tst`, `addq` are written as their opcode words, branches with `bs!`.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) unsafe extern "C" fn lookup(st: &State, addr: u32, handle: u32) -> *mut u8 {
    core::arch::naked_asm!(
        // Stack after this: saved (12), ret@12, st@16, addr@20, handle@24. d3 = the
        // key, d2 = the HANDLE flag the record must have.
        "movem.l %d2-%d3/%a2,-(%sp)",
        "move.l (16,%sp),%a2",
        "move.l (20,%sp),%d3",
        "move.l (24,%sp),%d2",
        "lsl.l #{handle_bit},%d2",
        // Twice at most: the address, then (a pointer) its handle.
        "1:",
        "lea ({index},%a2),%a0",
        "move.l %d3,%d0",
        "bsr.w {probe}",
        bs!(bne "3f"),
        "move.l ({slots},%a2),%a0",
        "lsr.l #1,%d0",
        "moveq #0,%d1",
        "move.w (0,%a0,%d0),%d1",
        "lsl.l #2,%d1",
        "move.l ({slot_rec},%a2),%a0",
        "move.l (0,%a0,%d1),%a0",
        "moveq #{handle_flag},%d0",
        "and.b ({flags_low},%a0),%d0",
        "cmp.b %d2,%d0",
        bs!(beq "8f"),
        bs!(bra "7f"),
        // Not found: a pointer (first round) may be a locked handle's, while
        // handles are live (MemPtrRecoverHandle answers 0 for a non-movable chunk).
        "3:",
        ".short 0x4A82", // tst.l %d2
        bs!(bne "7f"),
        ".short 0x4AAA, {live_handles}", // tst.l (live_handles,%a2)
        bs!(beq "7f"),
        "move.l (20,%sp),%d0",
        bs!(beq "7f"),
        "btst #0,%d0",
        bs!(bne "7f"),
        "move.l %d0,-(%sp)",
        "trap #15",
        ".short {recover}",
        ".short 0x588F", // addq.l #4,%sp
        "move.l %a0,%d3",
        bs!(beq "7f"),
        "moveq #{handle_flag},%d2",
        bs!(bra "1b"),
        "7:",
        "suba.l %a0,%a0",
        "8:",
        "move.l %a0,%d0",
        "movem.l (%sp)+,%d2-%d3/%a2",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        probe = sym crate::index::probe,
        index = const offset_of!(State, index),
        slots = const offset_of!(State, index) + offset_of!(crate::index::Index, slots),
        slot_rec = const offset_of!(State, slot_rec),
        live_handles = const offset_of!(State, live_handles),
        handle_bit = const AllocFlags::HANDLE.bits().trailing_zeros(),
        handle_flag = const AllocFlags::HANDLE.bits(),
        flags_low = const offset_of!(AllocRecord, flags) + 1,
        recover = const palm::traps::sysTrapMemPtrRecoverHandle,
    )
}

/// Host stand-in for the 68k's [`lookup`] (same effect).
///
/// # Safety
/// As on the 68k: `addr` was passed to a Memory Manager call on a chunk.
#[cfg(not(target_arch = "m68k"))]
unsafe extern "C" fn lookup(st: &State, addr: u32, handle: u32) -> *mut u8 {
    let mut want = (handle << AllocFlags::HANDLE.bits().trailing_zeros()) as u16;
    let mut key = addr;
    loop {
        let pos = index(st).find(key);
        if pos != crate::index::NOT_FOUND {
            // SAFETY: a found position.
            let rec = rec_at(st, unsafe { st.index.slot_at(pos) });
            if fields(rec, key).flags & AllocFlags::HANDLE.bits() != want {
                break;
            }
            return rec;
        }
        if want != 0 || st.live_handles == 0 || addr == 0 || addr & 1 != 0 {
            break;
        }
        // SAFETY: the caller's guarantee; the OS answers 0 for a non-movable chunk.
        key = unsafe { palm::MemPtrRecoverHandle(addr as usize as palm::MemPtr) } as u32;
        if key == 0 {
            break;
        }
        want = AllocFlags::HANDLE.bits();
    }
    core::ptr::null_mut()
}

/// A record's key: the block's address (its address field) (host: the 68k's
/// assembly reads it itself).
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
fn key_of(rec: *const u8) -> u32 {
    // SAFETY: a locked allocation record; its address field is at 8 (2-aligned).
    unsafe {
        rec.add(offset_of!(AllocRecord, address))
            .cast::<u32>()
            .read()
    }
}

/// What the size patches answer for `addr` (`handle` 1: `MemHandleSize`), given the
/// OS's answer `os`: for a tracked guarded block, the bytes before its guard (its
/// requested size, plus its data offset for an over-aligned Rust block), so that
/// nothing writes the guard because the chunk is bigger; else `os`. `extern "C"`:
/// the size patches' assembly calls it ([`crate::patch`]); on the 68k in assembly
/// (the host's is below), using D0–D1/A0–A1 only.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) extern "C" fn visible_size(st: &State, addr: u32, handle: u32, os: u32) -> u32 {
    core::arch::naked_asm!(
        // Stack: ret@0, st@4, addr@8, handle@12, os@16. lookup(st, addr, handle).
        "move.l (12,%sp),-(%sp)",
        "move.l (12,%sp),-(%sp)",
        "move.l (12,%sp),-(%sp)",
        "bsr.w {lookup}",
        "lea (12,%sp),%sp",
        ".short 0x4A80", // tst.l %d0
        bs!(beq "8f"),
        "btst #{guarded_bit},({flags_low},%a0)",
        bs!(beq "8f"),
        "moveq #0,%d0",
        "move.w ({data_offset},%a0),%d0",
        "add.l ({r_size},%a0),%d0",
        "rts",
        "8:",
        "move.l (16,%sp),%d0",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        lookup = sym lookup,
        guarded_bit = const AllocFlags::GUARDED.bits().trailing_zeros(),
        flags_low = const offset_of!(AllocRecord, flags) + 1,
        data_offset = const offset_of!(AllocRecord, data_offset),
        r_size = const offset_of!(AllocRecord, size),
    )
}
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(AllocFlags::GUARDED.bits() < 256);

/// The host's [`visible_size`] (the 68k's is assembly, doing exactly this).
#[cfg(not(target_arch = "m68k"))]
#[allow(dead_code)]
pub(crate) extern "C" fn visible_size(st: &State, addr: u32, handle: u32, os: u32) -> u32 {
    // SAFETY: `addr` was passed to a size call.
    let rec = unsafe { lookup(st, addr, handle) };
    if rec.is_null() {
        return os;
    }
    let f = fields(rec, key_of(rec));
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
/// `extern "C"`: the resize patches' assembly calls it ([`crate::patch`]). On the
/// 68k in assembly (as the host's [`resize`] does it: [`lookup`], [`capture`],
/// `TimGetTicks`, [`check_guard`], [`os_resize`] with room for the guard then
/// without, [`prepare`], one `DmWrite` of the record's flags and size from the
/// scratch record, live bytes and peak, the counter). Preserves D2–D7/A2–A6.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub extern "C" fn resize(
    st: &mut State,
    addr: u32,
    size: u32,
    handle: bool,
    ret: u32,
    frame: u32,
) -> palm::Err {
    core::arch::naked_asm!(
        // Stack after this: saved regs (36), ret@36, st@40, addr@44, size@48,
        // handle@52 (its byte @55), ret@56, frame@60. a2 = state, a3 = record, a4 =
        // the overrun's site, d3 = key, d4 = flags, d5 = size, d6 = handle, then
        // the old size.
        "movem.l %d2-%d7/%a2-%a4,-(%sp)",
        "move.l (40,%sp),%a2",
        "move.l (48,%sp),%d5",
        "moveq #0,%d6",
        "move.b (55,%sp),%d6",
        "move.l %d6,-(%sp)",
        "move.l (48,%sp),-(%sp)",
        "move.l %a2,-(%sp)",
        "bsr.w {lookup}",
        "lea (12,%sp),%sp",
        "move.l %a0,%a3",
        ".short 0x4A80", // tst.l %d0
        bs!(bne "1f"),
        // Untracked: simply resized.
        "move.l %d5,%d0",
        "bsr.w 8f",
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "rts",
        "1:",
        "move.l ({r_address},%a3),%d3",
        // capture(st, site, ret, frame); check_guard(st, rec, key, AT_RESIZE,
        // TimGetTicks(), site).
        "move.l ({scratch},%a2),%a4",
        "lea ({site},%a4),%a4",
        "move.l (60,%sp),-(%sp)",
        "move.l (60,%sp),-(%sp)",
        "move.l %a4,-(%sp)",
        "move.l %a2,-(%sp)",
        "bsr.w {capture}",
        "lea (16,%sp),%sp",
        "trap #15",
        ".short {tim_get_ticks}",
        "move.l %a4,-(%sp)",
        "move.l %d0,-(%sp)",
        ".short 0x4878, {at_resize}", // pea (AT_RESIZE).w
        "move.l %d3,-(%sp)",
        "move.l %a3,-(%sp)",
        "move.l %a2,-(%sp)",
        "bsr.w {check_guard}",
        "lea (24,%sp),%sp",
        // The flags now (check_guard may have added OVERRUN), RESIZED; guarded:
        // with room for the guard first, then (no room) exactly the request.
        "moveq #0,%d4",
        "move.w ({r_flags},%a3),%d4",
        "bset #{resized_bit},%d4",
        "move.l %d5,%d0",
        "btst #{guarded_bit},%d4",
        bs!(beq "2f"),
        ".short 0x5880", // addq.l #GUARD_LEN,%d0
        "2:",
        "bsr.w 8f",
        bs!(beq "3f"),
        "bclr #{guarded_bit},%d4",
        bs!(beq "9f"), // (it was not guarded: that was the request)
        "move.l %d5,%d0",
        "bsr.w 8f",
        bs!(bne "9f"),
        // prepare(key, flags, old size, size, FILL_RESIZE_BYTE with FILL_NEW or 0).
        "3:",
        "move.l ({r_size},%a3),%d6",
        "moveq #0,%d0",
        "btst #{fn_bit},({fn_byte},%a2)",
        bs!(beq "4f"),
        "moveq #{fill},%d0",
        "4:",
        "move.l %d0,-(%sp)",
        "move.l %d5,-(%sp)",
        "move.l %d6,-(%sp)",
        "move.l %d4,-(%sp)",
        "move.l %d3,-(%sp)",
        "bsr.w {prepare}",
        "lea (20,%sp),%sp",
        // DmWrite(rec, 2, scratch record + 2, 6): its flags and size (adjacent).
        "move.l ({scratch},%a2),%a0",
        "move.w %d4,({r_flags},%a0)",
        "move.l %d5,({r_size},%a0)",
        ".short 0x4878, 6", // pea (6).w
        ".short 0x4868, {r_flags}", // pea (2,%a0)
        ".short 0x4878, {r_flags}", // pea (2).w
        "move.l %a3,-(%sp)",
        "trap #15",
        ".short {dm_write}",
        "lea (16,%sp),%sp",
        // Live bytes and their peak; the resize counter.
        "move.l ({live_bytes},%a2),%d0",
        "sub.l %d6,%d0",
        "add.l %d5,%d0",
        "move.l %d0,({live_bytes},%a2)",
        "cmp.l ({peak_bytes},%a2),%d0",
        bs!(bls "5f"),
        "move.l %d0,({peak_bytes},%a2)",
        "5:",
        "move.l ({scratch},%a2),%a0",
        ".short 0x52A8, {resizes}", // addq.l #1,(resizes,%a0)
        "moveq #0,%d0", // errNone
        "9:",
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "rts",
        // os_resize(st, addr, d0, handle), its Err zero-extended (flags: tst.l).
        "8:",
        "move.l %d6,-(%sp)",
        "move.l %d0,-(%sp)",
        "move.l (56,%sp),-(%sp)",
        "move.l %a2,-(%sp)",
        "bsr.w {os_resize}",
        "lea (16,%sp),%sp",
        ".short 0x4840", // swap %d0
        ".short 0x4240", // clr.w %d0
        ".short 0x4840", // swap %d0
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        lookup = sym lookup,
        capture = sym capture,
        check_guard = sym check_guard,
        os_resize = sym os_resize,
        prepare = sym prepare,
        scratch = const offset_of!(State, scratch),
        live_bytes = const offset_of!(State, live_bytes),
        peak_bytes = const offset_of!(State, peak_bytes),
        site = const offset_of!(crate::state::Scratch, ev.overrun.site),
        resizes = const offset_of!(crate::state::Scratch, header.counters.resizes),
        r_flags = const offset_of!(AllocRecord, flags),
        r_size = const offset_of!(AllocRecord, size),
        r_address = const offset_of!(AllocRecord, address),
        resized_bit = const AllocFlags::RESIZED.bits().trailing_zeros(),
        guarded_bit = const AllocFlags::GUARDED.bits().trailing_zeros(),
        fn_byte = const crate::state::flag_byte(offset_of!(State, options), Options::FILL_NEW.bits()),
        fn_bit = const crate::state::flag_bit(Options::FILL_NEW.bits()),
        fill = const record::FILL_RESIZE_BYTE,
        at_resize = const detected::AT_RESIZE,
        tim_get_ticks = const palm::traps::sysTrapTimGetTicks,
        dm_write = const palm::traps::sysTrapDmWrite,
    )
}
// The assembly: `addq` adds the guard's length; `moveq` loads the fill byte; the
// scratch record is at the scratch chunk's start; the flags are a word.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    record::GUARD_LEN == 4
        && (record::FILL_RESIZE_BYTE as usize) < 128
        && offset_of!(crate::state::Scratch, rec) == 0
        && AllocFlags::RESIZED.bits() < 256
);

/// The host's [`resize`] (the 68k's is assembly, doing exactly this).
#[cfg(not(target_arch = "m68k"))]
pub extern "C" fn resize(
    st: &mut State,
    addr: u32,
    size: u32,
    handle: bool,
    ret: u32,
    frame: u32,
) -> palm::Err {
    let handle = u32::from(handle);
    // SAFETY: `addr` was passed to a resize.
    let rec = unsafe { lookup(st, addr, handle) };
    if rec.is_null() {
        // SAFETY: what the app (or the OS) passed to the resize.
        return unsafe { os_resize(st, addr, size, handle) } as palm::Err;
    }
    let key = key_of(rec);
    let site = field_ptr!(st, ev.overrun.site);
    capture(st, site, ret, frame);
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    check_guard(st, rec, key, detected::AT_RESIZE.into(), ticks, site);
    // (Read now, not kept across the calls: check_guard may have added OVERRUN.)
    let mut flags = fields(rec, key).flags | AllocFlags::RESIZED.bits();
    // Guarded: with room for the guard first; unguarded, or no room for the guard:
    // exactly the request.
    let mut want = size;
    if flags & AllocFlags::GUARDED.bits() != 0 {
        want = size.wrapping_add(record::GUARD_LEN as u32);
    }
    // SAFETY: what the app (or the OS) passed to the resize, with room for the guard
    // when the chunk has one (its record says so).
    let mut err = unsafe { os_resize(st, addr, want, handle) } as palm::Err;
    if err != palm::errNone && want != size {
        flags &= !AllocFlags::GUARDED.bits();
        // SAFETY: as above.
        err = unsafe { os_resize(st, addr, size, handle) } as palm::Err;
    }
    if err != palm::errNone {
        return err;
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
/// pointer or handle). On the 68k in assembly (`extern "C"`: the free's assembly
/// calls it too, [`crate::patch::free_block`]); uses D0–D1/A0–A1 only.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) extern "C" fn prepare(addr: u32, flags: u16, from: u32, to: u32, byte: u8) {
    core::arch::naked_asm!(
        // Stack: ret@0, addr@4, flags@8 (its word @10), from@12, to@16, byte@20
        // (its low byte @23). a0 = the chunk, a1 = its byte `to`.
        "move.w (10,%sp),%d1",
        "btst #{not_dynamic},%d1",
        bs!(bne "9f"),
        "move.l (4,%sp),%a0",
        "btst #{handle},%d1",
        bs!(beq "1f"),
        "move.l (%a0),%a0",
        "1:",
        "move.l %a0,%a1",
        "adda.l (16,%sp),%a1",
        "move.l (16,%sp),%d0",
        "sub.l (12,%sp),%d0",
        bs!(bls "3f"),
        ".short 0x4A2F, 23", // tst.b (23,%sp): no fill
        bs!(beq "3f"),
        "adda.l (12,%sp),%a0",
        "2:",
        "move.b (23,%sp),(%a0)+",
        ".short 0x5380", // subq.l #1,%d0
        bs!(bne "2b"),
        "3:",
        "btst #{guarded},%d1",
        bs!(beq "9f"),
        "moveq #{guard_byte},%d0",
        "move.b %d0,(%a1)+",
        "move.b %d0,(%a1)+",
        "move.b %d0,(%a1)+",
        "move.b %d0,(%a1)",
        "9:",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        not_dynamic = const AllocFlags::NOT_DYNAMIC.bits().trailing_zeros(),
        handle = const AllocFlags::HANDLE.bits().trailing_zeros(),
        guarded = const AllocFlags::GUARDED.bits().trailing_zeros(),
        guard_byte = const record::GUARD_BYTE as i8,
    )
}
// prepare writes the guard as four bytes.
static_assertions::const_assert_eq!(record::GUARD_LEN, 4);

/// Host stand-in for the 68k's [`prepare`] (same effect).
#[cfg(not(target_arch = "m68k"))]
pub(crate) extern "C" fn prepare(addr: u32, flags: u16, from: u32, to: u32, byte: u8) {
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
/// (alerts up to the maximum, one `DbgMessage` line each); every slot's record is
/// unlocked after it (nothing reads it again: `stop` finds the free slots by
/// index). Then the small-allocation sites are written ([`write_sites`]).
///
/// On the 68k a register routine in assembly for `session::stop_raw` (the sites'
/// loop included): A2 the state (kept); returns the leaks in D3, their bytes in D4;
/// changes D0–D2, D5–D7, A0–A1 and A3–A4. `addq`, `subq`, `pea` and `dbf` are
/// written as opcode words (named in comments), short branches with `bs!`.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) unsafe extern "C" fn report_leaks() {
    core::arch::naked_asm!(
        // a3 = the record, d7 = its kind, a4 = the next slot's entry, d6 = the
        // slots left, d5 = the ticks.
        "trap #15",
        ".short {tim_get_ticks}",
        "move.l %d0,%d5",
        "moveq #0,%d3",
        "moveq #0,%d4",
        "move.l ({slot_rec},%a2),%a4",
        "move.w ({n_slots},%a2),%d6",
        bs!(bra "8f"),
        "1:",
        "move.l (%a4)+,%a3",
        "moveq #0,%d7",
        "move.b (%a3),%d7",
        "move.b %d7,%d0",
        "lsr.b #2,%d0",
        ".short 0x5900", // subq.b #4,%d0: an allocation kind, 0x10 to 0x13
        bs!(bne "7f"),
        ".short 0x5283", // addq.l #1,%d3
        "add.l ({r_size},%a3),%d4",
        // check_guard(st, rec, key, AT_STOP, ticks, NO_STACK).
        ".short 0x487A", // pea (NO_STACK,%pc), the displacement from this word:
        ".short {no_stack}-.",
        "move.l %d5,-(%sp)",
        ".short 0x4878, {at_stop}", // pea (AT_STOP).w
        "move.l ({r_address},%a3),-(%sp)",
        "move.l %a3,-(%sp)",
        "move.l %a2,-(%sp)",
        "bsr.w {check_guard}",
        "lea (24,%sp),%sp",
        // The alert, while below the limit.
        "btst #{ae_bit},({ae_byte},%a2)",
        bs!(beq "2f"),
        "move.l ({scratch},%a2),%a0",
        "moveq #0,%d0",
        "move.w ({max_alerts},%a2),%d0",
        "cmp.l ({alerts},%a0),%d0",
        bs!(bls "2f"),
        "lea ({leaked},%pc),%a0",
        "move.l %d7,%d0",
        "bsr.w {alert}",
        // The line: sequence number, size, kind, address, where.
        "2:",
        "move.l ({scratch},%a2),%a1",
        "lea ({args},%a1),%a1",
        "move.l ({r_seq},%a3),(%a1)+",
        "move.l ({r_size},%a3),(%a1)+",
        "move.l %d7,(%a1)+",
        "move.l ({r_address},%a3),(%a1)+",
        "lea ({where_},%pc),%a0",
        "bsr.w {innermost}",
        "lea ({line},%pc),%a0",
        "bsr.w {dbg_message}",
        "7:",
        "move.l %a3,-(%sp)",
        "trap #15",
        ".short {mem_ptr_unlock}",
        ".short 0x588F", // addq.l #4,%sp
        "8:",
        ".short 0x51CE, 1b-.", // dbf %d6,1b
        // The small-allocation sites (write_sites): each entry its record.
        "moveq #0,%d5",
        "move.b ({n_sites},%a2),%d5",
        "move.l ({scratch},%a2),%a4",
        "lea ({sites},%a4),%a4",
        bs!(bra "6f"),
        "5:",
        "move.l #{site_head},(%a4)",
        "move.l %a4,%a0",
        "lea ({first},%a4),%a1",
        "moveq #{first},%d0",
        "move.b (%a1),%d1",
        "bsr.w {event}",
        "lea ({entry},%a4),%a4",
        "6:",
        ".short 0x51CD, 5b-.", // dbf %d5,5b
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        event = sym ledger::event,
        n_sites = const offset_of!(State, n_sites),
        sites = const offset_of!(crate::state::Scratch, sites),
        site_head = const (kind::SMALL_SITE as u32) << 24 | (FORMAT_VERSION as u32) << 16,
        first = const SMALL_SITE_HEAD,
        entry = const core::mem::size_of::<SmallSite>(),
        check_guard = sym check_guard,
        alert = sym alert,
        innermost = sym innermost,
        dbg_message = sym dbg_message,
        no_stack = sym NO_STACK,
        leaked = sym LEAKED,
        line = sym LEAK_LINE,
        where_ = sym LEAK_WHERE,
        slot_rec = const offset_of!(State, slot_rec),
        n_slots = const offset_of!(State, n_slots),
        scratch = const offset_of!(State, scratch),
        max_alerts = const MAX_ALERTS,
        alerts = const offset_of!(crate::state::Scratch, header.counters.alerts),
        args = const offset_of!(crate::state::Scratch, args),
        ae_byte = const crate::state::flag_byte(offset_of!(State, options), Options::ALERTS_AT_EXIT.bits()),
        ae_bit = const crate::state::flag_bit(Options::ALERTS_AT_EXIT.bits()),
        r_size = const offset_of!(AllocRecord, size),
        r_address = const offset_of!(AllocRecord, address),
        r_seq = const offset_of!(AllocRecord, seq),
        at_stop = const detected::AT_STOP,
        tim_get_ticks = const palm::traps::sysTrapTimGetTicks,
        mem_ptr_unlock = const palm::traps::sysTrapMemPtrUnlock,
    )
}
// report_leaks' test of an allocation kind: the four are 0x10 to 0x13.
static_assertions::const_assert!(
    kind::POINTER == 0x10 && kind::HANDLE == 0x11 && kind::CHUNK == 0x12 && kind::RUST == 0x13
);

/// The host's [`report_leaks`] (the 68k's is assembly, doing exactly this).
#[cfg(not(target_arch = "m68k"))]
pub(crate) fn report_leaks(st: &mut State) -> (u32, u32) {
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
        if kind::is_alloc(f.kind) {
            leaks += 1;
            bytes += f.size;
            check_guard(st, rec, f.addr, detected::AT_STOP.into(), ticks, &NO_STACK);
            if st.has(Options::ALERTS_AT_EXIT)
                // SAFETY: a field of the state.
                && (field!(st, header.counters).alerts.get() as usize)
                    < unsafe { mem::read_u16_at::<{ MAX_ALERTS }>((st as *const State).cast()) }
            {
                alert(st, rec, f.kind.into(), &LEAKED);
            }
            leak_line(st, rec);
        }
        // SAFETY: each slot's record was locked once by new_record.
        unsafe { palm::MemPtrUnlock(rec.cast()) };
    }
    write_sites(st);
    (leaks, bytes)
}

/// "memdbg: leak #3: 16 bytes (handle 0x00012344) at src/leaks.rs:42" with
/// [`Options::DBG_MESSAGES`] (Rust allocations: "at code+0x000001A2", the innermost
/// frame). (Host: the 68k's is in [`report_leaks`]' assembly.)
#[cfg(not(target_arch = "m68k"))]
fn leak_line(st: &State, rec: *const u8) {
    // SAFETY: `rec` is a locked allocation record (read in place); the arguments
    // are the scratch ones.
    unsafe {
        let a = &*rec.cast::<AllocRecord>();
        let args = st.args();
        *args = a.seq.get() as usize;
        *args.add(1) = a.size.get() as usize;
        *args.add(2) = mem::read_u8(rec) as usize;
        *args.add(3) = a.address.get() as usize;
        innermost(rec, args.add(4), &LEAK_WHERE);
    }
    dbg_message(st, &LEAK_LINE);
}

// report_leaks' sites: a site's entry is its record but for the first long (the
// record's kind, version and reserved word, the entry's key); its length fits
// `moveq`.
static_assertions::const_assert!(
    offset_of!(SmallSiteRecord, kind) == 0
        && offset_of!(SmallSiteRecord, version) == 1
        && offset_of!(SmallSiteRecord, reserved) == 2
        && offset_of!(SmallSiteRecord, count) == offset_of!(SmallSite, count)
        && offset_of!(SmallSiteRecord, bytes) == offset_of!(SmallSite, bytes)
        && offset_of!(SmallSiteRecord, first) == offset_of!(SmallSite, first)
        && offset_of!(SmallSite, key) == 0
        && SMALL_SITE_HEAD < 128
);

/// At stop: one record per small-allocation site (none without
/// [`Options::HEAP_STATS`]: only then are sites counted). Each site's entry becomes
/// its record in place: its key gives way to the record's kind, version and
/// reserved word (count, bytes and first allocation are at the record's offsets).
/// (Host only: on the 68k, the end of [`report_leaks`]' assembly.)
#[cfg(not(target_arch = "m68k"))]
fn write_sites(st: &mut State) {
    let mut site = field!(st, sites).as_mut_ptr();
    let mut k = st.n_sites;
    while k != 0 {
        // SAFETY: one of the n_sites ≤ SITES entries in use, rewritten in place as
        // its record (the layouts agree after the first long; count and bytes are
        // read before they are rewritten in the record's byte order).
        unsafe {
            let (count, bytes) = ((*site).count, (*site).bytes);
            let r = &mut *site.cast::<SmallSiteRecord>();
            r.kind = kind::SMALL_SITE;
            r.version = FORMAT_VERSION;
            r.reserved = record::U16Be::new(0);
            r.count.set(count);
            r.bytes.set(bytes);
            let head = site.cast::<u8>();
            let a = head.add(offset_of!(SmallSite, first));
            ledger::event(st, head, SMALL_SITE_HEAD, a, a.read());
            site = site.add(1);
        }
        k -= 1;
    }
}
