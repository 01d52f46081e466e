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
  /** Per `order` call: which targets were usable (reused: `order` is synchronous). */
  private readonly usable: Uint8Array;

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
  }

  /**
   * The order one request tries the targets in: first the weighted pick among the usable targets
   * of the lowest priority that has one, then that priority's other usable targets (heavier
   * first), then the higher priorities' usable targets, then the ones with an open circuit, as a
   * last resort (all in priority order). Over N requests each target of the serving priority
   * gets its exact share of N by weight, evenly interleaved.
   */
  order(health: TargetHealth, now = Date.now()): RoutedTarget[] {
    const { targets, current, usable } = this;
    const count = targets.length;
    let pick = -1;
    let tier = 0;
    let total = 0;
    for (let index = 0; index < count; index += 1) {
      const target = targets[index]!;
      const ok = health.usable(target.upstream.name, now);
      usable[index] = ok ? 1 : 0;
      if (!ok || (pick >= 0 && target.priority !== tier)) continue;
      tier = target.priority;
      current[index] = current[index]! + target.weight;
      total += target.weight;
      if (pick < 0 || current[index]! > current[pick]!) pick = index;
    }
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
