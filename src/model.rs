//! What a `_metadata` file says, as owned values. Every field the file stores is kept (including legacy
//! fields Flink ignores) so that the model can be written back byte for byte.

use std::fmt;

/// Flink's 16-byte operator ID, in file order (its hex form is what Flink's UI, REST API and logs print).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct OperatorId(pub [u8; 16]);

impl OperatorId {
    /// Parses 32 hex digits (either case).
    pub fn from_hex(s: &str) -> Option<Self> {
        let mut out = [0u8; 16];
        hex::decode_to_slice(s, &mut out).ok()?;
        Some(OperatorId(out))
    }
}

impl fmt::Display for OperatorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for OperatorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The part of the file before the operators.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Metadata format version (2 to 7).
    pub version: i32,
    /// Checkpoint ID (savepoints have one too).
    pub checkpoint_id: i64,
    /// States of master hooks (`MasterTriggerRestoreHook`).
    pub master_states: Vec<MasterState>,
    /// Number of operator records that follow.
    pub operator_count: usize,
}

/// The state of one master hook.
#[derive(Debug, Clone, PartialEq)]
pub struct MasterState {
    /// The hook's serializer version.
    pub version: i32,
    /// The hook's name.
    pub name: String,
    /// Opaque payload written by the hook's serializer.
    pub payload: Vec<u8>,
}

/// One operator's state: the unit Flink matches against the new job by ID.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorState {
    /// Byte offset of this operator's record in the file.
    pub offset: u64,
    /// Operator name (format 5 and later; `None` when not recorded or empty).
    pub name: Option<String>,
    /// Operator uid (format 5 and later; `None` when not recorded or empty).
    pub uid: Option<String>,
    /// The operator ID state is matched by.
    pub id: OperatorId,
    /// Parallelism when the snapshot was taken.
    pub parallelism: i32,
    /// Max parallelism (number of key groups).
    pub max_parallelism: i32,
    /// Format 2 only: the legacy chain length field (written as 1, ignored by Flink).
    pub legacy_chain_length: Option<i32>,
    /// Operator coordinator state (format 3 and later), e.g. a FLIP-27 source's enumerator.
    pub coordinator_state: Option<StreamHandle>,
    /// The subtask count as written: negative (-1) marks a fully finished operator (format 3+).
    pub subtask_count: i32,
    /// The subtask entries, in file order.
    pub subtasks: Vec<SubtaskEntry>,
}

impl OperatorState {
    /// Flink's "fully finished" marker: every subtask finished, no entries follow.
    pub fn fully_finished(&self) -> bool {
        self.subtask_count < 0 && self.legacy_chain_length.is_none()
    }
}

/// One subtask entry of an operator.
#[derive(Debug, Clone, PartialEq)]
pub struct SubtaskEntry {
    /// The index as stored: a negative value `-i-1` marks subtask `i` as finished (Flink 1.14+).
    pub stored_index: i32,
    /// The subtask's state; `None` for finished subtasks.
    pub state: Option<SubtaskState>,
}

impl SubtaskEntry {
    /// The subtask index.
    pub fn index(&self) -> i32 {
        if self.stored_index < 0 {
            -(self.stored_index + 1)
        } else {
            self.stored_index
        }
    }

    /// Whether the subtask had finished when the snapshot was taken.
    pub fn finished(&self) -> bool {
        self.stored_index < 0
    }
}

/// A handle slot guarded by an `i32` presence flag (managed and raw operator state).
#[derive(Debug, Clone, PartialEq)]
pub struct Flagged<T> {
    /// The flag as written: 0 = absent (nothing follows), any other value = a handle follows.
    pub flag: i32,
    /// The handle that follows a non-zero flag (it may itself be the null handle).
    pub handle: Option<T>,
}

impl<T> Flagged<T> {
    /// No handle, flag 0.
    pub fn absent() -> Self {
        Flagged {
            flag: 0,
            handle: None,
        }
    }
}

/// The state of one subtask.
#[derive(Debug, Clone, PartialEq)]
pub struct SubtaskState {
    /// Format 2 only: legacy duration (written as -1) and legacy state count (written as 0).
    pub legacy_v2: Option<(i64, i32)>,
    /// Managed operator state (e.g. source splits, list state).
    pub managed_operator_state: Flagged<OperatorHandle>,
    /// Raw operator state.
    pub raw_operator_state: Flagged<OperatorHandle>,
    /// Managed keyed state (`None` = null handle).
    pub managed_keyed_state: Option<KeyedHandle>,
    /// Raw keyed state (`None` = null handle).
    pub raw_keyed_state: Option<KeyedHandle>,
    /// In-flight input data of an unaligned checkpoint (format 3+).
    pub input_channel_state: Vec<ChannelHandle>,
    /// In-flight output data of an unaligned checkpoint (format 3+).
    pub result_subpartition_state: Vec<ChannelHandle>,
    /// Format 7 only: the marker byte and, when it is 1, the reference checkpoint ID.
    pub ref_checkpoint: Option<(u8, Option<i64>)>,
}

