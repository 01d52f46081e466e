interface CircuitState {
  failures: number;
  openUntil: number;
  /** While later than now, one request is probing the upstream after its cooldown (half-open). */
  probeUntil: number;
}

/**
 * Per-upstream circuit: after `threshold` consecutive failures the upstream is cooled down for
 * `cooldownMs`. After that it is half-open: the next request to order it is its one probe, and
 * everyone else still treats it as open until the probe's result decides (success closes it, a
 * failure opens it for another cooldown). A probe that never reports back (its request ended on
 * an earlier target) frees the slot after another cooldown.
 */
export class CircuitBreaker {
  private readonly states = new Map<string, CircuitState>();
  private readonly threshold: number;
  private readonly cooldownMs: number;
  private readonly onAttempt: (upstream: string, ok: boolean) => void;

  constructor(options: { threshold: number; cooldownMs: number; onAttempt?: (upstream: string, ok: boolean) => void }) {
    this.threshold = options.threshold;
    this.cooldownMs = options.cooldownMs;
    this.onAttempt = options.onAttempt ?? (() => undefined);
  }

  /** Upstreams cooling down or being probed right now. */
  openUpstreams(now = Date.now()): string[] {
    return [...this.states.keys()].filter((upstream) => this.isOpen(upstream, now));
  }

  /**
   * The circuit as an operator reads it: `open` while cooling down, `half_open` once the cooldown
   * is over until a probe's result closes or reopens it, else `closed`.
   */
  state(upstream: string, now = Date.now()): "closed" | "half_open" | "open" {
    const state = this.states.get(upstream);
    if (state === undefined || state.failures < this.threshold) return "closed";
    return state.openUntil > now ? "open" : "half_open";
  }

  /** Upstreams with a failure on record (every other one is closed). */
  tracked(): IterableIterator<string> {
    return this.states.keys();
  }

  isOpen(upstream: string, now = Date.now()): boolean {
    const state = this.states.get(upstream);
    return state !== undefined && state.failures >= this.threshold && (state.openUntil > now || state.probeUntil > now);
  }

  recordSuccess(upstream: string): void {
    this.onAttempt(upstream, true);
    if (this.states.has(upstream)) this.states.delete(upstream);
  }

  recordFailure(upstream: string, now = Date.now()): void {
    this.onAttempt(upstream, false);
    const state = this.states.get(upstream) ?? { failures: 0, openUntil: 0, probeUntil: 0 };
    state.failures += 1;
    if (state.failures >= this.threshold) {
      state.openUntil = now + this.cooldownMs;
      state.probeUntil = 0;
    }
    this.states.set(upstream, state);
  }

  /**
   * True when a request may try the upstream now: its circuit is closed, or its cooldown is over
   * and nobody probes it, in which case this caller claims the probe (so call it only for a
   * target the request will try in its turn).
   */
  usable(upstream: string, now = Date.now()): boolean {
    const state = this.states.get(upstream);
    if (state === undefined || state.failures < this.threshold) return true;
    if (state.openUntil <= now && state.probeUntil <= now) {
      state.probeUntil = now + this.cooldownMs;
      return true;
    }
    return false;
  }

  /**
   * Closed targets first in their configured order, then open ones as a last resort. A target
   * whose cooldown is over and that nobody probes counts as closed for this caller only: the call
   * claims the probe.
   */
  order<T extends { upstream: { name: string } }>(targets: readonly T[], now = Date.now()): T[] {
    const closed: T[] = [];
    const open: T[] = [];
    for (const target of targets) {
      if (this.usable(target.upstream.name, now)) closed.push(target);
      else open.push(target);
    }
    return open.length === 0 ? closed : [...closed, ...open];
  }
}
