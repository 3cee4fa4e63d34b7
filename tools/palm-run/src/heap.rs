//! Palm OS 3.x heaps in emulated memory: heap header, master pointer tables,
//! 8-byte chunk headers, free list, allocation, resizing and compaction.
//!
//! Layout facts are from PALM_FACTS §5.1–§5.2 (`MemoryPrv.h` as shipped in
//! `cloudpilot-emu` and POSE, parsed by POSE's `EmPalmHeap.cpp`):
//!
//! * chunk header word 0: `free` (bit 31), `moved` (bit 30), `sizeAdj`
//!   (bits 27–24), `size` (bits 23–0, whole chunk including the header);
//! * word 1: `lockCount` (bits 31–28), `owner` (bits 27–24), `hOffset`
//!   (bits 23–0, signed: master pointer = header − 2 × hOffset);
//! * non-movable chunks have lock count 15 and hOffset 0; owner 15 marks
//!   master pointer table chunks;
//! * heap header: flags u16 (0x8000 Vers2, 0x4000 Vers3 free list), size u32,
//!   firstFreeChunkOffset u32 (/2), then the first master pointer table
//!   (numEntries u16, nextTblOffset u32, entries); 200 entries initially,
//!   growing by 50 in non-movable chunks;
//! * `memMaxChunkAllocSize` = 65 505 bytes.
//!
//! Our choices where the sources are silent (documented, deterministic):
//! chunk bodies are rounded up to an even size and a remainder too small for
//! a chunk header is given to the chunk as `sizeAdj`; allocation is first fit
//! from the heap start (last fit with `memNewChunkFlagAtEnd`); when no free
//! chunk fits, unlocked movable chunks slide toward the heap start
//! (compaction) and the search is repeated; a free chunk's hOffset holds the
//! distance to the next free chunk / 2 (0 ends the list); free bytes are
//! counted without chunk headers.

use std::collections::{BTreeMap, BTreeSet};

use crate::memory::{AddressSpace, Fault, Memory};

/// Size of a chunk header in bytes.
pub const CHUNK_HEADER_SIZE: u32 = 8;
/// Lock count of non-movable chunks (`memPtrLockCount`).
pub const PTR_LOCK_COUNT: u8 = 15;
/// Largest lock count of a movable chunk.
pub const MAX_LOCK_COUNT: u8 = 14;
/// Owner ID of master pointer table chunks (`memOwnerMasterPtrTbl`).
pub const OWNER_MASTER_PTR_TABLE: u8 = 15;
/// Largest chunk body (`memMaxChunkAllocSize` = 0xFFFF − 30).
pub const MAX_CHUNK_ALLOC_SIZE: u32 = 0xFFFF - 30;
/// Heap header flag: heap larger than 64 KB (`memHeapFlagVers2`).
pub const HEAP_FLAG_VERS2: u16 = 0x8000;
/// Heap header flag: heap has a free list (`memHeapFlagVers3`).
pub const HEAP_FLAG_VERS3: u16 = 0x4000;
/// Entries in the first master pointer table of a heap.
pub const FIRST_MPT_ENTRIES: u16 = 200;
/// Entries in each further master pointer table.
pub const MORE_MPT_ENTRIES: u16 = 50;
/// Bytes before the first master pointer table's entries: flags, size,
/// firstFreeChunkOffset.
const HEAP_HEADER_SIZE: u32 = 2 + 4 + 4;
/// Bytes of a master pointer table header: numEntries u16, nextTblOffset u32.
const MPT_HEADER_SIZE: u32 = 6;

/// A decoded chunk header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkHeader {
    /// The chunk is free.
    pub free: bool,
    /// The `moved` bit (set by MemHeapScramble on a device; we never set it).
    pub moved: bool,
    /// Trailing padding: body bytes beyond the requested size (0–15).
    pub size_adj: u8,
    /// Size of the whole chunk in bytes, header included.
    pub size: u32,
    /// Lock count: 0–14 for movable chunks, 15 for non-movable ones.
    pub lock_count: u8,
    /// Owner ID (0 = system, 15 = master pointer table).
    pub owner: u8,
    /// Signed distance / 2 from the master pointer to the header (0 for
    /// non-movable chunks); for free chunks, distance / 2 to the next free chunk.
    pub h_offset: i32,
}

impl ChunkHeader {
    /// Encode as the two big-endian longs stored in memory.
    pub fn encode(&self) -> [u32; 2] {
        let w0 = (u32::from(self.free) << 31)
            | (u32::from(self.moved) << 30)
            | (u32::from(self.size_adj & 0xF) << 24)
            | (self.size & 0x00FF_FFFF);
        let w1 = (u32::from(self.lock_count & 0xF) << 28)
            | (u32::from(self.owner & 0xF) << 24)
            | (self.h_offset as u32 & 0x00FF_FFFF);
        [w0, w1]
    }

    /// Decode the two longs of a chunk header.
    pub fn decode(w0: u32, w1: u32) -> ChunkHeader {
        let h = w1 & 0x00FF_FFFF;
        ChunkHeader {
            free: w0 & 0x8000_0000 != 0,
            moved: w0 & 0x4000_0000 != 0,
            size_adj: ((w0 >> 24) & 0xF) as u8,
            size: w0 & 0x00FF_FFFF,
            lock_count: (w1 >> 28) as u8,
            owner: ((w1 >> 24) & 0xF) as u8,
            h_offset: ((h << 8) as i32) >> 8,
        }
    }

    /// Whether the chunk is movable (reached through a handle).
    pub fn movable(&self) -> bool {
        !self.free && self.lock_count != PTR_LOCK_COUNT
    }

    /// Requested size of the body in bytes.
    pub fn data_size(&self) -> u32 {
        self.size
            .saturating_sub(CHUNK_HEADER_SIZE + u32::from(self.size_adj))
    }
}

/// A chunk found by walking a heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// 68k address of the chunk header.
    pub addr: u32,
    /// The decoded header.
    pub header: ChunkHeader,
}

impl Chunk {
    /// 68k address of the body (what MemPtrNew/MemHandleLock return).
    pub fn body(&self) -> u32 {
        self.addr + CHUNK_HEADER_SIZE
    }

    /// For a movable chunk, the 68k address of its master pointer (the handle).
    pub fn master_pointer(&self) -> u32 {
        self.addr.wrapping_sub((self.header.h_offset * 2) as u32)
    }
}

/// Errors of heap operations (the Palm error each maps to is noted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeapError {
    /// No free chunk large enough even after compaction (`memErrNotEnoughSpace`).
    NotEnoughSpace,
    /// The heap's chunk list is damaged at this header address.
    Corrupt {
        /// 68k address of the bad header.
        at: u32,
        /// What is wrong with it.
        what: &'static str,
    },
    /// A memory access failed (the heap lies outside mapped memory).
    Fault(Fault),
    /// A heap of this many bytes cannot be made (too small for its header
    /// and one chunk, odd, or too large for one free chunk's 24-bit size).
    Size(u32),
}

impl From<Fault> for HeapError {
    fn from(f: Fault) -> Self {
        HeapError::Fault(f)
    }
}

impl std::fmt::Display for HeapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeapError::NotEnoughSpace => write!(f, "not enough space in heap"),
            HeapError::Corrupt { at, what } => {
                write!(f, "heap corrupted: chunk header at 0x{at:08X}: {what}")
            }
            HeapError::Fault(x) => write!(f, "{x}"),
            HeapError::Size(n) => write!(
                f,
                "a heap of {n} bytes cannot be made (it must hold its header and a chunk, \
                 be even, and leave at most 16 MiB for its first chunk)"
            ),
        }
    }
}

/// Where a new chunk goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// First fit from the heap start.
    Start,
    /// Last fit, at the end of the free chunk (`memNewChunkFlagAtEnd`).
    End,
}

/// One heap in emulated memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heap {
    /// Heap ID (0 = dynamic heap, 1 = storage heap).
    pub id: u16,
    /// 68k address of the heap header.
    pub start: u32,
    /// Size of the heap in bytes, header and terminator included.
    pub size: u32,
}

/// Largest body a chunk header can describe (24-bit size field).
const MAX_BODY: u32 = 0x00FF_FFFF - CHUNK_HEADER_SIZE - 1;

