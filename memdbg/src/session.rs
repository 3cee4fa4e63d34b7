//! [`start`] and [`stop`]: the detector's lifetime (the seed article's Starter.cpp
//! on/off switch).

use core::mem::{offset_of, size_of};

use m68k_palmos_sys as palm;

use crate::index::{self, Index};
use crate::ledger;
use crate::patch;
use crate::record::{
    self, Counters, DB_CREATOR, FEATURE_STATE, FORMAT_VERSION, HEADER_MAGIC, HEADER_SIZE, Header,
    HeaderFlags, NOT_SAMPLED, kind,
};
#[cfg(not(target_arch = "m68k"))]
use crate::record::{AsBytes, U16Be};
use crate::stack::CodeRange;
#[cfg(not(target_arch = "m68k"))]
use crate::state;
use crate::state::{NO_SLOT, Scratch, State};
use crate::track;
use crate::{Error, Settings};

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
/// removes it (`FtrUnregister('MDbg', 0)`). (The 68k's [`start_raw`] and [`stop_raw`]
/// make these calls in assembly.)
#[cfg(not(target_arch = "m68k"))]
fn feature(st: u32) {
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
/// The state chunk's size before the slot table (6 bytes a slot) and the index's
/// slot numbers (2 bytes an entry).
const FIXED_SIZE: usize = ST_SIZE + SC_SIZE + TRAMP_SIZE;

/// A chunk of the dynamic heap owned by the system (owner 0), so the OS does not free
/// it when the app exits (PALM_FACTS §5.5): the detector frees it itself at stop.
#[cfg(not(target_arch = "m68k"))]
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
#[cfg(not(target_arch = "m68k"))]
fn free_chunks(a: *mut u8, b: *mut u8) {
    // SAFETY: chunks from system_chunk, each freed once.
    unsafe {
        palm::MemChunkFree(a.cast());
        palm::MemChunkFree(b.cast());
    }
}

/// Starts the detector (normal launch only; see the crate docs).
///
/// Creates MemDbgDB afresh with a header record (replacing the previous run's ledger, never
/// another app's database of that name), allocates the state, index and slot table
/// (system-owned chunks; sizes in [`Settings::capacity`]), registers the state with
/// `FtrSet('MDbg', 0)`, locates code 1 (`DmGetResource('code', 1)`) and the app's name and
/// creator, and patches `MemChunkFree`/`MemHandleFree` when
/// [`Options::PATCH_FREES`](crate::Options::PATCH_FREES) is set and
/// `MemPtrSize`/`MemHandleSize`/`MemPtrResize`/`MemHandleResize` when
/// [`Options::GUARDS`](crate::Options::GUARDS) is (so that the guard bytes are invisible to
/// the OS and the app); a refusal is recorded, not an error.
///
/// On the 68k the work is `start_raw`, in assembly; this decodes its result.
///
/// # Errors
/// [`Error::AlreadyRunning`], [`Error::BadSettings`] (capacity 0 or above 5461),
/// [`Error::NoMemory`] (dynamic heap), [`Error::Ledger`] (Data Manager; with
/// `dmErrAlreadyExists` when a database named MemDbgDB exists that is not a ledger:
/// another creator or type, or a resource database, which is left untouched). On an
/// error nothing is left behind and the wrappers behave as the plain OS calls.
#[inline(always)]
pub fn start(settings: &Settings) -> Result<(), Error> {
    // SAFETY: `settings` is a live Settings.
    let r = unsafe { start_raw(settings) };
    if r == 0 {
        Ok(())
    } else {
        // SAFETY: a `repr(u16)` enum is laid out as its discriminant word followed by
        // the variant's fields (the Ledger error's word): exactly the two big-endian
        // words of `r`, a discriminant between 1 and 6.
        Err(unsafe { core::mem::transmute::<[u8; 4], Error>(r.to_be_bytes()) })
    }
}
static_assertions::assert_eq_size!(Error, u32);

/// A word branch (`b<cc>.w`, `bsr.w`) to a local label in the assembly below, as its
/// opcode word and displacement (LLVM's inline-asm parser rejects local labels in a
/// branch's operand): for targets out of a short branch's range.
#[cfg(target_arch = "m68k")]
macro_rules! bw {
    (@ $op:literal $l:literal) => {
        concat!(".short ", $op, ", ", $l, "-.")
    };
    (bra $l:literal) => { bw!(@ "0x6000" $l) };
    (bsr $l:literal) => { bw!(@ "0x6100" $l) };
    (bhi $l:literal) => { bw!(@ "0x6200" $l) };
    (bne $l:literal) => { bw!(@ "0x6600" $l) };
    (beq $l:literal) => { bw!(@ "0x6700" $l) };
}

/// [`start`]'s work: 0 when the detector runs, else the error as two words, the
/// `Error`'s discriminant and the Data Manager's error of [`Error::Ledger`] (0x0006_0219
/// for `Ledger(dmErrAlreadyExists)`).
///
/// In 68000 assembly (LLVM spent about 33 bytes on each of its 30 OS calls): the
/// steps and OS calls of the host stand-in, in the same order, with these
/// differences in form only: the chunks are zeroed by a word loop (instead of
/// `memset`); both `DmDatabaseInfo` calls (the old ledger's, the app's) ask for the
/// attributes and type into the frame as well; code 1's range is checked against
/// this function's own address. `tst`, `clr`, `addq`, `subq`, `pea`, `swap` and
/// `dbf` are written as opcode words (named in comments), short branches with `bs!`.
///
/// # Safety
/// `settings` is a valid [`Settings`].
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn start_raw(settings: *const Settings) -> u32 {
    core::arch::naked_asm!(
        // Frame: -16 card, -14 id (SysCurAppDatabase); -10 attributes, -8 type, -4
        // creator (DmDatabaseInfo). 8(a6): settings. D7: the result (a swapped
        // error: the Data Manager's error, then the discriminant).
        "link.w %a6,#-16",
        "movem.l %d2-%d7/%a2-%a4,-(%sp)",
        "jsr ({state_ptr},%pc)",
        "moveq #1,%d7", // AlreadyRunning
        ".short 0x4A80", // tst.l %d0
        bs!(bne "90f"),
        "moveq #4,%d7", // BadSettings
        "move.l (8,%a6),%a3", // the settings (A3 until the scratch)
        "moveq #0,%d3",
        "move.w ({s_cap},%a3),%d3",
        bs!(beq "90f"),
        // Index entries (index::entries_for): the smallest power of two at least
        // cap + ceil(cap / 2) and 16, at most MAX_ENTRIES.
        "move.l %d3,%d0",
        ".short 0x5280", // addq.l #1,%d0
        "lsr.l #1,%d0",
        "add.l %d3,%d0",
        "moveq #16,%d4",
        "1:",
        "cmp.l %d0,%d4",
        bs!(bcc "2f"),
        "add.l %d4,%d4",
        bs!(bra "1b"),
        "2:",
        "cmpi.l #{max_entries},%d4",
        bs!(bhi "90f"),
        // The state chunk: FIXED_SIZE + 6 × cap + 2 × entries; then the keys, 4 ×
        // entries.
        "move.l %d3,%d0",
        "add.l %d0,%d0",
        "add.l %d3,%d0",
        "add.l %d0,%d0",
        "add.l %d4,%d0",
        "add.l %d4,%d0",
        ".short 0x0680", // addi.l #FIXED_SIZE,%d0
        ".long {fixed}",
        "moveq #5,%d7", // NoMemory
        bs!(bsr "50f"),
        bs!(beq "90f"),
        "move.l %a0,%a2",
        "move.l %d4,%d0",
        "add.l %d0,%d0",
        "add.l %d0,%d0",
        bs!(bsr "50f"),
        "move.l %a0,%d5",
        bs!(bne "20f"),
        // No room for the keys: the state chunk freed.
        "move.l %a2,-(%sp)",
        "trap #15",
        ".short {mem_chunk_free}",
        ".short 0x588F", // addq.l #4,%sp
        "90:",
        "move.l %d7,%d0",
        ".short 0x4840", // swap %d0
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "unlk %a6",
        "rts",
        // A zeroed system-owned chunk of D0 bytes (even) in A0 and D0, Z when none:
        // MemPtrNew, MemPtrSetOwner(p, 0), then zeroed a word at a time. The size
        // and the chunk are kept in D6 and A4 (free until the code range and the
        // ledger's name), never read back from the traps' argument slots (a
        // callee may change its arguments).
        "50:",
        "move.l %d0,%d6",
        "move.l %d0,-(%sp)",
        "trap #15",
        ".short {mem_ptr_new}",
        ".short 0x588F", // addq.l #4,%sp
        "move.l %a0,%d0",
        bs!(beq "59f"),
        "move.l %a0,%a4",
        ".short 0x4267", // clr.w -(%sp): owner 0
        "move.l %a0,-(%sp)",
        "trap #15",
        ".short {mem_ptr_set_owner}",
        ".short 0x5C8F", // addq.l #6,%sp
        "move.l %d6,%d1",
        "lsr.l #1,%d1",
        "move.l %a4,%a1",
        "51:",
        ".short 0x4259", // clr.w (%a1)+
        ".short 0x5381", // subq.l #1,%d1
        bs!(bne "51b"),
        "move.l %a4,%a0",
        "move.l %a0,%d0",
        "59:",
        "rts",
        // The fields (the rest of the chunk is zero).
        "20:",
        "move.b #1,(%a2)", // busy
        "move.l (%a3),({opts},%a2)",
        "move.l ({s_thr},%a3),({thr},%a2)",
        "lea ({settings},%a2),%a1",
        "move.l (%a3)+,(%a1)+",
        "move.l (%a3)+,(%a1)+",
        "move.l (%a3),(%a1)",
        "lea ({st_size},%a2),%a3",
        "move.l %a3,({scratch},%a2)",
        "moveq #-1,%d0",
        "move.w %d0,({free_head},%a2)",
        "move.l %d0,%d1",
        "movem.l %d0-%d1,({low_free},%a2)", // low_free, low_max
        "move.b #{version},({rec_version},%a3)",
        "lea ({tramp_at},%a2),%a0",
        "move.l %a0,({trampolines},%a2)",
        // The index and the slot table, five adjacent longs: the keys (D5), the
        // slot numbers (D6: after the table), the mask and the shift (D7), the
        // records (A0: the table), the free-list links (A1: after the records).
        "lea ({fixed},%a2),%a0",
        "add.l %d3,%d3",
        "lea (0,%a0,%d3.l),%a1",
        "adda.l %d3,%a1",
        "move.l %a1,%d6",
        "add.l %d3,%d6",
        "move.w %d4,%d7",
        ".short 0x5347", // subq.w #1,%d7
        ".short 0x4847", // swap %d7 (the low word: 0, from NoMemory's moveq)
        // The shift, 16 - log2(entries), by halving.
        "moveq #17,%d0",
        "3:",
        ".short 0x5340", // subq.w #1,%d0
        "lsr.w #1,%d4",
        bs!(bne "3b"),
        "move.w %d0,%d7",
        "movem.l %d5-%d7/%a0-%a1,({keys},%a2)",
        // Code 1: DmGetResource('code', 1), its master pointer and size; kept only
        // if this function is inside (else an empty range, and the flag).
        "move.w #1,-(%sp)",
        "move.l #{code},-(%sp)",
        "trap #15",
        ".short {dm_get_resource}",
        ".short 0x5C8F", // addq.l #6,%sp
        "moveq #0,%d6", // base
        "moveq #0,%d4", // size
        "move.l %a0,%d0",
        bs!(beq "4f"),
        "move.l (%a0),%d6",
        "move.l %a0,%a4",
        "move.l %a0,-(%sp)",
        "trap #15",
        ".short {mem_handle_size}",
        "move.l %d0,%d4",
        "move.l %a4,(%sp)",
        "trap #15",
        ".short {dm_release_resource}",
        ".short 0x588F", // addq.l #4,%sp
        "4:",
        "lea ({me},%pc),%a0",
        "move.l %a0,%d0",
        "sub.l %d6,%d0",
        "cmp.l %d4,%d0",
        bs!(bcs "5f"),
        "moveq #{unknown},%d0",
        "or.l %d0,({flags},%a2)",
        bs!(bra "6f"),
        // DmFindDatabase(0, name at A4): D0.
        "60:",
        "move.l %a4,-(%sp)",
        ".short 0x4267", // clr.w -(%sp): card 0
        "trap #15",
        ".short {dm_find_database}",
        ".short 0x5C8F", // addq.l #6,%sp
        "rts",
        // DmDatabaseInfo(D3.w card, D0 id, A0 name, attributes into -10(a6), seven
        // NULLs, type into -8(a6), A1 creator): D0.w the error, flags set from it.
        "70:",
        "move.l %a1,-(%sp)",
        ".short 0x486E, -8", // pea (-8,%a6)
        "moveq #6,%d1",
        "71:",
        ".short 0x42A7", // clr.l -(%sp)
        ".short 0x51C9, 71b-.", // dbf %d1,71b
        ".short 0x486E, -10", // pea (-10,%a6)
        "move.l %a0,-(%sp)",
        "move.l %d0,-(%sp)",
        "move.w %d3,-(%sp)",
        "trap #15",
        ".short {dm_database_info}",
        "lea (50,%sp),%sp",
        ".short 0x4A40", // tst.w %d0
        "rts",
        "5:",
        "move.l %d6,({code_base},%a2)",
        "move.l %d6,%a0",
        "move.l %d4,%d1",
        "add.l %d6,%d4",
        "move.l %d4,({code_end},%a2)",
        // Its CRC-32 (record::crc32), two table steps a byte, the index taken as
        // (crc << 2) & 60.
        "lea ({crc_table},%pc),%a1",
        "moveq #-1,%d0",
        "moveq #60,%d3",
        "7:",
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
        ".short 0x5381", // subq.l #1,%d1
        bs!(bne "7b"),
        "not.l %d0",
        "move.l %d0,({h_crc},%a3)",
        "6:",
        // The ledger (ledger::create): an old MemDbgDB is deleted only if it is a
        // record database of our creator and type.
        "lea ({name},%pc),%a4",
        bs!(bsr "60b"),
        "move.l %d0,%d6",
        bs!(beq "8f"),
        "moveq #0,%d3",
        ".short 0x91C8", // suba.l %a0,%a0: no name
        "lea (-4,%a6),%a1",
        bs!(bsr "70b"),
        bs!(bne "81f"),
        "move.w #{exists},%d0",
        "cmpi.l #{creator},(-4,%a6)",
        bs!(bne "81f"),
        "cmpi.l #{kind},(-8,%a6)",
        bs!(bne "81f"),
        "btst #0,(-9,%a6)", // dmHdrAttrResDB
        bs!(bne "81f"),
        "move.l %d6,-(%sp)",
        ".short 0x4267", // clr.w -(%sp): card 0
        "trap #15",
        ".short {dm_delete_database}",
        ".short 0x5C8F", // addq.l #6,%sp
        ".short 0x4A40", // tst.w %d0
        bs!(bne "81f"),
        "8:",
        ".short 0x4267", // clr.w -(%sp): resDB false
        "move.l #{kind},-(%sp)",
        "move.l #{creator},-(%sp)",
        "move.l %a4,-(%sp)",
        ".short 0x4267", // clr.w -(%sp): card 0
        "trap #15",
        ".short {dm_create_database}",
        "lea (16,%sp),%sp",
        ".short 0x4A40", // tst.w %d0
        bs!(bne "81f"),
        bw!(bsr "60b"),
        "move.w #{read_write},-(%sp)",
        "move.l %d0,-(%sp)",
        ".short 0x4267", // clr.w -(%sp): card 0
        "trap #15",
        ".short {dm_open_database}",
        ".short 0x508F", // addq.l #8,%sp
        "move.l %a0,({db},%a2)",
        bs!(bne "9f"),
        "trap #15",
        ".short {dm_get_last_err}",
        // (The errors above branch here: 80 is out of a short branch's range.)
        "81:",
        bw!(bra "80f"),
        "9:",
        ".short 0x4878, {header_size}", // pea (HEADER_SIZE).w
        "move.l %a2,-(%sp)",
        "jsr ({new_record},%pc)",
        ".short 0x508F", // addq.l #8,%sp
        "move.l %a0,({header_rec},%a2)",
        bs!(bne "10f"),
        "move.l ({db},%a2),-(%sp)",
        "trap #15",
        ".short {dm_close_database}",
        ".short 0x588F", // addq.l #4,%sp
        "move.w #{mem_error},%d0",
        bs!(bra "80f"),
        "10:",
        "trap #15",
        ".short {tim_get_ticks}",
        "move.l %d0,({h_start},%a3)",
        // The app's name and creator (left 0 when SysCurAppDatabase fails).
        ".short 0x486E, -14", // pea (-14,%a6): &id
        ".short 0x486E, -16", // pea (-16,%a6): &card
        "trap #15",
        ".short {sys_cur_app_database}",
        ".short 0x508F", // addq.l #8,%sp
        ".short 0x4A40", // tst.w %d0
        bs!(bne "11f"),
        "move.w (-16,%a6),%d3",
        "move.l (-14,%a6),%d0",
        "lea ({h_name},%a3),%a0",
        "lea ({h_creator},%a3),%a1",
        bw!(bsr "70b"),
        "11:",
        "moveq #{running},%d0",
        "or.l %d0,({flags},%a2)",
        "move.l %a2,-(%sp)",
        ".short 0x4267", // clr.w -(%sp): feature 0
        "move.l #{creator},-(%sp)",
        "trap #15",
        ".short {ftr_set}",
        "lea (10,%sp),%sp",
        "move.l %a2,-(%sp)",
        "jsr ({install},%pc)",
        ".short 0x588F", // addq.l #4,%sp
        "moveq #0,%d0", // stop ticks 0
        "jsr ({write_header},%pc)",
        ".short 0x4212", // clr.b (%a2): busy
        "moveq #0,%d7",
        bw!(bra "90b"),
        // A Data Manager error (D0.w): Ledger(error); both chunks freed.
        "80:",
        ".short 0x4840", // swap %d0
        "move.w #6,%d0",
        "move.l %d0,%d7",
        "move.l %d5,-(%sp)",
        "move.l %a2,-(%sp)",
        "trap #15",
        ".short {mem_chunk_free}",
        ".short 0x588F", // addq.l #4,%sp
        "trap #15",
        ".short {mem_chunk_free}",
        ".short 0x588F", // addq.l #4,%sp
        bw!(bra "90b"),
        // The end, for bs!'s range check.
        "98:",
        "99:",
        state_ptr = sym state_ptr,
        me = sym start_raw,
        crc_table = sym record::CRC32_NIBBLES,
        name = sym ledger::LEDGER_NAME,
        new_record = sym ledger::new_record,
        install = sym patch::install,
        write_header = sym write_header,
        s_cap = const offset_of!(Settings, capacity),
        s_thr = const offset_of!(Settings, low_heap_threshold),
        max_entries = const index::MAX_ENTRIES,
        fixed = const FIXED_SIZE,
        st_size = const ST_SIZE,
        tramp_at = const ST_SIZE + SC_SIZE,
        opts = const offset_of!(State, options),
        thr = const offset_of!(State, low_heap_threshold),
        settings = const offset_of!(State, settings),
        scratch = const offset_of!(State, scratch),
        free_head = const offset_of!(State, free_head),
        low_free = const offset_of!(State, low_free),
        version = const FORMAT_VERSION,
        rec_version = const offset_of!(Scratch, rec) + offset_of!(record::AllocRecord, version),
        keys = const offset_of!(State, index) + offset_of!(Index, keys),
        trampolines = const offset_of!(State, trampolines),
        flags = const offset_of!(State, flags),
        code_base = const offset_of!(State, code) + offset_of!(CodeRange, base),
        code_end = const offset_of!(State, code) + offset_of!(CodeRange, end),
        db = const offset_of!(State, db),
        header_rec = const offset_of!(State, header_rec),
        h_crc = const offset_of!(Scratch, header) + offset_of!(Header, code_crc),
        h_start = const offset_of!(Scratch, header) + offset_of!(Header, start_ticks),
        h_name = const offset_of!(Scratch, header) + offset_of!(Header, app_name),
        h_creator = const offset_of!(Scratch, header) + offset_of!(Header, app_creator),
        code = const palm::four_cc(b"code"),
        unknown = const HeaderFlags::CODE_BASE_UNKNOWN.bits(),
        running = const HeaderFlags::RUNNING.bits(),
        creator = const DB_CREATOR,
        kind = const record::DB_TYPE,
        exists = const palm::errors::dmErrAlreadyExists,
        mem_error = const palm::errors::dmErrMemError,
        read_write = const palm::dm::dmModeReadWrite,
        header_size = const HEADER_SIZE,
        dm_get_resource = const palm::traps::sysTrapDmGetResource,
        mem_handle_size = const palm::traps::sysTrapMemHandleSize,
        dm_release_resource = const palm::traps::sysTrapDmReleaseResource,
        dm_delete_database = const palm::traps::sysTrapDmDeleteDatabase,
        dm_create_database = const palm::traps::sysTrapDmCreateDatabase,
        dm_open_database = const palm::traps::sysTrapDmOpenDatabase,
        dm_get_last_err = const palm::traps::sysTrapDmGetLastErr,
        dm_close_database = const palm::traps::sysTrapDmCloseDatabase,
        dm_find_database = const palm::traps::sysTrapDmFindDatabase,
        dm_database_info = const palm::traps::sysTrapDmDatabaseInfo,
        tim_get_ticks = const palm::traps::sysTrapTimGetTicks,
        sys_cur_app_database = const palm::traps::sysTrapSysCurAppDatabase,
        ftr_set = const palm::traps::sysTrapFtrSet,
        mem_chunk_free = const palm::traps::sysTrapMemChunkFree,
        mem_ptr_new = const palm::traps::sysTrapMemPtrNew,
        mem_ptr_set_owner = const palm::traps::sysTrapMemPtrSetOwner,
    )
}

// start_raw's index (index::entries_for, Index::new): 16 entries at least, 8,192 at
// the largest capacity, 5,461, none above; the shift by halving is shift_for's.
static_assertions::const_assert!(matches!(index::entries_for(1), Some(16)));
static_assertions::const_assert!(matches!(index::entries_for(5461), Some(index::MAX_ENTRIES)));
static_assertions::const_assert!(index::entries_for(5462).is_none());
static_assertions::const_assert_eq!(index::shift_for(15), 12);
static_assertions::const_assert_eq!(
    // SAFETY: never used as a table (its shift only).
    unsafe {
        Index::new(
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            index::MAX_ENTRIES - 1,
        )
    }
    .shift,
    3
);
// start_raw's stores of adjacent fields (68k layout): the low-water marks; the index
// (keys, slots, mask, shift) and the slot table (records, links).
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(offset_of!(State, low_max), offset_of!(State, low_free) + 4);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(offset_of!(Index, slots), offset_of!(Index, keys) + 4);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(offset_of!(Index, mask), offset_of!(Index, keys) + 8);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(offset_of!(Index, shift), offset_of!(Index, keys) + 10);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(offset_of!(State, slot_rec), offset_of!(State, index) + 12);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(offset_of!(State, slot_next), offset_of!(State, index) + 16);
#[cfg(target_arch = "m68k")]
static_assertions::const_assert_eq!(offset_of!(Index, keys), 0);
// start_raw's layout assumptions: the settings are copied as three longs; the
// header's creator long is at an even address (DmDatabaseInfo writes it); the
// slot table's and the keys' sizes are even.
static_assertions::const_assert_eq!(size_of::<Settings>(), 12);
static_assertions::const_assert_eq!(offset_of!(Settings, options), 0);
static_assertions::const_assert_eq!(
    (offset_of!(Scratch, header) + offset_of!(Header, app_creator)) % 2,
    0
);
static_assertions::const_assert_eq!(FIXED_SIZE % 2, 0);

/// `e`'s discriminant (the first word of a `repr(u16)` enum).
const fn discriminant(e: &Error) -> u16 {
    // SAFETY: a `repr(u16)` enum starts with its discriminant.
    unsafe { *(e as *const Error).cast::<u16>() }
}
// start_raw's error encoding: the discriminants it loads with moveq.
static_assertions::const_assert_eq!(discriminant(&Error::AlreadyRunning), 1);
static_assertions::const_assert_eq!(discriminant(&Error::BadSettings), 4);
static_assertions::const_assert_eq!(discriminant(&Error::NoMemory), 5);
static_assertions::const_assert_eq!(discriminant(&Error::Ledger(0)), 6);

/// The host stand-in of the 68k's assembly, with its steps and OS calls.
///
/// # Safety
/// `settings` is a valid [`Settings`].
#[cfg(not(target_arch = "m68k"))]
unsafe fn start_raw(settings: *const Settings) -> u32 {
    // SAFETY: the caller's guarantee.
    let settings = unsafe { &*settings };
    let err = |e: Error| {
        u32::from(discriminant(&e)) << 16
            | match e {
                Error::Ledger(x) => u32::from(x),
                _ => 0,
            }
    };
    if !state_ptr().is_null() {
        return err(Error::AlreadyRunning);
    }
    let entries = match index::entries_for(settings.capacity) {
        Some(n) if settings.capacity != 0 => n,
        _ => return err(Error::BadSettings),
    };
    let cap = u32::from(settings.capacity);
    let n = u32::from(entries);
    // Two chunks: the index's keys (up to 32 KB), and everything else: the state,
    // the scratch buffers, the trampolines, the slot table (a record pointer and a
    // free-list link per slot) and the index's slot numbers (under 52 KB at the
    // largest capacity).
    let st_p = system_chunk(FIXED_SIZE as u32 + cap * 6 + n * 2);
    if st_p.is_null() {
        return err(Error::NoMemory);
    }
    let keys = system_chunk(n * 4);
    if keys.is_null() {
        // SAFETY: the chunk just allocated, freed once.
        unsafe { palm::MemChunkFree(st_p.cast()) };
        return err(Error::NoMemory);
    }
    // SAFETY: offsets inside the first chunk, as sized above.
    let (scratch, tramp, table) = unsafe {
        (
            st_p.add(ST_SIZE),
            st_p.add(ST_SIZE + SC_SIZE),
            st_p.add(FIXED_SIZE),
        )
    };
    // SAFETY: a zeroed chunk of State's size is a valid State (all fields are
    // integers, pointers or byte arrays); nobody else knows it yet.
    let st = unsafe { &mut *st_p.cast::<State>() };
    st.busy = 1;
    st.settings = *settings;
    st.options = settings.options.bits();
    st.low_heap_threshold = settings.low_heap_threshold;
    st.scratch = scratch.cast::<Scratch>();
    st.free_head = NO_SLOT;
    st.low_free = NOT_SAMPLED;
    st.low_max = NOT_SAMPLED;
    state::scratch!(st, rec).version = FORMAT_VERSION;
    // SAFETY: `keys` and the slot numbers after the slot table hold `entries`
    // zeroed (empty) elements, a power of two, and live until stop.
    st.index = unsafe { Index::new(keys.cast(), table.add(cap as usize * 6).cast(), entries - 1) };
    st.slot_rec = table.cast();
    // SAFETY: the table chunk has capacity pointers, then capacity u16s.
    st.slot_next = unsafe { table.add(cap as usize * 4) }.cast();
    st.trampolines = tramp;
    locate_code(st);
    if let Err(e) = ledger::create(st) {
        free_chunks(st_p, keys);
        return err(e);
    }
    // SAFETY: TimGetTicks has no arguments.
    let ticks = unsafe { palm::TimGetTicks() };
    state::scratch!(st, header).start_ticks.set(ticks);
    app_identity(st);
    st.flag(HeaderFlags::RUNNING);
    feature(st_p as u32);
    patch::install(st);
    // SAFETY: the live state, its ledger open.
    unsafe { write_header(st, 0) };
    state::leave(st);
    0
}

/// Code 1's address range: `code` 1 of the open resource databases, most recently
/// opened first (`DmGetResource`, DataMgr.h: the running app's, before MemDbgDB is
/// opened), accepted only if one of our own functions is inside it; otherwise frames
/// stay raw ([`HeaderFlags::CODE_BASE_UNKNOWN`]). (`DmGet1Resource` first would find
/// the same resource: it searches only the database `DmGetResource` searches first.)
/// Once found, its CRC-32 goes into the header ([`record::Header::code_crc`]), so the
/// report can refuse an ELF of another build: the only pass over code 1, at start.
#[cfg(not(target_arch = "m68k"))]
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
    if !range.contains(start_raw as *const () as usize as u32) {
        st.flag(HeaderFlags::CODE_BASE_UNKNOWN);
        return;
    }
    st.code = range;
    // SAFETY: code 1 stays locked by the OS while the app runs (it is executing), in
    // the storage heap, which does not move; these are its bytes, at least one (this
    // function is inside).
    let crc = record::crc32(unsafe {
        core::slice::from_raw_parts(base as usize as *const u8, size as usize)
    });
    state::scratch!(st, header).code_crc.set(crc);
}

