//! The MemDbgDB database: created by `start`, written record by record while the app
//! runs (so it survives a crash or a soft reset), cleaned up by `stop`.
//!
//! Records live in the storage heap, which is write-protected: they are written only
//! through `DmWrite`/`DmSet` (PALM_FACTS §5.4), and only as the Data Manager's
//! documented contract allows: a record is obtained with `DmNewRecord` or
//! `DmGetRecord` (busy), written through the pointer `MemHandleLock` gives while
//! it stays locked, then unlocked and released with `DmReleaseRecord` — after which
//! its pointer is never used again (PumpkinOS frees a record's buffer at its
//! release). Each allocation slot's record is edited all the run long: it stays
//! busy and locked from its `DmNewRecord` to `stop`, so a tracked allocation costs
//! one `DmWrite` and a free one `DmSet`. The header ([`write_header`]) and the
//! event records ([`event`]) go through the whole sequence at each write. Record
//! indices never change while running (nothing is removed before `stop`); `stop`
//! releases every slot ([`release_slots`]) and then removes the free ones from the
//! end backwards ([`finish`]).

use core::ffi::c_void;
use core::mem::MaybeUninit;

use m68k_palmos_sys as palm;
use palm::dm::{dmHdrAttrResDB, dmMaxRecordIndex, dmModeReadOnly, dmModeReadWrite};

use crate::record::{
    self, ALLOC_RECORD_SIZE, AsBytes, DB_CREATOR, DB_NAME_C, DB_TYPE, FORMAT_VERSION, HEADER_MAGIC,
    HEADER_SIZE, HeaderFlags, U16Be, kind,
};
use crate::settings::Error;
use crate::state::{NO_SLOT, RING, State};

/// (Re)creates MemDbgDB, opens it and adds the header record (record 0, zeros,
/// released: [`write_header`] writes it).
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
    let (h, at) = new_record(st, HEADER_SIZE as u32);
    if h.is_null() {
        // `start` frees the state next: `st.db` is not read again.
        // SAFETY: the database was opened above.
        unsafe { palm::DmCloseDatabase(st.db) };
        return Err(Error::Ledger(palm::errors::dmErrMemError));
    }
    release(st, h, at);
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

/// Appends a record of `size` bytes (zeros) to the ledger of `st` and returns it
/// busy and locked (`DmNewRecord` at `dmMaxRecordIndex`, `MemHandleLock`) with its
/// index; null when the storage heap has no room. [`release`] ends its use.
/// `st`'s ledger is open for writing.
pub fn new_record(st: &State, size: u32) -> (*mut u8, u16) {
    let mut at: u16 = dmMaxRecordIndex;
    // SAFETY: the ledger is open; DmNewRecord stores the new index in `at`.
    unsafe {
        let h = palm::DmNewRecord(st.db, &mut at, size);
        if h.is_null() {
            return (core::ptr::null_mut(), 0);
        }
        (palm::MemHandleLock(h).cast::<u8>(), at)
    }
}

/// Ends the use of record `index` of the ledger, locked at `rec` by
/// [`new_record`] or [`write_record`]: unlocked (`MemPtrUnlock`) and released
/// dirty (`DmReleaseRecord`); `rec` is not used again.
pub fn release(st: &State, rec: *mut u8, index: u16) {
    // SAFETY: a record of the open ledger, busy and locked once by its caller.
    unsafe {
        palm::MemPtrUnlock(rec.cast());
        palm::DmReleaseRecord(st.db, index, 1);
    }
}

/// Writes `bytes` at `offset` of a ledger record that is busy and locked at `rec`.
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

/// Appends a record holding `bytes` (a record of its own size): [`new_record`],
/// one `DmWrite`, [`release`]. On a full storage heap the record is lost and the
/// ledger is marked incomplete ([`HeaderFlags::INCOMPLETE`]).
pub fn append(st: &mut State, bytes: &[u8]) {
    let (rec, at) = new_record(st, bytes.len() as u32);
    if rec.is_null() {
        st.flag(HeaderFlags::INCOMPLETE);
    } else {
        write(rec, 0, bytes);
        release(st, rec, at);
    }
}

/// Writes `bytes` at the start of record `index` the documented way:
/// `DmGetRecord`, `MemHandleLock`, `DmWrite`, then [`release`]. Nothing when the
/// record cannot be had.
pub fn write_record(st: &State, index: u16, bytes: &[u8]) {
    // SAFETY: the ledger is open for writing; the record is not busy (only slot
    // records are kept busy, and they are never written this way).
    let h = unsafe { palm::DmGetRecord(st.db, index) };
    if h.is_null() {
        return;
    }
    // SAFETY: a busy record's handle.
    let rec = unsafe { palm::MemHandleLock(h).cast::<u8>() };
    write(rec, 0, bytes);
    release(st, rec, index);
}

/// Fills the header's fields that are not kept in it all along (the app identity,
/// code 1's checksum and the start ticks are set at start, the rarer counters are
/// counted in place) from the state, and writes the header to record 0
/// ([`write_record`]). `stop_ticks` is 0 until stop. Written at start, before
/// every alert (so that an alert that ends the app loses nothing), and at stop.
pub fn write_header(st: &State, stop_ticks: u32) {
    let h = &mut st.sc().header;
    h.kind = kind::HEADER;
    h.version = FORMAT_VERSION;
    h.header_size = U16Be::new(HEADER_SIZE as u16);
    h.magic.set(HEADER_MAGIC);
    h.flags.set(st.flags);
    h.options.set(st.settings.options.bits());
    h.max_alerts.set(st.settings.max_alerts);
    h.capacity.set(st.settings.capacity);
    h.low_heap_threshold.set(st.settings.low_heap_threshold);
    h.code_base.set(st.code.base);
    h.code_size.set(st.code.end.wrapping_sub(st.code.base));
    h.stop_ticks.set(stop_ticks);
    update_counters(st);
    write_record(st, 0, h.as_bytes());
}

