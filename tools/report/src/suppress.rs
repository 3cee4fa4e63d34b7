//! Suppressions: known, accepted leaks hidden from the report and counted in
//! its summary (as LeakSanitizer does).
//!
//! # File format
//! UTF-8 text, one pattern per line. Blank lines and lines whose first
//! non-blank character is `#` are ignored; spaces around a pattern are
//! trimmed; a `leak:` prefix (LeakSanitizer's) is accepted and ignored. A
//! pattern has one of two forms:
//! - `FILE:LINE`, e.g. `starter.rs:42` or `src/starter.rs:42`: matches a leak
//!   allocated at that file and line (the wrapper's `file!()`/`line!()` as
//!   recorded), or with that file and line in any frame of its symbolized call
//!   stack. Files match on whole path components from the end, either way
//!   round (memdbg keeps only the last 31 bytes of a path). LINE is a number
//!   from 1; there is no column (`lib.rs:26:5` is an error) and no `*`.
//! - `FUNCTION`, e.g. `starter_app::make_cache` or `make_cache`: matches a leak
//!   with that function in **any** frame of its symbolized call stack (inlined
//!   functions included), as LeakSanitizer's `leak:` does. Without `*` the
//!   name must equal the function's demangled name or be a `::`-separated tail
//!   of it; with `*` (any run of characters) the whole name must match.
//!   Because any frame matches, a function that every stack passes through
//!   (`pilot_main`, an event loop) suppresses every leak below it: name the
//!   allocating function, or use `FILE:LINE`. The report lists how many leaks
//!   and bytes each pattern hid ("Suppressions used:", JSON `suppressions`),
//!   counts them in its summary line, and warns when one function pattern
//!   without `*` hid every leak that has a symbolized stack, from several
//!   sites (a pattern with `*` is taken to mean several functions).
//!
//! Function patterns need symbols (`--elf`); without them only `FILE:LINE`
//! patterns can match (against the recorded allocation site).
//!
//! Any other line is an error (exit status 2) that names the file and line,
//! says what is wrong and lists the accepted forms, e.g.
//! ``known.supp:3: `lib.rs:26:5` has a column: ...``. Errors are: a pattern
//! with spaces, a `FILE:LINE` whose LINE is not a number from 1, a path or
//! file name without `:LINE` (`src/lib.rs`), a stray single `:`
//! (`lib.rs:abc`, `called_from_lib:x`), `*` in a `FILE:LINE`, or a name that
//! begins or ends with `::`.
//!
//! ```text
//! # Known leaks, accepted until the forms rewrite.
//! src/starter.rs:42
//! leak:starter_app::make_cache
//! starter_app::forms::*
//! ```

use std::path::Path;

use crate::InputError;

/// One suppression pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `FILE:LINE`.
    FileLine {
        /// The file (a path tail).
        file: String,
        /// The line.
        line: u32,
    },
    /// A function name, possibly with `*` wildcards.
    Function(String),
}

impl Pattern {
    /// The pattern as written in a suppression file.
    pub fn text(&self) -> String {
        match self {
            Pattern::FileLine { file, line } => format!("{file}:{line}"),
            Pattern::Function(f) => f.clone(),
        }
    }

    /// Whether a site with this file and line matches (only `FILE:LINE`
    /// patterns can).
    pub fn matches_file_line(&self, path: &str, at: u32) -> bool {
        match self {
            Pattern::FileLine { file, line } => *line == at && same_file(file, path),
            Pattern::Function(_) => false,
        }
    }

    /// Whether a frame's function matches (only function patterns can).
    pub fn matches_function(&self, name: &str) -> bool {
        match self {
            Pattern::FileLine { .. } => false,
            Pattern::Function(p) if p.contains('*') => glob(p.as_bytes(), name.as_bytes()),
            Pattern::Function(p) => {
                name == p
                    || name
                        .strip_suffix(p.as_str())
                        .is_some_and(|head| head.ends_with("::"))
            }
        }
    }
}

/// A parsed suppression file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suppressions {
    /// The patterns, in file order.
    pub patterns: Vec<Pattern>,
}

impl Suppressions {
    /// Reads a suppression file.
    ///
    /// # Errors
    /// The file cannot be read (not a regular file, larger than
    /// [`MAX_SUPPRESSION_FILE`](crate::MAX_SUPPRESSION_FILE), not UTF-8) or a
    /// line is not a pattern.
    pub fn load(path: &Path) -> Result<Suppressions, InputError> {
        let name = path.display().to_string();
        let bytes =
            crate::input::read_file(path, crate::MAX_SUPPRESSION_FILE, "a suppression file")?;
        let text = String::from_utf8(bytes).map_err(|e| {
            InputError::at(
                &name,
                e.utf8_error().valid_up_to() as u64,
                "cannot read: not UTF-8 text",
            )
        })?;
        Suppressions::parse(&text, &name)
    }