/// The app's database name and creator into the header scratch: `DmDatabaseInfo`
/// writes both in place (the creator is a big-endian `UInt32` there, as on the
/// 68k; the chunk was zeroed, so both stay 0 when the app's database is unknown).
#[cfg(not(target_arch = "m68k"))]
fn app_identity(st: &mut State) {
    let mut card = 0u16;
    let mut id = 0u32;
    // SAFETY: outputs are locals.
    if unsafe { palm::SysCurAppDatabase(&mut card, &mut id) } == palm::errNone {
        let h = state::scratch!(st, header);
        // Outputs: the header's 32-byte name (dmDBNameLength = 32) and creator.
        ledger::db_info(
            u32::from(card),
            id,
            h.app_name.as_mut_ptr(),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
            h.app_creator.0.as_mut_ptr().cast(),
        );
    }
}

/// [`write_header`]'s runs of longs copied from the state into the header, in the
/// same order in both (`U32Be` is the 68k's own byte order), as (state offset,
/// header offset, longs) bytes, ended by a 0: the flags; the settings (options,
/// alert limit and capacity, threshold: the state's options and threshold are
/// these, never changed); code 1's base and end (the end becomes the size); the
/// live count and bytes (the leaks); the allocation, free and OS-free counts; the
/// peaks; the low-water marks.
#[cfg(target_arch = "m68k")]
static HEADER_RUNS: [u8; 25] = {
    const K: usize = offset_of!(Header, counters);
    let runs: [(usize, usize, usize); 8] = [
        (offset_of!(State, flags), offset_of!(Header, flags), 1),
        (offset_of!(State, settings), offset_of!(Header, options), 3),
        (offset_of!(State, code), offset_of!(Header, code_base), 2),
        (
            offset_of!(State, live_count),
            K + offset_of!(Counters, leaks),
            1,
        ),
        (
            offset_of!(State, live_bytes),
            K + offset_of!(Counters, leaked_bytes),
            1,
        ),
        (
            offset_of!(State, allocations),
            K + offset_of!(Counters, allocations),
            3,
        ),
        (
            offset_of!(State, peak_bytes),
            K + offset_of!(Counters, peak_live_bytes),
            2,
        ),
        (
            offset_of!(State, low_free),
            K + offset_of!(Counters, low_free),
            2,
        ),
    ];
    let mut t = [0u8; 25];
    let mut i = 0;
    while i < runs.len() {
        let (from, to, n) = runs[i];
        // Byte offsets whose runs end below 256 (the loop adds to them as bytes of a
        // word), a nonzero state offset (0 ends the table), even offsets.
        assert!(from != 0 && from + 4 * n < 256 && to + 4 * n < 256);
        assert!(from % 2 == 0 && to % 2 == 0 && n > 0);
        t[3 * i] = from as u8;
        t[3 * i + 1] = to as u8;
        t[3 * i + 2] = n as u8;
        i += 1;
    }
    t
};

