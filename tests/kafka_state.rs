//! Kafka connector state built field by field from the layouts in shared/reference/connector-state.md,
//! for what no released connector wrote into the real fixtures (tests/kafka_real.rs checks those, from nine
//! releases, against the connector's own serializers): the enumerator state v0 (Flink 1.12's connector),
//! the latest (-1) offset marker, the collector's serializer generations the fixtures do not hold, and
//! DynamicKafkaSourceSplit v2 / DynamicKafkaSourceEnumState v3 (unreleased). Below them, lint on real
//! Kafka fixtures.

use sp_inspect::state::connectors::{
    coordinator, sink_state, split, Committable, EnumeratorState, SinkState, Split,
};

mod common;
use common::B;

fn kafka_split(topic: &str, partition: i32, start: i64, stop: i64) -> Vec<u8> {
    B::default()
        .utf(topic)
        .i32(partition)
        .i64(start)
        .i64(stop)
        .0
}

#[test]
fn kafka_partition_split_v0_with_offset_markers() {
    for (start, want) in [
        (42, "42"),
        (-2, "earliest"),
        (-1, "latest"),
        (-3, "committed"),
    ] {
        let s = split(0, &kafka_split("orders", 3, start, i64::MIN));
        assert_eq!(
            s,
            Split::Kafka {
                topic: "orders".into(),
                partition: 3,
                starting_offset: want.into(),
                stopping_offset: "none".into()
            }
        );
    }
    // A payload one byte short or long matches no layout: shown, never guessed.
    let mut long = kafka_split("orders", 3, 1, 2);
    long.push(0);
    assert!(matches!(split(0, &long), Split::Unknown(o) if o.version == 0 && o.length == 29));
}

fn coordinator_bytes(enum_version: i32, payload: &[u8]) -> Vec<u8> {
    B::default().i32(1).i32(enum_version).bytes(payload).0
}

