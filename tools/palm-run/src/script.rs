//! The event script played by EvtGetEvent (`--events FILE`).
//!
//! One event per line; `#` starts a comment; blank lines are ignored:
//!
//! ```text
//! tap 1001        # tap the control with ID 1001 in the active form (penDown at its
//!                 # centre, then penUp; FrmHandleEvent turns the penDown on a
//!                 # control into its ctlSelectEvent)
//! tap 1002 3      # tap item 3 of list 1002 (it must be shown: a popup list only
//!                 # while it is popped up, any list only while the item is visible)
//! tap 1005 down   # tap a part of scroll bar 1005: up, down (the arrows), pageup,
//!                 # pagedown (the shaft above or below the car)
//! pen 80 100      # penDown + penUp at screen coordinates
//! key a           # keyDownEvent for a character; also `key backspace` (8),
//!                 # `key return` (10, chrLineFeed) or a code: `key 13`, `key 0x0A`
//! menu 2001       # menuEvent for this item of the active menu bar
//! nil 5           # 5 nilEvents (1 if no count; `nil 0` is none)
//! stop            # appStopEvent (the script also ends with one)
//! ```
//!
//! Numbers are decimal (`1001`, `-2`) or hexadecimal with `0x` (`0x3E9`), the
//! same everywhere. A single character after `key` is that character (`key 7`
//! is the digit; the code 7 is `key 0x07`).
//!
//! A `tap` or `menu` naming something the app does not have (no such control
//! in the active form, no such item in the active menu bar, a list item not
//! shown) stops the app when it is played: an error in the script
//! ([`crate::machine::StopKind::Script`]; `palm-run` exits 2 naming
//! `SCRIPT:LINE`). `pen` coordinates must be on the screen (0 to 159). A script may produce at most [`MAX_SCRIPT_EVENTS`] events
//! (nil counts included); `nil N` is kept as one entry played N times.

/// Width and height of the screen in pixels (160 x 160, the Palm OS 3.x
/// screen palm-run has), the range of `pen` coordinates.
pub const SCREEN: i16 = 160;

/// Most events a script may produce, nil counts included.
pub const MAX_SCRIPT_EVENTS: u64 = 10_000_000;

/// One scripted input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptEvent {
    /// Tap the control with this ID in the active form.
    Tap(u16),
    /// Tap a part of the object with this ID: a list's item, a scroll bar's
    /// arrow or page region.
    TapAt(u16, TapPart),
    /// penDown + penUp at (x, y).
    Pen(i16, i16),
    /// keyDownEvent with this character code.
    Key(u16),
    /// menuEvent with this item ID.
    Menu(u16),
    /// A nilEvent.
    Nil,
    /// appStopEvent.
    Stop,
}

/// The part of an object a `tap ID PART` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TapPart {
    /// A list's item (its index, from 0).
    Item(u16),
    /// A scroll bar's up arrow (`sclUpArrow`).
    Up,
    /// A scroll bar's down arrow (`sclDownArrow`).
    Down,
    /// A scroll bar's shaft above the car (`sclUpPage`).
    PageUp,
    /// A scroll bar's shaft below the car (`sclDownPage`).
    PageDown,
}

/// A scripted event and the script line it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scripted {
    /// 1-based line number.
    pub line: usize,
    /// The event.
    pub event: ScriptEvent,
    /// How many times it is played (`nil N`: N; otherwise 1).
    pub repeat: u32,
}

impl Scripted {
    /// One `event` from script line `line`.
    pub fn once(line: usize, event: ScriptEvent) -> Scripted {
        Scripted {
            line,
            event,
            repeat: 1,
        }
    }
}

/// Parse a number: decimal with an optional sign, or hexadecimal after `0x`.
pub fn number(w: &str) -> Option<i64> {
    let (neg, digits) = match w.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, w.strip_prefix('+').unwrap_or(w)),
    };
    let v = i64::try_from(magnitude(digits)?).ok()?;
    Some(if neg { -v } else { v })
}

