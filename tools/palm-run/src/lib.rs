//! A headless Palm OS for running 68k PRCs in tests and CI.
//!
//! `palm-run` loads PRC/PDB files into an emulated device (an MC68000 from
//! the `m68k` crate with 32-bit addresses, RAM with a dynamic heap and a
//! write-protected storage heap, a ROM of trap entry points), launches an
//! app as Palm OS does and implements the OS services natively, one module
//! per manager, with the OS 3.x heap structures in emulated memory so that
//! chunk headers, owner IDs, lock counts, handles and fragmentation behave
//! as on a device. Facts are cited from `PALM_FACTS.md` (§ numbers).
//!
//! # Library use
//! ```no_run
//! use palm_run::{Config, Machine};
//! let mut m = Machine::with_config(&Config::default()).unwrap();
//! m.install(&std::fs::read("StarterApp.prc").unwrap()).unwrap();
//! m.set_events(palm_run::script::parse("tap 1001\n").unwrap());
//! let out = m.launch("StarterApp").unwrap();
//! assert!(out.stop.is_none());
//! // MemDbgDB as a .pdb file image, or as a parsed model:
//! let pdb = m.export("MemDbgDB").unwrap();
//! let db = palm_run::data_mgr::export(&m, b"MemDbgDB").unwrap();
//! # let _ = (pdb, db);
//! ```
//!
//! Budgets: [`Config::max_instructions`], [`Machine::max_traps`] (OS calls)
//! and [`Machine::time_limit`] (wall clock, off by default); each stops the
//! app with a [`StopKind`] like any fault.
//!
//! What a run leaves for assertions: [`Outcome`] (result, [`Stop`], leaks
//! found by the owner sweep, trap patches left, databases left open),
//! [`Machine::output`] (every printed line), [`Machine::reports`] (non-fatal
//! debug-ROM reports), `m.os.sys.dbg_messages` / `err_displays` /
//! `fatal_alerts` / `sounds`, `m.os.ui.alerts` / `drawn`, [`Machine::stats`],
//! features ([`Machine::feature`]), and all of emulated memory ([`Machine::mem`]).
//!
//! # Exact counts inside an address range (benchmarks)
//! ```no_run
//! # use palm_run::{Config, Machine};
//! # let mut m = Machine::with_config(&Config::default()).unwrap();
//! # m.install(&std::fs::read("StarterApp.prc").unwrap()).unwrap();
//! let syms = palm_run::symbols::Symbols::from_elf(&std::fs::read("StarterApp.elf").unwrap()).unwrap();
//! let base = m.code1_base("StarterApp").unwrap(); // where ELF address 0 runs
//! let ranges: Vec<(u32, u32)> =
//!     syms.ranges_with_prefix("memdbg::").iter().map(|&(s, e)| (base + s, base + e)).collect();
//! m.start_profile(&ranges); // single-step from now on
//! m.launch("StarterApp").unwrap();
//! let p = m.take_profile().unwrap();
//! let instructions: u64 = p.instructions.iter().sum(); // 68k instructions with PC in the ranges
//! let os_calls: u64 = p.os_calls.iter().sum(); // traps called from code in the ranges
//! # let _ = (instructions, os_calls);
//! ```
//!
//! Modules: [`memory`] (address space), [`heap`] (chunk headers, master
//! pointer tables), [`machine`] (CPU, dispatch, native↔68k calls, stats,
//! profiling), managers [`mem_mgr`], [`data_mgr`], [`ftr_mgr`], [`sys`],
//! [`str_mgr`], [`ui`] with [`lists`] (lists, popup lists, scroll bars);
//! [`traps`] (handler registry checked against the trap table), [`launch`]
//! (install, launch, exit checks), [`script`] (event scripts), [`symbols`]
//! (ELF symbols), [`bench`](mod@bench); [`handles`] (handles that are not
//! master pointers).
//!
//! # Stricter than Palm OS 3.5
//! Settings that make the machine behave as PumpkinOS does, or as strictly as
//! the SDK's text: [`Machine::opaque_handles`],
//! [`Machine::release_frees_records`], [`Machine::strict_record_writes`],
//! [`Machine::missing_traps`], [`Machine::alert_response`], and all of
//! PumpkinOS's at once with [`Machine::pumpkin_profile`] (the README's
//! "Stricter than Palm OS 3.5" has the sources).
#![deny(missing_docs)]

