//! Call stacks from the A6 frame chain.
//!
//! Every function of the app is built with frame pointers (`link.w %a6` on entry,
//! TOOLCHAIN.md: `-C force-frame-pointers=yes`; prc-tools' GCC does the same unless
//! told otherwise), so at any point `0(a6)` holds the caller's saved A6 and `4(a6)`
//! the return address into the caller. A walk starts from one known return address
//! and the frame of the function it returns into, then follows the chain.
//!
//! Frames are stored as offsets from code 1's start when they fall inside it (so the
//! host tool can symbolize them with the ELF), else raw ([`Stack::raw_mask`]). The
//! walk stops after the first frame outside code 1 (the OS's frames are not ours to
//! follow), at [`STACK_FRAMES`] frames, or when the next frame pointer is not a
//! plausible older frame: odd, not above the current one, or more than 64 KB above it
//! (a Palm stack is far smaller), so it never reads wild addresses.

#[cfg(not(target_arch = "m68k"))]
use crate::record::{STACK_FRAMES, Stack};

/// Code 1's address range `[base, end)` (68k addresses); empty if unknown.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "m68k"), derive(Debug))]
pub struct CodeRange {
    /// First byte of code 1.
    pub base: u32,
    /// One past its last byte.
    pub end: u32,
}

impl CodeRange {
    /// Whether `addr` is inside code 1 (one unsigned compare: `base <= end`). (Host
    /// stand-ins; the assembly compares itself.)
    #[cfg(not(target_arch = "m68k"))]
    #[inline(always)]
    pub fn contains(&self, addr: u32) -> bool {
        addr.wrapping_sub(self.base) < self.end.wrapping_sub(self.base)
    }
}

/// Largest distance between two successive frames that the walk accepts.
pub const MAX_FRAME_GAP: u32 = 0x1_0000;

/// Fills `out` with up to `max` frames (at most [`STACK_FRAMES`]): `ret` first, then
/// the return addresses found by following the frame chain from `frame` (the A6 of
/// the function `ret` returns into). `read` reads a big-endian long at an even
/// address. The 68k runs this walk as assembly, [`crate::fast::walk`] (reading the
/// frame slots as [`read_long`] does); the host runs this one.
#[cfg(not(target_arch = "m68k"))]
pub fn walk(
    out: &mut Stack,
    ret: u32,
    frame: u32,
    max: usize,
    code: CodeRange,
    read: impl Fn(u32) -> u32,
) {
    let max = max.min(STACK_FRAMES);
    *out = Stack::default();
    let mut n = 0usize;
    let mut bit = 1u8;
    let mut ret = ret;
    let mut frame = frame;
    while n < max {
        let inside = code.contains(ret);
        let v = if inside {
            ret - code.base
        } else {
            out.raw_mask |= bit;
            ret
        };
        out.frames[n].set(v);
        n += 1;
        bit <<= 1;
        if n == max || !inside || frame & 1 != 0 || frame == 0 {
            break;
        }
        ret = read(frame.wrapping_add(4));
        let next = read(frame);
        if ret & 1 != 0 {
            break;
        }
        if next <= frame || next - frame > MAX_FRAME_GAP {
            // The current frame's return address is still good; the chain ends
            // after it (frame 0 stops the next round).
            if ret == 0 {
                break;
            }
            frame = 0;
        } else {
            frame = next;
        }
    }
    out.count = n as u8;
}

/// The current function's frame pointer for the host stand-ins: 0 (there is no
/// 68k frame). On the 68k the assembly reads A6 itself: the frame of the
/// `#[inline(never)]` function the program called, whose `4(a6)` is the return
/// address into the program.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub fn frame_pointer() -> u32 {
    0
}

/// Reads the long at `addr` (a frame slot on the 68k stack). (Host stand-ins.)
///
/// # Safety
/// `addr` is even and readable.
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub unsafe fn read_long(addr: u32) -> u32 {
    // SAFETY: the caller's guarantee; a 2-aligned long read is fine on the 68000.
    unsafe { (addr as usize as *const u32).read_volatile() }
}

