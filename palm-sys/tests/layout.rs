//! Host tests of the Palm structure layouts: every field offset (PALM_FACTS.md §2.4,
//! §4.6), identical to the 68k layout because the host build packs to 2 bytes and
//! represents 68k pointers as 4-byte addresses.

use core::mem::{offset_of, size_of};
use m68k_palmos_sys::*;

#[test]
fn sys_app_info_type_offsets() {
    assert_eq!(size_of::<SysAppInfoType>(), 60);
    let offsets = [
        offset_of!(SysAppInfoType, cmd),
        offset_of!(SysAppInfoType, cmdPBP),
        offset_of!(SysAppInfoType, launchFlags),
        offset_of!(SysAppInfoType, taskID),
        offset_of!(SysAppInfoType, codeH),
        offset_of!(SysAppInfoType, dbP),
        offset_of!(SysAppInfoType, stackP),
        offset_of!(SysAppInfoType, globalsChunkP),
        offset_of!(SysAppInfoType, memOwnerID),
        offset_of!(SysAppInfoType, dmAccessP),
        offset_of!(SysAppInfoType, dmLastErr),
        offset_of!(SysAppInfoType, errExceptionP),
        offset_of!(SysAppInfoType, a5Ptr),
        offset_of!(SysAppInfoType, stackEndP),
        offset_of!(SysAppInfoType, globalEndP),
        offset_of!(SysAppInfoType, rootP),
        offset_of!(SysAppInfoType, extraP),
    ];
    assert_eq!(
        offsets,
        [
            0, 2, 6, 8, 12, 16, 20, 24, 28, 30, 34, 36, 40, 44, 48, 52, 56
        ]
    );
}

#[test]
fn event_type_offsets() {
    assert_eq!(size_of::<EventType>(), 24);
    assert_eq!(size_of::<EventData>(), 16);
    assert_eq!(
        [
            offset_of!(EventType, eType),
            offset_of!(EventType, penDown),
            offset_of!(EventType, tapCount),
            offset_of!(EventType, screenX),
            offset_of!(EventType, screenY),
            offset_of!(EventType, data),
        ],
        [0, 2, 3, 4, 6, 8]
    );
    // Union members, as offsets from the start of the event (PALM_FACTS §4.6).
    let d = offset_of!(EventType, data);
    assert_eq!(d + offset_of!(KeyDownEventData, chr), 8);
    assert_eq!(d + offset_of!(KeyDownEventData, keyCode), 10);
    assert_eq!(d + offset_of!(KeyDownEventData, modifiers), 12);
    assert_eq!(d + offset_of!(PenUpEventData, start), 8);
    assert_eq!(d + offset_of!(PenUpEventData, end), 12);
    assert_eq!(size_of::<CtlSelectEventData>(), 10);
    assert_eq!(d + offset_of!(CtlSelectEventData, controlID), 8);
    assert_eq!(d + offset_of!(CtlSelectEventData, pControl), 10);
    assert_eq!(d + offset_of!(CtlSelectEventData, on), 14);
    assert_eq!(d + offset_of!(CtlSelectEventData, reserved1), 15);
    assert_eq!(d + offset_of!(CtlSelectEventData, value), 16);
    assert_eq!(d + offset_of!(CtlEnterEventData, pControl), 10);
    assert_eq!(d + offset_of!(FldEventData, fieldID), 8);
    assert_eq!(d + offset_of!(FldEventData, pField), 10);
    assert_eq!(d + offset_of!(LstSelectEventData, pList), 10);
    assert_eq!(d + offset_of!(LstSelectEventData, selection), 14);
    assert_eq!(d + offset_of!(FormIdEventData, formID), 8);
    assert_eq!(d + offset_of!(FrmUpdateEventData, formID), 8);
    assert_eq!(d + offset_of!(FrmUpdateEventData, updateCode), 10);
    assert_eq!(d + offset_of!(MenuEventData, itemID), 8);
    assert_eq!(size_of::<PopSelectEventData>(), 16);
    assert_eq!(
        [
            offset_of!(PopSelectEventData, controlID),
            offset_of!(PopSelectEventData, controlP),
            offset_of!(PopSelectEventData, listID),
            offset_of!(PopSelectEventData, listP),
            offset_of!(PopSelectEventData, selection),
            offset_of!(PopSelectEventData, priorSelection),
        ],
        [0, 2, 6, 8, 12, 14]
    );
}

