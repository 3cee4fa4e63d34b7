//! Installing databases and launching an app as a device does, then the
//! debug-ROM checks at exit (PALM_FACTS §1.6, §2, §5.5, §5.6).
//!
//! Launch: the app's database is opened, `code` 1 is locked and runs in
//! place at its storage address, a `SysAppInfoType` (launch code 0 =
//! sysAppLaunchCmdNormalLaunch, flags NewGlobals | UIApp, the app's owner ID)
//! and a stack chunk (`pref` 0's stackSize, else 4096 bytes, prc-tools'
//! default) are allocated as system chunks, and the entry at code 1 offset 0
//! is called as a subroutine with (cmd, cmdPBP, launchFlags) in Palm layout
//! (harmless for crt0-style entries, which ask SysAppStartup instead). The
//! result is D0.
//!
//! Exit: databases the app left open are closed; chunks of the dynamic heap
//! still owned by the app are listed (POSE's wording and layout, PALM_FACTS
//! §5.6: the chunk, "Chunk allocated by:" with the allocating call and its
//! callers, the contents up to 256 bytes) and freed as the OS does
//! (PALM_FACTS §5.5); the dispatch table is compared
//! with its state before launch; the app's code resources, unlocked, move
//! elsewhere in the storage heap and the bytes they leave become ILLEGAL
//! instructions ([`Machine::move_code_at_exit`]).

use palm_prc::Database;

use crate::data_mgr;
use crate::heap::{CHUNK_HEADER_SIZE, Placement};
use crate::machine::{Arg68k, Machine, Stop, StopKind};
use crate::sys::{self, AppContext};

/// Owner ID given to the launched app (our choice; owner 0 is the system and
/// 15 the master pointer tables, PALM_FACTS §5.1).
pub const APP_OWNER_ID: u8 = 1;
/// Stack size when the app has no `pref` 0 (prc-tools' default, PALM_FACTS §1.6).
pub const DEFAULT_STACK_SIZE: u32 = 4096;
/// Smallest stack given to an app: a smaller `pref` 0 stackSize is raised to it.
pub const MIN_STACK_SIZE: u32 = 256;
/// Largest stack an app may ask for in `pref` 0 (larger is refused as bad input).
pub const MAX_STACK_SIZE: u32 = 0xF000;
/// Leaked chunks the leak dump shows in full; the rest are counted in one
/// line (all of them are in [`Outcome::leaks`]).
pub const MAX_LEAKS_SHOWN: usize = 100;
/// Trap patches left installed that the exit check lists one per line; the
/// rest are counted in one line (all of them are in [`Outcome::patches_left`]).
pub const MAX_PATCHES_SHOWN: usize = 16;

/// What the launcher takes from an app's resources, checked.
struct AppResources {
    code1: u32,
    code0: Option<Vec<u8>>,
    data0: Option<Vec<u8>>,
    stack_size: u32,
}

/// Check the resources the launch uses (code 1, code 0, pref 0): errors name
/// the resource and the field.
fn app_resources(m: &Machine, db: u32, name: &str) -> Result<AppResources, String> {
    let code1 = data_mgr::resource_handle(m, db, b"code", 1)
        .ok_or_else(|| format!("\"{name}\" has no code 1 resource"))?;
    let code1_size = data_mgr::handle_size(m, code1).unwrap_or(0);
    if code1_size < 2 {
        return Err(format!(
            "code 1 is {code1_size} byte{}: the app's entry point (its first instruction) is missing",
            if code1_size == 1 { "" } else { "s" }
        ));
    }
    let code0 = data_mgr::resource_bytes(m, db, b"code", 0);
    if let Some(c) = &code0 {
        if c.len() < 8 {
            return Err(format!(
                "code 0 is {} bytes, shorter than its first two fields (above A5, below A5: 8 bytes)",
                c.len()
            ));
        }
        let above = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        let below = u32::from_be_bytes([c[4], c[5], c[6], c[7]]);
        let heap = m.os.mem.dynamic.size;
        if u64::from(above) + u64::from(below) > u64::from(heap) {
            return Err(format!(
                "code 0: the A5 world it asks for (above A5 {above} + below A5 {below} bytes) \
                 is larger than the {heap}-byte dynamic heap"
            ));
        }
    }
    let data0 = data_mgr::resource_bytes(m, db, b"data", 0);
    let stack_size = match data_mgr::resource_bytes(m, db, b"pref", 0) {
        None => DEFAULT_STACK_SIZE,
        Some(p) if p.len() < 6 => {
            return Err(format!(
                "pref 0 is {} bytes, too short for its stackSize field (bytes 2–5)",
                p.len()
            ));
        }
        Some(p) => {
            let n = u32::from_be_bytes([p[2], p[3], p[4], p[5]]);
            if n > MAX_STACK_SIZE {
                return Err(format!(
                    "pref 0: stackSize {n} (0x{n:X}) is more than the {MAX_STACK_SIZE} bytes \
                     palm-run gives a stack"
                ));
            }
            (n.max(MIN_STACK_SIZE) + 3) & !3
        }
    };
    Ok(AppResources {
        code1,
        code0,
        data0,
        stack_size,
    })
}
/// Launch flags of a normal launch: NewGlobals | UIApp (the exact value a
/// ROM passes is UNVERIFIED, PALM_FACTS §2.2; apps test bits).
pub const NORMAL_LAUNCH_FLAGS: u16 = sys::LAUNCH_FLAG_NEW_GLOBALS | sys::LAUNCH_FLAG_UI_APP;

