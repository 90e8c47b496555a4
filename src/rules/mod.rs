//! The rules `diff` and `lint` check, as data: a stable ID, a category, a default severity, the invariant
//! in one line, and an explanation (`sp-inspect rules`, `docs/rules.md`). IDs are never renamed.

pub mod coverage;
mod graph;
mod restore;
mod state;

pub use graph::{check_graph, Statefulness};
pub use restore::{check_diff, restored_state};
pub use state::{check_shared_prefixes, check_state};

use crate::model::OperatorId;
use std::fmt;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing.
    Info,
    /// Likely a problem.
    Warning,
    /// A restore that fails or puts state in the wrong place.
    Error,
}

impl Severity {
    /// Stable lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Parses `info`, `warning` (`warn`) or `error`.
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" | "note" => Some(Severity::Info),
            "warning" | "warn" => Some(Severity::Warning),
            "error" | "deny" => Some(Severity::Error),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Rule categories, from the strictest to the most lenient.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// The restore fails or state lands on the wrong operator.
    Restore,
    /// State is lost or starts empty.
    StateLoss,
    /// The job graph invites the problems above on a later deploy.
    Hygiene,
    /// What could not be checked: rules that could not run on an input.
    Coverage,
}

impl Category {
    /// Stable name.
    pub fn name(self) -> &'static str {
        match self {
            Category::Restore => "RESTORE",
            Category::StateLoss => "STATE_LOSS",
            Category::Hygiene => "HYGIENE",
            Category::Coverage => "COVERAGE",
        }
    }
}

/// One rule.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable ID, UPPER_SNAKE, subject then predicate.
    pub id: &'static str,
    /// Category.
    pub category: Category,
    /// Severity unless configured otherwise.
    pub default_severity: Severity,
    /// The invariant the rule checks, in one line.
    pub summary: &'static str,
    /// Why it matters and what to do, in one paragraph.
    pub explain: &'static str,
}

macro_rules! rules {
    ($($name:ident = $id:literal, $cat:ident, $sev:ident, $summary:literal, $explain:literal;)*) => {
        $(
            #[doc = $summary]
            pub static $name: Rule = Rule {
                id: $id,
                category: Category::$cat,
                default_severity: Severity::$sev,
                summary: $summary,
                explain: $explain,
            };
        )*
        /// Every rule, in category then ID order.
        pub static ALL: &[&Rule] = &[$(&$name),*];
    };
}

