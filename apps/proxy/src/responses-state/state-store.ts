import type { Queue } from "bullmq";
import {
  isStorableStateId,
  GatewayError,
  RESPONSES_STORE_JOB,
  RESPONSES_STORE_JOB_OPTIONS,
  storedConversationSchema,
  conversationItemSchema,
  storedResponseSchema,
  type ResponsesStoreJobData,
  type ResponsesStoreJobName,
  type StoredConversation,
  type StoredConversationItem,
  type StoredResponse,
} from "@gateway/contracts";
import type { Logger } from "@gateway/logger";
import type { RedisClient } from "@gateway/redis-store";
import { z } from "zod";
import type { Pool } from "../relay/undici-pool.ts";

/** What a deleted response or conversation's Redis key holds until it expires: later reads find nothing at once. */
const DELETED = "deleted";


/** A conversation and its items, in order. */
export interface ConversationState {
  conversation: StoredConversation;
  items: StoredConversationItem[];
}

export interface ResponsesStateOptions {
  redis: RedisClient;
  queue: Queue;
  prefix: string;
  /** How long the Redis copy of a change lives (the store of record is Postgres). */
  cacheTtlSeconds: number;
  /** The control plane (its internal reads) and the token they need. */
  controlPlane: Pool;
  internalToken: string;
  logger: Logger;
}

const conversationStateSchema = z.object({ conversation: storedConversationSchema, items: z.array(conversationItemSchema) });

/**
 * Stored Responses state (contract section 18), for the proxy, which never reaches Postgres. Every
 * change is put in Redis (a copy living RESPONSES_CACHE_TTL_SECONDS, so the very next request,
 * on any replica, continues at once) and on the responses-store queue, which the billing worker
 * writes to Postgres in order. Reads look in Redis first, then ask the control plane's internal
 * endpoint (which reads Postgres); what it finds is put back in Redis. A delete leaves a marker in
 * Redis for the copy's lifetime, so a read does not find the row the worker has not deleted yet.
 * Everything is scoped to a vendor: a record of another vendor is "not found", never probed.
 * Stored content is never logged (only ids).
 */
export class ResponsesStateStore {
  private readonly options: ResponsesStateOptions;
  /** Writes of this process not yet acknowledged by Redis (`resp:<id>`, `conv:<id>`): a read of the same record waits for them. */
  private readonly saving = new Map<string, Promise<unknown>>();

  constructor(options: ResponsesStateOptions) {
    this.options = options;
  }

  private key(kind: "resp" | "conv" | "conv-items" | "conv-seq", id: string): string {
    return `${this.options.prefix}:responses-state:${kind}:${id}`;
  }

  // ---- stored responses ----

  /** A stored response of `vendorId`, or null (unknown, deleted, expired, another vendor's). */
  async response(vendorId: string, id: string): Promise<StoredResponse | null> {
    if (!isStorableStateId(id)) return null;
    await this.saving.get(`resp:${id}`)?.catch(() => undefined);
    const cached = await this.options.redis.get(this.key("resp", id));
    if (cached === DELETED) return null;
    let record: StoredResponse | null = cached === null ? null : storedResponseSchema.parse(JSON.parse(cached));
    if (record === null) {
      record = await this.readControlPlane(`/internal/vendors/${encodeURIComponent(vendorId)}/responses/${encodeURIComponent(id)}`, storedResponseSchema);
      if (record !== null) await this.options.redis.set(this.key("resp", id), JSON.stringify(record), "EX", this.ttl(record.expiresAt));
    }
    if (record === null || record.vendorId !== vendorId || record.expiresAt <= Date.now()) return null;
    return record;
  }

  /** Puts the response in Redis (awaited by this process's next read of it) and on the queue. */
  saveResponse(record: StoredResponse): Promise<void> {
    const saved = this.options.redis
      .set(this.key("resp", record.id), JSON.stringify(record), "EX", this.ttl(record.expiresAt))
      .then(() => this.enqueue(RESPONSES_STORE_JOB.storeResponse, record))
      .catch((error: unknown) => this.options.logger.warn({ responseId: record.id, err: (error as Error).message }, "stored response not saved"));
    return this.track(`resp:${record.id}`, saved);
  }

