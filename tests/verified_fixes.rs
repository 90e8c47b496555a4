//! The fixes `diff` proposes, verified on real Flink (fixtures/redeploy-flink*/cases/<case>-fixed/): each
//! `-fixed` case is `<case>` with the proposed fixes (`fixes.json`) applied to the job's code
//! (fixtures/gen/router_job.py --fixes) and restored from the old savepoint without allowNonRestoredState.
//! The tool must still propose exactly those fixes, and its reading of the fixed job must be what Flink did
//! (flink-outcome.json): the verdict, the empty state Flink skipped, which number range each source resumed
//! from, and which count operator got which keyed state.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

const RANGE: u64 = 1_000_000_000;

fn json(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{p:?}: {e}"))
}

/// Every `<case>-fixed` directory: (the redeploy-flink* directory, the case directory).
fn fixed_cases() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for dir in common::fixture_dirs(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("redeploy-flink"))
    }) {
        let mut cases: Vec<_> = std::fs::read_dir(dir.join("cases"))
            .expect("cases")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.to_string_lossy().ends_with("-fixed"))
            .collect();
        cases.sort();
        out.extend(cases.into_iter().map(|c| (dir.clone(), c)));
    }
    out
}

/// `sp-inspect diff OLD NEW --format json`, with the old job's graph for savepoints that record no
/// names (format 4, Flink 1.x).
fn diff(dir: &Path, old: &str, new: &Path) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sp-inspect"));
    cmd.arg("diff")
        .arg(dir.join(old).join("snapshot"))
        .arg(new)
        .args(["--format", "json"]);
    if dir.to_string_lossy().contains("redeploy-flink1.") {
        cmd.arg("--old-graph").arg(dir.join(old).join("graph.json"));
    }
    let out = cmd.output().expect("run sp-inspect");
    // 0: no error finding, 1: error findings; both print the report.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{new:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json report")
}

/// A fix without its `text`, the explanation in words, which may be reworded without changing the fix.
fn without_text(fix: &Value) -> Value {
    let mut f = fix.clone();
    if let Some(o) = f.as_object_mut() {
        o.remove("text");
    }
    f
}

