//! `KAFKA_EXACTLY_ONCE_WITHOUT_CHECKPOINTING`: exactly-once Kafka sinks that never commit.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "KAFKA_EXACTLY_ONCE_WITHOUT_CHECKPOINTING",
    category: Category::StateLoss,
    default_severity: Severity::Error,
    summary: "A job with an exactly-once Kafka sink has checkpointing on.",
    explain: "An exactly-once KafkaSink commits its transactions when a checkpoint completes. Without checkpointing nothing is ever committed: read_committed consumers see no output at all. Enable checkpointing, or use delivery guarantee at-least-once.",
    title: "exactly-once Kafka sink that never commits",
    help: "enable checkpointing, or use at-least-once delivery",
    checks: &[Check::Graph(check)],
};

fn check(ctx: &GraphContext<'_>) -> Vec<Finding> {
    // Only where the manifest records the job's configuration and it has no checkpoint interval.
    let Some(job) = ctx.job else {
        return Vec::new();
    };
    if job.checkpoint_interval_ms.is_some_and(|i| i > 0) {
        return Vec::new();
    }
    ctx.kafka_sinks()
        .filter(|(_, k)| k.delivery_guarantee.as_deref() == Some("exactly_once"))
        .map(|(op, _)| {
            let msg = format!(
                "{} is exactly-once but the job does not checkpoint: its transactions are never committed",
                ctx.label(op)
            );
            ctx.finding(&RULE, op, msg)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_without_a_checkpoint_interval_only() {
        let id = "KAFKA_EXACTLY_ONCE_WITHOUT_CHECKPOINTING";
        assert!(kafka_ids(0, Some(600_000), "exactly_once", None).contains(&id));
        assert!(!kafka_ids(60_000, Some(600_000), "exactly_once", None).contains(&id));
    }
}
