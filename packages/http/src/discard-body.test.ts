import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { discardBody } from "./discard-body.ts";

let server: Server | null = null;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/**
 * A server that refuses every request at once (401) and drops its body, up to 1,000 bytes; each
 * request's end is reported: whether its whole body came (`complete`) or it was cut.
 */
async function refusingServer(ended: (complete: boolean) => void): Promise<string> {
  server = createServer((request, response) => {
    discardBody(request, 1_000, 60_000);
    request.once("close", () => ended(request.complete));
    response.writeHead(401, { "content-type": "text/plain" });
    response.end("no");
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

/** Sends `bytes` of body in 100-byte chunks; resolves with the status, or null when the upload was cut first. */
function upload(base: string, bytes: number): Promise<number | null> {
  return new Promise((resolve) => {
    const request = httpRequest(`${base}/`, { method: "POST", headers: { "content-length": String(bytes) } }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? null));
    });
    request.on("error", () => resolve(null));
    for (let sent = 0; sent < bytes; sent += 100) request.write(Buffer.alloc(Math.min(100, bytes - sent), "a"));
    request.end();
  });
}

describe("discardBody", () => {
  it("drops a refused body up to its bound and keeps the connection for the next request", async () => {
    const ends: boolean[] = [];
    const base = await refusingServer((complete) => ends.push(complete));
    let connections = 0;
    server!.on("connection", () => (connections += 1));
    expect([await upload(base, 900), await upload(base, 900)]).toEqual([401, 401]);
    expect(connections).toBe(1);
  });

  it("cuts a client that keeps sending past the bound", async () => {
    let ended: (complete: boolean) => void = () => undefined;
    const end = new Promise<boolean>((resolve) => (ended = resolve));
    const base = await refusingServer(ended);
    void upload(base, 5_000_000);
    expect(await end).toBe(false);
  });
});
