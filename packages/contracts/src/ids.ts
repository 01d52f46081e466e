import { randomBytes, randomFillSync } from "node:crypto";

/** Every prefixed id in the system comes from here (`req_`, `key_`, `vnd_`, `vtk_`, ...). */
/** `we`, `rcd`, `pay`: wallet entries, redemption codes and payments (contract section 19); `conv`: conversations (section 18). */
export type IdPrefix = "req" | "key" | "vnd" | "vtk" | "so" | "up" | "mdl" | "rt" | "msg" | "chatcmpl" | "resp" | "aud" | "we" | "rcd" | "pay" | "conv";

/** Random bytes drawn 4 KB at a time (as randomUUID does), 16 per id. */
const ID_BYTES = 16;
const idPool = Buffer.alloc(ID_BYTES * 256);
let idOffset = idPool.length;

/** `<prefix>_` and 32 hex digits: 128 random bits, one string per id (a request makes one). */
export function newId(prefix: IdPrefix): string {
  if (idOffset === idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const hex = idPool.toString("hex", idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return `${prefix}_${hex}`;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Base62 text of `bytes` random bytes (rejection sampling keeps it unbiased). */
export function randomBase62(bytes: number): string {
  const length = Math.ceil((bytes * 8) / Math.log2(62));
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** What `newId(prefix)` can have made: the prefix, `_`, then up to 64 letters and digits. */
export function isIdOf(prefix: IdPrefix, value: string): boolean {
  return value.length <= prefix.length + 65 && value.startsWith(`${prefix}_`) && /^[A-Za-z0-9]+$/.test(value.slice(prefix.length + 1));
}
