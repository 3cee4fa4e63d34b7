| The free path (src/free.rs): the bookkeeping of every free, by the free
| traps' entry (patches.s) and by the free wrappers.

	.include "memdbg.inc"

| The ring's arrays are reached from its start + RING_BIAS, so that all of them
| start within the signed 8-bit displacement of a (d8,An,Xn) operand.
	.equ	RING_BIAS, 128
	EXPECT_BELOW RING_SITE, RING_BIAS + 128

	.text

| __memdbg_free_block: the bookkeeping of a free of a block, before the OS
| frees it. A register routine (patches.s's __memdbg_free_entry;
| src/free.rs's `free_block` for the wrappers).
|   In:     A0 = the state (entered), D0 = the address freed, D1 = 1 for a
|           MemHandleFree (else 0: MemChunkFree), A1 = the free call's return
|           address (its site), D2 = the frame of its caller (where a call
|           stack walk goes on).
|   Out:    D0 = FREED_PASS (0, Z set): the OS may free it; FREED_REFUSE
|           (Z clear): a double free, which must not reach the OS.
|   Keeps:  D2-D7/A2-A6 (changes D0-D1/A0-A1).
|
| A block in the index is freed here: its ring entry (the oldest one gives
| way, its slot leaving quarantine; the entry holds the address, the
| sequence number of the last allocation (when the free was: no TimGetTicks
| on the main line), the block's chunk, the slot and the record's kind), its site (the return address; with
| CALL_STACKS the walk), its chunk header's last long (a damaged one, an
| underrun: __memdbg_check_header), its guard (a damaged one:
| __memdbg_check_guard), the fill (FILL_FREED:
| __memdbg_prepare_block), its record's kind byte set to free (DmSet; the record
| keeps the rest, for a double free's report), the counters, its index entry
| removed. Any other address is __memdbg_free_unindexed's (src/free.rs): a
| double free, a locked handle's pointer (then its handle is freed here), or a
| block never tracked.
	.globl	__memdbg_free_block
	.type	__memdbg_free_block, @function
__memdbg_free_block:
	| a2 = the state, d3 = the address (the index key), d6 = the return
	| address, 0(%sp) = the frame (D2 does not survive a trap); d7 = the
	| MemHandleFree flag (then scratch); d5 = the index position, d4 = the
	| slot, a3 = its record, a4 = the ring, then the free's site.
	movem.l	%d2-%d7/%a2-%a4, -(%sp)
	move.l	%a0, %a2
	move.l	%d0, %d3
	move.l	%d1, %d7
	move.l	%a1, %d6
	move.l	%d2, -(%sp)
.Lfree_find:
	lea	(ST_INDEX,%a2), %a0
	move.l	%d3, %d0
	bsr.w	__memdbg_index_find
	bne.w	.Lunindexed

	| Found at d0: its slot and the slot's record.
	move.l	%d0, %d5
	move.l	(ST_INDEX + IX_SLOTS,%a2), %a0
	lsr.l	#1, %d0
	moveq	#0, %d4
	move.w	(0,%a0,%d0.l), %d4
	move.l	(ST_SLOT_REC,%a2), %a0
	move.l	%d4, %d0
	lsl.l	#2, %d0
	move.l	(0,%a0,%d0.l), %a3

	| The ring entry i at ST_RING_NEXT (the oldest) becomes this free's (d0
	| = i, then 2i, then 4i: the arrays' strides); the slot it held leaves
	| quarantine (back on the free list), this block's slot enters it (its
	| record still describes the block but for its kind byte: a double free
	| can report the allocation).
	move.l	(ST_SCRATCH,%a2), %a4
	lea	(SC_RING + RING_BIAS,%a4), %a4
	moveq	#0, %d0
	move.b	(ST_RING_NEXT,%a2), %d0
	addq.b	#1, (ST_RING_NEXT,%a2)
	andi.b	#RING_MASK, (ST_RING_NEXT,%a2)
	move.b	(REC_KIND,%a3), (RING_KIND - RING_BIAS,%a4,%d0.l)
	add.l	%d0, %d0
	moveq	#0, %d1
	move.w	(RING_SLOT - RING_BIAS,%a4,%d0.l), %d1	| the slot it held
	move.w	%d4, (RING_SLOT - RING_BIAS,%a4,%d0.l)
	add.l	%d0, %d0
	tst.l	(RING_ADDR - RING_BIAS,%a4,%d0.l)
	beq.s	.Lring_entry		| the entry was empty: no slot
	move.l	(ST_SLOT_NEXT,%a2), %a0
	add.l	%d1, %d1
	move.w	(ST_FREE_HEAD,%a2), (0,%a0,%d1.l)
	lsr.l	#1, %d1
	move.w	%d1, (ST_FREE_HEAD,%a2)
