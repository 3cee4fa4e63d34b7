//! The tokenizer of `.rcp` sources and C headers.
//!
//! Tokens follow PilRC's lexer (`jichu4n/pilrc:lex.c`): identifiers, decimal and
//! `0x` hexadecimal numbers, character constants (`'MDBG'`), double-quoted
//! strings with C-like escapes, `//` and `/* */` comments, and single-character
//! punctuation. Anything else (C operators in headers, stray characters) is a
//! punctuation token for the parser to reject or skip, so lexing a C header
//! never fails on code it does not need.

use crate::charset;

/// Where a token starts: index of the file in the compile's file table, line
/// and column (both from 1, columns in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub file: usize,
    pub line: u32,
    pub col: u32,
}

/// A diagnostic at a position (converted to [`RcpError`](crate::RcpError) with the file name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Diag {
    pub pos: Pos,
    pub msg: String,
}

impl Diag {
    pub(crate) fn new(pos: Pos, msg: impl Into<String>) -> Diag {
        Diag {
            pos,
            msg: msg.into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// An identifier: a keyword (case-insensitive) or a symbol (case-sensitive).
    Ident(String),
    /// A number or character constant.
    Num(i64),
    /// A string literal, already in Palm bytes.
    Str(Vec<u8>),
    /// Any other character.
    Punct(char),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub pos: Pos,
    /// Column just after the token (to tell `NAME(` from `NAME (`).
    pub end_col: u32,
}

impl Token {
    /// Whether the token is the identifier `word`, ignoring case (keywords).
    pub(crate) fn is_kw(&self, word: &str) -> bool {
        matches!(&self.tok, Tok::Ident(s) if s.eq_ignore_ascii_case(word))
    }

    pub(crate) fn is_punct(&self, c: char) -> bool {
        self.tok == Tok::Punct(c)
    }

    /// The token as the user wrote it, for messages.
    pub(crate) fn describe(&self) -> String {
        match &self.tok {
            Tok::Ident(s) => s.clone(),
            Tok::Num(n) => n.to_string(),
            Tok::Str(s) => format!("\"{}\"", charset::decode(s)),
            Tok::Punct(BOM) => "a byte order mark (U+FEFF)".to_string(),
            Tok::Punct(c) if c.is_control() || c.is_whitespace() => {
                format!("U+{:04X}", u32::from(*c))
            }
            Tok::Punct(c) => format!("'{c}'"),
        }
    }
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    /// C-header mode: a malformed number or literal becomes an
    /// [`INVALID`] token instead of an error.
    lenient: bool,
    file: usize,
    line: u32,
    col: u32,
}

impl Lexer<'_> {
    fn pos(&self) -> Pos {
        Pos {
            file: self.file,
            line: self.line,
            col: self.col,
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    /// Skips blanks and comments; errors on an unterminated `/*`.
    fn skip_space(&mut self) -> Result<(), Diag> {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('/') => {
                    let mut ahead = self.chars.clone();
                    ahead.next();
                    match ahead.next() {
                        Some('/') => {
                            while self.peek().is_some_and(|c| c != '\n') {
                                self.bump();
                            }
                        }
                        Some('*') => {
                            let start = self.pos();
                            self.bump();
                            self.bump();
                            loop {
                                match self.bump() {
                                    None => {
                                        return Err(Diag::new(start, "unterminated /* comment"));
                                    }
                                    Some('*') if self.peek() == Some('/') => {
                                        self.bump();
                                        break;
                                    }
                                    Some(_) => {}
                                }
                            }
                        }
                        _ => return Ok(()),
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn token(&mut self) -> Result<Option<Token>, Diag> {
        self.skip_space()?;
        let pos = self.pos();
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        let tok = if c.is_ascii_alphabetic() || c == '_' {
            let mut s = String::new();
            while let Some(c) = self
                .peek()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            {
                s.push(c);
                self.bump();
            }
            Tok::Ident(s)
        } else if c.is_ascii_digit() || c == '"' || c == '\'' {
            match self.literal(c, pos) {
                Ok(tok) => tok,
                Err(_) if self.lenient => Tok::Punct(INVALID),
                Err(e) => return Err(e),
            }
        } else {
            self.bump();
            Tok::Punct(c)
        };
        Ok(Some(Token {
            tok,
            pos,
            end_col: self.col,
        }))
    }

    /// A number, string or character constant starting with `c`.
    fn literal(&mut self, c: char, pos: Pos) -> Result<Tok, Diag> {
        if c.is_ascii_digit() {
            return Ok(Tok::Num(self.number(pos)?));
        }
        self.bump();
        let bytes = self.quoted(c, pos)?;
        if c == '"' {
            return Ok(Tok::Str(bytes));
        }
        if bytes.is_empty() || bytes.len() > 4 {
            return Err(Diag::new(
                pos,
                "a character constant holds 1 to 4 characters",
            ));
        }
        Ok(Tok::Num(
            bytes.iter().fold(0i64, |v, &b| (v << 8) | i64::from(b)),
        ))
    }

    /// A decimal or `0x` hexadecimal number, with C's `u`/`l` suffixes allowed.
    fn number(&mut self, pos: Pos) -> Result<i64, Diag> {
        let mut digits = String::new();
        let mut radix = 10;
        if self.peek() == Some('0') {
            let mut ahead = self.chars.clone();
            ahead.next();
            if matches!(ahead.next(), Some('x' | 'X')) {
                self.bump();
                self.bump();
                radix = 16;
            }
        }
        while let Some(c) = self.peek().filter(|c| c.is_digit(radix)) {
            digits.push(c);
            self.bump();
        }
        while matches!(self.peek(), Some('u' | 'U' | 'l' | 'L')) {
            self.bump();
        }
        if self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            while self
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                self.bump();
            }
            return Err(Diag::new(pos, "malformed number"));
        }
        if digits.is_empty() {
            return Err(Diag::new(pos, "malformed number: no digits after 0x"));
        }
        i64::from_str_radix(&digits, radix)
            .ok()
            .filter(|v| *v <= i64::from(u32::MAX))
            .ok_or_else(|| Diag::new(pos, "number too large (at most 0xFFFFFFFF)"))
    }

    /// The body of a string or character constant after its opening quote, in
    /// Palm bytes, with PilRC's escapes. On a bad character the rest of the
    /// literal is still consumed, so a lenient caller can carry on after it.
    fn quoted(&mut self, quote: char, start: Pos) -> Result<Vec<u8>, Diag> {
        let what = if quote == '"' {
            "string"
        } else {
            "character constant"
        };
        let mut out = Vec::new();
        let mut first_error = None;
        loop {
            let at = self.pos();
            let byte = match self.bump() {
                None | Some('\n') => {
                    return Err(Diag::new(start, format!("unterminated {what}")));
                }
                Some(c) if c == quote => break,
                Some('\\') => match self.escape(at) {
                    Ok(b) => b,
                    Err(e) if e.msg == "unterminated string" => {
                        return Err(Diag::new(start, format!("unterminated {what}")));
                    }
                    Err(e) => {
                        first_error.get_or_insert(e);
                        None
                    }
                },
                Some(c) => match charset::encode_char(c) {
                    Some(b) => Some(b),
                    None => {
                        first_error.get_or_insert(Diag::new(
                            at,
                            format!(
                                "character '{c}' (U+{:04X}) is not in the Palm character set (Windows-1252)",
                                u32::from(c)
                            ),
                        ));
                        None
                    }
                },
            };
            if let Some(b) = byte {
                if b == 0 && quote == '"' {
                    first_error
                        .get_or_insert(Diag::new(at, "a NUL character cannot be part of a string"));
                }
                out.push(b);
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// One escape after a backslash; `None` for `\_`, which stands for nothing.
    fn escape(&mut self, at: Pos) -> Result<Option<u8>, Diag> {
        let Some(c) = self.peek() else {
            return Err(Diag::new(at, "unterminated string"));
        };
        Ok(Some(match c {
            '0'..='7' => {
                let mut v = 0u32;
                for _ in 0..3 {
                    match self.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            self.bump();
                        }
                        None => break,
                    }
                }
                u8::try_from(v).map_err(|_| Diag::new(at, "octal escape above \\377"))?
            }
            'x' | 'X' => {
                self.bump();
                let mut v = 0u32;
                let mut n = 0;
                while let Some(d) = self.peek().and_then(|c| c.to_digit(16)).filter(|_| n < 2) {
                    v = v * 16 + d;
                    n += 1;
                    self.bump();
                }
                if n == 0 {
                    return Err(Diag::new(at, "\\x needs hexadecimal digits"));
                }
                v as u8
            }
            '\n' => return Err(Diag::new(at, "unterminated string")),
            _ => {
                self.bump();
                match c {
                    'a' => 7,
                    'b' => 8,
                    'f' => 12,
                    'n' => b'\n',
                    'r' => b'\r',
                    't' => b'\t',
                    'v' => 11,
                    'e' => 27,
                    'z' => 26,
                    '_' => return Ok(None),
                    '"' | '\'' | '\\' | '?' => c as u8,
                    other => {
                        // PilRC keeps the character of an unknown escape
                        // (lex.c's escape switch has no default): a typo
                        // would go unnoticed.
                        return Err(Diag::new(
                            at,
                            format!(
                                "unknown escape {}: PilRC would keep the character; write it \
                                 without the backslash, or \\\\ for a backslash",
                                describe_escape(other)
                            ),
                        ));
                    }
                }
            }
        }))
    }
}

/// The punctuation token a lenient (C header) lexer puts where a literal
/// was malformed.
pub(crate) const INVALID: char = '\u{FFFD}';

/// The UTF-8 byte order mark some editors put at the start of a file.
const BOM: char = '\u{FEFF}';

/// An escape `\c` as the user wrote it, for messages (`\q`; invisible
/// characters by their code point).
fn describe_escape(c: char) -> String {
    if c.is_control() || c.is_whitespace() || c == BOM {
        format!("\\ followed by U+{:04X}", u32::from(c))
    } else {
        format!("\\{c}")
    }
}

/// Tokenizes `text`, the contents of file number `file`. With `lenient` (C
/// headers) malformed literals become [`INVALID`] tokens; other errors remain.
/// A byte order mark at the start is skipped (it takes no column).
pub(crate) fn lex(text: &str, file: usize, lenient: bool) -> Result<Vec<Token>, Diag> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let mut lexer = Lexer {
        chars: text.chars().peekable(),
        lenient,
        file,
        line: 1,
        col: 1,
    };
    let mut tokens = Vec::new();
    while let Some(t) = lexer.token()? {
        tokens.push(t);
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s, 0, false)
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    fn err(s: &str) -> (u32, u32, String) {
        let d = lex(s, 0, false).unwrap_err();
        (d.pos.line, d.pos.col, d.msg)
    }

    #[test]
    fn tokens_and_positions() {
        let t = lex("FORM ID 1000\n  AT (0 0x10)", 0, false).unwrap();
        assert_eq!(t[0].tok, Tok::Ident("FORM".into()));
        assert_eq!(
            (t[2].tok.clone(), t[2].pos.line, t[2].pos.col),
            (Tok::Num(1000), 1, 9)
        );
        assert_eq!((t[3].pos.line, t[3].pos.col, t[3].end_col), (2, 3, 5));
        assert_eq!(t[4].tok, Tok::Punct('('));
        assert_eq!(t[6].tok, Tok::Num(16));
    }

    #[test]
    fn comments_strings_and_constants() {
        assert_eq!(
            toks("a // x\n/* y\n z */ \"q\\\"\\n\\x41\\101\\_\" 'MDBG' 10UL"),
            vec![
                Tok::Ident("a".into()),
                Tok::Str(b"q\"\nAA".to_vec()),
                Tok::Num(0x4D44_4247),
                Tok::Num(10),
            ]
        );
        assert_eq!(
            toks("\"caf\u{e9}\u{2026}\""),
            vec![Tok::Str(vec![b'c', b'a', b'f', 0xE9, 0x85])]
        );
        assert_eq!(
            toks("&& <"),
            vec![Tok::Punct('&'), Tok::Punct('&'), Tok::Punct('<')]
        );
        assert_eq!(toks("'\\0'"), vec![Tok::Num(0)]);
    }

    #[test]
    fn lenient_mode_marks_bad_literals() {
        let t: Vec<Tok> = lex("1.5f x \"\u{3c0}\" y", 0, true)
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect();
        assert_eq!(
            t,
            vec![
                Tok::Num(1),
                Tok::Punct('.'),
                Tok::Punct(INVALID),
                Tok::Ident("x".into()),
                Tok::Punct(INVALID),
                Tok::Ident("y".into()),
            ]
        );
    }

    #[test]
    fn errors_have_positions() {
        assert_eq!(err("\n  \"abc"), (2, 3, "unterminated string".into()));
        assert_eq!(err("x /* never"), (1, 3, "unterminated /* comment".into()));
        assert_eq!(err("12ab"), (1, 1, "malformed number".into()));
        assert_eq!(
            err("0x"),
            (1, 1, "malformed number: no digits after 0x".into())
        );
        assert_eq!(
            err("99999999999"),
            (1, 1, "number too large (at most 0xFFFFFFFF)".into())
        );
        assert_eq!(
            err("\"a\\0\""),
            (1, 3, "a NUL character cannot be part of a string".into())
        );
        assert_eq!(
            err("''"),
            (1, 1, "a character constant holds 1 to 4 characters".into())
        );
        assert_eq!(
            err("\"\u{3c0}\""),
            (
                1,
                2,
                "character '\u{3c0}' (U+03C0) is not in the Palm character set (Windows-1252)"
                    .into()
            )
        );
    }
}