/// A chunk still owned by the app at exit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leak {
    /// 68k address of the chunk body.
    pub address: u32,
    /// Requested size in bytes.
    pub size: u32,
    /// Handle (master pointer address) for a movable chunk, `None` for a
    /// non-movable one.
    pub handle: Option<u32>,
    /// Where it was allocated: the address of the allocating call, then
    /// return addresses up the A6 frame chain (empty if not recorded).
    pub allocated_by: Vec<u32>,
}

/// A dispatch table entry that differs from its state before launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatchLeft {
    /// Trap word.
    pub trap: u16,
    /// Entry before launch.
    pub before: u32,
    /// Entry at exit.
    pub after: u32,
}

/// What happened in a launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The entry's result (D0) if the app returned.
    pub result: Option<u32>,
    /// Why the app was stopped, if it was.
    pub stop: Option<Stop>,
    /// Chunks still owned by the app at exit (freed since).
    pub leaks: Vec<Leak>,
    /// Dispatch table entries left changed.
    pub patches_left: Vec<PatchLeft>,
    /// Names of databases the app left open (closed since), as text
    /// ([`data_mgr::name_text`]).
    pub left_open: Vec<String>,
    /// Locks of code 1 the app left (its locks beyond the launch's own, undone
    /// since).
    pub code1_locks_left: u8,
    /// Scripted events the app never asked for (it returned or was stopped
    /// first), nil counts included; they stay queued in `os.ui.script`.
    pub events_not_played: u64,
    /// The script line of the first of them.
    pub first_not_played_line: Option<usize>,
}

impl Outcome {
    /// True when the app returned and every exit check passed.
    pub fn clean(&self) -> bool {
        self.stop.is_none() && self.leaks.is_empty() && self.patches_left.is_empty()
    }
}

impl Machine {
    /// Install a .prc or .pdb file image into storage. Errors are one line:
    /// what is wrong and where (the PRC library names the offset).
    pub fn install(&mut self, bytes: &[u8]) -> Result<u32, String> {
        let db = Database::parse(bytes).map_err(|e| e.to_string())?;
        data_mgr::install(self, &db)
    }

    /// The installed database `name` (its name's bytes: a `&str` for an
    /// ASCII name, bytes for one in the Palm character set, e.g.
    /// `b"Caf\xE9"`) as a .pdb/.prc file image.
    pub fn export(&self, name: impl AsRef<[u8]>) -> Result<Vec<u8>, String> {
        let name = name.as_ref();
        let db = data_mgr::export(self, name)
            .ok_or_else(|| format!("no database named \"{}\"", data_mgr::shown_name(name)))?;
        db.to_bytes()
            .map_err(|e| format!("database \"{}\": {e}", data_mgr::shown_name(name)))
    }

    /// The 68k address of the first byte of code 1 of the installed app
    /// `name` (its name's bytes, as for [`Machine::export`]; where ELF
    /// address 0 runs: add it to symbol addresses).
    pub fn code1_base(&self, name: impl AsRef<[u8]>) -> Option<u32> {
        let db = self.os.dm.find(name.as_ref())?;
        let h = data_mgr::resource_handle(self, db.id, b"code", 1)?;
        self.mem.read_u32(h).ok()
    }

