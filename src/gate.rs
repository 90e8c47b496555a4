//! `diff` and `lint` as a CI gate: inputs, prediction, findings after configuration, and the pass/fail
//! decision. Rendering is in `report::gate`.

use crate::config::{Config, FailOn};
use crate::diff::{diff, Diff, RestoreOptions};
use crate::fix::{self, Fix};
use crate::job::{name_new_from_graph, name_old_from_graph, JobInput};
use crate::rules::{
    check_diff, check_graph, check_state, restored_state, rules_not_checked, sort_findings,
    Finding, Severity, Statefulness,
};

/// One input of a gate run.
#[derive(Debug, Clone)]
pub struct InputInfo {
    /// `old`, `new`, `old_graph`, `new_graph` (diff); `input`, `graph` (lint).
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
    /// `diff`: the changes to the new job that make every state land where it was meant to.
    pub fixes: Vec<Fix>,
    /// `diff`: the prediction with the fixes applied (on the IDs they set), when there are fixes.
    pub with_fixes: Option<Diff>,
    /// `diff` of a savepoint whose state would shift or be lost: the other way out, `sp-inspect remap
    /// OLD NEW`, as its plan (or why it cannot pair every state).
    pub remap: Option<Result<crate::remap::Plan, String>>,
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

/// Arguments that cannot give a meaningful answer together (exit 2).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

fn usage(message: String) -> UsageError {
    UsageError(message)
}

/// Arguments of `diff`, loaded: each with its path.
pub struct DiffInputs<'a> {
    /// OLD.
    pub old: (&'a JobInput, &'a str),
    /// NEW.
    pub new: (&'a JobInput, &'a str),
    /// `--old-graph`.
    pub old_graph: Option<(&'a JobInput, &'a str)>,
    /// `--new-graph`.
    pub new_graph: Option<(&'a JobInput, &'a str)>,
}

/// The operators of a `--graph`-like option, which must be a graph manifest.
fn manifest_of(
    graph: (&JobInput, &str),
    flag: &str,
) -> Result<Vec<crate::graph::GraphOperator>, UsageError> {
    match graph.0 {
        JobInput::Manifest(ops, _) => Ok(ops.clone()),
        other => Err(usage(format!(
            "{flag} {}: is a {}; expected the graph manifest (sp-inspect/graph-v1) of the job that wrote the savepoint",
            graph.1,
            other.kind()
        ))),
    }
}

/// How many of `ids` the graph names (by ID or user hash).
fn shared_ids(
    ids: impl Iterator<Item = crate::model::OperatorId>,
    graph: &[crate::graph::GraphOperator],
) -> (usize, usize) {
    let mut total = 0;
    let shared = ids
        .inspect(|_| total += 1)
        .filter(|id| graph.iter().any(|g| g.id == *id || g.uid_hash == Some(*id)))
        .count();
    (shared, total)
}

/// Checks that `graph` describes the savepoint `of` (at least one operator ID in common) and says how many.
fn describes(
    graph: &[crate::graph::GraphOperator],
    flag: &str,
    graph_path: &str,
    of: &JobInput,
    of_path: &str,
) -> Result<String, UsageError> {
    let (shared, total) = shared_ids(of.as_new().into_iter().map(|o| o.id), graph);
    if shared == 0 {
        return Err(usage(format!(
            "{flag} {graph_path}: shares no operator ID with {of_path} (0 of its {total} operators): it is not the manifest of the job that wrote it"
        )));
    }
    Ok(names_text(shared, total, of_path))
}

/// The kind of a graph option, as the report shows it: how much of the savepoint it names.
fn names_text(shared: usize, total: usize, of_path: &str) -> String {
    format!("graph manifest, names {shared} of the {total} operators of {of_path}")
}

fn info(role: &'static str, path: &str, kind: String) -> InputInfo {
    InputInfo {
        role,
        path: path.to_string(),
        kind,
    }
}

/// The state rules that could not run on a savepoint whose state files could not be read.
fn unread_state(input: &JobInput, path: &str) -> Option<Finding> {
    let unread = input.state_problems();
    (!unread.is_empty()).then(|| rules_not_checked::state_not_read(path, unread))
}

