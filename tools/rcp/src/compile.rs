//! The resource compiler: parses the preprocessed `.rcp` token stream and builds
//! the resource models, following PilRC's grammar and defaults
//! (`jichu4n/pilrc:pilrc.c` `ParseItm`, `FParseForm`, `FParseObjects`,
//! `FParseMenu`, `FParsePullDown`, `ParseDumpAlert`, `ParseDumpString`, ...).
//! The accepted language is documented at the crate root.

use std::collections::HashMap;

use crate::Options;
use crate::Resource;
use crate::alert::{Alert, AlertType};
use crate::error::EncodeError;
use crate::expr::{self, Cursor, Prev, Value};
use crate::fonts::Metrics;
use crate::form::{
    Control, ControlAttr, ControlStyle, Field, FieldAttr, Form, FormBitmap, FormObject, FrameBits,
    Gadget, GraffitiState, GraphicControl, Label, List, ListAttr, Popup, ScrollBar, Slider, Table,
    Title,
};
use crate::geom::{Point, Rect};
use crate::lex::{Diag, Pos, Tok, Token};
use crate::menu::{MenuBar, MenuItem, Pulldown};
use crate::pp::Source;
use crate::strings::{self, TextKind};

/// Screen width PilRC lays menus out for (`pilrc.h` `dxScreen`).
const SCREEN_WIDTH: i64 = 160;
/// Size of the Graffiti shift indicator for `AUTO` (`pilrc.h` `kGsiWidth`, `kGsiHeight`).
const GSI_SIZE: (i64, i64) = (9, 10);
/// Extra width `AUTO` adds around a control's label (`pilrc.c`
/// `dxObjSmallMargin` 3 and `dxObjBigMargin` 6, on each side).
const SMALL_MARGIN: i64 = 2 * 3;
const BIG_MARGIN: i64 = 2 * 6;

const RESOURCES: &str = "FORM, MENU, ALERT, STRING, STRINGTABLE, CATEGORIES, VERSION, \
                         APPLICATIONICONNAME, APPLICATION, LAUNCHERCATEGORY, BITMAP*, ICON*, SMALLICON*, FONT, \
                         DATA, HEX, INTEGER, BYTELIST, WORDLIST, LONGWORDLIST, PALETTETABLE, \
                         TRAP";
/// The statements that make no resource.
const DIRECTIVES: &str = "TRANSLATION, GENERATEHEADER, RESETAUTOID";
const FORM_OBJECTS: &str = "TITLE, BUTTON, PUSHBUTTON, CHECKBOX, REPEATBUTTON, SELECTORTRIGGER, \
                            POPUPTRIGGER, POPUPLIST, LABEL, FIELD, LIST, TABLE, FORMBITMAP, \
                            GADGET, SCROLLBAR, SLIDER, GRAFFITISTATEINDICATOR";

/// PilRC resource keywords this compiler does not implement (PilRC 3.2
/// statements for Palm OS 5 devices and Palm-internal resources).
const UNSUPPORTED_RESOURCES: &[&str] = &[
    "BITMAPFAMILYSPECIAL",
    "BOOTSCREENFAMILY",
    "FONTFAMILY",
    "MIDI",
    "NAVIGATION",
];

/// Attribute keywords this compiler understands (each object allows a subset).
const FLAGS: &[&str] = &[
    "USABLE",
    "NONUSABLE",
    "ENABLED",
    "DISABLED",
    "LEFTANCHOR",
    "RIGHTANCHOR",
    "GROUP",
    "FONT",
    "FONTID",
    "FRAME",
    "NOFRAME",
    "BOLDFRAME",
    "RECTFRAME",
    "CHECKED",
    "ON",
    "EDITABLE",
    "NONEDITABLE",
    "UNDERLINED",
    "SINGLELINE",
    "MULTIPLELINES",
    "MULTIPLELINE",
    "DYNAMICSIZE",
    "MAXCHARS",
    "LEFTALIGN",
    "RIGHTALIGN",
    "AUTOSHIFT",
    "HASSCROLLBAR",
    "NUMERIC",
    "MODAL",
    "SAVEBEHIND",
    "NOSAVEBEHIND",
    "HELPID",
    "DEFAULTBTNID",
    "DEFAULTBUTTON",
    "MENUID",
    "INFORMATION",
    "CONFIRMATION",
    "WARNING",
    "ERROR",
    "GRAPHICAL",
    "BITMAPID",
    "SELECTEDBITMAPID",
    "VISIBLEITEMS",
    "SEARCH",
    "EXTENDED",
    "NONEXTENDED",
    "VALUE",
    "MIN",
    "MINVALUE",
    "MAX",
    "MAXVALUE",
    "PAGESIZE",
    "FEEDBACK",
    "THUMBID",
    "BACKGROUNDID",
    "VERTICAL",
    "BITMAP",
    "COLUMNS",
    "NUMCOLUMNS",
    "ROWS",
    "NUMROWS",
    "COLUMNWIDTHS",
    "WIDTHS",
];

/// PilRC attribute keywords this compiler does not implement.
const UNSUPPORTED_FLAGS: &[&str] = &["LOCALE"];

const COMMON: &[&str] = &["USABLE", "NONUSABLE", "ENABLED", "DISABLED"];
const FRAMES: &[&str] = &["FRAME", "NOFRAME", "BOLDFRAME", "RECTFRAME"];
const FORM_FLAGS: &[&[&str]] = &[
    COMMON,
    FRAMES,
    &[
        "MODAL",
        "SAVEBEHIND",
        "NOSAVEBEHIND",
        "HELPID",
        "DEFAULTBTNID",
        "DEFAULTBUTTON",
        "MENUID",
    ],
];
const ANCHOR: &[&str] = &["FONT", "FONTID", "LEFTANCHOR", "RIGHTANCHOR"];
const GRAPHIC: &[&str] = &["GRAPHICAL", "BITMAPID", "SELECTEDBITMAPID"];
const BUTTON_FLAGS: &[&[&str]] = &[COMMON, ANCHOR, FRAMES, GRAPHIC];
const PUSH_FLAGS: &[&[&str]] = &[COMMON, ANCHOR, &["GROUP"], GRAPHIC];
const CHECKBOX_FLAGS: &[&[&str]] = &[COMMON, ANCHOR, &["GROUP", "CHECKED", "ON"]];
const SELECTOR_FLAGS: &[&[&str]] = &[COMMON, ANCHOR, GRAPHIC];
const LABEL_FLAGS: &[&[&str]] = &[&["USABLE", "NONUSABLE", "FONT", "FONTID"]];
const FIELD_FLAGS: &[&[&str]] = &[
    COMMON,
    &[
        "FONT",
        "FONTID",
        "LEFTALIGN",
        "RIGHTALIGN",
        "EDITABLE",
        "NONEDITABLE",
        "UNDERLINED",
        "SINGLELINE",
        "MULTIPLELINES",
        "MULTIPLELINE",
        "DYNAMICSIZE",
        "MAXCHARS",
        "AUTOSHIFT",
        "HASSCROLLBAR",
        "NUMERIC",
    ],
];
const LIST_FLAGS: &[&[&str]] = &[COMMON, &["FONT", "FONTID", "VISIBLEITEMS", "SEARCH"]];
const GADGET_FLAGS: &[&[&str]] = &[&["USABLE", "NONUSABLE", "EXTENDED", "NONEXTENDED"]];
const FORM_BITMAP_FLAGS: &[&[&str]] = &[&["USABLE", "NONUSABLE", "BITMAP"]];
const TABLE_FLAGS: &[&[&str]] = &[&[
    "EDITABLE",
    "NONEDITABLE",
    "COLUMNS",
    "NUMCOLUMNS",
    "ROWS",
    "NUMROWS",
    "COLUMNWIDTHS",
    "WIDTHS",
]];
const VALUES: &[&str] = &["VALUE", "MIN", "MINVALUE", "MAX", "MAXVALUE", "PAGESIZE"];
const SCROLL_BAR_FLAGS: &[&[&str]] = &[&["USABLE", "NONUSABLE"], VALUES];
const SLIDER_FLAGS: &[&[&str]] = &[
    COMMON,
    VALUES,
    &["THUMBID", "BACKGROUNDID", "VERTICAL", "FEEDBACK"],
];
const ALERT_FLAGS: &[&[&str]] = &[&[
    "HELPID",
    "DEFAULTBTNID",
    "DEFAULTBUTTON",
    "INFORMATION",
    "CONFIRMATION",
    "WARNING",
    "ERROR",
]];

/// An object's attributes, with PilRC's defaults (`ParseItm`, non-PalmRez mode).
struct Item {
    usable: bool,
    enabled: bool,
    left_anchor: bool,
    frame: u8,
    font: u8,
    group: u8,
    on: bool,
    editable: bool,
    underlined: bool,
    single_line: bool,
    dynamic_size: bool,
    max_chars: u16,
    justification: u8,
    auto_shift: bool,
    has_scroll_bar: bool,
    numeric: bool,
    modal: bool,
    save_behind: bool,
    help_id: u16,
    default_button: (u16, Option<Pos>),
    menu_id: u16,
    alert_type: AlertType,
    graphical: bool,
    bitmap_id: u16,
    selected_bitmap_id: u16,
    visible_items: Option<i64>,
    search: bool,
    value: i64,
    min: i64,
    max: i64,
    page_size: i64,
    feedback: bool,
    thumb_id: u16,
    background_id: u16,
    vertical: bool,
    rsc_id: u16,
    columns: u16,
    rows: u16,
    column_widths: Vec<u16>,
}

impl Item {
    fn pilrc_defaults() -> Item {
        Item {
            usable: true,
            enabled: true,
            left_anchor: true,
            frame: 1,
            font: 0,
            group: 0,
            on: false,
            editable: true,
            underlined: false,
            single_line: true,
            dynamic_size: false,
            max_chars: 0,
            justification: 0,
            auto_shift: false,
            has_scroll_bar: false,
            numeric: false,
            modal: false,
            save_behind: true,
            help_id: 0,
            default_button: (0, None),
            menu_id: 0,
            alert_type: AlertType::Information,
            graphical: false,
            bitmap_id: 0,
            selected_bitmap_id: 0,
            visible_items: None,
            search: false,
            value: 0,
            min: 0,
            max: 0,
            page_size: 0,
            feedback: false,
            thumb_id: 0,
            background_id: 0,
            vertical: false,
            rsc_id: 0,
            columns: 0,
            rows: 0,
            column_widths: Vec::new(),
        }
    }
}

/// One coordinate of an `AT (...)` before it is resolved.
#[derive(Clone, Copy)]
enum Coord {
    Value(i64, Pos),
    Auto(Pos),
    AutoAtLeast(i64, Pos),
    Center(Pos),
    CenterAt(i64, Pos),
    RightAt(i64, Pos),
    BottomAt(i64, Pos),
}

impl Coord {
    fn pos(self) -> Pos {
        match self {
            Coord::Value(_, p)
            | Coord::Auto(p)
            | Coord::AutoAtLeast(_, p)
            | Coord::Center(p)
            | Coord::CenterAt(_, p)
            | Coord::RightAt(_, p)
            | Coord::BottomAt(_, p) => p,
        }
    }

