use super::*;
use serde_json::{json, Value};

/// SARIF 2.1.0, with the rule registry as the tool's rules.
pub fn to_sarif(r: &GateReport) -> Value {
    let level = |s: Severity| match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    };
    let rules: Vec<Value> = crate::rules::ALL
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": rule.explain},
                "defaultConfiguration": {"level": level(rule.default_severity)},
                "properties": {"category": rule.category.name()},
            })
        })
        .collect();
    let results: Vec<Value> = r
        .findings
        .iter()
        .map(|f| {
            let mut res = json!({
                "ruleId": f.rule.id,
                "ruleIndex": crate::rules::ALL.iter().position(|x| x.id == f.rule.id),
                "level": level(f.severity),
                "message": {"text": f.message},
                // The line of the job that creates the operator, where the manifest records it.
                "locations": [match &f.defined_at {
                    Some(l) => json!({"physicalLocation": {
                        "artifactLocation": {"uri": l.file},
                        "region": {"startLine": l.line},
                    }}),
                    None => json!({"physicalLocation": {"artifactLocation": {"uri": f.input}}}),
                }],
            });
            if let Some(id) = f.operator_id {
                res["partialFingerprints"] = json!({"operatorId": id.to_string()});
            }
            res
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "sp-inspect",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    })
}
