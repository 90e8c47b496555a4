//! `verify` on Flink's real restore logs: every committed redeploy's log matches the prediction `diff`
//! makes for it, a prediction made for another case does not, and a log without a restore is an error.

use serde_json::Value;
use std::path::{Path, PathBuf};

mod common;

use common::sp;

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// Every redeploy case with a log: (release dir, case dir, its outcome).
fn cases() -> Vec<(PathBuf, PathBuf, Value)> {
    let mut out = Vec::new();
    for release in common::fixture_dirs(|p| p.join("cases").is_dir()) {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(release.join("cases"))
            .expect("cases")
            .map(|e| e.expect("entry").path())
            .filter(|d| d.join("flink-restore.log").is_file())
            .collect();
        dirs.sort();
        for case in dirs {
            let outcome: Value = serde_json::from_str(
                &std::fs::read_to_string(case.join("flink-outcome.json")).expect("outcome"),
            )
            .expect("json");
            out.push((release.clone(), case, outcome));
        }
    }
    out
}

/// The prediction of `diff` for a case, written to a file.
fn predict(release: &Path, case: &Path, outcome: &Value) -> PathBuf {
    let old = release.join(outcome["old"].as_str().expect("old"));
    let snapshot = old.join("snapshot");
    let graph = old.join("graph.json");
    let new = case.join("new-graph.json");
    let mut args = vec!["diff", p(&snapshot), p(&new), "--format", "json"];
    if outcome["allow_non_restored_state"] == true {
        args.push("--allow-non-restored-state");
    }
    let v4 = std::fs::read(snapshot.join("_metadata")).expect("read")[7] < 5;
    if v4 {
        args.extend(["--old-graph", p(&graph)]);
    }
    let out = sp(&args);
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = std::env::temp_dir().join(format!(
        "sp-verify-{}-{}-{}.json",
        std::process::id(),
        release
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default(),
        case.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    ));
    std::fs::write(&file, &out.stdout).expect("write");
    file
}

#[test]
fn every_redeploy_log_matches_its_prediction() {
    let cases = cases();
    assert!(cases.len() >= 20, "only {} cases", cases.len());
    for (release, case, outcome) in &cases {
        let prediction = predict(release, case, outcome);
        let out = sp(&["verify", p(&prediction), p(&case.join("flink-restore.log"))]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{case:?}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.starts_with("matched:"), "{case:?}: {text}");
    }
}

#[test]
fn a_wrong_prediction_is_found_out() {
    let cases = cases();
    let find = |release: &str, name: &str| {
        cases
            .iter()
            .find(|(r, c, _)| r.ends_with(release) && c.ends_with(name))
            .unwrap_or_else(|| panic!("{release}/{name}"))
    };
    // What the un-fixed job would do (fail on unclaimed state) against the log of the fixed job (restored).
    let (r, c, o) = find("redeploy-flink2.3", "insert-key-nouid");
    let wrong = predict(r, c, o);
    let (_, fixed, _) = find("redeploy-flink2.3", "insert-key-nouid-fixed");
    let out = sp(&["verify", p(&wrong), p(&fixed.join("flink-restore.log"))]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("predicted a failed restore") && text.contains("Flink logged no failure"),
        "{text}"
    );
    // Dropping state predicted (allowNonRestoredState) against a restore that kept it all.
    let (r, c, o) = find("redeploy-flink2.3", "uids-renamed");
    let dropping = predict(r, c, o);
    let (_, hash, _) = find("redeploy-flink2.3", "uids-renamed-uid-hash");
    let out = sp(&["verify", p(&dropping), p(&hash.join("flink-restore.log"))]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("but Flink did not skip it"), "{text}");
}

#[test]
fn logs_without_a_restore_and_other_json_are_input_errors() {
    let (release, case, outcome) = cases().into_iter().next().expect("a case");
    let prediction = predict(&release, &case, &outcome);
    let empty = std::env::temp_dir().join(format!("sp-verify-{}-empty.log", std::process::id()));
    std::fs::write(&empty, "2026-11-29 INFO something else\n").expect("write");
    let out = sp(&["verify", p(&prediction), p(&empty)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to verify"));
    let graph = case.join("new-graph.json");
    let out = sp(&["verify", p(&graph), p(&case.join("flink-restore.log"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("at schema: expected \"sp-inspect/diff-v1\"")
    );
}
