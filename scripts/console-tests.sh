#!/usr/bin/env bash
# Runs the web console's browser tests (Tests/Console) in headless Chromium against the real
# remindd binary: sign-in per token scope, every figure against the API answer, replay,
# forget, the response headers, no console error and no request to another origin.
# Screenshots and the first-load figures land in .build/console-artifacts;
# CONSOLE_UPDATE_DOCS_IMAGES=1 also copies the overview and outcomes ones to docs/images.
#
#   scripts/console-tests.sh [REMINDD_BINARY] [PYTEST_ARGS…]
#
# Needs Debian's chromium and chromium-driver (scripts/ensure-deps.sh installs them); Selenium
# never downloads a browser or driver (SE_OFFLINE). selenium and pytest are installed in a
# virtualenv under .build (CONSOLE_TESTS_VENV) at pinned versions.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$(cd "$top" && swift build --show-bin-path)/remindd}
[ $# -gt 0 ] && shift
selenium_version=4.51.0
pytest_version=9.2.0
venv=${CONSOLE_TESTS_VENV:-$top/.build/console-venv}

[ -x "$binary" ] || { echo "console-tests: no remindd binary at $binary; run swift build first" >&2; exit 2; }
for tool in /usr/bin/chromium /usr/bin/chromedriver; do
    [ -x "$tool" ] || { echo "console-tests: $tool is missing (apt-get install chromium chromium-driver)" >&2; exit 2; }
done
if ! "$venv/bin/python" -c "import selenium, pytest, sys
sys.exit(selenium.__version__ != '$selenium_version' or pytest.__version__ != '$pytest_version')" 2>/dev/null; then
    echo "console-tests: installing selenium $selenium_version and pytest $pytest_version in $venv" >&2
    python3 -m venv "$venv" ||
        { echo "console-tests: python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2; exit 2; }
    "$venv/bin/pip" install -q "selenium==$selenium_version" "pytest==$pytest_version" ||
        { sleep 5; "$venv/bin/pip" install -q "selenium==$selenium_version" "pytest==$pytest_version"; }
fi

mkdir -p "$top/.build/console-artifacts"
cd "$top"
REMINDD_BINARY=$(realpath "$binary") SE_OFFLINE=true PYTHONDONTWRITEBYTECODE=1 \
    "$venv/bin/python" -m pytest -p no:cacheprovider -s -v "$@" "$top/Tests/Console"
