//! `NFNT` font resources (`FONT ID n FONTID f "font.txt"`) compiled from
//! PilRC's text font format.
//!
//! # The text format (PilRC 3.2 manual, "FONT file format", and its
//! `example/5x11.txt`)
//!
//! One item a line; leading and trailing blanks are ignored, and so are empty
//! lines and lines starting with `//` in the first column. A line holding a
//! blank is `KEYWORD value` (the keyword case-insensitive); a line without one
//! is a row of a glyph's bitmap.
//!
//! - The header, before the first glyph: `fontType`, `maxWidth`, `kernMax`,
//!   `nDescent`, `fRectWidth`, `fRectHeight`, `ascent`, `descent`, `leading`
//!   (and `firstChar`/`lastChar`, which the glyphs override, with a warning).
//!   `maxWidth` and `fRectWidth` default to the widest glyph, `fRectHeight` to
//!   the first glyph's row count; the others to 0 (the ROM fonts have
//!   `fontType 36864`).
//! - `GLYPH c`, where `c` is a character code 0-255 (decimal) or a quoted
//!   character (`GLYPH 'A'`), in increasing order; codes may be skipped. Then
//!   optionally `WIDTH n` (the advance, by default the bitmap's width) and
//!   `OFFSET n`, then exactly `fRectHeight` rows of equal length: `-` and `.`
//!   are clear pixels, any other character a set one.
//! - `GLYPH -1`, last: the glyph drawn for codes the font lacks. Without it
//!   an empty one (width 0) is added, as PilRC does.
//!
//! Values are decimal (`strtol`), with an optional sign.
//!
//! # Layout (68k, big-endian)
//!
//! `FontType` (SDK 3.5 `Core/System/Font.h`), 13 `Int16`s: `fontType`,
//! `firstChar`, `lastChar`, `maxWidth`, `kernMax`, `nDescent`, `fRectWidth`,
//! `fRectHeight`, `owTLoc`, `ascent`, `descent`, `leading`, `rowWords`; then
//! the strike, `fRectHeight` rows of `rowWords` words holding every glyph side
//! by side (pixel 0 in the high bit); then the location table, one `UInt16`
//! column per code from `firstChar` to `lastChar + 2` (the missing glyph's
//! start and its end); then the offset/width table, one `FontCharInfoType`
//! (`Int8 offset`, `Int8 width`) per code from `firstChar` to `lastChar + 1`
//! (the missing glyph), with `-1, -1` (`fntMissingChar`) for codes the font
//! skips. `owTLoc` is the distance in words from the `owTLoc` field to the
//! offset/width table: `rowWords × fRectHeight + 8 + lastChar − firstChar`.
//! This is what PilRC 3.2 writes (`jichu4n/pilrc:font.c` `DumpFont`).
//!
//! Where PilRC misbehaves silently this compiler refuses the file: rows
//! before the first `GLYPH` (PilRC writes before its table), a second
//! `GLYPH -1` or one before any glyph, `WIDTH` outside 0-127 or `OFFSET`
//! outside -128-127 (PilRC truncates them to a byte), lines longer than 256
//! characters (PilRC splits them), more than 8,192 pixels of glyphs in a row
//! (PilRC's buffer), and a `//` comment that does not start in the first
//! column (PilRC reads it as a keyword or a row).

use crate::error::EncodeError;

/// Lines longer than this many bytes are refused (PilRC reads lines into a
/// 258-byte buffer and splits longer ones).
const MAX_LINE: usize = 256;
/// Strike width limit in pixels (PilRC's row buffers are 1,024 bytes).
const MAX_STRIKE_PIXELS: usize = 8192;
/// Rows of a glyph at most (PilRC: "Too many rows").
const MAX_ROWS: usize = 255;

