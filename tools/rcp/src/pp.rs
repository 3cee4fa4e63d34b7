//! The preprocessor: turns the main file and its `#include`s into one token
//! stream, handling `#define`, `#undef`, `#include`, `#ifdef`, `#ifndef`,
//! `#else`, `#endif` and `#error` as PilRC does (`jichu4n/pilrc:pilrc.c`
//! `ParseDirectives`, `ParseCInclude`, `AddDefineSymbol`).
//!
//! An included file whose extension starts with `r` (`.rcp`, `.rh`) is more
//! PilRC source and is read in place. Any other file is a C header: only its
//! directives count; other lines (declarations, code) are skipped. A header
//! `#define` whose value is not a number, string or constant expression (a
//! function-like macro, a cast, ...) is remembered as unsupported and is an
//! error only where it is used. `#include <...>` (system headers) is skipped.

use std::path::{Path, PathBuf};

use crate::IncludeResolver;
use crate::charset;
use crate::expr::{self, Cursor, SliceCursor, Symbol, Symbols, Value, is_keyword};
use crate::lex::{Diag, Pos, Tok, Token, lex};

/// Most files open at once (PilRC's limit for nested headers).
const MAX_DEPTH: usize = 32;

/// A source file of the compile: how to name it in errors, and its path.
pub(crate) struct FileInfo {
    pub name: String,
    pub path: PathBuf,
}

/// One `#ifdef`/`#ifndef` level.
struct Cond {
    /// Whether the enclosing text is active.
    parent_active: bool,
    /// Whether the current branch is taken.
    taken: bool,
    else_seen: bool,
    at: Pos,
}

/// A file being read.
struct Frame {
    file: usize,
    tokens: Vec<Token>,
    at: usize,
    /// A C header: only directives count.
    header: bool,
    conds: Vec<Cond>,
}

impl Frame {
    fn active(&self) -> bool {
        self.conds.last().is_none_or(|c| c.parent_active && c.taken)
    }
}

/// The preprocessed token stream.
pub(crate) struct Source<'r> {
    pub files: Vec<FileInfo>,
    pub symbols: Symbols,
    /// For [`crate::ids`]: each defined symbol's place in the order of
    /// definition, and whether it was defined without a value (an include
    /// guard).
    pub defined: std::collections::HashMap<String, (usize, bool)>,
    frames: Vec<Frame>,
    resolver: &'r dyn IncludeResolver,
    peeked: Option<Token>,
    end: Pos,
    /// `TRANSLATION` pairs (original, translated) of the selected languages,
    /// newest first: every string token equal to an original is replaced, as
    /// PilRC's `FGetTok` does.
    pub translations: Vec<(Vec<u8>, Vec<u8>)>,
}

/// Where the end of `text` is (line and column just after its last character).
fn end_of(text: &str, file: usize) -> Pos {
    let line = 1 + text.matches('\n').count();
    let last = text.rsplit('\n').next().unwrap_or("");
    Pos {
        file,
        line: u32::try_from(line).unwrap_or(u32::MAX),
        col: u32::try_from(last.chars().count() + 1).unwrap_or(u32::MAX),
    }
}