/// Fills the header's fields that are not kept in it all along (the app identity and
/// the start ticks are set at start, the rarer counters are counted in place) from
/// the state, and writes the header to record 0 (`DmWrite`).
///
/// On the 68k in assembly, addressed from the header itself: the runs of longs in
/// [`HEADER_RUNS`] copied by one loop, then code 1's end made its size. A register
/// routine for `start_raw` and `stop_raw`: A2 the live state (kept), its ledger
/// open, D0 the stop ticks; changes D0–D2/A0–A1. `subq`, `addq` and `tst` are
/// written as opcode words (named in comments), short branches with `bs!`.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn write_header() {
    core::arch::naked_asm!(
        "move.l ({scratch},%a2),%a1",
        "lea ({header},%a1),%a1",
        "move.l %d0,({h_stop},%a1)",
        "move.l #{head},(%a1)",
        "move.l #{magic},({h_magic},%a1)",
        // The runs: d0 = the state's offset, d1 = the header's, d2 = longs left.
        "lea ({runs},%pc),%a0",
        "moveq #0,%d0",
        "moveq #0,%d1",
        "1:",
        "move.b (%a0)+,%d0",
        "move.b (%a0)+,%d1",
        "move.b (%a0)+,%d2",
        "2:",
        "move.l (0,%a2,%d0.w),(0,%a1,%d1.w)",
        ".short 0x5840", // addq.w #4,%d0
        ".short 0x5841", // addq.w #4,%d1
        ".short 0x5302", // subq.b #1,%d2
        bs!(bne "2b"),
        ".short 0x4A10", // tst.b (%a0): the end
        bs!(bne "1b"),
        // Code 1's size: end - base.
        "move.l ({h_base},%a1),%d0",
        "sub.l %d0,({h_size},%a1)",
        // DmWrite(header_rec, 0, header, HEADER_SIZE).
        ".short 0x4878, {len}", // pea (len).w
        "move.l %a1,-(%sp)",
        ".short 0x42A7", // clr.l -(%sp): offset 0
        "move.l ({header_rec},%a2),-(%sp)",
        "trap #15",
        ".short {dm_write}",
        "lea (16,%sp),%sp",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        runs = sym HEADER_RUNS,
        scratch = const offset_of!(State, scratch),
        header = const offset_of!(Scratch, header),
        head = const (kind::HEADER as u32) << 24 | (FORMAT_VERSION as u32) << 16 | HEADER_SIZE as u32,
        magic = const HEADER_MAGIC,
        h_magic = const offset_of!(Header, magic),
        h_base = const offset_of!(Header, code_base),
        h_size = const offset_of!(Header, code_size),
        h_stop = const offset_of!(Header, stop_ticks),
        len = const HEADER_SIZE,
        header_rec = const offset_of!(State, header_rec),
        dm_write = const palm::traps::sysTrapDmWrite,
    )
}

