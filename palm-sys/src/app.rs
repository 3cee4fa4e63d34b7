//! The application event loop of a form-based Palm OS app.

use core::ptr;

use crate::{EventType, FormEventHandlerType, UInt16, events};

/// Runs the standard Palm OS application event loop until `appStopEvent`:
/// each event `EvtGetEvent` gives (waiting forever, `evtWaitForever`) is
/// offered in turn to `SysHandleEvent` (the system's buttons, Graffiti and
/// launcher events), `MenuHandleEvent` (the active form's menu bar),
/// `app_event` (the application's own events, typically `frmLoadEvent`:
/// load the form, make it active, give it its handler; true when it handled
/// the event) and `FrmDispatchEvent` (the active form's handler); the first
/// that handles it ends its way. Returns once `appStopEvent` went that way
/// (the app then closes its forms and returns from `PilotMain`).
///
/// On targets other than the 68k the calls are the glue's stubs, which
/// panic.
pub fn event_loop(mut app_event: impl FnMut(&EventType) -> bool) {
    let mut event = EventType::zeroed();
    loop {
        let mut error: UInt16 = 0;
        // SAFETY: `event` and `error` are live locals the calls fill in; a
        // null menu bar means the active form's.
        unsafe {
            crate::EvtGetEvent(&mut event, events::evtWaitForever);
            if crate::SysHandleEvent(&mut event) == 0
                && crate::MenuHandleEvent(ptr::null_mut(), &mut event, &mut error) == 0
                && !app_event(&event)
            {
                crate::FrmDispatchEvent(&mut event);
            }
        }
        if event.eType == events::appStopEvent {
            break;
        }
    }
}

/// The application's part of a `frmLoadEvent`, for [`event_loop`]'s
/// `app_event`: loads the form the event names (`FrmInitForm`), makes it active
/// (`FrmSetActiveForm`) and gives it the event handler `handler_of` returns for
/// its form ID (`FrmSetEventHandler`; none for `None`). True when `event` was a
/// `frmLoadEvent` (handled), false for any other event.
///
/// The form ID must be one of the app's own `tFRM` resources, as it is in a
/// `frmLoadEvent` the OS sends after `FrmGotoForm`/`FrmPopupForm` (Form.h).
pub fn load_form(
    event: &EventType,
    handler_of: impl FnOnce(UInt16) -> Option<FormEventHandlerType>,
) -> bool {
    if event.eType != events::frmLoadEvent {
        return false;
    }
    let form_id = event.form_id();
    // SAFETY: the OS sends frmLoadEvent for this app's own tFRM resources.
    unsafe {
        let form = crate::FrmInitForm(form_id);
        crate::FrmSetActiveForm(form);
        if let Some(handler) = handler_of(form_id) {
            crate::FrmSetEventHandler(form, handler);
        }
    }
    true
}
