/** Latency figures of one run, in milliseconds. NaN when nothing was recorded. */
export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

/**
 * Nearest-rank percentile of an ascending array: the smallest value with at least `p` percent of
 * the values at or below it. No interpolation, so every reported figure is one a request really had.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (p <= 0) return sorted[0]!;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function summarize(values: ArrayLike<number>): LatencySummary {
  // Float64Array sorts numerically (a plain array would sort as strings).
  const sorted = Float64Array.from(values).sort();
  let total = 0;
  for (const value of sorted) total += value;
  return {
    count: sorted.length,
    mean: sorted.length === 0 ? Number.NaN : total / sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]!,
  };
}

/**
 * Collects samples without reallocating on every push: latencies of a few hundred thousand
 * requests per run stay in one growing Float64Array.
 */
export class Samples {
  private data = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length] = value;
    this.length += 1;
  }

  values(): Float64Array {
    return this.data.subarray(0, this.length);
  }

  summary(): LatencySummary {
    return summarize(this.values());
  }
}
