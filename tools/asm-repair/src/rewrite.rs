//! The replacement sequences. Each function returns the new instruction lines
//! (without the comment line that records the original), or why it cannot.

use crate::isa;
use crate::parse::{Base, Expr, Insn, Operand, Reg, Size};

const SAVE_CCR: &str = "\tmove.w\t%sr, -(%sp)";
const RESTORE_CCR: &str = "\tmove.w\t(%sp)+, %ccr";

/// Moves the operand's `%sp`-relative address by `delta` bytes (the stack
/// pointer was lowered by `delta` before the instruction runs).
fn adjust_sp(op: &Operand, delta: i64) -> Result<Operand, String> {
    let bump = |disp: &Expr, lo: i64, hi: i64| -> Result<Expr, String> {
        match disp.value {
            Some(v) => {
                let nv = v + delta;
                if (lo..=hi).contains(&nv) {
                    Ok(Expr::num(nv))
                } else {
                    Err(format!(
                        "stack displacement {v} + {delta} no longer fits the addressing mode"
                    ))
                }
            }
            None => Ok(Expr::new(&format!("({})+{delta}", disp.text))),
        }
    };
    Ok(match op {
        Operand::Ind(7) => Operand::Disp {
            disp: Expr::num(delta),
            base: Base::A(7),
        },
        Operand::Disp {
            disp,
            base: Base::A(7),
        } => Operand::Disp {
            disp: bump(disp, -32768, 32767)?,
            base: Base::A(7),
        },
        Operand::Index {
            index: Reg::A(7), ..
        } => return Err("%sp used as an index register".into()),
        Operand::Index {
            disp,
            base: Base::A(7),
            index,
            suffix,
            scale,
        } => Operand::Index {
            disp: bump(disp, -128, 127)?,
            base: Base::A(7),
            index: *index,
            suffix: suffix.clone(),
            scale: *scale,
        },
        Operand::PreDec(7) | Operand::PostInc(7) => {
            return Err("unexpected stack push/pop operand".into());
        }
        Operand::Other(s) => return Err(format!("operand `{s}` not understood")),
        other => other.clone(),
    })
}

fn size_bytes_on_stack(size: Size) -> i64 {
    // Byte pushes and pops through %sp move it by 2 to keep it even.
    if size == Size::L { 4 } else { 2 }
}

/// Modes MOVEM accepts as a register-to-memory destination.
fn movem_store_ok(op: &Operand) -> bool {
    matches!(
        op,
        Operand::Ind(_)
            | Operand::PreDec(_)
            | Operand::Abs(_)
            | Operand::Disp {
                base: Base::A(_),
                ..
            }
            | Operand::Index {
                base: Base::A(_),
                ..
            }
    )
}

/// Modes MOVEM accepts as a memory-to-register source.
fn movem_load_ok(op: &Operand) -> bool {
    matches!(
        op,
        Operand::Ind(_)
            | Operand::PostInc(_)
            | Operand::Abs(_)
            | Operand::Disp { .. }
            | Operand::Index { .. }
    )
}

