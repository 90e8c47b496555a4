//! What source and sink state says: FLIP-27 splits (Kafka, FileSource, NumberSequenceSource), split
//! enumerator checkpoints, and Sink V2 writer and committer states (Kafka). Layouts from
//! shared/reference/connector-state.md; a payload that matches no known layout exactly is shown as
//! version, length and a hex prefix — never guessed.

use crate::metadata::reader::{Cursor, Result};
use serde::Serialize;

/// How a Kafka offset is written: a concrete offset or one of the connector's markers.
pub fn kafka_offset(v: i64) -> String {
    match v {
        i64::MIN => "none".into(),
        -1 => "latest".into(),
        -2 => "earliest".into(),
        -3 => "committed".into(),
        v => v.to_string(),
    }
}

/// An opaque payload, described.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Opaque {
    /// Serializer version.
    pub version: i32,
    /// Payload length.
    pub length: usize,
    /// The first bytes, in hex.
    pub hex_prefix: String,
}

fn opaque(version: i32, bytes: &[u8]) -> Opaque {
    Opaque {
        version,
        length: bytes.len(),
        hex_prefix: hex::encode(bytes.get(..32).unwrap_or(bytes)),
    }
}

/// A FLIP-27 source split.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Split {
    /// `KafkaPartitionSplit`.
    Kafka {
        /// Topic.
        topic: String,
        /// Partition.
        partition: i32,
        /// Next offset to read, or a marker (`earliest`, `latest`, `committed`).
        starting_offset: String,
        /// Offset to stop at, or `none` (unbounded).
        stopping_offset: String,
    },
    /// `DynamicKafkaSourceSplit`: a Kafka split of one of several clusters.
    DynamicKafka {
        /// The Kafka cluster.
        cluster_id: String,
        /// Version 2 (unreleased): retained until this time, in ms.
        retained_until_ms: Option<i64>,
        /// The Kafka split.
        split: Box<Split>,
    },
    /// `NumberSequenceSource.NumberSequenceSplit`.
    NumberSequence {
        /// Split ID.
        id: String,
        /// Next number.
        from: i64,
        /// Last number.
        to: i64,
    },
    /// `FileSourceSplit`.
    File {
        /// Split ID.
        id: String,
        /// The file.
        path: Option<String>,
        /// Start of the split in the file.
        offset: i64,
        /// Length of the split.
        length: i64,
        /// File modification time (newer releases).
        modification_time: Option<i64>,
        /// File size (newer releases).
        file_size: Option<i64>,
        /// Checkpointed reader position: (offset, records after offset).
        position: Option<(i64, i64)>,
    },
    /// A split this tool does not know.
    Unknown(Opaque),
}

impl Split {
    /// The Kafka topic of a Kafka split (of a plain or a dynamic Kafka source).
    pub fn kafka_topic(&self) -> Option<&str> {
        match self {
            Split::Kafka { topic, .. } => Some(topic),
            Split::DynamicKafka { split, .. } => split.kafka_topic(),
            _ => None,
        }
    }
}

