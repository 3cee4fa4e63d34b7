/*
 * A stand-in for the Palm OS SDK's PalmOS.h for memdbg's header test
 * (memdbg/tests/c_header.rs): our own text with the SDK's names and types for the
 * part memdbg.h touches, declared the way the SDK declares them (3.5 and 5r3:
 * PalmTypes.h, CoreTraps.h, MemoryMgr.h): the Memory Manager calls as prototypes
 * with a SYS_TRAP attribute (empty here: GNU C has no prc-tools callseq, and the
 * test links no OS) and MemPtrFree as a macro for MemChunkFree. None of them is
 * defined, so a call that memdbg.h does not route to its memdbg_* functions is an
 * undefined symbol at link time.
 */
#ifndef MEMDBG_STAND_IN_PALMOS_H
#define MEMDBG_STAND_IN_PALMOS_H

/* PalmTypes.h */
typedef unsigned char UInt8;
typedef unsigned short UInt16;
typedef short Int16;
typedef unsigned long UInt32;
typedef long Int32;
typedef unsigned char Boolean;
typedef char Char;
typedef UInt16 Err;
typedef void *MemPtr;
typedef struct _opaque *MemHandle;

#define SYS_TRAP(trapNum)

/* CoreTraps.h */
#define sysTrapMemChunkNew 0xA011
#define sysTrapMemChunkFree 0xA012
#define sysTrapMemPtrNew 0xA013
#define sysTrapMemPtrResize 0xA01C
#define sysTrapMemHandleNew 0xA01E
#define sysTrapMemHandleFree 0xA02B
#define sysTrapMemHandleResize 0xA033

/* MemoryMgr.h */
#define memNewChunkFlagPreLock 0x0100
#define memNewChunkFlagNonMovable 0x0200

MemPtr MemChunkNew(UInt16 heapID, UInt32 size, UInt16 attr) SYS_TRAP(sysTrapMemChunkNew);
Err MemChunkFree(MemPtr chunkDataP) SYS_TRAP(sysTrapMemChunkFree);
MemPtr MemPtrNew(UInt32 size) SYS_TRAP(sysTrapMemPtrNew);
#define MemPtrFree(p) MemChunkFree(p)
Err MemPtrResize(MemPtr p, UInt32 newSize) SYS_TRAP(sysTrapMemPtrResize);
MemHandle MemHandleNew(UInt32 size) SYS_TRAP(sysTrapMemHandleNew);
Err MemHandleFree(MemHandle h) SYS_TRAP(sysTrapMemHandleFree);
Err MemHandleResize(MemHandle h, UInt32 newSize) SYS_TRAP(sysTrapMemHandleResize);

#endif
