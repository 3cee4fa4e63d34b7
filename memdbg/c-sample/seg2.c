/* Code 2: a record with the title, which its caller forgets. */
#include "sample.h"

MemPtr MakeRecord (UInt32 size)
{
  Char *r = MemPtrNew (size + StrLen (gTitle)); /* @mark seg2-leak */
  if (r)
    StrCopy (r, gTitle);
  return r;
}
