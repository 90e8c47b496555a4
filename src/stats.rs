//! Sizes and kinds of state, counted the way Flink counts them (`OperatorState.getStateSize()`).

use crate::model::*;

/// Flink's class name of a stream handle.
pub fn stream_class(h: &StreamHandle) -> &'static str {
    match h {
        StreamHandle::ByteStream { .. } => "ByteStreamStateHandle",
        StreamHandle::File { .. } => "FileStateHandle",
        StreamHandle::KeyGroups(_) => "KeyGroupsStateHandle",
        StreamHandle::RelativeFile { .. } => "RelativeFileStateHandle",
        StreamHandle::Segment { .. } => "SegmentFileStateHandle",
        StreamHandle::EmptySegment => "EmptySegmentFileStateHandle",
    }
}

/// Flink's class name of a keyed handle.
pub fn keyed_class(h: &KeyedHandle) -> &'static str {
    match h {
        KeyedHandle::KeyGroups(k) if k.kind == KeyGroupsKind::Savepoint => {
            "KeyGroupsSavepointStateHandle"
        }
        KeyedHandle::KeyGroups(_) => "KeyGroupsStateHandle",
        KeyedHandle::Incremental(_) => "IncrementalRemoteKeyedStateHandle",
        KeyedHandle::Changelog(_) => "ChangelogStateBackendHandleImpl",
        KeyedHandle::InMemoryChangelog(_) => "InMemoryChangelogStateHandle",
        KeyedHandle::ChangelogFile(_) => "ChangelogStateHandleStreamImpl",
    }
}

/// Flink's class name of an operator handle.
pub fn operator_class(h: &OperatorHandle) -> &'static str {
    match &h.file_merging {
        None => "OperatorStreamStateHandle",
        Some(f) if f.empty != 0 => "EmptyFileMergingOperatorStreamStateHandle",
        Some(_) => "FileMergingOperatorStreamStateHandle",
    }
}

/// Flink's class name of a channel handle; `input` tells which list it came from.
pub fn channel_class(h: &ChannelHandle, input: bool) -> &'static str {
    match (h, input) {
        (ChannelHandle::Single { .. }, true) => "InputChannelStateHandle",
        (ChannelHandle::Single { .. }, false) => "ResultSubpartitionStateHandle",
        (ChannelHandle::Merged { .. }, true) => "MergedInputChannelStateHandle",
        (ChannelHandle::Merged { .. }, false) => "MergedResultSubpartitionStateHandle",
    }
}

/// State size of a stream handle.
pub fn stream_size(h: &StreamHandle) -> i64 {
    match h {
        StreamHandle::ByteStream { data, .. } => data.len() as i64,
        StreamHandle::File { size, .. }
        | StreamHandle::RelativeFile { size, .. }
        | StreamHandle::Segment { size, .. } => *size,
        StreamHandle::KeyGroups(k) => opt_stream_size(&k.delegate),
        StreamHandle::EmptySegment => 0,
    }
}

fn opt_stream_size(h: &Option<StreamHandle>) -> i64 {
    h.as_ref().map_or(0, stream_size)
}

/// State size of a keyed handle.
pub fn keyed_size(h: &KeyedHandle) -> i64 {
    let named = |v: &[NamedHandle]| {
        v.iter()
            .map(|n| opt_stream_size(&n.handle))
            .fold(0i64, i64::wrapping_add)
    };
    match h {
        KeyedHandle::KeyGroups(k) => opt_stream_size(&k.delegate),
        KeyedHandle::Incremental(i) => opt_stream_size(&i.meta)
            .wrapping_add(named(&i.shared))
            .wrapping_add(named(&i.private)),
        KeyedHandle::Changelog(c) => c
            .materialized
            .iter()
            .chain(c.non_materialized.iter())
            .map(|h| h.as_ref().map_or(0, keyed_size))
            .fold(0, i64::wrapping_add),
        KeyedHandle::InMemoryChangelog(m) => m.changes.iter().map(|(_, b)| b.len() as i64).sum(),
        KeyedHandle::ChangelogFile(f) => f.size,
    }
}

/// State size of an operator handle.
pub fn operator_size(h: &OperatorHandle) -> i64 {
    opt_stream_size(&h.delegate)
}

/// State size of a channel handle.
pub fn channel_size(h: &ChannelHandle) -> i64 {
    match h {
        ChannelHandle::Single { size, .. } => *size,
        ChannelHandle::Merged { total_size, .. } => *total_size,
    }
}

/// The six kinds of subtask state, in Flink's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum StateKind {
    /// Managed operator state.
    ManagedOperator,
    /// Raw operator state.
    RawOperator,
    /// Managed keyed state.
    ManagedKeyed,
    /// Raw keyed state.
    RawKeyed,
    /// Input channel state.
    InputChannel,
    /// Result subpartition state.
    ResultSubpartition,
}

impl StateKind {
    /// All kinds, in order.
    pub const ALL: [StateKind; 6] = [
        StateKind::ManagedOperator,
        StateKind::RawOperator,
        StateKind::ManagedKeyed,
        StateKind::RawKeyed,
        StateKind::InputChannel,
        StateKind::ResultSubpartition,
    ];

    /// Stable name used in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            StateKind::ManagedOperator => "managed_operator",
            StateKind::RawOperator => "raw_operator",
            StateKind::ManagedKeyed => "managed_keyed",
            StateKind::RawKeyed => "raw_keyed",
            StateKind::InputChannel => "input_channel",
            StateKind::ResultSubpartition => "result_subpartition",
        }
    }
}

