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
//! let out = m.launch("StarterApp").unwrap();
//! assert!(out.stop.is_none());
//! let pdb = m.export("MemDbgDB").unwrap();
//! # let _ = pdb;
//! ```
//!
//! Modules: [`memory`] (address space), [`heap`] (chunk headers, master
//! pointer tables), [`machine`] (CPU, dispatch, native↔68k calls, stats,
//! profiling), managers [`mem_mgr`], [`data_mgr`], [`ftr_mgr`], [`sys`],
//! [`str_mgr`], [`ui`]; [`traps`] (handler registry checked against the
//! trap table), [`launch`] (install, launch, exit checks), [`script`]
//! (event scripts), [`symbols`] (ELF symbols), [`bench`].
#![deny(missing_docs)]

pub mod bench;
pub mod data_mgr;
pub mod ftr_mgr;
pub mod heap;
pub mod launch;
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
    /// RAM size in bytes (default [`memory::DEFAULT_RAM_SIZE`], 4 MB).
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

impl Machine {
    /// A machine for `config`.
    pub fn with_config(config: &Config) -> Result<Machine, os::SetupError> {
        let mut m = Machine::new(config.ram_size, config.dynamic_heap_size)?;
        m.max_instructions = config.max_instructions;
        Ok(m)
    }
}
