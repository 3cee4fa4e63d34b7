//! What memdbg tells while it runs and at stop: event records in the ledger
//! (overruns, underruns, double frees, the low heap, small-allocation sites), alerts and
//! `DbgMessage` lines (CloudpilotEmu prints them), built by [`crate::text`] from
//! the templates here.
//!
//! An alert is the ROM's generic error alert (`FrmCustomAlert` with ErrOKAlert,
//! [`crate::probe::ERR_OK_ALERT`]), which returns on every ROM that has it (Palm
//! OS 3.2 and later; without it no alert is shown:
//! [`HeaderFlags::NO_ALERT_DIALOG`]), or with
//! [`Options::ERR_DISPLAY_ALERTS`] the "Fatal Alert" of
//! `ErrDisplayFileLineMsg`, which a debug ROM lets its user continue from but a
//! release ROM (Reset only) and PumpkinOS end the app with. The ledger's header
//! is written before every alert ([`ledger::write_header`]), so an alert that
//! ends the app loses nothing; at stop the alerts come after the ledger is
//! complete and closed (`crate::session`). `DbgMessage` is called only where
//! the start's probe found it ([`HeaderFlags::NO_DBG_MESSAGE`]).

use core::mem::offset_of;

use m68k_palmos_sys as palm;
use palm::codegen::in_register;

use crate::ledger;
use crate::probe::ERR_OK_ALERT;
use crate::record::{AllocRecord, HeaderFlags, Options};
use crate::state::{self, State};
use crate::text::say;

/// A leak's alert: its allocation's sequence number (the report's and the leak
/// line's `#`), size, kind, then the innermost caller ([`ALERT_WHERE`]).
pub static LEAKED: [u8; 22] = *b"Leak #\x01: \x01 bytes (\x03)\x05\0";
/// An overrun's alert, as [`LEAKED`] without the sequence number.
pub static OVERRUN: [u8; 27] = *b"Overrun after \x01 bytes (\x03)\x05\0";
/// An underrun's alert (a damaged chunk header before the block), as [`OVERRUN`].
pub static UNDERRUN: [u8; 29] = *b"Underrun before \x01 bytes (\x03)\x05\0";
/// A double free's alert, as [`LEAKED`].
pub static DOUBLE_FREE: [u8; 28] = *b"Double free of \x01 bytes (\x03)\x05\0";
/// An interior free's alert (a free of an address inside a block), as [`LEAKED`].
pub static INTERIOR_FREE: [u8; 25] = *b"Free inside \x01 bytes (\x03)\x05\0";
/// A leak's `DbgMessage` line: sequence number, size, kind, address, then where
/// it was allocated ([`LEAK_WHERE`]).
pub static LEAK_LINE: [u8; 36] = *b"memdbg: leak #\x01: \x01 bytes (\x03 \x02) at \x05\0";
/// The low-heap `DbgMessage` line: largest free chunk, threshold, free bytes.
pub static LOW_LINE: [u8; 48] = *b"memdbg: largest free chunk \x01 bytes < \x01 (free \x01)\0";
/// [`innermost`]'s templates for an alert (at [`WHERE_NONE`], [`WHERE_FILE`] and
/// [`WHERE_FRAME`]): nothing, " at " and the file and line, " from " and the
/// frame.
pub static ALERT_WHERE: [u8; 18] = *b"\0\0 at \x04:\x01\0 from \x05\0";
/// [`ALERT_WHERE`] for `ErrDisplayFileLineMsg`, whose dialog shows the file and
/// line itself: nothing, nothing, " from " and the frame.
static ERR_DISPLAY_WHERE: [u8; 14] = *b"\0\0\0\0\0\0 from \x05\0";
/// [`innermost`]'s templates for a leak's line: "?", the file and line, the frame.
pub static LEAK_WHERE: [u8; 8] = *b"?\0\x04:\x01\0\x05\0";
/// A frame as an offset in code 1 (its argument: the frame); from [`CODE_RAW`] on,
/// a raw address.
static CODE: [u8; 7] = *b"code+\x02\0";
/// The alert's file for a Rust allocation (it has no file and line).
static RUST: [u8; 5] = *b"rust\0";
/// `FrmCustomAlert`'s unused strings (not NULL: empty).
static EMPTY: [u8; 1] = [0];
/// Where [`innermost`]'s template is in its callers' three: no file and no frame.
const WHERE_NONE: usize = 0;
/// … a file and line.
const WHERE_FILE: usize = 2;
/// … a frame (in [`LEAK_WHERE`] and [`ERR_DISPLAY_WHERE`]).
const WHERE_FRAME: usize = 6;
/// … a frame in [`ALERT_WHERE`].
const ALERT_WHERE_FRAME: usize = 10;
/// Where [`CODE`]'s raw form starts.
const CODE_RAW: usize = 5;

