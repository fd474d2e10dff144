# Sourced by the benchmarks that measure one Herald serving its demo page against itself in two
# states (bench/private-page.sh, bench/branded-page.sh, bench/multilingual-page.sh): wrk
# installed, the release build, Herald at its default settings on a fresh SQLite file with
# `herald demo`, an owner's API token (`$owner`, `api`), wrk runs reduced to req/s, p99 and
# Herald's CPU per request, the demo page's brand on and off (`brand_on`, `brand_off`), and a
# table's header and lines (`header`, `report`). Expects CONNECTIONS, DURATION, THREADS, ROUNDS
# and PORT to be set.

command -v wrk >/dev/null 2>&1 || { echo "installing wrk"; DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null; }
cargo build --release --quiet
work="$(mktemp -d)"
cleanup() {
  [[ -n "${herald_pid:-}" ]] && kill "$herald_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

export DATABASE_URL="sqlite://$work/herald.db" HERALD_BIND="127.0.0.1:$PORT"
unset HERALD_LOG HERALD_WORKERS HERALD_LOG_FORMAT
herald=./target/release/herald
"$herald" demo >/dev/null
"$herald" user add --email bench@example.com --role owner >/dev/null
owner="$("$herald" token create --email bench@example.com)"
"$herald" serve >"$work/herald.log" 2>&1 &
herald_pid=$!
base="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do curl -fsS "$base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

api() { # method path [json] -> the answer's body; fails on an error answer
  curl -fsS -X "$1" -H "Authorization: Bearer $owner" -H 'Content-Type: application/json' \
    ${3:+--data "$3"} "$base/api/v1$2"
}

source bench/measure.sh
run() { # url [header] [accept-encoding] -> figures (measure.sh); any error answer fails the bench
  local out before after
  before="$(cpu_ticks "$herald_pid")"
  out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency ${2:+-H "$2"} ${3:+-H "Accept-Encoding: $3"} "$1")"
  after="$(cpu_ticks "$herald_pid")"
  if grep -q "Non-2xx\|Socket errors" <<<"$out"; then
    echo "errors for $1:" >&2; echo "$out" >&2; return 1
  fi
  figures "$out" "$((after - before))"
}

# The demo page's full brand (an SVG logo, a colour, header links, a footer and a custom
# stylesheet), on or off; `$1` adds fields to the page's PATCH (e.g. its languages).
cat >"$work/logo.svg" <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 30"><rect width="30" height="30" rx="6" fill="#6f42c1"/><path d="M8 22 L15 8 L22 22 Z" fill="#fff"/><rect x="38" y="9" width="74" height="12" rx="3" fill="#6f42c1"/></svg>
SVG
brand_on() {
  curl -fsS -X PUT -H "Authorization: Bearer $owner" -H 'Content-Type: image/svg+xml' \
    --data-binary @"$work/logo.svg" "$base/api/v1/pages/demo/logo" >/dev/null
  api PATCH /pages/demo '{"brand_color": "#6f42c1", "theme": "auto", '"${1:+$1, }"'
    "header_links": [{"label": "Help centre", "url": "https://help.example.com/"}, {"label": "Contact", "url": "mailto:support@example.com"}],
    "footer": "© Example Ltd · [Privacy](https://example.com/privacy) · [Terms](https://example.com/terms)",
    "custom_css": ".brand-logo { height: 2rem; } .site-footer { font-size: 0.85rem; }"}' >/dev/null
}
brand_off() {
  # 404 when there is no logo to remove.
  curl -sS -o /dev/null -X DELETE -H "Authorization: Bearer $owner" "$base/api/v1/pages/demo/logo"
  api PATCH /pages/demo '{"brand_color": null, "theme": "auto", '"${1:+$1, }"'"header_links": [], "footer": null, "custom_css": null}' >/dev/null
}

# One line of a table: `$4` holds a state's runs ("rps p99 cpu" a line), `$5` the baseline's.
# "runs/median" is the spread of the state's own runs (lowest and highest req/s over the
# median): on a shared machine a burst of other work moves a single run by 10-30 %, so a
# req/s ratio inside that spread is not a difference. "cpu/req" is Herald's CPU time per
# request (the median of the runs) and its ratio to the baseline's.
report() { # path encoding state runs baseline-runs
  local rps ms cpu p_rps p_ms p_cpu lo hi
  rps="$(col 1 "$4")"; ms="$(col 2 "$4")"; cpu="$(col 3 "$4")"
  p_rps="$(col 1 "$5")"; p_ms="$(col 2 "$5")"; p_cpu="$(col 3 "$5")"
  lo="$(awk 'NF {print $1}' <<<"$4" | sort -g | head -1)"; hi="$(awk 'NF {print $1}' <<<"$4" | sort -g | tail -1)"
  printf '%-16s %-8s %-16s %10s %7sms %9s %9s %11s %8sus %9s\n' "$(basename "$1")" "${2:-identity}" "$3" \
    "$rps" "$ms" \
    "$(awk -v a="$rps" -v b="$p_rps" 'BEGIN { printf "%.3fx", a / b }')" \
    "$(awk -v a="$ms" -v b="$p_ms" 'BEGIN { printf "%.2fx", a / b }')" \
    "$(awk -v l="$lo" -v h="$hi" -v m="$rps" 'BEGIN { printf "%.2f-%.2f", l / m, h / m }')" \
    "$cpu" "$(awk -v a="$cpu" -v b="$p_cpu" 'BEGIN { printf "%.3fx", a / b }')"
}
col() { awk -v c="$1" 'NF {print $c}' <<<"$2" | median; } # the median of column N of runs
header() { # the first column's name for the states
  printf 'connections=%s duration=%s threads=%s rounds=%s cpus=%s (medians of alternating runs)\n' \
    "$CONNECTIONS" "$DURATION" "$THREADS" "$ROUNDS" "$(nproc)"
  printf '%-16s %-8s %-16s %10s %9s %9s %9s %11s %10s %9s\n' endpoint encoding "$1" "req/s" p99 "rps ratio" \
    "p99 ratio" "runs/median" "cpu/req" "cpu ratio"
}
