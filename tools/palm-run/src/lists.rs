//! Lists, popup lists and scroll bars of live forms: the List Manager
//! (`UI/List.h`), the popup trigger's behaviour in `FrmHandleEvent`, and the
//! Scroll Bar Manager (`UI/ScrollBar.h`), with the events of `UI/Event.h`
//! (all SDK 3.5, `jichu4n/palm-os-sdk`).
//!
//! A list's items are `Char *`s in 68k memory: `FrmInitForm` copies a
//! resource list's texts into the form chunk with an array of pointers to
//! them, and `LstSetListChoices` replaces that array with the app's (read
//! each time, as the OS reads it: the app may change the strings). Rows are
//! `FntLineHeight` of the list's font high (11 pixels, 14 for `largeFont`);
//! a list shows `height / row` rows from its top item.
//!
//! Pen input is modelled as a scripted tap (a penDown with its penUp): a
//! penDown on a list row selects the item and posts `lstSelectEvent` (the
//! pen tracking of `lstEnterEvent` is not modelled); a penDown on a popup
//! trigger posts `ctlSelectEvent`, which `FrmHandleEvent` answers by popping
//! the list up ([`popup`]: the next penDown chooses an item or dismisses it)
//! and, on a choice, by posting `popSelectEvent`, which `FrmHandleEvent`
//! answers by setting the trigger's label to the item's text. A penDown on
//! a shown scroll bar posts `sclEnterEvent`; `SclHandleEvent` answers it by
//! moving the value (1 for an arrow, `pageSize` for the shaft beside the car,
//! clamped to min..max), posting `sclRepeatEvent` (value before, new value,
//! ticks) when it moved, then `sclExitEvent` (the value at the penDown, the
//! new value): the pen is up again at once, so there is one repeat a tap.
//! Palm OS Reference, "Scroll Bars" and the events `sclEnterEvent`,
//! `sclRepeatEvent`, `sclExitEvent`, `popSelectEvent`; the arrow and car
//! geometry is PumpkinOS's model (`libpumpkin/ScrollBar.c`): arrows 4 pixels
//! high (2 if the bar is narrower than 6), the car `pageSize`'s share of the
//! shaft.
//!
//! Drawing is recorded, not rendered: list rows as text in [`Ui::drawn`](crate::ui::Ui::drawn)
//! (`>` before the selected item), scroll bars in [`Ui::scroll_bars_drawn`](crate::ui::Ui::scroll_bars_drawn).
#![allow(non_snake_case)]

use palm_rcp::form::{ControlStyle, FormObject};

use crate::machine::{Call, Machine, Stop};
use crate::ui::{
    CTL_SELECT_EVENT, Event, LST_SELECT_EVENT, NO_LIST_SELECTION, PEN_DOWN_EVENT, PEN_UP_EVENT,
    POP_SELECT_EVENT, SCL_ENTER_EVENT, SCL_EXIT_EVENT, SCL_REPEAT_EVENT, bad, event,
};

/// Height in pixels of a list row in font `font` (`FntLineHeight` of the
/// ROM fonts: 11, and 14 for `largeFont`, font 2).
pub fn row_height(font: u8) -> i16 {
    if font == 2 { 14 } else { 11 }
}

/// A scroll bar as drawn: its ID and state (value, min, max, page size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScrollBarDrawn {
    /// The scroll bar's ID.
    pub id: u16,
    /// `value`.
    pub value: i16,
    /// `minValue`.
    pub min: i16,
    /// `maxValue`.
    pub max: i16,
    /// `pageSize`.
    pub page_size: i16,
}

/// A region of a scroll bar (`ScrollBarRegionType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// `sclUpArrow`.
    UpArrow,
    /// `sclDownArrow`.
    DownArrow,
    /// `sclUpPage`: the shaft above the car.
    UpPage,
    /// `sclDownPage`: the shaft below the car.
    DownPage,
    /// `sclCar`.
    Car,
}

/// A scroll bar's geometry in pixels from its top: the arrows' height and
/// the car's first and end row (module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Height of each arrow.
    pub arrow: i16,
    /// First row of the car.
    pub car_top: i16,
    /// The row after the car.
    pub car_end: i16,
    /// The bar's height.
    pub height: i16,
}

