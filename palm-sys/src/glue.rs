//! Calling Palm OS traps from Rust: one `unsafe fn` per trap, generated from
//! `traps.tbl`, re-exported at the crate root (`palm_sys::MemPtrNew`).
//!
//! # The convention (PALM_FACTS.md §3, §6.3)
//! Each function is inline asm that
//! 1. pushes the arguments right to left in Palm layout: `move.l` for 32-bit values and
//!    pointers, `move.w` for 16-bit values, `move.b Dn,-(%sp)` for 8-bit values (the
//!    68000 moves SP by 2 for a byte push, so the value lands in the **high** byte of a
//!    2-byte slot);
//! 2. executes `trap #15` followed by `.short 0xAxxx`;
//! 3. pops exactly the bytes it pushed with `lea (n,%sp),%sp`;
//! 4. reads a pointer result from A0 and an integer result from D0, and masks it to
//!    the declared width (`as u16`/`as u8`, sign-extending `Int16`) because Palm OS leaves
//!    the upper bits of D0 undefined;
//! 5. declares D0–D2/A0–A1, memory and flags clobbered and never touches A5 (the app's
//!    globals) or A6 (the frame-pointer chain).
//!
//! Traps with more than 6 fixed arguments (`DmDatabaseInfo` has 13) would need more
//! registers than inline asm can have, so their glue first fills a `#[repr(C)]` struct
//! that *is* the Palm layout (on the 68k every 16/32-bit field is 2-byte aligned), then
//! copies it onto the stack from its end with `move.l -(An),-(%sp)`.
//!
//! Variadic traps (`StrPrintF`, `HostControl`) take their variable part as a
//! [`PalmVaList`]: bytes already in Palm layout (`%d` = 2 bytes, `%ld` and `%s` = 4),
//! copied word by word below the fixed arguments.
//!
//! On targets other than the 68k every function exists (so code using them compiles
//! and host tests can link) but panics with "needs Palm OS" when called, like
//! cortex-m's `asm_cfg` stubs.
#![allow(non_snake_case)]

use crate::types::*;
use core::marker::PhantomData;

/// The variable part of a variadic trap's arguments (`StrPrintF`, `HostControl`): a
/// borrowed block of bytes in Palm stack layout, copied onto the stack after the fixed
/// arguments. Its length is even (stack slots are 2 bytes).
#[derive(Clone, Copy, Debug)]
pub struct PalmVaList<'a> {
    ptr: *const u8,
    len: u32,
    _borrow: PhantomData<&'a [u8]>,
}

impl PalmVaList<'static> {
    /// No variable arguments.
    pub const EMPTY: PalmVaList<'static> = PalmVaList {
        ptr: core::ptr::null(),
        len: 0,
        _borrow: PhantomData,
    };
}

impl<'a> PalmVaList<'a> {
    /// The bytes of `args`, which must be a `#[repr(C)]` struct laid out as Palm expects
    /// the variable arguments: `u16`/`i16` fields for `%d`/`%x`/`%c`-style conversions
    /// (StrPrintF reads 2 bytes for them), `u32`/`i32` for `%ld`/`%lx`, pointers for `%s`.
    /// On the 68k `repr(C)` gives exactly that layout; on other targets the value is only
    /// carried around (the glue panics there). An odd-sized `T` is a compile error.
    pub fn new<T: Copy>(args: &'a T) -> Self {
        const {
            assert!(
                core::mem::size_of::<T>() % 2 == 0,
                "Palm stack slots are 2 bytes"
            )
        };
        PalmVaList {
            ptr: (args as *const T).cast(),
            len: core::mem::size_of::<T>() as u32,
            _borrow: PhantomData,
        }
    }

    /// Start of the block.
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr
    }

    /// Length of the block in bytes (even).
    pub fn len_bytes(&self) -> u32 {
        self.len
    }
}

include!(concat!(env!("OUT_DIR"), "/glue.rs"));
