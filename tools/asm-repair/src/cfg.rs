//! Functions, their control-flow graphs, and condition-code liveness.
//!
//! A function starts at a non-local label in a code section and runs to the
//! next one (or a section change). Its instructions are split into basic
//! blocks at labels and after every branch, jump or return; successors come
//! from `Bcc`/`DBcc`/`BRA`/`JMP` targets. A computed `jmp` (jump table)
//! conservatively gets every label of the function whose address is taken
//! anywhere in the file (the `.long .LBBx-.LJTIy` table entries). A branch
//! to a symbol outside the function is a tail call: the callee clobbers the
//! condition codes, so nothing is live after it. Calls (`jsr`, `bsr`,
//! `trap`) define every flag and `rts` ends liveness.
//!
//! Liveness is the usual backward dataflow over the five flags:
//! `live_in = reads | (live_out & !defs)`, iterated to a fixed point.

use std::collections::{HashMap, HashSet};

use crate::isa::{self, Effects, Flow};
use crate::parse::{Line, Operand, Stmt};

/// One function of the input.
#[derive(Debug, Default)]
pub(crate) struct Function {
    /// Its symbol as written (empty for code before any label).
    pub name: String,
    /// Line index of each instruction, in order.
    pub insns: Vec<usize>,
    /// Effects of each instruction (`None`: not an MC68000 mnemonic).
    pub effects: Vec<Option<Effects>>,
    /// True for the copies and constant materializations LLVM inserts after
    /// instruction selection (register-allocator copies, spills, reloads,
    /// rematerialized constants) whose flags it never uses, outside inline
    /// asm: `move`/`moveq` to a data register or memory, and the `not.b` of
    /// its `moveq #~K,%dN` + `not.b %dN` expansion of a constant 128..255.
    /// Liveness treats them as not touching CCR; the pass makes those after
    /// which N/Z/V/C are live flag-neutral.
    pub copy_like: Vec<bool>,
    /// True for code LLVM compiled (it ends with a `.Lfunc_endN` label).
    /// Naked functions and `global_asm!` are printed as file-scope asm
    /// without `;APP` markers and without that label: hand-written code,
    /// whose moves may set flags on purpose, so none is copy-like there.
    pub compiled: bool,
    /// True for each instruction inside inline asm (between `;APP` and
    /// `;NO_APP`): the user's, kept exactly as written.
    pub in_asm: Vec<bool>,
    /// Label name → index into `insns` of the instruction it precedes.
    labels: HashMap<String, usize>,
    /// Numeric local labels (`1:`) in definition order.
    numeric: Vec<(String, usize)>,
}

impl Function {
    /// The instruction index a branch at `at` to `target` lands on, if the
    /// label is defined in this function (`.LBBx`, or `1b`/`1f`).
    pub(crate) fn resolve(&self, at: usize, target: &str) -> Option<usize> {
        let b = target.as_bytes();
        if b.len() >= 2 && b[..b.len() - 1].iter().all(u8::is_ascii_digit) {
            let name = &target[..target.len() - 1];
            return match b[b.len() - 1] {
                b'b' => self
                    .numeric
                    .iter()
                    .rev()
                    .find(|(n, p)| n == name && *p <= at)
                    .map(|(_, p)| *p),
                b'f' => self
                    .numeric
                    .iter()
                    .find(|(n, p)| n == name && *p > at)
                    .map(|(_, p)| *p),
                _ => None,
            };
        }
        self.labels.get(target).copied()
    }
}

/// The parsed file split into functions.
#[derive(Debug)]
pub(crate) struct Program {
    /// Functions in file order.
    pub functions: Vec<Function>,
    /// For each line, the function it belongs to.
    pub line_function: Vec<Option<usize>>,
    /// Labels whose address is used other than as a branch target.
    address_taken: HashSet<String>,
}

fn is_local_label(name: &str) -> bool {
    name.starts_with(".L") || name.bytes().all(|b| b.is_ascii_digit())
}

/// `1b`/`1f`: a reference to a numeric local label.
fn is_numeric_ref(name: &str) -> bool {
    name.len() >= 2
        && name.ends_with(['b', 'f'])
        && name[..name.len() - 1].bytes().all(|b| b.is_ascii_digit())
}

fn is_numeric(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit())
}

fn section_is_code(args: &str) -> bool {
    let mut parts = args.split(',').map(str::trim);
    let name = parts.next().unwrap_or("").trim_matches('"');
    let flags = parts.next().unwrap_or("").trim_matches('"');
    name == ".text" || name.starts_with(".text.") || (flags.contains('x') && !flags.is_empty())
}

