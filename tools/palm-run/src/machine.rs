//! The machine: the 68000 core, the address space, the ROM stubs, trap
//! dispatch through the dispatch table in emulated memory, native → 68k calls
//! (nested), fault reports, statistics and instruction profiling.
//!
//! How control reaches the OS (PALM_FACTS §3.1, §3.4):
//!
//! * `TRAP #15` + trap word: the dispatcher reads the trap's entry from the
//!   dispatch table at `*(0x0122)`. If the entry is still the ROM entry point
//!   of that trap, the native handler runs with the arguments at SP (no
//!   return address: the caller's own frame). Otherwise (an app patched it
//!   with SysSetTrapAddress) the return address (after the trap word) is
//!   pushed and the patch is entered with a plain JSR frame, as PumpkinOS
//!   and the `SYS_TRAP_FAST` form do.
//! * A JSR to a ROM entry point (a patch chaining to the saved original, the
//!   "fast" trap form, or the OS calling through the table): the ROM word is
//!   an A-line opcode; the native handler runs with the return address at SP
//!   and the arguments from SP+4, then returns like RTS.
//! * Native code calls 68k code (form event handlers, patched traps called
//!   from inside the OS) with [`Machine::call_68k`]: Palm-layout arguments,
//!   a return address pointing at the ROM return stub, and a nested run loop
//!   that ends when that stub is reached with the expected SP.
//!
//! Every exception vector points at a ROM stub; reaching one stops the app
//! with a report (bus error, address error, divide by zero, …).

use std::collections::VecDeque;
use std::io::Write;

use m68k::{BatchExit, CpuCore, CpuType};

use crate::memory::{Fault, Memory, ROM_BASE, SYS_DISPATCH_TABLE_P};
use crate::table::{self, ArgKind, RetKind, TrapInfo};

/// ROM address of the exception vector stubs (one 2-byte word per vector).
pub const ROM_VECTOR_STUBS: u32 = ROM_BASE;
/// ROM address of the return stub that ends a native → 68k call.
pub const ROM_RETURN_STUB: u32 = ROM_BASE + 0x0400;
/// ROM address of the trap entry points: entry for trap `0xAnnn` is at
/// `ROM_TRAP_ENTRIES + 2 × 0xnnn` and holds the trap word itself (an A-line
/// opcode, which the machine intercepts).
pub const ROM_TRAP_ENTRIES: u32 = ROM_BASE + 0x1000;
/// Number of trap dispatch table entries (system traps 0xA000–0xA7FF;
/// library traps start at `sysLibTrapBase` 0xA800, PALM_FACTS §3.1).
pub const DISPATCH_TABLE_ENTRIES: u32 = 0x800;
/// How many traps the fault report lists.
pub const TRAP_HISTORY: usize = 16;
/// 68k instructions per system tick for TimGetTicks (our deterministic model:
/// about 2 MIPS at 100 ticks per second).
pub const INSTRUCTIONS_PER_TICK: u64 = 20_000;

/// The ROM entry point of trap `trap` (0xA000–0xA7FF).
pub fn rom_entry(trap: u16) -> u32 {
    ROM_TRAP_ENTRIES + 2 * u32::from(trap & 0x0FFF)
}

/// What stopped the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopKind {
    /// A bus error: an access to unmapped memory, storage, low memory or ROM.
    BusError(Fault),
    /// A word or long access at an odd address (or an odd PC).
    AddressError {
        /// The access address.
        address: u32,
        /// True for a write.
        write: bool,
    },
    /// An exception other than bus/address error (vector number and name).
    Exception {
        /// Vector number.
        vector: u8,
        /// Its name (e.g. "divide by zero").
        name: &'static str,
    },
    /// An illegal instruction (including A-line/F-line words outside ROM).
    IllegalInstruction {
        /// The opcode.
        opcode: u16,
    },
    /// A TRAP #n other than #15 (Palm OS installs no handler for them),
    /// however it was reached: intercepted by the core or taken through its
    /// exception vector (32 + n).
    UnexpectedTrap {
        /// n.
        n: u8,
    },
    /// The CPU halted (double fault: an exception frame could not be written).
    DoubleFault,
    /// A trap that has no entry in the trap table, or one without a handler.
    UnknownTrap {
        /// The trap word.
        trap: u16,
        /// Its name from the trap table, if it has one.
        name: Option<&'static str>,
    },
    /// The instruction budget (`--max-instructions`) ran out.
    InstructionLimit(u64),
    /// The OS call budget (`--max-traps`) ran out.
    TrapLimit(u64),
    /// The wall-clock budget (`--timeout`) ran out.
    TimeLimit(std::time::Duration),
    /// Code jumped into low memory (`address` is where): through a NULL or
    /// garbage function pointer, or by returning to a clobbered address.
    JumpToLowMemory {
        /// The jump target.
        address: u32,
    },
    /// The app's stack pointer went below its stack chunk.
    StackOverflow {
        /// SP at the check.
        sp: u32,
        /// Lowest valid stack address.
        bottom: u32,
    },
    /// A debug-ROM check failed fatally (invalid free, heap corruption, …).
    DebugCheck(String),
    /// The event script asked for what the app does not have when the line
    /// was played (a `tap` or `menu` ID not in the active form or menu bar, a
    /// list item not shown): an error in the script, not in the app
    /// (`palm-run` exits 2 naming `SCRIPT:LINE`).
    Script {
        /// The script line, from 1.
        line: usize,
        /// What is missing.
        what: String,
    },
    /// SysFatalAlert / ErrDisplayFileLineMsg answered with "Reset".
    FatalAlert(String),
    /// The app did not exit after appStopEvent.
    NoExit,
    /// A native → 68k call returned with an unexpected stack pointer.
    StackMismatch {
        /// SP expected at the return stub.
        expected: u32,
        /// SP found.
        found: u32,
    },
}

