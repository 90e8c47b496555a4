//! Fixes: the changes to the new job that make Flink put every old state into the operator it was meant
//! for. Each old state is paired with its intended new operator (same uid, else the same name), and each
//! new operator gets at most one fix: claim a state with `setUidHash`, get a uid of its own so that its
//! positional ID stops taking a neighbour's state, or take back a renamed uid. A changed max parallelism
//! gets one job-wide fix. Whether a fix works is for a real restore to show (see `fixtures/*/cases/*-fixed`);
//! [`with_fixes`] re-runs the prediction on the IDs the fixes set.

use crate::diff::{diff, Diff, OldOperator, RestoreOptions, Status};
use crate::graph::GraphOperator;
use crate::hash::operator_id;
use crate::model::OperatorId;
use std::collections::{HashMap, HashSet};

/// What to change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FixKind {
    /// `setUidHash(old ID)`: the operator claims the state it was meant to restore (and, with `uid`, gets
    /// an ID of its own for the states it writes from then on).
    SetUidHash,
    /// `uid(...)`: the operator gets an ID of its own, so that its position no longer makes it take
    /// another operator's state.
    SetUid,
    /// `uid(old uid)`: a renamed uid is set back, and the operator claims its state again.
    KeepUid,
    /// Remove the explicit max parallelism (or set it back to the savepoint's).
    UnsetMaxParallelism,
}

impl FixKind {
    /// Stable name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            FixKind::SetUidHash => "set_uid_hash",
            FixKind::SetUid => "set_uid",
            FixKind::KeepUid => "keep_uid",
            FixKind::UnsetMaxParallelism => "unset_max_parallelism",
        }
    }
}

/// How an old state was paired with the new operator meant for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    /// The same uid: certain.
    Uid,
    /// The same name, unique on both sides: likely (names are not identities).
    Name,
}

impl Pairing {
    /// Stable name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Pairing::Uid => "uid",
            Pairing::Name => "name",
        }
    }
}

/// One change to the new job.
#[derive(Debug, Clone, PartialEq)]
pub struct Fix {
    /// What to change.
    pub kind: FixKind,
    /// The new operator to change (none for a job-wide fix).
    pub new_id: Option<OperatorId>,
    /// Its name.
    pub new_name: Option<String>,
    /// The old state it concerns.
    pub old_id: Option<OperatorId>,
    /// The old state's operator name.
    pub old_name: Option<String>,
    /// `set_uid_hash`: the ID to give with `setUidHash`.
    pub uid_hash: Option<OperatorId>,
    /// `set_uid`, `keep_uid` (and `set_uid_hash`, for the states written afterwards): the uid to set.
    pub uid: Option<String>,
    /// `unset_max_parallelism`: the savepoint's max parallelism (what Flink adopts without a setting).
    pub max_parallelism: Option<i32>,
    /// `unset_max_parallelism`: the explicitly configured value to remove.
    pub configured_max_parallelism: Option<i32>,
    /// How sure the pairing of `old_id` with `new_id` is.
    pub pairing: Option<Pairing>,
    /// Every new operator the fix concerns (one, or all those of a job-wide fix).
    pub operators: Vec<OperatorId>,
}

impl Fix {
    fn on(kind: FixKind, n: &GraphOperator) -> Fix {
        Fix {
            kind,
            new_id: Some(n.id),
            new_name: n.name.clone(),
            old_id: None,
            old_name: None,
            uid_hash: None,
            uid: None,
            max_parallelism: None,
            configured_max_parallelism: None,
            pairing: None,
            operators: vec![n.id],
        }
    }
}

/// A uid made from an operator's name: lowercase words joined by `-` (`Source: topic-b` →
/// `source-topic-b`), unique among `taken`.
pub fn suggest_uid(n: &GraphOperator, taken: &mut HashSet<String>) -> String {
    let name = n.name.as_deref().unwrap_or_default();
    let mut base = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() {
            base.extend(c.to_lowercase());
        } else if !base.is_empty() && !base.ends_with('-') {
            base.push('-');
        }
    }
    let mut base = base.trim_end_matches('-').to_string();
    if base.is_empty() {
        base = format!("operator-{}", &n.id.to_string()[..8]);
    }
    let mut uid = base.clone();
    let mut i = 2;
    while taken.contains(&uid) {
        uid = format!("{base}-{i}");
        i += 1;
    }
    taken.insert(uid.clone());
    uid
}

/// Whether an old operator's state holds something (or is unknown: OLD is a graph).
fn has_content(o: &OldOperator) -> bool {
    o.state.as_ref().is_none_or(|s| !s.empty)
}

