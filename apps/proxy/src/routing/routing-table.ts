import type { ModelRecord, RecordStore, RoutingSnapshot, ServerOptionRecord, UpstreamRecord } from "@gateway/redis-store";
import type { Logger } from "@gateway/logger";
import { GatewayError } from "@gateway/contracts";

export interface Target {
  upstream: UpstreamRecord;
  /** The upstream's own name for the model. */
  model: string;
}

/**
 * The control plane's routing snapshot, held in memory. Replaced whole when the control plane
 * publishes a new version, so a request never sees half an update.
 */
export class RoutingTable {
  private snapshot: RoutingSnapshot | null = null;
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
        this.snapshot = next;
        this.logger.info({ version: next.version, models: Object.keys(next.models).length }, "routing snapshot loaded");
      }
    } catch (error) {
      this.logger.warn({ err: error }, "routing snapshot refresh failed; keeping the current one");
    }
  }

  model(name: string): ModelRecord | undefined {
    return this.snapshot?.models[name];
  }

  serverOption(name: string): ServerOptionRecord | undefined {
    return this.snapshot?.serverOptions[name];
  }

  /** The model's ordered targets with their upstream records (unknown upstreams are skipped). */
  targets(model: ModelRecord): Target[] {
    const upstreams = this.snapshot?.upstreams ?? {};
    const targets: Target[] = [];
    for (const target of model.targets) {
      const upstream = upstreams[target.upstream];
      if (upstream) targets.push({ upstream, model: target.model });
    }
    return targets;
  }

  /** Models the server option allows, in the order the option lists them. */
  allowedModels(serverOption: string): ModelRecord[] {
    const option = this.serverOption(serverOption);
    if (!option) return [];
    return option.models.map((name) => this.model(name)).filter((model): model is ModelRecord => model !== undefined);
  }
}
