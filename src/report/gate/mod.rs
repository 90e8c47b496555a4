//! Renderers of `diff` and `lint` results, one file per format. Each writes to a `dyn Write` and none
//! decides the exit code.

mod dot;
mod github;
mod gitlab;
mod json;
mod junit;
mod markdown;
mod sarif;
mod table;

pub use dot::write_dot;
pub use github::write_github;
pub use gitlab::to_gitlab;
pub use json::to_json;
pub use junit::write_junit;
pub use markdown::write_markdown;
pub use sarif::to_sarif;
pub use table::write_table;

use crate::diff::{label, Entry, Verdict};
use crate::gate::GateReport;
use crate::rules::Severity;

/// Writes `r` in `format`: every renderer has this shape; none decides the exit code.
pub fn render(
    r: &GateReport,
    format: crate::cli::GateFormat,
    layout: Layout,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use crate::cli::GateFormat;
    let json = |doc: serde_json::Value, out: &mut dyn std::io::Write| {
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        writeln!(out)
    };
    match format {
        GateFormat::Table => write_table(r, layout, out),
        GateFormat::Markdown => write_markdown(r, out),
        GateFormat::Github => write_github(r, out),
        GateFormat::Junit => write_junit(r, out),
        GateFormat::Dot => write_dot(r, out),
        GateFormat::Json => json(to_json(r), out),
        GateFormat::Sarif => json(to_sarif(r), out),
        GateFormat::Gitlab => json(to_gitlab(r), out),
    }
}

/// How a report is laid out.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// List every operator, not only those with problems.
    pub all: bool,
    /// Columns to fit (tables and wrapped lines).
    pub width: usize,
}

impl Layout {
    /// The width to fit: `COLUMNS`, else the terminal's, else 100 (logs, pipes).
    pub fn width() -> usize {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<usize>().ok())
            .filter(|&c| c >= 40)
            .or_else(|| comfy_table::Table::new().width().map(usize::from))
            .unwrap_or(100)
    }
}

/// Findings of one rule: with one shared detail (a job-wide cause), or each with its own.
pub struct Group<'a> {
    /// The rule.
    pub rule: &'static crate::rules::Rule,
    /// Its severity.
    pub severity: Severity,
    /// The findings, in report order.
    pub findings: Vec<&'a crate::rules::Finding>,
}

impl Group<'_> {
    /// The detail every finding shares, when they share one and there are several.
    pub fn shared_detail(&self) -> Option<&str> {
        let first = self.findings.first()?.detail.as_deref()?;
        (self.findings.len() > 1
            && self
                .findings
                .iter()
                .all(|f| f.detail.as_deref() == Some(first)))
        .then_some(first)
    }

    /// The fixes its findings point to, in order, once each.
    pub fn fixes(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.findings.iter().filter_map(|f| f.fix).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// The findings grouped by rule (and severity), worst first.
pub fn groups(r: &GateReport) -> Vec<Group<'_>> {
    let mut out: Vec<Group<'_>> = Vec::new();
    for f in &r.findings {
        match out
            .iter_mut()
            .find(|g| g.rule.id == f.rule.id && g.severity == f.severity)
        {
            Some(g) => g.findings.push(f),
            None => out.push(Group {
                rule: f.rule,
                severity: f.severity,
                findings: vec![f],
            }),
        }
    }
    out
}

/// The name of what a finding is about.
pub fn subject(f: &crate::rules::Finding) -> String {
    f.name
        .clone()
        .or(f.uid.clone())
        .or(f.operator_id.map(|i| i.to_string()))
        .unwrap_or_default()
}

/// How many entries of the prediction have each status, in a fixed order.
pub fn status_counts(d: &crate::diff::Diff) -> Vec<(crate::diff::Status, usize)> {
    use crate::diff::Status::*;
    [
        Restored,
        New,
        SkippedEmpty,
        Unverified,
        Shifted,
        Orphaned,
        MaxParallelismMismatch,
    ]
    .into_iter()
    .map(|s| (s, d.entries.iter().filter(|e| e.status == s).count()))
    .filter(|(_, n)| *n > 0)
    .collect()
}

