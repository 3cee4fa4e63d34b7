//! Reading the MemDbgDB ledger on the device, read-only, with memdbg's
//! record module (`memdbg::record`, the layout the host tools read too), and
//! describing it as text: the run's summary, one line per finding, a
//! finding's details with its call stacks named from the recorded app's code
//! resources (code 1, and code 2…n through the ledger's segment records,
//! format version 3 on).
//!
//! Nothing here changes a database: the ledger and the app are opened with
//! `dmModeReadOnly`, records are read with `DmQueryRecord` (which does not
//! mark them busy) and locked only while read.
//!
//! What cannot be shown is said: no ledger, a database of that name that is
//! not a ledger, one that cannot be opened, no header, a header of a newer
//! format version or a damaged one ([`Problem`]); a damaged record, or one
//! of a kind or version this viewer does not know, is a finding of its own
//! that says so.

use core::ptr;

use m68k_palmos_sys::{self as palm, DmOpenRef, MemHandle};
use memdbg::record::{
    self, AllocFlags, AllocRecord, DB_CREATOR, DB_NAME_C, DB_TYPE, DecodeError, FORMAT_VERSION,
    Frame, Header, HeaderFlags, OLDEST_FORMAT_VERSION, Record, SEGMENT_RECORD_SIZE, SegmentRecord,
    Stack, detected, kind,
};

use crate::text::Text;

/// Bytes per row of a leak's contents in the detail form (8: the hex and
/// the text of a row fit the 160-pixel screen).
const CONTENTS_ROW: usize = 8;

/// Most findings listed (the rest are counted in the summary).
pub const MAX_FINDINGS: u16 = 250;
/// Bytes of one list item, NUL included.
pub const ITEM_LEN: u16 = 40;
/// Characters of a function name shown in a call stack line (a longer one
/// keeps its end, the function and its innermost modules, after `..`).
const NAME_CHARS: usize = 28;

/// Why the ledger cannot be shown.
#[derive(Clone, Copy)]
pub enum Problem {
    /// No database named MemDbgDB on card 0.
    NoLedger,
    /// MemDbgDB has another creator or type than a ledger's.
    NotALedger {
        /// Its creator.
        creator: u32,
        /// Its type.
        db_type: u32,
    },
    /// `DmOpenDatabase` failed with this error (`DmGetLastErr`).
    CannotOpen(u16),
    /// The ledger has no record 0.
    NoHeader,
    /// Record 0 is of a format version this viewer does not read.
    NewerFormat(u8),
    /// Record 0 does not decode.
    DamagedHeader(DecodeError),
    /// The dynamic heap had no room for the viewer's buffers.
    NoMemory,
}

/// Whether one of the recorded app's code resources can name frames.
/// `Missing` is 0, so a zeroed chunk of them says "not found yet".
#[repr(u8)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CodeStatus {
    /// The app is not on the device (or has no such code resource).
    Missing = 0,
    /// The resource is not the one that ran: size or CRC-32 differ.
    Changed = 1,
    /// The code that ran (same size, and same CRC-32 when the ledger has one).
    Same = 2,
}

/// The app's code resources 2…n as the ledger recorded them (its segment
/// records), each with whether the app on the device still has it.
#[repr(C)]
struct Segments {
    /// `count` records, in ledger order (a chunk).
    records: *mut SegmentRecord,
    /// `count` statuses, found with code 1's (a chunk).
    status: *mut CodeStatus,
    count: u16,
}

/// The recorded app's code 1, open read-only while the viewer runs.
#[repr(C)]
struct AppCode {
    db: DmOpenRef,
    handle: MemHandle,
    code: *const u8,
    len: u32,
    status: CodeStatus,
    /// Whether `status` was found (by the first `open_code`).
    checked: bool,
}

/// The open ledger and what the viewer found in it.
#[repr(C)]
pub struct Ledger {
    db: DmOpenRef,
    /// Record 0, decoded (valid once [`Ledger::open`] succeeded).
    pub header: Header,
    records: u16,
    findings: u16,
    /// Findings beyond [`MAX_FINDINGS`].
    more: u16,
    /// Records that do not decode.
    damaged: u16,
    /// Finding index → record index.
    record_of: *mut u16,
    /// Where a record is decoded (a chunk: never a local, whose call stack
    /// indexed by a variable LLVM miscompiles, TOOLCHAIN.md).
    current: *mut Record,
    code: AppCode,
    segments: Segments,
}

/// A finding's record as read.
enum Read {
    /// It decoded (into [`Ledger::current`]).
    Known,
    /// A kind this viewer does not know.
    UnknownKind(u8),
    /// A format version this viewer does not know.
    UnknownVersion(u8),
    /// It does not decode.
    Damaged(DecodeError),
    /// `DmQueryRecord` gave nothing.
    Missing,
}

