import { costOfUsage, pricesForInput, scaledPricesFromStrings, type ScaledPrices } from "@gateway/contracts";
import type { ServerOptionRecord } from "@gateway/redis-store";
import type { EndpointName, ParsedRequest } from "../core/wire-format.ts";
import { outputChoices } from "../core/output-bound.ts";

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
 * section 14, core/output-bound.ts: 0 for endpoints without output tokens), times the answers it
 * asks for. Nothing else is read: a request that reached the limiter without its bound is a bug in
 * its route, refused rather than reserved for a guess.
 */
export function requestOutputBound(request: ParsedRequest, endpoint: EndpointName): number {
  const bound = request.outputBound;
  if (bound === undefined) throw new Error(`a ${endpoint} request reached the limiter without its output bound: its route computes it (core/output-bound.ts)`);
  // n choices (Chat Completions) each run up to the bound.
  return bound * outputChoices(request.body, endpoint);
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