fn identifiers(s: &str, out: &mut HashSet<String>) {
    let mut start = None;
    for (i, c) in s.char_indices() {
        let ident = c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$';
        match (ident, start) {
            (true, None) => start = Some(i),
            (false, Some(st)) => {
                out.insert(s[st..i].to_string());
                start = None;
            }
            _ => {}
        }
    }
    if let Some(st) = start {
        out.insert(s[st..].to_string());
    }
}

/// `Some(true)` for LLVM's `;APP` line (inline asm follows), `Some(false)` for
/// `;NO_APP`.
pub(crate) fn asm_marker(text: &str) -> Option<bool> {
    let t = text.trim_start().trim_start_matches([';', '#', '|']).trim();
    match t {
        "APP" => Some(true),
        "NO_APP" => Some(false),
        _ => None,
    }
}

impl Program {
    pub(crate) fn build(lines: &[Line<'_>]) -> Program {
        let mut functions: Vec<Function> = Vec::new();
        let mut line_function = vec![None; lines.len()];
        let mut address_taken = HashSet::new();
        let mut current: Option<usize> = None;
        // GNU as starts in .text.
        let mut in_code = true;
        let mut in_asm = false;
        // The previous instruction, if no label came after it.
        let mut previous_insn: Option<&crate::parse::Insn> = None;
        let mut section_stack: Vec<bool> = Vec::new();
        let mut previous = false;

        for (li, line) in lines.iter().enumerate() {
            if let Some(m) = asm_marker(line.text) {
                in_asm = m;
            }
            if let Some(label) = line.label {
                previous_insn = None;
                if in_code && !is_local_label(label) {
                    functions.push(Function {
                        name: label.trim_matches('"').to_string(),
                        ..Function::default()
                    });
                    current = Some(functions.len() - 1);
                } else if in_code {
                    let f = current.get_or_insert_with(|| {
                        functions.push(Function::default());
                        functions.len() - 1
                    });
                    let func = &mut functions[*f];
                    let pos = func.insns.len();
                    if label
                        .strip_prefix(".Lfunc_end")
                        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                    {
                        func.compiled = true;
                    }
                    if is_numeric(label) {
                        func.numeric.push((label.to_string(), pos));
                    } else {
                        func.labels.insert(label.to_string(), pos);
                    }
                }
            }
            match &line.stmt {
                Stmt::Directive { name, args } => {
                    let was = in_code;
                    match *name {
                        ".section" => in_code = section_is_code(args),
                        ".text" => in_code = true,
                        ".data" | ".bss" | ".rodata" => in_code = false,
                        ".pushsection" => {
                            section_stack.push(in_code);
                            in_code = section_is_code(args);
                        }
                        ".popsection" => in_code = section_stack.pop().unwrap_or(false),
                        ".previous" => in_code = previous,
                        // Data that can hold a label's address (jump tables).
                        ".long" | ".short" | ".word" | ".int" | ".byte" | ".2byte" | ".4byte"
                        | ".8byte" | ".quad" | ".set" | ".equ" | "=" => {
                            identifiers(args, &mut address_taken);
                        }
                        _ => {}
                    }
                    if matches!(
                        *name,
                        ".section" | ".text" | ".data" | ".bss" | ".rodata" | ".pushsection"
                    ) || matches!(*name, ".popsection" | ".previous")
                    {
                        previous = was;
                        current = None;
                    }
                }
                Stmt::Insn(insn) => {
                    let f = *current.get_or_insert_with(|| {
                        functions.push(Function::default());
                        functions.len() - 1
                    });
                    let eff = isa::effects(insn);
                    // Copies are either made flag-neutral (when flags are
                    // live after them) or do not matter, so for liveness they
                    // never define CCR. Treating them as defining it would
                    // hide the earlier of two copies in a row between a
                    // compare and its branch.
                    // (Made transparent at the end, for compiled code.)
                    let copy_like = !in_asm
                        && (isa::is_ccr_move(insn)
                            || isa::is_byte_constant_not(previous_insn, insn));
                    let is_branch = matches!(
                        eff.as_ref().map(|e| &e.flow),
                        Some(Flow::Cond(_) | Flow::Jump(_))
                    );
                    if !is_branch {
                        for op in &insn.operands {
                            if let Operand::Disp { disp, .. }
                            | Operand::Index { disp, .. }
                            | Operand::Imm(disp)
                            | Operand::Abs(disp) = op
                            {
                                identifiers(&disp.text, &mut address_taken);
                            }
                        }
                    }
                    let func = &mut functions[f];
                    func.insns.push(li);
                    func.effects.push(eff);
                    func.copy_like.push(copy_like);
                    func.in_asm.push(in_asm);
                    previous_insn = Some(insn);
                }
                Stmt::Empty => {}
            }
            line_function[li] = current;
        }
        for f in &mut functions {
            for (copy, eff) in f.copy_like.iter_mut().zip(&mut f.effects) {
                if !f.compiled {
                    *copy = false;
                } else if *copy && let Some(e) = eff.as_mut() {
                    e.defs = 0;
                }
            }
        }
        Program {
            functions,
            line_function,
            address_taken,
        }
    }

    /// Flags live after each instruction of `f` (indexed like `f.insns`).
    pub(crate) fn live_after(&self, f: &Function) -> Vec<u8> {
        let n = f.insns.len();
        if n == 0 {
            return Vec::new();
        }
        // Basic blocks.
        let mut leader = vec![false; n];
        leader[0] = true;
        for &p in f.labels.values().chain(f.numeric.iter().map(|(_, p)| p)) {
            if p < n {
                leader[p] = true;
            }
        }
        for (i, e) in f.effects.iter().enumerate() {
            let ends = match e {
                Some(e) => !matches!(e.flow, Flow::Next | Flow::Call),
                None => false,
            };
            if ends && i + 1 < n {
                leader[i + 1] = true;
            }
        }
        let starts: Vec<usize> = (0..n).filter(|&i| leader[i]).collect();
        let mut block_of = vec![0usize; n];
        for (b, &s) in starts.iter().enumerate() {
            let end = starts.get(b + 1).copied().unwrap_or(n);
            for slot in &mut block_of[s..end] {
                *slot = b;
            }
        }
        let nb = starts.len();
        let block_end = |b: usize| starts.get(b + 1).copied().unwrap_or(n);

        // Targets of computed jumps: address-taken labels of this function.
        let indirect: Vec<usize> = f
            .labels
            .iter()
            .filter(|(name, p)| **p < n && self.address_taken.contains(name.as_str()))
            .map(|(_, &p)| block_of[p])
            .collect();

        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); nb];
        // Flags assumed live at a block's exit beyond its known successors:
        // a branch to a local label this function does not define (which
        // LLVM never emits) is treated as reading every flag.
        let mut unknown = vec![0u8; nb];
        for (b, s) in succs.iter_mut().enumerate() {
            let last = block_end(b) - 1;
            let fall = if last + 1 < n {
                Some(block_of[last + 1])
            } else {
                None
            };
            let mut to = |t: &str| match f.resolve(last, t) {
                Some(p) if p < n => Some(block_of[p]),
                // The label ends the function: nothing follows.
                Some(_) => None,
                None => {
                    if is_local_label(t) || is_numeric_ref(t) {
                        unknown[b] = isa::ALL;
                    }
                    // Otherwise a tail call: the callee clobbers CCR.
                    None
                }
            };
            match f.effects[last].as_ref().map(|e| &e.flow) {
                // Unknown instructions are reported as errors; keep going.
                None | Some(Flow::Next | Flow::Call) => s.extend(fall),
                Some(Flow::Cond(t)) => {
                    s.extend(to(t));
                    s.extend(fall);
                }
                Some(Flow::Jump(t)) => s.extend(to(t)),
                Some(Flow::Indirect) => s.extend(indirect.iter().copied()),
                Some(Flow::Return | Flow::Halt) => {}
            }
        }

