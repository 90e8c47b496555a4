//! Findings from a restore prediction.

use super::*;
use crate::diff::{label, Diff, Status};

/// The findings of the restore rules for `diff`; `input` names the NEW argument; `uids_known` tells whether
/// NEW records uids (see [`super::check_graph`]).
pub fn check_diff(d: &Diff, input: &str, uids_known: bool) -> Vec<Finding> {
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
            Status::New | Status::Restored => {
                // A stateful operator restored through a positional ID is one insert away from a shift.
                if let (Some(n), Some(s)) = (new, old.and_then(|o| o.state.as_ref())) {
                    if uids_known && n.uid.is_none() && n.uid_hash.is_none() && !s.empty {
                        out.push(
                            Finding::new(
                                &STATEFUL_OPERATOR_WITHOUT_UID,
                                format!(
                                    "{} restores {} of state without a uid: its ID depends on its position in the graph",
                                    label(&n.id, None, n.name.as_deref()),
                                    crate::report::human_bytes(s.bytes)
                                ),
                                input,
                            )
                            .on(id, uid, name),
                        );
                    }
                }
                continue;
            }
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
        out.push(Finding::new(rule, format!("{subject}: {}", e.note), input).on(id, uid, name));
    }
    out
}