/// The arguments after a message's own that say where the block of allocation
/// record `rec` was allocated, at `args`: with a file (a wrapper's), the template at
/// [`WHERE_FILE`] of the caller's three `t`, the file and the line; else with a
/// frame (a Rust allocation), the template at `frame` ([`WHERE_FRAME`] or
/// [`ALERT_WHERE_FRAME`]), [`CODE`] (or its raw form) and the innermost frame;
/// else only the template at [`WHERE_NONE`].
///
/// # Safety
/// `rec` is an allocation record; `args` has three writable elements.
unsafe fn innermost(rec: *const u8, args: *mut usize, t: &[u8], frame: usize) {
    // SAFETY: the caller's guarantees; `t` holds its three templates.
    unsafe {
        let a = &*rec.cast::<AllocRecord>();
        if a.file.0[0] != 0 {
            *args = t.as_ptr().add(WHERE_FILE) as usize;
            *args.add(1) = rec.add(offset_of!(AllocRecord, file)) as usize;
            *args.add(2) = in_register(u32::from(a.line.get())) as usize;
        } else if a.stack.count != 0 {
            *args = t.as_ptr().add(frame) as usize;
            let raw = if a.stack.raw_mask & 1 != 0 {
                CODE_RAW
            } else {
                0
            };
            *args.add(1) = CODE.as_ptr().add(raw) as usize;
            *args.add(2) = a.stack.frames[0].get() as usize;
        } else {
            *args = t.as_ptr().add(WHERE_NONE) as usize;
        }
    }
}

/// With [`Options::DBG_MESSAGES`], where `DbgMessage` exists (no
/// [`HeaderFlags::NO_DBG_MESSAGE`]), says template `t` with the scratch arguments
/// ([`say`]) and shows it with `DbgMessage`.
pub fn dbg_message(st: &State, t: &[u8]) {
    if st.has(Options::DBG_MESSAGES) && st.flags & HeaderFlags::NO_DBG_MESSAGE.bits() == 0 {
        // SAFETY: a NUL-terminated template; its callers store its arguments.
        let m = unsafe { say(st, t.as_ptr()) };
        // SAFETY: the message is NUL-terminated.
        unsafe { palm::DbgMessage(m.cast()) }
    }
}

/// The leak line of allocation record `rec` ([`LEAK_LINE`]: "memdbg: leak #3: 16
/// bytes (handle 0x00012344) at src/leaks.rs:42"; a Rust allocation's "at
/// code+0x000001A2", its innermost frame), with [`Options::DBG_MESSAGES`].
///
/// # Safety
/// `rec` is a readable allocation record.
pub unsafe fn leak_line(st: &State, rec: *const u8) {
    let args = st.sc().args.as_mut_ptr();
    // SAFETY: the caller's guarantee; the scratch arguments (ARGS elements).
    unsafe {
        let a = &*rec.cast::<AllocRecord>();
        *args = a.seq.get() as usize;
        *args.add(1) = a.size.get() as usize;
        *args.add(2) = in_register(u32::from(a.kind)) as usize;
        *args.add(3) = a.address.get() as usize;
        innermost(rec, args.add(4), &LEAK_WHERE, WHERE_FRAME);
    }
    dbg_message(st, &LEAK_LINE);
}

