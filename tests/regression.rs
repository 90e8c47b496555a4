//! Inputs that found bugs (mostly by fuzzing), kept so the bugs stay fixed. Each is named for the bug.

use sp_inspect::metadata::{decode, DecodeOptions, ErrorKind};
use std::path::Path;

fn input(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/regressions")
            .join(name),
    )
    .expect("regression input")
}

/// Found by `cargo fuzz run decode_metadata` (a timeout): changelog handles nested in changelog handles
/// each tried both changelog layouts, so decoding took 2^depth attempts. The layout is now chosen once per
/// changelog subtree; before the fix this test did not finish.
#[test]
fn nested_changelog_handles_do_not_backtrack_exponentially() {
    let e = decode(
        &input("changelog-fallback-exponential-backtracking.bin"),
        DecodeOptions::default(),
    )
    .expect_err("the input is malformed");
    assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }), "{e}");
    assert!(e.context.contains("materialized"), "{e}");
}
