#!/usr/bin/env bash
# The web client's browser tests: installs what they need (the npm packages,
# and Debian's Chromium when /usr/bin/chromium is missing), builds the server
# binary, and runs every *.test.mjs here with node's test runner. Each test
# file starts the real server on a free port with a fresh data folder.
#
#   tests/browser/run.sh            (from anywhere; CI can call it as is)
#
# CHROMIUM_PATH and EUCHRE_SERVER_BIN override the browser and the binary;
# BROWSER_TEST_CONCURRENCY (default 1) runs that many test files at once
# (each has its own server and browser; CI runs two).
set -euo pipefail
cd "$(dirname "$0")"

chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "== installing Chromium (Debian's package)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi

echo "== npm packages"
npm ci --no-audit --no-fund --loglevel=error

if [ -z "${EUCHRE_SERVER_BIN:-}" ]; then
  echo "== building the server"
  (cd ../.. && cargo build -p euchre-server)
fi

echo "== browser tests"
node --test --test-concurrency="${BROWSER_TEST_CONCURRENCY:-1}" ./*.test.mjs
