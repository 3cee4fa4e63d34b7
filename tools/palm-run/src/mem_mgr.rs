//! Memory Manager traps (`System/MemoryMgr.h`, PALM_FACTS §4.1, §5) over the
//! heaps of [`crate::heap`]. Invalid arguments are reported as a debug ROM
//! would (with the caller's PC); when [`Machine::fatal_mem_errors`] is set (the
//! default, like the debug ROM's fatal alert) the app is stopped, otherwise
//! the call returns the error code a release ROM returns.
#![allow(non_snake_case)]

use std::collections::BTreeSet;

use crate::heap::{Chunk, Heap, HeapError, MAX_CHUNK_ALLOC_SIZE, MAX_LOCK_COUNT, Placement};
use crate::machine::{Call, Machine, Stop, StopKind};

/// `memErrChunkLocked`.
pub const MEM_ERR_CHUNK_LOCKED: u32 = 0x0101;
/// `memErrNotEnoughSpace`.
pub const MEM_ERR_NOT_ENOUGH_SPACE: u32 = 0x0102;
/// `memErrInvalidParam`.
pub const MEM_ERR_INVALID_PARAM: u32 = 0x0103;
/// `memErrChunkNotLocked`.
pub const MEM_ERR_CHUNK_NOT_LOCKED: u32 = 0x0104;
/// `memNewChunkFlagPreLock`.
pub const CHUNK_FLAG_PRE_LOCK: u16 = 0x0100;
/// `memNewChunkFlagNonMovable`.
pub const CHUNK_FLAG_NON_MOVABLE: u16 = 0x0200;
/// `memNewChunkFlagAtEnd`.
pub const CHUNK_FLAG_AT_END: u16 = 0x0800;
/// `memNewChunkFlagAllowLarge` (private, `MemoryPrv.h`).
pub const CHUNK_FLAG_ALLOW_LARGE: u16 = 0x1000;
/// `memDebugModeScrambleOnChange` (PALM_FACTS §4.1).
pub const DEBUG_SCRAMBLE_ON_CHANGE: u16 = 0x0004;
/// `memDebugModeScrambleOnAll`.
pub const DEBUG_SCRAMBLE_ON_ALL: u16 = 0x0008;
/// `memDebugModeFillFree`.
pub const DEBUG_FILL_FREE: u16 = 0x0010;
/// `memDebugModeAllHeaps`.
pub const DEBUG_ALL_HEAPS: u16 = 0x0020;
/// Byte written over freed chunk bodies with `memDebugModeFillFree` (our
/// choice; the value a debug ROM uses is not in our sources).
pub const FILL_FREE_BYTE: u8 = 0x55;

/// Memory Manager state.
pub struct MemMgr {
    /// The dynamic heap (ID 0).
    pub dynamic: Heap,
    /// The storage heap (ID 1).
    pub storage: Heap,
    /// Flags set with MemSetDebugMode.
    pub debug_mode: u16,
    /// Depth of MemSemaphoreReserve calls not yet released, and how many
    /// of them asked for write access.
    pub semaphore: (u32, u32),
    /// Bodies freed and not reallocated since (to tell a double free from a
    /// pointer that never was a chunk).
    freed: BTreeSet<u32>,
    /// Where each dynamic-heap chunk was allocated, as POSE records it for
    /// its leak report (PALM_FACTS §5.6): the caller's address, then the
    /// return addresses of the A6 frame chain. Keyed by handle (movable) or
    /// body (non-movable).
    pub sites: std::collections::BTreeMap<u32, Vec<u32>>,
    /// Handle descriptors given to 68k code with
    /// [`Machine::opaque_handles`] ([`crate::handles`]).
    pub opaque: crate::handles::OpaqueHandles,
}

impl MemMgr {
    /// State for two fresh heaps.
    pub fn new(dynamic: Heap, storage: Heap) -> MemMgr {
        MemMgr {
            dynamic,
            storage,
            debug_mode: 0,
            semaphore: (0, 0),
            freed: BTreeSet::new(),
            sites: std::collections::BTreeMap::new(),
            opaque: crate::handles::OpaqueHandles::default(),
        }
    }

    /// The heap with ID `id`.
    pub fn heap(&self, id: u16) -> Option<Heap> {
        match id {
            0 => Some(self.dynamic),
            1 => Some(self.storage),
            _ => None,
        }
    }

