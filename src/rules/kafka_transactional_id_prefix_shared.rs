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
    title: "Kafka sinks share a transactional id prefix",
    help: "give every KafkaSink its own setTransactionalIdPrefix",
    checks: &[Check::State(check), Check::Graph(check_graph)],
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
            // One writer per input and operator: two jobs with the same uids are two writers.
            let writers = &mut by_prefix[i].1;
            if !writers.iter().any(|(at, w)| *at == input && w.id == o.id) {
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

/// Two Kafka sinks of one job graph configured with the same prefix.
fn check_graph(ctx: &GraphContext<'_>) -> Vec<Finding> {
    let sinks: Vec<_> = ctx
        .kafka_sinks()
        .filter_map(|(op, k)| Some((op, k.transactional_id_prefix.as_deref()?)))
        .collect();
    let mut out = Vec::new();
    for (op, prefix) in &sinks {
        let others: Vec<String> = sinks
            .iter()
            .filter(|(o, p)| p == prefix && o.id != op.id)
            .map(|(o, _)| ctx.label(o))
            .collect();
        if !others.is_empty() {
            let msg = format!(
                "transactional id prefix {prefix:?} of {} is also the prefix of {}",
                ctx.label(op),
                others.join(", ")
            );
            out.push(ctx.finding(&RULE, op, msg));
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

    #[test]
    fn fires_on_two_sinks_of_one_manifest_with_one_prefix() {
        use crate::graph::{Connector, KafkaSink};
        let sink = |id: &str, p: &str| {
            let mut op = new_op(id, &format!("{id}: Writer"));
            op.uid = Some(id.into());
            op.connector = Some(Connector::KafkaSink(KafkaSink {
                transactional_id_prefix: Some(p.into()),
                ..KafkaSink::default()
            }));
            op
        };
        let shared = graph_ids(&[sink("a", "p"), sink("b", "p")], true);
        assert_eq!(shared, ["KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED"; 2]);
        assert!(graph_ids(&[sink("a", "p"), sink("b", "q")], true).is_empty());
    }
}
