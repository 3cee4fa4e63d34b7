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

use crate::memory::{Fault, Memory};

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

impl Heap {
    /// Write a fresh heap (header, first master pointer table, one free chunk
    /// and the terminator) into `mem`.
    pub fn init(mem: &mut Memory, id: u16, start: u32, size: u32) -> Result<Heap, HeapError> {
        let heap = Heap { id, start, size };
        mem.os_fill(start, size, 0)?;
        let flags = HEAP_FLAG_VERS3 | if size > 0xFFFF { HEAP_FLAG_VERS2 } else { 0 };
        mem.os_write_u16(start, flags)?;
        mem.os_write_u32(start + 2, size)?;
        mem.os_write_u16(start + HEAP_HEADER_SIZE, FIRST_MPT_ENTRIES)?;
        mem.os_write_u32(start + HEAP_HEADER_SIZE + 2, 0)?;
        let first = heap.first_chunk();
        let free_size = heap.terminator() - first;
        heap.write_header(
            mem,
            first,
            &ChunkHeader {
                free: true,
                moved: false,
                size_adj: 0,
                size: free_size,
                lock_count: 0,
                owner: 0,
                h_offset: 0,
            },
        )?;
        mem.os_write_u32(heap.terminator(), 0)?;
        heap.relink_free_list(mem)?;
        Ok(heap)
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

    /// Write the chunk header at `addr`.
    pub fn write_header(
        &self,
        mem: &mut Memory,
        addr: u32,
        h: &ChunkHeader,
    ) -> Result<(), HeapError> {
        let [w0, w1] = h.encode();
        mem.os_write_u32(addr, w0)?;
        mem.os_write_u32(addr + 4, w1)?;
        Ok(())
    }

    /// All chunks in address order, checking the chain as a debug ROM's heap
    /// check would (sizes, master pointers of movable chunks).
    pub fn walk(&self, mem: &Memory) -> Result<Vec<Chunk>, HeapError> {
        let mut out = Vec::new();
        let mut a = self.first_chunk();
        let end = self.terminator();
        while a < end {
            let h = self.read_header(mem, a)?;
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
                if mem.read_u32(mp).ok() != Some(c.body()) {
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

    /// The chunk whose body starts at `body`, if `body` is a live (non-free)
    /// chunk of this heap.
    pub fn chunk_at_body(&self, mem: &Memory, body: u32) -> Result<Option<Chunk>, HeapError> {
        if !self.contains(body) {
            return Ok(None);
        }
        Ok(self
            .walk(mem)?
            .into_iter()
            .find(|c| c.body() == body && !c.header.free))
    }

    /// The chunk at header address `addr` if there is a chunk (free or not) there.
    pub fn chunk_at(&self, mem: &Memory, addr: u32) -> Result<Option<Chunk>, HeapError> {
        if !self.contains(addr) {
            return Ok(None);
        }
        Ok(self.walk(mem)?.into_iter().find(|c| c.addr == addr))
    }

    /// The live chunk whose body contains `addr`.
    pub fn chunk_containing(&self, mem: &Memory, addr: u32) -> Result<Option<Chunk>, HeapError> {
        if !self.contains(addr) {
            return Ok(None);
        }
        Ok(self
            .walk(mem)?
            .into_iter()
            .find(|c| !c.header.free && addr >= c.body() && addr < c.addr + c.header.size))
    }

    /// Addresses of all master pointer table entries (first table and the
    /// chained ones).
    fn mpt_tables(&self, mem: &Memory) -> Result<Vec<(u32, u16)>, HeapError> {
        let mut tables = Vec::new();
        let mut t = self.start + HEAP_HEADER_SIZE;
        loop {
            let n = mem.read_u16(t)?;
            tables.push((t, n));
            let next = mem.read_u32(t + 2)?;
            if next == 0 {
                return Ok(tables);
            }
            if tables.len() > 1000 || next >= self.size {
                return Err(HeapError::Corrupt {
                    at: t,
                    what: "bad master pointer table chain",
                });
            }
            t = self.start + next;
        }
    }

    /// Whether `h` is the address of an in-use master pointer of this heap.
    pub fn is_master_pointer(&self, mem: &Memory, h: u32) -> Result<bool, HeapError> {
        if !self.contains(h) || h & 1 != 0 {
            return Ok(false);
        }
        for (t, n) in self.mpt_tables(mem)? {
            let first = t + MPT_HEADER_SIZE;
            let end = first + 4 * u32::from(n);
            if h >= first && h < end && (h - first) % 4 == 0 {
                return Ok(mem.read_u32(h)? != 0);
            }
        }
        Ok(false)
    }

    fn alloc_master_pointer(&self, mem: &mut Memory) -> Result<u32, HeapError> {
        let tables = self.mpt_tables(mem)?;
        for &(t, n) in &tables {
            for i in 0..u32::from(n) {
                let e = t + MPT_HEADER_SIZE + 4 * i;
                if mem.read_u32(e)? == 0 {
                    return Ok(e);
                }
            }
        }
        // Grow: a new non-movable table chunk at the end of the heap.
        let bytes = MPT_HEADER_SIZE + 4 * u32::from(MORE_MPT_ENTRIES);
        let body = self.alloc_chunk(mem, bytes, OWNER_MASTER_PTR_TABLE, None, Placement::End)?;
        mem.os_fill(body, bytes, 0)?;
        mem.os_write_u16(body, MORE_MPT_ENTRIES)?;
        let (last, _) = *tables.last().expect("the first table always exists");
        mem.os_write_u32(last + 2, body - self.start)?;
        Ok(body + MPT_HEADER_SIZE)
    }

    /// Rewrite the free list (heap header firstFreeChunkOffset and each free
    /// chunk's link) from the chunk chain.
    fn relink_free_list(&self, mem: &mut Memory) -> Result<(), HeapError> {
        let frees: Vec<Chunk> = self
            .walk(mem)?
            .into_iter()
            .filter(|c| c.header.free)
            .collect();
        let first = frees.first().map_or(0, |c| (c.addr - self.start) / 2);
        mem.os_write_u32(self.start + 6, first)?;
        for (i, c) in frees.iter().enumerate() {
            let link = frees
                .get(i + 1)
                .map_or(0, |n| ((n.addr - c.addr) / 2) as i32);
            let mut h = c.header;
            h.h_offset = link;
            self.write_header(mem, c.addr, &h)?;
        }
        Ok(())
    }

    /// Merge adjacent free chunks.
    fn coalesce(&self, mem: &mut Memory) -> Result<(), HeapError> {
        let chunks = self.walk(mem)?;
        let mut i = 0;
        while i < chunks.len() {
            if chunks[i].header.free {
                let mut j = i + 1;
                let mut size = chunks[i].header.size;
                while j < chunks.len() && chunks[j].header.free {
                    size += chunks[j].header.size;
                    j += 1;
                }
                if j > i + 1 {
                    let mut h = chunks[i].header;
                    h.size = size;
                    self.write_header(mem, chunks[i].addr, &h)?;
                }
                i = j;
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    /// Largest body a chunk header can describe (24-bit size field).
    const MAX_BODY: u32 = 0x00FF_FFFF - CHUNK_HEADER_SIZE - 1;

    /// Total size of a chunk for a body of `req` bytes (`req` ≤ [`Self::MAX_BODY`]).
    fn chunk_size_for(req: u32) -> u32 {
        CHUNK_HEADER_SIZE + ((req + 1) & !1)
    }

    fn find_fit(
        &self,
        mem: &Memory,
        need: u32,
        placement: Placement,
    ) -> Result<Option<Chunk>, HeapError> {
        let mut frees = self
            .walk(mem)?
            .into_iter()
            .filter(|c| c.header.free && c.header.size >= need);
        Ok(match placement {
            Placement::Start => frees.next(),
            Placement::End => frees.next_back(),
        })
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
        if req > Self::MAX_BODY {
            return Err(HeapError::NotEnoughSpace);
        }
        let need = Self::chunk_size_for(req);
        let fit = match self.find_fit(mem, need, placement)? {
            Some(c) => c,
            None => {
                self.compact(mem)?;
                self.find_fit(mem, need, placement)?
                    .ok_or(HeapError::NotEnoughSpace)?
            }
        };
        let total = fit.header.size;
        let rest = total - need;
        let (addr, size) = if rest < CHUNK_HEADER_SIZE {
            (fit.addr, total)
        } else {
            let free = ChunkHeader {
                size: rest,
                ..fit.header
            };
            match placement {
                Placement::Start => {
                    self.write_header(mem, fit.addr + need, &free)?;
                    (fit.addr, need)
                }
                Placement::End => {
                    self.write_header(mem, fit.addr, &free)?;
                    (fit.addr + rest, need)
                }
            }
        };
        let header = ChunkHeader {
            free: false,
            moved: false,
            size_adj: (size - CHUNK_HEADER_SIZE - req) as u8,
            size,
            lock_count: if master.is_some() { 0 } else { PTR_LOCK_COUNT },
            owner,
            h_offset: master.map_or(0, |mp| ((addr.wrapping_sub(mp)) as i32) / 2),
        };
        self.write_header(mem, addr, &header)?;
        if let Some(mp) = master {
            mem.os_write_u32(mp, addr + CHUNK_HEADER_SIZE)?;
        }
        self.relink_free_list(mem)?;
        Ok(addr + CHUNK_HEADER_SIZE)
    }

    /// Allocate a movable chunk and its master pointer; returns the handle
    /// (the master pointer's address).
    pub fn alloc_handle(&self, mem: &mut Memory, req: u32, owner: u8) -> Result<u32, HeapError> {
        let mp = self.alloc_master_pointer(mem)?;
        // Reserve the entry while allocating (compaction must not hand it out).
        mem.os_write_u32(mp, 1)?;
        match self.alloc_chunk(mem, req, owner, Some(mp), Placement::Start) {
            Ok(_) => Ok(mp),
            Err(e) => {
                mem.os_write_u32(mp, 0)?;
                Err(e)
            }
        }
    }

    /// Free the chunk at header `addr`; a movable chunk's master pointer is
    /// released too.
    pub fn free_chunk(&self, mem: &mut Memory, chunk: Chunk) -> Result<(), HeapError> {
        if chunk.header.movable() {
            mem.os_write_u32(chunk.master_pointer(), 0)?;
        }
        let h = ChunkHeader {
            free: true,
            moved: false,
            size_adj: 0,
            size: chunk.header.size,
            lock_count: 0,
            owner: 0,
            h_offset: 0,
        };
        self.write_header(mem, chunk.addr, &h)?;
        self.coalesce(mem)?;
        self.relink_free_list(mem)
    }

    /// Resize a chunk's body to `req` bytes. Grows in place when the next
    /// chunk is free and large enough; otherwise a movable, unlocked chunk
    /// moves (the master pointer is updated) and anything else fails with
    /// `NotEnoughSpace`. Returns the (possibly new) chunk.
    pub fn resize(&self, mem: &mut Memory, chunk: Chunk, req: u32) -> Result<Chunk, HeapError> {
        if req > Self::MAX_BODY {
            return Err(HeapError::NotEnoughSpace);
        }
        let need = Self::chunk_size_for(req);
        let cur = chunk.header.size;
        if need <= cur {
            // Shrink in place; give the tail back when it can hold a header.
            let rest = cur - need;
            let size = if rest >= CHUNK_HEADER_SIZE { need } else { cur };
            let mut h = chunk.header;
            h.size = size;
            h.size_adj = (size - CHUNK_HEADER_SIZE - req) as u8;
            self.write_header(mem, chunk.addr, &h)?;
            if size < cur {
                self.write_header(
                    mem,
                    chunk.addr + size,
                    &ChunkHeader {
                        free: true,
                        moved: false,
                        size_adj: 0,
                        size: cur - size,
                        lock_count: 0,
                        owner: 0,
                        h_offset: 0,
                    },
                )?;
                self.coalesce(mem)?;
            }
            self.relink_free_list(mem)?;
            return Ok(Chunk {
                addr: chunk.addr,
                header: h,
            });
        }
        // Grow in place into a following free chunk.
        let next = chunk.addr + cur;
        if next < self.terminator() {
            let nh = self.read_header(mem, next)?;
            if nh.free && cur + nh.size >= need {
                let avail = cur + nh.size;
                let rest = avail - need;
                let size = if rest >= CHUNK_HEADER_SIZE {
                    need
                } else {
                    avail
                };
                let mut h = chunk.header;
                h.size = size;
                h.size_adj = (size - CHUNK_HEADER_SIZE - req) as u8;
                self.write_header(mem, chunk.addr, &h)?;
                if size < avail {
                    self.write_header(
                        mem,
                        chunk.addr + size,
                        &ChunkHeader {
                            size: avail - size,
                            ..nh
                        },
                    )?;
                }
                self.relink_free_list(mem)?;
                return Ok(Chunk {
                    addr: chunk.addr,
                    header: h,
                });
            }
        }
        if !chunk.header.movable() || chunk.header.lock_count != 0 {
            return Err(HeapError::NotEnoughSpace);
        }
        self.move_chunk(mem, chunk, req, Placement::Start)
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
        let mp = chunk.master_pointer();
        let old = chunk.header;
        let data = mem.read_bytes(chunk.body(), old.data_size())?;
        // Free first so that the old space may be used; keep the master
        // pointer reserved.
        self.write_free(mem, chunk.addr, old.size)?;
        mem.os_write_u32(mp, 1)?;
        self.coalesce(mem)?;
        self.relink_free_list(mem)?;
        match self.alloc_chunk(mem, req, old.owner, Some(mp), placement) {
            Ok(body) => {
                mem.os_write_bytes(body, &data[..data.len().min(req as usize)])?;
                Ok(self
                    .chunk_at(mem, body - CHUNK_HEADER_SIZE)?
                    .expect("just allocated"))
            }
            Err(e) => {
                // It fitted before the move, and compaction only merges free
                // space, so a chunk of the old size fits again.
                let body =
                    self.alloc_chunk(mem, old.data_size(), old.owner, Some(mp), Placement::Start)?;
                mem.os_write_bytes(body, &data)?;
                Err(e)
            }
        }
    }

    /// Move every unlocked movable chunk to the end of the free space (or to
    /// its start, for a chunk that is already at the end) and set its `moved` bit, as MemHeapScramble does on a debug ROM: code that
    /// keeps a pointer into an unlocked handle's chunk then reads stale
    /// memory. Chunks that do not fit elsewhere stay.
    pub fn scramble(&self, mem: &mut Memory) -> Result<(), HeapError> {
        let handles: Vec<u32> = self
            .walk(mem)?
            .into_iter()
            .filter(|c| c.header.movable() && c.header.lock_count == 0)
            .map(|c| c.master_pointer())
            .collect();
        for mp in handles {
            let body = mem.read_u32(mp)?;
            let Some(c) = self.chunk_at(mem, body.wrapping_sub(CHUNK_HEADER_SIZE))? else {
                continue;
            };
            // To the end of the free space; a chunk already there goes to the
            // start instead, so that every scramble moves it.
            let moved = match self.move_chunk(mem, c, c.header.data_size(), Placement::End) {
                Ok(n) if n.addr == c.addr => {
                    self.move_chunk(mem, n, n.header.data_size(), Placement::Start)
                }
                other => other,
            };
            match moved {
                Ok(n) => {
                    let mut h = n.header;
                    h.moved = true;
                    self.write_header(mem, n.addr, &h)?;
                }
                Err(HeapError::NotEnoughSpace) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Slide unlocked movable chunks toward the heap start, merging free space.
    pub fn compact(&self, mem: &mut Memory) -> Result<(), HeapError> {
        let chunks = self.walk(mem)?;
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
                    mem.os_move(to, c.addr, h.size)?;
                    let moved = ChunkHeader {
                        h_offset: (to.wrapping_sub(mp) as i32) / 2,
                        ..h
                    };
                    self.write_header(mem, to, &moved)?;
                    mem.os_write_u32(mp, to + CHUNK_HEADER_SIZE)?;
                    gap = Some(to + h.size);
                }
                Some(from) => {
                    self.write_free(mem, from, c.addr - from)?;
                    gap = None;
                }
                None => {}
            }
        }
        if let Some(from) = gap {
            self.write_free(mem, from, self.terminator() - from)?;
        }
        self.relink_free_list(mem)
    }

    fn write_free(&self, mem: &mut Memory, addr: u32, size: u32) -> Result<(), HeapError> {
        self.write_header(
            mem,
            addr,
            &ChunkHeader {
                free: true,
                moved: false,
                size_adj: 0,
                size,
                lock_count: 0,
                owner: 0,
                h_offset: 0,
            },
        )
    }

    /// Total free bytes and the largest free chunk, both without headers.
    pub fn free_bytes(&self, mem: &Memory) -> Result<(u32, u32), HeapError> {
        let mut total = 0;
        let mut max = 0;
        for c in self.walk(mem)? {
            if c.header.free {
                let n = c.header.size - CHUNK_HEADER_SIZE;
                total += n;
                max = max.max(n);
            }
        }
        Ok((total, max))
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
        m.os_write_bytes(m.read_u32(a).unwrap(), b"keep me!!!")
            .unwrap();
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
