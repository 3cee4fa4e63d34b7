| Strong 68000 memcpy / memmove / memset for Palm OS images built by palm-build.
|
| Why: compiler_builtins' Rust versions are miscompiled by LLVM's m68k backend on
| misaligned pointers (stack-array index bug, llvm-project #200984; see
| docs/TOOLCHAIN.md bug 4). These definitions are strong symbols, so the
| linker prefers them over compiler_builtins' weak ones.
|
| Calling convention: LLVM's m68k C convention, as rustc calls them — every
| argument in a 4-byte stack slot (dst at 4(sp), then src/value, then n),
| the pointer result in A0 (and D0 too, harmless). D0-D1/A0-A1 are scratch;
| every other register is preserved (LLVM treats D2 as callee-saved).
| Position-independent: only PC-relative branches.
|
| Strategy: when source and destination have the same parity, copy one byte
| to reach an even address, then 4 bytes per MOVE.L (a 68000 only needs word
| alignment), then the 0-3 byte tail; otherwise byte by byte. Counts are full
| 32-bit values (subq.l/bne loops, no 16-bit DBRA limit).

	.section .text.memcpy,"ax",@progbits
	.globl	memcpy
	.type	memcpy,@function
	.p2align 1
| void *memcpy(void *dst, const void *src, size_t n)
memcpy:
	move.l	4(%sp),%a0
	move.l	8(%sp),%a1
	move.l	12(%sp),%d0
	bsr.s	.Lcopy_forward
	move.l	4(%sp),%a0
	move.l	%a0,%d0
	rts
	.size	memcpy, .-memcpy

| Copy d0 bytes from (a1) to (a0) upwards. Clobbers d0, d1, a0, a1.
.Lcopy_forward:
	tst.l	%d0
	beq.s	.Lf_done
	move.l	%a0,%d1
	sub.l	%a1,%d1
	btst	#0,%d1
	bne.s	.Lf_bytes
	move.l	%a0,%d1
	btst	#0,%d1
	beq.s	.Lf_even
	move.b	(%a1)+,(%a0)+
	subq.l	#1,%d0
.Lf_even:
	move.l	%d0,%d1
	lsr.l	#2,%d1
	beq.s	.Lf_tail
.Lf_longs:
	move.l	(%a1)+,(%a0)+
	subq.l	#1,%d1
	bne.s	.Lf_longs
.Lf_tail:
	and.w	#3,%d0
	beq.s	.Lf_done
.Lf_tail_loop:
	move.b	(%a1)+,(%a0)+
	subq.w	#1,%d0
	bne.s	.Lf_tail_loop
.Lf_done:
	rts
.Lf_bytes:
	move.b	(%a1)+,(%a0)+
	subq.l	#1,%d0
	bne.s	.Lf_bytes
	rts

	.section .text.memmove,"ax",@progbits
	.globl	memmove
	.type	memmove,@function
	.p2align 1
| void *memmove(void *dst, const void *src, size_t n)
| Copies upwards when dst <= src or the regions do not overlap, else downwards.
memmove:
	move.l	4(%sp),%a0
	move.l	8(%sp),%a1
	move.l	12(%sp),%d0
	cmpa.l	%a1,%a0
	bls.s	.Lm_forward
	move.l	%a1,%d1
	add.l	%d0,%d1
	cmp.l	%a0,%d1
	bls.s	.Lm_forward
	| Overlapping with dst above src: copy downwards from the ends.
	adda.l	%d0,%a0
	adda.l	%d0,%a1
	tst.l	%d0
	beq.s	.Lm_done
	move.l	%a0,%d1
	sub.l	%a1,%d1
	btst	#0,%d1
	bne.s	.Lb_bytes
	move.l	%a0,%d1
	btst	#0,%d1
	beq.s	.Lb_even
	move.b	-(%a1),-(%a0)
	subq.l	#1,%d0
.Lb_even:
	move.l	%d0,%d1
	lsr.l	#2,%d1
	beq.s	.Lb_tail
.Lb_longs:
	move.l	-(%a1),-(%a0)
	subq.l	#1,%d1
	bne.s	.Lb_longs
.Lb_tail:
	and.w	#3,%d0
	beq.s	.Lm_done
.Lb_tail_loop:
	move.b	-(%a1),-(%a0)
	subq.w	#1,%d0
	bne.s	.Lb_tail_loop
	bra.s	.Lm_done
.Lb_bytes:
	move.b	-(%a1),-(%a0)
	subq.l	#1,%d0
	bne.s	.Lb_bytes
	bra.s	.Lm_done
.Lm_forward:
	bsr	.Lcopy_forward
.Lm_done:
	move.l	4(%sp),%a0
	move.l	%a0,%d0
	rts
	.size	memmove, .-memmove

	.section .text.memset,"ax",@progbits
	.globl	memset
	.type	memset,@function
	.p2align 1
| void *memset(void *dst, int c, size_t n)   (c's low byte is at 11(sp) on entry)
memset:
	move.l	%d2,-(%sp)		| D2 is callee-saved for LLVM; arguments now start at 8(sp)
	move.l	8(%sp),%a0
	move.l	16(%sp),%d0
	beq.s	.Ls_done
	moveq	#0,%d1
	move.b	15(%sp),%d1
	move.l	%a0,%d2
	btst	#0,%d2
	beq.s	.Ls_even
	move.b	%d1,(%a0)+
	subq.l	#1,%d0
	beq.s	.Ls_done
.Ls_even:
	| Replicate the byte into all four bytes of d1.
	move.b	%d1,%d2
	lsl.w	#8,%d1
	move.b	%d2,%d1
	move.w	%d1,%d2
	swap	%d1
	move.w	%d2,%d1
	move.l	%d0,%d2
	lsr.l	#2,%d2
	beq.s	.Ls_tail
.Ls_longs:
	move.l	%d1,(%a0)+
	subq.l	#1,%d2
	bne.s	.Ls_longs
.Ls_tail:
	and.w	#3,%d0
	beq.s	.Ls_done
.Ls_tail_loop:
	move.b	%d1,(%a0)+
	subq.w	#1,%d0
	bne.s	.Ls_tail_loop
.Ls_done:
	move.l	(%sp)+,%d2
	move.l	4(%sp),%a0
	move.l	%a0,%d0
	rts
	.size	memset, .-memset

	.section .note.GNU-stack,"",@progbits
