//! The C header `palm-sys/include/palm-sys.h`: Palm OS types, constants and
//! system calls for GNU C (`m68k-linux-gnu-gcc`), generated from the same
//! trap table as the Rust glue ([`crate::table::TRAPS`], from `traps.tbl`)
//! and from this crate's constants and layouts, so C and Rust cannot
//! disagree. [`header`] makes the text; `palm-sys/tests/c_header.rs` checks
//! that the committed file is exactly it (`PALM_SYS_BLESS=1` rewrites the
//! file) and runs every system call of it in the 68000 emulator.
//!
//! GNU C's own calling convention (every argument in a 4-byte slot) is not
//! Palm OS's (16-bit values in 2-byte slots, PALM_FACTS §3.2), so each trap is
//! a `static __inline__` function with the SDK's name and prototype whose
//! `asm` pushes the arguments in Palm's layout, as [`crate::glue`] does:
//! up to [`DIRECT_MAX_ARGS`] arguments from registers (an 8-bit value with
//! `move.b`, which puts it in the high byte of its 2-byte slot), more through
//! a Palm-layout block copied onto the stack; then `trap #15` and the trap
//! word, the arguments popped, the result read from A0 for a pointer and D0
//! otherwise (truncated to its type), D0–D2/A0–A1 clobbered (§3.3). The two
//! variadic traps (`StrPrintF`, `HostControl`) are left out: C's `...`
//! promotes 16-bit values to 4 bytes.
//!
//! Host only (it is text for C compilers).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use core::mem::{offset_of, size_of};

use crate::table::{ArgKind, RetKind, TRAPS, TrapInfo};
use crate::types::{self, dm, errors, events, fatal, launch, mem, sounds};

/// Traps with more arguments than this pass them through a block (as the Rust
/// glue's block form): GNU C has 8 registers left for `asm` inputs once
/// D0–D2/A0–A1 are clobbered, A5 is fixed (`-ffixed-a5`) and A6 is the frame
/// pointer, and needs some for the values it keeps across the call.
pub const DIRECT_MAX_ARGS: usize = 4;

/// Scalar and pointer typedefs of the SDK types in `traps.tbl`: name, C
/// definition, size in bytes (checked against this crate's Rust type).
fn typedefs() -> Vec<(&'static str, &'static str, usize)> {
    vec![
        ("UInt8", "unsigned char", size_of::<types::UInt8>()),
        ("Int8", "signed char", size_of::<types::Int8>()),
        ("UInt16", "unsigned short", size_of::<types::UInt16>()),
        ("Int16", "short", size_of::<types::Int16>()),
        ("UInt32", "unsigned long", size_of::<types::UInt32>()),
        ("Int32", "long", size_of::<types::Int32>()),
        ("Boolean", "UInt8", size_of::<types::Boolean>()),
        ("Char", "char", size_of::<types::Char>()),
        ("WChar", "UInt16", size_of::<types::WChar>()),
        ("Err", "UInt16", size_of::<types::Err>()),
        ("LocalID", "UInt32", size_of::<types::LocalID>()),
        ("Coord", "Int16", size_of::<types::Coord>()),
        ("DmResType", "UInt32", size_of::<types::DmResType>()),
        ("DmResID", "UInt16", size_of::<types::DmResID>()),
        ("FrameType", "UInt16", size_of::<types::FrameType>()),
        (
            "HostControlTrapNumber",
            "UInt16",
            size_of::<types::HostControlTrapNumber>(),
        ),
        (
            "SndSysBeepType",
            "UInt8",
            size_of::<types::SndSysBeepType>(),
        ),
        ("MemPtr", "void *", 4),
        ("MemHandle", "struct _opaque *", 4),
        ("DmOpenRef", "void *", 4),
        ("_Palm_va_list", "char *", 4),
    ]
}

/// Structures with a layout here (the rest are opaque).
const DEFINED: &[&str] = &[
    "PointType",
    "RectangleType",
    "EventType",
    "DmSearchStateType",
    "FormEventHandlerType",
    "FrameType",
    "SndSysBeepType",
];

