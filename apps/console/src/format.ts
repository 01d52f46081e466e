/**
 * How figures read on screen. Money stays a decimal string from the API (exact); only trailing
 * zeros beyond cents are trimmed for display.
 */

/** "0.001230" -> "$0.00123", "10.000000" -> "$10.00", "-20.000000" -> "-$20.00", null -> "Unlimited". */
export function usd(amount: string | null, empty = "Unlimited"): string {
  if (amount === null) return empty;
  if (amount.startsWith("-")) return `-${usd(amount.slice(1), empty)}`;
  const [whole = "0", fraction = ""] = amount.split(".");
  const trimmed = fraction.replace(/0+$/, "").padEnd(2, "0");
  return `$${Number(whole).toLocaleString("en-US")}.${trimmed}`;
}

const integer = new Intl.NumberFormat("en-US");

export function count(value: number | null | undefined, empty = "—"): string {
  return value === null || value === undefined ? empty : integer.format(value);
}

/** A date-time in the reader's locale and zone, to the minute. */
export function dateTime(iso: string | null, empty = "Never"): string {
  if (!iso) return empty;
  return new Date(iso).toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** Cache writes with the one-hour part shown apart: "1,200 (1h: 200)", or "1,200" when all are 5-minute. */
export function cacheWrites(total: number, oneHour: number): string {
  return oneHour > 0 ? `${count(total)} (1h: ${count(oneHour)})` : count(total);
}

export function milliseconds(value: number | null): string {
  return value === null ? "—" : `${integer.format(value)} ms`;
}

/** An ISO instant as the value of <input type="datetime-local"> (the reader's zone). */
export function toLocalInput(iso: string | null): string {
  if (!iso) return "";
  const date = new Date(iso);
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** The value of <input type="datetime-local"> as an ISO instant, or null when empty. */
export function fromLocalInput(value: string): string | null {
  return value ? new Date(value).toISOString() : null;
}
