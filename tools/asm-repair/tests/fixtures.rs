//! The pass on real LLVM output (tests/fixtures/*.s, each with a header that
//! says how it was produced): exactly which lines are rewritten and into
//! what, which are left alone, and that GNU as `-m68000` rejects the
//! original where it must and accepts every repaired fixture.

mod common;

use m68k_asm_repair::{Fix, FixKind, repair};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}.s", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// (line, kind, before, after) of every fix except the `@PLT` operand
/// edits, which `plt_lines` checks, and the shorter forms, which
/// `shorter_forms` checks.
fn summary(fixes: &[Fix]) -> Vec<(usize, FixKind, String, String)> {
    fixes
        .iter()
        .filter(|f| f.kind != FixKind::Plt && f.kind != FixKind::Shorter)
        .map(|f| (f.line, f.kind, f.before.clone(), f.after.clone()))
        .collect()
}

/// Lines whose `(sym@PLT,%pc)` became `(sym,%pc)` (and nothing else).
fn plt_lines(fixes: &[Fix]) -> Vec<usize> {
    fixes
        .iter()
        .filter(|f| f.kind == FixKind::Plt)
        .inspect(|f| assert_eq!(f.after, f.before.replace("@PLT,", ",")))
        .map(|f| f.line)
        .collect()
}

fn fix(
    line: usize,
    kind: FixKind,
    before: &str,
    after: &[&str],
) -> (usize, FixKind, String, String) {
    (line, kind, before.to_string(), after.join("\n"))
}

const SAVE: &str = "\tmove.w\t%sr, -(%sp)";
const RESTORE: &str = "\tmove.w\t(%sp)+, %ccr";

fn gas(name: &str, src: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("tempdir");
    common::assemble(dir.path(), name, src, "68000").map(|_| ())
}

#[test]
fn u32_div_rem_copy_between_sub_and_bpl() {
    let src = fixture("cb_u32_div_rem");
    let r = repair(&src, "cb_u32_div_rem.s").expect("repairable");
    let name = "compiler_builtins::int::specialized_div_rem::u32_div_rem";
    assert_eq!(
        summary(&r.fixes),
        [fix(
            134,
            FixKind::CcrMove,
            "\tmove.l\t%d6, %d5",
            &[SAVE, "\tmove.l\t%d6, %d5", RESTORE]
        )]
    );
    assert_eq!(r.fixes[0].function, name);
    // The rewritten text: a comment with the original, then the sequence.
    let out: Vec<&str> = r.text.lines().collect();
    assert_eq!(
        &out[132..138],
        [
            "\tsub.l\t%d4, %d7",
            "\t| asm-repair[ccr-move]: move.l %d6, %d5  (llvm-project#152816: this copy destroyed \
             live flags)",
            SAVE,
            "\tmove.l\t%d6, %d5",
            RESTORE,
            "\tjbpl\t.LBB35_7",
        ]
    );
    assert_eq!(r.input_line(134), Some(134));
    assert_eq!(r.input_line(137), Some(134));
    assert_eq!(r.input_line(138), Some(135));
    // Everything else is copied byte for byte.
    let mut back: Vec<&str> = Vec::new();
    let mut skip = 0;
    for (i, l) in out.iter().enumerate() {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        if i == 133 {
            back.push(src.lines().nth(133).expect("line 134"));
            skip = 3;
            continue;
        }
        back.push(l);
    }
    // The shorter forms (checked by `shorter_forms`) put back.
    for f in r.fixes.iter().filter(|f| f.kind == FixKind::Shorter) {
        assert_eq!(back[f.line - 1], f.after, "line {}", f.line);
        back[f.line - 1] = &f.before;
    }
    assert_eq!(back, src.lines().collect::<Vec<_>>());
    gas("u32_div_rem", &r.text).expect("gas accepts the repaired text");
}

