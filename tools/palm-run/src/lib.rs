//! A headless Palm OS for running 68k PRCs in tests and CI.
