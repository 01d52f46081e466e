import { costOfUsage, pricesForInput, scaledPricesFromStrings, type ScaledPrices } from "@gateway/contracts";
import type { ServerOptionRecord } from "@gateway/redis-store";
import type { EndpointName, ParsedRequest } from "../upstreams/index.ts";
import { outputChoices } from "./output-bound.ts";

/** Output tokens assumed when a request reaches the limiter without the route's bound and sets none of its own. */
export const DEFAULT_OUTPUT_BOUND = 4096;

/** The output-limit fields read when a request carries no `outputBound`, in the order they were always read. */
const OUTPUT_FIELDS = ["max_tokens", "max_completion_tokens", "max_output_tokens"] as const;

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
 * The output tokens a request may produce: the route's one bound (`request.outputBound`, contract
 * section 14); for a request that reached the limiter without it, its own field as read before the
 * bound existed, or a default. Images are priced per image and embeddings produce no tokens: 0.
 */
export function requestOutputBound(request: ParsedRequest, endpoint: EndpointName): number {
  if (endpoint === "images.generations" || endpoint === "embeddings") return 0;
  // n choices (Chat Completions) each run up to the bound.
  if (request.outputBound !== undefined) return request.outputBound * outputChoices(request.body, endpoint);
  const body = request.body;
  return positiveInteger(body.max_tokens) ?? positiveInteger(body.max_completion_tokens) ?? positiveInteger(body.max_output_tokens) ?? DEFAULT_OUTPUT_BOUND;
}

/** The output-limit field the request set (to name in a 400 about its bound), or null when it set none. */
export function outputBoundField(request: ParsedRequest): string | null {
  return OUTPUT_FIELDS.find((field) => request.body[field] !== undefined && request.body[field] !== null) ?? null;
}

/**
 * The request's tokens for the TPM: a fair estimate of its input (about four bytes a token, the
 * providers' rule of thumb; the money reservation keeps the conservative one) plus its output
 * bound. Held in flight from admission to settlement, so concurrent requests cannot overrun it.
 */
export function requestTokens(request: ParsedRequest, requestBytes: number, endpoint: EndpointName): number {
  return Math.ceil(requestBytes / 4) + requestOutputBound(request, endpoint);
}

/**
 * The most a request can cost, from its own bounds: every request byte counted as an input token
 * (a token is never shorter than a byte), its output bound, its image count. This is what the
 * quota and the budget reserve before the upstream is called.
 */
export function requestBoundNano(request: ParsedRequest, requestBytes: number, prices: ScaledPrices, endpoint: EndpointName): bigint {
  const isImages = endpoint === "images.generations";
  const output = requestOutputBound(request, endpoint);
  const images = isImages ? (positiveInteger(request.body.n) ?? 1) : 0;
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
