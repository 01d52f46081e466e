/**
 * A fresh Idempotency-Key per dialog: a create retried after a lost answer returns the same key
 * and plaintext instead of minting a second one. getRandomValues works outside secure contexts too.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}
