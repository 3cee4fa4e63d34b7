//! Palm OS types, structures and constants with their SDK names.
//!
//! Every fact names the Palm OS SDK 3.5 header it comes from (`jichu4n/palm-os-sdk`,
//! `sdk-3.5/include/Core/...`); the numbers are also listed in `shared/PALM_FACTS.md`.
//!
//! # Layouts on the 68k and on the host
//! The structures are `#[repr(C)]`. On `m68k-unknown-none-elf` every 16- and 32-bit type
//! and every pointer is 2-byte aligned, so `repr(C)` gives exactly Palm's 2-byte packing
//! (PALM_FACTS §6.1). Host tools use the same definitions for sizes and field offsets
//! (palm-run writes `EventType` and `SysAppInfoType` into emulated memory); for that the
//! host build adds `packed(2)` and represents a 68k pointer field by [`PalmPtr`] = `u32`,
//! so `size_of` and `offset_of!` agree on both (asserted below and in `tests/layout.rs`).
//! Values are native-endian on each target: the host must still byte-swap.
#![allow(non_upper_case_globals, non_camel_case_types, non_snake_case)]

pub use core::ffi::c_void;

/// `UInt8` (PalmTypes.h): 8-bit unsigned. As an argument: a 2-byte slot, value in the high byte.
pub type UInt8 = u8;
/// `Int8` (PalmTypes.h): 8-bit signed.
pub type Int8 = i8;
/// `UInt16` (PalmTypes.h).
pub type UInt16 = u16;
/// `Int16` (PalmTypes.h).
pub type Int16 = i16;
/// `UInt32` (PalmTypes.h).
pub type UInt32 = u32;
/// `Int32` (PalmTypes.h).
pub type Int32 = i32;
/// `Boolean` (PalmTypes.h: `unsigned char`): 0 is false, anything else true.
pub type Boolean = u8;
/// `Char` (PalmTypes.h: `char`, signed on the 68k). Same type as `core::ffi::c_char`, so
/// `c"text".as_ptr()` is a `*const Char`.
pub type Char = core::ffi::c_char;
/// `WChar` (PalmTypes.h): a 16-bit character.
pub type WChar = u16;
/// `Err` (PalmTypes.h): a 16-bit error code, [`errNone`] = 0; classes in [`errors`].
pub type Err = u16;
/// `LocalID` (PalmTypes.h): a card-relative chunk ID.
pub type LocalID = u32;
/// `Coord` (PalmTypes.h): a signed 16-bit screen coordinate.
pub type Coord = i16;
/// `MemPtr` (PalmTypes.h: `void *`): a pointer to a chunk body.
pub type MemPtr = *mut c_void;
/// `MemHandle` (PalmTypes.h: `struct _opaque *`): a movable chunk. Opaque: always
/// `MemHandleLock` it; bit 31 may be set on some ROMs (PALM_FACTS §5.2).
pub type MemHandle = *mut MemHandleTarget;
/// `DmOpenRef` (DataMgr.h: `void *`): an open database.
pub type DmOpenRef = *mut c_void;
/// `DmResType` (DataMgr.h): a resource type four-char code.
pub type DmResType = u32;
/// `DmResID` (DataMgr.h): a resource ID.
pub type DmResID = u16;
/// `FrameType` (Window.h: `UInt16`).
pub type FrameType = u16;
/// `HostControlTrapNumber` (HostControl.h: `UInt16`): a HostControl selector.
pub type HostControlTrapNumber = u16;
/// `SndSysBeepType` (SoundMgr.h): a 1-byte enum (2-byte slot, value in the high byte;
/// PALM_FACTS §3.2). Values in [`sounds`].
pub type SndSysBeepType = u8;
/// `WinHandle` (Window.h: `WindowType *`).
pub type WinHandle = *mut WindowType;
/// `SysAppInfoPtr` (SystemMgr.h).
pub type SysAppInfoPtr = *mut SysAppInfoType;
/// `EventPtr` (Event.h).
pub type EventPtr = *mut EventType;
/// `DmSearchStatePtr` (DataMgr.h).
pub type DmSearchStatePtr = *mut DmSearchStateType;
/// `ScrollBarPtr` (ScrollBar.h: `ScrollBarType *`).
pub type ScrollBarPtr = *mut ScrollBarType;
/// `FormEventHandlerType *` (Form.h: `Boolean (EventType *eventP)`): the event handler a
/// form calls. Make one with [`form_event_handler!`](crate::form_event_handler).
pub type FormEventHandlerType = unsafe extern "C" fn(eventP: *mut EventType) -> Boolean;

