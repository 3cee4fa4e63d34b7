| The detector's state (src/state.rs): entering it, sampling the heap into it.
| Both run on every tracked allocation.

	.include "memdbg.inc"

	.text

| __memdbg_enter: the state, entered. A register routine (the allocation's
| assembly and src/state.rs's `enter` call it).
|   In:     nothing.
|   Out:    A0 = D0 = the state chunk from FtrGet('MDbg', 0), now marked busy;
|           0 when the detector is not running (no feature) or already busy (a
|           call from inside memdbg: it must go straight to the OS).
|   Keeps:  D3-D7/A2-A6 (changes D0-D2/A0-A1: D2 as its trap may; its
|           callers keep nothing there yet).
	.globl	__memdbg_enter
	.type	__memdbg_enter, @function
__memdbg_enter:
	| FtrGet(DB_CREATOR, FEATURE_STATE, &value), the value a long on the stack.
	clr.l	-(%sp)
	pea	(%sp)
	move.w	#FEATURE_STATE, -(%sp)
	move.l	#DB_CREATOR, -(%sp)
	SYSTRAP	sysTrapFtrGet
	lea	(10,%sp), %sp
	move.l	(%sp)+, %a0
	tst.w	%d0
	bne.s	.Lnone			| not registered: not running
	move.l	%a0, %d0
	beq.s	.Lout
	tst.b	(ST_BUSY,%a0)
	bne.s	.Lnone
	st	(ST_BUSY,%a0)
	rts
.Lnone:
	suba.l	%a0, %a0
	move.l	%a0, %d0
.Lout:
	rts
	.size	__memdbg_enter, . - __memdbg_enter

| __memdbg_heap_marks(st): MemHeapFreeBytes(0, &st->heap_free, &st->heap_max),
| then st->low_free and st->low_max lowered to them (the low-water marks); at
| a new low of st->low_max below st->pin_next, __memdbg_pins(st) (src/pin.rs).
| C convention (src/state.rs's `State::sample_heap`); the allocation's assembly
| calls it after every tracked allocation with HEAP_STATS.
|   In:     st (the entered state) at 4(%sp).
|   Keeps:  D2-D7/A2-A6 (D2 saved around the trap).
	.globl	__memdbg_heap_marks
	.type	__memdbg_heap_marks, @function
__memdbg_heap_marks:
	move.l	%d2, -(%sp)
	move.l	(8,%sp), %a0		| st
	pea	(ST_HEAP_MAX,%a0)
	pea	(ST_HEAP_FREE,%a0)
	clr.w	-(%sp)			| heap 0: the dynamic heap
	SYSTRAP	sysTrapMemHeapFreeBytes
	lea	(10,%sp), %sp
	move.l	(8,%sp), %a0
	move.l	(ST_HEAP_FREE,%a0), %d0
	cmp.l	(ST_LOW_FREE,%a0), %d0
	bcc.s	1f
	move.l	%d0, (ST_LOW_FREE,%a0)
1:	move.l	(ST_HEAP_MAX,%a0), %d0
	cmp.l	(ST_LOW_MAX,%a0), %d0
	bcc.s	2f
	move.l	%d0, (ST_LOW_MAX,%a0)
	| A new low-water mark: the heap-pinning snapshot when the largest free
	| chunk is below st->pin_next (src/pin.rs).
	cmp.l	(ST_PIN_NEXT,%a0), %d0
	bcc.s	2f
	move.l	%a0, -(%sp)
	bsr.w	__memdbg_pins		| keeps D2-D7/A2-A6 (C convention)
	addq.l	#4, %sp
2:	move.l	(%sp)+, %d2
	rts
	.size	__memdbg_heap_marks, . - __memdbg_heap_marks
