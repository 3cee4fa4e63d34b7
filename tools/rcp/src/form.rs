//! `tFRM` form resources: the model, its parser and its encoder.
//!
//! # Layout (68k, big-endian, 2-byte alignment)
//!
//! The structures are those of the Palm OS 3.5 SDK (`jichu4n/palm-os-sdk`,
//! `sdk-3.5/include/Core/UI/Form.h` `FormType`/`FormObjListType`/`FormLabelType`/
//! `FormTitleType`/`FrmGraffitiStateType`, `Core/UI/Control.h` `ControlType`,
//! `Core/UI/Field.h` `FieldType`, `Core/System/Window.h` `WindowType`). How a
//! resource file arranges them is PilRC's 68k ("BA16") layout
//! (`jichu4n/pilrc:pilrc.c` `DumpForm`/`CbFromLt`/`CbEmitStruct`, with the field
//! pictures `szRCFormBA16`, `szRCFormObjListBA16`, `szRCControlBA16`,
//! `szRCFieldBA16`, `szRCFormLabelBA16`, `szRCFORMTITLE` in `pilrc.h`):
//!
//! 1. The `FormType` header, 68 bytes ([`layout::FORM_HEADER_SIZE`]):
//!
//!    | offset | size | field | value written |
//!    |---|---|---|---|
//!    | 0 | 2+2 | `displayWidthV20`, `displayHeightV20` | 0 |
//!    | 4 | 4 | `displayAddrV20` | 0 |
//!    | 8 | 2 | `windowFlags` (bit 15 first: format, offscreen, **modal**, focusable, enabled, visible, dialog, freeBitmap) | focusable + dialog, + modal for `MODAL` |
//!    | 10 | 8 | `windowBounds` (x, y, width, height) | `AT (...)` |
//!    | 18 | 8 | `clippingBounds` | 0 |
//!    | 26 | 4 | `bitmapP` | 0 |
//!    | 30 | 2 | `frameType` (cornerDiam:8, reserved:3, threeD:1, shadowWidth:2, width:2) | width 1; `NOFRAME` 0; `MODAL` 0x0302 (`dialogFrame`) |
//!    | 32 | 4+4 | `drawStateP`, `nextWindow` | 0 |
//!    | 40 | 2 | `formId` | the form's ID |
//!    | 42 | 2 | `attr` (bit 15 first: **usable**, enabled, visible, dirty, **saveBehind**, ...) | usable, saveBehind by default |
//!    | 44 | 2 | `attr` reserved2 | 0 |
//!    | 46 | 4+4 | `bitsBehindForm`, `handler` | 0 |
//!    | 54 | 2 | `focus` | 0 |
//!    | 56 | 2 | `defaultButton` | `DEFAULTBTNID` |
//!    | 58 | 2 | `helpRscId` | `HELPID` |
//!    | 60 | 2 | `menuRscId` | `MENUID` |
//!    | 62 | 2 | `numObjects` | number of objects |
//!    | 64 | 4 | `objects` | 0 (the list follows the header) |
//!
//! 2. `numObjects` `FormObjListType` entries of 6 bytes: `objectType` (1 byte,
//!    [`kind`]), a reserved 0 byte, and the object's **byte offset from the start
//!    of the resource** in the 4-byte pointer slot.
//! 3. The objects, in list order, each starting on an even offset. Every
//!    `Char *` inside an object is written as 0; the object's text (button
//!    label, label text, title) follows the object's structure immediately,
//!    NUL-terminated, and the next object starts at the next even offset.
//!    PilRC sizes each slot as `sizeof(struct) + strlen(text) + 1` rounded up
//!    to even (`CbFromLt`). An independent loader of real applications' forms,
//!    the high-level-emulation `FrmInitForm` of
//!    `meepingsnesroms/NewPalmEmu2017:NewPalmEmuQt/emucore/palmos/graphics/rawimagetools.cpp`
//!    (`decompressform`, `load_FRMOBJ`), reads the same layout: list offsets
//!    from the resource start, the text of a control at +20, of a label at
//!    +14, of a title at +12.
//!
//! The 68k object structures (sizes in [`layout`]): `FieldType` 40 bytes,
//! `ControlType` 20, `FormLabelType` 14, `FormTitleType` 12,
//! `FrmGraffitiStateType` 4. Bit fields are allocated from the most significant
//! bit down, as the 68k compilers of the SDK do.

use crate::bytes::{Reader, Writer, check_text, count_u16, offset_u32};
use crate::error::{EncodeError, ParseError};
use crate::geom::{Point, Rect, read_point, read_rect, write_point, write_rect};

/// `FormObjectKind` values (`Form.h` `enum formObjects`), the byte stored in
/// each object-list entry.
pub mod kind {
    /// `frmFieldObj`: a text field ([`FieldType`](super::Field)).
    pub const FIELD: u8 = 0;
    /// `frmControlObj`: a button, push button, check box, trigger ([`Control`](super::Control)).
    pub const CONTROL: u8 = 1;
    /// `frmListObj`: a list ([`List`](super::List)).
    pub const LIST: u8 = 2;
    /// `frmTableObj`: a table ([`Table`](super::Table)).
    pub const TABLE: u8 = 3;
    /// `frmBitmapObj`: a form bitmap ([`FormBitmap`](super::FormBitmap)).
    pub const BITMAP: u8 = 4;
    /// `frmLineObj` (not produced by this compiler).
    pub const LINE: u8 = 5;
    /// `frmFrameObj` (not produced by this compiler).
    pub const FRAME: u8 = 6;
    /// `frmRectangleObj` (not produced by this compiler).
    pub const RECTANGLE: u8 = 7;
    /// `frmLabelObj`: a static text label ([`Label`](super::Label)).
    pub const LABEL: u8 = 8;
    /// `frmTitleObj`: the form's title ([`Title`](super::Title)).
    pub const TITLE: u8 = 9;
    /// `frmPopupObj`: a popup trigger's list ([`Popup`](super::Popup)).
    pub const POPUP: u8 = 10;
    /// `frmGraffitiStateObj`: the Graffiti shift indicator ([`GraffitiState`](super::GraffitiState)).
    pub const GRAFFITI_STATE: u8 = 11;
    /// `frmGadgetObj`: an application-drawn gadget ([`Gadget`](super::Gadget)).
    pub const GADGET: u8 = 12;
    /// `frmScrollBarObj`: a scroll bar ([`ScrollBar`](super::ScrollBar)).
    pub const SCROLL_BAR: u8 = 13;
}