/// A compiled font: the `FontType` header fields and the three tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Font {
    /// `fontType` (`FONTTYPE`).
    pub font_type: i16,
    /// `firstChar`: the first glyph's code.
    pub first_char: i16,
    /// `lastChar`: the last glyph's code (not counting the missing glyph).
    pub last_char: i16,
    /// `maxWidth`: the widest glyph's width, or `MAXWIDTH`.
    pub max_width: i16,
    /// `kernMax` (`KERNMAX`).
    pub kern_max: i16,
    /// `nDescent` (`NDESCENT`).
    pub n_descent: i16,
    /// `fRectWidth`: the widest glyph's width, or `FRECTWIDTH`.
    pub f_rect_width: i16,
    /// `fRectHeight`: the rows of every glyph, in pixels.
    pub f_rect_height: i16,
    /// `ascent` (`ASCENT`).
    pub ascent: i16,
    /// `descent` (`DESCENT`).
    pub descent: i16,
    /// `leading` (`LEADING`).
    pub leading: i16,
    /// The strike: `fRectHeight` rows of `2 × rowWords` bytes.
    pub strike: Vec<Vec<u8>>,
    /// The location table: the strike column of each code from `firstChar`
    /// to `lastChar + 2`.
    pub locations: Vec<u16>,
    /// `(offset, width)` of each code from `firstChar` to `lastChar + 1`;
    /// `(-1, -1)` for a code the font skips.
    pub char_info: Vec<(i8, i8)>,
}

/// A problem in a font file: its line (from 1) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FontError {
    /// Line number in the font file, from 1 (0: the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for FontError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for FontError {}

/// The header keywords, in `FontType` order of PilRC's token numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    FontType,
    FirstChar,
    LastChar,
    MaxWidth,
    KernMax,
    NDescent,
    FRectWidth,
    FRectHeight,
    Ascent,
    Descent,
    Leading,
    Glyph,
    Offset,
    Width,
}

fn keyword(word: &[u8]) -> Option<Key> {
    Some(match word.to_ascii_uppercase().as_slice() {
        b"FONTTYPE" => Key::FontType,
        b"FIRSTCHAR" => Key::FirstChar,
        b"LASTCHAR" => Key::LastChar,
        b"MAXWIDTH" => Key::MaxWidth,
        b"KERNMAX" => Key::KernMax,
        b"NDESCENT" => Key::NDescent,
        b"FRECTWIDTH" => Key::FRectWidth,
        b"FRECTHEIGHT" => Key::FRectHeight,
        b"ASCENT" => Key::Ascent,
        b"DESCENT" => Key::Descent,
        b"LEADING" => Key::Leading,
        b"GLYPH" => Key::Glyph,
        b"OFFSET" => Key::Offset,
        b"WIDTH" => Key::Width,
        _ => return None,
    })
}

/// A value as PilRC's `ParseLine` reads it: a quoted character (its code as
/// a signed C `char`), else a decimal `strtol` number that must use the whole
/// rest of the line (clamped to 32 bits as a 32-bit `long`; empty is 0).
fn value(rest: &[u8]) -> Option<i64> {
    if rest.len() == 3 && rest[0] == b'\'' && rest[2] == b'\'' {
        return Some(i64::from(rest[1] as i8));
    }
    let s = rest.trim_ascii_start();
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        // strtol converts nothing: only an empty rest is accepted (as 0).
        return rest.is_empty().then_some(0);
    }
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: i64 = 0;
    for d in digits {
        v = (v * 10 + i64::from(d - b'0')).min(i64::from(u32::MAX));
    }
    let v = if neg { -v } else { v };
    Some(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)))
}

/// What a compile of a font file produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    /// The font.
    pub font: Font,
    /// PilRC's warnings (`FIRSTCHAR`/`LASTCHAR` overridden, a glyph wider
    /// than `MAXWIDTH`/`FRECTWIDTH`), as `(line, message)`.
    pub warnings: Vec<(usize, String)>,
}

/// PilRC's `DumpFont` state while the lines are read.
struct Reader {
    /// `fontType` .. `leading` as `FontType` orders them, without `owTLoc`.
    header: [i64; 11],
    auto_width: bool,
    auto_rect_width: bool,
    /// `(offset, width)` per code; the missing glyph may be code 256.
    info: Vec<(i64, i64)>,
    /// Strike column per code (`coltable`).
    columns: Vec<usize>,
    /// Strike rows, [`MAX_STRIKE_PIXELS`] bits each.
    strike: Vec<Vec<u8>>,
    /// Strike width so far (the closed glyphs).
    col: usize,
    /// The current glyph (`curChar`), its rows so far and their width.
    current: Option<usize>,
    rows: usize,
    width: usize,
    /// `GLYPH -1` was read.
    missing: bool,
    warnings: Vec<(usize, String)>,
}

