#!/usr/bin/env bash
# Fuzzes every parser of outside input with cargo fuzz (libFuzzer), each target for a bounded
# time, and prints what it found.
#
# Targets (fuzz/fuzz_targets): the support form and its token (support_form), the support
# spool's reader (support_spool), a subscriber file (subscriber_csv), the Alertmanager, Grafana
# and generic alert bodies (alert_bodies), a vendor's summary.json and a Statuspage page's
# documents (statuspage_documents), the PNG, WebP and SVG checks (image_check), custom_css
# (custom_css), Accept-Language and ?lang= (accept_language), the Markdown renderer (markdown)
# and the console's form decoders (console_forms).
#
# Each starts from its seeds (fuzz/seeds/TARGET) and the test fixtures that are its kind of input
# (tests/fixtures), kept with what it found in target/fuzz-corpus/TARGET (so a second run goes on
# from there). A crash, an out-of-memory or a timeout is written to fuzz/artifacts/TARGET/ and
# listed at the end; each one found becomes a regression test.
#
#   bench/fuzz.sh                          # every target, FUZZ_SECS (60) each
#   FUZZ_SECS=600 bench/fuzz.sh            # ten minutes each
#   TARGETS="custom_css image_check" bench/fuzz.sh
#
# Built with the project's stable toolchain (RUSTC_BOOTSTRAP=1 lets it take cargo fuzz's -Z
# flags) and no sanitizer (-s none): the targets are safe Rust, and what the fuzzer looks for is
# panics, hangs, runaway memory and broken invariants (each target asserts its own). The fuzz
# crate is a workspace of its own, so Herald's Cargo.lock is copied into it first: the targets
# build the versions Herald ships (a newer diesel_derives does not build Herald). libFuzzer's
# limits: 2 GiB of memory (-rss_limit_mb), 10 s per input (-timeout), inputs up to 256 KiB
# (-max_len, the largest upload Herald takes before its own limits).
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECS="${FUZZ_SECS:-60}"
ALL="support_form support_spool subscriber_csv alert_bodies statuspage_documents image_check custom_css accept_language markdown console_forms"
TARGETS="${TARGETS:-$ALL}"

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi
FUZZ=(env RUSTC_BOOTSTRAP=1 cargo fuzz)
SANITIZER=(-s none)
cp Cargo.lock fuzz/Cargo.lock

seed() {
  local target="$1" dir="target/fuzz-corpus/$1"
  mkdir -p "$dir"
  cp -n fuzz/seeds/"$target"/* "$dir"/ 2>/dev/null || true
  case "$target" in
    alert_bodies) cp -n tests/fixtures/alerts/*.json "$dir"/ ;;
    statuspage_documents) cp -n tests/fixtures/mirror/*.json "$dir"/ ;;
    subscriber_csv) cp -n tests/fixtures/subscribers/*.csv "$dir"/ ;;
    image_check)
      cp -n assets/favicon.svg "$dir"/
      # A 2x2 PNG and a 1x1 lossless WebP, made here rather than kept as binary files.
      python3 - "$dir" <<'PY'
import base64, struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 6, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(b"\x00" + b"\x0b\x5f\xff\xff" * 2 + b"\x00" + b"\xff\xff\xff\xff" * 2)) \
    + chunk(b"IEND", b"")
open(sys.argv[1] + "/seed.png", "wb").write(png)
open(sys.argv[1] + "/seed.webp", "wb").write(base64.b64decode("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="))
PY
      ;;
  esac
}

"${FUZZ[@]}" build "${SANITIZER[@]}" --fuzz-dir fuzz >&2

summary=()
for target in $TARGETS; do
  seed "$target"
  mkdir -p "fuzz/artifacts/$target"
  log="target/fuzz-corpus/$target.log"
  echo "== $target: ${FUZZ_SECS}s" >&2
  status=0
  "${FUZZ[@]}" run "${SANITIZER[@]}" --fuzz-dir fuzz "$target" "target/fuzz-corpus/$target" -- \
    -max_total_time="$FUZZ_SECS" -rss_limit_mb=2048 -timeout=10 -max_len=262144 \
    -artifact_prefix="fuzz/artifacts/$target/" -print_final_stats=1 >"$log" 2>&1 || status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
  found=$(find "fuzz/artifacts/$target" -type f | wc -l)
  summary+=("$(printf '%-22s %12s runs  cov %6s  corpus %6s  exit %3s  artifacts %s' \
    "$target" "$runs" "$cov" "$(find "target/fuzz-corpus/$target" -type f | wc -l)" "$status" "$found")")
  if [ "$status" -ne 0 ]; then
    grep -E 'panicked|ERROR: |SUMMARY' "$log" | head -5 >&2 || true
  fi
done

echo
echo "fuzzed for ${FUZZ_SECS}s per target ($(date -u +%FT%TZ), $(nproc) cores)"
printf '%s\n' "${summary[@]}"
find fuzz/artifacts -type f -printf 'artifact: %p\n' 2>/dev/null || true