/// Flag-neutral replacement for a `move`/`moveq` (or the `not.b %dN` of a
/// byte-constant materialization) after which N/Z/V/C are live
/// (llvm-project #152816: register-allocator copies, spills, reloads and
/// rematerialized constants placed between a flag-setting instruction and
/// its reader).
pub(crate) fn ccr_neutral_move(insn: &Insn) -> Result<Vec<String>, String> {
    let ops = &insn.operands;
    if insn.mnemonic == "moveq" || insn.mnemonic == "not" {
        return Ok(vec![SAVE_CCR.into(), insn.to_string(), RESTORE_CCR.into()]);
    }
    let [src, dst] = ops.as_slice() else {
        return Err("move without two operands".into());
    };
    let size = insn.size.unwrap_or(Size::W);
    if matches!(src, Operand::Other(_)) || matches!(dst, Operand::Other(_)) {
        return Err("operand not understood".into());
    }
    if matches!(src, Operand::PreDec(7)) || matches!(dst, Operand::PostInc(7)) {
        return Err("reads below or writes above the stack pointer".into());
    }
    if size == Size::L {
        // MOVEM.L moves 32 bits and leaves CCR alone.
        if let Operand::Reg(r) = src {
            let self_push = matches!((r, dst), (Reg::A(a), Operand::PreDec(d)) if a == d);
            if movem_store_ok(dst) && !self_push {
                return Ok(vec![format!("\tmovem.l\t{src}, {dst}")]);
            }
        }
        if let Operand::Reg(Reg::D(_)) = dst
            && movem_load_ok(src)
        {
            return Ok(vec![format!("\tmovem.l\t{src}, {dst}")]);
        }
    }
    // Save CCR on the stack around the move; every %sp-relative operand
    // moves by the bytes pushed in front of it.
    let mut out = Vec::new();
    let mut post = Vec::new();
    let (new_src, new_dst);
    if matches!(dst, Operand::PreDec(7)) {
        // Push: reserve the slot first, then save CCR below it.
        let p = size_bytes_on_stack(size);
        out.push(format!("\tsubq.l\t#{p}, %sp"));
        out.push(SAVE_CCR.into());
        new_src = adjust_sp(src, p + 2)?;
        new_dst = Operand::Disp {
            disp: Expr::num(2),
            base: Base::A(7),
        };
    } else if matches!(src, Operand::PostInc(7)) {
        // Pop: read the slot above the saved CCR, release it afterwards.
        let p = size_bytes_on_stack(size);
        out.push(SAVE_CCR.into());
        new_src = Operand::Disp {
            disp: Expr::num(2),
            base: Base::A(7),
        };
        new_dst = adjust_sp(dst, 2 + p)?;
        post.push(format!("\taddq.l\t#{p}, %sp"));
    } else {
        out.push(SAVE_CCR.into());
        new_src = adjust_sp(src, 2)?;
        new_dst = adjust_sp(dst, 2)?;
    }
    let body = Insn::new(&insn.mnemonic, insn.size, vec![new_src, new_dst.clone()]);
    out.push(body.to_string());
    if matches!(src, Operand::Reg(Reg::A(7))) {
        // The copied stack pointer is lower by what we pushed; correct it
        // (flags are restored right after).
        let pushed = if matches!(dst, Operand::PreDec(7)) {
            size_bytes_on_stack(size) + 2
        } else {
            2
        };
        out.push(
            Insn::new(
                "addq",
                insn.size,
                vec![Operand::Imm(Expr::num(pushed)), new_dst],
            )
            .to_string(),
        );
    }
    out.push(RESTORE_CCR.into());
    out.extend(post);
    Ok(out)
}

/// Replacement for an instruction that uses an address register where the
/// 68000 only has a data-register form (llvm bug 5, `and.l #imm,%aN`): swap
/// the address register with a data register the instruction does not
/// mention, run the data-register form, swap back. EXG leaves CCR alone, so
/// the flags are those of the operation itself. Every other register keeps
/// its value.
pub(crate) fn addr_reg_operand(insn: &Insn) -> Result<Vec<String>, String> {
    let mut areg = None;
    for op in &insn.operands {
        if let Operand::Reg(Reg::A(n)) = op {
            match areg {
                None => areg = Some(*n),
                Some(a) if a == *n => {}
                Some(_) => return Err("two different address registers".into()),
            }
        }
    }
    let Some(a) = areg else {
        return Err("no address register operand".into());
    };
    if a == 7 {
        return Err(
            "the stack pointer cannot be swapped out (an interrupt would use the wrong stack)"
                .into(),
        );
    }
    // The address register must not also be used to form an address.
    let used_elsewhere = insn
        .operands
        .iter()
        .filter(|o| !matches!(o, Operand::Reg(_)))
        .any(|o| o.reg_mask() & (1 << (8 + a)) != 0);
    if used_elsewhere {
        return Err(format!("%a{a} is also used in an address"));
    }
    let used = insn.reg_mask();
    let Some(d) = (0..8u8).find(|d| used & (1 << d) == 0) else {
        return Err("no free data register".into());
    };
    let ops = insn
        .operands
        .iter()
        .map(|o| match o {
            Operand::Reg(Reg::A(n)) if *n == a => Operand::Reg(Reg::D(d)),
            other => other.clone(),
        })
        .collect();
    let exg = format!("\texg\t%d{d}, {}", Reg::A(a));
    Ok(vec![
        exg.clone(),
        Insn::new(&insn.mnemonic, insn.size, ops).to_string(),
        exg,
    ])
}

