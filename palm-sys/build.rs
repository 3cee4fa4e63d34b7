//! Generates the trap layer of `m68k-palmos-sys` from `traps.tbl` (the one trap table).
//!
//! Outputs, all in `OUT_DIR` (nothing generated is committed):
//! - `trap_numbers.rs`: `pub const sysTrapXxx: u16 = 0xAxxx;`
//! - `glue.rs`: one `pub unsafe fn Xxx(..)` per trap (TRAP #15 glue, Palm layout)
//! - `chain.rs`: one `pub unsafe fn Xxx(orig, ..)` per trap (JSR to a saved original)
//! - `table_data.rs`: the host-visible `TRAPS` array
//! - `replacement_arms.rs`: the per-trap arms of `trap_replacement!`
//!
//! The calling convention and why each instruction is there: `src/glue.rs` and
//! PALM_FACTS.md §3 and §6.3. LLVM's m68k inline-asm parser is picky (TOOLCHAIN.md):
//! every displacement is written `(d,%an)`, no `tst`, `pea`, `clr`, `addq`, `cmpa`
//! (the one `addq` the glue wants, popping up to 8 bytes of arguments, is written as
//! its opcode word).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// Traps with more fixed arguments than this are called through a packed argument
/// block (a Palm-layout struct copied onto the stack) instead of one register operand
/// per argument: inline asm has only 12 allocatable registers on the 68k (d0–d7, a0–a3).
const DIRECT_MAX_ARGS: usize = 6;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    U8,
    U16,
    U32,
    Ptr,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ret {
    Void,
    U8,
    U16,
    I16,
    U32,
    Ptr,
}

struct Arg {
    name: String,
    kind: Kind,
    signed: bool,
    rust_ty: String,
}

struct Trap {
    word: u16,
    /// Its line in traps.tbl (from 1).
    line: usize,
    header: String,
    proto: String,
    name: String,
    ret: Ret,
    ret_rust: Option<String>,
    args: Vec<Arg>,
    variadic: bool,
}

/// Width and signedness of a non-pointer SDK type; `None` if unknown.
fn scalar(c: &str) -> Option<(Kind, bool)> {
    Some(match c {
        "Boolean" | "UInt8" | "SndSysBeepType" => (Kind::U8, false),
        "Int8" | "Char" => (Kind::U8, true),
        "UInt16" | "Err" | "WChar" | "DmResID" | "FrameType" | "HostControlTrapNumber" => {
            (Kind::U16, false)
        }
        "Int16" | "Coord" => (Kind::U16, true),
        "UInt32" | "LocalID" | "DmResType" => (Kind::U32, false),
        "Int32" => (Kind::U32, true),
        _ => return None,
    })
}

/// SDK typedefs that are pointers (their Rust aliases exist in `crate::types`).
const POINTER_TYPEDEFS: &[&str] = &[
    "MemPtr",
    "MemHandle",
    "DmOpenRef",
    "WinHandle",
    "SysAppInfoPtr",
    "EventPtr",
    "DmSearchStatePtr",
    "ScrollBarPtr",
];

