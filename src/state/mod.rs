//! What the state says: state names and serializers from the headers of state streams, FLIP-27 splits and
//! enumerator checkpoints, Sink V2 writer and committer states. Reads the files a snapshot refers to
//! (never writes them); a file that cannot be read is reported for its handle and the rest goes on.

pub mod access;
pub mod connectors;
pub mod element;
pub mod meta;

use crate::model::*;
use access::StateAccess;
use connectors::{Coordinator, SinkState, Split};
use meta::{Header, StateMeta};
use serde::Serialize;

/// Operator state streams are read whole (elements are found by offset); bigger ones are refused.
const OPERATOR_STREAM_LIMIT: u64 = 256 << 20;
/// Keyed state streams are read only as far as their header (serializer snapshots can be large).
const KEYED_HEADER_LIMIT: u64 = 16 << 20;

/// One named operator state of one subtask.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedState {
    /// The state's name.
    pub name: String,
    /// Redistribution mode.
    pub mode: &'static str,
    /// Kind from the header (`OPERATOR`, `BROADCAST`), when read.
    pub kind: Option<String>,
    /// Value serializer from the header, when read.
    pub serializer: Option<String>,
    /// Number of elements.
    pub elements: usize,
    /// FLIP-27 splits (`SourceReaderState`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub splits: Vec<Split>,
    /// Sink writer or committer states.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sink: Vec<SinkState>,
}

/// A keyed state's name and type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyedStateName {
    /// The state's name.
    pub name: String,
    /// `VALUE`, `LIST`, `MAP`, `REDUCING`, `AGGREGATING`, `TIMERS`, …
    pub kind: String,
    /// Value serializer, when read.
    pub serializer: Option<String>,
}

/// What one subtask's state says.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SubtaskReport {
    /// Subtask index.
    pub index: i32,
    /// Operator (non-keyed) states, managed then raw.
    pub operator_states: Vec<NamedState>,
    /// Keyed state names (from the first keyed handle whose header could be read).
    pub keyed_states: Vec<KeyedStateName>,
    /// Key serializer of the keyed state.
    pub key_serializer: Option<String>,
    /// Problems reading this subtask's state (missing files, unreadable headers).
    pub problems: Vec<String>,
}

/// What one operator's state says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperatorReport {
    /// Operator ID.
    pub id: String,
    /// Name, when recorded.
    pub name: Option<String>,
    /// Uid, when recorded.
    pub uid: Option<String>,
    /// The source coordinator's enumerator checkpoint, when the coordinator state is one.
    pub coordinator: Option<Coordinator>,
    /// Per subtask.
    pub subtasks: Vec<SubtaskReport>,
}

impl OperatorReport {
    /// Every split of every subtask.
    pub fn splits(&self) -> impl Iterator<Item = (i32, &Split)> {
        self.subtasks.iter().flat_map(|s| {
            s.operator_states
                .iter()
                .flat_map(move |n| n.splits.iter().map(move |x| (s.index, x)))
        })
    }

    /// Every sink state of every subtask.
    pub fn sink_states(&self) -> impl Iterator<Item = (i32, &SinkState)> {
        self.subtasks.iter().flat_map(|s| {
            s.operator_states
                .iter()
                .flat_map(move |n| n.sink.iter().map(move |x| (s.index, x)))
        })
    }

    /// Kafka topics this operator's source state reads (splits and enumerator).
    pub fn topics(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .splits()
            .filter_map(|(_, s)| s.kafka_topic().map(str::to_owned))
            .collect();
        fn enum_topics(e: &connectors::EnumeratorState, out: &mut Vec<String>) {
            match e {
                connectors::EnumeratorState::Kafka { partitions, .. } => {
                    out.extend(partitions.iter().map(|(t, _, _)| t.clone()))
                }
                connectors::EnumeratorState::DynamicKafka { clusters, .. } => {
                    clusters.iter().for_each(|(_, s)| enum_topics(s, out))
                }
                _ => {}
            }
        }
        if let Some(c) = &self.coordinator {
            enum_topics(&c.enumerator, &mut out);
        }
        out.sort();
        out.dedup();
        out
    }
}

fn serializer_of(m: &StateMeta) -> Option<String> {
    m.serializers
        .iter()
        .find(|(role, _)| role == "VALUE_SERIALIZER")
        .map(|(_, s)| s.short())
}

