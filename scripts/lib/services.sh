# Sourced after bootstrap.sh. Makes sure PostgreSQL and Redis answer at DATABASE_URL / REDIS_URL
# (default 127.0.0.1). If they do not: `docker compose up -d` when a Docker engine runs; otherwise
# private instances from locally installed binaries under .data/ (git-ignored); otherwise a
# message that says exactly what to install.

export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/gateway}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
DATA="$ROOT/.data"

url_part() { node -e 'const u=new URL(process.argv[1]); const d={"postgresql:":5432,"postgres:":5432,"redis:":6379,"rediss:":6379}; console.log(process.argv[2]==="host" ? (u.hostname||"127.0.0.1").replace(/^\[|\]$/g,"") : (u.port||d[u.protocol]))' "$1" "$2"; }
reachable() { node -e 'const s=require("net").connect({host:process.argv[1],port:+process.argv[2]}); s.setTimeout(1000); s.on("connect",()=>process.exit(0)); s.on("error",()=>process.exit(1)); s.on("timeout",()=>process.exit(1))' "$1" "$2"; }
wait_for() { for _ in $(seq 1 60); do reachable "$1" "$2" && return 0; sleep 0.5; done; return 1; }

docker_engine() { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }

find_pg_bin() {
  local name=$1
  command -v "$name" 2>/dev/null && return
  ls /usr/lib/postgresql/*/bin/"$name" 2>/dev/null | sort -V | tail -n 1
}

start_private_postgres() {
  local port=$1 initdb pg_ctl runas=()
  initdb="$(find_pg_bin initdb)"; pg_ctl="$(find_pg_bin pg_ctl)"
  [ -n "$initdb" ] && [ -n "$pg_ctl" ] || return 1
  mkdir -p "$DATA"
  # PostgreSQL refuses to run as root: use the postgres system user when we are root.
  if [ "$(id -u)" = 0 ]; then id postgres >/dev/null 2>&1 || return 1; runas=(runuser -u postgres --); fi
  if [ ! -f "$DATA/postgres/PG_VERSION" ]; then
    log "creating a private PostgreSQL cluster in .data/postgres"
    mkdir -p "$DATA/postgres"; [ ${#runas[@]} -gt 0 ] && chown postgres "$DATA/postgres" && chmod 700 "$DATA/postgres"
    "${runas[@]}" "$initdb" -D "$DATA/postgres" -U postgres --auth=trust >"$DATA/postgres-init.log" 2>&1 || return 1
  fi
  log "starting private PostgreSQL on 127.0.0.1:$port"
  "${runas[@]}" "$pg_ctl" -D "$DATA/postgres" -l "$DATA/postgres/server.log" -w \
    -o "-p $port -c listen_addresses=127.0.0.1 -k $DATA/postgres" start >/dev/null || return 1
}

start_private_redis() {
  local port=$1
  command -v redis-server >/dev/null 2>&1 || return 1
  mkdir -p "$DATA/redis"
  log "starting private Redis on 127.0.0.1:$port"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly yes --appendfsync everysec \
    --dir "$DATA/redis" --pidfile "$DATA/redis/redis.pid" --logfile "$DATA/redis/redis.log" >/dev/null
}

ensure_services() {
  local pg_host pg_port redis_host redis_port
  pg_host="$(url_part "$DATABASE_URL" host)"; pg_port="$(url_part "$DATABASE_URL" port)"
  redis_host="$(url_part "$REDIS_URL" host)"; redis_port="$(url_part "$REDIS_URL" port)"
  local pg_ok=0 redis_ok=0
  reachable "$pg_host" "$pg_port" && pg_ok=1
  reachable "$redis_host" "$redis_port" && redis_ok=1
  [ $pg_ok = 1 ] && [ $redis_ok = 1 ] && return 0

  if docker_engine; then
    log "starting PostgreSQL and Redis with docker compose"
    local services=(); [ $pg_ok = 0 ] && services+=(postgres); [ $redis_ok = 0 ] && services+=(redis)
    docker compose -f "$ROOT/docker-compose.yml" up -d "${services[@]}" >&2
  else
    [ $pg_ok = 0 ] && { start_private_postgres "$pg_port" || true; }
    [ $redis_ok = 0 ] && { start_private_redis "$redis_port" || true; }
  fi
  wait_for "$pg_host" "$pg_port" || die "PostgreSQL is not reachable at $pg_host:$pg_port. Install PostgreSQL 15+ (e.g. 'apt-get install postgresql') or Docker, or set DATABASE_URL to a running server."
  wait_for "$redis_host" "$redis_port" || die "Redis is not reachable at $redis_host:$redis_port. Install Redis 7+ (e.g. 'apt-get install redis-server') or Docker, or set REDIS_URL to a running server."
}

ensure_services
