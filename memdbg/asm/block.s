| A tracked block's bytes and call stack (src/block.rs): the frame walk, the
| guard check, the fills and the guard's writing.

	.include "memdbg.inc"

	.text

| __memdbg_walk(st, out, ret, frame, max): fills the Stack at `out` with up to
| `max` frames (0: as the options say, STACK_FRAMES with CALL_STACKS, else 1):
| `ret`, then the return addresses of the A6 frame chain from `frame`, each an
| offset into code 1 (st's ST_CODE_BASE/ST_CODE_END) when inside it, else raw
| (its raw-mask bit set, and the walk ends after it: the OS called the app
| there, its frames are not ours to follow). The chain is followed only
| through plausible frames (src/stack.rs): an even, nonzero frame pointer whose
| return address is even and nonzero, and whose saved A6 is above it by at most
| MAX_FRAME_GAP (else that return address still counts and the chain ends
| after it). A walk of STACK_FRAMES frames says why it was cut: at the limit
| with the chain going on, STACK_TRUNCATED_DEPTH; a chain that breaks after a
| frame inside code 1, STACK_TRUNCATED_CHAIN (both in the raw mask's bits 6
| and 7). A shorter walk (a one-frame site) never does. Unused frames are
| zeroed.
| C convention (src/block.rs's `capture`; alloc.s, free.s).
|   In:     st at 4(%sp), out at 8, ret at 12, frame at 16, max at 20 (at most
|           STACK_FRAMES).
|   Keeps:  D2-D7/A2-A6.
	.globl	__memdbg_walk
	.type	__memdbg_walk, @function
__memdbg_walk:
	| a2 = out, a1 = the state, then the next frame slot; d2 = ret, d3 =
	| frame (0: none), d4 = frames still allowed, d5 = code 1's base, d6 =
	| its length, d1 = the next frame's raw-mask bit, then a truncation bit.
	movem.l	%d2-%d6/%a2, -(%sp)
	lea	(28,%sp), %a0		| the arguments, in order
	move.l	(%a0)+, %a1
	move.l	(ST_CODE_BASE,%a1), %d5
	move.l	(ST_CODE_END,%a1), %d6
	sub.l	%d5, %d6
	move.l	(%a0)+, %a2
	move.l	(%a0)+, %d2
	move.l	(%a0)+, %d3
	move.l	(%a0), %d4
	bne.s	.Lwalk_zero
	moveq	#1, %d4			| max 0: as the options say
	btst	#OPT_CALL_STACKS_BIT, (ST_OPT_CALL_STACKS,%a1)
	beq.s	.Lwalk_zero
	moveq	#STACK_FRAMES, %d4
.Lwalk_zero:				| count, raw mask and frames zeroed
	move.l	%a2, %a0
	clr.w	(%a0)+
	move.l	%a0, %a1
	EXPECT	STACK_COUNT, 0		| a Stack: count, raw mask, 6 frames
	EXPECT	STACK_RAW_MASK, 1
	EXPECT	STACK_FRAMES_AT, 2
	EXPECT	STACK_FRAMES, 6
	EXPECT	STACK_TRUNCATED_DEPTH, (1<<STACK_FRAMES)
	clr.l	(%a0)+
	clr.l	(%a0)+
	clr.l	(%a0)+
	clr.l	(%a0)+
	clr.l	(%a0)+
	clr.l	(%a0)+
	moveq	#1, %d1
.Lwalk_frame:				| (d4 is at least 1 here)
	move.l	%d2, %d0
	sub.l	%d5, %d0
	cmp.l	%d6, %d0
	bcc.s	.Lwalk_raw
	move.l	%d0, (%a1)+		| inside code 1: its offset
	addq.b	#1, (STACK_COUNT,%a2)
	add.b	%d1, %d1
	subq.l	#1, %d4
	bne.s	.Lwalk_link
	cmpi.b	#STACK_FRAMES, (STACK_COUNT,%a2)
	bne.s	.Lwalk_end		| a shorter walk: nothing more wanted
	| The next frame: from an even, nonzero frame pointer (shifted out: odd
	| sets C, 0 or 1 leaves 0), an even, nonzero return address.
.Lwalk_link:
	move.l	%d3, %d0
	lsr.l	#1, %d0
	bcs.s	.Lwalk_broken
	beq.s	.Lwalk_broken
	move.l	%d3, %a0
	move.l	(4,%a0), %d2
	beq.s	.Lwalk_broken
	btst	#0, %d2
	bne.s	.Lwalk_broken
	| A plausible link: above the frame, at most MAX_FRAME_GAP above it;
	| else this return address still counts, and the chain ends after it.
	move.l	(%a0), %d0
	sub.l	%d3, %d0
	bls.s	.Lwalk_last
	cmpi.l	#MAX_FRAME_GAP, %d0
	bhi.s	.Lwalk_last
	add.l	%d0, %d3
	bra.s	.Lwalk_more
.Lwalk_last:
	moveq	#0, %d3
.Lwalk_more:				| a frame follows: walk it, or say so
	tst.l	%d4
	bne.s	.Lwalk_frame
	moveq	#STACK_TRUNCATED_DEPTH, %d1
	bra.s	.Lwalk_cut
.Lwalk_broken:
	moveq	#STACK_TRUNCATED_CHAIN, %d1
.Lwalk_cut:
	or.b	%d1, (STACK_RAW_MASK,%a2)
	bra.s	.Lwalk_end
.Lwalk_raw:				| outside code 1: raw, and the last frame
	or.b	%d1, (STACK_RAW_MASK,%a2)
	move.l	%d2, (%a1)
	addq.b	#1, (STACK_COUNT,%a2)
.Lwalk_end:
	movem.l	(%sp)+, %d2-%d6/%a2
	rts
	.size	__memdbg_walk, . - __memdbg_walk

| __memdbg_guard: a tracked block's guard bytes. A register routine
| (src/block.rs's `guard`, which resolves the chunk: free.s checks a guard
| inline with the same GUARD_BYTES).
|   In:     A0 = the block's allocation record, D0 = the block's chunk (the
|           pointer, or what its handle leads to).
|   Out:    D0 = the GUARD_LEN bytes after the block, big-endian (byte reads: a
|           block may end at any address), with Z set when they are intact
|           (GUARD_INTACT); a block without a guard (AF_GUARDED clear) answers
|           GUARD_INTACT.
|   Keeps:  D2-D7/A2-A6 (changes D0-D1/A0-A1).
	.globl	__memdbg_guard
	.type	__memdbg_guard, @function
__memdbg_guard:
	EXPECT_BELOW AF_GUARDED_BIT, 8	| (in the flags' low byte)
	btst	#AF_GUARDED_BIT, (REC_FLAGS + 1,%a0)
	beq.s	.Lguard_none
	move.l	%d0, %a1
	GUARD_BYTES %a0, %a1, %d0
	rts
.Lguard_none:
	move.l	#GUARD_INTACT, %d0
	cmp.l	%d0, %d0		| Z set
	rts
	.size	__memdbg_guard, . - __memdbg_guard

| __memdbg_prepare(chunk, flags, from, to, byte): after a block's resize, or
| before its free, in the dynamic heap only (AF_NOT_DYNAMIC clear:
| the storage heaps are write-protected): its chunk's bytes from..to (offsets
| from the chunk's start) get `byte` (0: no fill), and with AF_GUARDED the
| guard is written at `to`. `chunk` is the block's chunk (src/block.rs's
| `prepare` resolves a handle), `flags` its AllocFlags.
| C convention (src/block.rs's `prepare`).
|   In:     chunk at 4(%sp), flags at 8 (its word at 10), from at 12, to at 16,
|           byte at 20 (its low byte at 23).
|   Keeps:  D2-D7/A2-A6 (changes D0-D1/A0-A1).
	.globl	__memdbg_prepare
	.type	__memdbg_prepare, @function
__memdbg_prepare:
	move.w	(10,%sp), %d1		| the flags
	btst	#AF_NOT_DYNAMIC_BIT, %d1
	bne.s	.Lprepare_end
	move.l	(4,%sp), %a0
	move.l	%a0, %a1
	adda.l	(16,%sp), %a1		| a1 = the chunk's byte `to`
	move.l	(16,%sp), %d0
	sub.l	(12,%sp), %d0		| the fill's length
	bls.s	.Lprepare_guard
	tst.b	(23,%sp)
	beq.s	.Lprepare_guard		| no fill
	adda.l	(12,%sp), %a0
	move.b	(23,%sp), %d1
	FILL	%a0, %d0, %d1
	move.w	(10,%sp), %d1
.Lprepare_guard:
	btst	#AF_GUARDED_BIT, %d1
	beq.s	.Lprepare_end
	WRITE_GUARD %a1, %d0
.Lprepare_end:
	rts
	.size	__memdbg_prepare, . - __memdbg_prepare
