import { dialectFromColumn, priceSheetOf, scaledPricesToStrings, scaledUnitPrices, SHAPES, type Shape } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";
import type { RecordStore, RoutingSnapshot } from "@gateway/redis-store";

/** Reads the routing state from Postgres into the snapshot shape the proxies read. */
export async function buildSnapshot(prisma: PrismaClient): Promise<Omit<RoutingSnapshot, "version" | "publishedAt">> {
  const [upstreams, models, options] = await Promise.all([
    prisma.upstream.findMany({ orderBy: { name: "asc" } }),
    prisma.model.findMany({ orderBy: { name: "asc" }, include: { routes: { orderBy: { position: "asc" }, include: { upstream: true } } } }),
    prisma.serverOption.findMany({ orderBy: { name: "asc" }, include: { models: { include: { model: true } } } }),
  ]);
  return {
    upstreams: Object.fromEntries(
      upstreams.map((u) => [
        u.name,
        {
          name: u.name,
          shape: knownShape(u),
          baseUrl: u.baseUrl,
          secretEnv: u.secretEnv,
          priority: u.priority,
          weight: u.weight,
          connectTimeoutMs: u.connectTimeoutMs,
          firstByteTimeoutMs: u.firstByteTimeoutMs,
          responseTimeoutMs: u.responseTimeoutMs,
          supportsResponses: u.supportsResponses,
          dropBetas: u.dropBetas,
          dialect: dialectFromColumn(u.dialect),
        },
      ]),
    ),
    models: Object.fromEntries(
      models.map((m) => [
        m.name,
        {
          name: m.name,
          displayName: m.displayName,
          ownedBy: m.ownedBy,
          created: Math.floor(m.createdAt.getTime() / 1000),
          aliases: m.aliases,
          dropParams: m.dropParams,
          position: m.position,
          targets: m.routes.map((r) => ({ upstream: r.upstream.name, model: r.upstreamModel, weight: r.weight, priority: r.priority })),
          // After targets: the order the record schema reads them in, so an unchanged snapshot compares equal.
          capabilities: {
            maxOutputTokens: m.maxOutputTokens,
            contextWindow: m.contextWindow,
            reasoning: m.reasoning,
            sampling: m.sampling,
            midConversationSystem: m.midConversationSystem,
            thinkingStyle: m.thinkingStyle === "level" ? "level" : "budget",
            canDisableThinking: m.canDisableThinking,
            vision: m.vision,
            tools: m.tools,
          },
        },
      ]),
    ),
    serverOptions: Object.fromEntries(
      options.map((o) => [
        o.name,
        {
          name: o.name,
          models: o.models.map((link) => link.model.name).sort(),
          prices: Object.fromEntries(
            [...o.models].sort((a, b) => a.model.name.localeCompare(b.model.name)).map((link) => {
              const scaled = scaledUnitPrices(priceSheetOf(link.model, o.priceMultiplierBps, link));
              return [link.model.name, scaledPricesToStrings(scaled)];
            }),
          ),
          rpm: o.rpm,
          tpm: o.tpm,
          strictParams: o.strictParams,
        },
      ]),
    ),
  };
}

/**
 * The upstream's shape, or a refusal to publish. The column is a plain string, and the gateway file's
 * shape was checked when it was applied, so another value here was written around that check (a
 * bug, or a hand edit): routing it as some other shape would send every request in the wrong
 * dialect, so the publish fails and the proxies keep the snapshot they have.
 */
function knownShape(upstream: { name: string; shape: string }): Shape {
  const shape = SHAPES.find((known) => known === upstream.shape);
  if (shape === undefined) {
    throw new Error(`cannot publish the routing snapshot: upstream ${JSON.stringify(upstream.name)} has shape ${JSON.stringify(upstream.shape)}, not one of ${SHAPES.join(", ")}`);
  }
  return shape;
}

/**
 * Publishes the snapshot when it differs from the one in Redis (or Redis has none). Returns the
 * version the proxies now see.
 */
export async function publishSnapshot(prisma: PrismaClient, records: RecordStore, options: { force?: boolean } = {}): Promise<number> {
  const content = await buildSnapshot(prisma);
  const current = await records.readSnapshot();
  if (!options.force && current && sameContent(current, content)) return current.version;
  const version = Math.max(Date.now(), (current?.version ?? 0) + 1);
  await records.writeSnapshot({ version, publishedAt: Date.now(), ...content });
  return version;
}

function sameContent(current: RoutingSnapshot, content: Omit<RoutingSnapshot, "version" | "publishedAt">): boolean {
  const { version: _version, publishedAt: _publishedAt, ...rest } = current;
  return JSON.stringify(rest) === JSON.stringify(content);
}
