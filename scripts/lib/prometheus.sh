# Sourced after bootstrap.sh by scripts/test.sh, or run on its own (`bash scripts/lib/prometheus.sh`,
# as the alert rules' test does when promtool is missing). Makes sure `promtool` (Debian's
# `prometheus` package) is at $PROMTOOL_PATH (default /usr/bin/promtool): the suite checks
# infra/observability/alerts.yaml with `promtool check rules` and `promtool test rules`. Quiet and
# idempotent: a no-op once installed. The package's Prometheus server is installed with it but never
# started: service starts are refused (policy-rc.d) while apt installs it.

declare -F log >/dev/null || log() { printf '\033[36m[prometheus]\033[0m %s\n' "$*" >&2; }
declare -F die >/dev/null || die() { printf '\033[31m[prometheus]\033[0m %s\n' "$*" >&2; exit 1; }

export PROMTOOL_PATH="${PROMTOOL_PATH:-/usr/bin/promtool}"

ensure_promtool() {
  [ -x "$PROMTOOL_PATH" ] && return 0
  [ "$PROMTOOL_PATH" = /usr/bin/promtool ] || die "PROMTOOL_PATH=$PROMTOOL_PATH does not exist; point it at a promtool binary or unset it."
  command -v apt-get >/dev/null 2>&1 \
    || die "the alert rules' tests need promtool at /usr/bin/promtool; install Prometheus with your package manager (Debian: 'apt-get install prometheus') or set PROMTOOL_PATH."
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null \
      || die "the alert rules' tests need promtool: run 'sudo apt-get install prometheus' once (this script is not root and cannot sudo without a password)."
    sudo=(sudo -n)
  fi
  log "installing promtool from Debian's prometheus package (apt-get, once)"
  # The package would start its server (and take :9090, the proxy's metrics port): refuse service
  # starts for the install's length unless the machine already has a policy.
  local policy=/usr/sbin/policy-rc.d added=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null && "${sudo[@]}" chmod +x "$policy" && added=1
  fi
  local ok=0
  # Another apt-get (chromium.sh's, run at the same time by another test) holds the dpkg lock: wait for it.
  "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 update -qq >&2 \
    && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends prometheus >/dev/null 2>&1 \
    && ok=1
  [ $added = 1 ] && "${sudo[@]}" rm -f "$policy"
  [ $ok = 1 ] || die "apt-get could not install prometheus; install it by hand ('apt-get install prometheus') and run again."
  [ -x "$PROMTOOL_PATH" ] || die "prometheus was installed but $PROMTOOL_PATH is missing"
}

ensure_promtool
