//! Data Manager (`System/DataMgr.h`, PALM_FACTS §4.2) on the storage heap.
//!
//! Each database has a header chunk in the storage heap (its LocalID is that
//! chunk's address, card 0 starting at address 0) holding the 78-byte
//! `DatabaseHdrType` fields; its records and resources are movable chunks of
//! the storage heap (owner 2, records, from `DataPrv.h`, PALM_FACTS §5.1), so
//! their bytes are write-protected from 68k code and change only through
//! DmWrite/DmSet/DmStrCopy. A `DmOpenRef` is a small system chunk in the
//! dynamic heap. The entry lists are kept natively.
#![allow(non_snake_case)]

use palm_prc::{Content, Database as PrcDatabase, FourCC, Header, Record, Resource};

use crate::heap::{CHUNK_HEADER_SIZE, Placement};
use crate::machine::{Call, Machine, Stop, StopKind};
use crate::mem_mgr::{self, Lookup};

/// `dmErrMemError`.
pub const DM_ERR_MEM_ERROR: u32 = 0x0201;
/// `dmErrIndexOutOfRange`.
pub const DM_ERR_INDEX_OUT_OF_RANGE: u32 = 0x0202;
/// `dmErrInvalidParam`.
pub const DM_ERR_INVALID_PARAM: u32 = 0x0203;
/// `dmErrReadOnly`.
pub const DM_ERR_READ_ONLY: u32 = 0x0204;
/// `dmErrDatabaseOpen`.
pub const DM_ERR_DATABASE_OPEN: u32 = 0x0205;
/// `dmErrCantOpen`.
pub const DM_ERR_CANT_OPEN: u32 = 0x0206;
/// `dmErrCantFind`.
pub const DM_ERR_CANT_FIND: u32 = 0x0207;
/// `dmErrNotRecordDB`.
pub const DM_ERR_NOT_RECORD_DB: u32 = 0x020C;
/// `dmErrROMBased`: the database is in ROM (the system resource database).
pub const DM_ERR_ROM_BASED: u32 = 0x020E;
/// `dmErrRecordBusy`.
pub const DM_ERR_RECORD_BUSY: u32 = 0x020F;
/// `dmErrWriteOutOfBounds`.
pub const DM_ERR_WRITE_OUT_OF_BOUNDS: u32 = 0x0214;
/// `dmErrUniqueIDNotFound`.
pub const DM_ERR_UNIQUE_ID_NOT_FOUND: u32 = 0x0218;
/// `dmErrNotValidRecord` (`DataMgr.h`: `dmErrorClass | 19`), what PumpkinOS's
/// DmWrite/DmSet answer for a pointer that is no longer a record's.
pub const DM_ERR_NOT_VALID_RECORD: u32 = 0x0213;
/// `dmErrAlreadyExists`.
pub const DM_ERR_ALREADY_EXISTS: u32 = 0x0219;
/// `dmErrInvalidDatabaseName`.
pub const DM_ERR_INVALID_DATABASE_NAME: u32 = 0x021A;
/// Storage-heap owner of Data Manager structures (`DataPrv.h`).
pub const OWNER_DM_MANAGER: u8 = 1;
/// Storage-heap owner of records and resources (`DataPrv.h`).
pub const OWNER_DM_RECORDS: u8 = 2;
/// `dmModeWrite`.
pub const MODE_WRITE: u16 = 0x0002;
/// Record attribute: delete.
pub const REC_DELETE: u8 = 0x80;
/// Record attribute: dirty.
pub const REC_DIRTY: u8 = 0x40;
/// Record attribute: busy.
pub const REC_BUSY: u8 = 0x20;
/// Header attribute: resource database.
pub const HDR_RES_DB: u16 = 0x0001;
/// Header attribute: read-only (`dmHdrAttrReadOnly`, PALM_FACTS §1.2).
pub const HDR_READ_ONLY: u16 = 0x0002;
/// Header attribute: open (cleared on export, as CloudpilotEmu's exporter does).
pub const HDR_OPEN: u16 = 0x8000;
/// Most records (or resources) a database holds: its header's `numRecords`
/// is a UInt16 (PALM_FACTS §1.1). DmNewRecord, DmAttachRecord (inserting)
/// and DmNewResource fail with `dmErrMemError` beyond it.
pub const MAX_ENTRIES: usize = 0xFFFF;
/// Size of a `DmOpenRef` chunk (our layout: LocalID u32, mode u16, pad).
const OPEN_REF_SIZE: u32 = 8;
/// Size of a database header chunk (`DatabaseHdrType` up to the record list).
const HEADER_CHUNK_SIZE: u32 = 78;

/// A record entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecEntry {
    /// Attribute byte (delete/dirty/busy/secret, category).
    pub attributes: u8,
    /// 24-bit unique ID.
    pub unique_id: u32,
    /// Handle of the record chunk (0 for a deleted record without data).
    pub handle: u32,
}

/// A resource entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResEntry {
    /// Resource type.
    pub kind: u32,
    /// Resource ID.
    pub id: u16,
    /// Handle of the resource chunk.
    pub handle: u32,
}

/// A database in storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Db {
    /// LocalID (address of the header chunk).
    pub id: u32,
    /// Header fields (name, attributes, dates, type, creator, seed).
    pub header: Header,
    /// AppInfo chunk handle (0 = none).
    pub app_info: u32,
    /// SortInfo chunk handle (0 = none).
    pub sort_info: u32,
    /// Records (record DB) — empty for resource DBs.
    pub records: Vec<RecEntry>,
    /// Resources (resource DB) — empty for record DBs.
    pub resources: Vec<ResEntry>,
}

impl Db {
    /// Whether this is a resource database.
    pub fn is_res_db(&self) -> bool {
        self.header.attributes & HDR_RES_DB != 0
    }

    /// A copy without the entry lists (what the header chunk holds).
    fn meta(&self) -> Db {
        Db {
            id: self.id,
            header: self.header.clone(),
            app_info: self.app_info,
            sort_info: self.sort_info,
            records: Vec::new(),
            resources: Vec::new(),
        }
    }
}

/// An open database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenDb {
    /// The `DmOpenRef` (68k address of its chunk).
    pub dbp: u32,
    /// LocalID of the database.
    pub db: u32,
    /// Open mode.
    pub mode: u16,
    /// Owner ID of the opener (0 = the OS).
    pub opener: u8,
}

/// Data Manager state.
#[derive(Debug, Clone, Default)]
pub struct DataMgr {
    /// All databases, in creation order.
    pub dbs: Vec<Db>,
    /// Open databases, oldest first.
    pub open: Vec<OpenDb>,
    /// `DmGetLastErr`.
    pub last_err: u16,
    /// With [`Machine::release_frees_records`]: the old body address of each
    /// buffer DmReleaseRecord/DmReleaseResource freed, and which entry it was
    /// (database name, record or resource), for the reports of a later use.
    pub released: std::collections::BTreeMap<u32, String>,
    /// LocalID of the system resource database ([`install_system`]; 0 before).
    pub system: u32,
}

impl DataMgr {
    /// The database with LocalID `id`.
    pub fn db(&self, id: u32) -> Option<&Db> {
        self.dbs.iter().find(|d| d.id == id)
    }
    fn db_mut(&mut self, id: u32) -> Option<&mut Db> {
        self.dbs.iter_mut().find(|d| d.id == id)
    }
    /// The database named `name`.
    pub fn find(&self, name: &[u8]) -> Option<&Db> {
        self.dbs.iter().find(|d| d.header.name == name)
    }
    fn open_of(&self, dbp: u32) -> Option<&OpenDb> {
        self.open.iter().find(|o| o.dbp == dbp)
    }
}

fn heap_err(m: &Machine, call: &Call, e: crate::heap::HeapError) -> Stop {
    m.stop_in(
        call,
        StopKind::DebugCheck(format!("{}: {e}", call.info.name)),
    )
}

/// Allocate a storage chunk holding `data`; returns the handle (0 if full).
fn new_storage_handle(m: &mut Machine, call: &Call, data: &[u8]) -> Result<u32, Stop> {
    let heap = m.os.mem.storage;
    let h = mem_mgr::allocate(
        m,
        call,
        heap,
        data.len() as u32,
        OWNER_DM_RECORDS,
        true,
        Placement::Start,
    )?;
    if h != 0 {
        let body = m.mem.read_u32(h).map_err(|f| m.fault_in(call, f))?;
        m.mem
            .os_write_bytes(body, data)
            .map_err(|f| m.fault_in(call, f))?;
    }
    Ok(h)
}

fn free_handle(m: &mut Machine, call: &Call, h: u32) -> Result<(), Stop> {
    if h == 0 {
        return Ok(());
    }
    if let Lookup::Chunk(heap, c) = mem_mgr::lookup_handle(m, call, h)? {
        mem_mgr::free(m, call, heap, c)?;
    }
    Ok(())
}

/// Size of the chunk of handle `h` (its requested size).
pub fn handle_size(m: &Machine, h: u32) -> Option<u32> {
    let body = m.mem.read_u32(h).ok()?;
    let heap = m.os.mem.heap_of(body)?;
    let c = heap.chunk_at_body(&m.mem, body).ok()??;
    Some(c.header.data_size())
}

