// `pnpm bench:ledger`: the vendor reports (GET /api/usage, /api/requests, /api/audit-log) timed
// against a ledger of 10 million requests. Creates a throwaway database (gw_bench_ledger_*),
// migrates it, loads it in SQL, runs every query several times through the same functions the
// routes call, prints p50/max with the plan's scans, writes bench-results/ledger-queries.{json,md}
// and drops the database. Not part of the test suite. docs/ledger-queries.md holds a run.
//
// Environment: DATABASE_URL (the server; default postgresql://postgres@127.0.0.1:5432/gateway),
// LEDGER_BENCH_ROWS (10000000), LEDGER_BENCH_KEYS (5000), LEDGER_BENCH_RUNS (9 timed runs after
// 2 warm-up runs), LEDGER_BENCH_DATABASE (measure an already loaded database instead, kept),
// LEDGER_BENCH_KEEP=1 (keep the new database), LEDGER_BENCH_OUT (bench-results/ledger-queries.json).
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { envVars, loadOrExit, parseEnv } from "@gateway/config";
import { vendorUsageReport } from "@gateway/control-plane";
import { applyMigrations, createDb, DEFAULT_DATABASE_URL, dropDatabase, ensureDatabase, Prisma, withDatabase, type PrismaClient } from "@gateway/db";
import { z } from "zod";
import { loadAverage, machineInfo } from "../machine-info.ts";
import { summarize } from "../percentiles.ts";
import { formatMs } from "../table.ts";
import { ledgerCases, type QueryCase } from "./cases.ts";
import { loadLedger, MODELS, vendorId, type LedgerShape } from "./load-ledger.ts";
import { summarizePlan, type PlanNode } from "./plan-summary.ts";

const config = loadOrExit(() =>
  parseEnv("bench:ledger", {
    /** The Postgres server; the benchmark creates its own database there. */
    DATABASE_URL: z.string().default(DEFAULT_DATABASE_URL),
    /** Ledger rows, keys (spread over 3 vendors), timed runs per query. */
    LEDGER_BENCH_ROWS: z.coerce.number().int().min(1000).default(10_000_000),
    LEDGER_BENCH_KEYS: z.coerce.number().int().min(3).default(5000),
    LEDGER_BENCH_RUNS: z.coerce.number().int().min(1).default(9),
    /** Measure this already loaded database (kept) instead of creating and loading one. */
    LEDGER_BENCH_DATABASE: z.string().min(1).optional(),
    /** Keep the new database after the run. */
    LEDGER_BENCH_KEEP: envVars.bool(false),
    /** Where the figures go (a Markdown copy of the table goes next to it). */
    LEDGER_BENCH_OUT: z.string().min(1).default("bench-results/ledger-queries.json"),
  }),
);
const log = (message: string) => process.stderr.write(`[bench:ledger] ${message}\n`);
const WARMUP_RUNS = 2;

interface CaseResult {
  api: string;
  name: string;
  items: number;
  p50Ms: number;
  maxMs: number;
  plan: string;
  planMs: number;
}

const reuse = config.LEDGER_BENCH_DATABASE;
const url = withDatabase(config.DATABASE_URL, reuse ?? `gw_bench_ledger_${randomBytes(4).toString("hex")}`);
const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
let shape: LedgerShape = {
  rows: config.LEDGER_BENCH_ROWS,
  vendors: 3,
  keys: config.LEDGER_BENCH_KEYS,
  models: MODELS,
  days: 90,
  auditEntries: 150_000,
  // "Now" for the queries: half a day past midnight, so "the last N days" is not aligned to days.
  end: new Date(today.getTime() + 12 * 3_600_000 + 34 * 60_000 + 56_789),
};

