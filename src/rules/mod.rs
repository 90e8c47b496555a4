//! The rules `diff` and `lint` check, one file per rule: its stable ID, category, default severity, the
//! invariant in one line, an explanation (`sp-inspect rules`, `docs/rules.md`), its check and its tests.
//! [`ALL`] is the registry. A check sees one of three contexts: the restore prediction ([`DiffContext`]),
//! a job graph with what is known of its state ([`GraphContext`]), or the state facts of the savepoints
//! given together ([`StateContext`]). IDs are never renamed.

mod kafka_at_least_once_sink;
mod kafka_exactly_once_without_checkpointing;
mod kafka_pending_transactions;
mod kafka_transaction_timeout_above_broker_max;
mod kafka_transaction_timeout_too_short;
mod kafka_transactional_id_prefix_changed;
mod kafka_transactional_id_prefix_shared;
mod match_unverified;
mod max_parallelism_mismatch;
mod operator_without_uid;
mod pyflink_fused_uid_dropped;
mod pyflink_hidden_operator;
pub mod rules_not_checked;
mod sink_without_uid;
mod source_reads_foreign_topic;
mod source_starts_empty;
mod source_topic_not_in_name;
mod state_dropped_empty;
mod state_orphaned;
mod state_shifted;
mod stateful_operator_without_uid;
mod uid_duplicate;
mod uid_hash_collision;

use crate::diff::{label, Diff, Entry, OldOperator, StateInfo, Status};
use crate::graph::GraphOperator;
use crate::model::OperatorId;
use std::collections::HashMap;
use std::fmt;

pub use kafka_at_least_once_sink::RULE as KAFKA_AT_LEAST_ONCE_SINK;
pub use kafka_exactly_once_without_checkpointing::RULE as KAFKA_EXACTLY_ONCE_WITHOUT_CHECKPOINTING;
pub use kafka_pending_transactions::RULE as KAFKA_PENDING_TRANSACTIONS;
pub use kafka_transaction_timeout_above_broker_max::RULE as KAFKA_TRANSACTION_TIMEOUT_ABOVE_BROKER_MAX;
pub use kafka_transaction_timeout_too_short::RULE as KAFKA_TRANSACTION_TIMEOUT_TOO_SHORT;
pub use kafka_transactional_id_prefix_changed::RULE as KAFKA_TRANSACTIONAL_ID_PREFIX_CHANGED;
pub use kafka_transactional_id_prefix_shared::RULE as KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED;
pub use match_unverified::RULE as MATCH_UNVERIFIED;
pub use max_parallelism_mismatch::RULE as MAX_PARALLELISM_MISMATCH;
pub use operator_without_uid::RULE as OPERATOR_WITHOUT_UID;
pub use pyflink_fused_uid_dropped::RULE as PYFLINK_FUSED_UID_DROPPED;
pub use pyflink_hidden_operator::RULE as PYFLINK_HIDDEN_OPERATOR;
pub use rules_not_checked::RULE as RULES_NOT_CHECKED;
pub use sink_without_uid::RULE as SINK_WITHOUT_UID;
pub use source_reads_foreign_topic::RULE as SOURCE_READS_FOREIGN_TOPIC;
pub use source_reads_foreign_topic::{kafka_source, reads};
pub use source_starts_empty::RULE as SOURCE_STARTS_EMPTY;
pub use source_topic_not_in_name::RULE as SOURCE_TOPIC_NOT_IN_NAME;
pub use state_dropped_empty::RULE as STATE_DROPPED_EMPTY;
pub use state_orphaned::RULE as STATE_ORPHANED;
pub use state_shifted::RULE as STATE_SHIFTED;
pub use stateful_operator_without_uid::RULE as STATEFUL_OPERATOR_WITHOUT_UID;
pub use uid_duplicate::RULE as UID_DUPLICATE;
pub use uid_hash_collision::RULE as UID_HASH_COLLISION;

