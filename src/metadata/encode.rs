//! Writes the model back to `_metadata` bytes. For every file the decoder accepts from a Flink writer,
//! `encode(decode(bytes)) == bytes`: the model keeps every field, flag and legacy value as written, and
//! the trailer as read. Bytes Flink ignores after the body or the trailer are counted by the decoder, not
//! kept, and so not written.

use super::mutf8;
use super::{MAGIC, MASTER_STATE_MAGIC};
use crate::model::*;

/// Big-endian writer.
#[derive(Default)]
struct W(Vec<u8>);

impl W {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    fn len(&mut self, n: usize) {
        self.i32(i32::try_from(n).unwrap_or(i32::MAX));
    }
    fn utf(&mut self, s: &str) {
        let b = mutf8::encode(s);
        self.0
            .extend_from_slice(&u16::try_from(b.len()).unwrap_or(u16::MAX).to_be_bytes());
        self.0.extend_from_slice(&b);
    }
    fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.0.extend_from_slice(b);
    }
    fn i64s(&mut self, v: &[i64]) {
        for x in v {
            self.i64(*x);
        }
    }
    fn range(&mut self, r: &KeyGroupRange) {
        self.i32(r.start);
        self.i32(r.count);
    }
}

fn stream(w: &mut W, h: &Option<StreamHandle>) {
    let Some(h) = h else { return w.u8(0) };
    w.u8(h.tag());
    match h {
        StreamHandle::ByteStream { name, data } => {
            w.utf(name);
            w.bytes(data);
        }
        StreamHandle::File { size, path } => {
            w.i64(*size);
            w.utf(path);
        }
        StreamHandle::KeyGroups(k) => key_groups(w, k),
        StreamHandle::RelativeFile { path, size } => {
            w.utf(path);
            w.i64(*size);
        }
        StreamHandle::Segment {
            start,
            size,
            scope,
            path,
            logical_file_id,
        } => {
            w.i64(*start);
            w.i64(*size);
            w.i32(*scope);
            w.utf(path);
            w.utf(logical_file_id);
        }
        StreamHandle::EmptySegment => {}
    }
}

fn key_groups(w: &mut W, k: &KeyGroupsHandle) {
    w.range(&k.range);
    w.i64s(&k.offsets);
    stream(w, &k.delegate);
    if let Some(id) = &k.handle_id {
        w.utf(id);
    }
}

fn named(w: &mut W, v: &[NamedHandle]) {
    w.len(v.len());
    for n in v {
        w.utf(&n.name);
        stream(w, &n.handle);
    }
}

fn keyed(w: &mut W, h: &Option<KeyedHandle>) {
    let Some(h) = h else { return w.u8(0) };
    w.u8(h.tag());
    match h {
        KeyedHandle::KeyGroups(k) => key_groups(w, k),
        KeyedHandle::Incremental(i) => {
            w.i64(i.checkpoint_id);
            w.utf(&i.backend_id);
            w.range(&i.range);
            if let Some(s) = i.checkpointed_size {
                w.i64(s);
            }
            stream(w, &i.meta);
            named(w, &i.shared);
            named(w, &i.private);
            if let Some(id) = &i.handle_id {
                w.utf(id);
            }
        }
        KeyedHandle::Changelog(c) => {
            w.range(&c.range);
            if let Some(s) = c.checkpointed_size {
                w.i64(s);
            }
            for list in [&c.materialized, &c.non_materialized] {
                w.len(list.len());
                for h in list {
                    keyed(w, h);
                }
            }
            if let Some(m) = c.materialization_id {
                w.i64(m);
            }
            if let Some(cp) = c.checkpoint_id {
                w.i64(cp);
            }
            if let Some(id) = &c.handle_id {
                w.utf(id);
            }
        }
        KeyedHandle::InMemoryChangelog(m) => {
            w.range(&m.range);
            w.i64(m.from);
            w.i64(m.to);
            w.len(m.changes.len());
            for (kg, bytes) in &m.changes {
                w.i32(*kg);
                w.bytes(bytes);
            }
            if let Some(id) = &m.handle_id {
                w.utf(id);
            }
        }
        KeyedHandle::ChangelogFile(f) => {
            w.range(&f.range);
            w.len(f.handles.len());
            for (h, offset) in &f.handles {
                w.i64(*offset);
                stream(w, h);
            }
            w.i64(f.size);
            if let Some(s) = f.checkpointed_size {
                w.i64(s);
            }
            if let Some(id) = &f.handle_id {
                w.utf(id);
            }
            if let Some(s) = &f.storage_id {
                w.utf(s);
            }
        }
    }
}

