//! Constant expressions: numbers, `#define`d symbols, `PREVLEFT`..`PREVHEIGHT`,
//! parentheses, unary minus and `+ - * /`.
//!
//! PilRC evaluates `+ - * /` strictly left to right (`jichu4n/pilrc:pilrc.c`
//! `WGetConstEx`), so `2+3*4` is 20 there and 14 in C. Rather than pick one
//! silently, an expression that mixes `+`/`-` with `*`/`/` without parentheses
//! is an error. A leading `-` negates one factor (`-2+3` is 1; PilRC would
//! negate the whole rest, giving -5).

use std::collections::HashMap;

use crate::lex::{Diag, Pos, Tok, Token};

/// The words PilRC reserves: they never name a symbol in an expression.
/// (Keywords of resources this compiler does not support are listed too, so
/// that they are reported as keywords rather than as unknown symbols.)
pub(crate) const KEYWORDS: &[&str] = &[
    "ALERT",
    "APPLICATION",
    "APPLICATIONICONNAME",
    "AT",
    "AUTO",
    "AUTOCOMPRESS",
    "AUTOID",
    "AUTOSHIFT",
    "BACKGROUNDID",
    "BEGIN",
    "BITMAP",
    "BITMAPCOLOR",
    "BITMAPCOLOR16",
    "BITMAPCOLOR16K",
    "BITMAPCOLOUR",
    "BITMAPCOLOUR16",
    "BITMAPCOLOUR16K",
    "BITMAPFAMILY",
    "BITMAPFAMILYEX",
    "BITMAPFAMILYSPECIAL",
    "BITMAPGRAY",
    "BITMAPGRAY16",
    "BITMAPGREY",
    "BITMAPGREY16",
    "BITMAPID",
    "BITMAPPALETTE",
    "BOLDFRAME",
    "BOOTSCREENFAMILY",
    "BOTTOM",
    "BPP",
    "BUTTON",
    "BUTTONS",
    "BYTELIST",
    "CATEGORIES",
    "CENTER",
    "CHECKBOX",
    "CHECKED",
    "COLORTABLE",
    "COLOURTABLE",
    "COLUMNS",
    "COLUMNWIDTHS",
    "COMPRESS",
    "CONFIRMATION",
    "DATA",
    "DEFAULTBTNID",
    "DEFAULTBUTTON",
    "DENSITY",
    "DISABLED",
    "DYNAMICSIZE",
    "EDITABLE",
    "ENABLED",
    "END",
    "ERROR",
    "EXTENDED",
    "FEEDBACK",
    "FIELD",
    "FILE",
    "FONT",
    "FONTFAMILY",
    "FONTID",
    "FORCECOMPRESS",
    "FORM",
    "FORMBITMAP",
    "FRAME",
    "GADGET",
    "GENERATEHEADER",
    "GRAFFITISTATEINDICATOR",
    "GRAPHICAL",
    "GROUP",
    "HASSCROLLBAR",
    "HELPID",
    "HEX",
    "ICON",
    "ICONFAMILY",
    "ICONFAMILYEX",
    "ID",
    "INFORMATION",
    "INTEGER",
    "LABEL",
    "LAUNCHERCATEGORY",
    "LEFTALIGN",
    "LEFTANCHOR",
    "LIST",
    "LOCALE",
    "LONGWORDLIST",
    "MAX",
    "MAXCHARS",
    "MAXVALUE",
    "MENU",
    "MENUID",
    "MENUITEM",
    "MESSAGE",
    "MIDI",
    "MIN",
    "MINVALUE",
    "MODAL",
    "MULTIPLELINE",
    "MULTIPLELINES",
    "NAVIGATION",
    "NOCOLORTABLE",
    "NOCOLOURTABLE",
    "NOCOMPRESS",
    "NOFRAME",
    "NOGRAFFITISTATEINDICATOR",
    "NONEDITABLE",
    "NONEXTENDED",
    "NONUSABLE",
    "NOSAVEBEHIND",
    "NUMCOLUMNS",
    "NUMERIC",
    "NUMROWS",
    "OBJECTS",
    "ON",
    "PAGESIZE",
    "PALETTETABLE",
    "POPUPLIST",
    "POPUPTRIGGER",
    "PREVBOTTOM",
    "PREVHEIGHT",
    "PREVLEFT",
    "PREVRIGHT",
    "PREVTOP",
    "PREVWIDTH",
    "PULLDOWN",
    "PUSHBUTTON",
    "RECTFRAME",
    "REPEATBUTTON",
    "RESETAUTOID",
    "RIGHT",
    "RIGHTALIGN",
    "RIGHTANCHOR",
    "ROWS",
    "SAVEBEHIND",
    "SCROLLBAR",
    "SEARCH",
    "SELECTEDBITMAPID",
    "SELECTORTRIGGER",
    "SEPARATOR",
    "SINGLELINE",
    "SLIDER",
    "SMALLICON",
    "SMALLICONFAMILY",
    "SMALLICONFAMILYEX",
    "STRING",
    "STRINGTABLE",
    "TABLE",
    "THUMBID",
    "TITLE",
    "TRANSLATION",
    "TRANSPARENCY",
    "TRANSPARENCYINDEX",
    "TRANSPARENT",
    "TRANSPARENTINDEX",
    "TRAP",
    "UNDERLINED",
    "USABLE",
    "VALUE",
    "VERSION",
    "VERTICAL",
    "VISIBLEITEMS",
    "WARNING",
    "WIDTHS",
    "WORDLIST",
];