    /// The coordinate as a width or height; `auto` computes `AUTO`.
    fn extent(self, auto: impl FnOnce(Pos) -> Result<i64, Diag>) -> Result<i64, Diag> {
        match self {
            Coord::Value(v, _) => Ok(v),
            Coord::Auto(p) => auto(p),
            Coord::AutoAtLeast(v, p) => Ok(auto(p)?.max(v)),
            other => Err(Diag::new(
                other.pos(),
                "CENTER, RIGHT@ and BOTTOM@ give a position, not a width or height",
            )),
        }
    }

    /// The coordinate as a position, for an object `extent` pixels across in
    /// a form `across` pixels across (`None` for the form's own bounds).
    fn origin(self, extent: Option<i64>, across: Option<i64>) -> Result<i64, Diag> {
        let need = |p| {
            extent.ok_or_else(|| {
                Diag::new(
                    p,
                    "this position needs the object's width, which is unknown (its font has no built-in metrics)",
                )
            })
        };
        let overflow = |p| Diag::new(p, "arithmetic overflow");
        match self {
            Coord::Value(v, _) => Ok(v),
            Coord::Auto(p) | Coord::AutoAtLeast(_, p) => {
                Err(Diag::new(p, "AUTO gives a width or height, not a position"))
            }
            Coord::Center(p) => {
                let across = across.ok_or_else(|| {
                    Diag::new(p, "CENTER needs a form to center in; use CENTER@x")
                })?;
                Ok(across.checked_sub(need(p)?).ok_or_else(|| overflow(p))? / 2)
            }
            Coord::CenterAt(v, p) => {
                let extent = need(p)?;
                v.checked_mul(2)
                    .and_then(|v2| v2.checked_sub(extent))
                    .map(|d| d / 2)
                    .ok_or_else(|| overflow(p))
            }
            Coord::RightAt(v, p) | Coord::BottomAt(v, p) => {
                v.checked_sub(need(p)?).ok_or_else(|| overflow(p))
            }
        }
    }
}

pub(crate) struct Compiler<'s, 'r> {
    src: &'s mut Source<'r>,
    opts: &'s Options,
    out: Vec<Resource>,
    seen: HashMap<([u8; 4], u16), Pos>,
    /// The previous object's rectangle (`PREV*`): the form's own bounds before
    /// its first object, as in PilRC (`ResolveKrcKpt` sets `rcPrev` for the
    /// `FORM` line too).
    prev: Option<Prev>,
    /// The current form's width and height (`CENTER`).
    form_size: Option<(i64, i64)>,
    metrics: Metrics,
    warnings: Vec<Diag>,
    /// Automatic IDs: on (`-H`, `GENERATEHEADER`), the last ID given, the step.
    auto: AutoIds,
    /// The symbols given automatic IDs, in order of assignment.
    auto_symbols: Vec<(String, i64)>,
    header_file: Option<Vec<u8>>,
}

/// PilRC's automatic IDs (`IdGetAutoId`): from 9999 down, or from `-idStart`
/// / `RESETAUTOID` n up; each ID is the last one plus the step.
struct AutoIds {
    on: bool,
    last: i64,
    step: i64,
}

/// What one compile produced besides its resources.
pub(crate) struct Produced {
    pub resources: Vec<Resource>,
    /// Where each resource's statement starts.
    pub origins: Vec<Pos>,
    pub warnings: Vec<Diag>,
    pub auto_symbols: Vec<(String, i64)>,
    pub header_file: Option<Vec<u8>>,
}

/// Compiles the whole stream into resources, in source order.
pub(crate) fn compile(src: &mut Source<'_>, opts: &Options) -> Result<Produced, Diag> {
    let (last, step) = match opts.id_start {
        Some(n) => (i64::from(n), 1),
        None => (9999, -1),
    };
    let mut c = Compiler {
        src,
        opts,
        out: Vec::new(),
        seen: HashMap::new(),
        prev: None,
        form_size: None,
        metrics: Metrics::new(opts.script),
        warnings: Vec::new(),
        auto: AutoIds {
            on: opts.header.is_some(),
            last,
            step,
        },
        auto_symbols: Vec::new(),
        header_file: None,
    };
    let mut any = false;
    while let Some(t) = c.src.next()? {
        any = true;
        c.resource(t)?;
    }
    if !any {
        return Err(Diag::new(
            c.src.end_pos(),
            "the file has no resources (PilRC rejects an empty file too)",
        ));
    }
    Ok(Produced {
        origins: c.out.iter().map(|r| c.seen[&(r.kind, r.id)]).collect(),
        resources: c.out,
        warnings: c.warnings,
        auto_symbols: c.auto_symbols,
        header_file: c.header_file,
    })
}

fn range_error(pos: Pos, what: &str, v: i64, lo: i64, hi: i64) -> Diag {
    Diag::new(pos, format!("{what} {v} is out of range ({lo}..={hi})"))
}

fn to_u16(v: i64, pos: Pos, what: &str) -> Result<u16, Diag> {
    u16::try_from(v).map_err(|_| range_error(pos, what, v, 0, 65535))
}

fn to_i16(v: i64, pos: Pos, what: &str) -> Result<i16, Diag> {
    i16::try_from(v).map_err(|_| range_error(pos, what, v, -32768, 32767))
}

fn to_u8(v: i64, pos: Pos, what: &str) -> Result<u8, Diag> {
    u8::try_from(v).map_err(|_| range_error(pos, what, v, 0, 255))
}

/// PilRC replaces a trailing "..." of menu items and strings by the Palm
/// ellipsis character 0x85 (`FParsePullDown`, `ParseDumpString`), unless
/// `-noEllipsis` (`off`) is given.
fn ellipsis(mut text: Vec<u8>, off: bool) -> Vec<u8> {
    if !off && text.ends_with(b"...") {
        text.truncate(text.len() - 3);
        text.push(0x85);
    }
    text
}

fn auto_height(metrics: &Metrics, font: u8, pos: Pos) -> Result<i64, Diag> {
    metrics
        .height(font)
        .map(|h| i64::from(h) + 1)
        .ok_or_else(|| {
            Diag::new(
                pos,
                format!("AUTO height needs the metrics of font {font}, which is neither built in (fonts 0-7) nor defined by a FONT statement"),
            )
        })
}

fn auto_width(text_width: Option<i64>, font: u8, margin: i64, pos: Pos) -> Result<i64, Diag> {
    text_width.map(|w| w + margin).ok_or_else(|| {
        Diag::new(
            pos,
            format!("AUTO width needs the character widths of font {font}, which is neither built in (fonts 0-7) nor defined by a FONT statement"),
        )
    })
}

/// A bitmap of a family as the statement gives it.
struct BitmapMember {
    name: Vec<u8>,
    pos: Pos,
    depth: crate::bitmap::Depth,
    compression: crate::bitmap::Compression,
    color_table: bool,
    transparency: Option<crate::bitmap::Transparency>,
}

/// The attributes after bitmap files.
struct BitmapAttrs {
    compression: crate::bitmap::Compression,
    /// `COMPRESS 8 ...`: compression of the depths named (bits a pixel).
    per_depth: Vec<(u8, crate::bitmap::Compression)>,
    color_table: bool,
    transparency: Option<crate::bitmap::Transparency>,
    bpp: Option<i64>,
}

/// `NOCOMPRESS`, `COMPRESS` / `AUTOCOMPRESS`, `FORCECOMPRESS`.
/// PilRC's warning (`BMP_CompressDumpBitmap`, single density) for a launcher
/// icon of an unexpected size: the large icon (ID 1000) is 32x32, 32x22 or
/// 22x22; the small one (ID 1001) is 15x9 (PilRC warns only when both the
/// width and the height differ). Other icon IDs are not checked.
fn icon_size_warning(id: u16, width: u16, height: u16) -> Option<String> {
    match id {
        1000 if ![(32, 32), (32, 22), (22, 22)].contains(&(width, height)) => Some(format!(
            "icon resource is {width}x{height}, not 32x32, 32x22 or 22x22 (preferred) \
             (-allowBadSize: no warning)"
        )),
        1001 if width != 15 && height != 9 => Some(format!(
            "small icon resource is {width}x{height}, not 15x9 (-allowBadSize: no warning)"
        )),
        _ => None,
    }
}

fn compression_word(t: &Token) -> Option<crate::bitmap::Compression> {
    use crate::bitmap::Compression;
    if t.is_kw("NOCOMPRESS") {
        Some(Compression::None)
    } else if t.is_kw("COMPRESS") || t.is_kw("AUTOCOMPRESS") {
        Some(Compression::Auto)
    } else if t.is_kw("FORCECOMPRESS") {
        Some(Compression::Force)
    } else {
        None
    }
}

/// An encoder's refusal as a compile error at `pos`.
fn encode_error(pos: Pos, e: EncodeError) -> Diag {
    Diag::new(pos, e.message)
}

impl Compiler<'_, '_> {
    fn next(&mut self, what: &str) -> Result<Token, Diag> {
        self.src.next()?.ok_or_else(|| {
            Diag::new(
                self.src.end_pos(),
                format!("expected {what}, found the end of the file"),
            )
        })
    }

    fn peek_is_kw(&mut self, kw: &str) -> Result<bool, Diag> {
        Ok(self.src.peek()?.is_some_and(|t| t.is_kw(kw)))
    }

    fn eat_kw(&mut self, kw: &str) -> Result<bool, Diag> {
        let found = self.peek_is_kw(kw)?;
        if found {
            self.src.next()?;
        }
        Ok(found)
    }

    fn expect_kw(&mut self, kw: &str, after: &str) -> Result<Token, Diag> {
        let t = self.next(&format!("{kw} after {after}"))?;
        if t.is_kw(kw) {
            Ok(t)
        } else {
            Err(Diag::new(
                t.pos,
                format!("expected {kw} after {after}, found {}", t.describe()),
            ))
        }
    }

    fn expect_punct(&mut self, c: char, after: &str) -> Result<Token, Diag> {
        let t = self.next(&format!("'{c}' after {after}"))?;
        if t.is_punct(c) {
            Ok(t)
        } else {
            Err(Diag::new(
                t.pos,
                format!("expected '{c}' after {after}, found {}", t.describe()),
            ))
        }
    }

    /// Whether the next token starts a string: a literal or a string symbol.
    fn peek_is_string(&mut self) -> Result<bool, Diag> {
        let Some(t) = self.src.peek()?.cloned() else {
            return Ok(false);
        };
        Ok(match &t.tok {
            Tok::Str(_) => true,
            Tok::Ident(n) => matches!(
                self.src.symbols.get(n).map(|s| &s.value),
                Some(Value::Str(_))
            ),
            _ => false,
        })
    }

    /// A string: literals and string symbols joined by `+` or `\`.
    fn string(&mut self, what: &str) -> Result<(Vec<u8>, Pos), Diag> {
        let first = self.next(what)?;
        let pos = first.pos;
        let mut out = self.string_piece(first, what)?;
        while self
            .src
            .peek()?
            .is_some_and(|t| t.is_punct('+') || t.is_punct('\\'))
        {
            let op = self.next("a string")?;
            let what = format!("a string after {}", op.describe());
            let piece = self.next(&what)?;
            out.extend(self.string_piece(piece, &what)?);
        }
        Ok((out, pos))
    }

