//! A bounds-checked big-endian cursor over the bytes of a `_metadata` file.
//!
//! Every read advances and returns `Result`; nothing indexes past the end, and every count read from the
//! file is checked against the bytes that remain before anything is allocated for it.

use super::error::{render_path, DecodeError, ErrorKind, Seg};
use super::mutf8;

/// Reads Java `DataOutputStream` values from a byte slice, tracking where in the structure it is.
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// Added to `pos` in error offsets, for cursors over a part of the file.
    base: u64,
    path: Vec<Seg>,
}

/// Shorthand for results of decoding.
pub type Result<T> = std::result::Result<T, DecodeError>;

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Cursor {
            data,
            pos: 0,
            base: 0,
            path: Vec::new(),
        }
    }

    /// A cursor over `data`, which starts at `base` in the file, with the context path of `parent`.
    pub fn nested(data: &'a [u8], base: u64, parent: &Cursor<'_>) -> Self {
        Cursor {
            data,
            pos: 0,
            base,
            path: parent.path.clone(),
        }
    }

    /// Offset in the file of the next byte to read.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Bytes left to read.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// The unread bytes.
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    /// Enters a named part of the structure (for error messages).
    pub fn enter(&mut self, field: &'static str) {
        self.path.push(Seg::Field(field));
    }

    /// Enters element `i` of a list (for error messages).
    pub fn enter_index(&mut self, i: usize) {
        self.path
            .push(Seg::Index(u32::try_from(i).unwrap_or(u32::MAX)));
    }

    /// How deep in the structure the cursor is (for `truncate_path`).
    pub fn depth(&self) -> usize {
        self.path.len()
    }

    /// Goes back to a depth returned by `depth` (after an error left entered parts behind).
    pub fn truncate_path(&mut self, depth: usize) {
        self.path.truncate(depth);
    }

    /// Leaves what the last `enter` entered.
    pub fn leave(&mut self) {
        self.path.pop();
    }

    /// Runs `f` inside the named part of the structure.
    pub fn within<T>(
        &mut self,
        field: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.enter(field);
        let out = f(self)?;
        self.leave();
        Ok(out)
    }

    /// An error at `offset` with the current context path.
    pub fn error_at(&self, offset: u64, kind: ErrorKind) -> DecodeError {
        DecodeError {
            offset,
            context: render_path(&self.path),
            kind,
        }
    }

    /// An error at the current offset.
    pub fn error(&self, kind: ErrorKind) -> DecodeError {
        self.error_at(self.offset(), kind)
    }

    /// Moves back to an earlier position (for layouts that must be tried in turn).
    pub fn rewind(&mut self, pos: usize) {
        self.pos = pos.min(self.data.len());
    }

    /// Position within this cursor's slice, for `rewind`.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Takes the next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        match self.data.get(self.pos..).and_then(|r| r.get(..n)) {
            Some(b) => {
                self.pos += n;
                Ok(b)
            }
            None => Err(self.error(ErrorKind::Truncated {
                need: n as u64,
                have: self.remaining() as u64,
            })),
        }
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let b = self.bytes(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    /// A big-endian unsigned 16-bit value.
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    /// A big-endian signed 32-bit value.
    pub fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    /// A big-endian signed 64-bit value.
    pub fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// 16 raw bytes (an operator ID).
    pub fn id16(&mut self) -> Result<[u8; 16]> {
        self.array()
    }

    /// A Java `writeUTF` string: u16 length, then modified UTF-8.
    pub fn utf(&mut self) -> Result<String> {
        let start = self.offset();
        let len = self.u16()? as usize;
        let raw = self.bytes(len)?;
        mutf8::decode(raw).map_err(|(at, reason)| {
            self.error_at(start + 2 + at as u64, ErrorKind::BadString { reason })
        })
    }

    /// An `i32` count of elements, each at least `min_size` bytes long, checked against what remains
    /// so that a corrupt count can never cause a large allocation.
    pub fn count(&mut self, what: &'static str, min_size: u64) -> Result<usize> {
        let start = self.offset();
        let n = self.i32()?;
        self.check_count(start, what, i64::from(n), min_size)
    }

    /// Checks a count already read at `start` (see [`Cursor::count`]).
    pub fn check_count(
        &self,
        start: u64,
        what: &'static str,
        n: i64,
        min_size: u64,
    ) -> Result<usize> {
        if n < 0 {
            return Err(self.error_at(start, ErrorKind::Negative { what, value: n }));
        }
        let need = (n as u64).saturating_mul(min_size);
        if need > self.remaining() as u64 {
            return Err(self.error_at(
                start,
                ErrorKind::CountTooLarge {
                    what,
                    count: n,
                    min_bytes: need,
                    remaining: self.remaining() as u64,
                },
            ));
        }
        Ok(n as usize)
    }

    /// An `i32` length followed by that many bytes.
    pub fn byte_array(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let n = self.count(what, 1)?;
        self.bytes(n)
    }

    /// A list of `i64`s preceded by its `i32` count.
    pub fn i64_list(&mut self, what: &'static str) -> Result<Vec<i64>> {
        let n = self.count(what, 8)?;
        self.i64s(n)
    }

    /// `n` big-endian `i64`s (the caller has checked `n` against the remaining bytes).
    pub fn i64s(&mut self, n: usize) -> Result<Vec<i64>> {
        let raw = self.bytes(n.saturating_mul(8))?;
        Ok(raw
            .chunks_exact(8)
            .map(|c| i64::from_be_bytes(c.try_into().unwrap_or_default()))
            .collect())
    }
}
