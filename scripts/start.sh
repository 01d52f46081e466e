#!/usr/bin/env bash
# Quick start, command 1: sets up everything on a fresh machine and runs the whole stack with its
# demo defaults (simulated upstream, control plane, billing worker, proxy). Ctrl-C stops it all.
source "$(dirname "${BASH_SOURCE[0]}")/lib/bootstrap.sh"
source "$ROOT/scripts/lib/services.sh"
cd "$ROOT"

export REDIS_PREFIX="${REDIS_PREFIX:-gw}"
export SIMULATOR_API_KEY="${SIMULATOR_API_KEY:-sim-demo-secret}"
export GATEWAY_CONFIG_FILE="${GATEWAY_CONFIG_FILE:-$ROOT/infra/demo/gateway.yaml}"
PROXY_PORT="${PROXY_PORT:-8080}" CONTROL_PLANE_PORT="${CONTROL_PLANE_PORT:-8081}"
WORKER_PORT="${WORKER_PORT:-8082}" SIMULATOR_PORT="${SIMULATOR_PORT:-4010}"
# The control plane listens on loopback only and is not advertised: the proxy relays /api and
# /console to it, so clients and vendors use one address.
export CONTROL_PLANE_URL="http://127.0.0.1:$CONTROL_PLANE_PORT"
LOGS="$ROOT/.data/logs"; mkdir -p "$LOGS"

log "applying database migrations"
node packages/db/src/migrate-cli.ts deploy >&2

# The vendor console is a static build the control plane serves at /console; turbo rebuilds it only
# when its sources changed (or restores dist/ from its cache).
log "building the vendor console"
TURBO_TELEMETRY_DISABLED=1 TURBO_NO_UPDATE_NOTIFIER=1 pnpm exec turbo run build --filter=@gateway/console >"$LOGS/console-build.log" 2>&1 \
  || { tail -n 30 "$LOGS/console-build.log" >&2; die "the vendor console did not build; see .data/logs/console-build.log"; }

PIDS=()
stop_all() {
  trap - INT TERM EXIT
  log "stopping"
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait "${PIDS[@]}" 2>/dev/null || true
  exit 0
}
trap stop_all INT TERM EXIT

launch() { # name port command...: starts an app in the background, logs to .data/logs/NAME.log
  local name=$1 port=$2; shift 2
  PORT="$port" "$@" >"$LOGS/$name.log" 2>&1 &
  PIDS+=($!); NAMES+=("$name"); PORTS+=("$port")
}

wait_ready() { # waits for every launched app's /readyz
  local i
  for i in "${!PIDS[@]}"; do
    local name=${NAMES[$i]} port=${PORTS[$i]} pid=${PIDS[$i]}
    for _ in $(seq 1 120); do
      curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && { log "$name ready on :$port"; continue 2; }
      kill -0 "$pid" 2>/dev/null || { tail -n 20 "$LOGS/$name.log" >&2; die "$name exited; see .data/logs/$name.log"; }
      sleep 0.5
    done
    die "$name did not become ready; see .data/logs/$name.log"
  done
}

NAMES=() PORTS=()
# All four start at once; the proxy picks the routes up as soon as the control plane publishes them.
SIMULATOR_PORT="$SIMULATOR_PORT" launch simulator "$SIMULATOR_PORT" node apps/simulator/src/main.ts
launch control-plane "$CONTROL_PLANE_PORT" node apps/control-plane/src/main.ts
launch billing-worker "$WORKER_PORT" node apps/billing-worker/src/main.ts
launch proxy "$PROXY_PORT" node apps/proxy/src/main.ts
wait_ready

node apps/control-plane/src/cli.ts demo-credentials --out "$ROOT/.data/demo-credentials.json" >/dev/null
KEY="$(node -p 'require(process.argv[1]).apiKey' "$ROOT/.data/demo-credentials.json")"
VENDOR_TOKEN="$(node -p 'require(process.argv[1]).vendorToken' "$ROOT/.data/demo-credentials.json")"
BASE="http://127.0.0.1:$PROXY_PORT"

cat <<INFO

  LLM gateway is running (logs in .data/logs/, Ctrl-C stops everything)
    base URL       $BASE          (/v1 for keys, /api for the vendor token)
                   openai baseURL: $BASE/v1, anthropic baseURL: $BASE
    demo key       $KEY
    vendor token   $VENDOR_TOKEN
    vendor console $BASE/console   (sign in with the vendor token above)

  Try:
    curl $BASE/v1
    curl $BASE/v1/chat/completions -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\
      -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'
    curl $BASE/v1/messages -H "x-api-key: $KEY" -H "anthropic-version: 2023-06-01" -H "Content-Type: application/json" \\
      -d '{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]}'
    curl $BASE/api/server-options -H "Authorization: Bearer $VENDOR_TOKEN"
    curl $BASE/api/keys -H "Authorization: Bearer $VENDOR_TOKEN" -H "Content-Type: application/json" \\
      -d '{"server_option":"standard","name":"my first key"}'

INFO
wait "${PIDS[@]}"
