//! System Manager, Error Manager, Debug, Time and Sound traps, the dispatch
//! table, and the A5 world built by SysAppStartup (PALM_FACTS §1.6, §2, §3.4, §4.3).
#![allow(non_snake_case)]

use crate::heap::Placement;
use crate::machine::{
    AlertResponse, Call, DISPATCH_TABLE_ENTRIES, Machine, Stop, StopKind, rom_entry,
};
use crate::memory::SYS_DISPATCH_TABLE_P;
use crate::os::SetupError;
use m68k_palmos_sys::traps;

/// `sysErrParamErr`.
pub const SYS_ERR_PARAM: u32 = 0x0502;
/// `sysErrNotAllowed`.
pub const SYS_ERR_NOT_ALLOWED: u32 = 0x0505;
/// `sysAppLaunchFlagNewGlobals` (PALM_FACTS §2.3).
pub const LAUNCH_FLAG_NEW_GLOBALS: u16 = 0x04;
/// `sysAppLaunchFlagUIApp`.
pub const LAUNCH_FLAG_UI_APP: u16 = 0x08;
/// `sysAppLaunchFlagDataRelocated`: set by our SysAppStartup after it applied
/// the `data` 0 relocation tables (PALM_FACTS §1.6 item 6).
pub const LAUNCH_FLAG_DATA_RELOCATED: u16 = 0x80;
/// Size of `SysAppInfoType` in bytes (PALM_FACTS §2.4).
pub const SYS_APP_INFO_SIZE: u32 = 60;
/// Offset of `launchFlags` in `SysAppInfoType`.
pub const APP_INFO_LAUNCH_FLAGS: u32 = 6;
/// Offset of `memOwnerID` in `SysAppInfoType`.
pub const APP_INFO_OWNER_ID: u32 = 28;
/// `fatalDoNothing`: SysFatalAlert's answer when the user continues.
pub const FATAL_DO_NOTHING: u32 = 0xFFFF;

/// The running app, as set up by the launcher.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppContext {
    /// 68k address of its `SysAppInfoType`.
    pub app_info: u32,
    /// LocalID of its database.
    pub db_id: u32,
    /// `code` 0 resource bytes (A5-world sizes), if any.
    pub code0: Option<Vec<u8>>,
    /// `data` 0 resource bytes, if any.
    pub data0: Option<Vec<u8>>,
    /// Globals chunk allocated by SysAppStartup (0 if none).
    pub globals: u32,
}

/// System state.
#[derive(Debug, Clone, Default)]
pub struct SysState {
    /// Owner ID stamped on new chunks (the app's while it runs, else 0).
    pub cur_owner: u8,
    /// 68k address where code 1's first byte runs (ELF address 0).
    pub code1_base: Option<u32>,
    /// The app being run.
    pub app: Option<AppContext>,
    /// The app stack `[bottom, top)`.
    pub stack: Option<(u32, u32)>,
    /// SysAppStartup / SysAppExit calls seen.
    pub startups: u32,
    /// SysAppExit calls seen.
    pub exits: u32,
    /// DbgMessage texts.
    pub dbg_messages: Vec<String>,
    /// ErrDisplayFileLineMsg calls: (file, line, message).
    pub err_displays: Vec<(String, u16, String)>,
    /// SysFatalAlert messages.
    pub fatal_alerts: Vec<String>,
    /// SndPlaySystemSound beep IDs played.
    pub sounds: Vec<u8>,
    /// SysRandom state.
    pub random_seed: u32,
    /// Added to TimGetSeconds (TimSetSeconds).
    pub seconds_offset: u32,
}

impl SysState {
    /// Check SP against the app's stack chunk.
    pub fn check_stack(&self, sp: u32) -> Result<(), StopKind> {
        match self.stack {
            Some((bottom, top))
                if sp < bottom && sp.saturating_add(0x1_0000) > bottom && sp < top =>
            {
                Err(StopKind::StackOverflow { sp, bottom })
            }
            _ => Ok(()),
        }
    }
}

/// Allocate the dispatch table (a system chunk in the dynamic heap, one long
/// per trap, each pointing at its ROM entry) and store its address at
/// `sysDispatchTableP` (0x0122).
pub fn install_dispatch_table(m: &mut Machine) -> Result<(), SetupError> {
    let heap = m.os.mem.dynamic;
    let table = heap
        .alloc_chunk(
            &mut m.mem,
            4 * DISPATCH_TABLE_ENTRIES,
            0,
            None,
            Placement::Start,
        )
        .map_err(SetupError::Heap)?;
    for i in 0..DISPATCH_TABLE_ENTRIES {
        m.mem
            .os_write_u32(table + 4 * i, rom_entry(0xA000 | i as u16))
            .map_err(SetupError::Fault)?;
    }
    m.mem
        .os_write_u32(SYS_DISPATCH_TABLE_P, table)
        .map_err(SetupError::Fault)
}

