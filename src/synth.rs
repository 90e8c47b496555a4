//! Deterministic synthetic `_metadata` models, for property tests (encode → decode → same model) and for
//! generating large files to benchmark with (`examples/synth.rs`). Every model is one the decoder reads back
//! unchanged: canonical values only (non-empty names, current changelog layouts, valid ranges).

use crate::model::*;

/// A small deterministic PRNG (SplitMix64).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Seeded generator.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn i64(&mut self) -> i64 {
        self.next_u64() as i64
    }
    fn i32(&mut self) -> i32 {
        self.next_u64() as i32
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
    /// A string with ASCII, multi-byte, NUL and supplementary characters (all of modified UTF-8).
    fn text(&mut self, max: usize) -> String {
        const ALPHABET: [char; 8] = ['a', 'Z', '7', '-', '/', 'é', '\u{0}', '😀'];
        let n = self.below(max as u64 + 1) as usize;
        (0..n)
            .map(|_| ALPHABET[self.below(ALPHABET.len() as u64) as usize])
            .collect()
    }
    fn name(&mut self, prefix: &str) -> String {
        format!("{prefix}-{}", self.text(8))
    }
}

/// How big and what kind of state the generated operators hold.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    /// Largest inline state blob, in bytes.
    pub max_inline: usize,
    /// Shared files per incremental handle.
    pub shared_files: usize,
    /// Whether to use every handle kind (property tests) or the common ones (benchmarks).
    pub every_kind: bool,
}

impl Profile {
    /// Small and varied: for property tests.
    pub const SMALL: Profile = Profile {
        max_inline: 64,
        shared_files: 3,
        every_kind: true,
    };
}

fn range(rng: &mut Rng) -> KeyGroupRange {
    let start = rng.below(1 << 15) as i32;
    KeyGroupRange {
        start,
        count: rng.below(8) as i32,
    }
}

fn stream(rng: &mut Rng, p: &Profile, depth: u32) -> Option<StreamHandle> {
    let kinds = if p.every_kind { 8 } else { 3 };
    Some(match rng.below(kinds) {
        0 => StreamHandle::ByteStream {
            name: rng.name("handle"),
            data: {
                let n = rng.below(p.max_inline as u64 + 1) as usize;
                rng.bytes(n)
            },
        },
        1 => StreamHandle::RelativeFile {
            path: rng.name("state"),
            size: rng.below(1 << 30) as i64,
        },
        2 => StreamHandle::File {
            size: rng.below(1 << 30) as i64,
            path: format!("s3://bucket/{}", rng.name("f")),
        },
        3 => StreamHandle::Segment {
            start: rng.below(1 << 20) as i64,
            size: rng.below(1 << 20) as i64,
            scope: rng.below(2) as i32,
            path: rng.name("/segment"),
            logical_file_id: rng.name("logical"),
        },
        4 => StreamHandle::EmptySegment,
        5 if depth < 3 => {
            let r = range(rng);
            StreamHandle::KeyGroups(Box::new(KeyGroupsHandle {
                kind: KeyGroupsKind::Legacy,
                range: r,
                offsets: (0..r.count).map(|_| rng.below(1 << 20) as i64).collect(),
                delegate: stream(rng, p, depth + 1),
                handle_id: None,
            }))
        }
        6 => return None,
        _ => StreamHandle::ByteStream {
            name: String::new(),
            data: Vec::new(),
        },
    })
}

fn key_groups(rng: &mut Rng, p: &Profile, kind: KeyGroupsKind) -> KeyGroupsHandle {
    let r = range(rng);
    KeyGroupsHandle {
        kind,
        range: r,
        offsets: (0..r.count).map(|_| rng.below(1 << 20) as i64).collect(),
        delegate: stream(rng, p, 1),
        handle_id: (kind == KeyGroupsKind::V2).then(|| rng.name("id")),
    }
}