/// The geometry of a bar of `width` × `height` pixels with these values
/// (`max > min`).
pub fn geometry(width: i16, height: i16, value: i16, min: i16, max: i16, page: i16) -> Geometry {
    let arrow = if width >= 6 { 4 } else { 2 };
    let shaft = i32::from(height - 2 * arrow - 2).max(0);
    let (v, lo, hi, page) = (
        i32::from(value),
        i32::from(min),
        i32::from(max),
        i32::from(page.max(1)),
    );
    let pages = ((hi - lo + 1) + page - 1) / page;
    let car = (shaft / pages.max(1)).max(1).min(shaft.max(1));
    let offset = if hi > lo {
        ((v.clamp(lo, hi) - lo) * (shaft - car).max(0)) / (hi - lo)
    } else {
        0
    };
    let car_top = i32::from(arrow) + 1 + offset;
    Geometry {
        arrow,
        car_top: car_top as i16,
        car_end: (car_top + car) as i16,
        height,
    }
}

impl Geometry {
    /// The region at row `y` (pixels from the bar's top); an arrow takes
    /// the row between it and the shaft.
    pub fn region(&self, y: i16) -> Region {
        if y <= self.arrow {
            Region::UpArrow
        } else if y >= self.height - self.arrow - 1 {
            Region::DownArrow
        } else if y < self.car_top {
            Region::UpPage
        } else if y >= self.car_end {
            Region::DownPage
        } else {
            Region::Car
        }
    }

    /// A row inside `region`, if the region has one now.
    pub fn row_in(&self, region: Region) -> Option<i16> {
        let (from, to) = match region {
            Region::UpArrow => (0, self.arrow),
            Region::DownArrow => (self.height - self.arrow, self.height),
            Region::UpPage => (self.arrow + 1, self.car_top),
            Region::DownPage => (self.car_end, self.height - self.arrow - 1),
            Region::Car => (self.car_top, self.car_end),
        };
        (to > from).then_some(from + (to - from) / 2)
    }
}

/// The value a tap in `region` gives a bar at `value` (arrows 1, the shaft
/// `pageSize`, clamped to `min..=max`).
pub fn scrolled(region: Region, value: i16, min: i16, max: i16, page: i16) -> i16 {
    let v = i32::from(value);
    let moved = match region {
        Region::UpArrow => v - 1,
        Region::DownArrow => v + 1,
        Region::UpPage => v - i32::from(page),
        Region::DownPage => v + i32::from(page),
        Region::Car => v,
    };
    moved.clamp(i32::from(min), i32::from(max)) as i16
}

/// What a list is: its form and object index.
fn list_of(m: &Machine, call: &Call, ptr: u32) -> Result<(usize, usize), Stop> {
    match m.os.ui.object(ptr) {
        Some((fi, oi)) if matches!(m.os.ui.forms[fi].model.objects[oi], FormObject::List(_)) => {
            Ok((fi, oi))
        }
        _ => Err(bad(m, call, format!("0x{ptr:08X} is not a list"))),
    }
}

fn scroll_bar_of(m: &Machine, call: &Call, ptr: u32) -> Result<(usize, usize), Stop> {
    match m.os.ui.object(ptr) {
        Some((fi, oi))
            if matches!(
                m.os.ui.forms[fi].model.objects[oi],
                FormObject::ScrollBar(_)
            ) =>
        {
            Ok((fi, oi))
        }
        _ => Err(bad(m, call, format!("0x{ptr:08X} is not a scroll bar"))),
    }
}

/// The list model (bounds, font, attributes) of object (`fi`, `oi`).
fn model(m: &Machine, fi: usize, oi: usize) -> &palm_rcp::form::List {
    match &m.os.ui.forms[fi].model.objects[oi] {
        FormObject::List(l) => l,
        _ => unreachable!("list_of checked the kind"),
    }
}

/// Rows list (`fi`, `oi`) shows.
pub fn rows(m: &Machine, fi: usize, oi: usize) -> i16 {
    let l = model(m, fi, oi);
    (l.bounds.height / row_height(l.font)).max(0)
}

/// The items list (`fi`, `oi`) shows: `top..end`.
pub fn shown_items(m: &Machine, fi: usize, oi: usize) -> (i16, i16) {
    let st = &m.os.ui.forms[fi].fields[oi];
    let top = st.top.clamp(0, st.num_items.max(0));
    (top, (top + rows(m, fi, oi)).min(st.num_items.max(0)))
}

