#!/usr/bin/env bash
# Hostile inputs: wall time, peak RSS and exit code of sp-inspect on files made to hurt it (4 GiB of padding
# after a real savepoint, /dev/zero, 1 GiB of NULs, 65,535-byte operator names, a 1 MB uid, 1 GB and 330 MB
# synthetic files, text inputs at and over the 16 MiB limit), for one or more git revisions side by side.
# Each revision is built in its own temporary git worktree (removed afterwards; the build cache is kept in
# the work directory). Not part of the test suite. Needs GNU time (installed with apt-get if missing) and python3.
#
#   benches/hostile.sh [REV...]          default: 7e0c32c HEAD (before/after)
#
# Environment: SP_HOSTILE_DIR   work directory (default /tmp/sp-hostile)
#              SP_HOSTILE_TIMEOUT  seconds per command (default 120)
#              SP_HOSTILE_MEM_GB   address-space cap per command, ulimit -v (default 12)
#              SP_HOSTILE_KEEP=1   keep the generated inputs (else the big files are deleted at the end)
#              SP_HOSTILE_ONLY=REGEX  run only the cases whose name matches
# Results: $SP_HOSTILE_DIR/results.tsv and a Markdown table on stdout ($SP_HOSTILE_DIR/results.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=${SP_HOSTILE_DIR:-/tmp/sp-hostile}
limit=${SP_HOSTILE_TIMEOUT:-120}
mem_gb=${SP_HOSTILE_MEM_GB:-12}
only=${SP_HOSTILE_ONLY:-}
revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(7e0c32c HEAD)
mkdir -p "$work/bin" "$work/in" "$work/out"

if [ ! -x /usr/bin/time ]; then
    apt-get install -y time > /dev/null 2>&1 || { apt-get update > /dev/null && apt-get install -y time > /dev/null; }
fi