/// Reads a Flink `StringValue` string (varint length + 1, then varint chars); `None` for null.
fn string_value(c: &mut Cursor<'_>) -> Result<Option<String>> {
    fn varint(c: &mut Cursor<'_>) -> Result<u32> {
        let mut v: u32 = 0;
        for shift in (0..35).step_by(7) {
            let b = c.u8()?;
            v |= u32::from(b & 0x7F).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(c.error(crate::metadata::ErrorKind::BadValue {
            what: "varint",
            value: -1,
            expected: "at most 5 bytes",
        }))
    }
    let n = varint(c)?;
    if n == 0 {
        return Ok(None);
    }
    let len = c.check_count(c.offset(), "string length", i64::from(n - 1), 1)?;
    let mut units = Vec::with_capacity(len);
    for _ in 0..len {
        units.push(u16::try_from(varint(c)?).unwrap_or(0xFFFD));
    }
    Ok(Some(String::from_utf16_lossy(&units)))
}

fn nullable_string(c: &mut Cursor<'_>) -> Result<Option<String>> {
    if c.u8()? != 0 {
        string_value(c)
    } else {
        Ok(None)
    }
}

/// Flink's `Path.serializeToDataOutputView`: a presence flag, then the URI's parts.
fn path(c: &mut Cursor<'_>) -> Result<Option<String>> {
    if c.u8()? == 0 {
        return Ok(None);
    }
    let scheme = nullable_string(c)?;
    let user = nullable_string(c)?;
    let host = nullable_string(c)?;
    let port = c.i32()?;
    let path = nullable_string(c)?.unwrap_or_default();
    let _query = nullable_string(c)?;
    let _fragment = nullable_string(c)?;
    let mut s = String::new();
    if let Some(sc) = scheme {
        s.push_str(&sc);
        s.push(':');
        if host.is_some() {
            s.push_str("//");
        }
    }
    if let Some(u) = user {
        s.push_str(&u);
        s.push('@');
    }
    if let Some(h) = host {
        s.push_str(&h);
        if port >= 0 {
            s.push_str(&format!(":{port}"));
        }
    }
    s.push_str(&path);
    Ok(Some(s))
}

/// Runs `read` over all of `bytes`; `None` unless it succeeds and consumes every byte.
fn exactly<T>(bytes: &[u8], read: impl FnOnce(&mut Cursor<'_>) -> Result<T>) -> Option<T> {
    let mut c = Cursor::new(bytes);
    let v = read(&mut c).ok()?;
    (c.remaining() == 0).then_some(v)
}

fn kafka_split(c: &mut Cursor<'_>) -> Result<Split> {
    Ok(Split::Kafka {
        topic: c.utf()?,
        partition: c.i32()?,
        starting_offset: kafka_offset(c.i64()?),
        stopping_offset: kafka_offset(c.i64()?),
    })
}

/// `DynamicKafkaSourceSplitSerializer`: cluster id, (v2: retention), the Kafka split's serializer version,
/// then the Kafka split's bytes to the end.
fn dynamic_kafka_split(c: &mut Cursor<'_>, version: i32) -> Result<Split> {
    let cluster_id = c.utf()?;
    let retained_until_ms = if version >= 2 && c.u8()? != 0 {
        Some(c.i64()?)
    } else {
        None
    };
    let inner_version = c.i32()?;
    let inner = split(inner_version, c.rest());
    c.bytes(c.remaining())?;
    match inner {
        Split::Kafka { .. } => Ok(Split::DynamicKafka {
            cluster_id,
            retained_until_ms,
            split: Box::new(inner),
        }),
        _ => Err(c.error(crate::metadata::ErrorKind::Unsupported(
            "not a Kafka split inside".into(),
        ))),
    }
}

fn number_split(c: &mut Cursor<'_>) -> Result<Split> {
    Ok(Split::NumberSequence {
        id: c.utf()?,
        from: c.i64()?,
        to: c.i64()?,
    })
}

fn file_split(c: &mut Cursor<'_>, with_file_info: bool) -> Result<Split> {
    let id = c.utf()?;
    let path = path(c)?;
    let offset = c.i64()?;
    let length = c.i64()?;
    let (modification_time, file_size) = if with_file_info {
        (Some(c.i64()?), Some(c.i64()?))
    } else {
        (None, None)
    };
    let hosts = c.count("host count", 2)?;
    for _ in 0..hosts {
        c.utf()?;
    }
    let position = if c.u8()? != 0 {
        Some((c.i64()?, c.i64()?))
    } else {
        None
    };
    Ok(Split::File {
        id,
        path,
        offset,
        length,
        modification_time,
        file_size,
        position,
    })
}

/// Decodes a split from its serializer version and bytes: the first known layout that reads every byte.
pub fn split(version: i32, bytes: &[u8]) -> Split {
    let found = match version {
        0 => exactly(bytes, kafka_split),
        1 => exactly(bytes, number_split)
            .or_else(|| exactly(bytes, |c| file_split(c, true)))
            .or_else(|| exactly(bytes, |c| file_split(c, false)))
            .or_else(|| exactly(bytes, |c| dynamic_kafka_split(c, 1))),
        2 => exactly(bytes, |c| dynamic_kafka_split(c, 2)),
        _ => None,
    };
    found.unwrap_or_else(|| Split::Unknown(opaque(version, bytes)))
}

/// A Kafka cluster of a dynamic Kafka source's stream: cluster id, topics, bootstrap servers.
pub type ClusterMetadata = (String, Vec<String>, String);

/// A split enumerator checkpoint (the source coordinator's state).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EnumeratorState {
    /// `KafkaSourceEnumState`.
    Kafka {
        /// Serializer version (0–3).
        version: i32,
        /// Partitions: topic, partition, status (`assigned`/`unassigned`).
        partitions: Vec<(String, i32, String)>,
        /// Version 3: the splits as discovered (with their starting offsets).
        splits: Vec<Split>,
        /// Versions 2+: whether the first partition discovery finished.
        initial_discovery_finished: Option<bool>,
    },
    /// FileSource's `PendingSplitsCheckpoint`: splits not yet assigned, files already processed.
    File {
        /// Unassigned splits.
        splits: Vec<Split>,
        /// Files the enumerator has already turned into splits.
        processed_paths: Vec<String>,
    },
    /// `DynamicKafkaSourceEnumState`: the streams' cluster metadata and one Kafka enumerator state per
    /// cluster.
    DynamicKafka {
        /// Serializer version (1: connector 3.1–4.0, 2: 5.0, 3: unreleased).
        version: i32,
        /// Stream id, then per cluster: cluster id, topics, bootstrap servers.
        streams: Vec<(String, Vec<ClusterMetadata>)>,
        /// Per cluster: its Kafka enumerator state.
        clusters: Vec<(String, EnumeratorState)>,
    },
    /// `NumberSequenceSource`'s remaining splits.
    NumberSequence {
        /// Splits not yet assigned.
        splits: Vec<Split>,
    },
    /// An enumerator this tool does not know.
    Unknown(Opaque),
}

fn status(code: i32) -> String {
    match code {
        0 => "assigned".into(),
        1 => "unassigned".into(),
        c => format!("status {c}"),
    }
}

fn kafka_enum(version: i32, c: &mut Cursor<'_>) -> Result<EnumeratorState> {
    let mut partitions = Vec::new();
    let mut splits = Vec::new();
    let mut initial = None;
    match version {
        0 => {
            let subtasks = c.count("subtask count", 8)?;
            let split_version = c.i32()?;
            for _ in 0..subtasks {
                let _subtask = c.i32()?;
                let n = c.count("split count", 4)?;
                for _ in 0..n {
                    let s = split(split_version, c.byte_array("split length")?);
                    if let Split::Kafka {
                        topic, partition, ..
                    } = &s
                    {
                        partitions.push((topic.clone(), *partition, status(0)));
                    }
                    splits.push(s);
                }
            }
        }
        1 | 2 => {
            let n = c.count("partition count", 6)?;
            for _ in 0..n {
                let topic = c.utf()?;
                let partition = c.i32()?;
                let code = if version == 2 { c.i32()? } else { 0 };
                partitions.push((topic, partition, status(code)));
            }
            if version == 2 {
                initial = Some(c.u8()? != 0);
            }
        }
        3 => {
            let n = c.count("split count", 8)?;
            let split_version = c.i32()?;
            for _ in 0..n {
                let s = split(split_version, c.byte_array("split length")?);
                let code = c.i32()?;
                if let Split::Kafka {
                    topic, partition, ..
                } = &s
                {
                    partitions.push((topic.clone(), *partition, status(code)));
                }
                splits.push(s);
            }
            initial = Some(c.u8()? != 0);
        }
        _ => return Err(c.error(crate::metadata::ErrorKind::UnsupportedVersion(version))),
    }
    Ok(EnumeratorState::Kafka {
        version,
        partitions,
        splits,
        initial_discovery_finished: initial,
    })
}

/// `PendingSplitsCheckpointSerializer`: unlike everything else here, its own fields are little-endian.
fn file_enum(c: &mut Cursor<'_>) -> Result<EnumeratorState> {
    fn le(c: &mut Cursor<'_>) -> Result<i32> {
        c.bytes(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn le_count(c: &mut Cursor<'_>, what: &'static str, min_size: u64) -> Result<usize> {
        let at = c.offset();
        let n = le(c)?;
        c.check_count(at, what, i64::from(n), min_size)
    }
    let magic_at = c.offset();
    let magic = le(c)?;
    if magic as u32 != 0xDEAD_BEEF {
        return Err(c.error_at(magic_at, crate::metadata::ErrorKind::BadMagic(magic as u32)));
    }
    let split_version = le(c)?;
    let n_splits = le_count(c, "split count", 4)?;
    let n_paths = le_count(c, "path count", 4)?;
    let mut splits = Vec::with_capacity(n_splits);
    for _ in 0..n_splits {
        let len = le_count(c, "split length", 1)?;
        splits.push(split(split_version, c.bytes(len)?));
    }
    let mut processed_paths = Vec::with_capacity(n_paths);
    for _ in 0..n_paths {
        let len = le_count(c, "path length", 1)?;
        processed_paths.push(String::from_utf8_lossy(c.bytes(len)?).into_owned());
    }
    Ok(EnumeratorState::File {
        splits,
        processed_paths,
    })
}

fn dynamic_kafka_enum(version: i32, c: &mut Cursor<'_>) -> Result<EnumeratorState> {
    let n_streams = c.count("stream count", 6)?;
    let mut streams = Vec::with_capacity(n_streams);
    for _ in 0..n_streams {
        let stream_id = c.utf()?;
        let n_clusters = c.count("cluster count", 8)?;
        let mut clusters = Vec::with_capacity(n_clusters);
        for _ in 0..n_clusters {
            let cluster_id = c.utf()?;
            let n_topics = c.count("topic count", 2)?;
            let topics = (0..n_topics).map(|_| c.utf()).collect::<Result<Vec<_>>>()?;
            let bootstrap = c.utf()?;
            if version >= 2 {
                // Two optional offsets initializers (Java-serialized): skipped.
                for _ in 0..2 {
                    if c.u8()? != 0 {
                        c.byte_array("offsets initializer length")?;
                    }
                }
            }
            clusters.push((cluster_id, topics, bootstrap));
        }
        streams.push((stream_id, clusters));
    }
    let kafka_version = c.i32()?;
    let n = c.count("cluster state count", 6)?;
    let mut clusters = Vec::with_capacity(n);
    for _ in 0..n {
        let cluster_id = c.utf()?;
        let bytes = c.byte_array("cluster state length")?;
        let state = exactly(bytes, |k| kafka_enum(kafka_version, k))
            .unwrap_or_else(|| EnumeratorState::Unknown(opaque(kafka_version, bytes)));
        clusters.push((cluster_id, state));
    }
    if version >= 3 {
        let retained = c.count("retained cluster count", 14)?;
        for _ in 0..retained {
            c.utf()?;
            c.i64()?;
            c.byte_array("retained cluster state length")?;
        }
    }
    Ok(EnumeratorState::DynamicKafka {
        version,
        streams,
        clusters,
    })
}

fn number_enum(c: &mut Cursor<'_>) -> Result<EnumeratorState> {
    let n = c.count("split count", 18)?;
    let mut splits = Vec::with_capacity(n);
    for _ in 0..n {
        splits.push(number_split(c)?);
    }
    Ok(EnumeratorState::NumberSequence { splits })
}

/// The coordinator state of a FLIP-27 source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coordinator {
    /// `SourceCoordinator` serde version (0: Flink ≤ 1.12, 1: 1.13+).
    pub serde_version: i32,
    /// The enumerator checkpoint.
    pub enumerator: EnumeratorState,
}

/// Decodes a source coordinator's state; `None` when the bytes are not a source coordinator's.
pub fn coordinator(bytes: &[u8]) -> Option<Coordinator> {
    let mut c = Cursor::new(bytes);
    let serde_version = c.i32().ok()?;
    if !(0..=1).contains(&serde_version) {
        return None;
    }
    let version = c.i32().ok()?;
    let payload = c.byte_array("enumerator checkpoint length").ok()?;
    if serde_version == 1 && c.remaining() != 0 {
        return None;
    }
    // NumberSequenceSource's enumerator (version 1) and Kafka's version 1 differ per entry (two longs
    // after the split id, or one int after the topic): the layout that reads every byte wins.
    let enumerator = match version {
        1 => exactly(payload, number_enum)
            .or_else(|| exactly(payload, file_enum))
            .or_else(|| exactly(payload, |c| kafka_enum(1, c)))
            .or_else(|| exactly(payload, |c| dynamic_kafka_enum(1, c))),
        v => exactly(payload, |c| kafka_enum(v, c))
            .or_else(|| exactly(payload, |c| dynamic_kafka_enum(v, c))),
    }
    .unwrap_or_else(|| EnumeratorState::Unknown(opaque(version, payload)));
    Some(Coordinator {
        serde_version,
        enumerator,
    })
}

/// Sink V2 state: a writer's or a committer's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SinkState {
    /// FileSink's `FileWriterBucketState`: the bucket a writer subtask has open.
    FileWriter {
        /// Serializer version (1–3).
        version: i32,
        /// Bucket id (e.g. `2026-11-29--14`).
        bucket_id: String,
        /// Bucket directory.
        bucket_path: String,
        /// Creation time of the in-progress part file (ms).
        in_progress_file_creation_time: i64,
        /// Whether a part file was in progress.
        in_progress_file: bool,
        /// Versions 1–2: pending part files per checkpoint (checkpoint id, count).
        pending_files: Vec<(i64, usize)>,
    },
    /// `KafkaWriterState`.
    KafkaWriter {
        /// Serializer version (1 or 2).
        version: i32,
        /// The transactional id prefix.
        transactional_id_prefix: String,
        /// v2: the subtask whose transactions this state owns (-1 unknown).
        owned_subtask_id: Option<i32>,
        /// v2: how many subtasks own transactions (-1 unknown).
        owned_subtasks: Option<i32>,
        /// v2: transaction ownership (`IMPLICIT_BY_SUBTASK_ID`, `EXPLICIT_BY_WRITER_STATE`).
        ownership: Option<String>,
        /// v2: precommitted transactions: (transactional id, checkpoint id).
        precommitted: Vec<(String, i64)>,
    },
    /// The committer's `CommittableCollector`.
    Committables {
        /// Collector serializer version (1 legacy, 2 since 1.15).
        version: i32,
        /// Pending committables per checkpoint.
        checkpoints: Vec<CheckpointCommittables>,
    },
    /// A state this tool does not know.
    Unknown(Opaque),
}

/// Committables of one checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckpointCommittables {
    /// The checkpoint (`9223372036854775807` = end of input); `None` in the legacy (Flink 1.13/1.14) layout.
    pub checkpoint_id: Option<i64>,
    /// Committables, with the subtask that wrote each.
    pub committables: Vec<PendingCommittable>,
}

