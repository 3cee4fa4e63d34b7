//! The trap table (number, name, argument widths, return kind), from
//! `m68k_palmos_sys::table`: the workspace's single source of truth.

pub use m68k_palmos_sys::table::*;
