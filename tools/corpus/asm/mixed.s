| The corpus's hand-written assembly (GNU as, MC68000): palm-build assembles
| it because Cargo.toml lists it under [package.metadata.palm] asm, and gives
| it the program's assembly constants (here Mixed's 68k offsets, declared in
| src/lib.rs with global_asm! .equ).

	.include "asm-constants.inc"
	.section .note.GNU-stack, "", @progbits

	.text

| corpus_mixed_sum(p: *const Mixed) -> u32, LLVM's C convention: p at 4(%sp),
| the result in D0; D0-D1/A0-A1 may change, everything else is kept.
| tag + long + word + last + c_urem(last, 10).
	.globl	corpus_mixed_sum
	.type	corpus_mixed_sum, @function
corpus_mixed_sum:
	move.l	%d2, -(%sp)
	move.l	(8,%sp), %a0		| p
	moveq	#0, %d2
	move.b	(MIXED_TAG,%a0), %d2
	add.l	(MIXED_LONG,%a0), %d2
	moveq	#0, %d0
	move.w	(MIXED_WORD,%a0), %d0
	add.l	%d0, %d2
	move.l	(MIXED_LAST,%a0), %d0
	add.l	%d0, %d2
	pea	(10).w			| c_urem(last, 10): Rust, C convention
	move.l	%d0, -(%sp)
	bsr.w	c_urem
	addq.l	#8, %sp
	add.l	%d2, %d0
	move.l	(%sp)+, %d2
	rts
	.size	corpus_mixed_sum, . - corpus_mixed_sum
