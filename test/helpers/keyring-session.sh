#!/usr/bin/env bash
# Runs a command with a real, unlocked Secret Service (gnome-keyring) on a private D-Bus session,
# so the keychain tests run instead of skipping:
#
#   bash test/helpers/keyring-session.sh npm test
#
# The keyring lives in a temporary HOME unlocked with a random throwaway password; both are gone
# when the command ends. Nothing touches the caller's own keyring or session bus.
# Needs dbus-run-session, gnome-keyring-daemon (and secret-tool for one test): .ci/keyring-setup.sh.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: bash $0 COMMAND [ARG...]" >&2
  exit 2
fi
for tool in dbus-run-session gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "keyring-session: $tool not found; run .ci/keyring-setup.sh (Debian: gnome-keyring dbus-daemon)" >&2
    exit 127
  fi
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/tollgate-keyring.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir -m 700 "$tmp/home" "$tmp/runtime"

# A fresh HOME and XDG dirs: gnome-keyring creates its "login" collection under
# $XDG_DATA_HOME/keyrings from the password given to --unlock, and it becomes the default
# collection, so no "create a keyring" prompt is ever shown.
export HOME="$tmp/home"
export XDG_DATA_HOME="$tmp/home/.local/share"
export XDG_CONFIG_HOME="$tmp/home/.config"
export XDG_CACHE_HOME="$tmp/home/.cache"
export XDG_RUNTIME_DIR="$tmp/runtime"
# npm keeps its update-check stamp in HOME; with a fresh HOME it would nag on every run.
export npm_config_update_notifier=false
# Tells test/store/secrets.test.ts to fail, not skip, when the keychain does not answer.
export TOLLGATE_KEYRING_SESSION=1

# Arguments reach the inner shell as "$@", never spliced into the script text, so quoting survives.
# The daemon forks and its first process exits once the collection is unlocked; it quits by itself
# when dbus-run-session closes the bus after the command.
set +e
dbus-run-session -- bash -c '
  set -euo pipefail
  printf "%s" "$(od -An -N16 -tx1 /dev/urandom | tr -d " \n")" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  exec "$@"
' keyring-session "$@"
status=$?
set -e
exit "$status"
