/*
 * A stand-in for the Palm OS SDK's PalmOS.h that lets sources written for
 * prc-tools (memdbg/c-sample) compile unchanged with Debian's GNU C, for memdbg's
 * CI, which has neither the SDK nor prc-tools. Our own text, not the SDK's: the
 * SDK's names, types and system calls come from palm-sys/include/palm-sys.h
 * (generated from palm-sys/traps.tbl, each call with its SDK 3.5 prototype and
 * Palm's argument layout), which also defines MemoryMgr.h's MemPtrFree macro as the
 * SDK does. Compile with palm_build::segments::GCC_FLAGS (-mshort: prc-tools'
 * 16-bit int) and -I for this directory and for palm-sys/include.
 */
#ifndef MEMDBG_STAND_IN_PALMOS_H
#define MEMDBG_STAND_IN_PALMOS_H

#include "palm-sys.h"

#endif
