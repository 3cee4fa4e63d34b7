//! Host tests of the generated trap table and constants against PALM_FACTS.md §4 and the
//! SDK prototypes.

use m68k_palmos_sys::table::{ArgKind, RetKind, TRAPS, trap_by_name, trap_info};
use m68k_palmos_sys::traps;

use ArgKind::{Ptr, U8, U16, U32};

#[test]
fn sorted_by_word_with_unique_words_and_names() {
    assert!(TRAPS.len() >= 200, "{} traps", TRAPS.len());
    for w in TRAPS.windows(2) {
        assert!(w[0].trap < w[1].trap, "{} / {}", w[0].name, w[1].name);
    }
    let mut names: Vec<&str> = TRAPS.iter().map(|t| t.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), TRAPS.len());
    for t in TRAPS {
        assert!((0xA000..0xA800).contains(&t.trap), "{}", t.name);
        let at = t
            .prototype
            .find(&format!("{}(", t.name))
            .expect(t.prototype);
        assert!(
            matches!(&t.prototype[at - 1..at], " " | "*"),
            "{}",
            t.prototype
        );
        assert!(t.header.ends_with(".h"));
        assert!(t.args.iter().all(|a| !a.name.is_empty()));
    }
}

#[test]
fn each_trap_knows_its_line_in_the_table() {
    let text = include_str!("../traps.tbl");
    let lines: Vec<&str> = text.lines().collect();
    for t in TRAPS {
        let l = lines[t.line as usize - 1];
        assert!(
            l.starts_with(&format!("0x{:04X} ", t.trap)) && l.contains(t.prototype),
            "{} at traps.tbl:{}: {l}",
            t.name,
            t.line
        );
    }
    assert!(trap_by_name("MemChunkFree").unwrap().line > 20);
}

