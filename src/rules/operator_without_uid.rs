//! `OPERATOR_WITHOUT_UID`: stateless operators with positional IDs.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "OPERATOR_WITHOUT_UID",
    category: Category::Hygiene,
    default_severity: Severity::Info,
    summary: "Every operator has a uid.",
    explain: "Stateless operators without uid carry no state themselves, but they count in the positional IDs of the operators after them; uids everywhere make the graph's IDs independent of its shape.",
    title: "operator without uid",
    help: "see the rule's explanation",
    checks: &[Check::Graph(check)],
};

fn check(ctx: &GraphContext<'_>) -> Vec<Finding> {
    ctx.positional()
        .filter(|op| !ctx.stateful(op) && !super::sink_without_uid::is_sink_part(op))
        .map(|op| {
            let msg = format!("{} has no uid", ctx.label(op));
            ctx.finding(&RULE, op, msg).detail("has no uid")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_on_operators_without_uid_only() {
        let mut op = graph_op("p1", "map");
        op.stateful = Some(false);
        assert_eq!(graph_ids(&[op.clone()], false), ["OPERATOR_WITHOUT_UID"]);
        op.uid = Some("map".into());
        assert!(graph_ids(&[op], false).is_empty());
    }
}
