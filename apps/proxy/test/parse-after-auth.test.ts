// Bodies are read only after the credential is accepted (contract section 14): an unauthenticated
// 10 MB body costs no parse (counted, not timed), and a client that keeps sending after its 401 is
// cut instead of holding the socket.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Counter } from "@gateway/metrics";
import { startStack, type Stack } from "./stack.ts";
import { call, expectEnvelope } from "./raw-http.ts";
import { RawSocket, requestHead } from "./raw-socket.ts";

const BODY_ROUTES = ["/v1/chat/completions", "/v1/messages", "/v1/responses", "/v1/images/generations", "/v1/messages/count_tokens", "/v1/embeddings", "/v1/redeem"];
/** 10 MB of valid JSON, under the default 10 MiB body limit: a body the proxy would parse. */
const TEN_MB = JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "x".repeat(10_000_000 - 64) }] });

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack({ AUTH_FREE_FAILURES: "100000" });
  ({ key } = await stack.mintKey());
});
afterAll(async () => stack?.close());

async function parses(): Promise<number> {
  const counter = stack.proxy.services.registry.getSingleMetric("gateway_request_body_parses_total") as Counter;
  return (await counter.get()).values[0]?.value ?? 0;
}

describe("a body sent without an accepted key", () => {
  it("is never parsed: 401 on every body route, with zero parses", async () => {
    expect(TEN_MB.length).toBeGreaterThan(9_999_000);
    const before = await parses();
    const credentials: Record<string, string>[] = [{}, { authorization: "Bearer sk-not-a-key-of-this-gateway" }, { "x-api-key": "not-even-a-key" }];
    for (const path of BODY_ROUTES) {
      for (const credential of credentials) {
        const answer = await call(stack.proxy.url, "POST", path, { headers: { "content-type": "application/json", ...credential }, body: TEN_MB });
        expectEnvelope(answer, 401, "authentication_error", "invalid_api_key");
      }
    }
    expect(await parses()).toBe(before);
    // The counter counts: the same body with the key is parsed, once.
    const accepted = await call(stack.proxy.url, "POST", "/v1/chat/completions", { headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }) });
    expect(accepted.status).toBe(200);
    expect(await parses()).toBe(before + 1);
  });

  it("is dropped up to the body limit, and a client still sending past it is cut", async () => {
    const limit = stack.proxy.services.config.BODY_LIMIT_BYTES;
    const raw = await RawSocket.open(stack.proxy.url);
    await raw.write(requestHead("POST", "/v1/chat/completions", { "content-type": "application/json", "transfer-encoding": "chunked" }));
    const chunk = Buffer.alloc(64 * 1024, "a");
    const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
    let sent = 0;
    // An endless body: only the server can end this loop (the bound stops a broken server).
    while (sent < 4 * limit && (await raw.write(framed))) sent += chunk.length;
    await raw.closed;
    expect(raw.status()).toBe(401);
    expect(sent).toBeLessThan(4 * limit);
    expect((await call(stack.proxy.url, "GET", "/v1/models", { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });
});
