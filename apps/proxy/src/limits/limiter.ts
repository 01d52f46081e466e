import { costOfUsage, GatewayError, type BillingEvent, type ScaledPrices } from "@gateway/contracts";
import type { Logger } from "@gateway/logger";
import { customerCounts, PLAN_WINDOW_MS, type AdmissionLease, type AdmitResult, type BudgetCounter, type CustomerLimits, type HeldReservation, type KeyRecord, type LimitStore, type ServerOptionRecord } from "@gateway/redis-store";
import type { EndpointName, ParsedRequest } from "../core/wire-format.ts";
import { outputBoundField } from "../core/output-bound.ts";
import { requestBoundNano, requestTokens, unitPrices } from "./request-bound.ts";

interface Held {
  keyId: string;
  reservationNano: bigint;
  /** Tokens held in flight against the TPM (0 without one), and where (null: in its lease). */
  tokens: number;
  tokensHolder: string | null;
  hasQuota: boolean;
  budget: BudgetCounter | null;
  prices: ScaledPrices | null;
  lease: AdmissionLease | null;
  /** The key's customer, and where the settlement also goes there ('' = nowhere). */
  customerId: string | null;
  customer: string;
}

/** Redis counters are signed 64-bit: an amount past this cannot even be compared there. */
const REDIS_INTEGER_MAX = 2n ** 63n - 1n;

/** Seconds a client waits before retrying when the limits cannot be checked (Redis away). */
const UNAVAILABLE_RETRY_AFTER_S = 1;

/**
 * The longest a request waits for its admission call by default (`REDIS_WAIT_MS`). A Redis that
 * hangs with its socket open answers nothing and closes nothing; behind a lease being asked for, or
 * other commands of the same auto-pipeline, a request would wait for several timed-out commands in a row.
 */
export const ADMISSION_WAIT_MS = 2_000;

export interface Admission {
  /** The OpenAI `x-ratelimit-*` headers for this response (empty when the key has no limits). */
  headers: Record<string, string>;
  /** Set when the request must be refused (429). */
  refusal: GatewayError | null;
}

const NO_LIMITS: Admission = Object.freeze({ headers: {}, refusal: null });

/** What one admission checks: null is "no such limit". */
interface Limits {
  rpm: number | null;
  tpm: number | null;
  quotaNano: bigint | null;
  budget: { limitNano: bigint; period: NonNullable<KeyRecord["budget"]>["period"] } | null;
  reservationNano: bigint;
  /** Input estimate + output bound, held against the TPM until settled (0 without a TPM). */
  tokens: number;
  prices: ScaledPrices | null;
  /** Whether the request is settled later (its tokens and cost booked); false for a request-only admission. */
  settles: boolean;
  /** The key's customer's limits (null: no customer, or one without limits). */
  customer: CustomerLimits | null;
}

/** A key record's customer as admission checks it, made once per record (records are replaced, never changed). */
const customerLimitsOf = new WeakMap<KeyRecord, CustomerLimits | null>();

function customerLimits(key: KeyRecord): CustomerLimits | null {
  const customer = key.customer;
  if (customer == null) return null;
  let limits = customerLimitsOf.get(key);
  if (limits === undefined) {
    const plan = customer.plan;
    limits = {
      id: customer.id,
      budget: customer.budget && { limitNano: BigInt(customer.budget.limitNano), period: customer.budget.period },
      wallet: customer.prepaid,
      windows: plan
        ? plan.windows.map((window, index) => ({
            key: `plan:${plan.subscriptionId}:${index}`,
            lengthMs: PLAN_WINDOW_MS[window.window],
            requests: window.requests,
            usdNano: window.usdNano === null ? null : BigInt(window.usdNano),
          }))
        : [],
    };
    if (!customerCounts(limits)) limits = null;
    customerLimitsOf.set(key, limits);
  }
  return limits;
}

/** Whether the customer's limits hold money: requests reserve their worst case for them. */
function holdsMoney(customer: CustomerLimits | null): boolean {
  return customer !== null && (customer.budget !== null || customer.wallet || customer.windows.some((window) => window.usdNano !== null));
}

