//! [`start`] and [`stop`]: the detector's lifetime (the seed article's Starter.cpp
//! on/off switch).

use core::mem::{offset_of, size_of};

use m68k_palmos_sys as palm;

use crate::index::{self, Index};
use crate::ledger;
use crate::mem;
use crate::patch;
use crate::record::{
    self, Counters, DB_CREATOR, FEATURE_STATE, FORMAT_VERSION, HEADER_MAGIC, HEADER_SIZE, Header,
    HeaderFlags, NOT_SAMPLED, Options, U16Be, U32Be, kind,
};
use crate::stack::CodeRange;
use crate::state::{self, NO_SLOT, Scratch, State};
use crate::track;
use crate::{Error, Settings};

/// What [`stop`] found.
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
    /// The ledger's run flags ([`HeaderFlags::INCOMPLETE`], …).
    pub flags: HeaderFlags,
}

/// Whether the detector is running (its feature is registered).
pub fn is_running() -> bool {
    !state_ptr().is_null()
}

/// [`state::state_ptr`] as one function for the calls outside the hot paths. On the
/// 68k it is written in assembly (LLVM's code built a frame and saved D2 through
/// it): `FtrGet('MDbg', 0, &v)` with `v` in a long pushed on the stack, then `v`,
/// or null when the feature is not registered, in A0 and D0. D2 is saved (Palm
/// OS may clobber it; LLVM's convention keeps it).
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) extern "C" fn state_ptr() -> *mut State {
    core::arch::naked_asm!(
        "move.l %d2,-(%sp)",
        ".short 0x42A7", // clr.l -(%sp): v
        ".short 0x4857", // pea (%sp): &v
        ".short 0x4267", // clr.w -(%sp): feature 0
        "move.l #{creator},-(%sp)",
        "trap #15",
        ".short {ftr_get}",
        "lea (10,%sp),%sp",
        "move.l (%sp)+,%a0",
        ".short 0x4A40", // tst.w %d0
        ".short 0x6702", // beq.s over the next instruction
        ".short 0x91C8", // suba.l %a0,%a0
        "move.l (%sp)+,%d2",
        "move.l %a0,%d0",
        "rts",
        creator = const DB_CREATOR,
        ftr_get = const palm::traps::sysTrapFtrGet,
    )
}

// The assembly pushes feature number 0.
static_assertions::const_assert_eq!(FEATURE_STATE, 0);

/// Registers the state's address `st` with `FtrSet('MDbg', 0, st)`, or with 0
/// removes it (`FtrUnregister('MDbg', 0)`). On the 68k the constants are pushed as
/// immediates (the glue loaded each into a register first).
#[inline(always)]
fn feature(st: u32) {
    #[cfg(target_arch = "m68k")]
    // SAFETY: pushes the Palm layouts (FtrSet: creator, featureNum, newValue; 10
    // bytes; FtrUnregister: creator, featureNum; 6 bytes; the last argument first),
    // pops exactly that and declares every register Palm OS may clobber (D0-D2/A0-A1).
    unsafe {
        if st != 0 {
            core::arch::asm!(
                "move.l {v},-(%sp)",
                ".short 0x4267", // clr.w -(%sp): feature 0
                "move.l #{creator},-(%sp)",
                "trap #15",
                ".short {trap}",
                "lea (10,%sp),%sp",
                v = in(reg) st,
                creator = const DB_CREATOR,
                trap = const palm::traps::sysTrapFtrSet,
                lateout("d0") _, lateout("d1") _, lateout("d2") _, lateout("a0") _, lateout("a1") _,
            );
        } else {
            core::arch::asm!(
                ".short 0x4267", // clr.w -(%sp): feature 0
                "move.l #{creator},-(%sp)",
                "trap #15",
                ".short {trap}",
                ".short 0x5C8F", // addq.l #6,%sp
                creator = const DB_CREATOR,
                trap = const palm::traps::sysTrapFtrUnregister,
                lateout("d0") _, lateout("d1") _, lateout("d2") _, lateout("a0") _, lateout("a1") _,
            );
        }
    }
    #[cfg(not(target_arch = "m68k"))]
    // SAFETY: plain Feature Manager calls.
    unsafe {
        if st != 0 {
            palm::FtrSet(DB_CREATOR, FEATURE_STATE, st);
        } else {
            palm::FtrUnregister(DB_CREATOR, FEATURE_STATE);
        }
    }
}

