//! Build-time checks for the LLVM m68k miscompilations that cannot be
//! repaired in the assembly: bug 2 of `docs/TOOLCHAIN.md`, and bugs 7, 9
//! and 16 found while building this project (described below).
//!
//! rustc prints, with `-C llvm-args=-print-after=codegenprepare,finalize-isel`
//! (added by [`crate::cargo`], for the program and for compiler_builtins),
//! every function twice: as LLVM IR just before instruction selection, and as
//! machine IR (MIR) just after it. [`scan_ir`] reads that dump and reports
//! each function that hits one of the bugs, with the offending instruction;
//! the build fails on any function that survives linking, and a finding in
//! core, alloc or compiler_builtins names the program's function that reaches
//! it ([`Finding::reached_from`], filled in by [`crate::callers`]).
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
//! **Root cause** (llvm-project, `llvm/lib/Target/M68k/M68kISelDAGToDAG.cpp`).
//! `matchAddressRecursively` matches `(add FrameIndex, X)` by taking the frame
//! index as the base (`Base::FrameIndexBase`) and `X` as an index register
//! (`matchAddressBase` stores it in `IndexReg`, since `hasIndexReg()` is false
//! for a frame-index base); `SelectARID` then returns the frame index and the
//! displacement (`getFrameIndexAddress`) without looking at `IndexReg`. Every
//! load or store whose address is "frame object + variable" is selected as
//! `(d16, frame object)`, and the variable is gone.
//!
//! The same fold hits two things the IR check cannot see, so the machine IR is
//! checked too: every load and store that addresses a frame object (`%stack.N`,
//! `%fixed-stack.N`) must say in its memory operand where in the object it
//! goes — the object itself plus a constant, or an IR pointer that is an
//! `alloca` or an argument plus constant offsets. A memory operand naming an
//! IR pointer with a variable offset is bug 2 (this catches indexing into a
//! `byval` argument, a struct passed by value to an `extern "C"` function,
//! which is a frame object without an `alloca`); one with no IR pointer at
//! all is bug 16.
//!
//! # Bug 16: a 128-bit shift staged in a stack slot at a variable offset
//!
//! **What goes wrong.** A 128-bit shift by a variable amount (`a << n` on
//! `u128`/`i128`) is legalized by LLVM's `DAGTypeLegalizer::
//! ExpandIntRes_ShiftThroughStack` (the default `preferredShiftLegalization
//! Strategy` for a type that must be split twice, i128 into i32s): the value
//! is stored into a 32-byte stack temporary next to 16 zero bytes, and loaded
//! back from "temporary + (n / 32) × 4" (left shifts, on a big-endian target)
//! or "temporary + 16 − (n / 32) × 4" (right shifts), then shifted by `n % 32`.
//! The left shift's address is "frame index + variable", which bug 2's fold
//! turns into the temporary's start: `1u128 << 127` is `1 << 31` (measured
//! in the differential corpus: 3,570 of 5,320 calls of `a << (b & 127)`
//! wrong). The right shifts'
//! address is a subtraction, which the fold does not match, so `>>` and
//! arithmetic `>>` are correct (and are not flagged); rotations are expanded
//! as funnel shifts without a stack slot. u64 shifts are `SHL_PARTS`, also
//! unaffected. The temporary is created during instruction selection, so the
//! IR shows only `shl i128`; in the machine IR the loads still carry the
//! legalizer's memory operand, which names no IR value (`(load (s32) from
//! unknown-address + 12)`, or `(load (s32))` for offset 0): the check flags
//! every frame-object access whose memory operand has no pointer.
//!
//! **What else reaches it.** compiler_builtins' 128-bit routines shift 128-bit
//! values by variable amounts themselves, so its machine IR is checked as
//! well (measured with the pinned toolchain): `u128_div_rem`, behind
//! `__udivti3`, `__umodti3`, `__divti3`, `__modti3` (u128/i128 `/` and `%`:
//! calls that never return); the `u128`/`i128` to `f32`/`f64` conversions;
//! every f128 operation; and libm's `fmod` (an f64 `%` compiles to a call of
//! it) and `hypot`. A finding there names the program's function whose calls
//! reach it.
//!
//! **Writing code safely.** `m68k_palmos_sys::codegen::shl_u128` for a
//! variable left shift (of an i128: `shl_u128(x as u128, n) as i128`),
//! `codegen::u128_div_rem` / `i128_div_rem` for 128-bit division and
//! remainder (all on u64 halves); shifts by constants, right shifts,
//! rotations, multiplication and the bit counts compile correctly.
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
pub const CHECK_VERSION: u32 = 4;

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
    /// Bug 16: an access at a variable offset into a stack temporary that
    /// instruction selection created (a 128-bit shift by a variable amount),
    /// whose offset is dropped like bug 2's.
    StackTemporaryIndex,
}