/// Every trap number PALM_FACTS.md §4.1–§4.4 lists (including the "Also" lists), plus
/// those the runner, memdbg and the starter app name.
const FACTS: &[(&str, u16)] = &[
    ("MemPtrNew", 0xA013),
    ("MemHandleNew", 0xA01E),
    ("MemChunkFree", 0xA012),
    ("MemChunkNew", 0xA011),
    ("MemHandleFree", 0xA02B),
    ("MemHandleLock", 0xA021),
    ("MemHandleUnlock", 0xA022),
    ("MemPtrUnlock", 0xA035),
    ("MemHandleResize", 0xA033),
    ("MemPtrResize", 0xA01C),
    ("MemPtrSize", 0xA016),
    ("MemHandleSize", 0xA02D),
    ("MemPtrRecoverHandle", 0xA014),
    ("MemHeapFreeBytes", 0xA00B),
    ("MemHeapID", 0xA009),
    ("MemPtrHeapID", 0xA018),
    ("MemHandleHeapID", 0xA02F),
    ("MemSet", 0xA027),
    ("MemMove", 0xA026),
    ("MemCmp", 0xA2D7),
    ("MemSemaphoreReserve", 0xA03C),
    ("MemSemaphoreRelease", 0xA03D),
    ("MemHandleLockCount", 0xA01F),
    ("MemPtrOwner", 0xA017),
    ("MemHandleOwner", 0xA02E),
    ("MemPtrSetOwner", 0xA01B),
    ("MemHandleSetOwner", 0xA032),
    ("MemHeapFreeByOwnerID", 0xA010),
    ("MemNumHeaps", 0xA007),
    ("MemHeapSize", 0xA00C),
    ("MemHeapDynamic", 0xA03E),
    ("MemHeapCheck", 0xA039),
    ("MemHeapScramble", 0xA038),
    ("MemSetDebugMode", 0xA037),
    ("MemDebugMode", 0xA03B),
    ("MemHandleToLocalID", 0xA020),
    ("MemLocalIDToLockedPtr", 0xA036),
    ("MemPtrResetLock", 0xA01D),
    ("MemHandleResetLock", 0xA034),
    ("DmCreateDatabase", 0xA041),
    ("DmDeleteDatabase", 0xA042),
    ("DmFindDatabase", 0xA045),
    ("DmOpenDatabase", 0xA049),
    ("DmOpenDatabaseByTypeCreator", 0xA075),
    ("DmCloseDatabase", 0xA04A),
    ("DmNewRecord", 0xA055),
    ("DmWrite", 0xA076),
    ("DmReleaseRecord", 0xA05E),
    ("DmRemoveRecord", 0xA056),
    ("DmNumRecords", 0xA04F),
    ("DmGetRecord", 0xA05C),
    ("DmQueryRecord", 0xA05B),
    ("DmFindRecordByID", 0xA07B),
    ("DmDatabaseInfo", 0xA046),
    ("DmGetResource", 0xA05F),
    ("DmGet1Resource", 0xA060),
    ("DmReleaseResource", 0xA061),
    ("DmNextOpenDatabase", 0xA04B),
    ("DmNextOpenResDatabase", 0xA063),
    ("DmOpenDatabaseInfo", 0xA04C),
    ("DmGetLastErr", 0xA04E),
    ("DmDeleteRecord", 0xA057),
    ("DmRecordInfo", 0xA050),
    ("DmNewHandle", 0xA059),
    ("DmAttachRecord", 0xA052),
    ("DmResizeRecord", 0xA05D),
    ("DmSet", 0xA07E),
    ("DmNumResources", 0xA067),
    ("DmNewResource", 0xA06C),
    ("DmSetDatabaseInfo", 0xA047),
    ("DmGetNextDatabaseByTypeCreator", 0xA078),
    ("DmWriteCheck", 0xA079),
    ("DmStrCopy", 0xA077),
    ("SysGetTrapAddress", 0xA093),
    ("SysSetTrapAddress", 0xA092),
    ("SysAppStartup", 0xA08F),
    ("SysAppExit", 0xA090),
    ("SysAppLaunch", 0xA08E),
    ("SysUIAppSwitch", 0xA0A7),
    ("SysCurAppDatabase", 0xA0AC),
    ("SysHandleEvent", 0xA0A9),
    ("SysFatalAlert", 0xA0AD),
    ("SysReset", 0xA08C),
    ("FtrGet", 0xA27B),
    ("FtrSet", 0xA27C),
    ("FtrUnregister", 0xA27A),
    ("FtrPtrNew", 0xA35A),
    ("FtrPtrFree", 0xA35B),
    ("ErrDisplayFileLineMsg", 0xA084),
    ("StrCopy", 0xA0C5),
    ("StrLen", 0xA0C7),
    ("StrPrintF", 0xA2DE),
    ("StrVPrintF", 0xA2DF),
    ("StrIToA", 0xA0C9),
    ("StrIToH", 0xA0CB),
    ("TimGetTicks", 0xA0F7),
    ("DbgMessage", 0xA081),
    ("EvtGetEvent", 0xA11D),
    ("MenuHandleEvent", 0xA1BF),
    ("FrmGotoForm", 0xA19B),
    ("FrmInitForm", 0xA16F),
    ("FrmDeleteForm", 0xA170),
    ("FrmSetActiveForm", 0xA174),
    ("FrmGetActiveForm", 0xA173),
    ("FrmDrawForm", 0xA171),
    ("FrmDispatchEvent", 0xA1A0),
    ("FrmSetEventHandler", 0xA19F),
    ("FrmGetObjectIndex", 0xA180),
    ("FrmGetObjectPtr", 0xA183),
    ("FrmCloseAllForms", 0xA1A1),
    ("FrmAlert", 0xA192),
    ("FrmCustomAlert", 0xA194),
    ("FldSetTextHandle", 0xA158),
    ("FldGetTextHandle", 0xA153),
    ("FldDrawField", 0xA135),
    ("WinDrawChars", 0xA220),
    ("SndPlaySystemSound", 0xA234),
    ("FrmHandleEvent", 0xA17A),
    ("FrmGetFormId", 0xA17D),
    ("FrmEraseForm", 0xA172),
    ("FrmReturnToForm", 0xA19E),
    ("FrmPopupForm", 0xA19C),
    ("EvtAddEventToQueue", 0xA11B),
    ("FldSetTextPtr", 0xA159),
    ("FldGetTextPtr", 0xA139),
    ("WinEraseRectangle", 0xA219),
    ("SysRandom", 0xA0C2),
    ("SysTaskDelay", 0xA0A0),
    ("TimGetSeconds", 0xA0F5),
    ("HostControl", 0xA344),
];

