//! `palm-rcp`: a resource compiler for `.rcp` files in PilRC syntax, and
//! parsers of the binary Palm OS resources it produces.
//!
//! ```
//! let rcp = r#"
//!     #define MainForm 1000
//!     FORM ID MainForm AT (0 0 160 160)
//!     BEGIN
//!         TITLE "Hello"
//!         BUTTON "OK" ID 1001 AT (CENTER 140 AUTO AUTO)
//!     END
//!     VERSION "1.0"
//! "#;
//! let resources = palm_rcp::compile_str(rcp, "hello.rcp".as_ref(), &palm_rcp::NoIncludes)?;
//! assert_eq!(resources[0].kind, *b"tFRM");
//! let form = palm_rcp::form::Form::parse(&resources[0].data)?;
//! assert_eq!(form.title(), Some(&b"Hello"[..]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The `palm-rcp` command
//!
//! ```text
//! palm-rcp app.rcp [-o DIR] [-I include-dir]... [-q] [-H FILE] [-idStart N]
//!          [-L LANG]... [-noEllipsis] [-allowEditID] [-Fh|-Fc]
//!          [-ro [-type TYPE] [-creator CRID] [-name NAME]]
//! ```
//!
//! writes one `.bin` file per resource ([`Resource::file_name`]) in `DIR`, or
//! in the current directory without `-o` (as PilRC does), and prints each file
//! written with its size, then a summary line naming the directory (`-q`:
//! nothing). With `-ro` it writes one resource database instead
//! ([`resource_database`]): `-o` names the file (`.ro` added to a name
//! without an extension), else the input's name with `.ro` for `.rcp`. Exit
//! status 0 on success; 2 on any error, printed as one line
//! `palm-rcp: error: ...`: bad arguments (clap's usage message), a compile
//! error (`palm-rcp: error: file:line:column: message`), a file that cannot be
//! read (`palm-rcp: error: file: cannot read file: ...`), or an output that
//! cannot be written. Nothing is written when the source has an error.
//!
//! # Resources
//!
//! | statement | resource | model / layout |
//! |---|---|---|
//! | `FORM ID n AT (x y w h) [flags] BEGIN objects END` | `tFRM` n | [`form::Form`] |
//! | `MENU ID n BEGIN PULLDOWN "title" BEGIN items END ... END` | `MBAR` n | [`menu::MenuBar`] |
//! | `ALERT ID n [type] [HELPID h] [DEFAULTBUTTON i] BEGIN TITLE "t" MESSAGE "m" BUTTONS "OK" ... END` | `Talt` n | [`alert::Alert`] |
//! | `STRING ID n "text"` or `STRING ID n FILE "f"` | `tSTR` n | [`strings::parse_text`] |
//! | `STRINGTABLE ID n "prefix" "s1" ...` | `tSTL` n | [`strings::parse_string_table`] |
//! | `CATEGORIES ID n "c1" ...` | `tAIS` n | [`strings::encode_categories`] |
//! | `VERSION [ID n] "1.0"` | `tver` n (default 1) | [`strings::parse_text`] |
//! | `APPLICATIONICONNAME ID n "name"` | `tAIN` n | [`strings::parse_text`] |
//! | `APPLICATION ID n "CRID"` | `APPL` n | [`strings::parse_application`] |
//! | `LAUNCHERCATEGORY [ID n] "name"` | `taic` n (default 1000) | the name and its NUL |
//! | `BITMAP*`, `ICON*`, `SMALLICON*` (families too) | `Tbmp` / `tAIB` n | [`bitmap`] |
//! | `FONT ID n FONTID f "font.txt"` | `NFNT` n | [`font`] |
//! | `DATA "type" ID n "file"`, `HEX "type" ID n ...` | type n | the bytes |
//! | `INTEGER ID n [VALUE] v` | `tint` n | `UInt32` |
//! | `BYTELIST` / `WORDLIST` / `LONGWORDLIST ID n BEGIN v ... END` | `BLST` / `wrdl` / `DLST` n | `BLST`, `DLST`: a 0 default item; then the count (`UInt16`) and the values (8, 16, 32 bits) |
//! | `PALETTETABLE ID n BEGIN i r g b ... END` | `tclt` n | the count (`UInt16`), then index, red, green, blue bytes per color (SDK 3.5 `UIResources.h` `colorTableRsc`) |
//! | `TRAP ID n [VALUE] t` | `TRAP` n (n ≥ 1000) | the trap word (`0xA000` added to an index), for HackMaster |
//!
//! Directives that make no resource: `TRANSLATION "lang" BEGIN "a" = "b" ...
//! END` (applied with `-L lang`), `GENERATEHEADER "file"`, `RESETAUTOID n`,
//! and `AUTOID` for an ID (see [`Options`]).
//!
//! The keyword `ID` is optional before an ID, as in PilRC. Keywords are
//! case-insensitive; symbols are case-sensitive.
//!
//! **Form flags**: `USABLE`/`NONUSABLE`, `MODAL`, `SAVEBEHIND`/`NOSAVEBEHIND`,
//! `FRAME`/`NOFRAME`/`BOLDFRAME`/`RECTFRAME`, `HELPID n`, `MENUID n`,
//! `DEFAULTBTNID n` (alias `DEFAULTBUTTON`), `ENABLED`/`DISABLED` (accepted,
//! no effect, as in PilRC). Defaults as PilRC: usable, save-behind, frame width
//! 1; `MODAL` sets the dialog frame.
//!
//! **Form objects** (in list order):
//! - `TITLE "text"`
//! - `BUTTON`, `REPEATBUTTON`, `PUSHBUTTON`, `CHECKBOX`, `SELECTORTRIGGER`:
//!   `"label" ID n AT (x y w h)` then `USABLE`/`NONUSABLE`, `ENABLED`/`DISABLED`,
//!   `LEFTANCHOR`/`RIGHTANCHOR`, `FONT f`; buttons also `FRAME`/`NOFRAME`/
//!   `BOLDFRAME`/`RECTFRAME`; push buttons and check boxes `GROUP g`; check boxes
//!   `CHECKED` (alias `ON`).
//! - `LABEL "text" ID n AT (x y) [USABLE|NONUSABLE] [FONT f]`
//! - `FIELD ID n AT (x y w h)` then `USABLE`/`NONUSABLE`, `EDITABLE`/`NONEDITABLE`,
//!   `UNDERLINED`, `SINGLELINE`/`MULTIPLELINES`, `DYNAMICSIZE`, `MAXCHARS n`,
//!   `LEFTALIGN`/`RIGHTALIGN`, `FONT f`, `AUTOSHIFT`, `HASSCROLLBAR`, `NUMERIC`.
//!   Defaults as PilRC: usable, editable, single line, `MAXCHARS 0`.
//! - `GRAFFITISTATEINDICATOR AT (x y)`; `NOGRAFFITISTATEINDICATOR` is accepted.
//! - `POPUPTRIGGER "label" ID n AT (...)` (a control), with `POPUPLIST ID
//!   trigger list` linking it to a `LIST "item" ... ID n AT (...)
//!   [VISIBLEITEMS v] [SEARCH] [FONT f]`; `TABLE`, `FORMBITMAP`, `GADGET`,
//!   `SCROLLBAR ... VALUE MIN MAX PAGESIZE`, `SLIDER`, graphic controls
//!   (`GRAPHICAL BITMAPID b SELECTEDBITMAPID s`): [`form`] documents each
//!   object, its options and its layout.
//!
//! **Menus**: `MENUITEM "text" ID n ["K"]` (a one-character shortcut, upper-cased)
//! or `MENUITEM SEPARATOR [ID n]`. A trailing `...` becomes the Palm ellipsis
//! (0x85) in menu items and `STRING`s, as in PilRC. Pull-down bounds are
//! computed as PilRC does, from `boldFont` widths.
//!
//! **Alerts**: `INFORMATION` (default), `CONFIRMATION`, `WARNING`, `ERROR`;
//! `DEFAULTBUTTON` is a button index; at least one button is required.
//!
//! # Coordinates
//!
//! Each of `AT (x y w h)` / `AT (x y)` is a constant expression or:
//! - `AUTO` (width or height): the label's width in its font plus PilRC's
//!   margins (buttons 12, push buttons and selector triggers 6, check boxes 18),
//!   or the font height + 1. The metrics of the ROM fonts 0-7 are built in
//!   ([`fonts`]); a `FONT` statement defines those of its font ID.
//! - `CENTER` (position): centred in the form; `CENTER@v`: centred on `v`.
//! - `RIGHT@v` / `BOTTOM@v` (position): right or bottom edge at `v`.
//!
//! Expressions are numbers (decimal, `0x` hex, `'ABCD'` character constants),
//! `#define`d symbols, `PREVLEFT`, `PREVRIGHT`, `PREVTOP`, `PREVBOTTOM`,
//! `PREVWIDTH`, `PREVHEIGHT` (the previous object of the same form; on a
//! form's first object the form's own bounds, as PilRC resolves them),
//! parentheses, unary `-` and `+ - * /`. Mixing `+`/`-` with `*`/`/` without
//! parentheses is an error, because PilRC evaluates left to right. `AUTO` and
//! `CENTER` are not allowed in `FORM` bounds. `AT` is optional before bounds.
//!
//! # Preprocessor
//!
//! `#define NAME value` (number, expression or string), `#undef`, `#ifdef`,
//! `#ifndef`, `#else`, `#endif`, `#error`, and `#include "file"`: a file whose
//! extension starts with `r` is more `.rcp` source, any other is a C header of
//! which only the directives count. `#include <...>` is skipped. `#if` and
//! `#elif` are errors. Strings are joined with `+` or `\`; a string symbol can
//! stand for a string. Source files are UTF-8 (or Latin-1 bytes), mapped to the
//! Palm character set ([`charset`]). Comments are `//` and `/* */`.
//!
//! A UTF-8 byte order mark at the start of a file is skipped. Escapes in
//! strings and character constants: `\a \b \f \n \r \t \v`, `\e` (ESC),
//! `\z` (Ctrl-Z), `\_` (nothing), octal `\ooo`, hexadecimal `\xhh`, and `\"`,
//! `\'`, `\\`, `\?` for the character itself. Any other escape is an error:
//! PilRC silently keeps the character (`\q` is `q`: its lexer's escape
//! `switch` has no `default`, `jichu4n/pilrc:lex.c` `FGetLex`), which hides
//! typos.
//!
//! # Limits
//!
//! Source files (the `.rcp` and every `#include`d file) are read only if they
//! are regular files of at most [`MAX_SOURCE_FILE`] (16 MiB); a device, FIFO or
//! directory is an error. A compiled resource may not exceed
//! [`MAX_RESOURCE_SIZE`] (65,505 bytes): a Palm resource is one storage-heap
//! chunk, and `memMaxChunkAllocSize` is 65,505 (PALM_FACTS §5.2). The error
//! names the statement and the resource's size.
//!
//! # Errors
//!
//! Every compile error is an [`RcpError`] naming file, line and column
//! (`file:line:column: message`), except a file that cannot be read at all,
//! which is named without a position (`file: cannot read file: ...`). The
//! PilRC statements for Palm OS 5 or Palm-internal resources (`FONTFAMILY`,
//! `NAVIGATION`, `MIDI`, ...) are reported as not supported (the README
//! lists them with the reasons). Two objects of one form may not share an ID, except two labels
//! (PilRC warns about duplicate form object IDs but not about labels, whose IDs
//! nothing looks up: `jichu4n/pilrc:pilrc.c` `AddObject`); the error names both
//! positions. Neither the compiler nor the binary parsers panic on any input.
//!
//! # Resource IDs for the app's code
//!
//! [`ids`] gives the numbers a `.rcp` and its headers `#define`, as Rust
//! constants or a C header, so IDs are written once (palm-build generates
//! them when it builds an app).
//!
//! # Binary layouts
//!
//! Each resource module documents its 68k layout and the SDK header and PilRC
//! function it follows: [`form`], [`menu`], [`alert`], [`strings`],
//! [`bitmap`], [`font`].

