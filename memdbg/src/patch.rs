//! The trap patches (PALM_FACTS §3.4): `MemChunkFree` and `MemHandleFree` (with
//! [`Options::PATCH_FREES`]) so that every free is matched, and `MemPtrSize`,
//! `MemHandleSize`, `MemPtrResize` and `MemHandleResize` (with [`Options::GUARDS`]) so
//! that the guard bytes are invisible: a tracked guarded block's size is the size
//! asked for (not the chunk's, which includes the guard), and a resize done by
//! anyone (the Field Manager growing a field's text handle, the app calling the trap
//! directly) moves the guard and updates the record as the resize wrappers do;
//! `MemPtrUnlock` and `MemHandleUnlock` (with [`Options::LOCK_CHECKS`]) so that an
//! unlock of a tracked handle that is not locked is caught before the OS sees it
//! ([`crate::unlock`]).
//!
//! `start` saves the original addresses with `SysGetTrapAddress` and points the
//! dispatch-table entries, with `SysSetTrapAddress` (each read back), at small
//! trampolines it writes into the state's system-owned chunk ([`install`]); `stop`
//! puts the exact originals back and reads them back too ([`remove`]). All wanted
//! patches are installed, or none ([`HeaderFlags::PATCHES_REFUSED`]).
//!
//! Each trampoline (a copy of `asm/patches.s`'s template, 40 bytes) checks that
//! the app is still there, pushes the state chunk's address (+1 for the handle
//! form of a trap) and jumps to its entry in code 1:
//!
//! ```text
//! cmpi.b #$20,lock.l     ; 0C39 0020 llll llll   code 1's chunk still locked twice?
//! bcs.s  gone            ; 65xx
//! cmpi.l #first,entry.l  ; 0CB9 ffff ffff eeee eeee   its entry still there?
//! bne.s  gone            ; 66xx
//! move.l #state,-(%sp)   ; 2F3C ssss ssss
//! jmp    entry           ; 4EF9 eeee eeee   (absolute: code 1 is locked while the app runs)
//! gone: jmp original     ; 4EF9 oooo oooo
//! ```
//!
//! so the patches find the state without a Feature Manager call, and an app that
//! returned without `stop` (its patches still installed, its code unlocked by the
//! OS at exit, then perhaps moved or its memory reused) costs the next app four
//! instructions per patched call instead of a jump into freed code: `lock` is
//! code 1's chunk header + 4, whose bits 7–4 are the lock count (PALM_FACTS
//! §5.1: 2 while the app runs, the OS's lock and `start`'s own; 1 once the app
//! has exited), and `first` the entry's first long as `install` read it. The
//! header is read only where the start's probe found the OS 3.x layout; with
//! [`HeaderFlags::DOCUMENTED_CALLS`], or without a located code 1, only the
//! second check is made (`lock` is then the `jmp` opcode's byte, always ≥ 0x20).
//! The entries
//! (`asm/patches.s`) are assembly because they are called as the traps, with
//! Palm's register rules, and need the caller's return address (the free's site,
//! and whether the app or the OS freed) and its A6 (to walk its callers); they do
//! the bookkeeping ([`crate::free`], [`crate::resize`]) and chain to the saved
//! original with JSR, never through `TRAP #15` (which would enter the patch again).
//! A patch entered while the detector is busy (its own Data Manager calls, a
//! wrapper's resize) goes straight to the original. Every argument is a pointer or
//! a `UInt32`: the Palm layout and LLVM's agree.

use core::ffi::c_void;
use core::mem::offset_of;

use m68k_palmos_sys as palm;
use palm::traps::{
    sysTrapMemChunkFree, sysTrapMemHandleFree, sysTrapMemHandleResize, sysTrapMemHandleSize,
    sysTrapMemHandleUnlock, sysTrapMemPtrResize, sysTrapMemPtrSize, sysTrapMemPtrUnlock,
};

use crate::record::{HeaderFlags, Options};
use crate::state::{
    PATCHED_FREES, PATCHED_SIZES, PATCHED_UNLOCKS, State, TRAMPOLINE_LEN, TRAMPOLINES,
};

/// Where a trampoline holds the address of the byte with code 1's lock count.
const TRAMPOLINE_LOCK_AT: usize = 4;
/// Where a trampoline holds the first long of its entry, as `install` read it.
const TRAMPOLINE_CODE: usize = 12;
/// Where a trampoline holds the address it compares with that long (the entry).
const TRAMPOLINE_CODE_AT: usize = 16;
/// Where a trampoline holds the (tagged) state's address.
const TRAMPOLINE_STATE: usize = 24;
/// Where a trampoline holds its entry's address.
const TRAMPOLINE_ENTRY: usize = 30;
/// Where a trampoline holds the saved original's address.
const TRAMPOLINE_ORIG: usize = 36;
/// The lowest chunk header byte of code 1 while its app runs: lock count 2 in
/// bits 7–4 of the second long's first byte (PALM_FACTS §5.1), the OS's (which
/// runs it) and memdbg's own (`start` locks code 1 until `stop`). An app that
/// exits without `stop` leaves only memdbg's.
const CODE_LOCKED: u8 = 0x20;
/// From a chunk's body to its header's byte with the lock count: the header is
/// the 8 bytes before the body, the lock count in the top nibble of its second
/// long (PALM_FACTS §5.1).
const LOCK_BYTE_BEFORE_BODY: u32 = 4;
/// Where in a trampoline an opcode byte of at least [`CODE_LOCKED`] is: its
/// entry `jmp`'s 0x4E, the lock check's target when code 1 is unknown.
const TRAMPOLINE_JMP_OPCODE: usize = TRAMPOLINE_ENTRY - 2;