/// Points each finding at the fix for its operator: the fix of the new operator it names, else the fix
/// that claims the old state it names.
fn link_fixes(findings: &mut [Finding], fixes: &[Fix]) {
    for f in findings.iter_mut() {
        let Some(id) = f.operator_id else { continue };
        f.fix = fixes
            .iter()
            .position(|x| x.new_id == Some(id) || (x.new_id.is_none() && x.operators.contains(&id)))
            .or_else(|| fixes.iter().position(|x| x.old_id == Some(id)));
    }
}

/// Runs `diff`. Refuses a savepoint given as NEW with a graph as OLD (the arguments swapped), options that
/// do nothing, and graphs that do not describe their savepoint.
pub fn run_diff(
    inputs: DiffInputs<'_>,
    restore: RestoreOptions,
    config: &Config,
    fail_on: FailOn,
) -> Result<GateReport, UsageError> {
    let (old_input, old_path) = inputs.old;
    let (new_input, new_path) = inputs.new;
    if !old_input.is_savepoint() && new_input.is_savepoint() {
        return Err(usage(format!(
            "OLD {old_path} is a {} and NEW {new_path} a savepoint: the arguments are swapped? diff takes the state first: `sp-inspect diff SAVEPOINT NEW_JOB_GRAPH`",
            old_input.kind()
        )));
    }
    for (flag, graph, side, side_path) in [
        ("--old-graph", inputs.old_graph, old_input, old_path),
        ("--new-graph", inputs.new_graph, new_input, new_path),
    ] {
        if graph.is_some() && !side.is_savepoint() {
            return Err(usage(format!(
                "{flag} does nothing: {side_path} is already a graph ({}); it names the operators of a savepoint",
                side.kind()
            )));
        }
    }
    let mut infos = vec![
        info("old", old_path, old_input.kind()),
        info("new", new_path, new_input.kind()),
    ];
    let mut old = old_input.as_old();
    let old_graph = inputs
        .old_graph
        .map(|g| manifest_of(g, "--old-graph"))
        .transpose()?;
    if let (Some(ops), Some((_, path))) = (&old_graph, inputs.old_graph) {
        let kind = describes(ops, "--old-graph", path, old_input, old_path)?;
        infos.push(info("old_graph", path, kind));
        name_old_from_graph(&mut old, ops);
    }
    let mut new = new_input.as_new();
    let new_graph = inputs
        .new_graph
        .map(|g| manifest_of(g, "--new-graph"))
        .transpose()?;
    if let (Some(ops), Some((_, path))) = (&new_graph, inputs.new_graph) {
        let kind = describes(ops, "--new-graph", path, new_input, new_path)?;
        infos.push(info("new_graph", path, kind));
        name_new_from_graph(&mut new, ops);
    }
    let d = diff(&old, &new, restore);
    let mut findings = check_diff(&d, new_path);
    // Which new operators hold state: what they receive from OLD, and what NEW itself holds.
    let mut stateful = match new_input {
        JobInput::Savepoint(_) => Statefulness::of_savepoint(&new_input.as_old()),
        _ => Statefulness::default(),
    };
    stateful.bytes.extend(restored_state(&d));
    let new_uids_known = uids_known(new_input, new_graph.is_some());
    findings.extend(check_graph(
        &new,
        &stateful,
        new_path,
        new_uids_known,
        new_input.job_config(),
    ));
    if let (false, Some(v)) = (new_uids_known, new_input.format_version()) {
        findings.push(rules_not_checked::uids_not_recorded(
            new_path,
            v,
            "--new-graph",
        ));
    }
    if let (false, Some(v)) = (
        uids_known(old_input, old_graph.is_some()),
        old_input.format_version(),
    ) {
        findings.push(rules_not_checked::names_not_recorded(old_path, v));
    }
    findings.extend(unread_state(old_input, old_path));
    findings.extend(check_state(&[(old_path, &old)]));
    let mut findings = config.apply(findings);
    sort_findings(&mut findings);
    let fixes = fix::propose(&d, &old, &new);
    link_fixes(&mut findings, &fixes);
    let with_fixes = (!fixes.is_empty()).then(|| fix::with_fixes(&old, &new, &fixes, restore));
    let misplaced = d.entries.iter().any(|e| {
        matches!(
            e.status,
            crate::diff::Status::Shifted | crate::diff::Status::Orphaned
        )
    });
    let remap = (misplaced && old_input.is_savepoint())
        .then(|| crate::remap::plan(&old, &new, &[]).map_err(|e| e.to_string()));
    Ok(GateReport {
        command: "diff",
        inputs: infos,
        diff: Some(d),
        allow_non_restored_state: restore.allow_non_restored_state,
        findings,
        fixes,
        with_fixes,
        remap,
        fail_on,
    })
}

