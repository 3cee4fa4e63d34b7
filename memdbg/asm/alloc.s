| The allocation path (src/alloc.rs): every allocation made through memdbg.

	.include "memdbg.inc"

| BLOCK documented: A0 = the block just allocated: its chunk (CHUNK_OF the
| address in d6, by the flags in d5) plus its offset d4; a handle whose chunk
| only MemHandleLock gives (ST_DOCUMENTED) goes to \documented instead, which
| does the same with the chunk locked.
	.macro	BLOCK documented
	move.l	%d6, %a0
	CHUNK_OF %a0, %d5, \documented
	adda.l	%d4, %a0
	.endm

| LOCK_BLOCK: A0 = the block of the handle in d6 (offset d4), its chunk
| locked with MemHandleLock (ST_DOCUMENTED). Changes D0-D2/A1.
	.macro	LOCK_BLOCK
	move.l	%d6, -(%sp)
	SYSTRAP	sysTrapMemHandleLock
	addq.l	#4, %sp
	adda.l	%d4, %a0
	.endm

	.text

| __memdbg_alloc: an allocation, recorded. A register routine (src/alloc.rs's
| `alloc`, for the wrappers, the C interface and MemDbgAlloc), reached with
| `jsr` from the body of the function the program called: A6 is that
| function's frame (4(%a6) returns into the program, 0(%a6) is the program's
| frame), where a call-stack walk starts.
|   In:     A1 = the kind (KIND_POINTER, KIND_HANDLE, KIND_CHUNK or KIND_RUST,
|           zero-extended); D0 = "how": a chunk's heap (high word) and
|           attributes (low word), a Rust block's room for its alignment (the
|           alignment if above 2, else 0), else 0; A0 = the site (a Site; 0 for
|           a Rust block); D1 = the size asked for, in bytes.
|   Out:    A0 = what the program gets: the block (a handle for handles), or 0
|           when the OS had no room (nothing is recorded).
|   Keeps:  D2-D7/A2-A6 (changes D0-D1/A1).
|
| Not entered (not running, or busy: called from inside memdbg) it is the plain
| OS call (palm-sys's PalmAlloc's for a Rust block, alignment room included,
| refused above MAX_ALIGN without an OS call). Entered, it allocates with room
| for the guard (GUARDS, the dynamic heap, below the Memory Manager's limit;
| without it when the OS has no room for it), moves an over-aligned Rust block
| up to its alignment (the distance in the word below it), fills (FILL_NEW)
| and guards the block (a handle with ST_DOCUMENTED locked meanwhile), takes a slot (the free list's first, else
| __memdbg_fresh_slot's; none: __memdbg_untracked), builds the scratch record
| (the sequence number, the site's file and line copied only when
| the site changes, a call stack for Rust blocks and with CALL_STACKS), writes
| it to the slot's ledger record with one DmWrite, enters the block in the
| index (after __memdbg_reused retires the record of a block freed unseen
| that the index still holds at that address), counts it (live blocks and bytes, their peaks, live handles), and
| with HEAP_STATS counts a small allocation (__memdbg_small), samples the heap
| and warns of a low heap (__memdbg_low_heap, once). A failed allocation is
| counted (__memdbg_failed).
	.globl	__memdbg_alloc
	.type	__memdbg_alloc, @function
__memdbg_alloc:
	| d3 = the size, d4 = the alignment room (then the block's offset in its
	| chunk), d5 = the record's AllocFlags, d6 = how (then the chunk or
	| handle), d7 = the kind (then the slot); a2 = the state (0: not
	| entered), a3 = the scratch record, a4 = the site.
	movem.l	%d2-%d7/%a2-%a4, -(%sp)
	move.l	%d1, %d3
	move.l	%d0, %d6
	move.l	%a0, %a4
	move.l	%a1, %d7
	bsr.w	__memdbg_enter
	move.l	%a0, %a2

	| The flags and the alignment room by kind: a chunk's from its
	| attributes (another owner than the app's: AF_OTHER_OWNER) and heap
	| (outside heap 0: no guard), a handle's AF_HANDLE;
	| only a Rust block has alignment room (its "how").
	moveq	#0, %d5
	move.l	%d6, %d4
	cmpi.b	#KIND_CHUNK, %d7
	bne.s	.Lnot_chunk
	moveq	#0, %d4
	move.w	%d6, %d0
	andi.w	#MEM_CHUNK_FIXED, %d0	| non-movable or pre-locked: a pointer
	bne.s	.Lchunk_heap
	moveq	#AF_HANDLE, %d5
.Lchunk_heap:				| attr's owner not the app's: AF_OTHER_OWNER
	move.l	%a2, %d0
	beq.s	.Lchunk_heap_id
	moveq	#MEM_CHUNK_OWNER, %d0
	and.w	%d6, %d0
	cmp.b	(ST_APP_OWNER,%a2), %d0
	beq.s	.Lchunk_heap_id
	ori.w	#AF_OTHER_OWNER, %d5
.Lchunk_heap_id:
	move.l	%d6, %d0
	swap	%d0			| the heap
	tst.w	%d0
	beq.s	.Lguard_room
	moveq	#AF_NOT_DYNAMIC, %d0
	or.l	%d0, %d5
	bra.s	.Lexact
.Lnot_chunk:
	cmpi.b	#KIND_HANDLE, %d7
	bne.s	.Lguard_room
	moveq	#AF_HANDLE, %d5

	| With room for a guard: entered, GUARDS on, and the chunk not too big.
.Lguard_room:
	move.l	%a2, %d0
	beq.s	.Lnot_entered
	btst	#OPT_GUARDS_BIT, (ST_OPT_GUARDS,%a2)
	beq.s	.Lexact
	move.l	%d3, %d0
	add.l	%d4, %d0
	cmpi.l	#MAX_CHUNK - GUARD_LEN, %d0
	bhi.s	.Los_alloc		| exactly the request (and the room)
	EXPECT	AF_GUARDED, 1
	addq.w	#AF_GUARDED, %d5
	addq.l	#GUARD_LEN, %d0

	| MemChunkNew(heap, bytes, attributes), MemHandleNew(bytes) or
	| MemPtrNew(bytes) for D0 bytes; the result in d6.
.Los_alloc:
	cmpi.b	#KIND_CHUNK, %d7
	beq.s	.Lchunk_new
	move.l	%d0, -(%sp)
	cmpi.b	#KIND_HANDLE, %d7
	beq.s	.Lhandle_new
	SYSTRAP	sysTrapMemPtrNew
	bra.s	.Los_pop4
.Lhandle_new:
	SYSTRAP	sysTrapMemHandleNew
.Los_pop4:
	addq.l	#4, %sp
	bra.s	.Los_result
.Lchunk_new:
	move.w	%d6, -(%sp)		| attributes
	move.l	%d0, -(%sp)		| bytes
	move.l	%d6, %d0
	swap	%d0
	move.w	%d0, -(%sp)		| heap
	SYSTRAP	sysTrapMemChunkNew
	addq.l	#8, %sp
.Los_result:
	move.l	%a0, %d6
	bne.s	.Lgot
	| Refused: again without the guard if it had one, else failed (counted
	| when entered).
	bclr	#AF_GUARDED_BIT, %d5
	bne.s	.Lexact
	move.l	%a2, %d0
	beq.s	.Lfailed
	move.l	%a2, -(%sp)
	bsr.w	__memdbg_failed		| (src/alloc.rs)
	addq.l	#4, %sp
	clr.b	(ST_BUSY,%a2)
.Lfailed:
	moveq	#0, %d4
	moveq	#0, %d6
	bra.w	.Lreturn
.Lnot_entered:				| PalmAlloc refuses these alignments
	cmpi.l	#MAX_ALIGN, %d4
	bhi.s	.Lfailed
.Lexact:				| exactly the request (and the room)
	move.l	%d3, %d0
	add.l	%d4, %d0
	bra.s	.Los_alloc

	| An over-aligned Rust block moves up to its alignment: d4 becomes the
	| distance from the chunk's start, also kept in the word below the
	| block (palm-sys's PalmAlloc scheme, which MemDbgAlloc's dealloc reads).
.Lgot:
	tst.l	%d4
	beq.s	.Laligned
	move.l	%d6, %d0
	add.l	%d4, %d0
	addq.l	#1, %d0
	move.l	%d4, %d1
	neg.l	%d1
	and.l	%d1, %d0		| (chunk + align + 1) & -align
	move.l	%d0, %a0
	sub.l	%d6, %d0
	move.w	%d0, (-2,%a0)
	move.l	%d0, %d4
.Laligned:
	move.l	%a2, %d0
	beq.w	.Lreturn		| not entered: the plain allocation

	| The scratch record (its version byte was set at start).
	EXPECT	SC_REC, 0
	move.l	(ST_SCRATCH,%a2), %a3
	move.b	%d7, (REC_KIND,%a3)
	move.l	%d3, (REC_SIZE,%a3)
	move.l	%d6, (REC_ADDRESS,%a3)
	move.w	%d4, (REC_DATA_OFFSET,%a3)

	| The block's fill and guard (only in the dynamic heap).
	btst	#OPT_FILL_NEW_BIT, (ST_OPT_FILL_NEW,%a2)
	bne.w	.Lfill
	btst	#AF_GUARDED_BIT, %d5
	beq.s	.Lslot
	BLOCK	.Lprepare_guard
	adda.l	%d3, %a0
.Lguard:
	WRITE_GUARD %a0, %d0

	| The slot: the free list's first, else __memdbg_fresh_slot's (a new
	| ledger record, or the oldest quarantined one; none: untracked, the
	| block handed out all the same).
.Lslot:
	EXPECT	NO_SLOT & 0xFFFF, 0xFFFF	| (negative as a word; slots are not)
	moveq	#0, %d7
	move.w	(ST_FREE_HEAD,%a2), %d7
	bpl.s	.Lpop_slot
	move.l	%a2, -(%sp)
	bsr.w	__memdbg_fresh_slot	| (src/ledger.rs)
	addq.l	#4, %sp
	move.w	%d0, %d7
	bpl.s	.Lrecord
	move.l	%a2, -(%sp)
	bsr.w	__memdbg_untracked	| (src/alloc.rs)
	addq.l	#4, %sp
	bra.w	.Lleave
.Lpop_slot:
	move.l	(ST_SLOT_NEXT,%a2), %a0
	move.l	%d7, %d0
	add.l	%d0, %d0
	move.w	(0,%a0,%d0.l), (ST_FREE_HEAD,%a2)

	| The record's sequence number (no ticks: the scratch record's REC_TICKS
	| stays 0, as start left it; the sequence number and the generation say
	| when, without an OS call per allocation).
