#!/usr/bin/env bash
# docker/compose.cluster.yaml rehearsed with host processes, no container
# engine (cheap enough for every CI run; docker/rehearse.sh runs the file
# itself in containers): the three nodes with the environment the compose file
# gives them and the image's config (config/default.toml), behind HAProxy
# running docker/haproxy.cfg, on a nats-server -js running docker/nats.conf
# (the nodes' user and its permissions) and a PostgreSQL database of the
# run's own. Only what Docker would provide is replaced:
# the containers' names become loopback ports, and the nodes trust the
# balancer at 127.0.0.1 instead of Docker's network.
#
#   docker/rehearse-cluster.sh DATA_DIR
#
# It checks that Compose reads both compose files, that HAProxy finds the
# nodes healthy and serves the page and /healthz through them; plays TABLES
# paced tables (default 40; THINK_MS, default 100, the mean pause before
# each action) through it for DURATION seconds (default 20), every hand
# stored and no error; kills one node with SIGKILL, waits for HAProxy to
# mark it down and the other two to take its shards over; and plays again
# through the balancer on the two left. NATS must have refused the nodes
# nothing (no permission violation in its log). (That tables in play
# survive the kill is the three-node failover tests' part, in
# crates/server/tests/it/cluster.rs: the load generator does not reconnect.)
#
# Needs haproxy, docker-compose (to read the compose files: Debian's
# package, version 1, reads them without a Docker engine), nats-server,
# psql and PostgreSQL on 127.0.0.1:5432, and
# the binaries (BIN, default target/debug): cargo build -p euchre-server -p euchre-loadgen
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=crates/loadgen/lib.sh
. crates/loadgen/lib.sh

data=${1:?a data folder}
bin=${BIN:-target/debug}
tables=${TABLES:-40}
duration=${DURATION:-20}
think=${THINK_MS:-100}
port=${PORT:-18280}
lb_port=${LB_PORT:-18290}
nats_port=${NATS_PORT:-14322}
haproxy_bin=$(command -v haproxy || echo /usr/sbin/haproxy)

fresh_marked_dir "$data" rehearsal
database=postgres://postgres@127.0.0.1:5432/euchre_rehearsal
fresh_database "$database"
trap stop_all EXIT

# The compose file as Compose reads it (validated, its variables filled in:
# POSTGRES_PASSWORD is a stand-in, the database URL is replaced below;
# NATS_PASSWORD is the nodes' NATS password, as in the compose file).
POSTGRES_PASSWORD=rehearsal NATS_PASSWORD=rehearsal-nats \
    docker-compose -f docker/compose.cluster.yaml config >"$data/compose.yaml"
POSTGRES_PASSWORD=rehearsal docker-compose -f docker/compose.yaml config -q
# Each node's environment there, one KEY=VALUE a line.
compose_env() {
    python3 - "$data/compose.yaml" "$1" <<'PY'
import sys, yaml
compose = yaml.safe_load(open(sys.argv[1]))
for key, value in compose["services"][sys.argv[2]]["environment"].items():
    print(f"{key}={'' if value is None else value}")
PY
}

# The compose file's NATS: docker/nats.conf, its password from the nats
# service's environment; the nodes log in with the compose file's credentials.
EUCHRE_NATS_PASSWORD=$(compose_env nats | sed -n 's/^EUCHRE_NATS_PASSWORD=//p') \
    start_nats "$nats_port" "$data" -c docker/nats.conf

node_pids=()
for n in 1 2 3; do
    mapfile -t environment < <(compose_env "euchre$n")
    mkdir -p "$data/euchre$n"
    env "${environment[@]}" \
        DATABASE_URL="$database" \
        EUCHRE_CLUSTER__NATS_URL="nats://127.0.0.1:$nats_port" \
        EUCHRE_TRUSTED_PROXIES=127.0.0.1 \
        EUCHRE_BIND="127.0.0.1:$((port + n))" \
        EUCHRE_CLUSTER__PUBLIC_URL="ws://127.0.0.1:$lb_port/ws?node=euchre$n" \
        EUCHRE_DATA_DIR="$data/euchre$n" \
        EUCHRE_LOG_FORMAT=json \
        "${load_test_limits[@]}" EUCHRE_TIMING__BOT_DELAY_MS=0 \
        "$bin/euchre-server" --config config/default.toml >"$data/euchre$n.log" 2>&1 &
    pids+=($!)
    node_pids+=($!)
