//! # StarterApp: memdbg in a real Palm OS application
//!
//! A small Palm OS 3.5 application (a form, a menu, an alert) with one button
//! per memory bug, run with the memdbg leak detector switched on for its whole
//! lifetime — in the spirit of the Starter project and "Figure 1" leaks of
//! Dr. Dobb's "Palm OS Memory Leak Detection". Copy it to start your own app:
//! the parts that are about memdbg are marked "memdbg:" below, the rest is
//! the usual Palm OS skeleton.
//!
//! - [`pilot_main`]: at a normal launch, `memdbg::start`, `FrmGotoForm(MainForm)`,
//!   the event loop, `FrmCloseAllForms`, `memdbg::stop`. Every other launch
//!   code (Find, SyncNotify, SystemReset, …) returns at once: the app then has
//!   no globals and may not be the UI app, and memdbg must not run.
//! - The event loop: `EvtGetEvent` → `SysHandleEvent` → `MenuHandleEvent` →
//!   the app's `frmLoadEvent` handling (`FrmInitForm`, `FrmSetActiveForm`,
//!   `FrmSetEventHandler`) → `FrmDispatchEvent`, until `appStopEvent`.
//! - The main form's handler: `frmOpenEvent` draws the form, a button's
//!   `ctlSelectEvent` runs its scenario ([`scenarios`], one function per
//!   button, documented there with what memdbg reports), Exit queues an
//!   `appStopEvent`, and Options ▸ About shows the About alert.
//! - [`memdbg::MemDbgAlloc`] is the global allocator, so Rust's `Box` and
//!   `Vec` are tracked too.
//! - IDs come from `rsrc/StarterAppRsc.h` through the build script ([`ids`]).
//!
//! Build, run and read the report (the demo leaks on purpose, hence
//! `--allow-leaks`):
//!
//! ```text
//! cargo run -p palm-build -- app --manifest-path starter-app/Cargo.toml
//! cargo run -p palm-run -- target/palm/StarterApp.prc --events starter-app/events.txt \
//!     --allow-leaks --elf target/palm/StarterApp.elf --export MemDbgDB=target/palm/MemDbgDB.pdb
//! cargo run -p memdbg-report -- report target/palm/MemDbgDB.pdb --elf target/palm/StarterApp.elf
//! ```
//!
//! The code follows the rules of 68k Rust in this workspace (TOOLCHAIN.md): no
//! writable statics, no statics holding pointers, no `core::fmt`, no `dyn`.

#![cfg_attr(target_arch = "m68k", no_std)]
#![cfg_attr(target_arch = "m68k", feature(asm_experimental_arch))]
#![deny(missing_docs)]

extern crate alloc;

pub mod ids;
pub mod scenarios;

use core::ptr;

use m68k_palmos_sys::{self as palm, EventType, MemPtr, UInt16, UInt32};
use memdbg::{Options, Settings};
use palm::events;

// memdbg: Rust allocations (Box, Vec) go through the detector too.
#[global_allocator]
static ALLOC: memdbg::MemDbgAlloc = memdbg::MemDbgAlloc;

palm::app_entry!(pilot_main);
palm::form_event_handler!(pub main_form_handler => main_form_event);

/// memdbg: how the detector runs in this demo. Everything it can show: guard
/// bytes after every block, call stacks in every record, heap statistics,
/// an alert per leak at exit (up to 5) and one `DbgMessage` line each, the
/// free traps patched (so `FrmDeleteForm`'s frees are seen), overruns and
/// double frees alerted when found, and a warning if the dynamic heap's
/// largest free chunk ever drops below 8 KB.
pub const MEMDBG_SETTINGS: Settings = Settings {
    options: Options::GUARDS
        .union(Options::CALL_STACKS)
        .union(Options::HEAP_STATS)
        .union(Options::ALERTS_AT_EXIT)
        .union(Options::DBG_MESSAGES)
        .union(Options::PATCH_FREES)
        .union(Options::ALERT_OVERRUNS)
        .union(Options::ALERT_DOUBLE_FREES),
    max_alerts: 5,
    capacity: 128,
    low_heap_threshold: 8 * 1024,
};

