import { budgetWindow, type BudgetPeriod } from "@gateway/contracts";
import type { RedisClient } from "./connect.ts";
import { ADMIT_SCRIPT, SETTLE_SCRIPT } from "./limit-scripts.ts";
import { redisKeys, type RedisKeys } from "./redis-keys.ts";

export const RATE_WINDOW_MS = 60_000;

export type AdmitVerdict = "admitted" | "requests_limited" | "tokens_limited" | "quota_exhausted" | "budget_exhausted";

/** A budget counter outlives its period by a day, so a late settlement still finds it. */
const BUDGET_COUNTER_GRACE_MS = 86_400_000;

/** Where one period's budget spend is counted: the counter's period start and when it expires. */
export interface BudgetCounter {
  period: BudgetPeriod;
  periodStart: number;
  expiresAt: number;
}

export function budgetCounter(period: BudgetPeriod, now: number): BudgetCounter {
  const { start, end } = budgetWindow(period, now);
  return { period, periodStart: start, expiresAt: end + BUDGET_COUNTER_GRACE_MS };
}

export interface AdmitInput {
  keyId: string;
  rpm: number | null;
  tpm: number | null;
  /** nano-USD; null = unlimited. */
  quotaNano: bigint | null;
  /** Periodic budget beside the quota; null = none. */
  budget: { limitNano: bigint; period: BudgetPeriod } | null;
  /** nano-USD held (on the quota and the budget) until the request settles. */
  reservationNano: bigint;
  now?: number;
}

export interface AdmitResult {
  verdict: AdmitVerdict;
  requestsUsed: number;
  tokensUsed: number;
  /** ms until the current rate window ends. */
  resetMs: number;
  /** The budget counter the reservation was taken on (settle there), null without a budget. */
  budget: BudgetCounter | null;
}

/** ADMIT_SCRIPT's arguments when no settlement rides along. */
const NO_SETTLEMENT = ["0"] as const;
/** The budget suffix of a key without a budget (never read by the scripts then). */
const NO_BUDGET = "none:0";

/**
 * A pending settlement as both scripts take it (SETTLE_FUNCTION's arguments after the counter
 * base): token window, budget `<period>:<start>`, tokens, release (negative), cost, has-quota,
 * has-budget, budget expiry.
 */
function settleArguments(entry: PendingSettlement): [string, string, number, string, string, string, string, number] {
  return [
    entry.tokenWindow,
    entry.budgetSuffix,
    entry.tokens,
    (-entry.reservationNano).toString(),
    entry.costNano.toString(),
    entry.hasQuota ? "1" : "0",
    entry.budgetExpiresAt > 0 ? "1" : "0",
    entry.budgetExpiresAt,
  ];
}

const VERDICTS: AdmitVerdict[] = ["admitted", "requests_limited", "tokens_limited", "quota_exhausted", "budget_exhausted"];

type LimitCommands = {
  gatewayAdmit(...args: (string | number)[]): Promise<[number, number, number, number]>;
  gatewaySettle(...args: (string | number)[]): Promise<number>;
};

export interface SettleInput {
  keyId: string;
  tokens: number;
  reservationNano: bigint;
  costNano: bigint;
  hasQuota: boolean;
  budget: BudgetCounter | null;
  now?: number;
}

/** Settlements of one key into the same counters, summed until the batch is written. */
interface PendingSettlement {
  group: string;
  keyId: string;
  /** The rate window (its number) the tokens are booked into. */
  tokenWindow: string;
  /** `<period>:<start>` of the budget the requests were admitted in (`none:0` without one). */
  budgetSuffix: string;
  tokens: number;
  reservationNano: bigint;
  costNano: bigint;
  hasQuota: boolean;
  budgetExpiresAt: number;
  waiters: { resolve: () => void; reject: (error: unknown) => void }[];
}

/**
 * Rate limits and quota counters in Redis: one script call per admission, the only Redis round trip
 * on the request path. Settlements are summed per key and counters off the response path and ride
 * along with the key's next admission (booked first, in the same script call), or, when no
 * admission of that key comes within `settleBatchMs`, are written with one script call per key.
 * Until then the request's reservation stays held, so no replica can spend what is not there;
 * sums commute, so every replica sees exact counters a few milliseconds later. The proxy reads and
 * writes through this class; the control plane rebuilds `spent` from the Postgres ledger with
 * `setSpent`.
 */
export class LimitStore {
  private readonly redis: RedisClient & LimitCommands;
  readonly keys: RedisKeys;
  private readonly settleBatchMs: number;
  private pending = new Map<string, PendingSettlement>();
  /** The group of each api key's first pending settlement: the one its next admission carries. */
  private pendingByKey = new Map<string, string>();
  private flushTimer: NodeJS.Timeout | NodeJS.Immediate | null = null;

  constructor(redis: RedisClient, prefix: string, options: { settleBatchMs?: number } = {}) {
    this.settleBatchMs = options.settleBatchMs ?? 0;
    if (!("gatewayAdmit" in redis)) {
      redis.defineCommand("gatewayAdmit", { numberOfKeys: 1, lua: ADMIT_SCRIPT });
      redis.defineCommand("gatewaySettle", { numberOfKeys: 1, lua: SETTLE_SCRIPT });
    }
    this.redis = redis as RedisClient & LimitCommands;
    this.keys = redisKeys(prefix);
  }

