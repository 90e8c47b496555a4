//! `remap` and `relocate`: writing a repaired savepoint without a JVM. `remap` gives each old operator
//! state the ID of the new operator it is meant for (so that the new job restores it without
//! `setUidHash`); `relocate` rewrites the absolute paths of state files moved elsewhere. Both decode the
//! old `_metadata` whole, change only operator identities or paths, and write the rest as read with the
//! byte-exact encoder into a new directory. The old savepoint is never written.

use crate::diff::{label, OldOperator};
use crate::fix::{pair, Pairing};
use crate::graph::GraphOperator;
use crate::input::{check_output, contained, resolve_relative, InputError, MetadataFile};
use crate::metadata::{decode, DecodeOptions};
use crate::model::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How an old state was assigned to a new operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// The same uid.
    Uid,
    /// The same name, unique on both sides.
    Name,
    /// A line of `--map`.
    Map,
}

impl How {
    /// Stable name.
    pub fn name(self) -> &'static str {
        match self {
            How::Uid => "uid",
            How::Name => "name",
            How::Map => "map",
        }
    }
}

/// The new home of one old operator state.
#[derive(Debug, Clone)]
pub struct Assignment {
    /// The old operator.
    pub old: OldOperator,
    /// The new operator it goes to.
    pub new: GraphOperator,
    /// How they were paired.
    pub how: How,
}

/// What `remap` will write: every old state with content assigned to a new operator; empty old entries
/// no new operator is meant for are left out (Flink skips them anyway).
#[derive(Debug, Clone)]
pub struct Plan {
    /// The assignments, in the old file's order.
    pub assignments: Vec<Assignment>,
    /// Empty old entries left out.
    pub dropped_empty: Vec<OldOperator>,
}

/// Why a savepoint cannot be remapped or relocated as asked.
#[derive(Debug, thiserror::Error)]
pub enum RemapError {
    /// Old states with content that no new operator is meant for, or that are ambiguous.
    #[error("{} of the old savepoint {} no new operator ({}pair them with --map FILE, a line `OLD = NEW` each: old ID or name, new ID, uid or name):\n{}", crate::rules::plural(.0.len(), "state", "states"), if .0.len() == 1 { "has" } else { "have" }, if *.1 { "its format records no names: pass the manifest of the job that wrote it with --old-graph, or " } else { "" }, .0.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n"))]
    Unmatched(Vec<String>, bool),
    /// Two old states assigned to one new operator.
    #[error("the states of {0} and {1} would both go to {2}; --map one of them elsewhere")]
    Twice(String, String, String),
    /// A `--map` line that names nothing.
    #[error("--map line {line}: {message}")]
    Map {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Key groups cannot be remapped to another max parallelism.
    #[error("{0} is configured with max parallelism {1}, the savepoint's state has {2}: key groups cannot be remapped; remove the setting, or set {2}")]
    MaxParallelism(String, i32, i32),
    /// The output directory is not new.
    #[error("{}: exists and is not empty; remap writes a new savepoint directory", .0.display())]
    OutputNotEmpty(PathBuf),
    /// Reading or writing a file.
    #[error(transparent)]
    Io(#[from] InputError),
    /// The old `_metadata` is malformed.
    #[error("{path}")]
    Decode {
        /// Which file.
        path: String,
        /// What and where.
        #[source]
        error: crate::metadata::DecodeError,
    },
}

fn old_label(o: &OldOperator) -> String {
    label(&o.id, o.uid.as_deref(), o.name.as_deref())
}

fn new_label(n: &GraphOperator) -> String {
    label(&n.id, n.uid.as_deref(), n.name.as_deref())
}

/// Reads a `--map` file: `OLD = NEW` per line (`#` comments), OLD an old operator ID or name, NEW a new
/// operator ID, uid or name.
pub fn parse_map(text: &str) -> Result<Vec<(usize, String, String)>, RemapError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (old, new) = line.split_once('=').ok_or_else(|| RemapError::Map {
            line: i + 1,
            message: format!("expected `OLD = NEW`, found {line:?}"),
        })?;
        out.push((i + 1, old.trim().to_string(), new.trim().to_string()));
    }
    Ok(out)
}

