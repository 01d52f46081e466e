import { describe, expect, it } from "vitest";
import { SHAPE_ADAPTERS } from "../upstreams/index.ts";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import { DroppedParams } from "../core/drops.ts";
import { translationFor } from "../shapes/index.ts";
import { fixtureEvents, payloads, sseEvents } from "../shapes/__fixtures__/fixtures.ts";
import type { AttemptContext } from "./attempt-context.ts";
import { clientStream } from "./client-stream.ts";

const upstream = { name: "a", shape: "anthropic", baseUrl: "http://x", secretEnv: null, priority: 0, weight: 1, connectTimeoutMs: 1, firstByteTimeoutMs: 1, responseTimeoutMs: 1, supportsResponses: true, dropBetas: [] as string[] } as const;

function context(endpoint: "chat.completions" | "responses", body: Record<string, unknown>): AttemptContext {
  const wire = WIRE_FORMATS[endpoint];
  const request = wire.parse(body);
  const translation = translationFor(endpoint, upstream)!;
  return {
    wire,
    upstreamWire: translation.upstreamWire,
    translation,
    request,
    upstreamRequest: translation.request(request, new DroppedParams(false)),
    adapter: SHAPE_ADAPTERS.anthropic,
    target: { upstream, model: "claude" },
  } as Partial<AttemptContext> as AttemptContext;
}

const overloaded = sseEvents('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded for org-Abc123 (acct_9f8e7d)"}}\n\n')[0]!;

describe("clientStream across shapes", () => {
  it("the upstream's tracker reads usage from its own events while the client gets its own shape", () => {
    const stream = clientStream(context("chat.completions", { model: "m", messages: [{ role: "user", content: "hi" }], stream: true }));
    const text = fixtureEvents("anthropic-messages/text-cached.chunks.txt").map((event) => stream.event(event, false)).join("") + stream.finish();
    expect(stream.tracker.complete).toBe(true);
    expect(stream.tracker.usage()).toMatchObject({ inputTokens: 2034, cachedInputTokens: 1800, cacheWriteTokens: 200, outputTokens: 10 });
    expect(payloads(text).every((chunk) => chunk.object === "chat.completion.chunk")).toBe(true);
  });

  it("an upstream error mid-stream becomes the chat shape's final error event, with the gateway's message, never the upstream's", () => {
    const stream = clientStream(context("chat.completions", { model: "m", messages: [{ role: "user", content: "hi" }], stream: true }));
    stream.event(fixtureEvents("anthropic-messages/text-cached.chunks.txt")[0]!, false);
    expect(stream.tracker.isError(overloaded)).toBe(true);
    expect(JSON.parse(sseEvents(stream.upstreamError())[0]!.data)).toEqual({ error: { type: "api_error", message: "The upstream failed mid-stream.", code: "upstream_error", param: null } });
    expect(stream.finish()).toBe("");
  });

  it("a Responses error event takes the next sequence number", () => {
    const stream = clientStream(context("responses", { model: "m", input: "hi", stream: true }));
    const written = payloads(fixtureEvents("anthropic-messages/text-cached.chunks.txt").slice(0, 4).map((event) => stream.event(event, false)).join(""));
    const error = sseEvents(stream.error("The upstream connection failed mid-stream."))[0]!;
    expect(error.event).toBe("error");
    expect(JSON.parse(error.data)).toMatchObject({ type: "error", code: "upstream_error", sequence_number: written.length });
  });
});
