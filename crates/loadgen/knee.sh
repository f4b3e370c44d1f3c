#!/usr/bin/env bash
# The knee: the most human-paced tables one server process holds with an
# ack p99 under 10 ms, beside the bare echo measured in the same invocation,
# so that boxes of different speeds can be compared (tables per 10k echo
# round trips a second).
#
#   crates/loadgen/knee.sh OUT_DIR [START]
#
# Runs, each against a fresh release server with its data on tmpfs (bench.sh):
#   echo      the bare WebSocket echo, 200 connections flat out for 15 s
#   paced-N   N tables x 4 clients, each thinking 1 s (exponential), for PLAY
#             seconds (30): N = START (2400), then 1.25 times more while a
#             step passes (or half as many while it fails), then halving the
#             gap between the last pass and the first failure until it is
#             under STEP per cent (5) of the pass, or MAX tables (20000).
# A step passes when its ack p99 is under 10 ms, no error came, every hand
# that ended was stored, and the tables acted at least 0.9 times a second
# each (the load generator really gave the load). Over 4,875 tables the
# clients sit at several tables each (--tables-per-client), so that
# connections stay under the 20,000 files a process may open here.
#
# Writes each run's report to OUT_DIR/NAME.txt and NAME.json, and
# OUT_DIR/knee.md (every step, the knee, tables per 10k echo round trips a
# second, the load average) and OUT_DIR/latency.png (every step's latency
# against its load).
#
# Build first: cargo build --release -p euchre-server -p euchre-loadgen
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=crates/loadgen/lib.sh
. crates/loadgen/lib.sh

out=${1:?an output folder}
start=${2:-2400}
play=${PLAY:-30} step=${STEP:-5} max=${MAX:-20000}
data=/dev/shm/euchre-knee
mkdir -p "$out"
: >"$out/steps"

run() { # NAME BACKEND FLAGS...: one bench.sh run, its text and JSON kept
    local name=$1 backend=$2
    shift 2
    echo "== $name: $* ($(uptime | sed 's/.*load/load/'))"
    crates/loadgen/bench.sh "$backend" "$data" "$@" --json "$out/$name.json" >"$out/$name.txt" 2>&1
}

# Whether N paced tables pass; the run's report stays in OUT_DIR.
passes() {
    local tables=$1 per
    per=$(((tables * 4 + 19499) / 19500))
    run "paced-$tables" sqlite --tables "$tables" --tables-per-client "$per" \
        --think-ms 1000 --think-exponential --duration "$play" || return 1
    jq -e '.latency_ms.p99 < 10 and (.errors | length) == 0 and .actions_per_second >= 0.9 * .tables' \
        "$out/paced-$tables.json" >/dev/null
}

rounded() { echo $((($1 + 25) / 50 * 50)); } # to 50 tables

run echo echo --tables 50 --duration 15
echo "   $(jq -r '"\(.round_trips_per_second | round) round trips/s"' "$out/echo.json")"
pass=0 fail=0 tables=$start
while [ "$tables" -ge 50 ] && [ "$tables" -le "$max" ]; do
    if passes "$tables"; then verdict=pass pass=$tables; else verdict=fail fail=$tables; fi
    echo "   $verdict: $(jq -r '"\(.actions_per_second | round) actions/s, ack p99 \(.latency_ms.p99) ms"' \
        "$out/paced-$tables.json" 2>/dev/null || echo "the run failed: see $out/paced-$tables.txt")"
    echo "$tables $verdict" >>"$out/steps"
    if [ "$fail" -eq 0 ]; then
        next=$(rounded $((tables * 5 / 4)))
    elif [ "$pass" -eq 0 ]; then
        next=$(rounded $((tables / 2)))
    else
        [ $(((fail - pass) * 100)) -le $((step * pass)) ] && break
        next=$(rounded $(((pass + fail) / 2)))
    fi
    # A count already tried (the bisection has closed to the rounding) ends it.
    grep -q "^$next " "$out/steps" && break
    tables=$next
done

echo_rate=$(jq '.round_trips_per_second' "$out/echo.json")
{
    echo "Echo: $(jq -r '"\(.round_trips_per_second | round) round trips/s over \(.connections) connections (echo CPU \(.server_cpu_us_per_round_trip * 10 | round / 10) µs, load generator \(.load_generator_cpu_us_per_round_trip * 10 | round / 10) µs a round trip)"' "$out/echo.json")."
    echo
    echo "| tables | connections | actions/s | ack p50 ms | ack p99 ms | to others p99 ms | errors | server CPU µs/action | load generator CPU µs/action | |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    sort -n "$out/steps" | while read -r tables verdict; do
        jq -r --arg verdict "$verdict" \
            '"| \(.tables) | \(.connections) | \(.actions_per_second | round) | \(.latency_ms.p50) | \(.latency_ms.p99) | \(.to_others_ms.p99) | \(.errors | length) | \(.server_cpu_us_per_action // 0 | round) | \(.load_generator_cpu_us_per_action // 0 | round) | \($verdict) |"' \
            "$out/paced-$tables.json" 2>/dev/null || echo "| $tables | | | | | | | | | $verdict (the run failed) |"
    done
    echo
    if [ "$pass" -gt 0 ]; then
        echo "Knee: $pass tables (ack p99 under 10 ms)$([ "$fail" -gt 0 ] && echo ", $fail did not"); $(jq -n --argjson knee "$pass" --argjson echo "$echo_rate" '$knee / $echo * 10000 | . * 10 | round / 10') tables per 10k echo round trips a second."
    else
        echo "Knee: below $fail tables (no step passed)."
    fi
    echo "Load average at the end: $(uptime | sed 's/.*average: //')."
} >"$out/knee.md"
cat "$out/knee.md"

sort -n "$out/steps" | while read -r tables _; do
    jq -r '"\(.actions_per_second) \(.latency_ms.p50) \(.latency_ms.p99) \(.to_others_ms.p99)"' \
        "$out/paced-$tables.json" 2>/dev/null || true
done >"$out/paced.dat"
plot_paced "$out/paced.dat" "$out/latency.png" \
    "Human-paced tables (1 s exponential think), one server process, 2 cores shared with the load generator"
if [ -e "$out/latency.png" ]; then echo "plot: $out/latency.png"; fi
