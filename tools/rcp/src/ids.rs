//! The numbers a `.rcp` file `#define`s, in itself and in the headers it
//! includes, for the application's code: resource IDs written in one place.
//!
//! [`defines`] reads them as the compiler sees them; [`rust_module`] writes
//! them as Rust constants and [`c_header`] as a C header. palm-build generates
//! the Rust module of an app's `.rcp` files when it builds the app (the
//! app includes it with `include!(env!("PALM_RESOURCE_IDS"))`), and the C
//! header with `palm-build ids --c`.
//!
//! A symbol is included when it is still defined at the end of the file and
//! has a numeric value: a number, a character constant (`'MDst'`) or a
//! constant expression (`(MainForm + 1)`), given evaluated. Left out:
//! symbols defined without a value (include guards), strings, and a C
//! header's definitions this compiler cannot evaluate (function-like macros,
//! casts). Headers included with `<...>` are never read. Symbols come in the
//! order they were first defined (a header's at its `#include`).
//!
//! ```
//! use palm_rcp::{MemoryIncludes, ids};
//! let includes = MemoryIncludes::new().with(
//!     "AppRsc.h",
//!     "#ifndef APP_RSC_H\n#define APP_RSC_H\n#define MainForm 1000\n#endif\n",
//! );
//! let rcp = "#include \"AppRsc.h\"\n#define MainOK (MainForm + 1)\nVERSION \"1.0\"\n";
//! let defines = ids::defines_str(rcp, "App.rcp".as_ref(), &includes)?;
//! let names: Vec<_> = defines.iter().map(|d| (d.name.as_str(), d.value)).collect();
//! assert_eq!(names, [("MainForm", 1000), ("MainOK", 1001)]);
//! let module = ids::rust_module(&defines, "App.rcp")?;
//! assert!(module.contains("pub const MainOK: u16 = 1001;"));
//! # Ok::<(), palm_rcp::RcpError>(())
//! ```

use std::fmt::Write as _;
use std::path::Path;

use crate::expr::{Cursor, Value};
use crate::{FsIncludes, IncludeResolver, RcpError};

/// One `#define` with a numeric value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Define {
    /// The symbol, as written (a C identifier).
    pub name: String,
    /// Its value, evaluated.
    pub value: i64,
    /// The file that defines it, as the compiler names it in errors (the
    /// `.rcp` as given, an included header as its `#include` resolved).
    pub file: String,
    /// The line of the `#define` in `file`, from 1.
    pub line: u32,
}

/// The numeric `#define`s of the `.rcp` file at `path`, with includes found
/// next to the including file (see the module documentation for which).
///
/// # Errors
/// The file cannot be read, or the preprocessor fails (a bad directive, an
/// unreadable `#include`, a symbol defined twice differently, …): the
/// [`RcpError`] names the file, line and column. Errors in the resource
/// statements themselves are [`crate::compile_file`]'s business, not this
/// function's.
pub fn defines(path: &Path) -> Result<Vec<Define>, RcpError> {
    defines_str(
        &crate::read_source_text(path)?,
        path,
        &FsIncludes::default(),
    )
}

/// [`defines`] of `.rcp` source `text` named `path`, with `includes`
/// resolving `#include`s.
///
/// # Errors
/// As [`defines`].
pub fn defines_str(
    text: &str,
    path: &Path,
    includes: &dyn IncludeResolver,
) -> Result<Vec<Define>, RcpError> {
    let mut src = crate::preprocess(text, path, includes)?;
    // Every directive runs as the stream is read: drain it.
    while src.next().map_err(|d| crate::error_at(&src, d))?.is_some() {}
    let mut found: Vec<(usize, Define)> = src
        .symbols
        .iter()
        .filter_map(
            |(name, symbol)| match (&symbol.value, src.defined.get(name)) {
                (Value::Num(value), Some(&(order, false))) => Some((
                    order,
                    Define {
                        name: name.clone(),
                        value: *value,
                        file: src.file_name(symbol.at).to_owned(),
                        line: symbol.at.line,
                    },
                )),
                _ => None,
            },
        )
        .collect();
    found.sort_by_key(|(order, _)| *order);
    Ok(found.into_iter().map(|(_, d)| d).collect())
}

/// The narrowest Rust integer type of the four used for a value: `u16` for
/// resource IDs, `u32` (a character constant such as a creator ID), `i32`
/// for a negative value, else `i64`.
fn rust_type(value: i64) -> &'static str {
    if u16::try_from(value).is_ok() {
        "u16"
    } else if u32::try_from(value).is_ok() {
        "u32"
    } else if i32::try_from(value).is_ok() {
        "i32"
    } else {
        "i64"
    }
}