    fn string_piece(&self, t: Token, what: &str) -> Result<Vec<u8>, Diag> {
        match t.tok {
            Tok::Str(s) => Ok(s),
            Tok::Ident(ref n) => match self.src.symbols.get(n).map(|s| &s.value) {
                Some(Value::Str(s)) => Ok(s.clone()),
                Some(Value::Num(_)) => Err(Diag::new(
                    t.pos,
                    format!("symbol {n} is a number, {what} is needed here"),
                )),
                Some(Value::Unsupported) => Err(Diag::new(
                    t.pos,
                    format!("symbol {n} is #defined with a value this compiler cannot evaluate"),
                )),
                None => Err(Diag::new(t.pos, format!("expected {what}, found {n}"))),
            },
            _ => Err(Diag::new(
                t.pos,
                format!("expected {what}, found {}", t.describe()),
            )),
        }
    }

    /// A constant expression. With automatic IDs on, an undefined symbol is
    /// given the next automatic ID (PilRC `WGetConst`, `PsymAddSymAutoId`).
    fn value(&mut self, what: &str) -> Result<(i64, Pos), Diag> {
        let end = self.src.end_pos();
        let pos = self.src.peek()?.map_or(end, |t| t.pos);
        let e = expr::parse(self.src, what)?;
        if self.auto.on {
            let mut names = Vec::new();
            expr::symbols_of(&e, &mut names);
            for (name, at) in names {
                self.auto_define(&name, at);
            }
        }
        Ok((expr::eval(&e, &self.src.symbols, self.prev.as_ref())?, pos))
    }

    /// The next automatic ID.
    fn next_auto_id(&mut self) -> i64 {
        self.auto.last += self.auto.step;
        self.auto.last
    }

    /// Gives `name`, if undefined, the next automatic ID.
    fn auto_define(&mut self, name: &str, at: Pos) {
        if self.src.symbols.contains_key(name) {
            return;
        }
        let id = self.next_auto_id();
        self.src.symbols.insert(
            name.to_owned(),
            expr::Symbol {
                value: Value::Num(id),
                at,
            },
        );
        self.auto_symbols.push((name.to_owned(), id));
    }

    /// `[ID] value` or `AUTOID`, as PilRC's `WGetId` (the `ID` keyword is
    /// optional), with its warning for IDs in the range the OS reserves
    /// (10000 and up; 10008 and up with `-allowEditID`).
    fn id(&mut self, after: &str) -> Result<(u16, Pos), Diag> {
        let (v, pos) = if self.peek_is_kw("AUTOID")? {
            let t = self.next("AUTOID")?;
            (self.next_auto_id(), t.pos)
        } else {
            self.eat_kw("ID")?;
            self.value(&format!("ID after {after}"))?
        };
        let id = to_u16(v, pos, "ID")?;
        let (limit, range) = if self.opts.allow_edit_id {
            (10008, "0-10007")
        } else {
            (10000, "0-9999")
        };
        if id >= limit {
            self.warn(
                pos,
                format!("ID {id} of {after} conflicts with the reserved ID range ({range} only)"),
            );
        }
        Ok((id, pos))
    }

    fn warn(&mut self, pos: Pos, msg: impl Into<String>) {
        self.warnings.push(Diag::new(pos, msg));
    }

    fn coord(&mut self, what: &str) -> Result<Coord, Diag> {
        let Some(t) = self.src.peek()? else {
            return Err(Diag::new(
                self.src.end_pos(),
                format!("expected {what}, found the end of the file"),
            ));
        };
        let pos = t.pos;
        if t.is_kw("AUTO") {
            self.src.next()?;
            if self.src.peek()?.is_some_and(|t| t.is_punct('>')) {
                // AUTO> n and AUTO>= n: at least n (PilRC ktAutoGreaterThan).
                self.src.next()?;
                if self.src.peek()?.is_some_and(|t| t.is_punct('=')) {
                    self.src.next()?;
                }
                let (v, _) = self.value("a size after AUTO>")?;
                return Ok(Coord::AutoAtLeast(v, pos));
            }
            Ok(Coord::Auto(pos))
        } else if t.is_kw("CENTER") {
            self.src.next()?;
            if self.src.peek()?.is_some_and(|t| t.is_punct('@')) {
                self.src.next()?;
                let (v, _) = self.value("a position after CENTER@")?;
                Ok(Coord::CenterAt(v, pos))
            } else {
                Ok(Coord::Center(pos))
            }
        } else if t.is_kw("RIGHT") || t.is_kw("BOTTOM") {
            let right = t.is_kw("RIGHT");
            let word = if right { "RIGHT" } else { "BOTTOM" };
            self.src.next()?;
            self.expect_punct('@', word)?;
            let (v, _) = self.value(&format!("a position after {word}@"))?;
            Ok(if right {
                Coord::RightAt(v, pos)
            } else {
                Coord::BottomAt(v, pos)
            })
        } else {
            let (v, pos) = self.value(what)?;
            Ok(Coord::Value(v, pos))
        }
    }

    /// `AT (`, or nothing: PilRC also takes bare coordinates without `AT`
    /// and its parentheses (`ParseItm`). Whether `AT (` was there.
    fn at_open(&mut self, owner: &str) -> Result<bool, Diag> {
        if self.eat_kw("AT")? {
            self.expect_punct('(', "AT")?;
            return Ok(true);
        }
        match self.src.peek()? {
            Some(t) if t.is_punct('(') => Err(Diag::new(
                t.pos,
                format!("expected AT before the bounds of {owner}"),
            )),
            Some(_) => Ok(false),
            None => Err(Diag::new(
                self.src.end_pos(),
                format!("expected AT (...) after {owner}, found the end of the file"),
            )),
        }
    }

    /// `AT (x y width height)` (or the four coordinates alone).
    fn at_rect(&mut self, owner: &str) -> Result<[Coord; 4], Diag> {
        let at = self.at_open(owner)?;
        let c = [
            self.coord("the left position in AT (left top width height)")?,
            self.coord("the top position in AT (left top width height)")?,
            self.coord("the width in AT (left top width height)")?,
            self.coord("the height in AT (left top width height)")?,
        ];
        if at {
            self.expect_punct(')', "the height in AT (left top width height)")?;
        }
        Ok(c)
    }

    /// `AT (x y)` (or the two coordinates alone).
    fn at_point(&mut self, owner: &str) -> Result<[Coord; 2], Diag> {
        let at = self.at_open(owner)?;
        let c = [
            self.coord("the left position in AT (left top)")?,
            self.coord("the top position in AT (left top)")?,
        ];
        if at {
            self.expect_punct(')', "the top position in AT (left top)")?;
        }
        Ok(c)
    }

    /// Attribute keywords after an object; `allowed` lists those valid for it.
    fn flags(&mut self, allowed: &[&[&str]], owner: &str) -> Result<Item, Diag> {
        let mut item = Item::pilrc_defaults();
        while let Some(t) = self.src.peek()? {
            let Tok::Ident(word) = &t.tok else {
                break;
            };
            let upper = word.to_ascii_uppercase();
            let pos = t.pos;
            if UNSUPPORTED_FLAGS.contains(&upper.as_str()) {
                return Err(Diag::new(
                    pos,
                    format!("{word} is not supported by this compiler"),
                ));
            }
            if !FLAGS.contains(&upper.as_str()) {
                break;
            }
            if !allowed.iter().any(|set| set.contains(&upper.as_str())) {
                return Err(Diag::new(pos, format!("{word} is not allowed on {owner}")));
            }
            self.src.next()?;
            self.flag(&upper, &mut item)?;
        }
        Ok(item)
    }

    fn flag(&mut self, word: &str, item: &mut Item) -> Result<(), Diag> {
        let number = |c: &mut Self, what: &str| c.value(&format!("a value after {what}"));
        match word {
            "USABLE" | "NONUSABLE" => item.usable = word == "USABLE",
            "ENABLED" | "DISABLED" => item.enabled = word == "ENABLED",
            "LEFTANCHOR" | "RIGHTANCHOR" => item.left_anchor = word == "LEFTANCHOR",
            "FRAME" => item.frame = 1,
            "NOFRAME" => item.frame = 0,
            "BOLDFRAME" => item.frame = 2,
            "RECTFRAME" => item.frame = 3,
            "CHECKED" | "ON" => item.on = true,
            "EDITABLE" | "NONEDITABLE" => item.editable = word == "EDITABLE",
            "UNDERLINED" => item.underlined = true,
            "SINGLELINE" => item.single_line = true,
            "MULTIPLELINES" | "MULTIPLELINE" => item.single_line = false,
            "DYNAMICSIZE" => item.dynamic_size = true,
            "LEFTALIGN" => item.justification = 0,
            "RIGHTALIGN" => item.justification = 2,
            "AUTOSHIFT" => item.auto_shift = true,
            "HASSCROLLBAR" => item.has_scroll_bar = true,
            "NUMERIC" => item.numeric = true,
            "MODAL" => item.modal = true,
            "SAVEBEHIND" | "NOSAVEBEHIND" => item.save_behind = word == "SAVEBEHIND",
            "INFORMATION" => item.alert_type = AlertType::Information,
            "CONFIRMATION" => item.alert_type = AlertType::Confirmation,
            "WARNING" => item.alert_type = AlertType::Warning,
            "ERROR" => item.alert_type = AlertType::Error,
            "GRAPHICAL" => item.graphical = true,
            "SEARCH" => item.search = true,
            "EXTENDED" | "NONEXTENDED" => {}
            "FEEDBACK" => item.feedback = true,
            "VERTICAL" => item.vertical = true,
            "BITMAPID" | "SELECTEDBITMAPID" | "THUMBID" | "BACKGROUNDID" | "BITMAP" => {
                let (v, p) = number(self, word)?;
                let v = to_u16(v, p, word)?;
                match word {
                    "BITMAPID" => item.bitmap_id = v,
                    "SELECTEDBITMAPID" => item.selected_bitmap_id = v,
                    "THUMBID" => item.thumb_id = v,
                    "BACKGROUNDID" => item.background_id = v,
                    _ => item.rsc_id = v,
                }
            }
            "VISIBLEITEMS" => {
                let (v, p) = number(self, word)?;
                // PilRC multiplies a negative count into a negative height.
                if v < 0 {
                    return Err(Diag::new(
                        p,
                        format!("VISIBLEITEMS {v}: the number of rows cannot be negative"),
                    ));
                }
                item.visible_items = Some(v);
            }
            "VALUE" => item.value = number(self, word)?.0,
            "MIN" | "MINVALUE" => item.min = number(self, word)?.0,
            "MAX" | "MAXVALUE" => item.max = number(self, word)?.0,
            "PAGESIZE" => item.page_size = number(self, word)?.0,
            "COLUMNS" | "NUMCOLUMNS" => {
                let (v, p) = number(self, word)?;
                item.columns = to_u16(v, p, word)?;
            }
            "ROWS" | "NUMROWS" => {
                let (v, p) = number(self, word)?;
                item.rows = to_u16(v, p, word)?;
            }
            "COLUMNWIDTHS" | "WIDTHS" => {
                // PilRC reads as many widths as COLUMNS said before it.
                item.column_widths.clear();
                for _ in 0..item.columns {
                    let (v, p) = number(self, "a column width")?;
                    item.column_widths.push(to_u16(v, p, "column width")?);
                }
            }
            "GROUP" => {
                let (v, p) = number(self, word)?;
                item.group = to_u8(v, p, "GROUP")?;
            }
            "FONT" | "FONTID" => {
                let (v, p) = number(self, word)?;
                item.font = to_u8(v, p, "FONT")?;
                // SDK Font.h: FontID 0-7 (stdFont .. largeBoldFont), and from
                // fntAppFontCustomBase (0x80) the app's own (FntDefineFont).
                // PilRC takes any byte; a form then draws with a font that
                // does not exist.
                if (8..0x80).contains(&item.font) {
                    return Err(Diag::new(
                        p,
                        format!(
                            "{word} {v}: no such font (the built-in fonts are 0-7, stdFont to \
                             largeBoldFont; an app's own fonts are 128-255)"
                        ),
                    ));
                }
            }
            "MAXCHARS" => {
                let (v, p) = number(self, word)?;
                item.max_chars = to_u16(v, p, "MAXCHARS")?;
            }
            "HELPID" => {
                let (v, p) = number(self, word)?;
                item.help_id = to_u16(v, p, "HELPID")?;
            }
            "MENUID" => {
                let (v, p) = number(self, word)?;
                item.menu_id = to_u16(v, p, "MENUID")?;
            }
            _ => {
                // DEFAULTBTNID / DEFAULTBUTTON, the only flags left.
                let (v, p) = number(self, word)?;
                item.default_button = (to_u16(v, p, word)?, Some(p));
            }
        }
        Ok(())
    }

