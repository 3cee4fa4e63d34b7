//! Repairs known LLVM m68k miscompilations in `rustc --emit=asm` output for
//! the MC68000, so that GNU as (`m68k-linux-gnu-as -m68000 --pcrel`) accepts
//! the text and the program does what LLVM meant.
//!
//! The build runs `rustc --emit=asm` → [`repair`] → GNU as → GNU ld. The
//! pass is called on the whole-program (post-LTO) `.s` of the app and on
//! `compiler_builtins`' `.s` (not part of LTO). Unchanged lines are copied
//! byte for byte; every multi-line rewrite is preceded by a
//! `| asm-repair[kind]: <original>  (<why>)` comment, so the output diffs cleanly
//! against the input. Helper routines that rewrites call are in
//! [`RUNTIME_ASM`], which the driver assembles and links once.
//!
//! ```no_run
//! let asm = std::fs::read_to_string("app.s").unwrap();
//! match m68k_asm_repair::repair(&asm, "app.s") {
//!     Ok(r) => {
//!         std::fs::write("app.fixed.s", &r.text).unwrap();
//!         eprintln!("app.s: {}", r.summary()); // "repaired 37 CCR-clobbering moves, ..."
//!         // A GNU as error at line N of app.fixed.s comes from
//!         // r.input_line(N) of app.s.
//!     }
//!     Err(e) => panic!("{e}"), // every unrepairable line, with its function
//! }
//! ```
//!
//! # How it works
//!
//! Each line is parsed (labels, directives, instructions with size suffix
//! and operands). Functions are split into basic blocks (labels, `Bcc`,
//! `BRA`, `DBcc`, `JMP`, `JSR`/`BSR`, `RTS`); a computed `jmp` (jump table)
//! gets every address-taken label of its function as successor, a branch to
//! another symbol is a tail call, a branch to an unknown local label is
//! assumed to read every flag. A backward dataflow computes, after every
//! instruction, which of X, N, Z, V, C are still going to be read:
//! `Bcc`/`Scc`/`DBcc` read their condition's flags, `ADDX`/`SUBX`/`NEGX`/
//! `ROXL`/`ROXR` read X (Z flows through them), shifts by a register count
//! may leave X alone, calls and traps clobber everything, `rts` and tail
//! calls end liveness. Copies (see bug 1) count as not touching CCR.
//!
//! # Bugs handled (numbers from `TOOLCHAIN.md`)
//!
//! 1. **CCR clobbered by register-allocator copies** (llvm-project #152816;
//!    upstream fix PR #168485 is not in the pinned LLVM 23.1.4). Copies,
//!    spills, reloads and rematerialized constants that LLVM inserts after
//!    instruction selection are `move`/`moveq` to a data register or memory
//!    (`movea`, `lea`, `movem`, `exg`, `pea` never touch CCR), and the
//!    `moveq #~K,%dN` + `not.b %dN` pair that materializes a constant
//!    128..255. LLVM never uses their flags, so each one after which N, Z, V
//!    or C is live destroyed a live flag, and is replaced by a flag-neutral
//!    equivalent. Liveness treats all of them as transparent, so every copy
//!    of a chain between a compare and its branch is found (treating them as
//!    flag-setting would hide all but the last). Moves in hand-written code
//!    are the author's and are left alone: inline asm (`;APP` … `;NO_APP`)
//!    and file-scope asm (naked functions, `global_asm!`), which rustc
//!    prints without markers — code counts as compiled only if it ends with
//!    LLVM's `.Lfunc_end<N>` label. As a safety
//!    net for the premise, a flag read on a path from a function's entry on
//!    which only copies could have set it is an error, not a guess. Forms:
//!    - `move.l %rN,<mem>` → `movem.l %rN,<mem>` (`(An)`, `-(An)`, `(d,An)`,
//!      `(d,An,Xn)`, absolute; not `move.l %aN,-(%aN)`);
//!    - `move.l <mem>,%dN` → `movem.l <mem>,%dN` (`(An)`, `(An)+`, `(d,An)`,
//!      `(d,An,Xn)`, `(d,%pc)`, `(d,%pc,Xn)`, absolute). The 68000 MOVEM
//!      load reads one extra word past the slot, harmless in RAM;
//!    - anything else — register to register, immediates, `moveq`, `not.b`,
//!      byte and word moves (MOVEM.W would sign-extend the whole register, so
//!      it is not equivalent), memory to memory —
//!      `move.w %sr,-(%sp)` / the instruction with every `%sp`-relative
//!      displacement raised by 2 / `move.w (%sp)+,%ccr`. MOVE from SR is
//!      unprivileged on the 68000, MOVE to CCR restores all five flags.
//!      A push `move.x <src>,-(%sp)` becomes `subq.l #n,%sp` (ADDQ/SUBQ to an
//!      address register leave CCR alone) then the saved-CCR form writing
//!      `(2,%sp)`; a pop `move.x (%sp)+,<dst>` reads `(2,%sp)` and ends with
//!      `addq.l #n,%sp`; a copy of `%sp` itself gets an `addq` inside the
//!      saved region to undo the push. Displacements that would leave their
//!      8/16-bit range are errors.
//! 3. **`bra.l`/`bsr.l`/`bcc.l`** (68020 32-bit displacements): LLVM's asm
//!    prints unsized branches, which GNU as assembles as 16-bit ones (never
//!    the 68020 form); an explicit `.l` (inline asm) is dropped. `link.l`
//!    with a 16-bit displacement becomes `link.w`. (Unsized branches within
//!    a function become `jbcc`, which GNU as shortens to 8 bits when the
//!    target is near: a shorter form, see [`FixKind::Shorter`].)
//! 5. **Address register as a data operand** (`and.l #65535,%a2`; LLVM's own
//!    assembler silently encodes it as `and.l #65535,%d2`): `exg %dK,%aN` /
//!    the instruction on `%dK` / `exg %dK,%aN`, with `%dK` the lowest data
//!    register the instruction does not mention. Every other register keeps
//!    its value and the flags are those of the operation. The same handles
//!    `or`, `eor`, `cmpi`/`tst` on an address register, byte moves from one,
//!    and any other data-only instruction given one — but not `%sp` (an
//!    interrupt would run on the swapped-in value) and not when the address
//!    register also forms an address in the same instruction.
//! 6. **`mulu.l`/`muls.l` at `-C target-cpu=M68000`** (found here, not in
//!    `TOOLCHAIN.md`): LLVM lowers `u32`/`i32` `checked_mul`,
//!    `overflowing_mul`, `saturating_mul` and `RawVec`/`Layout` capacity
//!    checks (every `Vec` allocation) to the 68020 32×32 multiply and its V
//!    flag. `mulu.l <ea>,%dN` → `move.l <ea>,-(%sp)` / `move.l %dN,-(%sp)` /
//!    `jsr (__asm_repair_mulu32,%pc)` / `movem.l (%sp)+,%dN` / `addq.l
//!    #4,%sp` (`muls.l`: `__asm_repair_muls32`). The helper leaves the low 32
//!    bits of the product in the slot it was given the multiplicand in and
//!    sets N, Z, V, C exactly as the 68020 does, keeping X; MOVEM and ADDQ to
//!    `%sp` keep that CCR.
//! 15. **X read after an instruction that does not set it** (found here;
//!     `TOOLCHAIN.md` bug 15): LLVM's condition-code register includes X, so
//!     it lowers `-(x == 0)` to `cmpi.l #1,%d0` / `subx.l %d1,%d1` though CMP
//!     leaves X alone. Every X-computing instruction (`addx`, `subx`, `negx`,
//!     `roxl`, `roxr`, `abcd`, `sbcd`, `nbcd`) of compiled code is traced back
//!     through copies to the last flag-setting instruction of its block: when
//!     that one does not set X, `subx.s %dN,%dN` after a compare with no flag
//!     live after it becomes `scs %dN` / `ext.w %dN` (word and long) /
//!     `ext.l %dN` (long), the borrow LLVM meant ([`FixKind::StaleExtend`]);
//!     anything else is an error. When a read's source is in another block,
//!     every such instruction with X live after it and no read of X in its
//!     own block is an error too.
//!
//! Also repaired, because GNU as reads LLVM's text differently:
//! - **`(sym@PLT,%pc)`** → `(sym,%pc)`: LLVM's object writer emits the
//!   PC-relative R_68K_PLT16 for it, GNU as a PLT-offset R_68K_PLT16O on
//!   which GNU ld 2.40 fails (BFD assertion in elf32-m68k.c) — the result is
//!   a plain R_68K_PC16.
//! - **`;` comments**: LLVM writes `;APP`/`;NO_APP` around inline asm, but
//!   `;` separates statements for GNU as on m68k; they become `|` comments.
//! - **DWARF 5 `.file N "dir" "name"`** (emitted with `debug = 2`; GNU as 2.40
//!   rejects it without `--gdwarf-5`) → `.file N "dir/name"`.
//! - **`extb.l %dN`** (68020) → `ext.w %dN` / `ext.l %dN` (same result and
//!   flags; not seen from LLVM at M68000, cheap to support).
//!
//! # Not repaired (errors naming the function, demangled, and the line)
//!
//! - **Bug 2, stack-array index dropped** (llvm-project #200984): the index
//!   is lost during instruction selection, before the assembly is printed;
//!   nothing here can see it. palm-build checks the final LLVM IR instead.
//! - **Bug 4** (`compiler_builtins` misaligned `memcpy`) is an instance of
//!   bug 2; palm-build links its own 68000 `memcpy`/`memmove`/`memset`.
//! - **Checked/overflowing multiply of `u8`/`u16`/`i8`/`i16`** (found here):
//!   LLVM lowers `llvm.umul.with.overflow.i16` (i8, and the signed forms) to
//!   a 16×16 `mulu`/`muls` and drops the overflow check entirely, so
//!   `300u16.checked_mul(300)` is `Some(24464)`. The assembly has no trace of
//!   the check, so this pass cannot see it (no error either): widen to `u32`
//!   and compare, or reject the intrinsics in the IR check.
//! - What GNU as would silently get wrong: `link.w` with a frame over 32 KB
//!   (truncated), `trap #n` with n > 15 (becomes `trap #0`), immediates that
//!   do not fit the operation size.
//! - What a 68000 does not have and has no rewrite here: displacements over
//!   16 bits (`(d32,An)`, frames over 32 KB), 8-bit index displacements out
//!   of range, scaled indexes, 64-bit `mulu.l`/`muls.l`,
//!   `divu.l`/`divs.l`/`divul.l`, bit-field ops, `cas`, `rtd`, `movec`,
//!   floating point, other 68010+ instructions, and mnemonics that are not
//!   MC68000 at all. GNU as `-m68000` remains the final check of the syntax.
//!
//! Debug info: the stack words pushed by a rewrite are not described in
//! `.cfi_*` directives. Functions have a frame pointer (`-C
//! force-frame-pointers=yes`), so the CFA is `%a6`-based wherever code after
//! `link` is rewritten.
#![deny(missing_docs)]