/// Total size of a chunk for a body of `req` bytes (`req` ≤ [`MAX_BODY`]).
fn chunk_size_for(req: u32) -> u32 {
    CHUNK_HEADER_SIZE + ((req + 1) & !1)
}

fn free_header(size: u32, link: i32) -> ChunkHeader {
    ChunkHeader {
        free: true,
        moved: false,
        size_adj: 0,
        size,
        lock_count: 0,
        owner: 0,
        h_offset: link,
    }
}

fn is_unlocked_movable(w: [u32; 2]) -> bool {
    let h = ChunkHeader::decode(w[0], w[1]);
    h.movable() && h.lock_count == 0
}

/// All chunks of the heap at `start` in address order, checking the chain as
/// a debug ROM's heap check would (sizes, master pointers of movable chunks).
fn walk_chunks(s: &AddressSpace, start: u32, size: u32) -> Result<Vec<Chunk>, HeapError> {
    let heap = Heap { id: 0, start, size };
    let mut out = Vec::new();
    let mut a = heap.first_chunk();
    let end = heap.terminator();
    while a < end {
        let h = ChunkHeader::decode(s.read_u32(a)?, s.read_u32(a + 4)?);
        if h.size < CHUNK_HEADER_SIZE || h.size & 1 != 0 || a + h.size > end {
            return Err(HeapError::Corrupt {
                at: a,
                what: "bad chunk size",
            });
        }
        if !h.free && u32::from(h.size_adj) > h.size - CHUNK_HEADER_SIZE {
            return Err(HeapError::Corrupt {
                at: a,
                what: "bad size adjustment",
            });
        }
        let c = Chunk { addr: a, header: h };
        if h.movable() {
            let mp = c.master_pointer();
            if s.read_u32(mp).ok() != Some(c.body()) {
                return Err(HeapError::Corrupt {
                    at: a,
                    what: "master pointer does not point back to the chunk",
                });
            }
        }
        out.push(c);
        a += h.size;
    }
    Ok(out)
}

fn write_raw(s: &mut AddressSpace, addr: u32, h: &ChunkHeader) -> Result<(), HeapError> {
    let [w0, w1] = h.encode();
    s.os_write_u32(addr, w0)?;
    s.os_write_u32(addr + 4, w1)?;
    Ok(())
}

/// Rewrite the free list (heap header firstFreeChunkOffset and each free
/// chunk's link) from the chunk chain.
fn relink_raw(s: &mut AddressSpace, start: u32, size: u32) -> Result<(), HeapError> {
    let frees: Vec<Chunk> = walk_chunks(s, start, size)?
        .into_iter()
        .filter(|c| c.header.free)
        .collect();
    let first = frees.first().map_or(0, |c| (c.addr - start) / 2);
    s.os_write_u32(start + 6, first)?;
    for (i, c) in frees.iter().enumerate() {
        let link = frees
            .get(i + 1)
            .map_or(0, |n| ((n.addr - c.addr) / 2) as i32);
        let mut h = c.header;
        h.h_offset = link;
        write_raw(s, c.addr, &h)?;
    }
    Ok(())
}

/// A master pointer table as the index mirrors it.
#[derive(Debug, Clone)]
struct Table {
    /// 68k address of numEntries (the entries start 6 bytes on).
    at: u32,
    /// numEntries.
    n: u16,
    /// nextTblOffset.
    next: u32,
    /// The entries' values.
    entries: Vec<u32>,
}

impl Table {
    fn first(&self) -> u32 {
        self.at + MPT_HEADER_SIZE
    }
    fn end(&self) -> u32 {
        self.first() + 4 * u32::from(self.n)
    }
    fn entry_index(&self, e: u32) -> Option<usize> {
        (e >= self.first() && e < self.end() && (e - self.first()).is_multiple_of(4))
            .then(|| ((e - self.first()) / 4) as usize)
    }
}

/// What the heap code knows of one heap without reading all of it: every
/// chunk header (as last written or checked), the free chunks by address
/// and by size, the master pointer tables and their free entries.
///
/// It mirrors bytes of emulated memory, which stay the source of truth:
/// before each use, the blocks written since the last use (by 68k code or by
/// anyone else, [`AddressSpace::take_dirty`]) are compared with what the
/// index holds for them, and any difference discards the index; the next
/// use rebuilds it with a full walk, which reports corruption exactly as the
/// walk on every call used to. So a Memory Manager call costs O(log n) in
/// the number of chunks, unless 68k code wrote a heap structure (a bug)
/// or the call is one that must look at everything (compaction, scrambling,
/// the owner sweep, MemHeapCheck).
#[derive(Debug, Clone)]
pub(crate) struct HeapIndex {
    start: u32,
    size: u32,
    /// False until built and after a mismatch: rebuild before use.
    valid: bool,
    /// The free chunks' links in memory need rewriting (found after a
    /// rebuild through a shared reference, which cannot write).
    relink: bool,
    /// Every chunk: its header words.
    chunks: BTreeMap<u32, [u32; 2]>,
    /// Free chunks: address → size.
    free: BTreeMap<u32, u32>,
    /// Free chunk sizes → how many.
    free_sizes: BTreeMap<u32, u32>,
    /// Sum of free chunk sizes (headers included).
    free_sum: u64,
    /// Movable chunks with lock count 0 (what compaction can move).
    unlocked_movable: u32,
    /// Bumped by every change.
    version: u64,
    /// `version` right after the last compaction (compacting again before any
    /// change would move nothing).
    compacted: Option<u64>,
    /// Heap header: flags, size, firstFreeChunkOffset.
    hdr: (u16, u32, u32),
    /// Master pointer tables in chain order.
    tables: Vec<Table>,
    /// Table address → index in `tables`.
    table_at: BTreeMap<u32, usize>,
    /// Entries holding 0, as (table index, entry address): the first is the
    /// one a linear search of the chain would find.
    free_mps: BTreeSet<(usize, u32)>,
    /// Full rebuilds so far.
    rebuilds: u64,
}

impl HeapIndex {
    fn new(start: u32, size: u32) -> HeapIndex {
        HeapIndex {
            start,
            size,
            valid: false,
            relink: false,
            chunks: BTreeMap::new(),
            free: BTreeMap::new(),
            free_sizes: BTreeMap::new(),
            free_sum: 0,
            unlocked_movable: 0,
            version: 0,
            compacted: None,
            hdr: (0, 0, 0),
            tables: Vec::new(),
            table_at: BTreeMap::new(),
            free_mps: BTreeSet::new(),
            rebuilds: 0,
        }
    }

    fn heap(&self) -> Heap {
        Heap {
            id: 0,
            start: self.start,
            size: self.size,
        }
    }