/// `UInt32 PilotMain(UInt16 cmd, MemPtr cmdPBP, UInt16 launchFlags)`, called by
/// the entry (`app_entry!`). Only the normal launch runs the app; it returns
/// `errNone`.
///
/// # Safety
/// Called only by the entry trampoline, with the launch parameters Palm OS gave.
pub unsafe extern "C" fn pilot_main(cmd: UInt16, _cmd_pbp: MemPtr, _flags: UInt16) -> UInt32 {
    if cmd != palm::launch::sysAppLaunchCmdNormalLaunch {
        return UInt32::from(palm::errNone);
    }
    // memdbg: on. If it cannot start (no memory, MemDbgDB held open by another
    // app) the app still runs, untracked (the wrappers are then the plain OS
    // calls): the debug console says so.
    if memdbg::start(&MEMDBG_SETTINGS).is_err() {
        // SAFETY: a NUL-terminated string constant.
        unsafe { palm::DbgMessage(c"StarterApp: memdbg did not start: not tracking".as_ptr()) };
    }
    // SAFETY: MainForm is a tFRM resource of this app.
    unsafe { palm::FrmGotoForm(ids::MainForm) };
    event_loop();
    // Deleting the forms frees the field's text handle (the field-handle
    // scenario): memdbg must still be running to see that free.
    // SAFETY: no arguments; closes the forms this app opened.
    unsafe { palm::FrmCloseAllForms() };
    // memdbg: off. What is still allocated now is a leak: alerts, DbgMessage
    // lines and the records in MemDbgDB.
    let _ = memdbg::stop();
    UInt32::from(palm::errNone)
}

/// The standard Palm OS event loop, until `appStopEvent`.
fn event_loop() {
    let mut event = EventType::zeroed();
    loop {
        let mut error: UInt16 = 0;
        // SAFETY: `event` and `error` are live locals the calls fill in; a null
        // menu bar means the active form's.
        unsafe {
            palm::EvtGetEvent(&mut event, events::evtWaitForever);
            if palm::SysHandleEvent(&mut event) == 0
                && palm::MenuHandleEvent(ptr::null_mut(), &mut event, &mut error) == 0
                && !app_handle_event(&event)
            {
                palm::FrmDispatchEvent(&mut event);
            }
        }
        if event.eType == events::appStopEvent {
            break;
        }
    }
}

/// Events for the application rather than a form: `frmLoadEvent` loads the
/// form, makes it active and gives it its event handler. True if handled.
fn app_handle_event(event: &EventType) -> bool {
    if event.eType != events::frmLoadEvent {
        return false;
    }
    let form_id = event.form_id();
    // SAFETY: the OS sends frmLoadEvent for this app's own tFRM resources.
    unsafe {
        let form = palm::FrmInitForm(form_id);
        palm::FrmSetActiveForm(form);
        if form_id == ids::MainForm {
            palm::FrmSetEventHandler(form, main_form_handler);
        }
    }
    true
}

/// The main form's event handler (behind the `main_form_handler`
/// trampoline). True if the event was handled; false lets `FrmHandleEvent`
/// do the default (e.g. `frmCloseEvent` deletes the form).
extern "C" fn main_form_event(event: *mut EventType) -> bool {
    // SAFETY: the Form Manager passes a valid event for the call's duration.
    let event = unsafe { &*event };
    match event.eType {
        events::frmOpenEvent => {
            // SAFETY: the form being opened is the active form.
            unsafe { palm::FrmDrawForm(palm::FrmGetActiveForm()) };
            true
        }
        events::ctlSelectEvent => button_pressed(event.ctl_select().controlID),
        events::menuEvent if event.menu_item() == ids::OptionsAboutCmd => {
            // SAFETY: AboutAlert is a Talt resource of this app.
            unsafe { palm::FrmAlert(ids::AboutAlert) };
            true
        }
        _ => false,
    }
}

/// Runs the scenario of button `id`, or queues the app's exit for Exit.
fn button_pressed(id: UInt16) -> bool {
    match id {
        ids::MainLeakPtrButton => scenarios::leak_pointer(),
        ids::MainLeakHandleButton => scenarios::leak_handle(),
        ids::MainFieldHandleButton => scenarios::field_handle(),
        ids::MainResizePtrButton => scenarios::resize_pointer(),
        ids::MainMoveHandleButton => scenarios::move_handle(),
        ids::MainOverrunButton => scenarios::overrun(),
        ids::MainDoubleFreeButton => scenarios::double_free(),
        ids::MainFragmentButton => scenarios::fragment(),
        ids::MainLeakBoxButton => scenarios::leak_box(),
        ids::MainCorrectButton => scenarios::correct(),
        ids::MainExitButton => {
            let mut stop = EventType::zeroed();
            stop.eType = events::appStopEvent;
            // SAFETY: the OS copies the event into its queue.
            unsafe { palm::EvtAddEventToQueue(&stop) };
        }
        _ => return false,
    }
    true
}
