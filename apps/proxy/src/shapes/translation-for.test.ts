import { describe, expect, it } from "vitest";
import type { UpstreamRecord } from "@gateway/redis-store";
import type { EndpointName } from "../core/wire-format.ts";
import { DroppedParams } from "../core/drops.ts";
import { translationFor } from "./index.ts";

const upstream = (shape: "openai" | "anthropic" | "gemini", supportsResponses = true): UpstreamRecord => ({
  name: "u",
  shape,
  baseUrl: "http://x",
  secretEnv: null,
  priority: 0,
  weight: 1,
  connectTimeoutMs: 1000,
  firstByteTimeoutMs: 1000, responseTimeoutMs: 1000,
  supportsResponses,
  dropBetas: [],
});

describe("translationFor", () => {
  it.each<[EndpointName, UpstreamRecord, string | null]>([
    ["chat.completions", upstream("openai"), null],
    ["chat.completions", upstream("anthropic"), "chat-to-messages"],
    ["messages", upstream("anthropic"), null],
    ["messages", upstream("openai"), "messages-to-chat"],
    ["responses", upstream("openai"), null],
    ["responses", upstream("openai", false), "responses-to-chat"],
    ["responses", upstream("anthropic"), "responses-to-messages"],
    ["responses", upstream("anthropic", false), "responses-to-messages"],
    ["images.generations", upstream("openai"), null],
    ["embeddings", upstream("openai"), null],
    ["messages.count_tokens", upstream("anthropic"), null],
  ])("%s on %o -> %s", (endpoint, record, name) => {
    const translation = translationFor(endpoint, record);
    expect(translation?.name ?? null).toBe(name);
    if (translation) expect(translation.upstreamWire.shape).toBe(record.shape);
  });

  it("images on an Anthropic-shape upstream: a 400 naming model", () => {
    expect(() => translationFor("images.generations", upstream("anthropic"))).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "model" }));
  });

  it("embeddings on an Anthropic-shape upstream, a forwarded token count on an OpenAI-shape one: a 400 naming model", () => {
    expect(() => translationFor("embeddings", upstream("anthropic"))).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "model" }));
    expect(() => translationFor("messages.count_tokens", upstream("openai"))).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "model" }));
  });

  it("a Gemini client's embeddings: raw on a Gemini-shape upstream, OpenAI embeddings on an OpenAI-shape one, a 400 naming model on an Anthropic-shape one", () => {
    expect(translationFor("gemini.embed_content", upstream("gemini"))).toBeNull();
    const onOpenAI = translationFor("gemini.embed_content", upstream("openai"));
    expect(onOpenAI?.upstreamWire.shape).toBe("openai");
    expect(onOpenAI?.request({ body: { content: { parts: [{ text: "Hi" }] } }, model: "text-embedding-3-small", stream: false }, new DroppedParams(false)).body).toMatchObject({ model: "text-embedding-3-small", input: ["Hi"] });
    expect(() => translationFor("gemini.embed_content", upstream("anthropic"))).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "model" }));
  });
});
