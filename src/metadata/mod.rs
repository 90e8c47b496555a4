//! Decoder for Flink's checkpoint/savepoint `_metadata` files, formats 2 to 7.
//!
//! Byte layout (all big-endian, as written by Java's `DataOutputStream`):
//!
//! ```text
//! i32 magic 0x4960672d | i32 version | i64 checkpoint id
//! i32 n, n × master state (i32 magic 0xc96b1696, i32 length, {i32 version, utf name, i32 len, bytes})
//! i32 n, n × operator:
//!     v5+: utf name, utf uid
//!     16 bytes operator ID, i32 parallelism, i32 max parallelism
//!     v2: i32 chain length | v3+: coordinator stream handle
//!     i32 subtask count (v3+: negative = fully finished), then per subtask:
//!         i32 index (v3+: negative = finished, no state follows)
//!         v2: i64 duration, i32 legacy count
//!         i32 flag [operator handle] (managed), i32 flag [operator handle] (raw)
//!         keyed handle (managed), keyed handle (raw)
//!         v3+: i32 n × input channel handle, i32 n × result subpartition handle
//!         v7: u8 marker [i64 ref checkpoint id when marker == 1]
//! v4+: Java-serialized CheckpointProperties to the end of the file
//! ```
//!
//! [`Decoder`] reads the header and then yields one operator at a time, so a summary of a file of any
//! size holds one operator's handles in memory at once. [`decode`] collects everything.

#![deny(clippy::indexing_slicing, clippy::unwrap_used, clippy::panic)]

mod channel;
pub mod encode;
pub mod error;
mod keyed;
pub mod mutf8;
mod operator;
pub mod reader;
mod stream;
mod trailer;

use crate::model::{
    Flagged, Header, MasterState, Metadata, OperatorId, OperatorState, SubtaskEntry, SubtaskState,
    Tail,
};
use channel::{read_channel_list, ChannelLayout, Direction};
pub use error::{DecodeError, ErrorKind};
use keyed::read_keyed_handle;
use operator::read_operator_handle;
use reader::{Cursor, Result};
use stream::read_stream_handle;

/// `Checkpoints.HEADER_MAGIC_NUMBER`.
pub const MAGIC: u32 = 0x4960_672D;
/// The magic number before each master state.
pub const MASTER_STATE_MAGIC: u32 = 0xC96B_1696;

/// Which Flink releases write a metadata format version.
pub fn writers_of(version: i32) -> &'static str {
    match version {
        0 => "Flink 1.1",
        1 => "Flink 1.2",
        2 => "Flink 1.3 – 1.10",
        3 => "Flink 1.11 – 1.15",
        4 => "Flink 1.16 – 1.20",
        5 => "Flink 2.0",
        6 => "Flink 2.1 – 2.3",
        7 => "Flink after 2.3 (regional checkpoints)",
        _ => "no known Flink release",
    }
}

/// Whether untagged channel-state handles (formats 3–5) start with a subtask index: they do from Flink
/// 1.12 on; unaligned checkpoints written by Flink 1.11 have none. Nothing in the file says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChannelIndex {
    /// With the index; if an operator then fails to decode, without it for the rest of the file.
    #[default]
    Auto,
    /// Always with the index (Flink 1.12+).
    With,
    /// Never (Flink 1.11).
    Without,
}

/// Choices for layouts that the file itself does not announce.
#[derive(Debug, Clone, Copy, Default)]
pub struct DecodeOptions {
    /// The channel-state handle layout.
    pub channel_subtask_index: ChannelIndex,
}

/// Streaming decoder: the header on construction, then operators one at a time, then the tail.
pub struct Decoder<'a> {
    c: Cursor<'a>,
    header: Header,
    options: DecodeOptions,
    next: usize,
    failed: bool,
    /// `ChannelIndex::Auto` fell back to Flink 1.11's channel layout.
    flink_1_11_channels: bool,
}

