import { createHash } from "node:crypto";
import { auditLog, requestLog, requestLogQuery, USAGE_GROUPS, usageReportQuery, vendorUsageReport } from "@gateway/control-plane";
import { Prisma, type PrismaClient } from "@gateway/db";
import { vendorId, type LedgerShape } from "./load-ledger.ts";

const DAY_MS = 86_400_000;

/** One measured API query: what it runs, and the statement EXPLAIN shows for it. */
export interface QueryCase {
  api: "usage" | "requests" | "audit-log";
  name: string;
  /** Runs the query as the route does; returns how many items the answer holds. */
  run(): Promise<number>;
  explain: { sql: Prisma.Sql; localSettings: boolean } | null;
}

/** The key the load gave vendor 0 first. */
function firstKeyId(): string {
  return `key_${createHash("md5").update("key0").digest("hex")}`;
}

/**
 * The queries of the three vendor reports, for vendor 0 (a third of the ledger): the usage report
 * per group over aligned and unaligned windows, the request log's first page with each filter and
 * a page deep in the past, and the audit log.
 */
export async function ledgerCases(prisma: PrismaClient, shape: LedgerShape): Promise<QueryCase[]> {
  const vendor = vendorId(0);
  const end = shape.end;
  const midnight = new Date(Math.floor(end.getTime() / DAY_MS) * DAY_MS);
  const ago = (ms: number, from = midnight) => new Date(from.getTime() - ms);
  const windows: [string, Date, Date][] = [
    ["1 day", ago(DAY_MS), midnight],
    ["30 days", ago(30 * DAY_MS), midnight],
    ["90 days", ago(90 * DAY_MS), midnight],
    ["last 24 h (unaligned)", ago(DAY_MS, end), end],
    ["last 30 days (unaligned, the default)", ago(30 * DAY_MS, end), end],
    ["last 90 days (unaligned)", ago(90 * DAY_MS, end), end],
  ];
  const cases: QueryCase[] = [];
  for (const [label, from, to] of windows) {
    for (const groupBy of USAGE_GROUPS) {
      const input = { vendorId: vendor, from, to, groupBy };
      const sql = usageReportQuery(input);
      cases.push({
        api: "usage",
        name: `${label}, group_by=${groupBy}`,
        run: async () => (await vendorUsageReport(prisma, input)).data.length,
        explain: sql && { sql, localSettings: true },
      });
    }
  }

  const limit = 100;
  const [sample] = await prisma.$queryRaw<{ request_id: string }[]>`
    SELECT request_id FROM usage_records WHERE vendor_id = ${vendor} AND finished_at < ${ago(40 * DAY_MS, end)} ORDER BY finished_at DESC LIMIT 1`;
  const deep = { finishedAt: ago(60 * DAY_MS, end).toISOString(), id: "req_ffffffffffffffffffffffffffffffff" };
  const requestCases: [string, Parameters<typeof requestLog>[1], typeof deep | undefined][] = [
    ["first page", { vendorId: vendor }, undefined],
    ["key_id", { vendorId: vendor, keyId: firstKeyId() }, undefined],
    ["model", { vendorId: vendor, model: "claude-large" }, undefined],
    ["status=error (1 %)", { vendorId: vendor, status: "error" }, undefined],
    ["status=client_aborted (0.1 %)", { vendorId: vendor, status: "client_aborted" }, undefined],
    ["key_id + status=error", { vendorId: vendor, keyId: firstKeyId(), status: "error" }, undefined],
    ["model + status=client_aborted", { vendorId: vendor, model: "claude-large", status: "client_aborted" }, undefined],
    ["from/to: one day 45 days ago", { vendorId: vendor, from: ago(45 * DAY_MS), to: ago(44 * DAY_MS) }, undefined],
    ["id (one request)", { vendorId: vendor, id: sample?.request_id ?? "req_none" }, undefined],
    ["unknown key_id", { vendorId: vendor, keyId: "key_00000000000000000000000000000000" }, undefined],
    ["deep cursor (60 days back)", { vendorId: vendor }, deep],
    ["deep cursor + model", { vendorId: vendor, model: "claude-large" }, deep],
    ["deep cursor + status=client_aborted", { vendorId: vendor, status: "client_aborted" }, deep],
  ];
  for (const [name, filter, after] of requestCases) {
    cases.push({
      api: "requests",
      name: `limit=${limit}, ${name}`,
      run: async () => (await requestLog(prisma, filter, limit, after)).data.length,
      explain: { sql: requestLogQuery(filter, limit, after), localSettings: false },
    });
  }

  const auditDeep = { createdAt: ago(60 * DAY_MS, end).toISOString(), id: "aud_ffffffffffffffffffffffffffffffff" };
  cases.push(
    {
      api: "audit-log",
      name: `limit=${limit}, first page`,
      run: async () => (await auditLog(prisma, vendor, limit, undefined)).data.length,
      explain: { sql: Prisma.sql`SELECT * FROM audit_log WHERE vendor_id = ${vendor} ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`, localSettings: false },
    },
    {
      api: "audit-log",
      name: `limit=${limit}, deep cursor (60 days back)`,
      run: async () => (await auditLog(prisma, vendor, limit, auditDeep)).data.length,
      explain: {
        // What Prisma sends for the keyset condition of vendors/audit-log.ts.
        sql: Prisma.sql`SELECT * FROM audit_log WHERE vendor_id = ${vendor} AND created_at <= ${new Date(auditDeep.createdAt)}
          AND (created_at < ${new Date(auditDeep.createdAt)} OR id < ${auditDeep.id}) ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`,
        localSettings: false,
      },
    },
  );
  return cases;
}
