//! Bits of the header's `attributes` field ([`crate::Header::attributes`], a `u16`).
//!
//! Names and values: `dmHdrAttr*` in
//! `palm-os-sdk:sdk-3.5/include/Core/System/DataMgr.h`; 0x0400 and 0x0800
//! first appear in the sdk-4 headers. prc-tools uses the same masks
//! (`prc-tools-remix:prc-tools-2.3/tools/pfd.cpp`). See PALM_FACTS §1.2.

/// `dmHdrAttrResDB` (0x0001): a resource database (.prc). Set for every
/// application. The reader uses it to choose resource or record entries.
pub const RES_DB: u16 = 0x0001;
/// `dmHdrAttrReadOnly` (0x0002): read-only database.
pub const READ_ONLY: u16 = 0x0002;
/// `dmHdrAttrAppInfoDirty` (0x0004): the AppInfo block was modified.
pub const APP_INFO_DIRTY: u16 = 0x0004;
/// `dmHdrAttrBackup` (0x0008): back the database up to the PC at HotSync.
pub const BACKUP: u16 = 0x0008;
/// `dmHdrAttrOKToInstallNewer` (0x0010): the backup conduit may install a newer version.
pub const OK_TO_INSTALL_NEWER: u16 = 0x0010;
/// `dmHdrAttrResetAfterInstall` (0x0020): reset the device after installing.
pub const RESET_AFTER_INSTALL: u16 = 0x0020;
/// `dmHdrAttrCopyPrevention` (0x0040): do not beam or copy.
pub const COPY_PREVENTION: u16 = 0x0040;
/// `dmHdrAttrStream` (0x0080): a file-stream database.
pub const STREAM: u16 = 0x0080;
/// `dmHdrAttrHidden` (0x0100): hidden from the launcher.
pub const HIDDEN: u16 = 0x0100;
/// `dmHdrAttrLaunchableData` (0x0200): a *data* database that can be
/// "launched" through its owner app (not a flag for applications).
pub const LAUNCHABLE_DATA: u16 = 0x0200;
/// `dmHdrAttrRecyclable` (0x0400, OS 4.0+ headers).
pub const RECYCLABLE: u16 = 0x0400;
/// `dmHdrAttrBundle` (0x0800, OS 4.0+ headers).
pub const BUNDLE: u16 = 0x0800;
/// `dmHdrAttrOpen` (0x8000): the database was not closed properly.
/// CloudpilotEmu's exporter clears it (`cloudpilot-emu:.../DbExporter.cpp`).
pub const OPEN: u16 = 0x8000;
