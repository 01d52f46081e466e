import { formatUsd } from "@gateway/contracts";
import { Prisma, type PrismaClient } from "@gateway/db";
import type { UsageFigures, UsageGroup, UsageReport, UsageReportRow } from "../vendors/report-schemas.ts";
import { isoDay, planWindow } from "./report-window.ts";
import { withoutParallelWorkers } from "./report-transaction.ts";

export interface UsageReportInput {
  vendorId: string;
  /** Inclusive, by each request's end (finished_at). */
  from: Date;
  /** Exclusive. */
  to: Date;
  groupBy: UsageGroup;
}

/** The sums of one group, as Postgres returns them (bigint). */
export interface Sums {
  requests: bigint;
  input_tokens: bigint;
  output_tokens: bigint;
  cached_input_tokens: bigint;
  cache_write_tokens: bigint;
  reasoning_tokens: bigint;
  images: bigint;
  cost_nano: bigint;
  cache_write_1h_tokens: bigint;
  web_search_requests: bigint;
}
type SumColumn = keyof Sums;
/** `requests` first (sumsOf counts it); the order of the rollups' report indexes after it. */
const SUM_COLUMNS: SumColumn[] = [
  "requests",
  "input_tokens",
  "output_tokens",
  "cached_input_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  "images",
  "cost_nano",
  "cache_write_1h_tokens",
  "web_search_requests",
];

export interface GroupRow extends Sums {
  grp: string | Date;
  name?: string;
  prefix?: string;
}

/**
 * GET /api/usage (contract section 9): the vendor's consumption in `[from, to)`, grouped. Whole
 * UTC days come from the per-day rollups the billing worker keeps with each ledger row
 * (usage_vendor_days for day, model and server option; usage_key_days for key), the partial days
 * at the edges from usage_records (see report-window.ts), all in one statement so both are read
 * from one snapshot. The totals are the sum of the rows in nano-USD, formatted once: they equal
 * the rows and the request log exactly.
 */
export async function vendorUsageReport(prisma: PrismaClient, input: UsageReportInput): Promise<UsageReport> {
  const query = usageReportQuery(input);
  const rows = query === null ? [] : await withoutParallelWorkers<GroupRow>(prisma, query);
  const data = rows.map(toReportRow).sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  return {
    object: "usage_report",
    from: input.from.toISOString(),
    to: input.to.toISOString(),
    group_by: input.groupBy,
    totals: toFigures(sumRows(rows)),
    data,
  };
}

/** The column a part of the report groups by (a partial day groups by its day as a constant). */
const GROUP_COLUMN: Record<UsageGroup, string> = { day: "day", model: "model", key: "api_key_id", server_option: "server_option_id", customer: "api_key_id" };

