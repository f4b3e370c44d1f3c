#!/usr/bin/env bash
# The image's runtime stage checked on binaries already built (CI's own):
# docker/Dockerfile's `prebuilt` target (the runtime stage's base, with the
# given binaries instead of the release build) built with Podman, the
# container started with its port published, its HEALTHCHECK healthy, the
# web client and /ws answering through the port, whole games played through
# it by the load generator and found finished in /api/matches, and a
# graceful stop on SIGTERM within compose's stop timeout.
#
#   docker/image-check.sh BIN_DIR
#
# BIN_DIR holds euchre-server, euchre-verify and euchre-loadgen (any
# profile: their debug info is stripped from the image's copies). Needs the
# stand-in debian base image (docker/stand-ins.sh debian, which this runs:
# it keeps an image already there) and Podman. PORT (default 18380) is the
# published port, on 127.0.0.1. The image is left tagged euchre-server:check
# (its apt layer is the next run's cache); the container is removed.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=$(cd "${1:?usage: docker/image-check.sh BIN_DIR}" && pwd)
port=${PORT:-18380}
name=euchre-image-check-$$
image=localhost/euchre-server:check
start=$SECONDS
for binary in euchre-server euchre-verify euchre-loadgen; do
  [ -x "$bin/$binary" ] || { echo "image-check: no $bin/$binary" >&2; exit 1; }
done
elapsed() { echo "$((SECONDS - start)) s"; }
# Podman without systemd says, at each start and stop, that it cannot set
# the health check's timer (run by hand below): noise, left out.
podman() { command podman "$@" 2> >(grep -v 'systemd connection' >&2); }
fail() { echo "image-check: FAILED: $*" >&2; podman logs --tail 8 "$name" >&2 2>&1 || true; exit 1; }

context=$(mktemp -d)
cleanup() {
  podman rm -f -v -t 0 "$name" >/dev/null 2>&1 || true
  rm -rf "$context"
}
trap cleanup EXIT

docker/stand-ins.sh debian

# The build context the prebuilt target reads: the Dockerfile, the config
# it copies, and the binaries without their debug info.
mkdir -p "$context/docker" "$context/config" "$context/prebuilt"
cp docker/Dockerfile "$context/docker/"
cp config/default.toml "$context/config/"
for binary in euchre-server euchre-verify; do
  strip --strip-debug -o "$context/prebuilt/$binary" "$bin/$binary"
done
echo "== image-check: building the runtime stage on $bin's binaries"
podman build -q --format docker --target prebuilt -f "$context/docker/Dockerfile" \
  -t "$image" "$context" >/dev/null
echo "== image-check: built ($(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}'), $(elapsed))"

# The load generator's tables act flat out from one address: the limits a
# public server keeps would slow it down (crates/loadgen/lib.sh).
podman run -d --name "$name" -p "127.0.0.1:$port:8080" \
  -e EUCHRE_LIMITS__CONNECTIONS_PER_ADDRESS=1000 -e EUCHRE_LIMITS__GUESTS_PER_MINUTE=0 \
  -e EUCHRE_LIMITS__MESSAGES_PER_SECOND=100000 -e EUCHRE_LIMITS__MESSAGE_BURST=100000 \
  -e EUCHRE_API__REQUESTS_PER_SECOND=0 \
  "$image" >/dev/null

# The image's HEALTHCHECK, run as the engine's timer would (Podman runs it
# from systemd timers, which a machine without systemd lacks).
[ "$(podman inspect --format '{{json .Config.Healthcheck.Test}}' "$name")" != null ] \
  || fail "the image has no HEALTHCHECK (built without --format docker?)"
healthy=""
deadline=$((SECONDS + 60))
while [ "$SECONDS" -lt "$deadline" ]; do
  if timeout 10 podman healthcheck run "$name" >/dev/null 2>&1; then healthy=yes; break; fi
  [ "$(podman inspect --format '{{.State.Running}}' "$name")" = true ] || fail "the container stopped"
  sleep 1
done
[ -n "$healthy" ] || fail "not healthy within 60 s"
echo "== image-check: healthy ($(podman inspect --format '{{.State.Health.Status}}' "$name"), $(elapsed))"

user=$(podman exec "$name" id -u)
[ "$user" = 10001 ] || fail "runs as uid $user, not 10001"
echo "== image-check: runs as uid $user"

url=http://127.0.0.1:$port
curl -fsS "$url/" | grep -q '<title>' || fail "no web client at $url/"
ws=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 \
  -H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' \
  -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' "$url/ws" || true)
[ "$ws" = 101 ] || fail "/ws answered $ws, not 101 Switching Protocols"
echo "== image-check: / serves the web client, /ws upgrades (101), through 127.0.0.1:$port"

report=$context/loadgen.json
"$bin/euchre-loadgen" "ws://127.0.0.1:$port/ws" --tables 2 --players 4 --duration 8 \
  --json "$report" >/dev/null
python3 - "$report" "$url" <<'PY' || fail "the games through the port (above)"
import json, sys, urllib.request
run = json.load(open(sys.argv[1]))
problems = []
if run["errors"]:
    problems.append(f"errors: {run['errors']}")
if run["games_won"] == 0:
    problems.append("no game played to its end")
if run["hands_stored"] < run["hands_ended"]:
    problems.append(f"{run['hands_ended'] - run['hands_stored']} hands not stored")
page = json.load(urllib.request.urlopen(sys.argv[2] + "/api/matches?limit=100"))
finished = [m for m in page["matches"] if m["finished"] and m["winner"] is not None]
if not finished:
    problems.append("no finished match in /api/matches")
if problems:
    sys.exit("; ".join(problems))
print(f"== image-check: {run['hands_ended']} hands played through the port, "
      f"{run['hands_stored']} stored, {len(finished)} finished matches in /api/matches")
PY

stop_start=$SECONDS
podman stop -t 10 "$name" >/dev/null
stopped_in=$((SECONDS - stop_start))
code=$(podman inspect --format '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || fail "exit code $code after SIGTERM (not a graceful stop)"
[ "$stopped_in" -lt 10 ] || fail "took $stopped_in s to stop (compose kills at 10 s)"
podman logs "$name" 2>&1 | tail -n 1 | python3 -c 'import json, sys; json.loads(sys.stdin.read())' \
  || fail "the log is not JSON lines"
echo "== image-check: stopped gracefully on SIGTERM in $stopped_in s (exit 0, JSON logs)"
echo "== image-check: passed in $(elapsed)"