/// `NAME value` lines for the constants (values from this crate).
macro_rules! constants {
    ($($path:path),* $(,)?) => {
        vec![$((
            {
                let p = stringify!($path);
                p.rsplit(':').next().unwrap_or(p)
            },
            i64::from($path)
        )),*]
    };
}

fn constants() -> Vec<(&'static str, i64)> {
    let mut v = constants![
        types::errNone,
        errors::memErrorClass,
        errors::dmErrorClass,
        errors::sysErrorClass,
        errors::evtErrorClass,
        errors::sndErrorClass,
        errors::timErrorClass,
        errors::ftrErrorClass,
        errors::winErrorClass,
        errors::menuErrorClass,
        errors::appErrorClass,
        errors::memErrChunkLocked,
        errors::memErrNotEnoughSpace,
        errors::memErrInvalidParam,
        errors::memErrChunkNotLocked,
        errors::dmErrMemError,
        errors::dmErrIndexOutOfRange,
        errors::dmErrInvalidParam,
        errors::dmErrReadOnly,
        errors::dmErrCantOpen,
        errors::dmErrCantFind,
        errors::dmErrAlreadyExists,
        errors::sysErrParamErr,
        errors::sysErrNotAllowed,
        errors::ftrErrNoSuchFeature,
        launch::sysAppLaunchCmdNormalLaunch,
        launch::sysAppLaunchCmdFind,
        launch::sysAppLaunchCmdGoTo,
        launch::sysAppLaunchCmdSyncNotify,
        launch::sysAppLaunchCmdTimeChange,
        launch::sysAppLaunchCmdSystemReset,
        launch::sysAppLaunchCmdAlarmTriggered,
        launch::sysAppLaunchCmdDisplayAlarm,
        launch::sysAppLaunchCmdCountryChange,
        launch::sysAppLaunchCmdSaveData,
        launch::sysAppLaunchCmdInitDatabase,
        launch::sysAppLaunchCmdCustomBase,
        launch::sysAppLaunchFlagNewThread,
        launch::sysAppLaunchFlagNewStack,
        launch::sysAppLaunchFlagNewGlobals,
        launch::sysAppLaunchFlagUIApp,
        launch::sysAppLaunchFlagSubCall,
        launch::sysAppLaunchFlagDataRelocated,
        events::nilEvent,
        events::penDownEvent,
        events::penUpEvent,
        events::penMoveEvent,
        events::keyDownEvent,
        events::winEnterEvent,
        events::winExitEvent,
        events::ctlEnterEvent,
        events::ctlExitEvent,
        events::ctlSelectEvent,
        events::ctlRepeatEvent,
        events::lstEnterEvent,
        events::lstSelectEvent,
        events::lstExitEvent,
        events::popSelectEvent,
        events::fldEnterEvent,
        events::fldHeightChangedEvent,
        events::fldChangedEvent,
        events::tblEnterEvent,
        events::tblSelectEvent,
        events::daySelectEvent,
        events::menuEvent,
        events::appStopEvent,
        events::frmLoadEvent,
        events::frmOpenEvent,
        events::frmGotoEvent,
        events::frmUpdateEvent,
        events::frmSaveEvent,
        events::frmCloseEvent,
        events::frmTitleEnterEvent,
        events::frmTitleSelectEvent,
        events::tblExitEvent,
        events::sclEnterEvent,
        events::sclExitEvent,
        events::sclRepeatEvent,
        events::tsmConfirmEvent,
        events::menuCmdBarOpenEvent,
        events::firstUserEvent,
        events::evtWaitForever,
        events::evtNoWait,
        mem::memNewChunkFlagPreLock,
        mem::memNewChunkFlagNonMovable,
        mem::memNewChunkFlagAtStart,
        mem::memNewChunkFlagAtEnd,
        mem::dynamicHeapID,
        dm::dmModeReadOnly,
        dm::dmModeWrite,
        dm::dmModeReadWrite,
        dm::dmModeLeaveOpen,
        dm::dmModeExclusive,
        dm::dmModeShowSecret,
        sounds::sndInfo,
        sounds::sndWarning,
        sounds::sndError,
        sounds::sndStartUp,
        sounds::sndAlarm,
        sounds::sndConfirmation,
        sounds::sndClick,
        fatal::fatalReset,
        fatal::fatalEnterDebugger,
        fatal::fatalDoNothing,
    ];
    v.push(("sysFileTApplication", i64::from(types::sysFileTApplication)));
    v
}