/// A copy of the dispatch table.
pub fn dispatch_snapshot(m: &Machine) -> Vec<u32> {
    let t = m.dispatch_table();
    (0..DISPATCH_TABLE_ENTRIES)
        .map(|i| m.mem.read_u32(t + 4 * i).unwrap_or(0))
        .collect()
}

/// `void *SysGetTrapAddress(UInt16 trapNum)`: the dispatch table's entry (0
/// outside the system traps). A trap the machine does not implement (no
/// handler, or one of [`Machine::missing_traps`]) whose entry nobody patched
/// answers SysUnimplemented's entry instead, as a ROM's table holds it for the
/// traps it lacks: the SDK's own test for a trap is
/// `SysGetTrapAddress(t) != SysGetTrapAddress(sysTrapSysUnimplemented)`
/// (palm-os-sdk `PalmOne/Samples/ExtendedSound/Src/Common.c`,
/// `PalmSGHasExtendedSampledSound`).
pub fn SysGetTrapAddress(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let trap = call.u16(0);
    Ok(match m.trap_address(trap) {
        Some(e) if e == rom_entry(trap) && !m.implements(trap) => {
            rom_entry(traps::sysTrapSysUnimplemented)
        }
        Some(e) => e,
        None => 0,
    })
}

/// `Err SysSetTrapAddress(UInt16 trapNum, void *procP)`: writes the real
/// dispatch table entry (or returns `sysErrNotAllowed` when
/// [`Machine::refuse_trap_patches`] is set, like Palm OS 5).
pub fn SysSetTrapAddress(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let trap = call.u16(0);
    if !(0xA000..0xA800).contains(&trap) {
        return Ok(SYS_ERR_PARAM);
    }
    if m.refuse_trap_patches {
        return Ok(SYS_ERR_NOT_ALLOWED);
    }
    let at = m.dispatch_table() + 4 * u32::from(trap & 0x0FFF);
    m.mem
        .os_write_u32(at, call.u32(1))
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// Decode `data` 0 into the globals (A5 at `a5`) and apply its relocation
/// tables (PALM_FACTS §1.6): three compressed blocks, then xref tables
/// (table 1 based on A5, table 2 on code 1's start).
pub fn load_data0(m: &mut Machine, data: &[u8], a5: u32, code1: u32) -> Result<(), String> {
    load_data0_in(m, data, a5, code1, (0, u32::MAX))
}

/// [`load_data0`] with every write checked to fall inside `globals`
/// (`[start, end)`, the globals chunk's body): a malformed `data` 0 is an
/// error, not a write elsewhere in memory.
pub fn load_data0_in(
    m: &mut Machine,
    data: &[u8],
    a5: u32,
    code1: u32,
    globals: (u32, u32),
) -> Result<(), String> {
    let inside = |at: u32, len: u32| {
        at >= globals.0 && u64::from(at) + u64::from(len) <= u64::from(globals.1)
    };
    let mut p = 4usize;
    let byte = |p: &mut usize| -> Result<u8, String> {
        let b = *data
            .get(*p)
            .ok_or_else(|| format!("data 0 truncated at offset {}", *p))?;
        *p += 1;
        Ok(b)
    };
    let long = |p: &mut usize| -> Result<u32, String> {
        let s = data
            .get(*p..*p + 4)
            .ok_or_else(|| format!("data 0 truncated at offset {}", *p))?;
        *p += 4;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    };
    for _ in 0..3 {
        let mut dst = a5.wrapping_add(long(&mut p)?);
        let mut out = |bytes: &[u8], dst: &mut u32| -> Result<(), String> {
            if !inside(*dst, bytes.len() as u32) {
                return Err(format!(
                    "data 0 writes {} bytes at A5{:+}, outside the globals",
                    bytes.len(),
                    dst.wrapping_sub(a5) as i32,
                ));
            }
            m.mem
                .os_write_bytes(*dst, bytes)
                .map_err(|f| format!("data 0 writes outside the globals: {f}"))?;
            *dst = dst.wrapping_add(bytes.len() as u32);
            Ok(())
        };
        loop {
            let op = byte(&mut p)?;
            match op {
                0 => break,
                0x80..=0xFF => {
                    let n = usize::from(op & 0x7F) + 1;
                    let s = data
                        .get(p..p + n)
                        .ok_or_else(|| format!("data 0 literal truncated at offset {p}"))?;
                    p += n;
                    out(s, &mut dst)?;
                }
                0x40..=0x7F => out(&vec![0; usize::from(op & 0x3F) + 1], &mut dst)?,
                0x20..=0x3F => {
                    let b = byte(&mut p)?;
                    out(&vec![b; usize::from(op & 0x1F) + 2], &mut dst)?;
                }
                0x10..=0x1F => out(&vec![0xFF; usize::from(op & 0x0F) + 1], &mut dst)?,
                1 => {
                    let (a, b) = (byte(&mut p)?, byte(&mut p)?);
                    out(&[0, 0, 0, 0, 0xFF, 0xFF, a, b], &mut dst)?;
                }
                2 => {
                    let (a, b, c) = (byte(&mut p)?, byte(&mut p)?, byte(&mut p)?);
                    out(&[0, 0, 0, 0, 0xFF, a, b, c], &mut dst)?;
                }
                3 => {
                    let (a, b, c) = (byte(&mut p)?, byte(&mut p)?, byte(&mut p)?);
                    out(&[0xA9, 0xF0, 0, 0, a, b, 0, c], &mut dst)?;
                }
                4 => {
                    let (a, b, c, d) = (byte(&mut p)?, byte(&mut p)?, byte(&mut p)?, byte(&mut p)?);
                    out(&[0xA9, 0xF0, 0, a, b, c, 0, d], &mut dst)?;
                }
                _ => {
                    return Err(format!(
                        "data 0: unknown opcode 0x{op:02X} at offset {}",
                        p - 1
                    ));
                }
            }
        }
    }
    // Relocation tables: table 1 (base A5), table 2 (base code 1); others are
    // ignored. Stop at the end of the resource.
    for base in [a5, code1] {
        if p + 4 > data.len() {
            break;
        }
        let count = long(&mut p)?;
        let mut pos = a5;
        for _ in 0..count {
            let b = byte(&mut p)?;
            let delta = if b & 0x80 != 0 {
                u32::from(b & 0x7F)
            } else if b & 0x40 != 0 {
                (u32::from(b & 0x3F) << 8) | u32::from(byte(&mut p)?)
            } else {
                let rest = [byte(&mut p)?, byte(&mut p)?, byte(&mut p)?];
                // 30 bits, sign-extended: globals lie below A5, so the first
                // position is usually a negative offset from it.
                let v = (u32::from(b & 0x3F) << 24)
                    | (u32::from(rest[0]) << 16)
                    | (u32::from(rest[1]) << 8)
                    | u32::from(rest[2]);
                (((v << 2) as i32) >> 2) as u32
            };
            pos = pos.wrapping_add(delta.wrapping_mul(2));
            if !inside(pos, 4) {
                return Err(format!(
                    "data 0 relocates a long at A5{:+}, outside the globals (offset {p} of data 0)",
                    pos.wrapping_sub(a5) as i32
                ));
            }
            let v = m
                .mem
                .read_u32(pos)
                .map_err(|f| format!("data 0 relocation outside the globals: {f}"))?;
            m.mem
                .os_write_u32(pos, v.wrapping_add(base))
                .map_err(|f| format!("data 0 relocation outside the globals: {f}"))?;
        }
    }
    Ok(())
}

/// `Err SysAppStartup(SysAppInfoPtr *appInfoPP, MemPtr *prevGlobalsP, MemPtr
/// *globalsPtrP)`: with NewGlobals, allocate the globals (`code` 0's
/// below + above bytes, zeroed, A5 = start + below), decode `data` 0, set A5;
/// hand back the app info, the previous A5 and the globals chunk.
pub fn SysAppStartup(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let Some(app) = m.os.sys.app.clone() else {
        m.report("SysAppStartup failed (sysErrParamErr): no app is being launched".into());
        return Ok(SYS_ERR_PARAM);
    };
    m.os.sys.startups += 1;
    let flags = m
        .mem
        .read_u16(app.app_info + APP_INFO_LAUNCH_FLAGS)
        .map_err(|f| m.fault_in(call, f))?;
    let prev_a5 = m.cpu.a(5);
    let mut globals = 0;
    if flags & LAUNCH_FLAG_NEW_GLOBALS != 0 {
        let (above, below) = match &app.code0 {
            Some(c) if c.len() >= 8 => (
                u32::from_be_bytes([c[0], c[1], c[2], c[3]]),
                u32::from_be_bytes([c[4], c[5], c[6], c[7]]),
            ),
            _ => (0, 0),
        };
        let size = above.saturating_add(below).max(4);
        let heap = m.os.mem.dynamic;
        globals = crate::mem_mgr::allocate(m, call, heap, size, 0, false, Placement::Start)?;
        if globals == 0 {
            let (_, largest) = heap.free_bytes(&m.mem).unwrap_or((0, 0));
            m.report(format!(
                "SysAppStartup failed (memErrNotEnoughSpace): the app's globals, {size} bytes \
                 (code 0: {above} above A5 + {below} below), do not fit in the dynamic heap \
                 (largest free chunk {largest} bytes): the app cannot run"
            ));
            return Ok(crate::mem_mgr::MEM_ERR_NOT_ENOUGH_SPACE);
        }
        m.mem
            .os_fill(globals, size, 0)
            .map_err(|f| m.fault_in(call, f))?;
        let a5 = globals + below;
        if let Some(d) = &app.data0 {
            let code1 = m.os.sys.code1_base.unwrap_or(0);
            if let Err(e) = load_data0_in(m, d, a5, code1, (globals, globals + size)) {
                return Err(m.stop_in(call, StopKind::DebugCheck(format!("SysAppStartup: {e}"))));
            }
        }
        m.mem
            .os_write_u16(
                app.app_info + APP_INFO_LAUNCH_FLAGS,
                flags | LAUNCH_FLAG_DATA_RELOCATED,
            )
            .map_err(|f| m.fault_in(call, f))?;
        m.mem
            .os_write_u32(app.app_info + 40, a5)
            .map_err(|f| m.fault_in(call, f))?;
        m.mem
            .os_write_u32(app.app_info + 24, globals)
            .map_err(|f| m.fault_in(call, f))?;
        m.cpu.set_a(5, a5);
        if let Some(a) = m.os.sys.app.as_mut() {
            a.globals = globals;
        }
    }
    m.mem
        .write_u32(call.u32(0), app.app_info)
        .and_then(|_| m.mem.write_u32(call.u32(1), prev_a5))
        .and_then(|_| m.mem.write_u32(call.u32(2), globals))
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// `Err SysAppExit(SysAppInfoPtr appInfoP, MemPtr prevGlobalsP, MemPtr
/// globalsP)`: restore A5 and free the globals.
pub fn SysAppExit(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    m.os.sys.exits += 1;
    m.cpu.set_a(5, call.u32(1));
    let g = call.u32(2);
    if g != 0 {
        let heap = m.os.mem.dynamic;
        if let Some(c) = heap
            .chunk_at_body(&m.mem, g)
            .map_err(|e| m.stop_in(call, StopKind::DebugCheck(format!("SysAppExit: {e}"))))?
        {
            crate::mem_mgr::free(m, call, heap, c)?;
        }
        if let Some(a) = m.os.sys.app.as_mut() {
            a.globals = 0;
        }
    }
    Ok(0)
}

/// `Err SysCurAppDatabase(UInt16 *cardNoP, LocalID *dbIDP)`.
pub fn SysCurAppDatabase(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let Some(db) = m.os.sys.app.as_ref().map(|a| a.db_id) else {
        return Ok(SYS_ERR_PARAM);
    };
    m.mem
        .write_u16(call.u32(0), 0)
        .and_then(|_| m.mem.write_u32(call.u32(1), db))
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

fn cstr(m: &Machine, call: &Call, p: u32) -> Result<String, Stop> {
    if p == 0 {
        return Ok("(NULL)".into());
    }
    let b = m.mem.read_cstr(p, 4096).map_err(|f| m.fault_in(call, f))?;
    Ok(String::from_utf8_lossy(&b).into_owned())
}

/// `void ErrDisplayFileLineMsg(const Char *filename, UInt16 lineNo, const Char
/// *msg)`: recorded and printed as the fatal alert shows it ("file, Line:n,
/// msg"); with [`AlertResponse::Reset`] the app ends.
pub fn ErrDisplayFileLineMsg(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let file = cstr(m, call, call.u32(0))?;
    let line = call.u16(1);
    let msg = cstr(m, call, call.u32(2))?;
    let text = format!("{file}, Line:{line}, {msg}");
    m.print(format!("Fatal Alert: {text}"));
    m.os.sys.err_displays.push((file, line, msg));
    if m.alert_response == AlertResponse::Reset {
        return Err(m.stop_in(call, StopKind::FatalAlert(text)));
    }
    Ok(0)
}

/// `UInt16 SysFatalAlert(const Char *msg)`: fatalDoNothing (continue) or, with
/// [`AlertResponse::Reset`], the app ends.
pub fn SysFatalAlert(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let msg = cstr(m, call, call.u32(0))?;
    m.print(format!("Fatal Alert: {msg}"));
    m.os.sys.fatal_alerts.push(msg.clone());
    if m.alert_response == AlertResponse::Reset {
        return Err(m.stop_in(call, StopKind::FatalAlert(msg)));
    }
    Ok(FATAL_DO_NOTHING)
}

/// `void DbgMessage(const Char *aStr)`: printed as `DbgMessage: <text>`, as
/// CloudpilotEmu does (PALM_FACTS §7.2).
pub fn DbgMessage(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let s = cstr(m, call, call.u32(0))?;
    m.print(format!("DbgMessage: {s}"));
    m.os.sys.dbg_messages.push(s);
    Ok(0)
}

/// `UInt32 TimGetTicks(void)`: deterministic ([`Machine::ticks`]).
pub fn TimGetTicks(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(m.ticks() as u32)
}

/// `UInt32 TimGetSeconds(void)`: a fixed date (2001-07-01 00:00:00, the month
/// of the Dr. Dobb's article, as seconds since 1904) plus ticks / 100.
pub fn TimGetSeconds(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    const BASE: u32 = 3_076_963_200;
    Ok(BASE
        .wrapping_add((m.ticks() / 100) as u32)
        .wrapping_add(m.os.sys.seconds_offset))
}

/// `Err SysTaskDelay(Int32 delay)`: ticks pass, no code runs.
pub fn SysTaskDelay(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    m.idle(u64::from((call.u32(0) as i32).max(0) as u32));
    Ok(0)
}

/// `Int16 SysRandom(Int32 newSeed)`: a deterministic LCG in 0..=0x7FFF.
pub fn SysRandom(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    if call.u32(0) != 0 {
        m.os.sys.random_seed = call.u32(0);
    }
    let s =
        m.os.sys
            .random_seed
            .wrapping_mul(1_103_515_245)
            .wrapping_add(12345);
    m.os.sys.random_seed = s;
    Ok((s >> 16) & 0x7FFF)
}

/// `void SndPlaySystemSound(SndSysBeepType beepID)`: recorded (1-byte argument).
pub fn SndPlaySystemSound(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    m.os.sys.sounds.push(call.u8(0));
    Ok(0)
}

/// `UInt16 SysTicksPerSecond(void)`: 100 (our tick model, [`crate::machine::INSTRUCTIONS_PER_TICK`]).
pub fn SysTicksPerSecond(_m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(100)
}

/// `void TimSetSeconds(UInt32 seconds)`: later TimGetSeconds count from it.
pub fn TimSetSeconds(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let now = TimGetSeconds(m, call)?;
    m.os.sys.seconds_offset =
        m.os.sys
            .seconds_offset
            .wrapping_add(call.u32(0).wrapping_sub(now));
    Ok(0)
}

/// `Char *SysGetOSVersionString(void)`: "v. 3.5" in a new chunk owned by the
/// caller (who frees it, as on a device).
pub fn SysGetOSVersionString(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let s = b"v. 3.5\0";
    let heap = m.os.mem.dynamic;
    let owner = m.os.sys.cur_owner;
    let p = crate::mem_mgr::allocate(
        m,
        call,
        heap,
        s.len() as u32,
        owner,
        false,
        Placement::Start,
    )?;
    if p != 0 {
        m.mem
            .os_write_bytes(p, s)
            .map_err(|f| m.fault_in(call, f))?;
    }
    Ok(p)
}

/// `void SysReset(void)`: the app ends (a soft reset).
pub fn SysReset(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Err(m.stop_in(call, StopKind::FatalAlert("SysReset called".into())))
}

/// `Err SysUIAppSwitch(UInt16 cardNo, LocalID dbID, UInt16 cmd, MemPtr
/// cmdPBP)`: only one app runs here, so the switch is an appStopEvent for
/// the current app (recorded in the output).
pub fn SysUIAppSwitch(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    m.print(format!(
        "palm-run: SysUIAppSwitch to database 0x{:08X} (ends the app)",
        call.u32(1)
    ));
    m.os.ui
        .queue
        .push_back(crate::ui::event(crate::ui::APP_STOP_EVENT, 0));
    Ok(0)
}

/// `sysErrLibNotFound`.
pub const SYS_ERR_LIB_NOT_FOUND: u32 = 0x050A;

/// `Err SysLibFind(const Char *nameP, UInt16 *refNumP)`: no shared libraries
/// are loaded here, so `sysErrLibNotFound`.
pub fn SysLibFind(_m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(SYS_ERR_LIB_NOT_FOUND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sys_get_trap_address_answers_sys_unimplemented_for_what_is_not_implemented() {
        let mut m = Machine::new(crate::memory::DEFAULT_RAM_SIZE, 0x10000).unwrap();
        let get = |m: &mut Machine, trap: u16| {
            let call = Call {
                args: vec![u32::from(trap)],
                app_args: vec![u32::from(trap)],
                ..crate::data_mgr::internal_call(0xA093)
            };
            SysGetTrapAddress(m, &call).unwrap()
        };
        let unimplemented = rom_entry(traps::sysTrapSysUnimplemented);
        assert_eq!(get(&mut m, traps::sysTrapSysUnimplemented), unimplemented);
        // A reserved trap (sysTrapSysReserved1, CoreTraps.h) and DbgMessage made
        // missing read as SysUnimplemented; an implemented trap as itself.
        assert_eq!(get(&mut m, 0xA346), unimplemented);
        let dbg = traps::sysTrapDbgMessage;
        assert_eq!(get(&mut m, dbg), rom_entry(dbg));
        m.missing_traps.insert(dbg);
        assert_eq!(get(&mut m, dbg), unimplemented);
        // A patched entry is what was set, implemented or not.
        let at = m.dispatch_table() + 4 * u32::from(dbg & 0x0FFF);
        m.mem.os_write_u32(at, 0x0004_0000).unwrap();
        assert_eq!(get(&mut m, dbg), 0x0004_0000);
        assert_eq!(get(&mut m, 0x9000), 0, "not a system trap");
    }

    #[test]
    fn data0_blocks_and_relocations() {
        let mut m = Machine::new(crate::memory::DEFAULT_RAM_SIZE, 0x10000).unwrap();
        let a5 = 0x8000;
        let code1 = 0x0012_0000;
        let mut d = vec![0, 0, 0, 0];
        // Block 1 at A5 - 16: 8 literal bytes, 3 zeros, 2 × 0x55, 1 × 0xFF.
        d.extend_from_slice(&(-16i32).to_be_bytes());
        d.extend_from_slice(&[0x87, 0, 0, 0, 4, 0, 0, 0, 8, 0x42, 0x20, 0x55, 0x10, 0]);
        // Block 2 at A5 + 0: the 0x01 pattern; block 3 empty.
        d.extend_from_slice(&0i32.to_be_bytes());
        d.extend_from_slice(&[0x01, 0xAB, 0xCD, 0]);
        d.extend_from_slice(&0i32.to_be_bytes());
        d.push(0);
        // Table 1 (base A5): A5 - 16 (30-bit form, -8 half-words).
        d.extend_from_slice(&1u32.to_be_bytes());
        d.extend_from_slice(&[0x3F, 0xFF, 0xFF, 0xF8]);
        // Table 2 (base code 1): A5 - 12 (-6 half-words).
        d.extend_from_slice(&1u32.to_be_bytes());
        d.extend_from_slice(&[0x3F, 0xFF, 0xFF, 0xFA]);
        load_data0(&mut m, &d, a5, code1).unwrap();
        let at = |off: i32| m.mem.read_u32(a5.wrapping_add(off as u32)).unwrap();
        assert_eq!(at(-16), a5 + 4, "data pointer relocated by A5");
        assert_eq!(at(-12), code1 + 8, "code pointer relocated by code 1");
        assert_eq!(
            m.mem.read_bytes(a5 - 8, 8).unwrap(),
            [0, 0, 0, 0x55, 0x55, 0xFF, 0, 0]
        );
        assert_eq!(
            m.mem.read_bytes(a5, 8).unwrap(),
            [0, 0, 0, 0, 0xFF, 0xFF, 0xAB, 0xCD]
        );
        assert!(load_data0(&mut m, &[0, 0, 0, 0, 0, 0, 0, 0, 0x85, 1], a5, code1).is_err());
    }
}
