//! The MemDbgDB database: created by `start`, written record by record while the app
//! runs (so it survives a crash or a soft reset), cleaned up by `stop`.
//!
//! Records live in the storage heap, which is write-protected: they are written only
//! through `DmWrite`/`DmSet` (PALM_FACTS §5.4). Each allocation slot's record is
//! created once, locked, released (not busy) and kept locked until `stop`, so a
//! tracked allocation costs one `DmWrite` and a free one `DmSet`; record indices are
//! never needed while running (removing a record would shift later indices). `stop`
//! unlocks everything and removes the free slots from the end backwards.

use core::ffi::c_void;
#[cfg(not(target_arch = "m68k"))]
use core::mem::MaybeUninit;

use m68k_palmos_sys as palm;
use palm::dm::dmMaxRecordIndex;
#[cfg(not(target_arch = "m68k"))]
use palm::dm::dmModeReadWrite;

#[cfg(not(target_arch = "m68k"))]
use crate::Error;
use crate::record::{self, DB_NAME_C};
#[cfg(not(target_arch = "m68k"))]
use crate::record::{DB_CREATOR, DB_TYPE, HEADER_SIZE};
use crate::state::State;

/// (Re)creates MemDbgDB, opens it and adds the header record (record 0, locked).
/// An existing MemDbgDB is deleted only if it is a ledger: a record database of
/// creator [`DB_CREATOR`] and type [`DB_TYPE`]. A database of that name with another
/// creator or type, or a resource database, belongs to someone else and is left
/// alone.
///
/// # Errors
/// [`Error::Ledger`] with the Data Manager's error when the database cannot be
/// deleted, created or opened, or the header record cannot be added;
/// `Error::Ledger(dmErrAlreadyExists)` when a MemDbgDB that is not a ledger exists
/// (the error `DmCreateDatabase` gives for a name in use).
///
/// The host stand-in of these steps of the 68k's assembly (`session::start_raw`).
#[cfg(not(target_arch = "m68k"))]
pub fn create(st: &mut State) -> Result<(), Error> {
    // SAFETY: plain Data Manager calls with a NUL-terminated constant name.
    unsafe {
        let old = find_db();
        if old != 0 {
            if !is_ledger(old)? {
                return Err(Error::Ledger(palm::errors::dmErrAlreadyExists));
            }
            let err = palm::DmDeleteDatabase(0, old);
            if err != palm::errNone {
                return Err(Error::Ledger(err));
            }
        }
        let err = create_db();
        if err != palm::errNone {
            return Err(Error::Ledger(err));
        }
        let id = find_db();
        let db = palm::DmOpenDatabase(0, id, dmModeReadWrite);
        if db.is_null() {
            return Err(Error::Ledger(palm::DmGetLastErr()));
        }
        st.db = db;
    }
    // SAFETY: the database was opened above.
    let h = unsafe { new_record(st, HEADER_SIZE as u32) };
    if h.is_null() {
        // `start` frees the state next: `st.db` is not read again.
        // SAFETY: the database was opened above.
        unsafe {
            palm::DmCloseDatabase(st.db);
        }
        return Err(Error::Ledger(palm::errors::dmErrMemError));
    }
    st.header_rec = h;
    Ok(())
}

/// `DmCreateDatabase(0, "MemDbgDB", DB_CREATOR, DB_TYPE, false)`.
#[cfg(not(target_arch = "m68k"))]
fn create_db() -> palm::Err {
    // SAFETY: a NUL-terminated constant name.
    unsafe { palm::DmCreateDatabase(0, DB_NAME_C.as_ptr(), DB_CREATOR, DB_TYPE, 0) }
}

/// `DmFindDatabase(0, "MemDbgDB")`: the ledger's `LocalID`, 0 if none.
#[cfg(not(target_arch = "m68k"))]
fn find_db() -> palm::LocalID {
    // SAFETY: a NUL-terminated constant name.
    unsafe { palm::DmFindDatabase(0, DB_NAME_C.as_ptr()) }
}

