//! `MAX_PARALLELISM_MISMATCH`: an explicit max parallelism that differs from the savepoint's.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "MAX_PARALLELISM_MISMATCH",
    category: Category::Restore,
    default_severity: Severity::Error,
    summary: "A restored operator keeps the max parallelism of its state.",
    explain: "Keyed state is split into max-parallelism key groups. When the new job explicitly configures a different max parallelism for an operator that has an entry in the savepoint (even an empty one), Flink fails the restore (\"Max parallelism mismatch\"); a parallelism above the state's max parallelism fails too. Remove the explicit setting to adopt the savepoint's value, or keep it equal.",
    title: "max parallelism differs from the savepoint's",
    help: "lower the operator's parallelism to at most the state's max parallelism",
    checks: &[Check::Diff(check)],
};

fn check(ctx: &DiffContext<'_>) -> Vec<Finding> {
    ctx.entries(&RULE, |e| e.status == Status::MaxParallelismMismatch)
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::diff::{diff, RestoreOptions};

    #[test]
    fn fires_on_a_changed_explicit_max_parallelism_only() {
        let old = [old_op("p1", "a")];
        let mut new = new_op("p1", "a");
        new.max_parallelism = Some(256);
        let d = diff(&old, &[new.clone()], RestoreOptions::default());
        assert_eq!(ids(&d), ["MAX_PARALLELISM_MISMATCH"]);
        new.max_parallelism = None;
        let d = diff(&old, &[new], RestoreOptions::default());
        assert!(ids(&d).is_empty());
    }
}
