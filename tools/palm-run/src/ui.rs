//! UI subset: the event queue (OS events first, then the script, then
//! appStopEvent), forms built from the app's `tFRM` resources (parsed with
//! `palm_rcp::form`), fields, controls, alerts, menus and drawing (recorded,
//! not rendered); lists, popup lists and scroll bars are [`crate::lists`].
//! Event layout and numbers: PALM_FACTS §4.6 (`UI/Event.h`).
//!
//! A `FormType*` is a chunk in the dynamic heap owned by the app (our layout,
//! opaque to apps that use the accessor traps): form ID at +0, then one
//! 8-byte slot per object (object type byte at +0, ID at +2, pointer to its
//! text at +4), then the title, label and control label strings, then each
//! list's item strings and its array of pointers to them; an object pointer
//! (`FrmGetObjectPtr`) is the address of its slot.
//!
//! FrmDeleteForm frees each field's text handle by calling MemHandleFree
//! through the current dispatch table, then the form chunk through
//! MemChunkFree, so an app's patches of those traps see the OS's frees.
#![allow(non_snake_case)]

use std::collections::VecDeque;

use palm_rcp::form::{Form, FormObject};

use crate::heap::Placement;
use crate::machine::{Arg68k, Call, Machine, Stop, StopKind};
use crate::script::{ScriptEvent, Scripted, TapPart};

/// `nilEvent`.
pub const NIL_EVENT: u16 = 0;
/// `penDownEvent`.
pub const PEN_DOWN_EVENT: u16 = 1;
/// `penUpEvent`.
pub const PEN_UP_EVENT: u16 = 2;
/// `penMoveEvent`.
pub const PEN_MOVE_EVENT: u16 = 3;
/// `keyDownEvent`.
pub const KEY_DOWN_EVENT: u16 = 4;
/// `ctlSelectEvent`: data `controlID` (+8), `pControl` (+10).
pub const CTL_SELECT_EVENT: u16 = 9;
/// `ctlRepeatEvent`: data `controlID` (+8), `pControl` (+10), `time` (+14).
pub const CTL_REPEAT_EVENT: u16 = 10;
/// `lstSelectEvent`: data `listID` (+8), `pList` (+10), `selection` (+14).
pub const LST_SELECT_EVENT: u16 = 12;
/// `popSelectEvent`: data `controlID` (+8), `controlP` (+10), `listID`
/// (+14), `listP` (+16), `selection` (+20), `priorSelection` (+22).
pub const POP_SELECT_EVENT: u16 = 14;
/// `sclEnterEvent`: data `scrollBarID` (+8), `pScrollBar` (+10).
pub const SCL_ENTER_EVENT: u16 = 32;
/// `sclExitEvent`: data `scrollBarID` (+8), `pScrollBar` (+10), `value`
/// (+14), `newValue` (+16).
pub const SCL_EXIT_EVENT: u16 = 33;
/// `sclRepeatEvent`: as `sclExitEvent`, then `time` (+18).
pub const SCL_REPEAT_EVENT: u16 = 34;
/// `noListSelection`.
pub const NO_LIST_SELECTION: i16 = -1;
/// `menuEvent`.
pub const MENU_EVENT: u16 = 21;
/// `appStopEvent`.
pub const APP_STOP_EVENT: u16 = 22;
/// `frmLoadEvent`.
pub const FRM_LOAD_EVENT: u16 = 23;
/// `frmOpenEvent`.
pub const FRM_OPEN_EVENT: u16 = 24;
/// `frmUpdateEvent`.
pub const FRM_UPDATE_EVENT: u16 = 26;
/// `frmCloseEvent`.
pub const FRM_CLOSE_EVENT: u16 = 28;
/// Size of `EventType` in bytes.
pub const EVENT_SIZE: u32 = 24;
/// `frmInvalidObjectId`.
pub const FRM_INVALID_OBJECT_ID: u32 = 0xFFFF;
/// How many appStopEvents the app gets before it is stopped for not exiting.
pub const MAX_APP_STOPS: u32 = 8;
const FORM_HEADER: u32 = 8;
const OBJECT_SLOT: u32 = 8;

/// A raw 24-byte event.
pub type Event = [u8; 24];

/// A new event of type `e_type` with a 16-bit datum at offset 8.
pub fn event(e_type: u16, data0: u16) -> Event {
    let mut e = [0u8; 24];
    e[0..2].copy_from_slice(&e_type.to_be_bytes());
    e[8..10].copy_from_slice(&data0.to_be_bytes());
    e
}

/// An object's run-time state (the fields each kind uses are named).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldState {
    /// Text handle (FldSetTextHandle/FldSetText, or allocated by FldInsert;
    /// freed by FrmDeleteForm). 0: none.
    pub handle: u32,
    /// Offset of the text in the handle's chunk (FldSetText).
    pub offset: u32,
    /// Text pointer given with FldSetTextPtr (0: none; not owned).
    pub text_ptr: u32,
    /// Insertion point (characters from the start).
    pub ins_pt: u16,
    /// Selection start and end.
    pub selection: (u16, u16),
    /// FldDirty.
    pub dirty: bool,
    /// FldGetMaxChars (from the resource, FldSetMaxChars).
    pub max_chars: u16,
    /// Control value (CtlGetValue), a list's selected item (LstGetSelection,
    /// `noListSelection` -1), a scroll bar's value.
    pub value: i16,
    /// A list's first visible item.
    pub top: i16,
    /// A list's `itemsText`: the 68k address of its `Char *` array.
    pub items: u32,
    /// A list's `numItems`.
    pub num_items: i16,
    /// A scroll bar's `minValue`, `maxValue` and `pageSize`.
    pub min: i16,
    /// See `min`.
    pub max: i16,
    /// See `min`.
    pub page_size: i16,
    /// Label/title text pointer (controls, labels; the form title in slot `None`).
    pub label: u32,
    /// Hidden with FrmHideObject.
    pub hidden: bool,
}

/// A live form.
#[derive(Debug, Clone)]
pub struct LiveForm {
    /// `FormType*`.
    pub ptr: u32,
    /// The parsed resource.
    pub model: Form,
    /// 68k address of the event handler (0: none).
    pub handler: u32,
    /// Run-time state by object index.
    pub fields: Vec<FieldState>,
    /// Title text pointer (in the form chunk unless FrmSetTitle changed it).
    pub title: u32,
    /// Index of the focused field, if any.
    pub focus: Option<usize>,
    /// FrmDrawForm drew it (SclSetScrollBar redraws a bar of a drawn form).
    pub drawn: bool,
}

impl LiveForm {
    /// The object pointer of object `index` (`FrmGetObjectPtr`).
    pub fn object_ptr(&self, index: usize) -> u32 {
        self.ptr + FORM_HEADER + OBJECT_SLOT * index as u32
    }
}

/// UI state.
#[derive(Debug, Clone, Default)]
pub struct Ui {
    /// Events posted by the OS or the app (EvtAddEventToQueue), served first.
    pub queue: VecDeque<Event>,
    /// The remaining script.
    pub script: VecDeque<Scripted>,
    /// Live forms, in FrmInitForm order.
    pub forms: Vec<LiveForm>,
    /// The active form.
    pub active: u32,
    /// appStopEvents handed out.
    pub stops: u32,
    /// Text drawn (WinDrawChars, FldDrawField), in order.
    pub drawn: Vec<String>,
    /// Forms drawn (IDs), in order.
    pub forms_drawn: Vec<u16>,
    /// Alerts shown: (alert ID, text).
    pub alerts: Vec<(u16, String)>,
    /// Forms under popups (FrmPopupForm), innermost last.
    pub popups: Vec<u32>,
    /// Active menu bar (MenuInit / MenuSetActiveMenu), 0: none.
    pub menu: u32,
    /// Menu bar resource set with MenuSetActiveMenuRscID, 0: none.
    pub menu_rsc: u16,
    /// The list popped up by LstPopupList (its object pointer), 0: none.
    pub popped: u32,
    /// Scroll bars drawn (FrmDrawForm, SclDrawScrollBar, scrolling), in order.
    pub scroll_bars_drawn: Vec<crate::lists::ScrollBarDrawn>,
}

