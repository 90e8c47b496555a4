//! Real redeploys made with real PyFlink (fixtures/redeploy-flink*/): `diff` must predict what Flink did,
//! operator by operator — the verdict, the state it dropped or skipped, the operator it failed on, and
//! which old source's state each new source resumed from.

use serde_json::Value;
use sp_inspect::config::{Config, FailOn};
use sp_inspect::diff::{RestoreOptions, Status, Verdict};
use sp_inspect::gate::{run_diff, DiffInputs};
use sp_inspect::job::JobInput;
use sp_inspect::metadata::DecodeOptions;
use sp_inspect::rules::Severity;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod common;

fn redeploy_dirs() -> Vec<PathBuf> {
    common::fixture_dirs(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("redeploy-flink"))
    })
}

fn load(p: &Path) -> JobInput {
    JobInput::load(p, DecodeOptions::default(), false).unwrap_or_else(|e| panic!("{e}"))
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).expect("read")).expect("json")
}

fn ids(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_str().map(str::to_owned))
        .collect()
}

#[test]
fn the_redeploy_corpus_covers_flink_2_3_and_1_20() {
    let names: Vec<_> = redeploy_dirs()
        .iter()
        .map(|d| {
            d.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string()
        })
        .collect();
    assert_eq!(names, ["redeploy-flink1.20", "redeploy-flink2.3"]);
}

#[test]
fn the_graph_manifest_has_the_ids_of_the_savepoint_the_same_job_took() {
    for dir in redeploy_dirs() {
        for old in ["v1-nouid", "v1-uid"] {
            let sp = load(&dir.join(old).join("snapshot"));
            let graph = load(&dir.join(old).join("graph.json"));
            let sp_ids: BTreeSet<_> = sp.as_new().iter().map(|o| o.id).collect();
            let graph_ids: BTreeSet<_> = graph.as_new().iter().map(|o| o.id).collect();
            assert_eq!(sp_ids, graph_ids, "{dir:?}/{old}");
        }
    }
}

#[test]
fn diff_predicts_what_flink_did_on_every_redeploy() {
    let mut cases = 0;
    for dir in redeploy_dirs() {
        let mut case_dirs: Vec<_> = std::fs::read_dir(dir.join("cases"))
            .expect("cases")
            .map(|e| e.expect("entry").path())
            .collect();
        case_dirs.sort();
        for case in case_dirs {
            cases += 1;
            let flink = json(&case.join("flink-outcome.json"));
            let old_name = flink["old"].as_str().expect("old");
            let allow = flink["allow_non_restored_state"] == true;
            let old = load(&dir.join(old_name).join("snapshot"));
            let old_graph = load(&dir.join(old_name).join("graph.json"));
            let new = load(&case.join("new-graph.json"));
            let report = run_diff(
                DiffInputs {
                    old: (&old, "old"),
                    new: (&new, "new"),
                    old_graph: Some((&old_graph, "old graph")),
                    new_graph: None,
                },
                RestoreOptions {
                    allow_non_restored_state: allow,
                },
                &Config::default(),
                FailOn::Severity(Severity::Error),
            );
            let d = report.expect("valid arguments").diff.expect("diff");
            let with = |s: Status| -> BTreeSet<String> {
                d.entries
                    .iter()
                    .filter(|e| e.status == s)
                    .filter_map(|e| e.old.as_ref())
                    .map(|o| o.id.to_string())
                    .collect()
            };
            let what = format!("{case:?}");

            // The verdict.
            if flink["restored"] == true {
                let dropping = allow && !with(Status::Orphaned).is_empty();
                let want = if dropping {
                    Verdict::RestoresDroppingState
                } else {
                    Verdict::Restores
                };
                assert_eq!(
                    d.verdict, want,
                    "{what}: Flink restored; reasons {:?}",
                    d.reasons
                );
            } else {
                assert_eq!(
                    d.verdict,
                    Verdict::Fails,
                    "{what}: Flink failed with {}",
                    flink["error"]
                );
            }
            // The state Flink skipped: with allowNonRestoredState every unclaimed state is logged as
            // "Skipping savepoint state"; without, only empty ones, as "Skipping empty savepoint state".
            let unclaimed: BTreeSet<String> = with(Status::Orphaned)
                .union(&with(Status::SkippedEmpty))
                .cloned()
                .collect();
            if allow {
                assert_eq!(
                    unclaimed,
                    ids(&flink["skipped_state"]),
                    "{what}: dropped state"
                );
            } else if flink["restored"] == true {
                assert_eq!(
                    with(Status::SkippedEmpty),
                    ids(&flink["skipped_empty_state"]),
                    "{what}: skipped empty state"
                );
                assert!(with(Status::Orphaned).is_empty(), "{what}");
            }
            // The operator Flink failed on.
            if let Some(op) = flink["unmapped_operator"].as_str() {
                assert!(
                    with(Status::Orphaned).contains(op),
                    "{what}: Flink could not map {op}"
                );
            }
            if let Some(m) = flink["max_parallelism_mismatch"].as_object() {
                let op = m["operator"].as_str().expect("operator");
                assert!(
                    with(Status::MaxParallelismMismatch).contains(op),
                    "{what}: Flink's mismatch on {op}"
                );
            }
            // Which old source's splits each new source resumed from.
            for (key, seen) in flink["first_value_by_key"]
                .as_object()
                .into_iter()
                .flatten()
            {
                let source = format!("Source: topic-{key}");
                let e = d
                    .entries
                    .iter()
                    .find(|e| {
                        e.new.as_ref().and_then(|n| n.name.as_deref()) == Some(source.as_str())
                    })
                    .unwrap_or_else(|| panic!("{what}: no new operator {source}"));
                let predicted = match e.status {
                    Status::New => key.clone(),
                    Status::Restored | Status::Shifted => {
                        let old_name = e
                            .old
                            .as_ref()
                            .and_then(|o| o.name.clone())
                            .expect("old name");
                        old_name.trim_start_matches("Source: topic-").to_string()
                    }
                    other => panic!("{what}: {source} is {other:?}"),
                };
                assert_eq!(
                    seen["range_of_key"].as_str(),
                    Some(predicted.as_str()),
                    "{what}: {source} resumed from"
                );
                assert_eq!(
                    e.status == Status::Shifted,
                    predicted != *key,
                    "{what}: {source}"
                );
            }
        }
    }
    assert!(cases >= 10, "only {cases} redeploy cases");
}

