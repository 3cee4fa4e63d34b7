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
use palm::dm::{dmHdrAttrResDB, dmMaxRecordIndex, dmModeReadWrite};

use crate::record::{
    self, ALLOC_RECORD_SIZE, DB_CREATOR, DB_NAME_C, DB_TYPE, HEADER_SIZE, HeaderFlags,
};
use crate::settings::Error;
use crate::state::{NO_SLOT, RING, State};

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
        let err = palm::DmCreateDatabase(0, DB_NAME_C.as_ptr(), DB_CREATOR, DB_TYPE, 0);
        if err != palm::errNone {
            return Err(Error::Ledger(err));
        }
        let db = palm::DmOpenDatabase(0, find_db(), dmModeReadWrite);
        if db.is_null() {
            return Err(Error::Ledger(palm::DmGetLastErr()));
        }
        st.db = db;
    }
    let h = new_record(st, HEADER_SIZE as u32);
    if h.is_null() {
        // `start` frees the state next: `st.db` is not read again.
        // SAFETY: the database was opened above.
        unsafe { palm::DmCloseDatabase(st.db) };
        return Err(Error::Ledger(palm::errors::dmErrMemError));
    }
    st.header_rec = h;
    Ok(())
}

/// `DmFindDatabase(0, "MemDbgDB")`: the ledger's `LocalID`, 0 if none.
fn find_db() -> palm::LocalID {
    // SAFETY: a NUL-terminated constant name.
    unsafe { palm::DmFindDatabase(0, DB_NAME_C.as_ptr()) }
}

/// Whether database `id` (card 0) is a MemDbgDB ledger: a record database with our
/// creator and type.
///
/// # Errors
/// [`Error::Ledger`] with `DmDatabaseInfo`'s error.
fn is_ledger(id: palm::LocalID) -> Result<bool, Error> {
    // Written by DmDatabaseInfo when it succeeds (and read only then).
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
    Ok(creator == DB_CREATOR && kind == DB_TYPE && attributes & dmHdrAttrResDB == 0)
}

/// `DmDatabaseInfo` (DataMgr.h) asking for the name, attributes, type and creator
/// only; a NULL output is not written. `card` is the card number. (Not inlined: its
/// thirteen arguments take a long glue, and `start` calls it twice.)
#[inline(never)]
pub fn db_info(
    card: u16,
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
            card,
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
/// `DmReleaseRecord(db, index, true)`), or null when the storage heap has no room.
/// `st`'s ledger is open for writing.
pub fn new_record(st: &State, size: u32) -> *mut u8 {
    let mut at: u16 = dmMaxRecordIndex;
    // SAFETY: the ledger is open; DmNewRecord stores the new index in `at`.
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

/// Writes `bytes` at `offset` of a locked ledger record.
#[inline]
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
/// # Safety
/// `head` is an event record in the scratch chunk with room for its allocation
/// record at `head_len`; `alloc` is a readable allocation record.
pub unsafe fn event(st: &mut State, head: *mut u8, head_len: u32, alloc: *const u8, kind: u8) {
    let len = head_len + ALLOC_RECORD_SIZE as u32;
    // SAFETY: the caller's guarantees (copy allows the two to overlap).
    unsafe {
        let to = head.add(head_len as usize);
        core::ptr::copy(alloc, to, ALLOC_RECORD_SIZE);
        *to = kind;
    }
    let rec = new_record(st, len);
    if rec.is_null() {
        st.flag(HeaderFlags::INCOMPLETE);
        return;
    }
    // SAFETY: `rec` is a locked record of `len` bytes; `head` is readable for them.
    unsafe {
        palm::DmWrite(rec.cast::<c_void>(), 0, head.cast(), len);
        palm::MemPtrUnlock(rec.cast());
    }
}

/// A slot for a new allocation record when the free list is empty: a new record
/// while below the capacity, else the oldest quarantined slot of the ring (its entry
/// emptied); −1 when the storage heap or the capacity is exhausted. The
/// allocation's assembly (`asm/alloc.s`) calls it.
#[unsafe(export_name = "__memdbg_fresh_slot")]
pub extern "C" fn fresh_slot(st: &mut State) -> i32 {
    if st.n_slots < st.settings.capacity {
        let rec = new_record(st, ALLOC_RECORD_SIZE as u32);
        if !rec.is_null() {
            let n = st.n_slots;
            // SAFETY: n < capacity, the table's size.
            unsafe { *st.slot_rec.add(usize::from(n)) = rec };
            st.n_slots = n + 1;
            return i32::from(n);
        }
    }
    let ring = &mut st.sc().ring;
    let mut i = usize::from(st.ring_next);
    for _ in 0..RING {
        i &= RING - 1;
        if ring.addr[i] != 0 {
            ring.addr[i] = 0;
            return i32::from(ring.slot[i]);
        }
        i += 1;
    }
    -1
}
static_assertions::const_assert_eq!(NO_SLOT as i16, -1);

/// Unlocks the header record (the slots' records are unlocked by the leak report),
/// removes the free slots (from the last record backwards, so no removal shifts a
/// record still to be looked at) and closes the database.
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
