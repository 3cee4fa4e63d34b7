//! String Manager (`System/StringMgr.h`, PALM_FACTS §4.3): StrCopy, StrLen,
//! StrIToA, StrIToH, StrPrintF with Palm's argument widths (`%d`/`%x`/`%u`/`%c`
//! take 2 bytes, `%ld` 4, `%s` a 4-byte pointer; PALM_FACTS §3.2).
#![allow(non_snake_case)]

use crate::machine::{Call, Machine, Stop};

fn read_str(m: &Machine, call: &Call, p: u32) -> Result<Vec<u8>, Stop> {
    m.mem
        .read_cstr(p, 0x1_0000)
        .map_err(|f| m.fault_in(call, f))
}

fn write_str(m: &mut Machine, call: &Call, p: u32, s: &[u8]) -> Result<(), Stop> {
    let mut v = s.to_vec();
    v.push(0);
    m.mem.write_bytes(p, &v).map_err(|f| m.fault_in(call, f))
}

/// `Char *StrCopy(Char *dst, const Char *src)`.
pub fn StrCopy(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let s = read_str(m, call, call.u32(1))?;
    write_str(m, call, call.u32(0), &s)?;
    Ok(call.u32(0))
}

/// `Int16 StrLen(const Char *src)`.
pub fn StrLen(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    Ok(read_str(m, call, call.u32(0))?.len() as u32)
}

/// `Char *StrIToA(Char *s, Int32 i)`: decimal.
pub fn StrIToA(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let s = format!("{}", call.u32(1) as i32);
    write_str(m, call, call.u32(0), s.as_bytes())?;
    Ok(call.u32(0))
}

/// `Char *StrIToH(Char *s, UInt32 i)`: 8 upper-case hex digits.
pub fn StrIToH(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let s = format!("{:08X}", call.u32(1));
    write_str(m, call, call.u32(0), s.as_bytes())?;
    Ok(call.u32(0))
}

/// Format `fmt` with arguments read from `args_at` in Palm layout.
pub fn format(m: &Machine, call: &Call, fmt: &[u8], mut args_at: u32) -> Result<Vec<u8>, Stop> {
    let mut out = Vec::new();
    let mut i = 0;
    let rd16 = |a: u32| m.mem.read_u16(a).map_err(|f| m.fault_in(call, f));
    let rd32 = |a: u32| m.mem.read_u32(a).map_err(|f| m.fault_in(call, f));
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let mut flags = Vec::new();
        while i < fmt.len() && b"-+ 0#".contains(&fmt[i]) {
            flags.push(fmt[i]);
            i += 1;
        }
        let mut width = 0usize;
        while i < fmt.len() && fmt[i].is_ascii_digit() {
            width = (width * 10 + usize::from(fmt[i] - b'0')).min(4096);
            i += 1;
        }
        let mut long = false;
        if i < fmt.len() && fmt[i] == b'l' {
            long = true;
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else { break };
        i += 1;
        let mut int = |signed: bool| -> Result<i64, Stop> {
            let v = if long {
                let v = rd32(args_at)?;
                args_at += 4;
                if signed {
                    i64::from(v as i32)
                } else {
                    i64::from(v)
                }
            } else {
                let v = rd16(args_at)?;
                args_at += 2;
                if signed {
                    i64::from(v as i16)
                } else {
                    i64::from(v)
                }
            };
            Ok(v)
        };
        let body = match conv {
            b'd' | b'i' => int(true)?.to_string(),
            b'u' => int(false)?.to_string(),
            b'x' => format!("{:x}", int(false)?),
            b'X' => format!("{:X}", int(false)?),
            b'c' => {
                let v = rd16(args_at)?;
                args_at += 2;
                String::from(v as u8 as char)
            }
            b's' => {
                let p = rd32(args_at)?;
                args_at += 4;
                String::from_utf8_lossy(&read_str(m, call, p)?).into_owned()
            }
            b'%' => "%".into(),
            other => format!("%{}", other as char),
        };
        let pad = width.saturating_sub(body.len());
        if flags.contains(&b'-') {
            out.extend_from_slice(body.as_bytes());
            out.extend(std::iter::repeat_n(b' ', pad));
        } else {
            let fill = if flags.contains(&b'0') { b'0' } else { b' ' };
            out.extend(std::iter::repeat_n(fill, pad));
            out.extend_from_slice(body.as_bytes());
        }
    }
    Ok(out)
}

/// `Int16 StrPrintF(Char *s, const Char *formatStr, ...)`: returns the length.
pub fn StrPrintF(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let fmt = read_str(m, call, call.u32(1))?;
    let s = format(m, call, &fmt, call.varargs_at())?;
    write_str(m, call, call.u32(0), &s)?;
    Ok(s.len() as u32)
}