/// [`state::state_ptr`] (host builds: no Palm OS to call).
#[cfg(not(target_arch = "m68k"))]
pub(crate) fn state_ptr() -> *mut State {
    state::state_ptr()
}

/// `v` unchanged, in a data register LLVM cannot see through (the output of an
/// empty `asm!`), so that stores of it are register stores.
#[inline(always)]
fn opaque(v: u32) -> u32 {
    #[cfg(target_arch = "m68k")]
    {
        let mut v = v;
        // SAFETY: no instruction (a comment naming the register); no memory access.
        unsafe {
            core::arch::asm!("/* {0} */", inout(reg_data) v, options(pure, nomem, nostack, preserves_flags))
        };
        v
    }
    #[cfg(not(target_arch = "m68k"))]
    v
}
// `start` sets the free list's head from the same all-ones value.
static_assertions::const_assert_eq!(NOT_SAMPLED as u16, NO_SLOT);

/// `n` rounded up to an even number (chunk-internal offsets stay 2-aligned).
const fn even(n: usize) -> usize {
    (n + 1) & !1
}

/// The state's size in its chunk (then the scratch buffers).
const ST_SIZE: usize = even(size_of::<State>());
/// The scratch buffers' size in the state's chunk (then the trampolines).
const SC_SIZE: usize = even(size_of::<Scratch>());
/// The trampolines' size in the state's chunk (then the slot table).
const TRAMP_SIZE: usize = patch::TRAMPOLINES * patch::TRAMPOLINE_LEN;

/// A chunk of the dynamic heap owned by the system (owner 0), so the OS does not free
/// it when the app exits (PALM_FACTS §5.5): the detector frees it itself at stop.
fn system_chunk(size: u32) -> *mut u8 {
    // SAFETY: plain Memory Manager calls on a chunk just allocated.
    unsafe {
        let p = palm::MemPtrNew(size);
        if !p.is_null() {
            palm::MemPtrSetOwner(p, 0);
            core::ptr::write_bytes(p.cast::<u8>(), 0, size as usize);
        }
        p.cast()
    }
}

/// Frees the two chunks `start` allocated.
#[inline(always)]
fn free_chunks(a: *mut u8, b: *mut u8) {
    // SAFETY: chunks from system_chunk, each freed once.
    unsafe {
        palm::MemChunkFree(a.cast());
        palm::MemChunkFree(b.cast());
    }
}