macro_rules! opaque {
    ($($(#[$m:meta])* $name:ident;)*) => {$(
        $(#[$m])*
        #[repr(C)]
        pub struct $name {
            _private: [u8; 0],
        }
    )*};
}

opaque! {
    /// What a [`MemHandle`] points at (a master pointer); never dereference it.
    MemHandleTarget;
    /// `FormType` (Form.h), opaque: use the `Frm*` traps.
    FormType;
    /// `FieldType` (Field.h), opaque: use the `Fld*` traps.
    FieldType;
    /// `ControlType` (Control.h), opaque: use the `Ctl*` traps.
    ControlType;
    /// `ListType` (List.h), opaque: use the `Lst*` traps.
    ListType;
    /// `MenuBarType` (Menu.h), opaque: use the `Menu*` traps.
    MenuBarType;
    /// `WindowType` (Window.h), opaque: use the `Win*` traps.
    WindowType;
    /// `TableType` (Table.h), opaque.
    TableType;
    /// `ScrollBarType` (ScrollBar.h), opaque: use the `Scl*` traps.
    ScrollBarType;
}

/// A 68k pointer inside a Palm structure: `*mut T` on the 68k; on the host a `u32`
/// holding the 68k address, so that layouts (size, offsets) are the same everywhere.
#[cfg(target_arch = "m68k")]
pub type PalmPtr<T> = *mut T;
#[cfg(not(target_arch = "m68k"))]
pub use host_ptr::PalmPtr;

#[cfg(not(target_arch = "m68k"))]
mod host_ptr {
    use core::marker::PhantomData;

    /// A 68k pointer inside a Palm structure: `*mut T` on the 68k; on the host a 4-byte,
    /// 2-aligned 68k address, so that layouts (size, offsets) are the same everywhere.
    #[repr(C, packed(2))]
    pub struct PalmPtr<T> {
        /// The 68k address.
        pub addr: u32,
        _pointee: PhantomData<*mut T>,
    }

    impl<T> PalmPtr<T> {
        /// The pointer to 68k address `addr`.
        pub const fn new(addr: u32) -> Self {
            PalmPtr {
                addr,
                _pointee: PhantomData,
            }
        }
    }

    impl<T> Clone for PalmPtr<T> {
        fn clone(&self) -> Self {
            *self
        }
    }

    impl<T> Copy for PalmPtr<T> {}

    impl<T> core::fmt::Debug for PalmPtr<T> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            let addr = self.addr;
            write!(f, "0x{addr:08X}")
        }
    }
}

/// Packs a four-character code (`'appl'`) as Palm stores it: big-endian, first char
/// in the high byte.
pub const fn four_cc(code: &[u8; 4]) -> u32 {
    u32::from_be_bytes(*code)
}

/// The four characters of a four-char code (inverse of [`four_cc`]).
pub const fn four_cc_bytes(code: u32) -> [u8; 4] {
    code.to_be_bytes()
}

/// `PointType` (Rect.h): 4 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PointType {
    /// Horizontal coordinate.
    pub x: Coord,
    /// Vertical coordinate.
    pub y: Coord,
}

/// `RectangleType` (Rect.h): 8 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RectangleType {
    /// Top-left corner.
    pub topLeft: PointType,
    /// Width and height.
    pub extent: PointType,
}

/// `DmSearchStateType` (DataMgr.h): 32 bytes of private state for
/// `DmGetNextDatabaseByTypeCreator`.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DmSearchStateType {
    /// Opaque search state.
    pub info: [u32; 8],
}

/// `SysAppInfoType` (SystemMgr.h): the per-launch application info block that
/// `SysAppStartup` returns. 60 bytes; offsets in PALM_FACTS §2.4.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug)]
pub struct SysAppInfoType {
    /// +0: launch code (`sysAppLaunchCmd*`, [`launch`]).
    pub cmd: Int16,
    /// +2: the launch code's parameter block.
    pub cmdPBP: PalmPtr<c_void>,
    /// +6: launch flags (`sysAppLaunchFlag*`, [`launch`]).
    pub launchFlags: UInt16,
    /// +8: AMX task ID.
    pub taskID: UInt32,
    /// +12: handle of code resource 1.
    pub codeH: PalmPtr<MemHandleTarget>,
    /// +16: the application's database.
    pub dbP: PalmPtr<c_void>,
    /// +20: stack chunk.
    pub stackP: PalmPtr<UInt8>,
    /// +24: globals chunk.
    pub globalsChunkP: PalmPtr<UInt8>,
    /// +28: owner ID stamped on every chunk the app allocates.
    pub memOwnerID: UInt16,
    /// +30: list of databases the app opened.
    pub dmAccessP: PalmPtr<c_void>,
    /// +34: last Data Manager error.
    pub dmLastErr: Err,
    /// +36: ErrTry/ErrCatch list.
    pub errExceptionP: PalmPtr<c_void>,
    /// +40: A5 for this app (OS 3.0+).
    pub a5Ptr: PalmPtr<UInt8>,
    /// +44: last byte of the stack chunk.
    pub stackEndP: PalmPtr<UInt8>,
    /// +48: last byte of the globals chunk.
    pub globalEndP: PalmPtr<UInt8>,
    /// +52: first `SysAppInfoType` of this thread.
    pub rootP: PalmPtr<SysAppInfoType>,
    /// +56: unused.
    pub extraP: PalmPtr<c_void>,
}

