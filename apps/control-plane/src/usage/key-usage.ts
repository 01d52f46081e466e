import { formatUsd, GatewayError, isIdOf } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";

interface ModelLine {
  model: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  images: number;
  costNano: bigint;
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
  const sum = (field: "requests" | "input_tokens" | "output_tokens" | "images") => lines.reduce((total, line) => total + line[field], 0);
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
    consumption: { requests: sum("requests"), input_tokens: sum("input_tokens"), output_tokens: sum("output_tokens"), images: sum("images"), cost: formatUsd(costNano) },
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
    _sum: { requests: true, inputTokens: true, outputTokens: true, images: true, costNano: true },
    orderBy: { model: "asc" },
  });
  return groups.map((group) => ({
    model: group.model,
    requests: group._sum.requests ?? 0,
    input_tokens: Number(group._sum.inputTokens ?? 0n),
    output_tokens: Number(group._sum.outputTokens ?? 0n),
    images: group._sum.images ?? 0,
    costNano: group._sum.costNano ?? 0n,
  }));
}

async function linesFromRecords(prisma: PrismaClient, keyId: string, range: { from?: Date; to?: Date }): Promise<ModelLine[]> {
  const groups = await prisma.usageRecord.groupBy({
    by: ["model"],
    where: { apiKeyId: keyId, finishedAt: { ...(range.from ? { gte: range.from } : {}), ...(range.to ? { lt: range.to } : {}) } },
    _count: { _all: true },
    _sum: { inputTokens: true, outputTokens: true, images: true, costNano: true },
    orderBy: { model: "asc" },
  });
  return groups.map((group) => ({
    model: group.model,
    requests: group._count._all,
    input_tokens: group._sum.inputTokens ?? 0,
    output_tokens: group._sum.outputTokens ?? 0,
    images: group._sum.images ?? 0,
    costNano: group._sum.costNano ?? 0n,
  }));
}
