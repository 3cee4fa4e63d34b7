//! [`Ledger`]: a decoded MemDbgDB (the first stage: decode).
//!
//! The record layouts are `memdbg::record`'s; this module only walks the
//! database's records, decodes each with [`Record::decode`] and sorts them by
//! kind, turning every decode error into an [`InputError`] that names the file
//! offset of the bad byte. Records that were never written (all zero bytes: the
//! app stopped between `DmNewRecord` and `DmWrite`) are skipped and counted.

use std::mem::offset_of;

use memdbg::record::{
    self, AllocFlags, AllocRecord, AsBytes, CheckpointRecord, ContentsRecord, DecodeError,
    DoubleFreeRecord, Header, InteriorFreeRecord, LockedRecord, LowHeapRecord, OverrunRecord,
    PinnedRecord, Record, SegmentRecord, SmallSiteRecord, UnderrunRecord, UnlockUnderflowRecord,
    kind,
};
use palm_prc::{Database, FourCC, layout, rec_attr};

use crate::InputError;

/// The largest chunk the Palm OS Memory Manager allocates, in bytes
/// (`memMaxChunkAllocSize`, PALM_FACTS §5.2), unless `MemChunkNew` is given
/// the private flag 0x1000 (AllowLarge): a larger block is warned about.
pub const MAX_CHUNK: u32 = 65_505;

/// The largest size any chunk can have, header included, in bytes: its
/// header's `size` field is 24 bits (PALM_FACTS §5.2, `MemoryPrv.h`). A
/// larger recorded size cannot be right: the ledger is refused.
pub const MAX_CHUNK_FIELD: u32 = 0x00FF_FFFF;

/// Where the records of a ledger came from: used to turn a record-relative
/// decode error into a file offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// Record data at this file offset.
    File(u64),
    /// The `n`th record of an in-memory list (no file offsets).
    Index,
}

impl Origin {
    /// The file offset of byte `inside` of the record, where the record has one.
    fn file_offset(self, inside: u64) -> Option<u64> {
        match self {
            Origin::File(o) => Some(o + inside),
            Origin::Index => None,
        }
    }
}

/// A decoded MemDbgDB: the header and the records, by kind, in database order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ledger {
    /// The input's name for messages: the path given, plus the zip member.
    pub source: String,
    /// Record 0.
    pub header: Header,
    /// File offset of record 0's data (0 for ledgers not read from a file);
    /// header field `f` is at `header_offset + offset_of!(Header, f)`.
    pub header_offset: u64,
    /// Code resources 2…n as the run found them (format version 3 on; none for
    /// an app with one code resource), in database order.
    pub segments: Vec<SegmentRecord>,
    /// Allocation records: blocks live when the ledger was written (leaks after
    /// a clean `memdbg::stop`), but for those handed off or freed unseen.
    pub allocs: Vec<AllocRecord>,
    /// Allocation records with `AllocFlags::HANDED_OFF` (format version 4 on):
    /// blocks live at stop that another owner had (given to the system with
    /// `MemPtrSetOwner`/`MemHandleSetOwner` and kept): not leaks.
    pub handed_off: Vec<AllocRecord>,
    /// Allocation records with `AllocFlags::FREED_UNSEEN`: blocks memdbg found
    /// freed where it could not see the free (trap patches refused, or a free
    /// inside the Memory Manager without a trap call), not leaks.
    pub freed_unseen: Vec<AllocRecord>,
    /// Where each of [`Ledger::allocs`] is (the same order): its record index
    /// in the database and, for a ledger read from a file, the file offset of
    /// its data, for warnings that name the record.
    pub alloc_origins: Vec<(usize, Option<u64>)>,
    /// Overrun events.
    pub overruns: Vec<OverrunRecord>,
    /// Underrun events (format version 5 on).
    pub underruns: Vec<UnderrunRecord>,
    /// Double-free events.
    pub double_frees: Vec<DoubleFreeRecord>,
    /// Interior-free events (format version 4 on): frees of an address inside
    /// a tracked block, not passed to the OS.
    pub interior_frees: Vec<InteriorFreeRecord>,
    /// Small-allocation sites.
    pub small_sites: Vec<SmallSiteRecord>,
    /// Low-heap warnings.
    pub low_heap: Vec<LowHeapRecord>,
    /// Leaks' first bytes (format version 4 on, with `Options::CONTENTS`), one
    /// per leak, matched to it by sequence number.
    pub contents: Vec<ContentsRecord>,
    /// Checkpoints (format version 5 on): where each generation from 1 on
    /// started, in database order (the order they were made).
    pub checkpoints: Vec<CheckpointRecord>,
    /// Blocks that pinned the dynamic heap (format version 5 on, with
    /// `Options::HEAP_STATS`), as memdbg wrote them: those splitting the most
    /// free bytes first.
    pub pinned: Vec<PinnedRecord>,
    /// Tracked handles still locked at stop (format version 5 on), with the
    /// lock count the OS kept, in database order (memdbg's slot order).
    pub locked: Vec<LockedRecord>,
    /// Unlocks of tracked handles that were not locked (format version 5 on,
    /// with `Options::LOCK_CHECKS`), refused by memdbg, in the order they
    /// happened.
    pub unlock_underflows: Vec<UnlockUnderflowRecord>,
    /// Free slots skipped (only in a ledger whose run did not stop).
    pub free_slots: usize,
    /// Records skipped because they were never written: every byte zero, of
    /// the size of an allocation or event record. The app stopped
    /// between the library's `DmNewRecord`, which creates the record
    /// zero-filled, and the `DmWrite` that fills it; what the record was to
    /// hold (an allocation or an event) is missing. After a clean stop, which
    /// removes them, such a record means a damaged ledger.
    pub unwritten: usize,
    /// Records skipped because the Data Manager marked them deleted.
    pub deleted: usize,
}

