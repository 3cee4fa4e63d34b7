//! Build-time check for the one LLVM m68k miscompilation that cannot be
//! repaired in the assembly: a stack array indexed with a variable offset.
//!
//! LLVM's m68k instruction selection drops the index register when it folds
//! "frame index + variable offset" into one addressing mode, so `buf[i] = v`
//! on a local array stores to `buf[0]` (llvm-project #200984, open; bug 2 in
//! `../shared/TOOLCHAIN.md`). The index is already gone in the selected
//! instruction, so nothing after instruction selection can repair it. The
//! pattern is visible just before: in the IR printed by
//! `-C llvm-args=-print-after=codegenprepare`, an address computed from an
//! `alloca` with a non-constant offset.
//!
//! The check follows pointers derived from an `alloca` through
//! constant-offset `getelementptr`s (still "frame index + constant") and flags
//! any `getelementptr` (or `ptradd`) from such a pointer whose offset is not a
//! constant. A pointer that went through a register first — a `phi`, a
//! `select`, a call result such as `core::hint::black_box(&mut buf)` — is a
//! plain base register for instruction selection and is not flagged; that is
//! the documented way to write such code safely.

use std::collections::{BTreeMap, HashSet};

/// One function that computes a variable-offset address into its own stack frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackIndexFinding {
    /// The function's symbol as it appears in the IR (mangled).
    pub symbol: String,
    /// The demangled name (without hash), for messages.
    pub function: String,
    /// The first offending IR instruction, trimmed.
    pub instruction: String,
}

