//! `sp-inspect/diff-v1` and `sp-inspect/lint-v1` (documented in docs/diff-json.md).

use super::*;
use serde_json::{json, Value};

/// The JSON document.
pub fn to_json(r: &GateReport) -> Value {
    let findings: Vec<Value> = r
        .findings
        .iter()
        .map(|f| {
            json!({
                "rule": f.rule.id,
                "category": f.rule.category.name(),
                "severity": f.severity.name(),
                "message": f.message,
                "operator_id": f.operator_id.map(|i| i.to_string()),
                "uid": f.uid,
                "name": f.name,
                "input": f.input,
                "defined_at": f.defined_at.as_ref().map(|l| json!({"file": l.file, "line": l.line})),
                "fix": f.fix,
                "help": f.fix.is_none().then_some(f.rule.help),
            })
        })
        .collect();
    // diff: one key per role (old, new, old_graph, new_graph); lint: a list, as it takes any number.
    let inputs: Value = if r.diff.is_some() {
        r.inputs
            .iter()
            .map(|i| (i.role.to_string(), json!({"path": i.path, "kind": i.kind})))
            .collect::<serde_json::Map<_, _>>()
            .into()
    } else {
        r.inputs
            .iter()
            .map(|i| json!({"role": i.role, "path": i.path, "kind": i.kind}))
            .collect()
    };
    let mut doc = json!({
        "schema": format!("sp-inspect/{}-v1", r.command),
        "inputs": inputs,
        "findings": findings,
        "fail_on": match r.fail_on { crate::config::FailOn::Never => "never", crate::config::FailOn::Severity(s) => s.name() },
        "failed": r.failed(),
    });
    if let Some(d) = &r.diff {
        doc["fixes"] = r.fixes.iter().map(fix_json).collect();
        doc["with_fixes"] = r.with_fixes.as_ref().map_or(Value::Null, |after| {
            let mut counts = serde_json::Map::new();
            for e in &after.entries {
                let n = counts.entry(e.status.name()).or_insert(json!(0));
                *n = json!(n.as_u64().unwrap_or(0) + 1);
            }
            json!({"verdict": after.verdict.name(), "statuses": counts})
        });
        doc["remap"] = match &r.remap {
            None => Value::Null,
            Some(Ok(plan)) => json!({
                "pairs": plan.assignments.iter().map(|a| json!({
                    "old_id": a.old.id.to_string(),
                    "new_id": a.new.id.to_string(),
                    "by": a.how.name(),
                })).collect::<Vec<_>>(),
            }),
            Some(Err(why)) => json!({"error": why}),
        };
        doc["allow_non_restored_state"] = json!(r.allow_non_restored_state);
        doc["verdict"] = json!(d.verdict.name());
        doc["reasons"] = json!(d.reasons);
        doc["operators"] = d
            .entries
            .iter()
            .map(|e| {
                let o = e.old.as_ref();
                let n = e.new.as_ref();
                json!({
                    "position": e.position,
                    "status": e.status.name(),
                    "old_id": o.map(|o| o.id.to_string()),
                    "new_id": n.map(|n| n.id.to_string()),
                    "old_name": o.and_then(|o| o.name.clone()),
                    "old_uid": o.and_then(|o| o.uid.clone()),
                    "new_name": n.and_then(|n| n.name.clone()),
                    "new_uid": n.and_then(|n| n.uid.clone()),
                    "matched_by": e.matched_by.map(|m| match m { crate::diff::MatchedBy::Id => "id", crate::diff::MatchedBy::UidHash => "uid_hash" }),
                    "state_bytes": e.state_bytes(),
                    "state_empty": o.and_then(|o| o.state.as_ref()).map(|s| s.empty),
                    "state_kinds": o.and_then(|o| o.state.as_ref()).map(|s| s.kinds.iter().map(|k| k.name()).collect::<Vec<_>>()),
                    "operator_states": o.and_then(|o| o.state.as_ref()).map(|s| s.operator_states.clone()),
                    // A Kafka source: the splits it resumes, and every topic it will read.
                    "restores_splits": o.and_then(|o| o.state.as_ref()).filter(|s| !s.kafka_splits.is_empty()).map(|s| s.kafka_splits.iter().map(|(t, p, off)| json!({"topic": t, "partition": p, "starting_offset": off})).collect::<Vec<_>>()),
                    "reads": n.and_then(|n| crate::rules::reads(o.and_then(|o| o.state.as_ref()).map_or(&[][..], |s| &s.kafka_splits), crate::rules::kafka_source(n))),
                    "note": e.note,
                })
            })
            .collect();
    }
    doc
}

fn fix_json(f: &crate::fix::Fix) -> Value {
    use crate::report::text::{fix_sentence, snippet, Lang};
    let id = |i: Option<crate::model::OperatorId>| i.map(|i| i.to_string());
    let snippets: serde_json::Map<String, Value> = Lang::ALL
        .iter()
        .map(|&l| (l.name().to_string(), json!(snippet(f, l))))
        .collect();
    json!({
        "kind": f.kind.name(),
        "new_id": id(f.new_id),
        "new_name": f.new_name,
        "old_id": id(f.old_id),
        "old_name": f.old_name,
        "uid_hash": id(f.uid_hash),
        "uid": f.uid,
        "max_parallelism": f.max_parallelism,
        "configured_max_parallelism": f.configured_max_parallelism,
        "pairing": f.pairing.map(|p| p.name()),
        "operators": f.operators.iter().map(|o| o.to_string()).collect::<Vec<_>>(),
        "text": fix_sentence(f),
        "snippets": snippets,
    })
}
