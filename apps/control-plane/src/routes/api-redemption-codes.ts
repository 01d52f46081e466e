import type { Request, Response } from "express";
import { formatUsd, parseUsdToNano } from "@gateway/contracts";
import type { RedemptionCode } from "@gateway/db";
import type { ControlPlaneServices } from "../services.ts";
import { auditPositionSchema } from "../vendors/audit-log.ts";
import { readPageRequest, toList } from "../vendors/pagination.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";
import { createRedemptionCodes } from "../wallet/redemption-codes.ts";
import { redemptionCodesBodySchema } from "../wallet/wallet-schemas.ts";

/**
 * POST /api/redemption-codes (scope customers:write): `{"count","amount","expires_at"?}` -> 201
 * `{"object":"list","data":[{"id","object","code":"rc_…","amount","expires_at"}]}`. The plaintexts
 * appear in this response only; the gateway keeps their hashes.
 */
export function createRedemptionCodesRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const body = parseInput(redemptionCodesBodySchema, request.body, "body");
    const data = await createRedemptionCodes(services.db.prisma, vendorOf(request).vendorId, {
      count: body.count,
      amountNano: parseUsdToNano(body.amount),
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
    });
    response.status(201).json({ object: "list", data, has_more: false, next_cursor: null });
  };
}

function toCodeObject(row: RedemptionCode) {
  const expired = row.redeemedAt === null && row.expiresAt !== null && row.expiresAt.getTime() <= Date.now();
  return {
    id: row.id,
    object: "redemption_code",
    prefix: row.prefix,
    amount: formatUsd(row.amountNano),
    status: row.redeemedAt !== null ? "redeemed" : expired ? "expired" : "active",
    expires_at: row.expiresAt?.toISOString() ?? null,
    redeemed_at: row.redeemedAt?.toISOString() ?? null,
    redeemed_by_customer_id: row.redeemedByCustomerId,
    redeemed_by_key_id: row.redeemedByKeyId,
    created_at: row.createdAt.toISOString(),
  };
}

/** GET /api/redemption-codes (scope customers:read): the vendor's codes newest first, never a plaintext. */
export function listRedemptionCodesRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const { limit, after } = readPageRequest(request.query, auditPositionSchema);
    const createdAt = after && new Date(after.createdAt);
    const rows = await services.db.prisma.redemptionCode.findMany({
      where: {
        vendorId: vendorOf(request).vendorId,
        ...(createdAt && after ? { createdAt: { lte: createdAt }, OR: [{ createdAt: { lt: createdAt } }, { id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit + 1,
    });
    response.json(toList(rows, limit, toCodeObject, (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id })));
  };
}
