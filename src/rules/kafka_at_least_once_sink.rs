//! `KAFKA_AT_LEAST_ONCE_SINK`: Kafka sinks that write duplicates on a restart.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "KAFKA_AT_LEAST_ONCE_SINK",
    category: Category::StateLoss,
    default_severity: Severity::Info,
    summary: "Kafka sinks are exactly-once, or their duplicates are expected.",
    explain: "An at-least-once KafkaSink flushes on checkpoints; after a failure or a redeploy from a savepoint the job replays from the last checkpoint, and the records written since it are written again: up to one checkpoint interval of duplicates. A sink with delivery guarantee none may also lose records. Expected where consumers deduplicate; otherwise use exactly-once.",
    title: "Kafka sink that duplicates on restart",
    help: "see the rule's explanation",
    checks: &[Check::Graph(check)],
};

fn check(ctx: &GraphContext<'_>) -> Vec<Finding> {
    let interval = ctx
        .job
        .and_then(|j| j.checkpoint_interval_ms)
        .map_or(String::new(), |i| format!(" ({i} ms)"));
    ctx.kafka_sinks()
        .filter_map(|(op, k)| {
            let msg = match k.delivery_guarantee.as_deref() {
                Some("at_least_once") => format!(
                    "{} is at-least-once: a restart writes again up to one checkpoint interval{interval} of records",
                    ctx.label(op)
                ),
                Some("none") => format!(
                    "{} has no delivery guarantee: a restart may lose or duplicate records",
                    ctx.label(op)
                ),
                _ => return None,
            };
            Some(ctx.finding(&RULE, op, msg))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_on_at_least_once_and_none_only() {
        assert!(
            kafka_ids(60_000, None, "at_least_once", None).contains(&"KAFKA_AT_LEAST_ONCE_SINK")
        );
        assert!(kafka_ids(60_000, None, "none", None).contains(&"KAFKA_AT_LEAST_ONCE_SINK"));
        assert!(!kafka_ids(60_000, Some(900_000), "exactly_once", None)
            .contains(&"KAFKA_AT_LEAST_ONCE_SINK"));
    }
}