    /// Register feature (`creator`, `num`) = `value` (as FtrSet would), e.g.
    /// to configure a test app before launch.
    pub fn set_feature(&mut self, creator: [u8; 4], num: u16, value: u32) {
        self.os
            .ftr
            .features
            .insert((u32::from_be_bytes(creator), num), value);
    }

    /// The value of feature (`creator`, `num`), as FtrGet would return it.
    pub fn feature(&self, creator: [u8; 4], num: u16) -> Option<u32> {
        self.os
            .ftr
            .features
            .get(&(u32::from_be_bytes(creator), num))
            .copied()
    }

    /// Queue a parsed event script for EvtGetEvent.
    pub fn set_events(&mut self, events: Vec<crate::script::Scripted>) {
        self.os.ui.script = events.into();
    }

    /// Launch the app database `name` with the normal launch code, run it
    /// until it returns or is stopped, then run the exit checks. `Err` is for
    /// bad input (no such database, not an app, no code 1). The database is
    /// found by its name's bytes: a `&str` for an ASCII name, the header's
    /// bytes for a name in the Palm character set (Windows-1252, e.g.
    /// `b"Caf\xE9App"`); messages show names as Windows-1252
    /// ([`data_mgr::name_text`]).
    pub fn launch(&mut self, name: impl AsRef<[u8]>) -> Result<Outcome, String> {
        self.launch_with(name, 0, NORMAL_LAUNCH_FLAGS)
    }

