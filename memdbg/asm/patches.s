| The patched traps' entries (src/patch.rs installs them; PALM_FACTS §3.4):
| MemChunkFree/MemHandleFree, MemPtrSize/MemHandleSize and
| MemPtrResize/MemHandleResize, MemPtrUnlock/MemHandleUnlock, and the template
| of the RAM trampolines the dispatch table points at.
|
| An entry is reached from its trampoline, which pushed the state's address
| (+1, "tagged", for a trap's handle form) above the trap's JSR frame: the
| tagged state at 0(%sp), the return address into the trap's caller at 4, the
| trap's arguments in Palm layout from 8 (all pointers or UInt32s here). Its
| caller is the app or the OS working for it (FrmDeleteForm freeing a field's
| text handle), in Palm's convention: the result in D0, D3-D7/A2-A6 kept. It
| chains to the saved original with JSR, never TRAP #15 (that would enter the
| patch again).

	.include "memdbg.inc"

| PATCH_ENTER orig: the start of an entry. D1 = the tag (1: the handle form),
| A0 = the state, A1 = the saved original (at `orig`, the pointer form's ST_
| offset; the handle form's is 4 bytes after it). While the detector is busy
| (its own calls: the Data Manager freeing, a wrapper resizing) the call goes
| straight to the original: the tagged state popped, then a jump, so that it
| returns to the trap's caller with its answer. Changes D1/A0-A1.
	.macro	PATCH_ENTER orig
	moveq	#1, %d1
	and.l	(%sp), %d1
	move.l	(%sp), %a0
	suba.l	%d1, %a0
	move.l	(\orig,%a0), %a1	| (moves to An keep the flags of the and)
	beq.s	.Lpatch_form\@
	move.l	(\orig + 4,%a0), %a1
.Lpatch_form\@:
	tst.b	(ST_BUSY,%a0)
	beq.s	.Lpatch_go\@
	addq.l	#4, %sp
	jmp	(%a1)
.Lpatch_go\@:
	.endm

	EXPECT	ST_ORIG_HANDLE_FREE, ST_ORIG_CHUNK_FREE + 4
	EXPECT	ST_ORIG_HANDLE_SIZE, ST_ORIG_PTR_SIZE + 4
	EXPECT	ST_ORIG_HANDLE_RESIZE, ST_ORIG_PTR_RESIZE + 4
	EXPECT	ST_ORIG_HANDLE_UNLOCK, ST_ORIG_PTR_UNLOCK + 4

	.text

| __memdbg_free_entry: MemChunkFree(p) / MemHandleFree(h) patched. The
| bookkeeping is __memdbg_free_block's (free.s), with the detector busy; the
| original then frees the block, unless it was a double free (refused:
| memErrInvalidParam, the OS never sees it).
|   In:     Palm's, from the trampoline (the tagged state, ret, p).
|   Out:    D0.w = the Err.
|   Keeps:  D3-D7/A2-A6 (changes D0-D2/A0-A1, as a trap may).
	.globl	__memdbg_free_entry
	.type	__memdbg_free_entry, @function
__memdbg_free_entry:
	PATCH_ENTER ST_ORIG_CHUNK_FREE
	st	(ST_BUSY,%a0)
	move.l	%a1, (%sp)		| the original, where the tag was
	move.l	%a0, -(%sp)		| the state, kept: st@0, orig@4, ret@8, p@12
	move.l	(12,%sp), %d0		| __memdbg_free_block(st, p, tag, ret, frame)
	move.l	(8,%sp), %a1
	move.l	%a6, %d2		| the caller's frame
	bsr.w	__memdbg_free_block
	bne.s	.Lfree_refused
	move.l	(12,%sp), -(%sp)	| the original's argument
	move.l	(8,%sp), %a1
	jsr	(%a1)
	addq.l	#4, %sp
.Lfree_done:
	move.l	(%sp)+, %a0
	clr.b	(ST_BUSY,%a0)
	addq.l	#4, %sp			| the original
	rts
.Lfree_refused:
	move.l	#memErrInvalidParam, %d0
	bra.s	.Lfree_done
	.size	__memdbg_free_entry, . - __memdbg_free_entry

| __memdbg_size_entry: MemPtrSize(p) / MemHandleSize(h) patched: the
| original's answer, except for a tracked guarded block (also through a locked
| handle's pointer): its requested size (__memdbg_visible_size, src/resize.rs,
| with the detector busy), so that nothing writes over the guard because the
| chunk is bigger than what was asked for.
|   In:     Palm's, from the trampoline (the tagged state, ret, p).
|   Out:    D0 = the size.
|   Keeps:  D3-D7/A2-A6 (changes D0-D2/A0-A1, as a trap may).
	.globl	__memdbg_size_entry
	.type	__memdbg_size_entry, @function
