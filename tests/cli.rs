//! The binary, end to end: outputs checked against Flink's own reading of the fixtures.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

use common::sp;

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn fixture_dirs() -> Vec<PathBuf> {
    common::fixture_dirs(|p| p.join("expected.json").is_file())
}

fn expected(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).expect("read"))
        .expect("json")
}

#[test]
fn show_json_agrees_with_flink_on_every_fixture() {
    for dir in fixture_dirs() {
        let exp = expected(&dir);
        let snapshot = dir.join("snapshot");
        let got = json_of(&sp(&[
            "show",
            "--format",
            "json",
            snapshot.to_str().expect("utf-8 path"),
        ]));
        assert_eq!(got["schema"], "sp-inspect/show-v1");
        assert_eq!(got["format_version"], exp["format_version"], "{dir:?}");
        assert_eq!(got["checkpoint_id"], exp["checkpoint_id"], "{dir:?}");
        if !exp["snapshot_type_class"].is_null() {
            assert_eq!(
                got["snapshot"]["kind"] == "savepoint",
                exp["is_savepoint"] == true,
                "{dir:?}"
            );
            assert_eq!(
                got["snapshot"]["savepoint_format"], exp["savepoint_format"],
                "{dir:?}"
            );
        }
        let ops = got["operators"].as_array().expect("operators");
        let exp_ops = exp["operators"].as_array().expect("operators");
        assert_eq!(ops.len(), exp_ops.len(), "{dir:?}");
        for e in exp_ops {
            let o = ops
                .iter()
                .find(|o| o["id"] == e["id"])
                .unwrap_or_else(|| panic!("{dir:?}: no {}", e["id"]));
            for k in [
                "name",
                "uid",
                "parallelism",
                "max_parallelism",
                "coordinator_state_bytes",
                "state_bytes",
            ] {
                assert_eq!(o[k], e[k], "{dir:?} {} {k}", e["id"]);
            }
            assert_eq!(
                o["subtask_states"],
                serde_json::json!(e["subtasks"].as_array().map(Vec::len)),
                "{dir:?}"
            );
        }
    }
}

#[test]
fn hash_reproduces_the_ids_flink_wrote_for_uids() {
    let mut checked = 0;
    for dir in fixture_dirs() {
        for op in expected(&dir)["operators"].as_array().expect("operators") {
            let Some(uid) = op["uid"].as_str() else {
                continue;
            };
            let got = json_of(&sp(&["hash", "--format", "json", uid]));
            assert_eq!(got["ids"][0]["id"], op["id"], "uid {uid:?} in {dir:?}");
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} uids in the corpus");
}

#[test]
fn hash_sink_gives_the_committer_id_flink_used() {
    // The PyFlink fixture has a FileSink (Sink V2 with a committer) with uid "even-files".
    let exp = expected(&root().join("v6-flink2.3-pyflink-side-output-key-by"));
    let id_of = |uid: &str| {
        exp["operators"]
            .as_array()
            .expect("operators")
            .iter()
            .find(|o| o["uid"] == uid)
            .unwrap_or_else(|| panic!("no operator with uid {uid}"))["id"]
            .clone()
    };
    let got = json_of(&sp(&["hash", "--sink", "--format", "json", "even-files"]));
    let ids = got["ids"].as_array().expect("ids");
    assert_eq!(ids[0]["role"], "sink_writer");
    assert_eq!(ids[0]["id"], id_of("even-files"));
    assert_eq!(ids[1]["role"], "sink_committer");
    assert_eq!(ids[1]["hashed_uid"], "Sink Committer: even-files");
    assert_eq!(ids[1]["id"], id_of("Sink Committer: even-files"));
}

#[test]
fn uids_file_names_operators_of_formats_without_uids() {
    let dir = root().join("v3-flink1.14-hashmap-savepoint/snapshot");
    let uids = std::env::temp_dir().join(format!("sp-inspect-uids-{}", std::process::id()));
    std::fs::write(
        &uids,
        "# sp-inspect/uids-v1\n# uids of GenJob\nnumbers\ncount-per-key\n\nprint\n",
    )
    .expect("write");
    let got = json_of(&sp(&[
        "show",
        "--format",
        "json",
        "--uids",
        uids.to_str().expect("path"),
        dir.to_str().expect("path"),
    ]));
    std::fs::remove_file(&uids).ok();
    let named: Vec<_> = got["operators"]
        .as_array()
        .expect("operators")
        .iter()
        .filter(|o| o["uid_source"] == "uids_file")
        .map(|o| o["uid"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        named.contains(&"numbers".to_string()) && named.contains(&"count-per-key".to_string()),
        "{named:?}"
    );
}

#[test]
fn a_corrupt_file_is_one_error_line_with_offset_and_exit_2() {
    let src = std::fs::read(root().join("v5-flink2.0-hashmap-savepoint/snapshot/_metadata"))
        .expect("fixture");
    let bad = std::env::temp_dir().join(format!("sp-inspect-bad-{}", std::process::id()));
    std::fs::write(&bad, &src[..src.len() / 2]).expect("write");
    let out = sp(&["show", bad.to_str().expect("path")]);
    std::fs::remove_file(&bad).ok();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "no partial output");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("sp-inspect: error: ") && err.contains(bad.to_str().expect("path")),
        "{err}"
    );
    assert!(err.contains("byte offset "), "{err}");
}

