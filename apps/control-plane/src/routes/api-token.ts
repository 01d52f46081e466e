import type { Request, Response } from "express";
import { GatewayError } from "@gateway/contracts";
import type { ControlPlaneServices } from "../services.ts";
import type { VendorTokenObject } from "../vendors/report-schemas.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

/**
 * GET /api/token: the calling vendor token, its vendor and its scopes (any valid vendor token),
 * like OpenRouter's GET /api/v1/key. The console reads it at sign-in to show only what the token
 * may do. The scopes are the ones `vendorAuth` checked this request with; the row adds what the
 * principal does not carry. Never the secret or its hash.
 */
export function tokenRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const { vendorId, vendorName, tokenId, scopes } = vendorOf(request);
    const row = await services.db.prisma.vendorToken.findUnique({
      where: { id: tokenId },
      select: { name: true, prefix: true, createdAt: true, lastUsedAt: true },
    });
    // Deleted with its vendor since vendorAuth read it: the same 401 as any token that stopped working.
    if (!row) throw new GatewayError("invalid_vendor_token", "Invalid or revoked vendor token.");
    const token: VendorTokenObject = {
      object: "vendor_token",
      id: tokenId,
      name: row.name,
      prefix: row.prefix,
      vendor: { id: vendorId, name: vendorName },
      scopes: [...scopes],
      created_at: row.createdAt.toISOString(),
      last_used_at: row.lastUsedAt?.toISOString() ?? null,
    };
    response.json(token);
  };
}