/// The liveness decides: copies right after a flag-setting instruction are
/// left alone when the flags are overwritten before anything reads them.
#[test]
fn liveness_leaves_copies_alone_when_ccr_is_dead() {
    let src = fixture("cb_u32_div_rem");
    let lines: Vec<&str> = src.lines().collect();
    let r = repair(&src, "cb_u32_div_rem.s").expect("repairable");
    let rewritten: Vec<usize> = r.fixes.iter().map(|f| f.line).collect();
    // (line, text, why the flags are dead after it)
    for (line, text) in [
        (128, "\tmove.l\t%d3, %d5"), // after add.l #-1: and.l overwrites CCR next
        (132, "\tmove.l\t%d2, %d7"), // after lsr.l: sub.l overwrites CCR next
        (136, "\tmoveq\t#0, %d5"),   // after bpl: or.l at .LBB35_7 overwrites CCR
        (143, "\tmove.l\t%d7, %d2"), // after bcc: the path to rts reads no flag
        (144, "\tmove.l\t%d5, %d0"),
        (147, "\tmove.l\t%d6, %d0"), // after a taken bcc: cmpi.l comes first
    ] {
        assert_eq!(lines[line - 1], text);
        assert!(
            !rewritten.contains(&line),
            "line {line} must not be rewritten"
        );
    }
    // ... and the one whose N is read by the next bpl is.
    assert_eq!(lines[133], "\tmove.l\t%d6, %d5");
    assert!(rewritten.contains(&134));
}

#[test]
fn mulhc3_address_register_and_and_word_copies() {
    let src = fixture("cb_mulhc3");
    // GNU as refuses the original.
    let err = gas("mulhc3_orig", &src).expect_err("gas must reject and.l to %a2");
    assert!(err.contains("and.l #65535,%a2"), "{err}");
    let r = repair(&src, "cb_mulhc3.s").expect("repairable");
    assert_eq!(
        summary(&r.fixes),
        [
            fix(
                32,
                FixKind::AddressRegister,
                "\tand.l\t#65535, %a2",
                &["\texg\t%d0, %a2", "\tand.l\t#65535, %d0", "\texg\t%d0, %a2"]
            ),
            fix(
                45,
                FixKind::AddressRegister,
                "\tand.l\t#65535, %a3",
                &["\texg\t%d0, %a3", "\tand.l\t#65535, %d0", "\texg\t%d0, %a3"]
            ),
            fix(
                167,
                FixKind::CcrMove,
                "\tmove.w\t%d0, %d3",
                &[SAVE, "\tmove.w\t%d0, %d3", RESTORE]
            ),
            fix(
                243,
                FixKind::CcrMove,
                "\tmove.w\t%d0, %d6",
                &[SAVE, "\tmove.w\t%d0, %d6", RESTORE]
            ),
        ]
    );
    assert!(
        r.fixes
            .iter()
            .all(|f| f.function == "compiler_builtins::float::complex::mul::__rust_mulhc3")
    );
    let jsr_plt: Vec<usize> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("@PLT,%pc)"))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(jsr_plt.len(), 66);
    assert_eq!(plt_lines(&r.fixes), jsr_plt);
    assert_eq!(
        r.summary(),
        "repaired 2 CCR-clobbering moves, 2 address-register operands (and/or/eor/cmpi/tst on \
         %aN), 66 @PLT operands, 54 shorter equivalent forms (tst, clr, addq/subq, jbcc, \
         move for movem, tst dropped)"
    );
    gas("mulhc3", &r.text).expect("gas accepts the repaired text");
}

#[test]
fn median3_select_copies() {
    let src = fixture("app_median3");
    let r = repair(&src, "app_median3.s").expect("repairable");
    assert_eq!(
        summary(&r.fixes),
        [
            // sub.l %d2,%d0 / move.l %d1,%d0 / bhi: the copy kills C and Z.
            fix(
                24,
                FixKind::CcrMove,
                "\tmove.l\t%d1, %d0",
                &[SAVE, "\tmove.l\t%d1, %d0", RESTORE]
            ),
            // Fall-through path into `bcs` at .LBB5_2: C is still live.
            fix(
                26,
                FixKind::CcrMove,
                "\tmove.l\t%d2, %d0",
                &[SAVE, "\tmove.l\t%d2, %d0", RESTORE]
            ),
        ]
    );
    gas("median3", &r.text).expect("gas accepts the repaired text");
}

fn mul_call(src: &str, dst: &str, helper: &str) -> Vec<String> {
    vec![
        format!("\tmove.l\t{src}, -(%sp)"),
        format!("\tmove.l\t{dst}, -(%sp)"),
        format!("\tjsr\t({helper},%pc)"),
        format!("\tmovem.l\t(%sp)+, {dst}"),
        "\taddq.l\t#4, %sp".to_string(),
    ]
}

