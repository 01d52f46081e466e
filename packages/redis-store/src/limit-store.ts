import { randomBytes } from "node:crypto";
import type { RedisClient } from "./connect.ts";
import { ADMIT_SCRIPT, LEASE_HOLD_MS, SETTLE_SCRIPT } from "./limit-scripts.ts";
import { redisKeys, type RedisKeys } from "./redis-keys.ts";
import { customerSettlementText, NO_BUDGET, settleArguments, type CustomerSettlement, type SettlementCounters } from "./settlement.ts";
import {
  customerCounts,
  type CustomerLimits,
  BUDGET_COUNTER_GRACE_MS,
  budgetCounter,
  deferred,
  RATE_WINDOW_MS,
  type AdmissionLease,
  type AdmitInput,
  type AdmitResult,
  type AdmitVerdict,
  type BudgetCounter,
  type LimitStoreOptions,
  type SettleInput,
} from "./limit-types.ts";

export { LEASE_HOLD_MS } from "./limit-scripts.ts";
// The store's public types, as they were before they moved apart (BUDGET_COUNTER_GRACE_MS and deferred stay inside).
export { customerCounts, PLAN_WINDOW_MS, PLAN_WINDOWS, type CustomerLimits, type PlanWindow, type PlanWindowLimit } from "./limit-types.ts";
export { budgetCounter, RATE_WINDOW_MS, type AdmissionLease, type AdmitInput, type AdmitResult, type AdmitVerdict, type BudgetCounter, type LimitStoreOptions, type SettleInput } from "./limit-types.ts";

/** ADMIT_SCRIPT's lease arguments when none is asked for (the call admits its own request). */
const NO_LEASE = [0, "0", "", 0, 1] as const;
/** ADMIT_SCRIPT's arguments when no settlement rides along. */
const NO_SETTLEMENT = ["0"] as const;

const VERDICTS: AdmitVerdict[] = ["admitted", "requests_limited", "tokens_limited", "quota_exhausted", "budget_exhausted", "customer_budget_exhausted", "balance_exhausted", "plan_limited"];

type LimitCommands = {
  gatewayAdmit(...args: (string | number)[]): Promise<[number, number, number, number, number, number | string, number, (number | string)?]>;
  gatewaySettle(...args: (string | number)[]): Promise<number>;
};

/** Settlements of one key into the same counters, summed until the batch is written. */
interface PendingSettlement extends SettlementCounters {
  group: string;
  keyId: string;
  customerId: string | null;
  waiters: { resolve: () => void; reject: (error: unknown) => void }[];
}

/** A settlement's part for a lease: its slices shrink, requests it did not use go back to their window. */
type LeasePart = Pick<PendingSettlement, "leaseId" | "leaseReleaseNano" | "requestsBack" | "requestsWindow" | "tokensHolder" | "tokensRelease">;

/**
 * The nano-USD slice of `lease` shrinks by `releaseNano` and its token slice by `tokensRelease`
 * (each when it holds one), and `requestsBack` go back to its rate window.
 */
function leasePart(lease: AdmissionLease, releaseNano: bigint, requestsBack = 0, tokensRelease = 0): LeasePart {
  const holds = lease.sliceNano > 0n;
  const holdsTokens = lease.tokenSlice > 0 && tokensRelease > 0;
  return {
    leaseId: holds ? lease.id : "",
    leaseReleaseNano: holds ? releaseNano : 0n,
    requestsBack,
    requestsWindow: lease.window,
    tokensHolder: holdsTokens ? lease.id : "",
    tokensRelease: holdsTokens ? tokensRelease : 0,
  };
}

/** Whether a customer's limits hold money (a budget, a wallet, a USD window): requests reserve for them. */
function holdsCustomerMoney(customer: CustomerLimits | null): boolean {
  return customer !== null && (customer.budget !== null || customer.wallet || customer.windows.some((window) => window.usdNano !== null));
}

/** Whether a request's limits are the ones a lease was granted under. */
function sameLimits(lease: AdmissionLease, input: AdmitInput): boolean {
  const { limits } = lease;
  return (
    limits.rpm === input.rpm &&
    limits.tpm === input.tpm &&
    limits.quotaNano === input.quotaNano &&
    limits.budget?.limitNano === input.budget?.limitNano &&
    limits.budget?.period === input.budget?.period
  );
}

