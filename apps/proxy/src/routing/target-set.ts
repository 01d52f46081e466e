import type { ModelRecord, UpstreamRecord } from "@gateway/redis-store";

/** One place a model is served: an upstream and that upstream's own name for the model. */
export interface Target {
  upstream: UpstreamRecord;
  /** The upstream's own name for the model. */
  model: string;
}

/** A target as the routing snapshot ranks it (contract section 11). */
export interface RoutedTarget extends Target {
  /** Lower first: a higher priority serves only on failover. */
  priority: number;
  /** Share of the traffic among the healthy targets of its priority. */
  weight: number;
}

/** What the order needs to know about an upstream's circuit (`CircuitBreaker.usable`). */
export interface TargetHealth {
  /** May a request try this upstream now? May claim a half-open circuit's probe. */
  usable(upstream: string, now: number): boolean;
}

/**
 * A model's targets as one routing snapshot has them: sorted by priority (then heavier first, then
 * file order), with the smooth weighted round-robin state that spreads traffic by weight. Built
 * once per snapshot; `order` is the per-request work.
 */
export class TargetSet {
  readonly model: ModelRecord;
  readonly targets: readonly RoutedTarget[];
  /** Smooth weighted round-robin (as nginx does it): each target's current weight. */
  private readonly current: Float64Array;
  /** Per `order` call: which targets are usable now, and which were at the call before. */
  private usable: Uint8Array;
  private previous: Uint8Array;
  /** No call yet: the first one starts from the targets' clean state, not a change. */
  private ordered = false;

  constructor(model: ModelRecord, upstreams: Readonly<Record<string, UpstreamRecord>>) {
    this.model = model;
    const targets: (RoutedTarget & { position: number })[] = [];
    model.targets.forEach((target, position) => {
      const upstream = Object.hasOwn(upstreams, target.upstream) ? upstreams[target.upstream] : undefined;
      if (upstream) targets.push({ upstream, model: target.model, priority: target.priority, weight: Math.max(1, target.weight), position });
    });
    targets.sort((a, b) => a.priority - b.priority || b.weight - a.weight || a.position - b.position);
    this.targets = targets.map(({ position: _position, ...target }) => target);
    this.current = new Float64Array(this.targets.length);
    this.usable = new Uint8Array(this.targets.length);
    this.previous = new Uint8Array(this.targets.length);
  }

  /**
   * The order one request tries the targets in: first the weighted pick among the usable targets
   * of the lowest priority that has one, then that priority's other usable targets (heavier
   * first), then the higher priorities' usable targets, then the ones with an open circuit, as a
   * last resort (all in priority order). Over N requests each target of the serving priority
   * gets its exact share of N by weight, evenly interleaved.
   *
   * Through outages: when the set of usable targets changes (a circuit opened, or closed again),
   * the round-robin starts afresh, so no target carries a debt from the time it was skipped and
   * the weights hold from the first request after the change (issue 40: 3:1 weights gave 107 of
   * 200 after a recovery while the old state lingered). A target that just became usable again
   * (a half-open circuit whose probe this call claimed) is the pick: its probe is tried first, as
   * one of its weighted turns, instead of being claimed by a request that never tries it (which
   * left it unused for another cooldown).
   */
  order(health: TargetHealth, now = Date.now()): RoutedTarget[] {
    const { targets, current } = this;
    const count = targets.length;
    const usable = this.previous;
    this.previous = this.usable;
    this.usable = usable;
    const before = this.previous;
    let changed = false;
    for (let index = 0; index < count; index += 1) {
      usable[index] = health.usable(targets[index]!.upstream.name, now) ? 1 : 0;
      if (usable[index] !== before[index]) changed = true;
    }
    let recovered = -1;
    if (changed) {
      if (this.ordered) for (let index = 0; index < count; index += 1) if (usable[index] === 1 && before[index] === 0) {
        recovered = index;
        break;
      }
      current.fill(0);
    }
    this.ordered = true;
    let pick = -1;
    let tier = 0;
    let total = 0;
    let first = true;
    for (let index = 0; index < count; index += 1) {
      const target = targets[index]!;
      if (usable[index] === 0 || (!first && target.priority !== tier)) continue;
      first = false;
      tier = target.priority;
      current[index] = current[index]! + target.weight;
      total += target.weight;
      if (pick < 0 || current[index]! > current[pick]!) pick = index;
    }
    // The recovered target's probe goes first when it serves in this tier.
    if (recovered >= 0 && targets[recovered]!.priority === tier) pick = recovered;
    const ordered: RoutedTarget[] = [];
    if (pick >= 0) {
      current[pick] = current[pick]! - total;
      ordered.push(targets[pick]!);
    }
    for (let index = 0; index < count; index += 1) if (usable[index] === 1 && index !== pick) ordered.push(targets[index]!);
    for (let index = 0; index < count; index += 1) if (usable[index] === 0) ordered.push(targets[index]!);
    return ordered;
  }
}
