//! The host-visible trap table: names, argument names and widths, and return kinds of
//! every trap in `traps.tbl`, sorted by trap word. The headless runner (`palm-run`)
//! uses it to name traps and decode their arguments from the 68k stack.
//!
//! Host only: the table holds `&'static str`s, which would become absolute relocations
//! in a 68k image (TOOLCHAIN.md), so the module does not exist on the 68k.

/// Width of one trap argument on the Palm stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `Boolean`/`UInt8`/`Int8`/`Char`/1-byte enum: a 2-byte slot, value in the HIGH
    /// byte (the lower address, +0).
    U8,
    /// `UInt16`/`Int16`/`Err`/`Coord`/`WChar`: 2 bytes.
    U16,
    /// `UInt32`/`Int32`/`LocalID`: 4 bytes.
    U32,
    /// Any pointer or handle: 4 bytes.
    Ptr,
}

impl ArgKind {
    /// Bytes the argument takes on the stack: 2, 2, 4, 4.
    pub const fn stack_bytes(self) -> u32 {
        match self {
            ArgKind::U8 | ArgKind::U16 => 2,
            ArgKind::U32 | ArgKind::Ptr => 4,
        }
    }
}

/// Where and how wide a trap's result is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetKind {
    /// No result.
    Void,
    /// `Boolean`/`UInt8`: low byte of D0.
    U8,
    /// `UInt16`/`Err`: low word of D0.
    U16,
    /// `Int16`/`Coord`: low word of D0, signed.
    I16,
    /// `UInt32`/`Int32`/`LocalID`: D0.
    U32,
    /// A pointer or handle: A0.
    Ptr,
}

impl RetKind {
    /// D0 and A0 after a trap of this kind that returns `value`: the result where
    /// this kind puts it (only a byte's or word's low bits of D0 for `U8`, `U16` and
    /// `I16`), `junk` in the rest, as Palm OS leaves them undefined (PALM_FACTS §6).
    /// For runners that want code relying on undefined bits to fail.
    pub const fn registers(self, value: u32, junk: u32) -> (u32, u32) {
        match self {
            RetKind::Void => (junk, junk),
            RetKind::U8 => ((junk & !0xFF) | (value & 0xFF), junk),
            RetKind::U16 | RetKind::I16 => ((junk & !0xFFFF) | (value & 0xFFFF), junk),
            RetKind::U32 => (value, junk),
            RetKind::Ptr => (junk, value),
        }
    }
}

/// One named argument of a trap.
#[derive(Clone, Copy, Debug)]
pub struct Arg {
    /// The parameter name in the SDK prototype (`chunkDataP`).
    pub name: &'static str,
    /// Its width.
    pub kind: ArgKind,
}

/// One trap of the table.
#[derive(Clone, Copy, Debug)]
pub struct TrapInfo {
    /// The trap word (0xAxxx).
    pub trap: u16,
    /// The SDK function name (`MemPtrNew`).
    pub name: &'static str,
    /// The fixed arguments, in prototype order (the first is at 4(SP) on entry).
    pub args: &'static [Arg],
    /// The result.
    pub ret: RetKind,
    /// `...` follows the fixed arguments (StrPrintF, HostControl).
    pub variadic: bool,
    /// The SDK 3.5 header under `include/Core/` that declares it (`System/MemoryMgr.h`).
    pub header: &'static str,
    /// The C prototype as declared there, whitespace normalised.
    pub prototype: &'static str,
    /// Its line in `palm-sys/traps.tbl` (from 1), where its glue comes from: a
    /// report names the generated glue's frames by it.
    pub line: u32,
}

impl TrapInfo {
    /// Total stack bytes of the fixed arguments (what the caller pops).
    pub fn args_stack_bytes(&self) -> u32 {
        self.args.iter().map(|a| a.kind.stack_bytes()).sum()
    }
}

/// Every trap of `traps.tbl`, sorted by trap word (unique words and names).
pub static TRAPS: &[TrapInfo] = include!(concat!(env!("OUT_DIR"), "/table_data.rs"));

/// The trap with this word, by binary search; `None` if it is not in the table.
pub fn trap_info(trap: u16) -> Option<&'static TrapInfo> {
    TRAPS
        .binary_search_by_key(&trap, |t| t.trap)
        .ok()
        .map(|i| &TRAPS[i])
}

/// The trap with this SDK name (`"MemPtrNew"`), by linear search.
pub fn trap_by_name(name: &str) -> Option<&'static TrapInfo> {
    TRAPS.iter().find(|t| t.name == name)
}
