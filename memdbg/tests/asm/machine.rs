//! The machine the routines run in: the 68000 emulator with `tests/app`'s code 1
//! loaded, the minimal OS ([`Os`]), and a detector state laid out from the 68k
//! build's assembly constants.

use std::sync::OnceLock;

use memdbg::record::{ALLOC_RECORD_SIZE, AllocRecord, FORMAT_VERSION};
use palm_build::Image;
use palm_build::emu::Emu;

use crate::conv::{self, Keeps};
use crate::os::Os;

// The memory map (below 0x1000: the emulator's vectors and sentinels).
/// The "originals" of the patched traps: one `trap #15; dc.w trap; rts` stub each.
pub const STUBS: u32 = 0x0000_8000;
/// Code 1.
pub const CODE: u32 = 0x0001_0000;
/// The byte of code 1's chunk header with its lock count (bits 7–4), which the
/// trampolines check: 0x20 (locked twice: the OS's lock and memdbg's) unless a
/// test says otherwise.
pub const CODE_LOCK: u32 = CODE - 4;
/// The state chunk: the state, then (at [`SCRATCH`]) its buffers.
pub const STATE: u32 = 0x0003_0000;
/// The scratch buffers.
pub const SCRATCH: u32 = STATE + 0x200;
/// Trampolines built by the tests.
pub const TRAMPOLINES: u32 = STATE + 0x1000;
/// The slot table: each slot's record.
pub const SLOT_REC: u32 = 0x0003_2000;
/// The slot table: each slot's free-list link.
pub const SLOT_NEXT: u32 = 0x0003_3000;
/// The index's keys (up to 8,192).
pub const KEYS: u32 = 0x0003_4000;
/// The index's slots.
pub const SLOTS: u32 = 0x0003_C000;
/// The slots' ledger records, made before a test starts.
pub const RECORDS: u32 = 0x0004_0000;
/// Records DmNewRecord makes while a test runs.
pub const RECORDS_NEW: u32 = 0x0004_8000;
/// Master pointers of the toy heap's handles.
pub const MASTERS: u32 = 0x0005_0000;
/// The toy heap's chunks.
pub const HEAP: u32 = 0x0005_8000;
/// Frames (and other data) a test lays out itself.
pub const DATA: u32 = 0x000E_0000;
/// RAM; the stack grows down from near its top.
const RAM: u32 = 0x0010_0000;
/// Most instructions one call may run.
const MAX_INSTRUCTIONS: u64 = 5_000_000;

/// `tests/app` built by palm-build for the 68000 (once per test run).
pub fn image() -> &'static Image {
    static IMAGE: OnceLock<Image> = OnceLock::new();
    IMAGE.get_or_init(|| crate::common::build_test_app().image)
}

/// The 68k build's assembly constant `name` (a structure offset, a flag's bit, …).
pub fn k(name: &str) -> u32 {
    *image()
        .asm_constants
        .get(name)
        .unwrap_or_else(|| panic!("no assembly constant {name}")) as u32
}

/// Where symbol `name` of code 1 is in the machine.
pub fn sym(name: &str) -> u32 {
    CODE + image().symbol(name).unwrap()
}

/// Registers to call with (D0–D7, A0–A6); the stack pointer is the machine's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Regs {
    pub d: [u32; 8],
    pub a: [u32; 7],
}

impl Regs {
    /// Every register seeded with a value of its own, outside RAM (an unintended
    /// dereference is a bus error): D`n` = 0xD0D0_00n0, A`n` = 0xA0A0_00n0.
    pub fn new() -> Regs {
        Regs {
            d: std::array::from_fn(|n| 0xD0D0_0000 | (n as u32) << 4),
            a: std::array::from_fn(|n| 0xA0A0_0000 | (n as u32) << 4),
        }
    }

    /// With D`n` = `v`.
    pub fn d(mut self, n: usize, v: u32) -> Regs {
        self.d[n] = v;
        self
    }

    /// With A`n` = `v`.
    pub fn a(mut self, n: usize, v: u32) -> Regs {
        self.a[n] = v;
        self
    }
}

/// The machine.
pub struct Machine {
    pub emu: Emu,
    pub os: Os,
}

impl Machine {
    /// Code 1 loaded, the trap stubs written; no state yet.
    pub fn new() -> Machine {
        let mut emu = Emu::new(RAM);
        emu.stack_top = RAM - 0x100;
        emu.load(CODE, &image().code);
        emu.load(CODE_LOCK, &[0x20]);
        for (i, &trap) in STUB_TRAPS.iter().enumerate() {
            let at = STUBS + 8 * i as u32;
            let [hi, lo] = trap.to_be_bytes();
            emu.load(at, &[0x4E, 0x4F, hi, lo, 0x4E, 0x75]); // trap #15; dc.w trap; rts
        }
        Machine {
            emu,
            os: Os::default(),
        }
    }

