//! Line-level parser for the assembly LLVM's m68k backend prints (`--emit=asm`).
//!
//! The syntax is GNU as' MIT/Motorola mix with `%`-prefixed registers:
//! `move.l (8,%a6), %d0`, `movem.l %d2-%d7/%a2, (-28,%a6)`, `jsr (sym@PLT,%pc)`,
//! `add.l (0,%a2,%d2), %d3`. Every line keeps its original text; only lines
//! that are rewritten are printed again.

use std::fmt;

/// Operation size suffix of an instruction (`.b`, `.w`, `.l`, `.s`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Size {
    /// `.b`
    B,
    /// `.w`
    W,
    /// `.l`
    L,
    /// `.s` (short branch)
    S,
}

impl Size {
    fn suffix(self) -> &'static str {
        match self {
            Size::B => "b",
            Size::W => "w",
            Size::L => "l",
            Size::S => "s",
        }
    }
}

/// A data or address register. `A(7)` is the stack pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reg {
    /// `%d0`..`%d7`
    D(u8),
    /// `%a0`..`%a7` (`%fp` = `%a6`, `%sp` = `%a7`)
    A(u8),
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reg::D(n) => write!(f, "%d{n}"),
            Reg::A(7) => f.write_str("%sp"),
            Reg::A(n) => write!(f, "%a{n}"),
        }
    }
}

/// Base register of a displacement or index operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Base {
    /// An address register.
    A(u8),
    /// The program counter.
    Pc,
}

impl fmt::Display for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Base::A(n) => Reg::A(n).fmt(f),
            Base::Pc => f.write_str("%pc"),
        }
    }
}

/// An expression operand part (displacement, immediate, branch target); the
/// value is known when it is a plain integer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Expr {
    pub text: String,
    pub value: Option<i64>,
}

impl Expr {
    pub(crate) fn new(text: &str) -> Expr {
        let text = text.trim();
        Expr {
            text: text.to_string(),
            value: parse_int(text),
        }
    }

    pub(crate) fn num(value: i64) -> Expr {
        Expr {
            text: value.to_string(),
            value: Some(value),
        }
    }
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if digits.is_empty() {
        return None;
    }
    let v = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i64::from_str_radix(hex, 16).ok()?
    } else if digits.bytes().all(|b| b.is_ascii_digit()) {
        digits.parse::<i64>().ok()?
    } else {
        return None;
    };
    Some(if neg { -v } else { v })
}

/// One instruction operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Operand {
    /// `%dN` / `%aN`
    Reg(Reg),
    /// `%ccr`
    Ccr,
    /// `%sr`
    Sr,
    /// `%usp`
    Usp,
    /// `#expr`
    Imm(Expr),
    /// `(%aN)`
    Ind(u8),
    /// `(%aN)+`
    PostInc(u8),
    /// `-(%aN)`
    PreDec(u8),
    /// `(d,%aN)` or `(d,%pc)`
    Disp { disp: Expr, base: Base },
    /// `(d,%aN,%xN)` or `(d,%pc,%xN)`, with the index suffix as written.
    Index {
        disp: Expr,
        base: Base,
        index: Reg,
        suffix: String,
        scale: u8,
    },
    /// A bare expression: branch target, absolute address.
    Abs(Expr),
    /// A MOVEM register list (bit 0..7 = d0..d7, bit 8..15 = a0..a7).
    RegList(u16),
    /// `%dH:%dL` (68020 64-bit multiply/divide).
    RegPair(Reg, Reg),
    /// Anything else (bit-field specifiers, MIT `@` syntax, ...), as written.
    Other(String),
}

