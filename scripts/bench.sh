#!/usr/bin/env bash
# `pnpm bench`: the proxy's added latency, throughput, CPU and memory on the production path,
# measured side by side against the direct path to the same simulated upstream, a bare Node
# pass-through (the floor) and Portkey's open-source gateway, in one run (apps/bench).
#
# Starts its own stack on loopback, never touching the demo's: a private PostgreSQL cluster (or,
# with BENCH_SHARED_POSTGRES=1, a gw_bench_* database on the shared server, dropped at the end), a
# private Redis (or a bench-* prefix on the shared one), its own ports. The proxy runs as built for
# production with PROXY_PROCESSES=1, pinned to one core (core 0), with a key that has rate limits, a
# quota and a budget; the billing worker (as its image runs it) drains the billing queue into the
# ledger during the proxied runs. The simulator (no latency, no chunk delay), the control plane
# (idle once the gateway file is applied), the billing worker, Redis, Postgres and the load
# generator share the other core (core 1). Floor and Portkey run on core 0 beside the proxy, each
# measured while the others are idle. For the scaling row a second proxy runs with
# PROXY_PROCESSES=2 on both cores.
#
# Environment: BENCH_DURATION_S (6) and BENCH_WARMUP_S (1) seconds per side of a row,
# BENCH_TARGET_RUNS (3: alternating runs of the floor and the proxy on the rows the targets read,
# each side's median run reported: by CPU per request at concurrency 64, by p99 at concurrency 1),
# BENCH_BILLING_APART (1: the billing worker is held still by SIGSTOP while the proxy is measured, on every row and the
# scaling step, and drains the queue between runs; 0 keeps it running through them),
# BENCH_ROWS (row id prefixes, e.g. `chat-c1,stream50,open-streams,scaling`; all by default),
# BENCH_OPEN_STREAMS (1000), BENCH_PROXY_CORE (0), BENCH_LOAD_CORE (1),
# BENCH_PORTKEY=0 (no Portkey side), BENCH_FLOOR=0 (no floor side), BENCH_PROXY_ONLY=1 (skip the
# direct, floor and Portkey sides), BENCH_SCALING_PROCESSES (2),
# BENCH_PROFILE=1 (CPU profiles of the proxy into bench-results/profile/ and of the floor into
# bench-results/profile/floor/: the proxy's top functions printed, and, for one row, both processes'
# CPU per request by kind of work: apps/bench/src/profile-compare.ts),
# BENCH_SHARED_REDIS=1 / BENCH_SHARED_POSTGRES=1 (use the shared servers at REDIS_URL /
# DATABASE_URL instead of private ones on the load core), BENCH_PROXY_NODE_FLAGS (extra Node flags
# for the proxy, to compare a tuning), BENCH_OWN_TIME=1 (the proxy's own part of each request, its
# upstream call's time taken off, printed as p50/p99/p99.9 at the end: apps/bench/src/own-time.ts;
# a diagnostic, the CPU figures are not the proxy's then), BENCH_INSTRUCTIONS=1 (the proxy and the
# floor under valgrind's callgrind, and instead of the timed rows their instructions per request on
# the concurrency-64 rows (or BENCH_ROWS), counted after BENCH_INSTRUCTION_WARMUP (3000) requests
# over BENCH_INSTRUCTION_REQUESTS (2000): apps/bench/src/instructions.ts; two back-to-back runs of
# one build on a quiet machine agree within about 3 % (with other work running, up to 27 % apart):
# for an A/B of two builds run back to back), BENCH_SETTLE_TIMEOUT_S (60: longest wait
# for the ledger to catch up after a run before the bench fails). Results: bench-results/latest.json
# and latest.md.
#
# The floor (apps/bench/src/floor-proxy.ts): a bare node:http + undici pass-through to the simulator.
# Portkey: npm @portkey-ai/gateway, installed once into .tools/portkey-gateway (git-ignored, outside
# the workspace) with @hono/node-server pinned (newer 1.x hand Portkey the upstream's immutable
# headers and every stream fails with a 500), started by apps/bench/src/portkey-server.ts.
source "$(dirname "${BASH_SOURCE[0]}")/lib/bootstrap.sh"
source "$ROOT/scripts/lib/services.sh"
cd "$ROOT"