/// A constant as C: decimal up to 255 and for negatives (parenthesized),
/// else hex, with `UL` above 0x7FFF so that it stays unsigned where `int` is
/// 16 bits (prc-tools).
fn c_value(v: i64) -> String {
    match v {
        v if v < 0 => format!("({v})"),
        0..=255 => v.to_string(),
        256..=0x7FFF => format!("0x{v:04X}"),
        _ => format!("0x{v:X}UL"),
    }
}

/// The return type text of a prototype (what precedes the name).
fn return_type<'a>(t: &TrapInfo, proto: &'a str) -> &'a str {
    let open = proto.find('(').unwrap_or(proto.len());
    proto[..open]
        .trim_end()
        .strip_suffix(t.name)
        .unwrap_or("void")
        .trim()
}

/// The C types of a prototype: its return type, then each parameter's
/// (`const Char *` of `const Char *nameP`).
pub fn prototype_types(t: &TrapInfo) -> Vec<String> {
    let proto = t.prototype;
    let open = proto.find('(').unwrap_or(proto.len());
    let inner = proto[open..].trim_start_matches('(').trim_end_matches(')');
    let mut types = vec![return_type(t, proto).to_string()];
    if inner.trim() != "void" {
        for p in inner.split(',').map(str::trim).filter(|p| *p != "...") {
            let cut = p
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            types.push(p[..cut].trim().to_string());
        }
    }
    types
}

/// The structures a trap uses only through pointers (`FormType` of
/// `FormType *formP`): type names ending in `Type` without a definition here.
fn structs_of(t: &TrapInfo, out: &mut BTreeSet<String>) {
    let scalars: Vec<&str> = typedefs().iter().map(|(n, _, _)| *n).collect();
    for ty in prototype_types(t) {
        let base = ty.replace("const", " ").replace('*', " ");
        let base = base.trim();
        if base.ends_with("Type") && !DEFINED.contains(&base) && !scalars.contains(&base) {
            out.insert(base.to_string());
        }
    }
}

/// The `asm` push of one argument and its input operand.
fn push_insn(kind: ArgKind) -> (&'static str, &'static str, &'static str) {
    match kind {
        ArgKind::U8 => ("move.b", "d", "UInt8"),
        ArgKind::U16 => ("move.w", "r", "UInt16"),
        ArgKind::U32 | ArgKind::Ptr => ("move.l", "r", "UInt32"),
    }
}

/// `addq.l #n,%sp` for 1–8 bytes, else `lea`; nothing for 0.
fn pop(bytes: u32) -> Option<String> {
    match bytes {
        0 => None,
        1..=8 => Some(format!("addq.l #{bytes},%%sp")),
        n => Some(format!("lea {n}(%%sp),%%sp")),
    }
}

