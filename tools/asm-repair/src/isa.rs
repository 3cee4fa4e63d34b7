//! What the MC68000 does with the condition codes, per instruction, and which
//! instruction forms it does not have.
//!
//! Flags are bit masks in CCR bit order: X=0x10, N=0x08, Z=0x04, V=0x02, C=0x01.

use crate::parse::{Base, Insn, Operand, Reg, Size};

/// Carry.
pub(crate) const C: u8 = 0x01;
/// Overflow.
pub(crate) const V: u8 = 0x02;
/// Zero.
pub(crate) const Z: u8 = 0x04;
/// Negative.
pub(crate) const N: u8 = 0x08;
/// Extend.
pub(crate) const X: u8 = 0x10;
/// The four flags that MOVE writes.
pub(crate) const NZVC: u8 = N | Z | V | C;
/// All five flags.
pub(crate) const ALL: u8 = X | NZVC;

/// How control leaves an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Falls through to the next instruction.
    Next,
    /// Conditional branch or DBcc: the target or the next instruction.
    Cond(String),
    /// Unconditional direct jump (`bra`, `jmp (label,%pc)`).
    Jump(String),
    /// Computed jump (`jmp (%a0)`): jump tables.
    Indirect,
    /// Subroutine call or trap: returns to the next instruction, CCR clobbered.
    Call,
    /// `rts`/`rte`/`rtr`.
    Return,
    /// `illegal`: control does not continue.
    Halt,
}

/// Condition-code effects of one instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Effects {
    /// Flags the instruction reads.
    pub reads: u8,
    /// Flags the instruction always overwrites (whatever their previous value).
    pub defs: u8,
    /// Where control goes next.
    pub flow: Flow,
}

impl Effects {
    fn new(reads: u8, defs: u8) -> Effects {
        Effects {
            reads,
            defs,
            flow: Flow::Next,
        }
    }
}

/// A repair an instruction needs before GNU as `-m68000` accepts it (or
/// before a 68000 runs it correctly).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Needs {
    /// Nothing.
    Nothing,
    /// An address register used where the 68000 only allows a data register
    /// (`and.l #65535,%a2`): swap it with a free data register around the
    /// instruction.
    AddrRegOperand,
    /// 68020 `mulu.l`/`muls.l` with a 32-bit result: call a helper.
    MulLong { signed: bool },
    /// 68020 `extb.l`: `ext.w` + `ext.l`.
    Extb,
    /// A branch written with the 68020 `.l` size: drop it and let gas relax.
    LongBranch,
    /// `link.l` whose displacement fits in 16 bits.
    LinkLong,
    /// `move.w`/`adda.w`/`suba.w`/`cmpa.w` of an immediate printed as
    /// 32768–65535 to an address register: LLVM means the zero-extended
    /// 32-bit value, the 68000 sign-extends. Use the `.l` form.
    AddrWordImm,
    /// Not repairable here; the reason.
    Unsupported(String),
}

/// The condition a Bcc/DBcc/Scc tests, as the flags it reads.
fn cond_reads(cc: &str) -> Option<u8> {
    Some(match cc {
        "t" | "f" | "ra" => 0,
        "hi" | "ls" => C | Z,
        "cc" | "hs" | "cs" | "lo" => C,
        "ne" | "eq" => Z,
        "vc" | "vs" => V,
        "pl" | "mi" => N,
        "ge" | "lt" => N | V,
        "gt" | "le" => N | Z | V,
        _ => return None,
    })
}

/// Target label of a branch operand.
fn target(op: Option<&Operand>) -> Option<String> {
    match op? {
        Operand::Abs(e) => Some(e.text.clone()),
        Operand::Disp {
            disp,
            base: Base::Pc,
        } => Some(disp.text.clone()),
        _ => None,
    }
}

fn is_areg(op: Option<&Operand>) -> bool {
    matches!(op, Some(Operand::Reg(Reg::A(_))))
}

