//! `SOURCE_READS_FOREIGN_TOPIC`: Kafka sources that will read topics their subscription does not name.

use super::*;
use crate::graph::{Connector, KafkaSource};

/// The rule.
pub static RULE: Rule = Rule {
    id: "SOURCE_READS_FOREIGN_TOPIC",
    category: Category::Restore,
    default_severity: Severity::Error,
    summary: "Every Kafka source reads only the topics its subscription names.",
    explain: "A KafkaSource resumes the splits it restores, whatever topic they belong to, and adds the partitions its own subscription finds through partition discovery. When it restores splits of a topic its subscription does not name (the state of another source, after a shift; or a topic removed from its configuration), it reads both: two topics flow into its sinks, and Flink reports success. Give the source the state of the source that reads its topic (setUidHash, or sp-inspect remap), or, for a topic removed on purpose, drop the state.",
    title: "source will read a topic it does not subscribe to",
    help: "see the rule's explanation",
    checks: &[Check::Diff(check)],
};

/// Whether `topic` is one `config` subscribes to (a list, or a pattern matched whole, as Java's
/// `Pattern.matcher(topic).matches()`); `None` when the pattern is not one this reader can evaluate.
pub fn subscribed(config: &KafkaSource, topic: &str) -> Option<bool> {
    if let Some(topics) = &config.topics {
        return Some(topics.iter().any(|t| t == topic));
    }
    let pattern = config.topic_pattern.as_deref()?;
    let re = regex::Regex::new(&format!("^(?:{pattern})$")).ok()?;
    Some(re.is_match(topic))
}

/// The topics a source will read after the restore: those of its restored splits, plus its subscription
/// (a list of topics, or `pattern:<p>`). `None` when its configuration is not recorded.
pub fn reads(
    restored: &[(String, i32, String)],
    config: Option<&KafkaSource>,
) -> Option<Vec<String>> {
    let config = config?;
    let mut out: Vec<String> = restored.iter().map(|(t, _, _)| t.clone()).collect();
    match (&config.topics, &config.topic_pattern) {
        (Some(topics), _) => out.extend(topics.iter().cloned()),
        (None, Some(p)) => out.push(format!("pattern:{p}")),
        (None, None) => {}
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// The Kafka source configuration of a new operator.
pub fn kafka_source(n: &GraphOperator) -> Option<&KafkaSource> {
    match &n.connector {
        Some(Connector::KafkaSource(k)) => Some(k),
        _ => None,
    }
}

fn check(ctx: &DiffContext<'_>) -> Vec<Finding> {
    ctx.diff
        .entries
        .iter()
        .filter_map(|e| {
            let (old, new) = (e.old.as_ref()?, e.new.as_ref()?);
            let config = kafka_source(new)?;
            let state = old.state.as_ref()?;
            let mut foreign: Vec<&str> = state
                .kafka_splits
                .iter()
                .map(|(t, _, _)| t.as_str())
                .filter(|t| subscribed(config, t) == Some(false))
                .collect();
            foreign.sort_unstable();
            foreign.dedup();
            if foreign.is_empty() {
                return None;
            }
            let own = config
                .topics
                .as_ref()
                .map(|t| t.join(", "))
                .or_else(|| config.topic_pattern.as_ref().map(|p| format!("the pattern {p}")))
                .unwrap_or_default();
            let this = label(&new.id, new.uid.as_deref(), new.name.as_deref());
            let whose = if e.status == Status::Shifted {
                format!("the state of {}", old_label(old))
            } else {
                "its state".to_string()
            };
            let msg = format!(
                "{this} restores splits of {} ({whose}) but subscribes to {own}: after the restore it reads {} from the restored offsets and {own} through partition discovery, and both flow into its sinks",
                foreign.join(", "),
                foreign.join(", ")
            );
            Some(ctx.on_new(&RULE, new, msg))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::diff::{diff, RestoreOptions, StateInfo};

    fn source(topics: &[&str]) -> (OldOperator, GraphOperator) {
        let mut old = old_op("s", "Source: orders");
        old.state = Some(StateInfo {
            bytes: 10,
            kafka_splits: topics
                .iter()
                .map(|t| (t.to_string(), 0, "42".to_string()))
                .collect(),
            ..StateInfo::default()
        });
        let mut new = new_op("s", "Source: orders");
        new.connector = Some(Connector::KafkaSource(KafkaSource {
            topics: Some(vec!["orders".into()]),
            ..KafkaSource::default()
        }));
        (old, new)
    }

    #[test]
    fn fires_when_restored_splits_are_of_a_topic_not_subscribed() {
        let (old, new) = source(&["payments"]);
        let d = diff(&[old], &[new], RestoreOptions::default());
        assert!(ids(&d).contains(&"SOURCE_READS_FOREIGN_TOPIC"));
        let (old, new) = source(&["orders"]);
        let d = diff(&[old], &[new], RestoreOptions::default());
        assert!(!ids(&d).contains(&"SOURCE_READS_FOREIGN_TOPIC"));
    }

    #[test]
    fn patterns_match_whole_topic_names() {
        let config = KafkaSource {
            topic_pattern: Some("orders-.*".into()),
            ..KafkaSource::default()
        };
        assert_eq!(subscribed(&config, "orders-eu"), Some(true));
        assert_eq!(subscribed(&config, "old-orders-eu"), Some(false));
        let restored = [("orders-eu".to_string(), 3, "7".to_string())];
        assert_eq!(
            reads(&restored, Some(&config)),
            Some(vec![
                "orders-eu".to_string(),
                "pattern:orders-.*".to_string()
            ])
        );
    }
}