/// Parses a C type (without the parameter name) into (kind, signed, Rust type).
fn parse_type(c: &str, line: usize) -> (Kind, bool, String) {
    let spaced = c.replace('*', " * ");
    let toks: Vec<&str> = spaced.split_whitespace().collect();
    let stars = toks.iter().filter(|t| **t == "*").count();
    let first_star = toks.iter().position(|t| *t == "*").unwrap_or(toks.len());
    let base: Vec<&str> = toks[..first_star]
        .iter()
        .copied()
        .filter(|t| *t != "const")
        .collect();
    let base_const = toks[..first_star].contains(&"const");
    assert!(base.len() == 1, "traps.tbl:{line}: cannot parse type `{c}`");
    let base = base[0];
    if stars == 0 {
        if let Some((k, s)) = scalar(base) {
            return (k, s, base.to_string());
        }
        if POINTER_TYPEDEFS.contains(&base) {
            return (Kind::Ptr, false, base.to_string());
        }
        if base == "_Palm_va_list" {
            // StringMgr.h: `#define _Palm_va_list char *`.
            return (Kind::Ptr, false, "*mut Char".to_string());
        }
        panic!("traps.tbl:{line}: unknown SDK type `{base}`: add it to build.rs with its width");
    }
    if base == "FormEventHandlerType" && stars == 1 {
        // Form.h: `typedef Boolean FormEventHandlerType(EventType *eventP)`, passed by
        // pointer; in Rust that is a function-pointer type.
        return (Kind::Ptr, false, "FormEventHandlerType".to_string());
    }
    let mut ty = if base == "void" {
        "c_void".to_string()
    } else {
        assert!(
            scalar(base).is_some()
                || POINTER_TYPEDEFS.contains(&base)
                || base.ends_with("Type")
                || base == "Char",
            "traps.tbl:{line}: unknown pointee type `{base}`"
        );
        base.to_string()
    };
    for i in 0..stars {
        ty = if i == 0 && base_const {
            format!("*const {ty}")
        } else {
            format!("*mut {ty}")
        };
    }
    (Kind::Ptr, false, ty)
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// Splits `Type name` into (`Type`, `name`).
fn split_decl(decl: &str, line: usize) -> (String, String) {
    let decl = decl.trim();
    let cut = decl
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or_else(|| panic!("traps.tbl:{line}: `{decl}` has no type"));
    let (ty, name) = decl.split_at(cut + 1);
    assert!(is_ident(name), "traps.tbl:{line}: bad name in `{decl}`");
    (ty.trim().to_string(), name.to_string())
}

fn parse_table(text: &str) -> Vec<Trap> {
    let mut traps = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let mut cols = l.split_whitespace();
        let word = cols.next().unwrap();
        let header = cols
            .next()
            .unwrap_or_else(|| panic!("traps.tbl:{line}: missing header column"))
            .to_string();
        let after_word = l[word.len()..].trim_start();
        let proto = after_word[header.len()..].trim().to_string();
        let word = u16::from_str_radix(
            word.strip_prefix("0x")
                .unwrap_or_else(|| panic!("traps.tbl:{line}: trap word must be 0x…")),
            16,
        )
        .unwrap_or_else(|e| panic!("traps.tbl:{line}: {e}"));
        assert!(
            (0xA000..0xA800).contains(&word),
            "traps.tbl:{line}: 0x{word:04X} is not a system trap"
        );
        assert!(header.ends_with(".h"), "traps.tbl:{line}: header column");
        let open = proto
            .find('(')
            .unwrap_or_else(|| panic!("traps.tbl:{line}: no `(`"));
        assert!(
            proto.ends_with(')'),
            "traps.tbl:{line}: prototype must end with `)`"
        );
        let (ret_c, name) = split_decl(&proto[..open], line);
        let inner = &proto[open + 1..proto.len() - 1];
        let mut args = Vec::new();
        let mut variadic = false;
        if inner.trim() != "void" {
            let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
            for (j, p) in parts.iter().enumerate() {
                if *p == "..." {
                    assert!(j + 1 == parts.len(), "traps.tbl:{line}: `...` must be last");
                    variadic = true;
                    continue;
                }
                let (ty, an) = split_decl(p, line);
                let (kind, signed, rust_ty) = parse_type(&ty, line);
                args.push(Arg {
                    name: an,
                    kind,
                    signed,
                    rust_ty,
                });
            }
        }
        let (ret, ret_rust) = if ret_c == "void" {
            (Ret::Void, None)
        } else {
            let (k, s, r) = parse_type(&ret_c, line);
            let ret = match (k, s) {
                (Kind::U8, _) => Ret::U8,
                (Kind::U16, false) => Ret::U16,
                (Kind::U16, true) => Ret::I16,
                (Kind::U32, _) => Ret::U32,
                (Kind::Ptr, _) => Ret::Ptr,
            };
            (ret, Some(r))
        };
        traps.push(Trap {
            word,
            line,
            header,
            proto,
            name,
            ret,
            ret_rust,
            args,
            variadic,
        });
    }
    traps.sort_by_key(|t| t.word);
    let mut names = BTreeSet::new();
    for w in traps.windows(2) {
        assert!(
            w[0].word != w[1].word,
            "traps.tbl: 0x{:04X} twice",
            w[0].word
        );
    }
    for t in &traps {
        assert!(names.insert(t.name.clone()), "traps.tbl: {} twice", t.name);
    }
    traps
}