/// The 68k address of item `i`'s text (`itemsText[i]`).
fn item_ptr(m: &Machine, call: &Call, fi: usize, oi: usize, i: i16) -> Result<u32, Stop> {
    let st = &m.os.ui.forms[fi].fields[oi];
    m.mem
        .read_u32(st.items.wrapping_add(4 * u32::from(i as u16)))
        .map_err(|f| m.fault_in(call, f))
}

/// Item `i`'s text (at most 256 bytes are read).
fn item_text(m: &Machine, call: &Call, fi: usize, oi: usize, i: i16) -> Result<String, Stop> {
    let p = item_ptr(m, call, fi, oi, i)?;
    let b = m.mem.read_cstr(p, 256).map_err(|f| m.fault_in(call, f))?;
    Ok(String::from_utf8_lossy(&b).into_owned())
}

/// Records the rows list (`fi`, `oi`) shows, `>` before the selected item.
pub fn draw(m: &mut Machine, call: &Call, fi: usize, oi: usize) -> Result<(), Stop> {
    let (top, end) = shown_items(m, fi, oi);
    let selected = m.os.ui.forms[fi].fields[oi].value;
    for i in top..end {
        let text = item_text(m, call, fi, oi, i)?;
        let mark = if i == selected { ">" } else { "" };
        m.os.ui.drawn.push(format!("{mark}{text}"));
    }
    Ok(())
}

/// The item of list (`fi`, `oi`) under form-relative (`x`, `y`), if it is
/// shown there (usable, enabled and not hidden, or popped up).
fn hit_list(m: &Machine, fi: usize, oi: usize, x: i16, y: i16) -> Option<i16> {
    let form = &m.os.ui.forms[fi];
    let FormObject::List(l) = &form.model.objects[oi] else {
        return None;
    };
    let shown = (l.attr.usable && l.attr.enabled && !form.fields[oi].hidden)
        || m.os.ui.popped == form.object_ptr(oi);
    let inside = x >= l.bounds.x
        && x < l.bounds.x + l.bounds.width
        && y >= l.bounds.y
        && y < l.bounds.y + l.bounds.height;
    if !(shown && inside) {
        return None;
    }
    let (top, end) = shown_items(m, fi, oi);
    let item = top + (y - l.bounds.y) / row_height(l.font);
    (item < end).then_some(item)
}

/// The list of form `fi` under form-relative (`x`, `y`) and the item of the
/// row tapped, if that row holds one.
pub fn hit(m: &Machine, fi: usize, x: i16, y: i16) -> Option<(usize, i16)> {
    (0..m.os.ui.forms[fi].model.objects.len())
        .find_map(|oi| hit_list(m, fi, oi, x, y).map(|item| (oi, item)))
}

/// A penDown at form-relative (`x`, `y`) on a list (`LstHandleEvent`): the
/// item is selected and `lstSelectEvent` posted. False if no list row is
/// there.
pub fn pen_down_on_list(m: &mut Machine, fi: usize, x: i16, y: i16) -> bool {
    let Some((oi, item)) = hit(m, fi, x, y) else {
        return false;
    };
    select(m, fi, oi, item);
    true
}

/// Selects `item` of list (`fi`, `oi`) and posts its `lstSelectEvent`.
fn select(m: &mut Machine, fi: usize, oi: usize, item: i16) {
    let form = &mut m.os.ui.forms[fi];
    form.fields[oi].value = item;
    let id = form.model.objects[oi].id().unwrap_or(0);
    let mut sel = event(LST_SELECT_EVENT, id);
    sel[10..14].copy_from_slice(&form.object_ptr(oi).to_be_bytes());
    sel[14..16].copy_from_slice(&item.to_be_bytes());
    m.os.ui.queue.push_back(sel);
}

/// The state of scroll bar (`fi`, `oi`): value, min, max, page size.
fn bar_state(m: &Machine, fi: usize, oi: usize) -> (i16, i16, i16, i16) {
    let st = &m.os.ui.forms[fi].fields[oi];
    (st.value, st.min, st.max, st.page_size)
}

