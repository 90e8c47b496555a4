//! Reading the bytes behind a stream handle: inline bytes, a file relative to the snapshot directory, an
//! absolute `file:` path (only when allowed), or a byte range of a merged file. Never writes; never
//! follows a relative path out of the snapshot directory, by `..` or through a symlink; reads regular
//! files only.

use crate::input::{contained, open_regular, resolve_relative};
use crate::model::StreamHandle;
use std::fmt;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Where state files are looked up.
#[derive(Debug, Clone)]
pub struct StateAccess {
    /// The directory holding `_metadata`.
    dir: PathBuf,
    /// The same, with every symlink resolved: relative state files must resolve inside it.
    canonical_dir: PathBuf,
    /// Whether absolute `file:` paths may be read.
    allow_absolute: bool,
}

/// Why a handle's bytes could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum AccessError {
    /// A relative path that climbs out of the snapshot directory (by `..`).
    Escapes(String),
    /// A relative path inside the snapshot directory that a symlink leads out of it.
    EscapesThroughSymlink(String),
    /// An absolute path, not allowed without `--allow-absolute-paths`.
    AbsoluteNotAllowed(String),
    /// A path on a file system this tool does not read (s3://, hdfs://, …).
    Remote(String),
    /// The file could not be read.
    Io {
        /// Which file.
        path: String,
        /// What the operating system said.
        error: String,
    },
    /// The handle holds no bytes (a null delegate).
    Missing,
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessError::Escapes(p) => write!(
                f,
                "relative path {p:?} leaves the snapshot directory; not followed"
            ),
            AccessError::EscapesThroughSymlink(p) => write!(
                f,
                "relative path {p:?} leads out of the snapshot directory through a symlink; not followed"
            ),
            AccessError::AbsoluteNotAllowed(p) => {
                write!(
                    f,
                    "{p} is outside the snapshot directory; pass --allow-absolute-paths to read it"
                )
            }
            AccessError::Remote(p) => write!(
                f,
                "{p} is on a remote file system; copy it next to _metadata to read it"
            ),
            AccessError::Io { path, error } => write!(f, "{path}: {error}"),
            AccessError::Missing => write!(f, "the handle has no data"),
        }
    }
}

fn local_path(path: &str) -> Option<PathBuf> {
    let p = path
        .strip_prefix("file://")
        .or_else(|| path.strip_prefix("file:"))
        .unwrap_or(path);
    if path.contains("://") && !path.starts_with("file:") {
        return None;
    }
    // `file:///x` leaves `/x`, `file:/x` leaves `/x`.
    Some(PathBuf::from(format!("/{}", p.trim_start_matches('/'))))
}

/// Reads up to `len` bytes from `start`; `exact`: fewer bytes is an error (a segment's declared range).
fn read_range(path: &Path, start: u64, len: u64, exact: bool) -> Result<Vec<u8>, AccessError> {
    let io = |e: std::io::Error| AccessError::Io {
        path: path.display().to_string(),
        error: e.to_string(),
    };
    let mut f = open_regular(path).map_err(|e| AccessError::Io {
        path: path.display().to_string(),
        error: e.error,
    })?;
    f.seek(SeekFrom::Start(start)).map_err(io)?;
    let mut out = Vec::new();
    f.take(len).read_to_end(&mut out).map_err(io)?;
    if exact && (out.len() as u64) < len {
        return Err(AccessError::Io {
            path: path.display().to_string(),
            error: format!(
                "expected {len} bytes from offset {start}, the file has {}",
                out.len()
            ),
        });
    }
    Ok(out)
}

impl StateAccess {
    /// State files of the snapshot in `dir` (the directory holding `_metadata`); absolute paths only
    /// when `allow_absolute`.
    pub fn new(dir: &Path, allow_absolute: bool) -> Self {
        StateAccess {
            dir: dir.to_path_buf(),
            canonical_dir: dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf()),
            allow_absolute,
        }
    }

    fn relative(&self, path: &str) -> Result<PathBuf, AccessError> {
        let p = resolve_relative(&self.dir, path)
            .ok_or_else(|| AccessError::Escapes(path.to_string()))?;
        if !contained(&self.canonical_dir, &p) {
            return Err(AccessError::EscapesThroughSymlink(path.to_string()));
        }
        Ok(p)
    }

    fn absolute(&self, path: &str) -> Result<PathBuf, AccessError> {
        let local = local_path(path).ok_or_else(|| AccessError::Remote(path.to_string()))?;
        if !self.allow_absolute {
            return Err(AccessError::AbsoluteNotAllowed(path.to_string()));
        }
        Ok(local)
    }

    /// The first `limit` bytes (at most) of a stream handle's data: state files can be far larger than
    /// the parts this tool reads (headers, operator state), and are never read whole into memory.
    pub fn read(&self, h: &StreamHandle, limit: u64) -> Result<Vec<u8>, AccessError> {
        match h {
            StreamHandle::ByteStream { data, .. } => Ok(data
                .get(..usize::try_from(limit).unwrap_or(usize::MAX))
                .unwrap_or(data)
                .to_vec()),
            StreamHandle::RelativeFile { path, .. } => {
                read_range(&self.relative(path)?, 0, limit, false)
            }
            StreamHandle::File { path, .. } => read_range(&self.absolute(path)?, 0, limit, false),
            StreamHandle::Segment {
                path, start, size, ..
            } => read_range(
                &self.absolute(path)?,
                (*start).max(0) as u64,
                ((*size).max(0) as u64).min(limit),
                true,
            ),
            StreamHandle::EmptySegment => Ok(Vec::new()),
            StreamHandle::KeyGroups(k) => k
                .delegate
                .as_ref()
                .map_or(Err(AccessError::Missing), |d| self.read(d, limit)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_need_permission_and_remote_ones_are_refused() {
        let a = StateAccess::new(Path::new("/nonexistent"), false);
        let h = StreamHandle::File {
            size: 1,
            path: "file:/tmp/x".into(),
        };
        assert_eq!(
            a.read(&h, 10),
            Err(AccessError::AbsoluteNotAllowed("file:/tmp/x".into()))
        );
        let h = StreamHandle::File {
            size: 1,
            path: "s3://bucket/x".into(),
        };
        assert_eq!(
            a.read(&h, 10),
            Err(AccessError::Remote("s3://bucket/x".into()))
        );
        let h = StreamHandle::RelativeFile {
            path: "../x".into(),
            size: 1,
        };
        assert_eq!(a.read(&h, 10), Err(AccessError::Escapes("../x".into())));
        assert_eq!(local_path("file:///a/b"), Some(PathBuf::from("/a/b")));
        assert_eq!(local_path("file:/a/b"), Some(PathBuf::from("/a/b")));
    }
}
