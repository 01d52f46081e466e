/**
 * The usage window as the reader picks it: whole UTC days, both ends included. The API's `to` is
 * exclusive, so the query ends at the midnight after the last day.
 */
export interface DayRange {
  /** First day, "2026-11-01". */
  from: string;
  /** Last day, included. */
  to: string;
}

const DAY_MS = 86_400_000;

export function utcDay(instant: number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

export function addDays(day: string, days: number): string {
  return utcDay(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS);
}

/** The last `days` days up to today (UTC). */
export function lastDays(days: number, now = Date.now()): DayRange {
  const today = utcDay(now);
  return { from: addDays(today, -(days - 1)), to: today };
}

export function toQuery(range: DayRange): { from: string; to: string } {
  return { from: range.from, to: addDays(range.to, 1) };
}

/** Every day of the range, in order (a chart needs the days without traffic too). */
export function daysOf(range: DayRange): string[] {
  const days: string[] = [];
  for (let day = range.from; day <= range.to && days.length < 3660; day = addDays(day, 1)) days.push(day);
  return days;
}

export function isValidRange(range: DayRange): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(range.from) && /^\d{4}-\d{2}-\d{2}$/.test(range.to) && range.from <= range.to;
}