/**
 * Rate limits and quota counters in Redis: at most one script call per admission, the only Redis
 * round trip on the request path, and none for a request admitted from the key's lease.
 * Settlements are summed per key and counters off the response path and ride along with the key's
 * next admission call (booked first, in the same script call), or, when none comes within
 * `settleBatchMs`, are written with one script call per key. Until then the request's reservation
 * and tokens (or its lease's slices) stay held, so no replica can spend what is not there; sums
 * commute, so every replica sees exact counters a few milliseconds later. An admission fits or is
 * refused: its reservation in what is left of the quota and the budget, its tokens in the TPM with
 * those in flight (see limit-scripts.ts); a lease admits only what fits in what is left of its
 * slices. The proxy reads and writes through this class; the control plane rebuilds `spent` from
 * the Postgres ledger with `setSpent`.
 */
export class LimitStore {
  private readonly redis: RedisClient & LimitCommands;
  readonly keys: RedisKeys;
  /** The connection and prefix the counters live under (the wallet functions take them). */
  readonly client: RedisClient;
  readonly prefix: string;
  private readonly settleBatchMs: number;
  private readonly leaseRequests: number;
  private readonly leaseMs: number;
  private readonly renewAhead: boolean;
  private readonly onWriteError: (error: unknown) => void;
  private readonly clock: () => number;
  private pending = new Map<string, PendingSettlement>();
  /** The group of each api key's first pending settlement: the one its next admission carries. */
  private pendingByKey = new Map<string, string>();
  private flushTimer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  /** Each key's current lease in this process. */
  private readonly leases = new Map<string, AdmissionLease>();
  /** Keys with an admission call asking for a lease in flight: others meanwhile wait for it. */
  private readonly leaseAsked = new Map<string, Promise<unknown>>();
  /**
   * This process's random tag: the start of its lease ids (`<tag>.<count>`) and of the holders of
   * its own admissions' in-flight tokens (`<tag>.t<period>`). Written to the in-flight journal, so
   * a sweeper can drop what a dead process held (`dropProcessLeases`).
   */
  readonly processTag = randomBytes(6).toString("base64url");
  private leaseCount = 0;

  constructor(redis: RedisClient, prefix: string, options: LimitStoreOptions = {}) {
    this.settleBatchMs = options.settleBatchMs ?? 0;
    this.leaseRequests = options.leaseRequests ?? 0;
    this.leaseMs = options.leaseMs ?? 1000;
    this.renewAhead = options.renewAhead ?? false;
    this.onWriteError = options.onWriteError ?? (() => undefined);
    this.clock = options.clock ?? Date.now;
    if (!("gatewayAdmit" in redis)) {
      redis.defineCommand("gatewayAdmit", { numberOfKeys: 1, lua: ADMIT_SCRIPT });
      redis.defineCommand("gatewaySettle", { numberOfKeys: 1, lua: SETTLE_SCRIPT });
    }
    this.redis = redis as RedisClient & LimitCommands;
    this.client = redis;
    this.prefix = prefix;
    this.keys = redisKeys(prefix);
  }

  /**
   * The verdict, at once (no promise, no tick) when the key's lease in this process admits the
   * request, which is most requests of a busy key; else once Redis has answered.
   */
  admit(input: AdmitInput): AdmitResult | Promise<AdmitResult> {
    // A customer with limits shares its counters among its keys: one call per admission.
    const leasing = this.leaseRequests > 1 && input.lease !== false && !customerCounts(input.customer);
    if (!leasing) return this.call(input, input.now ?? this.clock(), false);
    const now = input.now ?? this.clock();
    return this.fromLease(input, now) ?? this.afterLease(input, now);
  }

