# bench/run.sh's step 4, write-behind flush throughput: bench_flush (sql::LikeTable::Apply,
# 200,000 changes in batches of 10,000) on SQLite and on a private PostgreSQL server (sourced;
# needs common.sh, and from run.sh: BUILD, WORK, FLUSH_PG, pids).
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

PG_ROOT=
stop_postgres() {  # safe to call twice, or before a start: for an EXIT trap
  [ -n "$PG_ROOT" ] || return 0
  local pidfile=$PG_ROOT/data/postmaster.pid
  if [ -f "$pidfile" ]; then
    # The postmaster itself (runuser would turn any signal into a "smart" SIGTERM).
    kill -INT "$(head -1 "$pidfile")" 2>/dev/null || true
    for _ in $(seq 1 100); do [ -f "$pidfile" ] || break; sleep 0.1; done
  fi
  rm -rf "$PG_ROOT"
  PG_ROOT=
}

# flush_postgresql PG_BIN → FLUSH_PG_LINE, FLUSH_PG_RATE, PG_VERSION. A private server: own
# data directory, Unix socket only; fsync and synchronous_commit at their defaults (on), since
# this measures durable writes. (initdb --no-sync only skips syncing initdb's own files.)
flush_postgresql() {
  local pg_bin=$1 as_pg=() pg_pid
  PG_ROOT=$(mktemp -d /tmp/plaudit-bench-pg-XXXXXX)
  chmod 755 "$PG_ROOT"
  mkdir "$PG_ROOT/sock"
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres:postgres "$PG_ROOT"
    as_pg=(runuser -u postgres --)
  fi
  "${as_pg[@]}" "$pg_bin/initdb" -D "$PG_ROOT/data" -U postgres -A trust -E UTF8 --locale=C \
    --no-sync >"$WORK/initdb.log" 2>&1
  "${as_pg[@]}" "$pg_bin/postgres" -D "$PG_ROOT/data" -k "$PG_ROOT/sock" -p 5432 \
    -c listen_addresses= >"$WORK/postgres.log" 2>&1 &
  pg_pid=$!
  pids+=("$pg_pid")
  for _ in $(seq 1 200); do
    "$pg_bin/pg_isready" -q -h "$PG_ROOT/sock" -p 5432 && break
    sleep 0.1
  done
  "$pg_bin/psql" -X -q -h "$PG_ROOT/sock" -p 5432 -U postgres -d postgres -c 'CREATE DATABASE bench'
  FLUSH_PG_LINE=$("$BUILD/bench_flush" "postgresql://postgres@/bench?host=$PG_ROOT/sock&port=5432")
  FLUSH_PG_RATE=$(grep -oE 'changes_per_s=[0-9]+' <<<"$FLUSH_PG_LINE" | cut -d= -f2)
  PG_VERSION=$("$pg_bin/postgres" --version | awk '{print $3}')
  stop_postgres
  wait "$pg_pid" 2>/dev/null || true
  forget_pid "$pg_pid"
  echo "flush $FLUSH_PG_LINE (PostgreSQL $PG_VERSION, fsync on, synchronous_commit on)" >&2
}

# run_flush → FLUSH_SQLITE_LINE, FLUSH_SQLITE, and FLUSH_PG_LINE, FLUSH_PG_RATE (null when not
# run), PG_VERSION (when run)
run_flush() {
  local pg_bin
  FLUSH_SQLITE_LINE=$("$BUILD/bench_flush")
  FLUSH_SQLITE=$(grep -oE 'changes_per_s=[0-9]+' <<<"$FLUSH_SQLITE_LINE" | cut -d= -f2)
  echo "flush $FLUSH_SQLITE_LINE" >&2

  pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$pg_bin" ] && command -v initdb >/dev/null; then pg_bin=$(dirname "$(command -v initdb)"); fi
  FLUSH_PG_RATE=null
  FLUSH_PG_LINE="not run"
  PG_VERSION=
  if [ "$FLUSH_PG" != 0 ] && [ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ]; then
    flush_postgresql "$pg_bin"
  elif [ "$FLUSH_PG" = 1 ]; then
    echo "BENCH_FLUSH_PG=1 but PostgreSQL's initdb is not installed" >&2
    exit 1
  else
    echo "flush postgresql: skipped (initdb not installed, or BENCH_FLUSH_PG=0)" >&2
  fi
}
