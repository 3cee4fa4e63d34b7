//! Feature Manager (`System/FeatureMgr.h`, PALM_FACTS §4.3): features are
//! (creator, number) → 32-bit values; FtrPtrNew memory comes from the storage
//! heap, so it is written with DmWrite like records.
#![allow(non_snake_case)]

use std::collections::BTreeMap;

use crate::heap::Placement;
use crate::machine::{Call, Machine, Stop};
use crate::mem_mgr::{self, Lookup};

/// `ftrErrInvalidParam`.
pub const FTR_ERR_INVALID_PARAM: u32 = 0x0C01;
/// `ftrErrNoSuchFeature`.
pub const FTR_ERR_NO_SUCH_FEATURE: u32 = 0x0C02;

/// Feature Manager state.
#[derive(Debug, Clone, Default)]
pub struct FtrMgr {
    /// Registered features.
    pub features: BTreeMap<(u32, u16), u32>,
    /// Features whose value is a FtrPtrNew chunk.
    pub ptrs: BTreeMap<(u32, u16), u32>,
}

/// `Err FtrGet(UInt32 creator, UInt16 featureNum, UInt32 *valueP)`.
pub fn FtrGet(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    match m.os.ftr.features.get(&(call.u32(0), call.u16(1))).copied() {
        Some(v) => {
            m.mem
                .write_u32(call.u32(2), v)
                .map_err(|f| m.fault_in(call, f))?;
            Ok(0)
        }
        None => Ok(FTR_ERR_NO_SUCH_FEATURE),
    }
}

/// `Err FtrSet(UInt32 creator, UInt16 featureNum, UInt32 newValue)`.
pub fn FtrSet(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    m.os.ftr
        .features
        .insert((call.u32(0), call.u16(1)), call.u32(2));
    Ok(0)
}

/// `Err FtrUnregister(UInt32 creator, UInt16 featureNum)`.
pub fn FtrUnregister(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let key = (call.u32(0), call.u16(1));
    if m.os.ftr.ptrs.contains_key(&key) {
        return FtrPtrFree(m, call);
    }
    match m.os.ftr.features.remove(&key) {
        Some(_) => Ok(0),
        None => Ok(FTR_ERR_NO_SUCH_FEATURE),
    }
}

/// `Err FtrPtrNew(UInt32 creator, UInt16 featureNum, UInt32 size, void
/// **newPtrP)`: a non-movable storage-heap chunk, registered as the feature's value.
pub fn FtrPtrNew(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let key = (call.u32(0), call.u16(1));
    let size = call.u32(2);
    if size == 0 || m.os.ftr.ptrs.contains_key(&key) {
        return Ok(FTR_ERR_INVALID_PARAM);
    }
    let heap = m.os.mem.storage;
    let p = mem_mgr::allocate(
        m,
        call,
        heap,
        size,
        crate::data_mgr::OWNER_DM_MANAGER,
        false,
        Placement::Start,
    )?;
    if p == 0 {
        return Ok(crate::mem_mgr::MEM_ERR_NOT_ENOUGH_SPACE);
    }
    m.mem
        .write_u32(call.u32(3), p)
        .map_err(|f| m.fault_in(call, f))?;
    m.os.ftr.ptrs.insert(key, p);
    m.os.ftr.features.insert(key, p);
    Ok(0)
}

/// `Err FtrPtrFree(UInt32 creator, UInt16 featureNum)`.
pub fn FtrPtrFree(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let key = (call.u32(0), call.u16(1));
    let Some(p) = m.os.ftr.ptrs.remove(&key) else {
        return Ok(FTR_ERR_NO_SUCH_FEATURE);
    };
    m.os.ftr.features.remove(&key);
    if let Lookup::Chunk(heap, c) = mem_mgr::lookup_ptr(m, call, p)? {
        mem_mgr::free(m, call, heap, c)?;
    }
    Ok(0)
}

/// `Err FtrGetByIndex(UInt16 index, Boolean romTable, UInt32 *creatorP,
/// UInt16 *numP, UInt32 *valueP)`: RAM features in (creator, number) order;
/// the ROM table is empty.
pub fn FtrGetByIndex(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    if call.u8(1) != 0 {
        return Ok(FTR_ERR_NO_SUCH_FEATURE);
    }
    let Some((&(c, n), &v)) = m.os.ftr.features.iter().nth(usize::from(call.u16(0))) else {
        return Ok(FTR_ERR_NO_SUCH_FEATURE);
    };
    m.mem
        .write_u32(call.u32(2), c)
        .and_then(|_| m.mem.write_u16(call.u32(3), n))
        .and_then(|_| m.mem.write_u32(call.u32(4), v))
        .map_err(|f| m.fault_in(call, f))?;
    Ok(0)
}

/// `Err FtrPtrResize(UInt32 creator, UInt16 featureNum, UInt32 newSize, void
/// **newPtrP)`: the chunk may move; the feature's value follows it.
pub fn FtrPtrResize(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let key = (call.u32(0), call.u16(1));
    let Some(p) = m.os.ftr.ptrs.get(&key).copied() else {
        return Ok(FTR_ERR_NO_SUCH_FEATURE);
    };
    let Lookup::Chunk(heap, c) = mem_mgr::lookup_ptr(m, call, p)? else {
        return Ok(FTR_ERR_INVALID_PARAM);
    };
    let new = call.u32(2);
    let q = match heap.resize(&mut m.mem, c, new) {
        Ok(c) => c.body(),
        Err(_) => {
            // Non-movable: allocate, copy, free.
            let q = mem_mgr::allocate(m, call, heap, new, c.header.owner, false, Placement::Start)?;
            if q == 0 {
                return Ok(crate::mem_mgr::MEM_ERR_NOT_ENOUGH_SPACE);
            }
            m.mem
                .os_move(q, p, c.header.data_size().min(new))
                .map_err(|f| m.fault_in(call, f))?;
            mem_mgr::free(m, call, heap, c)?;
            q
        }
    };
    m.mem
        .write_u32(call.u32(3), q)
        .map_err(|f| m.fault_in(call, f))?;
    m.os.ftr.ptrs.insert(key, q);
    m.os.ftr.features.insert(key, q);
    Ok(0)
}
