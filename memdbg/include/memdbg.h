/*
 * memdbg.h: memdbg for Palm OS applications written in C.
 *
 * Include it after the SDK's PalmOS.h (prc-tools, SDK 3.5 or 5r3 headers), or for
 * Debian's GNU C after palm-sys/include/palm-sys.h; with MEMDBG defined (-DMEMDBG),
 * MemPtrNew, MemHandleNew and MemChunkNew are recorded with __FILE__ and __LINE__,
 * MemPtrResize and MemHandleResize keep their records, MemPtrFree and MemHandleFree
 * are seen even where trap patches are refused (Palm OS 5), MemDbgStart /
 * MemDbgStop run the detector and MemDbgCheckpoint starts a new generation. Without MEMDBG everything compiles to the plain
 * calls. The ledger is the database MemDbgDB (the memdbg crate's `record` module,
 * the `memdbg report` tool).
 *
 * The library, for prc-tools (m68k-palmos-ld reads coff-m68k only):
 *     palm-build lib --manifest-path memdbg/capi-lib/Cargo.toml --format coff -o libmemdbg.a
 * and for GNU C (palm-build c-app) the same without --format coff. Both are built
 * by palm-build's pipeline: LLVM's object code has miscompilations it repairs
 * (README.md, "Toolchain and the compiler bugs").
 *
 * Calling convention. The library's functions are LLVM's extern "C" for the 68000;
 * C compilers for Palm OS call them as follows, and the two agree:
 * - Arguments: pushed right to left, popped by the caller. Every memdbg_* parameter
 *   is a UInt32 or a pointer, 4 bytes on the stack for every compiler: LLVM gives
 *   each argument a 4-byte slot, and prc-tools' gcc 2.95 (16-bit int by default,
 *   -mshort; no promotion of prototyped arguments, PARM_BOUNDARY 16: gcc-2.95.3
 *   gcc/config/m68k/m68kpalmos.h) pushes a UInt32 as 4 bytes but an int or UInt16
 *   as 2. So no parameter here is 16 bits wide, the prototypes are always in scope,
 *   and the macros cast every argument to UInt32 (__LINE__ too).
 * - Results: pointers in A0, integers in D0. prc-tools' gcc reads a pointer result
 *   from A0 only (MASK_RET_PTRS_A0, "because CodeWarrior does": m68kpalmos.h) and an
 *   Err or UInt16 from D0.w; the library returns pointers in A0 and UInt32 values in
 *   D0, whose low 16 bits are the Err the macros cast to.
 * - Registers: prc-tools' gcc treats D0-D2 and A0-A1 as clobbered by a call and keeps
 *   values in D3-D7, A2-A4 and A6 across it (CALL_USED_REGISTERS in m68kpalmos.h); A5
 *   is its globals pointer (FIXED_REGISTERS). The library saves everything it uses of
 *   D2-D7 and A2-A6 and never writes A5 (rustc -C target-feature=+reserve-a5), a
 *   superset of what the caller needs: globals stay reachable through A5 in and
 *   after every call.
 * - Code resources: the functions live in code 1. prc-tools' gcc calls them from code
 *   2..n through its __text__ global (`movea.l __text__(%a5),%a0; adda.l #f,%a0;
 *   jsr (%a0)`), and with palm-build c-app --segments (-msep-data) through the GOT
 *   above A5; either way the return address is in the caller's code resource, which
 *   memdbg records as `segment N + offset` (it notes code 2..n at MemDbgStart).
 * - Strings: memdbg copies the __FILE__ string into its ledger record during the
 *   call (the 31 last bytes), so a file name that lives in code 2..n (prc-tools puts
 *   a function's strings in its section) is never read after the call returns: the
 *   startup code may unlock that code resource after PilotMain.
 * - Call stacks (memdbgCallStacks) follow the A6 frame chain: keep frame pointers
 *   (no -fomit-frame-pointer).
 * Measured: docs/TOOLCHAIN.md, "C calling convention" and "prc-tools' gcc 2.95.3
 * and memdbg's C interface"; docs/PALM_FACTS.md §3.2-§3.3a. Tested: CI builds
 * memdbg/c-sample with GNU C at prc-tools' 16-bit int (-mshort) in prc-tools' layout
 * (globals, two code resources) and runs it in palm-run; the prc-tools build of the
 * same sample was run by hand (README.md, "Using memdbg in a prc-tools C app").
 */
#ifndef MEMDBG_H
#define MEMDBG_H

/* memdbg.h uses the SDK's types and replaces MemoryMgr.h's MemPtrFree macro: included
   first, MemoryMgr.h would redefine MemPtrFree and the prototypes below would not
   parse. memNewChunkFlagPreLock is a #define of MemoryMgr.h (SDK 3.5, 5r3), which
   PalmOS.h includes, and of palm-sys.h. */
#ifndef memNewChunkFlagPreLock
#error "memdbg.h: include PalmOS.h (prc-tools, the Palm OS SDK) or palm-sys.h (GNU C) before memdbg.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Options (the record format's Options bits), for MemDbgStartWith. */
#define memdbgGuards           0x0001UL
#define memdbgCallStacks       0x0002UL
#define memdbgHeapStats        0x0004UL
#define memdbgAlertsAtExit     0x0008UL
#define memdbgDbgMessages      0x0010UL
#define memdbgFillNew          0x0020UL
#define memdbgFillFreed        0x0040UL
#define memdbgPatchFrees       0x0080UL
#define memdbgAlertOverruns    0x0100UL
#define memdbgAlertDoubleFrees 0x0200UL
/* Alerts with ErrDisplayFileLineMsg (the Fatal Alert, for a debug ROM's debugger)
   instead of the ROM's error alert, which returns on every ROM. */
