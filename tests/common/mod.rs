//! Helpers shared by the test files.
#![allow(dead_code)] // each test file uses a part

/// Builds bytes the way Java's `DataOutputStream` writes them (big-endian), for `_metadata` files and
/// state made field by field.
#[derive(Default, Clone)]
pub struct B(pub Vec<u8>);

impl B {
    pub fn u8(mut self, v: u8) -> Self {
        self.0.push(v);
        self
    }
    pub fn i16(mut self, v: i16) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn i32(mut self, v: i32) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn i64(mut self, v: i64) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn raw(mut self, v: &[u8]) -> Self {
        self.0.extend_from_slice(v);
        self
    }
    /// `writeUTF` of an ASCII string.
    pub fn utf(self, s: &str) -> Self {
        let b = s.as_bytes();
        self.raw(&(b.len() as u16).to_be_bytes()).raw(b)
    }
    /// i32 length, then the bytes.
    pub fn bytes(self, b: &[u8]) -> Self {
        self.i32(b.len() as i32).raw(b)
    }
    /// Zero bytes after the interesting part, so that count checks (which refuse counts the remaining
    /// bytes cannot hold) pass and decoding reaches the value under test.
    pub fn pad(self) -> Self {
        self.raw(&[0; 64])
    }
    /// Header of a `_metadata` file with no master states, up to and including the operator count.
    pub fn header(version: i32, operators: i32) -> Self {
        B::default()
            .i32(0x4960672D)
            .i32(version)
            .i64(7)
            .i32(0)
            .i32(operators)
    }
    /// A format-3 operator record up to the subtask count.
    pub fn op_v3(self, subtasks: i32) -> Self {
        self.raw(&[0xAB; 16]).i32(1).i32(128).u8(0).i32(subtasks)
    }
}

/// The fixture corpus.
pub fn fixtures_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The fixture directories that `keep` accepts, sorted.
pub fn fixture_dirs(keep: impl Fn(&std::path::Path) -> bool) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| keep(p))
        .collect();
    v.sort();
    v
}

/// Runs the binary with `args`.
pub fn sp(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sp-inspect"))
        .args(args)
        .output()
        .expect("run sp-inspect")
}
