/*
 * palm-sys.h: Palm OS 68k types, constants and system calls for GNU C
 * (Debian's m68k-linux-gnu-gcc), generated from palm-sys/traps.tbl by
 * m68k_palmos_sys::c_header (PALM_SYS_BLESS=1 cargo test -p m68k-palmos-sys --test
 * c_header writes it). Do not edit.
 *
 * Compile with: m68k-linux-gnu-gcc -m68000 -mpcrel -ffixed-a5 -fno-omit-frame-pointer
 *   -ffreestanding -fno-builtin -nostdlib -ffunction-sections -fdata-sections
 *   -fno-asynchronous-unwind-tables -g (code 1 runs where the OS puts it, so every
 *   reference is PC-relative; A5 is the OS's; A6 frames are what memdbg walks),
 * and link with `palm-build c-app`. No globals: the linker script has no data 0
 * (keep state in a chunk, found through FtrGet).
 *
 * Each trap is a static inline function with the SDK's name and prototype (SDK 3.5
 * Core/ headers) whose asm pushes its arguments the Palm way (16-bit values in
 * 2-byte slots, 8-bit values in the high byte of theirs), makes the system call
 * (trap #15 and the trap word), pops them and reads a pointer result from A0,
 * anything else from D0. GNU C's convention (4-byte slots) is never used to call
 * the OS. StrPrintF and HostControl (variadic) are left out. A function the OS
 * calls back is plain C when its arguments are pointers (a form event handler,
 * Boolean handler(EventType *), lines up in both conventions).
 *
 * This is a minimal header for GNU C, not the SDK's PalmOS.h: prc-tools users keep
 * their own PalmOS.h (its compiler has the Palm convention built in). Don't mix.
 */
#ifndef PALM_SYS_H
#define PALM_SYS_H

#if !defined(__GNUC__) || !defined(__mc68000__)
#error "palm-sys.h is for GNU C targeting the 68000 (m68k-linux-gnu-gcc -m68000)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Types (PalmTypes.h and the managers' headers). */
typedef unsigned char UInt8;
typedef signed char Int8;
typedef unsigned short UInt16;
typedef short Int16;
typedef unsigned long UInt32;
typedef long Int32;
typedef UInt8 Boolean;
typedef char Char;
typedef UInt16 WChar;
typedef UInt16 Err;
typedef UInt32 LocalID;
typedef Int16 Coord;
typedef UInt32 DmResType;
typedef UInt16 DmResID;
typedef UInt16 FrameType;
typedef UInt16 HostControlTrapNumber;
typedef UInt8 SndSysBeepType;
typedef void *MemPtr;
typedef struct _opaque *MemHandle;
typedef void *DmOpenRef;
typedef char *_Palm_va_list;

_Static_assert(sizeof(UInt8) == 1, "UInt8 is 1 bytes on Palm OS");
_Static_assert(sizeof(Int8) == 1, "Int8 is 1 bytes on Palm OS");
_Static_assert(sizeof(UInt16) == 2, "UInt16 is 2 bytes on Palm OS");
_Static_assert(sizeof(Int16) == 2, "Int16 is 2 bytes on Palm OS");
_Static_assert(sizeof(UInt32) == 4, "UInt32 is 4 bytes on Palm OS");
_Static_assert(sizeof(Int32) == 4, "Int32 is 4 bytes on Palm OS");
_Static_assert(sizeof(Boolean) == 1, "Boolean is 1 bytes on Palm OS");
_Static_assert(sizeof(Char) == 1, "Char is 1 bytes on Palm OS");
_Static_assert(sizeof(WChar) == 2, "WChar is 2 bytes on Palm OS");
_Static_assert(sizeof(Err) == 2, "Err is 2 bytes on Palm OS");
_Static_assert(sizeof(LocalID) == 4, "LocalID is 4 bytes on Palm OS");
_Static_assert(sizeof(Coord) == 2, "Coord is 2 bytes on Palm OS");
_Static_assert(sizeof(DmResType) == 4, "DmResType is 4 bytes on Palm OS");
_Static_assert(sizeof(DmResID) == 2, "DmResID is 2 bytes on Palm OS");
_Static_assert(sizeof(FrameType) == 2, "FrameType is 2 bytes on Palm OS");
_Static_assert(sizeof(HostControlTrapNumber) == 2, "HostControlTrapNumber is 2 bytes on Palm OS");
_Static_assert(sizeof(SndSysBeepType) == 1, "SndSysBeepType is 1 bytes on Palm OS");
_Static_assert(sizeof(MemPtr) == 4, "MemPtr is 4 bytes on Palm OS");
_Static_assert(sizeof(MemHandle) == 4, "MemHandle is 4 bytes on Palm OS");
_Static_assert(sizeof(DmOpenRef) == 4, "DmOpenRef is 4 bytes on Palm OS");
_Static_assert(sizeof(_Palm_va_list) == 4, "_Palm_va_list is 4 bytes on Palm OS");

/* Structures used only through pointers (use the managers' calls). */
typedef struct ControlType ControlType;
typedef struct FieldType FieldType;
typedef struct FormType FormType;
typedef struct ListType ListType;
typedef struct MenuBarType MenuBarType;
typedef struct WindowType WindowType;
typedef struct SysAppInfoType *SysAppInfoPtr;
typedef struct ScrollBarType *ScrollBarPtr;
typedef WindowType *WinHandle;

/* Structures with their Palm OS layout (2-byte packing, as GNU C lays them out
   for the 68000), checked against m68k_palmos_sys::types below. */
typedef struct PointType {
    Coord x;
    Coord y;
} PointType;

typedef struct RectangleType {
    PointType topLeft;
    PointType extent;
} RectangleType;

typedef struct DmSearchStateType {
    UInt32 info[8];
} DmSearchStateType;
typedef DmSearchStateType *DmSearchStatePtr;

/* Event.h: eType is an eventsEnum (2 bytes); data by event. */
typedef struct EventType {
    UInt16 eType;
    Boolean penDown;
    UInt8 tapCount;
    Int16 screenX;
    Int16 screenY;
    union {
        UInt16 generic[8];
        struct { PointType start; PointType end; } penUp;
        struct { WChar chr; UInt16 keyCode; UInt16 modifiers; } keyDown;
        struct { UInt16 controlID; ControlType *pControl; } ctlEnter;
        struct {
            UInt16 controlID;
            ControlType *pControl;
            Boolean on;
            UInt8 reserved1;
            UInt16 value;
        } ctlSelect;
        struct { UInt16 fieldID; FieldType *pField; } fldEnter, fldChanged, fldExit;
        struct { UInt16 listID; ListType *pList; Int16 selection; } lstSelect;
        struct { UInt16 formID; } frmLoad, frmOpen, frmClose, frmTitleEnter, frmTitleSelect;
        struct { UInt16 formID; UInt16 updateCode; } frmUpdate;
        struct { UInt16 itemID; } menu;
        struct {
            UInt16 controlID;
            ControlType *controlP;
            UInt16 listID;
            ListType *listP;
            Int16 selection;
            Int16 priorSelection;
        } popSelect;
    } data;
} EventType;
typedef EventType *EventPtr;

/* Form.h: the event handler a form calls (FrmSetEventHandler). */
typedef Boolean FormEventHandlerType(EventType *eventP);

_Static_assert(sizeof(PointType) == 4, "PointType is 4 bytes on Palm OS");
_Static_assert(sizeof(RectangleType) == 8, "RectangleType is 8 bytes on Palm OS");
_Static_assert(sizeof(DmSearchStateType) == 32, "DmSearchStateType is 32 bytes on Palm OS");
_Static_assert(sizeof(EventType) == 24, "EventType is 24 bytes on Palm OS");
_Static_assert(__builtin_offsetof(EventType, eType) == 0, "EventType.eType is at +0");
_Static_assert(__builtin_offsetof(EventType, penDown) == 2, "EventType.penDown is at +2");
_Static_assert(__builtin_offsetof(EventType, screenX) == 4, "EventType.screenX is at +4");
_Static_assert(__builtin_offsetof(EventType, data) == 8, "EventType.data is at +8");
_Static_assert(__builtin_offsetof(EventType, data.ctlSelect.on) == 14, "EventType.data.ctlSelect.on is at +14");
_Static_assert(__builtin_offsetof(EventType, data.ctlSelect.value) == 16, "EventType.data.ctlSelect.value is at +16");
_Static_assert(__builtin_offsetof(EventType, data.lstSelect.selection) == 14, "EventType.data.lstSelect.selection is at +14");
_Static_assert(__builtin_offsetof(EventType, data.popSelect.priorSelection) == 22, "EventType.data.popSelect.priorSelection is at +22");

/* Constants (ErrorBase.h, SystemMgr.h, Event.h, MemoryMgr.h, DataMgr.h, SoundMgr.h). */
#define errNone 0
#define memErrorClass 0x0100
#define dmErrorClass 0x0200
#define sysErrorClass 0x0500
#define evtErrorClass 0x0700
#define sndErrorClass 0x0800
#define timErrorClass 0x0A00
#define ftrErrorClass 0x0C00
#define winErrorClass 0x2400
#define menuErrorClass 0x2600
#define appErrorClass 0x8000UL
#define memErrChunkLocked 0x0101
#define memErrNotEnoughSpace 0x0102
#define memErrInvalidParam 0x0103
#define memErrChunkNotLocked 0x0104
#define dmErrMemError 0x0201
#define dmErrIndexOutOfRange 0x0202
#define dmErrInvalidParam 0x0203
#define dmErrReadOnly 0x0204
#define dmErrCantOpen 0x0206
#define dmErrCantFind 0x0207
#define dmErrAlreadyExists 0x0219
#define sysErrParamErr 0x0502
#define sysErrNotAllowed 0x0505
#define ftrErrNoSuchFeature 0x0C02
#define sysAppLaunchCmdNormalLaunch 0
#define sysAppLaunchCmdFind 1
#define sysAppLaunchCmdGoTo 2
#define sysAppLaunchCmdSyncNotify 3
#define sysAppLaunchCmdTimeChange 4
#define sysAppLaunchCmdSystemReset 5
#define sysAppLaunchCmdAlarmTriggered 6
#define sysAppLaunchCmdDisplayAlarm 7
#define sysAppLaunchCmdCountryChange 8
#define sysAppLaunchCmdSaveData 10
#define sysAppLaunchCmdInitDatabase 11
#define sysAppLaunchCmdCustomBase 0x8000UL
#define sysAppLaunchFlagNewThread 1
#define sysAppLaunchFlagNewStack 2
#define sysAppLaunchFlagNewGlobals 4
#define sysAppLaunchFlagUIApp 8
#define sysAppLaunchFlagSubCall 16
#define sysAppLaunchFlagDataRelocated 128
#define nilEvent 0
#define penDownEvent 1
#define penUpEvent 2
#define penMoveEvent 3
#define keyDownEvent 4
#define winEnterEvent 5
#define winExitEvent 6
#define ctlEnterEvent 7
#define ctlExitEvent 8
#define ctlSelectEvent 9
#define ctlRepeatEvent 10
#define lstEnterEvent 11
#define lstSelectEvent 12
#define lstExitEvent 13
#define popSelectEvent 14
#define fldEnterEvent 15
#define fldHeightChangedEvent 16
#define fldChangedEvent 17
#define tblEnterEvent 18
#define tblSelectEvent 19
#define daySelectEvent 20
#define menuEvent 21
#define appStopEvent 22
#define frmLoadEvent 23
#define frmOpenEvent 24
#define frmGotoEvent 25
#define frmUpdateEvent 26
#define frmSaveEvent 27
#define frmCloseEvent 28
#define frmTitleEnterEvent 29
#define frmTitleSelectEvent 30
#define tblExitEvent 31
#define sclEnterEvent 32
#define sclExitEvent 33
#define sclRepeatEvent 34
#define tsmConfirmEvent 35
#define menuCmdBarOpenEvent 0x0800
#define firstUserEvent 0x6000
#define evtWaitForever (-1)
#define evtNoWait 0
#define memNewChunkFlagPreLock 0x0100
#define memNewChunkFlagNonMovable 0x0200
#define memNewChunkFlagAtStart 0x0400
#define memNewChunkFlagAtEnd 0x0800
#define dynamicHeapID 0
#define dmModeReadOnly 1
#define dmModeWrite 2
#define dmModeReadWrite 3
#define dmModeLeaveOpen 4
#define dmModeExclusive 8
#define dmModeShowSecret 16
#define sndInfo 1
#define sndWarning 2
#define sndError 3
#define sndStartUp 4
#define sndAlarm 5
#define sndConfirmation 6
#define sndClick 7
#define fatalReset 0
#define fatalEnterDebugger 1
#define fatalDoNothing 0xFFFFUL
#define sysFileTApplication 0x6170706CUL

