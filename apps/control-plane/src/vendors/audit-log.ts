import type { AuditEntry, PrismaClient } from "@gateway/db";
import { z } from "zod";
import { toList, type List } from "./pagination.ts";
import { positionId, positionInstant, type AuditEntryObject } from "./report-schemas.ts";

/** Where a page of the audit log starts: after this entry, in (created_at, id) descending order. */
export const auditPositionSchema = z.object({ createdAt: positionInstant, id: positionId });
export type AuditPosition = z.output<typeof auditPositionSchema>;

/**
 * GET /api/audit-log: the vendor's own changes newest first, keyset-paginated in the order of the
 * index audit_log (vendor_id, created_at DESC, id DESC), so a deep page costs what the first does.
 */
export async function auditLog(prisma: PrismaClient, vendorId: string, limit: number, after: AuditPosition | undefined): Promise<List<AuditEntryObject>> {
  const createdAt = after && new Date(after.createdAt);
  const rows = await prisma.auditEntry.findMany({
    where: {
      vendorId,
      // The lte bound repeats the OR, so the index range starts at the cursor rather than the newest entry.
      ...(createdAt && after ? { createdAt: { lte: createdAt }, OR: [{ createdAt: { lt: createdAt } }, { id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  return toList(rows, limit, toAuditEntryObject, (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id }));
}

function toAuditEntryObject(row: AuditEntry): AuditEntryObject {
  const changes = typeof row.changes === "object" && row.changes !== null && !Array.isArray(row.changes) ? row.changes : {};
  return {
    id: row.id,
    object: "audit_entry",
    action: row.action,
    key_id: row.keyId,
    token_id: row.tokenId,
    request_id: row.requestId,
    changes,
    created_at: row.createdAt.toISOString(),
  };
}
