//! Keyed state handles (tags 0, 3, 5, 7, 8–14 in the keyed context).

use super::error::ErrorKind;
use super::reader::{Cursor, Result};
use super::stream::{read_key_groups, read_range, read_stream_handle, MAX_DEPTH};
use crate::model::{
    ChangelogFileHandle, ChangelogHandle, ChangelogLayout, InMemoryChangelogHandle,
    IncrementalHandle, KeyGroupsKind, KeyedHandle, NamedHandle,
};

/// Reads a keyed state handle; `None` for the null handle (tag 0).
pub fn read_keyed_handle(c: &mut Cursor<'_>, depth: u32) -> Result<Option<KeyedHandle>> {
    read_keyed(c, depth, None)
}

/// `layout`: the changelog layout chosen for the enclosing changelog handle, which its nested handles
/// share (`None` at the top: try both). Choosing once per subtree keeps the retry linear in the input.
fn read_keyed(
    c: &mut Cursor<'_>,
    depth: u32,
    layout: Option<ChangelogLayout>,
) -> Result<Option<KeyedHandle>> {
    let at = c.offset();
    if depth >= MAX_DEPTH {
        return Err(c.error(ErrorKind::BadValue {
            what: "handle nesting depth",
            value: i64::from(depth),
            expected: "fewer nested handles",
        }));
    }
    let tag = c.u8()?;
    Ok(Some(match tag {
        0 => return Ok(None),
        3 => KeyedHandle::KeyGroups(read_key_groups(c, KeyGroupsKind::Legacy, depth)?),
        7 => KeyedHandle::KeyGroups(read_key_groups(c, KeyGroupsKind::Savepoint, depth)?),
        12 => KeyedHandle::KeyGroups(read_key_groups(c, KeyGroupsKind::V2, depth)?),
        5 | 11 => KeyedHandle::Incremental(read_incremental(c, tag == 11, depth)?),
        8 | 14 => {
            let v2 = tag == 14;
            let h = with_legacy_fallback(c, v2, layout, |c, l| read_changelog(c, v2, l, depth))?;
            KeyedHandle::Changelog(Box::new(h))
        }
        9 => KeyedHandle::InMemoryChangelog(with_legacy_fallback(
            c,
            false,
            layout,
            read_in_memory_changelog,
        )?),
        10 | 13 => {
            let v2 = tag == 13;
            KeyedHandle::ChangelogFile(with_legacy_fallback(c, v2, layout, |c, l| {
                read_changelog_file(c, v2, l, depth)
            })?)
        }
        _ => {
            return Err(c.error_at(
                at,
                ErrorKind::UnknownTag {
                    context: "keyed state handle",
                    tag,
                },
            ))
        }
    }))
}

/// Changelog tags 8, 9 and 10 changed layout after Flink 1.14 without a version bump: read the
/// current layout, and if that fails, the 1.14 one. The V2 tags (13, 14) only exist in the current one.
/// Inside a changelog handle whose layout is already chosen (`fixed`), only that layout is read.
fn with_legacy_fallback<T>(
    c: &mut Cursor<'_>,
    v2: bool,
    fixed: Option<ChangelogLayout>,
    read: impl Fn(&mut Cursor<'_>, ChangelogLayout) -> Result<T>,
) -> Result<T> {
    if let Some(l) = fixed {
        return read(c, if v2 { ChangelogLayout::Current } else { l });
    }
    let start = c.position();
    match read(c, ChangelogLayout::Current) {
        Ok(h) => Ok(h),
        Err(e) if !v2 => {
            c.rewind(start);
            read(c, ChangelogLayout::Flink114).map_err(|_| e)
        }
        Err(e) => Err(e),
    }
}

fn read_named_list(c: &mut Cursor<'_>, what: &'static str, depth: u32) -> Result<Vec<NamedHandle>> {
    // Each entry is at least a 2-byte name length and a 1-byte tag.
    let n = c.count(what, 3)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        c.enter_index(i);
        let name = c.utf()?;
        let handle = read_stream_handle(c, depth + 1)?;
        out.push(NamedHandle { name, handle });
        c.leave();
    }
    Ok(out)
}

