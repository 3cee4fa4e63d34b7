//! # MemDbg Viewer: the ledger on the device
//!
//! A Palm OS application that shows the `MemDbgDB` ledger memdbg left on the
//! device — for a developer testing on a handheld or in POSE/CloudpilotEmu
//! without the host tools. It opens the ledger **read-only** and never
//! changes it (nor starts memdbg):
//!
//! - the main form: the run's summary (the app, whether it stopped, its
//!   counters, the header's flags such as `INCOMPLETE` and `PATCHES_REFUSED`)
//!   above a list of its findings (leaks, overruns, double frees, small
//!   allocation sites, the low-heap warning; each with its size and site),
//!   with a scroll bar;
//! - a finding's form, popped up from the list: what it is, the block, its
//!   call stacks as code 1 offsets (or `segment N + offset` in code 2…n, from
//!   the ledger's segment records), each named by the MacsBug name after its
//!   function when the recorded app (found by the header's name and
//!   creator) is on the device with the code that ran (read as POSE reads
//!   them, by the `palm-macsbug` crate the host tools use too).
//!
//! No ledger, one of an unknown format version, a damaged header or record:
//! the summary says so ([`ledger::Problem`]); a record of a kind added by a
//! later memdbg is listed as an unknown kind. The layout is memdbg's own
//! `memdbg::record`, so new kinds and flags carry over.
//!
//! State lives in one chunk found through `FtrGet` (no writable statics on
//! the 68k); every buffer is a chunk freed at exit.

#![cfg_attr(target_arch = "m68k", no_std)]
#![cfg_attr(target_arch = "m68k", feature(asm_experimental_arch))]
#![deny(missing_docs)]

pub mod ids;
pub mod ledger;
pub mod text;

use core::ptr;

use m68k_palmos_sys::{
    self as palm, Char, EventType, FieldType, FormType, ListType, MemPtr, UInt16, UInt32,
};
use palm::events;

use ledger::{ITEM_LEN, Ledger, Problem};
use text::Text;

palm::app_entry!(pilot_main);
palm::form_event_handler!(pub main_form_handler => main_form_event);
palm::form_event_handler!(pub detail_form_handler => detail_form_event);

/// The viewer's creator ID, `'MDvw'`: its PRC's, and the Feature Manager
/// creator of feature 0, which holds the address of its [`State`].
pub const CREATOR: u32 = u32::from_be_bytes(*b"MDvw");
/// Bytes of the summary text.
const SUMMARY_LEN: u16 = 400;
/// Bytes of a finding's text.
const DETAIL_LEN: u16 = 1200;

/// Everything the viewer keeps while it runs, in one chunk.
#[repr(C)]
pub struct State {
    ledger: Ledger,
    /// Why the ledger is not shown (then the summary says it).
    problem: Option<Problem>,
    summary: Text,
    detail: Text,
    /// The list's items: `findings` pointers into `item_text`.
    items: *mut *mut Char,
    item_text: *mut u8,
    /// The finding shown by the detail form.
    selected: u16,
    /// Lines of the detail text, and the first one shown.
    detail_lines: u16,
    detail_top: u16,
}

/// `UInt32 PilotMain(UInt16 cmd, MemPtr cmdPBP, UInt16 launchFlags)`: only
/// the normal launch runs the viewer; it returns `errNone`.
///
/// # Safety
/// Called only by the entry trampoline, with the launch parameters Palm OS gave.
pub unsafe extern "C" fn pilot_main(cmd: UInt16, _cmd_pbp: MemPtr, _flags: UInt16) -> UInt32 {
    if cmd != palm::launch::sysAppLaunchCmdNormalLaunch {
        return UInt32::from(palm::errNone);
    }
    let Ok(p) = ledger::alloc(size_of::<State>()) else {
        return UInt32::from(palm::errNone);
    };
    let st = p.cast::<State>();
    // SAFETY: a zeroed State-sized chunk, ours until freed below.
    let s = unsafe { &mut *st };
    // SAFETY: feature 0 of our creator holds the state while we run.
    unsafe { palm::FtrSet(CREATOR, 0, st as u32) };
    s.problem = open(s).err();
    if let (Some(p), Some(summary)) = (s.problem, Some(&mut s.summary)) {
        ledger::problem(p, summary);
    }
    // SAFETY: MainForm is a tFRM resource of this app.
    unsafe { palm::FrmGotoForm(ids::MainForm) };
    palm::event_loop(app_handle_event);
    // SAFETY: closes this app's forms before their texts are freed.
    unsafe { palm::FrmCloseAllForms() };
    close(s);
    // SAFETY: the chunk and the feature set above.
    unsafe {
        palm::FtrUnregister(CREATOR, 0);
        palm::MemChunkFree(p.cast());
    }
    UInt32::from(palm::errNone)
}

