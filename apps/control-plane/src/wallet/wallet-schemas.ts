import { MAX_MONEY_NANO, parseUsdToNano } from "@gateway/contracts";
import { z } from "zod";

/**
 * Request bodies of the wallet's routes (contract section 19): strict (an unknown field is a 400
 * naming it), USD as decimal strings as everywhere else in the vendor API.
 */
const USD_AMOUNT = /^\d{1,10}(\.\d{1,6})?$/;
/** A positive USD amount, at most 6 decimals and 1,000,000,000 USD. */
export const positiveUsd = z
  .string()
  .regex(USD_AMOUNT, "a decimal USD amount as a string with at most 6 decimals, e.g. \"10.00\"")
  .refine((value) => !USD_AMOUNT.test(value) || parseUsdToNano(value) <= MAX_MONEY_NANO, "at most 1000000000 USD")
  .refine((value) => !USD_AMOUNT.test(value) || parseUsdToNano(value) > 0n, "must be more than 0");

/** A card amount: whole cents, at least 0.50 USD (Stripe's smallest USD charge), at most 999,999.99 (its largest). */
const CENTS_AMOUNT = /^\d{1,6}(\.\d{1,2})?$/;
export const cardUsd = z
  .string()
  .regex(CENTS_AMOUNT, "a USD amount in whole cents as a string, e.g. \"20.00\" (at most 999999.99)")
  .refine((value) => !CENTS_AMOUNT.test(value) || parseUsdToNano(value) >= 500_000_000n, "at least 0.50 USD");

const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
const httpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .describe("http(s) URL");

export const grantBodySchema = z.strictObject({
  amount: positiveUsd.describe("USD credited to the customer's wallet."),
  reason: z.string().max(500).refine((value) => !CONTROL_CHARACTERS.test(value), "must not contain control characters").default(""),
});

export const redemptionCodesBodySchema = z.strictObject({
  count: z.number().int().min(1).max(1000),
  amount: positiveUsd,
  expires_at: z.iso.datetime({ offset: true }).refine((value) => Date.parse(value) > Date.now(), "must be in the future").nullable().optional(),
});

export const checkoutBodySchema = z.strictObject({
  amount: cardUsd,
  success_url: httpUrl,
  cancel_url: httpUrl,
});

/** `{"below","amount"}` turns auto top-up on; `{"below":null,"amount":null}` turns it off. */
export const autoTopUpBodySchema = z.union([
  z.strictObject({ below: positiveUsd, amount: cardUsd }),
  z.strictObject({ below: z.null(), amount: z.null() }),
]);

export const internalRedeemBodySchema = z.strictObject({
  key_id: z.string().min(1).max(100),
  code: z.string().max(200),
});

/** nano-USD -> Stripe's smallest unit of USD (cents); callers pass whole-cent amounts. */
export function nanoToCents(nano: bigint): number {
  return Number(nano / 10_000_000n);
}

export function centsToNano(cents: number): bigint {
  return BigInt(cents) * 10_000_000n;
}