impl Operand {
    /// Registers this operand reads or writes (bit 0..7 = d0..d7, 8..15 = a0..a7).
    pub(crate) fn reg_mask(&self) -> u16 {
        fn bit(r: Reg) -> u16 {
            match r {
                Reg::D(n) => 1 << n,
                Reg::A(n) => 1 << (8 + n),
            }
        }
        match self {
            Operand::Reg(r) => bit(*r),
            Operand::Ind(n) | Operand::PostInc(n) | Operand::PreDec(n) => bit(Reg::A(*n)),
            Operand::Disp { base, .. } => match base {
                Base::A(n) => bit(Reg::A(*n)),
                Base::Pc => 0,
            },
            Operand::Index { base, index, .. } => {
                let b = match base {
                    Base::A(n) => bit(Reg::A(*n)),
                    Base::Pc => 0,
                };
                b | bit(*index)
            }
            Operand::RegList(m) => *m,
            Operand::RegPair(a, b) => bit(*a) | bit(*b),
            // Unknown syntax: assume it may use any register.
            Operand::Other(_) => 0xFFFF,
            Operand::Ccr | Operand::Sr | Operand::Usp | Operand::Imm(_) | Operand::Abs(_) => 0,
        }
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => r.fmt(f),
            Operand::Ccr => f.write_str("%ccr"),
            Operand::Sr => f.write_str("%sr"),
            Operand::Usp => f.write_str("%usp"),
            Operand::Imm(e) => write!(f, "#{}", e.text),
            Operand::Ind(n) => write!(f, "({})", Reg::A(*n)),
            Operand::PostInc(n) => write!(f, "({})+", Reg::A(*n)),
            Operand::PreDec(n) => write!(f, "-({})", Reg::A(*n)),
            Operand::Disp { disp, base } => write!(f, "({},{})", disp.text, base),
            Operand::Index {
                disp,
                base,
                index,
                suffix,
                scale,
            } => {
                write!(f, "({},{},{}{}", disp.text, base, index, suffix)?;
                if *scale != 1 {
                    write!(f, "*{scale}")?;
                }
                f.write_str(")")
            }
            Operand::Abs(e) => f.write_str(&e.text),
            Operand::RegList(m) => write_reg_list(f, *m),
            Operand::RegPair(a, b) => write!(f, "{a}:{b}"),
            Operand::Other(s) => f.write_str(s),
        }
    }
}

fn write_reg_list(f: &mut fmt::Formatter<'_>, mask: u16) -> fmt::Result {
    let mut first = true;
    let mut i = 0u8;
    while i < 16 {
        if mask & (1 << i) == 0 {
            i += 1;
            continue;
        }
        // A run stays within one register bank.
        let mut j = i;
        while j + 1 < 16 && (j + 1) % 8 != 0 && mask & (1 << (j + 1)) != 0 {
            j += 1;
        }
        let reg = |k: u8| if k < 8 { Reg::D(k) } else { Reg::A(k - 8) };
        if !first {
            f.write_str("/")?;
        }
        first = false;
        if j == i {
            write!(f, "{}", reg(i))?;
        } else {
            write!(f, "{}-{}", reg(i), reg(j))?;
        }
        i = j + 1;
    }
    Ok(())
}

/// A parsed instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Insn {
    /// Lower-case mnemonic without the size suffix (`move`, `bcc`, `mulu`).
    pub mnemonic: String,
    /// Size suffix, if any.
    pub size: Option<Size>,
    /// Operands in source order.
    pub operands: Vec<Operand>,
}

impl Insn {
    pub(crate) fn new(mnemonic: &str, size: Option<Size>, operands: Vec<Operand>) -> Insn {
        Insn {
            mnemonic: mnemonic.to_string(),
            size,
            operands,
        }
    }

    /// Registers mentioned by any operand.
    pub(crate) fn reg_mask(&self) -> u16 {
        self.operands.iter().fold(0, |m, o| m | o.reg_mask())
    }
}

impl fmt::Display for Insn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\t")?;
        f.write_str(&self.mnemonic)?;
        if let Some(s) = self.size {
            write!(f, ".{}", s.suffix())?;
        }
        for (i, op) in self.operands.iter().enumerate() {
            f.write_str(if i == 0 { "\t" } else { ", " })?;
            op.fmt(f)?;
        }
        Ok(())
    }
}