/// Bytes of the chunk of handle `h`.
pub fn handle_bytes(m: &Machine, h: u32) -> Option<Vec<u8>> {
    let body = m.mem.read_u32(h).ok()?;
    let heap = m.os.mem.heap_of(body)?;
    let c = heap.chunk_at_body(&m.mem, body).ok()??;
    m.mem.read_bytes(body, c.header.data_size()).ok()
}

fn write_header_chunk(m: &mut Machine, db: &Db) {
    let mut b = vec![0u8; HEADER_CHUNK_SIZE as usize];
    b[..db.header.name.len().min(31)]
        .copy_from_slice(&db.header.name[..db.header.name.len().min(31)]);
    let h = &db.header;
    b[0x20..0x22].copy_from_slice(&h.attributes.to_be_bytes());
    b[0x22..0x24].copy_from_slice(&h.version.to_be_bytes());
    b[0x24..0x28].copy_from_slice(&h.creation_date.to_be_bytes());
    b[0x28..0x2C].copy_from_slice(&h.modification_date.to_be_bytes());
    b[0x2C..0x30].copy_from_slice(&h.last_backup_date.to_be_bytes());
    b[0x30..0x34].copy_from_slice(&h.modification_number.to_be_bytes());
    b[0x34..0x38]
        .copy_from_slice(&(if db.app_info != 0 { db.app_info | 1 } else { 0 }).to_be_bytes());
    b[0x38..0x3C].copy_from_slice(
        &(if db.sort_info != 0 {
            db.sort_info | 1
        } else {
            0
        })
        .to_be_bytes(),
    );
    b[0x3C..0x40].copy_from_slice(&h.kind.0);
    b[0x40..0x44].copy_from_slice(&h.creator.0);
    b[0x44..0x48].copy_from_slice(&h.unique_id_seed.to_be_bytes());
    let _ = m.mem.os_write_bytes(db.id, &b);
}

fn create(m: &mut Machine, call: &Call, header: Header) -> Result<Result<u32, u32>, Stop> {
    if header.name.is_empty() || header.name.len() > 31 {
        return Ok(Err(DM_ERR_INVALID_DATABASE_NAME));
    }
    if m.os.dm.find(&header.name).is_some() {
        return Ok(Err(DM_ERR_ALREADY_EXISTS));
    }
    let heap = m.os.mem.storage;
    let id = mem_mgr::allocate(
        m,
        call,
        heap,
        HEADER_CHUNK_SIZE,
        OWNER_DM_MANAGER,
        false,
        Placement::Start,
    )?;
    if id == 0 {
        return Ok(Err(DM_ERR_MEM_ERROR));
    }
    let db = Db {
        id,
        header,
        app_info: 0,
        sort_info: 0,
        records: Vec::new(),
        resources: Vec::new(),
    };
    write_header_chunk(m, &db);
    m.os.dm.dbs.push(db);
    Ok(Ok(id))
}

/// A database name (raw bytes, the Palm character set) as text: Windows-1252,
/// as `palm_rcp::charset` decodes it, with the five codes Windows-1252
/// leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) read as Latin-1, so that
/// no byte is lost. Databases are looked up by their bytes
/// ([`DataMgr::find`]), never by this text.
pub fn name_text(name: &[u8]) -> String {
    // decode gives one character per byte.
    palm_rcp::charset::decode(name)
        .chars()
        .zip(name)
        .map(|(c, &b)| if c == '\u{FFFD}' { char::from(b) } else { c })
        .collect()
}

/// A database name as messages quote it: [`name_text`], with control
/// characters, `\` and `"` escaped ([`crate::script::shown`]).
pub fn shown_name(name: &[u8]) -> String {
    crate::script::shown(&name_text(name))
}

/// Install a parsed .prc/.pdb into storage, as HotSync or an emulator's
/// install does. Returns the LocalID, or an error message naming the problem.
pub fn install(m: &mut Machine, file: &PrcDatabase) -> Result<u32, String> {
    check_entries(file)?;
    let call = internal_call(0xA041);
    let mut header = file.header.clone();
    header.attributes &= !HDR_OPEN;
    let name = shown_name(&header.name);
    let id = match create(m, &call, header).map_err(|s| s.kind.to_string())? {
        Ok(id) => id,
        Err(DM_ERR_ALREADY_EXISTS) => {
            return Err(format!("database \"{name}\" is already installed"));
        }
        Err(_) => {
            return Err(format!(
                "database \"{name}\" cannot be created (bad name or storage full)"
            ));
        }
    };
    let full = || format!("storage heap full while installing \"{name}\"");
    let add = |m: &mut Machine, data: &[u8]| -> Result<u32, String> {
        match new_storage_handle(m, &call, data) {
            Ok(0) | Err(_) => Err(full()),
            Ok(h) => Ok(h),
        }
    };
    let app_info = file
        .app_info
        .as_ref()
        .map(|d| add(m, d))
        .transpose()?
        .unwrap_or(0);
    let sort_info = file
        .sort_info
        .as_ref()
        .map(|d| add(m, d))
        .transpose()?
        .unwrap_or(0);
    let mut records = Vec::new();
    let mut resources = Vec::new();
    match &file.content {
        Content::Resources(rs) => {
            for r in rs {
                resources.push(ResEntry {
                    kind: u32::from_be_bytes(r.kind.0),
                    id: r.id,
                    handle: add(m, &r.data)?,
                });
            }
        }
        Content::Records(rs) => {
            for r in rs {
                records.push(RecEntry {
                    attributes: r.attributes & !(REC_BUSY),
                    unique_id: r.unique_id & 0xFF_FFFF,
                    handle: add(m, &r.data)?,
                });
            }
        }
    }
    let db = m.os.dm.db_mut(id).expect("just created");
    db.app_info = app_info;
    db.sort_info = sort_info;
    db.records = records;
    db.resources = resources;
    let db = db.clone();
    write_header_chunk(m, &db);
    Ok(id)
}

/// The name of the system resource database ([`install_system`]).
pub const SYSTEM_DB_NAME: &[u8] = b"System";

/// Creates the system resource database, "System" (type `'rsrc'`, creator
/// `'psys'`, read-only, as a ROM's): the resources a ROM has that apps use by
/// ID, compiled from `system.rcp` (the generic alerts of Palm OS 3.2 and later,
/// ErrOKAlert 10021 … WarningOKCancelAlert 10032, sdk-3.5 `UIResources.h`).
/// DmGetResource finds them after the open databases' own ([`find_resource`]);
/// DmDeleteDatabase refuses it (`dmErrROMBased`) and DmReleaseResource never
/// frees its resources. [`crate::Machine::new`] calls it.
///
/// Errors: the storage heap has no room for it (a message naming it).
pub fn install_system(m: &mut Machine) -> Result<(), String> {
    let resources = palm_rcp::compile_str(
        include_str!("system.rcp"),
        std::path::Path::new("system.rcp"),
        &palm_rcp::NoIncludes,
    )
    .map_err(|e| format!("palm-run's system.rcp: {e}"))?
    .into_iter()
    .map(|r| Resource {
        kind: FourCC(r.kind),
        id: r.id,
        data: r.data,
    })
    .collect();
    let mut header = Header::new(SYSTEM_DB_NAME, FourCC(*b"rsrc"), FourCC(*b"psys"));
    header.attributes = HDR_RES_DB | HDR_READ_ONLY;
    let db = PrcDatabase {
        header,
        app_info: None,
        sort_info: None,
        content: Content::Resources(resources),
    };
    m.os.dm.system = install(m, &db)?;
    Ok(())
}

/// What a device could not store: an entry larger than a chunk holds
/// (`memMaxChunkAllocSize`, PALM_FACTS §5.1), two resources with the same
/// type and ID, more entries than `numRecords` counts.
fn check_entries(file: &PrcDatabase) -> Result<(), String> {
    let max = crate::heap::MAX_CHUNK_ALLOC_SIZE as usize;
    let size = |what: &dyn Fn() -> String, len: usize| {
        if len > max {
            Err(format!(
                "{}: {len} bytes, more than the {max} bytes a chunk holds (memMaxChunkAllocSize)",
                what()
            ))
        } else {
            Ok(())
        }
    };
    if let Some(d) = &file.app_info {
        size(&|| "AppInfo block".into(), d.len())?;
    }
    if let Some(d) = &file.sort_info {
        size(&|| "SortInfo block".into(), d.len())?;
    }
    let fourcc = |k: [u8; 4]| String::from_utf8_lossy(&k).into_owned();
    match &file.content {
        Content::Resources(rs) => {
            if rs.len() > MAX_ENTRIES {
                return Err(format!("{} resources, more than {MAX_ENTRIES}", rs.len()));
            }
            let mut seen = std::collections::BTreeSet::new();
            for r in rs {
                let name = || format!("{} {}", fourcc(r.kind.0), r.id);
                size(&name, r.data.len())?;
                if !seen.insert((r.kind.0, r.id)) {
                    return Err(format!("duplicate resource {}", name()));
                }
            }
        }
        Content::Records(rs) => {
            if rs.len() > MAX_ENTRIES {
                return Err(format!("{} records, more than {MAX_ENTRIES}", rs.len()));
            }
            for (i, r) in rs.iter().enumerate() {
                size(&|| format!("record {i}"), r.data.len())?;
            }
        }
    }
    Ok(())
}

