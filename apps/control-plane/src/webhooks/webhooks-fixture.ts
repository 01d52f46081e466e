// Test fixture of webhooks: control planes sharing one throwaway database (the vendor API fixture's
// gateway file), tokens of two vendors, and a local receiver whose answers a test scripts.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseGatewayFile } from "@gateway/config";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { loadControlPlaneConfig } from "../config.ts";
import { applyGatewayFile } from "../config-file/apply-gateway-file.ts";
import { startControlPlane, type RunningControlPlane } from "../server.ts";
import { GATEWAY_YAML } from "../routes/vendor-api-fixture.ts";
import { createVendorToken, VENDOR_SCOPES } from "../vendors/vendor-tokens.ts";

export interface WebhookFixture {
  database: TestDatabase;
  planes: RunningControlPlane[];
  acme: string;
  globex: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  call(method: string, path: string, options?: { token?: string; body?: unknown; plane?: number }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startWebhookFixture(options: { planes?: number; env?: Record<string, string> } = {}): Promise<WebhookFixture> {
  const [database, services] = await Promise.all([createTestDatabase(), resolveTestServices()]);
  const prefix = `test-webhooks-${randomBytes(6).toString("hex")}`;
  const env = { DATABASE_URL: database.url, REDIS_URL: services.redisUrl, REDIS_PREFIX: prefix, PORT: "0", LOG_LEVEL: "silent", AUTH_FREE_FAILURES: "1000000", ...options.env };
  const planes: RunningControlPlane[] = [];
  for (let index = 0; index < (options.planes ?? 1); index += 1) planes.push(await startControlPlane(loadControlPlaneConfig(env)));
  const { prisma } = planes[0]!.services.db;
  await applyGatewayFile(prisma, planes[0]!.services.records, parseGatewayFile(GATEWAY_YAML));
  const token = async (vendor: string) => (await createVendorToken(prisma, { vendor, name: "test", scopes: VENDOR_SCOPES })).plaintext;
  const acme = await token("acme");
  const globex = await token("globex");
  return {
    database,
    planes,
    acme,
    globex,
    async call(method, path, callOptions = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${callOptions.token ?? acme}` };
      if (callOptions.body !== undefined) headers["content-type"] = "application/json";
      const response = await fetch(`${planes[callOptions.plane ?? 0]!.url}${path}`, {
        method,
        headers,
        body: callOptions.body === undefined ? undefined : JSON.stringify(callOptions.body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    async close() {
      const redis = planes[0]!.services.redis;
      const keys = await redis.keys(`${prefix}:*`).catch(() => []);
      if (keys.length > 0) await redis.del(...keys).catch(() => {});
      for (const plane of planes) await plane.close();
      await database.drop();
    },
  };
}

export interface ReceivedCall {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A local webhook receiver: `answer` decides each call's fate (a status, or "hang" for no answer). */
export interface Receiver {
  url: string;
  calls: ReceivedCall[];
  close(): Promise<void>;
}

export async function startReceiver(answer: (call: ReceivedCall, index: number) => number | "hang"): Promise<Receiver> {
  const calls: ReceivedCall[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const call = { headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      calls.push(call);
      const fate = answer(call, calls.length - 1);
      if (fate === "hang") hanging.push(response);
      else response.writeHead(fate, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    calls,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