__memdbg_size_entry:
	PATCH_ENTER ST_ORIG_PTR_SIZE
	move.l	%a0, -(%sp)		| the state: st@0, tagged@4, ret@8, p@12
	move.l	(12,%sp), -(%sp)
	jsr	(%a1)			| the OS's size
	addq.l	#4, %sp
	move.l	(%sp), %a0
	st	(ST_BUSY,%a0)
	move.l	%d0, -(%sp)		| __memdbg_visible_size(st, p, handle, size)
	moveq	#1, %d0
	and.l	(8,%sp), %d0		| (the original may have changed D1)
	move.l	%d0, -(%sp)
	move.l	(20,%sp), -(%sp)
	move.l	%a0, -(%sp)
	bsr.w	__memdbg_visible_size
	lea	(16,%sp), %sp
	move.l	(%sp)+, %a0
	clr.b	(ST_BUSY,%a0)
	addq.l	#4, %sp			| the tagged state
	rts
	.size	__memdbg_size_entry, . - __memdbg_size_entry

| __memdbg_resize_entry: MemPtrResize(p, size) / MemHandleResize(h, size)
| patched: __memdbg_resize (src/resize.rs) with the detector busy and the
| caller's A6 as the frame: a tracked block is resized as the resize wrappers
| do it (its guard checked and moved, its record updated), anything else by
| the original.
|   In:     Palm's, from the trampoline (the tagged state, ret, p, size).
|   Out:    D0.w = the Err.
|   Keeps:  D3-D7/A2-A6 (changes D0-D2/A0-A1, as a trap may).
	.globl	__memdbg_resize_entry
	.type	__memdbg_resize_entry, @function
__memdbg_resize_entry:
	PATCH_ENTER ST_ORIG_PTR_RESIZE
	st	(ST_BUSY,%a0)
	move.l	%a0, -(%sp)		| the state: st@0, tagged@4, ret@8, p@12, size@16
	move.l	%a6, -(%sp)		| __memdbg_resize(st, p, size, handle, ret, frame)
	move.l	(12,%sp), -(%sp)
	move.l	%d1, -(%sp)
	move.l	(28,%sp), -(%sp)
	move.l	(28,%sp), -(%sp)
	move.l	%a0, -(%sp)
	bsr.w	__memdbg_resize
	lea	(24,%sp), %sp
	move.l	(%sp)+, %a0
	clr.b	(ST_BUSY,%a0)
	addq.l	#4, %sp			| the tagged state
	rts
	.size	__memdbg_resize_entry, . - __memdbg_resize_entry

| __memdbg_unlock_entry: MemPtrUnlock(p) / MemHandleUnlock(h) patched (0xA035
| and 0xA022, sdk-3.5 CoreTraps.h). __memdbg_unlock (src/unlock.rs, with the
| detector busy and the caller's return address and A6: the unlock's site)
| says whether it unlocks a tracked handle whose lock count is already 0:
| then it was recorded and is refused (memErrChunkNotLocked, the OS never
| sees it); else the original unlocks it, with the detector still busy.
|   In:     Palm's, from the trampoline (the tagged state, ret, p).
|   Out:    D0.w = the Err.
|   Keeps:  D3-D7/A2-A6 (changes D0-D2/A0-A1, as a trap may).
	.globl	__memdbg_unlock_entry
	.type	__memdbg_unlock_entry, @function