impl Bug {
    /// The bug's number in `docs/TOOLCHAIN.md` (also its code in the build's
    /// verdict cache).
    pub fn number(self) -> u32 {
        match self {
            Bug::StackIndex => 2,
            Bug::WideMoveFromNarrowLoad => 7,
            Bug::NarrowMulOverflow => 9,
            Bug::StackTemporaryIndex => 16,
        }
    }

    /// The bug numbered `n` in `docs/TOOLCHAIN.md`, if the check knows it.
    pub fn from_number(n: u32) -> Option<Bug> {
        [
            Bug::StackIndex,
            Bug::WideMoveFromNarrowLoad,
            Bug::NarrowMulOverflow,
            Bug::StackTemporaryIndex,
        ]
        .into_iter()
        .find(|b| b.number() == n)
    }
}

/// How an `instruction` from the machine IR starts (one from the IR is an
/// IR instruction, `%… = getelementptr …`).
const MIR_PREFIX: &str = "MIR: ";
/// Separates the MIR instruction from the IR instruction it was selected from.
const IR_SEPARATOR: &str = " | IR: ";

/// How many of a finding's [`Finding::reached_from`] chains its message shows.
pub const CHAINS_SHOWN: usize = 8;

/// One function that hits one of the bugs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The function's symbol as it appears in the dump (mangled).
    pub symbol: String,
    /// The demangled name (without hash), for messages.
    pub function: String,
    /// Which bug.
    pub bug: Bug,
    /// The first offending instruction, on one line: an IR instruction, or
    /// `MIR: <machine instruction>[; <source location>]` followed by
    /// ` | IR: <IR instruction>` when the IR it was selected from was found.
    pub instruction: String,
    /// For a function of core, alloc or compiler_builtins: one chain per
    /// function of the program that reaches it: that function, then the
    /// functions in between, in call order (`[app::f, core::fmt::write]` for
    /// `app::f` → `core::fmt::write` → this function). Empty for the
    /// program's own functions and when no caller is known; [`scan_ir`]
    /// leaves it empty ([`crate::callers`] fills it).
    pub reached_from: Vec<Vec<String>>,
}

impl Finding {
    /// `` `function` ``, followed by ` (reached from `f` via `g` → `h`; from
    /// …)` when [`Finding::reached_from`] is known (at most
    /// [`CHAINS_SHOWN`] chains, then how many more).
    fn subject(&self) -> String {
        let mut s = format!("`{}`", self.function);
        let chains: Vec<String> = self
            .reached_from
            .iter()
            .take(CHAINS_SHOWN)
            .filter_map(|chain| {
                let (user, via) = chain.split_first()?;
                let mut text = format!("`{user}`");
                if !via.is_empty() {
                    let via: Vec<String> = via.iter().map(|f| format!("`{f}`")).collect();
                    text += &format!(" via {}", via.join(" → "));
                }
                Some(text)
            })
            .collect();
        if !chains.is_empty() {
            s += &format!(" (reached from {}", chains.join("; from "));
            let more = self.reached_from.len().saturating_sub(CHAINS_SHOWN);
            if more > 0 {
                s += &format!("; and from {more} more function(s)");
            }
            s.push(')');
        }
        s
    }

