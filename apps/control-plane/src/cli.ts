import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { loadOrExit, parseGatewayFile, ConfigError } from "@gateway/config";
import { formatUsd, GatewayError } from "@gateway/contracts";
import { createLogger } from "@gateway/logger";
import { redisReady } from "@gateway/redis-store";
import { loadControlPlaneConfig } from "./config.ts";
import { createControlPlaneServices, type ControlPlaneServices } from "./services.ts";
import { applyGatewayFile } from "./config-file/apply-gateway-file.ts";
import { createVendorToken, revokeVendorToken, VENDOR_SCOPES } from "./vendors/vendor-tokens.ts";
import { keyUsage } from "./usage/key-usage.ts";
import { rebuildRedis } from "./rebuild-redis.ts";
import { demoCredentials } from "./demo-credentials.ts";

const HELP = `Operator CLI of the control plane (reads DATABASE_URL, REDIS_URL, REDIS_PREFIX).

  apply FILE                          apply a gateway YAML file (idempotent) and publish routes
  vendor-token create --vendor NAME [--name N] [--scopes a,b]   print a new vendor token once
  vendor-token revoke ID              revoke a vendor token
  vendors                             list vendors and their server options
  keys [--vendor NAME]                list keys (never the plaintext)
  usage KEY_ID                        usage and quota of one key
  rebuild-redis                       rewrite every Redis record from Postgres
  demo-credentials --out FILE         make sure a demo key and vendor token exist (quick start)
Scopes: ${VENDOR_SCOPES.join(", ")} (default: all).`;

async function run(services: ControlPlaneServices, argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { vendor: { type: "string" }, name: { type: "string" }, scopes: { type: "string" }, out: { type: "string" }, help: { type: "boolean" } },
  });
  const [command, sub, arg] = positionals;
  const prisma = services.db.prisma;
  const print = (value: unknown) => process.stdout.write(`${typeof value === "string" ? value : JSON.stringify(value, null, 2)}\n`);
  switch (command) {
    case "apply": {
      if (!sub) throw new ConfigError("apply: give the path of a gateway YAML file");
      const file = parseGatewayFile(await readFile(sub, "utf8"), sub);
      print(await applyGatewayFile(prisma, services.records, file));
      return;
    }
    case "vendor-token": {
      if (sub === "create") {
        if (!values.vendor) throw new ConfigError("vendor-token create: --vendor NAME is required");
        const scopes = values.scopes ? values.scopes.split(",").map((scope) => scope.trim()) : [...VENDOR_SCOPES];
        const { row, plaintext } = await createVendorToken(prisma, { vendor: values.vendor, name: values.name ?? "cli", scopes });
        print({ id: row.id, vendor: values.vendor, scopes: row.scopes, token: plaintext, note: "shown once; store it now" });
        return;
      }
      if (sub === "revoke" && arg) {
        const row = await revokeVendorToken(prisma, arg);
        print({ id: row.id, revoked_at: row.revokedAt });
        return;
      }
      throw new ConfigError("vendor-token: use `create --vendor NAME` or `revoke ID`");
    }
    case "vendors": {
      const vendors = await prisma.vendor.findMany({ orderBy: { name: "asc" }, include: { serverOptions: { include: { serverOption: true } } } });
      print(vendors.map((v) => ({ id: v.id, name: v.name, server_options: v.serverOptions.map((link) => link.serverOption.name) })));
      return;
    }
    case "keys": {
      const vendor = values.vendor ? await prisma.vendor.findUnique({ where: { name: values.vendor } }) : null;
      const keys = await prisma.apiKey.findMany({ where: vendor ? { vendorId: vendor.id } : {}, orderBy: { createdAt: "desc" }, include: { serverOption: true } });
      print(keys.map((k) => ({ id: k.id, name: k.name, prefix: k.prefix, status: k.status, server_option: k.serverOption.name, quota: k.quotaNano === null ? null : formatUsd(k.quotaNano) })));
      return;
    }
    case "usage": {
      if (!sub) throw new ConfigError("usage: give a key id");
      print(await keyUsage(prisma, sub));
      return;
    }
    case "rebuild-redis":
      print(await rebuildRedis(services));
      return;
    case "demo-credentials": {
      if (!values.out) throw new ConfigError("demo-credentials: --out FILE is required");
      print(await demoCredentials(services, values.out));
      return;
    }
    default:
      print(HELP);
      if (command && command !== "help") process.exitCode = 2;
  }
}

const config = loadOrExit(() => loadControlPlaneConfig());
const services = createControlPlaneServices(config, createLogger({ name: "control-plane-cli", level: "warn" }));
try {
  await redisReady(services.redis);
  await run(services, process.argv.slice(2));
} catch (error) {
  if (error instanceof ConfigError || error instanceof GatewayError) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  } else {
    throw error;
  }
} finally {
  await services.close();
}