  /**
   * The lease did not admit the request. One that finds the key's lease being asked for waits for
   * it rather than calling too (under load every request of that round trip would otherwise make
   * its own call); a few rounds at most, then a call of its own.
   */
  private async afterLease(input: AdmitInput, now: number): Promise<AdmitResult> {
    for (let round = 0; ; round += 1) {
      if (round > 0) {
        now = input.now ?? this.clock();
        const local = this.fromLease(input, now);
        if (local !== null) return local;
      }
      const asked = this.leaseAsked.get(input.keyId);
      if (asked === undefined) return this.call(input, now, true);
      if (round === 2) return this.call(input, now, false);
      await asked.catch(() => undefined);
    }
  }

  /** Admits from the key's lease when the request fits in it; a lease it does not fit in ends. */
  private fromLease(input: AdmitInput, now: number): AdmitResult | null {
    const lease = this.leases.get(input.keyId);
    if (lease === undefined) return null;
    const reservationNano = input.quotaNano !== null || input.budget !== null ? input.reservationNano : 0n;
    const tokens = input.tpm !== null ? (input.tokens ?? 0) : 0;
    // What is left of each of its slices holds the whole request, as an admission call asks of the key.
    const fits =
      sameLimits(lease, input) &&
      now < lease.endsAt &&
      lease.requestsLeft > 0 &&
      // A lease of a key with no quota and no budget holds no money (its slice is 0): the costs its
      // requests settle are still summed on it, and must not end it after its first settlement.
      (lease.sliceNano === 0n ? reservationNano === 0n : lease.consumedNano + lease.inFlightNano + reservationNano <= lease.sliceNano) &&
      // Likewise a key without a TPM: its lease holds no tokens, and settled tokens end nothing.
      (lease.tokenSlice === 0 ? tokens === 0 : lease.tokensSince + lease.tokensInFlight + tokens <= lease.tokenSlice);
    if (!fits) {
      // What is left of it goes back with the key's next call (booked before its check).
      this.endLease(lease);
      return null;
    }
    lease.requestsLeft -= 1;
    lease.admitted += 1;
    lease.inFlightNano += reservationNano;
    lease.tokensInFlight += tokens;
    if (this.renewAhead && !lease.renewing && this.runningLow(lease, now)) this.renew(lease, input, now);
    const resetMs = RATE_WINDOW_MS - (now % RATE_WINDOW_MS);
    return { verdict: "admitted", requestsUsed: lease.requestsBefore + lease.admitted, tokensUsed: lease.tokensBefore + lease.tokensSince + lease.tokensInFlight, resetMs, budget: lease.budget, lease, tokensHolder: null };
  }

  /** A quarter or less of its requests, its slices or (when a renewal would end later) its time is left. */
  private runningLow(lease: AdmissionLease, now: number): boolean {
    return (
      lease.requestsLeft * 4 <= lease.granted ||
      (lease.sliceNano > 0n && (lease.consumedNano + lease.inFlightNano) * 4n >= lease.sliceNano * 3n) ||
      (lease.tokenSlice > 0 && (lease.tokensSince + lease.tokensInFlight) * 4 >= lease.tokenSlice * 3) ||
      (!lease.capped && (lease.endsAt - now) * 4 <= this.leaseMs)
    );
  }

  /**
   * Asks for the key's next lease without a request of its own; the requests go on being admitted
   * from the current one meanwhile (and wait for this call, as for any lease being asked for, if it
   * runs out first). A failed renewal only means the next call is on the request path again.
   */
  private renew(lease: AdmissionLease, input: AdmitInput, now: number): void {
    lease.renewing = true;
    if (this.leaseAsked.has(input.keyId)) return;
    this.call(input, now, true, false).catch(() => undefined);
  }