    /// The machine instruction and, when known, the IR instruction, as
    /// message lines (`\n    MIR: …\n    IR:  …`).
    fn instruction_lines(&self) -> String {
        match self.instruction.split_once(IR_SEPARATOR) {
            Some((mir, ir)) => format!("\n    {mir}\n    IR:  {ir}"),
            None if self.instruction.starts_with(MIR_PREFIX) => {
                format!("\n    {}", self.instruction)
            }
            None => format!("\n    IR: {}", self.instruction),
        }
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (subject, lines) = (self.subject(), self.instruction_lines());
        match self.bug {
            Bug::StackIndex => {
                write!(
                    f,
                    "{subject} indexes a stack array (or an argument passed by value) with a \
                     variable offset, which LLVM's m68k backend miscompiles (the index is \
                     dropped: llvm-project #200984).{lines}\n    \
                     Fix: take the array's address through `core::hint::black_box` before \
                     indexing (`m68k_palmos_sys::codegen::indexable`), or keep the buffer in a \
                     heap chunk."
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
                "{subject} multiplies 8/16-bit values with an overflow check, which LLVM's m68k \
                 backend drops (the check is always false; LLVM m68k bug 9, see \
                 palm_build::ircheck).{lines}\n    Fix: widen first and compare: \
                 `u16::try_from(u32::from(a) * u32::from(b)).ok()` instead of \
                 `a.checked_mul(b)` (the 32-bit forms are repaired)."
            ),
            Bug::WideMoveFromNarrowLoad => write!(
                f,
                "{subject} stores an 8/16-bit value widened to 16/32 bits with one \
                 memory-to-memory move of the wide size, which LLVM's m68k backend \
                 miscompiles: the move reads the wide size from the narrow value's address \
                 (wrong high bits; an address error at an odd address; LLVM m68k bug 7, \
                 see palm_build::ircheck).{lines}\n    \
                 Fix: store `m68k_palmos_sys::codegen::in_register(x as u32)`: \
                 a value that comes out of an empty `asm!` cannot be folded into the \
                 store. `core::hint::black_box` and volatile accesses do not help."
            ),
            Bug::StackTemporaryIndex => write!(
                f,
                "{subject} reads a stack temporary at a variable offset that LLVM's m68k \
                 backend drops: a 128-bit shift by a variable amount, staged in a stack slot \
                 during instruction selection (wrong results, or 128-bit divisions that never \
                 return; LLVM m68k bug 16, see palm_build::ircheck).{lines}\n    \
                 Fix: `m68k_palmos_sys::codegen::shl_u128(x, n)` for `x << n` on u128/i128, \
                 `codegen::u128_div_rem`/`i128_div_rem` for 128-bit `/` and `%` (compiler_\
                 builtins' __udivti3 & co. shift 128-bit values themselves); avoid 128-bit \
                 integer/float conversions, f128 and f64 `%` (fmod). Right shifts, rotations, \
                 multiplication and shifts by constants are correct."
            ),
        }
    }
}

/// Scans a dump of LLVM IR and machine IR (the text rustc prints to stderr
/// with `-C llvm-args=-print-after=codegenprepare,finalize-isel`, possibly with
/// other compiler output around it) and returns, sorted by symbol, one
/// finding per function and bug (its first offending instruction): functions
/// that index a stack array with a variable offset (bug 2, from the IR, and
/// from the machine IR's frame-object accesses), that multiply 8/16-bit values
/// with an overflow check (bug 9, IR), with an instruction that operates on
/// more bits than the memory operand it loads (bug 7, machine IR), or with a
/// frame-object access whose memory operand names no pointer (bug 16, machine
/// IR). Functions printed more than once (rustc runs codegen once per
/// `--emit` kind) are reported once.
pub fn scan_ir(dump: &str) -> Vec<Finding> {
    let mut found: BTreeMap<(String, Bug), Finding> = BTreeMap::new();
    // Every printing of each function's IR, in order: rustc may print a
    // function twice (once per `--emit` kind) with its values numbered
    // differently, and a machine function's memory operands name the values
    // of the IR printed just before it.
    let mut ir_functions: HashMap<&str, Vec<IrFunction<'_>>> = HashMap::new();
    // (symbol, which printing of its IR goes with it, bug, machine instruction)
    let mut machine_findings: Vec<(&str, usize, Bug, &str)> = Vec::new();
    let mut frame_accesses: Vec<(&str, usize, &str, &str)> = Vec::new();
    let add = |found: &mut BTreeMap<(String, Bug), Finding>, symbol: &str, bug, instruction| {
        found
            .entry((symbol.to_string(), bug))
            .or_insert_with(|| Finding {
                function: demangle(symbol),
                symbol: symbol.to_string(),
                bug,
                instruction,
                reached_from: Vec::new(),
            });
    };
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
                (Bug::StackIndex, first_stack_index(line, &body)),
                (Bug::NarrowMulOverflow, first_mul),
            ] {
                if let Some(instruction) = instruction {
                    add(&mut found, symbol, bug, instruction.to_string());
                }
            }
            ir_functions
                .entry(symbol)
                .or_default()
                .push(IrFunction::new(line, body));
        } else if let Some(symbol) = machine_function_symbol(line) {
            // The IR printed last before it, or the first one printed after.
            let version = ir_functions
                .get(symbol)
                .map_or(0, |v| v.len().saturating_sub(1));
            let (mut wide_move, mut lost_pointer) = (None, None);
            for body in lines.by_ref() {
                if body.starts_with("# End machine code for function") {
                    break;
                }
                let body = body.trim();
                if wide_move.is_none() && operates_wider_than_loaded(body) {
                    wide_move = Some(body);
                }
                for pointer in frame_access_pointers(body) {
                    match pointer {
                        Pointer::Unknown => {
                            lost_pointer.get_or_insert(body);
                        }
                        Pointer::Ir(value) => frame_accesses.push((symbol, version, body, value)),
                        Pointer::Frame | Pointer::Other => {}
                    }
                }
            }
            if let Some(mir) = wide_move {
                machine_findings.push((symbol, version, Bug::WideMoveFromNarrowLoad, mir));
            }
            if let Some(mir) = lost_pointer {
                machine_findings.push((symbol, version, Bug::StackTemporaryIndex, mir));
            }
        }
    }
    // The IR of a function may be printed before or after its machine IR.
    let ir_of = |symbol: &str, version: usize| {
        ir_functions
            .get(symbol)
            .and_then(|v| v.get(version).or(v.last()))
    };
    for (symbol, version, mir, value) in frame_accesses {
        let variable = ir_of(symbol, version)
            .is_some_and(|ir| ir.frame_offset_is_constant(value) == Some(false));
        if variable {
            machine_findings.push((symbol, version, Bug::StackIndex, mir));
        }
    }
    for (symbol, version, bug, mir) in machine_findings {
        let ir = ir_of(symbol, version).and_then(|ir| match bug {
            // The access names no IR value: the IR to show is the shift.
            Bug::StackTemporaryIndex => wide_shift(&ir.body, mir),
            _ => selected_from(&ir.body, mir),
        });
        let mut instruction = format!("{MIR_PREFIX}{}", without_debug_location(mir));
        if let Some(ir) = ir {
            instruction.push_str(IR_SEPARATOR);
            instruction.push_str(ir);
        }
        add(&mut found, symbol, bug, instruction);
    }
    found.into_values().collect()
}

