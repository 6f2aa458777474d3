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
# never downloads a browser or driver (SE_OFFLINE). selenium and pytest come from the
# virtualenv scripts/console-venv.sh makes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$(cd "$top" && swift build --show-bin-path)/remindd}
[ $# -gt 0 ] && shift

[ -x "$binary" ] || { echo "console-tests: no remindd binary at $binary; run swift build first" >&2; exit 2; }
for tool in /usr/bin/chromium /usr/bin/chromedriver; do
    [ -x "$tool" ] || { echo "console-tests: $tool is missing (apt-get install chromium chromium-driver)" >&2; exit 2; }
done
python=$("$top/scripts/console-venv.sh")

mkdir -p "$top/.build/console-artifacts"
cd "$top"
REMINDD_BINARY=$(realpath "$binary") SE_OFFLINE=true PYTHONDONTWRITEBYTECODE=1 \
    "$python" -m pytest -p no:cacheprovider -s -v "$@" "$top/Tests/Console"
