//! `PYFLINK_HIDDEN_OPERATOR`: operators PyFlink inserts, where positions matter.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "PYFLINK_HIDDEN_OPERATOR",
    category: Category::Hygiene,
    default_severity: Severity::Warning,
    summary: "The operators PyFlink inserts on its own are known and identified.",
    explain: "PyFlink adds operators the job never wrote: key_by adds _stream_key_by_map_operator, keyed streams add _keyed_stream_values_operator, partition_custom adds _partition_custom_map_operator, get_side_output adds an identity \"Map\". They cannot be given a uid of their own (a .uid() on the returned stream lands on the hidden operator), and they shift the positional IDs of everything after them.",
    title: "operator PyFlink inserts",
    help: "see the rule's explanation",
    checks: &[Check::Graph(check)],
};

/// Names PyFlink gives the operators it inserts.
pub(super) const PYFLINK_HIDDEN: [&str; 3] = [
    "_stream_key_by_map_operator",
    "_keyed_stream_values_operator",
    "_partition_custom_map_operator",
];

fn check(ctx: &GraphContext<'_>) -> Vec<Finding> {
    // They shift the positional IDs after them: that matters when an operator that may hold state
    // has a positional ID.
    if !ctx.positional().any(|o| ctx.holds(o) != Some(false)) {
        return Vec::new();
    }
    ctx.ops
        .iter()
        .filter_map(|op| {
            let parts = name_parts(op);
            let h = PYFLINK_HIDDEN.iter().find(|h| parts.contains(h))?;
            let msg = format!("{} is (or contains) the operator PyFlink inserts as {h}", ctx.label(op));
            Some(
                ctx.finding(&RULE, op, msg)
                    .detail("inserted by PyFlink: it takes a position before operators whose IDs are positional"),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_only_where_a_stateful_operator_has_a_positional_id() {
        let mut hidden = graph_op("p1", "_stream_key_by_map_operator");
        hidden.stateful = Some(false);
        let mut count = graph_op("p2", "count");
        count.stateful = Some(true);
        assert!(
            graph_ids(&[hidden.clone(), count.clone()], false).contains(&"PYFLINK_HIDDEN_OPERATOR")
        );
        count.uid = Some("count".into());
        assert!(!graph_ids(&[hidden, count], false).contains(&"PYFLINK_HIDDEN_OPERATOR"));
    }
}
