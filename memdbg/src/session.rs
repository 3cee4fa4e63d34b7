//! [`start`] and [`stop`]: the detector's lifetime (the seed article's Starter.cpp
//! on/off switch). They run once per launch, in Rust.

use core::mem::size_of;

use m68k_palmos_sys as palm;

use crate::block::{self, NO_STACK, check_guard, check_header};
use crate::events::{self, LEAKED, OVERRUN};
use crate::index::{self, Index};
use crate::ledger;
use crate::patch;
use crate::probe;
use crate::record::{
    self, ALLOC_RECORD_SIZE, AllocFlags, AllocRecord, AsBytes, CONTENTS_LEN, DB_CREATOR,
    DoubleFreeRecord, FEATURE_STATE, FORMAT_VERSION, HeaderFlags, LOCKED_MAX_COUNT, LockedRecord,
    MAX_GENERATION, NOT_SAMPLED, OVERRUN_RECORD_SIZE, Options, OverrunRecord, SegmentRecord,
    SmallSiteRecord, U16Be, U32Be, detected, kind,
};
use crate::settings::{Error, Settings};
use crate::stack::CodeRange;
use crate::state::{
    self, NO_SLOT, PATCHED_FREES, Scratch, SmallSite, State, TRAMPOLINE_LEN, TRAMPOLINES,
};

/// What [`stop`] found.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct Summary {
    /// Tracked blocks never freed.
    pub leaks: u32,
    /// Their requested bytes.
    pub leaked_bytes: u32,
    /// Damaged guards found during the run and at stop.
    pub overruns: u32,
    /// Double frees caught.
    pub double_frees: u32,
    /// Tracked blocks live at stop that another owner had (handed off with
    /// `MemPtrSetOwner`/`MemHandleSetOwner`, e.g. to the system): not leaks.
    pub handed_off: u32,
    /// Tracked handles still locked at stop, in handles: each live handle whose
    /// lock count the OS kept is 1 to 14 then (a [`LockedRecord`] each in the
    /// ledger; the report's "Locked handles at stop"). A finding of its own,
    /// counted whether or not the handle is also a leak (or handed off); a
    /// handle freed before stop is never counted.
    pub locked: u32,
    /// The ledger's run flags ([`HeaderFlags::INCOMPLETE`], …).
    pub flags: HeaderFlags,
}

/// Whether the detector is running (its feature is registered; also when an app
/// returned without `stop`, until the next [`start`] takes its state over).
pub fn is_running() -> bool {
    !state::state_ptr().is_null()
}

/// The detector on for as long as this value lives: [`Session::start`] starts
/// it, and dropping the value stops it ([`stop`]), on every path out of the
/// function that holds it. Hold it in PilotMain (normal launch only), declared
/// before anything whose drop frees tracked blocks or closes forms, so that it is
/// dropped after them:
///
/// ```ignore
/// let _memdbg = memdbg::Session::start(&memdbg::Settings::DEFAULT);
/// ```
///
/// (a failed start gives an `Err` that holds nothing to stop: the app runs
/// untracked). [`Session::stop`] stops it early and gives the [`Summary`]. A
/// panic does not drop it: with Palm's `panic = "immediate-abort"` the app ends
/// at once, and the trampolines then pass every call to the original traps
/// (the crate docs' "Rules for the app") until the next `start` takes the
/// session over.
#[must_use = "dropping the session stops memdbg at once"]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct Session {
    /// Not `Send`, not built outside this module.
    _private: core::marker::PhantomData<*const ()>,
}

impl Session {
    /// [`start`], as a value whose drop stops.
    ///
    /// # Errors
    /// As [`start`]'s.
    pub fn start(settings: &Settings) -> Result<Session, Error> {
        start(settings)?;
        Ok(Session {
            _private: core::marker::PhantomData,
        })
    }

    /// [`checkpoint`]: a new generation starts; its number (1 to 255).
    ///
    /// # Errors
    /// As [`checkpoint`]'s ([`Error::TooManyCheckpoints`] past 255; while the
    /// session lives the detector runs, unless another `stop` stopped it).
    pub fn checkpoint(&self) -> Result<u8, Error> {
        checkpoint()
    }

    /// [`stop`] now, with its [`Summary`] (the drop then does nothing).
    ///
    /// # Errors
    /// As [`stop`]'s.
    pub fn stop(self) -> Result<Summary, Error> {
        core::mem::forget(self);
        stop()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = stop();
    }
}

/// `n` rounded up to an even number (chunk-internal offsets stay 2-aligned).
const fn even(n: usize) -> usize {
    (n + 1) & !1
}

/// The state's size in its chunk (then the scratch buffers).
const ST_SIZE: usize = even(size_of::<State>());
/// The scratch buffers' size in the state's chunk (then the trampolines).
const SC_SIZE: usize = even(size_of::<Scratch>());
/// The state chunk's size before the slot table (6 bytes a slot: its record's
/// pointer and its free-list link) and the index's slot numbers (2 bytes an
/// entry).
const FIXED_SIZE: usize = ST_SIZE + SC_SIZE + TRAMPOLINES * TRAMPOLINE_LEN;