/// `Char *StrCat(Char *dst, const Char *src)`.
pub fn StrCat(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let d = read_str(m, call, call.u32(0))?;
    let s = read_str(m, call, call.u32(1))?;
    write_str(m, call, call.u32(0).wrapping_add(d.len() as u32), &s)?;
    Ok(call.u32(0))
}

/// `Char *StrNCat(Char *dst, const Char *src, Int16 n)`: `n` is the size of
/// `dst` including the NUL.
pub fn StrNCat(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let d = read_str(m, call, call.u32(0))?;
    let s = read_str(m, call, call.u32(1))?;
    let n = call.i16(2).max(0) as usize;
    let room = n.saturating_sub(d.len() + 1);
    write_str(
        m,
        call,
        call.u32(0).wrapping_add(d.len() as u32),
        &s[..s.len().min(room)],
    )?;
    Ok(call.u32(0))
}

/// `Char *StrNCopy(Char *dst, const Char *src, Int16 n)`: at most `n` bytes;
/// shorter sources are padded with NULs, longer ones are not terminated.
pub fn StrNCopy(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let n = call.i16(2).max(0) as usize;
    let s = read_str(m, call, call.u32(1))?;
    let mut out = s[..s.len().min(n)].to_vec();
    out.resize(n, 0);
    m.mem
        .write_bytes(call.u32(0), &out)
        .map_err(|f| m.fault_in(call, f))?;
    Ok(call.u32(0))
}

fn sign(o: std::cmp::Ordering) -> u32 {
    match o {
        std::cmp::Ordering::Less => 0xFFFF,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }
}

/// `Int16 StrCompare(const Char *s1, const Char *s2)`: byte order.
pub fn StrCompare(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let a = read_str(m, call, call.u32(0))?;
    let b = read_str(m, call, call.u32(1))?;
    Ok(sign(a.cmp(&b)))
}

/// `Int16 StrNCompare(const Char *s1, const Char *s2, Int32 n)`.
pub fn StrNCompare(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let n = (call.u32(2) as i32).max(0) as usize;
    let a = read_str(m, call, call.u32(0))?;
    let b = read_str(m, call, call.u32(1))?;
    Ok(sign(a[..a.len().min(n)].cmp(&b[..b.len().min(n)])))
}

/// `Int16 StrCaselessCompare(const Char *s1, const Char *s2)`: ASCII case folded.
pub fn StrCaselessCompare(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let a = read_str(m, call, call.u32(0))?.to_ascii_lowercase();
    let b = read_str(m, call, call.u32(1))?.to_ascii_lowercase();
    Ok(sign(a.cmp(&b)))
}

/// `Char *StrChr(const Char *str, WChar chr)`: NULL if absent.
pub fn StrChr(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let s = read_str(m, call, call.u32(0))?;
    let c = call.u16(1);
    Ok(match u8::try_from(c) {
        Ok(0) => call.u32(0).wrapping_add(s.len() as u32),
        Ok(c) => s
            .iter()
            .position(|&b| b == c)
            .map_or(0, |i| call.u32(0).wrapping_add(i as u32)),
        Err(_) => 0,
    })
}

/// `Char *StrStr(const Char *str, const Char *token)`: NULL if absent.
pub fn StrStr(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let s = read_str(m, call, call.u32(0))?;
    let t = read_str(m, call, call.u32(1))?;
    if t.is_empty() {
        return Ok(call.u32(0));
    }
    Ok(s.windows(t.len())
        .position(|w| w == t.as_slice())
        .map_or(0, |i| call.u32(0).wrapping_add(i as u32)))
}

/// `Int32 StrAToI(const Char *str)`: optional sign, decimal digits.
pub fn StrAToI(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let s = read_str(m, call, call.u32(0))?;
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, &s[..]),
    };
    let mut v: i32 = 0;
    for &d in digits.iter().take_while(|d| d.is_ascii_digit()) {
        v = v.wrapping_mul(10).wrapping_add(i32::from(d - b'0'));
    }
    Ok(if neg { v.wrapping_neg() } else { v } as u32)
}

/// `Int16 StrVPrintF(Char *s, const Char *formatStr, _Palm_va_list arg)`: the
/// arguments are read from the block `arg` points at.
pub fn StrVPrintF(m: &mut Machine, call: &Call) -> Result<u32, Stop> {
    let fmt = read_str(m, call, call.u32(1))?;
    let s = format(m, call, &fmt, call.u32(2))?;
    write_str(m, call, call.u32(0), &s)?;
    Ok(s.len() as u32)
}
