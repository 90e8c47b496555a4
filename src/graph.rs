//! The operators of a job as Flink will match state against them: from a graph manifest
//! (`sp-inspect/graph-v1`), a plain uid list, or the operators recorded in a savepoint.
//! See `docs/graph-manifest.md` for the manifest schema.

use crate::hash::operator_id;
use crate::model::OperatorId;
use serde_json::Value;

/// Schema identifier of graph manifests.
pub const MANIFEST_SCHEMA: &str = "sp-inspect/graph-v1";

/// One operator of a job graph.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GraphOperator {
    /// The ID Flink matches state against (the generated hash, or the hash of the uid).
    pub id: OperatorId,
    /// Set with `setUidHash`: Flink matches state under this ID too.
    pub uid_hash: Option<OperatorId>,
    /// The uid, when set.
    pub uid: Option<String>,
    /// The operator name, when known.
    pub name: Option<String>,
    /// ID of the job vertex (chain) it runs in.
    pub vertex: Option<String>,
    /// Parallelism, when known.
    pub parallelism: Option<i32>,
    /// Explicitly configured max parallelism; `None` when not configured (Flink adopts the savepoint's).
    pub max_parallelism: Option<i32>,
    /// IDs of the operators feeding this one.
    pub inputs: Vec<OperatorId>,
    /// Whether the operator is a source (from the manifest, or a name starting with `Source: `).
    pub source: bool,
    /// Whether the operator holds state in a checkpoint, as the manifest says: `None` when unknown (not
    /// recorded, or an operator the graph helper cannot classify).
    pub stateful: Option<bool>,
    /// Where the job's code creates the operator, when the graph helper recorded it.
    pub defined_at: Option<Location>,
    /// What the source or sink is configured to read or write, when the graph helper recorded it.
    pub connector: Option<Connector>,
}

/// A source's or sink's configuration, as the graph helpers record it (docs/graph-manifest.md).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Connector {
    /// A `KafkaSource`.
    KafkaSource(KafkaSource),
    /// A `KafkaSink`'s writer.
    KafkaSink(KafkaSink),
    /// Another source or sink.
    Other {
        /// Its Java class.
        class: Option<String>,
    },
    /// A type this release does not know.
    #[serde(other)]
    Unknown,
}

/// A `KafkaSource`'s configuration.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
#[serde(default)]
pub struct KafkaSource {
    /// `bootstrap.servers`.
    pub bootstrap_servers: Option<String>,
    /// The topics subscribed to, when a list.
    pub topics: Option<Vec<String>>,
    /// The topic pattern subscribed to, when a pattern.
    pub topic_pattern: Option<String>,
    /// Where it starts without restored splits (`earliest`, `committed`, …).
    pub starting_offsets: Option<String>,
    /// Where it stops, when bounded.
    pub bounded: Option<String>,
    /// `partition.discovery.interval.ms` (-1: off).
    pub partition_discovery_interval_ms: Option<i64>,
    /// `group.id`.
    pub group_id: Option<String>,
}

/// A `KafkaSink`'s configuration.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
#[serde(default)]
pub struct KafkaSink {
    /// `bootstrap.servers`.
    pub bootstrap_servers: Option<String>,
    /// The topics written, when fixed (none when a topic selector decides).
    pub topics: Option<Vec<String>>,
    /// `exactly_once`, `at_least_once` or `none`.
    pub delivery_guarantee: Option<String>,
    /// `setTransactionalIdPrefix`.
    pub transactional_id_prefix: Option<String>,
    /// The producer's `transaction.timeout.ms`.
    pub transaction_timeout_ms: Option<i64>,
    /// The transaction naming strategy, where the connector has one.
    pub transaction_naming_strategy: Option<String>,
}

/// The job's checkpointing and recovery configuration, as the graph helpers record it.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
#[serde(default)]
pub struct JobConfig {
    /// Checkpoint interval; none when checkpointing is off.
    pub checkpoint_interval_ms: Option<i64>,
    /// Checkpoint timeout.
    pub checkpoint_timeout_ms: Option<i64>,
    /// Minimum pause between checkpoints.
    pub min_pause_ms: Option<i64>,
    /// `exactly_once` or `at_least_once`.
    pub checkpointing_mode: Option<String>,
    /// Retention of externalized checkpoints.
    pub externalized_retention: Option<String>,
    /// Unaligned checkpoints.
    pub unaligned: Option<bool>,
    /// The state backend.
    pub state_backend: Option<String>,
    /// The restart strategy.
    pub restart_strategy: Option<String>,
    /// `pipeline.max-parallelism`.
    pub max_parallelism: Option<i64>,
}

