# Shared by bench.sh, abuse.sh and cluster-bench.sh (sourced, not run).

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

# The limits a load test from one address needs (the defaults allow 32
# connections and 30 new guests a minute an address, 20 messages a second a
# connection): `env "${load_test_limits[@]}" SERVER ...`.
load_test_limits=(
    EUCHRE_LIMITS__CONNECTIONS_PER_ADDRESS=100000
    EUCHRE_LIMITS__GUESTS_PER_MINUTE=0
    EUCHRE_LIMITS__MESSAGES_PER_SECOND=100000
    EUCHRE_LIMITS__MESSAGE_BURST=100000
    EUCHRE_LIMITS__TABLES_PER_PLAYER=100000
    EUCHRE_LIMITS__MAX_TABLES=100000
)
