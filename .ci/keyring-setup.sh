#!/usr/bin/env bash
# Installs what test/helpers/keyring-session.sh needs for a real Secret Service (Debian/Ubuntu):
#   gnome-keyring    gnome-keyring-daemon, the Secret Service
#   dbus             dbus-run-session and dbus-send (split into dbus-daemon/dbus-bin since bookworm)
#   dbus-x11         satisfies gnome-keyring's "session bus" dependency; without it apt picks
#                    dbus-user-session, which pulls in systemd and libpam-systemd
#   libsecret-tools  secret-tool, an independent client the tests check the stored items with
# Idempotent: does nothing when every tool is already there.
set -euo pipefail

PACKAGES=(gnome-keyring dbus dbus-x11 libsecret-tools)
TOOLS=(gnome-keyring-daemon dbus-run-session dbus-send secret-tool)

missing=()
for tool in "${TOOLS[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "keyring-setup: installing ${PACKAGES[*]} (missing: ${missing[*]})"
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "keyring-setup: no apt-get here; install gnome-keyring, dbus and secret-tool by hand" >&2
    exit 1
  fi
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
fi

dpkg-query -W -f='${Package} ${Version}\n' "${PACKAGES[@]}" 2>/dev/null || true
gnome-keyring-daemon --version | sed -n 1p
dbus-daemon --version | sed -n 1p
