import { GatewayError } from "@gateway/contracts";
import type { KeyRecord, RecordStore } from "@gateway/redis-store";

interface Entry {
  record: KeyRecord | null;
  expiresAt: number;
}

/**
 * Keeps key records in process so a cached key costs no Redis round trip. Entries live for a TTL
 * and are evicted at once by the control plane's pub/sub event (revocations reach every replica
 * within a second); "no such key" is remembered briefly so floods of bad keys stay off Redis.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<KeyRecord | null>>();
  private readonly store: RecordStore;
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly maxEntries: number;

  constructor(store: RecordStore, options: { ttlMs: number; negativeTtlMs: number; maxEntries?: number }) {
    this.store = store;
    this.ttlMs = options.ttlMs;
    this.negativeTtlMs = options.negativeTtlMs;
    this.maxEntries = options.maxEntries ?? 100_000;
  }

  /** The record for `hash`, or null when no such key exists. Throws 503 when Redis cannot say. */
  get(hash: string): Promise<KeyRecord | null> | KeyRecord | null {
    const entry = this.entries.get(hash);
    if (entry && entry.expiresAt > Date.now()) return entry.record;
    const inFlight = this.pending.get(hash);
    if (inFlight) return inFlight;
    const load = this.load(hash, entry);
    this.pending.set(hash, load);
    return load;
  }

  invalidate(hash: string): void {
    this.entries.delete(hash);
  }

  clear(): void {
    this.entries.clear();
  }

  private async load(hash: string, stale: Entry | undefined): Promise<KeyRecord | null> {
    try {
      const record = await this.store.readKey(hash);
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(hash, { record, expiresAt: Date.now() + (record ? this.ttlMs : this.negativeTtlMs) });
      return record;
    } catch (error) {
      // A key we knew keeps working while Redis is away; an unknown one gets 503, never a false 401.
      if (stale?.record) return stale.record;
      throw new GatewayError("dependency_unavailable", "The key store is unavailable; try again shortly.", { cause: error });
    } finally {
      this.pending.delete(hash);
    }
  }
}
