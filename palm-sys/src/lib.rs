//! Palm OS 68k types, constants, trap numbers and trap-call glue (no_std).
