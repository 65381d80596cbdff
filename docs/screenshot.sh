#!/usr/bin/env bash
# Render the conformance page in headless Chromium and save a PNG, to look at the page as a
# reader sees it.
# Usage: docs/screenshot.sh [OUT.png] [HEIGHT] [PAGE.html]
#   OUT.png    default: conformance.png beside this file
#   HEIGHT     window height in pixels (default 3000; the width is 1400)
#   PAGE.html  default: conformance.html beside this file (e.g. the --out of `ndcgspec matrix`)
# Chromium comes from the system packages: apt-get update && apt-get install -y chromium
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/conformance.png}"
height="${2:-3000}"
page="$(realpath "${3:-$here/conformance.html}")"
[ -f "$page" ] || { echo "screenshot.sh: no page at $page" >&2; exit 2; }
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
browser="$(command -v chromium || command -v chromium-browser)" || {
  echo "screenshot.sh: no chromium on PATH (apt-get install -y chromium)" >&2
  exit 2
}
"$browser" --headless --no-sandbox --disable-gpu --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars \
  --screenshot="$out" --window-size="1400,$height" "file://$page" 2>/dev/null
echo "wrote $out"
