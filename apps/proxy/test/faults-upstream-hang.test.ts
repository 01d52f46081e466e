// An upstream that hangs (issue 8): before the first byte (a stream's first_byte_ms, a JSON call's
// response_ms) the attempt times out and the next target serves, streaming included, never the
// same target again; when every target hangs the client gets a 504 `upstream_timeout` envelope; a
// stream that stalls after its first byte ends with the shape's error event.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { startStack, type Stack } from "./stack.ts";

let stack: Stack;
let key: string;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  // First-byte timeouts come from the test gateway file (1.5 s); a short idle limit inside streams.
  stack = await startStack({ STREAM_IDLE_TIMEOUT_MS: "600" });
  key = (await stack.mintKey()).key;
  openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
});
afterAll(async () => stack?.close());
beforeEach(() => {
  stack.simulator.faults.clear();
  stack.simulator.stats.clear();
});

/** What the simulator saw for one gateway request (the proxy forwards its request id). */
const upstreamCalls = (requestId: string) => stack.simulator.stats.requests.filter((record) => record.headers["x-request-id"] === requestId);

describe("a target that hangs before its first byte", () => {
  it("chat streaming: the attempt times out and the next target serves the whole stream, billed once", async () => {
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { hang: true } });
    const { data: stream, response } = await openai.chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let content = "";
    let finishReason: string | null = null;
    let outputTokens: number | null = null;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? "";
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
      outputTokens = chunk.usage?.completion_tokens ?? outputTokens;
    }
    expect(content).toBeTruthy();
    expect(finishReason).toBe("stop");
    const requestId = response.headers.get("x-request-id")!;
    expect(upstreamCalls(requestId).map((record) => [record.model, record.outcome])).toEqual([["gpt-upstream-a", "hang"], ["gpt-upstream-b", "ok"]]);
    const events = await stack.billingEvents(requestId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ status: "ok", estimated: false, upstream: "sim-openai-b", usage: { outputTokens } });
  });

  it("messages streaming: the anthropic SDK gets the whole message from the second target", async () => {
    stack.simulator.faults.push({ match: { model: "claude-upstream-a" }, times: 1, behaviour: { hang: true } });
    const message = await anthropic.messages.stream({ model: "claude-test", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(message.content[0]).toMatchObject({ type: "text" });
    expect(message.stop_reason).toBe("end_turn");
    expect(stack.simulator.stats.requests.map((record) => [record.model, record.outcome])).toEqual([["claude-upstream-a", "hang"], ["claude-upstream-b", "ok"]]);
  });
});

describe("every target hangs", () => {
  it("gives 504 upstream_timeout in the envelope, streaming or not, after one attempt per target and no SDK retries", async () => {
    const hang = [{ role: "user" as const, content: "#sim:hang please" }];
    const retrying = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 2 });
    const [streamed, sdkError] = await Promise.all([
      fetch(`${stack.proxy.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-test", messages: hang, stream: true }),
      }),
      retrying.chat.completions.create({ model: "gpt-test", messages: hang }).catch((error: unknown) => error),
    ]);

    expect(streamed.status).toBe(504);
    expect(streamed.headers.get("content-type")).toMatch(/application\/json/);
    expect(streamed.headers.get("x-should-retry")).toBe("false");
    const body = (await streamed.json()) as { request_id: string };
    expect(body).toEqual({
      type: "error",
      error: { type: "api_error", code: "upstream_timeout", message: expect.stringMatching(/timed out/), param: null },
      request_id: streamed.headers.get("x-request-id"),
    });

    expect(sdkError).toBeInstanceOf(OpenAI.APIError);
    expect(sdkError).toMatchObject({ status: 504, code: "upstream_timeout", type: "api_error" });
    const sdkRequestId = (sdkError as InstanceType<typeof OpenAI.APIError>).requestID!;

    for (const requestId of [body.request_id, sdkRequestId]) {
      // Both targets tried in order, each once: a timed-out target is never tried again (contract
      // section 14), though MAX_ATTEMPTS (3) would allow a third try; the SDK made no retry of its own.
      expect(stack.proxy.services.config.MAX_ATTEMPTS).toBeGreaterThan(2);
      expect(upstreamCalls(requestId).map((record) => [record.model, record.outcome])).toEqual([["gpt-upstream-a", "hang"], ["gpt-upstream-b", "hang"]]);
      const events = await stack.billingEvents(requestId);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ status: "error", usage: { inputTokens: 0, outputTokens: 0 } });
    }
    expect(stack.simulator.stats.requests).toHaveLength(4);
  });
});

describe("a stream that stalls after its first byte", () => {
  it("ends with the chat shape's error event at the idle limit; no failover; billed as an error", async () => {
    const response = await fetch(`${stack.proxy.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      // The role chunk goes out at once, then the first word waits 10 s: past the 600 ms idle limit.
      body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "#sim:chunks=3 #sim:chunk_delay_ms=10000 stall" }], stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const text = await response.text();
    const lastData = text.trim().split("\n\n").at(-1)!;
    expect(JSON.parse(lastData.replace(/^data: /, ""))).toMatchObject({ error: { type: "api_error", code: "upstream_error" } });
    expect(text).not.toContain("[DONE]");

    const requestId = response.headers.get("x-request-id")!;
    const calls = upstreamCalls(requestId);
    expect(calls).toHaveLength(1);
    await expect.poll(() => calls[0]!.outcome).toBe("aborted");
    const events = await stack.billingEvents(requestId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ status: "error", upstream: "sim-openai-a" });
  });
});
