import { formatUsd } from "@gateway/contracts";
import { emitWebhookEvent, type PrismaClient, type WebhookEventType } from "@gateway/db";
import type { Logger } from "@gateway/logger";
import type { LedgerEntry, RecordOutcome } from "./record-usage.ts";

/**
 * Webhook events of a key's spend (contract section 19), seen where the spend is recorded: after
 * each ledger batch, the keys it charged are compared with their limits, from the ledger itself
 * (usage_key_days, written in the batch's statement):
 *
 * - `key.quota_low`: lifetime spend at or past 80 % of the quota (20 % or less left);
 * - `key.quota_exhausted`: lifetime spend at or past the quota;
 * - `key.budget_exceeded`: spend in the current budget period (UTC day, week from Monday, month) at
 *   or past the budget.
 *
 * The check is of state, not of one batch's increase, so a crossing missed (the worker died, the
 * insert failed) is seen at the key's next batch. Each occurrence has a deterministic event id: the
 * key, the limit it crossed (a quota change or top-up is a new limit, so a new crossing), and for a
 * budget its period. Deliveries are unique per webhook and event, so later batches, other workers
 * and retried jobs that see the same crossing deliver nothing more: one event per crossing.
 */
export const QUOTA_LOW_FRACTION_BPS = 8_000n;

interface KeySpend {
  id: string;
  vendor_id: string;
  name: string;
  prefix: string;
  customer_id: string | null;
  quota_nano: bigint | null;
  budget_nano: bigint | null;
  budget_period: string | null;
  spent_nano: bigint;
  period_spent_nano: bigint | null;
  period_start: Date | null;
  period_end: Date | null;
}

export interface Crossing {
  vendorId: string;
  type: WebhookEventType;
  eventId: string;
  data: Record<string, unknown>;
}

/** The crossings of these keys now (keys without a limit, or whose vendor has no active webhook, are skipped). */
export async function findCrossings(prisma: PrismaClient, keyIds: readonly string[]): Promise<Crossing[]> {
  if (keyIds.length === 0) return [];
  const rows = await prisma.$queryRaw<KeySpend[]>`
    SELECT k.id, k.vendor_id, k.name, k.prefix, k.customer_id, k.quota_nano, k.budget_nano, k.budget_period,
      (SELECT coalesce(sum(d.cost_nano), 0)::bigint FROM usage_key_days AS d WHERE d.api_key_id = k.id) AS spent_nano,
      p.start AS period_start, p.end AS period_end,
      CASE WHEN p.start IS NULL THEN NULL ELSE
        (SELECT coalesce(sum(d.cost_nano), 0)::bigint FROM usage_key_days AS d WHERE d.api_key_id = k.id AND d.day >= p.start::date)
      END AS period_spent_nano
    FROM api_keys AS k
    LEFT JOIN LATERAL (
      SELECT (date_trunc(k.budget_period, now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS start,
        ((date_trunc(k.budget_period, now() AT TIME ZONE 'UTC') + ('1 ' || k.budget_period)::interval) AT TIME ZONE 'UTC') AS end
      WHERE k.budget_nano IS NOT NULL AND k.budget_period IN ('day', 'week', 'month')
    ) AS p ON true
    WHERE k.id = ANY (${[...keyIds]}::text[])
      AND (k.quota_nano IS NOT NULL OR k.budget_nano IS NOT NULL)
      AND EXISTS (SELECT 1 FROM webhooks AS w WHERE w.vendor_id = k.vendor_id AND w.status = 'active')`;
  return rows.flatMap(crossingsOf);
}

export function crossingsOf(row: KeySpend): Crossing[] {
  const crossings: Crossing[] = [];
  const key = { key_id: row.id, name: row.name, prefix: row.prefix, customer_id: row.customer_id };
  const quota = row.quota_nano;
  if (quota !== null && quota > 0n) {
    const quotaData = {
      ...key,
      quota: formatUsd(quota),
      used: formatUsd(row.spent_nano),
      remaining: formatUsd(row.spent_nano >= quota ? 0n : quota - row.spent_nano),
    };
    if (row.spent_nano * 10_000n >= quota * QUOTA_LOW_FRACTION_BPS) {
      crossings.push({ vendorId: row.vendor_id, type: "key.quota_low", eventId: `key.quota_low:${row.id}:${quota}`, data: quotaData });
    }
    if (row.spent_nano >= quota) {
      crossings.push({ vendorId: row.vendor_id, type: "key.quota_exhausted", eventId: `key.quota_exhausted:${row.id}:${quota}`, data: quotaData });
    }
  }
  const budget = row.budget_nano;
  if (budget !== null && row.period_start !== null && row.period_spent_nano !== null && row.period_spent_nano >= budget) {
    const start = row.period_start.toISOString();
    crossings.push({
      vendorId: row.vendor_id,
      type: "key.budget_exceeded",
      eventId: `key.budget_exceeded:${row.id}:${start}:${budget}`,
      data: {
        ...key,
        budget: { limit: formatUsd(budget), period: row.budget_period, used: formatUsd(row.period_spent_nano), period_start: start, resets_at: row.period_end?.toISOString() ?? null },
      },
    });
  }
  return crossings;
}

/** Emits the crossings of these keys; returns the deliveries inserted (0 for crossings emitted before). */
export async function emitCrossings(prisma: PrismaClient, keyIds: readonly string[]): Promise<number> {
  let deliveries = 0;
  for (const crossing of await findCrossings(prisma, keyIds)) {
    deliveries += (await emitWebhookEvent(prisma, crossing)).deliveries;
  }
  return deliveries;
}

/**
 * The listener the ledger batcher calls after each committed batch: the keys of its recorded
 * entries are checked off the billing path, one check at a time (keys seen meanwhile are checked
 * together next), so a busy worker runs at most one crossing query at once. A failed check is
 * logged; the key's next batch sees the crossing again.
 */
export function watchCrossings(prisma: PrismaClient, logger: Logger) {
  let pending = new Set<string>();
  let running: Promise<void> | undefined;
  const run = async (): Promise<void> => {
    while (pending.size > 0) {
      const keys = [...pending];
      pending = new Set();
      try {
        const deliveries = await emitCrossings(prisma, keys);
        if (deliveries > 0) logger.info({ deliveries }, "webhook events of quota and budget crossings queued");
      } catch (error) {
        logger.warn({ err: (error as Error).message, keys: keys.length }, "could not check keys for quota and budget crossings");
      }
    }
  };
  const listener = (entries: readonly LedgerEntry[], outcomes: readonly RecordOutcome[]): void => {
    entries.forEach((entry, index) => {
      if (outcomes[index] === "recorded") pending.add(entry.event.apiKeyId);
    });
    kick();
  };
  const kick = (): void => {
    if (pending.size === 0 || running !== undefined) return;
    running = run().finally(() => {
      running = undefined;
      kick();
    });
  };
  /** Settles once every check started so far has finished (tests, shutdown). */
  const idle = async (): Promise<void> => {
    while (running !== undefined) await running;
  };
  return Object.assign(listener, { idle });
}