impl Ui {
    /// Take the next scripted event (an entry played `repeat` times stays
    /// until its last play).
    pub fn next_scripted(&mut self) -> Option<Scripted> {
        let front = self.script.front_mut()?;
        if front.repeat > 1 {
            front.repeat -= 1;
            return Some(Scripted::once(front.line, front.event.clone()));
        }
        self.script.pop_front()
    }

    /// The live form at `ptr`.
    pub fn form(&self, ptr: u32) -> Option<&LiveForm> {
        self.forms.iter().find(|f| f.ptr == ptr)
    }
    /// The index in [`Ui::forms`] of the live form at `ptr`.
    pub fn form_index(&self, ptr: u32) -> Option<usize> {
        self.forms.iter().position(|f| f.ptr == ptr)
    }
    /// The form and object index of an object pointer.
    pub fn object(&self, ptr: u32) -> Option<(usize, usize)> {
        self.forms.iter().enumerate().find_map(|(fi, f)| {
            let n = f.model.objects.len() as u32;
            let first = f.ptr + FORM_HEADER;
            (ptr >= first
                && ptr < first + OBJECT_SLOT * n
                && (ptr - first).is_multiple_of(OBJECT_SLOT))
            .then(|| (fi, ((ptr - first) / OBJECT_SLOT) as usize))
        })
    }
}

/// A debug-ROM check of `call` failed: the app stops, the message names the
/// trap.
pub(crate) fn bad(m: &Machine, call: &Call, what: String) -> Stop {
    m.stop_in(
        call,
        StopKind::DebugCheck(format!("{}: {what}", call.info.name)),
    )
}

fn form_of(m: &Machine, call: &Call, ptr: u32) -> Result<LiveForm, Stop> {
    m.os.ui
        .form(ptr)
        .cloned()
        .ok_or_else(|| bad(m, call, format!("0x{ptr:08X} is not a form")))
}

fn field_of(m: &Machine, call: &Call, ptr: u32) -> Result<(usize, usize), Stop> {
    match m.os.ui.object(ptr) {
        Some((fi, oi)) if matches!(m.os.ui.forms[fi].model.objects[oi], FormObject::Field(_)) => {
            Ok((fi, oi))
        }
        _ => Err(bad(m, call, format!("0x{ptr:08X} is not a field"))),
    }
}

/// Turn a scripted input into the event EvtGetEvent returns (a tap becomes a
/// penDown at the control's centre, or at the list item or scroll bar part
/// named, followed by a queued penUp).
pub(crate) fn scripted_event(m: &mut Machine, call: &Call, s: &Scripted) -> Result<Event, Stop> {
    Ok(match s.event {
        ScriptEvent::Tap(id) => {
            let form = m.os.ui.form(m.os.ui.active).cloned();
            let hit = form.as_ref().and_then(|f| {
                f.model
                    .objects
                    .iter()
                    .find(|o| o.id() == Some(id))
                    .and_then(|o| o.bounds())
                    .map(|b| {
                        (
                            f.model.bounds.x + b.x + b.width / 2,
                            f.model.bounds.y + b.y + b.height / 2,
                        )
                    })
            });
            let (x, y) = hit.ok_or_else(|| {
                m.stop_in(
                    call,
                    StopKind::Script {
                        line: s.line,
                        what: format!("the active form has no control with ID {id}"),
                    },
                )
            })?;
            pen(m, x, y)
        }
        ScriptEvent::TapAt(id, part) => {
            let (x, y) = tap_point(m, id, part)
                .map_err(|what| m.stop_in(call, StopKind::Script { line: s.line, what }))?;
            pen(m, x, y)
        }
        ScriptEvent::Pen(x, y) => pen(m, x, y),
        ScriptEvent::Key(c) => event(KEY_DOWN_EVENT, c),
        ScriptEvent::Menu(id) => {
            check_menu_item(m, call, s.line, id)?;
            event(MENU_EVENT, id)
        }
        ScriptEvent::Nil => event(0, 0),
        ScriptEvent::Stop => event(APP_STOP_EVENT, 0),
    })
}

/// The screen point of `tap ID PART` in the active form: the middle of a
/// shown list item's row, or of a shown scroll bar's region; else what is
/// wrong.
fn tap_point(m: &Machine, id: u16, part: TapPart) -> Result<(i16, i16), String> {
    use crate::lists::Region;
    let fi =
        m.os.ui
            .form_index(m.os.ui.active)
            .ok_or_else(|| format!("no form is active for a tap on object {id}"))?;
    let form = &m.os.ui.forms[fi];
    let oi = form
        .model
        .object_index(id)
        .ok_or_else(|| format!("the active form has no object with ID {id}"))?;
    let (fx, fy) = (form.model.bounds.x, form.model.bounds.y);
    match (&form.model.objects[oi], part) {
        (FormObject::List(l), TapPart::Item(item)) => {
            let shown =
                (l.attr.usable && !form.fields[oi].hidden) || m.os.ui.popped == form.object_ptr(oi);
            let (top, end) = crate::lists::shown_items(m, fi, oi);
            let item = i16::try_from(item).unwrap_or(i16::MAX);
            if !shown || !(top..end).contains(&item) {
                return Err(format!(
                    "item {item} of list {id} is not shown (it shows {})",
                    if shown && end > top {
                        format!("items {top} to {}", end - 1)
                    } else {
                        "none".into()
                    }
                ));
            }
            let row = crate::lists::row_height(l.font);
            Ok((
                fx + l.bounds.x + l.bounds.width / 2,
                fy + l.bounds.y + (item - top) * row + row / 2,
            ))
        }
        (_, TapPart::Item(_)) => Err(format!(
            "object {id} is not a list: only a list has items to tap"
        )),
        (FormObject::ScrollBar(_), part) => {
            let (b, g) = crate::lists::shown_bar(m, fi, oi).ok_or_else(|| {
                format!("scroll bar {id} is not shown (maxValue <= minValue, or not usable)")
            })?;
            let region = match part {
                TapPart::Up => Region::UpArrow,
                TapPart::Down => Region::DownArrow,
                TapPart::PageUp => Region::UpPage,
                _ => Region::DownPage,
            };
            let y = g.row_in(region).ok_or_else(|| {
                format!("scroll bar {id} has no {region:?} region now (its car reaches the arrow)")
            })?;
            Ok((fx + b.x + b.width / 2, fy + b.y + y))
        }
        _ => Err(format!(
            "object {id} is not a scroll bar: only a scroll bar has up, down, pageup and pagedown"
        )),
    }
}

/// The active menu bar's resource ID: the one MenuInit/MenuSetActiveMenu
/// made active, else MenuSetActiveMenuRscID's, else the active form's.
fn active_menu_bar(m: &Machine) -> Option<u16> {
    if m.os.ui.menu != 0
        && let Ok(id) = m.mem.read_u16(m.os.ui.menu)
    {
        return Some(id);
    }
    if m.os.ui.menu_rsc != 0 {
        return Some(m.os.ui.menu_rsc);
    }
    m.os.ui
        .form(m.os.ui.active)
        .map(|f| f.model.menu_id)
        .filter(|&id| id != 0)
}

/// A scripted `menu ID` must name an item of the active menu bar, as a
/// scripted tap must name a control of the active form.
fn check_menu_item(m: &Machine, call: &Call, line: usize, id: u16) -> Result<(), Stop> {
    let fail = |what: String| m.stop_in(call, StopKind::Script { line, what });
    let Some(bar) = active_menu_bar(m) else {
        return Err(fail(format!(
            "no menu bar is active (the active form has none) for menu item ID {id}"
        )));
    };
    let data = crate::data_mgr::open_resource_bytes(m, b"MBAR", bar).ok_or_else(|| {
        fail(format!(
            "the active menu bar, MBAR {bar}, is not in the app"
        ))
    })?;
    let menu = palm_rcp::menu::MenuBar::parse(&data)
        .map_err(|e| fail(format!("the active menu bar, MBAR {bar}: {e}")))?;
    if menu.item(id).is_none() {
        return Err(fail(format!(
            "the active menu bar (MBAR {bar}) has no item with ID {id}"
        )));
    }
    Ok(())
}

