//! memdbg: a memory-leak detector for Palm OS 68k applications (no_std).
