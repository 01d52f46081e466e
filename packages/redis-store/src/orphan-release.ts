import type { RedisClient } from "./connect.ts";
import { DROP_PROCESS_SCRIPT, ORPHAN_RELEASE_SCRIPT } from "./limit-scripts.ts";
import { RATE_WINDOW_MS, type BudgetCounter } from "./limit-store.ts";
import { redisKeys } from "./redis-keys.ts";
import { NO_BUDGET, settleArguments, type SettlementCounters } from "./settlement.ts";

/**
 * What one admitted request holds in Redis until it settles, JSON-serialisable: the proxy writes it
 * to its journal of requests in flight (`Limiter.reservation`), so that when the process dies a
 * sweeper can give it back (`releaseOrphanReservation`).
 */
export interface HeldReservation {
  requestId: string;
  keyId: string;
  /** nano-USD held on the quota and/or the budget (inside the lease's slice when `leaseId` is set), an integer string. */
  reservationNano: string;
  /** Tokens held in flight against the key's TPM (0: none). */
  tokens: number;
  hasQuota: boolean;
  /** The budget counter the reservation was taken on, null without a budget. */
  budget: BudgetCounter | null;
  /** The lease it was admitted under (its slices hold the reservation and the tokens), null for an admission of its own. */
  leaseId: string | null;
  /** The tag of the process that admitted it. */
  processTag: string;
  /** Where its tokens are held (AdmitResult.tokensHolder); absent: its lease's id. */
  tokensHolder?: string | null;
  /** The key's customer (where the key's counters live), and what it holds there (AdmitResult.customer); absent: none. */
  customerId?: string | null;
  customer?: string;
}

type SweeperCommands = {
  gatewayReleaseOrphan(...args: (string | number)[]): Promise<number>;
  gatewayDropProcess(...args: (string | number)[]): Promise<number>;
};

function withCommands(redis: RedisClient): RedisClient & SweeperCommands {
  if (!("gatewayReleaseOrphan" in redis)) {
    redis.defineCommand("gatewayReleaseOrphan", { numberOfKeys: 1, lua: ORPHAN_RELEASE_SCRIPT });
    redis.defineCommand("gatewayDropProcess", { numberOfKeys: 1, lua: DROP_PROCESS_SCRIPT });
  }
  return redis as RedisClient & SweeperCommands;
}

/**
 * Settles a request whose process died, from another process (the sweeper): its reservation and
 * in-flight tokens are given back and what it is billed (`costNano`, `tokens`) is booked, exactly
 * once however often it is called for the same request (a marker in Redis remembers it for
 * ORPHAN_MARK_MS). Resolves true when this call released it. Safe beside `dropProcessLeases` in
 * either order: a share already dropped is not given back twice.
 */
export async function releaseOrphanReservation(redis: RedisClient, prefix: string, held: HeldReservation, costNano: bigint, tokens: number, now = Date.now()): Promise<boolean> {
  const reservationNano = BigInt(held.reservationNano);
  const inLease = held.leaseId !== null;
  const counters: SettlementCounters = {
    tokenWindow: String(Math.floor(now / RATE_WINDOW_MS)),
    budgetSuffix: held.budget ? `${held.budget.period}:${held.budget.periodStart}` : NO_BUDGET,
    tokens,
    reservationNano: inLease ? 0n : reservationNano,
    costNano,
    hasQuota: held.hasQuota,
    budgetExpiresAt: held.budget?.expiresAt ?? 0,
    leaseId: inLease && reservationNano > 0n ? held.leaseId! : "",
    leaseReleaseNano: inLease ? reservationNano : 0n,
    requestsBack: 0,
    requestsWindow: 0,
    tokensHolder: held.tokens > 0 ? (held.tokensHolder ?? held.leaseId ?? "") : "",
    tokensRelease: held.tokens,
    customer: held.customer ?? "",
  };
  const released = await withCommands(redis).gatewayReleaseOrphan(redisKeys(prefix).limits(held.keyId, held.customerId), held.requestId, RATE_WINDOW_MS, ...settleArguments(counters));
  return released === 1;
}

/**
 * Drops every hold a dead process (`processTag`, `LimitStore.processTag`) has on one key: its
 * leases' slices of nano-USD and tokens and its own admissions' in-flight tokens, which Redis
 * would otherwise drop only LEASE_HOLD_MS after they were last renewed. Its requests' own
 * reservations on `reserved` are given back one by one (`releaseOrphanReservation`). Resolves
 * to the number of holds dropped.
 */
export async function dropProcessLeases(redis: RedisClient, prefix: string, keyId: string, processTag: string, customerId?: string | null): Promise<number> {
  return withCommands(redis).gatewayDropProcess(redisKeys(prefix).limits(keyId, customerId), processTag);
}