fn partitions(e: &EnumeratorState) -> Vec<(String, i32, String)> {
    match e {
        EnumeratorState::Kafka { partitions, .. } => partitions.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn kafka_enumerator_state_v0_to_v3() {
    // v0 (Flink 1.12): split assignments per subtask.
    let v0 = B::default()
        .i32(1)
        .i32(0)
        .i32(0)
        .i32(1)
        .bytes(&kafka_split("a", 0, 5, i64::MIN))
        .0;
    let c = coordinator(&B::default().i32(0).i32(0).bytes(&v0).0).expect("coordinator");
    assert_eq!(c.serde_version, 0);
    assert_eq!(
        partitions(&c.enumerator),
        [("a".into(), 0, "assigned".into())]
    );
    // v1 (1.13–1.17, connector 3.0): assigned partitions.
    let v1 = B::default().i32(2).utf("a").i32(0).utf("b").i32(7).0;
    let c = coordinator(&coordinator_bytes(1, &v1)).expect("coordinator");
    assert_eq!(
        partitions(&c.enumerator),
        [
            ("a".into(), 0, "assigned".into()),
            ("b".into(), 7, "assigned".into())
        ]
    );
    // v2 (connector 3.1–4.0): with status and the initial-discovery flag.
    let v2 = B::default()
        .i32(2)
        .utf("a")
        .i32(0)
        .i32(0)
        .utf("b")
        .i32(1)
        .i32(1)
        .u8(1)
        .0;
    let c = coordinator(&coordinator_bytes(2, &v2)).expect("coordinator");
    assert_eq!(
        partitions(&c.enumerator)[1],
        ("b".into(), 1, "unassigned".into())
    );
    assert!(matches!(
        c.enumerator,
        EnumeratorState::Kafka {
            initial_discovery_finished: Some(true),
            ..
        }
    ));
    // v3 (connector 5.0): splits with their discovered offsets, and status.
    let v3 = B::default()
        .i32(1)
        .i32(0)
        .bytes(&kafka_split("c", 2, -2, i64::MIN))
        .i32(0)
        .u8(0)
        .0;
    let c = coordinator(&coordinator_bytes(3, &v3)).expect("coordinator");
    let EnumeratorState::Kafka {
        version: 3,
        splits,
        initial_discovery_finished: Some(false),
        ..
    } = &c.enumerator
    else {
        panic!("{:?}", c.enumerator)
    };
    assert!(
        matches!(&splits[0], Split::Kafka { starting_offset, .. } if starting_offset == "earliest")
    );
}

#[test]
fn kafka_writer_state_v1_and_v2() {
    let v1 = B::default().utf("orders-sink").0;
    assert!(matches!(sink_state("writer_raw_states", 1, &v1),
        SinkState::KafkaWriter { transactional_id_prefix, owned_subtask_id: None, .. } if transactional_id_prefix == "orders-sink"));
    let v2 = B::default()
        .utf("orders-sink")
        .i32(3)
        .i32(4)
        .i32(1)
        .i32(1)
        .utf("orders-sink-3-17")
        .i64(17)
        .0;
    let SinkState::KafkaWriter {
        owned_subtask_id,
        owned_subtasks,
        ownership,
        precommitted,
        ..
    } = sink_state("writer_raw_states", 2, &v2)
    else {
        panic!()
    };
    assert_eq!((owned_subtask_id, owned_subtasks), (Some(3), Some(4)));
    assert_eq!(ownership.as_deref(), Some("EXPLICIT_BY_WRITER_STATE"));
    assert_eq!(precommitted, [("orders-sink-3-17".to_string(), 17)]);
}

const MAGIC: i32 = 0xB91F_252Cu32 as i32;

fn kafka_committable(tid: &str) -> Vec<u8> {
    B::default().i16(2).i64(1001).utf(tid).0
}

/// One request: VS-stream committable, retries, state.
fn request(tid: &str, state: i32) -> Vec<u8> {
    B::default()
        .i32(1)
        .bytes(&kafka_committable(tid))
        .i32(0)
        .i32(state)
        .0
}

fn collector_v2(checkpoint_ser: i32, subtask_ser: i32) -> Vec<u8> {
    let mut subtask = B::default();
    if subtask_ser >= 1 {
        subtask = subtask.i32(5);
    }
    subtask = subtask.i32(0).i32(1).bytes(&request("sink-5-9", 0)).i32(1);
    if subtask_ser < 2 {
        subtask = subtask.i32(0);
    }
    subtask = subtask.i32(0);
    let mut checkpoint = B::default().i64(9);
    if checkpoint_ser >= 1 {
        checkpoint = checkpoint.i32(8);
    }
    checkpoint = checkpoint.i32(subtask_ser).i32(1).bytes(&subtask.0);
    B::default()
        .i32(MAGIC)
        .i32(checkpoint_ser)
        .i32(1)
        .bytes(&checkpoint.0)
        .0
}

#[test]
fn kafka_committer_state_in_every_collector_layout() {
    for (cp, sub) in [(0, 0), (1, 2)] {
        let SinkState::Committables {
            version: 2,
            checkpoints,
        } = sink_state("streaming_committer_raw_states", 2, &collector_v2(cp, sub))
        else {
            panic!("checkpoint serializer {cp}, subtask serializer {sub}")
        };
        assert_eq!(checkpoints[0].checkpoint_id, Some(9));
        let p = &checkpoints[0].committables[0];
        assert_eq!(p.subtask_id, if sub >= 1 { Some(5) } else { None });
        assert_eq!(p.state, "RECEIVED");
        assert_eq!(
            p.committable,
            Committable::Kafka {
                epoch: 2,
                producer_id: 1001,
                transactional_id: "sink-5-9".into()
            }
        );
    }
    // Legacy (Flink 1.13/1.14): a plain list of committables.
    let v1 = B::default()
        .i32(MAGIC)
        .i32(1)
        .i32(1)
        .bytes(&kafka_committable("old-0-1"))
        .0;
    let SinkState::Committables { checkpoints, .. } =
        sink_state("streaming_committer_raw_states", 1, &v1)
    else {
        panic!()
    };
    assert_eq!(checkpoints[0].checkpoint_id, None);
    assert!(
        matches!(&checkpoints[0].committables[0].committable, Committable::Kafka { transactional_id, .. } if transactional_id == "old-0-1")
    );
}

#[test]
fn lint_reads_real_kafka_state_pending_transactions_and_shared_prefixes() {
    // Real checkpoints and savepoints of connector 5.0.0 (Flink 2.2) and 4.0.1 (Flink 2.0): see
    // fixtures/kafka/. The pending transactions lint reports are exactly those the broker held open.
    let fx = |rel: &str| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/kafka")
            .join(rel)
    };
    let lint = |inputs: &[&std::path::Path]| -> serde_json::Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sp-inspect"))
            .arg("lint")
            .args(inputs)
            .args(["--format", "json", "--fail-on", "never"])
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("json")
    };
    let pending = fx("connector-5.0.0-flink-2.2/pending-checkpoint");
    let v = lint(&[&pending.join("snapshot")]);
    let mut reported: Vec<String> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| {
            f["rule"] == "KAFKA_PENDING_TRANSACTIONS"
                && f["name"].as_str().is_some_and(|n| n.ends_with("Committer"))
        })
        .flat_map(|f| {
            let m = f["message"].as_str().expect("message").to_string();
            m.split_once("on restore: ")
                .map(|(_, l)| {
                    l.split(", ")
                        .map(|t| t.split(' ').next().unwrap_or_default().to_string())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
        .collect();
    let broker = std::fs::read_to_string(pending.join("broker.txt")).expect("broker.txt");
    let mut ongoing: Vec<String> = broker
        .lines()
        .filter(|l| l.starts_with("transaction ") && l.contains("state=Ongoing"))
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_owned))
        .collect();
    reported.sort();
    ongoing.sort();
    assert!(!ongoing.is_empty());
    assert_eq!(reported, ongoing);
    // Two jobs' savepoints given together: their exactly-once sinks share the prefix sp-savepoint-out.
    let a = fx("connector-5.0.0-flink-2.2/savepoint/snapshot");
    let b = fx("connector-4.0.1-flink-2.0/savepoint/snapshot");
    let v = lint(&[&a, &b]);
    let shared: Vec<&str> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED")
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert!(
        shared.iter().any(|m| m.contains("\"sp-savepoint-out\"")),
        "{shared:?}"
    );
    // One savepoint alone shares nothing.
    let v = lint(&[&a]);
    assert!(!v["findings"]
        .as_array()
        .expect("f")
        .iter()
        .any(|f| f["rule"] == "KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED"));
}

#[test]
fn dynamic_kafka_source_split_v1_v2_and_enumerator_v1_to_v3() {
    let inner = kafka_split("clicks", 4, 99, i64::MIN);
    // Split v1: cluster id, the Kafka split serializer's version, then its bytes to the end.
    let v1 = B::default()
        .utf("eu-1")
        .i32(0)
        .0
        .into_iter()
        .chain(inner.clone())
        .collect::<Vec<u8>>();
    let Split::DynamicKafka {
        cluster_id,
        retained_until_ms: None,
        split: s,
    } = split(1, &v1)
    else {
        panic!()
    };
    assert_eq!(
        (cluster_id.as_str(), s.kafka_topic()),
        ("eu-1", Some("clicks"))
    );
    // Split v2 (unreleased main): a retention flag and time after the cluster id.
    let v2 = B::default()
        .utf("eu-1")
        .u8(1)
        .i64(1700)
        .i32(0)
        .0
        .into_iter()
        .chain(inner)
        .collect::<Vec<u8>>();
    assert!(matches!(
        split(2, &v2),
        Split::DynamicKafka {
            retained_until_ms: Some(1700),
            ..
        }
    ));

    // Enumerator: stream metadata, then per cluster a Kafka enumerator state (here v2).
    let kafka_state = B::default().i32(1).utf("clicks").i32(4).i32(0).u8(1).0;
    for version in [1, 2, 3] {
        let mut b = B::default()
            .i32(1)
            .utf("clicks-stream")
            .i32(1)
            .utf("eu-1")
            .i32(1)
            .utf("clicks")
            .utf("broker:9092");
        if version >= 2 {
            b = b.u8(0).u8(1).bytes(&[0xAC, 0xED]); // no starting, a stopping offsets initializer
        }
        b = b.i32(2).i32(1).utf("eu-1").bytes(&kafka_state);
        if version >= 3 {
            b = b.i32(1).utf("old-cluster").i64(5).bytes(&kafka_state);
        }
        let c = coordinator(&coordinator_bytes(version, &b.0)).expect("coordinator");
        let EnumeratorState::DynamicKafka {
            streams, clusters, ..
        } = &c.enumerator
        else {
            panic!("version {version}: {:?}", c.enumerator)
        };
        assert_eq!(
            streams[0].1[0],
            (
                "eu-1".to_string(),
                vec!["clicks".to_string()],
                "broker:9092".to_string()
            )
        );
        assert_eq!(
            partitions(&clusters[0].1),
            [("clicks".to_string(), 4, "assigned".to_string())]
        );
    }
}