command -v taskset >/dev/null 2>&1 || die "taskset is needed to pin processes to cores (package util-linux)."
[ "$(nproc)" -ge 2 ] || die "the benchmark needs at least 2 cores (the proxy on one, the load on the other)."
PROXY_CORE="${BENCH_PROXY_CORE:-0}" LOAD_CORE="${BENCH_LOAD_CORE:-1}"
# 1,000 client sockets plus 1,000 upstream sockets in one process: raise the soft limit if allowed.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

RUN_ID="$(node -p 'require("node:crypto").randomBytes(4).toString("hex")')"
export REDIS_PREFIX="bench-$RUN_ID"
bench_database_url() { node -p 'const u = new URL(process.argv[1]); u.pathname = `/gw_bench_${process.argv[2]}`; u.toString()' "$1" "$RUN_ID"; }
export DATABASE_URL="$(bench_database_url "$DATABASE_URL")"
wants_step() { [ -z "${BENCH_ROWS:-}" ] || [[ ",${BENCH_ROWS// /}," == *",$1,"* ]]; }
export SIMULATOR_API_KEY="sim-bench-$RUN_ID"
export INTERNAL_TOKEN="bench-internal-token-$RUN_ID"
# The bench's proxies (two at once) serve /metrics on their PORT, where apps/bench/src/system-cost.ts
# reads it (a private machine), and their metrics ports on any free port, so they never collide.
export METRICS_PUBLIC=true METRICS_PORT=0
# Every port the bench needs, chosen in one go: each is held open until all are chosen, so no two
# services are given the same one (the kernel hands a port closed a moment ago out again, and a
# service then found its port taken while the readiness check was answered by another).
free_ports() { # count
  node -e 'const net = require("node:net"); const servers = Array.from({ length: Number(process.argv[1]) }, () => net.createServer());
    Promise.all(servers.map((s) => new Promise((r) => s.listen(0, "127.0.0.1", r)))).then(() => { console.log(servers.map((s) => s.address().port).join(" ")); servers.forEach((s) => s.close()); });' "$1"
}
read -r SIMULATOR_PORT CONTROL_PLANE_PORT PROXY_PORT FLOOR_PORT WORKER_PORT PORTKEY_PORT SCALING_PROXY_PORT REDIS_PORT PG_PORT RECORDED_PORT <<<"$(free_ports 10)"
export BENCH_SIMULATOR_URL="http://127.0.0.1:$SIMULATOR_PORT"
# The scaling step's upstream (infra/bench/gateway.yaml's recorded-openai), started after the simulator.
export BENCH_RECORDED_UPSTREAM_URL="http://127.0.0.1:$RECORDED_PORT"
export CONTROL_PLANE_URL="http://127.0.0.1:$CONTROL_PLANE_PORT"
LOGS="$ROOT/.data/logs/bench"; mkdir -p "$LOGS"
PROFILE_DIR="$ROOT/bench-results/profile"