/// `EventType` (Event.h): 24 bytes. `eType` is an `eventsEnum` (2 bytes; values in
/// [`events`]); the 16-byte `data` union is read through the typed accessors.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy)]
pub struct EventType {
    /// +0: event number.
    pub eType: UInt16,
    /// +2: pen is down.
    pub penDown: Boolean,
    /// +3: tap count.
    pub tapCount: UInt8,
    /// +4: pen x.
    pub screenX: Int16,
    /// +6: pen y.
    pub screenY: Int16,
    /// +8: event-specific data.
    pub data: EventData,
}

/// The 16-byte `data` union of [`EventType`] (Event.h). Writing a member is safe;
/// read members through the accessors on `EventType`.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy)]
pub union EventData {
    /// `generic`: the 16 bytes as 8 words.
    pub generic: [UInt16; 8],
    /// `penUp` (`penUpEvent`).
    pub penUp: PenUpEventData,
    /// `keyDown` (`keyDownEvent`).
    pub keyDown: KeyDownEventData,
    /// `ctlEnter` (`ctlEnterEvent`).
    pub ctlEnter: CtlEnterEventData,
    /// `ctlSelect` (`ctlSelectEvent`).
    pub ctlSelect: CtlSelectEventData,
    /// `fldEnter`/`fldChanged`/`fldExit`.
    pub fldChanged: FldEventData,
    /// `lstSelect` (`lstSelectEvent`).
    pub lstSelect: LstSelectEventData,
    /// `frmLoad`/`frmOpen`/`frmClose`/`frmTitleEnter`/`frmTitleSelect`: just the form ID.
    pub frmLoad: FormIdEventData,
    /// `frmUpdate` (`frmUpdateEvent`).
    pub frmUpdate: FrmUpdateEventData,
    /// `menu` (`menuEvent`).
    pub menu: MenuEventData,
    /// `popSelect` (`popSelectEvent`).
    pub popSelect: PopSelectEventData,
    /// `ctlRepeat` (`ctlRepeatEvent`).
    pub ctlRepeat: CtlRepeatEventData,
    /// `sclRepeat` (`sclRepeatEvent`); `sclExit` (`sclExitEvent`) is its first 10 bytes.
    pub sclRepeat: SclRepeatEventData,
}

/// `struct _PenUpEventType` (SysEvent.h): 8 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PenUpEventData {
    /// Stroke start (display coordinates).
    pub start: PointType,
    /// Stroke end.
    pub end: PointType,
}

/// `struct _KeyDownEventType` (SysEvent.h): 6 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyDownEventData {
    /// Character code.
    pub chr: WChar,
    /// Virtual key code.
    pub keyCode: UInt16,
    /// Modifier bits.
    pub modifiers: UInt16,
}

/// `struct ctlEnter` (Event.h): 6 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug)]
pub struct CtlEnterEventData {
    /// Resource ID of the control.
    pub controlID: UInt16,
    /// The control.
    pub pControl: PalmPtr<ControlType>,
}

/// `struct ctlSelect` (Event.h): 10 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug)]
pub struct CtlSelectEventData {
    /// +0 (event +8): resource ID of the control.
    pub controlID: UInt16,
    /// +2 (event +10): the control.
    pub pControl: PalmPtr<ControlType>,
    /// +6 (event +14): new state.
    pub on: Boolean,
    /// +7: reserved.
    pub reserved1: UInt8,
    /// +8 (event +16): slider value.
    pub value: UInt16,
}

/// `struct fldEnter`/`fldChanged`/`fldExit` (Event.h): 6 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug)]
pub struct FldEventData {
    /// Resource ID of the field.
    pub fieldID: UInt16,
    /// The field.
    pub pField: PalmPtr<FieldType>,
}

/// `struct lstSelect` (Event.h): 8 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug)]
pub struct LstSelectEventData {
    /// Resource ID of the list.
    pub listID: UInt16,
    /// The list.
    pub pList: PalmPtr<ListType>,
    /// Selected item.
    pub selection: Int16,
}

/// `struct frmLoad`/`frmOpen`/`frmClose` (Event.h): 2 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FormIdEventData {
    /// Resource ID of the form.
    pub formID: UInt16,
}

/// `struct frmUpdate` (Event.h): 4 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrmUpdateEventData {
    /// Resource ID of the form.
    pub formID: UInt16,
    /// Application-specific code.
    pub updateCode: UInt16,
}

/// `struct menu` (Event.h): 2 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MenuEventData {
    /// Resource ID of the chosen menu item.
    pub itemID: UInt16,
}

/// `struct popSelect` (Event.h): 16 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug)]
pub struct PopSelectEventData {
    /// Resource ID of the popup trigger.
    pub controlID: UInt16,
    /// The popup trigger.
    pub controlP: PalmPtr<ControlType>,
    /// Resource ID of the list.
    pub listID: UInt16,
    /// The list.
    pub listP: PalmPtr<ListType>,
    /// New selection.
    pub selection: Int16,
    /// Previous selection.
    pub priorSelection: Int16,
}

/// `struct ctlRepeat` (Event.h): 12 bytes.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug)]
pub struct CtlRepeatEventData {
    /// +0 (event +8): resource ID of the control.
    pub controlID: UInt16,
    /// +2 (event +10): the control.
    pub pControl: PalmPtr<ControlType>,
    /// +6 (event +14): `TimGetTicks` when the event was posted.
    pub time: UInt32,
    /// +10 (event +18): the value (sliders only).
    pub value: UInt16,
}

