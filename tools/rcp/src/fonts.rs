//! Glyph widths and heights of the Palm OS built-in fonts, in pixels.
//!
//! PilRC needs them for `AUTO` sizes (`AT (10 10 AUTO AUTO)`) and for the
//! pull-down bounds it stores in `MBAR` resources. The numbers are the metrics
//! of the ROM fonts 0-7 (`stdFont` .. `largeBoldFont`, SDK 3.5 `Font.h`) as
//! PilRC 3.2 knows them (`jichu4n/pilrc:font.c`, `InitFontMem`: the width of
//! every character code of fonts 0-7, the heights of fonts 0-7, and the
//! Hebrew (`-Fh`) and Cyrillic (`-Fc`) replacement widths). Only facts are
//! taken; the tables are laid out here as 16 codes a row.

/// Which replacement widths of PilRC's `-F` options apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Script {
    /// The ROM fonts' own widths (no `-F` option).
    #[default]
    Latin,
    /// `-Fh`: Hebrew widths for codes 0xE0..=0xFF of fonts 0-2.
    Hebrew,
    /// `-Fc`: Cyrillic widths for 0xA8, 0xB8 and 0xC0..=0xFF of fonts 0, 1, 2 and 7.
    Cyrillic,
}

/// Height in pixels of the built-in fonts 0..=7 (`stdFont` .. `largeBoldFont`,
/// SDK 3.5 `Font.h`), as PilRC uses them for `AUTO` heights.
const HEIGHTS: [u8; 8] = [11, 11, 14, 10, 11, 8, 19, 15];

/// The fonts known to one compile: widths (per character code) and height of
/// each font ID, the built-in fonts first.
#[derive(Debug, Clone)]
pub(crate) struct Metrics {
    fonts: std::collections::BTreeMap<u8, ([u8; 256], i32)>,
}

impl Metrics {
    /// The built-in fonts 0-7 with `script`'s replacement widths.
    pub(crate) fn new(script: Script) -> Metrics {
        let builtin = [
            &STD_WIDTHS,
            &BOLD_WIDTHS,
            &LARGE_WIDTHS,
            &FONT3_WIDTHS,
            &FONT4_WIDTHS,
            &FONT5_WIDTHS,
            &FONT6_WIDTHS,
            &FONT7_WIDTHS,
        ];
        let mut fonts = std::collections::BTreeMap::new();
        for (id, widths) in builtin.into_iter().enumerate() {
            let mut w = *widths;
            match script {
                Script::Latin => {}
                Script::Hebrew => {
                    let table = [&FONT0_HEBREW, &FONT1_HEBREW, &FONT2_HEBREW];
                    if let Some(t) = table.get(id) {
                        w[0xE0..].copy_from_slice(&t[..]);
                    }
                }
                Script::Cyrillic => {
                    let t = match id {
                        0 => Some(&FONT0_CYRILLIC),
                        1 => Some(&FONT1_CYRILLIC),
                        2 => Some(&FONT2_CYRILLIC),
                        7 => Some(&FONT7_CYRILLIC),
                        _ => None,
                    };
                    if let Some(t) = t {
                        w[0xA8] = t[0];
                        w[0xB8] = t[1];
                        w[0xC0..].copy_from_slice(&t[2..]);
                    }
                }
            }
            fonts.insert(id as u8, (w, i32::from(HEIGHTS[id])));
        }
        Metrics { fonts }
    }

    /// Defines (or redefines) font `font` with the advance of each character
    /// code and its height, as a `FONT` statement does.
    pub(crate) fn define(&mut self, font: u8, widths: [u8; 256], height: i32) {
        self.fonts.insert(font, (widths, height));
    }

    /// Height in pixels of font `font`, or `None` for a font with no metrics.
    pub(crate) fn height(&self, font: u8) -> Option<i32> {
        self.fonts.get(&font).map(|f| f.1)
    }

    /// Width in pixels of `text` (Palm character codes) drawn in `font`, or
    /// `None` for a font with no metrics.
    pub(crate) fn text_width(&self, text: &[u8], font: u8) -> Option<i32> {
        let (widths, _) = self.fonts.get(&font)?;
        Some(
            text.iter()
                .map(|&c| i32::from(widths[usize::from(c)]))
                .sum(),
        )
    }
}