asm_constants! {
    TRAMPOLINE_LOCK_AT = TRAMPOLINE_LOCK_AT;
    TRAMPOLINE_CODE = TRAMPOLINE_CODE;
    TRAMPOLINE_CODE_AT = TRAMPOLINE_CODE_AT;
    TRAMPOLINE_STATE = TRAMPOLINE_STATE;
    TRAMPOLINE_ENTRY = TRAMPOLINE_ENTRY;
    TRAMPOLINE_ORIG = TRAMPOLINE_ORIG;
    CODE_LOCKED = CODE_LOCKED;
}

/// One patched trap.
struct Patch {
    /// The trap's number.
    trap: u16,
    /// Where its saved original is in [`State`] (a byte offset).
    orig: usize,
    /// Its [`State::patched`] group bit.
    group: u8,
}

/// The patched traps, in trampoline order (the handle form of each pair second).
const PATCHES: [Patch; TRAMPOLINES] = [
    Patch {
        trap: sysTrapMemChunkFree,
        orig: offset_of!(State, orig_chunk_free),
        group: PATCHED_FREES,
    },
    Patch {
        trap: sysTrapMemHandleFree,
        orig: offset_of!(State, orig_handle_free),
        group: PATCHED_FREES,
    },
    Patch {
        trap: sysTrapMemPtrSize,
        orig: offset_of!(State, orig_ptr_size),
        group: PATCHED_SIZES,
    },
    Patch {
        trap: sysTrapMemHandleSize,
        orig: offset_of!(State, orig_handle_size),
        group: PATCHED_SIZES,
    },
    Patch {
        trap: sysTrapMemPtrResize,
        orig: offset_of!(State, orig_ptr_resize),
        group: PATCHED_SIZES,
    },
    Patch {
        trap: sysTrapMemHandleResize,
        orig: offset_of!(State, orig_handle_resize),
        group: PATCHED_SIZES,
    },
    // 0xA035 and 0xA022 (sdk-3.5 `CoreTraps.h`, jichu4n/palm-os-sdk;
    // palm-sys's `traps.tbl`).
    Patch {
        trap: sysTrapMemPtrUnlock,
        orig: offset_of!(State, orig_ptr_unlock),
        group: PATCHED_UNLOCKS,
    },
    Patch {
        trap: sysTrapMemHandleUnlock,
        orig: offset_of!(State, orig_handle_unlock),
        group: PATCHED_UNLOCKS,
    },
];

/// Trap `i`'s saved original.
fn original(st: &mut State, i: usize) -> &mut *mut c_void {
    // SAFETY: PATCHES holds the offsets of State's `*mut c_void` fields.
    unsafe {
        &mut *(st as *mut State)
            .cast::<u8>()
            .add(PATCHES[i].orig)
            .cast::<*mut c_void>()
    }
}

/// The trampoline the dispatch table points at for trap `i`.
fn trampoline(st: &State, i: usize) -> *mut c_void {
    // SAFETY: the trampoline chunk holds TRAMPOLINES trampolines.
    unsafe { st.trampolines.add(i * TRAMPOLINE_LEN).cast() }
}

/// The address of code 1's symbol `$sym`, made PC-relative (`lea`: a table of code
/// addresses would need absolute relocations, TOOLCHAIN.md).
macro_rules! code_address {
    ($sym:path) => {{
        #[cfg(target_arch = "m68k")]
        {
            let a: u32;
            // SAFETY: an address computation only.
            unsafe {
                core::arch::asm!(
                    "lea ({s},%pc),{a}",
                    s = sym $sym,
                    a = out(reg_addr) a,
                    options(pure, nomem, nostack, preserves_flags),
                )
            };
            a
        }
        #[cfg(not(target_arch = "m68k"))]
        crate::not_on_palm::<u32>()
    }};
}

/// The entry of trap pair `pair` (0: the frees, 1: the sizes, 2: the resizes,
/// 3: the unlocks).
fn entry(pair: usize) -> u32 {
    match pair {
        0 => code_address!(__memdbg_free_entry),
        1 => code_address!(__memdbg_size_entry),
        2 => code_address!(__memdbg_resize_entry),
        _ => code_address!(__memdbg_unlock_entry),
    }
}