/// Whether `word` is a reserved word (case-insensitive).
pub(crate) fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

/// The value of a `#define`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// A number (or character constant, or expression of them).
    Num(i64),
    /// A string (usable wherever a string literal is).
    Str(Vec<u8>),
    /// A definition this compiler cannot evaluate (a function-like macro, a
    /// cast, ...). Only C headers may hold one; using it is an error.
    Unsupported,
}

/// A `#define`d symbol and where it was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Symbol {
    pub value: Value,
    pub at: Pos,
}

pub(crate) type Symbols = HashMap<String, Symbol>;

/// The previous object's rectangle, for `PREV*`. A label in a font without
/// built-in widths has no known width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Prev {
    pub x: i64,
    pub y: i64,
    pub width: Option<i64>,
    pub height: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PrevKind {
    Left,
    Right,
    Width,
    Top,
    Bottom,
    Height,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expr {
    Num(i64),
    Sym(String, Pos),
    Prev(PrevKind, Pos),
    Neg(Box<Expr>, Pos),
    Bin(Op, Box<Expr>, Box<Expr>, Pos),
}

/// A source of tokens: the preprocessed token stream, or a `#define`'s line.
pub(crate) trait Cursor {
    fn peek(&mut self) -> Result<Option<&Token>, Diag>;
    fn next(&mut self) -> Result<Option<Token>, Diag>;
    /// Where "unexpected end of input" is reported.
    fn end_pos(&self) -> Pos;
}

/// A cursor over a slice of tokens (one directive's line).
pub(crate) struct SliceCursor<'a> {
    pub tokens: &'a [Token],
    pub at: usize,
    pub end: Pos,
}

impl Cursor for SliceCursor<'_> {
    fn peek(&mut self) -> Result<Option<&Token>, Diag> {
        Ok(self.tokens.get(self.at))
    }

    fn next(&mut self) -> Result<Option<Token>, Diag> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        Ok(t)
    }

    fn end_pos(&self) -> Pos {
        self.end
    }
}

/// Deepest nesting of parentheses and unary minus accepted (the parser
/// recurses; this keeps hostile input from exhausting the stack).
const MAX_NESTING: u32 = 100;

/// Parses an expression; `what` names the expected value in errors
/// ("expected {what}, found ...").
pub(crate) fn parse(cur: &mut impl Cursor, what: &str) -> Result<Expr, Diag> {
    nested(cur, what, 0)
}