.Lring_entry:
	move.l	%d3, (RING_ADDR - RING_BIAS,%a4,%d0.l)
	move.l	(ST_SEQ,%a2), (RING_AFTER_SEQ - RING_BIAS,%a4,%d0.l)
	move.l	%d3, %a0		| its chunk (a handle's: CHUNK_OF)
	move.w	(REC_FLAGS,%a3), %d1
	CHUNK_OF %a0, %d1, .Lring_locked
.Lring_chunk:
	move.l	%a0, %d2		| kept for the header and the guard
	move.l	%a0, (RING_CHUNK - RING_BIAS,%a4,%d0.l)

	| The free's site, in the ring entry: its return address, inside code 1
	| or not (one frame, raw until found inside); from outside a known code
	| 1 it is the OS's free.
	lsl.l	#RING_SITE_SHIFT - 2, %d0
	lea	(RING_SITE - RING_BIAS,%a4,%d0.l), %a4
	EXPECT	STACK_COUNT, 0
	EXPECT	STACK_RAW_MASK, 1
	move.l	%d6, %d1
	move.l	(ST_CODE_BASE,%a2), %d0
	cmp.l	%d0, %d1
	bcs.w	.Lsite_outside
	cmp.l	(ST_CODE_END,%a2), %d1
	bcc.w	.Lsite_outside
	sub.l	%d0, %d1		| inside: an offset
	move.w	#0x0100, (%a4)		| count 1, raw mask 0
.Lsite_store:
	move.l	%d1, (STACK_FRAMES_AT,%a4)
	btst	#OPT_CALL_STACKS_BIT, (ST_OPT_CALL_STACKS,%a2)
	beq.s	.Lheader_check
	clr.l	-(%sp)			| __memdbg_walk(st, site, ret, frame, 0)
	move.l	(4,%sp), -(%sp)
	move.l	%d6, -(%sp)
	move.l	%a4, -(%sp)
	move.l	%a2, -(%sp)
	bsr.w	__memdbg_walk
	lea	(20,%sp), %sp

	| The chunk header's last long (PALM_FACTS §5.1), as src/block.rs's
	| header_expected says it: a pointer's lock count 15 and hOffset 0
	| (HDR_PTR_MASK), a handle's hOffset back to its master pointer (d3:
	| key + 2 x hOffset (signed) + 8 is the chunk), the owner not checked. A
	| change is an underrun, recorded and repaired before the OS frees the
	| chunk by __memdbg_check_header(st, rec, key, AT_FREE, ticks, site)
	| (src/block.rs; the ticks read only then). With ST_DOCUMENTED (no
	| header layout by contract) a handle's is not read, and a pointer's is
	| (4 bytes of the heap before the chunk) but a difference is ignored,
	| out of the main line: nothing is recorded or written.
.Lheader_check:
	move.l	%d2, %a0
	cmp.l	%d2, %d3
	bne.s	.Lheader_handle
	move.l	(-4,%a0), %d0
	andi.l	#HDR_PTR_MASK, %d0
	cmpi.l	#HDR_PTR_WANT, %d0
	beq.s	.Lguard_check
	bra.s	.Lheader_call
