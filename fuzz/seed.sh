#!/usr/bin/env bash
# Seeds the fuzz corpora with every fixture: real _metadata files and graph manifests.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/decode_metadata corpus/graph_manifest corpus/state_bytes
n=0
while IFS= read -r f; do cp "$f" "corpus/decode_metadata/$(echo "$f" | md5sum | cut -c1-16)"; n=$((n+1)); done \
    < <(find ../fixtures -name _metadata)
while IFS= read -r f; do cp "$f" "corpus/graph_manifest/$(echo "$f" | md5sum | cut -c1-16)"; done \
    < <(find ../fixtures -name '*graph*.json')
# State files: the files next to _metadata (operator and keyed state streams, RocksDB meta files).
while IFS= read -r f; do cp "$f" "corpus/state_bytes/$(echo "$f" | md5sum | cut -c1-16)"; done \
    < <(find ../fixtures -path '*/snapshot/*' -type f ! -name _metadata -size -64k)
echo "seeded $n _metadata files"