#[test]
fn small_structures() {
    assert_eq!(size_of::<PointType>(), 4);
    assert_eq!(offset_of!(PointType, y), 2);
    assert_eq!(size_of::<RectangleType>(), 8);
    assert_eq!(offset_of!(RectangleType, extent), 4);
    assert_eq!(size_of::<DmSearchStateType>(), 32);
    assert_eq!(size_of::<PalmPtr<u8>>(), 4);
}

#[test]
fn event_accessors_read_the_union() {
    let mut e = EventType::zeroed();
    assert_eq!(e.eType, events::nilEvent);
    assert_eq!(e.generic(), [0; 8]);
    e.eType = events::ctlSelectEvent;
    e.data.ctlSelect = CtlSelectEventData {
        controlID: 1001,
        pControl: PalmPtr::new(0x0001_2340),
        on: 1,
        reserved1: 0,
        value: 7,
    };
    let c = e.ctl_select();
    assert_eq!(
        (c.controlID, c.pControl.addr, c.on, c.value),
        (1001, 0x0001_2340, 1, 7)
    );
    assert_eq!(e.form_id(), 1001, "formID shares the first word");
    e.data.keyDown = KeyDownEventData {
        chr: 0x41,
        keyCode: 2,
        modifiers: 8,
    };
    assert_eq!(
        e.key_down(),
        KeyDownEventData {
            chr: 0x41,
            keyCode: 2,
            modifiers: 8
        }
    );
    e.data.frmUpdate = FrmUpdateEventData {
        formID: 1000,
        updateCode: 0x55,
    };
    assert_eq!(e.frm_update().updateCode, 0x55);
    e.data.menu = MenuEventData { itemID: 2001 };
    assert_eq!(e.menu_item(), 2001);
    e.data.penUp = PenUpEventData {
        start: PointType { x: 1, y: 2 },
        end: PointType { x: -3, y: 4 },
    };
    assert_eq!(e.pen_up().end, PointType { x: -3, y: 4 });
    e.data.fldChanged = FldEventData {
        fieldID: 1100,
        pField: PalmPtr::new(0x20),
    };
    assert_eq!(e.fld().fieldID, 1100);
    e.data.lstSelect = LstSelectEventData {
        listID: 5,
        pList: PalmPtr::new(0x30),
        selection: -1,
    };
    assert_eq!(e.lst_select().selection, -1);
    e.data.popSelect = PopSelectEventData {
        controlID: 1,
        controlP: PalmPtr::new(2),
        listID: 3,
        listP: PalmPtr::new(4),
        selection: 5,
        priorSelection: 6,
    };
    assert_eq!(e.pop_select().priorSelection, 6);
    e.data.ctlEnter = CtlEnterEventData {
        controlID: 9,
        pControl: PalmPtr::new(0),
    };
    assert_eq!(e.ctl_enter().controlID, 9);
}

