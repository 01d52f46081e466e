// Test fixture of the vendor API: a migrated throwaway database, a random Redis prefix, the gateway
// file below applied, the control plane on an ephemeral port, and tokens for two vendors.
import { randomBytes } from "node:crypto";
import { parseGatewayFile } from "@gateway/config";
import { createTestDatabase, resolveTestServices } from "@gateway/testing";
import { loadControlPlaneConfig } from "../config.ts";
import { applyGatewayFile } from "../config-file/apply-gateway-file.ts";
import { mintKey } from "../keys/key-service.ts";
import { startControlPlane, type RunningControlPlane } from "../server.ts";
import { createVendorToken, revokeVendorToken, VENDOR_SCOPES, type VendorScope } from "../vendors/vendor-tokens.ts";

export const GATEWAY_YAML = `
upstreams:
  - name: simulator
    shape: openai
    base_url: http://127.0.0.1:9/v1
models:
  - name: gpt-small
    prices: { input: "0.15", output: "0.60", image: "0.04" }
    targets: [{ upstream: simulator, model: sim-small }]
  - name: claude-large
    prices: { input: "3", output: "15", cached_input: "0.30" }
    targets: [{ upstream: simulator, model: sim-large }]
server_options:
  - name: standard
    description: Everyday models
    models: [gpt-small, claude-large]
    rate_limits: { rpm: 600, tpm: 200000 }
  - name: premium
    models: [claude-large]
    price_multiplier: "1.5"
    # Every field but cached_input given: the parser currently fills omitted override fields with "0".
    prices: { claude-large: { input: "4", output: "20", image: "0" } }
  - name: economy
    models: [gpt-small]
  - name: globex-only
    description: Assigned to globex alone
    models: [gpt-small]
vendors:
  - name: acme
    server_options: [standard, premium, economy]
  - name: globex
    server_options: [standard, globex-only]
`;

export interface ApiResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  body: any;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface VendorApiFixture {
  control: RunningControlPlane;
  /** acme: one token per scope, one with every scope, one with none, one revoked. */
  acme: Record<VendorScope | "all" | "none" | "revoked", string>;
  /** globex: a token with every scope. */
  globex: string;
  /** A real `sk-` key of acme, to show keys are refused on /api. */
  apiKey: string;
  call(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  close(): Promise<void>;
}

export async function startVendorApiFixture(): Promise<VendorApiFixture> {
  const [database, services] = await Promise.all([createTestDatabase(), resolveTestServices()]);
  const prefix = `test-vendor-api-${randomBytes(6).toString("hex")}`;
  const config = loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: services.redisUrl, REDIS_PREFIX: prefix, PORT: "0", LOG_LEVEL: "silent", AUTH_FREE_FAILURES: "1000000" });
  const control = await startControlPlane(config);
  const { prisma } = control.services.db;
  await applyGatewayFile(prisma, control.services.records, parseGatewayFile(GATEWAY_YAML));
  const token = async (vendor: string, scopes: readonly string[]) => (await createVendorToken(prisma, { vendor, name: "test", scopes })).plaintext;
  const revoked = await createVendorToken(prisma, { vendor: "acme", name: "revoked", scopes: VENDOR_SCOPES });
  await revokeVendorToken(prisma, revoked.row.id);
  const acme = {
    all: await token("acme", VENDOR_SCOPES),
    none: await token("acme", []),
    revoked: revoked.plaintext,
    ...Object.fromEntries(await Promise.all(VENDOR_SCOPES.map(async (scope) => [scope, await token("acme", [scope])] as const))),
  } as VendorApiFixture["acme"];
  const minted = await mintKey(prisma, control.services.records, {
    vendorId: revoked.row.vendorId, serverOption: "standard", name: "fixture", quotaNano: null, expiresAt: null, rpm: null, tpm: null, metadata: {},
  });
  return {
    control,
    acme,
    globex: await token("globex", VENDOR_SCOPES),
    apiKey: minted.plaintext,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token !== null) headers.authorization = `Bearer ${options.token ?? acme.all}`;
      if (options.body !== undefined) headers["content-type"] ??= "application/json";
      const body = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      const response = await fetch(`${control.url}${path}`, { method, headers, body });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
    },
    async close() {
      const redis = control.services.redis;
      const keys = await redis.keys(`${prefix}:*`).catch(() => []);
      if (keys.length > 0) await redis.del(...keys).catch(() => {});
      await control.close();
      await database.drop();
    },
  };
}
