#![allow(non_upper_case_globals)] // the SDK's trap names as match patterns
//! A minimal Palm OS for the assembly's tests: the traps memdbg's routines (and the
//! Rust functions they call) make, answered from the test's own bookkeeping, each
//! one leaving D0–D2/A0–A1 as Palm OS may (its result where the trap table says, junk
//! in the rest: PALM_FACTS §6, as palm-run does it). A trap it does not know fails
//! the call, naming it.
//!
//! The heap is a toy one with the OS 3.x chunk header memdbg reads (PALM_FACTS §5.1):
//! 8 bytes before a chunk, the free flag in bit 31 of the first long, and for a
//! handle's chunk the distance back to its master pointer (hOffset, in 2-byte units)
//! in the low 24 bits of the second. With [`Os::opaque`] a handle is not a master
//! pointer (as PumpkinOS's, PALM_FACTS §7.3): its first long is [`HANDLE_MAGIC`] and
//! only MemHandleLock gives the chunk.

use m68k_palmos_sys::table::{self, RetKind};
use m68k_palmos_sys::traps::*;
use palm_build::emu::{Ram, TrapCall};

use crate::machine::{HEAP, MASTERS, RECORDS_NEW, STUBS};

/// What a trap leaves in the registers it does not answer with.
pub const JUNK: u32 = 0x5A5A_5A5A;
/// `memErrNotEnoughSpace` (MemoryMgr.h).
pub const NOT_ENOUGH_SPACE: u32 = 0x0102;
/// `memErrInvalidParam` (MemoryMgr.h).
pub const INVALID_PARAM: u32 = 0x0103;
/// What an opaque handle's first long holds (PumpkinOS's `'Hndl'` as a
/// little-endian host stores it).
pub const HANDLE_MAGIC: u32 = 0x6C64_6E48;

/// A chunk of the toy heap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Its first byte (what MemPtrNew returns, and the master pointer holds).
    pub body: u32,
    /// Bytes asked for.
    pub size: u32,
    /// Bytes it has room for (a resize within them stays in place).
    pub room: u32,
    /// Its master pointer, for a handle.
    pub handle: Option<u32>,
    /// Freed.
    pub free: bool,
}

/// The OS's bookkeeping, and what the routines asked of it.
pub struct Os {
    /// FtrGet('MDbg', 0): the state's address, or not registered.
    pub feature: Option<u32>,
    /// TimGetTicks's next answer.
    pub ticks: u32,
    /// Bytes the heap may still give (an allocation above fails: 0 fails all).
    pub heap_room: u32,
    heap_top: u32,
    masters_top: u32,
    /// Every chunk allocated, in order.
    pub chunks: Vec<Chunk>,
    /// MemHeapFreeBytes's answers: free bytes, largest free chunk.
    pub heap_free: (u32, u32),
    /// DmNewRecord's records still possible (0: the storage heap is full).
    pub records_room: u32,
    records_top: u32,
    /// DmNewRecord: (size, record) of each.
    pub new_records: Vec<(u32, u32)>,
    /// DmWrite: (record, offset, bytes) of each.
    pub writes: Vec<(u32, u32, Vec<u8>)>,
    /// DmSet: (record, offset, bytes, value) of each.
    pub sets: Vec<(u32, u32, u32, u8)>,
    /// DbgMessage texts.
    pub messages: Vec<String>,
    /// ErrDisplayFileLineMsg: (file, line, message) of each.
    pub alerts: Vec<(String, u16, String)>,
    /// FrmCustomAlert: (alert ID, its three strings one after the other) of each.
    pub dialogs: Vec<(u16, String)>,
    /// DmGetRecord's record (the header, the only one memdbg gets), made at its
    /// first call: its handle.
    pub got_record: Option<u32>,
    /// Every trap word, in order.
    pub traps: Vec<u16>,
    /// Handles are not master pointers ([`HANDLE_MAGIC`]).
    pub opaque: bool,
    /// Each handle's lock count (MemHandleLock/MemHandleUnlock).
    pub locks: std::collections::BTreeMap<u32, u32>,
}

impl Default for Os {
    fn default() -> Os {
        Os {
            feature: None,
            ticks: 1000,
            heap_room: 0x4_0000,
            heap_top: HEAP,
            masters_top: MASTERS,
            chunks: Vec::new(),
            heap_free: (50_000, 40_000),
            records_room: 1000,
            records_top: RECORDS_NEW,
            new_records: Vec::new(),
            writes: Vec::new(),
            sets: Vec::new(),
            messages: Vec::new(),
            alerts: Vec::new(),
            dialogs: Vec::new(),
            got_record: None,
            traps: Vec::new(),
            opaque: false,
            locks: Default::default(),
        }
    }
}

/// The NUL-terminated text at `addr`.
pub fn c_string(ram: &Ram, addr: u32) -> String {
    let mut s = Vec::new();
    let mut a = addr;
    while ram.slice(a, 1)[0] != 0 {
        s.push(ram.slice(a, 1)[0]);
        a += 1;
    }
    String::from_utf8_lossy(&s).into_owned()
}

