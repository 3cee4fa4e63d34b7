//! Repairs known LLVM m68k miscompilations in rustc --emit=asm output for the MC68000.
