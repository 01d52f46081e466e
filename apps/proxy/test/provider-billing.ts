import { expect } from "vitest";
import { GoogleGenAI } from "@google/genai";
import { parsePriceToPico, priceUsage } from "@gateway/contracts";
import type { Stack } from "./stack.ts";

/** The provider kinds' test models cost $2 / $8 per million tokens (pico-USD per token here). */
export const KIND_PRICES = { inputPrice: parsePriceToPico("2", "per_million_tokens"), outputPrice: parsePriceToPico("8", "per_million_tokens"), cachedInputPrice: parsePriceToPico("2", "per_million_tokens"), cacheWritePrice: 0n, cacheWrite1hPrice: 0n, imagePrice: 0n, requestPrice: 0n, webSearchPrice: 0n };

/** The billing event of a request: the simulator's own usage, to the token; the cost to the nano-dollar at $2 / $8 per million. */
export async function expectBilled(stack: Stack, requestId: string | null, upstream: string) {
  const [event] = await stack.billingEvents(requestId!);
  const served = stack.simulator.stats.requests.filter((record) => record.outcome === "ok").at(-1)!;
  expect(event).toMatchObject({ status: "ok", upstream, estimated: false });
  expect(event!.usage).toMatchObject({ inputTokens: served.usage!.input_tokens, outputTokens: served.usage!.output_tokens });
  // $2 and $8 per million: 2,000 and 8,000 nano-USD a token.
  expect(priceUsage(event!.usage, { model: KIND_PRICES, multiplierBps: 10_000, overrides: null })).toBe(BigInt(served.usage!.input_tokens) * 2_000n + BigInt(served.usage!.output_tokens) * 8_000n);
  return event!;
}

/**
 * The official Gemini client on `model`, served by `upstream` as `served`: a generation billed as
 * the provider reported (usageMetadata equal to the billed usage), a stream, and function calling
 * over two steps (the function's response named by name only, as Gemini 2.x clients send it).
 */
export async function expectGeminiClientServed(stack: Stack, key: string, model: string, upstream: string, served: string): Promise<void> {
  const ai = new GoogleGenAI({ apiKey: key, vertexai: false, httpOptions: { baseUrl: stack.proxy.url } });
  const answer = await ai.models.generateContent({ model, contents: "Say hello", config: { maxOutputTokens: 32 } });
  expect(answer.text!.length).toBeGreaterThan(0);
  expect(stack.simulator.stats.requests.at(-1)).toMatchObject({ model: served, stream: false });
  const event = await expectBilled(stack, answer.sdkHttpResponse!.headers!["x-request-id"]!, upstream);
  expect(answer.usageMetadata).toMatchObject({ promptTokenCount: event.usage.inputTokens, candidatesTokenCount: event.usage.outputTokens });
  let text = "";
  for await (const chunk of await ai.models.generateContentStream({ model, contents: "Stream it", config: { maxOutputTokens: 32 } })) text += chunk.text ?? "";
  expect(text.length).toBeGreaterThan(0);
  const tools = [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } } }] }];
  const first = await ai.models.generateContent({ model, contents: [{ role: "user", parts: [{ text: "Weather in Lima? #sim:tool=get_weather" }] }], config: { tools, maxOutputTokens: 64 } });
  const call = first.functionCalls![0]!;
  expect(call.name).toBe("get_weather");
  const second = await ai.models.generateContent({
    model,
    contents: [{ role: "user", parts: [{ text: "Weather in Lima?" }] }, first.candidates![0]!.content!, { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { temperature: 18 } } }] }],
    config: { tools, maxOutputTokens: 64 },
  });
  expect(second.text!.length).toBeGreaterThan(0);
}