/// The condition-code effects of `insn`, or `None` for a mnemonic the
/// MC68000 does not have.
pub(crate) fn effects(insn: &Insn) -> Option<Effects> {
    let m = insn.mnemonic.as_str();
    // GNU as' `jbcc` is `bcc` with the shortest displacement that reaches.
    let m = match m.strip_prefix('j') {
        Some(b) if b.starts_with('b') && b != "bsr" => b,
        _ => m,
    };
    let ops = &insn.operands;
    let dst = ops.last();
    let src = ops.first();
    let byte = insn.size == Some(Size::B);
    let e = match m {
        // Moves.
        "move" | "movea" => {
            if matches!(dst, Some(Operand::Ccr | Operand::Sr)) {
                Effects::new(0, ALL)
            } else if matches!(src, Some(Operand::Sr | Operand::Ccr)) {
                Effects::new(ALL, 0)
            } else if m == "movea"
                || matches!(src, Some(Operand::Usp))
                || matches!(dst, Some(Operand::Usp))
                || (is_areg(dst) && !byte)
            {
                Effects::new(0, 0)
            } else {
                Effects::new(0, NZVC)
            }
        }
        "moveq" => Effects::new(0, NZVC),
        "movem" | "movep" | "lea" | "pea" | "exg" | "link" | "unlk" | "nop" | "reset" => {
            Effects::new(0, 0)
        }
        // Arithmetic.
        "add" | "sub" | "addq" | "subq" if is_areg(dst) && !byte => Effects::new(0, 0),
        "adda" | "suba" => Effects::new(0, 0),
        "add" | "sub" | "addi" | "subi" | "addq" | "subq" | "neg" => Effects::new(0, ALL),
        // Z is only cleared (never set) by the extended ops: it passes through.
        "addx" | "subx" | "negx" => Effects::new(X, X | N | V | C),
        "abcd" | "sbcd" | "nbcd" => Effects::new(X, X | N | V | C),
        "cmp" | "cmpa" | "cmpi" | "cmpm" | "tst" | "tas" | "clr" | "not" | "ext" | "swap"
        | "muls" | "mulu" | "divs" | "divu" | "chk" => Effects::new(0, NZVC),
        "and" | "or" | "eor" | "andi" | "ori" | "eori" => {
            if matches!(dst, Some(Operand::Ccr | Operand::Sr)) {
                // Changes some flags, keeps the others: read all, kill none.
                Effects::new(ALL, 0)
            } else {
                Effects::new(0, NZVC)
            }
        }
        // Shifts: with a register count of 0, X is left alone.
        "asl" | "asr" | "lsl" | "lsr" => {
            if ops.len() == 2 && matches!(src, Some(Operand::Reg(Reg::D(_)))) {
                Effects::new(0, NZVC)
            } else {
                Effects::new(0, ALL)
            }
        }
        "rol" | "ror" => Effects::new(0, NZVC),
        "roxl" | "roxr" => Effects::new(X, ALL),
        "btst" | "bset" | "bclr" | "bchg" => Effects::new(0, Z),
        // Control flow.
        "bra" | "jbra" | "jra" => Effects {
            reads: 0,
            defs: 0,
            flow: match target(src) {
                Some(t) => Flow::Jump(t),
                None => Flow::Indirect,
            },
        },
        "jmp" => Effects {
            reads: 0,
            defs: 0,
            flow: match src {
                Some(Operand::Abs(e)) => Flow::Jump(e.text.clone()),
                Some(Operand::Disp {
                    disp,
                    base: Base::Pc,
                }) if disp.value.is_none() => Flow::Jump(disp.text.clone()),
                _ => Flow::Indirect,
            },
        },
        "bsr" | "jbsr" | "jsr" | "trap" => Effects {
            reads: 0,
            defs: ALL,
            flow: Flow::Call,
        },
        "trapv" => Effects::new(V, 0),
        "rts" | "rte" | "rtr" => Effects {
            reads: 0,
            defs: 0,
            flow: Flow::Return,
        },
        "illegal" => Effects {
            reads: 0,
            defs: 0,
            flow: Flow::Halt,
        },
        "stop" => Effects::new(0, ALL),
        _ => {
            if let Some(cc) = m.strip_prefix("db") {
                let reads = if cc == "ra" { 0 } else { cond_reads(cc)? };
                Effects {
                    reads,
                    defs: 0,
                    flow: Flow::Cond(target(ops.get(1))?),
                }
            } else if let Some(cc) = m.strip_prefix('b') {
                let reads = cond_reads(cc)?;
                if cc == "ra" || cc == "t" || cc == "f" {
                    return None;
                }
                Effects {
                    reads,
                    defs: 0,
                    flow: Flow::Cond(target(src)?),
                }
            } else {
                let cc = m.strip_prefix('s')?;
                if cc == "ra" {
                    return None;
                }
                Effects::new(cond_reads(cc)?, 0)
            }
        }
    };
    Some(e)
}