fn rust_ident(name: &str) -> String {
    match name {
        "type" | "match" | "ref" | "box" | "move" | "fn" | "in" | "loop" | "mod" | "use"
        | "where" | "impl" | "trait" | "struct" | "enum" | "self" | "super" | "crate" => {
            format!("r#{name}")
        }
        _ => name.to_string(),
    }
}

fn stack_bytes(k: Kind) -> u32 {
    match k {
        Kind::U8 | Kind::U16 => 2,
        Kind::U32 | Kind::Ptr => 4,
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::U8 => "U8",
        Kind::U16 => "U16",
        Kind::U32 => "U32",
        Kind::Ptr => "Ptr",
    }
}

fn ret_name(r: Ret) -> &'static str {
    match r {
        Ret::Void => "Void",
        Ret::U8 => "U8",
        Ret::U16 => "U16",
        Ret::I16 => "I16",
        Ret::U32 => "U32",
        Ret::Ptr => "Ptr",
    }
}

/// Callback-argument kind token for `palm_callback!` (adds the sign to U8/U16).
fn cb_kind(a: &Arg) -> &'static str {
    match (a.kind, a.signed) {
        (Kind::U8, false) => "U8",
        (Kind::U8, true) => "I8",
        (Kind::U16, false) => "U16",
        (Kind::U16, true) => "I16",
        (Kind::U32, _) => "U32",
        (Kind::Ptr, _) => "Ptr",
    }
}

fn params(t: &Trap) -> String {
    let mut s = String::new();
    for a in &t.args {
        let _ = write!(s, "{}: {}, ", rust_ident(&a.name), a.rust_ty);
    }
    if t.variadic {
        s.push_str("va: PalmVaList<'_>, ");
    }
    s
}

fn ret_sig(t: &Trap) -> String {
    t.ret_rust
        .as_ref()
        .map(|r| format!(" -> {r}"))
        .unwrap_or_default()
}

fn doc(t: &Trap, out: &mut String, chain: bool) {
    let bytes: u32 = t.args.iter().map(|a| stack_bytes(a.kind)).sum();
    let _ = writeln!(out, "/// `{}`", t.proto);
    let _ = writeln!(out, "///");
    if chain {
        let _ = writeln!(
            out,
            "/// Calls a saved original implementation of trap 0x{:04X} (`sysTrap{}`) with \
             `JSR (orig)`, never through TRAP #15, so a patch can chain to what it replaced.",
            t.word, t.name
        );
    } else {
        let _ = writeln!(
            out,
            "/// Trap 0x{:04X} (`sysTrap{}`), declared in Palm OS SDK 3.5 `Core/{}`.",
            t.word, t.name, t.header
        );
    }
    let _ = writeln!(out, "///");
    let mut layout = String::new();
    let mut off = 0;
    for a in &t.args {
        let _ = write!(layout, "`{}` at +{off} ({}), ", a.name, kind_name(a.kind));
        off += stack_bytes(a.kind);
    }
    if t.variadic {
        let _ = write!(layout, "then the bytes of `va` at +{off}, ");
    }
    let _ = writeln!(
        out,
        "/// Palm stack layout ({bytes} bytes{}): {}result {}.",
        if t.variadic { " + `va`" } else { "" },
        if layout.is_empty() {
            "no arguments, ".to_string()
        } else {
            layout
        },
        match t.ret {
            Ret::Void => "none",
            Ret::U8 => "the low byte of D0",
            Ret::U16 | Ret::I16 => "the low word of D0",
            Ret::U32 => "D0",
            Ret::Ptr => "A0",
        }
    );
    let _ = writeln!(out, "///");
    let _ = writeln!(out, "/// # Safety");
    let _ = writeln!(
        out,
        "/// Runs Palm OS code: only valid on a Palm OS 68k device or emulator, with every \
         pointer argument meeting the SDK's contract for this call (valid, of the right \
         type and size, writable where the callee writes). On other targets it panics."
    );
    if chain {
        let _ = writeln!(
            out,
            "/// `orig` must be the address `SysGetTrapAddress(0x{:04X})` returned before any \
             patch of this trap was installed (or another implementation with this prototype).",
            t.word
        );
    }
}

