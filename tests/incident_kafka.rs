//! The Kafka incident on real Flink (fixtures/incident-kafka/, fixtures/gen/incident-kafka/generate.sh): a
//! uid-less job built in a loop over topic keys a,b,c took a savepoint; the job with key x inserted (a,x,b,c)
//! was restored from it with allowNonRestoredState on Flink 2.2.0 with flink-connector-kafka 5.0.0-2.2, and
//! the output topics were read back. `observed.json` is what each new source's sink really received after the
//! restore (the records' origin topics). `diff` must predict exactly that in each source's `reads`, and raise
//! SOURCE_READS_FOREIGN_TOPIC for exactly the sources that read a topic other than their own subscription.

mod common;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/incident-kafka")
}

fn observed() -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(fixture().join("observed.json")).expect("observed.json");
    serde_json::from_str(&text).expect("observed.json parses")
}

fn diff() -> Value {
    let dir = fixture();
    let before = dir.join("before");
    let graph = dir.join("new-graph.json");
    let out = common::sp(&[
        "diff",
        before.to_str().unwrap(),
        graph.to_str().unwrap(),
        "--allow-non-restored-state",
        "--format",
        "json",
    ]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "diff JSON: {e}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The topics each source of the new graph subscribes to, from its `connector` config in the manifest.
fn subscriptions() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(fixture().join("new-graph.json")).expect("new-graph.json");
    let graph: Value = serde_json::from_str(&text).expect("new-graph.json parses");
    graph["operators"]
        .as_array()
        .expect("operators")
        .iter()
        .filter(|o| o["connector"]["type"].as_str() == Some("kafka_source"))
        .map(|o| {
            let topics = o["connector"]["topics"].as_array().expect("topics");
            (
                o["name"].as_str().expect("name").to_string(),
                topics
                    .iter()
                    .map(|t| t.as_str().expect("topic").to_string())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn observed_covers_every_new_source() {
    let obs = observed();
    let names: BTreeSet<&str> = obs.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "Source: source-a",
            "Source: source-b",
            "Source: source-c",
            "Source: source-x"
        ]
        .into_iter()
        .collect()
    );
}

#[test]
fn reads_equal_what_flink_emitted() {
    let d = diff();
    let ops = d["operators"].as_array().expect("operators");
    let mut mismatches = Vec::new();
    for (name, topics) in observed() {
        let entry = ops
            .iter()
            .find(|o| o["new_name"].as_str() == Some(name.as_str()))
            .unwrap_or_else(|| panic!("no operator entry with new_name {name:?}"));
        let mut reads: Vec<String> = entry["reads"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: no reads in {entry}"))
            .iter()
            .map(|t| t.as_str().expect("topic").to_string())
            .collect();
        reads.sort();
        if reads != topics {
            mismatches.push(format!(
                "{name}: predicted reads {reads:?}, Flink emitted {topics:?}"
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn restored_splits_are_the_shifted_sources_state() {
    // Each source after the inserted key restores the splits of the source one position further on.
    let d = diff();
    let ops = d["operators"].as_array().expect("operators");
    let split_topics = |name: &str| -> BTreeSet<String> {
        let e = ops
            .iter()
            .find(|o| o["new_name"].as_str() == Some(name))
            .expect(name);
        e["restores_splits"]
            .as_array()
            .map(|s| {
                s.iter()
                    .map(|x| x["topic"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let one = |t: &str| -> BTreeSet<String> { [t.to_string()].into_iter().collect() };
    assert_eq!(split_topics("Source: source-a"), one("topic-a"));
    assert_eq!(split_topics("Source: source-x"), one("topic-b"));
    assert_eq!(split_topics("Source: source-b"), one("topic-c"));
    assert_eq!(split_topics("Source: source-c"), BTreeSet::new());
}

#[test]
fn foreign_topic_finding_for_exactly_the_mixed_sources() {
    let d = diff();
    let flagged: BTreeSet<String> = d["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"].as_str() == Some("SOURCE_READS_FOREIGN_TOPIC"))
        .map(|f| f["name"].as_str().expect("finding name").to_string())
        .collect();
    let subs = subscriptions();
    let expected: BTreeSet<String> = observed()
        .into_iter()
        .filter(|(name, topics)| topics.iter().any(|t| !subs[name].contains(t)))
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        expected,
        ["Source: source-b", "Source: source-x"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
    assert_eq!(flagged, expected);
}

#[test]
fn flink_log_shows_the_restore() {
    let log =
        std::fs::read_to_string(fixture().join("flink-restore.log")).expect("flink-restore.log");
    for needle in [
        "Skipping savepoint state for operator",
        "Restoring state for",
        "Adding split(s) to reader",
        "Discovered new partitions",
    ] {
        assert!(log.contains(needle), "flink-restore.log lacks {needle:?}");
    }
    // source-x's tasks restored topic-b's splits at the savepoint's offsets.
    assert!(log.lines().any(|l| l.contains("[Source: source-x")
        && l.contains("Adding split(s)")
        && l.contains("topic-b-")));
}