/// The new operator each old state with content was meant for: same uid, else the same name when the name
/// is unique among the old states and among the new operators. Old index → (new index, pairing).
pub fn pair(old: &[OldOperator], new: &[GraphOperator]) -> HashMap<usize, (usize, Pairing)> {
    let count = |names: &mut dyn Iterator<Item = Option<&String>>| {
        let mut c: HashMap<String, usize> = HashMap::new();
        for n in names.flatten() {
            *c.entry(n.clone()).or_default() += 1;
        }
        c
    };
    let old_names = count(&mut old.iter().map(|o| o.name.as_ref()));
    let new_names = count(&mut new.iter().map(|n| n.name.as_ref()));
    let mut out = HashMap::new();
    for (j, o) in old.iter().enumerate() {
        if !has_content(o) {
            continue;
        }
        let by_uid = o
            .uid
            .as_ref()
            .and_then(|u| new.iter().position(|n| n.uid.as_ref() == Some(u)));
        let by_name = || {
            let name = o.name.as_ref()?;
            if old_names.get(name) != Some(&1) || new_names.get(name) != Some(&1) {
                return None;
            }
            new.iter().position(|n| n.name.as_ref() == Some(name))
        };
        if let Some(i) = by_uid {
            out.insert(j, (i, Pairing::Uid));
        } else if let Some(i) = by_name() {
            out.insert(j, (i, Pairing::Name));
        }
    }
    out
}

/// The fixes for a prediction `d` of `old` into `new`.
pub fn propose(d: &Diff, old: &[OldOperator], new: &[GraphOperator]) -> Vec<Fix> {
    let pairs = pair(old, new);
    let index_of_old: HashMap<OperatorId, usize> =
        old.iter().enumerate().map(|(j, o)| (o.id, j)).collect();
    // Which old state each new operator takes now.
    let mut takes: HashMap<usize, usize> = HashMap::new();
    for e in &d.entries {
        if let (Some(pos), Some(o)) = (e.position, &e.old) {
            if let Some(&j) = index_of_old.get(&o.id) {
                takes.insert(pos, j);
            }
        }
    }
    // The IDs of the old states that hold something: an operator with one of them takes it.
    let holding: HashSet<OperatorId> = old
        .iter()
        .filter(|o| has_content(o))
        .map(|o| o.id)
        .collect();
    let meant_for: HashMap<usize, (usize, Pairing)> =
        pairs.iter().map(|(&j, &(i, p))| (i, (j, p))).collect();
    let mut taken: HashSet<String> = new.iter().filter_map(|n| n.uid.clone()).collect();
    let mut fixes = Vec::new();
    for (i, n) in new.iter().enumerate() {
        let now = takes.get(&i).copied();
        match meant_for.get(&i) {
            Some(&(j, pairing)) if now != Some(j) => {
                let o = &old[j];
                let renamed = pairing == Pairing::Name && o.uid.is_some() && n.uid.is_some();
                let mut f = Fix::on(
                    if renamed {
                        FixKind::KeepUid
                    } else {
                        FixKind::SetUidHash
                    },
                    n,
                );
                f.old_id = Some(o.id);
                f.old_name = o.name.clone();
                f.pairing = Some(pairing);
                if renamed {
                    f.uid = o.uid.clone();
                } else {
                    f.uid_hash = Some(o.id);
                    f.uid = Some(n.uid.clone().unwrap_or_else(|| suggest_uid(n, &mut taken)));
                }
                fixes.push(f);
            }
            Some(&(j, _)) if n.uid.is_none() && n.uid_hash.is_none() => {
                // Restored by position: keep the state, and give the operator an ID of its own.
                let o = &old[j];
                let mut f = Fix::on(FixKind::SetUidHash, n);
                f.old_id = Some(o.id);
                f.old_name = o.name.clone();
                f.pairing = Some(Pairing::Name);
                f.uid_hash = Some(o.id);
                f.uid = Some(suggest_uid(n, &mut taken));
                fixes.push(f);
            }
            Some(_) => {}
            None if n.uid.is_none() => {
                // Takes a state meant for another operator (or for none), or has the ID of one: give it
                // an ID of its own. So too a new operator that holds state: its ID would be positional.
                let now = now.filter(|&j| has_content(&old[j]));
                let collides = now.is_some()
                    || holding.contains(&n.id)
                    || n.uid_hash.is_some_and(|h| holding.contains(&h));
                if collides || n.stateful == Some(true) {
                    let mut f = Fix::on(FixKind::SetUid, n);
                    if let Some(j) = now {
                        f.old_id = Some(old[j].id);
                        f.old_name = old[j].name.clone();
                    }
                    f.uid = Some(suggest_uid(n, &mut taken));
                    fixes.push(f);
                }
            }
            None => {}
        }
    }
    fixes.extend(max_parallelism_fixes(d));
    fixes
}