/// Parse a number that cannot be negative, in the syntax of [`number`]
/// (decimal, or hexadecimal after `0x`/`0X`; an optional `+`): palm-run's
/// command-line numbers (`--max-instructions 0x10000`) are read with it, so
/// they take the same forms as a script's.
pub fn unsigned(w: &str) -> Option<u64> {
    magnitude(w.strip_prefix('+').unwrap_or(w))
}

/// The digits of a number without its sign: decimal, or hexadecimal after
/// `0x`/`0X`.
fn magnitude(digits: &str) -> Option<u64> {
    match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(h) if !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(h, 16).ok()
        }
        Some(_) => None,
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            digits.parse().ok()
        }
        None => None,
    }
}

/// Longest piece of an input token that messages quote, in characters.
pub const SHOWN_CHARS: usize = 40;

/// `token` as a message quotes it: control characters, `\` and `"` escaped
/// as Rust writes them (`\0`, `\t`, `\u{7f}`, `\\`, `\"`), and cut after
/// [`SHOWN_CHARS`] characters with `…` (a 60 MB number in a script must not
/// make a 60 MB "one-line" error).
pub fn shown(token: &str) -> String {
    let mut out = String::new();
    for (i, c) in token.chars().enumerate() {
        if i == SHOWN_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() || c == '\\' || c == '"' {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// Parse a script; errors name the line: `line 3: unknown event "tapp"`.
pub fn parse(text: &str) -> Result<Vec<Scripted>, String> {
    let mut out = Vec::new();
    let mut total: u64 = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let s = raw.split('#').next().unwrap_or("").trim();
        if s.is_empty() {
            continue;
        }
        let words: Vec<&str> = s.split_whitespace().collect();
        let num = |k: usize| -> Result<i64, String> {
            let w = words
                .get(k)
                .ok_or_else(|| format!("line {line}: \"{}\" needs a number", shown(words[0])))?;
            number(w).ok_or_else(|| format!("line {line}: \"{}\" is not a number", shown(w)))
        };
        let u16_at = |k: usize| -> Result<u16, String> {
            let v = num(k)?;
            u16::try_from(v).map_err(|_| format!("line {line}: {v} is out of range 0..65535"))
        };
        let i16_at = |k: usize| -> Result<i16, String> {
            let v = num(k)?;
            i16::try_from(v).map_err(|_| format!("line {line}: {v} is out of range -32768..32767"))
        };
        let (event, argc, repeat) = match words[0] {
            "tap" if words.len() > 2 => {
                let part = match words[2] {
                    "up" => TapPart::Up,
                    "down" => TapPart::Down,
                    "pageup" => TapPart::PageUp,
                    "pagedown" => TapPart::PageDown,
                    w if number(w).is_some() => TapPart::Item(u16_at(2)?),
                    w => {
                        return Err(format!(
                            "line {line}: \"{}\" is not a list item or a scroll bar part (up, \
                             down, pageup, pagedown)",
                            shown(w)
                        ));
                    }
                };
                (ScriptEvent::TapAt(u16_at(1)?, part), 3, 1)
            }
            "tap" => (ScriptEvent::Tap(u16_at(1)?), 2, 1),
            "pen" => {
                let (x, y) = (i16_at(1)?, i16_at(2)?);
                if !(0..SCREEN).contains(&x) || !(0..SCREEN).contains(&y) {
                    return Err(format!(
                        "line {line}: pen {x} {y} is off the screen (x and y are 0 to {})",
                        SCREEN - 1
                    ));
                }
                (ScriptEvent::Pen(x, y), 3, 1)
            }
            "key" => {
                let w = words
                    .get(1)
                    .ok_or_else(|| format!("line {line}: \"key\" needs a character"))?;
                let c = if w.chars().count() == 1 {
                    let c = w.chars().next().unwrap_or(' ');
                    u16::try_from(u32::from(c)).map_err(|_| {
                        format!(
                            "line {line}: key {c}: U+{:04X} is above U+FFFF, and a key's \
                             character is a 16-bit WChar (0 to 0xFFFF)",
                            u32::from(c)
                        )
                    })?
                } else if *w == "backspace" {
                    8
                } else if *w == "return" {
                    10
                } else if number(w).is_some() {
                    u16_at(1)?
                } else {
                    return Err(format!(
                        "line {line}: key \"{}\": key takes one character, backspace, return, \
                         or a character code (decimal, or hexadecimal after 0x)",
                        shown(w)
                    ));
                };
                (ScriptEvent::Key(c), 2, 1)
            }
            "menu" => (ScriptEvent::Menu(u16_at(1)?), 2, 1),
            "nil" => {
                let n = if words.len() > 1 {
                    let v = num(1)?;
                    u32::try_from(v).map_err(|_| {
                        format!("line {line}: nil {v}: the count must be 0 to {MAX_SCRIPT_EVENTS}")
                    })?
                } else {
                    1
                };
                (ScriptEvent::Nil, words.len().min(2), n)
            }
            "stop" => (ScriptEvent::Stop, 1, 1),
            other => return Err(format!("line {line}: unknown event \"{}\"", shown(other))),
        };
        if words.len() > argc {
            return Err(format!(
                "line {line}: unexpected \"{}\"",
                shown(words[argc])
            ));
        }
        total += u64::from(repeat);
        if total > MAX_SCRIPT_EVENTS {
            return Err(format!(
                "line {line}: the script's events add up to more than {MAX_SCRIPT_EVENTS} \
                 (nil counts included)"
            ));
        }
        if repeat > 0 {
            out.push(Scripted {
                line,
                event,
                repeat,
            });
        }
    }
    Ok(out)
}

/// The events a parsed script plays, in order (each entry `repeat` times).
pub fn events(script: &[Scripted]) -> impl Iterator<Item = &ScriptEvent> {
    script
        .iter()
        .flat_map(|s| std::iter::repeat_n(&s.event, s.repeat as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        let s = parse("# start\ntap 1001\npen 10 2 # x\nkey a\nkey 13\nmenu 5\nnil 2\nstop\nkey backspace\nkey 0x0A\n")
            .unwrap();
        let ev: Vec<_> = events(&s).cloned().collect();
        assert_eq!(
            ev,
            vec![
                ScriptEvent::Tap(1001),
                ScriptEvent::Pen(10, 2),
                ScriptEvent::Key(97),
                ScriptEvent::Key(13),
                ScriptEvent::Menu(5),
                ScriptEvent::Nil,
                ScriptEvent::Nil,
                ScriptEvent::Stop,
                ScriptEvent::Key(8),
                ScriptEvent::Key(10),
            ]
        );
        assert_eq!(s[0].line, 2);
        assert_eq!(
            parse("tapp 1").unwrap_err(),
            "line 1: unknown event \"tapp\""
        );
        assert_eq!(
            parse("\ntap x").unwrap_err(),
            "line 2: \"x\" is not a number"
        );
        assert_eq!(parse("tap 1 2 3").unwrap_err(), "line 1: unexpected \"3\"");
        assert_eq!(
            parse("tap 1 2\ntap 5 down\ntap 5 pageup").unwrap(),
            vec![
                Scripted::once(1, ScriptEvent::TapAt(1, TapPart::Item(2))),
                Scripted::once(2, ScriptEvent::TapAt(5, TapPart::Down)),
                Scripted::once(3, ScriptEvent::TapAt(5, TapPart::PageUp)),
            ]
        );
        assert_eq!(
            parse("tap 5 sideways").unwrap_err(),
            "line 1: \"sideways\" is not a list item or a scroll bar part (up, down, pageup, \
             pagedown)"
        );
        assert_eq!(
            parse("tap 5 -1").unwrap_err(),
            "line 1: -1 is out of range 0..65535"
        );
        assert_eq!(
            parse("tap 70000").unwrap_err(),
            "line 1: 70000 is out of range 0..65535"
        );
    }

    /// Findings: `pen` off the 160 x 160 screen passed silently; `key 😀`
    /// said "character out of range" and `key ab` "\"ab\" is not a number".
    #[test]
    fn pens_off_the_screen_and_bad_keys_are_named() {
        assert_eq!(parse("pen 0 0\npen 159 159\n").unwrap().len(), 2);
        for (script, line, x, y) in [
            ("pen -5 -5", 1, -5, -5),
            ("nil\npen 9999 9999", 2, 9999, 9999),
            ("pen 160 0", 1, 160, 0),
        ] {
            assert_eq!(
                parse(script).unwrap_err(),
                format!("line {line}: pen {x} {y} is off the screen (x and y are 0 to 159)")
            );
        }
        assert_eq!(
            parse("key 😀").unwrap_err(),
            "line 1: key 😀: U+1F600 is above U+FFFF, and a key's character is a 16-bit WChar \
             (0 to 0xFFFF)"
        );
        assert_eq!(
            parse("key ab").unwrap_err(),
            "line 1: key \"ab\": key takes one character, backspace, return, or a character \
             code (decimal, or hexadecimal after 0x)"
        );
        assert_eq!(
            parse("key 70000").unwrap_err(),
            "line 1: 70000 is out of range 0..65535"
        );
    }

    /// Finding: `key 0x0A` was accepted but `tap 0x3E9` was "not a number".
    #[test]
    fn numbers_are_read_alike_everywhere() {
        let s = parse("tap 0x3E9\nmenu 0X7D1\npen 0x10 +0x2\nkey 0x0A\nnil 0x3\nkey 7\n").unwrap();
        let ev: Vec<_> = events(&s).cloned().collect();
        assert_eq!(
            ev,
            vec![
                ScriptEvent::Tap(1001),
                ScriptEvent::Menu(2001),
                ScriptEvent::Pen(16, 2),
                ScriptEvent::Key(10),
                ScriptEvent::Nil,
                ScriptEvent::Nil,
                ScriptEvent::Nil,
                ScriptEvent::Key(u16::from(b'7')),
            ]
        );
        for bad in ["tap 0x", "tap 0xG1", "tap 1e3", "tap --1", "pen 1 0x8000"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    /// Finding: `nil 65535` on 5000 lines built 327 million queue entries up
    /// front (the allocation failed). Counts are kept; absurd totals are
    /// refused naming the line.
    #[test]
    fn nil_counts_are_kept_not_expanded() {
        let s = parse(&"nil 65535\n".repeat(100)).unwrap();
        assert_eq!(s.len(), 100);
        assert_eq!(events(&s).count(), 6_553_500);
        assert_eq!(parse("nil 0\nstop\n").unwrap().len(), 1);
        assert_eq!(
            parse(&"nil 65535\n".repeat(5000)).unwrap_err(),
            format!(
                "line 153: the script's events add up to more than {MAX_SCRIPT_EVENTS} \
                 (nil counts included)"
            )
        );
        assert!(parse("nil 4294967296").is_err());
        assert!(parse("nil -1").is_err());
    }

    /// Finding: an error echoed the whole bad token (a 60 MB number made a
    /// 60 MB "one-line" error) and printed a NUL raw. Tokens are cut after
    /// 40 characters and control characters escaped.
    #[test]
    fn bad_tokens_are_cut_and_escaped_in_messages() {
        let long = "9".repeat(1_000_000);
        let e = parse(&format!("tap {long}")).unwrap_err();
        assert_eq!(
            e,
            format!("line 1: \"{}…\" is not a number", "9".repeat(40))
        );
        assert_eq!(
            parse("ta\0p 1").unwrap_err(),
            "line 1: unknown event \"ta\\0p\""
        );
        assert_eq!(
            parse("tap 1 2 \u{7f}\"x").unwrap_err(),
            "line 1: unexpected \"\\u{7f}\\\"x\""
        );
        assert_eq!(
            parse(&format!("{}\n", "é".repeat(50))).unwrap_err(),
            format!("line 1: unknown event \"{}…\"", "é".repeat(40))
        );
        assert_eq!(shown("abc"), "abc");
        assert_eq!(unsigned("0x10"), Some(16));
        assert_eq!(unsigned("+12"), Some(12));
        assert_eq!(unsigned("-1"), None);
        assert_eq!(unsigned("18446744073709551615"), Some(u64::MAX));
    }
}
