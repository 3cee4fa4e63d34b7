//! The resource compiler: parses the preprocessed `.rcp` token stream and builds
//! the resource models, following PilRC's grammar and defaults
//! (`jichu4n/pilrc:pilrc.c` `ParseItm`, `FParseForm`, `FParseObjects`,
//! `FParseMenu`, `FParsePullDown`, `ParseDumpAlert`, `ParseDumpString`, ...).
//! The accepted language is documented at the crate root.

use std::collections::HashMap;

use crate::Resource;
use crate::alert::{Alert, AlertType};
use crate::error::EncodeError;
use crate::expr::{self, Cursor, Prev, Value};
use crate::fonts;
use crate::form::{
    Control, ControlAttr, ControlStyle, Field, FieldAttr, Form, FormObject, FrameBits,
    GraffitiState, Label, Title,
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

const RESOURCES: &str = "FORM, MENU, ALERT, STRING, VERSION, APPLICATIONICONNAME, APPLICATION";
const FORM_OBJECTS: &str = "TITLE, BUTTON, PUSHBUTTON, CHECKBOX, REPEATBUTTON, SELECTORTRIGGER, \
                            LABEL, FIELD, GRAFFITISTATEINDICATOR";

/// PilRC resource keywords this compiler does not implement.
const UNSUPPORTED_RESOURCES: &[&str] = &[
    "BITMAP",
    "BITMAPGREY",
    "BITMAPGRAY",
    "BITMAPGREY16",
    "BITMAPGRAY16",
    "BITMAPCOLOR16",
    "BITMAPCOLOR",
    "BITMAPCOLOUR",
    "BITMAPCOLOR16K",
    "BITMAPCOLOR24K",
    "BITMAPCOLOR32K",
    "BITMAPFAMILY",
    "BITMAPFAMILYEX",
    "BITMAPFAMILYSPECIAL",
    "BOOTSCREENFAMILY",
    "BYTELIST",
    "CATEGORIES",
    "DATA",
    "FONT",
    "FONTFAMILY",
    "GENERATEHEADER",
    "HEX",
    "ICON",
    "ICONFAMILY",
    "ICONFAMILYEX",
    "INTEGER",
    "LAUNCHERCATEGORY",
    "LONGWORDLIST",
    "MIDI",
    "NAVIGATION",
    "PALETTETABLE",
    "RESETAUTOID",
    "SMALLICON",
    "SMALLICONFAMILY",
    "SMALLICONFAMILYEX",
    "STRINGTABLE",
    "TRANSLATION",
    "TRAP",
    "WORDLIST",
];

/// PilRC form objects this compiler does not implement.
const UNSUPPORTED_OBJECTS: &[&str] = &[
    "LIST",
    "TABLE",
    "FORMBITMAP",
    "POPUPTRIGGER",
    "POPUPLIST",
    "GADGET",
    "SCROLLBAR",
    "SLIDER",
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
];

/// PilRC attribute keywords this compiler does not implement.
const UNSUPPORTED_FLAGS: &[&str] = &[
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
    "LOCALE",
    "AUTOID",
];

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
const BUTTON_FLAGS: &[&[&str]] = &[COMMON, ANCHOR, FRAMES];
const PUSH_FLAGS: &[&[&str]] = &[COMMON, ANCHOR, &["GROUP"]];
const CHECKBOX_FLAGS: &[&[&str]] = &[COMMON, ANCHOR, &["GROUP", "CHECKED", "ON"]];
const SELECTOR_FLAGS: &[&[&str]] = &[COMMON, ANCHOR];
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
        }
    }
}

/// One coordinate of an `AT (...)` before it is resolved.
#[derive(Clone, Copy)]
enum Coord {
    Value(i64, Pos),
    Auto(Pos),
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
            Coord::Auto(p) => Err(Diag::new(p, "AUTO gives a width or height, not a position")),
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
    out: Vec<Resource>,
    seen: HashMap<([u8; 4], u16), Pos>,
    /// The previous object's rectangle in the current form (`PREV*`).
    prev: Option<Prev>,
    /// The current form's width and height (`CENTER`).
    form_size: Option<(i64, i64)>,
}

