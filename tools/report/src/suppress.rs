//! Suppressions: known, accepted leaks hidden from the report and counted in
//! its summary (as LeakSanitizer does).
//!
//! # File format
//! One pattern per line; blank lines and lines starting with `#` are ignored;
//! a `leak:` prefix (LeakSanitizer's) is accepted and ignored.
//! - `FILE:LINE`, e.g. `starter.rs:42` or `src/starter.rs:42`: matches a leak
//!   allocated at that file and line (the wrapper's `file!()`/`line!()` as
//!   recorded), or with that file and line in any frame of its symbolized call
//!   stack. Files match on whole path components from the end, either way
//!   round (memdbg keeps only the last 31 bytes of a path).
//! - `FUNCTION`, e.g. `starter_app::make_cache` or `make_cache`: matches a leak
//!   with that function in any frame of its symbolized call stack (inlined
//!   functions included). Without `*` the name must equal the function's
//!   demangled name or be a `::`-separated tail of it; with `*` (any run of
//!   characters) the whole name must match.

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
    /// A line with spaces inside the pattern, an empty pattern after `leak:`,
    /// or a `FILE:LINE` whose line is 0 or too large; the error gives the
    /// line's byte offset and number.
    pub fn parse(text: &str, name: &str) -> Result<Suppressions, InputError> {
        let mut patterns = Vec::new();
        let mut offset = 0u64;
        for (n, raw) in text.split_inclusive('\n').enumerate() {
            let at = offset;
            offset += raw.len() as u64;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |why: &str| InputError::at(name, at, format!("line {}: {why}", n + 1));
            let body = line.strip_prefix("leak:").unwrap_or(line).trim();
            if body.is_empty() {
                return Err(bad("empty pattern"));
            }
            if body.contains(char::is_whitespace) {
                return Err(bad(&format!(
                    "`{body}` has spaces: a pattern is FILE:LINE or a function name"
                )));
            }
            let file_line = body.rsplit_once(':').filter(|(file, line)| {
                !file.is_empty()
                    && !file.ends_with(':')
                    && !line.is_empty()
                    && line.bytes().all(|b| b.is_ascii_digit())
            });
            patterns.push(match file_line {
                Some((file, l)) => match l.parse::<u32>() {
                    Ok(line) if line > 0 => Pattern::FileLine {
                        file: file.to_string(),
                        line,
                    },
                    _ => return Err(bad(&format!("`{l}` is not a line number (1 or more)"))),
                },
                None => Pattern::Function(body.to_string()),
            });
        }
        Ok(Suppressions { patterns })
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

    #[test]
    fn errors_name_line_and_offset() {
        let e = Suppressions::parse("ok.rs:1\nbad pattern\n", "s.txt").unwrap_err();
        assert_eq!(e.offset, Some(8));
        assert_eq!(
            e.to_string(),
            "s.txt: offset 0x8: line 2: `bad pattern` has spaces: a pattern is FILE:LINE or a function name"
        );
        let e = Suppressions::parse("x.rs:0\n", "s.txt").unwrap_err();
        assert_eq!(e.message, "line 1: `0` is not a line number (1 or more)");
        let e = Suppressions::parse("x.rs:99999999999\n", "s.txt").unwrap_err();
        assert_eq!(e.offset, Some(0));
        let e = Suppressions::parse("\n\nleak:\n", "s.txt").unwrap_err();
        assert_eq!(
            (e.offset, &e.message[..]),
            (Some(2), "line 3: empty pattern")
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
