import { expect } from "vitest";
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
