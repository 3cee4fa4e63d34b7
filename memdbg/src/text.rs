//! Building the detector's messages without `core::fmt` (its `dyn Write` vtable needs
//! absolute relocations, which a Palm code resource cannot have; TOOLCHAIN.md).
//!
//! [`Text`] appends bytes, decimal and hexadecimal numbers to a fixed buffer (kept in
//! the state chunk on the 68k, never on the stack) and keeps it NUL-terminated for
//! `ErrDisplayFileLineMsg` and `DbgMessage`. Output that does not fit is cut off.

/// A NUL-terminated text being built in a borrowed buffer.
pub struct Text<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> Text<'a> {
    /// An empty text in `buf` (which must hold at least the NUL: 1 byte).
    pub fn new(buf: &'a mut [u8]) -> Self {
        if let Some(b) = buf.first_mut() {
            *b = 0;
        }
        Text { buf, len: 0 }
    }

    /// Bytes written, without the NUL.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was written.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The text's bytes, without the NUL.
    #[cfg(test)]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Appends one byte (dropped when the buffer is full: the last byte stays NUL).
    #[inline(never)]
    pub fn byte(&mut self, b: u8) -> &mut Self {
        if self.len + 1 < self.buf.len() {
            self.buf[self.len] = b;
            self.len += 1;
            self.buf[self.len] = 0;
        }
        self
    }

    /// Appends `s` up to its first NUL.
    #[inline(never)]
    pub fn bytes(&mut self, s: &[u8]) -> &mut Self {
        for &b in s {
            if b == 0 {
                break;
            }
            self.byte(b);
        }
        self
    }

    /// Appends `v` in decimal.
    #[inline(never)]
    pub fn dec(&mut self, v: u32) -> &mut Self {
        // The largest power of ten not above v, then one digit per power: no buffer
        // (a local digit array indexed by a variable would hit the LLVM m68k bug,
        // TOOLCHAIN.md #2).
        let mut p: u32 = 1;
        while v / p >= 10 {
            p *= 10;
        }
        loop {
            self.byte(b'0' + ((v / p) % 10) as u8);
            if p == 1 {
                break;
            }
            p /= 10;
        }
        self
    }

    /// Appends `v` as `0x` and eight uppercase hexadecimal digits.
    #[inline(never)]
    pub fn hex(&mut self, v: u32) -> &mut Self {
        self.bytes(b"0x");
        let mut shift = 32;
        while shift > 0 {
            shift -= 4;
            let d = ((v >> shift) & 0xF) as u8;
            self.byte(if d < 10 { b'0' + d } else { b'A' + d - 10 });
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(f: impl FnOnce(&mut Text<'_>)) -> (Vec<u8>, Vec<u8>) {
        let mut buf = [0xAAu8; 24];
        let mut t = Text::new(&mut buf);
        f(&mut t);
        let s = t.as_bytes().to_vec();
        let n = s.len();
        (s, buf[..=n].to_vec())
    }

    #[test]
    fn decimal() {
        for (v, want) in [
            (0u32, "0"),
            (7, "7"),
            (10, "10"),
            (16, "16"),
            (65_505, "65505"),
            (1_000_000_000, "1000000000"),
            (u32::MAX, "4294967295"),
        ] {
            let (s, raw) = render(|t| {
                t.dec(v);
            });
            assert_eq!(s, want.as_bytes());
            assert_eq!(*raw.last().unwrap(), 0, "NUL-terminated");
        }
    }

    #[test]
    fn hexadecimal() {
        let (s, _) = render(|t| {
            t.hex(0x0001_2A4F);
        });
        assert_eq!(s, b"0x00012A4F");
        let (s, _) = render(|t| {
            t.hex(u32::MAX);
        });
        assert_eq!(s, b"0xFFFFFFFF");
    }

    #[test]
    fn message_and_truncation() {
        let (s, _) = render(|t| {
            t.bytes(b"Leaked ").dec(16).bytes(b" bytes (handle)");
        });
        assert_eq!(s, b"Leaked 16 bytes (handle)"[..23]);
        let mut buf = [0u8; 8];
        let mut t = Text::new(&mut buf);
        t.bytes(b"abc\0def").dec(12345);
        assert_eq!(t.as_bytes(), b"abc1234");
        assert_eq!(t.len(), 7);
        assert_eq!(buf[7], 0);
        let mut one = [9u8; 1];
        let mut t = Text::new(&mut one);
        t.byte(b'x');
        assert!(t.is_empty());
        assert_eq!(one, [0]);
    }
}
