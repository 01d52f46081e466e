import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayFile } from "@gateway/config";
import { hashSecret } from "@gateway/contracts";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { createControlPlaneServices, type ControlPlaneServices } from "../services.ts";
import { loadControlPlaneConfig } from "../config.ts";
import { applyGatewayFile } from "./apply-gateway-file.ts";
import { mintKey } from "../keys/key-service.ts";
import { rebuildRedis } from "../rebuild-redis.ts";

const yaml = `
upstreams:
  - { name: up-openai, shape: openai, base_url: "http://127.0.0.1:1/v1", secret_env: UP_KEY }
  - { name: up-anthropic, shape: anthropic, base_url: "http://127.0.0.1:2", priority: 1, weight: 4, drop_betas: [oauth-2025-04-20, other-beta] }
models:
  - name: model-a
    aliases: [model-a-latest, "model-a-2025*"]
    drop_params: [temperature]
    prices: { input: "0.15", output: "0.60", cached_input: "0.075" }
    targets: [ { upstream: up-openai, model: a-1, weight: 3 }, { upstream: up-anthropic, model: a-2 }, { upstream: up-anthropic, model: a-3, priority: 0, weight: 2 } ]
  - name: model-b
    prices: { input: "3", output: "15" }
    targets: [ { upstream: up-anthropic, model: b-1 } ]
server_options:
  - { name: standard, models: [model-a, model-b], price_multiplier: "1.5", rate_limits: { rpm: 60 } }
  - { name: cheap, models: [model-a], prices: { model-a: { output: "0.30" } }, strict_params: true }
vendors:
  - { name: acme, server_options: [standard, cheap] }
`;

let database: TestDatabase;
let services: ControlPlaneServices;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  database = await createTestDatabase();
  services = createControlPlaneServices(
    loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: `test-${randomUUID().slice(0, 8)}` }),
    createLogger({ name: "test", level: "silent" }),
  );
});
afterAll(async () => {
  const keys = await services.redis.keys(`${services.config.REDIS_PREFIX}:*`);
  if (keys.length) await services.redis.del(...keys);
  await services.close();
  await database.drop();
});

describe("applying the gateway file", () => {
  it("writes the file's state and publishes the routing snapshot with effective prices", async () => {
    const report = await applyGatewayFile(services.db.prisma, services.records, parseGatewayFile(yaml));
    expect(report.created).toBe(7);
    const snapshot = (await services.records.readSnapshot())!;
    // A target's weight and priority default to its upstream's.
    expect(snapshot.models["model-a"]!.targets).toEqual([
      { upstream: "up-openai", model: "a-1", weight: 3, priority: 0 },
      { upstream: "up-anthropic", model: "a-2", weight: 4, priority: 1 },
      { upstream: "up-anthropic", model: "a-3", weight: 2, priority: 0 },
    ]);
    expect(snapshot.models["model-a"]).toMatchObject({ aliases: ["model-a-latest", "model-a-2025*"], dropParams: ["temperature"], position: 0 });
    expect(snapshot.models["model-b"]).toMatchObject({ aliases: [], dropParams: [], position: 1, targets: [{ upstream: "up-anthropic", model: "b-1", weight: 4, priority: 1 }] });
    expect(snapshot.upstreams["up-openai"]).toMatchObject({ shape: "openai", secretEnv: "UP_KEY", dropBetas: ["oauth-2025-04-20"] });
    expect(snapshot.upstreams["up-anthropic"]).toMatchObject({ priority: 1, weight: 4, dropBetas: ["oauth-2025-04-20", "other-beta"] });
    expect(snapshot.serverOptions.standard).toMatchObject({ models: ["model-a", "model-b"], rpm: 60, tpm: null, strictParams: false });
    expect(snapshot.serverOptions.cheap).toMatchObject({ strictParams: true });
    // 0.60 USD/M = 600000 pico per token, x1.5, scaled by 10000
    expect(snapshot.serverOptions.standard!.prices["model-a"]!.outputPrice).toBe(String(600_000n * 15_000n));
    expect(snapshot.serverOptions.cheap!.prices["model-a"]!.outputPrice).toBe(String(300_000n * 10_000n));
  });

  it("applying the same file again changes nothing", async () => {
    const before = await services.records.readSnapshot();
    const rows = async () => JSON.stringify(await Promise.all([
      services.db.prisma.upstream.findMany({ orderBy: { name: "asc" } }),
      services.db.prisma.model.findMany({ orderBy: { name: "asc" } }),
      services.db.prisma.modelRoute.findMany({ orderBy: { id: "asc" } }),
      services.db.prisma.serverOption.findMany({ orderBy: { name: "asc" } }),
      services.db.prisma.serverOptionModel.findMany({ orderBy: [{ serverOptionId: "asc" }, { modelId: "asc" }] }),
      services.db.prisma.vendor.findMany(),
    ]), (_key, value) => (typeof value === "bigint" ? value.toString() : value));
    const rowsBefore = await rows();
    const report = await applyGatewayFile(services.db.prisma, services.records, parseGatewayFile(yaml));
    expect(report).toMatchObject({ created: 0, updated: 0, deleted: 0, snapshotVersion: before!.version });
    expect(await rows()).toBe(rowsBefore);
    expect((await services.records.readSnapshot())!.version).toBe(before!.version);
  });

  it("a changed alias, dropped param, beta, priority or strict_params is written and published", async () => {
    const changed = yaml
      .replace('"model-a-2025*"', '"model-a-2026*"')
      .replace("drop_params: [temperature]", "drop_params: [temperature, top_p]")
      .replace("drop_betas: [oauth-2025-04-20, other-beta]", "drop_betas: []")
      .replace("model: a-3, priority: 0, weight: 2", "model: a-3, priority: 2, weight: 2")
      .replace("strict_params: true", "strict_params: false");
    const report = await applyGatewayFile(services.db.prisma, services.records, parseGatewayFile(changed));
    expect(report).toMatchObject({ created: 0, deleted: 0 });
    const snapshot = (await services.records.readSnapshot())!;
    expect(snapshot.models["model-a"]).toMatchObject({ aliases: ["model-a-latest", "model-a-2026*"], dropParams: ["temperature", "top_p"] });
    expect(snapshot.models["model-a"]!.targets[2]).toEqual({ upstream: "up-anthropic", model: "a-3", weight: 2, priority: 2 });
    expect(snapshot.upstreams["up-anthropic"]!.dropBetas).toEqual([]);
    expect(snapshot.serverOptions.cheap!.strictParams).toBe(false);
    // ...and is as idempotent as the rest.
    expect(await applyGatewayFile(services.db.prisma, services.records, parseGatewayFile(changed))).toMatchObject({ created: 0, updated: 0, deleted: 0, snapshotVersion: snapshot.version });
  });

  it("model capabilities reach the snapshot (the family's defaults where the file says nothing); a changed one is written and published", async () => {
    await applyGatewayFile(services.db.prisma, services.records, parseGatewayFile(yaml));
    const before = (await services.records.readSnapshot())!;
    // model-a's first target is OpenAI-shape, model-b's Anthropic-shape.
    expect(before.models["model-a"]!.capabilities).toEqual({ maxOutputTokens: 4096, contextWindow: 128000, reasoning: false, sampling: true, midConversationSystem: true, thinkingStyle: "level", canDisableThinking: true, vision: true, tools: true });
    expect(before.models["model-b"]!.capabilities).toEqual({ maxOutputTokens: 4096, contextWindow: 200000, reasoning: true, sampling: true, midConversationSystem: false, thinkingStyle: "budget", canDisableThinking: true, vision: true, tools: true });
    const changed = yaml.replace('prices: { input: "3", output: "15" }', 'prices: { input: "3", output: "15" }\n    capabilities: { max_output_tokens: 64000, vision: false }');
    expect(await applyGatewayFile(services.db.prisma, services.records, parseGatewayFile(changed))).toMatchObject({ created: 0, updated: 1, deleted: 0 });
    const after = (await services.records.readSnapshot())!;
    expect(after.version).toBeGreaterThan(before.version);
    expect(after.models["model-b"]!.capabilities).toMatchObject({ maxOutputTokens: 64000, contextWindow: 200000, vision: false });
    expect(await applyGatewayFile(services.db.prisma, services.records, parseGatewayFile(changed))).toMatchObject({ created: 0, updated: 0, deleted: 0, snapshotVersion: after.version });
    await applyGatewayFile(services.db.prisma, services.records, parseGatewayFile(yaml));
  });

  it("a changed file updates only what changed and drops removed models", async () => {
    const changed = yaml.replace('input: "3", output: "15"', 'input: "3", output: "16"').replace(/  - name: model-b[\s\S]*?b-1 } \]\n/, "").replace("[model-a, model-b]", "[model-a]");
    const report = await applyGatewayFile(services.db.prisma, services.records, parseGatewayFile(changed));
    expect(report.deleted).toBe(1);
    const snapshot = (await services.records.readSnapshot())!;
    expect(Object.keys(snapshot.models)).toEqual(["model-a"]);
    expect(snapshot.serverOptions.standard!.models).toEqual(["model-a"]);
  });
});

