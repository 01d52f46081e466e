import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorHandler, notFoundHandler, requestContext } from "@gateway/http";
import { createLogger } from "@gateway/logger";
import { consoleRouter } from "./console.ts";

interface Envelope {
  type: string;
  error: { code: string; message: string };
}

const envelope = async (response: Response) => (await response.json()) as Envelope;

let directory: string;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "console-dist-"));
  const built = join(directory, "built");
  await mkdir(join(built, "assets"), { recursive: true });
  await writeFile(join(built, "index.html"), '<!doctype html><script type="module" src="/console/assets/app-abc123.js"></script>');
  await writeFile(join(built, "assets", "app-abc123.js"), "console.log(1)");
  await writeFile(join(built, "favicon.svg"), "<svg/>");
  const app = express();
  app.use(requestContext);
  app.use("/console", consoleRouter({ distDir: built }));
  app.use("/missing", consoleRouter({ distDir: join(directory, "nothing-here") }));
  app.use(notFoundHandler);
  app.use(errorHandler(createLogger({ name: "test", level: "silent" })));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});

afterAll(async () => {
  await close?.();
  await rm(directory, { recursive: true, force: true });
});

describe("GET /console", () => {
  it("serves index.html uncached, with a strict CSP, at the root and at deep links", async () => {
    for (const path of ["/console", "/console/", "/console/usage", "/console/keys/key_1"]) {
      const response = await fetch(`${url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-inline");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      expect(await response.text()).toContain("app-abc123.js");
    }
  });

  it("serves hashed assets for a year and other files briefly", async () => {
    const asset = await fetch(`${url}/console/assets/app-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-type")).toMatch(/javascript/);
    const icon = await fetch(`${url}/console/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("cache-control")).toBe("public, max-age=3600");
  });

  it("answers a missing file with a 404 envelope, not the app", async () => {
    for (const path of ["/console/assets/gone.js", "/console/robots.txt"]) {
      const response = await fetch(`${url}${path}`);
      expect(response.status, path).toBe(404);
      expect((await envelope(response)).error.code).toBe("not_found");
    }
  });

  it("leaves other methods to the 404 route", async () => {
    const response = await fetch(`${url}/console/`, { method: "POST" });
    expect(response.status).toBe(404);
    expect((await envelope(response)).error.code).toBe("route_not_found");
  });

  it("says the console is not built when dist is missing (503 envelope)", async () => {
    for (const path of ["/missing", "/missing/usage", "/missing/assets/app.js"]) {
      const response = await fetch(`${url}${path}`);
      expect(response.status, path).toBe(503);
      const body = await envelope(response);
      expect(body.type).toBe("error");
      expect(body.error.message).toContain("console is not built");
    }
  });
});
