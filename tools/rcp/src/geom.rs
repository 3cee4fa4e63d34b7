//! Screen geometry as Palm OS stores it: `PointType` and `RectangleType`
//! (SDK 3.5 `Core/System/Rect.h`), each coordinate a `Coord` (`Int16`,
//! `PalmTypes.h`), in pixels, big-endian.

use crate::bytes::{Reader, Writer};
use crate::error::ParseError;

/// A point in pixels (`PointType`: x then y, 4 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Point {
    /// Horizontal position in pixels, from the left.
    pub x: i16,
    /// Vertical position in pixels, from the top.
    pub y: i16,
}

/// A rectangle in pixels (`RectangleType`: `topLeft` then `extent`, 8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Rect {
    /// Left edge in pixels.
    pub x: i16,
    /// Top edge in pixels.
    pub y: i16,
    /// Width in pixels.
    pub width: i16,
    /// Height in pixels.
    pub height: i16,
}

impl Rect {
    /// The rectangle at (`x`, `y`) of `width` x `height` pixels.
    pub const fn new(x: i16, y: i16, width: i16, height: i16) -> Rect {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    /// Whether the rectangle lies within `0..screen_width` x `0..screen_height`.
    pub fn fits_in(&self, screen_width: i16, screen_height: i16) -> bool {
        let right = i32::from(self.x) + i32::from(self.width);
        let bottom = i32::from(self.y) + i32::from(self.height);
        self.x >= 0
            && self.y >= 0
            && self.width >= 0
            && self.height >= 0
            && right <= i32::from(screen_width)
            && bottom <= i32::from(screen_height)
    }

    /// Whether the two rectangles share at least one pixel.
    pub fn intersects(&self, other: &Rect) -> bool {
        let (ax2, ay2) = (
            i32::from(self.x) + i32::from(self.width),
            i32::from(self.y) + i32::from(self.height),
        );
        let (bx2, by2) = (
            i32::from(other.x) + i32::from(other.width),
            i32::from(other.y) + i32::from(other.height),
        );
        i32::from(self.x) < bx2
            && i32::from(other.x) < ax2
            && i32::from(self.y) < by2
            && i32::from(other.y) < ay2
    }
}

pub(crate) fn read_point(r: &Reader<'_>, at: usize) -> Result<Point, ParseError> {
    Ok(Point {
        x: r.i16(at, "point truncated")?,
        y: r.i16(at + 2, "point truncated")?,
    })
}

pub(crate) fn read_rect(r: &Reader<'_>, at: usize) -> Result<Rect, ParseError> {
    Ok(Rect {
        x: r.i16(at, "rectangle truncated")?,
        y: r.i16(at + 2, "rectangle truncated")?,
        width: r.i16(at + 4, "rectangle truncated")?,
        height: r.i16(at + 6, "rectangle truncated")?,
    })
}

pub(crate) fn write_point(w: &mut Writer, p: Point) {
    w.i16(p.x);
    w.i16(p.y);
}

pub(crate) fn write_rect(w: &mut Writer, r: Rect) {
    w.i16(r.x);
    w.i16(r.y);
    w.i16(r.width);
    w.i16(r.height);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_and_intersects() {
        let a = Rect::new(0, 0, 80, 12);
        assert!(a.fits_in(160, 160));
        assert!(!Rect::new(100, 0, 61, 12).fits_in(160, 160));
        assert!(!Rect::new(-1, 0, 10, 12).fits_in(160, 160));
        assert!(a.intersects(&Rect::new(79, 11, 5, 5)));
        assert!(!a.intersects(&Rect::new(80, 0, 5, 5)));
        assert!(!a.intersects(&Rect::new(0, 12, 5, 5)));
    }
}
