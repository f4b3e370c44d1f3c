#!/usr/bin/env bash
# Self-hosting rehearsed as a user would do it, with Podman: docker/Dockerfile
# built unchanged, then docker/compose.yaml and docker/compose.cluster.yaml
# brought up unchanged by docker-compose (Debian's, version 1) talking to
# Podman's Docker-compatible socket, on local stand-ins for the base images
# (docker/stand-ins.sh: this machine has no image registry). Every check
# prints what it saw; the script exits non-zero on the first failure and
# removes its containers, volumes, networks and Podman service on exit
# (the images stay: the next run reuses their layers).
#
#   docker/rehearse.sh
#
# The single server (docker/compose.yaml, with PostgreSQL): the image
# built (time, size, each layer, no secret in its history, its user); up;
# healthy; the page and /ws through the published port; games played to
# their end by the load generator and found in the history; a restart
# (`restart euchre`) mid-game, which the clients ride out and play on,
# with every action they saw acknowledged in the history; down then up keeps the history; the backup and restore
# commands of docs/self-hosting.md, as written; an upgrade from a previous
# image (the same tree with a marker label) as the guide says.
# The cluster (docker/compose.cluster.yaml): three nodes, NATS, PostgreSQL
# and HAProxy up; games through HAProxy with the four players of each table
# spread over the nodes; one node's container killed (SIGKILL) mid-game,
# which the clients ride out through HAProxy with every action they saw
# acknowledged in the history; games again through HAProxy on the two left; the killed node started
# again serves again.
#
# Needs: the loadgen binary (BIN, default target/debug; cargo build -p
# euchre-loadgen), python3, curl. PORT (default 18480) is the published port.
# SKIP_BUILD=1 rehearses the image already tagged localhost/euchre-server:latest.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=$(cd "${BIN:-target/debug}" && pwd)
port=${PORT:-18480}
work=$(mktemp -d)
export EUCHRE_PORT=$port POSTGRES_PASSWORD=rehearsal-pg-password NATS_PASSWORD=rehearsal-nats-password
export DOCKER_HOST=unix://$work/podman.sock
export COMPOSE_PROJECT_NAME=euchre-rehearsal
# The load generator's errors in a line, not a backtrace.
export RUST_BACKTRACE=0
url=http://127.0.0.1:$port
start=$SECONDS
image=localhost/euchre-server:latest

say() { echo "== rehearse ($((SECONDS - start)) s): $*"; }
fail() { echo "rehearse: FAILED: $*" >&2; exit 1; }
compose() { docker-compose --ansi never -f "docker/$compose_file" "$@"; }
# Podman without systemd says at each start that it cannot set a health
# check's timer (the loop below runs the checks): noise, left out.
podman() { command podman "$@" 2> >(grep -v 'systemd connection' >&2); }