/// The database named `name` as a .prc/.pdb model (for `--export`): the
/// header (open bit cleared, as CloudpilotEmu's exporter does), AppInfo,
/// SortInfo and the entries' bytes read from storage.
pub fn export(m: &Machine, name: &[u8]) -> Option<PrcDatabase> {
    let db = m.os.dm.find(name)?;
    let mut header = db.header.clone();
    header.attributes &= !HDR_OPEN;
    let blob = |h: u32| if h == 0 { None } else { handle_bytes(m, h) };
    let content = if db.is_res_db() {
        Content::Resources(
            db.resources
                .iter()
                .map(|r| Resource {
                    kind: FourCC(r.kind.to_be_bytes()),
                    id: r.id,
                    data: handle_bytes(m, r.handle).unwrap_or_default(),
                })
                .collect(),
        )
    } else {
        Content::Records(
            db.records
                .iter()
                .map(|r| Record {
                    attributes: r.attributes & !REC_BUSY,
                    unique_id: r.unique_id,
                    data: blob(r.handle).unwrap_or_default(),
                })
                .collect(),
        )
    };
    Some(PrcDatabase {
        header,
        app_info: blob(db.app_info),
        sort_info: blob(db.sort_info),
        content,
    })
}

/// A call record for OS-internal use of the Data Manager (install, launch).
pub fn internal_call(trap: u16) -> Call {
    Call {
        trap,
        info: crate::table::trap_info(trap).expect("trap in table"),
        args: Vec::new(),
        app_args: Vec::new(),
        args_at: 0,
        caller: 0,
    }
}

fn set_err(m: &mut Machine, e: u32) -> u32 {
    m.os.dm.last_err = e as u16;
    e
}

fn name_arg(m: &Machine, call: &Call, p: u32) -> Result<Vec<u8>, Stop> {
    m.mem.read_cstr(p, 64).map_err(|f| m.fault_in(call, f))
}

/// `Err DmCreateDatabase(UInt16 cardNo, const Char *nameP, UInt32 creator,
/// UInt32 type, Boolean resDB)`.
pub fn DmCreateDatabase(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let name = name_arg(m, call, call.u32(1))?;
    let mut h = Header::new(
        name,
        FourCC(call.u32(3).to_be_bytes()),
        FourCC(call.u32(2).to_be_bytes()),
    );
    if call.u8(4) != 0 {
        h.attributes |= HDR_RES_DB;
    }
    h.creation_date = crate::sys::TimGetSeconds(m, call)?;
    h.modification_date = h.creation_date;
    match create(m, call, h)? {
        Ok(_) => Ok(0),
        Err(e) => Ok(set_err(m, e)),
    }
}

/// Free a database's chunks and forget it.
fn delete(m: &mut Machine, call: &Call, id: u32) -> Result<(), Stop> {
    let Some(db) = m.os.dm.db(id).cloned() else {
        return Ok(());
    };
    for h in db
        .records
        .iter()
        .map(|r| r.handle)
        .chain(db.resources.iter().map(|r| r.handle))
        .chain([db.app_info, db.sort_info])
    {
        free_handle(m, call, h)?;
    }
    if let Lookup::Chunk(heap, c) = mem_mgr::lookup_ptr(m, call, id)? {
        mem_mgr::free(m, call, heap, c)?;
    }
    m.os.dm.dbs.retain(|d| d.id != id);
    Ok(())
}

/// `Err DmDeleteDatabase(UInt16 cardNo, LocalID dbID)`.
pub fn DmDeleteDatabase(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let id = call.u32(1);
    if m.os.dm.db(id).is_none() {
        return Ok(set_err(m, DM_ERR_CANT_FIND));
    }
    if m.os.dm.open.iter().any(|o| o.db == id) {
        return Ok(set_err(m, DM_ERR_DATABASE_OPEN));
    }
    if id == m.os.dm.system {
        return Ok(set_err(m, DM_ERR_ROM_BASED));
    }
    delete(m, call, id)?;
    Ok(0)
}

/// `LocalID DmFindDatabase(UInt16 cardNo, const Char *nameP)`: 0 if not found.
pub fn DmFindDatabase(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let name = name_arg(m, call, call.u32(1))?;
    match m.os.dm.find(&name) {
        Some(d) => Ok(d.id),
        None => {
            set_err(m, DM_ERR_CANT_FIND);
            Ok(0)
        }
    }
}

/// Open database `id` with `mode` on behalf of owner `opener`; returns the DmOpenRef.
pub fn open(m: &mut Machine, call: &Call, id: u32, mode: u16, opener: u8) -> Result<u32, Stop> {
    if m.os.dm.db(id).is_none() {
        set_err(m, DM_ERR_CANT_FIND);
        return Ok(0);
    }
    let heap = m.os.mem.dynamic;
    let dbp = mem_mgr::allocate(m, call, heap, OPEN_REF_SIZE, 0, false, Placement::Start)?;
    if dbp == 0 {
        set_err(m, DM_ERR_MEM_ERROR);
        return Ok(0);
    }
    m.mem
        .os_write_u32(dbp, id)
        .and_then(|_| m.mem.os_write_u16(dbp + 4, mode))
        .map_err(|f| m.fault_in(call, f))?;
    m.os.dm.open.push(OpenDb {
        dbp,
        db: id,
        mode,
        opener,
    });
    if let Some(db) = m.os.dm.db_mut(id) {
        db.header.attributes |= HDR_OPEN;
    }
    Ok(dbp)
}

/// `DmOpenRef DmOpenDatabase(UInt16 cardNo, LocalID dbID, UInt16 mode)`.
pub fn DmOpenDatabase(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let o = m.os.sys.cur_owner;
    open(m, call, call.u32(1), call.u16(2), o)
}

/// `DmOpenRef DmOpenDatabaseByTypeCreator(UInt32 type, UInt32 creator, UInt16 mode)`.
pub fn DmOpenDatabaseByTypeCreator(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (t, c) = (call.u32(0).to_be_bytes(), call.u32(1).to_be_bytes());
    let found =
        m.os.dm
            .dbs
            .iter()
            .rev()
            .find(|d| d.header.kind.0 == t && d.header.creator.0 == c)
            .map(|d| d.id);
    match found {
        Some(id) => {
            let o = m.os.sys.cur_owner;
            open(m, call, id, call.u16(2), o)
        }
        None => {
            set_err(m, DM_ERR_CANT_FIND);
            Ok(0)
        }
    }
}

/// Close an open database (frees its DmOpenRef chunk).
pub fn close(m: &mut Machine, call: &Call, dbp: u32) -> Result<bool, Stop> {
    let Some(pos) = m.os.dm.open.iter().position(|o| o.dbp == dbp) else {
        return Ok(false);
    };
    let o = m.os.dm.open.remove(pos);
    if !m.os.dm.open.iter().any(|x| x.db == o.db)
        && let Some(db) = m.os.dm.db_mut(o.db)
    {
        db.header.attributes &= !HDR_OPEN;
        for r in &mut db.records {
            r.attributes &= !REC_BUSY;
        }
    }
    if let Lookup::Chunk(heap, c) = mem_mgr::lookup_ptr(m, call, dbp)? {
        mem_mgr::free(m, call, heap, c)?;
    }
    Ok(true)
}

/// `Err DmCloseDatabase(DmOpenRef dbP)`.
pub fn DmCloseDatabase(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    if close(m, call, call.u32(0))? {
        Ok(0)
    } else {
        Ok(set_err(m, DM_ERR_INVALID_PARAM))
    }
}

/// `DmOpenRef DmNextOpenDatabase(DmOpenRef currentP)`: most recent first.
pub fn DmNextOpenDatabase(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let cur = call.u32(0);
    let list: Vec<u32> = m.os.dm.open.iter().rev().map(|o| o.dbp).collect();
    if cur == 0 {
        return Ok(list.first().copied().unwrap_or(0));
    }
    let i = list.iter().position(|&x| x == cur);
    Ok(i.and_then(|i| list.get(i + 1)).copied().unwrap_or(0))
}

/// `Err DmOpenDatabaseInfo(DmOpenRef, LocalID*, UInt16 *openCount, UInt16
/// *mode, UInt16 *cardNo, Boolean *resDB)`.
pub fn DmOpenDatabaseInfo(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let Some(o) = m.os.dm.open_of(call.u32(0)).cloned() else {
        return Ok(set_err(m, DM_ERR_INVALID_PARAM));
    };
    let count = m.os.dm.open.iter().filter(|x| x.db == o.db).count() as u16;
    let res = m.os.dm.db(o.db).is_some_and(Db::is_res_db);
    let w =
        |m: &mut Machine,
         p: u32,
         f: &dyn Fn(&mut crate::memory::Memory, u32) -> Result<(), crate::memory::Fault>| {
            if p != 0 {
                f(&mut m.mem, p).map_err(|e| m.fault_in(call, e))
            } else {
                Ok(())
            }
        };
    w(m, call.u32(1), &|mem, p| mem.write_u32(p, o.db))?;
    w(m, call.u32(2), &|mem, p| mem.write_u16(p, count))?;
    w(m, call.u32(3), &|mem, p| mem.write_u16(p, o.mode))?;
    w(m, call.u32(4), &|mem, p| mem.write_u16(p, 0))?;
    w(m, call.u32(5), &|mem, p| mem.write_u8(p, u8::from(res)))?;
    Ok(0)
}