/* Trap numbers (CoreTraps.h). */
#define sysTrapMemCardInfo 0xA004
#define sysTrapMemNumHeaps 0xA007
#define sysTrapMemNumRAMHeaps 0xA008
#define sysTrapMemHeapID 0xA009
#define sysTrapMemHeapPtr 0xA00A
#define sysTrapMemHeapFreeBytes 0xA00B
#define sysTrapMemHeapSize 0xA00C
#define sysTrapMemHeapFlags 0xA00D
#define sysTrapMemHeapCompact 0xA00E
#define sysTrapMemHeapFreeByOwnerID 0xA010
#define sysTrapMemChunkNew 0xA011
#define sysTrapMemChunkFree 0xA012
#define sysTrapMemPtrNew 0xA013
#define sysTrapMemPtrRecoverHandle 0xA014
#define sysTrapMemPtrSize 0xA016
#define sysTrapMemPtrOwner 0xA017
#define sysTrapMemPtrHeapID 0xA018
#define sysTrapMemPtrToLocalID 0xA01A
#define sysTrapMemPtrSetOwner 0xA01B
#define sysTrapMemPtrResize 0xA01C
#define sysTrapMemPtrResetLock 0xA01D
#define sysTrapMemHandleNew 0xA01E
#define sysTrapMemHandleLockCount 0xA01F
#define sysTrapMemHandleToLocalID 0xA020
#define sysTrapMemHandleLock 0xA021
#define sysTrapMemHandleUnlock 0xA022
#define sysTrapMemLocalIDToGlobal 0xA023
#define sysTrapMemMove 0xA026
#define sysTrapMemSet 0xA027
#define sysTrapMemHandleFree 0xA02B
#define sysTrapMemHandleSize 0xA02D
#define sysTrapMemHandleOwner 0xA02E
#define sysTrapMemHandleHeapID 0xA02F
#define sysTrapMemHandleSetOwner 0xA032
#define sysTrapMemHandleResize 0xA033
#define sysTrapMemHandleResetLock 0xA034
#define sysTrapMemPtrUnlock 0xA035
#define sysTrapMemLocalIDToLockedPtr 0xA036
#define sysTrapMemSetDebugMode 0xA037
#define sysTrapMemHeapScramble 0xA038
#define sysTrapMemHeapCheck 0xA039
#define sysTrapMemDebugMode 0xA03B
#define sysTrapMemSemaphoreReserve 0xA03C
#define sysTrapMemSemaphoreRelease 0xA03D
#define sysTrapMemHeapDynamic 0xA03E
#define sysTrapDmCreateDatabase 0xA041
#define sysTrapDmDeleteDatabase 0xA042
#define sysTrapDmNumDatabases 0xA043
#define sysTrapDmGetDatabase 0xA044
#define sysTrapDmFindDatabase 0xA045
#define sysTrapDmDatabaseInfo 0xA046
#define sysTrapDmSetDatabaseInfo 0xA047
#define sysTrapDmDatabaseSize 0xA048
#define sysTrapDmOpenDatabase 0xA049
#define sysTrapDmCloseDatabase 0xA04A
#define sysTrapDmNextOpenDatabase 0xA04B
#define sysTrapDmOpenDatabaseInfo 0xA04C
#define sysTrapDmGetLastErr 0xA04E
#define sysTrapDmNumRecords 0xA04F
#define sysTrapDmRecordInfo 0xA050
#define sysTrapDmSetRecordInfo 0xA051
#define sysTrapDmAttachRecord 0xA052
#define sysTrapDmDetachRecord 0xA053
#define sysTrapDmMoveRecord 0xA054
#define sysTrapDmNewRecord 0xA055
#define sysTrapDmRemoveRecord 0xA056
#define sysTrapDmDeleteRecord 0xA057
#define sysTrapDmNewHandle 0xA059
#define sysTrapDmQueryRecord 0xA05B
#define sysTrapDmGetRecord 0xA05C
#define sysTrapDmResizeRecord 0xA05D
#define sysTrapDmReleaseRecord 0xA05E
#define sysTrapDmGetResource 0xA05F
#define sysTrapDmGet1Resource 0xA060
#define sysTrapDmReleaseResource 0xA061
#define sysTrapDmResizeResource 0xA062
#define sysTrapDmNextOpenResDatabase 0xA063
#define sysTrapDmFindResourceType 0xA064
#define sysTrapDmFindResource 0xA065
#define sysTrapDmNumResources 0xA067
#define sysTrapDmResourceInfo 0xA068
#define sysTrapDmSetResourceInfo 0xA069
#define sysTrapDmNewResource 0xA06C
#define sysTrapDmRemoveResource 0xA06D
#define sysTrapDmGetResourceIndex 0xA06E
#define sysTrapDmQueryNextInCategory 0xA070
#define sysTrapDmNumRecordsInCategory 0xA071
#define sysTrapDmOpenDatabaseByTypeCreator 0xA075
#define sysTrapDmWrite 0xA076
#define sysTrapDmStrCopy 0xA077
#define sysTrapDmGetNextDatabaseByTypeCreator 0xA078
#define sysTrapDmWriteCheck 0xA079
#define sysTrapDmFindRecordByID 0xA07B
#define sysTrapDmSet 0xA07E
#define sysTrapDbgMessage 0xA081
#define sysTrapErrDisplayFileLineMsg 0xA084
#define sysTrapSysUnimplemented 0xA08A
#define sysTrapSysReset 0xA08C
#define sysTrapSysAppLaunch 0xA08E
#define sysTrapSysAppStartup 0xA08F
#define sysTrapSysAppExit 0xA090
#define sysTrapSysSetTrapAddress 0xA092
#define sysTrapSysGetTrapAddress 0xA093
#define sysTrapSysTaskDelay 0xA0A0
#define sysTrapSysUIAppSwitch 0xA0A7
#define sysTrapSysHandleEvent 0xA0A9
#define sysTrapSysCurAppDatabase 0xA0AC
#define sysTrapSysFatalAlert 0xA0AD
#define sysTrapSysLibFind 0xA0BA
#define sysTrapSysRandom 0xA0C2
#define sysTrapStrCopy 0xA0C5
#define sysTrapStrCat 0xA0C6
#define sysTrapStrLen 0xA0C7
#define sysTrapStrCompare 0xA0C8
#define sysTrapStrIToA 0xA0C9
#define sysTrapStrCaselessCompare 0xA0CA
#define sysTrapStrIToH 0xA0CB
#define sysTrapStrChr 0xA0CC
#define sysTrapStrStr 0xA0CD
#define sysTrapStrAToI 0xA0CE
#define sysTrapTimGetSeconds 0xA0F5
#define sysTrapTimSetSeconds 0xA0F6
#define sysTrapTimGetTicks 0xA0F7
#define sysTrapCtlDrawControl 0xA10D
#define sysTrapCtlGetValue 0xA111
#define sysTrapCtlSetValue 0xA112
#define sysTrapCtlGetLabel 0xA113
#define sysTrapCtlSetLabel 0xA114
#define sysTrapCtlHitControl 0xA116
#define sysTrapEvtAddEventToQueue 0xA11B
#define sysTrapEvtCopyEvent 0xA11C
#define sysTrapEvtGetEvent 0xA11D
#define sysTrapEvtFlushPenQueue 0xA125
#define sysTrapEvtResetAutoOffTimer 0xA130
#define sysTrapFldDrawField 0xA135
#define sysTrapFldEraseField 0xA136
#define sysTrapFldFreeMemory 0xA137
#define sysTrapFldGetTextPtr 0xA139
#define sysTrapFldGetSelection 0xA13A
#define sysTrapFldHandleEvent 0xA13B
#define sysTrapFldRecalculateField 0xA13D
#define sysTrapFldSetText 0xA13F
#define sysTrapFldSetSelection 0xA142
#define sysTrapFldSetInsPtPosition 0xA146
#define sysTrapFldGetTextLength 0xA14B
#define sysTrapFldGetTextHandle 0xA153
#define sysTrapFldDirty 0xA155
#define sysTrapFldSetTextHandle 0xA158
#define sysTrapFldSetTextPtr 0xA159
#define sysTrapFldGetMaxChars 0xA15A
#define sysTrapFldSetMaxChars 0xA15B
#define sysTrapFldInsert 0xA15D
#define sysTrapFldDelete 0xA15E
#define sysTrapFldSetDirty 0xA160
#define sysTrapFntLineHeight 0xA168
#define sysTrapFntCharsWidth 0xA16B
#define sysTrapFrmInitForm 0xA16F
#define sysTrapFrmDeleteForm 0xA170
#define sysTrapFrmDrawForm 0xA171
#define sysTrapFrmEraseForm 0xA172
#define sysTrapFrmGetActiveForm 0xA173
#define sysTrapFrmSetActiveForm 0xA174
#define sysTrapFrmGetActiveFormID 0xA175
#define sysTrapFrmGetFocus 0xA178
#define sysTrapFrmSetFocus 0xA179
#define sysTrapFrmHandleEvent 0xA17A
#define sysTrapFrmGetWindowHandle 0xA17C
#define sysTrapFrmGetFormId 0xA17D
#define sysTrapFrmGetFormPtr 0xA17E
#define sysTrapFrmGetNumberOfObjects 0xA17F
#define sysTrapFrmGetObjectIndex 0xA180
#define sysTrapFrmGetObjectId 0xA181
#define sysTrapFrmGetObjectPtr 0xA183
#define sysTrapFrmHideObject 0xA184
#define sysTrapFrmShowObject 0xA185
#define sysTrapFrmGetControlValue 0xA188
#define sysTrapFrmSetControlValue 0xA189
#define sysTrapFrmGetTitle 0xA190
#define sysTrapFrmSetTitle 0xA191
#define sysTrapFrmAlert 0xA192
#define sysTrapFrmDoDialog 0xA193
#define sysTrapFrmCustomAlert 0xA194
#define sysTrapFrmCopyTitle 0xA19A
#define sysTrapFrmGotoForm 0xA19B
#define sysTrapFrmPopupForm 0xA19C
#define sysTrapFrmUpdateForm 0xA19D
#define sysTrapFrmReturnToForm 0xA19E
#define sysTrapFrmSetEventHandler 0xA19F
#define sysTrapFrmDispatchEvent 0xA1A0
#define sysTrapFrmCloseAllForms 0xA1A1
#define sysTrapLstDrawList 0xA1B1
#define sysTrapLstEraseList 0xA1B2
#define sysTrapLstGetSelection 0xA1B3
#define sysTrapLstGetSelectionText 0xA1B4
#define sysTrapLstHandleEvent 0xA1B5
#define sysTrapLstSetHeight 0xA1B6
#define sysTrapLstSetSelection 0xA1B7
#define sysTrapLstSetListChoices 0xA1B8
#define sysTrapLstMakeItemVisible 0xA1B9
#define sysTrapLstGetNumberOfItems 0xA1BA
#define sysTrapLstPopupList 0xA1BB
#define sysTrapMenuInit 0xA1BD
#define sysTrapMenuDispose 0xA1BE
#define sysTrapMenuHandleEvent 0xA1BF
#define sysTrapMenuDrawMenu 0xA1C0
#define sysTrapMenuEraseStatus 0xA1C1
#define sysTrapMenuGetActiveMenu 0xA1C2
#define sysTrapMenuSetActiveMenu 0xA1C3
#define sysTrapWinSetActiveWindow 0xA1FC
#define sysTrapWinSetDrawWindow 0xA1FD
#define sysTrapWinGetDrawWindow 0xA1FE
#define sysTrapWinGetActiveWindow 0xA1FF
#define sysTrapWinEraseWindow 0xA206
#define sysTrapWinGetDisplayExtent 0xA20B
#define sysTrapWinDrawLine 0xA213
#define sysTrapWinDrawRectangle 0xA218
#define sysTrapWinEraseRectangle 0xA219
#define sysTrapWinDrawRectangleFrame 0xA21B
#define sysTrapWinDrawChars 0xA220
#define sysTrapWinEraseChars 0xA221
#define sysTrapWinDrawInvertedChars 0xA22A
#define sysTrapSndPlaySystemSound 0xA234
#define sysTrapFtrUnregister 0xA27A
#define sysTrapFtrGet 0xA27B
#define sysTrapFtrSet 0xA27C
#define sysTrapFtrGetByIndex 0xA27D
#define sysTrapDmSearchRecord 0xA2B2
#define sysTrapLstSetTopItem 0xA2B5
#define sysTrapSclSetScrollBar 0xA2B6
#define sysTrapSclDrawScrollBar 0xA2B7
#define sysTrapSclHandleEvent 0xA2B8
#define sysTrapEvtEventAvail 0xA2CC
#define sysTrapStrNCopy 0xA2CE
#define sysTrapStrNCat 0xA2D6
#define sysTrapMemCmp 0xA2D7
#define sysTrapStrPrintF 0xA2DE
#define sysTrapStrVPrintF 0xA2DF
#define sysTrapSclGetScrollBar 0xA2E7
#define sysTrapSysTicksPerSecond 0xA2E9
#define sysTrapDmDatabaseProtect 0xA2EB
#define sysTrapStrNCompare 0xA2ED
#define sysTrapMenuSetActiveMenuRscID 0xA2FA
#define sysTrapLstGetVisibleItems 0xA2FF
#define sysTrapSysGetOSVersionString 0xA323
#define sysTrapHostControl 0xA344
#define sysTrapFtrPtrNew 0xA35A
#define sysTrapFtrPtrFree 0xA35B
#define sysTrapFtrPtrResize 0xA35C
#define sysTrapWinPushDrawState 0xA395
#define sysTrapWinPopDrawState 0xA396
#define sysTrapDmOpenDBNoOverlay 0xA3B0

/* System calls. */
/* Trap 0xA004 (sysTrapMemCardInfo), SDK 3.5 Core/System/MemoryMgr.h; 30 bytes of arguments. */
static __inline__ Err MemCardInfo(UInt16 cardNo, Char *cardNameP, Char *manufNameP, UInt16 *versionP, UInt32 *crDateP, UInt32 *romSizeP, UInt32 *ramSizeP, UInt32 *freeBytesP)
{
    register UInt32 __palm_d0 __asm__("d0");
    struct {
        UInt16 x0;
        UInt32 x1;
        UInt32 x2;
        UInt32 x3;
        UInt32 x4;
        UInt32 x5;
        UInt32 x6;
        UInt32 x7;
    } __palm_args = {
        (UInt16)(cardNo),
        (UInt32)(cardNameP),
        (UInt32)(manufNameP),
        (UInt32)(versionP),
        (UInt32)(crDateP),
        (UInt32)(romSizeP),
        (UInt32)(ramSizeP),
        (UInt32)(freeBytesP),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 30, "Palm argument layout");
    __asm__ volatile("lea 30(%1),%1\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.w -(%1),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA004\n\t"
                     "lea 30(%%sp),%%sp"
                     : "=d"(__palm_d0), "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA007 (sysTrapMemNumHeaps), SDK 3.5 Core/System/MemoryMgr.h; 2 bytes of arguments. */
static __inline__ UInt16 MemNumHeaps(UInt16 cardNo)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA007\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(cardNo))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA008 (sysTrapMemNumRAMHeaps), SDK 3.5 Core/System/MemoryMgr.h; 2 bytes of arguments. */
static __inline__ UInt16 MemNumRAMHeaps(UInt16 cardNo)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA008\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(cardNo))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA009 (sysTrapMemHeapID), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ UInt16 MemHeapID(UInt16 cardNo, UInt16 heapIndex)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA009\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(cardNo)), "r"((UInt16)(heapIndex))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA00A (sysTrapMemHeapPtr), SDK 3.5 Core/System/MemoryPrv.h; 2 bytes of arguments. */
static __inline__ MemPtr MemHeapPtr(UInt16 heapID)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA00A\n\t"
                     "addq.l #2,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt16)(heapID))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemPtr)__palm_a0;
}