impl Ledger {
    /// Opens MemDbgDB read-only into `self` (a zeroed chunk) and indexes its
    /// findings; on an error `self` holds nothing to close but what
    /// [`Ledger::close`] closes.
    ///
    /// # Errors
    /// The [`Problem`].
    pub fn open(&mut self) -> Result<(), Problem> {
        // SAFETY: a NUL-terminated name; card 0.
        let id = unsafe { palm::DmFindDatabase(0, DB_NAME_C.as_ptr()) };
        if id == 0 {
            return Err(Problem::NoLedger);
        }
        let (db_type, creator) = type_and_creator(id);
        if creator != DB_CREATOR || db_type != DB_TYPE {
            return Err(Problem::NotALedger { creator, db_type });
        }
        // SAFETY: a database of card 0, read-only.
        self.db = unsafe { palm::DmOpenDatabase(0, id, palm::dm::dmModeReadOnly) };
        if self.db.is_null() {
            // SAFETY: no arguments.
            return Err(Problem::CannotOpen(unsafe { palm::DmGetLastErr() }));
        }
        // SAFETY: the database just opened.
        self.records = unsafe { palm::DmNumRecords(self.db) };
        let header = self.with_record(0, |b| {
            if b.len() >= 2 && b[0] == kind::HEADER && !record::is_known_version(b[1]) {
                return Err(Problem::NewerFormat(b[1]));
            }
            Header::decode(b).map_err(Problem::DamagedHeader)
        });
        self.header = header.ok_or(Problem::NoHeader)??;
        self.current = alloc(size_of::<Record>())?.cast();
        self.record_of = alloc(usize::from(MAX_FINDINGS) * 2)?.cast();
        let segments = (1..self.records).filter(|&i| self.is_segment(i)).count();
        self.segments.records = alloc(segments.max(1) * SEGMENT_RECORD_SIZE)?.cast();
        self.segments.status = alloc(segments.max(1))?.cast();
        for i in 1..self.records {
            // Segment records place raw frames; one that does not decode is
            // listed as a damaged finding.
            if self.is_segment(i)
                && let Read::Known = self.read(i)
                && let Record::Segment(r) = *self.record()
                && usize::from(self.segments.count) < segments
            {
                // SAFETY: count < segments entries of the chunk.
                unsafe { *self.segments.records.add(usize::from(self.segments.count)) = r };
                self.segments.count += 1;
                continue;
            }
            // A leak's contents record belongs to the leak's detail; a
            // checkpoint is no finding (a leak's detail names its generation).
            let finding = self
                .with_record(i, |b| {
                    !(b.len() >= 2
                        && matches!(b[0], kind::FREE_SLOT | kind::CONTENTS | kind::CHECKPOINT))
                })
                .unwrap_or(true);
            if !finding {
                continue;
            }
            if matches!(self.read(i), Read::Damaged(_) | Read::Missing) {
                self.damaged += 1;
            }
            if self.findings < MAX_FINDINGS {
                // SAFETY: findings < MAX_FINDINGS entries of the chunk.
                unsafe { *self.record_of.add(usize::from(self.findings)) = i };
                self.findings += 1;
            } else {
                self.more += 1;
            }
        }
        Ok(())
    }

    /// Closes the ledger and the app and frees what [`Ledger::open`] took.
    pub fn close(&mut self) {
        self.close_code();
        // SAFETY: each was taken by open and is given back once.
        unsafe {
            if !self.db.is_null() {
                palm::DmCloseDatabase(self.db);
            }
            for p in [
                self.current.cast::<u8>(),
                self.record_of.cast(),
                self.segments.records.cast(),
                self.segments.status.cast(),
            ] {
                if !p.is_null() {
                    palm::MemChunkFree(p.cast());
                }
            }
        }
        self.db = ptr::null_mut();
        self.current = ptr::null_mut();
        self.record_of = ptr::null_mut();
        self.segments = Segments {
            records: ptr::null_mut(),
            status: ptr::null_mut(),
            count: 0,
        };
        self.findings = 0;
    }

    /// Findings listed.
    pub fn findings(&self) -> u16 {
        self.findings
    }

    /// Whether the app's code 1 names frames.
    pub fn code_status(&self) -> CodeStatus {
        self.code.status
    }

    /// Runs `f` on the bytes of record `index`, locked for the call; `None`
    /// when there is no such record.
    fn with_record<R>(&self, index: u16, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
        // SAFETY: the ledger is open; the handle is locked while read.
        unsafe {
            let h = palm::DmQueryRecord(self.db, index);
            if h.is_null() {
                return None;
            }
            let p = palm::MemHandleLock(h).cast::<u8>();
            let n = palm::MemHandleSize(h) as usize;
            let r = if p.is_null() {
                f(&[])
            } else {
                f(core::slice::from_raw_parts(p, n))
            };
            palm::MemHandleUnlock(h);
            Some(r)
        }
    }