.Lrecord:
	addq.l	#1, (ST_SEQ,%a2)
	move.l	(ST_SEQ,%a2), (REC_SEQ,%a3)

	| The site's file and line, copied only when the site changes (a Rust
	| block has none: zeros); its flags; the call stack for a Rust block and
	| with CALL_STACKS, else an empty one (zeroed once).
	move.l	%a4, %d0
	cmp.l	(ST_REC_SITE,%a2), %d0
	beq.s	.Lsite_flags
	move.l	%d0, (ST_REC_SITE,%a2)
	lea	(REC_FILE,%a3), %a0
	moveq	#FILE_NAME_LEN / 4 - 1, %d1
	tst.l	%d0
	beq.s	.Lno_file
	EXPECT	SITE_FILE, 0
	EXPECT	SITE_LINE, FILE_NAME_LEN
	move.l	%a4, %a1
.Lcopy_file:
	move.l	(%a1)+, (%a0)+
	dbf	%d1, .Lcopy_file
	move.w	(%a1), (REC_LINE,%a3)
	bra.s	.Lsite_flags
.Lno_file:
	clr.l	(%a0)+
	dbf	%d1, .Lno_file
	clr.w	(REC_LINE,%a3)
.Lsite_flags:
	tst.l	%d0
	beq.s	.Lwalk			| a Rust block: always its call stack
	or.w	(SITE_FLAGS,%a4), %d5
	btst	#OPT_CALL_STACKS_BIT, (ST_OPT_CALL_STACKS,%a2)
	bne.s	.Lwalk
	tst.b	(ST_REC_STACK,%a2)
	beq.s	.Lwrite
	clr.b	(ST_REC_STACK,%a2)
	lea	(REC_STACK,%a3), %a0
	moveq	#STACK_LEN / 2 - 1, %d1