/* Trap 0xA00B (sysTrapMemHeapFreeBytes), SDK 3.5 Core/System/MemoryMgr.h; 10 bytes of arguments. */
static __inline__ Err MemHeapFreeBytes(UInt16 heapID, UInt32 *freeP, UInt32 *maxP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA00B\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(heapID)), "r"((UInt32)(freeP)), "r"((UInt32)(maxP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA00C (sysTrapMemHeapSize), SDK 3.5 Core/System/MemoryMgr.h; 2 bytes of arguments. */
static __inline__ UInt32 MemHeapSize(UInt16 heapID)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA00C\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(heapID))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt32)__palm_d0;
}

/* Trap 0xA00D (sysTrapMemHeapFlags), SDK 3.5 Core/System/MemoryMgr.h; 2 bytes of arguments. */
static __inline__ UInt16 MemHeapFlags(UInt16 heapID)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA00D\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(heapID))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA00E (sysTrapMemHeapCompact), SDK 3.5 Core/System/MemoryMgr.h; 2 bytes of arguments. */
static __inline__ Err MemHeapCompact(UInt16 heapID)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA00E\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(heapID))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA010 (sysTrapMemHeapFreeByOwnerID), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ Err MemHeapFreeByOwnerID(UInt16 heapID, UInt16 ownerID)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA010\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(heapID)), "r"((UInt16)(ownerID))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA011 (sysTrapMemChunkNew), SDK 3.5 Core/System/MemoryMgr.h; 8 bytes of arguments. */
static __inline__ MemPtr MemChunkNew(UInt16 heapID, UInt32 size, UInt16 attr)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA011\n\t"
                     "addq.l #8,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt16)(heapID)), "r"((UInt32)(size)), "r"((UInt16)(attr))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemPtr)__palm_a0;
}

/* Trap 0xA012 (sysTrapMemChunkFree), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ Err MemChunkFree(MemPtr chunkDataP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA012\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(chunkDataP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA013 (sysTrapMemPtrNew), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ MemPtr MemPtrNew(UInt32 size)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA013\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(size))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemPtr)__palm_a0;
}

/* Trap 0xA014 (sysTrapMemPtrRecoverHandle), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ MemHandle MemPtrRecoverHandle(MemPtr p)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA014\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(p))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA016 (sysTrapMemPtrSize), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ UInt32 MemPtrSize(MemPtr p)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA016\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(p))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt32)__palm_d0;
}

/* Trap 0xA017 (sysTrapMemPtrOwner), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ UInt16 MemPtrOwner(MemPtr p)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA017\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(p))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA018 (sysTrapMemPtrHeapID), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ UInt16 MemPtrHeapID(MemPtr p)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA018\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(p))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA01A (sysTrapMemPtrToLocalID), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ LocalID MemPtrToLocalID(MemPtr p)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA01A\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(p))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (LocalID)__palm_d0;
}

/* Trap 0xA01B (sysTrapMemPtrSetOwner), SDK 3.5 Core/System/MemoryMgr.h; 6 bytes of arguments. */
static __inline__ Err MemPtrSetOwner(MemPtr p, UInt16 owner)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA01B\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(p)), "r"((UInt16)(owner))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA01C (sysTrapMemPtrResize), SDK 3.5 Core/System/MemoryMgr.h; 8 bytes of arguments. */
static __inline__ Err MemPtrResize(MemPtr p, UInt32 newSize)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA01C\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(p)), "r"((UInt32)(newSize))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA01D (sysTrapMemPtrResetLock), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ Err MemPtrResetLock(MemPtr p)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA01D\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(p))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA01E (sysTrapMemHandleNew), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ MemHandle MemHandleNew(UInt32 size)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA01E\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(size))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA01F (sysTrapMemHandleLockCount), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ UInt16 MemHandleLockCount(MemHandle h)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA01F\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(h))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA020 (sysTrapMemHandleToLocalID), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ LocalID MemHandleToLocalID(MemHandle h)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA020\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(h))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (LocalID)__palm_d0;
}

/* Trap 0xA021 (sysTrapMemHandleLock), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ MemPtr MemHandleLock(MemHandle h)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA021\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(h))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemPtr)__palm_a0;
}

/* Trap 0xA022 (sysTrapMemHandleUnlock), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ Err MemHandleUnlock(MemHandle h)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA022\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(h))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA023 (sysTrapMemLocalIDToGlobal), SDK 3.5 Core/System/MemoryMgr.h; 6 bytes of arguments. */
static __inline__ MemPtr MemLocalIDToGlobal(LocalID local, UInt16 cardNo)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA023\n\t"
                     "addq.l #6,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(local)), "r"((UInt16)(cardNo))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemPtr)__palm_a0;
}

/* Trap 0xA026 (sysTrapMemMove), SDK 3.5 Core/System/MemoryMgr.h; 12 bytes of arguments. */
static __inline__ Err MemMove(void *dstP, const void *sP, Int32 numBytes)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA026\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dstP)), "r"((UInt32)(sP)), "r"((UInt32)(numBytes))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA027 (sysTrapMemSet), SDK 3.5 Core/System/MemoryMgr.h; 10 bytes of arguments. */
static __inline__ Err MemSet(void *dstP, Int32 numBytes, UInt8 value)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.b %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA027\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dstP)), "r"((UInt32)(numBytes)), "d"((UInt8)(value))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA02B (sysTrapMemHandleFree), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ Err MemHandleFree(MemHandle h)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA02B\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(h))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA02D (sysTrapMemHandleSize), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ UInt32 MemHandleSize(MemHandle h)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA02D\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(h))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt32)__palm_d0;
}

/* Trap 0xA02E (sysTrapMemHandleOwner), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ UInt16 MemHandleOwner(MemHandle h)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA02E\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(h))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA02F (sysTrapMemHandleHeapID), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ UInt16 MemHandleHeapID(MemHandle h)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA02F\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(h))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA032 (sysTrapMemHandleSetOwner), SDK 3.5 Core/System/MemoryMgr.h; 6 bytes of arguments. */
static __inline__ Err MemHandleSetOwner(MemHandle h, UInt16 owner)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA032\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(h)), "r"((UInt16)(owner))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA033 (sysTrapMemHandleResize), SDK 3.5 Core/System/MemoryMgr.h; 8 bytes of arguments. */
static __inline__ Err MemHandleResize(MemHandle h, UInt32 newSize)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA033\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(h)), "r"((UInt32)(newSize))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA034 (sysTrapMemHandleResetLock), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ Err MemHandleResetLock(MemHandle h)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA034\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(h))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA035 (sysTrapMemPtrUnlock), SDK 3.5 Core/System/MemoryMgr.h; 4 bytes of arguments. */
static __inline__ Err MemPtrUnlock(MemPtr p)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA035\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(p))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA036 (sysTrapMemLocalIDToLockedPtr), SDK 3.5 Core/System/MemoryMgr.h; 6 bytes of arguments. */
static __inline__ MemPtr MemLocalIDToLockedPtr(LocalID local, UInt16 cardNo)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA036\n\t"
                     "addq.l #6,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(local)), "r"((UInt16)(cardNo))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemPtr)__palm_a0;
}

/* Trap 0xA037 (sysTrapMemSetDebugMode), SDK 3.5 Core/System/MemoryMgr.h; 2 bytes of arguments. */
static __inline__ Err MemSetDebugMode(UInt16 flags)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA037\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(flags))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA038 (sysTrapMemHeapScramble), SDK 3.5 Core/System/MemoryMgr.h; 2 bytes of arguments. */
static __inline__ Err MemHeapScramble(UInt16 heapID)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA038\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(heapID))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA039 (sysTrapMemHeapCheck), SDK 3.5 Core/System/MemoryMgr.h; 2 bytes of arguments. */
static __inline__ Err MemHeapCheck(UInt16 heapID)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA039\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(heapID))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA03B (sysTrapMemDebugMode), SDK 3.5 Core/System/MemoryMgr.h; 0 bytes of arguments. */
static __inline__ UInt16 MemDebugMode(void)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA03B"
                     : "=d"(__palm_d0)
                     : 
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA03C (sysTrapMemSemaphoreReserve), SDK 3.5 Core/System/MemoryMgr.h; 2 bytes of arguments. */
static __inline__ Err MemSemaphoreReserve(Boolean writeAccess)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.b %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA03C\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "d"((UInt8)(writeAccess))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA03D (sysTrapMemSemaphoreRelease), SDK 3.5 Core/System/MemoryMgr.h; 2 bytes of arguments. */
static __inline__ Err MemSemaphoreRelease(Boolean writeAccess)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.b %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA03D\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "d"((UInt8)(writeAccess))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA03E (sysTrapMemHeapDynamic), SDK 3.5 Core/System/MemoryMgr.h; 2 bytes of arguments. */
static __inline__ Boolean MemHeapDynamic(UInt16 heapID)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA03E\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(heapID))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Boolean)__palm_d0;
}

/* Trap 0xA041 (sysTrapDmCreateDatabase), SDK 3.5 Core/System/DataMgr.h; 16 bytes of arguments. */
static __inline__ Err DmCreateDatabase(UInt16 cardNo, const Char *nameP, UInt32 creator, UInt32 type, Boolean resDB)
{
    register UInt32 __palm_d0 __asm__("d0");
    struct {
        UInt16 x0;
        UInt32 x1;
        UInt32 x2;
        UInt32 x3;
        UInt16 x4;
    } __palm_args = {
        (UInt16)(cardNo),
        (UInt32)(nameP),
        (UInt32)(creator),
        (UInt32)(type),
        (UInt16)((UInt16)(UInt8)(resDB) << 8),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 16, "Palm argument layout");
    __asm__ volatile("lea 16(%1),%1\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA041\n\t"
                     "lea 16(%%sp),%%sp"
                     : "=d"(__palm_d0), "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA042 (sysTrapDmDeleteDatabase), SDK 3.5 Core/System/DataMgr.h; 6 bytes of arguments. */
static __inline__ Err DmDeleteDatabase(UInt16 cardNo, LocalID dbID)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA042\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(cardNo)), "r"((UInt32)(dbID))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA043 (sysTrapDmNumDatabases), SDK 3.5 Core/System/DataMgr.h; 2 bytes of arguments. */
static __inline__ UInt16 DmNumDatabases(UInt16 cardNo)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA043\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(cardNo))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA044 (sysTrapDmGetDatabase), SDK 3.5 Core/System/DataMgr.h; 4 bytes of arguments. */
static __inline__ LocalID DmGetDatabase(UInt16 cardNo, UInt16 index)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA044\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(cardNo)), "r"((UInt16)(index))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (LocalID)__palm_d0;
}