/// Sizes (bytes) and pointer-slot offsets of the 68k structures in a `tFRM`,
/// for a runner that builds the OS's in-memory `FormType` from the resource.
pub mod layout {
    /// `FormType` (with its `WindowType`) in bytes.
    pub const FORM_HEADER_SIZE: usize = 68;
    /// Offset of `FormType.objects` (the object-list pointer, 0 in the resource).
    pub const FORM_OBJECTS_PTR: usize = 64;
    /// One `FormObjListType` entry in bytes.
    pub const OBJECT_ENTRY_SIZE: usize = 6;
    /// `FieldType` in bytes.
    pub const FIELD_SIZE: usize = 40;
    /// Offset of `FieldType.text` (0 in the resource: fields carry no text).
    pub const FIELD_TEXT_PTR: usize = 12;
    /// `ControlType` in bytes.
    pub const CONTROL_SIZE: usize = 20;
    /// Offset of `ControlType.text`; the label follows the structure.
    pub const CONTROL_TEXT_PTR: usize = 10;
    /// `FormLabelType` in bytes.
    pub const LABEL_SIZE: usize = 14;
    /// Offset of `FormLabelType.text`; the text follows the structure.
    pub const LABEL_TEXT_PTR: usize = 10;
    /// `FormTitleType` in bytes.
    pub const TITLE_SIZE: usize = 12;
    /// Offset of `FormTitleType.text`; the text follows the structure.
    pub const TITLE_TEXT_PTR: usize = 8;
    /// `FrmGraffitiStateType` in bytes.
    pub const GRAFFITI_STATE_SIZE: usize = 4;
    /// `ListType` in bytes; `numItems` 4-byte (zero) item pointers and the
    /// NUL-terminated item texts follow it.
    pub const LIST_SIZE: usize = 32;
    /// `TableType` in bytes (its `currentField` `FieldType` included); the
    /// column attributes, row attributes and item slots follow it.
    pub const TABLE_SIZE: usize = 74;
    /// `TableColumnAttrType` in bytes.
    pub const TABLE_COLUMN_SIZE: usize = 18;
    /// `TableRowAttrType` in bytes.
    pub const TABLE_ROW_SIZE: usize = 12;
    /// `TableItemType` in bytes (one per cell, zero in a resource).
    pub const TABLE_ITEM_SIZE: usize = 8;
    /// `FormBitmapType` in bytes.
    pub const FORM_BITMAP_SIZE: usize = 8;
    /// `FormPopupType` in bytes.
    pub const POPUP_SIZE: usize = 4;
    /// `FormGadgetType` in bytes.
    pub const GADGET_SIZE: usize = 20;
    /// `ScrollBarType` in bytes.
    pub const SCROLL_BAR_SIZE: usize = 24;
    /// `SliderControlType` in bytes.
    pub const SLIDER_SIZE: usize = 30;
    /// `GraphicControlType` in bytes (no text follows it).
    pub const GRAPHIC_CONTROL_SIZE: usize = 20;
}

use layout::*;

/// A form (`tFRM`): its window, attributes and objects, in resource order.
///
/// Run-time fields of `FormType` (window pointers, the event handler, focus,
/// `visible`, `dirty`, ...) are 0 in a resource and not part of the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    /// Form ID (`formId`), the resource ID `FrmInitForm`/`FrmGotoForm` take.
    pub id: u16,
    /// Window bounds in screen pixels (`windowBounds`).
    pub bounds: Rect,
    /// `windowFlags.modal`: a modal dialog.
    pub modal: bool,
    /// `frameType`: how the window frame is drawn.
    pub frame: FrameBits,
    /// `attr.usable`.
    pub usable: bool,
    /// `attr.saveBehind`: the OS saves the screen bits under the form.
    pub save_behind: bool,
    /// `defaultButton`: ID of the button "pressed" when the form is dismissed
    /// by the system (0: none).
    pub default_button: u16,
    /// `helpRscId`: ID of the `tSTR` help text (0: none).
    pub help_id: u16,
    /// `menuRscId`: ID of the form's `MBAR` menu bar (0: none).
    pub menu_id: u16,
    /// The objects, in object-list order (an object's index is its position here).
    pub objects: Vec<FormObject>,
}

/// `FrameBitsType` (`Window.h`): the form's window frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameBits {
    /// Corner diameter in pixels (8 bits).
    pub corner_diam: u8,
    /// 3D frame.
    pub three_d: bool,
    /// Shadow width in pixels (2 bits, 0..=3).
    pub shadow_width: u8,
    /// Frame width in pixels (2 bits, 0..=3).
    pub width: u8,
}

impl FrameBits {
    /// The 16-bit `frameType` word.
    pub fn to_word(self) -> u16 {
        (u16::from(self.corner_diam) << 8)
            | (u16::from(self.three_d) << 4)
            | (u16::from(self.shadow_width & 3) << 2)
            | u16::from(self.width & 3)
    }

    /// The frame described by a `frameType` word (reserved bits ignored).
    pub fn from_word(word: u16) -> FrameBits {
        FrameBits {
            corner_diam: (word >> 8) as u8,
            three_d: word & 0x10 != 0,
            shadow_width: ((word >> 2) & 3) as u8,
            width: (word & 3) as u8,
        }
    }
}

/// One object of a form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormObject {
    /// A text field (`frmFieldObj`).
    Field(Field),
    /// A button, push button, check box, selector or popup trigger, or
    /// repeating button (`frmControlObj`, text controls only).
    Control(Control),
    /// A static label (`frmLabelObj`).
    Label(Label),
    /// The form title (`frmTitleObj`).
    Title(Title),
    /// The Graffiti shift indicator (`frmGraffitiStateObj`).
    GraffitiState(GraffitiState),
    /// A list (`frmListObj`).
    List(List),
    /// A table (`frmTableObj`).
    Table(Table),
    /// A bitmap drawn on the form (`frmBitmapObj`).
    Bitmap(FormBitmap),
    /// The link of a popup trigger to its list (`frmPopupObj`).
    Popup(Popup),
    /// An application-drawn gadget (`frmGadgetObj`).
    Gadget(Gadget),
    /// A scroll bar (`frmScrollBarObj`).
    ScrollBar(ScrollBar),
    /// A slider (`frmControlObj` with the `sliderCtl`/`feedbackSliderCtl` style).
    Slider(Slider),
    /// A graphic control (`frmControlObj` with `attr.graphical` set).
    GraphicControl(GraphicControl),
    /// An object this crate does not model (a line, frame or rectangle, which
    /// PilRC never writes, or an unknown kind): its [`kind`] byte and its byte
    /// offset in the resource. Only produced by [`Form::parse`]; such a form
    /// cannot be encoded again.
    Unsupported {
        /// The `objectType` byte ([`kind`]).
        kind: u8,
        /// Offset of the object's structure from the start of the resource.
        offset: u32,
    },
}

