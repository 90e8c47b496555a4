//! `STATE_DROPPED_EMPTY`: removed operators that held no state.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "STATE_DROPPED_EMPTY",
    category: Category::StateLoss,
    default_severity: Severity::Info,
    summary: "Operators removed from the job had no state.",
    explain: "The savepoint has an entry for an operator the new job does not have, but it holds no state. Flink skips it (\"Skipping empty savepoint state\") even without allowNonRestoredState.",
    title: "removed operator had no state",
    help: "see the rule's explanation",
    checks: &[Check::Diff(check)],
};

fn check(ctx: &DiffContext<'_>) -> Vec<Finding> {
    ctx.entries(&RULE, |e| e.status == Status::SkippedEmpty)
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::diff::{diff, RestoreOptions, StateInfo};

    #[test]
    fn fires_on_a_removed_empty_operator_only() {
        let mut o = old_op("p1", "a");
        o.state = Some(StateInfo {
            empty: true,
            ..StateInfo::default()
        });
        let d = diff(&[o], &[], RestoreOptions::default());
        assert_eq!(ids(&d), ["STATE_DROPPED_EMPTY"]);
        assert_eq!(ids(&diff_of(&[("p1", "a")], &[])), ["STATE_ORPHANED"]);
    }
}