fn trap_function(out: &mut String, t: &TrapInfo) {
    let proto = t.prototype;
    let ret = return_type(t, proto);
    let bytes = t.args_stack_bytes();
    let _ = writeln!(
        out,
        "/* Trap 0x{:04X} (sysTrap{}), SDK 3.5 Core/{}; {bytes} bytes of arguments. */",
        t.trap, t.name, t.header
    );
    let _ = writeln!(out, "static __inline__ {proto}\n{{");
    let (out_reg, out_var, clobbers): (Option<&str>, &str, &[&str]) = match t.ret {
        RetKind::Void => (None, "", &["d0", "d1", "d2", "a0", "a1"]),
        RetKind::Ptr => (Some("a0"), "__palm_a0", &["d0", "d1", "d2", "a1"]),
        _ => (Some("d0"), "__palm_d0", &["d1", "d2", "a0", "a1"]),
    };
    match out_reg {
        Some("a0") => {
            let _ = writeln!(out, "    register void *__palm_a0 __asm__(\"a0\");");
        }
        Some(_) => {
            let _ = writeln!(out, "    register UInt32 __palm_d0 __asm__(\"d0\");");
        }
        None => {}
    }
    let call = ["trap #15".to_string(), format!(".short 0x{:04X}", t.trap)];
    let mut outputs: Vec<String> = Vec::new();
    if let Some(reg) = out_reg {
        outputs.push(format!(
            "\"={}\"({out_var})",
            if reg == "a0" { "a" } else { "d" }
        ));
    }
    let mut inputs: Vec<String> = Vec::new();
    let mut template: Vec<String> = Vec::new();
    if t.args.len() <= DIRECT_MAX_ARGS {
        let first = outputs.len();
        for (i, a) in t.args.iter().enumerate().rev() {
            let (insn, _, _) = push_insn(a.kind);
            template.push(format!("{insn} %{},-(%%sp)", first + i));
        }
        for a in t.args {
            let (_, constraint, ty) = push_insn(a.kind);
            inputs.push(format!("\"{constraint}\"(({ty})({}))", a.name));
        }
    } else {
        let _ = writeln!(out, "    struct {{");
        for (i, a) in t.args.iter().enumerate() {
            let ty = match a.kind {
                ArgKind::U8 | ArgKind::U16 => "UInt16",
                ArgKind::U32 | ArgKind::Ptr => "UInt32",
            };
            let _ = writeln!(out, "        {ty} x{i};");
        }
        let _ = writeln!(out, "    }} __palm_args = {{");
        for a in t.args {
            let v = match a.kind {
                ArgKind::U8 => format!("(UInt16)((UInt16)(UInt8)({}) << 8)", a.name),
                ArgKind::U16 => format!("(UInt16)({})", a.name),
                ArgKind::U32 | ArgKind::Ptr => format!("(UInt32)({})", a.name),
            };
            let _ = writeln!(out, "        {v},");
        }
        let _ = writeln!(out, "    }};");
        let _ = writeln!(
            out,
            "    const void *__palm_p = &__palm_args;\n    \
             _Static_assert(sizeof __palm_args == {bytes}, \"Palm argument layout\");"
        );
        let p = outputs.len();
        template.push(format!("lea {bytes}(%{p}),%{p}"));
        for _ in 0..bytes / 4 {
            template.push(format!("move.l -(%{p}),-(%%sp)"));
        }
        if bytes % 4 != 0 {
            template.push(format!("move.w -(%{p}),-(%%sp)"));
        }
        outputs.push("\"+a\"(__palm_p)".to_string());
        inputs.push("\"m\"(__palm_args)".to_string());
    }
    template.extend(call);
    template.extend(pop(bytes));
    let template: Vec<String> = template
        .iter()
        .enumerate()
        .map(|(i, insn)| {
            let end = if i + 1 == template.len() {
                ""
            } else {
                "\\n\\t"
            };
            format!("\"{insn}{end}\"")
        })
        .collect();
    let clob: Vec<String> = clobbers
        .iter()
        .map(|c| format!("\"{c}\""))
        .chain(["\"cc\"".to_string(), "\"memory\"".to_string()])
        .collect();
    let _ = writeln!(
        out,
        "    __asm__ volatile({}\n                     : {}\n                     : {}\n                     : {});",
        template.join("\n                     "),
        outputs.join(", "),
        inputs.join(", "),
        clob.join(", ")
    );
    match t.ret {
        RetKind::Void => {}
        RetKind::Ptr => {
            let _ = writeln!(out, "    return ({ret})__palm_a0;");
        }
        RetKind::I16 => {
            let _ = writeln!(out, "    return ({ret})(UInt16)__palm_d0;");
        }
        _ => {
            let _ = writeln!(out, "    return ({ret})__palm_d0;");
        }
    }
    let _ = writeln!(out, "}}\n");
}

