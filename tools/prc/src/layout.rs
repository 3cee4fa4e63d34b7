//! Sizes and field offsets of the file layout, in bytes (all values big-endian).
//!
//! Source: PALM_FACTS §1.1 and §1.4, i.e. `DatabaseHdrType`, `RecordListType`,
//! `RsrcEntryType` and `RecordEntryType` in
//! `palm-os-sdk:sdk-3.1/include/Core/System/DataPrv.h`, the 78-byte header in
//! `cloudpilot-emu:src/cloudpilot/emulator/EmPalmStructs.i`, and the writers in
//! `prc-tools-remix:prc-tools-2.3/tools/pfd.cpp` and
//! `cloudpilot-emu:src/cloudpilot/emulator/DbExporter.cpp`.
//!
//! A file is: header (78 bytes, ending with the entry count), the entry list
//! (`count` × 10 bytes for resources, × 8 for records), a 2-byte zero gap,
//! then the AppInfo block, the SortInfo block and the entries' data, each
//! block's size implied by the next block's offset (or by the end of file).

/// Size of the file header including the 2-byte entry count: 78 (0x4E).
pub const HEADER_SIZE: usize = 78;
/// Size of the NUL-terminated, NUL-padded name field at offset 0: 32
/// (`dmDBNameLength`, `palm-os-sdk:sdk-3.5/include/Core/System/DataMgr.h`).
pub const NAME_FIELD_SIZE: usize = 32;
/// Longest name in bytes: 31, because the name field keeps a NUL terminator.
pub const MAX_NAME_LEN: usize = NAME_FIELD_SIZE - 1;
/// Offset of the `u16` attributes field (bits: [`crate::hdr_attr`]): 0x20.
pub const ATTRIBUTES_OFFSET: usize = 0x20;
/// Offset of the `u16` version field: 0x22.
pub const VERSION_OFFSET: usize = 0x22;
/// Offset of the `u32` creation date (seconds since 1904-01-01): 0x24.
pub const CREATION_DATE_OFFSET: usize = 0x24;
/// Offset of the `u32` modification date: 0x28.
pub const MODIFICATION_DATE_OFFSET: usize = 0x28;
/// Offset of the `u32` last-backup date: 0x2C.
pub const LAST_BACKUP_DATE_OFFSET: usize = 0x2C;
/// Offset of the `u32` modification number: 0x30.
pub const MODIFICATION_NUMBER_OFFSET: usize = 0x30;
/// Offset of `appInfoID`: in a file, the absolute offset of the AppInfo block, or 0: 0x34.
pub const APP_INFO_ID_OFFSET: usize = 0x34;
/// Offset of `sortInfoID`: the absolute offset of the SortInfo block, or 0: 0x38.
pub const SORT_INFO_ID_OFFSET: usize = 0x38;
/// Offset of the database type (a [`crate::FourCC`]): 0x3C.
pub const TYPE_OFFSET: usize = 0x3C;
/// Offset of the creator (a [`crate::FourCC`]): 0x40.
pub const CREATOR_OFFSET: usize = 0x40;
/// Offset of the `u32` uniqueIDSeed: 0x44.
pub const UNIQUE_ID_SEED_OFFSET: usize = 0x44;
/// Offset of the `u32` nextRecordListID, always 0 in files: 0x48.
pub const NEXT_RECORD_LIST_ID_OFFSET: usize = 0x48;
/// Offset of the `u16` entry count (`numRecords`): 0x4C.
pub const NUM_RECORDS_OFFSET: usize = 0x4C;
/// Size of a resource entry: type `u32`, id `u16`, data offset `u32` = 10 bytes.
pub const RESOURCE_ENTRY_SIZE: usize = 10;
/// Size of a record entry: data offset `u32`, attributes `u8`, unique ID 24 bits = 8 bytes.
pub const RECORD_ENTRY_SIZE: usize = 8;
/// Size of the zero gap writers put after the entry list: 2 bytes
/// (`pfd.cpp` `gap(2)`; `DbExporter.cpp` `SIZEOF_ZERO`). Readers ignore it.
pub const GAP_SIZE: usize = 2;
/// Largest record unique ID: the field is 24 bits wide.
pub const MAX_UNIQUE_ID: u32 = 0x00FF_FFFF;