/// The body of a trap call (`chain` = JSR to `orig` instead of TRAP #15).
fn asm_body(t: &Trap, chain: bool) -> String {
    let mut b = String::new();
    let call: Vec<String> = if chain {
        vec!["\"jsr ({o})\",".to_string()]
    } else {
        vec![
            "\"trap #15\",".to_string(),
            format!("\".short 0x{:04X}\",", t.word),
        ]
    };
    let fixed: u32 = t.args.iter().map(|a| stack_bytes(a.kind)).sum();
    let ret_var = match t.ret {
        Ret::Void => None,
        Ret::Ptr => Some("a0"),
        _ => Some("d0"),
    };
    let mut ops = String::new();
    let mut tmpl = String::new();
    let use_block = !t.variadic && t.args.len() > DIRECT_MAX_ARGS;
    // Clobbers. Direct calls use late clobbers so inputs may share d0–d2/a0–a1 (they
    // are all pushed before the call); the variadic form needs its length register to
    // survive the call, so its clobbers are early.
    let late = if t.variadic { "out" } else { "lateout" };
    let clob = |reg: &str| -> String {
        if Some(reg) == ret_var {
            format!("{late}(\"{reg}\") ret, ")
        } else {
            format!("{late}(\"{reg}\") _, ")
        }
    };
    if use_block {
        let _ = writeln!(b, "    #[repr(C)]\n    struct Args {{");
        for (i, a) in t.args.iter().enumerate() {
            let ty = match a.kind {
                Kind::U8 | Kind::U16 => "u16",
                Kind::U32 | Kind::Ptr => "u32",
            };
            let _ = writeln!(b, "        x{i}: {ty},");
        }
        let _ = writeln!(b, "    }}");
        let _ = writeln!(
            b,
            "    const _: () = assert!(core::mem::size_of::<Args>() == {fixed});"
        );
        let _ = writeln!(b, "    let args = Args {{");
        for (i, a) in t.args.iter().enumerate() {
            let n = rust_ident(&a.name);
            let v = match a.kind {
                Kind::U8 => format!("((({n}) as u8 as u16) << 8)"),
                Kind::U16 => format!("({n}) as u16"),
                Kind::U32 => format!("({n}) as u32"),
                Kind::Ptr => format!("({n}) as usize as u32"),
            };
            let _ = writeln!(b, "        x{i}: {v},");
        }
        let _ = writeln!(b, "    }};");
        let _ = writeln!(
            tmpl,
            "            \"lea ({fixed},{{p}}),{{p}}\", // p = end of the Palm-layout block"
        );
        for _ in 0..fixed / 4 {
            let _ = writeln!(tmpl, "            \"move.l -({{p}}),-(%sp)\",");
        }
        if fixed % 4 != 0 {
            let _ = writeln!(tmpl, "            \"move.w -({{p}}),-(%sp)\",");
        }
        let _ = writeln!(
            ops,
            "            p = inout(reg_addr) &args as *const Args as usize as u32 => _,"
        );
    } else {
        if t.variadic {
            let _ = writeln!(
                tmpl,
                "            \"lea (0,{{vp}},{{vn}}.l),{{vp}}\", // vp = end of the va block\n            \"move.l {{vn}},{{vc}}\",\n            \"beq 2f\",\n            \"1:\",\n            \"move.w -({{vp}}),-(%sp)\",\n            \"sub.l #2,{{vc}}\",\n            \"bne 1b\",\n            \"2:\","
            );
            let _ = writeln!(
                ops,
                "            vp = inout(reg_addr) va.as_ptr() as usize as u32 => _,\n            vc = out(reg_data) _,\n            vn = in(reg_data) va.len_bytes(),"
            );
        }
        for (i, a) in t.args.iter().enumerate().rev() {
            let n = rust_ident(&a.name);
            let (ins, cls, conv) = match a.kind {
                Kind::U8 => ("move.b", "reg_data", "as u8"),
                Kind::U16 => ("move.w", "reg", "as u16"),
                Kind::U32 => ("move.l", "reg", "as u32"),
                Kind::Ptr => ("move.l", "reg", "as usize as u32"),
            };
            let _ = writeln!(tmpl, "            \"{ins} {{x{i}}},-(%sp)\",");
            let _ = writeln!(ops, "            x{i} = in({cls}) ({n}) {conv},");
        }
    }
    for c in &call {
        let _ = writeln!(tmpl, "            {c}");
    }
    if (1..=8).contains(&fixed) {
        // `addq.l #fixed,%sp` (2 bytes; `lea` takes 4), written as its
        // opcode word because LLVM's inline-asm parser rejects `addq`:
        // 0101 ddd0 10 001 111, ddd = fixed mod 8 (M68000 PRM, ADDQ).
        let word = 0x508F_u16 | ((fixed as u16 & 7) << 9);
        let _ = writeln!(
            tmpl,
            "            \".short 0x{word:04X}\", // addq.l #{fixed},%sp"
        );
    } else if fixed > 0 {
        let _ = writeln!(tmpl, "            \"lea ({fixed},%sp),%sp\",");
    }
    if t.variadic {
        let _ = writeln!(tmpl, "            \"adda.l {{vn}},%sp\",");
    }
    if chain {
        let _ = writeln!(ops, "            o = in(reg_addr) orig as usize as u32,");
    }
    for r in ["d0", "d1", "d2", "a0", "a1"] {
        let _ = write!(ops, "{}", if r == "d0" { "            " } else { "" });
        ops.push_str(&clob(r));
    }
    ops.push('\n');
    if ret_var.is_some() {
        let _ = writeln!(b, "    let ret: u32;");
    }
    let _ = writeln!(
        b,
        "    // SAFETY: the caller upholds this trap's contract (see `# Safety`); the asm\n    // pushes exactly the bytes it pops, leaves A5/A6/SP as it found them and declares\n    // every register Palm OS may clobber (D0-D2/A0-A1), memory and flags."
    );
    let _ = writeln!(b, "    unsafe {{\n        core::arch::asm!(");
    b.push_str(&tmpl);
    b.push_str(&ops);
    let _ = writeln!(b, "        );\n    }}");
    match t.ret {
        Ret::Void => {}
        Ret::U8 => {
            let _ = writeln!(b, "    ret as u8 as {}", t.ret_rust.as_ref().unwrap());
        }
        Ret::U16 | Ret::I16 => {
            let _ = writeln!(b, "    ret as u16 as {}", t.ret_rust.as_ref().unwrap());
        }
        Ret::U32 => {
            let _ = writeln!(b, "    ret as {}", t.ret_rust.as_ref().unwrap());
        }
        Ret::Ptr => {
            let _ = writeln!(b, "    ret as usize as {}", t.ret_rust.as_ref().unwrap());
        }
    }
    b
}

