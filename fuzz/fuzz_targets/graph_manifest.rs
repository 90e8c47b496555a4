//! Any text: the manifest reader returns operators or an error, never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = sp_inspect::graph::parse_manifest(text);
    }
});
