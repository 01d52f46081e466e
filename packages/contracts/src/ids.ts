import { randomBytes, randomUUID } from "node:crypto";

/** Every prefixed id in the system comes from here (`req_`, `key_`, `vnd_`, `vtk_`, ...). */
export type IdPrefix = "req" | "key" | "vnd" | "vtk" | "so" | "up" | "mdl" | "rt" | "msg" | "chatcmpl" | "resp" | "aud";

export function newId(prefix: IdPrefix): string {
  // randomUUID draws from a cached entropy pool: the cheapest unique id Node offers.
  return `${prefix}_${randomUUID().replaceAll("-", "")}`;
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
