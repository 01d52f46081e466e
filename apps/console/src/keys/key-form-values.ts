import type { BudgetPeriod } from "../api/types.ts";

/**
 * Form text -> vendor API values. The API validates everything (its message names the field), so
 * these only map blanks: an empty amount is "none", an empty limit is "the server option's default".
 */
export function amountOrNull(text: string): string | null {
  const trimmed = text.trim();
  return trimmed === "" ? null : trimmed;
}

export function integerOrNull(text: string): number | null {
  const trimmed = text.trim();
  return trimmed === "" ? null : Number(trimmed);
}

export function budgetOrNull(limit: string, period: BudgetPeriod): { limit: string; period: BudgetPeriod } | null {
  const amount = amountOrNull(limit);
  return amount === null ? null : { limit: amount, period };
}

export const BUDGET_PERIODS: { value: BudgetPeriod; label: string }[] = [
  { value: "day", label: "per day (UTC)" },
  { value: "week", label: "per week (from Monday, UTC)" },
  { value: "month", label: "per month (UTC)" },
];

/** "10.000000" -> "10.00" for a form field (the API keeps 6 decimals). */
export function amountForInput(amount: string | null): string {
  if (amount === null) return "";
  const [whole = "0", fraction = ""] = amount.split(".");
  return `${whole}.${fraction.replace(/0+$/, "").padEnd(2, "0")}`;
}
