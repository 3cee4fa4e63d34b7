//! Build-time checks for the LLVM m68k miscompilations that cannot be
//! repaired in the assembly: bug 2 of `docs/TOOLCHAIN.md`, and bugs 7
//! and 9 found while building this project (described below).
//!
//! rustc prints, with `-C llvm-args=-print-after=codegenprepare,finalize-isel`
//! (added by [`crate::cargo`]), every function twice: as LLVM IR just before
//! instruction selection, and as machine IR (MIR) just after it. [`scan_ir`]
//! reads that dump and reports each function that hits one of the bugs, with
//! the offending instruction; the build fails on any function that survives
//! linking.
//!
//! # Bug 2: a stack array indexed with a variable offset
//!
//! LLVM's m68k instruction selection drops the index register when it folds
//! "frame index + variable offset" into one addressing mode, so `buf[i] = v`
//! on a local array stores to `buf[0]` (llvm-project #200984, open). The index
//! is already gone in the selected instruction, so nothing after instruction
//! selection can repair it. The pattern is visible just before, in the IR: an
//! address computed from an `alloca` with a non-constant offset.
//!
//! The check follows pointers derived from an `alloca` through
//! constant-offset `getelementptr`s (still "frame index + constant") and flags
//! any `getelementptr` (or `ptradd`) from such a pointer whose offset is not a
//! constant. A pointer that went through a register first — a `phi`, a
//! `select`, a call result such as `core::hint::black_box(&mut buf)` — is a
//! plain base register for instruction selection and is not flagged; that is
//! the documented way to write such code safely.
//!
//! # Bug 7: an 8/16-bit load, widened and stored, becomes one wide memory-to-memory move
//!
//! **What goes wrong.** A value loaded from memory as 8 or 16 bits, zero-,
//! sign- or any-extended to 16 or 32 bits and stored, is selected as *one*
//! `move.w`/`move.l` from memory to memory of the **wide** size, reading from
//! the narrow value's address. `*p = *q as u32` with `q: *const u16` becomes
//! `move.l (%a0),(%a1)`: the stored value is `*q << 16` plus the two bytes after
//! `*q`. With an 8-bit source the address is often odd: `move.l (11,%a6),…`
//! is an address error on a 68000. Seen with LLVM 23.1.4 (the pinned
//! nightly-2026-10-25) for every `-C target-cpu` from 68000 to 68030 and at
//! every opt-level (at opt-level 0 only for loads through pointers); not with
//! LLVM 22.1.4 (nightly-2026-05-19 compiles the same functions correctly). No
//! upstream issue was found.
//!
//! **Root cause** (llvm-project, `llvm/lib/Target/M68k`). The memory-to-memory
//! `MOV8/16/32` patterns (`MxMove_MM_Safe` in `M68kInstrData.td`) match
//! `Mxstoreloadi8/16/32_safe` (`M68kInstrInfo.td`):
//! `(store (iN (unindexedload $src)), $dst)` plus `isSafeStoreLoad`
//! (`M68kISelDAGToDAG.cpp`), which only checks call-sequence chains. Unlike
//! `load` (non-extending) or `Mxloadi16`/`Mxloadi32` (which reject zero- and
//! sign-extending loads), `unindexedload` accepts *any* extension type, so an
//! `i32` `zextload`/`sextload`/`extload` of `i8`/`i16` memory matches
//! `MOV32mm` and its memory size is ignored. The `_safe` fragments came with
//! llvm-project PR #175457 ("Prevent folding of loads + stores when it would
//! introduce new chain dependencies"); before it the patterns used
//! `TYPE.Load`, i.e. `Mxloadi16`/`Mxloadi32`, which fits LLVM 22.1.4 being
//! unaffected.
//!
//! **What triggers it.** The extending load is a SelectionDAG node, so it
//! comes from more than IR `load` + `zext`/`sext`:
//! - narrow arguments passed on the stack (`extern "C" fn f(a: u16, p: *mut
//!   u32) { *p = a as u32 }`: the argument is loaded from the low half of its
//!   slot, `move.l (10,%a6),(%a0)`);
//! - loads narrowed by the DAG combiner: `*p = *q & 0xFF`, `*q & 0xFFFF`,
//!   `*q >> 16`, `*q >> 24`, `(*q >> 8) & 0xFF`, `(*q << 16) >> 16` (signed)
//!   with `q: *const u32` (e.g. `move.l (3,%a0),(%a1)`);
//! - `bool`/`u8` → `u32`/`char`, `u8` → `u16`, `i8`/`i16` sign extension, the
//!   low word of a `u64` built from a `u16`, struct fields, loops
//!   (`move.l (%a0)+,(%a1)+` reading 4 bytes per 2-byte element);
//! - volatile loads and volatile stores alike.
//!
//! It needs the extended load to have a single use in the store's basic block:
//! a value also used elsewhere is loaded into a register. Not affected:
//! memory-source arithmetic and compares (`add`/`sub`/`and`/`or`/`eor`/`cmp`/
//! `tst` use `Mxloadi16`/`Mxloadi32`), loads into registers (`MOVZX`/`MOVSX`
//! pseudos) and call arguments (their stores are chained to `callseq_start`,
//! which `isSafeStoreLoad` rejects).
//!
//! **Why it is checked, not repaired.** `move.l (10,%a6),(%a0)` is a valid
//! instruction: nothing in the assembly says that the source was 16 bits wide.
//! The MIR after instruction selection still carries the memory operands LLVM
//! recorded, though — `MOV32jp … :: (store (s32) into %ir.1), (load (s16) from
//! %fixed-stack.1)` — so the check is exact: it flags every instruction whose
//! operation size (the 8/16/32 in its opcode) exceeds the size of a memory
//! operand it loads, and nothing else. (That also covers a latent relative in
//! the same file: `Mxloadi16`/`Mxloadi32` accept an any-extending load that is
//! aligned and not simple, e.g. volatile, as a full-width load — an x86 rule
//! that is wrong on a big-endian CPU.) No LLVM option avoids the fold without
//! harm: `-combiner-disabled`, which keeps extending loads from forming,
//! crashes LLVM on compiler_builtins ("Do not know how to soft promote this
//! operator's result"), and applied to the top crate only it turns off every
//! DAG combine and grows the corpus's code by 8 % (7744 → 8348 bytes).
//!
//! **Writing code safely.** Pass the value to be stored through a register:
//! `*p = m68k_palmos_sys::codegen::in_register(x as u32)`, an `asm!` with no
//! instruction and an `inout(reg_data)` operand. The store's value is then the asm's
//! output register, which cannot be folded; the cost is the register load the
//! correct code needs anyway. `core::hint::black_box(x as u32)` does **not**
//! help: it puts the value in a stack slot, and that store is folded the same
//! way (for narrow arguments, and at opt-level 2 and 3 for loads); volatile
//! accesses do not help either.