#[test]
fn checked_mul_becomes_helper_calls() {
    for (name, line, before, src, dst, helper) in [
        (
            "app_cmul",
            21,
            "\tmulu.l\t%d1, %d0",
            "%d1",
            "%d0",
            "__asm_repair_mulu32",
        ),
        (
            "app_smul",
            21,
            "\tmuls.l\t%d1, %d0",
            "%d1",
            "%d0",
            "__asm_repair_muls32",
        ),
        (
            "app_omul",
            22,
            "\tmuls.l\t%d0, %d1",
            "%d0",
            "%d1",
            "__asm_repair_muls32",
        ),
    ] {
        let text = fixture(name);
        let err = gas(&format!("{name}_orig"), &text).expect_err("gas must reject mulx.l");
        assert!(err.contains("needs 68020"), "{err}");
        let r = repair(&text, name).expect("repairable");
        let after = mul_call(src, dst, helper);
        let after: Vec<&str> = after.iter().map(String::as_str).collect();
        assert_eq!(
            summary(&r.fixes),
            [fix(line, FixKind::MulLong, before, &after)],
            "{name}"
        );
        gas(name, &r.text).expect("gas accepts the repaired text");
    }
}

#[test]
fn inline_asm_markers_become_gas_comments() {
    let src = fixture("app_opaque_sum");
    let err = gas("opaque_orig", &src).expect_err("gas reads ;APP as an instruction");
    assert!(err.contains("Unknown operator"), "{err}");
    let r = repair(&src, "app_opaque_sum.s").expect("repairable");
    assert_eq!(
        summary(&r.fixes),
        [
            fix(23, FixKind::Comment, "\t;APP", &["\t|APP"]),
            fix(24, FixKind::Comment, "\t;NO_APP", &["\t|NO_APP"]),
        ]
    );
    gas("opaque", &r.text).expect("gas accepts the repaired text");
}

/// Naked functions and `global_asm!` are printed as file-scope asm (no
/// `;APP`); their moves set flags on purpose and must stay as written, like
/// moves inside inline asm.
#[test]
fn hand_written_asm_keeps_flag_setting_moves() {
    let src = fixture("app_hand_written");
    let r = repair(&src, "app_hand_written.s").expect("repairable");
    assert_eq!(r.fixes, []);
    assert_eq!(r.text, src);
    gas("hand_written", &r.text).expect("gas accepts it");

    let src = fixture("app_inline_nonzero");
    let r = repair(&src, "app_inline_nonzero.s").expect("repairable");
    assert_eq!(
        summary(&r.fixes),
        [
            fix(20, FixKind::Comment, "\t;APP", &["\t|APP"]),
            fix(25, FixKind::Comment, "\t;NO_APP", &["\t|NO_APP"]),
        ]
    );
    assert_eq!(src.lines().nth(20), Some("\tmove.l\t%d1, %d0"));
    gas("inline_nonzero", &r.text).expect("gas accepts it");
}

#[test]
fn jump_table_function_needs_only_the_plt_edit() {
    let src = fixture("app_jump_table");
    let r = repair(&src, "app_jump_table.s").expect("repairable");
    assert_eq!(summary(&r.fixes), []);
    assert_eq!(plt_lines(&r.fixes), [37]);
    // Besides the shorter forms (`shorter_forms`), only the `@PLT` edit.
    let mut text: Vec<&str> = r.text.lines().collect();
    for f in r.fixes.iter().filter(|f| f.kind == FixKind::Shorter) {
        assert_eq!(text[f.line - 1], f.after, "line {}", f.line);
        text[f.line - 1] = &f.before;
    }
    let plain = src.replace("__udivsi3@PLT,", "__udivsi3,");
    assert_eq!(text, plain.lines().collect::<Vec<_>>());
    gas("jump_table", &r.text).expect("gas accepts it");
}

/// GNU as turns LLVM's `(sym@PLT,%pc)` into an R_68K_PLT16O (PLT offset)
/// relocation, not the PC-relative R_68K_PLT16 that LLVM's own object writer
/// emits; the repaired `(sym,%pc)` is a plain R_68K_PC16.
#[test]
fn plt_operand_relocations() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = fixture("app_jump_table");
    let relocs = |name: &str, text: &str| {
        let o = common::assemble(dir.path(), name, text, "68000").expect("gas");
        let out = std::process::Command::new("m68k-linux-gnu-readelf")
            .args(["-rW", o.to_str().expect("utf-8")])
            .output()
            .expect("m68k-linux-gnu-readelf: run ci/setup");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let raw = relocs("plt_raw", &src);
    assert!(
        raw.contains("R_68K_PLT16O") && raw.contains("__udivsi3"),
        "{raw}"
    );
    let fixed = relocs("plt_fixed", &repair(&src, "t.s").expect("repairable").text);
    assert!(!fixed.contains("PLT"), "{fixed}");
    assert!(
        fixed.contains("R_68K_PC16") && fixed.contains("__udivsi3"),
        "{fixed}"
    );
}