/// A key-group range: `count` key groups from `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyGroupRange {
    /// First key group.
    pub start: i32,
    /// Number of key groups (0 = empty range).
    pub count: i32,
}

impl KeyGroupRange {
    /// Last key group of the range, as Flink reports it (`start - 1` when empty... Flink uses -1).
    pub fn end(&self) -> i32 {
        if self.count == 0 {
            -1
        } else {
            self.start.saturating_add(self.count - 1)
        }
    }
}

/// A handle to a stream of bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamHandle {
    /// Tag 1: bytes stored inline in `_metadata`.
    ByteStream {
        /// The handle's name (a UUID, an operator ID or an intended file path).
        name: String,
        /// The state bytes.
        data: Vec<u8>,
    },
    /// Tag 2: a file at an absolute path.
    File {
        /// File length in bytes.
        size: i64,
        /// The path as written (`file:/…`, `s3://…`, …).
        path: String,
    },
    /// Tag 3 in the stream context: a key-groups handle standing in for a stream.
    KeyGroups(Box<KeyGroupsHandle>),
    /// Tag 6: a file relative to the directory of `_metadata`.
    RelativeFile {
        /// The relative path as written.
        path: String,
        /// File length in bytes.
        size: i64,
    },
    /// Tag 15: a byte range of a merged file (file merging, Flink 1.20+).
    Segment {
        /// Start of the range in the physical file.
        start: i64,
        /// Length of the range.
        size: i64,
        /// Scope ordinal: 0 = exclusive (task owned), 1 = shared.
        scope: i32,
        /// Absolute path of the physical file.
        path: String,
        /// Logical file ID.
        logical_file_id: String,
    },
    /// Tag 16: an empty segment.
    EmptySegment,
}

/// Which key-groups handle layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyGroupsKind {
    /// Tag 3: `KeyGroupsStateHandle`, older writers.
    Legacy,
    /// Tag 7: `KeyGroupsSavepointStateHandle` (canonical savepoints).
    Savepoint,
    /// Tag 12: `KeyGroupsStateHandle` with a state handle ID.
    V2,
}

/// Key-grouped state in one stream, with the offset of each key group.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyGroupsHandle {
    /// The layout.
    pub kind: KeyGroupsKind,
    /// The key groups covered.
    pub range: KeyGroupRange,
    /// Offset of each key group in the delegate stream.
    pub offsets: Vec<i64>,
    /// The stream holding the data.
    pub delegate: Option<StreamHandle>,
    /// Tag 12 only: the state handle ID.
    pub handle_id: Option<String>,
}

/// A file of an incremental snapshot, with its local name in the backend (e.g. `000012.sst`).
#[derive(Debug, Clone, PartialEq)]
pub struct NamedHandle {
    /// The local file name.
    pub name: String,
    /// Where its bytes are.
    pub handle: Option<StreamHandle>,
}

/// Tags 5 and 11: RocksDB/ForSt incremental checkpoints and native savepoints.
#[derive(Debug, Clone, PartialEq)]
pub struct IncrementalHandle {
    /// Tag 11 (true) or the legacy tag 5 (false).
    pub v2: bool,
    /// The checkpoint the files belong to.
    pub checkpoint_id: i64,
    /// The backend instance ID (normally a UUID).
    pub backend_id: String,
    /// Key groups covered (no offsets).
    pub range: KeyGroupRange,
    /// Tag 11 only: the checkpointed (incremental) size.
    pub checkpointed_size: Option<i64>,
    /// The backend's meta data stream.
    pub meta: Option<StreamHandle>,
    /// Files shared between checkpoints (`shared/`).
    pub shared: Vec<NamedHandle>,
    /// Files private to this checkpoint.
    pub private: Vec<NamedHandle>,
    /// Tag 11 only: the state handle ID.
    pub handle_id: Option<String>,
}

/// Which release's layout a changelog handle was read with (the layouts changed without a version bump).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangelogLayout {
    /// Flink 1.15 and later.
    Current,
    /// Flink 1.14.
    Flink114,
}