/// The application entry, as [`crate::app_entry!`]'s: `SysAppStartup`, on
/// failure `sndError` and -1, else PilotMain with the launch code, parameter
/// block and flags (each zero-extended in a 4-byte slot, GNU C's convention),
/// then `SysAppExit` and PilotMain's result in D0.
fn entry_macro(out: &mut String) {
    use crate::traps::{sysTrapSndPlaySystemSound, sysTrapSysAppExit, sysTrapSysAppStartup};
    let lines = [
        "\\t.section .text.palm_entry,\\\"ax\\\",@progbits\\n".to_string(),
        "\\t.globl __palm_entry\\n".to_string(),
        "__palm_entry:\\n".to_string(),
        "\\tlink.w %a6,#-16\\n".to_string(),
        "\\tpea (-12,%a6)\\n".to_string(),
        "\\tpea (-8,%a6)\\n".to_string(),
        "\\tpea (-4,%a6)\\n".to_string(),
        "\\ttrap #15\\n".to_string(),
        format!("\\t.short 0x{sysTrapSysAppStartup:04X}\\n"),
        "\\tlea (12,%sp),%sp\\n".to_string(),
        "\\tand.l #0xffff,%d0\\n".to_string(),
        "\\tbeq 1f\\n".to_string(),
        format!("\\tmove.b #{},-(%sp)\\n", sounds::sndError),
        "\\ttrap #15\\n".to_string(),
        format!("\\t.short 0x{sysTrapSndPlaySystemSound:04X}\\n"),
        "\\tlea (2,%sp),%sp\\n".to_string(),
        "\\tmoveq #-1,%d0\\n".to_string(),
        "\\tbra 2f\\n".to_string(),
        "1:\\n".to_string(),
        "\\tmove.l (-4,%a6),%a0\\n".to_string(),
        "\\tmoveq #0,%d0\\n".to_string(),
        "\\tmove.w (6,%a0),%d0\\n".to_string(),
        "\\tmove.l %d0,-(%sp)\\n".to_string(),
        "\\tmove.l (2,%a0),-(%sp)\\n".to_string(),
        "\\tmoveq #0,%d0\\n".to_string(),
        "\\tmove.w (0,%a0),%d0\\n".to_string(),
        "\\tmove.l %d0,-(%sp)\\n".to_string(),
        "\\tbsr.w \" #pilotMain \"\\n".to_string(),
        "\\tlea (12,%sp),%sp\\n".to_string(),
        "\\tmove.l %d0,(-16,%a6)\\n".to_string(),
        "\\tmove.l (-12,%a6),-(%sp)\\n".to_string(),
        "\\tmove.l (-8,%a6),-(%sp)\\n".to_string(),
        "\\tmove.l (-4,%a6),-(%sp)\\n".to_string(),
        "\\ttrap #15\\n".to_string(),
        format!("\\t.short 0x{sysTrapSysAppExit:04X}\\n"),
        "\\tlea (12,%sp),%sp\\n".to_string(),
        "\\tmove.l (-16,%a6),%d0\\n".to_string(),
        "2:\\n".to_string(),
        "\\tunlk %a6\\n".to_string(),
        "\\trts\\n".to_string(),
        "\\t.text\\n".to_string(),
    ];
    out.push_str(
        "/* PALM_APP_ENTRY(PilotMain);: the application's entry, `__palm_entry`, the first\n   \
         bytes of code 1 (its section .text.palm_entry is first in palm-build's linker\n   \
         script), as m68k_palmos_sys::app_entry! makes it for Rust: SysAppStartup (on\n   \
         failure sndError and -1), PilotMain(cmd, cmdPBP, launchFlags), SysAppExit, and\n   \
         PilotMain's result. Write it once, at file scope, in one C file; no globals are\n   \
         set up (data 0 is empty: palm-build's verifier rejects .data and .bss). */\n",
    );
    out.push_str(
        "#define PALM_APP_ENTRY(pilotMain)                                                    \\\n    \
         UInt32 pilotMain(UInt16 cmd, MemPtr cmdPBP, UInt16 launchFlags);                 \\\n    \
         __asm__(",
    );
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str("            ");
        }
        let _ = write!(out, "\"{l}\"");
        out.push_str(if i + 1 == lines.len() {
            ")\n\n"
        } else {
            " \\\n"
        });
    }
}