/// `struct sclRepeat` (Event.h): 14 bytes; `struct sclExit` is its first 10.
#[repr(C)]
#[cfg_attr(not(target_arch = "m68k"), repr(packed(2)))]
#[derive(Clone, Copy, Debug)]
pub struct SclRepeatEventData {
    /// +0 (event +8): resource ID of the scroll bar.
    pub scrollBarID: UInt16,
    /// +2 (event +10): the scroll bar.
    pub pScrollBar: PalmPtr<ScrollBarType>,
    /// +6 (event +14): the value before.
    pub value: Int16,
    /// +8 (event +16): the new value.
    pub newValue: Int16,
    /// +10 (event +18): `TimGetTicks` when posted (`sclRepeatEvent` only).
    pub time: Int32,
}

impl EventType {
    /// An all-zero event (`nilEvent`), ready for `EvtGetEvent` to fill.
    pub const fn zeroed() -> Self {
        EventType {
            eType: events::nilEvent,
            penDown: 0,
            tapCount: 0,
            screenX: 0,
            screenY: 0,
            data: EventData { generic: [0; 8] },
        }
    }

    /// The data as 8 words (`data.generic`), valid for every event.
    pub fn generic(&self) -> [UInt16; 8] {
        // SAFETY: every union member is plain data of at most 16 bytes; any bit
        // pattern is a valid `[u16; 8]`.
        unsafe { self.data.generic }
    }

    /// `data.keyDown`: meaningful for `keyDownEvent`.
    pub fn key_down(&self) -> KeyDownEventData {
        // SAFETY: plain integers; any bit pattern is valid.
        unsafe { self.data.keyDown }
    }

    /// `data.penUp`: meaningful for `penUpEvent`.
    pub fn pen_up(&self) -> PenUpEventData {
        // SAFETY: plain integers; any bit pattern is valid.
        unsafe { self.data.penUp }
    }

    /// `data.ctlEnter`: meaningful for `ctlEnterEvent`.
    pub fn ctl_enter(&self) -> CtlEnterEventData {
        // SAFETY: integers and a raw pointer (or u32); any bit pattern is valid.
        unsafe { self.data.ctlEnter }
    }

    /// `data.ctlSelect`: meaningful for `ctlSelectEvent`.
    pub fn ctl_select(&self) -> CtlSelectEventData {
        // SAFETY: integers and a raw pointer (or u32); any bit pattern is valid.
        unsafe { self.data.ctlSelect }
    }

    /// `data.fldChanged` (same layout as `fldEnter`/`fldExit`).
    pub fn fld(&self) -> FldEventData {
        // SAFETY: integers and a raw pointer (or u32); any bit pattern is valid.
        unsafe { self.data.fldChanged }
    }

    /// `data.lstSelect`: meaningful for `lstSelectEvent`.
    pub fn lst_select(&self) -> LstSelectEventData {
        // SAFETY: integers and a raw pointer (or u32); any bit pattern is valid.
        unsafe { self.data.lstSelect }
    }

    /// The form ID of `frmLoadEvent`/`frmOpenEvent`/`frmCloseEvent`/`frmUpdateEvent`.
    pub fn form_id(&self) -> UInt16 {
        // SAFETY: a plain integer; any bit pattern is valid.
        unsafe { self.data.frmLoad.formID }
    }

    /// `data.frmUpdate`: meaningful for `frmUpdateEvent`.
    pub fn frm_update(&self) -> FrmUpdateEventData {
        // SAFETY: plain integers; any bit pattern is valid.
        unsafe { self.data.frmUpdate }
    }

    /// `data.menu.itemID`: meaningful for `menuEvent`.
    pub fn menu_item(&self) -> UInt16 {
        // SAFETY: a plain integer; any bit pattern is valid.
        unsafe { self.data.menu.itemID }
    }

    /// `data.popSelect`: meaningful for `popSelectEvent`.
    pub fn pop_select(&self) -> PopSelectEventData {
        // SAFETY: integers and raw pointers (or u32); any bit pattern is valid.
        unsafe { self.data.popSelect }
    }

    /// `data.ctlRepeat`: meaningful for `ctlRepeatEvent`.
    pub fn ctl_repeat(&self) -> CtlRepeatEventData {
        // SAFETY: integers and a raw pointer (or u32); any bit pattern is valid.
        unsafe { self.data.ctlRepeat }
    }

    /// `data.sclRepeat`: meaningful for `sclRepeatEvent`, and for
    /// `sclExitEvent` except `time` (`sclExit` has the same first fields).
    pub fn scl_repeat(&self) -> SclRepeatEventData {
        // SAFETY: integers and a raw pointer (or u32); any bit pattern is valid.
        unsafe { self.data.sclRepeat }
    }
}

