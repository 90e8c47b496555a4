//! Finding and reading a `_metadata` file, and resolving the relative paths it contains.

use std::fmt;
use std::fs::File;
use std::path::{Component, Path, PathBuf};

/// The bytes of a `_metadata` file, memory-mapped so that huge files are not copied onto the heap.
pub struct MetadataFile {
    /// The file's path.
    pub path: PathBuf,
    bytes: Bytes,
}

enum Bytes {
    Mapped(memmap2::Mmap),
    Empty,
}

impl MetadataFile {
    /// Opens `path`: a `_metadata` file, or a savepoint/checkpoint directory that contains one.
    /// The file is only read, never written.
    pub fn open(path: &Path) -> Result<Self, InputError> {
        let file_path = if path.is_dir() {
            path.join("_metadata")
        } else {
            path.to_path_buf()
        };
        let io = |e: std::io::Error| InputError {
            path: file_path.clone(),
            error: e.to_string(),
        };
        let file = File::open(&file_path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let bytes = if len == 0 {
            Bytes::Empty
        } else {
            // SAFETY: the map is read-only; if another process truncates the file while we read it the
            // process may receive SIGBUS, as with any tool that maps files (ripgrep does the same).
            Bytes::Mapped(unsafe { memmap2::Mmap::map(&file) }.map_err(io)?)
        };
        Ok(MetadataFile {
            path: file_path,
            bytes,
        })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Empty => &[],
        }
    }

    /// Tells the kernel the bytes before `offset` will not be read again, so that a single pass over a
    /// huge file keeps only a window of it resident. Page-aligned; a no-op for small files.
    pub fn release_before(&self, offset: u64) {
        const PAGE: usize = 4096;
        if let Bytes::Mapped(m) = &self.bytes {
            let end = (offset as usize).min(m.len()) / PAGE * PAGE;
            if end > 0 {
                // SAFETY: the map is read-only and file-backed: dropping its pages only makes a later read
                // fault them in again from the file. Callers pass offsets they have finished reading.
                let _ =
                    unsafe { m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, end) };
            }
        }
    }

    /// The directory relative state paths are resolved against (the one holding `_metadata`).
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or_else(|| Path::new("."))
    }
}

/// A file that could not be opened or read.
#[derive(Debug)]
pub struct InputError {
    /// Which file.
    pub path: PathBuf,
    /// What the operating system said.
    pub error: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for InputError {}

/// Resolves a relative state path (tag 6) against the snapshot directory. Returns `None` when the
/// path is absolute or climbs out of the directory: such a path is reported, never followed.
pub fn resolve_relative(dir: &Path, relative: &str) -> Option<PathBuf> {
    let rel = Path::new(relative);
    let mut depth = 0usize;
    for c in rel.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => depth = depth.checked_sub(1)?,
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(dir.join(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_never_leave_the_snapshot_directory() {
        let d = Path::new("/sp");
        assert_eq!(resolve_relative(d, "a/b"), Some(PathBuf::from("/sp/a/b")));
        assert_eq!(
            resolve_relative(d, "a/../b"),
            Some(PathBuf::from("/sp/a/../b"))
        );
        assert_eq!(resolve_relative(d, "../b"), None);
        assert_eq!(resolve_relative(d, "a/../../b"), None);
        assert_eq!(resolve_relative(d, "/etc/passwd"), None);
    }
}
