import { displayPrefix, GatewayError, hashSecret, newApiKey, newId } from "@gateway/contracts";
import type { ApiKey, PrismaClient } from "@gateway/db";
import type { RecordStore } from "@gateway/redis-store";
import { recordAudit, type Actor } from "./audit.ts";
import { loadCustomerRecord, loadCustomerRecords } from "../customers/customer-record.ts";
import { keyRecordsOf } from "./key-record.ts";
import { publishKeyRecords } from "./publish-key.ts";

export interface MintKeyInput {
  vendorId: string;
  serverOption: string;
  name: string;
  quotaNano: bigint | null;
  expiresAt: Date | null;
  rpm: number | null;
  tpm: number | null;
  metadata: Record<string, unknown>;
  budget?: { limitNano: bigint; period: string } | null;
  /** The customer the key belongs to (checked to be the vendor's by the caller); null or absent = none. */
  customerId?: string | null;
}

export interface MintedKey {
  row: ApiKey;
  serverOption: string;
  plaintext: string;
}

/**
 * Mints a key: Postgres first (the source of truth, hash only), then the Redis record every proxy
 * reads, then the pub/sub notice. If Redis cannot be written the key is removed again and the
 * mint fails, so a key is never reported that the proxies cannot see. With an actor, the audit
 * entry is written beside the row.
 */
export async function mintKey(prisma: PrismaClient, records: RecordStore, input: MintKeyInput, actor?: Actor): Promise<MintedKey> {
  const option = await prisma.serverOption.findUnique({ where: { name: input.serverOption } });
  if (!option) throw new GatewayError("not_found", `Unknown server option '${input.serverOption}'.`, { param: "server_option" });
  const plaintext = newApiKey();
  const keyHash = hashSecret(plaintext);
  const row = await prisma.apiKey.create({
    data: {
      id: newId("key"),
      vendorId: input.vendorId,
      serverOptionId: option.id,
      name: input.name,
      keyHash,
      prefix: displayPrefix(plaintext),
      status: "active",
      expiresAt: input.expiresAt,
      quotaNano: input.quotaNano,
      rpm: input.rpm,
      tpm: input.tpm,
      metadata: input.metadata as object,
      budgetNano: input.budget?.limitNano ?? null,
      budgetPeriod: input.budget?.period ?? null,
      customerId: input.customerId ?? null,
    },
  });
  if (actor) {
    await recordAudit(prisma, actor, "key.created", row.id, {
      name: row.name, server_option: option.name, quota: input.quotaNano === null ? null : input.quotaNano.toString(), prefix: row.prefix,
      ...(row.customerId !== null ? { customer_id: row.customerId } : {}),
    });
  }
  try {
    await publishKeyRecords(records, keyRecordsOf(row, option.name, await loadCustomerRecord(prisma, row.customerId)));
  } catch (error) {
    if (actor) await prisma.auditEntry.deleteMany({ where: { keyId: row.id } });
    await prisma.apiKey.delete({ where: { id: row.id } });
    throw error;
  }
  return { row, serverOption: option.name, plaintext };
}

/**
 * Revokes a key and makes every proxy refuse it: the Redis records (the current secret and one in
 * a rotation's grace) are rewritten as revoked and the eviction is published, inside the
 * transaction that revokes the row. If that cannot be done the revoke fails (contract section 6)
 * and nothing changes, so a reported revocation is always a real one.
 */
export async function revokeKey(prisma: PrismaClient, records: RecordStore, id: string, actor?: Actor): Promise<{ row: ApiKey; serverOption: string }> {
  return prisma.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM api_keys WHERE id = ${id} FOR UPDATE`;
      const before = await tx.apiKey.findUnique({ where: { id }, include: { serverOption: { select: { name: true } } } });
      if (!before) throw new GatewayError("not_found", `No key with id '${id}'.`, { param: "id" });
      if (before.status === "revoked") return { row: before, serverOption: before.serverOption.name };
      const row = await tx.apiKey.update({ where: { id }, data: { status: "revoked", revokedAt: new Date(), revision: { increment: 1 } } });
      if (actor) await recordAudit(tx, actor, "key.revoked", id, { status: "revoked" });
      await publishKeyRecords(records, keyRecordsOf(row, before.serverOption.name, await loadCustomerRecord(tx, row.customerId)));
      return { row, serverOption: before.serverOption.name };
    },
    { maxWait: 10_000, timeout: 15_000 },
  );
}

/** Writes every key's records back to Redis (after a flush, or at start). */
export async function rebuildKeyRecords(prisma: PrismaClient, records: RecordStore): Promise<number> {
  let written = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await prisma.apiKey.findMany({
      take: 500,
      ...(cursor ? { skip: 1, cursor: { id: cursor } } : {}),
      orderBy: { id: "asc" },
      include: { serverOption: { select: { name: true } } },
    });
    if (page.length === 0) break;
    const customers = await loadCustomerRecords(prisma, page.map((row) => row.customerId));
    await records.restoreKeys(page.flatMap((row) => keyRecordsOf(row, row.serverOption.name, row.customerId === null ? null : (customers.get(row.customerId) ?? null))));
    written += page.length;
    cursor = page.at(-1)!.id;
  }
  return written;
}
