#!/usr/bin/env bash
# Every figure of BENCHMARKS.md's "Server under load" and "Connections" sections, in one go,
# and the plot of latency against load.
#
#   crates/loadgen/bench-all.sh OUT_DIR [quick]
#
# Runs (each against a fresh release server, data on tmpfs, through bench.sh):
#   echo      the bare WebSocket echo, 200 connections flat out: the yardstick
#   relay     the same server relaying each frame to a group of 4 (a table's
#             fan-out with no game), 50 groups flat out: the honest ceiling
#   durable   the relay through a task per group and the game server's
#             journal: the game server's path with no game
#   flat      50 tables x 4 clients flat out: actions/s as a share of both
#   idle      19,500 identified connections held: memory and CPU each
#   paced-N   N tables x 4 clients, each thinking 1 s (exponential), for N in
#             600 1200 2400 4800; and 4800 with a fixed 1 s (tables in waves)
#   bots      20,000 tables, one client (at 2 tables) and 3 bots each, bots
#             and clients pausing 3 s (a table acts every 3 s: 6,700 actions/s;
#             at 1 s, 20,000 actions/s is more than this machine plays flat out)
#   soak      4,800 paced tables for 10 minutes, the server sampled every 15 s
#   knee/     knee.sh from 4,800 tables: the most paced tables with ack p99
#             under 10 ms, beside an echo of its own (OUT_DIR/knee/knee.md)
# Each run's report is OUT_DIR/NAME.txt and NAME.json; OUT_DIR/summary.md
# lists them and OUT_DIR/latency.png plots ack and to-others p50/p99 against
# the paced tables' load. `quick` shortens every run (to check the script).
# It takes about half an hour (32 minutes on a quiet 2-core box);
# jq and gnuplot are installed if missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=crates/loadgen/lib.sh
. crates/loadgen/lib.sh

out=${1:?an output folder}
quick=${2:-}
mkdir -p "$out"
data=/dev/shm/euchre-bench-all

for tool in jq gnuplot; do
    if ! command -v "$tool" >/dev/null; then
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        package=$tool
        [ "$tool" = gnuplot ] && package=gnuplot-nox
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$package" >/dev/null
    fi
done
cargo build --release -p euchre-server -p euchre-loadgen

# Seconds of play per run, and the soak's length.
play=30 soak=600 idle=19500 bots=20000 sweep="600 1200 2400 4800"
if [ "$quick" = quick ]; then
    play=3 soak=20 idle=500 bots=200 sweep="20 40"
fi

run() { # NAME BACKEND FLAGS...: one bench.sh run, its text and JSON kept
    local name=$1 backend=$2
    shift 2
    echo "== $name: $*"
    crates/loadgen/bench.sh "$backend" "$data" "$@" --json "$out/$name.json" | tee "$out/$name.txt"
}

run echo echo --tables 50 --duration "$play"
run relay relay --tables 50 --duration "$play"
run durable durable --tables 50 --duration "$play"
run flat sqlite --tables 50 --duration "$play"
run idle sqlite --idle "$idle" --duration "$play"
for tables in $sweep; do
    run "paced-$tables" sqlite --tables "$tables" --think-ms 1000 --think-exponential --duration "$play"
done
last=${sweep##* }
run "paced-$last-fixed" sqlite --tables "$last" --think-ms 1000 --duration "$play"
BOT_DELAY_MS=3000 run bots sqlite --tables "$bots" --players 1 --tables-per-client 2 \
    --think-ms 3000 --think-exponential --duration "$play"
SAMPLE_EVERY=15 AFTER=90 run soak sqlite --tables "$last" --think-ms 1000 --think-exponential \
    --duration "$soak"
cp "$data/samples.csv" "$out/soak-samples.csv"
# The knee, from 4,800 tables up, beside an echo of its own.
if [ "$quick" = quick ]; then
    PLAY=3 MAX=80 crates/loadgen/knee.sh "$out/knee" 40
else
    crates/loadgen/knee.sh "$out/knee" 4800
fi

# The summary, from the JSON reports.
{
    echo "| run | connections | actions/s | ack p50 ms | ack p99 ms | to others p99 ms | errors | server CPU µs/action | load generator CPU µs/action |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for report in "$out"/flat.json "$out"/paced-*.json "$out"/bots.json "$out"/soak.json; do
        jq -r --arg name "$(basename "$report" .json)" \
            '"| \($name) | \(.connections) | \(.actions_per_second | round) | \(.latency_ms.p50) | \(.latency_ms.p99) | \(if .to_others_ms.count > 0 then .to_others_ms.p99 else "-" end) | \(.errors | length) | \(.server_cpu_us_per_action // 0 | round) | \(.load_generator_cpu_us_per_action // 0 | round) |"' \
            "$report"
    done
    echo
    jq -r --slurpfile flat "$out/flat.json" \
        '"Echo: \(.round_trips_per_second | round) round trips/s over \(.connections) connections; flat out is \($flat[0].actions_per_second / .round_trips_per_second * 100 | round)% of it."' \
        "$out/echo.json"
    jq -r --slurpfile flat "$out/flat.json" \
        '"Relay: \(.round_trips_per_second | round) frames/s to groups of \(.fan_out); flat out is \($flat[0].actions_per_second / .round_trips_per_second * 100 | round)% of it."' \
        "$out/relay.json"
    jq -r --slurpfile flat "$out/flat.json" --slurpfile relay "$out/relay.json" \
        '"Durable relay: \(.round_trips_per_second | round) frames/s, \(.round_trips_per_second / $relay[0].round_trips_per_second * 100 | round)% of the relay; flat out is \($flat[0].actions_per_second / .round_trips_per_second * 100 | round)% of it."' \
        "$out/durable.json"
    jq -r '"Idle: \(.connections) connections, \(.server_kib_per_connection) KiB each, \(.server_core_share_second_half * 100)% of a core."' \
        "$out/idle.json"
} >"$out/summary.md"
cat "$out/summary.md"

# Latency against load: the paced sweep.
for tables in $sweep; do
    jq -r '"\(.actions_per_second) \(.latency_ms.p50) \(.latency_ms.p99) \(.to_others_ms.p99)"' \
        "$out/paced-$tables.json"
done >"$out/paced.dat"
plot_paced "$out/paced.dat" "$out/latency.png" \
    "Human-paced tables (1 s exponential think), one server process, 2 cores shared with the load generator"
echo "plot: $out/latency.png"