#[test]
fn debug_info_file_directives() {
    let src = fixture("app_dbg_head");
    let err = gas("dbg_orig", &src).expect_err("gas 2.40 rejects the DWARF 5 .file");
    assert!(err.contains("junk at end of line"), "{err}");
    let r = repair(&src, "app_dbg_head.s").expect("repairable");
    let kinds: Vec<(usize, FixKind)> = r
        .fixes
        .iter()
        .filter(|f| f.kind != FixKind::Shorter)
        .map(|f| (f.line, f.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            (44, FixKind::DwarfFile),
            (132, FixKind::DwarfFile),
            (134, FixKind::MulLong),
            (136, FixKind::DwarfFile),
        ]
    );
    let fixes: Vec<&Fix> = r
        .fixes
        .iter()
        .filter(|f| f.kind != FixKind::Shorter)
        .collect();
    assert_eq!(fixes[0].after, "\t.file\t1 \"/tmp/asmrep/e2e/app.rs\"");
    assert!(
        fixes[1]
            .after
            .ends_with("/library/core/src/num/uint_macros.rs\"")
    );
    assert_eq!(fixes[2].function, "cmul");
    gas("dbg", &r.text).expect("gas accepts the repaired text");
}

/// Damaged input (random edits of the fixtures, including multi-byte
/// characters) gives a repair or an error, never a panic.
#[test]
fn mutated_inputs_never_panic() {
    const ALPHABET: &[&str] = &[
        "(", ")", "%", "#", "-", "+", ":", ";", "|", "\"", "@", ".", ",", "\t", " ", "a", "d",
        "%sp", "%d9", "%a7", "0", "9", "-(", ")+", "é", "∑", "\\", "move.l", "mulu.l", ".L", "bra",
        "jmp", "{", "}", "*4", ":l",
    ];
    let names = [
        "cb_u32_div_rem",
        "cb_mulhc3",
        "app_median3",
        "app_cmul",
        "app_jump_table",
        "app_opaque_sum",
        "app_dbg_head",
        "app_hand_written",
    ];
    let mut rng = common::Rng(0xF022_0000_0000_0001);
    let (mut ok, mut err) = (0, 0);
    for name in names {
        let src = fixture(name);
        let lines: Vec<&str> = src.lines().collect();
        for _ in 0..300 {
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            for _ in 0..1 + rng.next() % 8 {
                let i = (rng.next() % out.len() as u64) as usize;
                let line = &mut out[i];
                let cut = line
                    .char_indices()
                    .map(|(p, _)| p)
                    .nth((rng.next() % (line.chars().count() as u64 + 1)) as usize)
                    .unwrap_or(line.len());
                match rng.next() % 5 {
                    0 => line.truncate(cut),
                    1 => line
                        .insert_str(cut, ALPHABET[(rng.next() % ALPHABET.len() as u64) as usize]),
                    2 => {
                        let copy = line.clone();
                        out.insert(i, copy);
                    }
                    3 => {
                        out.remove(i);
                        if out.is_empty() {
                            out.push(String::new());
                        }
                    }
                    _ => {
                        let j = (rng.next() % out.len() as u64) as usize;
                        out.swap(i, j);
                    }
                }
            }
            match repair(&out.join("\n"), name) {
                Ok(_) => ok += 1,
                Err(e) => {
                    assert!(!e.problems.is_empty());
                    err += 1;
                }
            }
        }
    }
    assert!(ok > 0 && err > 0, "ok {ok}, err {err}");
}

