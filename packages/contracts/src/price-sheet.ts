import { PRICE_FIELDS, tiersFromJson, type PriceSheet, type ScaledPrices, type UnitPrices } from "./pricing.ts";

/** The price columns of a model row (Postgres `models`). */
export type ListPriceColumns = UnitPrices & { priceTiers: unknown };
/** The price columns of a server option's link to a model (`server_option_models`); null = not overridden. */
export type OverridePriceColumns = { [Field in keyof UnitPrices]: bigint | null } & { priceTiers: unknown };

/** The price sheet of one (server option, model) from their rows: what the worker, the snapshot and the vendor API price with. */
export function priceSheetOf(model: ListPriceColumns, multiplierBps: number, link: OverridePriceColumns | null): PriceSheet {
  const list = {} as UnitPrices;
  for (const field of PRICE_FIELDS) list[field] = model[field];
  const overrides = link ? { ...pick(link), tiers: tiersFromJson(link.priceTiers) } : null;
  return { model: { ...list, tiers: tiersFromJson(model.priceTiers) ?? [] }, multiplierBps, overrides };
}

function pick(link: OverridePriceColumns): { [Field in keyof UnitPrices]: bigint | null } {
  const prices = {} as { [Field in keyof UnitPrices]: bigint | null };
  for (const field of PRICE_FIELDS) prices[field] = link[field];
  return prices;
}

/** Scaled prices in JSON (decimal strings), as the routing snapshot publishes them. */
export type ScaledPriceStrings = { [Field in keyof UnitPrices]: string } & {
  tiers: ({ aboveInputTokens: number } & { [Field in keyof UnitPrices]: string })[];
};

function toStrings(prices: UnitPrices): { [Field in keyof UnitPrices]: string } {
  const out = {} as { [Field in keyof UnitPrices]: string };
  for (const field of PRICE_FIELDS) out[field] = prices[field].toString();
  return out;
}

export function scaledPricesToStrings(prices: ScaledPrices): ScaledPriceStrings {
  return { ...toStrings(prices), tiers: prices.tiers.map((tier) => ({ aboveInputTokens: tier.aboveInputTokens, ...toStrings(tier.prices) })) };
}

/** The inverse of `scaledPricesToStrings`; a field missing (a snapshot published before it existed) is 0. */
export function scaledPricesFromStrings(strings: Partial<ScaledPriceStrings>): ScaledPrices {
  const fromStrings = (record: Partial<Record<keyof UnitPrices, string>>) => {
    const prices = {} as UnitPrices;
    for (const field of PRICE_FIELDS) prices[field] = BigInt(record[field] ?? "0");
    return prices;
  };
  const tiers = (strings.tiers ?? []).map((tier) => ({ aboveInputTokens: tier.aboveInputTokens, prices: fromStrings(tier) }));
  return { ...fromStrings(strings), tiers: tiers.sort((a, b) => a.aboveInputTokens - b.aboveInputTokens) };
}