/// Tags 8 and 14: `ChangelogStateBackendHandle`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangelogHandle {
    /// Tag 14 (true) or 8.
    pub v2: bool,
    /// The layout the bytes follow.
    pub layout: ChangelogLayout,
    /// Key groups covered.
    pub range: KeyGroupRange,
    /// Current layout: the checkpointed size.
    pub checkpointed_size: Option<i64>,
    /// The materialized part (keyed handles).
    pub materialized: Vec<Option<KeyedHandle>>,
    /// The changes since materialization.
    pub non_materialized: Vec<Option<KeyedHandle>>,
    /// Current layout: materialization ID.
    pub materialization_id: Option<i64>,
    /// Tag 14 only: checkpoint ID.
    pub checkpoint_id: Option<i64>,
    /// Current layout: state handle ID.
    pub handle_id: Option<String>,
}

/// Tag 9: changelog increments held inline.
#[derive(Debug, Clone, PartialEq)]
pub struct InMemoryChangelogHandle {
    /// Key groups covered.
    pub range: KeyGroupRange,
    /// First sequence number.
    pub from: i64,
    /// Last sequence number.
    pub to: i64,
    /// The changes: key group (-1 = metadata) and bytes.
    pub changes: Vec<(i32, Vec<u8>)>,
    /// Current layout: state handle ID (absent in 1.14 files).
    pub handle_id: Option<String>,
}

/// Tags 10 and 13: changelog increments in files.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangelogFileHandle {
    /// Tag 13 (true) or 10.
    pub v2: bool,
    /// The layout the bytes follow.
    pub layout: ChangelogLayout,
    /// Key groups covered.
    pub range: KeyGroupRange,
    /// Streams and the offset in each.
    pub handles: Vec<(Option<StreamHandle>, i64)>,
    /// State size.
    pub size: i64,
    /// Current layout: checkpointed size.
    pub checkpointed_size: Option<i64>,
    /// Current layout: state handle ID.
    pub handle_id: Option<String>,
    /// Tag 13 only: storage identifier.
    pub storage_id: Option<String>,
}

/// A handle to keyed state.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyedHandle {
    /// Tags 3, 7, 12.
    KeyGroups(KeyGroupsHandle),
    /// Tags 5, 11.
    Incremental(IncrementalHandle),
    /// Tags 8, 14.
    Changelog(Box<ChangelogHandle>),
    /// Tag 9.
    InMemoryChangelog(InMemoryChangelogHandle),
    /// Tags 10, 13.
    ChangelogFile(ChangelogFileHandle),
}

/// How Flink redistributes an operator state's elements on restore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistributionMode {
    /// 0: elements are split across subtasks (list state, source splits).
    SplitDistribute,
    /// 1: every subtask gets all elements (union list state).
    Union,
    /// 2: broadcast state.
    Broadcast,
}

impl DistributionMode {
    /// From the ordinal in the file.
    pub fn from_ordinal(o: u8) -> Option<Self> {
        match o {
            0 => Some(Self::SplitDistribute),
            1 => Some(Self::Union),
            2 => Some(Self::Broadcast),
            _ => None,
        }
    }

    /// The ordinal in the file.
    pub fn ordinal(self) -> u8 {
        self as u8
    }

    /// Flink's name for the mode.
    pub fn name(self) -> &'static str {
        match self {
            Self::SplitDistribute => "SPLIT_DISTRIBUTE",
            Self::Union => "UNION",
            Self::Broadcast => "BROADCAST",
        }
    }
}

/// One named operator state inside an operator-state stream.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorStateMeta {
    /// The state's name, e.g. `SourceReaderState`.
    pub name: String,
    /// How it is redistributed.
    pub mode: DistributionMode,
    /// Offset of each element in the delegate stream.
    pub offsets: Vec<i64>,
}

/// Tag 17's extra fields (file merging).
#[derive(Debug, Clone, PartialEq)]
pub struct FileMergingDirs {
    /// Directory of task-owned files.
    pub task_owned_dir: String,
    /// Directory of shared files.
    pub shared_dir: String,
    /// The `isEmpty` byte as written (non-zero = `EmptyFileMergingOperatorStreamStateHandle`).
    pub empty: u8,
}

/// Tags 4 and 17: operator (non-keyed) state.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorHandle {
    /// The named states in the stream (file order).
    pub states: Vec<OperatorStateMeta>,
    /// Tag 17 only.
    pub file_merging: Option<FileMergingDirs>,
    /// The stream holding the data.
    pub delegate: Option<StreamHandle>,
}

/// Which channel a piece of in-flight data belongs to: (gate, channel) for inputs, (partition,
/// subpartition) for outputs.
pub type ChannelInfo = (i32, i32);

