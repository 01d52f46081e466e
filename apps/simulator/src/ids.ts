/** Cheap unique ids: prefix + per-process random part + counter (base 36). */
const PROCESS_PART = Math.floor(Math.random() * 36 ** 8).toString(36).padStart(8, '0');
let counter = 0;

export function newId(prefix: string): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}${PROCESS_PART}${counter.toString(36).padStart(10, '0')}`;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
