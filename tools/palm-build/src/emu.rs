//! A minimal 68000 harness for running functions of a built [`Image`](crate::Image)
//! in tests: load the image at any address, call a function with
//! LLVM-convention arguments, service `TRAP #15` with a closure.
//!
//! This is not Palm OS (that is `palm-run`); it is the smallest machine that
//! can answer "does this 68000 code compute what the host computes?", for the
//! differential corpus and the trap-glue tests.
//!
//! Machine: the `m68k` crate as `CpuType::M68000` with a 32-bit address mask
//! (DragonBall CPUs drive 32 address lines), flat RAM from address 0, and
//! every exception vector pointing at its own sentinel address, so an address
//! error, a bus error (any access beyond RAM) or an illegal instruction stops
//! the call with [`EmuError`] instead of running wild.

use m68k::core::memory::{BusFault, BusFaultKind};
use m68k::{AddressBus, BatchExit, CpuCore, CpuType};

/// First sentinel address: exception vector `v` points at `VECTOR_SENTINELS + 2 * v`.
const VECTOR_SENTINELS: u32 = 0x400;
/// Exception vectors that stop a call (bus error … TRAP #15, privilege, line A/F).
const WATCHED_VECTORS: [u32; 11] = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 47];
/// The return address pushed for [`Emu::call`]: reaching it ends the call.
pub const RETURN_SENTINEL: u32 = 0x600;
/// Lowest address free for images, stacks and data (below: vectors and sentinels).
pub const FIRST_FREE: u32 = 0x1000;

/// Flat RAM from address 0; accesses at or beyond its end are bus errors.
#[derive(Clone, Debug)]
pub struct Ram {
    bytes: Vec<u8>,
}

impl Ram {
    /// Bytes of RAM.
    pub fn len(&self) -> u32 {
        self.bytes.len() as u32
    }

    /// Whether the RAM is empty (never, for a usable machine).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// `len` bytes at `addr`.
    ///
    /// # Panics
    /// The range is outside RAM (a test bug).
    pub fn slice(&self, addr: u32, len: u32) -> &[u8] {
        &self.bytes[addr as usize..(addr + len) as usize]
    }

    /// Mutable `len` bytes at `addr`.
    ///
    /// # Panics
    /// The range is outside RAM (a test bug).
    pub fn slice_mut(&mut self, addr: u32, len: u32) -> &mut [u8] {
        &mut self.bytes[addr as usize..(addr + len) as usize]
    }

    /// Big-endian 16-bit value at `addr`.
    pub fn word(&self, addr: u32) -> u16 {
        u16::from_be_bytes([self.bytes[addr as usize], self.bytes[addr as usize + 1]])
    }

    /// Big-endian 32-bit value at `addr`.
    pub fn long(&self, addr: u32) -> u32 {
        u32::from_be_bytes(self.slice(addr, 4).try_into().unwrap_or([0; 4]))
    }

    /// Stores a big-endian 32-bit value at `addr`.
    pub fn set_long(&mut self, addr: u32, value: u32) {
        self.slice_mut(addr, 4)
            .copy_from_slice(&value.to_be_bytes());
    }

    fn check(&self, addr: u32, n: u32) -> Result<usize, BusFault> {
        let end = u64::from(addr) + u64::from(n);
        if end <= self.bytes.len() as u64 {
            Ok(addr as usize)
        } else {
            Err(BusFault {
                kind: BusFaultKind::BusError,
                address: addr,
            })
        }
    }
}