  /** `work`, which this process's reads of `name` wait for until it is done. */
  private track<T>(name: string, work: Promise<T>): Promise<T> {
    const done = work.finally(() => {
      if (this.saving.get(name) === done) this.saving.delete(name);
    });
    this.saving.set(name, done);
    return done;
  }

  /** Deletes a stored response of `vendorId`; false when there is none. */
  async deleteResponse(vendorId: string, id: string): Promise<boolean> {
    const record = await this.response(vendorId, id);
    if (record === null) return false;
    await this.options.redis.set(this.key("resp", id), DELETED, "EX", this.options.cacheTtlSeconds);
    await this.enqueue(RESPONSES_STORE_JOB.deleteResponse, { id, vendorId }, true);
    return true;
  }

  // ---- conversations ----

  /** A conversation of `vendorId` with its items, or null. */
  async conversation(vendorId: string, id: string): Promise<ConversationState | null> {
    if (!isStorableStateId(id)) return null;
    await this.saving.get(`conv:${id}`)?.catch(() => undefined);
    const redis = this.options.redis;
    const [meta, items] = await Promise.all([redis.get(this.key("conv", id)), redis.lrange(this.key("conv-items", id), 0, -1)]);
    if (meta === DELETED) return null;
    let state: ConversationState | null = null;
    if (meta !== null) {
      const entries = items.map((text) => conversationItemSchema.parse(JSON.parse(text)));
      state = { conversation: storedConversationSchema.parse(JSON.parse(meta)), items: entries.sort((a, b) => a.position - b.position) };
    } else {
      state = await this.readControlPlane(`/internal/vendors/${encodeURIComponent(vendorId)}/conversations/${encodeURIComponent(id)}`, conversationStateSchema);
      if (state !== null) await this.cacheConversation(state);
    }
    if (state === null || state.conversation.vendorId !== vendorId || state.conversation.expiresAt <= Date.now()) return null;
    return state;
  }

  /** A new conversation with its first items. */
  async createConversation(conversation: StoredConversation, items: { id: string; item: Record<string, unknown> }[]): Promise<StoredConversationItem[]> {
    const entries = items.map((entry, position) => ({ ...entry, position }));
    await this.cacheConversation({ conversation, items: entries });
    await this.enqueue(RESPONSES_STORE_JOB.saveConversation, conversation, true);
    if (entries.length > 0) await this.enqueue(RESPONSES_STORE_JOB.addConversationItems, { conversationId: conversation.id, vendorId: conversation.vendorId, items: entries }, true);
    return entries;
  }

  /** The conversation's metadata replaced (the caller read it first, so it is the vendor's). */
  async updateConversation(conversation: StoredConversation): Promise<void> {
    await this.options.redis.set(this.key("conv", conversation.id), JSON.stringify(conversation), "EX", this.ttl(conversation.expiresAt));
    await this.enqueue(RESPONSES_STORE_JOB.saveConversation, conversation, true);
  }

  async deleteConversation(vendorId: string, id: string): Promise<boolean> {
    if ((await this.conversation(vendorId, id)) === null) return false;
    const redis = this.options.redis;
    await redis.multi().set(this.key("conv", id), DELETED, "EX", this.options.cacheTtlSeconds).del(this.key("conv-items", id), this.key("conv-seq", id)).exec();
    await this.enqueue(RESPONSES_STORE_JOB.deleteConversation, { id, vendorId }, true);
    return true;
  }

  /**
   * Items appended to a conversation of the caller's vendor (read first by the caller), after
   * those already there: positions come from one counter in Redis, so appends from several
   * replicas never share one.
   */
  addConversationItems(conversation: StoredConversation, items: { id: string; item: Record<string, unknown> }[]): Promise<StoredConversationItem[]> {
    return this.track(`conv:${conversation.id}`, this.appendItems(conversation, items));
  }