/// A zeroed chunk of the dynamic heap owned by the system (owner 0), so the OS does
/// not free it when the app exits (PALM_FACTS §5.5): the detector frees it itself at
/// stop. Null when the heap has no room. (Not inlined: `start` calls it twice.)
#[inline(never)]
fn system_chunk(size: u32) -> *mut u8 {
    // SAFETY: plain Memory Manager calls on a chunk just allocated, `size` bytes.
    unsafe {
        let p = palm::MemPtrNew(size).cast::<u8>();
        if !p.is_null() {
            palm::MemPtrSetOwner(p.cast(), 0);
            core::ptr::write_bytes(p, 0, size as usize);
        }
        p
    }
}

/// Frees the two chunks `start` allocated (`first` first).
fn free_chunks(first: *mut u8, second: *mut u8) {
    // SAFETY: chunks from system_chunk, each freed once.
    unsafe {
        palm::MemChunkFree(first.cast());
        palm::MemChunkFree(second.cast());
    }
}

/// Starts the detector (normal launch only; see the crate docs).
///
/// Creates MemDbgDB afresh with a header record (replacing the previous run's ledger, never
/// another app's database of that name), allocates the state, index and slot table
/// (system-owned chunks; sizes in [`Settings::capacity`]), probes what the OS offers
/// (`crate::probe`: the OS 3.x internals, else documented calls only,
/// [`HeaderFlags::DOCUMENTED_CALLS`]; `DbgMessage`; the alert dialog), locates
/// code 1 (`DmGetResource('code', 1)`, locked until stop) and records code 2…n (a
/// [`SegmentRecord`] each), the app's name and creator, registers the state
/// with `FtrSet('MDbg', 0)`, and patches `MemChunkFree`/`MemHandleFree` when
/// [`Options::PATCH_FREES`](crate::Options::PATCH_FREES) is set and
/// `MemPtrSize`/`MemHandleSize`/`MemPtrResize`/`MemHandleResize` when
/// [`Options::GUARDS`](crate::Options::GUARDS) is (so that the guard bytes are invisible to
/// the OS and the app); a refusal is recorded, not an error.
///
/// # Errors
/// [`Error::AlreadyRunning`], [`Error::BadSettings`] (capacity 0 or above 5461),
/// [`Error::NoMemory`] (dynamic heap), [`Error::Ledger`] (Data Manager; with
/// `dmErrAlreadyExists` when a database named MemDbgDB exists that is not a ledger:
/// another creator or type, or a resource database, which is left untouched). On an
/// error nothing is left behind and the wrappers behave as the plain OS calls.
pub fn start(settings: &Settings) -> Result<(), Error> {
    // SAFETY: a non-null feature value is a state chunk (this run's, or one an
    // app left behind: system-owned, never freed by the OS).
    if let Some(old) = unsafe { state::state_ptr().as_mut() } {
        if !abandoned(old) {
            return Err(Error::AlreadyRunning);
        }
        take_over(old);
    }
    let entries = match index::entries_for(settings.capacity) {
        Some(n) if settings.capacity != 0 => n,
        _ => return Err(Error::BadSettings),
    };
    let cap = usize::from(settings.capacity);
    let n = u32::from(entries);
    // Two chunks: the index's keys (up to 32 KB), and everything else: the state,
    // the scratch buffers, the trampolines, the slot table (a record pointer and a
    // free-list link per slot) and the index's slot numbers (under 52 KB at the
    // largest capacity).
    let st_size = (FIXED_SIZE + cap * 6) as u32 + n * 2;
    let st_p = system_chunk(st_size);
    if st_p.is_null() {
        return Err(Error::NoMemory);
    }
    let keys = system_chunk(n * 4);
    if keys.is_null() {
        // SAFETY: the chunk just allocated, freed once.
        unsafe { palm::MemChunkFree(st_p.cast()) };
        return Err(Error::NoMemory);
    }
    // SAFETY: a zeroed chunk of State's size is a valid State (all fields are
    // integers, pointers or byte arrays); nobody else knows it yet. The offsets are
    // inside the chunk as sized above.
    let st = unsafe { &mut *st_p.cast::<State>() };
    let (scratch, table) = unsafe { (st_p.add(ST_SIZE), st_p.add(FIXED_SIZE)) };
    st.busy = 1;
    st.settings = *settings;
    st.options = settings.options.bits();
    st.low_heap_threshold = settings.low_heap_threshold;
    st.scratch = scratch.cast::<Scratch>();
    st.free_head = NO_SLOT;
    st.low_free = NOT_SAMPLED;
    st.low_max = NOT_SAMPLED;
    st.pin_next = NOT_SAMPLED;
    st.n_pins = 0;
    st.sc().rec.version = FORMAT_VERSION;
    st.layout = state::LAYOUT;
    // SAFETY: `keys` and the slot numbers after the slot table hold `entries`
    // zeroed (empty) elements, a power of two, and live until stop; the table chunk
    // has `cap` record pointers, then `cap` links.
    unsafe {
        st.index = Index::new(keys.cast(), table.add(cap * 6).cast(), entries - 1);
        st.slot_rec = table.cast();
        st.slot_next = table.add(cap * 4).cast();
        st.trampolines = st_p.add(ST_SIZE + SC_SIZE);
    }
    let (internals, owner) = probe::internals(st_p, st_size);
    st.app_owner = owner as u8;
    if !internals {
        st.documented = 1;
        st.flag(HeaderFlags::DOCUMENTED_CALLS);
    }
    st.flag(probe::output_flags(
        settings.options.contains(Options::ERR_DISPLAY_ALERTS),
    ));
    locate_code(st);
    if let Err(e) = ledger::create(st) {
        release_code(st);
        free_chunks(st_p, keys);
        return Err(e);
    }
    record_segments(st);
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    st.sc().header.start_ticks.set(ticks);
    app_identity(st);
    st.flag(HeaderFlags::RUNNING);
    // SAFETY: a plain Feature Manager call.
    unsafe { palm::FtrSet(DB_CREATOR, FEATURE_STATE, st_p as u32) };
    patch::install(st);
    ledger::write_header(st, 0);
    state::leave(st);
    Ok(())
}
static_assertions::const_assert_eq!(NOT_SAMPLED as u16, NO_SLOT);