fn pen(m: &mut Machine, x: i16, y: i16) -> Event {
    let mut down = event(PEN_DOWN_EVENT, 0);
    down[2] = 1;
    down[3] = 1;
    down[4..6].copy_from_slice(&x.to_be_bytes());
    down[6..8].copy_from_slice(&y.to_be_bytes());
    let mut up = down;
    up[0..2].copy_from_slice(&PEN_UP_EVENT.to_be_bytes());
    up[2] = 0;
    m.os.ui.queue.push_front(up);
    down
}

/// `void EvtGetEvent(EventType *event, Int32 timeout)`: queued events, then
/// the script, then appStopEvent. One tick passes per call.
pub fn EvtGetEvent(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    m.idle(1);
    let e = if let Some(e) = m.os.ui.queue.pop_front() {
        e
    } else if let Some(s) = m.os.ui.next_scripted() {
        scripted_event(m, call, &s)?
    } else {
        m.os.ui.stops += 1;
        if m.os.ui.stops > MAX_APP_STOPS {
            return Err(m.stop_in(call, StopKind::NoExit));
        }
        event(APP_STOP_EVENT, 0)
    };
    m.mem
        .write_bytes(call.u32(0), &e)
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// The 24-byte event at 68k address `p`.
pub(crate) fn read_event(m: &Machine, call: &Call, p: u32) -> Result<Event, Stop> {
    let b = m
        .mem
        .read_bytes(p, EVENT_SIZE)
        .map_err(|f| m.fault_in(call, f))?;
    let mut e = [0u8; 24];
    e.copy_from_slice(&b);
    Ok(e)
}

/// `void EvtAddEventToQueue(const EventType *event)`.
pub fn EvtAddEventToQueue(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let e = read_event(m, call, call.u32(0))?;
    m.os.ui.queue.push_back(e);
    Ok(0)
}

/// `Boolean SysHandleEvent(EventPtr eventP)`: nothing for the system to do
/// headless (no hard keys, Graffiti or power events): false.
pub fn SysHandleEvent(_m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(0)
}

/// `Boolean MenuHandleEvent(MenuBarType *menuP, EventType *event, UInt16
/// *error)`: menus are driven by scripted menuEvents, so false.
pub fn MenuHandleEvent(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    if call.u32(2) != 0 {
        m.mem
            .write_u16(call.u32(2), 0)
            .map_err(|f| m.fault_in(call, f))?;
    }
    Ok(0)
}

/// `void FrmGotoForm(UInt16 formId)`: frmCloseEvent for the active form,
/// then frmLoadEvent and frmOpenEvent for the new one.
pub fn FrmGotoForm(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    if let Some(f) = m.os.ui.form(m.os.ui.active) {
        let id = f.model.id;
        m.os.ui.queue.push_back(event(FRM_CLOSE_EVENT, id));
    }
    m.os.ui.queue.push_back(event(FRM_LOAD_EVENT, call.u16(0)));
    m.os.ui.queue.push_back(event(FRM_OPEN_EVENT, call.u16(0)));
    Ok(0)
}

/// `FormType *FrmInitForm(UInt16 rscID)`: parse the `tFRM` resource and
/// allocate the form (owned by the current app).
pub fn FrmInitForm(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let id = call.u16(0);
    let data = crate::data_mgr::open_resource_bytes(m, b"tFRM", id)
        .ok_or_else(|| bad(m, call, format!("no tFRM resource {id}")))?;
    let model = Form::parse(&data).map_err(|e| bad(m, call, format!("tFRM {id}: {e}")))?;
    let n = model.objects.len() as u32;
    let texts: Vec<Option<&[u8]>> = model
        .objects
        .iter()
        .map(|o| match o {
            FormObject::Title(t) => Some(t.text.as_slice()),
            FormObject::Label(l) => Some(l.text.as_slice()),
            FormObject::Control(c) => Some(c.label.as_slice()),
            _ => None,
        })
        .collect();
    let even = |t: &[u8]| (t.len() as u32 + 2) & !1;
    let strings: u32 = texts.iter().flatten().map(|t| even(t)).sum();
    // A list's item texts, then its `Char *` array.
    let lists: u32 = model
        .objects
        .iter()
        .map(|o| match o {
            FormObject::List(l) => l.items.iter().map(|t| even(t) + 4).sum(),
            _ => 0,
        })
        .sum();
    let size = FORM_HEADER + OBJECT_SLOT * n + strings + lists;
    let heap = m.os.mem.dynamic;
    let owner = m.os.sys.cur_owner;
    let ptr = crate::mem_mgr::allocate(m, call, heap, size, owner, false, Placement::Start)?;
    if ptr == 0 {
        return Err(bad(m, call, "out of memory".into()));
    }
    let mut fields = vec![FieldState::default(); model.objects.len()];
    let mut title = 0;
    let mut bytes = vec![0u8; size as usize];
    bytes[0..2].copy_from_slice(&id.to_be_bytes());
    let mut at = FORM_HEADER + OBJECT_SLOT * n;
    for (i, o) in model.objects.iter().enumerate() {
        let slot = (FORM_HEADER + OBJECT_SLOT * i as u32) as usize;
        bytes[slot] = o.kind();
        bytes[slot + 2..slot + 4].copy_from_slice(&o.id().unwrap_or(0).to_be_bytes());
        if let Some(t) = texts[i] {
            let text_ptr = ptr + at;
            bytes[slot + 4..slot + 8].copy_from_slice(&text_ptr.to_be_bytes());
            bytes[at as usize..at as usize + t.len()].copy_from_slice(t);
            at += (t.len() as u32 + 2) & !1;
            fields[i].label = text_ptr;
            if matches!(o, FormObject::Title(_)) {
                title = text_ptr;
            }
        }
        match o {
            FormObject::Field(f) => fields[i].max_chars = f.max_chars,
            FormObject::Control(c) => fields[i].value = i16::from(c.attr.on),
            FormObject::List(l) => {
                // The resource's currentItem and topItem are 0 (PilRC).
                let mut pointers = Vec::with_capacity(l.items.len());
                for t in &l.items {
                    pointers.push(ptr + at);
                    bytes[at as usize..at as usize + t.len()].copy_from_slice(t);
                    at += even(t);
                }
                fields[i].items = ptr + at;
                for p in pointers {
                    bytes[at as usize..at as usize + 4].copy_from_slice(&p.to_be_bytes());
                    at += 4;
                }
                fields[i].num_items = i16::try_from(l.items.len()).unwrap_or(i16::MAX);
            }
            FormObject::ScrollBar(b) => {
                let st = &mut fields[i];
                (st.value, st.min, st.max, st.page_size) = (b.value, b.min, b.max, b.page_size);
            }
            _ => {}
        }
    }
    m.mem
        .os_write_bytes(ptr, &bytes)
        .map_err(|f| m.fault_in(call, f))?;
    m.os.ui.forms.push(LiveForm {
        ptr,
        model,
        handler: 0,
        fields,
        title,
        focus: None,
        drawn: false,
    });
    Ok(ptr)
}

/// Delete form `ptr`: free field text handles through the dispatch table
/// (MemHandleFree), then the form chunk (MemChunkFree).
pub fn delete_form(m: &mut Machine, call: &Call, ptr: u32) -> Result<(), Stop> {
    let f = form_of(m, call, ptr)?;
    for fs in &f.fields {
        if fs.handle != 0 {
            m.call_trap(0xA02B, &[Arg68k::U32(fs.handle)])?;
        }
    }
    m.os.ui.forms.retain(|x| x.ptr != ptr);
    if m.os.ui.active == ptr {
        m.os.ui.active = 0;
    }
    m.call_trap(0xA012, &[Arg68k::U32(ptr)])?;
    Ok(())
}

/// `void FrmDeleteForm(FormType *formP)`.
pub fn FrmDeleteForm(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    delete_form(m, call, call.u32(0))?;
    Ok(0)
}

/// `void FrmSetActiveForm(FormType *formP)`.
pub fn FrmSetActiveForm(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    form_of(m, call, call.u32(0))?;
    m.os.ui.active = call.u32(0);
    Ok(0)
}

/// `FormType *FrmGetActiveForm(void)`.
pub fn FrmGetActiveForm(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(m.os.ui.active)
}

/// `UInt16 FrmGetFormId(const FormType *formP)`.
pub fn FrmGetFormId(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(u32::from(form_of(m, call, call.u32(0))?.model.id))
}

/// `void FrmDrawForm(FormType *formP)`: recorded.
pub fn FrmDrawForm(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    draw_form(m, call, call.u32(0))?;
    Ok(0)
}

/// Draws form `ptr`: its ID in [`Ui::forms_drawn`], then each usable object
/// not hidden, in order: the title, labels, control labels and fields' text
/// (when not empty) as text in [`Ui::drawn`], lists' shown items
/// ([`crate::lists::draw`]), shown scroll bars in [`Ui::scroll_bars_drawn`].
fn draw_form(m: &mut Machine, call: &Call, ptr: u32) -> Result<(), Stop> {
    let f = form_of(m, call, ptr)?;
    m.os.ui.forms_drawn.push(f.model.id);
    if m.show_drawing {
        m.print(format!("Draw: form {}", f.model.id));
    }
    let Some(fi) = m.os.ui.form_index(ptr) else {
        return Ok(());
    };
    m.os.ui.forms[fi].drawn = true;
    for (oi, o) in f.model.objects.iter().enumerate() {
        if f.fields[oi].hidden {
            continue;
        }
        match o {
            FormObject::Title(_) if f.title != 0 => draw_text(m, call, f.title)?,
            FormObject::Label(l) if l.usable => draw_text(m, call, f.fields[oi].label)?,
            FormObject::Control(c) if c.attr.usable => draw_text(m, call, f.fields[oi].label)?,
            FormObject::Field(fld) if fld.attr.usable => {
                let text = field_text(m, call, fi, oi)?;
                if !text.is_empty() {
                    drawn(m, String::from_utf8_lossy(&text).into_owned());
                }
            }
            FormObject::List(l) if l.attr.usable => crate::lists::draw(m, call, fi, oi)?,
            FormObject::ScrollBar(_) if crate::lists::shown_bar(m, fi, oi).is_some() => {
                crate::lists::draw_bar(m, fi, oi)
            }
            _ => {}
        }
    }
    Ok(())
}

/// Records the NUL-terminated text at `p` (nothing for NULL) as drawn.
fn draw_text(m: &mut Machine, call: &Call, p: u32) -> Result<(), Stop> {
    if p != 0 {
        let b = m
            .mem
            .read_cstr(p, 0x1_0000)
            .map_err(|f| m.fault_in(call, f))?;
        drawn(m, String::from_utf8_lossy(&b).into_owned());
    }
    Ok(())
}

/// Records `text` as drawn ([`Ui::drawn`]), printing each of its lines as
/// `Draw: LINE` with [`Machine::show_drawing`].
pub(crate) fn drawn(m: &mut Machine, text: String) {
    if m.show_drawing {
        for line in text.lines() {
            m.print(format!("Draw: {line}"));
        }
    }
    m.os.ui.drawn.push(text);
}

/// `void CtlDrawControl(ControlType *controlP)`: its label is recorded.
pub fn CtlDrawControl(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = control_of(m, call, call.u32(0))?;
    let label = m.os.ui.forms[fi].fields[oi].label;
    draw_text(m, call, label)?;
    Ok(0)
}

/// `void FrmEraseForm(FormType *formP)`.
pub fn FrmEraseForm(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    form_of(m, call, call.u32(0))?;
    Ok(0)
}

/// `void FrmSetEventHandler(FormType *formP, FormEventHandlerType *handler)`.
pub fn FrmSetEventHandler(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let ptr = call.u32(0);
    form_of(m, call, ptr)?;
    if let Some(f) = m.os.ui.forms.iter_mut().find(|f| f.ptr == ptr) {
        f.handler = call.u32(1);
    }
    Ok(0)
}

fn form_event(m: &mut Machine, call: &Call, form: &LiveForm, e: &Event) -> Result<bool, Stop> {
    let e_type = u16::from_be_bytes([e[0], e[1]]);
    match e_type {
        FRM_CLOSE_EVENT => {
            delete_form(m, call, form.ptr)?;
            Ok(true)
        }
        FRM_UPDATE_EVENT => {
            draw_form(m, call, form.ptr)?;
            Ok(true)
        }
        KEY_DOWN_EVENT => {
            let fi = m.os.ui.form_index(form.ptr);
            match (fi, m.os.ui.form(form.ptr).and_then(|f| f.focus)) {
                (Some(fi), Some(oi))
                    if matches!(form.model.objects.get(oi), Some(FormObject::Field(_))) =>
                {
                    field_key(m, call, fi, oi, e)
                }
                _ => Ok(false),
            }
        }
        PEN_DOWN_EVENT => {
            let x = i16::from_be_bytes([e[4], e[5]]).wrapping_sub(form.model.bounds.x);
            let y = i16::from_be_bytes([e[6], e[7]]).wrapping_sub(form.model.bounds.y);
            let Some(fi) = m.os.ui.form_index(form.ptr) else {
                return Ok(false);
            };
            if crate::lists::pen_down_on_list(m, fi, x, y) {
                return Ok(true);
            }
            let hit = form
                .model
                .objects
                .iter()
                .enumerate()
                .find_map(|(i, o)| match o {
                    FormObject::Control(c)
                        if c.attr.usable
                            && c.attr.enabled
                            && !m.os.ui.forms[fi].fields[i].hidden
                            && x >= c.bounds.x
                            && x < c.bounds.x + c.bounds.width
                            && y >= c.bounds.y
                            && y < c.bounds.y + c.bounds.height =>
                    {
                        Some((i, c))
                    }
                    _ => None,
                });
            if let Some((i, c)) = hit {
                // A repeating button repeats while the pen is down
                // (ctlRepeatEvent, no ctlSelectEvent); other controls are
                // selected when it comes up.
                let mut sel = if c.style == palm_rcp::form::ControlStyle::RepeatingButton {
                    let mut r = event(CTL_REPEAT_EVENT, c.id);
                    r[14..18].copy_from_slice(&(m.ticks() as u32).to_be_bytes());
                    r
                } else {
                    event(CTL_SELECT_EVENT, c.id)
                };
                sel[10..14].copy_from_slice(&form.object_ptr(i).to_be_bytes());
                m.os.ui.queue.push_back(sel);
                return Ok(true);
            }
            if crate::lists::pen_down_on_bar(m, fi, e, x, y) {
                return Ok(true);
            }
            // A usable, editable field under the pen takes the focus
            // (FrmHandleEvent hands the penDown to FldHandleEvent, which
            // makes the field the form's focus).
            let field = form.model.objects.iter().position(|o| {
                matches!(o, FormObject::Field(f)
                    if f.attr.usable
                        && f.attr.editable
                        && x >= f.bounds.x
                        && x < f.bounds.x + f.bounds.width
                        && y >= f.bounds.y
                        && y < f.bounds.y + f.bounds.height)
            });
            match field {
                Some(oi) => {
                    m.os.ui.forms[fi].focus = Some(oi);
                    Ok(true)
                }
                None => Ok(false),
            }
        }
        _ => {
            let Some(fi) = m.os.ui.form_index(form.ptr) else {
                return Ok(false);
            };
            Ok(crate::lists::form_event(m, call, fi, e)?.unwrap_or(false))
        }
    }
}

/// `Boolean FrmHandleEvent(FormType *formP, EventType *eventP)`: the default
/// form behaviour: frmCloseEvent deletes the form, frmUpdateEvent redraws it,
/// a penDown on a control posts its ctlSelectEvent (pen tracking through
/// ctlEnter/ctlExit is not modelled), a penDown on a field focuses it, and a
/// keyDown edits the focused field (FldHandleEvent).
pub fn FrmHandleEvent(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let f = form_of(m, call, call.u32(0))?;
    let e = read_event(m, call, call.u32(1))?;
    Ok(u32::from(form_event(m, call, &f, &e)?))
}

/// Dispatch an event to `form`: its 68k handler first, then FrmHandleEvent.
fn dispatch(m: &mut Machine, call: &Call, form: &LiveForm, event_p: u32) -> Result<bool, Stop> {
    if form.handler != 0 {
        let (d0, _) = m.call_68k(form.handler, &[Arg68k::U32(event_p)])?;
        if d0 & 0xFF != 0 {
            return Ok(true);
        }
    }
    if m.os.ui.form(form.ptr).is_none() {
        return Ok(true);
    }
    let e = read_event(m, call, event_p)?;
    form_event(m, call, form, &e)
}

/// `Boolean FrmDispatchEvent(EventType *eventP)`: form events go to the form
/// named in them, others to the active form.
pub fn FrmDispatchEvent(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let e = read_event(m, call, call.u32(0))?;
    let e_type = u16::from_be_bytes([e[0], e[1]]);
    let target = if (FRM_LOAD_EVENT..=FRM_CLOSE_EVENT).contains(&e_type) {
        let id = u16::from_be_bytes([e[8], e[9]]);
        m.os.ui
            .forms
            .iter()
            .rev()
            .find(|f| f.model.id == id)
            .cloned()
    } else {
        m.os.ui.form(m.os.ui.active).cloned()
    };
    match target {
        Some(f) => Ok(u32::from(dispatch(m, call, &f, call.u32(0))?)),
        None => Ok(0),
    }
}

/// `void FrmCloseAllForms(void)`: a frmCloseEvent to every form (newest
/// first), through its handler and then FrmHandleEvent.
pub fn FrmCloseAllForms(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let forms: Vec<LiveForm> = m.os.ui.forms.iter().rev().cloned().collect();
    for f in forms {
        if m.os.ui.form(f.ptr).is_none() {
            continue;
        }
        // The event lives on the 68k stack while the handler runs.
        let sp = m.cpu.a(7).wrapping_sub(EVENT_SIZE);
        let e = event(FRM_CLOSE_EVENT, f.model.id);
        m.mem
            .os_write_bytes(sp, &e)
            .map_err(|x| m.fault_in(call, x))?;
        m.cpu.set_a(7, sp);
        let r = dispatch(m, call, &f, sp);
        m.cpu.set_a(7, sp.wrapping_add(EVENT_SIZE));
        r?;
    }
    Ok(0)
}

/// `UInt16 FrmGetObjectIndex(const FormType *formP, UInt16 objID)`.
pub fn FrmGetObjectIndex(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let f = form_of(m, call, call.u32(0))?;
    Ok(f.model
        .objects
        .iter()
        .position(|o| o.id() == Some(call.u16(1)))
        .map_or(FRM_INVALID_OBJECT_ID, |i| i as u32))
}

/// `void *FrmGetObjectPtr(const FormType *formP, UInt16 objIndex)`.
pub fn FrmGetObjectPtr(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let f = form_of(m, call, call.u32(0))?;
    let i = usize::from(call.u16(1));
    if i >= f.model.objects.len() {
        return Err(bad(m, call, format!("object index {i} out of range")));
    }
    Ok(f.object_ptr(i))
}

fn alert(m: &mut Machine, call: &Call, id: u16, subst: [&[u8]; 3]) -> Result<u32, Stop> {
    let data = crate::data_mgr::open_resource_bytes(m, b"Talt", id)
        .ok_or_else(|| bad(m, call, format!("no Talt resource {id}")))?;
    let a = palm_rcp::alert::Alert::parse(&data)
        .map_err(|e| bad(m, call, format!("Talt {id}: {e}")))?;
    let mut msg = Vec::new();
    let mut i = 0;
    while i < a.message.len() {
        if a.message[i] == b'^'
            && i + 1 < a.message.len()
            && (b'1'..=b'3').contains(&a.message[i + 1])
        {
            msg.extend_from_slice(subst[usize::from(a.message[i + 1] - b'1')]);
            i += 2;
        } else {
            msg.push(a.message[i]);
            i += 1;
        }
    }
    let text = format!(
        "{}: {}",
        String::from_utf8_lossy(&a.title),
        String::from_utf8_lossy(&msg)
    );
    let button = a
        .buttons
        .first()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    m.print(format!("Alert {id}: {text} [{button}]"));
    m.os.ui.alerts.push((id, text));
    Ok(0)
}

/// `UInt16 FrmAlert(UInt16 alertId)`: printed; answered with button 0.
pub fn FrmAlert(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    alert(m, call, call.u16(0), [b"", b"", b""])
}

/// `UInt16 FrmCustomAlert(UInt16 alertId, const Char *s1, const Char *s2,
/// const Char *s3)`: `^1`–`^3` replaced; answered with button 0.
pub fn FrmCustomAlert(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let mut s: [Vec<u8>; 3] = Default::default();
    for (i, x) in s.iter_mut().enumerate() {
        let p = call.u32(1 + i);
        if p != 0 {
            *x = m.mem.read_cstr(p, 1024).map_err(|f| m.fault_in(call, f))?;
        }
    }
    alert(m, call, call.u16(0), [&s[0], &s[1], &s[2]])
}

/// `void FldSetTextHandle(FieldType *fldP, MemHandle textHandle)`: the field
/// now owns the handle (FrmDeleteForm frees it); the old one is not freed.
pub fn FldSetTextHandle(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    let f = &mut m.os.ui.forms[fi].fields[oi];
    f.handle = call.u32(1);
    f.offset = 0;
    f.text_ptr = 0;
    f.ins_pt = 0;
    Ok(0)
}

/// `MemHandle FldGetTextHandle(const FieldType *fldP)`.
pub fn FldGetTextHandle(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    Ok(m.os.ui.forms[fi].fields[oi].handle)
}

/// `void FldSetTextPtr(FieldType *fldP, Char *textP)`: not owned by the field.
pub fn FldSetTextPtr(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    let f = &mut m.os.ui.forms[fi].fields[oi];
    f.handle = 0;
    f.offset = 0;
    f.text_ptr = call.u32(1);
    f.ins_pt = 0;
    Ok(0)
}

/// `Char *FldGetTextPtr(const FieldType *fldP)`.
pub fn FldGetTextPtr(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    text_ptr(m, call, fi, oi)
}

/// `void FldDrawField(FieldType *fldP)`: the text is recorded.
pub fn FldDrawField(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let p = FldGetTextPtr(m, call)?;
    let text = if p == 0 {
        String::new()
    } else {
        String::from_utf8_lossy(
            &m.mem
                .read_cstr(p, 0x1_0000)
                .map_err(|f| m.fault_in(call, f))?,
        )
        .into_owned()
    };
    drawn(m, text);
    Ok(0)
}

/// `void WinDrawChars(const Char *chars, Int16 len, Coord x, Coord y)`: recorded.
pub fn WinDrawChars(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let len = (call.i16(1)).max(0) as u32;
    let b = m
        .mem
        .read_bytes(call.u32(0), len)
        .map_err(|f| m.fault_in(call, f))?;
    drawn(m, String::from_utf8_lossy(&b).into_owned());
    Ok(0)
}

/// `void WinEraseRectangle(const RectangleType *rP, UInt16 cornerDiam)`.
pub fn WinEraseRectangle(_m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(0)
}

/// The field's text pointer (through its handle, plus the FldSetText offset).
fn text_ptr(m: &Machine, call: &Call, fi: usize, oi: usize) -> Result<u32, Stop> {
    let fs = &m.os.ui.forms[fi].fields[oi];
    if fs.handle != 0 {
        let p = m.mem.read_u32(fs.handle).map_err(|f| m.fault_in(call, f))?;
        return Ok(p.wrapping_add(fs.offset));
    }
    Ok(fs.text_ptr)
}

/// The field's text bytes (without the NUL).
fn field_text(m: &Machine, call: &Call, fi: usize, oi: usize) -> Result<Vec<u8>, Stop> {
    let p = text_ptr(m, call, fi, oi)?;
    if p == 0 {
        return Ok(Vec::new());
    }
    m.mem
        .read_cstr(p, 0x1_0000)
        .map_err(|f| m.fault_in(call, f))
}

/// Replace the text of an editable field: a handle is allocated (MemHandleNew)
/// or grown (MemHandleResize) through the dispatch table, as the OS does.
fn set_field_text(
    m: &mut Machine,
    call: &Call,
    fi: usize,
    oi: usize,
    text: &[u8],
) -> Result<bool, Stop> {
    let fs = m.os.ui.forms[fi].fields[oi].clone();
    if fs.text_ptr != 0 {
        return Ok(false);
    }
    let need = fs.offset + text.len() as u32 + 1;
    let mut h = fs.handle;
    if h == 0 {
        let (_, a0) = m.call_trap(0xA01E, &[Arg68k::U32(need)])?;
        if a0 == 0 {
            return Ok(false);
        }
        h = a0;
        m.os.ui.forms[fi].fields[oi].handle = h;
    } else {
        if let crate::mem_mgr::Lookup::Invalid(why) = crate::mem_mgr::lookup_handle(m, call, h)? {
            return Err(bad(
                m,
                call,
                format!("the field's text handle 0x{h:08X}: {why}"),
            ));
        }
        // MemHandleSize (0xA02D) through the dispatch table, as the ROM's Field Manager
        // asks for it: a patch of MemHandleSize (memdbg hiding its guard
        // bytes) answers.
        let (size, _) = m.call_trap(0xA02D, &[Arg68k::U32(h)])?;
        if size < need {
            let (d0, _) = m.call_trap(0xA033, &[Arg68k::U32(h), Arg68k::U32(need)])?;
            if d0 & 0xFFFF != 0 {
                return Ok(false);
            }
        }
    }
    let p = m.mem.read_u32(h).map_err(|f| m.fault_in(call, f))? + fs.offset;
    let mut bytes = text.to_vec();
    bytes.push(0);
    m.mem
        .os_write_bytes(p, &bytes)
        .map_err(|f| m.fault_in(call, f))?;
    let f = &mut m.os.ui.forms[fi].fields[oi];
    f.dirty = true;
    Ok(true)
}

/// Insert `chars` at the insertion point (limited by max chars).
fn insert(m: &mut Machine, call: &Call, fi: usize, oi: usize, chars: &[u8]) -> Result<bool, Stop> {
    let mut text = field_text(m, call, fi, oi)?;
    let fs = m.os.ui.forms[fi].fields[oi].clone();
    let room = if fs.max_chars == 0 {
        chars.len()
    } else {
        usize::from(fs.max_chars).saturating_sub(text.len())
    };
    if room < chars.len() {
        return Ok(false);
    }
    let at = usize::from(fs.ins_pt).min(text.len());
    text.splice(at..at, chars.iter().copied());
    if !set_field_text(m, call, fi, oi, &text)? {
        return Ok(false);
    }
    m.os.ui.forms[fi].fields[oi].ins_pt = (at + chars.len()) as u16;
    Ok(true)
}

/// `Boolean FldInsert(FieldType *fldP, const Char *insertChars, UInt16
/// insertLen)`: a field without text gets a new handle (MemHandleNew through
/// the dispatch table, owned by the app; FrmDeleteForm frees it).
pub fn FldInsert(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    let chars = m
        .mem
        .read_bytes(call.u32(1), u32::from(call.u16(2)))
        .map_err(|f| m.fault_in(call, f))?;
    Ok(u32::from(insert(m, call, fi, oi, &chars)?))
}

/// `void FldDelete(FieldType *fldP, UInt16 start, UInt16 end)`.
pub fn FldDelete(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    let mut text = field_text(m, call, fi, oi)?;
    let end = usize::from(call.u16(2)).min(text.len());
    let start = usize::from(call.u16(1)).min(end);
    text.drain(start..end);
    set_field_text(m, call, fi, oi, &text)?;
    m.os.ui.forms[fi].fields[oi].ins_pt = start as u16;
    Ok(0)
}

/// `void FldSetText(FieldType *fldP, MemHandle textHandle, UInt16 offset,
/// UInt16 size)`: like FldSetTextHandle, with the text at `offset`.
pub fn FldSetText(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    let f = &mut m.os.ui.forms[fi].fields[oi];
    f.handle = call.u32(1);
    f.offset = u32::from(call.u16(2));
    f.text_ptr = 0;
    f.ins_pt = 0;
    Ok(0)
}

/// `UInt16 FldGetTextLength(const FieldType *fldP)`.
pub fn FldGetTextLength(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    Ok(field_text(m, call, fi, oi)?.len() as u32)
}

/// `UInt16 FldGetMaxChars(const FieldType *fldP)`.
pub fn FldGetMaxChars(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    Ok(u32::from(m.os.ui.forms[fi].fields[oi].max_chars))
}

/// `void FldSetMaxChars(FieldType *fldP, UInt16 maxChars)`.
pub fn FldSetMaxChars(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    m.os.ui.forms[fi].fields[oi].max_chars = call.u16(1);
    Ok(0)
}

/// `Boolean FldDirty(const FieldType *fldP)`.
pub fn FldDirty(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    Ok(u32::from(m.os.ui.forms[fi].fields[oi].dirty))
}

/// `void FldSetDirty(FieldType *fldP, Boolean dirty)`.
pub fn FldSetDirty(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    m.os.ui.forms[fi].fields[oi].dirty = call.u8(1) != 0;
    Ok(0)
}

/// `void FldFreeMemory(FieldType *fldP)`: frees the text handle
/// (MemHandleFree through the dispatch table).
pub fn FldFreeMemory(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    let h = m.os.ui.forms[fi].fields[oi].handle;
    if h != 0 {
        m.call_trap(0xA02B, &[Arg68k::U32(h)])?;
        let f = &mut m.os.ui.forms[fi].fields[oi];
        f.handle = 0;
        f.ins_pt = 0;
    }
    Ok(0)
}

/// `void FldGetSelection(const FieldType *fldP, UInt16 *startPosition, UInt16 *endPosition)`.
pub fn FldGetSelection(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    let (a, b) = m.os.ui.forms[fi].fields[oi].selection;
    m.mem
        .write_u16(call.u32(1), a)
        .and_then(|_| m.mem.write_u16(call.u32(2), b))
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// `void FldSetSelection(FieldType *fldP, UInt16 startPosition, UInt16 endPosition)`.
pub fn FldSetSelection(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    m.os.ui.forms[fi].fields[oi].selection = (call.u16(1), call.u16(2));
    Ok(0)
}

/// `void FldSetInsPtPosition(FieldType *fldP, UInt16 pos)`.
pub fn FldSetInsPtPosition(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    m.os.ui.forms[fi].fields[oi].ins_pt = call.u16(1);
    Ok(0)
}

/// `void FldEraseField(FieldType *fldP)`.
pub fn FldEraseField(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    field_of(m, call, call.u32(0))?;
    Ok(0)
}

/// `void FldRecalculateField(FieldType *fldP, Boolean redraw)`.
pub fn FldRecalculateField(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    field_of(m, call, call.u32(0))?;
    Ok(0)
}

/// A keyDown for field (`fi`, `oi`): backspace (8) deletes before the
/// insertion point, other characters are inserted.
fn field_key(m: &mut Machine, call: &Call, fi: usize, oi: usize, e: &Event) -> Result<bool, Stop> {
    let chr = u16::from_be_bytes([e[8], e[9]]);
    if chr == 8 {
        let at = m.os.ui.forms[fi].fields[oi].ins_pt;
        if at > 0 {
            let mut text = field_text(m, call, fi, oi)?;
            let at = usize::from(at).min(text.len());
            if at > 0 {
                text.remove(at - 1);
                set_field_text(m, call, fi, oi, &text)?;
                m.os.ui.forms[fi].fields[oi].ins_pt = (at - 1) as u16;
            }
        }
        return Ok(true);
    }
    match u8::try_from(chr) {
        Ok(c) if c >= 0x20 || c == b'\n' => insert(m, call, fi, oi, &[c]),
        _ => Ok(false),
    }
}

/// `Boolean FldHandleEvent(FieldType *fldP, EventType *eventP)`: keyDown
/// edits the text; other events are not handled.
pub fn FldHandleEvent(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    let e = read_event(m, call, call.u32(1))?;
    if u16::from_be_bytes([e[0], e[1]]) != KEY_DOWN_EVENT {
        return Ok(0);
    }
    Ok(u32::from(field_key(m, call, fi, oi, &e)?))
}

/// `UInt16 FrmGetFocus(const FormType *formP)`: noFocus (0xFFFF) if none.
pub fn FrmGetFocus(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let f = form_of(m, call, call.u32(0))?;
    Ok(f.focus.map_or(FRM_INVALID_OBJECT_ID, |i| i as u32))
}

/// `void FrmSetFocus(FormType *formP, UInt16 fieldIndex)`.
pub fn FrmSetFocus(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let ptr = call.u32(0);
    form_of(m, call, ptr)?;
    let i = call.u16(1);
    if let Some(f) = m.os.ui.forms.iter_mut().find(|f| f.ptr == ptr) {
        f.focus = (usize::from(i) < f.model.objects.len()).then_some(usize::from(i));
    }
    Ok(0)
}

/// `UInt16 FrmGetActiveFormID(void)`: 0 if no form is active.
pub fn FrmGetActiveFormID(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(m.os
        .ui
        .form(m.os.ui.active)
        .map_or(0, |f| u32::from(f.model.id)))
}

/// `FormType *FrmGetFormPtr(UInt16 formId)`: the loaded form with that ID, or NULL.
pub fn FrmGetFormPtr(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let id = call.u16(0);
    Ok(m.os
        .ui
        .forms
        .iter()
        .rev()
        .find(|f| f.model.id == id)
        .map_or(0, |f| f.ptr))
}

/// `UInt16 FrmGetNumberOfObjects(const FormType *formP)`.
pub fn FrmGetNumberOfObjects(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(form_of(m, call, call.u32(0))?.model.objects.len() as u32)
}

/// `UInt16 FrmGetObjectId(const FormType *formP, UInt16 objIndex)`.
pub fn FrmGetObjectId(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let f = form_of(m, call, call.u32(0))?;
    match f.model.objects.get(usize::from(call.u16(1))) {
        Some(o) => Ok(u32::from(o.id().unwrap_or(0))),
        None => Err(bad(
            m,
            call,
            format!("object index {} out of range", call.u16(1)),
        )),
    }
}

/// `const Char *FrmGetTitle(const FormType *formP)`.
pub fn FrmGetTitle(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(form_of(m, call, call.u32(0))?.title)
}

/// `void FrmSetTitle(FormType *formP, Char *newTitle)`: the form keeps the pointer.
pub fn FrmSetTitle(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let ptr = call.u32(0);
    form_of(m, call, ptr)?;
    if let Some(f) = m.os.ui.forms.iter_mut().find(|f| f.ptr == ptr) {
        f.title = call.u32(1);
    }
    Ok(0)
}

/// `void FrmCopyTitle(FormType *formP, const Char *newTitle)`: copied into the
/// form's own title (at most the length of the resource's title).
pub fn FrmCopyTitle(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let f = form_of(m, call, call.u32(0))?;
    let room = f.model.title().map_or(0, <[u8]>::len);
    let t = m
        .mem
        .read_cstr(call.u32(1), 256)
        .map_err(|x| m.fault_in(call, x))?;
    if f.title != 0 && room > 0 {
        let mut b = t[..t.len().min(room)].to_vec();
        b.push(0);
        m.mem
            .os_write_bytes(f.title, &b)
            .map_err(|x| m.fault_in(call, x))?;
    }
    Ok(0)
}

/// `void FrmUpdateForm(UInt16 formId, UInt16 updateCode)`: queues frmUpdateEvent.
pub fn FrmUpdateForm(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let mut e = event(FRM_UPDATE_EVENT, call.u16(0));
    e[10..12].copy_from_slice(&call.u16(1).to_be_bytes());
    m.os.ui.queue.push_back(e);
    Ok(0)
}

/// `void FrmPopupForm(UInt16 formId)`: frmLoadEvent and frmOpenEvent for a
/// form opened over the active one (which stays loaded).
pub fn FrmPopupForm(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let cur = m.os.ui.active;
    m.os.ui.popups.push(cur);
    m.os.ui.queue.push_back(event(FRM_LOAD_EVENT, call.u16(0)));
    m.os.ui.queue.push_back(event(FRM_OPEN_EVENT, call.u16(0)));
    Ok(0)
}

/// `void FrmReturnToForm(UInt16 formId)`: erase and delete the active form
/// and make `formId` (0: the form under the popup) active.
pub fn FrmReturnToForm(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let cur = m.os.ui.active;
    if cur != 0 {
        delete_form(m, call, cur)?;
    }
    let under = m.os.ui.popups.pop().unwrap_or(0);
    let id = call.u16(0);
    m.os.ui.active = if id == 0 {
        under
    } else {
        m.os.ui
            .forms
            .iter()
            .rev()
            .find(|f| f.model.id == id)
            .map_or(0, |f| f.ptr)
    };
    Ok(0)
}

/// `UInt16 FrmDoDialog(FormType *formP)`: the dialog is active while queued
/// and scripted events are played to it; the first button selected ends it
/// and its ID is returned (the default button if the script ends). Other
/// controls' ctlSelectEvents go to FrmHandleEvent (a popup trigger pops its
/// list up), as PumpkinOS's FrmDoDialog does (`libpumpkin/Form.c`
/// `FrmDoDialogResponse`: only a `buttonCtl` ends the dialog).
pub fn FrmDoDialog(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let f = form_of(m, call, call.u32(0))?;
    let prev = m.os.ui.active;
    m.os.ui.active = f.ptr;
    let r = loop {
        let e = if let Some(e) = m.os.ui.queue.pop_front() {
            e
        } else if let Some(s) = m.os.ui.next_scripted() {
            scripted_event(m, call, &s)?
        } else {
            break u32::from(f.model.default_button);
        };
        m.idle(1);
        let t = u16::from_be_bytes([e[0], e[1]]);
        let button =
            m.os.ui
                .object(u32::from_be_bytes([e[10], e[11], e[12], e[13]]));
        if t == CTL_SELECT_EVENT
            && button.is_some_and(|(fi, oi)| {
                matches!(&m.os.ui.forms[fi].model.objects[oi],
                    FormObject::Control(c) if c.style == palm_rcp::form::ControlStyle::Button)
            })
        {
            break u32::from(u16::from_be_bytes([e[8], e[9]]));
        }
        if t == APP_STOP_EVENT {
            m.os.ui.queue.push_front(e);
            break u32::from(f.model.default_button);
        }
        form_event(m, call, &f, &e)?;
    };
    m.os.ui.active = prev;
    Ok(r)
}

fn control_of(m: &Machine, call: &Call, ptr: u32) -> Result<(usize, usize), Stop> {
    match m.os.ui.object(ptr) {
        Some((fi, oi)) if matches!(m.os.ui.forms[fi].model.objects[oi], FormObject::Control(_)) => {
            Ok((fi, oi))
        }
        _ => Err(bad(m, call, format!("0x{ptr:08X} is not a control"))),
    }
}

/// `Int16 CtlGetValue(const ControlType *controlP)`.
pub fn CtlGetValue(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = control_of(m, call, call.u32(0))?;
    Ok(u32::from(m.os.ui.forms[fi].fields[oi].value as u16))
}

/// `void CtlSetValue(ControlType *controlP, Int16 newValue)`.
pub fn CtlSetValue(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = control_of(m, call, call.u32(0))?;
    m.os.ui.forms[fi].fields[oi].value = call.i16(1);
    Ok(0)
}

/// `const Char *CtlGetLabel(const ControlType *controlP)`.
pub fn CtlGetLabel(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = control_of(m, call, call.u32(0))?;
    Ok(m.os.ui.forms[fi].fields[oi].label)
}

/// `void CtlSetLabel(ControlType *controlP, const Char *newLabel)`: the
/// control keeps the pointer.
pub fn CtlSetLabel(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = control_of(m, call, call.u32(0))?;
    m.os.ui.forms[fi].fields[oi].label = call.u32(1);
    Ok(0)
}

/// `void CtlHitControl(const ControlType *controlP)`: queues its ctlSelectEvent.
pub fn CtlHitControl(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = control_of(m, call, call.u32(0))?;
    let id = m.os.ui.forms[fi].model.objects[oi].id().unwrap_or(0);
    let mut sel = event(CTL_SELECT_EVENT, id);
    sel[10..14].copy_from_slice(&call.u32(0).to_be_bytes());
    m.os.ui.queue.push_back(sel);
    Ok(0)
}

fn control_by_id(m: &Machine, call: &Call, form: u32, id: u16) -> Result<(usize, usize), Stop> {
    let f = form_of(m, call, form)?;
    let fi = m.os.ui.form_index(form).unwrap_or(0);
    match f.model.objects.iter().position(|o| o.id() == Some(id)) {
        Some(oi) => Ok((fi, oi)),
        None => Err(bad(m, call, format!("no object with ID {id}"))),
    }
}

/// `Int16 FrmGetControlValue(const FormType *formP, UInt16 controlID)`
/// (the SDK names the second argument an index; we accept the object index).
pub fn FrmGetControlValue(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let f = form_of(m, call, call.u32(0))?;
    let fi = m.os.ui.form_index(f.ptr).unwrap_or(0);
    let oi = usize::from(call.u16(1));
    match m.os.ui.forms[fi].fields.get(oi) {
        Some(s) => Ok(u32::from(s.value as u16)),
        None => control_by_id(m, call, f.ptr, call.u16(1))
            .map(|(fi, oi)| u32::from(m.os.ui.forms[fi].fields[oi].value as u16)),
    }
}

/// `void FrmSetControlValue(const FormType *formP, UInt16 controlID, Int16 newValue)`.
pub fn FrmSetControlValue(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let f = form_of(m, call, call.u32(0))?;
    let fi = m.os.ui.form_index(f.ptr).unwrap_or(0);
    let oi = usize::from(call.u16(1));
    if oi < m.os.ui.forms[fi].fields.len() {
        m.os.ui.forms[fi].fields[oi].value = call.i16(2);
    }
    Ok(0)
}

/// `void FrmHideObject(FormType *formP, UInt16 objIndex)`.
pub fn FrmHideObject(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    show(m, call, true)
}

/// `void FrmShowObject(FormType *formP, UInt16 objIndex)`.
pub fn FrmShowObject(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    show(m, call, false)
}

fn show(m: &mut Machine, call: &Call, hidden: bool) -> Result<u32, Stop> {
    let f = form_of(m, call, call.u32(0))?;
    let fi = m.os.ui.form_index(f.ptr).unwrap_or(0);
    if let Some(s) = m.os.ui.forms[fi].fields.get_mut(usize::from(call.u16(1))) {
        s.hidden = hidden;
    }
    Ok(0)
}

/// `WinHandle FrmGetWindowHandle(const FormType *formP)`: the form pointer
/// stands for its window.
pub fn FrmGetWindowHandle(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(form_of(m, call, call.u32(0))?.ptr)
}

/// `WinHandle WinGetActiveWindow(void)`: the active form's window.
pub fn WinGetActiveWindow(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(m.os.ui.active)
}

/// `WinHandle WinGetDrawWindow(void)`: the active form's window.
pub fn WinGetDrawWindow(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(m.os.ui.active)
}

/// `WinHandle WinSetDrawWindow(WinHandle winHandle)`: returns the previous one.
pub fn WinSetDrawWindow(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(m.os.ui.active)
}

/// `void WinSetActiveWindow(WinHandle winHandle)`.
pub fn WinSetActiveWindow(_m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(0)
}

/// `void WinGetDisplayExtent(Coord *extentX, Coord *extentY)`: 160 × 160.
pub fn WinGetDisplayExtent(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    m.mem
        .write_u16(call.u32(0), 160)
        .and_then(|_| m.mem.write_u16(call.u32(1), 160))
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// Drawing that leaves no text: `WinEraseWindow`, `WinDrawLine`,
/// `WinDrawRectangle`, `WinDrawRectangleFrame`, `WinPushDrawState`,
/// `WinPopDrawState`, `FrmEraseForm`-like no-ops, `MenuDrawMenu`,
/// `MenuEraseStatus`, `EvtResetAutoOffTimer`, `EvtFlushPenQueue`.
pub fn no_op(_m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(0)
}

/// `void WinEraseChars(const Char *chars, Int16 len, Coord x, Coord y)` and
/// `WinDrawInvertedChars`: recorded like WinDrawChars.
pub fn WinDrawInvertedChars(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    WinDrawChars(m, call)
}

/// `Int16 FntLineHeight(void)`: 11 pixels (stdFont; our model).
pub fn FntLineHeight(_m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(11)
}

/// `Int16 FntCharsWidth(const Char *chars, Int16 len)`: 5 pixels per
/// character (our model of stdFont's average width).
pub fn FntCharsWidth(_m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(u32::from((call.i16(1).max(0) as u16).saturating_mul(5)))
}

/// `MenuBarType *MenuInit(UInt16 resourceId)`: checks the `MBAR` resource
/// parses; the menu bar is represented by a small system chunk.
pub fn MenuInit(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let id = call.u16(0);
    let data = crate::data_mgr::open_resource_bytes(m, b"MBAR", id)
        .ok_or_else(|| bad(m, call, format!("no MBAR resource {id}")))?;
    palm_rcp::menu::MenuBar::parse(&data).map_err(|e| bad(m, call, format!("MBAR {id}: {e}")))?;
    let heap = m.os.mem.dynamic;
    let owner = m.os.sys.cur_owner;
    let p = crate::mem_mgr::allocate(m, call, heap, 4, owner, false, Placement::Start)?;
    if p != 0 {
        m.mem.os_write_u16(p, id).map_err(|f| m.fault_in(call, f))?;
    }
    Ok(p)
}

/// `void MenuDispose(MenuBarType *menuP)`: frees it (MemChunkFree through the
/// dispatch table).
pub fn MenuDispose(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    if call.u32(0) != 0 {
        m.call_trap(0xA012, &[Arg68k::U32(call.u32(0))])?;
        if m.os.ui.menu == call.u32(0) {
            m.os.ui.menu = 0;
        }
    }
    Ok(0)
}

/// `MenuBarType *MenuGetActiveMenu(void)`.
pub fn MenuGetActiveMenu(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(m.os.ui.menu)
}

/// `MenuBarType *MenuSetActiveMenu(MenuBarType *menuP)`: returns the previous one.
pub fn MenuSetActiveMenu(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(std::mem::replace(&mut m.os.ui.menu, call.u32(0)))
}

/// `void MenuSetActiveMenuRscID(UInt16 resourceId)`: scripted menu events
/// are checked against this menu bar (unless MenuInit's is active).
pub fn MenuSetActiveMenuRscID(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    m.os.ui.menu_rsc = call.u16(0);
    Ok(0)
}

/// `Boolean EvtEventAvail(void)`: queued or scripted events remain.
pub fn EvtEventAvail(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(u32::from(
        !m.os.ui.queue.is_empty() || !m.os.ui.script.is_empty(),
    ))
}

/// `void EvtCopyEvent(const EventType *source, EventType *dest)`.
pub fn EvtCopyEvent(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let e = read_event(m, call, call.u32(0))?;
    m.mem
        .write_bytes(call.u32(1), &e)
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}
