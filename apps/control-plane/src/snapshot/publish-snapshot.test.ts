import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayFile } from "@gateway/config";
import { SHAPES } from "@gateway/contracts";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { createControlPlaneServices, type ControlPlaneServices } from "../services.ts";
import { loadControlPlaneConfig } from "../config.ts";
import { applyGatewayFile } from "../config-file/apply-gateway-file.ts";
import { publishSnapshot } from "./publish-snapshot.ts";

const yaml = `
upstreams:
  - { name: up-openai, shape: openai, base_url: "http://127.0.0.1:1/v1" }
  - { name: up-anthropic, shape: anthropic, base_url: "http://127.0.0.1:2" }
  - { name: up-gemini, shape: gemini, base_url: "http://127.0.0.1:3/v1beta" }
  - { name: up-converse, shape: bedrock, api: converse, region: us-east-1, base_url: "http://127.0.0.1:4" }
models:
  - { name: model-a, prices: { input: "1", output: "2" }, targets: [ { upstream: up-openai, model: a-1 }, { upstream: up-anthropic, model: a-2 } ] }
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

describe("publishing the routing snapshot", () => {
  it("publishes every upstream with its own shape", async () => {
    await applyGatewayFile(services.db.prisma, services.records, parseGatewayFile(yaml));
    const snapshot = (await services.records.readSnapshot())!;
    expect(Object.values(snapshot.upstreams).map((u) => u.shape).sort()).toEqual([...SHAPES].sort());
  });

  it("refuses an upstream whose shape no proxy speaks, and leaves the published snapshot as it was", async () => {
    const before = (await services.records.readSnapshot())!;
    // The gateway file refuses such a shape at apply; only a write around it can store one.
    await services.db.prisma.upstream.update({ where: { name: "up-anthropic" }, data: { shape: "cohere" } });
    await expect(publishSnapshot(services.db.prisma, services.records, { force: true })).rejects.toThrow(
      `cannot publish the routing snapshot: upstream "up-anthropic" has shape "cohere", not one of ${SHAPES.join(", ")}`,
    );
    const after = (await services.records.readSnapshot())!;
    expect(after.version).toBe(before.version);
    expect(after.upstreams["up-anthropic"]!.shape).toBe("anthropic");
  });
});
