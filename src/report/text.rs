//! The words for fixes and for findings without one, shared by every renderer.

use crate::fix::{Fix, FixKind};
use crate::rules::Rule;

/// Languages of the snippets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// Java DataStream API.
    Java,
    /// Scala DataStream API.
    Scala,
    /// PyFlink.
    Python,
}

impl Lang {
    /// All, in the order reports show them.
    pub const ALL: [Lang; 3] = [Lang::Java, Lang::Scala, Lang::Python];

    /// Stable name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Java => "java",
            Lang::Scala => "scala",
            Lang::Python => "python",
        }
    }
}

fn who(f: &Fix) -> String {
    match (&f.new_name, f.new_id) {
        (Some(n), _) => n.clone(),
        (None, Some(id)) => id.to_string(),
        (None, None) => "the job".into(),
    }
}

/// The fix in one sentence.
pub fn fix_sentence(f: &Fix) -> String {
    let old = f
        .old_name
        .clone()
        .or(f.old_id.map(|i| i.to_string()))
        .unwrap_or_default();
    let sure = match f.pairing {
        Some(crate::fix::Pairing::Name) => " (paired by name)",
        _ => "",
    };
    match f.kind {
        FixKind::SetUidHash if f.old_name == f.new_name => {
            format!("{}: keep its state, under a uid of its own{sure}", who(f))
        }
        FixKind::SetUidHash => format!("{}: claim the state of {old}{sure}", who(f)),
        FixKind::SetUid if old.is_empty() => {
            format!("{}: it holds state, give it an ID of its own", who(f))
        }
        FixKind::SetUid => format!(
            "{}: an ID of its own, so that it stops taking the state of {old}",
            who(f)
        ),
        FixKind::KeepUid => format!("{}: take its old uid back, to claim its state{sure}", who(f)),
        FixKind::UnsetMaxParallelism => format!(
            "{} operators: remove the explicit max parallelism {} (setMaxParallelism, pipeline.max-parallelism) or set the savepoint's {}",
            f.operators.len(),
            f.configured_max_parallelism.unwrap_or_default(),
            f.max_parallelism.unwrap_or_default()
        ),
    }
}

/// The code change, in `lang`.
pub fn snippet(f: &Fix, lang: Lang) -> String {
    let uid = f.uid.as_deref().unwrap_or_default();
    let hash = f.uid_hash.map(|h| h.to_string()).unwrap_or_default();
    match (f.kind, lang) {
        (FixKind::SetUidHash, Lang::Python) => format!(".uid(\"{uid}\").set_uid_hash(\"{hash}\")"),
        (FixKind::SetUidHash, _) => format!(".uid(\"{uid}\").setUidHash(\"{hash}\")"),
        (FixKind::SetUid | FixKind::KeepUid, _) => format!(".uid(\"{uid}\")"),
        (FixKind::UnsetMaxParallelism, lang) => {
            let now = f.configured_max_parallelism.unwrap_or_default();
            let was = f.max_parallelism.unwrap_or_default();
            match lang {
                Lang::Python => format!(
                    "remove .set_max_parallelism({now}) and env.set_max_parallelism({now}), or set {was}"
                ),
                _ => format!(
                    "remove .setMaxParallelism({now}) and env.setMaxParallelism({now}), or set {was}"
                ),
            }
        }
    }
}

