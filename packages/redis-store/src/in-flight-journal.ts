import { BUDGET_PERIODS, billingEventSchema, usageSchema } from "@gateway/contracts";
import { z } from "zod";
import type { RedisClient } from "./connect.ts";
import type { HeldReservation } from "./orphan-release.ts";

/**
 * The journal of requests in flight (contract section 14, "A process that dies"): every proxy
 * process keeps, in Redis, one hash of the requests it admitted and has not yet queued a billing
 * event for, each with its last checkpointed usage and what it holds of the key's limits; and a
 * heartbeat. The billing worker's sweeper claims the journal of a process whose heartbeat ran out
 * and bills each entry `interrupted` (see apps/billing-worker/src/orphan-sweeper.ts).
 *
 * Every key below shares the `{journal}` hash tag: one cluster slot, so a script may touch them
 * all (the claim moves a hash and two sorted sets at once). The traffic is one script call per
 * process per checkpoint, and the sweeper's reads.
 */
export function journalKeys(prefix: string) {
  const base = `${prefix ? `${prefix}:` : ""}{journal}:`;
  return {
    /** Scripts name the per-process hashes from this base. */
    base,
    /** Sorted set: process id -> when its heartbeat runs out (epoch ms, Redis's clock). */
    live: `${base}live`,
    /** Sorted set: process id -> when a sweeper's claim on its journal runs out (another may then take it). */
    claims: `${base}claims`,
    /** Hash of a live process: `meta` and one field per request id. */
    process: (processId: string) => `${base}p:${processId}`,
    /** The same hash once a sweeper has claimed it. */
    claimed: (processId: string) => `${base}c:${processId}`,
  };
}

/** The field of a process's hash holding its `JournalMeta` (request ids start with `req_`). */
export const JOURNAL_META_FIELD = "meta";

export const journalMetaSchema = z.object({
  /** `LimitStore.processTag`: the sweeper drops this process's leases and in-flight tokens by it. */
  processTag: z.string(),
  pid: z.number().int(),
  host: z.string(),
});
export type JournalMeta = z.infer<typeof journalMetaSchema>;

/** What a journal entry's reservation must hold (`HeldReservation`); the sweeper gets it whole, fields added later too. */
const heldReservationSchema = z.object({
  requestId: z.string(),
  keyId: z.string(),
  reservationNano: z.string().regex(/^\d+$/),
  tokens: z.number().int().nonnegative(),
  hasQuota: z.boolean(),
  budget: z.object({ period: z.enum(BUDGET_PERIODS), periodStart: z.number(), expiresAt: z.number() }).nullable(),
  leaseId: z.string().nullable(),
  processTag: z.string(),
  tokensHolder: z.string().nullable().optional(),
  customerId: z.string().nullable().optional(),
  customer: z.string().optional(),
}) satisfies z.ZodType<HeldReservation>;

/**
 * One request in a journal: the billing event's fields known at admission, the usage at the last
 * checkpoint (what the sweeper bills), when that was, and what the request holds of the key's limits.
 */
export const journalEntrySchema = billingEventSchema
  .pick({ requestId: true, apiKeyId: true, vendorId: true, serverOption: true, model: true, endpoint: true, stream: true, upstream: true, upstreamModel: true, startedAt: true })
  .extend({
    usage: usageSchema,
    checkpointAt: z.number().int(),
    reservation: heldReservationSchema.nullable(),
  });
export type JournalEntry = z.input<typeof journalEntrySchema>;

/**
 * KEYS: live, the process's hash. ARGV: process id, heartbeat ms, meta JSON, the number of entries
 * to write, then (request id, entry JSON) pairs, then request ids to delete. Heartbeats are on
 * Redis's clock (TIME), so proxies' and sweepers' clocks never have to agree. Returns 1, or 0
 * when a sweeper had already claimed this process (it was taken for dead: a stall longer than its
 * heartbeat); the journal then starts again.
 */
const CHECKPOINT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local known = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('HSET', KEYS[2], '${JOURNAL_META_FIELD}', ARGV[3])
local count = tonumber(ARGV[4])
local last = 4 + count * 2
for index = 5, last, 2 do redis.call('HSET', KEYS[2], ARGV[index], ARGV[index + 1]) end
for index = last + 1, #ARGV do redis.call('HDEL', KEYS[2], ARGV[index]) end
if known then return 1 end
return 0
`;

/**
 * KEYS: live, claims. ARGV: key base, claim ms, most processes to claim. Takes the journals of
 * processes whose heartbeat ran out (renamed from `p:` to `c:`, so their process can no longer
 * write to them), and claims whose sweeper died, atomically: two sweepers never claim one journal
 * at the same time. Returns the process ids now this caller's to sweep.
 */
const CLAIM_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local base = ARGV[1]
local until_ms = now + tonumber(ARGV[2])
local claimed = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))) do
  redis.call('ZREM', KEYS[1], id)
  if redis.call('EXISTS', base .. 'p:' .. id) == 1 then
    redis.call('RENAME', base .. 'p:' .. id, base .. 'c:' .. id)
    redis.call('ZADD', KEYS[2], until_ms, id)
    table.insert(claimed, id)
  end
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))) do
  redis.call('ZADD', KEYS[2], until_ms, id)
  table.insert(claimed, id)
end
return claimed
`;

