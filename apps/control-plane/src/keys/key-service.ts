import { displayPrefix, GatewayError, hashSecret, newApiKey, newId } from "@gateway/contracts";
import type { ApiKey, PrismaClient } from "@gateway/db";
import type { RecordStore } from "@gateway/redis-store";
import { toKeyRecord } from "./key-record.ts";

export interface MintKeyInput {
  vendorId: string;
  serverOption: string;
  name: string;
  quotaNano: bigint | null;
  expiresAt: Date | null;
  rpm: number | null;
  tpm: number | null;
  metadata: Record<string, unknown>;
}

export interface MintedKey {
  row: ApiKey;
  serverOption: string;
  plaintext: string;
}

/**
 * Mints a key: Postgres first (the source of truth, hash only), then the Redis record every proxy
 * reads, then the pub/sub notice. If Redis cannot be written the key is removed again and the
 * mint fails, so a key is never reported that the proxies cannot see.
 */
export async function mintKey(prisma: PrismaClient, records: RecordStore, input: MintKeyInput): Promise<MintedKey> {
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
    },
  });
  try {
    await records.writeKey(keyHash, toKeyRecord(row, option.name));
  } catch (error) {
    await prisma.apiKey.delete({ where: { id: row.id } });
    throw new GatewayError("dependency_unavailable", "The key store is unavailable; the key was not created.", { cause: error });
  }
  return { row, serverOption: option.name, plaintext };
}

/**
 * Revokes a key and makes every proxy refuse it: the Redis record is rewritten as revoked and the
 * eviction is published. If that cannot be done the revoke fails (contract section 6) and the row
 * is restored, so a reported revocation is always a real one.
 */
export async function revokeKey(prisma: PrismaClient, records: RecordStore, id: string): Promise<{ row: ApiKey; serverOption: string }> {
  const before = await prisma.apiKey.findUnique({ where: { id }, include: { serverOption: true } });
  if (!before) throw new GatewayError("not_found", `No key with id '${id}'.`, { param: "id" });
  const row = before.status === "revoked" ? before : await prisma.apiKey.update({ where: { id }, data: { status: "revoked", revokedAt: new Date() } });
  try {
    await records.writeKey(row.keyHash, toKeyRecord(row, before.serverOption.name));
  } catch (error) {
    if (before.status !== "revoked") await prisma.apiKey.update({ where: { id }, data: { status: before.status, revokedAt: before.revokedAt } });
    throw new GatewayError("dependency_unavailable", "The key store is unavailable; the key was not revoked.", { cause: error });
  }
  return { row, serverOption: before.serverOption.name };
}

/** Writes every key's record back to Redis (after a flush, or at start). */
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
    await records.restoreKeys(page.map((row) => [row.keyHash, toKeyRecord(row, row.serverOption.name)] as const));
    written += page.length;
    cursor = page.at(-1)!.id;
  }
  return written;
}