/// `6 restored, 30 new, 21 skipped_empty`.
pub fn counts_text(d: &crate::diff::Diff) -> String {
    status_counts(d)
        .iter()
        .map(|(s, n)| format!("{n} {}", s.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One element of the picture of where state goes.
pub enum Edge {
    /// Old state restored into a new operator (`shifted`: not the one that wrote it).
    Moves {
        /// The state's owner.
        old: String,
        /// The operator that restores it.
        new: String,
        /// Whether it is another operator's state.
        shifted: bool,
    },
    /// Old state no operator claims.
    Dropped {
        /// The state's owner.
        old: String,
    },
    /// A new source that starts without restored splits.
    NewSource {
        /// The source.
        new: String,
    },
}

/// What the picture shows: every state with content and where it goes, and the new sources.
pub fn picture(d: &crate::diff::Diff) -> Vec<Edge> {
    use crate::diff::Status;
    let has_content = |e: &Entry| {
        e.old
            .as_ref()
            .and_then(|o| o.state.as_ref())
            .is_none_or(|s| !s.empty)
    };
    d.entries
        .iter()
        .filter_map(|e| match (e.status, &e.old, &e.new) {
            (Status::Orphaned, Some(_), _) => Some(Edge::Dropped { old: old_cell(e) }),
            (Status::New, None, Some(n)) if n.is_source() => {
                Some(Edge::NewSource { new: new_cell(e) })
            }
            (_, Some(_), Some(_)) if has_content(e) => Some(Edge::Moves {
                old: old_cell(e),
                new: new_cell(e),
                shifted: e.status == Status::Shifted,
            }),
            _ => None,
        })
        .collect()
}

/// The verdict in one line, as the report's headline.
pub fn verdict_line(r: &GateReport) -> Option<String> {
    use crate::rules::plural;
    let d = r.diff.as_ref()?;
    let count = |s| d.entries.iter().filter(|e| e.status == s).count();
    let shifted = count(crate::diff::Status::Shifted);
    let dropped = count(crate::diff::Status::Orphaned);
    let mut line = match d.verdict {
        Verdict::Restores => "Flink restores this savepoint".to_string(),
        Verdict::RestoresDroppingState => format!(
            "Flink restores this savepoint dropping {}",
            plural(dropped, "operator state", "operator states")
        ),
        Verdict::Fails => "Flink fails to restore this savepoint".to_string(),
    };
    let receive = |n| {
        if n == 1 {
            "1 operator receives another operator's state".to_string()
        } else {
            format!("{n} operators receive another operator's state")
        }
    };
    if shifted > 0 && d.verdict != Verdict::Fails {
        line.push_str(&format!(", and {}", receive(shifted)));
    } else if shifted > 0 {
        line.push_str(&format!(
            "; {} would also receive another operator's state",
            plural(shifted, "operator", "operators")
        ));
    }
    Some(line)
}

/// The summary of findings in one line.
pub fn findings_line(r: &GateReport) -> String {
    let threshold = match r.fail_on {
        crate::config::FailOn::Never => "never fails".to_string(),
        crate::config::FailOn::Severity(s) => format!("fails on {s}"),
    };
    let not_run = r
        .findings
        .iter()
        .filter(|f| f.rule.id == crate::rules::RULES_NOT_CHECKED.id)
        .count();
    let not_run = match not_run {
        0 => String::new(),
        1 => ", 1 check could not run".to_string(),
        n => format!(", {n} checks could not run"),
    };
    use crate::rules::plural;
    format!(
        "{}, {}, {}{not_run} ({threshold}): {}",
        plural(r.count(Severity::Error), "error", "errors"),
        plural(r.count(Severity::Warning), "warning", "warnings"),
        plural(r.count(Severity::Info), "info", "infos"),
        if r.failed() { "FAILED" } else { "passed" }
    )
}

/// "old operator" cell text.
pub fn old_cell(e: &Entry) -> String {
    e.old.as_ref().map_or("-".into(), |o| {
        label(&o.id, o.uid.as_deref(), o.name.as_deref())
    })
}

/// "new operator" cell text.
pub fn new_cell(e: &Entry) -> String {
    e.new.as_ref().map_or("-".into(), |n| {
        label(&n.id, n.uid.as_deref(), n.name.as_deref())
    })
}

/// "state" cell text.
pub fn state_cell(e: &Entry) -> String {
    match e.old.as_ref().and_then(|o| o.state.as_ref()) {
        None if e.old.is_some() => "unknown".into(),
        None => "-".into(),
        Some(s) if s.empty => "empty".into(),
        Some(s) => {
            let kinds: Vec<_> = s.kinds.iter().map(|k| k.name()).collect();
            format!("{} {}", super::human_bytes(s.bytes), kinds.join("+"))
        }
    }
}

/// "#" cell text (1-based position in NEW).
pub fn position_cell(e: &Entry) -> String {
    e.position.map_or("-".into(), |p| (p + 1).to_string())
}
