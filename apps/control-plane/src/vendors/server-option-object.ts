import { formatUsd, scaledUnitPrices } from "@gateway/contracts";
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
        const prices = scaledUnitPrices({
          model: link.model,
          multiplierBps: option.priceMultiplierBps,
          overrides: { inputPrice: link.inputPrice, outputPrice: link.outputPrice, cachedInputPrice: link.cachedInputPrice, imagePrice: link.imagePrice },
        });
        return [
          link.model.name,
          {
            input: perMillionTokensUsd(prices.inputPrice),
            output: perMillionTokensUsd(prices.outputPrice),
            cached_input: perMillionTokensUsd(prices.cachedInputPrice),
            image: perImageUsd(prices.imagePrice),
          },
        ];
      }),
    ),
    rate_limits: { rpm: option.rpm, tpm: option.tpm },
  };
}
