//! Findings on one job graph (hygiene rules), for `lint` and for the NEW side of `diff`.

use super::*;
use crate::diff::{label, OldOperator};
use crate::graph::GraphOperator;
use std::collections::HashMap;

/// Names PyFlink gives the operators it inserts.
const PYFLINK_HIDDEN: [&str; 3] = [
    "_stream_key_by_map_operator",
    "_keyed_stream_values_operator",
    "_partition_custom_map_operator",
];

/// Default names of PyFlink's Python operators (what fused operator names are made of).
const PYFLINK_DEFAULT_NAMES: [&str; 13] = [
    "Map",
    "FlatMap",
    "Filter",
    "Reduce",
    "PROCESS",
    "KEYED PROCESS",
    "Co-Map",
    "Co-Flat Map",
    "Co-Process",
    "Keyed Co-Process",
    "_stream_key_by_map_operator",
    "_keyed_stream_values_operator",
    "_partition_custom_map_operator",
];

fn is_sink_part(name: &str) -> bool {
    name.ends_with(": Writer")
        || name.ends_with(": Committer")
        || name.ends_with("Global Committer")
}

/// What is known of which operators of a graph hold state.
#[derive(Debug, Clone, Default)]
pub struct Statefulness {
    /// Bytes of state an operator holds (the graph is a savepoint) or restores (from a diff), by ID.
    pub bytes: HashMap<OperatorId, i64>,
    /// Whether an operator absent from `bytes` is known to hold none (the graph is a savepoint); else
    /// the manifest's `stateful` decides, and where it is null nobody knows.
    pub complete: bool,
}

impl Statefulness {
    /// The states of `state` (a savepoint's operators) that hold bytes, complete. Handles of 0 bytes
    /// (the placeholders Flink writes for every operator under file merging) hold nothing to misplace.
    pub fn of_savepoint(state: &[OldOperator]) -> Self {
        Statefulness {
            bytes: state
                .iter()
                .filter_map(|o| {
                    o.state
                        .as_ref()
                        .filter(|s| !s.empty && s.bytes > 0)
                        .map(|s| (o.id, s.bytes))
                })
                .collect(),
            complete: true,
        }
    }
}

/// The hygiene findings for a graph. `state` says which operators hold state. `uids_known` is false for
/// savepoints of formats before 5, which record no uids: a missing uid there means "not recorded", not
/// "not set", and the uid rules do not run (the caller reports that as [`RULES_NOT_CHECKED`]).
pub fn check_graph(
    ops: &[GraphOperator],
    state: &Statefulness,
    input: &str,
    uids_known: bool,
) -> Vec<Finding> {
    let mut out = Vec::new();
    // Operators without uid whose statefulness nobody knows (a manifest's `stateful: null`).
    let mut unknown = Vec::new();
    // Whether an operator holds state: known from the savepoint or the diff, else from the manifest.
    let holds = |op: &GraphOperator| -> Option<bool> {
        if state.bytes.contains_key(&op.id) {
            Some(true)
        } else if state.complete {
            Some(false)
        } else {
            op.stateful
        }
    };
    // PyFlink's hidden operators shift the positional IDs after them: that matters when some operator
    // that may hold state has a positional ID.
    let positional_state = ops
        .iter()
        .any(|o| o.uid.is_none() && o.uid_hash.is_none() && holds(o) != Some(false));
    let mut by_uid: HashMap<&str, &GraphOperator> = HashMap::new();
    let mut by_id: HashMap<OperatorId, &GraphOperator> = HashMap::new();
    for op in ops {
        let uid = op.uid.as_deref();
        let name = op.name.as_deref();
        let this = label(&op.id, uid, name);
        let f = |rule, msg: String| {
            Finding::new(rule, msg, input)
                .on(op.id, uid, name)
                .at(op.defined_at.as_ref())
        };
        if let Some(u) = uid {
            if let Some(prev) = by_uid.insert(u, op) {
                out.push(f(
                    &UID_DUPLICATE,
                    format!(
                        "uid {u:?} is set on {} and on {this}",
                        label(&prev.id, None, prev.name.as_deref())
                    ),
                ));
            }
        }
        for id in std::iter::once(op.id).chain(op.uid_hash) {
            if let Some(prev) = by_id.insert(id, op) {
                if prev.uid.is_none() || prev.uid != op.uid {
                    out.push(f(
                        &UID_HASH_COLLISION,
                        format!(
                            "{this} and {} have the same operator ID {id}",
                            label(&prev.id, prev.uid.as_deref(), prev.name.as_deref())
                        ),
                    ));
                }
            }
        }
        if uids_known && uid.is_none() && op.uid_hash.is_none() {
            let sink = name.is_some_and(is_sink_part);
            let stateful = "holds state and has no uid: its ID is its position in the graph";
            let finding = if let Some(bytes) = state.bytes.get(&op.id) {
                f(
                    &STATEFUL_OPERATOR_WITHOUT_UID,
                    format!(
                        "{this} holds {} of state and has no uid: its ID depends on its position in the graph",
                        crate::report::human_bytes(*bytes)
                    ),
                )
                .detail(stateful)
            } else if holds(op) == Some(true) {
                f(
                    &STATEFUL_OPERATOR_WITHOUT_UID,
                    format!("{this} holds state (says the manifest) and has no uid: its ID depends on its position in the graph"),
                )
                .detail(stateful)
            } else if sink {
                f(
                    &SINK_WITHOUT_UID,
                    format!("{this} is part of a Sink V2 without a uid"),
                )
                .detail("part of a Sink V2 without a uid")
            } else {
                if holds(op).is_none() {
                    unknown.push(this.clone());
                }
                f(&OPERATOR_WITHOUT_UID, format!("{this} has no uid")).detail("has no uid")
            };
            out.push(finding);
        }
        if let Some(n) = name {
            let parts: Vec<&str> = n.split(", ").collect();
            let hidden = PYFLINK_HIDDEN.iter().find(|h| parts.contains(h));
            if let (Some(h), true) = (hidden, positional_state) {
                out.push(
                    f(
                        &PYFLINK_HIDDEN_OPERATOR,
                        format!("{this} is (or contains) the operator PyFlink inserts as {h}"),
                    )
                    .detail("inserted by PyFlink: it takes a position before operators whose IDs are positional"),
                );
            }
            let fused = parts.len() > 1 && parts.iter().any(|p| PYFLINK_DEFAULT_NAMES.contains(p));
            // A dropped uid matters where the fused operator may hold state and has none.
            if fused && uid.is_none() && holds(op) != Some(false) {
                out.push(
                    f(
                        &PYFLINK_FUSED_UID_DROPPED,
                        format!(
                            "{this} is {} PyFlink operators fused into one: a .uid() set on any but {:?} was dropped",
                            parts.len(),
                            parts.first().copied().unwrap_or_default()
                        ),
                    )
                    .detail("Python operators fused into one, without uid: only a .uid() on the first part is kept"),
                );
            }
        }
    }
    if !unknown.is_empty() {
        out.push(Finding::new(
            &RULES_NOT_CHECKED,
            format!(
                "STATEFUL_OPERATOR_WITHOUT_UID not checked for {}: the manifest does not say whether {} state ({}); write it with the current graph helper (contrib/), which records \"stateful\"",
                plural(unknown.len(), "operator without uid", "operators without uid"),
                if unknown.len() == 1 { "it holds" } else { "they hold" },
                first_few(&unknown)
            ),
            input,
        ));
    }
    out
}
