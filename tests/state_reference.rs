//! What sp-inspect reads from the state files of every fixture, against Flink's own reading of the same
//! files (`expected-state.json`, by fixtures/gen/FlinkStateRead.java: Flink's serialization proxies and the
//! sources' own split and enumerator serializers).

use serde_json::{json, Value};
use sp_inspect::metadata::{decode, DecodeOptions};
use sp_inspect::state::access::StateAccess;
use sp_inspect::state::connectors::{Committable, EnumeratorState, SinkState, Split};
use sp_inspect::state::{inspect, OperatorReport};
use std::path::PathBuf;

mod common;

fn fixtures() -> Vec<PathBuf> {
    common::fixture_dirs(|p| p.join("expected-state.json").is_file())
}

fn split_json(s: &Split) -> Value {
    match s {
        Split::NumberSequence { id, from, to } => {
            json!({"type": "number_sequence", "id": id, "from": from, "to": to})
        }
        Split::File {
            id,
            path,
            offset,
            length,
            position,
            ..
        } => json!({
            "type": "file", "id": id, "path": path, "offset": offset, "length": length,
            "position": position.map(|(o, r)| json!([o, r])),
        }),
        other => json!({"type": "other", "debug": format!("{other:?}")}),
    }
}

/// A sink state in the shape FlinkStateRead prints Flink's reading of it.
fn sink_json(s: &SinkState) -> Value {
    match s {
        SinkState::FileWriter {
            bucket_id,
            bucket_path,
            in_progress_file,
            ..
        } => json!({
            "type": "file_writer", "bucket_id": bucket_id, "bucket_path": bucket_path, "in_progress_file": in_progress_file,
        }),
        SinkState::Committables {
            version,
            checkpoints,
        } => json!({
            "type": "committables",
            "version": version,
            "checkpoints": checkpoints.iter().map(|c| json!({
                "checkpoint_id": c.checkpoint_id,
                "committables": c.committables.iter().map(|p| match &p.committable {
                    Committable::File { bucket_id, pending_file, in_progress_file_to_cleanup, .. } => json!({
                        "subtask_id": p.subtask_id, "state": p.state, "bucket_id": bucket_id,
                        "pending_file": pending_file, "in_progress_file_to_cleanup": in_progress_file_to_cleanup,
                    }),
                    other => json!({"other": format!("{other:?}")}),
                }).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        }),
        other => json!({"other": format!("{other:?}")}),
    }
}

fn check_operator(name: &str, ours: &OperatorReport, theirs: &Value) {
    let what = format!("{name} operator {}", ours.id);
    match theirs["coordinator"]["type"].as_str() {
        Some("number_sequence") => {
            let c = ours
                .coordinator
                .as_ref()
                .unwrap_or_else(|| panic!("{what}: no coordinator state read"));
            assert_eq!(
                json!(c.serde_version),
                theirs["coordinator"]["serde_version"],
                "{what}"
            );
            let EnumeratorState::NumberSequence { splits } = &c.enumerator else {
                panic!("{what}: {:?}", c.enumerator)
            };
            let splits: Vec<Value> = splits.iter().map(split_json).collect();
            assert_eq!(
                json!(splits),
                theirs["coordinator"]["splits"],
                "{what}: enumerator splits"
            );
        }
        Some("file") => {
            let c = ours
                .coordinator
                .as_ref()
                .unwrap_or_else(|| panic!("{what}: no coordinator state read"));
            let EnumeratorState::File {
                splits,
                processed_paths,
            } = &c.enumerator
            else {
                panic!("{what}: {:?}", c.enumerator)
            };
            let splits: Vec<Value> = splits.iter().map(split_json).collect();
            assert_eq!(
                json!(splits),
                theirs["coordinator"]["splits"],
                "{what}: enumerator splits"
            );
            let mut ours_paths = processed_paths.clone();
            let mut their_paths: Vec<String> = theirs["coordinator"]["processed_paths"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p.as_str().map(str::to_owned))
                .collect();
            ours_paths.sort();
            their_paths.sort();
            assert_eq!(ours_paths, their_paths, "{what}: processed paths");
        }
        Some(_) => {
            let c = ours.coordinator.as_ref().expect("coordinator");
            let EnumeratorState::Unknown(o) = &c.enumerator else {
                panic!("{what}: {:?}", c.enumerator)
            };
            assert_eq!(
                json!([o.version, o.length]),
                json!([
                    theirs["coordinator"]["version"],
                    theirs["coordinator"]["length"]
                ])
            );
        }
        None => {}
    }
    for t in theirs["subtasks"].as_array().expect("subtasks") {
        let index = t["index"].as_i64().expect("index") as i32;
        let s = ours
            .subtasks
            .iter()
            .find(|s| s.index == index)
            .unwrap_or_else(|| panic!("{what}: no subtask {index}"));
        let what = format!("{what} subtask {index}");
        if !t["problems"].as_array().is_none_or(Vec::is_empty) {
            // Flink could not read a file the fixture does not have (absolute paths of a retained checkpoint).
            assert!(
                !s.problems.is_empty(),
                "{what}: Flink saw {}, we saw no problem",
                t["problems"]
            );
            continue;
        }
        // Flink 1.10 wrote absolute paths into the savepoint; sp-inspect does not follow them unless asked.
        if !s.problems.is_empty()
            && s.problems
                .iter()
                .all(|p| p.contains("outside the snapshot directory"))
        {
            continue;
        }
        assert!(s.problems.is_empty(), "{what}: {:?}", s.problems);
        let keyed: Vec<Value> = s
            .keyed_states
            .iter()
            .map(|k| json!({"name": k.name, "kind": k.kind}))
            .collect();
        assert_eq!(json!(keyed), t["keyed_states"], "{what}: keyed states");
        for e in t["operator_states"].as_array().expect("operator_states") {
            let n = s
                .operator_states
                .iter()
                .find(|n| n.name == e["name"].as_str().unwrap_or_default())
                .unwrap_or_else(|| panic!("{what}: no state {}", e["name"]));
            assert_eq!(json!(n.kind), e["kind"], "{what}: kind of {}", n.name);
            assert_eq!(
                json!(n.elements),
                e["elements"],
                "{what}: elements of {}",
                n.name
            );
            let decoded = e["decoded"].as_array().cloned().unwrap_or_default();
            if n.name == "SourceReaderState" {
                let ours: Vec<Value> = n.splits.iter().map(split_json).collect();
                assert_eq!(json!(ours), json!(decoded), "{what}: splits");
            } else if decoded.iter().any(|d| d["type"] != "framing") {
                let ours: Vec<Value> = n.sink.iter().map(sink_json).collect();
                assert_eq!(
                    json!(ours),
                    json!(decoded),
                    "{what}: sink states of {}",
                    n.name
                );
            } else if !decoded.is_empty() {
                let versions: Vec<Value> = n
                    .sink
                    .iter()
                    .map(|x| match x {
                        SinkState::KafkaWriter { version, .. }
                        | SinkState::FileWriter { version, .. }
                        | SinkState::Committables { version, .. } => json!(version),
                        SinkState::Unknown(o) => json!(o.version),
                    })
                    .collect();
                let theirs: Vec<Value> = decoded.iter().map(|d| d["version"].clone()).collect();
                assert_eq!(
                    versions, theirs,
                    "{what}: sink state versions of {}",
                    n.name
                );
            }
        }
    }
}

#[test]
fn state_files_read_as_flink_reads_them() {
    let mut checked = 0;
    for dir in fixtures() {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let snapshot = dir.join("snapshot");
        let bytes = std::fs::read(snapshot.join("_metadata")).expect("_metadata");
        let md = decode(&bytes, DecodeOptions::default()).expect("decodes");
        let access = StateAccess::new(&snapshot, false);
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("expected-state.json")).expect("read"),
        )
        .expect("json");
        for theirs in expected["operators"].as_array().expect("operators") {
            let op = md
                .operators
                .iter()
                .find(|o| json!(o.id.to_string()) == theirs["id"])
                .unwrap_or_else(|| panic!("{name}: no operator {}", theirs["id"]));
            check_operator(&name, &inspect(op, &access), theirs);
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} operators checked");
}