/// Starts the detector (normal launch only; see the crate docs).
///
/// Creates MemDbgDB afresh with a header record (replacing the previous run's ledger,
/// never another app's database of that name), allocates the state, index and slot
/// table (system-owned chunks; sizes in [`Settings::capacity`]), registers the state
/// with `FtrSet('MDbg', 0)`, locates code 1 (`DmGetResource('code', 1)`) and the
/// app's name and creator, and patches `MemChunkFree`/`MemHandleFree` when
/// [`Options::PATCH_FREES`] is set and `MemPtrSize`/`MemHandleSize`/`MemPtrResize`/
/// `MemHandleResize` when [`Options::GUARDS`] is (so that the guard bytes are
/// invisible to the OS and the app); a refusal is recorded, not an error.
///
/// # Errors
/// [`Error::AlreadyRunning`], [`Error::BadSettings`] (capacity 0 or above 5461),
/// [`Error::NoMemory`] (dynamic heap), [`Error::Ledger`] (Data Manager; with
/// `dmErrAlreadyExists` when a database named MemDbgDB exists that is not a ledger:
/// another creator or type, or a resource database, which is left untouched). On an
/// error nothing is left behind and the wrappers behave as the plain OS calls.
#[inline(never)]
pub fn start(settings: &Settings) -> Result<(), Error> {
    if !state_ptr().is_null() {
        return Err(Error::AlreadyRunning);
    }
    let entries = match index::entries_for(settings.capacity) {
        Some(n) if settings.capacity != 0 => n,
        _ => return Err(Error::BadSettings),
    };
    let cap = u32::from(settings.capacity);
    let n = u32::from(entries);
    // Two chunks: the index's keys (up to 32 KB), and everything else: the state,
    // the scratch buffers, the trampolines, the slot table (a record pointer and a
    // free-list link per slot) and the index's slot numbers (under 52 KB at the
    // largest capacity).
    let st_p = system_chunk((ST_SIZE + SC_SIZE + TRAMP_SIZE) as u32 + cap * 6 + n * 2);
    if st_p.is_null() {
        return Err(Error::NoMemory);
    }
    let keys = system_chunk(n * 4);
    if keys.is_null() {
        // SAFETY: the chunk just allocated, freed once.
        unsafe { palm::MemChunkFree(st_p.cast()) };
        return Err(Error::NoMemory);
    }
    // SAFETY: offsets inside the first chunk, as sized above; each constant one
    // `lea` from the chunk (LLVM adds them in a data register).
    let (scratch, tramp, table, slots) = unsafe {
        let table = mem::lea::<{ ST_SIZE + SC_SIZE + TRAMP_SIZE }, _>(st_p);
        (
            mem::lea::<ST_SIZE, _>(st_p),
            mem::lea::<{ ST_SIZE + SC_SIZE }, _>(st_p),
            table,
            table.add(cap as usize * 6),
        )
    };
    // SAFETY: a zeroed chunk of State's size is a valid State (all fields are
    // integers, pointers or byte arrays); nobody else knows it yet.
    let st = unsafe { &mut *st_p.cast::<State>() };
    st.busy = 1;
    // Through one `lea`: the settings straddle offset 128, beyond which LLVM
    // addresses each field through an index register.
    // SAFETY: the state's own field.
    unsafe { *mem::lea::<{ offset_of!(State, settings) }, _>(st_p).cast::<Settings>() = *settings };
    st.options = settings.options.bits();
    st.low_heap_threshold = settings.low_heap_threshold;
    st.scratch = scratch.cast::<Scratch>();
    // All ones, from one register: LLVM would store each as an immediate.
    let ones = opaque(NOT_SAMPLED);
    st.free_head = ones as u16;
    st.low_free = ones;
    st.low_max = ones;
    state::scratch!(st, rec).version = FORMAT_VERSION;
    // SAFETY: `keys` and `slots` hold `entries` zeroed (empty) elements, a power of
    // two, and live until stop.
    st.index = unsafe { Index::new(keys.cast(), slots.cast(), entries - 1) };
    // The same shift (`index::shift_for`, 16 − log2(entries)) by halving: the
    // 68000 has no bit scan, and LLVM's trailing-zeros sequence multiplies through
    // `__mulsi3` and a table; this store makes that computation dead.
    let mut shift = 16;
    let mut m = entries;
    while m > 1 {
        m >>= 1;
        shift -= 1;
    }
    st.index.shift = shift;
    st.slot_rec = table.cast();
    // SAFETY: the table chunk has capacity pointers, then capacity u16s.
    st.slot_next = unsafe { table.add(cap as usize * 4) }.cast();
    st.trampolines = tramp;
    locate_code(st);
    if let Err(e) = ledger::create(st) {
        free_chunks(st_p, keys);
        return Err(e);
    }
    // SAFETY: TimGetTicks has no arguments; the start ticks are a field of the
    // scratch header, addressed with one lea.
    unsafe {
        let t = mem::lea::<{ offset_of!(Scratch, header) + offset_of!(Header, start_ticks) }, _>(
            st.scratch.cast::<U32Be>(),
        );
        (*t).set(palm::TimGetTicks());
    }
    app_identity(st);
    st.flag(HeaderFlags::RUNNING);
    feature(st_p as u32);
    patch::install(st);
    write_header(st, 0);
    state::leave(st);
    Ok(())
}