/// The shorter forms on real LLVM output: each is one of the exact
/// equivalences (`cmpi #0` → `tst`, `move #0` → `clr`, `lea` → `addq`/
/// `subq`, `bcc` → `jbcc`, single-register `movem` → `move`/`movea`, `add
/// #-n` → `subq #n` where X/V/C are dead, a
/// redundant `tst`/`cmpi #0` dropped), never where the flags of a copy were
/// repaired, and gas assembles the result to fewer bytes.
#[test]
fn shorter_forms() {
    // tst, clr, addq/subq, jbcc, move(a), dropped, quick of −n
    let mut seen = [0usize; 7];
    for name in [
        "cb_u32_div_rem",
        "cb_mulhc3",
        "app_opaque_sum",
        "app_dbg_head",
        "app_system_chunk",
        "app_walk",
    ] {
        let src = fixture(name);
        let r = repair(&src, name).expect("repairable");
        for f in r.fixes.iter().filter(|f| f.kind == FixKind::Shorter) {
            let (b, a) = (f.before.trim(), f.after.trim());
            let (bm, bops) = b.split_once('\t').unwrap();
            if a.is_empty() {
                // Dropped: a test of the register the instruction before set.
                let reg = bops.strip_prefix("#0, ").unwrap_or(bops);
                assert!(bm.starts_with("tst.") || bm.starts_with("cmpi."), "{b}");
                assert!(reg.starts_with("%d"), "{b}");
                // The instruction before it (past `.loc` lines and
                // `.LtmpN` labels).
                let src_lines: Vec<&str> = src.lines().collect();
                let before = src_lines[..f.line - 1]
                    .iter()
                    .rev()
                    .find(|l| l.starts_with('\t') && !l.starts_with("\t."))
                    .unwrap();
                assert!(before.ends_with(reg), "{before} / {b}");
                seen[5] += 1;
                continue;
            }
            let (am, aops) = a.split_once('\t').unwrap();
            let size = |m: &str| m.rsplit_once('.').map(|(_, s)| s.to_string());
            if let Some(dst) = bops.strip_prefix("#0, ") {
                assert_eq!(aops, dst, "{b} → {a}");
                assert_eq!(size(bm), size(am), "{b} → {a}");
                assert!(!dst.starts_with("%a") && !dst.contains("%pc"), "{b}");
                match bm.split('.').next().unwrap() {
                    "cmpi" | "cmp" => {
                        assert!(am.starts_with("tst."), "{b} → {a}");
                        seen[0] += 1;
                    }
                    "move" => {
                        assert!(am.starts_with("clr."), "{b} → {a}");
                        seen[1] += 1;
                    }
                    other => panic!("{other}: {b} → {a}"),
                }
            } else if bm.starts_with('b') {
                assert_eq!((am, aops), (format!("j{bm}").as_str(), bops), "{b}");
                seen[3] += 1;
            } else if let Some(n) = bops.strip_prefix("#-") {
                // add/sub of −n as subq/addq of n.
                let (n, dst) = n.split_once(", ").unwrap();
                let (op, sz) = bm.split_once('.').unwrap();
                let want_op = if op.starts_with("add") {
                    "subq"
                } else {
                    "addq"
                };
                let want_sz = if dst.starts_with("%a") { "l" } else { sz };
                assert_eq!(am, format!("{want_op}.{want_sz}"), "{b} → {a}");
                assert_eq!(aops, format!("#{n}, {dst}"), "{b} → {a}");
                seen[6] += 1;
            } else if let Some(sz) = bm.strip_prefix("movem.") {
                assert_eq!(aops, bops, "{b} → {a}");
                let to_areg = aops.rsplit(", ").next().unwrap().starts_with("%a");
                let want = if to_areg && !bops.starts_with('%') {
                    format!("movea.{sz}")
                } else {
                    format!("move.{sz}")
                };
                assert_eq!(am, want, "{b} → {a}");
                seen[4] += 1;
            } else {
                assert_eq!(bm, "lea", "{b} → {a}");
                let (disp, reg) = bops
                    .strip_prefix('(')
                    .and_then(|s| s.split_once(','))
                    .unwrap();
                let n: i64 = disp.parse().unwrap();
                let (base, dst) = reg.split_once("), ").unwrap();
                assert_eq!(base, dst, "{b}");
                let want = if n > 0 {
                    format!("addq.l\t#{n}, {dst}")
                } else {
                    format!("subq.l\t#{}, {dst}", -n)
                };
                assert_eq!(a, want, "{b}");
                seen[2] += 1;
            }
        }
        gas(name, &r.text).expect("gas accepts the result");
        if name == "app_system_chunk" {
            // The trap glue's `lea` is inline asm: kept as written.
            assert!(r.text.contains("\tlea\t(4,%sp), %sp\n"), "{}", r.text);
            assert!(r.text.contains("\tlea\t(6,%sp), %sp\n"), "{}", r.text);
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "tst, clr, addq/subq, jbcc, move(a), dropped tst and quick −n all seen: {seen:?}"
    );
}
