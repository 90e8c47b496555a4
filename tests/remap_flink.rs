//! `remap` and `relocate` against real Flink restores (`fixtures/remap/`, made by `fixtures/gen/remap/`):
//! (a) the tool, run again on each committed old savepoint with the committed manifests and flags, writes the
//! committed `_metadata` byte for byte (so any change in what it writes shows here, and must be re-verified on
//! Flink), and leaves OLD untouched; (b) what Flink did with that `_metadata`, as recorded: restored without
//! allowNonRestoredState, every source resuming its own saved split positions, every keyed state restored on
//! its own operator.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn dir() -> PathBuf {
    common::fixtures_dir().join("remap")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sp-remap-flink-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    d
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json")
}

/// Every file under `dir` with its bytes, to show OLD is not written.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            out.extend(snapshot(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).expect("read")));
        }
    }
    out.sort();
    out
}

/// The remap cases (not the relocate one), newest first as named.
fn cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("fixtures/remap")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("remap-flags.txt").exists())
        .collect();
    v.sort();
    v
}

#[test]
fn the_formats_flink_writes_are_all_covered() {
    let names: Vec<String> = cases()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for prefix in [
        "v6-flink2.3-hashmap",
        "v6-flink2.3-rocksdb",
        "v5-flink2.0",
        "v4-flink1.20",
        "v3-flink1.14",
        "v2-flink1.10",
    ] {
        assert!(
            names.iter().any(|n| n.starts_with(prefix)),
            "no case {prefix}*: {names:?}"
        );
    }
}

#[test]
fn remap_reproduces_the_committed_metadata_byte_for_byte() {
    for case in cases() {
        let new = if case.join("uids.txt").exists() {
            "uids.txt"
        } else {
            "graph-uids.json"
        };
        let flags = std::fs::read_to_string(case.join("remap-flags.txt")).expect("flags");
        let out = tmp(&case.file_name().unwrap().to_string_lossy());
        let before = snapshot(&case.join("old"));
        let r = Command::new(env!("CARGO_BIN_EXE_sp-inspect"))
            .current_dir(&case)
            .args(["remap", "old", new])
            .args(flags.split_whitespace())
            .arg("--output")
            .arg(&out)
            .output()
            .expect("run sp-inspect");
        assert!(
            r.status.success(),
            "{}: {}",
            case.display(),
            String::from_utf8_lossy(&r.stderr)
        );
        let written = std::fs::read(out.join("_metadata")).expect("written");
        let committed = std::fs::read(case.join("remapped/_metadata")).expect("committed");
        assert!(
            written == committed,
            "{}: remap no longer writes what Flink restored ({} vs {} bytes): regenerate with fixtures/gen/remap/generate.sh and check Flink's outcome",
            case.display(),
            written.len(),
            committed.len()
        );
        assert_eq!(
            before,
            snapshot(&case.join("old")),
            "{}: OLD was written",
            case.display()
        );
        // --copy: every state file of old/ is in the new directory, unchanged. Format 2 (Flink 1.10) has no
        // relative handles: its savepoint names its files by absolute path (where Flink wrote them, under
        // /tmp), so there is nothing to copy and the new _metadata names the same absolute files.
        let format2 = json(&case.join("flink-outcome.json"))["format"] == "02";
        for (p, bytes) in &before {
            let rel = p.strip_prefix(case.join("old")).unwrap();
            if format2 {
                assert!(
                    !out.join(rel).exists() || rel == Path::new("_metadata"),
                    "{}",
                    rel.display()
                );
            } else if rel != Path::new("_metadata") {
                assert_eq!(
                    &std::fs::read(out.join(rel)).expect("copied"),
                    bytes,
                    "{}",
                    rel.display()
                );
            }
        }
        // The dry run committed beside it is still the mapping.
        let dry = Command::new(env!("CARGO_BIN_EXE_sp-inspect"))
            .current_dir(&case)
            .args(["remap", "old", new])
            .args(flags.split_whitespace())
            .arg("--dry-run")
            .output()
            .expect("run sp-inspect");
        assert_eq!(
            String::from_utf8_lossy(&dry.stdout),
            std::fs::read_to_string(case.join("remap-dry-run.txt")).unwrap(),
            "{}",
            case.display()
        );
        std::fs::remove_dir_all(&out).ok();
    }
}