/// The app was stopped: why, where, and what it was doing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// Why.
    pub kind: StopKind,
    /// 68k address of the instruction (or the trap call) that stopped it.
    pub pc: u32,
    /// 68k address of the caller when the stop happened inside an OS call.
    pub caller: Option<u32>,
}

impl std::fmt::Display for StopKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopKind::BusError(x) => write!(f, "bus error: {x}"),
            StopKind::AddressError { address, write } => write!(
                f,
                "address error: {} at odd address 0x{address:08X}",
                if *write { "write" } else { "read" }
            ),
            StopKind::Exception { vector, name } => write!(f, "exception {vector} ({name})"),
            StopKind::IllegalInstruction { opcode } => {
                write!(f, "illegal instruction 0x{opcode:04X}")
            }
            StopKind::UnexpectedTrap { n } => write!(f, "TRAP #{n} (no handler on Palm OS)"),
            StopKind::DoubleFault => write!(f, "double fault: the CPU halted"),
            StopKind::UnknownTrap { trap, name } => match name {
                Some(n) => write!(f, "unimplemented trap 0x{trap:04X} {n}"),
                None => write!(f, "unknown trap 0x{trap:04X} (not in the trap table)"),
            },
            StopKind::InstructionLimit(0) => {
                write!(f, "instruction limit of 0 reached: no instruction ran")
            }
            StopKind::InstructionLimit(n) => write!(f, "instruction limit of {n} reached"),
            StopKind::TrapLimit(n) => write!(f, "OS call limit of {n} reached"),
            StopKind::TimeLimit(d) if d.subsec_millis() == 0 => {
                write!(f, "time limit of {} s reached", d.as_secs())
            }
            StopKind::TimeLimit(d) => write!(f, "time limit of {} ms reached", d.as_millis()),
            StopKind::JumpToLowMemory { address: 0 } => {
                write!(f, "jump to address 0 (a NULL function pointer)")
            }
            StopKind::JumpToLowMemory { address } => write!(
                f,
                "jump to 0x{address:08X} in low memory (a NULL-based or garbage function pointer)"
            ),
            StopKind::StackOverflow { sp, bottom } => write!(
                f,
                "stack overflow: SP 0x{sp:08X} below the stack at 0x{bottom:08X}"
            ),
            StopKind::DebugCheck(m) => write!(f, "debug ROM check: {m}"),
            StopKind::Script { line, what } => write!(f, "event script line {line}: {what}"),
            StopKind::FatalAlert(m) => write!(f, "fatal alert (reset): {m}"),
            StopKind::NoExit => write!(f, "the app did not exit after appStopEvent"),
            StopKind::StackMismatch { expected, found } => write!(
                f,
                "68k callback returned with SP 0x{found:08X}, expected 0x{expected:08X}"
            ),
        }
    }
}

/// A decoded OS call: the trap, its arguments, and where it came from.
#[derive(Debug, Clone)]
pub struct Call {
    /// The trap word (0xAxxx).
    pub trap: u16,
    /// Its trap-table entry.
    pub info: &'static TrapInfo,
    /// Argument values in table order (U8 and U16 zero-extended).
    pub args: Vec<u32>,
    /// With [`Machine::opaque_handles`]: the arguments as the 68k caller
    /// passed them, before `args` got master pointers for its handles
    /// ([`crate::handles`]); otherwise empty.
    pub app_args: Vec<u32>,
    /// 68k address of the first argument.
    pub args_at: u32,
    /// 68k address of the call: the TRAP instruction, or for a JSR to a ROM
    /// entry point the return address.
    pub caller: u32,
}

impl Call {
    /// Argument `i` as a byte.
    pub fn u8(&self, i: usize) -> u8 {
        self.args[i] as u8
    }
    /// Argument `i` as a 16-bit value.
    pub fn u16(&self, i: usize) -> u16 {
        self.args[i] as u16
    }
    /// Argument `i` as a signed 16-bit value.
    pub fn i16(&self, i: usize) -> i16 {
        self.args[i] as u16 as i16
    }
    /// Argument `i` as a 32-bit value (or pointer).
    pub fn u32(&self, i: usize) -> u32 {
        self.args[i]
    }
    /// 68k address just past the fixed arguments (variadic arguments start here).
    pub fn varargs_at(&self) -> u32 {
        let fixed: u32 = self.info.args.iter().map(|a| arg_bytes(a.kind)).sum();
        self.args_at.wrapping_add(fixed)
    }
}

/// Stack bytes of an argument kind (PALM_FACTS §3.2).
pub fn arg_bytes(kind: ArgKind) -> u32 {
    match kind {
        ArgKind::U8 | ArgKind::U16 => 2,
        ArgKind::U32 | ArgKind::Ptr => 4,
    }
}

/// A native trap implementation: returns the value for D0 (or A0 for pointer
/// results, per the trap table).
pub type Handler = fn(&mut Machine, &Call) -> Result<u32, Stop>;

/// One trap call remembered for fault reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrapRecord {
    /// Trap word.
    pub trap: u16,
    /// Caller address (see [`Call::caller`]).
    pub caller: u32,
}

/// Counters of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// 68k instructions executed, all code.
    pub instructions: u64,
    /// Instructions executed at ROM addresses (entry stubs and the return stub).
    pub rom_instructions: u64,
    /// Dispatches through the trap dispatch table (TRAP #15 and OS-internal
    /// calls), per trap word.
    pub trap_calls: std::collections::BTreeMap<u16, u64>,
    /// Native handler runs per trap word.
    pub native_calls: std::collections::BTreeMap<u16, u64>,
    /// Native handler runs, all traps (what [`Machine::max_traps`] limits).
    pub os_calls: u64,
}

