// The scale-out proof on one machine: 3 proxies, 2 control planes and 2 workers (real processes)
// share one Redis and one Postgres. Mixed traffic goes through every proxy while vendors mint and
// revoke keys through both control planes; then the ledger must equal what the upstream counted,
// once per successful request, and every revocation must have held on every proxy within 1 s.
// Run against one Redis and against a 3-master Redis Cluster.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveTestServices, startRedisCluster } from "@gateway/testing";
import { readLedger, sampleConnections, type Ledger } from "./scale-proof/ledger.ts";
import { DB_POOL_SIZE, startScaleStack, type ScaleStack } from "./scale-proof/stack.ts";
import { CALLS } from "./scale-proof/traffic.ts";
import { runWorkload, type WorkloadOutcome } from "./scale-proof/workload.ts";

const WORKLOAD = { requests: 96, trafficKeys: 4, revokedKeys: 4, concurrency: 12 };
const REVOCATION_DEADLINE_MS = 1_000;

interface SimulatorRecord {
  outcome: string;
  usage: { input_tokens: number; output_tokens: number } | null;
}

type RedisTopology = () => Promise<{ env: Record<string, string>; stop(): Promise<void> }>;

const topologies: [string, RedisTopology][] = [
  ["one Redis", async () => ({ env: { REDIS_URL: (await resolveTestServices()).redisUrl }, stop: async () => {} })],
  [
    "a 3-master Redis Cluster",
    async () => {
      const cluster = await startRedisCluster(3);
      // With cluster nodes REDIS_URL gives only credentials and TLS: its address is one where
      // nothing listens, so an app that ignored REDIS_CLUSTER_NODES could not start.
      return { env: { REDIS_URL: "redis://127.0.0.1:1", REDIS_CLUSTER_NODES: cluster.nodesEnv }, stop: () => cluster.stop() };
    },
  ],
];

describe.each(topologies)("3 proxies, 2 control planes, 2 workers on %s", (_name, topology) => {
  let redis: Awaited<ReturnType<RedisTopology>> | undefined;
  let stack: ScaleStack | undefined;
  let workload: WorkloadOutcome;
  let ledger: Ledger;
  let simulated: SimulatorRecord[];
  let peakConnections: number;

  beforeAll(async () => {
    redis = await topology();
    stack = await startScaleStack(redis.env);
    const connections = await sampleConnections(stack.database.url);
    try {
      workload = await runWorkload(stack, WORKLOAD);
      ledger = await readLedger(stack.database.url, workload.results.filter((result) => result.status === 200).length);
    } finally {
      peakConnections = await connections.stop();
    }
    simulated = ((await (await fetch(`${stack.simulator.url}/_sim/stats?limit=1000`)).json()) as { requests: SimulatorRecord[] }).requests;
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await redis?.stop();
  }, 60_000);

  it("migrated once although two migrations ran at the same time (the control plane's init containers)", () => {
    expect(stack!.migrationOutputs.filter((output) => output.includes("applied"))).toHaveLength(1);
    expect(stack!.migrationOutputs.filter((output) => output.includes("up to date"))).toHaveLength(1);
  });

  it("served every request through every proxy, both shapes, streaming and not", () => {
    const { results } = workload;
    expect(results.filter((result) => result.status !== 200 || !result.complete)).toEqual([]);
    for (const proxy of stack!.proxies) expect(results.filter((result) => result.proxy === proxy.url)).toHaveLength(WORKLOAD.requests / 3);
    for (const call of CALLS) expect(results.filter((result) => result.call === call)).toHaveLength(WORKLOAD.requests / CALLS.length);
  });

  it("made every revocation, through either control plane, hold on every proxy within 1 s", () => {
    expect(workload.revocationMs).toHaveLength(WORKLOAD.revokedKeys * 3);
    expect(Math.max(...workload.revocationMs)).toBeLessThanOrEqual(REVOCATION_DEADLINE_MS);
    expect(workload.afterRevocation.every((status) => status === 401)).toBe(true);
  });

  it("billed each successful request exactly once, with the tokens the upstream reported", () => {
    const { rows, aggregates } = ledger;
    expect(rows.map((row) => row.request_id).sort()).toEqual(workload.results.map((result) => result.requestId).sort());
    expect(rows.every((row) => row.status === "ok" && !row.estimated)).toBe(true);
    const answered = simulated.filter((record) => record.outcome === "ok").map((record) => record.usage!);
    expect(answered).toHaveLength(WORKLOAD.requests);
    const pairs = (usage: { input_tokens: number; output_tokens: number }[]) => usage.map((one) => `${one.input_tokens}/${one.output_tokens}`).sort();
    expect(pairs(rows)).toEqual(pairs(answered));
    // The daily aggregates are updated per event: a double count would show here.
    expect(aggregates).toEqual({ requests: rows.length, input: sum(rows.map((row) => row.input_tokens)), output: sum(rows.map((row) => row.output_tokens)) });
    expect(aggregates.output).toBeGreaterThan(0);
  });

  it("stayed within each process's Postgres pool (DB_POOL_SIZE x control planes and workers)", () => {
    expect(peakConnections).toBeGreaterThan(0);
    expect(peakConnections).toBeLessThanOrEqual(DB_POOL_SIZE * (stack!.controlPlanes.length + stack!.workers.length));
  });
});

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
