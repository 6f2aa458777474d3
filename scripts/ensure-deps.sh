#!/usr/bin/env bash
# Installs the system packages remindd builds and tests against, only when missing.
# apt-get is retried once: a transient dpkg lock error has been seen on fresh machines.
set -euo pipefail

need=()
pkg-config --exists libsystemd 2>/dev/null || need+=(libsystemd-dev)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
# Tests run a real journald and real socket activation; both come with systemd.
[ -x /lib/systemd/systemd-journald ] || need+=(systemd)
command -v curl >/dev/null 2>&1 || need+=(curl)
# The TLS tests make a CA and certificates and talk TLS with the openssl CLI.
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# The alerting rules and a live /metrics are checked with promtool, which Debian's
# prometheus package carries.
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
# The PostgreSQL backend's tests start a real server (initdb into a temp directory).
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || need+=(postgresql)
command -v psql >/dev/null 2>&1 || need+=(postgresql-client)
# The API fuzzer (scripts/fuzz-api.sh) installs schemathesis into a venv of its own.
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need+=(python3-venv)
# Extra packages a target needs beyond these (make test: chromium and chromium-driver, for the
# console's browser tests).
for extra in "$@"; do
    dpkg -s "$extra" >/dev/null 2>&1 || need+=("$extra")
done
# The OpenAPI document test reads openapi.yaml and checks answers against its schemas.
if ! python3 -c 'import yaml, jsonschema, openapi_spec_validator' >/dev/null 2>&1; then
    python3 -m pip install -q pyyaml jsonschema openapi-spec-validator ||
        { sleep 5; python3 -m pip install -q pyyaml jsonschema openapi-spec-validator; }
fi
[ ${#need[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
install() {
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q &&
        $SUDO env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -q --no-install-recommends "${need[@]}"
}
echo "remindd: installing ${need[*]}" >&2
install || { echo "remindd: apt-get failed, retrying once" >&2; sleep 5; install; }