fn operator_states(h: &OperatorHandle, access: &StateAccess, out: &mut SubtaskReport) {
    if h.states.is_empty() {
        return; // e.g. the empty file-merging handle of a stateless operator: nothing to read
    }
    let stream = match h
        .delegate
        .as_ref()
        .map(|d| access.read(d, OPERATOR_STREAM_LIMIT))
    {
        Some(Ok(b)) => b,
        Some(Err(e)) => return out.problems.push(format!("operator state: {e}")),
        None => return out.problems.push("operator state: null delegate".into()),
    };
    let header: Option<Header> = match meta::operator_header(&stream) {
        Ok(h) => {
            if let Some(p) = &h.partial {
                out.problems
                    .push(format!("operator state header read in part: {p}"));
            }
            Some(h)
        }
        Err(e) => {
            out.problems.push(format!("operator state header: {e}"));
            None
        }
    };
    let compressed = header.as_ref().is_some_and(|h| h.compressed);
    for s in &h.states {
        let m = header
            .as_ref()
            .and_then(|h| h.states.iter().find(|m| m.name == s.name));
        let mut named = NamedState {
            name: s.name.clone(),
            mode: s.mode.name(),
            kind: m.map(|m| m.kind()),
            serializer: m.and_then(serializer_of),
            elements: s.offsets.len(),
            splits: Vec::new(),
            sink: Vec::new(),
        };
        let is_source = s.name == "SourceReaderState";
        let is_sink = s.name == "writer_raw_states" || s.name == "streaming_committer_raw_states";
        if is_source || is_sink {
            for &offset in &s.offsets {
                let decoded = element::list_element(&stream, offset, compressed)
                    .and_then(|e| element::versioned(&e).map(|(v, p)| (v, p.to_vec())));
                match decoded {
                    Ok((v, payload)) if is_source => {
                        named.splits.push(connectors::split(v, &payload))
                    }
                    Ok((v, payload)) => named
                        .sink
                        .push(connectors::sink_state(&s.name, v, &payload)),
                    Err(e) => out
                        .problems
                        .push(format!("{} element at offset {offset}: {e}", s.name)),
                }
            }
        }
        out.operator_states.push(named);
    }
}

/// The stream holding a keyed handle's header: the delegate of key-group handles, the meta file of
/// incremental handles, the first materialized handle of changelog handles.
fn keyed_header_stream(h: &KeyedHandle) -> Option<&StreamHandle> {
    match h {
        KeyedHandle::KeyGroups(k) => k.delegate.as_ref(),
        KeyedHandle::Incremental(i) => i.meta.as_ref(),
        KeyedHandle::Changelog(c) => c
            .materialized
            .iter()
            .flatten()
            .find_map(keyed_header_stream),
        KeyedHandle::InMemoryChangelog(_) | KeyedHandle::ChangelogFile(_) => None,
    }
}

fn keyed_states(h: &KeyedHandle, access: &StateAccess, out: &mut SubtaskReport) {
    let Some(stream) = keyed_header_stream(h) else {
        return;
    };
    let bytes = match access.read(stream, KEYED_HEADER_LIMIT) {
        Ok(b) => b,
        Err(e) => return out.problems.push(format!("keyed state: {e}")),
    };
    match meta::keyed_header(&bytes) {
        Ok(header) => {
            if let Some(p) = &header.partial {
                out.problems
                    .push(format!("keyed state header read in part: {p}"));
            }
            out.key_serializer = header.key_serializer.as_ref().map(|k| k.short());
            out.keyed_states = header
                .states
                .iter()
                .map(|m| KeyedStateName {
                    name: m.name.clone(),
                    kind: m.kind(),
                    serializer: serializer_of(m),
                })
                .collect();
        }
        Err(e) => out.problems.push(format!("keyed state header: {e}")),
    }
}

/// Reads what `op`'s state says.
pub fn inspect(op: &OperatorState, access: &StateAccess) -> OperatorReport {
    let coordinator = match &op.coordinator_state {
        Some(StreamHandle::ByteStream { data, .. }) => connectors::coordinator(data),
        _ => None,
    };
    let subtasks = op
        .subtasks
        .iter()
        .filter_map(|s| s.state.as_ref().map(|st| (s.index(), st)))
        .map(|(index, st)| {
            let mut r = SubtaskReport {
                index,
                ..SubtaskReport::default()
            };
            for h in [
                &st.managed_operator_state.handle,
                &st.raw_operator_state.handle,
            ]
            .into_iter()
            .flatten()
            {
                operator_states(h, access, &mut r);
            }
            if let Some(k) = st.managed_keyed_state.as_ref() {
                keyed_states(k, access, &mut r);
            }
            r
        })
        .collect();
    OperatorReport {
        id: op.id.to_string(),
        name: op.name.clone(),
        uid: op.uid.clone(),
        coordinator,
        subtasks,
    }
}