service_pid="" health_pid=""
cleanup() {
  set +e
  COMPOSE_PROJECT_NAME=euchre-rehearsal docker-compose -f docker/compose.yaml down -v --timeout 5 >/dev/null 2>&1
  [ ! -f "$work/docker/compose.cluster.yaml" ] || COMPOSE_PROJECT_NAME=euchre-rehearsal-cluster \
    docker-compose -f "$work/docker/compose.cluster.yaml" down -v --timeout 5 >/dev/null 2>&1
  [ -z "$health_pid" ] || kill "$health_pid" 2>/dev/null
  [ -z "$service_pid" ] || kill "$service_pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

[ -x "$bin/euchre-loadgen" ] || fail "no $bin/euchre-loadgen (cargo build -p euchre-loadgen)"
docker/stand-ins.sh

# docker-compose speaks to Podman's Docker API on a socket of this run's own.
command podman system service --time=0 "$DOCKER_HOST" >"$work/service.log" 2>&1 &
service_pid=$!
for _ in $(seq 50); do [ -S "$work/podman.sock" ] && break; sleep 0.2; done
# Podman runs HEALTHCHECKs from systemd timers, which a machine without
# systemd lacks: this loop is the timer (every 3 s), so that the health
# compose waits for (depends_on: service_healthy) and reports is real.
(
  while true; do
    for c in $(command podman ps -q --filter health=starting --filter health=healthy --filter health=unhealthy 2>/dev/null | sort -u); do
      timeout 10 podman healthcheck run "$c" >/dev/null 2>&1 || true
    done
    sleep 3
  done
) &
health_pid=$!

# ---------------------------------------------------------------- the image
if [ -n "${SKIP_BUILD:-}" ]; then
  say "SKIP_BUILD: rehearsing the image already tagged $image, not building it"
else
  say "building docker/Dockerfile unchanged (podman build --format docker)"
  built_at=$SECONDS
  podman build -q --format docker -f docker/Dockerfile -t "$image" . >/dev/null
fi
say "built in $((SECONDS - ${built_at:-SECONDS})) s: $(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}')"
podman history --format '{{.Size}}\t{{.CreatedBy}}' "$image" | cut -c1-110 | sed 's/^/     /'
if podman history --no-trunc --format '{{.CreatedBy}}' "$image" | grep -iE 'password|secret|token' \
  || podman image inspect --format '{{json .Config.Env}}' "$image" | grep -iE 'password|secret'; then
  fail "a secret in the image's history or environment (above)"
fi
say "no password, secret or token in the image's layers or environment"
[ "$(podman image inspect --format '{{.Config.User}}' "$image")" = euchre ] || fail "the image does not run as euchre"
say "runs as user euchre; HEALTHCHECK $(podman image inspect --format '{{json .Config.Healthcheck.Test}}' "$image")"

# Waits until SERVICE's container is healthy (the compose file's or the image's check).
wait_healthy() { # SERVICE [SECONDS]
  local id status=""
  for _ in $(seq "${2:-120}"); do
    id=$(compose ps -q "$1" 2>/dev/null || true)
    status=$(command podman inspect --format '{{.State.Health.Status}}' "$id" 2>/dev/null || true)
    [ "$status" = healthy ] && return 0
    sleep 1
  done
  fail "$1 not healthy (last: ${status:-no container})"
}

# Plays TABLES tables of four clients through the port for SECONDS; every
# hand stored, no error, at least GAMES games won.
play() { # NAME TABLES SECONDS GAMES
  local name=$1 tables=$2 seconds=$3 games=$4
  "$bin/euchre-loadgen" "ws://127.0.0.1:$port/ws" --http "$url" --tables "$tables" --players 4 \
    --think-ms 20 --duration "$seconds" --json "$work/$name.json" >"$work/$name.log" 2>&1 \
    || { cat "$work/$name.log" >&2; fail "the load generator ($name)"; }
  python3 - "$work/$name.json" "$games" <<'PY' || fail "play ($name)"
import json, sys
run = json.load(open(sys.argv[1]))
games = int(sys.argv[2])
problems = []
if run["errors"]:
    problems.append(f"errors: {run['errors']}")
if run["games_won"] < games:
    problems.append(f"{run['games_won']} games played to their end, fewer than {games}")
if run["hands_stored"] < run["hands_ended"]:
    problems.append(f"{run['hands_ended'] - run['hands_stored']} hands not stored")
if problems:
    sys.exit("; ".join(problems))
print(f"   {run['actions']} actions, {run['hands_ended']} hands ({run['hands_stored']} stored), "
      f"{run['games_won']} games won")
PY
}

# Checks a load generator's report of a run that lost its connections on
# purpose (--reconnect-for): every client came back, and every action
# acknowledged is in the history: no table came back older than an action
# it acknowledged, and no table holds fewer actions than were acknowledged.
survived() { # NAME
  python3 - "$work/$1.json" <<'PY' || { cat "$work/$1.log" >&2; fail "$1: an acknowledged action lost"; }
import json, sys
run = json.load(open(sys.argv[1]))
problems = []
if run["reconnects"] == 0:
    problems.append("no client lost its connection: nothing was tested")
if run["lost_acknowledged"]:
    problems.append(f"{run['lost_acknowledged']} tables came back older than an acknowledged action")
if run["acknowledged_not_stored"]:
    problems.append(f"{run['acknowledged_not_stored']} acknowledged actions missing from the history")
if problems:
    sys.exit("; ".join(problems))
print(f"   {run['actions']} actions acknowledged, every one in the history; "
      f"{run['reconnects']} reconnections; {run['hands_ended']} hands, {run['games_won']} games won")
PY
}

# The finished matches in the history API, or with `all` every match.
finished_matches() {
  curl -fsS "$url/api/matches?limit=100" | python3 -c '
import json, sys
matches = json.load(sys.stdin)["matches"]
print(len(matches) if sys.argv[1:] == ["all"] else sum(1 for m in matches if m["finished"]))' "$@"
}

# ------------------------------------------------------------- compose.yaml
compose_file=compose.yaml
say "compose.yaml: up (PostgreSQL, then the server once PostgreSQL is healthy)"
up_at=$SECONDS
compose up -d --no-build >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "compose up"; }
wait_healthy euchre
say "the server healthy $((SECONDS - up_at)) s after up"
curl -fsS "$url/readyz" | grep -q '"database":"up"' || fail "/readyz: $(curl -s "$url/readyz")"
curl -fsS "$url/" | grep -q '<title>' || fail "no web client at /"
ws=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 -H 'Connection: Upgrade' -H 'Upgrade: websocket' \
  -H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' "$url/ws" || true)