.Lheader_handle:
	tst.b	(ST_DOCUMENTED,%a2)
	bne.s	.Lguard_check
	move.l	(-4,%a0), %d0
	EXPECT	HDR_OFFSET_MASK, 0x00FFFFFF	| (hOffset: the low 24 bits)
	lsl.l	#8, %d0
	asr.l	#7, %d0			| 2 x hOffset, signed
	add.l	%d3, %d0
	addq.l	#8, %d0			| the chunk it leads to from the handle
	cmp.l	%d2, %d0
	beq.s	.Lguard_check
.Lheader_call:
	tst.b	(ST_DOCUMENTED,%a2)
	bne.s	.Lguard_check
	move.l	%d2, %d7		| (D2 does not survive a trap)
	SYSTRAP	sysTrapTimGetTicks
	move.l	%d7, %d2
	move.l	%a4, -(%sp)
	move.l	%d0, -(%sp)
	pea	(AT_FREE).w
	move.l	%d3, -(%sp)
	move.l	%a3, -(%sp)
	move.l	%a2, -(%sp)
	bsr.w	__memdbg_check_header
	lea	(24,%sp), %sp
	move.l	%d2, %a0		| (the call changed A0)

	| The guard (GUARD_BYTES, as __memdbg_guard reads it): a damaged one is
	| recorded and reported by __memdbg_check_guard(st, rec, key, AT_FREE,
	| ticks, site) (src/block.rs; the ticks read only then). The chunk is in
	| A0 (d2's, from the ring entry's; a handle's still locked with
	| ST_DOCUMENTED); a guard that ends even is read as one long.
.Lguard_check:
	EXPECT_BELOW AF_GUARDED_BIT, 8
	btst	#AF_GUARDED_BIT, (REC_FLAGS + 1,%a3)
	beq.s	.Lfill_freed
	adda.l	(REC_SIZE,%a3), %a0
	moveq	#0, %d0
	move.w	(REC_DATA_OFFSET,%a3), %d0
	adda.l	%d0, %a0		| the first guard byte
	move.l	%a0, %d0
	btst	#0, %d0
	bne.s	.Lguard_odd
	cmpi.l	#GUARD_INTACT, (%a0)
	beq.s	.Lfill_freed
	bra.s	.Lguard_call
.Lguard_odd:
	EXPECT	GUARD_LEN, 4
	EXPECT	GUARD_INTACT & 0xFFFF, (GUARD_BYTE & 0xFF) * 0x0101	| (the byte, repeated)
	moveq	#GUARD_LEN - 1, %d0
.Lguard_byte:
	cmpi.b	#GUARD_BYTE, (%a0)+
	dbne	%d0, .Lguard_byte
	beq.s	.Lfill_freed
.Lguard_call:
	move.l	%a4, -(%sp)
	SYSTRAP	sysTrapTimGetTicks
	move.l	%d0, -(%sp)
	pea	(AT_FREE).w
	move.l	%d3, -(%sp)
	move.l	%a3, -(%sp)
	move.l	%a2, -(%sp)
	bsr.w	__memdbg_check_guard
	lea	(24,%sp), %sp

	| With ST_DOCUMENTED, a handle's chunk is unlocked (.Lring_locked
	| locked it), out of the main line. With FILL_FREED:
	| __memdbg_prepare_block(st, key, flags without AF_GUARDED, offset,
	| offset + size, FILL_FREED_BYTE) (src/block.rs).
.Lfill_freed:
	tst.b	(ST_DOCUMENTED,%a2)
	bne.w	.Lchunk_unlock
.Lfill_check:
	btst	#OPT_FILL_FREED_BIT, (ST_OPT_FILL_FREED,%a2)
	beq.s	.Lmark_free
	pea	(FILL_FREED_BYTE).w
	moveq	#0, %d0
	move.w	(REC_DATA_OFFSET,%a3), %d0
	move.l	(REC_SIZE,%a3), %d1
	add.l	%d0, %d1
	move.l	%d1, -(%sp)
	move.l	%d0, -(%sp)
	moveq	#0, %d0
	move.w	(REC_FLAGS,%a3), %d0
	bclr	#AF_GUARDED_BIT, %d0
	move.l	%d0, -(%sp)
	move.l	%d3, -(%sp)
	move.l	%a2, -(%sp)
	bsr.w	__memdbg_prepare_block
	lea	(24,%sp), %sp

	| DmSet(rec, REC_KIND, 1, KIND_FREE_SLOT): the record's kind byte says
	| "free slot" (the value a byte in the high half of its word).
