#!/usr/bin/env bash
# What each gzip and brotli level costs on the documents Herald renders ahead and compresses on
# every change that touches them: those of a 1,000-component page in 20 groups (its overview and
# summary.json are the largest Herald makes) and of a 20-component page (the usual small ones:
# status.json, the badge, the widget). examples/scale_profile seeds each page through Herald's
# services and writes its documents (DOCS_OUT); examples/compression prints, per file and level,
# the median time of ROUNDS (7) compressions and the compressed size.
#
#   bench/compression.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-7}
cargo build --release --quiet --example scale_profile --example compression
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/large" "$out/small"
DOCS_OUT="$out/large" target/release/examples/scale_profile 1000 20 0 1 1 >/dev/null 2>&1
DOCS_OUT="$out/small" target/release/examples/scale_profile 20 1 20 1 1 >/dev/null 2>&1
cd "$out"
"$OLDPWD/target/release/examples/compression" --rounds "$ROUNDS" \
    large/overview.html large/api_v2_summary.json small/overview.html small/api_v2_summary.json \
    small/api_v2_status.json small/badge.svg small/widget.json 2>/dev/null \
    | column -t
