import { describe, expect, it } from "vitest";
import express from "express";
import { GatewayError } from "@gateway/contracts";
import { errorHandler } from "./error-handler.ts";
import { requestContext } from "./request-context.ts";
import { slowDownAuthFailures } from "./slow-auth-failures.ts";
import { createLogger } from "@gateway/logger";

describe("slowDownAuthFailures", () => {
  it("answers the first failures at once, then later and later; other errors are untouched", async () => {
    const app = express();
    app.use(requestContext);
    app.get("/auth", () => {
      throw new GatewayError("invalid_api_key", "bad key");
    });
    app.get("/other", () => {
      throw new GatewayError("invalid_body", "bad body");
    });
    app.use(slowDownAuthFailures({ freeFailures: 3, windowMs: 60_000, maxDelayMs: 400 }));
    app.use(errorHandler(createLogger({ name: "t", level: "silent" })));
    const server = app.listen(0);
    await new Promise((resolve) => server.once("listening", resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const timed = async (path: string) => {
      const started = performance.now();
      const response = await fetch(`${base}${path}`);
      await response.text();
      return { status: response.status, ms: performance.now() - started };
    };
    for (let i = 0; i < 3; i += 1) expect((await timed("/auth")).status).toBe(401);
    const fourth = await timed("/auth");
    const fifth = await timed("/auth");
    const capped = [await timed("/auth"), await timed("/auth")];
    const other = await timed("/other");
    server.close();
    expect(fourth).toMatchObject({ status: 401 });
    expect(fourth.ms).toBeGreaterThanOrEqual(95);
    expect(fifth.ms).toBeGreaterThanOrEqual(195);
    expect(capped.every((call) => call.ms >= 395)).toBe(true);
    expect(other.status).toBe(400);
  });
});