.Lmark_free:
	move.b	#KIND_FREE_SLOT, -(%sp)
	pea	(1).w
	pea	(REC_KIND).w
	move.l	%a3, -(%sp)
	SYSTRAP	sysTrapDmSet
	lea	(14,%sp), %sp

	| The counters (a handle's by the record's flags), then the index entry.
	addq.l	#1, (ST_FREES,%a2)
	subq.l	#1, (ST_LIVE_COUNT,%a2)
	EXPECT_BELOW AF_HANDLE_BIT, 8
	btst	#AF_HANDLE_BIT, (REC_FLAGS + 1,%a3)
	beq.s	.Llive_bytes
	subq.l	#1, (ST_LIVE_HANDLES,%a2)
.Llive_bytes:
	move.l	(REC_SIZE,%a3), %d0
	sub.l	%d0, (ST_LIVE_BYTES,%a2)
	lea	(ST_INDEX,%a2), %a0
	move.l	%d5, %d0
	bsr.w	__memdbg_index_remove
	moveq	#FREED_PASS, %d0
.Lfree_end:				| (Z as D0 says: nothing below sets flags)
	addq.l	#4, %sp			| the frame
	movem.l	(%sp)+, %d2-%d7/%a2-%a4
	rts

	| Out of line: a handle whose chunk only MemHandleLock gives
	| (ST_DOCUMENTED): locked for its address (D0 = 4i kept on the stack
	| across the trap) until .Lchunk_unlock, after its guard is checked:
	| one MemHandleLock/MemHandleUnlock pair per handle free.
.Lring_locked:
	move.l	%d0, -(%sp)
	move.l	%d3, -(%sp)
	SYSTRAP	sysTrapMemHandleLock
	addq.l	#4, %sp
	move.l	(%sp)+, %d0
	bra.w	.Lring_chunk

	| Out of line: with ST_DOCUMENTED, a handle's chunk unlocked
	| (.Lring_locked locked it); a pointer has nothing to unlock.
.Lchunk_unlock:
	btst	#AF_HANDLE_BIT, (REC_FLAGS + 1,%a3)
	beq.w	.Lfill_check
	move.l	%d3, -(%sp)
	HANDLE_UNLOCK
	addq.l	#4, %sp
	bra.w	.Lfill_check

	| Out of line: a free's return address outside code 1, raw; from
	| outside a known code 1 it is the OS's free.
.Lsite_outside:
	move.w	#0x0101, (%a4)		| count 1, raw mask 1
	tst.l	%d0
	beq.w	.Lsite_store		| code 1 unknown: the app's
	addq.l	#1, (ST_OS_FREES,%a2)
	bra.w	.Lsite_store

	| Not in the index: __memdbg_free_unindexed(st, handle, ret, frame,
	| addr) (src/free.rs) answers FREED_PASS, FREED_REFUSE, or the key of
	| the tracked block to free instead (a locked handle's pointer frees its
	| handle).
.Lunindexed:
	move.l	%d3, -(%sp)
	move.l	(4,%sp), -(%sp)
	move.l	%d6, -(%sp)
	move.l	%d7, -(%sp)
	move.l	%a2, -(%sp)
	bsr.w	__memdbg_free_unindexed
	lea	(20,%sp), %sp
	moveq	#FREED_REFUSE, %d1
	cmp.l	%d1, %d0
	bhi.s	.Lfree_key
	tst.l	%d0
	bra.w	.Lfree_end
.Lfree_key:
	move.l	%d0, %d3
	bra.w	.Lfree_find
	.size	__memdbg_free_block, . - __memdbg_free_block
