import { describe, expect, it } from "vitest";
import { relayPattern, requestHeaders, responseHeaders } from "./api-relay-request.ts";

describe("relayPattern", () => {
  it.each([
    ["/api", "/api/*"],
    ["/api/keys", "/api/*"],
    ["/API/Keys/key_1/usage?from=2026-01-01&to=2026-02-01", "/api/*"],
    ["/api/keys/", "/api/*"],
    ["/api/keys/key%5F1", "/api/*"],
    ["/console", "/console/*"],
    ["/console/assets/app.js", "/console/*"],
    ["/webhooks/stripe", "/webhooks/*"],
    ["/Webhooks/Stripe", "/webhooks/*"],
  ])("relays %s as %s", (target, pattern) => {
    expect(relayPattern(target)).toBe(pattern);
  });

  it.each([
    "/internal/keys/x/usage",
    "/INTERNAL/keys/x/usage",
    "/%69nternal/keys/x/usage",
    "//internal/keys/x/usage",
    "/api/../internal/keys/x/usage",
    "/api/./../internal/keys/x/usage",
    "/api/%2e%2e/internal/keys/x/usage",
    "/api/%2E%2E/internal/keys/x/usage",
    "/api/.%2e/internal/keys/x/usage",
    "/api/..%2finternal/keys/x/usage",
    "/api/keys%2F..%2F..%2Finternal",
    "/api%2f..%2finternal/keys/x/usage",
    "/api//internal/keys/x/usage",
    "/api/..\\internal/keys/x/usage",
    "/api/%5c..%5cinternal",
    "/api/keys%00",
    "/api/%zz",
    "/console/../internal/keys/x/usage",
    "/apikeys",
    "/consoles",
    "/webhooks",
    "/webhooks/../internal/redeem",
    "/webhooks/%2e%2e/internal/redeem",
    "/webhooksx/stripe",
    "http://control-plane:8081/internal/keys/x/usage",
    "/api/keys?x=a b",
    "/v1/models",
    "*",
    "",
  ])("never relays %s", (target) => {
    expect(relayPattern(target)).toBeNull();
  });
});

describe("relayed headers", () => {
  it("sends the client's headers with the proxy's id and the client's address in place of its own", () => {
    const sent = requestHeaders(
      {
        host: "gateway.example",
        authorization: "Bearer vt_x",
        "content-type": "application/json",
        "content-length": "12",
        connection: "keep-alive, x-drop-me",
        "keep-alive": "timeout=5",
        "x-drop-me": "1",
        "proxy-authorization": "Basic x",
        te: "trailers",
        expect: "100-continue",
        "x-request-id": "req_chosenbyclient",
        "x-forwarded-for": "6.6.6.6",
        "x-forwarded-host": "evil.example",
        forwarded: "for=6.6.6.6",
        "x-internal-token": "guess",
        "idempotency-key": "abc",
      },
      "req_proxy1",
      "203.0.113.7",
    );
    expect(sent).toEqual({
      authorization: "Bearer vt_x",
      "content-type": "application/json",
      "content-length": "12",
      "idempotency-key": "abc",
      "x-request-id": "req_proxy1",
      "x-forwarded-for": "203.0.113.7",
    });
  });

  it("returns the control plane's headers without the connection's own", () => {
    const returned = responseHeaders({
      "content-type": "application/json; charset=utf-8",
      "content-length": "99",
      "x-request-id": "req_proxy1",
      "set-cookie": ["a=1", "b=2"],
      connection: "keep-alive",
      "keep-alive": "timeout=65",
      "transfer-encoding": "chunked",
    });
    expect(returned).toEqual({
      "content-type": "application/json; charset=utf-8",
      "content-length": "99",
      "x-request-id": "req_proxy1",
      "set-cookie": ["a=1", "b=2"],
    });
  });
});