/// Exact instruction and OS-call counts inside 68k address ranges (enables
/// single-step execution while active).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// The ranges `[start, end)`.
    pub ranges: Vec<(u32, u32)>,
    /// Instructions executed with PC in each range.
    pub instructions: Vec<u64>,
    /// OS calls (trap dispatches and native entries) made from each range.
    pub os_calls: Vec<u64>,
}

impl Profile {
    fn range_of(&self, pc: u32) -> Option<usize> {
        self.ranges.iter().position(|&(s, e)| pc >= s && pc < e)
    }
}

/// Policy for alerts that would show a Reset button on a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertResponse {
    /// Record and continue (the debug ROM's "continue" choice). Default.
    Continue,
    /// Record and stop the app (the user pressed Reset).
    Reset,
}

/// The CPU, memory and trap dispatch. OS state lives in [`crate::os::Os`].
pub struct Machine {
    /// The 68000 core.
    pub cpu: CpuCore,
    /// The address space.
    pub mem: Memory,
    /// OS state (managers).
    pub os: crate::os::Os,
    /// Counters.
    pub stats: Stats,
    /// Instruction budget for the whole run.
    pub max_instructions: u64,
    /// OS call budget for the whole run (native handler runs, [`Stats::os_calls`]).
    pub max_traps: u64,
    /// Wall-clock budget of each launch (`None`: no limit). It cannot be
    /// defeated by slow OS calls; checked between batches of instructions
    /// and OS calls, at most every 10 ms or so of emulated work.
    pub time_limit: Option<std::time::Duration>,
    /// Print each OS call as it is made (`--trace-traps`).
    pub trace_traps: bool,
    /// Echo output lines to stdout/stderr as they are produced.
    pub echo: bool,
    /// How fatal alerts are answered.
    pub alert_response: AlertResponse,
    /// Whether failed debug-ROM checks of OS calls (invalid or double frees,
    /// unlocking an unlocked handle, DmWrite out of bounds, a busy record)
    /// stop the app, as a debug ROM's fatal alert does (default), or are
    /// reported in [`Machine::reports`] while the call returns the error code
    /// a release ROM returns.
    pub fatal_mem_errors: bool,
    /// Refuse SysSetTrapAddress with `sysErrNotAllowed`, as Palm OS 5 does
    /// for most traps (PALM_FACTS §3.4), so apps can test their fallback.
    pub refuse_trap_patches: bool,
    /// Handles are not master pointers (as PumpkinOS's): 68k code gets the
    /// address of a descriptor whose first long is not the chunk's address,
    /// and only MemHandleLock gives the pointer ([`crate::handles`]). Set it
    /// before the first launch.
    pub opaque_handles: bool,
    /// DmReleaseRecord (and DmReleaseResource of an unlocked resource) frees
    /// the record's buffer, as PumpkinOS does: a pointer kept from before is
    /// no longer the record's, the next MemHandleLock gives another one
    /// ([`crate::data_mgr::DmReleaseRecord`]).
    pub release_frees_records: bool,
    /// DmWrite, DmSet and DmStrCopy only into a record that is obtained as
    /// the SDK describes it: locked, busy (between DmGetRecord or DmNewRecord
    /// and DmReleaseRecord) and in a database open for writing
    /// ([`crate::data_mgr::DmWrite`]).
    pub strict_record_writes: bool,
    /// Print what is drawn (`Draw: form N`, `Draw: TEXT` a line) as it is
    /// recorded in [`crate::ui::Ui::drawn`] and `forms_drawn`: the CLI's
    /// `--show-drawing`.
    pub show_drawing: bool,
    /// At an app's exit, after code 1 is unlocked, move each of the app's
    /// unlocked code resources to another chunk of the storage heap (the
    /// resource stays the same: its handle follows) and fill the bytes it
    /// leaves with the ILLEGAL instruction (0x4AFC), as a device may move or
    /// reuse an unlocked resource once the app is gone (storage heap
    /// compaction, a card app's copy deleted at exit): a jump into the code of
    /// an app that has exited (a trap patch it left installed) stops at once
    /// instead of running stale code by luck. On by default; a resource with
    /// no room elsewhere stays where it is.
    pub move_code_at_exit: bool,
    /// Traps treated as not implemented (e.g. DbgMessage, which PumpkinOS
    /// does not implement for 68k apps): a call stops the app as an
    /// unimplemented trap does ([`StopKind::UnknownTrap`]).
    pub missing_traps: std::collections::BTreeSet<u16>,
    /// Everything the run printed (DbgMessage, alerts, reports), in order.
    pub output: Vec<String>,
    /// Debug-ROM reports (invalid frees, unlocks, storage writes, …).
    pub reports: Vec<String>,
    handlers: Vec<Option<Handler>>,
    history: VecDeque<TrapRecord>,
    profile: Option<Profile>,
    symbols: Option<crate::symbols::Symbols>,
    idle_ticks: u64,
    deadline: Option<std::time::Instant>,
    time_checks: u32,
    /// Reports printed so far and those left out (see [`MAX_REPORTS_SHOWN`]).
    reports_shown: (u64, u64),
}

/// Default OS call budget ([`Machine::max_traps`]).
pub const DEFAULT_MAX_TRAPS: u64 = 100_000_000;
/// Debug-ROM reports printed per run; further ones are counted and the
/// count printed at exit (they are all kept in [`Machine::reports`]).
pub const MAX_REPORTS_SHOWN: u64 = 100;
/// Largest batch of instructions run between time-limit checks.
const TIMED_BATCH: u32 = 1_000_000;