impl AddressBus for Ram {
    fn read_byte(&mut self, address: u32) -> u8 {
        self.try_read_byte(address).unwrap_or(0xFF)
    }
    fn read_word(&mut self, address: u32) -> u16 {
        self.try_read_word(address).unwrap_or(0xFFFF)
    }
    fn read_long(&mut self, address: u32) -> u32 {
        self.try_read_long(address).unwrap_or(0xFFFF_FFFF)
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
        Ok(self.bytes[self.check(address, 1)?])
    }
    fn try_read_word(&mut self, address: u32) -> Result<u16, BusFault> {
        let i = self.check(address, 2)?;
        Ok(u16::from_be_bytes([self.bytes[i], self.bytes[i + 1]]))
    }
    fn try_read_long(&mut self, address: u32) -> Result<u32, BusFault> {
        let i = self.check(address, 4)?;
        let mut b = [0u8; 4];
        b.copy_from_slice(&self.bytes[i..i + 4]);
        Ok(u32::from_be_bytes(b))
    }
    fn try_write_byte(&mut self, address: u32, value: u8) -> Result<(), BusFault> {
        let i = self.check(address, 1)?;
        self.bytes[i] = value;
        Ok(())
    }
    fn try_write_word(&mut self, address: u32, value: u16) -> Result<(), BusFault> {
        let i = self.check(address, 2)?;
        self.bytes[i..i + 2].copy_from_slice(&value.to_be_bytes());
        Ok(())
    }
    fn try_write_long(&mut self, address: u32, value: u32) -> Result<(), BusFault> {
        let i = self.check(address, 4)?;
        self.bytes[i..i + 4].copy_from_slice(&value.to_be_bytes());
        Ok(())
    }
}

/// Why a call did not return normally.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmuError {
    /// The CPU took an exception (address error, bus error, illegal
    /// instruction, …). `pc` is the instruction that faulted.
    #[error("exception vector {vector} ({name}) at pc 0x{pc:06x}")]
    Exception {
        /// Exception vector number.
        vector: u32,
        /// Its name.
        name: &'static str,
        /// Address of the faulting instruction (from the exception frame when known).
        pc: u32,
    },
    /// A `TRAP #n` other than 15, a breakpoint or a line-A/F opcode reached the harness.
    #[error("unexpected {what} at pc 0x{pc:06x}")]
    Unexpected {
        /// What happened.
        what: String,
        /// Where.
        pc: u32,
    },
    /// The trap handler refused the trap.
    #[error("trap 0x{trap:04x} at pc 0x{pc:06x}: {message}")]
    Trap {
        /// The trap word.
        trap: u16,
        /// Address of the `TRAP #15`.
        pc: u32,
        /// The handler's message.
        message: String,
    },
    /// The instruction budget ran out: the call never returned within it
    /// (an endless loop?).
    #[error("never returned: {0} instructions ran without a return to the caller")]
    Timeout(u64),
}

/// A `TRAP #15` being serviced: the trap word, and access to registers and RAM.
/// Arguments are on the stack in Palm layout, the first at [`TrapCall::sp`].
pub struct TrapCall<'a> {
    /// The 16-bit trap word after `TRAP #15` (0xAxxx).
    pub trap: u16,
    /// Address of the `TRAP #15` instruction.
    pub pc: u32,
    /// The CPU (read registers; set D0/A0 results with `set_d`/`set_a`).
    pub cpu: &'a mut CpuCore,
    /// The machine's RAM.
    pub ram: &'a mut Ram,
}

impl TrapCall<'_> {
    /// The stack pointer at the trap: the address of the first argument.
    pub fn sp(&self) -> u32 {
        self.cpu.a(7)
    }
    /// The 32-bit argument at byte offset `off` from [`TrapCall::sp`].
    pub fn arg_long(&self, off: u32) -> u32 {
        self.ram.long(self.sp() + off)
    }
    /// The 16-bit argument at byte offset `off` from [`TrapCall::sp`].
    pub fn arg_word(&self, off: u32) -> u16 {
        self.ram.word(self.sp() + off)
    }
}

/// Result of a completed [`Emu::call`]. LLVM's m68k C convention returns
/// integers up to 32 bits in D0, pointers in A0, and a 64-bit integer in
/// D0:D1 with the **high** 32 bits in D0 (measured: the differential corpus's
/// `c_u64_return`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallResult {
    /// D0 at return: an integer result, or the high 32 bits of a 64-bit one.
    pub d0: u32,
    /// D1 at return: the low 32 bits of a 64-bit result.
    pub d1: u32,
    /// A0 at return (pointer results).
    pub a0: u32,
    /// 68k instructions executed by the call (traps not included).
    pub instructions: u64,
}

