// Set-up and clean-up steps of scripts/bench.sh that need the project's own code:
//   node stack-setup.ts mint-key         print a new key (bench vendor) with rate limits, a quota and a
//                                        budget, all too large to refuse a request: the production path
//   node stack-setup.ts drop-database    drop $DATABASE_URL's database (gw_bench_* only)
//   node stack-setup.ts clear-redis      delete every key under $REDIS_PREFIX (bench-* only)
// The database itself is created and migrated by packages/db's migrate-cli.
import { loadOrExit } from "@gateway/config";
import { createControlPlaneServices, loadControlPlaneConfig, mintKey } from "@gateway/control-plane";
import { databaseName, dropDatabase } from "@gateway/db";
import { createLogger } from "@gateway/logger";
import { connectRedis } from "@gateway/redis-store";

const BENCH_VENDOR = "bench";
const BENCH_SERVER_OPTION = "bench";
/**
 * Limits the proxy checks on every request but never reaches in a run: rpm and tpm near the
 * column's int4 maximum, a quota and a monthly budget of a million dollars (nano-USD).
 */
const BENCH_LIMITS = { rpm: 2_000_000_000, tpm: 2_000_000_000, quotaNano: 1_000_000n * 1_000_000_000n, budgetNano: 1_000_000n * 1_000_000_000n };

async function mintBenchKey(): Promise<string> {
  const config = loadOrExit(() => loadControlPlaneConfig());
  const services = createControlPlaneServices(config, createLogger({ name: "bench-setup", level: "warn" }));
  try {
    const vendor = await services.db.prisma.vendor.findUniqueOrThrow({ where: { name: BENCH_VENDOR } });
    const minted = await mintKey(services.db.prisma, services.records, {
      vendorId: vendor.id,
      serverOption: BENCH_SERVER_OPTION,
      name: "bench key",
      quotaNano: BENCH_LIMITS.quotaNano,
      expiresAt: null,
      rpm: BENCH_LIMITS.rpm,
      tpm: BENCH_LIMITS.tpm,
      budget: { limitNano: BENCH_LIMITS.budgetNano, period: "month" },
      metadata: { bench: true },
    });
    return minted.plaintext;
  } finally {
    await services.close();
  }
}

async function clearRedis(url: string, prefix: string): Promise<number> {
  const redis = connectRedis(url, { name: "bench-setup" });
  try {
    let deleted = 0;
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== "0");
    return deleted;
  } finally {
    redis.disconnect();
  }
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const command = process.argv[2];
switch (command) {
  case "mint-key":
    process.stdout.write(`${await mintBenchKey()}\n`);
    break;
  case "drop-database": {
    const url = required("DATABASE_URL");
    // Never drop anything but a bench database, whatever the environment says.
    if (!databaseName(url).startsWith("gw_bench_")) throw new Error(`refusing to drop ${databaseName(url)}: not a gw_bench_* database`);
    await dropDatabase(url);
    break;
  }
  case "clear-redis": {
    const prefix = required("REDIS_PREFIX");
    if (!prefix.startsWith("bench-")) throw new Error(`refusing to clear Redis prefix ${prefix}: not a bench-* prefix`);
    process.stdout.write(`${await clearRedis(required("REDIS_URL"), prefix)}\n`);
    break;
  }
  default:
    process.stderr.write("usage: stack-setup.ts mint-key | drop-database | clear-redis\n");
    process.exitCode = 2;
}
