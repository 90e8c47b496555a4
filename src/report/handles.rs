//! JSON and one-line text descriptions of state handles (used by `show --subtasks`).

use crate::input::resolve_relative;
use crate::model::*;
use crate::stats::*;
use serde_json::{json, Map, Value};
use std::path::Path;

/// Where a stream handle's bytes are, in one line; relative paths resolved against `dir` when given.
pub fn stream_location(h: &StreamHandle, dir: Option<&Path>) -> String {
    match h {
        StreamHandle::ByteStream { data, .. } => format!("inline {} B", data.len()),
        StreamHandle::File { path, .. } => path.clone(),
        StreamHandle::RelativeFile { path, .. } => match dir {
            None => format!("./{path}"),
            Some(d) => resolve_relative(d, path).map_or_else(
                || format!("./{path} (leaves the snapshot directory; not followed)"),
                |p| p.display().to_string(),
            ),
        },
        StreamHandle::Segment {
            path, start, size, ..
        } => format!("{path} [{start}+{size}]"),
        StreamHandle::EmptySegment => "empty segment".into(),
        StreamHandle::KeyGroups(k) => k
            .delegate
            .as_ref()
            .map_or("null".into(), |d| stream_location(d, dir)),
    }
}

/// JSON of a stream handle. `dir` resolves relative paths when given.
pub fn stream_json(h: &StreamHandle, dir: Option<&Path>) -> Value {
    let mut m = Map::new();
    m.insert("class".into(), json!(stream_class(h)));
    m.insert("state_bytes".into(), json!(stream_size(h)));
    match h {
        StreamHandle::ByteStream { name, data } => {
            m.insert("name".into(), json!(name));
            m.insert("inline_bytes".into(), json!(data.len()));
        }
        StreamHandle::File { path, .. } => {
            m.insert("path".into(), json!(path));
        }
        StreamHandle::RelativeFile { path, .. } => {
            m.insert("relative_path".into(), json!(path));
            if let Some(d) = dir {
                let resolved = resolve_relative(d, path);
                m.insert(
                    "resolved_path".into(),
                    json!(resolved.map(|p| p.display().to_string())),
                );
                m.insert(
                    "escapes_snapshot_dir".into(),
                    json!(resolve_relative(d, path).is_none()),
                );
            }
        }
        StreamHandle::Segment {
            start,
            scope,
            path,
            logical_file_id,
            ..
        } => {
            m.insert("path".into(), json!(path));
            m.insert("start".into(), json!(start));
            m.insert(
                "scope".into(),
                json!(if *scope == 1 { "SHARED" } else { "EXCLUSIVE" }),
            );
            m.insert("logical_file_id".into(), json!(logical_file_id));
        }
        StreamHandle::EmptySegment => {}
        StreamHandle::KeyGroups(k) => return key_groups_json(k, dir),
    }
    Value::Object(m)
}

fn opt_stream(h: &Option<StreamHandle>, dir: Option<&Path>) -> Value {
    h.as_ref().map_or(Value::Null, |h| stream_json(h, dir))
}

fn range_json(r: &KeyGroupRange) -> Value {
    json!([r.start, r.end()])
}

fn key_groups_json(k: &KeyGroupsHandle, dir: Option<&Path>) -> Value {
    json!({
        "class": if k.kind == KeyGroupsKind::Savepoint { "KeyGroupsSavepointStateHandle" } else { "KeyGroupsStateHandle" },
        "state_bytes": k.delegate.as_ref().map_or(0, stream_size),
        "key_groups": range_json(&k.range),
        "delegate": opt_stream(&k.delegate, dir),
    })
}

fn named_json(v: &[NamedHandle], dir: Option<&Path>) -> Value {
    Value::Array(
        v.iter()
            .map(|n| json!({"name": n.name, "handle": opt_stream(&n.handle, dir)}))
            .collect(),
    )
}

/// JSON of a keyed handle.
pub fn keyed_json(h: &KeyedHandle, dir: Option<&Path>) -> Value {
    let mut v = match h {
        KeyedHandle::KeyGroups(k) => key_groups_json(k, dir),
        KeyedHandle::Incremental(i) => json!({
            "checkpoint_id": i.checkpoint_id,
            "backend_id": i.backend_id,
            "key_groups": range_json(&i.range),
            "checkpointed_bytes": i.checkpointed_size,
            "meta": opt_stream(&i.meta, dir),
            "shared": named_json(&i.shared, dir),
            "private": named_json(&i.private, dir),
        }),
        KeyedHandle::Changelog(c) => json!({
            "key_groups": range_json(&c.range),
            "materialized": c.materialized.iter().map(|h| h.as_ref().map_or(Value::Null, |h| keyed_json(h, dir))).collect::<Vec<_>>(),
            "non_materialized": c.non_materialized.iter().map(|h| h.as_ref().map_or(Value::Null, |h| keyed_json(h, dir))).collect::<Vec<_>>(),
            "materialization_id": c.materialization_id,
            "checkpoint_id": c.checkpoint_id,
        }),
        KeyedHandle::InMemoryChangelog(m) => json!({
            "key_groups": range_json(&m.range),
            "changes": m.changes.len(),
            "from": m.from,
            "to": m.to,
        }),
        KeyedHandle::ChangelogFile(f) => json!({
            "key_groups": range_json(&f.range),
            "streams": f.handles.iter().map(|(h, o)| json!({"offset": o, "handle": opt_stream(h, dir)})).collect::<Vec<_>>(),
            "storage": f.storage_id,
        }),
    };
    if let Value::Object(m) = &mut v {
        m.insert("class".into(), json!(keyed_class(h)));
        m.insert("state_bytes".into(), json!(keyed_size(h)));
    }
    v
}

