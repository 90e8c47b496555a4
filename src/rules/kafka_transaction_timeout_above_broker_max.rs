//! `KAFKA_TRANSACTION_TIMEOUT_ABOVE_BROKER_MAX`: exactly-once Kafka sinks whose producers the broker
//! refuses.

use super::*;

/// The brokers' default `transaction.max.timeout.ms` (15 minutes).
pub const BROKER_MAX_TIMEOUT_MS: i64 = 900_000;

/// The rule.
pub static RULE: Rule = Rule {
    id: "KAFKA_TRANSACTION_TIMEOUT_ABOVE_BROKER_MAX",
    category: Category::Restore,
    default_severity: Severity::Error,
    summary: "An exactly-once Kafka sink's transaction.timeout.ms is within the brokers' transaction.max.timeout.ms.",
    explain: "A transactional producer whose transaction.timeout.ms exceeds the brokers' transaction.max.timeout.ms (15 minutes unless the brokers raise it) is refused when it initializes its transactions: the sink fails at start, and the job restarts in a loop. The KafkaSink builder sets one hour when the job sets nothing. Set transaction.timeout.ms within the brokers' limit (and above the checkpoint interval plus timeout), or raise the brokers' transaction.max.timeout.ms.",
    title: "Kafka transaction timeout above the brokers' limit",
    help: "set transaction.timeout.ms within the brokers' transaction.max.timeout.ms (15 minutes by default)",
    checks: &[Check::Graph(check)],
};

fn check(ctx: &GraphContext<'_>) -> Vec<Finding> {
    ctx.kafka_sinks()
        .filter(|(_, k)| k.delivery_guarantee.as_deref() == Some("exactly_once"))
        .filter(|(_, k)| k.transaction_timeout_ms.is_some_and(|t| t > BROKER_MAX_TIMEOUT_MS))
        .map(|(op, k)| {
            let msg = format!(
                "{}: transaction.timeout.ms {} is above the brokers' default transaction.max.timeout.ms {BROKER_MAX_TIMEOUT_MS}: the producer is refused at start unless the brokers raise it",
                ctx.label(op),
                k.transaction_timeout_ms.unwrap_or_default()
            );
            ctx.finding(&RULE, op, msg)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;

    #[test]
    fn fires_above_fifteen_minutes_only() {
        let id = "KAFKA_TRANSACTION_TIMEOUT_ABOVE_BROKER_MAX";
        assert!(kafka_ids(60_000, Some(3_600_000), "exactly_once", None).contains(&id));
        assert!(!kafka_ids(60_000, Some(900_000), "exactly_once", None).contains(&id));
        assert!(!kafka_ids(60_000, Some(3_600_000), "at_least_once", None).contains(&id));
    }
}