  async admit(input: AdmitInput): Promise<AdmitResult> {
    const now = input.now ?? Date.now();
    const window = Math.floor(now / RATE_WINDOW_MS);
    const elapsed = now - window * RATE_WINDOW_MS;
    const budget = input.budget && budgetCounter(input.budget.period, now);
    const holds = input.quotaNano !== null || budget !== null;
    const carried = this.takePending(input.keyId);
    const admitted = this.redis.gatewayAdmit(
      this.keys.limits(input.keyId),
      input.rpm ?? 0,
      input.tpm ?? 0,
      elapsed,
      RATE_WINDOW_MS,
      input.quotaNano === null ? -1 : input.quotaNano.toString(),
      holds ? input.reservationNano.toString() : "0",
      input.budget === null ? -1 : input.budget.limitNano.toString(),
      budget?.expiresAt ?? 0,
      window,
      budget ? `${budget.period}:${budget.periodStart}` : NO_BUDGET,
      ...(carried ? ["1", ...settleArguments(carried)] : NO_SETTLEMENT),
    );
    if (carried) admitted.then(() => carried.waiters.forEach((waiter) => waiter.resolve()), (error: unknown) => carried.waiters.forEach((waiter) => waiter.reject(error)));
    const [verdict, requestsUsed, tokensUsed] = await admitted;
    return { verdict: VERDICTS[verdict] ?? "admitted", requestsUsed, tokensUsed, resetMs: RATE_WINDOW_MS - elapsed, budget };
  }

  /** The key's first pending settlement, taken out of the batch to ride along with its admission. */
  private takePending(keyId: string): PendingSettlement | undefined {
    const group = this.pendingByKey.get(keyId);
    if (group === undefined) return undefined;
    this.pendingByKey.delete(keyId);
    const entry = this.pending.get(group);
    this.pending.delete(group);
    // Nothing else to write: no timer wakes the process for an empty batch (one request after
    // another, each settlement rides along with the next admission and no timer ever fires).
    if (this.pending.size === 0) this.cancelFlushTimer();
    return entry;
  }

  private cancelFlushTimer(): void {
    if (this.flushTimer === null) return;
    clearTimeout(this.flushTimer as NodeJS.Timeout);
    clearImmediate(this.flushTimer as NodeJS.Immediate);
    this.flushTimer = null;
  }

  /** Books a finished request: its tokens, its cost, and the release of its reservation. Resolves once written. */
  settle(input: SettleInput): Promise<void> {
    const tokenWindow = String(Math.floor((input.now ?? Date.now()) / RATE_WINDOW_MS));
    const budgetSuffix = input.budget ? `${input.budget.period}:${input.budget.periodStart}` : NO_BUDGET;
    const group = `${input.keyId}\n${tokenWindow}\n${budgetSuffix}\n${input.hasQuota ? 1 : 0}`;
    let entry = this.pending.get(group);
    if (entry === undefined) {
      entry = {
        group,
        keyId: input.keyId,
        tokenWindow,
        budgetSuffix,
        tokens: 0,
        reservationNano: 0n,
        costNano: 0n,
        hasQuota: input.hasQuota,
        budgetExpiresAt: input.budget?.expiresAt ?? 0,
        waiters: [],
      };
      this.pending.set(group, entry);
      if (!this.pendingByKey.has(input.keyId)) this.pendingByKey.set(input.keyId, group);
    }
    entry.tokens += input.tokens;
    entry.reservationNano += input.reservationNano;
    entry.costNano += input.costNano;
    const written = new Promise<void>((resolve, reject) => entry.waiters.push({ resolve, reject }));
    this.flushTimer ??= this.settleBatchMs > 0 ? setTimeout(() => void this.flush(), this.settleBatchMs) : setImmediate(() => void this.flush());
    return written;
  }

  /** Writes every pending settlement now (also on shutdown); resolves when Redis has them all. */
  async flush(): Promise<void> {
    this.cancelFlushTimer();
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.pendingByKey = new Map();
    // One call per key (never one multi-key script or pipeline: on a Redis Cluster the keys live on different nodes).
    await Promise.all(
      [...batch.values()].map((entry) =>
        this.redis
          .gatewaySettle(this.keys.limits(entry.keyId), RATE_WINDOW_MS, ...settleArguments(entry))
          .then(
            () => entry.waiters.forEach((waiter) => waiter.resolve()),
            (error: unknown) => entry.waiters.forEach((waiter) => waiter.reject(error)),
          ),
      ),
    );
  }

  /**
   * The ledger's spend in the budget's current period replaces its counter: after a rebuild
   * (reservations in flight are forgotten), or when a key gains a budget
   * (before proxies see it, so no request holds a reservation on it yet).
   */
  async setBudgetSpent(keyId: string, counter: BudgetCounter, spentNano: bigint): Promise<void> {
    const key = this.keys.budget(keyId, counter.period, counter.periodStart);
    await this.redis.hset(key, { spent: spentNano.toString(), reserved: "0" });
    await this.redis.pexpireat(key, counter.expiresAt);
  }

  async readBudget(keyId: string, counter: BudgetCounter): Promise<{ spent: bigint; reserved: bigint }> {
    const [spent, reserved] = await this.redis.hmget(this.keys.budget(keyId, counter.period, counter.periodStart), "spent", "reserved");
    return { spent: BigInt(spent ?? "0"), reserved: BigInt(reserved ?? "0") };
  }

  /** The ledger's figure replaces the counter; reservations in flight are forgotten. */
  async setSpent(keyId: string, spentNano: bigint): Promise<void> {
    await this.redis.hset(this.keys.quota(keyId), { spent: spentNano.toString(), reserved: "0" });
  }

  async readQuota(keyId: string): Promise<{ spent: bigint; reserved: bigint }> {
    const [spent, reserved] = await this.redis.hmget(this.keys.quota(keyId), "spent", "reserved");
    return { spent: BigInt(spent ?? "0"), reserved: BigInt(reserved ?? "0") };
  }
}
