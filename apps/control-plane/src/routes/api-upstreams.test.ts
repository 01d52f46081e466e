import { newId } from "@gateway/contracts";
import { upstreamHealthKey } from "@gateway/redis-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upstreamHealthReportSchema } from "../vendors/upstream-schemas.ts";
import { vendorAuthChecks } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

let fixture: VendorApiFixture;
let key: string;
const now = Date.now();

/** Two proxy processes' reports as they publish them: one fresh, one that stopped 45 s ago. */
const REPORTS = {
  "proxy-a:101": {
    at: now - 2_000,
    upstreams: {
      simulator: { attempts: 40, failures: { http_5xx: 3, timeout: 1 }, circuit: "closed", p50Ms: 120, p99Ms: 900, ttfbP50Ms: 80 },
      "operator-only": { attempts: 7, failures: {}, circuit: "closed", p50Ms: 50, p99Ms: 60, ttfbP50Ms: 20 },
      "not-in-postgres": { attempts: 1, failures: {}, circuit: "closed", p50Ms: 1, p99Ms: 1, ttfbP50Ms: 1 },
    },
  },
  "proxy-b:202": {
    at: now - 45_000,
    upstreams: {
      simulator: { attempts: 999, failures: { connect_error: 999 }, circuit: "open", p50Ms: 9_000, p99Ms: 9_000, ttfbP50Ms: 9_000 },
      "sim-backup": { attempts: 12, failures: { http_429: 2 }, circuit: "half_open", p50Ms: 300, p99Ms: 800, ttfbP50Ms: 90 },
    },
  },
};

/** Upstreams beside the fixture's `simulator`: a backup and an idle one for acme's models, one for a model only globex has. */
async function addUpstreams(): Promise<void> {
  const { prisma } = fixture.control.services.db;
  const upstream = (name: string) =>
    prisma.upstream.create({ data: { id: newId("up"), name, shape: "openai", baseUrl: "http://user:secret@127.0.0.1:9/v1", secretEnv: "SECRET_KEY", connectTimeoutMs: 1000, firstByteTimeoutMs: 1000 } });
  const [backup, idle, operatorOnly] = await Promise.all([upstream("sim-backup"), upstream("sim-idle"), upstream("operator-only")]);
  const gpt = await prisma.model.findUniqueOrThrow({ where: { name: "gpt-small" } });
  const claude = await prisma.model.findUniqueOrThrow({ where: { name: "claude-large" } });
  const internal = await prisma.model.create({ data: { id: newId("mdl"), name: "internal-model", displayName: "Internal", ownedBy: "operator" } });
  await prisma.modelRoute.createMany({
    data: [
      { id: newId("rt"), modelId: gpt.id, upstreamId: backup.id, upstreamModel: "sim-small", position: 1 },
      { id: newId("rt"), modelId: claude.id, upstreamId: idle.id, upstreamModel: "sim-large", position: 1 },
      { id: newId("rt"), modelId: internal.id, upstreamId: operatorOnly.id, upstreamModel: "internal", position: 0 },
    ],
  });
  const option = await prisma.serverOption.create({ data: { id: newId("so"), name: "internal", models: { create: [{ modelId: internal.id }] } } });
  const globex = await prisma.vendor.findUniqueOrThrow({ where: { name: "globex" } });
  await prisma.vendorServerOption.create({ data: { vendorId: globex.id, serverOptionId: option.id } });
}