/// Every rule, in category order.
pub static ALL: &[&Rule] = &[
    &STATE_SHIFTED,
    &STATE_ORPHANED,
    &MAX_PARALLELISM_MISMATCH,
    &MATCH_UNVERIFIED,
    &SOURCE_READS_FOREIGN_TOPIC,
    &SOURCE_TOPIC_NOT_IN_NAME,
    &KAFKA_TRANSACTION_TIMEOUT_ABOVE_BROKER_MAX,
    &KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED,
    &KAFKA_TRANSACTION_TIMEOUT_TOO_SHORT,
    &KAFKA_EXACTLY_ONCE_WITHOUT_CHECKPOINTING,
    &KAFKA_TRANSACTIONAL_ID_PREFIX_CHANGED,
    &KAFKA_PENDING_TRANSACTIONS,
    &KAFKA_AT_LEAST_ONCE_SINK,
    &SOURCE_STARTS_EMPTY,
    &STATE_DROPPED_EMPTY,
    &STATEFUL_OPERATOR_WITHOUT_UID,
    &OPERATOR_WITHOUT_UID,
    &UID_DUPLICATE,
    &UID_HASH_COLLISION,
    &PYFLINK_HIDDEN_OPERATOR,
    &PYFLINK_FUSED_UID_DROPPED,
    &RULES_NOT_CHECKED,
    &SINK_WITHOUT_UID,
];

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
#[derive(Debug)]
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
    /// Its finding as a problem, in a few words (the headline of a report's group).
    pub title: &'static str,
    /// What to do about a finding that has no fix of its own, in one line.
    pub help: &'static str,
    /// What it looks at, and how (a rule may look at more than one kind of input).
    pub checks: &'static [Check],
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Rule {}

