import { formatUsd, GatewayError, isIdOf } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";

/** The parts of usage each line shows (contract section 12), beside requests and cost. */
const PARTS = {
  input_tokens: "inputTokens",
  output_tokens: "outputTokens",
  cached_input_tokens: "cachedInputTokens",
  cache_write_tokens: "cacheWriteTokens",
  cache_write_1h_tokens: "cacheWrite1hTokens",
  reasoning_tokens: "reasoningTokens",
  images: "images",
  web_search_requests: "webSearchRequests",
} as const;
type Part = keyof typeof PARTS;
const SUM_PARTS = Object.fromEntries(Object.values(PARTS).map((column) => [column, true])) as { [Column in (typeof PARTS)[Part]]: true };

type ModelLine = { model: string; requests: number; costNano: bigint } & { [Name in Part]: number };

/** A group's sums (BigInt in the per-day tables, Int in the ledger) as the line's numbers. */
function partsOf(sums: Partial<Record<(typeof PARTS)[Part], bigint | number | null>>): { [Name in Part]: number } {
  const parts = {} as { [Name in Part]: number };
  for (const [name, column] of Object.entries(PARTS) as [Part, (typeof PARTS)[Part]][]) parts[name] = Number(sums[column] ?? 0);
  return parts;
}

/**
 * The body of GET /v1/usage (contract section 5) for one key, from the ledger. Without a range it
 * reads the per-day aggregates; with `from`/`to` it sums the usage records in that window.
 */
export async function keyUsage(prisma: PrismaClient, keyId: string, range: { from?: Date; to?: Date } = {}) {
  const key = isIdOf("key", keyId) ? await prisma.apiKey.findUnique({ where: { id: keyId }, include: { serverOption: true } }) : null;
  if (!key) throw new GatewayError("not_found", `No key with id '${keyId}'.`);
  const totals = await prisma.usageAggregate.aggregate({ where: { apiKeyId: keyId }, _sum: { costNano: true } });
  // Shown amounts have 6 decimals; `remaining` is computed from the shown `used` so that
  // limit - used = remaining holds for the figures a client reads.
  const usedNano = roundToMicroUsd(totals._sum.costNano ?? 0n);
  const lines = range.from || range.to ? await linesFromRecords(prisma, keyId, range) : await linesFromAggregates(prisma, keyId);
  const sum = (field: "requests" | Part) => lines.reduce((total, line) => total + line[field], 0);
  const consumption = Object.fromEntries((Object.keys(PARTS) as Part[]).map((name) => [name, sum(name)])) as { [Name in Part]: number };
  const costNano = lines.reduce((total, line) => total + line.costNano, 0n);
  return {
    object: "usage",
    key: {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      server_option: key.serverOption.name,
      status: key.status,
      expires_at: key.expiresAt?.toISOString() ?? null,
    },
    quota: {
      limit: key.quotaNano === null ? null : formatUsd(key.quotaNano),
      used: formatUsd(usedNano),
      remaining: key.quotaNano === null ? null : formatUsd(key.quotaNano > usedNano ? key.quotaNano - usedNano : 0n),
      currency: "USD",
    },
    consumption: { requests: sum("requests"), ...consumption, cost: formatUsd(costNano) },
    by_model: lines.map(({ costNano: lineCost, ...line }) => ({ ...line, cost: formatUsd(lineCost) })),
    rate_limits: { rpm: key.rpm ?? key.serverOption.rpm, tpm: key.tpm ?? key.serverOption.tpm },
  };
}

function roundToMicroUsd(nano: bigint): bigint {
  return ((nano + 500n) / 1000n) * 1000n;
}

async function linesFromAggregates(prisma: PrismaClient, keyId: string): Promise<ModelLine[]> {
  const groups = await prisma.usageAggregate.groupBy({
    by: ["model"],
    where: { apiKeyId: keyId },
    _sum: { requests: true, ...SUM_PARTS, costNano: true },
    orderBy: { model: "asc" },
  });
  return groups.map((group) => ({ model: group.model, requests: group._sum.requests ?? 0, ...partsOf(group._sum), costNano: group._sum.costNano ?? 0n }));
}

async function linesFromRecords(prisma: PrismaClient, keyId: string, range: { from?: Date; to?: Date }): Promise<ModelLine[]> {
  const groups = await prisma.usageRecord.groupBy({
    by: ["model"],
    where: { apiKeyId: keyId, finishedAt: { ...(range.from ? { gte: range.from } : {}), ...(range.to ? { lt: range.to } : {}) } },
    _count: { _all: true },
    _sum: { ...SUM_PARTS, costNano: true },
    orderBy: { model: "asc" },
  });
  return groups.map((group) => ({ model: group.model, requests: group._count._all, ...partsOf(group._sum), costNano: group._sum.costNano ?? 0n }));
}
