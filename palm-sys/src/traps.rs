//! Trap numbers: `sysTrap<Name>` = the 16-bit word that follows `TRAP #15`
//! (Palm OS SDK 3.5 `Core/CoreTraps.h`), generated from `traps.tbl`.
#![allow(non_upper_case_globals)]

/// First system trap word (`sysTrapBase`, CoreTraps.h).
pub const sysTrapBase: u16 = 0xA000;
/// First library trap word (`sysLibTrapBase`, Libraries/LibTraps.h).
pub const sysLibTrapBase: u16 = 0xA800;

include!(concat!(env!("OUT_DIR"), "/trap_numbers.rs"));