fn keyed(rng: &mut Rng, p: &Profile, depth: u32) -> Option<KeyedHandle> {
    let kinds = if p.every_kind { 11 } else { 3 };
    Some(match rng.below(kinds) {
        0 => KeyedHandle::KeyGroups(key_groups(rng, p, KeyGroupsKind::Savepoint)),
        1 | 2 => {
            let v2 = !p.every_kind || rng.chance(50);
            let files = |rng: &mut Rng, n: usize| {
                (0..n)
                    .map(|i| NamedHandle {
                        name: format!("{:06}.sst", i),
                        handle: stream(rng, p, 1),
                    })
                    .collect()
            };
            KeyedHandle::Incremental(IncrementalHandle {
                v2,
                checkpoint_id: rng.below(1 << 20) as i64,
                backend_id: "4f3c1b9e-2d7a-4e1f-9c3b-8a5d6e7f0a1b".into(),
                range: range(rng),
                checkpointed_size: v2.then(|| rng.below(1 << 30) as i64),
                meta: stream(rng, p, 1),
                shared: files(rng, p.shared_files),
                private: files(rng, 2),
                handle_id: v2.then(|| rng.name("id")),
            })
        }
        3 => KeyedHandle::KeyGroups(key_groups(rng, p, KeyGroupsKind::V2)),
        4 => KeyedHandle::KeyGroups(key_groups(rng, p, KeyGroupsKind::Legacy)),
        5 | 6 if depth < 2 => {
            let v2 = rng.chance(50);
            let list = |rng: &mut Rng| {
                (0..rng.below(3))
                    .map(|_| keyed(rng, p, depth + 1))
                    .collect()
            };
            KeyedHandle::Changelog(Box::new(ChangelogHandle {
                v2,
                layout: ChangelogLayout::Current,
                range: range(rng),
                checkpointed_size: Some(rng.i64()),
                materialized: list(rng),
                non_materialized: list(rng),
                materialization_id: Some(rng.i64()),
                checkpoint_id: v2.then(|| rng.i64()),
                handle_id: Some(rng.name("id")),
            }))
        }
        7 => KeyedHandle::InMemoryChangelog(InMemoryChangelogHandle {
            range: range(rng),
            from: rng.i64(),
            to: rng.i64(),
            changes: (0..rng.below(3))
                .map(|_| (rng.i32(), rng.bytes(5)))
                .collect(),
            handle_id: Some(rng.name("id")),
        }),
        8 => {
            let v2 = rng.chance(50);
            KeyedHandle::ChangelogFile(ChangelogFileHandle {
                v2,
                layout: ChangelogLayout::Current,
                range: range(rng),
                handles: (0..rng.below(3))
                    .map(|_| (stream(rng, p, 1), rng.i64()))
                    .collect(),
                size: rng.i64(),
                checkpointed_size: Some(rng.i64()),
                handle_id: Some(rng.name("id")),
                storage_id: v2.then(|| "filesystem".to_string()),
            })
        }
        _ => return None,
    })
}

fn operator_handle(rng: &mut Rng, p: &Profile) -> Option<OperatorHandle> {
    // A present flag with a null handle decodes, but Flink 2.3 fails on it: only in property tests.
    if p.every_kind && rng.chance(20) {
        return None;
    }
    // Real jobs reuse a few state names in every subtask; property tests want arbitrary ones.
    const NAMES: [&str; 3] = ["SourceReaderState", "writer_raw_states", "broadcast-rules"];
    let states = (0..rng.below(3))
        .map(|_| OperatorStateMeta {
            name: if p.every_kind {
                rng.name("state")
            } else {
                NAMES[rng.below(3) as usize].to_string()
            },
            mode: DistributionMode::from_ordinal(rng.below(3) as u8)
                .unwrap_or(DistributionMode::Union),
            offsets: (0..rng.below(4))
                .map(|_| rng.below(1 << 20) as i64)
                .collect(),
        })
        .collect();
    if p.every_kind && rng.chance(25) {
        let empty = rng.chance(50);
        return Some(OperatorHandle {
            states,
            file_merging: Some(FileMergingDirs {
                task_owned_dir: rng.name("/taskowned"),
                shared_dir: rng.name("/shared"),
                empty: u8::from(empty),
            }),
            delegate: Some(if empty {
                StreamHandle::EmptySegment
            } else {
                StreamHandle::Segment {
                    start: 0,
                    size: 10,
                    scope: 0,
                    path: "/seg".into(),
                    logical_file_id: "l".into(),
                }
            }),
        });
    }
    Some(OperatorHandle {
        states,
        file_merging: None,
        delegate: stream(rng, p, 1),
    })
}

