//! `verify`: after the deploy, did Flink do what `diff` predicted? Reads Flink's own log lines (the
//! JobManager's restore decisions) and compares them, operator by operator, with a `diff-v1` prediction.

use crate::model::OperatorId;
use serde_json::Value;
use std::collections::BTreeSet;

/// What Flink's logs say of a restore.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Observed {
    /// A job started from a savepoint or checkpoint (`Starting job … from savepoint …`, `Restoring job …`).
    pub started: bool,
    /// `Skipping savepoint state for operator X` (allowNonRestoredState).
    pub skipped: BTreeSet<OperatorId>,
    /// `Skipping empty savepoint state for operator X`.
    pub skipped_empty: BTreeSet<OperatorId>,
    /// `Cannot map checkpoint/savepoint state for operator X`: the restore failed on X.
    pub cannot_map: BTreeSet<OperatorId>,
    /// `Max parallelism mismatch … Cannot map operator X`: the restore failed on X.
    pub max_parallelism: BTreeSet<OperatorId>,
}

/// The 32 hex digits after `marker` in `line`, when there are.
fn id_after(line: &str, marker: &str) -> Option<OperatorId> {
    let at = line.find(marker)? + marker.len();
    OperatorId::from_hex(line.get(at..at + 32)?)
}

impl Observed {
    /// Adds what one log file says.
    pub fn read(&mut self, log: &str) {
        for line in log.lines() {
            if line.contains("from savepoint") || line.contains("Restoring job") {
                self.started = true;
            }
            if let Some(id) = id_after(line, "Skipping savepoint state for operator ") {
                self.skipped.insert(id);
            }
            if let Some(id) = id_after(line, "Skipping empty savepoint state for operator ") {
                self.skipped_empty.insert(id);
            }
            if let Some(id) = id_after(line, "Cannot map checkpoint/savepoint state for operator ")
            {
                self.cannot_map.insert(id);
            }
            if line.contains("Max parallelism mismatch") {
                if let Some(id) = id_after(line, "Cannot map operator ") {
                    self.max_parallelism.insert(id);
                }
            }
        }
    }

    fn failed(&self) -> bool {
        !self.cannot_map.is_empty() || !self.max_parallelism.is_empty()
    }

    /// Whether the logs say anything of a restore.
    pub fn says_anything(&self) -> bool {
        self.started || self.failed() || !self.skipped.is_empty() || !self.skipped_empty.is_empty()
    }
}

/// What a `diff-v1` document predicted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Predicted {
    /// `restores`, `restores_dropping_state` or `fails`.
    pub verdict: String,
    /// Whether the prediction assumed allowNonRestoredState.
    pub allow_non_restored_state: bool,
    /// Old states no operator claims (non-empty).
    pub orphaned: BTreeSet<OperatorId>,
    /// Old states no operator claims (empty).
    pub skipped_empty: BTreeSet<OperatorId>,
    /// Operators whose max parallelism does not fit their state.
    pub max_parallelism: BTreeSet<OperatorId>,
}

fn field<'a>(v: &'a Value, at: &str) -> Result<&'a Value, String> {
    v.get(at).ok_or_else(|| format!("at {at}: missing"))
}

impl Predicted {
    /// Reads a `diff-v1` document; errors name the JSON path.
    pub fn from_json(v: &Value) -> Result<Predicted, String> {
        match field(v, "schema")?.as_str() {
            Some("sp-inspect/diff-v1") => {}
            other => {
                return Err(format!(
                    "at schema: expected \"sp-inspect/diff-v1\" (sp-inspect diff --format json), found {other:?}"
                ))
            }
        }
        let verdict = field(v, "verdict")?
            .as_str()
            .ok_or("at verdict: expected a string")?
            .to_string();
        let allow = field(v, "allow_non_restored_state")?
            .as_bool()
            .ok_or("at allow_non_restored_state: expected true or false")?;
        let mut p = Predicted {
            verdict,
            allow_non_restored_state: allow,
            ..Predicted::default()
        };
        let ops = field(v, "operators")?
            .as_array()
            .ok_or("at operators: expected an array")?;
        for (i, e) in ops.iter().enumerate() {
            let id = |k: &str| -> Result<Option<OperatorId>, String> {
                match e.get(k) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::String(s)) => OperatorId::from_hex(s)
                        .map(Some)
                        .ok_or_else(|| format!("at operators[{i}].{k}: expected 32 hex digits")),
                    Some(_) => Err(format!("at operators[{i}].{k}: expected a string")),
                }
            };
            let status = e
                .get("status")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("at operators[{i}].status: expected a string"))?;
            let (old, new) = (id("old_id")?, id("new_id")?);
            match (status, old) {
                ("orphaned", Some(o)) => {
                    p.orphaned.insert(o);
                }
                ("skipped_empty", Some(o)) => {
                    p.skipped_empty.insert(o);
                }
                ("max_parallelism_mismatch", _) => {
                    p.max_parallelism.extend(old.into_iter().chain(new));
                }
                _ => {}
            }
        }
        Ok(p)
    }
}

/// Where Flink did other than predicted: one sentence each (empty: it did what was predicted).
pub fn compare(p: &Predicted, o: &Observed) -> Vec<String> {
    let mut out = Vec::new();
    let list = |s: &BTreeSet<OperatorId>| {
        s.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let predicted_fail = p.verdict == "fails";
    if predicted_fail && !o.failed() {
        out.push(format!(
            "predicted a failed restore (state of {} claimed by no operator{}), but Flink logged no failure",
            list(&p.orphaned),
            if p.max_parallelism.is_empty() { "" } else { ", or a max parallelism mismatch" }
        ));
    }
    if !predicted_fail && o.failed() {
        out.push(format!(
            "predicted {}, but Flink failed on operator {}",
            p.verdict,
            list(&o.cannot_map.union(&o.max_parallelism).copied().collect())
        ));
    }
    if predicted_fail && o.failed() {
        // Flink stops at the first operator it cannot map: that one must be among those predicted.
        for id in o.cannot_map.iter().filter(|id| !p.orphaned.contains(id)) {
            out.push(format!(
                "Flink could not map the state of operator {id}, which the prediction has claimed"
            ));
        }
        for id in o
            .max_parallelism
            .iter()
            .filter(|id| !p.max_parallelism.contains(id))
        {
            out.push(format!(
                "Flink found a max parallelism mismatch on operator {id}, not predicted"
            ));
        }
    }
    if !predicted_fail && !o.failed() {
        // With allowNonRestoredState every unclaimed state is "Skipping savepoint state"; without it
        // only empty ones are skipped ("Skipping empty savepoint state").
        let (expected, seen) = if p.allow_non_restored_state {
            (
                p.orphaned.union(&p.skipped_empty).copied().collect(),
                o.skipped.union(&o.skipped_empty).copied().collect(),
            )
        } else {
            (p.skipped_empty.clone(), o.skipped_empty.clone())
        };
        let expected: BTreeSet<OperatorId> = expected;
        let seen: BTreeSet<OperatorId> = seen;
        for id in expected.difference(&seen) {
            out.push(format!(
                "operator {id}: predicted claimed by no operator (skipped), but Flink did not skip it: an operator of the new job restored it"
            ));
        }
        for id in seen.difference(&expected) {
            out.push(format!(
                "operator {id}: Flink skipped its state, but the prediction has it restored"
            ));
        }
        if !p.allow_non_restored_state && !o.skipped.is_empty() {
            out.push(format!(
                "Flink ran with allowNonRestoredState (it skipped {}), the prediction without",
                list(&o.skipped)
            ));
        }
    }
    out
}