__memdbg_unlock_entry:
	PATCH_ENTER ST_ORIG_PTR_UNLOCK
	st	(ST_BUSY,%a0)
	move.l	%a1, (%sp)		| the original, where the tag was
	move.l	%a0, -(%sp)		| the state, kept: st@0, orig@4, ret@8, p@12
	move.l	%a6, -(%sp)		| __memdbg_unlock(st, p, handle, ret, frame)
	move.l	(12,%sp), -(%sp)
	move.l	%d1, -(%sp)
	move.l	(24,%sp), -(%sp)
	move.l	%a0, -(%sp)
	bsr.w	__memdbg_unlock
	lea	(20,%sp), %sp
	tst.l	%d0
	bne.s	.Lunlock_refused
	move.l	(12,%sp), -(%sp)	| the original's argument
	move.l	(8,%sp), %a1
	jsr	(%a1)
	addq.l	#4, %sp
.Lunlock_done:
	move.l	(%sp)+, %a0
	clr.b	(ST_BUSY,%a0)
	addq.l	#4, %sp			| the original
	rts
.Lunlock_refused:
	move.l	#memErrChunkNotLocked, %d0
	bra.s	.Lunlock_done
	.size	__memdbg_unlock_entry, . - __memdbg_unlock_entry

| __memdbg_trampoline: the template of one trampoline (TRAMPOLINE_LEN bytes),
| which src/patch.rs copies into the state's chunk for each patched trap,
| filling in its fields (at the TRAMPOLINE_ offsets): the tagged state, the
| entry, the saved original, and the two checks that the app whose code 1 holds
| the entry is still there (it may have returned without memdbg::stop, leaving
| the dispatch table pointing here): code 1's chunk is still locked twice (the
| lock count, bits 7-4 of the byte at TRAMPOLINE_LOCK_AT, code 1's chunk header
| + 4, PALM_FACTS §5.1: the OS's lock and memdbg's own; the OS unlocks the code
| of an app that exits) and the
| entry's first long still reads TRAMPOLINE_CODE (the code was not moved or its
| memory reused). Either fails: straight to the original, the caller's
| arguments untouched. Four instructions more than a bare jump per call of a
| patched trap; changes only the flags (a trap may change D0-D2/A0-A1 anyway).
| Code in a chunk is ordinary RAM to the 68000 (no MMU, no caches on
| DragonBall). The jumps are absolute: a table of code addresses would need
| absolute relocations in code 1.
	.globl	__memdbg_trampoline
	.type	__memdbg_trampoline, @object
__memdbg_trampoline:
	cmpi.b	#CODE_LOCKED, (0x7FFFFFFF).l	| code 1 locked: lock count >= 2
.Ltrampoline_lock_end:
	bcs.s	.Ltrampoline_gone
	cmpi.l	#0x7FFFFFFF, (0x7FFFFFFF).l	| the entry's first long, at the entry
.Ltrampoline_code_end:
	bne.s	.Ltrampoline_gone
	move.l	#0x7FFFFFFF, -(%sp)	| the tagged state
.Ltrampoline_state_end:
	jmp	(0x7FFFFFFF).l		| the entry
.Ltrampoline_entry_end:
.Ltrampoline_gone:
	jmp	(0x7FFFFFFF).l		| the original
.Ltrampoline_end:
	.size	__memdbg_trampoline, . - __memdbg_trampoline
	EXPECT	.Ltrampoline_end - __memdbg_trampoline, TRAMPOLINE_LEN
	EXPECT	.Ltrampoline_lock_end - __memdbg_trampoline - 4, TRAMPOLINE_LOCK_AT
	EXPECT	.Ltrampoline_code_end - __memdbg_trampoline - 8, TRAMPOLINE_CODE
	EXPECT	.Ltrampoline_code_end - __memdbg_trampoline - 4, TRAMPOLINE_CODE_AT
	EXPECT	.Ltrampoline_state_end - __memdbg_trampoline - 4, TRAMPOLINE_STATE
	EXPECT	.Ltrampoline_entry_end - __memdbg_trampoline - 4, TRAMPOLINE_ENTRY
	EXPECT	.Ltrampoline_end - __memdbg_trampoline - 4, TRAMPOLINE_ORIG
