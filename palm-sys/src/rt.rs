//! Runtime pieces every 68k image needs (feature `rt`, on by default; 68k only).
//!
//! - `abort`: with `panic = "immediate-abort"` every panic compiles to `jsr abort`
//!   (TOOLCHAIN.md). It reports through `ErrDisplayFileLineMsg`, which is fatal on Palm
//!   OS (a fatal-error dialog whose only exit is a reset; palm-run ends the app), and
//!   never returns: if a debugger continues, it calls `SysReset` and then spins.
//! - `#[panic_handler]`: required by `no_std`; with immediate-abort it is never reached
//!   except through an explicit `core::panicking` call, and it simply aborts (no
//!   `core::fmt`, whose vtables would need relocations).
//!
//! Disable the feature (`default-features = false`) to provide your own.

/// The message `abort` shows.
pub const ABORT_MESSAGE: &core::ffi::CStr = c"Rust panic (abort)";
/// The file name `abort` reports.
pub const ABORT_FILE: &core::ffi::CStr = c"rust";

/// The C `abort`: report a fatal error through `ErrDisplayFileLineMsg` and never return.
#[cfg(all(feature = "rt", target_arch = "m68k"))]
#[unsafe(no_mangle)]
pub extern "C" fn abort() -> ! {
    // SAFETY: both strings are NUL-terminated constants in code memory.
    unsafe { crate::ErrDisplayFileLineMsg(ABORT_FILE.as_ptr(), 0, ABORT_MESSAGE.as_ptr()) };
    // SAFETY: SysReset takes no arguments; it does not return on a device.
    unsafe { crate::SysReset() };
    #[allow(clippy::empty_loop)]
    loop {}
}

#[cfg(all(feature = "rt", target_arch = "m68k"))]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    abort()
}
