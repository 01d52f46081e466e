import { hashSecret, randomBase62 } from "@gateway/contracts";

/* The wallet's row ids (`we_`, `rcd_`, `pay_`) come from @gateway/contracts' newId. */

/** A customer id as the customers' routes make them (`cus_` and letters or digits); anything else is a 404 before any lookup. */
export function isCustomerId(value: string): boolean {
  return /^cus_[A-Za-z0-9]{1,64}$/.test(value);
}

/** A redemption code's plaintext: `rc_` + 24 random bytes in base62; only its hash is stored. */
export function newRedemptionCode(): string {
  return `rc_${randomBase62(24)}`;
}

export function hashRedemptionCode(code: string): string {
  return hashSecret(code);
}
