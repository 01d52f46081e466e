/** Deterministic text: words from a fixed list, seeded by a string. One word = one output token. */

export const WORDS: readonly string[] = [
  'alpha', 'bravo', 'cedar', 'delta', 'ember', 'falcon', 'garden', 'harbor',
  'island', 'jasper', 'kettle', 'lantern', 'meadow', 'nectar', 'orbit', 'pepper',
  'quartz', 'river', 'saddle', 'timber', 'umbra', 'velvet', 'willow', 'xenon',
  'yonder', 'zephyr', 'amber', 'basil', 'copper', 'dune', 'echo', 'fable',
  'glacier', 'hazel', 'indigo', 'juniper', 'kernel', 'lumen', 'maple', 'nova',
  'olive', 'prairie', 'quill', 'raven', 'sierra', 'tundra', 'utopia', 'vortex',
  'walnut', 'yarrow', 'zenith', 'anchor', 'beacon', 'canyon', 'drift', 'onyx',
  'pixel', 'ripple', 'summit', 'thistle', 'valley', 'whisper', 'marble', 'comet',
];

/** FNV-1a 32-bit hash. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** `count` words chosen deterministically from `seed` (same seed, same words). */
export function generateWords(seed: string, count: number): string[] {
  let state = hashString(seed) || 1;
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    words.push(WORDS[state % WORDS.length] as string);
  }
  return words;
}

/** Stream pieces: the first word bare, every later word with a leading space. */
export function toPieces(words: readonly string[]): string[] {
  return words.map((word, i) => (i === 0 ? word : ` ${word}`));
}

/** Input tokens for `chars` characters of request text: ceil(chars / 4), at least 1. */
export function countInputTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

/** Split `text` into at least `min` non-empty pieces of roughly `size` characters. */
export function splitPieces(text: string, size = 10, min = 2): string[] {
  if (text.length === 0) return [''];
  const count = Math.min(text.length, Math.max(min, Math.ceil(text.length / size)));
  const step = Math.ceil(text.length / count);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += step) pieces.push(text.slice(i, i + step));
  return pieces;
}
