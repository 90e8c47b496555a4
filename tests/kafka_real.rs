//! Real Kafka connector state, against the connector's own reading of it. The fixtures under
//! `fixtures/kafka/connector-<connector>-flink-<flink>/` were written by real Flink jobs with the real
//! `flink-connector-kafka` against a real broker (fixtures/gen/kafka/generate.sh); each snapshot's
//! `expected-state.json` is what the connector release's own serializers read from the same bytes
//! (fixtures/gen/kafka/KafkaStateRead.java): KafkaPartitionSplitSerializer, KafkaSourceEnumStateSerializer,
//! KafkaWriterStateSerializer, and KafkaCommittableSerializer inside Flink's CommittableCollectorSerializer.
//! Every split, enumerator partition, writer state and committable must decode to exactly that.

use serde_json::{json, Value};
use sp_inspect::metadata::{decode, DecodeOptions};
use sp_inspect::state::access::StateAccess;
use sp_inspect::state::connectors::{kafka_offset, Committable, EnumeratorState, SinkState, Split};
use sp_inspect::state::{inspect, OperatorReport};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn kafka_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/kafka")
}

/// Every snapshot directory (savepoint, pending-checkpoint) of every Kafka fixture, sorted.
fn snapshots() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for fixture in std::fs::read_dir(kafka_fixtures()).expect("fixtures/kafka") {
        let fixture = fixture.expect("entry").path();
        if !fixture.is_dir() {
            continue;
        }
        for kind in std::fs::read_dir(&fixture).expect("fixture dir") {
            let kind = kind.expect("entry").path();
            if kind.join("expected-state.json").is_file() {
                out.push(kind);
            }
        }
    }
    out.sort();
    out
}

fn name_of(dir: &Path) -> String {
    let parts: Vec<_> = dir.iter().rev().take(2).collect();
    format!(
        "{}/{}",
        parts[1].to_string_lossy(),
        parts[0].to_string_lossy()
    )
}

/// An offset as the connector wrote it (a long), in the form the crate shows it.
fn offset(v: &Value) -> String {
    kafka_offset(v.as_i64().expect("offset is a long"))
}

/// The connector's split, in the crate's terms (a DynamicKafkaSourceSplit also names its cluster).
fn their_split(s: &Value) -> Value {
    let mut v = json!({
        "topic": s["topic"], "partition": s["partition"],
        "starting_offset": offset(&s["starting_offset"]), "stopping_offset": offset(&s["stopping_offset"]),
    });
    if let Some(c) = s.get("cluster_id") {
        v["cluster_id"] = c.clone();
    }
    v
}

fn our_split(s: &Split) -> Value {
    match s {
        Split::Kafka {
            topic,
            partition,
            starting_offset,
            stopping_offset,
        } => json!({
            "topic": topic, "partition": partition,
            "starting_offset": starting_offset, "stopping_offset": stopping_offset,
        }),
        Split::DynamicKafka {
            cluster_id, split, ..
        } => {
            let mut v = our_split(split);
            v["cluster_id"] = json!(cluster_id);
            v
        }
        other => json!({"not a Kafka split": format!("{other:?}")}),
    }
}

/// `AssignmentStatus` by name (3.1–4.0: ASSIGNED, UNASSIGNED_INITIAL; 5.0: ASSIGNED, UNASSIGNED).
fn status(name: &str) -> &'static str {
    if name == "ASSIGNED" {
        "assigned"
    } else {
        "unassigned"
    }
}

/// What went wrong, collected so that one run reports every discrepancy.
#[derive(Default)]
struct Report(Vec<String>);

impl Report {
    fn eq(&mut self, what: impl FnOnce() -> String, ours: Value, theirs: Value) {
        if ours != theirs {
            self.0.push(format!(
                "{}:\n   ours:   {ours}\n   theirs: {theirs}",
                what()
            ));
        }
    }
}