/// Whether the registered state `st` is one that an app left behind by
/// returning without `stop`: of this build's layout ([`state::LAYOUT`]; another
/// memdbg's state is not ours to read), not busy, and its ledger no longer open
/// under its `DmOpenRef` (the OS closes an app's databases when it exits): no
/// open database is that reference to MemDbgDB. Else it is this run's own.
fn abandoned(st: &State) -> bool {
    if st.layout != state::LAYOUT || st.busy != 0 {
        return false;
    }
    // SAFETY: plain Data Manager calls; `DmNextOpenDatabase(NULL)` starts the list.
    unsafe {
        let mut db = palm::DmNextOpenDatabase(core::ptr::null_mut());
        while !db.is_null() {
            if db == st.db {
                let mut id = core::mem::MaybeUninit::<u32>::uninit();
                let n: *mut u16 = core::ptr::null_mut();
                let err =
                    palm::DmOpenDatabaseInfo(db, id.as_mut_ptr(), n, n, n, core::ptr::null_mut());
                // (`id` is written when the call succeeds.)
                return err != palm::errNone
                    || id.assume_init() != palm::DmFindDatabase(0, record::DB_NAME_C.as_ptr());
            }
            db = palm::DmNextOpenDatabase(db);
        }
    }
    true
}

/// Takes over the state an app left behind ([`abandoned`]): marked busy (its
/// trampolines, if one is still reached, pass straight to the original), its
/// patches removed where the dispatch table still holds them, its ledger's slot
/// records released (the exited app kept them busy and locked; the new ledger
/// replaces the database), code 1 of that app unlocked where memdbg's lock is
/// still on it ([`release_abandoned_code`]), its feature unregistered and its two chunks freed. If another
/// patch sits on one of its traps (`TRAPS_DISTURBED`), the chunks stay allocated,
/// busy, for that patch to chain through (until a reset).
fn take_over(st: &mut State) {
    st.busy = 1;
    patch::remove(st);
    ledger::release_abandoned(st);
    release_abandoned_code(st);
    // SAFETY: a plain Feature Manager call.
    unsafe { palm::FtrUnregister(DB_CREATOR, FEATURE_STATE) };
    if st.flags & HeaderFlags::TRAPS_DISTURBED.bits() == 0 {
        free_chunks(st.index.keys.cast(), (st as *mut State).cast());
    }
}

/// The lock [`locate_code`] put on code 1 of an app that returned without
/// `stop`, taken off if it is still there: that handle's lock count
/// (`MemHandleLockCount`) above the OS's own, which is 1 if it is also the code
/// 1 running now (the same app relaunched: `DmGetResource('code', 1)` gives the
/// same handle) and 0 otherwise. (A debug ROM, like palm-run, may already have
/// undone it when the app exited, reporting it.) The exited app's database is
/// closed, so the resource is not released again.
fn release_abandoned_code(st: &mut State) {
    let h = st.code_handle;
    if h.is_null() {
        return;
    }
    // SAFETY: plain Data Manager and Memory Manager calls; `h` is a resource
    // handle of an installed app (a resource's chunk stays while its database
    // exists).
    unsafe {
        let now = palm::DmGetResource(palm::four_cc(b"code"), 1);
        if !now.is_null() {
            palm::DmReleaseResource(now);
        }
        if palm::MemHandleLockCount(h) > u16::from(now == h) {
            palm::MemHandleUnlock(h);
        }
    }
    st.code_handle = core::ptr::null_mut();
}