/// The host stand-in of the 68k's assembly.
///
/// # Safety
/// `st` is the live state, its ledger open.
#[cfg(not(target_arch = "m68k"))]
unsafe fn write_header(st: *const State, stop_ticks: u32) {
    // SAFETY: the caller's guarantee.
    let st = unsafe { &*st };
    let h = state::scratch!(st, header);
    h.kind = kind::HEADER;
    h.version = FORMAT_VERSION;
    h.header_size = U16Be::new(HEADER_SIZE as u16);
    h.magic.set(HEADER_MAGIC);
    h.flags.set(st.flags);
    h.options.set(st.settings.options.bits());
    h.low_heap_threshold.set(st.settings.low_heap_threshold);
    h.code_base.set(st.code.base);
    h.code_size.set(st.code.end.wrapping_sub(st.code.base));
    h.stop_ticks.set(stop_ticks);
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
    ledger::write(st.header_rec, 0, h.as_bytes());
}
// write_header writes kind, version and header size as one long.
static_assertions::const_assert_eq!(offset_of!(Header, kind), 0);
static_assertions::const_assert_eq!(offset_of!(Header, version), 1);
static_assertions::const_assert_eq!(offset_of!(Header, header_size), 2);
// write_header pushes the length as a sign-extended word.
static_assertions::const_assert!(HEADER_SIZE < 0x8000);
// write_header copies the settings as three longs (options; max_alerts and capacity;
// the threshold), in the header's order, and code 1's base and end as two (the end
// then becomes the size).
static_assertions::const_assert_eq!(offset_of!(Settings, max_alerts), 4);
static_assertions::const_assert_eq!(offset_of!(Settings, capacity), 6);
static_assertions::const_assert_eq!(offset_of!(Settings, low_heap_threshold), 8);
static_assertions::const_assert_eq!(
    offset_of!(Header, max_alerts),
    offset_of!(Header, options) + 4
);
static_assertions::const_assert_eq!(
    offset_of!(Header, capacity),
    offset_of!(Header, options) + 6
);
static_assertions::const_assert_eq!(
    offset_of!(Header, low_heap_threshold),
    offset_of!(Header, options) + 8
);
static_assertions::const_assert_eq!(offset_of!(CodeRange, end), offset_of!(CodeRange, base) + 4);
static_assertions::const_assert_eq!(offset_of!(CodeRange, base), 0);
static_assertions::const_assert_eq!(
    offset_of!(Header, code_size),
    offset_of!(Header, code_base) + 4
);
// write_header's runs: allocations, frees, os_frees; peak bytes, peak count; low free,
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