/// One committable not yet committed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingCommittable {
    /// Subtask that wrote it.
    pub subtask_id: Option<i32>,
    /// What it is.
    pub committable: Committable,
    /// Commit state (`RECEIVED`, `RETRY`, `FAILED`, `COMMITTED`).
    pub state: String,
}

/// A committable.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Committable {
    /// `KafkaCommittable`: a pending Kafka transaction.
    Kafka {
        /// Producer epoch.
        epoch: i16,
        /// Producer ID.
        producer_id: i64,
        /// Transactional ID.
        transactional_id: String,
    },
    /// `FileSinkCommittable`: a part file to publish or to clean up.
    File {
        /// Serializer version (1 or 2).
        version: i32,
        /// Version 2: the bucket id.
        bucket_id: Option<String>,
        /// A pending part file, published on commit.
        pending_file: bool,
        /// An in-progress part file to clean up.
        in_progress_file_to_cleanup: bool,
        /// Version 2: a compacted file to clean up.
        compacted_file_to_cleanup: Option<bool>,
    },
    /// Another sink's committable.
    Other(Opaque),
}

const FILE_COMMITTABLE_MAGIC: i32 = 0x1E76_5C80;
const FILE_BUCKET_STATE_MAGIC: i32 = 0x1E76_4B79;