/// Code 1's address range: `code` 1 of the open resource databases, most recently
/// opened first (`DmGetResource`, DataMgr.h: the running app's, before MemDbgDB is
/// opened), locked (`MemHandleLock`: its address is valid while it is locked, as
/// the Memory Manager documents it; [`release_code`] unlocks it at stop), accepted
/// only if one of our own functions is inside it; otherwise frames stay raw
/// ([`HeaderFlags::CODE_BASE_UNKNOWN`]). (`DmGet1Resource` first would find the
/// same resource: it searches only the database `DmGetResource` searches first.)
/// Once found, its CRC-32 goes into the header ([`record::Header::code_crc`]), so
/// the report can refuse an ELF of another build: the only pass over code 1, at
/// start.
fn locate_code(st: &mut State) {
    // SAFETY: a plain Data Manager call.
    let h = unsafe { palm::DmGetResource(palm::four_cc(b"code"), 1) };
    if h.is_null() {
        st.flag(HeaderFlags::CODE_BASE_UNKNOWN);
        return;
    }
    // SAFETY: a resource handle, locked here and released by `release_code`.
    let (base, size) = unsafe { (palm::MemHandleLock(h) as u32, palm::MemHandleSize(h)) };
    st.code_handle = h;
    let range = CodeRange {
        base,
        end: base.wrapping_add(size),
    };
    if !range.contains(start as *const () as usize as u32) {
        release_code(st);
        st.flag(HeaderFlags::CODE_BASE_UNKNOWN);
        return;
    }
    st.code = range;
    // SAFETY: code 1 stays locked (by us and by the OS, which runs it), in the
    // storage heap; these are its bytes, at least one (this function is inside).
    let crc = record::crc32(unsafe {
        core::slice::from_raw_parts(base as usize as *const u8, size as usize)
    });
    st.sc().header.code_crc.set(crc);
}

/// Unlocks and releases code 1's resource handle, if [`locate_code`] kept one.
fn release_code(st: &mut State) {
    if !st.code_handle.is_null() {
        // SAFETY: locked once by locate_code.
        unsafe {
            palm::MemHandleUnlock(st.code_handle);
            palm::DmReleaseResource(st.code_handle);
        }
        st.code_handle = core::ptr::null_mut();
    }
}

/// One [`SegmentRecord`] in the ledger for each code resource N ≥ 2 of the app that
/// is locked now, for N = 2, 3, … up to the first N without one. An app with several
/// code resources (prc-tools' `multiple code` sections) has its startup code load
/// them that way before PilotMain, `DmGet1Resource('code', N)` and `MemHandleLock`
/// until none is found, and unlock them only after PilotMain returns
/// (prc-tools-remix `crt/dreloc.c`: `_GccLoadCodeAndRelocateData`,
/// `_GccReleaseCode`), so `start`, called from PilotMain, finds them where they stay
/// for the whole run, and a return address inside one is `segment N + offset`.
///
/// The resources come from `DmGetResource` (DataMgr.h: the open resource databases,
/// most recently opened first; MemDbgDB, open by now, is a record database), and
/// only when code 1 is the one memdbg runs in ([`locate_code`] found it by the same
/// call): then the code resources are the running app's. One that is not locked
/// (`MemHandleLockCount` 0: nothing runs in it) is skipped; a locked one's address
/// is what `MemHandleLock` gives (the documented way on every OS: a handle need not
/// be a master pointer), unlocked again at once (it stays locked by the startup
/// code). Each record holds the resource's base, size and CRC-32, written as
/// [`ledger::append`]; a full storage heap loses it and marks the ledger
/// incomplete.
fn record_segments(st: &mut State) {
    if st.code_handle.is_null() {
        return;
    }
    let code = palm::four_cc(b"code");
    let mut n: u16 = 2;
    loop {
        // SAFETY: a plain Data Manager call.
        let h = unsafe { palm::DmGetResource(code, n) };
        if h.is_null() {
            return;
        }
        // SAFETY: `h` is a resource handle; a locked chunk does not move, so the
        // address MemHandleLock gives and its size describe where its code runs,
        // and its bytes are readable; the handle is locked and unlocked once, and
        // released once.
        unsafe {
            if palm::MemHandleLockCount(h) != 0 {
                let base = palm::MemHandleLock(h) as u32;
                palm::MemHandleUnlock(h);
                let size = palm::MemHandleSize(h);
                let bytes = core::slice::from_raw_parts(base as usize as *const u8, size as usize);
                let r = SegmentRecord {
                    kind: kind::SEGMENT,
                    version: FORMAT_VERSION,
                    resource: U16Be::new(n),
                    base: U32Be::new(base),
                    size: U32Be::new(size),
                    crc: U32Be::new(record::crc32(bytes)),
                };
                ledger::append(st, r.as_bytes());
            }
            palm::DmReleaseResource(h);
        }
        n += 1;
    }
}

/// The app's database name and creator into the header scratch: `DmDatabaseInfo`
/// writes both in place (the creator is a big-endian `UInt32` there, as on the
/// 68k; the chunk was zeroed, so both stay 0 when the app's database is unknown).
fn app_identity(st: &mut State) {
    let mut card = core::mem::MaybeUninit::<u16>::uninit();
    let mut id = core::mem::MaybeUninit::<u32>::uninit();
    // SAFETY: outputs are locals, read only after success.
    unsafe {
        if palm::SysCurAppDatabase(card.as_mut_ptr(), id.as_mut_ptr()) == palm::errNone {
            let h = &mut st.sc().header;
            // Outputs: the header's 32-byte name (dmDBNameLength = 32) and creator.
            ledger::db_info(
                card.assume_init(),
                id.assume_init(),
                h.app_name.as_mut_ptr(),
                core::ptr::null_mut(),
                core::ptr::null_mut(),
                h.app_creator.0.as_mut_ptr().cast(),
            );
        }
    }
}

