//! Every fixture's `_metadata`, decoded by sp-inspect, against Flink's own reading of the same bytes
//! (`expected.json`, written by `Checkpoints.loadCheckpointMetadata` through fixtures/gen/FlinkRead.java).

use serde_json::{json, Value};
use sp_inspect::metadata::{decode, DecodeOptions};
use sp_inspect::model::*;
use sp_inspect::report::handles::any_json;
use sp_inspect::stats::StateKind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod common;

fn fixtures() -> Vec<PathBuf> {
    let out = common::fixture_dirs(|p| p.join("expected.json").is_file());
    assert!(
        out.len() >= 10,
        "expected the fixture corpus, found {out:?}"
    );
    out
}

/// A handle as Flink's reader describes it in expected.json.
fn handle_view(h: &Value) -> Value {
    let mut v = json!({"class": h["class"], "state_bytes": h["state_bytes"]});
    if let Some(k) = h.get("key_groups") {
        v["key_groups"] = k.clone();
    }
    if let Some(s) = h.get("shared") {
        v["shared_files"] = json!(s.as_array().map_or(0, Vec::len));
        v["private_files"] = json!(h["private"].as_array().map_or(0, Vec::len));
    }
    if let Some(states) = h.get("states") {
        let mut states: Vec<Value> = states.as_array().cloned().unwrap_or_default();
        states.sort_by_key(|s| s["name"].as_str().unwrap_or_default().to_string());
        v["states"] = Value::Array(states);
    }
    v
}

fn expected_handle_view(h: &Value) -> Value {
    let mut v = json!({"class": h["class"], "state_bytes": h["state_bytes"]});
    for k in ["key_groups", "shared_files", "private_files", "states"] {
        if let Some(x) = h.get(k) {
            v[k] = x.clone();
        }
    }
    v
}

fn slot_name(k: StateKind) -> &'static str {
    match k {
        StateKind::ManagedOperator => "managed_operator_state",
        StateKind::RawOperator => "raw_operator_state",
        StateKind::ManagedKeyed => "managed_keyed_state",
        StateKind::RawKeyed => "raw_keyed_state",
        StateKind::InputChannel => "input_channel_state",
        StateKind::ResultSubpartition => "result_subpartition_state",
    }
}

fn operator_view(op: &OperatorState) -> Value {
    let mut subtasks: BTreeMap<i32, Value> = BTreeMap::new();
    for s in &op.subtasks {
        let mut v = json!({
            "index": s.index(),
            "finished": s.finished(),
            "state_bytes": s.state.as_ref().map_or(0, SubtaskState::state_size),
        });
        for k in StateKind::ALL {
            let handles: Vec<Value> = s
                .state
                .as_ref()
                .map(|st| {
                    st.handles(k)
                        .map(|h| handle_view(&any_json(&h, None)))
                        .collect()
                })
                .unwrap_or_default();
            v[slot_name(k)] = Value::Array(handles);
        }
        subtasks.insert(s.index(), v);
    }
    json!({
        "id": op.id.to_string(),
        "name": op.name,
        "uid": op.uid,
        "parallelism": op.parallelism,
        "max_parallelism": op.max_parallelism,
        "fully_finished": op.fully_finished(),
        "coordinator_state_bytes": op.coordinator_state.as_ref().map(sp_inspect::stats::stream_size),
        "state_bytes": op.state_size(),
        "subtasks": subtasks.into_values().collect::<Vec<_>>(),
    })
}

fn expected_operator_view(op: &Value) -> Value {
    let mut v = op.clone();
    for s in v["subtasks"].as_array_mut().into_iter().flatten() {
        for k in StateKind::ALL {
            let slot = &mut s[slot_name(k)];
            *slot = Value::Array(
                slot.as_array()
                    .into_iter()
                    .flatten()
                    .map(expected_handle_view)
                    .collect(),
            );
        }
    }
    v
}

