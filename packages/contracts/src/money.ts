/**
 * Money is integers everywhere (contract section 4): costs and quotas in nano-USD, prices in
 * pico-USD per unit (= micro-USD per million tokens, or per image). JSON shows USD decimal strings.
 */
const NANO_PER_USD = 1_000_000_000n;
const PICO_PER_NANO = 1000n;

/** "10.00" -> 10_000_000_000n nano-USD. At most 9 decimals; no sign, no exponent. */
export function parseUsdToNano(text: string): bigint {
  return parseDecimal(text, 9);
}

/** Price text in USD per million tokens ("0.15") or per image ("0.04" with perUnit) -> pico-USD per unit. */
export function parsePriceToPico(text: string, unit: "per_million_tokens" | "per_unit"): bigint {
  return unit === "per_million_tokens" ? parseDecimal(text, 6) : parseDecimal(text, 12);
}

function parseDecimal(text: string, scale: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new RangeError(`not a non-negative decimal amount: ${JSON.stringify(text)}`);
  const whole = match[1] ?? "0";
  const fraction = match[2] ?? "";
  if (fraction.length > scale) throw new RangeError(`more than ${scale} decimals: ${JSON.stringify(text)}`);
  return BigInt(whole + fraction.padEnd(scale, "0"));
}

/** nano-USD -> "0.000150" (6 decimals, rounded half up; negative values keep their sign). */
export function formatUsd(nano: bigint, decimals = 6): string {
  const negative = nano < 0n;
  const absolute = negative ? -nano : nano;
  const step = 10n ** BigInt(9 - decimals);
  const rounded = (absolute + step / 2n) / step;
  const unit = 10n ** BigInt(decimals);
  const text = `${rounded / unit}.${(rounded % unit).toString().padStart(decimals, "0")}`;
  return negative && rounded !== 0n ? `-${text}` : text;
}

/** pico-USD amount -> nano-USD, rounded half up. Rounding happens once per request, never per chunk. */
export function picoToNano(pico: bigint): bigint {
  return (pico + PICO_PER_NANO / 2n) / PICO_PER_NANO;
}

/**
 * The largest quota, top-up, resulting quota or budget a key may hold (contract section 14:
 * 1,000,000,000 USD): far below BIGINT's range and Redis's integer counters, so no sum of them
 * and a month of spend can overflow either.
 */
export const MAX_MONEY_NANO = 1_000_000_000n * NANO_PER_USD;

export { NANO_PER_USD };
