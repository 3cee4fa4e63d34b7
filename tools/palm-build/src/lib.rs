//! Builds no_std Rust into a Palm OS PRC through a verified MC68000 pipeline.