/// `Err DmGetLastErr(void)`.
pub fn DmGetLastErr(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(u32::from(m.os.dm.last_err))
}

/// `Err DmDatabaseInfo(UInt16 cardNo, LocalID dbID, Char *nameP, …, UInt32
/// *creatorP)`: each non-NULL pointer gets its field.
pub fn DmDatabaseInfo(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let Some(db) = m.os.dm.db(call.u32(1)).map(Db::meta) else {
        return Ok(set_err(m, DM_ERR_CANT_FIND));
    };
    let h = &db.header;
    let mut name = h.name.clone();
    name.push(0);
    let app = if db.app_info != 0 {
        crate::handles::local_id_to_app(m, call, db.app_info)?
    } else {
        0
    };
    let sort = if db.sort_info != 0 {
        crate::handles::local_id_to_app(m, call, db.sort_info)?
    } else {
        0
    };
    let fields: [(usize, Vec<u8>); 11] = [
        (2, name),
        (3, h.attributes.to_be_bytes().to_vec()),
        (4, h.version.to_be_bytes().to_vec()),
        (5, h.creation_date.to_be_bytes().to_vec()),
        (6, h.modification_date.to_be_bytes().to_vec()),
        (7, h.last_backup_date.to_be_bytes().to_vec()),
        (8, h.modification_number.to_be_bytes().to_vec()),
        (9, app.to_be_bytes().to_vec()),
        (10, sort.to_be_bytes().to_vec()),
        (11, h.kind.0.to_vec()),
        (12, h.creator.0.to_vec()),
    ];
    for (i, bytes) in fields {
        let p = call.u32(i);
        if p != 0 {
            m.mem
                .write_bytes(p, &bytes)
                .map_err(|f| m.fault_in(call, f))?;
        }
    }
    Ok(0)
}

/// `Err DmSetDatabaseInfo(UInt16 cardNo, LocalID dbID, Char *nameP, …)`:
/// each non-NULL pointer supplies a new value (the app info / sort info IDs
/// are not changed here).
pub fn DmSetDatabaseInfo(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let id = call.u32(1);
    let Some(mut db) = m.os.dm.db(id).map(Db::meta) else {
        return Ok(set_err(m, DM_ERR_CANT_FIND));
    };
    let rd16 = |m: &Machine, i: usize| -> Result<Option<u16>, Stop> {
        let p = call.u32(i);
        if p == 0 {
            return Ok(None);
        }
        m.mem.read_u16(p).map(Some).map_err(|f| m.fault_in(call, f))
    };
    let rd32 = |m: &Machine, i: usize| -> Result<Option<u32>, Stop> {
        let p = call.u32(i);
        if p == 0 {
            return Ok(None);
        }
        m.mem.read_u32(p).map(Some).map_err(|f| m.fault_in(call, f))
    };
    if call.u32(2) != 0 {
        let name = name_arg(m, call, call.u32(2))?;
        if name.is_empty() || name.len() > 31 {
            return Ok(set_err(m, DM_ERR_INVALID_DATABASE_NAME));
        }
        if m.os
            .dm
            .dbs
            .iter()
            .any(|d| d.id != id && d.header.name == name)
        {
            return Ok(set_err(m, DM_ERR_ALREADY_EXISTS));
        }
        db.header.name = name;
    }
    let h = &mut db.header;
    if let Some(v) = rd16(m, 3)? {
        h.attributes = (v & !HDR_OPEN) | (h.attributes & HDR_OPEN);
    }
    if let Some(v) = rd16(m, 4)? {
        h.version = v;
    }
    if let Some(v) = rd32(m, 5)? {
        h.creation_date = v;
    }
    if let Some(v) = rd32(m, 6)? {
        h.modification_date = v;
    }
    if let Some(v) = rd32(m, 7)? {
        h.last_backup_date = v;
    }
    if let Some(v) = rd32(m, 8)? {
        h.modification_number = v;
    }
    if let Some(v) = rd32(m, 11)? {
        h.kind = FourCC(v.to_be_bytes());
    }
    if let Some(v) = rd32(m, 12)? {
        h.creator = FourCC(v.to_be_bytes());
    }
    write_header_chunk(m, &db);
    m.os.dm.db_mut(id).expect("exists").header = db.header;
    Ok(0)
}

/// The open database behind `dbp` and its LocalID, or the error code.
fn open_records(m: &Machine, dbp: u32) -> Result<(OpenDb, u32), u32> {
    let o = m.os.dm.open_of(dbp).cloned().ok_or(DM_ERR_INVALID_PARAM)?;
    if m.os.dm.db(o.db).is_none() {
        return Err(DM_ERR_INVALID_PARAM);
    }
    let id = o.db;
    Ok((o, id))
}

/// The database `id` (one that [`open_records`] found).
fn dbr(m: &Machine, id: u32) -> &Db {
    m.os.dm.db(id).expect("an open database exists")
}

macro_rules! open_db {
    ($m:expr, $call:expr, $fail:expr) => {
        match open_records($m, $call.u32(0)) {
            Ok(x) => x,
            Err(e) => {
                set_err($m, e);
                return Ok($fail(e));
            }
        }
    };
}

fn bump_mod(m: &mut Machine, id: u32) {
    if let Some(db) = m.os.dm.db_mut(id) {
        db.header.modification_number = db.header.modification_number.wrapping_add(1);
    }
}

/// `MemHandle DmNewRecord(DmOpenRef dbP, UInt16 *atP, UInt32 size)`: a new
/// busy, dirty record at `*atP` (clamped to the end; the index used is
/// written back).
pub fn DmNewRecord(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (o, id) = open_db!(m, call, |_| 0);
    if dbr(m, id).is_res_db() {
        set_err(m, DM_ERR_NOT_RECORD_DB);
        return Ok(0);
    }
    if o.mode & MODE_WRITE == 0 {
        set_err(m, DM_ERR_READ_ONLY);
        return Ok(0);
    }
    let at_p = call.u32(1);
    let at = m.mem.read_u16(at_p).map_err(|f| m.fault_in(call, f))?;
    let size = call.u32(2);
    if size == 0 {
        set_err(m, DM_ERR_INVALID_PARAM);
        return Ok(0);
    }
    if dbr(m, id).records.len() >= MAX_ENTRIES {
        set_err(m, DM_ERR_MEM_ERROR);
        return Ok(0);
    }
    let heap = m.os.mem.storage;
    let h = mem_mgr::allocate(
        m,
        call,
        heap,
        size,
        OWNER_DM_RECORDS,
        true,
        Placement::Start,
    )?;
    if h == 0 {
        set_err(m, DM_ERR_MEM_ERROR);
        return Ok(0);
    }
    let dbm = m.os.dm.db_mut(id).expect("open db exists");
    let idx = usize::from(at).min(dbm.records.len());
    dbm.header.unique_id_seed = (dbm.header.unique_id_seed + 1) & 0xFF_FFFF;
    let uid = dbm.header.unique_id_seed;
    dbm.records.insert(
        idx,
        RecEntry {
            attributes: REC_BUSY | REC_DIRTY,
            unique_id: uid,
            handle: h,
        },
    );
    bump_mod(m, id);
    m.mem
        .write_u16(at_p, idx as u16)
        .map_err(|f| m.fault_in(call, f))?;
    Ok(h)
}

fn record_index(m: &mut Machine, id: u32, index: u16) -> Result<usize, u32> {
    let i = usize::from(index);
    if i >= dbr(m, id).records.len() {
        set_err(m, DM_ERR_INDEX_OUT_OF_RANGE);
        return Err(DM_ERR_INDEX_OUT_OF_RANGE);
    }
    Ok(i)
}

/// `Err DmReleaseRecord(DmOpenRef dbP, UInt16 index, Boolean dirty)`: the
/// busy bit is cleared, the dirty bit set if `dirty`. The Palm OS Reference
/// (Data and Resource Manager): call it "when you finish modifying or
/// reading a record that you've called DmGetRecord on or created using
/// DmNewRecord". With [`Machine::release_frees_records`] the record's
/// buffer is freed as PumpkinOS frees it (`storage.c` DmReleaseRecord writes
/// the record to its file and frees `h->buf` whatever its lock count): the
/// chunk moves to a new body with lock count 0, the old body is zeroed and
/// freed, so a pointer kept from before points at freed memory and a DmWrite
/// through it is reported ([`DmWrite`]). With [`Machine::strict_record_writes`]
/// the release of a record that is not busy is a debug-ROM report (PumpkinOS
/// logs it as "useCount < 0").
pub fn DmReleaseRecord(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |e| e);
    let i = match record_index(m, id, call.u16(1)) {
        Ok(i) => i,
        Err(e) => return Ok(e),
    };
    if m.strict_record_writes && dbr(m, id).records[i].attributes & REC_BUSY == 0 {
        let what = format!(
            "record {i} of \"{}\" is not busy: DmReleaseRecord without DmGetRecord or \
             DmNewRecord (--strict-record-writes)",
            shown_name(&dbr(m, id).header.name)
        );
        // Then released all the same (errNone), as PumpkinOS does.
        mem_mgr::invalid(m, call, &what, 0)?;
    }
    let r = &mut m.os.dm.db_mut(id).expect("exists").records[i];
    r.attributes &= !REC_BUSY;
    if call.u8(2) != 0 {
        r.attributes |= REC_DIRTY;
    }
    let h = r.handle;
    if m.release_frees_records && h != 0 {
        let what = format!("record {i} of \"{}\"", shown_name(&dbr(m, id).header.name));
        free_buffer(m, call, h, what, false)?;
    }
    Ok(0)
}