/* Trap 0xA045 (sysTrapDmFindDatabase), SDK 3.5 Core/System/DataMgr.h; 6 bytes of arguments. */
static __inline__ LocalID DmFindDatabase(UInt16 cardNo, const Char *nameP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA045\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(cardNo)), "r"((UInt32)(nameP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (LocalID)__palm_d0;
}

/* Trap 0xA046 (sysTrapDmDatabaseInfo), SDK 3.5 Core/System/DataMgr.h; 50 bytes of arguments. */
static __inline__ Err DmDatabaseInfo(UInt16 cardNo, LocalID dbID, Char *nameP, UInt16 *attributesP, UInt16 *versionP, UInt32 *crDateP, UInt32 *modDateP, UInt32 *bckUpDateP, UInt32 *modNumP, LocalID *appInfoIDP, LocalID *sortInfoIDP, UInt32 *typeP, UInt32 *creatorP)
{
    register UInt32 __palm_d0 __asm__("d0");
    struct {
        UInt16 x0;
        UInt32 x1;
        UInt32 x2;
        UInt32 x3;
        UInt32 x4;
        UInt32 x5;
        UInt32 x6;
        UInt32 x7;
        UInt32 x8;
        UInt32 x9;
        UInt32 x10;
        UInt32 x11;
        UInt32 x12;
    } __palm_args = {
        (UInt16)(cardNo),
        (UInt32)(dbID),
        (UInt32)(nameP),
        (UInt32)(attributesP),
        (UInt32)(versionP),
        (UInt32)(crDateP),
        (UInt32)(modDateP),
        (UInt32)(bckUpDateP),
        (UInt32)(modNumP),
        (UInt32)(appInfoIDP),
        (UInt32)(sortInfoIDP),
        (UInt32)(typeP),
        (UInt32)(creatorP),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 50, "Palm argument layout");
    __asm__ volatile("lea 50(%1),%1\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.w -(%1),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA046\n\t"
                     "lea 50(%%sp),%%sp"
                     : "=d"(__palm_d0), "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA047 (sysTrapDmSetDatabaseInfo), SDK 3.5 Core/System/DataMgr.h; 50 bytes of arguments. */
static __inline__ Err DmSetDatabaseInfo(UInt16 cardNo, LocalID dbID, const Char *nameP, UInt16 *attributesP, UInt16 *versionP, UInt32 *crDateP, UInt32 *modDateP, UInt32 *bckUpDateP, UInt32 *modNumP, LocalID *appInfoIDP, LocalID *sortInfoIDP, UInt32 *typeP, UInt32 *creatorP)
{
    register UInt32 __palm_d0 __asm__("d0");
    struct {
        UInt16 x0;
        UInt32 x1;
        UInt32 x2;
        UInt32 x3;
        UInt32 x4;
        UInt32 x5;
        UInt32 x6;
        UInt32 x7;
        UInt32 x8;
        UInt32 x9;
        UInt32 x10;
        UInt32 x11;
        UInt32 x12;
    } __palm_args = {
        (UInt16)(cardNo),
        (UInt32)(dbID),
        (UInt32)(nameP),
        (UInt32)(attributesP),
        (UInt32)(versionP),
        (UInt32)(crDateP),
        (UInt32)(modDateP),
        (UInt32)(bckUpDateP),
        (UInt32)(modNumP),
        (UInt32)(appInfoIDP),
        (UInt32)(sortInfoIDP),
        (UInt32)(typeP),
        (UInt32)(creatorP),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 50, "Palm argument layout");
    __asm__ volatile("lea 50(%1),%1\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.w -(%1),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA047\n\t"
                     "lea 50(%%sp),%%sp"
                     : "=d"(__palm_d0), "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA048 (sysTrapDmDatabaseSize), SDK 3.5 Core/System/DataMgr.h; 18 bytes of arguments. */
static __inline__ Err DmDatabaseSize(UInt16 cardNo, LocalID dbID, UInt32 *numRecordsP, UInt32 *totalBytesP, UInt32 *dataBytesP)
{
    register UInt32 __palm_d0 __asm__("d0");
    struct {
        UInt16 x0;
        UInt32 x1;
        UInt32 x2;
        UInt32 x3;
        UInt32 x4;
    } __palm_args = {
        (UInt16)(cardNo),
        (UInt32)(dbID),
        (UInt32)(numRecordsP),
        (UInt32)(totalBytesP),
        (UInt32)(dataBytesP),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 18, "Palm argument layout");
    __asm__ volatile("lea 18(%1),%1\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.w -(%1),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA048\n\t"
                     "lea 18(%%sp),%%sp"
                     : "=d"(__palm_d0), "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA049 (sysTrapDmOpenDatabase), SDK 3.5 Core/System/DataMgr.h; 8 bytes of arguments. */
static __inline__ DmOpenRef DmOpenDatabase(UInt16 cardNo, LocalID dbID, UInt16 mode)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA049\n\t"
                     "addq.l #8,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt16)(cardNo)), "r"((UInt32)(dbID)), "r"((UInt16)(mode))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (DmOpenRef)__palm_a0;
}

/* Trap 0xA04A (sysTrapDmCloseDatabase), SDK 3.5 Core/System/DataMgr.h; 4 bytes of arguments. */
static __inline__ Err DmCloseDatabase(DmOpenRef dbP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA04A\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA04B (sysTrapDmNextOpenDatabase), SDK 3.5 Core/System/DataMgr.h; 4 bytes of arguments. */
static __inline__ DmOpenRef DmNextOpenDatabase(DmOpenRef currentP)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA04B\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(currentP))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (DmOpenRef)__palm_a0;
}

/* Trap 0xA04C (sysTrapDmOpenDatabaseInfo), SDK 3.5 Core/System/DataMgr.h; 24 bytes of arguments. */
static __inline__ Err DmOpenDatabaseInfo(DmOpenRef dbP, LocalID *dbIDP, UInt16 *openCountP, UInt16 *modeP, UInt16 *cardNoP, Boolean *resDBP)
{
    register UInt32 __palm_d0 __asm__("d0");
    struct {
        UInt32 x0;
        UInt32 x1;
        UInt32 x2;
        UInt32 x3;
        UInt32 x4;
        UInt32 x5;
    } __palm_args = {
        (UInt32)(dbP),
        (UInt32)(dbIDP),
        (UInt32)(openCountP),
        (UInt32)(modeP),
        (UInt32)(cardNoP),
        (UInt32)(resDBP),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 24, "Palm argument layout");
    __asm__ volatile("lea 24(%1),%1\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA04C\n\t"
                     "lea 24(%%sp),%%sp"
                     : "=d"(__palm_d0), "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA04E (sysTrapDmGetLastErr), SDK 3.5 Core/System/DataMgr.h; 0 bytes of arguments. */
static __inline__ Err DmGetLastErr(void)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA04E"
                     : "=d"(__palm_d0)
                     : 
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA04F (sysTrapDmNumRecords), SDK 3.5 Core/System/DataMgr.h; 4 bytes of arguments. */
static __inline__ UInt16 DmNumRecords(DmOpenRef dbP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA04F\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA050 (sysTrapDmRecordInfo), SDK 3.5 Core/System/DataMgr.h; 18 bytes of arguments. */
static __inline__ Err DmRecordInfo(DmOpenRef dbP, UInt16 index, UInt16 *attrP, UInt32 *uniqueIDP, LocalID *chunkIDP)
{
    register UInt32 __palm_d0 __asm__("d0");
    struct {
        UInt32 x0;
        UInt16 x1;
        UInt32 x2;
        UInt32 x3;
        UInt32 x4;
    } __palm_args = {
        (UInt32)(dbP),
        (UInt16)(index),
        (UInt32)(attrP),
        (UInt32)(uniqueIDP),
        (UInt32)(chunkIDP),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 18, "Palm argument layout");
    __asm__ volatile("lea 18(%1),%1\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.w -(%1),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA050\n\t"
                     "lea 18(%%sp),%%sp"
                     : "=d"(__palm_d0), "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA051 (sysTrapDmSetRecordInfo), SDK 3.5 Core/System/DataMgr.h; 14 bytes of arguments. */
static __inline__ Err DmSetRecordInfo(DmOpenRef dbP, UInt16 index, UInt16 *attrP, UInt32 *uniqueIDP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %4,-(%%sp)\n\t"
                     "move.l %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA051\n\t"
                     "lea 14(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(index)), "r"((UInt32)(attrP)), "r"((UInt32)(uniqueIDP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA052 (sysTrapDmAttachRecord), SDK 3.5 Core/System/DataMgr.h; 16 bytes of arguments. */
static __inline__ Err DmAttachRecord(DmOpenRef dbP, UInt16 *atP, MemHandle newH, MemHandle *oldHP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %4,-(%%sp)\n\t"
                     "move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA052\n\t"
                     "lea 16(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt32)(atP)), "r"((UInt32)(newH)), "r"((UInt32)(oldHP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA053 (sysTrapDmDetachRecord), SDK 3.5 Core/System/DataMgr.h; 10 bytes of arguments. */
static __inline__ Err DmDetachRecord(DmOpenRef dbP, UInt16 index, MemHandle *oldHP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA053\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(index)), "r"((UInt32)(oldHP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA054 (sysTrapDmMoveRecord), SDK 3.5 Core/System/DataMgr.h; 8 bytes of arguments. */
static __inline__ Err DmMoveRecord(DmOpenRef dbP, UInt16 from, UInt16 to)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA054\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(from)), "r"((UInt16)(to))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA055 (sysTrapDmNewRecord), SDK 3.5 Core/System/DataMgr.h; 12 bytes of arguments. */
static __inline__ MemHandle DmNewRecord(DmOpenRef dbP, UInt16 *atP, UInt32 size)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA055\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dbP)), "r"((UInt32)(atP)), "r"((UInt32)(size))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA056 (sysTrapDmRemoveRecord), SDK 3.5 Core/System/DataMgr.h; 6 bytes of arguments. */
static __inline__ Err DmRemoveRecord(DmOpenRef dbP, UInt16 index)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA056\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(index))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA057 (sysTrapDmDeleteRecord), SDK 3.5 Core/System/DataMgr.h; 6 bytes of arguments. */
static __inline__ Err DmDeleteRecord(DmOpenRef dbP, UInt16 index)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA057\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(index))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA059 (sysTrapDmNewHandle), SDK 3.5 Core/System/DataMgr.h; 8 bytes of arguments. */
static __inline__ MemHandle DmNewHandle(DmOpenRef dbP, UInt32 size)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA059\n\t"
                     "addq.l #8,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dbP)), "r"((UInt32)(size))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA05B (sysTrapDmQueryRecord), SDK 3.5 Core/System/DataMgr.h; 6 bytes of arguments. */
static __inline__ MemHandle DmQueryRecord(DmOpenRef dbP, UInt16 index)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA05B\n\t"
                     "addq.l #6,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(index))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA05C (sysTrapDmGetRecord), SDK 3.5 Core/System/DataMgr.h; 6 bytes of arguments. */
static __inline__ MemHandle DmGetRecord(DmOpenRef dbP, UInt16 index)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA05C\n\t"
                     "addq.l #6,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(index))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA05D (sysTrapDmResizeRecord), SDK 3.5 Core/System/DataMgr.h; 10 bytes of arguments. */
static __inline__ MemHandle DmResizeRecord(DmOpenRef dbP, UInt16 index, UInt32 newSize)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA05D\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(index)), "r"((UInt32)(newSize))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA05E (sysTrapDmReleaseRecord), SDK 3.5 Core/System/DataMgr.h; 8 bytes of arguments. */
static __inline__ Err DmReleaseRecord(DmOpenRef dbP, UInt16 index, Boolean dirty)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.b %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA05E\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(index)), "d"((UInt8)(dirty))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA05F (sysTrapDmGetResource), SDK 3.5 Core/System/DataMgr.h; 6 bytes of arguments. */
static __inline__ MemHandle DmGetResource(DmResType type, DmResID resID)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA05F\n\t"
                     "addq.l #6,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(type)), "r"((UInt16)(resID))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA060 (sysTrapDmGet1Resource), SDK 3.5 Core/System/DataMgr.h; 6 bytes of arguments. */
static __inline__ MemHandle DmGet1Resource(DmResType type, DmResID resID)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA060\n\t"
                     "addq.l #6,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(type)), "r"((UInt16)(resID))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA061 (sysTrapDmReleaseResource), SDK 3.5 Core/System/DataMgr.h; 4 bytes of arguments. */
static __inline__ Err DmReleaseResource(MemHandle resourceH)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA061\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(resourceH))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA062 (sysTrapDmResizeResource), SDK 3.5 Core/System/DataMgr.h; 8 bytes of arguments. */
static __inline__ MemHandle DmResizeResource(MemHandle resourceH, UInt32 newSize)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA062\n\t"
                     "addq.l #8,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(resourceH)), "r"((UInt32)(newSize))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA063 (sysTrapDmNextOpenResDatabase), SDK 3.5 Core/System/DataMgr.h; 4 bytes of arguments. */
static __inline__ DmOpenRef DmNextOpenResDatabase(DmOpenRef dbP)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA063\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dbP))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (DmOpenRef)__palm_a0;
}

/* Trap 0xA064 (sysTrapDmFindResourceType), SDK 3.5 Core/System/DataMgr.h; 10 bytes of arguments. */
static __inline__ UInt16 DmFindResourceType(DmOpenRef dbP, DmResType resType, UInt16 typeIndex)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA064\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt32)(resType)), "r"((UInt16)(typeIndex))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA065 (sysTrapDmFindResource), SDK 3.5 Core/System/DataMgr.h; 14 bytes of arguments. */
static __inline__ UInt16 DmFindResource(DmOpenRef dbP, DmResType resType, DmResID resID, MemHandle resH)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %4,-(%%sp)\n\t"
                     "move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA065\n\t"
                     "lea 14(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt32)(resType)), "r"((UInt16)(resID)), "r"((UInt32)(resH))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA067 (sysTrapDmNumResources), SDK 3.5 Core/System/DataMgr.h; 4 bytes of arguments. */
static __inline__ UInt16 DmNumResources(DmOpenRef dbP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA067\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA068 (sysTrapDmResourceInfo), SDK 3.5 Core/System/DataMgr.h; 18 bytes of arguments. */
static __inline__ Err DmResourceInfo(DmOpenRef dbP, UInt16 index, DmResType *resTypeP, DmResID *resIDP, LocalID *chunkLocalIDP)
{
    register UInt32 __palm_d0 __asm__("d0");
    struct {
        UInt32 x0;
        UInt16 x1;
        UInt32 x2;
        UInt32 x3;
        UInt32 x4;
    } __palm_args = {
        (UInt32)(dbP),
        (UInt16)(index),
        (UInt32)(resTypeP),
        (UInt32)(resIDP),
        (UInt32)(chunkLocalIDP),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 18, "Palm argument layout");
    __asm__ volatile("lea 18(%1),%1\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.w -(%1),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA068\n\t"
                     "lea 18(%%sp),%%sp"
                     : "=d"(__palm_d0), "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA069 (sysTrapDmSetResourceInfo), SDK 3.5 Core/System/DataMgr.h; 14 bytes of arguments. */
static __inline__ Err DmSetResourceInfo(DmOpenRef dbP, UInt16 index, DmResType *resTypeP, DmResID *resIDP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %4,-(%%sp)\n\t"
                     "move.l %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA069\n\t"
                     "lea 14(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(index)), "r"((UInt32)(resTypeP)), "r"((UInt32)(resIDP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA06C (sysTrapDmNewResource), SDK 3.5 Core/System/DataMgr.h; 14 bytes of arguments. */
static __inline__ MemHandle DmNewResource(DmOpenRef dbP, DmResType resType, DmResID resID, UInt32 size)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %4,-(%%sp)\n\t"
                     "move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA06C\n\t"
                     "lea 14(%%sp),%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dbP)), "r"((UInt32)(resType)), "r"((UInt16)(resID)), "r"((UInt32)(size))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA06D (sysTrapDmRemoveResource), SDK 3.5 Core/System/DataMgr.h; 6 bytes of arguments. */
static __inline__ Err DmRemoveResource(DmOpenRef dbP, UInt16 index)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA06D\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(index))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA06E (sysTrapDmGetResourceIndex), SDK 3.5 Core/System/DataMgr.h; 6 bytes of arguments. */
static __inline__ MemHandle DmGetResourceIndex(DmOpenRef dbP, UInt16 index)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA06E\n\t"
                     "addq.l #6,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(index))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA070 (sysTrapDmQueryNextInCategory), SDK 3.5 Core/System/DataMgr.h; 10 bytes of arguments. */
static __inline__ MemHandle DmQueryNextInCategory(DmOpenRef dbP, UInt16 *indexP, UInt16 category)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA070\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dbP)), "r"((UInt32)(indexP)), "r"((UInt16)(category))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA071 (sysTrapDmNumRecordsInCategory), SDK 3.5 Core/System/DataMgr.h; 6 bytes of arguments. */
static __inline__ UInt16 DmNumRecordsInCategory(DmOpenRef dbP, UInt16 category)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA071\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt16)(category))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA075 (sysTrapDmOpenDatabaseByTypeCreator), SDK 3.5 Core/System/DataMgr.h; 10 bytes of arguments. */
static __inline__ DmOpenRef DmOpenDatabaseByTypeCreator(UInt32 type, UInt32 creator, UInt16 mode)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA075\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(type)), "r"((UInt32)(creator)), "r"((UInt16)(mode))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (DmOpenRef)__palm_a0;
}