    /// [`Machine::launch`] with launch code `cmd` (`sysAppLaunchCmd*`,
    /// SystemMgr.h; PALM_FACTS §2.3) and `launch_flags`
    /// (`sysAppLaunchFlag*`), as SysAppLaunch passes them to PilotMain: for
    /// testing how an app answers Find, SyncNotify, SystemReset, … launches,
    /// which run without the app's globals. `cmdPBP` is NULL.
    pub fn launch_with(
        &mut self,
        name: impl AsRef<[u8]>,
        cmd: u16,
        launch_flags: u16,
    ) -> Result<Outcome, String> {
        let bytes = name.as_ref();
        let name = data_mgr::shown_name(bytes);
        let db = self
            .os
            .dm
            .find(bytes)
            .cloned()
            .ok_or_else(|| format!("no database named \"{name}\""))?;
        if !db.is_res_db() {
            return Err(format!(
                "\"{name}\" is not a resource database (not an app)"
            ));
        }
        let AppResources {
            code1,
            code0,
            data0,
            stack_size,
        } = app_resources(self, db.id, &name)?;
        let call = data_mgr::internal_call(0xA049);
        let setup = |m: &mut Machine| -> Result<(u32, u32, u32, u32), Stop> {
            let dbp = data_mgr::open(m, &call, db.id, 1, 0)?;
            let body = m.mem.read_u32(code1).map_err(|f| m.fault_in(&call, f))?;
            // Lock code 1: it runs in place.
            let heap = m.os.mem.storage;
            if let Some(c) = heap.chunk_at_body(&m.mem, body).ok().flatten() {
                let mut h = c.header;
                h.lock_count = (h.lock_count + 1).min(crate::heap::MAX_LOCK_COUNT);
                let _ = heap.write_header(&mut m.mem, c.addr, &h);
            }
            let dynh = m.os.mem.dynamic;
            let info = crate::mem_mgr::allocate(
                m,
                &call,
                dynh,
                sys::SYS_APP_INFO_SIZE,
                0,
                false,
                Placement::Start,
            )?;
            let stack =
                crate::mem_mgr::allocate(m, &call, dynh, stack_size, 0, false, Placement::Start)?;
            Ok((dbp, body, info, stack))
        };
        let (dbp, body, info, stack) = setup(self).map_err(|s| s.kind.to_string())?;
        if info == 0 || stack == 0 {
            return Err("dynamic heap too small to launch the app".into());
        }
        let flags = launch_flags;
        let mut ai = vec![0u8; sys::SYS_APP_INFO_SIZE as usize];
        ai[0..2].copy_from_slice(&cmd.to_be_bytes());
        ai[6..8].copy_from_slice(&flags.to_be_bytes());
        ai[12..16].copy_from_slice(&code1.to_be_bytes());
        ai[16..20].copy_from_slice(&dbp.to_be_bytes());
        ai[20..24].copy_from_slice(&stack.to_be_bytes());
        ai[28..30].copy_from_slice(&u16::from(APP_OWNER_ID).to_be_bytes());
        ai[44..48].copy_from_slice(&(stack + stack_size).to_be_bytes());
        self.mem
            .os_write_bytes(info, &ai)
            .map_err(|f| f.to_string())?;
        let _ = self.mem.os_fill(stack, stack_size, 0);
        self.os.sys.code1_base = Some(body);
        self.os.sys.code1_size = data_mgr::handle_size(self, code1).unwrap_or(0);
        self.os.sys.stack = Some((stack, stack + stack_size));
        self.os.sys.app = Some(AppContext {
            app_info: info,
            db_id: db.id,
            code0,
            data0,
            globals: 0,
        });
        let before = sys::dispatch_snapshot(self);
        self.os.sys.cur_owner = APP_OWNER_ID;
        self.cpu.set_a(7, stack + stack_size);
        self.cpu.set_a(5, 0);
        let guard = self.stack_guard_below(stack);
        self.mem.set_stack_guard(Some(guard));
        self.start_clock();
        let r = self.call_68k(
            body,
            &[Arg68k::U16(cmd), Arg68k::U32(0), Arg68k::U16(flags)],
        );
        self.mem.set_stack_guard(None);
        self.os.sys.cur_owner = 0;
        let (result, stop) = match r {
            Ok((d0, _)) => (Some(d0), None),
            Err(s) => (None, Some(s)),
        };
        if let Some(s) = &stop {
            let text = self.stop_report(s);
            for l in text {
                self.print(l);
            }
        }
        let mut out = Outcome {
            result,
            stop,
            leaks: Vec::new(),
            patches_left: Vec::new(),
            left_open: Vec::new(),
            code1_locks_left: 0,
            events_not_played: self.os.ui.script.iter().map(|s| u64::from(s.repeat)).sum(),
            first_not_played_line: self.os.ui.script.front().map(|s| s.line),
        };
        if let Some(line) = out.first_not_played_line {
            let n = out.events_not_played;
            self.print(format!(
                "palm-run: {n} scripted event{} not played: the app {} before script line {line}",
                if n == 1 { " was" } else { "s were" },
                if out.stop.is_some() {
                    "was stopped"
                } else {
                    "returned"
                }
            ));
        }
        self.exit_checks(&before, &mut out);
        self.print_omitted(&out);
        // Tear down the launch.
        let _ = data_mgr::close(self, &call, dbp);
        let heap = self.os.mem.dynamic;
        for p in [info, stack] {
            if let Ok(Some(c)) = heap.chunk_at_body(&self.mem, p) {
                let _ = heap.free_chunk(&mut self.mem, c);
            }
        }
        // Code 1 unlocked: the launch's own lock, and any the app left (each
        // MemHandleLock is undone by one MemHandleUnlock, MemoryMgr.h; PumpkinOS
        // cannot free such a resource when it closes the app's database,
        // `storage.c` DmCloseDatabase "could not be deflated").
        let sh = self.os.mem.storage;
        if let Ok(Some(c)) = sh.chunk_at_body(&self.mem, body) {
            let mut h = c.header;
            out.code1_locks_left = h.lock_count.saturating_sub(1);
            if out.code1_locks_left != 0 {
                self.print(format!(
                    "palm-run: code 1 left locked by the app ({} lock{} without MemHandleUnlock); unlocked",
                    out.code1_locks_left,
                    if out.code1_locks_left == 1 { "" } else { "s" }
                ));
            }
            h.lock_count = 0;
            let _ = sh.write_header(&mut self.mem, c.addr, &h);
        }
        if self.move_code_at_exit {
            self.move_code(db.id);
        }
        self.os.sys.app = None;
        self.os.sys.stack = None;
        Ok(out)
    }

    /// [`Machine::move_code_at_exit`]: each unlocked `code` resource of
    /// database `db` moves to another chunk of the storage heap, and the
    /// bytes it leaves become ILLEGAL instructions (0x4AFC).
    fn move_code(&mut self, db: u32) {
        let Some(d) = self.os.dm.db(db) else { return };
        let code = u32::from_be_bytes(*b"code");
        let handles: Vec<u32> = d
            .resources
            .iter()
            .filter(|r| r.kind == code)
            .map(|r| r.handle)
            .collect();
        let sh = self.os.mem.storage;
        for h in handles {
            let Ok(old) = self.mem.read_u32(h) else {
                continue;
            };
            let Ok(Some(c)) = sh.chunk_at_body(&self.mem, old) else {
                continue;
            };
            if c.header.lock_count != 0 || !c.header.movable() {
                continue;
            }
            let size = c.header.data_size();
            if sh.relocate(&mut self.mem, c).is_ok() {
                let illegal: Vec<u8> = (0..size).map(|i| [0x4A, 0xFC][i as usize & 1]).collect();
                let _ = self.mem.os_write_bytes(old, &illegal);
            }
        }
    }

