//! Every rule of the registry fires on one input and stays silent on a close one. Real fixtures (Flink's
//! savepoints and redeploys) where one exists; a manifest or state written here where no real file can
//! carry the case. The Kafka rules are checked on state facts as the state readers produce them, until
//! real Kafka fixtures exist (tests/kafka_state.rs checks those readers).

use serde_json::Value;
use sp_inspect::diff::{OldOperator, StateInfo};
use sp_inspect::rules::{check_state, ALL};
use std::path::PathBuf;
use std::process::Command;

mod common;

fn fx(rel: &str) -> String {
    common::fixtures_dir().join(rel).display().to_string()
}

fn redeploy(case: &str) -> (String, String) {
    let outcome: Value = serde_json::from_str(
        &std::fs::read_to_string(fx(&format!(
            "redeploy-flink2.3/cases/{case}/flink-outcome.json"
        )))
        .expect("outcome"),
    )
    .expect("json");
    let old = outcome["old"].as_str().expect("old");
    (
        fx(&format!("redeploy-flink2.3/{old}/snapshot")),
        fx(&format!("redeploy-flink2.3/cases/{case}/new-graph.json")),
    )
}

/// The rules that fired, running the binary with `args` (plus JSON output and no threshold).
fn fired(args: &[String]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_sp-inspect"))
        .args(args)
        .args(["--format", "json", "--fail-on", "never"])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().expect("rule").to_string())
        .collect()
}