/* Trap 0xA076 (sysTrapDmWrite), SDK 3.5 Core/System/DataMgr.h; 16 bytes of arguments. */
static __inline__ Err DmWrite(void *recordP, UInt32 offset, const void *srcP, UInt32 bytes)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %4,-(%%sp)\n\t"
                     "move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA076\n\t"
                     "lea 16(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(recordP)), "r"((UInt32)(offset)), "r"((UInt32)(srcP)), "r"((UInt32)(bytes))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA077 (sysTrapDmStrCopy), SDK 3.5 Core/System/DataMgr.h; 12 bytes of arguments. */
static __inline__ Err DmStrCopy(void *recordP, UInt32 offset, const Char *srcP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA077\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(recordP)), "r"((UInt32)(offset)), "r"((UInt32)(srcP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA078 (sysTrapDmGetNextDatabaseByTypeCreator), SDK 3.5 Core/System/DataMgr.h; 24 bytes of arguments. */
static __inline__ Err DmGetNextDatabaseByTypeCreator(Boolean newSearch, DmSearchStatePtr stateInfoP, UInt32 type, UInt32 creator, Boolean onlyLatestVers, UInt16 *cardNoP, LocalID *dbIDP)
{
    register UInt32 __palm_d0 __asm__("d0");
    struct {
        UInt16 x0;
        UInt32 x1;
        UInt32 x2;
        UInt32 x3;
        UInt16 x4;
        UInt32 x5;
        UInt32 x6;
    } __palm_args = {
        (UInt16)((UInt16)(UInt8)(newSearch) << 8),
        (UInt32)(stateInfoP),
        (UInt32)(type),
        (UInt32)(creator),
        (UInt16)((UInt16)(UInt8)(onlyLatestVers) << 8),
        (UInt32)(cardNoP),
        (UInt32)(dbIDP),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 24, "Palm argument layout");
    __asm__ volatile("lea 24(%1),%1\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA078\n\t"
                     "lea 24(%%sp),%%sp"
                     : "=d"(__palm_d0), "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA079 (sysTrapDmWriteCheck), SDK 3.5 Core/System/DataMgr.h; 12 bytes of arguments. */
static __inline__ Err DmWriteCheck(void *recordP, UInt32 offset, UInt32 bytes)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA079\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(recordP)), "r"((UInt32)(offset)), "r"((UInt32)(bytes))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA07B (sysTrapDmFindRecordByID), SDK 3.5 Core/System/DataMgr.h; 12 bytes of arguments. */
static __inline__ Err DmFindRecordByID(DmOpenRef dbP, UInt32 uniqueID, UInt16 *indexP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA07B\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(dbP)), "r"((UInt32)(uniqueID)), "r"((UInt32)(indexP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA07E (sysTrapDmSet), SDK 3.5 Core/System/DataMgr.h; 14 bytes of arguments. */
static __inline__ Err DmSet(void *recordP, UInt32 offset, UInt32 bytes, UInt8 value)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.b %4,-(%%sp)\n\t"
                     "move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA07E\n\t"
                     "lea 14(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(recordP)), "r"((UInt32)(offset)), "r"((UInt32)(bytes)), "d"((UInt8)(value))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA081 (sysTrapDbgMessage), SDK 3.5 Core/System/DebugMgr.h; 4 bytes of arguments. */
static __inline__ void DbgMessage(const Char *aStr)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA081\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(aStr))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA084 (sysTrapErrDisplayFileLineMsg), SDK 3.5 Core/System/ErrorBase.h; 10 bytes of arguments. */
static __inline__ void ErrDisplayFileLineMsg(const Char *const filename, UInt16 lineNo, const Char *const msg)
{
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA084\n\t"
                     "lea 10(%%sp),%%sp"
                     : 
                     : "r"((UInt32)(filename)), "r"((UInt16)(lineNo)), "r"((UInt32)(msg))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA08A (sysTrapSysUnimplemented), SDK 3.5 Core/System/SystemMgr.h; 0 bytes of arguments. */
static __inline__ void SysUnimplemented(void)
{
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA08A"
                     : 
                     : 
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA08C (sysTrapSysReset), SDK 3.5 Core/System/SystemMgr.h; 0 bytes of arguments. */
static __inline__ void SysReset(void)
{
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA08C"
                     : 
                     : 
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA08E (sysTrapSysAppLaunch), SDK 3.5 Core/System/SystemMgr.h; 18 bytes of arguments. */
static __inline__ Err SysAppLaunch(UInt16 cardNo, LocalID dbID, UInt16 launchFlags, UInt16 cmd, MemPtr cmdPBP, UInt32 *resultP)
{
    register UInt32 __palm_d0 __asm__("d0");
    struct {
        UInt16 x0;
        UInt32 x1;
        UInt16 x2;
        UInt16 x3;
        UInt32 x4;
        UInt32 x5;
    } __palm_args = {
        (UInt16)(cardNo),
        (UInt32)(dbID),
        (UInt16)(launchFlags),
        (UInt16)(cmd),
        (UInt32)(cmdPBP),
        (UInt32)(resultP),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 18, "Palm argument layout");
    __asm__ volatile("lea 18(%1),%1\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.w -(%1),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA08E\n\t"
                     "lea 18(%%sp),%%sp"
                     : "=d"(__palm_d0), "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA08F (sysTrapSysAppStartup), SDK 3.5 Core/System/SystemMgr.h; 12 bytes of arguments. */
static __inline__ Err SysAppStartup(SysAppInfoPtr *appInfoPP, MemPtr *prevGlobalsP, MemPtr *globalsPtrP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA08F\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(appInfoPP)), "r"((UInt32)(prevGlobalsP)), "r"((UInt32)(globalsPtrP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA090 (sysTrapSysAppExit), SDK 3.5 Core/System/SystemMgr.h; 12 bytes of arguments. */
static __inline__ Err SysAppExit(SysAppInfoPtr appInfoP, MemPtr prevGlobalsP, MemPtr globalsP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA090\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(appInfoP)), "r"((UInt32)(prevGlobalsP)), "r"((UInt32)(globalsP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA092 (sysTrapSysSetTrapAddress), SDK 3.5 Core/System/SystemMgr.h; 6 bytes of arguments. */
static __inline__ Err SysSetTrapAddress(UInt16 trapNum, void *procP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA092\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(trapNum)), "r"((UInt32)(procP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA093 (sysTrapSysGetTrapAddress), SDK 3.5 Core/System/SystemMgr.h; 2 bytes of arguments. */
static __inline__ void *SysGetTrapAddress(UInt16 trapNum)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA093\n\t"
                     "addq.l #2,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt16)(trapNum))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (void *)__palm_a0;
}

/* Trap 0xA0A0 (sysTrapSysTaskDelay), SDK 3.5 Core/System/SystemMgr.h; 4 bytes of arguments. */
static __inline__ Err SysTaskDelay(Int32 delay)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0A0\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(delay))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA0A7 (sysTrapSysUIAppSwitch), SDK 3.5 Core/System/SystemMgr.h; 12 bytes of arguments. */
static __inline__ Err SysUIAppSwitch(UInt16 cardNo, LocalID dbID, UInt16 cmd, MemPtr cmdPBP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %4,-(%%sp)\n\t"
                     "move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0A7\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(cardNo)), "r"((UInt32)(dbID)), "r"((UInt16)(cmd)), "r"((UInt32)(cmdPBP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA0A9 (sysTrapSysHandleEvent), SDK 3.5 Core/System/SystemMgr.h; 4 bytes of arguments. */
static __inline__ Boolean SysHandleEvent(EventPtr eventP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0A9\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(eventP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Boolean)__palm_d0;
}

/* Trap 0xA0AC (sysTrapSysCurAppDatabase), SDK 3.5 Core/System/SystemMgr.h; 8 bytes of arguments. */
static __inline__ Err SysCurAppDatabase(UInt16 *cardNoP, LocalID *dbIDP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0AC\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(cardNoP)), "r"((UInt32)(dbIDP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA0AD (sysTrapSysFatalAlert), SDK 3.5 Core/UI/FatalAlert.h; 4 bytes of arguments. */
static __inline__ UInt16 SysFatalAlert(const Char *msg)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0AD\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(msg))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA0BA (sysTrapSysLibFind), SDK 3.5 Core/System/SystemMgr.h; 8 bytes of arguments. */
static __inline__ Err SysLibFind(const Char *nameP, UInt16 *refNumP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0BA\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(nameP)), "r"((UInt32)(refNumP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA0C2 (sysTrapSysRandom), SDK 3.5 Core/System/SysUtils.h; 4 bytes of arguments. */
static __inline__ Int16 SysRandom(Int32 newSeed)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0C2\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(newSeed))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA0C5 (sysTrapStrCopy), SDK 3.5 Core/System/StringMgr.h; 8 bytes of arguments. */
static __inline__ Char *StrCopy(Char *dst, const Char *src)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0C5\n\t"
                     "addq.l #8,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dst)), "r"((UInt32)(src))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (Char *)__palm_a0;
}

/* Trap 0xA0C6 (sysTrapStrCat), SDK 3.5 Core/System/StringMgr.h; 8 bytes of arguments. */
static __inline__ Char *StrCat(Char *dst, const Char *src)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0C6\n\t"
                     "addq.l #8,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dst)), "r"((UInt32)(src))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (Char *)__palm_a0;
}

/* Trap 0xA0C7 (sysTrapStrLen), SDK 3.5 Core/System/StringMgr.h; 4 bytes of arguments. */
static __inline__ Int16 StrLen(const Char *src)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0C7\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(src))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA0C8 (sysTrapStrCompare), SDK 3.5 Core/System/StringMgr.h; 8 bytes of arguments. */
static __inline__ Int16 StrCompare(const Char *s1, const Char *s2)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0C8\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(s1)), "r"((UInt32)(s2))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA0C9 (sysTrapStrIToA), SDK 3.5 Core/System/StringMgr.h; 8 bytes of arguments. */
static __inline__ Char *StrIToA(Char *s, Int32 i)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0C9\n\t"
                     "addq.l #8,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(s)), "r"((UInt32)(i))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (Char *)__palm_a0;
}

/* Trap 0xA0CA (sysTrapStrCaselessCompare), SDK 3.5 Core/System/StringMgr.h; 8 bytes of arguments. */
static __inline__ Int16 StrCaselessCompare(const Char *s1, const Char *s2)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0CA\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(s1)), "r"((UInt32)(s2))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA0CB (sysTrapStrIToH), SDK 3.5 Core/System/StringMgr.h; 8 bytes of arguments. */
static __inline__ Char *StrIToH(Char *s, UInt32 i)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0CB\n\t"
                     "addq.l #8,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(s)), "r"((UInt32)(i))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (Char *)__palm_a0;
}

/* Trap 0xA0CC (sysTrapStrChr), SDK 3.5 Core/System/StringMgr.h; 6 bytes of arguments. */
static __inline__ Char *StrChr(const Char *str, WChar chr)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0CC\n\t"
                     "addq.l #6,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(str)), "r"((UInt16)(chr))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (Char *)__palm_a0;
}

/* Trap 0xA0CD (sysTrapStrStr), SDK 3.5 Core/System/StringMgr.h; 8 bytes of arguments. */
static __inline__ Char *StrStr(const Char *str, const Char *token)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0CD\n\t"
                     "addq.l #8,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(str)), "r"((UInt32)(token))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (Char *)__palm_a0;
}

/* Trap 0xA0CE (sysTrapStrAToI), SDK 3.5 Core/System/StringMgr.h; 4 bytes of arguments. */
static __inline__ Int32 StrAToI(const Char *str)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0CE\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(str))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int32)__palm_d0;
}

/* Trap 0xA0F5 (sysTrapTimGetSeconds), SDK 3.5 Core/System/TimeMgr.h; 0 bytes of arguments. */
static __inline__ UInt32 TimGetSeconds(void)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA0F5"
                     : "=d"(__palm_d0)
                     : 
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt32)__palm_d0;
}

/* Trap 0xA0F6 (sysTrapTimSetSeconds), SDK 3.5 Core/System/TimeMgr.h; 4 bytes of arguments. */
static __inline__ void TimSetSeconds(UInt32 seconds)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA0F6\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(seconds))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA0F7 (sysTrapTimGetTicks), SDK 3.5 Core/System/TimeMgr.h; 0 bytes of arguments. */
static __inline__ UInt32 TimGetTicks(void)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA0F7"
                     : "=d"(__palm_d0)
                     : 
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt32)__palm_d0;
}