/// True for a `move`/`moveq` that writes N/Z/V/C as a side effect of a
/// copy (data-register or memory destination). LLVM never uses those flags,
/// so the pass can make any of them flag-neutral (bug 1).
pub(crate) fn is_ccr_move(insn: &Insn) -> bool {
    matches!(insn.mnemonic.as_str(), "move" | "moveq")
        && effects(insn).is_some_and(|e| e.defs == NZVC && e.reads == 0)
}

/// True for `not.b %dN` right after `moveq #K,%dN` (K in 0..=127): how LLVM
/// expands its MOVI pseudo for a constant 128..255 (`moveq #~imm` then
/// `not.b`). Like a copy it can be rematerialized between a compare and its
/// branch, and its flags are never used.
pub(crate) fn is_byte_constant_not(previous: Option<&Insn>, insn: &Insn) -> bool {
    let (Some(prev), "not", Some(Size::B)) = (previous, insn.mnemonic.as_str(), insn.size) else {
        return false;
    };
    match (
        prev.mnemonic.as_str(),
        prev.operands.as_slice(),
        insn.operands.as_slice(),
    ) {
        ("moveq", [Operand::Imm(k), Operand::Reg(Reg::D(a))], [Operand::Reg(Reg::D(b))]) => {
            a == b && k.value.is_some_and(|v| (0..=127).contains(&v))
        }
        _ => false,
    }
}

/// Mnemonics of 68010/68020+ instructions (and a 68000 `rtd` look-alike) that
/// GNU as rejects at `-m68000`, with what they are.
fn later_cpu(m: &str) -> Option<&'static str> {
    Some(match m {
        "rtd" | "movec" | "moves" | "bkpt" => "a 68010 instruction",
        "divul" | "divsl" => "a 68020 32-bit division",
        "cas" | "cas2" | "chk2" | "cmp2" | "pack" | "unpk" | "callm" | "rtm" | "bfchg"
        | "bfclr" | "bfexts" | "bfextu" | "bfffo" | "bfins" | "bfset" | "bftst" => {
            "a 68020 instruction"
        }
        _ if m.starts_with("trap") && m.len() > 4 && m != "trapv" => "a 68020 TRAPcc",
        _ if m.starts_with('f') => "a floating-point (68881) instruction",
        _ => return None,
    })
}

/// Instructions that accept an address register as a direct operand (with
/// their exceptions handled in `addr_reg_invalid`).
fn allows_areg(m: &str) -> bool {
    matches!(
        m,
        "move"
            | "movea"
            | "add"
            | "adda"
            | "sub"
            | "suba"
            | "cmp"
            | "cmpa"
            | "addq"
            | "subq"
            | "exg"
            | "movem"
            | "lea"
            | "pea"
            | "link"
            | "unlk"
    )
}

/// True when `insn` uses an address register directly in a position where
/// the 68000 only has a data-register form (llvm bug 5: `and.l #imm,%aN`).
fn addr_reg_invalid(insn: &Insn) -> bool {
    let has_areg = insn
        .operands
        .iter()
        .any(|o| matches!(o, Operand::Reg(Reg::A(_))));
    if !has_areg {
        return false;
    }
    let m = insn.mnemonic.as_str();
    if insn.operands.iter().any(|o| matches!(o, Operand::Usp)) {
        return false;
    }
    if !allows_areg(m) {
        return true;
    }
    // Byte-sized operations have no address-register form.
    matches!(m, "move" | "add" | "sub" | "cmp" | "addq" | "subq") && insn.size == Some(Size::B)
}