    /// A machine with a running detector's state: `options`, room for `capacity`
    /// blocks, `slots` ledger records made already (all on the free list), an index
    /// of `entries` entries, code 1's range known, the originals the stubs.
    pub fn with_state(options: u32, capacity: u16, slots: u16, entries: u16) -> Machine {
        let mut m = Machine::new();
        m.zero(STATE, 0x1000);
        m.zero(SCRATCH, k("SC_SIZE"));
        let st = |f: &str| STATE + k(f);
        m.set_long(st("ST_OPTIONS"), options);
        let settings = st("ST_SETTINGS");
        m.set_long(settings + k("SETTINGS_OPTIONS"), options);
        m.set_word(settings + k("SETTINGS_MAX_ALERTS"), 5);
        m.set_word(settings + k("SETTINGS_CAPACITY"), capacity);
        m.set_long(st("ST_SCRATCH"), SCRATCH);
        m.set_byte(SCRATCH + k("SC_REC") + 1, FORMAT_VERSION);
        m.set_long(st("ST_CODE_BASE"), CODE);
        m.set_long(st("ST_CODE_END"), CODE + image().code.len() as u32);
        m.set_long(st("ST_LOW_FREE"), u32::MAX);
        m.set_long(st("ST_LOW_MAX"), u32::MAX);
        m.set_long(st("ST_DB"), 0xDB00_0000);
        // The index.
        m.zero(KEYS, 4 * u32::from(entries));
        m.zero(SLOTS, 2 * u32::from(entries));
        let ix = st("ST_INDEX");
        m.set_long(ix + k("IX_KEYS"), KEYS);
        m.set_long(ix + k("IX_SLOTS"), SLOTS);
        m.set_word(ix + k("IX_MASK"), entries - 1);
        m.set_long(ix + k("IX_POS_MASK"), 4 * (u32::from(entries) - 1));
        m.set_word(ix + k("IX_SHIFT"), 16 - entries.trailing_zeros() as u16);
        // The slots: their records, all free (0 → 1 → … → NO_SLOT).
        m.set_long(st("ST_SLOT_REC"), SLOT_REC);
        m.set_long(st("ST_SLOT_NEXT"), SLOT_NEXT);
        for s in 0..u32::from(slots) {
            m.set_long(SLOT_REC + 4 * s, slot_record(s as u16));
            m.zero(slot_record(s as u16), ALLOC_RECORD_SIZE as u32);
            let next = if s + 1 < u32::from(slots) {
                s + 1
            } else {
                0xFFFF
            };
            m.set_word(SLOT_NEXT + 2 * s, next as u16);
        }
        m.set_word(st("ST_N_SLOTS"), slots);
        m.set_word(st("ST_FREE_HEAD"), if slots > 0 { 0 } else { 0xFFFF });
        // The originals of the patched traps.
        for (field, trap) in [
            ("ST_ORIG_CHUNK_FREE", 0xA012u16),
            ("ST_ORIG_HANDLE_FREE", 0xA02B),
            ("ST_ORIG_PTR_SIZE", 0xA016),
            ("ST_ORIG_HANDLE_SIZE", 0xA02D),
            ("ST_ORIG_PTR_RESIZE", 0xA01C),
            ("ST_ORIG_HANDLE_RESIZE", 0xA033),
            ("ST_ORIG_PTR_UNLOCK", 0xA035),
            ("ST_ORIG_HANDLE_UNLOCK", 0xA022),
        ] {
            m.set_long(st(field), stub(trap));
        }
        m.os.feature = Some(STATE);
        m
    }

    /// Calls `routine` (a symbol of code 1) with `regs` and C-convention stack
    /// `args`, checks its register convention ([`conv::keeps`]) and a balanced
    /// stack, and returns the registers after it. A fault panics, naming the call.
    pub fn call(&mut self, routine: &str, regs: Regs, args: &[u32]) -> Regs {
        self.run(sym(routine), routine, regs, args)
    }

    /// [`Machine::call`] of code at `addr` (a trampoline, say) that runs `routine`.
    pub fn run(&mut self, addr: u32, routine: &str, regs: Regs, args: &[u32]) -> Regs {
        let after = self.try_run(addr, regs, args).unwrap_or_else(|e| {
            panic!(
                "{routine}{args:x?} with {regs:x?}: {e}\ntraps: {:x?}",
                self.os.traps
            )
        });
        check_kept(routine, conv::keeps(routine), &regs, &after);
        after
    }

    /// Runs code at `addr` as [`Machine::run`] does, without the convention check.
    pub fn try_run(&mut self, addr: u32, regs: Regs, args: &[u32]) -> Result<Regs, String> {
        for (n, &v) in regs.d.iter().enumerate() {
            self.emu.cpu.set_d(n, v);
        }
        for (n, &v) in regs.a.iter().enumerate() {
            self.emu.cpu.set_a(n, v);
        }
        let os = &mut self.os;
        self.emu
            .call(addr, args, &mut |t| os.service(t), MAX_INSTRUCTIONS)
            .map_err(|e| e.to_string())?;
        let sp = self.emu.cpu.a(7);
        let want = self.emu.stack_top - 4 * args.len() as u32;
        if sp != want {
            return Err(format!(
                "the stack is off by {} bytes",
                i64::from(sp) - i64::from(want)
            ));
        }
        Ok(Regs {
            d: std::array::from_fn(|n| self.emu.cpu.d(n)),
            a: std::array::from_fn(|n| self.emu.cpu.a(n)),
        })
    }