    /// Whether record `index` is a segment record (by its kind byte).
    fn is_segment(&self, index: u16) -> bool {
        self.with_record(index, |b| b.first() == Some(&kind::SEGMENT))
            .unwrap_or(false)
    }

    /// The ledger's segment records.
    fn segment_records(&self) -> &[SegmentRecord] {
        let s = &self.segments;
        if s.records.is_null() {
            return &[];
        }
        // SAFETY: count records written by open, alive until close.
        unsafe { core::slice::from_raw_parts(s.records, usize::from(s.count)) }
    }

    /// The status of segment record `i` (< count).
    fn segment_status(&self, i: usize) -> CodeStatus {
        // SAFETY: count statuses, zeroed (Missing) by alloc.
        unsafe { *self.segments.status.add(i) }
    }

    /// Decodes record `index` into [`Ledger::current`].
    fn read(&self, index: u16) -> Read {
        let current = self.current;
        self.with_record(index, |b| match Record::decode(b) {
            Ok(r) => {
                // SAFETY: current is a Record-sized chunk.
                unsafe { current.write(r) };
                Read::Known
            }
            Err(e) => match b.first() {
                Some(&k) if kind::name(k).as_bytes() == b"unknown" => Read::UnknownKind(k),
                Some(_) if b.len() >= 2 && !record::is_known_version(b[1]) => {
                    Read::UnknownVersion(b[1])
                }
                _ => Read::Damaged(e),
            },
        })
        .unwrap_or(Read::Missing)
    }

    fn record(&self) -> &Record {
        // SAFETY: written by the last `read` that returned Known.
        unsafe { &*self.current }
    }

    /// The record index of finding `i`.
    fn record_index(&self, i: u16) -> u16 {
        if i < self.findings {
            // SAFETY: i < findings entries.
            unsafe { *self.record_of.add(usize::from(i)) }
        } else {
            0
        }
    }

    /// Runs `f` with the recorded app's code 1 at hand to name frames
    /// ([`Ledger::open_code`]), closing the app after it: while the app is
    /// open, its resources are in the resource search, and its forms could be
    /// loaded for ours (PALM_FACTS §4.2, after the Data Manager table).
    pub fn with_code<R>(&mut self, f: impl FnOnce(&Self) -> R) -> R {
        self.open_code();
        let r = f(self);
        self.close_code();
        r
    }

    /// Unlocks and releases the app's code 1 and closes the app.
    fn close_code(&mut self) {
        let c = &mut self.code;
        // SAFETY: each was taken by open_code and is given back once.
        unsafe {
            if !c.handle.is_null() {
                palm::MemHandleUnlock(c.handle);
                palm::DmReleaseResource(c.handle);
            }
            if !c.db.is_null() {
                palm::DmCloseDatabase(c.db);
            }
        }
        c.db = ptr::null_mut();
        c.handle = ptr::null_mut();
        c.code = ptr::null();
        c.len = 0;
    }

    /// Opens the recorded app (by the header's name, checked against its
    /// creator) read-only and locks its code 1, whose size and CRC-32 must
    /// be the run's for its names to be used (the CRC is computed the first
    /// time only).
    fn open_code(&mut self) {
        let checked = self.code.checked;
        if !checked {
            self.code.status = CodeStatus::Missing;
        }
        let Some(mut name) = Text::new(33) else {
            return;
        };
        name.bytes(self.header.app_name_bytes());
        // SAFETY: a NUL-terminated name; card 0.
        let id = unsafe { palm::DmFindDatabase(0, name.as_ptr()) };
        name.free();
        if id == 0 {
            return;
        }
        let (_, creator) = type_and_creator(id);
        if creator != self.header.app_creator.get() {
            return;
        }
        let c = &mut self.code;
        // SAFETY: read-only; the app's resources are searched first after
        // it is opened (DmGet1Resource: the most recently opened one).
        unsafe {
            c.db = palm::DmOpenDatabase(0, id, palm::dm::dmModeReadOnly);
            if c.db.is_null() {
                return;
            }
            c.handle = palm::DmGet1Resource(u32::from_be_bytes(*b"code"), 1);
            if c.handle.is_null() {
                return;
            }
            c.code = palm::MemHandleLock(c.handle).cast::<u8>();
            c.len = palm::MemHandleSize(c.handle);
        }
        if c.code.is_null() || checked {
            return;
        }
        c.checked = true;
        let same_size = c.len == self.header.code_size.get();
        let same_crc = match self.header.code_checksum() {
            // SAFETY: the locked resource's bytes.
            Some(crc) => {
                record::crc32(unsafe { core::slice::from_raw_parts(c.code, c.len as usize) }) == crc
            }
            None => true,
        };
        c.status = if same_size && same_crc {
            CodeStatus::Same
        } else {
            CodeStatus::Changed
        };
        for i in 0..self.segment_records().len() {
            let r = self.segment_records()[i];
            let status = self
                .with_code_resource(r.resource.get(), |code| {
                    if code.len() == r.size.get() as usize && record::crc32(code) == r.crc.get() {
                        CodeStatus::Same
                    } else {
                        CodeStatus::Changed
                    }
                })
                // The app is open with its code 1: one without this code
                // resource is not the app that ran.
                .unwrap_or(CodeStatus::Changed);
            // SAFETY: i < count statuses.
            unsafe { *self.segments.status.add(i) = status };
        }
    }

