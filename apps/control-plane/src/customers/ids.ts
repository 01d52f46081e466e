import { randomBytes } from "node:crypto";

/** The ids of the reseller's business (contract section 19): `cus_`, `plan_`, `sub_` and 32 hex digits. */
export type CustomerIdPrefix = "cus" | "plan" | "sub";

export function newCustomerId(prefix: CustomerIdPrefix): string {
  return `${prefix}_${randomBytes(16).toString("hex")}`;
}

/** What `newCustomerId(prefix)` can have made; anything else is a missing object (404 before any lookup). */
export function isCustomerIdOf(prefix: CustomerIdPrefix, value: unknown): value is string {
  return typeof value === "string" && value.length <= prefix.length + 65 && value.startsWith(`${prefix}_`) && /^[A-Za-z0-9]+$/.test(value.slice(prefix.length + 1));
}