/// What Flink did, as recorded in one flink-outcome.json: restored without allowNonRestoredState, each source
/// at its own saved positions, each keyed state restored (every state key, its count summing to what the
/// source had emitted, its last value in its own pipeline's range).
fn assert_restored_on_own_operators(case: &Path, o: &Value) {
    let c = case.display();
    assert_eq!(o["allow_non_restored_state"], false, "{c}");
    assert_eq!(
        o["restored"], true,
        "{c}: Flink did not restore: {:?}",
        o["errors"]
    );
    assert_eq!(o["job_status"], "RUNNING", "{c}");
    assert_eq!(o["errors"].as_array().unwrap().len(), 0, "{c}");
    for p in ["alpha", "beta"] {
        let s = &o["sources"][p];
        assert_eq!(
            s["own_position"], true,
            "{c}: source {p} resumed {}",
            s["resumed_from"]
        );
        let resumed = s["resumed_from"].as_array().unwrap();
        assert_eq!(resumed.len(), 2, "{c}: {p}: one position per subtask");
        let base: u64 = if p == "alpha" { 0 } else { 10_000_000_000_000 };
        for (i, v) in resumed.iter().enumerate() {
            let v = v.as_u64().unwrap();
            let start = base + i as u64 * 1_000_000_000_000;
            assert!(
                v > start && v < start + 1_000_000_000_000,
                "{c}: {p} split {i} resumed at {v}, not after its start"
            );
        }
        if let Some(saved) = s.get("saved_in_old_savepoint") {
            assert_eq!(
                saved, &s["resumed_from"],
                "{c}: {p}: resumed where Flink's reader says old/ saved"
            );
        }
        let k = &o["keyed"][p];
        assert_eq!(k["restored"], true, "{c}: keyed state of {p}: {k}");
        assert_eq!(k["state_keys"].as_object().unwrap().len(), 4, "{c}");
        assert_eq!(
            k["sum_restored_counts"], k["records_before_savepoint"],
            "{c}"
        );
        assert!(k["records_before_savepoint"].as_u64().unwrap() > 0, "{c}");
    }
    assert_eq!(o["every_state_on_its_own_operator"], true, "{c}");
}

/// The RemapJob cases (the PyFlink router case's outcome is summarize_restore.py's, checked below).
fn java_cases() -> Vec<PathBuf> {
    cases()
        .into_iter()
        .filter(|c| !c.to_string_lossy().contains("pyflink"))
        .collect()
}

#[test]
fn flink_restored_every_remapped_savepoint_without_allow_non_restored_state() {
    for case in java_cases() {
        let o = json(&case.join("flink-outcome.json"));
        assert_restored_on_own_operators(&case, &o);
        // The case's name carries the release that wrote old/ and restored the result.
        let flink = o["flink"].as_str().unwrap();
        let minor: String = flink.split('.').take(2).collect::<Vec<_>>().join(".");
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.contains(&format!("-flink{minor}-")),
            "{name}: Flink {flink}"
        );
    }
}