/// The text of `palm-sys/include/palm-sys.h`.
pub fn header() -> String {
    let mut out = String::new();
    out.push_str(concat!(
        "/*\n",
        " * palm-sys.h: Palm OS 68k types, constants and system calls for GNU C\n",
        " * (Debian's m68k-linux-gnu-gcc), generated from palm-sys/traps.tbl by\n",
        " * m68k_palmos_sys::c_header (PALM_SYS_BLESS=1 cargo test -p m68k-palmos-sys --test\n",
        " * c_header writes it). Do not edit.\n",
        " *\n",
        " * Compile with: m68k-linux-gnu-gcc -m68000 -mpcrel -ffixed-a5 -fno-omit-frame-pointer\n",
        " *   -ffreestanding -fno-builtin -nostdlib -ffunction-sections -fdata-sections\n",
        " *   -fno-asynchronous-unwind-tables -g (code 1 runs where the OS puts it, so every\n",
        " *   reference is PC-relative; A5 is the OS's; A6 frames are what memdbg walks),\n",
        " * and link with `palm-build c-app`. No globals: the linker script has no data 0\n",
        " * (keep state in a chunk, found through FtrGet).\n",
        " *\n",
        " * Each trap is a static inline function with the SDK's name and prototype (SDK 3.5\n",
        " * Core/ headers) whose asm pushes its arguments the Palm way (16-bit values in\n",
        " * 2-byte slots, 8-bit values in the high byte of theirs), makes the system call\n",
        " * (trap #15 and the trap word), pops them and reads a pointer result from A0,\n",
        " * anything else from D0. GNU C's convention (4-byte slots) is never used to call\n",
        " * the OS. StrPrintF and HostControl (variadic) are left out. A function the OS\n",
        " * calls back is plain C when its arguments are pointers (a form event handler,\n",
        " * Boolean handler(EventType *), lines up in both conventions).\n",
        " *\n",
        " * This is a minimal header for GNU C, not the SDK's PalmOS.h: prc-tools users keep\n",
        " * their own PalmOS.h (its compiler has the Palm convention built in). Don't mix.\n",
        " */\n",
        "#ifndef PALM_SYS_H\n",
        "#define PALM_SYS_H\n\n",
        "#if !defined(__GNUC__) || !defined(__mc68000__)\n",
        "#error \"palm-sys.h is for GNU C targeting the 68000 (m68k-linux-gnu-gcc -m68000)\"\n",
        "#endif\n\n",
        "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
        "/* Types (PalmTypes.h and the managers' headers). */\n",
    ));
    for (name, def, _) in typedefs() {
        let sep = if def.ends_with('*') { "" } else { " " };
        let _ = writeln!(out, "typedef {def}{sep}{name};");
    }
    out.push('\n');
    for (name, _, size) in typedefs() {
        let _ = writeln!(
            out,
            "_Static_assert(sizeof({name}) == {size}, \"{name} is {size} bytes on Palm OS\");"
        );
    }
    // WindowType: WinHandle's.
    let mut opaque: BTreeSet<String> = ["WindowType".to_string()].into();
    for t in TRAPS {
        structs_of(t, &mut opaque);
    }
    out.push_str("\n/* Structures used only through pointers (use the managers' calls). */\n");
    for s in &opaque {
        let _ = writeln!(out, "typedef struct {s} {s};");
    }
    out.push_str(concat!(
        "typedef struct SysAppInfoType *SysAppInfoPtr;\n",
        "typedef struct ScrollBarType *ScrollBarPtr;\n",
        "typedef WindowType *WinHandle;\n",
    ));
    out.push_str(concat!(
        "\n/* Structures with their Palm OS layout (2-byte packing, as GNU C lays them out\n",
        "   for the 68000), checked against m68k_palmos_sys::types below. */\n",
        "typedef struct PointType {\n    Coord x;\n    Coord y;\n} PointType;\n\n",
        "typedef struct RectangleType {\n    PointType topLeft;\n    PointType extent;\n} RectangleType;\n\n",
        "typedef struct DmSearchStateType {\n    UInt32 info[8];\n} DmSearchStateType;\n",
        "typedef DmSearchStateType *DmSearchStatePtr;\n\n",
        "/* Event.h: eType is an eventsEnum (2 bytes); data by event. */\n",
        "typedef struct EventType {\n",
        "    UInt16 eType;\n",
        "    Boolean penDown;\n",
        "    UInt8 tapCount;\n",
        "    Int16 screenX;\n",
        "    Int16 screenY;\n",
        "    union {\n",
        "        UInt16 generic[8];\n",
        "        struct { PointType start; PointType end; } penUp;\n",
        "        struct { WChar chr; UInt16 keyCode; UInt16 modifiers; } keyDown;\n",
        "        struct { UInt16 controlID; ControlType *pControl; } ctlEnter;\n",
        "        struct {\n",
        "            UInt16 controlID;\n",
        "            ControlType *pControl;\n",
        "            Boolean on;\n",
        "            UInt8 reserved1;\n",
        "            UInt16 value;\n",
        "        } ctlSelect;\n",
        "        struct { UInt16 fieldID; FieldType *pField; } fldEnter, fldChanged, fldExit;\n",
        "        struct { UInt16 listID; ListType *pList; Int16 selection; } lstSelect;\n",
        "        struct { UInt16 formID; } frmLoad, frmOpen, frmClose, frmTitleEnter, frmTitleSelect;\n",
        "        struct { UInt16 formID; UInt16 updateCode; } frmUpdate;\n",
        "        struct { UInt16 itemID; } menu;\n",
        "        struct {\n",
        "            UInt16 controlID;\n",
        "            ControlType *controlP;\n",
        "            UInt16 listID;\n",
        "            ListType *listP;\n",
        "            Int16 selection;\n",
        "            Int16 priorSelection;\n",
        "        } popSelect;\n",
        "    } data;\n",
        "} EventType;\n",
        "typedef EventType *EventPtr;\n\n",
        "/* Form.h: the event handler a form calls (FrmSetEventHandler). */\n",
        "typedef Boolean FormEventHandlerType(EventType *eventP);\n\n",
    ));
    let layouts: [(&str, usize); 4] = [
        ("PointType", size_of::<types::PointType>()),
        ("RectangleType", size_of::<types::RectangleType>()),
        ("DmSearchStateType", size_of::<types::DmSearchStateType>()),
        ("EventType", size_of::<types::EventType>()),
    ];
    for (name, size) in layouts {
        let _ = writeln!(
            out,
            "_Static_assert(sizeof({name}) == {size}, \"{name} is {size} bytes on Palm OS\");"
        );
    }
    let offsets: [(&str, usize); 8] = [
        ("eType", offset_of!(types::EventType, eType)),
        ("penDown", offset_of!(types::EventType, penDown)),
        ("screenX", offset_of!(types::EventType, screenX)),
        ("data", offset_of!(types::EventType, data)),
        (
            "data.ctlSelect.on",
            offset_of!(types::EventType, data) + offset_of!(types::CtlSelectEventData, on),
        ),
        (
            "data.ctlSelect.value",
            offset_of!(types::EventType, data) + offset_of!(types::CtlSelectEventData, value),
        ),
        (
            "data.lstSelect.selection",
            offset_of!(types::EventType, data) + offset_of!(types::LstSelectEventData, selection),
        ),
        (
            "data.popSelect.priorSelection",
            offset_of!(types::EventType, data)
                + offset_of!(types::PopSelectEventData, priorSelection),
        ),
    ];
    for (field, off) in offsets {
        let _ = writeln!(
            out,
            "_Static_assert(__builtin_offsetof(EventType, {field}) == {off}, \"EventType.{field} \
             is at +{off}\");"
        );
    }
    out.push_str("\n/* Constants (ErrorBase.h, SystemMgr.h, Event.h, MemoryMgr.h, DataMgr.h, SoundMgr.h). */\n");
    for (name, value) in constants() {
        let _ = writeln!(out, "#define {name} {}", c_value(value));
    }
    out.push_str("\n/* Trap numbers (CoreTraps.h). */\n");
    for t in TRAPS {
        let _ = writeln!(out, "#define sysTrap{} 0x{:04X}", t.name, t.trap);
    }
    out.push_str("\n/* System calls. */\n");
    for t in TRAPS.iter().filter(|t| !t.variadic) {
        trap_function(&mut out, t);
    }
    out.push_str(
        "/* MemoryMgr.h: MemPtrFree is MemChunkFree. */\n#define MemPtrFree(p) MemChunkFree(p)\n\n",
    );
    entry_macro(&mut out);
    out.push_str("#ifdef __cplusplus\n}\n#endif\n\n#endif /* PALM_SYS_H */\n");
    out
}