    /// Runs `f` on the bytes of the open app's code resource `id`, locked
    /// for the call and released after it; `None` when the app is not open
    /// or has no such resource.
    fn with_code_resource<R>(&self, id: u16, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
        if self.code.db.is_null() {
            return None;
        }
        // SAFETY: the app is open read-only and searched first (open_code);
        // the handle is locked while read and released after.
        unsafe {
            let h = palm::DmGet1Resource(u32::from_be_bytes(*b"code"), id);
            if h.is_null() {
                return None;
            }
            let p = palm::MemHandleLock(h).cast::<u8>();
            let r = (!p.is_null()).then(|| {
                f(core::slice::from_raw_parts(
                    p,
                    palm::MemHandleSize(h) as usize,
                ))
            });
            palm::MemHandleUnlock(h);
            palm::DmReleaseResource(h);
            r
        }
    }

    /// The MacsBug name of the function at code 1 offset `at`, appended to
    /// `out` (at most [`NAME_CHARS`] characters); false when there is none.
    fn name(&self, at: u32, out: &mut Text) -> bool {
        let c = &self.code;
        if c.status != CodeStatus::Same || c.code.is_null() {
            return false;
        }
        // SAFETY: the locked code resource.
        let code = unsafe { core::slice::from_raw_parts(c.code, c.len as usize) };
        name_in(code, at, out)
    }

    /// The MacsBug name of the function at offset `at` of the code resource
    /// of segment record `i`, appended to `out`; false when there is none
    /// (or the app's resource is not the one that ran).
    fn segment_name(&self, i: usize, at: u32, out: &mut Text) -> bool {
        if self.segment_status(i) != CodeStatus::Same {
            return false;
        }
        let resource = self.segment_records()[i].resource.get();
        self.with_code_resource(resource, |code| name_in(code, at, out))
            .unwrap_or(false)
    }

    /// The segment record that holds the raw frame `at` (its index) and the
    /// offset of `at` in that code resource.
    fn segment_of(&self, at: u32) -> Option<(usize, u32)> {
        let records = self.segment_records();
        let (r, offset) = SegmentRecord::locate(records, at)?;
        Some((records.iter().position(|x| ptr::eq(x, r))?, offset))
    }

    /// The run's summary: the app, whether it stopped, the counters and the
    /// header's flags (by name; a flag this viewer does not know in hex).
    pub fn summary(&self, out: &mut Text) {
        let h = &self.header;
        let c = &h.counters;
        out.clear();
        out.bytes(h.app_name_bytes());
        out.str(" (");
        out.bytes(&h.app_creator.get().to_be_bytes());
        out.str("), ");
        let flags = h.flags.get();
        out.str(if flags & HeaderFlags::RUNNING.bits() != 0 {
            "did not stop"
        } else {
            "stopped"
        });
        out.nl();
        out.count(c.allocations.get(), "alloc", "allocs");
        out.str(", ");
        out.count(c.frees.get(), "free", "frees");
        out.str(" (");
        out.dec(c.os_frees.get());
        out.str(" by the OS)");
        out.nl();
        out.count(c.leaks.get(), "leak", "leaks");
        out.str(", ");
        out.count(c.leaked_bytes.get(), "byte", "bytes");
        out.nl();
        out.count(c.overruns.get(), "overrun", "overruns");
        out.str(", ");
        out.count(c.double_frees.get(), "double free", "double frees");
        out.nl();
        out.str("flags:");
        if flags == 0 {
            out.str(" none");
        }
        flag_names(flags, |b| HeaderFlags::flag_name(b), out);
        if self.damaged > 0 {
            out.nl();
            out.count(u32::from(self.damaged), "damaged record", "damaged records");
        }
        if self.more > 0 {
            out.nl();
            out.dec(u32::from(self.more));
            out.str(" more findings not listed");
        }
    }

