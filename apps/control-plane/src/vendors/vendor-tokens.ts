import { displayPrefix, GatewayError, hashSecret, newId, newVendorToken } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";

/** `upstreams:read`: the health of the upstreams serving the vendor's models (GET /api/upstreams). */
export const VENDOR_SCOPES = ["keys:create", "keys:read", "keys:update", "keys:revoke", "usage:read", "upstreams:read", "webhooks:write", "customers:read", "customers:write", "plans:write"] as const;
export type VendorScope = (typeof VENDOR_SCOPES)[number];

/** Creates a vendor token; the plaintext is returned once and only its hash is stored. */
export async function createVendorToken(prisma: PrismaClient, input: { vendor: string; name: string; scopes: readonly string[] }) {
  const unknown = input.scopes.filter((scope) => !(VENDOR_SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0) throw new GatewayError("invalid_body", `Unknown scopes: ${unknown.join(", ")}. Known: ${VENDOR_SCOPES.join(", ")}.`, { param: "scopes" });
  const vendor = await prisma.vendor.findUnique({ where: { name: input.vendor } });
  if (!vendor) throw new GatewayError("not_found", `Unknown vendor '${input.vendor}'.`, { param: "vendor" });
  const plaintext = newVendorToken();
  const row = await prisma.vendorToken.create({
    data: { id: newId("vtk"), vendorId: vendor.id, name: input.name, tokenHash: hashSecret(plaintext), prefix: displayPrefix(plaintext), scopes: [...input.scopes] },
  });
  return { row, plaintext, vendor };
}

export async function revokeVendorToken(prisma: PrismaClient, id: string) {
  return prisma.vendorToken.update({ where: { id }, data: { revokedAt: new Date() } });
}
