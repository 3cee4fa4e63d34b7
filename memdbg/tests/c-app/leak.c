/*
 * A Palm OS application written in C, for memdbg's end-to-end test of the C path
 * (memdbg/tests/c_app.rs): compiled by m68k-linux-gnu-gcc for the 68000 (PC-relative,
 * A5 untouched), linked with the archive `palm-build lib` makes of memdbg/capi-lib,
 * run in palm-run. Palm OS's types, constants and system calls come from
 * palm-sys/include/palm-sys.h (generated from palm-sys/traps.tbl). PilotMain starts
 * memdbg, leaks one MemPtrNew block (24 bytes, the line marked c-leak), makes a
 * checkpoint (generation 1 starts: what follows is allocated in it), allocates,
 * resizes and frees another, allocates and frees a handle, allocates and frees two
 * more small blocks on two lines (with the 10-byte one: three small-allocation sites,
 * c-small-10, c-small-4, c-small-8), and stops. It returns 0
 * when everything it can check itself holds, else the number of the failed check.
 * Lines the test checks carry an `@mark name` comment.
 */

#include "palm-sys.h"
#define MEMDBG 1
#include "memdbg.h"

/* The entry (SysAppStartup, PilotMain, SysAppExit), first in code 1. */
PALM_APP_ENTRY(PilotMain);

/* Kept out of line so that gcc keeps `a` and `b` in callee-saved registers (D2-D7,
   A2-A4) across the library's calls: a library that clobbered one fails check 5. */
static __attribute__((noinline)) UInt32 mix(UInt8 *a, UInt8 *b, UInt32 k)
{
    return (UInt32)a[0] + (UInt32)b[1] * 3 + k;
}

UInt32 PilotMain(UInt16 cmd, MemPtr cmdPBP, UInt16 launchFlags)
{
    UInt8 *leaked, *freed, *small4, *small8;
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
    if (MemDbgCheckpoint() != 1) /* generation 1: one block of 24 bytes live */
        return 30;
    freed = MemPtrNew(10); /* @mark c-small-10 */
    if (freed == 0)
        return 3;
    freed[1] = 7;
    if (MemPtrResize(freed, 20) != 0) /* memdbg_ptr_resize: the record follows */
        return 6;
    handle = MemHandleNew(16);
    if (handle == 0)
        return 7;
    small4 = MemPtrNew(4); /* @mark c-small-4 */
    small8 = MemPtrNew(8); /* @mark c-small-8 */
    if (small4 == 0 || small8 == 0)
        return 9;
    if (MemPtrFree(small4) != 0 || MemPtrFree(small8) != 0)
        return 9;
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