/// Assigns every old state with content to the new operator it is meant for: `--map` lines first, then
/// the same uid, then a name unique on both sides.
pub fn plan(
    old: &[OldOperator],
    new: &[GraphOperator],
    map: &[(usize, String, String)],
) -> Result<Plan, RemapError> {
    let mut chosen: HashMap<usize, (usize, How)> = HashMap::new();
    for (line, o, n) in map {
        let find_old = old
            .iter()
            .position(|x| x.id.to_string().eq_ignore_ascii_case(o) || x.name.as_deref() == Some(o));
        let find_new = new.iter().position(|x| {
            x.id.to_string().eq_ignore_ascii_case(n)
                || x.uid.as_deref() == Some(n)
                || x.name.as_deref() == Some(n)
        });
        match (find_old, find_new) {
            (Some(j), Some(i)) => {
                chosen.insert(j, (i, How::Map));
            }
            (None, _) => {
                return Err(RemapError::Map {
                    line: *line,
                    message: format!("no old operator with ID or name {o:?}"),
                })
            }
            (_, None) => {
                return Err(RemapError::Map {
                    line: *line,
                    message: format!("no new operator with ID, uid or name {n:?}"),
                })
            }
        }
    }
    for (j, (i, p)) in pair(old, new) {
        let how = match p {
            Pairing::Uid => How::Uid,
            Pairing::Name => How::Name,
        };
        chosen.entry(j).or_insert((i, how));
    }
    let mut assignments = Vec::new();
    let mut dropped_empty = Vec::new();
    let mut unmatched = Vec::new();
    let mut taken: HashMap<usize, usize> = HashMap::new();
    for (j, o) in old.iter().enumerate() {
        let empty = o.state.as_ref().is_some_and(|s| s.empty);
        let Some(&(i, how)) = chosen.get(&j) else {
            if empty {
                dropped_empty.push(o.clone());
            } else {
                unmatched.push(old_label(o));
            }
            continue;
        };
        let n = &new[i];
        if let Some(&first) = taken.get(&i) {
            return Err(RemapError::Twice(
                old_label(&old[first]),
                old_label(o),
                new_label(n),
            ));
        }
        taken.insert(i, j);
        if let (Some(now), Some(was)) = (n.max_parallelism, o.max_parallelism) {
            if now != was {
                return Err(RemapError::MaxParallelism(new_label(n), now, was));
            }
        }
        assignments.push(Assignment {
            old: o.clone(),
            new: n.clone(),
            how,
        });
    }
    if !unmatched.is_empty() {
        let unnamed = old.iter().all(|o| o.name.is_none() && o.uid.is_none());
        return Err(RemapError::Unmatched(unmatched, unnamed));
    }
    Ok(Plan {
        assignments,
        dropped_empty,
    })
}

