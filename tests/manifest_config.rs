//! The connector and job configuration the graph helpers record (`connector` per source and sink writer,
//! top-level `job`; docs/graph-manifest.md), checked against the code of the jobs that made
//! `fixtures/manifest-config/*/graph.json` (`fixtures/gen/manifest-config/`: a Java DataStream job, a PyFlink
//! DataStream job and a PyFlink SQL job, Flink 2.2.0 with Kafka connector 5.0.0-2.2; regenerated with
//! `fixtures/gen/manifest-config/generate.sh`). Every expected value below is what the job's code sets, or
//! the documented default where it sets nothing; change them together with the jobs.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn manifest(name: &str) -> Value {
    let path = repo()
        .join("fixtures/manifest-config")
        .join(name)
        .join("graph.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Operators by `key` ("uid", or "name" for SQL operators, which have no uid) to their `connector` (None
/// when the field is absent).
fn connectors(doc: &Value, key: &str) -> BTreeMap<String, Option<Value>> {
    let mut out = BTreeMap::new();
    for op in doc["operators"].as_array().expect("operators") {
        let k = op[key]
            .as_str()
            .unwrap_or_else(|| panic!("operator without {key}: {op}"))
            .to_string();
        let previous = out.insert(k.clone(), op.get("connector").cloned());
        assert!(previous.is_none(), "two operators with {key} {k}");
    }
    out
}

/// Asserts the operators are exactly `expected` (by key), each with exactly its expected connector.
fn check(name: &str, key: &str, expected: &[(&str, Option<Value>)]) {
    let doc = manifest(name);
    let found = connectors(&doc, key);
    let want: BTreeMap<String, Option<Value>> = expected
        .iter()
        .map(|(k, c)| (k.to_string(), c.clone()))
        .collect();
    assert_eq!(
        found.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{name}: operators"
    );
    for (k, c) in &want {
        assert_eq!(&found[k], c, "{name}: connector of {k}");
    }
}

fn job(name: &str) -> Value {
    manifest(name)["job"].clone()
}

#[test]
fn java_datastream_job_kafka_connectors() {
    // fixtures/gen/manifest-config/KafkaConfigJob.java
    check(
        "java-kafka",
        "uid",
        &[
            (
                "orders-source",
                Some(json!({
                    "type": "kafka_source",
                    "bootstrap_servers": "broker-1:9092,broker-2:9092",
                    "topics": ["orders", "returns"],
                    "topic_pattern": null,
                    "starting_offsets": "committed_or_earliest",
                    "bounded": null,
                    "partition_discovery_interval_ms": 60000,
                    "group_id": "sp-orders"
                })),
            ),
            (
                "events-source",
                Some(json!({
                    "type": "kafka_source",
                    "bootstrap_servers": "broker-1:9092",
                    "topics": null,
                    "topic_pattern": "events-.*",
                    "starting_offsets": "latest",
                    "bounded": null,
                    // not set: the connector's default (KafkaSourceOptions, 5 minutes)
                    "partition_discovery_interval_ms": 300000,
                    "group_id": null
                })),
            ),
            (
                "ledger-bounded",
                Some(json!({
                    "type": "kafka_source",
                    "bootstrap_servers": "broker-3:9093",
                    "topics": ["ledger"],
                    "topic_pattern": null,
                    "starting_offsets": "timestamp:1700000000000",
                    "bounded": "latest",
                    // bounded: the connector turns partition discovery off
                    "partition_discovery_interval_ms": -1,
                    "group_id": "sp-ledger"
                })),
            ),
            ("upper", None),
            (
                "out-sink",
                Some(json!({
                    "type": "kafka_sink",
                    "bootstrap_servers": "broker-1:9092,broker-2:9092",
                    "topics": ["out"],
                    "delivery_guarantee": "exactly_once",
                    "transactional_id_prefix": "sp-java-out",
                    "transaction_timeout_ms": 900000,
                    "transaction_naming_strategy": "pooling"
                })),
            ),
            ("Sink Committer: out-sink", None),
            (
                "audit-sink",
                Some(json!({
                    "type": "kafka_sink",
                    "bootstrap_servers": "broker-2:9092",
                    // a topic selector decides per record
                    "topics": null,
                    "delivery_guarantee": "at_least_once",
                    "transactional_id_prefix": null,
                    // not set: KafkaSinkBuilder's default (one hour), in the sink's producer config
                    "transaction_timeout_ms": 3600000,
                    "transaction_naming_strategy": "incrementing"
                })),
            ),
            ("Sink Committer: audit-sink", None),
            (
                "print",
                Some(json!({
                    "type": "other",
                    "class": "org.apache.flink.streaming.api.functions.sink.legacy.PrintSinkFunction"
                })),
            ),
        ],
    );
}

#[test]
fn java_datastream_job_configuration() {
    assert_eq!(
        job("java-kafka"),
        json!({
            "checkpoint_interval_ms": 10000,
            "checkpoint_timeout_ms": 300000,
            "min_pause_ms": 2500,
            "checkpointing_mode": "exactly_once",
            "externalized_retention": "retain_on_cancellation",
            "unaligned": true,
            "state_backend": "hashmap",
            // not set: Flink's default with checkpointing on
            "restart_strategy": "exponential-delay",
            "max_parallelism": 256
        })
    );
}

#[test]
fn pyflink_datastream_job_kafka_connectors() {
    // fixtures/gen/manifest-config/pyflink_kafka_job.py
    check(
        "pyflink-kafka",
        "uid",
        &[
            (
                "payments-source",
                Some(json!({
                    "type": "kafka_source",
                    "bootstrap_servers": "kafka-a:9092",
                    "topics": ["payments", "refunds"],
                    "topic_pattern": null,
                    "starting_offsets": "committed",
                    "bounded": null,
                    "partition_discovery_interval_ms": 300000,
                    "group_id": "sp-payments"
                })),
            ),
            (
                "clicks-source",
                Some(json!({
                    "type": "kafka_source",
                    "bootstrap_servers": "kafka-a:9092,kafka-b:9092",
                    "topics": null,
                    "topic_pattern": "clicks-[0-9]+",
                    "starting_offsets": "committed_or_latest",
                    "bounded": null,
                    "partition_discovery_interval_ms": 30000,
                    "group_id": "sp-clicks"
                })),
            ),
            (
                "history-bounded",
                Some(json!({
                    "type": "kafka_source",
                    "bootstrap_servers": "kafka-c:9092",
                    "topics": ["history"],
                    "topic_pattern": null,
                    "starting_offsets": "earliest",
                    "bounded": "timestamp:1710000000000",
                    "partition_discovery_interval_ms": -1,
                    "group_id": null
                })),
            ),
            (
                "enriched-sink",
                Some(json!({
                    "type": "kafka_sink",
                    "bootstrap_servers": "kafka-a:9092",
                    "topics": ["enriched"],
                    "delivery_guarantee": "exactly_once",
                    "transactional_id_prefix": "sp-py-enriched",
                    "transaction_timeout_ms": 600000,
                    "transaction_naming_strategy": "incrementing"
                })),
            ),
            ("Sink Committer: enriched-sink", None),
            (
                "metrics-sink",
                Some(json!({
                    "type": "kafka_sink",
                    "bootstrap_servers": "kafka-b:9092",
                    "topics": ["metrics"],
                    "delivery_guarantee": "none",
                    "transactional_id_prefix": null,
                    "transaction_timeout_ms": 3600000,
                    "transaction_naming_strategy": "incrementing"
                })),
            ),
            ("Sink Committer: metrics-sink", None),
        ],
    );
}

#[test]
fn pyflink_datastream_job_configuration() {
    assert_eq!(
        job("pyflink-kafka"),
        json!({
            "checkpoint_interval_ms": 5000,
            "checkpoint_timeout_ms": 120000,
            "min_pause_ms": 1000,
            "checkpointing_mode": "at_least_once",
            "externalized_retention": "delete_on_cancellation",
            "unaligned": false,
            "state_backend": "rocksdb",
            "restart_strategy": "fixed-delay",
            "max_parallelism": 128
        })
    );
}

#[test]
fn pyflink_sql_job_kafka_tables() {
    // fixtures/gen/manifest-config/pyflink_sql_kafka_job.py: the tables' WITH options, as the SQL connector
    // turns them into its KafkaSource and KafkaSink
    check(
        "pyflink-sql-kafka",
        "name",
        &[
            (
                "Source: orders[1]",
                Some(json!({
                    "type": "kafka_source",
                    "bootstrap_servers": "sql-kafka:9092",
                    // 'topic' = 'sql-orders;sql-orders-replay'
                    "topics": ["sql-orders", "sql-orders-replay"],
                    "topic_pattern": null,
                    // 'scan.startup.mode' = 'group-offsets', 'properties.auto.offset.reset' = 'earliest'
                    "starting_offsets": "committed_or_earliest",
                    // 'scan.bounded.mode' = 'latest-offset'
                    "bounded": "latest",
                    "partition_discovery_interval_ms": -1,
                    "group_id": "sp-sql-orders"
                })),
            ),
            ("Calc[2]", None),
            (
                "totals[3]: Writer",
                Some(json!({
                    "type": "kafka_sink",
                    "bootstrap_servers": "sql-kafka:9092,sql-kafka-2:9092",
                    "topics": ["sql-totals"],
                    // 'sink.delivery-guarantee' = 'exactly-once'
                    "delivery_guarantee": "exactly_once",
                    "transactional_id_prefix": "sp-sql-totals",
                    // 'properties.transaction.timeout.ms' = '720000'
                    "transaction_timeout_ms": 720000,
                    "transaction_naming_strategy": "incrementing"
                })),
            ),
            ("totals[3]: Committer", None),
        ],
    );
    assert_eq!(
        manifest("pyflink-sql-kafka")["job_name"],
        json!("pyflink-sql-kafka-config")
    );
}

#[test]
fn pyflink_sql_job_configuration() {
    assert_eq!(
        job("pyflink-sql-kafka"),
        json!({
            // 'execution.checkpointing.interval' = '30 s'
            "checkpoint_interval_ms": 30000,
            // not set: Flink's defaults
            "checkpoint_timeout_ms": 600000,
            "min_pause_ms": 0,
            "checkpointing_mode": "exactly_once",
            "externalized_retention": "no_externalized",
            "unaligned": false,
            "state_backend": "hashmap",
            // 'restart-strategy.type' = 'none'
            "restart_strategy": "none",
            "max_parallelism": null
        })
    );
}

/// The additions are additive: the crate's manifest parser reads these manifests as before.
#[test]
fn manifests_parse_with_the_new_fields() {
    for name in ["java-kafka", "pyflink-kafka", "pyflink-sql-kafka"] {
        let path = repo()
            .join("fixtures/manifest-config")
            .join(name)
            .join("graph.json");
        let text = std::fs::read_to_string(&path).expect("manifest");
        let ops = sp_inspect::graph::parse_manifest(&text)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            ops.len(),
            manifest(name)["operators"].as_array().unwrap().len(),
            "{name}"
        );
    }
}

/// Every field the helpers write is documented.
#[test]
fn every_field_is_documented() {
    let docs = std::fs::read_to_string(repo().join("docs/graph-manifest.md")).expect("docs");
    for name in ["java-kafka", "pyflink-kafka", "pyflink-sql-kafka"] {
        let doc = manifest(name);
        let mut keys: Vec<String> = doc["job"]
            .as_object()
            .expect("job object")
            .keys()
            .map(|k| format!("job.{k}"))
            .collect();
        for op in doc["operators"].as_array().unwrap() {
            if let Some(c) = op.get("connector").and_then(Value::as_object) {
                keys.extend(c.keys().map(|k| format!("connector.{k}")));
                let kind = c["type"].as_str().expect("connector.type");
                assert!(
                    docs.contains(&format!("`{kind}`")),
                    "{name}: type {kind} undocumented"
                );
            }
        }
        for k in keys {
            assert!(docs.contains(&format!("`{k}`")), "{name}: {k} undocumented");
        }
    }
}
