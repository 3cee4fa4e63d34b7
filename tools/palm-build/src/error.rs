//! Which errors are the user's input: `palm-build` exits 2 for those (as
//! `palm-rcp`, `palm-run` and `memdbg report` do for bad input) and 1 for a
//! build that failed.
//!
//! Bad input is what the user gave or set up: arguments, a manifest or its
//! `[package.metadata.palm]` settings, the workspace's toolchain file,
//! profile and `cargo-features` ([`crate::setup`]), a `.rcp`, files that do
//! not exist or are not what they should be, and missing tools (binutils,
//! cargo). A failed build is everything after that: rustc's errors, an
//! unrepairable miscompilation, a link error, an image the verifier rejects.

use std::fmt;

/// An error marked as bad input (exit status 2). Its message is the marked
/// error's, with its causes (`{:#}`); [`is_bad_input`] finds the mark under
/// any context added later.
#[derive(Debug)]
pub struct BadInput(pub anyhow::Error);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for BadInput {}

/// Marks `e` as bad input.
pub fn bad_input(e: impl Into<anyhow::Error>) -> anyhow::Error {
    anyhow::Error::new(BadInput(e.into()))
}

/// Whether `e`, or an error it wraps, is marked as bad input.
pub fn is_bad_input(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.is::<BadInput>())
}

/// `anyhow::bail!` for bad input: returns a [`BadInput`] error made with
/// `format!`'s arguments.
#[macro_export]
#[doc(hidden)]
macro_rules! bail_input {
    ($($arg:tt)*) => {
        return Err($crate::error::bad_input(anyhow::anyhow!($($arg)*)))
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn the_mark_survives_context_and_keeps_the_message() {
        let e = bad_input(anyhow::anyhow!("inner").context("middle"));
        assert_eq!(e.to_string(), "middle: inner");
        let outer = Err::<(), _>(e).context("outer").unwrap_err();
        assert!(is_bad_input(&outer));
        assert_eq!(format!("{outer:#}"), "outer: middle: inner");
        assert!(!is_bad_input(&anyhow::anyhow!("a failed build")));
    }
}