/// Words that are not Rust identifiers (strict and reserved keywords, edition
/// 2024), so cannot name a constant.
const RUST_KEYWORDS: &[&str] = &[
    "_", "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
    "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
    "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final",
    "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// `defines` as Rust: one documented `pub const NAME: u16 = value;` per
/// symbol (type by value: `u16`, else `u32`, `i32`, `i64`), for
/// `include!` inside a module with `#[allow(non_upper_case_globals)]` (PilRC
/// names are usually `MainForm`). `source` names the `.rcp` in the
/// generated comment.
///
/// # Errors
/// A symbol is a Rust keyword (`type`): the error is at its `#define`.
pub fn rust_module(defines: &[Define], source: &str) -> Result<String, RcpError> {
    let mut out = format!(
        "// Resource IDs of {source}, generated by palm-build (palm_rcp::ids). Do not edit:\n\
         // change the #defines.\n"
    );
    for d in defines {
        if RUST_KEYWORDS.contains(&d.name.as_str()) {
            return Err(RcpError {
                file: d.file.clone(),
                line: d.line,
                column: 1,
                message: format!(
                    "{} is a Rust keyword and cannot name a constant of the generated module; \
                     rename it",
                    d.name
                ),
            });
        }
        let _ = writeln!(
            out,
            "/// `{}` = {} ({}:{}).\npub const {}: {} = {};",
            d.name,
            d.value,
            d.file,
            d.line,
            d.name,
            rust_type(d.value),
            d.value
        );
    }
    Ok(out)
}

/// `defines` as a C header with the include guard `guard`: one `#define
/// NAME value` per symbol, with its evaluated value (in hex with a `UL`
/// suffix above 0x7FFF, so a creator ID stays unsigned where `int` is 16
/// bits). `source` names the `.rcp` in the generated comment.
pub fn c_header(defines: &[Define], source: &str, guard: &str) -> String {
    let mut out = format!(
        "/* Resource IDs of {source}, generated by palm-build (palm_rcp::ids). Do not edit:\n   \
         change the #defines. */\n#ifndef {guard}\n#define {guard}\n\n"
    );
    for d in defines {
        let value = match d.value {
            v if (0..=0x7FFF).contains(&v) => v.to_string(),
            v if (0..=i64::from(u32::MAX)).contains(&v) => format!("0x{v:X}UL"),
            v => format!("({v}L)"),
        };
        let _ = writeln!(
            out,
            "#define {} {value} /* {}:{} */",
            d.name, d.file, d.line
        );
    }
    let _ = write!(out, "\n#endif /* {guard} */\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryIncludes;

    fn names(defines: &[Define]) -> Vec<(&str, i64, &str, u32)> {
        defines
            .iter()
            .map(|d| (d.name.as_str(), d.value, d.file.as_str(), d.line))
            .collect()
    }

    #[test]
    fn numbers_in_definition_order_without_guards_strings_or_macros() {
        let inc = MemoryIncludes::new().with(
            "ids.h",
            "#ifndef IDS_H\n#define IDS_H\n#include <PalmOS.h>\ntypedef int x;\n\
             #define MainForm 1000\n#define MainOK (MainForm + 1)\n#define Creator 'MDbg'\n\
             #define Name \"memdbg\"\n#define MAX(a,b) ((a)>(b))\n#define Gone 3\n#undef Gone\n#endif\n",
        );
        let rcp = "#define Top 7\n#include \"ids.h\"\n#define Negative (0 - 2)\n#define Flag\n\
                   FORM ID MainForm AT (0 0 160 160) BEGIN END\n";
        let d = defines_str(rcp, "app.rcp".as_ref(), &inc).unwrap();
        assert_eq!(
            names(&d),
            [
                ("Top", 7, "app.rcp", 1),
                ("MainForm", 1000, "ids.h", 5),
                ("MainOK", 1001, "ids.h", 6),
                ("Creator", 0x4D44_6267, "ids.h", 7),
                ("Negative", -2, "app.rcp", 3),
            ]
        );
        let rust = rust_module(&d, "app.rcp").unwrap();
        assert!(
            rust.contains("/// `MainOK` = 1001 (ids.h:6).\npub const MainOK: u16 = 1001;\n"),
            "{rust}"
        );
        assert!(
            rust.contains("pub const Creator: u32 = 1296327271;"),
            "{rust}"
        );
        assert!(rust.contains("pub const Negative: i32 = -2;"), "{rust}");
        let c = c_header(&d, "app.rcp", "APP_IDS_H");
        assert!(c.contains("#ifndef APP_IDS_H\n#define APP_IDS_H\n"), "{c}");
        assert!(c.contains("#define MainOK 1001 /* ids.h:6 */\n"), "{c}");
        assert!(
            c.contains("#define Creator 0x4D446267UL /* ids.h:7 */\n"),
            "{c}"
        );
        assert!(
            c.contains("#define Negative (-2L) /* app.rcp:3 */\n"),
            "{c}"
        );
        assert!(c.ends_with("#endif /* APP_IDS_H */\n"), "{c}");
    }

    #[test]
    fn a_bare_define_that_gets_a_value_is_included_and_a_redefinition_keeps_it() {
        let none = MemoryIncludes::new();
        let d = defines_str(
            "#define A\n#undef A\n#define A 5\n",
            "a.rcp".as_ref(),
            &none,
        )
        .unwrap();
        assert_eq!(names(&d), [("A", 5, "a.rcp", 3)]);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let none = MemoryIncludes::new();
        let e = defines_str("#define A 1\n#define A 2\n", "a.rcp".as_ref(), &none).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.rcp:2:9: symbol A is already #defined differently at a.rcp:1"
        );
        let d = defines_str("#define type 1\n", "k.rcp".as_ref(), &none).unwrap();
        assert_eq!(
            rust_module(&d, "k.rcp").unwrap_err().to_string(),
            "k.rcp:1:1: type is a Rust keyword and cannot name a constant of the generated \
             module; rename it"
        );
        let e = defines("/nonexistent/x.rcp".as_ref()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/x.rcp: cannot read file: "),
            "{e}"
        );
    }
}