/// The 68000 machine.
pub struct Emu {
    /// The CPU.
    pub cpu: CpuCore,
    /// Its RAM.
    pub ram: Ram,
    /// Initial stack pointer for each call (the stack grows down from here).
    pub stack_top: u32,
}

impl Emu {
    /// A machine with `ram_bytes` of RAM (at least 64 KiB); the stack starts
    /// at the top of RAM.
    pub fn new(ram_bytes: u32) -> Emu {
        let ram_bytes = ram_bytes.max(0x1_0000) & !1;
        let mut ram = Ram {
            bytes: vec![0; ram_bytes as usize],
        };
        for v in 2..256u32 {
            ram.set_long(v * 4, VECTOR_SENTINELS + 2 * v.min(255));
        }
        ram.set_long(0, ram_bytes);
        ram.set_long(4, RETURN_SENTINEL);
        let mut cpu = CpuCore::new();
        cpu.set_cpu_type(CpuType::M68000);
        cpu.address_mask = 0xFFFF_FFFF;
        cpu.reset(&mut ram);
        Emu {
            cpu,
            ram,
            stack_top: ram_bytes,
        }
    }

    /// Copies `bytes` to `addr`.
    ///
    /// # Panics
    /// The range is outside RAM.
    pub fn load(&mut self, addr: u32, bytes: &[u8]) {
        self.ram
            .slice_mut(addr, bytes.len() as u32)
            .copy_from_slice(bytes);
    }