PIDS=()
CREATED_DATABASE=0
PRIVATE_REDIS_PID=""
PRIVATE_REDIS_DIR=""
PRIVATE_PG_DIR=""
PRIVATE_PG_PID=""
PG_RUNAS=()
cleanup() {
  local status=$?
  trap - INT TERM EXIT
  log "stopping the bench stack"
  # A worker held still (BENCH_BILLING_APART) when the bench stopped would not see its SIGTERM.
  if [ -n "${WORKER_PID:-}" ]; then kill -CONT "$WORKER_PID" 2>/dev/null || true; fi
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "$PRIVATE_REDIS_PID" ]; then
    kill -TERM "$PRIVATE_REDIS_PID" 2>/dev/null || true; wait "$PRIVATE_REDIS_PID" 2>/dev/null || true
    rm -rf "$PRIVATE_REDIS_DIR"
  else
    node apps/bench/src/stack-setup.ts clear-redis >/dev/null 2>&1 || log "could not clear Redis prefix $REDIS_PREFIX"
  fi
  if [ -n "$PRIVATE_PG_DIR" ]; then
    "${PG_RUNAS[@]}" "$(find_pg_bin pg_ctl)" -D "$PRIVATE_PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$PRIVATE_PG_DIR"
  elif [ "$CREATED_DATABASE" = 1 ]; then
    node apps/bench/src/stack-setup.ts drop-database || log "could not drop the bench database"
  fi
  if [ "${BENCH_OWN_TIME:-0}" = 1 ]; then grep -h '^\[own-time\]' "$LOGS/proxy.log" || log "no own-time line in $LOGS/proxy.log"; fi
  if [ "${BENCH_PROFILE:-0}" = 1 ] && [ -d "$PROFILE_DIR" ]; then
    node apps/bench/src/profile-report.ts "$PROFILE_DIR" 30 || true
    if compgen -G "$PROFILE_DIR/floor/*.cpuprofile" >/dev/null && [ -f bench-results/latest.json ]; then
      node apps/bench/src/profile-compare.ts "$PROFILE_DIR/floor" "$PROFILE_DIR" bench-results/latest.json || true
    fi
  fi
  exit "$status"
}
trap cleanup INT TERM EXIT

start_app() { # name port command...  (READY_PATH: what answers 2xx once it is ready, /readyz by default)
  local name=$1 port=$2; shift 2
  PORT="$port" "$@" >"$LOGS/$name.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 "${READY_TRIES:-120}"); do
    curl -fsS "http://127.0.0.1:$port${READY_PATH:-/readyz}" >/dev/null 2>&1 && { log "$name ready on :$port (pid ${PIDS[-1]})"; return; }
    kill -0 "${PIDS[-1]}" 2>/dev/null || { tail -n 20 "$LOGS/$name.log" >&2; die "$name exited; see $LOGS/$name.log"; }
    sleep 0.5
  done
  die "$name did not become ready; see $LOGS/$name.log"
}

