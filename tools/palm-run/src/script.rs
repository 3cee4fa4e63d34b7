//! The event script played by EvtGetEvent (`--events FILE`).
//!
//! One event per line; `#` starts a comment; blank lines are ignored:
//!
//! ```text
//! tap 1001        # tap the control with ID 1001 in the active form (penDown at its
//!                 # centre, then penUp; FrmHandleEvent turns the penDown on a
//!                 # control into its ctlSelectEvent)
//! pen 80 100      # penDown + penUp at screen coordinates
//! key a           # keyDownEvent for a character; also `key backspace` (8),
//!                 # `key return` (10, chrLineFeed) or a code: `key 13`, `key 0x0A`
//! menu 2001       # menuEvent with this item ID
//! nil 5           # 5 nilEvents (1 if no count)
//! stop            # appStopEvent (the script also ends with one)
//! ```

/// One scripted input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptEvent {
    /// Tap the control with this ID in the active form.
    Tap(u16),
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

/// A scripted event and the script line it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scripted {
    /// 1-based line number.
    pub line: usize,
    /// The event.
    pub event: ScriptEvent,
}

/// Parse a script; errors name the line: `line 3: unknown event "tapp"`.
pub fn parse(text: &str) -> Result<Vec<Scripted>, String> {
    let mut out = Vec::new();
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
                .ok_or_else(|| format!("line {line}: \"{}\" needs a number", words[0]))?;
            w.parse::<i64>()
                .map_err(|_| format!("line {line}: \"{w}\" is not a number"))
        };
        let u16_at = |k: usize| -> Result<u16, String> {
            let v = num(k)?;
            u16::try_from(v).map_err(|_| format!("line {line}: {v} is out of range 0..65535"))
        };
        let i16_at = |k: usize| -> Result<i16, String> {
            let v = num(k)?;
            i16::try_from(v).map_err(|_| format!("line {line}: {v} is out of range"))
        };
        let (event, argc) = match words[0] {
            "tap" => (ScriptEvent::Tap(u16_at(1)?), 2),
            "pen" => (ScriptEvent::Pen(i16_at(1)?, i16_at(2)?), 3),
            "key" => {
                let w = words
                    .get(1)
                    .ok_or_else(|| format!("line {line}: \"key\" needs a character"))?;
                let c = if w.chars().count() == 1 {
                    let c = w.chars().next().unwrap_or(' ');
                    u16::try_from(u32::from(c))
                        .map_err(|_| format!("line {line}: character out of range"))?
                } else if *w == "backspace" {
                    8
                } else if *w == "return" {
                    10
                } else if let Some(h) = w.strip_prefix("0x") {
                    u16::from_str_radix(h, 16)
                        .map_err(|_| format!("line {line}: \"{w}\" is not a key"))?
                } else {
                    u16_at(1)?
                };
                (ScriptEvent::Key(c), 2)
            }
            "menu" => (ScriptEvent::Menu(u16_at(1)?), 2),
            "nil" => {
                let n = if words.len() > 1 { u16_at(1)? } else { 1 };
                for _ in 1..n {
                    out.push(Scripted {
                        line,
                        event: ScriptEvent::Nil,
                    });
                }
                (ScriptEvent::Nil, words.len().min(2))
            }
            "stop" => (ScriptEvent::Stop, 1),
            other => return Err(format!("line {line}: unknown event \"{other}\"")),
        };
        if words.len() > argc {
            return Err(format!("line {line}: unexpected \"{}\"", words[argc]));
        }
        out.push(Scripted { line, event });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        let s = parse("# start\ntap 1001\npen 10 -2 # x\nkey a\nkey 13\nmenu 5\nnil 2\nstop\nkey backspace\nkey 0x0A\n")
            .unwrap();
        let ev: Vec<_> = s.iter().map(|x| x.event.clone()).collect();
        assert_eq!(
            ev,
            vec![
                ScriptEvent::Tap(1001),
                ScriptEvent::Pen(10, -2),
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
        assert_eq!(parse("tap 1 2").unwrap_err(), "line 1: unexpected \"2\"");
        assert_eq!(
            parse("tap 70000").unwrap_err(),
            "line 1: 70000 is out of range 0..65535"
        );
    }
}
