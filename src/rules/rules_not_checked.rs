//! `RULES_NOT_CHECKED`: what could not be checked. A rule that cannot run on an input says so, so that
//! its silence is never read as a pass: the graph rules report operators whose statefulness nobody knows,
//! and the gate reports inputs without names or uids and state files it could not read.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "RULES_NOT_CHECKED",
    category: Category::Coverage,
    default_severity: Severity::Warning,
    summary: "Every rule could run on every input.",
    explain: "An input lacked what a rule needs, so the rule did not run on it and its silence proves nothing: savepoints before Flink 2.0 (formats 2-4) record no operator names or uids, so the uid rules cannot tell a missing uid from an unrecorded one; state files that are absent or outside the snapshot directory hide splits and transactions from the Kafka rules; a graph manifest that does not say which operators hold state hides stateful operators without uid. The finding names the rules and what to pass to run them: the job's graph manifest (--graph, --old-graph, --new-graph), the state files (or --allow-absolute-paths), a manifest written by the current graph helper.",
    title: "checks that could not run",
    help: "pass what the finding names",
    checks: &[Check::Graph(check)],
};

fn check(ctx: &GraphContext<'_>) -> Vec<Finding> {
    let unknown: Vec<String> = ctx
        .positional()
        .filter(|op| ctx.holds(op).is_none() && !super::sink_without_uid::is_sink_part(op))
        .map(|op| ctx.label(op))
        .collect();
    if unknown.is_empty() {
        return Vec::new();
    }
    vec![Finding::new(
        &RULE,
        format!(
            "STATEFUL_OPERATOR_WITHOUT_UID not checked for {}: the manifest does not say whether {} state ({}); write it with the current graph helper (contrib/), which records \"stateful\"",
            plural(unknown.len(), "operator without uid", "operators without uid"),
            if unknown.len() == 1 { "it holds" } else { "they hold" },
            first_few(&unknown)
        ),
        ctx.input,
    )]
}

/// The rules that need the operators' uids and names.
const UID_RULES: [&Rule; 7] = [
    &stateful_operator_without_uid::RULE,
    &sink_without_uid::RULE,
    &operator_without_uid::RULE,
    &uid_duplicate::RULE,
    &pyflink_hidden_operator::RULE,
    &pyflink_fused_uid_dropped::RULE,
    &source_topic_not_in_name::RULE,
];

/// The rules that need the state files of sources and sinks.
const STATE_RULES: [&Rule; 3] = [
    &kafka_pending_transactions::RULE,
    &kafka_transactional_id_prefix_shared::RULE,
    &source_topic_not_in_name::RULE,
];

fn ids(rules: &[&Rule]) -> String {
    rules.iter().map(|r| r.id).collect::<Vec<_>>().join(", ")
}

fn not_recorded(input: &str, version: i32, rules: &[&Rule], flag: &str) -> Finding {
    Finding::new(
        &RULE,
        format!(
            "{} not checked: a format-{version} snapshot (written by {}) records no operator names or uids; pass the graph manifest of the job that wrote it with {flag}",
            ids(rules),
            crate::metadata::writers_of(version)
        ),
        input,
    )
}

/// A savepoint of format `version` (before 5) records no names or uids, so the uid rules cannot run on
/// it; `flag` is the option that names its operators.
pub fn uids_not_recorded(input: &str, version: i32, flag: &str) -> Finding {
    not_recorded(input, version, &UID_RULES, flag)
}

/// The same for OLD of a diff: a positional match cannot be told from a shift (each such match is also
/// a MATCH_UNVERIFIED), and the sources' topics cannot be compared with their names.
pub fn names_not_recorded(input: &str, version: i32) -> Finding {
    not_recorded(
        input,
        version,
        &[&state_shifted::RULE, &source_topic_not_in_name::RULE],
        "--old-graph",
    )
}

/// The state files of `unread` operators (label, first problem) could not be read.
pub fn state_not_read(input: &str, unread: &[(String, String)]) -> Finding {
    let labels: Vec<String> = unread.iter().map(|(l, _)| l.clone()).collect();
    let (_, first) = unread.first().cloned().unwrap_or_default();
    let hint = if first.contains("--allow-absolute-paths") {
        "pass --allow-absolute-paths to read state files outside the snapshot directory"
    } else {
        "run where the state files are, next to _metadata"
    };
    Finding::new(
        &RULE,
        format!(
            "{} not checked for {} ({}) whose state files could not be read ({first}); {hint}",
            ids(&STATE_RULES),
            plural(unread.len(), "operator", "operators"),
            first_few(&labels)
        ),
        input,
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_where_a_manifest_does_not_say_whether_an_operator_holds_state() {
        let op = graph_op("p1", "count");
        assert!(graph_ids(std::slice::from_ref(&op), false).contains(&"RULES_NOT_CHECKED"));
        let mut known = op;
        known.stateful = Some(false);
        assert!(!graph_ids(&[known], false).contains(&"RULES_NOT_CHECKED"));
    }
}
