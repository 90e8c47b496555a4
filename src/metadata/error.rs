//! Decode errors: where in the file, where in the structure, and what was expected.

use std::fmt;

/// One step of the path from the file's root to the structure being read when an error occurred.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg {
    /// A named field, e.g. `managed_keyed_state`.
    Field(&'static str),
    /// An element of a list.
    Index(u32),
}

/// Renders a context path as `operators[3].subtasks[1].managed_keyed_state`.
pub(crate) fn render_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Field(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Seg::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    out
}

/// What was wrong at the error's offset.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are named for what they hold
pub enum ErrorKind {
    /// The file ends before a value of `need` bytes could be read.
    Truncated { need: u64, have: u64 },
    /// The first four bytes are not Flink's metadata magic number.
    BadMagic(u32),
    /// A metadata format version this tool does not read.
    UnsupportedVersion(i32),
    /// A handle tag that is not defined in its context.
    UnknownTag { context: &'static str, tag: u8 },
    /// A count or length that is negative where Flink requires it not to be.
    Negative { what: &'static str, value: i64 },
    /// A count whose elements cannot fit in the bytes that remain.
    CountTooLarge {
        what: &'static str,
        count: i64,
        min_bytes: u64,
        remaining: u64,
    },
    /// A string that is not valid Java modified UTF-8.
    BadString { reason: &'static str },
    /// A value outside the range Flink accepts.
    BadValue {
        what: &'static str,
        value: i64,
        expected: &'static str,
    },
    /// The Java serialization trailer is malformed.
    BadTrailer(String),
    /// Well-formed, but a construct this tool does not read.
    Unsupported(String),
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Truncated { need, have } => {
                write!(
                    f,
                    "file ends early: expected {need} more bytes, found {have}"
                )
            }
            ErrorKind::BadMagic(m) => write!(
                f,
                "not a Flink _metadata file: expected magic number 0x4960672d, found 0x{m:08x}"
            ),
            ErrorKind::UnsupportedVersion(v) => match v {
                0 => write!(f, "metadata format version 0 (Flink 1.1) is not supported"),
                1 => write!(f, "metadata format version 1 (Flink 1.2) is not supported"),
                _ => write!(f, "unknown metadata format version {v}: expected 2 to 7"),
            },
            ErrorKind::UnknownTag { context, tag } => {
                write!(f, "unknown {context} tag {tag} (0x{tag:02x})")
            }
            ErrorKind::Negative { what, value } => {
                write!(f, "negative {what} {value}: expected 0 or more")
            }
            ErrorKind::CountTooLarge {
                what,
                count,
                min_bytes,
                remaining,
            } => write!(
                f,
                "{what} {count} needs at least {min_bytes} bytes but only {remaining} remain"
            ),
            ErrorKind::BadString { reason } => write!(f, "invalid modified UTF-8 string: {reason}"),
            ErrorKind::BadValue {
                what,
                value,
                expected,
            } => {
                write!(f, "{what} is {value}: expected {expected}")
            }
            ErrorKind::BadTrailer(msg) => write!(f, "bad checkpoint-properties trailer: {msg}"),
            ErrorKind::Unsupported(what) => write!(f, "unsupported: {what}"),
        }
    }
}

/// A structural error in a `_metadata` file. Decoding stops at the first one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset in the file where the bad value starts.
    pub offset: u64,
    /// Where in the structure, e.g. `operators[3].subtasks[1].managed_keyed_state`.
    pub context: String,
    /// What was wrong.
    pub kind: ErrorKind,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte offset {} (0x{:x})", self.offset, self.offset)?;
        if !self.context.is_empty() {
            write!(f, " in {}", self.context)?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for DecodeError {}
