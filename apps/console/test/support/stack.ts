// The whole gateway for the console's tests, as it runs for a vendor: simulator, control plane and
// billing worker in this process, the proxy as a real process (the address the browser opens),
// with a throwaway database and a random Redis prefix.
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, freePort, resolveTestServices, startAppProcess, type AppProcess, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createVendorToken, loadControlPlaneConfig, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadBillingWorkerConfig, startBillingWorker, type RunningBillingWorker } from "@gateway/billing-worker";
import { consoleGatewayYaml } from "./gateway-file.ts";
import { createHmac } from "node:crypto";
import { startFakeStripeApi, type FakeStripeApi } from "../../../control-plane/src/wallet/fake-stripe-api.ts";

const STRIPE_WEBHOOK_SECRET = "whsec_console_test";
const PROXY_MAIN = fileURLToPath(new URL("../../../proxy/src/main.ts", import.meta.url));
const SIMULATOR_SECRET = "console-sim-secret-0123456789";
const ALL_SCOPES = ["keys:create", "keys:read", "keys:update", "keys:revoke", "usage:read", "upstreams:read"];
/** Contract section 19's scopes, given to the full token once the control plane knows them. */
const BUSINESS_SCOPES = ["customers:read", "customers:write", "plans:write", "webhooks:write"];

export interface ConsoleStack {
  /** The gateway's one address: /v1, /api and /console. */
  url: string;
  /** A vendor token with every scope, one with only usage:read, one with keys:read and keys:update. */
  tokens: { full: string; usageOnly: string; editor: string };
  /** Revokes the usage:read token, as the operator CLI would. */
  revokeUsageOnlyToken(): Promise<void>;
  /** Changes the editor token's scopes server-side, as an operator could mid-session. */
  setEditorScopes(scopes: string[]): Promise<void>;
  /** A vendor API call with the full token, as the test's own check of what the page shows. */
  api<Body = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }>;
  /** One chat completion (gpt-test unless `model` says otherwise; `content` may carry `#sim:` directives). */
  chat(key: string, options?: { model?: string; content?: string }): Promise<{ status: number; requestId: string | null; code: string | null }>;
  /** Writes a proxy process's upstream-health report (`{prefix}:upstream-health`) as a proxy publishes it. */
  publishUpstreamHealth(processId: string, report: { at: number; upstreams: Record<string, unknown> }): Promise<void>;
  /** The local fake of Stripe's API the control plane's SDK calls. */
  stripe: FakeStripeApi;
  /** Posts `event` to /webhooks/stripe on the one address, signed as Stripe signs it: the status. */
  stripeWebhook(event: unknown): Promise<number>;
  close(): Promise<void>;
}

export async function startConsoleStack(): Promise<ConsoleStack> {
  const silent = createLogger({ name: "console-test", level: "silent" });
  const { redisUrl } = await resolveTestServices();
  const prefix = `console-${randomUUID().slice(0, 8)}`;
  process.env.CONSOLE_TEST_SIMULATOR_KEY = SIMULATOR_SECRET;
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  try {
    const database: TestDatabase = await createTestDatabase();
    closers.push(() => database.drop());
    const simulator: Simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
    closers.push(() => simulator.close());
    const stripe: FakeStripeApi = await startFakeStripeApi();
    closers.push(() => stripe.close());
    // Webhook receivers of the tests listen on 127.0.0.1; Stripe is the local fake (contract section 19).
    // A failed webhook delivery is retried within a second here (10 s by default), so a test can watch a retry.
    const business = { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE_MS: "300", WEBHOOK_RETRY_MAX_MS: "1000", WEBHOOK_POLL_INTERVAL_MS: "100", STRIPE_SECRET_KEY: "sk_test_console", STRIPE_WEBHOOK_SECRET, STRIPE_API_BASE: stripe.url };
    Object.assign(process.env, business);
    const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", DB_POOL_SIZE: "4", AUTH_FREE_FAILURES: "100000", ...business };
    const controlPlane: RunningControlPlane = await startControlPlane(loadControlPlaneConfig(env), silent);
    closers.push(async () => {
      const keys = await controlPlane.services.redis.keys(`${prefix}:*`);
      if (keys.length > 0) await controlPlane.services.redis.del(...keys);
      await controlPlane.close();
    });
    const prisma = controlPlane.services.db.prisma;
    await applyGatewayFile(prisma, controlPlane.services.records, parseGatewayFile(consoleGatewayYaml(simulator.url)));
    const worker: RunningBillingWorker = await startBillingWorker(loadBillingWorkerConfig(env), silent);
    closers.push(() => worker.close());
    const proxy: AppProcess = await startAppProcess({
      name: "proxy",
      script: PROXY_MAIN,
      port: await freePort(),
      env: { REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: controlPlane.url, CONSOLE_TEST_SIMULATOR_KEY: SIMULATOR_SECRET, AUTH_FREE_FAILURES: "100000" },
    });
    closers.push(() => proxy.stop());

    const full = (
      await createVendorToken(prisma, { vendor: "console-vendor", name: "console e2e", scopes: [...ALL_SCOPES, ...BUSINESS_SCOPES] }).catch(() =>
        createVendorToken(prisma, { vendor: "console-vendor", name: "console e2e", scopes: ALL_SCOPES }),
      )
    ).plaintext;
    const usageOnly = await createVendorToken(prisma, { vendor: "console-vendor", name: "console e2e usage", scopes: ["usage:read"] });
    const editor = await createVendorToken(prisma, { vendor: "console-vendor", name: "console e2e editor", scopes: ["keys:read", "keys:update"] });

    return {
      url: proxy.url,
      tokens: { full, usageOnly: usageOnly.plaintext, editor: editor.plaintext },
      async revokeUsageOnlyToken() {
        await prisma.vendorToken.update({ where: { id: usageOnly.row.id }, data: { revokedAt: new Date() } });
      },
      async setEditorScopes(scopes: string[]) {
        await prisma.vendorToken.update({ where: { id: editor.row.id }, data: { scopes } });
      },
      async api<Body>(method: string, path: string, body?: unknown) {
        const response = await fetch(`${proxy.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${full}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as Body };
      },
      async chat(key: string, options = {}) {
        const response = await fetch(`${proxy.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: options.model ?? "gpt-test", max_tokens: 16, messages: [{ role: "user", content: options.content ?? "Hello from the console test" }] }),
        });
        const body = (await response.json()) as { error?: { code?: string | null } };
        return { status: response.status, requestId: response.headers.get("x-request-id"), code: body.error?.code ?? null };
      },
      stripe,
      async stripeWebhook(event: unknown) {
        const payload = JSON.stringify(event);
        const at = Math.floor(Date.now() / 1000);
        const signature = createHmac("sha256", STRIPE_WEBHOOK_SECRET).update(`${at}.${payload}`).digest("hex");
        const response = await fetch(`${proxy.url}/webhooks/stripe`, {
          method: "POST",
          headers: { "content-type": "application/json", "stripe-signature": `t=${at},v1=${signature}` },
          body: payload,
        });
        await response.arrayBuffer();
        return response.status;
      },
      async publishUpstreamHealth(processId, report) {
        await controlPlane.services.redis.hset(`${prefix}:upstream-health`, processId, JSON.stringify(report));
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
