import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { startStack, type Stack } from "./stack.ts";

let stack: Stack;
let key: string;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  stack = await startStack();
  key = (await stack.mintKey()).key;
  openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
});
afterAll(async () => stack?.close());
beforeEach(() => {
  stack.simulator.faults.clear();
  stack.simulator.stats.clear();
});

const upstreamRequests = () => stack.simulator.stats.requests.filter((record) => record.path !== "/v1/models");

describe("failover before the first byte", () => {
  it("moves on to the next target on a 503, non-streaming", async () => {
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { failStatus: 503 } });
    const completion = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]!.message.content).toBeTruthy();
    expect(upstreamRequests().map((r) => [r.model, r.outcome])).toEqual([["gpt-upstream-a", "failed"], ["gpt-upstream-b", "ok"]]);
  });

  it("moves on after a connection reset, streaming", async () => {
    stack.simulator.faults.push({ match: { model: "claude-upstream-a" }, times: 1, behaviour: { reset: true } });
    const message = await anthropic.messages.stream({ model: "claude-test", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(message.content[0]).toMatchObject({ type: "text" });
    expect(upstreamRequests().map((r) => [r.model, r.outcome])).toEqual([["claude-upstream-a", "reset"], ["claude-upstream-b", "ok"]]);
  });

  it("moves on after a 503, streaming chat", async () => {
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { failStatus: 503 } });
    const final = await openai.chat.completions.stream({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }).finalChatCompletion();
    expect(final.choices[0]!.message.content).toBeTruthy();
    expect(upstreamRequests().map((r) => r.outcome)).toEqual(["failed", "ok"]);
  });

  it("moves on when the upstream hangs past the response timeout, non-streaming", async () => {
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { hang: true } });
    const completion = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]!.message.content).toBeTruthy();
    expect(upstreamRequests().map((r) => r.model)).toEqual(["gpt-upstream-a", "gpt-upstream-b"]);
  });

  it("waits for a non-streamed answer slower than first_byte_ms (1.5 s) within response_ms (2.5 s): one call, billed", async () => {
    const { data: completion, response } = await openai.chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "#sim:latency_ms=1900 slow but whole" }] })
      .withResponse();
    expect(completion.choices[0]!.message.content).toBeTruthy();
    expect(upstreamRequests().map((r) => [r.model, r.outcome])).toEqual([["gpt-upstream-a", "ok"]]);
    const events = await stack.billingEvents(response.headers.get("x-request-id")!);
    expect(events).toMatchObject([{ status: "ok", estimated: false, usage: { outputTokens: completion.usage!.completion_tokens } }]);
  });

  it("never retries a timed-out attempt on the same target: a model with one target gets one attempt and a 504", async () => {
    const sameName = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: (await stack.mintKey({ serverOption: "same-name" })).key, maxRetries: 0 });
    const error = await sameName.chat.completions.create({ model: "gpt-same-name", messages: [{ role: "user", content: "#sim:hang" }] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 504, code: "upstream_timeout" });
    expect(upstreamRequests().map((r) => [r.model, r.outcome])).toEqual([["gpt-same-name", "hang"]]);
    // One timeout, one mark against the circuit; the request is billed once, for nothing.
    const events = await stack.billingEvents((error as InstanceType<typeof OpenAI.APIError>).requestID!);
    expect(events).toMatchObject([{ status: "error", usage: { outputTokens: 0 } }]);
  });

  it("an upstream's 5xx message never reaches the client; a 400's does, with identifiers masked", async () => {
    const leaky = "Quota exceeded for org-7Hk2LmQp9x (acct_1Nv0FGQ9RKHgCVdK), project proj_abc123XYZ, key sk-proj-abcdef123456";
    stack.simulator.faults.push({ match: {}, times: 10, behaviour: { failStatus: 503, failMessage: leaky } });
    const failed = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ status: 502, code: "upstream_error" });
    const shown = JSON.stringify((failed as InstanceType<typeof OpenAI.APIError>).error);
    expect(shown).not.toMatch(/Quota exceeded|org-|acct_|proj_|sk-proj/);

    stack.simulator.faults.clear();
    stack.simulator.faults.push({ match: {}, times: 1, behaviour: { failStatus: 400, failMessage: `messages.0: bad field for ${leaky.slice(19)}` } });
    const rejected = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(OpenAI.BadRequestError);
    expect((rejected as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      message: "messages.0: bad field for org-*** (acct_***), project proj_***, key sk-***",
      code: "upstream_rejected",
    });
  });

  it("does not retry a client error from the upstream", async () => {
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { failStatus: 400 } });
    const error = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(upstreamRequests()).toHaveLength(1);
  });
});

