//! Inputs a CI gate must never pass, hang on, read outside of, or write to: each built here (FIFOs,
//! symlinks, sparse files, byte-order marks), each asserting the exit code and the message. Memory and
//! time bounds are measured in benches/hostile.sh, not here.

use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

/// Runs the binary; a run that has not ended after 60 s is killed and fails the test (a FIFO that hangs
/// it must not hang the suite).
fn sp(args: &[&str]) -> Output {
    sp_env(args, &[])
}

fn sp_env(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sp-inspect"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sp-inspect");
    // Drain both pipes while waiting, so that a large output cannot block the child.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        stdout.read_to_end(&mut b).map(|_| b)
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        stderr.read_to_end(&mut b).map(|_| b)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            panic!("sp-inspect {args:?} still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out_reader.join().expect("join").expect("read stdout"),
        stderr: err_reader.join().expect("join").expect("read stderr"),
    }
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Asserts exit 2 with `needle` in stderr, and nothing on stdout.
fn refused(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(o));
    assert!(
        stderr(o).contains(needle),
        "{needle:?} not in: {}",
        stderr(o)
    );
    assert!(o.stdout.is_empty(), "partial output: {}", stdout(o));
}

/// A fresh temporary directory for one test.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sp-hostile-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn fixture(rel: &str) -> PathBuf {
    common::fixtures_dir().join(rel)
}

/// A savepoint of Flink 2.3 with uids, and a graph of the same job.
fn v6() -> PathBuf {
    fixture("v6-flink2.3-hashmap-savepoint/snapshot")
}

fn new_graph() -> PathBuf {
    fixture("redeploy-flink2.3/cases/insert-key-uids/new-graph.json")
}

fn redeploy_old() -> PathBuf {
    fixture("redeploy-flink2.3/v1-uid/snapshot")
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo")
        .success();
    assert!(ok, "mkfifo {path:?}");
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", stdout(o), stderr(o)))
}

/// The message of the first finding of `rule` in a gate document.
fn rule_message(v: &Value, rule: &str) -> String {
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == rule)
        .and_then(|f| f["message"].as_str())
        .unwrap_or_else(|| panic!("no {rule} in {v}"))
        .to_string()
}