        // Per-instruction transfer: unknown instructions read everything.
        let transfer = |i: usize, live: u8| -> u8 {
            match &f.effects[i] {
                Some(e) => e.reads | (live & !e.defs),
                None => isa::ALL,
            }
        };
        let mut live_in = vec![0u8; nb];
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..nb).rev() {
                let mut live = succs[b].iter().fold(unknown[b], |acc, &s| acc | live_in[s]);
                for i in (starts[b]..block_end(b)).rev() {
                    live = transfer(i, live);
                }
                if live != live_in[b] {
                    live_in[b] = live;
                    changed = true;
                }
            }
        }
        let mut after = vec![0u8; n];
        for b in 0..nb {
            let mut live = succs[b].iter().fold(unknown[b], |acc, &s| acc | live_in[s]);
            for i in (starts[b]..block_end(b)).rev() {
                after[i] = live;
                live = transfer(i, live);
            }
        }
        after
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{C, N, X, Z};
    use crate::parse::parse_lines;

    /// Liveness in `src`, a compiled function (a `.Lfunc_end0` label is added).
    fn live(src: &str) -> Vec<u8> {
        let src = format!("{src}.Lfunc_end0:\n");
        let lines = parse_lines(&src);
        let p = Program::build(&lines);
        assert_eq!(p.functions.len(), 1);
        p.live_after(&p.functions[0])
    }

    #[test]
    fn straight_line_and_branches() {
        let l = live(
            "\t.text\nf:\n\tsub.l\t%d4, %d7\n\tmove.l\t%d6, %d5\n\tbpl\t.L7\n\tmoveq\t#0, %d5\n.L7:\n\trts\n",
        );
        // sub, move, bpl, moveq, rts: N from sub.l is read by bpl across the
        // copy (which the pass makes flag-neutral).
        assert_eq!(l, vec![N, N, 0, 0, 0]);
    }

    #[test]
    fn loop_carries_liveness_backwards() {
        let l = live(
            "\t.text\nf:\n.L1:\n\tcmpi.l\t#0, %d1\n\tmove.l\t%d2, %d3\n\tbeq\t.L2\n\tadd.l\t#-1, %d1\n\tbra\t.L1\n.L2:\n\trts\n",
        );
        assert_eq!(l, vec![Z, Z, 0, 0, 0, 0]);
    }

    #[test]
    fn x_flows_through_moves_and_calls_kill() {
        let l = live(
            "\t.text\nf:\n\tadd.l\t%d1, %d3\n\tmove.l\t%d5, %d6\n\taddx.l\t%d2, %d6\n\tjsr\t(g,%pc)\n\tbcs\t.L1\n.L1:\n\trts\n",
        );
        assert_eq!(l, vec![X, X, 0, C, 0, 0]);
    }

    #[test]
    fn jump_table_targets_are_successors() {
        let src = "\t.text\nf:\n\tcmpi.l\t#3, %d0\n\tmove.l\t%d1, %d2\n\tjmp\t(%a2)\n.LBB0_2:\n\tbcs\t.LBB0_3\n.LBB0_3:\n\trts\n.Lfunc_end0:\n\t.section\t.rodata,\"a\",@progbits\n.LJTI0_0:\n\t.long\t.LBB0_2-.LJTI0_0\n";
        let l = live(src);
        assert_eq!(l[0], C);
        assert_eq!(l[1], C);
    }

    #[test]
    fn copies_in_a_row_are_all_transparent() {
        let l = live(
            "\t.text\nf:\n\tsub.l\t%d1, %d0\n\tmove.l\t%d2, %d3\n\tmoveq\t#1, %d4\n\tbcs\t.L1\n.L1:\n\trts\n",
        );
        assert_eq!(l, vec![C, C, C, 0, 0]);
        // Inside inline asm a move is the user's and sets the flags.
        let l = live(
            "\t.text\nf:\n\tsub.l\t%d1, %d0\n\t;APP\n\tmove.l\t%d2, %d3\n\t;NO_APP\n\tbcs\t.L1\n.L1:\n\trts\n",
        );
        assert_eq!(l, vec![0, C, 0, 0]);
        // LLVM's expansion of a constant 128..255: moveq #~K + not.b.
        let l = live(
            "\t.text\nf:\n\tsub.l\t%d1, %d0\n\tmoveq\t#55, %d3\n\tnot.b\t%d3\n\tbcs\t.L1\n.L1:\n\trts\n",
        );
        assert_eq!(l, vec![C, C, C, 0, 0]);
        // A not.b of something else is a real operation.
        let l = live(
            "\t.text\nf:\n\tsub.l\t%d1, %d0\n\tmoveq\t#55, %d2\n\tnot.b\t%d3\n\tbcs\t.L1\n.L1:\n\trts\n",
        );
        assert_eq!(l, vec![0, 0, C, 0, 0]);
    }

    #[test]
    fn hand_written_code_keeps_its_moves() {
        // No .Lfunc_endN: file-scope asm (naked function, global_asm!).
        let src = "z:\n\tmove.l\t(4,%sp), %d0\n\tbeq\t.Ltmp0\n\tmoveq\t#1, %d0\n.Ltmp0:\n\trts\n\t.section\t.text.f,\"ax\",@progbits\nf:\n\tmove.l\t%d1, %d0\n.Lfunc_end0:\n";
        let lines = parse_lines(src);
        let p = Program::build(&lines);
        assert_eq!(p.functions.len(), 2);
        assert_eq!(p.functions[0].name, "z");
        assert!(!p.functions[0].compiled);
        assert_eq!(p.functions[0].copy_like, [false, false, false, false]);
        assert_eq!(p.live_after(&p.functions[0]), [Z, 0, 0, 0]);
        assert!(p.functions[1].compiled);
        assert_eq!(p.functions[1].copy_like, [true]);
    }

    #[test]
    fn tail_call_ends_liveness() {
        let l = live("\t.text\nf:\n\tcmpi.l\t#3, %d0\n\tmove.l\t%d1, %d2\n\tbra\tother_function\n");
        assert_eq!(l, vec![0, 0, 0]);
        // An unknown local label: assume everything is read there.
        let l = live("\t.text\nf:\n\tcmpi.l\t#3, %d0\n\tmove.l\t%d1, %d2\n\tbra\t.Lnowhere\n");
        assert_eq!(l, vec![isa::ALL, isa::ALL, isa::ALL]);
        let l = live("\t.text\nf:\n\tcmpi.l\t#3, %d0\n\tmove.l\t%d1, %d2\n\tbne\t1f\n\trts\n");
        assert_eq!(l[1], isa::ALL);
    }
}