[ "$ws" = 101 ] || fail "/ws answered $ws"
say "/readyz (database up), / and /ws (101) through 127.0.0.1:$port"

say "games through the port (2 tables of 4 clients, 8 s)"
play first 2 8 1
finished=$(finished_matches)
[ "$finished" -gt 0 ] || fail "no finished match in the history"
say "the history shows $finished finished matches"

# A restart mid-game: the clients come back (--reconnect-for) and play on;
# every action acknowledged before, during and after it is in the history.
say "compose restart euchre mid-game (2 tables of 4 clients, which come back and play on)"
"$bin/euchre-loadgen" "ws://127.0.0.1:$port/ws" --tables 2 --players 4 --think-ms 100 \
  --duration 40 --reconnect-for 60 --json "$work/restart.json" >"$work/restart.log" 2>&1 &
load=$!
sleep 8
restarted_at=$SECONDS
compose restart euchre >/dev/null 2>&1
wait_healthy euchre
say "healthy again $((SECONDS - restarted_at)) s after the restart began"
wait "$load" || { cat "$work/restart.log" >&2; fail "the load generator across the restart"; }
survived restart
say "across the restart no acknowledged action was lost"

say "compose down, then up: the volumes keep the history"
compose down --timeout 10 >/dev/null 2>&1
compose up -d --no-build >/dev/null 2>&1
wait_healthy euchre
again=$(finished_matches)
[ "$again" -ge "$finished" ] || fail "$finished finished matches before down, $again after up"
say "$again finished matches after down and up"

# docs/self-hosting.md, "Back up and restore", as written (docker compose
# is docker-compose here).
say "backup and restore as docs/self-hosting.md writes them"
(
  cd "$work"
  docker-compose -f "$OLDPWD/docker/compose.yaml" exec -T postgres \
    pg_dump -U euchre -Fc euchre > euchre-$(date +%F).dump
)
dump=$(ls "$work"/euchre-*.dump)
[ "$(head -c 5 "$dump")" = PGDMP ] || fail "the backup is not a pg_dump archive"
say "backup: $(basename "$dump"), $(stat -c %s "$dump") bytes"
backed_up=$(finished_matches all)
play after-backup 1 4 0
[ "$(finished_matches all)" -gt "$backed_up" ] || fail "no new match after the backup"
docker-compose -f docker/compose.yaml stop euchre >/dev/null 2>&1
docker-compose -f docker/compose.yaml exec -T postgres \
  pg_restore -U euchre -d euchre --clean --if-exists < "$dump"
docker-compose -f docker/compose.yaml start euchre >/dev/null 2>&1
wait_healthy euchre
restored=$(finished_matches all) restored_finished=$(finished_matches)
[ "$restored" = "$backed_up" ] && [ "$restored_finished" = "$again" ] \
  || fail "after the restore $restored matches ($restored_finished finished); the backup had $backed_up ($again)"
say "restored: $restored matches, $restored_finished finished, as in the backup (the match begun after it is gone)"

# An upgrade as the guide says (up -d, here without --build: the new image
# is already built), from a previous image: the same tree with a marker.
say "upgrade: from a previous image to this one"
mkdir -p "$work/previous"
printf 'FROM %s\nLABEL euchre.rehearsal=previous\n' "$image" >"$work/previous/Dockerfile"
podman build -q --format docker -t localhost/euchre-server:previous "$work/previous" >/dev/null
podman tag "$image" localhost/euchre-server:new
podman tag localhost/euchre-server:previous "$image"
compose up -d --no-build >/dev/null 2>&1
wait_healthy euchre
old_id=$(command podman inspect --format '{{.Image}}' "$(compose ps -q euchre)")
play before-upgrade 1 4 0
before_upgrade=$(finished_matches all)
podman tag localhost/euchre-server:new "$image"
compose up -d --no-build >/dev/null 2>&1
wait_healthy euchre
new_id=$(command podman inspect --format '{{.Image}}' "$(compose ps -q euchre)")
[ "$old_id" != "$new_id" ] || fail "up -d kept the container of the previous image"
after_upgrade=$(finished_matches all)
[ "$after_upgrade" = "$before_upgrade" ] || fail "$before_upgrade matches before the upgrade, $after_upgrade after"
podman rmi localhost/euchre-server:previous localhost/euchre-server:new >/dev/null 2>&1 || true
say "upgraded (the container recreated on the new image): all $after_upgrade matches kept"
compose down -v --timeout 10 >/dev/null 2>&1