fn gen_fn(t: &Trap, chain: bool, out: &mut String) {
    let params = params(t);
    let orig = if chain { "orig: *mut c_void, " } else { "" };
    let ret = ret_sig(t);
    for m68k in [true, false] {
        doc(t, out, chain);
        out.push_str(if m68k {
            "#[cfg(target_arch = \"m68k\")]\n"
        } else {
            "#[cfg(not(target_arch = \"m68k\"))]\n"
        });
        out.push_str("#[allow(clippy::too_many_arguments)]\n");
        let _ = writeln!(
            out,
            "#[inline]\npub unsafe fn {}({orig}{params}){ret} {{",
            t.name
        );
        if m68k {
            out.push_str(&asm_body(t, chain));
        } else {
            let mut names: Vec<String> = t.args.iter().map(|a| rust_ident(&a.name)).collect();
            if chain {
                names.insert(0, "orig".into());
            }
            if t.variadic {
                names.push("va".into());
            }
            if !names.is_empty() {
                let _ = writeln!(out, "    let _ = ({},);", names.join(", "));
            }
            let _ = writeln!(out, "    crate::_export::not_on_palm(\"{}\")", t.name);
        }
        out.push_str("}\n\n");
    }
}

fn gen_numbers(traps: &[Trap]) -> String {
    let mut s = String::new();
    for t in traps {
        let _ = writeln!(
            s,
            "/// Trap word of `{}` (Palm OS SDK 3.5 `Core/CoreTraps.h`; prototype in `Core/{}`).\npub const sysTrap{}: u16 = 0x{:04X};",
            t.proto, t.header, t.name, t.word
        );
    }
    s
}