/// Code 1's address range: `code` 1 of the open resource databases, most recently
/// opened first (`DmGetResource`, DataMgr.h: the running app's, before MemDbgDB is
/// opened), accepted only if one of our own functions is inside it; otherwise frames
/// stay raw ([`HeaderFlags::CODE_BASE_UNKNOWN`]). (`DmGet1Resource` first would find
/// the same resource: it searches only the database `DmGetResource` searches first.)
/// Once found, its CRC-32 goes into the header ([`record::Header::code_crc`]), so the
/// report can refuse an ELF of another build: the only pass over code 1, at start.
#[inline(always)]
fn locate_code(st: &mut State) {
    // SAFETY: a plain Data Manager call.
    let h = unsafe { palm::DmGetResource(palm::four_cc(b"code"), 1) };
    // Without the resource, an empty range (base and size 0): the one test below
    // then fails too, and one branch sets the flag.
    let (mut base, mut size) = (0u32, 0u32);
    if !h.is_null() {
        // SAFETY: `h` is a resource handle: its master pointer holds the chunk's
        // address (nothing moves chunks between these calls; the OS keeps code 1
        // locked while the app runs, so only a match is kept); then it is released.
        unsafe {
            base = h.cast::<u32>().read();
            size = palm::MemHandleSize(h);
            palm::DmReleaseResource(h);
        }
    }
    let range = CodeRange {
        base,
        end: base.wrapping_add(size),
    };
    // Our function here is `start`: this one is inlined into it.
    if !range.contains(start as *const () as usize as u32) {
        st.flag(HeaderFlags::CODE_BASE_UNKNOWN);
        return;
    }
    st.code = range;
    // SAFETY: code 1 stays locked by the OS while the app runs (it is executing), in
    // the storage heap, which does not move; these are its bytes, at least one (this
    // function is inside).
    let crc = unsafe { code_crc(base as usize as *const u8, size) };
    // SAFETY: the scratch header's CRC field, addressed by one `lea` (LLVM loads
    // its offset into an index register).
    unsafe {
        (*mem::lea::<{ offset_of!(Scratch, header) + offset_of!(Header, code_crc) }, _>(
            st.scratch.cast::<U32Be>(),
        ))
        .set(crc);
    }
}

/// [`record::crc32`] of the `len` bytes at `p`. On the 68k a 36-byte loop of 16
/// instructions per input byte (LLVM's took 22 instructions and 60 bytes): the same
/// steps, with the table index taken as `(crc << 2) & 60`.
///
/// # Safety
/// `p` has `len` readable bytes, `len` > 0.
unsafe fn code_crc(p: *const u8, len: u32) -> u32 {
    #[cfg(target_arch = "m68k")]
    {
        let crc: u32;
        // SAFETY: reads the caller's `len` bytes and the 16-entry table.
        unsafe {
            core::arch::asm!(
                "moveq #-1,%d0",
                "moveq #60,%d3",
                "1:",
                "move.b (%a0)+,%d2",
                "eor.b %d2,%d0",
                "move.l %d0,%d2",
                "lsl.l #2,%d2",
                "and.l %d3,%d2",
                "lsr.l #4,%d0",
                "move.l (0,%a1,%d2),%d2",
                "eor.l %d2,%d0",
                "move.l %d0,%d2",
                "lsl.l #2,%d2",
                "and.l %d3,%d2",
                "lsr.l #4,%d0",
                "move.l (0,%a1,%d2),%d2",
                "eor.l %d2,%d0",
                ".short 0x5381",        // subq.l #1,%d1
                ".byte 0x66, 1b-.-1",   // bne.s 1b
                "not.l %d0",
                inout("a0") p => _,
                inout("d1") len => _,
                in("a1") record::CRC32_NIBBLES.as_ptr(),
                out("d0") crc,
                out("d2") _,
                out("d3") _,
                options(nostack, readonly),
            );
        }
        crc
    }
    #[cfg(not(target_arch = "m68k"))]
    // SAFETY: the caller's guarantee.
    record::crc32(unsafe { core::slice::from_raw_parts(p, len as usize) })
}

/// The app's database name and creator into the header scratch: `DmDatabaseInfo`
/// writes both in place (the creator is a big-endian `UInt32` there, as on the
/// 68k; the chunk was zeroed, so both stay 0 when the app's database is unknown).
fn app_identity(st: &mut State) {
    // Written by SysCurAppDatabase when it succeeds (and read only then).
    let mut card = core::mem::MaybeUninit::<u16>::uninit();
    let mut id = core::mem::MaybeUninit::<u32>::uninit();
    // SAFETY: outputs are locals or the header's fields: the 32-byte name
    // (dmDBNameLength = 32) and the creator, at an even address; card and id are
    // read after SysCurAppDatabase wrote them.
    unsafe {
        if palm::SysCurAppDatabase(card.as_mut_ptr(), id.as_mut_ptr()) == palm::errNone {
            let sc = st.scratch.cast::<u8>();
            ledger::db_info(
                mem::read_u16(card.as_ptr()) as u32,
                id.assume_init(),
                mem::lea::<{ offset_of!(Scratch, header) + offset_of!(Header, app_name) }, _>(sc),
                core::ptr::null_mut(),
                core::ptr::null_mut(),
                mem::lea::<{ offset_of!(Scratch, header) + offset_of!(Header, app_creator) }, _>(
                    sc,
                )
                .cast(),
            );
        }
    }
}

