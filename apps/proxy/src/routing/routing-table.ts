import type { ModelRecord, RecordStore, RoutingSnapshot, ServerOptionRecord } from "@gateway/redis-store";
import type { Logger } from "@gateway/logger";
import { GatewayError } from "@gateway/contracts";
import { TargetSet, type RoutedTarget, type TargetHealth } from "./target-set.ts";

export type { RoutedTarget, Target, TargetHealth } from "./target-set.ts";

/**
 * An alias pattern, compiled: `*` matches any run of characters (none included), everything else
 * is literal. Matching is linear in the name (prefix, suffix, then each middle part leftmost), so
 * no client-chosen name can make it backtrack.
 */
export function aliasPattern(alias: string): (name: string) => boolean {
  const parts = alias.split("*");
  const head = parts[0]!;
  const tail = parts.length > 1 ? parts.at(-1)! : "";
  const middle = parts.slice(1, -1).filter((part) => part !== "");
  if (parts.length === 1) return (name) => name === alias;
  return (name) => {
    const end = name.length - tail.length;
    if (end < head.length || !name.startsWith(head) || !name.endsWith(tail)) return false;
    let from = head.length;
    for (const part of middle) {
      const at = name.indexOf(part, from);
      if (at < 0 || at + part.length > end) return false;
      from = at + part.length;
    }
    return true;
  };
}

/**
 * What a snapshot's models are looked up by, built once per snapshot: every model name and exact
 * alias in one map, the `*` patterns compiled in file order, each model's targets ranked.
 */
class ModelIndex {
  readonly names = new Map<string, ModelRecord>();
  readonly patterns: { matches: (name: string) => boolean; model: ModelRecord }[] = [];
  readonly targetSets = new Map<string, TargetSet>();

  constructor(snapshot: RoutingSnapshot) {
    const models = Object.values(snapshot.models).sort((a, b) => a.position - b.position || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const model of models) {
      for (const alias of model.aliases) {
        if (alias.includes("*")) this.patterns.push({ matches: aliasPattern(alias), model });
        else if (!this.names.has(alias)) this.names.set(alias, model);
      }
      this.targetSets.set(model.name, new TargetSet(model, snapshot.upstreams));
    }
    // A model's own name wins over anything (the gateway file refuses such collisions anyway).
    for (const model of models) this.names.set(model.name, model);
  }

  resolve(name: string): ModelRecord | undefined {
    const model = this.names.get(name);
    if (model !== undefined) return model;
    for (const { matches, model } of this.patterns) if (matches(name)) return model;
    return undefined;
  }
}

/**
 * The control plane's routing snapshot, held in memory. Replaced whole when the control plane
 * publishes a new version, so a request never sees half an update.
 */
export class RoutingTable {
  private snapshot: RoutingSnapshot | null = null;
  private index: ModelIndex | null = null;
  private readonly store: RecordStore;
  private readonly logger: Logger;

  constructor(store: RecordStore, logger: Logger) {
    this.store = store;
    this.logger = logger;
  }

  get version(): number {
    return this.snapshot?.version ?? 0;
  }

  get loaded(): boolean {
    return this.snapshot !== null;
  }

  /**
   * Throws 503 (with `retry-after`) while no snapshot is loaded: a proxy that started while Redis
   * was empty must not call a configured model unknown (404) before the control plane restores it.
   */
  requireLoaded(): void {
    if (this.snapshot === null) {
      throw new GatewayError("dependency_unavailable", "The gateway has not loaded its routes yet; try again shortly.", { retryAfter: 1 });
    }
  }

  /** Reads the published snapshot; keeps the current one when Redis is unreachable. */
  async refresh(): Promise<void> {
    try {
      const next = await this.store.readSnapshot();
      if (next && next.version !== this.snapshot?.version) {
        const index = new ModelIndex(next);
        this.snapshot = next;
        this.index = index;
        this.logger.info({ version: next.version, models: Object.keys(next.models).length }, "routing snapshot loaded");
      }
    } catch (error) {
      this.logger.warn({ err: error }, "routing snapshot refresh failed; keeping the current one");
    }
  }

  /**
   * The model a request names: by its name or an exact alias (one map lookup), else the first
   * alias pattern that matches, in gateway file order. Billing and limits use the record's `name`.
   */
  model(name: string): ModelRecord | undefined {
    return this.index?.resolve(name);
  }

  serverOption(name: string): ServerOptionRecord | undefined {
    const options = this.snapshot?.serverOptions;
    return options && Object.hasOwn(options, name) ? options[name] : undefined;
  }

  private targetSet(model: ModelRecord): TargetSet {
    const set = this.index?.targetSets.get(model.name);
    // A record of an earlier snapshot (looked up before a new one landed) is ranked afresh against the current upstreams.
    return set !== undefined && set.model === model ? set : new TargetSet(model, this.snapshot?.upstreams ?? {});
  }

  /** The model's targets with their upstream records, lowest priority first (unknown upstreams are skipped). */
  targets(model: ModelRecord): readonly RoutedTarget[] {
    return this.targetSet(model).targets;
  }

  /**
   * The order one request tries the model's targets in: spread by weight over the healthy targets
   * of the lowest priority, failover to the rest, open circuits last (`TargetSet.order`).
   */
  order(model: ModelRecord, health: TargetHealth, now = Date.now()): RoutedTarget[] {
    return this.targetSet(model).order(health, now);
  }

  /** Models the server option allows, in the order the option lists them. */
  allowedModels(serverOption: string): ModelRecord[] {
    const option = this.serverOption(serverOption);
    if (!option) return [];
    const models = this.snapshot?.models ?? {};
    return option.models.map((name) => (Object.hasOwn(models, name) ? models[name] : undefined)).filter((model): model is ModelRecord => model !== undefined);
  }
}
