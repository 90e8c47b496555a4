#!/usr/bin/env bash
# The `state` benchmark of issue 10: a Kafka source with 10,000 partitions and a KafkaSink committer with 1,000
# pending transactions. Generates the savepoint (KafkaStateGen.java: Flink 2.2.0's and connector 5.0.0-2.2's own
# serializers, on the template fixtures/kafka/connector-5.0.0-flink-2.2/savepoint), checks that sp-inspect's
# `state --format json` says what the connector's serializers read (fixtures/gen/kafka/KafkaStateRead.java, then
# compare.py), then times the release binary with hyperfine and measures its peak RSS with GNU time, next to
# `show` of the small template fixture and to Flink's own readers in a JVM. Prints a Markdown table.
# Needs Java 17, Maven, pip (Flink's jars from PyPI), hyperfine, GNU time. Not part of the test suite.
#
#   benches/kafka-state/run.sh [PARTITIONS [COMMITTABLES [SUBTASKS]]]     default: 10000 1000 4
#   SP_BENCH_DIR=/tmp/... (default /tmp/sp-inspect-kafka-state)  RUNS=10 (hyperfine runs per command)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${SP_BENCH_DIR:-/tmp/sp-inspect-kafka-state}
runs=${RUNS:-10}
partitions=${1:-10000} committables=${2:-1000} subtasks=${3:-4}
template=$root/fixtures/kafka/connector-5.0.0-flink-2.2/savepoint/snapshot
connector=5.0.0-2.2
source "$root/fixtures/gen/flink-env.sh"
flink_env 2.2.0

# The connector's jars, as fixtures/gen/kafka/generate.sh fetches them (same cache).
jars=${SP_KAFKA_CACHE:-$HOME/.cache/sp-inspect-kafka}/connector-$connector
if [ ! -f "$jars/flink-connector-kafka-$connector.jar" ]; then
    mvn -q -f "$root/fixtures/gen/kafka/connector/pom.xml" dependency:copy-dependencies -Dconnector.version=$connector \
        -DincludeScope=runtime -DoutputDirectory="$jars"
fi
CP=$FLINK_CP$(ls "$jars"/*.jar | tr '\n' ':')$work/classes
mkdir -p "$work/classes"
javac -nowarn --release 11 -cp "$CP" -d "$work/classes" "$here/KafkaStateGen.java" \
    "$root/fixtures/gen/kafka/KafkaJob.java" "$root/fixtures/gen/kafka/KafkaStateRead.java" "$root/benches/FlinkLoadBench.java"
(cd "$root" && cargo build --release --quiet)
sp=$root/target/release/sp-inspect
java_q=("${JAVA[@]}" -Dlog4j2.level=ERROR -cp "$CP")

# 1. Generate (deterministic: only the names of the state files, UUIDs chosen by Flink, differ between runs).
big=$work/savepoint
rm -rf "$big"
"${java_q[@]}" KafkaStateGen "$template/_metadata" "$big" "$partitions" "$committables" "$subtasks" 2>/dev/null
echo "generated $big: $(stat -c %s "$big/_metadata") bytes of _metadata, $(($(ls "$big" | wc -l) - 1)) state files of" \
    "$(find "$big" -type f ! -name _metadata -printf '%s\n' | awk '{s+=$1} END {print s+0}') bytes, $(du -sk "$big" | cut -f1) KiB in all"

# 2. Does sp-inspect read what the connector's own serializers read?
"${java_q[@]}" KafkaStateRead "$big/_metadata" > "$work/flink-state.json" 2>"$work/flink-state.err"
if [ -s "$work/flink-state.err" ]; then cat "$work/flink-state.err"; fi  # notes when an element does not serialize back
"$sp" state --format json "$big" > "$work/sp-state.json"
python3 "$here/compare.py" "$work/flink-state.json" "$work/sp-state.json"

# 3. Time and memory.
cat "$big"/* "$template"/* > /dev/null  # page cache warm for everyone
names=() cmds=()
add() { names+=("$1"); cmds+=("$2"); }
add "sp-inspect state (big)"                "$sp state $big"
add "sp-inspect state --format json (big)"  "$sp state --format json $big"
add "sp-inspect show --format json (big)"   "$sp show --format json $big"
add "sp-inspect show (big)"                 "$sp show $big"
add "sp-inspect show (small fixture)"       "$sp show $template"
add "sp-inspect show --format json (small fixture)" "$sp show --format json $template"
add "sp-inspect state --format json (small fixture)" "$sp state --format json $template"
add "Flink KafkaStateRead, JVM (big)"       "${java_q[*]} KafkaStateRead $big/_metadata"
add "Flink loadCheckpointMetadata, JVM (big)" "${java_q[*]} FlinkLoadBench $big/_metadata"
add "Flink loadCheckpointMetadata, JVM (small fixture)" "${java_q[*]} FlinkLoadBench $template/_metadata"
hf=()
for i in "${!names[@]}"; do hf+=(-n "${names[$i]}" "${cmds[$i]}"); done
# No shell (-N): the sub-5 ms commands are timed without a shell's start-up; stdout to /dev/null.
hyperfine -N --output=null --style none --warmup 2 --runs "$runs" --export-json "$work/hyperfine.json" "${hf[@]}" > /dev/null
: > "$work/rss.txt"
for i in "${!names[@]}"; do
    best=
    for _ in 1 2 3; do  # the lowest of three: the peak RSS hardly varies, but the JVM's does a little
        r=$(/usr/bin/time -f %M sh -c "${cmds[$i]} > /dev/null 2>/dev/null" 2>&1 | tail -n1)
        [ -z "$best" ] || [ "$r" -lt "$best" ] && best=$r
    done
    printf '%s\t%s\n' "${names[$i]}" "$best" >> "$work/rss.txt"
done
echo -n "Flink loadCheckpointMetadata warmed in one JVM (big, best of 20): "
"${java_q[@]}" FlinkLoadBench "$big/_metadata" 20
python3 - "$work/hyperfine.json" "$work/rss.txt" <<'PY'
import json, sys
rss = dict(line.rstrip("\n").split("\t") for line in open(sys.argv[2]))
results = json.load(open(sys.argv[1]))["results"]
print("| command | mean | min | max | peak RSS |")
print("|---|---:|---:|---:|---:|")
for x in results:
    n = x["command"]
    print(f"| {n} | {x['mean']*1000:.1f} ms ± {x['stddev']*1000:.1f} | {x['min']*1000:.1f} ms | {x['max']*1000:.1f} ms "
          f"| {int(rss[n]) / 1024:.1f} MiB |")
r = {x["command"]: x["mean"] for x in results}
print()
print(f"state / show --format json (big): {r['sp-inspect state --format json (big)'] / r['sp-inspect show --format json (big)']:.2f}x; "
      f"state (big) / show (small fixture): {r['sp-inspect state (big)'] / r['sp-inspect show (small fixture)']:.1f}x; "
      f"Flink's KafkaStateRead / sp-inspect state --format json (big): "
      f"{r['Flink KafkaStateRead, JVM (big)'] / r['sp-inspect state --format json (big)']:.0f}x")
PY
