//! The bookkeeping behind every wrapper, the `GlobalAlloc` and the free patches:
//! allocation, free, resize, and the events they find (overruns, double frees, small
//! allocations, a low heap). Called with the state entered ([`crate::state::enter`]).

use core::ffi::c_void;

use m68k_palmos_sys as palm;

use crate::Site;
use crate::guard;
use crate::ledger;
use crate::record::{
    self, AllocFlags, AllocRecord, AsBytes, FORMAT_VERSION, FileName, HeaderFlags, Options,
    STACK_FRAMES, Stack, U16Be, detected, kind,
};
use crate::stack::{self, read_long};
use crate::state::{RING, SITES, State};
use crate::text::Text;

/// A block just allocated.
pub struct Block {
    /// Record kind ([`kind::POINTER`] …).
    pub kind: u8,
    /// Pointer (chunk start) or handle.
    pub addr: u32,
    /// Requested bytes.
    pub size: u32,
    /// Offset of the program's block in the chunk.
    pub data_off: u16,
    /// [`AllocFlags`] bits known so far (guarded, handle, not dynamic).
    pub flags: u16,
}

/// What a free patch or free function does with the call after bookkeeping.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Freed {
    /// Pass it to the OS.
    Pass,
    /// A double free: do not pass it on (the OS would corrupt its heap or stop).
    Refuse,
}

/// Callers walked for a site: all of [`STACK_FRAMES`] with call stacks on, else only
/// the innermost (the call's return address), which costs nothing to find.
fn site_frames(st: &State) -> usize {
    if st.has(Options::CALL_STACKS) {
        STACK_FRAMES
    } else {
        1
    }
}

/// Walks the callers into `out`.
fn capture(st: &State, out: *mut Stack, ret: u32, frame: u32, frames: usize) {
    // SAFETY: `out` points into the state chunk; the walk reads only plausible
    // frame slots (stack.rs).
    unsafe { stack::walk(&mut *out, ret, frame, frames, st.code, |a| read_long(a)) }
}

/// Records a successful allocation, or counts it as untracked when no slot is left.
/// `site` is null for Rust allocations; `ret`/`frame` start the call-stack walk
/// (done when `stack` is set).
pub fn allocated(st: &mut State, b: &Block, site: *const Site, ret: u32, frame: u32, stack: bool) {
    let Some(slot) = st.take_slot() else {
        st.c.untracked += 1;
        st.flag(HeaderFlags::INCOMPLETE);
        return;
    };
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    st.seq += 1;
    let mut flags = b.flags;
    {
        let r = &mut st.rec;
        r.kind = b.kind;
        r.version = FORMAT_VERSION;
        if site.is_null() {
            r.file = FileName::default();
            r.line = U16Be::new(0);
        } else {
            // SAFETY: a non-null site is a live `Site` (a promoted constant of the
            // caller, or the state's C site).
            unsafe {
                r.file = (*site).file;
                r.line = (*site).line;
                flags |= (*site).flags.get();
            }
        }
        r.flags.set(flags);
        r.size.set(b.size);
        r.address.set(b.addr);
        r.seq.set(st.seq);
        r.ticks.set(ticks);
        r.data_offset.set(b.data_off);
    }
    let out: *mut Stack = &mut st.rec.stack;
    if stack {
        capture(st, out, ret, frame, STACK_FRAMES);
    } else {
        st.rec.stack = Stack::default();
    }
    let rec = st.slot(slot).rec;
    ledger::write(rec, 0, st.rec.as_bytes());
    st.index.insert(b.addr, slot);
    st.c.allocations += 1;
    st.live_count += 1;
    st.live_bytes += b.size;
    if flags & AllocFlags::HANDLE.bits() != 0 {
        st.live_handles += 1;
    }
    peaks(st);
    if st.has(Options::HEAP_STATS) {
        if b.size != 0 && b.size <= record::SMALL_ALLOC_MAX {
            small(st, site as u32, b.size);
        }
        sample_heap(st);
    }
}

fn peaks(st: &mut State) {
    if st.live_bytes > st.peak_bytes {
        st.peak_bytes = st.live_bytes;
    }
    if st.live_count > st.peak_count {
        st.peak_count = st.live_count;
    }
}