impl Machine {
    /// A machine with RAM of `ram_size` bytes, the given dynamic heap size,
    /// the ROM stubs, vectors and an empty dispatch table installed. Sizes
    /// outside [`crate::memory::check_sizes`]'s ranges are a
    /// [`crate::os::SetupError::Config`].
    pub fn new(ram_size: u32, dynamic_heap_size: u32) -> Result<Machine, crate::os::SetupError> {
        crate::memory::check_sizes(ram_size, dynamic_heap_size)
            .map_err(crate::os::SetupError::Config)?;
        let storage_start = crate::memory::DYNAMIC_HEAP_START + dynamic_heap_size;
        let mut mem = Memory::new(ram_size, storage_start);
        // ROM: ILLEGAL everywhere (code that wanders into the ROM stops with a
        // report), then the vector stubs, the return stub and the trap entries.
        for a in (ROM_BASE..ROM_BASE + crate::memory::ROM_SIZE).step_by(2) {
            mem.rom_write_u16(a, 0x4AFC);
        }
        for v in 0..256u32 {
            mem.rom_write_u16(ROM_VECTOR_STUBS + 2 * v, 0xA000);
        }
        mem.rom_write_u16(ROM_RETURN_STUB, 0xA000);
        for i in 0..DISPATCH_TABLE_ENTRIES {
            mem.rom_write_u16(ROM_TRAP_ENTRIES + 2 * i, 0xA000 | i as u16);
        }
        for v in 0..64u32 {
            mem.os_write_u32(4 * v, ROM_VECTOR_STUBS + 2 * v)
                .map_err(crate::os::SetupError::Fault)?;
        }
        let mut cpu = CpuCore::new();
        cpu.set_cpu_type(CpuType::M68000);
        cpu.address_mask = 0xFFFF_FFFF;
        cpu.set_sr(0x2700);
        let os = crate::os::Os::new(&mut mem, storage_start, ram_size)?;
        let mut m = Machine {
            cpu,
            mem,
            os,
            stats: Stats::default(),
            max_instructions: 1_000_000_000,
            max_traps: DEFAULT_MAX_TRAPS,
            time_limit: None,
            trace_traps: false,
            echo: false,
            alert_response: AlertResponse::Continue,
            fatal_mem_errors: true,
            refuse_trap_patches: false,
            opaque_handles: false,
            release_frees_records: false,
            strict_record_writes: false,
            show_drawing: false,
            move_code_at_exit: true,
            missing_traps: std::collections::BTreeSet::new(),
            output: Vec::new(),
            reports: Vec::new(),
            handlers: vec![None; DISPATCH_TABLE_ENTRIES as usize],
            history: VecDeque::new(),
            profile: None,
            symbols: None,
            idle_ticks: 0,
            deadline: None,
            time_checks: 0,
            reports_shown: (0, 0),
        };
        for &(name, h) in crate::traps::HANDLERS {
            if let Some(info) = table::TRAPS.iter().find(|t| t.name == name) {
                m.handlers[(info.trap & 0x7FF) as usize] = Some(h);
            }
        }
        crate::sys::install_dispatch_table(&mut m)?;
        crate::data_mgr::install_system(&mut m).map_err(crate::os::SetupError::System)?;
        Ok(m)
    }

    /// Load symbols for reports (addresses are ELF addresses; `base` is the
    /// 68k address at which the ELF's address 0 runs, i.e. code 1's body).
    pub fn set_symbols(&mut self, symbols: crate::symbols::Symbols) {
        self.symbols = Some(symbols);
    }

    /// Forget the symbols [`Machine::set_symbols`] loaded (before launching
    /// another app, whose code they do not describe): addresses are named
    /// by the MacsBug names in code 1 again.
    pub fn clear_symbols(&mut self) {
        self.symbols = None;
    }

    /// Describe a 68k address: `0x0001234A <func+0x1A>` when the ELF's
    /// symbols ([`Machine::set_symbols`]) know it; without them, for an
    /// address in code 1, `0x0001234A <func>` with the MacsBug name that
    /// follows the function in the code ([`Machine::macsbug_name`]).
    pub fn describe(&self, addr: u32) -> String {
        match (&self.symbols, self.os.sys.code1_base) {
            (Some(s), Some(b)) if addr >= b => match s.lookup(addr - b) {
                Some((name, off)) => format!("0x{addr:08X} <{name}+0x{off:X}>"),
                None => format!("0x{addr:08X}"),
            },
            (None, _) => match self.macsbug_name(addr) {
                Some(name) => format!("0x{addr:08X} <{name}>"),
                None => format!("0x{addr:08X}"),
            },
            _ => format!("0x{addr:08X}"),
        }
    }

    /// The MacsBug name of the function of code 1 containing 68k address
    /// `addr`, found as POSE does ([`palm_prc::macsbug::function_name`]:
    /// forward to the first end-of-function sequence, then the name after
    /// it). `None` outside code 1, or when the code has no name there.
    pub fn macsbug_name(&self, addr: u32) -> Option<String> {
        let base = self.os.sys.code1_base?;
        let offset = addr.checked_sub(base)?;
        if offset >= self.os.sys.code1_size {
            return None;
        }
        let code = self.mem.read_bytes(base, self.os.sys.code1_size).ok()?;
        palm_prc::macsbug::function_name(&code, offset as usize).map(|s| s.name)
    }

    /// Start exact per-range counting (single-step execution from now on).
    pub fn start_profile(&mut self, ranges: &[(u32, u32)]) {
        self.profile = Some(Profile {
            ranges: ranges.to_vec(),
            instructions: vec![0; ranges.len()],
            os_calls: vec![0; ranges.len()],
        });
    }

    /// Stop per-range counting and return the counts.
    pub fn take_profile(&mut self) -> Option<Profile> {
        self.profile.take()
    }

    /// Current profile counts, if profiling.
    pub fn profile(&self) -> Option<&Profile> {
        self.profile.as_ref()
    }

