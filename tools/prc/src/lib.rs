//! Palm OS database files: resource databases (.prc, e.g. applications) and
//! record databases (.pdb), read and written byte-exactly.
//!
//! The format is in `PALM_FACTS.md` §1 (shared design docs); every fact cited
//! here names its source there. In short, a file is a 78-byte header (name,
//! attributes, version, dates, AppInfo/SortInfo offsets, type, creator,
//! unique-ID seed, entry count), an entry list (10-byte resource entries or
//! 8-byte record entries, each with an absolute data offset), a 2-byte gap,
//! then the AppInfo block, the SortInfo block and the entries' data. Sizes are
//! implied by the next offset or the end of the file. All numbers are
//! big-endian.
//!
//! # API
//! - [`Database`] is the whole file: a [`Header`], optional AppInfo/SortInfo
//!   blocks and [`Content`], either [`Resource`]s or [`Record`]s.
//! - [`Database::parse`] reads a file and never panics; [`ReadError`] names
//!   the offset and what was wrong. What the reader tolerates is listed in
//!   [`read`].
//! - [`Database::to_bytes`] writes one; [`WriteError`] explains refusals.
//! - [`FourCC`] is a type/creator code; [`hdr_attr`] and [`rec_attr`] are the
//!   attribute bits; [`palm_to_unix`]/[`unix_to_palm`] convert dates;
//!   [`layout`] has the sizes and offsets.
//! - [`app`] builds the resources of a 68k application (`code` 0, `data` 0,
//!   `pref` 0, `tAIN`, `tver`).
//! - [`macsbug`] writes and reads the MacsBug function names inside `code`
//!   resources.
//!
//! # Example
//! ```
//! use palm_prc::{app, Database, FourCC, Header, Resource};
//!
//! let header = Header::new("Hello", app::APPL, FourCC::new(*b"HeLo"));
//! let prc = Database::new_resources(
//!     header,
//!     vec![Resource { kind: app::TVER, id: app::APP_VERSION_ID, data: app::tver("1.0")? }],
//! );
//! let bytes = prc.to_bytes()?;
//! assert_eq!(bytes.len(), 78 + 10 + 2 + 4);
//! let back = Database::parse(&bytes)?;
//! assert_eq!(back.resource(app::TVER, 1).unwrap().data, b"1.0\0");
//! assert_eq!(back, prc);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod app;
mod database;
mod date;
mod fourcc;
pub mod hdr_attr;
pub mod layout;
pub mod macsbug;
pub mod read;
pub mod rec_attr;
pub mod write;

pub use database::{Content, Database, Header, Record, Resource};
pub use date::{PALM_TO_UNIX_OFFSET, palm_to_unix, unix_to_palm};
pub use fourcc::{FourCC, ParseFourCCError};
pub use read::{Block, ReadError, foreign_format};
pub use write::WriteError;
