import { hash, timingSafeEqual } from "node:crypto";
import { randomBase62 } from "./ids.ts";

/** Client keys: `sk-` + 32 random bytes in base62. Only the hash is ever stored. */
export function newApiKey(): string {
  return `sk-${randomBase62(32)}`;
}

/** Vendor tokens: `vt_` + 32 random bytes in base62. */
export function newVendorToken(): string {
  return `vt_${randomBase62(32)}`;
}

/** SHA-256 hex of a secret. The one-shot `hash` skips the Hash object `createHash` builds, on every request's key. */
export function hashSecret(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** The part of a secret that may be shown and logged: `sk-ab12`, `vt_ab12`. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, 7);
}

/** Constant-time comparison of two hex hashes of equal length. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
