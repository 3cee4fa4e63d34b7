//! OS state: one struct per manager, created by [`Os::new`].

use crate::heap::{Heap, HeapError};
use crate::memory::{DYNAMIC_HEAP_START, Fault, Memory};

/// Why a machine could not be set up (bad configuration).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The heaps do not fit the RAM size.
    #[error("bad memory configuration: {0}")]
    Config(String),
    /// A memory access failed while building low memory.
    #[error("setup: {0}")]
    Fault(Fault),
    /// A heap could not be created.
    #[error("setup: {0}")]
    Heap(HeapError),
    /// The system resource database could not be installed.
    #[error("setup: {0}")]
    System(String),
}

/// All OS state.
pub struct Os {
    /// Memory Manager.
    pub mem: crate::mem_mgr::MemMgr,
    /// Data Manager.
    pub dm: crate::data_mgr::DataMgr,
    /// Feature Manager.
    pub ftr: crate::ftr_mgr::FtrMgr,
    /// System Manager state (launch, A5 world, owner IDs, alerts).
    pub sys: crate::sys::SysState,
    /// UI: event queue, forms, fields.
    pub ui: crate::ui::Ui,
}

impl Os {
    /// Create the dynamic heap (from [`DYNAMIC_HEAP_START`] to `storage_start`)
    /// and the storage heap (from `storage_start` to `ram_size`).
    pub fn new(mem: &mut Memory, storage_start: u32, ram_size: u32) -> Result<Os, SetupError> {
        crate::memory::check_sizes(ram_size, storage_start.wrapping_sub(DYNAMIC_HEAP_START))
            .map_err(SetupError::Config)?;
        let dynamic = Heap::init(
            mem,
            0,
            DYNAMIC_HEAP_START,
            storage_start - DYNAMIC_HEAP_START,
        )
        .map_err(SetupError::Heap)?;
        let storage = Heap::init(mem, 1, storage_start, ram_size - storage_start)
            .map_err(SetupError::Heap)?;
        Ok(Os {
            mem: crate::mem_mgr::MemMgr::new(dynamic, storage),
            dm: crate::data_mgr::DataMgr::default(),
            ftr: crate::ftr_mgr::FtrMgr::default(),
            sys: crate::sys::SysState::default(),
            ui: crate::ui::Ui::default(),
        })
    }
}