rules! {
    STATE_SHIFTED = "STATE_SHIFTED", Restore, Error,
        "State is restored into the operator that wrote it, not into another one with the same ID.",
        "Flink matches state by operator ID only. Without uids an ID is a hash of the operator's position, so inserting or removing an operator upstream gives a later operator the ID its neighbour had: it restores the neighbour's state (another topic's Kafka offsets, another key space) and Flink reports success. The old and new operator have different uids or names. Set a uid on every stateful operator; to move state deliberately, give the new operator the old uid or use setUidHash.";
    STATE_ORPHANED = "STATE_ORPHANED", Restore, Error,
        "Every non-empty state in the savepoint is claimed by an operator of the new job.",
        "No operator of the new job has the ID this state was written under. Flink fails the restore (\"Cannot map checkpoint/savepoint state for operator ... to the new program\"), or with allowNonRestoredState drops the state silently. If the operator still exists, its uid (or, without uids, its position) changed: restore the old uid, or use setUidHash with the old ID.";
    MAX_PARALLELISM_MISMATCH = "MAX_PARALLELISM_MISMATCH", Restore, Error,
        "A restored operator keeps the max parallelism of its state.",
        "Keyed state is split into max-parallelism key groups. When the new job explicitly configures a different max parallelism for an operator that has an entry in the savepoint (even an empty one), Flink fails the restore (\"Max parallelism mismatch\"); a parallelism above the state's max parallelism fails too. Remove the explicit setting to adopt the savepoint's value, or keep it equal.";
    MATCH_UNVERIFIED = "MATCH_UNVERIFIED", Restore, Warning,
        "A match made by position can be checked against the old operator's identity.",
        "Neither side has a uid, so the match is positional, and the savepoint (format before 5, Flink before 2.0) records no names to compare. The state may well be restored into a different operator. Pass the graph manifest of the job that wrote the savepoint with --old-graph, or set uids.";
    SOURCE_TOPIC_NOT_IN_NAME = "SOURCE_TOPIC_NOT_IN_NAME", Restore, Info,
        "A Kafka source's splits read topics its name or uid mentions.",
        "The savepoint's splits say which topics a source reads. When none of them appears in the operator's name or uid, the state may belong to another source (the classic shift: a loop of sources without uids, one inserted in the middle). A hint, not proof: names need not mention topics.";
    KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED = "KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED", StateLoss, Error,
        "Every exactly-once Kafka sink has its own transactional id prefix.",
        "Two Kafka sink writers (in one savepoint, or in savepoints given together) record the same transactional id prefix. Kafka allows one producer per transactional id: the sinks fence each other, aborting each other's transactions, and the restore of one can abort the other's pending data. Give every KafkaSink its own setTransactionalIdPrefix.";
    KAFKA_PENDING_TRANSACTIONS = "KAFKA_PENDING_TRANSACTIONS", StateLoss, Warning,
        "The savepoint holds no Kafka transactions that are precommitted but not committed.",
        "A Kafka sink's writer or committer state lists transactions that were precommitted and not yet committed when the snapshot was taken. On restore Flink commits them (or, if they timed out in the broker, they are lost); a restore from an older savepoint can also abort newer ones. Restore promptly, within the broker's transaction.max.timeout.ms, and from the newest savepoint.";
    SOURCE_STARTS_EMPTY = "SOURCE_STARTS_EMPTY", StateLoss, Warning,
        "Every source of the new job resumes from restored splits or offsets.",
        "A source that claims no state starts from its configured starting position (earliest, latest, committed offsets or a timestamp): it re-reads or skips data. Expected for a source added on purpose; a surprise when the source existed before under another ID.";
    STATE_DROPPED_EMPTY = "STATE_DROPPED_EMPTY", StateLoss, Info,
        "Operators removed from the job had no state.",
        "The savepoint has an entry for an operator the new job does not have, but it holds no state. Flink skips it (\"Skipping empty savepoint state\") even without allowNonRestoredState.";
    STATEFUL_OPERATOR_WITHOUT_UID = "STATEFUL_OPERATOR_WITHOUT_UID", Hygiene, Error,
        "Every operator with state has a uid.",
        "Without a uid the operator's ID, and so where its state goes on the next deploy, depends on its position in the graph. Set .uid(\"...\") on it: to keep its current state, use setUidHash with its current ID once, or a uid whose hash is what the savepoint holds (`sp-inspect hash`).";
    OPERATOR_WITHOUT_UID = "OPERATOR_WITHOUT_UID", Hygiene, Info,
        "Every operator has a uid.",
        "Stateless operators without uid carry no state themselves, but they count in the positional IDs of the operators after them; uids everywhere make the graph's IDs independent of its shape.";
    UID_DUPLICATE = "UID_DUPLICATE", Hygiene, Error,
        "Uids are unique within a job.",
        "Two operators with the same uid get the same ID; Flink refuses the job (\"Hash collision on user-specified ID\").";
    UID_HASH_COLLISION = "UID_HASH_COLLISION", Hygiene, Error,
        "Operator IDs are unique within a job.",
        "Two operators have the same ID although their uids differ (or one uid's hash equals another operator's positional ID or user hash); Flink refuses the job or restores one's state into the other.";
    PYFLINK_HIDDEN_OPERATOR = "PYFLINK_HIDDEN_OPERATOR", Hygiene, Warning,
        "The operators PyFlink inserts on its own are known and identified.",
        "PyFlink adds operators the job never wrote: key_by adds _stream_key_by_map_operator, keyed streams add _keyed_stream_values_operator, partition_custom adds _partition_custom_map_operator, get_side_output adds an identity \"Map\". They cannot be given a uid of their own (a .uid() on the returned stream lands on the hidden operator), and they shift the positional IDs of everything after them.";
    PYFLINK_FUSED_UID_DROPPED = "PYFLINK_FUSED_UID_DROPPED", Hygiene, Warning,
        "A .uid() set in a PyFlink job is the uid its operator runs with.",
        "PyFlink fuses consecutive Python operators into one (\"count odd, Filter\") that keeps only the first operator's uid: a .uid() set on a later part is silently dropped, and a state written by that part is stored under the first part's ID. Set the uid on the first operator of the chain, or disable python.operator-chaining.enabled.";
    RULES_NOT_CHECKED = "RULES_NOT_CHECKED", Coverage, Warning,
        "Every rule could run on every input.",
        "An input lacked what a rule needs, so the rule did not run on it and its silence proves nothing: savepoints before Flink 2.0 (formats 2-4) record no operator names or uids, so the uid rules cannot tell a missing uid from an unrecorded one; state files that are absent or outside the snapshot directory hide splits and transactions from the Kafka rules; a graph manifest that does not say which operators hold state hides stateful operators without uid. The finding names the rules and what to pass to run them: the job's graph manifest (--graph, --old-graph, --new-graph), the state files (or --allow-absolute-paths), a manifest written by the current graph helper.";
    SINK_WITHOUT_UID = "SINK_WITHOUT_UID", Hygiene, Error,
        "Sink V2 writers and committers have uids.",
        "A Sink V2 (sinkTo) becomes a Writer and a Committer (and maybe a Global Committer); they hold pending transactions and committables. Without a uid on the sink they get positional IDs and a redeploy can drop or misplace pending commits. Set .uid(...) on sinkTo's result: the writer gets that uid and the committer \"Sink Committer: <uid>\".";
}