  private async appendItems(conversation: StoredConversation, items: { id: string; item: Record<string, unknown> }[]): Promise<StoredConversationItem[]> {
    if (items.length === 0) return [];
    const redis = this.options.redis;
    const ttl = this.ttl(conversation.expiresAt);
    const next = await redis.incrby(this.key("conv-seq", conversation.id), items.length);
    const entries = items.map((entry, index) => ({ ...entry, position: next - items.length + index }));
    await redis
      .multi()
      .rpush(this.key("conv-items", conversation.id), ...entries.map((entry) => JSON.stringify(entry)))
      .expire(this.key("conv-items", conversation.id), ttl)
      .expire(this.key("conv-seq", conversation.id), ttl)
      .expire(this.key("conv", conversation.id), ttl)
      .exec();
    await this.enqueue(RESPONSES_STORE_JOB.addConversationItems, { conversationId: conversation.id, vendorId: conversation.vendorId, items: entries }, true);
    return entries;
  }

  /** Removes one item of a conversation the caller read (`state`); false when it has no such item. */
  async deleteConversationItem(state: ConversationState, itemId: string): Promise<boolean> {
    const entry = state.items.find((item) => item.id === itemId);
    if (!entry) return false;
    const { conversation } = state;
    // The list holds each entry as it was pushed or cached: rewritten whole, without the item.
    const rest = state.items.filter((item) => item !== entry);
    await this.cacheConversation({ conversation, items: rest });
    await this.enqueue(RESPONSES_STORE_JOB.deleteConversationItem, { conversationId: conversation.id, vendorId: conversation.vendorId, itemId }, true);
    return true;
  }

  private async cacheConversation(state: ConversationState): Promise<void> {
    const { conversation, items } = state;
    const ttl = this.ttl(conversation.expiresAt);
    const next = items.reduce((max, item) => Math.max(max, item.position + 1), 0);
    const multi = this.options.redis
      .multi()
      .set(this.key("conv", conversation.id), JSON.stringify(conversation), "EX", ttl)
      .del(this.key("conv-items", conversation.id))
      .set(this.key("conv-seq", conversation.id), String(next), "EX", ttl);
    if (items.length > 0) multi.rpush(this.key("conv-items", conversation.id), ...items.map((item) => JSON.stringify(item))).expire(this.key("conv-items", conversation.id), ttl);
    await multi.exec();
  }

  // ---- plumbing ----

  /** The Redis copy's lifetime in seconds: the configured one, never past the record's expiry. */
  private ttl(expiresAt: number): number {
    return Math.max(1, Math.min(this.options.cacheTtlSeconds, Math.ceil((expiresAt - Date.now()) / 1000)));
  }

  /**
   * A job on the responses-store queue. `required`: a failure is the client's 503 (the change was
   * asked for by this request); otherwise it is logged (the answer is already out).
   */
  private async enqueue<Name extends ResponsesStoreJobName>(name: Name, data: ResponsesStoreJobData<Name>, required = false): Promise<void> {
    try {
      await this.options.queue.add(name, data, RESPONSES_STORE_JOB_OPTIONS);
    } catch (error) {
      if (!required) throw error;
      throw new GatewayError("dependency_unavailable", "Stored responses are unavailable right now; try again shortly.", { cause: error });
    }
  }

  /** An internal read of the control plane: the parsed body, null on 404, a 503 otherwise. */
  private async readControlPlane<Schema extends z.ZodType>(path: string, schema: Schema): Promise<z.infer<Schema> | null> {
    const unavailable = (cause: unknown) => new GatewayError("dependency_unavailable", "Stored responses are unavailable right now; try again shortly.", { cause });
    const answer = await this.options.controlPlane
      .request({ path, method: "GET", headers: { "x-internal-token": this.options.internalToken }, headersTimeout: 5_000, bodyTimeout: 5_000 })
      .catch((error: unknown) => {
        throw unavailable(error);
      });
    const text = await answer.body.text();
    if (answer.statusCode === 404) return null;
    if (answer.statusCode !== 200) throw unavailable(new Error(`control plane answered ${answer.statusCode}`));
    return schema.parse(JSON.parse(text));
  }
}