/// Stops the detector: restores the free traps' original addresses (read back),
/// checks every block still live (each is a leak — unless, the frees not all
/// seen, it is no longer the chunk memdbg recorded: freed unseen,
/// [`AllocFlags::FREED_UNSEEN`]) with one `DbgMessage` line each, writes the
/// small-allocation sites and the final header, releases the slots' records,
/// removes the free ones from MemDbgDB and closes it, releases code 1; only
/// then, the ledger complete (an alert that ends the app loses nothing), it says
/// the [`Summary`] in one `DbgMessage` line ("memdbg: leaks 1 (16 bytes),
/// overruns 0, double frees 0, locked 1"), shows the alerts at stop (up to
/// [`Settings::max_alerts`], reading the ledger again), and frees the state. Call
/// it before PilotMain returns.
///
/// # Errors
/// [`Error::NotRunning`]; [`Error::Busy`] if called from inside the detector.
pub fn stop() -> Result<Summary, Error> {
    // SAFETY: a non-null feature value is the live state chunk (set by `start`,
    // removed below before the chunk is freed).
    let Some(st) = (unsafe { state::state_ptr().as_mut() }) else {
        return Err(Error::NotRunning);
    };
    // SAFETY: `busy` is read volatile, as a nested entry's mark would be.
    if unsafe { core::ptr::addr_of!(st.busy).read_volatile() } != 0 {
        return Err(Error::Busy);
    }
    st.busy = 1;
    let frees_seen = st.patched & PATCHED_FREES != 0;
    patch::remove(st);
    let overruns = st.counters().overruns.get();
    let (leaks, bytes, handed_off, locked) = report_leaks(st, frees_seen);
    write_sites(st);
    crate::pin::write(st);
    st.flags &= !HeaderFlags::RUNNING.bits();
    // The alerts to come, counted in the header written before them: a leak's
    // while the run's alerts are below the maximum, an overrun found now's.
    let (mut leak_alerts, mut overrun_alerts) = (0, 0);
    if events::alerts_shown(st) {
        let k = st.counters();
        if st.has(Options::ALERTS_AT_EXIT) {
            leak_alerts =
                leaks.min(u32::from(st.settings.max_alerts).saturating_sub(k.alerts.get()));
        }
        if st.has(Options::ALERT_OVERRUNS) {
            overrun_alerts = k.overruns.get() - overruns;
        }
        k.alerts.set(k.alerts.get() + leak_alerts + overrun_alerts);
    }
    // SAFETY: TimGetTicks has no arguments.
    ledger::write_header(st, unsafe { palm::TimGetTicks() });
    ledger::finish(st);
    release_code(st);
    let k = st.counters();
    let summary = Summary {
        leaks,
        leaked_bytes: bytes,
        overruns: k.overruns.get(),
        double_frees: k.double_frees.get(),
        handed_off,
        locked,
        flags: HeaderFlags::from_bits_retain(st.flags),
    };
    let a = &mut st.sc().args;
    a[0] = leaks as usize;
    a[1] = bytes as usize;
    a[2] = summary.overruns as usize;
    a[3] = summary.double_frees as usize;
    a[4] = locked as usize;
    events::dbg_message(st, &SUMMARY_LINE);
    stop_alerts(st, leak_alerts, overrun_alerts);
    // The index's keys are the second chunk (the first starts with the state).
    let keys = st.index.keys.cast::<u8>();
    // Unregistered first, so nothing finds the state while it is freed (the patches
    // are already gone).
    // SAFETY: a plain Feature Manager call.
    unsafe { palm::FtrUnregister(DB_CREATOR, FEATURE_STATE) };
    free_chunks(keys, (st as *mut State).cast());
    Ok(summary)
}

/// Starts a new generation: the allocations after it carry its number
/// ([`AllocRecord::generation`]; those before the run's first checkpoint are
/// generation 0) until the next checkpoint, so that `memdbg report` can tell the
/// leaks of each pass of a loop apart (`--since N`: generations N on). Appends a
/// [`record::CheckpointRecord`] (the generation, `TimGetTicks`, the tracked
/// blocks and bytes live now, the run's counters) with one `DmNewRecord` and one
/// `DmWrite`; no heap walk. The generation is kept in the scratch allocation
/// record, so an allocation pays nothing for it. Returns the new generation, 1
/// to [`MAX_GENERATION`] (255).
///
/// # Errors
/// [`Error::NotRunning`] before [`start`] or after [`stop`]; [`Error::Busy`] if
/// called from inside the detector; [`Error::TooManyCheckpoints`] after 255
/// checkpoints: nothing is written, the header gets
/// [`HeaderFlags::CHECKPOINTS_REFUSED`] and the allocations stay in generation
/// 255. None of them changes anything else.
pub fn checkpoint() -> Result<u8, Error> {
    // SAFETY: a non-null feature value is the live state chunk.
    let Some(st) = (unsafe { state::state_ptr().as_mut() }) else {
        return Err(Error::NotRunning);
    };
    // SAFETY: `busy` is read volatile, as a nested entry's mark would be.
    if unsafe { core::ptr::addr_of!(st.busy).read_volatile() } != 0 {
        return Err(Error::Busy);
    }
    st.busy = 1;
    let g = st.sc().rec.generation;
    let result = if g == MAX_GENERATION {
        st.flag(HeaderFlags::CHECKPOINTS_REFUSED);
        Err(Error::TooManyCheckpoints)
    } else {
        st.sc().rec.generation = g + 1;
        ledger::update_counters(st);
        let r = &mut st.sc().ev.checkpoint;
        r.kind = kind::CHECKPOINT;
        r.version = FORMAT_VERSION;
        r.generation = g + 1;
        // SAFETY: TimGetTicks has no arguments.
        r.ticks.set(unsafe { palm::TimGetTicks() });
        r.live_count.set(st.live_count);
        r.live_bytes.set(st.live_bytes);
        r.counters = *st.counters();
        let bytes = st.sc().ev.checkpoint.as_bytes();
        ledger::append(st, bytes);
        Ok(g + 1)
    };
    state::leave(st);
    result
}