#[test]
fn constants_from_the_sdk() {
    use errors::*;
    assert_eq!(errNone, 0);
    assert_eq!(memErrNotEnoughSpace, 0x0102);
    assert_eq!(memErrInvalidParam, 0x0103);
    assert_eq!(memErrROMOnlyCard, 0x010C);
    assert_eq!(dmErrCantFind, 0x0207);
    assert_eq!(dmErrAlreadyExists, 0x0219);
    assert_eq!(dmErrDatabaseNotProtected, 0x021C);
    assert_eq!(sysErrParamErr, 0x0502);
    assert_eq!(sysErrNotAllowed, 0x0505);
    assert_eq!(sysErrOutOfOwnerIDs, 0x0508);
    assert_eq!(sysErrLibNotFound, 0x050A);
    assert_eq!(ftrErrNoSuchFeature, 0x0C02);
    assert_eq!(ftrErrInternalErr, 0x0C05);
    assert_eq!(appErrorClass, 0x8000);
    assert_eq!(launch::sysAppLaunchFlagNewGlobals, 0x04);
    assert_eq!(launch::sysAppLaunchFlagDataRelocated, 0x80);
    assert_eq!(launch::sysAppLaunchCmdSystemReset, 5);
    assert_eq!(launch::sysAppLaunchCmdCustomBase, 0x8000);
    assert_eq!(events::ctlSelectEvent, 9);
    assert_eq!(events::menuEvent, 21);
    assert_eq!(events::appStopEvent, 22);
    assert_eq!(events::frmLoadEvent, 23);
    assert_eq!(events::frmOpenEvent, 24);
    assert_eq!(events::frmCloseEvent, 28);
    assert_eq!(events::tsmConfirmEvent, 35);
    assert_eq!(events::firstUserEvent, 0x6000);
    assert_eq!(events::evtWaitForever, -1);
    assert_eq!(mem::memNewChunkFlagNonMovable, 0x0200);
    assert_eq!(mem::memDebugModeRecordMinDynHeapFree, 0x0040);
    assert_eq!(dm::dmModeReadWrite, 0x0003);
    assert_eq!(dm::dmHdrAttrResDB, 0x0001);
    assert_eq!(dm::dmHdrAttrOpen, 0x8000);
    assert_eq!(dm::dmRecAttrDelete, 0x80);
    assert_eq!(sounds::sndError, 3);
    assert_eq!(sounds::sndClick, 7);
    assert_eq!(fatal::fatalDoNothing, 0xFFFF);
    assert_eq!(sysFileTApplication, 0x6170_706C);
    assert_eq!(four_cc(b"memd"), 0x6D65_6D64);
    assert_eq!(&four_cc_bytes(0x6D65_6D64), b"memd");
}

#[test]
fn allocator_alignment_math() {
    use core::alloc::Layout;
    use m68k_palmos_sys::allocator::{aligned_offset, chunk_size};
    let l = |size, align| Layout::from_size_align(size, align).unwrap();
    assert_eq!(chunk_size(l(10, 1)), Some(10));
    assert_eq!(chunk_size(l(10, 2)), Some(10));
    assert_eq!(chunk_size(l(8, 4)), Some(12));
    assert_eq!(chunk_size(l(8, 16)), Some(24));
    assert_eq!(chunk_size(l(8, 0x1_0000)), None);
    // The returned pointer is aligned, at least 2 bytes in, and at most `align` in.
    for base in (0x1000..0x1040).step_by(2) {
        for align in [4, 8, 16, 32] {
            let off = aligned_offset(base, align);
            assert_eq!((base + off) % align, 0);
            assert!(
                (2..=align).contains(&off),
                "base {base:#x} align {align}: {off}"
            );
        }
    }
    assert_eq!(aligned_offset(0x40002, 4), 2);
    assert_eq!(aligned_offset(0x40000, 4), 4);
}

#[test]
fn va_list_of_a_palm_layout_block() {
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Va {
        a: u16,
        b: u16,
        c: u32,
    }
    let v = Va { a: 1, b: 2, c: 3 };
    let va = PalmVaList::new(&v);
    assert_eq!(va.len_bytes(), 8);
    assert_eq!(va.as_ptr(), (&v as *const Va).cast());
    assert_eq!(PalmVaList::EMPTY.len_bytes(), 0);
}

#[test]
#[should_panic(expected = "MemPtrNew needs Palm OS")]
fn glue_panics_off_the_68k() {
    // SAFETY: on the host the glue only panics.
    unsafe { MemPtrNew(4) };
}
