import type { UsageInput } from "./billing-event.ts";

/**
 * pico-USD per unit (contract section 12): per token for the token prices (= micro-USD per
 * million), per image, per request and per server-side web search for the others.
 */
export interface UnitPrices {
  inputPrice: bigint;
  outputPrice: bigint;
  cachedInputPrice: bigint;
  /** 5-minute cache writes, per token. */
  cacheWritePrice: bigint;
  /** 1-hour cache writes, per token. */
  cacheWrite1hPrice: bigint;
  imagePrice: bigint;
  /** Flat, once per request that reported any usage. */
  requestPrice: bigint;
  /** Per server-side web search. */
  webSearchPrice: bigint;
}

/** Every price field, in one order (the snapshot, the stored tiers and the tests follow it). */
export const PRICE_FIELDS = [
  "inputPrice",
  "outputPrice",
  "cachedInputPrice",
  "cacheWritePrice",
  "cacheWrite1hPrice",
  "imagePrice",
  "requestPrice",
  "webSearchPrice",
] as const satisfies readonly (keyof UnitPrices)[];

/**
 * A long-context tier: a request whose total input (cache reads and writes included) is above
 * `aboveInputTokens` pays these prices for all its tokens. A field left out is the base price of
 * that field. Of several tiers, the highest threshold crossed wins.
 */
export interface PriceTier {
  aboveInputTokens: number;
  prices: Partial<UnitPrices>;
}

/** A tier with every field resolved (scaled, see `scaledUnitPrices`). */
export interface ScaledTier {
  aboveInputTokens: number;
  prices: UnitPrices;
}

/** Unit prices, scaled, with their tiers resolved and sorted by ascending threshold. */
export interface ScaledPrices extends UnitPrices {
  tiers: ScaledTier[];
}

/** A model's list prices. */
export type ListPrices = UnitPrices & { tiers?: readonly PriceTier[] };

/**
 * A server option's own prices for one model. A null (or absent) field falls back to the model's
 * price x multiplier; tiers given here replace the model's tiers (as given, not multiplied).
 */
export type PriceOverrides = { [Field in keyof UnitPrices]?: bigint | null } & { tiers?: readonly PriceTier[] | null };

/** Everything that decides what a request costs under one server option. */
export interface PriceSheet {
  /** The model's list prices. */
  model: ListPrices;
  /** The server option's multiplier of list prices; 10000 = 1.0x. Applies to every field, tiers included. */
  multiplierBps: number;
  overrides: PriceOverrides | null;
}

const BPS = 10_000n;
const PICO_PER_NANO = 1_000n;

function eachField(price: (field: keyof UnitPrices) => bigint): UnitPrices {
  const prices = {} as UnitPrices;
  for (const field of PRICE_FIELDS) prices[field] = price(field);
  return prices;
}

/**
 * Prices per unit in 1/10000 pico-USD. A multiplied list price can carry a fraction of a pico
 * (3 pico x 1.5 = 4.5), so it is kept exactly instead of being rounded per token.
 */
export function scaledUnitPrices(sheet: PriceSheet): ScaledPrices {
  const multiplier = BigInt(sheet.multiplierBps);
  const overrides = sheet.overrides;
  const base = eachField((field) => {
    const override = overrides?.[field];
    return override !== null && override !== undefined ? override * BPS : sheet.model[field] * multiplier;
  });
  const ownTiers = overrides?.tiers;
  const [tiers, scale] = ownTiers !== null && ownTiers !== undefined ? [ownTiers, BPS] : [sheet.model.tiers ?? [], multiplier];
  const scaledTiers = tiers
    .map((tier) => ({
      aboveInputTokens: tier.aboveInputTokens,
      prices: eachField((field) => {
        const price = tier.prices[field];
        return price !== null && price !== undefined ? price * scale : base[field];
      }),
    }))
    .sort((a, b) => a.aboveInputTokens - b.aboveInputTokens);
  return { ...base, tiers: scaledTiers };
}

/**
 * The cost of one request in nano-USD (contract section 12), rounded half up once, here, at the
 * end. inputTokens includes the cache reads and writes; each part is priced at its own rate, once:
 * uncached input, cache reads, 5-minute writes, 1-hour writes. reasoningTokens are part of
 * outputTokens and so are priced once, as output.
 */
export function priceUsage(usage: UsageInput, sheet: PriceSheet): bigint {
  return costOfUsage(usage, scaledUnitPrices(sheet));
}

/** The tier whose prices a request of `inputTokens` pays: the highest threshold it is above. */
export function pricesForInput(prices: UnitPrices & { tiers?: readonly ScaledTier[] }, inputTokens: number): UnitPrices {
  let chosen: UnitPrices = prices;
  let highest = -1;
  for (const tier of prices.tiers ?? []) {
    if (inputTokens > tier.aboveInputTokens && tier.aboveInputTokens > highest) {
      chosen = tier.prices;
      highest = tier.aboveInputTokens;
    }
  }
  return chosen;
}

