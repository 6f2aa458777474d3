#!/usr/bin/env bash
# Makes (when missing) the virtualenv with selenium and pytest at pinned versions that the
# console's browser tests and the console benchmark (W10) use, and prints its python's path.
#
#   scripts/console-venv.sh        CONSOLE_TESTS_VENV overrides the place (.build/console-venv)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
selenium_version=4.51.0
pytest_version=9.2.0
venv=${CONSOLE_TESTS_VENV:-$top/.build/console-venv}
if ! "$venv/bin/python" -c "import selenium, pytest, sys
sys.exit(selenium.__version__ != '$selenium_version' or pytest.__version__ != '$pytest_version')" 2>/dev/null; then
    echo "console-venv: installing selenium $selenium_version and pytest $pytest_version in $venv" >&2
    python3 -m venv "$venv" ||
        { echo "console-venv: python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2; exit 2; }
    "$venv/bin/pip" install -q "selenium==$selenium_version" "pytest==$pytest_version" >&2 ||
        { sleep 5; "$venv/bin/pip" install -q "selenium==$selenium_version" "pytest==$pytest_version" >&2; }
fi
echo "$venv/bin/python"