/** The one statement of a report; null for an empty window. Exported for EXPLAIN in the benchmark. */
export function usageReportQuery({ vendorId, from, to, groupBy }: UsageReportInput): Prisma.Sql | null {
  const plan = planWindow(from, to);
  if (plan.wholeDays === null && plan.partialDays.length === 0) return null;
  const parts: Prisma.Sql[] = [];
  if (plan.wholeDays) {
    // By customer: per key (the key's customer is mapped at the end).
    const rollup = groupBy === "key" || groupBy === "customer" ? Prisma.raw("usage_key_days") : Prisma.raw("usage_vendor_days");
    parts.push(Prisma.sql`
      SELECT ${Prisma.raw(GROUP_COLUMN[groupBy])} AS grp, ${sumsOf(Prisma.sql`sum(requests)`)}
      FROM ${rollup}
      WHERE vendor_id = ${vendorId} AND day >= ${plan.wholeDays.from}::date AND day < ${plan.wholeDays.to}::date
      GROUP BY 1`);
  }
  for (const part of plan.partialDays) {
    const window = Prisma.sql`vendor_id = ${vendorId} AND finished_at >= ${part.from}::timestamptz AND finished_at < ${part.to}::timestamptz`;
    if (groupBy === "server_option") {
      // The ledger row has the key, not its option: sum per key from the index, then map the keys.
      parts.push(Prisma.sql`
        SELECT k.server_option_id AS grp, ${sumsOf(Prisma.sql`sum(requests)`)}
        FROM (SELECT api_key_id, ${sumsOf(Prisma.sql`count(*)`)} FROM usage_records WHERE ${window} GROUP BY 1) AS r
        JOIN api_keys AS k ON k.id = r.api_key_id
        GROUP BY 1`);
      continue;
    }
    // Each partial day lies inside one UTC day, so its day is a constant: no per-row date arithmetic.
    const group = groupBy === "day" ? Prisma.sql`${part.day}::date` : Prisma.raw(GROUP_COLUMN[groupBy]);
    parts.push(Prisma.sql`SELECT ${group} AS grp, ${sumsOf(Prisma.sql`count(*)`)} FROM usage_records WHERE ${window} GROUP BY 1`);
  }
  const totals = Prisma.join(SUM_COLUMNS.map((column) => Prisma.sql`sum(p.${Prisma.raw(column)})::bigint AS ${Prisma.raw(column)}`));
  const select = Prisma.sql`WITH parts AS (${Prisma.join(parts, " UNION ALL ")}) SELECT`;
  switch (groupBy) {
    case "day":
    case "model":
      return Prisma.sql`${select} p.grp, ${totals} FROM parts AS p GROUP BY p.grp`;
    case "key":
      return Prisma.sql`${select} p.grp, k.name, k.prefix, ${totals}
        FROM parts AS p JOIN api_keys AS k ON k.id = p.grp GROUP BY p.grp, k.name, k.prefix`;
    case "server_option":
      return Prisma.sql`${select} s.name AS grp, ${totals}
        FROM parts AS p JOIN server_options AS s ON s.id = p.grp GROUP BY s.name`;
    case "customer":
      return Prisma.sql`${select} COALESCE(k.customer_id, 'none') AS grp, ${totals}
        FROM parts AS p JOIN api_keys AS k ON k.id = p.grp GROUP BY 1`;
    default: {
      const unknown: never = groupBy;
      throw new Error(`unknown group ${String(unknown)}`);
    }
  }
}

/** The columns of one part: its request count, then the sums, each as bigint. */
function sumsOf(requests: Prisma.Sql): Prisma.Sql {
  const sums = SUM_COLUMNS.slice(1).map((column) => Prisma.sql`sum(${Prisma.raw(column)})::bigint AS ${Prisma.raw(column)}`);
  return Prisma.join([Prisma.sql`${requests}::bigint AS requests`, ...sums]);
}

export function toReportRow(row: GroupRow): UsageReportRow {
  const group = row.grp instanceof Date ? isoDay(row.grp) : row.grp;
  const key = row.name === undefined ? {} : { name: row.name, prefix: row.prefix ?? "" };
  return { group, ...key, ...toFigures(row) };
}

function sumRows(rows: Sums[]): Sums {
  const total = Object.fromEntries(SUM_COLUMNS.map((column) => [column, 0n])) as unknown as Sums;
  for (const row of rows) for (const column of SUM_COLUMNS) total[column] += row[column];
  return total;
}

/** Token counts as JSON numbers (exact below 2^53); the cost as 6-decimal USD and exact nano-USD. */
function toFigures(sums: Sums): UsageFigures {
  return {
    requests: Number(sums.requests),
    input_tokens: Number(sums.input_tokens),
    output_tokens: Number(sums.output_tokens),
    cached_input_tokens: Number(sums.cached_input_tokens),
    cache_write_tokens: Number(sums.cache_write_tokens),
    cache_write_1h_tokens: Number(sums.cache_write_1h_tokens),
    reasoning_tokens: Number(sums.reasoning_tokens),
    images: Number(sums.images),
    web_search_requests: Number(sums.web_search_requests),
    cost: formatUsd(sums.cost_nano),
    cost_nano: sums.cost_nano.toString(),
  };
}