    fn push(&mut self, kind: [u8; 4], id: u16, data: Vec<u8>, at: Pos) -> Result<(), Diag> {
        if data.len() > crate::MAX_RESOURCE_SIZE {
            return Err(Diag::new(
                at,
                format!(
                    "{} {id} is too large: its {} resource would be {} bytes, and a Palm \
                     resource is at most {} bytes (one storage-heap chunk, \
                     memMaxChunkAllocSize)",
                    statement_of(kind),
                    String::from_utf8_lossy(&kind),
                    thousands(data.len()),
                    thousands(crate::MAX_RESOURCE_SIZE)
                ),
            ));
        }
        if let Some(first) = self.seen.get(&(kind, id)) {
            return Err(Diag::new(
                at,
                format!(
                    "duplicate {} resource ID {id} (first defined at {}:{})",
                    String::from_utf8_lossy(&kind),
                    self.src.file_name(*first),
                    first.line
                ),
            ));
        }
        self.seen.insert((kind, id), at);
        self.out.push(Resource { kind, id, data });
        Ok(())
    }

    fn resource(&mut self, t: Token) -> Result<(), Diag> {
        let word = match &t.tok {
            Tok::Ident(w) => w.to_ascii_uppercase(),
            _ => String::new(),
        };
        match word.as_str() {
            "FORM" => self.form(t.pos),
            "MENU" => self.menu(t.pos),
            "ALERT" => self.alert(t.pos),
            "STRING" => {
                let (id, _) = self.id("STRING")?;
                let (text, pos) = if self.eat_kw("FILE")? {
                    // The file's bytes as they are, up to a NUL (PilRC reads
                    // it with fread and uses it as a C string).
                    let (name, pos) = self.string("the file name after FILE")?;
                    let mut bytes = self.src.read_file(pos, &String::from_utf8_lossy(&name))?;
                    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
                        bytes.truncate(nul);
                    }
                    (bytes, pos)
                } else {
                    if self.src.peek()?.is_some_and(|t| t.is_punct('\\')) {
                        self.src.next()?;
                    }
                    self.string(&format!("the text of STRING {id}"))?
                };
                let text: Vec<u8> = ellipsis(text, self.opts.no_ellipsis)
                    .into_iter()
                    .map(|b| if b == b'\r' { b'\n' } else { b })
                    .collect();
                let data = strings::encode_text(TextKind::String, &text)
                    .map_err(|e| encode_error(pos, e))?;
                self.push(*b"tSTR", id, data, t.pos)
            }
            "VERSION" => {
                let id = if self.peek_is_string()? {
                    strings::APP_VERSION_ID
                } else {
                    self.id("VERSION")?.0
                };
                let (text, pos) = self.string(&format!("the text of VERSION {id}"))?;
                let data = strings::encode_text(TextKind::Version, &text)
                    .map_err(|e| encode_error(pos, e))?;
                self.push(*b"tver", id, data, t.pos)
            }
            "APPLICATIONICONNAME" => {
                let (id, _) = self.id("APPLICATIONICONNAME")?;
                let (text, pos) =
                    self.string(&format!("the name after APPLICATIONICONNAME {id}"))?;
                let data = strings::encode_text(TextKind::IconName, &text)
                    .map_err(|e| encode_error(pos, e))?;
                self.push(*b"tAIN", id, data, t.pos)
            }
            "APPLICATION" => {
                let (id, _) = self.id("APPLICATION")?;
                let (text, pos) = self.string(&format!("the creator after APPLICATION {id}"))?;
                let creator = <[u8; 4]>::try_from(text.as_slice()).map_err(|_| {
                    Diag::new(pos, "the APPLICATION creator must be exactly 4 characters")
                })?;
                self.push(*b"APPL", id, strings::encode_application(creator), t.pos)
            }
            "LAUNCHERCATEGORY" => {
                // `taic` (SDK 3.5 `UIResources.h` `defaultCategoryRscType`):
                // the launcher category's name and its NUL; ID 1000 by default
                // (PilRC `ParseDumpLauncherCategory`, which warns for another).
                let id = if self.peek_is_string()? {
                    1000
                } else {
                    let (id, pos) = self.id("LAUNCHERCATEGORY")?;
                    if id != 1000 {
                        self.warn(
                            pos,
                            "the launcher reads the default category from ID 1000 only",
                        );
                    }
                    id
                };
                let (text, pos) = self.string(&format!("the category of LAUNCHERCATEGORY {id}"))?;
                let data = strings::encode_text(TextKind::String, &text)
                    .map_err(|e| encode_error(pos, e))?;
                self.push(*b"taic", id, data, t.pos)
            }
            "STRINGTABLE" => {
                let (id, _) = self.id("STRINGTABLE")?;
                // Literals only (PilRC ParseDumpStringTable): the prefix, then
                // at least one string.
                let mut strings = Vec::new();
                while let Some(Tok::Str(text)) = self.src.peek()?.map(|t| t.tok.clone()) {
                    self.src.next()?;
                    strings.push(text);
                }
                if strings.len() < 2 {
                    let end = self.src.end_pos();
                    let pos = self.src.peek()?.map_or(end, |t| t.pos);
                    return Err(Diag::new(
                        pos,
                        format!("STRINGTABLE {id} needs a prefix string and at least one string"),
                    ));
                }
                let data = strings::encode_string_table(&strings[0], &strings[1..])
                    .map_err(|e| encode_error(t.pos, e))?;
                self.push(*b"tSTL", id, data, t.pos)
            }
            "WORDLIST" => {
                let (id, _) = self.id("WORDLIST")?;
                self.expect_kw("BEGIN", &format!("WORDLIST {id}"))?;
                let mut words = Vec::new();
                while !self.eat_kw("END")? {
                    let (v, p) = self.value("a number or END")?;
                    // PilRC EmitW keeps the low 16 bits.
                    let w = u16::try_from(v)
                        .or_else(|_| i16::try_from(v).map(|w| w as u16))
                        .map_err(|_| range_error(p, "word", v, -32768, 65535))?;
                    words.push(w);
                }
                let mut data = Vec::with_capacity(2 + 2 * words.len());
                let count = crate::bytes::count_u16(words.len(), "WORDLIST words")
                    .map_err(|e| encode_error(t.pos, e))?;
                data.extend(count.to_be_bytes());
                for w in words {
                    data.extend(w.to_be_bytes());
                }
                self.push(*b"wrdl", id, data, t.pos)
            }
            "INTEGER" => {
                let (id, _) = self.id("INTEGER")?;
                self.eat_kw("VALUE")?;
                let (v, p) = self.value(&format!("the value of INTEGER {id}"))?;
                let v = u32::try_from(v)
                    .or_else(|_| i32::try_from(v).map(|v| v as u32))
                    .map_err(|_| {
                        range_error(p, "INTEGER", v, i64::from(i32::MIN), i64::from(u32::MAX))
                    })?;
                self.push(*b"tint", id, v.to_be_bytes().to_vec(), t.pos)
            }
            "HEX" => self.hex(t.pos),
            "FONT" => self.font(t.pos),
            "CATEGORIES" => {
                let (id, _) = self.id("CATEGORIES")?;
                let (first, pos) = self.string(&format!("the names of CATEGORIES {id}"))?;
                let mut names = vec![first];
                while let Some(Tok::Str(text)) = self.src.peek()?.map(|t| t.tok.clone()) {
                    let t = self.next("a category name")?;
                    if names.len() == strings::MAX_CATEGORIES {
                        self.warn(
                            t.pos,
                            "more than 16 strings in CATEGORIES (the AppInfo block holds 16)",
                        );
                    }
                    names.push(text);
                }
                let data = strings::encode_categories(&names).map_err(|e| encode_error(pos, e))?;
                self.push(*b"tAIS", id, data, t.pos)
            }
            "TRAP" => {
                let (id, pos) = self.id("TRAP")?;
                if id < 1000 {
                    return Err(Diag::new(
                        pos,
                        format!(
                            "TRAP resource ID {id} is below 1000 (HackMaster needs 1000 and up)"
                        ),
                    ));
                }
                self.eat_kw("VALUE")?;
                let (v, p) = self.value(&format!("the trap number of TRAP {id}"))?;
                let trap = to_u16(v, p, "trap number")?;
                // PilRC: a number without the 0xA000 bits is a trap index.
                let trap = if trap & 0xA000 == 0 {
                    trap | 0xA000
                } else {
                    trap
                };
                self.push(*b"TRAP", id, trap.to_be_bytes().to_vec(), t.pos)
            }
            "BYTELIST" | "LONGWORDLIST" => {
                let (id, _) = self.id(&word)?;
                self.expect_kw("BEGIN", &format!("{word} {id}"))?;
                let long = word == "LONGWORDLIST";
                let mut values = Vec::new();
                while !self.eat_kw("END")? {
                    let (v, p) = self.value("a number or END")?;
                    values.push(if long {
                        u32::try_from(v)
                            .or_else(|_| i32::try_from(v).map(|v| v as u32))
                            .map_err(|_| {
                                range_error(
                                    p,
                                    "long word",
                                    v,
                                    i64::from(i32::MIN),
                                    i64::from(u32::MAX),
                                )
                            })?
                    } else {
                        u32::from(
                            u8::try_from(v)
                                .or_else(|_| i8::try_from(v).map(|v| v as u8))
                                .map_err(|_| range_error(p, "byte", v, -128, 255))?,
                        )
                    });
                }
                let count = crate::bytes::count_u16(values.len(), &format!("{word} values"))
                    .map_err(|e| encode_error(t.pos, e))?;
                // The default item (PilRC 3.2 rejects DEFAULTITEM here: always 0),
                // the count, the values.
                let mut data = vec![0, 0];
                data.extend(count.to_be_bytes());
                for v in values {
                    if long {
                        data.extend(v.to_be_bytes());
                    } else {
                        data.push(v as u8);
                    }
                }
                let kind = if long { *b"DLST" } else { *b"BLST" };
                self.push(kind, id, data, t.pos)
            }
            "PALETTETABLE" => {
                let (id, _) = self.id("PALETTETABLE")?;
                self.expect_kw("BEGIN", &format!("PALETTETABLE {id}"))?;
                // Literal numbers only, as PilRC reads them (`ltConst`): an
                // index and red, green, blue per color.
                let mut bytes = Vec::new();
                let mut last = t.pos;
                while !self.eat_kw("END")? {
                    let n = self.next("a number or END in PALETTETABLE")?;
                    let Tok::Num(v) = n.tok else {
                        return Err(Diag::new(
                            n.pos,
                            format!(
                                "expected a number (0-255) or END in PALETTETABLE, found {}",
                                n.describe()
                            ),
                        ));
                    };
                    bytes.push(to_u8(v, n.pos, "color component")?);
                    last = n.pos;
                }
                if bytes.len() % 4 != 0 {
                    return Err(Diag::new(
                        last,
                        "PALETTETABLE needs 4 numbers a color (index, red, green, blue)",
                    ));
                }
                let count = crate::bytes::count_u16(bytes.len() / 4, "PALETTETABLE colors")
                    .map_err(|e| encode_error(t.pos, e))?;
                let mut data = count.to_be_bytes().to_vec();
                data.extend(bytes);
                self.push(*b"tclt", id, data, t.pos)
            }
            "DATA" => {
                let kind = self.resource_type("DATA")?;
                let (id, _) = self.id("DATA")?;
                let (name, pos) = self.string(&format!("the file name of DATA {id}"))?;
                if name.is_empty() {
                    return Err(Diag::new(pos, "DATA needs a file name"));
                }
                let data = self.src.read_file(pos, &String::from_utf8_lossy(&name))?;
                self.push(kind, id, data, t.pos)
            }
            "TRANSLATION" => {
                let (lang, _) = self.string("the language after TRANSLATION")?;
                let lang = String::from_utf8_lossy(&lang).into_owned();
                let wanted = self
                    .opts
                    .languages
                    .iter()
                    .any(|l| l.eq_ignore_ascii_case(&lang));
                self.expect_kw("BEGIN", "TRANSLATION")?;
                let mut pairs = Vec::new();
                while !self.eat_kw("END")? {
                    let o = self.next("a string or END in TRANSLATION")?;
                    let Tok::Str(original) = o.tok else {
                        return Err(Diag::new(
                            o.pos,
                            format!(
                                "expected a string or END in TRANSLATION, found {}",
                                o.describe()
                            ),
                        ));
                    };
                    self.expect_punct('=', "the original string")?;
                    let (translated, _) = self.string("the translation after =")?;
                    pairs.push((original, translated));
                }
                if wanted {
                    for pair in pairs {
                        self.src.translations.insert(0, pair);
                    }
                }
                Ok(())
            }
            "GENERATEHEADER" => {
                let (name, _) = self.string("the header file name after GENERATEHEADER")?;
                self.header_file = Some(name);
                self.auto.on = true;
                Ok(())
            }
            "RESETAUTOID" => {
                let (v, _) = self.value("the value after RESETAUTOID")?;
                self.auto.last = v;
                self.auto.step = 1;
                Ok(())
            }
            w if crate::bitmap::is_bitmap_statement(w) => self.bitmap(w, t.pos),
            w if UNSUPPORTED_RESOURCES.contains(&w) => Err(Diag::new(
                t.pos,
                format!(
                    "{w} resources are not supported by this compiler (supported: {RESOURCES}; \
                     directives: {DIRECTIVES})"
                ),
            )),
            _ => Err(Diag::new(
                t.pos,
                format!(
                    "expected a resource ({RESOURCES}) or a directive ({DIRECTIVES}), found {}",
                    t.describe()
                ),
            )),
        }
    }

    /// `BITMAP*`, `ICON*`, `SMALLICON*` (PilRC `ParseDumpBitmap`): `[type] ID n`
    /// then either files (one per depth 1, 2, 4, 8, 16 in that order; `""`
    /// skips one) and attributes for all, or (families) `BEGIN BITMAP "file"
    /// BPP n [attributes] ... END`. Icons default to ID 1000 (`ICON`) or 1001
    /// (`SMALLICON`) and are `tAIB` resources.
    fn bitmap(&mut self, word: &str, at: Pos) -> Result<(), Diag> {
        use crate::bitmap::{Compression, Depth};
        let single = match word {
            "BITMAPGREY" | "BITMAPGRAY" => Some(Depth::Grey4),
            "BITMAPGREY16" | "BITMAPGRAY16" => Some(Depth::Grey16),
            "BITMAPCOLOR16" | "BITMAPCOLOUR16" => Some(Depth::Color16),
            "BITMAPCOLOR" | "BITMAPCOLOUR" => Some(Depth::Color256),
            "BITMAPCOLOR16K" | "BITMAPCOLOUR16K" => Some(Depth::Color16k),
            _ => None,
        };
        let mut icon = word.starts_with("ICON") || word.starts_with("SMALLICON");
        let mut kind = if icon { *b"tAIB" } else { *b"Tbmp" };
        if !icon && self.peek_is_string()? {
            kind = self.resource_type(word)?;
            icon = &kind == b"tAIB";
        }
        let mut id: Option<u16> = match word {
            w if w.starts_with("ICON") => Some(1000),
            w if w.starts_with("SMALLICON") => Some(1001),
            _ => None,
        };
        let mut compression = Compression::None;
        while let Some(t) = self.src.peek()?.cloned() {
            let is_id = t.is_kw("ID")
                || t.is_kw("AUTOID")
                || t.is_punct('(')
                || matches!(&t.tok, Tok::Num(_))
                || matches!(&t.tok, Tok::Ident(n) if !expr::is_keyword(n) && !matches!(self.src.symbols.get(n).map(|s| &s.value), Some(Value::Str(_))));
            if is_id {
                id = Some(self.id(word)?.0);
            } else if let Some(c) = compression_word(&t) {
                self.src.next()?;
                compression = c;
            } else {
                break;
            }
        }
        let id = id.ok_or_else(|| Diag::new(at, format!("{word} needs a resource ID")))?;
        let owner = format!("{word} {id}");
        let mut members: Vec<BitmapMember> = Vec::new();
        if self.peek_is_string()? {
            const DEPTHS: [Depth; 5] = [
                Depth::Mono,
                Depth::Grey4,
                Depth::Grey16,
                Depth::Color256,
                Depth::Color16k,
            ];
            let depths: &[Depth] = match &single {
                Some(d) => std::slice::from_ref(d),
                None => &DEPTHS,
            };
            let mut files = Vec::new();
            while self.peek_is_string()? {
                let (name, pos) = self.string("a bitmap file name")?;
                if files.len() >= depths.len() {
                    self.warn(pos, format!("{owner}: excess bitmap file names ignored"));
                } else {
                    files.push((name, pos));
                }
            }
            let attrs = self.bitmap_attrs(compression, &owner)?;
            for ((name, pos), &depth) in files.into_iter().zip(depths) {
                if name.is_empty() {
                    continue;
                }
                let compression = attrs
                    .per_depth
                    .iter()
                    .rev()
                    .find(|(bits, _)| *bits == depth.bits())
                    .map_or(attrs.compression, |&(_, c)| c);
                members.push(BitmapMember {
                    name,
                    pos,
                    depth,
                    compression,
                    color_table: attrs.color_table,
                    transparency: attrs.transparency,
                });
            }
            if icon && members.first().is_none_or(|m| m.depth != Depth::Mono) {
                return Err(Diag::new(
                    at,
                    format!("{owner}: an icon family must have a 1-bit bitmap"),
                ));
            }
        } else if single.is_none() && self.eat_kw("BEGIN")? {
            // Slots by depth, as PilRC's `flag` bits: 1, 2, 4 (grey or color), 8, 16.
            let mut slots: [Option<BitmapMember>; 5] = Default::default();
            loop {
                let t = self.next(&format!("BITMAP or END in {owner}"))?;
                if t.is_kw("END") {
                    break;
                }
                if !t.is_kw("BITMAP") {
                    return Err(Diag::new(
                        t.pos,
                        format!("expected BITMAP or END in {owner}, found {}", t.describe()),
                    ));
                }
                let (name, pos) = self.string("the bitmap file name after BITMAP")?;
                let attrs = self.bitmap_attrs(compression, &owner)?;
                let (slot, depth) = match attrs.bpp {
                    Some(1) => (0, Depth::Mono),
                    Some(2) => (1, Depth::Grey4),
                    Some(4) => (2, Depth::Grey16),
                    Some(5) => (2, Depth::Color16),
                    Some(8) => (3, Depth::Color256),
                    Some(16) => (4, Depth::Color16k),
                    Some(n) => {
                        return Err(Diag::new(
                            pos,
                            format!("BPP {n} is not supported (1, 2, 4, 5, 8 and 16 are)"),
                        ));
                    }
                    None => return Err(Diag::new(pos, "BPP expected")),
                };
                if slots[slot].is_some() {
                    return Err(Diag::new(
                        pos,
                        format!("{owner}: two bitmaps for one depth"),
                    ));
                }
                slots[slot] = Some(BitmapMember {
                    name,
                    pos,
                    depth,
                    compression: attrs.compression,
                    color_table: attrs.color_table,
                    transparency: attrs.transparency,
                });
            }
            members.extend(slots.into_iter().flatten());
        } else {
            let end = self.src.end_pos();
            let pos = self.src.peek()?.map_or(end, |t| t.pos);
            return Err(Diag::new(
                pos,
                format!(
                    "expected a bitmap file name{} after {owner}",
                    if single.is_none() { " or BEGIN" } else { "" }
                ),
            ));
        }
        if members.is_empty() {
            return Err(Diag::new(at, format!("{owner} has no bitmap file")));
        }
        let mut files = Vec::new();
        for m in &members {
            let name = String::from_utf8_lossy(&m.name).into_owned();
            let data = self.src.read_file(m.pos, &name)?;
            files.push((name, data));
        }
        let list: Vec<crate::bitmap::Member<'_>> = members
            .iter()
            .zip(&files)
            .map(|(m, (name, data))| crate::bitmap::Member {
                name,
                data,
                depth: m.depth,
                compression: m.compression,
                color_table: m.color_table,
                transparency: m.transparency,
            })
            .collect();
        let pos_of = |file: &str| {
            members
                .iter()
                .zip(&files)
                .find(|(_, (n, _))| n == file)
                .map_or(at, |(m, _)| m.pos)
        };
        let (data, warnings) = crate::bitmap::encode_family_warnings(&list)
            .map_err(|e| Diag::new(pos_of(&e.file), e.to_string()))?;
        for w in warnings {
            let pos = pos_of(&w.file);
            self.warn(pos, format!("{}: {}", w.file, w.message));
        }
        if icon && !self.opts.allow_bad_size {
            // The first (1-bit) bitmap's BitmapType width and height.
            let size = |at: usize| u16::from_be_bytes([data[at], data[at + 1]]);
            if let Some(msg) = icon_size_warning(id, size(0), size(2)) {
                self.warn(at, format!("{owner}: {msg}"));
            }
        }
        self.push(kind, id, data, at)
    }

    /// The attributes after a bitmap's files (PilRC `ParseBitmapAttrs`).
    fn bitmap_attrs(
        &mut self,
        compression: crate::bitmap::Compression,
        owner: &str,
    ) -> Result<BitmapAttrs, Diag> {
        use crate::bitmap::Transparency;
        let mut a = BitmapAttrs {
            compression,
            per_depth: Vec::new(),
            color_table: false,
            transparency: None,
            bpp: None,
        };
        while let Some(t) = self.src.peek()?.cloned() {
            if let Some(c) = compression_word(&t) {
                self.src.next()?;
                let mut any = false;
                while let Some(Tok::Num(bits)) = self.src.peek()?.map(|t| t.tok.clone()) {
                    self.src.next()?;
                    a.per_depth.push((u8::try_from(bits).unwrap_or(0), c));
                    any = true;
                }
                if !any {
                    a.compression = c;
                    a.per_depth.clear();
                }
            } else if t.is_kw("BPP") {
                self.src.next()?;
                a.bpp = Some(self.value("the bits per pixel after BPP")?.0);
            } else if t.is_kw("COLORTABLE") || t.is_kw("COLOURTABLE") {
                self.src.next()?;
                a.color_table = true;
            } else if t.is_kw("NOCOLORTABLE") || t.is_kw("NOCOLOURTABLE") {
                self.src.next()?;
                a.color_table = false;
            } else if t.is_kw("TRANSPARENT") || t.is_kw("TRANSPARENCY") {
                self.src.next()?;
                let mut rgb = [0u8; 3];
                for (c, what) in rgb.iter_mut().zip(["red", "green", "blue"]) {
                    let (v, p) = self.value(&format!("the {what} value"))?;
                    *c = to_u8(v, p, what)?;
                }
                a.transparency = Some(Transparency::Rgb(rgb[0], rgb[1], rgb[2]));
            } else if t.is_kw("TRANSPARENTINDEX") || t.is_kw("TRANSPARENCYINDEX") {
                self.src.next()?;
                let (v, p) = self.value("the transparent index")?;
                a.transparency = Some(Transparency::Index(to_u8(v, p, "TRANSPARENTINDEX")?));
            } else if t.is_kw("DENSITY") {
                self.src.next()?;
                let (v, p) = self.value("the density")?;
                if v != 1 && v != 72 {
                    return Err(Diag::new(
                        p,
                        format!(
                            "{owner}: DENSITY {v} (Palm OS 5 high-density bitmaps) is not supported; Palm OS 3.x bitmaps are single density (72)"
                        ),
                    ));
                }
            } else if t.is_kw("BITMAPPALETTE") {
                return Err(Diag::new(
                    t.pos,
                    "BITMAPPALETTE is not supported by this compiler",
                ));
            } else {
                break;
            }
        }
        Ok(a)
    }

    /// A resource type given as a 4-character string (`HEX "tSTR"`, `DATA`).
    fn resource_type(&mut self, statement: &str) -> Result<[u8; 4], Diag> {
        let (text, pos) = self.string(&format!("the resource type after {statement}"))?;
        <[u8; 4]>::try_from(text.as_slice()).map_err(|_| {
            Diag::new(
                pos,
                format!("the resource type of {statement} must be exactly 4 characters"),
            )
        })
    }

    /// `HEX "type" ID n` then bytes: numbers (a byte, or `.w` / `.l` for 2 or 4
    /// bytes), strings (their bytes, no NUL) and symbols (a string symbol's
    /// bytes, a number's byte), up to the first other token (PilRC `ParseDumpHex`).
    fn hex(&mut self, at: Pos) -> Result<(), Diag> {
        let kind = self.resource_type("HEX")?;
        let (id, _) = self.id("HEX")?;
        let mut data = Vec::new();
        while let Some(t) = self.src.peek()?.cloned() {
            let value = match &t.tok {
                Tok::Num(n) => {
                    self.src.next()?;
                    *n
                }
                Tok::Str(_) => {
                    data.extend(self.string("a string")?.0);
                    continue;
                }
                Tok::Ident(name) if !expr::is_keyword(name) => {
                    if self.auto.on {
                        self.auto_define(name, t.pos);
                    }
                    let sym = self.src.symbols.get(name).map(|s| s.value.clone());
                    self.src.next()?;
                    match sym {
                        Some(Value::Str(s)) => {
                            data.extend(s);
                            continue;
                        }
                        Some(Value::Num(n)) => n,
                        Some(Value::Unsupported) => {
                            return Err(Diag::new(
                                t.pos,
                                format!(
                                    "symbol {name} is #defined with a value this compiler cannot evaluate"
                                ),
                            ));
                        }
                        None => {
                            return Err(Diag::new(t.pos, format!("symbol {name} is not defined")));
                        }
                    }
                }
                _ => break,
            };
            // A size suffix: `.b`, `.w`, `.l` right after the number.
            let mut size = 1;
            if let Some(dot) = self.src.peek()?.cloned()
                && dot.is_punct('.')
                && dot.pos.line == t.pos.line
                && dot.pos.col == t.end_col
            {
                self.src.next()?;
                let s = self.next("b, w or l after '.'")?;
                size = match &s.tok {
                    Tok::Ident(w) if w.eq_ignore_ascii_case("b") => 1,
                    Tok::Ident(w) if w.eq_ignore_ascii_case("w") => 2,
                    Tok::Ident(w) if w.eq_ignore_ascii_case("l") => 4,
                    _ => {
                        return Err(Diag::new(
                            s.pos,
                            format!("expected b, w or l after '.', found {}", s.describe()),
                        ));
                    }
                };
            }
            let max = if size == 4 {
                0xFFFF_FFFF
            } else {
                (1i64 << (8 * size)) - 1
            };
            if !(0..=max).contains(&value) {
                return Err(range_error(t.pos, "HEX value", value, 0, max));
            }
            data.extend(&(value as u32).to_be_bytes()[4 - size..]);
        }
        self.push(kind, id, data, at)
    }

    /// `FONT [ID] n FONTID f "file"` (PilRC `ParseDumpFont`; `FONT f` for
    /// `FONTID f` too): an `NFNT` from PilRC's text font format
    /// ([`crate::font`]). Font `f` (128-255) then has the font's widths and
    /// height for `AUTO` sizes, as in PilRC.
    fn font(&mut self, at: Pos) -> Result<(), Diag> {
        let (id, _) = self.id("FONT")?;
        let mut font_id = None;
        while self.peek_is_kw("FONTID")? || self.peek_is_kw("FONT")? {
            self.next("FONTID")?;
            font_id = Some(self.value("the font ID after FONTID")?);
        }
        let (name, pos) = self.string(&format!("the font file name of FONT {id}"))?;
        let (f, p) = font_id.ok_or_else(|| {
            Diag::new(
                pos,
                format!("FONT {id} needs FONTID n (128-255) before its file name"),
            )
        })?;
        if !(128..=255).contains(&f) {
            return Err(Diag::new(
                p,
                format!("font ID {f} is invalid: application fonts are 128-255"),
            ));
        }
        let file = String::from_utf8_lossy(&name).into_owned();
        let text = self.src.read_file(pos, &file)?;
        let compiled = crate::font::compile(&text)
            .map_err(|e| Diag::new(pos, format!("font file \"{file}\": {e}")))?;
        for (line, w) in &compiled.warnings {
            self.warn(pos, format!("font file \"{file}\": line {line}: {w}"));
        }
        let font = &compiled.font;
        self.metrics
            .define(f as u8, font.widths(), i32::from(font.f_rect_height));
        let data = font.to_bytes().map_err(|e| encode_error(pos, e))?;
        self.push(*b"NFNT", id, data, at)
    }

    fn form(&mut self, at: Pos) -> Result<(), Diag> {
        let (id, _) = self.id("FORM")?;
        let owner = format!("FORM {id}");
        self.prev = None;
        self.form_size = None;
        let spec = self.at_rect(&owner)?;
        let item = self.flags(FORM_FLAGS, &owner)?;
        let width =
            spec[2].extent(|p| Err(Diag::new(p, "AUTO is not supported in FORM bounds")))?;
        let height =
            spec[3].extent(|p| Err(Diag::new(p, "AUTO is not supported in FORM bounds")))?;
        let bounds = Rect {
            x: to_i16(
                spec[0].origin(Some(width), None)?,
                spec[0].pos(),
                "coordinate",
            )?,
            y: to_i16(
                spec[1].origin(Some(height), None)?,
                spec[1].pos(),
                "coordinate",
            )?,
            width: to_i16(width, spec[2].pos(), "width")?,
            height: to_i16(height, spec[3].pos(), "height")?,
        };
        self.form_size = Some((width, height));
        self.prev = Some(Prev {
            x: bounds.x.into(),
            y: bounds.y.into(),
            width: Some(bounds.width.into()),
            height: bounds.height.into(),
        });
        self.expect_kw("BEGIN", &owner)?;
        let mut editable_field = false;
        let mut indicator = false;
        let mut objects = Vec::new();
        // Objects with an ID: ID → (object keyword, position, is a label).
        let mut ids: HashMap<u16, (String, Pos, bool)> = HashMap::new();
        // POPUPLISTs: list ID, position.
        let mut popups: Vec<(u16, Pos)> = Vec::new();
        loop {
            let t = self.next(&format!("END of {owner}"))?;
            if t.is_kw("END") {
                // PilRC FParseObjects' warning.
                if editable_field && !indicator {
                    self.warn(
                        t.pos,
                        format!("{owner} has editable field(s) without a Graffiti State Indicator"),
                    );
                }
                break;
            }
            let (word, pos) = (t.describe().to_ascii_uppercase(), t.pos);
            indicator |= word == "NOGRAFFITISTATEINDICATOR";
            if let Some(object) = self.form_object(t)? {
                match &object {
                    FormObject::Field(f) if f.attr.editable => editable_field = true,
                    FormObject::Popup(p) => popups.push((p.list_id, pos)),
                    FormObject::GraffitiState(_) => {
                        if indicator {
                            self.warn(
                                pos,
                                format!("{owner} contains multiple Graffiti State Indicators"),
                            );
                        }
                        indicator = true;
                    }
                    _ => {}
                }
                if let Some(oid) = object.id() {
                    let label = matches!(object, FormObject::Label(_));
                    match ids.get(&oid) {
                        // Two labels may share an ID, as in PilRC.
                        Some((_, _, true)) if label => {}
                        Some((first, at, _)) => {
                            return Err(Diag::new(
                                pos,
                                format!(
                                    "duplicate object ID {oid} in {owner}: this {word} and the \
                                     {first} at {}:{}:{}",
                                    self.src.file_name(*at),
                                    at.line,
                                    at.col
                                ),
                            ));
                        }
                        None => {
                            ids.insert(oid, (word, pos, label));
                        }
                    }
                }
                objects.push(object);
            }
        }
        // PilRC does not check; Palm OS looks the list up when the trigger is
        // tapped (FrmGetObjectIndex: a fatal "object not in form" on a debug ROM).
        for (list, pos) in popups {
            if ids.get(&list).is_none_or(|(w, _, _)| w != "LIST") {
                let found = ids.get(&list).map_or(String::new(), |(w, at, _)| {
                    format!(
                        " (ID {list} is the {w} at {}:{}:{})",
                        self.src.file_name(*at),
                        at.line,
                        at.col
                    )
                });
                return Err(Diag::new(
                    pos,
                    format!("POPUPLIST names list {list}, which is not a LIST of {owner}{found}"),
                ));
            }
        }
        let frame = if item.modal {
            // PilRC: a modal form gets dialogFrame (corner 3, width 2).
            FrameBits {
                corner_diam: 3,
                width: 2,
                ..FrameBits::default()
            }
        } else {
            FrameBits {
                width: item.frame,
                ..FrameBits::default()
            }
        };
        let form = Form {
            id,
            bounds,
            modal: item.modal,
            frame,
            usable: item.usable,
            save_behind: item.save_behind,
            default_button: item.default_button.0,
            help_id: item.help_id,
            menu_id: item.menu_id,
            objects,
        };
        let data = form.to_bytes().map_err(|e| encode_error(at, e))?;
        self.form_size = None;
        self.prev = None;
        self.push(*b"tFRM", id, data, at)
    }

    /// Width of `text` in `font`, if the font's metrics are known.
    fn text_width(&self, text: &[u8], font: u8) -> Option<i64> {
        self.metrics.text_width(text, font).map(i64::from)
    }

    /// Resolves a rectangle whose `AUTO` width is `text_width` + `margin`,
    /// sets `PREV*` to it.
    fn resolve_rect(
        &mut self,
        spec: [Coord; 4],
        text_width: Option<i64>,
        font: u8,
        margin: i64,
    ) -> Result<Rect, Diag> {
        let width = spec[2].extent(|p| auto_width(text_width, font, margin, p))?;
        let height = spec[3].extent(|p| auto_height(&self.metrics, font, p))?;
        let (fw, fh) = self.form_size.unzip();
        let rect = Rect {
            x: to_i16(
                spec[0].origin(Some(width), fw)?,
                spec[0].pos(),
                "coordinate",
            )?,
            y: to_i16(
                spec[1].origin(Some(height), fh)?,
                spec[1].pos(),
                "coordinate",
            )?,
            width: to_i16(width, spec[2].pos(), "width")?,
            height: to_i16(height, spec[3].pos(), "height")?,
        };
        self.prev = Some(Prev {
            x: rect.x.into(),
            y: rect.y.into(),
            width: Some(rect.width.into()),
            height: rect.height.into(),
        });
        Ok(rect)
    }

    /// Resolves a position of an object `size` pixels large (`None` where
    /// unknown; the sizes come from fonts, so they are small), sets `PREV*`
    /// to its rectangle.
    fn resolve_point(&mut self, spec: [Coord; 2], size: (Option<i64>, i64)) -> Result<Point, Diag> {
        let (fw, fh) = self.form_size.unzip();
        let point = Point {
            x: to_i16(spec[0].origin(size.0, fw)?, spec[0].pos(), "coordinate")?,
            y: to_i16(
                spec[1].origin(Some(size.1), fh)?,
                spec[1].pos(),
                "coordinate",
            )?,
        };
        self.prev = Some(Prev {
            x: point.x.into(),
            y: point.y.into(),
            width: size.0,
            height: size.1,
        });
        Ok(point)
    }

    fn form_object(&mut self, t: Token) -> Result<Option<FormObject>, Diag> {
        let word = match &t.tok {
            Tok::Ident(w) => w.to_ascii_uppercase(),
            _ => String::new(),
        };
        let control = |style, flags, margin| Some((style, flags, margin));
        let control_kind = match word.as_str() {
            "BUTTON" => control(ControlStyle::Button, BUTTON_FLAGS, BIG_MARGIN),
            "REPEATBUTTON" => control(ControlStyle::RepeatingButton, BUTTON_FLAGS, BIG_MARGIN),
            "PUSHBUTTON" => control(ControlStyle::PushButton, PUSH_FLAGS, SMALL_MARGIN),
            "CHECKBOX" => control(
                ControlStyle::Checkbox,
                CHECKBOX_FLAGS,
                SMALL_MARGIN + BIG_MARGIN,
            ),
            "SELECTORTRIGGER" => {
                control(ControlStyle::SelectorTrigger, SELECTOR_FLAGS, SMALL_MARGIN)
            }
            "POPUPTRIGGER" => control(
                ControlStyle::PopupTrigger,
                SELECTOR_FLAGS,
                SMALL_MARGIN + BIG_MARGIN,
            ),
            _ => None,
        };
        if let Some((style, flags, margin)) = control_kind {
            let (label, _) = self.string(&format!("the label after {word}"))?;
            let owner = format!("{word} \"{}\"", crate::charset::decode(&label));
            let (id, _) = self.id(&owner)?;
            let spec = self.at_rect(&owner)?;
            let item = self.flags(flags, &owner)?;
            let bounds =
                self.resolve_rect(spec, self.text_width(&label, item.font), item.font, margin)?;
            let frame = match style {
                ControlStyle::Button | ControlStyle::RepeatingButton => item.frame,
                ControlStyle::Checkbox | ControlStyle::PopupTrigger => 0,
                _ => 1,
            };
            if item.graphical {
                // PilRC FParseObjects: a graphic control needs BITMAPID.
                if item.bitmap_id == 0 {
                    return Err(Diag::new(
                        t.pos,
                        format!("{owner} is GRAPHICAL and needs a non-zero BITMAPID"),
                    ));
                }
                return Ok(Some(FormObject::GraphicControl(GraphicControl {
                    id,
                    bounds,
                    bitmap_id: item.bitmap_id,
                    selected_bitmap_id: item.selected_bitmap_id,
                    attr: ControlAttr {
                        usable: item.usable,
                        enabled: item.enabled,
                        on: item.on,
                        left_anchor: item.left_anchor,
                        frame,
                        graphical: true,
                        ..ControlAttr::default()
                    },
                    style,
                    font: item.font,
                    group: item.group,
                })));
            }
            return Ok(Some(FormObject::Control(Control {
                id,
                bounds,
                label,
                attr: ControlAttr {
                    usable: item.usable,
                    enabled: item.enabled,
                    on: item.on,
                    left_anchor: item.left_anchor,
                    frame,
                    ..ControlAttr::default()
                },
                style,
                font: item.font,
                group: item.group,
            })));
        }
        match word.as_str() {
            "TITLE" => {
                let (text, _) = self.string("the text after TITLE")?;
                Ok(Some(FormObject::Title(Title {
                    bounds: Rect::default(),
                    text,
                })))
            }
            "LABEL" => {
                let (text, _) = self.string("the text after LABEL")?;
                let owner = format!("LABEL \"{}\"", crate::charset::decode(&text));
                let (id, _) = self.id(&owner)?;
                let spec = self.at_point(&owner)?;
                let item = self.flags(LABEL_FLAGS, &owner)?;
                let width = self.text_width(&text, item.font);
                let height = auto_height(&self.metrics, item.font, spec[1].pos())?;
                let pos = self.resolve_point(spec, (width, height))?;
                Ok(Some(FormObject::Label(Label {
                    id,
                    pos,
                    usable: item.usable,
                    font: item.font,
                    text,
                })))
            }
            "FIELD" => {
                let (id, _) = self.id("FIELD")?;
                let owner = format!("FIELD {id}");
                let spec = self.at_rect(&owner)?;
                let item = self.flags(FIELD_FLAGS, &owner)?;
                let bounds = self.resolve_rect(spec, Some(0), item.font, 0)?;
                Ok(Some(FormObject::Field(Field {
                    id,
                    bounds,
                    attr: FieldAttr {
                        usable: item.usable,
                        editable: item.editable,
                        single_line: item.single_line,
                        dynamic_size: item.dynamic_size,
                        ins_pt_visible: true,
                        underlined: u8::from(item.underlined),
                        justification: item.justification,
                        auto_shift: item.auto_shift,
                        has_scroll_bar: item.has_scroll_bar,
                        numeric: item.numeric,
                        ..FieldAttr::default()
                    },
                    max_chars: item.max_chars,
                    font: item.font,
                })))
            }
            "GRAFFITISTATEINDICATOR" => {
                let spec = self.at_point("GRAFFITISTATEINDICATOR")?;
                let pos = self.resolve_point(spec, (Some(GSI_SIZE.0), GSI_SIZE.1))?;
                Ok(Some(FormObject::GraffitiState(GraffitiState { pos })))
            }
            "NOGRAFFITISTATEINDICATOR" => Ok(None),
            "LIST" => {
                // Items: string literals only (PilRC ParseItm ifMultText).
                let mut items = Vec::new();
                while let Some(Tok::Str(text)) = self.src.peek()?.map(|t| t.tok.clone()) {
                    self.src.next()?;
                    items.push(text);
                }
                let (id, _) = self.id("LIST")?;
                let owner = format!("LIST {id}");
                let spec = self.at_rect(&owner)?;
                let item = self.flags(LIST_FLAGS, &owner)?;
                let widest = items.iter().try_fold(0i64, |w, text| {
                    self.text_width(text, item.font).map(|t| w.max(t))
                });
                let mut bounds = self.resolve_rect(spec, widest, item.font, SMALL_MARGIN)?;
                // PilRC: a height of 0 shows up to 156 pixels of items; the
                // height is VISIBLEITEMS rows of 11 (14 in largeFont) pixels.
                let row = if item.font == 2 { 14 } else { 11 };
                let mut visible = item.visible_items;
                if bounds.height == 0 && visible.is_none() {
                    visible = Some((items.len() as i64).min(156 / row));
                }
                if let Some(rows) = visible {
                    let height = rows.saturating_mul(row).min(160);
                    bounds.height = to_i16(height, t.pos, "list height")?;
                    if let Some(p) = self.prev.as_mut() {
                        p.height = bounds.height.into();
                    }
                }
                Ok(Some(FormObject::List(List {
                    id,
                    bounds,
                    attr: ListAttr {
                        usable: item.usable,
                        enabled: item.enabled,
                        search: item.search,
                        ..ListAttr::default()
                    },
                    items,
                    font: item.font,
                })))
            }
            "POPUPLIST" => {
                let (control_id, _) = self.id("POPUPLIST")?;
                let (v, p) = self.value("the list ID after POPUPLIST")?;
                Ok(Some(FormObject::Popup(Popup {
                    control_id,
                    list_id: to_u16(v, p, "list ID")?,
                })))
            }
            "GADGET" => {
                let (id, _) = self.id("GADGET")?;
                let owner = format!("GADGET {id}");
                let spec = self.at_rect(&owner)?;
                let item = self.flags(GADGET_FLAGS, &owner)?;
                let bounds = self.resolve_rect(spec, Some(0), 0, 0)?;
                // PilRC always sets `extended` (FParseObjects).
                Ok(Some(FormObject::Gadget(Gadget {
                    id,
                    usable: item.usable,
                    extended: true,
                    bounds,
                })))
            }
            "FORMBITMAP" => {
                let spec = self.at_point("FORMBITMAP")?;
                let item = self.flags(FORM_BITMAP_FLAGS, "FORMBITMAP")?;
                let height = auto_height(&self.metrics, 0, spec[1].pos())?;
                let pos = self.resolve_point(spec, (Some(0), height))?;
                Ok(Some(FormObject::Bitmap(FormBitmap {
                    usable: item.usable,
                    pos,
                    bitmap_id: item.rsc_id,
                })))
            }
            "TABLE" => {
                let (id, _) = self.id("TABLE")?;
                let owner = format!("TABLE {id}");
                let spec = self.at_rect(&owner)?;
                let item = self.flags(TABLE_FLAGS, &owner)?;
                let bounds = self.resolve_rect(spec, Some(0), 0, 0)?;
                let mut column_widths = item.column_widths;
                column_widths.resize(usize::from(item.columns), 0);
                Ok(Some(FormObject::Table(Table {
                    id,
                    bounds,
                    editable: item.editable,
                    column_widths,
                    rows: item.rows,
                })))
            }
            "SCROLLBAR" => {
                let (id, _) = self.id("SCROLLBAR")?;
                let owner = format!("SCROLLBAR {id}");
                let spec = self.at_rect(&owner)?;
                let item = self.flags(SCROLL_BAR_FLAGS, &owner)?;
                let bounds = self.resolve_rect(spec, Some(0), 0, 0)?;
                if bounds.width != 7 && bounds.height != 7 {
                    self.warn(
                        t.pos,
                        format!("{owner}: width or height is not the recommended 7 pixels"),
                    );
                }
                let v = |v: i64, what| to_i16(v, t.pos, what);
                Ok(Some(FormObject::ScrollBar(ScrollBar {
                    bounds,
                    id,
                    usable: item.usable,
                    value: v(item.value, "VALUE")?,
                    min: v(item.min, "MIN")?,
                    max: v(item.max, "MAX")?,
                    page_size: v(item.page_size, "PAGESIZE")?,
                })))
            }
            "SLIDER" => {
                let (id, _) = self.id("SLIDER")?;
                let owner = format!("SLIDER {id}");
                let spec = self.at_rect(&owner)?;
                let item = self.flags(SLIDER_FLAGS, &owner)?;
                let bounds = self.resolve_rect(spec, Some(0), 0, 0)?;
                if item.min >= item.max || item.value < item.min || item.value > item.max {
                    // PilRC warns that it assigns defaults, but writes the
                    // values as given (it changes them after storing them).
                    self.warn(t.pos, format!("{owner}: VALUE, MIN and MAX are inconsistent (MIN < MAX, MIN <= VALUE <= MAX expected)"));
                }
                let v = |v: i64, what| to_u16(v, t.pos, what);
                Ok(Some(FormObject::Slider(Slider {
                    id,
                    bounds,
                    thumb_id: item.thumb_id,
                    background_id: item.background_id,
                    attr: ControlAttr {
                        usable: item.usable,
                        enabled: item.enabled,
                        graphical: true,
                        vertical: item.vertical,
                        ..ControlAttr::default()
                    },
                    feedback: item.feedback,
                    min: v(item.min, "MIN")?,
                    max: v(item.max, "MAX")?,
                    page_size: v(item.page_size, "PAGESIZE")?,
                    value: v(item.value, "VALUE")?,
                })))
            }
            _ => Err(Diag::new(
                t.pos,
                format!(
                    "expected a form object ({FORM_OBJECTS}) or END, found {}",
                    t.describe()
                ),
            )),
        }
    }

    fn menu(&mut self, at: Pos) -> Result<(), Diag> {
        let (id, _) = self.id("MENU")?;
        let owner = format!("MENU {id}");
        self.expect_kw("BEGIN", &owner)?;
        let mut pulldowns = Vec::new();
        loop {
            let t = self.next(&format!("PULLDOWN or END of {owner}"))?;
            if t.is_kw("END") {
                break;
            }
            if !t.is_kw("PULLDOWN") {
                return Err(Diag::new(
                    t.pos,
                    format!(
                        "expected PULLDOWN or END in {owner}, found {}",
                        t.describe()
                    ),
                ));
            }
            pulldowns.push(self.pulldown()?);
        }
        layout_menus(&mut pulldowns, &self.metrics);
        let data = MenuBar { pulldowns }
            .to_bytes()
            .map_err(|e| encode_error(at, e))?;
        self.push(*b"MBAR", id, data, at)
    }

    fn pulldown(&mut self) -> Result<Pulldown, Diag> {
        let (title, _) = self.string("the title after PULLDOWN")?;
        let owner = format!("PULLDOWN \"{}\"", crate::charset::decode(&title));
        self.expect_kw("BEGIN", &owner)?;
        let mut items = Vec::new();
        loop {
            let t = self.next(&format!("MENUITEM or END of {owner}"))?;
            if t.is_kw("END") {
                break;
            }
            if !t.is_kw("MENUITEM") {
                return Err(Diag::new(
                    t.pos,
                    format!(
                        "expected MENUITEM or END in {owner}, found {}",
                        t.describe()
                    ),
                ));
            }
            if self.eat_kw("SEPARATOR")? {
                // PilRC uses up an automatic ID for every separator.
                self.next_auto_id();
                let id = if self.peek_is_kw("ID")? || self.peek_is_kw("AUTOID")? {
                    self.id("MENUITEM SEPARATOR")?.0
                } else {
                    0
                };
                items.push(MenuItem {
                    id,
                    command: 0,
                    hidden: false,
                    text: b"-".to_vec(),
                });
                continue;
            }
            let (text, _) = self.string("the text or SEPARATOR after MENUITEM")?;
            let text = ellipsis(text, self.opts.no_ellipsis);
            let item_owner = format!("MENUITEM \"{}\"", crate::charset::decode(&text));
            let (id, _) = self.id(&item_owner)?;
            let command = if self.peek_is_string()? {
                let (key, pos) = self.string("the shortcut")?;
                match key.as_slice() {
                    [k] => k.to_ascii_uppercase(),
                    _ => {
                        return Err(Diag::new(
                            pos,
                            "a menu shortcut must be exactly 1 character",
                        ));
                    }
                }
            } else {
                0
            };
            items.push(MenuItem {
                id,
                command,
                hidden: false,
                text,
            });
        }
        Ok(Pulldown {
            bounds: Rect::default(),
            title_bounds: Rect::default(),
            title,
            hidden: false,
            items,
        })
    }

    fn alert(&mut self, at: Pos) -> Result<(), Diag> {
        let (id, _) = self.id("ALERT")?;
        let owner = format!("ALERT {id}");
        let item = self.flags(ALERT_FLAGS, &owner)?;
        self.expect_kw("BEGIN", &owner)?;
        let mut title = None;
        let mut message = None;
        let mut buttons: Option<Vec<Vec<u8>>> = None;
        let end = loop {
            let t = self.next(&format!("TITLE, MESSAGE, BUTTONS or END of {owner}"))?;
            let twice = |what: &str| Diag::new(t.pos, format!("{what} given twice in {owner}"));
            if t.is_kw("END") {
                break t;
            } else if t.is_kw("TITLE") {
                if title.is_some() {
                    return Err(twice("TITLE"));
                }
                title = Some(self.string("the text after TITLE")?.0);
            } else if t.is_kw("MESSAGE") {
                if message.is_some() {
                    return Err(twice("MESSAGE"));
                }
                message = Some(self.string("the text after MESSAGE")?.0);
            } else if t.is_kw("BUTTONS") || t.is_kw("BUTTON") {
                if buttons.is_some() {
                    return Err(twice("BUTTONS"));
                }
                let mut list = Vec::new();
                while self.peek_is_string()? {
                    list.push(self.string("a button label")?.0);
                }
                buttons = Some(list);
            } else {
                return Err(Diag::new(
                    t.pos,
                    format!(
                        "expected TITLE, MESSAGE, BUTTONS or END in {owner}, found {}",
                        t.describe()
                    ),
                ));
            }
        };
        let buttons = buttons.unwrap_or_default();
        if buttons.is_empty() {
            return Err(Diag::new(
                end.pos,
                format!("{owner} needs at least one button (BUTTONS \"OK\")"),
            ));
        }
        let (default_button, default_pos) = item.default_button;
        if usize::from(default_button) >= buttons.len() {
            return Err(Diag::new(
                default_pos.unwrap_or(at),
                format!(
                    "DEFAULTBUTTON {default_button} is not a button index of {owner} (0..={})",
                    buttons.len() - 1
                ),
            ));
        }
        let alert = Alert {
            alert_type: item.alert_type,
            help_id: item.help_id,
            default_button,
            title: title.unwrap_or_default(),
            message: message.unwrap_or_default(),
            buttons,
        };
        let data = alert.to_bytes().map_err(|e| encode_error(at, e))?;
        self.push(*b"Talt", id, data, at)
    }
}