impl Os {
    /// A chunk of `size` bytes (a handle's, with its master pointer, when `handle`),
    /// or `None` when the heap has no room: the body (or the handle).
    pub fn alloc(&mut self, ram: &mut Ram, size: u32, handle: bool) -> Option<u32> {
        if size > self.heap_room {
            return None;
        }
        self.heap_room -= size;
        let room = (size + 1) & !1;
        let header = self.heap_top;
        let body = header + 8;
        self.heap_top = body + room + 4;
        ram.set_long(header, 8 + room);
        let mut mp = None;
        if handle {
            let h = self.masters_top;
            self.masters_top += 4;
            ram.set_long(h, if self.opaque { HANDLE_MAGIC } else { body });
            // hOffset: from the master pointer to the header, in 2-byte units.
            ram.set_long(header + 4, ((header - h) / 2) & 0x00FF_FFFF);
            mp = Some(h);
        } else {
            // A non-movable chunk: lock count 15 (memPtrLockCount), hOffset 0.
            ram.set_long(header + 4, 0xF000_0000);
        }
        self.chunks.push(Chunk {
            body,
            size,
            room,
            handle: mp,
            free: false,
        });
        Some(mp.unwrap_or(body))
    }

    /// The live chunk whose body is `body`.
    pub fn chunk_at(&mut self, body: u32) -> Option<&mut Chunk> {
        self.chunks.iter_mut().find(|c| c.body == body && !c.free)
    }

    /// The live chunk of handle `h`.
    pub fn chunk_of(&mut self, h: u32) -> Option<&mut Chunk> {
        self.chunks
            .iter_mut()
            .find(|c| c.handle == Some(h) && !c.free)
    }

    /// The live chunk a free or resize of `addr` (`handle`: a handle's) is about.
    fn live(&mut self, addr: u32, handle: bool) -> Option<Chunk> {
        if handle {
            self.chunk_of(addr).cloned()
        } else {
            self.chunk_at(addr).cloned()
        }
    }

    /// Frees a chunk (its header's free flag; a handle's master pointer 0).
    fn free(&mut self, ram: &mut Ram, addr: u32, handle: bool) -> u32 {
        let Some(c) = self.live(addr, handle) else {
            return INVALID_PARAM;
        };
        let header = c.body - 8;
        ram.set_long(header, ram.long(header) | 0x8000_0000);
        if let Some(h) = c.handle.filter(|_| !self.opaque) {
            ram.set_long(h, 0);
        }
        for k in &mut self.chunks {
            if k.body == c.body {
                k.free = true;
            }
        }
        0
    }

    /// Resizes a chunk: in place within its room, else a handle's chunk moves (its
    /// bytes copied, its master pointer updated); a pointer's cannot.
    fn resize(&mut self, ram: &mut Ram, addr: u32, size: u32, handle: bool) -> u32 {
        let Some(c) = self.live(addr, handle) else {
            return INVALID_PARAM;
        };
        if size <= c.room {
            self.chunk_at(c.body).unwrap().size = size;
            return 0;
        }
        let Some(h) = c.handle.filter(|_| size <= self.heap_room) else {
            return NOT_ENOUGH_SPACE;
        };
        let moved = self.alloc(ram, size, false).unwrap();
        let bytes = ram.slice(c.body, c.size).to_vec();
        ram.slice_mut(moved, c.size).copy_from_slice(&bytes);
        let header = moved - 8;
        ram.set_long(header + 4, ((header - h) / 2) & 0x00FF_FFFF);
        if !self.opaque {
            ram.set_long(h, moved);
        }
        ram.set_long(c.body - 8, ram.long(c.body - 8) | 0x8000_0000);
        for k in &mut self.chunks {
            if k.body == c.body {
                k.free = true;
            }
            if k.body == moved {
                k.handle = Some(h);
            }
        }
        0
    }