    /// One line for finding `i`: what, its size, its site (the file's name
    /// and line, else the innermost frame's function).
    pub fn item(&self, i: u16, out: &mut Text) {
        out.clear();
        let index = self.record_index(i);
        match self.read(index) {
            Read::Known => {}
            Read::UnknownKind(k) => {
                out.str("Unknown kind 0x");
                out.hex(u32::from(k), 2);
                return;
            }
            Read::UnknownVersion(v) => {
                out.str("Record ");
                out.dec(u32::from(index));
                out.str(": version ");
                out.dec(u32::from(v));
                return;
            }
            Read::Damaged(_) | Read::Missing => {
                out.str("Damaged record ");
                out.dec(u32::from(index));
                return;
            }
        }
        let (alloc, size) = match self.record() {
            Record::Alloc(a) => {
                out.str(alloc_finding(a));
                out.byte(b' ');
                (a, a.size.get())
            }
            Record::InteriorFree(f) => {
                out.str("Interior free ");
                (&f.alloc, f.alloc.size.get())
            }
            Record::Overrun(o) => {
                out.str("Overrun ");
                (&o.alloc, o.alloc.size.get())
            }
            Record::Underrun(u) => {
                out.str("Underrun ");
                (&u.alloc, u.alloc.size.get())
            }
            Record::DoubleFree(d) => {
                out.str("Double free ");
                (&d.alloc, d.alloc.size.get())
            }
            Record::SmallSite(s) => {
                out.str("Small x");
                (&s.first, s.count.get())
            }
            Record::LowHeap(l) => {
                out.str("Low heap ");
                (&l.alloc, l.largest.get())
            }
            Record::Pinned(p) => {
                out.str("Pins heap ");
                (&p.alloc, p.alloc.size.get())
            }
            Record::Locked(l) => {
                out.str("Locked ");
                out.dec(u32::from(l.lock_count));
                out.str("x ");
                (&l.alloc, l.alloc.size.get())
            }
            Record::UnlockUnderflow(u) => {
                out.str("Unlock underflow ");
                (&u.alloc, u.alloc.size.get())
            }
            Record::Header(_)
            | Record::FreeSlot
            | Record::Segment(_)
            | Record::Contents(_)
            | Record::Checkpoint(_) => {
                out.str("Record ");
                out.dec(u32::from(index));
                return;
            }
        };
        out.dec(size);
        out.byte(b' ');
        self.site(alloc, out);
    }

    /// `file:line` of `a` (the file's last path component), else the name of
    /// its innermost frame, else that frame's offset.
    fn site(&self, a: &AllocRecord, out: &mut Text) {
        let file = a.file.bytes();
        if !file.is_empty() {
            let base = match file.iter().rposition(|&b| b == b'/' || b == b'\\') {
                Some(slash) => &file[slash + 1..],
                None => file,
            };
            out.bytes(base);
            out.byte(b':');
            out.dec(u32::from(a.line.get()));
            return;
        }
        match a.stack.frame(0) {
            Some(Frame::Code(at)) => {
                if !self.name(at, out) {
                    out.address(at);
                }
            }
            Some(Frame::Raw(at)) => match self.segment_of(at) {
                Some((i, offset)) => {
                    if !self.segment_name(i, offset, out) {
                        self.segment_place(i, offset, out);
                    }
                }
                None => out.address(at),
            },
            None => out.str("(no site)"),
        }
    }