//!
//! # Bug 9: the overflow check of an 8/16-bit multiplication is dropped
//!
//! `u16::checked_mul`, `overflowing_mul`, `saturating_mul` (and the `u8`,
//! `i8`, `i16` forms) become `llvm.[us]mul.with.overflow.i8/i16`, which the
//! m68k backend lowers to a 16×16 `mulu`/`muls` and an overflow flag that is
//! always false: `300u16.checked_mul(300)` is `Some(24464)` (found by the
//! asm-repair pass's end-to-end test; seen with LLVM 23.1.4: the unsigned
//! i16 form is even selected as the *signed* `muls`). Nothing in the assembly
//! shows the lost check, so the IR check flags every call of those
//! intrinsics. **Writing code safely:** widen first and compare, e.g.
//! `u32::from(a) * u32::from(b)` then `u16::try_from(p).ok()`; the 32-bit
//! forms are repaired by m68k-asm-repair.

use std::collections::{BTreeMap, HashMap, HashSet};

/// Version of the checks: part of palm-build's cached verdict, so that a
/// verdict written by another version of the checks is not reused. Bump it
/// when [`scan_ir`] changes what it reports.
pub const CHECK_VERSION: u32 = 3;

/// The unrepairable LLVM m68k miscompilations the check knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bug {
    /// Bug 2: a variable-offset address into a stack array (the index is dropped).
    StackIndex,
    /// Bug 7: an 8/16-bit load, extended and stored, selected as one wide
    /// memory-to-memory move from the narrow value's address.
    WideMoveFromNarrowLoad,
    /// Bug 9: an 8/16-bit multiplication with overflow check, whose check
    /// the backend drops.
    NarrowMulOverflow,
}

/// How a [`Bug::WideMoveFromNarrowLoad`] finding's `instruction` starts (a
/// [`Bug::StackIndex`] finding's is an IR definition, `%… = getelementptr …`).
const MIR_PREFIX: &str = "MIR: ";
/// Separates the MIR instruction from the IR instruction it was selected from.
const IR_SEPARATOR: &str = " | IR: ";

/// One function that hits one of the bugs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The function's symbol as it appears in the dump (mangled).
    pub symbol: String,
    /// The demangled name (without hash), for messages.
    pub function: String,
    /// The first offending instruction, on one line. Bug 2: the IR
    /// instruction. Bug 7: `MIR: <machine instruction>[; <source location>]`,
    /// followed by ` | IR: <IR instruction>` when the IR it was selected from
    /// was found. [`Finding::bug`] tells the two apart.
    pub instruction: String,
}

