//! `UID_HASH_COLLISION`: two operators with one ID.

use super::*;
use std::collections::HashMap;

/// The rule.
pub static RULE: Rule = Rule {
    id: "UID_HASH_COLLISION",
    category: Category::Hygiene,
    default_severity: Severity::Error,
    summary: "Operator IDs are unique within a job.",
    explain: "Two operators have the same ID although their uids differ (or one uid's hash equals another operator's positional ID or user hash); Flink refuses the job or restores one's state into the other.",
    title: "operator ID collision",
    help: "give each operator a uid of its own",
    checks: &[Check::Graph(check)],
};

fn check(ctx: &GraphContext<'_>) -> Vec<Finding> {
    let mut by_id: HashMap<OperatorId, &GraphOperator> = HashMap::new();
    let mut out = Vec::new();
    for op in ctx.ops {
        for id in std::iter::once(op.id).chain(op.uid_hash) {
            let Some(prev) = by_id.insert(id, op) else {
                continue;
            };
            // Two operators with one uid are UID_DUPLICATE.
            if prev.uid.is_none() || prev.uid != op.uid {
                let msg = format!(
                    "{} and {} have the same operator ID {id}",
                    ctx.label(op),
                    label(&prev.id, prev.uid.as_deref(), prev.name.as_deref())
                );
                out.push(ctx.finding(&RULE, op, msg));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_when_an_id_is_another_operators_uid_hash() {
        let mut a = graph_op("x", "a");
        a.uid = Some("a".into());
        let mut b = graph_op("p2", "b");
        b.uid_hash = Some(a.id);
        b.uid = Some("b".into());
        assert!(graph_ids(&[a.clone(), b.clone()], true).contains(&"UID_HASH_COLLISION"));
        b.uid_hash = None;
        assert!(!graph_ids(&[a, b], true).contains(&"UID_HASH_COLLISION"));
    }
}
