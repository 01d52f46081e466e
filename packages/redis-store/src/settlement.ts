/**
 * One settlement's counters as the limit scripts take them (SETTLE_FUNCTION's arguments after the
 * counter base and the window ms): what the proxy's LimitStore batches, and what the sweeper
 * releases for a request whose process died. One builder for both, so their order cannot drift.
 */
export interface SettlementCounters {
  /** The rate window (its number) the tokens are booked into. */
  tokenWindow: string;
  /** `<period>:<start>` of the budget the requests were admitted in (`none:0` without one). */
  budgetSuffix: string;
  tokens: number;
  /** Released from `reserved` (quota and budget). */
  reservationNano: bigint;
  costNano: bigint;
  hasQuota: boolean;
  /** 0 without a budget. */
  budgetExpiresAt: number;
  /** The lease whose nano-USD slice shrinks by `leaseReleaseNano` ('' = none). */
  leaseId: string;
  leaseReleaseNano: bigint;
  /** Requests a lease counted in `requestsWindow` and did not use. */
  requestsBack: number;
  requestsWindow: number;
  /** Who held the requests' in-flight tokens (a process tag or a lease id; '' = none), and how many it gives back. */
  tokensHolder: string;
  tokensRelease: number;
  /** The key's customer's counters the same release and cost go to: `customerSettlement`'s JSON, '' = none. */
  customer?: string;
}

/**
 * Where a customer's key's settlement also goes (same slot as the key's counters): the wallet, the
 * budget period admitted in, the plan's USD windows as admitted in (`s`: the window's start; a
 * window since replaced is left alone). JSON for the scripts; fields left out when unused (Lua's
 * cjson reads null as a value).
 */
export interface CustomerSettlement {
  /** The customer's counter base (`redisKeys.customer`). */
  c: string;
  w?: 1;
  bs?: string;
  be?: string;
  p?: { k: string; s: string }[];
}

export function customerSettlementText(settlement: CustomerSettlement | null): string {
  if (settlement === null) return "";
  const hasWindows = settlement.p !== undefined && settlement.p.length > 0;
  if (settlement.w !== 1 && settlement.bs === undefined && !hasWindows) return "";
  return JSON.stringify({ ...settlement, p: hasWindows ? settlement.p : undefined });
}

/** The budget suffix of a key without a budget (never read by the scripts then). */
export const NO_BUDGET = "none:0";

/** Releases go to HINCRBY as negative integer strings (see SETTLE_FUNCTION). */
export function settleArguments(entry: SettlementCounters): (string | number)[] {
  return [
    entry.tokenWindow,
    entry.budgetSuffix,
    entry.tokens,
    (-entry.reservationNano).toString(),
    entry.costNano.toString(),
    entry.hasQuota ? "1" : "0",
    entry.budgetExpiresAt > 0 ? "1" : "0",
    entry.budgetExpiresAt,
    entry.leaseId,
    (-entry.leaseReleaseNano).toString(),
    entry.requestsBack,
    entry.requestsWindow,
    entry.tokensHolder,
    String(-entry.tokensRelease),
    entry.customer ?? "",
  ];
}