impl Ledger {
    /// Decodes a MemDbgDB file (`.pdb` as POSE, `palm-run` or CloudpilotEmu
    /// export it). `source` names it in errors. Free slots, records marked
    /// deleted and records never written are skipped and counted
    /// ([`Ledger::free_slots`], [`Ledger::deleted`], [`Ledger::unwritten`]).
    ///
    /// # Errors
    /// Not a Palm database, a resource database, the wrong type or creator, no
    /// records, or a record that does not decode (unknown kind or version,
    /// truncated, …; a header never written): an [`InputError`] with the file
    /// offset of the bad byte.
    pub fn from_pdb(bytes: &[u8], source: &str) -> Result<Ledger, InputError> {
        let db = Database::parse(bytes)
            .map_err(|e| InputError::whole(source, format!("not a Palm database (.pdb): {e}")))?;
        let Some(records) = db.records() else {
            return Err(InputError::at(
                source,
                layout::ATTRIBUTES_OFFSET as u64,
                "a resource database (.prc), not the MemDbgDB record database",
            ));
        };
        check_type_creator(&db, source)?;
        let entry_offset = |i: usize| -> u64 {
            let at = layout::HEADER_SIZE + i * layout::RECORD_ENTRY_SIZE;
            bytes.get(at..at + 4).map_or(0, |b| {
                u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            })
        };
        // DmDeleteRecord leaves an empty entry marked deleted until the next
        // HotSync; it is no record of ours.
        let is_deleted =
            |r: &palm_prc::Record| r.attributes & rec_attr::DELETE != 0 && r.data.is_empty();
        let deleted = records.iter().filter(|r| is_deleted(r)).count();
        let list = records
            .iter()
            .enumerate()
            .filter(|(_, r)| !is_deleted(r))
            .map(|(i, r)| (i, Origin::File(entry_offset(i)), &r.data[..]));
        let mut ledger = decode_all(list, source)?;
        ledger.deleted = deleted;
        Ok(ledger)
    }

