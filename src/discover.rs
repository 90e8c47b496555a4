//! Finding snapshots: the checkpoints and savepoints under a directory (a savepoint directory, a job's
//! checkpoint directory with `chk-N/`, or a directory of jobs or savepoints), for `ls` and `--latest`.

use crate::input::{open_regular, InputError};
use crate::metadata::MAGIC;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One snapshot found.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// Its directory (the one holding `_metadata`).
    pub dir: PathBuf,
    /// The checkpoint ID its header records.
    pub checkpoint_id: i64,
    /// Its format version.
    pub version: i32,
    /// Size of `_metadata`.
    pub metadata_bytes: u64,
    /// When `_metadata` was written (it is written last, when the snapshot completes).
    pub modified: Option<SystemTime>,
}

/// The header of a `_metadata` file: format version and checkpoint ID, or `None` when the file is not one
/// (an incomplete snapshot, a stray file).
fn header(path: &Path) -> Option<(i32, i64, u64)> {
    let mut f = open_regular(path).ok()?;
    let len = f.metadata().ok()?.len();
    let mut head = [0u8; 16];
    f.read_exact(&mut head).ok()?;
    let word = |i: usize| head.get(i..i + 4).and_then(|b| b.try_into().ok());
    let magic = u32::from_be_bytes(word(0)?);
    let version = i32::from_be_bytes(word(4)?);
    let id = i64::from_be_bytes(head.get(8..16)?.try_into().ok()?);
    (magic == MAGIC).then_some((version, id, len))
}

fn snapshot(dir: &Path) -> Option<Snapshot> {
    let meta = dir.join("_metadata");
    let (version, checkpoint_id, metadata_bytes) = header(&meta)?;
    Some(Snapshot {
        dir: dir.to_path_buf(),
        checkpoint_id,
        version,
        metadata_bytes,
        modified: std::fs::metadata(&meta).and_then(|m| m.modified()).ok(),
    })
}

fn children(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

/// The completed snapshots at `dir` and up to two levels below it (a job directory's `chk-N/`, a
/// directory of job directories), oldest first: by checkpoint ID, then by when `_metadata` was written.
/// Directories without a readable `_metadata` (in progress, or failed) are not snapshots.
pub fn snapshots(dir: &Path) -> Result<Vec<Snapshot>, InputError> {
    if !dir.is_dir() {
        return Err(InputError::new(dir, "not a directory"));
    }
    let mut found = Vec::new();
    let mut visit = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = visit.pop() {
        match snapshot(&d) {
            Some(s) => found.push(s),
            None if depth < 2 => visit.extend(children(&d).into_iter().map(|c| (c, depth + 1))),
            None => {}
        }
    }
    found.sort_by(|a, b| {
        a.checkpoint_id
            .cmp(&b.checkpoint_id)
            .then(a.modified.cmp(&b.modified))
            .then(a.dir.cmp(&b.dir))
    });
    Ok(found)
}

/// The newest completed snapshot under `dir`, as Flink's own "latest checkpoint" would pick it: the
/// highest checkpoint ID (then the latest written).
pub fn latest(dir: &Path) -> Result<Snapshot, InputError> {
    snapshots(dir)?.pop().ok_or_else(|| {
        InputError::new(
            dir,
            "no completed snapshot (no directory with a _metadata file) under it",
        )
    })
}
