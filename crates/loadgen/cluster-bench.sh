#!/usr/bin/env bash
# Connections held and human-paced tables against a cluster on this machine.
#
#   crates/loadgen/cluster-bench.sh NODES DATA_DIR
#
# NODES is 1, 2 or 3 cluster nodes, or `single` for one server out of
# cluster mode on the same PostgreSQL (the baseline without NATS). Each
# node is a process of its own on a loopback port (PORT, PORT+1, ...), all
# on a nats-server -js of the run's own (NATS_PORT, its store in
# DATA_DIR/nats) and a PostgreSQL database of the run's own
# (euchre_cluster_bench on 127.0.0.1:5432, dropped and made afresh; PG_URL
# overrides). DATA_DIR (emptied first) holds every node's data folder.
#
# Two runs, each against the same nodes, each on its own clock:
#   (a) IDLE identified connections (default 2000) held HOLD seconds
#       (default 20): the nodes' memory per connection and CPU, summed;
#   (b) TABLES human-paced tables (default 200) of four clients, think
#       THINK_MS (default 1000) drawn from an exponential distribution, for
#       DURATION seconds (default 30): ack p50/p99, to-others p99, errors.
# The clients go round-robin over the nodes, so a table's four players sit
# on different nodes (seat i on node i mod NODES). IDLE=0 or TABLES=0 skips
# a run. Quick to run: about a minute a configuration at the defaults.
#
# SHARDS (256) and TTL_MS (6000) are the cluster's settings. The load
# generator is one process (at most about 19,900 sockets: the open-file
# limit), so IDLE and 4 x TABLES stay under that.
#
# Build first: cargo build --release -p euchre-server -p euchre-loadgen
# (BIN=target/debug to use a debug build).
set -euo pipefail

# shellcheck source=crates/loadgen/lib.sh
. "$(dirname "$0")/lib.sh"

nodes=${1:?1, 2, 3 or single}
data=${2:?a data folder}
port=${PORT:-18180}
nats_port=${NATS_PORT:-14222}
bin=${BIN:-target/release}
idle=${IDLE:-2000}
hold=${HOLD:-20}
tables=${TABLES:-200}
duration=${DURATION:-30}
think=${THINK_MS:-1000}
shards=${SHARDS:-256}
ttl=${TTL_MS:-6000}
nats_bin=$(command -v nats-server || echo /usr/sbin/nats-server)

case $nodes in
single) count=1 cluster=false ;;
1 | 2 | 3) count=$nodes cluster=true ;;
*) echo "NODES: 1, 2, 3 or single" >&2 && exit 2 ;;
esac

# Emptied only if it looks like an earlier run's: never a folder of other things.
if [ -n "$(ls -A "$data" 2>/dev/null)" ] && [ ! -f "$data/cluster-bench" ]; then
    echo "$data is not empty and is not an earlier run's: choose a new folder" >&2
    exit 2
fi
rm -rf "$data"
mkdir -p "$data"
touch "$data/cluster-bench"