impl<'r> Source<'r> {
    /// A stream over `text`, the main file named `name` at `path`.
    pub(crate) fn new(
        text: &str,
        name: String,
        path: PathBuf,
        resolver: &'r dyn IncludeResolver,
    ) -> Result<Source<'r>, Diag> {
        let tokens = lex(text, 0, false)?;
        Ok(Source {
            files: vec![FileInfo { name, path }],
            symbols: Symbols::new(),
            defined: std::collections::HashMap::new(),
            frames: vec![Frame {
                file: 0,
                tokens,
                at: 0,
                header: false,
                conds: Vec::new(),
            }],
            resolver,
            peeked: None,
            end: end_of(text, 0),
            translations: Vec::new(),
        })
    }

    /// The file name to show for `pos`.
    pub(crate) fn file_name(&self, pos: Pos) -> &str {
        self.files
            .get(pos.file)
            .map_or("<unknown>", |f| f.name.as_str())
    }

    /// The next active token, after processing the directives before it.
    fn pull(&mut self) -> Result<Option<Token>, Diag> {
        loop {
            let Some(frame) = self.frames.last_mut() else {
                return Ok(None);
            };
            let Some(tok) = frame.tokens.get(frame.at).cloned() else {
                if let Some(c) = frame.conds.last() {
                    return Err(Diag::new(c.at, "#ifdef/#ifndef without #endif"));
                }
                self.frames.pop();
                continue;
            };
            frame.at += 1;
            if tok.is_punct('#') {
                self.directive(tok)?;
            } else if frame.active() && !frame.header {
                return Ok(Some(self.translate(tok)));
            }
        }
    }

    /// `tok`, or its translation if it is a string with one.
    fn translate(&self, mut tok: Token) -> Token {
        if let Tok::Str(s) = &tok.tok
            && let Some((_, t)) = self.translations.iter().find(|(o, _)| o == s)
        {
            tok.tok = Tok::Str(t.clone());
        }
        tok
    }

    /// Reads the data file `name` (a bitmap, `DATA`, `STRING ... FILE`, `FONT`
    /// source) named at `at`: found as `#include`s are, next to the file that
    /// names it, then in the `-I` directories.
    pub(crate) fn read_file(&self, at: Pos, name: &str) -> Result<Vec<u8>, Diag> {
        let from = self
            .files
            .get(at.file)
            .map_or_else(PathBuf::new, |f| f.path.clone());
        self.resolver
            .resolve(&from, name)
            .map(|(_, bytes)| bytes)
            .map_err(|e| Diag::new(at, format!("cannot read file \"{name}\": {e}")))
    }

    /// The tokens of the directive line after `#` (with `\` continuations).
    fn directive_line(&mut self, hash: &Token) -> Vec<Token> {
        let mut line = Vec::new();
        let Some(frame) = self.frames.last_mut() else {
            return line;
        };
        let mut current = hash.pos.line;
        while let Some(t) = frame.tokens.get(frame.at) {
            if t.pos.line != current {
                let continued = line.last().is_some_and(|l: &Token| l.is_punct('\\'));
                if !(continued && t.pos.line == current + 1) {
                    break;
                }
                current += 1;
            }
            line.push(t.clone());
            frame.at += 1;
        }
        line
    }

    fn directive(&mut self, hash: Token) -> Result<(), Diag> {
        let line = self.directive_line(&hash);
        let Some(frame) = self.frames.last_mut() else {
            return Ok(());
        };
        let header = frame.header;
        let active = frame.active();
        let Some(Tok::Ident(name)) = line.first().map(|t| &t.tok) else {
            if !active || header {
                return Ok(());
            }
            return Err(Diag::new(hash.pos, "expected a directive name after #"));
        };
        let name = name.to_ascii_lowercase();
        let args = &line[1..];
        match name.as_str() {
            "ifdef" | "ifndef" | "if" => {
                if active && name == "if" {
                    return Err(Diag::new(
                        hash.pos,
                        "#if is not supported; use #ifdef or #ifndef",
                    ));
                }
                let taken = if active {
                    let symbol = symbol_name(args, &hash, &name)?;
                    self.symbols.contains_key(symbol) == (name == "ifdef")
                } else {
                    false
                };
                if let Some(frame) = self.frames.last_mut() {
                    frame.conds.push(Cond {
                        parent_active: active,
                        taken,
                        else_seen: false,
                        at: hash.pos,
                    });
                }
            }
            "else" => {
                let cond = frame
                    .conds
                    .last_mut()
                    .ok_or_else(|| Diag::new(hash.pos, "#else without #ifdef"))?;
                if cond.else_seen {
                    return Err(Diag::new(hash.pos, "second #else for the same #ifdef"));
                }
                cond.else_seen = true;
                cond.taken = !cond.taken;
            }
            "endif" => {
                frame
                    .conds
                    .pop()
                    .ok_or_else(|| Diag::new(hash.pos, "#endif without #ifdef"))?;
            }
            _ if !active => {}
            "define" => self.define(args, &hash, header)?,
            "undef" => {
                let symbol = symbol_name(args, &hash, "undef")?;
                self.symbols.remove(symbol);
                self.defined.remove(symbol);
            }
            "include" => self.include(args, &hash, header)?,
            "error" => {
                let text: Vec<String> = args.iter().map(Token::describe).collect();
                return Err(Diag::new(hash.pos, format!("#error {}", text.join(" "))));
            }
            "elif" => {
                return Err(Diag::new(
                    hash.pos,
                    "#elif is not supported; use #ifdef or #ifndef",
                ));
            }
            "pragma" | "line" | "warning" => {}
            _ if header => {}
            _ => return Err(Diag::new(line[0].pos, format!("unknown directive #{name}"))),
        }
        Ok(())
    }

    fn define(&mut self, args: &[Token], hash: &Token, header: bool) -> Result<(), Diag> {
        let name = symbol_name(args, hash, "define")?;
        if !header && is_keyword(name) {
            return Err(Diag::new(
                args[0].pos,
                format!("{name} is a keyword and cannot be #defined"),
            ));
        }
        let rest = &args[1..];
        let function_like = rest.first().is_some_and(|t| {
            t.is_punct('(') && t.pos.line == args[0].pos.line && t.pos.col == args[0].end_col
        });
        let value = if function_like {
            None
        } else if rest.is_empty() {
            Some(Ok(Value::Num(0)))
        } else if let Some(s) = self.string_value(rest) {
            Some(Ok(Value::Str(s)))
        } else {
            Some(self.number_value(rest, hash.pos))
        };
        let value = match value {
            Some(Ok(v)) => v,
            Some(Err(_)) | None if header => Value::Unsupported,
            Some(Err(d)) => return Err(d),
            None => {
                return Err(Diag::new(
                    args[0].pos,
                    format!("function-like macro {name} is not supported"),
                ));
            }
        };
        if let Some(old) = self.symbols.get(name)
            && old.value != value
        {
            return Err(Diag::new(
                args[0].pos,
                format!(
                    "symbol {name} is already #defined differently at {}:{}",
                    self.file_name(old.at),
                    old.at.line
                ),
            ));
        }
        self.symbols.insert(
            name.to_owned(),
            Symbol {
                value,
                at: args[0].pos,
            },
        );
        let next = self.defined.len();
        self.defined
            .entry(name.to_owned())
            .or_insert((next, rest.is_empty()));
        Ok(())
    }

    /// A `#define`'s value as a string: literals and string symbols joined by
    /// `+` or `\`, or `None` if the tokens are anything else.
    fn string_value(&self, tokens: &[Token]) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let mut want_string = true;
        for t in tokens {
            if want_string {
                match &t.tok {
                    Tok::Str(s) => out.extend_from_slice(s),
                    Tok::Ident(n) => match self.symbols.get(n).map(|s| &s.value) {
                        Some(Value::Str(s)) => out.extend_from_slice(s),
                        _ => return None,
                    },
                    _ => return None,
                }
            } else if !(t.is_punct('+') || t.is_punct('\\')) {
                return None;
            }
            want_string = !want_string;
        }
        (!want_string).then_some(out)
    }

    /// A `#define`'s value as a constant expression over the whole line.
    fn number_value(&self, tokens: &[Token], at: Pos) -> Result<Value, Diag> {
        let tokens: Vec<Token> = tokens
            .iter()
            .filter(|t| !t.is_punct('\\'))
            .cloned()
            .collect();
        let end = tokens.last().map_or(at, |t| Pos {
            col: t.end_col,
            ..t.pos
        });
        let mut cur = SliceCursor {
            tokens: &tokens,
            at: 0,
            end,
        };
        let e = expr::parse(&mut cur, "a #define value")?;
        if let Some(extra) = tokens.get(cur.at) {
            return Err(Diag::new(
                extra.pos,
                format!("unexpected {} in #define value", extra.describe()),
            ));
        }
        Ok(Value::Num(expr::eval(&e, &self.symbols, None)?))
    }

    fn include(&mut self, args: &[Token], hash: &Token, header: bool) -> Result<(), Diag> {
        let name_tok = args.first();
        let name = match name_tok.map(|t| &t.tok) {
            Some(Tok::Str(s)) => charset::decode(s),
            Some(Tok::Punct('<')) => return Ok(()),
            _ => {
                let at = name_tok.map_or(hash.pos, |t| t.pos);
                return Err(Diag::new(at, "expected \"file name\" after #include"));
            }
        };
        let at = name_tok.map_or(hash.pos, |t| t.pos);
        if self.frames.len() >= MAX_DEPTH {
            return Err(Diag::new(
                at,
                format!("too many nested #include files (at most {MAX_DEPTH})"),
            ));
        }
        let from = self
            .frames
            .last()
            .and_then(|f| self.files.get(f.file))
            .map_or_else(PathBuf::new, |f| f.path.clone());
        let (path, bytes) = self
            .resolver
            .resolve(&from, &name)
            .map_err(|e| Diag::new(at, format!("cannot read include file \"{name}\": {e}")))?;
        let header = header || !is_rcp_name(&path);
        let file = self.files.len();
        self.files.push(FileInfo {
            name: path.display().to_string(),
            path,
        });
        let tokens = lex(&charset::source_text(&bytes), file, header)?;
        self.frames.push(Frame {
            file,
            tokens,
            at: 0,
            header,
            conds: Vec::new(),
        });
        Ok(())
    }
}

