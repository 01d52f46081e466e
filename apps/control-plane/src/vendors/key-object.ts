import { budgetWindow, formatUsd, GatewayError, isBudgetPeriod } from "@gateway/contracts";
import type { ApiKey, PrismaClient, ServerOption } from "@gateway/db";
import type { ApiKeyObject } from "./api-schemas.ts";

type OptionDefaults = Pick<ServerOption, "name" | "rpm" | "tpm">;

/** What the ledger says about a key: its spend in the budget's current period, its last request. */
export interface KeyActivity {
  budgetUsedNano: bigint;
  lastUsedAt: Date | null;
}

const NO_ACTIVITY: KeyActivity = { budgetUsedNano: 0n, lastUsedAt: null };

/**
 * The key object of the vendor API, without the plaintext (which only the mint and rotate
 * responses have). Rate limits are the effective ones: the key's own, else its server option's
 * default, as /v1/usage reports them.
 */
export function toApiKeyObject(row: ApiKey, option: OptionDefaults, activity: KeyActivity = NO_ACTIVITY, now = Date.now()): ApiKeyObject {
  const period = isBudgetPeriod(row.budgetPeriod) ? row.budgetPeriod : null;
  return {
    id: row.id,
    object: "api_key",
    prefix: row.prefix,
    name: row.name,
    server_option: option.name,
    quota: row.quotaNano === null ? null : formatUsd(row.quotaNano),
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    status: row.status === "revoked" || row.status === "disabled" ? row.status : "active",
    rate_limits: { rpm: row.rpm ?? option.rpm, tpm: row.tpm ?? option.tpm },
    metadata: isRecord(row.metadata) ? row.metadata : {},
    budget:
      row.budgetNano === null || period === null
        ? null
        : { limit: formatUsd(row.budgetNano), period, used: formatUsd(activity.budgetUsedNano), resets_at: new Date(budgetWindow(period, now).end).toISOString() },
    last_used_at: activity.lastUsedAt?.toISOString() ?? null,
    customer_id: row.customerId,
  };
}

/**
 * The ledger's figures for a page of keys, in two statements whatever the page size. Budget
 * periods start at UTC midnight, so the per-day aggregates sum a period exactly; the last use is
 * one backward index lookup per key on (api_key_id, finished_at).
 */
export async function loadKeyActivity(prisma: PrismaClient, rows: readonly ApiKey[], now = Date.now()): Promise<Map<string, KeyActivity>> {
  const activity = new Map<string, KeyActivity>(rows.map((row) => [row.id, { ...NO_ACTIVITY }]));
  if (rows.length === 0) return activity;
  const ids = rows.map((row) => row.id);
  const lastUsed = await prisma.$queryRaw<{ id: string; last: Date | null }[]>`
    SELECT k.id, (SELECT max(r.finished_at) FROM usage_records r WHERE r.api_key_id = k.id) AS last
    FROM unnest(${ids}::text[]) AS k(id)`;
  for (const { id, last } of lastUsed) activity.get(id)!.lastUsedAt = last;
  const budgeted = rows.flatMap((row) => (row.budgetNano !== null && isBudgetPeriod(row.budgetPeriod) ? [{ id: row.id, start: new Date(budgetWindow(row.budgetPeriod, now).start) }] : []));
  if (budgeted.length > 0) {
    const spent = await prisma.$queryRaw<{ id: string; cost: bigint }[]>`
      SELECT b.id, COALESCE(SUM(a.cost_nano), 0)::bigint AS cost
      FROM unnest(${budgeted.map((b) => b.id)}::text[], ${budgeted.map((b) => b.start)}::timestamptz[]) AS b(id, start)
      LEFT JOIN usage_aggregates a ON a.api_key_id = b.id AND a.day >= (b.start AT TIME ZONE 'UTC')::date
      GROUP BY b.id`;
    for (const { id, cost } of spent) activity.get(id)!.budgetUsedNano = cost;
  }
  return activity;
}

/** One key as the API shows it, with its ledger figures. */
export async function presentKey(prisma: PrismaClient, row: ApiKey, option: OptionDefaults): Promise<ApiKeyObject> {
  const activity = await loadKeyActivity(prisma, [row]);
  return toApiKeyObject(row, option, activity.get(row.id));
}

/**
 * A key of this vendor, or 404: another vendor's key is reported exactly like a missing one, so
 * ids cannot be probed across vendors.
 */
export async function findVendorKey(prisma: PrismaClient, vendorId: string, id: string) {
  const row = await prisma.apiKey.findFirst({ where: { id, vendorId }, include: { serverOption: { select: { name: true, rpm: true, tpm: true } } } });
  if (!row) throw new GatewayError("not_found", `No key with id '${id}'.`, { param: "id" });
  return row;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
