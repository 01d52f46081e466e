import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { responseCipher, type ResponseCipher } from "../vendors/idempotency.ts";

/**
 * `x-gateway-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (contract
 * section 19). A receiver recomputes v1 over the exact bytes it received and refuses a `t` far from
 * its clock (replays).
 */
export const SIGNATURE_HEADER = "x-gateway-signature";

export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex")}`;
}

/** Checks a signature header against the body (what a vendor's receiver does); `toleranceSeconds` bounds replays. */
export function verifySignature(secret: string, body: string, header: string, options: { nowSeconds?: number; toleranceSeconds?: number } = {}): boolean {
  const parts = new Map(header.split(",").map((part) => part.split("=", 2) as [string, string]));
  const t = Number(parts.get("t"));
  const v1 = parts.get("v1") ?? "";
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signatureHeader(secret, body, t).split("v1=")[1]!, "hex");
  return timingSafeEqual(expected, Buffer.from(v1, "hex"));
}

/** A new signing secret, `whsec_` and 32 random bytes in base64url. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/**
 * The signing secret at rest: AES-256-GCM with the key that encrypts idempotent replies
 * (IDEMPOTENCY_SECRET through HKDF, vendors/idempotency.ts), the webhook id as authenticated data so
 * a ciphertext copied to another webhook does not decrypt.
 */
export interface SecretBox {
  seal(webhookId: string, secret: string): string;
  open(webhookId: string, ciphertext: string): string;
}

export function secretBox(idempotencySecret: string, cipher: ResponseCipher = responseCipher(idempotencySecret)): SecretBox {
  const associated = (webhookId: string) => `webhook-secret\n${webhookId}`;
  return {
    seal: (webhookId, secret) => cipher.encrypt(secret, associated(webhookId)),
    open: (webhookId, ciphertext) => {
      const value = cipher.decrypt(ciphertext, associated(webhookId));
      if (typeof value !== "string") throw new Error("a stored webhook secret is not a string");
      return value;
    },
  };
}