mod cfg;
mod isa;
mod parse;
mod rewrite;

use std::fmt;

use isa::Needs;
use parse::{Line, Stmt};

/// 68000 assembly (GNU as syntax) of the helper routines that rewritten code
/// calls: `__asm_repair_mulu32` and `__asm_repair_muls32`. Assemble it with
/// `m68k-linux-gnu-as -m68000 --pcrel` and link it into every program whose
/// repaired assembly calls them. Position-independent; each routine
/// preserves every register and sets only CCR and its result slot.
pub const RUNTIME_ASM: &str = include_str!("../rt/repair_rt.s");

/// Symbols defined by [`RUNTIME_ASM`].
pub const RUNTIME_SYMBOLS: &[&str] = &[rewrite::MULU32, rewrite::MULS32];

/// What kind of repair a [`Fix`] made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FixKind {
    /// A `move`/`moveq` that destroyed live condition codes made
    /// flag-neutral (bug 1, llvm-project #152816).
    CcrMove,
    /// An address register used where the 68000 only has a data-register
    /// form, e.g. `and.l #imm,%aN` (bug 5), routed through `exg`.
    AddressRegister,
    /// A 68020 `mulu.l`/`muls.l` replaced by a call to a 68000 helper.
    MulLong,
    /// A 68020 `extb.l` replaced by `ext.w` + `ext.l`.
    Extb,
    /// A 68020 `.l` branch or `link.l` replaced by its 68000 form (bug 3).
    LongForm,
    /// A word-sized immediate to an address register (`move.w #65535,%a1`,
    /// `adda.w`, `suba.w`, `cmpa.w`) whose value LLVM printed unsigned
    /// (32768–65535): the 68000 sign-extends word operands of address
    /// registers, so the register got 0xFFFFxxxx where LLVM meant the 32-bit
    /// constant 0x0000xxxx. Rewritten to the `.l` form (found by the
    /// differential corpus: `c_count_between`).
    AddressWordImmediate,
    /// `(sym@PLT,%pc)` written as `(sym,%pc)`: LLVM means a PC-relative
    /// reference (its object writer emits R_68K_PLT16), GNU as reads `@PLT`
    /// as a PLT-offset (R_68K_PLT16O) that ld cannot resolve statically.
    Plt,
    /// An LLVM `;` comment turned into a GNU as `|` comment.
    Comment,
    /// A DWARF 5 `.file N "dir" "name"` turned into `.file N "dir/name"`.
    DwarfFile,
    /// A `subx.s %dN,%dN` that reads X right after a compare, which sets C but
    /// not X (bug 15): `scs %dN` and the `ext`s that widen it, the value LLVM
    /// meant (−1 when the compare borrowed, else 0).
    StaleExtend,
    /// Not a bug: an instruction replaced by a shorter one with exactly the
    /// same effect on registers, memory and every condition code (`cmpi #0`
    /// → `tst`, `move #0` → `clr` except to an address register, `lea
    /// (n,%aN),%aN` → `addq`/`subq` for n in ±1..8), or on every condition
    /// code read afterwards (a branch within the function → `jbcc`, which
    /// GNU as makes 2 bytes when it reaches; a single-register `movem` →
    /// `move`/`movea`; a `tst` of what the instruction before it just set →
    /// dropped), in code LLVM compiled only (inline and file-scope asm stay
    /// as written). LLVM's m68k backend emits the long forms; GNU as does
    /// not shorten them.
    Shorter,
}

