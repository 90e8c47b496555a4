//! Stream state handles (tags 0, 1, 2, 3, 6, 15, 16 in the stream context).

use super::error::ErrorKind;
use super::reader::{Cursor, Result};
use crate::model::{KeyGroupRange, KeyGroupsHandle, KeyGroupsKind, StreamHandle};

/// Nesting deeper than this is refused (stream and keyed handles can contain each other).
pub const MAX_DEPTH: u32 = 32;

/// Reads a stream handle; `None` for the null handle (tag 0).
pub fn read_stream_handle(c: &mut Cursor<'_>, depth: u32) -> Result<Option<StreamHandle>> {
    let at = c.offset();
    let tag = c.u8()?;
    Ok(Some(match tag {
        0 => return Ok(None),
        1 => {
            let name = c.utf()?;
            let data = c.byte_array("inline state length")?.to_vec();
            StreamHandle::ByteStream { name, data }
        }
        2 => {
            let size = c.i64()?;
            let path = c.utf()?;
            StreamHandle::File { size, path }
        }
        3 => StreamHandle::KeyGroups(Box::new(read_key_groups(c, KeyGroupsKind::Legacy, depth)?)),
        6 => {
            let path = c.utf()?;
            let size = c.i64()?;
            StreamHandle::RelativeFile { path, size }
        }
        15 => {
            let start = c.i64()?;
            let size = c.i64()?;
            let scope = c.i32()?;
            let path = c.utf()?;
            let logical_file_id = c.utf()?;
            StreamHandle::Segment {
                start,
                size,
                scope,
                path,
                logical_file_id,
            }
        }
        16 => StreamHandle::EmptySegment,
        _ => {
            return Err(c.error_at(
                at,
                ErrorKind::UnknownTag {
                    context: "stream state handle",
                    tag,
                },
            ));
        }
    }))
}

/// Reads a key-group range (start, count).
pub fn read_range(c: &mut Cursor<'_>) -> Result<KeyGroupRange> {
    let at = c.offset();
    let start = c.i32()?;
    let count = c.i32()?;
    if start < 0 || count < 0 || start.checked_add(count).is_none() {
        return Err(c.error_at(
            at,
            ErrorKind::BadValue {
                what: "key-group range",
                value: i64::from(start).min(i64::from(count)),
                expected: "start >= 0 and 0 <= count <= 2^31 - 1 - start",
            },
        ));
    }
    Ok(KeyGroupRange { start, count })
}

/// Reads the body of a key-groups handle (tags 3, 7, 12) after its tag.
pub fn read_key_groups(
    c: &mut Cursor<'_>,
    kind: KeyGroupsKind,
    depth: u32,
) -> Result<KeyGroupsHandle> {
    if depth >= MAX_DEPTH {
        return Err(c.error(ErrorKind::BadValue {
            what: "handle nesting depth",
            value: i64::from(depth),
            expected: "fewer nested handles",
        }));
    }
    let range = read_range(c)?;
    let at = c.offset();
    let n = c.check_count(at, "key-group offset count", i64::from(range.count), 8)?;
    let offsets = c.i64s(n)?;
    let delegate = c.within("delegate", |c| read_stream_handle(c, depth + 1))?;
    let handle_id = if kind == KeyGroupsKind::V2 {
        Some(c.utf()?)
    } else {
        None
    };
    Ok(KeyGroupsHandle {
        kind,
        range,
        offsets,
        delegate,
        handle_id,
    })
}
