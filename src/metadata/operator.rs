//! Operator state handles (tags 0, 4, 17 in the operator context).

use super::error::ErrorKind;
use super::reader::{Cursor, Result};
use super::stream::read_stream_handle;
use crate::model::{
    DistributionMode, FileMergingDirs, OperatorHandle, OperatorStateMeta, StreamHandle,
};

/// Reads an operator state handle; `None` for the null handle (tag 0).
pub fn read_operator_handle(c: &mut Cursor<'_>) -> Result<Option<OperatorHandle>> {
    let at = c.offset();
    let tag = c.u8()?;
    if tag == 0 {
        return Ok(None);
    }
    if tag != 4 && tag != 17 {
        return Err(c.error_at(
            at,
            ErrorKind::UnknownTag {
                context: "operator state handle",
                tag,
            },
        ));
    }
    // Each entry: 2-byte name length, 1-byte mode, 4-byte offset count.
    let n = c.count("operator state count", 7)?;
    let mut states = Vec::with_capacity(n);
    for i in 0..n {
        c.enter_index(i);
        let name = c.utf()?;
        let mode_at = c.offset();
        let ordinal = c.u8()?;
        let mode = DistributionMode::from_ordinal(ordinal).ok_or_else(|| {
            c.error_at(
                mode_at,
                ErrorKind::BadValue {
                    what: "distribution mode",
                    value: i64::from(ordinal as i8),
                    expected: "0 (SPLIT_DISTRIBUTE), 1 (UNION) or 2 (BROADCAST)",
                },
            )
        })?;
        let offsets = c.i64_list("operator state offset count")?;
        states.push(OperatorStateMeta {
            name,
            mode,
            offsets,
        });
        c.leave();
    }
    let file_merging = if tag == 17 {
        let task_owned_dir = c.utf()?;
        let shared_dir = c.utf()?;
        let empty = c.u8()?;
        Some(FileMergingDirs {
            task_owned_dir,
            shared_dir,
            empty,
        })
    } else {
        None
    };
    let delegate_at = c.offset();
    let delegate = c.within("delegate", |c| read_stream_handle(c, 1))?;
    if file_merging.is_some()
        && !matches!(
            delegate,
            Some(StreamHandle::Segment { .. }) | Some(StreamHandle::EmptySegment)
        )
    {
        return Err(c.error_at(
            delegate_at,
            ErrorKind::BadValue {
                what: "delegate of a file-merging operator state handle (tag 17)",
                value: -1,
                expected: "a segment handle (tag 15 or 16)",
            },
        ));
    }
    Ok(Some(OperatorHandle {
        states,
        file_merging,
        delegate,
    }))
}
