/*
 * memdbg.h's macros, each called once from its own function, for memdbg's header
 * test (memdbg/tests/c_header.rs): compiled after a stand-in PalmOS.h
 * (tests/stand-in-sdk/declarations) with GNU C's 32-bit int and with prc-tools'
 * 16-bit int (-mshort), and run in a 68000 harness whose memdbg_* functions are
 * stubs (stubs.s) that report the argument bytes they got. Arguments are written
 * as a C programmer would (int literals, a UInt16 variable), so that any argument
 * the header did not widen to 4 bytes shows.
 */
#include <PalmOS.h>
#define MEMDBG 1
#include "memdbg.h"

#define T(name) __attribute__((section(".text.palm_entry"), noinline)) UInt32 name(void)

T(t_ptr_new) { return (UInt32)MemPtrNew(300); }
T(t_handle_new) { UInt16 n = 40; return (UInt32)MemHandleNew(n); }
T(t_chunk_new) { return (UInt32)MemChunkNew(1, 1000, memNewChunkFlagNonMovable); }
T(t_ptr_resize) { return MemPtrResize((MemPtr)0x1234, 64); }
T(t_handle_resize) { return MemHandleResize((MemHandle)0x2346, 70000L); }
T(t_ptr_free) { return MemPtrFree((MemPtr)0x3456); }
T(t_handle_free) { return MemHandleFree((MemHandle)0x4568); }
T(t_start) { return MemDbgStart(); }
T(t_start_with) { return MemDbgStartWith(memdbgDefaults | memdbgCallStacks); }
T(t_stop) { return MemDbgStop(); }
T(t_checkpoint) { return MemDbgCheckpoint(); }