fn operator(w: &mut W, h: &Option<OperatorHandle>) {
    let Some(h) = h else { return w.u8(0) };
    w.u8(h.tag());
    w.len(h.states.len());
    for s in &h.states {
        w.utf(&s.name);
        w.u8(s.mode.ordinal());
        w.len(s.offsets.len());
        w.i64s(&s.offsets);
    }
    if let Some(f) = &h.file_merging {
        w.utf(&f.task_owned_dir);
        w.utf(&f.shared_dir);
        w.u8(f.empty);
    }
    stream(w, &h.delegate);
}

fn channel(w: &mut W, h: &ChannelHandle) {
    match h {
        ChannelHandle::Single {
            tag,
            subtask_index,
            info,
            offsets,
            size,
            delegate,
        } => {
            if let Some(t) = tag {
                w.u8(*t);
            }
            if let Some(i) = subtask_index {
                w.i32(*i);
            }
            w.i32(info.0);
            w.i32(info.1);
            w.len(offsets.len());
            w.i64s(offsets);
            w.i64(*size);
            stream(w, delegate);
        }
        ChannelHandle::Merged {
            tag,
            subtask_index,
            total_size,
            delegate,
            entries,
        } => {
            w.u8(*tag);
            w.i32(*subtask_index);
            w.i64(*total_size);
            stream(w, delegate);
            let mut blob = W::default();
            blob.len(entries.len());
            for (info, size, offsets) in entries {
                blob.i32(info.0);
                blob.i32(info.1);
                blob.i64(*size);
                blob.len(offsets.len());
                blob.i64s(offsets);
            }
            w.bytes(&blob.0);
        }
    }
}

fn subtask(w: &mut W, s: &SubtaskState, version: i32) {
    if let Some((duration, legacy)) = s.legacy_v2 {
        w.i64(duration);
        w.i32(legacy);
    }
    for f in [&s.managed_operator_state, &s.raw_operator_state] {
        w.i32(f.flag);
        if f.flag != 0 {
            operator(w, &f.handle);
        }
    }
    keyed(w, &s.managed_keyed_state);
    keyed(w, &s.raw_keyed_state);
    if version >= 3 {
        for list in [&s.input_channel_state, &s.result_subpartition_state] {
            w.len(list.len());
            for h in list {
                channel(w, h);
            }
        }
    }
    if let Some((marker, id)) = s.ref_checkpoint {
        w.u8(marker);
        if let Some(id) = id {
            w.i64(id);
        }
    }
}

fn operator_state(w: &mut W, op: &OperatorState, version: i32) {
    if version >= 5 {
        w.utf(op.name.as_deref().unwrap_or(""));
        w.utf(op.uid.as_deref().unwrap_or(""));
    }
    w.0.extend_from_slice(&op.id.0);
    w.i32(op.parallelism);
    w.i32(op.max_parallelism);
    match op.legacy_chain_length {
        Some(chain) => w.i32(chain),
        None => stream(w, &op.coordinator_state),
    }
    w.i32(op.subtask_count);
    for s in &op.subtasks {
        w.i32(s.stored_index);
        if let Some(st) = &s.state {
            subtask(w, st, version);
        }
    }
}

/// The bytes of the header (up to and including the operator count).
pub fn encode_header(h: &Header) -> Vec<u8> {
    let mut w = W::default();
    w.i32(MAGIC as i32);
    w.i32(h.version);
    w.i64(h.checkpoint_id);
    w.len(h.master_states.len());
    for m in &h.master_states {
        let mut blob = W::default();
        blob.i32(m.version);
        blob.utf(&m.name);
        blob.bytes(&m.payload);
        w.i32(MASTER_STATE_MAGIC as i32);
        w.bytes(&blob.0);
    }
    w.len(h.operator_count);
    w.0
}

/// The bytes of one operator record, for a file of format `version`.
pub fn encode_operator(op: &OperatorState, version: i32) -> Vec<u8> {
    let mut w = W::default();
    operator_state(&mut w, op, version);
    w.0
}

/// The bytes after the operators: the trailer as read (bytes Flink ignores after it are not kept).
pub fn encode_tail(t: &Tail) -> Vec<u8> {
    t.trailer
        .as_ref()
        .map_or_else(Vec::new, |tr| tr.bytes.clone())
}

/// A whole `_metadata` file.
pub fn encode(md: &Metadata) -> Vec<u8> {
    let mut out = encode_header(&Header {
        operator_count: md.operators.len(),
        ..md.header.clone()
    });
    for op in &md.operators {
        out.extend_from_slice(&encode_operator(op, md.header.version));
    }
    out.extend_from_slice(&encode_tail(&md.tail));
    out
}