/// Free the buffer of the record or resource of handle `h` as PumpkinOS does
/// at release ([`crate::heap::Heap::relocate`]); a locked one stays when
/// `unless_locked` (PumpkinOS's DmReleaseResource keeps a locked resource).
/// `what` names the entry in later reports.
fn free_buffer(
    m: &mut Machine,
    call: &Call,
    h: u32,
    what: String,
    unless_locked: bool,
) -> Result<(), Stop> {
    let Lookup::Chunk(heap, c) = mem_mgr::lookup_handle(m, call, h)? else {
        return Ok(());
    };
    if unless_locked && c.header.lock_count != 0 {
        return Ok(());
    }
    match heap.relocate(&mut m.mem, c) {
        Ok(n) => {
            m.os.dm.released.remove(&n.body());
            m.os.dm.released.insert(c.body(), what);
            Ok(())
        }
        // No room for the new buffer: the old one stays (nothing is lost).
        Err(crate::heap::HeapError::NotEnoughSpace) => Ok(()),
        Err(e) => Err(heap_err(m, call, e)),
    }
}

/// `Err DmRemoveRecord(DmOpenRef dbP, UInt16 index)`: frees the chunk and the entry.
pub fn DmRemoveRecord(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (o, id) = open_db!(m, call, |e| e);
    if o.mode & MODE_WRITE == 0 {
        return Ok(set_err(m, DM_ERR_READ_ONLY));
    }
    let i = match record_index(m, id, call.u16(1)) {
        Ok(i) => i,
        Err(e) => return Ok(e),
    };
    free_handle(m, call, dbr(m, id).records[i].handle)?;
    m.os.dm.db_mut(id).expect("exists").records.remove(i);
    bump_mod(m, id);
    Ok(0)
}

/// `Err DmDeleteRecord(DmOpenRef dbP, UInt16 index)`: frees the chunk, keeps
/// the entry with the delete bit.
pub fn DmDeleteRecord(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (o, id) = open_db!(m, call, |e| e);
    if o.mode & MODE_WRITE == 0 {
        return Ok(set_err(m, DM_ERR_READ_ONLY));
    }
    let i = match record_index(m, id, call.u16(1)) {
        Ok(i) => i,
        Err(e) => return Ok(e),
    };
    free_handle(m, call, dbr(m, id).records[i].handle)?;
    let r = &mut m.os.dm.db_mut(id).expect("exists").records[i];
    r.handle = 0;
    r.attributes = (r.attributes | REC_DELETE | REC_DIRTY) & !REC_BUSY;
    bump_mod(m, id);
    Ok(0)
}

/// `UInt16 DmNumRecords(DmOpenRef dbP)`.
pub fn DmNumRecords(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |_| 0);
    Ok(dbr(m, id).records.len() as u32)
}

/// `UInt16 DmNumResources(DmOpenRef dbP)`.
pub fn DmNumResources(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |_| 0);
    Ok(dbr(m, id).resources.len() as u32)
}

/// `MemHandle DmGetRecord(DmOpenRef dbP, UInt16 index)`: marks it busy.
pub fn DmGetRecord(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (o, id) = open_db!(m, call, |_| 0);
    if o.mode & MODE_WRITE == 0 {
        set_err(m, DM_ERR_READ_ONLY);
        return Ok(0);
    }
    let Ok(i) = record_index(m, id, call.u16(1)) else {
        return Ok(0);
    };
    let r = &mut m.os.dm.db_mut(id).expect("exists").records[i];
    if r.attributes & REC_BUSY != 0 {
        m.os.dm.last_err = DM_ERR_RECORD_BUSY as u16;
        return mem_mgr::invalid(
            m,
            call,
            "record is busy (DmGetRecord twice without DmReleaseRecord)",
            0,
        )
        .map(|_| 0);
    }
    r.attributes |= REC_BUSY;
    Ok(r.handle)
}

/// `MemHandle DmQueryRecord(DmOpenRef dbP, UInt16 index)`: read-only, not busy.
pub fn DmQueryRecord(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |_| 0);
    let Ok(i) = record_index(m, id, call.u16(1)) else {
        return Ok(0);
    };
    Ok(dbr(m, id).records[i].handle)
}

/// `MemHandle DmResizeRecord(DmOpenRef dbP, UInt16 index, UInt32 newSize)`:
/// the record may move; returns its handle (0 on failure).
pub fn DmResizeRecord(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |_| 0);
    let Ok(i) = record_index(m, id, call.u16(1)) else {
        return Ok(0);
    };
    let h = dbr(m, id).records[i].handle;
    let Lookup::Chunk(heap, c) = mem_mgr::lookup_handle(m, call, h)? else {
        set_err(m, DM_ERR_INVALID_PARAM);
        return Ok(0);
    };
    match heap.resize(&mut m.mem, c, call.u32(2)) {
        Ok(_) => Ok(h),
        Err(crate::heap::HeapError::NotEnoughSpace) => {
            set_err(m, DM_ERR_MEM_ERROR);
            Ok(0)
        }
        Err(e) => Err(heap_err(m, call, e)),
    }
}

/// `Err DmFindRecordByID(DmOpenRef dbP, UInt32 uniqueID, UInt16 *indexP)`.
pub fn DmFindRecordByID(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |e| e);
    match dbr(m, id)
        .records
        .iter()
        .position(|r| r.unique_id == call.u32(1))
    {
        Some(i) => {
            m.mem
                .write_u16(call.u32(2), i as u16)
                .map_err(|f| m.fault_in(call, f))?;
            Ok(0)
        }
        None => Ok(set_err(m, DM_ERR_UNIQUE_ID_NOT_FOUND)),
    }
}

/// `Err DmRecordInfo(DmOpenRef dbP, UInt16 index, UInt16 *attrP, UInt32
/// *uniqueIDP, LocalID *chunkIDP)`.
pub fn DmRecordInfo(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |e| e);
    let i = match record_index(m, id, call.u16(1)) {
        Ok(i) => i,
        Err(e) => return Ok(e),
    };
    let r = dbr(m, id).records[i].clone();
    let chunk_id = if r.handle != 0 {
        crate::handles::local_id_to_app(m, call, r.handle)?
    } else {
        0
    };
    let res = (|| {
        if call.u32(2) != 0 {
            m.mem.write_u16(call.u32(2), u16::from(r.attributes))?;
        }
        if call.u32(3) != 0 {
            m.mem.write_u32(call.u32(3), r.unique_id)?;
        }
        if call.u32(4) != 0 {
            m.mem.write_u32(call.u32(4), chunk_id)?;
        }
        Ok(())
    })();
    res.map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// The chunk `record_p` points into, for DmWrite/DmSet/DmStrCopy, with the
/// debug-ROM check of `offset + bytes` against its size.
fn write_target(
    m: &mut Machine,
    call: &Call,
    p: u32,
    offset: u32,
    bytes: u32,
) -> Result<Result<u32, u32>, Stop> {
    let l = mem_mgr::lookup_ptr(m, call, p)?;
    let Lookup::Chunk(heap, c) = l else {
        if let Some(what) = m.os.dm.released.get(&p) {
            let why = format!(
                "recordP is the old buffer of {what}, freed by its release \
                 (--release-frees-records, as PumpkinOS): lock the handle again after \
                 DmGetRecord for a valid pointer"
            );
            return Ok(Err(mem_mgr::invalid(
                m,
                call,
                &why,
                DM_ERR_NOT_VALID_RECORD,
            )?));
        }
        return Ok(Err(mem_mgr::invalid(
            m,
            call,
            "recordP is not the start of a chunk (DmWriteCheck)",
            DM_ERR_INVALID_PARAM,
        )?));
    };
    if m.strict_record_writes
        && let Some(why) = not_obtained(m, heap.id, c)
    {
        return Ok(Err(mem_mgr::invalid(
            m,
            call,
            &why,
            DM_ERR_NOT_VALID_RECORD,
        )?));
    }
    let size = c.header.data_size();
    match offset.checked_add(bytes) {
        Some(end) if end <= size => Ok(Ok(c.addr + CHUNK_HEADER_SIZE + offset)),
        _ => Ok(Err(mem_mgr::invalid(
            m,
            call,
            &format!("write out of bounds: offset {offset} + {bytes} bytes > chunk size {size}"),
            DM_ERR_WRITE_OUT_OF_BOUNDS,
        )?)),
    }
}