    /// Answers one `TRAP #15`.
    pub fn service(&mut self, t: &mut TrapCall<'_>) -> Result<(), String> {
        self.traps.push(t.trap);
        // A stub (an original, called with JSR) has its return address above the
        // arguments; the program's own TRAP #15 has the arguments at the stack
        // pointer.
        let at = if (STUBS..STUBS + 0x100).contains(&t.pc) {
            4
        } else {
            0
        };
        let arg_long = |t: &TrapCall<'_>, o: u32| t.arg_long(at + o);
        let arg_word = |t: &TrapCall<'_>, o: u32| t.arg_word(at + o);
        let (l0, l4, l8, l12) = (
            arg_long(t, 0),
            arg_long(t, 4),
            arg_long(t, 8),
            arg_long(t, 12),
        );
        let v: u32 = match t.trap {
            sysTrapFtrGet => {
                let (creator, number, out) = (l0, arg_word(t, 4), arg_long(t, 6));
                match self.feature {
                    Some(st) if creator == u32::from_be_bytes(*b"MDbg") && number == 0 => {
                        t.ram.set_long(out, st);
                        0
                    }
                    _ => 0x0C02, // ftrErrNoSuchFeature
                }
            }
            sysTrapTimGetTicks => {
                self.ticks += 1;
                self.ticks
            }
            sysTrapMemHeapFreeBytes => {
                let (free, max) = (arg_long(t, 2), arg_long(t, 6));
                t.ram.set_long(free, self.heap_free.0);
                t.ram.set_long(max, self.heap_free.1);
                0
            }
            // The toy heap has no heap header to walk: NULL, so the free path
            // reads the chunk header alone (what it does where the walk fails).
            sysTrapMemHeapPtr => 0,
            sysTrapMemPtrNew => self.alloc(t.ram, l0, false).unwrap_or(0),
            sysTrapMemHandleNew => self.alloc(t.ram, l0, true).unwrap_or(0),
            sysTrapMemChunkNew => {
                let (size, attr) = (arg_long(t, 2), arg_word(t, 6));
                // memNewChunkFlagNonMovable | memNewChunkFlagPreLock: a pointer.
                self.alloc(t.ram, size, attr & 0x0300 == 0).unwrap_or(0)
            }
            sysTrapMemChunkFree => self.free(t.ram, l0, false),
            sysTrapMemHandleFree => self.free(t.ram, l0, true),
            sysTrapMemPtrSize => self.chunk_at(l0).map_or(0, |c| c.size),
            sysTrapMemHandleSize => self.chunk_of(l0).map_or(0, |c| c.size),
            sysTrapMemPtrResize => self.resize(t.ram, l0, l4, false),
            sysTrapMemHandleResize => self.resize(t.ram, l0, l4, true),
            sysTrapMemPtrRecoverHandle => {
                let handle = self.chunk_at(l0).and_then(|c| c.handle);
                handle.unwrap_or(0)
            }
            sysTrapDmWrite => {
                let bytes = t.ram.slice(l8, l12).to_vec();
                t.ram.slice_mut(l0 + l4, l12).copy_from_slice(&bytes);
                self.writes.push((l0, l4, bytes));
                0
            }
            sysTrapDmSet => {
                let value = t.ram.slice(t.sp() + at + 12, 1)[0];
                t.ram.slice_mut(l0 + l4, l8).fill(value);
                self.sets.push((l0, l4, l8, value));
                0
            }
            sysTrapDmNewRecord => {
                if self.records_room == 0 {
                    0
                } else {
                    self.records_room -= 1;
                    // A handle: its master pointer, then the record.
                    let h = self.records_top;
                    let rec = h + 4;
                    self.records_top = (rec + l8 + 3) & !1;
                    t.ram.set_long(h, rec);
                    t.ram.slice_mut(rec, l8).fill(0);
                    self.new_records.push((l8, rec));
                    let at = l4;
                    t.ram
                        .slice_mut(at, 2)
                        .copy_from_slice(&(self.new_records.len() as u16).to_be_bytes());
                    h
                }
            }
            sysTrapMemHandleLock => match self.chunk_of(l0).map(|c| c.body) {
                Some(body) => {
                    *self.locks.entry(l0).or_default() += 1;
                    body
                }
                // A record's handle (DmNewRecord's): its master pointer.
                None => t.ram.long(l0),
            },
            sysTrapMemHandleUnlock => match self.locks.get_mut(&l0) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    0
                }
                _ => {
                    return Err(format!(
                        "MemHandleUnlock(0x{l0:08x}) of a handle not locked"
                    ));
                }
            },
            sysTrapDmReleaseRecord | sysTrapMemPtrUnlock => 0,
            sysTrapDmGetRecord => *self.got_record.get_or_insert_with(|| {
                // The header record (156 bytes) with its master pointer.
                let h = self.records_top;
                self.records_top = (h + 4 + 156 + 3) & !1;
                t.ram.set_long(h, h + 4);
                h
            }),
            sysTrapFrmCustomAlert => {
                let id = arg_word(t, 0);
                let text: String = [arg_long(t, 2), arg_long(t, 6), arg_long(t, 10)]
                    .iter()
                    .map(|&p| c_string(t.ram, p))
                    .collect();
                self.dialogs.push((id, text));
                0
            }
            sysTrapDbgMessage => {
                self.messages.push(c_string(t.ram, l0));
                0
            }
            sysTrapErrDisplayFileLineMsg => {
                let (line, msg) = (arg_word(t, 4), arg_long(t, 6));
                let (file, msg) = (c_string(t.ram, l0), c_string(t.ram, msg));
                self.alerts.push((file, line, msg));
                0
            }
            other => return Err(format!("the tests' OS has no trap 0x{other:04x}")),
        };
        let ret = table::trap_info(t.trap).map_or(RetKind::Void, |i| i.ret);
        let (d0, a0) = ret.registers(v, JUNK);
        t.cpu.set_d(0, d0);
        t.cpu.set_a(0, a0);
        t.cpu.set_d(1, JUNK);
        t.cpu.set_d(2, JUNK);
        t.cpu.set_a(1, JUNK);
        Ok(())
    }
}
