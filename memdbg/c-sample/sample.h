/*
 * MemDbgSample: memdbg in a Palm OS C application as prc-tools builds it: the
 * SDK's PalmOS.h, initialised globals, and a second code resource ("seg2" in
 * MemDbgSample.def: code 2).
 */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <PalmOS.h>
#include "memdbg.h" /* after PalmOS.h */

/* Functions in code 2 (prc-tools' multiple code sections). */
#define SEG2 __attribute__ ((section ("seg2")))

MemPtr MakeRecord (UInt32 size) SEG2;

extern Int16 gRecordSize;
extern Char gTitle[16];

#endif