/// [`DB_NAME_C`] as a static (the 68k's assembly reaches it PC-relative).
#[cfg(target_arch = "m68k")]
pub(crate) static LEDGER_NAME: [u8; DB_NAME_C.count_bytes() + 1] = {
    let mut a = [0u8; DB_NAME_C.count_bytes() + 1];
    let b = DB_NAME_C.to_bytes();
    let mut i = 0;
    while i < b.len() {
        a[i] = b[i];
        i += 1;
    }
    a
};

/// Whether database `id` (card 0) is a MemDbgDB ledger: a record database with our
/// creator and type.
///
/// # Errors
/// [`Error::Ledger`] with `DmDatabaseInfo`'s error.
#[cfg(not(target_arch = "m68k"))]
fn is_ledger(id: palm::LocalID) -> Result<bool, Error> {
    // Written by DmDatabaseInfo when it succeeds (and read only then): no stores
    // to initialise them.
    let mut attributes = MaybeUninit::<u16>::uninit();
    let mut kind = MaybeUninit::<u32>::uninit();
    let mut creator = MaybeUninit::<u32>::uninit();
    let err = db_info(
        0,
        id,
        core::ptr::null_mut(),
        attributes.as_mut_ptr(),
        kind.as_mut_ptr(),
        creator.as_mut_ptr(),
    );
    if err != palm::errNone {
        return Err(Error::Ledger(err));
    }
    // SAFETY: DmDatabaseInfo returned errNone: it wrote all three.
    let (attributes, kind, creator) = unsafe {
        (
            attributes.assume_init(),
            kind.assume_init(),
            creator.assume_init(),
        )
    };
    Ok(creator == DB_CREATOR && kind == DB_TYPE && attributes & palm::dm::dmHdrAttrResDB == 0)
}

/// `DmDatabaseInfo` (DataMgr.h) asking for the name, attributes, type and creator
/// only; a NULL output is not written. `card` is the card number, below 65,536.
#[cfg(not(target_arch = "m68k"))]
pub fn db_info(
    card: u32,
    id: palm::LocalID,
    name: *mut u8,
    attributes: *mut u16,
    kind: *mut u32,
    creator: *mut u32,
) -> palm::Err {
    let n: *mut u32 = core::ptr::null_mut();
    // SAFETY: the outputs are valid for writing or NULL (the caller's).
    unsafe {
        palm::DmDatabaseInfo(
            card as u16,
            id,
            name.cast(),
            attributes,
            n.cast(),
            n,
            n,
            n,
            n,
            n,
            n,
            kind,
            creator,
        )
    }
}

/// Appends a record of `size` bytes to the ledger of `st` and returns it locked and
/// not busy (`DmNewRecord` at `dmMaxRecordIndex`, `MemHandleLock`,
/// `DmReleaseRecord(db, index, true)`), or null (in A0 and D0) when the storage heap
/// has no room.
///
/// On the 68k in assembly: the release's arguments are built on the stack first,
/// under `DmNewRecord`'s, which writes the index into them. `addq` and `subq` are
/// written as opcode words (named in comments), the short branch with `bs!`.
///
/// # Safety
/// `st` is the live state, its ledger open for writing.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub unsafe extern "C" fn new_record(st: *mut State, size: u32) -> *mut u8 {
    core::arch::naked_asm!(
        // Stack after this: D2, A2 (8), ret@8, st@12, size@16 (D2 saved: the traps
        // may clobber it, PALM_FACTS §6).
        "movem.l %d2/%a2,-(%sp)",
        "move.l (12,%sp),%a0",
        // DmReleaseRecord's index (dmMaxRecordIndex until DmNewRecord's) and dirty
        // (true in the first byte), as one long.
        "move.l #{at_dirty},-(%sp)",
        "move.l ({db},%a0),-(%sp)",
        // DmNewRecord(db, &index, size).
        "move.l (24,%sp),-(%sp)",
        ".short 0x486F, 8", // pea (8,%sp): &index
        "move.l (8,%sp),-(%sp)",
        "trap #15",
        ".short {dm_new_record}",
        "lea (12,%sp),%sp",
        "move.l %a0,%d0",
        bs!(beq "1f"),
        "move.l %a0,-(%sp)",
        "trap #15",
        ".short {mem_handle_lock}",
        "move.l %a0,%a2",
        ".short 0x588F", // addq.l #4,%sp
        "trap #15",
        ".short {dm_release_record}",
        "move.l %a2,%d0",
        "1:",
        ".short 0x508F", // addq.l #8,%sp
        "move.l %d0,%a0",
        "movem.l (%sp)+,%d2/%a2",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        at_dirty = const (dmMaxRecordIndex as u32) << 16 | 0x0100,
        db = const core::mem::offset_of!(State, db),
        dm_new_record = const palm::traps::sysTrapDmNewRecord,
        mem_handle_lock = const palm::traps::sysTrapMemHandleLock,
        dm_release_record = const palm::traps::sysTrapDmReleaseRecord,
    )
}

