//! MacsBug names: palm-build puts each function's name in its code, in the
//! form POSE, CloudpilotEmu and MacsBug read (the format is in
//! [`palm_prc::macsbug`] and PALM_FACTS §1.7), so that a debug ROM's leak
//! dump, POSE's logs and palm-run name functions from the PRC alone.
//!
//! # Where
//! In the repaired assembly, before GNU as ([`add_names`]). POSE finds the
//! name of the function holding an address by scanning forward from it to
//! the first end-of-function instruction (`RTS`, `RTE`, `JMP (A0)`) and
//! reading the name right after it. So a function gets:
//! - a name right after its `.size` directive: in its own section
//!   (`--gc-sections` keeps or drops the name with its function), outside
//!   its ELF symbol size. When the function's last instruction is no
//!   end-of-function instruction (it ends in a call to a `-> !` function, a
//!   loop, a tail jump, `JMP (A1)`), an unreachable `RTS` comes first;
//! - in a function LLVM compiled (its body has `.Lfunc_begin` or
//!   `.cfi_startproc`), a name after every end-of-function instruction that
//!   more of its code follows (an early return, the epilogue before a cold
//!   `abort` path), outside inline-asm blocks: otherwise POSE would stop at
//!   that `RTS` and find no name for the addresses before it. These names are
//!   inside the function's `.size`; GNU as lays out every branch and
//!   PC-relative reference of compiled code after them. Hand-written
//!   functions in the compiled assembly (`global_asm!`, which may encode
//!   branches as raw words) and inline asm get none, so no hand-computed
//!   displacement can change. A crate's own `.s` files (`[package.metadata.palm]
//!   asm`, such as memdbg's `asm/*.s`) are GNU as source with symbolic
//!   branches: their functions get inner names too ([`add_names_to_source`]),
//!   so POSE names `__memdbg_alloc` in a stack crawl as it names Rust code.
//!
//! Only instruction addresses move; the line table still maps every
//! instruction to its line (a name's bytes belong to the row of the
//! instruction before it).
//!
//! # Which name
//! [`name`]: the Rust symbol demangled without its hash
//! (`starter_app::main_form_event`), `::` written as `.` and every other run of
//! characters MacsBug does not allow (`<`, `>`, spaces, `&`, `,`, `{`, …)
//! as one `_` (none next to a `.` or at either end):
//! `<memdbg::global::MemDbgAlloc as core::alloc::global::GlobalAlloc>::alloc`
//! becomes `memdbg.global.MemDbgAlloc_as_core.alloc.global.GlobalAlloc.alloc`.
//! A name over 255 characters keeps its last 255 (the function's own name
//! and its innermost modules).
//!
//! # How the verifier knows
//! Each name (with its `RTS`, if any) is a local data object, `SYM.macsbug`
//! at the end and `SYM.macsbug.K` inside (`.type …,@object` and `.size`;
//! `__macsbug.Lxxx` for a function `.Lxxx`, which has no symbol).
//! [`crate::verify`] takes the bytes of every data symbol in a code section
//! that are exactly such a trailer ([`trailer_at`]) as data, not code.

use anyhow::{Result, bail};
use palm_prc::macsbug::{self, MAX_NAME_LEN, RTS};
use serde_json::Value;

use crate::cargo::Package;

/// The `[package.metadata.palm]` key that turns the names off
/// (`macsbug-names = false`; the default is `true`).
pub const METADATA_KEY: &str = "macsbug-names";

/// Whether `pkg`'s `[package.metadata.palm]` wants MacsBug names
/// ([`METADATA_KEY`], default `true`).
///
/// # Errors
/// The key is present and not a boolean.
pub fn wanted(pkg: &Package) -> Result<bool> {
    match &pkg.palm_metadata[METADATA_KEY] {
        Value::Null => Ok(true),
        Value::Bool(b) => Ok(*b),
        other => bail!(
            "{}: [package.metadata.palm] {METADATA_KEY} must be true or false, not {other}",
            pkg.dir.join("Cargo.toml").display()
        ),
    }
}