fn rules_of(v: &Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn sha(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("read")
}

// 1. Content sniffing: nothing is a uid list by accident.

#[test]
fn an_empty_or_truncated_metadata_is_an_input_error_not_an_empty_graph() {
    let d = tmp("empty");
    let empty = d.join("_metadata");
    std::fs::write(&empty, b"").expect("write");
    refused(
        &sp(&["diff", p(&empty), p(&new_graph())]),
        "empty file (0 bytes)",
    );
    refused(&sp(&["lint", p(&empty)]), "empty file (0 bytes)");
    // Given as its directory, too.
    refused(
        &sp(&["diff", p(&d), p(&new_graph())]),
        "empty file (0 bytes)",
    );
    refused(&sp(&["show", p(&d)]), "empty file (0 bytes)");
    std::fs::write(&empty, [0x49, 0x60, 0x67]).expect("write");
    refused(&sp(&["lint", p(&empty)]), "truncated _metadata");
    refused(&sp(&["state", p(&empty)]), "truncated _metadata");
}

#[test]
fn a_gigabyte_of_nul_bytes_is_binary_data() {
    let d = tmp("nul");
    let f = d.join("_metadata");
    std::fs::File::create(&f)
        .and_then(|h| h.set_len(1 << 30))
        .expect("sparse file");
    let o = sp(&["lint", p(&f)]);
    refused(&o, "binary data");
    assert!(stderr(&o).contains("all zero bytes"), "{}", stderr(&o));
    refused(
        &sp(&["diff", p(&f), p(&new_graph())]),
        "byte offset 0 holds 00 00 00 00",
    );
}

#[test]
fn source_files_json_arrays_and_json_lines_are_not_uid_lists() {
    let d = tmp("text");
    let job = d.join("my_job.py");
    std::fs::write(
        &job,
        "from pyflink.datastream import StreamExecutionEnvironment\n\ndef main():\n    if True:\n        pass\n    else:\n        pass\n",
    )
    .expect("write");
    refused(&sp(&["lint", p(&job)]), "looks like Python source");
    let arr = d.join("a.json");
    std::fs::write(&arr, "[1,2,3]").expect("write");
    refused(
        &sp(&["lint", p(&arr)]),
        "a JSON array, not a graph manifest",
    );
    let lines = d.join("l.json");
    std::fs::write(&lines, "{\"uid\": \"a\"}\n{\"uid\": \"b\"}\n").expect("write");
    refused(&sp(&["lint", p(&lines)]), "JSON lines");
    refused(&sp(&["show", p(&v6()), "--uids", p(&lines)]), "JSON lines");
    let plain = d.join("uids.txt");
    std::fs::write(&plain, "numbers\ncount-per-key\n").expect("write");
    refused(&sp(&["lint", p(&plain)]), "# sp-inspect/uids-v1");
    refused(
        &sp(&["show", p(&v6()), "--uids", p(&plain)]),
        "# sp-inspect/uids-v1",
    );
    let other = d.join("other.json");
    std::fs::write(&other, "{\"schema\": \"sp-inspect/diff-v1\"}").expect("write");
    refused(
        &sp(&["lint", p(&other)]),
        "JSON with schema \"sp-inspect/diff-v1\"",
    );
}

#[test]
fn a_manifest_with_a_byte_order_mark_is_a_manifest() {
    let d = tmp("bom");
    let m = d.join("g.json");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(std::fs::read(new_graph()).expect("read"));
    std::fs::write(&m, bytes).expect("write");
    let o = sp(&["lint", p(&m), "--format", "json", "--fail-on", "never"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["inputs"][0]["kind"], "graph manifest");
    let o = sp(&["diff", p(&redeploy_old()), p(&m), "--format", "json"]);
    assert_eq!(json(&o)["verdict"], "restores");
}

#[test]
fn empty_graphs_are_input_errors() {
    let d = tmp("emptygraph");
    let m = d.join("g.json");
    std::fs::write(&m, r#"{"schema": "sp-inspect/graph-v1", "operators": []}"#).expect("w");
    refused(&sp(&["lint", p(&m)]), "at operators: is empty");
    let u = d.join("uids");
    std::fs::write(&u, "# sp-inspect/uids-v1\n# none yet\n\n").expect("w");
    refused(&sp(&["lint", p(&u)]), "a uid list without uids");
    refused(&sp(&["diff", p(&v6()), p(&u)]), "a uid list without uids");
}

#[test]
fn a_uid_list_with_the_marker_is_a_graph_and_warns_when_nothing_matches() {
    let d = tmp("uids");
    let u = d.join("uids");
    std::fs::write(&u, "# sp-inspect/uids-v1\nnumbers\ncount-per-key\nprint\n").expect("w");
    let o = sp(&[
        "diff",
        p(&v6()),
        p(&u),
        "--format",
        "json",
        "--fail-on",
        "never",
    ]);
    let v = json(&o);
    assert_eq!(v["inputs"]["new"]["kind"], "uid list");
    let restored = v["operators"]
        .as_array()
        .expect("ops")
        .iter()
        .filter(|e| e["status"] == "restored")
        .count();
    assert_eq!(restored, 3, "{v}");
    let none = d.join("none");
    std::fs::write(&none, "# sp-inspect/uids-v1\nnot-an-operator\n").expect("w");
    let o = sp(&["show", p(&v6()), "--uids", p(&none)]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("no uid of the --uids list is the uid of an operator"),
        "{}",
        stderr(&o)
    );
}

// 2. Wrong-kind arguments.

#[test]
fn swapped_arguments_are_refused_naming_the_order() {
    refused(
        &sp(&["diff", p(&new_graph()), p(&redeploy_old())]),
        "diff takes the state first",
    );
}

#[test]
fn graph_options_must_be_manifests_of_the_savepoint_they_describe() {
    let old = fixture("v4-flink1.17-hashmap-savepoint-nouid/snapshot");
    let its_graph = fixture("v4-flink1.17-hashmap-savepoint-nouid/graph-java.json");
    // A savepoint where a manifest belongs.
    refused(
        &sp(&["diff", p(&old), p(&new_graph()), "--old-graph", p(&v6())]),
        "expected the graph manifest",
    );
    refused(
        &sp(&["lint", p(&old), "--graph", p(&old)]),
        "expected the graph manifest",
    );
    // A manifest of another job.
    refused(
        &sp(&[
            "diff",
            p(&old),
            p(&new_graph()),
            "--old-graph",
            p(&new_graph()),
        ]),
        "shares no operator ID with",
    );
    refused(
        &sp(&["lint", p(&old), "--graph", p(&new_graph())]),
        "shares no operator ID",
    );
    // Options that do nothing.
    refused(
        &sp(&[
            "diff",
            p(&old),
            p(&new_graph()),
            "--new-graph",
            p(&its_graph),
        ]),
        "--new-graph does nothing",
    );
    refused(
        &sp(&[
            "diff",
            p(&new_graph()),
            p(&new_graph()),
            "--old-graph",
            p(&its_graph),
        ]),
        "--old-graph does nothing",
    );
    refused(
        &sp(&["lint", p(&new_graph()), "--graph", p(&its_graph)]),
        "does nothing",
    );
    // The right one is taken, and says how much it names.
    let o = sp(&[
        "lint",
        p(&old),
        "--graph",
        p(&its_graph),
        "--format",
        "json",
    ]);
    let v = json(&o);
    assert_eq!(
        v["inputs"][1]["kind"],
        format!("graph manifest, names 4 of the 4 operators of {}", p(&old))
    );
}

// 3. What could not be checked is a finding.

#[test]
fn lint_of_a_savepoint_without_uids_says_the_uid_rules_did_not_run() {
    let old = fixture("v4-flink1.17-hashmap-savepoint-nouid/snapshot");
    let o = sp(&["lint", p(&old), "--format", "json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "a warning, below the default threshold"
    );
    let v = json(&o);
    let f = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "RULES_NOT_CHECKED")
        .expect("RULES_NOT_CHECKED");
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["category"], "COVERAGE");
    let m = f["message"].as_str().expect("message");
    assert!(
        m.contains("STATEFUL_OPERATOR_WITHOUT_UID") && m.contains("--graph"),
        "{m}"
    );
    assert_eq!(
        sp(&["lint", p(&old), "--fail-on", "warning"]).status.code(),
        Some(1)
    );
    let table = stdout(&sp(&["lint", p(&old)]));
    assert!(table.contains("1 check could not run"), "{table}");
    // With the job's manifest the rules run, and find the uid-less stateful operators.
    let graph = fixture("v4-flink1.17-hashmap-savepoint-nouid/graph-java.json");
    let v = json(&sp(&[
        "lint",
        p(&old),
        "--graph",
        p(&graph),
        "--format",
        "json",
    ]));
    let rules = rules_of(&v);
    assert!(!rules.contains(&"RULES_NOT_CHECKED".into()), "{rules:?}");
    assert_eq!(
        rules
            .iter()
            .filter(|r| *r == "STATEFUL_OPERATOR_WITHOUT_UID")
            .count(),
        2,
        "{rules:?}"
    );
}

#[test]
fn a_uid_less_job_fails_the_gate_on_flink_1_17_as_on_2_0() {
    // The same GenJob without uids, diffed against its own manifest: formats 4 and 5 agree now.
    for dir in [
        "v4-flink1.17-hashmap-savepoint-nouid",
        "v5-flink2.0-rocksdb-native-savepoint-nouid",
    ] {
        let d = fixture(dir);
        let o = sp(&[
            "diff",
            p(&d.join("snapshot")),
            p(&d.join("graph-java.json")),
            "--format",
            "json",
        ]);
        assert_eq!(o.status.code(), Some(1), "{dir}: {}", stdout(&o));
        let rules = rules_of(&json(&o));
        let stateful = rules
            .iter()
            .filter(|r| *r == "STATEFUL_OPERATOR_WITHOUT_UID")
            .count();
        assert_eq!(stateful, 2, "{dir}: {rules:?}");
    }
}

#[test]
fn stateful_operators_without_uid_are_reported_once() {
    // NEW a savepoint: its own state and the state it restores name the same operators.
    let nouid = fixture("redeploy-flink2.3/v1-nouid/snapshot");
    let v = json(&sp(&["diff", p(&nouid), p(&nouid), "--format", "json"]));
    let mut ids: Vec<String> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "STATEFUL_OPERATOR_WITHOUT_UID")
        .map(|f| f["operator_id"].as_str().expect("id").to_string())
        .collect();
    let n = ids.len();
    assert!(n > 0);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicates among {n}");
}

fn manifest(stateful: &str) -> String {
    format!(
        r#"{{"schema": "sp-inspect/graph-v1", "operators": [
            {{"id": "0123456789abcdef0123456789abcdef", "name": "Source: s", "source": true, "stateful": {stateful}}},
            {{"uid": "sink", "name": "Sink: out", "stateful": false}}]}}"#
    )
}