#[test]
fn a_missing_file_and_a_bad_flag_exit_2() {
    assert_eq!(
        sp(&["show", "/nonexistent/savepoint"]).status.code(),
        Some(2)
    );
    assert_eq!(sp(&["show", "--frobnicate", "x"]).status.code(), Some(2));
}

#[test]
fn docs_rules_md_is_the_registry() {
    // docs/rules.md is `sp-inspect rules --format markdown`; SP_INSPECT_UPDATE=1 rewrites it.
    let out = sp(&["rules", "--format", "markdown"]);
    assert!(out.status.success());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md");
    if std::env::var_os("SP_INSPECT_UPDATE").is_some() {
        std::fs::write(&path, &out.stdout).expect("write docs/rules.md");
    }
    let doc = std::fs::read(&path).expect("docs/rules.md");
    assert!(
        doc == out.stdout,
        "docs/rules.md is out of date: run with SP_INSPECT_UPDATE=1"
    );
    assert!(sp(&["rules", "STATE_SHIFTED"]).status.success());
    assert_eq!(sp(&["rules", "NO_SUCH_RULE"]).status.code(), Some(2));
}

#[test]
fn small_conveniences_of_the_command_line() {
    let dir = root().join("v6-flink2.3-hashmap-savepoint/snapshot");
    // file: URLs as Flink prints savepoint locations.
    for url in [
        format!("file:{}", dir.display()),
        format!("file://{}", dir.display()),
    ] {
        let out = sp(&["show", &url]);
        assert!(
            out.status.success(),
            "{url}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A near miss is named.
    let out = sp(&[
        "state",
        dir.to_str().expect("path"),
        "--operator",
        "count-per-ky",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean \"count-per-key\"?"));
    let out = sp(&["rules", "STATE_SHIFTD"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean \"STATE_SHIFTED\"?"));
    // A category lists its rules.
    let out = sp(&["rules", "coverage"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("RULES_NOT_CHECKED") && !text.contains("STATE_SHIFTED"),
        "{text}"
    );
    // FileSource's no-offset marker is said in words.
    let files = root().join("v6-flink2.3-filesource-savepoint/snapshot");
    let out = sp(&[
        "state",
        files.to_str().expect("path"),
        "--operator",
        "files",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("resumes from the split's start, skipping") && !text.contains("at -1"),
        "{text}"
    );
    assert!(text.contains(": 1 element\n"), "{text}");
}

#[test]
fn ls_lists_completed_snapshots_and_latest_takes_the_highest_checkpoint_id() {
    let job = std::env::temp_dir().join(format!("sp-inspect-job-{}", std::process::id()));
    std::fs::remove_dir_all(&job).ok();
    // Real checkpoints of IDs 4, 13 and 5; chk-99 in progress (no _metadata), chk-50 failed (empty).
    for (dir, fixture) in [
        ("chk-4", "v6-flink2.3-rocksdb-incremental-checkpoint"),
        ("chk-13", "v6-flink2.3-hashmap-unaligned-checkpoint"),
        ("chk-5", "v6-flink2.3-hashmap-changelog-checkpoint"),
    ] {
        std::fs::create_dir_all(job.join(dir)).expect("mkdir");
        std::fs::copy(
            root().join(fixture).join("snapshot/_metadata"),
            job.join(dir).join("_metadata"),
        )
        .expect("copy");
    }
    std::fs::create_dir_all(job.join("chk-99")).expect("mkdir");
    std::fs::create_dir_all(job.join("chk-50")).expect("mkdir");
    std::fs::write(job.join("chk-50/_metadata"), b"").expect("write");
    let v = json_of(&sp(&[
        "ls",
        job.to_str().expect("path"),
        "--format",
        "json",
    ]));
    let ids: Vec<i64> = v["snapshots"]
        .as_array()
        .expect("snapshots")
        .iter()
        .map(|s| s["checkpoint_id"].as_i64().expect("id"))
        .collect();
    assert_eq!(ids, [4, 5, 13]);
    assert!(v["latest"].as_str().expect("latest").ends_with("chk-13"));
    let out = sp(&[
        "show",
        "--latest",
        "--format",
        "json",
        job.to_str().expect("path"),
    ]);
    assert_eq!(json_of(&out)["checkpoint_id"], 13);
    let out = sp(&["hash", "--latest", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--latest does nothing here"));
    std::fs::remove_dir_all(&job).ok();
}

#[test]
fn completions_and_a_man_page() {
    let out = sp(&["completions", "bash"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("sp-inspect"));
    let out = sp(&["man"]);
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.starts_with(".ie") || page.contains(".TH"), "{page}");
    assert!(
        page.contains("remap") && page.contains("verify"),
        "subcommands listed"
    );
}