/// Helper routine names in `RUNTIME_ASM`.
pub(crate) const MULU32: &str = "__asm_repair_mulu32";
/// See [`MULU32`].
pub(crate) const MULS32: &str = "__asm_repair_muls32";

/// Replacement for the 68020 `mulu.l <ea>,%dN` / `muls.l <ea>,%dN` (32-bit
/// result) that LLVM emits for `u32::checked_mul`/`i32::checked_mul` even at
/// `-C target-cpu=M68000`: push both operands, call the 68000 helper, which
/// overwrites the multiplicand slot with the product and sets N/Z/V/C like
/// MULx.L (X kept); then pop with the flag-neutral MOVEM and ADDQ-to-%sp.
pub(crate) fn mul_long(insn: &Insn, signed: bool) -> Result<Vec<String>, String> {
    let [src, Operand::Reg(Reg::D(d))] = insn.operands.as_slice() else {
        return Err("unexpected operands".into());
    };
    if matches!(
        src,
        Operand::PreDec(7) | Operand::PostInc(7) | Operand::Other(_)
    ) {
        return Err("unsupported source operand".into());
    }
    let helper = if signed { MULS32 } else { MULU32 };
    Ok(vec![
        format!("\tmove.l\t{src}, -(%sp)"),
        format!("\tmove.l\t%d{d}, -(%sp)"),
        format!("\tjsr\t({helper},%pc)"),
        format!("\tmovem.l\t(%sp)+, %d{d}"),
        "\taddq.l\t#4, %sp".into(),
    ])
}

/// `extb.l %dN` (68020) → `ext.w %dN` + `ext.l %dN`: same register result,
/// and the final EXT.L sets N/Z from the long and clears V/C like EXTB.L.
pub(crate) fn extb(insn: &Insn) -> Result<Vec<String>, String> {
    let [Operand::Reg(Reg::D(d))] = insn.operands.as_slice() else {
        return Err("unexpected operands".into());
    };
    Ok(vec![format!("\text.w\t%d{d}"), format!("\text.l\t%d{d}")])
}

/// An explicit `.l` branch (68020 32-bit displacement, llvm bug 3) → the
/// unsized mnemonic, which GNU as assembles with a 16-bit displacement.
pub(crate) fn drop_size(insn: &Insn) -> Vec<String> {
    vec![Insn::new(&insn.mnemonic, None, insn.operands.clone()).to_string()]
}

/// The same instruction with the `.l` size (`move.w #65535,%a1` →
/// `move.l #65535,%a1`).
pub(crate) fn long_size(insn: &Insn) -> Vec<String> {
    vec![Insn::new(&insn.mnemonic, Some(Size::L), insn.operands.clone()).to_string()]
}

/// A data-alterable destination (M68000 PRM addressing categories): a data
/// register or memory not addressed relative to the PC.
fn data_alterable(o: &Operand) -> bool {
    match o {
        Operand::Reg(Reg::D(_))
        | Operand::Ind(_)
        | Operand::PostInc(_)
        | Operand::PreDec(_)
        | Operand::Abs(_) => true,
        Operand::Disp { base, .. } | Operand::Index { base, .. } => matches!(base, Base::A(_)),
        _ => false,
    }
}

