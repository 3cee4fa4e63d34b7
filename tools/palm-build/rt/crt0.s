| palm-build's startup code for an application in prc-tools' layout
| (`palm-build c-app --segments`): globals below A5 from data 0, code 2..n,
| and relocation from rloc 0, done as prc-tools' own startup code does it
| (prc-tools-remix prc-tools-2.3/crt/crt0.c `start`, crt/dreloc.c
| `_GccLoadCodeAndRelocateData`, `_RelocateChain`, `_GccReleaseCode`; its code
| is not used here). The OS enters it at the first byte of code 1.
|
|   1. SysAppStartup(&appInfo, &prevGlobals, &globalsPtr); on an error
|      SndPlaySystemSound(sndError) and the result -1, as crt0.c does.
|   2. Only with sysAppLaunchFlagNewGlobals (SystemMgr.h; the OS has just
|      allocated the A5 world and decoded data 0 into it): lock rloc 0 and walk
|      its chains, each a list of 32-bit sites holding {next, addend} (offsets
|      from data_start, the first global) to which the chain's base is added:
|      chain 0 data_start, chain 1 code 1, chain N code N; code 2, 3, ... are
|      got with DmGet1Resource('code', N) and locked (their handles are kept on
|      the stack) until one is missing.
|   3. PilotMain(cmd, cmdPBP, launchFlags) from appInfo, in Palm's layout (16-bit
|      values in 2-byte slots: the objects are compiled with -mshort, as
|      prc-tools' gcc is by default), but only with globals (NewGlobals or
|      sysAppLaunchFlagSubCall): GNU C's -msep-data code reaches everything
|      through the GOT above A5, so it cannot run without its A5 world. Other
|      launches return 0 without calling it.
|   4. Unlock and release code 2..n; SysAppExit; PilotMain's result in D0.
|
| A5 is never written. data_start's offset from A5 is the link-time constant
| __palm_data_start_a5 (palm-build's linker script).

	.file	1 "crt0.s"		| (no line table: the report names the function only)
	.section .text.palm_entry,"ax",@progbits
	.globl	__palm_entry
	.type	__palm_entry,@function
__palm_entry:
	link.w	%a6,#-12		| -4 appInfo, -8 prevGlobals, -12 globalsPtr
	movem.l	%d3-%d5/%a2-%a4,-(%sp)
	pea	(-12,%a6)
	pea	(-8,%a6)
	pea	(-4,%a6)
	trap	#15
	.short	0xA08F			| SysAppStartup
	lea	(12,%sp),%sp
	tst.w	%d0
	beq.s	1f
	move.b	#3,-(%sp)		| sndError
	trap	#15
	.short	0xA234			| SndPlaySystemSound
	addq.l	#2,%sp
	moveq	#-1,%d0
	bra.w	9f
1:	moveq	#0,%d5			| the result
	moveq	#0,%d3			| code resources locked (their handles are on the stack)
	move.l	(-4,%a6),%a0
	move.w	(6,%a0),%d4		| launchFlags
	btst	#2,%d4			| sysAppLaunchFlagNewGlobals
	beq.s	5f
	lea	(__palm_data_start_a5,%a5),%a2	| data_start
	clr.w	-(%sp)
	move.l	#0x726C6F63,-(%sp)	| 'rloc'
	trap	#15
	.short	0xA060			| DmGet1Resource('rloc', 0)
	addq.l	#6,%sp
	move.l	%a0,%a4			| rloc 0's handle (0: nothing to relocate)
	sub.l	%a3,%a3			| its chain heads
	moveq	#0,%d4			| and their number
	move.l	%a4,%d0
	beq.s	2f
	move.l	%a4,-(%sp)
	trap	#15
	.short	0xA021			| MemHandleLock
	move.l	%a0,%a3
	trap	#15
	.short	0xA02D			| MemHandleSize
	addq.l	#4,%sp
	lsr.l	#1,%d0
	move.l	%d0,%d4
	move.l	%a2,%a1			| chain 0: + data_start
	bsr.w	reloc
	lea	(__palm_entry,%pc),%a1	| chain 1: + code 1
	bsr.w	reloc
2:	move.w	%d3,%d0			| code 2, 3, ...
	addq.w	#2,%d0
	move.w	%d0,-(%sp)
	move.l	#0x636F6465,-(%sp)	| 'code'
	trap	#15
	.short	0xA060			| DmGet1Resource('code', N)
	addq.l	#6,%sp
	move.l	%a0,%d0
	beq.s	3f
	move.l	%a0,-(%sp)		| kept on the stack until PilotMain returns
	trap	#15
	.short	0xA021			| MemHandleLock
	addq.w	#1,%d3
	move.l	%a0,%a1			| chain N: + code N
	bsr.w	reloc
	bra.s	2b
3:	move.l	%a4,%d0
	beq.s	4f
	move.l	%a4,-(%sp)
	trap	#15
	.short	0xA022			| MemHandleUnlock(rloc 0)
	trap	#15
	.short	0xA061			| DmReleaseResource(rloc 0)
	addq.l	#4,%sp
4:	move.l	(-4,%a6),%a0
	move.w	(6,%a0),%d4
5:	andi.w	#0x14,%d4		| NewGlobals | SubCall: the A5 world is there
	beq.s	7f
	move.l	(-4,%a6),%a0
	move.w	(6,%a0),-(%sp)		| launchFlags
	move.l	(2,%a0),-(%sp)		| cmdPBP
	move.w	(0,%a0),-(%sp)		| cmd
	bsr.w	PilotMain
	addq.l	#8,%sp
	move.l	%d0,%d5
7:	subq.w	#1,%d3			| unlock and release code n, ..., 2
	bmi.s	8f
	trap	#15
	.short	0xA022			| MemHandleUnlock(the handle on top)
	trap	#15
	.short	0xA061			| DmReleaseResource(it)
	addq.l	#4,%sp
	bra.s	7b
8:	move.l	(-12,%a6),-(%sp)
	move.l	(-8,%a6),-(%sp)
	move.l	(-4,%a6),-(%sp)
	trap	#15
	.short	0xA090			| SysAppExit
	lea	(12,%sp),%sp
	move.l	%d5,%d0
9:	movem.l	(%sp)+,%d3-%d5/%a2-%a4
	unlk	%a6
	rts
	.size	__palm_entry,.-__palm_entry

| Walks the next chain of rloc 0. In: A3 its head's address, D4 the number of
| heads left, A1 the chain's base, A2 data_start. Each site, data_start + an
| Int16 offset (negative: the end), holds {next offset, addend}; it becomes
| base + addend. Out: A3 past the head, D4 one less (when no head is left,
| nothing is done and D4 stays 0). Changes D0-D1/A0.
	.type	reloc,@function
reloc:
	subq.l	#1,%d4
	bmi.s	2f
	move.w	(%a3)+,%d0
1:	tst.w	%d0
	bmi.s	3f
	lea	(0,%a2,%d0.w),%a0
	move.w	(%a0),%d0		| next
	clr.w	(%a0)
	move.l	%a1,%d1
	add.l	%d1,(%a0)		| base + addend
	bra.s	1b
2:	clr.l	%d4
3:	rts
	.size	reloc,.-reloc
	.section .note.GNU-stack,"",@progbits