/// What a line holds after its label (if any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stmt<'a> {
    /// Nothing (blank, comment only, or a label alone).
    Empty,
    /// An assembler directive, e.g. `.section` with its argument text.
    Directive { name: &'a str, args: &'a str },
    /// A machine instruction.
    Insn(Insn),
}

/// One input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    /// The text as read (without the line terminator).
    pub text: &'a str,
    /// A label defined at the start of the line.
    pub label: Option<&'a str>,
    /// The statement after the label.
    pub stmt: Stmt<'a>,
    /// Byte offset of an LLVM `;` comment in `text` (GNU as on m68k reads
    /// `;` as a statement separator, not a comment).
    pub semicolon: Option<usize>,
}

/// Splits `text` into lines and parses each one. Never fails: what cannot be
/// understood is kept as `Operand::Other` or an unknown mnemonic and judged
/// later.
pub(crate) fn parse_lines(text: &str) -> Vec<Line<'_>> {
    text.lines().map(parse_line).collect()
}

/// Finds the first byte of `s` equal to `want` outside string literals.
fn find_outside_strings(s: &str, want: u8) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut in_str = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_str {
            if b == b'\\' {
                i += 1;
            } else if b == b'"' {
                in_str = false;
            }
        } else if b == b'"' {
            in_str = true;
        } else if b == want {
            return Some(i);
        }
        i += 1;
    }
    None
}

pub(crate) fn parse_line(text: &str) -> Line<'_> {
    // GNU as comments: `|` anywhere, `#` at the start of a line. A `;`
    // inside one of them is comment text, not an LLVM comment.
    let gas_comment = if text.trim_start().starts_with('#') {
        Some(0)
    } else {
        find_outside_strings(text, b'|')
    };
    let semicolon = find_outside_strings(text, b';').filter(|&i| gas_comment.is_none_or(|c| i < c));
    let code = match (semicolon, gas_comment) {
        (Some(i), _) | (None, Some(i)) => &text[..i],
        (None, None) => text,
    };
    let (label, rest) = split_label(code);
    let rest = rest.trim();
    let stmt = if rest.is_empty() {
        Stmt::Empty
    } else if let Some(args) = assignment(rest) {
        Stmt::Directive { name: "=", args }
    } else if rest.starts_with('.') {
        let (name, args) = match rest.find(|c: char| c.is_whitespace()) {
            Some(i) => (&rest[..i], rest[i..].trim()),
            None => (rest, ""),
        };
        Stmt::Directive { name, args }
    } else {
        Stmt::Insn(parse_insn(rest))
    };
    Line {
        text,
        label,
        stmt,
        semicolon,
    }
}

