//! Text built in a dynamic-heap chunk: the strings the forms show (a field's
//! text, a list's items). No `core::fmt` on the 68k (its vtables need
//! absolute relocations), so numbers are written digit by digit here.

use m68k_palmos_sys as palm;
use palm::Char;

/// A NUL-terminated byte string in a chunk of `cap` bytes (`MemPtrNew`):
/// at most `cap - 1` bytes of text; what does not fit is dropped.
#[repr(C)]
pub struct Text {
    buf: *mut u8,
    len: u16,
    cap: u16,
}

impl Text {
    /// A text of `cap` bytes (1 to 65,505, `MemPtrNew`'s limit), or `None`
    /// when the heap has no room.
    pub fn new(cap: u16) -> Option<Text> {
        // SAFETY: MemPtrNew returns a chunk of `cap` bytes or null.
        let buf = unsafe { palm::MemPtrNew(u32::from(cap)) }.cast::<u8>();
        if buf.is_null() || cap == 0 {
            return None;
        }
        let mut t = Text { buf, len: 0, cap };
        t.clear();
        Some(t)
    }

    /// Frees the chunk; the text is empty and unusable afterwards.
    pub fn free(&mut self) {
        if !self.buf.is_null() {
            // SAFETY: the chunk MemPtrNew gave `new`, freed once.
            unsafe { palm::MemChunkFree(self.buf.cast()) };
        }
        self.buf = core::ptr::null_mut();
        self.len = 0;
        self.cap = 0;
    }

    /// Empties the text.
    pub fn clear(&mut self) {
        self.len = 0;
        self.terminate();
    }

    fn terminate(&mut self) {
        if !self.buf.is_null() {
            // SAFETY: len < cap: inside the chunk.
            unsafe { *self.buf.add(usize::from(self.len)) = 0 };
        }
    }

    /// Bytes of text (without the NUL).
    pub fn len(&self) -> u16 {
        self.len
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The NUL-terminated text, for the Palm calls that show it (valid
    /// until the text changes or is freed).
    pub fn as_ptr(&self) -> *mut Char {
        self.buf.cast()
    }

    /// The text from byte `at` on, NUL-terminated (`at` past the end: the
    /// empty string at the end).
    pub fn from(&self, at: u16) -> *mut Char {
        // SAFETY: at most len, which is < cap: inside the chunk.
        unsafe { self.buf.add(usize::from(at.min(self.len))).cast() }
    }

    /// The byte at `i` (0 past the end).
    pub fn at(&self, i: u16) -> u8 {
        if i < self.len {
            // SAFETY: i < len < cap.
            unsafe { *self.buf.add(usize::from(i)) }
        } else {
            0
        }
    }

    /// Appends byte `b` (a NUL becomes a space), if there is room.
    pub fn byte(&mut self, b: u8) {
        if self.buf.is_null() || self.len + 1 >= self.cap {
            return;
        }
        // SAFETY: len + 1 < cap: inside the chunk.
        unsafe { *self.buf.add(usize::from(self.len)) = if b == 0 { b' ' } else { b } };
        self.len += 1;
        self.terminate();
    }

    /// Appends `s`.
    pub fn bytes(&mut self, s: &[u8]) {
        for &b in s {
            self.byte(b);
        }
    }

    /// Appends `s`.
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// Appends a line break.
    pub fn nl(&mut self) {
        self.byte(b'\n');
    }

    /// Appends `v` in decimal.
    pub fn dec(&mut self, v: u32) {
        let mut d = 1u32;
        while d <= v / 10 {
            d *= 10;
        }
        loop {
            self.byte(b'0' + (v / d % 10) as u8);
            if d == 1 {
                break;
            }
            d /= 10;
        }
    }

    /// Appends `v` as `digits` hexadecimal digits (uppercase, 1 to 8).
    pub fn hex(&mut self, v: u32, digits: u32) {
        let mut shift = digits.clamp(1, 8) * 4;
        while shift > 0 {
            shift -= 4;
            let n = ((v >> shift) & 0xF) as u8;
            self.byte(if n < 10 { b'0' + n } else { b'A' + n - 10 });
        }
    }

    /// Appends `0x` and `v` as 8 hexadecimal digits.
    pub fn address(&mut self, v: u32) {
        self.str("0x");
        self.hex(v, 8);
    }

    /// Appends `n` and `one` or `many` (`1 leak`, `2 leaks`).
    pub fn count(&mut self, n: u32, one: &str, many: &str) {
        self.dec(n);
        self.byte(b' ');
        self.str(if n == 1 { one } else { many });
    }
}