pub mod bench;
pub mod data_mgr;
pub mod ftr_mgr;
pub mod handles;
pub mod heap;
pub mod launch;
pub mod lists;
pub mod machine;
pub mod mem_mgr;
pub mod memory;
pub mod os;
pub mod script;
pub mod str_mgr;
pub mod symbols;
pub mod sys;
pub mod table;
pub mod traps;
pub mod ui;

pub use launch::{Leak, Outcome, PatchLeft};
pub use machine::{Arg68k, Machine, Profile, Stats, Stop, StopKind};

/// Machine configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// RAM size in bytes (default [`memory::DEFAULT_RAM_SIZE`], 4 MB; valid
    /// ranges: [`memory::check_sizes`]).
    pub ram_size: u32,
    /// Dynamic heap size in bytes (default [`memory::DEFAULT_DYNAMIC_HEAP_SIZE`], 256 KB).
    pub dynamic_heap_size: u32,
    /// Instruction budget (default 1 000 000 000).
    pub max_instructions: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            ram_size: memory::DEFAULT_RAM_SIZE,
            dynamic_heap_size: memory::DEFAULT_DYNAMIC_HEAP_SIZE,
            max_instructions: 1_000_000_000,
        }
    }
}

/// The traps PumpkinOS does not implement for 68k apps among those palm-run
/// has (a call there ends the app: "trap 0xA081 unknown not mapped",
/// `PumpkinOS:src/libpumpkin/emulation/systrap.c` palmos_systrap's default
/// case → emupalmos_panic). Seen by hand with StarterApp; only DbgMessage.
pub const PUMPKIN_MISSING_TRAPS: &[u16] = &[0xA081];

impl Machine {
    /// Behave as PumpkinOS does where it differs from Palm OS 3.5 in ways an
    /// app can trip over (each is also a setting of its own): handles that
    /// are not master pointers ([`Machine::opaque_handles`]), records whose
    /// buffer is freed at release ([`Machine::release_frees_records`]),
    /// DbgMessage missing ([`PUMPKIN_MISSING_TRAPS`] in
    /// [`Machine::missing_traps`]), ErrDisplayFileLineMsg and SysFatalAlert
    /// ending the app ([`machine::AlertResponse::Reset`]: PumpkinOS's
    /// `ErrorBase.c` ErrDisplayFileLineMsgEx calls SysFatalAlert, then
    /// `emupalmos_finish(1)` for a 68k app), and SysSetTrapAddress refused
    /// ([`Machine::refuse_trap_patches`]; PumpkinOS answers sysErrParamErr
    /// where palm-run answers sysErrNotAllowed, `emulation/systrap.c`).
    /// Failed checks of OS calls are not fatal ([`Machine::fatal_mem_errors`]
    /// off): PumpkinOS logs them and returns the error code ("STOR: DmSet:
    /// error 0x0213 (dmErrNotValidRecord)"); palm-run reports them (exit 1).
    /// Call it before the launch.
    pub fn pumpkin_profile(&mut self) {
        self.fatal_mem_errors = false;
        self.opaque_handles = true;
        self.release_frees_records = true;
        self.missing_traps.extend(PUMPKIN_MISSING_TRAPS);
        self.alert_response = machine::AlertResponse::Reset;
        self.refuse_trap_patches = true;
    }

    /// A machine for `config`.
    pub fn with_config(config: &Config) -> Result<Machine, os::SetupError> {
        let mut m = Machine::new(config.ram_size, config.dynamic_heap_size)?;
        m.max_instructions = config.max_instructions;
        Ok(m)
    }
}