impl<'a> Decoder<'a> {
    /// Reads the header of `bytes`, which must be a whole `_metadata` file.
    pub fn new(bytes: &'a [u8], options: DecodeOptions) -> Result<Self> {
        let mut c = Cursor::new(bytes);
        let magic = c.i32()? as u32;
        if magic != MAGIC {
            return Err(c.error_at(0, ErrorKind::BadMagic(magic)));
        }
        let version = c.i32()?;
        if !(2..=7).contains(&version) {
            return Err(c.error_at(4, ErrorKind::UnsupportedVersion(version)));
        }
        let at = c.offset();
        let checkpoint_id = c.i64()?;
        if checkpoint_id < 0 {
            return Err(c.error_at(
                at,
                ErrorKind::Negative {
                    what: "checkpoint id",
                    value: checkpoint_id,
                },
            ));
        }
        let master_states = c.within("master_states", |c| {
            let n = c.count("master state count", 8)?;
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                c.enter_index(i);
                out.push(read_master_state(c)?);
                c.leave();
            }
            Ok(out)
        })?;
        let min_operator = match version {
            2 => 32,
            3 | 4 => 29,
            _ => 33,
        };
        let operator_count = c.count("operator count", min_operator)?;
        let header = Header {
            version,
            checkpoint_id,
            master_states,
            operator_count,
        };
        Ok(Decoder {
            c,
            header,
            options,
            next: 0,
            failed: false,
            flink_1_11_channels: false,
        })
    }

    /// Whether the file turned out to be an unaligned checkpoint of Flink 1.11 (channel-state handles
    /// without subtask index), with `ChannelIndex::Auto`.
    pub fn used_flink_1_11_channel_layout(&self) -> bool {
        self.flink_1_11_channels
    }

    /// Byte offset of the next operator record (or of the tail, after the last one).
    pub fn offset(&self) -> u64 {
        self.c.offset()
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Reads what follows the operators. Call after the last operator.
    pub fn finish(mut self) -> Result<Tail> {
        for op in self.by_ref() {
            op?;
        }
        if self.header.version >= 4 {
            let (trailer, ignored_bytes) = trailer::read_trailer(&mut self.c)?;
            Ok(Tail {
                trailer: Some(trailer),
                ignored_bytes,
            })
        } else {
            Ok(Tail {
                trailer: None,
                ignored_bytes: self.c.remaining() as u64,
            })
        }
    }

    fn read_operator(&mut self) -> Result<OperatorState> {
        let version = self.header.version;
        let c = &mut self.c;
        let offset = c.offset();
        let (name, uid) = if version >= 5 {
            let name = c.within("name", |c| c.utf())?;
            let uid = c.within("uid", |c| c.utf())?;
            (
                Some(name).filter(|s| !s.is_empty()),
                Some(uid).filter(|s| !s.is_empty()),
            )
        } else {
            (None, None)
        };
        let id = OperatorId(c.id16()?);
        let parallelism = c.i32()?;
        let max_parallelism = c.i32()?;
        let (legacy_chain_length, coordinator_state) = if version == 2 {
            (Some(c.i32()?), None)
        } else {
            let at = c.offset();
            let h = c.within("coordinator_state", |c| read_stream_handle(c, 0))?;
            if !matches!(
                h,
                None | Some(crate::model::StreamHandle::ByteStream { .. })
            ) {
                return Err(c.error_at(
                    at,
                    ErrorKind::BadValue {
                        what: "coordinator state handle tag",
                        value: h.as_ref().map_or(0, |h| i64::from(h.tag())),
                        expected: "0 (none) or 1 (inline bytes)",
                    },
                ));
            }
            (None, h)
        };
        let count_at = c.offset();
        let subtask_count = c.i32()?;
        let n = if subtask_count < 0 {
            0
        } else {
            c.check_count(count_at, "subtask count", i64::from(subtask_count), 4)?
        };
        let layout = ChannelLayout {
            tagged: version >= 6,
            subtask_index: match self.options.channel_subtask_index {
                ChannelIndex::With => true,
                ChannelIndex::Without => false,
                ChannelIndex::Auto => !self.flink_1_11_channels,
            },
        };
        let mut subtasks = Vec::with_capacity(n);
        c.enter("subtasks");
        for i in 0..n {
            c.enter_index(i);
            let stored_index = c.i32()?;
            let state = if version == 2 || stored_index >= 0 {
                Some(read_subtask(c, version, layout)?)
            } else {
                None
            };
            subtasks.push(SubtaskEntry {
                stored_index,
                state,
            });
            c.leave();
        }
        c.leave();
        Ok(OperatorState {
            offset,
            name,
            uid,
            id,
            parallelism,
            max_parallelism,
            legacy_chain_length,
            coordinator_state,
            subtask_count,
            subtasks,
        })
    }
}

