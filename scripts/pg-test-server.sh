#!/usr/bin/env bash
# A PostgreSQL server for one test run: `start` makes a cluster with initdb in a new temporary
# directory, starts the server on a Unix socket there (no TCP), waits until it accepts
# connections and prints the directory; `stop DIR` stops it by the PID it recorded and removes
# the directory. scripts/run-tests.sh starts one before the suite, so that no test waits for
# initdb, and exports it as REMINDD_TEST_PG_DIR. The server refuses to run as root: as root it
# runs as nobody.
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "pg-test-server: PostgreSQL is not installed (scripts/ensure-deps.sh)" >&2; exit 1; }
server_user=()
[ "$(id -u)" -eq 0 ] && server_user=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
case "${1:-}" in
start)
    dir=$(mktemp -d /tmp/rpg-run.XXXXXX)
    [ "$(id -u)" -eq 0 ] && chown 65534:65534 "$dir"
    cd /tmp
    "${server_user[@]}" "$bin/initdb" -D "$dir/data" -U remindd --auth=trust -E UTF8 --no-sync \
        --no-instructions >/dev/null
    # setpriv execs the server: $! is the server's own PID, and nothing holds our output open.
    "${server_user[@]}" "$bin/postgres" -D "$dir/data" -k "$dir" -c listen_addresses= \
        -c max_connections=300 -c shared_buffers=64MB -c log_min_messages=fatal </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/pid"
    for _ in $(seq 1 600); do
        grep -q "^ready" "$dir/data/postmaster.pid" 2>/dev/null && { echo "$dir"; exit 0; }
        kill -0 "$(cat "$dir/pid")" 2>/dev/null || { echo "pg-test-server: postgres exited" >&2; exit 1; }
        sleep 0.05
    done
    echo "pg-test-server: postgres not ready within 30 s" >&2
    exit 1
    ;;
stop)
    dir=${2:?usage: pg-test-server.sh stop DIR}
    if [ -f "$dir/pid" ]; then
        pid=$(cat "$dir/pid")
        kill -INT "$pid" 2>/dev/null || true
        for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: pg-test-server.sh start | stop DIR" >&2
    exit 2
    ;;
esac