/// Scroll bar (`fi`, `oi`)'s bounds, if it is shown (usable, not hidden,
/// `maxValue > minValue`), and its geometry.
pub fn shown_bar(m: &Machine, fi: usize, oi: usize) -> Option<(palm_rcp::Rect, Geometry)> {
    let FormObject::ScrollBar(s) = &m.os.ui.forms[fi].model.objects[oi] else {
        return None;
    };
    let (value, min, max, page) = bar_state(m, fi, oi);
    (s.usable && !m.os.ui.forms[fi].fields[oi].hidden && max > min).then(|| {
        let b = s.bounds;
        (b, geometry(b.width, b.height, value, min, max, page))
    })
}

/// The shown scroll bar of form `fi` under form-relative (`x`, `y`).
fn bar_at(m: &Machine, fi: usize, x: i16, y: i16) -> Option<usize> {
    (0..m.os.ui.forms[fi].model.objects.len()).find(|&oi| {
        shown_bar(m, fi, oi)
            .is_some_and(|(b, _)| x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height)
    })
}

/// A penDown at form-relative (`x`, `y`) on a shown scroll bar
/// (`SclHandleEvent`): `sclEnterEvent` is posted. False if none is there.
pub fn pen_down_on_bar(m: &mut Machine, fi: usize, e: &Event, x: i16, y: i16) -> bool {
    match bar_at(m, fi, x, y) {
        Some(oi) => {
            enter(m, fi, oi, e);
            true
        }
        None => false,
    }
}

/// Posts `sclEnterEvent` for scroll bar (`fi`, `oi`) at the pen of `e`.
fn enter(m: &mut Machine, fi: usize, oi: usize, e: &Event) {
    let form = &m.os.ui.forms[fi];
    let mut enter = event(SCL_ENTER_EVENT, form.model.objects[oi].id().unwrap_or(0));
    enter[4..8].copy_from_slice(&e[4..8]);
    enter[10..14].copy_from_slice(&form.object_ptr(oi).to_be_bytes());
    m.os.ui.queue.push_back(enter);
}

/// `sclEnterEvent` for scroll bar (`fi`, `oi`) (`SclHandleEvent`): the
/// value moves by the region under the pen; `sclRepeatEvent` (if it moved)
/// and `sclExitEvent` are posted and the bar redrawn.
fn scl_enter(m: &mut Machine, fi: usize, oi: usize, e: &Event) -> bool {
    let Some((b, g)) = shown_bar(m, fi, oi) else {
        return false;
    };
    let form_y = m.os.ui.forms[fi].model.bounds.y;
    let y = i16::from_be_bytes([e[6], e[7]])
        .wrapping_sub(form_y)
        .wrapping_sub(b.y);
    let (value, min, max, page) = bar_state(m, fi, oi);
    let new = scrolled(g.region(y), value, min, max, page);
    let form = &m.os.ui.forms[fi];
    let id = form.model.objects[oi].id().unwrap_or(0);
    let ptr = form.object_ptr(oi);
    let mut exit = event(SCL_EXIT_EVENT, id);
    exit[4..8].copy_from_slice(&e[4..8]);
    exit[10..14].copy_from_slice(&ptr.to_be_bytes());
    exit[14..16].copy_from_slice(&value.to_be_bytes());
    exit[16..18].copy_from_slice(&new.to_be_bytes());
    if new != value {
        let mut repeat = exit;
        repeat[0..2].copy_from_slice(&SCL_REPEAT_EVENT.to_be_bytes());
        repeat[18..22].copy_from_slice(&(m.ticks() as u32).to_be_bytes());
        m.os.ui.forms[fi].fields[oi].value = new;
        draw_bar(m, fi, oi);
        m.os.ui.queue.push_back(repeat);
    }
    m.os.ui.queue.push_back(exit);
    true
}

/// Records scroll bar (`fi`, `oi`) as drawn.
pub fn draw_bar(m: &mut Machine, fi: usize, oi: usize) {
    let (value, min, max, page_size) = bar_state(m, fi, oi);
    let id = m.os.ui.forms[fi].model.objects[oi].id().unwrap_or(0);
    m.os.ui.scroll_bars_drawn.push(ScrollBarDrawn {
        id,
        value,
        min,
        max,
        page_size,
    });
}

/// The event's object pointer at `at` (a `pControl`, `pList`, ...).
fn ptr_at(e: &Event, at: usize) -> u32 {
    u32::from_be_bytes([e[at], e[at + 1], e[at + 2], e[at + 3]])
}

