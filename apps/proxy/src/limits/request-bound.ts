import { costOfUsage, pricesForInput, scaledPricesFromStrings, type ScaledPrices } from "@gateway/contracts";
import type { ServerOptionRecord } from "@gateway/redis-store";
import type { EndpointName, ParsedRequest } from "../upstreams/index.ts";

/** Output tokens assumed when the request sets no bound of its own. */
export const DEFAULT_OUTPUT_BOUND = 4096;

/** Each published price record's parsed form, kept as long as the routing snapshot holds the record. */
const parsedPrices = new WeakMap<object, ScaledPrices>();

/** The option's scaled prices for `model` (tiers resolved), as the control plane published them. */
export function unitPrices(option: ServerOptionRecord, model: string): ScaledPrices | null {
  const prices = option.prices[model];
  if (!prices) return null;
  let parsed = parsedPrices.get(prices);
  if (parsed === undefined) {
    parsed = scaledPricesFromStrings(prices);
    parsedPrices.set(prices, parsed);
  }
  return parsed;
}

function positiveInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : null;
}

/**
 * The most a request can cost, from its own bounds: every request byte counted as an input token
 * (a token is never shorter than a byte), its max output tokens (or a default), its image count.
 * This is what the quota reserves before the upstream is called.
 */
export function requestBoundNano(request: ParsedRequest, requestBytes: number, prices: ScaledPrices, endpoint: EndpointName): bigint {
  const body = request.body;
  const isImages = endpoint === "images.generations";
  // Images are priced per image; embeddings produce no tokens.
  const output = isImages || endpoint === "embeddings"
    ? 0
    : (positiveInteger(body.max_tokens) ?? positiveInteger(body.max_completion_tokens) ?? positiveInteger(body.max_output_tokens) ?? DEFAULT_OUTPUT_BOUND);
  const images = isImages ? (positiveInteger(body.n) ?? 1) : 0;
  // Input may come back as cache writes, dearer than plain input (1.25x, 2x): the bound is the
  // dearest way the same tokens can be charged, with the same one pricing function the worker uses.
  // The tier is chosen by the input count, the same in every way, so the dearest way is all input
  // at the tier's highest of the three rates: one pricing call instead of one per way.
  const tier = pricesForInput(prices, requestBytes);
  const writes = tier.cacheWritePrice > tier.inputPrice || tier.cacheWrite1hPrice > tier.inputPrice ? requestBytes : 0;
  const writes1h = writes > 0 && tier.cacheWrite1hPrice > tier.cacheWritePrice ? requestBytes : 0;
  return costOfUsage(
    { inputTokens: requestBytes, outputTokens: output, cachedInputTokens: 0, cacheWriteTokens: writes, cacheWrite1hTokens: writes1h, reasoningTokens: 0, images, webSearchRequests: 0 },
    prices,
  );
}