impl FixKind {
    /// Short tag used in the `| asm-repair[tag]` comments and logs.
    pub fn tag(self) -> &'static str {
        match self {
            FixKind::CcrMove => "ccr-move",
            FixKind::AddressRegister => "address-register",
            FixKind::MulLong => "mul-long",
            FixKind::Extb => "extb",
            FixKind::LongForm => "long-form",
            FixKind::AddressWordImmediate => "address-word-immediate",
            FixKind::Plt => "plt",
            FixKind::Comment => "comment",
            FixKind::DwarfFile => "dwarf-file",
            FixKind::StaleExtend => "stale-x",
            FixKind::Shorter => "shorter",
        }
    }

    /// What the summary line calls `n` repairs of this kind.
    fn describe(self, n: usize) -> String {
        let s = if n == 1 { "" } else { "s" };
        match self {
            FixKind::CcrMove => format!("{n} CCR-clobbering move{s}"),
            FixKind::AddressRegister => {
                format!("{n} address-register operand{s} (and/or/eor/cmpi/tst on %aN)")
            }
            FixKind::MulLong => format!("{n} mulu.l/muls.l"),
            FixKind::Extb => format!("{n} extb.l"),
            FixKind::LongForm => format!("{n} 68020 long branch/link form{s}"),
            FixKind::AddressWordImmediate => {
                format!("{n} sign-extended word immediate{s} to an address register")
            }
            FixKind::Plt => format!("{n} @PLT operand{s}"),
            FixKind::Comment => format!("{n} ';' comment{s}"),
            FixKind::DwarfFile => format!("{n} DWARF 5 .file directive{s}"),
            FixKind::StaleExtend => format!("{n} subx of a compare's carry"),
            FixKind::Shorter => format!(
                "{n} shorter equivalent form{s} \
                 (tst, clr, addq/subq, jbcc, move for movem, tst dropped)"
            ),
        }
    }

    /// For multi-line semantic rewrites, why (the output keeps the original
    /// instruction and this in a comment before the replacement).
    fn annotation(self) -> Option<&'static str> {
        match self {
            FixKind::CcrMove => Some("llvm-project#152816: this copy destroyed live flags"),
            FixKind::AddressRegister => Some("68000 has no such form with an address register"),
            FixKind::MulLong => Some("68020-only; 68000 helper in RUNTIME_ASM"),
            FixKind::Extb => Some("68020-only"),
            FixKind::StaleExtend => Some("reads X, which the compare before it does not set"),
            FixKind::AddressWordImmediate => {
                Some("a word immediate is sign-extended into an address register")
            }
            _ => None,
        }
    }
}

