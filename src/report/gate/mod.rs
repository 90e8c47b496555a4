//! Renderers of `diff` and `lint` results, one file per format. Each writes to a `dyn Write` and none
//! decides the exit code.

mod github;
mod json;
mod junit;
mod markdown;
mod sarif;
mod table;

pub use github::write_github;
pub use json::to_json;
pub use junit::write_junit;
pub use markdown::write_markdown;
pub use sarif::to_sarif;
pub use table::write_table;

use crate::diff::{label, Entry, Verdict};
use crate::gate::GateReport;
use crate::rules::Severity;

/// The verdict in one line, as the report's headline.
pub fn verdict_line(r: &GateReport) -> Option<String> {
    let d = r.diff.as_ref()?;
    let count = |s| d.entries.iter().filter(|e| e.status == s).count();
    let shifted = count(crate::diff::Status::Shifted);
    let dropped = count(crate::diff::Status::Orphaned);
    let mut line = match d.verdict {
        Verdict::Restores => "Flink restores this savepoint".to_string(),
        Verdict::RestoresDroppingState => {
            format!("Flink restores this savepoint dropping {dropped} operator states")
        }
        Verdict::Fails => "Flink fails to restore this savepoint".to_string(),
    };
    if shifted > 0 && d.verdict != Verdict::Fails {
        line.push_str(&format!(
            ", and {shifted} operators receive another operator's state"
        ));
    } else if shifted > 0 {
        line.push_str(&format!(
            "; {shifted} operators would also receive another operator's state"
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
    format!(
        "{} errors, {} warnings, {} infos{not_run} ({threshold}): {}",
        r.count(Severity::Error),
        r.count(Severity::Warning),
        r.count(Severity::Info),
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