/// Every stream handle of an operator's state, to change in place.
fn for_each_stream(op: &mut OperatorState, f: &mut dyn FnMut(&mut StreamHandle)) {
    fn stream(h: &mut Option<StreamHandle>, f: &mut dyn FnMut(&mut StreamHandle)) {
        if let Some(h) = h {
            if let StreamHandle::KeyGroups(k) = h {
                stream(&mut k.delegate, f);
            }
            f(h);
        }
    }
    fn keyed(h: &mut Option<KeyedHandle>, f: &mut dyn FnMut(&mut StreamHandle)) {
        match h {
            Some(KeyedHandle::KeyGroups(k)) => stream(&mut k.delegate, f),
            Some(KeyedHandle::Incremental(i)) => {
                stream(&mut i.meta, f);
                for n in i.shared.iter_mut().chain(i.private.iter_mut()) {
                    stream(&mut n.handle, f);
                }
            }
            Some(KeyedHandle::Changelog(c)) => {
                for k in c
                    .materialized
                    .iter_mut()
                    .chain(c.non_materialized.iter_mut())
                {
                    keyed(k, f);
                }
            }
            Some(KeyedHandle::ChangelogFile(c)) => {
                for (h, _) in &mut c.handles {
                    stream(h, f);
                }
            }
            Some(KeyedHandle::InMemoryChangelog(_)) | None => {}
        }
    }
    fn channels(v: &mut [ChannelHandle], f: &mut dyn FnMut(&mut StreamHandle)) {
        for c in v {
            match c {
                ChannelHandle::Single { delegate, .. } | ChannelHandle::Merged { delegate, .. } => {
                    stream(delegate, f)
                }
            }
        }
    }
    stream(&mut op.coordinator_state, f);
    for s in op.subtasks.iter_mut().filter_map(|s| s.state.as_mut()) {
        for o in [&mut s.managed_operator_state, &mut s.raw_operator_state] {
            if let Some(h) = &mut o.handle {
                stream(&mut h.delegate, f);
            }
        }
        keyed(&mut s.managed_keyed_state, f);
        keyed(&mut s.raw_keyed_state, f);
        channels(&mut s.input_channel_state, f);
        channels(&mut s.result_subpartition_state, f);
    }
}

/// Where the state files of a remapped savepoint are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Files {
    /// Left where they are: relative handles become absolute `file:` paths into the old directory.
    Shared,
    /// Copied into the new directory, relative handles kept.
    Copied,
}

