//! Handles that are not master pointers, as PumpkinOS has them (the option
//! [`Machine::opaque_handles`], `--opaque-handles`).
//!
//! On Palm OS 3.x a `MemHandle` is the address of a master pointer: `*h` is
//! the chunk's body (PALM_FACTS §5.1), a shortcut the SDK never documents.
//! PumpkinOS allocates a `storage_handle_t` descriptor for every handle
//! (memory, record and resource handles alike) and hands the 68k app its
//! address; the descriptor starts with `STO_MAGIC` (`'Hndl'`) in the host's
//! byte order, so on a little-endian host the 68k reads `*h == 0x6C646E48`
//! and only `MemHandleLock` gives the chunk's address
//! (`PumpkinOS:src/libpumpkin/storage.c`: `storage_handle_t`, `MemHandleNew`,
//! `MemHandleLockEx`, `DmNewRecordEx`). Seen by hand: StarterApp's "Leak
//! handle" button, whose memdbg reads `*h`, ends there with "Write 1 bytes(s)
//! to invalid 68K address 0x6C646E68".
//!
//! palm-run keeps its OS 3.x heaps inside (the native code works with
//! master pointers) and translates at the boundary with 68k code: every
//! argument and result whose SDK type is `MemHandle` (from the trap table's
//! prototypes), the `MemHandle *` outputs of DmAttachRecord/DmDetachRecord
//! and the LocalIDs of handles. The app sees the address of an 8-byte
//! descriptor (a system chunk at the end of the dynamic heap, owner 0): its
//! first long is [`HANDLE_MAGIC`], the rest is zero. The descriptor is made
//! when a handle first reaches 68k code and freed with the chunk. A value
//! that is not a descriptor goes to the native code unchanged (so a stale or
//! made-up handle fails the Memory Manager's checks as before).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::heap::Placement;
use crate::machine::{Arg68k, Call, Machine, Stop, StopKind};
use crate::table::{self, TrapInfo};

/// The first long of a handle descriptor as 68k code reads it: PumpkinOS's
/// `STO_MAGIC` `'Hndl'` (0x486E646C) stored little-endian.
pub const HANDLE_MAGIC: u32 = 0x6C64_6E48;
/// Bytes of a handle descriptor.
pub const DESCRIPTOR_SIZE: u32 = 8;

/// Where the `MemHandle`s of a trap are: a bit per argument (bit `i` for
/// argument `i`) and whether the result is one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HandleSlots {
    /// Bit `i`: argument `i` is a `MemHandle`.
    pub args: u32,
    /// The result is a `MemHandle`.
    pub result: bool,
}

/// [`HandleSlots`] of a trap, read from its SDK prototype (`MemHandle
/// DmGetRecord(DmOpenRef dbP, UInt16 index)` → result; `Err
/// MemHandleFree(MemHandle h)` → argument 0). `MemHandle *` outputs are
/// not counted (their handlers translate them).
pub fn slots_of(info: &TrapInfo) -> HandleSlots {
    let p = info.prototype;
    let (head, rest) = p.split_once('(').unwrap_or((p, ""));
    let result = head.split_whitespace().next() == Some("MemHandle");
    let params = rest.rsplit_once(')').map_or(rest, |(a, _)| a);
    let mut args = 0;
    for (i, param) in params.split(',').enumerate() {
        let words: Vec<&str> = param.split_whitespace().collect();
        // "MemHandle h" (a type and a name), not "MemHandle *oldHP".
        if words.len() == 2 && words[0] == "MemHandle" && !words[1].starts_with('*') {
            args |= 1 << i;
        }
    }
    HandleSlots { args, result }
}

/// [`slots_of`] for a trap word, cached for the whole trap table.
pub fn slots(trap: u16) -> HandleSlots {
    static SLOTS: OnceLock<BTreeMap<u16, HandleSlots>> = OnceLock::new();
    SLOTS
        .get_or_init(|| table::TRAPS.iter().map(|t| (t.trap, slots_of(t))).collect())
        .get(&trap)
        .copied()
        .unwrap_or_default()
}