    /// Compare what the index mirrors in `[b0, b1)` with memory.
    fn check_range(&mut self, s: &AddressSpace, b0: u32, b1: u32) {
        if !self.valid || b1 <= self.start || b0 >= self.start + self.size {
            return;
        }
        let same32 = |a: u32, v: u32| s.read_u32(a).ok() == Some(v);
        let same16 = |a: u32, v: u16| s.read_u16(a).ok() == Some(v);
        let mut ok = true;
        if b0 < self.start + HEAP_HEADER_SIZE {
            ok = same16(self.start, self.hdr.0)
                && same32(self.start + 2, self.hdr.1)
                && same32(self.start + 6, self.hdr.2);
        }
        if ok {
            'tables: for (_, &ti) in self.table_at.range(..b1).rev() {
                let t = &self.tables[ti];
                if t.end() <= b0 {
                    break;
                }
                if b0 < t.first() && !(same16(t.at, t.n) && same32(t.at + 2, t.next)) {
                    ok = false;
                    break;
                }
                let lo = b0.max(t.first());
                let hi = b1.min(t.end());
                if lo >= hi {
                    continue;
                }
                let i0 = ((lo - t.first()) / 4) as usize;
                let i1 = (hi - t.first()).div_ceil(4) as usize;
                for i in i0..i1.min(t.entries.len()) {
                    if !same32(t.first() + 4 * i as u32, t.entries[i]) {
                        ok = false;
                        break 'tables;
                    }
                }
            }
        }
        if ok {
            for (&a, w) in self
                .chunks
                .range(b0.saturating_sub(CHUNK_HEADER_SIZE - 1)..b1)
            {
                if !(same32(a, w[0]) && same32(a + 4, w[1])) {
                    ok = false;
                    break;
                }
            }
        }
        self.valid = ok;
    }

    /// Rebuild from a full walk of the heap's bytes.
    fn rebuild(&mut self, s: &AddressSpace) -> Result<(), HeapError> {
        self.valid = false;
        self.rebuilds += 1;
        let chunks = walk_chunks(s, self.start, self.size)?;
        let heap = self.heap();
        let mut tables = Vec::new();
        let mut t = self.start + HEAP_HEADER_SIZE;
        let mut limit = heap.first_chunk();
        let mut seen = BTreeSet::new();
        loop {
            let n = s.read_u16(t)?;
            let next = s.read_u32(t + 2)?;
            let end = t + MPT_HEADER_SIZE + 4 * u32::from(n);
            if end > limit {
                return Err(HeapError::Corrupt {
                    at: t,
                    what: "master pointer table larger than its chunk",
                });
            }
            let mut entries = Vec::with_capacity(usize::from(n));
            for i in 0..u32::from(n) {
                entries.push(s.read_u32(t + MPT_HEADER_SIZE + 4 * i)?);
            }
            tables.push(Table {
                at: t,
                n,
                next,
                entries,
            });
            if next == 0 {
                break;
            }
            let nt = self.start.wrapping_add(next);
            let chunk = chunks
                .binary_search_by_key(&nt.wrapping_sub(CHUNK_HEADER_SIZE), |c| c.addr)
                .ok()
                .map(|i| chunks[i]);
            match chunk {
                Some(c)
                    if next < self.size
                        && !c.header.free
                        && c.header.owner == OWNER_MASTER_PTR_TABLE
                        && c.header.lock_count == PTR_LOCK_COUNT
                        && seen.insert(nt) =>
                {
                    limit = c.addr + c.header.size - u32::from(c.header.size_adj);
                    t = nt;
                }
                _ => {
                    return Err(HeapError::Corrupt {
                        at: t,
                        what: "bad master pointer table chain",
                    });
                }
            }
        }
        self.chunks.clear();
        self.free.clear();
        self.free_sizes.clear();
        self.free_sum = 0;
        self.unlocked_movable = 0;
        for c in &chunks {
            let w = [s.read_u32(c.addr)?, s.read_u32(c.addr + 4)?];
            if is_unlocked_movable(w) {
                self.unlocked_movable += 1;
            }
            self.chunks.insert(c.addr, w);
            if c.header.free {
                self.add_free(c.addr, c.header.size);
            }
        }
        self.hdr = (
            s.read_u16(self.start)?,
            s.read_u32(self.start + 2)?,
            s.read_u32(self.start + 6)?,
        );
        self.table_at = tables.iter().enumerate().map(|(i, t)| (t.at, i)).collect();
        self.free_mps = tables
            .iter()
            .enumerate()
            .flat_map(|(i, t)| {
                t.entries
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| **v == 0)
                    .map(move |(k, _)| (i, t.first() + 4 * k as u32))
            })
            .collect();
        self.tables = tables;
        // The in-memory free list as it should be.
        let first = self.free.keys().next().map_or(0, |&a| (a - self.start) / 2);
        let frees: Vec<u32> = self.free.keys().copied().collect();
        self.relink = self.hdr.2 != first
            || frees.iter().enumerate().any(|(i, &f)| {
                let want = frees.get(i + 1).map_or(0, |&n| ((n - f) / 2) as i32);
                let w = self.chunks[&f];
                ChunkHeader::decode(w[0], w[1]).h_offset != want
            });
        self.valid = true;
        self.version += 1;
        self.compacted = None;
        Ok(())
    }

    fn ensure(&mut self, s: &AddressSpace) -> Result<(), HeapError> {
        if self.valid { Ok(()) } else { self.rebuild(s) }
    }

    fn add_free(&mut self, addr: u32, size: u32) {
        self.free.insert(addr, size);
        *self.free_sizes.entry(size).or_default() += 1;
        self.free_sum += u64::from(size);
    }

    fn remove_free(&mut self, addr: u32) -> Option<u32> {
        let size = self.free.remove(&addr)?;
        if let Some(n) = self.free_sizes.get_mut(&size) {
            *n -= 1;
            if *n == 0 {
                self.free_sizes.remove(&size);
            }
        }
        self.free_sum -= u64::from(size);
        Some(size)
    }

    fn max_free(&self) -> u32 {
        self.free_sizes.keys().next_back().copied().unwrap_or(0)
    }

    /// Write a chunk header and mirror it.
    fn put(&mut self, s: &mut AddressSpace, addr: u32, h: &ChunkHeader) -> Result<(), HeapError> {
        write_raw(s, addr, h)?;
        self.mirror(addr, h.encode());
        Ok(())
    }

    fn mirror(&mut self, addr: u32, w: [u32; 2]) {
        if let Some(old) = self.chunks.insert(addr, w)
            && is_unlocked_movable(old)
        {
            self.unlocked_movable -= 1;
        }
        if is_unlocked_movable(w) {
            self.unlocked_movable += 1;
        }
        self.version += 1;
    }

    /// A header that is no longer a chunk's (merged into a free chunk).
    fn forget(&mut self, addr: u32) {
        if let Some(old) = self.chunks.remove(&addr)
            && is_unlocked_movable(old)
        {
            self.unlocked_movable -= 1;
        }
    }

    fn header(&self, addr: u32) -> Option<ChunkHeader> {
        self.chunks
            .get(&addr)
            .map(|w| ChunkHeader::decode(w[0], w[1]))
    }

    fn chunk(&self, addr: u32) -> Option<Chunk> {
        self.header(addr).map(|header| Chunk { addr, header })
    }

    fn live(&self, addr: u32) -> Result<ChunkHeader, HeapError> {
        self.header(addr)
            .filter(|h| !h.free)
            .ok_or(HeapError::Corrupt {
                at: addr,
                what: "not a chunk in use",
            })
    }

    /// Rewrite the links of the free chunks at and before the addresses in
    /// `around` (chunks that became free or stopped being free), and the
    /// heap header's first free chunk.
    fn fix_links(&mut self, s: &mut AddressSpace, around: &[u32]) -> Result<(), HeapError> {
        let mut todo: Vec<u32> = Vec::with_capacity(2 * around.len());
        for &a in around {
            if self.free.contains_key(&a) {
                todo.push(a);
            }
            if let Some((&p, _)) = self.free.range(..a).next_back() {
                todo.push(p);
            }
        }
        todo.sort_unstable();
        todo.dedup();
        for f in todo {
            let link = self
                .free
                .range(f + 1..)
                .next()
                .map_or(0, |(&n, _)| ((n - f) / 2) as i32);
            if let Some(mut h) = self.header(f)
                && h.h_offset != link
            {
                h.h_offset = link;
                self.put(s, f, &h)?;
            }
        }
        let first = self.free.keys().next().map_or(0, |&a| (a - self.start) / 2);
        if first != self.hdr.2 {
            s.os_write_u32(self.start + 6, first)?;
            self.hdr.2 = first;
        }
        Ok(())
    }

    fn relink_all(&mut self, s: &mut AddressSpace) -> Result<(), HeapError> {
        let frees: Vec<u32> = self.free.keys().copied().collect();
        self.fix_links(s, &frees)?;
        self.relink = false;
        Ok(())
    }

    /// Set master pointer table entry `e` to `v`.
    fn set_entry(&mut self, s: &mut AddressSpace, e: u32, v: u32) -> Result<(), HeapError> {
        let bad = HeapError::Corrupt {
            at: e,
            what: "not a master pointer table entry",
        };
        let (_, &ti) = self.table_at.range(..=e).next_back().ok_or(bad)?;
        let i = self.tables[ti].entry_index(e).ok_or(bad)?;
        s.os_write_u32(e, v)?;
        let old = std::mem::replace(&mut self.tables[ti].entries[i], v);
        if old == 0 && v != 0 {
            self.free_mps.remove(&(ti, e));
        } else if old != 0 && v == 0 {
            self.free_mps.insert((ti, e));
        }
        self.version += 1;
        Ok(())
    }

    fn is_master_pointer(&self, h: u32) -> bool {
        self.table_at
            .range(..=h)
            .next_back()
            .and_then(|(_, &ti)| {
                let t = &self.tables[ti];
                t.entry_index(h).map(|i| t.entries[i] != 0)
            })
            .unwrap_or(false)
    }

    fn find_fit(&self, need: u32, placement: Placement) -> Option<u32> {
        if self.max_free() < need {
            return None;
        }
        let fits = |(&a, &size): (&u32, &u32)| (size >= need).then_some(a);
        match placement {
            Placement::Start => self.free.iter().find_map(fits),
            Placement::End => self.free.iter().rev().find_map(fits),
        }
    }

    /// Whether compacting could make a free chunk of `need` bytes: something
    /// can move, the free bytes add up to enough, and the heap changed since
    /// the last compaction.
    fn compaction_may_help(&self, need: u32) -> bool {
        self.unlocked_movable > 0
            && self.free_sum >= u64::from(need)
            && self.compacted != Some(self.version)
    }

    fn alloc(
        &mut self,
        s: &mut AddressSpace,
        req: u32,
        owner: u8,
        master: Option<u32>,
        placement: Placement,
    ) -> Result<u32, HeapError> {
        if req > MAX_BODY {
            return Err(HeapError::NotEnoughSpace);
        }
        let need = chunk_size_for(req);
        let fit = match self.find_fit(need, placement) {
            Some(a) => a,
            None => {
                if !self.compaction_may_help(need) {
                    return Err(HeapError::NotEnoughSpace);
                }
                self.compact(s)?;
                self.find_fit(need, placement)
                    .ok_or(HeapError::NotEnoughSpace)?
            }
        };
        let total = self.remove_free(fit).unwrap_or(0);
        let rest = total - need;
        let mut touched = [fit, fit];
        let (addr, size) = if rest < CHUNK_HEADER_SIZE {
            (fit, total)
        } else {
            let (f, a) = match placement {
                Placement::Start => (fit + need, fit),
                Placement::End => (fit, fit + rest),
            };
            self.put(s, f, &free_header(rest, 0))?;
            self.add_free(f, rest);
            touched[1] = f;
            (a, need)
        };
        let header = ChunkHeader {
            free: false,
            moved: false,
            size_adj: (size - CHUNK_HEADER_SIZE - req) as u8,
            size,
            lock_count: if master.is_some() { 0 } else { PTR_LOCK_COUNT },
            owner,
            h_offset: master.map_or(0, |mp| (addr.wrapping_sub(mp) as i32) / 2),
        };
        self.put(s, addr, &header)?;
        if let Some(mp) = master {
            self.set_entry(s, mp, addr + CHUNK_HEADER_SIZE)?;
        }
        self.fix_links(s, &touched)?;
        Ok(addr + CHUNK_HEADER_SIZE)
    }

    fn alloc_master_pointer(&mut self, s: &mut AddressSpace) -> Result<u32, HeapError> {
        if let Some(&(_, e)) = self.free_mps.iter().next() {
            return Ok(e);
        }
        // Grow: a new non-movable table chunk at the end of the heap.
        let bytes = MPT_HEADER_SIZE + 4 * u32::from(MORE_MPT_ENTRIES);
        let body = self.alloc(s, bytes, OWNER_MASTER_PTR_TABLE, None, Placement::End)?;
        s.os_fill(body, bytes, 0)?;
        s.os_write_u16(body, MORE_MPT_ENTRIES)?;
        let off = body - self.start;
        let last = self.tables.len() - 1;
        s.os_write_u32(self.tables[last].at + 2, off)?;
        self.tables[last].next = off;
        let ti = self.tables.len();
        self.tables.push(Table {
            at: body,
            n: MORE_MPT_ENTRIES,
            next: 0,
            entries: vec![0; usize::from(MORE_MPT_ENTRIES)],
        });
        self.table_at.insert(body, ti);
        for i in 0..u32::from(MORE_MPT_ENTRIES) {
            self.free_mps.insert((ti, body + MPT_HEADER_SIZE + 4 * i));
        }
        self.version += 1;
        Ok(body + MPT_HEADER_SIZE)
    }

    fn alloc_handle(
        &mut self,
        s: &mut AddressSpace,
        req: u32,
        owner: u8,
    ) -> Result<u32, HeapError> {
        let mp = self.alloc_master_pointer(s)?;
        // Reserve the entry while allocating (compaction must not hand it out).
        self.set_entry(s, mp, 1)?;
        match self.alloc(s, req, owner, Some(mp), Placement::Start) {
            Ok(_) => Ok(mp),
            Err(e) => {
                if self.valid {
                    self.set_entry(s, mp, 0)?;
                } else {
                    s.os_write_u32(mp, 0)?;
                }
                Err(e)
            }
        }
    }

    /// Free the chunk at `addr`, merging it with free neighbours; a movable
    /// chunk's master pointer is released too unless `keep_master`.
    fn free(
        &mut self,
        s: &mut AddressSpace,
        addr: u32,
        keep_master: bool,
    ) -> Result<(), HeapError> {
        let h = self.live(addr)?;
        if h.movable() && !keep_master {
            let mp = Chunk { addr, header: h }.master_pointer();
            self.set_entry(s, mp, 0)?;
        }
        let next = addr + h.size;
        let mut at = addr;
        let mut size = h.size;
        if let Some(ns) = self.remove_free(next) {
            self.forget(next);
            size += ns;
        }
        if let Some((&p, &ps)) = self.free.range(..addr).next_back()
            && p + ps == addr
        {
            self.remove_free(p);
            self.forget(addr);
            at = p;
            size += ps;
        }
        self.put(s, at, &free_header(size, 0))?;
        self.add_free(at, size);
        self.fix_links(s, &[at, next])
    }

    fn resize(&mut self, s: &mut AddressSpace, addr: u32, req: u32) -> Result<Chunk, HeapError> {
        let old = self.live(addr)?;
        if req > MAX_BODY {
            return Err(HeapError::NotEnoughSpace);
        }
        let need = chunk_size_for(req);
        let cur = old.size;
        if need <= cur {
            // Shrink in place; give the tail back when it can hold a header.
            let rest = cur - need;
            let size = if rest >= CHUNK_HEADER_SIZE { need } else { cur };
            let mut h = old;
            h.size = size;
            h.size_adj = (size - CHUNK_HEADER_SIZE - req) as u8;
            self.put(s, addr, &h)?;
            if size < cur {
                let tail = addr + size;
                let next = addr + cur;
                let mut tail_size = cur - size;
                if let Some(ns) = self.remove_free(next) {
                    self.forget(next);
                    tail_size += ns;
                }
                self.put(s, tail, &free_header(tail_size, 0))?;
                self.add_free(tail, tail_size);
                self.fix_links(s, &[tail, next])?;
            }
            return Ok(Chunk { addr, header: h });
        }
        // Grow in place into a following free chunk.
        let next = addr + cur;
        if let Some(&ns) = self.free.get(&next)
            && cur + ns >= need
        {
            self.remove_free(next);
            self.forget(next);
            let avail = cur + ns;
            let rest = avail - need;
            let size = if rest >= CHUNK_HEADER_SIZE {
                need
            } else {
                avail
            };
            let mut h = old;
            h.size = size;
            h.size_adj = (size - CHUNK_HEADER_SIZE - req) as u8;
            self.put(s, addr, &h)?;
            if size < avail {
                self.put(s, addr + size, &free_header(avail - size, 0))?;
                self.add_free(addr + size, avail - size);
            }
            self.fix_links(s, &[next, addr + size])?;
            return Ok(Chunk { addr, header: h });
        }
        if !old.movable() || old.lock_count != 0 {
            return Err(HeapError::NotEnoughSpace);
        }
        self.move_chunk(s, addr, req, Placement::Start)
    }

    fn move_chunk(
        &mut self,
        s: &mut AddressSpace,
        addr: u32,
        req: u32,
        placement: Placement,
    ) -> Result<Chunk, HeapError> {
        let old = self.live(addr)?;
        let mp = Chunk { addr, header: old }.master_pointer();
        let data = s.read_bytes(addr + CHUNK_HEADER_SIZE, old.data_size())?;
        // Free first so that the old space may be used; keep the master
        // pointer reserved.
        self.free(s, addr, true)?;
        self.set_entry(s, mp, 1)?;
        match self.alloc(s, req, old.owner, Some(mp), placement) {
            Ok(body) => {
                s.os_write_bytes(body, &data[..data.len().min(req as usize)])?;
                self.chunk(body - CHUNK_HEADER_SIZE)
                    .ok_or(HeapError::Corrupt {
                        at: body - CHUNK_HEADER_SIZE,
                        what: "moved chunk not found",
                    })
            }
            Err(e) => {
                // It fitted before the move, and compaction only merges free
                // space, so a chunk of the old size fits again.
                let body = self.alloc(s, old.data_size(), old.owner, Some(mp), Placement::Start)?;
                s.os_write_bytes(body, &data)?;
                Err(e)
            }
        }
    }

    fn relocate(&mut self, s: &mut AddressSpace, addr: u32) -> Result<Chunk, HeapError> {
        let old = self.live(addr)?;
        if !old.movable() {
            return Err(HeapError::Corrupt {
                at: addr,
                what: "not a movable chunk",
            });
        }
        let mp = Chunk { addr, header: old }.master_pointer();
        let data = s.read_bytes(addr + CHUNK_HEADER_SIZE, old.data_size())?;
        // Locked while the new chunk is taken, so that compaction cannot
        // move it: the new chunk is then elsewhere.
        let mut pinned = old;
        pinned.lock_count = pinned.lock_count.max(1);
        self.put(s, addr, &pinned)?;
        let body = match self.alloc(s, old.data_size(), old.owner, Some(mp), Placement::End) {
            Ok(b) => b,
            Err(e) => {
                self.put(s, addr, &old)?;
                return Err(e);
            }
        };
        s.os_write_bytes(body, &data)?;
        // Freed buffers read back as zeros (PumpkinOS's 68k reads of freed
        // memory return 0: emupalmos.c cpu_read_byte).
        s.os_fill(addr + CHUNK_HEADER_SIZE, old.data_size(), 0)?;
        self.free(s, addr, true)?;
        self.chunk(body - CHUNK_HEADER_SIZE)
            .ok_or(HeapError::Corrupt {
                at: body - CHUNK_HEADER_SIZE,
                what: "relocated chunk not found",
            })
    }

    fn scramble(&mut self, s: &mut AddressSpace) -> Result<(), HeapError> {
        let handles: Vec<u32> = self
            .chunks
            .iter()
            .filter(|(_, w)| is_unlocked_movable(**w))
            .map(|(&addr, w)| {
                Chunk {
                    addr,
                    header: ChunkHeader::decode(w[0], w[1]),
                }
                .master_pointer()
            })
            .collect();
        for mp in handles {
            let body = s.read_u32(mp)?;
            let Some(c) = self
                .chunk(body.wrapping_sub(CHUNK_HEADER_SIZE))
                .filter(|c| c.header.movable() && c.master_pointer() == mp)
            else {
                continue;
            };
            // To the end of the free space; a chunk already there goes to the
            // start instead, so that every scramble moves it.
            let moved = match self.move_chunk(s, c.addr, c.header.data_size(), Placement::End) {
                Ok(n) if n.addr == c.addr => {
                    self.move_chunk(s, n.addr, n.header.data_size(), Placement::Start)
                }
                other => other,
            };
            match moved {
                Ok(n) => {
                    let mut h = n.header;
                    h.moved = true;
                    self.put(s, n.addr, &h)?;
                }
                Err(HeapError::NotEnoughSpace) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Slide unlocked movable chunks toward the heap start (a full walk and
    /// a rebuild: compaction looks at everything anyway).
    fn compact(&mut self, s: &mut AddressSpace) -> Result<(), HeapError> {
        let chunks = walk_chunks(s, self.start, self.size)?;
        let mut gap: Option<u32> = None;
        for c in chunks {
            let h = c.header;
            if h.free {
                gap.get_or_insert(c.addr);
                continue;
            }
            match gap {
                Some(to) if h.movable() && h.lock_count == 0 => {
                    let mp = c.master_pointer();
                    s.os_move(to, c.addr, h.size)?;
                    let moved = ChunkHeader {
                        h_offset: (to.wrapping_sub(mp) as i32) / 2,
                        ..h
                    };
                    write_raw(s, to, &moved)?;
                    s.os_write_u32(mp, to + CHUNK_HEADER_SIZE)?;
                    gap = Some(to + h.size);
                }
                Some(from) => {
                    write_raw(s, from, &free_header(c.addr - from, 0))?;
                    gap = None;
                }
                None => {}
            }
        }
        if let Some(from) = gap {
            let end = self.heap().terminator();
            write_raw(s, from, &free_header(end - from, 0))?;
        }
        relink_raw(s, self.start, self.size)?;
        self.rebuild(s)?;
        self.compacted = Some(self.version);
        Ok(())
    }

    fn free_bytes(&self) -> (u32, u32) {
        let headers = u64::from(CHUNK_HEADER_SIZE) * self.free.len() as u64;
        (
            (self.free_sum - headers) as u32,
            self.max_free().saturating_sub(CHUNK_HEADER_SIZE),
        )
    }
}

/// Compare the blocks written since the last look with every heap's index;
/// blocks of the heap at `own` are the heap code's own writes (already
/// mirrored) and are skipped.
fn sync_all(s: &AddressSpace, heaps: &mut [HeapIndex], own: Option<u32>) {
    if !s.has_dirty() {
        return;
    }
    for (lo, hi) in s.take_dirty() {
        for ix in heaps.iter_mut() {
            if Some(ix.start) != own {
                ix.check_range(s, lo, hi);
            }
        }
    }
}

fn index_of(heaps: &mut Vec<HeapIndex>, heap: &Heap) -> usize {
    match heaps
        .iter()
        .position(|x| x.start == heap.start && x.size == heap.size)
    {
        Some(i) => i,
        None => {
            heaps.retain(|x| x.start != heap.start);
            heaps.push(HeapIndex::new(heap.start, heap.size));
            heaps.len() - 1
        }
    }
}

impl Heap {
    /// Write a fresh heap (header, first master pointer table, one free chunk
    /// and the terminator) into `mem`.
    pub fn init(mem: &mut Memory, id: u16, start: u32, size: u32) -> Result<Heap, HeapError> {
        let heap = Heap { id, start, size };
        let overhead = heap.first_chunk() - start + 4;
        if size < overhead + CHUNK_HEADER_SIZE || size - overhead > 0x00FF_FFFF || size & 1 != 0 {
            return Err(HeapError::Size(size));
        }
        let s = &mut mem.space;
        s.os_fill(start, size, 0)?;
        let flags = HEAP_FLAG_VERS3 | if size > 0xFFFF { HEAP_FLAG_VERS2 } else { 0 };
        s.os_write_u16(start, flags)?;
        s.os_write_u32(start + 2, size)?;
        s.os_write_u16(start + HEAP_HEADER_SIZE, FIRST_MPT_ENTRIES)?;
        s.os_write_u32(start + HEAP_HEADER_SIZE + 2, 0)?;
        let first = heap.first_chunk();
        write_raw(s, first, &free_header(heap.terminator() - first, 0))?;
        s.os_write_u32(heap.terminator(), 0)?;
        relink_raw(s, start, size)?;
        // The index is built from these bytes: they need no checking.
        sync_all(&mem.space, mem.heaps.get_mut(), Some(start));
        heap.with_mut(mem, |_, _| Ok(()))?;
        Ok(heap)
    }

    /// Run `f` on this heap's index, brought up to date, with write access
    /// to memory; the index's own writes are not checked again.
    fn with_mut<R>(
        &self,
        mem: &mut Memory,
        f: impl FnOnce(&mut HeapIndex, &mut AddressSpace) -> Result<R, HeapError>,
    ) -> Result<R, HeapError> {
        let Memory { space, heaps } = mem;
        let heaps = heaps.get_mut();
        sync_all(space, heaps, None);
        let i = index_of(heaps, self);
        let ix = &mut heaps[i];
        let r = ix.ensure(space).and_then(|()| {
            if ix.relink {
                ix.relink_all(space)?;
            }
            f(ix, space)
        });
        sync_all(space, heaps, Some(self.start));
        r
    }

    /// Run `f` on this heap's index, brought up to date (read only).
    fn with_ref<R>(&self, mem: &Memory, f: impl FnOnce(&HeapIndex) -> R) -> Result<R, HeapError> {
        let mut heaps = mem.heaps.borrow_mut();
        sync_all(&mem.space, &mut heaps, None);
        let i = index_of(&mut heaps, self);
        heaps[i].ensure(&mem.space)?;
        Ok(f(&heaps[i]))
    }

    /// How many times this heap's index was rebuilt from a full walk (once
    /// at start, then after each change to heap structures by anything but
    /// the heap code, and after each compaction).
    pub fn index_rebuilds(&self, mem: &Memory) -> u64 {
        let mut heaps = mem.heaps.borrow_mut();
        let i = index_of(&mut heaps, self);
        heaps[i].rebuilds
    }

    /// 68k address of the first chunk header.
    pub fn first_chunk(&self) -> u32 {
        self.start + HEAP_HEADER_SIZE + MPT_HEADER_SIZE + 4 * u32::from(FIRST_MPT_ENTRIES)
    }

    /// 68k address of the heap terminator (the long after the last chunk).
    pub fn terminator(&self) -> u32 {
        self.start + self.size - 4
    }

    /// Whether `addr` lies inside this heap.
    pub fn contains(&self, addr: u32) -> bool {
        addr >= self.start && addr < self.start + self.size
    }

    /// Read the chunk header at `addr`.
    pub fn read_header(&self, mem: &Memory, addr: u32) -> Result<ChunkHeader, HeapError> {
        Ok(ChunkHeader::decode(
            mem.read_u32(addr)?,
            mem.read_u32(addr + 4)?,
        ))
    }

    /// Write the chunk header at `addr` (the lock count or owner of a chunk
    /// in use; any other change makes the heap code re-read the heap).
    pub fn write_header(
        &self,
        mem: &mut Memory,
        addr: u32,
        h: &ChunkHeader,
    ) -> Result<(), HeapError> {
        let Memory { space, heaps } = mem;
        let heaps = heaps.get_mut();
        sync_all(space, heaps, None);
        write_raw(space, addr, h)?;
        let i = index_of(heaps, self);
        let ix = &mut heaps[i];
        match ix.header(addr) {
            Some(old) if ix.valid && !old.free && !h.free && old.size == h.size => {
                ix.mirror(addr, h.encode())
            }
            _ => ix.valid = false,
        }
        sync_all(space, heaps, Some(self.start));
        Ok(())
    }

    /// All chunks in address order, read from memory, checking the chain as
    /// a debug ROM's heap check would (sizes, master pointers of movable
    /// chunks). O(chunks): for checks and sweeps, not for every call.
    pub fn walk(&self, mem: &Memory) -> Result<Vec<Chunk>, HeapError> {
        walk_chunks(mem, self.start, self.size)
    }

    /// The chunk whose body starts at `body`, if `body` is a live (non-free)
    /// chunk of this heap.
    pub fn chunk_at_body(&self, mem: &Memory, body: u32) -> Result<Option<Chunk>, HeapError> {
        if !self.contains(body) {
            return Ok(None);
        }
        self.with_ref(mem, |ix| {
            ix.chunk(body.wrapping_sub(CHUNK_HEADER_SIZE))
                .filter(|c| !c.header.free)
        })
    }

    /// The chunk at header address `addr` if there is a chunk (free or not) there.
    pub fn chunk_at(&self, mem: &Memory, addr: u32) -> Result<Option<Chunk>, HeapError> {
        if !self.contains(addr) {
            return Ok(None);
        }
        self.with_ref(mem, |ix| ix.chunk(addr))
    }

    /// The live chunk whose body contains `addr`.
    pub fn chunk_containing(&self, mem: &Memory, addr: u32) -> Result<Option<Chunk>, HeapError> {
        if !self.contains(addr) {
            return Ok(None);
        }
        self.with_ref(mem, |ix| {
            ix.chunks
                .range(..=addr)
                .next_back()
                .map(|(&a, w)| Chunk {
                    addr: a,
                    header: ChunkHeader::decode(w[0], w[1]),
                })
                .filter(|c| !c.header.free && addr >= c.body() && addr < c.addr + c.header.size)
        })
    }

    /// The chunk (free or not) just below the chunk at header address `addr`.
    pub fn chunk_before(&self, mem: &Memory, addr: u32) -> Result<Option<Chunk>, HeapError> {
        self.with_ref(mem, |ix| {
            ix.chunks.range(..addr).next_back().map(|(&a, w)| Chunk {
                addr: a,
                header: ChunkHeader::decode(w[0], w[1]),
            })
        })
    }

    /// Whether `h` is the address of an in-use master pointer of this heap.
    pub fn is_master_pointer(&self, mem: &Memory, h: u32) -> Result<bool, HeapError> {
        if !self.contains(h) || h & 1 != 0 {
            return Ok(false);
        }
        self.with_ref(mem, |ix| ix.is_master_pointer(h))
    }

    /// Allocate a chunk with a body of `req` bytes. `master` is the master
    /// pointer for a movable chunk (lock count 0), `None` for a non-movable
    /// one (lock count 15). Returns the body address. The body is not cleared.
    pub fn alloc_chunk(
        &self,
        mem: &mut Memory,
        req: u32,
        owner: u8,
        master: Option<u32>,
        placement: Placement,
    ) -> Result<u32, HeapError> {
        self.with_mut(mem, |ix, s| ix.alloc(s, req, owner, master, placement))
    }

    /// Allocate a movable chunk and its master pointer; returns the handle
    /// (the master pointer's address).
    pub fn alloc_handle(&self, mem: &mut Memory, req: u32, owner: u8) -> Result<u32, HeapError> {
        self.with_mut(mem, |ix, s| ix.alloc_handle(s, req, owner))
    }

    /// Free `chunk` (merging it with free neighbours); a movable chunk's
    /// master pointer is released too.
    pub fn free_chunk(&self, mem: &mut Memory, chunk: Chunk) -> Result<(), HeapError> {
        self.with_mut(mem, |ix, s| ix.free(s, chunk.addr, false))
    }

    /// Resize a chunk's body to `req` bytes. Grows in place when the next
    /// chunk is free and large enough; otherwise a movable, unlocked chunk
    /// moves (the master pointer is updated) and anything else fails with
    /// `NotEnoughSpace`. Returns the (possibly new) chunk.
    pub fn resize(&self, mem: &mut Memory, chunk: Chunk, req: u32) -> Result<Chunk, HeapError> {
        self.with_mut(mem, |ix, s| ix.resize(s, chunk.addr, req))
    }

    /// Move a movable, unlocked chunk elsewhere with a body of `req` bytes
    /// (contents kept up to the smaller size; the master pointer follows).
    /// On failure the chunk is put back (possibly elsewhere, if compaction
    /// ran) and the error returned.
    pub fn move_chunk(
        &self,
        mem: &mut Memory,
        chunk: Chunk,
        req: u32,
        placement: Placement,
    ) -> Result<Chunk, HeapError> {
        self.with_mut(mem, |ix, s| ix.move_chunk(s, chunk.addr, req, placement))
    }

    /// Give the movable chunk `chunk` (locked or not) a new body at another
    /// address, with its contents and owner, lock count 0, through the same
    /// master pointer; the old body is zeroed and freed. This is what
    /// PumpkinOS's DmReleaseRecord does to a record's buffer (write it back,
    /// free it; the next lock gets a new one: `storage.c` DmReleaseRecord,
    /// DmSearchRecord), for [`crate::machine::Machine::release_frees_records`].
    /// `NotEnoughSpace` leaves the chunk as it was.
    pub fn relocate(&self, mem: &mut Memory, chunk: Chunk) -> Result<Chunk, HeapError> {
        self.with_mut(mem, |ix, s| ix.relocate(s, chunk.addr))
    }

    /// Move every unlocked movable chunk to the end of the free space (or to
    /// its start, for a chunk that is already at the end) and set its `moved`
    /// bit, as MemHeapScramble does on a debug ROM: code that keeps a pointer
    /// into an unlocked handle's chunk then reads stale memory. Chunks that do
    /// not fit elsewhere stay.
    pub fn scramble(&self, mem: &mut Memory) -> Result<(), HeapError> {
        self.with_mut(mem, |ix, s| ix.scramble(s))
    }

    /// Slide unlocked movable chunks toward the heap start, merging free space.
    pub fn compact(&self, mem: &mut Memory) -> Result<(), HeapError> {
        self.with_mut(mem, |ix, s| ix.compact(s))
    }

    /// Total free bytes and the largest free chunk, both without headers.
    pub fn free_bytes(&self, mem: &Memory) -> Result<(u32, u32), HeapError> {
        self.with_ref(mem, HeapIndex::free_bytes)
    }

    /// Test support: the index, brought up to date, equals one rebuilt from
    /// memory, and the free list in memory needs no relinking.
    #[cfg(test)]
    fn check_index(&self, mem: &Memory) {
        let ix = self.with_ref(mem, |ix| ix.clone()).unwrap();
        assert!(ix.valid);
        let mut fresh = HeapIndex::new(self.start, self.size);
        fresh.rebuild(&mem.space).unwrap();
        assert_eq!(ix.chunks, fresh.chunks, "chunks");
        assert_eq!(ix.free, fresh.free, "free chunks");
        assert_eq!(ix.free_sizes, fresh.free_sizes, "free sizes");
        assert_eq!(ix.free_sum, fresh.free_sum, "free sum");
        assert_eq!(ix.unlocked_movable, fresh.unlocked_movable, "unlocked");
        assert_eq!(ix.hdr, fresh.hdr, "heap header");
        assert_eq!(ix.free_mps, fresh.free_mps, "free master pointers");
        assert_eq!(ix.table_at, fresh.table_at, "tables");
        for (a, b) in ix.tables.iter().zip(&fresh.tables) {
            assert_eq!(
                (a.at, a.n, a.next, &a.entries),
                (b.at, b.n, b.next, &b.entries)
            );
        }
        assert!(!fresh.relink || ix.relink, "free list links in memory");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heap() -> (Memory, Heap) {
        let mut m = Memory::new(0x20000, 0x20000);
        let h = Heap::init(&mut m, 0, 0x1000, 0x4000).unwrap();
        (m, h)
    }

    #[test]
    fn header_round_trip() {
        let h = ChunkHeader {
            free: false,
            moved: false,
            size_adj: 1,
            size: 0x18,
            lock_count: 2,
            owner: 1,
            h_offset: -0x40,
        };
        assert_eq!(h.encode(), [0x0100_0018, 0x21FF_FFC0]);
        assert_eq!(ChunkHeader::decode(0x0100_0018, 0x21FF_FFC0), h);
    }

    #[test]
    fn fresh_heap_layout() {
        let (m, h) = heap();
        assert_eq!(m.read_u16(0x1000), Ok(HEAP_FLAG_VERS3));
        assert_eq!(m.read_u32(0x1002), Ok(0x4000));
        assert_eq!(m.read_u16(0x100A), Ok(200));
        let first = 0x1000 + 10 + 6 + 800;
        assert_eq!(h.first_chunk(), first);
        assert_eq!(m.read_u32(0x1006), Ok((first - 0x1000) / 2));
        let size = 0x4000 - 4 - (first - 0x1000);
        assert_eq!(m.read_u32(first), Ok(0x8000_0000 | size));
        assert_eq!(h.free_bytes(&m).unwrap(), (size - 8, size - 8));
    }

    #[test]
    fn alloc_free_and_headers() {
        let (mut m, h) = heap();
        let (free0, _) = h.free_bytes(&m).unwrap();
        let p = h.alloc_chunk(&mut m, 5, 3, None, Placement::Start).unwrap();
        assert_eq!(p, h.first_chunk() + 8);
        // size 8 + 6, sizeAdj 1, lock 15, owner 3, hOffset 0.
        assert_eq!(m.read_u32(p - 8), Ok(0x0100_000E));
        assert_eq!(m.read_u32(p - 4), Ok(0xF300_0000));
        assert_eq!(h.free_bytes(&m).unwrap().0, free0 - 14);
        let hd = h.alloc_handle(&mut m, 16, 3).unwrap();
        assert_eq!(hd, 0x1000 + 16); // first master pointer entry
        let body = m.read_u32(hd).unwrap();
        assert_eq!(body, p + 6 + 8);
        let c = h.chunk_at_body(&m, body).unwrap().unwrap();
        assert_eq!(c.master_pointer(), hd);
        assert_eq!(c.header.lock_count, 0);
        let pc = h.chunk_at_body(&m, p).unwrap().unwrap();
        h.free_chunk(&mut m, pc).unwrap();
        h.free_chunk(&mut m, c).unwrap();
        assert_eq!(m.read_u32(hd), Ok(0));
        assert_eq!(h.free_bytes(&m).unwrap().0, free0);
    }

    /// The index mirrors memory: a chunk header or master pointer written by
    /// anything but the heap code (68k code, an OS call on its behalf) is
    /// seen at the next call, as a full walk would see it.
    #[test]
    fn index_sees_writes_to_heap_structures() {
        let (mut m, h) = heap();
        let p = h.alloc_chunk(&mut m, 8, 1, None, Placement::Start).unwrap();
        let hd = h.alloc_handle(&mut m, 8, 1).unwrap();
        assert_eq!(h.index_rebuilds(&m), 1, "built once, at init");
        let w0 = m.read_u32(p - 8).unwrap();
        // A write with the 68k protection rules, as MemSet or a CPU store makes.
        m.write_u32(p - 8, 3).unwrap();
        assert_eq!(
            h.chunk_at_body(&m, p),
            Err(HeapError::Corrupt {
                at: p - 8,
                what: "bad chunk size"
            })
        );
        assert_eq!(
            h.alloc_chunk(&mut m, 4, 1, None, Placement::Start),
            Err(HeapError::Corrupt {
                at: p - 8,
                what: "bad chunk size"
            })
        );
        m.write_u32(p - 8, w0).unwrap();
        assert!(h.chunk_at_body(&m, p).unwrap().is_some());
        let body = m.read_u32(hd).unwrap();
        m.write_u32(hd, body + 2).unwrap();
        assert_eq!(
            h.free_bytes(&m),
            Err(HeapError::Corrupt {
                at: body - 8,
                what: "master pointer does not point back to the chunk"
            })
        );
        m.write_u32(hd, body).unwrap();
        h.check_index(&m);
        // A write into a chunk's body is not a change of structure.
        let before = h.index_rebuilds(&m);
        m.fill(p, 8, 0xAA).unwrap();
        m.fill(body, 8, 0x55).unwrap();
        h.check_index(&m);
        assert_eq!(h.index_rebuilds(&m), before);
    }

    /// 1000 more master pointer tables than the old cap allowed.
    #[test]
    fn master_pointer_tables_chain_as_far_as_the_heap_goes() {
        let mut m = Memory::new(0x0100_0000, 0x0100_0000);
        let h = Heap::init(&mut m, 1, 0x1000, 0x00C0_0000).unwrap();
        let n = 200 + 1100 * 50;
        for i in 0..n {
            h.alloc_handle(&mut m, 2, 2)
                .unwrap_or_else(|e| panic!("handle {i}: {e}"));
        }
        h.check_index(&m);
        assert!(h.walk(&m).is_ok());
        assert_eq!(h.index_rebuilds(&m), 1);
    }

    #[test]
    fn resize_moves_unlocked_handle() {
        let (mut m, h) = heap();
        let a = h.alloc_handle(&mut m, 10, 1).unwrap();
        let _b = h
            .alloc_chunk(&mut m, 10, 1, None, Placement::Start)
            .unwrap();
        let old = m.read_u32(a).unwrap();
        m.os_write_bytes(old, b"0123456789").unwrap();
        let c = h.chunk_at_body(&m, old).unwrap().unwrap();
        let c2 = h.resize(&mut m, c, 100).unwrap();
        assert_ne!(c2.body(), old);
        assert_eq!(m.read_u32(a), Ok(c2.body()));
        assert_eq!(m.read_bytes(c2.body(), 10).unwrap(), b"0123456789");
        assert_eq!(c2.header.data_size(), 100);
    }

    #[test]
    fn failed_move_keeps_the_chunk() {
        let (mut m, h) = heap();
        let a = h.alloc_handle(&mut m, 10, 1).unwrap();
        let body = m.read_u32(a).unwrap();
        m.os_write_bytes(body, b"keep me!!!").unwrap();
        let _wall = h
            .alloc_chunk(&mut m, 10, 1, None, Placement::Start)
            .unwrap();
        let (free, _) = h.free_bytes(&m).unwrap();
        let c = h
            .chunk_at_body(&m, m.read_u32(a).unwrap())
            .unwrap()
            .unwrap();
        // More than the whole free space: compaction runs, the move fails.
        assert_eq!(
            h.resize(&mut m, c, free + 100),
            Err(HeapError::NotEnoughSpace)
        );
        let body = m.read_u32(a).unwrap();
        let c = h.chunk_at_body(&m, body).unwrap().unwrap();
        assert_eq!(c.master_pointer(), a);
        assert_eq!(c.header.data_size(), 10);
        assert_eq!(m.read_bytes(body, 10).unwrap(), b"keep me!!!");
        assert_eq!(h.free_bytes(&m).unwrap().0, free);
    }

    #[test]
    fn relocate_gives_a_locked_handle_a_new_body() {
        let (mut m, h) = heap();
        let a = h.alloc_handle(&mut m, 10, 2).unwrap();
        let old = m.read_u32(a).unwrap();
        m.os_write_bytes(old, b"record!!!!").unwrap();
        let c = h.chunk_at_body(&m, old).unwrap().unwrap();
        let mut hd = c.header;
        hd.lock_count = 3;
        h.write_header(&mut m, c.addr, &hd).unwrap();
        let (free, _) = h.free_bytes(&m).unwrap();
        let locked = h.chunk_at_body(&m, old).unwrap().unwrap();
        let n = h.relocate(&mut m, locked).unwrap();
        assert_ne!(n.body(), old);
        assert_eq!(m.read_u32(a).unwrap(), n.body(), "the same handle");
        assert_eq!(n.master_pointer(), a);
        assert_eq!((n.header.lock_count, n.header.owner), (0, 2));
        assert_eq!(m.read_bytes(n.body(), 10).unwrap(), b"record!!!!");
        assert_eq!(m.read_bytes(old, 10).unwrap(), [0; 10], "zeroed");
        assert_eq!(h.chunk_at_body(&m, old).unwrap(), None, "freed");
        assert_eq!(h.free_bytes(&m).unwrap().0, free);
        h.check_index(&m);
        let p = h.alloc_chunk(&mut m, 4, 1, None, Placement::Start).unwrap();
        let np = h.chunk_at_body(&m, p).unwrap().unwrap();
        assert!(h.relocate(&mut m, np).is_err(), "a non-movable chunk");
    }

    #[test]
    fn compaction_makes_room() {
        let (mut m, h) = heap();
        let (free0, _) = h.free_bytes(&m).unwrap();
        let mut hs = Vec::new();
        while let Ok(x) = h.alloc_handle(&mut m, 200, 1) {
            hs.push(x);
        }
        // Free every other one: plenty free, but no run of 400 bytes.
        for x in hs.iter().step_by(2) {
            let c = h
                .chunk_at_body(&m, m.read_u32(*x).unwrap())
                .unwrap()
                .unwrap();
            h.free_chunk(&mut m, c).unwrap();
        }
        let (_, max) = h.free_bytes(&m).unwrap();
        assert!(max < 400);
        let big = h.alloc_handle(&mut m, 400, 1).unwrap();
        assert!(m.read_u32(big).unwrap() != 0);
        let (free1, _) = h.free_bytes(&m).unwrap();
        assert!(free1 < free0);
        h.walk(&m).unwrap();
    }

    /// Check the whole heap: chunks tile the chunk area, the free list in the
    /// heap header and the free chunks' links matches the free chunks.
    fn check_invariants(m: &Memory, h: &Heap) {
        let chunks = h.walk(m).unwrap();
        let total: u32 = chunks.iter().map(|c| c.header.size).sum();
        assert_eq!(total, h.terminator() - h.first_chunk());
        let frees: Vec<u32> = chunks
            .iter()
            .filter(|c| c.header.free)
            .map(|c| c.addr)
            .collect();
        let mut listed = Vec::new();
        let first = m.read_u32(h.start + 6).unwrap();
        if first != 0 {
            let mut a = h.start + 2 * first;
            loop {
                listed.push(a);
                let link = h.read_header(m, a).unwrap().h_offset;
                if link == 0 {
                    break;
                }
                a = a.wrapping_add((2 * link) as u32);
            }
        }
        assert_eq!(listed, frees);
        for w in chunks.windows(2) {
            assert!(
                !(w[0].header.free && w[1].header.free),
                "adjacent free chunks"
            );
        }
    }

    #[test]
    fn random_operations_keep_the_heap_consistent() {
        let mut m = Memory::new(0x40000, 0x40000);
        let h = Heap::init(&mut m, 0, 0x1000, 0x8000).unwrap();
        let mut seed = 0x1234_5678u64;
        let mut rnd = |n: u32| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as u32) % n
        };
        // (handle or body, movable, size, fill byte)
        let mut live: Vec<(u32, bool, u32, u8)> = Vec::new();
        for step in 0..1500u32 {
            let fill = (step % 251) as u8;
            match rnd(10) {
                0..=3 => {
                    let size = rnd(300);
                    let movable = rnd(2) == 0;
                    let r = if movable {
                        h.alloc_handle(&mut m, size, 1)
                    } else {
                        h.alloc_chunk(
                            &mut m,
                            size,
                            1,
                            None,
                            if rnd(2) == 0 {
                                Placement::Start
                            } else {
                                Placement::End
                            },
                        )
                    };
                    if let Ok(x) = r {
                        let body = if movable { m.read_u32(x).unwrap() } else { x };
                        m.os_fill(body, size, fill).unwrap();
                        live.push((x, movable, size, fill));
                    }
                }
                4..=6 if !live.is_empty() => {
                    let (x, movable, _, _) = live.swap_remove(rnd(live.len() as u32) as usize);
                    let body = if movable { m.read_u32(x).unwrap() } else { x };
                    let c = h.chunk_at_body(&m, body).unwrap().unwrap();
                    h.free_chunk(&mut m, c).unwrap();
                }
                7 if !live.is_empty() => {
                    let i = rnd(live.len() as u32) as usize;
                    let (x, movable, size, old_fill) = live[i];
                    let body = if movable { m.read_u32(x).unwrap() } else { x };
                    let c = h.chunk_at_body(&m, body).unwrap().unwrap();
                    let new = rnd(400);
                    if let Ok(c2) = h.resize(&mut m, c, new) {
                        // Kept bytes are intact; refill everything with one byte.
                        let kept = m.read_bytes(c2.body(), size.min(new)).unwrap();
                        assert!(
                            kept.iter().all(|&b| b == old_fill),
                            "resize lost data at step {step}"
                        );
                        m.os_fill(c2.body(), new, fill).unwrap();
                        live[i] = (x, movable, new, fill);
                    }
                }
                8 => h.compact(&mut m).unwrap(),
                _ => h.scramble(&mut m).unwrap(),
            }
            check_invariants(&m, &h);
            h.check_index(&m);
            if step % 8 != 0 {
                continue;
            }
            let chunks = h.walk(&m).unwrap();
            for &(x, movable, size, fill) in &live {
                let body = if movable { m.read_u32(x).unwrap() } else { x };
                let c = chunks
                    .iter()
                    .find(|c| c.body() == body && !c.header.free)
                    .expect("live chunk");
                assert_eq!(c.header.data_size(), size);
                assert_eq!(c.header.movable(), movable);
                if movable {
                    assert_eq!(c.master_pointer(), x);
                }
                assert!(
                    m.read_bytes(body, size).unwrap().iter().all(|&b| b == fill),
                    "data lost at step {step}"
                );
            }
        }
    }
}