/// What to do about a finding of `rule` that has no fix of its own.
pub fn help(rule: &Rule) -> &'static str {
    use crate::rules::*;
    match rule.id {
        id if id == STATE_SHIFTED.id || id == STATE_ORPHANED.id => {
            "no new operator is named like the old one: give the operator meant to restore it setUidHash with the old ID, or, if it was removed on purpose, restore with allowNonRestoredState (its state is lost)"
        }
        id if id == MAX_PARALLELISM_MISMATCH.id => {
            "lower the operator's parallelism to at most the state's max parallelism"
        }
        id if id == MATCH_UNVERIFIED.id => {
            "pass the manifest of the job that wrote the savepoint with --old-graph, or set uids"
        }
        id if id == STATEFUL_OPERATOR_WITHOUT_UID.id || id == SINK_WITHOUT_UID.id => {
            "set .uid(...) on it; to keep the state it has now, also setUidHash with its current ID, once"
        }
        id if id == UID_DUPLICATE.id || id == UID_HASH_COLLISION.id => {
            "give each operator a uid of its own"
        }
        id if id == KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED.id => {
            "give every KafkaSink its own setTransactionalIdPrefix"
        }
        id if id == KAFKA_TRANSACTION_TIMEOUT_TOO_SHORT.id => {
            "set transaction.timeout.ms above the checkpoint interval plus the checkpoint timeout"
        }
        id if id == KAFKA_TRANSACTION_TIMEOUT_ABOVE_BROKER_MAX.id => {
            "set transaction.timeout.ms within the brokers' transaction.max.timeout.ms (15 minutes by default)"
        }
        id if id == KAFKA_EXACTLY_ONCE_WITHOUT_CHECKPOINTING.id => {
            "enable checkpointing, or use at-least-once delivery"
        }
        id if id == SOURCE_STARTS_EMPTY.id => {
            "expected for a source added on purpose; if it existed before under another ID, give it setUidHash with that ID"
        }
        id if id == RULES_NOT_CHECKED.id => "pass what the finding names",
        _ => "see the rule's explanation",
    }
}

/// A rule's finding as a problem, in a few words (the headline of its group).
pub fn title(rule: &Rule) -> &'static str {
    use crate::rules::*;
    match rule.id {
        id if id == STATE_SHIFTED.id => "state lands on another operator",
        id if id == STATE_ORPHANED.id => "state claimed by no operator",
        id if id == MAX_PARALLELISM_MISMATCH.id => "max parallelism differs from the savepoint's",
        id if id == MATCH_UNVERIFIED.id => "positional match that cannot be checked",
        id if id == SOURCE_TOPIC_NOT_IN_NAME.id => "source reads topics its name does not mention",
        id if id == SOURCE_READS_FOREIGN_TOPIC.id => {
            "source will read a topic it does not subscribe to"
        }
        id if id == KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED.id => {
            "Kafka sinks share a transactional id prefix"
        }
        id if id == KAFKA_PENDING_TRANSACTIONS.id => "pending Kafka transactions",
        id if id == KAFKA_TRANSACTION_TIMEOUT_TOO_SHORT.id => {
            "Kafka transactions time out before the commit"
        }
        id if id == KAFKA_TRANSACTION_TIMEOUT_ABOVE_BROKER_MAX.id => {
            "Kafka transaction timeout above the brokers' limit"
        }
        id if id == KAFKA_EXACTLY_ONCE_WITHOUT_CHECKPOINTING.id => {
            "exactly-once Kafka sink that never commits"
        }
        id if id == KAFKA_AT_LEAST_ONCE_SINK.id => "Kafka sink that duplicates on restart",
        id if id == KAFKA_TRANSACTIONAL_ID_PREFIX_CHANGED.id => {
            "Kafka transactional id prefix changed"
        }
        id if id == SOURCE_STARTS_EMPTY.id => "source starts without restored splits",
        id if id == STATE_DROPPED_EMPTY.id => "removed operator had no state",
        id if id == STATEFUL_OPERATOR_WITHOUT_UID.id => "stateful operator without uid",
        id if id == OPERATOR_WITHOUT_UID.id => "operator without uid",
        id if id == UID_DUPLICATE.id => "duplicate uid",
        id if id == UID_HASH_COLLISION.id => "operator ID collision",
        id if id == PYFLINK_HIDDEN_OPERATOR.id => "operator PyFlink inserts",
        id if id == PYFLINK_FUSED_UID_DROPPED.id => "fused PyFlink operators",
        id if id == SINK_WITHOUT_UID.id => "Sink V2 part without uid",
        id if id == RULES_NOT_CHECKED.id => "checks that could not run",
        _ => rule.summary,
    }
}