/// The MacsBug name palm-build writes for the demangled Rust name
/// `demangled` (see the module doc): only `[A-Za-z0-9_%.]`, 1–255
/// characters, never empty (`_` when nothing of the name is left).
pub fn name(demangled: &str) -> String {
    let mut out = String::with_capacity(demangled.len());
    // Characters MacsBug refuses since the last one kept, written as one `_`
    // when the next kept character is not a `.`.
    let mut skipped = false;
    let mut rest = demangled;
    while let Some(c) = rest.chars().next() {
        let dot = if let Some(after) = rest.strip_prefix("::") {
            rest = after;
            true
        } else {
            rest = &rest[c.len_utf8()..];
            if c != '.' && !(c.is_ascii() && macsbug::is_name_char(c as u8)) {
                skipped = true;
                continue;
            }
            c == '.'
        };
        if skipped && !dot && !out.is_empty() && !out.ends_with('.') {
            out.push('_');
        }
        skipped = false;
        out.push(if dot { '.' } else { c });
    }
    let out = &out[out.len().saturating_sub(MAX_NAME_LEN)..];
    let out = out.trim_matches('.');
    if out.is_empty() {
        "_".to_string()
    } else {
        out.to_string()
    }
}

/// The MacsBug name of the (mangled) symbol `symbol`: [`name`] of its
/// demangled form.
pub fn symbol_name(symbol: &str) -> String {
    name(&crate::ircheck::demangle(symbol))
}

/// The bytes palm-build puts after a function: an `RTS` when the function
/// does not end with an end-of-function sequence (`ends_with_eof` false),
/// then the MacsBug symbol of `name` (a [`name`] result, so always valid).
pub fn trailer(name: &str, ends_with_eof: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if !ends_with_eof {
        out.extend(RTS.to_be_bytes());
    }
    out.extend(
        macsbug::encode(name)
            .unwrap_or_else(|_| macsbug::encode("_").expect("`_` is a valid MacsBug name")),
    );
    out
}

/// Whether `code[at..end]` is exactly a trailer (an optional `RTS`, then a
/// MacsBug symbol); its name if so.
pub fn trailer_at(code: &[u8], at: usize, end: usize) -> Option<String> {
    let sym = read_trailer(code.get(..end)?, at)?;
    (sym.end == end).then_some(sym.name)
}

/// The trailer (an optional `RTS`, then a MacsBug symbol) that starts at
/// `code[at]`, if one does: its name and the offset just past it. For code
/// whose marker symbols have no size (a coff-m68k object's, [`crate::coff`]).
pub fn read_trailer(code: &[u8], at: usize) -> Option<macsbug::Symbol> {
    let starts_with_rts = code.get(at..at + 2) == Some(&RTS.to_be_bytes()[..]);
    macsbug::decode(code, if starts_with_rts { at + 2 } else { at })
}

/// What [`add_names`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Added {
    /// Functions that got a name.
    pub functions: usize,
    /// Names written (one at each function's end, plus the ones inside).
    pub names: usize,
    /// `RTS`s added before a name at a function's end.
    pub rts: usize,
}

/// Adds the MacsBug names of every function (a symbol declared `.type
/// SYM,@function`, from its label to its `.size SYM, …`) of the GNU as
/// source `asm` that LLVM wrote, where the module doc says.
pub fn add_names(asm: &str) -> (String, Added) {
    add(asm, None)
}

/// [`add_names`] for a crate's own GNU as file `file` (`[package.metadata.palm]
/// asm`, its text `asm`): every function gets its name after its `.size`, and
/// one after each of its end-of-function instructions that more of its code
/// follows. The file's branches are symbolic, so GNU as lays them out after
/// the names (a branch written as raw words across an `RTS` would break:
/// don't). The result carries line markers (`# LINE "FILE"`), so GNU as's
/// messages name `file`'s own lines.
pub fn add_names_to_source(asm: &str, file: &str) -> (String, Added) {
    add(asm, Some(file))
}