impl FormObject {
    /// The object's `objectType` byte ([`kind`]).
    pub fn kind(&self) -> u8 {
        match self {
            FormObject::Field(_) => kind::FIELD,
            FormObject::Control(_) => kind::CONTROL,
            FormObject::Label(_) => kind::LABEL,
            FormObject::Title(_) => kind::TITLE,
            FormObject::GraffitiState(_) => kind::GRAFFITI_STATE,
            FormObject::List(_) => kind::LIST,
            FormObject::Table(_) => kind::TABLE,
            FormObject::Bitmap(_) => kind::BITMAP,
            FormObject::Popup(_) => kind::POPUP,
            FormObject::Gadget(_) => kind::GADGET,
            FormObject::ScrollBar(_) => kind::SCROLL_BAR,
            FormObject::Slider(_) | FormObject::GraphicControl(_) => kind::CONTROL,
            FormObject::Unsupported { kind, .. } => *kind,
        }
    }

    /// The object's ID (`FrmGetObjectIndex` matches it), for the kinds that
    /// have one (all but titles, popups, bitmaps and Graffiti indicators).
    pub fn id(&self) -> Option<u16> {
        match self {
            FormObject::Field(f) => Some(f.id),
            FormObject::Control(c) => Some(c.id),
            FormObject::Label(l) => Some(l.id),
            FormObject::List(l) => Some(l.id),
            FormObject::Table(t) => Some(t.id),
            FormObject::Gadget(g) => Some(g.id),
            FormObject::ScrollBar(s) => Some(s.id),
            FormObject::Slider(s) => Some(s.id),
            FormObject::GraphicControl(c) => Some(c.id),
            _ => None,
        }
    }

    /// The object's bounds in form-relative pixels, where the resource gives
    /// them (a label, bitmap or indicator only has a position).
    pub fn bounds(&self) -> Option<Rect> {
        match self {
            FormObject::Field(f) => Some(f.bounds),
            FormObject::Control(c) => Some(c.bounds),
            FormObject::List(l) => Some(l.bounds),
            FormObject::Table(t) => Some(t.bounds),
            FormObject::Gadget(g) => Some(g.bounds),
            FormObject::ScrollBar(s) => Some(s.bounds),
            FormObject::Slider(s) => Some(s.bounds),
            FormObject::GraphicControl(c) => Some(c.bounds),
            _ => None,
        }
    }
}

/// A text field (`FieldType`, 40 bytes). It has no text in a resource: the
/// application gives it a text handle at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Object ID.
    pub id: u16,
    /// Bounds in form-relative pixels.
    pub bounds: Rect,
    /// `FieldAttrType` bits.
    pub attr: FieldAttr,
    /// Most characters (bytes) the user may enter (`maxChars`; 0 as PilRC's default).
    pub max_chars: u16,
    /// Font ID (`fontID`): 0 `stdFont`, 1 `boldFont`, 2 `largeFont`, ...
    pub font: u8,
}

/// `FieldAttrType` (`Field.h`): 16 bits, `usable` the most significant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FieldAttr {
    /// Part of the UI (`USABLE`).
    pub usable: bool,
    /// Drawn (run time).
    pub visible: bool,
    /// The user can edit the text (`EDITABLE`).
    pub editable: bool,
    /// One line only (`SINGLELINE`; `MULTIPLELINES` clears it).
    pub single_line: bool,
    /// Has the focus (run time).
    pub has_focus: bool,
    /// Height grows with the text (`DYNAMICSIZE`).
    pub dynamic_size: bool,
    /// Insertion point scrolled into view (PilRC always sets it).
    pub ins_pt_visible: bool,
    /// Modified by the user (run time).
    pub dirty: bool,
    /// Underline mode (2 bits): 0 none, 1 gray (`UNDERLINED`), 2 solid.
    pub underlined: u8,
    /// Justification (2 bits): 0 left, 1 center, 2 right (`RIGHTALIGN`).
    pub justification: u8,
    /// Automatic upper case after a period (`AUTOSHIFT`).
    pub auto_shift: bool,
    /// Has a scroll bar (`HASSCROLLBAR`).
    pub has_scroll_bar: bool,
    /// Digits and the decimal separator only (`NUMERIC`).
    pub numeric: bool,
}

impl FieldAttr {
    /// The 16-bit attribute word.
    pub fn to_word(self) -> u16 {
        let flag = |b: bool, bit: u16| u16::from(b) << bit;
        flag(self.usable, 15)
            | flag(self.visible, 14)
            | flag(self.editable, 13)
            | flag(self.single_line, 12)
            | flag(self.has_focus, 11)
            | flag(self.dynamic_size, 10)
            | flag(self.ins_pt_visible, 9)
            | flag(self.dirty, 8)
            | (u16::from(self.underlined & 3) << 6)
            | (u16::from(self.justification & 3) << 4)
            | flag(self.auto_shift, 3)
            | flag(self.has_scroll_bar, 2)
            | flag(self.numeric, 1)
    }

    /// The attributes of a 16-bit attribute word (bit 0, unused, ignored).
    pub fn from_word(w: u16) -> FieldAttr {
        let bit = |n: u16| w & (1 << n) != 0;
        FieldAttr {
            usable: bit(15),
            visible: bit(14),
            editable: bit(13),
            single_line: bit(12),
            has_focus: bit(11),
            dynamic_size: bit(10),
            ins_pt_visible: bit(9),
            dirty: bit(8),
            underlined: ((w >> 6) & 3) as u8,
            justification: ((w >> 4) & 3) as u8,
            auto_shift: bit(3),
            has_scroll_bar: bit(2),
            numeric: bit(1),
        }
    }
}

