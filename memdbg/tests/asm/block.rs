//! `asm/block.s`: `__memdbg_walk`, `__memdbg_guard`, `__memdbg_prepare`.

use memdbg::record::{AllocFlags, GUARD_BYTE, Options, Stack, Truncation};

use crate::machine::{CODE, DATA, MASTERS, Machine, Regs, STATE, k};

/// Where the walks write their stack.
const OUT: u32 = DATA;
/// Frames for the walks: F[0] → F[1] → F[2].
const F: [u32; 3] = [DATA + 0x100, DATA + 0x140, DATA + 0x180];

/// A frame of a walked stack, decoded.
#[derive(Debug, PartialEq, Eq)]
enum Frame {
    Code(u32),
    Raw(u32),
}

/// The stack at [`OUT`]: its frames, and the frames beyond its count (which must be
/// zero).
fn stack(m: &Machine) -> (Vec<Frame>, Vec<u32>) {
    let count = u32::from(m.byte(OUT + k("STACK_COUNT")));
    let mask = m.byte(OUT + k("STACK_RAW_MASK")) & !cut_bits();
    let frame = |i: u32| m.long(OUT + k("STACK_FRAMES_AT") + 4 * i);
    let frames = (0..count)
        .map(|i| {
            if mask & (1 << i) != 0 {
                Frame::Raw(frame(i))
            } else {
                Frame::Code(frame(i))
            }
        })
        .collect();
    assert_eq!(
        u32::from(mask) >> count,
        0,
        "raw-mask bits beyond the count"
    );
    (frames, (count..k("STACK_FRAMES")).map(frame).collect())
}

/// Frames at F: each returning into code 1, the last into the OS.
fn chain(m: &mut Machine) {
    for (at, link, ret) in [
        (F[0], F[1], CODE + 0x100),
        (F[1], F[2], CODE + 0x200),
        (F[2], 0, 0x00C0_0400),
    ] {
        m.set_long(at, link);
        m.set_long(at + 4, ret);
    }
}

fn walk(m: &mut Machine, ret: u32, frame: u32, max: u32) -> (Vec<Frame>, Vec<u32>) {
    m.emu.ram.slice_mut(OUT, 26).fill(0xAA);
    m.call("__memdbg_walk", Regs::new(), &[STATE, OUT, ret, frame, max]);
    stack(m)
}

/// The raw mask's truncation bits.
fn cut_bits() -> u8 {
    (k("STACK_TRUNCATED_DEPTH") | k("STACK_TRUNCATED_CHAIN")) as u8
}

/// Why the last walk's stack was cut, as its raw mask's bits 6 and 7 say.
fn cut(m: &Machine) -> Option<Truncation> {
    let s = Stack {
        raw_mask: m.byte(OUT + k("STACK_RAW_MASK")) & cut_bits(),
        ..Stack::default()
    };
    s.truncation()
}

#[test]
fn the_walk_follows_the_chain_to_the_os_and_marks_raw_frames() {
    let mut m = Machine::with_state(0, 16, 0, 16);
    chain(&mut m);
    let (frames, rest) = walk(&mut m, CODE + 0x10, F[0], 6);
    assert_eq!(
        frames,
        [
            Frame::Code(0x10),
            Frame::Code(0x100),
            Frame::Code(0x200),
            Frame::Raw(0x00C0_0400)
        ]
    );
    assert_eq!(rest, [0, 0], "unused frames zeroed");
    assert_eq!(cut(&m), None, "it reached the OS: complete");
    assert_eq!(
        (
            k("STACK_TRUNCATED_DEPTH"),
            k("STACK_TRUNCATED_CHAIN") & 0xFF
        ),
        (0x40, 0x80)
    );
}

