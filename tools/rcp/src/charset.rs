//! The Palm character set: source text (Unicode) to Palm bytes and back.
//!
//! Palm OS Latin devices use Windows code page 1252: 0x00-0x7F is ASCII,
//! 0xA0-0xFF is ISO 8859-1, and 0x80-0x9F hold the Windows-1252 extras
//! (0x85 is the ellipsis PilRC substitutes for a trailing "..."). PilRC itself
//! copies the bytes of the `.rcp` file unchanged; this compiler reads UTF-8
//! (or, when a file is not valid UTF-8, Latin-1 bytes as they are) and maps
//! each character with this table.

/// Unicode characters of Windows-1252 codes 0x80..=0x9F (`None` where the
/// code page leaves a code undefined).
const HIGH: [Option<char>; 32] = [
    Some('\u{20AC}'), // 0x80 euro sign
    None,             // 0x81
    Some('\u{201A}'), // 0x82 single low-9 quotation mark
    Some('\u{0192}'), // 0x83 f with hook
    Some('\u{201E}'), // 0x84 double low-9 quotation mark
    Some('\u{2026}'), // 0x85 horizontal ellipsis
    Some('\u{2020}'), // 0x86 dagger
    Some('\u{2021}'), // 0x87 double dagger
    Some('\u{02C6}'), // 0x88 circumflex accent
    Some('\u{2030}'), // 0x89 per mille sign
    Some('\u{0160}'), // 0x8A S caron
    Some('\u{2039}'), // 0x8B single left angle quotation mark
    Some('\u{0152}'), // 0x8C OE ligature
    None,             // 0x8D
    Some('\u{017D}'), // 0x8E Z caron
    None,             // 0x8F
    None,             // 0x90
    Some('\u{2018}'), // 0x91 left single quotation mark
    Some('\u{2019}'), // 0x92 right single quotation mark
    Some('\u{201C}'), // 0x93 left double quotation mark
    Some('\u{201D}'), // 0x94 right double quotation mark
    Some('\u{2022}'), // 0x95 bullet
    Some('\u{2013}'), // 0x96 en dash
    Some('\u{2014}'), // 0x97 em dash
    Some('\u{02DC}'), // 0x98 small tilde
    Some('\u{2122}'), // 0x99 trade mark sign
    Some('\u{0161}'), // 0x9A s caron
    Some('\u{203A}'), // 0x9B single right angle quotation mark
    Some('\u{0153}'), // 0x9C oe ligature
    None,             // 0x9D
    Some('\u{017E}'), // 0x9E z caron
    Some('\u{0178}'), // 0x9F Y diaeresis
];

/// The Palm byte for `c`, or `None` when the character is not in the Palm
/// (Windows-1252) character set. U+0000..=U+00FF map to the byte of the same
/// value (so Latin-1 input, C1 controls included, passes through unchanged);
/// the Windows-1252 extras (`…`, `€`, `™`, curly quotes, ...) map to
/// 0x80..=0x9F.
pub fn encode_char(c: char) -> Option<u8> {
    if let Ok(byte) = u8::try_from(u32::from(c)) {
        return Some(byte);
    }
    HIGH.iter()
        .position(|&h| h == Some(c))
        .and_then(|i| u8::try_from(0x80 + i).ok())
}

/// Palm bytes as a Rust string: Windows-1252, with the five undefined codes
/// (0x81, 0x8D, 0x8F, 0x90, 0x9D) shown as U+FFFD.
pub fn decode(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            0x80..=0x9F => HIGH[usize::from(b - 0x80)].unwrap_or('\u{FFFD}'),
            _ => char::from(b),
        })
        .collect()
}

/// Source file bytes as text: UTF-8 when they are valid UTF-8, otherwise
/// Latin-1 (each byte one character), which keeps the bytes of a legacy
/// `.rcp` file unchanged through [`encode_char`].
pub(crate) fn source_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_latin1_and_windows_extras() {
        assert_eq!(encode_char('A'), Some(0x41));
        assert_eq!(encode_char('é'), Some(0xE9));
        assert_eq!(encode_char('…'), Some(0x85));
        assert_eq!(encode_char('€'), Some(0x80));
        assert_eq!(encode_char('™'), Some(0x99));
        assert_eq!(encode_char('π'), None);
        // Latin-1 input keeps its bytes, C1 controls included.
        assert_eq!(encode_char('\u{85}'), Some(0x85));
    }

    #[test]
    fn decode_round_trips_defined_codes() {
        for b in 0..=255u8 {
            let s = decode(&[b]);
            let c = s.chars().next().unwrap();
            if c != '\u{FFFD}' {
                assert_eq!(encode_char(c), Some(b), "code {b:#x}");
            }
        }
    }

    #[test]
    fn source_text_falls_back_to_latin1() {
        assert_eq!(source_text("é".as_bytes()), "é");
        assert_eq!(source_text(&[b'a', 0xE9]), "aé");
    }
}