/// `ControlStyleType` (`Control.h` `enum controlStyles`) of a text control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlStyle {
    /// `buttonCtl` (0): `BUTTON`.
    Button,
    /// `pushButtonCtl` (1): `PUSHBUTTON`.
    PushButton,
    /// `checkboxCtl` (2): `CHECKBOX`.
    Checkbox,
    /// `popupTriggerCtl` (3): `POPUPTRIGGER`.
    PopupTrigger,
    /// `selectorTriggerCtl` (4): `SELECTORTRIGGER`.
    SelectorTrigger,
    /// `repeatingButtonCtl` (5): `REPEATBUTTON`.
    RepeatingButton,
}

impl ControlStyle {
    /// The style byte.
    pub fn to_byte(self) -> u8 {
        match self {
            ControlStyle::Button => 0,
            ControlStyle::PushButton => 1,
            ControlStyle::Checkbox => 2,
            ControlStyle::PopupTrigger => 3,
            ControlStyle::SelectorTrigger => 4,
            ControlStyle::RepeatingButton => 5,
        }
    }

    /// The style of a style byte; `None` for the sliders (6, 7), whose
    /// structure differs, and unknown values.
    pub fn from_byte(b: u8) -> Option<ControlStyle> {
        Some(match b {
            0 => ControlStyle::Button,
            1 => ControlStyle::PushButton,
            2 => ControlStyle::Checkbox,
            3 => ControlStyle::PopupTrigger,
            4 => ControlStyle::SelectorTrigger,
            5 => ControlStyle::RepeatingButton,
            _ => return None,
        })
    }
}

/// A text control (`ControlType`, 20 bytes, then its label).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Control {
    /// Object ID (the `ctlSelectEvent` carries it).
    pub id: u16,
    /// Bounds in form-relative pixels.
    pub bounds: Rect,
    /// The label, in Palm characters, without its NUL.
    pub label: Vec<u8>,
    /// `ControlAttrType` bits.
    pub attr: ControlAttr,
    /// The kind of control.
    pub style: ControlStyle,
    /// Font ID of the label.
    pub font: u8,
    /// Push-button group (0: none).
    pub group: u8,
}

/// `ControlAttrType` (`Control.h`): two bytes, `usable` the most significant bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ControlAttr {
    /// Part of the UI (`USABLE`).
    pub usable: bool,
    /// Can be pressed (`ENABLED`; `DISABLED` clears it).
    pub enabled: bool,
    /// Drawn (run time).
    pub visible: bool,
    /// Checked / pushed (`CHECKED`).
    pub on: bool,
    /// Bounds grow to the right (`LEFTANCHOR`, the default; `RIGHTANCHOR` clears it).
    pub left_anchor: bool,
    /// `ButtonFrameType` (3 bits): 0 none, 1 standard, 2 bold, 3 rectangle.
    pub frame: u8,
    /// Old-style graphic control drawn selected.
    pub drawn_as_selected: bool,
    /// Graphic control (bitmaps instead of text; parsed as unsupported).
    pub graphical: bool,
    /// Vertical slider.
    pub vertical: bool,
}

impl ControlAttr {
    /// The 16-bit attribute word (first byte most significant).
    pub fn to_word(self) -> u16 {
        let flag = |b: bool, bit: u16| u16::from(b) << bit;
        flag(self.usable, 15)
            | flag(self.enabled, 14)
            | flag(self.visible, 13)
            | flag(self.on, 12)
            | flag(self.left_anchor, 11)
            | (u16::from(self.frame & 7) << 8)
            | flag(self.drawn_as_selected, 7)
            | flag(self.graphical, 6)
            | flag(self.vertical, 5)
    }

    /// The attributes of a 16-bit attribute word (reserved bits ignored).
    pub fn from_word(w: u16) -> ControlAttr {
        let bit = |n: u16| w & (1 << n) != 0;
        ControlAttr {
            usable: bit(15),
            enabled: bit(14),
            visible: bit(13),
            on: bit(12),
            left_anchor: bit(11),
            frame: ((w >> 8) & 7) as u8,
            drawn_as_selected: bit(7),
            graphical: bit(6),
            vertical: bit(5),
        }
    }
}

/// A static label (`FormLabelType`, 14 bytes, then its text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Object ID.
    pub id: u16,
    /// Top-left corner in form-relative pixels.
    pub pos: Point,
    /// `attr.usable`.
    pub usable: bool,
    /// Font ID.
    pub font: u8,
    /// The text, in Palm characters, without its NUL.
    pub text: Vec<u8>,
}

/// The form title (`FormTitleType`, 12 bytes, then its text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Title {
    /// `rect`: PilRC writes 0; the OS lays the title out itself.
    pub bounds: Rect,
    /// The title, in Palm characters, without its NUL.
    pub text: Vec<u8>,
}

/// The Graffiti shift indicator (`FrmGraffitiStateType`, 4 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraffitiState {
    /// Top-left corner in form-relative pixels.
    pub pos: Point,
}

/// A list (`ListType`, 32 bytes, then one zero 4-byte pointer per item and the
/// items' NUL-terminated texts; PilRC `szRCListBA16` `"w,w4,uuuuuuzu10,p,w,zw,zw,bzb,zl,zl"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct List {
    /// Object ID.
    pub id: u16,
    /// Bounds in form-relative pixels (the height is a whole number of rows).
    pub bounds: Rect,
    /// `ListAttrType` bits.
    pub attr: ListAttr,
    /// The items, in Palm characters, without their NULs.
    pub items: Vec<Vec<u8>>,
    /// Font ID of the items.
    pub font: u8,
}

/// `ListAttrType` (`List.h`): 16 bits, `usable` the most significant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ListAttr {
    /// Part of the UI (`USABLE`).
    pub usable: bool,
    /// Responds to taps (`ENABLED`).
    pub enabled: bool,
    /// Drawn (run time).
    pub visible: bool,
    /// Shown as a popup (run time).
    pub popped_up: bool,
    /// Has a scroll bar.
    pub has_scroll_bar: bool,
    /// Incremental search by typing (`SEARCH`).
    pub search: bool,
}

impl ListAttr {
    /// The 16-bit attribute word.
    pub fn to_word(self) -> u16 {
        let flag = |b: bool, bit: u16| u16::from(b) << bit;
        flag(self.usable, 15)
            | flag(self.enabled, 14)
            | flag(self.visible, 13)
            | flag(self.popped_up, 12)
            | flag(self.has_scroll_bar, 11)
            | flag(self.search, 10)
    }