/// [`add_names`] (`hand_written` `None`) and [`add_names_to_source`].
fn add(asm: &str, hand_written: Option<&str>) -> (String, Added) {
    let mut out = String::with_capacity(asm.len() + asm.len() / 16);
    let file = hand_written.map(|f| f.replace('\\', "\\\\").replace('"', "\\\""));
    if let Some(file) = &file {
        out.push_str(&format!("# 1 \"{file}\"\n"));
    }
    let mut functions = std::collections::HashSet::new();
    let mut added = Added::default();
    // The function being read, the 0-based line number of its label and its
    // lines from its label on.
    let mut body: Option<(String, usize, Vec<&str>)> = None;
    for (n, line) in asm.lines().enumerate() {
        let code = line.split('|').next().unwrap_or("").trim();
        if let Some((sym, first, lines)) = &mut body {
            lines.push(line);
            if let Some(rest) = code.strip_prefix(".size")
                && let Some((size_of, _)) = rest.split_once(',')
                && unquoted(size_of) == sym
            {
                let at = file.as_deref().map(|f| (f, *first));
                out.push_str(&named(sym, lines, at, &mut added));
                body = None;
            }
            continue;
        }
        if let Some(rest) = code.strip_prefix(".type")
            && let Some((sym, kind)) = rest.split_once(',')
            && kind.trim() == "@function"
        {
            functions.insert(unquoted(sym).to_string());
        } else if let Some(label) = code.strip_suffix(':')
            && functions.contains(unquoted(label))
        {
            body = Some((unquoted(label).to_string(), n, vec![line]));
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    // A function without its `.size` keeps its lines and gets no name.
    for line in body.map(|(_, _, lines)| lines).unwrap_or_default() {
        out.push_str(line);
        out.push('\n');
    }
    (out, added)
}

/// What a line of a function's body is, for [`named`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Content {
    /// No bytes of code (a label, a directive, a comment).
    None,
    /// An instruction or data that is not an end of function.
    Code,
    /// `rts`, `rte`, `jmp (%a0)` (or one written as a `.short`).
    EndOfFunction,
}

/// The lines of function `sym` (its label to its `.size`) with its names.
/// `hand_written`: the crate's own file (its name as a line marker takes it)
/// and the 0-based line of `lines[0]` in it; its functions get inner names
/// too, each followed by a line marker.
fn named(
    sym: &str,
    lines: &[&str],
    hand_written: Option<(&str, usize)>,
    added: &mut Added,
) -> String {
    let name = symbol_name(sym);
    let mut content = Vec::with_capacity(lines.len());
    let mut compiled = hand_written.is_some();
    let mut in_asm = false;
    // Lines an inner name may follow: end-of-function instructions of the
    // compiler's own code (not inline asm).
    let mut may_follow = Vec::with_capacity(lines.len());
    for line in lines {
        let code = line.split('|').next().unwrap_or("").trim();
        let marker = line.trim().trim_start_matches(['|', '#']);
        match marker {
            "APP" => in_asm = true,
            "NO_APP" => in_asm = false,
            _ => {}
        }
        compiled |= code.starts_with(".Lfunc_begin") || code == ".cfi_startproc";
        let c = classify(without_label(code));
        may_follow.push(c == Content::EndOfFunction && !in_asm);
        content.push(c);
    }
    let last = content.iter().rposition(|&c| c != Content::None);
    // After a name in a hand-written file: the line marker of line `i + 1`
    // of `lines` (GNU as numbers from 1).
    let resume = |i: usize| {
        hand_written.map_or(String::new(), |(file, first)| {
            format!("# {} \"{file}\"\n", first + i + 2)
        })
    };
    let mut out = String::new();
    let mut inner = 0;
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        out.push('\n');
        if compiled && may_follow[i] && last.is_some_and(|l| l > i) {
            inner += 1;
            let object = format!("{}.{inner}", marker(sym));
            out.push_str(&name_object(&object, &name, &trailer(&name, true)));
            out.push_str(&resume(i));
        }
    }
    let ends_with_eof = last.is_some_and(|l| content[l] == Content::EndOfFunction);
    let object = marker(sym);
    out.push_str(&name_object(&object, &name, &trailer(&name, ends_with_eof)));
    out.push_str(&resume(lines.len() - 1));
    added.functions += 1;
    added.names += 1 + inner;
    added.rts += usize::from(!ends_with_eof);
    out
}

/// The data symbol that marks the names of function `sym`: `SYM.macsbug`,
/// or `__macsbug.Lxxx` for an assembler-local `.Lxxx` (GNU as leaves `.L`
/// symbols out of the symbol table, where the verifier looks).
fn marker(sym: &str) -> String {
    if sym.starts_with(".L") {
        format!("__macsbug{sym}")
    } else {
        format!("{sym}.macsbug")
    }
}