fn gen_table(traps: &[Trap]) -> String {
    let mut s = String::from("&[\n");
    for t in traps {
        let mut args = String::new();
        for a in &t.args {
            let _ = write!(
                args,
                "Arg {{ name: \"{}\", kind: ArgKind::{} }}, ",
                a.name,
                kind_name(a.kind)
            );
        }
        let _ = writeln!(
            s,
            "    TrapInfo {{ trap: 0x{:04X}, name: \"{}\", args: &[{}], ret: RetKind::{}, variadic: {}, header: \"{}\", prototype: \"{}\", line: {} }},",
            t.word,
            t.name,
            args,
            ret_name(t.ret),
            t.variadic,
            t.header,
            t.proto,
            t.line
        );
    }
    s.push(']');
    s
}

/// Prefixes every type name in a Rust type with `$crate::types::` (for macro output).
fn qualify(ty: &str) -> String {
    ty.split(' ')
        .map(|w| {
            if w.starts_with('*') || w == "mut" || w == "const" {
                w.to_string()
            } else {
                format!("$crate::types::{w}")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn gen_replacement_arms(traps: &[Trap]) -> String {
    let mut s = String::from(
        "/// Per-trap arms of [`trap_replacement!`](crate::trap_replacement) (generated from `traps.tbl`).\n#[doc(hidden)]\n#[macro_export]\nmacro_rules! __palm_sys_trap_replacement {\n",
    );
    for t in traps.iter().filter(|t| !t.variadic) {
        let kinds: Vec<&str> = t.args.iter().map(cb_kind).collect();
        let tys: Vec<String> = t.args.iter().map(|a| qualify(&a.rust_ty)).collect();
        let ret_kind = ret_name(t.ret);
        let ret_ty = t
            .ret_rust
            .as_ref()
            .map(|r| format!(" -> {}", qualify(r)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "    ({name}, $vis:vis $entry:ident => $body:path) => {{\n        const _: unsafe extern \"C\" fn({tys}){ret_ty} = $body;\n        $crate::palm_callback!($vis $entry({kinds}) -> {ret_kind} => $body);\n    }};",
            name = t.name,
            tys = tys.join(", "),
            kinds = kinds.join(", "),
        );
    }
    s.push_str(
        "    ($other:ident, $($rest:tt)*) => {\n        compile_error!(concat!(\"trap_replacement!: `\", stringify!($other), \"` is not a non-variadic trap in palm-sys/traps.tbl\"));\n    };\n}\n",
    );
    s
}

fn main() {
    println!("cargo::rerun-if-changed=traps.tbl");
    println!("cargo::rerun-if-changed=build.rs");
    let text = std::fs::read_to_string("traps.tbl").expect("read traps.tbl");
    let traps = parse_table(&text);
    let out = std::env::var("OUT_DIR").unwrap();
    let out = Path::new(&out);
    let mut glue = String::new();
    let mut chain = String::new();
    for t in &traps {
        gen_fn(t, false, &mut glue);
        gen_fn(t, true, &mut chain);
    }
    std::fs::write(out.join("trap_numbers.rs"), gen_numbers(&traps)).unwrap();
    std::fs::write(out.join("glue.rs"), glue).unwrap();
    std::fs::write(out.join("chain.rs"), chain).unwrap();
    std::fs::write(out.join("table_data.rs"), gen_table(&traps)).unwrap();
    std::fs::write(
        out.join("replacement_arms.rs"),
        gen_replacement_arms(&traps),
    )
    .unwrap();
}
