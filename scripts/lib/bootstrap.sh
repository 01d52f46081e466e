# Sourced by the quick-start scripts. Makes sure of Node >= 22 and pnpm, then installs the
# workspace from the lockfile. Node 24 comes from the npm registry (package node-<os>-<arch>) into
# .tools/, because these machines reach the registry but not nodejs.org.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="$ROOT/.tools"
NODE_VERSION="24.21.0"
PNPM_VERSION="10.34.9"

log() { printf '\033[36m[bootstrap]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[31m[bootstrap]\033[0m %s\n' "$*" >&2; exit 1; }

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  if [ -x "$TOOLS/node/bin/node" ]; then export PATH="$TOOLS/node/bin:$PATH"; fi
  if command -v node >/dev/null 2>&1 && [ "$(node_major)" -ge 22 ]; then return; fi
  command -v npm >/dev/null 2>&1 || die "Node >= 22 is required and npm is missing to fetch it: install Node.js 24 (https://nodejs.org) or npm."
  local os arch
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) die "unsupported OS $(uname -s): install Node.js 24 by hand" ;; esac
  case "$(uname -m)" in x86_64|amd64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) die "unsupported CPU $(uname -m): install Node.js 24 by hand" ;; esac
  log "Node on PATH is $(node -v 2>/dev/null || echo absent); installing Node $NODE_VERSION from the npm registry into .tools/"
  local staging="$TOOLS/.node-staging"
  rm -rf "$staging" && mkdir -p "$staging"
  npm install --prefix "$staging" --no-save --no-package-lock --loglevel=error "node-$os-$arch@$NODE_VERSION" >&2
  rm -rf "$TOOLS/node" && mv "$staging/node_modules/node-$os-$arch" "$TOOLS/node" && rm -rf "$staging"
  chmod +x "$TOOLS/node/bin/node"
  export PATH="$TOOLS/node/bin:$PATH"
  [ "$(node_major)" -ge 22 ] || die "the Node installed into .tools/node does not run"
}

ensure_pnpm() {
  if [ -x "$TOOLS/pnpm/node_modules/.bin/pnpm" ]; then export PATH="$TOOLS/pnpm/node_modules/.bin:$PATH"; fi
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm -v | cut -d. -f1)" -ge 10 ]; then return; fi
  log "installing pnpm $PNPM_VERSION into .tools/"
  mkdir -p "$TOOLS/pnpm"
  npm install --prefix "$TOOLS/pnpm" --no-save --no-package-lock --loglevel=error "pnpm@$PNPM_VERSION" >&2
  export PATH="$TOOLS/pnpm/node_modules/.bin:$PATH"
}

install_workspace() {
  cd "$ROOT"
  # Skip the install when the lockfile has not changed since the last one (second runs are quick).
  local stamp="$ROOT/node_modules/.install-stamp"
  local want; want="$(cat pnpm-lock.yaml package.json | cksum)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return; fi
  log "installing dependencies from the lockfile"
  pnpm install --frozen-lockfile --reporter=append-only >&2
  echo "$want" > "$stamp"
}

ensure_node
ensure_pnpm
install_workspace