/// A rule's check, by what it looks at.
#[derive(Debug)]
pub enum Check {
    /// The restore prediction of `diff`.
    Diff(fn(&DiffContext<'_>) -> Vec<Finding>),
    /// One job graph (`lint`'s inputs, `diff`'s NEW).
    Graph(fn(&GraphContext<'_>) -> Vec<Finding>),
    /// The state facts of the savepoints given together.
    State(fn(&StateContext<'_>) -> Vec<Finding>),
}

/// What the restore rules see.
pub struct DiffContext<'a> {
    /// The prediction.
    pub diff: &'a Diff,
    /// The NEW argument.
    pub input: &'a str,
}

impl DiffContext<'_> {
    /// A finding of `rule` on the new operator `new`.
    pub fn on_new(&self, rule: &'static Rule, new: &GraphOperator, message: String) -> Finding {
        Finding::new(rule, message, self.input)
            .on(new.id, new.uid.as_deref(), new.name.as_deref())
            .at(new.defined_at.as_ref())
    }

    /// One finding of `rule` per entry `keep` accepts: "new ← state of old: what happens".
    pub fn entries(&self, rule: &'static Rule, keep: impl Fn(&Entry) -> bool) -> Vec<Finding> {
        self.diff
            .entries
            .iter()
            .filter(|e| keep(e))
            .filter_map(|e| {
                let (old, new) = (e.old.as_ref(), e.new.as_ref());
                let subject = match (old, new) {
                    (Some(o), Some(n)) => format!(
                        "{} ← state of {}",
                        label(&n.id, n.uid.as_deref(), n.name.as_deref()),
                        old_label(o)
                    ),
                    (Some(o), None) => old_label(o),
                    (None, Some(n)) => label(&n.id, n.uid.as_deref(), n.name.as_deref()),
                    (None, None) => return None,
                };
                let (id, uid, name) = match (new, old) {
                    (Some(n), _) => (n.id, n.uid.as_deref(), n.name.as_deref()),
                    (None, Some(o)) => (o.id, o.uid.as_deref(), o.name.as_deref()),
                    (None, None) => return None,
                };
                Some(
                    Finding::new(rule, format!("{subject}: {}", e.note), self.input)
                        .on(id, uid, name)
                        .at(new.and_then(|n| n.defined_at.as_ref()))
                        .detail(&e.note),
                )
            })
            .collect()
    }
}

/// What is known of which operators of a graph hold state.
#[derive(Debug, Clone, Default)]
pub struct Statefulness {
    /// Bytes of state an operator holds (the graph is a savepoint) or restores (from a diff), by ID.
    pub bytes: HashMap<OperatorId, i64>,
    /// Whether an operator absent from `bytes` is known to hold none (the graph is a savepoint); else
    /// the manifest's `stateful` decides, and where it is null nobody knows.
    pub complete: bool,
}

impl Statefulness {
    /// The states of `state` (a savepoint's operators) that hold bytes, complete. Handles of 0 bytes
    /// (the placeholders Flink writes for every operator under file merging) hold nothing to misplace.
    pub fn of_savepoint(state: &[OldOperator]) -> Self {
        Statefulness {
            bytes: state
                .iter()
                .filter_map(|o| {
                    o.state
                        .as_ref()
                        .filter(|s| !s.empty && s.bytes > 0)
                        .map(|s| (o.id, s.bytes))
                })
                .collect(),
            complete: true,
        }
    }
}

/// The bytes of state each new operator receives (restored, shifted or unverified), by its ID: what makes
/// it stateful for the graph rules when NEW is a manifest. As in [`Statefulness::of_savepoint`], handles of
/// 0 bytes do not count.
pub fn restored_state(d: &Diff) -> HashMap<OperatorId, i64> {
    d.entries
        .iter()
        .filter_map(|e| {
            let s = e
                .old
                .as_ref()?
                .state
                .as_ref()
                .filter(|s| !s.empty && s.bytes > 0)?;
            Some((e.new.as_ref()?.id, s.bytes))
        })
        .collect()
}

/// What the graph rules see.
pub struct GraphContext<'a> {
    /// The operators.
    pub ops: &'a [GraphOperator],
    /// Which of them hold state.
    pub state: &'a Statefulness,
    /// The input they come from.
    pub input: &'a str,
    /// False for savepoints of formats before 5, which record no uids: a missing uid there means "not
    /// recorded", not "not set", and the uid rules do not run (the gate says so with RULES_NOT_CHECKED).
    pub uids_known: bool,
    /// The job's configuration, when the graph records it (a manifest's `job`).
    pub job: Option<&'a crate::graph::JobConfig>,
}

impl GraphContext<'_> {
    /// The Kafka sink writers and their configuration.
    pub fn kafka_sinks(&self) -> impl Iterator<Item = (&GraphOperator, &crate::graph::KafkaSink)> {
        self.ops.iter().filter_map(|o| match &o.connector {
            Some(crate::graph::Connector::KafkaSink(k)) => Some((o, k)),
            _ => None,
        })
    }
}

impl GraphContext<'_> {
    /// The operators whose ID is their position: no uid, no uid hash (none when uids are unknown).
    pub fn positional(&self) -> impl Iterator<Item = &GraphOperator> {
        self.ops
            .iter()
            .filter(|o| self.uids_known && o.uid.is_none() && o.uid_hash.is_none())
    }

    /// Whether an operator holds state: known from the savepoint or the diff, else from the manifest.
    pub fn holds(&self, op: &GraphOperator) -> Option<bool> {
        if self.state.bytes.contains_key(&op.id) {
            Some(true)
        } else if self.state.complete {
            Some(false)
        } else {
            op.stateful
        }
    }

    /// Whether an operator is known to hold state.
    pub fn stateful(&self, op: &GraphOperator) -> bool {
        self.holds(op) == Some(true)
    }

    /// "name (uid u)", "uid u", "name" or the ID.
    pub fn label(&self, op: &GraphOperator) -> String {
        label(&op.id, op.uid.as_deref(), op.name.as_deref())
    }

    /// A finding of `rule` on `op`.
    pub fn finding(&self, rule: &'static Rule, op: &GraphOperator, message: String) -> Finding {
        Finding::new(rule, message, self.input)
            .on(op.id, op.uid.as_deref(), op.name.as_deref())
            .at(op.defined_at.as_ref())
    }
}

/// The parts of a fused operator's name (`count a, Filter` → `count a`, `Filter`).
fn name_parts(op: &GraphOperator) -> Vec<&str> {
    op.name
        .as_deref()
        .map_or_else(Vec::new, |n| n.split(", ").collect())
}

fn old_label(o: &OldOperator) -> String {
    label(&o.id, o.uid.as_deref(), o.name.as_deref())
}

/// What the state rules see: the operators of every savepoint given together, with their input.
pub struct StateContext<'a> {
    /// (input, its operators).
    pub inputs: &'a [(&'a str, &'a [OldOperator])],
}

impl StateContext<'_> {
    /// Every operator with state facts: (input, operator, state).
    pub fn with_state(&self) -> impl Iterator<Item = (&str, &OldOperator, &StateInfo)> {
        self.inputs.iter().flat_map(|(input, ops)| {
            ops.iter()
                .filter_map(move |o| o.state.as_ref().map(|s| (*input, o, s)))
        })
    }
}

/// The restore rules' findings for a prediction of `diff` (`input`: the NEW argument).
pub fn check_diff(diff: &Diff, input: &str) -> Vec<Finding> {
    let ctx = DiffContext { diff, input };
    ALL.iter()
        .flat_map(|r| r.checks)
        .flat_map(|c| match c {
            Check::Diff(check) => check(&ctx),
            _ => Vec::new(),
        })
        .collect()
}

