interface CircuitState {
  failures: number;
  openUntil: number;
}

/**
 * Per-upstream circuit: after `threshold` consecutive failures the upstream is cooled down for
 * `cooldownMs`; after that one request is let through again (half-open) and its result decides.
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

  /** Upstreams cooling down right now. */
  openUpstreams(now = Date.now()): string[] {
    return [...this.states].filter(([, state]) => state.openUntil > now).map(([upstream]) => upstream);
  }

  isOpen(upstream: string, now = Date.now()): boolean {
    const state = this.states.get(upstream);
    return state !== undefined && state.openUntil > now;
  }

  recordSuccess(upstream: string): void {
    this.onAttempt(upstream, true);
    if (this.states.has(upstream)) this.states.delete(upstream);
  }

  recordFailure(upstream: string, now = Date.now()): void {
    this.onAttempt(upstream, false);
    const state = this.states.get(upstream) ?? { failures: 0, openUntil: 0 };
    state.failures += 1;
    if (state.failures >= this.threshold) state.openUntil = now + this.cooldownMs;
    this.states.set(upstream, state);
  }

  /** Closed targets first in their configured order, then open ones as a last resort. */
  order<T extends { upstream: { name: string } }>(targets: readonly T[], now = Date.now()): T[] {
    const closed = targets.filter((target) => !this.isOpen(target.upstream.name, now));
    if (closed.length === targets.length) return targets.slice();
    return [...closed, ...targets.filter((target) => this.isOpen(target.upstream.name, now))];
  }
}