static_assertions::assert_eq_size!(PointType, [u8; 4]);
static_assertions::assert_eq_size!(RectangleType, [u8; 8]);
static_assertions::assert_eq_size!(DmSearchStateType, [u8; 32]);
static_assertions::assert_eq_size!(SysAppInfoType, [u8; 60]);
static_assertions::assert_eq_size!(EventType, [u8; 24]);
static_assertions::assert_eq_size!(EventData, [u8; 16]);
static_assertions::assert_eq_size!(CtlSelectEventData, [u8; 10]);
static_assertions::assert_eq_size!(PopSelectEventData, [u8; 16]);
static_assertions::assert_eq_size!(CtlRepeatEventData, [u8; 12]);
static_assertions::assert_eq_size!(SclRepeatEventData, [u8; 14]);
static_assertions::const_assert_eq!(core::mem::offset_of!(SclRepeatEventData, time), 10);
static_assertions::const_assert_eq!(core::mem::offset_of!(CtlRepeatEventData, time), 6);
static_assertions::const_assert_eq!(core::mem::offset_of!(SysAppInfoType, memOwnerID), 28);
static_assertions::const_assert_eq!(core::mem::offset_of!(SysAppInfoType, launchFlags), 6);
static_assertions::const_assert_eq!(core::mem::offset_of!(EventType, data), 8);

/// `errNone` (ErrorBase.h): success.
pub const errNone: Err = 0;

/// Error classes and codes (`ErrorBase.h`, `MemoryMgr.h`, `DataMgr.h`, `SystemMgr.h`,
/// `FeatureMgr.h`). A code is its class base ORed with a small number.
pub mod errors {
    use super::Err;
    /// Memory Manager error class (ErrorBase.h).
    pub const memErrorClass: Err = 0x0100;
    /// Data Manager error class (ErrorBase.h).
    pub const dmErrorClass: Err = 0x0200;
    /// System Manager error class (ErrorBase.h).
    pub const sysErrorClass: Err = 0x0500;
    /// System Event Manager error class (ErrorBase.h).
    pub const evtErrorClass: Err = 0x0700;
    /// Sound Manager error class (ErrorBase.h).
    pub const sndErrorClass: Err = 0x0800;
    /// Time Manager error class (ErrorBase.h).
    pub const timErrorClass: Err = 0x0A00;
    /// Feature Manager error class (ErrorBase.h).
    pub const ftrErrorClass: Err = 0x0C00;
    /// Window Manager error class (ErrorBase.h).
    pub const winErrorClass: Err = 0x2400;
    /// Menu Manager error class (ErrorBase.h).
    pub const menuErrorClass: Err = 0x2600;
    /// Application-defined errors (ErrorBase.h).
    pub const appErrorClass: Err = 0x8000;

    /// MemoryMgr.h: the chunk is locked.
    pub const memErrChunkLocked: Err = memErrorClass | 1;
    /// MemoryMgr.h: not enough space in the heap.
    pub const memErrNotEnoughSpace: Err = memErrorClass | 2;
    /// MemoryMgr.h: invalid parameter or size too big.
    pub const memErrInvalidParam: Err = memErrorClass | 3;
    /// MemoryMgr.h: the chunk is not locked.
    pub const memErrChunkNotLocked: Err = memErrorClass | 4;
    /// MemoryMgr.h.
    pub const memErrCardNotPresent: Err = memErrorClass | 5;
    /// MemoryMgr.h.
    pub const memErrNoCardHeader: Err = memErrorClass | 6;
    /// MemoryMgr.h.
    pub const memErrInvalidStoreHeader: Err = memErrorClass | 7;
    /// MemoryMgr.h.
    pub const memErrRAMOnlyCard: Err = memErrorClass | 8;
    /// MemoryMgr.h: write to protected memory.
    pub const memErrWriteProtect: Err = memErrorClass | 9;
    /// MemoryMgr.h.
    pub const memErrNoRAMOnCard: Err = memErrorClass | 10;
    /// MemoryMgr.h.
    pub const memErrNoStore: Err = memErrorClass | 11;
    /// MemoryMgr.h.
    pub const memErrROMOnlyCard: Err = memErrorClass | 12;

