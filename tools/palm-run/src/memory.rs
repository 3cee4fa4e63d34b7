//! The emulated address space and the bus the 68000 core reads and writes.
//!
//! Memory map (all addresses are 68k addresses; DragonBall parts decode 32
//! address bits, so the CPU runs with `address_mask = 0xFFFF_FFFF`):
//!
//! | range | contents | 68k access |
//! |---|---|---|
//! | `0x0000_0000..0x0000_0100` | exception vectors, all pointing at ROM stubs | read |
//! | `0x0000_0100..0x0000_1000` | low-memory globals; `sysDispatchTableP` at `0x0122` | read |
//! | `0x0000_1000..` + dynamic heap size | dynamic heap (heap ID 0) | read/write |
//! | then to the end of RAM | storage heap (heap ID 1) | read only: a write is a bus error |
//! | [`ROM_BASE`]`..+`[`ROM_SIZE`] | ROM: vector stubs, trap entry points, return stub | read/execute |
//!
//! Facts: `sysDispatchTableP` at absolute 0x0122 (PALM_FACTS §3.1, from
//! `cloudpilot-emu .../EmPalmOS.cpp` and `Globals.h`); storage RAM above the
//! dynamic heap is write-protected by the chip-select and a write to it is a
//! bus error (PALM_FACTS §5.4, `cloudpilot-emu .../EmRegsEZ.cpp`, `EmBankSRAM.cpp`).
//! Writes to low memory from 68k code are reported too (our choice: no app of
//! ours has a reason to write there, and a write near 0 is almost always a
//! NULL-pointer bug). The ROM base is our choice.
//!
//! Native (OS) code uses the `os_*` accessors, which may write storage (the
//! Data Manager does, as the ROM does after unprotecting), and the checked
//! accessors (`read_*`/`write_*`) when it acts on a pointer the app passed in,
//! so that an app handing the OS a storage pointer to write gets the same
//! fault a device would give.
//!
//! Every write to RAM, by 68k code or by the OS, marks its
//! [`DIRTY_BLOCK`]-byte blocks dirty. The heap code keeps an index of each
//! heap (chunk headers, free chunks, master pointer tables: see
//! [`crate::heap`]) so that a Memory Manager call does not read the whole
//! heap; before it uses the index it compares what the index mirrors in the
//! dirty blocks with the bytes there, so the bytes stay the source of truth:
//! a chunk header changed by 68k code is seen at the next call exactly as a
//! full heap walk would see it. 68k code therefore writes the dynamic heap
//! through the bus (a read-only fast window, writes by call), which costs
//! store-heavy code about a fifth of its speed and nothing else.
//!
//! Low memory is not executable: an instruction fetch there (a jump through
//! a NULL or garbage function pointer) is a bus error of kind
//! [`FaultKind::Execute`]. While an app runs, 68k writes just below its
//! stack chunk (its header and the system chunks under it) are refused as
//! [`FaultKind::StackGuard`]: a stack overflow stops the app before it
//! overwrites anything.

use std::cell::{Cell, RefCell};
use std::ops::{Deref, DerefMut};

use m68k::core::memory::{BusFault, BusFaultKind};
use m68k::{AddressBus, FastMem, FastMemRegion, MAX_FAST_MEM_REGIONS};