#[cfg(target_arch = "m68k")]
unsafe extern "C" {
    /// `asm/patches.s`: the trampolines' template (code, copied).
    fn __memdbg_trampoline();
    /// `asm/patches.s`: `MemChunkFree`/`MemHandleFree`'s entry.
    fn __memdbg_free_entry();
    /// `asm/patches.s`: `MemPtrSize`/`MemHandleSize`'s entry.
    fn __memdbg_size_entry();
    /// `asm/patches.s`: `MemPtrResize`/`MemHandleResize`'s entry.
    fn __memdbg_resize_entry();
    /// `asm/patches.s`: `MemPtrUnlock`/`MemHandleUnlock`'s entry.
    fn __memdbg_unlock_entry();
}

/// Points `trap` at `to` and reads it back: 0 when it holds `to`, else nonzero.
fn set(trap: u16, to: *mut c_void) -> u32 {
    // SAFETY: plain System Manager calls.
    unsafe {
        if palm::SysSetTrapAddress(trap, to) != palm::errNone {
            return 1;
        }
        palm::SysGetTrapAddress(trap) as u32 ^ to as u32
    }
}

/// Saves the originals, writes the trampolines into `st.trampolines` (allocated by
/// `start`) and installs every wanted patch — the free traps with
/// [`Options::PATCH_FREES`], the size and resize traps with [`Options::GUARDS`]
/// (they hide the guard bytes), the unlock traps with [`Options::LOCK_CHECKS`] —
/// or none: a refusal (Palm OS 5, PumpkinOS) puts back
/// what was installed and sets [`HeaderFlags::PATCHES_REFUSED`].
pub fn install(st: &mut State) {
    let mut want = 0;
    if st.has(Options::PATCH_FREES) {
        want |= PATCHED_FREES;
    }
    if st.has(Options::GUARDS) {
        want |= PATCHED_SIZES;
    }
    if st.has(Options::LOCK_CHECKS) {
        want |= PATCHED_UNLOCKS;
    }
    if want == 0 {
        return;
    }
    for (i, p) in PATCHES.iter().enumerate() {
        // SAFETY: plain System Manager call.
        *original(st, i) = unsafe { palm::SysGetTrapAddress(p.trap) };
    }
    let state = st as *mut State as u32;
    let template = code_address!(__memdbg_trampoline) as usize as *const u8;
    for i in 0..TRAMPOLINES {
        let at = trampoline(st, i).cast::<u8>();
        let to = entry(i / 2);
        let lock = if st.code.base != 0 && st.documented == 0 {
            st.code.base - LOCK_BYTE_BEFORE_BODY
        } else {
            at as u32 + TRAMPOLINE_JMP_OPCODE as u32
        };
        let put = |field: usize, v: u32| {
            // SAFETY: a long field of the trampoline being written, at an even
            // offset of an even address (the 68000 stores longs at even ones).
            unsafe { at.add(field).cast::<u32>().write(v) }
        };
        // SAFETY: TRAMPOLINES trampolines fit in the chunk `start` allocated; the
        // template is TRAMPOLINE_LEN bytes of code 1; the entry is code 1's
        // (even: a function's address).
        unsafe {
            core::ptr::copy_nonoverlapping(template, at, TRAMPOLINE_LEN);
            put(TRAMPOLINE_CODE, (to as usize as *const u32).read());
        }
        put(TRAMPOLINE_LOCK_AT, lock);
        put(TRAMPOLINE_CODE_AT, to);
        put(TRAMPOLINE_STATE, state + (i as u32 & 1));
        put(TRAMPOLINE_ENTRY, to);
        put(TRAMPOLINE_ORIG, *original(st, i) as u32);
    }
    for (i, p) in PATCHES.iter().enumerate() {
        if p.group & want != 0 && set(p.trap, trampoline(st, i)) != 0 {
            put_back(st, want, false);
            st.flag(HeaderFlags::PATCHES_REFUSED);
            return;
        }
    }
    st.patched = want;
}

/// Puts back the saved originals of the patch groups in `groups`. With `ours` (at
/// stop) each entry should hold our trampoline: an entry that does not is left as
/// it is, and it or a set that does not read back makes the result nonzero. Without
/// (a refused install), an entry is set back unless it holds the original (the
/// result is then meaningless).
fn put_back(st: &mut State, groups: u8, ours: bool) -> u32 {
    let mut disturbed = 0;
    for (i, p) in PATCHES.iter().enumerate() {
        if p.group & groups != 0 {
            // SAFETY: plain System Manager call.
            let now = unsafe { palm::SysGetTrapAddress(p.trap) };
            let orig = *original(st, i);
            let go = if ours {
                now == trampoline(st, i)
            } else {
                now != orig
            };
            disturbed |= if go {
                set(p.trap, orig)
            } else {
                u32::from(ours)
            };
        }
    }
    disturbed
}

/// Restores the exact original addresses (read back). If an entry no longer holds our
/// trampoline, someone patched over it (and may chain to the trampoline): that entry
/// is left as it is and [`HeaderFlags::TRAPS_DISTURBED`] is set (restoring the
/// original would drop their patch; either way their patch must be gone before
/// `stop` frees the trampolines with the state).
pub fn remove(st: &mut State) {
    if put_back(st, st.patched, true) != 0 {
        st.flag(HeaderFlags::TRAPS_DISTURBED);
    }
    st.patched = 0;
}
