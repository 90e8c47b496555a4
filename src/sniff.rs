//! What an input file is, by content: a `_metadata` file (its magic number), a graph manifest (JSON whose
//! `schema` is `sp-inspect/graph-v1`) or a uid list (text whose first line is [`UID_LIST_MARKER`]). Anything
//! else is refused with a description of what it looks like, so that a failed download, a swapped argument
//! or a job's source file is an input error and never an empty graph that passes.

use crate::graph::MANIFEST_SCHEMA;
use crate::metadata::MAGIC;
use serde_json::Value;

/// The first line of a uid list. Without it a text file is not taken as one: any text would otherwise be.
pub const UID_LIST_MARKER: &str = "# sp-inspect/uids-v1";

/// How many leading bytes [`sniff_head`] looks at.
pub const HEAD: usize = 4096;

/// What the first bytes of a file say.
#[derive(Debug, Clone, PartialEq)]
pub enum Head {
    /// A `_metadata` file.
    Metadata,
    /// Text: read it whole and pass it to [`sniff_text`].
    Text,
}

/// What a text input is.
#[derive(Debug, Clone, PartialEq)]
pub enum TextInput {
    /// A graph manifest, parsed as JSON (see `graph::manifest_from_json`).
    Manifest(Value),
    /// A uid list: its uids, in order.
    UidList(Vec<String>),
}

/// Classifies a file from its first bytes (`head`, at most [`HEAD`] of them) and its length; `Err` says
/// what the file is instead (callers add what they expected).
pub fn sniff_head(head: &[u8], len: u64) -> Result<Head, String> {
    let magic = MAGIC.to_be_bytes();
    if head.starts_with(&magic) {
        return Ok(Head::Metadata);
    }
    if len == 0 {
        return Err("empty file (0 bytes)".into());
    }
    if len < 4 && magic.starts_with(head) {
        return Err(format!(
            "only {len} bytes, the start of a _metadata file's magic number: a truncated _metadata file"
        ));
    }
    let hex: Vec<String> = head.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let binary = || {
        format!(
            "binary data, not a _metadata file: byte offset 0 holds {}, a _metadata file starts with 49 60 67 2d",
            hex.join(" ")
        )
    };
    if let Some(at) = head.iter().position(|&b| b == 0) {
        return Err(if head.iter().all(|&b| b == 0) {
            format!("{} (all zero bytes)", binary())
        } else {
            format!("{} (a NUL byte at offset {at})", binary())
        });
    }
    match std::str::from_utf8(head) {
        Ok(_) => Ok(Head::Text),
        // A multi-byte character cut by the end of the head is still text.
        Err(e) if e.error_len().is_none() => Ok(Head::Text),
        Err(e) => Err(format!(
            "{} (byte offset {} is not UTF-8)",
            binary(),
            e.valid_up_to()
        )),
    }
}

/// Classifies a whole text input (byte-order mark already removed); `Err` says what it looks like.
pub fn sniff_text(text: &str) -> Result<TextInput, String> {
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Err("only white space; expected a graph manifest or a uid list".into());
    }
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return sniff_json(text);
    }
    let first_line = text.lines().next().unwrap_or_default().trim_end();
    if first_line == UID_LIST_MARKER {
        return Ok(TextInput::UidList(uids_after_marker(text)));
    }
    Err(format!(
        "{}, not a uid list: a uid list starts with the line {UID_LIST_MARKER:?}",
        looks_like(text)
    ))
}