impl Finding {
    /// Which bug this finding is about. It is derived from the form of
    /// [`Finding::instruction`], so that findings stored as three text columns
    /// (the build's verdict cache) keep it.
    pub fn bug(&self) -> Bug {
        if self.instruction.starts_with(MIR_PREFIX) {
            Bug::WideMoveFromNarrowLoad
        } else if narrow_mul_with_overflow(&self.instruction) {
            Bug::NarrowMulOverflow
        } else {
            Bug::StackIndex
        }
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.bug() {
            Bug::StackIndex => {
                write!(
                    f,
                    "`{}` indexes a stack array with a variable offset, which LLVM's m68k backend \
                     miscompiles (the index is dropped: llvm-project #200984).\n    IR: {}\n    \
                     Fix: take the array's address through `core::hint::black_box` before \
                     indexing (`m68k_palmos_sys::codegen::indexable`), or keep the buffer in a \
                     heap chunk.",
                    self.function, self.instruction
                )?;
                if self.function.contains("core::fmt") {
                    write!(
                        f,
                        "\n    This is core::fmt's own code: `write!`/`format_args!` cannot be used \
                         on this target (its number formatting uses stack buffers, and its \
                         `dyn Write` vtables need absolute relocations); format numbers yourself \
                         (StrIToA, or digits into a buffer)."
                    )
                } else {
                    write!(
                        f,
                        "\n    The indexing is not always visible in the source: an array repeat \
                         expression `[x; N]` or a copy of a local array may be compiled to a loop \
                         over it; build such arrays in a heap chunk (Box) or through `indexable`."
                    )
                }
            }
            Bug::NarrowMulOverflow => write!(
                f,
                "`{}` multiplies 8/16-bit values with an overflow check, which LLVM's m68k \
                 backend drops (the check is always false; LLVM m68k bug 9, see \
                 palm_build::ircheck).\n    IR: {}\n    Fix: widen first and compare: \
                 `u16::try_from(u32::from(a) * u32::from(b)).ok()` instead of \
                 `a.checked_mul(b)` (the 32-bit forms are repaired).",
                self.function, self.instruction
            ),
            Bug::WideMoveFromNarrowLoad => {
                let (mir, ir) = match self.instruction.split_once(IR_SEPARATOR) {
                    Some((mir, ir)) => (mir, Some(ir)),
                    None => (self.instruction.as_str(), None),
                };
                write!(
                    f,
                    "`{}` stores an 8/16-bit value widened to 16/32 bits with one \
                     memory-to-memory move of the wide size, which LLVM's m68k backend \
                     miscompiles: the move reads the wide size from the narrow value's address \
                     (wrong high bits; an address error at an odd address; LLVM m68k bug 7, \
                     see palm_build::ircheck).\n    {mir}",
                    self.function
                )?;
                if let Some(ir) = ir {
                    write!(f, "\n    IR:  {ir}")?;
                }
                write!(
                    f,
                    "\n    Fix: store `m68k_palmos_sys::codegen::in_register(x as u32)`: \
                     a value that comes out of an empty `asm!` cannot be folded into the \
                     store. `core::hint::black_box` and volatile accesses do not help."
                )
            }
        }
    }
}

/// Scans a dump of LLVM IR and machine IR (the text rustc prints to stderr
/// with `-C llvm-args=-print-after=codegenprepare,finalize-isel`, possibly with
/// other compiler output around it) and returns, sorted by symbol, one
/// finding per function and bug (its first offending instruction): functions
/// that index a stack array with a variable offset (bug 2, from the IR) and
/// functions with an instruction that operates on more bits than the memory
/// operand it loads (bug 7, from the machine IR). Functions printed more than
/// once (rustc runs codegen once per `--emit` kind) are reported once.
pub fn scan_ir(dump: &str) -> Vec<Finding> {
    let mut found: BTreeMap<(String, Bug), Finding> = BTreeMap::new();
    let mut ir_bodies: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut wide_moves: Vec<(&str, &str)> = Vec::new();
    let mut lines = dump.lines();
    while let Some(line) = lines.next() {
        if let Some(symbol) = define_symbol(line) {
            let body: Vec<&str> = lines
                .by_ref()
                .map(str::trim)
                .take_while(|l| *l != "}")
                .collect();
            let first_mul = body.iter().copied().find(|l| narrow_mul_with_overflow(l));
            for (bug, instruction) in [
                (Bug::StackIndex, first_stack_index(&body)),
                (Bug::NarrowMulOverflow, first_mul),
            ] {
                if let Some(instruction) = instruction {
                    found
                        .entry((symbol.to_string(), bug))
                        .or_insert_with(|| Finding {
                            function: demangle(symbol),
                            symbol: symbol.to_string(),
                            instruction: instruction.to_string(),
                        });
                }
            }
            ir_bodies.entry(symbol).or_insert(body);
        } else if let Some(symbol) = machine_function_symbol(line) {
            let mut first_bad = None;
            for body in lines.by_ref() {
                if body.starts_with("# End machine code for function") {
                    break;
                }
                let body = body.trim();
                if first_bad.is_none() && operates_wider_than_loaded(body) {
                    first_bad = Some(body);
                }
            }
            if let Some(mir) = first_bad {
                wide_moves.push((symbol, mir));
            }
        }
    }
    // The IR of a function may be printed before or after its machine IR.
    for (symbol, mir) in wide_moves {
        let ir = ir_bodies
            .get(symbol)
            .and_then(|body| selected_from(body, mir));
        let mut instruction = format!("{MIR_PREFIX}{}", without_debug_location(mir));
        if let Some(ir) = ir {
            instruction.push_str(IR_SEPARATOR);
            instruction.push_str(ir);
        }
        found
            .entry((symbol.to_string(), Bug::WideMoveFromNarrowLoad))
            .or_insert_with(|| Finding {
                function: demangle(symbol),
                symbol: symbol.to_string(),
                instruction,
            });
    }
    found.into_values().collect()
}