    /// DataMgr.h.
    pub const dmErrMemError: Err = dmErrorClass | 1;
    /// DataMgr.h.
    pub const dmErrIndexOutOfRange: Err = dmErrorClass | 2;
    /// DataMgr.h.
    pub const dmErrInvalidParam: Err = dmErrorClass | 3;
    /// DataMgr.h.
    pub const dmErrReadOnly: Err = dmErrorClass | 4;
    /// DataMgr.h.
    pub const dmErrDatabaseOpen: Err = dmErrorClass | 5;
    /// DataMgr.h.
    pub const dmErrCantOpen: Err = dmErrorClass | 6;
    /// DataMgr.h: database not found.
    pub const dmErrCantFind: Err = dmErrorClass | 7;
    /// DataMgr.h.
    pub const dmErrRecordInWrongCard: Err = dmErrorClass | 8;
    /// DataMgr.h.
    pub const dmErrCorruptDatabase: Err = dmErrorClass | 9;
    /// DataMgr.h.
    pub const dmErrRecordDeleted: Err = dmErrorClass | 10;
    /// DataMgr.h.
    pub const dmErrRecordArchived: Err = dmErrorClass | 11;
    /// DataMgr.h.
    pub const dmErrNotRecordDB: Err = dmErrorClass | 12;
    /// DataMgr.h.
    pub const dmErrNotResourceDB: Err = dmErrorClass | 13;
    /// DataMgr.h.
    pub const dmErrROMBased: Err = dmErrorClass | 14;
    /// DataMgr.h.
    pub const dmErrRecordBusy: Err = dmErrorClass | 15;
    /// DataMgr.h.
    pub const dmErrResourceNotFound: Err = dmErrorClass | 16;
    /// DataMgr.h.
    pub const dmErrNoOpenDatabase: Err = dmErrorClass | 17;
    /// DataMgr.h.
    pub const dmErrInvalidCategory: Err = dmErrorClass | 18;
    /// DataMgr.h.
    pub const dmErrNotValidRecord: Err = dmErrorClass | 19;
    /// DataMgr.h: DmWrite/DmSet outside the record.
    pub const dmErrWriteOutOfBounds: Err = dmErrorClass | 20;
    /// DataMgr.h.
    pub const dmErrSeekFailed: Err = dmErrorClass | 21;
    /// DataMgr.h.
    pub const dmErrAlreadyOpenForWrites: Err = dmErrorClass | 22;
    /// DataMgr.h.
    pub const dmErrOpenedByAnotherTask: Err = dmErrorClass | 23;
    /// DataMgr.h.
    pub const dmErrUniqueIDNotFound: Err = dmErrorClass | 24;
    /// DataMgr.h: a database with that name exists.
    pub const dmErrAlreadyExists: Err = dmErrorClass | 25;
    /// DataMgr.h.
    pub const dmErrInvalidDatabaseName: Err = dmErrorClass | 26;
    /// DataMgr.h.
    pub const dmErrDatabaseProtected: Err = dmErrorClass | 27;
    /// DataMgr.h.
    pub const dmErrDatabaseNotProtected: Err = dmErrorClass | 28;

    /// SystemMgr.h.
    pub const sysErrTimeout: Err = sysErrorClass | 1;
    /// SystemMgr.h: bad parameter (PumpkinOS's SysSetTrapAddress returns it).
    pub const sysErrParamErr: Err = sysErrorClass | 2;
    /// SystemMgr.h.
    pub const sysErrNoFreeResource: Err = sysErrorClass | 3;
    /// SystemMgr.h.
    pub const sysErrNoFreeRAM: Err = sysErrorClass | 4;
    /// SystemMgr.h: not allowed (OS 5's SysSetTrapAddress returns it).
    pub const sysErrNotAllowed: Err = sysErrorClass | 5;
    /// SystemMgr.h.
    pub const sysErrSemInUse: Err = sysErrorClass | 6;
    /// SystemMgr.h.
    pub const sysErrInvalidID: Err = sysErrorClass | 7;
    /// SystemMgr.h.
    pub const sysErrOutOfOwnerIDs: Err = sysErrorClass | 8;
    /// SystemMgr.h.
    pub const sysErrNoFreeLibSlots: Err = sysErrorClass | 9;
    /// SystemMgr.h.
    pub const sysErrLibNotFound: Err = sysErrorClass | 10;

    /// FeatureMgr.h.
    pub const ftrErrInvalidParam: Err = ftrErrorClass | 1;
    /// FeatureMgr.h: no such feature.
    pub const ftrErrNoSuchFeature: Err = ftrErrorClass | 2;
    /// FeatureMgr.h.
    pub const ftrErrAlreadyExists: Err = ftrErrorClass | 3;
    /// FeatureMgr.h.
    pub const ftrErrROMBased: Err = ftrErrorClass | 4;
    /// FeatureMgr.h.
    pub const ftrErrInternalErr: Err = ftrErrorClass | 5;
}

/// Launch codes and launch flags (`SystemMgr.h`; PALM_FACTS §2.3).
pub mod launch {
    /// Normal launch from the launcher.
    pub const sysAppLaunchCmdNormalLaunch: u16 = 0;
    /// Find a string.
    pub const sysAppLaunchCmdFind: u16 = 1;
    /// Go to a record.
    pub const sysAppLaunchCmdGoTo: u16 = 2;
    /// HotSync changed the app's databases.
    pub const sysAppLaunchCmdSyncNotify: u16 = 3;
    /// The time changed.
    pub const sysAppLaunchCmdTimeChange: u16 = 4;
    /// Soft reset.
    pub const sysAppLaunchCmdSystemReset: u16 = 5;
    /// An alarm triggered.
    pub const sysAppLaunchCmdAlarmTriggered: u16 = 6;
    /// Display an alarm.
    pub const sysAppLaunchCmdDisplayAlarm: u16 = 7;
    /// The country changed.
    pub const sysAppLaunchCmdCountryChange: u16 = 8;
    /// Save data before a Find.
    pub const sysAppLaunchCmdSaveData: u16 = 10;
    /// Initialise a new database.
    pub const sysAppLaunchCmdInitDatabase: u16 = 11;
    /// First application-defined launch code.
    pub const sysAppLaunchCmdCustomBase: u16 = 0x8000;