/// F[0] → F[1] → … → F[n - 1], each returning into code 1 at 0x100 × (i + 1),
/// the last linking to `last_link` with return address `last_ret`.
fn long_chain(m: &mut Machine, n: u32, last_link: u32, last_ret: u32) -> u32 {
    let at = |i: u32| DATA + 0x100 + 0x20 * i;
    for i in 0..n {
        let (link, ret) = if i + 1 == n {
            (last_link, last_ret)
        } else {
            (at(i + 1), CODE + 0x100 * (i + 1))
        };
        m.set_long(at(i), link);
        m.set_long(at(i) + 4, ret);
    }
    at(0)
}

#[test]
fn a_six_frame_walk_says_why_it_was_cut() {
    let mut m = Machine::with_state(0, 16, 0, 16);
    // Twelve frames of code 1: six kept, the chain goes on (a deep recursion).
    let f0 = long_chain(&mut m, 12, 0, 0x00C0_0400);
    let (frames, _) = walk(&mut m, CODE + 0x10, f0, 6);
    assert_eq!(frames.len(), 6);
    assert!(frames.iter().all(|f| matches!(f, Frame::Code(_))));
    assert_eq!(cut(&m), Some(Truncation::DepthLimit));
    // Six frames of code 1 before the OS's: the seventh (the OS) is cut off.
    let f0 = long_chain(&mut m, 6, 0, 0x00C0_0400);
    let (frames, _) = walk(&mut m, CODE + 0x10, f0, 6);
    assert_eq!(frames.len(), 6);
    assert_eq!(cut(&m), Some(Truncation::DepthLimit));
    // Three frames of code 1, then the OS: complete.
    let f0 = long_chain(&mut m, 3, 0, 0x00C0_0400);
    let (frames, _) = walk(&mut m, CODE + 0x10, f0, 6);
    assert_eq!(frames.last(), Some(&Frame::Raw(0x00C0_0400)));
    assert_eq!(cut(&m), None);
    // A chain ending inside code 1 (a null link, then a null return address):
    // broken, at any depth.
    for n in [1, 3, 5] {
        let f0 = long_chain(&mut m, n, 0, CODE + 0x800);
        let (frames, _) = walk(&mut m, CODE + 0x10, f0, 6);
        assert_eq!(frames.len() as u32, n + 1, "{n}");
        assert_eq!(cut(&m), Some(Truncation::BrokenChain), "{n}");
    }
    // An odd frame pointer, an odd return address: broken after the first frame.
    for frame in [0xA0A0_0001, 0] {
        walk(&mut m, CODE + 0x10, frame, 6);
        assert_eq!(cut(&m), Some(Truncation::BrokenChain), "{frame:#x}");
    }
    // A shorter walk never says it was cut, whatever follows.
    let f0 = long_chain(&mut m, 12, 0, 0x00C0_0400);
    for max in [1, 2, 5] {
        let (frames, _) = walk(&mut m, CODE + 0x10, f0, max);
        assert_eq!(frames.len() as u32, max);
        assert_eq!(cut(&m), None, "max {max}");
    }
    walk(&mut m, CODE + 0x10, 0xA0A0_0001, 1);
    assert_eq!(cut(&m), None);
}

#[test]
fn the_walk_stops_at_max_and_takes_the_options_for_max_0() {
    let mut m = Machine::with_state(0, 16, 0, 16);
    chain(&mut m);
    let (frames, rest) = walk(&mut m, CODE + 0x10, F[0], 2);
    assert_eq!(frames, [Frame::Code(0x10), Frame::Code(0x100)]);
    assert_eq!(rest, [0; 4]);
    // Max 0 without CALL_STACKS: the innermost frame only.
    let (frames, _) = walk(&mut m, CODE + 0x10, F[0], 0);
    assert_eq!(frames, [Frame::Code(0x10)]);
    // With CALL_STACKS: the whole chain.
    m.set_st_long("ST_OPTIONS", Options::CALL_STACKS.bits());
    let (frames, _) = walk(&mut m, CODE + 0x10, F[0], 0);
    assert_eq!(frames.len(), 4);
}