beforeAll(async () => {
  fixture = await startVendorApiFixture();
  await addUpstreams();
  key = upstreamHealthKey(fixture.control.services.config.REDIS_PREFIX);
  await fixture.control.services.redis.hset(key, Object.fromEntries(Object.entries(REPORTS).map(([process, report]) => [process, JSON.stringify(report)])));
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

const read = async (token = fixture.acme["upstreams:read"]) => {
  const response = await fixture.call("GET", "/api/upstreams", { token });
  expect(response.status).toBe(200);
  return upstreamHealthReportSchema.parse(response.body);
};

describe("GET /api/upstreams", () => {
  vendorAuthChecks(() => fixture, { method: "GET", path: "/api/upstreams", scope: "upstreams:read" });

  it("sums the fresh processes' reports per upstream of the vendor's models; a stale report shows as stale, a silent upstream as no data", async () => {
    const report = await read();
    expect(report).toMatchObject({ object: "upstream_health", window_seconds: 60, stale_after_seconds: 30 });
    expect(report.processes).toEqual([
      { id: "proxy-a:101", reported_at: new Date(REPORTS["proxy-a:101"].at).toISOString(), stale: false },
      { id: "proxy-b:202", reported_at: new Date(REPORTS["proxy-b:202"].at).toISOString(), stale: true },
    ]);
    expect(report.data).toEqual([
      {
        object: "upstream",
        name: "sim-backup",
        models: ["gpt-small"],
        state: "stale",
        reported_at: new Date(REPORTS["proxy-b:202"].at).toISOString(),
        processes: [],
        circuit: null,
        attempts: 0,
        failures: {},
        p50_ms: null,
        p99_ms: null,
        ttfb_p50_ms: null,
      },
      { object: "upstream", name: "sim-idle", models: ["claude-large"], state: "no_data", reported_at: null, processes: [], circuit: null, attempts: 0, failures: {}, p50_ms: null, p99_ms: null, ttfb_p50_ms: null },
      {
        object: "upstream",
        name: "simulator",
        models: ["claude-large", "gpt-small"],
        state: "reporting",
        reported_at: new Date(REPORTS["proxy-a:101"].at).toISOString(),
        // The stale process's open circuit and 999 failures are not today's.
        processes: ["proxy-a:101"],
        circuit: "closed",
        attempts: 40,
        failures: { http_5xx: 3, timeout: 1 },
        p50_ms: 120,
        p99_ms: 900,
        ttfb_p50_ms: 80,
      },
    ]);
    // Names only: never the base URL, its credentials or the secret's variable.
    expect(JSON.stringify(report)).not.toMatch(/127\.0\.0\.1|secret|SECRET_KEY/);
  });

  it("adds every fresh process: attempts and failures summed, the worst circuit, medians weighted by attempts, the highest p99", async () => {
    const fresh = {
      at: Date.now() - 1_000,
      upstreams: { simulator: { attempts: 10, failures: { http_5xx: 2, http_429: 1 }, circuit: "half_open", p50Ms: 200, p99Ms: 700, ttfbP50Ms: 60 } },
    };
    await fixture.control.services.redis.hset(key, "proxy-c:303", JSON.stringify(fresh), "proxy-d:404", "{not json");
    try {
      const simulator = (await read()).data.find((upstream) => upstream.name === "simulator")!;
      expect(simulator).toMatchObject({
        state: "reporting",
        processes: ["proxy-a:101", "proxy-c:303"],
        circuit: "half_open",
        attempts: 50,
        failures: { http_5xx: 5, timeout: 1, http_429: 1 },
        // (120 x 40 + 200 x 10) / 50 and (80 x 40 + 60 x 10) / 50
        p50_ms: 136,
        p99_ms: 900,
        ttfb_p50_ms: 76,
      });
      // An unreadable report is left out, never a failed page.
      expect((await read()).processes.map((process) => process.id)).toEqual(["proxy-a:101", "proxy-b:202", "proxy-c:303"]);
    } finally {
      await fixture.control.services.redis.hdel(key, "proxy-c:303", "proxy-d:404");
    }
  });

  it("shows each vendor only the upstreams serving its own models", async () => {
    expect((await read()).data.map((upstream) => upstream.name)).not.toContain("operator-only");
    const globex = await read(fixture.globex);
    expect(globex.data.map((upstream) => upstream.name)).toEqual(["operator-only", "sim-backup", "sim-idle", "simulator"]);
    expect(globex.data[0]).toMatchObject({ models: ["internal-model"], state: "reporting", attempts: 7 });
  });

  it("answers every upstream as no data when no proxy has reported", async () => {
    const saved = await fixture.control.services.redis.hgetall(key);
    await fixture.control.services.redis.del(key);
    try {
      const report = await read();
      expect(report.processes).toEqual([]);
      expect(report.data.map((upstream) => upstream.state)).toEqual(["no_data", "no_data", "no_data"]);
    } finally {
      await fixture.control.services.redis.hset(key, saved);
    }
  });
});