/// Bug 9: whether an IR line calls `llvm.umul.with.overflow`/
/// `llvm.smul.with.overflow` on `i8` or `i16`.
fn narrow_mul_with_overflow(line: &str) -> bool {
    ["@llvm.umul.with.overflow.i", "@llvm.smul.with.overflow.i"]
        .iter()
        .any(|name| {
            line.match_indices(name).any(|(at, _)| {
                let width = &line[at + name.len()..];
                let digits = width
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(width.len());
                matches!(&width[..digits], "8" | "16")
            })
        })
}

/// Bug 2: the first instruction of an IR function body (trimmed lines) that
/// computes a variable-offset address from an `alloca`.
fn first_stack_index<'a>(body: &[&'a str]) -> Option<&'a str> {
    let mut frame_based: HashSet<&str> = HashSet::new();
    for &line in body {
        let Some((dest, rhs)) = line.split_once(" = ") else {
            continue;
        };
        let dest = dest.trim();
        let rhs = rhs.trim();
        if rhs.starts_with("alloca ") {
            frame_based.insert(dest);
            continue;
        }
        if let Some((base, all_const)) = address_computation(rhs)
            && frame_based.contains(base)
        {
            if all_const {
                frame_based.insert(dest);
            } else {
                return Some(line);
            }
        }
    }
    None
}

/// `# Machine code for function NAME: PROPERTIES` → `NAME`.
fn machine_function_symbol(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("# Machine code for function ")?;
    match rest.rsplit_once(": ") {
        Some((name, _properties)) => Some(name),
        None => rest.trim_end().strip_suffix(':'),
    }
}

/// Bug 7: whether a machine instruction (`[defs =] OPCODE operands :: (memory
/// operands)[; location]`) operates on more bits than a memory operand it
/// loads. The operation size is the 8/16/32 after the mnemonic in M68k
/// opcode names (`MOV32jp`, `CMP16ji`); pseudos whose names carry two sizes
/// (`MOVZXd32j16`) have none and are skipped — they extend correctly.
fn operates_wider_than_loaded(mir: &str) -> bool {
    let Some((instruction, memory)) = mir.split_once(" :: ") else {
        return false;
    };
    let Some(width) = opcode_width(instruction) else {
        return false;
    };
    memory_operands(memory)
        .iter()
        .any(|op| op.loads && op.bits.is_some_and(|bits| bits < width))
}

/// The operation size of the first opcode-like token (the first word that
/// starts with an upper-case letter: defs are `%n:class` or `$reg`).
fn opcode_width(instruction: &str) -> Option<u32> {
    let opcode = instruction
        .split_whitespace()
        .find(|w| w.starts_with(|c: char| c.is_ascii_uppercase()))?;
    let after_mnemonic = &opcode[opcode.find(|c: char| !c.is_ascii_uppercase())?..];
    let digits = after_mnemonic
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(after_mnemonic.len());
    match &after_mnemonic[..digits] {
        "8" => Some(8),
        "16" => Some(16),
        "32" => Some(32),
        _ => None,
    }
}

/// One MIR memory operand: `(load (s16) from %ir.0, align 2)`.
struct MemoryOperand {
    /// `load` (or an atomic `load store`) rather than a plain `store`.
    loads: bool,
    /// `store`, not `load`.
    stores: bool,
    /// Size in bits (`s16` → 16); `None` for other forms (`unknown-size`).
    bits: Option<u32>,
    /// The IR value the access is based on: `%ir.1` → `%1`.
    ir_value: Option<String>,
}

/// Parses the memory operand list after ` :: ` (up to the `; location`).
fn memory_operands(memory: &str) -> Vec<MemoryOperand> {
    let mut operands = Vec::new();
    let mut depth = 0usize;
    let mut start = None;
    for (i, c) in memory.char_indices() {
        match c {
            '(' => {
                if depth == 0 {
                    start = Some(i + 1);
                }
                depth += 1;
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0
                    && let Some(s) = start.take()
                {
                    operands.push(memory_operand(&memory[s..i]));
                }
            }
            ';' if depth == 0 => break,
            _ => {}
        }
    }
    operands
}

