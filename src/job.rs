//! Loading the arguments of `diff` and `lint`: a savepoint (directory or `_metadata`), a graph manifest, or
//! a uid list, told apart by content.

use crate::diff::{OldOperator, StateInfo};
use crate::graph::{from_uid_list, manifest_from_json, GraphOperator, ManifestError};
use crate::input::{text_of, InputError, MetadataFile, TEXT_LIMIT};
use crate::metadata::{DecodeError, DecodeOptions};
use crate::show::{build, OperatorRow, ShowOptions, ShowReport, StateScope};
use crate::sniff::{sniff_text, Head, TextInput, UID_LIST_MARKER};
use crate::state::access::StateAccess;
use crate::state::connectors::{Committable, SinkState, Split};
use crate::state::OperatorReport;
use std::fmt;
use std::path::Path;

/// What an argument turned out to be.
#[derive(Debug, Clone)]
pub enum JobInput {
    /// A savepoint or checkpoint.
    Savepoint(Box<ShowReport>),
    /// A graph manifest.
    Manifest(Vec<GraphOperator>),
    /// A uid list.
    UidList(Vec<GraphOperator>),
}

/// Why an argument could not be read.
#[derive(Debug)]
pub enum LoadError {
    /// The file could not be read.
    Input(InputError),
    /// A `_metadata` file is malformed.
    Decode {
        /// Which file.
        path: String,
        /// What and where.
        error: DecodeError,
    },
    /// A manifest is malformed.
    Manifest {
        /// Which file.
        path: String,
        /// What and where.
        error: ManifestError,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Input(e) => write!(f, "{e}"),
            LoadError::Decode { path, error } => write!(f, "{path}: {error}"),
            LoadError::Manifest { path, error } => write!(f, "{path}: graph manifest {error}"),
        }
    }
}

impl std::error::Error for LoadError {}

impl JobInput {
    /// Reads `path`, deciding from its content what it is (see [`crate::sniff`]): a savepoint or
    /// checkpoint (a directory, or a file starting with the `_metadata` magic number), a graph manifest
    /// or a uid list. Anything else is an input error that says what the file is. `allow_absolute`: also
    /// read state files at absolute paths (for the Kafka rules).
    pub fn load(
        path: &Path,
        decode: DecodeOptions,
        allow_absolute: bool,
    ) -> Result<JobInput, LoadError> {
        let not_input = |what: String| LoadError::Input(InputError::new(path, what));
        let file = if path.is_dir() {
            MetadataFile::open_snapshot(path).map_err(LoadError::Input)?
        } else {
            MetadataFile::open(path).map_err(LoadError::Input)?
        };
        match file.sniff() {
            Ok(Head::Metadata) => {}
            Ok(Head::Text) => return Self::from_text(path, file.bytes()),
            Err(what) => {
                return Err(not_input(format!(
                    "{what}; expected a _metadata file, a graph manifest or a uid list"
                )))
            }
        }
        // Sources' splits and sinks' transactions, for the notes and the Kafka rules.
        let opts = ShowOptions {
            decode,
            state: Some(StateAccess::new(file.dir(), allow_absolute)),
            state_scope: StateScope::SourcesAndSinks,
            ..ShowOptions::default()
        };
        let report = build(&file, &opts).map_err(|error| LoadError::Decode {
            path: file.path.display().to_string(),
            error,
        })?;
        Ok(JobInput::Savepoint(Box::new(report)))
    }

    fn from_text(path: &Path, bytes: &[u8]) -> Result<JobInput, LoadError> {
        let not_input = |what: String| LoadError::Input(InputError::new(path, what));
        if bytes.len() as u64 > TEXT_LIMIT {
            return Err(not_input(format!(
                "{} bytes of text, more than the {} MiB a graph manifest or uid list may hold",
                bytes.len(),
                TEXT_LIMIT >> 20
            )));
        }
        let text = text_of(bytes.to_vec()).map_err(|offset| {
            not_input(format!(
                "byte offset {offset}: not UTF-8 text; expected a graph manifest or a uid list"
            ))
        })?;
        match sniff_text(&text).map_err(not_input)? {
            TextInput::Manifest(doc) => manifest_from_json(&doc)
                .map(JobInput::Manifest)
                .map_err(|error| LoadError::Manifest {
                    path: path.display().to_string(),
                    error,
                }),
            TextInput::UidList(uids) if uids.is_empty() => Err(not_input(format!(
                "a uid list without uids: every line after {UID_LIST_MARKER:?} is blank or a comment"
            ))),
            TextInput::UidList(uids) => Ok(JobInput::UidList(from_uid_list(&uids))),
        }
    }

    /// The operators whose state files were to be read (sources and sinks) and could not be, with the
    /// first problem of each: label, problem.
    pub fn state_problems(&self) -> Vec<(String, String)> {
        let JobInput::Savepoint(r) = self else {
            return Vec::new();
        };
        r.operators
            .iter()
            .filter_map(|o| {
                let problem = o
                    .state
                    .as_ref()?
                    .subtasks
                    .iter()
                    .flat_map(|s| &s.problems)
                    .next()?;
                Some((
                    crate::diff::label(&o.id, o.uid.as_deref(), o.name.as_deref()),
                    problem.clone(),
                ))
            })
            .collect()
    }

    /// The format version, when this is a savepoint.
    pub fn format_version(&self) -> Option<i32> {
        match self {
            JobInput::Savepoint(r) => Some(r.header.version),
            _ => None,
        }
    }

    /// Whether this is a savepoint or checkpoint (not a graph).
    pub fn is_savepoint(&self) -> bool {
        matches!(self, JobInput::Savepoint(_))
    }

