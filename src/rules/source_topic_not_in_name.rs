//! `SOURCE_TOPIC_NOT_IN_NAME`: Kafka sources whose splits read topics their name does not mention.

use super::*;

/// The rule.
pub static RULE: Rule = Rule {
    id: "SOURCE_TOPIC_NOT_IN_NAME",
    category: Category::Restore,
    default_severity: Severity::Info,
    summary: "A Kafka source's splits read topics its name or uid mentions.",
    explain: "The savepoint's splits say which topics a source reads. When none of them appears in the operator's name or uid, the state may belong to another source (the classic shift: a loop of sources without uids, one inserted in the middle). A hint, not proof: names need not mention topics.",
    title: "source reads topics its name does not mention",
    help: "see the rule's explanation",
    checks: &[Check::State(check)],
};

fn check(ctx: &StateContext<'_>) -> Vec<Finding> {
    ctx.with_state()
        .filter_map(|(input, o, s)| {
            let names: Vec<&str> = [o.name.as_deref(), o.uid.as_deref()]
                .into_iter()
                .flatten()
                .collect();
            if names.is_empty() || s.topics.is_empty() {
                return None;
            }
            if s.topics
                .iter()
                .any(|t| names.iter().any(|n| n.contains(t.as_str())))
            {
                return None;
            }
            let msg = format!(
                "{} holds splits of topics {} that its name and uid do not mention",
                old_label(o),
                s.topics.join(", ")
            );
            Some(Finding::new(&RULE, msg, input).on(o.id, o.uid.as_deref(), o.name.as_deref()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::diff::StateInfo;

    #[test]
    fn fires_when_no_topic_is_in_the_name() {
        let topics = |t: &str| StateInfo {
            topics: vec![t.into()],
            ..StateInfo::default()
        };
        assert_eq!(
            state_ids(&[with_state("Source: orders", topics("payments"))]),
            ["SOURCE_TOPIC_NOT_IN_NAME"]
        );
        assert!(state_ids(&[with_state("Source: orders", topics("orders"))]).is_empty());
    }
}