    /// Finding `i` in full: what it is, the block (size, address, allocation
    /// number, file and line, flags), its call stacks, and for a leak its
    /// first bytes when the ledger holds them ([`Ledger::contents`]).
    pub fn detail(&self, i: u16, out: &mut Text) {
        out.clear();
        let index = self.record_index(i);
        let known = self.read(index);
        let (what, e) = match known {
            Read::Known => ("", None),
            Read::UnknownKind(_) => ("is of a kind this viewer does not know", None),
            Read::UnknownVersion(_) => ("has a format version this viewer does not read", None),
            Read::Damaged(e) => ("is damaged", Some(e)),
            Read::Missing => ("cannot be read", None),
        };
        if !what.is_empty() {
            out.str("Record ");
            out.dec(u32::from(index));
            out.byte(b' ');
            out.str(what);
            out.byte(b'.');
            out.nl();
            if let Some(e) = e {
                out.str(e.what);
                out.str(" at byte ");
                out.dec(e.offset as u32);
                out.nl();
            }
            self.raw_bytes(index, out);
            return;
        }
        let leak = match self.record() {
            Record::Alloc(a) => Some(a.seq.get()),
            _ => None,
        };
        match self.record() {
            Record::Alloc(a) => {
                out.str(alloc_finding(a));
                out.str(": ");
                out.str(kind::name(a.kind));
                out.nl();
                self.block(a, out);
                self.stack("Allocated by:", &a.stack, out);
            }
            Record::Overrun(o) => {
                out.str("Overrun, found ");
                out.str(match o.when.get() {
                    detected::AT_FREE => "at its free",
                    detected::AT_RESIZE => "at a resize",
                    _ => "at stop",
                });
                out.nl();
                out.str("guard:");
                for &b in &o.guard {
                    out.byte(b' ');
                    out.hex(u32::from(b), 2);
                }
                out.nl();
                self.block(&o.alloc, out);
                self.stack("Found by:", &o.site, out);
                self.stack("Allocated by:", &o.alloc.stack, out);
            }
            Record::Underrun(u) => {
                out.str("Underrun, found ");
                out.str(match u.when.get() {
                    detected::AT_FREE => "at its free",
                    detected::AT_RESIZE => "at a resize",
                    _ => "at stop",
                });
                out.nl();
                out.str("header:");
                for &b in &u.header {
                    out.byte(b' ');
                    out.hex(u32::from(b), 2);
                }
                out.str(" (repaired)");
                out.nl();
                self.block(&u.alloc, out);
                self.stack("Found by:", &u.site, out);
                self.stack("Allocated by:", &u.alloc.stack, out);
            }
            Record::DoubleFree(d) => {
                out.str("Double free of ");
                out.address(d.address.get());
                out.nl();
                self.block(&d.alloc, out);
                self.stack("First free by:", &d.first, out);
                self.stack("Second free by:", &d.second, out);
                self.stack("Allocated by:", &d.alloc.stack, out);
            }
            Record::SmallSite(s) => {
                out.count(s.count.get(), "small allocation", "small allocations");
                out.str(", ");
                out.count(s.bytes.get(), "byte", "bytes");
                out.nl();
                self.block(&s.first, out);
                self.stack("First allocated by:", &s.first.stack, out);
            }
            Record::InteriorFree(f) => {
                out.str("Free of ");
                out.address(f.address.get());
                out.str(", ");
                out.dec(f.offset.get());
                out.str(" bytes into the block (not passed to the OS)");
                out.nl();
                self.block(&f.alloc, out);
                self.stack("Freed by:", &f.site, out);
                self.stack("Allocated by:", &f.alloc.stack, out);
            }
            Record::LowHeap(l) => {
                out.str("Low heap: largest free ");
                out.dec(l.largest.get());
                out.nl();
                out.str("(warning below ");
                out.dec(l.threshold.get());
                out.str(", free ");
                out.dec(l.free.get());
                out.byte(b')');
                out.nl();
                self.block(&l.alloc, out);
                self.stack("After the allocation by:", &l.alloc.stack, out);
            }
            Record::Pinned(p) => {
                out.str("Pins the heap: free ");
                out.dec(p.before.get());
                out.str(" before, ");
                out.dec(p.after.get());
                out.str(" after");
                out.nl();
                self.block(&p.alloc, out);
                self.stack("Allocated by:", &p.alloc.stack, out);
            }
            Record::Locked(l) => {
                out.str("Handle locked ");
                out.count(u32::from(l.lock_count), "time", "times");
                out.str(" at stop");
                out.nl();
                self.block(&l.alloc, out);
                self.stack("Allocated by:", &l.alloc.stack, out);
            }
            Record::UnlockUnderflow(u) => {
                out.str("Unlock of ");
                out.address(u.address.get());
                out.str(" while not locked (not passed to the OS)");
                out.nl();
                self.block(&u.alloc, out);
                self.stack("Unlocked by:", &u.site, out);
                self.stack("Allocated by:", &u.alloc.stack, out);
            }
            Record::Header(_)
            | Record::FreeSlot
            | Record::Segment(_)
            | Record::Contents(_)
            | Record::Checkpoint(_) => {}
        }
        if let Some(seq) = leak
            && self.contents(seq, out)
        {
            return;
        }
        out.str("Contents: not recorded");
        out.nl();
        out.byte(b'(');
        if leak.is_none() {
            out.str("only a leak's are");
        } else if self.header.version < record::CONTENTS_FORMAT_VERSION {
            out.str("format version ");
            out.dec(u32::from(self.header.version));
        } else {
            out.str("option CONTENTS off");
        }
        out.byte(b')');
    }