/// Shows an alert about allocation record `rec` saying template `t` with the
/// record's sequence number when `numbered` (the leak alert's), its size and
/// kind `kind` ("Leak #3: 16 bytes (handle) at src/leaks.rs:42"; `t` ends with
/// [`crate::text::THEN`] for the tail,
/// [`ALERT_WHERE`]): `FrmCustomAlert(ErrOKAlert, message, "", "")`, or with
/// [`Options::ERR_DISPLAY_ALERTS`] `ErrDisplayFileLineMsg` at the record's file
/// and line (the message without them); nothing with
/// [`HeaderFlags::NO_ALERT_DIALOG`]. A Rust allocation has no file and line: the
/// message ends with its innermost caller as an offset in code 1 ("Leak #30: 24
/// bytes (Rust alloc) from code+0x00000C7A"; `memdbg report` or `addr2line` on
/// the ELF turns it into a function and line), and `ErrDisplayFileLineMsg`
/// shows file "rust", line 0. Every alert memdbg shows is this one function's;
/// counting it and writing the header first is its callers' ([`alert_now`] and
/// `stop`).
///
/// # Safety
/// `rec` is a readable allocation record (its file NUL-terminated, as FileName
/// keeps it).
pub unsafe fn alert(st: &State, rec: *const u8, kind: u8, t: &[u8], numbered: bool) {
    if !alerts_shown(st) {
        return;
    }
    let err_display = st.has(Options::ERR_DISPLAY_ALERTS);
    let mut args = st.sc().args.as_mut_ptr();
    // SAFETY: the caller's guarantee; the scratch arguments (ARGS elements: the
    // sequence number, size, kind and three for the tail at most).
    unsafe {
        let a = &*rec.cast::<AllocRecord>();
        if numbered {
            *args = a.seq.get() as usize;
            args = args.add(1);
        }
        *args = a.size.get() as usize;
        *args.add(1) = usize::from(kind);
        if err_display {
            innermost(rec, args.add(2), &ERR_DISPLAY_WHERE, WHERE_FRAME);
        } else {
            innermost(rec, args.add(2), &ALERT_WHERE, ALERT_WHERE_FRAME);
        }
        let msg = say(st, t.as_ptr());
        if err_display {
            let file = if a.file.0[0] == 0 {
                RUST.as_ptr()
            } else {
                rec.add(offset_of!(AllocRecord, file))
            };
            palm::ErrDisplayFileLineMsg(file.cast(), a.line.get(), msg.cast());
        } else {
            let empty = EMPTY.as_ptr().cast();
            palm::FrmCustomAlert(ERR_OK_ALERT, msg.cast(), empty, empty);
        }
    }
}

/// An alert while the app runs (an overrun or a double free found at once):
/// counted, the header written with the count ([`ledger::write_header`]: should
/// the alert end the app, the ledger has everything up to it), then
/// [`alert`].
///
/// # Safety
/// As [`alert`].
pub unsafe fn alert_now(st: &State, rec: *const u8, kind: u8, t: &[u8]) {
    if alerts_shown(st) {
        state::bump(&mut st.counters().alerts);
    }
    ledger::write_header(st, 0);
    // SAFETY: the caller's guarantee.
    unsafe { alert(st, rec, kind, t, false) };
}

/// Whether [`alert`] shows anything (the dialog exists, or
/// [`Options::ERR_DISPLAY_ALERTS`] is on).
pub fn alerts_shown(st: &State) -> bool {
    st.has(Options::ERR_DISPLAY_ALERTS) || st.flags & HeaderFlags::NO_ALERT_DIALOG.bits() == 0
}

/// An event: its record (`head_len` bytes at `head`, then allocation record `rec`
/// with kind `kind`, [`ledger::event`]) and, when option `alert_option`
/// ([`Options::ALERT_OVERRUNS`], [`Options::ALERT_DOUBLE_FREES`]; empty: none) is
/// on, its alert saying `t` ([`alert_now`]).
///
/// # Safety
/// As [`ledger::event`] for `head`, `head_len` and `rec`.
pub unsafe fn report(
    st: &mut State,
    head: *mut u8,
    head_len: u32,
    rec: *const u8,
    kind: u8,
    alert_option: Options,
    t: &[u8],
) {
    // SAFETY: the caller's guarantees.
    unsafe { ledger::event(st, head, head_len, rec, kind) };
    if st.has(alert_option) {
        // SAFETY: as above: `rec` is an allocation record.
        unsafe { alert_now(st, rec, kind, t) };
    }
}
