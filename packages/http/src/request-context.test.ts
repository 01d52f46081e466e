import { afterEach, describe, expect, it } from "vitest";
import express from "express";
import type { Server } from "node:http";
import { GatewayError } from "@gateway/contracts";
import { createLogger } from "@gateway/logger";
import { errorHandler } from "./error-handler.ts";
import { forwardedRequestId, requestContext } from "./request-context.ts";
import { slowDownAuthFailures } from "./slow-auth-failures.ts";

let server: Server | undefined;
afterEach(() => void server?.close());

/** An app that fails auth on every request, behind `trust proxy` = `trust`. */
async function start(trust: string | boolean, freeFailures = 1000): Promise<string> {
  const app = express();
  app.set("trust proxy", trust);
  app.use(requestContext);
  app.get("/auth", () => {
    throw new GatewayError("invalid_vendor_token", "bad token");
  });
  app.use(slowDownAuthFailures({ freeFailures, windowMs: 60_000, maxDelayMs: 300 }));
  app.use(errorHandler(createLogger({ name: "t", level: "silent" })));
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server!.once("listening", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function ask(base: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await fetch(`${base}/auth`, { headers });
  const body = (await response.json()) as { request_id: string };
  return { header: response.headers.get("x-request-id"), body: body.request_id, ms: performance.now() - started };
}

describe("forwardedRequestId", () => {
  it("takes a well-formed id and refuses junk", () => {
    expect(forwardedRequestId("req_0123abcdEF_-")).toBe("req_0123abcdEF_-");
    for (const junk of ["req_", "key_abc", "req_<script>", "req_a b", `req_${"a".repeat(65)}`, "req_abc\n"]) {
      expect(forwardedRequestId(junk)).toBeNull();
    }
    expect(forwardedRequestId(["req_a", "req_b"])).toBeNull();
    expect(forwardedRequestId(undefined)).toBeNull();
  });
});

describe("requestContext", () => {
  it("keeps a trusted proxy's x-request-id in the header and the envelope", async () => {
    const base = await start("loopback");
    const answer = await ask(base, { "x-request-id": "req_fromtheproxy1" });
    expect([answer.header, answer.body]).toEqual(["req_fromtheproxy1", "req_fromtheproxy1"]);
    const junk = await ask(base, { "x-request-id": `req_${"x".repeat(200)}` });
    expect(junk.header).toMatch(/^req_[0-9a-f]{32}$/);
    expect(junk.body).toBe(junk.header);
  });

  it("gives its own id to a request from a peer it does not trust", async () => {
    const base = await start(false);
    const answer = await ask(base, { "x-request-id": "req_fromtheclient1" });
    expect(answer.header).toMatch(/^req_[0-9a-f]{32}$/);
    expect(answer.body).toBe(answer.header);
  });
});

describe("auth failures behind a proxy", () => {
  it("counts per x-forwarded-for address from a trusted proxy", async () => {
    const base = await start("loopback", 1);
    await ask(base, { "x-forwarded-for": "203.0.113.1" });
    expect((await ask(base, { "x-forwarded-for": "203.0.113.1" })).ms).toBeGreaterThanOrEqual(95);
    expect((await ask(base, { "x-forwarded-for": "203.0.113.2" })).ms).toBeLessThan(95);
  });

  it("ignores x-forwarded-for from anyone else: a client cannot pick a fresh address", async () => {
    const base = await start(false, 1);
    await ask(base, { "x-forwarded-for": "203.0.113.1" });
    expect((await ask(base, { "x-forwarded-for": "203.0.113.2" })).ms).toBeGreaterThanOrEqual(95);
  });
});
