# Sourced by the wrk benchmarks (bench/public-page.sh, bench/demo-herald.sh): what a wrk run
# and a server's /proc say, reduced to figures.

cpu_ticks() { # pids... -> their user + system clock ticks (fields 14 and 15), threads included
  local total=0 pid
  for pid in "$@"; do
    total=$((total + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat")))
  done
  echo "$total"
}
# figures WRK-OUTPUT TICKS -> "rps p99-in-ms cpu-us-per-request": the server's CPU time (user
# and system, so the kernel's work on its sockets too) per answered request, TICKS being what
# cpu_ticks moved during the run. It is what a request costs the server rather than its share
# of cores wrk also uses; it still moves by several per cent from run to run with the load.
figures() {
  echo "$(awk '/Requests\/sec/ {print $2}' <<<"$1") $(to_ms "$(awk '$1 == "99%" {print $2}' <<<"$1")")" \
    "$(awk -v t="$2" -v hz="$(getconf CLK_TCK)" '/ requests in / { printf "%.2f", t / hz * 1e6 / $1 }' <<<"$1")"
}
to_ms() { # wrk latency like 12.34ms, 1.2s, 950.00us
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
