//! `KAFKA_TRANSACTIONAL_ID_PREFIX_CHANGED`: a Kafka sink restored under another transactional id prefix.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "KAFKA_TRANSACTIONAL_ID_PREFIX_CHANGED",
    category: Category::StateLoss,
    default_severity: Severity::Warning,
    summary: "A restored Kafka sink keeps the transactional id prefix its state was written with.",
    explain: "On restore a KafkaSink aborts the lingering transactions of its own transactional id prefix. When the new job's prefix differs from the one in the savepoint's writer state, the transactions the old prefix left open are never aborted by the new job: read_committed consumers of those partitions stall until the broker times them out (transaction.timeout.ms). Keep the prefix across deploys, or abort the old prefix's transactions before the switch.",
    title: "Kafka transactional id prefix changed",
    help: "see the rule's explanation",
    checks: &[Check::Diff(check)],
};

fn check(ctx: &DiffContext<'_>) -> Vec<Finding> {
    ctx.diff
        .entries
        .iter()
        .filter_map(|e| {
            let (old, new) = (e.old.as_ref()?, e.new.as_ref()?);
            let before = &old.state.as_ref()?.transactional_id_prefixes;
            let Some(crate::graph::Connector::KafkaSink(k)) = &new.connector else {
                return None;
            };
            let now = k.transactional_id_prefix.as_ref()?;
            if before.is_empty() || before.contains(now) {
                return None;
            }
            let msg = format!(
                "{} restores writer state of prefix {} but is configured with {now:?}: transactions the old prefix left open are never aborted by the new job",
                label(&new.id, new.uid.as_deref(), new.name.as_deref()),
                before.iter().map(|p| format!("{p:?}")).collect::<Vec<_>>().join(", ")
            );
            Some(ctx.on_new(&RULE, new, msg))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::diff::{diff, RestoreOptions, StateInfo};
    use crate::graph::{Connector, KafkaSink};

    #[test]
    fn fires_when_the_prefix_differs_from_the_writer_state() {
        let mut old = old_op("w", "Sink: out: Writer");
        old.state = Some(StateInfo {
            bytes: 10,
            transactional_id_prefixes: vec!["orders-v1".into()],
            ..StateInfo::default()
        });
        let mut new = new_op("w", "Sink: out: Writer");
        let with = |p: &str| {
            Some(Connector::KafkaSink(KafkaSink {
                delivery_guarantee: Some("exactly_once".into()),
                transactional_id_prefix: Some(p.into()),
                ..KafkaSink::default()
            }))
        };
        new.connector = with("orders-v2");
        let d = diff(&[old.clone()], &[new.clone()], RestoreOptions::default());
        assert!(ids(&d).contains(&"KAFKA_TRANSACTIONAL_ID_PREFIX_CHANGED"));
        new.connector = with("orders-v1");
        let d = diff(&[old], &[new], RestoreOptions::default());
        assert!(!ids(&d).contains(&"KAFKA_TRANSACTIONAL_ID_PREFIX_CHANGED"));
    }
}
