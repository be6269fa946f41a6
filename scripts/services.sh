#!/usr/bin/env bash
# Starts a throw-away Postgres server and Redis server on loopback for tests and benchmarks.
# Usage: scripts/services.sh start DIR [PG_PORT] [REDIS_PORT]   → prints export lines (TEST_DATABASE_URL, TEST_REDIS_URL)
#        scripts/services.sh stop DIR
set -euo pipefail
cmd=${1:?start|stop}
dir=$(realpath -m "${2:?directory}")
pg_port=${3:-55432}
redis_port=${4:-56379}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
  start)
    [ -x "$pg_bin/initdb" ] || { echo "Postgres is not installed (apt-get install postgresql)" >&2; exit 1; }
    command -v redis-server >/dev/null || { echo "Redis is not installed (apt-get install redis-server)" >&2; exit 1; }
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    if [ ! -f "$dir/pg/PG_VERSION" ]; then
      as_pg "$pg_bin/initdb" -D "$dir/pg" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    if ! as_pg "$pg_bin/pg_ctl" -D "$dir/pg" status >/dev/null 2>&1; then
      as_pg "$pg_bin/pg_ctl" -D "$dir/pg" -l "$dir/pg.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$pg_port -c unix_socket_directories=$dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=512MB -c work_mem=16MB -c maintenance_work_mem=512MB" \
        start >/dev/null || { cat "$dir/pg.log" >&2; exit 1; }
    fi
    if ! redis-cli -p "$redis_port" ping >/dev/null 2>&1; then
      redis-server --daemonize yes --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
        --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
      for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
    fi
    echo "export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$pg_port/postgres"
    echo "export TEST_REDIS_URL=redis://127.0.0.1:$redis_port"
    ;;
  stop)
    [ -f "$dir/pg/PG_VERSION" ] && as_pg "$pg_bin/pg_ctl" -D "$dir/pg" -m fast stop >/dev/null 2>&1 || true
    redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
    ;;
  *) echo "usage: $0 start|stop DIR [PG_PORT] [REDIS_PORT]" >&2; exit 2 ;;
esac
