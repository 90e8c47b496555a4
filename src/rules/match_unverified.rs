//! `MATCH_UNVERIFIED`: positional matches that cannot be checked.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "MATCH_UNVERIFIED",
    category: Category::Restore,
    default_severity: Severity::Warning,
    summary: "A match made by position can be checked against the old operator's identity.",
    explain: "Neither side has a uid, so the match is positional, and the savepoint (format before 5, Flink before 2.0) records no names to compare. The state may well be restored into a different operator. Pass the graph manifest of the job that wrote the savepoint with --old-graph, or set uids.",
    title: "positional match that cannot be checked",
    help: "pass the manifest of the job that wrote the savepoint with --old-graph, or set uids",
    checks: &[Check::Diff(check)],
};

fn check(ctx: &DiffContext<'_>) -> Vec<Finding> {
    ctx.entries(&RULE, |e| e.status == Status::Unverified)
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::diff::{diff, RestoreOptions};

    #[test]
    fn fires_on_a_positional_match_without_names_only() {
        let mut o = old_op("p1", "a");
        o.name = None;
        let d = diff(&[o], &[new_op("p1", "a")], RestoreOptions::default());
        assert_eq!(ids(&d), ["MATCH_UNVERIFIED"]);
        assert!(ids(&diff_of(&[("p1", "a")], &[("p1", "a")])).is_empty());
    }
}