#[test]
fn lint_of_a_manifest_uses_what_it_says_of_statefulness() {
    let d = tmp("stateful");
    let run = |stateful: &str| {
        let m = d.join(format!("{stateful}.json"));
        std::fs::write(&m, manifest(stateful)).expect("write");
        json(&sp(&[
            "lint",
            p(&m),
            "--format",
            "json",
            "--fail-on",
            "never",
        ]))
    };
    let r = rules_of(&run("true"));
    assert!(r.contains(&"STATEFUL_OPERATOR_WITHOUT_UID".into()), "{r:?}");
    let r = rules_of(&run("false"));
    assert_eq!(r, vec!["OPERATOR_WITHOUT_UID".to_string()]);
    let v = run("null");
    let r = rules_of(&v);
    assert!(r.contains(&"RULES_NOT_CHECKED".into()), "{r:?}");
    assert!(
        !r.contains(&"STATEFUL_OPERATOR_WITHOUT_UID".into()),
        "{r:?}"
    );
    let m = rule_message(&v, "RULES_NOT_CHECKED");
    assert!(m.contains("Source: s"), "names the operator: {m}");
}

#[test]
fn state_files_outside_the_snapshot_are_a_finding_until_allowed() {
    // A file-merging checkpoint: its source state lies in absolute paths outside the snapshot.
    let cp = fixture("v6-flink2.3-rocksdb-file-merging-checkpoint/snapshot");
    let v = json(&sp(&[
        "lint",
        p(&cp),
        "--format",
        "json",
        "--fail-on",
        "never",
    ]));
    let m = &rule_message(&v, "RULES_NOT_CHECKED");
    assert!(
        m.contains("KAFKA_PENDING_TRANSACTIONS") && m.contains("--allow-absolute-paths"),
        "{m}"
    );
}