.Lclear_stack:
	clr.w	(%a0)+
	dbf	%d1, .Lclear_stack
	bra.s	.Lwrite
.Lwalk:					| __memdbg_walk(st, stack, 4(a6), 0(a6), STACK_FRAMES)
	pea	(STACK_FRAMES).w
	move.l	(%a6), -(%sp)
	move.l	(4,%a6), -(%sp)
	pea	(REC_STACK,%a3)
	move.l	%a2, -(%sp)
	bsr.w	__memdbg_walk
	lea	(20,%sp), %sp
	st	(ST_REC_STACK,%a2)

	| DmWrite(the slot's record, 0, the scratch record, REC_LEN).
.Lwrite:
	move.w	%d5, (REC_FLAGS,%a3)
	pea	(REC_LEN).w
	move.l	%a3, -(%sp)
	clr.l	-(%sp)
	move.l	(ST_SLOT_REC,%a2), %a0
	move.l	%d7, %d0
	lsl.l	#2, %d0
	move.l	(0,%a0,%d0.l), -(%sp)
	SYSTRAP	sysTrapDmWrite
	lea	(16,%sp), %sp

	| The index entry: the block -> its slot. The address may still be the
	| index's for a block freed unseen (the free traps not patched, or a free
	| inside the Memory Manager that no trap call makes: MemHeapFreeByOwnerID):
	| then nothing is entered, __memdbg_reused (src/alloc.rs) retires that
	| record, and the entry is made again.