/// The summary line of [`stop`] (the leaks, their bytes, overruns, double frees,
/// handles locked at stop).
static SUMMARY_LINE: [u8; 64] =
    *b"memdbg: leaks \x01 (\x01 bytes), overruns \x01, double frees \x01, locked \x01\0";

/// At stop: every live block is checked and, unless it was freed unseen or handed
/// off, counted as a leak and reported (one `DbgMessage` line each; a record
/// retired as freed unseen while running, `crate::alloc::reused`, is left as it
/// is); then every slot's record is released (nothing reads it again through its
/// pointer). `frees_seen`: the free traps were patched, so every free made with
/// a trap call was seen. Returns the leaks, their bytes (which the header then
/// counts), the blocks handed off and the handles found locked
/// ([`write_locked`]).
///
/// With the OS 3.x internals, a block that is no longer the chunk recorded
/// ([`block::still_live`]: its chunk free, also when merged into a free
/// neighbour, or its size changed; with the frees not seen, its owner too) was
/// freed unseen: its record gets [`AllocFlags::FREED_UNSEEN`], and its guard is
/// not checked (the memory is no longer its block). That covers frees inside the
/// Memory Manager that make no trap call (`MemHeapFreeByOwnerID`) with the
/// patches installed too. With [`HeaderFlags::DOCUMENTED_CALLS`], whose calls
/// cannot tell a freed chunk from a live one, only with the frees not seen: a
/// block no longer the chunk recorded, or whose guard is damaged, was freed
/// unseen (without the frees seen a block handed off cannot be told from one
/// freed unseen). A live block's guard is checked ([`check_guard`], an overrun
/// found at stop); one that another owner has now ([`handed_off`]) gets
/// [`AllocFlags::HANDED_OFF`]: not a leak. With [`Options::CONTENTS`], each leak's
/// first bytes follow ([`write_contents`]); a block freed unseen is never read.
fn report_leaks(st: &mut State, frees_seen: bool) -> (u32, u32, u32, u32) {
    let (mut leaks, mut bytes, mut handed, mut locked) = (0u32, 0u32, 0u32, 0u32);
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    for s in 0..st.n_slots {
        let rec = st.rec(s);
        // SAFETY: a busy, locked record of the slot table (an allocation record).
        let k = unsafe { rec.read() };
        let retired = block::flags_of(rec) & AllocFlags::FREED_UNSEEN.bits() != 0;
        if !kind::is_alloc(k) || retired {
            continue;
        }
        let key = block::key_of(rec);
        // An underrun first: its header repaired, the block reads as its chunk
        // again (a damaged hOffset would otherwise look like a chunk freed).
        // SAFETY: a live block's record and key.
        unsafe { check_header(st, rec, key, detected::AT_STOP.into(), ticks, &NO_STACK) };
        // SAFETY: a live block's record and key.
        let live = if st.documented == 0 {
            block::still_live(st, rec, key, !frees_seen)
        } else {
            frees_seen
                || (block::still_live(st, rec, key, true)
                    && unsafe { block::guard_intact(st, rec, key) })
        };
        let set = if !live {
            AllocFlags::FREED_UNSEEN
        } else {
            // SAFETY: as above.
            unsafe { check_guard(st, rec, key, detected::AT_STOP.into(), ticks, &NO_STACK) };
            locked += u32::from(write_locked(st, rec, key, ticks));
            if handed_off(st, rec) {
                handed += 1;
                AllocFlags::HANDED_OFF
            } else {
                leaks += 1;
                bytes += block::size_of(rec);
                // SAFETY: as above.
                unsafe { events::leak_line(st, rec) };
                if st.has(Options::CONTENTS) {
                    write_contents(st, rec, key);
                }
                continue;
            }
        };
        let flags = block::flags_of(rec) | set.bits();
        ledger::write(rec, AllocRecord::FLAGS_OFFSET, &flags.to_be_bytes());
    }
    ledger::release_slots(st);
    // The header counts the leaks, not the blocks freed unseen or handed off.
    st.live_count = leaks;
    st.live_bytes = bytes;
    (leaks, bytes, handed, locked)
}

