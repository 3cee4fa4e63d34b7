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
use core::mem::MaybeUninit;

use m68k_palmos_sys as palm;
use palm::dm::{dmMaxRecordIndex, dmModeReadWrite};

use crate::Error;
use crate::record::{self, AsBytes, DB_CREATOR, DB_NAME_C, DB_TYPE, HEADER_SIZE};
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
    let h = new_record(st, HEADER_SIZE as u32);
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

/// `DmCreateDatabase(0, "MemDbgDB", DB_CREATOR, DB_TYPE, false)`. On the 68k its
/// constant arguments are pushed as immediates (the glue loaded each into a
/// register first).
#[inline(always)]
fn create_db() -> palm::Err {
    #[cfg(target_arch = "m68k")]
    {
        let err: u32;
        // SAFETY: pushes the Palm layout (cardNo, nameP, creator, type, resDB: 2 + 3
        // × 4 + 2 = 16 bytes, the last argument first, a Boolean in a word slot),
        // pops exactly that and declares every register Palm OS may clobber
        // (D0-D2/A0-A1). The name is a NUL-terminated constant.
        unsafe {
            core::arch::asm!(
                ".short 0x4267", // clr.w -(%sp): resDB false
                "move.l #{kind},-(%sp)",
                "move.l #{creator},-(%sp)",
                "move.l {name},-(%sp)",
                ".short 0x4267", // clr.w -(%sp): card 0
                "trap #15",
                ".short {trap}",
                "lea (16,%sp),%sp",
                name = in(reg_addr) DB_NAME_C.as_ptr(),
                kind = const DB_TYPE,
                creator = const DB_CREATOR,
                trap = const palm::traps::sysTrapDmCreateDatabase,
                lateout("d0") err, lateout("d1") _, lateout("d2") _, lateout("a0") _, lateout("a1") _,
            );
        }
        err as palm::Err
    }
    #[cfg(not(target_arch = "m68k"))]
    // SAFETY: a NUL-terminated constant name.
    unsafe {
        palm::DmCreateDatabase(0, DB_NAME_C.as_ptr(), DB_CREATOR, DB_TYPE, 0)
    }
}

/// `DmFindDatabase(0, "MemDbgDB")`: the ledger's `LocalID`, 0 if none. On the 68k
/// the card number is pushed as an immediate.
#[inline(always)]
fn find_db() -> palm::LocalID {
    #[cfg(target_arch = "m68k")]
    {
        let id: u32;
        // SAFETY: pushes the Palm layout (cardNo, nameP: 6 bytes, the last argument
        // first), pops exactly that and declares every register Palm OS may clobber
        // (D0-D2/A0-A1). The name is a NUL-terminated constant.
        unsafe {
            core::arch::asm!(
                "move.l {name},-(%sp)",
                ".short 0x4267", // clr.w -(%sp): card 0
                "trap #15",
                ".short {trap}",
                ".short 0x5C8F", // addq.l #6,%sp
                name = in(reg_addr) DB_NAME_C.as_ptr(),
                trap = const palm::traps::sysTrapDmFindDatabase,
                lateout("d0") id, lateout("d1") _, lateout("d2") _, lateout("a0") _, lateout("a1") _,
            );
        }
        id
    }
    #[cfg(not(target_arch = "m68k"))]
    // SAFETY: a NUL-terminated constant name.
    unsafe {
        palm::DmFindDatabase(0, DB_NAME_C.as_ptr())
    }
}