/// One fix per explicitly configured max parallelism that differs from the savepoint's.
fn max_parallelism_fixes(d: &Diff) -> Vec<Fix> {
    let mut by_values: Vec<((i32, i32), Vec<OperatorId>)> = Vec::new();
    for e in d
        .entries
        .iter()
        .filter(|e| e.status == Status::MaxParallelismMismatch)
    {
        let (Some(o), Some(n)) = (&e.old, &e.new) else {
            continue;
        };
        let (Some(was), Some(now)) = (o.max_parallelism, n.max_parallelism) else {
            continue;
        };
        if was == now {
            continue; // a parallelism above the max parallelism: not a setting to remove
        }
        match by_values.iter_mut().find(|(v, _)| *v == (was, now)) {
            Some((_, ops)) => ops.push(n.id),
            None => by_values.push(((was, now), vec![n.id])),
        }
    }
    by_values
        .into_iter()
        .map(|((was, now), operators)| Fix {
            kind: FixKind::UnsetMaxParallelism,
            new_id: None,
            new_name: None,
            old_id: None,
            old_name: None,
            uid_hash: None,
            uid: None,
            max_parallelism: Some(was),
            configured_max_parallelism: Some(now),
            pairing: None,
            operators,
        })
        .collect()
}

/// `new` with `fixes` applied, on the IDs they set: a uid makes the generated ID its hash. (Operators
/// downstream of a changed one that have no uid get other positional IDs too; only a manifest of the
/// fixed job, and a real restore, show those.)
pub fn apply(new: &[GraphOperator], fixes: &[Fix]) -> Vec<GraphOperator> {
    let mut out = new.to_vec();
    for f in fixes {
        for n in out.iter_mut().filter(|n| f.operators.contains(&n.id)) {
            match f.kind {
                FixKind::UnsetMaxParallelism => n.max_parallelism = None,
                FixKind::SetUidHash | FixKind::SetUid | FixKind::KeepUid => {
                    if let Some(u) = &f.uid {
                        n.uid = Some(u.clone());
                    }
                    n.uid_hash = f.uid_hash.or(n.uid_hash);
                }
            }
        }
    }
    for n in &mut out {
        if let Some(u) = &n.uid {
            n.id = operator_id(u);
        }
    }
    out
}

/// The prediction with `fixes` applied to `new` (see [`apply`]).
pub fn with_fixes(
    old: &[OldOperator],
    new: &[GraphOperator],
    fixes: &[Fix],
    opts: RestoreOptions,
) -> Diff {
    diff(old, &apply(new, fixes), opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::StateInfo;

    fn old(uid: Option<&str>, id_of: &str, name: &str) -> OldOperator {
        OldOperator {
            id: operator_id(id_of),
            name: Some(name.into()),
            uid: uid.map(str::to_owned),
            max_parallelism: Some(128),
            state: Some(StateInfo {
                bytes: 10,
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

    #[test]
    fn an_inserted_operator_gets_a_uid_and_the_shifted_ones_claim_their_state() {
        // Old: a, b at positions p0, p1. New: a, x, b at p0, p1, p2 (x inserted before b).
        let olds = [old(None, "p0", "a"), old(None, "p1", "b")];
        let news = [new("p0", "a"), new("p1", "x"), new("p2", "b")];
        let d = diff(&olds, &news, RestoreOptions::default());
        let fixes = propose(&d, &olds, &news);
        let kinds: Vec<_> = fixes
            .iter()
            .map(|f| (f.kind, f.new_name.clone().unwrap_or_default()))
            .collect();
        assert_eq!(
            kinds,
            [
                (FixKind::SetUidHash, "a".into()),
                (FixKind::SetUid, "x".into()),
                (FixKind::SetUidHash, "b".into())
            ]
        );
        assert_eq!(fixes[2].uid_hash, Some(operator_id("p1")));
        let after = with_fixes(&olds, &news, &fixes, RestoreOptions::default());
        let statuses: Vec<_> = after.entries.iter().map(|e| e.status).collect();
        assert_eq!(statuses, [Status::Restored, Status::New, Status::Restored]);
    }

    #[test]
    fn a_renamed_uid_is_kept() {
        let olds = [old(Some("count"), "count", "count")];
        let mut n = new("count-v2", "count");
        n.uid = Some("count-v2".into());
        let d = diff(&olds, std::slice::from_ref(&n), RestoreOptions::default());
        let fixes = propose(&d, &olds, &[n.clone()]);
        assert_eq!(fixes.len(), 1);
        assert_eq!(
            (fixes[0].kind, fixes[0].uid.as_deref()),
            (FixKind::KeepUid, Some("count"))
        );
        let after = with_fixes(&olds, &[n], &fixes, RestoreOptions::default());
        assert_eq!(after.entries[0].status, Status::Restored);
    }

    #[test]
    fn uids_made_from_names_are_unique() {
        let mut taken = HashSet::from(["source-topic-b".to_string()]);
        let n = new("p", "Source: topic-b");
        assert_eq!(suggest_uid(&n, &mut taken), "source-topic-b-2");
        assert_eq!(
            suggest_uid(&new("p", "count a, Filter"), &mut taken),
            "count-a-filter"
        );
        assert_eq!(
            suggest_uid(&new("p", "::"), &mut taken),
            format!("operator-{}", &operator_id("p").to_string()[..8])
        );
    }
}