/// The two directions of the translation.
#[derive(Debug, Clone, Default)]
pub struct OpaqueHandles {
    /// Master pointer → descriptor address (what 68k code sees).
    to_app: BTreeMap<u32, u32>,
    /// Descriptor address → master pointer.
    to_native: BTreeMap<u32, u32>,
}

impl OpaqueHandles {
    /// The master pointer of handle `app` as 68k code sees it (unchanged when
    /// it is not a descriptor, or when the option is off).
    pub fn native(&self, app: u32) -> u32 {
        self.to_native.get(&app).copied().unwrap_or(app)
    }

    /// The descriptor of master pointer `mp`, if one was made.
    pub fn app(&self, mp: u32) -> Option<u32> {
        self.to_app.get(&mp).copied()
    }

    /// Descriptors alive (one per handle 68k code has seen and not freed).
    pub fn len(&self) -> usize {
        self.to_app.len()
    }

    /// No descriptor is alive.
    pub fn is_empty(&self) -> bool {
        self.to_app.is_empty()
    }
}

/// The handle 68k code is given for master pointer `mp`: its descriptor
/// (made now if it has none) when [`Machine::opaque_handles`] is set and `mp`
/// is a live master pointer; otherwise `mp` itself (0, or not a handle).
///
/// # Errors
/// A stop (debug-ROM check) when the dynamic heap has no room for the
/// descriptor.
pub fn to_app(m: &mut Machine, call: &Call, mp: u32) -> Result<u32, Stop> {
    if !m.opaque_handles || mp == 0 {
        return Ok(mp);
    }
    if let Some(d) = m.os.mem.opaque.app(mp) {
        return Ok(d);
    }
    let Some(heap) = m.os.mem.heap_of(mp) else {
        return Ok(mp);
    };
    if !heap.is_master_pointer(&m.mem, mp).unwrap_or(false) {
        return Ok(mp);
    }
    let dynamic = m.os.mem.dynamic;
    let d = dynamic
        .alloc_chunk(&mut m.mem, DESCRIPTOR_SIZE, 0, None, Placement::End)
        .map_err(|e| {
            m.stop_in(
                call,
                StopKind::DebugCheck(format!(
                    "{}: no room in the dynamic heap for a handle descriptor \
                     (--opaque-handles): {e}",
                    call.info.name
                )),
            )
        })?;
    let mut bytes = [0u8; DESCRIPTOR_SIZE as usize];
    bytes[..4].copy_from_slice(&HANDLE_MAGIC.to_be_bytes());
    m.mem
        .os_write_bytes(d, &bytes)
        .map_err(|f| m.fault_in(call, f))?;
    m.os.mem.opaque.to_app.insert(mp, d);
    m.os.mem.opaque.to_native.insert(d, mp);
    Ok(d)
}

/// The master pointer behind handle `app` from 68k code (see
/// [`OpaqueHandles::native`]).
pub fn to_native(m: &Machine, app: u32) -> u32 {
    m.os.mem.opaque.native(app)
}

/// Master pointer `mp`'s chunk was freed: its descriptor goes too (a later
/// use of the old handle value is then "not a handle").
pub fn forget(m: &mut Machine, mp: u32) {
    let Some(d) = m.os.mem.opaque.to_app.remove(&mp) else {
        return;
    };
    m.os.mem.opaque.to_native.remove(&d);
    let dynamic = m.os.mem.dynamic;
    if let Ok(Some(c)) = dynamic.chunk_at_body(&m.mem, d) {
        let _ = dynamic.free_chunk(&mut m.mem, c);
    }
}

/// The LocalID 68k code is given for the handle `mp` (a handle's LocalID is
/// the handle with bit 0 set, PALM_FACTS §4.1).
///
/// # Errors
/// As [`to_app`].
pub fn local_id_to_app(m: &mut Machine, call: &Call, mp: u32) -> Result<u32, Stop> {
    Ok(to_app(m, call, mp)? | 1)
}

/// Arguments of a trap call from 68k code, translated in place for the
/// native handler.
pub fn args_to_native(m: &Machine, trap: u16, args: &mut [u32]) {
    let s = slots(trap);
    for (i, a) in args.iter_mut().enumerate() {
        if s.args & (1 << i) != 0 {
            *a = to_native(m, *a);
        }
    }
}

