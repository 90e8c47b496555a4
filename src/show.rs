//! `sp-inspect show`: what a savepoint or checkpoint holds, operator by operator.

use crate::input::{resolve_relative, MetadataFile};
use crate::metadata::{DecodeError, DecodeOptions, Decoder};
use crate::model::*;
use crate::report::handles::{any_json, any_line};
use crate::stats::{AnyHandle, OperatorSummary, StateKind};
use std::collections::{HashMap, HashSet};

/// Options of `show`.
#[derive(Debug, Clone, Default)]
pub struct ShowOptions {
    /// Keep per-subtask detail.
    pub subtasks: bool,
    /// In the detail, resolve relative paths against the snapshot directory.
    pub resolve_paths: bool,
    /// Uids to name operators whose format stores none, by operator ID.
    pub uids: HashMap<OperatorId, String>,
    /// Layout choices.
    pub decode: DecodeOptions,
    /// Read state files to list state names (`--state`).
    pub state: Option<crate::state::access::StateAccess>,
    /// Which operators' state files to read.
    pub state_scope: StateScope,
}

/// Where an operator's uid came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UidSource {
    /// Written in the `_metadata` file (format 5+).
    Metadata,
    /// Matched by hash from the `--uids` file.
    UidsFile,
}

/// One handle of a subtask, described.
#[derive(Debug, Clone)]
pub struct HandleRow {
    /// Which slot it was in.
    pub kind: StateKind,
    /// One-line description.
    pub line: String,
    /// JSON description.
    pub json: serde_json::Value,
}

/// One subtask, described.
#[derive(Debug, Clone)]
pub struct SubtaskRow {
    /// Subtask index.
    pub index: i32,
    /// Finished when the snapshot was taken.
    pub finished: bool,
    /// Flink's state size.
    pub state_bytes: i64,
    /// Its handles.
    pub handles: Vec<HandleRow>,
}

/// One operator, summarised.
#[derive(Debug, Clone)]
pub struct OperatorRow {
    /// Operator ID.
    pub id: OperatorId,
    /// Byte offset of its record.
    pub offset: u64,
    /// Name, when recorded.
    pub name: Option<String>,
    /// Uid, when recorded or matched.
    pub uid: Option<String>,
    /// Where the uid came from.
    pub uid_source: Option<UidSource>,
    /// Parallelism.
    pub parallelism: i32,
    /// Max parallelism.
    pub max_parallelism: i32,
    /// All subtasks finished.
    pub fully_finished: bool,
    /// Sizes and kinds.
    pub summary: OperatorSummary,
    /// Per-subtask detail (with `--subtasks`).
    pub subtasks: Vec<SubtaskRow>,
    /// State names read from the state files (with `--state`).
    pub state_names: Option<StateNames>,
    /// What the state files say (with `--state`).
    pub state: Option<crate::state::OperatorReport>,
}

/// The state names of an operator, from its state files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StateNames {
    /// Operator (non-keyed) states: name and kind.
    pub operator: Vec<(String, String)>,
    /// Keyed states: name and kind (`VALUE`, `MAP`, …).
    pub keyed: Vec<(String, String)>,
    /// Problems reading the state files.
    pub problems: Vec<String>,
}

/// Which operators `--state` reads the state files of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StateScope {
    /// Every operator with state.
    #[default]
    All,
    /// Sources and sinks only (what `diff` and `lint` need: splits, topics, transactions).
    SourcesAndSinks,
}

fn in_scope(op: &OperatorState, summary: &OperatorSummary, scope: StateScope) -> bool {
    scope == StateScope::All
        || op.coordinator_state.is_some()
        || summary.operator_states.iter().any(|(n, _)| {
            n == "SourceReaderState"
                || n == "writer_raw_states"
                || n == "streaming_committer_raw_states"
        })
}

fn state_names(report: &crate::state::OperatorReport) -> StateNames {
    let mut names = StateNames::default();
    for s in &report.subtasks {
        for n in &s.operator_states {
            let entry = (
                n.name.clone(),
                n.kind.clone().unwrap_or_else(|| n.mode.to_string()),
            );
            if !names.operator.contains(&entry) {
                names.operator.push(entry);
            }
        }
        for k in &s.keyed_states {
            let entry = (k.name.clone(), k.kind.clone());
            if !names.keyed.contains(&entry) {
                names.keyed.push(entry);
            }
        }
        for p in &s.problems {
            if !names.problems.contains(p) {
                names.problems.push(p.clone());
            }
        }
    }
    names
}