/// JSON of an operator handle.
pub fn operator_json(h: &OperatorHandle, dir: Option<&Path>) -> Value {
    json!({
        "class": operator_class(h),
        "state_bytes": operator_size(h),
        "states": h.states.iter().map(|s| json!({
            "name": s.name,
            "mode": s.mode.name(),
            "offsets": s.offsets,
        })).collect::<Vec<_>>(),
        "delegate": opt_stream(&h.delegate, dir),
    })
}

/// JSON of a channel handle.
pub fn channel_json(h: &ChannelHandle, input: bool, dir: Option<&Path>) -> Value {
    match h {
        ChannelHandle::Single {
            subtask_index,
            info,
            offsets,
            size,
            delegate,
            ..
        } => json!({
            "class": channel_class(h, input),
            "state_bytes": size,
            "subtask_index": subtask_index,
            "channel": [info.0, info.1],
            "buffers": offsets.len(),
            "delegate": opt_stream(delegate, dir),
        }),
        ChannelHandle::Merged {
            subtask_index,
            total_size,
            delegate,
            entries,
            ..
        } => json!({
            "class": channel_class(h, input),
            "state_bytes": total_size,
            "subtask_index": subtask_index,
            "channels": entries.iter().map(|(info, size, offsets)| json!({
                "channel": [info.0, info.1], "state_bytes": size, "buffers": offsets.len()
            })).collect::<Vec<_>>(),
            "delegate": opt_stream(delegate, dir),
        }),
    }
}

/// JSON of any handle.
pub fn any_json(h: &AnyHandle<'_>, dir: Option<&Path>) -> Value {
    match h {
        AnyHandle::Operator(o) => operator_json(o, dir),
        AnyHandle::Keyed(k) => keyed_json(k, dir),
        AnyHandle::Channel(c, input) => channel_json(c, *input, dir),
    }
}

/// One line describing a handle: class, size, where.
pub fn any_line(h: &AnyHandle<'_>, dir: Option<&Path>) -> String {
    let at = |d: &Option<StreamHandle>| {
        d.as_ref()
            .map_or("null".into(), |d| stream_location(d, dir))
    };
    let loc = match h {
        AnyHandle::Operator(o) => {
            let names: Vec<_> = o.states.iter().map(|s| s.name.as_str()).collect();
            format!("{} @ {}", names.join(", "), at(&o.delegate))
        }
        AnyHandle::Keyed(KeyedHandle::KeyGroups(k)) => format!(
            "key groups {}-{} @ {}",
            k.range.start,
            k.range.end(),
            at(&k.delegate)
        ),
        AnyHandle::Keyed(KeyedHandle::Incremental(i)) => format!(
            "key groups {}-{}, {} shared + {} private files",
            i.range.start,
            i.range.end(),
            i.shared.len(),
            i.private.len()
        ),
        AnyHandle::Keyed(KeyedHandle::Changelog(c)) => format!(
            "key groups {}-{}, {} materialized + {} changelog handles",
            c.range.start,
            c.range.end(),
            c.materialized.len(),
            c.non_materialized.len()
        ),
        AnyHandle::Keyed(KeyedHandle::ChangelogFile(f)) => {
            format!(
                "key groups {}-{}, {} changelog streams",
                f.range.start,
                f.range.end(),
                f.handles.len()
            )
        }
        AnyHandle::Keyed(KeyedHandle::InMemoryChangelog(m)) => {
            format!(
                "key groups {}-{}, {} inline changes",
                m.range.start,
                m.range.end(),
                m.changes.len()
            )
        }
        AnyHandle::Channel(ChannelHandle::Single { info, .. }, _) => {
            format!("channel ({}, {})", info.0, info.1)
        }
        AnyHandle::Channel(ChannelHandle::Merged { entries, .. }, _) => {
            format!("{} channels", entries.len())
        }
    };
    format!(
        "{} {} {}",
        h.class(),
        crate::report::human_bytes(h.size()),
        loc
    )
}