    /// Decodes a ledger from its records' bytes, record 0 first (for ledgers
    /// built in memory; errors give the record index instead of a file offset).
    ///
    /// # Errors
    /// As [`Ledger::from_pdb`] for the records.
    pub fn from_records<'a>(
        records: impl IntoIterator<Item = &'a [u8]>,
        source: &str,
    ) -> Result<Ledger, InputError> {
        let list = records
            .into_iter()
            .enumerate()
            .map(|(i, data)| (i, Origin::Index, data));
        decode_all(list, source)
    }

    /// The ledger as a MemDbgDB `.pdb` file, as the 68k library leaves it: the
    /// header, then segment, allocation (leaks, then hand-offs, then freed
    /// unseen), overrun, underrun, double-free, interior-free, small-site, low-heap,
    /// contents, checkpoint, pinned, locked and unlock-underflow records in
    /// that order. Free slots are not written.
    ///
    /// # Errors
    /// More than 65,535 records (the PDB entry count is 16 bits).
    pub fn to_pdb(&self) -> Result<Vec<u8>, palm_prc::WriteError> {
        let header = palm_prc::Header::new(
            record::DB_NAME,
            FourCC::from_u32(record::DB_TYPE),
            FourCC::from_u32(record::DB_CREATOR),
        );
        let mut datas: Vec<&[u8]> = vec![self.header.stored_bytes()];
        datas.extend(self.segments.iter().map(stored));
        datas.extend(self.allocs.iter().map(stored));
        datas.extend(self.handed_off.iter().map(stored));
        datas.extend(self.freed_unseen.iter().map(stored));
        datas.extend(self.overruns.iter().map(stored));
        datas.extend(self.underruns.iter().map(stored));
        datas.extend(self.double_frees.iter().map(stored));
        datas.extend(self.interior_frees.iter().map(stored));
        datas.extend(self.small_sites.iter().map(stored));
        datas.extend(self.low_heap.iter().map(stored));
        datas.extend(self.contents.iter().map(stored));
        datas.extend(self.checkpoints.iter().map(stored));
        datas.extend(self.pinned.iter().map(stored));
        datas.extend(self.locked.iter().map(stored));
        datas.extend(self.unlock_underflows.iter().map(stored));
        let records = datas
            .into_iter()
            .zip(1u32..)
            .map(|(data, unique_id)| palm_prc::Record {
                attributes: 0,
                unique_id,
                data: data.to_vec(),
            })
            .collect();
        Database::new_records(header, records).to_bytes()
    }

    /// The app's database name (lossy UTF-8; Palm names are mostly ASCII).
    pub fn app_name(&self) -> String {
        String::from_utf8_lossy(self.header.app_name_bytes()).into_owned()
    }
}

fn check_type_creator(db: &Database, source: &str) -> Result<(), InputError> {
    let want_type = FourCC::from_u32(record::DB_TYPE);
    let want_creator = FourCC::from_u32(record::DB_CREATOR);
    if db.header.kind != want_type {
        return Err(InputError::at(
            source,
            layout::TYPE_OFFSET as u64,
            format!(
                "database type is {}, not MemDbgDB's {want_type} (database \"{}\")",
                db.header.kind,
                String::from_utf8_lossy(&db.header.name)
            ),
        ));
    }
    if db.header.creator != want_creator {
        return Err(InputError::at(
            source,
            layout::CREATOR_OFFSET as u64,
            format!(
                "database creator is {}, not MemDbgDB's {want_creator} (database \"{}\")",
                db.header.creator,
                String::from_utf8_lossy(&db.header.name)
            ),
        ));
    }
    Ok(())
}

/// Record `r`'s bytes as its format version stores them
/// ([`record::size_of_kind`]: a record that is or ends in an allocation record
/// is 2 bytes shorter before version 5, a version 1 header 4).
fn stored<T: AsBytes>(r: &T) -> &[u8] {
    let b = r.as_bytes();
    let n = record::size_of_kind(b[0], b[1]).map_or(b.len(), |n| n.min(b.len()));
    &b[..n]
}

/// The size a record of kind `k` and format version `v` must have, when the
/// kind is known ([`record::size_of_kind`]; a header of an unknown version is
/// taken as the current one's).
fn kind_size(k: u8, v: u8) -> Option<usize> {
    match k {
        kind::HEADER => Some(Header::size_of_version(v).unwrap_or(record::HEADER_SIZE)),
        _ => record::size_of_kind(k, v),
    }
}

/// Whether `data` is a record that was never written: all zero bytes, of the
/// size of a record that the library creates after the header (a segment
/// record, an allocation slot, an event, a contents or a checkpoint record, in
/// format version 4 or 5). `DmNewRecord` creates a record zero-filled, so
/// this is what the app leaves when it stops before the `DmWrite` that fills
/// it. Zero bytes of any other size, or a record with any byte set, are not
/// skipped: they fail to decode.
pub(crate) fn is_unwritten(data: &[u8]) -> bool {
    let sized = |v| {
        [
            kind::POINTER,
            kind::OVERRUN,
            kind::DOUBLE_FREE,
            kind::INTERIOR_FREE,
            kind::SMALL_SITE,
            kind::LOW_HEAP,
            kind::SEGMENT,
            kind::CONTENTS,
            kind::CHECKPOINT,
        ]
        .iter()
        .any(|&k| record::size_of_kind(k, v) == Some(data.len()))
    };
    (sized(record::CONTENTS_FORMAT_VERSION) || sized(record::FORMAT_VERSION))
        && data.iter().all(|&b| b == 0)
}