/// End of low memory (exclusive) and start of the dynamic heap.
pub const LOW_MEMORY_END: u32 = 0x1000;
/// Low-memory global `sysDispatchTableP`: address of the trap dispatch table
/// (PALM_FACTS §3.1).
pub const SYS_DISPATCH_TABLE_P: u32 = 0x0122;
/// Start address of the dynamic heap (heap ID 0).
pub const DYNAMIC_HEAP_START: u32 = LOW_MEMORY_END;
/// Default dynamic heap size in bytes: 256 KB, the dynamic heap of a Palm OS
/// 3.5 device with 4 MB of RAM or more ("In a Palm OS 3.5 device with 4 MB or
/// more, the dynamic heap space is 256 KB", PALM_FACTS §5.3; POSE also derives
/// 256 KB from the EZ chip-select, `cloudpilot-emu .../EmRegsEZ.cpp`).
pub const DEFAULT_DYNAMIC_HEAP_SIZE: u32 = 256 * 1024;
/// Default RAM size in bytes (card 0): 4 MB, the smallest RAM that gets the
/// 256 KB dynamic heap above. The storage heap is the rest.
pub const DEFAULT_RAM_SIZE: u32 = 4 * 1024 * 1024;
/// Base address of the emulated ROM (our choice; outside RAM, even, and far
/// from 0 so that a ROM address is never mistaken for a small integer).
pub const ROM_BASE: u32 = 0x10C0_0000;
/// Size of the emulated ROM in bytes.
pub const ROM_SIZE: u32 = 0x4000;
/// Granularity of the dirty-write tracking in bytes (a power of two).
pub const DIRTY_BLOCK: u32 = 64;
const DIRTY_SHIFT: u32 = DIRTY_BLOCK.trailing_zeros();
/// Smallest dynamic heap (`--heap-size`): the first master pointer table,
/// the 8 KB trap dispatch table, the launch's system chunks and a 4 KB stack.
pub const MIN_DYNAMIC_HEAP_SIZE: u32 = 16 * 1024;
/// Largest heap, dynamic or storage: a heap starts as one free chunk, and a
/// chunk header's size field has 24 bits (PALM_FACTS §5.1).
pub const MAX_HEAP_SIZE: u32 = 16 * 1024 * 1024;
/// Smallest storage heap (RAM size − low memory − dynamic heap).
pub const MIN_STORAGE_HEAP_SIZE: u32 = 16 * 1024;

/// The RAM sizes valid with a dynamic heap of `dynamic_heap_size` bytes,
/// smallest and largest: low memory, the heap, and a storage heap of
/// [`MIN_STORAGE_HEAP_SIZE`] to [`MAX_HEAP_SIZE`] (multiples of 4 between).
pub fn ram_size_range(dynamic_heap_size: u32) -> (u64, u64) {
    let base = u64::from(LOW_MEMORY_END) + u64::from(dynamic_heap_size);
    (
        base + u64::from(MIN_STORAGE_HEAP_SIZE),
        base + u64::from(MAX_HEAP_SIZE),
    )
}

/// Check a RAM size and a dynamic heap size: both multiples of 4, the
/// dynamic heap [`MIN_DYNAMIC_HEAP_SIZE`]–[`MAX_HEAP_SIZE`], the storage heap
/// (what RAM leaves after low memory and the dynamic heap)
/// [`MIN_STORAGE_HEAP_SIZE`]–[`MAX_HEAP_SIZE`]. The error names the option
/// (`--heap-size`, `--ram-size`), the value and the valid range.
pub fn check_sizes(ram_size: u32, dynamic_heap_size: u32) -> Result<(), String> {
    check_ram(ram_size, dynamic_heap_size, true)
}

/// [`check_sizes`] with the default RAM ([`DEFAULT_RAM_SIZE`]), for a
/// command line without `--ram-size`: a dynamic heap too large for the
/// default RAM is an error about `--heap-size`, the option that was given,
/// saying which `--ram-size` it needs.
pub fn check_heap_size_in_default_ram(dynamic_heap_size: u32) -> Result<(), String> {
    check_ram(DEFAULT_RAM_SIZE, dynamic_heap_size, false)
}

/// Both checks; `ram_given`: the RAM size is the user's `--ram-size` (the error
/// is about it), else the default (the error is about `--heap-size`).
fn check_ram(ram_size: u32, dynamic_heap_size: u32, ram_given: bool) -> Result<(), String> {
    check_heap_size(dynamic_heap_size)?;
    if ram_fits(ram_size, dynamic_heap_size) {
        return Ok(());
    }
    let (lo, hi) = ram_size_range(dynamic_heap_size);
    Err(if ram_given {
        format!(
            "--ram-size {ram_size}: RAM must be a multiple of 4 from {lo} to {hi} bytes with a \
             {dynamic_heap_size}-byte dynamic heap (4 KiB of low memory, the dynamic heap, \
             and a storage heap of 16 KiB to 16 MiB)"
        )
    } else {
        format!(
            "--heap-size {dynamic_heap_size} does not fit in the default RAM (--ram-size \
             {ram_size}): a {dynamic_heap_size}-byte dynamic heap needs a --ram-size \
             from {lo} to {hi} (a multiple of 4: 4 KiB of low memory, the dynamic heap, and a \
             storage heap of 16 KiB to 16 MiB)"
        )
    })
}