done

# The compose file's balancer, its nodes' names and its port put on loopback.
# HAProxy needs two files a connection: maxconn is lowered to fit this
# machine's open-file limit (the compose file raises the container's).
awk -v port="$port" -v lb="$lb_port" -v maxconn="$((($(ulimit -n) - 100) / 2))" '
    /^ *maxconn / { $2 = maxconn; $0 = "    " $1 " " $2 }
    /^ *bind :8080/ { sub(/:8080/, "127.0.0.1:" lb) }
    /^ *server euchre[123] euchre[123]:8080/ { n = substr($2, 7, 1); sub(/euchre[123]:8080/, "127.0.0.1:" port + n) }
    { print }' docker/haproxy.cfg >"$data/haproxy.cfg"
echo "== haproxy -c"
"$haproxy_bin" -c -f "$data/haproxy.cfg" 2>&1 | grep -v NOTICE
"$haproxy_bin" -db -f "$data/haproxy.cfg" >"$data/haproxy.log" 2>&1 &
pids+=($!)

for n in 1 2 3; do wait_until_ready "$((port + n))"; done
lb="http://127.0.0.1:$lb_port"
for _ in $(seq 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$lb/healthz")" = 200 ] && break
    sleep 0.1
done
echo "== through the balancer: /healthz $(curl -s -o /dev/null -w '%{http_code}' "$lb/healthz"), / $(curl -s -o /dev/null -w '%{http_code}' "$lb/")"
grep -q "<title>" <(curl -s "$lb/") || { echo "the page did not come through the balancer" >&2 && exit 1; }

# Every shard owned, none by more than its fair share, two looks a second
# apart agreeing, within two minutes (the compose file leaves the shards at
# their default, 256).
settle() {
    local n node_ports=()
    for n in "$@"; do node_ports+=("$((port + n))"); done
    settle_shards 256 1 120 "${node_ports[@]}"
}
owned=$(settle 1 2 3)
echo "== shards owned by euchre1, 2, 3: $owned"

play() {
    "$bin/euchre-loadgen" "ws://127.0.0.1:$lb_port/ws" --http "$lb" --tables "$tables" --players 4 \
        --think-ms "$think" --think-exponential --duration "$duration" --json "$data/$1.json"
    # Every table played, every hand stored, no error.
    python3 - "$data/$1.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
problems = []
if run["errors"]:
    problems.append(f"errors: {run['errors']}")
if run["actions"] == 0 or run["hands_ended"] == 0:
    problems.append("nothing was played")
if run["hands_stored"] < run["hands_ended"]:
    problems.append(f"{run['hands_ended'] - run['hands_stored']} hands not stored")
sys.exit("; ".join(problems) or None)
PY
}
echo "== $tables paced tables through the balancer for $duration s"
play three-nodes
killed=$(date +%s%N)
kill -9 "${node_pids[1]}"
wait "${node_pids[1]}" 2>/dev/null || true
since_kill() { awk -v a="$killed" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f s", (b - a) / 1e9 }'; }
echo "== euchre2 killed (SIGKILL)"
for _ in $(seq 200); do
    grep -q "Server nodes/euchre2 is DOWN" "$data/haproxy.log" && break
    sleep 0.1
done
grep -q "Server nodes/euchre2 is DOWN" "$data/haproxy.log" || { echo "HAProxy never marked euchre2 down" >&2 && exit 1; }
echo "== HAProxy marked euchre2 down $(since_kill) after the kill"
owned=$(settle 1 3)
echo "== shards owned by euchre1, 3: $owned(settled $(since_kill) after the kill)"
echo "== $tables paced tables through the balancer for $duration s, on the two left"
play two-nodes
if grep -i "violation" "$data/nats.log"; then
    echo "NATS refused the nodes something (above): docker/nats.conf's permissions miss a subject" >&2
    exit 1
fi
echo "== NATS (docker/nats.conf) refused the nodes nothing"