    /// Parses suppressions (format: [module docs](self)); `name` names the
    /// file in errors.
    ///
    /// # Errors
    /// The first line that is not a pattern (see the module docs); the error
    /// gives the line number ([`InputError::line`]), what is wrong and the
    /// accepted forms.
    pub fn parse(text: &str, name: &str) -> Result<Suppressions, InputError> {
        let mut patterns = Vec::new();
        // A UTF-8 byte order mark (Windows editors write one) is not part
        // of the first line's pattern.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let body = line.strip_prefix("leak:").unwrap_or(line).trim();
            let pattern = Pattern::parse(body).map_err(|why| {
                InputError::at_line(
                    name,
                    u32::try_from(n + 1).unwrap_or(u32::MAX),
                    format!("{why}; {FORMS}"),
                )
            })?;
            patterns.push(pattern);
        }
        Ok(Suppressions { patterns })
    }
}

/// The accepted forms, appended to every error about a line.
const FORMS: &str = "a line is FILE:LINE (src/starter.rs:42) or a function name (make_cache, \
                     starter_app::make_cache, starter_app::*::leak*), optionally after `leak:`; \
                     blank lines and lines starting with # are ignored";

/// Source file extensions: a pattern ending in one names a file (and lacks
/// its `:LINE`), not a function.
const SOURCE_EXTENSIONS: [&str; 9] = [".rs", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".s", ".S"];

