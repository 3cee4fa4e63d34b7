//! UI subset: the event queue (OS events first, then the script, then
//! appStopEvent), forms built from the app's `tFRM` resources (parsed with
//! `palm_rcp::form`), fields, alerts, menus and drawing (recorded, not
//! rendered). Event layout and numbers: PALM_FACTS §4.6 (`UI/Event.h`).
//!
//! A `FormType*` is a chunk in the dynamic heap owned by the app (our layout,
//! opaque to apps that use the accessor traps): form ID at +0, then one
//! 8-byte slot per object (object type byte at +0, ID at +2); an object
//! pointer (`FrmGetObjectPtr`) is the address of its slot.
//!
//! FrmDeleteForm frees each field's text handle by calling MemHandleFree
//! through the current dispatch table, then the form chunk through
//! MemChunkFree, so an app's patches of those traps see the OS's frees.
#![allow(non_snake_case)]

use std::collections::VecDeque;

use palm_rcp::form::{Form, FormObject};

use crate::heap::Placement;
use crate::machine::{Arg68k, Call, Machine, Stop, StopKind};
use crate::script::{ScriptEvent, Scripted};

/// `penDownEvent`.
pub const PEN_DOWN_EVENT: u16 = 1;
/// `penUpEvent`.
pub const PEN_UP_EVENT: u16 = 2;
/// `keyDownEvent`.
pub const KEY_DOWN_EVENT: u16 = 4;
/// `ctlSelectEvent`.
pub const CTL_SELECT_EVENT: u16 = 9;
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

/// A field's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldState {
    /// Text handle given with FldSetTextHandle (0: none).
    pub handle: u32,
    /// Text pointer given with FldSetTextPtr (0: none).
    pub text_ptr: u32,
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
    /// Field state by object index.
    pub fields: Vec<FieldState>,
}

impl LiveForm {
    fn object_ptr(&self, index: usize) -> u32 {
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
}

impl Ui {
    /// The live form at `ptr`.
    pub fn form(&self, ptr: u32) -> Option<&LiveForm> {
        self.forms.iter().find(|f| f.ptr == ptr)
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

fn bad(m: &Machine, call: &Call, what: String) -> Stop {
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
/// penDown at the control's centre followed by a queued penUp).
fn scripted_event(m: &mut Machine, call: &Call, s: &Scripted) -> Result<Event, Stop> {
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
                    StopKind::DebugCheck(format!(
                        "event script line {}: the active form has no control with ID {id}",
                        s.line
                    )),
                )
            })?;
            pen(m, x, y)
        }
        ScriptEvent::Pen(x, y) => pen(m, x, y),
        ScriptEvent::Key(c) => event(KEY_DOWN_EVENT, c),
        ScriptEvent::Menu(id) => event(MENU_EVENT, id),
        ScriptEvent::Nil => event(0, 0),
        ScriptEvent::Stop => event(APP_STOP_EVENT, 0),
    })
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
    } else if let Some(s) = m.os.ui.script.pop_front() {
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

fn read_event(m: &Machine, call: &Call, p: u32) -> Result<Event, Stop> {
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
    let heap = m.os.mem.dynamic;
    let owner = m.os.sys.cur_owner;
    let ptr = crate::mem_mgr::allocate(
        m,
        call,
        heap,
        FORM_HEADER + OBJECT_SLOT * n,
        owner,
        false,
        Placement::Start,
    )?;
    if ptr == 0 {
        return Err(bad(m, call, "out of memory".into()));
    }
    m.mem
        .os_fill(ptr, FORM_HEADER + OBJECT_SLOT * n, 0)
        .map_err(|f| m.fault_in(call, f))?;
    m.mem
        .os_write_u16(ptr, id)
        .map_err(|f| m.fault_in(call, f))?;
    for (i, o) in model.objects.iter().enumerate() {
        let slot = ptr + FORM_HEADER + OBJECT_SLOT * i as u32;
        m.mem
            .os_write_u8(slot, o.kind())
            .and_then(|_| m.mem.os_write_u16(slot + 2, o.id().unwrap_or(0)))
            .map_err(|f| m.fault_in(call, f))?;
    }
    let fields = vec![FieldState::default(); model.objects.len()];
    m.os.ui.forms.push(LiveForm {
        ptr,
        model,
        handler: 0,
        fields,
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
    let f = form_of(m, call, call.u32(0))?;
    m.os.ui.forms_drawn.push(f.model.id);
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
            m.os.ui.forms_drawn.push(form.model.id);
            Ok(true)
        }
        PEN_DOWN_EVENT => {
            let x = i16::from_be_bytes([e[4], e[5]]).wrapping_sub(form.model.bounds.x);
            let y = i16::from_be_bytes([e[6], e[7]]).wrapping_sub(form.model.bounds.y);
            let hit = form
                .model
                .objects
                .iter()
                .enumerate()
                .find_map(|(i, o)| match o {
                    FormObject::Control(c)
                        if x >= c.bounds.x
                            && x < c.bounds.x + c.bounds.width
                            && y >= c.bounds.y
                            && y < c.bounds.y + c.bounds.height =>
                    {
                        Some((i, c.id))
                    }
                    _ => None,
                });
            match hit {
                Some((i, id)) => {
                    let mut sel = event(CTL_SELECT_EVENT, id);
                    sel[10..14].copy_from_slice(&form.object_ptr(i).to_be_bytes());
                    m.os.ui.queue.push_back(sel);
                    Ok(true)
                }
                None => Ok(false),
            }
        }
        _ => Ok(false),
    }
}

/// `Boolean FrmHandleEvent(FormType *formP, EventType *eventP)`: the default
/// form behaviour: frmCloseEvent deletes the form, frmUpdateEvent redraws it,
/// a penDown on a control posts its ctlSelectEvent (pen tracking through
/// ctlEnter/ctlExit is not modelled).
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
    m.os.ui.forms[fi].fields[oi] = FieldState {
        handle: call.u32(1),
        text_ptr: 0,
    };
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
    m.os.ui.forms[fi].fields[oi] = FieldState {
        handle: 0,
        text_ptr: call.u32(1),
    };
    Ok(0)
}

/// `Char *FldGetTextPtr(const FieldType *fldP)`.
pub fn FldGetTextPtr(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = field_of(m, call, call.u32(0))?;
    let fs = m.os.ui.forms[fi].fields[oi].clone();
    if fs.handle != 0 {
        return m.mem.read_u32(fs.handle).map_err(|f| m.fault_in(call, f));
    }
    Ok(fs.text_ptr)
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
    m.os.ui.drawn.push(text);
    Ok(0)
}

/// `void WinDrawChars(const Char *chars, Int16 len, Coord x, Coord y)`: recorded.
pub fn WinDrawChars(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let len = (call.i16(1)).max(0) as u32;
    let b = m
        .mem
        .read_bytes(call.u32(0), len)
        .map_err(|f| m.fault_in(call, f))?;
    m.os.ui.drawn.push(String::from_utf8_lossy(&b).into_owned());
    Ok(0)
}

/// `void WinEraseRectangle(const RectangleType *rP, UInt16 cornerDiam)`.
pub fn WinEraseRectangle(_m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(0)
}