/// The dynamic heap size alone: a multiple of 4 from
/// [`MIN_DYNAMIC_HEAP_SIZE`] to [`MAX_HEAP_SIZE`].
fn check_heap_size(dynamic_heap_size: u32) -> Result<(), String> {
    let h = u64::from(dynamic_heap_size);
    if h % 4 != 0 || h < u64::from(MIN_DYNAMIC_HEAP_SIZE) || h > u64::from(MAX_HEAP_SIZE) {
        return Err(format!(
            "--heap-size {dynamic_heap_size}: the dynamic heap must be a multiple of 4 from \
             {MIN_DYNAMIC_HEAP_SIZE} (16 KiB) to {MAX_HEAP_SIZE} (16 MiB) bytes"
        ));
    }
    Ok(())
}

/// True when `ram_size` is a multiple of 4 in [`ram_size_range`].
fn ram_fits(ram_size: u32, dynamic_heap_size: u32) -> bool {
    let (lo, hi) = ram_size_range(dynamic_heap_size);
    let r = u64::from(ram_size);
    r % 4 == 0 && (lo..=hi).contains(&r)
}

/// Why an access failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// No memory is mapped at the address.
    Unmapped,
    /// A write to the write-protected storage heap (POSE: "... which is in the
    /// storage heap. In order to protect the integrity of the user's data,
    /// such direct access is not allowed", PALM_FACTS §5.4).
    StorageWrite,
    /// A write to low memory (vectors and OS globals).
    LowMemoryWrite,
    /// A write to ROM.
    RomWrite,
    /// A word or long access at an odd address (an address error on a 68000).
    Misaligned,
    /// An instruction fetch from low memory: a jump through a NULL (or
    /// garbage) function pointer.
    Execute,
    /// A 68k write just below the running app's stack chunk (the chunk's
    /// header and the system chunks under it): a stack overflow, unless the
    /// stack pointer is still inside the stack.
    StackGuard,
}

/// A failed access: where, how wide, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// 68k address of the access.
    pub address: u32,
    /// Access width in bytes (1, 2 or 4; the length for block accesses).
    pub size: u32,
    /// True for a write.
    pub write: bool,
    /// Why it failed.
    pub kind: FaultKind,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verb = if self.write { "write" } else { "read" };
        match self.kind {
            FaultKind::Unmapped => write!(
                f,
                "{verb} of {} byte(s) at 0x{:08X}, which is not mapped memory",
                self.size, self.address
            ),
            FaultKind::StorageWrite => write!(
                f,
                "direct write of {} byte(s) to 0x{:08X}, which is in the storage heap; \
                 in order to protect the integrity of the user's data, such direct access \
                 is not allowed (use DmWrite)",
                self.size, self.address
            ),
            FaultKind::LowMemoryWrite => write!(
                f,
                "write of {} byte(s) to 0x{:08X}, which is in low memory (vectors and OS globals)",
                self.size, self.address
            ),
            FaultKind::RomWrite => write!(
                f,
                "write of {} byte(s) to 0x{:08X}, which is in ROM",
                self.size, self.address
            ),
            FaultKind::Misaligned => write!(
                f,
                "{verb} of {} bytes at odd address 0x{:08X}",
                self.size, self.address
            ),
            FaultKind::Execute => write!(
                f,
                "instruction fetch at 0x{:08X}, which is in low memory (no code runs there)",
                self.address
            ),
            FaultKind::StackGuard => write!(
                f,
                "write of {} byte(s) to 0x{:08X}, just below the app's stack chunk",
                self.size, self.address
            ),
        }
    }
}

/// The emulated memory: the bytes ([`AddressSpace`], which `Memory`
/// dereferences to) and the heaps' indexes ([`crate::heap`]).
pub struct Memory {
    pub(crate) space: AddressSpace,
    pub(crate) heaps: RefCell<Vec<crate::heap::HeapIndex>>,
}

