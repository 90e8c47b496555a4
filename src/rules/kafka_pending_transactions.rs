//! `KAFKA_PENDING_TRANSACTIONS`: precommitted Kafka transactions in a snapshot.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "KAFKA_PENDING_TRANSACTIONS",
    category: Category::StateLoss,
    default_severity: Severity::Warning,
    summary: "The savepoint holds no Kafka transactions that are precommitted but not committed.",
    explain: "A Kafka sink's writer or committer state lists transactions that were precommitted and not yet committed when the snapshot was taken. On restore Flink commits them (or, if they timed out in the broker, they are lost); a restore from an older savepoint can also abort newer ones. Restore promptly, within the broker's transaction.max.timeout.ms, and from the newest savepoint.",
    title: "pending Kafka transactions",
    help: "see the rule's explanation",
    checks: &[Check::State(check)],
};

fn check(ctx: &StateContext<'_>) -> Vec<Finding> {
    ctx.with_state()
        .filter(|(_, _, s)| !s.pending_transactions.is_empty())
        .map(|(input, o, s)| {
            let shown: Vec<String> = s.pending_transactions.iter().take(5).cloned().collect();
            let msg = format!(
                "{} has {} pending Kafka transactions, committed (or lost) on restore: {}{}",
                old_label(o),
                s.pending_transactions.len(),
                shown.join(", "),
                if s.pending_transactions.len() > 5 {
                    ", …"
                } else {
                    ""
                }
            );
            Finding::new(&RULE, msg, input).on(o.id, o.uid.as_deref(), o.name.as_deref())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::diff::StateInfo;

    #[test]
    fn fires_on_pending_transactions_only() {
        let pending = StateInfo {
            pending_transactions: vec!["p-0-7 (precommitted at checkpoint 3)".into()],
            ..StateInfo::default()
        };
        assert_eq!(
            state_ids(&[with_state("sink", pending)]),
            ["KAFKA_PENDING_TRANSACTIONS"]
        );
        assert!(state_ids(&[with_state("sink", StateInfo::default())]).is_empty());
    }
}