// 4. Files that are not regular files.

#[test]
fn fifos_and_devices_are_refused_without_blocking() {
    let d = tmp("fifo");
    let fifo = d.join("_metadata");
    mkfifo(&fifo);
    for cmd in ["show", "state", "lint"] {
        refused(
            &sp(&[cmd, p(&fifo)]),
            "is a FIFO (named pipe), expected a regular file",
        );
    }
    refused(&sp(&["show", p(&d)]), "is a FIFO");
    refused(&sp(&["diff", p(&fifo), p(&new_graph())]), "is a FIFO");
    refused(&sp(&["diff", p(&v6()), p(&fifo)]), "is a FIFO");
    refused(&sp(&["show", p(&v6()), "--uids", p(&fifo)]), "is a FIFO");
    refused(&sp(&["lint", p(&v6()), "--config", p(&fifo)]), "is a FIFO");
    refused(&sp(&["lint", p(&v6()), "--graph", p(&fifo)]), "is a FIFO");
    refused(
        &sp(&["lint", "/dev/zero"]),
        "/dev/zero: is a character device",
    );
    refused(
        &sp(&["diff", "/dev/zero", p(&new_graph())]),
        "is a character device",
    );
    // A directory named _metadata.
    let dir = tmp("dirmeta");
    std::fs::create_dir(dir.join("_metadata")).expect("mkdir");
    refused(
        &sp(&["show", p(&dir)]),
        "is a directory, expected a regular file",
    );
}

