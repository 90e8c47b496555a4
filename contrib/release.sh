#!/usr/bin/env bash
# A release build: one statically linked x86_64 Linux binary (no runtime dependencies), its completions
# and man page, in a tarball with a SHA-256 checksum.
#   contrib/release.sh [OUT_DIR]     (default target/release-dist)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/release-dist}
target=x86_64-unknown-linux-gnu
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
RUSTFLAGS='-C target-feature=+crt-static' cargo build --release --locked --target "$target"
bin=target/$target/release/sp-inspect
if ldd "$bin" 2>&1 | grep -q '=>'; then echo "not static: $(ldd "$bin")" >&2; exit 1; fi
name=sp-inspect-$version-$target
stage=$(mktemp -d)
mkdir -p "$stage/$name/completions" "$out"
cp "$bin" README.md CHANGELOG.md "$stage/$name/"
for shell in bash zsh fish; do "$bin" completions "$shell" > "$stage/$name/completions/sp-inspect.$shell"; done
"$bin" man > "$stage/$name/sp-inspect.1"
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
rm -rf "$stage"
echo "$out/$name.tar.gz"
cat "$out/$name.tar.gz.sha256"