    /// The operator states (savepoint) or operators (graph) as the OLD side of a diff.
    pub fn as_old(&self) -> Vec<OldOperator> {
        match self {
            JobInput::Savepoint(r) => r.operators.iter().map(old_from_row).collect(),
            JobInput::Manifest(ops) | JobInput::UidList(ops) => ops
                .iter()
                .map(|g| OldOperator {
                    id: g.id,
                    name: g.name.clone(),
                    uid: g.uid.clone(),
                    parallelism: g.parallelism,
                    max_parallelism: g.max_parallelism,
                    state: None,
                    source: g.is_source(),
                })
                .collect(),
        }
    }

    /// The operators as the NEW side of a diff.
    pub fn as_new(&self) -> Vec<GraphOperator> {
        match self {
            JobInput::Savepoint(r) => r
                .operators
                .iter()
                .map(|o| GraphOperator {
                    id: o.id,
                    uid: o.uid.clone(),
                    name: o.name.clone(),
                    parallelism: Some(o.parallelism),
                    // The job that wrote this savepoint ran with this max parallelism.
                    max_parallelism: Some(o.max_parallelism),
                    source: is_source_row(o),
                    ..GraphOperator::default()
                })
                .collect(),
            JobInput::Manifest(ops) | JobInput::UidList(ops) => ops.clone(),
        }
    }

    /// Short description for reports.
    pub fn kind(&self) -> String {
        match self {
            JobInput::Savepoint(r) => format!("_metadata format {}", r.header.version),
            JobInput::Manifest(_) => "graph manifest".into(),
            JobInput::UidList(_) => "uid list".into(),
        }
    }
}

fn is_source_row(o: &OperatorRow) -> bool {
    o.summary
        .operator_states
        .iter()
        .any(|(n, _)| n == "SourceReaderState")
        || o.name.as_deref().is_some_and(|n| n.starts_with("Source: "))
}

/// What a source resumes from, in one line per split.
fn split_text(s: &Split) -> Option<String> {
    match s {
        Split::Kafka {
            topic,
            partition,
            starting_offset,
            ..
        } => Some(format!("kafka {topic}-{partition} @ {starting_offset}")),
        Split::File { path, position, .. } => Some(format!(
            "file {}{}",
            path.as_deref().unwrap_or("?"),
            position.map_or(String::new(), |(_, r)| format!(" after {r} records"))
        )),
        Split::DynamicKafka {
            cluster_id, split, ..
        } => split_text(split).map(|t| format!("{t} (cluster {cluster_id})")),
        Split::NumberSequence { from, .. } => Some(format!("number sequence at {from}")),
        Split::Unknown(_) => None,
    }
}

fn describe_state(r: &OperatorReport, info: &mut StateInfo) {
    info.resumes = r.splits().filter_map(|(_, s)| split_text(s)).collect();
    info.topics = r.topics();
    for (_, s) in r.sink_states() {
        match s {
            SinkState::KafkaWriter {
                transactional_id_prefix,
                precommitted,
                ..
            } => {
                if !info
                    .transactional_id_prefixes
                    .contains(transactional_id_prefix)
                {
                    info.transactional_id_prefixes
                        .push(transactional_id_prefix.clone());
                }
                info.pending_transactions.extend(
                    precommitted
                        .iter()
                        .map(|(t, c)| format!("{t} (precommitted at checkpoint {c})")),
                );
            }
            SinkState::Committables { checkpoints, .. } => {
                for c in checkpoints {
                    for p in &c.committables {
                        if let Committable::Kafka {
                            transactional_id, ..
                        } = &p.committable
                        {
                            let at = c
                                .checkpoint_id
                                .map_or(String::new(), |id| format!(" at checkpoint {id}"));
                            info.pending_transactions
                                .push(format!("{transactional_id} ({}{at})", p.state));
                        }
                    }
                }
            }
            SinkState::FileWriter { .. } => {}
            SinkState::Unknown(_) => {}
        }
    }
}

fn old_from_row(o: &OperatorRow) -> OldOperator {
    let mut info = StateInfo {
        bytes: o.summary.state_bytes,
        empty: o.summary.coordinator_state_bytes.is_none() && o.summary.subtasks_with_state == 0,
        kinds: o.summary.kinds.clone(),
        operator_states: o
            .summary
            .operator_states
            .iter()
            .map(|(n, _)| n.clone())
            .collect(),
        ..StateInfo::default()
    };
    if let Some(r) = &o.state {
        describe_state(r, &mut info);
    }
    OldOperator {
        id: o.id,
        name: o.name.clone(),
        uid: o.uid.clone(),
        parallelism: Some(o.parallelism),
        max_parallelism: Some(o.max_parallelism),
        state: Some(info),
        source: is_source_row(o),
    }
}

/// Names operators of OLD from the manifest of the job that wrote it (formats before 5 store no names).
pub fn name_old_from_graph(old: &mut [OldOperator], graph: &[GraphOperator]) {
    for o in old.iter_mut() {
        if let Some(g) = graph
            .iter()
            .find(|g| g.id == o.id || g.uid_hash == Some(o.id))
        {
            o.name = o.name.take().or_else(|| g.name.clone());
            o.uid = o.uid.take().or_else(|| g.uid.clone());
            o.source |= g.is_source();
        }
    }
}

/// Names operators of a NEW savepoint from the manifest of the job that wrote it.
pub fn name_new_from_graph(new: &mut [GraphOperator], graph: &[GraphOperator]) {
    for n in new.iter_mut() {
        if let Some(g) = graph
            .iter()
            .find(|g| g.id == n.id || g.uid_hash == Some(n.id))
        {
            n.name = n.name.take().or_else(|| g.name.clone());
            n.uid = n.uid.take().or_else(|| g.uid.clone());
            n.source |= g.is_source();
            n.vertex = n.vertex.take().or_else(|| g.vertex.clone());
        }
    }
}
