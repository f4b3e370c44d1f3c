#!/usr/bin/env bash
# Abuse under load: one release server with its default limits, and the
# load generator's human-paced tables run ROUNDS times without abusers and
# ROUNDS times with all four beside them, alternating, so both see the same
# machine in the same period.
#
#   crates/loadgen/abuse.sh DATA_DIR ROUNDS [euchre-loadgen flags...]
#   crates/loadgen/abuse.sh /dev/shm/abuse 3 --tables 500 --think-ms 1000 \
#       --think-exponential --duration 60 --slow-hold 40
#
# The playing clients come from 127.1.x.y, 16 to an address (so the server's
# default 32 connections per address hold), each abuser from its own
# 127.2.0.N: the server must listen on loopback. DATA_DIR (emptied first,
# as bench.sh does) holds the server's journal and SQLite database, and
# each run's report as JSON (none-1.json, all-1.json, …).
#
# Build first: cargo build --release -p euchre-server -p euchre-loadgen
set -euo pipefail

data=${1:?a data folder}
rounds=${2:?how many rounds of each}
shift 2
port=${PORT:-18090}
bin=${BIN:-target/release}

# shellcheck source=crates/loadgen/lib.sh
. "$(dirname "$0")/lib.sh"
fresh_data_dir "$data"

# Default limits; only the log level is quieter.
RUST_LOG=${RUST_LOG:-warn} "$bin/euchre-server" --bind "127.0.0.1:$port" \
    --data-dir "$data" --database-url "sqlite://$data/euchre.db" &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
wait_until_ready "$port"

for round in $(seq "$rounds"); do
    for abuse in none all; do
        echo "# round $round, abusers: $abuse, $(date -u +%H:%M:%S) UTC, $(uptime | sed 's/.*load/load/')"
        "$bin/euchre-loadgen" "ws://127.0.0.1:$port/ws" --source-addresses 125 \
            --abuse "$abuse" --server-pid "$server" --json "$data/$abuse-$round.json" "$@"
    done
done
echo "# after: $(uptime | sed 's/.*load/load/'), server RSS $(awk '/^VmRSS:/ { print $2 }' "/proc/$server/status") KiB"