database=${PG_URL:-postgres://postgres@127.0.0.1:5432/euchre_cluster_bench}
psql "${database%/*}/postgres" -q -c "DROP DATABASE IF EXISTS ${database##*/}" \
    -c "CREATE DATABASE ${database##*/}"

pids=()
stop_all() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_all EXIT

cpu_of() { awk -v t="$(getconf CLK_TCK)" '{ split($0, a, ") "); split(a[2], f, " "); printf "%.1f", (f[12] + f[13]) / t }' "/proc/$1/stat"; }
rss_of() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

if [ "$cluster" = true ]; then
    "$nats_bin" -a 127.0.0.1 -p "$nats_port" -js -sd "$data/nats" 2>"$data/nats.log" &
    nats=$!
    pids+=("$nats")
    for _ in $(seq 100); do
        grep -q "Server is ready" "$data/nats.log" && break
        sleep 0.1
    done
fi

urls=() node_pids=()
for n in $(seq "$count"); do
    node_port=$((port + n - 1))
    mkdir -p "$data/n$n"
    RUST_LOG=${RUST_LOG:-warn} \
        EUCHRE_CLUSTER__ENABLED=$cluster \
        EUCHRE_CLUSTER__NATS_URL="nats://127.0.0.1:$nats_port" \
        EUCHRE_CLUSTER__NODE_ID="n$n" \
        EUCHRE_CLUSTER__SHARDS="$shards" \
        EUCHRE_CLUSTER__LEASE_TTL_MS="$ttl" \
        env "${load_test_limits[@]}" "$bin/euchre-server" --bind "127.0.0.1:$node_port" --data-dir "$data/n$n" \
        --database-url "$database" >"$data/n$n.log" 2>&1 &
    pids+=($!)
    node_pids+=($!)
    urls+=("ws://127.0.0.1:$node_port/ws")
done
for n in $(seq "$count"); do
    wait_until_ready "$((port + n - 1))"
done

# Every shard owned and taken over, none about to move (each node at most
# its fair share; two looks a lease tick apart agree).
owned() {
    local n out=""
    for n in $(seq "$count"); do
        out+="$(curl -sf "http://127.0.0.1:$((port + n - 1))/metrics" |
            awk '$1 == "euchre_cluster_shards_owned" { print $2 }') "
    done
    echo "$out"
}
if [ "$cluster" = true ]; then
    fair=$(((shards + count - 1) / count))
    settled="" started=$SECONDS
    while [ $((SECONDS - started)) -lt 60 ]; do
        now=$(owned)
        total=0 over=0
        for held in $now; do
            total=$((total + held))
            [ "$held" -gt "$fair" ] && over=1
        done
        if [ "$total" = "$shards" ] && [ "$over" = 0 ] && [ "$now" = "$settled" ]; then
            break
        fi
        settled=$([ "$total" = "$shards" ] && [ "$over" = 0 ] && echo "$now" || echo "")
        sleep "$(awk -v t="$ttl" 'BEGIN { print t / 3000 }')"
    done
    [ -n "$settled" ] || { echo "the shards never settled: $(owned)" >&2 && exit 1; }
    echo "# $count nodes, shards owned: $(owned)(of $shards), lease TTL $ttl ms"
else
    echo "# one node out of cluster mode, on PostgreSQL"
fi
echo "# $(nproc) cores, open files $(ulimit -n), $(uptime | sed 's/.*load/load/')"

nats_line() {
    [ "$cluster" = true ] || return 0
    echo "# nats-server: $(cpu_of "$nats") s of CPU so far, RSS $(rss_of "$nats") KiB"
}
list=$(IFS=,; echo "${urls[*]}")
node_list=$(IFS=,; echo "${node_pids[*]}")

if [ "$idle" -gt 0 ]; then
    echo "## (a) $idle idle connections over $count node(s), held $hold s"
    nats_line
    "$bin/euchre-loadgen" "$list" --idle "$idle" --duration "$hold" --server-pid "$node_list" \
        --json "$data/idle.json"
    nats_line
fi
if [ "$tables" -gt 0 ]; then
    echo "## (b) $tables paced tables (4 clients each, think $think ms, exponential) over $count node(s), $duration s"
    nats_line
    TIMEFORMAT='# load generator: %R s wall, %U s user, %S s system'
    before=0
    for pid in "${node_pids[@]}"; do before=$(awk -v a="$before" -v b="$(cpu_of "$pid")" 'BEGIN { print a + b }'); done
    time "$bin/euchre-loadgen" "$list" --tables "$tables" --players 4 --think-ms "$think" \
        --think-exponential --duration "$duration" --json "$data/paced.json"
    after=0
    for pid in "${node_pids[@]}"; do after=$(awk -v a="$after" -v b="$(cpu_of "$pid")" 'BEGIN { print a + b }'); done
    echo "# nodes: $(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.1f", b - a }') s of CPU over the paced run, summed"
    nats_line
fi
echo "# after: $(uptime | sed 's/.*load/load/')"