fn read_incremental(c: &mut Cursor<'_>, v2: bool, depth: u32) -> Result<IncrementalHandle> {
    let checkpoint_id = c.i64()?;
    let backend_id = c.utf()?;
    let range = read_range(c)?;
    let checkpointed_size = if v2 { Some(c.i64()?) } else { None };
    let meta = c.within("meta", |c| read_stream_handle(c, depth + 1))?;
    let shared = c.within("shared", |c| read_named_list(c, "shared file count", depth))?;
    let private = c.within("private", |c| {
        read_named_list(c, "private file count", depth)
    })?;
    let handle_id = if v2 { Some(c.utf()?) } else { None };
    Ok(IncrementalHandle {
        v2,
        checkpoint_id,
        backend_id,
        range,
        checkpointed_size,
        meta,
        shared,
        private,
        handle_id,
    })
}

fn read_keyed_list(
    c: &mut Cursor<'_>,
    what: &'static str,
    depth: u32,
    layout: ChangelogLayout,
) -> Result<Vec<Option<KeyedHandle>>> {
    let n = c.count(what, 1)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        c.enter_index(i);
        out.push(read_keyed(c, depth + 1, Some(layout))?);
        c.leave();
    }
    Ok(out)
}

fn read_changelog(
    c: &mut Cursor<'_>,
    v2: bool,
    layout: ChangelogLayout,
    depth: u32,
) -> Result<ChangelogHandle> {
    let current = layout == ChangelogLayout::Current;
    let range = read_range(c)?;
    let checkpointed_size = if current { Some(c.i64()?) } else { None };
    let materialized = c.within("materialized", |c| {
        read_keyed_list(c, "materialized handle count", depth, layout)
    })?;
    let non_materialized = c.within("non_materialized", |c| {
        read_keyed_list(c, "non-materialized handle count", depth, layout)
    })?;
    let (materialization_id, checkpoint_id, handle_id) = if current {
        let m = c.i64()?;
        let cp = if v2 { Some(c.i64()?) } else { None };
        (Some(m), cp, Some(c.utf()?))
    } else {
        (None, None, None)
    };
    Ok(ChangelogHandle {
        v2,
        layout,
        range,
        checkpointed_size,
        materialized,
        non_materialized,
        materialization_id,
        checkpoint_id,
        handle_id,
    })
}

fn read_in_memory_changelog(
    c: &mut Cursor<'_>,
    layout: ChangelogLayout,
) -> Result<InMemoryChangelogHandle> {
    let range = read_range(c)?;
    let from = c.i64()?;
    let to = c.i64()?;
    let n = c.count("change count", 8)?;
    let mut changes = Vec::with_capacity(n);
    for _ in 0..n {
        let key_group = c.i32()?;
        changes.push((key_group, c.byte_array("change length")?.to_vec()));
    }
    let handle_id = if layout == ChangelogLayout::Current {
        Some(c.utf()?)
    } else {
        None
    };
    Ok(InMemoryChangelogHandle {
        range,
        from,
        to,
        changes,
        handle_id,
    })
}

fn read_changelog_file(
    c: &mut Cursor<'_>,
    v2: bool,
    layout: ChangelogLayout,
    depth: u32,
) -> Result<ChangelogFileHandle> {
    let current = layout == ChangelogLayout::Current;
    let range = read_range(c)?;
    let n = c.count("changelog stream count", 9)?;
    let mut handles = Vec::with_capacity(n);
    for i in 0..n {
        c.enter_index(i);
        let offset = c.i64()?;
        handles.push((read_stream_handle(c, depth + 1)?, offset));
        c.leave();
    }
    let size = c.i64()?;
    let (checkpointed_size, handle_id) = if current {
        (Some(c.i64()?), Some(c.utf()?))
    } else {
        (None, None)
    };
    let storage_id = if v2 { Some(c.utf()?) } else { None };
    Ok(ChangelogFileHandle {
        v2,
        layout,
        range,
        handles,
        size,
        checkpointed_size,
        handle_id,
        storage_id,
    })
}
