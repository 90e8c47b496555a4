//! Findings from what the state says (splits, transactions), read from the state files of savepoints.

use super::*;
use crate::diff::{label, OldOperator};
use std::collections::HashMap;

/// Pending transactions, and Kafka sources whose topics their name does not mention.
pub fn check_state(ops: &[OldOperator], input: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for o in ops {
        let Some(s) = &o.state else { continue };
        let this = label(&o.id, o.uid.as_deref(), o.name.as_deref());
        let on = |f: Finding| f.on(o.id, o.uid.as_deref(), o.name.as_deref());
        if !s.pending_transactions.is_empty() {
            let shown: Vec<&str> = s
                .pending_transactions
                .iter()
                .take(5)
                .map(String::as_str)
                .collect();
            out.push(on(Finding::new(
                &KAFKA_PENDING_TRANSACTIONS,
                format!(
                    "{this} has {} pending Kafka transactions, committed (or lost) on restore: {}{}",
                    s.pending_transactions.len(),
                    shown.join(", "),
                    if s.pending_transactions.len() > 5 { ", …" } else { "" }
                ),
                input,
            )));
        }
        let names = [o.name.as_deref(), o.uid.as_deref()];
        let known = names.iter().flatten().count() > 0;
        if known && !s.topics.is_empty() {
            let mentioned = s
                .topics
                .iter()
                .any(|t| names.iter().flatten().any(|n| n.contains(t.as_str())));
            if !mentioned {
                out.push(on(Finding::new(
                    &SOURCE_TOPIC_NOT_IN_NAME,
                    format!(
                        "{this} holds splits of topics {} that its name and uid do not mention",
                        s.topics.join(", ")
                    ),
                    input,
                )));
            }
        }
    }
    out
}

/// Kafka sink writers sharing a transactional id prefix, across all `inputs` (path, operators).
pub fn check_shared_prefixes(inputs: &[(&str, &[OldOperator])]) -> Vec<Finding> {
    let mut by_prefix: HashMap<&str, Vec<(&str, &OldOperator)>> = HashMap::new();
    for (path, ops) in inputs {
        for o in ops.iter() {
            for p in o.state.iter().flat_map(|s| &s.transactional_id_prefixes) {
                let writers = by_prefix.entry(p.as_str()).or_default();
                if !writers.iter().any(|(_, w)| w.id == o.id) {
                    writers.push((path, o));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (prefix, writers) in by_prefix {
        if writers.len() < 2 {
            continue;
        }
        let all: Vec<String> = writers
            .iter()
            .map(|(p, o)| {
                format!(
                    "{} in {p}",
                    label(&o.id, o.uid.as_deref(), o.name.as_deref())
                )
            })
            .collect();
        for (path, o) in &writers {
            out.push(
                Finding::new(
                    &KAFKA_TRANSACTIONAL_ID_PREFIX_SHARED,
                    format!(
                        "transactional id prefix {prefix:?} is used by {}",
                        all.join(" and ")
                    ),
                    path,
                )
                .on(o.id, o.uid.as_deref(), o.name.as_deref()),
            );
        }
    }
    out
}
