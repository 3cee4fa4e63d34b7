//! Bits of a record's attribute byte ([`crate::Record::attributes`], a `u8`).
//!
//! Names and values: `dmRecAttr*` in
//! `palm-os-sdk:sdk-3.5/include/Core/System/DataMgr.h` (PALM_FACTS §1.4).
//! The low nibble is the category number (0 = unfiled, `dmUnfiledCategory`).

/// `dmRecAttrDelete` (0x80): delete this record at the next sync.
pub const DELETE: u8 = 0x80;
/// `dmRecAttrDirty` (0x40): the record was modified since the last sync.
pub const DIRTY: u8 = 0x40;
/// `dmRecAttrBusy` (0x20): the record is in use (system-only).
pub const BUSY: u8 = 0x20;
/// `dmRecAttrSecret` (0x10): private, password-protected record.
pub const SECRET: u8 = 0x10;
/// `dmRecAttrCategoryMask` (0x0F): mask of the category number (0–15).
pub const CATEGORY_MASK: u8 = 0x0F;