/// Widths of `stdFont` (font 0), indexed by character code.
#[rustfmt::skip]
const STD_WIDTHS: [u8; 256] = [
     5,  5,  5,  5,  5,  5,  5,  5,  5,  2,  5,  5,  5,  5,  5,  5, // 0x00
     5,  5,  5,  5, 11,  5,  8,  8,  6,  5,  5,  5,  5,  5,  5,  5, // 0x10
     2,  2,  4,  8,  6,  8,  7,  2,  4,  4,  6,  6,  3,  4,  2,  5, // 0x20
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  2,  3,  6,  6,  6,  5, // 0x30
     8,  5,  5,  5,  6,  4,  4,  6,  6,  2,  4,  6,  5,  8,  6,  7, // 0x40
     5,  7,  5,  5,  6,  6,  6,  8,  6,  6,  6,  3,  5,  3,  6,  4, // 0x50
     3,  5,  5,  4,  5,  5,  4,  5,  5,  2,  3,  5,  2,  8,  5,  5, // 0x60
     5,  5,  4,  4,  4,  5,  5,  6,  6,  6,  4,  4,  2,  4,  7,  5, // 0x70
     5,  5,  3,  8,  5,  6,  6,  6,  4, 11,  5,  4,  8, 10, 10, 10, // 0x80
    10,  3,  3,  5,  5,  4,  4,  7,  7, 10,  4,  4,  8,  5,  5,  6, // 0x90
     2,  2,  6,  6,  8,  6,  2,  5,  4,  8,  5,  6,  6,  4,  8,  6, // 0xA0
     5,  6,  4,  4,  3,  5,  6,  2,  4,  2,  5,  6,  8,  8,  8,  5, // 0xB0
     5,  5,  5,  5,  5,  5,  7,  5,  4,  4,  4,  4,  3,  2,  3,  3, // 0xC0
     7,  6,  7,  7,  7,  7,  7,  5,  8,  6,  6,  6,  6,  6,  6,  6, // 0xD0
     5,  5,  5,  5,  5,  5,  8,  4,  5,  5,  5,  5,  2,  2,  3,  3, // 0xE0
     5,  5,  5,  5,  5,  5,  5,  6,  7,  5,  5,  5,  5,  6,  5,  6, // 0xF0
];
/// Widths of `boldFont` (font 1), indexed by character code.
#[rustfmt::skip]
const BOLD_WIDTHS: [u8; 256] = [
     5,  5,  5,  5,  5,  5,  5,  5,  5,  2,  5,  5,  5,  5,  5,  5, // 0x00
     5,  5,  5,  5, 11,  5, 10,  8,  6,  6,  5,  5,  5,  5,  5,  5, // 0x10
     2,  3,  6, 10,  6, 13,  9,  3,  5,  5,  6,  6,  3,  5,  3,  6, // 0x20
     6,  6,  6,  6,  6,  6,  6,  6,  6,  6,  3,  3,  6,  6,  6,  6, // 0x30
    10,  7,  7,  6,  7,  5,  5,  8,  8,  3,  5,  7,  6, 10,  7,  8, // 0x40
     7,  8,  8,  6,  7,  7,  8, 11,  7,  7,  7,  4,  6,  4,  6,  5, // 0x50
     4,  6,  6,  5,  6,  6,  5,  6,  6,  3,  4,  6,  3,  9,  6,  6, // 0x60
     6,  6,  5,  5,  6,  6,  6,  9,  6,  6,  5,  5,  3,  5,  7,  5, // 0x70
     6,  5,  3,  9,  5,  6,  5,  5,  4, 17,  6,  5, 10, 10, 10, 10, // 0x80
    10,  3,  3,  5,  5,  4,  4,  6,  7, 10,  5,  5, 10,  5,  5,  7, // 0x90
     2,  3,  6,  7,  8,  7,  3,  6,  4,  8,  6,  8,  6,  5,  8,  6, // 0xA0
     5,  6,  4,  4,  4,  6,  7,  2,  4,  2,  6,  8,  9,  9,  9,  6, // 0xB0
     7,  7,  7,  7,  7,  7,  9,  6,  5,  5,  5,  5,  3,  3,  3,  3, // 0xC0
     8,  7,  8,  8,  8,  8,  8,  6,  8,  7,  7,  7,  7,  7,  7,  8, // 0xD0
     6,  6,  6,  6,  6,  6,  9,  5,  6,  6,  6,  6,  3,  3,  3,  3, // 0xE0
     6,  6,  6,  6,  6,  6,  6,  7,  8,  6,  6,  6,  6,  6,  6,  6, // 0xF0
];
/// Widths of `largeFont` (font 2), indexed by character code.
#[rustfmt::skip]
const LARGE_WIDTHS: [u8; 256] = [
     5,  5,  5,  5,  5,  5,  5,  5,  5,  4,  5,  5,  5,  5,  5,  5, // 0x00
     5,  5,  5,  5, 11,  5, 10,  8, 10,  7,  5,  5,  5,  5,  5,  5, // 0x10
     4,  2,  4,  9,  6, 11,  8,  2,  4,  4,  6,  8,  3,  4,  2,  5, // 0x20
     7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  2,  3,  7,  7,  7,  5, // 0x30
    11,  9,  6,  7,  7,  6,  6,  8,  7,  3,  4,  7,  5, 10,  7,  8, // 0x40
     6,  8,  6,  5,  6,  7,  7, 11,  7,  6,  5,  3,  5,  3,  6,  6, // 0x50
     3,  6,  7,  6,  7,  7,  4,  7,  6,  3,  3,  6,  2, 10,  7,  7, // 0x60
     7,  7,  4,  5,  4,  7,  6, 10,  6,  7,  6,  4,  2,  4,  7,  5, // 0x70
     7,  5,  3,  7,  5, 10,  6,  6,  4, 13,  5,  4,  9, 10, 10, 10, // 0x80
    10,  3,  3,  5,  5,  5,  6, 12,  7, 11,  5,  4, 12,  5,  5,  8, // 0x90
     4,  2,  6,  6,  8,  8,  2,  6,  4, 10,  5,  7,  7,  4, 10,  4, // 0xA0
     5,  6,  5,  4,  3,  6,  6,  2,  4,  3,  5,  7,  8,  8,  8,  5, // 0xB0
     9,  9,  9,  9,  9,  9,  9,  7,  6,  6,  6,  6,  3,  2,  3,  3, // 0xC0
     8,  7,  8,  8,  8,  8,  8,  6,  8,  7,  7,  7,  7,  6,  6,  6, // 0xD0
     6,  6,  6,  6,  6,  6, 11,  6,  7,  7,  7,  7,  3,  2,  3,  3, // 0xE0
     6,  7,  7,  7,  7,  7,  7,  6,  7,  7,  7,  7,  7,  7,  6,  7, // 0xF0
];

