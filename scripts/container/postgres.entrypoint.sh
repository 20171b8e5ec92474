#!/bin/sh
# First start: initialise $PGDATA with POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB, as the official image does,
# listening on the container's network with passwords required from it (that image's defaults too).
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "$POSTGRES_PASSWORD" > /tmp/pwfile
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/pwfile --auth-host=scram-sha-256 --auth-local=trust >/dev/null
  rm -f /tmp/pwfile
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  createdb -U "$POSTGRES_USER" "$POSTGRES_DB"
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" "$@"