    /// The stack guard for a stack whose body starts at `stack`: the stack
    /// chunk's header and the system chunks in use right below it (the
    /// launch's own chunks and the trap dispatch table), which 68k code has
    /// no business writing.
    fn stack_guard_below(&self, stack: u32) -> (u32, u32) {
        let heap = self.os.mem.dynamic;
        let mut lo = stack - CHUNK_HEADER_SIZE;
        while let Ok(Some(c)) = heap.chunk_before(&self.mem, lo) {
            if c.header.free || c.header.owner != 0 || c.addr + c.header.size != lo {
                break;
            }
            lo = c.addr;
        }
        (lo, stack)
    }

    fn exit_checks(&mut self, before: &[u32], out: &mut Outcome) {
        let call = data_mgr::internal_call(0xA04A);
        // Databases the app left open.
        let left: Vec<data_mgr::OpenDb> = self
            .os
            .dm
            .open
            .iter()
            .filter(|o| o.opener == APP_OWNER_ID)
            .cloned()
            .collect();
        for o in left {
            let name = self
                .os
                .dm
                .db(o.db)
                .map(|d| data_mgr::name_text(&d.header.name))
                .unwrap_or_default();
            self.print(format!(
                "palm-run: database \"{}\" left open by the app; closed",
                crate::script::shown(&name)
            ));
            out.left_open.push(name);
            let _ = data_mgr::close(self, &call, o.dbp);
        }
        // Owner sweep of the dynamic heap.
        let heap = self.os.mem.dynamic;
        match heap.walk(&self.mem) {
            Ok(chunks) => {
                let leaks: Vec<_> = chunks
                    .into_iter()
                    .filter(|c| !c.header.free && c.header.owner == APP_OWNER_ID)
                    .collect();
                if !leaks.is_empty() {
                    self.print("WARNING: Memory Leaks".into());
                    self.print("WARNING: Begin Memory Leak Dump".into());
                }
                for (i, c) in leaks.iter().enumerate() {
                    let movable = c.header.movable();
                    let handle = movable.then(|| c.master_pointer());
                    let address = c.addr + CHUNK_HEADER_SIZE;
                    let leak = Leak {
                        address,
                        size: c.header.data_size(),
                        handle,
                        allocated_by: self
                            .os
                            .mem
                            .sites
                            .get(&handle.unwrap_or(address))
                            .cloned()
                            .unwrap_or_default(),
                    };
                    if i >= MAX_LEAKS_SHOWN {
                        out.leaks.push(leak);
                        continue;
                    }
                    self.print(format!(
                        "{} chunk leaked at 0x{:08X}, size = {}{}",
                        if movable {
                            "Relocatable"
                        } else {
                            "Non-relocatable"
                        },
                        leak.address,
                        leak.size,
                        leak.handle
                            .map_or(String::new(), |h| format!(" (handle 0x{h:08X})"))
                    ));
                    if !leak.allocated_by.is_empty() {
                        self.print("Chunk allocated by:".into());
                        for &a in &leak.allocated_by {
                            let line = format!("    {}", self.describe(a));
                            self.print(line);
                        }
                    }
                    let shown = leak.size.min(256);
                    if let Ok(bytes) = self.mem.read_bytes(address, shown) {
                        self.print(format!("Chunk contents ({shown} of {} bytes):", leak.size));
                        for row in bytes.chunks(16) {
                            let hex: Vec<String> = row.iter().map(|b| format!("{b:02X}")).collect();
                            self.print(format!("    {}", hex.join(" ")));
                        }
                    }
                    out.leaks.push(leak);
                }
                if leaks.len() > MAX_LEAKS_SHOWN {
                    let more = &out.leaks[MAX_LEAKS_SHOWN..];
                    let bytes: u64 = more.iter().map(|l| u64::from(l.size)).sum();
                    self.print(format!(
                        "palm-run: … and {} more chunks leaked ({bytes} bytes), not shown",
                        more.len()
                    ));
                }
                if !leaks.is_empty() {
                    self.print("WARNING: End Memory Leak Dump".into());
                }
                for c in leaks.iter().rev() {
                    if let Ok(Some(c)) = heap.chunk_at(&self.mem, c.addr) {
                        let _ = heap.free_chunk(&mut self.mem, c);
                    }
                }
            }
            Err(e) => self.report(format!("dynamic heap check at exit: {e}")),
        }
        // Dispatch table against its state before launch.
        let after = sys::dispatch_snapshot(self);
        for (i, (b, a)) in before.iter().zip(&after).enumerate() {
            if b != a {
                let trap = 0xA000 | i as u16;
                let name = crate::table::trap_info(trap).map_or("?", |t| t.name);
                if out.patches_left.len() < MAX_PATCHES_SHOWN {
                    self.print(format!(
                        "palm-run: trap 0x{trap:04X} {name} left patched: 0x{a:08X} (was 0x{b:08X})"
                    ));
                }
                out.patches_left.push(PatchLeft {
                    trap,
                    before: *b,
                    after: *a,
                });
            }
        }
    }