impl fmt::Display for FixKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

/// One repaired line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// 1-based line number in the input.
    pub line: usize,
    /// Demangled name of the enclosing function (empty outside functions).
    pub function: String,
    /// What was repaired.
    pub kind: FixKind,
    /// The input line.
    pub before: String,
    /// The replacement lines, joined with `\n`.
    pub after: String,
}

/// The repaired assembly and what was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repaired {
    /// The assembly to give to GNU as.
    pub text: String,
    /// Every repair, in input order.
    pub fixes: Vec<Fix>,
    /// For each output line (0-based), the 1-based input line it came from.
    origins: Vec<usize>,
}

impl Repaired {
    /// Number of fixes of `kind`.
    pub fn count(&self, kind: FixKind) -> usize {
        self.fixes.iter().filter(|f| f.kind == kind).count()
    }

    /// A one-line summary such as `repaired 37 CCR-clobbering moves, 3
    /// address-register operands, 2 mulu.l/muls.l`.
    pub fn summary(&self) -> String {
        let mut kinds: Vec<FixKind> = self.fixes.iter().map(|f| f.kind).collect();
        kinds.sort();
        kinds.dedup();
        if kinds.is_empty() {
            return "repaired nothing".to_string();
        }
        let parts: Vec<String> = kinds.iter().map(|&k| k.describe(self.count(k))).collect();
        format!("repaired {}", parts.join(", "))
    }

    /// The 1-based input line that produced 1-based output line `line` (to
    /// translate GNU as error messages back to the compiler's output).
    pub fn input_line(&self, line: usize) -> Option<usize> {
        self.origins.get(line.checked_sub(1)?).copied()
    }
}

/// One line the pass cannot repair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based input line.
    pub line: usize,
    /// Demangled name of the enclosing function (empty outside functions).
    pub function: String,
    /// The input line.
    pub text: String,
    /// Why it cannot be repaired.
    pub reason: String,
}

/// The input has code the pass cannot make into correct MC68000 code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", render_problems(.file, .problems))]
pub struct RepairError {
    /// The file name given to [`repair`].
    pub file: String,
    /// Every unrepairable line, in input order.
    pub problems: Vec<Problem>,
}

fn render_problems(file: &str, problems: &[Problem]) -> String {
    let mut s = format!(
        "{file}: {} line(s) cannot be made into MC68000 code",
        problems.len()
    );
    for p in problems {
        let func = if p.function.is_empty() {
            "(outside any function)".to_string()
        } else {
            format!("in `{}`", p.function)
        };
        s.push_str(&format!(
            "\n  {file}:{}: {func}: {}\n      {}",
            p.line,
            p.reason,
            p.text.trim()
        ));
    }
    s
}

fn flag_names(flags: u8) -> String {
    [
        (isa::X, 'X'),
        (isa::N, 'N'),
        (isa::Z, 'Z'),
        (isa::V, 'V'),
        (isa::C, 'C'),
    ]
    .iter()
    .filter(|(f, _)| flags & f != 0)
    .map(|(_, c)| *c)
    .collect()
}

fn demangle(name: &str) -> String {
    if name.is_empty() {
        return String::new();
    }
    format!("{:#}", rustc_demangle::demangle(name))
}