/// Opens the ledger and makes the texts: the summary and the list's items.
fn open(s: &mut State) -> Result<(), Problem> {
    s.summary = Text::new(SUMMARY_LEN).ok_or(Problem::NoMemory)?;
    s.detail = Text::new(DETAIL_LEN).ok_or(Problem::NoMemory)?;
    s.ledger.open()?;
    s.ledger.summary(&mut s.summary);
    let n = usize::from(s.ledger.findings());
    s.items = ledger::alloc(n.max(1) * size_of::<*mut Char>())?.cast();
    s.item_text = ledger::alloc(n.max(1) * usize::from(ITEM_LEN))?;
    let mut line = Text::new(ITEM_LEN).ok_or(Problem::NoMemory)?;
    let (items, item_text) = (s.items, s.item_text);
    s.ledger.with_code(|ledger| {
        for i in 0..n {
            ledger.item(i as u16, &mut line);
            // SAFETY: item i has ITEM_LEN bytes of item_text and a pointer
            // slot; the line fits with its NUL.
            unsafe {
                let dst = item_text.add(i * usize::from(ITEM_LEN));
                palm::MemMove(dst.cast(), line.as_ptr().cast(), i32::from(line.len()) + 1);
                *items.add(i) = dst.cast();
            }
        }
    });
    line.free();
    Ok(())
}

/// Frees what [`open`] made and closes the databases.
fn close(s: &mut State) {
    s.ledger.close();
    s.summary.free();
    s.detail.free();
    for p in [s.items.cast::<u8>(), s.item_text] {
        if !p.is_null() {
            // SAFETY: chunks `open` allocated, freed once.
            unsafe { palm::MemChunkFree(p.cast()) };
        }
    }
    s.items = ptr::null_mut();
    s.item_text = ptr::null_mut();
}

/// The state, through feature 0 (null before `pilot_main` set it).
fn state() -> Option<&'static mut State> {
    let mut v: u32 = 0;
    // SAFETY: FtrGet writes the value into the local.
    let err = unsafe { palm::FtrGet(CREATOR, 0, &mut v) };
    if err != palm::errNone || v == 0 {
        return None;
    }
    // SAFETY: the chunk pilot_main set, alive until it returns.
    Some(unsafe { &mut *(v as *mut State) })
}

/// `frmLoadEvent`: loads the form, makes it active and gives it its handler.
fn app_handle_event(event: &EventType) -> bool {
    palm::load_form(event, |form_id| match form_id {
        ids::MainForm => Some(main_form_handler as palm::FormEventHandlerType),
        ids::DetailForm => Some(detail_form_handler),
        _ => None,
    })
}

/// The object `id` of the active form.
fn object<T>(id: UInt16) -> *mut T {
    // SAFETY: the active form; FrmGetObjectIndex gives a valid index for
    // an object it has.
    unsafe {
        let form: *mut FormType = palm::FrmGetActiveForm();
        palm::FrmGetObjectPtr(form, palm::FrmGetObjectIndex(form, id)).cast()
    }
}

/// Sets scroll bar `id` to `value` in `0..=max`, `page` lines a page.
fn set_bar(id: UInt16, value: u16, max: u16, page: u16) {
    // SAFETY: a scroll bar of the active form.
    unsafe { palm::SclSetScrollBar(object(id), value as i16, 0, max as i16, page as i16) };
}