fn memory_operand(text: &str) -> MemoryOperand {
    let (head, rest) = text.split_once('(').unwrap_or((text, ""));
    let words: Vec<&str> = head.split_whitespace().collect();
    let bits = rest
        .split_once(')')
        .and_then(|(size, _)| size.strip_prefix('s'))
        .and_then(|n| n.parse().ok());
    let ir_value = rest.split_once("%ir.").map(|(_, name)| {
        let end = name
            .find(|c: char| c == ',' || c == ')' || c.is_whitespace())
            .unwrap_or(name.len());
        format!("%{}", &name[..end])
    });
    MemoryOperand {
        loads: words.contains(&"load"),
        stores: words.contains(&"store"),
        bits,
        ir_value,
    }
}

/// The `N` of the `debug-location !N` operand of a machine instruction.
fn debug_location_id(mir: &str) -> Option<&str> {
    let rest = &mir[mir.find("debug-location !")? + "debug-location !".len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The machine instruction without its `debug-location !N` operand (the
/// `; file:line:column` LLVM appends says the same, readably).
fn without_debug_location(mir: &str) -> String {
    let Some(id) = debug_location_id(mir) else {
        return mir.to_string();
    };
    let token = format!("debug-location !{id}");
    mir.replacen(&format!(", {token}"), "", 1)
        .replacen(&token, "", 1)
}

/// The IR instruction a flagged machine instruction was selected from: the
/// IR store (or, for an instruction that does not store, the load) through
/// the pointer its memory operand names, preferring the one with the same
/// debug location. `None` when the function's IR has no such instruction.
fn selected_from<'a>(body: &[&'a str], mir: &str) -> Option<&'a str> {
    let (_, memory) = mir.split_once(" :: ")?;
    let operands = memory_operands(memory);
    let target = operands
        .iter()
        .find(|op| op.stores)
        .or_else(|| operands.iter().find(|op| op.loads))?;
    let keyword = if target.stores { "store" } else { "load" };
    let dbg = debug_location_id(mir).map(|id| format!("!dbg !{id}"));
    let mut best: Option<(u8, &str)> = None;
    for &line in body {
        let Some(pointer) = accessed_pointer(line, keyword) else {
            continue;
        };
        let same_pointer = target.ir_value.as_deref() == Some(pointer);
        let same_location = dbg
            .as_deref()
            .is_some_and(|d| line.split(", ").any(|part| part.trim() == d));
        let score = 2 * u8::from(same_pointer) + u8::from(same_location);
        if score > 0 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, line));
        }
    }
    best.map(|(_, line)| line)
}

