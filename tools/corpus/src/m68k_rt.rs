//! The 68k runtime pieces a no_std staticlib needs when it does not link
//! m68k-palmos-sys: `abort` (panics are `jsr abort` with
//! `panic = "immediate-abort"`) and the panic handler. Both stop the CPU with
//! an illegal instruction, which the emulator harness reports.

#[unsafe(no_mangle)]
extern "C" fn abort() -> ! {
    // SAFETY: ILLEGAL (0x4AFC) traps to the illegal-instruction vector.
    unsafe { core::arch::asm!(".short 0x4afc", options(noreturn)) }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    abort()
}