/// Counts a small allocation at its site (the one just built in `st.rec`).
fn small(st: &mut State, site: u32, size: u32) {
    st.c.small_allocs += 1;
    let key = if site != 0 {
        site
    } else {
        st.rec.stack.frames[0].get()
    };
    let n = usize::from(st.n_sites);
    let mut i = 0;
    while i < n {
        let s = &mut st.sites[i];
        if s.key == key {
            s.count += 1;
            s.bytes += size;
            return;
        }
        i += 1;
    }
    if n < SITES {
        let first = st.rec;
        let s = &mut st.sites[n];
        s.key = key;
        s.count = 1;
        s.bytes = size;
        s.first = first;
        st.n_sites += 1;
    } else {
        st.c.small_unsited += 1;
    }
}

/// Samples the dynamic heap: low-water marks, and the low-heap warning the first time
/// the largest free chunk is below the threshold.
fn sample_heap(st: &mut State) {
    // SAFETY: heap 0 is the dynamic heap; both outputs are fields of the state.
    unsafe {
        palm::MemHeapFreeBytes(0, &mut st.heap_free, &mut st.heap_max);
    }
    if st.heap_free < st.low_free {
        st.low_free = st.heap_free;
    }
    if st.heap_max < st.low_max {
        st.low_max = st.heap_max;
    }
    let threshold = st.settings.low_heap_threshold;
    if threshold != 0 && st.heap_max < threshold && st.flags & HeaderFlags::LOW_HEAP.bits() == 0 {
        st.flag(HeaderFlags::LOW_HEAP);
        let l = &mut st.ev.low;
        l.kind = kind::LOW_HEAP;
        l.version = FORMAT_VERSION;
        l.free.set(st.heap_free);
        l.largest.set(st.heap_max);
        l.threshold.set(threshold);
        l.alloc = st.rec;
        let bytes: *const [u8] = st.ev.low.as_bytes();
        // SAFETY: the record lives in the state, which `append` does not touch
        // except for its own fields (flags, db).
        ledger::append(st, unsafe { &*bytes });
        if st.has(Options::DBG_MESSAGES) {
            let (free, max) = (st.heap_free, st.heap_max);
            let mut t = Text::new(&mut st.msg);
            t.bytes(b"memdbg: largest free chunk ")
                .dec(max)
                .bytes(b" bytes < ")
                .dec(threshold)
                .bytes(b" (free ")
                .dec(free)
                .byte(b')');
            dbg_message(st);
        }
    }
}

/// `DbgMessage` of the text in `st.msg`.
pub fn dbg_message(st: &State) {
    // SAFETY: st.msg is NUL-terminated (Text keeps it so).
    unsafe { palm::DbgMessage(st.msg.as_ptr().cast()) }
}

/// The short label of an allocation kind, without a table of pointers (which would
/// need relocations): offsets into one string.
pub fn kind_label(k: u8) -> &'static [u8] {
    const LABELS: &[u8] = b"pointerhandlechunkRust alloc";
    let (start, len) = match k {
        kind::POINTER => (0, 7),
        kind::HANDLE => (7, 6),
        kind::CHUNK => (13, 5),
        _ => (18, 10),
    };
    &LABELS[start..start + len]
}

/// Shows a non-fatal `ErrDisplayFileLineMsg` for the allocation `a` with the text in
/// `st.msg` (file "rust" and line 0 for Rust allocations).
pub fn alert(st: &mut State, a: *const AllocRecord) {
    st.c.alerts += 1;
    // SAFETY: `a` is a record in the state or a locked ledger record; its file field
    // is NUL-terminated (FileName keeps a NUL).
    unsafe {
        let file = if (*a).file.0[0] == 0 {
            c"rust".as_ptr()
        } else {
            (*a).file.0.as_ptr().cast()
        };
        palm::ErrDisplayFileLineMsg(file, (*a).line.get(), st.msg.as_ptr().cast());
    }
}

/// "`what` 16 bytes (handle)" into `st.msg`.
fn describe(st: &mut State, what: &[u8], size: u32, k: u8) {
    let mut t = Text::new(&mut st.msg);
    t.bytes(what)
        .dec(size)
        .bytes(b" bytes (")
        .bytes(kind_label(k))
        .byte(b')');
}

/// The 68k address of the block a record describes (locking a handle; undo with
/// [`unlock_body`]).
pub(crate) fn lock_body(addr: u32, flags: u16) -> *mut u8 {
    if flags & AllocFlags::HANDLE.bits() != 0 {
        // SAFETY: a tracked handle is live.
        unsafe { palm::MemHandleLock(addr as usize as palm::MemHandle).cast() }
    } else {
        addr as usize as *mut u8
    }
}