    /// Calls the function at `addr` with `args` in LLVM's m68k C convention
    /// (each argument in a 4-byte stack slot, first argument lowest) and runs
    /// until it returns, servicing `TRAP #15` with `trap` (which sets results
    /// in D0/A0; the harness then resumes after the trap word). At most
    /// `max_instructions` instructions run: a call that has not returned by
    /// then is stopped and reported as [`EmuError::Timeout`] (choose the
    /// bound per call, a small multiple of what the call needs, so that a
    /// call that never returns costs little).
    ///
    /// # Errors
    /// [`EmuError`] for exceptions, unexpected traps, handler errors and timeouts.
    pub fn call(
        &mut self,
        addr: u32,
        args: &[u32],
        trap: &mut dyn FnMut(&mut TrapCall<'_>) -> Result<(), String>,
        max_instructions: u64,
    ) -> Result<CallResult, EmuError> {
        let mut sp = self.stack_top;
        for &arg in args.iter().rev() {
            sp -= 4;
            self.ram.set_long(sp, arg);
        }
        sp -= 4;
        self.ram.set_long(sp, RETURN_SENTINEL);
        self.cpu.set_a(7, sp);
        self.cpu.pc = addr;
        self.cpu.invalidate_prefetch();
        let mut watch = vec![RETURN_SENTINEL];
        watch.extend(WATCHED_VECTORS.iter().map(|v| VECTOR_SENTINELS + 2 * v));
        let mut executed = 0u64;
        loop {
            let budget = (max_instructions - executed).min(1_000_000) as u32;
            if budget == 0 {
                return Err(EmuError::Timeout(executed));
            }
            let r = self.cpu.run_batch(&mut self.ram, budget, &watch);
            executed += u64::from(r.instructions);
            match r.exit {
                BatchExit::WatchedPc { pc } if pc == RETURN_SENTINEL => {
                    return Ok(CallResult {
                        d0: self.cpu.d(0),
                        d1: self.cpu.d(1),
                        a0: self.cpu.a(0),
                        instructions: executed,
                    });
                }
                BatchExit::WatchedPc { pc } => {
                    let vector = (pc - VECTOR_SENTINELS) / 2;
                    return Err(EmuError::Exception {
                        vector,
                        name: vector_name(vector),
                        pc: self.fault_pc(vector),
                    });
                }
                BatchExit::TrapInstruction { trap_num: 15 } => {
                    let at = self.cpu.ppc;
                    let word = self.ram.word(self.cpu.pc);
                    let mut call = TrapCall {
                        trap: word,
                        pc: at,
                        cpu: &mut self.cpu,
                        ram: &mut self.ram,
                    };
                    trap(&mut call).map_err(|message| EmuError::Trap {
                        trap: word,
                        pc: at,
                        message,
                    })?;
                    self.cpu.pc += 2;
                    self.cpu.invalidate_prefetch();
                }
                BatchExit::BudgetExhausted | BatchExit::BoundaryRequested => {}
                other => {
                    return Err(EmuError::Unexpected {
                        what: format!("{other:?}"),
                        pc: self.cpu.ppc,
                    });
                }
            }
        }
    }

    /// The faulting PC from the exception frame the CPU just pushed.
    fn fault_pc(&self, vector: u32) -> u32 {
        let sp = self.cpu.a(7);
        match vector {
            // 68000 bus/address error frame: 14 bytes, PC at +10.
            2 | 3 => self.ram.long(sp + 10),
            // Group 1/2 frame: SR at +0, PC at +2.
            _ => self.ram.long(sp + 2),
        }
    }
}

fn vector_name(vector: u32) -> &'static str {
    match vector {
        2 => "bus error",
        3 => "address error",
        4 => "illegal instruction",
        5 => "division by zero",
        6 => "CHK",
        7 => "TRAPV",
        8 => "privilege violation",
        9 => "trace",
        10 => "line-A opcode",
        11 => "line-F opcode",
        47 => "TRAP #15 taken as an exception",
        _ => "exception",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_traps(_: &mut TrapCall<'_>) -> Result<(), String> {
        Err("no traps expected".into())
    }

    #[test]
    fn calls_and_returns_with_arguments() {
        let mut emu = Emu::new(0x10000);
        // move.l 4(sp),d0 ; add.l 8(sp),d0 ; rts
        emu.load(
            0x2000,
            &[0x20, 0x2f, 0x00, 0x04, 0xd0, 0xaf, 0x00, 0x08, 0x4e, 0x75],
        );
        let r = emu.call(0x2000, &[40, 2], &mut no_traps, 100).unwrap();
        assert_eq!(r.d0, 42);
        assert_eq!(r.instructions, 3);
    }

    #[test]
    fn reports_address_errors_and_bus_errors() {
        let mut emu = Emu::new(0x10000);
        // move.w (a0),d0 with a0 odd ; rts
        emu.load(0x2000, &[0x20, 0x6f, 0x00, 0x04, 0x30, 0x10, 0x4e, 0x75]);
        let err = emu.call(0x2000, &[0x3001], &mut no_traps, 100).unwrap_err();
        assert!(
            matches!(err, EmuError::Exception { vector: 3, .. }),
            "{err}"
        );
        let err = emu
            .call(0x2000, &[0x0100_0000], &mut no_traps, 100)
            .unwrap_err();
        assert!(
            matches!(err, EmuError::Exception { vector: 2, .. }),
            "{err}"
        );
    }

    #[test]
    fn services_trap_15_and_resumes_after_the_trap_word() {
        let mut emu = Emu::new(0x10000);
        // move.l #7,-(sp) ; trap #15 ; dc.w 0xA013 ; addq.l #4,sp ; move.l a0,d0 ; rts
        emu.load(
            0x2000,
            &[
                0x2f, 0x3c, 0, 0, 0, 7, 0x4e, 0x4f, 0xa0, 0x13, 0x58, 0x8f, 0x20, 0x08, 0x4e, 0x75,
            ],
        );
        let mut seen = Vec::new();
        let r = emu
            .call(
                0x2000,
                &[],
                &mut |t| {
                    seen.push((t.trap, t.arg_long(0)));
                    t.cpu.set_a(0, 0x1234);
                    Ok(())
                },
                100,
            )
            .unwrap();
        assert_eq!(seen, vec![(0xA013, 7)]);
        assert_eq!(r.d0, 0x1234);
    }

    #[test]
    fn timeouts_stop_endless_loops() {
        let mut emu = Emu::new(0x10000);
        emu.load(0x2000, &[0x60, 0xfe]); // bra.s *
        assert_eq!(
            emu.call(0x2000, &[], &mut no_traps, 1000),
            Err(EmuError::Timeout(1000))
        );
    }
}