/// The pointer operand of an IR `store …, ptr %p, …` (`keyword` "store") or
/// `%v = load …, ptr %p, …` (`keyword` "load").
fn accessed_pointer<'a>(line: &'a str, keyword: &str) -> Option<&'a str> {
    let access = match keyword {
        "store" => line,
        _ => line.split_once(" = ")?.1,
    };
    let mut rest = access.strip_prefix(keyword)?.strip_prefix(' ')?;
    for flag in ["atomic ", "volatile "] {
        rest = rest.strip_prefix(flag).unwrap_or(rest);
    }
    let operands = split_top_level(rest);
    operands
        .get(1)?
        .trim()
        .strip_prefix("ptr ")?
        .split_whitespace()
        .next()
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

    /// Real IR (nightly-2026-10-25, opt-level z) of
    /// `fn cm16(a: u16, b: u16) -> u32 { match a.checked_mul(b) { Some(x) => x as u32, None => !0 } }`,
    /// which compiles to `muls %d1,%d0` with no overflow check.
    const NARROW_MUL: &str = "define noundef i32 @cm16(i16 noundef zeroext %0, i16 noundef zeroext %1) unnamed_addr #1 {\n  \
        %3 = tail call { i16, i1 } @llvm.umul.with.overflow.i16(i16 %0, i16 %1)\n  \
        %4 = extractvalue { i16, i1 } %3, 1\n  ret i32 0\n}\n\
        define i32 @wide(i32 %0, i32 %1) {\n  \
        %3 = tail call { i32, i1 } @llvm.umul.with.overflow.i32(i32 %0, i32 %1)\n  ret i32 0\n}\n\
        define i32 @signed8(i8 %0, i8 %1) {\n  \
        %3 = tail call { i8, i1 } @llvm.smul.with.overflow.i8(i8 %0, i8 %1)\n  ret i32 0\n}\n";

    #[test]
    fn narrow_multiplications_with_overflow_are_flagged_and_32_bit_ones_are_not() {
        let found = scan_ir(NARROW_MUL);
        let names: Vec<(&str, Bug)> = found.iter().map(|f| (f.symbol.as_str(), f.bug())).collect();
        assert_eq!(
            names,
            vec![
                ("cm16", Bug::NarrowMulOverflow),
                ("signed8", Bug::NarrowMulOverflow)
            ]
        );
        assert!(
            found[0]
                .instruction
                .contains("@llvm.umul.with.overflow.i16")
        );
        assert!(
            found[0]
                .to_string()
                .contains("u16::try_from(u32::from(a) * u32::from(b))")
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
        assert!(
            found[0]
                .to_string()
                .contains("This is core::fmt's own code")
        );
        assert!(found[1].to_string().contains("array repeat expression"));
        assert_eq!(found[1].symbol, "weird name");
    }

    // Bug 7 fixtures: real output of nightly-2026-10-25 (LLVM 23.1.4), captured
    // from a scratch staticlib built like palm-build does (opt-level "z", fat
    // LTO, debug = 2, `TARGET_RUSTFLAGS`) with `cargo rustc --release --target
    // m68k-unknown-none-elf -Zbuild-std=core -- --emit=asm
    // -C llvm-args=-print-after=codegenprepare,finalize-isel 2> dump`. Lines
    // are copied unchanged; `CORRECT` leaves out frame and `DBG_VALUE` lines,
    // and `MASKED_LOAD` puts the IR after the machine IR (the order the check
    // must not depend on).

    /// `extern "C" fn st_arg_u16_u32(a: u16, p: *mut u32) { *p = a as u32 }`:
    /// the asm is `move.l (10,%a6),(%a0)`.
    const WIDEN_ARG: &str = r##"*** IR Dump After CodeGen Prepare (codegenprepare) ***
; Function Attrs: minsize mustprogress nofree noinline norecurse nosync nounwind optsize willreturn memory(argmem: write)
define void @st_arg_u16_u32(i16 noundef zeroext %0, ptr nofree noundef writeonly captures(none) initializes((0, 4)) %1) unnamed_addr #6 !dbg !1470 !guid !1474 {
    #dbg_value(i16 %0, !1472, !DIExpression(), !1475)
    #dbg_value(ptr %1, !1473, !DIExpression(), !1475)
  %3 = zext i16 %0 to i32, !dbg !1476
  store i32 %3, ptr %1, align 2, !dbg !1476
  ret void, !dbg !1477
}
# *** IR Dump After Finalize ISel and expand pseudo-instructions (finalize-isel) ***:
# Machine code for function st_arg_u16_u32: IsSSA, TracksLiveness
Frame Objects:
  fi#-2: size=4, align=4, fixed, at location [SP+8]
  fi#-1: size=2, align=2, fixed, at location [SP+6]
save/restore points:
save points are empty
restore points are empty

bb.0 (%ir-block.2):
  DBG_VALUE %fixed-stack.1, 0, !"a", !DIExpression(), debug-location !1475; src/lib.rs:0 line no:5
  DBG_VALUE %fixed-stack.0, 0, !"p", !DIExpression(), debug-location !1475; src/lib.rs:0 line no:5
  %0:ar32 = MOV32rp 0, %fixed-stack.0, implicit-def dead $ccr :: (load (s32) from %fixed-stack.0)
  MOV32jp killed %0:ar32, 0, %fixed-stack.1, implicit-def dead $ccr, debug-location !1476 :: (store (s32) into %ir.1, align 2), (load (s16) from %fixed-stack.1); src/lib.rs:9:42
  RET 0, debug-location !1477; src/lib.rs:5:117

# End machine code for function st_arg_u16_u32.
"##;

    /// `extern "C" fn st_ld_mask(q: *const u16, p: *mut u32) { *p = (*q as u32) & 0xff }`:
    /// the DAG combiner narrows the load to the low byte, `move.l (1,%a0),(%a1)`
    /// (an odd address).
    const MASKED_LOAD: &str = r##"# Machine code for function st_ld_mask: IsSSA, TracksLiveness
Frame Objects:
  fi#-2: size=4, align=4, fixed, at location [SP+8]
  fi#-1: size=4, align=8, fixed, at location [SP+4]
save/restore points:
save points are empty
restore points are empty

bb.0 (%ir-block.2):
  DBG_VALUE %fixed-stack.1, 0, !"q", !DIExpression(), debug-location !1760; src/lib.rs:0 line no:5
  DBG_VALUE %fixed-stack.0, 0, !"p", !DIExpression(), debug-location !1760; src/lib.rs:0 line no:5
  %0:ar32 = MOV32rp 0, %fixed-stack.1, implicit-def dead $ccr :: (load (s32) from %fixed-stack.1, align 8)
  %1:ar32 = MOV32rp 0, %fixed-stack.0, implicit-def dead $ccr :: (load (s32) from %fixed-stack.0)
  MOV32jp killed %1:ar32, 1, killed %0:ar32, implicit-def dead $ccr, debug-location !1762 :: (store (s32) into %ir.1, align 2), (load (s8) from %ir.0 + 1, basealign 2); src/lib.rs:72:45
  RET 0, debug-location !1763; src/lib.rs:5:117