type JournalCommands = {
  gatewayJournalCheckpoint(...args: (string | number)[]): Promise<number>;
  gatewayJournalClaim(...args: (string | number)[]): Promise<string[]>;
};

function withCommands(redis: RedisClient): RedisClient & JournalCommands {
  if (!("gatewayJournalCheckpoint" in redis)) {
    redis.defineCommand("gatewayJournalCheckpoint", { numberOfKeys: 2, lua: CHECKPOINT_SCRIPT });
    redis.defineCommand("gatewayJournalClaim", { numberOfKeys: 2, lua: CLAIM_SCRIPT });
  }
  return redis as RedisClient & JournalCommands;
}

export interface CheckpointInput {
  processId: string;
  /** How long the process counts as alive after this call. */
  heartbeatMs: number;
  meta: JournalMeta;
  /** Entries new or changed since the last checkpoint. */
  upserts: readonly JournalEntry[];
  /** Request ids whose billing event is queued (or that ended without one). */
  deletes: readonly string[];
}

/** One call per checkpoint: heartbeat, meta, entries written and removed. False when the journal had been claimed. */
export async function writeJournalCheckpoint(redis: RedisClient, prefix: string, input: CheckpointInput): Promise<boolean> {
  const keys = journalKeys(prefix);
  const pairs = input.upserts.flatMap((entry) => [entry.requestId, JSON.stringify(entry)]);
  const known = await withCommands(redis).gatewayJournalCheckpoint(keys.live, keys.process(input.processId), input.processId, input.heartbeatMs, JSON.stringify(input.meta), input.upserts.length, ...pairs, ...input.deletes);
  return known === 1;
}

/** A graceful end: the process's heartbeat and its journal are gone (every entry's event was queued). */
export async function removeJournal(redis: RedisClient, prefix: string, processId: string): Promise<void> {
  const keys = journalKeys(prefix);
  await redis.zrem(keys.live, processId);
  await redis.del(keys.process(processId));
}

/** The journals of dead processes this caller may now sweep (see CLAIM_SCRIPT). */
export async function claimDeadJournals(redis: RedisClient, prefix: string, claimMs: number, most = 10): Promise<string[]> {
  const keys = journalKeys(prefix);
  return withCommands(redis).gatewayJournalClaim(keys.live, keys.claims, keys.base, claimMs, most);
}

/** A claimed journal: its meta (null when unreadable) and its entries; malformed fields are returned apart. */
export async function readClaimedJournal(redis: RedisClient, prefix: string, processId: string): Promise<{ meta: JournalMeta | null; entries: JournalEntry[]; malformed: string[] }> {
  const fields = await redis.hgetall(journalKeys(prefix).claimed(processId));
  let meta: JournalMeta | null = null;
  const entries: JournalEntry[] = [];
  const malformed: string[] = [];
  for (const [field, text] of Object.entries(fields)) {
    const raw = parseJson(text);
    const parsed = (field === JOURNAL_META_FIELD ? journalMetaSchema : journalEntrySchema).safeParse(raw);
    if (!parsed.success) malformed.push(field);
    else if (field === JOURNAL_META_FIELD) meta = parsed.data as JournalMeta;
    // The reservation as the limiter described it, every field (checked above, not stripped).
    else entries.push({ ...(parsed.data as JournalEntry), reservation: (raw as { reservation: HeldReservation | null }).reservation });
  }
  return { meta, entries, malformed };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Takes one entry out of a claimed journal; true for the one caller that removed it (gates its release). */
export async function takeClaimedEntry(redis: RedisClient, prefix: string, processId: string, field: string): Promise<boolean> {
  return (await redis.hdel(journalKeys(prefix).claimed(processId), field)) === 1;
}

/** The sweep of a claimed journal is done. */
export async function finishClaim(redis: RedisClient, prefix: string, processId: string): Promise<void> {
  const keys = journalKeys(prefix);
  await redis.del(keys.claimed(processId));
  await redis.zrem(keys.claims, processId);
}