/// A native handler's result for 68k code.
///
/// # Errors
/// As [`to_app`].
pub fn result_to_app(m: &mut Machine, call: &Call, r: u32) -> Result<u32, Stop> {
    if m.opaque_handles && slots(call.trap).result {
        to_app(m, call, r)
    } else {
        Ok(r)
    }
}

/// Argument `i` of `call` as the 68k caller passed it (for messages).
pub fn shown_arg(call: &Call, i: usize) -> u32 {
    call.app_args.get(i).copied().unwrap_or(call.args[i])
}

/// Arguments of a trap that native code calls through the dispatch table
/// (a 68k patch may run): handles as 68k code sees them.
///
/// # Errors
/// As [`to_app`].
pub fn call_args_to_app(m: &mut Machine, trap: u16, args: &[Arg68k]) -> Result<Vec<Arg68k>, Stop> {
    let s = slots(trap);
    let call = crate::data_mgr::internal_call(trap);
    args.iter()
        .enumerate()
        .map(|(i, a)| match *a {
            Arg68k::U32(v) if m.opaque_handles && s.args & (1 << i) != 0 => {
                Ok(Arg68k::U32(to_app(m, &call, v)?))
            }
            other => Ok(other),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_come_from_the_prototypes() {
        let find = |n: &str| table::TRAPS.iter().find(|t| t.name == n).unwrap();
        assert_eq!(
            slots_of(find("MemHandleFree")),
            HandleSlots {
                args: 1,
                result: false
            }
        );
        assert_eq!(
            slots_of(find("DmGetRecord")),
            HandleSlots {
                args: 0,
                result: true
            }
        );
        // FldSetText(FieldType *fldP, MemHandle textHandle, UInt16, UInt16).
        assert_eq!(slots_of(find("FldSetText")).args, 0b10);
        // DmAttachRecord's newH, not its MemHandle *oldHP.
        assert_eq!(slots_of(find("DmAttachRecord")).args, 0b100);
        assert_eq!(slots_of(find("DmDetachRecord")), HandleSlots::default());
        assert_eq!(slots_of(find("MemPtrNew")), HandleSlots::default());
        assert!(slots_of(find("MemPtrRecoverHandle")).result);
        assert_eq!(slots(0xA02B).args, 1, "MemHandleFree by trap word");
    }

    #[test]
    fn descriptors_hide_the_master_pointer() {
        let mut m = Machine::new(crate::memory::DEFAULT_RAM_SIZE, 0x10000).unwrap();
        m.opaque_handles = true;
        let call = crate::data_mgr::internal_call(0xA01E);
        let heap = m.os.mem.dynamic;
        let mp = heap.alloc_handle(&mut m.mem, 12, 1).unwrap();
        let d = to_app(&mut m, &call, mp).unwrap();
        assert_ne!(d, mp);
        assert_eq!(m.mem.read_u32(d).unwrap(), HANDLE_MAGIC);
        assert_eq!(m.mem.read_u32(d + 4).unwrap(), 0);
        assert_eq!(
            to_app(&mut m, &call, mp).unwrap(),
            d,
            "one descriptor per handle"
        );
        assert_eq!(to_native(&m, d), mp);
        assert_eq!(to_native(&m, 0x1234), 0x1234, "not a descriptor");
        assert_eq!(to_app(&mut m, &call, 0).unwrap(), 0);
        let free0 = heap.free_bytes(&m.mem).unwrap().0;
        forget(&mut m, mp);
        assert_eq!(to_native(&m, d), d);
        assert!(m.os.mem.opaque.is_empty());
        assert_eq!(
            heap.free_bytes(&m.mem).unwrap().0,
            free0 + DESCRIPTOR_SIZE + crate::heap::CHUNK_HEADER_SIZE,
            "the descriptor chunk is freed"
        );
        m.opaque_handles = false;
        assert_eq!(to_app(&mut m, &call, mp).unwrap(), mp, "option off");
    }
}