fn check_coordinator(r: &mut Report, what: &str, ours: &OperatorReport, theirs: &Value) {
    let Some(c) = ours.coordinator.as_ref() else {
        return r.0.push(format!("{what}: no coordinator state read"));
    };
    r.eq(
        || format!("{what}: coordinator serde version"),
        json!(c.serde_version),
        theirs["serde_version"].clone(),
    );
    if theirs["type"] == "dynamic_kafka" {
        let EnumeratorState::DynamicKafka {
            version,
            streams,
            clusters,
        } = &c.enumerator
        else {
            return r.0.push(format!(
                "{what}: enumerator state (version {}, {} bytes) not read as DynamicKafkaSource's: {:?}",
                theirs["version"], theirs["length"], c.enumerator
            ));
        };
        r.eq(
            || format!("{what}: dynamic enumerator state version"),
            json!(version),
            theirs["version"].clone(),
        );
        let mut ours_streams: Vec<Value> = streams
            .iter()
            .map(|(id, clusters)| {
                let mut cl: Vec<Value> = clusters
                    .iter()
                    .map(|(c, topics, servers)| {
                        let mut t = topics.clone();
                        t.sort();
                        json!({"cluster_id": c, "topics": t, "bootstrap_servers": servers})
                    })
                    .collect();
                cl.sort_by_key(|v| v.to_string());
                json!({"stream_id": id, "clusters": cl})
            })
            .collect();
        ours_streams.sort_by_key(|v| v.to_string());
        r.eq(
            || format!("{what}: dynamic enumerator streams"),
            json!(ours_streams),
            theirs["streams"].clone(),
        );
        let mut ours_clusters: Vec<_> = clusters.iter().collect();
        ours_clusters.sort_by_key(|(id, _)| id.clone());
        let theirs_clusters = theirs["clusters"].as_array().expect("clusters");
        r.eq(
            || format!("{what}: dynamic enumerator cluster ids"),
            json!(ours_clusters.iter().map(|(id, _)| id).collect::<Vec<_>>()),
            json!(theirs_clusters
                .iter()
                .map(|c| c["cluster_id"].clone())
                .collect::<Vec<_>>()),
        );
        for ((id, state), t) in ours_clusters.iter().zip(theirs_clusters) {
            check_kafka_enum(r, &format!("{what}: cluster {id}"), state, &t["state"]);
        }
    } else {
        check_kafka_enum(r, what, &c.enumerator, theirs);
    }
}

/// A `KafkaSourceEnumState` against the connector's reading of it.
fn check_kafka_enum(r: &mut Report, what: &str, ours: &EnumeratorState, theirs: &Value) {
    let EnumeratorState::Kafka {
        version,
        partitions,
        splits,
        initial_discovery_finished,
    } = ours
    else {
        return r.0.push(format!(
            "{what}: enumerator state (version {}, {} bytes) not read as Kafka's: {ours:?}",
            theirs["version"], theirs["length"]
        ));
    };
    r.eq(
        || format!("{what}: enumerator state version"),
        json!(version),
        theirs["version"].clone(),
    );
    // Flink's reading is a set: compared as sorted lists.
    let ours_p: BTreeSet<String> = partitions
        .iter()
        .map(|(t, p, s)| json!({"topic": t, "partition": p, "status": s}).to_string())
        .collect();
    let theirs_p: BTreeSet<String> = theirs["partitions"]
        .as_array()
        .expect("partitions")
        .iter()
        .map(|p| {
            json!({"topic": p["topic"], "partition": p["partition"],
                "status": status(p["status"].as_str().expect("status"))})
            .to_string()
        })
        .collect();
    r.eq(
        || format!("{what}: enumerator partitions"),
        json!(ours_p),
        json!(theirs_p),
    );
    // v3 (connector 5.0): whole splits with their offsets and status.
    let ours_s: BTreeSet<String> = splits
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut v = our_split(s);
            v["status"] = json!(partitions.get(i).map(|p| p.2.clone()));
            v.to_string()
        })
        .collect();
    let theirs_s: BTreeSet<String> = theirs["splits"]
        .as_array()
        .expect("splits")
        .iter()
        .map(|s| {
            let mut v = their_split(s);
            v["status"] = json!(status(s["status"].as_str().expect("status")));
            v.to_string()
        })
        .collect();
    r.eq(
        || format!("{what}: enumerator splits"),
        json!(ours_s),
        json!(theirs_s),
    );
    r.eq(
        || format!("{what}: initial discovery finished"),
        json!(initial_discovery_finished),
        theirs["initial_discovery_finished"].clone(),
    );
}

