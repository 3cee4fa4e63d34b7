| The free path's index (src/index.rs): address -> ledger slot, an
| open-addressing hash table with linear probing over two parallel arrays
| (IX_KEYS: longs, 0 for an empty entry; IX_SLOTS: words), a power-of-two
| number of entries. A position is a key's byte offset in the keys (4 x its
| entry number), so a key is read without scaling and its slot is at half the
| offset. Every tracked allocation inserts, every free finds and removes.

	.include "memdbg.inc"

| HOME key, tmp, index[, shift]: \key (a data register holding a key) becomes
| the key's home position (x 4) in the table at \index (an address register):
| multiplicative hashing of a 16-bit fold of the address, as src/index.rs
| describes.
| Bits above the position are left for the caller's mask (BMASK). \tmp is
| changed. \shift, if given, is a data register holding the table's IX_SHIFT
| (then \index is not read).
	.macro	HOME key, tmp, index, shift
	lsr.l	#2, \key		| key >> 2
	move.l	\key, \tmp
	swap	\tmp			| its high word: key >> 18
	add.w	\tmp, \key		| x = (key >> 2) + (key >> 18), mod 2^16
	mulu.w	#INDEX_MULTIPLIER, \key	| x * MULTIPLIER (its low word: mod 2^16)
	.ifb	\shift
	move.w	(IX_SHIFT,\index), \tmp
	lsr.w	\tmp, \key		| the top log2(entries) bits of the low word
	.else
	lsr.w	\shift, \key
	.endif
	lsl.l	#2, \key		| x 4
	.endm

| BMASK out, index: \out (a data register) = the mask of a position in the
| table at \index: (entries - 1) x 4 (IX_POS_MASK).
	.macro	BMASK out, index
	move.l	(IX_POS_MASK,\index), \out
	.endm

	.text

| __memdbg_index_find: where a key is. A register routine (src/index.rs's
| `Index::find`, free.s).
|   In:     A0 = the table (an Index), D0 = the key.
|   Out:    D0 = the key's position with Z set, or INDEX_NOT_FOUND (odd) with Z
|           clear; D1 = the table's position mask. Key 0 is never found: an
|           empty entry ends the probe before any comparison.
|   Keeps:  D2-D7/A2-A6 (changes D0-D1/A0-A1).
	.globl	__memdbg_index_find
	.type	__memdbg_index_find, @function
__memdbg_index_find:
	move.l	%d0, %a1		| the key
	HOME	%d0, %d1, %a0
	BMASK	%d1, %a0
	and.l	%d1, %d0
	move.l	(IX_KEYS,%a0), %a0
.Lfind_probe:
	tst.l	(0,%a0,%d0.l)
	beq.s	.Lfind_empty
	cmpa.l	(0,%a0,%d0.l), %a1
	beq.s	.Lfind_done
	addq.l	#4, %d0			| the next entry, wrapping around
	and.l	%d1, %d0
	bra.s	.Lfind_probe
.Lfind_empty:
	moveq	#INDEX_NOT_FOUND, %d0	| (nonzero: Z clear)
.Lfind_done:
	rts
	.size	__memdbg_index_find, . - __memdbg_index_find

| __memdbg_index_insert: enters a key, unless the table holds it already (a
| block just allocated at an address whose record was never closed: its block
| was freed unseen). A register routine (alloc.s).
|   In:     A0 = the table, D0 = the key (nonzero), D2.w = its slot. The table
|           has an empty entry: it never holds more keys than the detector's
|           capacity, at most 2/3 of its entries.
|   Out:    Z clear: entered (D0 = INDEX_NOT_FOUND); Z set: the key was there,
|           nothing entered, D0 = its position (as __memdbg_index_find's).
|   Keeps:  D2-D7/A2-A6 (changes D0-D1/A0-A1).
	.globl	__memdbg_index_insert
	.type	__memdbg_index_insert, @function
__memdbg_index_insert:
	move.l	%a2, -(%sp)
	movea.l	%d0, %a2		| the key
	HOME	%d0, %d1, %a0
	BMASK	%d1, %a0
	and.l	%d1, %d0
	move.l	(IX_KEYS,%a0), %a1
.Linsert_probe:				| the first empty entry from the home
	tst.l	(0,%a1,%d0.l)
	beq.s	.Linsert_here
	cmpa.l	(0,%a1,%d0.l), %a2
	beq.s	.Linsert_end		| there already (Z set)
	addq.l	#4, %d0
	and.l	%d1, %d0
	bra.s	.Linsert_probe
.Linsert_here:
	move.l	%a2, (0,%a1,%d0.l)
	lsr.l	#1, %d0			| the slot's offset: half the key's
	move.l	(IX_SLOTS,%a0), %a1
	move.w	%d2, (0,%a1,%d0.l)
	moveq	#INDEX_NOT_FOUND, %d0	| (nonzero: Z clear)
.Linsert_end:
	movea.l	(%sp)+, %a2		| (movea keeps the flags)
	rts
	.size	__memdbg_index_insert, . - __memdbg_index_insert

| __memdbg_index_remove: removes the entry at a position and shifts the later
| entries of its cluster back, so that every key stays reachable from its home
| and no tombstone is left (30,000 alloc/free cycles leave the table as the
| live keys alone would). A register routine (free.s).
|   In:     A0 = the table, D0 = the position (from __memdbg_index_find, the
|           table unchanged since).
|   Keeps:  A2-A6 (changes D0-D7/A0-A1: its callers, at the end of a free,
|           keep nothing there).
	.globl	__memdbg_index_remove
	.type	__memdbg_index_remove, @function
__memdbg_index_remove:
	| d2 = the hole, d3 = j (the entries after it), d4 = the key at j (then
	| its home), d5 =
	| the position mask, d6 = the home's shift, d7 = (j - hole) & mask; a1 =
	| the keys; a0 = the table.
	BMASK	%d5, %a0
	move.w	(IX_SHIFT,%a0), %d6
	moveq	#0, %d7
	move.l	%d0, %d2
	move.l	%d0, %d3
	move.l	(IX_KEYS,%a0), %a1
.Lremove_next:
	addq.l	#4, %d3
	and.l	%d5, %d3
	addq.l	#4, %d7
	move.l	(0,%a1,%d3.l), %d4
	beq.s	.Lremove_end		| an empty entry ends the cluster
	| The entry at j may move into the hole only if its home h is not after
	| the hole (cyclically): (j - h) & mask >= (j - hole) & mask (h's bits
	| above the mask do not change the former).
	HOME	%d4, %d1, %a0, %d6	| h (and bits above the mask)
	move.l	%d3, %d1
	sub.l	%d4, %d1
	and.l	%d5, %d1		| (j - h) & mask
	cmp.l	%d7, %d1
	bcs.s	.Lremove_next
	| It moves: its key and slot into the hole, and the hole to j.
	move.l	(0,%a1,%d3.l), (0,%a1,%d2.l)
	move.l	%d3, %d0
	lsr.l	#1, %d0
	move.l	%d2, %d1
	lsr.l	#1, %d1
	move.l	%a1, %d4		| (its key is stored: d4 keeps the keys)
	move.l	(IX_SLOTS,%a0), %a1
	move.w	(0,%a1,%d0.l), (0,%a1,%d1.l)
	move.l	%d4, %a1
	move.l	%d3, %d2
	moveq	#0, %d7
	bra.s	.Lremove_next
.Lremove_end:
	clr.l	(0,%a1,%d2.l)		| the last hole: empty
	rts
	.size	__memdbg_index_remove, . - __memdbg_index_remove
