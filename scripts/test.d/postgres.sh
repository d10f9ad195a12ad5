#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers on 127.0.0.1:5432 for the store
# tests. A machine that already runs one (trust auth, database "test") is
# used as it is; otherwise a throwaway cluster is created and started from
# the Debian PostgreSQL 15 binaries, owned by the postgres user.
set -euo pipefail

host=127.0.0.1 port=${ALMANAC_PG_PORT:-5432}
bin=/usr/lib/postgresql/15/bin

ready() { "$bin/pg_isready" -q -h "$host" -p "$port" 2>/dev/null || pg_isready -q -h "$host" -p "$port" 2>/dev/null; }

if ready; then
	echo "postgres: using the server on $host:$port"
	exit 0
fi
if [ ! -x "$bin/initdb" ]; then
	echo "postgres: no server on $host:$port and no $bin/initdb; installing postgresql-15"
	apt-get install -y -q postgresql-15 >/dev/null
fi

dir=$(mktemp -d /tmp/almanac-pg.XXXXXX)
chown postgres:postgres "$dir"
run() { su postgres -s /bin/sh -c "$*"; }
run "$bin/initdb -D $dir/data -A trust -U postgres" >/dev/null
run "$bin/pg_ctl -D $dir/data -o '-c listen_addresses=$host -p $port -k $dir' -l $dir/log -w start" >/dev/null
run "$bin/createdb -h $host -p $port -U postgres test"
echo "postgres: started a throwaway server in $dir (stop it with: su postgres -c '$bin/pg_ctl -D $dir/data stop')"
