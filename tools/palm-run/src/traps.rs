//! The handler registry: one native function per trap, named exactly as the
//! SDK names the trap, checked against the trap table (the amitools
//! `LibImplScanner` idea): a handler whose name is not in the table is an
//! error ([`scan`] reports it and a test fails), a table entry without a
//! handler is a known gap (reported by [`scan`]; calling it at run time stops
//! the app naming the trap).

use crate::machine::Handler;
use crate::{data_mgr, ftr_mgr, lists, mem_mgr, str_mgr, sys, table, ui};

macro_rules! handlers {
    (
        direct: [$($module:ident :: $name:ident),* $(,)?],
        shared: [$($trap:ident => $smodule:ident :: $sname:ident),* $(,)?] $(,)?
    ) => {
        /// Every native handler, by SDK trap name: functions named as the trap,
        /// then traps that share a handler (no-ops, aliases).
        pub static HANDLERS: &[(&str, Handler)] = &[
            $((stringify!($name), $module::$name as Handler),)*
            $((stringify!($trap), $smodule::$sname as Handler),)*
        ];
    };
}

handlers! {
  direct: [
    mem_mgr::MemPtrNew, mem_mgr::MemHandleNew, mem_mgr::MemChunkNew, mem_mgr::MemChunkFree,
    mem_mgr::MemHandleFree, mem_mgr::MemHandleLock, mem_mgr::MemHandleUnlock, mem_mgr::MemPtrUnlock,
    mem_mgr::MemHandleResize, mem_mgr::MemPtrResize, mem_mgr::MemPtrSize, mem_mgr::MemHandleSize,
    mem_mgr::MemPtrRecoverHandle, mem_mgr::MemHandleLockCount, mem_mgr::MemPtrOwner,
    mem_mgr::MemHandleOwner, mem_mgr::MemPtrSetOwner, mem_mgr::MemHandleSetOwner,
    mem_mgr::MemPtrResetLock, mem_mgr::MemHandleResetLock, mem_mgr::MemHeapFreeBytes,
    mem_mgr::MemHeapFreeByOwnerID, mem_mgr::MemNumHeaps, mem_mgr::MemHeapID, mem_mgr::MemPtrHeapID,
    mem_mgr::MemHandleHeapID, mem_mgr::MemHeapPtr, mem_mgr::MemHeapSize, mem_mgr::MemHeapDynamic, mem_mgr::MemHeapCheck,
    mem_mgr::MemHandleToLocalID, mem_mgr::MemLocalIDToLockedPtr, mem_mgr::MemSetDebugMode,
    mem_mgr::MemDebugMode, mem_mgr::MemSet, mem_mgr::MemMove, mem_mgr::MemCmp,
    mem_mgr::MemSemaphoreReserve, mem_mgr::MemSemaphoreRelease,
    data_mgr::DmCreateDatabase, data_mgr::DmDeleteDatabase, data_mgr::DmFindDatabase,
    data_mgr::DmOpenDatabase, data_mgr::DmOpenDatabaseByTypeCreator, data_mgr::DmCloseDatabase,
    data_mgr::DmNextOpenDatabase, data_mgr::DmOpenDatabaseInfo, data_mgr::DmGetLastErr,
    data_mgr::DmDatabaseInfo, data_mgr::DmSetDatabaseInfo, data_mgr::DmNewRecord,
    data_mgr::DmReleaseRecord, data_mgr::DmRemoveRecord, data_mgr::DmDeleteRecord,
    data_mgr::DmNumRecords, data_mgr::DmNumResources, data_mgr::DmGetRecord, data_mgr::DmQueryRecord,
    data_mgr::DmResizeRecord, data_mgr::DmFindRecordByID, data_mgr::DmRecordInfo, data_mgr::DmWrite,
    data_mgr::DmSet, data_mgr::DmStrCopy, data_mgr::DmGetResource, data_mgr::DmGet1Resource,
    data_mgr::DmReleaseResource,
    ftr_mgr::FtrGet, ftr_mgr::FtrSet, ftr_mgr::FtrUnregister, ftr_mgr::FtrPtrNew, ftr_mgr::FtrPtrFree,
    sys::SysGetTrapAddress, sys::SysSetTrapAddress, sys::SysAppStartup, sys::SysAppExit,
    sys::SysCurAppDatabase, sys::ErrDisplayFileLineMsg, sys::SysFatalAlert, sys::DbgMessage,
    sys::TimGetTicks, sys::TimGetSeconds, sys::SysTaskDelay, sys::SysRandom, sys::SndPlaySystemSound,
    str_mgr::StrCopy, str_mgr::StrLen, str_mgr::StrIToA, str_mgr::StrIToH, str_mgr::StrPrintF,
    ui::EvtGetEvent, ui::EvtAddEventToQueue, ui::SysHandleEvent, ui::MenuHandleEvent,
    ui::FrmGotoForm, ui::FrmInitForm, ui::FrmDeleteForm, ui::FrmSetActiveForm, ui::FrmGetActiveForm,
    ui::FrmGetFormId, ui::FrmDrawForm, ui::FrmEraseForm, ui::FrmSetEventHandler, ui::FrmHandleEvent,
    ui::FrmDispatchEvent, ui::FrmCloseAllForms, ui::FrmGetObjectIndex, ui::FrmGetObjectPtr,
    ui::FrmAlert, ui::FrmCustomAlert, ui::FldSetTextHandle, ui::FldGetTextHandle, ui::FldSetTextPtr,
    ui::FldGetTextPtr, ui::FldDrawField, ui::WinDrawChars, ui::WinEraseRectangle,
    ui::FldInsert, ui::FldDelete, ui::FldSetText, ui::FldGetTextLength, ui::FldGetMaxChars,
    ui::FldSetMaxChars, ui::FldDirty, ui::FldSetDirty, ui::FldFreeMemory, ui::FldGetSelection,
    ui::FldSetSelection, ui::FldSetInsPtPosition, ui::FldEraseField, ui::FldRecalculateField,
    ui::FldHandleEvent, ui::FrmGetFocus, ui::FrmSetFocus, ui::FrmGetActiveFormID,
    ui::FrmGetFormPtr, ui::FrmGetNumberOfObjects, ui::FrmGetObjectId, ui::FrmGetTitle,
    ui::FrmSetTitle, ui::FrmCopyTitle, ui::FrmUpdateForm, ui::FrmPopupForm, ui::FrmReturnToForm,
    ui::FrmDoDialog, ui::CtlGetValue, ui::CtlSetValue, ui::CtlGetLabel, ui::CtlSetLabel,
    ui::CtlHitControl, ui::CtlDrawControl, ui::FrmGetControlValue, ui::FrmSetControlValue, ui::FrmHideObject,
    ui::FrmShowObject, ui::FrmGetWindowHandle, ui::WinGetActiveWindow, ui::WinGetDrawWindow,
    ui::WinSetDrawWindow, ui::WinSetActiveWindow, ui::WinGetDisplayExtent,
    ui::WinDrawInvertedChars, ui::FntLineHeight, ui::FntCharsWidth, ui::MenuInit,
    ui::MenuDispose, ui::MenuGetActiveMenu, ui::MenuSetActiveMenu, ui::MenuSetActiveMenuRscID,
    ui::EvtEventAvail, ui::EvtCopyEvent,
    str_mgr::StrCat, str_mgr::StrNCat, str_mgr::StrNCopy, str_mgr::StrCompare,
    str_mgr::StrNCompare, str_mgr::StrCaselessCompare, str_mgr::StrChr, str_mgr::StrStr,
    str_mgr::StrAToI, str_mgr::StrVPrintF,
    sys::SysTicksPerSecond, sys::TimSetSeconds, sys::SysGetOSVersionString, sys::SysReset,
    sys::SysUIAppSwitch,
    data_mgr::DmNumDatabases, data_mgr::DmGetDatabase, data_mgr::DmDatabaseSize,
    data_mgr::DmSetRecordInfo, data_mgr::DmNewHandle, data_mgr::DmAttachRecord,
    data_mgr::DmDetachRecord, data_mgr::DmMoveRecord, data_mgr::DmNumRecordsInCategory,
    data_mgr::DmQueryNextInCategory, data_mgr::DmWriteCheck, data_mgr::DmNextOpenResDatabase,
    data_mgr::DmGetNextDatabaseByTypeCreator, data_mgr::DmFindResourceType,
    data_mgr::DmFindResource, data_mgr::DmGetResourceIndex, data_mgr::DmResourceInfo,
    data_mgr::DmSetResourceInfo, data_mgr::DmNewResource, data_mgr::DmRemoveResource,
    data_mgr::DmResizeResource, data_mgr::DmDatabaseProtect, data_mgr::DmSearchRecord,
    data_mgr::DmOpenDBNoOverlay, sys::SysLibFind,
    mem_mgr::MemNumRAMHeaps, mem_mgr::MemHeapFlags, mem_mgr::MemHeapCompact,
    mem_mgr::MemPtrToLocalID, mem_mgr::MemHeapScramble, mem_mgr::MemLocalIDToGlobal, mem_mgr::MemCardInfo,
    ftr_mgr::FtrGetByIndex, ftr_mgr::FtrPtrResize,
    lists::LstGetSelection, lists::LstSetSelection, lists::LstGetSelectionText,
    lists::LstGetNumberOfItems, lists::LstGetVisibleItems, lists::LstSetListChoices,
    lists::LstSetHeight, lists::LstSetTopItem, lists::LstMakeItemVisible, lists::LstDrawList,
    lists::LstEraseList, lists::LstPopupList, lists::LstHandleEvent,
    lists::SclGetScrollBar, lists::SclSetScrollBar, lists::SclDrawScrollBar, lists::SclHandleEvent,
  ],
  shared: [
    WinEraseWindow => ui::no_op, WinDrawLine => ui::no_op, WinDrawRectangle => ui::no_op,
    WinDrawRectangleFrame => ui::no_op, WinPushDrawState => ui::no_op,
    WinPopDrawState => ui::no_op, MenuDrawMenu => ui::no_op, MenuEraseStatus => ui::no_op,
    EvtResetAutoOffTimer => ui::no_op, EvtFlushPenQueue => ui::no_op,
    WinEraseChars => ui::WinDrawInvertedChars,
  ],
}

/// The result of checking [`HANDLERS`] against the trap table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    /// Handlers whose trap is in the table.
    pub valid: Vec<&'static str>,
    /// Table entries without a handler (known gaps).
    pub missing: Vec<&'static str>,
    /// Handlers whose name is not in the table (errors).
    pub invalid: Vec<&'static str>,
}

/// Check the handlers against the table.
pub fn scan() -> Scan {
    let mut valid = Vec::new();
    let mut invalid = Vec::new();
    for &(name, _) in HANDLERS {
        if table::TRAPS.iter().any(|t| t.name == name) {
            valid.push(name);
        } else {
            invalid.push(name);
        }
    }
    let missing = table::TRAPS
        .iter()
        .filter(|t| !HANDLERS.iter().any(|&(n, _)| n == t.name))
        .map(|t| t.name)
        .collect();
    Scan {
        valid,
        missing,
        invalid,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_handler_is_in_the_table() {
        let s = super::scan();
        assert!(
            s.invalid.is_empty(),
            "handlers not in the trap table: {:?}",
            s.invalid
        );
        assert_eq!(s.valid.len(), super::HANDLERS.len());
        assert!(s.valid.contains(&"MemHandleFree"));
    }
}
