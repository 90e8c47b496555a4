//! Channel state handles of unaligned checkpoints: untagged in formats 3–5, tagged in 6+.

use super::error::ErrorKind;
use super::reader::{Cursor, Result};
use super::stream::read_stream_handle;
use crate::model::ChannelHandle;

/// Which channel list is being read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Input channels (C5).
    Input,
    /// Result subpartitions (C6).
    Output,
}

/// How channel handles are laid out.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ChannelLayout {
    /// Format 6+: each handle starts with a tag.
    pub tagged: bool,
    /// Flink 1.12+: untagged handles start with the subtask index (Flink 1.11 wrote none).
    pub subtask_index: bool,
}

/// Reads a list of channel handles.
pub fn read_channel_list(
    c: &mut Cursor<'_>,
    dir: Direction,
    layout: ChannelLayout,
) -> Result<Vec<ChannelHandle>> {
    // Smallest element: untagged without subtask index = 8 info + 4 count + 8 size + 1 tag.
    let n = c.count("channel state handle count", 21)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        c.enter_index(i);
        out.push(read_channel_handle(c, dir, layout)?);
        c.leave();
    }
    Ok(out)
}

fn read_channel_handle(
    c: &mut Cursor<'_>,
    dir: Direction,
    layout: ChannelLayout,
) -> Result<ChannelHandle> {
    if !layout.tagged {
        return read_single(c, None, layout.subtask_index);
    }
    let at = c.offset();
    let tag = c.u8()?;
    match (dir, tag) {
        (Direction::Input, 1) | (Direction::Output, 2) => read_single(c, Some(tag), true),
        (Direction::Input, 3) | (Direction::Output, 4) => read_merged(c, tag),
        _ => Err(c.error_at(
            at,
            ErrorKind::UnknownTag {
                context: if dir == Direction::Input {
                    "input channel state handle (expected 1 or 3)"
                } else {
                    "result subpartition state handle (expected 2 or 4)"
                },
                tag,
            },
        )),
    }
}

fn read_single(c: &mut Cursor<'_>, tag: Option<u8>, with_index: bool) -> Result<ChannelHandle> {
    let subtask_index = if with_index { Some(c.i32()?) } else { None };
    let info = (c.i32()?, c.i32()?);
    let offsets = c.i64_list("channel buffer offset count")?;
    let size = c.i64()?;
    let delegate = c.within("delegate", |c| read_stream_handle(c, 1))?;
    Ok(ChannelHandle::Single {
        tag,
        subtask_index,
        info,
        offsets,
        size,
        delegate,
    })
}

fn read_merged(c: &mut Cursor<'_>, tag: u8) -> Result<ChannelHandle> {
    let subtask_index = c.i32()?;
    let total_size = c.i64()?;
    let delegate = c.within("delegate", |c| read_stream_handle(c, 1))?;
    let blob_at = c.offset() + 4;
    let blob = c.byte_array("channel offsets length")?;
    let mut b = Cursor::nested(blob, blob_at, c);
    b.enter("channel_offsets");
    // Each entry: 8 info + 8 size + 4 count.
    let n = b.count("merged channel count", 20)?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let info = (b.i32()?, b.i32()?);
        let size = b.i64()?;
        let offsets = b.i64_list("channel buffer offset count")?;
        entries.push((info, size, offsets));
    }
    if b.remaining() != 0 {
        return Err(b.error(ErrorKind::BadValue {
            what: "bytes left in the channel offsets blob",
            value: b.remaining() as i64,
            expected: "0",
        }));
    }
    Ok(ChannelHandle::Merged {
        tag,
        subtask_index,
        total_size,
        delegate,
        entries,
    })
}
