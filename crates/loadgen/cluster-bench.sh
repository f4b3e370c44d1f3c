#!/usr/bin/env bash
# Connections held and human-paced tables against a cluster on this machine.
#
#   crates/loadgen/cluster-bench.sh NODES DATA_DIR
#
# NODES is 1, 2 or 3 cluster nodes, or `single` for one server out of
# cluster mode on the same PostgreSQL (the baseline without NATS). Each
# node is a process of its own on a loopback port (PORT, PORT+1, ...), all
# on a nats-server -js of the run's own (NATS_PORT, its store in
# DATA_DIR/nats, its monitoring on NATS_PORT+1 for the messages it
# carried) and a PostgreSQL database of the run's own
# (euchre_cluster_bench on 127.0.0.1:5432, dropped and made afresh; PG_URL
# overrides). DATA_DIR (emptied first) holds every node's data folder.
#
# Two runs, each against the same nodes, each on its own clock:
#   (a) IDLE identified connections (default 2000) held HOLD seconds
#       (default 20): the nodes' memory per connection and CPU, summed;
#   (b) TABLES human-paced tables (default 200) of four clients, think
#       THINK_MS (default 1000) drawn from an exponential distribution, for
#       DURATION seconds (default 30): ack p50/p99, to-others p99, errors;
#       the nodes' and nats-server's CPU over the whole run (the clients'
#       connecting and joining too) and over the play alone, an action.
# The clients go round-robin over the nodes, so a table's four players sit
# on different nodes (seat i on node i mod NODES). Each node gives its own
# address as its cluster.public_url, so a client that joins a table of
# another node is told where it lives (`table_elsewhere`) and moves there;
# STAY=1 keeps every client on its node (euchre-loadgen --stay), its
# table's messages relayed through NATS. IDLE=0 or TABLES=0 skips
# a run. Quick to run: about a minute a configuration at the defaults.
#
# NODE_WORKERS=N gives each node N tokio worker threads (tokio's
# TOKIO_WORKER_THREADS; the default is one per core).
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
stay=()
[ "${STAY:-0}" = 1 ] && stay=(--stay)
shards=${SHARDS:-256}
ttl=${TTL_MS:-6000}

case $nodes in
single) count=1 cluster=false ;;
1 | 2 | 3) count=$nodes cluster=true ;;
*) echo "NODES: 1, 2, 3 or single" >&2 && exit 2 ;;
esac

fresh_marked_dir "$data" cluster-bench
database=${PG_URL:-postgres://postgres@127.0.0.1:5432/euchre_cluster_bench}
fresh_database "$database"
trap stop_all EXIT

cpu_of() { awk -v t="$(getconf CLK_TCK)" '{ split($0, a, ") "); split(a[2], f, " "); printf "%.1f", (f[12] + f[13]) / t }' "/proc/$1/stat"; }
rss_of() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

if [ "$cluster" = true ]; then
    # Its monitoring port, for the messages it carried (/varz).
    nats_monitor=$((nats_port + 1))
    start_nats "$nats_port" "$data" -m "$nats_monitor"
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
        EUCHRE_CLUSTER__PUBLIC_URL="ws://127.0.0.1:$node_port/ws" \
        env "${load_test_limits[@]}" ${NODE_WORKERS:+TOKIO_WORKER_THREADS=$NODE_WORKERS} "$bin/euchre-server" --bind "127.0.0.1:$node_port" --data-dir "$data/n$n" \
        --database-url "$database" >"$data/n$n.log" 2>&1 &
    pids+=($!)
    node_pids+=($!)
    urls+=("ws://127.0.0.1:$node_port/ws")
done
for n in $(seq "$count"); do
    wait_until_ready "$((port + n - 1))"
done

# Every shard owned and taken over, none about to move (looks a lease tick
# apart, for up to a minute).
if [ "$cluster" = true ]; then
    mapfile -t node_ports < <(seq "$port" "$((port + count - 1))")
    owned=$(settle_shards "$shards" "$(awk -v t="$ttl" 'BEGIN { print t / 3000 }')" 60 "${node_ports[@]}")
    echo "# $count nodes, shards owned: $owned(of $shards), lease TTL $ttl ms"
else
    echo "# one node out of cluster mode, on PostgreSQL"
fi
echo "# $(nproc) cores, open files $(ulimit -n), $(uptime | sed 's/.*load/load/')"

nats_line() {
    [ "$cluster" = true ] || return 0
    local messages
    messages=$(curl -sf "http://127.0.0.1:$nats_monitor/varz" | jq -r '"\(.in_msgs) in, \(.out_msgs) out"' || echo "unknown")
    echo "# nats-server: $(cpu_of "$nats_pid") s of CPU so far, RSS $(rss_of "$nats_pid") KiB, messages so far $messages"
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
    echo "## (b) $tables paced tables (4 clients each, think $think ms, exponential) over $count node(s), $duration s${stay[*]:+, every client staying on its node}"
    nats_line
    TIMEFORMAT='# load generator: %R s wall, %U s user, %S s system'
    before=0
    for pid in "${node_pids[@]}"; do before=$(awk -v a="$before" -v b="$(cpu_of "$pid")" 'BEGIN { print a + b }'); done
    watch=("${node_pids[@]}")
    [ "$cluster" = true ] && watch+=("$nats_pid")
    time "$bin/euchre-loadgen" "$list" --tables "$tables" --players 4 --think-ms "$think" \
        --think-exponential --duration "$duration" "${stay[@]}" --json "$data/paced.json" \
        --watch-pid "$(IFS=,; echo "${watch[*]}")"
    after=0
    for pid in "${node_pids[@]}"; do after=$(awk -v a="$after" -v b="$(cpu_of "$pid")" 'BEGIN { print a + b }'); done
    echo "# nodes: $(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.1f", b - a }') s of CPU over the paced run, summed"
    nats_line
    # Over the play alone (the load generator reads /proc as play starts
    # and stops): the clients' connecting and joining is not counted.
    jq -r --argjson nodes "$count" '[.watched[].cpu_us_per_action] as $w
        | "# play alone, µs of CPU an action: nodes \($w[0:$nodes] | add | . * 10 | round / 10)"
          + (if ($w | length) > $nodes then ", nats-server \($w[$nodes] | . * 10 | round / 10)" else "" end)' \
        "$data/paced.json"
    if [ "$cluster" = true ]; then
        relayed=0
        for n in $(seq "$count"); do
            relayed=$((relayed + $(curl -sf "http://127.0.0.1:$((port + n - 1))/metrics" |
                awk '$1 == "euchre_cluster_frames_relayed_total" { print $2 }')))
        done
        echo "# frames relayed between nodes, set-up included: $relayed"
    fi
fi
echo "# after: $(uptime | sed 's/.*load/load/')"
