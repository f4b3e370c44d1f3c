#!/bin/bash
# The stand-in postgres:16's entrypoint (docker/stand-ins.sh): what the
# official image's does for the variables the compose files pass. On an
# empty PGDATA: a cluster whose superuser is POSTGRES_USER with
# POSTGRES_PASSWORD (scram-sha-256 over the network, trust on the local
# socket inside the container), and the database POSTGRES_DB.
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
export PATH="$bin:$PATH"
PGDATA="${PGDATA:-/var/lib/postgresql/data}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

[ "${1:-postgres}" = postgres ] || exec "$@"
shift || true

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
else
  as_postgres() { "$@"; }
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?the stand-in postgres needs POSTGRES_PASSWORD}"
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  chown postgres "$pwfile"
  as_postgres initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$db" != postgres ]; then
    as_postgres psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -q \
      -c "CREATE DATABASE \"$db\""
  fi
  as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "stand-in postgres: initialised $PGDATA (user $user, database $db)"
fi

drop=(); [ "$(id -u)" != 0 ] || drop=(setpriv --reuid=postgres --regid=postgres --init-groups)
exec "${drop[@]}" postgres -D "$PGDATA" -c listen_addresses='*' "$@"
