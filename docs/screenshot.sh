#!/usr/bin/env bash
# Render docs/conformance.html in headless Chromium and save a PNG, to look at the page as a
# reader sees it. Usage: docs/screenshot.sh [OUT.png]   (default: conformance.png beside this file)
# Chromium comes from the system packages: apt-get update && apt-get install -y chromium
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/conformance.png}"
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
browser="$(command -v chromium || command -v chromium-browser)"
"$browser" --headless --no-sandbox --disable-gpu --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars \
  --screenshot="$out" --window-size=1400,3000 "file://$here/conformance.html"
echo "wrote $out"
