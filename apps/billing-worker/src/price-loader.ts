import type { PrismaClient } from "@gateway/db";
import { priceSheetOf, type PriceSheet } from "@gateway/contracts";

/** Every price column of a model and of a server option's override (contract section 12). */
const PRICE_COLUMNS = {
  inputPrice: true,
  outputPrice: true,
  cachedInputPrice: true,
  cacheWritePrice: true,
  cacheWrite1hPrice: true,
  imagePrice: true,
  requestPrice: true,
  webSearchPrice: true,
  priceTiers: true,
} as const;

interface CacheEntry {
  expiresAt: number;
  sheet: Promise<PriceSheet | null>;
}

/** More distinct (server option, model) pairs than any deployment has; a bound, not a tuning knob. */
const MAX_ENTRIES = 10_000;

/**
 * Reads the price sheet of (server option name, model name) from Postgres and keeps it for `ttlMs`,
 * so a burst of jobs for one model costs one read. Concurrent misses share one read. Resolves null
 * when the server option or the model is unknown.
 */
export class PriceLoader {
  private readonly prisma: PrismaClient;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, CacheEntry>();

  constructor(prisma: PrismaClient, options: { ttlMs: number; now?: () => number }) {
    this.prisma = prisma;
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
  }

  get(serverOption: string, model: string): Promise<PriceSheet | null> {
    const key = `${serverOption}\u0000${model}`;
    const now = this.now();
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > now) return cached.sheet;
    if (this.cache.size >= MAX_ENTRIES) this.evictExpired(now);
    const sheet = this.load(serverOption, model);
    const entry = { expiresAt: now + this.ttlMs, sheet };
    this.cache.set(key, entry);
    // A failed read is not remembered: the job retries and the next call reads again.
    sheet.catch(() => {
      if (this.cache.get(key) === entry) this.cache.delete(key);
    });
    return sheet;
  }

  clear(): void {
    this.cache.clear();
  }

  private async load(serverOptionName: string, modelName: string): Promise<PriceSheet | null> {
    const [option, model] = await Promise.all([
      this.prisma.serverOption.findUnique({ where: { name: serverOptionName }, select: { id: true, priceMultiplierBps: true } }),
      this.prisma.model.findUnique({ where: { name: modelName }, select: { id: true, ...PRICE_COLUMNS } }),
    ]);
    if (!option || !model) return null;
    const override = await this.prisma.serverOptionModel.findUnique({
      where: { serverOptionId_modelId: { serverOptionId: option.id, modelId: model.id } },
      select: PRICE_COLUMNS,
    });
    return priceSheetOf(model, option.priceMultiplierBps, override);
  }

  private evictExpired(now: number): void {
    for (const [key, entry] of this.cache) if (entry.expiresAt <= now) this.cache.delete(key);
    // Still full of live entries: start over rather than grow without bound.
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
  }
}