/// The byte positions of the `:` in `s` that are not part of a `::`.
fn lone_colons(s: &str) -> Vec<usize> {
    let b = s.as_bytes();
    (0..b.len())
        .filter(|&i| b[i] == b':' && (i == 0 || b[i - 1] != b':') && b.get(i + 1) != Some(&b':'))
        .collect()
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

impl Pattern {
    /// Parses one pattern (a line without its `leak:` prefix); the error says
    /// what is wrong with it.
    fn parse(body: &str) -> Result<Pattern, String> {
        if body.is_empty() {
            return Err("empty pattern".into());
        }
        if body.contains(char::is_whitespace) {
            return Err(format!("`{body}` has spaces"));
        }
        if let Some(c) = body.chars().find(|c| c.is_control() || *c == '\u{feff}') {
            return Err(format!(
                "`{}` has the control character {}",
                body.escape_debug(),
                c.escape_unicode()
            ));
        }
        if body.contains(":::") {
            return Err(format!("`{body}` has `:::`"));
        }
        let lone = lone_colons(body);
        let Some(&colon) = lone.last() else {
            // A function name, unless it is a file without its line.
            if body.contains(['/', '\\']) || SOURCE_EXTENSIONS.iter().any(|e| body.ends_with(e)) {
                return Err(format!(
                    "`{body}` is a file without a line: write FILE:LINE, e.g. `{body}:42`"
                ));
            }
            if body.starts_with("::") || body.ends_with("::") {
                return Err(format!(
                    "`{body}` begins or ends with `::`, so it names no function"
                ));
            }
            return Ok(Pattern::Function(body.to_string()));
        };
        let (file, line) = (&body[..colon], &body[colon + 1..]);
        if !is_number(line) {
            if lone.len() == 1
                && !file.is_empty()
                && file.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_')
            {
                return Err(if file == "leak" {
                    format!("`leak:{line}` repeats `leak:`")
                } else {
                    format!(
                        "`{file}:` is not a suppression type (LeakSanitizer's \
                         `{file}:` is not supported; only `leak:` is)"
                    )
                });
            }
            return Err(if line.is_empty() {
                format!("`{body}` has no line number after the `:`")
            } else {
                format!("`{line}` in `{body}` is not a line number (FILE:LINE, LINE from 1)")
            });
        }
        if file.is_empty() {
            return Err(format!("`{body}` has no file before the `:`"));
        }
        if let Some(&inner) = lone.iter().rev().nth(1) {
            let file_only = &body[..inner];
            return Err(
                if is_number(&body[inner + 1..colon]) && !file_only.is_empty() {
                    format!(
                        "`{body}` has a column: suppressions match FILE:LINE, write `{}`",
                        &body[..colon]
                    )
                } else {
                    format!("`{file}` in `{body}` has a `:`: a FILE:LINE has one")
                },
            );
        }
        if file.contains('*') {
            return Err(format!(
                "`{body}`: `*` works in function names only, not in FILE:LINE"
            ));
        }
        match line.parse::<u32>() {
            Ok(n) if n > 0 => Ok(Pattern::FileLine {
                file: file.to_string(),
                line: n,
            }),
            _ => Err(format!(
                "`{line}` in `{body}` is not a line number (1 or more)"
            )),
        }
    }
}

/// Whether two paths name the same file: equal, or one is the other's tail on a
/// `/` boundary.
fn same_file(a: &str, b: &str) -> bool {
    let tail = |long: &str, short: &str| {
        long.strip_suffix(short)
            .is_some_and(|head| head.is_empty() || head.ends_with('/') || head.ends_with('\\'))
    };
    !a.is_empty() && !b.is_empty() && (tail(a, b) || tail(b, a))
}

/// `*`-glob match of the whole of `text`.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    // Iterative matcher with backtracking to the last star: O(len²) at worst.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Findings: a BOM made the first line's pattern match nothing, and a
    /// NUL byte was a pattern.
    #[test]
    fn byte_order_mark_and_control_characters() {
        let s = Suppressions::parse("\u{feff}leak_box\n", "s.txt").unwrap();
        assert_eq!(s.patterns, vec![Pattern::Function("leak_box".into())]);
        let e = Suppressions::parse("ok\n\0\n", "s.txt").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(
            e.message
                .starts_with("`\\0` has the control character \\u{0}"),
            "{}",
            e.message
        );
        assert!(Suppressions::parse("a\u{feff}b\n", "s.txt").is_err());
    }

    #[test]
    fn parses_both_forms_and_comments() {
        let s = Suppressions::parse(
            "# known\n\nstarter.rs:42\nleak:make_cache\n  a::b::<T>::c  \nsrc/x.rs:7\n",
            "s.txt",
        )
        .unwrap();
        assert_eq!(
            s.patterns,
            vec![
                Pattern::FileLine {
                    file: "starter.rs".into(),
                    line: 42
                },
                Pattern::Function("make_cache".into()),
                Pattern::Function("a::b::<T>::c".into()),
                Pattern::FileLine {
                    file: "src/x.rs".into(),
                    line: 7
                },
            ]
        );
    }

    /// The error for `text`, as printed.
    fn error(text: &str) -> String {
        Suppressions::parse(text, "s.supp").unwrap_err().to_string()
    }

    #[test]
    fn errors_name_file_line_and_the_accepted_forms() {
        let e = Suppressions::parse("ok.rs:1\n# c\nbad pattern\n", "s.txt").unwrap_err();
        assert_eq!((e.line, e.offset), (Some(3), None));
        assert_eq!(
            e.to_string(),
            format!("s.txt:3: `bad pattern` has spaces; {FORMS}")
        );
        let cases = [
            ("x.rs:0", "`0` in `x.rs:0` is not a line number (1 or more)"),
            (
                "x.rs:99999999999",
                "`99999999999` in `x.rs:99999999999` is not a line number (1 or more)",
            ),
            ("\n\nleak:", "empty pattern"),
            (
                "myapp/src/lib.rs:abc",
                "`abc` in `myapp/src/lib.rs:abc` is not a line number (FILE:LINE, LINE from 1)",
            ),
            (
                "lib.rs:26:5",
                "`lib.rs:26:5` has a column: suppressions match FILE:LINE, write `lib.rs:26`",
            ),
            ("lib.rs:", "`lib.rs:` has no line number after the `:`"),
            (":42", "`:42` has no file before the `:`"),
            (
                "a:b.rs:4",
                "`a:b.rs` in `a:b.rs:4` has a `:`: a FILE:LINE has one",
            ),
            (
                "src/lib.rs",
                "`src/lib.rs` is a file without a line: write FILE:LINE, e.g. `src/lib.rs:42`",
            ),
            (
                "lib.rs",
                "`lib.rs` is a file without a line: write FILE:LINE, e.g. `lib.rs:42`",
            ),
            (
                "called_from_lib:libc.so",
                "`called_from_lib:` is not a suppression type (LeakSanitizer's \
                 `called_from_lib:` is not supported; only `leak:` is)",
            ),
            ("leak:leak:f", "`leak:f` repeats `leak:`"),
            (
                "*.rs:4",
                "`*.rs:4`: `*` works in function names only, not in FILE:LINE",
            ),
            ("a:::b", "`a:::b` has `:::`"),
            (
                "starter_app::",
                "`starter_app::` begins or ends with `::`, so it names no function",
            ),
        ];
        for (text, why) in cases {
            let line = text.matches('\n').count() + 1;
            assert_eq!(
                error(text),
                format!("s.supp:{line}: {why}; {FORMS}"),
                "{text:?}"
            );
        }
        // Windows line ends and indented comments are fine.
        let s = Suppressions::parse("  # c\r\nx.rs:3\r\n\r\n", "s").unwrap();
        assert_eq!(
            s.patterns,
            [Pattern::FileLine {
                file: "x.rs".into(),
                line: 3
            }]
        );
    }

    #[test]
    fn file_line_matching() {
        let p = Pattern::FileLine {
            file: "src/starter.rs".into(),
            line: 42,
        };
        assert!(p.matches_file_line("starter-app/src/starter.rs", 42));
        assert!(p.matches_file_line("starter.rs", 42));
        assert!(!p.matches_file_line("xstarter.rs", 42));
        assert!(!p.matches_file_line("src/starter.rs", 43));
        assert!(!p.matches_function("starter"));
    }

    #[test]
    fn function_matching() {
        let p = Pattern::Function("make_cache".into());
        assert!(p.matches_function("make_cache"));
        assert!(p.matches_function("starter_app::make_cache"));
        assert!(!p.matches_function("starter_app::remake_cache"));
        assert!(!p.matches_file_line("make_cache", 1));
        let g = Pattern::Function("starter_app::*::leak*".into());
        assert!(g.matches_function("starter_app::forms::leak_handle"));
        assert!(!g.matches_function("other::forms::leak_handle"));
        assert!(glob(b"*", b""));
        assert!(glob(b"a*b*c", b"aXbYbc"));
        assert!(!glob(b"a*b", b"aXbY"));
    }
}