/// Stops the detector: restores the free traps' original addresses (read back),
/// checks and reports every block still live (each is a leak: alerts up to
/// [`Settings::max_alerts`], a `DbgMessage` line each), writes the small-allocation
/// sites and the final header, removes free slots from MemDbgDB, closes it and frees
/// the state. Call it before PilotMain returns.
///
/// The work is `stop_raw` (in assembly on the 68k); this decodes its result (as
/// [`start`] does: inlined, so a caller that ignores the result has no decoding).
///
/// # Errors
/// [`Error::NotRunning`]; [`Error::Busy`] if called from inside the detector.
#[inline(always)]
pub fn stop() -> Result<Summary, Error> {
    let mut summary = core::mem::MaybeUninit::<Summary>::uninit();
    // SAFETY: `summary` is writable.
    let r = unsafe { stop_raw(summary.as_mut_ptr()) };
    if r == 0 {
        // SAFETY: stop_raw wrote every field when it returned 0.
        Ok(unsafe { summary.assume_init() })
    } else if r == u32::from(discriminant(&Error::NotRunning)) {
        Err(Error::NotRunning)
    } else {
        Err(Error::Busy)
    }
}

/// The summary line of [`stop`] (the leaks, their bytes, overruns, double frees).
static SUMMARY_LINE: [u8; 54] =
    *b"memdbg: leaks \x01 (\x01 bytes), overruns \x01, double frees \x01\0";

