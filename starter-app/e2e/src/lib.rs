//! End-to-end tests of the memdbg starter app (`starter-app/`), which is 68k-only
//! and so has no host tests of its own.
//!
//! `tests/starter.rs` builds the app with palm-build, plays `starter-app/events.txt`
//! in palm-run (every scenario button once, About, Exit), exports the `MemDbgDB`
//! ledger and checks it exactly: the leak set (pointer, handle, Box), the overrun
//! and double free with their sites, nothing else; the header's counters; a clean
//! run with the dispatch table restored; the PRC's resources as Palm::PDB lists
//! them; and the script against the form.
//!
//! This library is the app's resource-ID header reader ([`rsc_header`], the very
//! file `starter-app/build/main.rs` uses), shared with the tests, plus its unit
//! tests; and [`expected`], what the demo's report must show, checked by the
//! `demo-check` binary that `ci/demo` runs.
#![deny(missing_docs)]

pub mod expected;
#[path = "../../build/rsc_header.rs"]
pub mod rsc_header;

#[cfg(test)]
mod tests {
    use super::rsc_header::{Define, parse};

    fn define(name: &str, value: u16, line: usize, comment: &str) -> Define {
        Define {
            name: name.into(),
            value,
            line,
            comment: comment.into(),
        }
    }

    #[test]
    fn reads_defines_guards_and_comments() {
        let text = "/*\n * IDs\n */\n#ifndef IDS_H\n#define IDS_H\n\n\
                    #define MainForm   1000   /* the form */\n\
                    #define MainOK 0x3E9 // OK button\n\
                    /* a */ #define Other 7 /* b */ /* c\n d */\n#endif /* IDS_H */\n";
        assert_eq!(
            parse("ids.h", text).unwrap(),
            vec![
                define("MainForm", 1000, 7, "the form"),
                define("MainOK", 1001, 8, "OK button"),
                define("Other", 7, 9, ""),
            ]
        );
    }

    #[test]
    fn the_starter_header_parses() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rsrc/StarterAppRsc.h");
        let defines = parse("StarterAppRsc.h", &std::fs::read_to_string(path).unwrap()).unwrap();
        let main_form = defines.iter().find(|d| d.name == "MainForm").unwrap();
        assert_eq!(main_form.value, 1000);
        let leak = defines
            .iter()
            .find(|d| d.name == "MainLeakPtrButton")
            .unwrap();
        assert_eq!(
            (leak.value, leak.comment.as_str()),
            (1001, "MemPtrNew, never freed: reported")
        );
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let cases = [
            (
                "#define A 1\n#define B (A + 1)\n",
                "h:2: cannot read the value of B: `(A + 1)` (expected a decimal or 0x hex \
                 number from 0 to 65535)",
            ),
            (
                "#define A 70000\n",
                "h:1: cannot read the value of A: `70000` (expected a decimal or 0x hex \
                 number from 0 to 65535)",
            ),
            (
                "\n#define A \"x\"\n",
                "h:2: cannot read the value of A: `\"x\"` (expected a decimal or 0x hex number from 0 to 65535)",
            ),
            (
                "#define A 1\n#define A 2\n",
                "h:2: A is defined again (first on line 1)",
            ),
            (
                "typedef int x;\n",
                "h:1: expected a #define, found `typedef int x;` (this header holds resource \
                 IDs only)",
            ),
            ("#if 1\n", "h:1: unsupported directive `#if 1`"),
            (
                "#include \"x.h\"\n",
                "h:1: unsupported directive `#include \"x.h\"`",
            ),
            ("#define\n", "h:1: #define without a name"),
            ("#define 1A 2\n", "h:1: `1A` is not a C identifier"),
            (
                "#define type 2\n",
                "h:1: `type` is a Rust keyword; rename the ID",
            ),
            (
                "#define A 0x\n",
                "h:1: cannot read the value of A: `0x` (expected a decimal or 0x hex number from 0 to 65535)",
            ),
            ("#define A 1\n/* open\n\n", "h:2: unterminated /* comment"),
        ];
        for (text, want) in cases {
            assert_eq!(parse("h", text).unwrap_err(), want, "{text:?}");
        }
    }
}
