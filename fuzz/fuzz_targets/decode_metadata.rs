//! Any bytes: the decoder returns a value or an error, never panics, hangs or over-allocates; and what it
//! decodes can be summarised.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sp_inspect::metadata::{decode, ChannelIndex, DecodeOptions};

fuzz_target!(|data: &[u8]| {
    for channel_subtask_index in [ChannelIndex::Auto, ChannelIndex::With, ChannelIndex::Without] {
        if let Ok(md) = decode(data, DecodeOptions { channel_subtask_index }) {
            for op in &md.operators {
                let _ = op.summary();
                let _ = op.is_empty();
            }
        }
    }
});
