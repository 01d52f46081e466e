import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { priceUsage, type PriceSheet, type Usage } from "@gateway/contracts";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { anthropicUsageBody, messagesUsage } from "./anthropic-messages/usage.ts";
import { chatUsage, chatUsageBody } from "./openai-chat/usage.ts";
import { responsesUsage } from "./openai-responses/usage.ts";
import { imagesGenerations } from "./openai-images/wire.ts";
import { embeddings } from "./openai-embeddings/wire.ts";

/**
 * Recorded provider usage payloads (`__fixtures__/usage`) -> our Usage -> the ledger's cost, against
 * a price computed by hand (contract section 12). Each token is priced exactly once.
 */
const fixture = (name: string) => readFileSync(new URL(`__fixtures__/usage/${name}`, import.meta.url), "utf8");

function anthropicStreamUsage(name: string): Usage | null {
  const events: EventSourceMessage[] = [];
  createParser({ onEvent: (event) => events.push(event) }).feed(fixture(name));
  let usage: Usage | null = null;
  for (const event of events) {
    const data = JSON.parse(event.data) as { message?: { usage?: unknown }; usage?: unknown };
    if (event.event === "message_start") usage = messagesUsage(data.message?.usage, usage);
    if (event.event === "message_delta") usage = messagesUsage(data.usage, usage);
  }
  return usage;
}

const NONE = { cacheWritePrice: 0n, cacheWrite1hPrice: 0n, imagePrice: 0n, requestPrice: 0n, webSearchPrice: 0n };
/** pico-USD per unit: a Claude-like sheet with a long-context tier above 1000 input tokens. */
const CLAUDE: PriceSheet = {
  model: {
    inputPrice: 3_000_000n,
    outputPrice: 15_000_000n,
    cachedInputPrice: 300_000n,
    cacheWritePrice: 3_750_000n,
    cacheWrite1hPrice: 6_000_000n,
    imagePrice: 40_000_000_000n,
    requestPrice: 100_000_000n,
    webSearchPrice: 10_000_000_000n,
    tiers: [{ aboveInputTokens: 1000, prices: { inputPrice: 6_000_000n, outputPrice: 22_500_000n, cachedInputPrice: 600_000n } }],
  },
  multiplierBps: 10_000,
  overrides: null,
};
const GPT: PriceSheet = { model: { ...NONE, inputPrice: 150_000n, outputPrice: 600_000n, cachedInputPrice: 75_000n }, multiplierBps: 10_000, overrides: null };