fn magic(c: &mut Cursor<'_>, want: i32) -> Result<()> {
    let at = c.offset();
    let m = c.i32()?;
    if m != want {
        return Err(c.error_at(at, crate::metadata::ErrorKind::BadMagic(m as u32)));
    }
    Ok(())
}

/// A presence flag and, when set, a `SimpleVersionedSerialization` payload (skipped).
fn optional_versioned(c: &mut Cursor<'_>) -> Result<bool> {
    if c.u8()? == 0 {
        return Ok(false);
    }
    c.i32()?;
    c.byte_array("versioned payload length")?;
    Ok(true)
}

fn file_committable(version: i32, c: &mut Cursor<'_>) -> Result<Committable> {
    magic(c, FILE_COMMITTABLE_MAGIC)?;
    let bucket_id = if version >= 2 { Some(c.utf()?) } else { None };
    let pending_file = optional_versioned(c)?;
    let in_progress_file_to_cleanup = optional_versioned(c)?;
    let compacted_file_to_cleanup = if version >= 2 {
        Some(optional_versioned(c)?)
    } else {
        None
    };
    Ok(Committable::File {
        version,
        bucket_id,
        pending_file,
        in_progress_file_to_cleanup,
        compacted_file_to_cleanup,
    })
}

/// `SimpleVersionedStringSerializer`: a little-endian length, then UTF-8.
fn versioned_string(c: &mut Cursor<'_>) -> Result<String> {
    let _version = c.i32()?;
    let payload = c.byte_array("string payload length")?;
    let mut p = Cursor::nested(payload, 0, c);
    let n = p
        .bytes(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)?;
    Ok(String::from_utf8_lossy(p.bytes(n)?).into_owned())
}