    /// The attributes of a 16-bit attribute word (reserved bits ignored).
    pub fn from_word(w: u16) -> ListAttr {
        let bit = |n: u16| w & (1 << n) != 0;
        ListAttr {
            usable: bit(15),
            enabled: bit(14),
            visible: bit(13),
            popped_up: bit(12),
            has_scroll_bar: bit(11),
            search: bit(10),
        }
    }
}

/// A table (`TableType` with its `currentField`, 74 bytes; then a
/// `TableColumnAttrType` of 18 bytes per column (width, spacing 1), a
/// `TableRowAttrType` of 12 bytes per row (height 11, usable, selectable) and
/// 8 zero bytes per cell, as PilRC's `DumpForm` writes them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Object ID.
    pub id: u16,
    /// Bounds in form-relative pixels.
    pub bounds: Rect,
    /// `attr.editable` (`EDITABLE`).
    pub editable: bool,
    /// Column widths in pixels (`COLUMNWIDTHS`), one per column.
    pub column_widths: Vec<u16>,
    /// Number of rows (`ROWS`).
    pub rows: u16,
}

/// A bitmap on a form (`FormBitmapType`, 8 bytes: attr, position, resource ID).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormBitmap {
    /// `attr.usable`.
    pub usable: bool,
    /// Top-left corner in form-relative pixels.
    pub pos: Point,
    /// ID of the `Tbmp` resource drawn.
    pub bitmap_id: u16,
}

/// The link of a popup trigger to its list (`FormPopupType`, 4 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Popup {
    /// ID of the popup trigger control.
    pub control_id: u16,
    /// ID of the list it pops up.
    pub list_id: u16,
}

/// An application-drawn gadget (`FormGadgetType`, 20 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gadget {
    /// Object ID.
    pub id: u16,
    /// `attr.usable`.
    pub usable: bool,
    /// `attr.extended` (PilRC always sets it).
    pub extended: bool,
    /// Bounds in form-relative pixels.
    pub bounds: Rect,
}

/// A scroll bar (`ScrollBarType`, 24 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScrollBar {
    /// Bounds in form-relative pixels.
    pub bounds: Rect,
    /// Object ID.
    pub id: u16,
    /// `attr.usable` (the attribute byte's most significant bit).
    pub usable: bool,
    /// Current value (`VALUE`).
    pub value: i16,
    /// Smallest value (`MIN`).
    pub min: i16,
    /// Largest value (`MAX`).
    pub max: i16,
    /// Amount a page scroll moves (`PAGESIZE`).
    pub page_size: i16,
}

/// A slider (`SliderControlType`, 30 bytes; PilRC `szRCSliderControlBA16`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slider {
    /// Object ID.
    pub id: u16,
    /// Bounds in form-relative pixels.
    pub bounds: Rect,
    /// `Tbmp` ID of the thumb (0: the system's).
    pub thumb_id: u16,
    /// `Tbmp` ID of the background (0: the system's).
    pub background_id: u16,
    /// `ControlAttrType` bits (`graphical` is set).
    pub attr: ControlAttr,
    /// `feedbackSliderCtl` (7, `FEEDBACK`) rather than `sliderCtl` (6).
    pub feedback: bool,
    /// Smallest value.
    pub min: u16,
    /// Largest value.
    pub max: u16,
    /// Amount a page tap moves.
    pub page_size: u16,
    /// Current value.
    pub value: u16,
}

/// A graphic control (`GraphicControlType`, 20 bytes: bitmaps instead of a label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphicControl {
    /// Object ID.
    pub id: u16,
    /// Bounds in form-relative pixels.
    pub bounds: Rect,
    /// `Tbmp` ID drawn normally (`BITMAPID`).
    pub bitmap_id: u16,
    /// `Tbmp` ID drawn when selected (`SELECTEDBITMAPID`; 0: inverted).
    pub selected_bitmap_id: u16,
    /// `ControlAttrType` bits (`graphical` is set).
    pub attr: ControlAttr,
    /// The kind of control.
    pub style: ControlStyle,
    /// Font ID.
    pub font: u8,
    /// Push-button group (0: none).
    pub group: u8,
}

/// One entry of a `tFRM` object list: the object's kind and where its
/// structure starts in the resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectEntry {
    /// The `objectType` byte ([`kind`]).
    pub kind: u8,
    /// Offset in bytes of the object's structure from the start of the resource.
    pub offset: u32,
}

const RES: &str = "tFRM";