/// Compiles the whole stream into resources, in source order.
pub(crate) fn compile(src: &mut Source<'_>) -> Result<Vec<Resource>, Diag> {
    let mut c = Compiler {
        src,
        out: Vec::new(),
        seen: HashMap::new(),
        prev: None,
        form_size: None,
    };
    while let Some(t) = c.src.next()? {
        c.resource(t)?;
    }
    Ok(c.out)
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
/// ellipsis character 0x85 (`FParsePullDown`, `ParseDumpString`).
fn ellipsis(mut text: Vec<u8>) -> Vec<u8> {
    if text.ends_with(b"...") {
        text.truncate(text.len() - 3);
        text.push(0x85);
    }
    text
}

fn auto_height(font: u8, pos: Pos) -> Result<i64, Diag> {
    fonts::height(font)
        .map(|h| i64::from(h) + 1)
        .ok_or_else(|| {
            Diag::new(
                pos,
                format!("AUTO height needs the metrics of font {font}, which are not built in (fonts 0-7 are)"),
            )
        })
}

fn auto_width(text: &[u8], font: u8, margin: i64, pos: Pos) -> Result<i64, Diag> {
    fonts::text_width(text, font)
        .map(|w| i64::from(w) + margin)
        .ok_or_else(|| {
            Diag::new(
                pos,
                format!("AUTO width needs the character widths of font {font}; only fonts 0, 1 and 2 are built in"),
            )
        })
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

    /// A constant expression.
    fn value(&mut self, what: &str) -> Result<(i64, Pos), Diag> {
        let end = self.src.end_pos();
        let pos = self.src.peek()?.map_or(end, |t| t.pos);
        let e = expr::parse(self.src, what)?;
        Ok((expr::eval(&e, &self.src.symbols, self.prev.as_ref())?, pos))
    }

    /// `[ID] value`, as PilRC's `WGetId` (the `ID` keyword is optional).
    fn id(&mut self, after: &str) -> Result<(u16, Pos), Diag> {
        self.eat_kw("ID")?;
        let (v, pos) = self.value(&format!("ID after {after}"))?;
        Ok((to_u16(v, pos, "ID")?, pos))
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
                return Err(Diag::new(pos, "AUTO> is not supported; give the size"));
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

    /// `AT (x y width height)`.
    fn at_rect(&mut self, owner: &str) -> Result<[Coord; 4], Diag> {
        self.expect_kw("AT", owner)?;
        self.expect_punct('(', "AT")?;
        let c = [
            self.coord("the left position in AT (left top width height)")?,
            self.coord("the top position in AT (left top width height)")?,
            self.coord("the width in AT (left top width height)")?,
            self.coord("the height in AT (left top width height)")?,
        ];
        self.expect_punct(')', "the height in AT (left top width height)")?;
        Ok(c)
    }

    /// `AT (x y)`.
    fn at_point(&mut self, owner: &str) -> Result<[Coord; 2], Diag> {
        self.expect_kw("AT", owner)?;
        self.expect_punct('(', "AT")?;
        let c = [
            self.coord("the left position in AT (left top)")?,
            self.coord("the top position in AT (left top)")?,
        ];
        self.expect_punct(')', "the top position in AT (left top)")?;
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
            "GROUP" => {
                let (v, p) = number(self, word)?;
                item.group = to_u8(v, p, "GROUP")?;
            }
            "FONT" | "FONTID" => {
                let (v, p) = number(self, word)?;
                item.font = to_u8(v, p, "FONT")?;
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
                if self.peek_is_kw("FILE")? {
                    let f = self.next("FILE")?;
                    return Err(Diag::new(
                        f.pos,
                        "STRING ... FILE is not supported; put the text in the .rcp",
                    ));
                }
                if self.src.peek()?.is_some_and(|t| t.is_punct('\\')) {
                    self.src.next()?;
                }
                let (text, pos) = self.string(&format!("the text of STRING {id}"))?;
                let text: Vec<u8> = ellipsis(text)
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
            w if UNSUPPORTED_RESOURCES.contains(&w) => Err(Diag::new(
                t.pos,
                format!(
                    "{w} resources are not supported by this compiler (supported: {RESOURCES})"
                ),
            )),
            _ => Err(Diag::new(
                t.pos,
                format!("expected a resource ({RESOURCES}), found {}", t.describe()),
            )),
        }
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
        self.expect_kw("BEGIN", &owner)?;
        let mut objects = Vec::new();
        // Objects with an ID: ID → (object keyword, position, is a label).
        let mut ids: HashMap<u16, (String, Pos, bool)> = HashMap::new();
        loop {
            let t = self.next(&format!("END of {owner}"))?;
            if t.is_kw("END") {
                break;
            }
            let (word, pos) = (t.describe().to_ascii_uppercase(), t.pos);
            if let Some(object) = self.form_object(t)? {
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

    /// Resolves a rectangle, sets `PREV*` to it.
    fn resolve_rect(
        &mut self,
        spec: [Coord; 4],
        text: &[u8],
        font: u8,
        margin: i64,
    ) -> Result<Rect, Diag> {
        let width = spec[2].extent(|p| auto_width(text, font, margin, p))?;
        let height = spec[3].extent(|p| auto_height(font, p))?;
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
            _ => None,
        };
        if let Some((style, flags, margin)) = control_kind {
            let (label, _) = self.string(&format!("the label after {word}"))?;
            let owner = format!("{word} \"{}\"", crate::charset::decode(&label));
            let (id, _) = self.id(&owner)?;
            let spec = self.at_rect(&owner)?;
            let item = self.flags(flags, &owner)?;
            let bounds = self.resolve_rect(spec, &label, item.font, margin)?;
            let frame = match style {
                ControlStyle::Button | ControlStyle::RepeatingButton => item.frame,
                ControlStyle::Checkbox => 0,
                _ => 1,
            };
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
                let width = fonts::text_width(&text, item.font).map(i64::from);
                let height = auto_height(item.font, spec[1].pos())?;
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
                let bounds = self.resolve_rect(spec, b"", item.font, 0)?;
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
            w if UNSUPPORTED_OBJECTS.contains(&w) => Err(Diag::new(
                t.pos,
                format!(
                    "{w} is not supported by this compiler (supported form objects: {FORM_OBJECTS})"
                ),
            )),
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
        layout_menus(&mut pulldowns);
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
                let id = if self.peek_is_kw("ID")? {
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
            let text = ellipsis(text);
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
fn layout_menus(pulldowns: &mut [Pulldown]) {
    let bold = |text: &[u8]| i64::from(fonts::text_width(text, 1).unwrap_or(0));
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
        for word in FLAGS.iter().copied().chain(objects).chain(resources) {
            assert!(is_keyword(word), "{word} is missing from expr::KEYWORDS");
        }
    }

    #[test]
    fn ellipsis_only_at_the_end() {
        assert_eq!(ellipsis(b"About...".to_vec()), b"About\x85");
        assert_eq!(ellipsis(b"a...b".to_vec()), b"a...b");
        assert_eq!(ellipsis(b"..".to_vec()), b"..");
    }
}
