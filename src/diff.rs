//! What Flink will do with OLD's state when NEW starts from it: Flink's restore rules, operator by operator.
//!
//! Flink matches each operator state in the savepoint to the operator of the new job whose generated ID
//! or user-defined hash (`setUidHash`) equals the state's operator ID; names, uids and code are never
//! compared. Then (`Checkpoints.loadAndValidateCheckpoint`): unmatched empty state is skipped; unmatched
//! non-empty state fails the restore, or is dropped with `allowNonRestoredState`; a matched operator whose
//! explicitly configured max parallelism differs from the savepoint's fails the restore, with or
//! without state. sp-inspect also compares the identity (uid, else name) of both sides of every match:
//! Flink restores a "shifted" match without complaint, and that is the bug this tool exists to catch.

use crate::graph::GraphOperator;
use crate::model::OperatorId;
use crate::stats::StateKind;

/// What OLD records about one operator's state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OldOperator {
    /// The operator ID the state is stored under.
    pub id: OperatorId,
    /// Name, when known (format 5+, or from `--old-graph`).
    pub name: Option<String>,
    /// Uid, when known.
    pub uid: Option<String>,
    /// Parallelism, when known.
    pub parallelism: Option<i32>,
    /// Max parallelism recorded in the savepoint.
    pub max_parallelism: Option<i32>,
    /// The state, when OLD is a savepoint; `None` when OLD is a graph (state unknown).
    pub state: Option<StateInfo>,
    /// Whether it is a source.
    pub source: bool,
}

/// What state an operator holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StateInfo {
    /// Flink's state size.
    pub bytes: i64,
    /// Flink's notion of empty: no coordinator state and no subtask handle.
    pub empty: bool,
    /// Kinds of state present.
    pub kinds: Vec<StateKind>,
    /// Names of operator (non-keyed) states.
    pub operator_states: Vec<String>,
    /// What a source resumes from, read from its splits (`kafka orders-3 @ 42`, `file …`), when read.
    pub resumes: Vec<String>,
    /// Kafka topics in the source's splits and enumerator.
    pub topics: Vec<String>,
    /// The Kafka splits a source resumes from: topic, partition, starting offset (or marker).
    pub kafka_splits: Vec<(String, i32, String)>,
    /// Transactional id prefixes of a Kafka sink writer.
    pub transactional_id_prefixes: Vec<String>,
    /// Pending (precommitted, not committed) Kafka transactions.
    pub pending_transactions: Vec<String>,
}

impl StateInfo {
    /// ", resumes …" for notes, when the state says what a source resumes from.
    fn resumes_text(&self) -> String {
        match self.resumes.len() {
            0 => String::new(),
            1..=3 => format!("; resumes {}", self.resumes.join(", ")),
            n => format!(
                "; resumes {} and {} more splits",
                self.resumes[..3].join(", "),
                n - 3
            ),
        }
    }
}

/// The outcome for one old state or new operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// The state goes to the same operator (same uid, or same name).
    Restored,
    /// The state goes to a different operator (uid or name differ).
    Shifted,
    /// Matched by position only, and names are unknown: cannot be checked.
    Unverified,
    /// No operator claims non-empty state: the restore fails, or the state is dropped.
    Orphaned,
    /// No operator claims the state, but it is empty: Flink skips it.
    SkippedEmpty,
    /// A new operator that claims no state: it starts empty.
    New,
    /// Max parallelism of the new job is incompatible with the savepoint's: the restore fails.
    MaxParallelismMismatch,
}

impl Status {
    /// Stable name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Status::Restored => "restored",
            Status::Shifted => "shifted",
            Status::Unverified => "unverified",
            Status::Orphaned => "orphaned",
            Status::SkippedEmpty => "skipped_empty",
            Status::New => "new",
            Status::MaxParallelismMismatch => "max_parallelism_mismatch",
        }
    }
}

/// How a new operator claimed the old state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchedBy {
    /// Its generated ID (the uid's hash, or the positional hash).
    Id,
    /// Its user-defined hash (`setUidHash`).
    UidHash,
}

/// One line of the diff.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The outcome.
    pub status: Status,
    /// Position of the new operator in NEW (0-based), when there is one.
    pub position: Option<usize>,
    /// The old state, when there is one.
    pub old: Option<OldOperator>,
    /// The new operator, when there is one.
    pub new: Option<GraphOperator>,
    /// How the match was made.
    pub matched_by: Option<MatchedBy>,
    /// Why, in one sentence.
    pub note: String,
}

impl Entry {
    /// State bytes of the old side, when known.
    pub fn state_bytes(&self) -> Option<i64> {
        self.old
            .as_ref()
            .and_then(|o| o.state.as_ref())
            .map(|s| s.bytes)
    }
}

