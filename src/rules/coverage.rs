//! Findings on what could not be checked (`RULES_NOT_CHECKED`): a rule that cannot run on an input says
//! so, so that its silence is never read as a pass.

use super::*;

/// The rules that need the operators' uids and names.
const UID_RULES: [&Rule; 7] = [
    &STATEFUL_OPERATOR_WITHOUT_UID,
    &SINK_WITHOUT_UID,
    &OPERATOR_WITHOUT_UID,
    &UID_DUPLICATE,
    &PYFLINK_HIDDEN_OPERATOR,
    &PYFLINK_FUSED_UID_DROPPED,
    &SOURCE_TOPIC_NOT_IN_NAME,
];

/// The rules that need the state files of sources and sinks.
const STATE_RULES: [&Rule; 3] = [
    &KAFKA_PENDING_TRANSACTIONS,
    &KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED,
    &SOURCE_TOPIC_NOT_IN_NAME,
];

fn ids(rules: &[&Rule]) -> String {
    rules.iter().map(|r| r.id).collect::<Vec<_>>().join(", ")
}

fn not_recorded(input: &str, version: i32, rules: &[&Rule], flag: &str) -> Finding {
    Finding::new(
        &RULES_NOT_CHECKED,
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
        &[&STATE_SHIFTED, &SOURCE_TOPIC_NOT_IN_NAME],
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
        &RULES_NOT_CHECKED,
        format!(
            "{} not checked for {} ({}) whose state files could not be read ({first}); {hint}",
            ids(&STATE_RULES),
            plural(unread.len(), "operator", "operators"),
            first_few(&labels)
        ),
        input,
    )
}