/// Widths of `symbolFont` (font 3), indexed by character code.
#[rustfmt::skip]
const FONT3_WIDTHS: [u8; 256] = [
     5,  5,  5, 11, 10, 10, 10, 11, 11,  7,  4,  6,  6,  8,  8,  8, // 0x00
     8,  8,  8,  7,  7,  7,  6, 10, 10, 10, 10,  5,  5,  5,  5,  5, // 0x10
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x20
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x30
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x40
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x50
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x60
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x70
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x80
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x90
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xA0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xB0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xC0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xD0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xE0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xF0
];
/// Widths of `symbol11Font` (font 4), indexed by character code.
#[rustfmt::skip]
const FONT4_WIDTHS: [u8; 256] = [
    12, 12,  8,  8, 12,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x00
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x10
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x20
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x30
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x40
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x50
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x60
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x70
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x80
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x90
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xA0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xB0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xC0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xD0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xE0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xF0
];
/// Widths of `symbol7Font` (font 5), indexed by character code.
#[rustfmt::skip]
const FONT5_WIDTHS: [u8; 256] = [
     5, 11, 11, 11, 11,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x00
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x10
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x20
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x30
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x40
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x50
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x60
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x70
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x80
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0x90
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xA0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xB0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xC0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xD0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xE0
     5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5, // 0xF0
];
/// Widths of `ledFont` (font 6), indexed by character code.
#[rustfmt::skip]
const FONT6_WIDTHS: [u8; 256] = [
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0x00
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0x10
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  4,  6,  4,  7, // 0x20
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0x30
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0x40
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0x50
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0x60
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0x70
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0x80
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0x90
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0xA0
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0xB0
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0xC0
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0xD0
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0xE0
     9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9, // 0xF0
];
/// Widths of `largeBoldFont` (font 7), indexed by character code.
#[rustfmt::skip]
const FONT7_WIDTHS: [u8; 256] = [
     5,  5,  5,  5,  5,  5,  5,  5,  5,  2,  5,  5,  5,  5,  5,  5, // 0x00
     5,  5,  5,  5, 11,  5,  8,  8,  9,  6,  5,  5,  5,  5,  5,  5, // 0x10
     2,  3,  6,  8,  7, 11,  9,  3,  4,  4,  8,  7,  3,  5,  3,  5, // 0x20
     6,  6,  6,  6,  6,  6,  6,  6,  6,  6,  3,  4,  7,  6,  7,  6, // 0x30
    10,  9,  7,  7,  7,  6,  6,  7,  7,  3,  7,  7,  6,  9,  8,  7, // 0x40
     7,  8,  7,  7,  7,  7,  8, 10,  8,  7,  6,  4,  5,  4,  8,  8, // 0x50
     4,  6,  6,  6,  6,  6,  5,  6,  6,  3,  4,  6,  3,  9,  6,  6, // 0x60
     6,  6,  5,  6,  5,  6,  7,  9,  6,  6,  5,  7,  3,  7,  8,  5, // 0x70
     6,  5,  3,  7,  6,  9,  6,  6,  6, 12,  7,  4,  9, 10, 10, 10, // 0x80
    10,  3,  3,  6,  6,  8,  7,  9,  7,  8,  6,  4,  9,  5,  5,  7, // 0x90
     1,  3,  6,  7,  8,  7,  2,  5,  6,  8,  4,  7,  7,  3,  8,  8, // 0xA0
     5,  7,  4,  4,  4,  7,  8,  3,  4,  3,  4,  7,  8,  8,  8,  6, // 0xB0
     9,  9,  9,  9,  9,  9, 11,  7,  6,  6,  6,  6,  4,  4,  5,  4, // 0xC0
     8,  8,  7,  7,  7,  7,  7,  6,  7,  7,  7,  7,  7,  7,  7,  7, // 0xD0
     6,  6,  6,  6,  6,  6,  9,  6,  6,  6,  6,  6,  4,  4,  5,  4, // 0xE0
     6,  6,  6,  6,  6,  6,  6,  7,  6,  6,  6,  6,  6,  6,  6,  6, // 0xF0
];
/// `-Fh` widths of font 0 for codes 0xE0..=0xFF.
const FONT0_HEBREW: [u8; 32] = [
    6, 6, 5, 6, 6, 3, 4, 6, 6, 3, 6, 5, 6, 6, 6, 3, 4, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 2, 2, 2, 2, 2,
];
/// `-Fh` widths of font 1 for codes 0xE0..=0xFF.
const FONT1_HEBREW: [u8; 32] = [
    7, 7, 6, 7, 7, 3, 5, 7, 8, 3, 6, 6, 6, 7, 8, 3, 5, 7, 8, 7, 7, 6, 6, 7, 6, 9, 8, 2, 2, 2, 2, 2,
];
/// `-Fh` widths of font 2 for codes 0xE0..=0xFF.
const FONT2_HEBREW: [u8; 32] = [
    7, 7, 6, 7, 7, 4, 6, 7, 7, 4, 7, 7, 7, 7, 7, 4, 4, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 2, 2, 2, 2, 2,
];
/// `-Fc` widths of font 0: code 0xA8, code 0xB8, then codes 0xC0..=0xFF.
const FONT0_CYRILLIC: [u8; 66] = [
    4, 5, 5, 5, 5, 5, 7, 4, 8, 5, 5, 5, 6, 6, 8, 6, 7, 5, 5, 6, 6, 5, 8, 6, 6, 5, 6, 7, 6, 7, 5, 5,
    7, 5, 5, 5, 5, 4, 6, 5, 8, 5, 5, 5, 5, 5, 6, 5, 5, 5, 5, 4, 6, 6, 6, 6, 6, 5, 6, 7, 6, 7, 5, 5,
    7, 5,
];
/// `-Fc` widths of font 1: code 0xA8, code 0xB8, then codes 0xC0..=0xFF.
const FONT1_CYRILLIC: [u8; 66] = [
    5, 6, 7, 6, 6, 6, 8, 5, 9, 6, 7, 7, 7, 8, 10, 8, 8, 8, 7, 7, 7, 6, 11, 7, 8, 8, 9, 10, 7, 9, 6,
    8, 9, 7, 6, 6, 6, 5, 8, 6, 9, 6, 6, 6, 7, 7, 9, 6, 6, 6, 6, 5, 5, 6, 8, 6, 7, 6, 9, 10, 7, 9,
    6, 6, 9, 6,
];
/// `-Fc` widths of font 2: code 0xA8, code 0xB8, then codes 0xC0..=0xFF.
const FONT2_CYRILLIC: [u8; 66] = [
    6, 7, 9, 6, 6, 6, 8, 6, 8, 6, 6, 6, 7, 7, 10, 6, 8, 6, 6, 7, 6, 6, 8, 7, 7, 6, 8, 9, 7, 8, 6,
    6, 9, 6, 6, 6, 6, 5, 7, 7, 6, 6, 7, 7, 6, 6, 8, 6, 7, 7, 7, 6, 6, 7, 8, 6, 7, 6, 8, 9, 7, 8, 6,
    6, 8, 6,
];
/// `-Fc` widths of font 7: code 0xA8, code 0xB8, then codes 0xC0..=0xFF.
const FONT7_CYRILLIC: [u8; 66] = [
    6, 6, 9, 7, 7, 7, 9, 6, 11, 6, 8, 8, 7, 8, 9, 7, 7, 7, 7, 7, 7, 6, 11, 8, 7, 7, 9, 10, 8, 10,
    7, 6, 10, 7, 6, 6, 6, 5, 6, 6, 8, 6, 6, 6, 6, 7, 11, 6, 6, 6, 6, 6, 7, 6, 9, 6, 7, 6, 9, 10, 7,
    9, 6, 6, 9, 6,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_of_known_strings() {
        // "OK": 'O' is 7 and 'K' 6 pixels wide in stdFont; 8 and 7 in boldFont.
        let m = Metrics::new(Script::Latin);
        assert_eq!(m.text_width(b"OK", 0), Some(13));
        assert_eq!(m.text_width(b"", 2), Some(0));
        assert_eq!(m.text_width(b"OK", 1), Some(15));
        // largeBoldFont: 'O' 9, 'K' 8 (PilRC font7).
        assert_eq!(
            m.text_width(b"OK", 7),
            Some(FONT7_WIDTHS[b'O' as usize] as i32 + FONT7_WIDTHS[b'K' as usize] as i32)
        );
        assert_eq!(m.text_width(b"OK", 8), None);
        let c = Metrics::new(Script::Cyrillic);
        assert_eq!(c.text_width(&[0xC0], 0), Some(i32::from(FONT0_CYRILLIC[2])));
        let h = Metrics::new(Script::Hebrew);
        assert_eq!(h.text_width(&[0xE0], 1), Some(i32::from(FONT1_HEBREW[0])));
        assert_eq!(h.text_width(&[0xE0], 3), m.text_width(&[0xE0], 3));
    }

    #[test]
    fn heights() {
        let m = Metrics::new(Script::Latin);
        assert_eq!(m.height(0), Some(11));
        assert_eq!(m.height(2), Some(14));
        assert_eq!(m.height(7), Some(15));
        assert_eq!(m.height(8), None);
        assert_eq!(m.height(6), Some(19));
    }
}
