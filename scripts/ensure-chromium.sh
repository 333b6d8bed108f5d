#!/usr/bin/env bash
# Browser tests drive Debian's Chromium (never a downloaded browser). Install it when missing and
# we are allowed to; otherwise say exactly what to do.
set -euo pipefail
bin="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$bin" ] && { ! command -v dpkg >/dev/null || dpkg -s libvulkan1 >/dev/null 2>&1; }; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium (browser tests) and libvulkan1 (GPU tests)…"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core libvulkan1 >/dev/null
  exit 0
fi
echo "Chromium not found at $bin. Install it with: sudo apt-get install -y chromium (or set CHROMIUM_PATH)." >&2
exit 1