# The bench's own Redis on the load core, when redis-server is installed: the proxy's billing writes
# make Redis work, and on the proxy's core that work would be charged to the proxy's latency (the
# issue's layout gives the proxy a core of its own; in production Redis runs on other machines).
# Otherwise the shared one at REDIS_URL, wherever the scheduler puts it.
if command -v redis-server >/dev/null 2>&1 && [ "${BENCH_SHARED_REDIS:-0}" != 1 ]; then
  PRIVATE_REDIS_DIR="$ROOT/.data/bench-redis-$RUN_ID"; mkdir -p "$PRIVATE_REDIS_DIR"
  # Persistence as docker-compose.yml runs it (a queue of billing jobs must survive a restart).
  taskset -c "$LOAD_CORE" redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly yes --appendfsync everysec \
    --dir "$PRIVATE_REDIS_DIR" >"$LOGS/redis.log" 2>&1 &
  PRIVATE_REDIS_PID=$!
  export REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
  for _ in $(seq 1 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  log "private Redis on core $LOAD_CORE at $REDIS_URL"
fi

# The bench's own PostgreSQL cluster on the load core, when PostgreSQL is installed: its processes
# (the backends serving the billing worker, the WAL writer, the checkpointer) are all the bench's,
# so their CPU is the ledger's cost. Durability settings as the server's defaults (fsync on).
if [ "${BENCH_SHARED_POSTGRES:-0}" != 1 ] && [ -n "$(find_pg_bin initdb)" ] && [ -n "$(find_pg_bin pg_ctl)" ]; then
  PRIVATE_PG_DIR="$ROOT/.data/bench-pg-$RUN_ID"; mkdir -p "$PRIVATE_PG_DIR"
  # PostgreSQL refuses to run as root: as services.sh, through the postgres user.
  if [ "$(id -u)" = 0 ]; then PG_RUNAS=(runuser -u postgres --); chown postgres "$PRIVATE_PG_DIR"; fi
  "${PG_RUNAS[@]}" "$(find_pg_bin initdb)" -D "$PRIVATE_PG_DIR/data" -U postgres -A trust -E UTF8 --no-sync >"$LOGS/postgres-init.log" 2>&1 \
    || die "initdb failed; see $LOGS/postgres-init.log"
  taskset -c "$LOAD_CORE" "${PG_RUNAS[@]}" "$(find_pg_bin pg_ctl)" -D "$PRIVATE_PG_DIR/data" -l "$PRIVATE_PG_DIR/postgres.log" -w -t 30 \
    -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PRIVATE_PG_DIR" start >/dev/null || die "PostgreSQL did not start; see $PRIVATE_PG_DIR/postgres.log"
  PRIVATE_PG_PID="$(head -n 1 "$PRIVATE_PG_DIR/data/postmaster.pid")"
  export DATABASE_URL="$(bench_database_url "postgresql://postgres@127.0.0.1:$PG_PORT/postgres")"
  log "private PostgreSQL on core $LOAD_CORE at 127.0.0.1:$PG_PORT (postmaster $PRIVATE_PG_PID)"
fi

log "creating database $(node -p 'new URL(process.argv[1]).pathname.slice(1)' "$DATABASE_URL"), Redis prefix $REDIS_PREFIX"
CREATED_DATABASE=1
node packages/db/src/migrate-cli.ts deploy >&2

SIMULATOR_PORT="$SIMULATOR_PORT" SIMULATOR_LATENCY_MS=0 SIMULATOR_CHUNK_DELAY_MS=0 \
  start_app simulator "$SIMULATOR_PORT" taskset -c "$LOAD_CORE" node apps/simulator/src/main.ts
SIMULATOR_PID="${PIDS[-1]}"
# The scaling step's load side is the lean client (apps/bench/src/lean-load.ts) and this upstream,
# which plays the simulator's answer back: on two cores the proxy's second process shares the load
# core with them.
RECORDED_ENV=()
if wants_step scaling && [ "${BENCH_INSTRUCTIONS:-0}" != 1 ]; then
  RECORD_FROM_URL="$BENCH_SIMULATOR_URL" start_app recorded-upstream "$RECORDED_PORT" taskset -c "$LOAD_CORE" node apps/bench/src/recorded-upstream.ts
  RECORDED_ENV=(BENCH_RECORDED_UPSTREAM_PID="${PIDS[-1]}")
fi
GATEWAY_CONFIG_FILE="$ROOT/infra/bench/gateway.yaml" LOG_LEVEL=warn \
  start_app control-plane "$CONTROL_PLANE_PORT" taskset -c "$LOAD_CORE" node apps/control-plane/src/main.ts
BENCH_API_KEY="$(node apps/bench/src/stack-setup.ts mint-key)"
# The billing worker as its image runs it (apps/billing-worker/Dockerfile), on the load core.
LOG_LEVEL=warn start_app billing-worker "$WORKER_PORT" taskset -c "$LOAD_CORE" node apps/billing-worker/src/main.ts
WORKER_PID="${PIDS[-1]}"

# The proxy, the floor and Portkey run with the Node options the proxy's image sets (ENV NODE_OPTIONS in
# apps/proxy/Dockerfile); BENCH_PROXY_NODE_FLAGS adds flags to the proxy's command line (later
# flags win), to compare a tuning (e.g. --max-semi-space-size=16).
DEPLOYED_NODE_OPTIONS="$(sed -n 's/^ENV NODE_OPTIONS="\(.*\)"$/\1/p' apps/proxy/Dockerfile)"
# ... with the Node flags of the image's command line, if any (CMD ["node", <flags>,
# "apps/proxy/dist/main.mjs"]: flags Node refuses in NODE_OPTIONS), given to the floor and Portkey too ...
read -r -a DEPLOYED_NODE_FLAGS <<<"$(sed -n 's/^CMD \["node", \(.*\)"apps\/proxy\/dist\/main.mjs"\]$/\1/p' apps/proxy/Dockerfile | tr -d '",')"
# ... and with the image's malloc setting (ENV MALLOC_ARENA_MAX), exported to every process of the
# bench alike (the floor and Portkey too: differences are code, not allocator settings).
DEPLOYED_MALLOC_ARENA_MAX="$(sed -n 's/^ENV MALLOC_ARENA_MAX=\([0-9]*\)$/\1/p' apps/proxy/Dockerfile)"
[ -n "$DEPLOYED_MALLOC_ARENA_MAX" ] && export MALLOC_ARENA_MAX="$DEPLOYED_MALLOC_ARENA_MAX"
read -r -a PROXY_NODE_FLAGS <<<"${DEPLOYED_NODE_FLAGS[*]} ${BENCH_PROXY_NODE_FLAGS:-}"
DEPLOYED_NODE_COMMAND_LINE="${DEPLOYED_NODE_OPTIONS}${DEPLOYED_NODE_FLAGS[*]:+ ${DEPLOYED_NODE_FLAGS[*]}}"
export BENCH_PROXY_NODE_FLAGS="${DEPLOYED_NODE_COMMAND_LINE}${BENCH_PROXY_NODE_FLAGS:+ $BENCH_PROXY_NODE_FLAGS}"
if [ "${BENCH_PROFILE:-0}" = 1 ]; then
  rm -rf "$PROFILE_DIR" && mkdir -p "$PROFILE_DIR"
  PROXY_NODE_FLAGS+=(--cpu-prof --cpu-prof-dir="$PROFILE_DIR")
fi
# BENCH_OWN_TIME=1: the proxy's own part of each request, its upstream call's time taken off
# (apps/bench/src/own-time.ts), printed as one line when the stack stops. A diagnostic: it costs
# the proxy a little per request, so its CPU figures are not the proxy's then.
if [ "${BENCH_OWN_TIME:-0}" = 1 ]; then
  PROXY_NODE_FLAGS+=(--import="$ROOT/apps/bench/src/own-time-preload.ts")
fi
# BENCH_INSTRUCTIONS=1: the proxy and the floor run under callgrind, counting only while the driver
# says so (valgrind runs a process's threads one at a time, so the pinning changes nothing).
INSTRUCTION_WRAPPER=()
PROXY_REDIS_WAIT_MS=2000
if [ "${BENCH_INSTRUCTIONS:-0}" = 1 ]; then
  # Under valgrind's slowdown a Redis answer at c=64 takes longer than the 2 s a request waits for it.
  PROXY_REDIS_WAIT_MS=120000
  command -v valgrind >/dev/null 2>&1 && command -v callgrind_control >/dev/null 2>&1 || die "BENCH_INSTRUCTIONS=1 needs valgrind (package valgrind)."
  INSTRUCTION_DIR="$ROOT/bench-results/callgrind"; rm -rf "$INSTRUCTION_DIR" && mkdir -p "$INSTRUCTION_DIR"
  INSTRUCTION_WRAPPER=(valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$INSTRUCTION_DIR/callgrind.out.%p")
  # V8 sizes its heap from allocation rates it times: under valgrind's slowdown the collector's
  # schedule would differ run to run; this fixes it (both sides alike).
  PROXY_NODE_FLAGS+=(--predictable-gc-schedule)
  DEPLOYED_NODE_FLAGS+=(--predictable-gc-schedule)
fi
# The proxy as built for production (one bundled module, apps/proxy/dist/main.mjs); BENCH_PROXY_SOURCE=1
# runs the TypeScript sources instead (type stripping), to compare; BENCH_PROXY_ENTRY=<file> runs a
# bundle built before (an A/B of two commits: copy each one's dist/main.mjs aside, run each in turn).
PROXY_ENTRY=apps/proxy/dist/main.mjs
if [ -n "${BENCH_PROXY_ENTRY:-}" ]; then PROXY_ENTRY="$BENCH_PROXY_ENTRY"
elif [ "${BENCH_PROXY_SOURCE:-0}" = 1 ]; then PROXY_ENTRY=apps/proxy/src/main.ts; else
  log "building the proxy for production"; pnpm --filter @gateway/proxy run build >&2; fi
# One pool connection per open stream: the 1,000-stream row needs more than the default 256.
UPSTREAM_CONNECTIONS=2048 NODE_OPTIONS="$DEPLOYED_NODE_OPTIONS" PROXY_PROCESSES=1 REDIS_WAIT_MS="$PROXY_REDIS_WAIT_MS" \
  READY_TRIES=600 start_app proxy "$PROXY_PORT" taskset -c "$PROXY_CORE" "${INSTRUCTION_WRAPPER[@]}" node "${PROXY_NODE_FLAGS[@]}" "$PROXY_ENTRY"
PROXY_PID="${PIDS[-1]}"
SCALING_ENV=()
if wants_step scaling && [ "${BENCH_INSTRUCTIONS:-0}" != 1 ]; then
  # The same proxy with a process per core behind one port (node:cluster), on both cores.
  SCALING_PROCESSES="${BENCH_SCALING_PROCESSES:-2}"
  UPSTREAM_CONNECTIONS=2048 NODE_OPTIONS="$DEPLOYED_NODE_OPTIONS" PROXY_PROCESSES="$SCALING_PROCESSES" \
    start_app proxy-scaling "$SCALING_PROXY_PORT" taskset -c "$PROXY_CORE,$LOAD_CORE" node "${DEPLOYED_NODE_FLAGS[@]}" "$PROXY_ENTRY"
  SCALING_ENV=(BENCH_SCALING_PROXY_URL="http://127.0.0.1:$SCALING_PROXY_PORT" BENCH_SCALING_PROXY_PID="${PIDS[-1]}" BENCH_SCALING_PROCESSES="$SCALING_PROCESSES")
fi
# The floor, on the same core as the proxy (idle while the proxy is measured, and the other way round).
FLOOR_ENV=()
if [ "${BENCH_FLOOR:-1}" != 0 ]; then
  FLOOR_NODE_FLAGS=("${DEPLOYED_NODE_FLAGS[@]}")
  [ "${BENCH_PROFILE:-0}" = 1 ] && FLOOR_NODE_FLAGS+=(--cpu-prof --cpu-prof-dir="$PROFILE_DIR/floor")
  FLOOR_UPSTREAM_URL="$BENCH_SIMULATOR_URL" NODE_OPTIONS="$DEPLOYED_NODE_OPTIONS" \
    READY_TRIES=600 start_app floor "$FLOOR_PORT" taskset -c "$PROXY_CORE" "${INSTRUCTION_WRAPPER[@]}" node "${FLOOR_NODE_FLAGS[@]}" apps/bench/src/floor-proxy.ts
  FLOOR_ENV=(BENCH_FLOOR_URL="http://127.0.0.1:$FLOOR_PORT" BENCH_FLOOR_PID="${PIDS[-1]}")
fi

# Portkey's gateway, on the proxy's core with the same Node options (same heap settings: differences are code).
PORTKEY_VERSION=1.15.2
PORTKEY_HONO_NODE_SERVER=1.13.8
PORTKEY_DIR="$ROOT/.tools/portkey-gateway"
PORTKEY_ENV=()
if [ "${BENCH_PORTKEY:-1}" != 0 ] && [ "${BENCH_PROXY_ONLY:-0}" != 1 ] && [ "${BENCH_INSTRUCTIONS:-0}" != 1 ]; then
  stamp="$PORTKEY_DIR/.installed-$PORTKEY_VERSION-hono-node-server-$PORTKEY_HONO_NODE_SERVER"
  if [ ! -f "$stamp" ]; then
    log "installing @portkey-ai/gateway@$PORTKEY_VERSION into .tools/portkey-gateway (once)"
    rm -rf "$PORTKEY_DIR" && mkdir -p "$PORTKEY_DIR"
    # An override, not a second dependency: @hono/node-ws would otherwise nest the newest 1.x for Portkey.
    printf '{"private":true,"dependencies":{"@portkey-ai/gateway":"%s"},"overrides":{"@hono/node-server":"%s"}}\n' \
      "$PORTKEY_VERSION" "$PORTKEY_HONO_NODE_SERVER" >"$PORTKEY_DIR/package.json"
    npm install --prefix "$PORTKEY_DIR" --no-audit --no-fund --ignore-scripts >&2 || die "could not install Portkey's gateway (BENCH_PORTKEY=0 runs without it)"
    touch "$stamp"
  fi
  READY_PATH=/ NODE_ENV=production NODE_OPTIONS="$DEPLOYED_NODE_OPTIONS" \
    PORTKEY_ENTRY="$PORTKEY_DIR/node_modules/@portkey-ai/gateway/build/start-server.js" \
    start_app portkey "$PORTKEY_PORT" taskset -c "$PROXY_CORE" node "${DEPLOYED_NODE_FLAGS[@]}" apps/bench/src/portkey-server.ts
  PORTKEY_ENV=(BENCH_PORTKEY_URL="http://127.0.0.1:$PORTKEY_PORT" BENCH_PORTKEY_PID="${PIDS[-1]}"
    BENCH_PORTKEY_DESCRIPTION="Portkey's gateway $PORTKEY_VERSION (@hono/node-server $PORTKEY_HONO_NODE_SERVER)")
fi

SYSTEM_ENV=(BENCH_WORKER_PID="$WORKER_PID")
[ -n "$PRIVATE_REDIS_PID" ] && SYSTEM_ENV+=(BENCH_REDIS_PID="$PRIVATE_REDIS_PID")
[ -n "$PRIVATE_PG_PID" ] && SYSTEM_ENV+=(BENCH_POSTGRES_PID="$PRIVATE_PG_PID")

DRIVER=apps/bench/src/main.ts
if [ "${BENCH_INSTRUCTIONS:-0}" = 1 ]; then
  DRIVER=apps/bench/src/instructions.ts
  log "counting instructions per request (proxy${FLOOR_ENV[*]:+, floor} under callgrind; simulator, load, worker, Redis, Postgres on core $LOAD_CORE)"
else
  log "measuring (proxy${FLOOR_ENV[*]:+, floor}${PORTKEY_ENV[*]:+, Portkey} on core $PROXY_CORE; simulator, load, worker, Redis, Postgres on core $LOAD_CORE)"
fi
env "${FLOOR_ENV[@]}" "${PORTKEY_ENV[@]}" "${SCALING_ENV[@]}" "${RECORDED_ENV[@]}" "${SYSTEM_ENV[@]}" BENCH_PROXY_URL="http://127.0.0.1:$PROXY_PORT" BENCH_PROXY_PID="$PROXY_PID" BENCH_SIMULATOR_PID="$SIMULATOR_PID" BENCH_API_KEY="$BENCH_API_KEY" \
  BENCH_CLK_TCK="$(getconf CLK_TCK)" BENCH_PROXY_CORE="$PROXY_CORE" BENCH_LOAD_CORE="$LOAD_CORE" \
  taskset -c "$LOAD_CORE" node "$DRIVER"