/// Whether database `id` (card 0) is a MemDbgDB ledger: a record database with our
/// creator and type.
///
/// # Errors
/// [`Error::Ledger`] with `DmDatabaseInfo`'s error.
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
/// only; a NULL output is not written. On the 68k the 50-byte Palm argument block is
/// pushed directly (seven of its pointers are NULL), which is much shorter than the
/// generic glue's copy of a zeroed block. `card` is the card number, below 65,536
/// (a `u32`: callers pass it zero-extended once, not at each call).
#[inline(never)]
pub fn db_info(
    card: u32,
    id: palm::LocalID,
    name: *mut u8,
    attributes: *mut u16,
    kind: *mut u32,
    creator: *mut u32,
) -> palm::Err {
    #[cfg(target_arch = "m68k")]
    {
        let err: u32;
        // SAFETY: the outputs are valid for writing or NULL (the caller's); the asm
        // pushes the Palm layout (cardNo, dbID, nameP, attributesP, versionP, crDateP,
        // modDateP, bckUpDateP, modNumP, appInfoIDP, sortInfoIDP, typeP, creatorP:
        // 2 + 12 × 4 = 50 bytes, the last argument first), pops exactly that and
        // declares every register Palm OS may clobber (D0-D2/A0-A1).
        unsafe {
            core::arch::asm!(
                "move.l {creator},-(%sp)",
                "move.l {kind},-(%sp)",
                "move.l {zero},-(%sp)",
                "move.l {zero},-(%sp)",
                "move.l {zero},-(%sp)",
                "move.l {zero},-(%sp)",
                "move.l {zero},-(%sp)",
                "move.l {zero},-(%sp)",
                "move.l {zero},-(%sp)",
                "move.l {attributes},-(%sp)",
                "move.l {name},-(%sp)",
                "move.l {id},-(%sp)",
                "move.w {card},-(%sp)",
                "trap #15",
                ".short {trap}",
                "lea (50,%sp),%sp",
                creator = in(reg) creator as usize as u32,
                kind = in(reg) kind as usize as u32,
                zero = in(reg) 0u32,
                attributes = in(reg) attributes as usize as u32,
                name = in(reg) name as usize as u32,
                id = in(reg) id,
                card = in(reg) card,
                trap = const palm::traps::sysTrapDmDatabaseInfo,
                lateout("d0") err, lateout("d1") _, lateout("d2") _, lateout("a0") _, lateout("a1") _,
            );
        }
        err as palm::Err
    }
    #[cfg(not(target_arch = "m68k"))]
    {
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
}

/// Appends a record of `size` bytes and returns it locked and not busy, or null when
/// the storage heap has no room.
pub fn new_record(st: &mut State, size: u32) -> *mut u8 {
    let mut at: u16 = dmMaxRecordIndex;
    // SAFETY: `st.db` is open for writing; DmNewRecord stores the new index in `at`.
    unsafe {
        let h = palm::DmNewRecord(st.db, &mut at, size);
        if h.is_null() {
            return core::ptr::null_mut();
        }
        let p = palm::MemHandleLock(h).cast::<u8>();
        palm::DmReleaseRecord(st.db, at, 1);
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

/// Appends an event record: `head_len` bytes at `head` (its own fields), then the
/// allocation record at `alloc` (read in place: a ledger record or a scratch copy)
/// with kind byte `kind`; then unlocks it. On a full storage heap the event is lost
/// and the ledger is marked incomplete.
pub fn event(st: &mut State, head: *const u8, head_len: u32, alloc: *const u8, kind: u8) {
    let rec = new_record(st, head_len + record::ALLOC_RECORD_SIZE as u32);
    if rec.is_null() {
        st.flag(record::HeaderFlags::INCOMPLETE);
        return;
    }
    // SAFETY: `rec` is a locked record of head_len + 82 bytes; both sources are
    // readable for their lengths.
    unsafe {
        let r = rec.cast::<c_void>();
        palm::DmWrite(r, 0, head.cast(), head_len);
        palm::DmWrite(r, head_len, alloc.cast(), record::ALLOC_RECORD_SIZE as u32);
        palm::DmSet(r, head_len, 1, kind);
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

/// Writes the header `h` (built in the scratch header; its caller has its address
/// at hand) to record 0. On the 68k the constant length and offset are pushed as
/// immediates.
pub fn write_header(st: &State, h: &record::Header) {
    let h = h.as_bytes();
    #[cfg(target_arch = "m68k")]
    // SAFETY: DmWrite(header_rec, 0, h, HEADER_SIZE): pushes the Palm layout
    // (recordP, offset, srcP, bytes: 16 bytes, the last argument first), pops
    // exactly that and declares every register Palm OS may clobber (D0-D2/A0-A1).
    // The header record is HEADER_SIZE bytes, locked.
    unsafe {
        core::arch::asm!(
            ".short 0x4878, {len}", // pea (len).w
            "move.l {src},-(%sp)",
            ".short 0x42A7", // clr.l -(%sp): offset 0
            "move.l {rec},-(%sp)",
            "trap #15",
            ".short {trap}",
            "lea (16,%sp),%sp",
            len = const HEADER_SIZE,
            src = in(reg) h.as_ptr(),
            rec = in(reg) st.header_rec,
            trap = const palm::traps::sysTrapDmWrite,
            lateout("d0") _, lateout("d1") _, lateout("d2") _, lateout("a0") _, lateout("a1") _,
        );
    }
    #[cfg(not(target_arch = "m68k"))]
    write(st.header_rec, 0, h);
}
// write_header pushes the length as a sign-extended word.
static_assertions::const_assert!(HEADER_SIZE < 0x8000);

/// Unlocks every record, removes the free slots (from the last record backwards, so
/// no removal shifts a record still to be looked at) and closes the database.
pub fn finish(st: &mut State) {
    let mut s = 0;
    while s < st.n_slots {
        let rec = st.rec(s);
        // SAFETY: each slot's record was locked once by new_record.
        unsafe {
            palm::MemPtrUnlock(rec.cast());
        }
        s += 1;
    }
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