/** "1s" to "60s": a rate window's reset is at most a minute away, so no string is made per request. */
const SECONDS = Array.from({ length: 61 }, (_, count) => `${count}s`);

function seconds(ms: number): string {
  const count = Math.max(1, Math.ceil(ms / 1000));
  return SECONDS[count] ?? `${count}s`;
}

/**
 * Rate limits (RPM, TPM), the quota and the budget, checked in one Redis script before the upstream
 * is called (or from the key's lease in this process, without a call) and settled when the
 * request's billing event is recorded. A request is admitted only if it fits (contract section 14):
 * its worst-case cost in what is left of the quota and the budget, its tokens with those of every
 * request in flight in the TPM. Limits hold across replicas because the counters, and every
 * lease's slice of them, live in Redis. Never admitted unchecked: a number of the request that no
 * counter can hold is its 400; when Redis cannot answer, a request is admitted only from a lease
 * this process already holds, else refused 503 with `retry-after`.
 */
export class Limiter {
  private readonly held = new Map<string, Held>();
  /**
   * Settlement writes already watched for failure. Settlements summed on one lease (and those
   * batched together) share one write: one watcher for it, not a promise and a closure per
   * request kept until the lease's end.
   */
  private readonly watched = new WeakSet<Promise<void>>();
  private readonly store: LimitStore;
  private readonly logger: Logger;
  private readonly admissionWaitMs: number;

  constructor(store: LimitStore, logger: Logger, admissionWaitMs = ADMISSION_WAIT_MS) {
    this.store = store;
    this.logger = logger;
    this.admissionWaitMs = admissionWaitMs;
  }

  /** At once (no promise) when the key has no limits or its lease in this process admits the request. */
  admit(requestId: string, key: KeyRecord, option: ServerOptionRecord, model: string, request: ParsedRequest, requestBytes: number, endpoint: EndpointName): Admission | Promise<Admission> {
    const rpm = key.rpm ?? option.rpm;
    const tpm = key.tpm ?? option.tpm;
    const quotaNano = key.quotaNano === null ? null : BigInt(key.quotaNano);
    const budget = key.budget && { limitNano: BigInt(key.budget.limitNano), period: key.budget.period };
    // A key without a customer pays nothing more here: one null check.
    const customer = key.customer == null ? null : customerLimits(key);
    const models = key.customer?.plan?.models;
    if (models !== undefined && models.length > 0 && !models.includes(model)) {
      return { headers: {}, refusal: new GatewayError("model_not_allowed", `The model '${model}' is not part of this key's plan.`, { param: "model" }) };
    }
    if (rpm === null && tpm === null && quotaNano === null && budget === null && customer === null) return NO_LIMITS;
    const prices = unitPrices(option, model);
    const reservationNano = (quotaNano !== null || budget !== null || holdsMoney(customer)) && prices ? requestBoundNano(request, requestBytes, prices, endpoint) : 0n;
    const tokens = tpm !== null ? requestTokens(request, requestBytes, endpoint) : 0;
    // Checked before any script call: an amount no counter can hold is the request's own error,
    // never a failed check that would leave it unchecked.
    if (reservationNano > REDIS_INTEGER_MAX || !Number.isSafeInteger(tokens)) {
      const field = outputBoundField(request.body, endpoint);
      const message = `${field ?? "The request"}: the request's worst case is beyond what a limit can count; lower its output limit.`;
      return { headers: {}, refusal: new GatewayError("invalid_body", message, { param: field }) };
    }
    if (tpm !== null && tokens > tpm) {
      // It could never fit, whatever the window holds: refused as OpenAI refuses it, nothing counted.
      return { headers: {}, refusal: new GatewayError("rate_limit_exceeded", `Request too large: ${tokens} tokens (input estimate and output limit), above this key's limit of ${tpm} tokens per minute.`) };
    }
    return this.check(requestId, key, { rpm, tpm, quotaNano, budget, reservationNano, tokens, prices, settles: true, customer });
  }