try {
  if (reuse === undefined) {
    log(`creating ${url.replace(/\/\/[^@]*@/, "//")}`);
    await ensureDatabase(url);
    await applyMigrations(url);
    const loader = createDb({ url, poolSize: 1 });
    const started = performance.now();
    try {
      await loadLedger(loader.prisma, shape, log);
    } finally {
      await loader.close();
    }
    log(`loaded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const db = createDb({ url, poolSize: 2 });
  try {
    if (reuse !== undefined) shape = await shapeOf(db.prisma, shape);
    const counts = await tableCounts(db.prisma);
    log(`rows: ${JSON.stringify(counts)}`);
    // The load average right before the queries (the load itself keeps both cores busy).
    const machine = machineInfo();
    const results: CaseResult[] = [];
    for (const queryCase of await ledgerCases(db.prisma, shape)) {
      const result = await measure(db.prisma, queryCase);
      results.push(result);
      log(`${result.api} ${result.name}: p50 ${formatMs(result.p50Ms)} ms, max ${formatMs(result.maxMs)} ms, ${result.items} items | ${result.plan}`);
    }
    const check = await checkTotals(db.prisma, shape);
    log(`check: ${check}`);
    const report: Report = {
      check,
      startedAt: new Date().toISOString(),
      machine: { ...machine, loadAfter: loadAverage() },
      postgres: await postgresInfo(db.prisma),
      shape: { ...shape, end: shape.end.toISOString() },
      counts,
      sizes: await relationSizes(db.prisma),
      runs: config.LEDGER_BENCH_RUNS,
      results,
    };
    const markdown = formatMarkdown(report);
    process.stdout.write(`${markdown}\n`);
    await mkdir(dirname(config.LEDGER_BENCH_OUT), { recursive: true });
    await writeFile(config.LEDGER_BENCH_OUT, `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(config.LEDGER_BENCH_OUT.replace(/\.json$/, ".md"), `${markdown}\n`);
    log(`wrote ${config.LEDGER_BENCH_OUT}`);
  } finally {
    await db.close();
  }
} finally {
  if (reuse === undefined && !config.LEDGER_BENCH_KEEP) {
    await dropDatabase(url);
    log("dropped the benchmark database");
  }
}

async function measure(prisma: PrismaClient, queryCase: QueryCase): Promise<CaseResult> {
  let items = 0;
  for (let run = 0; run < WARMUP_RUNS; run += 1) items = await queryCase.run();
  const samples: number[] = [];
  for (let run = 0; run < config.LEDGER_BENCH_RUNS; run += 1) {
    const started = performance.now();
    await queryCase.run();
    samples.push(performance.now() - started);
  }
  const summary = summarize(samples);
  const explained = queryCase.explain ? await explain(prisma, queryCase.explain.sql, queryCase.explain.localSettings) : null;
  return { api: queryCase.api, name: queryCase.name, items, p50Ms: summary.p50, maxMs: summary.max, plan: explained?.summary ?? "(no query)", planMs: explained?.ms ?? 0 };
}

/** EXPLAIN ANALYZE without per-node timing (its clock reads would dwarf these queries on a VM). */
async function explain(prisma: PrismaClient, sql: Prisma.Sql, localSettings: boolean): Promise<{ summary: string; ms: number }> {
  const query = Prisma.sql`EXPLAIN (ANALYZE, TIMING OFF, BUFFERS, FORMAT JSON) ${sql}`;
  const settings = prisma.$queryRaw`SELECT set_config('max_parallel_workers_per_gather', '0', true), set_config('jit', 'off', true)`;
  const rows = localSettings
    ? (await prisma.$transaction([settings, prisma.$queryRaw<{ "QUERY PLAN": [{ Plan: PlanNode; "Execution Time": number }] }[]>(query)]))[1]
    : await prisma.$queryRaw<{ "QUERY PLAN": [{ Plan: PlanNode; "Execution Time": number }] }[]>(query);
  const [output] = rows[0]!["QUERY PLAN"];
  return { summary: summarizePlan(output.Plan), ms: output["Execution Time"] };
}

/** The 90-day report of vendor 0 must equal a plain SUM over its ledger rows, to the nano. */
async function checkTotals(prisma: PrismaClient, ledger: LedgerShape): Promise<string> {
  const from = new Date(ledger.end.getTime() - 90 * 86_400_000 + 3_600_000);
  const report = await vendorUsageReport(prisma, { vendorId: vendorId(0), from, to: ledger.end, groupBy: "model" });
  const [row] = await prisma.$queryRaw<{ requests: bigint; cost_nano: bigint }[]>`
    SELECT count(*) AS requests, sum(cost_nano)::bigint AS cost_nano FROM usage_records
    WHERE vendor_id = ${vendorId(0)} AND finished_at >= ${from} AND finished_at < ${ledger.end}`;
  const same = report.totals.cost_nano === String(row!.cost_nano) && report.totals.requests === Number(row!.requests);
  if (!same) throw new Error(`report totals ${JSON.stringify(report.totals)} differ from the ledger's ${row!.requests} requests, ${row!.cost_nano} nano-USD`);
  return `90-day report of vendor 0 = SUM over usage_records: ${report.totals.requests.toLocaleString("en-US")} requests, ${report.totals.cost_nano} nano-USD`;
}

async function shapeOf(prisma: PrismaClient, assumed: LedgerShape): Promise<LedgerShape> {
  const [row] = await prisma.$queryRaw<{ newest: Date; keys: bigint }[]>`
    SELECT (SELECT max(finished_at) FROM usage_records) AS newest, (SELECT count(*) FROM api_keys) AS keys`;
  return { ...assumed, keys: Number(row!.keys), end: new Date(row!.newest.getTime() + 1) };
}

async function tableCounts(prisma: PrismaClient): Promise<Record<string, number>> {
  const [row] = await prisma.$queryRaw<Record<string, bigint>[]>`
    SELECT (SELECT count(*) FROM usage_records) AS usage_records, (SELECT count(*) FROM usage_aggregates) AS usage_aggregates,
      (SELECT count(*) FROM usage_key_days) AS usage_key_days, (SELECT count(*) FROM usage_vendor_days) AS usage_vendor_days,
      (SELECT count(*) FROM api_keys) AS api_keys, (SELECT count(*) FROM vendors) AS vendors, (SELECT count(*) FROM audit_log) AS audit_log`;
  return Object.fromEntries(Object.entries(row!).map(([table, count]) => [table, Number(count)]));
}

async function relationSizes(prisma: PrismaClient): Promise<Record<string, string>> {
  const rows = await prisma.$queryRaw<{ name: string; size: string }[]>`
    SELECT c.relname AS name, pg_size_pretty(pg_relation_size(c.oid)) AS size FROM pg_class AS c
    JOIN pg_namespace AS n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND (c.relname LIKE 'usage_%' OR c.relname LIKE 'audit_log%') ORDER BY c.relname`;
  return Object.fromEntries(rows.map((row) => [row.name, row.size]));
}

async function postgresInfo(prisma: PrismaClient): Promise<Record<string, string>> {
  const [row] = await prisma.$queryRaw<Record<string, string>[]>`
    SELECT version() AS version, current_setting('shared_buffers') AS shared_buffers, current_setting('work_mem') AS work_mem,
      current_setting('max_parallel_workers_per_gather') AS max_parallel_workers_per_gather, current_setting('jit') AS jit`;
  return row!;
}

interface Report {
  startedAt: string;
  check: string;
  machine: ReturnType<typeof machineInfo>;
  postgres: Record<string, string>;
  shape: Omit<LedgerShape, "end"> & { end: string };
  counts: Record<string, number>;
  sizes: Record<string, string>;
  runs: number;
  results: CaseResult[];
}

function formatMarkdown(report: Report): string {
  const { machine, postgres } = report;
  return [
    `# Ledger queries ${report.startedAt}`,
    "",
    `Machine: ${machine.nproc} x ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}, load ${machine.loadBefore} before the queries, ${machine.loadAfter} after.`,
    `Postgres: ${postgres.version?.split(" on ")[0]}, shared_buffers ${postgres.shared_buffers}, work_mem ${postgres.work_mem}.`,
    `Rows: ${Object.entries(report.counts).map(([table, count]) => `${table} ${count.toLocaleString("en-US")}`).join(", ")}.`,
    `Sizes: ${Object.entries(report.sizes).map(([name, size]) => `${name} ${size}`).join(", ")}.`,
    `Check: ${report.check}.`,
    `${report.runs} timed runs per query after ${WARMUP_RUNS} warm-up runs, vendor 0 (a third of the ledger).`,
    "",
    "| API | query | items | p50 ms | max ms | scans (EXPLAIN ANALYZE) |",
    "|---|---|---:|---:|---:|---|",
    ...report.results.map((result) => `| ${result.api} | ${result.name} | ${result.items} | ${formatMs(result.p50Ms)} | ${formatMs(result.maxMs)} | ${result.plan} |`),
  ].join("\n");
}
