//! The `defined_at` field of the PyFlink graph manifests (`contrib/pyflink/sp_inspect_graph.py`, regenerated
//! from the repository root with `SP_GRAPH_ONLY=1 fixtures/gen/generate-pyflink.sh` and
//! `fixtures/gen/generate-redeploys.sh VERSION`): every operator points at a line of the job file in this
//! repository, and that line holds the PyFlink call that creates the operator. The manifests are read as plain
//! JSON, not through the crate's manifest parser.

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn dirs(parent: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(parent)
        .unwrap_or_else(|e| panic!("{}: {e}", parent.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        })
        .collect();
    out.sort();
    out
}

/// Every manifest the PyFlink helper wrote.
fn manifests() -> Vec<PathBuf> {
    let fixtures = repo().join("fixtures");
    let mut out = vec![fixtures.join("v6-flink2.3-pyflink-side-output-key-by/graph.json")];
    let redeploys = dirs(&fixtures, "redeploy-flink");
    assert!(
        redeploys.len() >= 2,
        "redeploy fixtures for Flink 2.3 and 1.20"
    );
    for redeploy in redeploys {
        let olds = dirs(&redeploy, "v1-");
        let cases = dirs(&redeploy.join("cases"), "");
        assert!(
            !olds.is_empty() && !cases.is_empty(),
            "{}",
            redeploy.display()
        );
        out.extend(olds.into_iter().map(|d| d.join("graph.json")));
        out.extend(cases.into_iter().map(|d| d.join("new-graph.json")));
    }
    for m in &out {
        assert!(m.is_file(), "{} is missing", m.display());
    }
    out
}

fn load(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// (operator name, defined_at file, line text) of every operator of a manifest; the lines are checked first.
fn located(
    manifest: &Path,
    files: &mut HashMap<String, Vec<String>>,
) -> Vec<(String, String, String)> {
    let doc = load(manifest);
    let ops = doc["operators"].as_array().expect("operators");
    assert!(!ops.is_empty(), "{}: no operators", manifest.display());
    let mut out = Vec::new();
    for op in ops {
        let name = op["name"].as_str().expect("name").to_string();
        let at = &op["defined_at"];
        let file = at["file"]
            .as_str()
            .unwrap_or_else(|| panic!("{}: {name}: defined_at {at}", manifest.display()));
        assert!(
            !Path::new(file).is_absolute(),
            "{}: {name}: {file} is not repository-relative",
            manifest.display()
        );
        let lines = files.entry(file.to_string()).or_insert_with(|| {
            let text = std::fs::read_to_string(repo().join(file))
                .unwrap_or_else(|e| panic!("{}: {name}: {file}: {e}", manifest.display()));
            text.lines().map(str::to_string).collect()
        });
        let line = at["line"]
            .as_u64()
            .unwrap_or_else(|| panic!("{}: {name}: line {at}", manifest.display()));
        assert!(
            line >= 1 && line as usize <= lines.len(),
            "{}: {name}: {file}:{line} is past the file's {} lines",
            manifest.display(),
            lines.len()
        );
        out.push((name, file.to_string(), lines[line as usize - 1].clone()));
    }
    out
}

/// The PyFlink calls one of which the line creating an operator of this name must hold. A fused Python
/// operator ("count a, Filter") is located at its first part.
fn calls_for(name: &str) -> &'static [&'static str] {
    if name.starts_with("Source: ") {
        return &["from_source", "add_source"];
    }
    if name.starts_with("Sink: ") || name.ends_with(": Writer") || name.ends_with(": Committer") {
        return &["sink_to", "add_sink", "print"];
    }
    match name.split(", ").next().unwrap_or(name) {
        "_stream_key_by_map_operator" => &["key_by"],
        // get_side_output's identity Map, or the job's own map
        "Map" => &["get_side_output", ".map("],
        "Filter" => &[".filter("],
        // the job's named process functions: "route a", "count a", "split"
        _ => &[".process("],
    }
}

#[test]
fn every_operator_points_at_the_call_that_creates_it() {
    let mut files = HashMap::new();
    let mut checked = 0;
    for manifest in manifests() {
        for (name, file, text) in located(&manifest, &mut files) {
            let calls = calls_for(&name);
            assert!(
                calls.iter().any(|c| text.contains(c)),
                "{}: {name} at {file}: {text:?} holds none of {calls:?}",
                manifest.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} operators checked");
}

/// Finds the line text of the operator named `name` in a manifest (the first of that name).
fn line_of(manifest: &str, name: &str) -> (String, String) {
    let mut files = HashMap::new();
    located(&repo().join(manifest), &mut files)
        .into_iter()
        .find(|(n, _, _)| n == name)
        .map(|(_, f, t)| (f, t))
        .unwrap_or_else(|| panic!("{manifest}: no operator {name:?}"))
}

fn assert_at(manifest: &str, name: &str, file: &str, expected: &[&str]) {
    let (f, text) = line_of(manifest, name);
    assert_eq!(f, file, "{manifest}: {name}");
    for e in expected {
        assert!(
            text.contains(e),
            "{manifest}: {name}: {text:?} does not hold {e:?}"
        );
    }
}

#[test]
fn router_job_operators_by_name() {
    let job = "fixtures/gen/router_job.py";
    for m in [
        "fixtures/redeploy-flink2.3/v1-uid/graph.json",
        "fixtures/redeploy-flink1.20/v1-nouid/graph.json",
        "fixtures/redeploy-flink2.3/cases/insert-key-nouid-fixed/new-graph.json",
        "fixtures/redeploy-flink1.20/cases/uids-renamed-fixed/new-graph.json",
    ] {
        assert_at(m, "Source: topic-a", job, &["env.from_source("]);
        assert_at(m, "route b", job, &["src.process(Route("]);
        // get_side_output's identity Map fused with the filter after it
        assert_at(m, "Map, Filter", job, &["routed.get_side_output(tag)"]);
        assert_at(m, "Sink: high sink c", job, &[".print()", "sink %s"]);
        // key_by's hidden operator: the key_by call
        assert_at(m, "_stream_key_by_map_operator", job, &["key_by("]);
        // the fused count: its first part, the keyed process
        assert_at(m, "count a, Filter", job, &["key_by(", ".process(Count("]);
        assert_at(
            m,
            "Sink: count sink a",
            job,
            &["counted.filter(", ".print()"],
        );
    }
}

#[test]
fn pyflink_router_operators_by_name() {
    let m = "fixtures/v6-flink2.3-pyflink-side-output-key-by/graph.json";
    let job = "fixtures/gen/pyflink_router.py";
    assert_at(m, "Source: numbers", job, &["env.from_source("]);
    assert_at(m, "split", job, &["numbers.process(Split()"]);
    // the side output's identity Map fused with key_by's _stream_key_by_map_operator: the get_side_output
    assert_at(
        m,
        "Map, _stream_key_by_map_operator",
        job,
        &["split.get_side_output(ODD)"],
    );
    assert_at(
        m,
        "count odd, Filter",
        job,
        &["odd.key_by(", ".process(Count()"],
    );
    assert_at(m, "Sink: print odd", job, &["counted.filter(", ".print()"]);
    // a Sink V2 expands into a writer and a committer when the stream graph is generated
    for name in ["even files: Writer", "even files: Committer"] {
        assert_at(m, name, job, &[".sink_to(files)"]);
    }
    assert_at(m, "Filter, Map", job, &["split.filter("]);
}