/// Whether `dump` holds compiler_builtins' machine IR (a machine function
/// with the crate in its mangled name), which cargo replays from its output
/// cache when compiler_builtins is up to date: without it, compiler_builtins'
/// routines would go unchecked.
pub fn dumps_compiler_builtins(dump: &str) -> bool {
    dump.lines()
        .filter_map(machine_function_symbol)
        .any(|symbol| symbol.contains("17compiler_builtins"))
}

/// One function of the IR dump.
struct IrFunction<'a> {
    /// The argument names, without `%`.
    arguments: Vec<&'a str>,
    /// The body, trimmed lines.
    body: Vec<&'a str>,
    /// Value name (without `%`) → the right-hand side of its definition.
    definitions: HashMap<&'a str, &'a str>,
}

impl<'a> IrFunction<'a> {
    fn new(define: &'a str, body: Vec<&'a str>) -> IrFunction<'a> {
        let definitions = body
            .iter()
            .filter_map(|l| l.split_once(" = "))
            .filter_map(|(dest, rhs)| Some((dest.trim().strip_prefix('%')?, rhs.trim())))
            .collect();
        IrFunction {
            arguments: arguments(define)
                .into_iter()
                .map(|(name, _)| name)
                .collect(),
            body,
            definitions,
        }
    }

    /// Whether the IR value `value` (`5` for `%5`) is a frame object plus constant
    /// offsets: an `alloca` or an argument (a `byval` argument is a frame
    /// object) reached through constant `getelementptr`s. `Some(false)` for a
    /// variable offset or a pointer of another kind (a `select` or `phi`,
    /// which instruction selection may fold into a frame index plus a variable
    /// too); `None` when `value` is not defined in the function.
    fn frame_offset_is_constant(&self, value: &str) -> Option<bool> {
        let mut value = value;
        // A chain of constant offsets is short; the bound only stops cycles.
        for _ in 0..64 {
            let Some(rhs) = self.definitions.get(value) else {
                return self.arguments.contains(&value).then_some(true);
            };
            if rhs.starts_with("alloca ") {
                return Some(true);
            }
            match address_computation(rhs) {
                Some((base, true)) => match base.strip_prefix('%') {
                    Some(base) => value = base,
                    None => return Some(false),
                },
                _ => return Some(false),
            }
        }
        Some(false)
    }
}

/// The arguments of an IR `define` line: (name without `%`, the argument's
/// text with its type and attributes).
fn arguments(define: &str) -> Vec<(&str, &str)> {
    let Some(open) = define
        .find(" @")
        .and_then(|at| define[at..].find('(').map(|p| at + p))
    else {
        return Vec::new();
    };
    let mut depth = 0usize;
    let mut end = define.len();
    for (i, c) in define[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    end = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    split_top_level(&define[open + 1..end])
        .into_iter()
        .filter_map(|a| Some((a.split_whitespace().last()?.strip_prefix('%')?, a)))
        .collect()
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
/// computes a variable-offset address from an `alloca` or a `byval` argument
/// of the function (`define` line).
fn first_stack_index<'a>(define: &str, body: &[&'a str]) -> Option<&'a str> {
    let mut frame_based: HashSet<&str> = HashSet::new();
    let byval: Vec<String> = arguments(define)
        .into_iter()
        .filter(|(_, text)| text.contains(" byval("))
        .map(|(name, _)| format!("%{name}"))
        .collect();
    frame_based.extend(byval.iter().map(String::as_str));
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
struct MemoryOperand<'a> {
    /// `load` (or an atomic `load store`) rather than a plain `store`.
    loads: bool,
    /// `store`, not `load`.
    stores: bool,
    /// Size in bits (`s16` → 16); `None` for other forms (`unknown-size`).
    bits: Option<u32>,
    /// What the access is based on.
    pointer: Pointer<'a>,
}

