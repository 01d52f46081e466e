import { formatUsd, GatewayError } from "@gateway/contracts";
import type { ApiKey, PrismaClient, ServerOption } from "@gateway/db";
import type { ApiKeyObject } from "./api-schemas.ts";

type OptionDefaults = Pick<ServerOption, "name" | "rpm" | "tpm">;

/**
 * The key object of the vendor API, without the plaintext (which only the mint response has).
 * Rate limits are the effective ones: the key's own, else its server option's default, as
 * /v1/usage reports them.
 */
export function toApiKeyObject(row: ApiKey, option: OptionDefaults): ApiKeyObject {
  return {
    id: row.id,
    object: "api_key",
    prefix: row.prefix,
    name: row.name,
    server_option: option.name,
    quota: row.quotaNano === null ? null : formatUsd(row.quotaNano),
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    status: row.status === "revoked" ? "revoked" : "active",
    rate_limits: { rpm: row.rpm ?? option.rpm, tpm: row.tpm ?? option.tpm },
    metadata: isRecord(row.metadata) ? row.metadata : {},
  };
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
