#!/usr/bin/env bash
# Seeds the fuzz corpora with every fixture: real _metadata files and graph manifests; and input_kind's
# with what an argument to diff/lint may be.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/decode_metadata corpus/graph_manifest corpus/state_bytes corpus/input_kind
n=0
while IFS= read -r f; do cp "$f" "corpus/decode_metadata/$(echo "$f" | md5sum | cut -c1-16)"; n=$((n+1)); done \
    < <(find ../fixtures -name _metadata)
while IFS= read -r f; do cp "$f" "corpus/graph_manifest/$(echo "$f" | md5sum | cut -c1-16)"; done \
    < <(find ../fixtures -name '*graph*.json')
# State files: the files next to _metadata (operator and keyed state streams, RocksDB meta files).
while IFS= read -r f; do cp "$f" "corpus/state_bytes/$(echo "$f" | md5sum | cut -c1-16)"; done \
    < <(find ../fixtures -path '*/snapshot/*' -type f ! -name _metadata -size -64k)
# input_kind: every graph manifest (graph*.json, new-graph.json), the first 8 KiB of one _metadata file per
# format version, uid lists, and text and Python files that are neither.
k=corpus/input_kind
while IFS= read -r f; do cp "$f" "$k/$(echo "$f" | md5sum | cut -c1-16)"; done \
    < <(find ../fixtures -name '*graph*.json')
for v in v3 v4 v5 v6; do
    f=$(find ../fixtures -path "../fixtures/$v-*" -name _metadata | sort | head -n1)
    [ -n "$f" ] && head -c 8192 "$f" > "$k/metadata-head-$v"
done
printf '# sp-inspect/uids-v1\n# uids of GenJob\nnumbers\ncount-per-key\n\nprint\n' > "$k/uids"
printf '\xef\xbb\xbf# sp-inspect/uids-v1\r\nsource\r\n  sink  \r\n' > "$k/uids-bom-crlf"
printf '# sp-inspect/uids-v1\n' > "$k/uids-empty"
while IFS= read -r f; do cp "$f" "$k/$(echo "$f" | md5sum | cut -c1-16)"; done \
    < <(find ../fixtures -maxdepth 2 \( -name '*.py' -o -name README.md \) | sort | head -n 8)
echo "seeded $n _metadata files"