impl Form {
    /// Parses a `tFRM` resource (the layout in the [module docs](self)).
    ///
    /// Objects of kinds this crate does not model come back as
    /// [`FormObject::Unsupported`]. Any structural problem (truncated header,
    /// list or object, an offset outside the resource, a text without its NUL)
    /// is a [`ParseError`]; no input makes it panic.
    pub fn parse(data: &[u8]) -> Result<Form, ParseError> {
        let r = Reader::new(data, RES);
        if r.len() < FORM_HEADER_SIZE {
            return Err(r.error(r.len(), "form header truncated (68 bytes expected)"));
        }
        let window_flags = r.u16(8, "window flags")?;
        let attr = r.u16(42, "form attributes")?;
        let objects = Form::directory(data)?
            .into_iter()
            .map(|e| parse_object(&r, e))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Form {
            id: r.u16(40, "form ID")?,
            bounds: read_rect(&r, 10)?,
            modal: window_flags & 0x2000 != 0,
            frame: FrameBits::from_word(r.u16(30, "frame")?),
            usable: attr & 0x8000 != 0,
            save_behind: attr & 0x0800 != 0,
            default_button: r.u16(56, "default button")?,
            help_id: r.u16(58, "help ID")?,
            menu_id: r.u16(60, "menu ID")?,
            objects,
        })
    }

    /// The object list of a `tFRM` resource: each object's kind and offset,
    /// checked to lie inside the resource.
    pub fn directory(data: &[u8]) -> Result<Vec<ObjectEntry>, ParseError> {
        let r = Reader::new(data, RES);
        let count = usize::from(r.u16(62, "object count (form header truncated)")?);
        let list_end = FORM_HEADER_SIZE + count * OBJECT_ENTRY_SIZE;
        if list_end > r.len() {
            return Err(r.error(r.len(), "object list runs past the end of the resource"));
        }
        (0..count)
            .map(|i| {
                let at = FORM_HEADER_SIZE + i * OBJECT_ENTRY_SIZE;
                let entry = ObjectEntry {
                    kind: r.u8(at, "object type")?,
                    offset: r.u32(at + 2, "object offset")?,
                };
                if entry.offset as usize >= r.len() {
                    return Err(
                        r.error(at + 2, "object offset points past the end of the resource")
                    );
                }
                Ok(entry)
            })
            .collect()
    }

    /// Encodes the form in PilRC's 68k layout (see the [module docs](self)).
    ///
    /// Fails for [`FormObject::Unsupported`] objects, for texts containing a
    /// NUL byte, and when counts or offsets do not fit their fields.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let count = count_u16(self.objects.len(), "form objects")?;
        // Slot offsets: objects follow the list, each padded to an even size.
        let mut offsets = Vec::with_capacity(self.objects.len());
        let mut next = FORM_HEADER_SIZE + self.objects.len() * OBJECT_ENTRY_SIZE;
        for object in &self.objects {
            offsets.push(offset_u32(next)?);
            let size = object_size(object)?;
            next += size + size % 2;
        }

        let mut w = Writer::default();
        // WindowType (40 bytes).
        w.zeros(8); // displayWidthV20, displayHeightV20, displayAddrV20
        let modal = if self.modal { 0x2000 } else { 0 };
        w.u16(modal | 0x1000 | 0x0200); // focusable, dialog (PilRC FParseForm)
        write_rect(&mut w, self.bounds);
        w.zeros(8 + 4); // clippingBounds, bitmapP
        w.u16(self.frame.to_word());
        w.zeros(4 + 4); // drawStateP, nextWindow
        // The FormType fields after the window (28 bytes).
        w.u16(self.id);
        w.u16((u16::from(self.usable) << 15) | (u16::from(self.save_behind) << 11));
        w.zeros(2 + 4 + 4 + 2); // reserved2, bitsBehindForm, handler, focus
        w.u16(self.default_button);
        w.u16(self.help_id);
        w.u16(self.menu_id);
        w.u16(count);
        w.zeros(4); // objects
        debug_assert_eq!(w.len(), FORM_HEADER_SIZE);

        for (object, &offset) in self.objects.iter().zip(&offsets) {
            w.u8(object.kind());
            w.u8(0);
            w.u32(offset);
        }
        for object in &self.objects {
            w.pad_even();
            write_object(&mut w, object);
        }
        w.pad_even();
        Ok(w.out)
    }

    /// The title text, if the form has a title object.
    pub fn title(&self) -> Option<&[u8]> {
        self.objects.iter().find_map(|o| match o {
            FormObject::Title(t) => Some(t.text.as_slice()),
            _ => None,
        })
    }

    /// The index of the object with ID `id` (what `FrmGetObjectIndex` returns).
    pub fn object_index(&self, id: u16) -> Option<usize> {
        self.objects.iter().position(|o| o.id() == Some(id))
    }
}

/// Bytes an object occupies before padding: its structure plus its text and NUL.
fn object_size(object: &FormObject) -> Result<usize, EncodeError> {
    Ok(match object {
        FormObject::Field(_) => FIELD_SIZE,
        FormObject::Control(c) => {
            check_text(&c.label, "control label")?;
            CONTROL_SIZE + c.label.len() + 1
        }
        FormObject::Label(l) => {
            check_text(&l.text, "label text")?;
            LABEL_SIZE + l.text.len() + 1
        }
        FormObject::Title(t) => {
            check_text(&t.text, "form title")?;
            TITLE_SIZE + t.text.len() + 1
        }
        FormObject::GraffitiState(_) => GRAFFITI_STATE_SIZE,
        FormObject::List(l) => {
            let mut size = LIST_SIZE;
            for item in &l.items {
                check_text(item, "list item")?;
                size += 4 + item.len() + 1;
            }
            count_u16(l.items.len(), "list items")?;
            size
        }
        FormObject::Table(t) => {
            let columns = t.column_widths.len();
            count_u16(columns, "table columns")?;
            let rows = usize::from(t.rows);
            TABLE_SIZE
                + columns * TABLE_COLUMN_SIZE
                + rows * TABLE_ROW_SIZE
                + rows * columns * TABLE_ITEM_SIZE
        }
        FormObject::Bitmap(_) => FORM_BITMAP_SIZE,
        FormObject::Popup(_) => POPUP_SIZE,
        FormObject::Gadget(_) => GADGET_SIZE,
        FormObject::ScrollBar(_) => SCROLL_BAR_SIZE,
        FormObject::Slider(_) => SLIDER_SIZE,
        FormObject::GraphicControl(_) => GRAPHIC_CONTROL_SIZE,
        FormObject::Unsupported { kind, .. } => {
            return Err(EncodeError {
                message: format!("cannot encode a form object of kind {kind}"),
            });
        }
    })
}