fn imm_in_range(insn: &Insn) -> Option<String> {
    let m = insn.mnemonic.as_str();
    for op in &insn.operands {
        let Operand::Imm(e) = op else { continue };
        let Some(v) = e.value else { continue };
        if m == "trap" {
            if !(0..=15).contains(&v) {
                return Some(format!(
                    "trap number {v} is not 0..15 (GNU as would silently use 0)"
                ));
            }
            continue;
        }
        if m == "link" {
            if !(-32768..=32767).contains(&v) {
                return Some(format!(
                    "link displacement {v} does not fit in 16 bits (stack frame over 32 KB; \
                     GNU as would silently truncate it)"
                ));
            }
            continue;
        }
        let ok = match insn.size {
            Some(Size::B) => (-128..=255).contains(&v),
            Some(Size::W) => (-32768..=65535).contains(&v),
            _ => (-(1i64 << 31)..(1i64 << 32)).contains(&v),
        };
        if !ok {
            return Some(format!("immediate {v} does not fit the operation size"));
        }
    }
    None
}

fn addressing_problem(insn: &Insn) -> Option<String> {
    for op in &insn.operands {
        match op {
            Operand::Disp { disp, .. } => {
                if let Some(v) = disp.value
                    && !(-32768..=32767).contains(&v)
                {
                    return Some(format!(
                        "displacement {v} needs a 68020 32-bit displacement \
                             (stack frame or offset over 32 KB)"
                    ));
                }
            }
            Operand::Index { disp, scale, .. } => {
                if *scale != 1 {
                    return Some("scaled index needs a 68020".into());
                }
                if let Some(v) = disp.value
                    && !(-128..=127).contains(&v)
                {
                    return Some(format!(
                        "indexed displacement {v} does not fit in 8 bits (needs a 68020)"
                    ));
                }
            }
            Operand::RegPair(..) => {
                return Some("64-bit register-pair form needs a 68020".into());
            }
            _ => {}
        }
    }
    None
}

/// A write through a PC-relative address (`move.l %d0,(COUNTER,%pc)`): the
/// 68000 has no such destination, and LLVM emits it for a writable static
/// (`static mut`, an atomic) at `-C relocation-model=pic`. Palm OS code 1 is
/// write-protected storage memory anyway (PALM_FACTS §5.4), so it is reported
/// naming the static rather than left to GNU as's "operands mismatch".
fn pc_relative_write(insn: &Insn) -> Option<String> {
    let m = insn.mnemonic.as_str();
    // Instructions whose last operand is only read, or is a branch target.
    let reads_last = matches!(
        m,
        "cmp" | "cmpi" | "cmpa" | "cmpm" | "tst" | "btst" | "lea" | "pea" | "jmp" | "jsr" | "chk"
    ) || (m.starts_with('b') && !matches!(m, "bchg" | "bclr" | "bset"))
        || m.starts_with("db");
    if reads_last {
        return None;
    }
    let target = match insn.operands.last()? {
        Operand::Disp {
            disp,
            base: Base::Pc,
        }
        | Operand::Index {
            disp,
            base: Base::Pc,
            ..
        } => disp,
        _ => return None,
    };
    // LLVM names an internal static `SYMBOL.0`.
    let name = format!("{:#}", rustc_demangle::demangle(&target.text));
    let name = name.strip_suffix(".0").unwrap_or(&name);
    Some(format!(
        "writes to `{name}` through a PC-relative address: a writable static (`static mut`, an \
         atomic, interior mutability) in code that runs from write-protected storage memory; \
         keep state in a chunk (MemPtrNew) found through FtrGet"
    ))
}

