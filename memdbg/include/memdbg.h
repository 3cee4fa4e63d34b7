/*
 * memdbg.h: memdbg for Palm OS applications written in C (prc-tools, CodeWarrior).
 *
 * Build the library with palm-build's pipeline (LLVM's object code has
 * miscompilations the pipeline repairs; README.md, Limitations):
 *     palm-build lib --manifest-path memdbg/capi-lib/Cargo.toml -o libmemdbg.a
 * Verified: memdbg/tests/c_app.rs compiles a C app with m68k-linux-gnu-gcc
 * (-m68000 -Os -mpcrel -ffixed-a5), links it with that archive, runs it in palm-run
 * and checks the ledger: one MemPtrNew leak with its __FILE__, __LINE__ and size;
 * a block resized with MemPtrResize and a MemHandleNew handle, both freed through
 * the traps, counted and not reported. Other C compilers were not tried. Include this
 * header after PalmOS.h, or for GNU C after palm-sys/include/palm-sys.h (`palm-build
 * new --c` makes an app that does). With MEMDBG defined, MemPtrNew, MemHandleNew and
 * MemChunkNew are recorded with __FILE__ and __LINE__, the resize calls keep their
 * records, and MemDbgStart/MemDbgStop run the detector; without it, everything
 * compiles to the plain calls. The ledger is the database MemDbgDB; see the memdbg
 * crate documentation for its format and the `memdbg report` tool.
 *
 * Every parameter of the memdbg_* functions is 32 bits wide, so Palm's C calling
 * convention (16-bit values in 2-byte stack slots) and the library's agree. Pointers
 * are returned in A0 (where gcc and Palm compilers read them); the library preserves
 * D2-D7 and A2-A6 and never writes A5 (measured: docs/TOOLCHAIN.md).
 */
#ifndef MEMDBG_H
#define MEMDBG_H

#ifdef __cplusplus
extern "C" {
#endif

/* Options (the record format's Options bits). 0 passed to memdbg_start means the
   defaults: GUARDS | HEAP_STATS | ALERTS_AT_EXIT | DBG_MESSAGES | PATCH_FREES |
   ALERT_OVERRUNS | ALERT_DOUBLE_FREES. */
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

/* 0, or 1 already running, 4 bad settings, 5 no memory, 0x1xxxx Data Manager error. */
UInt32 memdbg_start(UInt32 options, UInt32 maxAlerts, UInt32 capacity, UInt32 lowHeapThreshold);
/* The number of leaks, or 0xFFFFFFFF when not running. */
UInt32 memdbg_stop(void);
MemPtr memdbg_ptr_new(UInt32 size, const Char *file, UInt32 line);
MemHandle memdbg_handle_new(UInt32 size, const Char *file, UInt32 line);
MemPtr memdbg_chunk_new(UInt32 heapID, UInt32 size, UInt32 attr, const Char *file, UInt32 line);
UInt32 memdbg_ptr_resize(MemPtr p, UInt32 size);
UInt32 memdbg_handle_resize(MemHandle h, UInt32 size);
UInt32 memdbg_ptr_free(MemPtr p);
UInt32 memdbg_handle_free(MemHandle h);

#ifdef MEMDBG
#define MemDbgStart() memdbg_start(0, 5, 0, 0)
#define MemDbgStop() memdbg_stop()
#undef MemPtrNew
#define MemPtrNew(size) memdbg_ptr_new((UInt32)(size), __FILE__, (UInt32)__LINE__)
#define MemHandleNew(size) memdbg_handle_new((UInt32)(size), __FILE__, (UInt32)__LINE__)
#define MemChunkNew(heap, size, attr) \
    memdbg_chunk_new((UInt32)(heap), (UInt32)(size), (UInt32)(attr), __FILE__, (UInt32)__LINE__)
#define MemPtrResize(p, size) ((Err)memdbg_ptr_resize((p), (UInt32)(size)))
#define MemHandleResize(h, size) ((Err)memdbg_handle_resize((h), (UInt32)(size)))
#else
#define MemDbgStart() 0
#define MemDbgStop() 0
#endif

#ifdef __cplusplus
}
#endif

#endif /* MEMDBG_H */
