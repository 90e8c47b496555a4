//! `diff` and `lint` as a CI gate: exit codes, output formats, configuration.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn sp(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sp-inspect"));
    c.args(args).env_remove("GITHUB_STEP_SUMMARY");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run sp-inspect")
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

struct Case {
    old: PathBuf,
    new: PathBuf,
}

fn case(name: &str) -> Case {
    let dir = fixtures().join("redeploy-flink2.3");
    let old = if name.contains("nouid") {
        "v1-nouid"
    } else {
        "v1-uid"
    };
    Case {
        old: dir.join(old).join("snapshot"),
        new: dir.join("cases").join(name).join("new-graph.json"),
    }
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sp-inspect-gate-{}-{name}", std::process::id()))
}

#[test]
fn a_shift_fails_the_gate_and_a_clean_redeploy_passes() {
    let c = case("insert-key-nouid-allow");
    let out = sp(
        &["diff", p(&c.old), p(&c.new), "--allow-non-restored-state"],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("RESTORES_DROPPING_STATE") && text.contains("shifted"),
        "{text}"
    );
    let out = sp(
        &[
            "diff",
            p(&c.old),
            p(&c.new),
            "--allow-non-restored-state",
            "--fail-on",
            "never",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0));

    let c = case("insert-key-uids");
    let out = sp(&["diff", p(&c.old), p(&c.new)], &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        sp(&["diff", p(&c.old), p(&c.new), "--fail-on", "warning"], &[])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn json_report() {
    let c = case("insert-key-nouid");
    let out = sp(&["diff", p(&c.old), p(&c.new), "--format", "json"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["schema"], "sp-inspect/diff-v1");
    assert_eq!(v["verdict"], "fails");
    assert_eq!(v["failed"], true);
    let statuses: Vec<&str> = v["operators"]
        .as_array()
        .expect("ops")
        .iter()
        .filter_map(|o| o["status"].as_str())
        .collect();
    for s in ["shifted", "orphaned", "new", "restored"] {
        assert!(statuses.contains(&s), "{s} in {statuses:?}");
    }
    assert!(v["reasons"]
        .as_array()
        .expect("reasons")
        .iter()
        .any(|r| r.as_str().unwrap_or_default().contains("Cannot map")));
}

#[test]
fn sarif_junit_markdown_reports() {
    let c = case("insert-key-nouid");
    let out = sp(&["diff", p(&c.old), p(&c.new), "--format", "sarif"], &[]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("sarif is json");
    assert_eq!(v["version"], "2.1.0");
    let rules: Vec<&str> = v["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    let results = v["runs"][0]["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for r in results {
        let id = r["ruleId"].as_str().expect("ruleId");
        assert_eq!(
            rules.get(r["ruleIndex"].as_u64().expect("index") as usize),
            Some(&id)
        );
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().expect("level")));
    }

    let out = sp(&["diff", p(&c.old), p(&c.new), "--format", "junit"], &[]);
    let x = String::from_utf8_lossy(&out.stdout);
    assert!(
        x.starts_with("<?xml") && x.contains("<testsuite name=\"sp-inspect diff\""),
        "{x}"
    );
    assert!(x.contains("<failure"), "{x}");
    assert_eq!(
        x.matches("<testcase").count(),
        x.matches("</testcase>").count()
    );

    let out = sp(&["diff", p(&c.old), p(&c.new), "--format", "markdown"], &[]);
    let m = String::from_utf8_lossy(&out.stdout);
    assert!(
        m.contains("**Verdict: `fails`**") && m.contains("| # | status |"),
        "{m}"
    );
}

#[test]
fn github_annotations_respect_the_per_step_limit_and_fill_the_summary() {
    let c = case("insert-key-nouid-allow");
    let summary = tmp("summary.md");
    std::fs::remove_file(&summary).ok();
    let out = sp(
        &[
            "diff",
            p(&c.old),
            p(&c.new),
            "--allow-non-restored-state",
            "--format",
            "github",
            "--fail-on",
            "info",
        ],
        &[("GITHUB_STEP_SUMMARY", &summary)],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    for level in ["::error ", "::warning ", "::notice "] {
        assert!(
            text.lines().filter(|l| l.starts_with(level)).count() <= 10,
            "{level}"
        );
    }
    let first = text.lines().next().unwrap_or_default();
    assert!(first.starts_with("::error "), "worst first: {first}");
    assert!(text.contains("more findings are not annotated"), "{text}");
    let md = std::fs::read_to_string(&summary).expect("summary written");
    std::fs::remove_file(&summary).ok();
    assert!(md.contains("## sp-inspect diff") && md.contains("STATE_SHIFTED"));
}

#[test]
fn config_changes_severities_and_ignores() {
    let c = case("insert-key-nouid-allow");
    let cfg = tmp("sp-inspect.toml");
    std::fs::write(
        &cfg,
        "fail_on = \"error\"\n[rules]\nSTATE_SHIFTED = \"warning\"\nSTATEFUL_OPERATOR_WITHOUT_UID = \"warning\"\n[[ignore]]\nrules = [\"STATE_ORPHANED\"]\nname = \"count *\"\n",
    )
    .expect("write");
    let out = sp(
        &[
            "diff",
            p(&c.old),
            p(&c.new),
            "--allow-non-restored-state",
            "--config",
            p(&cfg),
            "--format",
            "json",
        ],
        &[],
    );
    std::fs::remove_file(&cfg).ok();
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let findings = v["findings"].as_array().expect("findings");
    assert!(findings.iter().all(|f| f["rule"] != "STATE_ORPHANED"));
    assert!(findings
        .iter()
        .any(|f| f["rule"] == "STATE_SHIFTED" && f["severity"] == "warning"));
    let errors = findings.iter().filter(|f| f["severity"] == "error").count();
    assert_eq!((out.status.code(), errors), (Some(0), 0));

    let bad = tmp("bad.toml");
    std::fs::write(&bad, "[rules]\nNOT_A_RULE = \"off\"\n").expect("write");
    let out = sp(&["diff", p(&c.old), p(&c.new), "--config", p(&bad)], &[]);
    std::fs::remove_file(&bad).ok();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NOT_A_RULE"));
}

#[test]
fn unreadable_inputs_exit_2_never_0() {
    let c = case("insert-key-uids");
    let bad = tmp("graph.json");
    std::fs::write(
        &bad,
        r#"{"schema": "sp-inspect/graph-v1", "operators": [{"id": "nothex"}]}"#,
    )
    .expect("write");
    let out = sp(&["diff", p(&c.old), p(&bad), "--fail-on", "never"], &[]);
    std::fs::remove_file(&bad).ok();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("operators[0].id"), "{err}");
    let truncated = tmp("_metadata");
    let bytes = std::fs::read(c.old.join("_metadata")).expect("read");
    std::fs::write(&truncated, &bytes[..bytes.len() - 3]).expect("write");
    let out = sp(&["lint", p(&truncated), "--fail-on", "never"], &[]);
    std::fs::remove_file(&truncated).ok();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("byte offset"));
    let binary = tmp("binary");
    std::fs::write(&binary, [0xFFu8, 0xFE, 0x00, 0x80, 0x81]).expect("write");
    let out = sp(&["lint", p(&binary)], &[]);
    std::fs::remove_file(&binary).ok();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a _metadata file"));
}

#[test]
fn lint_finds_pyflink_hidden_operators_and_missing_uids() {
    let rules_of = |v: &Value| -> Vec<String> {
        v["findings"]
            .as_array()
            .expect("f")
            .iter()
            .filter_map(|f| f["rule"].as_str().map(str::to_owned))
            .collect()
    };
    // Every stateful operator of this PyFlink job has a uid: its hidden and fused operators are
    // harmless, and only the stateless operators without uid are noted.
    let sp_dir = fixtures().join("v6-flink2.3-pyflink-side-output-key-by/snapshot");
    let out = sp(&["lint", p(&sp_dir), "--format", "json"], &[]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["schema"], "sp-inspect/lint-v1");
    assert_eq!(rules_of(&v), vec!["OPERATOR_WITHOUT_UID"; 2]);
    assert_eq!(
        sp(&["lint", p(&sp_dir), "--fail-on", "warning"], &[])
            .status
            .code(),
        Some(0)
    );
    // The no-uid router savepoint: its stateful operators have no uid, and PyFlink's inserted and
    // fused operators are why their positions shift.
    let nouid = fixtures().join("redeploy-flink2.3/v1-nouid/snapshot");
    let out = sp(&["lint", p(&nouid), "--format", "json"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let rules = rules_of(&v);
    for r in [
        "STATEFUL_OPERATOR_WITHOUT_UID",
        "PYFLINK_HIDDEN_OPERATOR",
        "PYFLINK_FUSED_UID_DROPPED",
    ] {
        assert!(rules.iter().any(|x| x == r), "{r} in {rules:?}");
    }
}

#[test]
fn sarif_and_github_annotations_point_at_the_line_that_creates_the_operator() {
    let m = tmp("located.json");
    std::fs::write(
        &m,
        r#"{"schema": "sp-inspect/graph-v1", "operators": [
            {"id": "0123456789abcdef0123456789abcdef", "name": "count", "stateful": true,
             "defined_at": {"file": "jobs/orders.py", "line": 42}},
            {"uid": "other", "name": "other"}]}"#,
    )
    .expect("write");
    let out = sp(&["lint", p(&m), "--format", "sarif"], &[]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("sarif");
    let result = v["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["ruleId"] == "STATEFUL_OPERATOR_WITHOUT_UID")
        .cloned()
        .expect("the finding");
    let loc = &result["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "jobs/orders.py");
    assert_eq!(loc["region"]["startLine"], 42);
    let out = sp(&["lint", p(&m), "--format", "github"], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l.starts_with(
            "::error file=jobs/orders.py,line=42,title=STATEFUL_OPERATOR_WITHOUT_UID::"
        )),
        "{text}"
    );
    std::fs::remove_file(&m).ok();
}

#[test]
fn gitlab_code_quality_lists_each_finding_with_a_stable_fingerprint() {
    let c = case("insert-key-nouid-allow");
    let run = || {
        let out = sp(
            &[
                "diff",
                p(&c.old),
                p(&c.new),
                "--allow-non-restored-state",
                "--format",
                "gitlab",
            ],
            &[],
        );
        serde_json::from_slice::<Value>(&out.stdout).expect("json")
    };
    let (a, b) = (run(), run());
    let issues = a.as_array().expect("an array");
    let json = sp(
        &[
            "diff",
            p(&c.old),
            p(&c.new),
            "--allow-non-restored-state",
            "--format",
            "json",
        ],
        &[],
    );
    let v: Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(
        issues.len(),
        v["findings"].as_array().expect("findings").len()
    );
    let shifted = issues
        .iter()
        .find(|i| i["check_name"] == "STATE_SHIFTED")
        .expect("a shift");
    assert_eq!(shifted["severity"], "critical");
    assert!(shifted["location"]["lines"]["begin"].as_u64().is_some());
    let mut prints: Vec<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().expect("fp"))
        .collect();
    let n = prints.len();
    prints.sort();
    prints.dedup();
    assert_eq!(prints.len(), n, "fingerprints are unique");
    assert_eq!(a, b, "and stable");
}