/// Brings the header's counters ([`State::counters`], where the rarer ones are
/// counted all along) up to date with the ones the state keeps: `leaks` and
/// `leaked_bytes` are the live blocks and bytes (at stop, the leaks), then
/// allocations, frees, the OS's frees, the peaks and the low-water marks. For
/// [`write_header`] and a checkpoint's copy of the counters.
pub fn update_counters(st: &State) {
    let k = st.counters();
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

/// Appends an event record: `head_len` bytes at `head` (its own fields) followed by
/// its allocation record, copied there from `alloc` (a ledger record, a scratch
/// record, or the place itself) with kind byte `kind`, written with one `DmWrite`;
/// then released ([`release`]). On a full storage heap the event is lost and the ledger is
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
    let (rec, at) = new_record(st, len);
    if rec.is_null() {
        st.flag(HeaderFlags::INCOMPLETE);
        return;
    }
    // SAFETY: `rec` is a busy, locked record of `len` bytes; `head` is readable
    // for them.
    unsafe { palm::DmWrite(rec.cast::<c_void>(), 0, head.cast(), len) };
    release(st, rec, at);
}

/// A slot for a new allocation record when the free list is empty: a new record
/// (kept busy and locked until `stop`) while below the capacity, else the oldest quarantined slot of the ring (its entry
/// emptied); −1 when the storage heap or the capacity is exhausted. The
/// allocation's assembly (`asm/alloc.s`) calls it.
#[unsafe(export_name = "__memdbg_fresh_slot")]
pub extern "C" fn fresh_slot(st: &mut State) -> i32 {
    if st.n_slots < st.settings.capacity {
        let (rec, _) = new_record(st, ALLOC_RECORD_SIZE as u32);
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

/// Ends every slot's use of its record at stop ([`release`]; their pointers are
/// not used again). A slot's record index is found, not kept: the slots were
/// created in the ledger's order (event records between them), so one walk over
/// the records matches each record's address (`DmQueryRecord`, then
/// `MemHandleLock`/`MemHandleUnlock` for the address only) with the next slot's.
pub fn release_slots(st: &State) {
    let mut s = 0;
    // SAFETY: the open ledger; each slot's record is busy and locked once.
    unsafe {
        let n = palm::DmNumRecords(st.db);
        let mut i = 1;
        while i < n && s < st.n_slots {
            let h = palm::DmQueryRecord(st.db, i);
            if !h.is_null() {
                let p = palm::MemHandleLock(h).cast::<u8>();
                palm::MemHandleUnlock(h);
                if p == st.rec(s) {
                    release(st, p, i);
                    s += 1;
                }
            }
            i += 1;
        }
    }
}

/// Ends the slots' use of their records for a state an app left behind by
/// returning without `stop` (the OS closed its `DmOpenRef` at the app's exit):
/// MemDbgDB opened again for writing, every slot released ([`release_slots`]),
/// closed. Nothing when it cannot be opened.
pub fn release_abandoned(st: &mut State) {
    // SAFETY: plain Data Manager calls.
    let db = unsafe { palm::DmOpenDatabase(0, find_db(), dmModeReadWrite) };
    if db.is_null() {
        return;
    }
    st.db = db;
    release_slots(st);
    // SAFETY: opened above.
    unsafe { palm::DmCloseDatabase(db) };
}

/// The kind byte of record `index` (`DmQueryRecord`, read while locked), or
/// `None` when it has no data.
pub fn kind_of(db: palm::DmOpenRef, index: u16) -> Option<u8> {
    // SAFETY: an open database; the record is read only while locked.
    unsafe {
        let h = palm::DmQueryRecord(db, index);
        if h.is_null() {
            return None;
        }
        let k = palm::MemHandleLock(h).cast::<u8>().read();
        palm::MemHandleUnlock(h);
        Some(k)
    }
}

/// Removes the free slots (every slot released already: [`release_slots`]), from
/// the last record backwards, so no removal shifts a record still to be looked
/// at, and closes the database.
pub fn finish(st: &mut State) {
    // SAFETY: the database is open.
    unsafe {
        let mut i = palm::DmNumRecords(st.db);
        while i > 1 {
            i -= 1;
            if kind_of(st.db, i) == Some(record::kind::FREE_SLOT) {
                palm::DmRemoveRecord(st.db, i);
            }
        }
        // (`stop` frees the state next: `st.db` is not read again.)
        palm::DmCloseDatabase(st.db);
    }
}

/// Opens the ledger again for reading, after [`finish`] (the alerts at stop read
/// it): its `DmOpenRef`, null if it cannot be opened.
pub fn reopen() -> palm::DmOpenRef {
    // SAFETY: plain Data Manager calls.
    unsafe { palm::DmOpenDatabase(0, find_db(), dmModeReadOnly) }
}

/// Copies record `index` of the open database `db`, at least `len` bytes long,
/// into `to` (`DmQueryRecord`; read while locked): false when it has no data or
/// is shorter.
///
/// # Safety
/// `to` is writable for `len` bytes.
pub unsafe fn read_record(db: palm::DmOpenRef, index: u16, to: *mut u8, len: u32) -> bool {
    // SAFETY: an open database; the record is read only while locked; the
    // caller's guarantee for `to`.
    unsafe {
        let h = palm::DmQueryRecord(db, index);
        if h.is_null() || palm::MemHandleSize(h) < len {
            return false;
        }
        let p = palm::MemHandleLock(h).cast::<u8>();
        core::ptr::copy_nonoverlapping(p, to, len as usize);
        palm::MemHandleUnlock(h);
        true
    }
}
