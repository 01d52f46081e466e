// The rest of the production path beside the proxy: the billing worker, Redis and Postgres. Their
// CPU is read around each proxied run (after the billing queue has drained, so the work a run
// caused is all counted), and the ledger is checked against what the proxy served.
import { createDb } from "@gateway/db";
import { connectRedis } from "@gateway/redis-store";
import { readCpuTicks, readTreeCpuTicks } from "./process-stats.ts";
import type { LedgerTotals, SystemFigures } from "./results.ts";

/** Seconds of CPU a process (or set of processes) has used so far. */
export type CpuReader = () => Promise<number>;

export interface SystemSources {
  databaseUrl: string;
  /** The proxies whose /metrics count the requests served (the ledger must hold one row per request). */
  proxyUrls: readonly string[];
  ticksPerSecond: number;
  workerPid: number;
  /** A Redis of the bench's own: its process; null = the shared one, read through INFO cpu. */
  redisPid: number | null;
  redisUrl: string;
  /** The bench's own Postgres cluster: its postmaster (all its processes count); null = the backends of the bench database. */
  postgresPid: number | null;
  /** How long the ledger may take to catch up with the proxy after a run before the bench fails. */
  settleTimeoutMs: number;
}

export interface SystemSnapshot {
  /** Requests in the ledger, as the day totals count them (see LEDGER_COUNT). */
  ledger: number;
  /** Model requests the proxies counted (gateway_model_requests_total, every outcome). */
  proxied: number;
  workerSeconds: number;
  redisSeconds: number;
  postgresSeconds: number;
}

/** The sum of every series of a Prometheus counter in a /metrics text. */
export function sumCounter(metricsText: string, name: string): number {
  let total = 0;
  for (const line of metricsText.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const value = Number(line.slice(line.lastIndexOf(" ") + 1));
    if (Number.isFinite(value)) total += value;
  }
  return total;
}

/** used_cpu_sys + used_cpu_user of `INFO cpu`, in seconds. */
export function parseRedisCpu(info: string): number {
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1]);
  const seconds = field("used_cpu_sys") + field("used_cpu_user");
  if (!Number.isFinite(seconds)) throw new Error("no used_cpu_sys/used_cpu_user in INFO cpu");
  return seconds;
}

