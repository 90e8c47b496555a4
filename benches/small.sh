#!/usr/bin/env bash
# Small files end to end: what a CI gate or a fleet audit pays per savepoint, thousands of times. `cat` of
# the same file is the floor (a process that maps libc, reads the file and writes it). Needs hyperfine
# (cargo install hyperfine) and GNU time (apt-get install time). Not part of the test suite.
#
#   benches/small.sh [SP_INSPECT_BINARY]      default: target/release/sp-inspect, built here
#
# Prints one line per fixture and command: mean and min wall time over hyperfine -N runs, and the peak
# RSS of one run. Set RUNS (default 300) for more or fewer runs per command.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=${SP_BENCH_DIR:-/tmp/sp-inspect-bench}
runs=${RUNS:-300}
mkdir -p "$work"
if [ $# -gt 0 ]; then
    sp=$(realpath "$1")
else
    (cd "$root" && cargo build --release --quiet)
    sp=$root/target/release/sp-inspect
fi
cd "$root"
# One fixture per size class: the smallest, a typical v5 savepoint, the largest bundled, a synthetic one
# just under 1 MB (examples/synth.rs, like benches/run.sh).
synth=$work/synth-0.5/_metadata
if [ ! -f "$synth" ]; then
    cargo build --release --quiet --example synth
    mkdir -p "$(dirname "$synth")"
    target/release/examples/synth "$synth" --size-mb 0.5 --parallelism 32 \
        --trailer-from fixtures/v6-flink2.3-hashmap-savepoint/snapshot/_metadata > /dev/null
fi
files=(
    fixtures/v2-flink1.10-heap-savepoint/snapshot/_metadata
    fixtures/v5-flink2.0-hashmap-savepoint/snapshot/_metadata
    fixtures/redeploy-flink2.3/v1-nouid/snapshot/_metadata
    "$synth"
)
diff_args=(diff fixtures/redeploy-flink2.3/v1-nouid/snapshot fixtures/redeploy-flink2.3/cases/insert-key-nouid/new-graph.json)

# hyperfine -N runs each command without a shell; --export-json gives mean and min in seconds.
bench() { # NAME COMMAND...
    local name=$1; shift
    local json=$work/small-$$.json
    hyperfine -N -i --style none --warmup 20 --runs "$runs" --export-json "$json" -- "$(printf '%q ' "$@")" > /dev/null 2>&1
    /usr/bin/time -o "$json.rss" -f %M "$@" > /dev/null 2>&1 || true # diff exits 1: it has findings
    local rss
    rss=$(tail -1 "$json.rss")
    python3 - "$json" "$name" "$rss" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"{sys.argv[2]:<48} mean {r['mean']*1000:6.2f} ms  median {r['median']*1000:6.2f} ms  min {r['min']*1000:6.2f} ms  peak RSS {int(sys.argv[3])/1024:5.1f} MiB")
PY
    rm -f "$json" "$json.rss"
}

for f in "${files[@]}"; do
    cat "$f" > /dev/null # page cache warm
    echo "== $f ($(stat -c %s "$f") bytes)"
    bench "  cat" cat "$f"
    bench "  sp-inspect show" "$sp" show "$f"
    bench "  sp-inspect show --format json" "$sp" show --format json "$f"
done
echo "== no file"
bench "  sp-inspect --version" "$sp" --version
echo "== redeploy-flink2.3 v1-nouid -> insert-key-nouid"
bench "  sp-inspect diff" "$sp" "${diff_args[@]}"