/// With [`Machine::strict_record_writes`], why the storage chunk `c` may not
/// be written now, following the SDK text (Palm OS Reference, Data and
/// Resource Manager): DmWrite takes a pointer to a *locked* record;
/// DmGetRecord and DmNewRecord mark a record busy and DmReleaseRecord ends
/// the edit ("call this routine when you finish modifying or reading a
/// record that you've called DmGetRecord on or created using DmNewRecord");
/// DmWrite writes "to a record within a database that is open for writing".
/// So: a movable chunk must be locked; a record must be busy and its
/// database open with `dmModeWrite`. Non-movable storage chunks
/// (FtrPtrNew) and dynamic-heap chunks are not records.
fn not_obtained(m: &Machine, heap_id: u16, c: crate::heap::Chunk) -> Option<String> {
    if heap_id != 1 || !c.header.movable() {
        return None;
    }
    let h = c.master_pointer();
    let record = m.os.dm.dbs.iter().find_map(|d| {
        d.records
            .iter()
            .position(|r| r.handle == h)
            .map(|i| (d, i, d.records[i].attributes))
    });
    if c.header.lock_count == 0 {
        return Some(
            "recordP's chunk is not locked (DmWrite takes a pointer to a locked record: \
             MemHandleLock it first; --strict-record-writes)"
                .into(),
        );
    }
    let (d, i, attributes) = record?;
    let name = shown_name(&d.header.name);
    if attributes & REC_BUSY == 0 {
        return Some(format!(
            "record {i} of \"{name}\" is not busy: it is written outside DmGetRecord/DmNewRecord \
             … DmReleaseRecord (--strict-record-writes)"
        ));
    }
    let writable =
        m.os.dm
            .open
            .iter()
            .any(|o| o.db == d.id && o.mode & MODE_WRITE != 0);
    (!writable).then(|| {
        format!(
            "record {i} of \"{name}\": the database is not open for writing \
             (--strict-record-writes)"
        )
    })
}

/// `Err DmWrite(void *recordP, UInt32 offset, const void *srcP, UInt32 bytes)`:
/// after the debug-ROM check of the chunk and bounds (and, with the options,
/// [`Machine::release_frees_records`]' and
/// [`Machine::strict_record_writes`]' checks; `dmErrNotValidRecord` when
/// they fail and checks are not fatal).
pub fn DmWrite(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (p, off, src, n) = (call.u32(0), call.u32(1), call.u32(2), call.u32(3));
    let dst = match write_target(m, call, p, off, n)? {
        Ok(d) => d,
        Err(e) => return Ok(e),
    };
    let data = m.mem.read_bytes(src, n).map_err(|f| m.fault_in(call, f))?;
    m.mem
        .os_write_bytes(dst, &data)
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// `Err DmSet(void *recordP, UInt32 offset, UInt32 bytes, UInt8 value)`.
pub fn DmSet(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (p, off, n, v) = (call.u32(0), call.u32(1), call.u32(2), call.u8(3));
    let dst = match write_target(m, call, p, off, n)? {
        Ok(d) => d,
        Err(e) => return Ok(e),
    };
    m.mem.os_fill(dst, n, v).map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// `Err DmStrCopy(void *recordP, UInt32 offset, const Char *srcP)`.
pub fn DmStrCopy(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let mut s = m
        .mem
        .read_cstr(call.u32(2), 0x1_0000)
        .map_err(|f| m.fault_in(call, f))?;
    s.push(0);
    let dst = match write_target(m, call, call.u32(0), call.u32(1), s.len() as u32)? {
        Ok(d) => d,
        Err(e) => return Ok(e),
    };
    m.mem
        .os_write_bytes(dst, &s)
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

fn find_resource(m: &Machine, kind: u32, id: u16, only_latest: bool) -> u32 {
    let mut open: Vec<u32> = m.os.dm.open.iter().rev().map(|o| o.db).collect();
    // The system resource database is open under every app on a device: it
    // is searched last (DmGet1Resource searches only the latest app's).
    let system = m.os.dm.system;
    if system != 0 && !open.contains(&system) && !(only_latest && !open.is_empty()) {
        open.push(system);
    }
    for (n, dbid) in open.iter().enumerate() {
        if only_latest && n > 0 {
            break;
        }
        if let Some(db) = m.os.dm.db(*dbid)
            && let Some(r) = db.resources.iter().find(|r| r.kind == kind && r.id == id)
        {
            return r.handle;
        }
    }
    0
}

/// `MemHandle DmGetResource(DmResType type, DmResID resID)`: searches open
/// resource databases, most recently opened first.
pub fn DmGetResource(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(find_resource(m, call.u32(0), call.u16(1), false))
}

/// `MemHandle DmGet1Resource(DmResType type, DmResID resID)`: the most
/// recently opened resource database only.
pub fn DmGet1Resource(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(find_resource(m, call.u32(0), call.u16(1), true))
}

/// `Err DmReleaseResource(MemHandle resourceH)`. With
/// [`Machine::release_frees_records`] an unlocked resource's buffer is freed
/// as PumpkinOS frees it (`storage.c` DmReleaseResource: when its use count
/// reaches 0, it is not dirty and not locked; palm-run counts no uses, so at
/// every release of an unlocked resource).
pub fn DmReleaseResource(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let h = call.u32(0);
    let in_rom =
        m.os.dm
            .db(m.os.dm.system)
            .is_some_and(|d| d.resources.iter().any(|r| r.handle == h));
    match mem_mgr::lookup_handle(m, call, h)? {
        Lookup::Chunk(..) if m.release_frees_records && !in_rom => {
            let what = resource_name(m, h);
            free_buffer(m, call, h, what, true)?;
            Ok(0)
        }
        Lookup::Chunk(..) => Ok(0),
        Lookup::Invalid(why) => mem_mgr::invalid(m, call, why, DM_ERR_INVALID_PARAM),
    }
}

/// `resource 'code' 1 of "App"` for the resource of handle `h`.
fn resource_name(m: &Machine, h: u32) -> String {
    m.os.dm
        .dbs
        .iter()
        .find_map(|d| {
            d.resources.iter().find(|r| r.handle == h).map(|r| {
                format!(
                    "resource '{}' {} of \"{}\"",
                    String::from_utf8_lossy(&r.kind.to_be_bytes()),
                    r.id,
                    shown_name(&d.header.name)
                )
            })
        })
        .unwrap_or_else(|| format!("resource handle 0x{h:08X}"))
}

/// Resource bytes of type `kind`, id `id` from database `db` (native use).
pub fn resource_bytes(m: &Machine, db: u32, kind: &[u8; 4], id: u16) -> Option<Vec<u8>> {
    let h = resource_handle(m, db, kind, id)?;
    handle_bytes(m, h)
}

/// Handle of resource (`kind`, `id`) of database `db`.
pub fn resource_handle(m: &Machine, db: u32, kind: &[u8; 4], id: u16) -> Option<u32> {
    let k = u32::from_be_bytes(*kind);
    m.os.dm
        .db(db)?
        .resources
        .iter()
        .find(|r| r.kind == k && r.id == id)
        .map(|r| r.handle)
}

/// Resource bytes of (`kind`, `id`) found through the open resource
/// databases (as DmGetResource would).
pub fn open_resource_bytes(m: &Machine, kind: &[u8; 4], id: u16) -> Option<Vec<u8>> {
    let h = find_resource(m, u32::from_be_bytes(*kind), id, false);
    if h == 0 { None } else { handle_bytes(m, h) }
}

/// `UInt16 DmNumDatabases(UInt16 cardNo)`.
pub fn DmNumDatabases(m: &mut Machine, _call: &Call) -> Result<u32, Stop> {
    Ok(m.os.dm.dbs.len() as u32)
}

/// `LocalID DmGetDatabase(UInt16 cardNo, UInt16 index)`: in creation order; 0 past the end.
pub fn DmGetDatabase(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(m.os
        .dm
        .dbs
        .get(usize::from(call.u16(1)))
        .map_or(0, |d| d.id))
}

/// `Err DmDatabaseSize(UInt16 cardNo, LocalID dbID, UInt32 *numRecordsP,
/// UInt32 *totalBytesP, UInt32 *dataBytesP)`: entries, data bytes, and data
/// plus chunk headers and the 78-byte header as total.
pub fn DmDatabaseSize(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let Some(db) = m.os.dm.db(call.u32(1)) else {
        return Ok(set_err(m, DM_ERR_CANT_FIND));
    };
    let n = (db.records.len() + db.resources.len()) as u32;
    let handles: Vec<u32> = db
        .records
        .iter()
        .map(|r| r.handle)
        .chain(db.resources.iter().map(|r| r.handle))
        .filter(|&h| h != 0)
        .collect();
    let data: u32 = handles
        .iter()
        .map(|&h| handle_size(m, h).unwrap_or(0))
        .sum();
    let total = data + HEADER_CHUNK_SIZE + CHUNK_HEADER_SIZE * handles.len() as u32;
    for (i, v) in [(2, n), (3, total), (4, data)] {
        if call.u32(i) != 0 {
            m.mem
                .write_u32(call.u32(i), v)
                .map_err(|f| m.fault_in(call, f))?;
        }
    }
    Ok(0)
}

/// `Err DmSetRecordInfo(DmOpenRef dbP, UInt16 index, UInt16 *attrP, UInt32 *uniqueIDP)`.
pub fn DmSetRecordInfo(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |e| e);
    let i = match record_index(m, id, call.u16(1)) {
        Ok(i) => i,
        Err(e) => return Ok(e),
    };
    let attr = opt_u16(m, call, 2)?;
    let uid = opt_u32(m, call, 3)?;
    let r = &mut m.os.dm.db_mut(id).expect("exists").records[i];
    if let Some(a) = attr {
        // The busy bit is the Data Manager's own (DataMgr.h: not settable).
        r.attributes = (a as u8 & !REC_BUSY) | (r.attributes & REC_BUSY);
    }
    if let Some(u) = uid {
        r.unique_id = u & 0xFF_FFFF;
    }
    Ok(0)
}

/// The 16-bit value argument `n` points at, or `None` for a NULL pointer (the
/// Data Manager's "leave this one as it is" in the set-info calls).
fn opt_u16(m: &Machine, call: &Call, n: usize) -> Result<Option<u16>, Stop> {
    match call.u32(n) {
        0 => Ok(None),
        p => m.mem.read_u16(p).map(Some).map_err(|f| m.fault_in(call, f)),
    }
}

/// As [`opt_u16`], 32 bits.
fn opt_u32(m: &Machine, call: &Call, n: usize) -> Result<Option<u32>, Stop> {
    match call.u32(n) {
        0 => Ok(None),
        p => m.mem.read_u32(p).map(Some).map_err(|f| m.fault_in(call, f)),
    }
}

/// `MemHandle DmNewHandle(DmOpenRef dbP, UInt32 size)`: a movable chunk in
/// the storage heap, not yet attached to a record.
pub fn DmNewHandle(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, _id) = open_db!(m, call, |_| 0);
    let heap = m.os.mem.storage;
    let h = mem_mgr::allocate(
        m,
        call,
        heap,
        call.u32(1),
        OWNER_DM_RECORDS,
        true,
        Placement::Start,
    )?;
    if h == 0 {
        set_err(m, DM_ERR_MEM_ERROR);
    }
    Ok(h)
}

/// `Err DmAttachRecord(DmOpenRef dbP, UInt16 *atP, MemHandle newH, MemHandle
/// *oldHP)`: insert (oldHP NULL) or replace (the old handle is handed back).
pub fn DmAttachRecord(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (o, id) = open_db!(m, call, |e| e);
    if o.mode & MODE_WRITE == 0 {
        return Ok(set_err(m, DM_ERR_READ_ONLY));
    }
    let at = m
        .mem
        .read_u16(call.u32(1))
        .map_err(|f| m.fault_in(call, f))?;
    let h = call.u32(2);
    if !matches!(mem_mgr::lookup_handle(m, call, h)?, Lookup::Chunk(heap, _) if heap.id == 1) {
        return Ok(set_err(m, DM_ERR_INVALID_PARAM));
    }
    let old_p = call.u32(3);
    if old_p != 0 {
        let i = match record_index(m, id, at) {
            Ok(i) => i,
            Err(e) => return Ok(e),
        };
        let old = dbr(m, id).records[i].handle;
        let shown = crate::handles::to_app(m, call, old)?;
        m.mem
            .write_u32(old_p, shown)
            .map_err(|f| m.fault_in(call, f))?;
        let r = &mut m.os.dm.db_mut(id).expect("exists").records[i];
        r.handle = h;
        r.attributes |= REC_DIRTY;
    } else {
        if dbr(m, id).records.len() >= MAX_ENTRIES {
            return Ok(set_err(m, DM_ERR_MEM_ERROR));
        }
        let dbm = m.os.dm.db_mut(id).expect("exists");
        let idx = usize::from(at).min(dbm.records.len());
        dbm.header.unique_id_seed = (dbm.header.unique_id_seed + 1) & 0xFF_FFFF;
        let uid = dbm.header.unique_id_seed;
        dbm.records.insert(
            idx,
            RecEntry {
                attributes: REC_DIRTY,
                unique_id: uid,
                handle: h,
            },
        );
        m.mem
            .write_u16(call.u32(1), idx as u16)
            .map_err(|f| m.fault_in(call, f))?;
    }
    bump_mod(m, id);
    Ok(0)
}

/// `Err DmDetachRecord(DmOpenRef dbP, UInt16 index, MemHandle *oldHP)`: the
/// entry goes; its handle is handed back (the caller owns it now).
pub fn DmDetachRecord(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (o, id) = open_db!(m, call, |e| e);
    if o.mode & MODE_WRITE == 0 {
        return Ok(set_err(m, DM_ERR_READ_ONLY));
    }
    let i = match record_index(m, id, call.u16(1)) {
        Ok(i) => i,
        Err(e) => return Ok(e),
    };
    let h = dbr(m, id).records[i].handle;
    let shown = crate::handles::to_app(m, call, h)?;
    m.mem
        .write_u32(call.u32(2), shown)
        .map_err(|f| m.fault_in(call, f))?;
    m.os.dm.db_mut(id).expect("exists").records.remove(i);
    bump_mod(m, id);
    Ok(0)
}

/// `Err DmMoveRecord(DmOpenRef dbP, UInt16 from, UInt16 to)`: `to` is the
/// index before which the record goes.
pub fn DmMoveRecord(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |e| e);
    let from = match record_index(m, id, call.u16(1)) {
        Ok(i) => i,
        Err(e) => return Ok(e),
    };
    let to = usize::from(call.u16(2));
    if to > dbr(m, id).records.len() {
        return Ok(set_err(m, DM_ERR_INDEX_OUT_OF_RANGE));
    }
    let recs = &mut m.os.dm.db_mut(id).expect("exists").records;
    let r = recs.remove(from);
    let to = if to > from { to - 1 } else { to };
    recs.insert(to.min(recs.len()), r);
    Ok(0)
}

