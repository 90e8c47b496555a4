//! Malformed files: every one gives an error naming the byte offset and what was expected; none panics,
//! none allocates more than its size justifies.

use sp_inspect::metadata::{decode, DecodeError, DecodeOptions, ErrorKind};
use std::path::Path;

mod common;
use common::B;

fn err(bytes: &[u8]) -> DecodeError {
    match decode(bytes, DecodeOptions::default()) {
        Ok(_) => panic!("decoded a malformed file"),
        Err(e) => e,
    }
}

/// A V3 file with one operator with one subtask whose managed keyed handle has tag `tag`.
fn with_keyed_tag(tag: u8) -> B {
    B::header(3, 1).op_v3(1).i32(0).i32(0).i32(0).u8(tag)
}

#[test]
fn a_minimal_file_decodes() {
    let b = B::header(3, 1)
        .op_v3(1)
        .i32(0)
        .i32(0)
        .i32(0)
        .u8(0)
        .u8(0)
        .i32(0)
        .i32(0);
    let md = decode(&b.0, DecodeOptions::default()).expect("valid");
    assert_eq!(md.operators.len(), 1);
    assert_eq!(md.operators[0].id.to_string(), "ab".repeat(16));
}

#[test]
fn wrong_magic() {
    let e = err(&B::default().i32(0x12345678).i32(3).0);
    assert_eq!(e.offset, 0);
    assert_eq!(e.kind, ErrorKind::BadMagic(0x12345678));
    assert!(
        e.to_string().contains("expected magic number 0x4960672d"),
        "{e}"
    );
}

#[test]
fn unsupported_versions() {
    for v in [0, 1, 8, -1, 1000] {
        let e = err(&B::header(v, 0).0);
        assert_eq!((e.offset, e.kind), (4, ErrorKind::UnsupportedVersion(v)));
    }
    assert!(err(&B::header(1, 0).0).to_string().contains("Flink 1.2"));
}

#[test]
fn unknown_tags_in_every_context() {
    // keyed context
    let e = err(&with_keyed_tag(99).pad().0);
    assert_eq!(
        e.kind,
        ErrorKind::UnknownTag {
            context: "keyed state handle",
            tag: 99
        }
    );
    assert_eq!(e.offset, with_keyed_tag(99).0.len() as u64 - 1);
    assert_eq!(e.context, "operators[0].subtasks[0].managed_keyed_state");
    // stream context (coordinator state)
    let b = B::header(3, 1).raw(&[0; 16]).i32(1).i32(128).u8(42).pad();
    let e = err(&b.0);
    assert_eq!(
        e.kind,
        ErrorKind::UnknownTag {
            context: "stream state handle",
            tag: 42
        }
    );
    assert_eq!(e.context, "operators[0].coordinator_state");
    // operator context
    let b = B::header(3, 1).op_v3(1).i32(0).i32(1).u8(5).pad();
    assert_eq!(
        err(&b.0).kind,
        ErrorKind::UnknownTag {
            context: "operator state handle",
            tag: 5
        }
    );
    // channel context (V6: input list with an output tag)
    let b = B::header(6, 1)
        .utf("n")
        .utf("u")
        .op_v3(1)
        .i32(0)
        .i32(0)
        .i32(0)
        .u8(0)
        .u8(0)
        .i32(1)
        .u8(2)
        .pad();
    assert!(matches!(
        err(&b.0).kind,
        ErrorKind::UnknownTag { tag: 2, .. }
    ));
}

#[test]
fn coordinator_state_must_be_inline_or_absent() {
    let b = B::header(3, 1)
        .raw(&[0; 16])
        .i32(1)
        .i32(128)
        .u8(2)
        .i64(10)
        .utf("/x")
        .i32(0)
        .pad();
    assert!(matches!(
        err(&b.0).kind,
        ErrorKind::BadValue {
            what: "coordinator state handle tag",
            value: 2,
            ..
        }
    ));
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    for (bytes, what) in [
        (B::header(3, i32::MAX).0, "operator count"),
        (B::header(3, 1).op_v3(i32::MAX).0, "subtask count"),
        (
            B::default().i32(0x4960672D).i32(3).i64(1).i32(1 << 30).0,
            "master state count",
        ),
        (
            with_keyed_tag(7).i32(0).i32(i32::MAX).0,
            "key-group offset count",
        ),
        (
            B::header(3, 1).op_v3(1).i32(0).i32(1).u8(4).i32(i32::MAX).0,
            "operator state count",
        ),
    ] {
        let e = err(&bytes);
        match e.kind {
            ErrorKind::CountTooLarge { what: w, .. } => assert_eq!(w, what),
            other => panic!("{what}: {other:?}"),
        }
    }
}