/// The main form's handler: fills and draws it, pops a finding up, scrolls.
extern "C" fn main_form_event(event: *mut EventType) -> bool {
    // SAFETY: the Form Manager passes a valid event for the call's duration.
    let event = unsafe { &*event };
    let Some(s) = state() else {
        return false;
    };
    match event.eType {
        events::frmOpenEvent => {
            let list: *mut ListType = object(ids::MainFindingsList);
            let n = if s.problem.is_some() {
                0
            } else {
                s.ledger.findings()
            };
            // SAFETY: objects of the active form; the texts live until exit.
            unsafe {
                palm::FldSetTextPtr(
                    object::<FieldType>(ids::MainSummaryField),
                    s.summary.as_ptr(),
                );
                palm::LstSetListChoices(list, s.items, n as i16);
                // No item is chosen until tapped (List.h noListSelection).
                palm::LstSetSelection(list, -1);
                let visible = palm::LstGetVisibleItems(list).max(1) as u16;
                set_bar(ids::MainFindingsBar, 0, n.saturating_sub(visible), visible);
                palm::FrmDrawForm(palm::FrmGetActiveForm());
            }
            true
        }
        events::lstSelectEvent if event.lst_select().listID == ids::MainFindingsList => {
            s.selected = event.lst_select().selection as u16;
            // SAFETY: DetailForm is a tFRM resource of this app.
            unsafe { palm::FrmPopupForm(ids::DetailForm) };
            true
        }
        events::sclRepeatEvent if event.scl_repeat().scrollBarID == ids::MainFindingsBar => {
            let list: *mut ListType = object(ids::MainFindingsList);
            // SAFETY: the list of the active form.
            unsafe {
                palm::LstSetTopItem(list, event.scl_repeat().newValue);
                palm::LstDrawList(list);
            }
            false
        }
        events::menuEvent if event.menu_item() == ids::OptionsAboutCmd => {
            // SAFETY: AboutAlert is a Talt resource of this app.
            unsafe { palm::FrmAlert(ids::AboutAlert) };
            true
        }
        _ => false,
    }
}

/// Lines of the detail field (its height, 11 pixels a line).
const DETAIL_VISIBLE: u16 = 11;

/// The finding form's handler: shows the selected finding, scrolls it a
/// line at a time, Done returns to the list.
extern "C" fn detail_form_event(event: *mut EventType) -> bool {
    // SAFETY: the Form Manager passes a valid event for the call's duration.
    let event = unsafe { &*event };
    let Some(s) = state() else {
        return false;
    };
    match event.eType {
        events::frmOpenEvent => {
            let (selected, detail) = (s.selected, &mut s.detail);
            s.ledger.with_code(|ledger| ledger.detail(selected, detail));
            s.detail_lines = 1;
            for i in 0..s.detail.len() {
                if s.detail.at(i) == b'\n' {
                    s.detail_lines += 1;
                }
            }
            s.detail_top = 0;
            let max = s.detail_lines.saturating_sub(DETAIL_VISIBLE);
            set_bar(ids::DetailBar, 0, max, DETAIL_VISIBLE);
            // SAFETY: the field of the active form; the text lives until exit.
            unsafe {
                palm::FldSetTextPtr(object::<FieldType>(ids::DetailField), s.detail.as_ptr());
                palm::FrmDrawForm(palm::FrmGetActiveForm());
            }
            true
        }
        events::ctlSelectEvent if event.ctl_select().controlID == ids::DetailDoneButton => {
            // SAFETY: returns to the form under the popup.
            unsafe { palm::FrmReturnToForm(0) };
            true
        }
        events::sclRepeatEvent if event.scl_repeat().scrollBarID == ids::DetailBar => {
            s.detail_top = event.scl_repeat().newValue.max(0) as u16;
            let mut at = 0;
            let mut line = 0;
            while line < s.detail_top && at < s.detail.len() {
                if s.detail.at(at) == b'\n' {
                    line += 1;
                }
                at += 1;
            }
            let field: *mut FieldType = object(ids::DetailField);
            // SAFETY: the field of the active form; the text lives until exit.
            unsafe {
                palm::FldEraseField(field);
                palm::FldSetTextPtr(field, s.detail.from(at));
                palm::FldDrawField(field);
            }
            false
        }
        _ => false,
    }
}