# End machine code for function st_ld_mask.
define void @st_ld_mask(ptr nofree noundef readonly captures(none) %0, ptr nofree noundef writeonly captures(none) initializes((0, 4)) %1) unnamed_addr #4 !dbg !1755 !guid !1759 {
    #dbg_value(ptr %0, !1757, !DIExpression(), !1760)
    #dbg_value(ptr %1, !1758, !DIExpression(), !1760)
  %3 = load i16, ptr %0, align 2, !dbg !1761, !noundef !351
  %4 = and i16 %3, 255, !dbg !1762
  %5 = zext nneg i16 %4 to i32, !dbg !1762
  store i32 %5, ptr %1, align 2, !dbg !1762
  ret void, !dbg !1763
}
"##;

    /// Correct code, not flagged: the widened value is used twice (loaded
    /// into a register with the `MOVZXd32j16` pseudo); a 16-bit compare with
    /// a 16-bit load; and the safe way, `*p = in_register(u32::from(*q))`
    /// (the value stored comes out of an `INLINEASM`).
    const CORRECT: &str = r##"# Machine code for function st_ld_twice: IsSSA, TracksLiveness
bb.0 (%ir-block.3):
  %0:ar32 = MOV32rp 0, %fixed-stack.2, implicit-def dead $ccr :: (load (s32) from %fixed-stack.2, align 8)
  %1:dr32 = MOVZXd32j16 killed %0:ar32, implicit-def dead $ccr, debug-location !2112 :: (load (s16) from %ir.0); src/lib.rs:36:67
  %2:ar32 = MOV32rp 0, %fixed-stack.1, implicit-def dead $ccr :: (load (s32) from %fixed-stack.1)
  DBG_VALUE %1:dr32, $noreg, !"v", !DIExpression(), debug-location !2113; src/lib.rs:0 line no:36
  MOV32jr killed %2:ar32, %1:dr32, implicit-def dead $ccr, debug-location !2114 :: (store (s32) into %ir.1, align 2); src/lib.rs:36:78
  %3:ar32 = MOV32rp 0, %fixed-stack.0, implicit-def dead $ccr :: (load (s32) from %fixed-stack.0, align 8)
  MOV32jr killed %3:ar32, %1:dr32, implicit-def dead $ccr, debug-location !2115 :: (store (s32) into %ir.2, align 2); src/lib.rs:36:86
  RET 0, debug-location !2116; src/lib.rs:5:117

# End machine code for function st_ld_twice.
# Machine code for function tst_ld: IsSSA, TracksLiveness
bb.0 (%ir-block.1):
  %0:ar32 = MOV32rp 0, %fixed-stack.0, implicit-def dead $ccr :: (load (s32) from %fixed-stack.0, align 8)
  CMP16ji 0, killed %0:ar32, implicit-def $ccr, debug-location !2207 :: (load (s16) from %ir.0); src/lib.rs:53:36
  %1:dr8 = SETd8ne implicit $ccr, debug-location !2207; src/lib.rs:53:36
  RET 0, $d0, debug-location !2208; src/lib.rs:5:117

# End machine code for function tst_ld.
# Machine code for function widen_safely: IsSSA, TracksLiveness
bb.0 (%ir-block.2):
  %2:ar32 = MOV32rp 0, %fixed-stack.1, implicit-def dead $ccr :: (load (s32) from %fixed-stack.1, align 8)
  %1:dr32 = MOVZXd32j16 killed %2:ar32, implicit-def dead $ccr, debug-location !1086 :: (load (s16) from %ir.0); src/lib.rs:10:105
  INLINEASM &"/* ${0} */" [attdialect], $0:[regdef-ec:DR32], def early-clobber %0:dr32, $1:[reguse tiedto:$0], %1:dr32(tied-def 3), debug-location !1100; src/lib.rs:6:14 @[ src/lib.rs:10:83 ]
  %3:ar32 = MOV32rp 0, %fixed-stack.0, implicit-def dead $ccr :: (load (s32) from %fixed-stack.0)
  MOV32jr killed %3:ar32, %0:dr32, implicit-def dead $ccr, debug-location !1101 :: (store (s32) into %ir.1, align 2); src/lib.rs:10:78
  RET 0, debug-location !1102; src/lib.rs:10:113