#![deny(missing_docs)]

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

pub mod alert;
pub mod bitmap;
mod bytes;
pub mod charset;
mod compile;
mod error;
mod expr;
pub mod font;
pub mod fonts;
pub mod form;
mod geom;
pub mod ids;
mod lex;
pub mod menu;
mod pp;
pub mod strings;

pub use error::{EncodeError, ParseError, RcpError};
pub use geom::{Point, Rect};

/// Largest source file read, main `.rcp` or `#include`d: 16 MiB (real ones are
/// a few KB; this bounds what a wrong path, e.g. a device, can make us read).
pub const MAX_SOURCE_FILE: u64 = 16 << 20;

/// Largest resource the compiler produces: 65,505 bytes. A Palm resource is a
/// storage-heap chunk, at most `memMaxChunkAllocSize` = 0xFFFF − 30 bytes
/// (`MemoryPrv.h`; PALM_FACTS §5.2).
pub const MAX_RESOURCE_SIZE: usize = 65_505;

/// What a file that is not a regular file is, in words.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Reads a source file: a regular file (checked before it is opened, so a
/// FIFO does not block) of at most [`MAX_SOURCE_FILE`] bytes.
///
/// # Errors
/// The file cannot be read, is not a regular file or is too large (an error
/// of kind `InvalidInput` that says so).
pub fn read_source_file(path: &Path) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let invalid = |msg: String| io::Error::new(io::ErrorKind::InvalidInput, msg);
    let too_large = || {
        invalid(format!(
            "larger than {} MiB, the limit for a source file",
            MAX_SOURCE_FILE >> 20
        ))
    };
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(invalid(format!(
            "{}, not a source file: only regular files are read",
            file_kind(&meta)
        )));
    }
    if meta.len() > MAX_SOURCE_FILE {
        return Err(too_large());
    }
    let mut data = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    std::fs::File::open(path)?
        .take(MAX_SOURCE_FILE + 1)
        .read_to_end(&mut data)?;
    if data.len() as u64 > MAX_SOURCE_FILE {
        return Err(too_large());
    }
    Ok(data)
}

