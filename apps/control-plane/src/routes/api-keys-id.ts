import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import { revokeKey } from "../keys/key-service.ts";
import { findVendorKey, toApiKeyObject } from "../vendors/key-object.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

/** GET /api/keys/{id}: one of the vendor's keys, without the plaintext (scope keys:read). */
export function getKeyRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const row = await findVendorKey(services.db.prisma, vendorOf(request).vendorId, request.params.id);
    response.json(toApiKeyObject(row, row.serverOption));
  };
}

/**
 * DELETE /api/keys/{id}: revokes one of the vendor's keys (scope keys:revoke). `revokeKey` rewrites
 * the Redis record every proxy reads and fails (503) when it cannot, so a 200 is a real revocation.
 * Revoking a revoked key answers the same 200 again.
 */
export function revokeKeyRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const owned = await findVendorKey(services.db.prisma, vendorOf(request).vendorId, request.params.id);
    const { row } = await revokeKey(services.db.prisma, services.records, owned.id);
    response.json(toApiKeyObject(row, owned.serverOption));
  };
}
