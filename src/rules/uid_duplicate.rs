//! `UID_DUPLICATE`: two operators with one uid.

use super::*;
use std::collections::HashMap;

/// The rule.
pub static RULE: Rule = Rule {
    id: "UID_DUPLICATE",
    category: Category::Hygiene,
    default_severity: Severity::Error,
    summary: "Uids are unique within a job.",
    explain: "Two operators with the same uid get the same ID; Flink refuses the job (\"Hash collision on user-specified ID\").",
    title: "duplicate uid",
    help: "give each operator a uid of its own",
    checks: &[Check::Graph(check)],
};

fn check(ctx: &GraphContext<'_>) -> Vec<Finding> {
    let mut by_uid: HashMap<&str, &GraphOperator> = HashMap::new();
    let mut out = Vec::new();
    for op in ctx.ops {
        let Some(u) = op.uid.as_deref() else { continue };
        if let Some(prev) = by_uid.insert(u, op) {
            let msg = format!(
                "uid {u:?} is set on {} and on {}",
                label(&prev.id, None, prev.name.as_deref()),
                ctx.label(op)
            );
            out.push(ctx.finding(&RULE, op, msg));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_on_a_repeated_uid_only() {
        let mut a = graph_op("p1", "a");
        a.uid = Some("u".into());
        let mut b = graph_op("p2", "b");
        b.uid = Some("u".into());
        assert!(graph_ids(&[a.clone(), b.clone()], true).contains(&"UID_DUPLICATE"));
        b.uid = Some("v".into());
        assert!(!graph_ids(&[a, b], true).contains(&"UID_DUPLICATE"));
    }
}