/// A shorter instruction with exactly the same effect, or `None` (see
/// [`crate::FixKind::Shorter`]). Flags, per the M68000 Programmer's Reference
/// Manual: `cmpi #0,<ea>` and `tst <ea>` both set N and Z from the operand and
/// clear V and C, X untouched; `move #0,<ea>` and `clr <ea>` both set Z and
/// clear N, V and C (to an address register `move` is `movea`, which sets no
/// flags: left alone); `lea (n,%aN),%aN` and `addq`/`subq` to an address
/// register set no flags and change all 32 bits. Both forms of each pair take
/// the same destinations on the 68000 (data alterable; `clr` reads its memory
/// operand before writing it, harmless for RAM, and code 1 touches no
/// device registers).
pub(crate) fn shorter(insn: &Insn) -> Option<Vec<String>> {
    let zero = |o: &Operand| matches!(o, Operand::Imm(e) if e.value == Some(0));
    let size = insn
        .size
        .filter(|s| matches!(s, Size::B | Size::W | Size::L));
    match (insn.mnemonic.as_str(), insn.operands.as_slice()) {
        ("cmpi" | "cmp", [src, dst]) if zero(src) && data_alterable(dst) => Some(vec![
            Insn::new("tst", Some(size?), vec![dst.clone()]).to_string(),
        ]),
        ("move", [src, dst]) if zero(src) && data_alterable(dst) => Some(vec![
            Insn::new("clr", Some(size?), vec![dst.clone()]).to_string(),
        ]),
        (
            "lea",
            [
                Operand::Disp {
                    disp,
                    base: Base::A(b),
                },
                Operand::Reg(Reg::A(r)),
            ],
        ) if b == r => {
            let n = disp.value?;
            let (op, n) = match n {
                1..=8 => ("addq", n),
                -8..=-1 => ("subq", -n),
                _ => return None,
            };
            Some(vec![
                Insn::new(
                    op,
                    Some(Size::L),
                    vec![
                        Operand::Imm(Expr::new(&n.to_string())),
                        Operand::Reg(Reg::A(*r)),
                    ],
                )
                .to_string(),
            ])
        }
        _ => None,
    }
}

/// Bug 15: `subx.s %dN,%dN` (−X in the low `s` bits of `%dN`) after a compare,
/// which LLVM wrote meaning −C: `scs %dN`, then `ext.w %dN` for a word and
/// `ext.l %dN` too for a long, the same register bits. `None` for any other
/// X reader or when a flag is live after it (SUBX sets X, N, V, C and clears
/// Z only when the result is nonzero; the replacement sets none of that).
pub(crate) fn carry_as_extend(insn: &Insn, live_after: u8) -> Option<Vec<String>> {
    let [Operand::Reg(Reg::D(a)), Operand::Reg(Reg::D(b))] = insn.operands.as_slice() else {
        return None;
    };
    if insn.mnemonic != "subx" || a != b || live_after & isa::ALL != 0 {
        return None;
    }
    let mut out = vec![format!("\tscs\t%d{a}")];
    match insn.size? {
        Size::B => {}
        Size::W => out.push(format!("\text.w\t%d{a}")),
        Size::L => out.extend([format!("\text.w\t%d{a}"), format!("\text.l\t%d{a}")]),
        _ => return None,
    }
    Some(out)
}

/// `link.l` with a 16-bit displacement → `link.w`.
pub(crate) fn link_word(insn: &Insn) -> Vec<String> {
    vec![Insn::new("link", Some(Size::W), insn.operands.clone()).to_string()]
}

/// `add #-n` as `subq #n`, `sub #-n` as `addq #n` (n in 1..8; GNU as
/// already makes `add #n`/`sub #n` quick). To an address register always
/// (ADDQ/SUBQ there change all 32 bits and no flag, like ADDA/SUBA of the
/// sign-extended immediate); elsewhere the result, N and Z are the same but
/// X, V and C are not, so only when those are dead after it.
fn quick_opposite(insn: &Insn, live_after: u8) -> Option<String> {
    let m = insn.mnemonic.as_str();
    let [Operand::Imm(e), dst] = insn.operands.as_slice() else {
        return None;
    };
    let n = e.value.filter(|v| (-8..=-1).contains(v))?;
    let to_areg = matches!(dst, Operand::Reg(Reg::A(_)));
    let flipped = match m {
        "add" | "addi" | "adda" => "subq",
        "sub" | "subi" | "suba" => "addq",
        _ => return None,
    };
    let size = if to_areg {
        // ADDA/SUBA.w sign-extend the immediate: the same 32-bit change.
        Size::L
    } else {
        let dead = live_after & (isa::X | isa::V | isa::C) == 0;
        if !dead || !data_alterable(dst) || m.ends_with('a') {
            return None;
        }
        insn.size
            .filter(|s| matches!(s, Size::B | Size::W | Size::L))?
    };
    Some(
        Insn::new(
            flipped,
            Some(size),
            vec![Operand::Imm(Expr::new(&(-n).to_string())), dst.clone()],
        )
        .to_string(),
    )
}