    /// Create a new thread (implies NewStack).
    pub const sysAppLaunchFlagNewThread: u16 = 0x01;
    /// Create a separate stack.
    pub const sysAppLaunchFlagNewStack: u16 = 0x02;
    /// Create a new globals world; implies a new owner ID for Memory Manager chunks.
    pub const sysAppLaunchFlagNewGlobals: u16 = 0x04;
    /// This is a UI app being launched.
    pub const sysAppLaunchFlagUIApp: u16 = 0x08;
    /// The app calls itself (A5 stays valid).
    pub const sysAppLaunchFlagSubCall: u16 = 0x10;
    /// Globals have been relocated (internal).
    pub const sysAppLaunchFlagDataRelocated: u16 = 0x80;
}

/// Event numbers (`eventsEnum`, Event.h; PALM_FACTS §4.6) and `EvtGetEvent` timeouts
/// (SysEvent.h).
pub mod events {
    /// No event.
    pub const nilEvent: u16 = 0;
    /// Pen down.
    pub const penDownEvent: u16 = 1;
    /// Pen up.
    pub const penUpEvent: u16 = 2;
    /// Pen moved.
    pub const penMoveEvent: u16 = 3;
    /// Key (or Graffiti character).
    pub const keyDownEvent: u16 = 4;
    /// A window became active.
    pub const winEnterEvent: u16 = 5;
    /// A window stopped being active.
    pub const winExitEvent: u16 = 6;
    /// Pen down on a control.
    pub const ctlEnterEvent: u16 = 7;
    /// Pen left a control.
    pub const ctlExitEvent: u16 = 8;
    /// A control was selected.
    pub const ctlSelectEvent: u16 = 9;
    /// A repeating control repeats.
    pub const ctlRepeatEvent: u16 = 10;
    /// Pen down on a list.
    pub const lstEnterEvent: u16 = 11;
    /// A list item was selected.
    pub const lstSelectEvent: u16 = 12;
    /// Pen left a list.
    pub const lstExitEvent: u16 = 13;
    /// A popup list selection.
    pub const popSelectEvent: u16 = 14;
    /// Pen down in a field.
    pub const fldEnterEvent: u16 = 15;
    /// A field's height changed.
    pub const fldHeightChangedEvent: u16 = 16;
    /// A field's text changed.
    pub const fldChangedEvent: u16 = 17;
    /// Pen down in a table.
    pub const tblEnterEvent: u16 = 18;
    /// A table item was selected.
    pub const tblSelectEvent: u16 = 19;
    /// A day was selected.
    pub const daySelectEvent: u16 = 20;
    /// A menu item was chosen.
    pub const menuEvent: u16 = 21;
    /// The app must quit.
    pub const appStopEvent: u16 = 22;
    /// Load a form (FrmGotoForm).
    pub const frmLoadEvent: u16 = 23;
    /// A form opens.
    pub const frmOpenEvent: u16 = 24;
    /// Go to a record in a form.
    pub const frmGotoEvent: u16 = 25;
    /// Redraw a form.
    pub const frmUpdateEvent: u16 = 26;
    /// Save a form's data.
    pub const frmSaveEvent: u16 = 27;
    /// A form closes.
    pub const frmCloseEvent: u16 = 28;
    /// Pen down on a form title.
    pub const frmTitleEnterEvent: u16 = 29;
    /// A form title was selected.
    pub const frmTitleSelectEvent: u16 = 30;
    /// Pen left a table.
    pub const tblExitEvent: u16 = 31;
    /// Pen down on a scroll bar.
    pub const sclEnterEvent: u16 = 32;
    /// Pen left a scroll bar.
    pub const sclExitEvent: u16 = 33;
    /// A scroll bar repeats.
    pub const sclRepeatEvent: u16 = 34;
    /// Text services confirm.
    pub const tsmConfirmEvent: u16 = 35;
    /// The command bar opens.
    pub const menuCmdBarOpenEvent: u16 = 0x0800;
    /// First application-defined event.
    pub const firstUserEvent: u16 = 0x6000;

    /// `EvtGetEvent` timeout: wait forever (SysEvent.h).
    pub const evtWaitForever: i32 = -1;
    /// `EvtGetEvent` timeout: do not wait (SysEvent.h).
    pub const evtNoWait: i32 = 0;
}

