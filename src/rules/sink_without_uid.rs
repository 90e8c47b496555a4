//! `SINK_WITHOUT_UID`: Sink V2 writers and committers with positional IDs.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "SINK_WITHOUT_UID",
    category: Category::Hygiene,
    default_severity: Severity::Error,
    summary: "Sink V2 writers and committers have uids.",
    explain: "A Sink V2 (sinkTo) becomes a Writer and a Committer (and maybe a Global Committer); they hold pending transactions and committables. Without a uid on the sink they get positional IDs and a redeploy can drop or misplace pending commits. Set .uid(...) on sinkTo's result: the writer gets that uid and the committer \"Sink Committer: <uid>\".",
    title: "Sink V2 part without uid",
    help: "set .uid(...) on it; to keep the state it has now, also setUidHash with its current ID, once",
    checks: &[Check::Graph(check)],
};

fn check(ctx: &GraphContext<'_>) -> Vec<Finding> {
    ctx.positional()
        .filter(|op| !ctx.stateful(op) && is_sink_part(op))
        .map(|op| {
            let msg = format!("{} is part of a Sink V2 without a uid", ctx.label(op));
            ctx.finding(&RULE, op, msg)
                .detail("part of a Sink V2 without a uid")
        })
        .collect()
}

/// Whether the operator is a Sink V2's writer or committer (by the names Flink gives them).
pub(super) fn is_sink_part(op: &GraphOperator) -> bool {
    op.name.as_deref().is_some_and(|name| {
        name.ends_with(": Writer")
            || name.ends_with(": Committer")
            || name.ends_with("Global Committer")
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_on_sink_parts_without_uid_only() {
        let mut op = graph_op("p1", "Sink: out: Writer");
        assert_eq!(graph_ids(&[op.clone()], false), ["SINK_WITHOUT_UID"]);
        op.uid = Some("out".into());
        assert!(graph_ids(&[op], false).is_empty());
    }
}
