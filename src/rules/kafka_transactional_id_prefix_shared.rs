//! `KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED`: Kafka sink writers sharing a transactional id prefix, across
//! every input given together.

use super::*;
use std::collections::HashMap;

/// The rule.
pub static RULE: Rule = Rule {
    id: "KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED",
    category: Category::StateLoss,
    default_severity: Severity::Error,
    summary: "Every exactly-once Kafka sink has its own transactional id prefix.",
    explain: "Two Kafka sink writers (in one savepoint, or in savepoints given together) record the same transactional id prefix. Kafka allows one producer per transactional id: the sinks fence each other, aborting each other's transactions, and the restore of one can abort the other's pending data. Give every KafkaSink its own setTransactionalIdPrefix.",
    check: Check::State(check),
};

fn check(ctx: &StateContext<'_>) -> Vec<Finding> {
    let mut by_prefix: Vec<(&str, Vec<(&str, &OldOperator)>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (input, o, s) in ctx.with_state() {
        for p in &s.transactional_id_prefixes {
            let i = *index.entry(p.as_str()).or_insert_with(|| {
                by_prefix.push((p.as_str(), Vec::new()));
                by_prefix.len() - 1
            });
            let writers = &mut by_prefix[i].1;
            if !writers.iter().any(|(_, w)| w.id == o.id) {
                writers.push((input, o));
            }
        }
    }
    let mut out = Vec::new();
    for (prefix, writers) in by_prefix.iter().filter(|(_, w)| w.len() > 1) {
        let all: Vec<String> = writers
            .iter()
            .map(|(p, o)| format!("{} in {p}", old_label(o)))
            .collect();
        for (input, o) in writers {
            let msg = format!(
                "transactional id prefix {prefix:?} is used by {}",
                all.join(" and ")
            );
            out.push(Finding::new(&RULE, msg, input).on(o.id, o.uid.as_deref(), o.name.as_deref()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::diff::StateInfo;

    #[test]
    fn fires_on_a_shared_prefix_only() {
        let prefix = |p: &str| StateInfo {
            transactional_id_prefixes: vec![p.into()],
            ..StateInfo::default()
        };
        let shared = [with_state("a", prefix("p")), with_state("b", prefix("p"))];
        assert_eq!(
            state_ids(&shared),
            ["KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED"; 2]
        );
        assert!(
            state_ids(&[with_state("a", prefix("p")), with_state("b", prefix("q"))]).is_empty()
        );
    }
}
