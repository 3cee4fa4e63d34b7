//! memdbg's C interface (`memdbg::capi`, declared in `memdbg/include/memdbg.h`) as
//! a staticlib of its own, for `palm-build lib`: the `#[no_mangle]` functions of
//! `memdbg::capi` are the archive's exported symbols. palm-sys supplies `abort` and
//! the panic handler.
#![no_std]

// Links memdbg (and its C interface) into the staticlib.
extern crate memdbg;