/// Memory Manager flags (`MemoryMgr.h`; PALM_FACTS §4.1).
pub mod mem {
    /// `MemChunkNew` attr: return the chunk locked (a pointer).
    pub const memNewChunkFlagPreLock: u16 = 0x0100;
    /// `MemChunkNew` attr: non-movable chunk (a pointer).
    pub const memNewChunkFlagNonMovable: u16 = 0x0200;
    /// `MemChunkNew` attr: allocate at the start of the heap.
    pub const memNewChunkFlagAtStart: u16 = 0x0400;
    /// `MemChunkNew` attr: allocate at the end of the heap.
    pub const memNewChunkFlagAtEnd: u16 = 0x0800;
    /// `MemSetDebugMode`: check the heap on every change.
    pub const memDebugModeCheckOnChange: u16 = 0x0001;
    /// `MemSetDebugMode`: check the heap on every call.
    pub const memDebugModeCheckOnAll: u16 = 0x0002;
    /// `MemSetDebugMode`: scramble on every change.
    pub const memDebugModeScrambleOnChange: u16 = 0x0004;
    /// `MemSetDebugMode`: scramble on every call.
    pub const memDebugModeScrambleOnAll: u16 = 0x0008;
    /// `MemSetDebugMode`: fill freed chunks.
    pub const memDebugModeFillFree: u16 = 0x0010;
    /// `MemSetDebugMode`: apply to all heaps.
    pub const memDebugModeAllHeaps: u16 = 0x0020;
    /// `MemSetDebugMode`: record the dynamic heap's low-water mark.
    pub const memDebugModeRecordMinDynHeapFree: u16 = 0x0040;
    /// Heap ID of the dynamic heap on card 0 (PALM_FACTS §5.3).
    pub const dynamicHeapID: u16 = 0;
}

/// Data Manager constants (`DataMgr.h`; PALM_FACTS §1.2, §4.2).
pub mod dm {
    /// `DmOpenDatabase` mode: read only.
    pub const dmModeReadOnly: u16 = 0x0001;
    /// Mode: write.
    pub const dmModeWrite: u16 = 0x0002;
    /// Mode: read and write.
    pub const dmModeReadWrite: u16 = 0x0003;
    /// Mode: leave open when the app quits.
    pub const dmModeLeaveOpen: u16 = 0x0004;
    /// Mode: exclusive.
    pub const dmModeExclusive: u16 = 0x0008;
    /// Mode: show secret records.
    pub const dmModeShowSecret: u16 = 0x0010;

    /// Header attribute: resource database.
    pub const dmHdrAttrResDB: u16 = 0x0001;
    /// Header attribute: read only.
    pub const dmHdrAttrReadOnly: u16 = 0x0002;
    /// Header attribute: AppInfo block dirty.
    pub const dmHdrAttrAppInfoDirty: u16 = 0x0004;
    /// Header attribute: back up at HotSync.
    pub const dmHdrAttrBackup: u16 = 0x0008;
    /// Header attribute: OK to install a newer version.
    pub const dmHdrAttrOKToInstallNewer: u16 = 0x0010;
    /// Header attribute: reset after install.
    pub const dmHdrAttrResetAfterInstall: u16 = 0x0020;
    /// Header attribute: no beaming.
    pub const dmHdrAttrCopyPrevention: u16 = 0x0040;
    /// Header attribute: file stream.
    pub const dmHdrAttrStream: u16 = 0x0080;
    /// Header attribute: hidden.
    pub const dmHdrAttrHidden: u16 = 0x0100;
    /// Header attribute: launchable data database.
    pub const dmHdrAttrLaunchableData: u16 = 0x0200;
    /// Header attribute: not closed properly.
    pub const dmHdrAttrOpen: u16 = 0x8000;

    /// Record attribute: delete at next sync.
    pub const dmRecAttrDelete: u8 = 0x80;
    /// Record attribute: dirty.
    pub const dmRecAttrDirty: u8 = 0x40;
    /// Record attribute: busy.
    pub const dmRecAttrBusy: u8 = 0x20;
    /// Record attribute: secret.
    pub const dmRecAttrSecret: u8 = 0x10;
    /// Record attribute mask of the category.
    pub const dmRecAttrCategoryMask: u8 = 0x0F;
    /// All categories.
    pub const dmAllCategories: u16 = 0xFF;
    /// The Unfiled category.
    pub const dmUnfiledCategory: u16 = 0;
    /// Database name buffer size: 31 characters + NUL.
    pub const dmDBNameLength: usize = 32;
    /// `DmNewRecord` index: append at the end (DataMgr.h `dmMaxRecordIndex`).
    pub const dmMaxRecordIndex: u16 = 0xFFFF;
}

/// System sounds (`SndSysBeepType`, SoundMgr.h; PALM_FACTS §4.4).
pub mod sounds {
    use super::SndSysBeepType;
    /// Information.
    pub const sndInfo: SndSysBeepType = 1;
    /// Warning.
    pub const sndWarning: SndSysBeepType = 2;
    /// Error (played by the startup code when `SysAppStartup` fails).
    pub const sndError: SndSysBeepType = 3;
    /// Start-up.
    pub const sndStartUp: SndSysBeepType = 4;
    /// Alarm.
    pub const sndAlarm: SndSysBeepType = 5;
    /// Confirmation.
    pub const sndConfirmation: SndSysBeepType = 6;
    /// Click.
    pub const sndClick: SndSysBeepType = 7;
}

/// `SysFatalAlert` results (`FatalAlert.h`).
pub mod fatal {
    /// The user chose Reset.
    pub const fatalReset: u16 = 0;
    /// The user chose Debug.
    pub const fatalEnterDebugger: u16 = 1;
    /// Continue.
    pub const fatalDoNothing: u16 = 0xFFFF;
}

/// Application database type `'appl'` (`sysFileTApplication`, SystemResources.h).
pub const sysFileTApplication: u32 = four_cc(b"appl");
