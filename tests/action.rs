//! The GitHub Action's script (contrib/github-action/run.sh, what action.yml runs), as far as it runs
//! without GitHub: the SARIF file, the annotations, the job summary, the verdict output, the exit code.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

fn run(case: &str, old: &str, fail_on: &str, extra: &str) -> (Output, PathBuf) {
    let dir =
        std::env::temp_dir().join(format!("sp-action-{}-{case}-{fail_on}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).expect("dir");
    let fx = common::fixtures_dir().join("redeploy-flink2.3");
    let out = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/github-action/run.sh"))
        .env("SP_BIN", env!("CARGO_BIN_EXE_sp-inspect"))
        .env("SP_OLD", fx.join(old).join("snapshot"))
        .env("SP_NEW", fx.join("cases").join(case).join("new-graph.json"))
        .env("SP_FAIL_ON", fail_on)
        .env("SP_ARGS", extra)
        .env("SP_SARIF", dir.join("report.sarif"))
        .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .env("GITHUB_OUTPUT", dir.join("output"))
        .output()
        .expect("bash");
    (out, dir)
}

#[test]
fn a_shifting_redeploy_fails_the_step_with_annotations_sarif_and_a_summary() {
    let (out, dir) = run(
        "insert-key-nouid-allow",
        "v1-nouid",
        "error",
        "--allow-non-restored-state",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("::error ") && l.contains("STATE_SHIFTED")),
        "{stdout}"
    );
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.sarif")).expect("sarif"))
            .expect("json");
    assert_eq!(sarif["version"], "2.1.0");
    assert!(!sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .is_empty());
    let summary = std::fs::read_to_string(dir.join("summary.md")).expect("summary");
    assert!(
        summary.contains("## sp-inspect diff") && summary.contains("```mermaid"),
        "{summary}"
    );
    let output = std::fs::read_to_string(dir.join("output")).expect("output");
    assert_eq!(output.trim(), "verdict=restores_dropping_state");
}

#[test]
fn a_clean_redeploy_passes_and_an_unreadable_input_stops_with_exit_2() {
    let (out, dir) = run("insert-key-uids", "v1-uid", "error", "");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("output"))
            .expect("output")
            .trim(),
        "verdict=restores"
    );
    let (out, _) = run("insert-key-uids", "no-such-savepoint", "never", "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("::error title=sp-inspect::could not read the inputs"));
}