/// What `insn` needs to become valid MC68000 code that GNU as assembles as
/// LLVM meant it.
pub(crate) fn needs(insn: &Insn) -> Needs {
    let m = insn.mnemonic.as_str();
    let ops = &insn.operands;
    if let Some(what) = later_cpu(m) {
        return Needs::Unsupported(format!("`{m}` is {what}, not MC68000"));
    }
    if matches!(m, "mulu" | "muls") && insn.size == Some(Size::L) {
        return match ops.as_slice() {
            [src, Operand::Reg(Reg::D(_))]
                if !matches!(
                    src,
                    Operand::Reg(Reg::A(_))
                        | Operand::PreDec(7)
                        | Operand::PostInc(7)
                        | Operand::RegPair(..)
                        | Operand::Other(_)
                ) =>
            {
                Needs::MulLong {
                    signed: m == "muls",
                }
            }
            _ => Needs::Unsupported(format!(
                "`{m}.l` in this form (64-bit result or unusual source) is 68020-only and not \
                 rewritten"
            )),
        };
    }
    if matches!(m, "divu" | "divs") && insn.size == Some(Size::L) {
        return Needs::Unsupported(format!("`{m}.l` is a 68020 32-bit division"));
    }
    if m == "extb" {
        return match ops.as_slice() {
            [Operand::Reg(Reg::D(_))] => Needs::Extb,
            _ => Needs::Unsupported("`extb` form not understood".into()),
        };
    }
    if m == "link" && insn.size == Some(Size::L) {
        return match ops.get(1) {
            Some(Operand::Imm(e)) if e.value.is_some_and(|v| (-32768..=32767).contains(&v)) => {
                Needs::LinkLong
            }
            _ => {
                Needs::Unsupported("`link.l` with a displacement over 16 bits is 68020-only".into())
            }
        };
    }
    if matches!(m, "move" | "movea" | "adda" | "suba" | "cmpa")
        && insn.size == Some(Size::W)
        && let [Operand::Imm(e), Operand::Reg(Reg::A(_))] = ops.as_slice()
        && e.value.is_some_and(|v| (32768..=65535).contains(&v))
    {
        return Needs::AddrWordImm;
    }
    if let Some(p) = pc_relative_write(insn) {
        return Needs::Unsupported(p);
    }
    if let Some(p) = addressing_problem(insn) {
        return Needs::Unsupported(p);
    }
    if let Some(p) = imm_in_range(insn) {
        return Needs::Unsupported(p);
    }
    let Some(eff) = effects(insn) else {
        return Needs::Unsupported(format!("`{m}` is not an MC68000 instruction"));
    };
    if insn.size == Some(Size::L) && !matches!(eff.flow, Flow::Next) && m.starts_with('b') {
        return Needs::LongBranch;
    }
    if addr_reg_invalid(insn) {
        if eff.flow != Flow::Next {
            return Needs::Unsupported("address register used as a direct operand".into());
        }
        return Needs::AddrRegOperand;
    }
    Needs::Nothing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_insn;

    fn eff(s: &str) -> Effects {
        effects(&parse_insn(s)).expect(s)
    }

    #[test]
    fn move_family() {
        assert_eq!(eff("move.l %d0, %d1").defs, NZVC);
        assert_eq!(eff("move.l %d0, (8,%sp)").defs, NZVC);
        assert_eq!(eff("move.l %d0, %a1").defs, 0);
        assert_eq!(eff("movea.l %d0, %a1").defs, 0);
        assert_eq!(eff("moveq #0, %d0").defs, NZVC);
        assert_eq!(eff("movem.l (%sp)+, %d0").defs, 0);
        assert_eq!(eff("move.w %sr, -(%sp)"), Effects::new(ALL, 0));
        assert_eq!(eff("move.w (%sp)+, %ccr"), Effects::new(0, ALL));
    }

    #[test]
    fn arithmetic_and_branches() {
        assert_eq!(eff("add.l %d1, %d0").defs, ALL);
        assert_eq!(eff("adda.l #4, %sp").defs, 0);
        assert_eq!(eff("add.l #4, %a0").defs, 0);
        assert_eq!(eff("addx.l %d1, %d0"), Effects::new(X, X | N | V | C));
        assert_eq!(eff("lsr.l %d0, %d1").defs, NZVC);
        assert_eq!(eff("lsr.l #1, %d1").defs, ALL);
        assert_eq!(eff("bhi .L1").reads, C | Z);
        assert_eq!(eff("bhi .L1").flow, Flow::Cond(".L1".into()));
        assert_eq!(eff("scs %d0").reads, C);
        assert_eq!(eff("dbf %d0, .L1").reads, 0);
        assert_eq!(eff("jsr (f@PLT,%pc)").flow, Flow::Call);
        assert_eq!(eff("jmp (%a2)").flow, Flow::Indirect);
        assert_eq!(eff("bra .L3").flow, Flow::Jump(".L3".into()));
        assert!(effects(&parse_insn("bfoo .L1")).is_none());
        assert!(effects(&parse_insn("frobnicate %d0")).is_none());
    }

    #[test]
    fn needs_repairs() {
        let n = |s: &str| needs(&parse_insn(s));
        assert_eq!(n("and.l #65535, %a2"), Needs::AddrRegOperand);
        assert_eq!(n("cmpi.l #0, %a0"), Needs::AddrRegOperand);
        assert_eq!(n("tst.l %a0"), Needs::AddrRegOperand);
        assert_eq!(n("move.b %a0, %d0"), Needs::AddrRegOperand);
        assert_eq!(n("add.l %d0, %a0"), Needs::Nothing);
        assert_eq!(n("mulu.l %d1, %d0"), Needs::MulLong { signed: false });
        assert_eq!(n("muls.l (4,%sp), %d2"), Needs::MulLong { signed: true });
        assert!(matches!(n("mulu.l %d1, %d2:%d0"), Needs::Unsupported(_)));
        assert!(matches!(n("divu.l %d1, %d0"), Needs::Unsupported(_)));
        assert_eq!(n("extb.l %d3"), Needs::Extb);
        assert_eq!(n("move.w #65535, %a1"), Needs::AddrWordImm);
        assert_eq!(n("adda.w #32768, %a0"), Needs::AddrWordImm);
        assert_eq!(n("move.w #32767, %a1"), Needs::Nothing);
        assert_eq!(n("move.w #-1, %a1"), Needs::Nothing);
        assert_eq!(n("move.w #65535, %d1"), Needs::Nothing);
        assert!(matches!(
            n("move.l %d0, (_RNvNvCs5XyOa4QtnPY_20palm_build_bad_image12bump_counter7COUNTER.0,%pc)"),
            Needs::Unsupported(r) if r.contains("writes to `palm_build_bad_image::bump_counter::COUNTER`")
        ));
        assert!(matches!(
            n("addq.l #1, (COUNTER,%pc)"),
            Needs::Unsupported(_)
        ));
        assert!(matches!(n("clr.w (FLAG,%pc)"), Needs::Unsupported(_)));
        assert_eq!(n("move.l (TABLE,%pc), %d0"), Needs::Nothing);
        assert_eq!(n("cmp.l (TABLE,%pc), %d0"), Needs::Nothing);
        assert_eq!(n("lea (TABLE,%pc), %a0"), Needs::Nothing);
        assert_eq!(n("bra.l .L1"), Needs::LongBranch);
        assert_eq!(n("link.l %a6, #-8"), Needs::LinkLong);
        assert!(matches!(n("link.w %a6, #-40024"), Needs::Unsupported(_)));
        assert!(matches!(n("lea (-40008,%a6), %a2"), Needs::Unsupported(_)));
        assert!(matches!(
            n("move.l (0,%a0,%d0*4), %d1"),
            Needs::Unsupported(_)
        ));
        assert!(matches!(n("rtd #4"), Needs::Unsupported(_)));
        assert!(matches!(n("and.w #-40000, %d0"), Needs::Unsupported(_)));
        assert_eq!(n("move.l #-1199570944, %d1"), Needs::Nothing);
        assert_eq!(n("and.w #65535, %d1"), Needs::Nothing);
        assert_eq!(n("trapv"), Needs::Nothing);
    }
}
