//! Big-endian reading and writing shared by the resource layouts. Every read
//! is bounds-checked and reports the offset it failed at.

use crate::error::{EncodeError, ParseError};

/// A bounds-checked view of one resource's bytes.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    resource: &'static str,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8], resource: &'static str) -> Self {
        Reader { data, resource }
    }

    pub(crate) fn len(&self) -> usize {
        self.data.len()
    }

    /// A parse error of this resource at `offset`.
    pub(crate) fn error(&self, offset: usize, message: &'static str) -> ParseError {
        ParseError {
            resource: self.resource,
            offset,
            message,
        }
    }

    /// `n` bytes at `offset`, or an error naming `what` when they run past the end.
    pub(crate) fn slice(
        &self,
        offset: usize,
        n: usize,
        what: &'static str,
    ) -> Result<&'a [u8], ParseError> {
        offset
            .checked_add(n)
            .and_then(|end| self.data.get(offset..end))
            .ok_or_else(|| self.error(offset, what))
    }

    pub(crate) fn u8(&self, offset: usize, what: &'static str) -> Result<u8, ParseError> {
        Ok(self.slice(offset, 1, what)?[0])
    }

    pub(crate) fn u16(&self, offset: usize, what: &'static str) -> Result<u16, ParseError> {
        let b = self.slice(offset, 2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub(crate) fn i16(&self, offset: usize, what: &'static str) -> Result<i16, ParseError> {
        let b = self.slice(offset, 2, what)?;
        Ok(i16::from_be_bytes([b[0], b[1]]))
    }

    pub(crate) fn u32(&self, offset: usize, what: &'static str) -> Result<u32, ParseError> {
        let b = self.slice(offset, 4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The NUL-terminated string starting at `offset`, without its NUL.
    pub(crate) fn cstr(&self, offset: usize, what: &'static str) -> Result<&'a [u8], ParseError> {
        let rest = self
            .data
            .get(offset..)
            .ok_or_else(|| self.error(offset, what))?;
        let len = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.error(offset, what))?;
        Ok(&rest[..len])
    }
}

/// A growing big-endian resource image.
#[derive(Default)]
pub(crate) struct Writer {
    pub(crate) out: Vec<u8>,
}

impl Writer {
    pub(crate) fn u8(&mut self, v: u8) {
        self.out.push(v);
    }

    pub(crate) fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn i16(&mut self, v: i16) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    /// `n` zero bytes (pointers and run-time fields the OS fills in).
    pub(crate) fn zeros(&mut self, n: usize) {
        self.out.resize(self.out.len() + n, 0);
    }

    /// `text` and its terminating NUL.
    pub(crate) fn cstr(&mut self, text: &[u8]) {
        self.out.extend_from_slice(text);
        self.out.push(0);
    }

    /// One zero byte if the image has an odd length (PilRC's `PadBoundary`
    /// for 68k resources, `jichu4n/pilrc:util.c`).
    pub(crate) fn pad_even(&mut self) {
        if self.out.len() % 2 == 1 {
            self.out.push(0);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.out.len()
    }
}

/// Checks that `text` can be stored as a C string (no NUL inside it).
pub(crate) fn check_text(text: &[u8], what: &str) -> Result<(), EncodeError> {
    if text.contains(&0) {
        return Err(EncodeError {
            message: format!("{what} contains a NUL byte"),
        });
    }
    Ok(())
}

/// `n` as a 16-bit count, or an error naming `what`.
pub(crate) fn count_u16(n: usize, what: &str) -> Result<u16, EncodeError> {
    u16::try_from(n).map_err(|_| EncodeError {
        message: format!("too many {what}: {n} (at most 65535)"),
    })
}

/// `n` as a 32-bit offset, or an error.
pub(crate) fn offset_u32(n: usize) -> Result<u32, EncodeError> {
    u32::try_from(n).map_err(|_| EncodeError {
        message: format!("resource too large: offset {n}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_bounds() {
        let r = Reader::new(&[0x12, 0x34, 0x56, b'a', 0], "test");
        assert_eq!(r.u16(0, "x"), Ok(0x1234));
        assert_eq!(r.i16(1, "x"), Ok(0x3456));
        assert_eq!(r.u32(1, "x"), Ok(0x3456_6100));
        assert_eq!(r.cstr(3, "x"), Ok(&b"a"[..]));
        assert_eq!(r.u32(2, "short").unwrap_err().offset, 2);
        assert_eq!(r.cstr(2, "x").map(<[u8]>::len), Ok(2));
        assert!(r.cstr(9, "x").is_err());
        assert!(r.slice(usize::MAX, 2, "x").is_err());
        let unterminated = Reader::new(b"abc", "test");
        assert!(unterminated.cstr(0, "x").is_err());
    }

    #[test]
    fn writer_pads() {
        let mut w = Writer::default();
        w.cstr(b"ab");
        w.pad_even();
        assert_eq!(w.out, b"ab\0\0");
        w.u16(0x0102);
        w.pad_even();
        assert_eq!(w.len(), 6);
    }
}