# ---- build every revision in a worktree of its own
shas=()
for n in "${!revs[@]}"; do
    rev=${revs[$n]}
    sha=$(git -C "$root" rev-parse --short "$rev^{commit}")
    targets=(--bin sp-inspect)
    # The inputs are made by the last revision's examples/synth.
    [ "$n" -lt $((${#revs[@]} - 1)) ] || { targets+=(--example synth); synth=$work/bin/synth-$sha; }
    if [ ! -x "$work/bin/sp-inspect-$sha" ] || { [ "$n" = $((${#revs[@]} - 1)) ] && [ ! -x "$synth" ]; }; then
        tree=$work/src-$sha
        [ -d "$tree" ] || git -C "$root" worktree add --detach --quiet "$tree" "$sha"
        echo "building $rev ($sha)" >&2
        (cd "$tree" && CARGO_TARGET_DIR="$work/target-$sha" cargo build --release --quiet "${targets[@]}")
        cp "$work/target-$sha/release/sp-inspect" "$work/bin/sp-inspect-$sha"
        [ "$n" -lt $((${#revs[@]} - 1)) ] || cp "$work/target-$sha/release/examples/synth" "$synth"
        git -C "$root" worktree remove --force "$tree"
    fi
    shas+=("$sha")
done

# ---- inputs
in=$work/in
fx=$root/fixtures
v6=$fx/v6-flink2.3-hashmap-savepoint
v3=$fx/v3-flink1.14-hashmap-savepoint
new_graph=$fx/redeploy-flink2.3/cases/insert-key-uids/new-graph.json
py=$here/hostile_inputs.py
echo "writing inputs in $in" >&2
for v in 6 3; do
    src=$([ $v = 6 ] && echo "$v6" || echo "$v3")
    mkdir -p "$in/pad$v"; cp "$src/snapshot/_metadata" "$in/pad$v/_metadata"; truncate -s 4G "$in/pad$v/_metadata"
done
rm -f "$in/zeros-1g"; truncate -s 1G "$in/zeros-1g"
python3 "$py" long-names "$v6/graph-java.json" "$in/long-names.json"
python3 "$py" long-names "$v6/graph-java.json" "$in/long-names-cjk.json" --char 一
python3 "$py" big-uid "$v6/graph-java.json" "$in/big-uid.json" "$in/big-uid.uids" --bytes $((1 << 20))
mkdir -p "$in/long-names-v6"
python3 "$py" patch-names "$v6/snapshot/_metadata" "$v6/expected.json" "$in/long-names-v6/_metadata" > /dev/null
python3 "$py" many-ops "$in/text-16m+1.json" --bytes $(((16 << 20) + 1)) > /dev/null
python3 "$py" many-ops "$in/text-15m.json" --bytes $((15 << 20)) > /dev/null
for mb in 315 1024; do  # 330 MB and 1.07 GB
    mkdir -p "$in/synth-$mb"
    [ -s "$in/synth-$mb/_metadata" ] ||
        "$synth" "$in/synth-$mb/_metadata" --size-mb $mb --parallelism 32 --trailer-from "$v6/snapshot/_metadata" 2> /dev/null
done
uid_1m=$(head -c $((1 << 20)) /dev/zero | tr '\0' u)
uid_max_arg=$(head -c 131071 /dev/zero | tr '\0' u)  # Linux: one argument is at most 128 KiB with its NUL

# ---- cases
results=$work/results.tsv
: > "$results"
export GITHUB_STEP_SUMMARY=$work/out/step-summary.md

# run NAME EXPECT ARGS...   EXPECT: an exit code the case must have, or - when any is fine
run() {
    local name=$1 expect=$2; shift 2
    [ -z "$only" ] || [[ $name =~ $only ]] || return 0
    local i
    for i in "${!shas[@]}"; do
        local bin=$work/bin/sp-inspect-${shas[$i]} tf=$work/out/time err=$work/out/stderr out=$work/out/stdout
        : > "$GITHUB_STEP_SUMMARY"
        rm -f "$tf"
        local rc=0
        (
            ulimit -v $((mem_gb * 1024 * 1024))
            exec /usr/bin/time -o "$tf" -f '%e %M' timeout -k 5 "$limit" "$bin" "$@"
        ) > "$out" 2> "$err" || rc=$?
        local secs=- kb=-
        if [ -s "$tf" ]; then read -r secs kb < <(tail -n 1 "$tf"); fi
        local verdict=""
        case $rc in
            124 | 137) [ "$secs" != - ] && awk "BEGIN{exit !($secs >= $limit)}" && verdict="hung >${limit} s" ;;
            134) verdict="aborted (out of memory under ulimit -v ${mem_gb} GB?)" ;;
        esac
        [ "$rc" -gt 128 ] && [ -z "$verdict" ] && verdict="killed by signal $((rc - 128))"
        if [ "$expect" != - ] && [ "$rc" != "$expect" ]; then verdict="${verdict:+$verdict; }UNEXPECTED: must exit $expect"; fi
        local msg
        msg=$(head -c 300 "$err" | head -n 1 | tr '\t|' '  ' | cut -c1-140)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${shas[$i]}" "$secs" "$kb" "$rc" \
            "$(stat -c %s "$out")" "$verdict" "$msg" >> "$results"
        printf '%-60s %-9s %8s s %9s KB  rc=%-3s %s\n' "$name" "${shas[$i]}" "$secs" "$kb" "$rc" "$verdict" >&2
        rm -f "$out"
    done
}

snap=$v6/snapshot
for v in 6 3; do
    p=$in/pad$v/_metadata
    run "format $v + sparse zeros to 4 GiB: show" - show "$p"
    run "format $v + sparse zeros to 4 GiB: show --format json" - show --format json "$p"
    run "format $v + sparse zeros to 4 GiB: lint" - lint "$p"
    run "format $v + sparse zeros to 4 GiB: diff PADDED new-graph.json" - diff "$p" "$new_graph"
done
run "lint /dev/zero" 2 lint /dev/zero
run "diff /dev/zero new-graph.json" 2 diff /dev/zero "$new_graph"
run "lint 1 GiB of NULs (sparse)" 2 lint "$in/zeros-1g"
for f in table markdown json github sarif junit; do
    run "diff v6 manifest-with-10×65,535-byte-names --format $f" - diff "$snap" "$in/long-names.json" --format $f
done
for f in table markdown; do
    run "diff v6 manifest-with-10×65,535-byte-CJK-names --format $f" - diff "$snap" "$in/long-names-cjk.json" --format $f
done
run "lint manifest-with-10×65,535-byte-names" - lint "$in/long-names.json"
run "hash 1 MiB uid (argv)" - hash "$uid_1m"
run "hash 131,071-byte uid (largest argv)" - hash "$uid_max_arg"
run "hash 131,071-byte uid --sink --format json" - hash --sink --format json "$uid_max_arg"
run "diff v6 manifest-with-1-MiB-uid" - diff "$snap" "$in/big-uid.json"
run "diff v6 manifest-with-1-MiB-uid --format json" - diff "$snap" "$in/big-uid.json" --format json
run "lint manifest-with-1-MiB-uid" - lint "$in/big-uid.json"
run "diff v6 uid-list-with-1-MiB-uid" - diff "$snap" "$in/big-uid.uids"
run "format 6 _metadata with 4×65,535-byte names: show" - show "$in/long-names-v6/_metadata"
run "format 6 _metadata with 4×65,535-byte names: show --format json" - show --format json "$in/long-names-v6/_metadata"
run "format 6 _metadata with 4×65,535-byte names: lint" - lint "$in/long-names-v6/_metadata"
run "format 6 _metadata with 4×65,535-byte names: diff FILE FILE" - diff "$in/long-names-v6/_metadata" "$in/long-names-v6/_metadata"
for mb in 315 1024; do
    f=$in/synth-$mb/_metadata
    size=$(python3 -c "print(f'{$(stat -c %s "$f") / 1e6:.0f} MB')")
    cat "$f" > /dev/null  # page cache warm
    run "synthetic $size: show --format json" - show --format json "$f"
    run "synthetic $size: lint" - lint "$f"
    run "synthetic $size: diff FILE FILE" - diff "$f" "$f"
done
run "lint 16 MiB + 1 byte manifest" 2 lint "$in/text-16m+1.json"
run "diff v6 16-MiB+1-byte-manifest" 2 diff "$snap" "$in/text-16m+1.json"
run "lint 15 MiB manifest (158,395 operators)" - lint "$in/text-15m.json"
run "diff v6 15-MiB-manifest" - diff "$snap" "$in/text-15m.json"

# ---- report
python3 - "$results" "${shas[@]}" > "$work/results.md" <<'PY'
import sys
rows, shas = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])], sys.argv[2:]
by = {}
for name, sha, secs, kb, rc, out, verdict, msg in rows:
    by.setdefault(name, {})[sha] = (secs, kb, rc, out, verdict, msg)
def cell(r):
    if r is None:
        return "not run"
    secs, kb, rc, out, verdict, msg = r
    rss = f"{int(kb) / 1024:,.1f} MB" if kb != "-" else "-"
    t = f"{float(secs):.2f} s" if secs != "-" else "-"
    return f"{t}, {rss}, exit {rc}" + (f", out {int(out):,} B" if out != "0" else "") + (f" — **{verdict}**" if verdict else "")
print("| case | " + " | ".join(shas) + " | " + " | ".join(f"{s}: stderr, first line" for s in shas) + " |")
print("|---|" + "---|" * 2 * len(shas))
for name, r in by.items():
    msgs = [(r[s][5] if s in r else "").replace("|", "\\|") for s in shas]
    print(f"| {name} | " + " | ".join(cell(r.get(s)) for s in shas) + " | " + " | ".join(msgs) + " |")
PY
cat "$work/results.md"

if [ "${SP_HOSTILE_KEEP:-}" != 1 ]; then
    rm -rf "$in" "$work/out"
fi
