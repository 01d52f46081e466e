import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger } from "@gateway/logger";
import { resolveTestServices } from "@gateway/testing";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";
import { bearer, call, expectEnvelope } from "./raw-http.ts";

// The vendor API through the proxy when the control plane connects but never answers (a hang),
// or drops the connection before its response head (a reset). (A stopped control plane is in
// api-relay.test.ts, beside /v1 still serving.)
let silentServer: Server;
let proxy: RunningProxy;
const sockets: Socket[] = [];

beforeAll(async () => {
  silentServer = createServer((socket) => {
    sockets.push(socket);
    socket.on("data", (data) => {
      if (data.toString().includes("/api/reset")) socket.destroy();
    });
  });
  await new Promise<void>((resolve) => silentServer.listen(0, "127.0.0.1", resolve));
  const { port } = silentServer.address() as { port: number };
  const { redisUrl } = await resolveTestServices();
  const config = loadProxyConfig({
    PORT: "0",
    METRICS_PORT: "0",
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `test-${randomUUID().slice(0, 8)}`,
    CONTROL_PLANE_URL: `http://127.0.0.1:${port}`,
    CONTROL_PLANE_TIMEOUT_MS: "1000",
  });
  proxy = await startProxy(config, createLogger({ name: "test", level: "silent" }));
});

afterAll(async () => {
  await proxy?.close();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silentServer?.close(resolve));
});

describe("a control plane that hangs or resets", () => {
  it("answers 503 overloaded_error with retry-after", async () => {
    for (const path of ["/api/keys", "/api/reset"]) {
      const answer = await call(proxy.url, "GET", path, { headers: bearer("vt_any") });
      expectEnvelope(answer, 503, "overloaded_error", "control_plane_unavailable");
      expect(answer.headers["retry-after"]).toBe("2");
    }
  });

  it("stops the control plane's request when the client leaves", async () => {
    const before = sockets.length;
    const { port } = new URL(proxy.url);
    const request = httpRequest({ hostname: "127.0.0.1", port, path: "/api/keys", headers: bearer("vt_any") });
    request.on("error", () => undefined);
    request.end();
    await vi.waitFor(() => expect(sockets.length).toBeGreaterThan(before));
    const socket = sockets.at(-1)!;
    request.destroy();
    // Well before the 1 s timeout would close it.
    await vi.waitFor(() => expect(socket.destroyed).toBe(true), { timeout: 500 });
  });
});