#[test]
fn the_pyflink_graph_manifest_matches_flinks_reading_of_the_savepoint() {
    // graph.json was written by contrib/pyflink/sp_inspect_graph.py without running the job;
    // expected.json is Flink's reading of the savepoint the job then took.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/v6-flink2.3-pyflink-side-output-key-by");
    let graph = json(&dir.join("graph.json"));
    let flink = json(&dir.join("expected.json"));
    let view = |ops: &Value| -> BTreeSet<(String, String, String)> {
        ops.as_array()
            .into_iter()
            .flatten()
            .map(|o| {
                (
                    o["id"].to_string(),
                    o["name"].to_string(),
                    o["uid"].to_string(),
                )
            })
            .collect()
    };
    assert_eq!(view(&graph["operators"]), view(&flink["operators"]));
}

#[test]
fn set_uid_hash_claims_the_state_of_a_renamed_uid_as_flink_does() {
    // The same job with every uid renamed: without set_uid_hash every state is dropped (Flink restored
    // nothing, see uids-renamed); with set_uid_hash(old ID) Flink restored every state.
    for dir in redeploy_dirs() {
        let old = load(&dir.join("v1-uid/snapshot"));
        let new = load(&dir.join("cases/uids-renamed-uid-hash/new-graph.json"));
        let report = run_diff(
            DiffInputs {
                old: (&old, "old"),
                new: (&new, "new"),
                old_graph: None,
                new_graph: None,
            },
            RestoreOptions::default(),
            &Config::default(),
            FailOn::Severity(Severity::Error),
        );
        let d = report.expect("valid arguments").diff.expect("diff");
        assert_eq!(d.verdict, Verdict::Restores, "{dir:?}: {:?}", d.reasons);
        let stateful: Vec<_> = d
            .entries
            .iter()
            .filter(|e| {
                e.old
                    .as_ref()
                    .and_then(|o| o.state.as_ref())
                    .is_some_and(|s| !s.empty)
            })
            .collect();
        assert!(!stateful.is_empty());
        for e in stateful {
            assert_eq!(e.status, Status::Restored, "{dir:?}: {}", e.note);
            assert_eq!(
                e.matched_by,
                Some(sp_inspect::diff::MatchedBy::UidHash),
                "{dir:?}: {}",
                e.note
            );
        }
    }
}

#[test]
fn the_java_graph_manifest_has_the_ids_of_the_savepoint_the_same_job_took() {
    // graph-java.json: contrib/java/SpInspectGraph.java run on the job that then wrote the fixture's
    // savepoint, on Flink 1.14, 1.17, 1.20, 2.0 and 2.3.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(&root).expect("fixtures") {
        let dir = entry.expect("entry").path();
        if !dir.join("graph-java.json").is_file() {
            continue;
        }
        let sp = load(&dir.join("snapshot"));
        let graph = load(&dir.join("graph-java.json"));
        let ids = |ops: Vec<sp_inspect::graph::GraphOperator>| -> BTreeSet<(String, Option<String>, Option<String>)> {
            ops.into_iter().map(|o| (o.id.to_string(), o.name, o.uid)).collect()
        };
        let from_savepoint = ids(sp.as_new());
        let mut from_graph = ids(graph.as_new());
        if let JobInput::Savepoint(s) = &sp {
            if s.version < 5 {
                // Formats before 5 record no names or uids: compare IDs only.
                from_graph = from_graph
                    .into_iter()
                    .map(|(id, _, _)| (id, None, None))
                    .collect();
            }
        }
        assert_eq!(from_savepoint, from_graph, "{dir:?}");
        checked.push(
            json(&dir.join("graph-java.json"))["flink_version"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
    }
    checked.sort();
    checked.dedup();
    assert_eq!(checked, ["1.14.6", "1.17.2", "1.20.5", "2.0.2", "2.3.0"]);
}