/// [`stop`]'s work: 0 when the detector stopped (`out` written), else the error's
/// discriminant (2 for [`Error::NotRunning`], 3 for [`Error::Busy`]).
///
/// Enters the state (its feature; `busy`), removes the patches
/// ([`patch::remove`]), reports the leaks and writes the small-allocation sites
/// ([`track::report_leaks`], which also unlocks every slot's record); clears
/// [`HeaderFlags::RUNNING`], writes the final header (stop ticks from
/// `TimGetTicks`), fills `out` (the leaks and their bytes from the report, the
/// header's overrun and double-free counts, the flags) and says it in a
/// `DbgMessage` with [`Options::DBG_MESSAGES`](crate::Options::DBG_MESSAGES); then
/// unlocks the header record, removes the free slots from the last record
/// backwards (so no removal shifts a record still to be looked at) and closes the
/// ledger; unregisters the feature (so nothing finds the state while it is freed;
/// the patches are already gone) and frees the keys' chunk, then the state's.
///
/// On the 68k in assembly (LLVM's code was twice as long); `tst`, `st`, `addq`,
/// `subq` and `clr` are written as opcode words (named in comments), short
/// branches with `bs!`, word ones with `bw!`.
///
/// # Safety
/// `out` is writable.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
unsafe extern "C" fn stop_raw(out: *mut Summary) -> u32 {
    core::arch::naked_asm!(
        // Stack after this: saved regs (36), ret@36, out@40. A2: the state;
        // D3–D7: the summary (leaks, bytes, overruns, double frees, flags).
        "movem.l %d2-%d7/%a2-%a4,-(%sp)",
        "jsr ({state_ptr},%pc)",
        "move.l %a0,%a2",
        "moveq #{not_running},%d0",
        "move.l %a0,%d1",
        bw!(beq "90f"),
        "moveq #{busy},%d0",
        ".short 0x4A10", // tst.b (%a0): busy
        bw!(bne "90f"),
        ".short 0x50D0", // st (%a0): busy
        "move.l %a2,-(%sp)",
        "jsr ({remove},%pc)",
        ".short 0x588F", // addq.l #4,%sp
        "bsr.w {report_leaks}",
        // The final header.
        "moveq #{not_running_flag},%d0",
        "and.l %d0,({flags},%a2)",
        "trap #15",
        ".short {tim_get_ticks}",
        "jsr ({write_header},%pc)",
        // The summary, and its line from its first four.
        "move.l ({scratch},%a2),%a3",
        "move.l ({k_overruns},%a3),%d5",
        "move.l ({k_doubles},%a3),%d6",
        "move.l ({flags},%a2),%d7",
        "move.l (40,%sp),%a0",
        "movem.l %d3-%d7,(%a0)",
        "movem.l %d3-%d6,({args},%a3)",
        "lea ({line},%pc),%a0",
        "bsr.w {dbg_message}",
        // The header record unlocked (the slots' are).
        "move.l ({header_rec},%a2),-(%sp)",
        "trap #15",
        ".short {mem_ptr_unlock}",
        ".short 0x588F", // addq.l #4,%sp
        // The free slots removed, from the last record down to record 1.
        "move.l ({db},%a2),%d4",
        "move.l %d4,-(%sp)",
        "trap #15",
        ".short {dm_num_records}",
        ".short 0x588F", // addq.l #4,%sp
        "move.w %d0,%d3",
        "4:",
        ".short 0x5343", // subq.w #1,%d3
        bs!(bls "6f"),
        "move.w %d3,-(%sp)",
        "move.l %d4,-(%sp)",
        "trap #15",
        ".short {dm_query_record}",
        ".short 0x5C8F", // addq.l #6,%sp
        "move.l %a0,%d0",
        bs!(beq "4b"),
        // The kind byte through the master pointer (nothing moves chunks between
        // the query and this read).
        "move.l (%a0),%a0",
        ".short 0x4A10", // tst.b (%a0): FREE_SLOT
        bs!(bne "4b"),
        "move.w %d3,-(%sp)",
        "move.l %d4,-(%sp)",
        "trap #15",
        ".short {dm_remove_record}",
        ".short 0x5C8F", // addq.l #6,%sp
        bs!(bra "4b"),
        "6:",
        "move.l %d4,-(%sp)",
        "trap #15",
        ".short {dm_close_database}",
        ".short 0x588F", // addq.l #4,%sp
        ".short 0x4267", // clr.w -(%sp): feature 0
        "move.l #{creator},-(%sp)",
        "trap #15",
        ".short {ftr_unregister}",
        ".short 0x5C8F", // addq.l #6,%sp
        "move.l %a2,-(%sp)",
        "move.l ({keys},%a2),-(%sp)",
        "trap #15",
        ".short {mem_chunk_free}",
        ".short 0x588F", // addq.l #4,%sp
        "trap #15",
        ".short {mem_chunk_free}",
        ".short 0x588F", // addq.l #4,%sp
        "moveq #0,%d0",
        "90:",
        "movem.l (%sp)+,%d2-%d7/%a2-%a4",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        state_ptr = sym state_ptr,
        remove = sym patch::remove,
        report_leaks = sym track::report_leaks,
        write_header = sym write_header,
        dbg_message = sym track::dbg_message,
        line = sym SUMMARY_LINE,
        not_running = const discriminant(&Error::NotRunning),
        busy = const discriminant(&Error::Busy),
        not_running_flag = const !HeaderFlags::RUNNING.bits() as i32,
        flags = const offset_of!(State, flags),
        scratch = const offset_of!(State, scratch),
        k_overruns = const offset_of!(Scratch, header) + offset_of!(Header, counters) + offset_of!(Counters, overruns),
        k_doubles = const offset_of!(Scratch, header) + offset_of!(Header, counters) + offset_of!(Counters, double_frees),
        args = const offset_of!(Scratch, args),
        header_rec = const offset_of!(State, header_rec),
        db = const offset_of!(State, db),
        keys = const offset_of!(State, index) + offset_of!(Index, keys),
        creator = const DB_CREATOR,
        tim_get_ticks = const palm::traps::sysTrapTimGetTicks,
        mem_ptr_unlock = const palm::traps::sysTrapMemPtrUnlock,
        dm_num_records = const palm::traps::sysTrapDmNumRecords,
        dm_query_record = const palm::traps::sysTrapDmQueryRecord,
        dm_remove_record = const palm::traps::sysTrapDmRemoveRecord,
        dm_close_database = const palm::traps::sysTrapDmCloseDatabase,
        ftr_unregister = const palm::traps::sysTrapFtrUnregister,
        mem_chunk_free = const palm::traps::sysTrapMemChunkFree,
    )
}
// stop_raw fills the summary as five longs in this order (and the message
// arguments from its first four), and tests the kind byte for a free slot; its
// error discriminants fit `moveq` (0 is no error).
static_assertions::const_assert_eq!(offset_of!(Summary, leaks), 0);
static_assertions::const_assert_eq!(offset_of!(Summary, leaked_bytes), 4);
static_assertions::const_assert_eq!(offset_of!(Summary, overruns), 8);
static_assertions::const_assert_eq!(offset_of!(Summary, double_frees), 12);
static_assertions::const_assert_eq!(offset_of!(Summary, flags), 16);
static_assertions::const_assert_eq!(size_of::<Summary>(), 20);
static_assertions::const_assert_eq!(kind::FREE_SLOT, 0);
static_assertions::const_assert_eq!(record::AllocRecord::KIND_OFFSET, 0);
static_assertions::const_assert_eq!(discriminant(&Error::NotRunning), 2);
static_assertions::const_assert_eq!(discriminant(&Error::Busy), 3);
// stop_raw tests and sets `busy` as `(%a0)`.
static_assertions::const_assert_eq!(offset_of!(State, busy), 0);