/// What a MIR memory operand says its access is based on (the word after
/// `from`, `into` or `on`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pointer<'a> {
    /// A frame object: `%stack.0 + 12`, `%fixed-stack.1`.
    Frame,
    /// An IR value, without `%`: `%ir.5` → `5`.
    Ir(&'a str),
    /// Nothing: `(load (s32))`, `unknown-address + 4`, or the `stack`
    /// pseudo-value (which names no object).
    Unknown,
    /// Anything else: a global, the constant pool, a jump table, the GOT, ….
    Other,
}

/// Parses the memory operand list after ` :: ` (up to the `; location`).
fn memory_operands(memory: &str) -> Vec<MemoryOperand<'_>> {
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

fn memory_operand(text: &str) -> MemoryOperand<'_> {
    let (head, rest) = text.split_once('(').unwrap_or((text, ""));
    let words: Vec<&str> = head.split_whitespace().collect();
    let (size, after_size) = rest.split_once(')').unwrap_or((rest, ""));
    let bits = size.strip_prefix('s').and_then(|n| n.parse().ok());
    let base = after_size
        .split_whitespace()
        .skip_while(|w| !matches!(*w, "from" | "into" | "on"))
        .nth(1)
        .map(|w| w.trim_end_matches([',', ')']));
    let pointer = match base {
        None | Some("unknown-address" | "stack") => Pointer::Unknown,
        Some(b) if b.starts_with("%stack.") || b.starts_with("%fixed-stack.") => Pointer::Frame,
        Some(b) => b.strip_prefix("%ir.").map_or(Pointer::Other, Pointer::Ir),
    };
    MemoryOperand {
        loads: words.contains(&"load"),
        stores: words.contains(&"store"),
        bits,
        pointer,
    }
}

/// Bugs 2 and 16: for a machine instruction that loads or stores through a
/// frame object (an address operand `%stack.N` or `%fixed-stack.N`), what
/// the memory operands of those accesses are based on; empty for other
/// instructions. In a memory-to-memory `MOV`, the destination's operands come
/// first and go with the `store` memory operand, the source's with the
/// `load`; other instructions access one address.
fn frame_access_pointers(mir: &str) -> Vec<Pointer<'_>> {
    let Some((instruction, memory)) = mir.split_once(" :: ") else {
        return Vec::new();
    };
    let uses = instruction
        .split_once(" = ")
        .map_or(instruction, |(_, u)| u);
    let Some((opcode, operands)) = uses.trim().split_once(' ') else {
        return Vec::new();
    };
    let frame_operands: Vec<usize> = operands
        .split(", ")
        .enumerate()
        .filter(|(_, op)| {
            let op = op.trim();
            op.starts_with("%stack.") || op.starts_with("%fixed-stack.")
        })
        .map(|(i, _)| i)
        .collect();
    if frame_operands.is_empty() {
        return Vec::new();
    }
    let memory = memory_operands(memory);
    let both = memory.iter().any(|m| m.stores) && memory.iter().any(|m| m.loads && !m.stores);
    // (whether the destination, whether the source is a frame object)
    let sides = destination_operands(opcode).filter(|_| both).map(|n| {
        (
            frame_operands.iter().any(|&i| i < n),
            frame_operands.iter().any(|&i| i >= n),
        )
    });
    memory
        .iter()
        .filter(|m| match sides {
            Some((dst, src)) => (dst && m.stores) || (src && m.loads && !m.stores),
            None => true,
        })
        .map(|m| m.pointer)
        .collect()
}

