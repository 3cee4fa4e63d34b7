//! Reads the `#define NAME value` lines of a PilRC resource-ID header
//! (`rsrc/StarterAppRsc.h`) so that the Rust code uses the very IDs the
//! resource compiler put into the PRC. Used by the build script (which
//! generates `ids.rs`) and by the end-to-end tests (`starter-app/e2e`).
//!
//! Accepted: `#define NAME number` (decimal or `0x` hex, 0..=65535),
//! `#define NAME` without a value (an include guard, skipped), `#ifndef` /
//! `#ifdef` / `#endif` around them, `/* */` and `//` comments, blank lines.
//! Anything else — an expression, a string, C declarations, other
//! directives — is an error naming the file and line: the header is the one
//! source of truth for IDs, so it stays simple enough to read here.

use std::collections::HashMap;

/// One `#define` with a numeric value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Define {
    /// The symbol, as written (also a valid Rust identifier).
    pub name: String,
    /// Its value.
    pub value: u16,
    /// 1-based line of the `#define`.
    pub line: usize,
    /// The comment on the same line after the value, without `/* */` or `//`
    /// (empty if none).
    pub comment: String,
}

/// Rust keywords, which cannot be constant names.
const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Parses `text` (the contents of the file called `file`, used in errors).
///
/// # Errors
/// `FILE:LINE: what is wrong`, for the first line that is not accepted (see
/// the module docs), a duplicate name, or an unterminated comment.
pub fn parse(file: &str, text: &str) -> Result<Vec<Define>, String> {
    let mut defines: Vec<Define> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut in_comment = false;
    let mut comment_start = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let (code, comment, opened) = strip_comments(raw, &mut in_comment);
        if opened {
            comment_start = line;
        }
        let code = code.trim();
        if code.is_empty() {
            continue;
        }
        let err = |what: String| format!("{file}:{line}: {what}");
        let Some(directive) = code.strip_prefix('#') else {
            return Err(err(format!(
                "expected a #define, found `{code}` (this header holds resource IDs only)"
            )));
        };
        let mut words = directive.split_whitespace();
        match words.next() {
            Some("define") => {}
            Some("ifndef" | "ifdef") if words.clone().count() == 1 => continue,
            Some("endif") if words.next().is_none() => continue,
            _ => return Err(err(format!("unsupported directive `{code}`"))),
        }
        let Some(name) = words.next() else {
            return Err(err("#define without a name".into()));
        };
        if !is_identifier(name) {
            return Err(err(format!("`{name}` is not a C identifier")));
        }
        let rest: Vec<&str> = words.collect();
        if rest.is_empty() {
            // An include guard (`#define STARTER_APP_RSC_H`): no value, no ID.
            continue;
        }
        if RUST_KEYWORDS.contains(&name) {
            return Err(err(format!("`{name}` is a Rust keyword; rename the ID")));
        }
        let text = rest.join(" ");
        let value = number(&text).ok_or_else(|| {
            err(format!(
                "cannot read the value of {name}: `{text}` (expected a decimal or 0x hex \
                 number from 0 to 65535)"
            ))
        })?;
        if let Some(first) = seen.insert(name.to_string(), line) {
            return Err(err(format!(
                "{name} is defined again (first on line {first})"
            )));
        }
        defines.push(Define {
            name: name.to_string(),
            value,
            line,
            comment,
        });
    }
    if in_comment {
        return Err(format!("{file}:{comment_start}: unterminated /* comment"));
    }
    Ok(defines)
}

/// Removes comments from one line; returns the code, the text of the last
/// comment on it, and whether a `/*` opened on it is still open at its end.
/// `in_comment` carries an open `/*` across lines.
fn strip_comments(line: &str, in_comment: &mut bool) -> (String, String, bool) {
    let mut code = String::new();
    let mut comment = String::new();
    let mut opened = false;
    let mut rest = line;
    loop {
        if *in_comment {
            match rest.find("*/") {
                Some(end) => {
                    comment.push_str(rest[..end].trim());
                    rest = &rest[end + 2..];
                    *in_comment = false;
                }
                None => return (code, String::new(), opened),
            }
        }
        let block = rest.find("/*");
        let line_comment = rest.find("//");
        match (block, line_comment) {
            (Some(b), l) if l.is_none_or(|l| b < l) => {
                code.push_str(&rest[..b]);
                code.push(' ');
                rest = &rest[b + 2..];
                *in_comment = true;
                opened = true;
                comment.clear();
            }
            (_, Some(l)) => {
                code.push_str(&rest[..l]);
                return (code, rest[l + 2..].trim().to_string(), false);
            }
            _ => {
                code.push_str(rest);
                return (code, comment, false);
            }
        }
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn number(s: &str) -> Option<u16> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()) => {
            u16::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) => s.parse().ok(),
        None => None,
    }
}
