//! `diff` and `lint` as a CI gate: inputs, prediction, findings after configuration, and the pass/fail
//! decision. Rendering is in `report::gate`.

use crate::config::{Config, FailOn};
use crate::diff::{diff, Diff, RestoreOptions};
use crate::job::{name_new_from_graph, name_old_from_graph, JobInput};
use crate::rules::{
    check_diff, check_graph, check_shared_prefixes, check_state, sort_findings, Finding, Severity,
};

/// One input of a gate run.
#[derive(Debug, Clone)]
pub struct InputInfo {
    /// `old`, `new` or `input`.
    pub role: &'static str,
    /// The path given.
    pub path: String,
    /// What it turned out to be.
    pub kind: String,
}

/// Everything a gate run found.
#[derive(Debug, Clone)]
pub struct GateReport {
    /// `diff` or `lint`.
    pub command: &'static str,
    /// The inputs.
    pub inputs: Vec<InputInfo>,
    /// The restore prediction (`diff` only).
    pub diff: Option<Diff>,
    /// Whether the prediction assumed `allowNonRestoredState`.
    pub allow_non_restored_state: bool,
    /// Findings after configuration, worst first.
    pub findings: Vec<Finding>,
    /// The threshold.
    pub fail_on: FailOn,
}

impl GateReport {
    /// Whether any finding is at or above the threshold.
    pub fn failed(&self) -> bool {
        self.findings.iter().any(|f| self.fail_on.fails(f.severity))
    }

    /// Number of findings of a severity.
    pub fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }
}

fn uids_known(input: &JobInput, named_by_graph: bool) -> bool {
    match input {
        JobInput::Savepoint(r) => r.header.version >= 5 || named_by_graph,
        JobInput::Manifest(_) | JobInput::UidList(_) => true,
    }
}

/// Arguments of `diff`, loaded.
pub struct DiffInputs<'a> {
    /// OLD and its path.
    pub old: (&'a JobInput, &'a str),
    /// NEW and its path.
    pub new: (&'a JobInput, &'a str),
    /// `--old-graph`.
    pub old_graph: Option<&'a JobInput>,
    /// `--new-graph`.
    pub new_graph: Option<&'a JobInput>,
}

/// Runs `diff`.
pub fn run_diff(
    inputs: DiffInputs<'_>,
    restore: RestoreOptions,
    config: &Config,
    fail_on: FailOn,
) -> GateReport {
    let (old_input, old_path) = inputs.old;
    let (new_input, new_path) = inputs.new;
    let mut old = old_input.as_old();
    if let Some(g) = inputs.old_graph {
        name_old_from_graph(&mut old, &g.as_new());
    }
    let mut new = new_input.as_new();
    if let Some(g) = inputs.new_graph {
        name_new_from_graph(&mut new, &g.as_new());
    }
    let d = diff(&old, &new, restore);
    let new_uids_known = uids_known(new_input, inputs.new_graph.is_some());
    // The state NEW holds, when NEW is a savepoint (for the hygiene rules on NEW).
    let new_state = match new_input {
        JobInput::Savepoint(_) => new_input.as_old(),
        _ => Vec::new(),
    };
    let mut findings = check_diff(&d, new_path, new_uids_known);
    findings.extend(check_graph(&new, &new_state, new_path, new_uids_known));
    findings.extend(check_state(&old, old_path));
    findings.extend(check_shared_prefixes(&[(old_path, &old)]));
    let mut findings = config.apply(findings);
    sort_findings(&mut findings);
    GateReport {
        command: "diff",
        inputs: vec![
            InputInfo {
                role: "old",
                path: old_path.to_string(),
                kind: old_input.kind(),
            },
            InputInfo {
                role: "new",
                path: new_path.to_string(),
                kind: new_input.kind(),
            },
        ],
        diff: Some(d),
        allow_non_restored_state: restore.allow_non_restored_state,
        findings,
        fail_on,
    }
}

/// Runs `lint` on inputs given together (`graph` names the operators of savepoints of formats before 5).
/// Besides each input's own findings, Kafka sinks sharing a transactional id prefix across inputs are found.
pub fn run_lint(
    inputs: &[(&JobInput, &str)],
    graph: Option<&JobInput>,
    config: &Config,
    fail_on: FailOn,
) -> GateReport {
    let mut findings = Vec::new();
    let mut states = Vec::new();
    for (input, path) in inputs {
        let mut ops = input.as_new();
        let mut state = match input {
            JobInput::Savepoint(_) => input.as_old(),
            _ => Vec::new(),
        };
        if let Some(g) = graph {
            name_new_from_graph(&mut ops, &g.as_new());
            name_old_from_graph(&mut state, &g.as_new());
        }
        findings.extend(check_graph(
            &ops,
            &state,
            path,
            uids_known(input, graph.is_some()),
        ));
        findings.extend(check_state(&state, path));
        states.push((*path, state));
    }
    let shared: Vec<(&str, &[crate::diff::OldOperator])> =
        states.iter().map(|(p, s)| (*p, s.as_slice())).collect();
    findings.extend(check_shared_prefixes(&shared));
    let mut findings = config.apply(findings);
    sort_findings(&mut findings);
    GateReport {
        command: "lint",
        inputs: inputs
            .iter()
            .map(|(input, path)| InputInfo {
                role: "input",
                path: path.to_string(),
                kind: input.kind(),
            })
            .collect(),
        diff: None,
        allow_non_restored_state: false,
        findings,
        fail_on,
    }
}
