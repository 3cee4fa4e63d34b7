/*
 * MemDbgSample's code 1: PilotMain runs memdbg around four mistakes, then
 * returns the number of leaks memdbg found (3). The lines memdbg reports are
 * marked @mark (memdbg's CI test reads them).
 */
#include "sample.h"

/* Initialised globals: data 0, and pointers the startup code relocates. */
Int16 gRecordSize = 24;
Char gTitle[16] = "MemDbgSample";
Char *gTitleP = gTitle;
MemPtr (*gMake) (UInt32) = MakeRecord;

static void Leak (void)
{
  MemPtr p = MemPtrNew (16);          /* @mark pointer-leak */
  MemHandle h = MemHandleNew (32);    /* @mark handle-leak */

  ((UInt8 *) p)[0] = 1;
  (void) h;
}

static void Overrun (void)
{
  Char *s = MemPtrNew (8);            /* @mark overrun */

  StrCopy (s, "12345678");            /* 9 bytes with the NUL */
  MemPtrFree (s);                     /* @mark overrun-free */
}

static void DoubleFree (void)
{
  MemPtr p = MemPtrNew (20);          /* @mark double-free */

  MemPtrFree (p);                     /* @mark first-free */
  MemPtrFree (p);                     /* @mark second-free */
}

UInt32 PilotMain (UInt16 cmd, MemPtr cmdPBP, UInt16 launchFlags)
{
  UInt32 leaks;

  (void) cmdPBP;
  (void) launchFlags;
  if (cmd != sysAppLaunchCmdNormalLaunch)
    return 0;
  if (gMake != MakeRecord || gTitleP != gTitle)
    return 100;                       /* the globals were not relocated */
  if (MemDbgStartWith (memdbgDefaults | memdbgCallStacks) != 0)
    return 101;
  Leak ();
  Overrun ();
  DoubleFree ();
  MakeRecord (gRecordSize);           /* leaks 24 + 12 bytes in code 2 */
  leaks = MemDbgStop ();
  return leaks;
}
