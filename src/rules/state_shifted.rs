//! `STATE_SHIFTED`: restored into another operator than the one that wrote it.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "STATE_SHIFTED",
    category: Category::Restore,
    default_severity: Severity::Error,
    summary: "State is restored into the operator that wrote it, not into another one with the same ID.",
    explain: "Flink matches state by operator ID only. Without uids an ID is a hash of the operator's position, so inserting or removing an operator upstream gives a later operator the ID its neighbour had: it restores the neighbour's state (another topic's Kafka offsets, another key space) and Flink reports success. The old and new operator have different uids or names. Set a uid on every stateful operator; to move state deliberately, give the new operator the old uid or use setUidHash.",
    title: "state lands on another operator",
    help: "no new operator is named like the old one: give the operator meant to restore it setUidHash with the old ID, or, if it was removed on purpose, restore with allowNonRestoredState (its state is lost)",
    checks: &[Check::Diff(check)],
};

fn check(ctx: &DiffContext<'_>) -> Vec<Finding> {
    ctx.entries(&RULE, |e| e.status == Status::Shifted)
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_on_a_shift_and_not_on_a_restore() {
        assert_eq!(
            ids(&diff_of(&[("p1", "a")], &[("p1", "b")])),
            ["STATE_SHIFTED"]
        );
        assert!(ids(&diff_of(&[("p1", "a")], &[("p1", "a")])).is_empty());
    }
}