/// Header slots of [`Reader::header`].
const MAX_WIDTH: usize = 3;
const F_RECT_WIDTH: usize = 6;
const F_RECT_HEIGHT: usize = 7;

impl Reader {
    /// Ends the current glyph (PilRC `CloseGlyph`).
    fn close(&mut self, line: usize) -> Result<(), FontError> {
        let width = self.width as i64;
        for (slot, auto, name) in [
            (MAX_WIDTH, self.auto_width, "maxWidth"),
            (F_RECT_WIDTH, self.auto_rect_width, "fRectWidth"),
        ] {
            if width > self.header[slot] {
                if auto {
                    self.header[slot] = width;
                } else {
                    self.warnings.push((
                        line,
                        format!("glyph width {width} exceeds the {name} definition"),
                    ));
                }
            }
        }
        if self.header[F_RECT_HEIGHT] == 0 {
            self.header[F_RECT_HEIGHT] = self.rows as i64;
        }
        if self.rows == 0 || self.header[F_RECT_HEIGHT] != self.rows as i64 {
            return Err(FontError {
                line,
                message: format!(
                    "the glyph before this line has {} rows, but fRectHeight is {} (every glyph \
                     has fRectHeight rows)",
                    self.rows, self.header[F_RECT_HEIGHT]
                ),
            });
        }
        self.rows = 0;
        self.col += self.width;
        Ok(())
    }

    fn glyph(&mut self, v: i64, line: usize) -> Result<(), FontError> {
        let err = |message: String| FontError { line, message };
        let previous = self.current;
        if previous.is_some() {
            self.close(line)?;
        }
        if v == -1 {
            let Some(p) = previous else {
                return Err(err(
                    "GLYPH -1 (the missing glyph) must follow the font's glyphs".into(),
                ));
            };
            if self.missing {
                return Err(err("a second GLYPH -1".into()));
            }
            self.info[p + 1].0 = 0;
            self.columns[p + 1] = self.col;
            self.current = Some(p + 1);
            self.missing = true;
            return Ok(());
        }
        if !(0..=255).contains(&v) {
            return Err(err(format!("glyph {v} out of range (0-255, or -1)")));
        }
        let code = v as usize;
        if let Some(p) = previous
            && code <= p
        {
            return Err(err(format!(
                "glyph {code} out of sequence (codes must increase; the previous glyph is {p})"
            )));
        }
        if self.missing {
            return Err(err("GLYPH -1 must be the last glyph".into()));
        }
        let from = previous.map_or(0, |p| p + 1);
        for c in &mut self.columns[from..=code] {
            *c = self.col;
        }
        if previous.is_none() {
            self.header[1] = v;
        }
        self.header[2] = v;
        self.info[code].0 = 0;
        self.current = Some(code);
        Ok(())
    }

    fn row(&mut self, row: &[u8], line: usize) -> Result<(), FontError> {
        let err = |message: String| FontError { line, message };
        let Some(code) = self.current else {
            return Err(err("a glyph row before the first GLYPH line".into()));
        };
        if self.rows == 0 {
            self.width = row.len();
            if self.info[code].1 == -1 {
                self.info[code].1 = row.len() as i64;
            }
        } else if row.len() != self.width {
            return Err(err(format!(
                "a row of {} pixels in a glyph whose first row has {}",
                row.len(),
                self.width
            )));
        }
        if self.col + self.width > MAX_STRIKE_PIXELS {
            return Err(err(format!(
                "the glyphs are wider than {MAX_STRIKE_PIXELS} pixels in all (PilRC's limit)"
            )));
        }
        if self.rows == MAX_ROWS {
            return Err(err(format!("a glyph has more than {MAX_ROWS} rows")));
        }
        if self.strike.len() <= self.rows {
            self.strike.push(vec![0; MAX_STRIKE_PIXELS / 8]);
        }
        for (x, &c) in row.iter().enumerate() {
            if c != b'-' && c != b'.' {
                let bit = self.col + x;
                self.strike[self.rows][bit / 8] |= 0x80 >> (bit % 8);
            }
        }
        self.rows += 1;
        Ok(())
    }