/// One handle of a subtask, seen uniformly.
pub enum AnyHandle<'a> {
    /// An operator state handle.
    Operator(&'a OperatorHandle),
    /// A keyed state handle.
    Keyed(&'a KeyedHandle),
    /// A channel state handle.
    Channel(&'a ChannelHandle, bool),
}

impl AnyHandle<'_> {
    /// Flink's class name.
    pub fn class(&self) -> &'static str {
        match self {
            AnyHandle::Operator(h) => operator_class(h),
            AnyHandle::Keyed(h) => keyed_class(h),
            AnyHandle::Channel(h, input) => channel_class(h, *input),
        }
    }

    /// Flink's state size.
    pub fn size(&self) -> i64 {
        match self {
            AnyHandle::Operator(h) => operator_size(h),
            AnyHandle::Keyed(h) => keyed_size(h),
            AnyHandle::Channel(h, _) => channel_size(h),
        }
    }
}

impl SubtaskState {
    /// The non-null handles of one kind (no allocation: this runs for every subtask of every operator).
    pub fn handles(&self, kind: StateKind) -> impl Iterator<Item = AnyHandle<'_>> {
        let (one, many, input): (Option<AnyHandle<'_>>, &[ChannelHandle], bool) = match kind {
            StateKind::ManagedOperator => (
                self.managed_operator_state
                    .handle
                    .as_ref()
                    .map(AnyHandle::Operator),
                &[],
                true,
            ),
            StateKind::RawOperator => (
                self.raw_operator_state
                    .handle
                    .as_ref()
                    .map(AnyHandle::Operator),
                &[],
                true,
            ),
            StateKind::ManagedKeyed => (
                self.managed_keyed_state.as_ref().map(AnyHandle::Keyed),
                &[],
                true,
            ),
            StateKind::RawKeyed => (
                self.raw_keyed_state.as_ref().map(AnyHandle::Keyed),
                &[],
                true,
            ),
            StateKind::InputChannel => (None, &self.input_channel_state, true),
            StateKind::ResultSubpartition => (None, &self.result_subpartition_state, false),
        };
        one.into_iter()
            .chain(many.iter().map(move |h| AnyHandle::Channel(h, input)))
    }

    /// Flink's `OperatorSubtaskState.getStateSize()`.
    pub fn state_size(&self) -> i64 {
        StateKind::ALL
            .iter()
            .flat_map(|&k| self.handles(k))
            .map(|h| h.size())
            .fold(0, i64::wrapping_add)
    }

    /// Whether any handle is present (Flink's `hasState()`).
    pub fn has_state(&self) -> bool {
        StateKind::ALL
            .iter()
            .any(|&k| self.handles(k).next().is_some())
    }
}

/// What `show` reports of one operator.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorSummary {
    /// Subtask entries in the file (finished ones included).
    pub subtask_states: usize,
    /// Subtasks with at least one handle.
    pub subtasks_with_state: usize,
    /// Subtasks marked finished.
    pub finished_subtasks: usize,
    /// Inline coordinator state bytes, if any.
    pub coordinator_state_bytes: Option<i64>,
    /// Flink's `OperatorState.getStateSize()`.
    pub state_bytes: i64,
    /// Kinds of state present.
    pub kinds: Vec<StateKind>,
    /// Operator state names with their distribution mode, deduplicated, in first-seen order.
    pub operator_states: Vec<(String, DistributionMode)>,
}

impl OperatorState {
    /// Flink's `OperatorState.getStateSize()`: coordinator bytes plus every subtask's state.
    pub fn state_size(&self) -> i64 {
        let coordinator = self.coordinator_state.as_ref().map_or(0, stream_size);
        self.subtasks
            .iter()
            .filter_map(|s| s.state.as_ref())
            .map(SubtaskState::state_size)
            .fold(coordinator, i64::wrapping_add)
    }

    /// Whether Flink considers the operator's state empty: no coordinator state and no subtask with a
    /// handle. Flink skips such state silently when no operator of the new job claims it.
    pub fn is_empty(&self) -> bool {
        self.coordinator_state.is_none()
            && !self
                .subtasks
                .iter()
                .filter_map(|s| s.state.as_ref())
                .any(SubtaskState::has_state)
    }

    /// The summary `show` prints.
    pub fn summary(&self) -> OperatorSummary {
        let mut kinds = Vec::new();
        let mut operator_states: Vec<(String, DistributionMode)> = Vec::new();
        let mut with_state = 0;
        for st in self.subtasks.iter().filter_map(|s| s.state.as_ref()) {
            if st.has_state() {
                with_state += 1;
            }
            for k in StateKind::ALL {
                for h in st.handles(k) {
                    if !kinds.contains(&k) {
                        kinds.push(k);
                    }
                    if let AnyHandle::Operator(o) = h {
                        for s in &o.states {
                            if !operator_states
                                .iter()
                                .any(|(n, m)| n == &s.name && *m == s.mode)
                            {
                                operator_states.push((s.name.clone(), s.mode));
                            }
                        }
                    }
                }
            }
        }
        kinds.sort();
        OperatorSummary {
            subtask_states: self.subtasks.len(),
            subtasks_with_state: with_state,
            finished_subtasks: self.subtasks.iter().filter(|s| s.finished()).count(),
            coordinator_state_bytes: self.coordinator_state.as_ref().map(stream_size),
            state_bytes: self.state_size(),
            kinds,
            operator_states,
        }
    }
}
