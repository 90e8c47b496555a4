//! The graph manifests' `stateful` field against the savepoints the same jobs took: every operator that
//! holds state in the snapshot must be marked `"stateful": true` by the graph helper
//! (`contrib/java/SpInspectGraph.java`, `contrib/pyflink/sp_inspect_graph.py`). The manifests are read as
//! plain JSON, not through the crate's manifest parser.

mod common;

use serde_json::Value;
use sp_inspect::metadata::{decode, DecodeOptions};
use sp_inspect::model::{Flagged, OperatorHandle, OperatorState};
use std::path::{Path, PathBuf};

/// Whether an operator-state slot is absent or only the `EmptyFileMergingOperatorStreamStateHandle` that
/// Flink writes for every operator of a file-merging checkpoint (no named state, no bytes).
fn no_operator_state(slot: &Flagged<OperatorHandle>) -> bool {
    slot.handle.as_ref().is_none_or(|h| {
        h.states.is_empty() && h.file_merging.as_ref().is_some_and(|f| f.empty != 0)
    })
}

/// Operators whose only "state" is file merging's empty placeholder handles: they hold nothing.
fn placeholders_only(op: &OperatorState) -> bool {
    op.coordinator_state.is_none()
        && op
            .subtasks
            .iter()
            .filter_map(|s| s.state.as_ref())
            .all(|s| {
                s.managed_keyed_state.is_none()
                    && s.raw_keyed_state.is_none()
                    && s.input_channel_state.is_empty()
                    && s.result_subpartition_state.is_empty()
                    && no_operator_state(&s.managed_operator_state)
                    && no_operator_state(&s.raw_operator_state)
            })
}

/// (manifest, snapshot directory) of every fixture whose manifest describes the job that wrote it.
fn pairs() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for dir in common::fixture_dirs(|p| p.join("snapshot/_metadata").is_file()) {
        for m in ["graph.json", "graph-java.json"] {
            if dir.join(m).is_file() {
                out.push((dir.join(m), dir.join("snapshot")));
            }
        }
    }
    for redeploy in common::fixture_dirs(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("redeploy-flink"))
    }) {
        let mut olds: Vec<_> = std::fs::read_dir(&redeploy)
            .expect("redeploy directory")
            .map(|e| e.expect("dir entry").path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("v1-"))
                    && p.join("graph.json").is_file()
                    && p.join("snapshot/_metadata").is_file()
            })
            .collect();
        olds.sort();
        out.extend(
            olds.into_iter()
                .map(|d| (d.join("graph.json"), d.join("snapshot"))),
        );
    }
    out
}

fn label(manifest: &Path) -> String {
    let root = common::fixtures_dir();
    manifest
        .strip_prefix(&root)
        .unwrap_or(manifest)
        .display()
        .to_string()
}

#[test]
fn every_operator_with_state_is_marked_stateful() {
    let pairs = pairs();
    // 17 Java manifests, the PyFlink fixture and 2 × 2 redeploy savepoints.
    assert!(pairs.len() >= 22, "only {} manifests found", pairs.len());
    let mut failures = Vec::new();
    for (manifest, snapshot) in &pairs {
        let what = label(manifest);
        let doc: Value = serde_json::from_str(
            &std::fs::read_to_string(manifest).unwrap_or_else(|e| panic!("{what}: {e}")),
        )
        .unwrap_or_else(|e| panic!("{what}: not JSON: {e}"));
        assert_eq!(doc["schema"], "sp-inspect/graph-v1", "{what}");
        let ops = doc["operators"]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: no operators array"));
        for op in ops {
            assert!(
                op["stateful"].is_boolean() || op.get("stateful").is_some_and(Value::is_null),
                "{what}: operator {} has no stateful field (true, false or null)",
                op["id"]
            );
        }

        let bytes = std::fs::read(snapshot.join("_metadata")).expect("_metadata");
        let md = decode(&bytes, DecodeOptions::default()).unwrap_or_else(|e| panic!("{what}: {e}"));
        let with_state: Vec<String> = md
            .operators
            .iter()
            .filter(|o| !o.is_empty() && !placeholders_only(o))
            .map(|o| o.id.to_string())
            .collect();
        let placeholders = md
            .operators
            .iter()
            .filter(|o| !o.is_empty() && placeholders_only(o))
            .count();
        assert!(
            !with_state.is_empty(),
            "{what}: the snapshot holds no state"
        );

        // The manifest operator Flink would restore each snapshot operator's state into.
        let claims = |op: &Value, id: &str| op["id"] == id || op["uid_hash"] == id;
        for id in &with_state {
            match ops.iter().find(|op| claims(op, id)) {
                None => failures.push(format!(
                    "{what}: operator {id} holds state but is not in the manifest"
                )),
                Some(op) if op["stateful"] != Value::Bool(true) => failures.push(format!(
                    "{what}: operator {id} ({}) holds state but is marked stateful: {}",
                    op["name"], op["stateful"]
                )),
                Some(_) => {}
            }
        }

        let marked_true = ops.iter().filter(|op| op["stateful"] == true);
        let true_without_state: Vec<&Value> = marked_true
            .filter(|op| !with_state.iter().any(|id| claims(op, id)))
            .collect();
        let unknown = ops.iter().filter(|op| op["stateful"].is_null()).count();
        let marked_false = ops.iter().filter(|op| op["stateful"] == false).count();
        eprintln!(
            "{what}: {} operators, {} with state in the snapshot; stateful but no state: {} {:?}; \
             null: {unknown}; false: {marked_false}; only file-merging placeholders: {placeholders}",
            ops.len(),
            with_state.len(),
            true_without_state.len(),
            true_without_state
                .iter()
                .map(|op| op["name"].as_str().unwrap_or("?"))
                .collect::<Vec<_>>(),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