fn name_of(case: &Path) -> String {
    case.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

fn str_of<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

#[test]
fn there_is_a_fixed_case_for_each_case_the_tool_proposed_fixes_for_on_both_releases() {
    let names: BTreeSet<_> = fixed_cases()
        .iter()
        .map(|(dir, case)| {
            format!(
                "{}/{}",
                dir.file_name().unwrap_or_default().to_string_lossy(),
                name_of(case)
            )
        })
        .collect();
    let mut want = BTreeSet::new();
    for v in ["redeploy-flink1.20", "redeploy-flink2.3"] {
        for c in [
            "insert-key-nouid-fixed",
            "max-parallelism-changed-fixed",
            "uids-renamed-fixed",
        ] {
            want.insert(format!("{v}/{c}"));
        }
    }
    assert_eq!(names, want);
}

#[test]
fn the_tool_still_proposes_the_fixes_that_were_verified() {
    for (dir, case) in fixed_cases() {
        let flink = json(&case.join("flink-outcome.json"));
        let old = str_of(&flink, "old").expect("old");
        let name = name_of(&case);
        let original = dir
            .join("cases")
            .join(name.trim_end_matches("-fixed"))
            .join("new-graph.json");
        let report = diff(&dir, old, &original);
        let verified = json(&case.join("fixes.json"));
        let verified = verified.as_array().expect("fixes.json: a list");
        let proposed = report["fixes"].as_array().expect("fixes");
        assert!(!verified.is_empty(), "{case:?}");
        assert_eq!(
            proposed.len(),
            verified.len(),
            "{case:?}: the tool proposes {} fixes for {original:?}, {} were verified on Flink",
            proposed.len(),
            verified.len()
        );
        for (p, v) in proposed.iter().zip(verified) {
            // Everything but the prose (`text`): kind, operators, uid, uid hash, snippets, pairing.
            assert_eq!(
                without_text(p),
                without_text(v),
                "{case:?}: the fix for {} proposed for {original:?} is not the one verified on Flink",
                v["new_name"]
            );
        }
    }
}

#[test]
fn diff_of_the_fixed_job_predicts_what_flink_did() {
    for (dir, case) in fixed_cases() {
        let what = format!("{case:?}");
        let flink = json(&case.join("flink-outcome.json"));
        let old = str_of(&flink, "old").expect("old");
        assert_eq!(flink["allow_non_restored_state"], false, "{what}");
        let report = diff(&dir, old, &case.join("new-graph.json"));
        let ops = report["operators"].as_array().expect("operators");
        let status = |o: &Value| str_of(o, "status").unwrap_or_default().to_owned();

        // The verdict: Flink restored the fixed job, with no state it could not map, no max parallelism
        // mismatch and no non-empty state skipped.
        let restored = flink["restored"] == true
            && flink["unmapped_operator"].is_null()
            && flink["max_parallelism_mismatch"].is_null()
            && flink["skipped_state"]
                .as_array()
                .is_some_and(|a| a.is_empty());
        assert!(restored, "{what}: Flink did not restore the fixed job");
        assert_eq!(
            report["verdict"], "restores",
            "{what}: {}",
            report["reasons"]
        );
        for o in ops {
            assert!(
                !matches!(
                    status(o).as_str(),
                    "shifted" | "orphaned" | "max_parallelism_mismatch" | "unverified"
                ),
                "{what}: {o}"
            );
        }
        // The empty state Flink skipped ("Skipping empty savepoint state").
        let skipped: BTreeSet<String> = ops
            .iter()
            .filter(|o| status(o) == "skipped_empty")
            .filter_map(|o| str_of(o, "old_id").map(str::to_owned))
            .collect();
        let flink_skipped: BTreeSet<String> = flink["skipped_empty_state"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        assert_eq!(skipped, flink_skipped, "{what}: skipped empty state");

        let entry = |name: &str| -> &Value {
            ops.iter()
                .find(|o| str_of(o, "new_name") == Some(name))
                .unwrap_or_else(|| panic!("{what}: no new operator {name}"))
        };
        // Each source resumed from the range of the key Flink saw, or from the start of its own range
        // when it had no state; the tool must say the same source state (or none) went to it.
        let resumed = flink["first_value_by_key"]
            .as_object()
            .expect("first values");
        assert!(!resumed.is_empty(), "{what}: no source resumed");
        for (key, seen) in resumed {
            let source = format!("Source: topic-{key}");
            let e = entry(&source);
            let range = seen["range_of_key"].as_str().expect("range_of_key");
            let first = seen["first_value"].as_u64().expect("first_value");
            let start = u64::from(key.as_bytes()[0] - b'a') * RANGE;
            assert_eq!(
                range, key,
                "{what}: {source} resumed in the range of {range}"
            );
            if first == start {
                assert_eq!(status(e), "new", "{what}: {source} started from scratch");
            } else {
                assert_eq!(status(e), "restored", "{what}: {source} resumed at {first}");
                assert_eq!(
                    str_of(e, "old_name"),
                    Some(source.as_str()),
                    "{what}: {source}"
                );
            }
        }
        // Each count operator's keyed state: restored (the counts the old job had at the savepoint, exactly
        // the numbers before the source's position) or none (a new key's count starts empty).
        let keyed = flink["keyed_state_by_key"]
            .as_object()
            .expect("keyed_state_by_key");
        assert_eq!(
            keyed.keys().collect::<BTreeSet<_>>(),
            resumed.keys().collect::<BTreeSet<_>>(),
            "{what}"
        );
        for (key, seen) in keyed {
            let count = format!("count {key}, Filter");
            let e = entry(&count);
            assert_eq!(
                seen["matches_source_position"], true,
                "{what}: {count}'s keyed state is not the one written with its source's position"
            );
            let counts = seen["count_by_state_key"].as_object().expect("counts");
            if seen["restored"] == true {
                assert_eq!(status(e), "restored", "{what}: Flink restored {count}");
                assert_eq!(str_of(e, "old_name"), Some(count.as_str()), "{what}");
                assert_eq!(e["state_empty"], false, "{what}: {count}");
            } else {
                assert!(counts.values().all(Value::is_null), "{what}: {count}");
                assert_eq!(
                    status(e),
                    "new",
                    "{what}: Flink restored nothing to {count}"
                );
            }
        }
    }
}

#[test]
fn with_fixes_predicted_the_verdict_flink_gave_the_fixed_job() {
    for (dir, case) in fixed_cases() {
        let flink = json(&case.join("flink-outcome.json"));
        let old = str_of(&flink, "old").expect("old");
        let name = name_of(&case);
        let original = dir
            .join("cases")
            .join(name.trim_end_matches("-fixed"))
            .join("new-graph.json");
        let report = diff(&dir, old, &original);
        assert_eq!(report["verdict"], "fails", "{original:?}");
        let want = if flink["restored"] == true {
            "restores"
        } else {
            "fails"
        };
        assert_eq!(report["with_fixes"]["verdict"], want, "{case:?}");
    }
}