/// The host stand-in of the 68k's assembly.
///
/// # Safety
/// `out` is writable.
#[cfg(not(target_arch = "m68k"))]
unsafe fn stop_raw(out: *mut Summary) -> u32 {
    let Some(st) = state::enter() else {
        let e = if state_ptr().is_null() {
            Error::NotRunning
        } else {
            Error::Busy
        };
        return u32::from(discriminant(&e));
    };
    patch::remove(st);
    let (leaks, bytes) = track::report_leaks(st);
    st.unflag(HeaderFlags::RUNNING);
    // SAFETY: TimGetTicks has no arguments; the state is live.
    unsafe { write_header(st, palm::TimGetTicks()) };
    let k = &state::scratch!(st, header).counters;
    let summary = Summary {
        leaks,
        leaked_bytes: bytes,
        overruns: k.overruns.get(),
        double_frees: k.double_frees.get(),
        flags: HeaderFlags::from_bits_retain(st.flags),
    };
    // SAFETY: the caller's guarantee.
    unsafe { out.write(summary) };
    let a = st.args();
    // SAFETY: the scratch arguments (ARGS elements).
    unsafe {
        *a = leaks as usize;
        *a.add(1) = bytes as usize;
        *a.add(2) = summary.overruns as usize;
        *a.add(3) = summary.double_frees as usize;
    }
    track::dbg_message(st, &SUMMARY_LINE);
    ledger::finish(st);
    // The index's keys are the second chunk (the first starts with the state).
    let keys = st.index.keys.cast::<u8>();
    // Unregister first, so nothing finds the state while it is freed (the patches
    // are already gone).
    feature(0);
    free_chunks(keys, (st as *mut State).cast());
    0
}
