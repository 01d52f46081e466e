/**
 * Periodic budgets (contract section 9): spend inside the current UTC day, week (starting Monday)
 * or month may not exceed the limit. One definition of a period's bounds, used by the proxy's
 * limit check, the control plane's key object (`resets_at`) and the rebuild from the ledger.
 */
export const BUDGET_PERIODS = ["day", "week", "month"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

export function isBudgetPeriod(value: unknown): value is BudgetPeriod {
  return typeof value === "string" && (BUDGET_PERIODS as readonly string[]).includes(value);
}

const DAY_MS = 86_400_000;

/** The period holding `now` (epoch ms): its start (inclusive) and end (exclusive), both UTC midnights. */
export function budgetWindow(period: BudgetPeriod, now: number): { start: number; end: number } {
  const date = new Date(now);
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  switch (period) {
    case "day":
      return { start: midnight, end: midnight + DAY_MS };
    case "week": {
      // getUTCDay: 0 = Sunday; days since Monday = (day + 6) % 7.
      const start = midnight - ((date.getUTCDay() + 6) % 7) * DAY_MS;
      return { start, end: start + 7 * DAY_MS };
    }
    case "month":
      return { start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) };
    default: {
      const never: never = period;
      throw new Error(`unknown budget period ${String(never)}`);
    }
  }
}