/// `UInt16 DmNumRecordsInCategory(DmOpenRef dbP, UInt16 category)`:
/// non-deleted records of the category (dmAllCategories 0xFFFF: all).
pub fn DmNumRecordsInCategory(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |_| 0);
    let c = call.u16(1);
    Ok(dbr(m, id)
        .records
        .iter()
        .filter(|r| {
            r.attributes & REC_DELETE == 0 && (c == 0xFFFF || u16::from(r.attributes & 0x0F) == c)
        })
        .count() as u32)
}

/// `MemHandle DmQueryNextInCategory(DmOpenRef dbP, UInt16 *indexP, UInt16
/// category)`: from `*indexP` on; the index found is written back.
pub fn DmQueryNextInCategory(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |_| 0);
    let start = m
        .mem
        .read_u16(call.u32(1))
        .map_err(|f| m.fault_in(call, f))?;
    let c = call.u16(2);
    let found = dbr(m, id)
        .records
        .iter()
        .enumerate()
        .skip(usize::from(start))
        .find(|(_, r)| {
            r.attributes & REC_DELETE == 0 && (c == 0xFFFF || u16::from(r.attributes & 0x0F) == c)
        })
        .map(|(i, r)| (i, r.clone()));
    match found {
        Some((i, r)) => {
            m.mem
                .write_u16(call.u32(1), i as u16)
                .map_err(|f| m.fault_in(call, f))?;
            Ok(r.handle)
        }
        None => {
            set_err(m, DM_ERR_INDEX_OUT_OF_RANGE);
            Ok(0)
        }
    }
}

/// `Err DmWriteCheck(void *recordP, UInt32 offset, UInt32 bytes)`.
pub fn DmWriteCheck(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    match write_target(m, call, call.u32(0), call.u32(1), call.u32(2))? {
        Ok(_) => Ok(0),
        Err(e) => Ok(e),
    }
}

/// `DmOpenRef DmNextOpenResDatabase(DmOpenRef dbP)`: resource databases,
/// most recently opened first.
pub fn DmNextOpenResDatabase(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let list: Vec<u32> =
        m.os.dm
            .open
            .iter()
            .rev()
            .filter(|o| m.os.dm.db(o.db).is_some_and(Db::is_res_db))
            .map(|o| o.dbp)
            .collect();
    let cur = call.u32(0);
    if cur == 0 {
        return Ok(list.first().copied().unwrap_or(0));
    }
    let i = list.iter().position(|&x| x == cur);
    Ok(i.and_then(|i| list.get(i + 1)).copied().unwrap_or(0))
}

/// `Err DmGetNextDatabaseByTypeCreator(Boolean newSearch, DmSearchStatePtr
/// stateInfoP, UInt32 type, UInt32 creator, Boolean onlyLatestVers, UInt16
/// *cardNoP, LocalID *dbIDP)`: 0 = wildcard; the search position is kept in
/// the first long of the state block.
pub fn DmGetNextDatabaseByTypeCreator(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let state = call.u32(1);
    let start = if call.u8(0) != 0 {
        0
    } else {
        m.mem.read_u32(state).map_err(|f| m.fault_in(call, f))?
    };
    let (t, c) = (call.u32(2), call.u32(3));
    let found =
        m.os.dm
            .dbs
            .iter()
            .enumerate()
            .skip(start as usize)
            .find(|(_, d)| {
                (t == 0 || u32::from_be_bytes(d.header.kind.0) == t)
                    && (c == 0 || u32::from_be_bytes(d.header.creator.0) == c)
            });
    let Some((i, d)) = found.map(|(i, d)| (i, d.id)) else {
        return Ok(set_err(m, DM_ERR_CANT_FIND));
    };
    m.mem
        .write_u32(state, i as u32 + 1)
        .and_then(|_| m.mem.write_u16(call.u32(5), 0))
        .and_then(|_| m.mem.write_u32(call.u32(6), d))
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// `UInt16 DmFindResourceType(DmOpenRef dbP, DmResType resType, UInt16
/// typeIndex)`: index of the `typeIndex`-th resource of that type, or 0xFFFF.
pub fn DmFindResourceType(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |_| 0xFFFF);
    Ok(dbr(m, id)
        .resources
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind == call.u32(1))
        .nth(usize::from(call.u16(2)))
        .map_or(0xFFFF, |(i, _)| i as u32))
}