.Lindex:
	lea	(ST_INDEX,%a2), %a0
	move.l	%d6, %d0
	move.w	%d7, %d2
	bsr.w	__memdbg_index_insert
	beq.w	.Lreused

	| The counters and their peaks.
	addq.l	#1, (ST_ALLOCATIONS,%a2)
	add.l	%d3, (ST_LIVE_BYTES,%a2)
	move.l	(ST_LIVE_BYTES,%a2), %d0
	cmp.l	(ST_PEAK_BYTES,%a2), %d0
	bls.s	.Lpeak_count
	move.l	%d0, (ST_PEAK_BYTES,%a2)
.Lpeak_count:
	addq.l	#1, (ST_LIVE_COUNT,%a2)
	move.l	(ST_LIVE_COUNT,%a2), %d0
	cmp.l	(ST_PEAK_COUNT,%a2), %d0
	bls.s	.Lhandles
	move.l	%d0, (ST_PEAK_COUNT,%a2)
.Lhandles:
	btst	#AF_HANDLE_BIT, %d5
	beq.s	.Lheap
	addq.l	#1, (ST_LIVE_HANDLES,%a2)

	| Heap statistics: a small allocation (1 to SMALL_ALLOC_MAX bytes), the
	| low-water marks, the low-heap warning the first time the largest free
	| chunk is below the threshold.
.Lheap:
	btst	#OPT_HEAP_STATS_BIT, (ST_OPT_HEAP_STATS,%a2)
	beq.s	.Lleave
	move.l	%a2, -(%sp)		| st, for the three calls
	moveq	#SMALL_ALLOC_MAX, %d0
	cmp.l	%d3, %d0
	bcs.s	.Lmarks
	tst.l	%d3
	beq.s	.Lmarks
	move.l	%d3, -(%sp)
	move.l	%a4, -(%sp)
	move.l	%a2, -(%sp)
	bsr.w	__memdbg_small		| (src/alloc.rs)
	lea	(12,%sp), %sp
.Lmarks:
	bsr.w	__memdbg_heap_marks
	move.l	(ST_LOW_HEAP_THRESHOLD,%a2), %d0
	cmp.l	(ST_HEAP_MAX,%a2), %d0
	bls.s	.Lheap_done
	btst	#HF_LOW_HEAP_BIT, (ST_HF_LOW_HEAP,%a2)
	bne.s	.Lheap_done
	bsr.w	__memdbg_low_heap	| (src/alloc.rs)
.Lheap_done:
	addq.l	#4, %sp
.Lleave:
	clr.b	(ST_BUSY,%a2)
.Lreturn:
	move.l	%d6, %a0
	adda.l	%d4, %a0
	movem.l	(%sp)+, %d2-%d7/%a2-%a4
	rts

	| Out of line: with FILL_NEW, the block's fill (then its guard).
.Lfill:
	btst	#AF_NOT_DYNAMIC_BIT, %d5
	bne.w	.Lslot
	BLOCK	.Lprepare_fill
	move.l	%d3, %d0
	moveq	#FILL_NEW_BYTE, %d1
	FILL	%a0, %d0, %d1
	btst	#AF_GUARDED_BIT, %d5
	bne.w	.Lguard
	bra.w	.Lslot

	| Out of line: __memdbg_reused(st, block) before the block is indexed.
.Lreused:
	move.l	%d6, -(%sp)
	move.l	%a2, -(%sp)
	bsr.w	__memdbg_reused		| (src/alloc.rs)
	addq.l	#8, %sp
	bra.w	.Lindex

	| Out of line: a handle whose chunk only MemHandleLock gives
	| (ST_DOCUMENTED), from either BLOCK: locked while its guard (from the
	| main line: no fill) or its fill and guard (from .Lfill) are written as
	| above, then unlocked (one MemHandleLock/MemHandleUnlock pair per
	| allocation).
.Lprepare_guard:
	LOCK_BLOCK
	adda.l	%d3, %a0
.Lprepare_write_guard:
	WRITE_GUARD %a0, %d0
.Lprepare_unlock:
	move.l	%d6, -(%sp)
	HANDLE_UNLOCK
	addq.l	#4, %sp
	bra.w	.Lslot
.Lprepare_fill:
	LOCK_BLOCK
	move.l	%d3, %d0
	moveq	#FILL_NEW_BYTE, %d1
	FILL	%a0, %d0, %d1		| (A0 ends at the block's end)
	btst	#AF_GUARDED_BIT, %d5
	bne.s	.Lprepare_write_guard
	bra.s	.Lprepare_unlock
	.size	__memdbg_alloc, . - __memdbg_alloc
