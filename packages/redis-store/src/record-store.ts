import type { RedisClient } from "./connect.ts";
import { redisKeys, type RedisKeys } from "./redis-keys.ts";
import {
  keyRecordSchema,
  routingSnapshotSchema,
  storeEventSchema,
  type KeyRecord,
  type RoutingSnapshot,
  type StoreEvent,
} from "./records.ts";

/**
 * Sets a key record unless the stored one has a higher revision, so two control planes writing
 * changes of one key (concurrent top-ups, say) can never leave the older state in Redis. Equal
 * revisions overwrite: a record written ahead of a transaction that then rolled back is replaced by
 * the next real write. KEYS: the record. ARGV: the JSON, its revision. Returns 1 when written.
 */
const WRITE_KEY_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current then
  local ok, decoded = pcall(cjson.decode, current)
  if ok and type(decoded) == 'table' and (tonumber(decoded.revision) or 0) > tonumber(ARGV[2]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
`;

type RecordCommands = { gatewayWriteKey(key: string, json: string, revision: number): Promise<number> };

/**
 * Reads and writes the shared Redis records. The control plane writes (and publishes the change);
 * proxies read. Writes publish only after the record is stored, so a proxy that reacts to the
 * event always reads the new value.
 */
export class RecordStore {
  readonly keys: RedisKeys;
  readonly redis: RedisClient;

  constructor(redis: RedisClient, prefix: string) {
    if (!("gatewayWriteKey" in redis)) redis.defineCommand("gatewayWriteKey", { numberOfKeys: 1, lua: WRITE_KEY_SCRIPT });
    this.redis = redis;
    this.keys = redisKeys(prefix);
  }

  async readKey(hash: string): Promise<KeyRecord | null> {
    const text = await this.redis.get(this.keys.apiKey(hash));
    return text === null ? null : keyRecordSchema.parse(JSON.parse(text));
  }

  /**
   * Stores the record (unless Redis holds a newer revision of it) and tells every proxy. Returns
   * false when a newer revision was already there.
   */
  async writeKey(hash: string, record: KeyRecord): Promise<boolean> {
    const parsed = keyRecordSchema.parse(record);
    const written = await (this.redis as RedisClient & RecordCommands).gatewayWriteKey(this.keys.apiKey(hash), JSON.stringify(parsed), parsed.revision);
    await this.publish({ type: "key_changed", hash });
    return written === 1;
  }

  /**
   * Writes many key records without a notice each (a rebuild from Postgres). One SET per key, sent
   * together: on a Redis Cluster the keys live on different nodes, so they cannot share a pipeline.
   */
  async restoreKeys(entries: readonly (readonly [hash: string, record: KeyRecord])[]): Promise<void> {
    await Promise.all(entries.map(([hash, record]) => this.redis.set(this.keys.apiKey(hash), JSON.stringify(keyRecordSchema.parse(record)))));
  }

  async deleteKey(hash: string): Promise<void> {
    await this.redis.del(this.keys.apiKey(hash));
    await this.publish({ type: "key_changed", hash });
  }

  async readSnapshot(): Promise<RoutingSnapshot | null> {
    const text = await this.redis.get(this.keys.snapshot);
    return text === null ? null : routingSnapshotSchema.parse(JSON.parse(text));
  }

  async writeSnapshot(snapshot: RoutingSnapshot): Promise<void> {
    await this.redis.set(this.keys.snapshot, JSON.stringify(routingSnapshotSchema.parse(snapshot)));
    await this.publish({ type: "snapshot_changed", version: snapshot.version });
  }

  async publish(event: StoreEvent): Promise<void> {
    await this.redis.publish(this.keys.events, JSON.stringify(event));
  }

  /**
   * Subscribes `subscriber` (a dedicated connection) to store events. `onReconnect` runs after the
   * subscription is re-established, because events published while disconnected were missed.
   */
  async subscribe(subscriber: RedisClient, onEvent: (event: StoreEvent) => void, onReconnect: () => void): Promise<void> {
    let ready = false;
    subscriber.on("ready", () => {
      if (ready) onReconnect();
    });
    subscriber.on("message", (channel: string, message: string) => {
      if (channel !== this.keys.events) return;
      const parsed = storeEventSchema.safeParse(safeJson(message));
      if (parsed.success) onEvent(parsed.data);
    });
    await subscriber.subscribe(this.keys.events);
    ready = true;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