/// An [`InputError`] for record `index` that failed to decode.
fn record_error(
    source: &str,
    index: usize,
    origin: Origin,
    data: &[u8],
    e: DecodeError,
) -> InputError {
    let k = data.first().copied();
    let name = k.map_or("empty", kind::name);
    let mut message = format!(
        "record {index} ({name}): {} (byte {} of the record)",
        e.what, e.offset
    );
    let found = data.get(e.offset).copied();
    match (e.what, found) {
        ("unknown record format version", Some(v)) => message.push_str(&format!(
            "; its version is {v}, this memdbg reads versions {} to {}",
            record::OLDEST_FORMAT_VERSION,
            record::FORMAT_VERSION
        )),
        ("unknown record kind", Some(v)) => message.push_str(&format!("; kind byte 0x{v:02X}")),
        ("truncated record" | "record longer than its kind's size", _) => {
            let v = data.get(1).copied().unwrap_or(record::FORMAT_VERSION);
            if let Some(size) = k.and_then(|k| kind_size(k, v)) {
                // An older version's size says which version it is for.
                let what = if v == record::FORMAT_VERSION {
                    let an = name.starts_with(['a', 'e', 'i', 'o', 'u']);
                    format!("{} {name}", if an { "an" } else { "a" })
                } else {
                    format!("a version {v} {name}")
                };
                message.push_str(&format!(
                    "; it has {} bytes, {what} record has {size}",
                    data.len(),
                ));
            }
        }
        _ => {}
    }
    InputError::at_or_whole(source, origin.file_offset(e.offset as u64), message)
}

