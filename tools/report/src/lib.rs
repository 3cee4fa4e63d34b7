//! The memdbg host tool: reads MemDbgDB and prints a leak report.
