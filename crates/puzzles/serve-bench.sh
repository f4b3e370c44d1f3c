#!/usr/bin/env bash
# What serving a puzzle costs: the latency of GET /api/puzzles/next (a
# guest's: a puzzle at random, two reads) and /api/puzzles/daily under an
# open load of a fixed rate (1,000 requests a second by default), with
# SQLite or PostgreSQL, beside GET /healthz (no read at all) at the same
# rate in the same run, as the baseline. The release server first plays
# games with the load generator's clients, analyses them at their end (few
# worlds) and mines their puzzles; the load starts once every analysis is in.
#
#   cargo build --release -p euchre-server -p euchre-loadgen
#   crates/puzzles/serve-bench.sh sqlite|postgres DATA_DIR [RATE] [SECONDS]
#
# The load comes from oha (an HTTP load generator: `cargo install oha`,
# installed here where missing), with latency correction (a request's time
# counts from when the fixed rate says it should have left).
set -euo pipefail
cd "$(dirname "$0")/../.."

backend=${1:?sqlite or postgres}
data=${2:?a data folder}
rate=${3:-1000}
seconds=${4:-20}
port=${PORT:-18090}
bin=${BIN:-target/release}

. crates/loadgen/lib.sh
fresh_data_dir "$data"
case $backend in
sqlite) database="sqlite://$data/euchre.db" ;;
postgres)
    database=${PG_URL:-postgres://postgres@127.0.0.1:5432/euchre_puzzle_bench}
    fresh_database "$database"
    ;;
*) echo "backend: sqlite or postgres" >&2 && exit 2 ;;
esac
command -v oha >/dev/null || cargo install --locked --quiet oha

RUST_LOG=${RUST_LOG:-warn} EUCHRE_TIMING__BOT_DELAY_MS=0 \
    EUCHRE_ANALYSIS__AT_MATCH_END=true EUCHRE_ANALYSIS__WORLDS=16 \
    env "${load_test_limits[@]}" "$bin/euchre-server" --bind "127.0.0.1:$port" \
    --data-dir "$data" --database-url "$database" >"$data/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT
wait_until_ready "$port"
base="http://127.0.0.1:$port"

echo "# $backend: games played for puzzles"
"$bin/euchre-loadgen" "ws://127.0.0.1:$port/ws" --tables "${TABLES:-1}" --duration "${PLAY:-6}" \
    >"$data/play.txt"
grep -E '^(hands ended|errors)' "$data/play.txt"
# Every finished match analysed (its puzzles are mined as the analysis is stored).
for _ in $(seq 600); do
    # (A busy answer is asked again next time round.)
    ids=$(curl -sf "$base/api/matches?limit=100&finished=true" | jq -r '.matches[].id' || true)
    waiting=0
    for id in $ids; do
        status=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/matches/$id/analysis")
        [ "$status" = 200 ] || waiting=$((waiting + 1))
    done
    [ "$waiting" = 0 ] && break
    sleep 1
done
sleep 2
echo "# $(echo "$ids" | wc -w) matches analysed; $(uptime | sed 's/.*load/load/')"

measure() {
    local path=$1
    shift
    local who=guest
    [ $# -gt 0 ] && who=account
    oha --no-tui --latency-correction -q "$rate" -z "${seconds}s" --output-format json "$@" \
        "$base$path" >"$data/oha.json"
    jq -r --arg path "$path ($who)" '"\($path): \(.summary.requestsPerSec | floor)/s, " +
        "p50 \(.latencyPercentiles.p50 * 1000 | . * 100 | round / 100) ms, " +
        "p99 \(.latencyPercentiles.p99 * 1000 | . * 100 | round / 100) ms, " +
        "max \(.summary.slowest * 1000 | . * 100 | round / 100) ms, " +
        "statuses \(.statusCodeDistribution | tostring)"' "$data/oha.json"
}
# An account that has answered some puzzles already: its next puzzle is the
# nearest its rating it has not answered (walks along the rating index).
# A guest's token comes from a WebSocket hello (Node's WebSocket), then the
# guest claims a name.
guest=$(node --experimental-websocket -e '
const ws = new WebSocket(process.argv[1]);
ws.onopen = () => ws.send(JSON.stringify({ type: "hello", id: 1, protocol_version: 1, name: "Bench" }));
ws.onmessage = (m) => { const msg = JSON.parse(m.data); if (msg.type === "welcome") { console.log(msg.token); process.exit(0); } };
' "ws://127.0.0.1:$port/ws" 2>/dev/null)
claimed=$(curl -sf -X POST "$base/api/accounts" -H "Authorization: Bearer $guest" \
    -H 'Content-Type: application/json' -d '{"name":"PuzzleBench","password":"correct horse"}')
session=$(jq -r .token <<<"$claimed")
auth=(-H "Authorization: Bearer $session")
for _ in $(seq "${ANSWERED:-50}"); do
    next=$(curl -sf "${auth[@]}" "$base/api/puzzles/next") || break
    curl -sf -o /dev/null "${auth[@]}" -H 'Content-Type: application/json' \
        -d "{\"action\": $(jq -c '.options[0]' <<<"$next")}" \
        "$base/api/puzzles/$(jq -r .id <<<"$next")/answer" || break
done
answered=$(curl -sf "$base/api/players/$(jq -r .player.id <<<"$claimed")/puzzles" |
    jq -r '.rating.attempts' || true)
count='SELECT COUNT(*) FROM puzzles'
case $backend in
sqlite) stored=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$data/euchre.db" "$count") ;;
postgres) stored=$(psql "$database" -tAc "$count") ;;
esac
echo "# $stored puzzles stored; an account that answered ${answered:-?} of them"

echo "# $rate requests a second for $seconds s each"
measure /healthz
measure /api/puzzles/next
measure /api/puzzles/daily
measure /api/puzzles/next "${auth[@]}"