impl std::fmt::Display for StackIndexFinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` indexes a stack array with a variable offset, which LLVM's m68k backend \
             miscompiles (the index is dropped: llvm-project #200984).\n    IR: {}\n    \
             Fix: take the array's address through `core::hint::black_box` before indexing \
             (see `m68k_palmos_sys::stack::indexable`), or keep the buffer in a heap chunk.",
            self.function, self.instruction
        )
    }
}

/// Scans an LLVM IR dump (the text rustc prints to stderr with
/// `-C llvm-args=-print-after=codegenprepare`, possibly with other compiler
/// output around it) and returns the functions that index a stack array with
/// a variable offset, one finding per function (the first offending
/// instruction), sorted by symbol. Functions printed more than once (rustc
/// runs codegen once per `--emit` kind) are reported once.
pub fn scan_ir(dump: &str) -> Vec<StackIndexFinding> {
    let mut found: BTreeMap<String, StackIndexFinding> = BTreeMap::new();
    let mut lines = dump.lines();
    while let Some(line) = lines.next() {
        let Some(symbol) = define_symbol(line) else {
            continue;
        };
        let mut frame_based: HashSet<String> = HashSet::new();
        let mut first_bad: Option<String> = None;
        for body in lines.by_ref() {
            let body = body.trim();
            if body == "}" {
                break;
            }
            if first_bad.is_some() {
                continue;
            }
            let Some((dest, rhs)) = body.split_once(" = ") else {
                continue;
            };
            let dest = dest.trim();
            let rhs = rhs.trim();
            if rhs.starts_with("alloca ") {
                frame_based.insert(dest.to_string());
                continue;
            }
            if let Some((base, all_const)) = address_computation(rhs)
                && frame_based.contains(base)
            {
                if all_const {
                    frame_based.insert(dest.to_string());
                } else {
                    first_bad = Some(body.to_string());
                }
            }
        }
        if let Some(instruction) = first_bad {
            found
                .entry(symbol.to_string())
                .or_insert_with(|| StackIndexFinding {
                    function: demangle(symbol),
                    symbol: symbol.to_string(),
                    instruction,
                });
        }
    }
    found.into_values().collect()
}

/// Demangles a Rust symbol (legacy or v0) without its hash; other names are
/// returned unchanged.
pub fn demangle(symbol: &str) -> String {
    format!("{:#}", rustc_demangle::demangle(symbol))
}

/// `define ... @name(` → `name` (unquoted).
fn define_symbol(line: &str) -> Option<&str> {
    if !line.starts_with("define ") {
        return None;
    }
    let at = line.find(" @")? + 2;
    let rest = &line[at..];
    if let Some(quoted) = rest.strip_prefix('"') {
        let end = quoted.find('"')?;
        Some(&quoted[..end])
    } else {
        let end = rest.find('(')?;
        Some(&rest[..end])
    }
}

/// For `getelementptr [flags] Ty, ptr %base, idx...` or `ptradd ptr %base, off`,
/// returns the base value name and whether every index is a constant.
fn address_computation(rhs: &str) -> Option<(&str, bool)> {
    let operands: Vec<&str> = if let Some(rest) = rhs.strip_prefix("getelementptr ") {
        let mut rest = rest;
        loop {
            let word = rest.split_whitespace().next()?;
            if matches!(word, "inbounds" | "nuw" | "nusw") || word.starts_with("inrange(") {
                rest = rest[rest.find(word)? + word.len()..].trim_start();
            } else {
                break;
            }
        }
        // Skip the source element type (may contain nested brackets/commas).
        let after_type = skip_type(rest)?;
        split_top_level(after_type.trim_start().strip_prefix(',')?)
    } else {
        split_top_level(rhs.strip_prefix("ptradd ")?)
    };
    let mut operands = operands
        .into_iter()
        .map(str::trim)
        .filter(|o| !o.starts_with('!'));
    let base = operands.next()?.strip_prefix("ptr ")?.trim();
    let mut all_const = true;
    for index in operands {
        let value = index.rsplit(' ').next().unwrap_or(index);
        let is_const = value.parse::<i128>().is_ok()
            || matches!(
                value,
                "true" | "false" | "poison" | "undef" | "zeroinitializer"
            );
        all_const &= is_const;
    }
    Some((base, all_const))
}

/// Skips one LLVM type at the start of `s` (balanced `[]`, `{}`, `<>`, `()`,
/// quoted names) and returns the rest.
fn skip_type(s: &str) -> Option<&str> {
    let mut depth = 0i32;
    let mut in_quote = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => in_quote = !in_quote,
            _ if in_quote => {}
            '[' | '{' | '<' | '(' => depth += 1,
            ']' | '}' | '>' | ')' => depth -= 1,
            ',' if depth == 0 => return Some(&s[i..]),
            _ => {}
        }
    }
    None
}

/// Splits on commas that are not inside brackets or quotes.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut in_quote = false;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '"' => in_quote = !in_quote,
            _ if in_quote => {}
            '[' | '{' | '<' | '(' => depth += 1,
            ']' | '}' | '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real output of nightly-2026-10-25 for
    /// `fn stackarr(i: usize, v: u8) -> u8 { let mut buf = [0u8; 16]; buf[i & 15] = v; buf[3] ^ buf[(i+1)&15] }`
    /// (the asm it produces stores `v` to buf[0] and reads buf[0]).
    const STACKARR: &str = r#"*** IR Dump After CodeGen Prepare (codegenprepare) ***
; Function Attrs: minsize mustprogress nofree norecurse nosync nounwind optsize willreturn memory(none)
define noundef zeroext i8 @stackarr(i32 noundef %0, i8 noundef zeroext %1) unnamed_addr #2 !guid !7 {
  %3 = alloca [16 x i8], align 1
  call void @llvm.lifetime.start.p0(ptr nonnull %3)
  call void @llvm.memset.p0.i32(ptr noundef nonnull align 1 dereferenceable(16) %3, i8 0, i32 16, i1 false)
  %4 = and i32 %0, 15
  %5 = getelementptr inbounds nuw i8, ptr %3, i32 %4
  store i8 %1, ptr %5, align 1
  %6 = add i32 %0, 1
  %7 = and i32 %6, 15
  %8 = getelementptr inbounds nuw i8, ptr %3, i32 3
  %9 = load i8, ptr %8, align 1, !noundef !8
  %10 = getelementptr inbounds nuw i8, ptr %3, i32 %7
  %11 = load i8, ptr %10, align 1, !noundef !8
  %12 = xor i8 %11, %9
  call void @llvm.lifetime.end.p0(ptr nonnull %3)
  ret i8 %12
}
*** IR Dump After CodeGen Prepare (codegenprepare) ***
; Function Attrs: minsize nounwind optsize memory(inaccessiblemem: write)
define noundef i32 @div3(i32 noundef %0, i32 noundef %1) unnamed_addr #1 !guid !5 {
  %3 = icmp eq i32 %1, 0
  br i1 %3, label %6, label %4

4:                                                ; preds = %2
  %5 = udiv i32 %0, %1
  ret i32 %5

6:                                                ; preds = %2
  tail call void @llvm.trap()
  unreachable
}
"#;

    #[test]
    fn flags_variable_index_into_alloca() {
        let found = scan_ir(STACKARR);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].symbol, "stackarr");
        assert_eq!(
            found[0].instruction,
            "%5 = getelementptr inbounds nuw i8, ptr %3, i32 %4"
        );
    }

    #[test]
    fn duplicate_dumps_report_once() {
        let twice = format!("{STACKARR}{STACKARR}");
        assert_eq!(scan_ir(&twice).len(), 1);
    }

    #[test]
    fn constant_offsets_and_derived_constant_offsets_pass() {
        let ir = "define void @f(i32 %0) {\n  %2 = alloca [8 x i32], align 2\n  \
                  %3 = getelementptr inbounds [8 x i32], ptr %2, i32 0, i32 5\n  \
                  %4 = getelementptr inbounds i8, ptr %3, i32 -2\n  store i32 %0, ptr %4\n  ret void\n}\n";
        assert!(scan_ir(ir).is_empty());
    }

    #[test]
    fn variable_offset_from_constant_derived_pointer_is_flagged() {
        let ir = "define void @g(i32 %0) {\n  %2 = alloca { i32, [8 x i8] }, align 2\n  \
                  %3 = getelementptr inbounds { i32, [8 x i8] }, ptr %2, i32 0, i32 1\n  \
                  %4 = getelementptr inbounds [8 x i8], ptr %3, i32 0, i32 %0, !dbg !4\n  \
                  store i8 0, ptr %4\n  ret void\n}\n";
        let found = scan_ir(ir);
        assert_eq!(found.len(), 1);
        assert!(found[0].instruction.starts_with("%4 = getelementptr"));
    }

    #[test]
    fn pointer_through_a_call_is_a_register_and_passes() {
        // What `black_box(&mut buf)` looks like after optimisation: the
        // indexed base is the call's result, not the alloca.
        let ir = "define void @h(i32 %0) {\n  %2 = alloca [16 x i8], align 1\n  \
                  %3 = call ptr asm sideeffect \"\", \"=r,0\"(ptr %2)\n  \
                  %4 = getelementptr inbounds i8, ptr %3, i32 %0\n  store i8 1, ptr %4\n  ret void\n}\n";
        assert!(scan_ir(ir).is_empty());
    }

    #[test]
    fn quoted_and_mangled_names_are_demangled() {
        let ir = "define internal fastcc void @_ZN4core3fmt3num3imp7fmt_u6417h0123456789abcdefE(i32 %0) {\n  \
                  %2 = alloca [39 x i8], align 1\n  %3 = getelementptr inbounds i8, ptr %2, i32 %0\n  ret void\n}\n\
                  define void @\"weird name\"(i32 %0) {\n  %2 = alloca [2 x i8]\n  \
                  %3 = ptradd ptr %2, i32 %0\n  ret void\n}\n";
        let found = scan_ir(ir);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].function, "core::fmt::num::imp::fmt_u64");
        assert_eq!(found[1].symbol, "weird name");
    }
}