#[test]
fn negative_counts_and_lengths() {
    let e = err(&B::header(3, -5).0);
    assert_eq!(
        e.kind,
        ErrorKind::Negative {
            what: "operator count",
            value: -5
        }
    );
    let e = err(&B::default().i32(0x4960672D).i32(3).i64(-1).0);
    assert_eq!(
        e.kind,
        ErrorKind::Negative {
            what: "checkpoint id",
            value: -1
        }
    );
    // inline stream handle with a negative length, as coordinator state
    let b = B::header(3, 1)
        .raw(&[0; 16])
        .i32(1)
        .i32(128)
        .u8(1)
        .utf("h")
        .i32(-3)
        .pad();
    assert_eq!(
        err(&b.0).kind,
        ErrorKind::Negative {
            what: "inline state length",
            value: -3
        }
    );
    // key-group range with negative start
    let e = err(&with_keyed_tag(7).i32(-1).i32(3).pad().0);
    assert!(
        matches!(
            e.kind,
            ErrorKind::BadValue {
                what: "key-group range",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn invalid_modified_utf8() {
    // V5 operator name with a 4-byte sequence (Java never writes one) and a bare continuation byte.
    for bad in [
        &[0xF0, 0x9F, 0x98, 0x80][..],
        &[0x80][..],
        &[0xE2, 0x82][..],
    ] {
        let b = B::header(5, 1)
            .raw(&(bad.len() as u16).to_be_bytes())
            .raw(bad)
            .pad();
        let e = err(&b.0);
        assert!(matches!(e.kind, ErrorKind::BadString { .. }), "{e}");
        assert_eq!(e.context, "operators[0].name");
        assert!(e.offset >= 22, "offset points into the string: {e}");
    }
    // Java's encoding of NUL (C0 80) is valid.
    let b = B::header(5, 1)
        .raw(&[0, 3, b'a', 0xC0, 0x80])
        .utf("")
        .op_v3(0)
        .raw(&[0xAC, 0xED, 0, 5, 0x70]);
    let md = decode(&b.0, DecodeOptions::default()).expect("C0 80 is valid modified UTF-8");
    assert_eq!(md.operators[0].name.as_deref(), Some("a\0"));
}

#[test]
fn bad_distribution_mode() {
    let b = B::header(3, 1)
        .op_v3(1)
        .i32(0)
        .i32(1)
        .u8(4)
        .i32(1)
        .utf("s")
        .u8(3)
        .pad();
    assert!(matches!(
        err(&b.0).kind,
        ErrorKind::BadValue {
            what: "distribution mode",
            value: 3,
            ..
        }
    ));
}

#[test]
fn trailer_problems() {
    let body = B::header(4, 0);
    // Missing trailer: Flink fails to open the object stream.
    assert!(matches!(err(&body.0).kind, ErrorKind::Truncated { .. }));
    // Not a Java serialization stream.
    let e = err(&body.clone().raw(&[1, 2, 3, 4]).0);
    assert!(matches!(e.kind, ErrorKind::BadTrailer(_)), "{e}");
    assert_eq!(e.context, "trailer");
    // TC_NULL: no properties, noted.
    let md = decode(
        &body.clone().raw(&[0xAC, 0xED, 0, 5, 0x70]).0,
        DecodeOptions::default(),
    )
    .expect("null trailer");
    let t = md.tail.trailer.expect("trailer");
    assert!(t.properties.is_none());
    assert!(t.note.expect("note").contains("null"));
}

#[test]
fn bytes_flink_ignores_are_counted_not_kept() {
    let md = decode(&B::header(3, 0).raw(b"junk").0, DecodeOptions::default())
        .expect("Flink ignores them");
    assert_eq!(md.tail.ignored_bytes, 4);
    // After a format-4 trailer: the trailer keeps its own bytes, the rest is counted.
    let null_trailer = [0xAC, 0xED, 0, 5, 0x70];
    let md = decode(
        &B::header(4, 0).raw(&null_trailer).raw(&[0; 1000]).0,
        DecodeOptions::default(),
    )
    .expect("Flink ignores them");
    assert_eq!(md.tail.ignored_bytes, 1000);
    assert_eq!(
        md.tail.trailer.as_ref().expect("trailer").bytes,
        null_trailer
    );
    assert_eq!(
        sp_inspect::metadata::encode::encode(&md),
        B::header(4, 0).raw(&null_trailer).0
    );
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name)
            .join("snapshot/_metadata"),
    )
    .expect("fixture")
}

const TRUNCATION_FIXTURES: [&str; 5] = [
    "v2-flink1.10-heap-savepoint",
    "v3-flink1.14-hashmap-savepoint",
    "v4-flink1.17-rocksdb-native-savepoint",
    "v5-flink2.0-hashmap-savepoint",
    "v6-flink2.3-hashmap-unaligned-checkpoint",
];

#[test]
fn truncation_at_every_offset_is_an_error_inside_the_file() {
    for name in TRUNCATION_FIXTURES {
        let bytes = fixture(name);
        decode(&bytes, DecodeOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        for len in 0..bytes.len() {
            let e = match decode(&bytes[..len], DecodeOptions::default()) {
                Ok(_) => panic!("{name}: a prefix of {len} bytes decoded"),
                Err(e) => e,
            };
            assert!(
                e.offset <= len as u64,
                "{name}[..{len}]: error offset {} past the end",
                e.offset
            );
            assert!(
                matches!(
                    e.kind,
                    ErrorKind::Truncated { .. } | ErrorKind::CountTooLarge { .. }
                ),
                "{name}[..{len}]: {e}"
            );
        }
    }
}

#[test]
fn mutated_fixtures_never_panic() {
    for name in TRUNCATION_FIXTURES {
        let bytes = fixture(name);
        let mut m = bytes.clone();
        for i in 0..bytes.len() {
            for v in [0x00, 0x7F, 0x80, 0xFF, bytes[i] ^ 0x01] {
                m[i] = v;
                // Any outcome but a panic is fine; errors must point inside the file.
                if let Err(e) = decode(&m, DecodeOptions::default()) {
                    assert!(e.offset <= m.len() as u64);
                }
            }
            m[i] = bytes[i];
        }
    }
}
