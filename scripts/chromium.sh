#!/usr/bin/env bash
# Headless Chromium for the dashboard's browser tests: Debian's `chromium` package, installed with
# apt-get when missing (like ClickHouse in infra.sh). playwright-core drives it; it never downloads
# a browser. Idempotent: an installed browser is only verified.
#
#   bash scripts/chromium.sh        install if missing, print the version
set -euo pipefail
BIN=/usr/bin/chromium
log() { printf 'chromium: %s\n' "$*" >&2; }
die() { printf 'chromium: ERROR: %s\n' "$*" >&2; exit 1; }

if [ ! -x "$BIN" ]; then
  [ "$(id -u)" = 0 ] || die "chromium is not installed; run as root or: apt-get install chromium"
  command -v apt-get >/dev/null 2>&1 || die "chromium is not installed and apt-get is not available"
  log "installing Debian's chromium package (apt-get)"
  # A lock held by a concurrent install: wait for it rather than fail.
  apt-get -o DPkg::Lock::Timeout=300 update -qq >&2 || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends chromium fonts-dejavu-core >&2 \
    || die "apt-get install chromium failed"
fi
"$BIN" --version >&2 || die "$BIN does not run"
