# Sourced after bootstrap.sh by scripts/test.sh, or run on its own (`bash scripts/lib/chromium.sh`,
# as the console's test setup does when the browser is missing). Makes sure Debian's Chromium is at
# $CHROMIUM_PATH (default /usr/bin/chromium): browsers that download themselves
# (`playwright install`) cannot reach their hosts on these machines, so the vendor console's
# end-to-end tests drive this one through playwright-core. Quiet and idempotent: a no-op once
# installed.

declare -F log >/dev/null || log() { printf '\033[36m[chromium]\033[0m %s\n' "$*" >&2; }
declare -F die >/dev/null || die() { printf '\033[31m[chromium]\033[0m %s\n' "$*" >&2; exit 1; }

export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"

ensure_chromium() {
  [ -x "$CHROMIUM_PATH" ] && return 0
  [ "$CHROMIUM_PATH" = /usr/bin/chromium ] || die "CHROMIUM_PATH=$CHROMIUM_PATH does not exist; point it at a Chromium binary or unset it."
  command -v apt-get >/dev/null 2>&1 \
    || die "the console's browser tests need Chromium at /usr/bin/chromium; install it with your package manager (Debian: 'apt-get install chromium') or set CHROMIUM_PATH."
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null \
      || die "the console's browser tests need Chromium: run 'sudo apt-get install chromium' once (this script is not root and cannot sudo without a password)."
    sudo=(sudo -n)
  fi
  log "installing Chromium from Debian's packages (apt-get, about a minute, once)"
  "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 update -qq >&2 \
    && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq chromium >/dev/null 2>&1 \
    || die "apt-get could not install chromium; install it by hand ('apt-get install chromium') and run again."
  [ -x "$CHROMIUM_PATH" ] || die "chromium was installed but $CHROMIUM_PATH is missing"
}

ensure_chromium