/// Everything `show` prints.
#[derive(Debug, Clone)]
pub struct ShowReport {
    /// The `_metadata` file.
    pub path: String,
    /// Its size.
    pub file_bytes: u64,
    /// Version, checkpoint ID, master states.
    pub header: Header,
    /// Operators in file order.
    pub operators: Vec<OperatorRow>,
    /// Trailer.
    pub tail: Tail,
    /// Oddities that do not stop decoding.
    pub warnings: Vec<String>,
    /// How many operators got their uid from `ShowOptions::uids`.
    pub uids_matched: usize,
    /// The state handles with absolute paths (what `relocate` moves).
    pub absolute_paths: crate::remap::AbsolutePaths,
}

impl ShowReport {
    /// Savepoint or checkpoint, when the file says (format 4+).
    pub fn properties(&self) -> Option<&CheckpointProperties> {
        self.tail
            .trailer
            .as_ref()
            .and_then(|t| t.properties.as_ref())
    }
}

/// The warnings of one file: the first [`Warnings::KEPT`], and how many more there were (a file with
/// thousands of unreadable state files would otherwise hold a line for each).
#[derive(Default)]
struct Warnings {
    kept: Vec<String>,
    more: usize,
}

impl Warnings {
    const KEPT: usize = 100;

    fn push(&mut self, w: String) {
        if self.kept.len() < Self::KEPT {
            self.kept.push(w);
        } else {
            self.more += 1;
        }
    }

    fn finish(mut self) -> Vec<String> {
        if self.more > 0 {
            self.kept.push(format!("and {} more warnings", self.more));
        }
        self.kept
    }
}

/// Decodes `file` in one pass, keeping one operator's handles in memory at a time.
pub fn build(file: &MetadataFile, opts: &ShowOptions) -> Result<ShowReport, DecodeError> {
    let mut operators = Vec::new();
    let mut report = stream(file, opts, |_| {}, |row| operators.push(row))?;
    report.operators = operators;
    Ok(report)
}

/// Decodes `file` in one pass and hands each operator's row to `on_row` as soon as it is read, after
/// `on_header`; the returned report has no operators. Memory then does not grow with the operator count.
pub fn stream(
    file: &MetadataFile,
    opts: &ShowOptions,
    on_header: impl FnOnce(&Header),
    mut on_row: impl FnMut(OperatorRow),
) -> Result<ShowReport, DecodeError> {
    let mut d = Decoder::new(file.bytes(), opts.decode)?;
    let header = d.header().clone();
    on_header(&header);
    let mut warnings = Warnings::default();
    let mut seen_ids = HashSet::new();
    // Pages already decoded are handed back every so often: memory stays flat on huge files.
    const RELEASE_EVERY: u64 = 16 << 20;
    let mut released = 0;
    let mut uids_matched = 0;
    let mut absolute_paths = crate::remap::AbsolutePaths::default();
    while let Some(op) = d.next() {
        let mut op = op?;
        absolute_paths.add(&mut op);
        if d.offset() - released >= RELEASE_EVERY {
            released = d.offset();
            file.release_before(released);
        }
        if !seen_ids.insert(op.id) {
            warnings.push(format!(
                "operator {} appears twice (byte offset {}); Flink keeps the last",
                op.id, op.offset
            ));
        }
        check_operator(&op, file, &mut warnings);
        let summary = op.summary();
        let report = opts
            .state
            .as_ref()
            .filter(|_| in_scope(&op, &summary, opts.state_scope))
            .map(|a| crate::state::inspect(&op, a));
        let names = report.as_ref().map(state_names);
        for p in names.iter().flat_map(|n| &n.problems) {
            warnings.push(format!("operator {}: {p}", op.id));
        }
        let mut r = row(op, summary, opts, file, names);
        r.state = report;
        uids_matched += usize::from(r.uid_source == Some(UidSource::UidsFile));
        on_row(r);
    }
    if d.used_flink_1_11_channel_layout() {
        warnings.push(
            "channel-state handles have no subtask index: read as an unaligned checkpoint written by Flink 1.11".into(),
        );
    }
    let tail = d.finish()?;
    if tail.ignored_bytes > 0 {
        let after = match tail.trailer {
            Some(_) => "the checkpoint properties".to_string(),
            None => format!("the end of the format-{} body", header.version),
        };
        warnings.push(format!(
            "{} bytes after {after} (Flink ignores them)",
            tail.ignored_bytes
        ));
    }
    if let Some(note) = tail.trailer.as_ref().and_then(|t| t.note.as_ref()) {
        warnings.push(note.clone());
    }
    Ok(ShowReport {
        path: file.path.display().to_string(),
        file_bytes: file.bytes().len() as u64,
        header,
        operators: Vec::new(),
        tail,
        warnings: warnings.finish(),
        uids_matched,
        absolute_paths,
    })
}