/// At stop, for the live tracked block of record `rec` (`key`: its address):
/// if it is a handle the OS keeps locked, a [`LockedRecord`] (its lock count,
/// `ticks`, a copy of its allocation record) appended with [`ledger::append`].
/// The lock count is the OS's, not memdbg's: with the OS 3.x internals the
/// chunk header's `lockCount` ([`probe::handle_lock_count`], PALM_FACTS §5.1);
/// with [`HeaderFlags::DOCUMENTED_CALLS`] `MemHandleLockCount` (trap 0xA01F,
/// sdk-3.5 `CoreTraps.h` `sysTrapMemHandleLockCount`; palm-sys's `traps.tbl`).
/// A count above [`LOCKED_MAX_COUNT`] (15 is a non-movable chunk's, not a
/// handle's) is not written. Called before [`write_contents`], whose
/// `MemHandleLock` on the documented path is undone before it returns. The
/// record is built in the double-free scratch record, idle at stop (the patches
/// are removed first): the state chunk, and so the dynamic heap's layout, stays
/// as it was. True when the handle is locked (1 to [`LOCKED_MAX_COUNT`] times),
/// whether its record was written or lost to a full storage heap (the ledger
/// then marked incomplete): [`Summary::locked`] counts it.
fn write_locked(st: &mut State, rec: *const u8, key: u32, ticks: u32) -> bool {
    if block::flags_of(rec) & AllocFlags::HANDLE.bits() == 0 {
        return false;
    }
    // SAFETY: `key` is a live tracked handle.
    let count = unsafe { block::handle_lock_count(st, key) };
    if count == 0 || count > u32::from(LOCKED_MAX_COUNT) {
        return false;
    }
    let r = (&mut st.sc().ev.double as *mut DoubleFreeRecord).cast::<LockedRecord>();
    // SAFETY: the double-free scratch is at least LOCKED_RECORD_SIZE bytes
    // (asserted below), 2-byte aligned as a LockedRecord needs, and unused at
    // stop; `rec` is a locked allocation record of ALLOC_RECORD_SIZE bytes.
    unsafe {
        (*r).kind = kind::LOCKED;
        (*r).version = FORMAT_VERSION;
        (*r).lock_count = count as u8;
        (*r).reserved = 0;
        (*r).ticks = U32Be::new(ticks);
        core::ptr::copy_nonoverlapping(
            rec,
            core::ptr::addr_of_mut!((*r).alloc).cast::<u8>(),
            record::ALLOC_RECORD_SIZE,
        );
        ledger::append(st, (*r).as_bytes());
    }
    true
}

const _: () = assert!(
    core::mem::size_of::<LockedRecord>() <= core::mem::size_of::<DoubleFreeRecord>()
        && core::mem::align_of::<LockedRecord>() <= core::mem::align_of::<DoubleFreeRecord>()
);

/// Whether the live block of record `rec` was handed off: allocated as the app's
/// (not [`AllocFlags::OTHER_OWNER`]) and now of another owner, as
/// `MemPtrOwner`/`MemHandleOwner` say (documented calls: no chunk header is
/// read). A block whose owner went to 0 and back stays the app's: a leak.
fn handed_off(st: &State, rec: *const u8) -> bool {
    let flags = AllocFlags::from_bits_retain(block::flags_of(rec));
    if flags.contains(AllocFlags::OTHER_OWNER) {
        return false;
    }
    let at = block::key_of(rec) as usize;
    // SAFETY: a live tracked block: its pointer or handle.
    let owner = unsafe {
        if flags.contains(AllocFlags::HANDLE) {
            palm::MemHandleOwner(at as palm::MemHandle)
        } else {
            palm::MemPtrOwner(at as palm::MemPtr)
        }
    };
    owner != u16::from(st.app_owner)
}

/// At stop, for the leak whose record is `rec` (`key`: its address), a
/// [`record::ContentsRecord`]: its sequence number and its first
/// `min(size, CONTENTS_LEN)` bytes, from the block handed out (the chunk's start
/// plus the record's data offset), appended with [`ledger::append`]. The block is
/// reached through [`block::chunk`] (with [`HeaderFlags::DOCUMENTED_CALLS`] a
/// handle is locked with `MemHandleLock` for the copy and unlocked after), and
/// only after [`report_leaks`] found it still the chunk memdbg recorded.
fn write_contents(st: &mut State, rec: *const u8, key: u32) {
    let flags = block::flags_of(rec);
    let n = block::size_of(rec).min(CONTENTS_LEN as u32) as u16;
    // SAFETY: a locked allocation record.
    let (seq, offset) = unsafe {
        let a = &*rec.cast::<AllocRecord>();
        (a.seq, usize::from(a.data_offset.get()))
    };
    let c = block::chunk(st, key, flags);
    let r = &mut st.sc().ev.contents;
    r.kind = kind::CONTENTS;
    r.version = FORMAT_VERSION;
    r.count = U16Be::new(n);
    r.seq = seq;
    r.bytes = [0; CONTENTS_LEN];
    // SAFETY: `c` is the live block's chunk (locked while a handle's is reached
    // with MemHandleLock), at least data offset + size bytes long, and n ≤ size;
    // the scratch record has CONTENTS_LEN ≥ n bytes.
    unsafe {
        core::ptr::copy_nonoverlapping(
            (c as usize as *const u8).add(offset),
            r.bytes.as_mut_ptr(),
            usize::from(n),
        );
    }
    block::release_chunk(st, key, flags);
    let bytes = st.sc().ev.contents.as_bytes();
    ledger::append(st, bytes);
}