    /// Deterministic system ticks: instructions executed / [`INSTRUCTIONS_PER_TICK`]
    /// plus ticks spent waiting for events.
    pub fn ticks(&self) -> u64 {
        self.stats.instructions / INSTRUCTIONS_PER_TICK + self.idle_ticks
    }

    /// Let `n` ticks pass without executing code (EvtGetEvent waits, SysTaskDelay).
    pub fn idle(&mut self, n: u64) {
        self.idle_ticks += n;
    }

    /// The last trap calls, oldest first.
    pub fn trap_history(&self) -> impl Iterator<Item = &TrapRecord> {
        self.history.iter()
    }

    /// Append a line to the run's output (and echo it if enabled).
    pub fn print(&mut self, line: String) {
        if self.echo {
            // A closed stdout (e.g. piped into `head`) must not stop the run.
            let _ = writeln!(std::io::stdout(), "{line}");
        }
        self.output.push(line);
    }

    /// Record a debug-ROM report (also printed, up to
    /// [`MAX_REPORTS_SHOWN`] per run).
    pub fn report(&mut self, line: String) {
        if self.reports_shown.0 < MAX_REPORTS_SHOWN {
            self.reports_shown.0 += 1;
            self.print(format!("palm-run: {line}"));
        } else {
            self.reports_shown.1 += 1;
        }
        self.reports.push(line);
    }

    /// Reports recorded but not printed (beyond [`MAX_REPORTS_SHOWN`]).
    pub fn reports_not_shown(&self) -> u64 {
        self.reports_shown.1
    }

    /// Start the wall-clock budget ([`Machine::time_limit`]) now.
    pub fn start_clock(&mut self) {
        self.deadline = self.time_limit.map(|d| std::time::Instant::now() + d);
    }

    /// The function containing 68k address `addr`, from the ELF's symbols,
    /// or without them from the MacsBug names in code 1.
    pub fn function_at(&self, addr: u32) -> Option<String> {
        let base = self.os.sys.code1_base?;
        match &self.symbols {
            Some(s) => s
                .lookup(addr.checked_sub(base)?)
                .map(|(name, _)| name.to_string()),
            None => self.macsbug_name(addr),
        }
    }

    /// Whether the wall-clock budget ran out (checked when `long_batch`, or
    /// every 64th call).
    fn out_of_time(&mut self, long_batch: bool) -> bool {
        let Some(d) = self.deadline else {
            return false;
        };
        self.time_checks = self.time_checks.wrapping_add(1);
        (long_batch || self.time_checks.is_multiple_of(64)) && std::time::Instant::now() >= d
    }

    /// Build a [`Stop`] at the current PC.
    pub fn stop(&self, kind: StopKind) -> Stop {
        Stop {
            kind,
            pc: self.cpu.ppc,
            caller: None,
        }
    }

    /// Build a [`Stop`] for a failure inside the OS call `call`.
    pub fn stop_in(&self, call: &Call, kind: StopKind) -> Stop {
        Stop {
            kind,
            pc: call.caller,
            caller: Some(call.caller),
        }
    }

    /// A memory fault inside an OS call: a device would bus-error inside the ROM.
    pub fn fault_in(&self, call: &Call, f: Fault) -> Stop {
        let kind = if f.kind == crate::memory::FaultKind::Misaligned {
            StopKind::AddressError {
                address: f.address,
                write: f.write,
            }
        } else {
            StopKind::BusError(f)
        };
        self.stop_in(call, kind)
    }

    /// Read a long from the stack or memory as part of dispatch.
    fn read_u32_at(&self, a: u32) -> Result<u32, Stop> {
        self.mem
            .read_u32(a)
            .map_err(|f| self.stop(StopKind::BusError(f)))
    }

    fn push_u32(&mut self, v: u32) -> Result<(), Stop> {
        let sp = self.cpu.a(7).wrapping_sub(4);
        self.mem
            .os_write_u32(sp, v)
            .map_err(|f| self.stop(StopKind::BusError(f)))?;
        self.cpu.set_a(7, sp);
        Ok(())
    }

    fn push_u16(&mut self, v: u16) -> Result<(), Stop> {
        let sp = self.cpu.a(7).wrapping_sub(2);
        self.mem
            .os_write_u16(sp, v)
            .map_err(|f| self.stop(StopKind::BusError(f)))?;
        self.cpu.set_a(7, sp);
        Ok(())
    }

    /// Set the PC (after a native return or call) and drop prefetched words.
    pub fn jump(&mut self, pc: u32) {
        self.cpu.pc = pc;
        self.cpu.invalidate_prefetch();
    }

    /// Address of the trap dispatch table (read from `sysDispatchTableP`).
    pub fn dispatch_table(&self) -> u32 {
        self.mem.read_u32(SYS_DISPATCH_TABLE_P).unwrap_or(0)
    }

    /// Whether the machine implements `trap` (a system trap with a native
    /// handler, not made missing with [`Machine::missing_traps`]).
    pub fn implements(&self, trap: u16) -> bool {
        (0xA000..0xA800).contains(&trap)
            && self.handlers[usize::from(trap & 0x7FF)].is_some()
            && !self.missing_traps.contains(&trap)
    }

    /// The dispatch table entry of `trap`.
    pub fn trap_address(&self, trap: u16) -> Option<u32> {
        let idx = u32::from(trap & 0x0FFF);
        if !(0xA000..0xA800).contains(&trap) {
            return None;
        }
        self.mem.read_u32(self.dispatch_table() + 4 * idx).ok()
    }

