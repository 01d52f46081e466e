const DAY_MS = 86_400_000;

/** A stretch of the window inside one UTC day, summed from the ledger rows themselves. */
export interface PartialDay {
  from: Date;
  to: Date;
  /** Its UTC day, "2026-11-23". */
  day: string;
}

/**
 * How a report reads `[from, to)`: the whole UTC days inside it from the per-day aggregates, and
 * the partial days at its edges (a window not aligned to midnight) from usage_records. The
 * aggregates hold each request under the UTC day of its end, so the two never overlap and
 * together hold every request that finished inside the window exactly once.
 */
export interface WindowPlan {
  /** Whole days `[from, to)` as "YYYY-MM-DD"; null when the window holds none. */
  wholeDays: { from: string; to: string } | null;
  /** At most two, each inside one UTC day. */
  partialDays: PartialDay[];
}

export function planWindow(from: Date, to: Date): WindowPlan {
  if (from >= to) return { wholeDays: null, partialDays: [] };
  const wholeFrom = ceilToDay(from);
  const wholeTo = floorToDay(to);
  if (wholeFrom < wholeTo) {
    return {
      wholeDays: { from: isoDay(wholeFrom), to: isoDay(wholeTo) },
      partialDays: [partial(from, wholeFrom), partial(wholeTo, to)].filter((part) => part !== null),
    };
  }
  // No whole day inside: the window lies in one day, or crosses one midnight.
  const midnight = wholeFrom;
  const parts = from < midnight && midnight < to ? [partial(from, midnight), partial(midnight, to)] : [partial(from, to)];
  return { wholeDays: null, partialDays: parts.filter((part) => part !== null) };
}

function partial(from: Date, to: Date): PartialDay | null {
  return from < to ? { from, to, day: isoDay(from) } : null;
}

function floorToDay(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / DAY_MS) * DAY_MS);
}

function ceilToDay(instant: Date): Date {
  return new Date(Math.ceil(instant.getTime() / DAY_MS) * DAY_MS);
}

export function isoDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}
