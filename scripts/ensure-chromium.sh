#!/usr/bin/env bash
# The checkout-page test drives Debian's Chromium through playwright-core; no browser is ever downloaded.
# Installs the Debian package when it is missing (as root), so `npm test` works on a fresh machine.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium for the browser test..." >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2
  exit 0
fi
echo "pixd: the browser test needs Chromium at /usr/bin/chromium: run 'apt-get install -y chromium' as root" >&2
exit 1