/// The job configuration of a manifest (`job`), when recorded.
pub fn job_from_json(doc: &Value) -> Result<Option<JobConfig>, ManifestError> {
    match doc.get("job") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v.clone())
            .map(Some)
            .map_err(|e| err("job", format!("expected the job configuration: {e}"))),
    }
}

/// A place in a job's source code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file, relative to where the graph helper ran (a repository root) or absolute.
    pub file: String,
    /// The line, from 1.
    pub line: u32,
}

impl GraphOperator {
    /// Whether the operator reads data from outside (state-wise: it starts from its splits/offsets).
    pub fn is_source(&self) -> bool {
        self.source
            || self
                .name
                .as_deref()
                .is_some_and(|n| n.starts_with("Source: "))
    }
}

/// A manifest that is not valid.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", if at.is_empty() { message.clone() } else { format!("at {at}: {message}") })]
pub struct ManifestError {
    /// JSON path of the bad value, e.g. `operators[3].id`.
    pub at: String,
    /// What was expected.
    pub message: String,
}

fn err(at: impl Into<String>, message: impl Into<String>) -> ManifestError {
    ManifestError {
        at: at.into(),
        message: message.into(),
    }
}

fn hex_id(v: &Value, at: &str) -> Result<OperatorId, ManifestError> {
    let s = v
        .as_str()
        .ok_or_else(|| err(at, "expected a string of 32 hex digits"))?;
    if s.len() != 32 {
        return Err(err(
            at,
            format!(
                "expected 32 hex digits, found {} characters: {s:?}",
                s.len()
            ),
        ));
    }
    OperatorId::from_hex(s).ok_or_else(|| err(at, format!("expected 32 hex digits, found {s:?}")))
}

fn opt_str(
    o: &serde_json::Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Option<String>, ManifestError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(err(format!("{at}.{key}"), "expected a string or null")),
    }
}

fn opt_i32(
    o: &serde_json::Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Option<i32>, ManifestError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .filter(|n| *n > 0)
            .map(Some)
            .ok_or_else(|| {
                err(
                    format!("{at}.{key}"),
                    "expected a positive 32-bit integer or null",
                )
            }),
    }
}

fn opt_bool(
    o: &serde_json::Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Option<bool>, ManifestError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(err(format!("{at}.{key}"), "expected true, false or null")),
    }
}

fn location(
    o: &serde_json::Map<String, Value>,
    at: &str,
) -> Result<Option<Location>, ManifestError> {
    let at = format!("{at}.defined_at");
    let l = match o.get("defined_at") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(l)) => l,
        Some(_) => return Err(err(at, "expected {\"file\": ..., \"line\": ...} or null")),
    };
    let file = match l.get("file") {
        Some(Value::String(f)) if !f.is_empty() => f.clone(),
        _ => return Err(err(format!("{at}.file"), "expected a file path")),
    };
    let line = l
        .get("line")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| err(format!("{at}.line"), "expected a line number from 1"))?;
    Ok(Some(Location { file, line }))
}

/// Parses a graph manifest. `text` must be JSON with `"schema": "sp-inspect/graph-v1"`.
pub fn parse_manifest(text: &str) -> Result<Vec<GraphOperator>, ManifestError> {
    let doc: Value =
        serde_json::from_str(text).map_err(|e| err("", format!("not valid JSON: {e}")))?;
    manifest_from_json(&doc)
}