const CASES: { name: string; usage: () => Usage | null; sheet: PriceSheet; parts: Partial<Usage>; costNano: bigint }[] = [
  {
    name: "Anthropic message, 5-minute and 1-hour writes and reads",
    usage: () => messagesUsage(JSON.parse(fixture("anthropic-message-cache-split.json"))),
    sheet: CLAUDE,
    parts: { inputTokens: 750, cachedInputTokens: 400, cacheWriteTokens: 300, cacheWrite1hTokens: 100, outputTokens: 10 },
    // 50 x 3e6 + 400 x 3e5 + 200 x 3.75e6 + 100 x 6e6 + 10 x 15e6 + 1e8 (request) = 1.87e9 pico
    costNano: 1_870_000n,
  },
  {
    name: "Anthropic message, a write total without its split is all 5-minute",
    usage: () => messagesUsage(JSON.parse(fixture("anthropic-message-cache-total-only.json"))),
    sheet: CLAUDE,
    parts: { inputTokens: 350, cacheWriteTokens: 300, cacheWrite1hTokens: 0 },
    // 50 x 3e6 + 300 x 3.75e6 + 10 x 15e6 + 1e8 = 1.525e9 pico
    costNano: 1_525_000n,
  },
  {
    name: "Anthropic stream, a tier crossing, a 1-hour write kept from message_start, web searches",
    usage: () => anthropicStreamUsage("anthropic-stream-web-search.chunks.txt"),
    sheet: CLAUDE,
    parts: { inputTokens: 1100, cacheWriteTokens: 100, cacheWrite1hTokens: 100, webSearchRequests: 2, outputTokens: 10 },
    // above 1000: 1000 x 6e6 + 100 x 6e6 (the tier leaves 1h writes at base) + 10 x 22.5e6 + 1e8 + 2 x 1e10 = 2.6925e10 pico
    costNano: 26_925_000n,
  },
  {
    name: "Anthropic message under a 1.5x server option",
    usage: () => messagesUsage(JSON.parse(fixture("anthropic-message-cache-split.json"))),
    sheet: { ...CLAUDE, multiplierBps: 15_000 },
    parts: {},
    costNano: 2_805_000n,
  },
  {
    name: "Anthropic message under an override (input and 1-hour writes)",
    usage: () => messagesUsage(JSON.parse(fixture("anthropic-message-cache-split.json"))),
    sheet: { ...CLAUDE, overrides: { inputPrice: 1_000_000n, cacheWrite1hPrice: 2_000_000n } },
    // 50 x 1e6 + 400 x 3e5 + 200 x 3.75e6 + 100 x 2e6 + 10 x 15e6 + 1e8 = 1.37e9 pico
    parts: {},
    costNano: 1_370_000n,
  },
  {
    name: "OpenAI chat, cached and reasoning tokens",
    usage: () => chatUsage(JSON.parse(fixture("openai-chat-cached-reasoning.json"))),
    sheet: GPT,
    parts: { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 60, reasoningTokens: 50 },
    // 600 x 150_000 + 400 x 75_000 + 60 x 600_000 (reasoning inside output, once) = 1.56e8 pico
    costNano: 156_000n,
  },
  {
    name: "Responses, all cached, above the tier",
    usage: () => responsesUsage(JSON.parse(fixture("openai-responses-completed.json"))),
    sheet: CLAUDE,
    parts: { inputTokens: 1500, cachedInputTokens: 1500, reasoningTokens: 4 },
    // 1500 x 6e5 + 10 x 22.5e6 + 1e8 = 1.225e9 pico
    costNano: 1_225_000n,
  },
  {
    name: "images",
    usage: () => imagesGenerations.usageFromResponse({ data: [{ url: "a" }, { url: "b" }] }),
    sheet: CLAUDE,
    parts: { images: 2 },
    // 2 x 4e10 + 1e8 = 8.01e10 pico
    costNano: 80_100_000n,
  },
  {
    name: "images with the GPT image models' tokens",
    usage: () => imagesGenerations.usageFromResponse({ data: [{ b64_json: "x" }], usage: { input_tokens: 50, input_tokens_details: { text_tokens: 40, image_tokens: 10 }, output_tokens: 4160, total_tokens: 4210 } }),
    sheet: CLAUDE,
    parts: { images: 1, inputTokens: 50, outputTokens: 4160, cachedInputTokens: 0 },
    // 50 x 3e6 + 4160 x 15e6 + 4e10 + 1e8 = 1.0265e11 pico
    costNano: 102_650_000n,
  },
  {
    name: "embeddings: all of it input",
    usage: () => embeddings.usageFromResponse({ object: "list", data: [], usage: { prompt_tokens: 8, total_tokens: 8 } }),
    sheet: GPT,
    parts: { inputTokens: 8, outputTokens: 0 },
    // 8 x 150_000 = 1.2e6 pico
    costNano: 1_200n,
  },
];

describe("recorded usage payloads priced to the nano-dollar", () => {
  it.each(CASES)("$name", ({ usage, sheet, parts, costNano }) => {
    const parsed = usage();
    expect(parsed).toMatchObject(parts);
    expect(priceUsage(parsed!, sheet)).toBe(costNano);
  });
});

describe("translated usage keeps the parts, written in the client's shape", () => {
  it("OpenAI upstream -> Anthropic client -> read back: same parts, same cost", () => {
    const upstream = chatUsage(JSON.parse(fixture("openai-chat-cached-reasoning.json")))!;
    const body = anthropicUsageBody(upstream);
    expect(body).toMatchObject({ input_tokens: 600, cache_read_input_tokens: 400, cache_creation_input_tokens: 0, output_tokens: 60 });
    const client = messagesUsage(body)!;
    expect(priceUsage(client, GPT)).toBe(priceUsage(upstream, GPT));
  });

  it("Anthropic upstream -> OpenAI client: prompt_tokens is the whole input, cached_tokens the reads", () => {
    const upstream = anthropicStreamUsage("anthropic-stream-web-search.chunks.txt")!;
    expect(chatUsageBody(upstream)).toMatchObject({ prompt_tokens: 1100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 0 } });
    const split = messagesUsage(JSON.parse(fixture("anthropic-message-cache-split.json")))!;
    expect(chatUsageBody(split)).toMatchObject({ prompt_tokens: 750, prompt_tokens_details: { cached_tokens: 400 } });
    // Anthropic -> Anthropic-shaped body (a translated Anthropic client) keeps the split and the searches.
    expect(messagesUsage(anthropicUsageBody(upstream))).toEqual(upstream);
  });
});
