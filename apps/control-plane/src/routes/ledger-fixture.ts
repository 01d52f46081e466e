// Ledger rows for the report tests (GET /api/usage, /api/requests), written by the billing
// worker's own statement so the per-day aggregates are exactly what production writes.
import { randomBytes } from "node:crypto";
import { billingEventSchema, newId, type BillingEvent } from "@gateway/contracts";
import type { PrismaClient, UsageStatus } from "@gateway/db";
import type { z } from "zod";
import { recordUsage } from "../../../billing-worker/src/record-usage.ts";

export interface TestKey {
  id: string;
  vendorId: string;
  name: string;
  prefix: string;
  serverOption: string;
}

/** A key row of `vendor` in `serverOption`, straight in Postgres (the reports never need its Redis record). */
export async function createTestKey(prisma: PrismaClient, vendor: string, serverOption: string, name: string): Promise<TestKey> {
  const [vendorRow, option] = await Promise.all([
    prisma.vendor.findUniqueOrThrow({ where: { name: vendor } }),
    prisma.serverOption.findUniqueOrThrow({ where: { name: serverOption } }),
  ]);
  const prefix = `sk-${randomBytes(2).toString("hex")}`;
  const row = await prisma.apiKey.create({
    data: { id: newId("key"), vendorId: vendorRow.id, serverOptionId: option.id, name, keyHash: randomBytes(32).toString("hex"), prefix },
  });
  return { id: row.id, vendorId: row.vendorId, name, prefix, serverOption };
}

/** One recorded request: its parsed billing event and the cost the worker wrote for it. */
export interface LedgerRequest {
  event: z.output<typeof billingEventSchema>;
  key: TestKey;
  costNano: bigint;
}

export interface RequestSpec {
  key: TestKey;
  finishedAt: Date;
  model?: string;
  status?: UsageStatus;
  stream?: boolean;
  durationMs?: number;
  costNano?: bigint;
}

/**
 * Records each spec through the worker's recordUsage, with varied token counts and a cost that is
 * not a whole micro-dollar (so rounding per row would show in the sums).
 */
export async function recordRequests(prisma: PrismaClient, specs: RequestSpec[]): Promise<LedgerRequest[]> {
  const recorded: LedgerRequest[] = [];
  for (const [index, spec] of specs.entries()) {
    const input: BillingEvent = {
      requestId: newId("req"),
      apiKeyId: spec.key.id,
      vendorId: spec.key.vendorId,
      serverOption: spec.key.serverOption,
      model: spec.model ?? "gpt-small",
      endpoint: index % 2 === 0 ? "chat.completions" : "messages",
      upstream: "simulator",
      upstreamModel: "sim-small",
      status: spec.status ?? "ok",
      stream: spec.stream ?? index % 3 === 0,
      estimated: index % 7 === 0,
      usage: {
        inputTokens: 100 + ((index * 37) % 900),
        outputTokens: 10 + ((index * 53) % 400),
        cachedInputTokens: (index * 11) % 50,
        cacheWriteTokens: (index * 13) % 40,
        cacheWrite1hTokens: (index * 13) % 40 > 20 ? 15 : 0,
        reasoningTokens: (index * 17) % 30,
        images: index % 11 === 0 ? 1 : 0,
        webSearchRequests: index % 6 === 0 ? 2 : 0,
      },
      startedAt: spec.finishedAt.getTime() - (spec.durationMs ?? 250 + ((index * 97) % 5000)),
      finishedAt: spec.finishedAt.getTime(),
      ttfbMs: index % 5 === 0 ? null : 40 + (index % 200),
      attempts: attemptsOf(index),
    };
    const event = billingEventSchema.parse(input);
    const costNano = spec.costNano ?? BigInt(1_000 + ((index * 7_919_457) % 9_999_991));
    await recordUsage(prisma, event, costNano);
    recorded.push({ event, key: spec.key, costNano });
  }
  return recorded;
}

/** A failover (a 503, then the answer) every fourth request, none every ninth (an older proxy's), else one attempt. */
function attemptsOf(index: number): BillingEvent["attempts"] {
  if (index % 9 === 0) return undefined;
  const answer = { upstream: "simulator", upstreamModel: "sim-small", cause: "ok" as const, status: 200, durationMs: 200 + index, ttfbMs: 40 + index };
  if (index % 4 !== 0) return [answer];
  return [{ upstream: "simulator-backup", upstreamModel: "sim-small-b", cause: "http_5xx", status: 503, durationMs: 12, ttfbMs: null }, answer];
}