/// `sym = expr` (or `sym == expr`): a symbol assignment, as LLVM prints
/// aliases. Returns the expression.
fn assignment(stmt: &str) -> Option<&str> {
    let name_len = if let Some(quoted) = stmt.strip_prefix('"') {
        quoted.find('"')? + 2
    } else {
        stmt.bytes()
            .take_while(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$')
            .count()
    };
    if name_len == 0 {
        return None;
    }
    let rest = stmt[name_len..].trim_start();
    let rest = rest.strip_prefix("==").or_else(|| rest.strip_prefix('='))?;
    Some(rest.trim())
}

fn split_label(code: &str) -> (Option<&str>, &str) {
    let t = code.trim_start();
    let bytes = t.as_bytes();
    if bytes.first() == Some(&b'"') {
        if let Some(end) = t[1..].find('"') {
            let name_end = end + 2;
            if t[name_end..].starts_with(':') {
                return (Some(&t[..name_end]), &t[name_end + 1..]);
            }
        }
        return (None, code);
    }
    let n = bytes
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$')
        .count();
    if n > 0 && bytes.get(n) == Some(&b':') {
        return (Some(&t[..n]), &t[n + 1..]);
    }
    (None, code)
}

pub(crate) fn parse_insn(s: &str) -> Insn {
    let (mn, ops) = match s.find(|c: char| c.is_whitespace()) {
        Some(i) => (&s[..i], s[i..].trim()),
        None => (s, ""),
    };
    let mn = mn.to_ascii_lowercase();
    let (base, size) = match mn.rfind('.') {
        Some(i) => {
            let size = match &mn[i + 1..] {
                "b" => Some(Size::B),
                "w" => Some(Size::W),
                "l" => Some(Size::L),
                "s" => Some(Size::S),
                _ => None,
            };
            match size {
                Some(_) => (mn[..i].to_string(), size),
                None => (mn.clone(), None),
            }
        }
        None => (mn.clone(), None),
    };
    let operands = if ops.is_empty() {
        Vec::new()
    } else {
        split_operands(ops)
            .into_iter()
            .map(|o| parse_operand(o.trim()))
            .collect()
    };
    Insn {
        mnemonic: base,
        size,
        operands,
    }
}

fn split_operands(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut in_str = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => in_str = !in_str,
            '(' | '{' | '[' if !in_str => depth += 1,
            ')' | '}' | ']' if !in_str => depth -= 1,
            ',' if depth == 0 && !in_str => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

pub(crate) fn parse_reg(s: &str) -> Option<Reg> {
    let s = s.trim();
    let name = s.strip_prefix('%')?;
    match name {
        "sp" => return Some(Reg::A(7)),
        "fp" => return Some(Reg::A(6)),
        _ => {}
    }
    let b = name.as_bytes();
    if b.len() != 2 || !(b'0'..=b'7').contains(&b[1]) {
        return None;
    }
    let n = b[1] - b'0';
    match b[0] {
        b'd' | b'D' => Some(Reg::D(n)),
        b'a' | b'A' => Some(Reg::A(n)),
        _ => None,
    }
}

fn parse_areg(s: &str) -> Option<u8> {
    match parse_reg(s)? {
        Reg::A(n) => Some(n),
        Reg::D(_) => None,
    }
}

fn parse_base(s: &str) -> Option<Base> {
    if s.trim() == "%pc" {
        return Some(Base::Pc);
    }
    parse_areg(s).map(Base::A)
}

/// Index register with optional size (`.w`, `.l`, `:w`, `:l`) and scale (`*4`).
fn parse_index(s: &str) -> Option<(Reg, String, u8)> {
    let s = s.trim();
    let (body, scale) = match s.find('*') {
        Some(i) => (&s[..i], s[i + 1..].trim().parse::<u8>().ok()?),
        None => (s, 1),
    };
    let (reg, suffix) = match body.find(['.', ':']) {
        Some(i) => (&body[..i], body[i..].to_string()),
        None => (body, String::new()),
    };
    let reg = parse_reg(reg)?;
    match suffix.to_ascii_lowercase().as_str() {
        "" | ".w" | ".l" | ":w" | ":l" => Some((reg, suffix, scale)),
        _ => None,
    }
}

fn parse_reg_list(s: &str) -> Option<u16> {
    let mut mask = 0u16;
    for part in s.split('/') {
        let idx = |r: Reg| match r {
            Reg::D(n) => n,
            Reg::A(n) => n + 8,
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (idx(parse_reg(a)?), idx(parse_reg(b)?));
                if a > b {
                    return None;
                }
                for k in a..=b {
                    mask |= 1 << k;
                }
            }
            None => mask |= 1 << idx(parse_reg(part)?),
        }
    }
    Some(mask)
}

/// Parses the inside of `( ... )` with an optional displacement written in
/// front of the parentheses (`8(%a0)`).
fn parse_paren(outer_disp: Option<&str>, inner: &str) -> Option<Operand> {
    let parts: Vec<&str> = split_operands(inner).into_iter().map(str::trim).collect();
    let with_disp = |d: &str| -> Expr {
        match outer_disp {
            Some(o) => Expr::new(o),
            None => Expr::new(d),
        }
    };
    match parts.as_slice() {
        [one] => {
            let base = parse_base(one)?;
            match (base, outer_disp) {
                (Base::A(n), None) => Some(Operand::Ind(n)),
                (base, Some(d)) => Some(Operand::Disp {
                    disp: Expr::new(d),
                    base,
                }),
                (Base::Pc, None) => Some(Operand::Disp {
                    disp: Expr::num(0),
                    base: Base::Pc,
                }),
            }
        }
        [a, b] => {
            if let Some(base) = parse_base(a) {
                // (%aN,%xN)
                let (index, suffix, scale) = parse_index(b)?;
                Some(Operand::Index {
                    disp: with_disp("0"),
                    base,
                    index,
                    suffix,
                    scale,
                })
            } else if outer_disp.is_none() {
                let base = parse_base(b)?;
                Some(Operand::Disp {
                    disp: Expr::new(a),
                    base,
                })
            } else {
                None
            }
        }
        [d, b, x] if outer_disp.is_none() => {
            let base = parse_base(b)?;
            let (index, suffix, scale) = parse_index(x)?;
            Some(Operand::Index {
                disp: Expr::new(d),
                base,
                index,
                suffix,
                scale,
            })
        }
        _ => None,
    }
}

pub(crate) fn parse_operand(s: &str) -> Operand {
    let other = || Operand::Other(s.to_string());
    if let Some(imm) = s.strip_prefix('#') {
        return Operand::Imm(Expr::new(imm));
    }
    if let Some(inner) = s.strip_prefix("-(").and_then(|r| r.strip_suffix(')')) {
        return parse_areg(inner).map_or_else(other, Operand::PreDec);
    }
    if s.starts_with('(') {
        if let Some(inner) = s.strip_prefix('(').and_then(|r| r.strip_suffix(")+")) {
            return parse_areg(inner).map_or_else(other, Operand::PostInc);
        }
        if let Some(inner) = s.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            // `(a)(b)` is not one parenthesised group.
            if balanced(inner) {
                return parse_paren(None, inner).unwrap_or_else(other);
            }
        }
        return other();
    }
    if s.starts_with('%') {
        if let Some(r) = parse_reg(s) {
            return Operand::Reg(r);
        }
        match s {
            "%ccr" => return Operand::Ccr,
            "%sr" => return Operand::Sr,
            "%usp" => return Operand::Usp,
            _ => {}
        }
        if let Some((h, l)) = s.split_once(':')
            && let (Some(h), Some(l)) = (parse_reg(h), parse_reg(l))
        {
            return Operand::RegPair(h, l);
        }
        if s.contains(['-', '/'])
            && let Some(m) = parse_reg_list(s)
        {
            return Operand::RegList(m);
        }
        return other();
    }
    // `d(%aN)` / `d(%aN,%xN)` with the displacement in front.
    if s.ends_with(')')
        && let Some(open) = s.find("(%")
    {
        let inner = &s[open + 1..s.len() - 1];
        if balanced(inner) {
            return parse_paren(Some(&s[..open]), inner).unwrap_or_else(other);
        }
    }
    if s.contains(['(', '{', '@', '%']) {
        return other();
    }
    Operand::Abs(Expr::new(s))
}

fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(s: &str) -> Operand {
        parse_operand(s)
    }

    #[test]
    fn operands_in_llvm_syntax() {
        assert_eq!(op("%d3"), Operand::Reg(Reg::D(3)));
        assert_eq!(op("%sp"), Operand::Reg(Reg::A(7)));
        assert_eq!(op("%fp"), Operand::Reg(Reg::A(6)));
        assert_eq!(op("#-65536"), Operand::Imm(Expr::num(-65536)));
        assert_eq!(op("(%a0)"), Operand::Ind(0));
        assert_eq!(op("(%sp)+"), Operand::PostInc(7));
        assert_eq!(op("-(%sp)"), Operand::PreDec(7));
        assert_eq!(
            op("(-24,%a6)"),
            Operand::Disp {
                disp: Expr::num(-24),
                base: Base::A(6)
            }
        );
        assert_eq!(
            op("(__udivsi3@PLT,%pc)"),
            Operand::Disp {
                disp: Expr::new("__udivsi3@PLT"),
                base: Base::Pc
            }
        );
        assert_eq!(
            op("(0,%a2,%d2)"),
            Operand::Index {
                disp: Expr::num(0),
                base: Base::A(2),
                index: Reg::D(2),
                suffix: String::new(),
                scale: 1
            }
        );
        assert_eq!(
            op("8(%sp,%a0.l*4)"),
            Operand::Index {
                disp: Expr::num(8),
                base: Base::A(7),
                index: Reg::A(0),
                suffix: ".l".into(),
                scale: 4
            }
        );
        assert_eq!(op("%d2-%d7/%a2-%a4"), Operand::RegList(0x1CFC));
        assert_eq!(op("%d1:%d0"), Operand::RegPair(Reg::D(1), Reg::D(0)));
        assert_eq!(op(".LBB35_13"), Operand::Abs(Expr::new(".LBB35_13")));
        assert_eq!(op("%d0{#2:#5}"), Operand::Other("%d0{#2:#5}".into()));
        assert_eq!(op("%a0@(4)"), Operand::Other("%a0@(4)".into()));
    }

    #[test]
    fn operands_print_back() {
        for s in [
            "%d0",
            "%sp",
            "#7",
            "(%a0)",
            "(%sp)+",
            "-(%sp)",
            "(-24,%a6)",
            "(8,%sp)",
            "(sym@PLT,%pc)",
            "(0,%a2,%d2)",
            "%d2-%d7/%a2-%a4",
            "%d0/%d2",
            ".LBB0_1",
        ] {
            assert_eq!(op(s).to_string(), s);
        }
    }

    #[test]
    fn lines() {
        let l = parse_line("\tmove.l\t(8,%a6), %d0");
        let Stmt::Insn(i) = l.stmt else {
            panic!("not an insn")
        };
        assert_eq!(i.mnemonic, "move");
        assert_eq!(i.size, Some(Size::L));
        assert_eq!(i.to_string(), "\tmove.l\t(8,%a6), %d0");

        let l = parse_line(".LBB0_1:");
        assert_eq!(l.label, Some(".LBB0_1"));
        assert_eq!(l.stmt, Stmt::Empty);

        let l = parse_line("\t;APP");
        assert_eq!(l.semicolon, Some(1));
        assert_eq!(l.stmt, Stmt::Empty);

        let l = parse_line("\t.ascii\t\"a;b|c\"");
        assert_eq!(l.semicolon, None);
        assert!(matches!(l.stmt, Stmt::Directive { name: ".ascii", .. }));

        let l = parse_line("| a comment; with a semicolon");
        assert_eq!(l.semicolon, None);
        assert_eq!(l.stmt, Stmt::Empty);
        let l = parse_line("\tnop ; llvm comment | more");
        assert_eq!(l.semicolon, Some(5));

        let l = parse_line("_RNva = _RNvb");
        assert_eq!(
            l.stmt,
            Stmt::Directive {
                name: "=",
                args: "_RNvb"
            }
        );
        assert!(matches!(
            parse_line("\tmove.l\t%d0, %d1").stmt,
            Stmt::Insn(_)
        ));

        let l = parse_line("1:\tnop");
        assert_eq!(l.label, Some("1"));
        assert!(matches!(l.stmt, Stmt::Insn(_)));
    }

    #[test]
    fn garbage_does_not_panic() {
        for s in [
            "",
            "(",
            ")",
            "-(",
            "(%",
            "%",
            "#",
            "((,,))",
            "\"",
            "a:\"",
            "(1,2,3,4)",
            "%d9",
            "é(",
            "-(é)",
            "(%a0)(%a1)",
            "%d0-%a9",
            "%d3-%d1",
        ] {
            let _ = parse_line(s);
            let _ = parse_operand(s);
        }
    }
}
