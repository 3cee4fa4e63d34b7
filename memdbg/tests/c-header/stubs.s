| Stand-ins for memdbg's C interface in the header test (memdbg/tests/c_header.rs):
| each makes a system call whose trap word names it (0xA800 + its number), so the
| harness sees its argument bytes from 4(%sp) on and sets its result registers.
	.section .text.palm_entry,"ax",@progbits
	.macro	stub name, n
	.globl	\name
\name:
	trap	#15
	.short	0xA800 + \n
	rts
	.endm
	stub	memdbg_start, 0
	stub	memdbg_stop, 1
	stub	memdbg_ptr_new, 2
	stub	memdbg_handle_new, 3
	stub	memdbg_chunk_new, 4
	stub	memdbg_ptr_resize, 5
	stub	memdbg_handle_resize, 6
	stub	memdbg_ptr_free, 7
	stub	memdbg_handle_free, 8
	stub	memdbg_checkpoint, 9