#[test]
fn every_fixture_decodes_as_flink_reads_it() {
    for dir in fixtures() {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let bytes = std::fs::read(dir.join("snapshot/_metadata")).expect("_metadata");
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("expected.json")).expect("expected.json"),
        )
        .expect("expected.json is JSON");
        let md = decode(&bytes, DecodeOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));

        assert_eq!(
            json!(md.header.version),
            expected["format_version"],
            "{name}: format version"
        );
        assert_eq!(
            json!(md.header.checkpoint_id),
            expected["checkpoint_id"],
            "{name}: checkpoint id"
        );
        let masters: Vec<_> = md
            .header
            .master_states
            .iter()
            .map(|m| m.name.clone())
            .collect();
        assert_eq!(
            json!(masters),
            expected["master_states"],
            "{name}: master states"
        );

        let props = md.tail.trailer.as_ref().and_then(|t| t.properties.as_ref());
        if expected["snapshot_type_class"].is_null() {
            assert!(props.is_none(), "{name}: Flink saw no properties");
        } else {
            let p = props.unwrap_or_else(|| panic!("{name}: no properties decoded"));
            assert_eq!(
                json!(p.type_class),
                expected["snapshot_type_class"],
                "{name}"
            );
            assert_eq!(json!(p.type_name), expected["snapshot_type_name"], "{name}");
            assert_eq!(json!(p.is_savepoint()), expected["is_savepoint"], "{name}");
            assert_eq!(
                json!(p.savepoint_format),
                expected["savepoint_format"],
                "{name}"
            );
        }

        let mut ours: Vec<Value> = md.operators.iter().map(operator_view).collect();
        ours.sort_by_key(|o| o["id"].as_str().unwrap_or_default().to_string());
        let theirs: Vec<Value> = expected["operators"]
            .as_array()
            .expect("operators")
            .iter()
            .map(expected_operator_view)
            .collect();
        assert_eq!(ours.len(), theirs.len(), "{name}: operator count");
        for (a, b) in ours.iter().zip(&theirs) {
            assert_eq!(a, b, "{name}: operator {}", b["id"]);
        }
    }
}

#[test]
fn the_corpus_covers_every_format_flink_released() {
    let mut versions: Vec<i64> = fixtures()
        .iter()
        .map(|d| {
            let v: Value = serde_json::from_str(
                &std::fs::read_to_string(d.join("expected.json")).unwrap_or_default(),
            )
            .unwrap_or_default();
            v["format_version"].as_i64().unwrap_or(-1)
        })
        .collect();
    versions.sort();
    versions.dedup();
    assert_eq!(versions, vec![2, 3, 4, 5, 6]);
}