/// One compiled resource: its four-character type, its ID, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// Resource type, e.g. `*b"tFRM"`.
    pub kind: [u8; 4],
    /// Resource ID.
    pub id: u16,
    /// The resource's bytes, exactly as the OS reads them.
    pub data: Vec<u8>,
}

impl Resource {
    /// The file name PilRC gives the resource: type, ID in 4 lower-case hex
    /// digits, `.bin` (`tFRM03e8.bin`).
    pub fn file_name(&self) -> String {
        format!("{}{:04x}.bin", String::from_utf8_lossy(&self.kind), self.id)
    }
}

/// Finds and reads the files named by `#include`.
pub trait IncludeResolver {
    /// Reads the file `name` (as written in `#include "name"`) included by the
    /// file at `from` (as named in errors). Returns the path to show for the
    /// included file and its bytes.
    fn resolve(&self, from: &Path, name: &str) -> io::Result<(PathBuf, Vec<u8>)>;
}

/// Reads included files from the file system: first next to the including
/// file, then in each of `search_dirs` in order (PilRC's `-I`), with the
/// checks of [`read_source_file`].
#[derive(Debug, Clone, Default)]
pub struct FsIncludes {
    /// Directories searched after the including file's own.
    pub search_dirs: Vec<PathBuf>,
}

