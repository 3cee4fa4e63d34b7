//! The API's value types: [`Settings`] (what [`crate::start`] is told), [`Error`]
//! (why it or [`crate::stop`] did nothing) and [`Site`] (where an allocation was
//! made, as its record stores it).

use crate::record::{AllocFlags, FileName, Options, U16Be};

/// How the detector runs: given to [`start`](crate::start), recorded in the ledger's header.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct Settings {
    /// What to do ([`Options`]).
    pub options: Options,
    /// Most alerts shown by the time of the leak alerts at stop (those shown
    /// while running count too); every leak is in the ledger and in the
    /// `DbgMessage` lines regardless.
    pub max_alerts: u16,
    /// Most blocks tracked at once (1 to 5461). Memory taken from the dynamic heap:
    /// about 15 bytes per block (an index of ≥ 3/2 × capacity 6-byte entries plus a
    /// 6-byte slot each) plus a 2.8 KB state chunk; and one 84-byte record per slot
    /// in the storage heap. Beyond it, allocations are counted as untracked.
    pub capacity: u16,
    /// Warn (a ledger event, and a `DbgMessage` with [`Options::DBG_MESSAGES`]) the
    /// first time the dynamic heap's largest free chunk falls below this many bytes
    /// (needs [`Options::HEAP_STATS`]; 0: never).
    pub low_heap_threshold: u32,
}

impl Settings {
    /// Guards, heap statistics, alerts at exit (up to 5), `DbgMessage` lines, trap
    /// patches, immediate alerts for overruns and double frees, each leak's first
    /// bytes in the ledger ([`Options::CONTENTS`]), unlock checks
    /// ([`Options::LOCK_CHECKS`]); 512 blocks; no
    /// low-heap warning. Call stacks are off: the wrappers record their file and
    /// line and each free its call site, Rust allocations their call stack anyway;
    /// [`Options::CALL_STACKS`] adds up to six callers to every record and free site
    /// for about 35 68k instructions per frame.
    pub const DEFAULT: Settings = Settings {
        options: Options::GUARDS
            .union(Options::HEAP_STATS)
            .union(Options::ALERTS_AT_EXIT)
            .union(Options::DBG_MESSAGES)
            .union(Options::PATCH_FREES)
            .union(Options::ALERT_OVERRUNS)
            .union(Options::ALERT_DOUBLE_FREES)
            .union(Options::CONTENTS)
            .union(Options::LOCK_CHECKS),
        max_alerts: 5,
        capacity: 512,
        low_heap_threshold: 0,
    };
}

impl Default for Settings {
    fn default() -> Self {
        Settings::DEFAULT
    }
}

/// Why [`start`](crate::start), [`stop`](crate::stop) or
/// [`checkpoint`](crate::checkpoint) did nothing. The discriminants are the C interface's
/// error numbers (`capi`).
#[repr(u16)]
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub enum Error {
    /// `start` while running.
    AlreadyRunning = 1,
    /// `stop` or `checkpoint` while not running (before `start`, after `stop`).
    NotRunning = 2,
    /// `stop` or `checkpoint` called from inside the detector (e.g. from a free
    /// patch).
    Busy = 3,
    /// `capacity` is 0 or above 5461.
    BadSettings = 4,
    /// The dynamic heap has no room for the state, index or slot table.
    NoMemory = 5,
    /// The ledger database could not be created or opened (the Data Manager's error
    /// code, e.g. `dmErrDatabaseOpen` when another app holds MemDbgDB open).
    /// `dmErrAlreadyExists` (0x0219): a database named MemDbgDB exists that is not a
    /// ledger (another creator than `'MDbg'`, another type than `'LEAK'`, or a
    /// resource database); it belongs to someone else and is left untouched.
    Ledger(u16) = 6,
    /// `checkpoint` after [`MAX_GENERATION`](crate::record::MAX_GENERATION) (255)
    /// checkpoints: refused, nothing written; the header gets
    /// [`HeaderFlags::CHECKPOINTS_REFUSED`](crate::record::HeaderFlags::CHECKPOINTS_REFUSED)
    /// and later allocations stay in generation 255.
    TooManyCheckpoints = 7,
}

/// An allocation's source position as stored in its record: the file name's tail
/// ([`FileName`]) and the line. The wrapper macros build one per call site at
/// compile time (a constant in code 1, no relocation).
#[repr(C, align(2))]
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct Site {
    /// File name, NUL-padded, at most 31 bytes.
    pub file: FileName,
    /// Line (lines above 65,535 are stored as 65,535, the width of Palm's
    /// `ErrDisplayFileLineMsg` line argument).
    pub line: U16Be,
    /// [`AllocFlags::FILE_TRUNCATED`] when the path lost leading parts.
    pub flags: U16Be,
}

impl Site {
    /// The site of `file` (as `file!()` gives it) and `line`.
    pub const fn new(file: &str, line: u32) -> Site {
        let bytes = file.as_bytes();
        Site {
            file: FileName::new(bytes),
            line: U16Be::new(if line > 0xFFFF { 0xFFFF } else { line as u16 }),
            flags: U16Be::new(if FileName::cut(bytes) > 0 {
                AllocFlags::FILE_TRUNCATED.bits()
            } else {
                0
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record;

    #[test]
    fn sites_are_built_at_compile_time() {
        const S: Site = Site::new("src/scenarios.rs", 42);
        assert_eq!(S.file.bytes(), b"src/scenarios.rs");
        assert_eq!(S.line.get(), 42);
        assert_eq!(S.flags.get(), 0);
        const L: Site = Site::new("memdbg/tests/apps/ledger/src/lib.rs", 70_000);
        assert_eq!(L.file.bytes(), b"tests/apps/ledger/src/lib.rs");
        assert_eq!(L.line.get(), 0xFFFF);
        assert_eq!(L.flags.get(), AllocFlags::FILE_TRUNCATED.bits());
        assert_eq!(core::mem::size_of::<Site>(), 36);
    }

    #[test]
    fn a_path_is_cut_exactly_when_it_does_not_fit() {
        // The C interface tests the length instead of calling `FileName::cut`.
        for n in 0..80 {
            for path in [vec![b'a'; n], b"d/".repeat(n / 2), b"d\\e".repeat(n / 3)] {
                assert_eq!(
                    FileName::cut(&path) > 0,
                    path.len() >= record::FILE_NAME_LEN,
                    "{path:?}"
                );
            }
        }
    }

    #[test]
    fn default_settings() {
        let s = Settings::default();
        assert!(s.options.contains(Options::GUARDS | Options::PATCH_FREES));
        assert!(!s.options.contains(Options::FILL_NEW));
        assert_eq!(s.capacity, 512);
    }
}