    /// Run 68k code until the return stub is reached with SP == `until_sp`.
    pub fn run(&mut self, until_sp: u32) -> Result<(), Stop> {
        loop {
            let left = self
                .max_instructions
                .saturating_sub(self.stats.instructions);
            if left == 0 {
                let mut stop = self.stop(StopKind::InstructionLimit(self.max_instructions));
                if self.stats.instructions == 0 {
                    // Nothing ran (a budget of 0): the stop is at the first
                    // instruction, not at a stale previous PC.
                    stop.pc = self.cpu.pc;
                }
                return Err(stop);
            }
            let pc_before = self.cpu.pc;
            let batch = if self.deadline.is_some() {
                TIMED_BATCH
            } else {
                50_000_000
            };
            let r = if self.profile.is_some() {
                self.cpu.run_batch(&mut self.mem, 1, &[])
            } else {
                self.cpu
                    .run_batch(&mut self.mem, left.min(u64::from(batch)) as u32, &[])
            };
            self.stats.instructions += u64::from(r.instructions);
            if self.out_of_time(r.instructions >= TIMED_BATCH / 10) {
                let limit = self.time_limit.unwrap_or_default();
                return Err(self.stop(StopKind::TimeLimit(limit)));
            }
            if r.instructions == 1
                && let Some(p) = self.profile.as_mut()
                && let Some(i) = p.range_of(pc_before)
            {
                p.instructions[i] += 1;
            }
            match r.exit {
                BatchExit::BudgetExhausted
                | BatchExit::BoundaryRequested
                | BatchExit::WatchedPc { .. } => {}
                BatchExit::AlineTrap { opcode } => {
                    let at = self.cpu.ppc;
                    self.count_one(at);
                    if at == ROM_RETURN_STUB {
                        self.stats.rom_instructions += 1;
                        let sp = self.cpu.a(7);
                        if sp == until_sp {
                            return Ok(());
                        }
                        return Err(self.stop(StopKind::StackMismatch {
                            expected: until_sp,
                            found: sp,
                        }));
                    } else if (ROM_TRAP_ENTRIES..ROM_TRAP_ENTRIES + 2 * DISPATCH_TABLE_ENTRIES)
                        .contains(&at)
                    {
                        self.stats.rom_instructions += 1;
                        self.enter_rom(opcode)?;
                    } else if (ROM_VECTOR_STUBS..ROM_VECTOR_STUBS + 0x200).contains(&at) {
                        return Err(self.exception((at - ROM_VECTOR_STUBS) as u8 / 2));
                    } else {
                        return Err(self.stop(StopKind::IllegalInstruction { opcode }));
                    }
                }
                BatchExit::TrapInstruction { trap_num: 15 } => {
                    let at = self.cpu.ppc;
                    self.count_one(at);
                    self.trap15(at)?;
                }
                BatchExit::TrapInstruction { trap_num } => {
                    return Err(self.stop(StopKind::UnexpectedTrap { n: trap_num }));
                }
                BatchExit::FlineTrap { opcode } | BatchExit::IllegalInstruction { opcode } => {
                    return Err(self.stop(StopKind::IllegalInstruction { opcode }));
                }
                BatchExit::Breakpoint { bp_num } => {
                    return Err(self.stop(StopKind::IllegalInstruction {
                        opcode: 0x4848 | u16::from(bp_num),
                    }));
                }
                BatchExit::Stopped => {
                    if self.cpu.is_halted()
                        && let Some(f) = self.mem.take_fault()
                        && f.kind == crate::memory::FaultKind::StackGuard
                        && let Some(s) = self.guard_stop(self.cpu.a(7), f.address)
                    {
                        return Err(s);
                    }
                    return Err(self.stop(if self.cpu.is_halted() {
                        StopKind::DoubleFault
                    } else {
                        StopKind::IllegalInstruction { opcode: 0x4E72 }
                    }));
                }
            }
        }
    }

    /// Count an intercepted instruction (TRAP, A-line) that run_batch does not count.
    fn count_one(&mut self, at: u32) {
        self.stats.instructions += 1;
        if let Some(p) = self.profile.as_mut()
            && let Some(i) = p.range_of(at)
        {
            p.instructions[i] += 1;
        }
    }

    /// The report for exception vector `v` reached through its ROM stub.
    fn exception(&mut self, v: u8) -> Stop {
        let sp = self.cpu.a(7);
        let fault = self.mem.take_fault();
        match v {
            2 | 3 => {
                // Group-0 frame as the m68k crate (0.15.1) writes it: it pushes
                // the status word first and the PC last, so from SP up: PC,
                // SR, IR, access address, status word (the CLI tests pin this).
                // SP may be odd (an address error pushing to an odd SP: the
                // core writes the frame there anyway), so the frame is read
                // bytewise.
                let pc = self.frame_u32(sp);
                let address = self.frame_u32(sp.wrapping_add(8));
                let status = self.frame_u16(sp.wrapping_add(12));
                let write = status & 0x10 == 0;
                // SP before the CPU pushed this 14-byte frame.
                let before = sp.wrapping_add(14);
                match fault.map(|f| f.kind) {
                    Some(crate::memory::FaultKind::Execute) => {
                        let target = fault.map_or(address, |f| f.address);
                        // A JSR pushed its return address; otherwise the
                        // innermost A6 frame names the caller.
                        let ret = self.mem.read_u32(before).ok().filter(|&r| self.is_code(r));
                        let caller = ret.or_else(|| self.backtrace().first().copied());
                        return Stop {
                            kind: StopKind::JumpToLowMemory { address: target },
                            pc: target,
                            caller,
                        };
                    }
                    Some(crate::memory::FaultKind::StackGuard) => {
                        let at = fault.map_or(address, |f| f.address);
                        if let Some(s) = self.guard_stop(before, at) {
                            return Stop { pc, ..s };
                        }
                    }
                    _ => {}
                }
                let kind = if v == 2 {
                    StopKind::BusError(fault.unwrap_or(Fault {
                        address,
                        size: 0,
                        write,
                        kind: crate::memory::FaultKind::Unmapped,
                    }))
                } else {
                    StopKind::AddressError { address, write }
                };
                Stop {
                    kind,
                    pc,
                    caller: None,
                }
            }
            32..=47 => {
                // TRAP #n taken by the core through its vector (32 + n): the
                // same stop as when the core hands the TRAP over. The frame
                // holds SR and the PC after the 2-byte TRAP instruction.
                let next = self.frame_u32(sp.wrapping_add(2));
                Stop {
                    kind: StopKind::UnexpectedTrap { n: v - 32 },
                    pc: next.wrapping_sub(2),
                    caller: None,
                }
            }
            _ => {
                // Group 1/2 frame: SR, PC (of the next instruction).
                let pc = self.frame_u32(sp.wrapping_add(2));
                let name = match v {
                    4 => "illegal instruction",
                    5 => "divide by zero",
                    6 => "CHK",
                    7 => "TRAPV",
                    8 => "privilege violation",
                    9 => "trace",
                    10 => "line 1010 emulator",
                    11 => "line 1111 emulator",
                    24..=31 => "interrupt",
                    _ => "unexpected exception",
                };
                Stop {
                    kind: StopKind::Exception { vector: v, name },
                    pc,
                    caller: None,
                }
            }
        }
    }