impl IncludeResolver for FsIncludes {
    fn resolve(&self, from: &Path, name: &str) -> io::Result<(PathBuf, Vec<u8>)> {
        let own_dir = from.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut first_error = None;
        for dir in std::iter::once(&own_dir).chain(&self.search_dirs) {
            let path = dir.join(name);
            match read_source_file(&path) {
                Ok(bytes) => return Ok((path, bytes)),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        Err(first_error.unwrap_or_else(|| io::Error::from(io::ErrorKind::NotFound)))
    }
}

/// Included files held in memory, by name (for tests and for tools that
/// generate headers).
#[derive(Debug, Clone, Default)]
pub struct MemoryIncludes {
    files: BTreeMap<String, Vec<u8>>,
}

impl MemoryIncludes {
    /// No files.
    pub fn new() -> MemoryIncludes {
        MemoryIncludes::default()
    }

    /// Adds the file `name` with `text`.
    pub fn with(mut self, name: &str, text: &str) -> MemoryIncludes {
        self.files.insert(name.to_owned(), text.as_bytes().to_vec());
        self
    }
}

impl IncludeResolver for MemoryIncludes {
    fn resolve(&self, _from: &Path, name: &str) -> io::Result<(PathBuf, Vec<u8>)> {
        self.files
            .get(name)
            .map(|b| (PathBuf::from(name), b.clone()))
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such include file"))
    }
}

/// Refuses every `#include` and data file (bitmaps, `DATA`, `STRING ... FILE`).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoIncludes;

impl IncludeResolver for NoIncludes {
    fn resolve(&self, _from: &Path, _name: &str) -> io::Result<(PathBuf, Vec<u8>)> {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            "no file can be read here (NoIncludes)",
        ))
    }
}