    /// After the exit checks: the counts of what was not printed.
    fn print_omitted(&mut self, out: &Outcome) {
        if out.patches_left.len() > MAX_PATCHES_SHOWN {
            self.print(format!(
                "palm-run: … and {} more traps left patched, not shown",
                out.patches_left.len() - MAX_PATCHES_SHOWN
            ));
        }
        let n = self.reports_not_shown();
        if n > 0 {
            self.print(format!(
                "palm-run: … and {n} more debug-ROM reports, not shown"
            ));
        }
    }

    /// Return addresses found by walking the A6 frame chain (`link.w %a6`
    /// frames, which our builds force), innermost first, at most 16; the
    /// walk stops at a frame outside RAM or one that does not go up the stack.
    pub fn backtrace(&self) -> Vec<u32> {
        let mut out = Vec::new();
        let mut a6 = self.cpu.a(6);
        while out.len() < 16 && a6 != 0 && a6 & 1 == 0 {
            let (Ok(next), Ok(ret)) =
                (self.mem.read_u32(a6), self.mem.read_u32(a6.wrapping_add(4)))
            else {
                break;
            };
            if ret == crate::machine::ROM_RETURN_STUB || ret == 0 {
                break;
            }
            out.push(ret);
            if next <= a6 {
                break;
            }
            a6 = next;
        }
        out
    }

    /// The lines of a stop report: what, where (with symbol), the caller,
    /// and the last traps.
    pub fn stop_report(&self, s: &Stop) -> Vec<String> {
        let what = match (&s.kind, self.os.sys.stack) {
            (StopKind::StackOverflow { sp, .. }, Some((bottom, top))) => format!(
                "stack overflow: SP 0x{sp:08X} below the {}-byte stack at 0x{bottom:08X}{}",
                top - bottom,
                self.function_at(s.pc)
                    .map_or(String::new(), |f| format!(", in {f}"))
            ),
            (k, _) => k.to_string(),
        };
        let mut v = vec![
            format!("palm-run: app stopped: {what}"),
            format!("  at PC {}", self.describe(s.pc)),
        ];
        if let Some(c) = s.caller
            && c != s.pc
        {
            v.push(format!("  called from {}", self.describe(c)));
        }
        let frames = self.backtrace();
        if !frames.is_empty() {
            v.push("  backtrace (A6 frame chain, innermost first):".into());
            // A run of one return address (a recursion) is one line.
            let mut i = 0;
            while i < frames.len() {
                let n = frames[i..].iter().take_while(|&&r| r == frames[i]).count();
                let line = format!("    {}", self.describe(frames[i]));
                v.push(if n > 1 {
                    format!(
                        "{line}  (× {n}{})",
                        if i + n == frames.len() {
                            " or more"
                        } else {
                            ""
                        }
                    )
                } else {
                    line
                });
                i += n;
            }
        }
        let hist: Vec<_> = self.trap_history().copied().collect();
        if !hist.is_empty() {
            v.push("  last traps (oldest first):".into());
            for t in hist {
                let name = crate::table::trap_info(t.trap).map_or("?", |i| i.name);
                v.push(format!(
                    "    0x{:04X} {name} from {}",
                    t.trap,
                    self.describe(t.caller)
                ));
            }
        }
        v
    }
}
