import type { Opaque, Origin } from "./stream-parts.ts";

/*
 * The one codec for opaque values in fields clients echo back (shared/design/neutral-core.md
 * section 3.6): Responses `encrypted_content`, Anthropic `thinking.signature` and
 * `redacted_thinking.data`, chat `thinking_blocks` (ours). A value goes out tagged with the upstream
 * kind that made it, `<origin>.signature:` or `<origin>.redacted_thinking:` before the bytes, so the
 * next request sends it to the writer of that kind only (never inside a tool-call id, LiteLLM #18160).
 *
 * Untagged text has always meant one of two things in every such field, and still does: a Fernet
 * token (OpenAI's encrypted reasoning, which names itself by its version byte) or else an Anthropic
 * signature (what this gateway issued untagged before the codec). So those two stay byte-identical
 * wherever they go, which also keeps every value already issued readable; any other value (a Gemini
 * thoughtSignature) is tagged. No tag holds a character of base64, so none is taken for a value.
 */

/** Every Fernet token starts with its version byte 0x80 and a zero timestamp head: base64url "gAAAAA". */
const FERNET_PREFIX = "gAAAAA";

const ORIGINS: readonly Origin[] = ["anthropic", "openai", "gemini"];

/** `redacted`: the value is a redacted block's data, not a signature (Anthropic redacted_thinking). */
function tag(origin: Origin, redacted: boolean): string {
  return `${origin}.${redacted ? "redacted_thinking" : "signature"}:`;
}

/** The tag of Anthropic's redacted thinking data in a field that holds signatures too (Responses `encrypted_content`). */
export const REDACTED_THINKING_PREFIX = tag("anthropic", true);

/** A value read back from a client's field: who made it, and whether it is redacted data rather than a signature. */
export interface DecodedOpaque extends Opaque {
  redacted: boolean;
}

/** The origin untagged text stands for. */
function untaggedOrigin(text: string): Origin {
  return text.startsWith(FERNET_PREFIX) ? "openai" : "anthropic";
}

/**
 * An opaque value as a client-visible string. `redacted`: it is redacted data written into a field
 * that does not say so itself (Responses `encrypted_content`); a field that does (Anthropic's and
 * chat's `redacted_thinking.data`) passes false. Untagged only when it reads back as itself.
 */
export function encodeOpaque(opaque: Opaque, redacted = false): string {
  if (!redacted && untaggedOrigin(opaque.value) === opaque.origin && decodeTag(opaque.value) === null) return opaque.value;
  return tag(opaque.origin, redacted) + opaque.value;
}

/** A string a client echoed back -> the opaque value it carries (the inverse of `encodeOpaque`). */
export function decodeOpaque(text: string): DecodedOpaque {
  return decodeTag(text) ?? { origin: untaggedOrigin(text), value: text, redacted: false };
}

function decodeTag(text: string): DecodedOpaque | null {
  for (const origin of ORIGINS) {
    for (const redacted of [false, true]) {
      const prefix = tag(origin, redacted);
      if (text.startsWith(prefix)) return { origin, value: text.slice(prefix.length), redacted };
    }
  }
  return null;
}