    fn keyword(&mut self, key: Key, v: i64, line: usize) -> Result<(), FontError> {
        let err = |message: String| FontError { line, message };
        match key {
            Key::Glyph => return self.glyph(v, line),
            Key::Offset | Key::Width => {
                let (name, lo, hi) = if key == Key::Offset {
                    ("OFFSET", -128, 127)
                } else {
                    ("WIDTH", 0, 127)
                };
                let Some(code) = self.current else {
                    return Err(err(format!("{name} before the first GLYPH")));
                };
                if !(lo..=hi).contains(&v) {
                    return Err(err(format!(
                        "{name} {v} out of range ({lo}..={hi}: a signed byte)"
                    )));
                }
                if key == Key::Offset {
                    self.info[code].0 = v;
                } else {
                    self.info[code].1 = v;
                }
                return Ok(());
            }
            _ => {}
        }
        if self.current.is_some() {
            return Err(err("the header must precede the glyphs".into()));
        }
        if !(-32768..=65535).contains(&v) {
            return Err(err(format!(
                "header value {v} does not fit 16 bits (-32768..=65535)"
            )));
        }
        let slot = match key {
            Key::FontType => 0,
            Key::FirstChar => 1,
            Key::LastChar => 2,
            Key::MaxWidth => MAX_WIDTH,
            Key::KernMax => 4,
            Key::NDescent => 5,
            Key::FRectWidth => F_RECT_WIDTH,
            Key::FRectHeight => F_RECT_HEIGHT,
            Key::Ascent => 8,
            Key::Descent => 9,
            _ => 10,
        };
        self.header[slot] = v;
        match key {
            Key::MaxWidth => self.auto_width = false,
            Key::FRectWidth => self.auto_rect_width = false,
            Key::FirstChar | Key::LastChar => self.warnings.push((
                line,
                format!(
                    "{} will be overridden based on data",
                    if key == Key::FirstChar {
                        "FIRSTCHAR"
                    } else {
                        "LASTCHAR"
                    }
                ),
            )),
            _ => {}
        }
        Ok(())
    }
}

/// Compiles a font file in PilRC's text format (module documentation).
///
/// # Errors
/// A [`FontError`] naming the line: an unknown keyword, a bad value, glyphs
/// out of order or of different heights, rows of different widths, a row
/// before the first `GLYPH`, no glyph at all, and the limits above.
pub fn compile(text: &[u8]) -> Result<Compiled, FontError> {
    let mut r = Reader {
        header: [0; 11],
        auto_width: true,
        auto_rect_width: true,
        info: vec![(-1, -1); 258],
        columns: vec![0; 259],
        strike: Vec::new(),
        col: 0,
        current: None,
        rows: 0,
        width: 0,
        missing: false,
        warnings: Vec::new(),
    };
    let mut line_no = 0;
    for raw in text.split(|&b| b == b'\n') {
        line_no += 1;
        let err = |message: String| FontError {
            line: line_no,
            message,
        };
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.len() > MAX_LINE {
            return Err(err(format!(
                "line longer than {MAX_LINE} characters (PilRC would split it)"
            )));
        }
        let line = raw.trim_ascii();
        if line.is_empty() || raw.starts_with(b"//") {
            continue;
        }
        if line.starts_with(b"//") {
            return Err(err(
                "a // comment must start in the first column (PilRC reads an indented one as a \
                 keyword or a glyph row)"
                    .into(),
            ));
        }
        match line.iter().position(|&b| b == b' ' || b == b'\t') {
            None => r.row(line, line_no)?,
            Some(blank) => {
                let key = keyword(&line[..blank]).ok_or_else(|| {
                    err(format!(
                        "unknown keyword \"{}\" (expected GLYPH, WIDTH, OFFSET or a header field)",
                        String::from_utf8_lossy(&line[..blank])
                    ))
                })?;
                let v = value(&line[blank + 1..]).ok_or_else(|| {
                    err(format!(
                        "invalid value \"{}\" (a decimal number or a quoted character)",
                        String::from_utf8_lossy(&line[blank + 1..])
                    ))
                })?;
                r.keyword(key, v, line_no)?;
            }
        }
    }
    let Some(mut end) = r.current else {
        return Err(FontError {
            line: 0,
            message: "the font has no glyphs".into(),
        });
    };
    let add = |column: usize, width: i64| (column as i64 + width).max(0) as usize;
    if !r.missing {
        // An empty missing glyph after the last one, as PilRC adds it.
        r.columns[end + 1] = add(r.columns[end], r.info[end].1);
        end += 1;
        r.info[end] = (0, 0);
    }
    r.columns[end + 1] = add(r.columns[end], r.info[end].1);
    // The last line (PilRC's count at the end of the file).
    r.close(line_no - usize::from(text.ends_with(b"\n")))?;

    let (first, last) = (r.header[1] as usize, r.header[2] as usize);
    let row_words = r.col.div_ceil(16);
    let height = r.header[F_RECT_HEIGHT] as usize;
    let strike = r
        .strike
        .into_iter()
        .take(height)
        .map(|mut row| {
            row.truncate(row_words * 2);
            row
        })
        .collect();
    let h = |slot: usize| r.header[slot] as i16;
    Ok(Compiled {
        font: Font {
            font_type: h(0),
            first_char: h(1),
            last_char: h(2),
            max_width: h(MAX_WIDTH),
            kern_max: h(4),
            n_descent: h(5),
            f_rect_width: h(F_RECT_WIDTH),
            f_rect_height: h(F_RECT_HEIGHT),
            ascent: h(8),
            descent: h(9),
            leading: h(10),
            strike,
            locations: r.columns[first..=last + 2]
                .iter()
                .map(|&c| c as u16)
                .collect(),
            char_info: r.info[first..=last + 1]
                .iter()
                .map(|&(o, w)| (o as i8, w as i8))
                .collect(),
        },
        warnings: r.warnings,
    })
}