    /// The Z flag the last call returned with.
    pub fn z(&self) -> bool {
        self.emu.cpu.flag_z()
    }

    pub fn long(&self, addr: u32) -> u32 {
        self.emu.ram.long(addr)
    }
    pub fn word(&self, addr: u32) -> u16 {
        self.emu.ram.word(addr)
    }
    pub fn byte(&self, addr: u32) -> u8 {
        self.emu.ram.slice(addr, 1)[0]
    }
    pub fn bytes(&self, addr: u32, len: u32) -> Vec<u8> {
        self.emu.ram.slice(addr, len).to_vec()
    }
    pub fn set_long(&mut self, addr: u32, v: u32) {
        self.emu.ram.set_long(addr, v);
    }
    pub fn set_word(&mut self, addr: u32, v: u16) {
        self.emu.load(addr, &v.to_be_bytes());
    }
    pub fn set_byte(&mut self, addr: u32, v: u8) {
        self.emu.load(addr, &[v]);
    }
    pub fn zero(&mut self, addr: u32, len: u32) {
        self.emu.ram.slice_mut(addr, len).fill(0);
    }

    /// The state's long field `field` (an `ST_` constant).
    pub fn st_long(&self, field: &str) -> u32 {
        self.long(STATE + k(field))
    }
    /// The state's word field `field`.
    pub fn st_word(&self, field: &str) -> u16 {
        self.word(STATE + k(field))
    }
    /// Sets the state's long field `field`.
    pub fn set_st_long(&mut self, field: &str, v: u32) {
        self.set_long(STATE + k(field), v);
    }

    /// The allocation record at `addr`.
    pub fn record(&self, addr: u32) -> AllocRecord {
        AllocRecord::decode(&self.bytes(addr, ALLOC_RECORD_SIZE as u32)).unwrap()
    }

    /// The index's slot for `key`, read from the table by a linear scan (not the
    /// routine under test).
    pub fn indexed(&self, key: u32) -> Option<u16> {
        let n = u32::from(self.word(STATE + k("ST_INDEX") + k("IX_MASK"))) + 1;
        (0..n)
            .find(|&i| self.long(KEYS + 4 * i) == key)
            .map(|i| self.word(SLOTS + 2 * i))
    }

    /// A trampoline for trap pair `entry`'s routine (`__memdbg_free_entry`, …) as
    /// `patch::install` makes it: a copy of `__memdbg_trampoline` holding code 1's
    /// lock byte ([`CODE_LOCK`]), the entry's first long and the entry, the state
    /// (+1 for the handle form) and the original (the trap's stub). Its address.
    pub fn trampoline(&mut self, entry: &str, handle: bool) -> u32 {
        let len = k("TRAMPOLINE_LEN");
        let pair = [
            "__memdbg_free_entry",
            "__memdbg_size_entry",
            "__memdbg_resize_entry",
            "__memdbg_unlock_entry",
        ]
        .iter()
        .position(|e| *e == entry)
        .unwrap() as u32;
        let at = TRAMPOLINES + len * (2 * pair + u32::from(handle));
        let template = self.bytes(sym("__memdbg_trampoline"), len);
        self.emu.load(at, &template);
        let first = self.long(sym(entry));
        let orig = stub(STUB_TRAPS[(2 * pair + u32::from(handle)) as usize]);
        for (field, v) in [
            ("TRAMPOLINE_LOCK_AT", CODE_LOCK),
            ("TRAMPOLINE_CODE", first),
            ("TRAMPOLINE_CODE_AT", sym(entry)),
            ("TRAMPOLINE_STATE", STATE + u32::from(handle)),
            ("TRAMPOLINE_ENTRY", sym(entry)),
            ("TRAMPOLINE_ORIG", orig),
        ] {
            self.set_long(at + k(field), v);
        }
        at
    }
}

/// The traps with a stub ([`stub`]).
const STUB_TRAPS: [u16; 8] = [
    0xA012, 0xA02B, 0xA016, 0xA02D, 0xA01C, 0xA033, 0xA035, 0xA022,
];

/// The stub calling `trap` (an "original" of a patched trap).
pub fn stub(trap: u16) -> u32 {
    STUBS + 8 * STUB_TRAPS.iter().position(|&t| t == trap).unwrap() as u32
}

/// Slot `s`'s ledger record (made by [`Machine::with_state`]).
pub fn slot_record(s: u16) -> u32 {
    RECORDS + 84 * u32::from(s)
}

/// Panics unless `after` has every register `keeps` names as `before` had it.
fn check_kept(routine: &str, keeps: &Keeps, before: &Regs, after: &Regs) {
    for &n in keeps.d {
        assert_eq!(
            after.d[n], before.d[n],
            "{routine} changed D{n}, which its convention keeps"
        );
    }
    for &n in keeps.a {
        assert_eq!(
            after.a[n], before.a[n],
            "{routine} changed A{n}, which its convention keeps"
        );
    }
}
