| Helper routines for code rewritten by m68k-asm-repair (MC68000, GNU as
| syntax: m68k-linux-gnu-as -m68000 --pcrel). Position-independent: no
| absolute addresses, only PC-relative branches. Each routine preserves every
| register; its only results are the documented stack slot and CCR.
|
| Calling sequence emitted by the rewrite pass for `mulu.l <ea>,%dN`
| (`muls.l` the same with __asm_repair_muls32):
|       move.l  <ea>, -(%sp)        | multiplier
|       move.l  %dN, -(%sp)         | multiplicand; becomes the product
|       jsr     (__asm_repair_mulu32,%pc)
|       movem.l (%sp)+, %dN         | product (MOVEM leaves CCR alone)
|       addq.l  #4, %sp             | ADDQ to an address register: CCR kept
| On return (4,%sp) of the caller's view before the pops holds the low 32
| bits of the product and CCR is what the 68020 MULU.L/MULS.L sets:
| N = bit 31 of the result, Z = result is 0, V = the 64-bit product does not
| fit in 32 bits (unsigned: high half non-zero; signed: high half is not the
| sign extension of the low half), C = 0, X unchanged.

	.text
	.p2align	1

| Unsigned 32x32 multiply core. In: %d0 = a, %d1 = b. Out: %d4 = low 32 bits
| of a*b, %d3 = non-zero iff the high 32 bits are non-zero. Clobbers %d0-%d4.
.Lrepair_umul:
	moveq	#0, %d3
	move.l	%d0, %d2
	swap	%d2			| %d2.w = high half of a
	move.l	%d1, %d4
	swap	%d4			| %d4.w = high half of b
	tst.w	%d2
	beq	1f
	tst.w	%d4
	beq	1f
	moveq	#1, %d3			| both high halves non-zero: >= 2^32
1:	mulu.w	%d1, %d2		| %d2 = ah * bl
	mulu.w	%d0, %d4		| %d4 = al * bh
	add.l	%d4, %d2		| middle sum (exact unless %d3 is already set)
	mulu.w	%d1, %d0		| %d0 = al * bl
	move.l	%d0, %d4
	clr.w	%d4
	swap	%d4			| %d4 = (al * bl) >> 16
	add.l	%d2, %d4		| t = middle + ((al * bl) >> 16)
	cmp.l	#0xFFFF, %d4
	bls	2f
	moveq	#1, %d3			| t >= 2^16: the product has bits >= 2^32
2:	swap	%d4
	clr.w	%d4			| %d4 = t << 16
	move.w	%d0, %d4		| | (al * bl) & 0xFFFF
	rts

| void __asm_repair_mulu32(u32 a /* (4,%sp) -> product */, u32 b /* (8,%sp) */)
	.globl	__asm_repair_mulu32
	.type	__asm_repair_mulu32,@function
__asm_repair_mulu32:
	movem.l	%d0-%d5, -(%sp)		| 24 bytes: a at (28,%sp), b at (32,%sp)
	move.w	%sr, %d5
	and.w	#0x10, %d5		| keep X only
	move.l	(28,%sp), %d0
	move.l	(32,%sp), %d1
	bsr	.Lrepair_umul		| 4 more bytes on the stack while it runs
	tst.l	%d3
	beq	1f
	or.w	#0x02, %d5		| V
1:	move.l	%d4, (28,%sp)
	tst.l	%d4			| N and Z of the 32-bit result
	move.w	%sr, %d0
	and.w	#0x0C, %d0
	or.w	%d0, %d5
	move.w	%d5, %ccr
	movem.l	(%sp)+, %d0-%d5		| MOVEM does not touch CCR
	rts
	.size	__asm_repair_mulu32, .-__asm_repair_mulu32

| void __asm_repair_muls32(i32 a /* (4,%sp) -> product */, i32 b /* (8,%sp) */)
	.globl	__asm_repair_muls32
	.type	__asm_repair_muls32,@function
__asm_repair_muls32:
	movem.l	%d0-%d6, -(%sp)		| 28 bytes: a at (32,%sp), b at (36,%sp)
	move.w	%sr, %d5
	and.w	#0x10, %d5		| keep X only
	move.l	(32,%sp), %d0
	move.l	(36,%sp), %d1
	move.l	%d0, %d6
	eor.l	%d1, %d6		| bit 31: sign of the product
	tst.l	%d0
	bpl	1f
	neg.l	%d0			| |a| (0x80000000 stays 2^31 as unsigned)
1:	tst.l	%d1
	bpl	2f
	neg.l	%d1			| |b|
2:	bsr	.Lrepair_umul		| %d4 = low 32 bits of |a|*|b|, %d3 = high != 0
	tst.l	%d3
	bne	5f			| |a*b| >= 2^32: overflow
	tst.l	%d6
	bmi	3f
	tst.l	%d4			| positive: fits iff <= 0x7FFFFFFF
	bmi	5f
	bra	6f
3:	cmp.l	#0x80000000, %d4	| negative: fits iff <= 2^31
	bhi	5f
	neg.l	%d4
	bra	6f
5:	or.w	#0x02, %d5		| V
	tst.l	%d6
	bpl	6f
	neg.l	%d4			| low 32 bits of the negative product
6:	move.l	%d4, (32,%sp)
	tst.l	%d4			| N and Z of the 32-bit result
	move.w	%sr, %d0
	and.w	#0x0C, %d0
	or.w	%d0, %d5
	move.w	%d5, %ccr
	movem.l	(%sp)+, %d0-%d6		| MOVEM does not touch CCR
	rts
	.size	__asm_repair_muls32, .-__asm_repair_muls32

	.section	.note.GNU-stack,"",@progbits