/// For a memory-to-memory `MOV<size><dst><src>` (`MOV32pp`, `MOV16jp`): how
/// many MIR operands the destination's addressing mode takes (`j` (An), `o`
/// (An)+, `e` -(An), `b` abs: 1; `p` (d16,An): 2; `f` (d8,An,Xn): 3).
fn destination_operands(opcode: &str) -> Option<usize> {
    let modes = opcode
        .strip_prefix("MOV")?
        .trim_start_matches(|c: char| c.is_ascii_digit());
    let count = |mode| match mode {
        'j' | 'o' | 'e' | 'b' | 'q' => Some(1),
        'p' | 'k' => Some(2),
        'f' => Some(3),
        _ => None,
    };
    let mut chars = modes.chars();
    let (dst, src) = (chars.next()?, chars.next()?);
    (chars.next().is_none() && count(src).is_some()).then_some(())?;
    count(dst)
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
        let same_pointer = target.pointer == Pointer::Ir(pointer.trim_start_matches('%'));
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

/// Bug 16: the IR shift a flagged machine instruction was legalized from: a
/// `shl`/`lshr`/`ashr` of an integer wider than 64 bits, preferring the one
/// with the same debug location. `None` when the body has none.
fn wide_shift<'a>(body: &[&'a str], mir: &str) -> Option<&'a str> {
    let dbg = debug_location_id(mir).map(|id| format!("!dbg !{id}"));
    let shifts = body.iter().copied().filter(|line| {
        line.split_once(" = ").is_some_and(|(_, rhs)| {
            let mut words = rhs.split_whitespace();
            let op = words.next();
            // Flags (`nuw`, `exact`, …) come before the type.
            let ty = words.find(|w| w.starts_with('i'));
            matches!(op, Some("shl" | "lshr" | "ashr"))
                && ty
                    .and_then(|t| t[1..].parse::<u32>().ok())
                    .is_some_and(|bits| bits > 64)
        })
    });
    let mut first = None;
    for line in shifts {
        if dbg
            .as_deref()
            .is_some_and(|d| line.split(", ").any(|part| part.trim() == d))
        {
            return Some(line);
        }
        first.get_or_insert(line);
    }
    first
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
        let names: Vec<(&str, Bug)> = found.iter().map(|f| (f.symbol.as_str(), f.bug)).collect();
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
        assert_eq!(found[0].bug, Bug::WideMoveFromNarrowLoad);
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
        let summary: Vec<(&str, Bug)> = found.iter().map(|f| (f.symbol.as_str(), f.bug)).collect();
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
        assert_eq!(found[0].bug, Bug::WideMoveFromNarrowLoad);
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

    // Bug 16 fixtures: real output of nightly-2026-10-25 (LLVM 23.1.4) for
    // `unsafe extern "C" fn shl128(a: *const u128, b: u32, out: *mut u128) {
    // *out = *a << (b & 127) }` and the same with `>>` (`shr128`), built like
    // the bug 7 fixtures. Lines copied unchanged; `DBG_VALUE`s, the frame
    // table and most of the 32-bit shifting between the loads left out.
    const SHL128: &str = r##"define dso_local void @shl128(ptr nofree noundef readonly captures(none) %0, i32 noundef %1, ptr nofree noundef writeonly captures(none) initializes((0, 16)) %2) unnamed_addr #1 !dbg !1095 !guid !1102 {
  %4 = load i128, ptr %0, align 4, !dbg !1104, !noundef !348
  %5 = and i32 %1, 127, !dbg !1105
  %6 = zext nneg i32 %5 to i128, !dbg !1106
  %7 = shl i128 %4, %6, !dbg !1106
  store i128 %7, ptr %2, align 4, !dbg !1106
  ret void, !dbg !1107
}
# Machine code for function shl128: IsSSA, TracksLiveness
bb.0 (%ir-block.3):
  %0:ar32 = MOV32rp 0, %fixed-stack.2, implicit-def dead $ccr :: (load (s32) from %fixed-stack.2, align 8)
  MOV32pp 12, %stack.0, 12, %0:ar32, implicit-def dead $ccr, debug-location !1106 :: (store (s32) into %stack.0 + 12, basealign 8), (load (s32) from %ir.0 + 12); src/lib.rs:4:14
  MOV32pj 0, %stack.0, %0:ar32, implicit-def dead $ccr, debug-location !1106 :: (store (s32) into %stack.0, align 8), (load (s32) from %ir.0); src/lib.rs:4:14
  MOV32pi 28, %stack.0, 0, implicit-def dead $ccr, debug-location !1106 :: (store (s32) into %stack.0 + 28, basealign 8); src/lib.rs:4:14
  %1:xr32 = MOV32rp 0, %fixed-stack.1, implicit-def dead $ccr :: (load (s32) from %fixed-stack.1)
  %5:dr32 = MOV32rp 12, %stack.0, implicit-def dead $ccr, debug-location !1106 :: (load (s32) from unknown-address + 12); src/lib.rs:4:14
  %13:dr32 = MOV32rp 0, %stack.0, implicit-def dead $ccr, debug-location !1106 :: (load (s32)); src/lib.rs:4:14
  MOV32jr %12:ar32, killed %18:dr32, implicit-def dead $ccr, debug-location !1106 :: (store (s32) into %ir.2); src/lib.rs:4:14
  RET 0, debug-location !1107; src/lib.rs:5:2

# End machine code for function shl128.
# Machine code for function shr128: IsSSA, TracksLiveness
bb.0 (%ir-block.3):
  %0:ar32 = MOV32rp 0, %fixed-stack.2, implicit-def dead $ccr :: (load (s32) from %fixed-stack.2, align 8)
  MOV32pp 28, %stack.0, 12, %0:ar32, implicit-def dead $ccr, debug-location !1117 :: (store (s32) into %stack.0 + 28, basealign 8), (load (s32) from %ir.0 + 12); src/lib.rs:8:14
  %1:ar32 = LEA32p 0, %stack.0
  %3:dr32 = COPY %1:ar32, debug-location !1117; src/lib.rs:8:14
  %2:dr32 = ADD32di %3:dr32(tied-def 0), 16, implicit-def dead $ccr, debug-location !1117; src/lib.rs:8:14
  %8:dr32 = SUB32dd %2:dr32(tied-def 0), killed %7:dr32, implicit-def dead $ccr, debug-location !1117; src/lib.rs:8:14
  %11:ar32 = COPY %8:dr32, debug-location !1117; src/lib.rs:8:14
  %10:dr32 = MOV32rp 4, %11:ar32, implicit-def dead $ccr, debug-location !1117 :: (load (s32) from unknown-address + 4); src/lib.rs:8:14
  %19:dr32 = MOV32rj %20:ar32, implicit-def dead $ccr, debug-location !1117 :: (load (s32)); src/lib.rs:8:14
  RET 0, debug-location !1118; src/lib.rs:9:2

