//! Any bytes: what an input to `diff`/`lint` is, by content, exactly as `JobInput::load`/`from_text` decide it
//! (src/job.rs): `sniff_head` on the first `sniff::HEAD` bytes with the whole length, and for text
//! `text_of`, `sniff_text` and, for a manifest, `manifest_from_json`. Checked:
//! 1. `sniff_head` says `Head::Metadata` if and only if the bytes start with the magic number 49 60 67 2d;
//! 2. an input taken as a uid list starts, after an optional UTF-8 byte-order mark, with the line
//!    `# sp-inspect/uids-v1` (trailing white space on that line allowed);
//! 3. nothing panics, and every `Err` carries a message that is not empty (nor only white space).
#![no_main]
use libfuzzer_sys::fuzz_target;
use sp_inspect::graph::manifest_from_json;
use sp_inspect::input::{text_of, TEXT_LIMIT};
use sp_inspect::sniff::{sniff_head, sniff_text, Head, TextInput, HEAD};

/// The `_metadata` magic number, spelled out rather than taken from the library.
const MAGIC: [u8; 4] = [0x49, 0x60, 0x67, 0x2d];
const BOM: &[u8] = b"\xEF\xBB\xBF";
const MARKER: &[u8] = b"# sp-inspect/uids-v1";

fn non_empty(what: &str, message: &str) {
    assert!(
        !message.trim().is_empty(),
        "{what} returned an Err with an empty message: {message:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    // As `MetadataFile::sniff`.
    let head = data.get(..HEAD).unwrap_or(data);
    let sniffed = sniff_head(head, data.len() as u64);

    // (1) Metadata iff the magic number.
    assert_eq!(
        matches!(sniffed, Ok(Head::Metadata)),
        data.starts_with(&MAGIC),
        "sniff_head returned {sniffed:?} for an input starting with {:02x?}",
        &data[..data.len().min(4)]
    );

    match sniffed {
        Ok(Head::Metadata) => return,
        Err(what) => return non_empty("sniff_head", &what),
        Ok(Head::Text) => {}
    }

    // As `JobInput::from_text`.
    if data.len() as u64 > TEXT_LIMIT {
        return;
    }
    let text = match text_of(data.to_vec()) {
        Ok(text) => text,
        Err(offset) => {
            // Not a message but an offset: it must point at a byte of the input.
            assert!(offset < data.len(), "text_of: offset {offset} past the input's {} bytes", data.len());
            return;
        }
    };
    match sniff_text(&text) {
        Err(what) => non_empty("sniff_text", &what),
        Ok(TextInput::UidList(_)) => {
            // (2) The marker line, checked on the raw bytes.
            let body = data.strip_prefix(BOM).unwrap_or(data);
            assert!(
                body.starts_with(MARKER),
                "taken as a uid list without starting with the marker: {:?}",
                String::from_utf8_lossy(&body[..body.len().min(64)])
            );
            let rest = &body[MARKER.len()..];
            let rest = &rest[..rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())];
            let rest = std::str::from_utf8(rest).expect("the input is UTF-8");
            assert!(
                rest.chars().all(char::is_whitespace),
                "taken as a uid list, but the first line continues after the marker with {rest:?}"
            );
        }
        Ok(TextInput::Manifest(doc)) => {
            if let Err(e) = manifest_from_json(&doc) {
                non_empty("manifest_from_json", &e.message);
                non_empty("manifest_from_json", &e.to_string());
            }
        }
    }
});
