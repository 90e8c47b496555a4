//! Loading the arguments of `diff` and `lint`: a savepoint (directory or `_metadata`), a graph manifest, or
//! a uid list, told apart by content.

use crate::diff::{OldOperator, StateInfo};
use crate::graph::{
    from_uid_list, job_from_json, manifest_from_json, GraphOperator, JobConfig, ManifestError,
};
use crate::input::{text_of, InputError, MetadataFile, TEXT_LIMIT};
use crate::metadata::{DecodeError, DecodeOptions};
use crate::show::{stream, OperatorRow, ShowOptions, StateScope};
use crate::sniff::{sniff_text, Head, TextInput, UID_LIST_MARKER};
use crate::state::access::StateAccess;
use crate::state::connectors::{Committable, SinkState, Split};
use crate::state::OperatorReport;
use std::path::Path;

/// A savepoint or checkpoint as `diff` and `lint` need it: its operators' state facts, built while the
/// file is decoded, one operator at a time (nothing else of the decoding is kept).
#[derive(Debug, Clone)]
pub struct Savepoint {
    /// The `_metadata` file.
    pub path: String,
    /// Its format version.
    pub version: i32,
    /// Its operators and what their state says.
    pub operators: Vec<OldOperator>,
    /// Operators whose state files could not be read: label, first problem.
    pub state_problems: Vec<(String, String)>,
    /// Oddities of the file, each prefixed with its path.
    pub warnings: Vec<String>,
}

/// What an argument turned out to be.
#[derive(Debug, Clone)]
pub enum JobInput {
    /// A savepoint or checkpoint.
    Savepoint(Box<Savepoint>),
    /// A graph manifest, and the job configuration it records.
    Manifest(Vec<GraphOperator>, Option<JobConfig>),
    /// A uid list.
    UidList(Vec<GraphOperator>),
}

/// Why an argument could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A `_metadata` file is malformed.
    #[error("{path}")]
    Decode {
        /// Which file.
        path: String,
        /// What and where.
        #[source]
        error: DecodeError,
    },
    /// A manifest is malformed.
    #[error("{path}: graph manifest")]
    Manifest {
        /// Which file.
        path: String,
        /// What and where.
        #[source]
        error: ManifestError,
    },
}

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
        let mut operators = Vec::new();
        let mut state_problems = Vec::new();
        let report = stream(
            &file,
            &opts,
            |_| {},
            |row| {
                let problem = row
                    .state
                    .as_ref()
                    .and_then(|r| r.subtasks.iter().flat_map(|s| &s.problems).next());
                if let Some(p) = problem {
                    state_problems.push((
                        crate::diff::label(&row.id, row.uid.as_deref(), row.name.as_deref()),
                        p.clone(),
                    ));
                }
                operators.push(old_from_row(&row));
            },
        )
        .map_err(|error| LoadError::Decode {
            path: file.path.display().to_string(),
            error,
        })?;
        Ok(JobInput::Savepoint(Box::new(Savepoint {
            warnings: report
                .warnings
                .iter()
                .map(|w| format!("{}: {w}", report.path))
                .collect(),
            path: report.path,
            version: report.header.version,
            operators,
            state_problems,
        })))
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
                .and_then(|ops| Ok(JobInput::Manifest(ops, job_from_json(&doc)?)))
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
    pub fn state_problems(&self) -> &[(String, String)] {
        match self {
            JobInput::Savepoint(s) => &s.state_problems,
            _ => &[],
        }
    }

    /// The format version, when this is a savepoint.
    pub fn format_version(&self) -> Option<i32> {
        match self {
            JobInput::Savepoint(s) => Some(s.version),
            _ => None,
        }
    }

    /// The job configuration a manifest records.
    pub fn job_config(&self) -> Option<&JobConfig> {
        match self {
            JobInput::Manifest(_, job) => job.as_ref(),
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
            JobInput::Savepoint(s) => s.operators.clone(),
            JobInput::Manifest(ops, _) | JobInput::UidList(ops) => ops
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
            JobInput::Savepoint(s) => s
                .operators
                .iter()
                .map(|o| GraphOperator {
                    id: o.id,
                    uid: o.uid.clone(),
                    name: o.name.clone(),
                    parallelism: o.parallelism,
                    // The job that wrote this savepoint ran with this max parallelism.
                    max_parallelism: o.max_parallelism,
                    source: o.source,
                    stateful: o.state.as_ref().map(|s| !s.empty),
                    ..GraphOperator::default()
                })
                .collect(),
            JobInput::Manifest(ops, _) | JobInput::UidList(ops) => ops.clone(),
        }
    }

    /// Short description for reports.
    pub fn kind(&self) -> String {
        match self {
            JobInput::Savepoint(s) => format!("_metadata format {}", s.version),
            JobInput::Manifest(..) => "graph manifest".into(),
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
            position.map_or(String::new(), |(o, r)| crate::report::state::resume_text(
                o, r
            ))
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
    fn kafka(s: &Split) -> Option<(String, i32, String)> {
        match s {
            Split::Kafka {
                topic,
                partition,
                starting_offset,
                ..
            } => Some((topic.clone(), *partition, starting_offset.clone())),
            Split::DynamicKafka { split, .. } => kafka(split),
            _ => None,
        }
    }
    info.kafka_splits = r.splits().filter_map(|(_, s)| kafka(s)).collect();
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
