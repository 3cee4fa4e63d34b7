/*
 * A Palm OS application written in C, for memdbg's end-to-end test of the C path
 * (memdbg/tests/c_app.rs): compiled by m68k-linux-gnu-gcc for the 68000 (PC-relative,
 * A5 untouched), linked with the archive `palm-build lib` makes of memdbg/capi-lib,
 * run in palm-run. PilotMain starts memdbg, leaks one MemPtrNew block (24 bytes,
 * the line marked c-leak), allocates, resizes and frees another, allocates and
 * frees a handle, and stops. It returns 0
 * when everything it can check itself holds, else the number of the failed check.
 * Lines the test checks carry an `@mark name` comment.
 */

/* What PalmOS.h would declare (only what this file uses). */
typedef unsigned char UInt8;
typedef unsigned short UInt16;
typedef unsigned long UInt32;
typedef char Char;
typedef UInt16 Err;
typedef void *MemPtr;
typedef struct _opaque *MemHandle;

#define sysAppLaunchCmdNormalLaunch 0

/* A trap taking one 32-bit argument, called the Palm way: the argument on the stack,
   `trap #15` and the trap word, the result in D0; D0-D2/A0-A1 clobbered. */
#define TRAP_1(word, arg)                                                              \
    ({                                                                                 \
        register UInt32 r_ __asm__("d0");                                              \
        __asm__ volatile("move.l %1,-(%%sp)\n\ttrap #15\n\t.short " #word            \
                         "\n\taddq.l #4,%%sp"                                           \
                         : "=d"(r_)                                                    \
                         : "a"(arg)                                                    \
                         : "d1", "d2", "a0", "a1", "memory", "cc");                   \
        (Err) r_;                                                                      \
    })
/* MemChunkFree and MemHandleFree: memdbg sees these frees through its trap patches. */
#define MemPtrFree(p) TRAP_1(0xA012, (p))
#define MemHandleFree(h) TRAP_1(0xA02B, (h))

#define MEMDBG 1
#include "memdbg.h"

UInt32 PilotMain(UInt32 cmd, MemPtr cmdPBP, UInt32 launchFlags);

/* The application's entry, the first bytes of code 1 (section .text.palm_entry, which
   palm-build's linker script puts first): SysAppStartup, PilotMain with its three
   arguments in 4-byte stack slots (this file's PilotMain takes UInt32s), SysAppExit.
   The same sequence as m68k_palmos_sys::app_entry!. */
__asm__(
    "\t.section .text.palm_entry,\"ax\",@progbits\n"
    "\t.globl __palm_entry\n"
    "__palm_entry:\n"
    "\tlink.w %a6,#-16\n"
    "\tpea (-12,%a6)\n"
    "\tpea (-8,%a6)\n"
    "\tpea (-4,%a6)\n"
    "\ttrap #15\n"
    "\t.short 0xA08F\n" /* SysAppStartup */
    "\tlea (12,%sp),%sp\n"
    "\tand.l #0xffff,%d0\n"
    "\tbeq 1f\n"
    "\tmove.b #3,-(%sp)\n" /* sndError */
    "\ttrap #15\n"
    "\t.short 0xA234\n" /* SndPlaySystemSound */
    "\tlea (2,%sp),%sp\n"
    "\tmoveq #-1,%d0\n"
    "\tbra 2f\n"
    "1:\n"
    "\tmove.l (-4,%a6),%a0\n"
    "\tmoveq #0,%d0\n"
    "\tmove.w (6,%a0),%d0\n"
    "\tmove.l %d0,-(%sp)\n"
    "\tmove.l (2,%a0),-(%sp)\n"
    "\tmoveq #0,%d0\n"
    "\tmove.w (0,%a0),%d0\n"
    "\tmove.l %d0,-(%sp)\n"
    "\tbsr.w PilotMain\n"
    "\tlea (12,%sp),%sp\n"
    "\tmove.l %d0,(-16,%a6)\n"
    "\tmove.l (-12,%a6),-(%sp)\n"
    "\tmove.l (-8,%a6),-(%sp)\n"
    "\tmove.l (-4,%a6),-(%sp)\n"
    "\ttrap #15\n"
    "\t.short 0xA090\n" /* SysAppExit */
    "\tlea (12,%sp),%sp\n"
    "\tmove.l (-16,%a6),%d0\n"
    "2:\n"
    "\tunlk %a6\n"
    "\trts\n"
    "\t.text\n");

/* Kept out of line so that gcc keeps `a` and `b` in callee-saved registers (D2-D7,
   A2-A4) across the library's calls: a library that clobbered one fails check 5. */
static __attribute__((noinline)) UInt32 mix(UInt8 *a, UInt8 *b, UInt32 k)
{
    return (UInt32)a[0] + (UInt32)b[1] * 3 + k;
}

UInt32 PilotMain(UInt32 cmd, MemPtr cmdPBP, UInt32 launchFlags)
{
    UInt8 *leaked, *freed;
    MemHandle handle;
    UInt32 i, before, leaks;
    (void)cmdPBP;
    (void)launchFlags;
    if (cmd != sysAppLaunchCmdNormalLaunch)
        return 0;
    if (MemDbgStart() != 0)
        return 1;
    leaked = MemPtrNew(24); /* @mark c-leak */
    if (leaked == 0)
        return 2;
    for (i = 0; i < 24; i++)
        leaked[i] = (UInt8)(i + 1);
    freed = MemPtrNew(10);
    if (freed == 0)
        return 3;
    freed[1] = 7;
    if (MemPtrResize(freed, 20) != 0) /* memdbg_ptr_resize: the record follows */
        return 6;
    handle = MemHandleNew(16);
    if (handle == 0)
        return 7;
    before = mix(leaked, freed, 5);
    if (MemPtrFree(freed) != 0)
        return 4;
    if (MemHandleFree(handle) != 0)
        return 8;
    leaks = MemDbgStop();
    /* `leaked` and `before` lived through memdbg's calls in callee-saved registers. */
    if (before != 1 + 7 * 3 + 5 || leaked[23] != 24)
        return 5;
    if (leaks != 1)
        return 10 + leaks;
    return 0;
}
