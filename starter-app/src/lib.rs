//! The memdbg starter application (Palm OS, 68k).
//!
//! The entry (`__palm_entry`, first in code resource 1) does what prc-tools'
//! crt0 does: SysAppStartup, PilotMain, SysAppExit. PilotMain handles the
//! normal launch and returns `errNone` for every other launch code without
//! touching anything (the app has no globals for most of them).

#![cfg_attr(target_arch = "m68k", no_std)]
#![cfg_attr(target_arch = "m68k", feature(asm_experimental_arch))]

use m68k_palmos_sys::{self as palm, MemPtr, UInt16, UInt32};

palm::app_entry!(pilot_main);

/// `UInt32 PilotMain(UInt16 cmd, MemPtr cmdPBP, UInt16 launchFlags)`.
///
/// # Safety
/// Called only by the entry trampoline, with the launch parameters Palm OS gave.
pub unsafe extern "C" fn pilot_main(
    cmd: UInt16,
    _cmd_pbp: MemPtr,
    _launch_flags: UInt16,
) -> UInt32 {
    if cmd != palm::launch::sysAppLaunchCmdNormalLaunch {
        return UInt32::from(palm::errNone);
    }
    UInt32::from(palm::errNone)
}