pub(crate) fn unlock_body(addr: u32, flags: u16) {
    if flags & AllocFlags::HANDLE.bits() != 0 {
        // SAFETY: locked by lock_body.
        unsafe {
            palm::MemHandleUnlock(addr as usize as palm::MemHandle);
        }
    }
}

/// Fields of a ledger record read straight from the storage heap (readable; only
/// writes need the Data Manager).
struct Fields {
    kind: u8,
    flags: u16,
    size: u32,
    addr: u32,
    data_off: u16,
}

fn fields(rec: *const u8) -> Fields {
    // SAFETY: `rec` is a locked, 2-aligned allocation record of 82 bytes.
    unsafe {
        Fields {
            kind: rec.read(),
            flags: rec.add(2).cast::<u16>().read(),
            size: rec.add(4).cast::<u32>().read(),
            addr: rec.add(8).cast::<u32>().read(),
            data_off: rec.add(22).cast::<u16>().read(),
        }
    }
}

/// Checks a guarded block's guard; on damage, records an overrun (site taken from
/// `st.ev.overrun.site`, which the caller filled) and returns true.
fn check_guard(st: &mut State, rec: *mut u8, f: &Fields, when: u16, ticks: u32) -> bool {
    if f.flags & AllocFlags::GUARDED.bits() == 0 {
        return false;
    }
    let body = lock_body(f.addr, f.flags);
    // SAFETY: a guarded block's chunk has GUARD_LEN bytes after the block.
    let g = unsafe { guard::read(body.add(usize::from(f.data_off) + f.size as usize)) };
    unlock_body(f.addr, f.flags);
    if g == guard::INTACT {
        return false;
    }
    st.c.overruns += 1;
    let flags = f.flags | AllocFlags::OVERRUN.bits();
    ledger::write(rec, 2, &flags.to_be_bytes());
    {
        let o = &mut st.ev.overrun;
        o.kind = kind::OVERRUN;
        o.version = FORMAT_VERSION;
        o.when.set(when);
        o.ticks.set(ticks);
        o.guard = g.to_be_bytes();
        // SAFETY: `rec` is a locked 82-byte allocation record (2-aligned).
        o.alloc = unsafe { rec.cast::<AllocRecord>().read() };
        o.alloc.kind = f.kind;
    }
    let bytes: *const [u8] = st.ev.overrun.as_bytes();
    // SAFETY: see sample_heap.
    ledger::append(st, unsafe { &*bytes });
    if st.has(Options::ALERT_OVERRUNS) {
        describe(st, b"Overrun after ", f.size, f.kind);
        let a: *const AllocRecord = &st.ev.overrun.alloc;
        alert(st, a);
    }
    true
}