impl Memory {
    /// RAM of `ram_size` bytes whose first `storage_start` bytes (low memory
    /// and the dynamic heap) are writable by 68k code, and an empty ROM.
    pub fn new(ram_size: u32, storage_start: u32) -> Memory {
        let words = (ram_size as usize >> DIRTY_SHIFT) / 64 + 1;
        Memory {
            space: AddressSpace {
                ram: vec![0; ram_size as usize],
                rom: vec![0; ROM_SIZE as usize],
                storage_start,
                storage_unlocked: false,
                last_fault: None,
                dirty: vec![Cell::new(0); words],
                dirty_list: RefCell::new(Vec::new()),
                stack_guard: None,
                guard_saved: None,
            },
            heaps: RefCell::new(Vec::new()),
        }
    }
}

impl Deref for Memory {
    type Target = AddressSpace;
    fn deref(&self) -> &AddressSpace {
        &self.space
    }
}

impl DerefMut for Memory {
    fn deref_mut(&mut self) -> &mut AddressSpace {
        &mut self.space
    }
}

/// The emulated RAM and ROM, with the protection rules of the memory map and
/// the dirty-block record of RAM writes.
pub struct AddressSpace {
    ram: Vec<u8>,
    rom: Vec<u8>,
    storage_start: u32,
    storage_unlocked: bool,
    last_fault: Option<Fault>,
    /// One bit per block: recorded in `dirty_list` and not yet taken.
    dirty: Vec<Cell<u64>>,
    /// Written block ranges `[first, last]` not yet taken.
    dirty_list: RefCell<Vec<(u32, u32)>>,
    stack_guard: Option<(u32, u32)>,
    guard_saved: Option<(u32, Vec<u8>)>,
}

impl AddressSpace {
    /// Mark the blocks of `len` bytes at RAM offset `off` written. A write
    /// within two blocks is recorded once per block until taken (68k code
    /// writes the same stack blocks over and over); a longer one as a run.
    #[inline(always)]
    fn mark(&mut self, off: usize, len: usize) {
        let first = (off >> DIRTY_SHIFT) as u32;
        let last = ((off + len.max(1) - 1) >> DIRTY_SHIFT) as u32;
        if last - first > 1 {
            self.dirty_list.get_mut().push((first, last));
            return;
        }
        for b in first..=last {
            let w = &self.dirty[(b >> 6) as usize];
            let bit = 1u64 << (b & 63);
            if w.get() & bit == 0 {
                w.set(w.get() | bit);
                self.dirty_list.get_mut().push((b, b));
            }
        }
    }

    /// Take the RAM written since the last call, as address ranges
    /// `[start, end)` of whole [`DIRTY_BLOCK`]-byte blocks.
    pub fn take_dirty(&self) -> Vec<(u32, u32)> {
        let list = std::mem::take(&mut *self.dirty_list.borrow_mut());
        list.into_iter()
            .map(|(first, last)| {
                if first == last {
                    let w = &self.dirty[(first >> 6) as usize];
                    w.set(w.get() & !(1u64 << (first & 63)));
                }
                (first << DIRTY_SHIFT, (last + 1) << DIRTY_SHIFT)
            })
            .collect()
    }

    /// Whether RAM was written since the last [`AddressSpace::take_dirty`].
    pub fn has_dirty(&self) -> bool {
        !self.dirty_list.borrow().is_empty()
    }

    /// Refuse 68k writes to `[lo, hi)` (the bytes under the app's stack) as
    /// [`FaultKind::StackGuard`], or stop refusing (`None`).
    pub fn set_stack_guard(&mut self, guard: Option<(u32, u32)>) {
        self.stack_guard = guard.filter(|(lo, hi)| lo < hi);
        self.guard_saved = None;
    }

    /// The guarded range, if any.
    pub fn stack_guard(&self) -> Option<(u32, u32)> {
        self.stack_guard
    }