fn check_operator(op: &OperatorState, file: &MetadataFile, warnings: &mut Warnings) {
    let mut indices = HashSet::new();
    for s in &op.subtasks {
        if !indices.insert(s.index()) {
            warnings.push(format!(
                "operator {}: subtask {} appears twice; Flink keeps the last",
                op.id,
                s.index()
            ));
        }
        if s.index() >= op.parallelism {
            warnings.push(format!(
                "operator {}: subtask index {} is not below the parallelism {}",
                op.id,
                s.index(),
                op.parallelism
            ));
        }
        let Some(st) = &s.state else { continue };
        for (slot, f) in [
            ("managed", &st.managed_operator_state),
            ("raw", &st.raw_operator_state),
        ] {
            if f.flag != 0 && f.handle.is_none() {
                warnings.push(format!(
                    "operator {} subtask {}: {slot} operator state is flagged present but null; Flink 2.3 fails to load such a file",
                    op.id,
                    s.index()
                ));
            }
        }
        for k in StateKind::ALL {
            for h in st.handles(k) {
                for_each_relative(&h, &mut |rel| {
                    if resolve_relative(file.dir(), rel).is_none() {
                        warnings.push(format!(
                            "operator {} subtask {}: relative state path {rel:?} leaves the snapshot directory; not followed",
                            op.id,
                            s.index()
                        ));
                    }
                });
            }
        }
    }
}

fn for_each_relative(h: &AnyHandle<'_>, f: &mut dyn FnMut(&str)) {
    fn stream(h: &Option<StreamHandle>, f: &mut dyn FnMut(&str)) {
        match h {
            Some(StreamHandle::RelativeFile { path, .. }) => f(path),
            Some(StreamHandle::KeyGroups(k)) => stream(&k.delegate, f),
            _ => {}
        }
    }
    match h {
        AnyHandle::Operator(o) => stream(&o.delegate, f),
        AnyHandle::Keyed(KeyedHandle::KeyGroups(k)) => stream(&k.delegate, f),
        AnyHandle::Keyed(KeyedHandle::Incremental(i)) => {
            stream(&i.meta, f);
            for n in i.shared.iter().chain(i.private.iter()) {
                stream(&n.handle, f);
            }
        }
        AnyHandle::Keyed(_) => {}
        AnyHandle::Channel(ChannelHandle::Single { delegate, .. }, _)
        | AnyHandle::Channel(ChannelHandle::Merged { delegate, .. }, _) => stream(delegate, f),
    }
}

fn row(
    op: OperatorState,
    summary: OperatorSummary,
    opts: &ShowOptions,
    file: &MetadataFile,
    state_names: Option<StateNames>,
) -> OperatorRow {
    let dir = opts.resolve_paths.then(|| file.dir());
    let (uid, uid_source) = match (&op.uid, opts.uids.get(&op.id)) {
        (Some(u), _) => (Some(u.clone()), Some(UidSource::Metadata)),
        (None, Some(u)) => (Some(u.clone()), Some(UidSource::UidsFile)),
        (None, None) => (None, None),
    };
    let subtasks = if opts.subtasks {
        op.subtasks
            .iter()
            .map(|s| SubtaskRow {
                index: s.index(),
                finished: s.finished(),
                state_bytes: s.state.as_ref().map_or(0, SubtaskState::state_size),
                handles: s.state.as_ref().map_or_else(Vec::new, |st| {
                    StateKind::ALL
                        .iter()
                        .flat_map(|&k| {
                            st.handles(k).map(move |h| HandleRow {
                                kind: k,
                                line: any_line(&h, dir),
                                json: any_json(&h, dir),
                            })
                        })
                        .collect()
                }),
            })
            .collect()
    } else {
        Vec::new()
    };
    OperatorRow {
        id: op.id,
        offset: op.offset,
        name: op.name.clone(),
        uid,
        uid_source,
        parallelism: op.parallelism,
        max_parallelism: op.max_parallelism,
        fully_finished: op.fully_finished(),
        summary,
        subtasks,
        state_names,
        state: None,
    }
}

/// Reads a uid list: one uid per line; blank lines and lines starting with `#` are skipped.
pub fn parse_uid_list(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}