/// The State Processor API's changeOperatorIdentifier on the same old savepoints (`spa/`), restored by the same
/// job: on the canonical hashmap savepoint (2.3) Flink restored both outputs the same, operator by operator. On
/// the native RocksDB savepoints (1.17, 2.3) it did not restore the State Processor API's output: its `_metadata` (in its own new
/// directory) keeps the keyed RocksDB files as relative handles, so Flink looked for old/'s files there
/// (FileNotFoundException .../spa-out/<file of old/>) and failed restoring the count operators' keyed state;
/// remap --copy's output restored. With old/'s state files copied beside it, the State Processor API's output
/// restored exactly as remap's did, in every case.
/// What one restore restored of `part` ("sources", "keyed") for pipeline `p`: without the first value each
/// count operator saw after the restore (which source subtask's record arrives first is a race).
fn restored(o: &Value, part: &str, p: &str) -> Value {
    let mut v = o[part][p].clone();
    if let Some(keys) = v.get_mut("state_keys").and_then(Value::as_object_mut) {
        for k in keys.values_mut() {
            k.as_object_mut().unwrap().remove("first_seen");
        }
    }
    v
}

#[test]
fn the_state_processor_api_repair_as_flink_restored_it() {
    let mut seen = Vec::new();
    for case in java_cases() {
        let spa = case.join("spa/flink-outcome.json");
        if !spa.exists() {
            continue;
        }
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let ours = json(&case.join("flink-outcome.json"));
        let theirs = json(&spa);
        assert_eq!(theirs["allow_non_restored_state"], false);
        if name.contains("-rocksdb-native") {
            assert_eq!(
                theirs["restored"], false,
                "{name}: the State Processor API's output now restores"
            );
            let causes: Vec<&str> = theirs["causes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect();
            let missing: Vec<&str> = causes
                .iter()
                .filter_map(|c| c.strip_prefix("java.io.FileNotFoundException: "))
                .filter(|c| c.contains("/spa-out/"))
                .map(|c| {
                    c.split("/spa-out/")
                        .nth(1)
                        .unwrap()
                        .split(' ')
                        .next()
                        .unwrap()
                })
                .collect();
            assert!(!missing.is_empty(), "{causes:?}");
            for f in missing {
                assert!(case.join("old").join(f).exists(), "{f}: not a file of old/");
            }
            // What ran before the failure: each source resumed its own saved position, as from remap's.
            for p in ["alpha", "beta"] {
                assert_eq!(
                    ours["sources"][p]["resumed_from"], theirs["sources"][p]["resumed_from"],
                    "{name}: {p}"
                );
            }
        } else {
            assert_restored_on_own_operators(&case, &theirs);
            for part in ["sources", "keyed"] {
                for p in ["alpha", "beta"] {
                    assert_eq!(
                        restored(&ours, part, p),
                        restored(&theirs, part, p),
                        "{name}: {part} {p}"
                    );
                }
            }
        }
        // Its output with old/'s state files copied beside its _metadata: restored the same as remap's.
        let plus = json(&case.join("spa/flink-outcome-with-old-files.json"));
        assert_restored_on_own_operators(&case, &plus);
        for part in ["sources", "keyed"] {
            for p in ["alpha", "beta"] {
                assert_eq!(
                    restored(&ours, part, p),
                    restored(&plus, part, p),
                    "{name}: {part} {p} (old/'s files beside)"
                );
            }
        }
        seen.push(name);
    }
    assert_eq!(
        seen,
        [
            "v4-flink1.17-rocksdb-native",
            "v6-flink2.3-hashmap-canonical",
            "v6-flink2.3-rocksdb-native"
        ]
    );
}

#[test]
fn the_pyflink_router_job_with_a_key_inserted_resumes_each_source_on_its_own() {
    let case = dir().join("v6-flink2.3-pyflink-router-insert-key");
    let o = json(&case.join("flink-outcome.json"));
    assert_eq!(o["allow_non_restored_state"], false);
    assert_eq!(o["job_status"], "RUNNING", "{:?}", o["error"]);
    assert_eq!(o["restored"], true);
    assert!(o["error"].is_null());
    assert_eq!(
        o["skipped_state"].as_array().unwrap().len(),
        0,
        "state with content skipped"
    );
    let first = o["first_value_by_key"].as_object().unwrap();
    assert_eq!(first.len(), 4);
    for (key, v) in first {
        assert_eq!(
            v["range_of_key"].as_str(),
            Some(key.as_str()),
            "source {key} resumed another's position"
        );
        let start = (key.as_bytes()[0] - b'a') as u64 * 1_000_000_000;
        let at = v["first_value"].as_u64().unwrap();
        if key == "x" {
            assert_eq!(at, start, "the inserted key starts from its start");
        } else {
            assert!(at > start, "source {key} resumed from zero");
        }
    }
    for key in ["a", "b", "c"] {
        assert_eq!(
            o["keyed_state_by_key"][key]["restored"], true,
            "keyed state of {key}"
        );
        assert_eq!(
            o["keyed_state_by_key"][key]["matches_source_position"], true,
            "keyed state of {key}"
        );
    }
}

/// `old` replaced by `new` at the start of every length-prefixed (u16, as Java's writeUTF) string that starts
/// with it, the length fixed: the same `_metadata` as if its directory had been elsewhere.
fn rebase_utf(bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
    let (old, new) = (old.as_bytes(), new.as_bytes());
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if i + 2 + old.len() <= bytes.len() && &bytes[i + 2..i + 2 + old.len()] == old {
            let len = u16::from_be_bytes([bytes[i], bytes[i + 1]]) as usize;
            if len >= old.len() && i + 2 + len <= bytes.len() {
                let rest = &bytes[i + 2 + old.len()..i + 2 + len];
                out.extend_from_slice(&((new.len() + rest.len()) as u16).to_be_bytes());
                out.extend_from_slice(new);
                out.extend_from_slice(rest);
                i += 2 + len;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// `relocate` on a RocksDB incremental checkpoint of Flink 2.3 whose directory was moved (cluster-a → cluster-b),
/// as Flink restored it: the moved checkpoint as it was fails (its shared files are named under cluster-a);
/// relocate's output directory restores every source and keyed state on its own operator (the checkpoint's
/// exclusive files in chk-N/ are relative handles: relocate points them into the moved chk-N/, since 4b66f04;
/// before, it left them relative and Flink looked for them in the output directory); and so does the same
/// `_metadata` put beside the moved chk-N/ files.
#[test]
fn relocate_as_flink_restored_it() {
    let case = dir().join("relocate-v6-flink2.3-rocksdb-incremental-checkpoint");
    let o = json(&case.join("flink-outcome.json"));
    let out = tmp("relocate");
    let r = Command::new(env!("CARGO_BIN_EXE_sp-inspect"))
        .args(["relocate"])
        .arg(case.join("checkpoint"))
        .args([
            "--from",
            o["from"].as_str().unwrap(),
            "--to",
            o["to"].as_str().unwrap(),
            "--output",
        ])
        .arg(&out)
        .output()
        .expect("run sp-inspect");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // Made from the moved chk-N/ directory; here OLD is the committed checkpoint/ directory.
    let made_in = format!(
        "{}{}/",
        o["to"].as_str().unwrap(),
        o["checkpoint"].as_str().unwrap()
    );
    let here = format!(
        "file:{}/",
        case.join("checkpoint").canonicalize().unwrap().display()
    );
    let committed = std::fs::read(case.join("relocated-_metadata")).unwrap();
    assert!(
        std::fs::read(out.join("_metadata")).unwrap() == rebase_utf(&committed, &made_in, &here),
        "relocate no longer writes what Flink restored: regenerate with fixtures/gen/remap/relocate.sh"
    );
    std::fs::remove_dir_all(&out).ok();

    let unrelocated = json(&case.join("flink-outcome-unrelocated.json"));
    assert_eq!(unrelocated["restored"], false);
    assert!(
        unrelocated["causes"].as_array().unwrap().iter().any(|c| {
            let c = c.as_str().unwrap();
            c.starts_with("java.io.FileNotFoundException: ") && c.contains("/cluster-a/")
        }),
        "{:?}",
        unrelocated["causes"]
    );
    assert_restored_on_own_operators(&case, &o);
    assert_restored_on_own_operators(&case, &json(&case.join("flink-outcome-beside.json")));
}