fn file_writer(version: i32, c: &mut Cursor<'_>) -> Result<SinkState> {
    magic(c, FILE_BUCKET_STATE_MAGIC)?;
    let bucket_id = versioned_string(c)?;
    let bucket_path = c.utf()?;
    let in_progress_file_creation_time = c.i64()?;
    let in_progress_file = optional_versioned(c)?;
    let mut pending_files = Vec::new();
    if version <= 2 {
        let _pending_version = c.i32()?;
        let checkpoints = c.count("checkpoint count", 12)?;
        for _ in 0..checkpoints {
            let id = c.i64()?;
            let n = c.count("pending file count", 4)?;
            for _ in 0..n {
                c.byte_array("pending file length")?;
            }
            pending_files.push((id, n));
        }
    }
    Ok(SinkState::FileWriter {
        version,
        bucket_id,
        bucket_path,
        in_progress_file_creation_time,
        in_progress_file,
        pending_files,
    })
}

const COLLECTOR_MAGIC: i32 = 0xB91F_252Cu32 as i32;

fn committable(version: i32, bytes: &[u8]) -> Committable {
    let kafka = (version == 1).then(|| {
        exactly(bytes, |c| {
            let epoch = c.u16()? as i16;
            Ok(Committable::Kafka {
                epoch,
                producer_id: c.i64()?,
                transactional_id: c.utf()?,
            })
        })
    });
    kafka
        .flatten()
        .or_else(|| exactly(bytes, |c| file_committable(version, c)))
        .unwrap_or_else(|| Committable::Other(opaque(version, bytes)))
}

