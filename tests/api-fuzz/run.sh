#!/usr/bin/env bash
# The HTTP API fuzzed from its own description: schemathesis (pinned below)
# reads docs/openapi.json, sends each operation generated requests, valid
# and not, and checks every answer: never a 5xx, and always a status, a
# content type and a body the document declares for that operation. It
# runs against the real server binary on a free port with a fresh data
# folder, with a fixed seed (SEED) so a finding replays.
#
#   tests/api-fuzz/run.sh          (from anywhere; CI runs it after the browser tests)
#
# EUCHRE_SERVER_BIN names the binary (default: debug/euchre-server under
# CARGO_TARGET_DIR or target/, built if missing); EXAMPLES (default 40) is the test cases per operation
# and phase; FUZZ_VENV where schemathesis is installed (default: a venv
# per version in the user's cache, ~/.cache/euchre, made when missing, so
# a fresh clone on the same machine does not download it again). Needs python3 with venv, and ../shared beside the
# repository (an EGN fixture to import).
set -euo pipefail
cd "$(dirname "$0")/../.."

schemathesis_version=4.32.5
examples=${EXAMPLES:-40}
seed_number=${SEED:-20261128}
venv=$(realpath -m "${FUZZ_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/euchre/schemathesis-$schemathesis_version}")
bin=$(realpath -m "${EUCHRE_SERVER_BIN:-${CARGO_TARGET_DIR:-target}/debug/euchre-server}")

if [ ! -x "$venv/bin/st" ] || [ "$("$venv/bin/st" --version)" != "st, version $schemathesis_version" ]; then
  echo "== installing schemathesis $schemathesis_version"
  if ! python3 -m venv "$venv"; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv "$venv"
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check "schemathesis==$schemathesis_version"
fi
if [ ! -x "$bin" ]; then
  echo "== building the server"
  cargo build -p euchre-server
fi

data=$(mktemp -d)
server_pid=""
stop() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$data"
}
trap stop EXIT

# A server of the run's own. The fuzzer sends requests as fast as it can from
# one address: the per-address limits are lifted (the login limits stay, and
# their 429 is documented); a name unknown to this version is ignored.
EUCHRE_API__REQUESTS_PER_SECOND=0 \
  EUCHRE_API__IMPORTS_PER_HOUR_PER_ACCOUNT=0 \
  EUCHRE_API__IMPORTS_PER_HOUR_PER_ADDRESS=0 \
  EUCHRE_LIMITS__ABUSE_PENALTY_MS=0 \
  RUST_LOG=info \
  "$bin" --bind 127.0.0.1:0 --log-format json --data-dir "$data" \
  --database-url "sqlite://$data/euchre.db" >"$data/server.log" 2>&1 &
server_pid=$!
address=""
for _ in $(seq 200); do
  address=$(sed -n 's/.*"address":"\([^"]*\)".*/\1/p' "$data/server.log" | head -n1)
  [ -n "$address" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$data/server.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$address" ] || { echo "the server did not log its address" >&2 && exit 1; }

# Something to find: an account's session token (sent with every request,
# so the account routes and the import get past 401) and player id, and a
# match it imported; the path ids are those half the time.
seed=$(python3 tests/api-fuzz/seed.py "$address" ../shared/fixtures/egn/MotE_W5_G1.egn)
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$seed" "$1"; }
# The account is an admin's, so that the moderation routes get past 403
# too (acting on itself they answer 403 protected; on anyone else, as asked).
"$bin" --data-dir "$data" --database-url "sqlite://$data/euchre.db" admin grant Fuzz admin >/dev/null
cat >"$data/schemathesis.toml" <<TOML
headers = { Authorization = "Bearer $(field token)" }

[dictionaries.matches]
values = ["$(field match)"]

[dictionaries.players]
values = ["$(field player)"]

[[operations]]
include-path-regex = '^/api/matches/\{id\}'
parameters = { "path.id" = { dictionary = "matches", probability = 0.5 } }

[[operations]]
include-path = "/api/players/{id}"
parameters = { "path.id" = { dictionary = "players", probability = 0.5 } }

[[operations]]
include-path-regex = '^/api/admin/players/\{who\}'
parameters = { "path.who" = { dictionary = "players", probability = 0.5 } }
TOML

echo "== schemathesis $schemathesis_version on http://$address ($examples examples an operation, seed $seed_number)"
# From the data folder: schemathesis keeps its cache in the working directory.
# One worker: with two, Python 3.11's parser (hypothesis describing its
# strategies from threads) failed now and then with a SystemError.
root=$PWD
cd "$data"
"$venv/bin/st" --no-color --config-file "$data/schemathesis.toml" run "$root/docs/openapi.json" \
  --url "http://$address" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --max-examples "$examples" --seed "$seed_number" --workers 1 \
  --phases examples,coverage,fuzzing --generation-database none \
  --report junit --report-dir "$data/report" || {
  status=$?
  echo "== the server's log, its last lines" >&2
  tail -n 40 "$data/server.log" >&2
  exit "$status"
}