/// Flink's overall decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The job starts and restores every non-empty state.
    Restores,
    /// The job starts; some state is dropped (`allowNonRestoredState`).
    RestoresDroppingState,
    /// Flink refuses to start the job from the savepoint.
    Fails,
}

impl Verdict {
    /// Stable name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Restores => "restores",
            Verdict::RestoresDroppingState => "restores_dropping_state",
            Verdict::Fails => "fails",
        }
    }
}

/// Options of the restore being predicted.
#[derive(Debug, Clone, Copy, Default)]
pub struct RestoreOptions {
    /// `--allow-non-restored-state` (`execution.state-recovery.ignore-unclaimed-state`).
    pub allow_non_restored_state: bool,
}

/// The whole prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    /// Flink's decision.
    pub verdict: Verdict,
    /// Why, one sentence per cause, in Flink's terms.
    pub reasons: Vec<String>,
    /// New operators in NEW's order (each with the state it claims), then unclaimed old states.
    pub entries: Vec<Entry>,
}

/// A short label for an operator: uid, else name, else ID.
pub fn label(id: &OperatorId, uid: Option<&str>, name: Option<&str>) -> String {
    match (uid, name) {
        (Some(u), Some(n)) if u != n => format!("{n} (uid {u})"),
        (Some(u), _) => format!("uid {u}"),
        (None, Some(n)) => n.to_string(),
        (None, None) => id.to_string(),
    }
}

fn old_label(o: &OldOperator) -> String {
    label(&o.id, o.uid.as_deref(), o.name.as_deref())
}

enum Identity {
    Same,
    Different(String),
    Unknown,
}

fn identity(old: &OldOperator, new: &GraphOperator, by: MatchedBy) -> Identity {
    if by == MatchedBy::UidHash {
        // setUidHash is an explicit mapping made by the user: a renamed uid keeps its state on purpose.
        return Identity::Same;
    }
    if let (Some(a), Some(b)) = (&old.uid, &new.uid) {
        return if a == b {
            Identity::Same
        } else {
            Identity::Different(format!("uid {a:?} → {b:?}"))
        };
    }
    match (&old.name, &new.name) {
        (Some(a), Some(b)) if a == b => Identity::Same,
        (Some(a), Some(b)) => Identity::Different(format!("name {a:?} → {b:?}")),
        _ => Identity::Unknown,
    }
}

fn bytes_text(state: Option<&StateInfo>) -> String {
    match state {
        Some(s) if s.empty => "no state".into(),
        Some(s) => crate::report::human_bytes(s.bytes),
        None => "state unknown".into(),
    }
}

