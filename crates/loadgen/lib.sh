# shellcheck shell=bash
# Shared by bench.sh, abuse.sh, cluster-bench.sh and docker/rehearse-cluster.sh
# (sourced, not run).

# Empties DIR for a fresh run, and makes it; only a folder that looks like
# an earlier run's (it holds a journal) or an empty one: never a folder of
# other things.
fresh_data_dir() {
    local data=$1
    if [ -n "$(ls -A "$data" 2>/dev/null)" ] && [ ! -d "$data/journal" ]; then
        echo "$data is not empty and holds no journal: choose a new folder" >&2
        exit 2
    fi
    rm -rf "$data"
    mkdir -p "$data"
}

# Waits (up to 30 s) until the game server on 127.0.0.1:PORT is ready.
wait_until_ready() {
    local port=$1
    for _ in $(seq 300); do
        curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && return
        sleep 0.1
    done
}

# The settings a load test from one address needs (the defaults allow 32
# connections and 30 new guests a minute an address, 20 messages a second a
# connection, 20 API requests a second an address, which the check of the
# stored hands passes): `env "${load_test_limits[@]}" SERVER ...`.
# shellcheck disable=SC2034 # used by the scripts that source this
load_test_limits=(
    EUCHRE_LIMITS__CONNECTIONS_PER_ADDRESS=100000
    EUCHRE_LIMITS__GUESTS_PER_MINUTE=0
    EUCHRE_LIMITS__MESSAGES_PER_SECOND=100000
    EUCHRE_LIMITS__MESSAGE_BURST=100000
    EUCHRE_LIMITS__TABLES_PER_PLAYER=100000
    EUCHRE_LIMITS__MAX_TABLES=100000
    EUCHRE_API__REQUESTS_PER_SECOND=0
    # The solver's analysis of each finished match is off: it is work per
    # match, not per action, run in the background, so how much of it a run
    # counts depends on timing (under callgrind it took 95% of a run's
    # instructions; a paced run's match ends would take whole cores). Its
    # cost is measured apart (BENCHMARKS.md, "Analysis of a finished game").
    EUCHRE_ANALYSIS__AT_MATCH_END=false
)
# ANALYSIS=1 analyses every match that ends, as a server does by default:
# for measuring play beside the analyses (BENCHMARKS.md, "Analyses beside play").
if [ "${ANALYSIS:-0}" = 1 ]; then
    load_test_limits+=(EUCHRE_ANALYSIS__AT_MATCH_END=true)
fi

# Empties DIR for a fresh run, and makes it, marking it with a file MARKER;
# only a folder that looks like an earlier run's (it holds MARKER) or an
# empty one: never a folder of other things.
fresh_marked_dir() {
    local data=$1 marker=$2
    if [ -n "$(ls -A "$data" 2>/dev/null)" ] && [ ! -f "$data/$marker" ]; then
        echo "$data is not empty and is not an earlier run's (no $marker in it): choose a new folder" >&2
        exit 2
    fi
    rm -rf "$data"
    mkdir -p "$data"
    touch "$data/$marker"
}

# Drops the PostgreSQL database at URL (postgres://.../NAME) and makes it
# afresh, through the server's `postgres` database.
fresh_database() {
    local url=$1
    psql "${url%/*}/postgres" -q -c "DROP DATABASE IF EXISTS ${url##*/}" -c "CREATE DATABASE ${url##*/}"
}

# The processes a script starts, each added with `pids+=($!)`, are stopped
# and waited for when it exits once it has run `trap stop_all EXIT`.
pids=()
stop_all() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}

# Starts nats-server with JetStream on 127.0.0.1:PORT, its store in
# DIR/nats and its log in DIR/nats.log, one of the `pids` (its own in
# nats_pid), and waits (up to 10 s) until it is ready. Any further
# arguments go to nats-server first (`-c docker/nats.conf`: the address,
# port and store above win over the file's).
start_nats() {
    local port=$1 dir=$2 bin
    shift 2
    bin=$(command -v nats-server || echo /usr/sbin/nats-server)
    "$bin" "$@" -a 127.0.0.1 -p "$port" -js -sd "$dir/nats" 2>"$dir/nats.log" &
    nats_pid=$!
    pids+=("$nats_pid")
    for _ in $(seq 100); do
        grep -q "Server is ready" "$dir/nats.log" && break
        sleep 0.1
    done
}

# Prints how many of the SHARDS each cluster node on 127.0.0.1:PORT... owns
# once they have settled: every shard owned, no node over its fair share,
# and two looks PAUSE seconds apart agreeing (a shard about to move would
# show). Exits the script if they have not within LIMIT seconds. Run it as
# `owned=$(settle_shards ...)`: an assignment, so that its exit stops a
# script under `set -e`.
settle_shards() {
    local shards=$1 pause=$2 limit=$3
    shift 3
    local fair=$(((shards + $# - 1) / $#)) owned last="" port started=$SECONDS
    while [ $((SECONDS - started)) -lt "$limit" ]; do
        owned=""
        for port in "$@"; do
            owned+="$(curl -sf "http://127.0.0.1:$port/metrics" |
                awk '$1 == "euchre_cluster_shards_owned" { print $2 }') "
        done
        if echo "$owned" | awk -v s="$shards" -v f="$fair" \
            '{ t = 0; for (i = 1; i <= NF; i++) { t += $i; if ($i > f) exit 1 } exit t != s }' &&
            [ "$owned" = "$last" ]; then
            echo "$owned"
            return
        fi
        last=$owned
        sleep "$pause"
    done
    echo "the shards never settled: $owned" >&2
    exit 1
}

# Plots ack p50 and p99 and to-others p99 against actions a second, from
# DAT (lines "actions/s ack_p50 ack_p99 to_others_p99", one per paced run),
# into PNG, with the knee's bound (ack p99 under 10 ms) drawn across.
plot_paced() {
    local dat=$1 png=$2 title=$3
    if ! command -v gnuplot >/dev/null; then
        echo "no plot: gnuplot is not installed (apt-get install gnuplot-nox); the figures are in $dat" >&2
        return 0
    fi
    gnuplot <<PLOT
set terminal pngcairo size 900,540 font ",11"
set output "$png"
set title "$title"
set xlabel "actions acknowledged per second (about one a second per table)"
set ylabel "milliseconds"
set logscale y
set grid
set key top left box opaque
set yrange [0.1:1000]
plot "$dat" using 1:2 with linespoints title "ack p50", \
     "$dat" using 1:3 with linespoints title "ack p99", \
     "$dat" using 1:4 with linespoints title "to other seats p99", \
     10 with lines dashtype 2 title "the knee's bound: ack p99 10 ms"
PLOT
}