/// The return address and caller frame of the function whose frame is `a6`:
/// `(4(a6), 0(a6))`.
///
/// # Safety
/// `a6` is the current frame pointer of a live function (from [`frame_pointer`]).
/// (Host stand-ins.)
#[cfg(not(target_arch = "m68k"))]
#[inline(always)]
pub unsafe fn caller_of(a6: u32) -> (u32, u32) {
    // SAFETY: a live frame holds the saved A6 at 0 and the return address at 4.
    unsafe { (read_long(a6.wrapping_add(4)), read_long(a6)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Frame;
    use std::collections::HashMap;

    const CODE: CodeRange = CodeRange {
        base: 0x4_0000,
        end: 0x4_2000,
    };

    fn mem(words: &[(u32, u32)]) -> impl Fn(u32) -> u32 {
        let m: HashMap<u32, u32> = words.iter().copied().collect();
        move |a| *m.get(&a).unwrap_or_else(|| panic!("read of {a:#x}"))
    }

    /// Frames at 0x1F00 → 0x1F40 → 0x1F80 → 0 (the OS's), each returning into code.
    fn chain() -> impl Fn(u32) -> u32 {
        mem(&[
            (0x1F00, 0x1F40),
            (0x1F04, 0x4_0100),
            (0x1F40, 0x1F80),
            (0x1F44, 0x4_0200),
            (0x1F80, 0),
            (0x1F84, 0x10_0400),
        ])
    }

    #[test]
    fn walks_to_the_os_and_marks_raw_frames() {
        let mut s = Stack::default();
        walk(&mut s, 0x4_0010, 0x1F00, 6, CODE, chain());
        let frames: Vec<Frame> = s.iter().collect();
        assert_eq!(
            frames,
            vec![
                Frame::Code(0x10),
                Frame::Code(0x100),
                Frame::Code(0x200),
                Frame::Raw(0x10_0400)
            ]
        );
        assert_eq!(s.raw_mask, 0b1000);
    }

    #[test]
    fn stops_at_max_and_clears_unused_frames() {
        let mut s = Stack::default();
        s.frames[5].set(0xDEAD);
        walk(&mut s, 0x4_0010, 0x1F00, 2, CODE, chain());
        assert_eq!(s.count, 2);
        assert_eq!(s.frames[2..], [Default::default(); 4]);
        walk(&mut s, 0x4_0010, 0x1F00, 1, CODE, chain());
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![Frame::Code(0x10)]);
    }

    #[test]
    fn a_return_address_outside_code_ends_the_walk_without_reading() {
        let mut s = Stack::default();
        walk(&mut s, 0x10_0000, 0x1F00, 6, CODE, mem(&[]));
        assert_eq!(s.count, 1);
        assert_eq!(s.raw_mask, 1);
    }

    #[test]
    fn implausible_links_end_the_walk() {
        // The second frame links downwards: its return address is kept, nothing more.
        let down = mem(&[
            (0x1F00, 0x1F40),
            (0x1F04, 0x4_0100),
            (0x1F40, 0x1E00),
            (0x1F44, 0x4_0200),
        ]);
        let mut s = Stack::default();
        walk(&mut s, 0x4_0010, 0x1F00, 6, CODE, down);
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            vec![Frame::Code(0x10), Frame::Code(0x100), Frame::Code(0x200)]
        );
        // An odd frame pointer is never dereferenced.
        let mut s = Stack::default();
        walk(&mut s, 0x4_0010, 0x1F01, 6, CODE, mem(&[]));
        assert_eq!(s.count, 1);
        // A jump of more than 64 KB.
        let far = mem(&[(0x1F00, 0x3_0000), (0x1F04, 0x4_0100)]);
        walk(&mut s, 0x4_0010, 0x1F00, 6, CODE, far);
        assert_eq!(s.count, 2);
    }

    #[test]
    fn innermost_only() {
        // One frame wanted: the walk reads nothing and zeroes the other frames.
        let mut s = Stack::default();
        s.frames[3].set(0xDEAD);
        walk(&mut s, 0x4_0010, 0x1F00, 1, CODE, mem(&[]));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![Frame::Code(0x10)]);
        assert_eq!(s.frames[1..], [Default::default(); 5]);
        walk(&mut s, 0x10_0000, 0x1F00, 1, CODE, mem(&[]));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![Frame::Raw(0x10_0000)]);
        assert_eq!(s.raw_mask, 1);
    }

    #[test]
    fn unknown_code_range_keeps_one_raw_frame() {
        let mut s = Stack::default();
        walk(&mut s, 0x4_0010, 0x1F00, 6, CodeRange::default(), chain());
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![Frame::Raw(0x4_0010)]);
    }
}