fn channels(rng: &mut Rng, p: &Profile, version: i32, input: bool) -> Vec<ChannelHandle> {
    if version < 3 || !rng.chance(30) {
        return Vec::new();
    }
    (0..rng.below(3))
        .map(|_| {
            if version >= 6 && rng.chance(50) {
                ChannelHandle::Merged {
                    tag: if input { 3 } else { 4 },
                    subtask_index: rng.below(8) as i32,
                    total_size: rng.below(1 << 20) as i64,
                    delegate: stream(rng, p, 1),
                    entries: (0..rng.below(3))
                        .map(|_| {
                            (
                                (rng.below(4) as i32, rng.below(64) as i32),
                                rng.below(1 << 16) as i64,
                                (0..rng.below(3))
                                    .map(|_| rng.below(1 << 20) as i64)
                                    .collect(),
                            )
                        })
                        .collect(),
                }
            } else {
                ChannelHandle::Single {
                    tag: (version >= 6).then_some(if input { 1 } else { 2 }),
                    subtask_index: Some(rng.below(8) as i32),
                    info: (rng.below(4) as i32, rng.below(64) as i32),
                    offsets: (0..rng.below(3))
                        .map(|_| rng.below(1 << 20) as i64)
                        .collect(),
                    size: rng.below(1 << 16) as i64,
                    delegate: stream(rng, p, 1),
                }
            }
        })
        .collect()
}

fn flagged(rng: &mut Rng, p: &Profile) -> Flagged<OperatorHandle> {
    if rng.chance(40) {
        Flagged::absent()
    } else {
        Flagged {
            flag: 1,
            handle: operator_handle(rng, p),
        }
    }
}

/// One operator of a file of format `version`, with `parallelism` subtasks.
pub fn operator(rng: &mut Rng, p: &Profile, version: i32, parallelism: i32) -> OperatorState {
    let finished_op = version >= 3 && p.every_kind && rng.chance(5);
    let subtasks: Vec<SubtaskEntry> = if finished_op {
        Vec::new()
    } else {
        (0..parallelism)
            .map(|i| {
                if version >= 3 && p.every_kind && rng.chance(10) {
                    return SubtaskEntry {
                        stored_index: -i - 1,
                        state: None,
                    };
                }
                SubtaskEntry {
                    stored_index: i,
                    state: Some(SubtaskState {
                        legacy_v2: (version == 2).then_some((-1, 0)),
                        managed_operator_state: flagged(rng, p),
                        raw_operator_state: if p.every_kind {
                            flagged(rng, p)
                        } else {
                            Flagged::absent()
                        },
                        managed_keyed_state: keyed(rng, p, 0),
                        raw_keyed_state: if p.every_kind && rng.chance(20) {
                            keyed(rng, p, 0)
                        } else {
                            None
                        },
                        input_channel_state: channels(rng, p, version, true),
                        result_subpartition_state: channels(rng, p, version, false),
                        ref_checkpoint: (version >= 7).then(|| {
                            if rng.chance(50) {
                                (1, Some(rng.i64()))
                            } else {
                                (0, None)
                            }
                        }),
                    }),
                }
            })
            .collect()
    };
    let named = version >= 5;
    OperatorState {
        offset: 0,
        name: named.then(|| rng.name("operator")),
        uid: (named && rng.chance(70)).then(|| rng.name("uid")),
        id: OperatorId(rng.bytes(16).try_into().unwrap_or_default()),
        parallelism,
        max_parallelism: 128,
        legacy_chain_length: (version == 2).then_some(1),
        coordinator_state: (version >= 3 && rng.chance(30)).then(|| StreamHandle::ByteStream {
            name: rng.name("coordinator"),
            data: rng.bytes(16),
        }),
        subtask_count: if finished_op { -1 } else { parallelism },
        subtasks,
    }
}

/// The header of a file of format `version` with `operators` operators.
pub fn header(rng: &mut Rng, version: i32, operators: usize) -> Header {
    Header {
        version,
        checkpoint_id: rng.below(1 << 30) as i64,
        master_states: (0..rng.below(2))
            .map(|_| MasterState {
                version: 1,
                name: rng.name("hook"),
                payload: rng.bytes(8),
            })
            .collect(),
        operator_count: operators,
    }
}

/// A trailer as Flink's format 4+ writers append it: a Java serialization stream holding null.
pub fn trailer_bytes() -> Vec<u8> {
    vec![0xAC, 0xED, 0x00, 0x05, 0x70]
}