/* Trap 0xA10D (sysTrapCtlDrawControl), SDK 3.5 Core/UI/Control.h; 4 bytes of arguments. */
static __inline__ void CtlDrawControl(ControlType *controlP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA10D\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(controlP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA111 (sysTrapCtlGetValue), SDK 3.5 Core/UI/Control.h; 4 bytes of arguments. */
static __inline__ Int16 CtlGetValue(const ControlType *controlP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA111\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(controlP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA112 (sysTrapCtlSetValue), SDK 3.5 Core/UI/Control.h; 6 bytes of arguments. */
static __inline__ void CtlSetValue(ControlType *controlP, Int16 newValue)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA112\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(controlP)), "r"((UInt16)(newValue))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA113 (sysTrapCtlGetLabel), SDK 3.5 Core/UI/Control.h; 4 bytes of arguments. */
static __inline__ const Char *CtlGetLabel(const ControlType *controlP)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA113\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(controlP))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (const Char *)__palm_a0;
}

/* Trap 0xA114 (sysTrapCtlSetLabel), SDK 3.5 Core/UI/Control.h; 8 bytes of arguments. */
static __inline__ void CtlSetLabel(ControlType *controlP, const Char *newLabel)
{
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA114\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(controlP)), "r"((UInt32)(newLabel))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA116 (sysTrapCtlHitControl), SDK 3.5 Core/UI/Control.h; 4 bytes of arguments. */
static __inline__ void CtlHitControl(const ControlType *controlP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA116\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(controlP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA11B (sysTrapEvtAddEventToQueue), SDK 3.5 Core/UI/Event.h; 4 bytes of arguments. */
static __inline__ void EvtAddEventToQueue(const EventType *event)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA11B\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(event))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA11C (sysTrapEvtCopyEvent), SDK 3.5 Core/UI/Event.h; 8 bytes of arguments. */
static __inline__ void EvtCopyEvent(const EventType *source, EventType *dest)
{
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA11C\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(source)), "r"((UInt32)(dest))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA11D (sysTrapEvtGetEvent), SDK 3.5 Core/UI/Event.h; 8 bytes of arguments. */
static __inline__ void EvtGetEvent(EventType *event, Int32 timeout)
{
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA11D\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(event)), "r"((UInt32)(timeout))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA125 (sysTrapEvtFlushPenQueue), SDK 3.5 Core/System/SysEvtMgr.h; 0 bytes of arguments. */
static __inline__ Err EvtFlushPenQueue(void)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA125"
                     : "=d"(__palm_d0)
                     : 
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA130 (sysTrapEvtResetAutoOffTimer), SDK 3.5 Core/System/SysEvtMgr.h; 0 bytes of arguments. */
static __inline__ Err EvtResetAutoOffTimer(void)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA130"
                     : "=d"(__palm_d0)
                     : 
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA135 (sysTrapFldDrawField), SDK 3.5 Core/UI/Field.h; 4 bytes of arguments. */
static __inline__ void FldDrawField(FieldType *fldP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA135\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(fldP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA136 (sysTrapFldEraseField), SDK 3.5 Core/UI/Field.h; 4 bytes of arguments. */
static __inline__ void FldEraseField(FieldType *fldP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA136\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(fldP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA137 (sysTrapFldFreeMemory), SDK 3.5 Core/UI/Field.h; 4 bytes of arguments. */
static __inline__ void FldFreeMemory(FieldType *fldP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA137\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(fldP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA139 (sysTrapFldGetTextPtr), SDK 3.5 Core/UI/Field.h; 4 bytes of arguments. */
static __inline__ Char *FldGetTextPtr(const FieldType *fldP)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA139\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(fldP))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (Char *)__palm_a0;
}

/* Trap 0xA13A (sysTrapFldGetSelection), SDK 3.5 Core/UI/Field.h; 12 bytes of arguments. */
static __inline__ void FldGetSelection(const FieldType *fldP, UInt16 *startPosition, UInt16 *endPosition)
{
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA13A\n\t"
                     "lea 12(%%sp),%%sp"
                     : 
                     : "r"((UInt32)(fldP)), "r"((UInt32)(startPosition)), "r"((UInt32)(endPosition))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA13B (sysTrapFldHandleEvent), SDK 3.5 Core/UI/Field.h; 8 bytes of arguments. */
static __inline__ Boolean FldHandleEvent(FieldType *fldP, EventType *eventP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA13B\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(fldP)), "r"((UInt32)(eventP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Boolean)__palm_d0;
}

/* Trap 0xA13D (sysTrapFldRecalculateField), SDK 3.5 Core/UI/Field.h; 6 bytes of arguments. */
static __inline__ void FldRecalculateField(FieldType *fldP, Boolean redraw)
{
    __asm__ volatile("move.b %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA13D\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(fldP)), "d"((UInt8)(redraw))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA13F (sysTrapFldSetText), SDK 3.5 Core/UI/Field.h; 12 bytes of arguments. */
static __inline__ void FldSetText(FieldType *fldP, MemHandle textHandle, UInt16 offset, UInt16 size)
{
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA13F\n\t"
                     "lea 12(%%sp),%%sp"
                     : 
                     : "r"((UInt32)(fldP)), "r"((UInt32)(textHandle)), "r"((UInt16)(offset)), "r"((UInt16)(size))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA142 (sysTrapFldSetSelection), SDK 3.5 Core/UI/Field.h; 8 bytes of arguments. */
static __inline__ void FldSetSelection(FieldType *fldP, UInt16 startPosition, UInt16 endPosition)
{
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA142\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(fldP)), "r"((UInt16)(startPosition)), "r"((UInt16)(endPosition))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA146 (sysTrapFldSetInsPtPosition), SDK 3.5 Core/UI/Field.h; 6 bytes of arguments. */
static __inline__ void FldSetInsPtPosition(FieldType *fldP, UInt16 pos)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA146\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(fldP)), "r"((UInt16)(pos))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA14B (sysTrapFldGetTextLength), SDK 3.5 Core/UI/Field.h; 4 bytes of arguments. */
static __inline__ UInt16 FldGetTextLength(const FieldType *fldP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA14B\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(fldP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA153 (sysTrapFldGetTextHandle), SDK 3.5 Core/UI/Field.h; 4 bytes of arguments. */
static __inline__ MemHandle FldGetTextHandle(const FieldType *fldP)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA153\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(fldP))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MemHandle)__palm_a0;
}

/* Trap 0xA155 (sysTrapFldDirty), SDK 3.5 Core/UI/Field.h; 4 bytes of arguments. */
static __inline__ Boolean FldDirty(const FieldType *fldP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA155\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(fldP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Boolean)__palm_d0;
}

/* Trap 0xA158 (sysTrapFldSetTextHandle), SDK 3.5 Core/UI/Field.h; 8 bytes of arguments. */
static __inline__ void FldSetTextHandle(FieldType *fldP, MemHandle textHandle)
{
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA158\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(fldP)), "r"((UInt32)(textHandle))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA159 (sysTrapFldSetTextPtr), SDK 3.5 Core/UI/Field.h; 8 bytes of arguments. */
static __inline__ void FldSetTextPtr(FieldType *fldP, Char *textP)
{
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA159\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(fldP)), "r"((UInt32)(textP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA15A (sysTrapFldGetMaxChars), SDK 3.5 Core/UI/Field.h; 4 bytes of arguments. */
static __inline__ UInt16 FldGetMaxChars(const FieldType *fldP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA15A\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(fldP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA15B (sysTrapFldSetMaxChars), SDK 3.5 Core/UI/Field.h; 6 bytes of arguments. */
static __inline__ void FldSetMaxChars(FieldType *fldP, UInt16 maxChars)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA15B\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(fldP)), "r"((UInt16)(maxChars))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA15D (sysTrapFldInsert), SDK 3.5 Core/UI/Field.h; 10 bytes of arguments. */
static __inline__ Boolean FldInsert(FieldType *fldP, const Char *insertChars, UInt16 insertLen)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA15D\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(fldP)), "r"((UInt32)(insertChars)), "r"((UInt16)(insertLen))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Boolean)__palm_d0;
}

/* Trap 0xA15E (sysTrapFldDelete), SDK 3.5 Core/UI/Field.h; 8 bytes of arguments. */
static __inline__ void FldDelete(FieldType *fldP, UInt16 start, UInt16 end)
{
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA15E\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(fldP)), "r"((UInt16)(start)), "r"((UInt16)(end))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA160 (sysTrapFldSetDirty), SDK 3.5 Core/UI/Field.h; 6 bytes of arguments. */
static __inline__ void FldSetDirty(FieldType *fldP, Boolean dirty)
{
    __asm__ volatile("move.b %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA160\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(fldP)), "d"((UInt8)(dirty))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA168 (sysTrapFntLineHeight), SDK 3.5 Core/System/Font.h; 0 bytes of arguments. */
static __inline__ Int16 FntLineHeight(void)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA168"
                     : "=d"(__palm_d0)
                     : 
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA16B (sysTrapFntCharsWidth), SDK 3.5 Core/System/Font.h; 6 bytes of arguments. */
static __inline__ Int16 FntCharsWidth(const Char *chars, Int16 len)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA16B\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(chars)), "r"((UInt16)(len))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA16F (sysTrapFrmInitForm), SDK 3.5 Core/UI/Form.h; 2 bytes of arguments. */
static __inline__ FormType *FrmInitForm(UInt16 rscID)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA16F\n\t"
                     "addq.l #2,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt16)(rscID))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (FormType *)__palm_a0;
}

/* Trap 0xA170 (sysTrapFrmDeleteForm), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ void FrmDeleteForm(FormType *formP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA170\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(formP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA171 (sysTrapFrmDrawForm), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ void FrmDrawForm(FormType *formP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA171\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(formP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA172 (sysTrapFrmEraseForm), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ void FrmEraseForm(FormType *formP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA172\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(formP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA173 (sysTrapFrmGetActiveForm), SDK 3.5 Core/UI/Form.h; 0 bytes of arguments. */
static __inline__ FormType *FrmGetActiveForm(void)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA173"
                     : "=a"(__palm_a0)
                     : 
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (FormType *)__palm_a0;
}

/* Trap 0xA174 (sysTrapFrmSetActiveForm), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ void FrmSetActiveForm(FormType *formP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA174\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(formP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA175 (sysTrapFrmGetActiveFormID), SDK 3.5 Core/UI/Form.h; 0 bytes of arguments. */
static __inline__ UInt16 FrmGetActiveFormID(void)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA175"
                     : "=d"(__palm_d0)
                     : 
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA178 (sysTrapFrmGetFocus), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ UInt16 FrmGetFocus(const FormType *formP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA178\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(formP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA179 (sysTrapFrmSetFocus), SDK 3.5 Core/UI/Form.h; 6 bytes of arguments. */
static __inline__ void FrmSetFocus(FormType *formP, UInt16 fieldIndex)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA179\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(formP)), "r"((UInt16)(fieldIndex))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA17A (sysTrapFrmHandleEvent), SDK 3.5 Core/UI/Form.h; 8 bytes of arguments. */
static __inline__ Boolean FrmHandleEvent(FormType *formP, EventType *eventP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA17A\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(formP)), "r"((UInt32)(eventP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Boolean)__palm_d0;
}

/* Trap 0xA17C (sysTrapFrmGetWindowHandle), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ WinHandle FrmGetWindowHandle(const FormType *formP)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA17C\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(formP))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (WinHandle)__palm_a0;
}

/* Trap 0xA17D (sysTrapFrmGetFormId), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ UInt16 FrmGetFormId(const FormType *formP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA17D\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(formP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA17E (sysTrapFrmGetFormPtr), SDK 3.5 Core/UI/Form.h; 2 bytes of arguments. */
static __inline__ FormType *FrmGetFormPtr(UInt16 formId)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA17E\n\t"
                     "addq.l #2,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt16)(formId))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (FormType *)__palm_a0;
}

/* Trap 0xA17F (sysTrapFrmGetNumberOfObjects), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ UInt16 FrmGetNumberOfObjects(const FormType *formP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA17F\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(formP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA180 (sysTrapFrmGetObjectIndex), SDK 3.5 Core/UI/Form.h; 6 bytes of arguments. */
static __inline__ UInt16 FrmGetObjectIndex(const FormType *formP, UInt16 objID)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA180\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(formP)), "r"((UInt16)(objID))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA181 (sysTrapFrmGetObjectId), SDK 3.5 Core/UI/Form.h; 6 bytes of arguments. */
static __inline__ UInt16 FrmGetObjectId(const FormType *formP, UInt16 objIndex)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA181\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(formP)), "r"((UInt16)(objIndex))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA183 (sysTrapFrmGetObjectPtr), SDK 3.5 Core/UI/Form.h; 6 bytes of arguments. */
static __inline__ void *FrmGetObjectPtr(const FormType *formP, UInt16 objIndex)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA183\n\t"
                     "addq.l #6,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(formP)), "r"((UInt16)(objIndex))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (void *)__palm_a0;
}

/* Trap 0xA184 (sysTrapFrmHideObject), SDK 3.5 Core/UI/Form.h; 6 bytes of arguments. */
static __inline__ void FrmHideObject(FormType *formP, UInt16 objIndex)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA184\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(formP)), "r"((UInt16)(objIndex))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA185 (sysTrapFrmShowObject), SDK 3.5 Core/UI/Form.h; 6 bytes of arguments. */
static __inline__ void FrmShowObject(FormType *formP, UInt16 objIndex)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA185\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(formP)), "r"((UInt16)(objIndex))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA188 (sysTrapFrmGetControlValue), SDK 3.5 Core/UI/Form.h; 6 bytes of arguments. */
static __inline__ Int16 FrmGetControlValue(const FormType *formP, UInt16 controlID)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA188\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(formP)), "r"((UInt16)(controlID))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA189 (sysTrapFrmSetControlValue), SDK 3.5 Core/UI/Form.h; 8 bytes of arguments. */
static __inline__ void FrmSetControlValue(const FormType *formP, UInt16 controlID, Int16 newValue)
{
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA189\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(formP)), "r"((UInt16)(controlID)), "r"((UInt16)(newValue))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA190 (sysTrapFrmGetTitle), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ const Char *FrmGetTitle(const FormType *formP)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA190\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(formP))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (const Char *)__palm_a0;
}

/* Trap 0xA191 (sysTrapFrmSetTitle), SDK 3.5 Core/UI/Form.h; 8 bytes of arguments. */
static __inline__ void FrmSetTitle(FormType *formP, Char *newTitle)
{
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA191\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(formP)), "r"((UInt32)(newTitle))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA192 (sysTrapFrmAlert), SDK 3.5 Core/UI/Form.h; 2 bytes of arguments. */
static __inline__ UInt16 FrmAlert(UInt16 alertId)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA192\n\t"
                     "addq.l #2,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(alertId))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA193 (sysTrapFrmDoDialog), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ UInt16 FrmDoDialog(FormType *formP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA193\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(formP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA194 (sysTrapFrmCustomAlert), SDK 3.5 Core/UI/Form.h; 14 bytes of arguments. */
