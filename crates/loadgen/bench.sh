#!/usr/bin/env bash
# One load-generator run against a fresh release server.
#
#   crates/loadgen/bench.sh sqlite|postgres|echo|relay|durable DATA_DIR [euchre-loadgen flags...]
#
# DATA_DIR (emptied first) holds the server's journal, and for SQLite its
# database too: put it on the real disk to measure durable logging, or under
# /dev/shm (tmpfs, where fdatasync costs almost nothing) for the baseline.
# PostgreSQL uses a fresh database euchre_loadgen on 127.0.0.1:5432 (trust
# auth; PG_URL overrides). `echo` runs the bare echo server instead of the
# game server, and the load generator's --echo clients against it: the
# yardstick for flat-out play, over --tables x --players connections.
# `relay` runs the same server and --relay clients: --tables groups of
# --players connections, each frame handed to every member (a table's
# fan-out, with no game). `durable` is the relay through a task per group
# and the game server's journal (in DATA_DIR) before the fan-out: the game
# server's path with no game.
#
# SAMPLE_EVERY=S writes the server's memory, CPU time, open connections and
# open tables every S seconds to DATA_DIR/samples.csv, and AFTER=S goes on
# sampling that long once the load generator has finished (tables close a
# minute after their last client leaves): a soak shows both flat.
# BOT_DELAY_MS sets the bots' pause (0 by default: bots play flat out).
# SERVER_WORKERS=N gives the server, the echo server included, N tokio
# worker threads (tokio's TOKIO_WORKER_THREADS; the load generator keeps
# one a core).
#
# Build first: cargo build --release -p euchre-server -p euchre-loadgen
set -euo pipefail

backend=${1:?sqlite, postgres, echo, relay or durable}
data=${2:?a data folder}
shift 2
port=${PORT:-18080}
bin=${BIN:-target/release}

# shellcheck source=crates/loadgen/lib.sh
. "$(dirname "$0")/lib.sh"
fresh_data_dir "$data"
case $backend in
sqlite) database="sqlite://$data/euchre.db" ;;
echo | relay | durable) ;;
postgres)
    database=${PG_URL:-postgres://postgres@127.0.0.1:5432/euchre_loadgen}
    fresh_database "$database"
    ;;
*) echo "backend: sqlite, postgres, echo, relay or durable" >&2 && exit 2 ;;
esac

if [ "$backend" = echo ] || [ "$backend" = relay ] || [ "$backend" = durable ]; then
    env ${SERVER_WORKERS:+TOKIO_WORKER_THREADS=$SERVER_WORKERS} "$bin/euchre-loadgen" --serve-echo "127.0.0.1:$port" \
        --echo-journal "$data/journal" &
    server=$!
    trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
    for _ in $(seq 300); do
        curl -s -o /dev/null "http://127.0.0.1:$port/ws" && break
        sleep 0.1
    done
    echo "# echo server, $(uptime | sed 's/.*load/load/')"
    if [ "$backend" = relay ] || [ "$backend" = durable ]; then
        "$bin/euchre-loadgen" "ws://127.0.0.1:$port/$backend" --relay --server-pid "$server" "$@"
    else
        "$bin/euchre-loadgen" "ws://127.0.0.1:$port/ws" --echo --server-pid "$server" "$@"
    fi
    exit
fi

# Quick bots (BOT_DELAY_MS sets their pause), and limits for one address
# with many connections acting flat out.
RUST_LOG=${RUST_LOG:-warn} \
    EUCHRE_TIMING__BOT_DELAY_MS=${BOT_DELAY_MS:-0} \
    env "${load_test_limits[@]}" ${SERVER_WORKERS:+TOKIO_WORKER_THREADS=$SERVER_WORKERS} "$bin/euchre-server" --bind "127.0.0.1:$port" --data-dir "$data" --database-url "$database" &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
wait_until_ready "$port"
echo "# $backend, data in $data ($(df --output=fstype "$data" | tail -1)), $(uptime | sed 's/.*load/load/')"
sample() {
    local started=$SECONDS metrics rss cpu
    echo "seconds,rss_kib,cpu_seconds,connections_open,tables_open" >"$data/samples.csv"
    while kill -0 "$server" 2>/dev/null; do
        metrics=$(curl -sf "http://127.0.0.1:$port/metrics" || true)
        rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$server/status")
        cpu=$(awk -v ticks="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / ticks }' "/proc/$server/stat")
        echo "$((SECONDS - started)),$rss,$cpu,$(metric euchre_connections_open),$(metric euchre_tables_open)" >>"$data/samples.csv"
        sleep "$SAMPLE_EVERY"
    done
}
metric() { awk -v name="$1" '$1 == name { print $2 }' <<<"$metrics"; }
if [ -n "${SAMPLE_EVERY:-}" ]; then
    sample &
fi
# CPU time of each side: both share this machine's cores.
TIMEFORMAT='# load generator: %R s wall, %U s user, %S s system'
# The load generator reads the server's CPU time (and an --idle run its
# memory) from /proc itself, to report it beside its own.
extra=(--server-pid "$server")
# Quick play's --rating-spread writes the players' ratings into the database.
case " $* " in *" --rating-spread "*) extra+=(--database-url "$database") ;; esac
time "$bin/euchre-loadgen" "ws://127.0.0.1:$port/ws" "$@" "${extra[@]}"
cpu=$(awk -v ticks="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / ticks }' "/proc/$server/stat")
echo "# server: $cpu s of CPU since it started"
if [ -n "${AFTER:-}" ]; then
    sleep "$AFTER"
    echo "# $AFTER s later: $(tail -1 "$data/samples.csv") (seconds,rss_kib,cpu_seconds,connections_open,tables_open)"
fi
echo "# after: $(uptime | sed 's/.*load/load/')"