/// The `.rcp` statement that makes a resource of type `kind`.
fn statement_of(kind: [u8; 4]) -> &'static str {
    match &kind {
        b"tFRM" => "FORM",
        b"MBAR" => "MENU",
        b"Talt" => "ALERT",
        b"tSTR" => "STRING",
        b"tver" => "VERSION",
        b"tAIN" => "APPLICATIONICONNAME",
        b"APPL" => "APPLICATION",
        b"NFNT" => "FONT",
        b"tAIS" => "CATEGORIES",
        b"tSTL" => "STRINGTABLE",
        b"taic" => "LAUNCHERCATEGORY",
        b"BLST" => "BYTELIST",
        b"wrdl" => "WORDLIST",
        b"DLST" => "LONGWORDLIST",
        b"tclt" => "PALETTETABLE",
        b"Tbmp" | b"tAIB" => "BITMAP",
        _ => "resource",
    }
}

/// `n` with a comma between thousands (`70,001`).
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Pull-down and title bounds as PilRC computes them (`AssignMenuRects`), with
/// `boldFont` widths: titles from x = 4, each `width + 7` wide and 12 high;
/// a pull-down opens at y = 14, 11 pixels per item and 5 per separator, as wide
/// as its widest item (text + 6, plus 18 and the key's width for a shortcut),
/// and at x = min(title x + 2, 160 - width - 2).
fn layout_menus(pulldowns: &mut [Pulldown], metrics: &Metrics) {
    let bold = |text: &[u8]| i64::from(metrics.text_width(text, 1).unwrap_or(0));
    let mut x_title = 4i64;
    for p in pulldowns {
        let title_width = bold(&p.title) + 7;
        p.title_bounds = Rect::new(clamp(x_title), 0, clamp(title_width), 12);
        x_title += title_width;
        let mut width = 0;
        let mut height = 0;
        for item in &p.items {
            let mut w = bold(&item.text) + 6;
            if item.command != 0 {
                w += 6 + 12 + bold(&[item.command]);
            }
            width = width.max(w);
            height += if item.is_separator() { 5 } else { 11 };
        }
        let x = (i64::from(p.title_bounds.x) + 2).min(SCREEN_WIDTH - width - 2);
        p.bounds = Rect::new(clamp(x), 14, clamp(width), clamp(height));
    }
}

/// A menu coordinate as a `Coord`, saturated to the `Int16` range (real menus
/// never come near it).
fn clamp(v: i64) -> i16 {
    v.clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::is_keyword;

    #[test]
    fn attribute_and_object_words_are_reserved() {
        // A flag or object word in an expression is reported as a keyword,
        // never looked up as a symbol.
        let objects = FORM_OBJECTS.split(", ");
        let resources = RESOURCES.split(", ");
        let resources = resources.map(|r| r.trim_end_matches('*'));
        let bitmaps = crate::bitmap::STATEMENTS.iter().copied();
        for word in FLAGS
            .iter()
            .copied()
            .chain(objects)
            .chain(resources)
            .chain(bitmaps)
        {
            assert!(is_keyword(word), "{word} is missing from expr::KEYWORDS");
        }
    }

    #[test]
    fn ellipsis_only_at_the_end() {
        assert_eq!(ellipsis(b"About...".to_vec(), false), b"About\x85");
        assert_eq!(ellipsis(b"About...".to_vec(), true), b"About...");
        assert_eq!(ellipsis(b"a...b".to_vec(), false), b"a...b");
        assert_eq!(ellipsis(b"..".to_vec(), false), b"..");
    }
}
