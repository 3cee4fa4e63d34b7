//! Glyph widths and heights of the Palm OS built-in fonts, in pixels.
//!
//! PilRC needs them for `AUTO` sizes (`AT (10 10 AUTO AUTO)`) and for the
//! pull-down bounds it stores in `MBAR` resources. The numbers are the metrics
//! of the ROM fonts as PilRC knows them (`jichu4n/pilrc:font.c`, `InitFontMem`:
//! the width of every character code of fonts 0-2, and the heights of fonts
//! 0-7). Only facts are taken; the tables are laid out here as 16 codes a row.

/// Height in pixels of the built-in fonts 0..=7 (`stdFont` .. `largeBoldFont`,
/// SDK 3.5 `Font.h`), as PilRC uses them for `AUTO` heights.
const HEIGHTS: [u8; 8] = [11, 11, 14, 10, 11, 8, 19, 15];

/// Height in pixels of font `font`, or `None` for a font this compiler has no
/// metrics for (application fonts, 0x80 and up).
pub(crate) fn height(font: u8) -> Option<i32> {
    HEIGHTS.get(usize::from(font)).map(|&h| i32::from(h))
}

/// Width in pixels of `text` (Palm character codes) drawn in `font`, or `None`
/// when the font's widths are not built in (only fonts 0, 1 and 2 are).
pub(crate) fn text_width(text: &[u8], font: u8) -> Option<i32> {
    let table = match font {
        0 => &STD_WIDTHS,
        1 => &BOLD_WIDTHS,
        2 => &LARGE_WIDTHS,
        _ => return None,
    };
    Some(text.iter().map(|&c| i32::from(table[usize::from(c)])).sum())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_of_known_strings() {
        // "OK": 'O' is 7 and 'K' 6 pixels wide in stdFont; 8 and 7 in boldFont.
        assert_eq!(text_width(b"OK", 0), Some(13));
        assert_eq!(text_width(b"OK", 1), Some(15));
        assert_eq!(text_width(b"", 2), Some(0));
        assert_eq!(text_width(b"OK", 3), None);
    }

    #[test]
    fn heights() {
        assert_eq!(height(0), Some(11));
        assert_eq!(height(2), Some(14));
        assert_eq!(height(7), Some(15));
        assert_eq!(height(8), None);
    }
}