/// Every (context, tag) pair that appears in a model.
fn tags_in(md: &Metadata, out: &mut std::collections::BTreeSet<(&'static str, u8)>) {
    fn stream(h: &Option<StreamHandle>, out: &mut std::collections::BTreeSet<(&'static str, u8)>) {
        let Some(h) = h else { return };
        out.insert(("stream", h.tag()));
        if let StreamHandle::KeyGroups(k) = h {
            stream(&k.delegate, out);
        }
    }
    fn keyed(h: &Option<KeyedHandle>, out: &mut std::collections::BTreeSet<(&'static str, u8)>) {
        let Some(h) = h else { return };
        out.insert(("keyed", h.tag()));
        match h {
            KeyedHandle::KeyGroups(k) => stream(&k.delegate, out),
            KeyedHandle::Incremental(i) => {
                stream(&i.meta, out);
                for n in i.shared.iter().chain(&i.private) {
                    stream(&n.handle, out);
                }
            }
            KeyedHandle::Changelog(c) => {
                for k in c.materialized.iter().chain(&c.non_materialized) {
                    keyed(k, out);
                }
            }
            KeyedHandle::InMemoryChangelog(_) => {}
            KeyedHandle::ChangelogFile(f) => {
                for (h, _) in &f.handles {
                    stream(h, out);
                }
            }
        }
    }
    for op in &md.operators {
        stream(&op.coordinator_state, out);
        for st in op.subtasks.iter().filter_map(|s| s.state.as_ref()) {
            for o in [
                &st.managed_operator_state.handle,
                &st.raw_operator_state.handle,
            ]
            .into_iter()
            .flatten()
            {
                out.insert(("operator", o.tag()));
                stream(&o.delegate, out);
            }
            keyed(&st.managed_keyed_state, out);
            keyed(&st.raw_keyed_state, out);
            for c in st
                .input_channel_state
                .iter()
                .chain(&st.result_subpartition_state)
            {
                out.insert(("channel", c.tag().unwrap_or(0)));
                match c {
                    ChannelHandle::Single { delegate, .. }
                    | ChannelHandle::Merged { delegate, .. } => stream(delegate, out),
                }
            }
        }
    }
}

#[test]
fn the_corpus_exercises_the_handle_tags_real_flink_writes() {
    let mut seen = std::collections::BTreeSet::new();
    for dir in fixtures() {
        let bytes = std::fs::read(dir.join("snapshot/_metadata")).expect("_metadata");
        tags_in(
            &decode(&bytes, DecodeOptions::default()).expect("decodes"),
            &mut seen,
        );
    }
    // channel 0 = untagged (formats 3-5).
    let want: &[(&str, u8)] = &[
        ("channel", 0),
        ("channel", 3),
        ("channel", 4),
        ("keyed", 3),
        ("keyed", 5),
        ("keyed", 7),
        ("keyed", 11),
        ("keyed", 12),
        ("keyed", 13),
        ("keyed", 14),
        ("operator", 4),
        ("operator", 17),
        ("stream", 1),
        ("stream", 2),
        ("stream", 6),
        ("stream", 15),
        ("stream", 16),
    ];
    for w in want {
        assert!(
            seen.contains(w),
            "no fixture has a {} handle with tag {}; seen {seen:?}",
            w.0,
            w.1
        );
    }
}

#[test]
fn every_fixture_encodes_back_to_its_bytes() {
    for dir in fixtures() {
        let bytes = std::fs::read(dir.join("snapshot/_metadata")).expect("_metadata");
        let md = decode(&bytes, DecodeOptions::default()).expect("decodes");
        let again = sp_inspect::metadata::encode::encode(&md);
        assert!(
            again == bytes,
            "{dir:?}: {} bytes re-encoded as {} bytes",
            bytes.len(),
            again.len()
        );
    }
}

#[test]
fn unaligned_checkpoints_of_flink_1_11_have_channel_handles_without_subtask_index() {
    // Real Flink 1.11.4 output: the 1.12+ layout fails on it, the 1.11 layout reads it (and
    // every_fixture_decodes_as_flink_reads_it checks that result against Flink), Auto falls back.
    use sp_inspect::metadata::{ChannelIndex, Decoder};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/v3-flink1.11-heap-unaligned-checkpoint");
    let bytes = std::fs::read(dir.join("snapshot/_metadata")).expect("_metadata");
    let with = DecodeOptions {
        channel_subtask_index: ChannelIndex::With,
    };
    let e = decode(&bytes, with).expect_err("no subtask index in 1.11 channel handles");
    assert!(e.context.contains("_state["), "{e}");
    let without = DecodeOptions {
        channel_subtask_index: ChannelIndex::Without,
    };
    assert!(decode(&bytes, without).is_ok());
    let mut d = Decoder::new(&bytes, DecodeOptions::default()).expect("header");
    assert!(d.by_ref().all(|op| op.is_ok()));
    assert!(d.used_flink_1_11_channel_layout());
    // And a 1.17 unaligned checkpoint keeps the index.
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/v4-flink1.17-hashmap-unaligned-checkpoint/snapshot/_metadata"),
    )
    .expect("_metadata");
    let mut d = Decoder::new(&bytes, DecodeOptions::default()).expect("header");
    assert!(d.by_ref().all(|op| op.is_ok()));
    assert!(!d.used_flink_1_11_channel_layout());
}