/// Whether an included file is PilRC source (extension starting with `r`, as
/// in PilRC) rather than a C header.
fn is_rcp_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.starts_with(['r', 'R']))
}

/// The symbol name a directive names first.
fn symbol_name<'t>(args: &'t [Token], hash: &Token, directive: &str) -> Result<&'t str, Diag> {
    match args.first().map(|t| &t.tok) {
        Some(Tok::Ident(n)) => Ok(n),
        _ => Err(Diag::new(
            args.first().map_or(hash.pos, |t| t.pos),
            format!("expected a symbol name after #{directive}"),
        )),
    }
}

impl Cursor for Source<'_> {
    fn peek(&mut self) -> Result<Option<&Token>, Diag> {
        if self.peeked.is_none() {
            self.peeked = self.pull()?;
        }
        Ok(self.peeked.as_ref())
    }

    fn next(&mut self) -> Result<Option<Token>, Diag> {
        match self.peeked.take() {
            Some(t) => Ok(Some(t)),
            None => self.pull(),
        }
    }

    fn end_pos(&self) -> Pos {
        self.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryIncludes;

    fn tokens(main: &str, includes: &MemoryIncludes) -> Result<Vec<Tok>, String> {
        let mut src =
            Source::new(main, "main.rcp".into(), "main.rcp".into(), includes).map_err(|d| d.msg)?;
        let mut out = Vec::new();
        while let Some(t) = src
            .next()
            .map_err(|d| format!("{}:{}: {}", d.pos.line, d.pos.col, d.msg))?
        {
            out.push(t.tok);
        }
        Ok(out)
    }

    fn idents(names: &[&str]) -> Vec<Tok> {
        names.iter().map(|n| Tok::Ident((*n).into())).collect()
    }

    #[test]
    fn conditionals() {
        let none = MemoryIncludes::new();
        let src = "#define A\n#ifdef A\nyes\n#ifndef A\nno\n#else\nnested\n#endif\n#else\nno\n#endif\nend";
        assert_eq!(tokens(src, &none), Ok(idents(&["yes", "nested", "end"])));
        assert_eq!(
            tokens("#ifdef B\n#if X\n#endif\n#else\nb\n#endif", &none),
            Ok(idents(&["b"]))
        );
        assert_eq!(
            tokens("#ifdef B\nx", &none),
            Err("1:1: #ifdef/#ifndef without #endif".into())
        );
        assert_eq!(
            tokens("#endif", &none),
            Err("1:1: #endif without #ifdef".into())
        );
        assert_eq!(
            tokens("#if 1\n#endif", &none),
            Err("1:1: #if is not supported; use #ifdef or #ifndef".into())
        );
        assert_eq!(
            tokens("#bogus", &none),
            Err("1:2: unknown directive #bogus".into())
        );
        assert_eq!(
            tokens("#error stop here", &none),
            Err("1:1: #error stop here".into())
        );
    }

    #[test]
    fn header_defines() {
        let inc = MemoryIncludes::new().with(
            "ids.h",
            "#ifndef IDS_H\n#define IDS_H\n#include <PalmOS.h>\ntypedef int x; /* code */\n\
             #define MainForm 1000\n#define MainOK (MainForm + 1)\n#define Creator 'MDBG'\n\
             #define Name \"memdbg\" \\\n  \" app\"\n#define MAX(a,b) ((a)>(b))\n#define Cast ((UInt16)3)\n#endif\n",
        );
        let mut src = Source::new(
            "#include \"ids.h\"\nx",
            "m.rcp".into(),
            "m.rcp".into(),
            &inc,
        )
        .unwrap();
        assert_eq!(
            src.next().unwrap().map(|t| t.tok),
            Some(Tok::Ident("x".into()))
        );
        let value = |n: &str| src.symbols.get(n).map(|s| s.value.clone());
        assert_eq!(value("MainForm"), Some(Value::Num(1000)));
        assert_eq!(value("MainOK"), Some(Value::Num(1001)));
        assert_eq!(value("Creator"), Some(Value::Num(0x4D44_4247)));
        assert_eq!(value("Name"), Some(Value::Str(b"memdbg app".to_vec())));
        assert_eq!(value("MAX"), Some(Value::Unsupported));
        assert_eq!(value("Cast"), Some(Value::Unsupported));
        assert_eq!(value("IDS_H"), Some(Value::Num(0)));
        assert_eq!(src.files[1].name, "ids.h");
    }

    #[test]
    fn rcp_defines_are_strict() {
        let none = MemoryIncludes::new();
        assert_eq!(
            tokens("#define A 1\n#define A 2", &none),
            Err("2:9: symbol A is already #defined differently at main.rcp:1".into())
        );
        assert_eq!(
            tokens("#define A 1\n#define A 1\nok", &none),
            Ok(idents(&["ok"]))
        );
        assert_eq!(
            tokens("#define F(x) x", &none),
            Err("1:9: function-like macro F is not supported".into())
        );
        assert_eq!(
            tokens("#define A 1 2", &none),
            Err("1:13: unexpected 2 in #define value".into())
        );
        assert_eq!(
            tokens("#define FORM 1", &none),
            Err("1:9: FORM is a keyword and cannot be #defined".into())
        );
    }

    #[test]
    fn includes() {
        let inc = MemoryIncludes::new()
            .with("more.rcp", "inner #include \"self.rcp\"")
            .with("self.rcp", "#include \"self.rcp\"");
        assert_eq!(
            tokens("a #include \"more.rcp\"\nb", &inc),
            Err("1:10: too many nested #include files (at most 32)".into())
        );
        assert_eq!(
            tokens("#include \"missing.h\"", &inc),
            Err("1:10: cannot read include file \"missing.h\": no such include file".into())
        );
        assert_eq!(
            tokens("#include missing", &inc),
            Err("1:10: expected \"file name\" after #include".into())
        );
    }
}
