//! Findings from a restore prediction.

use super::*;
use crate::diff::{label, Diff, Status};
use std::collections::HashMap;

/// The findings of the restore rules for `diff`; `input` names the NEW argument.
pub fn check_diff(d: &Diff, input: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for e in &d.entries {
        let old = e.old.as_ref();
        let new = e.new.as_ref();
        let (id, uid, name) = match (new, old) {
            (Some(n), _) => (n.id, n.uid.as_deref(), n.name.as_deref()),
            (None, Some(o)) => (o.id, o.uid.as_deref(), o.name.as_deref()),
            (None, None) => continue,
        };
        let rule = match e.status {
            Status::Shifted => &STATE_SHIFTED,
            Status::Orphaned => &STATE_ORPHANED,
            Status::MaxParallelismMismatch => &MAX_PARALLELISM_MISMATCH,
            Status::Unverified => &MATCH_UNVERIFIED,
            Status::SkippedEmpty => &STATE_DROPPED_EMPTY,
            Status::New if new.is_some_and(|n| n.is_source()) => &SOURCE_STARTS_EMPTY,
            // A restored operator without uid is found by the graph rules, from `restored_state`.
            Status::New | Status::Restored => continue,
        };
        let subject = match (old, new) {
            (Some(o), Some(n)) => format!(
                "{} ← state of {}",
                label(&n.id, n.uid.as_deref(), n.name.as_deref()),
                label(&o.id, o.uid.as_deref(), o.name.as_deref())
            ),
            (Some(o), None) => label(&o.id, o.uid.as_deref(), o.name.as_deref()),
            (None, Some(n)) => label(&n.id, n.uid.as_deref(), n.name.as_deref()),
            (None, None) => continue,
        };
        let mut f = Finding::new(rule, format!("{subject}: {}", e.note), input)
            .on(id, uid, name)
            .at(new.and_then(|n| n.defined_at.as_ref()));
        f.detail = Some(e.note.clone());
        out.push(f);
    }
    out
}

/// The bytes of state each new operator receives (restored, shifted or unverified), by its ID: what makes
/// it stateful for the graph rules when NEW is a manifest. As in `Statefulness::of_savepoint`, handles of
/// 0 bytes do not count.
pub fn restored_state(d: &Diff) -> HashMap<OperatorId, i64> {
    d.entries
        .iter()
        .filter_map(|e| {
            let s = e
                .old
                .as_ref()?
                .state
                .as_ref()
                .filter(|s| !s.empty && s.bytes > 0)?;
            Some((e.new.as_ref()?.id, s.bytes))
        })
        .collect()
}
