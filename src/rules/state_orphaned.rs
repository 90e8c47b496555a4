//! `STATE_ORPHANED`: state no operator of the new job claims.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "STATE_ORPHANED",
    category: Category::Restore,
    default_severity: Severity::Error,
    summary: "Every non-empty state in the savepoint is claimed by an operator of the new job.",
    explain: "No operator of the new job has the ID this state was written under. Flink fails the restore (\"Cannot map checkpoint/savepoint state for operator ... to the new program\"), or with allowNonRestoredState drops the state silently. If the operator still exists, its uid (or, without uids, its position) changed: restore the old uid, or use setUidHash with the old ID.",
    title: "state claimed by no operator",
    help: "no new operator is named like the old one: give the operator meant to restore it setUidHash with the old ID, or, if it was removed on purpose, restore with allowNonRestoredState (its state is lost)",
    checks: &[Check::Diff(check)],
};

fn check(ctx: &DiffContext<'_>) -> Vec<Finding> {
    ctx.entries(&RULE, |e| e.status == Status::Orphaned)
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_on_unclaimed_state_and_not_on_claimed_state() {
        assert_eq!(
            ids(&diff_of(&[("p1", "a")], &[("p2", "a")])),
            ["STATE_ORPHANED"]
        );
        assert!(ids(&diff_of(&[("p1", "a")], &[("p1", "a")])).is_empty());
    }
}