describe("every upstream failing", () => {
  it("gives a JSON 502 envelope with x-should-retry: false after bounded attempts", async () => {
    stack.simulator.faults.push({ match: {}, times: 10, behaviour: { failStatus: 500 } });
    const response = await fetch(`${stack.proxy.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true }),
    });
    expect(response.status).toBe(502);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(response.headers.get("x-should-retry")).toBe("false");
    const body = (await response.json()) as { request_id: string };
    expect(body).toMatchObject({ type: "error", error: { type: "api_error", code: "upstream_error" }, request_id: response.headers.get("x-request-id") });
    expect(upstreamRequests()).toHaveLength(stack.proxy.services.config.MAX_ATTEMPTS);
    const events = await stack.billingEvents(body.request_id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ status: "error", usage: { inputTokens: 0, outputTokens: 0 } });
  });

  it("an unreachable upstream gives 502 too, and the SDK does not retry", async () => {
    const retrying = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 2 });
    const started = Date.now();
    const error = await retrying.chat.completions.create({ model: "dead-test", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502 });
    // openai-node waits >= 0.5 s before a retry; x-should-retry: false means it made none.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("after the first byte", () => {
  it("a cut stream ends with the chat shape's error event; the SDK throws it; no second upstream call", async () => {
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { cutAfter: 3, chunkDelayMs: 5 } });
    const { data: stream, response } = await openai.chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true })
      .withResponse();
    const received: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? "");
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toMatch(/mid-stream/);
    expect(received.join("")).not.toBe("");
    expect(upstreamRequests()).toHaveLength(1);
    // The client gets its error event first; the bill follows the exact count on the token counter's thread.
    const requestId = response.headers.get("x-request-id")!;
    await expect.poll(async () => (await stack.billingEvents(requestId)).length, { timeout: 10_000 }).toBe(1);
    const events = await stack.billingEvents(requestId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ status: "error", estimated: true });
    expect(events[0]!.usage.outputTokens).toBeGreaterThan(0);
  });

  it("a cut messages stream ends with event: error; the anthropic SDK throws with the message", async () => {
    stack.simulator.faults.push({ match: { model: "claude-upstream-a" }, times: 1, behaviour: { cutAfter: 2 } });
    const error = await anthropic.messages
      .stream({ model: "claude-test", max_tokens: 64, messages: [{ role: "user", content: "hi" }] })
      .finalMessage()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toMatch(/mid-stream/);
    expect(upstreamRequests()).toHaveLength(1);
  });

  it("a cut responses stream ends with the error event", async () => {
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { cutAfter: 2 } });
    const stream = await openai.responses.create({ model: "gpt-test", input: "hi", stream: true });
    const types: string[] = [];
    const errorEvents: { message?: string }[] = [];
    const thrown = await (async () => {
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "error") errorEvents.push(event);
      }
    })().catch((e: unknown) => e);
    const message = errorEvents[0]?.message ?? (thrown as Error | undefined)?.message;
    expect(message).toMatch(/mid-stream/);
    expect(types[0]).toBe("response.created");
    expect(upstreamRequests()).toHaveLength(1);
  });

  it("the first chunk reaches the client while the upstream is still sending", async () => {
    const stream = await openai.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "#sim:chunks=6 #sim:chunk_delay_ms=150 slow please" }],
      stream: true,
    });
    let chunksSentWhenFirstArrived: number | null = null;
    for await (const chunk of stream) {
      if (chunksSentWhenFirstArrived === null && chunk.choices[0]?.delta.content) {
        chunksSentWhenFirstArrived = stack.simulator.stats.requests.at(-1)!.chunksSent;
      }
    }
    expect(chunksSentWhenFirstArrived).not.toBeNull();
    expect(chunksSentWhenFirstArrived!).toBeLessThan(6);
    expect(stack.simulator.stats.requests.at(-1)!.chunksSent).toBe(6);
  });

  it("a client that stops reading holds the upstream back, and gets every event once it reads again", async () => {
    // About 25 MB of events: more than the socket buffers between the simulator, the proxy and the
    // client hold, so the simulator can only finish if the proxy reads on without the client.
    const chunks = 120_000;
    const { hostname, port } = new URL(stack.proxy.url);
    const body = JSON.stringify({ model: "gpt-test", stream: true, messages: [{ role: "user", content: `#sim:chunks=${chunks} a long answer` }] });
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = httpRequest({ hostname, port, method: "POST", path: "/v1/chat/completions", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } }, resolve);
      request.on("error", reject);
      request.end(body);
    });
    expect(response.statusCode).toBe(200);
    response.pause();
    await sleep(1_000);
    const upstream = stack.simulator.stats.requests.at(-1)!;
    expect(upstream.flushedAt).toBeNull();

    let text = "";
    response.setEncoding("utf8");
    let contentEvents = 0;
    let done = false;
    for await (const piece of response) {
      text += piece;
      let end = text.indexOf("\n\n");
      while (end !== -1) {
        const data = text.slice(0, end).replace(/^data: /, "");
        if (data === "[DONE]") done = true;
        else if (JSON.parse(data).choices?.[0]?.delta?.content) contentEvents += 1;
        text = text.slice(end + 2);
        end = text.indexOf("\n\n");
      }
    }
    expect(done).toBe(true);
    expect(contentEvents).toBe(chunks);
    expect(upstream.flushedAt).not.toBeNull();
    expect(upstream.outcome).toBe("ok");
  });

  it("a client that leaves while a non-streaming answer is awaited: the answer, coming within the drain, is billed exactly", async () => {
    const controller = new AbortController();
    const before = stack.simulator.stats.requests.length;
    const answer = openai.chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "#sim:latency_ms=1000 slow" }] }, { signal: controller.signal, maxRetries: 0 })
      .catch((error: unknown) => error);
    await expect.poll(() => stack.simulator.stats.requests.length, { timeout: 3_000 }).toBe(before + 1);
    controller.abort();
    expect(await answer).toBeInstanceOf(Error);
    const upstreamCall = stack.simulator.stats.requests.at(-1)!;
    // The proxy reads on (DISCONNECT_DRAIN_MS, 3 s by default) for the answer's usage; nothing is retried.
    await expect.poll(() => upstreamCall.outcome, { timeout: 3_000 }).toBe("ok");
    const requestId = upstreamCall.headers["x-request-id"]!;
    await expect.poll(async () => (await stack.billingEvents(requestId)).length, { timeout: 3_000 }).toBe(1);
    const [event] = await stack.billingEvents(requestId);
    expect(event).toMatchObject({ status: "client_aborted", estimated: false, usage: { outputTokens: upstreamCall.usage!.output_tokens } });
    expect(stack.simulator.stats.requests.length).toBe(before + 1);
  });

  it("a client that leaves mid-stream: the upstream is read to its end within the drain and billed its exact usage", async () => {
    const controller = new AbortController();
    const { data: stream, response } = await openai.chat.completions
      .create(
        { model: "gpt-test", messages: [{ role: "user", content: "#sim:chunks=50 #sim:chunk_delay_ms=20 long" }], stream: true },
        { signal: controller.signal },
      )
      .withResponse();
    let seen = 0;
    await (async () => {
      for await (const _chunk of stream) {
        seen += 1;
        if (seen === 3) controller.abort();
      }
    })().catch(() => undefined);
    // 50 words 20 ms apart: the upstream ends about 1 s later, well inside the 3 s drain.
    await expect.poll(() => stack.simulator.stats.requests.at(-1)!.outcome, { timeout: 4_000 }).toBe("ok");
    await expect.poll(async () => (await stack.billingEvents(response.headers.get("x-request-id")!)).length, { timeout: 3_000 }).toBe(1);
    const [event] = await stack.billingEvents(response.headers.get("x-request-id")!);
    expect(event).toMatchObject({ status: "client_aborted", estimated: false, usage: { outputTokens: 50 } });
  });
});