/** The cost in nano-USD of `usage` at already scaled unit prices (see `scaledUnitPrices`). */
export function costOfUsage(usage: UsageInput, scaled: UnitPrices & { tiers?: readonly ScaledTier[] }): bigint {
  const prices = pricesForInput(scaled, usage.inputTokens);
  const cached = usage.cachedInputTokens;
  const writes1h = usage.cacheWrite1hTokens ?? 0;
  const writes5m = Math.max(0, usage.cacheWriteTokens - writes1h);
  const searches = usage.webSearchRequests ?? 0;
  // A producer that reports more cache tokens than total input must not produce a negative cost;
  // every reported cache token is still billed at its own rate.
  const uncachedInput = Math.max(0, usage.inputTokens - cached - writes5m - writes1h);
  const anyUsage = usage.inputTokens + usage.outputTokens + usage.images + searches + cached + writes5m + writes1h > 0;
  // Every request of the proxy prices its usage (and bounds its reservation): in whole numbers
  // below 2^53 a double is exact, so the common amounts need no BigInt per term (about 25 of
  // them per call); anything larger, or not a whole number, takes the BigInt sum.
  let total = 0;
  total = exactTerm(total, uncachedInput, prices.inputPrice);
  total = exactTerm(total, cached, prices.cachedInputPrice);
  total = exactTerm(total, writes5m, prices.cacheWritePrice);
  total = exactTerm(total, writes1h, prices.cacheWrite1hPrice);
  total = exactTerm(total, usage.outputTokens, prices.outputPrice);
  total = exactTerm(total, usage.images, prices.imagePrice);
  total = exactTerm(total, searches, prices.webSearchPrice);
  total = exactTerm(total, anyUsage ? 1 : 0, prices.requestPrice);
  if (total >= 0) return divideRoundingHalfUpExact(total);
  const exact =
    BigInt(uncachedInput) * prices.inputPrice +
    BigInt(cached) * prices.cachedInputPrice +
    BigInt(writes5m) * prices.cacheWritePrice +
    BigInt(writes1h) * prices.cacheWrite1hPrice +
    BigInt(usage.outputTokens) * prices.outputPrice +
    BigInt(usage.images) * prices.imagePrice +
    BigInt(searches) * prices.webSearchPrice +
    (anyUsage ? prices.requestPrice : 0n);
  return divideRoundingHalfUp(exact, BPS * PICO_PER_NANO);
}

/** The pico-USD (scaled) divisor of a nano-USD, as a double. */
const NANO_DIVISOR = Number(BPS * PICO_PER_NANO);
/**
 * Largest running total the double path keeps: room for the rounding's half divisor and for
 * the quotient's check (`quotient * NANO_DIVISOR`) without leaving the exact integers.
 */
const EXACT_LIMIT = Number.MAX_SAFE_INTEGER - 4 * NANO_DIVISOR;
const EXACT_PRICE_LIMIT = BigInt(EXACT_LIMIT);

/** `total + count * price` when every part is a whole number within EXACT_LIMIT; -1 once any is not (the BigInt path then). */
function exactTerm(total: number, count: number, price: bigint): number {
  if (total < 0 || !Number.isSafeInteger(count) || count < 0 || price < 0n || price > EXACT_PRICE_LIMIT) return -1;
  const term = count * Number(price);
  const sum = total + term;
  return term <= EXACT_LIMIT && sum <= EXACT_LIMIT ? sum : -1;
}

/** `divideRoundingHalfUp` on a whole number of at most EXACT_LIMIT, in doubles: the floor checked against the product. */
function divideRoundingHalfUpExact(total: number): bigint {
  const dividend = total + NANO_DIVISOR / 2;
  let quotient = Math.floor(dividend / NANO_DIVISOR);
  const rest = dividend - quotient * NANO_DIVISOR;
  if (rest < 0) quotient -= 1;
  else if (rest >= NANO_DIVISOR) quotient += 1;
  return BigInt(quotient);
}

/** Same rounding as `picoToNano` in @gateway/contracts, on the exact (scaled) amount. */
function divideRoundingHalfUp(amount: bigint, divisor: bigint): bigint {
  return (amount + divisor / 2n) / divisor;
}

/** Cache-write defaults of the contract: 5-minute writes 1.25x input, 1-hour writes 2x input (rounded up to a whole pico). */
export function defaultCacheWritePrices(inputPrice: bigint): { cacheWritePrice: bigint; cacheWrite1hPrice: bigint } {
  return { cacheWritePrice: (inputPrice * 5n + 3n) / 4n, cacheWrite1hPrice: inputPrice * 2n };
}

/** Tiers as Postgres keeps them (JSONB): prices as decimal strings of pico-USD, only the fields given. */
export type StoredTier = { aboveInputTokens: number } & { [Field in keyof UnitPrices]?: string };

export function tiersToJson(tiers: readonly PriceTier[]): StoredTier[] {
  return tiers.map((tier) => {
    const stored: StoredTier = { aboveInputTokens: tier.aboveInputTokens };
    for (const field of PRICE_FIELDS) {
      const price = tier.prices[field];
      if (price !== undefined) stored[field] = price.toString();
    }
    return stored;
  });
}

/** The inverse of `tiersToJson`; null for a JSON null (no tiers of its own), anything malformed throws. */
export function tiersFromJson(value: unknown): PriceTier[] | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value)) throw new TypeError("price tiers: not an array");
  return value.map((entry: unknown) => {
    const stored = entry as Record<string, unknown>;
    if (typeof stored?.aboveInputTokens !== "number") throw new TypeError("price tier: aboveInputTokens missing");
    const prices: Partial<UnitPrices> = {};
    for (const field of PRICE_FIELDS) {
      const price = stored[field];
      if (typeof price === "string") prices[field] = BigInt(price);
    }
    return { aboveInputTokens: stored.aboveInputTokens, prices };
  });
}