/// Reads a graph manifest from its JSON document.
pub fn manifest_from_json(doc: &Value) -> Result<Vec<GraphOperator>, ManifestError> {
    let root = doc
        .as_object()
        .ok_or_else(|| err("", "expected a JSON object"))?;
    match root.get("schema").and_then(Value::as_str) {
        Some(MANIFEST_SCHEMA) => {}
        Some(other) => {
            return Err(err(
                "schema",
                format!("expected {MANIFEST_SCHEMA:?}, found {other:?}"),
            ))
        }
        None => {
            return Err(err(
                "schema",
                format!("missing; expected {MANIFEST_SCHEMA:?}"),
            ))
        }
    }
    let ops = root
        .get("operators")
        .and_then(Value::as_array)
        .ok_or_else(|| err("operators", "expected an array of operators"))?;
    if ops.is_empty() {
        return Err(err(
            "operators",
            "is empty: a graph manifest lists the job's operators",
        ));
    }
    let mut out = Vec::with_capacity(ops.len());
    for (i, v) in ops.iter().enumerate() {
        let at = format!("operators[{i}]");
        let o = v
            .as_object()
            .ok_or_else(|| err(&at, "expected an object"))?;
        let uid = opt_str(o, "uid", &at)?;
        let id = match (o.get("id"), &uid) {
            (Some(v), _) if !v.is_null() => hex_id(v, &format!("{at}.id"))?,
            (_, Some(u)) => operator_id(u),
            _ => return Err(err(&at, "needs an \"id\" (32 hex digits) or a \"uid\"")),
        };
        let uid_hash = match o.get("uid_hash") {
            None | Some(Value::Null) => None,
            Some(v) => Some(hex_id(v, &format!("{at}.uid_hash"))?),
        };
        let inputs = match o.get("inputs") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(j, v)| hex_id(v, &format!("{at}.inputs[{j}]")))
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(err(
                    format!("{at}.inputs"),
                    "expected an array of operator IDs",
                ))
            }
        };
        let source = opt_bool(o, "source", &at)?.unwrap_or(false);
        out.push(GraphOperator {
            id,
            uid_hash,
            uid,
            name: opt_str(o, "name", &at)?,
            vertex: opt_str(o, "vertex", &at)?,
            parallelism: opt_i32(o, "parallelism", &at)?,
            max_parallelism: opt_i32(o, "max_parallelism", &at)?,
            inputs,
            source,
            stateful: opt_bool(o, "stateful", &at)?,
            defined_at: location(o, &at)?,
            connector: match o.get("connector") {
                None | Some(Value::Null) => None,
                Some(v) => Some(serde_json::from_value(v.clone()).map_err(|e| {
                    err(
                        format!("{at}.connector"),
                        format!("expected a connector configuration: {e}"),
                    )
                })?),
            },
        });
    }
    Ok(out)
}

/// Operators from the uids of a uid list (see `sniff::UID_LIST_MARKER`). Each gets the ID of its uid.
pub fn from_uid_list(uids: &[String]) -> Vec<GraphOperator> {
    uids.iter()
        .map(|u| GraphOperator {
            id: operator_id(u),
            uid: Some(u.clone()),
            ..GraphOperator::default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operator_with_only_a_uid_gets_the_uid_hash_as_id() {
        let m = r#"{"schema": "sp-inspect/graph-v1", "operators": [
            {"uid": "view-success", "name": "Source: views", "max_parallelism": null},
            {"id": "CBC357CCB763DF2852FEE8C4FC7D55F2", "parallelism": 2, "max_parallelism": 256,
             "uid_hash": "00000000000000000000000000000001", "inputs": ["4e43b80edf788b2331a77ae743857d12"]}]}"#;
        let ops = parse_manifest(m).expect("valid");
        assert_eq!(ops[0].id.to_string(), "4e43b80edf788b2331a77ae743857d12");
        assert!(ops[0].is_source());
        assert_eq!(ops[0].max_parallelism, None);
        assert_eq!(ops[1].id.to_string(), "cbc357ccb763df2852fee8c4fc7d55f2");
        assert_eq!(ops[1].max_parallelism, Some(256));
        assert_eq!(ops[1].inputs, vec![ops[0].id]);
    }

    #[test]
    fn errors_name_the_json_path() {
        let e =
            parse_manifest(r#"{"schema": "sp-inspect/graph-v1", "operators": [{"id": "xyz"}]}"#)
                .unwrap_err();
        assert_eq!(e.at, "operators[0].id");
        let e = parse_manifest(r#"{"schema": "other", "operators": []}"#).unwrap_err();
        assert_eq!(e.at, "schema");
        let e =
            parse_manifest(r#"{"schema": "sp-inspect/graph-v1", "operators": []}"#).unwrap_err();
        assert_eq!(e.at, "operators");
        let e = parse_manifest(
            r#"{"schema": "sp-inspect/graph-v1", "operators": [{"uid": "a", "stateful": 1}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.at, "operators[0].stateful");
        let e = parse_manifest(
            r#"{"schema": "sp-inspect/graph-v1", "operators": [{"uid": "a", "defined_at": {"file": "j.py", "line": 0}}]}"#,
        )
        .unwrap_err();
        assert_eq!(e.at, "operators[0].defined_at.line");
        let ops = parse_manifest(
            r#"{"schema": "sp-inspect/graph-v1", "operators": [{"uid": "a", "defined_at": {"file": "j.py", "line": 7}}]}"#,
        )
        .expect("valid");
        assert_eq!(
            ops[0].defined_at,
            Some(Location {
                file: "j.py".into(),
                line: 7
            })
        );
        let e =
            parse_manifest(r#"{"schema": "sp-inspect/graph-v1", "operators": [{"name": "x"}]}"#)
                .unwrap_err();
        assert!(e.message.contains("\"id\""));
    }
}
