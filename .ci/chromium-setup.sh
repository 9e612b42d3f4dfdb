#!/usr/bin/env bash
# Installs Debian's Chromium for the console's browser tests (test/console/), which drive it with
# playwright-core; never a browser downloaded by a test tool. Idempotent: does nothing when
# /usr/bin/chromium is already there. The tests skip, saying why, only when no Chromium exists.
set -euo pipefail

if [ ! -x /usr/bin/chromium ]; then
  echo "chromium-setup: installing chromium"
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "chromium-setup: no apt-get here; install Chromium by hand (or set CHROMIUM_PATH)" >&2
    exit 1
  fi
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

/usr/bin/chromium --version
