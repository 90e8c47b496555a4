#!/usr/bin/env bash
# Benchmarks sp-inspect against Flink's own reader and against `cat` (the floor), on the same synthetic
# files, in one run. Needs hyperfine (apt-get install hyperfine), GNU time, Java 17 and the Flink 2.3 jars
# (fetched from PyPI by fixtures/gen/flink-env.sh). Not part of the test suite. Small files, where start-up
# is most of the cost, have their own run against `cat`: benches/small.sh.
#
#   benches/run.sh [SIZES_MB...]        default: 0.5 100 1024
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=${SP_BENCH_DIR:-/tmp/sp-inspect-bench}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(0.5 100 1024)
mkdir -p "$work"
source "$root/fixtures/gen/flink-env.sh"
flink_env 2.3.0
javac -nowarn --release 11 -d "$work" "$here/FlinkLoadBench.java"
(cd "$root" && cargo build --release --quiet && cargo build --release --quiet --example synth)
sp=$root/target/release/sp-inspect
trailer=$root/fixtures/v6-flink2.3-hashmap-savepoint/snapshot/_metadata

for mb in "${sizes[@]}"; do
    mkdir -p "$work/synth-$mb"; f=$work/synth-$mb/_metadata  # Flink resolves relative handles next to a file named _metadata
    [ -f "$f" ] || "$root/target/release/examples/synth" "$f" --size-mb "$mb" --parallelism 32 --trailer-from "$trailer"
    bytes=$(stat -c %s "$f")
    cat "$f" > /dev/null # page cache warm for everyone
    echo "== $f ($bytes bytes)"
    small=$(python3 -c "print(1 if float('$mb') <= 100 else 0)")
    commands=(-n cat "cat $f > /dev/null" -n sp-inspect "$sp show --format json $f > /dev/null")
    # A JVM end to end (start-up included) on the smaller files; the 1 GiB file takes it minutes.
    [ "$small" = 1 ] && commands+=(-n flink-jvm "${JAVA[*]} -cp $FLINK_CP$work FlinkLoadBench $f > /dev/null")
    hyperfine --style none --warmup 1 --runs 5 --export-json "$work/hf-$mb.json" "${commands[@]}" > /dev/null
    /usr/bin/time -f "sp-inspect peak RSS: %M KiB" "$sp" show --format json "$f" > /dev/null
    echo -n "flink warmed in-process: "
    "${JAVA[@]}" -Xmx16g -cp "$FLINK_CP$work" FlinkLoadBench "$f" "$( [ "$small" = 1 ] && echo 20 || echo 3)"
    python3 - "$work/hf-$mb.json" "$bytes" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
size = int(sys.argv[2]) / 1e6
for name, x in r.items():
    print(f"{name:>12}: mean {x['mean']*1000:9.2f} ms  min {x['min']*1000:9.2f} ms  {size / x['min']:8.1f} MB/s")
if "flink-jvm" in r:
    print(f"end to end: sp-inspect is {r['flink-jvm']['mean'] / r['sp-inspect']['mean']:.0f}x faster than Flink's reader in a JVM")
PY
done