#define memdbgErrDisplayAlerts 0x0400UL
/* At stop, each leak's first bytes (up to 32) into the ledger. */
#define memdbgContents         0x0800UL
/* Patch MemHandleUnlock/MemPtrUnlock while running: an unlock of a tracked handle
   that is not locked is recorded and refused (memErrChunkNotLocked). */
#define memdbgLockChecks       0x1000UL
/* What memdbg_start uses when passed 0. */
#define memdbgDefaults                                                                  \
    (memdbgGuards | memdbgHeapStats | memdbgAlertsAtExit | memdbgDbgMessages |          \
     memdbgPatchFrees | memdbgAlertOverruns | memdbgAlertDoubleFrees | memdbgContents | \
     memdbgLockChecks)

/* Starts the detector (normal launch only, from PilotMain): options 0 = the defaults,
   then the most leak alerts at stop, the most live allocations tracked (0: 512) and
   a largest-free-chunk warning threshold in bytes (0: none). Returns 0, or 1 already
   running, 4 bad settings, 5 no memory, 0x1xxxx a Data Manager error xxxx. */
UInt32 memdbg_start(UInt32 options, UInt32 maxAlerts, UInt32 capacity, UInt32 lowHeapThreshold);
/* Stops it (before PilotMain returns, after the forms are closed): the number of
   leaks, or 0xFFFFFFFF when not running. */
UInt32 memdbg_stop(void);
/* Starts a new generation (memdbg::checkpoint): the allocations after it carry its
   number, and the ledger gets a checkpoint record (ticks, live blocks and bytes,
   counters). Returns the new generation, 1 to 255, or 0x100 plus the error number:
   0x102 not running (before MemDbgStart, after MemDbgStop), 0x103 busy, 0x107
   refused after 255 checkpoints (later allocations stay in generation 255). */
UInt32 memdbg_checkpoint(void);
/* MemPtrNew(size) recorded at file:line; null on failure (nothing recorded). */
MemPtr memdbg_ptr_new(UInt32 size, const Char *file, UInt32 line);
/* MemHandleNew(size) recorded at file:line. */
MemHandle memdbg_handle_new(UInt32 size, const Char *file, UInt32 line);
/* MemChunkNew(heapID, size, attr) recorded at file:line (a pointer with
   memNewChunkFlagNonMovable or memNewChunkFlagPreLock, else a handle). */
MemPtr memdbg_chunk_new(UInt32 heapID, UInt32 size, UInt32 attr, const Char *file, UInt32 line);
/* MemPtrResize / MemHandleResize keeping the block's record: the OS's Err. */
UInt32 memdbg_ptr_resize(MemPtr p, UInt32 size);
UInt32 memdbg_handle_resize(MemHandle h, UInt32 size);
/* MemPtrFree / MemHandleFree, seen even where trap patches are refused; a double
   free of a tracked block is reported and not passed to the OS: the OS's Err. */
UInt32 memdbg_ptr_free(MemPtr p);
UInt32 memdbg_handle_free(MemHandle h);

/* An Err from a memdbg_* result (its low 16 bits), through a function so that a
   statement such as `MemPtrFree (p);` leaves no unused value (-Wall). */
#ifdef __GNUC__
static __inline__ Err MemDbgErr(UInt32 result)
#else
static Err MemDbgErr(UInt32 result)
#endif
{
    return (Err)result;
}

#ifdef MEMDBG
#define MemDbgStart() memdbg_start(0UL, 5UL, 0UL, 0UL)
#define MemDbgStartWith(options) memdbg_start((UInt32)(options), 5UL, 0UL, 0UL)
#define MemDbgStop() memdbg_stop()
#define MemDbgCheckpoint() memdbg_checkpoint()
/* The SDK declares these as functions (MemoryMgr.h) and MemPtrFree as a macro for
   MemChunkFree; palm-sys.h as inline functions and the same macro. */
#undef MemPtrNew
#undef MemHandleNew
#undef MemChunkNew
#undef MemPtrResize
#undef MemHandleResize
#undef MemPtrFree
#undef MemHandleFree
#define MemPtrNew(size) memdbg_ptr_new((UInt32)(size), __FILE__, (UInt32)__LINE__)
#define MemHandleNew(size) memdbg_handle_new((UInt32)(size), __FILE__, (UInt32)__LINE__)
#define MemChunkNew(heapID, size, attr)                                                 \
    memdbg_chunk_new((UInt32)(heapID), (UInt32)(size), (UInt32)(attr), __FILE__,        \
                     (UInt32)__LINE__)
#define MemPtrResize(p, size) MemDbgErr(memdbg_ptr_resize((MemPtr)(p), (UInt32)(size)))
#define MemHandleResize(h, size) MemDbgErr(memdbg_handle_resize((h), (UInt32)(size)))
#define MemPtrFree(p) MemDbgErr(memdbg_ptr_free((MemPtr)(p)))
#define MemHandleFree(h) MemDbgErr(memdbg_handle_free((h)))
#else
#define MemDbgStart() 0UL
#define MemDbgStartWith(options) 0UL
#define MemDbgStop() 0UL
#define MemDbgCheckpoint() 0UL
#endif

#ifdef __cplusplus
}
#endif

#endif /* MEMDBG_H */