/// The host stand-in of the 68k's assembly.
///
/// # Safety
/// `st` is the live state, its ledger open for writing.
#[cfg(not(target_arch = "m68k"))]
pub unsafe fn new_record(st: *mut State, size: u32) -> *mut u8 {
    let mut at: u16 = dmMaxRecordIndex;
    // SAFETY: the caller's guarantee; DmNewRecord stores the new index in `at`.
    unsafe {
        let db = (*st).db;
        let h = palm::DmNewRecord(db, &mut at, size);
        if h.is_null() {
            return core::ptr::null_mut();
        }
        let p = palm::MemHandleLock(h).cast::<u8>();
        palm::DmReleaseRecord(db, at, 1);
        p
    }
}

/// Writes `bytes` at `offset` of a locked record.
#[inline]
#[cfg_attr(target_arch = "m68k", allow(dead_code))]
pub fn write(rec: *mut u8, offset: u32, bytes: &[u8]) {
    // SAFETY: `rec` is a locked record of MemDbgDB at least offset + len bytes long
    // (callers write records of their own size).
    unsafe {
        palm::DmWrite(
            rec.cast::<c_void>(),
            offset,
            bytes.as_ptr().cast::<c_void>(),
            bytes.len() as u32,
        );
    }
}

/// Appends an event record: `head_len` bytes at `head` (its own fields) followed by
/// its allocation record, copied there from `alloc` (a ledger record, a scratch
/// record, or the place itself) with kind byte `kind`, written with one `DmWrite`;
/// then unlocks it. On a full storage heap the event is lost and the ledger is
/// marked incomplete.
///
/// On the 68k a register routine in assembly: A2 the state (kept), A0 `head`, D0 `head_len`
/// (a long: the routine adds it as one), A1 `alloc`, D1.b `kind`; changes D0–D2/A0–A1.
/// `addq`, `clr` and `dbf` are written as opcode words (named in comments), short branches
/// with `bs!`.
#[cfg(target_arch = "m68k")]
#[unsafe(naked)]
pub(crate) unsafe extern "C" fn event() {
    core::arch::naked_asm!(
        // a3 = head (saved), d2 = the record's length (kept by new_record).
        "move.l %a3,-(%sp)",
        "move.l %a0,%a3",
        "moveq #{alloc_len},%d2",
        "add.l %d0,%d2",
        ".short 0xD0C0", // adda.w %d0,%a0
        "moveq #{alloc_words},%d0",
        "1:",
        "move.w (%a1)+,(%a0)+",
        ".short 0x51C8, 1b-.", // dbf %d0,1b
        "move.b %d1,(-{alloc_len},%a0)",
        // new_record(st, length)
        "move.l %d2,-(%sp)",
        "move.l %a2,-(%sp)",
        "jsr ({new_record},%pc)",
        ".short 0x508F", // addq.l #8,%sp
        "move.l %a0,%d0",
        bs!(beq "2f"),
        // MemPtrUnlock's argument, then DmWrite(rec, 0, head, length).
        "move.l %a0,-(%sp)",
        "move.l %d2,-(%sp)",
        "move.l %a3,-(%sp)",
        ".short 0x42A7", // clr.l -(%sp)
        "move.l %a0,-(%sp)",
        "trap #15",
        ".short {dm_write}",
        "lea (16,%sp),%sp",
        "trap #15",
        ".short {mem_ptr_unlock}",
        ".short 0x588F", // addq.l #4,%sp
        bs!(bra "3f"),
        "2:",
        "moveq #{incomplete},%d0",
        "or.l %d0,({flags},%a2)",
        "3:",
        "move.l (%sp)+,%a3",
        "rts",
        // The end, for bs!'s range check.
        "98:",
        "99:",
        new_record = sym new_record,
        alloc_len = const record::ALLOC_RECORD_SIZE,
        alloc_words = const record::ALLOC_RECORD_SIZE / 2 - 1,
        incomplete = const record::HeaderFlags::INCOMPLETE.bits(),
        flags = const core::mem::offset_of!(State, flags),
        dm_write = const palm::traps::sysTrapDmWrite,
        mem_ptr_unlock = const palm::traps::sysTrapMemPtrUnlock,
    )
}
// event: the allocation record copied by words, its length and the flag fit `moveq`.
#[cfg(target_arch = "m68k")]
static_assertions::const_assert!(
    record::ALLOC_RECORD_SIZE % 2 == 0
        && record::ALLOC_RECORD_SIZE < 128
        && record::HeaderFlags::INCOMPLETE.bits() < 128
);