/// Flink's savepoint of a job with uids (format 6) with the source's state moved out of `_metadata` into
/// relative files next to it, as Flink writes operator state larger than
/// `state.storage.fs.memory-threshold` (the fixture's is below it, so inline). The bytes are Flink's.
fn with_source_state_in_files(name: &str) -> (PathBuf, Vec<PathBuf>) {
    use sp_inspect::model::StreamHandle;
    let bytes = std::fs::read(v6().join("_metadata")).expect("read");
    let mut md = sp_inspect::metadata::decode(&bytes, Default::default()).expect("decode");
    let d = tmp(name);
    let mut files = Vec::new();
    let source = md
        .operators
        .iter_mut()
        .find(|o| o.uid.as_deref() == Some("numbers"))
        .expect("the source");
    for (i, s) in source.subtasks.iter_mut().enumerate() {
        let Some(st) = s.state.as_mut() else { continue };
        let Some(h) = st.managed_operator_state.handle.as_mut() else {
            continue;
        };
        if let Some(StreamHandle::ByteStream { data, .. }) = &h.delegate {
            let file = format!("source-state-{i}");
            std::fs::write(d.join(&file), data).expect("write state");
            files.push(d.join(&file));
            h.delegate = Some(StreamHandle::RelativeFile {
                path: file,
                size: data.len() as i64,
            });
        }
    }
    assert_eq!(files.len(), 3, "three subtasks with source state");
    std::fs::write(
        d.join("_metadata"),
        sp_inspect::metadata::encode::encode(&md),
    )
    .expect("write");
    // Read as it is, it is the fixture's state.
    let o = sp(&["state", p(&d), "--operator", "numbers"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("number sequence split"),
        "{}",
        stdout(&o)
    );
    (d, files)
}

#[test]
fn a_state_file_that_is_a_fifo_is_a_problem_not_a_hang() {
    let (d, files) = with_source_state_in_files("fifostate");
    for f in &files {
        std::fs::remove_file(f).expect("rm");
        mkfifo(f);
    }
    let o = sp(&["state", p(&d)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is a FIFO"), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("incomplete: 3 state handles"),
        "{}",
        stdout(&o)
    );
    // diff and lint read the source's state too: they say which rules could not run.
    let v = json(&sp(&[
        "lint",
        p(&d),
        "--format",
        "json",
        "--fail-on",
        "never",
    ]));
    assert!(rules_of(&v).contains(&"RULES_NOT_CHECKED".into()), "{v}");
}

// 5. Symlinks do not leave the snapshot.

#[test]
fn a_state_file_symlinked_out_of_the_snapshot_is_not_followed_and_not_shown() {
    let (d, files) = with_source_state_in_files("symlink");
    let secret_dir = tmp("secret");
    let secret = secret_dir.join("passwd");
    std::fs::write(&secret, "root:x:0:0:root:/root:/bin/bash\n").expect("write");
    for f in &files {
        std::fs::remove_file(f).expect("rm");
        std::os::unix::fs::symlink(&secret, f).expect("symlink");
    }
    for args in [
        vec!["state", p(&d)],
        vec!["state", p(&d), "--format", "json"],
        vec!["show", p(&d), "--state"],
        vec!["lint", p(&d), "--allow-absolute-paths"],
    ] {
        let o = sp(&args);
        let all = format!("{}{}", stdout(&o), stderr(&o));
        assert!(all.contains("through a symlink"), "{args:?}: {all}");
        assert!(!all.contains("root:x"), "{args:?} leaked the target: {all}");
    }
    assert_eq!(sp(&["state", p(&d)]).status.code(), Some(2));
    let o = sp(&["state", p(&d), "--allow-missing-state"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_directory_symlinked_out_of_the_snapshot_is_not_followed() {
    use sp_inspect::model::StreamHandle;
    use sp_inspect::state::access::{AccessError, StateAccess};
    let d = tmp("dirlink");
    let outside = tmp("outside");
    std::fs::write(outside.join("x"), "secret").expect("write");
    std::os::unix::fs::symlink(&outside, d.join("sub")).expect("symlink");
    std::fs::create_dir(d.join("real")).expect("mkdir");
    std::fs::write(d.join("real/x"), "inside").expect("write");
    let a = StateAccess::new(&d, false);
    let h = |path: &str| StreamHandle::RelativeFile {
        path: path.into(),
        size: 6,
    };
    assert_eq!(
        a.read(&h("sub/x"), 100),
        Err(AccessError::EscapesThroughSymlink("sub/x".into()))
    );
    assert_eq!(a.read(&h("real/x"), 100), Ok(b"inside".to_vec()));
    // A snapshot directory that is itself a symlink is fine: its files are inside it.
    let link = tmp("linkeddir").join("snap");
    std::os::unix::fs::symlink(&d, &link).expect("symlink");
    let a = StateAccess::new(&link, false);
    assert_eq!(a.read(&h("real/x"), 100), Ok(b"inside".to_vec()));
}

// 6. Huge inputs that must not be read whole.

#[test]
fn gigabytes_after_the_body_are_counted_not_read() {
    // A real savepoint padded with zeros to 4 GiB (sparse: no disk, and no memory if counted).
    let d = tmp("padded");
    let f = d.join("_metadata");
    std::fs::copy(v6().join("_metadata"), &f).expect("copy");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&f)
        .and_then(|h| h.set_len(4 << 30))
        .expect("pad");
    let body = std::fs::metadata(v6().join("_metadata"))
        .expect("meta")
        .len();
    let o = sp(&["show", p(&f), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let expected = format!(
        "{} bytes after the checkpoint properties (Flink ignores them)",
        (4u64 << 30) - body
    );
    assert!(stderr(&o).contains(&expected), "{}", stderr(&o));
    let o = sp(&["lint", p(&f), "--fail-on", "never"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn text_inputs_are_capped() {
    let d = tmp("big");
    let m = d.join("g.json");
    let mut text =
        r#"{"schema": "sp-inspect/graph-v1", "operators": [{"uid": "a"}], "pad": ""#.to_string();
    text.push_str(&" ".repeat(16 << 20));
    text.push_str("\"}");
    std::fs::write(&m, text).expect("write");
    refused(&sp(&["lint", p(&m)]), "more than the 16 MiB");
    refused(
        &sp(&["lint", p(&v6()), "--config", p(&m)]),
        "larger than 16 MiB",
    );
}

// 7. Rendering is linear: 65,535-byte names (Java's writeUTF limit) are shown whole.

#[test]
fn names_of_65535_bytes_render_whole_in_every_format() {
    let d = tmp("longnames");
    let name = "N".repeat(65_535);
    let ops: Vec<Value> = (0..3)
        .map(|i| {
            // Stateful without uid: a finding that names each, in every format.
            serde_json::json!({"id": format!("{i:032x}"), "name": format!("{name}{i}"), "stateful": true})
        })
        .collect();
    let m = d.join("g.json");
    std::fs::write(
        &m,
        serde_json::json!({"schema": "sp-inspect/graph-v1", "operators": ops}).to_string(),
    )
    .expect("write");
    let summary = d.join("summary.md");
    for format in ["table", "markdown", "json", "github", "sarif", "junit"] {
        let o = sp_env(
            &["diff", p(&v6()), p(&m), "--format", format],
            &[("GITHUB_STEP_SUMMARY", &summary)],
        );
        assert_eq!(o.status.code(), Some(1), "{format}: {}", stderr(&o));
        // github writes the full report to the job summary.
        let text = match format {
            "github" => std::fs::read_to_string(&summary).expect("summary"),
            _ => stdout(&o),
        };
        let n = text.chars().filter(|c| *c == 'N').count();
        assert!(
            n >= 3 * 65_535,
            "{format}: only {n} of the names' characters"
        );
    }
}

// 8. Never write to an input.

#[test]
fn the_report_never_overwrites_an_input() {
    let d = tmp("overwrite");
    let snap = d.join("snap");
    std::fs::create_dir(&snap).expect("mkdir");
    std::fs::copy(v6().join("_metadata"), snap.join("_metadata")).expect("copy");
    let graph = d.join("g.json");
    std::fs::copy(new_graph(), &graph).expect("copy");
    let before = (sha(&snap.join("_metadata")), sha(&graph));
    let meta = snap.join("_metadata");
    refused(
        &sp(&["lint", p(&snap), "-o", p(&meta)]),
        "never writes to its inputs",
    );
    refused(
        &sp(&["lint", p(&meta), "-o", p(&meta)]),
        "never writes to its inputs",
    );
    refused(
        &sp(&["diff", p(&snap), p(&graph), "-o", p(&graph)]),
        "never writes to its inputs",
    );
    // Inside the snapshot directory, even as a new file, and through another spelling of the path.
    let inside = snap.join("report.txt");
    refused(
        &sp(&["lint", p(&snap), "-o", p(&inside)]),
        "never writes to its inputs",
    );
    let dotted = d.join("snap/../snap/_metadata");
    refused(
        &sp(&["lint", p(&meta), "-o", p(&dotted)]),
        "never writes to its inputs",
    );
    assert!(!inside.exists());
    assert_eq!((sha(&snap.join("_metadata")), sha(&graph)), before);
    // Elsewhere is fine.
    let report = d.join("report.json");
    let o = sp(&["lint", p(&snap), "-o", p(&report), "--format", "json"]);
    assert!(o.status.code() == Some(0) || o.status.code() == Some(1));
    assert!(report.is_file());
}

// 9. Exit codes, JSON and error positions.

#[test]
fn state_exits_2_when_state_files_are_missing() {
    let (d, files) = with_source_state_in_files("missing");
    std::fs::remove_file(&files[1]).expect("rm");
    let o = sp(&["state", p(&d), "--format", "json"]);
    assert_eq!(o.status.code(), Some(2));
    let v = json(&o);
    assert_eq!(v["complete"], false);
    assert!(
        stderr(&o).contains("the output is incomplete"),
        "{}",
        stderr(&o)
    );
    let o = sp(&["state", p(&d), "--allow-missing-state", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(json(&o)["complete"], false);
    // The gate says the Kafka rules could not run on that source, and how to make them.
    let v = json(&sp(&[
        "diff",
        p(&d),
        p(&new_graph()),
        "--format",
        "json",
        "--fail-on",
        "never",
    ]));
    let m = &rule_message(&v, "RULES_NOT_CHECKED");
    assert!(
        m.contains("Source: numbers") && m.contains("next to _metadata"),
        "{m}"
    );
    // Complete: every state file there.
    let o = sp(&["state", p(&v6()), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["complete"], true);
}

#[test]
fn lint_json_lists_every_input() {
    let a = v6();
    let b = fixture("v5-flink2.0-hashmap-savepoint/snapshot");
    let v = json(&sp(&[
        "lint",
        p(&a),
        p(&b),
        p(&new_graph()),
        "--format",
        "json",
        "--fail-on",
        "never",
    ]));
    let inputs = v["inputs"].as_array().expect("a list");
    let paths: Vec<&str> = inputs
        .iter()
        .map(|i| i["path"].as_str().expect("path"))
        .collect();
    assert_eq!(paths, vec![p(&a), p(&b), p(&new_graph())]);
}

#[test]
fn errors_name_a_byte_offset_or_a_json_path() {
    let d = tmp("offsets");
    // Invalid UTF-8 past the first 4 KiB of a manifest.
    let m = d.join("g.json");
    let mut bytes = format!(
        r#"{{"schema": "sp-inspect/graph-v1", "operators": [{{"uid": "a"}}], "pad": "{}"#,
        " ".repeat(5000)
    )
    .into_bytes();
    let at = bytes.len();
    bytes.extend_from_slice(b"\xFF\"}");
    std::fs::write(&m, bytes).expect("write");
    refused(
        &sp(&["lint", p(&m)]),
        &format!("byte offset {at}: not UTF-8"),
    );
    // A corrupt magic number.
    let mut meta = std::fs::read(v6().join("_metadata")).expect("read");
    meta[3] ^= 0xFF;
    let f = d.join("_metadata");
    std::fs::write(&f, meta).expect("write");
    refused(
        &sp(&["diff", p(&f), p(&new_graph())]),
        "byte offset 0 holds 49 60 67 d2",
    );
    // A bad value in a manifest.
    let bad = d.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"schema": "sp-inspect/graph-v1", "operators": [{"uid": "a", "stateful": "yes"}]}"#,
    )
    .expect("write");
    refused(&sp(&["lint", p(&bad)]), "at operators[0].stateful");
    // A directory without _metadata that holds checkpoints says which to pass.
    let job = tmp("jobdir");
    for n in ["chk-3", "chk-12"] {
        std::fs::create_dir(job.join(n)).expect("mkdir");
        std::fs::copy(v6().join("_metadata"), job.join(n).join("_metadata")).expect("copy");
    }
    refused(
        &sp(&["show", p(&job)]),
        "it holds 2 snapshots (chk-3, chk-12)",
    );
}