fn manifest(name: &str, ops: Value) -> String {
    let dir = std::env::temp_dir().join(format!("sp-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path: PathBuf = dir.join(format!("{name}.json"));
    std::fs::write(
        &path,
        serde_json::json!({"schema": "sp-inspect/graph-v1", "operators": ops}).to_string(),
    )
    .expect("write");
    path.display().to_string()
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// (rule, arguments on which it fires, arguments on which it does not).
fn cases() -> Vec<(&'static str, Vec<String>, Vec<String>)> {
    let (nouid, insert_nouid) = redeploy("insert-key-nouid-allow");
    let (uid, insert_uids) = redeploy("insert-key-uids");
    let (_, renamed) = redeploy("uids-renamed");
    let (_, max_par) = redeploy("max-parallelism-changed");
    let (_, par) = redeploy("parallelism-changed");
    let v4_nouid = fx("redeploy-flink1.20/v1-nouid/snapshot");
    let v4_insert = fx("redeploy-flink1.20/cases/insert-key-nouid-allow/new-graph.json");
    let v4_graph = fx("redeploy-flink1.20/v1-nouid/graph.json");
    let v6 = fx("v6-flink2.3-hashmap-savepoint/snapshot");
    let v6_graph = fx("v6-flink2.3-hashmap-savepoint/graph-java.json");
    let pyflink = fx("v6-flink2.3-pyflink-side-output-key-by/snapshot");
    let stateful_uids = manifest(
        "stateful-uids",
        serde_json::json!([{"uid": "numbers"}, {"uid": "count-per-key"}]),
    );
    let dup = manifest(
        "dup",
        serde_json::json!([{"id": "00000000000000000000000000000001", "uid": "a", "name": "x"},
                           {"id": "00000000000000000000000000000002", "uid": "a", "name": "y"}]),
    );
    let unique = manifest(
        "unique",
        serde_json::json!([{"uid": "a", "name": "x"}, {"uid": "b", "name": "y"}]),
    );
    // An operator whose generated ID is the hash of another's uid.
    let collision = manifest(
        "collision",
        serde_json::json!([{"uid": "a"},
                           {"id": sp_inspect::hash::operator_id("a").to_string(), "uid": "b"}]),
    );
    let sink_nouid = manifest(
        "sink-nouid",
        serde_json::json!([{"uid": "src", "name": "Source: s"},
                           {"id": "00000000000000000000000000000003", "name": "Sink: out: Writer"}]),
    );
    let sink_uid = manifest(
        "sink-uid",
        serde_json::json!([{"uid": "src", "name": "Source: s"},
                           {"uid": "out", "name": "Sink: out: Writer"}]),
    );
    // Helper 7's manifests of real Kafka jobs (fixtures/manifest-config), and small ones made here.
    let java_kafka = fx("manifest-config/java-kafka/graph.json");
    let sql_kafka = fx("manifest-config/pyflink-sql-kafka/graph.json");
    let sink = |delivery: &str, timeout: i64, interval: Option<i64>| {
        serde_json::json!({"schema": "sp-inspect/graph-v1",
            "job": {"checkpoint_interval_ms": interval, "checkpoint_timeout_ms": 60000},
            "operators": [{"uid": "out", "name": "out: Writer", "connector": {"type": "kafka_sink",
                "delivery_guarantee": delivery, "transactional_id_prefix": "p", "transaction_timeout_ms": timeout}}]})
    };
    let write = |name: &str, v: serde_json::Value| {
        let ops = v["operators"].clone();
        let path = manifest(name, ops);
        let mut doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        doc["job"] = v["job"].clone();
        std::fs::write(&path, doc.to_string()).expect("write");
        path
    };
    let short = write("short", sink("exactly_once", 30_000, Some(600_000)));
    let hour = write("hour", sink("exactly_once", 3_600_000, Some(60_000)));
    let no_checkpoints = write("no-checkpoints", sink("exactly_once", 600_000, None));
    let d = |o: &str, n: &str| args(&["diff", o, n]);
    let l = |i: &str| args(&["lint", i]);
    vec![
        (
            "STATE_SHIFTED",
            d(&nouid, &insert_nouid),
            d(&uid, &insert_uids),
        ),
        ("STATE_ORPHANED", d(&uid, &renamed), d(&uid, &insert_uids)),
        ("MAX_PARALLELISM_MISMATCH", d(&uid, &max_par), d(&uid, &par)),
        (
            "MATCH_UNVERIFIED",
            d(&v4_nouid, &v4_insert),
            args(&["diff", &v4_nouid, &v4_insert, "--old-graph", &v4_graph]),
        ),
        ("SOURCE_STARTS_EMPTY", d(&uid, &insert_uids), d(&uid, &par)),
        (
            "STATE_DROPPED_EMPTY",
            d(&v6, &stateful_uids),
            d(&v6, &v6_graph),
        ),
        ("STATEFUL_OPERATOR_WITHOUT_UID", l(&nouid), l(&uid)),
        ("OPERATOR_WITHOUT_UID", l(&v6), l(&unique)),
        ("UID_DUPLICATE", l(&dup), l(&unique)),
        ("UID_HASH_COLLISION", l(&collision), l(&unique)),
        // A uid-less PyFlink job; the other PyFlink job has a uid on every stateful operator.
        ("PYFLINK_HIDDEN_OPERATOR", l(&nouid), l(&pyflink)),
        ("PYFLINK_FUSED_UID_DROPPED", l(&nouid), l(&pyflink)),
        ("SINK_WITHOUT_UID", l(&sink_nouid), l(&sink_uid)),
        (
            "KAFKA_TRANSACTION_TIMEOUT_TOO_SHORT",
            l(&short),
            l(&java_kafka),
        ),
        (
            "KAFKA_TRANSACTION_TIMEOUT_ABOVE_BROKER_MAX",
            l(&hour),
            l(&sql_kafka),
        ),
        (
            "KAFKA_EXACTLY_ONCE_WITHOUT_CHECKPOINTING",
            l(&no_checkpoints),
            l(&java_kafka),
        ),
        ("KAFKA_AT_LEAST_ONCE_SINK", l(&java_kafka), l(&sql_kafka)),
        (
            "RULES_NOT_CHECKED",
            l(&v4_nouid),
            args(&["lint", &v4_nouid, "--graph", &v4_graph]),
        ),
    ]
}

fn state_op(name: &str, info: StateInfo) -> OldOperator {
    OldOperator {
        id: sp_inspect::hash::operator_id(name),
        name: Some(name.to_string()),
        uid: Some(name.to_string()),
        parallelism: Some(1),
        max_parallelism: Some(128),
        state: Some(StateInfo { bytes: 100, ..info }),
        source: true,
    }
}

/// The Kafka rules, on the state facts the readers produce (topics from splits, prefixes from writer
/// states, pending transactions from writers and committers).
fn kafka_cases() -> Vec<(&'static str, Vec<String>, Vec<String>)> {
    let topics = |t: &str| StateInfo {
        topics: vec![t.to_string()],
        ..StateInfo::default()
    };
    let prefix = |p: &str| StateInfo {
        transactional_id_prefixes: vec![p.to_string()],
        ..StateInfo::default()
    };
    let rules = |ops: &[OldOperator]| -> Vec<String> {
        check_state(&[("sp", ops)])
            .into_iter()
            .map(|f| f.rule.id.to_string())
            .collect()
    };
    vec![
        (
            "SOURCE_TOPIC_NOT_IN_NAME",
            rules(&[state_op("Source: orders", topics("payments"))]),
            rules(&[state_op("Source: orders", topics("orders"))]),
        ),
        (
            "KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED",
            rules(&[state_op("a", prefix("p")), state_op("b", prefix("p"))]),
            rules(&[state_op("a", prefix("p")), state_op("b", prefix("q"))]),
        ),
        (
            "SOURCE_READS_FOREIGN_TOPIC",
            foreign_topic("topic-b"),
            foreign_topic("topic-x"),
        ),
        (
            "KAFKA_TRANSACTIONAL_ID_PREFIX_CHANGED",
            prefix_changed("orders-v2"),
            prefix_changed("orders-v1"),
        ),
        (
            "KAFKA_PENDING_TRANSACTIONS",
            rules(&[state_op(
                "sink",
                StateInfo {
                    pending_transactions: vec!["p-0-7 (precommitted at checkpoint 3)".into()],
                    ..StateInfo::default()
                },
            )]),
            rules(&[state_op("sink", StateInfo::default())]),
        ),
    ]
}

/// The restore rules on a new source subscribed to `topic-x` that restores splits of `restored` (the
/// shift of the incident: x takes b's ID).
fn foreign_topic(restored: &str) -> Vec<String> {
    use sp_inspect::graph::{Connector, GraphOperator, KafkaSource};
    let old = state_op(
        "Source: topic-x",
        StateInfo {
            kafka_splits: vec![(restored.to_string(), 0, "1000017".into())],
            ..StateInfo::default()
        },
    );
    let new = GraphOperator {
        id: old.id,
        name: old.name.clone(),
        uid: old.uid.clone(),
        connector: Some(Connector::KafkaSource(KafkaSource {
            topics: Some(vec!["topic-x".into()]),
            ..KafkaSource::default()
        })),
        ..GraphOperator::default()
    };
    let d = sp_inspect::diff::diff(&[old], &[new], Default::default());
    sp_inspect::rules::check_diff(&d, "new")
        .into_iter()
        .map(|f| f.rule.id.to_string())
        .collect()
}

/// The restore rules on a writer whose state has prefix `orders-v1`, restored by a sink configured with `now`.
fn prefix_changed(now: &str) -> Vec<String> {
    use sp_inspect::graph::{Connector, GraphOperator, KafkaSink};
    let old = state_op(
        "out: Writer",
        StateInfo {
            transactional_id_prefixes: vec!["orders-v1".into()],
            ..StateInfo::default()
        },
    );
    let new = GraphOperator {
        id: old.id,
        name: old.name.clone(),
        uid: old.uid.clone(),
        connector: Some(Connector::KafkaSink(KafkaSink {
            delivery_guarantee: Some("exactly_once".into()),
            transactional_id_prefix: Some(now.into()),
            ..KafkaSink::default()
        })),
        ..GraphOperator::default()
    };
    let d = sp_inspect::diff::diff(&[old], &[new], Default::default());
    sp_inspect::rules::check_diff(&d, "new")
        .into_iter()
        .map(|f| f.rule.id.to_string())
        .collect()
}

#[test]
fn every_rule_fires_on_one_input_and_not_on_its_neighbour() {
    let mut covered = Vec::new();
    for (rule, fires, silent) in cases() {
        let on = fired(&fires);
        assert!(
            on.iter().any(|r| r == rule),
            "{rule} did not fire on {fires:?}: {on:?}"
        );
        let off = fired(&silent);
        assert!(
            !off.iter().any(|r| r == rule),
            "{rule} fired on {silent:?}: {off:?}"
        );
        covered.push(rule);
    }
    for (rule, on, off) in kafka_cases() {
        assert!(on.iter().any(|r| r == rule), "{rule}: {on:?}");
        assert!(!off.iter().any(|r| r == rule), "{rule}: {off:?}");
        covered.push(rule);
    }
    for r in ALL {
        assert!(covered.contains(&r.id), "no case for {}", r.id);
    }
}