  /** One admission script call, asking for a lease or not; `own` is false for a renewal (no request of its own). */
  private async call(input: AdmitInput, now: number, asking: boolean, own = true): Promise<AdmitResult> {
    const window = Math.floor(now / RATE_WINDOW_MS);
    const elapsed = now - window * RATE_WINDOW_MS;
    const customer = customerCounts(input.customer) ? input.customer : null;
    const reservationNano = input.quotaNano !== null || input.budget !== null || holdsCustomerMoney(customer) ? input.reservationNano : 0n;
    const tokens = input.tpm !== null ? (input.tokens ?? 0) : 0;
    const leaseId = asking ? `${this.processTag}.${++this.leaseCount}` : "";
    const tokensHolder = this.tokensHolder(now);
    const budget = input.budget && budgetCounter(input.budget.period, now);
    // A live lease's settled requests ride along too (a request-only admission while it lives).
    const live = this.leases.get(input.keyId);
    if (live !== undefined) this.queueLeaseSettlements(live, true);
    const carried = this.takePending(input.keyId);
    const customerArgs = customer ? this.customerAdmission(customer, now) : null;
    const admitted = this.redis.gatewayAdmit(
      this.keys.limits(input.keyId, input.customerId),
      input.rpm ?? 0,
      input.tpm ?? 0,
      elapsed,
      RATE_WINDOW_MS,
      input.quotaNano === null ? -1 : input.quotaNano.toString(),
      reservationNano.toString(),
      input.budget === null ? -1 : input.budget.limitNano.toString(),
      budget?.expiresAt ?? 0,
      window,
      budget ? `${budget.period}:${budget.periodStart}` : NO_BUDGET,
      ...(asking ? [this.leaseRequests, (reservationNano * BigInt(this.leaseRequests)).toString(), leaseId, now + this.leaseMs + LEASE_HOLD_MS, own ? 1 : 0] : NO_LEASE),
      tokens,
      tokensHolder,
      ...(carried ? ["1", ...settleArguments(carried)] : NO_SETTLEMENT),
      ...(customerArgs ? [customerArgs.text] : []),
    );
    if (carried) admitted.then(() => carried.waiters.forEach((waiter) => waiter.resolve()), (error: unknown) => carried.waiters.forEach((waiter) => waiter.reject(error)));
    if (asking) this.leaseAsked.set(input.keyId, admitted);
    let reply;
    try {
      reply = await admitted;
    } finally {
      if (asking) this.leaseAsked.delete(input.keyId);
    }
    const [verdict, requestsUsed, tokensUsed, , granted, slice, tokenSlice, extra] = reply;
    const result: AdmitResult = { verdict: VERDICTS[verdict] ?? "admitted", requestsUsed, tokensUsed, resetMs: RATE_WINDOW_MS - elapsed, budget, lease: null, tokensHolder: verdict === 0 && granted <= 1 && tokens > 0 ? tokensHolder : null };
    if (customerArgs && verdict === 0) result.customer = customerSettlementText(customerArgs.settlement(String(extra ?? "")));
    if (verdict === 7) result.retryMs = Number(extra ?? 0);
    if (verdict === 0 && granted > 1) {
      const ownHold = own ? { reservationNano, tokens } : null;
      result.lease = this.startLease(input, leaseId, now, window, granted, { nano: BigInt(slice), tokens: tokenSlice }, ownHold, requestsUsed, tokensUsed, budget);
    }
    return result;
  }

  /**
   * The customer's limits as ADMIT_SCRIPT reads them (JSON; fields left out when unused, as Lua's
   * cjson reads null as a value), and how its settlement is named once the script has said where
   * each plan window starts.
   */
  private customerAdmission(customer: CustomerLimits, now: number): { text: string; settlement: (starts: string) => CustomerSettlement } {
    const base = this.keys.customer(customer.id);
    const budget = customer.budget && budgetCounter(customer.budget.period, now);
    const args = {
      c: base,
      ...(customer.budget && budget ? { b: customer.budget.limitNano.toString(), bs: `${budget.period}:${budget.periodStart}`, be: String(budget.expiresAt) } : {}),
      ...(customer.wallet ? { w: 1 } : {}),
      p: customer.windows.map((window) => ({ k: window.key, len: window.lengthMs, rq: window.requests ?? -1, ...(window.usdNano !== null ? { usd: window.usdNano.toString() } : {}) })),
    };
    return {
      text: JSON.stringify(args),
      settlement: (starts) => {
        const at = starts === "" ? [] : starts.split(",");
        const windows = customer.windows.flatMap((window, index) => (window.usdNano !== null && at[index] !== undefined ? [{ k: window.key, s: at[index]! }] : []));
        return {
          c: base,
          ...(customer.wallet ? { w: 1 as const } : {}),
          ...(budget ? { bs: `${budget.period}:${budget.periodStart}`, be: String(budget.expiresAt) } : {}),
          ...(windows.length > 0 ? { p: windows } : {}),
        };
      },
    };
  }