impl Iterator for Decoder<'_> {
    type Item = Result<OperatorState>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.next >= self.header.operator_count {
            return None;
        }
        let i = self.next;
        self.next += 1;
        let (start, depth) = (self.c.position(), self.c.depth());
        self.c.enter("operators");
        self.c.enter_index(i);
        let mut out = self.read_operator();
        let retry = out.is_err()
            && self.options.channel_subtask_index == ChannelIndex::Auto
            && !self.flink_1_11_channels
            && (3..=5).contains(&self.header.version);
        if retry {
            // Perhaps an unaligned checkpoint of Flink 1.11: its channel handles have no subtask index.
            self.c.rewind(start);
            self.c.truncate_path(depth);
            self.c.enter("operators");
            self.c.enter_index(i);
            self.flink_1_11_channels = true;
            match self.read_operator() {
                Ok(op) => out = Ok(op),
                Err(_) => self.flink_1_11_channels = false, // keep the first error
            }
        }
        self.c.leave();
        self.c.leave();
        self.failed = out.is_err();
        Some(out)
    }
}

fn read_master_state(c: &mut Cursor<'_>) -> Result<MasterState> {
    let at = c.offset();
    let magic = c.i32()? as u32;
    if magic != MASTER_STATE_MAGIC {
        return Err(c.error_at(
            at,
            ErrorKind::BadValue {
                what: "master state magic",
                value: i64::from(magic),
                expected: "0xc96b1696",
            },
        ));
    }
    let len_at = c.offset();
    let len = c.i32()?;
    if len <= 0 {
        return Err(c.error_at(
            len_at,
            ErrorKind::BadValue {
                what: "master state length",
                value: i64::from(len),
                expected: "more than 0",
            },
        ));
    }
    let blob_at = c.offset();
    let blob = c.bytes(len as usize)?;
    let mut b = Cursor::nested(blob, blob_at, c);
    let version = b.i32()?;
    let name = b.utf()?;
    let payload = b.byte_array("master state payload length")?.to_vec();
    if b.remaining() != 0 {
        return Err(b.error(ErrorKind::BadValue {
            what: "bytes left in the master state",
            value: b.remaining() as i64,
            expected: "0",
        }));
    }
    Ok(MasterState {
        version,
        name,
        payload,
    })
}

fn read_flagged<T>(
    c: &mut Cursor<'_>,
    field: &'static str,
    read: impl FnOnce(&mut Cursor<'_>) -> Result<Option<T>>,
) -> Result<Flagged<T>> {
    c.within(field, |c| {
        let flag = c.i32()?;
        let handle = if flag != 0 { read(c)? } else { None };
        Ok(Flagged { flag, handle })
    })
}

fn read_subtask(c: &mut Cursor<'_>, version: i32, layout: ChannelLayout) -> Result<SubtaskState> {
    let legacy_v2 = if version == 2 {
        let duration = c.i64()?;
        let at = c.offset();
        let legacy = c.i32()?;
        if legacy > 0 {
            return Err(c.error_at(
                at,
                ErrorKind::BadValue {
                    what: "legacy (Checkpointed interface) state count",
                    value: i64::from(legacy),
                    expected: "0: state of the pre-1.3 Checkpointed interface cannot be restored",
                },
            ));
        }
        Some((duration, legacy))
    } else {
        None
    };
    let managed_operator_state = read_flagged(c, "managed_operator_state", read_operator_handle)?;
    let raw_operator_state = read_flagged(c, "raw_operator_state", read_operator_handle)?;
    let managed_keyed_state = c.within("managed_keyed_state", |c| read_keyed_handle(c, 0))?;
    let raw_keyed_state = c.within("raw_keyed_state", |c| read_keyed_handle(c, 0))?;
    let (input_channel_state, result_subpartition_state) = if version >= 3 {
        (
            c.within("input_channel_state", |c| {
                read_channel_list(c, Direction::Input, layout)
            })?,
            c.within("result_subpartition_state", |c| {
                read_channel_list(c, Direction::Output, layout)
            })?,
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let ref_checkpoint = if version >= 7 {
        let marker = c.u8()?;
        Some((marker, if marker == 1 { Some(c.i64()?) } else { None }))
    } else {
        None
    };
    Ok(SubtaskState {
        legacy_v2,
        managed_operator_state,
        raw_operator_state,
        managed_keyed_state,
        raw_keyed_state,
        input_channel_state,
        result_subpartition_state,
        ref_checkpoint,
    })
}

/// Decodes a whole `_metadata` file.
pub fn decode(bytes: &[u8], options: DecodeOptions) -> Result<Metadata> {
    let mut d = Decoder::new(bytes, options)?;
    let header = d.header().clone();
    let mut operators = Vec::with_capacity(header.operator_count);
    for op in d.by_ref() {
        operators.push(op?);
    }
    let tail = d.finish()?;
    Ok(Metadata {
        header,
        operators,
        tail,
    })
}