    /// The contents record of the leak of allocation number `seq`, if the
    /// ledger has one, appended to `out` as "Contents (N bytes):" and rows of
    /// [`CONTENTS_ROW`] bytes in hex, then as text (`record::dump_row`);
    /// false when there is none. Decodes into [`Ledger::current`].
    fn contents(&self, seq: u32, out: &mut Text) -> bool {
        for i in 1..self.records {
            let is_contents = self
                .with_record(i, |b| b.first() == Some(&kind::CONTENTS))
                .unwrap_or(false);
            if !is_contents {
                continue;
            }
            if let Read::Known = self.read(i)
                && let Record::Contents(c) = self.record()
                && c.seq.get() == seq
            {
                out.str("Contents (");
                out.count(u32::from(c.count.get()), "byte", "bytes");
                out.str("):");
                for row in c.contents().chunks(CONTENTS_ROW) {
                    out.nl();
                    record::dump_row(row, CONTENTS_ROW, |b| out.byte(b));
                }
                return true;
            }
        }
        false
    }

    /// The block lines of a detail: size and address, allocation number (and
    /// ticks, before format version 5), the generation (when not 0), file, line, flags.
    fn block(&self, a: &AllocRecord, out: &mut Text) {
        out.count(a.size.get(), "byte", "bytes");
        out.str(" at ");
        out.address(a.address.get());
        out.nl();
        out.str("allocation #");
        out.dec(a.seq.get());
        // Format versions 1 to 4 only: later ones read no ticks per allocation.
        if let Some(t) = a.alloc_ticks() {
            out.str(", tick ");
            out.dec(t);
        }
        out.nl();
        // Made after a checkpoint (format version 5 on): its generation.
        if a.generation != 0 {
            out.str("generation ");
            out.dec(u32::from(a.generation));
            out.nl();
        }
        let file = a.file.bytes();
        if file.is_empty() {
            out.str("no file (a Rust allocation)");
        } else {
            out.bytes(file);
            out.nl();
            out.str("line ");
            out.dec(u32::from(a.line.get()));
        }
        out.nl();
        let flags = a.flags.get();
        if flags != 0 {
            out.str("flags:");
            flag_names(u32::from(flags), |b| AllocFlags::flag_name(b as u16), out);
            out.nl();
        }
    }

    /// `title`, then one line per frame of `s`: a code 1 offset, or
    /// `segment N + offset` for a raw address in code resource N ≥ 2 (its
    /// segment record), then its function's name on the next line when the
    /// app's code names it (else why not); another raw address as such.
    fn stack(&self, title: &str, s: &Stack, out: &mut Text) {
        out.str(title);
        out.nl();
        if s.count == 0 {
            out.str(" (no call stack recorded)");
            out.nl();
        }
        for f in s.iter() {
            match f {
                Frame::Code(at) => {
                    out.byte(b' ');
                    out.address(at);
                    out.nl();
                    out.str("  ");
                    if !self.name(at, out) {
                        no_name(self.code.status, out);
                    }
                }
                Frame::Raw(at) => match self.segment_of(at) {
                    Some((i, offset)) => {
                        out.byte(b' ');
                        self.segment_place(i, offset, out);
                        out.nl();
                        out.str("  ");
                        if !self.segment_name(i, offset, out) {
                            no_name(self.segment_status(i), out);
                        }
                    }
                    None => {
                        out.byte(b' ');
                        out.address(at);
                        out.str(" (not code 1)");
                    }
                },
            }
            out.nl();
        }
    }

    /// `segment N + 0x…` (as `memdbg report` writes it) for `offset` in the
    /// code resource of segment record `i`.
    fn segment_place(&self, i: usize, offset: u32, out: &mut Text) {
        out.str("segment ");
        out.dec(u32::from(self.segment_records()[i].resource.get()));
        out.str(" + 0x");
        out.hex(offset, if offset > 0xFFFF { 8 } else { 4 });
    }

    /// The first bytes of record `index` in hex, 8 a line (for a record that
    /// is shown as bytes).
    fn raw_bytes(&self, index: u16, out: &mut Text) {
        self.with_record(index, |b| {
            out.count(b.len() as u32, "byte", "bytes");
            out.byte(b':');
            let shown = b.len().min(24);
            for (n, &x) in b[..shown].iter().enumerate() {
                if n % 8 == 0 {
                    out.nl();
                } else {
                    out.byte(b' ');
                }
                out.hex(u32::from(x), 2);
            }
            out.nl();
        });
    }
}

/// The MacsBug name of the function of `code` (a code resource's bytes)
/// that holds offset `at`, appended to `out` (at most [`NAME_CHARS`]
/// characters; a longer one keeps its end); false when there is none.
fn name_in(code: &[u8], at: u32, out: &mut Text) -> bool {
    let Some(n) = palm_macsbug::function_name(code, at as usize) else {
        return false;
    };
    let (mut from, end) = (n.name_at, n.name_at + n.len);
    if n.len > NAME_CHARS {
        // The end, from a module boundary when there is one.
        out.str("..");
        from = end - (NAME_CHARS - 2);
        let mut dot = from;
        while dot < end && code[dot] & 0x7F != b'.' {
            dot += 1;
        }
        if dot + 1 < end {
            from = dot + 1;
        }
    }
    while from < end {
        out.byte(code[from] & 0x7F);
        from += 1;
    }
    true
}

