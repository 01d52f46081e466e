/** Default bound on JSON nesting (contract section 13): deeper bodies are a 400 before parsing. */
export const DEFAULT_JSON_MAX_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether the JSON text in `bytes` nests objects/arrays deeper than `maxDepth`. One pass over the
 * bytes, skipping strings, before anything parses or walks the body: recursive code further on
 * (translation, canonical hashing, the database's JSON) never sees a body deep enough to exhaust
 * its stack, so such a body is the client's 400, never a fault blamed on an upstream.
 */
export function exceedsJsonDepth(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index]!;
    if (inString) {
      if (byte === BACKSLASH) index += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}