    /// After a [`FaultKind::StackGuard`] fault the guard is lifted so that
    /// the CPU can write its exception frame; this puts back the guarded
    /// bytes as they were before the fault (the frame may have landed on
    /// them). Returns whether there was anything to restore.
    pub fn restore_guarded(&mut self) -> bool {
        match self.guard_saved.take() {
            Some((lo, bytes)) => {
                let off = lo as usize;
                self.ram[off..off + bytes.len()].copy_from_slice(&bytes);
                self.mark(off, bytes.len());
                true
            }
            None => false,
        }
    }

    /// Size of RAM in bytes.
    pub fn ram_size(&self) -> u32 {
        self.ram.len() as u32
    }

    /// First address of the write-protected storage area.
    pub fn storage_start(&self) -> u32 {
        self.storage_start
    }

    /// Allow (true) or forbid (false) 68k writes to storage: the effect of
    /// holding the Memory Manager semaphore with write access
    /// (MemSemaphoreReserve(true)), which on a device lifts the write protection.
    pub fn set_storage_unlocked(&mut self, unlocked: bool) {
        self.storage_unlocked = unlocked;
    }

    /// The last fault the CPU raised through the bus (cleared by [`AddressSpace::take_fault`]).
    pub fn take_fault(&mut self) -> Option<Fault> {
        self.last_fault.take()
    }

    fn locate(&self, address: u32, len: u32) -> Option<(bool, usize)> {
        let end = address.checked_add(len)?;
        if end <= self.ram.len() as u32 {
            Some((true, address as usize))
        } else if address >= ROM_BASE && end <= ROM_BASE + ROM_SIZE {
            Some((false, (address - ROM_BASE) as usize))
        } else {
            None
        }
    }

    /// Check an access of `len` bytes; `word` marks a word/long access, which
    /// must be at an even address (byte blocks need not be).
    fn check(
        &self,
        address: u32,
        len: u32,
        write: bool,
        os: bool,
        word: bool,
    ) -> Result<(bool, usize), Fault> {
        let fault = |kind| Fault {
            address,
            size: len,
            write,
            kind,
        };
        if word && address & 1 != 0 {
            return Err(fault(FaultKind::Misaligned));
        }
        let (ram, off) = self
            .locate(address, len)
            .ok_or(fault(FaultKind::Unmapped))?;
        if write {
            if !ram {
                return Err(fault(FaultKind::RomWrite));
            }
            if !os {
                if address < LOW_MEMORY_END {
                    return Err(fault(FaultKind::LowMemoryWrite));
                }
                if address.saturating_add(len) > self.storage_start && !self.storage_unlocked {
                    return Err(fault(FaultKind::StorageWrite));
                }
            }
        }
        Ok((ram, off))
    }

    fn bytes(&self, ram: bool, off: usize, len: usize) -> &[u8] {
        if ram {
            &self.ram[off..off + len]
        } else {
            &self.rom[off..off + len]
        }
    }

    fn read_n<const N: usize>(&self, address: u32) -> Result<[u8; N], Fault> {
        let (ram, off) = self.check(address, N as u32, false, true, N > 1)?;
        let mut b = [0; N];
        b.copy_from_slice(self.bytes(ram, off, N));
        Ok(b)
    }

    fn write_n(&mut self, address: u32, data: &[u8], os: bool, word: bool) -> Result<(), Fault> {
        let (ram, off) = self.check(address, data.len() as u32, true, os, word)?;
        debug_assert!(ram);
        self.ram[off..off + data.len()].copy_from_slice(data);
        self.mark(off, data.len());
        Ok(())
    }

    /// Read a byte.
    pub fn read_u8(&self, address: u32) -> Result<u8, Fault> {
        Ok(self.read_n::<1>(address)?[0])
    }

    /// Read a big-endian word (address must be even).
    pub fn read_u16(&self, address: u32) -> Result<u16, Fault> {
        Ok(u16::from_be_bytes(self.read_n(address)?))
    }

    /// Read a big-endian long (address must be even).
    pub fn read_u32(&self, address: u32) -> Result<u32, Fault> {
        Ok(u32::from_be_bytes(self.read_n(address)?))
    }