// DmDatabaseInfo writes the creator as a long: at an even address.
static_assertions::const_assert_eq!(core::mem::offset_of!(Scratch, header) % 2, 0);

/// Fills the header's fields that are not kept in it all along (the app identity and
/// the start ticks are set at start, the rarer counters are counted in place) from
/// the state, and writes the header to record 0.
fn write_header(st: &State, stop_ticks: u32) {
    // SAFETY: the scratch header, addressed by one `lea` from the scratch chunk
    // (opaque to LLVM, which adds the offset in a data register).
    let h = unsafe {
        &mut *mem::lea::<{ offset_of!(Scratch, header) }, _>(st.scratch.cast::<Header>())
    };
    h.kind = kind::HEADER;
    h.version = FORMAT_VERSION;
    h.header_size = U16Be::new(HEADER_SIZE as u16);
    h.magic.set(HEADER_MAGIC);
    h.flags.set(st.flags);
    h.options.set(st.options);
    h.low_heap_threshold.set(st.low_heap_threshold);
    h.code_base.set(st.code.base);
    h.code_size.set(st.code.end.wrapping_sub(st.code.base));
    h.stop_ticks.set(stop_ticks);
    copy_counters(st, h);
    ledger::write_header(st, h);
}

/// The header's counters kept in the state, and the settings' alert limit and
/// capacity: on the 68k in assembly, addressed from the header itself (LLVM took a
/// second base for the counters and an index register for the far settings), the
/// limit and the capacity as one long, and three runs of longs in the same order in
/// both (the allocation, free and OS-free counts, the peaks, the low-water marks)
/// each a `movem.l` load and store (8 bytes for two or three longs instead of 6 a
/// long; `U32Be` is the 68k's own byte order).
#[inline(always)]
fn copy_counters(st: &State, h: &mut Header) {
    #[cfg(target_arch = "m68k")]
    // SAFETY: reads the state's fields and writes the header's counters named below
    // (the runs asserted adjacent), all 2-aligned; D0-D2 are declared clobbered.
    unsafe {
        core::arch::asm!(
            "move.l ({s_alerts},{st}),({h_alerts},{h})", // max_alerts, capacity
            "move.l ({s_count},{st}),({k_leaks},{h})",
            "move.l ({s_bytes},{st}),({k_leaked},{h})",
            "movem.l ({s_alloc},{st}),%d0-%d2",
            "movem.l %d0-%d2,({k_alloc},{h})",
            "movem.l ({s_peak},{st}),%d0-%d1",
            "movem.l %d0-%d1,({k_peak},{h})",
            "movem.l ({s_low},{st}),%d0-%d1",
            "movem.l %d0-%d1,({k_low},{h})",
            st = in(reg_addr) st as *const State,
            h = in(reg_addr) h as *mut Header,
            s_alerts = const offset_of!(State, settings) + offset_of!(Settings, max_alerts),
            h_alerts = const offset_of!(Header, max_alerts),
            s_count = const offset_of!(State, live_count),
            k_leaks = const offset_of!(Header, counters) + offset_of!(Counters, leaks),
            s_bytes = const offset_of!(State, live_bytes),
            k_leaked = const offset_of!(Header, counters) + offset_of!(Counters, leaked_bytes),
            s_alloc = const offset_of!(State, allocations),
            k_alloc = const offset_of!(Header, counters) + offset_of!(Counters, allocations),
            s_peak = const offset_of!(State, peak_bytes),
            k_peak = const offset_of!(Header, counters) + offset_of!(Counters, peak_live_bytes),
            s_low = const offset_of!(State, low_free),
            k_low = const offset_of!(Header, counters) + offset_of!(Counters, low_free),
            out("d0") _,
            out("d1") _,
            out("d2") _,
            // (Not preserves_flags: its memory-to-memory moves set N and Z.)
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "m68k"))]
    {
        h.max_alerts.set(st.settings.max_alerts);
        h.capacity.set(st.settings.capacity);
        let k = &mut h.counters;
        k.leaks.set(st.live_count);
        k.leaked_bytes.set(st.live_bytes);
        k.allocations.set(st.allocations);
        k.frees.set(st.frees);
        k.os_frees.set(st.os_frees);
        k.peak_live_bytes.set(st.peak_bytes);
        k.peak_live_count.set(st.peak_count);
        k.low_free.set(st.low_free);
        k.low_largest_free.set(st.low_max);
    }
}
// copy_counters copies max_alerts and capacity as one long.
static_assertions::const_assert_eq!(
    offset_of!(Settings, capacity),
    offset_of!(Settings, max_alerts) + 2
);
static_assertions::const_assert_eq!(
    offset_of!(Header, capacity),
    offset_of!(Header, max_alerts) + 2
);
// copy_counters' runs: allocations, frees, os_frees; peak bytes, peak count; low free,
// low largest free, adjacent in this order in the state and in the counters.
static_assertions::const_assert_eq!(offset_of!(State, frees), offset_of!(State, allocations) + 4);
static_assertions::const_assert_eq!(
    offset_of!(State, os_frees),
    offset_of!(State, allocations) + 8
);
static_assertions::const_assert_eq!(
    offset_of!(State, peak_count),
    offset_of!(State, peak_bytes) + 4
);
static_assertions::const_assert_eq!(offset_of!(State, low_max), offset_of!(State, low_free) + 4);
static_assertions::const_assert_eq!(
    offset_of!(Counters, frees),
    offset_of!(Counters, allocations) + 4
);
static_assertions::const_assert_eq!(
    offset_of!(Counters, os_frees),
    offset_of!(Counters, allocations) + 8
);
static_assertions::const_assert_eq!(
    offset_of!(Counters, peak_live_count),
    offset_of!(Counters, peak_live_bytes) + 4
);
static_assertions::const_assert_eq!(
    offset_of!(Counters, low_largest_free),
    offset_of!(Counters, low_free) + 4
);