fn uids_known(input: &JobInput, named_by_graph: bool) -> bool {
    match input.format_version() {
        Some(v) => v >= 5 || named_by_graph,
        None => true,
    }
}

/// Runs `lint` on inputs given together (`graph`, with its path, names the operators of the savepoints
/// it describes). Besides each input's own findings, Kafka sinks sharing a transactional id prefix across
/// inputs are found. Refuses a `graph` that is not a manifest or describes none of the savepoints.
pub fn run_lint(
    inputs: &[(&JobInput, &str)],
    graph: Option<(&JobInput, &str)>,
    config: &Config,
    fail_on: FailOn,
) -> Result<GateReport, UsageError> {
    let graph_ops = graph.map(|g| manifest_of(g, "--graph")).transpose()?;
    let mut infos: Vec<InputInfo> = inputs
        .iter()
        .map(|(input, path)| info("input", path, input.kind()))
        .collect();
    let mut findings = Vec::new();
    let mut states = Vec::new();
    let mut named_any = false;
    for (input, path) in inputs {
        let mut ops = input.as_new();
        let mut state = match input {
            JobInput::Savepoint(_) => input.as_old(),
            _ => Vec::new(),
        };
        let named = match (&graph_ops, graph) {
            (Some(g), Some((_, graph_path))) if input.is_savepoint() => {
                let (shared, total) = shared_ids(ops.iter().map(|o| o.id), g);
                if shared > 0 {
                    name_new_from_graph(&mut ops, g);
                    name_old_from_graph(&mut state, g);
                    infos.push(info("graph", graph_path, names_text(shared, total, path)));
                }
                shared > 0
            }
            _ => false,
        };
        named_any |= named;
        let stateful = match input {
            JobInput::Savepoint(_) => Statefulness::of_savepoint(&state),
            _ => Statefulness::default(),
        };
        let known = uids_known(input, named);
        findings.extend(check_graph(
            &ops,
            &stateful,
            path,
            known,
            input.job_config(),
        ));
        if let (false, Some(v)) = (known, input.format_version()) {
            findings.push(rules_not_checked::uids_not_recorded(path, v, "--graph"));
        }
        findings.extend(unread_state(input, path));
        states.push((*path, state));
    }
    if let (Some((_, graph_path)), false) = (graph, named_any) {
        let savepoints = inputs.iter().filter(|(i, _)| i.is_savepoint()).count();
        return Err(usage(if savepoints == 0 {
            format!("--graph {graph_path} does nothing: no input is a savepoint (it names the operators of one)")
        } else {
            format!("--graph {graph_path}: shares no operator ID with any savepoint given: it is not the manifest of the job that wrote one")
        }));
    }
    let shared: Vec<(&str, &[crate::diff::OldOperator])> =
        states.iter().map(|(p, s)| (*p, s.as_slice())).collect();
    findings.extend(check_state(&shared));
    let mut findings = config.apply(findings);
    sort_findings(&mut findings);
    Ok(GateReport {
        command: "lint",
        inputs: infos,
        diff: None,
        allow_non_restored_state: false,
        findings,
        fixes: Vec::new(),
        with_fixes: None,
        remap: None,
        fail_on,
    })
}