/// Why a frame of a code resource with `status` has no name.
fn no_name(status: CodeStatus, out: &mut Text) {
    // One string and integer bounds: a `match` giving `&str`s becomes a
    // table of pointers, which code 1 cannot hold (absolute relocations).
    const NOTES: &str = "(no name)(the app changed)(app not found)";
    let (from, to) = match status {
        CodeStatus::Same => (0, 9),
        CodeStatus::Changed => (9, 26),
        CodeStatus::Missing => (26, 41),
    };
    out.str(&NOTES[from..to]);
}

/// Each flag set in `flags` as ` NAME` (`name_of` a bit), or ` 0x…` for a
/// bit this viewer does not know (a flag a later memdbg added).
fn flag_names(flags: u32, name_of: impl Fn(u32) -> Option<&'static str>, out: &mut Text) {
    let mut bit = 1u32;
    while bit != 0 {
        if flags & bit != 0 {
            out.byte(b' ');
            match name_of(bit) {
                Some(name) => out.str(name),
                None => {
                    out.str("0x");
                    out.hex(bit, 1 + (31 - bit.leading_zeros()) / 4);
                }
            }
        }
        bit <<= 1;
    }
}

/// The type and creator of database `id` of card 0 (`DmDatabaseInfo`).
fn type_and_creator(id: palm::LocalID) -> (u32, u32) {
    let (mut db_type, mut creator) = (0u32, 0u32);
    // SAFETY: only the type and creator are asked for, into live locals.
    unsafe {
        palm::DmDatabaseInfo(
            0,
            id,
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            &mut db_type,
            &mut creator,
        )
    };
    (db_type, creator)
}

/// What the viewer says instead of a summary when the ledger cannot be shown.
pub fn problem(p: Problem, out: &mut Text) {
    out.clear();
    match p {
        Problem::NoLedger => out.str(
            "No MemDbgDB on this device.\nRun an app with memdbg first, quit it to the \
             launcher, then open this viewer.",
        ),
        Problem::NotALedger { creator, db_type } => {
            out.str("MemDbgDB here is not a memdbg ledger (creator ");
            out.bytes(&creator.to_be_bytes());
            out.str(", type ");
            out.bytes(&db_type.to_be_bytes());
            out.str("). Left alone.");
        }
        Problem::CannotOpen(err) => {
            out.str("MemDbgDB cannot be opened: error 0x");
            out.hex(u32::from(err), 4);
            out.str(". Is its app still running?");
        }
        Problem::NoHeader => out.str("MemDbgDB has no header record: it is damaged."),
        Problem::NewerFormat(v) => {
            out.str("MemDbgDB is format version ");
            out.dec(u32::from(v));
            out.str(". This viewer reads versions ");
            out.dec(u32::from(OLDEST_FORMAT_VERSION));
            out.str(" to ");
            out.dec(u32::from(FORMAT_VERSION));
            out.str(": install the viewer of that memdbg.");
        }
        Problem::DamagedHeader(e) => {
            out.str("MemDbgDB is damaged: its header record: ");
            out.str(e.what);
            out.str(" (byte ");
            out.dec(e.offset as u32);
            out.str(").");
        }
        Problem::NoMemory => out.str("Not enough memory to show MemDbgDB."),
    }
}

/// A chunk of `n` bytes, zeroed.
///
/// # Errors
/// [`Problem::NoMemory`].
pub fn alloc(n: usize) -> Result<*mut u8, Problem> {
    // SAFETY: MemPtrNew gives n bytes or null; MemSet fills them.
    unsafe {
        let p = palm::MemPtrNew(n as u32).cast::<u8>();
        if p.is_null() {
            return Err(Problem::NoMemory);
        }
        palm::MemSet(p.cast(), n as i32, 0);
        Ok(p)
    }
}

/// What an allocation record at stop is (memdbg::record, AllocFlags): a leak,
/// or not one because its block was freed where memdbg could not see it
/// (FREED_UNSEEN, format version 3 on) or handed to the system (HANDED_OFF,
/// version 4 on).
fn alloc_finding(a: &AllocRecord) -> &'static str {
    let flags = a.alloc_flags();
    if flags.contains(AllocFlags::HANDED_OFF) {
        "Handed off"
    } else if flags.contains(AllocFlags::FREED_UNSEEN) {
        "Freed unseen"
    } else {
        "Leak"
    }
}