fn write_object(w: &mut Writer, object: &FormObject) {
    match object {
        FormObject::Field(f) => {
            w.u16(f.id);
            write_rect(w, f.bounds);
            w.u16(f.attr.to_word());
            w.zeros(4 + 4 + 4 + 2 + 2); // text, textHandle, lines, textLen, textBlockSize
            w.u16(f.max_chars);
            w.zeros(2 + 2 + 2 + 2); // selFirstPos, selLastPos, insPtXPos, insPtYPos
            w.u8(f.font);
            w.u8(0);
        }
        FormObject::Control(c) => {
            w.u16(c.id);
            write_rect(w, c.bounds);
            w.zeros(4); // text
            w.u16(c.attr.to_word());
            w.u8(c.style.to_byte());
            w.u8(c.font);
            w.u8(c.group);
            w.u8(0);
            w.cstr(&c.label);
        }
        FormObject::Label(l) => {
            w.u16(l.id);
            write_point(w, l.pos);
            w.u16(u16::from(l.usable) << 15);
            w.u8(l.font);
            w.u8(0);
            w.zeros(4); // text
            w.cstr(&l.text);
        }
        FormObject::Title(t) => {
            write_rect(w, t.bounds);
            w.zeros(4); // text
            w.cstr(&t.text);
        }
        FormObject::GraffitiState(g) => write_point(w, g.pos),
        FormObject::List(l) => {
            w.u16(l.id);
            write_rect(w, l.bounds);
            w.u16(l.attr.to_word());
            w.zeros(4); // itemsText
            w.u16(l.items.len() as u16); // checked by object_size
            w.zeros(2 + 2); // currentItem, topItem
            w.u8(l.font);
            w.u8(0);
            w.zeros(4 + 4); // popupWin, drawItemsCallback
            w.zeros(4 * l.items.len()); // the item pointers
            for item in &l.items {
                w.cstr(item);
            }
        }
        FormObject::Table(t) => {
            w.u16(t.id);
            write_rect(w, t.bounds);
            w.u16(u16::from(t.editable) << 14);
            w.u16(t.column_widths.len() as u16); // checked by object_size
            w.u16(t.rows);
            w.zeros(2 + 2 + 2 + 4 + 4 + 4); // currentRow/Column, topRow, 3 pointers
            w.zeros(FIELD_SIZE); // currentField
            for &width in &t.column_widths {
                w.u16(width);
                w.zeros(2); // attribute bits, reserved
                w.u16(1); // spacing
                w.zeros(12); // the three callbacks
            }
            for _ in 0..t.rows {
                w.zeros(2); // id
                w.u16(11); // height
                w.zeros(4); // data
                w.u8(0x01); // usable
                w.u8(0x01); // selectable
                w.zeros(2);
            }
            w.zeros(usize::from(t.rows) * t.column_widths.len() * TABLE_ITEM_SIZE);
        }
        FormObject::Bitmap(b) => {
            w.u16(u16::from(b.usable) << 15);
            write_point(w, b.pos);
            w.u16(b.bitmap_id);
        }
        FormObject::Popup(p) => {
            w.u16(p.control_id);
            w.u16(p.list_id);
        }
        FormObject::Gadget(g) => {
            w.u16(g.id);
            w.u16((u16::from(g.usable) << 15) | (u16::from(g.extended) << 14));
            write_rect(w, g.bounds);
            w.zeros(4 + 4); // data, handler
        }
        FormObject::ScrollBar(s) => {
            write_rect(w, s.bounds);
            w.u16(s.id);
            w.u8(u8::from(s.usable) << 7);
            w.u8(0);
            for v in [s.value, s.min, s.max, s.page_size] {
                w.i16(v);
            }
            w.zeros(2 + 2); // penPosInCar, savePos
        }
        FormObject::Slider(s) => {
            w.u16(s.id);
            write_rect(w, s.bounds);
            w.u16(s.thumb_id);
            w.u16(s.background_id);
            w.u16(s.attr.to_word());
            w.u8(if s.feedback { 7 } else { 6 });
            w.u8(0);
            for v in [s.min, s.max, s.page_size, s.value] {
                w.u16(v);
            }
            w.zeros(4); // activeSliderP
        }
        FormObject::GraphicControl(c) => {
            w.u16(c.id);
            write_rect(w, c.bounds);
            w.u16(c.bitmap_id);
            w.u16(c.selected_bitmap_id);
            w.u16(c.attr.to_word());
            w.u8(c.style.to_byte());
            w.u8(c.font);
            w.u8(c.group);
            w.u8(0);
        }
        // object_size rejected these before anything was written.
        FormObject::Unsupported { .. } => {}
    }
}

