#!/usr/bin/env bash
# The system tools the suite uses, from Debian's packages (no browser is ever downloaded): Chromium, which the
# page tests drive through playwright-core, and pdftotext (poppler-utils), which reads back the PDFs pixd makes
# (receipts, boletos), and the OpenSSH sftp client (openssh-client), which downloads CNAB statements from pixd's
# SFTP server. Installs what is missing (as root), so `npm test` works on a fresh machine.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
command -v sftp >/dev/null 2>&1 || missing+=(openssh-client)
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's ${missing[*]} for the suite..." >&2
  # Several test runs may start at once on one machine: wait for another's apt-get instead of failing.
  lock=(-o DPkg::Lock::Timeout=600)
  (apt-get "${lock[@]}" update -qq && DEBIAN_FRONTEND=noninteractive apt-get "${lock[@]}" install -y -qq "${missing[@]}") >&2
  exit 0
fi
echo "pixd: the suite needs ${missing[*]}: run 'apt-get install -y ${missing[*]}' as root" >&2
exit 1