/// `UInt16 DmFindResource(DmOpenRef dbP, DmResType resType, DmResID resID,
/// MemHandle resH)`: by handle if `resH` is not NULL, else by type and ID;
/// 0xFFFF if absent.
pub fn DmFindResource(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |_| 0xFFFF);
    let h = call.u32(3);
    Ok(dbr(m, id)
        .resources
        .iter()
        .position(|r| {
            if h != 0 {
                r.handle == h
            } else {
                r.kind == call.u32(1) && r.id == call.u16(2)
            }
        })
        .map_or(0xFFFF, |i| i as u32))
}

/// `MemHandle DmGetResourceIndex(DmOpenRef dbP, UInt16 index)`.
pub fn DmGetResourceIndex(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |_| 0);
    Ok(dbr(m, id)
        .resources
        .get(usize::from(call.u16(1)))
        .map_or(0, |r| r.handle))
}

/// `Err DmResourceInfo(DmOpenRef dbP, UInt16 index, DmResType *resTypeP,
/// DmResID *resIDP, LocalID *chunkLocalIDP)`.
pub fn DmResourceInfo(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |e| e);
    let Some(r) = dbr(m, id).resources.get(usize::from(call.u16(1))).cloned() else {
        return Ok(set_err(m, DM_ERR_INDEX_OUT_OF_RANGE));
    };
    let chunk_id = crate::handles::local_id_to_app(m, call, r.handle)?;
    let res = (|| {
        if call.u32(2) != 0 {
            m.mem.write_u32(call.u32(2), r.kind)?;
        }
        if call.u32(3) != 0 {
            m.mem.write_u16(call.u32(3), r.id)?;
        }
        if call.u32(4) != 0 {
            m.mem.write_u32(call.u32(4), chunk_id)?;
        }
        Ok(())
    })();
    res.map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// `Err DmSetResourceInfo(DmOpenRef dbP, UInt16 index, DmResType *resTypeP, DmResID *resIDP)`.
pub fn DmSetResourceInfo(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (_, id) = open_db!(m, call, |e| e);
    let i = usize::from(call.u16(1));
    if i >= dbr(m, id).resources.len() {
        return Ok(set_err(m, DM_ERR_INDEX_OUT_OF_RANGE));
    }
    let kind = opt_u32(m, call, 2)?;
    let res_id = opt_u16(m, call, 3)?;
    let r = &mut m.os.dm.db_mut(id).expect("exists").resources[i];
    if let Some(k) = kind {
        r.kind = k;
    }
    if let Some(x) = res_id {
        r.id = x;
    }
    Ok(0)
}

/// `MemHandle DmNewResource(DmOpenRef dbP, DmResType resType, DmResID resID, UInt32 size)`.
pub fn DmNewResource(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (o, id) = open_db!(m, call, |_| 0);
    if !dbr(m, id).is_res_db() {
        set_err(m, 0x020D);
        return Ok(0);
    }
    if o.mode & MODE_WRITE == 0 {
        set_err(m, DM_ERR_READ_ONLY);
        return Ok(0);
    }
    if dbr(m, id).resources.len() >= MAX_ENTRIES {
        set_err(m, DM_ERR_MEM_ERROR);
        return Ok(0);
    }
    let heap = m.os.mem.storage;
    let h = mem_mgr::allocate(
        m,
        call,
        heap,
        call.u32(3),
        OWNER_DM_RECORDS,
        true,
        Placement::Start,
    )?;
    if h == 0 {
        set_err(m, DM_ERR_MEM_ERROR);
        return Ok(0);
    }
    m.os.dm
        .db_mut(id)
        .expect("exists")
        .resources
        .push(ResEntry {
            kind: call.u32(1),
            id: call.u16(2),
            handle: h,
        });
    bump_mod(m, id);
    Ok(h)
}

/// `Err DmRemoveResource(DmOpenRef dbP, UInt16 index)`.
pub fn DmRemoveResource(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let (o, id) = open_db!(m, call, |e| e);
    if o.mode & MODE_WRITE == 0 {
        return Ok(set_err(m, DM_ERR_READ_ONLY));
    }
    let i = usize::from(call.u16(1));
    let Some(r) = dbr(m, id).resources.get(i).cloned() else {
        return Ok(set_err(m, DM_ERR_INDEX_OUT_OF_RANGE));
    };
    free_handle(m, call, r.handle)?;
    m.os.dm.db_mut(id).expect("exists").resources.remove(i);
    bump_mod(m, id);
    Ok(0)
}

/// `MemHandle DmResizeResource(MemHandle resourceH, UInt32 newSize)`: the
/// chunk may move; the handle stays.
pub fn DmResizeResource(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let h = call.u32(0);
    let Lookup::Chunk(heap, c) = mem_mgr::lookup_handle(m, call, h)? else {
        set_err(m, DM_ERR_INVALID_PARAM);
        return Ok(0);
    };
    match heap.resize(&mut m.mem, c, call.u32(1)) {
        Ok(_) => Ok(h),
        Err(crate::heap::HeapError::NotEnoughSpace) => {
            set_err(m, DM_ERR_MEM_ERROR);
            Ok(0)
        }
        Err(e) => Err(heap_err(m, call, e)),
    }
}

/// `Err DmDatabaseProtect(UInt16 cardNo, LocalID dbID, Boolean protect)`:
/// accepted (protection only keeps a database from being deleted).
pub fn DmDatabaseProtect(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    if m.os.dm.db(call.u32(1)).is_none() {
        return Ok(set_err(m, DM_ERR_CANT_FIND));
    }
    Ok(0)
}

/// `UInt16 DmSearchRecord(MemHandle recH, DmOpenRef *dbPP)`: the index of
/// the record with this handle in an open database (most recent first), its
/// DmOpenRef in `*dbPP`; 0xFFFF and NULL if not found.
pub fn DmSearchRecord(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let h = call.u32(0);
    let found = m.os.dm.open.iter().rev().find_map(|o| {
        m.os.dm
            .db(o.db)
            .and_then(|d| d.records.iter().position(|r| r.handle == h && h != 0))
            .map(|i| (o.dbp, i as u32))
    });
    let (dbp, i) = found.unwrap_or((0, 0xFFFF));
    m.mem
        .write_u32(call.u32(1), dbp)
        .map_err(|f| m.fault_in(call, f))?;
    Ok(i)
}

/// `DmOpenRef DmOpenDBNoOverlay(UInt16 cardNo, LocalID dbID, UInt16 mode)`:
/// DmOpenDatabase (there are no overlays here).
pub fn DmOpenDBNoOverlay(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    DmOpenDatabase(m, call)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A call of `trap` with these argument values (table order).
    fn call(trap: u16, args: &[u32]) -> Call {
        Call {
            args: args.to_vec(),
            app_args: args.to_vec(),
            ..internal_call(trap)
        }
    }

    #[test]
    fn the_system_database_has_the_generic_alerts_and_is_rom() {
        let mut m = Machine::new(crate::memory::DEFAULT_RAM_SIZE, 0x10000).unwrap();
        let system = m.os.dm.find(SYSTEM_DB_NAME).expect("System").clone();
        assert_eq!(m.os.dm.system, system.id);
        assert!(system.is_res_db());
        assert_eq!(system.header.attributes, HDR_RES_DB | HDR_READ_ONLY);
        let ids: Vec<u16> = system.resources.iter().map(|r| r.id).collect();
        assert_eq!(
            ids,
            [
                10021, 10022, 10023, 10024, 10025, 10026, 10028, 10029, 10030, 10031, 10032
            ]
        );
        // DmGetResource finds it with no database open; its message is "^1^2^3".
        let talt = u32::from_be_bytes(*b"Talt");
        let h = DmGetResource(&mut m, &call(0xA05F, &[talt, 10021])).unwrap();
        assert_eq!(h, system.resources[0].handle);
        let a = palm_rcp::alert::Alert::parse(&handle_bytes(&m, h).unwrap()).unwrap();
        assert_eq!(
            (&a.title[..], &a.message[..]),
            (&b"Error"[..], &b"^1^2^3"[..])
        );
        assert_eq!(a.buttons, [b"OK".to_vec()]);
        // DmGet1Resource does not search it: no app database is open.
        let only = DmGet1Resource(&mut m, &call(0xA060, &[talt, 10021])).unwrap();
        assert_eq!(only, system.resources[0].handle, "the only open one");
        // Released, it stays where it is, even where releases free buffers.
        m.release_frees_records = true;
        assert_eq!(DmReleaseResource(&mut m, &call(0xA061, &[h])).unwrap(), 0);
        assert!(m.os.dm.released.is_empty());
        // It cannot be deleted.
        let e = DmDeleteDatabase(&mut m, &call(0xA042, &[0, system.id])).unwrap();
        assert_eq!(e, DM_ERR_ROM_BASED);
        assert!(m.os.dm.find(SYSTEM_DB_NAME).is_some());
    }

    #[test]
    fn names_are_shown_as_windows_1252() {
        assert_eq!(name_text(b"Caf\xE9App"), "CaféApp");
        assert_eq!(name_text(b"\x80 \x85 \x99"), "€ … ™");
        // Undefined in Windows-1252: read as Latin-1, escaped when quoted.
        assert_eq!(name_text(b"A\x81B"), "A\u{81}B");
        assert_eq!(shown_name(b"A\x81\"B"), "A\\u{81}\\\"B");
    }
}
