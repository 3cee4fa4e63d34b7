//! [`InputError`]: why a ledger, an ELF or a suppression file could not be used.

use std::fmt;

use crate::text::Esc;

/// Why an input could not be used (exit status 2 in the `memdbg` binary).
///
/// Always names the file; `offset` is the byte offset in that file of what is
/// wrong when one is known, `line` its line in a text file. For a database
/// inside a CloudpilotEmu backup, `file` is `backup.zip (MemDbgDB.pdb)` and
/// `offset` is inside the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The file, as given on the command line (plus the zip member, if any).
    pub file: String,
    /// Byte offset in `file` (for a zip member: in the member) of the bad data.
    pub offset: Option<u64>,
    /// Line number in `file`, from 1, for a text file (a suppression file);
    /// shown as `file:line: message`.
    pub line: Option<u32>,
    /// What is wrong, in words.
    pub message: String,
}

impl InputError {
    /// An error at `offset` of `file` where it is known (a record read from the
    /// file itself), else one about the whole file (a record from a backup's
    /// index, without file offsets).
    pub fn at_or_whole(file: &str, offset: Option<u64>, message: impl Into<String>) -> Self {
        match offset {
            Some(o) => Self::at(file, o, message),
            None => Self::whole(file, message),
        }
    }

    /// An error at a known offset of `file`.
    pub fn at(file: &str, offset: u64, message: impl Into<String>) -> Self {
        InputError {
            file: file.to_string(),
            offset: Some(offset),
            line: None,
            message: message.into(),
        }
    }

    /// An error about `file` as a whole.
    pub fn whole(file: &str, message: impl Into<String>) -> Self {
        InputError {
            file: file.to_string(),
            offset: None,
            line: None,
            message: message.into(),
        }
    }

    /// An error at line `line` (from 1) of the text file `file`.
    pub fn at_line(file: &str, line: u32, message: impl Into<String>) -> Self {
        InputError {
            file: file.to_string(),
            offset: None,
            line: Some(line),
            message: message.into(),
        }
    }
}

/// `file: offset 0x…: message`; control characters in the file name and the
/// message (which may quote names from the input: a database's, a zip
/// member's, an app's) are escaped as `\x1b`, so that printing the error does
/// not send them to the terminal. The fields keep them as they are.
impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (file, message) = (Esc(&self.file), Esc(&self.message));
        match (self.line, self.offset) {
            (Some(l), _) => write!(f, "{file}:{l}: {message}"),
            (None, Some(o)) => write!(f, "{file}: offset 0x{o:X}: {message}"),
            (None, None) => write!(f, "{file}: {message}"),
        }
    }
}

impl std::error::Error for InputError {}