/// Compiles `.rcp` source `text` into its resources, in source order; `path`
/// names it in errors and is where relative `#include`s start from.
///
/// Errors: the first problem found, as an [`RcpError`] with the file, line
/// and column of the offending token.
pub fn compile_str(
    text: &str,
    path: &Path,
    includes: &dyn IncludeResolver,
) -> Result<Vec<Resource>, RcpError> {
    compile_with(text, path, includes, &Options::default()).map(|c| c.resources)
}

/// PilRC's command-line switches that change what a compile produces.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `-noEllipsis`: keep a trailing `...` of menu items and strings as
    /// three periods instead of the Palm ellipsis 0x85.
    pub no_ellipsis: bool,
    /// `-allowEditID`: IDs 10000-10007 (the system Edit menu's) do not warn.
    pub allow_edit_id: bool,
    /// `-allowBadSize`: an `ICON` (ID 1000) or `SMALLICON` (ID 1001) of
    /// another size than the launcher's does not warn.
    pub allow_bad_size: bool,
    /// `-Fh` / `-Fc`: Hebrew or Cyrillic character widths for `AUTO`.
    pub script: fonts::Script,
    /// `-L`: the `TRANSLATION` languages to apply (case-insensitive).
    pub languages: Vec<String>,
    /// `-H FILE`: automatic IDs for undefined symbols, written to FILE as
    /// `#define`s ([`Compiled::header_text`]).
    pub header: Option<PathBuf>,
    /// `-idStart n`: automatic IDs count up from n + 1 (default: down from 9998).
    pub id_start: Option<i32>,
}

/// Everything one compile produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    /// The resources, in source order.
    pub resources: Vec<Resource>,
    /// Where each of [`Compiled::resources`] is defined (the same order): the
    /// file (the `.rcp` as given, or an `#include`d file) and line of its
    /// statement, for errors about the resource that are found later (a
    /// resource ID two `.rcp` files of one app both define).
    pub origins: Vec<(String, u32)>,
    /// PilRC's warnings (editable field without a Graffiti State Indicator,
    /// IDs in the reserved range, scroll bars not 7 pixels wide, ...), each
    /// with its position; the resources are written all the same.
    pub warnings: Vec<RcpError>,
    /// The symbols given automatic IDs (`AUTOID`-style, with `-H` or
    /// `GENERATEHEADER`), in the order they were assigned.
    pub auto_ids: Vec<(String, i64)>,
    /// The file named by `GENERATEHEADER "file"`, if any.
    pub header_file: Option<String>,
}

impl Compiled {
    /// The C header PilRC writes for `-H` / `GENERATEHEADER`: a comment line,
    /// then `#define NAME value` for each automatic ID, newest first
    /// (`jichu4n/pilrc:pilrc.c` `WriteIncFile`).
    pub fn header_text(&self) -> String {
        let mut out = String::from("/* pilrc generated file.  Do not edit!*/\n");
        for (name, id) in self.auto_ids.iter().rev() {
            out.push_str(&format!("#define {name} {id}\n"));
        }
        out
    }
}

/// The type PilRC gives a `-ro` resource database without `-type`.
pub const RO_TYPE: [u8; 4] = *b"RESO";
/// The creator PilRC gives a `-ro` resource database without `-creator`.
pub const RO_CREATOR: [u8; 4] = *b"pRES";
/// The creation and modification date of a `-ro` database, in seconds since
/// 1904 (1996-05-16 11:14:40): PilRC writes this constant, prc-tools'
/// build-prc 0.5.0's, so that rebuilds are identical.
pub const RO_DATE: u32 = 0xADC0_BEA0;

