import { formatUsd, priceSheetOf, scaledUnitPrices, type UnitPrices } from "@gateway/contracts";
import type { Model, ServerOption, ServerOptionModel } from "@gateway/db";
import type { ServerOptionObject } from "./api-schemas.ts";

export type ServerOptionWithModels = ServerOption & { models: (ServerOptionModel & { model: Model })[] };

/** `scaledUnitPrices` keeps 1/10000 pico-USD per unit, so a multiplied price is exact until shown. */
const SCALED_PER_PICO = 10_000n;
/** Scaled units per micro-USD: per million tokens (1e6 tokens, 1e6 pico per micro), and per image. */
const SCALED_PER_MICRO_PER_MILLION_TOKENS = SCALED_PER_PICO;
const SCALED_PER_MICRO_PER_IMAGE = SCALED_PER_PICO * 1_000_000n;

function scaledToUsd(scaled: bigint, perMicro: bigint): string {
  const micro = (scaled + perMicro / 2n) / perMicro;
  return formatUsd(micro * 1000n);
}

/** A scaled price per token -> USD per million tokens, "0.150000" (rounded half up once). */
export function perMillionTokensUsd(scaledPerToken: bigint): string {
  return scaledToUsd(scaledPerToken, SCALED_PER_MICRO_PER_MILLION_TOKENS);
}

/** A scaled price per image -> USD per image, "0.040000". */
export function perImageUsd(scaledPerImage: bigint): string {
  return scaledToUsd(scaledPerImage, SCALED_PER_MICRO_PER_IMAGE);
}

function pricesInUsd(prices: UnitPrices) {
  return {
    input: perMillionTokensUsd(prices.inputPrice),
    output: perMillionTokensUsd(prices.outputPrice),
    cached_input: perMillionTokensUsd(prices.cachedInputPrice),
    cache_write: perMillionTokensUsd(prices.cacheWritePrice),
    cache_write_1h: perMillionTokensUsd(prices.cacheWrite1hPrice),
    image: perImageUsd(prices.imagePrice),
    request: perImageUsd(prices.requestPrice),
    web_search: perImageUsd(prices.webSearchPrice),
  };
}

/**
 * The server option object of GET /api/server-options. Prices come from the same
 * `scaledUnitPrices` the billing worker charges with: the option's override, else the model's
 * list price x the option's multiplier.
 */
export function toServerOptionObject(option: ServerOptionWithModels): ServerOptionObject {
  const links = [...option.models].sort((a, b) => (a.model.name < b.model.name ? -1 : a.model.name > b.model.name ? 1 : 0));
  return {
    id: option.id,
    name: option.name,
    description: option.description,
    models: links.map((link) => link.model.name),
    pricing: Object.fromEntries(
      links.map((link) => {
        const prices = scaledUnitPrices(priceSheetOf(link.model, option.priceMultiplierBps, link));
        return [link.model.name, { ...pricesInUsd(prices), tiers: prices.tiers.map((tier) => ({ above_input_tokens: tier.aboveInputTokens, ...pricesInUsd(tier.prices) })) }];
      }),
    ),
    rate_limits: { rpm: option.rpm, tpm: option.tpm },
  };
}