/// The scratch header's counters, addressed by one `lea` from the scratch chunk
/// (LLVM adds the offset in a data register).
#[inline(always)]
fn counters(st: &State) -> &'static Counters {
    // SAFETY: a field of the live scratch chunk, read locally.
    unsafe {
        &*mem::lea::<{ offset_of!(Scratch, header) + offset_of!(Header, counters) }, _>(
            st.scratch.cast::<Counters>(),
        )
    }
}

/// Stops the detector: restores the free traps' original addresses (read back),
/// checks and reports every block still live (each is a leak: alerts up to
/// [`Settings::max_alerts`], a `DbgMessage` line each), writes the small-allocation
/// sites and the final header, removes free slots from MemDbgDB, closes it and frees
/// the state. Call it before PilotMain returns.
///
/// # Errors
/// [`Error::NotRunning`]; [`Error::Busy`] if called from inside the detector.
#[inline(never)]
pub fn stop() -> Result<Summary, Error> {
    let Some(st) = crate::api::enter() else {
        return Err(if state_ptr().is_null() {
            Error::NotRunning
        } else {
            Error::Busy
        });
    };
    patch::remove(st);
    let (leaks, bytes) = track::report_leaks(st);
    if st.has(Options::HEAP_STATS) {
        track::write_sites(st);
    }
    st.unflag(HeaderFlags::RUNNING);
    // SAFETY: TimGetTicks has no arguments.
    let stop_ticks = unsafe { palm::TimGetTicks() };
    write_header(st, stop_ticks);
    let k = counters(st);
    let summary = Summary {
        leaks,
        leaked_bytes: bytes,
        overruns: k.overruns.get(),
        double_frees: k.double_frees.get(),
        flags: HeaderFlags::from_bits_retain(st.flags),
    };
    if st.has(Options::DBG_MESSAGES) {
        let a = st.args();
        // SAFETY: the scratch arguments (ARGS elements).
        unsafe {
            *a = leaks as usize;
            *a.add(1) = bytes as usize;
            *a.add(2) = summary.overruns as usize;
            *a.add(3) = summary.double_frees as usize;
        }
        st.say(b"memdbg: leaks \x01 (\x01 bytes), overruns \x01, double frees \x01\0");
        track::dbg_message(st);
    }
    ledger::finish(st);
    // The index's keys are the second chunk (the first starts with the state).
    let keys = st.index.keys.cast::<u8>();
    // Unregister first, so nothing finds the state while it is freed (the patches
    // are already gone).
    feature(0);
    free_chunks(keys, (st as *mut State).cast());
    Ok(summary)
}