/// The alerts of [`stop`], once the ledger is complete and closed (and code 1
/// released: an alert that ends the app leaves nothing open): the first
/// `leak_alerts` leaks' and `overrun_alerts` overruns found at stop, in the
/// ledger's order. For each, MemDbgDB is opened for reading, the next such record
/// is copied while locked ([`ledger::read_record`]) and the database closed again
/// before the alert is shown.
fn stop_alerts(st: &State, mut leak_alerts: u32, mut overrun_alerts: u32) {
    let buf = &mut st.sc().ev.overrun;
    let at = (buf as *mut OverrunRecord).cast::<u8>();
    let mut i = 1;
    while leak_alerts + overrun_alerts > 0 {
        let db = ledger::reopen();
        if db.is_null() {
            return;
        }
        // The next record to alert about: (its kind, true for an overrun).
        let mut found = None;
        // SAFETY: an open database; `buf` is the scratch overrun record, room for
        // either record.
        unsafe {
            let n = palm::DmNumRecords(db);
            while found.is_none() && i < n {
                match ledger::kind_of(db, i) {
                    Some(k)
                        if kind::is_alloc(k)
                            && leak_alerts > 0
                            && ledger::read_record(db, i, at, ALLOC_RECORD_SIZE as u32)
                            && block::flags_of(at)
                                & (AllocFlags::FREED_UNSEEN | AllocFlags::HANDED_OFF).bits()
                                == 0 =>
                    {
                        found = Some((k, false));
                    }
                    Some(kind::OVERRUN)
                        if overrun_alerts > 0
                            && ledger::read_record(db, i, at, OVERRUN_RECORD_SIZE as u32)
                            && buf.when.get() == detected::AT_STOP =>
                    {
                        found = Some((buf.alloc.kind, true));
                    }
                    _ => {}
                }
                i += 1;
            }
            palm::DmCloseDatabase(db);
        }
        let Some((k, overrun)) = found else {
            return;
        };
        // SAFETY: the copied record (an overrun's embedded allocation record).
        unsafe {
            if overrun {
                overrun_alerts -= 1;
                events::alert(
                    st,
                    (&buf.alloc as *const AllocRecord).cast(),
                    k,
                    &OVERRUN,
                    false,
                );
            } else {
                leak_alerts -= 1;
                events::alert(st, at, k, &LEAKED, true);
            }
        }
    }
}

/// Bytes of a small-site record before its allocation record.
const SMALL_SITE_HEAD: u32 = core::mem::offset_of!(SmallSiteRecord, first) as u32;

/// At stop: one record per small-allocation site (none without
/// [`Options::HEAP_STATS`]: only then are sites counted). Each site's entry becomes
/// its record in place: its key gives way to the record's kind, version and
/// reserved word (count, bytes and first allocation are at the record's offsets).
fn write_sites(st: &mut State) {
    let sites = st.sc().sites.as_mut_ptr();
    for i in 0..usize::from(st.n_sites) {
        // SAFETY: one of the n_sites ≤ SITES entries in use, rewritten in place as
        // its record (the layouts agree after the first long; count and bytes are
        // read before they are rewritten in the record's byte order).
        unsafe {
            let site = sites.add(i);
            let (count, bytes) = ((*site).count, (*site).bytes);
            let r = &mut *site.cast::<SmallSiteRecord>();
            r.kind = kind::SMALL_SITE;
            r.version = FORMAT_VERSION;
            r.reserved = U16Be::new(0);
            r.count.set(count);
            r.bytes.set(bytes);
            let head = site.cast::<u8>();
            let first = head.add(core::mem::offset_of!(SmallSite, first));
            ledger::event(st, head, SMALL_SITE_HEAD, first, first.read());
        }
    }
}
static_assertions::const_assert!(
    core::mem::offset_of!(SmallSiteRecord, count) == core::mem::offset_of!(SmallSite, count)
        && core::mem::offset_of!(SmallSiteRecord, bytes) == core::mem::offset_of!(SmallSite, bytes)
        && core::mem::offset_of!(SmallSiteRecord, first) == core::mem::offset_of!(SmallSite, first)
        && core::mem::offset_of!(SmallSite, key) == 0
);
// The state's chunks: the settings are copied whole; the allocation record's first
// byte is its kind (report_leaks reads it).
static_assertions::const_assert_eq!(AllocRecord::KIND_OFFSET, 0);
static_assertions::const_assert!(core::mem::size_of::<OverrunRecord>() >= ALLOC_RECORD_SIZE);
static_assertions::const_assert_eq!(FIXED_SIZE % 2, 0);
