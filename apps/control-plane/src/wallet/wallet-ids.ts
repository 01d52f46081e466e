import { randomBytes } from "node:crypto";
import { hashSecret, randomBase62 } from "@gateway/contracts";

/**
 * Ids of the wallet's rows (`we_`, `rc_`, `pay_`) and redemption codes. Same form as
 * @gateway/contracts' newId (prefix, `_`, 32 hex digits).
 * TODO(contracts): add these prefixes to IdPrefix and use newId.
 */
export type WalletIdPrefix = "we" | "rcd" | "pay";

export function newWalletId(prefix: WalletIdPrefix): string {
  return `${prefix}_${randomBytes(16).toString("hex")}`;
}

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
