import type { Usage } from "./billing-event.ts";

/** pico-USD per unit: per token for the token prices (= micro-USD per million), per image for images. */
export interface UnitPrices {
  inputPrice: bigint;
  outputPrice: bigint;
  cachedInputPrice: bigint;
  imagePrice: bigint;
}

/** A server option's own prices for one model; a null field falls back to model price x multiplier. */
export type PriceOverrides = { [Field in keyof UnitPrices]: bigint | null };

/** Everything that decides what a request costs under one server option. */
export interface PriceSheet {
  /** The model's list prices. */
  model: UnitPrices;
  /** The server option's multiplier of list prices; 10000 = 1.0x. */
  multiplierBps: number;
  overrides: PriceOverrides | null;
}

const BPS = 10_000n;
const PICO_PER_NANO = 1_000n;
const FIELDS = ["inputPrice", "outputPrice", "cachedInputPrice", "imagePrice"] as const;

/**
 * Prices per unit in 1/10000 pico-USD. A multiplied list price can carry a fraction of a pico
 * (3 pico x 1.5 = 4.5), so it is kept exactly instead of being rounded per token.
 */
export function scaledUnitPrices(sheet: PriceSheet): UnitPrices {
  const scaled = {} as UnitPrices;
  for (const field of FIELDS) {
    const override = sheet.overrides?.[field];
    scaled[field] = override !== null && override !== undefined ? override * BPS : sheet.model[field] * BigInt(sheet.multiplierBps);
  }
  return scaled;
}

/**
 * The cost of one request in nano-USD (contract section 4), rounded half up once, here, at the
 * end. inputTokens includes the cached and cache-write parts: the cached part is priced at the
 * cached rate, everything else (cache writes included) at the input rate. reasoningTokens are part
 * of outputTokens and so are priced once, as output.
 */
export function priceUsage(usage: Usage, sheet: PriceSheet): bigint {
  return costOfUsage(usage, scaledUnitPrices(sheet));
}

/** The cost in nano-USD of `usage` at already scaled unit prices (see `scaledUnitPrices`). */
export function costOfUsage(usage: Usage, prices: UnitPrices): bigint {
  // A producer that reports more cached than total input must not produce a negative cost; every
  // cached token is still billed at the cached rate.
  const uncachedInput = Math.max(0, usage.inputTokens - usage.cachedInputTokens);
  const total =
    BigInt(uncachedInput) * prices.inputPrice +
    BigInt(usage.cachedInputTokens) * prices.cachedInputPrice +
    BigInt(usage.outputTokens) * prices.outputPrice +
    BigInt(usage.images) * prices.imagePrice;
  return divideRoundingHalfUp(total, BPS * PICO_PER_NANO);
}

/** Same rounding as `picoToNano` in @gateway/contracts, on the exact (scaled) amount. */
function divideRoundingHalfUp(amount: bigint, divisor: bigint): bigint {
  return (amount + divisor / 2n) / divisor;
}