/// Shorter forms that depend on the instruction's surroundings, in code LLVM
/// compiled only; each has exactly the effect of the original on registers,
/// memory, and every condition code that is read afterwards:
///
/// - a `Bcc`/`BRA` without a size to a label of the same function becomes
///   `jbcc`/`jbra`, which GNU as assembles as the 2-byte `.s` form when the
///   target is within −128..127 bytes and as the `.w` form LLVM's `bcc`
///   always gets otherwise (`--pcrel`: never an absolute jump);
/// - a single-register `movem` becomes a `move`/`movea` (2 bytes shorter):
///   to an address register always (`movea` sets no flags and, like `movem`,
///   sign-extends a word), otherwise only when N/Z/V/C are dead after it
///   (`move` sets them, `movem` does not); never a word load into a data
///   register (`movem.w` sign-extends it to 32 bits, `move.w` does not), nor
///   a register that is also the operand's base;
/// - `add #-n`/`sub #-n` (n in 1..8) as `subq #n`/`addq #n`
///   ([`quick_opposite`]);
/// - a `tst.s %dN` (or `cmpi.s #0,%dN`) right after an instruction that wrote `%dN` at the same
///   size (no label in between) is dropped when that instruction set the
///   flags tst would set: AND/OR/EOR/NOT/CLR/EXT/SWAP exactly as TST does
///   (N and Z from the result, V and C cleared, X untouched); NEG/ADD/SUB and
///   shifts set N and Z from the result too, but V and C their own way, so
///   those only when V and C are dead after the `tst`.
///
/// `live_after`: the flags live after `insn`; `previous`: the instruction
/// that runs right before it, when its flags may be relied on (see
/// `previous_in_block` in lib.rs);
/// `local_target`: `insn` branches to a label defined in its function.
pub(crate) fn shorter_in_context(
    insn: &Insn,
    live_after: u8,
    previous: Option<&Insn>,
    local_target: bool,
) -> Option<Vec<String>> {
    let m = insn.mnemonic.as_str();
    let ops = insn.operands.as_slice();
    let flags_dead = live_after & isa::NZVC == 0;
    if local_target && insn.size.is_none() && m.starts_with('b') {
        // GNU as knows `jbhs`/`jblo` only by their other names.
        let m = match m {
            "bhs" => "bcc",
            "blo" => "bcs",
            _ => m,
        };
        return Some(vec![
            Insn::new(&format!("j{m}"), None, ops.to_vec()).to_string(),
        ]);
    }
    if m == "movem" {
        let size = insn.size.filter(|s| matches!(s, Size::W | Size::L))?;
        let single = |o: &Operand| match o {
            Operand::Reg(r) => Some(*r),
            Operand::RegList(mask) if mask.count_ones() == 1 => {
                let i = mask.trailing_zeros() as u8;
                Some(if i < 8 { Reg::D(i) } else { Reg::A(i - 8) })
            }
            _ => None,
        };
        let base_is = |o: &Operand, r: Reg| match (o, r) {
            (
                Operand::Ind(b)
                | Operand::PostInc(b)
                | Operand::PreDec(b)
                | Operand::Disp {
                    base: Base::A(b), ..
                }
                | Operand::Index {
                    base: Base::A(b), ..
                },
                Reg::A(a),
            ) => *b == a,
            (Operand::Index { index, .. }, r) => *index == r,
            (Operand::Other(_), _) => true,
            _ => false,
        };
        let [src, dst] = ops else { return None };
        if let Some(r) = single(src) {
            // A store.
            if !flags_dead || base_is(dst, r) || matches!(dst, Operand::Reg(_)) {
                return None;
            }
            return Some(vec![
                Insn::new("move", Some(size), vec![Operand::Reg(r), dst.clone()]).to_string(),
            ]);
        }
        let r = single(dst)?;
        if base_is(src, r) || matches!(src, Operand::Reg(_)) {
            return None;
        }
        let mnemonic = match r {
            Reg::A(_) => "movea",
            Reg::D(_) if size == Size::L && flags_dead => "move",
            Reg::D(_) => return None,
        };
        return Some(vec![
            Insn::new(mnemonic, Some(size), vec![src.clone(), Operand::Reg(r)]).to_string(),
        ]);
    }
    if let Some(new) = quick_opposite(insn, live_after) {
        return Some(vec![new]);
    }
    // `cmpi #0` is a `tst` too (see `shorter`).
    let tested = match ops {
        [Operand::Reg(Reg::D(n))] if m == "tst" => Some(n),
        [Operand::Imm(e), Operand::Reg(Reg::D(n))]
            if matches!(m, "cmpi" | "cmp") && e.value == Some(0) =>
        {
            Some(n)
        }
        _ => None,
    };
    if let Some(n) = tested
        && let Some(p) = previous
        && p.operands.last() == Some(&Operand::Reg(Reg::D(*n)))
    {
        let differ = match p.mnemonic.as_str() {
            "and" | "andi" | "or" | "ori" | "eor" | "eori" | "not" | "clr" | "ext"
                if p.size == insn.size =>
            {
                0
            }
            "swap" if p.size.is_none() && insn.size == Some(Size::L) => 0,
            "neg" | "add" | "addi" | "addq" | "sub" | "subi" | "subq" | "lsl" | "lsr" | "asl"
            | "asr"
                if p.size == insn.size =>
            {
                isa::V | isa::C
            }
            _ => return None,
        };
        if differ & live_after == 0 {
            // An empty line keeps the output's lines in step with the input's.
            return Some(vec![String::new()]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_insn;

    fn ccr(s: &str) -> Vec<String> {
        ccr_neutral_move(&parse_insn(s)).expect(s)
    }

    fn short(s: &str) -> Option<String> {
        shorter(&parse_insn(s)).map(|v| v.join("\n"))
    }

    #[test]
    fn shorter_forms_only_where_exactly_equivalent() {
        assert_eq!(short("cmpi.l #0, %d5").as_deref(), Some("\ttst.l\t%d5"));
        assert_eq!(
            short("cmpi.b #0, (12,%a6)").as_deref(),
            Some("\ttst.b\t(12,%a6)")
        );
        assert_eq!(
            short("cmpi.w #0, (0,%a0,%d4)").as_deref(),
            Some("\ttst.w\t(0,%a0,%d4)")
        );
        assert_eq!(
            short("move.l #0, (4,%a0)").as_deref(),
            Some("\tclr.l\t(4,%a0)")
        );
        assert_eq!(short("move.w #0, %d1").as_deref(), Some("\tclr.w\t%d1"));
        assert_eq!(
            short("move.b #0, -(%sp)").as_deref(),
            Some("\tclr.b\t-(%sp)")
        );
        assert_eq!(
            short("lea (6,%sp), %sp").as_deref(),
            Some("\taddq.l\t#6, %sp")
        );
        assert_eq!(
            short("lea (-8,%a2), %a2").as_deref(),
            Some("\tsubq.l\t#8, %a2")
        );
        // Not equivalent or not shorter: left alone.
        for s in [
            "move.l #0, %a0",     // movea sets no flags; clr sets Z
            "cmpi.l #1, %d0",     // not zero
            "cmpi.l #0, (4,%pc)", // no tst (d16,PC) on the 68000
            "move.l #sym, (%a0)", // not a known zero
            "lea (10,%sp), %sp",  // beyond addq's 1..8
            "lea (0,%sp), %sp",   // addq #0 does not exist
            "lea (4,%a1), %a0",   // another register
            "lea (4,%pc), %a0",
            "move.l %d0, (%a0)",
        ] {
            assert_eq!(short(s), None, "{s}");
        }
    }

    #[test]
    fn movem_forms() {
        assert_eq!(ccr("move.l %d0, (8,%sp)"), ["\tmovem.l\t%d0, (8,%sp)"]);
        assert_eq!(ccr("move.l (-36,%a6), %d3"), ["\tmovem.l\t(-36,%a6), %d3"]);
        assert_eq!(ccr("move.l %a2, -(%sp)"), ["\tmovem.l\t%a2, -(%sp)"]);
        assert_eq!(ccr("move.l (%sp)+, %d1"), ["\tmovem.l\t(%sp)+, %d1"]);
    }

    #[test]
    fn save_restore_forms() {
        assert_eq!(
            ccr("move.l %d6, %d5"),
            [SAVE_CCR, "\tmove.l\t%d6, %d5", RESTORE_CCR]
        );
        assert_eq!(
            ccr("moveq #0, %d5"),
            [SAVE_CCR, "\tmoveq\t#0, %d5", RESTORE_CCR]
        );
        assert_eq!(
            ccr("move.l #0, (12,%sp)"),
            [SAVE_CCR, "\tmove.l\t#0, (14,%sp)", RESTORE_CCR]
        );
        assert_eq!(
            ccr("move.w (%sp), %d0"),
            [SAVE_CCR, "\tmove.w\t(2,%sp), %d0", RESTORE_CCR]
        );
        assert_eq!(
            ccr("move.b (3,%sp,%d1), (%sp)"),
            [SAVE_CCR, "\tmove.b\t(5,%sp,%d1), (2,%sp)", RESTORE_CCR]
        );
        assert_eq!(
            ccr("move.l (8,%a6), -(%sp)"),
            [
                "\tsubq.l\t#4, %sp",
                SAVE_CCR,
                "\tmove.l\t(8,%a6), (2,%sp)",
                RESTORE_CCR
            ]
        );
        assert_eq!(
            ccr("move.l (4,%sp), -(%sp)"),
            [
                "\tsubq.l\t#4, %sp",
                SAVE_CCR,
                "\tmove.l\t(10,%sp), (2,%sp)",
                RESTORE_CCR
            ]
        );
        assert_eq!(
            ccr("move.b %d0, -(%sp)"),
            [
                "\tsubq.l\t#2, %sp",
                SAVE_CCR,
                "\tmove.b\t%d0, (2,%sp)",
                RESTORE_CCR
            ]
        );
        assert_eq!(
            ccr("move.w (%sp)+, (4,%sp)"),
            [
                SAVE_CCR,
                "\tmove.w\t(2,%sp), (8,%sp)",
                RESTORE_CCR,
                "\taddq.l\t#2, %sp"
            ]
        );
        assert_eq!(
            ccr("move.l %sp, %d0"),
            [
                SAVE_CCR,
                "\tmove.l\t%sp, %d0",
                "\taddq.l\t#2, %d0",
                RESTORE_CCR
            ]
        );
        assert!(ccr_neutral_move(&parse_insn("move.l -(%sp), %d0")).is_err());
        assert!(ccr_neutral_move(&parse_insn("move.l (32767,%sp), %d0")).is_ok());
        assert!(ccr_neutral_move(&parse_insn("move.w (32767,%sp), %d0")).is_err());
    }

    #[test]
    fn address_register_operands() {
        let r = |s: &str| addr_reg_operand(&parse_insn(s));
        assert_eq!(
            r("and.l #65535, %a2").unwrap(),
            ["\texg\t%d0, %a2", "\tand.l\t#65535, %d0", "\texg\t%d0, %a2"]
        );
        assert_eq!(
            r("eor.l %d0, %a1").unwrap(),
            ["\texg\t%d1, %a1", "\teor.l\t%d0, %d1", "\texg\t%d1, %a1"]
        );
        assert!(r("and.l (%a2), %a2").is_err());
        assert!(r("and.l #-16, %sp").is_err());
    }

    #[test]
    fn mul_and_misc() {
        assert_eq!(
            mul_long(&parse_insn("mulu.l %d1, %d0"), false).unwrap(),
            [
                "\tmove.l\t%d1, -(%sp)",
                "\tmove.l\t%d0, -(%sp)",
                "\tjsr\t(__asm_repair_mulu32,%pc)",
                "\tmovem.l\t(%sp)+, %d0",
                "\taddq.l\t#4, %sp"
            ]
        );
        assert_eq!(
            extb(&parse_insn("extb.l %d2")).unwrap(),
            ["\text.w\t%d2", "\text.l\t%d2"]
        );
        assert_eq!(drop_size(&parse_insn("bra.l .L1")), ["\tbra\t.L1"]);
        assert_eq!(
            link_word(&parse_insn("link.l %a6, #-8")),
            ["\tlink.w\t%a6, #-8"]
        );
    }
}