fn sniff_json(text: &str) -> Result<TextInput, String> {
    let not_manifest =
        format!("a graph manifest is an object with \"schema\": {MANIFEST_SCHEMA:?}");
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) => match o.get("schema") {
            Some(Value::String(s)) if s == MANIFEST_SCHEMA => {
                Ok(TextInput::Manifest(Value::Object(o)))
            }
            Some(Value::String(s)) => Err(format!(
                "JSON with schema {s:?} (at schema), not a graph manifest; {not_manifest}"
            )),
            Some(_) => Err(format!(
                "JSON whose schema (at schema) is not a string, not a graph manifest; {not_manifest}"
            )),
            None => Err(format!(
                "JSON without a schema (at schema), not a graph manifest; {not_manifest}"
            )),
        },
        Ok(Value::Array(_)) => Err(format!("a JSON array, not a graph manifest; {not_manifest}")),
        Ok(_) => Err(format!("a JSON value, not a graph manifest; {not_manifest}")),
        Err(e) if e.classify() == serde_json::error::Category::Syntax && e.line() > 1 && {
            // "trailing characters" after a first complete value: one JSON document per line.
            let first = text.trim_start().lines().next().unwrap_or_default();
            serde_json::from_str::<Value>(first).is_ok()
        } =>
        {
            Err(format!("JSON lines (one JSON value per line), not a graph manifest; {not_manifest}"))
        }
        Err(e) => Err(format!(
            "not valid JSON at line {} column {}: {e}; {not_manifest}",
            e.line(),
            e.column()
        )),
    }
}

/// The uids of a uid list: every line after the marker, trimmed; blank lines and `#` comments skipped.
fn uids_after_marker(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// A guess at what a text file is, for the error.
fn looks_like(text: &str) -> &'static str {
    let code_lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(50);
    let mut python = 0;
    let mut java = 0;
    for l in code_lines {
        if l.starts_with("#!") && l.contains("python") {
            return "looks like Python source";
        }
        let words = [
            "import ",
            "from ",
            "def ",
            "class ",
            "if __name__",
            "async def ",
        ];
        if words.iter().any(|w| l.starts_with(w)) || l.ends_with(':') {
            python += 1;
        }
        if l.starts_with("package ") || l.starts_with("public ") || l.ends_with(';') {
            java += 1;
        }
    }
    match (python, java) {
        (0, 0) => "text",
        (p, j) if p >= j => "looks like Python source",
        _ => "looks like Java or Scala source",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_magic_makes_a_metadata_file_and_nothing_else_does() {
        assert_eq!(
            sniff_head(b"\x49\x60\x67\x2d\0\0\0\x06", 8),
            Ok(Head::Metadata)
        );
        assert!(sniff_head(b"", 0).unwrap_err().starts_with("empty file"));
        assert!(sniff_head(b"\x49\x60\x67", 3)
            .unwrap_err()
            .contains("truncated _metadata"));
        assert!(sniff_head(&[0; 64], 1 << 30)
            .unwrap_err()
            .contains("all zero bytes"));
        // A corrupt magic number: the version after it has NUL bytes.
        assert!(sniff_head(b"\x49\x60\x67\x2e\0\0\0\x06", 8)
            .unwrap_err()
            .contains("byte offset 0 holds 49 60 67 2e"));
        assert_eq!(sniff_head("ab\u{e9}".as_bytes(), 4), Ok(Head::Text));
        // A character cut by the end of the head.
        assert_eq!(
            sniff_head(&"ab\u{e9}".as_bytes()[..3], 4096),
            Ok(Head::Text)
        );
    }

    #[test]
    fn text_is_a_uid_list_only_with_the_marker() {
        let list = format!("{UID_LIST_MARKER}\n# comment\n a \n\nb\n");
        assert_eq!(
            sniff_text(&list),
            Ok(TextInput::UidList(vec!["a".into(), "b".into()]))
        );
        assert!(sniff_text("a\nb\n")
            .unwrap_err()
            .starts_with("text, not a uid list"));
        let py = "import os\n\ndef main():\n    if x:\n        pass\n";
        assert!(sniff_text(py)
            .unwrap_err()
            .starts_with("looks like Python source"));
        assert!(sniff_text("[1,2,3]")
            .unwrap_err()
            .starts_with("a JSON array"));
        assert!(sniff_text("{\"a\": 1}\n{\"a\": 2}\n")
            .unwrap_err()
            .starts_with("JSON lines"));
        assert!(sniff_text("{\"operators\": []}")
            .unwrap_err()
            .starts_with("JSON without a schema"));
        assert!(sniff_text("{\"a\": ")
            .unwrap_err()
            .starts_with("not valid JSON at line 1"));
        assert!(matches!(
            sniff_text("{\"schema\": \"sp-inspect/graph-v1\", \"operators\": []}"),
            Ok(TextInput::Manifest(_))
        ));
        assert!(sniff_text("  \n\t").is_err());
    }
}