    /// Read `len` bytes.
    pub fn read_bytes(&self, address: u32, len: u32) -> Result<Vec<u8>, Fault> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let (ram, off) = self.check(address, len, false, true, false)?;
        Ok(self.bytes(ram, off, len as usize).to_vec())
    }

    /// Read a NUL-terminated string of at most `max` bytes (without the NUL).
    pub fn read_cstr(&self, address: u32, max: u32) -> Result<Vec<u8>, Fault> {
        let mut out = Vec::new();
        for i in 0..max {
            let b = self.read_u8(address.wrapping_add(i))?;
            if b == 0 {
                return Ok(out);
            }
            out.push(b);
        }
        Ok(out)
    }

    /// Write a byte with the 68k protection rules (for pointers the app passed in).
    pub fn write_u8(&mut self, address: u32, v: u8) -> Result<(), Fault> {
        self.write_n(address, &[v], false, false)
    }

    /// Write a big-endian word with the 68k protection rules.
    pub fn write_u16(&mut self, address: u32, v: u16) -> Result<(), Fault> {
        self.write_n(address, &v.to_be_bytes(), false, true)
    }

    /// Write a big-endian long with the 68k protection rules.
    pub fn write_u32(&mut self, address: u32, v: u32) -> Result<(), Fault> {
        self.write_n(address, &v.to_be_bytes(), false, true)
    }

    /// Write bytes with the 68k protection rules.
    pub fn write_bytes(&mut self, address: u32, data: &[u8]) -> Result<(), Fault> {
        if data.is_empty() {
            return Ok(());
        }
        self.write_n(address, data, false, false)
    }

    /// Write a byte as the OS (storage and low memory allowed, ROM not).
    pub fn os_write_u8(&mut self, address: u32, v: u8) -> Result<(), Fault> {
        self.write_n(address, &[v], true, false)
    }

    /// Write a big-endian word as the OS.
    pub fn os_write_u16(&mut self, address: u32, v: u16) -> Result<(), Fault> {
        self.write_n(address, &v.to_be_bytes(), true, true)
    }

    /// Write a big-endian long as the OS.
    pub fn os_write_u32(&mut self, address: u32, v: u32) -> Result<(), Fault> {
        self.write_n(address, &v.to_be_bytes(), true, true)
    }

    /// Write bytes as the OS.
    pub fn os_write_bytes(&mut self, address: u32, data: &[u8]) -> Result<(), Fault> {
        if data.is_empty() {
            return Ok(());
        }
        self.write_n(address, data, true, false)
    }

    /// Fill `len` bytes with `value` with the 68k protection rules.
    pub fn fill(&mut self, address: u32, len: u32, value: u8) -> Result<(), Fault> {
        if len == 0 {
            return Ok(());
        }
        let (_, off) = self.check(address, len, true, false, false)?;
        self.ram[off..off + len as usize].fill(value);
        self.mark(off, len as usize);
        Ok(())
    }

    /// Fill `len` bytes with `value` as the OS.
    pub fn os_fill(&mut self, address: u32, len: u32, value: u8) -> Result<(), Fault> {
        if len == 0 {
            return Ok(());
        }
        let (_, off) = self.check(address, len, true, true, false)?;
        self.ram[off..off + len as usize].fill(value);
        self.mark(off, len as usize);
        Ok(())
    }

    /// Move `len` bytes from `src` to `dst` as the OS (overlap allowed).
    pub fn os_move(&mut self, dst: u32, src: u32, len: u32) -> Result<(), Fault> {
        if len == 0 {
            return Ok(());
        }
        let (sram, soff) = self.check(src, len, false, true, false)?;
        let (_, doff) = self.check(dst, len, true, true, false)?;
        if sram {
            self.ram.copy_within(soff..soff + len as usize, doff);
        } else {
            let data = self.rom[soff..soff + len as usize].to_vec();
            self.ram[doff..doff + len as usize].copy_from_slice(&data);
        }
        self.mark(doff, len as usize);
        Ok(())
    }

    /// Store a word in ROM (used only while building the ROM image).
    pub(crate) fn rom_write_u16(&mut self, address: u32, v: u16) {
        let off = (address - ROM_BASE) as usize;
        self.rom[off..off + 2].copy_from_slice(&v.to_be_bytes());
    }

    fn cpu_read<const N: usize>(&mut self, address: u32) -> Result<[u8; N], BusFault> {
        // The CPU raises the address error itself for odd word/long accesses.
        match self.locate(address, N as u32) {
            Some((ram, off)) => {
                let mut b = [0; N];
                b.copy_from_slice(self.bytes(ram, off, N));
                Ok(b)
            }
            None => Err(self.bus_fault(Fault {
                address,
                size: N as u32,
                write: false,
                kind: FaultKind::Unmapped,
            })),
        }
    }

    #[inline(always)]
    fn cpu_write(&mut self, address: u32, data: &[u8]) -> Result<(), BusFault> {
        let len = data.len() as u32;
        if let Some((lo, hi)) = self.stack_guard
            && address < hi
            && address.wrapping_add(len) > lo
        {
            return Err(self.guard_fault(address, len));
        }
        // The dynamic heap: plain RAM.
        if address >= LOW_MEMORY_END
            && address < self.storage_start
            && self.storage_start - address >= len
        {
            let off = address as usize;
            self.ram[off..off + data.len()].copy_from_slice(data);
            self.mark(off, data.len());
            return Ok(());
        }
        match self.check(address, len, true, false, false) {
            Ok((_, off)) => {
                self.ram[off..off + data.len()].copy_from_slice(data);
                self.mark(off, data.len());
                Ok(())
            }
            Err(f) => Err(self.bus_fault(f)),
        }
    }

    /// A write into the stack guard: save the guarded bytes, lift the guard
    /// (the exception frame must be written, possibly there) and fault.
    #[cold]
    fn guard_fault(&mut self, address: u32, len: u32) -> BusFault {
        if let Some((lo, hi)) = self.stack_guard.take() {
            let bytes = self.ram[lo as usize..hi as usize].to_vec();
            self.guard_saved = Some((lo, bytes));
        }
        self.bus_fault(Fault {
            address,
            size: len,
            write: true,
            kind: FaultKind::StackGuard,
        })
    }

    fn cpu_fetch<const N: usize>(&mut self, address: u32) -> Result<[u8; N], BusFault> {
        if address < LOW_MEMORY_END {
            return Err(self.bus_fault(Fault {
                address,
                size: N as u32,
                write: false,
                kind: FaultKind::Execute,
            }));
        }
        self.cpu_read(address)
    }

    fn bus_fault(&mut self, f: Fault) -> BusFault {
        self.last_fault = Some(f);
        BusFault {
            kind: BusFaultKind::BusError,
            address: f.address,
        }
    }
}

