//! Error types: compile errors (with file, line and column), errors of the
//! binary parsers, and errors of the binary encoders.

use std::fmt;

/// A compile error: what went wrong and where, as `file:line:column: message`
/// (`StarterApp.rcp:12:5: expected ID after BUTTON "OK", found AT`).
///
/// Lines and columns count from 1; a column counts characters, a tab being one.
/// An error that concerns a whole file (it cannot be read) has line and column
/// 0 and is shown without them, as `file: message`
/// (`App.rcp: cannot read file: No such file or directory (os error 2)`). An
/// `#include` that cannot be read is an error at the `#include` line of the
/// including file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RcpError {
    /// The file as it was named: the path given to [`compile_file`](crate::compile_file)
    /// or [`compile_str`](crate::compile_str), or the path an `#include` resolved to.
    pub file: String,
    /// Line number, from 1; 0 for an error about the whole file.
    pub line: u32,
    /// Column number, from 1, in characters; 0 for an error about the whole
    /// file.
    pub column: u32,
    /// What is wrong, in one line.
    pub message: String,
}

impl fmt::Display for RcpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(f, "{}: {}", self.file, self.message);
        }
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for RcpError {}

/// An error of a binary resource parser ([`Form::parse`](crate::form::Form::parse),
/// [`MenuBar::parse`](crate::menu::MenuBar::parse), ...): which resource type,
/// the byte offset in the resource where the problem was found, and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError {
    /// The resource type being parsed, e.g. `"tFRM"`.
    pub resource: &'static str,
    /// Offset in bytes from the start of the resource.
    pub offset: usize,
    /// What is wrong.
    pub message: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} resource, offset {:#x}: {}",
            self.resource, self.offset, self.message
        )
    }
}

impl std::error::Error for ParseError {}

/// An error of a binary encoder (`to_bytes`): the model holds something the
/// resource layout cannot represent (a NUL inside a string, more objects than
/// a 16-bit count, an object kind this crate cannot lay out, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError {
    /// What cannot be encoded.
    pub message: String,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EncodeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_formats() {
        let e = RcpError {
            file: "StarterApp.rcp".into(),
            line: 12,
            column: 5,
            message: "expected ID".into(),
        };
        assert_eq!(e.to_string(), "StarterApp.rcp:12:5: expected ID");
        let whole = RcpError {
            file: "App.rcp".into(),
            line: 0,
            column: 0,
            message: "cannot read file: gone".into(),
        };
        assert_eq!(whole.to_string(), "App.rcp: cannot read file: gone");
        let p = ParseError {
            resource: "tFRM",
            offset: 0x44,
            message: "truncated",
        };
        assert_eq!(p.to_string(), "tFRM resource, offset 0x44: truncated");
    }
}
