//! GitLab code quality (a Code Climate issue list): GitLab shows each finding in the merge request.

use super::*;
use serde_json::{json, Value};

/// The report as GitLab's `codequality` artifact.
pub fn to_gitlab(r: &GateReport) -> Value {
    r.findings
        .iter()
        .map(|f| {
            let severity = match f.severity {
                Severity::Error => "critical",
                Severity::Warning => "minor",
                Severity::Info => "info",
            };
            let (path, line) = match &f.defined_at {
                Some(l) => (l.file.clone(), l.line),
                None => (f.input.clone(), 1),
            };
            // Stable across runs, different for each rule, input and operator.
            let fingerprint = crate::hash::operator_id(&format!(
                "{}\u{0}{}\u{0}{}\u{0}{}",
                f.rule.id,
                f.input,
                f.operator_id.map(|i| i.to_string()).unwrap_or_default(),
                f.message
            ));
            json!({
                "description": f.message,
                "check_name": f.rule.id,
                "fingerprint": fingerprint.to_string(),
                "severity": severity,
                "categories": [f.rule.category.name()],
                "location": {"path": path, "lines": {"begin": line}},
            })
        })
        .collect()
}
