//! Opening the files sp-inspect reads: regular files only, text inputs within a size limit, state paths
//! that stay inside the snapshot directory, and outputs that never land on an input.

use crate::sniff::{sniff_head, Head, HEAD};
use std::fs::File;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The most a text input (graph manifest, uid list, configuration) may hold. Manifests of jobs with
/// thousands of operators are a few MB; anything larger is not one.
pub const TEXT_LIMIT: u64 = 16 << 20;

/// A file that could not be opened or read.
#[derive(Debug, thiserror::Error)]
#[error("{}: {error}", path.display())]
pub struct InputError {
    /// Which file.
    pub path: PathBuf,
    /// What went wrong (the operating system's words, or what the file is instead of what was expected).
    pub error: String,
}

impl InputError {
    /// An error about `path`.
    pub fn new(path: &Path, error: impl Into<String>) -> Self {
        InputError {
            path: path.to_path_buf(),
            error: error.into(),
        }
    }
}

/// What a file that is not a regular file is, for the error.
fn non_regular_kind(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading if it is a regular file (after following symlinks). FIFOs, devices, sockets
/// and directories are refused by type, without blocking: the file is opened non-blocking and checked
/// before anything is read.
pub fn open_regular(path: &Path) -> Result<File, InputError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO for reading blocks until a writer appears; non-blocking, it returns at once.
        // Reads of a regular file ignore the flag.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| InputError::new(path, e.to_string()))?;
    let t = file
        .metadata()
        .map_err(|e| InputError::new(path, e.to_string()))?
        .file_type();
    if !t.is_file() {
        return Err(InputError::new(
            path,
            format!("is {}, expected a regular file", non_regular_kind(t)),
        ));
    }
    Ok(file)
}

/// Reads a text input whole: a regular file of at most [`TEXT_LIMIT`] bytes, UTF-8 (a leading byte-order
/// mark is dropped). `what` names the expected content for the errors.
pub fn read_text(path: &Path, what: &str) -> Result<String, InputError> {
    let mut bytes = Vec::new();
    open_regular(path)?
        .take(TEXT_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::new(path, e.to_string()))?;
    if bytes.len() as u64 > TEXT_LIMIT {
        return Err(InputError::new(
            path,
            format!("larger than {} MiB, the limit for {what}", TEXT_LIMIT >> 20),
        ));
    }
    text_of(bytes).map_err(|offset| {
        InputError::new(
            path,
            format!("byte offset {offset}: not UTF-8 text, expected {what}"),
        )
    })
}

/// The text of `bytes` without a leading byte-order mark, or the byte offset of the first byte that is
/// not UTF-8.
pub fn text_of(mut bytes: Vec<u8>) -> Result<String, usize> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let skip = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    bytes.drain(..skip);
    String::from_utf8(bytes).map_err(|e| e.utf8_error().valid_up_to() + skip)
}

/// Refuses to write the report to `output` when that is one of `inputs`, or lies inside a snapshot
/// directory given as input (a directory, or the directory of a `_metadata` file).
pub fn check_output(output: &Path, inputs: &[&Path]) -> Result<(), InputError> {
    // The output may not exist yet: compare its parent's canonical path joined with its name.
    let target = match output.canonicalize() {
        Ok(p) => p,
        Err(_) => {
            let parent = match output.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            match (parent.canonicalize(), output.file_name()) {
                (Ok(p), Some(name)) => p.join(name),
                _ => return Ok(()), // cannot exist; creating it will fail with its own error
            }
        }
    };
    for input in inputs {
        let Ok(canonical) = input.canonicalize() else {
            continue;
        };
        let snapshot_dir = if canonical.is_dir() {
            Some(canonical.clone())
        } else if canonical.file_name().is_some_and(|n| n == "_metadata") {
            canonical.parent().map(Path::to_path_buf)
        } else {
            None
        };
        let refused = target == canonical || snapshot_dir.is_some_and(|d| target.starts_with(d));
        if refused {
            return Err(InputError::new(
                output,
                format!(
                    "is (or is inside) the input {}; sp-inspect never writes to its inputs",
                    input.display()
                ),
            ));
        }
    }
    Ok(())
}

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

/// The snapshots a directory without `_metadata` holds (`chk-N`, `savepoint-…`), for the error.
fn snapshots_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("_metadata").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    names.sort_by_key(|n| {
        let id = n.strip_prefix("chk-").and_then(|i| i.parse::<u64>().ok());
        (id.is_none(), id, n.clone())
    });
    names
}

impl MetadataFile {
    /// Opens `path`: a `_metadata` file, or a savepoint/checkpoint directory that contains one.
    /// The file is only read, never written.
    pub fn open(path: &Path) -> Result<Self, InputError> {
        let file_path = if path.is_dir() {
            let inner = path.join("_metadata");
            if !inner.exists() {
                let found = snapshots_in(path);
                let hint = match found.as_slice() {
                    [] => "expected a savepoint or checkpoint directory".to_string(),
                    [one] => format!("it holds the snapshot {one}/: pass that"),
                    many => format!(
                        "it holds {} snapshots ({}): pass one of them",
                        many.len(),
                        many.join(", ")
                    ),
                };
                return Err(InputError::new(
                    path,
                    format!("directory without a _metadata file; {hint}"),
                ));
            }
            inner
        } else {
            path.to_path_buf()
        };
        let file = open_regular(&file_path)?;
        let io = |e: std::io::Error| InputError::new(&file_path, e.to_string());
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

    /// Opens `path` like [`MetadataFile::open`] and checks that it is a `_metadata` file by its magic
    /// number: an empty file, a manifest or any other file is refused, saying what it is.
    pub fn open_snapshot(path: &Path) -> Result<Self, InputError> {
        let file = Self::open(path)?;
        match file.sniff() {
            Ok(Head::Metadata) => Ok(file),
            Ok(Head::Text) => Err(InputError::new(
                &file.path,
                "text, not a _metadata file: byte offset 0 does not hold its magic number 49 60 67 2d",
            )),
            Err(what) => Err(InputError::new(
                &file.path,
                format!("{what}; expected a _metadata file"),
            )),
        }
    }

    /// What the file is, from its first bytes (see [`sniff_head`]).
    pub fn sniff(&self) -> Result<Head, String> {
        let bytes = self.bytes();
        sniff_head(bytes.get(..HEAD).unwrap_or(bytes), bytes.len() as u64)
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
        match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        }
    }
}

/// Resolves a relative state path (tag 6) against the snapshot directory, lexically. Returns `None` when
/// the path is absolute or climbs out of the directory: such a path is reported, never followed.
/// [`contained`] then checks the file itself, symlinks included.
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

/// Whether `path`, with every symlink resolved, lies inside `canonical_dir` (itself canonical). A path
/// that does not exist is inside: opening it then fails with its own error.
pub fn contained(canonical_dir: &Path, path: &Path) -> bool {
    match path.canonicalize() {
        Ok(p) => p.starts_with(canonical_dir),
        Err(_) => true,
    }
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

    #[test]
    fn text_keeps_the_offset_of_bad_bytes_and_drops_a_bom() {
        assert_eq!(text_of(b"\xEF\xBB\xBFab".to_vec()), Ok("ab".to_string()));
        assert_eq!(text_of(b"ab\xFFc".to_vec()), Err(2));
        assert_eq!(text_of(b"\xEF\xBB\xBFab\xFF".to_vec()), Err(5));
    }
}
