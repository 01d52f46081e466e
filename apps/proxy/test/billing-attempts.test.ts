import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingEventSchema, type BillingEvent } from "@gateway/contracts";
import { startStack, type Stack } from "./stack.ts";

/** Contract section 20: every billing event lists its upstream attempts, in order, with their cause. */
let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  key = (await stack.mintKey()).key;
});
afterAll(async () => stack?.close());

async function billed(body: Record<string, unknown>): Promise<{ status: number; event: BillingEvent }> {
  const response = await fetch(`${stack.proxy.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await response.text();
  const requestId = response.headers.get("x-request-id")!;
  // A stream billed on an estimate is recorded once its output is counted, just after its end.
  await expect.poll(async () => (await stack.billingEvents(requestId)).length, { timeout: 5_000, interval: 50 }).toBe(1);
  const events = await stack.billingEvents(requestId);
  // What the worker reads: the schema holds it.
  billingEventSchema.parse(events[0]);
  return { status: response.status, event: events[0]! };
}

describe("a billing event's attempts", () => {
  it("a failover: the 503 and the answer, in order, each with its upstream, model, status and times", async () => {
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { failStatus: 503 } });
    const { status, event } = await billed({ model: "gpt-test", stream: true, messages: [{ role: "user", content: "fail over" }] });
    expect(status).toBe(200);
    expect(event.attempts).toEqual([
      { upstream: "sim-openai-a", upstreamModel: "gpt-upstream-a", cause: "http_5xx", status: 503, durationMs: expect.any(Number), ttfbMs: null },
      { upstream: "sim-openai-b", upstreamModel: "gpt-upstream-b", cause: "ok", status: 200, durationMs: expect.any(Number), ttfbMs: expect.any(Number) },
    ]);
    const [, answered] = event.attempts!;
    expect(answered!.ttfbMs!).toBeLessThanOrEqual(answered!.durationMs);
    expect(answered!.ttfbMs!).toBeLessThanOrEqual(event.ttfbMs!);
    expect(event.upstream).toBe("sim-openai-b");
  });

  it("a 429 then a JSON answer", async () => {
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { failStatus: 429 } });
    const { event } = await billed({ model: "gpt-test", messages: [{ role: "user", content: "rate limited" }] });
    expect(event.attempts!.map((attempt) => [attempt.upstream, attempt.cause, attempt.status])).toEqual([
      ["sim-openai-a", "http_429", 429],
      ["sim-openai-b", "ok", 200],
    ]);
  });

  it("one attempt when the first target answers; a cut stream is a stream_error", async () => {
    const { event } = await billed({ model: "gpt-test", messages: [{ role: "user", content: "plain" }] });
    expect(event.attempts).toEqual([{ upstream: "sim-openai-a", upstreamModel: "gpt-upstream-a", cause: "ok", status: 200, durationMs: expect.any(Number), ttfbMs: expect.any(Number) }]);
    const cut = await billed({ model: "gpt-test", stream: true, messages: [{ role: "user", content: "#sim:chunks=8 #sim:cut_after=3 cut me" }] });
    expect(cut.event.status).toBe("error");
    expect(cut.event.attempts!.map((attempt) => attempt.cause)).toEqual(["stream_error"]);
  });

  it("an upstream nobody listens on: connect errors, no status", async () => {
    const { status, event } = await billed({ model: "dead-test", messages: [{ role: "user", content: "anyone?" }] });
    expect(status).toBeGreaterThanOrEqual(500);
    expect(event.attempts!.length).toBeGreaterThanOrEqual(1);
    for (const attempt of event.attempts!) expect(attempt).toMatchObject({ upstream: "dead-openai", upstreamModel: "nothing", cause: "connect_error", status: null, ttfbMs: null });
  });
});