# --------------------------------------------------------- the cluster compose
# The one change to the cluster's files: HAProxy's open-file limit. The
# compose file raises the container's to 131,072 for haproxy.cfg's maxconn
# of 60,000; a root without CAP_SYS_RESOURCE (this machine) may not raise a
# container's limits at all (runc fails to start it), so the copy here keeps
# the machine's limit and lowers maxconn to fit it, as
# docker/rehearse-cluster.sh does.
mkdir -p "$work/docker"
cp docker/nats.conf "$work/docker/"
sed '/^    ulimits:/,/^      nofile:/d' docker/compose.cluster.yaml >"$work/docker/compose.cluster.yaml"
sed "s/^    maxconn .*/    maxconn $((($(ulimit -Hn) - 100) / 2))/" docker/haproxy.cfg >"$work/docker/haproxy.cfg"
diff docker/compose.cluster.yaml "$work/docker/compose.cluster.yaml" | sed 's/^/     /' || true
diff docker/haproxy.cfg "$work/docker/haproxy.cfg" | sed 's/^/     /' || true
compose() { docker-compose --ansi never -f "$work/docker/compose.cluster.yaml" "$@"; }
compose_file=compose.cluster.yaml
export COMPOSE_PROJECT_NAME=euchre-rehearsal-cluster
say "compose.cluster.yaml: up (PostgreSQL, NATS, three nodes, HAProxy)"
up_at=$SECONDS
compose up -d --no-build >"$work/up-cluster.log" 2>&1 || { cat "$work/up-cluster.log" >&2; fail "compose up (cluster)"; }
for n in 1 2 3; do wait_healthy "euchre$n" 180; done
for _ in $(seq 60); do curl -fsS "$url/healthz" >/dev/null 2>&1 && break; sleep 1; done
curl -fsS "$url/" | grep -q '<title>' || fail "no web client through HAProxy"
say "three nodes healthy, the page through HAProxy, $((SECONDS - up_at)) s after up"
say "games through HAProxy (4 tables of 4 clients, 10 s)"
play cluster-three 4 10 1

say "kill -9 of euchre2's container mid-game (4 tables of 4 clients through HAProxy, which come back and play on)"
"$bin/euchre-loadgen" "ws://127.0.0.1:$port/ws" --http "$url" --tables 4 --players 4 --think-ms 200 \
  --duration 45 --reconnect-for 60 --json "$work/kill.json" >"$work/kill.log" 2>&1 &
load=$!
sleep 8
killed_at=$SECONDS
command podman kill -s KILL "$(compose ps -q euchre2)" >/dev/null
# HAProxy's own log says when it saw the node go and come back.
# Its words vary: "is DOWN", or "is going DOWN for maintenance" once the
# engine's DNS forgets the stopped container; "is UP", or "is UP/READY
# (resolves again)" after that. UP counts only after the last DOWN.
haproxy_saw() { # DOWN|UP
  local id
  id=$(compose ps -q haproxy)
  for _ in $(seq 120); do
    command podman logs "$id" 2>&1 | grep 'nodes/euchre2' | tac | sed '/DOWN/q' | tac \
      | grep -qE "nodes/euchre2.* is (going )?$1" && return 0
    sleep 0.5
  done
  command podman logs "$id" 2>&1 | grep 'nodes/euchre2' | tail -n 5 | sed 's/^/     /' >&2
  fail "HAProxy never marked euchre2 $1"
}
haproxy_saw DOWN
say "HAProxy marked euchre2 DOWN $((SECONDS - killed_at)) s after the kill"
wait "$load" || { cat "$work/kill.log" >&2; fail "the load generator across the kill"; }
survived kill
say "across the kill no acknowledged action was lost"
played=""
for _ in $(seq 20); do
  if (play after-kill 4 6 0) 2>"$work/after-kill.err"; then played=yes; break; fi
  # Until the two left have taken euchre2's shards over, a table may fail.
  echo "     not yet: $(grep -m1 -A3 '^Error' "$work/after-kill.err" | tr -s ' \n' ' ' | cut -c1-150)"
  sleep 2
done
[ -n "$played" ] || fail "no games through HAProxy after the kill"
say "games through HAProxy on the two nodes left, $((SECONDS - killed_at)) s after the kill"
compose start euchre2 >/dev/null 2>&1
started_at=$SECONDS
wait_healthy euchre2 120
haproxy_saw UP
say "euchre2 started again: healthy, and back in HAProxy $((SECONDS - started_at)) s after its start"
play rejoined 4 8 0
say "games through HAProxy with euchre2 back"
compose down -v --timeout 10 >/dev/null 2>&1
say "passed"
