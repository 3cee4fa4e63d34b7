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
        }
    }
}

/// The emulated RAM and ROM, with the protection rules of the memory map.
pub struct Memory {
    ram: Vec<u8>,
    rom: Vec<u8>,
    storage_start: u32,
    storage_unlocked: bool,
    last_fault: Option<Fault>,
}

impl Memory {
    /// RAM of `ram_size` bytes whose first `storage_start` bytes (low memory
    /// and the dynamic heap) are writable by 68k code, and an empty ROM.
    pub fn new(ram_size: u32, storage_start: u32) -> Memory {
        Memory {
            ram: vec![0; ram_size as usize],
            rom: vec![0; ROM_SIZE as usize],
            storage_start,
            storage_unlocked: false,
            last_fault: None,
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

    /// The last fault the CPU raised through the bus (cleared by [`Memory::take_fault`]).
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
        Ok(())
    }

    /// Fill `len` bytes with `value` as the OS.
    pub fn os_fill(&mut self, address: u32, len: u32, value: u8) -> Result<(), Fault> {
        if len == 0 {
            return Ok(());
        }
        let (_, off) = self.check(address, len, true, true, false)?;
        self.ram[off..off + len as usize].fill(value);
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

    fn cpu_write(&mut self, address: u32, data: &[u8]) -> Result<(), BusFault> {
        match self.check(address, data.len() as u32, true, false, false) {
            Ok((_, off)) => {
                self.ram[off..off + data.len()].copy_from_slice(data);
                Ok(())
            }
            Err(f) => Err(self.bus_fault(f)),
        }
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
        Ok(self.cpu_read::<1>(address)?[0])
    }
    fn try_read_word(&mut self, address: u32) -> Result<u16, BusFault> {
        Ok(u16::from_be_bytes(self.cpu_read(address)?))
    }
    fn try_read_long(&mut self, address: u32) -> Result<u32, BusFault> {
        Ok(u32::from_be_bytes(self.cpu_read(address)?))
    }
    fn try_write_byte(&mut self, address: u32, value: u8) -> Result<(), BusFault> {
        self.cpu_write(address, &[value])
    }
    fn try_write_word(&mut self, address: u32, value: u16) -> Result<(), BusFault> {
        self.cpu_write(address, &value.to_be_bytes())
    }
    fn try_write_long(&mut self, address: u32, value: u32) -> Result<(), BusFault> {
        self.cpu_write(address, &value.to_be_bytes())
    }
    fn wants_batch_boundaries(&mut self) -> bool {
        false
    }
    fn fast_mem(&mut self) -> Option<FastMem> {
        // The dynamic heap: plain RAM, writable.
        Some(FastMem {
            ptr: self.ram[LOW_MEMORY_END as usize..].as_mut_ptr(),
            base: LOW_MEMORY_END,
            len: self.storage_start - LOW_MEMORY_END,
        })
    }
    fn fast_mem_regions(&mut self) -> [Option<FastMemRegion>; MAX_FAST_MEM_REGIONS] {
        // Low memory, storage and ROM: direct reads, writes through the bus
        // (which reports them).
        let mut r = [None; MAX_FAST_MEM_REGIONS];
        let ram_len = self.ram.len() as u32;
        let base = self.ram.as_mut_ptr();
        r[0] = Some(FastMemRegion {
            ptr: base,
            base: 0,
            len: LOW_MEMORY_END,
            writable: false,
        });
        if ram_len > self.storage_start {
            r[1] = Some(FastMemRegion {
                ptr: self.ram[self.storage_start as usize..].as_mut_ptr(),
                base: self.storage_start,
                len: ram_len - self.storage_start,
                writable: false,
            });
        }
        r[2] = Some(FastMemRegion {
            ptr: self.rom.as_mut_ptr(),
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
