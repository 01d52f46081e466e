import type { IncomingHttpHeaders } from "node:http";
import { hashSecret } from "@gateway/contracts";

/** A vendor token as the control plane issues it: `vt_` and base62 (contracts' newVendorToken). */
const VENDOR_TOKEN = /^vt_[A-Za-z0-9]{1,100}$/;
/** The bucket of every caller without a vendor token: the console's pages, bad or absent tokens. */
const NO_TOKEN = "";

/**
 * Relayed `/api` requests one vendor may have open at once in this process
 * (API_RELAY_VENDOR_CONCURRENCY), so one vendor's slow uploads cannot take the relay's whole pool
 * from the others. A vendor is its presented bearer token, kept only as its hash; callers without
 * one (or with something that is not a vendor token) share one bucket. The proxy cannot check a
 * token (the control plane does): the relay's pool (API_RELAY_CONNECTIONS) bounds all of them.
 */
export class VendorConcurrency {
  private readonly open = new Map<string, number>();
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** The bucket of a request's credential. */
  bucketOf(headers: IncomingHttpHeaders): string {
    const authorization = headers.authorization;
    if (typeof authorization !== "string" || authorization.slice(0, 7).toLowerCase() !== "bearer ") return NO_TOKEN;
    const token = authorization.slice(7).trim();
    return VENDOR_TOKEN.test(token) ? hashSecret(token) : NO_TOKEN;
  }

  /** Takes a slot of `bucket`, or false when it has none left. */
  acquire(bucket: string): boolean {
    const count = this.open.get(bucket) ?? 0;
    if (count >= this.limit) return false;
    this.open.set(bucket, count + 1);
    return true;
  }

  release(bucket: string): void {
    const count = this.open.get(bucket) ?? 0;
    if (count <= 1) this.open.delete(bucket);
    else this.open.set(bucket, count - 1);
  }
}
