#!/usr/bin/env bash
# make bench: remindd and its peers side by side, one table of ratios (see Benchmarks/README.md).
#
#   Benchmarks/bench.sh [BIN_DIR]     BIN_DIR defaults to the release build's bin path
#   W=1,3 USERS=100000 Benchmarks/bench.sh     a subset, smaller
#
# Installs its peers when missing (Debian's redis-server, redis-tools and nginx; APScheduler 3
# from PyPI), compiles the load generator, and runs Benchmarks/bench.py, which keeps all data in
# a temp directory it removes and stops every server it started by PID.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-$(cd "$here/.." && swift build -c release --show-bin-path)}"
[ -x "$bin/remindd" ] || { echo "bench: no remindd in $bin (run: swift build -c release)" >&2; exit 2; }

need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v redis-benchmark >/dev/null 2>&1 || need+=(redis-tools)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v strace >/dev/null 2>&1 || need+=(strace)
[ -e /usr/lib/nginx/modules/ngx_http_echo_module.so ] || need+=(libnginx-mod-http-echo)
command -v cc >/dev/null 2>&1 || need+=(gcc libc6-dev)
# W8 runs remindd on PostgreSQL.
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "bench: installing ${need[*]}" >&2
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
    # Installing must not leave the packages' own services running: the script starts its own.
    $SUDO env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -q --no-install-recommends "${need[@]}"
fi
python3 -c 'import apscheduler, sys; sys.exit(apscheduler.__version__[0] != "3")' 2>/dev/null ||
    python3 -m pip install -q 'apscheduler>=3,<4'
export PATH="$PATH:/usr/sbin:/sbin"
# W10 drives the console in Debian's headless Chromium with selenium from the tests' virtualenv.
if [[ ",${W:-}," == *",10,"* ]]; then
    "$here/../scripts/ensure-deps.sh" chromium chromium-driver
    CONSOLE_PYTHON=$("$here/../scripts/console-venv.sh")
    export CONSOLE_PYTHON
fi

build="$(mktemp -d -t remindd-loadgen.XXXXXX)"
trap 'rm -rf "$build"' EXIT
cc -O2 -pthread -o "$build/loadgen" "$here/loadgen.c"
python3 "$here/bench.py" "$bin" "$build/loadgen"