/** Per request of `requests`: the worker's, Redis's and Postgres's CPU between two snapshots, and the ledger's count. */
export function systemFigures(before: SystemSnapshot, after: SystemSnapshot, requests: number, proxyCpuUsPerRequest: number): SystemFigures {
  const perRequest = (seconds: number) => (requests > 0 ? (seconds * 1e6) / requests : Number.NaN);
  const workerUsPerRequest = perRequest(after.workerSeconds - before.workerSeconds);
  const redisUsPerRequest = perRequest(after.redisSeconds - before.redisSeconds);
  const postgresUsPerRequest = perRequest(after.postgresSeconds - before.postgresSeconds);
  return {
    workerUsPerRequest,
    redisUsPerRequest,
    postgresUsPerRequest,
    wholeUsPerRequest: proxyCpuUsPerRequest + workerUsPerRequest + redisUsPerRequest + postgresUsPerRequest,
    billed: after.ledger - before.ledger,
    proxied: after.proxied - before.proxied,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The requests in the ledger, read while the bench waits for it to catch up (ten times a second):
 * the sum of usage_key_days, which the statement that inserts usage_records rows increments by
 * exactly the rows it inserted, in the same transaction. Its cost does not grow with the ledger
 * (a key's day is one row); `count(*)` of usage_records does (about 70 ms at 600,000 rows, on the
 * Postgres whose CPU the bench charges to billing). `ledgerTotals` checks the two agree, once,
 * after the runs.
 */
const LEDGER_COUNT = "SELECT coalesce(sum(requests), 0)::int AS n FROM usage_key_days";
const LEDGER_TOTALS = `SELECT (SELECT count(*) FROM usage_records)::int AS records,
  (SELECT coalesce(sum(requests), 0) FROM usage_key_days)::int AS key_days,
  (SELECT coalesce(sum(requests), 0) FROM usage_aggregates)::int AS aggregates,
  (SELECT coalesce(sum(requests), 0) FROM usage_vendor_days)::int AS vendor_days`;

export function systemMeter(sources: SystemSources) {
  const db = createDb({ url: sources.databaseUrl, poolSize: 1 });
  const redis = sources.redisPid === null ? connectRedis(sources.redisUrl, { name: "bench" }) : null;
  const seconds = (ticks: { user: number; system: number }) => (ticks.user + ticks.system) / sources.ticksPerSecond;
  const tree = (pid: number): CpuReader => async () => seconds(await readTreeCpuTicks(pid));

  const worker = tree(sources.workerPid);
  const redisCpu: CpuReader = sources.redisPid !== null ? tree(sources.redisPid) : async () => parseRedisCpu(await redis!.info("cpu"));
  const postgresCpu: CpuReader =
    sources.postgresPid !== null
      ? tree(sources.postgresPid)
      : async () => {
          // A shared server: the backends connected to the bench's database (the worker's pool, the driver's own).
          const rows = await db.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database()");
          let total = 0;
          for (const { pid } of rows) total += await readCpuTicks(pid).then(seconds, () => 0);
          return total;
        };

  const counts = async () => {
    const [rows, texts] = await Promise.all([
      db.query<{ n: number }>(LEDGER_COUNT),
      Promise.all(sources.proxyUrls.map(async (url) => (await fetch(`${url}/metrics`)).text())),
    ]);
    return { ledger: rows[0]!.n, proxied: texts.reduce((total, text) => total + sumCounter(text, "gateway_model_requests_total"), 0) };
  };

  /**
   * Waits until the ledger holds a row for every request the proxies counted (the worker has
   * drained the queue), twice in a row 100 ms apart; fails loudly when it does not within the
   * timeout: a billing event was lost, or the worker cannot keep up.
   */
  const settle = async () => {
    const deadline = Date.now() + sources.settleTimeoutMs;
    let last = await counts();
    let equalSince = last.ledger === last.proxied ? 1 : 0;
    while (equalSince < 2) {
      if (Date.now() > deadline) {
        throw new Error(`the ledger holds ${last.ledger} rows but the proxy served ${last.proxied} requests ${sources.settleTimeoutMs / 1000} s after the run: billing lost events or the worker is stuck`);
      }
      await sleep(100);
      const next = await counts();
      equalSince = next.ledger === next.proxied && next.proxied === last.proxied ? equalSince + 1 : next.ledger === next.proxied ? 1 : 0;
      last = next;
    }
    return last;
  };

  return {
    /** Waits until the ledger holds a row for every request served (see `settle` above). */
    async settle(): Promise<void> {
      await settle();
    },
    async snapshot(): Promise<SystemSnapshot> {
      const { ledger, proxied } = await settle();
      const [workerSeconds, redisSeconds, postgresSeconds] = await Promise.all([worker(), redisCpu(), postgresCpu()]);
      return { ledger, proxied, workerSeconds, redisSeconds, postgresSeconds };
    },
    /** After the runs: usage_records counted row by row, each day-total table's sum, and the requests served. */
    async ledgerTotals(): Promise<LedgerTotals> {
      const { proxied } = await settle();
      const [row] = await db.query<{ records: number; key_days: number; aggregates: number; vendor_days: number }>(LEDGER_TOTALS);
      return { proxied, records: row!.records, keyDays: row!.key_days, aggregates: row!.aggregates, vendorDays: row!.vendor_days };
    },
    async close(): Promise<void> {
      redis?.disconnect();
      await db.close();
    },
  };
}

export type SystemMeter = ReturnType<typeof systemMeter>;