/// Predicts the restore of `old` (the operator states of a savepoint, or the operators of the old job)
/// into the job `new`.
pub fn diff(old: &[OldOperator], new: &[GraphOperator], opts: RestoreOptions) -> Diff {
    use std::collections::{HashMap, HashSet};
    // As Flink assigns state (StateAssignmentOperation): each operator, in task order, takes the state
    // under its user-defined ID (setUidHash) when the snapshot has one, else the state under its
    // generated ID, and removes it: a later operator with the same ID gets nothing.
    let mut unassigned: HashMap<OperatorId, usize> =
        old.iter().enumerate().map(|(j, o)| (o.id, j)).collect();
    let mut claimed: Vec<Option<(usize, MatchedBy)>> = vec![None; old.len()];
    let mut claims_of: Vec<Vec<usize>> = vec![Vec::new(); new.len()];
    for (i, n) in new.iter().enumerate() {
        let pick = match n.uid_hash {
            Some(h) if unassigned.contains_key(&h) => Some((h, MatchedBy::UidHash)),
            _ if unassigned.contains_key(&n.id) => Some((n.id, MatchedBy::Id)),
            _ => None,
        };
        if let Some((j, by)) = pick.and_then(|(id, by)| unassigned.remove(&id).map(|j| (j, by))) {
            claimed[j] = Some((i, by));
            if let Some(c) = claims_of.get_mut(i) {
                c.push(j);
            }
        }
    }
    // Flink's completeness check accepts a state whose ID is any operator's generated or user-defined
    // ID, whether or not that operator took it.
    let known: HashSet<OperatorId> = new
        .iter()
        .flat_map(|n| std::iter::once(n.id).chain(n.uid_hash))
        .collect();

    let mut entries = Vec::new();
    let mut reasons = Vec::new();
    let mut fails = false;
    let mut dropping = false;
    for (i, n) in new.iter().enumerate() {
        let claims = claims_of.get(i).map(Vec::as_slice).unwrap_or_default();
        if claims.is_empty() {
            let note = if n.is_source() {
                "new operator, starts empty: a source without restored splits/offsets reads from its configured start position (re-reads or skips data)".to_string()
            } else {
                "new operator, starts empty".to_string()
            };
            entries.push(Entry {
                status: Status::New,
                position: Some(i),
                old: None,
                new: Some(n.clone()),
                matched_by: None,
                note,
            });
            continue;
        }
        for &j in claims {
            let Some(o) = old.get(j) else { continue };
            let by = claimed
                .get(j)
                .copied()
                .flatten()
                .map_or(MatchedBy::Id, |(_, b)| b);
            let effective_max = n.max_parallelism.or(o.max_parallelism);
            let (status, note) = match (n.max_parallelism, o.max_parallelism) {
                (Some(new_max), Some(old_max)) if new_max != old_max => {
                    fails = true;
                    reasons.push(format!(
                        "Max parallelism mismatch: operator {} has max parallelism {old_max} in the savepoint and {new_max} configured in the new job; Flink fails the restore, with or without state",
                        o.id
                    ));
                    (
                        Status::MaxParallelismMismatch,
                        format!("max parallelism {old_max} → {new_max} (explicitly configured)"),
                    )
                }
                _ => match (n.parallelism, effective_max) {
                    (Some(p), Some(max)) if p > max => {
                        fails = true;
                        reasons.push(format!(
                            "operator {}: parallelism {p} is above the max parallelism {max} of the restored state; Flink fails the restore",
                            o.id
                        ));
                        (
                            Status::MaxParallelismMismatch,
                            format!("parallelism {p} above max parallelism {max}"),
                        )
                    }
                    _ => {
                        let empty = o.state.as_ref().is_some_and(|s| s.empty);
                        match identity(o, n, by) {
                            Identity::Same => (
                                Status::Restored,
                                format!(
                                    "restores {}{}",
                                    bytes_text(o.state.as_ref()),
                                    o.state.as_ref().map(StateInfo::resumes_text).unwrap_or_default()
                                ),
                            ),
                            Identity::Different(what) if empty => {
                                (Status::Restored, format!("no state to restore; identity differs ({what})"))
                            }
                            Identity::Different(what) => (
                                Status::Shifted,
                                format!(
                                    "same operator ID, different operator ({what}): receives its state{}",
                                    o.state.as_ref().map(StateInfo::resumes_text).unwrap_or_default()
                                ),
                            ),
                            Identity::Unknown if empty => (Status::Restored, "no state to restore".into()),
                            Identity::Unknown => (
                                Status::Unverified,
                                "matched by position (no uid on either side) and the old names are unknown: pass --old-graph to check"
                                    .into(),
                            ),
                        }
                    }
                },
            };
            entries.push(Entry {
                status,
                position: Some(i),
                old: Some(o.clone()),
                new: Some(n.clone()),
                matched_by: Some(by),
                note,
            });
        }
    }
    for (j, o) in old.iter().enumerate() {
        if claimed.get(j).copied().flatten().is_some() {
            continue;
        }
        let (status, note) = match &o.state {
            Some(s) if s.empty => (
                Status::SkippedEmpty,
                "claimed by no operator; empty, so Flink skips it".to_string(),
            ),
            state if known.contains(&o.id) => {
                // Passes Flink's check (an operator has this ID), but the operator took another state.
                dropping = true;
                let holder = new
                    .iter()
                    .find(|n| n.id == o.id || n.uid_hash == Some(o.id))
                    .map_or_else(
                        || o.id.to_string(),
                        |n| label(&n.id, n.uid.as_deref(), n.name.as_deref()),
                    );
                let size = bytes_text(state.as_ref());
                reasons.push(format!(
                    "state of operator {} ({}, {size}) is restored by no operator: {holder} has its ID but takes the state of its setUidHash; Flink neither restores nor reports it, even without allowNonRestoredState",
                    o.id,
                    old_label(o)
                ));
                (
                    Status::Orphaned,
                    format!("not restored, silently: {holder} has this ID but takes another state ({size})"),
                )
            }
            state => {
                let size = bytes_text(state.as_ref());
                if opts.allow_non_restored_state {
                    dropping = true;
                    reasons.push(format!(
                        "state of operator {} ({}, {size}) is claimed by no operator of the new job and is dropped (allowNonRestoredState)",
                        o.id,
                        old_label(o)
                    ));
                    (
                        Status::Orphaned,
                        format!("claimed by no operator: dropped ({size})"),
                    )
                } else {
                    fails = true;
                    reasons.push(format!(
                        "Cannot map checkpoint/savepoint state for operator {} ({}, {size}) to the new program: Flink fails the restore unless allowNonRestoredState is set",
                        o.id,
                        old_label(o)
                    ));
                    (
                        Status::Orphaned,
                        format!("claimed by no operator: the restore fails ({size})"),
                    )
                }
            }
        };
        entries.push(Entry {
            status,
            position: None,
            old: Some(o.clone()),
            new: None,
            matched_by: None,
            note,
        });
    }
    let verdict = if fails {
        Verdict::Fails
    } else if dropping {
        Verdict::RestoresDroppingState
    } else {
        Verdict::Restores
    };
    Diff {
        verdict,
        reasons,
        entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::operator_id;

    fn old(name: &str, bytes: i64) -> OldOperator {
        OldOperator {
            id: operator_id(name),
            name: Some(name.into()),
            max_parallelism: Some(128),
            state: Some(StateInfo {
                bytes,
                empty: bytes == 0,
                ..StateInfo::default()
            }),
            ..OldOperator::default()
        }
    }

    fn new(id_of: &str, name: &str) -> GraphOperator {
        GraphOperator {
            id: operator_id(id_of),
            name: Some(name.into()),
            ..GraphOperator::default()
        }
    }

    fn statuses(d: &Diff) -> Vec<Status> {
        d.entries.iter().map(|e| e.status).collect()
    }

    #[test]
    fn same_id_different_name_is_shifted_and_flink_still_restores() {
        let d = diff(
            &[old("p1", 10)],
            &[new("p1", "other")],
            RestoreOptions::default(),
        );
        assert_eq!(statuses(&d), [Status::Shifted]);
        assert_eq!(d.verdict, Verdict::Restores);
    }

    #[test]
    fn unclaimed_state_fails_unless_allowed_and_empty_state_is_skipped() {
        let olds = [old("gone", 10), old("empty", 0)];
        let d = diff(&olds, &[], RestoreOptions::default());
        assert_eq!(statuses(&d), [Status::Orphaned, Status::SkippedEmpty]);
        assert_eq!(d.verdict, Verdict::Fails);
        let d = diff(
            &olds,
            &[],
            RestoreOptions {
                allow_non_restored_state: true,
            },
        );
        assert_eq!(d.verdict, Verdict::RestoresDroppingState);
    }

    #[test]
    fn explicit_max_parallelism_must_match_even_without_state() {
        let mut n = new("empty", "empty");
        n.max_parallelism = Some(256);
        let d = diff(&[old("empty", 0)], &[n.clone()], RestoreOptions::default());
        assert_eq!(
            (statuses(&d), d.verdict),
            (vec![Status::MaxParallelismMismatch], Verdict::Fails)
        );
        n.max_parallelism = None;
        n.parallelism = Some(200);
        let d = diff(&[old("empty", 0)], &[n], RestoreOptions::default());
        assert_eq!(
            d.verdict,
            Verdict::Fails,
            "parallelism above the adopted max parallelism"
        );
    }

    #[test]
    fn the_first_operator_with_an_id_takes_the_state_as_flink_assigns_it() {
        // A neighbour whose generated ID is the old ID comes first: it takes the state, and the operator
        // given setUidHash(old ID) after it gets nothing (seen on Flink 2.3).
        let mut b = new("b-new", "b");
        b.uid_hash = Some(operator_id("b"));
        let d = diff(
            &[old("b", 10)],
            &[new("b", "x"), b],
            RestoreOptions::default(),
        );
        assert_eq!(statuses(&d), [Status::Shifted, Status::New]);
    }

    #[test]
    fn a_state_under_the_generated_id_of_an_operator_taking_its_uid_hash_is_silently_lost() {
        // The operator's generated ID is "x"'s: Flink's check passes, but it takes "b" through setUidHash.
        let mut n = new("x", "b");
        n.uid_hash = Some(operator_id("b"));
        let d = diff(
            &[old("b", 10), old("x", 5)],
            &[n],
            RestoreOptions::default(),
        );
        assert_eq!(statuses(&d), [Status::Restored, Status::Orphaned]);
        assert_eq!(d.verdict, Verdict::RestoresDroppingState);
        assert!(
            d.reasons[0].contains("even without allowNonRestoredState"),
            "{:?}",
            d.reasons
        );
    }

    #[test]
    fn uid_hash_claims_state_and_positional_matches_without_names_are_unverified() {
        let mut n = new("new-uid", "x");
        n.uid_hash = Some(operator_id("p1"));
        let d = diff(&[old("p1", 10)], &[n], RestoreOptions::default());
        assert_eq!(
            (statuses(&d), d.entries[0].matched_by),
            (vec![Status::Restored], Some(MatchedBy::UidHash))
        );
        let mut o = old("p1", 10);
        o.name = None;
        let d = diff(&[o], &[new("p1", "x")], RestoreOptions::default());
        assert_eq!(statuses(&d), [Status::Unverified]);
    }
}
