#!/usr/bin/env bash
# The server's instructions per action, counted by callgrind: a figure that
# does not move with the machine's load, so any box can repeat it.
#
#   crates/loadgen/callgrind.sh DATA_DIR [SHORT_HANDS LONG_HANDS]
#
# Runs the release server twice under valgrind --tool=callgrind (SQLite,
# its data in DATA_DIR/short and DATA_DIR/long, emptied first), each time
# with the load generator playing 10 tables flat out until SHORT_HANDS
# (default 300) and then LONG_HANDS (default 900) hands have ended. The
# figure is the difference of the two runs' instructions over the
# difference of their actions acked, which cancels start-up, shutdown and
# everything else a run does once. Both runs include the load generator's
# closing check of every stored match through the history API, and neither
# analyses the matches that end (analysis.at_match_end off). Kernel work is
# not counted: callgrind sees only the process's own instructions.
#
# The profiles stay in DATA_DIR/{short,long}/callgrind.out for
# callgrind_annotate (`--inclusive=yes` for the inclusive costs).
#
# MEASURE=loadgen counts the load generator's instructions instead (the
# server runs at full speed): what the client side costs per action.
#
# Build first: cargo build --release -p euchre-server -p euchre-loadgen
set -euo pipefail

data=${1:?a data folder}
short=${2:-300}
long=${3:-900}
port=${PORT:-18280}
bin=${BIN:-target/release}

# shellcheck source=crates/loadgen/lib.sh
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2 && exit 2; }

# One run: prints "instructions actions".
run() {
    local dir=$1 hands=$2 server report actions instructions
    fresh_data_dir "$dir"
    mkdir -p "$dir/journal" # marks it as a run's folder for the next fresh_data_dir
    local counted=(valgrind --tool=callgrind --collect-systime=no --callgrind-out-file="$dir/callgrind.out")
    local server_under=("${counted[@]}") loadgen_under=()
    if [ "${MEASURE:-server}" = loadgen ]; then
        server_under=() loadgen_under=("${counted[@]}")
    fi
    RUST_LOG=warn env "${load_test_limits[@]}" \
        "${server_under[@]}" "$bin/euchre-server" --bind "127.0.0.1:$port" --data-dir "$dir" \
        --database-url "sqlite://$dir/euchre.db" >"$dir/server.log" 2>"$dir/valgrind.log" &
    # (The server's own log goes to server.log: this function's output is its figures.)
    server=$!
    # Under callgrind the server starts slowly: give it a minute.
    for _ in $(seq 600); do
        curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
        sleep 0.1
    done
    report=$("${loadgen_under[@]}" "$bin/euchre-loadgen" "ws://127.0.0.1:$port/ws" \
        --tables 10 --hands "$hands" 2>>"$dir/valgrind.log")
    kill -TERM "$server"
    wait "$server" || true
    echo "$report" >"$dir/report.txt"
    actions=$(awk '/^actions acked/ { print $3 }' <<<"$report")
    instructions=$(awk '/^(summary|totals):/ { print $2; exit }' "$dir/callgrind.out")
    echo "$instructions $actions"
}

echo "# callgrind, $(uptime | sed 's/.*load/load/')"
read -r i1 a1 < <(run "$data/short" "$short")
echo "# $short hands: $i1 instructions, $a1 actions acked"
read -r i2 a2 < <(run "$data/long" "$long")
echo "# $long hands: $i2 instructions, $a2 actions acked"
echo "${MEASURE:-server} instructions per action: $(((i2 - i1) / (a2 - a1)))"