#[test]
fn the_walk_never_follows_an_implausible_frame() {
    let mut m = Machine::with_state(0, 16, 0, 16);
    // A return address outside code 1: raw, and the last frame (nothing is read:
    // the frame pointer is outside RAM).
    let (frames, _) = walk(&mut m, 0x00C0_0000, 0xA0A0_0000, 6);
    assert_eq!(frames, [Frame::Raw(0x00C0_0000)]);
    // Odd or null frame pointers are not followed.
    for frame in [0xA0A0_0001, 0] {
        let (frames, _) = walk(&mut m, CODE + 0x10, frame, 6);
        assert_eq!(frames, [Frame::Code(0x10)], "frame {frame:#x}");
    }
    // A link downwards: its return address still counts, nothing after it.
    m.set_long(F[0], F[1]);
    m.set_long(F[0] + 4, CODE + 0x100);
    m.set_long(F[1], F[0] - 0x40);
    m.set_long(F[1] + 4, CODE + 0x200);
    let (frames, _) = walk(&mut m, CODE + 0x10, F[0], 6);
    assert_eq!(
        frames,
        [Frame::Code(0x10), Frame::Code(0x100), Frame::Code(0x200)]
    );
    // A link more than MAX_FRAME_GAP above.
    m.set_long(F[0], F[0] + k("MAX_FRAME_GAP") + 4);
    let (frames, _) = walk(&mut m, CODE + 0x10, F[0], 6);
    assert_eq!(frames, [Frame::Code(0x10), Frame::Code(0x100)]);
    // An odd return address ends the walk before it.
    m.set_long(F[0], F[1]);
    m.set_long(F[0] + 4, CODE + 0x101);
    let (frames, _) = walk(&mut m, CODE + 0x10, F[0], 6);
    assert_eq!(frames, [Frame::Code(0x10)]);
}

#[test]
fn without_code_1_every_frame_is_raw_and_the_walk_ends_after_one() {
    let mut m = Machine::with_state(0, 16, 0, 16);
    chain(&mut m);
    m.set_st_long("ST_CODE_BASE", 0);
    m.set_st_long("ST_CODE_END", 0);
    let (frames, _) = walk(&mut m, CODE + 0x10, F[0], 6);
    assert_eq!(frames, [Frame::Raw(CODE + 0x10)]);
}

/// An allocation record at DATA + 0x400 (flags, size, data offset).
const REC: u32 = DATA + 0x400;
/// A block (a pointer chunk).
const BLOCK: u32 = DATA + 0x800;

fn record(m: &mut Machine, flags: AllocFlags, size: u32, offset: u16) {
    m.zero(REC, 82);
    m.set_word(REC + k("REC_FLAGS"), flags.bits());
    m.set_long(REC + k("REC_SIZE"), size);
    m.set_word(REC + k("REC_DATA_OFFSET"), offset);
}

fn guard(m: &mut Machine, chunk: u32) -> u32 {
    let r = m.call("__memdbg_guard", Regs::new().a(0, REC).d(0, chunk), &[]);
    assert_eq!(m.z(), r.d[0] == k("GUARD_INTACT"), "Z exactly when intact");
    r.d[0]
}

