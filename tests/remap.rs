//! `remap` and `relocate` on real savepoints: what changes is exactly the operator identities (or the
//! paths), everything else is the old file's, and the old savepoint is untouched. Whether Flink restores
//! the result is shown by the fixtures under `fixtures/remap/` (see tests there once generated).

use sp_inspect::metadata::{decode, DecodeOptions};
use sp_inspect::model::{Metadata, OperatorState, StreamHandle};
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

use common::sp;

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn fx(rel: &str) -> PathBuf {
    common::fixtures_dir().join(rel)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sp-remap-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    d
}

fn read(path: &Path) -> Metadata {
    decode(
        &std::fs::read(path).expect("read"),
        DecodeOptions::default(),
    )
    .expect("decodes")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn manifest_ids(path: &Path) -> Vec<(String, Option<String>, Option<String>)> {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json");
    v["operators"]
        .as_array()
        .expect("operators")
        .iter()
        .map(|o| {
            (
                o["id"].as_str().expect("id").to_string(),
                o["name"].as_str().map(str::to_owned),
                o["uid"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

#[test]
fn a_uid_less_savepoint_gets_the_ids_of_the_job_with_uids_and_nothing_else_changes() {
    let old = fx("redeploy-flink2.3/v1-nouid/snapshot");
    let new = fx("redeploy-flink2.3/cases/insert-key-uids/new-graph.json");
    let before = std::fs::read(old.join("_metadata")).expect("read");
    let out = tmp("uids");
    ok(&sp(&["remap", p(&old), p(&new), "-o", p(&out)]));
    assert_eq!(
        std::fs::read(old.join("_metadata")).expect("read"),
        before,
        "OLD untouched"
    );
    let was = read(&old.join("_metadata"));
    let now = read(&out.join("_metadata"));
    assert_eq!(now.header.version, was.header.version);
    assert_eq!(now.header.checkpoint_id, was.header.checkpoint_id);
    // The trailer is the same bytes (at another offset: fewer operators come before it).
    let trailer = |m: &Metadata| {
        m.tail
            .trailer
            .as_ref()
            .map(|t| (t.bytes.clone(), t.properties.clone()))
    };
    assert_eq!(trailer(&now), trailer(&was));
    let ids = manifest_ids(&new);
    // Every state with content is kept, under the ID, name and uid of the new operator of its name.
    let with_state: Vec<&OperatorState> = was.operators.iter().filter(|o| !o.is_empty()).collect();
    assert_eq!(now.operators.len(), with_state.len());
    for o in with_state {
        let name = o.name.as_deref().expect("format 6 records names");
        let (id, _, uid) = ids
            .iter()
            .find(|(_, n, _)| n.as_deref() == Some(name))
            .expect("a new operator of that name");
        let r = now
            .operators
            .iter()
            .find(|r| r.name.as_deref() == Some(name))
            .expect("kept");
        assert_eq!(&r.id.to_string(), id, "{name}");
        assert_eq!(&r.uid, uid, "{name}");
        // The rest is the old operator's, byte for byte.
        let back = OperatorState {
            id: o.id,
            uid: o.uid.clone(),
            offset: o.offset,
            ..r.clone()
        };
        assert_eq!(&back, o, "{name}");
    }
    // The new job restores it without allowNonRestoredState, every state on its own operator.
    let o = sp(&["diff", p(&out), p(&new), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["verdict"], "restores");
    for e in v["operators"].as_array().expect("ops") {
        assert!(
            ["restored", "new"].contains(&e["status"].as_str().expect("status")),
            "{e}"
        );
        if e["status"] == "restored" {
            assert_eq!(e["old_name"], e["new_name"], "{e}");
        }
    }
}

#[test]
fn formats_without_names_need_the_old_graph_and_the_output_must_be_new() {
    let old = fx("redeploy-flink1.20/v1-nouid/snapshot");
    let new = fx("redeploy-flink1.20/cases/insert-key-uids/new-graph.json");
    let out = tmp("v4");
    let o = sp(&["remap", p(&old), p(&new), "-o", p(&out)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--old-graph") && err.contains("cbc357ccb763df2852fee8c4fc7d55f2"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
    let graph = fx("redeploy-flink1.20/v1-nouid/graph.json");
    ok(&sp(&[
        "remap",
        p(&old),
        p(&new),
        "--old-graph",
        p(&graph),
        "-o",
        p(&out),
    ]));
    assert_eq!(read(&out.join("_metadata")).header.version, 4);
    // Not twice into the same directory, and never into the old savepoint.
    let o = sp(&[
        "remap",
        p(&old),
        p(&new),
        "--old-graph",
        p(&graph),
        "-o",
        p(&out),
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("exists and is not empty"));
    let inside = tmp("inside");
    std::fs::create_dir_all(&inside).expect("dir");
    std::fs::copy(old.join("_metadata"), inside.join("_metadata")).expect("copy");
    let o = sp(&[
        "remap",
        p(&inside),
        p(&new),
        "--old-graph",
        p(&graph),
        "-o",
        p(&inside.join("sub")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("never writes to its inputs"));
}

#[test]
fn a_map_line_decides_what_names_cannot_and_max_parallelism_cannot_change() {
    let old = fx("redeploy-flink2.3/v1-uid/snapshot");
    // The same job with every uid renamed: names pair them; a map line sends one elsewhere.
    let renamed = fx("redeploy-flink2.3/cases/uids-renamed/new-graph.json");
    let map = tmp("map").with_extension("txt");
    std::fs::write(
        &map,
        "# count a's state to count b\ncount a, Filter = v2-count-b\n",
    )
    .expect("write");
    let o = sp(&["remap", p(&old), p(&renamed), "--map", p(&map), "--dry-run"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("would both go to"), "{err}");
    std::fs::write(&map, "nothing = v2-count-b\n").expect("write");
    let o = sp(&["remap", p(&old), p(&renamed), "--map", p(&map), "--dry-run"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--map line 1: no old operator"));
    let text = ok(&sp(&["remap", p(&old), p(&renamed), "--dry-run"]));
    assert!(text.contains("count a, Filter (uid count-a) →"), "{text}");
    let max = fx("redeploy-flink2.3/cases/max-parallelism-changed/new-graph.json");
    let o = sp(&["remap", p(&old), p(&max), "--dry-run"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("key groups cannot be remapped"));
}

/// The private and shared files of the RocksDB handles: `rel:PATH` or `abs:PATH`.
fn relative_files(md: &Metadata) -> Vec<String> {
    let mut v = Vec::new();
    for op in &md.operators {
        for s in op.subtasks.iter().filter_map(|s| s.state.as_ref()) {
            if let Some(sp_inspect::model::KeyedHandle::Incremental(i)) = &s.managed_keyed_state {
                for n in i.private.iter().chain(&i.shared) {
                    match &n.handle {
                        Some(StreamHandle::RelativeFile { path, .. }) => {
                            v.push(format!("rel:{path}"))
                        }
                        Some(StreamHandle::File { path, .. }) => v.push(format!("abs:{path}")),
                        _ => {}
                    }
                }
            }
        }
    }
    v.sort();
    v
}

#[test]
fn relative_state_files_are_pointed_at_or_copied() {
    // A native RocksDB savepoint: its SST and OPTIONS files are relative to the savepoint directory.
    let dir = fx("v4-flink1.17-rocksdb-native-savepoint");
    let (old, graph) = (dir.join("snapshot"), dir.join("graph-java.json"));
    let shared = tmp("shared");
    ok(&sp(&[
        "remap",
        p(&old),
        p(&graph),
        "--old-graph",
        p(&graph),
        "-o",
        p(&shared),
    ]));
    let canonical = old.canonicalize().expect("canonical");
    let files = relative_files(&read(&shared.join("_metadata")));
    assert!(!files.is_empty());
    for f in &files {
        let path = f
            .strip_prefix("abs:file:")
            .unwrap_or_else(|| panic!("absolute: {f}"));
        assert!(
            Path::new(path).starts_with(&canonical) && Path::new(path).is_file(),
            "{f}"
        );
    }
    let copied = tmp("copied");
    ok(&sp(&[
        "remap",
        p(&old),
        p(&graph),
        "--old-graph",
        p(&graph),
        "-o",
        p(&copied),
        "--copy",
    ]));
    let files = relative_files(&read(&copied.join("_metadata")));
    for f in &files {
        let rel = f
            .strip_prefix("rel:")
            .unwrap_or_else(|| panic!("relative: {f}"));
        assert_eq!(
            std::fs::read(copied.join(rel)).expect("copied"),
            std::fs::read(old.join(rel)).expect("original"),
            "{rel}"
        );
    }
    // The copy reads as the original: same state names.
    let a = ok(&sp(&["state", p(&old)]));
    let b = ok(&sp(&["state", p(&copied)]));
    assert_eq!(a, b);
    // relocate leaves no relative path behind either: the new directory does not hold the files.
    let relocated = tmp("relocated-native");
    ok(&sp(&[
        "relocate",
        p(&old),
        "--from",
        "file:/nowhere/",
        "--to",
        "file:/elsewhere/",
        "-o",
        p(&relocated),
    ]));
    for f in relative_files(&read(&relocated.join("_metadata"))) {
        let path = f
            .strip_prefix("abs:file:")
            .unwrap_or_else(|| panic!("absolute: {f}"));
        assert!(
            Path::new(path).starts_with(&canonical) && Path::new(path).is_file(),
            "{f}"
        );
    }
}

#[test]
fn relocate_moves_absolute_paths_under_a_new_prefix() {
    let old = fx("v6-flink2.3-rocksdb-file-merging-checkpoint/snapshot");
    let text = ok(&sp(&["show", "--format", "json", p(&old)]));
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let under = v["absolute_state_paths"]["under"]
        .as_str()
        .expect("a common directory")
        .to_string();
    assert!(under.starts_with("file:/tmp/"), "{under}");
    let out = tmp("relocated");
    let said = ok(&sp(&[
        "relocate",
        p(&old),
        "--from",
        &under,
        "--to",
        "file:/data/cp/",
        "-o",
        p(&out),
    ]));
    assert!(said.contains("moved from"), "{said}");
    let text = ok(&sp(&["show", "--format", "json", p(&out)]));
    let v2: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v2["absolute_state_paths"]["under"], "file:/data/cp/");
    assert_eq!(
        v2["absolute_state_paths"]["count"],
        v["absolute_state_paths"]["count"]
    );
    assert_eq!(
        v2["operators"].as_array().map(Vec::len),
        v["operators"].as_array().map(Vec::len)
    );
}

#[test]
fn the_remap_diff_offers_is_the_mapping_remap_makes() {
    let old = fx("redeploy-flink2.3/v1-nouid/snapshot");
    let new = fx("redeploy-flink2.3/cases/insert-key-uids/new-graph.json");
    let o = sp(&["diff", p(&old), p(&new), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let mut offered: Vec<(String, String)> = v["remap"]["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .map(|p| {
            (
                p["new_id"].as_str().expect("id").to_string(),
                p["by"].as_str().expect("by").to_string(),
            )
        })
        .collect();
    let text = ok(&sp(&["remap", p(&old), p(&new), "--dry-run"]));
    let mut made: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once(" → ")?;
            let id = rest.split_whitespace().next()?.to_string();
            let by = rest
                .rsplit_once("(by ")?
                .1
                .trim_end_matches(')')
                .to_string();
            Some((id, by))
        })
        .collect();
    offered.sort();
    made.sort();
    assert_eq!(offered.len(), 6);
    assert_eq!(offered, made);
    // The table says how.
    let table = String::from_utf8_lossy(&sp(&["diff", p(&old), p(&new)]).stdout).into_owned();
    assert!(
        table.contains("sp-inspect remap") && table.contains("6 states paired"),
        "{table}"
    );
}