fn request_state(o: i32) -> String {
    match o {
        0 => "RECEIVED".into(),
        1 => "RETRY".into(),
        2 => "FAILED".into(),
        3 => "COMMITTED".into(),
        o => format!("state {o}"),
    }
}

fn collector_v2(c: &mut Cursor<'_>) -> Result<Vec<CheckpointCommittables>> {
    let checkpoint_version = c.i32()?;
    let n = c.count("checkpoint count", 4)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let entry = c.byte_array("checkpoint entry length")?;
        let mut e = Cursor::nested(entry, 0, c);
        let checkpoint_id = e.i64()?;
        if checkpoint_version >= 1 {
            e.i32()?; // number of subtasks
        }
        let subtask_version = e.i32()?;
        let subtasks = e.count("subtask count", 4)?;
        let mut committables = Vec::new();
        for _ in 0..subtasks {
            let sub = e.byte_array("subtask entry length")?;
            let mut s = Cursor::nested(sub, 0, &e);
            let subtask_id = if subtask_version >= 1 {
                Some(s.i32()?)
            } else {
                None
            };
            let _request_version = s.i32()?;
            let requests = s.count("request count", 4)?;
            for _ in 0..requests {
                let req = s.byte_array("request length")?;
                let mut r = Cursor::nested(req, 0, &s);
                let version = r.i32()?;
                let bytes = r.byte_array("committable length")?;
                let _retries = r.i32()?;
                let state = request_state(r.i32()?);
                committables.push(PendingCommittable {
                    subtask_id,
                    committable: committable(version, bytes),
                    state,
                });
            }
        }
        out.push(CheckpointCommittables {
            checkpoint_id: Some(checkpoint_id),
            committables,
        });
    }
    Ok(out)
}