fn nested(cur: &mut impl Cursor, what: &str, depth: u32) -> Result<Expr, Diag> {
    let mut left = factor(cur, what, depth)?;
    let mut additive: Option<bool> = None;
    loop {
        let (op, pos) = match cur.peek()? {
            Some(t) => match t.tok {
                Tok::Punct('+') => (Op::Add, t.pos),
                Tok::Punct('-') => (Op::Sub, t.pos),
                Tok::Punct('*') => (Op::Mul, t.pos),
                Tok::Punct('/') => (Op::Div, t.pos),
                _ => return Ok(left),
            },
            None => return Ok(left),
        };
        let is_additive = matches!(op, Op::Add | Op::Sub);
        if additive.is_some_and(|a| a != is_additive) {
            return Err(Diag::new(
                pos,
                "mixing + or - with * or / needs parentheses (PilRC evaluates left to right)",
            ));
        }
        additive = Some(is_additive);
        cur.next()?;
        let right = factor(cur, "a number after the operator", depth)?;
        left = Expr::Bin(op, Box::new(left), Box::new(right), pos);
    }
}

fn factor(cur: &mut impl Cursor, what: &str, depth: u32) -> Result<Expr, Diag> {
    let Some(t) = cur.next()? else {
        return Err(Diag::new(
            cur.end_pos(),
            format!("expected {what}, found the end of the input"),
        ));
    };
    if depth >= MAX_NESTING && (t.is_punct('(') || t.is_punct('-')) {
        return Err(Diag::new(t.pos, "expression nested too deeply"));
    }
    match &t.tok {
        Tok::Num(n) => Ok(Expr::Num(*n)),
        Tok::Punct('(') => {
            let inner = nested(cur, what, depth + 1)?;
            match cur.next()? {
                Some(c) if c.is_punct(')') => Ok(inner),
                Some(c) => Err(Diag::new(
                    c.pos,
                    format!("expected ')', found {}", c.describe()),
                )),
                None => Err(Diag::new(
                    cur.end_pos(),
                    "expected ')', found the end of the input",
                )),
            }
        }
        Tok::Punct('-') => Ok(Expr::Neg(Box::new(factor(cur, what, depth + 1)?), t.pos)),
        Tok::Ident(word) => {
            let prev = [
                ("PREVLEFT", PrevKind::Left),
                ("PREVRIGHT", PrevKind::Right),
                ("PREVWIDTH", PrevKind::Width),
                ("PREVTOP", PrevKind::Top),
                ("PREVBOTTOM", PrevKind::Bottom),
                ("PREVHEIGHT", PrevKind::Height),
            ];
            if let Some((_, kind)) = prev.iter().find(|(k, _)| word.eq_ignore_ascii_case(k)) {
                Ok(Expr::Prev(*kind, t.pos))
            } else if is_keyword(word) {
                Err(Diag::new(t.pos, format!("expected {what}, found {word}")))
            } else {
                Ok(Expr::Sym(word.clone(), t.pos))
            }
        }
        _ => Err(Diag::new(
            t.pos,
            format!("expected {what}, found {}", t.describe()),
        )),
    }
}

/// The symbols `e` names, with where (for automatic IDs).
pub(crate) fn symbols_of(e: &Expr, out: &mut Vec<(String, Pos)>) {
    match e {
        Expr::Sym(name, pos) => out.push((name.clone(), *pos)),
        Expr::Neg(inner, _) => symbols_of(inner, out),
        Expr::Bin(_, l, r, _) => {
            symbols_of(l, out);
            symbols_of(r, out);
        }
        Expr::Num(_) | Expr::Prev(..) => {}
    }
}