  /**
   * A request that costs nothing and uses no tokens (a token count): it takes one slot of the
   * key's requests per minute, and is refused when the key's quota or budget is already spent; it
   * reserves nothing of them, nor of its tokens.
   */
  admitRequestOnly(requestId: string, key: KeyRecord, option: ServerOptionRecord): Admission | Promise<Admission> {
    const rpm = key.rpm ?? option.rpm;
    const quotaNano = key.quotaNano === null ? null : BigInt(key.quotaNano);
    const budget = key.budget && { limitNano: BigInt(key.budget.limitNano), period: key.budget.period };
    // Its customer's money limits refuse it once spent; a plan's windows do not count it.
    const limits = key.customer == null ? null : customerLimits(key);
    const customer = limits && (limits.budget !== null || limits.wallet) ? { ...limits, windows: [] } : null;
    if (rpm === null && quotaNano === null && budget === null && customer === null) return NO_LIMITS;
    return this.check(requestId, key, { rpm, tpm: null, quotaNano, budget, reservationNano: 0n, tokens: 0, prices: null, settles: false, customer });
  }

  /**
   * What request `requestId` holds while in flight (null once settled, or when its key has no
   * limits), for the journal: a sweeper gives it back with `releaseOrphanReservation` if this
   * process dies.
   */
  reservation(requestId: string): HeldReservation | null {
    const held = this.held.get(requestId);
    if (!held) return null;
    return {
      requestId,
      keyId: held.keyId,
      reservationNano: held.reservationNano.toString(),
      tokens: held.tokens,
      hasQuota: held.hasQuota,
      budget: held.budget,
      leaseId: held.lease?.id ?? null,
      processTag: this.store.processTag,
      tokensHolder: held.tokensHolder,
      ...(held.customerId !== null ? { customerId: held.customerId, customer: held.customer } : {}),
    };
  }

  private check(requestId: string, key: KeyRecord, limits: Limits): Admission | Promise<Admission> {
    const { rpm, tpm, quotaNano, budget, reservationNano, tokens } = limits;
    let result: AdmitResult | Promise<AdmitResult>;
    try {
      result = this.store.admit({ keyId: key.id, rpm, tpm, quotaNano, budget, reservationNano, tokens, lease: limits.settles, ...(key.customer != null ? { customerId: key.customer.id, customer: limits.customer } : {}) });
    } catch (error) {
      return this.unavailable(requestId, error);
    }
    if (result instanceof Promise) return this.bounded(requestId, key, limits, result);
    return this.verdict(requestId, key, limits, result);
  }

  /**
   * The verdict of an admission call, or the 503 once `admissionWaitMs` has passed without one: a
   * timer on this slow path only, never on a lease's. A request admitted after its client was
   * refused gives its reservation back at once.
   */
  private bounded(requestId: string, key: KeyRecord, limits: Limits, result: Promise<AdmitResult>): Promise<Admission> {
    return new Promise<Admission>((resolve) => {
      let refused = false;
      const timer = setTimeout(() => {
        refused = true;
        resolve(this.unavailable(requestId, new Error(`no answer from Redis within ${this.admissionWaitMs} ms`)));
      }, this.admissionWaitMs);
      result.then(
        (answer) => {
          if (!refused) {
            clearTimeout(timer);
            resolve(this.verdict(requestId, key, limits, answer));
          } else if (answer.verdict === "admitted" && limits.settles) {
            this.write(requestId, this.holding(key, limits, answer), 0, 0n);
          }
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (!refused) resolve(this.unavailable(requestId, error));
        },
      );
    });
  }

  /** The check could not be made (Redis away, a script error): refused, never let through. */
  private unavailable(requestId: string, error: unknown): Admission {
    this.logger.warn({ requestId, err: (error as Error).message }, "limit check unavailable; request refused");
    const refusal = new GatewayError("dependency_unavailable", "The gateway cannot check this key's limits right now; retry shortly.", { retryAfter: UNAVAILABLE_RETRY_AFTER_S, cause: error });
    return { headers: {}, refusal };
  }