/// The host's [`event`] (the 68k's is assembly, doing exactly this).
#[cfg(not(target_arch = "m68k"))]
pub(crate) fn event(st: &mut State, head: *mut u8, head_len: u32, alloc: *const u8, kind: u8) {
    let len = head_len + record::ALLOC_RECORD_SIZE as u32;
    // SAFETY: `head` is an event record of `len` bytes with its allocation record
    // at `head_len`; `alloc` is readable for its length (possibly that place:
    // copy allows overlap).
    unsafe {
        let to = head.add(head_len as usize);
        core::ptr::copy(alloc, to, record::ALLOC_RECORD_SIZE);
        *to = kind;
    }
    // SAFETY: the live state, its ledger open.
    let rec = unsafe { new_record(st, len) };
    if rec.is_null() {
        st.flag(record::HeaderFlags::INCOMPLETE);
        return;
    }
    // SAFETY: `rec` is a locked record of `len` bytes; `head` is readable for them.
    unsafe {
        palm::DmWrite(rec.cast::<c_void>(), 0, head.cast(), len);
        palm::MemPtrUnlock(rec.cast());
    }
}

/// Marks a slot's record free (its kind byte).
#[inline]
#[cfg_attr(target_arch = "m68k", allow(dead_code))]
pub fn mark_free(rec: *mut u8) {
    // SAFETY: `rec` is a locked allocation record.
    unsafe {
        palm::DmSet(
            rec.cast::<c_void>(),
            record::AllocRecord::KIND_OFFSET as u32,
            1,
            record::kind::FREE_SLOT,
        );
    }
}

/// Unlocks the header record (the slots' records are unlocked by the leak report,
/// `track::report_leaks`), removes the free slots (from the last record backwards,
/// so no removal shifts a record still to be looked at) and closes the database.
/// The host stand-in of these steps of the 68k's assembly (`session::stop_raw`).
#[cfg(not(target_arch = "m68k"))]
pub fn finish(st: &mut State) {
    // SAFETY: the header record was locked once; the database is open.
    unsafe {
        palm::MemPtrUnlock(st.header_rec.cast());
        let mut i = palm::DmNumRecords(st.db);
        while i > 1 {
            i -= 1;
            let h = palm::DmQueryRecord(st.db, i);
            if h.is_null() {
                continue;
            }
            // The kind byte through the master pointer: nothing moves chunks
            // between the query and this read.
            let kind = h.cast::<*const u8>().read().read();
            if kind == record::kind::FREE_SLOT {
                palm::DmRemoveRecord(st.db, i);
            }
        }
        // (`stop` frees the state next: `st.db` is not read again.)
        palm::DmCloseDatabase(st.db);
    }
}