# End machine code for function widen_safely.
"##;

    #[test]
    fn flags_a_narrow_argument_moved_wide_into_memory_with_its_ir_store() {
        let found = scan_ir(WIDEN_ARG);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].symbol, "st_arg_u16_u32");
        assert_eq!(found[0].bug(), Bug::WideMoveFromNarrowLoad);
        assert_eq!(
            found[0].instruction,
            "MIR: MOV32jp killed %0:ar32, 0, %fixed-stack.1, implicit-def dead $ccr :: \
             (store (s32) into %ir.1, align 2), (load (s16) from %fixed-stack.1); src/lib.rs:9:42 \
             | IR: store i32 %3, ptr %1, align 2, !dbg !1476"
        );
    }

    #[test]
    fn flags_a_load_the_dag_combiner_narrowed_and_finds_ir_printed_after_the_mir() {
        let found = scan_ir(MASKED_LOAD);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].function, "st_ld_mask");
        assert!(
            found[0]
                .instruction
                .starts_with("MIR: MOV32jp killed %1:ar32, 1,")
        );
        assert!(
            found[0]
                .instruction
                .ends_with("(load (s8) from %ir.0 + 1, basealign 2); src/lib.rs:72:45 | IR: store i32 %5, ptr %1, align 2, !dbg !1762"),
            "{}",
            found[0].instruction
        );
    }

    #[test]
    fn correct_widening_is_not_flagged() {
        assert!(scan_ir(CORRECT).is_empty());
    }

    #[test]
    fn both_bugs_are_reported_sorted_by_symbol_and_once_per_function() {
        let dump = format!("{WIDEN_ARG}{STACKARR}{MASKED_LOAD}{WIDEN_ARG}{CORRECT}");
        let found = scan_ir(&dump);
        let summary: Vec<(&str, Bug)> =
            found.iter().map(|f| (f.symbol.as_str(), f.bug())).collect();
        assert_eq!(
            summary,
            [
                ("st_arg_u16_u32", Bug::WideMoveFromNarrowLoad),
                ("st_ld_mask", Bug::WideMoveFromNarrowLoad),
                ("stackarr", Bug::StackIndex),
            ]
        );
    }

    #[test]
    fn without_the_ir_the_finding_has_the_machine_instruction_only() {
        let mir_only = &WIDEN_ARG[WIDEN_ARG.find("# *** IR Dump After Finalize").unwrap()..];
        let found = scan_ir(mir_only);
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .instruction
                .ends_with("(load (s16) from %fixed-stack.1); src/lib.rs:9:42")
        );
        assert!(!found[0].instruction.contains(" | IR: "));
        assert_eq!(found[0].bug(), Bug::WideMoveFromNarrowLoad);
    }

    #[test]
    fn the_message_names_function_instructions_and_the_safe_way() {
        let message = scan_ir(WIDEN_ARG)[0].to_string();
        assert!(
            message.starts_with("`st_arg_u16_u32` stores an 8/16-bit value widened"),
            "{message}"
        );
        assert!(
            message.contains("\n    MIR: MOV32jp killed %0:ar32"),
            "{message}"
        );
        assert!(
            message.contains("\n    IR:  store i32 %3, ptr %1, align 2, !dbg !1476\n"),
            "{message}"
        );
        assert!(
            message.contains("codegen::in_register(x as u32)"),
            "{message}"
        );
        let stack = scan_ir(STACKARR)[0].to_string();
        assert!(stack.contains("indexes a stack array"), "{stack}");
    }

    #[test]
    fn operation_sizes_come_from_real_opcode_names_and_skip_pseudos() {
        assert_eq!(
            opcode_width("MOV32jp killed %0:ar32, 0, %fixed-stack.1"),
            Some(32)
        );
        assert_eq!(opcode_width("%1:dr32 = MOV16dj killed %0:ar32"), Some(16));
        assert_eq!(opcode_width("CMP8ji 0, killed %0:ar32"), Some(8));
        assert_eq!(opcode_width("%1:dr32 = MOVZXd32j16 killed %2:ar32"), None);
        assert_eq!(opcode_width("DBG_VALUE %1:dr32, $noreg"), None);
        assert_eq!(opcode_width("RET 0"), None);
    }

    #[test]
    fn volatile_and_post_register_allocation_forms_are_flagged() {
        // From the same build printed after the last machine pass
        // (`-print-after=stack-frame-layout`): physical registers.
        for line in [
            "MOV32jj killed $a1, killed $a0, implicit-def dead $ccr :: (store (s32) into %ir.1, align 2), (volatile load (s16) from %ir.0)",
            "MOV32ff 0, killed $a1, killed $d0, 0, killed $a0, killed $d1, implicit-def dead $ccr :: (store (s32) into %ir.6, align 2), (load (s16) from %ir.4)",
            "MOV16jp killed $a0, 11, $a6, implicit-def dead $ccr :: (store (s16) into %ir.1), (load (s8) from %fixed-stack.2)",
        ] {
            assert!(operates_wider_than_loaded(line), "{line}");
        }
        for line in [
            "MOV16jp killed $a1, 2, killed $a0, implicit-def dead $ccr :: (store (s16) into %ir.1), (load (s16) from %ir.0 + 2)",
            "MOV32jr killed $a0, killed $d0, implicit-def dead $ccr :: (store (s32) into %ir.1, align 2)",
            "MOV32jr $sp, killed $d0, implicit-def dead $ccr :: (store (s32) into stack, align 2)",
        ] {
            assert!(!operates_wider_than_loaded(line), "{line}");
        }
    }
}