  /**
   * Where this process's own admissions hold their tokens: its tag and the LEASE_HOLD_MS period of
   * the admission. Each admission keeps its field LEASE_HOLD_MS longer, so one field per period
   * bounds how long a release that never reached Redis (a write lost in a Redis outage) can hold
   * the key's TPM: two periods at most, however busy the key.
   */
  private tokensHolder(now: number): string {
    return `${this.processTag}.t${Math.floor(now / LEASE_HOLD_MS)}`;
  }

  /** `ownHold`: what the request the grant admitted holds of its slices, null for a renewal (none). */
  private startLease(input: AdmitInput, id: string, now: number, window: number, granted: number, slices: { nano: bigint; tokens: number }, ownHold: { reservationNano: bigint; tokens: number } | null, requestsUsed: number, tokensUsed: number, budget: BudgetCounter | null): AdmissionLease {
    // Never past the rate window its requests were counted in, nor the budget period its slice is held in.
    let endsAt = Math.min(now + this.leaseMs, (window + 1) * RATE_WINDOW_MS);
    if (budget) endsAt = Math.min(endsAt, budget.expiresAt - BUDGET_COUNTER_GRACE_MS);
    const own = ownHold !== null;
    const lease: AdmissionLease = {
      id,
      keyId: input.keyId,
      customerId: input.customerId ?? null,
      limits: { rpm: input.rpm, tpm: input.tpm, quotaNano: input.quotaNano, budget: input.budget },
      endsAt,
      capped: endsAt < now + this.leaseMs,
      granted: own ? granted - 1 : granted,
      renewing: false,
      window,
      countsRequests: input.rpm !== null,
      hasQuota: input.quotaNano !== null,
      budget,
      sliceNano: slices.nano,
      tokenSlice: slices.tokens,
      tokensInFlight: ownHold?.tokens ?? 0,
      requestsLeft: own ? granted - 1 : granted,
      requestsBefore: requestsUsed - 1,
      admitted: own ? 1 : 0,
      tokensBefore: tokensUsed - (ownHold?.tokens ?? 0),
      tokensSince: 0,
      consumedNano: 0n,
      inFlightNano: ownHold?.reservationNano ?? 0n,
      unwrittenTokens: 0,
      unwrittenCostNano: 0n,
      written: null,
      ended: false,
      timer: null,
    };
    const previous = this.leases.get(input.keyId);
    if (previous !== undefined) this.endLease(previous);
    this.leases.set(input.keyId, lease);
    lease.timer = setTimeout(() => this.endLease(lease), Math.max(0, endsAt - Date.now()));
    lease.timer.unref();
    return lease;
  }

  /** A lease admits no more: the requests it did not use and the slice its requests do not hold go back. */
  private endLease(lease: AdmissionLease): void {
    if (lease.ended) return;
    lease.ended = true;
    if (lease.timer !== null) clearTimeout(lease.timer);
    lease.timer = null;
    if (this.leases.get(lease.keyId) === lease) this.leases.delete(lease.keyId);
    this.queueLeaseSettlements(lease);
    const requestsBack = lease.countsRequests ? lease.requestsLeft : 0;
    const leaseReleaseNano = lease.sliceNano - lease.consumedNano - lease.inFlightNano;
    const tokensRelease = lease.tokenSlice - lease.tokensSince - lease.tokensInFlight;
    if (requestsBack === 0 && leaseReleaseNano <= 0n && tokensRelease <= 0) {
      // Its requests' settlements may be waiting for this end.
      if (this.pending.size > 0) this.armFlush();
      return;
    }
    this.queue(
      { keyId: lease.keyId, customerId: lease.customerId, tokens: 0, reservationNano: 0n, costNano: 0n, hasQuota: lease.hasQuota, budget: lease.budget },
      leasePart(lease, leaseReleaseNano > 0n ? leaseReleaseNano : 0n, requestsBack, Math.max(0, tokensRelease)),
    ).catch(this.onWriteError);
  }

