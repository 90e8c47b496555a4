//! `STATEFUL_OPERATOR_WITHOUT_UID`: operators with state whose ID is their position.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "STATEFUL_OPERATOR_WITHOUT_UID",
    category: Category::Hygiene,
    default_severity: Severity::Error,
    summary: "Every operator with state has a uid.",
    explain: "Without a uid the operator's ID, and so where its state goes on the next deploy, depends on its position in the graph. Set .uid(\"...\") on it: to keep its current state, use setUidHash with its current ID once, or a uid whose hash is what the savepoint holds (`sp-inspect hash`).",
    title: "stateful operator without uid",
    help: "set .uid(...) on it; to keep the state it has now, also setUidHash with its current ID, once",
    checks: &[Check::Graph(check)],
};

const DETAIL: &str = "holds state and has no uid: its ID is its position in the graph";

fn check(ctx: &GraphContext<'_>) -> Vec<Finding> {
    ctx.positional()
        .filter_map(|op| {
            let this = ctx.label(op);
            let msg = match ctx.state.bytes.get(&op.id) {
                Some(bytes) => format!(
                    "{this} holds {} of state and has no uid: its ID depends on its position in the graph",
                    crate::report::human_bytes(*bytes)
                ),
                None if ctx.holds(op) == Some(true) => format!(
                    "{this} holds state (says the manifest) and has no uid: its ID depends on its position in the graph"
                ),
                None => return None,
            };
            Some(ctx.finding(&RULE, op, msg).detail(DETAIL))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_on_stateful_operators_without_uid_only() {
        let mut op = graph_op("p1", "count");
        op.stateful = Some(true);
        assert_eq!(
            graph_ids(&[op.clone()], false),
            ["STATEFUL_OPERATOR_WITHOUT_UID"]
        );
        op.uid = Some("count".into());
        assert!(graph_ids(&[op.clone()], false).is_empty());
        op.uid = None;
        op.stateful = Some(false);
        assert_eq!(graph_ids(&[op], false), ["OPERATOR_WITHOUT_UID"]);
    }
}