# End machine code for function shr128.
"##;

    #[test]
    fn a_frame_object_read_without_a_pointer_is_bug_16_and_names_the_shift() {
        let found = scan_ir(SHL128);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].symbol.as_str(), found[0].bug),
            ("shl128", Bug::StackTemporaryIndex)
        );
        assert_eq!(
            found[0].instruction,
            "MIR: %5:dr32 = MOV32rp 12, %stack.0, implicit-def dead $ccr :: (load (s32) from \
             unknown-address + 12); src/lib.rs:4:14 | IR: %7 = shl i128 %4, %6, !dbg !1106"
        );
        let message = found[0].to_string();
        assert!(
            message.starts_with("`shl128` reads a stack temporary"),
            "{message}"
        );
        assert!(message.contains("LLVM m68k bug 16"), "{message}");
        assert!(message.contains("codegen::shl_u128(x, n)"), "{message}");
    }

    #[test]
    fn which_memory_operand_goes_with_the_frame_object() {
        // Memory to memory: the destination's operands come first.
        for (mir, pointers) in [
            (
                "MOV32pp 12, %stack.0, 12, %0:ar32 :: (store (s32) into %stack.0 + 12), (load (s32) from %ir.0 + 12)",
                vec![Pointer::Frame],
            ),
            (
                "MOV32jp killed %1:ar32, 0, %fixed-stack.1 :: (store (s32) into unknown-address), (load (s32) from %fixed-stack.1)",
                vec![Pointer::Frame],
            ),
            (
                "MOV32pp 0, %stack.1, 4, %stack.2 :: (store (s32) into %ir.3), (load (s32))",
                vec![Pointer::Ir("3"), Pointer::Unknown],
            ),
            // One address: every memory operand (read-modify-write).
            (
                "ADD32pd 4, %stack.0, %1:dr32 :: (store (s32) into %stack.0 + 4), (load (s32) from %stack.0 + 4)",
                vec![Pointer::Frame, Pointer::Frame],
            ),
            (
                "%5:dr32 = MOV32rp 12, %stack.0 :: (load (s32) from unknown-address + 12)",
                vec![Pointer::Unknown],
            ),
            (
                "%5:dr32 = MOV32rp 8, %stack.3 :: (load (s32) from @table)",
                vec![Pointer::Other],
            ),
            // Not a frame object, or no memory operand.
            (
                "%10:dr32 = MOV32rp 4, %11:ar32 :: (load (s32) from unknown-address + 4)",
                vec![],
            ),
            ("%1:ar32 = LEA32p 0, %stack.0", vec![]),
        ] {
            assert_eq!(frame_access_pointers(mir), pointers, "{mir}");
        }
    }

    /// Real output (as above) of `extern "C" fn byval_index(s: S, i: u32) ->
    /// u32 { s.a[(i % 6) as usize] }` with `#[repr(C)] struct S { a: [u32;
    /// 6] }`: `s` is a `byval` frame object, and the load reads `s.a[0]`.
    const BYVAL: &str = r##"define dso_local noundef i32 @byval_index(ptr noalias nofree noundef readonly byval([24 x i8]) align 2 captures(none) dereferenceable(24) %0, i32 noundef %1) unnamed_addr #3 !dbg !2002 !guid !2012 {
  %3 = urem i32 %1, 6, !dbg !2015
  %4 = getelementptr inbounds nuw [4 x i8], ptr %0, i32 %3, !dbg !2016
  %5 = load i32, ptr %4, align 2, !dbg !2016, !noundef !24
  ret i32 %5, !dbg !2017
}
# Machine code for function byval_index: IsSSA, TracksLiveness
bb.0 (%ir-block.2):
  %0:xr32 = MOV32rp 0, %fixed-stack.1, implicit-def dead $ccr, debug-location !2016 :: (load (s32) from %ir.4, align 2); src/lib.rs:7:5
  $d0 = COPY %0:xr32, debug-location !2017; src/lib.rs:8:2
  RET 0, $d0, debug-location !2017; src/lib.rs:8:2