#[test]
fn every_trap_in_palm_facts_has_its_number() {
    for (name, word) in FACTS {
        let t = trap_by_name(name).unwrap_or_else(|| panic!("{name} missing from traps.tbl"));
        assert_eq!(t.trap, *word, "{name}");
        assert_eq!(trap_info(*word).map(|t| t.name), Some(*name));
    }
}

#[test]
fn constants_match_the_table() {
    assert_eq!(traps::sysTrapMemPtrNew, 0xA013);
    assert_eq!(traps::sysTrapMemChunkFree, 0xA012);
    assert_eq!(traps::sysTrapMemHandleFree, 0xA02B);
    assert_eq!(traps::sysTrapSysSetTrapAddress, 0xA092);
    assert_eq!(traps::sysTrapDmDatabaseInfo, 0xA046);
    assert_eq!(traps::sysTrapHostControl, 0xA344);
    assert_eq!(traps::sysTrapBase, 0xA000);
    assert_eq!(traps::sysLibTrapBase, 0xA800);
    assert_eq!(trap_by_name("DmWrite").unwrap().trap, traps::sysTrapDmWrite);
}

fn sig(name: &str) -> (Vec<ArgKind>, RetKind, bool) {
    let t = trap_by_name(name).unwrap();
    (t.args.iter().map(|a| a.kind).collect(), t.ret, t.variadic)
}

#[test]
fn argument_widths_and_results_follow_the_sdk_prototypes() {
    assert_eq!(sig("MemPtrNew"), (vec![U32], RetKind::Ptr, false));
    assert_eq!(sig("MemHandleNew"), (vec![U32], RetKind::Ptr, false));
    assert_eq!(sig("MemChunkFree"), (vec![Ptr], RetKind::U16, false));
    assert_eq!(sig("MemHandleFree"), (vec![Ptr], RetKind::U16, false));
    assert_eq!(
        sig("MemChunkNew"),
        (vec![U16, U32, U16], RetKind::Ptr, false)
    );
    assert_eq!(sig("MemSet"), (vec![Ptr, U32, U8], RetKind::U16, false));
    assert_eq!(sig("MemCmp"), (vec![Ptr, Ptr, U32], RetKind::I16, false));
    assert_eq!(sig("MemHeapDynamic"), (vec![U16], RetKind::U8, false));
    assert_eq!(sig("MemSemaphoreReserve"), (vec![U8], RetKind::U16, false));
    assert_eq!(sig("MemPtrSize"), (vec![Ptr], RetKind::U32, false));
    assert_eq!(
        sig("MemHeapFreeBytes"),
        (vec![U16, Ptr, Ptr], RetKind::U16, false)
    );
    assert_eq!(
        sig("DmCreateDatabase"),
        (vec![U16, Ptr, U32, U32, U8], RetKind::U16, false)
    );
    assert_eq!(
        sig("DmReleaseRecord"),
        (vec![Ptr, U16, U8], RetKind::U16, false)
    );
    assert_eq!(sig("DmFindDatabase"), (vec![U16, Ptr], RetKind::U32, false));
    assert_eq!(
        sig("DmOpenDatabase"),
        (vec![U16, U32, U16], RetKind::Ptr, false)
    );
    assert_eq!(
        sig("DmWrite"),
        (vec![Ptr, U32, Ptr, U32], RetKind::U16, false)
    );
    assert_eq!(sig("DmSet"), (vec![Ptr, U32, U32, U8], RetKind::U16, false));
    assert_eq!(sig("DmGetResource"), (vec![U32, U16], RetKind::Ptr, false));
    let (args, ret, _) = sig("DmDatabaseInfo");
    assert_eq!(args.len(), 13);
    assert_eq!(&args[..3], &[U16, U32, Ptr]);
    assert!(args[2..].iter().all(|k| *k == Ptr));
    assert_eq!(ret, RetKind::U16);
    assert_eq!(sig("SysGetTrapAddress"), (vec![U16], RetKind::Ptr, false));
    assert_eq!(
        sig("SysSetTrapAddress"),
        (vec![U16, Ptr], RetKind::U16, false)
    );
    assert_eq!(
        sig("SysAppStartup"),
        (vec![Ptr, Ptr, Ptr], RetKind::U16, false)
    );
    assert_eq!(sig("SysHandleEvent"), (vec![Ptr], RetKind::U8, false));
    assert_eq!(sig("SysFatalAlert"), (vec![Ptr], RetKind::U16, false));
    assert_eq!(sig("SysReset"), (vec![], RetKind::Void, false));
    assert_eq!(sig("FtrGet"), (vec![U32, U16, Ptr], RetKind::U16, false));
    assert_eq!(
        sig("FtrPtrNew"),
        (vec![U32, U16, U32, Ptr], RetKind::U16, false)
    );
    assert_eq!(
        sig("ErrDisplayFileLineMsg"),
        (vec![Ptr, U16, Ptr], RetKind::Void, false)
    );
    assert_eq!(sig("StrPrintF"), (vec![Ptr, Ptr], RetKind::I16, true));
    assert_eq!(sig("HostControl"), (vec![U16], RetKind::U32, true));
    assert_eq!(sig("StrLen"), (vec![Ptr], RetKind::I16, false));
    assert_eq!(sig("StrIToA"), (vec![Ptr, U32], RetKind::Ptr, false));
    assert_eq!(sig("TimGetTicks"), (vec![], RetKind::U32, false));
    assert_eq!(sig("EvtGetEvent"), (vec![Ptr, U32], RetKind::Void, false));
    assert_eq!(sig("SndPlaySystemSound"), (vec![U8], RetKind::Void, false));
    assert_eq!(
        sig("WinDrawChars"),
        (vec![Ptr, U16, U16, U16], RetKind::Void, false)
    );
    assert_eq!(sig("FrmAlert"), (vec![U16], RetKind::U16, false));
    assert_eq!(
        sig("FrmCustomAlert"),
        (vec![U16, Ptr, Ptr, Ptr], RetKind::U16, false)
    );
    assert_eq!(
        sig("FrmSetEventHandler"),
        (vec![Ptr, Ptr], RetKind::Void, false)
    );
    assert_eq!(sig("FrmInitForm"), (vec![U16], RetKind::Ptr, false));
    assert_eq!(
        sig("MenuHandleEvent"),
        (vec![Ptr, Ptr, Ptr], RetKind::U8, false)
    );
    assert_eq!(
        sig("FldSetTextHandle"),
        (vec![Ptr, Ptr], RetKind::Void, false)
    );
}