    /// The long at `a` in an exception frame, read bytewise (the frame may
    /// be at an odd address); 0 if it is not in memory.
    fn frame_u32(&self, a: u32) -> u32 {
        self.mem
            .read_bytes(a, 4)
            .ok()
            .and_then(|b| b.try_into().ok())
            .map_or(0, u32::from_be_bytes)
    }

    /// The word at `a` in an exception frame, read bytewise; 0 if it is not
    /// in memory.
    fn frame_u16(&self, a: u32) -> u16 {
        self.mem
            .read_bytes(a, 2)
            .ok()
            .and_then(|b| b.try_into().ok())
            .map_or(0, u16::from_be_bytes)
    }

    /// After a write at `at` into the stack guard (the fault already
    /// taken): put the guarded bytes back and, if SP (`sp`, before the
    /// exception frame) has reached the bottom of the app's stack, the stack
    /// overflow stop (its SP is where the write went: the push's new SP).
    fn guard_stop(&mut self, sp: u32, at: u32) -> Option<Stop> {
        self.mem.restore_guarded();
        let (bottom, _) = self.os.sys.stack?;
        (sp < bottom.saturating_add(64)).then(|| Stop {
            kind: StopKind::StackOverflow {
                sp: at.min(sp),
                bottom,
            },
            pc: self.cpu.ppc,
            caller: None,
        })
    }

    /// Whether `a` can be a return address: even, in RAM above low memory
    /// or in ROM.
    fn is_code(&self, a: u32) -> bool {
        a & 1 == 0
            && ((a >= crate::memory::LOW_MEMORY_END && a < self.mem.ram_size())
                || (ROM_BASE..ROM_BASE + crate::memory::ROM_SIZE).contains(&a))
    }

    fn remember(&mut self, trap: u16, caller: u32) {
        if self.history.len() == TRAP_HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(TrapRecord { trap, caller });
    }

    fn count_os_call(&mut self, caller: u32) {
        if let Some(p) = self.profile.as_mut()
            && let Some(i) = p.range_of(caller)
        {
            p.os_calls[i] += 1;
        }
    }

    /// TRAP #15 at `at`: dispatch through the table.
    fn trap15(&mut self, at: u32) -> Result<(), Stop> {
        let word_at = self.cpu.pc;
        let trap = self
            .mem
            .read_u16(word_at)
            .map_err(|f| self.stop(StopKind::BusError(f)))?;
        self.remember(trap, at);
        self.count_os_call(at);
        *self.stats.trap_calls.entry(trap).or_default() += 1;
        let entry = match self.trap_address(trap) {
            Some(e) => e,
            None => {
                return Err(self.stop(StopKind::UnknownTrap {
                    trap,
                    name: table::trap_info(trap).map(|t| t.name),
                }));
            }
        };
        if entry == rom_entry(trap) {
            let sp = self.cpu.a(7);
            let ret = self.native(trap, sp, at)?;
            self.finish(trap, ret);
            self.jump(word_at + 2);
        } else {
            self.push_u32(word_at + 2)?;
            self.jump(entry);
        }
        Ok(())
    }

    /// A JSR reached the ROM entry of `trap`.
    fn enter_rom(&mut self, trap: u16) -> Result<(), Stop> {
        let sp = self.cpu.a(7);
        let ret = self.read_u32_at(sp)?;
        self.remember(trap, ret);
        self.count_os_call(ret);
        let value = self.native(trap, sp.wrapping_add(4), ret)?;
        self.finish(trap, value);
        self.cpu.set_a(7, sp.wrapping_add(4));
        self.jump(ret);
        Ok(())
    }

