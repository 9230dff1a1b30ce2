#!/usr/bin/env bash
# The system programs echo-runner needs beside Node, checked before `npm test` (pretest), `npm start`
# (prestart) and by .ci/run: what is missing is installed with apt-get when this runs as root on a
# Debian-like system; otherwise it stops at once with the exact command to run, instead of a wall of
# failing tests.
#
#   scripts/ensure-system-deps.sh test    redis-server, redis-cli, Chromium, bubblewrap, strace, socat, attr,
#                                         user-mode-linux
#   scripts/ensure-system-deps.sh start   redis-server, unless REDIS_URL names a Redis of your own;
#                                         bubblewrap and socat (the default exec host) are installed
#                                         as root when missing, else only warned about: a config with
#                                         tools.exec.host: local does not need them
#
# CHROMIUM_PATH (default /usr/bin/chromium) is where the tests look for Chromium.
# ECHO_RUNNER_SYSTEM_DEPS=check only checks and never installs.
set -euo pipefail

purpose="${1:-test}"
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"

# package|how to tell it is there|what needs it
case "$purpose" in
  test)
    wanted=(
      "redis-server|redis-server|every test that talks to Redis starts its own redis-server"
      "redis-tools|redis-cli|the Redis Cluster tests assign slots with redis-cli --cluster create"
      "chromium|@$chromium|the approval page and dashboard tests drive a real browser"
      "bubblewrap|bwrap|the exec sandbox tests"
      "strace|strace|the exec sandbox's syscall tests, and the machine-crash chaos test (it watches Redis's fsyncs)"
      "socat|socat|the network-fence tests"
      "attr|getfattr|the workspace layer's tests read overlayfs marks (opaque folders) with getfattr"
      "user-mode-linux|linux|the sandbox's cgroup v2 test boots a user-mode Linux kernel (this machine's memory and pids controllers are in cgroup v1)"
    )
    ;;
  start)
    if [ "$(uname -s)" = "Linux" ] && { ! command -v bwrap >/dev/null 2>&1 || ! command -v socat >/dev/null 2>&1; }; then
      if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1 && [ "${ECHO_RUNNER_SYSTEM_DEPS:-}" != "check" ]; then
        echo "echo-runner: installing bubblewrap socat with apt-get (the sandbox exec host)" >&2
        { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap socat; } ||
          echo "echo-runner: could not install bubblewrap socat; exec, execute_code and process stay not ready" >&2
      else
        echo "echo-runner: bubblewrap or socat is missing, so exec, execute_code and process are not ready on" >&2
        echo "  the default sandbox host: install them (apt-get install bubblewrap socat) or set tools.exec.host: local" >&2
      fi
    fi
    if [ -n "${REDIS_URL:-}" ]; then exit 0; fi
    wanted=("redis-server|redis-server|npm start runs its own redis-server when REDIS_URL is unset")
    ;;
  *)
    echo "usage: $0 test|start" >&2
    exit 2
    ;;
esac

is_there() {
  local probe="$1"
  if [ "${probe#@}" != "$probe" ]; then [ -x "${probe#@}" ]; else command -v "$probe" >/dev/null 2>&1; fi
}

missing_packages() {
  local entry package probe
  for entry in "${wanted[@]}"; do
    IFS='|' read -r package probe _ <<<"$entry"
    is_there "$probe" || printf '%s\n' "$package"
  done
}

mapfile -t missing < <(missing_packages)
[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1 && [ "${ECHO_RUNNER_SYSTEM_DEPS:-}" != "check" ]; then
  echo "echo-runner: installing ${missing[*]} with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
  mapfile -t missing < <(missing_packages)
  [ "${#missing[@]}" -eq 0 ] && exit 0
fi

{
  echo "echo-runner: \`npm $purpose\` needs programs that are not installed:"
  for entry in "${wanted[@]}"; do
    IFS='|' read -r package probe why <<<"$entry"
    for m in "${missing[@]}"; do
      if [ "$m" = "$package" ]; then
        if [ "$package" = chromium ]; then echo "  - $package (no executable at $chromium): $why"; else echo "  - $package: $why"; fi
      fi
    done
  done
  echo
  if [ -f /etc/debian_version ]; then
    sudo=""
    [ "$(id -u)" = "0" ] || sudo="sudo "
    echo "Install them with:"
    echo "  ${sudo}apt-get install -y --no-install-recommends ${missing[*]}"
  elif [ "$(uname -s)" = "Darwin" ]; then
    echo "Install redis with \`brew install redis\`; Chromium with \`brew install --cask chromium\` and"
    echo "CHROMIUM_PATH set to its binary. bubblewrap, strace and socat exist on Linux only: run the tests"
    echo "in a Debian container (docker run -it -v \"\$PWD\":/app -w /app node:20-bookworm bash .ci/run)."
  else
    echo "Install these packages with your system's package manager: ${missing[*]}"
  fi
  if [ "$purpose" = start ]; then echo "Or set REDIS_URL to a Redis of your own."; fi
} >&2
exit 1