/// `s` without `@PLT` suffixes (but `@PLTPC`, `@PLTOFF` stay), if it had any.
fn strip_plt(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut changed = false;
    while let Some(i) = rest.find("@PLT") {
        let after = &rest[i + 4..];
        let more = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        out.push_str(&rest[..i]);
        if more {
            out.push_str("@PLT");
        } else {
            changed = true;
        }
        rest = after;
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// `.file N "dir" "name" [md5 …]` → `.file N "dir/name"`.
fn dwarf5_file(args: &str) -> Option<String> {
    let (num, rest) = args.split_once(|c: char| c.is_whitespace())?;
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let strings = quoted_strings(rest.trim());
    let [dir, name, ..] = strings.as_slice() else {
        return None;
    };
    let path = if name.starts_with('/') || dir.is_empty() {
        (*name).to_string()
    } else {
        format!("{}/{}", dir.trim_end_matches('/'), name)
    };
    Some(format!("\t.file\t{num} \"{path}\""))
}

/// The raw contents (escapes kept) of the leading quoted strings of `s`.
fn quoted_strings(mut s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    while let Some(rest) = s.strip_prefix('"') {
        let bytes = rest.as_bytes();
        let mut i = 0;
        while i < bytes.len() && bytes[i] != b'"' {
            if bytes[i] == b'\\' {
                i += 1;
            }
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
        out.push(&rest[..i]);
        s = rest[i + 1..].trim_start();
    }
    out
}

/// Repairs `asm` (the text of one `.s` file from `rustc --emit=asm` for
/// `m68k-unknown-none-elf`); `file_name` is used in messages only.
///
/// Returns the repaired text and the list of fixes, or every line that
/// cannot be repaired (each naming its function, demangled, and line).
pub fn repair(asm: &str, file_name: &str) -> Result<Repaired, RepairError> {
    let lines = parse::parse_lines(asm);
    let program = cfg::Program::build(&lines);
    let mut replaced: Vec<Option<(FixKind, Vec<String>)>> = vec![None; lines.len()];
    let mut problems = Vec::new();
    let function_name = |li: usize| -> String {
        program.line_function[li]
            .map(|f| demangle(&program.functions[f].name))
            .unwrap_or_default()
    };
    let problem = |li: usize, reason: String| Problem {
        line: li + 1,
        function: function_name(li),
        text: lines[li].text.to_string(),
        reason,
    };

    for f in &program.functions {
        let live = program.live_after(f);
        // Safety net for the premise of bug 1 (no flag reader relies on a
        // copy): with copies transparent, every read flag must be set by a
        // real instruction on every path from the function's entry.
        if let (true, Some(&first), Some(Some(e)), Some(&after)) =
            (f.compiled, f.insns.first(), f.effects.first(), live.first())
        {
            let at_entry = (e.reads | (after & !e.defs)) & isa::NZVC;
            if at_entry != 0 {
                problems.push(problem(
                    first,
                    format!(
                        "condition codes ({}) are read on a path from the function's entry \
                         where no instruction but a copy sets them",
                        flag_names(at_entry)
                    ),
                ));
            }
        }
        for (k, &li) in f.insns.iter().enumerate() {
            let Stmt::Insn(insn) = &lines[li].stmt else {
                continue;
            };
            let flags_live = live[k] & isa::NZVC != 0;
            let result = match isa::needs(insn) {
                Needs::Nothing => {
                    if flags_live && f.copy_like[k] {
                        Some((FixKind::CcrMove, rewrite::ccr_neutral_move(insn)))
                    } else if f.compiled && !f.in_asm[k] {
                        // Only LLVM's code: hand-written asm stays as written.
                        let in_context = {
                            let local_target = match f.effects[k].as_ref().map(|e| &e.flow) {
                                Some(isa::Flow::Cond(t) | isa::Flow::Jump(t)) => {
                                    t.starts_with(".L") && f.resolve(k, t).is_some()
                                }
                                _ => false,
                            };
                            let previous = previous_in_block(f, k, &lines, &replaced);
                            rewrite::shorter_in_context(
                                insn,
                                live[k],
                                previous.as_ref(),
                                local_target,
                            )
                        };
                        in_context
                            .or_else(|| rewrite::shorter(insn))
                            .map(|new| (FixKind::Shorter, Ok(new)))
                    } else {
                        None
                    }
                }
                Needs::AddrRegOperand => {
                    if flags_live && f.copy_like[k] {
                        Some((
                            FixKind::AddressRegister,
                            Err("address-register byte move after which CCR is live".into()),
                        ))
                    } else {
                        Some((FixKind::AddressRegister, rewrite::addr_reg_operand(insn)))
                    }
                }
                Needs::MulLong { signed } => {
                    Some((FixKind::MulLong, rewrite::mul_long(insn, signed)))
                }
                Needs::Extb => Some((FixKind::Extb, rewrite::extb(insn))),
                Needs::LongBranch => Some((FixKind::LongForm, Ok(rewrite::drop_size(insn)))),
                Needs::LinkLong => Some((FixKind::LongForm, Ok(rewrite::link_word(insn)))),
                Needs::AddrWordImm => {
                    Some((FixKind::AddressWordImmediate, Ok(rewrite::long_size(insn))))
                }
                Needs::Unsupported(reason) => {
                    problems.push(problem(li, reason));
                    None
                }
            };
            match result {
                Some((kind, Ok(new))) => replaced[li] = Some((kind, new)),
                Some((kind, Err(why))) => {
                    problems.push(problem(
                        li,
                        format!("cannot repair ({}): {why}", kind.tag()),
                    ));
                }
                None => {}
            }
        }
        if f.compiled {
            stale_extend(f, &lines, &live, &mut replaced, &mut |li, why| {
                problems.push(problem(li, why))
            });
        }
    }

    // Line-level fixes: `@PLT` operands, `.file`, `;` comments.
    for (li, line) in lines.iter().enumerate() {
        if let Some((_, new)) = replaced[li].as_mut() {
            for n in new.iter_mut() {
                if let Some(t) = strip_plt(n) {
                    *n = t;
                }
            }
            continue;
        }
        if matches!(line.stmt, Stmt::Insn(_))
            && let Some(t) = strip_plt(line.text)
        {
            replaced[li] = Some((FixKind::Plt, vec![t]));
            continue;
        }
        if let Stmt::Directive {
            name: ".file",
            args,
        } = &line.stmt
            && let Some(new) = dwarf5_file(args)
        {
            replaced[li] = Some((FixKind::DwarfFile, vec![new]));
            continue;
        }
        if let Some(i) = line.semicolon {
            let mut t = String::with_capacity(line.text.len());
            t.push_str(&line.text[..i]);
            t.push('|');
            t.push_str(&line.text[i + 1..]);
            replaced[li] = Some((FixKind::Comment, vec![t]));
        }
    }

    if !problems.is_empty() {
        problems.sort_by_key(|p| p.line);
        return Err(RepairError {
            file: file_name.to_string(),
            problems,
        });
    }

    let mut text = String::with_capacity(asm.len() + asm.len() / 16);
    let mut origins = Vec::with_capacity(lines.len() + lines.len() / 16);
    let mut fixes = Vec::new();
    for (li, line) in lines.iter().enumerate() {
        let mut emit = |s: &str| {
            text.push_str(s);
            text.push('\n');
            origins.push(li + 1);
        };
        match replaced[li].take() {
            None => emit(line.text),
            Some((kind, new)) => {
                // Instruction rewrites are generated without the line's
                // label; whole-line edits (`Plt`) keep it in their text.
                let generated = matches!(line.stmt, Stmt::Insn(_)) && kind != FixKind::Plt;
                if generated && let Some(label) = line.label {
                    emit(&format!("{label}:"));
                }
                if let Some(why) = kind.annotation() {
                    emit(&format!(
                        "\t| asm-repair[{}]: {}  ({why})",
                        kind.tag(),
                        original_code(line)
                    ));
                }
                for n in &new {
                    emit(n);
                }
                fixes.push(Fix {
                    line: li + 1,
                    function: function_name(li),
                    kind,
                    before: line.text.to_string(),
                    after: new.join("\n"),
                });
            }
        }
    }
    Ok(Repaired {
        text,
        fixes,
        origins,
    })
}

/// The instruction that runs right before instruction `k` of `f`, when a
/// rewrite may rely on the flags it set: compiled code outside inline asm,
/// not a copy (LLVM never uses a copy's flags, and the CCR repair may make
/// it flag-neutral), and nothing in between but blank lines, comments,
/// debug directives (`.loc`, `.cfi_*`) and `.LtmpN` labels: no other label,
/// no inline-asm block (which may hold instructions written as data),
/// nothing that emits bytes. When that instruction was itself rewritten, the
/// last line of its replacement is the one that runs before `k` (so a second
/// pass over the output finds what the first one saw).
fn previous_in_block(
    f: &cfg::Function,
    k: usize,
    lines: &[Line<'_>],
    replaced: &[Option<(FixKind, Vec<String>)>],
) -> Option<parse::Insn> {
    let (before, at) = (*f.insns.get(k.checked_sub(1)?)?, f.insns[k]);
    // LLVM's `.LtmpN` labels mark debug-info and EH ranges, never a branch
    // target (blocks are `.LBBx_y`, jump-table entries too).
    let entry = |l: &Line<'_>| l.label.is_some_and(|n| !is_range_label(n));
    if f.in_asm[k - 1] || entry(&lines[at]) {
        return None;
    }
    let harmless = |l: &Line<'_>| {
        !entry(l)
            && cfg::asm_marker(l.text).is_none()
            && match &l.stmt {
                Stmt::Empty => true,
                Stmt::Directive { name, .. } => *name == ".loc" || name.starts_with(".cfi_"),
                Stmt::Insn(_) => false,
            }
    };
    if !lines[before + 1..at].iter().all(harmless) {
        return None;
    }
    match (&replaced[before], &lines[before].stmt) {
        (Some((_, new)), _) => Some(parse::parse_insn(new.last()?.trim())),
        (None, Stmt::Insn(insn)) if !f.copy_like[k - 1] => Some(insn.clone()),
        _ => None,
    }
}

/// Bug 15: LLVM models CCR as one register, X included, so it reads X after an
/// instruction that sets the other flags but not X, as if it had (its
/// `SETCS_C` pattern: `cmpi.l #1,%d0` / `subx.l %d1,%d1` for `-(x == 0)`).
/// Every X read in compiled code is traced back, within its block and through
/// copies, to the instruction that last set flags: a compare's carry read by
/// `subx.s %dN,%dN` is repaired ([`rewrite::carry_as_extend`]); any other read
/// of X such an instruction did not set is reported through `report` (line,
/// reason), and so is, when a read's flag-setting instruction is in another
/// block, every such instruction after which X is live and not read in its
/// block.
fn stale_extend(
    f: &cfg::Function,
    lines: &[Line<'_>],
    live: &[u8],
    replaced: &mut [Option<(FixKind, Vec<String>)>],
    report: &mut dyn FnMut(usize, String),
) {
    let entry = |k: usize| lines[f.insns[k]].label.is_some_and(|n| !is_range_label(n));
    let text = |k: usize| lines[f.insns[k]].text.trim().to_string();
    let flow_next = |k: usize| {
        f.effects[k]
            .as_ref()
            .is_some_and(|e| matches!(e.flow, isa::Flow::Next | isa::Flow::Call))
    };
    let stale = |k: usize| {
        !f.in_asm[k]
            && !f.copy_like[k]
            && f.effects[k]
                .as_ref()
                .is_some_and(|e| e.defs & isa::NZVC != 0 && e.defs & isa::X == 0)
    };
    // An X read whose flag-setting instruction is in another block.
    let mut unresolved = false;
    for k in 0..f.insns.len() {
        // The instructions that compute with X (a move from SR reads it too,
        // only to save it: the repairs' own wrappers).
        let Stmt::Insn(insn) = &lines[f.insns[k]].stmt else {
            continue;
        };
        let computes_with_x = matches!(
            insn.mnemonic.as_str(),
            "addx" | "subx" | "negx" | "roxl" | "roxr" | "abcd" | "sbcd" | "nbcd"
        );
        if f.in_asm[k] || !computes_with_x {
            continue;
        }
        // The instruction that last set flags before it in its block.
        let mut j = k;
        let source = loop {
            if entry(j) || j == 0 {
                break None;
            }
            j -= 1;
            if !flow_next(j) {
                break None;
            }
            if f.effects[j].as_ref().is_some_and(|e| e.defs != 0) {
                break Some(j);
            }
        };
        let Some(j) = source else {
            unresolved = true;
            continue;
        };
        if !stale(j) {
            continue;
        }
        let li = f.insns[k];
        let compare = matches!(
            lines[f.insns[j]].stmt,
            Stmt::Insn(ref c) if matches!(c.mnemonic.as_str(), "cmp" | "cmpi" | "cmpa" | "cmpm")
        );
        match rewrite::carry_as_extend(insn, live[k]).filter(|_| compare) {
            Some(new) if replaced[li].is_none() => replaced[li] = Some((FixKind::StaleExtend, new)),
            _ => report(
                li,
                format!(
                    "reads the X flag, which `{}` before it does not set \
                     (LLVM takes X from the last flag-setting instruction; TOOLCHAIN.md bug 15)",
                    text(j)
                ),
            ),
        }
    }
    // With such a read: X live after an instruction that did not set it, and
    // not read in its block.
    for k in 0..f.insns.len() {
        if !unresolved || !stale(k) || live[k] & isa::X == 0 {
            continue;
        }
        let mut j = k;
        let read_in_block = loop {
            if !flow_next(j) || j + 1 == f.insns.len() || entry(j + 1) {
                break false;
            }
            j += 1;
            if f.effects[j].as_ref().is_some_and(|e| e.reads & isa::X != 0) {
                break true;
            }
        };
        if !read_in_block {
            report(
                f.insns[k],
                "sets the condition codes but not X, and X is read after it in another block \
                 (LLVM takes X from the last flag-setting instruction; TOOLCHAIN.md bug 15)"
                    .to_string(),
            );
        }
    }
}

/// `.LtmpN`: a label LLVM prints for debug-info and EH ranges.
fn is_range_label(name: &str) -> bool {
    name.strip_prefix(".Ltmp")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The instruction part of a line, for the comment in front of its
/// replacement.
fn original_code<'a>(line: &Line<'a>) -> String {
    let mut t = line.text;
    if let Some(label) = line.label
        && let Some(rest) = t.trim_start().strip_prefix(label)
    {
        t = rest.strip_prefix(':').unwrap_or(rest);
    }
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dwarf5_file_directive() {
        assert_eq!(
            dwarf5_file(r#"2 "/root/src/alloc" "src/raw_vec/mod.rs""#).as_deref(),
            Some("\t.file\t2 \"/root/src/alloc/src/raw_vec/mod.rs\"")
        );
        assert_eq!(
            dwarf5_file(r#"3 "/x" "/abs/y.rs" md5 0x0123"#).as_deref(),
            Some("\t.file\t3 \"/abs/y.rs\"")
        );
        assert_eq!(dwarf5_file(r#"1 "only.rs""#), None);
        assert_eq!(dwarf5_file(r#""exp.cgu.0""#), None);
        assert_eq!(dwarf5_file(r#"1 "unterminated"#), None);
    }

    /// The fixes and problems of one function made of `body`.
    fn stale_x(body: &str) -> Result<Vec<(FixKind, String)>, Vec<String>> {
        let src = format!("\t.text\nf:\n{body}\n\trts\n.Lfunc_end0:\n");
        match repair(&src, "x.s") {
            Ok(r) => Ok(r
                .fixes
                .into_iter()
                .filter(|f| f.kind != FixKind::Shorter)
                .map(|f| (f.kind, f.after))
                .collect()),
            Err(e) => Err(e.problems.into_iter().map(|p| p.reason).collect()),
        }
    }

    #[test]
    fn subx_of_a_compare_reads_its_carry() {
        // LLVM's `c | -(a == 0)`, with a copy in between (transparent).
        let want = Ok(vec![(
            FixKind::StaleExtend,
            "\tscs\t%d1\n\text.w\t%d1\n\text.l\t%d1".to_string(),
        )]);
        for body in [
            "\tcmpi.l\t#1, (4,%sp)\n\tsubx.l\t%d1, %d1\n\tmove.l\t(8,%sp), %d0\n\tor.l\t%d1, %d0",
            "\tcmpi.l\t#1, %d2\n\tmove.l\t%d2, %d3\n\tsubx.l\t%d1, %d1\n\tmoveq\t#0, %d0",
        ] {
            assert_eq!(stale_x(body), want, "{body}");
        }
        assert_eq!(
            stale_x("\tcmp.w\t%d2, %d4\n\tsubx.b\t%d6, %d6\n\tmoveq\t#0, %d0"),
            Ok(vec![(FixKind::StaleExtend, "\tscs\t%d6".to_string())])
        );
        // X set by the instruction before: nothing to do.
        assert_eq!(
            stale_x("\tadd.l\t%d3, %d1\n\taddx.l\t%d2, %d0\n\tmoveq\t#0, %d0"),
            Ok(vec![])
        );
        assert_eq!(
            stale_x("\tsub.l\t%d3, %d1\n\tsubx.l\t%d2, %d2\n\tmoveq\t#0, %d0"),
            Ok(vec![])
        );
    }

    #[test]
    fn other_reads_of_a_stale_x_are_errors() {
        for body in [
            // Not `subx %dN,%dN`.
            "\tcmp.l\t%d1, %d0\n\taddx.l\t%d2, %d0\n\tmoveq\t#0, %d1",
            // Not a compare (TST clears C).
            "\ttst.l\t%d0\n\tsubx.l\t%d1, %d1\n\tmoveq\t#0, %d0",
            // A flag read after it.
            "\tcmpi.l\t#1, %d0\n\tsubx.l\t%d1, %d1\n\tbcs\t.L1\n\tmoveq\t#0, %d1\n.L1:",
            // Read in another block.
            "\tcmpi.l\t#1, %d0\n\tbeq\t.L1\n\tsubx.l\t%d1, %d1\n.L1:\n\tmoveq\t#0, %d0",
        ] {
            let Err(why) = stale_x(body) else {
                panic!("no error: {body}");
            };
            assert!(
                why.iter().all(|w| w.contains("TOOLCHAIN.md bug 15")),
                "{body}: {why:?}"
            );
        }
    }

    #[test]
    fn plt_suffix() {
        assert_eq!(
            strip_plt("\tjsr\t(__udivsi3@PLT,%pc)").as_deref(),
            Some("\tjsr\t(__udivsi3,%pc)")
        );
        assert_eq!(strip_plt("\tjsr\t(f@PLTPC,%pc)"), None);
        assert_eq!(strip_plt("\tbra\tf@PLT").as_deref(), Some("\tbra\tf"));
        let r = repair("\t.text\nf:\n1:\tjsr\t(g@PLT,%pc)\n\trts\n", "t.s").unwrap();
        assert_eq!(r.text, "\t.text\nf:\n1:\tjsr\t(g,%pc)\n\trts\n");
        assert_eq!(r.summary(), "repaired 1 @PLT operand");
    }

    #[test]
    fn summary_and_origins() {
        let src = "\t.text\nf:\n\tsub.l\t%d4, %d7\n\tmove.l\t%d6, %d5\n\tbpl\t.L7\n.L7:\n\trts\n.Lfunc_end0:\n";
        let r = repair(src, "t.s").unwrap();
        assert_eq!(
            r.summary(),
            "repaired 1 CCR-clobbering move, 1 shorter equivalent form \
             (tst, clr, addq/subq, jbcc, move for movem, tst dropped)"
        );
        assert_eq!(r.fixes[0].line, 4);
        assert_eq!(r.fixes[1].after, "\tjbpl\t.L7");
        assert_eq!(r.fixes[0].function, "f");
        // Lines 1-3 map to themselves, then comment + 3 lines from line 4.
        assert_eq!(r.input_line(3), Some(3));
        assert_eq!(r.input_line(4), Some(4));
        assert_eq!(r.input_line(7), Some(4));
        assert_eq!(r.input_line(8), Some(5));
        assert_eq!(r.input_line(0), None);
        assert_eq!(r.input_line(999), None);
    }

    #[test]
    fn every_copy_between_compare_and_branch_is_repaired() {
        let src = "\t.text\nf:\n\tcmp.l\t%d1, %d0\n\tmove.l\t%d2, %d3\n\tmove.l\t%d4, (8,%sp)\n\tmoveq\t#0, %d5\n\tbhi\t.L1\n\tmove.l\t%d0, %d1\n.L1:\n\trts\n.Lfunc_end0:\n";
        let r = repair(src, "t.s").unwrap();
        let lines: Vec<usize> = r
            .fixes
            .iter()
            .filter(|f| f.kind == FixKind::CcrMove)
            .map(|f| f.line)
            .collect();
        assert_eq!(lines, [4, 5, 6]);
        assert_eq!(r.fixes[1].after, "\tmovem.l\t%d4, (8,%sp)");
        // The output needs no further repair.
        assert_eq!(repair(&r.text, "t.s").unwrap().fixes, []);
    }

    #[test]
    fn flags_read_without_a_setter_are_an_error() {
        let src = "\t.text\nf:\n\tmove.l\t%d1, %d0\n\tbeq\t.L1\n.L1:\n\trts\n.Lfunc_end0:\n";
        let e = repair(src, "t.s").unwrap_err();
        assert_eq!(e.problems.len(), 1);
        assert_eq!(e.problems[0].line, 3);
        assert!(
            e.problems[0].reason.contains("(Z)"),
            "{}",
            e.problems[0].reason
        );
    }

    #[test]
    fn errors_name_the_demangled_function() {
        let src = "\t.text\n_RNvCs1234_5hello5world:\n\tdivu.l\t%d1, %d0\n\trts\n";
        let e = repair(src, "x.s").unwrap_err();
        assert_eq!(e.problems.len(), 1);
        assert_eq!(e.problems[0].line, 3);
        assert_eq!(e.problems[0].function, "hello::world");
        let msg = e.to_string();
        assert!(msg.contains("x.s:3: in `hello::world`"), "{msg}");
    }
}
