import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@gateway/db";
import { PriceLoader } from "./price-loader.ts";
import { createTestEnvironment, PRICES, seedCatalog, type Seeded, type TestEnvironment } from "./test-fixtures.ts";

let environment: TestEnvironment;
let db: Db;
let seeded: Seeded;

beforeAll(async () => {
  environment = await createTestEnvironment();
  db = createDb({ url: environment.database.url, poolSize: 4 });
  seeded = await seedCatalog(db.prisma);
});

afterAll(async () => {
  await db?.close();
  await environment?.cleanup();
});

describe("PriceLoader", () => {
  it("reads the list prices, the option's multiplier and the option's overrides", async () => {
    const loader = new PriceLoader(db.prisma, { ttlMs: 5_000 });
    expect(await loader.get(seeded.serverOption, seeded.model)).toEqual({ model: { ...PRICES.model, tiers: [] }, multiplierBps: 12_500, overrides: { ...PRICES.override, tiers: null } });
    expect(await loader.get(seeded.serverOption, seeded.plainModel)).toEqual({ model: { ...PRICES.model, tiers: [] }, multiplierBps: 12_500, overrides: null });
  });

  it("resolves null for an unknown server option or model", async () => {
    const loader = new PriceLoader(db.prisma, { ttlMs: 5_000 });
    expect(await loader.get("no-such-option", seeded.model)).toBeNull();
    expect(await loader.get(seeded.serverOption, "no-such-model")).toBeNull();
  });

  it("reuses a sheet for the TTL, then reads the new price", async () => {
    let now = 1_000_000;
    const loader = new PriceLoader(db.prisma, { ttlMs: 5_000, now: () => now });
    const [first, concurrent] = await Promise.all([loader.get(seeded.serverOption, seeded.plainModel), loader.get(seeded.serverOption, seeded.plainModel)]);
    expect(concurrent).toBe(first);

    await db.prisma.serverOption.update({ where: { name: seeded.serverOption }, data: { priceMultiplierBps: 20_000 } });
    try {
      now += 4_999;
      expect((await loader.get(seeded.serverOption, seeded.plainModel))?.multiplierBps).toBe(12_500);
      now += 1;
      expect((await loader.get(seeded.serverOption, seeded.plainModel))?.multiplierBps).toBe(20_000);
    } finally {
      await db.prisma.serverOption.update({ where: { name: seeded.serverOption }, data: { priceMultiplierBps: PRICES.multiplierBps } });
    }
  });
});
