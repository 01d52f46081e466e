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
  /** Each loaded record's secret hash: a request's record tells which secret it came with (ending a rotated secret's streams). */
  private readonly hashes = new WeakMap<KeyRecord, string>();
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

  /** The secret hash `record` was loaded for, or null for a record this cache did not load. */
  hashOf(record: KeyRecord): string | null {
    return this.hashes.get(record) ?? null;
  }

  clear(): void {
    this.entries.clear();
  }

  /**
   * Makes every entry due for a re-read, keeping its record as the fallback while Redis cannot
   * answer. For a reconnect after missed events: dropping the entries instead would turn known keys
   * into 503s whenever the subscriber is back before the connection that reads the records.
   */
  expireAll(): void {
    for (const entry of this.entries.values()) entry.expiresAt = 0;
  }

  private async load(hash: string, stale: Entry | undefined): Promise<KeyRecord | null> {
    try {
      const record = await this.store.readKey(hash);
      if (record === null && !(await this.storePopulated())) throw new StoreEmpty();
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(hash, { record, expiresAt: Date.now() + (record ? this.ttlMs : this.negativeTtlMs) });
      if (record !== null) this.hashes.set(record, hash);
      return record;
    } catch (error) {
      // A key we knew keeps working while Redis is away or empty; an unknown one gets 503, never a false 401.
      if (stale?.record) return stale.record;
      throw new GatewayError("dependency_unavailable", "The key store is unavailable; try again shortly.", { cause: error, retryAfter: 1 });
    } finally {
      this.pending.delete(hash);
    }
  }

  /**
   * A missing key is only "no such key" when Redis holds the control plane's records. A Redis
   * restarted empty answers `null` for every key until the control plane rebuilds it; the routing
   * snapshot is written first by that rebuild, so its absence marks a store not filled yet.
   */
  private async storePopulated(): Promise<boolean> {
    return (await this.store.redis.exists(this.store.keys.snapshot)) === 1;
  }
}

class StoreEmpty extends Error {
  constructor() {
    super("the key store holds no records (Redis restarted empty; the control plane has not rebuilt it yet)");
    this.name = "StoreEmpty";
  }
}