  private verdict(requestId: string, key: KeyRecord, limits: Limits, result: AdmitResult): Admission {
    const { rpm, tpm, budget } = limits;
    const headers: Record<string, string> = {};
    if (rpm !== null) {
      headers["x-ratelimit-limit-requests"] = String(rpm);
      headers["x-ratelimit-remaining-requests"] = String(Math.max(0, rpm - result.requestsUsed));
      headers["x-ratelimit-reset-requests"] = seconds(result.resetMs);
    }
    if (tpm !== null) {
      headers["x-ratelimit-limit-tokens"] = String(tpm);
      headers["x-ratelimit-remaining-tokens"] = String(Math.max(0, tpm - result.tokensUsed));
      headers["x-ratelimit-reset-tokens"] = seconds(result.resetMs);
    }
    const retryAfter = Math.max(1, Math.ceil(result.resetMs / 1000));
    switch (result.verdict) {
      case "admitted":
        if (limits.settles) this.held.set(requestId, this.holding(key, limits, result));
        return { headers, refusal: null };
      case "requests_limited":
        return { headers, refusal: new GatewayError("rate_limit_exceeded", `Rate limit reached: ${rpm} requests per minute.`, { retryAfter }) };
      case "tokens_limited":
        return { headers, refusal: new GatewayError("rate_limit_exceeded", `Rate limit reached: ${tpm} tokens per minute.`, { retryAfter }) };
      case "quota_exhausted":
        return { headers, refusal: new GatewayError("insufficient_quota", "This key's quota is used up.") };
      case "budget_exhausted":
        return { headers, refusal: new GatewayError("budget_exceeded", `This key's ${budget?.period ?? "periodic"} budget is used up; it starts again at the next period.`) };
      case "customer_budget_exhausted":
        return { headers, refusal: new GatewayError("budget_exceeded", `This customer's ${limits.customer?.budget?.period ?? "periodic"} budget is used up; it starts again at the next period.`) };
      case "balance_exhausted":
        return { headers, refusal: new GatewayError("balance_exhausted", "This customer's balance is used up; add credits to continue.") };
      case "plan_limited": {
        const retryAfterPlan = Math.max(1, Math.ceil((result.retryMs ?? 1000) / 1000));
        return { headers, refusal: new GatewayError("plan_limit_exceeded", `This customer's plan limit is reached; it frees in ${retryAfterPlan} s.`, { retryAfter: retryAfterPlan }) };
      }
      default: {
        const never: never = result.verdict;
        throw new Error(`unknown verdict ${String(never)}`);
      }
    }
  }

  /** What an admitted request holds until it is settled or released. */
  private holding(key: KeyRecord, limits: Limits, result: AdmitResult): Held {
    const { reservationNano, tokens, quotaNano, prices } = limits;
    return { keyId: key.id, reservationNano, tokens, tokensHolder: result.tokensHolder, hasQuota: quotaNano !== null, budget: result.budget, prices, lease: result.lease, customerId: key.customer?.id ?? null, customer: result.customer ?? "" };
  }

  /** Called with the request's billing event: releases the reservation, books the real cost and tokens. */
  settle(event: BillingEvent): void {
    const held = this.held.get(event.requestId);
    if (!held) return;
    this.held.delete(event.requestId);
    const costNano = held.prices ? costOfUsage(event.usage, held.prices) : 0n;
    this.write(event.requestId, held, event.usage.inputTokens + event.usage.outputTokens, costNano);
  }

  /** A request that ended without a billing event gives its reservation back. */
  release(requestId: string): void {
    const held = this.held.get(requestId);
    if (!held) return;
    this.held.delete(requestId);
    this.write(requestId, held, 0, 0n);
  }

  private write(requestId: string, held: Held, tokens: number, costNano: bigint): void {
    const written = this.store.settle({ keyId: held.keyId, tokens, reservationNano: held.reservationNano, costNano, hasQuota: held.hasQuota, budget: held.budget, lease: held.lease, heldTokens: held.tokens, tokensHolder: held.tokensHolder, customerId: held.customerId, customer: held.customer });
    if (this.watched.has(written)) return;
    this.watched.add(written);
    written.catch((error: unknown) => this.logger.warn({ requestId, err: (error as Error).message }, "limit settlement failed"));
  }
}