  /** Queues what a lease's settled requests summed on it: their tokens, and their cost moved from its slice to the spend. */
  private queueLeaseSettlements(lease: AdmissionLease, soon = false): void {
    const written = lease.written;
    if (written === null) return;
    const settlement = { keyId: lease.keyId, customerId: lease.customerId, tokens: lease.unwrittenTokens, reservationNano: 0n, costNano: lease.unwrittenCostNano, hasQuota: lease.hasQuota, budget: lease.budget };
    const shrink = leasePart(lease, lease.unwrittenCostNano, 0, lease.unwrittenTokens);
    lease.unwrittenTokens = 0;
    lease.unwrittenCostNano = 0n;
    lease.written = null;
    this.queue(settlement, shrink, soon).then(written.resolve, written.reject);
  }

  /** Ends every lease of this process (shutdown): what is left goes back with the next flush. */
  endLeases(): void {
    for (const lease of [...this.leases.values()]) this.endLease(lease);
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

  /**
   * Books a finished request: its tokens, its cost, and the release of its reservation (from
   * `reserved`, or from its lease's slice). Resolves once written.
   */
  settle(input: SettleInput): Promise<void> {
    const lease = input.lease;
    if (!lease) return this.queue(input, null);
    if (!lease.ended) {
      // The lease goes on: the reservation returns to it, the cost is spent out of its slice. What
      // the key has committed (spent + slices) does not change by it, so it is summed on the lease
      // and queued with the key's next call or the lease's end (other processes see the tokens and
      // the spend at the latest then), not written on the short timer.
      lease.inFlightNano -= input.reservationNano;
      lease.tokensInFlight -= input.heldTokens ?? 0;
      lease.consumedNano += input.costNano;
      lease.tokensSince += input.tokens;
      lease.unwrittenTokens += input.tokens;
      lease.unwrittenCostNano += input.costNano;
      lease.written ??= deferred();
      return lease.written.promise;
    }
    // The lease has ended and kept this request's reservation and tokens in its slices until now.
    return this.queue({ ...input, reservationNano: 0n }, leasePart(lease, input.reservationNano, 0, input.heldTokens ?? 0));
  }

  private queue(input: SettleInput, part: LeasePart | null, soon = true): Promise<void> {
    const tokenWindow = String(Math.floor((input.now ?? this.clock()) / RATE_WINDOW_MS));
    const customer = input.customer ?? "";
    const customerId = input.customerId ?? null;
    const budgetSuffix = input.budget ? `${input.budget.period}:${input.budget.periodStart}` : NO_BUDGET;
    const leaseId = part?.leaseId ?? "";
    const requestsWindow = part?.requestsBack ? part.requestsWindow : 0;
    // A request admitted by a call of its own held its tokens under the holder its admission named.
    const tokensRelease = part ? part.tokensRelease : input.tokensHolder ? (input.heldTokens ?? 0) : 0;
    const tokensHolder = part ? part.tokensHolder : tokensRelease > 0 ? input.tokensHolder! : "";
    const group = `${input.keyId}\n${tokenWindow}\n${budgetSuffix}\n${input.hasQuota ? 1 : 0}\n${leaseId}\n${requestsWindow}\n${tokensHolder}\n${customerId ?? ""}\n${customer}`;
    let entry = this.pending.get(group);
    if (entry === undefined) {
      entry = {
        group,
        keyId: input.keyId,
        customerId,
        customer,
        tokenWindow,
        budgetSuffix,
        tokens: 0,
        reservationNano: 0n,
        costNano: 0n,
        hasQuota: input.hasQuota,
        budgetExpiresAt: input.budget?.expiresAt ?? 0,
        leaseId,
        leaseReleaseNano: 0n,
        requestsBack: 0,
        requestsWindow,
        tokensHolder,
        tokensRelease: 0,
        waiters: [],
      };
      this.pending.set(group, entry);
      if (!this.pendingByKey.has(input.keyId)) this.pendingByKey.set(input.keyId, group);
    }
    entry.tokens += input.tokens;
    entry.reservationNano += input.reservationNano;
    entry.costNano += input.costNano;
    entry.tokensRelease += tokensRelease;
    if (part) {
      entry.leaseReleaseNano += part.leaseReleaseNano;
      entry.requestsBack += part.requestsBack;
    }
    const written = new Promise<void>((resolve, reject) => entry.waiters.push({ resolve, reject }));
    if (soon) this.armFlush();
    return written;
  }

  private armFlush(): void {
    this.flushTimer ??= this.settleBatchMs > 0 ? setTimeout(() => void this.flush(), this.settleBatchMs) : setImmediate(() => void this.flush());
  }

  /** Writes every pending settlement now; resolves when Redis has them all. */
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
          .gatewaySettle(this.keys.limits(entry.keyId, entry.customerId), RATE_WINDOW_MS, ...settleArguments(entry))
          .then(
            () => entry.waiters.forEach((waiter) => waiter.resolve()),
            (error: unknown) => entry.waiters.forEach((waiter) => waiter.reject(error)),
          ),
      ),
    );
  }

  /** Shutdown: every lease ends and everything pending is written. */
  async close(): Promise<void> {
    // A lease being asked for (a renewal, too) ends with the others, not after them.
    await Promise.allSettled([...this.leaseAsked.values()]);
    this.endLeases();
    await this.flush();
  }

  /**
   * The ledger's spend in the budget's current period replaces its counter: after a rebuild
   * (reservations in flight are forgotten), or when a key gains a budget
   * (before proxies see it, so no request holds a reservation on it yet).
   */
  async setBudgetSpent(keyId: string, counter: BudgetCounter, spentNano: bigint, customerId?: string | null): Promise<void> {
    const key = `${this.keys.limits(keyId, customerId)}:budget:${counter.period}:${counter.periodStart}`;
    await this.redis.hset(key, { spent: spentNano.toString(), reserved: "0" });
    await this.redis.pexpireat(key, counter.expiresAt);
  }

  /** The budget's spend and what is held against it: reservations and live leases' slices, as admissions count them. */
  async readBudget(keyId: string, counter: BudgetCounter, customerId?: string | null): Promise<{ spent: bigint; reserved: bigint }> {
    const [spent, reserved] = await this.redis.hmget(`${this.keys.limits(keyId, customerId)}:budget:${counter.period}:${counter.periodStart}`, "spent", "reserved");
    return { spent: BigInt(spent ?? "0"), reserved: BigInt(reserved ?? "0") + (await this.leased(keyId, customerId)) };
  }

  /** The ledger's figure replaces the counter; reservations in flight are forgotten. */
  async setSpent(keyId: string, spentNano: bigint, customerId?: string | null): Promise<void> {
    await this.redis.hset(`${this.keys.limits(keyId, customerId)}:quota`, { spent: spentNano.toString(), reserved: "0" });
  }

  /** The quota's spend and what is held against it: reservations and live leases' slices, as admissions count them. */
  async readQuota(keyId: string, customerId?: string | null): Promise<{ spent: bigint; reserved: bigint }> {
    const [spent, reserved] = await this.redis.hmget(`${this.keys.limits(keyId, customerId)}:quota`, "spent", "reserved");
    return { spent: BigInt(spent ?? "0"), reserved: BigInt(reserved ?? "0") + (await this.leased(keyId, customerId)) };
  }

  /** nano-USD the key's live leases hold (every process's). */
  private async leased(keyId: string, customerId?: string | null): Promise<bigint> {
    const base = this.keys.limits(keyId, customerId);
    const [slices, live] = await Promise.all([this.redis.hgetall(`${base}:leases`), this.redis.zrangebyscore(`${base}:lease-ends`, Date.now(), "+inf")]);
    return live.reduce((sum, id) => sum + BigInt(slices[id] ?? "0"), 0n);
  }

  /** Tokens the key's requests in flight and live leases hold against its TPM (every process's), as admissions count them. */
  async readTokensHeld(keyId: string, customerId?: string | null): Promise<number> {
    const base = this.keys.limits(keyId, customerId);
    const [held, live] = await Promise.all([this.redis.hgetall(`${base}:tokens-held`), this.redis.zrangebyscore(`${base}:tokens-held-ends`, Date.now(), "+inf")]);
    return live.reduce((sum, holder) => sum + Number(held[holder] ?? "0"), 0);
  }
}
