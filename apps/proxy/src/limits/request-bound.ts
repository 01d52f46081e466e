import { costOfUsage, type UnitPrices } from "@gateway/contracts";
import type { ServerOptionRecord } from "@gateway/redis-store";
import type { ParsedRequest } from "../upstreams/index.ts";

/** Output tokens assumed when the request sets no bound of its own. */
export const DEFAULT_OUTPUT_BOUND = 4096;

export function unitPrices(option: ServerOptionRecord, model: string): UnitPrices | null {
  const prices = option.prices[model];
  if (!prices) return null;
  return {
    inputPrice: BigInt(prices.inputPrice),
    outputPrice: BigInt(prices.outputPrice),
    cachedInputPrice: BigInt(prices.cachedInputPrice),
    imagePrice: BigInt(prices.imagePrice),
  };
}

function positiveInteger(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : null;
}

/**
 * The most a request can cost, from its own bounds: every request byte counted as an input token
 * (a token is never shorter than a byte), its max output tokens (or a default), its image count.
 * This is what the quota reserves before the upstream is called.
 */
export function requestBoundNano(request: ParsedRequest, requestBytes: number, prices: UnitPrices, isImages: boolean): bigint {
  const body = request.body;
  const output = isImages
    ? 0
    : (positiveInteger(body.max_tokens) ?? positiveInteger(body.max_completion_tokens) ?? positiveInteger(body.max_output_tokens) ?? DEFAULT_OUTPUT_BOUND);
  return costOfUsage(
    {
      inputTokens: requestBytes,
      outputTokens: output,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      images: isImages ? (positiveInteger(body.n) ?? 1) : 0,
    },
    prices,
  );
}