#[test]
fn the_guard_is_read_after_the_block_of_its_chunk_and_its_data_offset() {
    let mut m = Machine::with_state(0, 16, 0, 16);
    let intact = k("GUARD_INTACT");
    assert_eq!(intact, 0xFDFD_FDFD);
    // A pointer of 10 bytes: its guard at 10.
    record(&mut m, AllocFlags::GUARDED, 10, 0);
    m.emu.load(BLOCK + 10, &[GUARD_BYTE; 4]);
    assert_eq!(guard(&mut m, BLOCK), intact);
    for damaged in 0..4 {
        m.emu.load(BLOCK + 10, &[GUARD_BYTE; 4]);
        m.set_byte(BLOCK + 10 + damaged, 0x41);
        let mut want = [GUARD_BYTE; 4];
        want[damaged as usize] = 0x41;
        assert_eq!(
            guard(&mut m, BLOCK),
            u32::from_be_bytes(want),
            "byte {damaged}"
        );
    }
    // An over-aligned Rust block: 6 bytes into its chunk (an odd end too).
    record(&mut m, AllocFlags::GUARDED, 9, 6);
    m.emu.load(BLOCK + 15, &[GUARD_BYTE; 4]);
    assert_eq!(guard(&mut m, BLOCK), intact);
    m.set_byte(BLOCK + 18, 0);
    assert_eq!(guard(&mut m, BLOCK), 0xFDFD_FD00);
    // A handle's block: the chunk its caller found (src/block.rs's `chunk`); the
    // record's handle flag changes nothing here.
    record(&mut m, AllocFlags::GUARDED | AllocFlags::HANDLE, 4, 0);
    m.set_long(MASTERS, 0xA0A0_0000);
    m.emu.load(BLOCK + 0x44, &[GUARD_BYTE; 4]);
    assert_eq!(guard(&mut m, BLOCK + 0x40), intact);
    m.set_byte(BLOCK + 0x44, 0);
    assert_eq!(guard(&mut m, BLOCK + 0x40), 0x00FD_FDFD);
    // No guard: intact, and nothing is read (the address is outside RAM).
    record(&mut m, AllocFlags::empty(), 4, 0);
    assert_eq!(guard(&mut m, 0xA0A0_0000), intact);
}

fn prepare(m: &mut Machine, chunk: u32, flags: AllocFlags, from: u32, to: u32, byte: u8) {
    m.call(
        "__memdbg_prepare",
        Regs::new(),
        &[chunk, flags.bits().into(), from, to, byte.into()],
    );
}

#[test]
fn prepare_fills_and_guards_only_what_it_is_told_in_the_dynamic_heap() {
    let mut m = Machine::with_state(0, 16, 0, 16);
    m.emu.ram.slice_mut(BLOCK, 32).fill(0xEE);
    prepare(&mut m, BLOCK, AllocFlags::GUARDED, 2, 10, 0x31);
    let mut want = vec![0xEE; 32];
    want[2..10].fill(0x31);
    want[10..14].fill(GUARD_BYTE);
    assert_eq!(m.bytes(BLOCK, 32), want);
    // No fill byte: the guard only; no guard flag: the fill only.
    m.emu.ram.slice_mut(BLOCK, 32).fill(0xEE);
    prepare(&mut m, BLOCK, AllocFlags::GUARDED, 0, 5, 0);
    let mut want = vec![0xEE; 32];
    want[5..9].fill(GUARD_BYTE);
    assert_eq!(m.bytes(BLOCK, 32), want);
    m.emu.ram.slice_mut(BLOCK, 32).fill(0xEE);
    prepare(&mut m, BLOCK, AllocFlags::empty(), 3, 4, 0x35);
    let mut want = vec![0xEE; 32];
    want[3] = 0x35;
    assert_eq!(m.bytes(BLOCK, 32), want);
    // A shrink (to below from): no fill, the guard at `to`.
    m.emu.ram.slice_mut(BLOCK, 32).fill(0xEE);
    prepare(&mut m, BLOCK, AllocFlags::GUARDED, 20, 8, 0x33);
    let mut want = vec![0xEE; 32];
    want[8..12].fill(GUARD_BYTE);
    assert_eq!(m.bytes(BLOCK, 32), want);
    // A handle's chunk, as its caller found it: the flag changes nothing here.
    m.emu.ram.slice_mut(BLOCK, 32).fill(0xEE);
    prepare(
        &mut m,
        BLOCK,
        AllocFlags::GUARDED | AllocFlags::HANDLE,
        0,
        2,
        0x31,
    );
    assert_eq!(
        m.bytes(BLOCK, 7),
        [0x31, 0x31, 0xFD, 0xFD, 0xFD, 0xFD, 0xEE]
    );
    // Outside the dynamic heap: nothing at all (the address is outside RAM).
    prepare(
        &mut m,
        0xA0A0_0000,
        AllocFlags::GUARDED | AllocFlags::NOT_DYNAMIC,
        0,
        8,
        0x31,
    );
}