fn create_output(dir: &Path, inputs: &[&Path]) -> Result<(), RemapError> {
    let io = |e: std::io::Error| RemapError::Io(InputError::new(dir, e.to_string()));
    if dir.exists() {
        if std::fs::read_dir(dir).map_err(io)?.next().is_some() {
            return Err(RemapError::OutputNotEmpty(dir.to_path_buf()));
        }
    } else {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    check_output(&dir.join("_metadata"), inputs)?;
    Ok(())
}

fn write_metadata(dir: &Path, md: &Metadata) -> Result<PathBuf, RemapError> {
    let path = dir.join("_metadata");
    let tmp = dir.join("_metadata.inprogress");
    let io = |p: &Path, e: std::io::Error| RemapError::Io(InputError::new(p, e.to_string()));
    std::fs::write(&tmp, crate::metadata::encode::encode(md)).map_err(|e| io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| io(&path, e))?;
    Ok(path)
}

fn load(old: &MetadataFile) -> Result<Metadata, RemapError> {
    decode(old.bytes(), DecodeOptions::default()).map_err(|error| RemapError::Decode {
        path: old.path.display().to_string(),
        error,
    })
}

/// Writes `plan` applied to `old` as a new savepoint in `dir` (which must be new or empty), in `old`'s
/// format: the assigned operators under their new IDs (and, from format 5, names and uids), the rest as
/// read. Returns the new `_metadata`'s path.
pub fn write_remapped(
    old: &MetadataFile,
    plan: &Plan,
    dir: &Path,
    files: Files,
) -> Result<PathBuf, RemapError> {
    create_output(dir, &[old.path.as_path(), old.dir()])?;
    let mut md = load(old)?;
    let by_old: HashMap<OperatorId, &Assignment> =
        plan.assignments.iter().map(|a| (a.old.id, a)).collect();
    let version = md.header.version;
    md.operators.retain(|o| by_old.contains_key(&o.id));
    for op in &mut md.operators {
        let Some(a) = by_old.get(&op.id) else {
            continue;
        };
        op.id = a.new.id;
        if version >= 5 {
            op.name = a.new.name.clone();
            op.uid = a.new.uid.clone();
        }
    }
    keep_relative_files(&mut md, old, dir, files)?;
    write_metadata(dir, &md)
}

/// The relative state files of `md` (written for `old`'s directory) as a snapshot in `dir` sees them:
/// absolute `file:` paths into `old`'s directory, or copies in `dir`.
fn keep_relative_files(
    md: &mut Metadata,
    old: &MetadataFile,
    dir: &Path,
    files: Files,
) -> Result<(), RemapError> {
    let old_dir = old
        .dir()
        .canonicalize()
        .map_err(|e| InputError::new(old.dir(), e.to_string()))?;
    let mut failed = None;
    for op in &mut md.operators {
        for_each_stream(op, &mut |h| {
            let StreamHandle::RelativeFile { path, size } = h else {
                return;
            };
            let Some(from) = resolve_relative(&old_dir, path).filter(|p| contained(&old_dir, p))
            else {
                failed.get_or_insert_with(|| {
                    InputError::new(
                        old.dir(),
                        format!("relative state path {path:?} leaves the snapshot directory"),
                    )
                });
                return;
            };
            match files {
                Files::Shared => {
                    *h = StreamHandle::File {
                        size: *size,
                        path: format!("file:{}", from.display()),
                    }
                }
                Files::Copied => {
                    let to = dir.join(path.as_str());
                    let copied = to
                        .parent()
                        .map_or(Ok(()), std::fs::create_dir_all)
                        .and_then(|_| std::fs::copy(&from, &to));
                    if let Err(e) = copied {
                        failed.get_or_insert_with(|| InputError::new(&from, e.to_string()));
                    }
                }
            }
        });
    }
    failed.map_or(Ok(()), |e| Err(e.into()))
}

/// Writes `old` to `dir` with every absolute state path (and file-merging directory) under `from`
/// moved under `to`; relative state files, which the new directory does not hold, become absolute paths
/// into `old`'s. Returns the new `_metadata`'s path and how many paths were moved.
pub fn write_relocated(
    old: &MetadataFile,
    from: &str,
    to: &str,
    dir: &Path,
) -> Result<(PathBuf, usize), RemapError> {
    create_output(dir, &[old.path.as_path(), old.dir()])?;
    let mut md = load(old)?;
    let mut n = 0;
    let mut moved = |p: &mut String| {
        if let Some(rest) = p.strip_prefix(from) {
            *p = format!("{to}{rest}");
            n += 1;
        }
    };
    for op in &mut md.operators {
        for s in op.subtasks.iter_mut().filter_map(|s| s.state.as_mut()) {
            for o in [&mut s.managed_operator_state, &mut s.raw_operator_state] {
                if let Some(FileMergingDirs {
                    task_owned_dir,
                    shared_dir,
                    ..
                }) = o.handle.as_mut().and_then(|h| h.file_merging.as_mut())
                {
                    moved(task_owned_dir);
                    moved(shared_dir);
                }
            }
        }
        for_each_stream(op, &mut |h| match h {
            StreamHandle::File { path, .. } | StreamHandle::Segment { path, .. } => moved(path),
            _ => {}
        });
    }
    keep_relative_files(&mut md, old, dir, Files::Shared)?;
    Ok((write_metadata(dir, &md)?, n))
}

/// How relocatable a snapshot is: how many state handles have absolute paths, and the directory they
/// share (the longest common prefix ending at a `/`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AbsolutePaths {
    /// Handles with absolute paths (files and file-merging segments).
    pub count: usize,
    common: Option<String>,
}

impl AbsolutePaths {
    /// Counts the absolute paths of one operator's state.
    pub fn add(&mut self, op: &mut OperatorState) {
        for_each_stream(op, &mut |h| {
            if let StreamHandle::File { path, .. } | StreamHandle::Segment { path, .. } = h {
                self.count += 1;
                self.common = Some(match self.common.take() {
                    None => path.clone(),
                    Some(c) => {
                        let same = c
                            .char_indices()
                            .zip(path.chars())
                            .take_while(|((_, a), b)| a == b)
                            .last()
                            .map_or(0, |((i, a), _)| i + a.len_utf8());
                        c[..same].to_string()
                    }
                });
            }
        });
    }

    /// The directory every absolute path is under, when they share one.
    pub fn under(&self) -> Option<&str> {
        let c = self.common.as_deref()?;
        let dir = &c[..c.rfind('/').map_or(0, |i| i + 1)];
        (!dir.is_empty()).then_some(dir)
    }
}
