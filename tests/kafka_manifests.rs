//! The graph manifests of the Kafka fixtures (`fixtures/kafka/connector-*/graph.json`), written by
//! `contrib/java/SpInspectGraph.java` from `fixtures/gen/kafka/KafkaJob.java` with the savepoint run's arguments
//! (`fixtures/gen/kafka/generate.sh`, `SP_GRAPH_ONLY=1`). Checked here: the operator IDs are the savepoint's,
//! the `connector` and `job` objects say what KafkaJob.java configures (values written out below from the job's
//! code, per connector / Flink release), and `diff` predicts that the savepoint restores into its own job.

mod common;

use common::sp;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The fixtures that have a graph.json, sorted.
fn fixtures() -> Vec<PathBuf> {
    let root = common::fixtures_dir().join("kafka");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("fixtures/kafka")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.join("graph.json").is_file())
        .collect();
    v.sort();
    v
}

fn json_of(out: std::process::Output, what: &str) -> Value {
    assert!(
        out.status.success() || !out.stdout.is_empty(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"))
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// (connector release, Flink release) from `connector-<connector>-flink-<flink>`.
fn releases(dir: &Path) -> ((u32, u32), (u32, u32)) {
    let name = dir.file_name().unwrap().to_str().unwrap();
    let rest = name.strip_prefix("connector-").expect(name);
    let (connector, flink) = rest.split_once("-flink-").expect(name);
    let mm = |s: &str| {
        let mut it = s.split('.').map(|x| x.parse::<u32>().expect(name));
        (it.next().unwrap(), it.next().unwrap())
    };
    (mm(connector), mm(flink))
}

/// Flink's operator ID of each uid KafkaJob sets (a hash of the uid alone, so the same on every release).
const IDS: &[(&str, &str)] = &[
    ("orders-source", "45b0254a46cabbc3efeea5d2e170ea5b"),
    ("slow-orders", "877f7eb07d513ab3bd03268fd28cebee"),
    ("events-source", "5267f531634cea3174af2885d1dddf09"),
    ("slow-events", "d85c4dc2dd7ed49d14819808c0e27e9f"),
    ("ledger-bounded", "92e90f78fa975fca2c58ac5049171b54"),
    ("slow-ledger", "80463bb6d7090db9f57fdc45b15fb6a4"),
    ("dynamic-source", "d2d93e747398b3e766a460001e561ae1"),
    ("slow-dynamic", "d771bf9ef5128a06e223dfddfa283c22"),
    ("stall", "a3bdab9575b673cdb7e33d2749900690"),
    ("out-sink", "9044be1a8f9ea077771d10ec248ade36"),
    ("audit-sink", "6c2a1a08c4fb31b802ae7eef281234eb"),
    // Sink V2 (Flink 1.15+) adds a committer whose uid Flink derives from the sink's.
    (
        "Sink Committer: out-sink",
        "d8bb1c18c17e8e8995cb09573e2cad5b",
    ),
    (
        "Sink Committer: audit-sink",
        "906e3b8fbe5945678f05fdf1dcfb0cf5",
    ),
];

/// The uids of the job on this release: the DynamicKafkaSource from connector 3.1 on, the separate
/// committers from Flink 1.15 on (Flink 1.14's Sink V1 runs writer and committer in one operator).
fn expected_uids(connector: (u32, u32), flink: (u32, u32)) -> Vec<&'static str> {
    IDS.iter()
        .map(|(uid, _)| *uid)
        .filter(|uid| connector >= (3, 1) || !uid.contains("dynamic"))
        .filter(|uid| flink >= (1, 15) || !uid.starts_with("Sink Committer"))
        .collect()
}

/// What KafkaJob.java configures on each source and sink (kind `savepoint`), as the manifest records it.
fn expected_connectors(connector: (u32, u32)) -> BTreeMap<&'static str, Value> {
    let bootstrap = "127.0.0.1:19092"; // broker.sh bootstrap
    let since_4_0 = connector >= (4, 0);
    let mut m = BTreeMap::new();
    m.insert(
        "orders-source",
        json!({"type": "kafka_source", "bootstrap_servers": bootstrap, "topics": ["orders"],
               "topic_pattern": null,
               // OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST)
               "starting_offsets": "committed_or_earliest", "bounded": null,
               // The job sets no interval. Connector 4.0+ runs the option's default (5 min); before 4.0 the
               // builder writes -1 into the properties of a source that sets none (discovery off).
               "partition_discovery_interval_ms": if since_4_0 { 300000 } else { -1 },
               "group_id": "sp-orders"}),
    );
    m.insert(
        "events-source",
        json!({"type": "kafka_source", "bootstrap_servers": bootstrap, "topics": null,
               "topic_pattern": "events-.*", "starting_offsets": "earliest", "bounded": null,
               "partition_discovery_interval_ms": 1000, "group_id": "sp-events"}),
    );
    m.insert(
        "ledger-bounded",
        json!({"type": "kafka_source", "bootstrap_servers": bootstrap, "topics": ["ledger"],
               "topic_pattern": null, "starting_offsets": "specific", "bounded": "specific",
               // setBounded: the connector turns discovery off.
               "partition_discovery_interval_ms": -1, "group_id": "sp-ledger"}),
    );
    if connector >= (3, 1) {
        // The helper records a DynamicKafkaSource's class only (docs/graph-manifest.md: kafka_source is
        // the connector's KafkaSource).
        m.insert(
            "dynamic-source",
            json!({"type": "other",
                   "class": "org.apache.flink.connector.kafka.dynamic.source.DynamicKafkaSource"}),
        );
    }
    // setTopic: before connector 3.4 the builder wraps the topic in a lambda the helper cannot read, so
    // it records null (a topic selector); from 3.4 on it is a constant selector, read as the topic.
    let topic = |t: &str| {
        if connector >= (3, 4) {
            json!([t])
        } else {
            Value::Null
        }
    };
    // The naming strategy exists from connector 4.0: out-sink keeps the default, audit-sink sets POOLING.
    let naming = |s: &str| {
        if since_4_0 {
            json!(s)
        } else {
            Value::Null
        }
    };
    m.insert(
        "out-sink",
        json!({"type": "kafka_sink", "bootstrap_servers": bootstrap, "topics": topic("out"),
               "delivery_guarantee": "exactly_once", "transactional_id_prefix": "sp-savepoint-out",
               "transaction_timeout_ms": 900000, "transaction_naming_strategy": naming("incrementing")}),
    );
    m.insert(
        "audit-sink",
        json!({"type": "kafka_sink", "bootstrap_servers": bootstrap, "topics": topic("audit"),
               "delivery_guarantee": if since_4_0 { "exactly_once" } else { "at_least_once" },
               "transactional_id_prefix": "sp-savepoint-audit", "transaction_timeout_ms": 900000,
               "transaction_naming_strategy": naming("pooling")}),
    );
    m
}

/// KafkaJob.java's checkpointing etc.: enableCheckpointing(2000), RETAIN_ON_CANCELLATION, hashmap; the rest
/// Flink's defaults (the restart strategy with checkpointing: exponential-delay from Flink 1.19, fixed-delay
/// before); no max parallelism.
fn expected_job(flink: (u32, u32)) -> Value {
    json!({"checkpoint_interval_ms": 2000, "checkpoint_timeout_ms": 600000, "min_pause_ms": 0,
           "checkpointing_mode": "exactly_once", "externalized_retention": "retain_on_cancellation",
           "unaligned": false, "state_backend": "hashmap",
           "restart_strategy": if flink >= (1, 19) { "exponential-delay" } else { "fixed-delay" },
           "max_parallelism": null})
}

#[test]
fn every_kafka_fixture_has_a_manifest() {
    let all: Vec<_> = std::fs::read_dir(common::fixtures_dir().join("kafka"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(all.len(), 9);
    assert_eq!(fixtures().len(), all.len());
}

#[test]
fn manifest_ids_are_the_savepoints() {
    let ids: BTreeMap<&str, &str> = IDS.iter().copied().collect();
    for dir in fixtures() {
        let (connector, flink) = releases(&dir);
        let graph = read(&dir.join("graph.json"));
        assert_eq!(graph["schema"], "sp-inspect/graph-v1");
        let ops = graph["operators"].as_array().unwrap();
        let mut uids: Vec<&str> = ops.iter().map(|o| o["uid"].as_str().unwrap()).collect();
        let mut want = expected_uids(connector, flink);
        uids.sort();
        want.sort();
        assert_eq!(uids, want, "{}", dir.display());
        for o in ops {
            let uid = o["uid"].as_str().unwrap();
            assert_eq!(o["id"], ids[uid], "{}: {uid}", dir.display());
        }
        let snap = dir.join("savepoint/snapshot");
        let show = json_of(
            sp(&["show", "--format", "json", snap.to_str().unwrap()]),
            "show",
        );
        let mut saved: Vec<&str> = show["operators"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap())
            .collect();
        let mut manifest: Vec<&str> = ops.iter().map(|o| o["id"].as_str().unwrap()).collect();
        saved.sort();
        manifest.sort();
        assert_eq!(manifest, saved, "{}", dir.display());
    }
}

#[test]
fn manifest_connectors_are_the_jobs() {
    for dir in fixtures() {
        let (connector, _) = releases(&dir);
        let graph = read(&dir.join("graph.json"));
        let want = expected_connectors(connector);
        let mut seen = 0;
        for o in graph["operators"].as_array().unwrap() {
            let uid = o["uid"].as_str().unwrap();
            match want.get(uid) {
                Some(w) => {
                    assert_eq!(&o["connector"], w, "{}: {uid}", dir.display());
                    seen += 1;
                }
                None => assert!(
                    o.get("connector").is_none(),
                    "{}: {uid} has a connector",
                    dir.display()
                ),
            }
        }
        assert_eq!(seen, want.len(), "{}", dir.display());
    }
}

#[test]
fn manifest_job_is_the_jobs() {
    for dir in fixtures() {
        let (_, flink) = releases(&dir);
        let graph = read(&dir.join("graph.json"));
        assert_eq!(graph["job"], expected_job(flink), "{}", dir.display());
        assert_eq!(graph["job_name"], "sp-inspect kafka fixture");
    }
}

#[test]
fn savepoint_restores_into_its_own_job() {
    for dir in fixtures() {
        let snap = dir.join("savepoint/snapshot");
        let graph = dir.join("graph.json");
        let diff = json_of(
            sp(&[
                "diff",
                snap.to_str().unwrap(),
                graph.to_str().unwrap(),
                "--format",
                "json",
            ]),
            "diff",
        );
        assert_eq!(diff["verdict"], "restores", "{}", dir.display());
        assert_eq!(diff["failed"], false, "{}", dir.display());
    }
}