/// A channel-state handle (unaligned checkpoints).
#[derive(Debug, Clone, PartialEq)]
pub enum ChannelHandle {
    /// One channel's data (untagged in formats 3–5; tag 1 or 2 in format 6+).
    Single {
        /// Format 6+: the tag (1 input, 2 output); `None` for untagged formats.
        tag: Option<u8>,
        /// Subtask index (absent in files from Flink 1.11).
        subtask_index: Option<i32>,
        /// The channel.
        info: ChannelInfo,
        /// Offsets of the channel's buffers in the delegate.
        offsets: Vec<i64>,
        /// Bytes belonging to this channel.
        size: i64,
        /// The stream holding the data.
        delegate: Option<StreamHandle>,
    },
    /// Format 6+, tags 3 (input) and 4 (output): many channels in one stream.
    Merged {
        /// 3 input, 4 output.
        tag: u8,
        /// Subtask index.
        subtask_index: i32,
        /// Total bytes of all entries.
        total_size: i64,
        /// The stream holding the data.
        delegate: Option<StreamHandle>,
        /// Per channel: info, size and buffer offsets.
        entries: Vec<(ChannelInfo, i64, Vec<i64>)>,
    },
}

/// The Java-serialized `CheckpointProperties` after the operators (format 4+).
#[derive(Debug, Clone, PartialEq)]
pub struct Trailer {
    /// Where it starts in the file.
    pub offset: u64,
    /// Its bytes, kept as read.
    pub bytes: Vec<u8>,
    /// What the bytes say, when they are the object this tool understands.
    pub properties: Option<CheckpointProperties>,
    /// Why `properties` is `None`, or what was odd about the bytes.
    pub note: Option<String>,
}

/// What the trailer says about the snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointProperties {
    /// Java class of the snapshot type (`CheckpointType` or `SavepointType`).
    pub type_class: String,
    /// Its name field, e.g. `Checkpoint`, `Suspend Savepoint`.
    pub type_name: Option<String>,
    /// `CANONICAL` or `NATIVE` for savepoints.
    pub savepoint_format: Option<String>,
    /// Post-checkpoint action of a savepoint (`NONE`, `SUSPEND`, `TERMINATE`).
    pub post_checkpoint_action: Option<String>,
    /// Sharing-files strategy of a checkpoint.
    pub sharing_files_strategy: Option<String>,
    /// The boolean fields (`forced`, `discardSubsumed`, …) in the order written.
    pub flags: Vec<(String, bool)>,
}

impl CheckpointProperties {
    /// Whether the snapshot is a savepoint.
    pub fn is_savepoint(&self) -> bool {
        self.type_class.ends_with("SavepointType")
    }
}

/// What follows the operators.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tail {
    /// Format 4+: the properties trailer.
    pub trailer: Option<Trailer>,
    /// Bytes Flink ignores: after the body (formats 2/3) or after the checkpoint properties (4+). Counted,
    /// not kept: a file padded to gigabytes costs no memory, and the encoder writes what Flink reads.
    pub ignored_bytes: u64,
}

/// A whole decoded `_metadata` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Metadata {
    /// Version, checkpoint ID, master states.
    pub header: Header,
    /// Operators in file order.
    pub operators: Vec<OperatorState>,
    /// Trailer and trailing bytes.
    pub tail: Tail,
}

impl StreamHandle {
    /// The tag this handle is written with in the stream context.
    pub fn tag(&self) -> u8 {
        match self {
            StreamHandle::ByteStream { .. } => 1,
            StreamHandle::File { .. } => 2,
            StreamHandle::KeyGroups(_) => 3,
            StreamHandle::RelativeFile { .. } => 6,
            StreamHandle::Segment { .. } => 15,
            StreamHandle::EmptySegment => 16,
        }
    }
}

impl KeyedHandle {
    /// The tag this handle is written with in the keyed context.
    pub fn tag(&self) -> u8 {
        match self {
            KeyedHandle::KeyGroups(k) => match k.kind {
                KeyGroupsKind::Legacy => 3,
                KeyGroupsKind::Savepoint => 7,
                KeyGroupsKind::V2 => 12,
            },
            KeyedHandle::Incremental(i) => {
                if i.v2 {
                    11
                } else {
                    5
                }
            }
            KeyedHandle::Changelog(c) => {
                if c.v2 {
                    14
                } else {
                    8
                }
            }
            KeyedHandle::InMemoryChangelog(_) => 9,
            KeyedHandle::ChangelogFile(f) => {
                if f.v2 {
                    13
                } else {
                    10
                }
            }
        }
    }
}

impl OperatorHandle {
    /// The tag this handle is written with in the operator context.
    pub fn tag(&self) -> u8 {
        if self.file_merging.is_some() {
            17
        } else {
            4
        }
    }
}

impl ChannelHandle {
    /// The tag this handle is written with (format 6+); `None` for untagged formats.
    pub fn tag(&self) -> Option<u8> {
        match self {
            ChannelHandle::Single { tag, .. } => *tag,
            ChannelHandle::Merged { tag, .. } => Some(*tag),
        }
    }
}