/// `n thing` or `n things`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The first three items, then how many more.
pub fn first_few(items: &[String]) -> String {
    let shown = items.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    match items.len() {
        n if n > 3 => format!("{shown} and {} more", n - 3),
        _ => shown,
    }
}

/// Looks a rule up by ID.
pub fn by_id(id: &str) -> Option<&'static Rule> {
    ALL.iter().copied().find(|r| r.id == id)
}

/// One finding of one rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The rule.
    pub rule: &'static Rule,
    /// Its severity after configuration.
    pub severity: Severity,
    /// What was found, in one sentence.
    pub message: String,
    /// The operator concerned.
    pub operator_id: Option<OperatorId>,
    /// Its uid, when known.
    pub uid: Option<String>,
    /// Its name, when known.
    pub name: Option<String>,
    /// The input it was found in.
    pub input: String,
    /// Index of the fix for it in the report's fixes (`diff` only).
    pub fix: Option<usize>,
    /// The cause without the operator, where findings of one rule can share it (a job-wide cause).
    pub detail: Option<String>,
    /// Where the job's code creates the operator, when the manifest says.
    pub defined_at: Option<crate::graph::Location>,
}

impl Finding {
    pub(crate) fn new(rule: &'static Rule, message: String, input: &str) -> Self {
        Finding {
            rule,
            severity: rule.default_severity,
            message,
            operator_id: None,
            uid: None,
            name: None,
            input: input.to_string(),
            fix: None,
            detail: None,
            defined_at: None,
        }
    }

    pub(crate) fn at(mut self, location: Option<&crate::graph::Location>) -> Self {
        self.defined_at = location.cloned();
        self
    }

    pub(crate) fn detail(mut self, detail: &str) -> Self {
        self.detail = Some(detail.to_string());
        self
    }

    pub(crate) fn on(mut self, id: OperatorId, uid: Option<&str>, name: Option<&str>) -> Self {
        self.operator_id = Some(id);
        self.uid = uid.map(str::to_owned);
        self.name = name.map(str::to_owned);
        self
    }
}

/// Sorts worst first, then by rule and operator, and removes duplicates.
pub fn sort_findings(f: &mut Vec<Finding>) {
    f.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.rule.category.cmp(&b.rule.category))
            .then(a.rule.id.cmp(b.rule.id))
            .then(a.operator_id.cmp(&b.operator_id))
            .then(a.message.cmp(&b.message))
    });
    f.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_is_consistent() {
        let mut ids: Vec<_> = ALL.iter().map(|r| r.id).collect();
        ids.sort();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n, "rule IDs are unique");
        for r in ALL {
            assert!(
                r.id.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
                "{}",
                r.id
            );
            assert!(
                !r.summary.is_empty() && r.explain.len() > 80,
                "{} needs a summary and an explanation",
                r.id
            );
            assert_eq!(by_id(r.id), Some(*r));
        }
    }
}