/// `resources` as a resource database file, what PilRC's `-ro` writes
/// (`jichu4n/pilrc:util.c` `WriteOutResourceDB`): a PRC whose header has
/// `name` (at most 31 bytes are kept: PilRC copies 32, which leaves a
/// 32-byte name without its NUL), attributes `dmHdrAttrResDB`, version 1,
/// both dates [`RO_DATE`], type `kind` and `creator`, then the resources in
/// order ([`palm_prc`]'s layout, which is PilRC's).
///
/// # Errors
/// An empty name, two resources with the same type and ID, or more than
/// 65,535 resources ([`palm_prc::WriteError`]).
pub fn resource_database(
    resources: &[Resource],
    name: &[u8],
    kind: [u8; 4],
    creator: [u8; 4],
) -> Result<Vec<u8>, palm_prc::WriteError> {
    let name = &name[..name.len().min(palm_prc::layout::MAX_NAME_LEN)];
    let mut header = palm_prc::Header::new(name, palm_prc::FourCC(kind), palm_prc::FourCC(creator));
    header.version = 1;
    header.creation_date = RO_DATE;
    header.modification_date = RO_DATE;
    let resources = resources
        .iter()
        .map(|r| palm_prc::Resource {
            kind: palm_prc::FourCC(r.kind),
            id: r.id,
            data: r.data.clone(),
        })
        .collect();
    palm_prc::Database::new_resources(header, resources).to_bytes()
}

/// Compiles `.rcp` source `text` with PilRC's `opts` (see [`compile_str`]).
///
/// Errors: the first problem found, as an [`RcpError`]; an empty source (no
/// resource at all) is an error, as in PilRC.
pub fn compile_with(
    text: &str,
    path: &Path,
    includes: &dyn IncludeResolver,
    opts: &Options,
) -> Result<Compiled, RcpError> {
    let mut src = preprocess(text, path, includes)?;
    let produced = compile::compile(&mut src, opts).map_err(|d| error_at(&src, d))?;
    Ok(Compiled {
        resources: produced.resources,
        origins: produced
            .origins
            .into_iter()
            .map(|p| (src.file_name(p).to_owned(), p.line))
            .collect(),
        warnings: produced
            .warnings
            .into_iter()
            .map(|d| error_at(&src, d))
            .collect(),
        auto_ids: produced.auto_symbols,
        header_file: produced
            .header_file
            .map(|f| String::from_utf8_lossy(&f).into_owned()),
    })
}

/// The preprocessed token stream of `text`, the file `path` (the first step
/// of [`compile_with`] and [`ids::defines_str`]).
pub(crate) fn preprocess<'r>(
    text: &str,
    path: &Path,
    includes: &'r dyn IncludeResolver,
) -> Result<pp::Source<'r>, RcpError> {
    let name = path.display().to_string();
    pp::Source::new(text, name.clone(), path.to_path_buf(), includes).map_err(|d| RcpError {
        file: name,
        line: d.pos.line,
        column: d.pos.col,
        message: d.msg,
    })
}

/// The [`RcpError`] of a diagnostic in `src`'s files.
pub(crate) fn error_at(src: &pp::Source<'_>, d: lex::Diag) -> RcpError {
    RcpError {
        file: src.file_name(d.pos).to_owned(),
        line: d.pos.line,
        column: d.pos.col,
        message: d.msg,
    }
}

/// The text of the source file at `path` ([`read_source_file`]), or an
/// error about the whole file (line and column 0).
pub(crate) fn read_source_text(path: &Path) -> Result<String, RcpError> {
    let bytes = read_source_file(path).map_err(|e| RcpError {
        file: path.display().to_string(),
        line: 0,
        column: 0,
        message: format!("cannot read file: {e}"),
    })?;
    Ok(charset::source_text(&bytes))
}

/// Compiles the `.rcp` file at `path`, with includes found next to it (see
/// [`compile_str`]; a file that cannot be read is an error about the whole
/// file, with line and column 0).
pub fn compile_file(path: impl AsRef<Path>) -> Result<Vec<Resource>, RcpError> {
    compile_file_with(path.as_ref(), &FsIncludes::default())
}

/// Compiles the `.rcp` file at `path` with `includes` and PilRC's `opts`
/// (see [`compile_file_with`] and [`compile_with`]).
pub fn compile_file_opts(
    path: &Path,
    includes: &dyn IncludeResolver,
    opts: &Options,
) -> Result<Compiled, RcpError> {
    compile_with(&read_source_text(path)?, path, includes, opts)
}

/// Compiles the `.rcp` file at `path` with `includes` resolving `#include`s.
/// A file that cannot be read ([`read_source_file`]: not a regular file, too
/// large) is an error about the whole file: line and column 0, shown as
/// `file: cannot read file: ...`.
pub fn compile_file_with(
    path: &Path,
    includes: &dyn IncludeResolver,
) -> Result<Vec<Resource>, RcpError> {
    compile_file_opts(path, includes, &Options::default()).map(|c| c.resources)
}