/// The graph rules' findings for a job graph (`job`: its configuration, when recorded).
pub fn check_graph(
    ops: &[GraphOperator],
    state: &Statefulness,
    input: &str,
    uids_known: bool,
    job: Option<&crate::graph::JobConfig>,
) -> Vec<Finding> {
    let ctx = GraphContext {
        ops,
        state,
        input,
        uids_known,
        job,
    };
    ALL.iter()
        .flat_map(|r| r.checks)
        .flat_map(|c| match c {
            Check::Graph(check) => check(&ctx),
            _ => Vec::new(),
        })
        .collect()
}

/// The state rules' findings for the savepoints given together: (input, operators).
pub fn check_state(inputs: &[(&str, &[OldOperator])]) -> Vec<Finding> {
    let ctx = StateContext { inputs };
    ALL.iter()
        .flat_map(|r| r.checks)
        .flat_map(|c| match c {
            Check::State(check) => check(&ctx),
            _ => Vec::new(),
        })
        .collect()
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

/// Inputs for the rules' own tests.
#[cfg(test)]
mod testing {
    pub use super::*;
    use crate::diff::{diff, RestoreOptions};
    use crate::hash::operator_id;

    /// An old operator with 10 bytes of state, its ID the hash of `id_of`.
    pub fn old_op(id_of: &str, name: &str) -> OldOperator {
        OldOperator {
            id: operator_id(id_of),
            name: Some(name.into()),
            max_parallelism: Some(128),
            state: Some(StateInfo {
                bytes: 10,
                ..StateInfo::default()
            }),
            ..OldOperator::default()
        }
    }

    /// A new operator, its ID the hash of `id_of`.
    pub fn new_op(id_of: &str, name: &str) -> GraphOperator {
        GraphOperator {
            id: operator_id(id_of),
            name: Some(name.into()),
            ..GraphOperator::default()
        }
    }

    /// A graph operator without uid, statefulness unknown.
    pub fn graph_op(id_of: &str, name: &str) -> GraphOperator {
        new_op(id_of, name)
    }

    /// The prediction of (id, name) old states into (id, name) new operators.
    pub fn diff_of(old: &[(&str, &str)], new: &[(&str, &str)]) -> Diff {
        let old: Vec<_> = old.iter().map(|(i, n)| old_op(i, n)).collect();
        let new: Vec<_> = new.iter().map(|(i, n)| new_op(i, n)).collect();
        diff(&old, &new, RestoreOptions::default())
    }

    /// The rules the restore rules find on `d`, except the infos about removed empty state.
    pub fn ids(d: &Diff) -> Vec<&'static str> {
        check_diff(d, "new").iter().map(|f| f.rule.id).collect()
    }

    /// The rules the graph rules find; `complete`: statefulness is that of a savepoint with no state.
    pub fn graph_ids(ops: &[GraphOperator], complete: bool) -> Vec<&'static str> {
        let state = Statefulness {
            bytes: HashMap::new(),
            complete,
        };
        check_graph(ops, &state, "g", true, None)
            .iter()
            .map(|f| f.rule.id)
            .collect()
    }

    /// An old operator (its uid and name `name`) with these state facts.
    pub fn with_state(name: &str, info: StateInfo) -> OldOperator {
        OldOperator {
            uid: Some(name.into()),
            state: Some(StateInfo { bytes: 100, ..info }),
            ..old_op(name, name)
        }
    }

    /// The rules a one-sink manifest finds: checkpoint interval (0: off), the sink's timeout and delivery
    /// guarantee, the checkpoint timeout.
    pub fn kafka_ids(
        interval: i64,
        timeout: Option<i64>,
        delivery: &str,
        checkpoint_timeout: Option<i64>,
    ) -> Vec<&'static str> {
        use crate::graph::{Connector, JobConfig, KafkaSink};
        let mut sink = new_op("w", "Sink: out: Writer");
        sink.uid = Some("out".into());
        sink.connector = Some(Connector::KafkaSink(KafkaSink {
            delivery_guarantee: Some(delivery.into()),
            transaction_timeout_ms: timeout,
            transactional_id_prefix: Some("p".into()),
            ..KafkaSink::default()
        }));
        let job = JobConfig {
            checkpoint_interval_ms: (interval > 0).then_some(interval),
            checkpoint_timeout_ms: checkpoint_timeout,
            ..JobConfig::default()
        };
        let state = Statefulness::default();
        check_graph(&[sink], &state, "g", true, Some(&job))
            .iter()
            .map(|f| f.rule.id)
            .collect()
    }

    /// The rules the state rules find on one savepoint's operators.
    pub fn state_ids(ops: &[OldOperator]) -> Vec<&'static str> {
        check_state(&[("sp", ops)])
            .iter()
            .map(|f| f.rule.id)
            .collect()
    }
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
