//! `PYFLINK_FUSED_UID_DROPPED`: fused Python operators that may hold state and have no uid.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "PYFLINK_FUSED_UID_DROPPED",
    category: Category::Hygiene,
    default_severity: Severity::Warning,
    summary: "A .uid() set in a PyFlink job is the uid its operator runs with.",
    explain: "PyFlink fuses consecutive Python operators into one (\"count odd, Filter\") that keeps only the first operator's uid: a .uid() set on a later part is silently dropped, and a state written by that part is stored under the first part's ID. Set the uid on the first operator of the chain, or disable python.operator-chaining.enabled.",
    title: "fused PyFlink operators",
    help: "see the rule's explanation",
    checks: &[Check::Graph(check)],
};

/// Default names of PyFlink's Python operators (what fused operator names are made of).
const PYFLINK_DEFAULT_NAMES: [&str; 13] = [
    "Map",
    "FlatMap",
    "Filter",
    "Reduce",
    "PROCESS",
    "KEYED PROCESS",
    "Co-Map",
    "Co-Flat Map",
    "Co-Process",
    "Keyed Co-Process",
    "_stream_key_by_map_operator",
    "_keyed_stream_values_operator",
    "_partition_custom_map_operator",
];

fn check(ctx: &GraphContext<'_>) -> Vec<Finding> {
    // A dropped uid matters where the fused operator may hold state and has none.
    ctx.positional()
        .filter(|op| ctx.holds(op) != Some(false))
        .filter_map(|op| {
            let parts = name_parts(op);
            if parts.len() < 2 || !parts.iter().any(|p| PYFLINK_DEFAULT_NAMES.contains(p)) {
                return None;
            }
            let msg = format!(
                "{} is {} PyFlink operators fused into one: a .uid() set on any but {:?} was dropped",
                ctx.label(op),
                parts.len(),
                parts.first().copied().unwrap_or_default()
            );
            Some(
                ctx.finding(&RULE, op, msg)
                    .detail("Python operators fused into one, without uid: only a .uid() on the first part is kept"),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_on_a_fused_operator_that_may_hold_state_without_uid() {
        let mut fused = graph_op("p1", "count a, Filter");
        fused.stateful = Some(true);
        assert!(graph_ids(&[fused.clone()], false).contains(&"PYFLINK_FUSED_UID_DROPPED"));
        fused.stateful = Some(false);
        assert!(!graph_ids(&[fused.clone()], false).contains(&"PYFLINK_FUSED_UID_DROPPED"));
        fused.stateful = Some(true);
        fused.uid = Some("count-a".into());
        assert!(!graph_ids(&[fused], false).contains(&"PYFLINK_FUSED_UID_DROPPED"));
    }
}