/// What `FrmHandleEvent` does with the events of this module: a popup
/// trigger's `ctlSelectEvent` pops its list up, `popSelectEvent` sets the
/// trigger's label, `sclEnterEvent` scrolls. `None`: not such an event.
pub fn form_event(
    m: &mut Machine,
    call: &Call,
    fi: usize,
    e: &Event,
) -> Result<Option<bool>, Stop> {
    let e_type = u16::from_be_bytes([e[0], e[1]]);
    Ok(Some(match e_type {
        CTL_SELECT_EVENT => {
            let ptr = ptr_at(e, 10);
            let Some((cfi, coi)) = m.os.ui.object(ptr).filter(|&(f, _)| f == fi) else {
                return Ok(None);
            };
            let FormObject::Control(c) = &m.os.ui.forms[cfi].model.objects[coi] else {
                return Ok(None);
            };
            if c.style != ControlStyle::PopupTrigger {
                return Ok(None);
            }
            let trigger_id = c.id;
            let form = &m.os.ui.forms[fi];
            let Some(list_id) = form.model.objects.iter().find_map(|o| match o {
                FormObject::Popup(p) if p.control_id == trigger_id => Some(p.list_id),
                _ => None,
            }) else {
                return Ok(None);
            };
            let Some(li) = form.model.object_index(list_id) else {
                return Err(bad(
                    m,
                    call,
                    format!("popup trigger {trigger_id}'s list {list_id} is not in the form"),
                ));
            };
            if !matches!(form.model.objects[li], FormObject::List(_)) {
                return Err(bad(
                    m,
                    call,
                    format!("popup trigger {trigger_id}'s object {list_id} is not a list"),
                ));
            }
            let prior = form.fields[li].value;
            let list_ptr = form.object_ptr(li);
            let selection = popup(m, call, fi, li)?;
            if selection != NO_LIST_SELECTION {
                let mut pop = event(POP_SELECT_EVENT, trigger_id);
                pop[10..14].copy_from_slice(&ptr.to_be_bytes());
                pop[14..16].copy_from_slice(&list_id.to_be_bytes());
                pop[16..20].copy_from_slice(&list_ptr.to_be_bytes());
                pop[20..22].copy_from_slice(&selection.to_be_bytes());
                pop[22..24].copy_from_slice(&prior.to_be_bytes());
                m.os.ui.queue.push_back(pop);
            }
            true
        }
        POP_SELECT_EVENT => {
            let (Some((_, coi)), Ok((lfi, loi))) = (
                m.os.ui.object(ptr_at(e, 10)),
                list_of(m, call, ptr_at(e, 16)),
            ) else {
                return Ok(None);
            };
            let selection = i16::from_be_bytes([e[20], e[21]]);
            if !(0..m.os.ui.forms[lfi].fields[loi].num_items).contains(&selection) {
                return Err(bad(
                    m,
                    call,
                    format!("popSelectEvent with selection {selection}, not an item of the list"),
                ));
            }
            let label = item_ptr(m, call, lfi, loi, selection)?;
            m.os.ui.forms[lfi].fields[loi].value = selection;
            m.os.ui.forms[lfi].fields[coi].label = label;
            let text = item_text(m, call, lfi, loi, selection)?;
            m.os.ui.drawn.push(text);
            true
        }
        SCL_ENTER_EVENT => match m.os.ui.object(ptr_at(e, 10)) {
            Some((bfi, boi)) if bfi == fi => scl_enter(m, bfi, boi, e),
            _ => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

/// `LstPopupList` of list (`fi`, `oi`): the list is shown (its selection
/// made visible) and takes the next events: a penDown on one of its items
/// chooses it (the new selection, returned), a penDown elsewhere dismisses
/// it (`noListSelection`, -1); penUps, penMoves and nilEvents are skipped;
/// an `appStopEvent` dismisses it and is played again; other events wait
/// until the list is closed. The end of the script dismisses it too.
pub fn popup(m: &mut Machine, call: &Call, fi: usize, oi: usize) -> Result<i16, Stop> {
    let selected = m.os.ui.forms[fi].fields[oi].value;
    make_visible(m, fi, oi, selected);
    draw(m, call, fi, oi)?;
    let ptr = m.os.ui.forms[fi].object_ptr(oi);
    m.os.ui.popped = ptr;
    let mut deferred = Vec::new();
    let outcome = loop {
        let e = if let Some(e) = m.os.ui.queue.pop_front() {
            e
        } else if let Some(s) = m.os.ui.next_scripted() {
            match crate::ui::scripted_event(m, call, &s) {
                Ok(e) => e,
                Err(stop) => break Err(stop),
            }
        } else {
            break Ok(NO_LIST_SELECTION);
        };
        m.idle(1);
        match u16::from_be_bytes([e[0], e[1]]) {
            PEN_DOWN_EVENT => {
                if m.os
                    .ui
                    .queue
                    .front()
                    .is_some_and(|u| u[0..2] == PEN_UP_EVENT.to_be_bytes())
                {
                    m.os.ui.queue.pop_front();
                }
                let origin = m.os.ui.forms[fi].model.bounds;
                let x = i16::from_be_bytes([e[4], e[5]]).wrapping_sub(origin.x);
                let y = i16::from_be_bytes([e[6], e[7]]).wrapping_sub(origin.y);
                break Ok(hit_list(m, fi, oi, x, y).unwrap_or(NO_LIST_SELECTION));
            }
            PEN_UP_EVENT | crate::ui::PEN_MOVE_EVENT | crate::ui::NIL_EVENT => {}
            crate::ui::APP_STOP_EVENT => {
                deferred.push(e);
                break Ok(NO_LIST_SELECTION);
            }
            _ => deferred.push(e),
        }
    };
    m.os.ui.popped = 0;
    for e in deferred.into_iter().rev() {
        m.os.ui.queue.push_front(e);
    }
    let selection = outcome?;
    if selection != NO_LIST_SELECTION {
        m.os.ui.forms[fi].fields[oi].value = selection;
    }
    Ok(selection)
}

/// Scrolls list (`fi`, `oi`) as little as needed for `item` to be shown.
fn make_visible(m: &mut Machine, fi: usize, oi: usize, item: i16) {
    let rows = rows(m, fi, oi).max(1);
    let st = &mut m.os.ui.forms[fi].fields[oi];
    if !(0..st.num_items).contains(&item) {
        return;
    }
    if item < st.top {
        st.top = item;
    } else if item >= st.top + rows {
        st.top = item - rows + 1;
    }
}

/// An item number argument: `0..numItems`, or 0 in an empty list (the debug
/// ROM stops the app for another).
fn check_item(m: &Machine, call: &Call, fi: usize, oi: usize, item: i16) -> Result<(), Stop> {
    let n = m.os.ui.forms[fi].fields[oi].num_items;
    if (0..n).contains(&item) || (item == 0 && n == 0) {
        return Ok(());
    }
    Err(bad(m, call, format!("item {item} of a list of {n} items")))
}

/// `Int16 LstGetSelection(const ListType *listP)`: the selected item or
/// `noListSelection` (-1). A resource list starts with item 0 selected (its
/// `currentItem` is 0 in the resource).
pub fn LstGetSelection(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    Ok(u32::from(m.os.ui.forms[fi].fields[oi].value as u16))
}

/// `void LstSetSelection(ListType *listP, Int16 itemNum)`: -1 clears it; an
/// item out of range stops the app (the debug ROM's fatal alert).
pub fn LstSetSelection(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    let item = call.i16(1);
    if item != NO_LIST_SELECTION {
        check_item(m, call, fi, oi, item)?;
    }
    m.os.ui.forms[fi].fields[oi].value = item;
    Ok(0)
}

/// `Char *LstGetSelectionText(const ListType *listP, Int16 itemNum)`: item
/// `itemNum`'s text pointer (`itemsText[itemNum]`), NULL out of range.
pub fn LstGetSelectionText(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    let item = call.i16(1);
    if !(0..m.os.ui.forms[fi].fields[oi].num_items).contains(&item) {
        return Ok(0);
    }
    item_ptr(m, call, fi, oi, item)
}

/// `Int16 LstGetNumberOfItems(const ListType *listP)`.
pub fn LstGetNumberOfItems(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    Ok(u32::from(m.os.ui.forms[fi].fields[oi].num_items as u16))
}

/// `Int16 LstGetVisibleItems(const ListType *listP)`: the rows it shows.
pub fn LstGetVisibleItems(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    Ok(u32::from(rows(m, fi, oi) as u16))
}

/// `void LstSetListChoices(ListType *listP, Char **itemsText, Int16
/// numItems)`: the list shows the app's strings (the array and the strings
/// stay the app's; they are read when drawn). A selection past the new end
/// is cleared and the top item is kept within the items.
pub fn LstSetListChoices(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    let n = call.i16(2);
    if n < 0 {
        return Err(bad(m, call, format!("numItems {n}")));
    }
    let rows = rows(m, fi, oi);
    let st = &mut m.os.ui.forms[fi].fields[oi];
    st.items = call.u32(1);
    st.num_items = n;
    if st.value >= n {
        st.value = NO_LIST_SELECTION;
    }
    st.top = st.top.min(n - rows).max(0);
    Ok(0)
}

/// `void LstSetHeight(ListType *listP, Int16 visibleItems)`: the list is
/// `visibleItems` rows high.
pub fn LstSetHeight(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    let rows = call.i16(1);
    if let FormObject::List(l) = &mut m.os.ui.forms[fi].model.objects[oi] {
        l.bounds.height = rows.max(0).saturating_mul(row_height(l.font));
    }
    Ok(0)
}

/// `void LstSetTopItem(ListType *listP, Int16 itemNum)`: the first row
/// shows `itemNum` (an item of the list, or 0).
pub fn LstSetTopItem(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    let item = call.i16(1);
    check_item(m, call, fi, oi, item)?;
    m.os.ui.forms[fi].fields[oi].top = item;
    Ok(0)
}

/// `void LstMakeItemVisible(ListType *listP, Int16 itemNum)`: scrolls as
/// little as needed (nothing for an item the list does not have).
pub fn LstMakeItemVisible(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    make_visible(m, fi, oi, call.i16(1));
    Ok(0)
}

/// `void LstDrawList(ListType *listP)`: the shown items are recorded as
/// drawn text, the selected one as `>item`.
pub fn LstDrawList(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    draw(m, call, fi, oi)?;
    Ok(0)
}

/// `void LstEraseList(ListType *listP)`: nothing to record.
pub fn LstEraseList(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    list_of(m, call, call.u32(0))?;
    Ok(0)
}

/// `Int16 LstPopupList(ListType *listP)`: [`popup`].
pub fn LstPopupList(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    Ok(u32::from(popup(m, call, fi, oi)? as u16))
}

/// `Boolean LstHandleEvent(ListType *listP, const EventType *eventP)`: a
/// penDown on one of the list's rows selects the item and posts
/// `lstSelectEvent`; other events are not handled.
pub fn LstHandleEvent(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = list_of(m, call, call.u32(0))?;
    let e = crate::ui::read_event(m, call, call.u32(1))?;
    if u16::from_be_bytes([e[0], e[1]]) != PEN_DOWN_EVENT {
        return Ok(0);
    }
    let origin = m.os.ui.forms[fi].model.bounds;
    let x = i16::from_be_bytes([e[4], e[5]]).wrapping_sub(origin.x);
    let y = i16::from_be_bytes([e[6], e[7]]).wrapping_sub(origin.y);
    let Some(item) = hit_list(m, fi, oi, x, y) else {
        return Ok(0);
    };
    select(m, fi, oi, item);
    Ok(1)
}

/// `void SclGetScrollBar(const ScrollBarPtr bar, Int16 *valueP, Int16
/// *minP, Int16 *maxP, Int16 *pageSizeP)`: NULL pointers are skipped.
pub fn SclGetScrollBar(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = scroll_bar_of(m, call, call.u32(0))?;
    let (value, min, max, page) = bar_state(m, fi, oi);
    for (i, v) in [value, min, max, page].into_iter().enumerate() {
        let p = call.u32(1 + i);
        if p != 0 {
            m.mem
                .write_u16(p, v as u16)
                .map_err(|f| m.fault_in(call, f))?;
        }
    }
    Ok(0)
}

/// `void SclSetScrollBar(const ScrollBarPtr bar, Int16 value, const Int16
/// min, const Int16 max, const Int16 pageSize)`: the bar takes the values
/// (the value clamped to `min..=max`) and is redrawn if its form was drawn.
/// `max < min` stops the app (the debug ROM's check).
pub fn SclSetScrollBar(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = scroll_bar_of(m, call, call.u32(0))?;
    let (value, min, max, page) = (call.i16(1), call.i16(2), call.i16(3), call.i16(4));
    if max < min {
        return Err(bad(m, call, format!("max {max} < min {min}")));
    }
    let st = &mut m.os.ui.forms[fi].fields[oi];
    st.value = value.clamp(min, max);
    st.min = min;
    st.max = max;
    st.page_size = page;
    if m.os.ui.forms[fi].drawn {
        draw_bar(m, fi, oi);
    }
    Ok(0)
}

/// `void SclDrawScrollBar(const ScrollBarPtr bar)`: recorded.
pub fn SclDrawScrollBar(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = scroll_bar_of(m, call, call.u32(0))?;
    draw_bar(m, fi, oi);
    Ok(0)
}

/// `Boolean SclHandleEvent(const ScrollBarPtr bar, const EventType
/// *event)`: a penDown on the shown bar posts `sclEnterEvent`;
/// `sclEnterEvent` scrolls (module documentation); other events are not
/// handled.
pub fn SclHandleEvent(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (fi, oi) = scroll_bar_of(m, call, call.u32(0))?;
    let e = crate::ui::read_event(m, call, call.u32(1))?;
    let handled = match u16::from_be_bytes([e[0], e[1]]) {
        PEN_DOWN_EVENT => {
            let origin = m.os.ui.forms[fi].model.bounds;
            let x = i16::from_be_bytes([e[4], e[5]]).wrapping_sub(origin.x);
            let y = i16::from_be_bytes([e[6], e[7]]).wrapping_sub(origin.y);
            let here = bar_at(m, fi, x, y) == Some(oi);
            if here {
                enter(m, fi, oi, &e);
            }
            here
        }
        SCL_ENTER_EVENT if ptr_at(&e, 10) == call.u32(0) => scl_enter(m, fi, oi, &e),
        _ => false,
    };
    Ok(u32::from(handled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_of_a_bar_and_its_regions() {
        // 7 × 44, values 0..=6, page 4: a 34-row shaft, 2 pages, a 17-row car.
        let g = geometry(7, 44, 0, 0, 6, 4);
        assert_eq!(
            g,
            Geometry {
                arrow: 4,
                car_top: 5,
                car_end: 22,
                height: 44
            }
        );
        assert_eq!(
            [0, 4, 5, 21, 22, 38, 39, 43].map(|y| g.region(y)),
            [
                Region::UpArrow,
                Region::UpArrow,
                Region::Car,
                Region::Car,
                Region::DownPage,
                Region::DownPage,
                Region::DownArrow,
                Region::DownArrow
            ]
        );
        assert_eq!(g.row_in(Region::UpPage), None, "the car is at the top");
        assert_eq!(g.row_in(Region::DownPage), Some(30));
        assert_eq!(g.row_in(Region::DownArrow), Some(42));
        // At the end the car reaches the down arrow: offset 17 of 17.
        let end = geometry(7, 44, 6, 0, 6, 4);
        assert_eq!((end.car_top, end.car_end), (22, 39));
        assert_eq!(end.row_in(Region::DownPage), None);
        assert_eq!(end.row_in(Region::UpPage), Some(13));
        // A narrow bar has 2-row arrows; a value out of range is drawn at the end.
        assert_eq!(geometry(5, 30, 99, 0, 3, 1).arrow, 2);
        assert_eq!(geometry(5, 30, 99, 0, 3, 1).car_end, 27);
    }

    #[test]
    fn taps_move_the_value_by_arrow_and_page() {
        assert_eq!(scrolled(Region::DownArrow, 0, 0, 6, 4), 1);
        assert_eq!(scrolled(Region::UpArrow, 0, 0, 6, 4), 0);
        assert_eq!(scrolled(Region::DownPage, 1, 0, 6, 4), 5);
        assert_eq!(scrolled(Region::DownPage, 5, 0, 6, 4), 6);
        assert_eq!(scrolled(Region::UpPage, 5, 0, 6, 4), 1);
        assert_eq!(scrolled(Region::Car, 3, 0, 6, 4), 3);
        assert_eq!(scrolled(Region::UpPage, -32768, -32768, 32767, 100), -32768);
    }

    #[test]
    fn row_heights_of_the_rom_fonts() {
        assert_eq!((row_height(0), row_height(1), row_height(2)), (11, 11, 14));
    }
}
