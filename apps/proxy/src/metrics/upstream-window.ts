import { ATTEMPT_CAUSES, type Attempt, type AttemptCause } from "@gateway/contracts";
import type { CircuitStateName, UpstreamHealth } from "@gateway/redis-store";

/** The window is SLOTS slots of SLOT_MS: the last minute, in 5-second steps. */
const SLOT_MS = 5_000;
const SLOTS = 12;
/**
 * Latencies are counted in log-spaced bins (each 10% wider than the last, 1 ms to about 10 min):
 * fixed memory per upstream, no sample kept, percentiles within 10%.
 */
const GROWTH = 1.1;
const LOG_GROWTH = Math.log(GROWTH);
const BINS = 142;
const CAUSE_INDEX = new Map<AttemptCause, number>(ATTEMPT_CAUSES.map((cause, index) => [cause, index]));
const OK = CAUSE_INDEX.get("ok")!;

function bin(ms: number): number {
  if (!(ms > 1)) return 0;
  return Math.min(BINS - 1, Math.ceil(Math.log(ms) / LOG_GROWTH));
}

/** The value a bin stands for: its upper bound (ms). */
function binValue(index: number): number {
  return Math.round(GROWTH ** index);
}

/** One 5-second slot of one upstream. */
class Slot {
  epoch = -1;
  attempts = 0;
  readonly causes = new Uint32Array(ATTEMPT_CAUSES.length);
  readonly durations = new Uint32Array(BINS);
  readonly ttfbs = new Uint32Array(BINS);
  ttfbCount = 0;

  reset(epoch: number): void {
    this.epoch = epoch;
    this.attempts = 0;
    this.ttfbCount = 0;
    this.causes.fill(0);
    this.durations.fill(0);
    this.ttfbs.fill(0);
  }
}

function percentile(bins: Uint32Array, count: number, q: number): number | null {
  if (count === 0) return null;
  const rank = Math.max(1, Math.ceil(q * count));
  let seen = 0;
  for (let index = 0; index < BINS; index += 1) {
    seen += bins[index]!;
    if (seen >= rank) return binValue(index);
  }
  return binValue(BINS - 1);
}

/**
 * Each upstream's attempts over the last minute, as this process saw them: counts by cause and
 * latency bins in 12 rolling 5-second slots. Fed from the billing event's attempts (one call per
 * attempt: a few array increments); read every 5 s for the Redis snapshot.
 */
export class UpstreamWindows {
  private readonly upstreams = new Map<string, Slot[]>();

  observe(attempt: Attempt, now: number): void {
    let slots = this.upstreams.get(attempt.upstream);
    if (slots === undefined) {
      slots = Array.from({ length: SLOTS }, () => new Slot());
      this.upstreams.set(attempt.upstream, slots);
    }
    const epoch = Math.floor(now / SLOT_MS);
    const slot = slots[epoch % SLOTS]!;
    if (slot.epoch !== epoch) slot.reset(epoch);
    slot.attempts += 1;
    slot.causes[CAUSE_INDEX.get(attempt.cause) ?? OK]! += 1;
    slot.durations[bin(attempt.durationMs)]! += 1;
    if (attempt.ttfbMs !== null) {
      slot.ttfbs[bin(attempt.ttfbMs)]! += 1;
      slot.ttfbCount += 1;
    }
  }

  /** Upstreams this process has made attempts to (since it started). */
  names(): IterableIterator<string> {
    return this.upstreams.keys();
  }

  /** One upstream's last minute, with its circuit's state. */
  health(name: string, circuit: CircuitStateName, now: number): UpstreamHealth {
    const slots = this.upstreams.get(name) ?? [];
    const newest = Math.floor(now / SLOT_MS);
    const durations = new Uint32Array(BINS);
    const ttfbs = new Uint32Array(BINS);
    const causes = new Uint32Array(ATTEMPT_CAUSES.length);
    let attempts = 0;
    let ttfbCount = 0;
    for (const slot of slots) {
      if (slot.epoch <= newest - SLOTS || slot.epoch > newest) continue;
      attempts += slot.attempts;
      ttfbCount += slot.ttfbCount;
      for (let index = 0; index < causes.length; index += 1) causes[index]! += slot.causes[index]!;
      for (let index = 0; index < BINS; index += 1) {
        durations[index]! += slot.durations[index]!;
        ttfbs[index]! += slot.ttfbs[index]!;
      }
    }
    const failures: UpstreamHealth["failures"] = {};
    ATTEMPT_CAUSES.forEach((cause, index) => {
      if (cause !== "ok" && causes[index]! > 0) failures[cause] = causes[index]!;
    });
    return {
      attempts,
      failures,
      circuit,
      p50Ms: percentile(durations, attempts, 0.5),
      p99Ms: percentile(durations, attempts, 0.99),
      ttfbP50Ms: percentile(ttfbs, ttfbCount, 0.5),
    };
  }
}