describe("rebuilding Redis from Postgres", () => {
  it("restores every key record and the snapshot after a flush", async () => {
    const vendor = await services.db.prisma.vendor.findUniqueOrThrow({ where: { name: "acme" } });
    const minted = await mintKey(services.db.prisma, services.records, { vendorId: vendor.id, serverOption: "standard", name: "k", quotaNano: 5n, expiresAt: null, rpm: 10, tpm: null, metadata: {} });
    const hash = hashSecret(minted.plaintext);
    const recordBefore = await services.records.readKey(hash);
    const keys = await services.redis.keys(`${services.config.REDIS_PREFIX}:*`);
    await services.redis.del(...keys);
    expect(await services.records.readKey(hash)).toBeNull();
    expect(await services.records.readSnapshot()).toBeNull();
    const result = await rebuildRedis(services);
    expect(result.keys).toBe(1);
    expect(await services.records.readKey(hash)).toEqual(recordBefore);
    expect((await services.records.readSnapshot())!.models["model-a"]).toBeDefined();
  });
});

describe("two control planes applying the same file at once (replicas starting together)", () => {
  it("take turns: both succeed, one writes everything, the other changes nothing", async () => {
    const { redisUrl } = await resolveTestServices();
    const fresh = await createTestDatabase();
    const replicas = [0, 1].map(() =>
      createControlPlaneServices(
        loadControlPlaneConfig({ DATABASE_URL: fresh.url, REDIS_URL: redisUrl, REDIS_PREFIX: `test-${randomUUID().slice(0, 8)}`, DB_POOL_SIZE: "2" }),
        createLogger({ name: "test", level: "silent" }),
      ),
    );
    try {
      const reports = await Promise.all(replicas.map((replica) => applyGatewayFile(replica.db.prisma, replica.records, parseGatewayFile(yaml))));
      expect(reports.map((report) => report.created).sort()).toEqual([0, 7]);
      expect(await replicas[0]!.db.prisma.upstream.count()).toBe(2);
    } finally {
      for (const replica of replicas) {
        const keys = await replica.redis.keys(`${replica.config.REDIS_PREFIX}:*`);
        if (keys.length) await replica.redis.del(...keys);
        await replica.close();
      }
      await fresh.drop();
    }
  });
});
