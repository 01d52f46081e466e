import { budgetWindow, type BudgetPeriod } from "@gateway/contracts";

/*
 * What the LimitStore takes and gives: an admission's input and verdict, a lease, a settlement,
 * and where a period's budget is counted. Apart from the store, so its code reads on its own.
 */

export const RATE_WINDOW_MS = 60_000;

export type AdmitVerdict =
  | "admitted"
  | "requests_limited"
  | "tokens_limited"
  | "quota_exhausted"
  | "budget_exhausted"
  | "customer_budget_exhausted"
  | "balance_exhausted"
  | "plan_limited";

/** A plan's rolling windows and their lengths (contract section 19). */
export const PLAN_WINDOWS = ["5h", "day", "week", "month"] as const;
export type PlanWindow = (typeof PLAN_WINDOWS)[number];
/** A month window is 30 days: rolling from its first request, not a calendar month. */
export const PLAN_WINDOW_MS: Record<PlanWindow, number> = { "5h": 5 * 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 };

/** One window of a customer's plan, as admission checks it. */
export interface PlanWindowLimit {
  /** Its counter's name under the customer (`plan:<subscription id>:<index>`): a new subscription starts afresh. */
  key: string;
  lengthMs: number;
  /** Requests per window; null = not limited. */
  requests: number | null;
  /** nano-USD per window; null = not limited. */
  usdNano: bigint | null;
}

/**
 * The limits of the customer a key belongs to, over all its keys together (contract section 19):
 * checked and reserved in the same script call as the key's own.
 */
export interface CustomerLimits {
  id: string;
  budget: { limitNano: bigint; period: BudgetPeriod } | null;
  /** Prepaid: its keys draw on its wallet (credited - spent - reserved). */
  wallet: boolean;
  windows: PlanWindowLimit[];
}

/** Whether a customer's limits need any counting (a customer without any costs nothing more). */
export function customerCounts(customer: CustomerLimits | null | undefined): customer is CustomerLimits {
  return customer != null && (customer.budget !== null || customer.wallet || customer.windows.length > 0);
}

/** A budget counter outlives its period by a day, so a late settlement still finds it. */
export const BUDGET_COUNTER_GRACE_MS = 86_400_000;

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
  /**
   * The request's tokens for the TPM (input estimate + output bound), held in flight until it
   * settles; 0 when omitted. A safe integer (the caller checks: it goes to Redis as it is).
   */
  tokens?: number;
  /** Whether this admission may be served from, or ask for, a lease (false: one call, one request). */
  lease?: boolean;
  now?: number;
  /**
   * The customer the key belongs to (its counters then live in the customer's slot), with its
   * limits; absent or null for a key without one.
   */
  customerId?: string | null;
  customer?: CustomerLimits | null;
}

export interface AdmitResult {
  verdict: AdmitVerdict;
  requestsUsed: number;
  tokensUsed: number;
  /** ms until the current rate window ends. */
  resetMs: number;
  /** The budget counter the reservation was taken on (settle there), null without a budget. */
  budget: BudgetCounter | null;
  /** The lease the request was admitted under (hand it to `settle`), null for an admission of its own. */
  lease: AdmissionLease | null;
  /** Where an admission of its own holds its tokens in flight (hand it to `settle`); null under a lease or without tokens. */
  tokensHolder: string | null;
  /** Where the settlement also goes on the key's customer (hand it to `settle`); '' = nowhere. */
  customer?: string;
  /** plan_limited: ms until the full window ends. */
  retryMs?: number;
}

/**
 * A slice of one key's limits granted to this process by an admission: requests already counted
 * in the window, nano-USD held in the key's `:leases` hash. Requests are admitted from it without
 * a call until it runs out, its limits change, its rate window or budget period ends, or
 * `leaseMs` passes; then what is left goes back (riding along with the key's next admission).
 */
export interface AdmissionLease {
  readonly id: string;
  readonly keyId: string;
  /** The key's customer: where its counters live. */
  readonly customerId: string | null;
  /** The limits it was granted under; a request under other limits (a changed key) ends it. */
  readonly limits: Pick<AdmitInput, "rpm" | "tpm" | "quotaNano" | "budget">;
  readonly endsAt: number;
  /** Whether `endsAt` is its rate window's or budget period's end, not `leaseMs` after its grant (a renewal would end no later). */
  readonly capped: boolean;
  /** Requests it was granted for later admissions (its own request, if any, not counted). */
  readonly granted: number;
  /** Set once its renewal was asked for (`renewAhead`): at most one a lease. */
  renewing: boolean;
  /** The rate window its requests were counted in; 0 when the key has no rpm. */
  readonly window: number;
  readonly countsRequests: boolean;
  readonly hasQuota: boolean;
  readonly budget: BudgetCounter | null;
  /** nano-USD held for it in Redis at the grant (0: the key holds no money, or the request reserved none). */
  readonly sliceNano: bigint;
  requestsLeft: number;
  requestsBefore: number;
  admitted: number;
  tokensBefore: number;
  /** Tokens its requests settled: the token slice shrinks by them in Redis as they enter the window. */
  tokensSince: number;
  /** Settled cost of its requests: the slice shrinks by it in Redis as they settle. */
  consumedNano: bigint;
  /** Reservations of its requests still in flight. */
  inFlightNano: bigint;
  /** Tokens held for it in Redis at the grant (0: the key has no tpm); its requests' tokens must fit in it. */
  readonly tokenSlice: number;
  /** Tokens (AdmitInput.tokens) of its requests still in flight. */
  tokensInFlight: number;
  /** Tokens and cost its requests settled that are not yet queued for Redis (see `settle`). */
  unwrittenTokens: number;
  unwrittenCostNano: bigint;
  /** Resolves when the unwritten settlements are written; created by the first of them. */
  written: Deferred | null;
  ended: boolean;
  timer: NodeJS.Timeout | null;
}

export interface LimitStoreOptions {
  /** ms a settlement waits to be summed with others of its key (0: the next event-loop turn). */
  settleBatchMs?: number;
  /** Requests one lease may hold (below 2: no leases, one call per admission). */
  leaseRequests?: number;
  /** How long a lease admits before what is left goes back. */
  leaseMs?: number;
  /** A write off the request path that failed (a lease's give-back); the caller logs it. */
  onWriteError?: (error: unknown) => void;
  /**
   * Ask for a key's next lease off the request path once its current one runs low (a quarter of
   * its requests, its slice or its time left), so a busy key's requests never wait for Redis: the
   * new lease replaces the old one when granted, and what is left of the old one goes back.
   */
  renewAhead?: boolean;
  /** The time admissions and settlements are made at when they name none (tests inject one). */
  clock?: () => number;
}

export interface SettleInput {
  keyId: string;
  tokens: number;
  reservationNano: bigint;
  costNano: bigint;
  hasQuota: boolean;
  budget: BudgetCounter | null;
  /** The lease the request was admitted under, if any. */
  lease?: AdmissionLease | null;
  /** The tokens its admission held in flight (AdmitInput.tokens), released now; 0 when omitted. */
  heldTokens?: number;
  /** Where they were held (AdmitResult.tokensHolder); unused under a lease. */
  tokensHolder?: string | null;
  now?: number;
  /** The key's customer (AdmitInput.customerId), and where the settlement also goes (AdmitResult.customer). */
  customerId?: string | null;
  customer?: string;
}

/** A promise with its resolve and reject: the write a lease's settlements share. */
export interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}