fn parse_object(r: &Reader<'_>, entry: ObjectEntry) -> Result<FormObject, ParseError> {
    let at = entry.offset as usize;
    Ok(match entry.kind {
        kind::FIELD => {
            r.slice(at, FIELD_SIZE, "field truncated")?;
            FormObject::Field(Field {
                id: r.u16(at, "field ID")?,
                bounds: read_rect(r, at + 2)?,
                attr: FieldAttr::from_word(r.u16(at + 10, "field attributes")?),
                max_chars: r.u16(at + 28, "field maxChars")?,
                font: r.u8(at + 38, "field font")?,
            })
        }
        kind::CONTROL => {
            r.slice(at, CONTROL_SIZE, "control truncated")?;
            let attr = ControlAttr::from_word(r.u16(at + 14, "control attributes")?);
            let style_byte = r.u8(at + 16, "control style")?;
            let style = ControlStyle::from_byte(style_byte);
            match style {
                Some(style) if !attr.graphical => FormObject::Control(Control {
                    id: r.u16(at, "control ID")?,
                    bounds: read_rect(r, at + 2)?,
                    label: r
                        .cstr(at + CONTROL_SIZE, "control label has no NUL before the end")?
                        .to_vec(),
                    attr,
                    style,
                    font: r.u8(at + 17, "control font")?,
                    group: r.u8(at + 18, "control group")?,
                }),
                Some(style) => FormObject::GraphicControl(GraphicControl {
                    id: r.u16(at, "control ID")?,
                    bounds: read_rect(r, at + 2)?,
                    bitmap_id: r.u16(at + 10, "bitmap ID")?,
                    selected_bitmap_id: r.u16(at + 12, "selected bitmap ID")?,
                    attr,
                    style,
                    font: r.u8(at + 17, "control font")?,
                    group: r.u8(at + 18, "control group")?,
                }),
                None if style_byte == 6 || style_byte == 7 => {
                    r.slice(at, SLIDER_SIZE, "slider truncated")?;
                    FormObject::Slider(Slider {
                        id: r.u16(at, "slider ID")?,
                        bounds: read_rect(r, at + 2)?,
                        thumb_id: r.u16(at + 10, "thumb ID")?,
                        background_id: r.u16(at + 12, "background ID")?,
                        attr,
                        feedback: style_byte == 7,
                        min: r.u16(at + 18, "slider minimum")?,
                        max: r.u16(at + 20, "slider maximum")?,
                        page_size: r.u16(at + 22, "slider page size")?,
                        value: r.u16(at + 24, "slider value")?,
                    })
                }
                None => FormObject::Unsupported {
                    kind: entry.kind,
                    offset: entry.offset,
                },
            }
        }
        kind::LABEL => {
            r.slice(at, LABEL_SIZE, "label truncated")?;
            FormObject::Label(Label {
                id: r.u16(at, "label ID")?,
                pos: read_point(r, at + 2)?,
                usable: r.u16(at + 6, "label attributes")? & 0x8000 != 0,
                font: r.u8(at + 8, "label font")?,
                text: r
                    .cstr(at + LABEL_SIZE, "label text has no NUL before the end")?
                    .to_vec(),
            })
        }
        kind::TITLE => {
            r.slice(at, TITLE_SIZE, "title truncated")?;
            FormObject::Title(Title {
                bounds: read_rect(r, at)?,
                text: r
                    .cstr(at + TITLE_SIZE, "title text has no NUL before the end")?
                    .to_vec(),
            })
        }
        kind::GRAFFITI_STATE => FormObject::GraffitiState(GraffitiState {
            pos: read_point(r, at)?,
        }),
        kind::LIST => {
            r.slice(at, LIST_SIZE, "list truncated")?;
            let count = usize::from(r.u16(at + 16, "list item count")?);
            let mut text_at = at + LIST_SIZE + 4 * count;
            let mut items = Vec::with_capacity(count.min(r.len()));
            for _ in 0..count {
                let item = r.cstr(text_at, "list item has no NUL before the end")?;
                text_at += item.len() + 1;
                items.push(item.to_vec());
            }
            FormObject::List(List {
                id: r.u16(at, "list ID")?,
                bounds: read_rect(r, at + 2)?,
                attr: ListAttr::from_word(r.u16(at + 10, "list attributes")?),
                items,
                font: r.u8(at + 22, "list font")?,
            })
        }
        kind::TABLE => {
            r.slice(at, TABLE_SIZE, "table truncated")?;
            let columns = usize::from(r.u16(at + 12, "table column count")?);
            let rows = r.u16(at + 14, "table row count")?;
            let size = TABLE_SIZE
                + columns * TABLE_COLUMN_SIZE
                + usize::from(rows) * (TABLE_ROW_SIZE + columns * TABLE_ITEM_SIZE);
            r.slice(at, size, "table attributes truncated")?;
            let column_widths = (0..columns)
                .map(|c| r.u16(at + TABLE_SIZE + c * TABLE_COLUMN_SIZE, "column width"))
                .collect::<Result<Vec<_>, _>>()?;
            FormObject::Table(Table {
                id: r.u16(at, "table ID")?,
                bounds: read_rect(r, at + 2)?,
                editable: r.u16(at + 10, "table attributes")? & 0x4000 != 0,
                column_widths,
                rows,
            })
        }
        kind::BITMAP => FormObject::Bitmap(FormBitmap {
            usable: r.u16(at, "form bitmap attributes")? & 0x8000 != 0,
            pos: read_point(r, at + 2)?,
            bitmap_id: r.u16(at + 6, "form bitmap ID")?,
        }),
        kind::POPUP => FormObject::Popup(Popup {
            control_id: r.u16(at, "popup control ID")?,
            list_id: r.u16(at + 2, "popup list ID")?,
        }),
        kind::GADGET => {
            r.slice(at, GADGET_SIZE, "gadget truncated")?;
            let attr = r.u16(at + 2, "gadget attributes")?;
            FormObject::Gadget(Gadget {
                id: r.u16(at, "gadget ID")?,
                usable: attr & 0x8000 != 0,
                extended: attr & 0x4000 != 0,
                bounds: read_rect(r, at + 4)?,
            })
        }
        kind::SCROLL_BAR => {
            r.slice(at, SCROLL_BAR_SIZE, "scroll bar truncated")?;
            FormObject::ScrollBar(ScrollBar {
                bounds: read_rect(r, at)?,
                id: r.u16(at + 8, "scroll bar ID")?,
                usable: r.u8(at + 10, "scroll bar attributes")? & 0x80 != 0,
                value: r.i16(at + 12, "scroll bar value")?,
                min: r.i16(at + 14, "scroll bar minimum")?,
                max: r.i16(at + 16, "scroll bar maximum")?,
                page_size: r.i16(at + 18, "scroll bar page size")?,
            })
        }
        _ => FormObject::Unsupported {
            kind: entry.kind,
            offset: entry.offset,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Form {
        Form {
            id: 1000,
            bounds: Rect::new(0, 0, 160, 160),
            modal: false,
            frame: FrameBits {
                width: 1,
                ..FrameBits::default()
            },
            usable: true,
            save_behind: true,
            default_button: 0,
            help_id: 0,
            menu_id: 1000,
            objects: vec![
                FormObject::Title(Title {
                    bounds: Rect::default(),
                    text: b"Hi".to_vec(),
                }),
                FormObject::Label(Label {
                    id: 1,
                    pos: Point { x: 2, y: 20 },
                    usable: true,
                    font: 1,
                    text: b"Name:".to_vec(),
                }),
                FormObject::GraffitiState(GraffitiState {
                    pos: Point { x: 150, y: 150 },
                }),
            ],
        }
    }

    #[test]
    fn encode_then_parse_is_identity() {
        let form = sample();
        let bytes = form.to_bytes().unwrap();
        assert_eq!(Form::parse(&bytes).unwrap(), form);
        // Title slot: 12 + "Hi\0" = 15, padded to 16; label: 14 + 6 = 20.
        let dir = Form::directory(&bytes).unwrap();
        assert_eq!(
            dir,
            vec![
                ObjectEntry {
                    kind: 9,
                    offset: 86
                },
                ObjectEntry {
                    kind: 8,
                    offset: 102
                },
                ObjectEntry {
                    kind: 11,
                    offset: 122
                },
            ]
        );
        assert_eq!(bytes.len(), 126);
    }

    #[test]
    fn unsupported_objects_do_not_encode() {
        let mut form = sample();
        form.objects
            .push(FormObject::Unsupported { kind: 2, offset: 0 });
        assert!(form.to_bytes().is_err());
        let mut form = sample();
        form.objects[0] = FormObject::Title(Title {
            bounds: Rect::default(),
            text: b"a\0b".to_vec(),
        });
        assert_eq!(
            form.to_bytes().unwrap_err().message,
            "form title contains a NUL byte"
        );
    }

    #[test]
    fn truncated_inputs_are_errors() {
        let bytes = sample().to_bytes().unwrap();
        for len in 0..bytes.len() {
            assert!(Form::parse(&bytes[..len]).is_err(), "length {len}");
        }
    }

    #[test]
    fn attribute_words() {
        let attr = ControlAttr {
            usable: true,
            enabled: true,
            left_anchor: true,
            frame: 1,
            ..ControlAttr::default()
        };
        assert_eq!(attr.to_word(), 0xC900);
        assert_eq!(ControlAttr::from_word(0xC900), attr);
        let field = FieldAttr {
            usable: true,
            editable: true,
            single_line: true,
            ins_pt_visible: true,
            underlined: 1,
            auto_shift: true,
            ..FieldAttr::default()
        };
        assert_eq!(field.to_word(), 0xB248);
        assert_eq!(FieldAttr::from_word(0xB248), field);
        assert_eq!(FrameBits::from_word(0x0302).to_word(), 0x0302);
    }
}
