//! The exactly-once rules measured on a real broker (fixtures/exactly-once/, fixtures/gen/exactly-once/generate.sh):
//! Flink 2.2.0 with flink-connector-kafka 5.0.0-2.2 and Kafka 4.1.1 (KRaft) on loopback; a job writing N
//! sequence-numbered records into a KafkaSink; the output topic counted per sequence number. `graph.json` is
//! each job's manifest (contrib/java/SpInspectGraph.java), `measured.json` what the broker then held. lint must
//! fire a rule exactly on the jobs whose measurement shows its effect.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/exactly-once")
        .join(name)
}

fn measured(name: &str) -> Value {
    let text = std::fs::read_to_string(case(name).join("measured.json")).expect("measured.json");
    serde_json::from_str(&text).expect("measured.json parses")
}

/// The rules `lint --format json` raises on a manifest.
fn rules(graph: &Path) -> Vec<String> {
    let out = common::sp(&["lint", graph.to_str().unwrap(), "--format", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "lint JSON of {}: {e}\nstderr: {}",
            graph.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().expect("rule").to_string())
        .collect()
}

fn int(v: &Value, key: &str) -> i64 {
    v[key].as_i64().unwrap_or_else(|| panic!("{key} in {v}"))
}

#[test]
fn transaction_timeout_below_the_interval_keeps_records_from_being_committed() {
    let dir = case("timeout-too-short");
    let m = measured("timeout-too-short");
    let n = int(&m, "n");
    let short = &m["runs"]["short"];
    let control = &m["runs"]["control"];

    // The manifests say what the runs were.
    assert!(int(short, "transaction_timeout_ms") < int(&m, "checkpoint_interval_ms"));
    assert!(
        int(control, "transaction_timeout_ms")
            > int(&m, "checkpoint_interval_ms") + int(&m, "checkpoint_timeout_ms")
    );

    // Predicted: the short timeout fires, the control does not.
    let fired = rules(&dir.join(short["graph"].as_str().unwrap()));
    assert!(
        fired
            .iter()
            .any(|r| r == "KAFKA_TRANSACTION_TIMEOUT_TOO_SHORT"),
        "{fired:?}"
    );
    let fired = rules(&dir.join(control["graph"].as_str().unwrap()));
    assert!(
        !fired
            .iter()
            .any(|r| r == "KAFKA_TRANSACTION_TIMEOUT_TOO_SHORT"),
        "{fired:?}"
    );

    // Measured: read_committed misses records of the short run, none of the control.
    assert!(int(short, "committed_distinct") < n, "{short}");
    assert!(int(short, "lost") > 0, "{short}");
    // Measured: no holes and no duplicates in what was committed, a prefix of the sequence; the rest was
    // written in aborted transactions (read_uncommitted sees more than N) and never committed.
    assert_eq!(int(short, "committed_duplicates"), 0, "{short}");
    assert_eq!(
        short["lost_ranges"],
        format!("{}-{}", int(short, "committed_distinct"), n - 1),
        "{short}"
    );
    assert!(
        int(short, "written_records_read_uncommitted") > n,
        "{short}"
    );
    assert_eq!(int(control, "committed_distinct"), n, "{control}");
    assert_eq!(int(control, "lost"), 0, "{control}");
    assert_eq!(int(control, "committed_duplicates"), 0, "{control}");

    // Measured, unlike the rule's text ("the job stays RUNNING"): the fenced producer failed the task, and the
    // job kept restarting from its last checkpoint; the control ran through to FINISHED.
    assert!(int(short, "restarts") > 0, "{short}");
    assert!(short["key_log_lines"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l.as_str().unwrap().contains("ProducerFencedException")));
    assert_eq!(int(control, "restarts"), 0, "{control}");
    assert_eq!(control["end"], "FINISHED", "{control}");
}

#[test]
fn at_least_once_sink_duplicates_on_restart() {
    let dir = case("at-least-once-restart");
    let m = measured("at-least-once-restart");

    let fired = rules(&dir.join("graph.json"));
    assert!(
        fired.iter().any(|r| r == "KAFKA_AT_LEAST_ONCE_SINK"),
        "{fired:?}"
    );

    // Restarted from the retained checkpoint, the job wrote again what it had written since: duplicates, at most
    // one checkpoint interval of records, and nothing lost.
    let dups = int(&m, "duplicates");
    assert!(dups > 0, "{m}");
    assert!(dups <= int(&m, "records_per_checkpoint_interval"), "{m}");
    assert_eq!(int(&m, "lost"), 0, "{m}");
    assert_eq!(int(&m, "distinct"), int(&m, "n"), "{m}");
    assert_eq!(
        int(&m, "output_records_read_uncommitted"),
        int(&m, "n") + dups,
        "{m}"
    );
    assert_eq!(m["restarted_run"]["end"], "FINISHED", "{m}");
}