/// Evaluates `e` with the symbols and the previous object's rectangle.
pub(crate) fn eval(e: &Expr, symbols: &Symbols, prev: Option<&Prev>) -> Result<i64, Diag> {
    match e {
        Expr::Num(n) => Ok(*n),
        Expr::Sym(name, pos) => match symbols.get(name).map(|s| &s.value) {
            Some(Value::Num(n)) => Ok(*n),
            Some(Value::Str(_)) => Err(Diag::new(
                *pos,
                format!("symbol {name} is a string, a number is needed here"),
            )),
            Some(Value::Unsupported) => Err(Diag::new(
                *pos,
                format!("symbol {name} is #defined with a value this compiler cannot evaluate"),
            )),
            None => Err(Diag::new(*pos, format!("undefined symbol {name}"))),
        },
        Expr::Prev(kind, pos) => {
            let p = prev.ok_or_else(|| {
                Diag::new(
                    *pos,
                    "PREV* needs a previous object with bounds in this form",
                )
            })?;
            let width = || {
                p.width.ok_or_else(|| {
                    Diag::new(
                        *pos,
                        "the width of the previous object is unknown (its font has no built-in metrics)",
                    )
                })
            };
            // The previous object's values are 16-bit coordinates: no overflow.
            Ok(match kind {
                PrevKind::Left => p.x,
                PrevKind::Right => p.x + width()?,
                PrevKind::Width => width()?,
                PrevKind::Top => p.y,
                PrevKind::Bottom => p.y + p.height,
                PrevKind::Height => p.height,
            })
        }
        Expr::Neg(inner, pos) => eval(inner, symbols, prev)?
            .checked_neg()
            .ok_or_else(|| Diag::new(*pos, "arithmetic overflow")),
        Expr::Bin(op, l, r, pos) => {
            let (a, b) = (eval(l, symbols, prev)?, eval(r, symbols, prev)?);
            let v = match op {
                Op::Add => a.checked_add(b),
                Op::Sub => a.checked_sub(b),
                Op::Mul => a.checked_mul(b),
                Op::Div if b == 0 => return Err(Diag::new(*pos, "division by zero")),
                Op::Div => a.checked_div(b),
            };
            v.ok_or_else(|| Diag::new(*pos, "arithmetic overflow"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::lex;

    fn run(src: &str, symbols: &Symbols, prev: Option<&Prev>) -> Result<i64, Diag> {
        let tokens = lex(src, 0, false).unwrap();
        let end = Pos {
            file: 0,
            line: 1,
            col: 99,
        };
        let mut cur = SliceCursor {
            tokens: &tokens,
            at: 0,
            end,
        };
        let e = parse(&mut cur, "a number")?;
        if cur.at != tokens.len() {
            return Err(Diag::new(end, "trailing tokens"));
        }
        eval(&e, symbols, prev)
    }

    #[test]
    fn arithmetic() {
        let mut symbols = Symbols::new();
        let at = Pos {
            file: 0,
            line: 1,
            col: 1,
        };
        symbols.insert(
            "Base".into(),
            Symbol {
                value: Value::Num(1000),
                at,
            },
        );
        let prev = Prev {
            x: 10,
            y: 20,
            width: Some(30),
            height: 12,
        };
        assert_eq!(run("1 + 2 - 4", &symbols, None), Ok(-1));
        assert_eq!(run("(160 - 40) / 2", &symbols, None), Ok(60));
        assert_eq!(run("Base+1", &symbols, None), Ok(1001));
        assert_eq!(run("-2 + 3", &symbols, None), Ok(1));
        assert_eq!(run("PREVBOTTOM + 2", &symbols, Some(&prev)), Ok(34));
        assert_eq!(run("prevright", &symbols, Some(&prev)), Ok(40));
        assert_eq!(run("7 / 2 * 2", &symbols, None), Ok(6));
    }

    #[test]
    fn errors() {
        let symbols = Symbols::new();
        let msg = |s: &str| run(s, &symbols, None).unwrap_err();
        let d = msg("2 + 3 * 4");
        assert_eq!(
            (d.pos.col, d.msg.as_str()),
            (
                7,
                "mixing + or - with * or / needs parentheses (PilRC evaluates left to right)"
            )
        );
        assert_eq!(msg("Nope").msg, "undefined symbol Nope");
        assert_eq!(msg("1/0").msg, "division by zero");
        assert_eq!(
            msg("PREVTOP").msg,
            "PREV* needs a previous object with bounds in this form"
        );
        assert_eq!(msg("AT").msg, "expected a number, found AT");
        assert_eq!(msg("(1").msg, "expected ')', found the end of the input");
        assert_eq!(
            msg("4294967295 * 4294967295 * 4294967295").msg,
            "arithmetic overflow"
        );
        let narrow = Prev {
            x: 0,
            y: 0,
            width: None,
            height: 8,
        };
        assert!(run("PREVRIGHT", &symbols, Some(&narrow)).is_err());
        assert_eq!(run("PREVBOTTOM", &symbols, Some(&narrow)), Ok(8));
    }
}
