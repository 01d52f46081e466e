import { envVars, parseEnv } from "@gateway/config";
import { z } from "zod";

const seconds = (fallback: number) => z.coerce.number().positive().default(fallback);

/** The bench driver's configuration; scripts/bench.sh sets the stack's addresses and the proxy's pid. */
export function loadBenchConfig(env: Record<string, string | undefined> = process.env) {
  return parseEnv("bench", {
    /** The proxy under test and its process id (its /proc counters are read). */
    BENCH_PROXY_URL: z.url(),
    BENCH_PROXY_PID: z.coerce.number().int().positive(),
    /** The floor (floor-proxy.ts, a bare pass-through on the proxy's core) and its pid; both unset = no floor side. */
    BENCH_FLOOR_URL: z.url().optional(),
    BENCH_FLOOR_PID: z.coerce.number().int().positive().optional(),
    /** Portkey's gateway (portkey-server.ts, on the proxy's core) and its pid; both unset = no Portkey side. */
    BENCH_PORTKEY_URL: z.url().optional(),
    BENCH_PORTKEY_PID: z.coerce.number().int().positive().optional(),
    /** The proxy with PROXY_PROCESSES=2 (both cores) for the scaling row, and its primary's pid; unset = no scaling row. */
    BENCH_SCALING_PROXY_URL: z.url().optional(),
    BENCH_SCALING_PROXY_PID: z.coerce.number().int().positive().optional(),
    BENCH_SCALING_PROCESSES: envVars.positiveInt(2),
    /** The scaling step's upstream (recorded-upstream.ts, on the load core) and its pid; unset = no scaling row. */
    BENCH_RECORDED_UPSTREAM_URL: z.url().optional(),
    BENCH_RECORDED_UPSTREAM_PID: z.coerce.number().int().positive().optional(),
    /** The billing worker, the bench's own Redis and Postgres cluster (their CPU per request is read from /proc). */
    BENCH_WORKER_PID: z.coerce.number().int().positive(),
    /** Unset = the shared Redis: its CPU is read through INFO cpu. */
    BENCH_REDIS_PID: z.coerce.number().int().positive().optional(),
    /** The postmaster of the bench's own cluster; unset = the backends of DATABASE_URL's database. */
    BENCH_POSTGRES_PID: z.coerce.number().int().positive().optional(),
    /** The bench database: its ledger is counted after every proxied run. */
    DATABASE_URL: z.string().min(1),
    /** Longest wait for the ledger to catch up with the proxy after a run, in seconds (then the bench fails). */
    BENCH_SETTLE_TIMEOUT_S: seconds(60),
    /** The simulator's process id, for its run-queue wait (optional). */
    BENCH_SIMULATOR_PID: z.coerce.number().int().positive().optional(),
    /** The simulated upstream the proxy forwards to: the direct path. */
    BENCH_SIMULATOR_URL: z.url(),
    SIMULATOR_API_KEY: z.string().min(1),
    /** A key with rate limits, a quota and a budget (all too large to refuse), minted for this run. */
    BENCH_API_KEY: z.string().startsWith("sk-"),
    /** Measured seconds per side of each row, and warm-up seconds before each. */
    BENCH_DURATION_S: seconds(6),
    BENCH_WARMUP_S: z.coerce.number().min(0).default(1),
    /**
     * Alternating runs of the floor and the proxy on the rows the targets read: each side's median
     * run is reported, by CPU per request at concurrency 64 and by p99 at concurrency 1.
     */
    BENCH_TARGET_RUNS: z.coerce.number().int().min(1).max(9).default(3),
    /**
     * The billing worker held still (SIGSTOP) while the proxy is measured (every proxied run, the scaling step's too)
     * and let drain the queue (SIGCONT, the ledger caught up) before the next run; false runs it
     * through every run. Its CPU and the ledger's check are the same either way.
     */
    BENCH_BILLING_APART: envVars.bool(true),
    /** Comma list of row ids or their leading parts (`chat-c1,stream50,open-streams`); empty runs all. */
    BENCH_ROWS: z.string().default(""),
    /** Only the proxy side of each row (for profiling runs). */
    BENCH_PROXY_ONLY: envVars.bool(false),
    /** Streams held open at once through the proxy. */
    BENCH_OPEN_STREAMS: envVars.positiveInt(1000),
    /** `getconf CLK_TCK`: the unit of /proc/<pid>/stat CPU times. */
    BENCH_CLK_TCK: envVars.positiveInt(100),
    /** Where the raw figures go (a Markdown copy of the table goes next to it). */
    BENCH_OUT: z.string().min(1).default("bench-results/latest.json"),
    /** Cores the proxy and the load side were pinned to (reported only). */
    BENCH_PROXY_CORE: z.string().default("0"),
    BENCH_LOAD_CORE: z.string().default("1"),
    /** Portkey's version and pins (reported only). */
    BENCH_PORTKEY_DESCRIPTION: z.string().default(""),
    /** Extra Node flags the proxy was started with (reported only; empty = as deployed). */
    BENCH_PROXY_NODE_FLAGS: z.string().default(""),
    /** The run's Redis (its CPU is read through INFO cpu when BENCH_REDIS_PID is unset). */
    REDIS_URL: envVars.redisUrl(),
  }, env);
}

export type BenchConfig = ReturnType<typeof loadBenchConfig>;