/// Whether `symbol` is one of the data symbols [`marker`] names (they are
/// not part of [`crate::Image::symbols`]).
pub fn is_marker(symbol: &str) -> bool {
    symbol.starts_with("__macsbug.L")
        || symbol.ends_with(".macsbug")
        || symbol
            .rsplit_once(".macsbug.")
            .is_some_and(|(_, k)| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}

/// What the label-free, comment-free line `code` puts in the code.
fn classify(code: &str) -> Content {
    let (op, args) = code
        .split_once(char::is_whitespace)
        .map_or((code, ""), |(o, a)| (o, a.trim()));
    match op {
        ".byte" | ".ascii" | ".asciz" | ".string" | ".long" | ".int" | ".4byte" | ".fill"
        | ".space" | ".skip" | ".zero" => Content::Code,
        ".short" | ".word" | ".2byte" => {
            let value = match args.strip_prefix("0x") {
                Some(hex) => u16::from_str_radix(hex, 16).ok(),
                None => args.parse::<u16>().ok(),
            };
            match value {
                Some(macsbug::RTS | macsbug::RTE | macsbug::JMP_A0) => Content::EndOfFunction,
                _ => Content::Code,
            }
        }
        _ if !is_instruction(code) => Content::None,
        _ if is_end_of_function(code) => Content::EndOfFunction,
        _ => Content::Code,
    }
}

/// `sym` without surrounding whitespace and quotes.
fn unquoted(sym: &str) -> &str {
    sym.trim().trim_matches('"')
}

/// The assembly of a MacsBug name: a comment, then `bytes` as the local
/// data object `object`.
fn name_object(object: &str, name: &str, bytes: &[u8]) -> String {
    let list: Vec<String> = bytes.iter().map(|b| format!("0x{b:02x}")).collect();
    format!(
        "\t| MacsBug name (palm-build): {name}\n\t.type\t\"{object}\",@object\n\"{object}\":\n\
         \t.byte\t{}\n\t.size\t\"{object}\", {}\n",
        list.join(", "),
        bytes.len()
    )
}

/// `code` without a leading `label:` (`1:\tmulu.w …` → `mulu.w …`).
fn without_label(code: &str) -> &str {
    match code.split_once(':') {
        Some((label, rest))
            if !label.is_empty()
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')) =>
        {
            rest.trim()
        }
        _ => code,
    }
}

/// Whether the comment-free assembly line `code` is an instruction (not
/// empty, a directive, a label or a preprocessor-style line).
fn is_instruction(code: &str) -> bool {
    !(code.is_empty() || code.starts_with('.') || code.starts_with('#') || code.ends_with(':'))
}

/// Whether the instruction `code` is one POSE takes for the end of a
/// function: `rts`, `rte` or `jmp (%a0)` (`rtd` is not a 68000 instruction).
fn is_end_of_function(code: &str) -> bool {
    let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    matches!(compact.as_str(), "rts" | "rte" | "jmp(%a0)" | "jmp%a0@")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_key_turns_the_names_off() {
        let pkg = |meta: Value| Package {
            name: "my-app".into(),
            version: "0.1.0".into(),
            lib_name: "my_app".into(),
            dir: "/src/my-app".into(),
            workspace_root: "/src".into(),
            target_dir: "/src/target".into(),
            palm_metadata: meta,
            setup_warnings: Vec::new(),
        };
        assert!(wanted(&pkg(Value::Null)).unwrap());
        assert!(wanted(&pkg(serde_json::json!({ "macsbug-names": true }))).unwrap());
        let off = pkg(serde_json::json!({ "creator": "MyAp", "macsbug-names": false }));
        assert!(!wanted(&off).unwrap());
        // An application's settings accept the key.
        crate::prc::AppMeta::from_package(&off).unwrap();
        let e = wanted(&pkg(serde_json::json!({ "macsbug-names": "no" })))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "/src/my-app/Cargo.toml: [package.metadata.palm] macsbug-names must be true or \
             false, not \"no\""
        );
    }

    #[test]
    fn rust_names_become_macsbug_names() {
        assert_eq!(name("memdbg::fast::alloc"), "memdbg.fast.alloc");
        assert_eq!(
            name("<memdbg::global::MemDbgAlloc as core::alloc::global::GlobalAlloc>::alloc"),
            "memdbg.global.MemDbgAlloc_as_core.alloc.global.GlobalAlloc.alloc"
        );
        assert_eq!(
            name("<alloc::raw_vec::RawVec<*mut core::ffi::c_void>>::grow_one"),
            "alloc.raw_vec.RawVec_mut_core.ffi.c_void.grow_one"
        );
        assert_eq!(name("app::run::{closure#0}"), "app.run.closure_0");
        assert_eq!(name("__palm_entry"), "__palm_entry");
        assert_eq!(name("<&str>"), "str");
        assert_eq!(name("::<>"), "_");
        assert_eq!(name("caf\u{e9}::au_lait"), "caf.au_lait");
        let long = format!("{}::f", "m".repeat(300));
        assert_eq!(name(&long), format!("{}.f", "m".repeat(253)));
        assert_eq!(
            symbol_name("_RNvNtCslTdwSGfqfhq_6memdbg4fast5alloc"),
            "memdbg.fast.alloc"
        );
        for n in [name(&long), name("<a as b>::c"), name("")] {
            assert!(macsbug::encode(&n).is_ok(), "{n}");
        }
    }

    #[test]
    fn adds_names_after_each_end_of_function_and_at_the_end() {
        let asm = "\t.section\t.text.f,\"ax\",@progbits\n\t.type\tf,@function\nf:\n\
                   \tmoveq\t#0, %d0\n\trts\n.Lfunc_end0:\n\t.size\tf, .Lfunc_end0-f\n\
                   \t.section\t.text.g,\"ax\",@progbits\n\t.type\tg,@function\ng:\n\
                   .Lfunc_begin1:\n\t.cfi_startproc\n\t|APP\n\trts\n\t|NO_APP\n\
                   \tbeq\t.LBB1_2\n\tunlk\t%a6\n\trts\n.LBB1_2:\n\t.loc\t1 9 0\n\
                   \tjsr\tabort\n\t#APP\n\t#NO_APP\n.Ltmp1:\n\t.size\tg, .Ltmp1-g\n\t.text\n\
                   \t.type\th,@function\nh:\n\trts\n\t.byte\t97, .L1-.L2\n.Lh_end:\n\t.size\th, .Lh_end-h\n\
                   \t.section\t.rodata.x,\"a\",@progbits\n\t.type\tx,@object\nx:\n\t.byte 1\n\
                   \t.size\tx, 1\n";
        let (out, added) = add_names(asm);
        assert_eq!(
            added,
            Added {
                functions: 3,
                names: 4,
                rts: 2
            }
        );
        // f ends in RTS: its name, 0x81 'f' and the constant-data word, after
        // its size.
        assert!(
            out.contains(
                "\trts\n.Lfunc_end0:\n\t.size\tf, .Lfunc_end0-f\n\
                 \t| MacsBug name (palm-build): f\n\t.type\t\"f.macsbug\",@object\n\
                 \"f.macsbug\":\n\t.byte\t0x81, 0x66, 0x00, 0x00\n\t.size\t\"f.macsbug\", 4\n\
                 \t.section\t.text.g"
            ),
            "{out}"
        );
        // g's RTS has code after it: a name right after the RTS, before the
        // label; g ends in a call, so its last name has an RTS first.
        assert!(
            out.contains(
                "\trts\n\t| MacsBug name (palm-build): g\n\t.type\t\"g.macsbug.1\",@object\n\
                 \"g.macsbug.1\":\n\t.byte\t0x81, 0x67, 0x00, 0x00\n\t.size\t\"g.macsbug.1\", 4\n\
                 .LBB1_2:\n\t.loc\t1 9 0\n\tjsr\tabort\n"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "\t.size\tg, .Ltmp1-g\n\t| MacsBug name (palm-build): g\n\
                 \t.type\t\"g.macsbug\",@object\n\"g.macsbug\":\n\
                 \t.byte\t0x4e, 0x75, 0x81, 0x67, 0x00, 0x00\n\t.size\t\"g.macsbug\", 6\n\t.text\n"
            ),
            "{out}"
        );
        // No name after the RTS in g's inline asm, nor inside h, which is
        // hand-written (no .Lfunc_begin): its raw short branch could overflow.
        assert!(out.contains("\t|APP\n\trts\n\t|NO_APP\n\tbeq"), "{out}");
        assert!(
            out.contains(
                "h:\n\trts\n\t.byte\t97, .L1-.L2\n.Lh_end:\n\t.size\th, .Lh_end-h\n\
                 \t| MacsBug name (palm-build): h\n"
            ),
            "{out}"
        );
        assert!(
            out.contains("\"h.macsbug\":\n\t.byte\t0x4e, 0x75, 0x81, 0x68"),
            "{out}"
        );
        assert!(out.ends_with("\t.size\tx, 1\n"), "{out}");
        for m in ["f.macsbug", "g.macsbug.1", "__macsbug.Lanon.0"] {
            assert!(is_marker(m), "{m}");
        }
        for m in ["f", "macsbug", "f.macsbug.x", "g.macsbug."] {
            assert!(!is_marker(m), "{m}");
        }
        let (local, _) =
            add_names("\t.type\t.Lanon.0,@function\n.Lanon.0:\n\trts\n\t.size\t.Lanon.0, 2\n");
        assert!(
            local.contains("\"__macsbug.Lanon.0\":\n\t.byte\t0x87, 0x4c, 0x61"),
            "{local}"
        );
    }

    #[test]
    fn a_crates_own_assembly_gets_inner_names_and_keeps_its_line_numbers() {
        let asm = "\t.include \"asm-constants.inc\"\n\t.globl\tf\n\t.type\tf, @function\nf:\n\
                   \ttst.l\t%d0\n\tbeq.s\t1f\n\trts\n1:\tmoveq\t#1, %d0\n\tbra.s\tf\n\
                   \t.size\tf, . - f\n\tbogus\n";
        let (out, added) = add_names_to_source(asm, "/src/a \"b\".s");
        assert_eq!(
            added,
            Added {
                functions: 1,
                names: 2,
                rts: 1
            }
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "# 1 \"/src/a \\\"b\\\".s\"");
        // After the name behind the early RTS (line 7), line 8 goes on.
        let inner = lines.iter().position(|l| *l == "\"f.macsbug.1\":").unwrap();
        assert_eq!(lines[inner - 3], "\trts");
        assert_eq!(lines[inner + 3], "# 8 \"/src/a \\\"b\\\".s\"");
        assert_eq!(lines[inner + 4], "1:\tmoveq\t#1, %d0");
        // The function ends in a branch: RTS, then the name; then line 11.
        assert!(
            out.contains("\"f.macsbug\":\n\t.byte\t0x4e, 0x75, 0x81, 0x66, 0x00, 0x00\n"),
            "{out}"
        );
        assert!(
            out.ends_with("# 11 \"/src/a \\\"b\\\".s\"\n\tbogus\n"),
            "{out}"
        );
    }

    #[test]
    fn end_of_function_instructions() {
        for i in ["rts", "rte", "jmp (%a0)", "jmp\t(%a0)", "jmp %a0@"] {
            assert!(is_end_of_function(i), "{i}");
        }
        assert!(is_end_of_function(without_label("2:\trts")));
        assert_eq!(classify(".short\t20085"), Content::EndOfFunction);
        assert_eq!(classify(".short\t0x4ed0"), Content::EndOfFunction);
        assert_eq!(classify(".short\t41103"), Content::Code);
        assert_eq!(classify(".loc\t1 9 0"), Content::None);
        assert_eq!(without_label(".Ltmp3:"), "");
        assert_eq!(
            without_label("move.l\t(4,%sp), %d0"),
            "move.l\t(4,%sp), %d0"
        );
        for i in [
            "jmp (%a1)",
            "bra .LBB0_1",
            "jsr abort",
            "rtd #4",
            "trap #15",
        ] {
            assert!(!is_end_of_function(i), "{i}");
        }
    }

    #[test]
    fn trailers_must_fill_their_object_exactly() {
        let mut code = vec![0x4E, 0x75];
        code.extend(trailer("f", true));
        code.extend(trailer("gg", false));
        assert_eq!(trailer_at(&code, 2, 6), Some("f".into()));
        assert_eq!(trailer_at(&code, 6, code.len()), Some("gg".into()));
        assert_eq!(trailer_at(&code, 6, code.len() - 2), None);
        assert_eq!(trailer_at(&code, 2, code.len()), None);
        // Code is not a trailer: `link.w %a6,#0` starts with 0x4E 0x56.
        assert_eq!(trailer_at(&[0x4E, 0x56, 0x00, 0x00], 0, 4), None);
    }
}