static __inline__ UInt16 FrmCustomAlert(UInt16 alertId, const Char *s1, const Char *s2, const Char *s3)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %4,-(%%sp)\n\t"
                     "move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA194\n\t"
                     "lea 14(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(alertId)), "r"((UInt32)(s1)), "r"((UInt32)(s2)), "r"((UInt32)(s3))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA19A (sysTrapFrmCopyTitle), SDK 3.5 Core/UI/Form.h; 8 bytes of arguments. */
static __inline__ void FrmCopyTitle(FormType *formP, const Char *newTitle)
{
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA19A\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(formP)), "r"((UInt32)(newTitle))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA19B (sysTrapFrmGotoForm), SDK 3.5 Core/UI/Form.h; 2 bytes of arguments. */
static __inline__ void FrmGotoForm(UInt16 formId)
{
    __asm__ volatile("move.w %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA19B\n\t"
                     "addq.l #2,%%sp"
                     : 
                     : "r"((UInt16)(formId))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA19C (sysTrapFrmPopupForm), SDK 3.5 Core/UI/Form.h; 2 bytes of arguments. */
static __inline__ void FrmPopupForm(UInt16 formId)
{
    __asm__ volatile("move.w %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA19C\n\t"
                     "addq.l #2,%%sp"
                     : 
                     : "r"((UInt16)(formId))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA19D (sysTrapFrmUpdateForm), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ void FrmUpdateForm(UInt16 formId, UInt16 updateCode)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.w %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA19D\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt16)(formId)), "r"((UInt16)(updateCode))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA19E (sysTrapFrmReturnToForm), SDK 3.5 Core/UI/Form.h; 2 bytes of arguments. */
static __inline__ void FrmReturnToForm(UInt16 formId)
{
    __asm__ volatile("move.w %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA19E\n\t"
                     "addq.l #2,%%sp"
                     : 
                     : "r"((UInt16)(formId))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA19F (sysTrapFrmSetEventHandler), SDK 3.5 Core/UI/Form.h; 8 bytes of arguments. */
static __inline__ void FrmSetEventHandler(FormType *formP, FormEventHandlerType *handler)
{
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA19F\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(formP)), "r"((UInt32)(handler))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1A0 (sysTrapFrmDispatchEvent), SDK 3.5 Core/UI/Form.h; 4 bytes of arguments. */
static __inline__ Boolean FrmDispatchEvent(EventType *eventP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1A0\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(eventP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Boolean)__palm_d0;
}

/* Trap 0xA1A1 (sysTrapFrmCloseAllForms), SDK 3.5 Core/UI/Form.h; 0 bytes of arguments. */
static __inline__ void FrmCloseAllForms(void)
{
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA1A1"
                     : 
                     : 
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1B1 (sysTrapLstDrawList), SDK 3.5 Core/UI/List.h; 4 bytes of arguments. */
static __inline__ void LstDrawList(ListType *listP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1B1\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(listP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1B2 (sysTrapLstEraseList), SDK 3.5 Core/UI/List.h; 4 bytes of arguments. */
static __inline__ void LstEraseList(ListType *listP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1B2\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(listP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1B3 (sysTrapLstGetSelection), SDK 3.5 Core/UI/List.h; 4 bytes of arguments. */
static __inline__ Int16 LstGetSelection(const ListType *listP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1B3\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(listP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA1B4 (sysTrapLstGetSelectionText), SDK 3.5 Core/UI/List.h; 6 bytes of arguments. */
static __inline__ Char *LstGetSelectionText(const ListType *listP, Int16 itemNum)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1B4\n\t"
                     "addq.l #6,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(listP)), "r"((UInt16)(itemNum))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (Char *)__palm_a0;
}

/* Trap 0xA1B5 (sysTrapLstHandleEvent), SDK 3.5 Core/UI/List.h; 8 bytes of arguments. */
static __inline__ Boolean LstHandleEvent(ListType *listP, const EventType *eventP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1B5\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(listP)), "r"((UInt32)(eventP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Boolean)__palm_d0;
}

/* Trap 0xA1B6 (sysTrapLstSetHeight), SDK 3.5 Core/UI/List.h; 6 bytes of arguments. */
static __inline__ void LstSetHeight(ListType *listP, Int16 visibleItems)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1B6\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(listP)), "r"((UInt16)(visibleItems))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1B7 (sysTrapLstSetSelection), SDK 3.5 Core/UI/List.h; 6 bytes of arguments. */
static __inline__ void LstSetSelection(ListType *listP, Int16 itemNum)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1B7\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(listP)), "r"((UInt16)(itemNum))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1B8 (sysTrapLstSetListChoices), SDK 3.5 Core/UI/List.h; 10 bytes of arguments. */
static __inline__ void LstSetListChoices(ListType *listP, Char **itemsText, Int16 numItems)
{
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1B8\n\t"
                     "lea 10(%%sp),%%sp"
                     : 
                     : "r"((UInt32)(listP)), "r"((UInt32)(itemsText)), "r"((UInt16)(numItems))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1B9 (sysTrapLstMakeItemVisible), SDK 3.5 Core/UI/List.h; 6 bytes of arguments. */
static __inline__ void LstMakeItemVisible(ListType *listP, Int16 itemNum)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1B9\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(listP)), "r"((UInt16)(itemNum))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1BA (sysTrapLstGetNumberOfItems), SDK 3.5 Core/UI/List.h; 4 bytes of arguments. */
static __inline__ Int16 LstGetNumberOfItems(const ListType *listP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1BA\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(listP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA1BB (sysTrapLstPopupList), SDK 3.5 Core/UI/List.h; 4 bytes of arguments. */
static __inline__ Int16 LstPopupList(ListType *listP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1BB\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(listP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA1BD (sysTrapMenuInit), SDK 3.5 Core/UI/Menu.h; 2 bytes of arguments. */
static __inline__ MenuBarType *MenuInit(UInt16 resourceId)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1BD\n\t"
                     "addq.l #2,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt16)(resourceId))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MenuBarType *)__palm_a0;
}

/* Trap 0xA1BE (sysTrapMenuDispose), SDK 3.5 Core/UI/Menu.h; 4 bytes of arguments. */
static __inline__ void MenuDispose(MenuBarType *menuP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1BE\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(menuP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1BF (sysTrapMenuHandleEvent), SDK 3.5 Core/UI/Menu.h; 12 bytes of arguments. */
static __inline__ Boolean MenuHandleEvent(MenuBarType *menuP, EventType *event, UInt16 *error)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1BF\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(menuP)), "r"((UInt32)(event)), "r"((UInt32)(error))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Boolean)__palm_d0;
}

/* Trap 0xA1C0 (sysTrapMenuDrawMenu), SDK 3.5 Core/UI/Menu.h; 4 bytes of arguments. */
static __inline__ void MenuDrawMenu(MenuBarType *menuP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1C0\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(menuP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1C1 (sysTrapMenuEraseStatus), SDK 3.5 Core/UI/Menu.h; 4 bytes of arguments. */
static __inline__ void MenuEraseStatus(MenuBarType *menuP)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1C1\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(menuP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1C2 (sysTrapMenuGetActiveMenu), SDK 3.5 Core/UI/Menu.h; 0 bytes of arguments. */
static __inline__ MenuBarType *MenuGetActiveMenu(void)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA1C2"
                     : "=a"(__palm_a0)
                     : 
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MenuBarType *)__palm_a0;
}

/* Trap 0xA1C3 (sysTrapMenuSetActiveMenu), SDK 3.5 Core/UI/Menu.h; 4 bytes of arguments. */
static __inline__ MenuBarType *MenuSetActiveMenu(MenuBarType *menuP)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1C3\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(menuP))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (MenuBarType *)__palm_a0;
}

/* Trap 0xA1FC (sysTrapWinSetActiveWindow), SDK 3.5 Core/System/Window.h; 4 bytes of arguments. */
static __inline__ void WinSetActiveWindow(WinHandle winHandle)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1FC\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(winHandle))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA1FD (sysTrapWinSetDrawWindow), SDK 3.5 Core/System/Window.h; 4 bytes of arguments. */
static __inline__ WinHandle WinSetDrawWindow(WinHandle winHandle)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA1FD\n\t"
                     "addq.l #4,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(winHandle))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (WinHandle)__palm_a0;
}

/* Trap 0xA1FE (sysTrapWinGetDrawWindow), SDK 3.5 Core/System/Window.h; 0 bytes of arguments. */
static __inline__ WinHandle WinGetDrawWindow(void)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA1FE"
                     : "=a"(__palm_a0)
                     : 
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (WinHandle)__palm_a0;
}

/* Trap 0xA1FF (sysTrapWinGetActiveWindow), SDK 3.5 Core/System/Window.h; 0 bytes of arguments. */
static __inline__ WinHandle WinGetActiveWindow(void)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA1FF"
                     : "=a"(__palm_a0)
                     : 
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (WinHandle)__palm_a0;
}

/* Trap 0xA206 (sysTrapWinEraseWindow), SDK 3.5 Core/System/Window.h; 0 bytes of arguments. */
static __inline__ void WinEraseWindow(void)
{
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA206"
                     : 
                     : 
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA20B (sysTrapWinGetDisplayExtent), SDK 3.5 Core/System/Window.h; 8 bytes of arguments. */
static __inline__ void WinGetDisplayExtent(Coord *extentX, Coord *extentY)
{
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA20B\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt32)(extentX)), "r"((UInt32)(extentY))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA213 (sysTrapWinDrawLine), SDK 3.5 Core/System/Window.h; 8 bytes of arguments. */
static __inline__ void WinDrawLine(Coord x1, Coord y1, Coord x2, Coord y2)
{
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "move.w %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA213\n\t"
                     "addq.l #8,%%sp"
                     : 
                     : "r"((UInt16)(x1)), "r"((UInt16)(y1)), "r"((UInt16)(x2)), "r"((UInt16)(y2))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA218 (sysTrapWinDrawRectangle), SDK 3.5 Core/System/Window.h; 6 bytes of arguments. */
static __inline__ void WinDrawRectangle(const RectangleType *rP, UInt16 cornerDiam)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA218\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(rP)), "r"((UInt16)(cornerDiam))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA219 (sysTrapWinEraseRectangle), SDK 3.5 Core/System/Window.h; 6 bytes of arguments. */
static __inline__ void WinEraseRectangle(const RectangleType *rP, UInt16 cornerDiam)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA219\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(rP)), "r"((UInt16)(cornerDiam))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA21B (sysTrapWinDrawRectangleFrame), SDK 3.5 Core/System/Window.h; 6 bytes of arguments. */
static __inline__ void WinDrawRectangleFrame(FrameType frame, const RectangleType *rP)
{
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "move.w %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA21B\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt16)(frame)), "r"((UInt32)(rP))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA220 (sysTrapWinDrawChars), SDK 3.5 Core/System/Window.h; 10 bytes of arguments. */
static __inline__ void WinDrawChars(const Char *chars, Int16 len, Coord x, Coord y)
{
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA220\n\t"
                     "lea 10(%%sp),%%sp"
                     : 
                     : "r"((UInt32)(chars)), "r"((UInt16)(len)), "r"((UInt16)(x)), "r"((UInt16)(y))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA221 (sysTrapWinEraseChars), SDK 3.5 Core/System/Window.h; 10 bytes of arguments. */
static __inline__ void WinEraseChars(const Char *chars, Int16 len, Coord x, Coord y)
{
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA221\n\t"
                     "lea 10(%%sp),%%sp"
                     : 
                     : "r"((UInt32)(chars)), "r"((UInt16)(len)), "r"((UInt16)(x)), "r"((UInt16)(y))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA22A (sysTrapWinDrawInvertedChars), SDK 3.5 Core/System/Window.h; 10 bytes of arguments. */
static __inline__ void WinDrawInvertedChars(const Char *chars, Int16 len, Coord x, Coord y)
{
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA22A\n\t"
                     "lea 10(%%sp),%%sp"
                     : 
                     : "r"((UInt32)(chars)), "r"((UInt16)(len)), "r"((UInt16)(x)), "r"((UInt16)(y))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA234 (sysTrapSndPlaySystemSound), SDK 3.5 Core/System/SoundMgr.h; 2 bytes of arguments. */
static __inline__ void SndPlaySystemSound(SndSysBeepType beepID)
{
    __asm__ volatile("move.b %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA234\n\t"
                     "addq.l #2,%%sp"
                     : 
                     : "d"((UInt8)(beepID))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA27A (sysTrapFtrUnregister), SDK 3.5 Core/System/FeatureMgr.h; 6 bytes of arguments. */
static __inline__ Err FtrUnregister(UInt32 creator, UInt16 featureNum)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA27A\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(creator)), "r"((UInt16)(featureNum))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA27B (sysTrapFtrGet), SDK 3.5 Core/System/FeatureMgr.h; 10 bytes of arguments. */
static __inline__ Err FtrGet(UInt32 creator, UInt16 featureNum, UInt32 *valueP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA27B\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(creator)), "r"((UInt16)(featureNum)), "r"((UInt32)(valueP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA27C (sysTrapFtrSet), SDK 3.5 Core/System/FeatureMgr.h; 10 bytes of arguments. */
static __inline__ Err FtrSet(UInt32 creator, UInt16 featureNum, UInt32 newValue)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA27C\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(creator)), "r"((UInt16)(featureNum)), "r"((UInt32)(newValue))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA27D (sysTrapFtrGetByIndex), SDK 3.5 Core/System/FeatureMgr.h; 16 bytes of arguments. */
static __inline__ Err FtrGetByIndex(UInt16 index, Boolean romTable, UInt32 *creatorP, UInt16 *numP, UInt32 *valueP)
{
    register UInt32 __palm_d0 __asm__("d0");
    struct {
        UInt16 x0;
        UInt16 x1;
        UInt32 x2;
        UInt32 x3;
        UInt32 x4;
    } __palm_args = {
        (UInt16)(index),
        (UInt16)((UInt16)(UInt8)(romTable) << 8),
        (UInt32)(creatorP),
        (UInt32)(numP),
        (UInt32)(valueP),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 16, "Palm argument layout");
    __asm__ volatile("lea 16(%1),%1\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "move.l -(%1),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA27D\n\t"
                     "lea 16(%%sp),%%sp"
                     : "=d"(__palm_d0), "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA2B2 (sysTrapDmSearchRecord), SDK 3.5 Core/System/DataMgr.h; 8 bytes of arguments. */
static __inline__ UInt16 DmSearchRecord(MemHandle recH, DmOpenRef *dbPP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2B2\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(recH)), "r"((UInt32)(dbPP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA2B5 (sysTrapLstSetTopItem), SDK 3.5 Core/UI/List.h; 6 bytes of arguments. */
static __inline__ void LstSetTopItem(ListType *listP, Int16 itemNum)
{
    __asm__ volatile("move.w %1,-(%%sp)\n\t"
                     "move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2B5\n\t"
                     "addq.l #6,%%sp"
                     : 
                     : "r"((UInt32)(listP)), "r"((UInt16)(itemNum))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA2B6 (sysTrapSclSetScrollBar), SDK 3.5 Core/UI/ScrollBar.h; 12 bytes of arguments. */
static __inline__ void SclSetScrollBar(const ScrollBarPtr bar, Int16 value, const Int16 min, const Int16 max, const Int16 pageSize)
{
    struct {
        UInt32 x0;
        UInt16 x1;
        UInt16 x2;
        UInt16 x3;
        UInt16 x4;
    } __palm_args = {
        (UInt32)(bar),
        (UInt16)(value),
        (UInt16)(min),
        (UInt16)(max),
        (UInt16)(pageSize),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 12, "Palm argument layout");
    __asm__ volatile("lea 12(%0),%0\n\t"
                     "move.l -(%0),-(%%sp)\n\t"
                     "move.l -(%0),-(%%sp)\n\t"
                     "move.l -(%0),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2B6\n\t"
                     "lea 12(%%sp),%%sp"
                     : "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA2B7 (sysTrapSclDrawScrollBar), SDK 3.5 Core/UI/ScrollBar.h; 4 bytes of arguments. */
static __inline__ void SclDrawScrollBar(const ScrollBarPtr bar)
{
    __asm__ volatile("move.l %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2B7\n\t"
                     "addq.l #4,%%sp"
                     : 
                     : "r"((UInt32)(bar))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA2B8 (sysTrapSclHandleEvent), SDK 3.5 Core/UI/ScrollBar.h; 8 bytes of arguments. */
static __inline__ Boolean SclHandleEvent(const ScrollBarPtr bar, const EventType *event)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2B8\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(bar)), "r"((UInt32)(event))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Boolean)__palm_d0;
}

/* Trap 0xA2CC (sysTrapEvtEventAvail), SDK 3.5 Core/UI/Event.h; 0 bytes of arguments. */
static __inline__ Boolean EvtEventAvail(void)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA2CC"
                     : "=d"(__palm_d0)
                     : 
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Boolean)__palm_d0;
}

/* Trap 0xA2CE (sysTrapStrNCopy), SDK 3.5 Core/System/StringMgr.h; 10 bytes of arguments. */
static __inline__ Char *StrNCopy(Char *dst, const Char *src, Int16 n)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2CE\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dst)), "r"((UInt32)(src)), "r"((UInt16)(n))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (Char *)__palm_a0;
}

/* Trap 0xA2D6 (sysTrapStrNCat), SDK 3.5 Core/System/StringMgr.h; 10 bytes of arguments. */
static __inline__ Char *StrNCat(Char *dst, const Char *src, Int16 n)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2D6\n\t"
                     "lea 10(%%sp),%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt32)(dst)), "r"((UInt32)(src)), "r"((UInt16)(n))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (Char *)__palm_a0;
}

/* Trap 0xA2D7 (sysTrapMemCmp), SDK 3.5 Core/System/MemoryMgr.h; 12 bytes of arguments. */
static __inline__ Int16 MemCmp(const void *s1, const void *s2, Int32 numBytes)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2D7\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(s1)), "r"((UInt32)(s2)), "r"((UInt32)(numBytes))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA2DF (sysTrapStrVPrintF), SDK 3.5 Core/System/StringMgr.h; 12 bytes of arguments. */
static __inline__ Int16 StrVPrintF(Char *s, const Char *formatStr, _Palm_va_list arg)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2DF\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(s)), "r"((UInt32)(formatStr)), "r"((UInt32)(arg))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA2E7 (sysTrapSclGetScrollBar), SDK 3.5 Core/UI/ScrollBar.h; 20 bytes of arguments. */
static __inline__ void SclGetScrollBar(const ScrollBarPtr bar, Int16 *valueP, Int16 *minP, Int16 *maxP, Int16 *pageSizeP)
{
    struct {
        UInt32 x0;
        UInt32 x1;
        UInt32 x2;
        UInt32 x3;
        UInt32 x4;
    } __palm_args = {
        (UInt32)(bar),
        (UInt32)(valueP),
        (UInt32)(minP),
        (UInt32)(maxP),
        (UInt32)(pageSizeP),
    };
    const void *__palm_p = &__palm_args;
    _Static_assert(sizeof __palm_args == 20, "Palm argument layout");
    __asm__ volatile("lea 20(%0),%0\n\t"
                     "move.l -(%0),-(%%sp)\n\t"
                     "move.l -(%0),-(%%sp)\n\t"
                     "move.l -(%0),-(%%sp)\n\t"
                     "move.l -(%0),-(%%sp)\n\t"
                     "move.l -(%0),-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2E7\n\t"
                     "lea 20(%%sp),%%sp"
                     : "+a"(__palm_p)
                     : "m"(__palm_args)
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA2E9 (sysTrapSysTicksPerSecond), SDK 3.5 Core/System/SystemMgr.h; 0 bytes of arguments. */
static __inline__ UInt16 SysTicksPerSecond(void)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA2E9"
                     : "=d"(__palm_d0)
                     : 
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (UInt16)__palm_d0;
}

/* Trap 0xA2EB (sysTrapDmDatabaseProtect), SDK 3.5 Core/System/DataMgr.h; 8 bytes of arguments. */
static __inline__ Err DmDatabaseProtect(UInt16 cardNo, LocalID dbID, Boolean protect)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.b %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2EB\n\t"
                     "addq.l #8,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt16)(cardNo)), "r"((UInt32)(dbID)), "d"((UInt8)(protect))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA2ED (sysTrapStrNCompare), SDK 3.5 Core/System/StringMgr.h; 12 bytes of arguments. */
static __inline__ Int16 StrNCompare(const Char *s1, const Char *s2, Int32 n)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2ED\n\t"
                     "lea 12(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(s1)), "r"((UInt32)(s2)), "r"((UInt32)(n))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA2FA (sysTrapMenuSetActiveMenuRscID), SDK 3.5 Core/UI/Menu.h; 2 bytes of arguments. */
static __inline__ void MenuSetActiveMenuRscID(UInt16 resourceId)
{
    __asm__ volatile("move.w %0,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2FA\n\t"
                     "addq.l #2,%%sp"
                     : 
                     : "r"((UInt16)(resourceId))
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA2FF (sysTrapLstGetVisibleItems), SDK 3.5 Core/UI/List.h; 4 bytes of arguments. */
static __inline__ Int16 LstGetVisibleItems(const ListType *listP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA2FF\n\t"
                     "addq.l #4,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(listP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Int16)(UInt16)__palm_d0;
}

/* Trap 0xA323 (sysTrapSysGetOSVersionString), SDK 3.5 Core/System/SystemMgr.h; 0 bytes of arguments. */
static __inline__ Char *SysGetOSVersionString(void)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA323"
                     : "=a"(__palm_a0)
                     : 
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (Char *)__palm_a0;
}

/* Trap 0xA35A (sysTrapFtrPtrNew), SDK 3.5 Core/System/FeatureMgr.h; 14 bytes of arguments. */
static __inline__ Err FtrPtrNew(UInt32 creator, UInt16 featureNum, UInt32 size, void **newPtrP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %4,-(%%sp)\n\t"
                     "move.l %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA35A\n\t"
                     "lea 14(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(creator)), "r"((UInt16)(featureNum)), "r"((UInt32)(size)), "r"((UInt32)(newPtrP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA35B (sysTrapFtrPtrFree), SDK 3.5 Core/System/FeatureMgr.h; 6 bytes of arguments. */
static __inline__ Err FtrPtrFree(UInt32 creator, UInt16 featureNum)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA35B\n\t"
                     "addq.l #6,%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(creator)), "r"((UInt16)(featureNum))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA35C (sysTrapFtrPtrResize), SDK 3.5 Core/System/FeatureMgr.h; 14 bytes of arguments. */
static __inline__ Err FtrPtrResize(UInt32 creator, UInt16 featureNum, UInt32 newSize, void **newPtrP)
{
    register UInt32 __palm_d0 __asm__("d0");
    __asm__ volatile("move.l %4,-(%%sp)\n\t"
                     "move.l %3,-(%%sp)\n\t"
                     "move.w %2,-(%%sp)\n\t"
                     "move.l %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA35C\n\t"
                     "lea 14(%%sp),%%sp"
                     : "=d"(__palm_d0)
                     : "r"((UInt32)(creator)), "r"((UInt16)(featureNum)), "r"((UInt32)(newSize)), "r"((UInt32)(newPtrP))
                     : "d1", "d2", "a0", "a1", "cc", "memory");
    return (Err)__palm_d0;
}

/* Trap 0xA395 (sysTrapWinPushDrawState), SDK 3.5 Core/System/Window.h; 0 bytes of arguments. */
static __inline__ void WinPushDrawState(void)
{
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA395"
                     : 
                     : 
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA396 (sysTrapWinPopDrawState), SDK 3.5 Core/System/Window.h; 0 bytes of arguments. */
static __inline__ void WinPopDrawState(void)
{
    __asm__ volatile("trap #15\n\t"
                     ".short 0xA396"
                     : 
                     : 
                     : "d0", "d1", "d2", "a0", "a1", "cc", "memory");
}

/* Trap 0xA3B0 (sysTrapDmOpenDBNoOverlay), SDK 3.5 Core/System/DataMgr.h; 8 bytes of arguments. */
static __inline__ DmOpenRef DmOpenDBNoOverlay(UInt16 cardNo, LocalID dbID, UInt16 mode)
{
    register void *__palm_a0 __asm__("a0");
    __asm__ volatile("move.w %3,-(%%sp)\n\t"
                     "move.l %2,-(%%sp)\n\t"
                     "move.w %1,-(%%sp)\n\t"
                     "trap #15\n\t"
                     ".short 0xA3B0\n\t"
                     "addq.l #8,%%sp"
                     : "=a"(__palm_a0)
                     : "r"((UInt16)(cardNo)), "r"((UInt32)(dbID)), "r"((UInt16)(mode))
                     : "d0", "d1", "d2", "a1", "cc", "memory");
    return (DmOpenRef)__palm_a0;
}

/* MemoryMgr.h: MemPtrFree is MemChunkFree. */
#define MemPtrFree(p) MemChunkFree(p)

/* PALM_APP_ENTRY(PilotMain);: the application's entry, `__palm_entry`, the first
   bytes of code 1 (its section .text.palm_entry is first in palm-build's linker
   script), as m68k_palmos_sys::app_entry! makes it for Rust: SysAppStartup (on
   failure sndError and -1), PilotMain(cmd, cmdPBP, launchFlags), SysAppExit, and
   PilotMain's result. Write it once, at file scope, in one C file; no globals are
   set up (data 0 is empty: palm-build's verifier rejects .data and .bss). */
#define PALM_APP_ENTRY(pilotMain)                                                    \
    UInt32 pilotMain(UInt16 cmd, MemPtr cmdPBP, UInt16 launchFlags);                 \
    __asm__("\t.section .text.palm_entry,\"ax\",@progbits\n" \
            "\t.globl __palm_entry\n" \
            "__palm_entry:\n" \
            "\tlink.w %a6,#-16\n" \
            "\tpea (-12,%a6)\n" \
            "\tpea (-8,%a6)\n" \
            "\tpea (-4,%a6)\n" \
            "\ttrap #15\n" \
            "\t.short 0xA08F\n" \
            "\tlea (12,%sp),%sp\n" \
            "\tand.l #0xffff,%d0\n" \
            "\tbeq 1f\n" \
            "\tmove.b #3,-(%sp)\n" \
            "\ttrap #15\n" \
            "\t.short 0xA234\n" \
            "\tlea (2,%sp),%sp\n" \
            "\tmoveq #-1,%d0\n" \
            "\tbra 2f\n" \
            "1:\n" \
            "\tmove.l (-4,%a6),%a0\n" \
            "\tmoveq #0,%d0\n" \
            "\tmove.w (6,%a0),%d0\n" \
            "\tmove.l %d0,-(%sp)\n" \
            "\tmove.l (2,%a0),-(%sp)\n" \
            "\tmoveq #0,%d0\n" \
            "\tmove.w (0,%a0),%d0\n" \
            "\tmove.l %d0,-(%sp)\n" \
            "\tbsr.w " #pilotMain "\n" \
            "\tlea (12,%sp),%sp\n" \
            "\tmove.l %d0,(-16,%a6)\n" \
            "\tmove.l (-12,%a6),-(%sp)\n" \
            "\tmove.l (-8,%a6),-(%sp)\n" \
            "\tmove.l (-4,%a6),-(%sp)\n" \
            "\ttrap #15\n" \
            "\t.short 0xA090\n" \
            "\tlea (12,%sp),%sp\n" \
            "\tmove.l (-16,%a6),%d0\n" \
            "2:\n" \
            "\tunlk %a6\n" \
            "\trts\n" \
            "\t.text\n")

#ifdef __cplusplus
}
#endif

#endif /* PALM_SYS_H */