/// The legacy collector (version 1, Flink 1.13/1.14 `StreamingCommitterState`): a list of committables.
fn collector_v1(c: &mut Cursor<'_>) -> Result<Vec<CheckpointCommittables>> {
    let version = c.i32()?;
    let n = c.count("committable count", 4)?;
    let mut committables = Vec::with_capacity(n);
    for _ in 0..n {
        let bytes = c.byte_array("committable length")?;
        committables.push(PendingCommittable {
            subtask_id: None,
            committable: committable(version, bytes),
            state: "RECEIVED".into(),
        });
    }
    Ok(vec![CheckpointCommittables {
        checkpoint_id: None,
        committables,
    }])
}

/// Decodes a sink state element (`writer_raw_states`, `streaming_committer_raw_states`).
pub fn sink_state(state_name: &str, version: i32, bytes: &[u8]) -> SinkState {
    let found = if state_name == "streaming_committer_raw_states" {
        exactly(bytes, |c| {
            let magic_at = c.offset();
            let magic = c.i32()?;
            if magic != COLLECTOR_MAGIC {
                return Err(
                    c.error_at(magic_at, crate::metadata::ErrorKind::BadMagic(magic as u32))
                );
            }
            match version {
                1 => Ok(SinkState::Committables {
                    version,
                    checkpoints: collector_v1(c)?,
                }),
                2 => Ok(SinkState::Committables {
                    version,
                    checkpoints: collector_v2(c)?,
                }),
                _ => Err(c.error(crate::metadata::ErrorKind::UnsupportedVersion(version))),
            }
        })
    } else {
        match version {
            1 => exactly(bytes, |c| {
                Ok(SinkState::KafkaWriter {
                    version,
                    transactional_id_prefix: c.utf()?,
                    owned_subtask_id: None,
                    owned_subtasks: None,
                    ownership: None,
                    precommitted: Vec::new(),
                })
            }),
            2 => exactly(bytes, |c| {
                let transactional_id_prefix = c.utf()?;
                let owned_subtask_id = Some(c.i32()?);
                let owned_subtasks = Some(c.i32()?);
                let ownership = Some(match c.i32()? {
                    0 => "IMPLICIT_BY_SUBTASK_ID".to_string(),
                    1 => "EXPLICIT_BY_WRITER_STATE".to_string(),
                    o => format!("ownership {o}"),
                });
                let n = c.count("precommitted transaction count", 10)?;
                let mut precommitted = Vec::with_capacity(n);
                for _ in 0..n {
                    precommitted.push((c.utf()?, c.i64()?));
                }
                Ok(SinkState::KafkaWriter {
                    version,
                    transactional_id_prefix,
                    owned_subtask_id,
                    owned_subtasks,
                    ownership,
                    precommitted,
                })
            }),
            _ => None,
        }
        .or_else(|| exactly(bytes, |c| file_writer(version, c)))
    };
    found.unwrap_or_else(|| SinkState::Unknown(opaque(version, bytes)))
}