impl AddressBus for Memory {
    fn read_immediate_word(&mut self, address: u32) -> u16 {
        self.try_read_immediate_word(address).unwrap_or(0)
    }
    fn read_immediate_long(&mut self, address: u32) -> u32 {
        self.try_read_immediate_long(address).unwrap_or(0)
    }
    fn try_read_immediate_word(&mut self, address: u32) -> Result<u16, BusFault> {
        Ok(u16::from_be_bytes(self.space.cpu_fetch(address)?))
    }
    fn try_read_immediate_long(&mut self, address: u32) -> Result<u32, BusFault> {
        Ok(u32::from_be_bytes(self.space.cpu_fetch(address)?))
    }
    fn read_byte(&mut self, address: u32) -> u8 {
        self.try_read_byte(address).unwrap_or(0)
    }
    fn read_word(&mut self, address: u32) -> u16 {
        self.try_read_word(address).unwrap_or(0)
    }
    fn read_long(&mut self, address: u32) -> u32 {
        self.try_read_long(address).unwrap_or(0)
    }
    fn write_byte(&mut self, address: u32, value: u8) {
        let _ = self.try_write_byte(address, value);
    }
    fn write_word(&mut self, address: u32, value: u16) {
        let _ = self.try_write_word(address, value);
    }
    fn write_long(&mut self, address: u32, value: u32) {
        let _ = self.try_write_long(address, value);
    }
    fn try_read_byte(&mut self, address: u32) -> Result<u8, BusFault> {
        Ok(self.space.cpu_read::<1>(address)?[0])
    }
    fn try_read_word(&mut self, address: u32) -> Result<u16, BusFault> {
        Ok(u16::from_be_bytes(self.space.cpu_read(address)?))
    }
    fn try_read_long(&mut self, address: u32) -> Result<u32, BusFault> {
        Ok(u32::from_be_bytes(self.space.cpu_read(address)?))
    }
    fn try_write_byte(&mut self, address: u32, value: u8) -> Result<(), BusFault> {
        self.space.cpu_write(address, &[value])
    }
    fn try_write_word(&mut self, address: u32, value: u16) -> Result<(), BusFault> {
        self.space.cpu_write(address, &value.to_be_bytes())
    }
    fn try_write_long(&mut self, address: u32, value: u32) -> Result<(), BusFault> {
        self.space.cpu_write(address, &value.to_be_bytes())
    }
    fn wants_batch_boundaries(&mut self) -> bool {
        false
    }
    fn fast_mem(&mut self) -> Option<FastMem> {
        // No writable window: every 68k write goes through the bus, which
        // records it (dirty blocks) and applies the protection rules.
        None
    }
    fn fast_mem_regions(&mut self) -> [Option<FastMemRegion>; MAX_FAST_MEM_REGIONS] {
        // The dynamic heap (first: stack reads are the most frequent data
        // accesses, and code runs from the fast regions anyway), storage
        // (where code 1 runs) and ROM: direct reads and fetches; writes
        // through the bus. Low memory is left out
        // so that its reads go through the bus and an instruction fetch there
        // faults (see `cpu_fetch`).
        let s = &mut self.space;
        let mut r = [None; MAX_FAST_MEM_REGIONS];
        let ram_len = s.ram.len() as u32;
        let storage = s.storage_start;
        if ram_len > storage {
            r[1] = Some(FastMemRegion {
                ptr: s.ram[storage as usize..].as_mut_ptr(),
                base: storage,
                len: ram_len - storage,
                writable: false,
            });
        }
        r[0] = Some(FastMemRegion {
            ptr: s.ram[LOW_MEMORY_END as usize..].as_mut_ptr(),
            base: LOW_MEMORY_END,
            len: storage - LOW_MEMORY_END,
            writable: false,
        });
        r[2] = Some(FastMemRegion {
            ptr: s.rom.as_mut_ptr(),
            base: ROM_BASE,
            len: ROM_SIZE,
            writable: false,
        });
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protection_rules() {
        let mut m = Memory::new(0x10000, 0x8000);
        assert_eq!(m.write_u16(0x2000, 0xBEEF), Ok(()));
        assert_eq!(m.read_u16(0x2000), Ok(0xBEEF));
        let e = m.write_u8(0x8000, 1).unwrap_err();
        assert_eq!(e.kind, FaultKind::StorageWrite);
        assert_eq!(m.os_write_u8(0x8000, 1), Ok(()));
        assert_eq!(
            m.write_u32(0x100, 1).unwrap_err().kind,
            FaultKind::LowMemoryWrite
        );
        assert_eq!(m.read_u16(0x2001).unwrap_err().kind, FaultKind::Misaligned);
        // Byte blocks may start anywhere, whatever their length.
        assert_eq!(m.write_bytes(0x2001, &[1, 2]), Ok(()));
        assert_eq!(m.read_bytes(0x2001, 4).unwrap(), [1, 2, 0, 0]);
        assert_eq!(m.read_u8(0x10000).unwrap_err().kind, FaultKind::Unmapped);
        assert_eq!(
            m.os_write_u8(ROM_BASE, 0).unwrap_err().kind,
            FaultKind::RomWrite
        );
        // A write straddling into storage is refused.
        assert_eq!(
            m.write_u32(0x7FFE, 0).unwrap_err().kind,
            FaultKind::StorageWrite
        );
    }

    #[test]
    fn cpu_bus_records_fault() {
        let mut m = Memory::new(0x10000, 0x8000);
        assert!(m.try_write_word(0x9000, 7).is_err());
        let f = m.take_fault().unwrap();
        assert_eq!(
            (f.address, f.kind, f.write),
            (0x9000, FaultKind::StorageWrite, true)
        );
        assert_eq!(
            m.try_read_long(0x2000_0000).map_err(|e| e.address),
            Err(0x2000_0000)
        );
    }
}
