//! Any bytes as the content of a state file or state element: the header readers, the element reader
//! (plain and Snappy-framed) and the connector decoders return a value or an error, never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sp_inspect::state::{connectors, element, meta};

fuzz_target!(|data: &[u8]| {
    let _ = meta::operator_header(data);
    let _ = meta::keyed_header(data);
    let _ = element::list_element(data, 0, false);
    let _ = element::list_element(data, 0, true);
    let _ = element::versioned(data);
    let _ = connectors::coordinator(data);
    if let Some((&v, rest)) = data.split_first() {
        let version = i32::from(v % 4);
        let _ = connectors::split(version, rest);
        let _ = connectors::sink_state("writer_raw_states", version, rest);
        let _ = connectors::sink_state("streaming_committer_raw_states", version, rest);
    }
});