    /// The heap containing address `a`.
    pub fn heap_of(&self, a: u32) -> Option<Heap> {
        [self.dynamic, self.storage]
            .into_iter()
            .find(|h| h.contains(a))
    }
}

/// What a pointer or handle argument turned out to be.
pub enum Lookup {
    /// A live chunk.
    Chunk(Heap, Chunk),
    /// Not a chunk (with the reason).
    Invalid(&'static str),
}

fn heap_stop(m: &Machine, call: &Call, e: HeapError) -> Stop {
    match e {
        HeapError::Fault(f) => m.fault_in(call, f),
        other => m.stop_in(
            call,
            StopKind::DebugCheck(format!("{}: {other}", call.info.name)),
        ),
    }
}

/// Find the live chunk whose body is `p`.
pub fn lookup_ptr(m: &Machine, call: &Call, p: u32) -> Result<Lookup, Stop> {
    if p == 0 {
        return Ok(Lookup::Invalid("NULL pointer"));
    }
    if p & 1 != 0 {
        return Ok(Lookup::Invalid("odd pointer"));
    }
    let Some(heap) = m.os.mem.heap_of(p) else {
        return Ok(Lookup::Invalid("pointer is not in any heap"));
    };
    match heap
        .chunk_at_body(&m.mem, p)
        .map_err(|e| heap_stop(m, call, e))?
    {
        Some(c) => Ok(Lookup::Chunk(heap, c)),
        None if m.os.dm.released.contains_key(&p) => Ok(Lookup::Invalid(
            "the old buffer of a released record or resource, freed by its release \
             (--release-frees-records, as PumpkinOS)",
        )),
        None if m.os.mem.freed.contains(&p) => Ok(Lookup::Invalid("chunk already freed")),
        None => Ok(Lookup::Invalid("pointer is not the start of a chunk")),
    }
}

/// Find the live movable chunk of handle `h`.
pub fn lookup_handle(m: &Machine, call: &Call, h: u32) -> Result<Lookup, Stop> {
    if h == 0 {
        return Ok(Lookup::Invalid("NULL handle"));
    }
    let Some(heap) = m.os.mem.heap_of(h) else {
        return Ok(Lookup::Invalid("handle is not in any heap"));
    };
    if !heap
        .is_master_pointer(&m.mem, h)
        .map_err(|e| heap_stop(m, call, e))?
    {
        return Ok(Lookup::Invalid(
            "not a handle (no such master pointer; freed already?)",
        ));
    }
    let body = m.mem.read_u32(h).map_err(|f| m.fault_in(call, f))?;
    match heap
        .chunk_at_body(&m.mem, body)
        .map_err(|e| heap_stop(m, call, e))?
    {
        Some(c) if c.header.movable() && c.master_pointer() == h => Ok(Lookup::Chunk(heap, c)),
        _ => Ok(Lookup::Invalid(
            "master pointer does not point at a movable chunk",
        )),
    }
}

/// Report an invalid Memory Manager call as a debug ROM would; stop the app if
/// memory errors are fatal, else return `code`.
pub fn invalid(m: &mut Machine, call: &Call, what: &str, code: u32) -> Result<u32, Stop> {
    let args: Vec<String> = (0..call.args.len())
        .map(|i| format!("0x{:08X}", crate::handles::shown_arg(call, i)))
        .collect();
    let msg = format!(
        "{}({}): {what}, called from {}",
        call.info.name,
        args.join(", "),
        m.describe(call.caller)
    );
    if m.fatal_mem_errors {
        return Err(m.stop_in(call, StopKind::DebugCheck(msg)));
    }
    m.report(msg);
    Ok(code)
}

fn chunk_or_invalid(
    m: &mut Machine,
    call: &Call,
    l: Lookup,
) -> Result<Result<(Heap, Chunk), u32>, Stop> {
    match l {
        Lookup::Chunk(h, c) => Ok(Ok((h, c))),
        Lookup::Invalid(why) => Ok(Err(invalid(m, call, why, MEM_ERR_INVALID_PARAM)?)),
    }
}

/// The chunk a lookup found, or a return from the calling trap handler for an
/// invalid one (after the report): with `memErrInvalidParam` by default, or with
/// the value given after `else` for a call that returns a value, not an `Err`.
macro_rules! chunk {
    ($m:expr, $call:expr, $lookup:expr) => {
        match chunk_or_invalid($m, $call, $lookup)? {
            Ok(x) => x,
            Err(code) => return Ok(code),
        }
    };
    ($m:expr, $call:expr, $lookup:expr, else $value:expr) => {
        match chunk_or_invalid($m, $call, $lookup)? {
            Ok(x) => x,
            Err(_) => return Ok($value),
        }
    };
}

/// Allocate in heap `heap_id`: a non-movable chunk (`movable == false`,
/// returns the body) or a movable one (returns the handle). Returns 0 when
/// there is no space.
pub fn allocate(
    m: &mut Machine,
    call: &Call,
    heap: Heap,
    size: u32,
    owner: u8,
    movable: bool,
    placement: Placement,
) -> Result<u32, Stop> {
    let r = if movable {
        heap.alloc_handle(&mut m.mem, size, owner)
    } else {
        heap.alloc_chunk(&mut m.mem, size, owner, None, placement)
    };
    match r {
        Ok(x) => {
            let body = if movable {
                m.mem.read_u32(x).unwrap_or(0)
            } else {
                x
            };
            m.os.mem.freed.remove(&body);
            m.os.dm.released.remove(&body);
            if heap.id == 0 {
                let mut site = vec![call.caller];
                site.extend(m.backtrace().into_iter().take(5));
                m.os.mem.sites.insert(x, site);
            }
            changed(m, call, heap)?;
            Ok(x)
        }
        Err(HeapError::NotEnoughSpace) => Ok(0),
        Err(e) => Err(heap_stop(m, call, e)),
    }
}

/// Free a chunk (and its master pointer).
pub fn free(m: &mut Machine, call: &Call, heap: Heap, c: Chunk) -> Result<(), Stop> {
    heap.free_chunk(&mut m.mem, c)
        .map_err(|e| heap_stop(m, call, e))?;
    // A chunk under the app's stack given back: its bytes may be the app's
    // next, so the stack guard ends above it.
    if let Some((lo, hi)) = m.mem.stack_guard() {
        let end = c.addr + c.header.size;
        if c.addr < hi && end > lo {
            m.mem.set_stack_guard(Some((end.min(hi), hi)));
        }
    }
    m.os.mem.freed.insert(c.body());
    let key = if c.header.movable() {
        c.master_pointer()
    } else {
        c.body()
    };
    m.os.mem.sites.remove(&key);
    if c.header.movable() {
        crate::handles::forget(m, key);
    }
    if m.os.mem.debug_mode & DEBUG_FILL_FREE != 0 {
        let _ = m.mem.os_fill(
            c.body(),
            c.header.size - crate::heap::CHUNK_HEADER_SIZE,
            FILL_FREE_BYTE,
        );
    }
    changed(m, call, heap)
}

/// After a heap change: with `memDebugModeScrambleOnChange`/`OnAll`, move
/// every unlocked movable chunk of the dynamic heap (of every heap with
/// `memDebugModeAllHeaps`), as a debug ROM does.
fn changed(m: &mut Machine, call: &Call, heap: Heap) -> Result<(), Stop> {
    let mode = m.os.mem.debug_mode;
    if mode & (DEBUG_SCRAMBLE_ON_CHANGE | DEBUG_SCRAMBLE_ON_ALL) != 0
        && (heap.id == 0 || mode & DEBUG_ALL_HEAPS != 0)
    {
        heap.scramble(&mut m.mem)
            .map_err(|e| heap_stop(m, call, e))?;
    }
    Ok(())
}

fn owner(m: &Machine) -> u8 {
    m.os.sys.cur_owner
}

fn size_ok(size: u32, attr: u16) -> bool {
    size <= MAX_CHUNK_ALLOC_SIZE || attr & CHUNK_FLAG_ALLOW_LARGE != 0
}

/// `MemPtr MemPtrNew(UInt32 size)`: a non-movable chunk owned by the current app.
pub fn MemPtrNew(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let size = call.u32(0);
    if !size_ok(size, 0) {
        return Ok(0);
    }
    let heap = m.os.mem.dynamic;
    let o = owner(m);
    allocate(m, call, heap, size, o, false, Placement::Start)
}

/// `MemHandle MemHandleNew(UInt32 size)`: a movable chunk owned by the current app.
pub fn MemHandleNew(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let size = call.u32(0);
    if !size_ok(size, 0) {
        return Ok(0);
    }
    let heap = m.os.mem.dynamic;
    let o = owner(m);
    allocate(m, call, heap, size, o, true, Placement::Start)
}

/// `MemPtr MemChunkNew(UInt16 heapID, UInt32 size, UInt16 attr)`: `attr` is
/// the `memNewChunkFlag…` bits OR'ed with the owner ID in the low 4 bits
/// (Palm OS Reference, MemChunkNew). Returns a pointer for non-movable or
/// pre-locked chunks, else a handle (PALM_FACTS §4.1).
pub fn MemChunkNew(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (heap_id, size, attr) = (call.u16(0), call.u32(1), call.u16(2));
    let Some(heap) = m.os.mem.heap(heap_id) else {
        return Ok(0);
    };
    if !size_ok(size, attr) {
        return Ok(0);
    }
    let o = (attr & 0xF) as u8;
    let placement = if attr & CHUNK_FLAG_AT_END != 0 {
        Placement::End
    } else {
        Placement::Start
    };
    if attr & CHUNK_FLAG_NON_MOVABLE != 0 {
        return allocate(m, call, heap, size, o, false, placement);
    }
    let h = allocate(m, call, heap, size, o, true, placement)?;
    if h != 0 && attr & CHUNK_FLAG_PRE_LOCK != 0 {
        let body = m.mem.read_u32(h).map_err(|f| m.fault_in(call, f))?;
        let c = heap
            .chunk_at_body(&m.mem, body)
            .map_err(|e| heap_stop(m, call, e))?
            .expect("just allocated");
        let mut hd = c.header;
        hd.lock_count = 1;
        heap.write_header(&mut m.mem, c.addr, &hd)
            .map_err(|e| heap_stop(m, call, e))?;
        return Ok(body);
    }
    Ok(h)
}

/// `Err MemChunkFree(MemPtr chunkDataP)` (MemPtrFree is a macro for it). A
/// locked movable chunk may be freed through its pointer.
pub fn MemChunkFree(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_ptr(m, call, call.u32(0))?;
    let (heap, c) = chunk!(m, call, l);
    free(m, call, heap, c)?;
    Ok(0)
}

/// `Err MemHandleFree(MemHandle h)`.
pub fn MemHandleFree(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_handle(m, call, call.u32(0))?;
    let (heap, c) = chunk!(m, call, l);
    free(m, call, heap, c)?;
    Ok(0)
}

fn set_lock(m: &mut Machine, call: &Call, heap: Heap, c: Chunk, lock: u8) -> Result<(), Stop> {
    let mut h = c.header;
    h.lock_count = lock;
    heap.write_header(&mut m.mem, c.addr, &h)
        .map_err(|e| heap_stop(m, call, e))
}

/// `MemPtr MemHandleLock(MemHandle h)`.
pub fn MemHandleLock(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_handle(m, call, call.u32(0))?;
    let (heap, c) = match l {
        Lookup::Chunk(h, c) => (h, c),
        Lookup::Invalid(why) => return invalid(m, call, why, 0).map(|_| 0),
    };
    if c.header.lock_count >= MAX_LOCK_COUNT {
        return invalid(m, call, "chunk overlocked", 0).map(|_| 0);
    }
    set_lock(m, call, heap, c, c.header.lock_count + 1)?;
    Ok(c.body())
}

/// `Err MemHandleUnlock(MemHandle h)`.
pub fn MemHandleUnlock(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_handle(m, call, call.u32(0))?;
    let (heap, c) = chunk!(m, call, l);
    if c.header.lock_count == 0 {
        return invalid(
            m,
            call,
            "unlocking a handle that is not locked",
            MEM_ERR_CHUNK_NOT_LOCKED,
        );
    }
    set_lock(m, call, heap, c, c.header.lock_count - 1)?;
    Ok(0)
}

/// `Err MemPtrUnlock(MemPtr p)`: unlock the movable chunk `p` points at.
pub fn MemPtrUnlock(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_ptr(m, call, call.u32(0))?;
    let (heap, c) = chunk!(m, call, l);
    if !c.header.movable() {
        return invalid(m, call, "chunk is not movable", MEM_ERR_INVALID_PARAM);
    }
    if c.header.lock_count == 0 {
        return invalid(
            m,
            call,
            "unlocking a chunk that is not locked",
            MEM_ERR_CHUNK_NOT_LOCKED,
        );
    }
    set_lock(m, call, heap, c, c.header.lock_count - 1)?;
    Ok(0)
}

fn resize(m: &mut Machine, call: &Call, heap: Heap, c: Chunk, size: u32) -> Result<u32, Stop> {
    if !size_ok(size, 0) {
        return Ok(MEM_ERR_INVALID_PARAM);
    }
    let must_stay = !c.header.movable() || c.header.lock_count != 0;
    match heap.resize(&mut m.mem, c, size) {
        Ok(_) => {
            changed(m, call, heap)?;
            Ok(0)
        }
        Err(HeapError::NotEnoughSpace) if must_stay && c.header.movable() => {
            Ok(MEM_ERR_CHUNK_LOCKED)
        }
        Err(HeapError::NotEnoughSpace) => Ok(MEM_ERR_NOT_ENOUGH_SPACE),
        Err(e) => Err(heap_stop(m, call, e)),
    }
}

/// `Err MemHandleResize(MemHandle h, UInt32 newSize)`: in place if the next
/// chunk is free, else the unlocked chunk moves (the handle stays valid).
pub fn MemHandleResize(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_handle(m, call, call.u32(0))?;
    let (heap, c) = chunk!(m, call, l);
    resize(m, call, heap, c, call.u32(1))
}

/// `Err MemPtrResize(MemPtr p, UInt32 newSize)`: in place only.
pub fn MemPtrResize(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_ptr(m, call, call.u32(0))?;
    let (heap, c) = chunk!(m, call, l);
    resize(m, call, heap, c, call.u32(1))
}

/// `UInt32 MemPtrSize(MemPtr p)`: the requested size.
pub fn MemPtrSize(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_ptr(m, call, call.u32(0))?;
    // 0 for an invalid pointer (not an error code: the call returns a size).
    let (_, c) = chunk!(m, call, l, else 0);
    Ok(c.header.data_size())
}

/// `UInt32 MemHandleSize(MemHandle h)`.
pub fn MemHandleSize(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_handle(m, call, call.u32(0))?;
    let (_, c) = chunk!(m, call, l, else 0);
    Ok(c.header.data_size())
}

/// `MemHandle MemPtrRecoverHandle(MemPtr p)`: body − 2·hOffset − 8
/// (PALM_FACTS §5.1); NULL for a non-movable chunk.
pub fn MemPtrRecoverHandle(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_ptr(m, call, call.u32(0))?;
    match l {
        Lookup::Chunk(_, c) if c.header.movable() => Ok(c.master_pointer()),
        Lookup::Chunk(..) => Ok(0),
        Lookup::Invalid(why) => invalid(m, call, why, 0).map(|_| 0),
    }
}

/// `UInt16 MemHandleLockCount(MemHandle h)`.
pub fn MemHandleLockCount(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_handle(m, call, call.u32(0))?;
    let (_, c) = chunk!(m, call, l);
    Ok(u32::from(c.header.lock_count))
}

/// `UInt16 MemPtrOwner(MemPtr p)`.
pub fn MemPtrOwner(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_ptr(m, call, call.u32(0))?;
    let (_, c) = chunk!(m, call, l);
    Ok(u32::from(c.header.owner))
}

/// `UInt16 MemHandleOwner(MemHandle h)`.
pub fn MemHandleOwner(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_handle(m, call, call.u32(0))?;
    let (_, c) = chunk!(m, call, l);
    Ok(u32::from(c.header.owner))
}

fn set_owner(m: &mut Machine, call: &Call, heap: Heap, c: Chunk, o: u16) -> Result<u32, Stop> {
    if o > 15 {
        return invalid(m, call, "owner ID above 15", MEM_ERR_INVALID_PARAM);
    }
    let mut h = c.header;
    h.owner = o as u8;
    heap.write_header(&mut m.mem, c.addr, &h)
        .map_err(|e| heap_stop(m, call, e))?;
    Ok(0)
}

/// `Err MemPtrSetOwner(MemPtr p, UInt16 owner)`.
pub fn MemPtrSetOwner(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_ptr(m, call, call.u32(0))?;
    let (heap, c) = chunk!(m, call, l);
    set_owner(m, call, heap, c, call.u16(1))
}

/// `Err MemHandleSetOwner(MemHandle h, UInt16 owner)`.
pub fn MemHandleSetOwner(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_handle(m, call, call.u32(0))?;
    let (heap, c) = chunk!(m, call, l);
    set_owner(m, call, heap, c, call.u16(1))
}

/// `Err MemPtrResetLock(MemPtr p)`.
pub fn MemPtrResetLock(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_ptr(m, call, call.u32(0))?;
    let (heap, c) = chunk!(m, call, l);
    if c.header.movable() {
        set_lock(m, call, heap, c, 0)?;
    }
    Ok(0)
}

/// `Err MemHandleResetLock(MemHandle h)`.
pub fn MemHandleResetLock(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let l = lookup_handle(m, call, call.u32(0))?;
    let (heap, c) = chunk!(m, call, l);
    set_lock(m, call, heap, c, 0)?;
    Ok(0)
}

/// `Err MemHeapFreeBytes(UInt16 heapID, UInt32 *freeP, UInt32 *maxP)`: total
/// free bytes and the largest free chunk, chunk headers not counted.
pub fn MemHeapFreeBytes(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let Some(heap) = m.os.mem.heap(call.u16(0)) else {
        return Ok(MEM_ERR_INVALID_PARAM);
    };
    let (free, max) = heap.free_bytes(&m.mem).map_err(|e| heap_stop(m, call, e))?;
    m.mem
        .write_u32(call.u32(1), free)
        .and_then(|_| m.mem.write_u32(call.u32(2), max))
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// `Err MemHeapFreeByOwnerID(UInt16 heapID, UInt16 ownerID)`: free every
/// chunk of that owner.
pub fn MemHeapFreeByOwnerID(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let Some(heap) = m.os.mem.heap(call.u16(0)) else {
        return Ok(MEM_ERR_INVALID_PARAM);
    };
    free_by_owner(m, call, heap, call.u16(1) as u8)?;
    Ok(0)
}

/// Free all chunks of `owner` in `heap`; returns them as they were.
pub fn free_by_owner(
    m: &mut Machine,
    call: &Call,
    heap: Heap,
    owner: u8,
) -> Result<Vec<Chunk>, Stop> {
    let victims: Vec<Chunk> = heap
        .walk(&m.mem)
        .map_err(|e| heap_stop(m, call, e))?
        .into_iter()
        .filter(|c| !c.header.free && c.header.owner == owner)
        .collect();
    for c in &victims {
        // Re-find it: a scrambling debug mode moves unlocked handles' chunks
        // after each free (non-movable chunks stay where they are).
        let now = if c.header.movable() {
            let body = m.mem.read_u32(c.master_pointer()).unwrap_or(0);
            heap.chunk_at_body(&m.mem, body)
                .map_err(|e| heap_stop(m, call, e))?
                .filter(|n| n.header.movable() && n.master_pointer() == c.master_pointer())
        } else {
            heap.chunk_at(&m.mem, c.addr)
                .map_err(|e| heap_stop(m, call, e))?
                .filter(|n| !n.header.free)
        };
        if let Some(n) = now {
            free(m, call, heap, n)?;
        }
    }
    Ok(victims)
}

/// `UInt16 MemNumHeaps(UInt16 cardNo)`: 2 (dynamic and storage).
pub fn MemNumHeaps(_m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(2)
}

/// `UInt16 MemHeapID(UInt16 cardNo, UInt16 heapIndex)`.
pub fn MemHeapID(_m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(if call.u16(1) < 2 {
        u32::from(call.u16(1))
    } else {
        0xFFFF
    })
}

/// `UInt16 MemPtrHeapID(MemPtr p)`.
pub fn MemPtrHeapID(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(m.os
        .mem
        .heap_of(call.u32(0))
        .map_or(0xFFFF, |h| u32::from(h.id)))
}

/// `UInt16 MemHandleHeapID(MemHandle h)`.
pub fn MemHandleHeapID(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    MemPtrHeapID(m, call)
}

/// `MemPtr MemHeapPtr(UInt16 heapID)`: the heap's header (a private Memory
/// Manager call, `MemoryPrv.h`; trap 0xA00A in sdk-3.5 `CoreTraps.h`), NULL
/// for an unknown heap ID.
pub fn MemHeapPtr(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(m.os.mem.heap(call.u16(0)).map_or(0, |h| h.start))
}

/// `UInt32 MemHeapSize(UInt16 heapID)`.
pub fn MemHeapSize(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(m.os.mem.heap(call.u16(0)).map_or(0, |h| h.size))
}

/// `Boolean MemHeapDynamic(UInt16 heapID)`.
pub fn MemHeapDynamic(_m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(u32::from(call.u16(0) == 0))
}

/// `Err MemHeapCheck(UInt16 heapID)`: walk the heap; corruption stops the app.
pub fn MemHeapCheck(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let Some(heap) = m.os.mem.heap(call.u16(0)) else {
        return Ok(MEM_ERR_INVALID_PARAM);
    };
    heap.walk(&m.mem).map_err(|e| heap_stop(m, call, e))?;
    Ok(0)
}

/// `LocalID MemHandleToLocalID(MemHandle h)`: card-relative offset of the
/// master pointer with bit 0 set (card 0 starts at address 0); of the
/// handle 68k code sees, with [`Machine::opaque_handles`].
pub fn MemHandleToLocalID(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    crate::handles::local_id_to_app(m, call, call.u32(0))
}

/// `MemPtr MemLocalIDToLockedPtr(LocalID local, UInt16 cardNo)`.
pub fn MemLocalIDToLockedPtr(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let local = call.u32(0);
    if local & 1 == 0 {
        return Ok(local);
    }
    let h = crate::handles::to_native(m, local & !1);
    let l = lookup_handle(m, call, h)?;
    let (heap, c) = match l {
        Lookup::Chunk(h, c) => (h, c),
        Lookup::Invalid(why) => return invalid(m, call, why, 0).map(|_| 0),
    };
    set_lock(
        m,
        call,
        heap,
        c,
        (c.header.lock_count + 1).min(MAX_LOCK_COUNT),
    )?;
    Ok(c.body())
}

/// `Err MemHeapScramble(UInt16 heapID)`: see [`Heap::scramble`].
pub fn MemHeapScramble(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let Some(heap) = m.os.mem.heap(call.u16(0)) else {
        return Ok(MEM_ERR_INVALID_PARAM);
    };
    heap.scramble(&mut m.mem)
        .map_err(|e| heap_stop(m, call, e))?;
    Ok(0)
}

/// `Err MemSetDebugMode(UInt16 flags)`: scramble and fill-free modes take
/// effect (see [`DEBUG_SCRAMBLE_ON_CHANGE`], [`DEBUG_FILL_FREE`]); heap
/// checks run on every call anyway.
pub fn MemSetDebugMode(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    m.os.mem.debug_mode = call.u16(0);
    Ok(0)
}

/// `UInt16 MemDebugMode(void)`.
pub fn MemDebugMode(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(u32::from(m.os.mem.debug_mode))
}

/// `Err MemSet(void *dstP, Int32 numBytes, UInt8 value)`: writes with the
/// 68k protection rules (storage is refused as on a device).
pub fn MemSet(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (dst, n, v) = (call.u32(0), call.u32(1) as i32, call.u8(2));
    if n > 0 {
        m.mem
            .fill(dst, n as u32, v)
            .map_err(|f| m.fault_in(call, f))?;
    }
    Ok(0)
}

/// `Err MemMove(void *dstP, const void *sP, Int32 numBytes)` (overlap allowed).
pub fn MemMove(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (dst, src, n) = (call.u32(0), call.u32(1), call.u32(2) as i32);
    if n > 0 {
        let data = m
            .mem
            .read_bytes(src, n as u32)
            .map_err(|f| m.fault_in(call, f))?;
        m.mem
            .write_bytes(dst, &data)
            .map_err(|f| m.fault_in(call, f))?;
    }
    Ok(0)
}

/// `Int16 MemCmp(const void *s1, const void *s2, Int32 numBytes)`: sign of the
/// first differing byte (unsigned compare).
pub fn MemCmp(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let n = (call.u32(2) as i32).max(0) as u32;
    let a = m
        .mem
        .read_bytes(call.u32(0), n)
        .map_err(|f| m.fault_in(call, f))?;
    let b = m
        .mem
        .read_bytes(call.u32(1), n)
        .map_err(|f| m.fault_in(call, f))?;
    Ok(match a.cmp(&b) {
        std::cmp::Ordering::Less => 0xFFFF,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    })
}

/// `Err MemSemaphoreReserve(Boolean writeAccess)`: with write access the
/// storage write protection is lifted until the matching release.
pub fn MemSemaphoreReserve(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (depth, writes) = m.os.mem.semaphore;
    let w = u32::from(call.u8(0) != 0);
    m.os.mem.semaphore = (depth + 1, writes + w);
    m.mem.set_storage_unlocked(writes + w > 0);
    Ok(0)
}

/// `Err MemSemaphoreRelease(Boolean writeAccess)`.
pub fn MemSemaphoreRelease(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (depth, writes) = m.os.mem.semaphore;
    if depth == 0 {
        return invalid(m, call, "semaphore not reserved", MEM_ERR_INVALID_PARAM);
    }
    let w = u32::from(call.u8(0) != 0).min(writes);
    m.os.mem.semaphore = (depth - 1, writes - w);
    m.mem.set_storage_unlocked(writes - w > 0);
    Ok(0)
}

/// `UInt16 MemNumRAMHeaps(UInt16 cardNo)`: 2 (dynamic and storage are both RAM).
pub fn MemNumRAMHeaps(_m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(2)
}

/// `UInt16 MemHeapFlags(UInt16 heapID)`: the flags word of the heap header.
pub fn MemHeapFlags(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let Some(heap) = m.os.mem.heap(call.u16(0)) else {
        return Ok(0);
    };
    Ok(u32::from(
        m.mem
            .read_u16(heap.start)
            .map_err(|f| m.fault_in(call, f))?,
    ))
}

/// `Err MemHeapCompact(UInt16 heapID)`: unlocked movable chunks slide down.
pub fn MemHeapCompact(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let Some(heap) = m.os.mem.heap(call.u16(0)) else {
        return Ok(MEM_ERR_INVALID_PARAM);
    };
    heap.compact(&mut m.mem)
        .map_err(|e| heap_stop(m, call, e))?;
    Ok(0)
}

/// `LocalID MemPtrToLocalID(MemPtr p)`: the card-relative offset (card 0 is at 0).
pub fn MemPtrToLocalID(_m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(call.u32(0))
}

/// `MemPtr MemLocalIDToGlobal(LocalID local, UInt16 cardNo)`: a pointer, or a
/// handle for a LocalID with bit 0 set.
pub fn MemLocalIDToGlobal(_m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(call.u32(0) & !1)
}

/// `Err MemCardInfo(UInt16 cardNo, Char *cardNameP, Char *manufNameP, UInt16
/// *versionP, UInt32 *crDateP, UInt32 *romSizeP, UInt32 *ramSizeP, UInt32
/// *freeBytesP)`: "palm-run" by "memdbg", version 1, RAM size and free
/// storage bytes; each non-NULL pointer is filled.
pub fn MemCardInfo(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (free, _) =
        m.os.mem
            .storage
            .free_bytes(&m.mem)
            .map_err(|e| heap_stop(m, call, e))?;
    let ram = m.mem.ram_size();
    let fields: [(usize, Vec<u8>); 7] = [
        (1, b"palm-run\0".to_vec()),
        (2, b"memdbg\0".to_vec()),
        (3, 1u16.to_be_bytes().to_vec()),
        (4, 0u32.to_be_bytes().to_vec()),
        (5, crate::memory::ROM_SIZE.to_be_bytes().to_vec()),
        (6, ram.to_be_bytes().to_vec()),
        (7, free.to_be_bytes().to_vec()),
    ];
    for (i, b) in fields {
        if call.u32(i) != 0 {
            m.mem
                .write_bytes(call.u32(i), &b)
                .map_err(|f| m.fault_in(call, f))?;
        }
    }
    Ok(0)
}
