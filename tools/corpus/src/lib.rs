//! Differential test corpus: functions run both on the host and in the 68000 emulator.