    /// Decode the arguments of `trap` at `args_at` and run its handler.
    fn native(&mut self, trap: u16, args_at: u32, caller: u32) -> Result<u32, Stop> {
        let info = table::trap_info(trap).ok_or(Stop {
            kind: StopKind::UnknownTrap { trap, name: None },
            pc: caller,
            caller: Some(caller),
        })?;
        let handler = self.handlers[(trap & 0x7FF) as usize]
            .filter(|_| !self.missing_traps.contains(&trap))
            .ok_or(Stop {
                kind: StopKind::UnknownTrap {
                    trap,
                    name: Some(info.name),
                },
                pc: caller,
                caller: Some(caller),
            })?;
        self.os
            .sys
            .check_stack(self.cpu.a(7))
            .map_err(|kind| Stop {
                kind,
                pc: caller,
                caller: Some(caller),
            })?;
        let mut args = Vec::with_capacity(info.args.len());
        let mut a = args_at;
        for arg in info.args {
            let v = match arg.kind {
                ArgKind::U8 => self.mem.read_u8(a).map(u32::from),
                ArgKind::U16 => self.mem.read_u16(a).map(u32::from),
                ArgKind::U32 | ArgKind::Ptr => self.mem.read_u32(a),
            }
            .map_err(|f| Stop {
                kind: StopKind::BusError(f),
                pc: caller,
                caller: Some(caller),
            })?;
            args.push(v);
            a = a.wrapping_add(arg_bytes(arg.kind));
        }
        let mut app_args = Vec::new();
        if self.opaque_handles {
            app_args = args.clone();
            crate::handles::args_to_native(self, trap, &mut args);
        }
        let call = Call {
            trap,
            info,
            args,
            app_args,
            args_at,
            caller,
        };
        *self.stats.native_calls.entry(trap).or_default() += 1;
        self.stats.os_calls += 1;
        if self.stats.os_calls > self.max_traps {
            return Err(Stop {
                kind: StopKind::TrapLimit(self.max_traps),
                pc: caller,
                caller: Some(caller),
            });
        }
        let r = handler(self, &call)?;
        let r = crate::handles::result_to_app(self, &call, r)?;
        if self.trace_traps {
            let line = self.format_call(&call, r);
            self.print(line);
        }
        Ok(r)
    }

    /// `Name(arg=value, …) -> result  [from caller]` for --trace-traps.
    pub fn format_call(&self, call: &Call, r: u32) -> String {
        let args: Vec<String> = call
            .info
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| (a, crate::handles::shown_arg(call, i)))
            .map(|(a, v)| match a.kind {
                ArgKind::U8 => format!("{}={v}", a.name),
                ArgKind::U16 => format!("{}={v}", a.name),
                ArgKind::U32 => format!("{}={v}", a.name),
                ArgKind::Ptr => format!("{}=0x{v:08X}", a.name),
            })
            .collect();
        let ret = match call.info.ret {
            RetKind::Void => String::new(),
            RetKind::Ptr => format!(" -> 0x{r:08X}"),
            RetKind::I16 => format!(" -> {}", r as u16 as i16),
            RetKind::U8 => format!(" -> {}", r as u8),
            RetKind::U16 => format!(" -> {}", r as u16),
            RetKind::U32 => format!(" -> {r}"),
        };
        format!(
            "trap {}({}){ret}  [from {}]",
            call.info.name,
            args.join(", "),
            self.describe(call.caller)
        )
    }

    /// Put a handler's result where the trap table says, and clobber the
    /// other scratch registers as a real trap may (D0–D2/A0–A1,
    /// PALM_FACTS §3.3), so that glue relying on them is caught.
    fn finish(&mut self, trap: u16, v: u32) {
        const JUNK: u32 = 0x5A5A_5A5A;
        let ret = table::trap_info(trap).map_or(RetKind::Void, |t| t.ret);
        let (d0, a0) = ret.registers(v, JUNK);
        self.cpu.set_d(0, d0);
        self.cpu.set_a(0, a0);
        self.cpu.set_d(1, JUNK);
        self.cpu.set_d(2, JUNK);
        self.cpu.set_a(1, JUNK);
    }

    /// Call 68k code at `addr` with Palm-layout arguments (pushed right to
    /// left) and a return into the ROM return stub; runs nested until it
    /// returns. Registers other than D0/A0 are restored afterwards (the
    /// caller's PC, SP, SR and all registers). Returns (D0, A0).
    pub fn call_68k(&mut self, addr: u32, args: &[Arg68k]) -> Result<(u32, u32), Stop> {
        let saved_regs = self.cpu.dar;
        let saved_pc = self.cpu.pc;
        let saved_ppc = self.cpu.ppc;
        let saved_sr = self.cpu.get_sr();
        for a in args.iter().rev() {
            match *a {
                Arg68k::U8(v) => self.push_u16(u16::from(v) << 8)?,
                Arg68k::U16(v) => self.push_u16(v)?,
                Arg68k::U32(v) => self.push_u32(v)?,
            }
        }
        let until = self.cpu.a(7);
        self.push_u32(ROM_RETURN_STUB)?;
        self.jump(addr);
        self.run(until)?;
        let r = (self.cpu.d(0), self.cpu.a(0));
        self.cpu.dar = saved_regs;
        self.cpu.set_sr(saved_sr);
        self.cpu.ppc = saved_ppc;
        self.jump(saved_pc);
        Ok(r)
    }

    /// Call trap `trap` through the current dispatch table, as OS code does
    /// (so that a 68k patch of it runs). Returns (D0, A0).
    /// With [`Machine::opaque_handles`], `MemHandle` arguments and results
    /// are master pointers on this side and descriptors on the 68k side.
    pub fn call_trap(&mut self, trap: u16, args: &[Arg68k]) -> Result<(u32, u32), Stop> {
        *self.stats.trap_calls.entry(trap).or_default() += 1;
        let entry = self.trap_address(trap).unwrap_or(rom_entry(trap));
        if !self.opaque_handles {
            return self.call_68k(entry, args);
        }
        let args = crate::handles::call_args_to_app(self, trap, args)?;
        let (d0, a0) = self.call_68k(entry, &args)?;
        let a0 = if crate::handles::slots(trap).result {
            crate::handles::to_native(self, a0)
        } else {
            a0
        };
        Ok((d0, a0))
    }
}

/// An argument for [`Machine::call_68k`], pushed in Palm layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg68k {
    /// A byte in the high half of a 2-byte slot.
    U8(u8),
    /// A 2-byte value.
    U16(u16),
    /// A 4-byte value or pointer.
    U32(u32),
}