fn decode_all<'a>(
    list: impl Iterator<Item = (usize, Origin, &'a [u8])>,
    source: &str,
) -> Result<Ledger, InputError> {
    let mut list = list;
    let Some((index, origin, data)) = list.next() else {
        return Err(InputError::whole(
            source,
            "the database has no records: record 0 must be the MemDbgDB header (an empty \
             MemDbgDB is what an app leaves that stopped while memdbg::start was creating the \
             ledger)",
        ));
    };
    if !data.is_empty() && data.iter().all(|&b| b == 0) {
        let message = format!(
            "record 0 (header): never written: its {} bytes are zero (the app stopped while \
             memdbg::start was creating the ledger, before it wrote the header)",
            data.len()
        );
        return Err(InputError::at_or_whole(
            source,
            origin.file_offset(0),
            message,
        ));
    }
    let header = Header::decode(data).map_err(|e| record_error(source, index, origin, data, e))?;
    let mut ledger = Ledger {
        source: source.to_string(),
        header,
        header_offset: origin.file_offset(0).unwrap_or(0),
        segments: Vec::new(),
        allocs: Vec::new(),
        handed_off: Vec::new(),
        freed_unseen: Vec::new(),
        alloc_origins: Vec::new(),
        overruns: Vec::new(),
        underruns: Vec::new(),
        double_frees: Vec::new(),
        interior_frees: Vec::new(),
        small_sites: Vec::new(),
        low_heap: Vec::new(),
        contents: Vec::new(),
        checkpoints: Vec::new(),
        pinned: Vec::new(),
        locked: Vec::new(),
        unlock_underflows: Vec::new(),
        free_slots: 0,
        unwritten: 0,
        deleted: 0,
    };
    // Every allocation record, whether a record of its own or inside another
    // (an overrun's, a locked handle's, …): where it is, for the checks below.
    let mut embedded: Vec<(AllocRecord, usize, Option<u64>)> = Vec::new();
    for (index, origin, data) in list {
        if is_unwritten(data) {
            ledger.unwritten += 1;
            continue;
        }
        let decoded =
            Record::decode(data).map_err(|e| record_error(source, index, origin, data, e))?;
        let at = |inside: usize| origin.file_offset(inside as u64);
        let inner = match &decoded {
            Record::Alloc(a) => Some((*a, 0)),
            Record::Overrun(o) => Some((o.alloc, offset_of!(OverrunRecord, alloc))),
            Record::Underrun(u) => Some((u.alloc, offset_of!(UnderrunRecord, alloc))),
            Record::DoubleFree(d) => Some((d.alloc, offset_of!(DoubleFreeRecord, alloc))),
            Record::InteriorFree(f) => Some((f.alloc, offset_of!(InteriorFreeRecord, alloc))),
            Record::SmallSite(s) => Some((s.first, offset_of!(SmallSiteRecord, first))),
            Record::LowHeap(l) => Some((l.alloc, offset_of!(LowHeapRecord, alloc))),
            Record::Pinned(p) => Some((p.alloc, offset_of!(PinnedRecord, alloc))),
            Record::Locked(l) => Some((l.alloc, offset_of!(LockedRecord, alloc))),
            Record::UnlockUnderflow(u) => Some((u.alloc, offset_of!(UnlockUnderflowRecord, alloc))),
            _ => None,
        };
        if let Some((a, inside)) = inner {
            // A size no chunk can have: the record cannot be right.
            if a.size.get() > MAX_CHUNK_FIELD {
                let message = format!(
                    "record {index} ({}): a size of {} bytes, more than any Palm OS chunk \
                     can hold (its header's size field is 24 bits: at most \
                     {MAX_CHUNK_FIELD} bytes): the record is damaged",
                    kind::name(data[0]),
                    a.size.get()
                );
                let off = inside + offset_of!(AllocRecord, size);
                return Err(InputError::at_or_whole(source, at(off), message));
            }
            // memdbg copies the allocation record into the records it writes, all
            // of one format version; the outer record's version decides the layout
            // (and whether the allocation has ticks), so a different inner one is
            // damage, not a second format.
            if inside != 0 && a.version != data[1] {
                let message = format!(
                    "record {index} ({}): its allocation record says format version {} \
                     inside a version {} record: the record is damaged",
                    kind::name(data[0]),
                    a.version,
                    data[1]
                );
                let off = inside + offset_of!(AllocRecord, version);
                return Err(InputError::at_or_whole(source, at(off), message));
            }
            embedded.push((a, index, at(inside)));
        }
        match decoded {
            Record::Header(_) => {
                let e = DecodeError {
                    offset: 0,
                    what: "a second header record (only record 0 is a header)",
                };
                return Err(record_error(source, index, origin, data, e));
            }
            Record::FreeSlot => ledger.free_slots += 1,
            Record::Alloc(a) => {
                if a.alloc_flags().contains(AllocFlags::HANDED_OFF) {
                    ledger.handed_off.push(a);
                    continue;
                }
                if a.alloc_flags().contains(AllocFlags::FREED_UNSEEN) {
                    ledger.freed_unseen.push(a);
                    continue;
                }
                ledger.allocs.push(a);
                ledger.alloc_origins.push((index, origin.file_offset(0)));
            }
            Record::Overrun(o) => ledger.overruns.push(o),
            Record::Underrun(u) => ledger.underruns.push(u),
            Record::DoubleFree(d) => ledger.double_frees.push(d),
            Record::InteriorFree(f) => ledger.interior_frees.push(f),
            Record::SmallSite(s) => ledger.small_sites.push(s),
            Record::LowHeap(l) => ledger.low_heap.push(l),
            Record::Segment(s) => ledger.segments.push(s),
            Record::Contents(c) => ledger.contents.push(c),
            Record::Checkpoint(c) => {
                // memdbg numbers its checkpoints 1, 2, 3… and appends each
                // record: any other sequence is a damaged ledger, and a
                // generation table made from it would be wrong.
                let due = ledger.checkpoints.len() + 1;
                if usize::from(c.generation) != due {
                    let message = format!(
                        "record {index} (checkpoint): generation {} where generation {due} was \
                         due (memdbg writes checkpoints 1, 2, 3… in order): the ledger is damaged",
                        c.generation
                    );
                    let at = offset_of!(CheckpointRecord, generation) as u64;
                    return Err(InputError::at_or_whole(
                        source,
                        origin.file_offset(at),
                        message,
                    ));
                }
                ledger.checkpoints.push(c);
            }
            Record::Pinned(p) => ledger.pinned.push(p),
            Record::Locked(l) => ledger.locked.push(l),
            Record::UnlockUnderflow(u) => ledger.unlock_underflows.push(u),
        }
    }
    // Every allocation's generation (an allocation record's own or one inside
    // another record) must be one the ledger has a checkpoint of.
    let last = ledger.checkpoints.len();
    for (a, index, at) in embedded {
        if usize::from(a.generation) > last {
            let message = format!(
                "record {index} ({}): an allocation in generation {}, but the ledger has {last} \
                 checkpoint(s): the ledger is damaged",
                kind::name(a.kind),
                a.generation
            );
            let off = offset_of!(AllocRecord, generation) as u64;
            return Err(InputError::at_or_whole(
                source,
                at.map(|o| o + off),
                message,
            ));
        }
    }
    Ok(ledger)
}
