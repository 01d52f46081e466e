// A bounded soak on loopback (issue 17): steady valid traffic in both shapes, streamed and not,
// same-shape and translated, mixed with a share of hostile requests from other clients. Nothing a
// client sends may count against an upstream: no circuit opens, every valid request succeeds,
// every hostile one is refused with a 4xx envelope.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "./stack.ts";

let stack: Stack;
beforeAll(async () => {
  // A low threshold: three counted failures would open a circuit for every tenant.
  stack = await startStack({ CIRCUIT_FAILURE_THRESHOLD: "3", BODY_LIMIT_BYTES: "262144" });
});
afterAll(async () => stack?.close());

const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** Hostile bodies (raw text, so they can be what JSON.stringify would never produce). */
function hostileBodies(model: string): string[] {
  return [
    `{"model":"${model}","messages":[{"role":"user","content":"hi"}],"tools":[${deep(3000)}]}`,
    `{"model":"${model}","messages":[{"role":"user","content":${deep(500)}}]}`,
    `{"model":"${model}","messages":[{"role":"user","content":"hi"}],"max_tokens":1e309}`,
    `{"model":"${model}","messages":[{"role":"user","content":"\\u0000\\ud800"}],"max_tokens":-1}`,
    `{"model":"${model}","messages":[]}`,
    `{"model":"${model}","messages":[{"role":"user","content":12}]}`,
    `{"model":"${model}","messages":"hi","stream":"yes"}`,
    `{"model":"${model}",`,
    `[[[[[[[[`,
    `{"model":"${model}","messages":[{"role":"user","content":"${"x".repeat(300_000)}"}]}`,
  ];
}

interface Outcome {
  valid: boolean;
  status: number;
  complete: boolean;
  envelope: boolean;
}

describe("hostile requests mixed into steady traffic", () => {
  it("open no circuit and fail no valid request", async () => {
    const { key } = await stack.mintKey({ serverOption: "cross-shape" });
    // A server option without rate limits: only faults may refuse a valid request here.
    const { key: standardKey } = await stack.mintKey({ serverOption: "same-name" });
    const outcomes: Outcome[] = [];
    let openSeen: string[] = [];
    const until = Date.now() + 6_000;

    const valid = async (lane: number) => {
      const routes = [
        { path: "/v1/chat/completions", key: standardKey, body: (stream: boolean) => ({ model: "gpt-test", stream, max_tokens: 16, messages: [{ role: "user", content: `lane ${lane}` }] }) },
        { path: "/v1/messages", key: standardKey, body: (stream: boolean) => ({ model: "claude-same-name", stream, max_tokens: 16, messages: [{ role: "user", content: `lane ${lane}` }] }) },
        { path: "/v1/chat/completions", key, body: (stream: boolean) => ({ model: "claude-on-openai", stream, max_tokens: 16, messages: [{ role: "user", content: `lane ${lane}` }] }) },
        { path: "/v1/messages", key, body: (stream: boolean) => ({ model: "gpt-on-anthropic", stream, max_tokens: 16, messages: [{ role: "user", content: `lane ${lane}` }] }) },
      ];
      for (let n = 0; Date.now() < until; n += 1) {
        const route = routes[(lane + n) % routes.length]!;
        const stream = n % 2 === 1;
        const response = await fetch(`${stack.proxy.url}${route.path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${route.key}`, "content-type": "application/json", "anthropic-version": "2023-06-01" },
          body: JSON.stringify(route.body(stream)),
        });
        const text = await response.text();
        const complete = response.status === 200 && (!stream || ((text.includes("data: [DONE]") || text.includes("message_stop")) && !text.includes('"error"')));
        outcomes.push({ valid: true, status: response.status, complete, envelope: true });
      }
    };

    const hostile = async (lane: number) => {
      const models = ["gpt-test", "claude-on-openai", "gpt-on-anthropic", "claude-same-name"];
      for (let n = 0; Date.now() < until; n += 1) {
        const model = models[(lane + n) % models.length]!;
        const bodies = hostileBodies(model);
        const path = n % 2 === 0 ? "/v1/chat/completions" : "/v1/messages";
        const response = await fetch(`${stack.proxy.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${model === "gpt-test" || model === "claude-same-name" ? standardKey : key}`, "content-type": "application/json", "anthropic-version": "2023-06-01" },
          body: bodies[n % bodies.length],
        });
        const body = (await response.json().catch(() => null)) as { type?: string; request_id?: string } | null;
        outcomes.push({ valid: false, status: response.status, complete: false, envelope: body?.type === "error" && body.request_id === response.headers.get("x-request-id") });
        const open = stack.proxy.services.breaker.openUpstreams();
        if (open.length > 0) openSeen = open;
      }
    };

    await Promise.all([valid(0), valid(1), valid(2), valid(3), hostile(0), hostile(1), hostile(2)]);
    const validOutcomes = outcomes.filter((outcome) => outcome.valid);
    const hostileOutcomes = outcomes.filter((outcome) => !outcome.valid);
    console.info(`hostile soak: ${validOutcomes.length} valid, ${hostileOutcomes.length} hostile requests in 6 s`);
    expect(validOutcomes.length).toBeGreaterThan(40);
    expect(hostileOutcomes.length).toBeGreaterThan(40);
    expect(openSeen).toEqual([]);
    expect(stack.proxy.services.breaker.openUpstreams()).toEqual([]);
    expect(validOutcomes.filter((outcome) => outcome.status !== 200 || !outcome.complete)).toEqual([]);
    expect(hostileOutcomes.filter((outcome) => outcome.status < 400 || outcome.status >= 500 || !outcome.envelope)).toEqual([]);
  }, 30_000);
});