fn writer_json(s: &SinkState) -> Value {
    match s {
        SinkState::KafkaWriter {
            version,
            transactional_id_prefix,
            owned_subtask_id,
            owned_subtasks,
            ownership,
            precommitted,
        } => {
            let mut v =
                json!({"version": version, "transactional_id_prefix": transactional_id_prefix});
            if *version >= 2 {
                v["owned_subtask_id"] = json!(owned_subtask_id);
                v["total_owned_subtasks"] = json!(owned_subtasks);
                v["ownership"] = json!(ownership);
                v["precommitted"] = json!(precommitted
                    .iter()
                    .map(|(id, cp)| json!({"transactional_id": id, "checkpoint_id": cp}))
                    .collect::<Vec<_>>());
            }
            v
        }
        other => json!({"not a Kafka writer state": format!("{other:?}")}),
    }
}

/// The committer's collector; subtask ids are compared where the bytes carry them (Flink 2.x), since a
/// Flink 1.x reading fills in the reading subtask's own index.
fn collector_json(s: &SinkState, theirs: &Value) -> (Value, Value) {
    let SinkState::Committables {
        version,
        checkpoints,
    } = s
    else {
        return (
            json!({"not a committer state": format!("{s:?}")}),
            theirs.clone(),
        );
    };
    let mut theirs = theirs.clone();
    let ours = json!({
        "version": version,
        "checkpoints": checkpoints.iter().enumerate().map(|(i, c)| json!({
            "checkpoint_id": c.checkpoint_id,
            "committables": c.committables.iter().enumerate().map(|(j, p)| {
                if let Some(their) = theirs
                    .get_mut("checkpoints")
                    .and_then(|c| c.get_mut(i))
                    .and_then(|c| c.get_mut("committables"))
                    .and_then(|c| c.get_mut(j))
                    .and_then(Value::as_object_mut)
                {
                    if p.subtask_id.is_none() {
                        their.insert("subtask_id".into(), Value::Null);
                    }
                    their.remove("retries");
                }
                match &p.committable {
                    Committable::Kafka { epoch, producer_id, transactional_id } => json!({
                        "subtask_id": p.subtask_id, "state": p.state, "transactional_id": transactional_id,
                        "producer_id": producer_id, "epoch": epoch,
                    }),
                    other => json!({"not a Kafka committable": format!("{other:?}")}),
                }
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    (ours, theirs)
}

fn check_operator(r: &mut Report, name: &str, ours: &OperatorReport, theirs: &Value) {
    let what = format!(
        "{name} operator {} ({})",
        ours.id,
        theirs["uid"].as_str().unwrap_or("?")
    );
    if !theirs["coordinator"].is_null() {
        check_coordinator(r, &what, ours, &theirs["coordinator"]);
    }
    for t in theirs["subtasks"].as_array().expect("subtasks") {
        let index = t["index"].as_i64().expect("index") as i32;
        let what = format!("{what} subtask {index}");
        let Some(s) = ours.subtasks.iter().find(|s| s.index == index) else {
            r.0.push(format!("{what}: no such subtask read"));
            continue;
        };
        if !s.problems.is_empty() {
            r.0.push(format!("{what}: problems {:?}", s.problems));
        }
        for e in t["operator_states"].as_array().expect("operator_states") {
            let state = e["name"].as_str().expect("name");
            let what = format!("{what} {state}");
            let Some(n) = s.operator_states.iter().find(|n| n.name == state) else {
                r.0.push(format!("{what}: state not found"));
                continue;
            };
            r.eq(
                || format!("{what}: elements"),
                json!(n.elements),
                e["elements"].clone(),
            );
            let decoded = e["decoded"].as_array().expect("decoded");
            match state {
                "SourceReaderState" => r.eq(
                    || format!("{what}: splits"),
                    json!(n.splits.iter().map(our_split).collect::<Vec<_>>()),
                    json!(decoded.iter().map(their_split).collect::<Vec<_>>()),
                ),
                "writer_raw_states" => r.eq(
                    || format!("{what}: writer states"),
                    json!(n.sink.iter().map(writer_json).collect::<Vec<_>>()),
                    json!(decoded),
                ),
                "streaming_committer_raw_states" => {
                    if n.sink.len() != decoded.len() {
                        r.0.push(format!(
                            "{what}: {} collectors read, {} expected",
                            n.sink.len(),
                            decoded.len()
                        ));
                    }
                    for (i, (ours, theirs)) in n.sink.iter().zip(decoded).enumerate() {
                        let (ours, theirs) = collector_json(ours, theirs);
                        r.eq(|| format!("{what}: collector {i}"), ours, theirs);
                    }
                }
                _ => {}
            }
        }
    }
}

#[test]
fn real_kafka_state_reads_as_the_connector_reads_it() {
    let mut report = Report::default();
    let mut operators = 0;
    let snapshots = snapshots();
    assert!(!snapshots.is_empty(), "no Kafka fixtures");
    for dir in &snapshots {
        let name = name_of(dir);
        let snapshot = dir.join("snapshot");
        let bytes = std::fs::read(snapshot.join("_metadata")).expect("_metadata");
        let md = decode(&bytes, DecodeOptions::default()).expect("decodes");
        let access = StateAccess::new(&snapshot, false);
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("expected-state.json")).expect("read"),
        )
        .expect("json");
        for theirs in expected["operators"].as_array().expect("operators") {
            let Some(op) = md
                .operators
                .iter()
                .find(|o| json!(o.id.to_string()) == theirs["id"])
            else {
                report
                    .0
                    .push(format!("{name}: no operator {} in _metadata", theirs["id"]));
                continue;
            };
            check_operator(&mut report, &name, &inspect(op, &access), theirs);
            operators += 1;
        }
    }
    assert!(
        report.0.is_empty(),
        "{} discrepancies between sp-inspect and the Kafka connector's own reading:\n{}",
        report.0.len(),
        report.0.join("\n")
    );
    assert!(
        operators >= 7 * snapshots.len(),
        "only {operators} operators checked"
    );
}

/// The fixtures between them hold every serializer version a released connector writes (as far as the
/// fixtures present reach), and pending transactions.
#[test]
fn real_kafka_fixtures_cover_the_serializer_versions() {
    let mut enum_versions = BTreeSet::new();
    let mut writer_versions = BTreeSet::new();
    let mut split_versions = BTreeSet::new();
    let mut dynamic_enum_versions = BTreeSet::new();
    let mut collector_versions = BTreeSet::new();
    let mut committables = 0;
    for dir in snapshots() {
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("expected-state.json")).expect("read"),
        )
        .expect("json");
        for op in expected["operators"].as_array().expect("operators") {
            if let Some(v) = op["coordinator"]["version"].as_i64() {
                if op["coordinator"]["type"] == "dynamic_kafka" {
                    dynamic_enum_versions.insert(v);
                } else {
                    enum_versions.insert(v);
                }
            }
            for s in op["subtasks"].as_array().expect("subtasks") {
                for st in s["operator_states"].as_array().expect("states") {
                    for d in st["decoded"].as_array().expect("decoded") {
                        match st["name"].as_str() {
                            Some("SourceReaderState") => {
                                split_versions.insert(d["version"].as_i64().expect("version"));
                            }
                            Some("writer_raw_states") => {
                                writer_versions.insert(d["version"].as_i64().expect("version"));
                            }
                            Some("streaming_committer_raw_states") => {
                                collector_versions.insert(d["version"].as_i64().expect("version"));
                                committables += d["checkpoints"]
                                    .as_array()
                                    .into_iter()
                                    .flatten()
                                    .map(|c| c["committables"].as_array().map_or(0, Vec::len))
                                    .sum::<usize>();
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    // KafkaPartitionSplit v0 and DynamicKafkaSourceSplit v1; KafkaSourceEnumState v1 (3.0), v2 (3.1–4.0),
    // v3 (5.0); DynamicKafkaSourceEnumState v1 (3.1–4.0), v2 (5.0); KafkaWriterState v1 (3.x), v2 (4.0+).
    assert_eq!(split_versions, BTreeSet::from([0, 1]));
    assert_eq!(enum_versions, BTreeSet::from([1, 2, 3]));
    assert_eq!(dynamic_enum_versions, BTreeSet::from([1, 2]));
    assert_eq!(writer_versions, BTreeSet::from([1, 2]));
    // CommittableCollector v2 (Flink 1.15+), and Flink 1.14's StreamingCommitterState (v1).
    assert_eq!(collector_versions, BTreeSet::from([1, 2]));
    assert!(committables > 0);
    eprintln!(
        "split versions {split_versions:?} (1 = dynamic), enumerator versions {enum_versions:?}, dynamic enumerator \
         versions {dynamic_enum_versions:?}, writer versions {writer_versions:?}, collector versions \
         {collector_versions:?}, {committables} committables"
    );
}

/// In each retained pending checkpoint, the committables sp-inspect reads are exactly the transactions the
/// broker listed as still open right after the job (`broker.txt`, from `Admin.describeTransactions`):
/// transactional id, producer id and epoch.
#[test]
fn pending_committables_are_the_open_transactions_on_the_broker() {
    let mut checked = 0;
    for dir in snapshots()
        .into_iter()
        .filter(|d| d.ends_with("pending-checkpoint"))
    {
        let name = name_of(&dir);
        let snapshot = dir.join("snapshot");
        let md = decode(
            &std::fs::read(snapshot.join("_metadata")).expect("_metadata"),
            DecodeOptions::default(),
        )
        .expect("decodes");
        let access = StateAccess::new(&snapshot, false);
        let mut ours = BTreeSet::new();
        for op in &md.operators {
            for (_, s) in inspect(op, &access).sink_states() {
                if let SinkState::Committables { checkpoints, .. } = s {
                    for p in checkpoints.iter().flat_map(|c| &c.committables) {
                        if let Committable::Kafka {
                            epoch,
                            producer_id,
                            transactional_id,
                        } = &p.committable
                        {
                            ours.insert((
                                transactional_id.clone(),
                                *producer_id,
                                i64::from(*epoch),
                            ));
                        }
                    }
                }
            }
        }
        let broker = std::fs::read_to_string(dir.join("broker.txt")).expect("broker.txt");
        let open: BTreeSet<(String, i64, i64)> = broker
            .lines()
            .filter(|l| l.starts_with("transaction ") && l.contains(" state=Ongoing "))
            .map(|l| {
                let field = |k: &str| {
                    l.split(' ')
                        .find_map(|f| f.strip_prefix(k))
                        .unwrap_or_else(|| panic!("{name}: no {k} in {l}"))
                        .to_string()
                };
                (
                    l.split(' ').nth(1).expect("id").to_string(),
                    field("producerId=").parse().expect("producer id"),
                    field("epoch=").parse().expect("epoch"),
                )
            })
            .collect();
        assert!(
            !open.is_empty(),
            "{name}: no open transaction on the broker"
        );
        assert_eq!(
            ours, open,
            "{name}: pending committables vs the broker's open transactions"
        );
        checked += 1;
    }
    assert!(checked > 0);
}