#[test]
fn argument_names_and_stack_bytes() {
    let free = trap_info(0xA012).unwrap();
    assert_eq!(free.name, "MemChunkFree");
    assert_eq!(free.args[0].name, "chunkDataP");
    assert_eq!(free.args_stack_bytes(), 4);
    assert_eq!(free.header, "System/MemoryMgr.h");
    assert_eq!(free.prototype, "Err MemChunkFree(MemPtr chunkDataP)");
    let rr = trap_by_name("DmReleaseRecord").unwrap();
    let names: Vec<&str> = rr.args.iter().map(|a| a.name).collect();
    assert_eq!(names, ["dbP", "index", "dirty"]);
    assert_eq!(rr.args_stack_bytes(), 8);
    assert_eq!(
        trap_by_name("DmDatabaseInfo").unwrap().args_stack_bytes(),
        50
    );
    assert_eq!(trap_by_name("StrPrintF").unwrap().args_stack_bytes(), 8);
    assert_eq!(trap_by_name("TimGetTicks").unwrap().args_stack_bytes(), 0);
    assert_eq!(
        trap_by_name("DmCreateDatabase").unwrap().args[3].name,
        "type"
    );
    assert_eq!(
        [U8, U16, U32, Ptr].map(ArgKind::stack_bytes),
        [2, 2, 4, 4],
        "8-bit arguments take a 2-byte slot"
    );
    assert!(
        trap_info(0xA001).is_none(),
        "MemInitHeapTable is not in the table"
    );
    assert!(trap_info(0xA800).is_none());
    assert!(trap_by_name("NoSuchTrap").is_none());
}