impl Font {
    /// `rowWords`: the strike's width in 16-bit words.
    pub fn row_words(&self) -> usize {
        self.strike.first().map_or(0, |r| r.len() / 2)
    }

    /// `owTLoc`: words from the `owTLoc` field to the offset/width table.
    pub fn ow_t_loc(&self) -> usize {
        // The 5 header words after owTLoc, the strike, the location table.
        5 + self.row_words() * self.strike.len() + self.locations.len()
    }

    /// The `NFNT` resource (layout in the module documentation).
    ///
    /// # Errors
    /// The font does not fit a resource's 16-bit offsets.
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let ow = i16::try_from(self.ow_t_loc()).map_err(|_| EncodeError {
            message: format!(
                "the font is too large: its offset/width table is {} words from the header",
                self.ow_t_loc()
            ),
        })?;
        let mut out = Vec::new();
        for v in [
            self.font_type,
            self.first_char,
            self.last_char,
            self.max_width,
            self.kern_max,
            self.n_descent,
            self.f_rect_width,
            self.f_rect_height,
            ow,
            self.ascent,
            self.descent,
            self.leading,
            self.row_words() as i16,
        ] {
            out.extend(v.to_be_bytes());
        }
        for row in &self.strike {
            out.extend(row);
        }
        for c in &self.locations {
            out.extend(c.to_be_bytes());
        }
        for &(offset, width) in &self.char_info {
            out.extend([offset as u8, width as u8]);
        }
        Ok(out)
    }

    /// The advance of each character code for `AUTO` sizes, as PilRC keeps
    /// it (`DxChar`): the glyph's width, the missing glyph's for the code
    /// after `lastChar`, 0 for codes the font lacks.
    pub fn widths(&self) -> [u8; 256] {
        let mut w = [0u8; 256];
        for (i, &(_, width)) in self.char_info.iter().enumerate() {
            if let Some(slot) = w.get_mut(self.first_char as usize + i) {
                *slot = width.max(0) as u8;
            }
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> FontError {
        compile(text.as_bytes()).unwrap_err()
    }

    #[test]
    fn two_glyphs_and_the_added_missing_glyph() {
        let c = compile(b"ascent 2\nGLYPH 'A'\n#-\n-#\nGLYPH 'C'\n###\n#..\n").unwrap();
        let f = &c.font;
        assert_eq!((f.first_char, f.last_char), (65, 67));
        assert_eq!((f.max_width, f.f_rect_width, f.f_rect_height), (3, 3, 2));
        // 5 pixels in all: one word a row; A at 0, B missing, C at 2.
        assert_eq!(f.strike, vec![vec![0b1011_1000, 0], vec![0b0110_0000, 0]]);
        assert_eq!(f.locations, vec![0, 2, 2, 5, 5]);
        assert_eq!(f.char_info, vec![(0, 2), (-1, -1), (0, 3), (0, 0)]);
        // owTLoc: 5 + 1 × 2 + 5 = 12 words.
        assert_eq!(f.ow_t_loc(), 12);
        let bytes = f.to_bytes().unwrap();
        assert_eq!(&bytes[16..18], &12i16.to_be_bytes());
        assert_eq!(bytes.len(), 26 + 4 + 10 + 8);
        let w = f.widths();
        assert_eq!((w[65], w[66], w[67], w[68], w[0]), (2, 0, 3, 0, 0));
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn own_missing_glyph_width_and_offset() {
        let c = compile(b"GLYPH 48\nWIDTH 4\nOFFSET -1\n##\nGLYPH -1\n#\n").unwrap();
        let f = &c.font;
        assert_eq!(f.char_info, vec![(-1, 4), (0, 1)]);
        // The missing glyph starts at the strike's column 2, and ends 1 later.
        assert_eq!(f.locations, vec![0, 2, 3]);
        assert_eq!(f.widths()[49], 1);
    }

    #[test]
    fn warnings_of_pilrc() {
        let c = compile(b"MAXWIDTH 1\nFIRSTCHAR 9\nGLYPH 1\n##\nGLYPH 2\n#\n").unwrap();
        assert_eq!(c.font.max_width, 1);
        assert_eq!(c.font.first_char, 1);
        assert_eq!(
            c.warnings,
            vec![
                (2, "FIRSTCHAR will be overridden based on data".to_string()),
                (
                    5,
                    "glyph width 2 exceeds the maxWidth definition".to_string()
                )
            ]
        );
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(err("GLYPH 1\n#\nGLYPH 1\n#\n").line, 3);
        assert!(
            err("GLYPH 2\n#\nGLYPH 1\n#\n")
                .message
                .contains("out of sequence")
        );
        assert!(err("GLYPH 1\n#\n##\n").message.contains("first row has 1"));
        assert!(
            err("GLYPH 1\n#\nGLYPH 2\n#\n#\n")
                .message
                .contains("fRectHeight is 1")
        );
        assert!(err("#\n").message.contains("before the first GLYPH"));
        assert!(err("GLYPH -1\n#\n").message.contains("must follow"));
        assert!(
            err("GLYPH 1\n#\nGLYPH -1\n#\nGLYPH -1\n#\n")
                .message
                .contains("second")
        );
        assert!(
            err("GLYPH 1\n#\nGLYPH -1\n#\nGLYPH 9\n#\n")
                .message
                .contains("last")
        );
        assert!(err("GLYPH 256\n").message.contains("out of range"));
        assert!(err("GLYPH 1\nWIDTH 200\n").message.contains("WIDTH 200"));
        assert!(err("GLYPH x1\n").message.contains("invalid value"));
        assert!(err("BOGUS 1\n").message.contains("unknown keyword"));
        assert!(err("GLYPH 1\n#\nASCENT 3\n").message.contains("precede"));
        assert!(err("  // indented\n").message.contains("first column"));
        assert_eq!(
            err("// nothing\n\n"),
            FontError {
                line: 0,
                message: "the font has no glyphs".into()
            }
        );
        let long = format!("GLYPH 1\n{}\n", "#".repeat(300));
        assert!(err(&long).message.contains("longer than 256"));
    }

    #[test]
    fn values_as_strtol_reads_them() {
        assert_eq!(value(b"'a'"), Some(97));
        assert_eq!(value(b" 12"), Some(12));
        assert_eq!(value(b"-3"), Some(-3));
        assert_eq!(value(b"+3"), Some(3));
        assert_eq!(value(b""), Some(0));
        assert_eq!(value(b"3x"), None);
        assert_eq!(value(b"-"), None);
        assert_eq!(value(b"99999999999"), Some(i64::from(i32::MAX)));
    }
}