# End machine code for function byval_index.
"##;

    #[test]
    fn a_by_value_argument_indexed_with_a_variable_is_bug_2_in_the_ir_and_the_mir() {
        let found = scan_ir(BYVAL);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].bug, Bug::StackIndex);
        assert_eq!(
            found[0].instruction,
            "%4 = getelementptr inbounds nuw [4 x i8], ptr %0, i32 %3, !dbg !2016"
        );
        // Without the `byval` attribute the IR check does not know %0 is a
        // frame object; the machine IR still shows the access through it.
        let found = scan_ir(&BYVAL.replace(" byval([24 x i8])", ""));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].bug, Bug::StackIndex);
        assert!(
            found[0].instruction.starts_with(
                "MIR: %0:xr32 = MOV32rp 0, %fixed-stack.1, implicit-def dead $ccr :: (load (s32) from %ir.4"
            ),
            "{}",
            found[0].instruction
        );
        assert!(
            found[0]
                .instruction
                .ends_with(" | IR: %5 = load i32, ptr %4, align 2, !dbg !2016, !noundef !24")
        );
    }

    /// From memdbg's test app (nightly-2026-10-25): rustc prints the function
    /// twice, numbering its values differently; each machine function names
    /// the values of the IR printed before it (`%31` is the array's field in
    /// the second printing, a pointer made from an integer in the first).
    const TWO_PRINTINGS: &str = "define internal fastcc i32 @f() {
  %1 = alloca [12 x i8], align 2
  %31 = inttoptr i32 %3 to ptr, !dbg !2561
  %32 = getelementptr inbounds nuw i8, ptr %1, i32 4, !dbg !2591
}
# Machine code for function f: IsSSA, TracksLiveness
  MOV32pi 4, %stack.0, 328192, implicit-def dead $ccr, debug-location !2591 :: (store (s32) into %ir.32, align 2); memdbg/tests/app/src/lib.rs:332:16
# End machine code for function f.
define internal fastcc i32 @f() {
  %1 = alloca [12 x i8], align 2
  %30 = inttoptr i32 %3 to ptr, !dbg !2561
  %31 = getelementptr inbounds nuw i8, ptr %1, i32 4, !dbg !2591
}
# Machine code for function f: IsSSA, TracksLiveness
  MOV32pi 4, %stack.0, 328192, implicit-def dead $ccr, debug-location !2591 :: (store (s32) into %ir.31, align 2); memdbg/tests/app/src/lib.rs:332:16
# End machine code for function f.
";

    #[test]
    fn each_machine_function_is_read_with_the_ir_printed_before_it() {
        assert_eq!(scan_ir(TWO_PRINTINGS), []);
    }

    #[test]
    fn frame_pointers_are_followed_through_constant_offsets_only() {
        let define = "define void @f(ptr byval([8 x i8]) %0, i32 %1) {";
        let body = vec![
            "%3 = alloca [16 x i8], align 2",
            "%4 = getelementptr inbounds i8, ptr %3, i32 4",
            "%5 = getelementptr inbounds i8, ptr %4, i32 %1",
            "%6 = select i1 true, ptr %3, ptr %4",
            "%7 = getelementptr inbounds i8, ptr %0, i32 2",
        ];
        let f = IrFunction::new(define, body);
        for (value, constant) in [
            ("3", Some(true)),
            ("4", Some(true)),
            ("5", Some(false)),
            ("6", Some(false)),
            ("7", Some(true)),
            ("0", Some(true)),
            ("99", None),
        ] {
            assert_eq!(f.frame_offset_is_constant(value), constant, "%{value}");
        }
    }

    #[test]
    fn compiler_builtins_machine_ir_is_recognised() {
        let dump = "# Machine code for function _RNvNtNtCs5qFkoRgjmxS_17compiler_builtins3int4udiv9___udivti3: IsSSA\n";
        assert!(dumps_compiler_builtins(dump));
        assert!(!dumps_compiler_builtins(SHL128));
    }

    #[test]
    fn verdict_codes_are_the_documented_bug_numbers() {
        for bug in [
            Bug::StackIndex,
            Bug::WideMoveFromNarrowLoad,
            Bug::NarrowMulOverflow,
            Bug::StackTemporaryIndex,
        ] {
            assert_eq!(Bug::from_number(bug.number()), Some(bug));
        }
        assert_eq!(Bug::StackTemporaryIndex.number(), 16);
        assert_eq!(Bug::from_number(3), None);
    }

    #[test]
    fn a_library_finding_names_the_programs_functions_that_reach_it() {
        let mut finding = scan_ir(STACKARR).remove(0);
        finding.function = "<u32 as core::fmt::LowerHex>::fmt".into();
        finding.reached_from = vec![
            vec!["app::show".into()],
            vec!["app::log".into(), "core::fmt::write".into()],
        ];
        let message = finding.to_string();
        assert!(
            message.starts_with(
                "`<u32 as core::fmt::LowerHex>::fmt` (reached from `app::show`; from `app::log` \
                 via `core::fmt::write`) indexes a stack array"
            ),
            "{message}"
        );
        finding.reached_from = (0..CHAINS_SHOWN + 2)
            .map(|i| vec![format!("app::f{i}")])
            .collect();
        assert!(
            finding
                .to_string()
                .contains("; and from 2 more function(s))")
        );
    }
}
