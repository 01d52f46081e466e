import type { Request, Response } from "express";
import { parseUsdToNano } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";
import type { ControlPlaneServices } from "../services.ts";
import { revokeKey } from "../keys/key-service.ts";
import { updateKey, type KeyPatch } from "../keys/key-changes.ts";
import { updateKeyBodySchema, type ApiKeyObject, type UpdateKeyBody } from "../vendors/api-schemas.ts";
import { hashRequest, readIdempotencyKey, responseCipher, runIdempotent } from "../vendors/idempotency.ts";
import { findVendorKey, presentKey } from "../vendors/key-object.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { actorOf, vendorOf } from "../vendors/vendor-auth.ts";
import { emitEvent } from "../webhooks/emit.ts";
import { keyRevokedData } from "../webhooks/event-data.ts";

/** GET /api/keys/{id}: one of the vendor's keys, without the plaintext (scope keys:read). */
export function getKeyRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const row = await findVendorKey(services.db.prisma, vendorOf(request).vendorId, request.params.id);
    response.json(await presentKey(services.db.prisma, row, row.serverOption));
  };
}

/**
 * DELETE /api/keys/{id}: revokes one of the vendor's keys (scope keys:revoke). `revokeKey` rewrites
 * the Redis records every proxy reads and fails (503) when it cannot, so a 200 is a real revocation.
 * Revoking a revoked key answers the same 200 again.
 */
export function revokeKeyRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const owned = await findVendorKey(services.db.prisma, vendorOf(request).vendorId, request.params.id);
    const { row } = await revokeKey(services.db.prisma, services.records, owned.id, actorOf(request));
    // Once per key (the event id is the key's): a repeated DELETE re-emits nothing new, and one whose emit failed retries it.
    await emitEvent(services.db.prisma, { vendorId: row.vendorId, type: "key.revoked", eventId: `key.revoked:${row.id}`, data: keyRevokedData(row) });
    response.json(await presentKey(services.db.prisma, row, owned.serverOption));
  };
}

function toPatch(body: UpdateKeyBody): KeyPatch {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.quota !== undefined ? { quotaNano: body.quota === null ? null : parseUsdToNano(body.quota) } : {}),
    ...(body.quota_add !== undefined ? { quotaAddNano: parseUsdToNano(body.quota_add) } : {}),
    ...(body.rate_limits?.rpm !== undefined ? { rpm: body.rate_limits.rpm } : {}),
    ...(body.rate_limits?.tpm !== undefined ? { tpm: body.rate_limits.tpm } : {}),
    ...(body.expires_at !== undefined ? { expiresAt: body.expires_at === null ? null : new Date(body.expires_at) } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    ...(body.budget !== undefined ? { budget: body.budget === null ? null : { limitNano: parseUsdToNano(body.budget.limit), period: body.budget.period } } : {}),
    ...(body.status !== undefined ? { status: body.status } : {}),
  };
}

/**
 * PATCH /api/keys/{id} (scope keys:update): changes what the body names, atomically (a top-up
 * under concurrent top-ups and spending adds exactly once), and every proxy sees it within a
 * second. With an `Idempotency-Key`, a retried top-up is answered from the first, not applied twice.
 */
export function updateKeyRoute(services: ControlPlaneServices) {
  const { prisma } = services.db;
  const cipher = responseCipher(services.config.IDEMPOTENCY_SECRET);
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const actor = actorOf(request);
    const idempotencyKey = readIdempotencyKey(request.get("idempotency-key"));
    const patch = toPatch(parseInput(updateKeyBodySchema, request.body, "body"));
    const apply = async (tx: PrismaClient): Promise<ApiKeyObject> => {
      const row = await updateKey(tx, services, actor, request.params.id, patch);
      return presentKey(tx, row, row.serverOption);
    };
    if (idempotencyKey === undefined) {
      response.json(await prisma.$transaction((tx) => apply(tx as unknown as PrismaClient), { maxWait: 10_000, timeout: 15_000 }));
      return;
    }
    const scope = { vendorId: actor.vendorId, key: idempotencyKey, requestHash: hashRequest(`PATCH /api/keys/${request.params.id}`, request.body) };
    const result = await runIdempotent(prisma, cipher, scope, (tx) => apply(tx as unknown as PrismaClient));
    if (result.replayed) response.setHeader("idempotent-replayed", "true");
    response.json(result.value);
  };
}