/// Where a ring entry for `addr` is, newest first.
fn ring_find(st: &State, addr: u32) -> Option<usize> {
    let mut k = 1;
    while k <= RING {
        let i = (usize::from(st.ring_next) + RING - k) & (RING - 1);
        if st.ring[i].addr == addr {
            return Some(i);
        }
        k += 1;
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
fn double_free(st: &mut State, i: usize, ret: u32, frame: u32) {
    st.c.double_frees += 1;
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    let e = st.ring[i];
    let rec = st.slot(e.slot).rec;
    {
        let d = &mut st.ev.double;
        d.kind = kind::DOUBLE_FREE;
        d.version = FORMAT_VERSION;
        d.address.set(e.addr);
        d.first_ticks.set(e.ticks);
        d.second_ticks.set(ticks);
        d.first = e.site;
        // SAFETY: the quarantined slot's record still holds the allocation.
        d.alloc = unsafe { rec.cast::<AllocRecord>().read() };
        d.alloc.kind = e.kind;
    }
    let out: *mut Stack = &mut st.ev.double.second;
    capture(st, out, ret, frame, site_frames(st));
    let bytes: *const [u8] = st.ev.double.as_bytes();
    // SAFETY: see sample_heap.
    ledger::append(st, unsafe { &*bytes });
    if st.has(Options::ALERT_DOUBLE_FREES) {
        let (size, k) = (st.ev.double.alloc.size.get(), e.kind);
        describe(st, b"Double free of ", size, k);
        let a: *const AllocRecord = &st.ev.double.alloc;
        alert(st, a);
    }
}

/// Whether the caller is the app (code 1) rather than the OS.
fn app_side(st: &State, ret: u32) -> bool {
    st.code.base == 0 || st.code.contains(ret)
}

/// Bookkeeping for a free of `addr` (`handle`: through `MemHandleFree`, else
/// `MemChunkFree`). `ret`/`frame` are the free call's return address and the
/// caller's frame.
pub fn freeing(st: &mut State, addr: u32, handle: bool, ret: u32, frame: u32) -> Freed {
    let mut key = addr;
    let mut found = st.index.find(addr);
    if found.is_none() && addr != 0 && addr & 1 == 0 {
        if let Some(i) = ring_find(st, addr)
            && still_free(addr, handle)
        {
            double_free(st, i, ret, frame);
            return Freed::Refuse;
        }
        if !handle && st.live_handles != 0 {
            // MemPtrFree(MemHandleLock(h)) is legal on Palm OS: a locked handle's
            // pointer frees the handle.
            // SAFETY: `addr` is being freed, so it is (supposed to be) a chunk.
            let h = unsafe { palm::MemPtrRecoverHandle(addr as usize as palm::MemPtr) } as u32;
            if h != 0 {
                found = st.index.find(h);
                key = h;
            }
        }
    }
    let Some((pos, slot)) = found else {
        if app_side(st, ret) {
            st.c.unknown_frees += 1;
        } else {
            st.c.os_unknown_frees += 1;
        }
        return Freed::Pass;
    };
    let rec = st.slot(slot).rec;
    let f = fields(rec);
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    // The oldest ring entry gives way; its slot becomes reusable.
    let i = usize::from(st.ring_next);
    st.ring_next = ((i + 1) & (RING - 1)) as u8;
    if st.ring[i].addr != 0 {
        let old = st.ring[i].slot;
        st.release_slot(old);
    }
    {
        let e = &mut st.ring[i];
        e.addr = key;
        e.slot = slot;
        e.ticks = ticks;
        e.kind = f.kind;
    }
    let out: *mut Stack = &mut st.ring[i].site;
    capture(st, out, ret, frame, site_frames(st));
    if f.flags & AllocFlags::GUARDED.bits() != 0 {
        st.ev.overrun.site = st.ring[i].site;
        check_guard(st, rec, &f, detected::AT_FREE, ticks);
    }
    if st.has(Options::FILL_FREED) && f.flags & AllocFlags::NOT_DYNAMIC.bits() == 0 {
        let body = lock_body(f.addr, f.flags);
        // SAFETY: the block is live until the OS frees it right after this.
        unsafe {
            guard::fill(
                body.add(usize::from(f.data_off)),
                f.size,
                record::FILL_FREED_BYTE,
            )
        };
        unlock_body(f.addr, f.flags);
    }
    ledger::mark_free(rec);
    st.index.remove_at(pos);
    st.c.frees += 1;
    if !app_side(st, ret) {
        st.c.os_frees += 1;
    }
    st.live_count -= 1;
    st.live_bytes -= f.size;
    if f.flags & AllocFlags::HANDLE.bits() != 0 {
        st.live_handles -= 1;
    }
    Freed::Pass
}

/// Resizes a block through the Memory Manager (a pointer or a handle).
fn os_resize(addr: u32, size: u32, handle: bool) -> palm::Err {
    // SAFETY: the caller passes what the app passed to the resize wrapper.
    unsafe {
        if handle {
            palm::MemHandleResize(addr as usize as palm::MemHandle, size)
        } else {
            palm::MemPtrResize(addr as usize as *mut c_void, size)
        }
    }
}

/// A wrapper resize: checks the guard, resizes with room for a new guard, writes it,
/// and updates the record's size and flags (one record stays). Untracked blocks are
/// simply resized.
pub fn resize(
    st: &mut State,
    addr: u32,
    size: u32,
    handle: bool,
    ret: u32,
    frame: u32,
) -> palm::Err {
    let Some((_, slot)) = st.index.find(addr) else {
        return os_resize(addr, size, handle);
    };
    let rec = st.slot(slot).rec;
    let mut f = fields(rec);
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    let mut flags = f.flags;
    if flags & AllocFlags::GUARDED.bits() != 0 {
        let out: *mut Stack = &mut st.ev.overrun.site;
        capture(st, out, ret, frame, site_frames(st));
        if check_guard(st, rec, &f, detected::AT_RESIZE, ticks) {
            flags |= AllocFlags::OVERRUN.bits();
        }
    }
    let mut guarded = flags & AllocFlags::GUARDED.bits() != 0;
    let extra = if guarded { record::GUARD_LEN as u32 } else { 0 };
    let mut err = os_resize(addr, size.wrapping_add(extra), handle);
    if err != palm::errNone && guarded {
        err = os_resize(addr, size, handle);
        guarded = false;
    }
    if err != palm::errNone {
        return err;
    }
    flags |= AllocFlags::RESIZED.bits();
    if !guarded {
        flags &= !AllocFlags::GUARDED.bits();
    }
    f.flags = flags;
    let grow =
        st.has(Options::FILL_NEW) && size > f.size && flags & AllocFlags::NOT_DYNAMIC.bits() == 0;
    if guarded || grow {
        let body = lock_body(addr, flags);
        // SAFETY: the chunk now holds `size` bytes (+ the guard when guarded).
        unsafe {
            if grow {
                guard::fill(
                    body.add(f.size as usize),
                    size - f.size,
                    record::FILL_RESIZE_BYTE,
                );
            }
            if guarded {
                guard::write(body.add(size as usize));
            }
        }
        unlock_body(addr, flags);
    }
    st.rec.flags.set(flags);
    st.rec.size.set(size);
    ledger::write(rec, 2, &st.rec.as_bytes()[2..8]);
    st.live_bytes = st.live_bytes - f.size + size;
    peaks(st);
    st.c.resizes += 1;
    palm::errNone
}

/// At stop: every live block's guard is checked, it is counted as a leak and reported
/// (alerts up to the maximum, one `DbgMessage` line each).
pub fn report_leaks(st: &mut State) -> (u32, u32) {
    let (mut leaks, mut bytes) = (0u32, 0u32);
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    let mut s = 0;
    while s < st.n_slots {
        let rec = st.slot(s).rec;
        s += 1;
        let f = fields(rec);
        if !kind::is_alloc(f.kind) {
            continue;
        }
        leaks += 1;
        bytes += f.size;
        st.ev.overrun.site = Stack::default();
        check_guard(st, rec, &f, detected::AT_STOP, ticks);
        if st.has(Options::ALERTS_AT_EXIT) && st.c.alerts < u32::from(st.settings.max_alerts) {
            describe(st, b"Leaked ", f.size, f.kind);
            alert(st, rec.cast());
        }
        if st.has(Options::DBG_MESSAGES) {
            leak_line(st, rec);
            dbg_message(st);
        }
    }
    (leaks, bytes)
}

/// "memdbg: leak #3: 16 bytes (handle 0x00012344) at src/leaks.rs:42" into `st.msg`
/// (Rust allocations: "at code+0x000001A2", the innermost frame).
fn leak_line(st: &mut State, rec: *const u8) {
    // SAFETY: `rec` is a locked allocation record (read in place: a copy on the stack
    // would have its file name indexed by a variable, TOOLCHAIN.md #2).
    let a = unsafe { &*rec.cast::<AllocRecord>() };
    let mut t = Text::new(&mut st.msg);
    t.bytes(b"memdbg: leak #")
        .dec(a.seq.get())
        .bytes(b": ")
        .dec(a.size.get())
        .bytes(b" bytes (")
        .bytes(kind_label(a.kind))
        .byte(b' ')
        .hex(a.address.get())
        .bytes(b") at ");
    if a.file.0[0] != 0 {
        t.bytes(a.file.bytes())
            .byte(b':')
            .dec(u32::from(a.line.get()));
    } else if a.stack.count != 0 {
        t.bytes(if a.stack.raw_mask & 1 != 0 {
            b""
        } else {
            b"code+"
        })
        .hex(a.stack.frames[0].get());
    } else {
        t.bytes(b"?");
    }
}

/// At stop: one record per small-allocation site.
pub fn write_sites(st: &mut State) {
    let mut i = 0;
    while i < usize::from(st.n_sites) {
        let s = st.sites[i];
        let r = &mut st.ev.small;
        r.kind = kind::SMALL_SITE;
        r.version = FORMAT_VERSION;
        r.count.set(s.count);
        r.bytes.set(s.bytes);
        r.first = s.first;
        let bytes: *const [u8] = st.ev.small.as_bytes();
        // SAFETY: see sample_heap.
        ledger::append(st, unsafe { &*bytes });
        i += 1;
    }
}
